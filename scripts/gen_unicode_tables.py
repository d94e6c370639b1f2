#!/usr/bin/env python3
"""Generate src/core/unicode_tables.h, the Unicode tables of the nddup text pipeline.

Usage:
    python3 scripts/gen_unicode_tables.py [UCD_DIR] > src/core/unicode_tables.h

UCD_DIR defaults to /usr/share/unicode (Debian package unicode-data).  It
reads UnicodeData.txt, DerivedNormalizationProps.txt, CaseFolding.txt,
Scripts.txt and PropList.txt, and writes:

  - a two-level property table: for every code point, the index of a record
    holding its canonical combining class and flags (word character, mark,
    one-character token, has a decomposition, may compose with a preceding
    character, has a case folding, stable starter);
  - the full (recursive) NFKD decomposition of every code point that has
    one, except Hangul syllables (decomposed algorithmically);
  - the canonical composition pairs, without the full composition
    exclusions and without Hangul (composed algorithmically);
  - the full case foldings (CaseFolding.txt statuses C and F).

Fingerprints depend on these tables: regenerating them from another Unicode
version changes stored data, so it must come with a new versioned function.
Python 3 standard library only.
"""

import os
import re
import sys

UCD = sys.argv[1] if len(sys.argv) > 1 else "/usr/share/unicode"
MAXCP = 0x110000

# Hangul constants (Unicode chapter 3.12)
S_BASE, L_BASE, V_BASE, T_BASE = 0xAC00, 0x1100, 0x1161, 0x11A7
L_COUNT, V_COUNT, T_COUNT = 19, 21, 28
N_COUNT = V_COUNT * T_COUNT
S_COUNT = L_COUNT * N_COUNT

# Record flags; keep in sync with normalize.c / tokenize.c.
F_WORD = 0x01      # General Category L*, M* or N*
F_MARK = 0x02      # General Category M*
F_SOLO = 0x04      # Ideographic, Script=Hiragana/Katakana, U+30FC
F_DECOMP = 0x08    # NFKD differs from the code point itself
F_COMP2 = 0x10     # may compose with a preceding character
F_FOLD = 0x20      # has a C or F case folding
F_STABLE = 0x40    # ccc 0, no decomposition, no backward composition


def ucd_path(name):
    return os.path.join(UCD, name)


def read_lines(name):
    with open(ucd_path(name), encoding="utf-8") as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                yield [field.strip() for field in line.split(";")]


def parse_range(text):
    if ".." in text:
        a, b = text.split("..")
        return int(a, 16), int(b, 16)
    return int(text, 16), int(text, 16)


def version_of(name):
    with open(ucd_path(name), encoding="utf-8") as f:
        first = f.readline()
    m = re.search(r"-(\d+\.\d+\.\d+)\.txt", first)
    if not m:
        sys.exit("cannot find the Unicode version in %s" % name)
    return m.group(1)


