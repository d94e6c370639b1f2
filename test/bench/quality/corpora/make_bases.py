#!/usr/bin/python3
"""Base TSVs (id, source, text) for the labelled corpora, from files that build.sh got with apt.

  make_bases.py man   ROOTS_DIR OUT.tsv.gz     manual pages of the packages unpacked in ROOTS_DIR/<pkg>/
  make_bases.py html  ROOTS_DIR OUT.tsv.gz     HTML documentation pages (raw HTML) under usr/share/doc
  make_bases.py lang  LANG LISTS_DIR OUT.tsv.gz      Debian Translation-LANG descriptions (ko, ru, ja ...)
  make_bases.py tmpl  LANG LISTS_DIR OUT.tsv.gz      template families of Translation-LANG descriptions
  make_bases.py short PACKAGES_FILE OUT.tsv.gz       distinct one-line synopses (<= 10 tokens)
  make_bases.py dedup IN.tsv.gz OUT.tsv.gz           drop rows with Jaccard >= --base-jaccard to a kept one

Every base set except 'tmpl' and 'short' is deduplicated here with nddup's own tokens (nddtext.py):
a document whose word 3-shingle Jaccard with an earlier kept one is >= --base-jaccard (0.3) is
dropped, so that distinct clusters of the generated corpus are distinct under the measure nddup uses
(gen_neardup.py's own check splits on \\w+ only, so to it a Japanese sentence is one token).
Output escapes: \\t \\n \\\\ (what gen_neardup.py reads).  Python 3 standard library + nddtext.py;
manual pages are rendered with groff (groff-base).
"""
import argparse
import gzip
import os
import random
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nddtext  # noqa: E402


def esc(s):
    return s.replace('\\', '\\\\').replace('\t', '\\t').replace('\n', '\\n').replace('\r', '')


def write_tsv(path, rows, header=('id', 'source', 'text')):
    with gzip.open(path, 'wt', encoding='utf-8', compresslevel=6) as f:
        f.write('\t'.join(header) + '\n')
        for i, (src, text) in enumerate(rows, 1):
            f.write(f'{i}\t{esc(src)}\t{esc(text)}\n')


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def shingles(text):
    return {hash(t) for t in nddtext.shingle_set(nddtext.tokens(text))}


def dedup(rows, limit, cap=5000):
    """Keep rows whose word 3-shingle Jaccard (nddup tokens) with every kept row is < limit."""
    kept, sizes, postings = [], [], {}
    for src, text in rows:
        s = shingles(text)
        if not s:
            continue
        shared = {}
        for h in s:
            for j in postings.get(h, ()):
                shared[j] = shared.get(j, 0) + 1
        if any(n / (len(s) + sizes[j] - n) >= limit for j, n in shared.items()):
            continue
        j = len(kept)
        for h in s:
            lst = postings.setdefault(h, [])
            if len(lst) < cap:
                lst.append(j)
        kept.append((src, text))
        sizes.append(len(s))
    return kept


# ------------------------------------------------------------------ manual pages

def read_maybe_gz(path):
    with open(path, 'rb') as f:
        data = f.read()
    if data[:2] == b'\x1f\x8b':
        data = gzip.decompress(data)
    return data


def is_alias(src):
    """A page that only sources another one (.so man3/foo.3): not a document of its own."""
    body = [l for l in src.splitlines() if l.strip() and not re.match(rb"^[.']\s*\\\"", l)]
    return bool(body) and all(l.startswith(b'.so ') for l in body)


def render_man(data, cwd):
    p = subprocess.run(['groff', '-k', '-t', '-mandoc', '-Tutf8', '-P-cbou', '-rHY=0'], input=data,
                       cwd=cwd, capture_output=True, timeout=120)
    text = p.stdout.decode('utf-8', 'replace')
    text = re.sub(r'[ \t]+\n', '\n', text)
    text = re.sub(r'\n{3,}', '\n\n', text)
    return text.strip()


def cmd_man(a):
    rows, seen = [], set()
    pkgs = sorted(os.listdir(a.roots))
    for pkg in pkgs:
        man = os.path.join(a.roots, pkg, 'usr/share/man')
        if not os.path.isdir(man):
            continue
        n0 = len(rows)
        for sec in sorted(os.listdir(man)):
            d = os.path.join(man, sec)
            if not sec.startswith('man') or not os.path.isdir(d):   # English pages only (no de/, fr/ ...)
                continue
            for name in sorted(os.listdir(d)):
                path = os.path.join(d, name)
                if os.path.islink(path) or not os.path.isfile(path):
                    continue
                data = read_maybe_gz(path)
                if is_alias(data):
                    continue
                try:
                    text = render_man(data, man)
                except subprocess.TimeoutExpired:
                    log(f'man: timeout {path}')
                    continue
                if len(text.split()) < 20 or text in seen:
                    continue
                seen.add(text)
                rows.append((f'{pkg}:{sec}/{re.sub(r"[.]gz$", "", name)}', text))
        log(f'man: {pkg}: {len(rows) - n0} pages')
    total = len(rows)
    rows = dedup(rows, a.base_jaccard)
    log(f'man: {len(rows)} of {total} rendered pages kept (nddup 3-shingle Jaccard < {a.base_jaccard})')
    write_tsv(a.out, rows)


