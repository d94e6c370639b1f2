#!/usr/bin/python3
"""Exact word 3-shingle Jaccard over ALL pairs of an unlabelled corpus of short texts (short.tsv.gz).

  shortstats.py short.tsv.gz [--out short.pairs.tsv.gz] [--min 0.2] [--tok split|keep]

Prints the number of pairs at each Jaccard level and how many documents have a neighbour at it,
and writes every pair with J >= --min (id_a, id_b, intersection, |A|, |B|, J) so that a method's
reported pairs can be scored as false positives (J < 0.2: unrelated) or hits without recomputing.
Also prints a few example pairs per band.  Needs python3-numpy, python3-scipy.
"""
import argparse
import gzip
import os
import sys

if os.environ.get('PYTHONHASHSEED') != '0':
    os.environ['PYTHONHASHSEED'] = '0'
    os.execv(sys.executable, [sys.executable] + sys.argv)

import numpy as np                                      # noqa: E402
import scipy.sparse as sp                               # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nddtext                                          # noqa: E402
from reference import read_corpus                       # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('corpus')
    ap.add_argument('--out')
    ap.add_argument('--min', type=float, default=0.2)
    ap.add_argument('--tok', default='split')
    ap.add_argument('--block', type=int, default=512)
    a = ap.parse_args()
    _, rows = read_corpus(a.corpus)
    ids = [r['id'] for r in rows]
    texts = [r['text'] for r in rows]
    N = len(rows)
    sets = [nddtext.shingle_set(nddtext.tokens(t, a.tok == 'keep')) for t in texts]
    lens = np.array([len(s) for s in sets])
    vocab = {}
    ri, ci = [], []
    for i, s in enumerate(sets):
        for x in s:
            ri.append(i)
            ci.append(vocab.setdefault(x, len(vocab)))
    X = sp.csr_matrix((np.ones(len(ri), np.float32), (ri, ci)), shape=(N, len(vocab)))
    XT = X.T.tocsr()
    edges = [0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]
    npairs = np.zeros(len(edges), np.int64)
    nn = np.zeros(N)
    kept = []
    for a0 in range(0, N, a.block):
        b0 = min(N, a0 + a.block)
        I = (X[a0:b0] @ XT).tocoo()
        m = I.col > I.row + a0
        r, c, v = I.row[m] + a0, I.col[m], I.data[m]
        J = v / (lens[r] + lens[c] - v)
        for k, e in enumerate(edges):
            npairs[k] += int((J >= e - 1e-12).sum())
        np.maximum.at(nn, r, J)
        np.maximum.at(nn, c, J)
        sel = J >= a.min - 1e-12
        kept.extend(zip(r[sel].tolist(), c[sel].tolist(), v[sel].astype(int).tolist(), J[sel].tolist()))
    print(f'{a.corpus}: {N} documents, tok={a.tok}, shingles/doc mean {lens.mean():.1f}, median {np.median(lens):.0f}, '
          f'{int((lens == 0).sum())} without shingles; {N * (N - 1) // 2} pairs')
    print('| J >= | pairs | documents with a neighbour at J >= |')
    print('|---|---|---|')
    for k, e in enumerate(edges):
        print(f'| {e:.2f} | {npairs[k]} | {int((nn >= e - 1e-12).sum())} |')
    rng = np.random.default_rng(1)
    kept.sort(key=lambda x: x[3])
    for lo, hi in ((0.2, 0.3), (0.3, 0.5), (0.5, 0.8), (0.8, 1.01)):
        band = [x for x in kept if lo <= x[3] < hi]
        if not band:
            continue
        print(f'\nexamples {lo} <= J < {hi} ({len(band)} pairs):')
        for i in rng.choice(len(band), min(6, len(band)), replace=False):
            r, c, v, j = band[i]
            print(f'  J={j:.3f}  {texts[r]!r}  ~  {texts[c]!r}')
    if a.out:
        with gzip.open(a.out, 'wt', encoding='utf-8') as f:
            f.write('id_a\tid_b\tintersection\tsize_a\tsize_b\tjaccard\n')
            for r, c, v, j in kept:
                f.write(f'{ids[r]}\t{ids[c]}\t{v}\t{lens[r]}\t{lens[c]}\t{j:.4f}\n')


if __name__ == '__main__':
    main()
