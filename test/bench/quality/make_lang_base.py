#!/usr/bin/env python3
"""Make a base TSV (id, package, text) from Debian's translated package descriptions.

  make_lang_base.py LANG OUT.tsv.gz [--base-jaccard 0.3]   LANG as in Description-LANG: ko, ja, ru, zh_CN

Bases are deduplicated here, before gen_neardup.py sees them: a description whose word 3-shingle
Jaccard with an earlier kept one is >= 0.3 is dropped.  Tokens follow nddup's rule (docs/text-pipeline.md)
closely enough for this: lower-cased runs of word characters, except that every CJK ideograph, hiragana
and katakana character is a token of its own.  gen_neardup.py's own check splits on \w+ only, so a
Chinese or Japanese sentence is one token to it and near-identical descriptions (libfoo1 / libfoo-dev,
"transitional package") survived as different clusters: wrong labels, not misses of the methods.

Reads /var/lib/apt/lists/*_i18n_Translation-LANG(.lz4|.gz|.xz|) (fetch them first with
`apt-get update -o Acquire::Languages=ko,zh_CN,ja,ru`).  The text of a package is its short
description, a blank line and the long description (Debian's " ." lines become paragraph breaks).
Output escapes: \\t \\n \\\\ (the format gen_neardup.py reads).  Python 3 standard library only;
.lz4 lists are read through the lz4cat program.
"""
import glob, gzip, lzma, re, subprocess, sys

LISTS = '/var/lib/apt/lists'


def read_list(path):
    if path.endswith('.lz4'):
        return subprocess.run(['lz4cat', path], check=True, capture_output=True).stdout.decode('utf-8', 'replace')
    if path.endswith('.gz'):
        return gzip.open(path, 'rt', encoding='utf-8', errors='replace').read()
    if path.endswith('.xz'):
        return lzma.open(path, 'rt', encoding='utf-8', errors='replace').read()
    return open(path, encoding='utf-8', errors='replace').read()


def records(text, lang):
    pkg, desc = None, None
    for block in text.split('\n\n'):
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
                long = '\n'.join(body)
                while '\n\n\n' in long:
                    long = long.replace('\n\n\n', '\n\n')
                desc = short + '\n\n' + long.strip() if long.strip() else short
        if pkg and desc:
            yield pkg, desc


CJK = '\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f'
TOKEN = re.compile(f'[{CJK}]|[^\\W{CJK}]+')


def shingle_set(text):
    toks = TOKEN.findall(text.lower())
    return {'\x00'.join(toks[i:i + 3]) for i in range(max(1, len(toks) - 2))} if toks else set()


def dedup(rows, limit):
    """Keep the rows whose 3-shingle Jaccard with every kept row is below limit (inverted index)."""
    kept, sets, postings = [], [], {}
    for pkg, desc in rows:
        s = shingle_set(desc)
        shared = {}
        for h in s:
            for j in postings.get(h, ()):
                shared[j] = shared.get(j, 0) + 1
        if any(n / (len(s) + len(sets[j]) - n) >= limit for j, n in shared.items()):
            continue
        for h in s:
            postings.setdefault(h, []).append(len(kept))
        kept.append((pkg, desc))
        sets.append(s)
    return kept


def esc(s):
    return s.replace('\\', '\\\\').replace('\t', '\\t').replace('\n', '\\n').replace('\r', '')


def main():
    lang, out = sys.argv[1], sys.argv[2]
    limit = float(sys.argv[sys.argv.index('--base-jaccard') + 1]) if '--base-jaccard' in sys.argv else 0.3
    fname = lang.replace('_', '%5f')
    paths = sorted(p for p in glob.glob(f'{LISTS}/*_i18n_Translation-{fname}*') if not p.endswith('.diff'))
    if not paths:
        sys.exit(f'no Translation-{lang} list in {LISTS}')
    seen, rows = set(), []
    for p in paths:
        for pkg, desc in records(read_list(p), lang):
            if pkg not in seen:
                seen.add(pkg)
                rows.append((pkg, desc))
    total = len(rows)
    rows = dedup(rows, limit)
    with gzip.open(out, 'wt', encoding='utf-8') as f:
        f.write('id\tpackage\ttext\n')
        for i, (pkg, desc) in enumerate(rows, 1):
            f.write(f'{i}\t{esc(pkg)}\t{esc(desc)}\n')
    print(f'{lang}: {len(rows)} of {total} packages kept (3-shingle Jaccard < {limit}) from {", ".join(paths)}',
          file=sys.stderr)


if __name__ == '__main__':
    main()