# ------------------------------------------------------------------ HTML pages

SKIP_HTML = re.compile(r'(^|/)(genindex[^/]*|search|py-modindex|bookindex|index-[^/]*|api-index-[^/]*)\.html$')


def cmd_html(a):
    rows, seen = [], set()
    for pkg in sorted(os.listdir(a.roots)):
        doc = os.path.join(a.roots, pkg, 'usr/share/doc')
        if not os.path.isdir(doc):
            continue
        n0 = len(rows)
        for dirpath, dirnames, filenames in os.walk(doc):
            dirnames.sort()
            for name in sorted(filenames):
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, doc)
                if not name.endswith('.html') or os.path.islink(path) or SKIP_HTML.search(rel):
                    continue
                if '/_sources/' in path or os.path.getsize(path) > 1_000_000:
                    continue
                text = read_maybe_gz(path).decode('utf-8', 'replace').replace('\r', '').strip()
                if len(nddtext.tokens(text)) < 20 or text in seen:
                    continue
                seen.add(text)
                rows.append((f'{pkg}:{rel}', text))
        log(f'html: {pkg}: {len(rows) - n0} pages')
    total = len(rows)
    rows = dedup(rows, a.base_jaccard)
    log(f'html: {len(rows)} of {total} pages kept (nddup 3-shingle Jaccard < {a.base_jaccard})')
    write_tsv(a.out, rows)


# ------------------------------------------------------------------ Debian descriptions

def translation_records(path, lang):
    """(package, text) of a Translation-LANG list: short description, blank line, long description."""
    with open(path, encoding='utf-8', errors='replace') as f:
        data = f.read()
    for block in data.split('\n\n'):
        pkg, desc = None, None
        lines = block.split('\n')
        for i, line in enumerate(lines):
            if line.startswith('Package: '):
                pkg = line[9:].strip()
            elif line.startswith(f'Description-{lang}: '):
                short = line.split(': ', 1)[1].strip()
                body = []
                for l in lines[i + 1:]:
                    if not l.startswith(' '):
                        break
                    l = l[1:]
                    body.append('' if l.strip() == '.' else l)
                long = re.sub(r'\n{3,}', '\n\n', '\n'.join(body)).strip()
                desc = short + '\n\n' + long if long else short
        if pkg and desc:
            yield pkg, desc


def translation_rows(lists, lang):
    fname = lang.replace('_', '%5f')
    paths = sorted(os.path.join(lists, p) for p in os.listdir(lists)
                   if p.endswith(f'_i18n_Translation-{fname}'))
    if not paths:
        sys.exit(f'no uncompressed Translation-{lang} list in {lists}')
    seen, rows = set(), []
    for p in paths:
        for pkg, desc in translation_records(p, lang):
            if pkg not in seen:
                seen.add(pkg)
                rows.append((pkg, desc))
    return rows


def cmd_lang(a):
    rows = translation_rows(a.lists, a.lang)
    total = len(rows)
    rows = dedup(rows, a.base_jaccard)
    log(f'{a.lang}: {len(rows)} of {total} descriptions kept (nddup 3-shingle Jaccard < {a.base_jaccard})')
    write_tsv(a.out, rows)


