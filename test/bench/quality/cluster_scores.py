#!/usr/bin/env python3
"""Score the clusters of cluster_scores.sh against the labels and print a Markdown table.

Usage: cluster_scores.py WORKDIR  (cs_truth.tsv, cs_pred.tsv, cs_time.tsv from cluster_scores.sql)

Scored rows: kind original, near or templated (as in the pairwise scores of quality.md); the
true cluster of an original/near row is its cluster_id, every templated row is a singleton.
ARI: adjusted Rand index of the predicted clusters restricted to the scored rows.  Pairwise
P/R/F1: pairs of scored rows in one predicted cluster against pairs in one true cluster.
Largest: the largest predicted cluster over all rows of the corpus.
"""
import collections
import csv
import sys

SCORED = {'original', 'near', 'templated'}


def pairs(n):
    """Number of unordered pairs among n items."""
    return n * (n - 1) // 2


def scores(truth, pred):
    """ARI, precision, recall, F1 of pred (doc -> cluster) against truth (doc -> label)."""
    nij = collections.Counter((truth[d], pred[d]) for d in truth)
    ai = collections.Counter(truth.values())
    bj = collections.Counter(pred[d] for d in truth)
    tp = sum(pairs(n) for n in nij.values())
    tpairs = sum(pairs(n) for n in ai.values())
    ppairs = sum(pairs(n) for n in bj.values())
    total = pairs(len(truth))
    expected = tpairs * ppairs / total
    top = (tpairs + ppairs) / 2 - expected
    ari = 1.0 if top == 0 else (tp - expected) / top
    p = tp / ppairs if ppairs else 1.0
    r = tp / tpairs if tpairs else 1.0
    f1 = 2 * p * r / (p + r) if p + r else 0.0
    return ari, p, r, f1


def read(path):
    """Rows of a tab-separated COPY file."""
    with open(path, newline='') as f:
        return list(csv.reader(f, delimiter='\t', quoting=csv.QUOTE_NONE))


def main():
    work = sys.argv[1]
    truth = collections.defaultdict(dict)
    ndocs = collections.Counter()
    for ds, doc, cl, kind in read(f'{work}/cs_truth.tsv'):
        ndocs[ds] += 1
        if kind in SCORED:
            truth[ds][doc] = ('c', cl) if kind != 'templated' else ('t', doc)
    pred = collections.defaultdict(dict)
    for ds, method, mode, doc, cl in read(f'{work}/cs_pred.tsv'):
        pred[ds, method, mode][doc] = cl
    ms = {(ds, m, md): (t, err) for ds, m, md, t, err in read(f'{work}/cs_time.tsv')}
    res = {}
    print('| corpus | docs (scored) | method | mode | ARI | P | R | F1 | largest | time (ms) |')
    print('|---|---:|---|---|---:|---:|---:|---:|---:|---:|')
    for ds in ndocs:
        tr = truth[ds]
        for method in ('shingleset', 'minhash'):
            for mode in ('greedy', 'components'):
                t, err = ms[ds, method, mode]
                if t == '\\N':
                    print(f'| {ds.replace("_", "-")} | {ndocs[ds]} ({len(tr)}) | {method} | {mode} | '
                          f'error: {err} ||||||')
                    continue
                pr = pred[ds, method, mode]
                missing = [d for d in tr if d not in pr]
                if missing:
                    sys.exit(f'{ds} {method} {mode}: {len(missing)} scored rows without a cluster')
                ari, p, r, f1 = scores(tr, pr)
                largest = max(collections.Counter(pr.values()).values())
                res[ds, method, mode] = (ari, f1, largest, float(t))
                print(f'| {ds.replace("_", "-")} | {ndocs[ds]} ({len(tr)}) | {method} | {mode} | '
                      f'{ari:.4f} | {p:.4f} | {r:.4f} | {f1:.4f} | {largest} | '
                      f'{float(t):.0f} |')
    print()
    for method in ('shingleset', 'minhash'):
        both = [ds for ds in ndocs if (ds, method, 'greedy') in res and (ds, method, 'components') in res]
        g = [res[ds, method, 'greedy'] for ds in both]
        c = [res[ds, method, 'components'] for ds in both]
        print(f'{method}: greedy F1 higher on {sum(a[1] > b[1] for a, b in zip(g, c))} of {len(both)}, '
              f'ARI higher on {sum(a[0] > b[0] for a, b in zip(g, c))}; largest cluster smaller on '
              f'{sum(a[2] < b[2] for a, b in zip(g, c))}, equal on {sum(a[2] == b[2] for a, b in zip(g, c))}; '
              f'time greedy / components {min(a[3] / b[3] for a, b in zip(g, c)):.2f}-'
              f'{max(a[3] / b[3] for a, b in zip(g, c)):.2f}, in total '
              f'{sum(a[3] for a in g) / sum(b[3] for b in c):.2f}')


if __name__ == '__main__':
    main()
