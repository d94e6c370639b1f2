#!/usr/bin/python3
"""Stress corpus for document-frequency filtering: a labelled corpus plus a few LARGE clusters.

  make_bigclusters.py IN.tsv.gz OUT.tsv.gz [--sizes 20,50,100,200] [--per 2] [--seed 1] [--gen PATH]

gen_neardup.py gives every cluster at most 9 rows, so in its corpora no shingle of a document's own
text has a document frequency above ~10, and any df cut-off above that looks harmless.  Real tables
have big clusters (mirrored pages, 88 copies of one Debian description, "transitional package"
stubs): their shared text has df = cluster size.  This adds, for each size s in --sizes, --per
clusters of s rows: an existing 'original' row of IN and s - 1 new 'near' variants of it made by
gen_neardup.py's own near_variant() (word edits, chrome, renumbering, swaps, reformatting).  New rows
get doc_ids after IN's; everything else of IN is unchanged.  Deterministic for a seed.
"""
import argparse
import gzip
import importlib.util
import os
import random
import re


def unesc(s):
    return re.sub(r'\\(.)', lambda m: {'t': '\t', 'n': '\n', '\\': '\\'}.get(m.group(1), m.group(1)), s)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('inp')
    ap.add_argument('out')
    ap.add_argument('--sizes', default='20,50,100,200')
    ap.add_argument('--per', type=int, default=2)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--gen', default=os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'gen_neardup.py'))
    a = ap.parse_args()
    spec = importlib.util.spec_from_file_location('gen_neardup', a.gen)
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    with gzip.open(a.inp, 'rt', encoding='utf-8') as f:
        header = next(f)
        lines = [l.rstrip('\n') for l in f]
    rows = [l.split('\t', 4) for l in lines]
    rng = random.Random(a.seed)
    singles = {}
    count = {}
    for r in rows:
        count[r[1]] = count.get(r[1], 0) + 1
    for r in rows:
        if r[2] == 'original' and count[r[1]] == 1:
            singles[r[1]] = unesc(r[4])
    keys = sorted(singles, key=int)
    rng.shuffle(keys)
    texts = [singles[k] for k in keys[:200]]
    vocab = [w for w in ' '.join(texts).split() if w.isalpha()][:5000]
    nid = max(int(r[0]) for r in rows)
    out = list(lines)
    used = 0
    for s in (int(x) for x in a.sizes.split(',')):
        for _ in range(a.per):
            cid = keys[used]
            used += 1
            for _ in range(s - 1):
                t, e = gen.near_variant(singles[cid], rng, vocab)
                nid += 1
                out.append(f'{nid}\t{cid}\tnear\t{e}\t{gen.esc(t)}')
    with gzip.open(a.out, 'wt', encoding='utf-8') as f:
        f.write(header)
        for l in out:
            f.write(l + '\n')
    print(f'{a.out}: {len(out)} rows ({len(out) - len(lines)} added in {used} big clusters)')


if __name__ == '__main__':
    main()