def cmd_tmpl(a):
    """Template families: descriptions that share most of their text with another package's.

    Candidates are all Translation-LANG descriptions; pairs with word 3-shingle Jaccard >= --family
    (0.3) are linked, and only descriptions in a linked component of >= 2 are kept (the families).
    Within the kept set, near-identical descriptions (Jaccard >= --base-jaccard, default 0.5 here) are
    reduced to the first one, so family members are distinct documents that share 30-50 % of their
    shingles: hard negatives for each other, beside the generator's near-duplicates.  Families are
    taken whole (at most --max-family members, a seeded random sample) in a seeded random order until
    --max-docs descriptions, so that gen_neardup.py (run with --base-jaccard 1.01: no second
    deduplication) uses nearly all of them and siblings really meet in the corpus.  With --fill, other
    distinct descriptions (no family) are added up to --max-docs when the families are too few.
    """
    rows = translation_rows(a.lists, a.lang)
    total = len(rows)
    rows = dedup(rows, a.base_jaccard)           # drop near-identical descriptions
    sets = [shingles(t) for _, t in rows]
    postings = {}
    for i, s in enumerate(sets):
        for h in s:
            postings.setdefault(h, []).append(i)
    parent = list(range(len(rows)))

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x
    for i, s in enumerate(sets):
        shared = {}
        for h in s:
            lst = postings[h]
            if len(lst) > 2000:              # shingles of huge templates: their members are linked anyway
                continue
            for j in lst:
                if j < i:
                    shared[j] = shared.get(j, 0) + 1
        for j, n in shared.items():
            if n / (len(s) + len(sets[j]) - n) >= a.family:
                parent[find(i)] = find(j)
    fam = {}
    for i in range(len(rows)):
        fam.setdefault(find(i), []).append(i)
    fams = [m for m in fam.values() if len(m) >= 2]
    sizes = sorted((len(m) for m in fams), reverse=True)
    log(f'tmpl-{a.lang}: {sum(sizes)} descriptions in {len(fams)} families (Jaccard >= {a.family} links) '
        f'of {len(rows)} distinct (< {a.base_jaccard}) of {total}; largest families: {sizes[:12]}')
    rng = random.Random(a.seed)
    rng.shuffle(fams)
    kept = []
    for m in fams:
        if a.max_docs and len(kept) >= a.max_docs:
            break
        if len(m) > a.max_family:
            m = sorted(rng.sample(m, a.max_family))
        kept.extend(rows[i] for i in m)
    if a.fill and len(kept) < a.max_docs:      # too few families: add other (distinct) descriptions
        infam = {i for m in fams for i in m}
        others = [i for i in range(len(rows)) if i not in infam]
        rng.shuffle(others)
        extra = others[:a.max_docs - len(kept)]
        kept.extend(rows[i] for i in sorted(extra))
        log(f'tmpl-{a.lang}: added {len(extra)} descriptions outside families (--fill)')
    log(f'tmpl-{a.lang}: kept {len(kept)} descriptions (families in random order, seed {a.seed}, '
        f'at most {a.max_family} of a family, stop at {a.max_docs})')
    write_tsv(a.out, kept)


def cmd_short(a):
    """Distinct one-line synopses (the Description: line of every package), 1..10 nddup tokens."""
    out, seen_text, seen_tok = [], set(), set()
    total = 0
    with open(a.packages, encoding='utf-8', errors='replace') as f:
        pkg = None
        for line in f:
            if line.startswith('Package: '):
                pkg = line[9:].strip()
            elif line.startswith('Description: '):
                total += 1
                text = line[13:].strip()
                if text in seen_text:
                    continue
                seen_text.add(text)
                toks = tuple(nddtext.tokens(text))
                if not 1 <= len(toks) <= a.max_tokens or toks in seen_tok:
                    continue
                seen_tok.add(toks)
                out.append((pkg, text))
    log(f'short: {len(out)} distinct synopses of <= {a.max_tokens} tokens '
        f'({len(seen_text)} distinct texts of {total} packages)')
    write_tsv(a.out, out, header=('id', 'package', 'text'))


def read_base(path):
    rows = []
    with gzip.open(path, 'rt', encoding='utf-8') as f:
        next(f)
        for line in f:
            p = line.rstrip('\n').split('\t')
            unesc = lambda x: re.sub(r'\\(.)', lambda m: {'t': '\t', 'n': '\n', '\\': '\\'}.get(m.group(1), m.group(1)), x)
            rows.append((unesc(p[1]), unesc(p[2])))
    return rows


def cmd_dedup(a):
    rows = read_base(a.inp)
    kept = dedup(rows, a.base_jaccard)
    log(f'dedup: {len(kept)} of {len(rows)} kept (nddup 3-shingle Jaccard < {a.base_jaccard})')
    write_tsv(a.out, kept)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest='cmd', required=True)
    for name in ('man', 'html'):
        p = sub.add_parser(name)
        p.add_argument('roots')
        p.add_argument('out')
        p.add_argument('--base-jaccard', type=float, default=0.3)
    p = sub.add_parser('dedup')
    p.add_argument('inp')
    p.add_argument('out')
    p.add_argument('--base-jaccard', type=float, default=0.3)
    p = sub.add_parser('lang')
    p.add_argument('lang')
    p.add_argument('lists')
    p.add_argument('out')
    p.add_argument('--base-jaccard', type=float, default=0.3)
    p = sub.add_parser('tmpl')
    p.add_argument('lang')
    p.add_argument('lists')
    p.add_argument('out')
    p.add_argument('--base-jaccard', type=float, default=0.5)
    p.add_argument('--family', type=float, default=0.3)
    p.add_argument('--max-family', type=int, default=100)
    p.add_argument('--max-docs', type=int, default=4000)
    p.add_argument('--seed', type=int, default=1)
    p.add_argument('--fill', action='store_true', help='fill up to --max-docs with descriptions outside families')
    p = sub.add_parser('short')
    p.add_argument('packages')
    p.add_argument('out')
    p.add_argument('--max-tokens', type=int, default=10)
    a = ap.parse_args()
    {'man': cmd_man, 'html': cmd_html, 'dedup': cmd_dedup, 'lang': cmd_lang, 'tmpl': cmd_tmpl, 'short': cmd_short}[a.cmd](a)


if __name__ == '__main__':
    main()