def main():
    version = version_of("DerivedNormalizationProps.txt")
    for other in ("CaseFolding.txt", "Scripts.txt", "PropList.txt"):
        if version_of(other) != version:
            sys.exit("%s is not Unicode %s" % (other, version))

    gc = ["Cn"] * MAXCP
    ccc = [0] * MAXCP
    decomp = {}          # cp -> (is_compat, [cps])
    range_start = None
    for fields in read_lines("UnicodeData.txt"):
        cp = int(fields[0], 16)
        name, cat = fields[1], fields[2]
        if name.endswith(", First>"):
            range_start = cp
            continue
        if name.endswith(", Last>"):
            for c in range(range_start, cp + 1):
                gc[c] = cat
                ccc[c] = int(fields[3])
            range_start = None
            continue
        gc[cp] = cat
        ccc[cp] = int(fields[3])
        if fields[5]:
            parts = fields[5].split()
            compat = parts[0].startswith("<")
            if compat:
                parts = parts[1:]
            decomp[cp] = (compat, [int(p, 16) for p in parts])

    fce = set()
    for fields in read_lines("DerivedNormalizationProps.txt"):
        if fields[1] == "Full_Composition_Exclusion":
            a, b = parse_range(fields[0])
            fce.update(range(a, b + 1))

    solo = set([0x30FC])
    for fields in read_lines("PropList.txt"):
        if fields[1] == "Ideographic":
            a, b = parse_range(fields[0])
            solo.update(range(a, b + 1))
    for fields in read_lines("Scripts.txt"):
        if fields[1] in ("Hiragana", "Katakana"):
            a, b = parse_range(fields[0])
            solo.update(range(a, b + 1))

    fold = {}
    for fields in read_lines("CaseFolding.txt"):
        if fields[1] in ("C", "F"):
            fold[int(fields[0], 16)] = [int(p, 16) for p in fields[2].split()]

    def is_hangul_syllable(c):
        return S_BASE <= c < S_BASE + S_COUNT

    def nfkd(c):
        if is_hangul_syllable(c):
            s = c - S_BASE
            out = [L_BASE + s // N_COUNT, V_BASE + (s % N_COUNT) // T_COUNT]
            if s % T_COUNT:
                out.append(T_BASE + s % T_COUNT)
            return out
        if c in decomp:
            out = []
            for d in decomp[c][1]:
                out.extend(nfkd(d))
            return out
        return [c]

    full_decomp = {}
    for c in sorted(decomp):
        d = nfkd(c)
        if d != [c]:
            full_decomp[c] = d

    comp = {}
    for c, (compat, parts) in decomp.items():
        if compat or len(parts) != 2 or c in fce:
            continue
        comp[(parts[0], parts[1])] = c
    comp_second = set(s for (_, s) in comp)
    comp_second.update(range(V_BASE, V_BASE + V_COUNT))
    comp_second.update(range(T_BASE + 1, T_BASE + T_COUNT))

    # Per-code-point records.
    records = {}
    record_list = []
    rec_of = [0] * MAXCP
    for c in range(MAXCP):
        flags = 0
        cat = gc[c]
        if cat[0] in "LMN":
            flags |= F_WORD
        if cat[0] == "M":
            flags |= F_MARK
        if c in solo:
            flags |= F_SOLO
        if c in full_decomp or is_hangul_syllable(c):
            flags |= F_DECOMP
        if c in comp_second:
            flags |= F_COMP2
        if c in fold:
            flags |= F_FOLD
        if ccc[c] == 0 and not flags & (F_DECOMP | F_COMP2):
            flags |= F_STABLE
        key = (flags, ccc[c])
        if key not in records:
            records[key] = len(record_list)
            record_list.append(key)
        rec_of[c] = records[key]
    if len(record_list) > 256:
        sys.exit("too many property records: %d" % len(record_list))

    # Two-level table: choose the block size that minimizes the total size.
    best = None
    for shift in range(4, 10):
        size = 1 << shift
        blocks = {}
        block_list = []
        index = []
        for start in range(0, MAXCP, size):
            blk = tuple(rec_of[start:start + size])
            if blk not in blocks:
                blocks[blk] = len(block_list)
                block_list.append(blk)
            index.append(blocks[blk])
        total = len(index) * 2 + len(block_list) * size
        if best is None or total < best[0]:
            best = (total, shift, index, block_list)
    _, shift, index, block_list = best
    if len(block_list) > 65535:
        sys.exit("too many blocks")

    decomp_keys = sorted(full_decomp)
    decomp_data = []
    decomp_info = []
    for c in decomp_keys:
        d = full_decomp[c]
        if len(d) > 31:
            sys.exit("decomposition too long")
        decomp_info.append((len(decomp_data) << 5) | len(d))
        decomp_data.extend(d)
    max_decomp = max(len(d) for d in full_decomp.values())

    comp_keys = sorted(comp)
    fold_keys = sorted(fold)
    fold_data = []
    fold_info = []
    for c in fold_keys:
        fold_info.append((len(fold_data) << 5) | len(fold[c]))
        fold_data.extend(fold[c])
    max_fold = max(len(v) for v in fold.values())

    w = sys.stdout.write
    w("/*-------------------------------------------------------------------------\n")
    w(" *\n")
    w(" * unicode_tables.h\n")
    w(" *\t  Unicode %s tables of the nddup text pipeline.  GENERATED FILE.\n" % version)
    w(" *\n")
    w(" * Generated by scripts/gen_unicode_tables.py from the Unicode Character\n")
    w(" * Database %s (Debian package unicode-data):\n" % version)
    w(" *\n")
    w(" *\t  python3 scripts/gen_unicode_tables.py /usr/share/unicode \\\n")
    w(" *\t\t  > src/core/unicode_tables.h\n")
    w(" *\n")
    w(" * Do not edit.  The normalized text, and so every stored fingerprint,\n")
    w(" * depends on these tables: regenerating them from another Unicode\n")
    w(" * version needs a new versioned function.\n")
    w(" *\n")
    w(" *-------------------------------------------------------------------------\n")
    w(" */\n")
    w("#ifndef NDDUP_UNICODE_TABLES_H\n#define NDDUP_UNICODE_TABLES_H\n\n")
    w("#include <stdint.h>\n\n")
    w('#define NDDUP_UNICODE_VERSION\t"%s"\n\n' % version)
    w("/* flags of a property record */\n")
    for name, val, what in (
            ("WORD", F_WORD, "General Category L*, M* or N*"),
            ("MARK", F_MARK, "General Category M*"),
            ("SOLO", F_SOLO, "Ideographic, Hiragana, Katakana, U+30FC"),
            ("DECOMP", F_DECOMP, "NFKD differs from the code point"),
            ("COMP2", F_COMP2, "may compose with a preceding character"),
            ("FOLD", F_FOLD, "has a full case folding (C or F)"),
            ("STABLE", F_STABLE, "ccc 0, no decomposition, no COMP2")):
        w("#define NDDUP_UF_%s\t0x%02x\t/* %s */\n" % (name.ljust(7), val, what))
    w("\n#define NDDUP_UPROPS_SHIFT\t%d\n" % shift)
    w("#define NDDUP_MAX_DECOMP\t%d\n" % max_decomp)
    w("#define NDDUP_MAX_FOLD\t\t%d\n\n" % max_fold)
    w("/* Hangul syllables (Unicode chapter 3.12) */\n")
    w("#define NDDUP_HANGUL_SBASE\t0x%04X\n" % S_BASE)
    w("#define NDDUP_HANGUL_LBASE\t0x%04X\n" % L_BASE)
    w("#define NDDUP_HANGUL_VBASE\t0x%04X\n" % V_BASE)
    w("#define NDDUP_HANGUL_TBASE\t0x%04X\n" % T_BASE)
    w("#define NDDUP_HANGUL_LCOUNT\t%d\n" % L_COUNT)
    w("#define NDDUP_HANGUL_VCOUNT\t%d\n" % V_COUNT)
    w("#define NDDUP_HANGUL_TCOUNT\t%d\n" % T_COUNT)
    w("#define NDDUP_HANGUL_NCOUNT\t%d\n" % N_COUNT)
    w("#define NDDUP_HANGUL_SCOUNT\t%d\n\n" % S_COUNT)

    def array(ctype, name, values, fmt, per_line):
        w("static const %s %s[%d] = {\n" % (ctype, name, len(values)))
        for i in range(0, len(values), per_line):
            chunk = values[i:i + per_line]
            w("\t" + ", ".join(fmt % v for v in chunk) + ",\n")
        w("};\n\n")

    w("/* property records: flags and canonical combining class */\n")
    w("typedef struct NddupUProps\n{\n\tuint8_t\t\tflags;\n\tuint8_t\t\tccc;\n} NddupUProps;\n\n")
    w("static const NddupUProps nddup_uprops[%d] = {\n" % len(record_list))
    for flags, c in record_list:
        w("\t{0x%02x, %d},\n" % (flags, c))
    w("};\n\n")
    w("/* record index of U+0000..U+00FF (direct lookup) */\n")
    array("uint8_t", "nddup_uprops_latin1", rec_of[:256], "%d", 16)
    w("/* first level: code point >> NDDUP_UPROPS_SHIFT -> block */\n")
    array("uint16_t", "nddup_uprops_index", index, "%d", 12)
    w("/* second level: blocks of record indexes */\n")
    flat = [r for blk in block_list for r in blk]
    array("uint8_t", "nddup_uprops_blocks", flat, "%d", 16)

    w("/* full NFKD decompositions (sorted by code point); info = offset << 5 | len */\n")
    array("uint32_t", "nddup_decomp_cp", decomp_keys, "0x%04X", 8)
    array("uint32_t", "nddup_decomp_info", decomp_info, "%d", 8)
    array("uint32_t", "nddup_decomp_data", decomp_data, "0x%04X", 8)

    w("/* canonical compositions: key = first << 21 | second (sorted) */\n")
    array("uint64_t", "nddup_comp_key",
          [(a << 21) | b for (a, b) in comp_keys], "UINT64_C(0x%X)", 4)
    array("uint32_t", "nddup_comp_value",
          [comp[k] for k in comp_keys], "0x%04X", 8)

    w("/* full case foldings (sorted by code point); info = offset << 5 | len */\n")
    array("uint32_t", "nddup_fold_cp", fold_keys, "0x%04X", 8)
    array("uint32_t", "nddup_fold_info", fold_info, "%d", 8)
    array("uint32_t", "nddup_fold_data", fold_data, "0x%04X", 8)

    w("/* Property record of a code point (anything above U+10FFFF as U+FFFD). */\n")
    w("static inline const NddupUProps *\n")
    w("nddup_uprops_of(uint32_t cp)\n{\n")
    w("\tif (cp < 256)\n")
    w("\t\treturn &nddup_uprops[nddup_uprops_latin1[cp]];\n")
    w("\tif (cp > 0x10FFFF)\n\t\tcp = 0xFFFD;\n")
    w("\treturn &nddup_uprops[nddup_uprops_blocks[\n")
    w("\t\t((uint32_t) nddup_uprops_index[cp >> NDDUP_UPROPS_SHIFT]\n")
    w("\t\t << NDDUP_UPROPS_SHIFT) |\n")
    w("\t\t(cp & ((UINT32_C(1) << NDDUP_UPROPS_SHIFT) - 1))]];\n}\n\n")
    w("#endif\t\t\t\t\t\t\t/* NDDUP_UNICODE_TABLES_H */\n")
    sys.stderr.write("records %d, shift %d, blocks %d, decomps %d (%d cps), "
                     "compositions %d, foldings %d\n"
                     % (len(record_list), shift, len(block_list),
                        len(decomp_keys), len(decomp_data), len(comp_keys),
                        len(fold_keys)))


if __name__ == "__main__":
    main()
