#!/usr/bin/python3
"""Reference numbers for a labelled corpus: exact word 3-shingle Jaccard, with and without
document-frequency filtering of shingles, under nddup's tokenizer (nddtext.py).

  reference.py CORPUS.tsv.gz [--out RESULT.json] [--abs 5,10,...] [--frac 0.001,...] [--block 128]
  reference.py --table RESULT.json [RESULT.json ...]        print the tables again from saved results

CORPUS: gen_neardup.py output (doc_id, cluster_id, kind, edits, text).  Scoring as docs/reports/quality.md:
pairs over the original/near/templated rows, a pair is positive when both rows are original/near of
one cluster; P, R, F1 of "J >= t".  Document frequencies (df) are counted over ALL rows (the whole
table, as an aggregate would), and so are the unlabelled statistics (all-pairs J histogram, each
document's nearest-neighbour J) used for threshold recommendation (thresholds.py).

Variants (every combination is computed in one pass per tokenizer):
  tok     split: '_' separates words (nddup today); keep: '_' is a word character
  cut     drop shingles whose df > cut (cut = an absolute count, or floor(f * N) for a fraction f of the
          N documents); inf = no filtering
  adapt   (C, rho): drop df > C, except that each document keeps at least the share rho of its own
          shingles (its cut-off is raised to the smallest computed cut-off that keeps rho, so only
          its most frequent shingles go); two documents meet on the shingles both keep
  --group-jaccard g: df counts groups of near-identical documents (connected components of full-set
          J >= g) instead of documents, so a big cluster of near-copies counts once (Broder kept one
          representative per identical group); boilerplate shared by distinct pages still counts fully
  q       what a document keeps when filtering removes most of it: q = 0: its filtered set, even if
          empty (an empty set matches nothing); q = 1e-9 ("fallback"): the full set when the filtered
          set is empty; q = 0.5: the full set when fewer than half of its shingles survive.
          A document on its full set meets a filtered one on the filtered shingles only (J = |A∩B'| /
          (|A| + |B'| - |A∩B'|)), two full ones on everything.
J is binned at 0.001 (floor(J * 1000)); F1 is exact for thresholds on that grid.
Needs python3-numpy and python3-scipy (Debian packages).
"""
import argparse
import gzip
import json
import os
import re
import sys
import time

if os.environ.get('PYTHONHASHSEED') != '0':            # deterministic shingle hashes
    os.environ['PYTHONHASHSEED'] = '0'
    os.execv(sys.executable, [sys.executable] + sys.argv)

import numpy as np                                      # noqa: E402
import scipy.sparse as sp                               # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nddtext                                          # noqa: E402

NB = 1001                                               # J bins: floor(J*1000) in 0..1000
QS = (0.0, 1e-9, 0.5)
QNAME = {0.0: 'empty', 1e-9: 'fallback', 0.5: 'half'}
GRID = [round(0.05 * i, 2) for i in range(1, 20)]


def unesc(s):
    return re.sub(r'\\(.)', lambda m: {'t': '\t', 'n': '\n', '\\': '\\'}.get(m.group(1), m.group(1)), s)


def read_corpus(path):
    rows = []
    with gzip.open(path, 'rt', encoding='utf-8') as f:
        header = next(f).rstrip('\n').split('\t')
        for line in f:
            p = line.rstrip('\n').split('\t')
            rows.append(dict(zip(header, p[:len(header) - 1] + [unesc('\t'.join(p[len(header) - 1:]))])))
    return header, rows


def shingle_arrays(texts, keep_underscore):
    out = []
    for t in texts:
        s = nddtext.shingle_set(nddtext.tokens(t, keep_underscore))
        out.append(np.fromiter((hash(x) for x in s), dtype=np.int64, count=len(s)))
    return out


def groups_by_jaccard(N, owner, inv, lens, tau, block, log):
    """Connected components of the pairs with full-set Jaccard >= tau (union-find)."""
    X = sp.csr_matrix((np.ones(len(inv), np.float32), (owner, inv)), shape=(N, int(inv.max()) + 1))
    XT = X.T.tocsr()
    parent = np.arange(N)

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x
    links = 0
    for a in range(0, N, block):
        b = min(N, a + block)
        I = (X[a:b] @ XT).tocoo()
        r, c, v = I.row + a, I.col, I.data
        m = (c > r) & (v >= tau * (lens[r] + lens[c] - v) - 1e-9)
        for x, y in zip(r[m].tolist(), c[m].tolist()):
            px, py = find(x), find(y)
            if px != py:
                parent[px] = py
                links += 1
    g = np.array([find(x) for x in range(N)])
    log(f'  groups at full-set J >= {tau}: {len(np.unique(g))} groups of {N} documents ({links} merges)')
    return g


def run_tok(sh, cluster, scored, posable, cuts, block, log, adapt=(), group_j=None):
    """All variants for one tokenization. sh: list of int64 arrays (shingle sets) of all N documents.
    group_j: count document frequency over groups of near-identical documents (full-set Jaccard >=
    group_j, connected components) instead of over documents: a shingle shared only by one big
    cluster of near-copies then has df 1."""
    N = len(sh)
    lens = np.array([len(a) for a in sh], dtype=np.int64)
    owner = np.repeat(np.arange(N), lens)
    allh = np.concatenate(sh) if N else np.zeros(0, np.int64)
    _, inv, dfu = np.unique(allh, return_inverse=True, return_counts=True)
    shared = dfu[inv] > 1                               # shingles that can meet another document
    if group_j:
        g = groups_by_jaccard(N, owner, inv, lens, group_j, block, log)
        pairs = np.unique(inv.astype(np.int64) * N + g[owner])
        dfu = np.bincount(pairs // N, minlength=len(dfu))
    df = dfu[inv]
    K = len(cuts) + 1                                   # cut-offs + inf
    bounds = list(cuts) + [np.inf]
    s = np.zeros((K, N), dtype=np.int64)                # filtered set sizes
    for k, c in enumerate(bounds):
        s[k] = np.bincount(owner[df <= c], minlength=N)
    # buckets of columns by df (df = 1 shingles never meet another document: sizes only)
    mats, lo = [], 0
    for c in bounds:
        sel = shared & (df > lo) & (df <= c)
        cols = np.unique(inv[sel], return_inverse=True)[1]
        X = sp.csr_matrix((np.ones(sel.sum(), np.float32), (owner[sel], cols)), shape=(N, cols.max() + 1 if sel.any() else 1))
        mats.append((X, X.T.tocsr()))
        lo = c
    log(f'  {N} docs, {len(dfu)} distinct shingles, {int((dfu > 1).sum())} shared; buckets nnz '
        + ' '.join(str(m[0].nnz) for m in mats))
    full = {q: np.array([s[k] < q * lens for k in range(K)]) for q in QS}      # K x N: doc uses its full set
    hp = np.zeros((len(QS), K, NB), np.int64)           # positive pairs' J histogram (scored rows)
    hn = np.zeros((len(QS), K, NB), np.int64)           # negative pairs (scored rows)
    ha = np.zeros((len(QS), K, NB), np.int64)           # all pairs, all rows (unlabelled)
    nn = np.zeros((len(QS), K, N), np.float32)          # nearest-neighbour J of each doc (all rows)
    sf = s.astype(np.float32)
    lensf = lens.astype(np.float32)
    # adaptive variants (C, rho): drop df > C, but a document keeps at least rho of its shingles: its
    # own cut-off is raised to the smallest computed one that keeps rho (only its most frequent
    # shingles go).  Two documents meet on the shingles both keep: df <= min(cut_i, cut_j).
    bl = list(bounds)
    akey, aidx = [], []
    for C, rho in adapt:
        kC = bl.index(C) if C in bl else min(i for i, c in enumerate(bl) if c >= C)
        ok = s >= rho * lens[None, :]                   # K x N (last row always true)
        needk = np.argmax(ok, axis=0)
        aidx.append(np.maximum(kC, needk))
        akey.append(f'{C},{rho:g}')
    A = len(adapt)
    ahp = np.zeros((A, NB), np.int64)
    ahn = np.zeros((A, NB), np.int64)
    aha = np.zeros((A, NB), np.int64)
    ann = np.zeros((A, N), np.float32)
    arows = np.arange(N)
    for a in range(0, N, block):
        b = min(N, a + block)
        upper = np.arange(a, N)[None, :] > np.arange(a, b)[:, None]
        both = scored[a:b, None] & scored[None, a:]
        pos = both & posable[a:b, None] & posable[None, a:] & (cluster[a:b, None] == cluster[None, a:])
        neg = both & ~pos
        I = np.zeros((b - a, N - a), np.float32)
        Ik = []
        for X, XT in mats:
            I += (X[a:b] @ XT[:, a:]).toarray()
            Ik.append(I.copy())
        Iinf = Ik[-1]
        for k in range(K):
            for qi, q in enumerate(QS):
                if k == K - 1 and qi > 0:               # no filtering: every q is the same
                    hp[qi, k], hn[qi, k], ha[qi, k], nn[qi, k] = hp[0, k], hn[0, k], ha[0, k], nn[0, k]
                    continue
                fi, fj = full[q][k, a:b], full[q][k, a:]
                si = np.where(fi, lensf[a:b], sf[k, a:b])[:, None]
                sj = np.where(fj, lensf[a:], sf[k, a:])[None, :]
                if fi.any() and fj.any():
                    inter = np.where(fi[:, None] & fj[None, :], Iinf, Ik[k])
                else:
                    inter = Ik[k]
                with np.errstate(divide='ignore', invalid='ignore'):
                    J = np.where((inter > 0) & upper, inter / (si + sj - inter), 0.0)
                bins = np.minimum((J * 1000 + 1e-6).astype(np.int32), 1000)
                m = J > 0
                ha[qi, k] += np.bincount(bins[m], minlength=NB)
                hp[qi, k] += np.bincount(bins[m & pos], minlength=NB)
                hn[qi, k] += np.bincount(bins[m & neg], minlength=NB)
                nn[qi, k, a:b] = np.maximum(nn[qi, k, a:b], J.max(axis=1))
                nn[qi, k, a:] = np.maximum(nn[qi, k, a:], J.max(axis=0))
        if A:
            Ist = np.stack(Ik)
            for ai in range(A):
                ki = aidx[ai]
                kij = np.minimum(ki[a:b, None], ki[None, a:])
                inter = np.take_along_axis(Ist, kij[None], axis=0)[0]
                si = sf[ki[a:b], arows[a:b]][:, None]
                sj = sf[ki[a:], arows[a:]][None, :]
                with np.errstate(divide='ignore', invalid='ignore'):
                    J = np.where((inter > 0) & upper, inter / (si + sj - inter), 0.0)
                bins = np.minimum((J * 1000 + 1e-6).astype(np.int32), 1000)
                m = J > 0
                aha[ai] += np.bincount(bins[m], minlength=NB)
                ahp[ai] += np.bincount(bins[m & pos], minlength=NB)
                ahn[ai] += np.bincount(bins[m & neg], minlength=NB)
                ann[ai, a:b] = np.maximum(ann[ai, a:b], J.max(axis=1))
                ann[ai, a:] = np.maximum(ann[ai, a:], J.max(axis=0))
            del Ist
        if (a // block) % 10 == 0:
            log(f'  rows {b}/{N}')
    sc = scored
    stats = {
        'docs': int(N), 'scored': int(sc.sum()),
        'shingles_mean': float(lens[sc].mean()), 'shingles_median': float(np.median(lens[sc])),
        'shingles_p10': float(np.percentile(lens[sc], 10)),
        'empty_docs': int((lens[sc] == 0).sum()),
        'df_max': int(dfu.max()), 'distinct_shingles': int(len(dfu)),
        'top_df': sorted((int(x) for x in dfu), reverse=True)[:20],
        'per_cut': [{
            'all_dropped': int(((s[k] == 0) & (lens > 0))[sc].sum()),
            'lt5': int((s[k] < 5)[sc].sum()),
            'less_than_half': int((s[k] < 0.5 * lens)[sc].sum()),
            'kept_share': float(s[k][sc].sum() / max(1, lens[sc].sum())),
        } for k in range(K)],
    }
    stats['adapt'] = {key: {'kept_share': float(s[aidx[i], arows][sc].sum() / max(1, lens[sc].sum())),
                            'raised_docs': int((aidx[i] > (bl.index(adapt[i][0]) if adapt[i][0] in bl else 0))[sc].sum())}
                      for i, key in enumerate(akey)}
    adapt_res = {key: {'hp': ahp[i].tolist(), 'hn': ahn[i].tolist(), 'ha': aha[i].tolist()} for i, key in enumerate(akey)}
    return hp, hn, ha, nn, stats, adapt_res, {key: ann[i] for i, key in enumerate(akey)}


def f1_at(hp, hn, npos, t):
    i = int(round(t * 1000))
    tp, fp = int(hp[i:].sum()), int(hn[i:].sum())
    p = tp / (tp + fp) if tp + fp else 1.0
    r = tp / npos if npos else 0.0
    return (2 * p * r / (p + r) if p + r else 0.0), p, r


def curve(hp, hn, npos):
    """F1 at every 0.001 threshold (vectorised)."""
    tp = np.cumsum(hp[::-1])[::-1].astype(float)
    fp = np.cumsum(hn[::-1])[::-1].astype(float)
    p = np.divide(tp, tp + fp, out=np.ones_like(tp), where=(tp + fp) > 0)
    r = tp / max(1, npos)
    return np.divide(2 * p * r, p + r, out=np.zeros_like(tp), where=(p + r) > 0)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('corpus', nargs='*')
    ap.add_argument('--out')
    ap.add_argument('--abs', default='5,10,20,30,50,100,200,300,500,1000')
    ap.add_argument('--frac', default='0.0005,0.001,0.002,0.005,0.01,0.02,0.05,0.1')
    ap.add_argument('--tok', default='split,keep')
    ap.add_argument('--block', type=int, default=128)
    ap.add_argument('--group-jaccard', type=float, default=None,
                    help='df over groups of near-identical documents (full-set Jaccard >= this) instead of documents')
    ap.add_argument('--adapt-c', default='10,20,30,50,100', help='adaptive variants: cut-offs C ...')
    ap.add_argument('--adapt-rho', default='0.3,0.5,0.7', help='... times minimum kept shares rho')
    ap.add_argument('--table', nargs='+', help='print tables of saved results')
    a = ap.parse_args()
    if a.table:
        for p in a.table:
            print_tables(json.load(open(p)))
        return
    t0 = time.time()

    def log(m):
        print(f'[{time.time() - t0:7.1f}s] {m}', file=sys.stderr, flush=True)
    path = a.corpus[0]
    header, rows = read_corpus(path)
    N = len(rows)
    kinds = np.array([r['kind'] for r in rows])
    cluster = np.array([int(r['cluster_id']) for r in rows], dtype=np.int64)
    scored = np.isin(kinds, ['original', 'near', 'templated'])
    posable = np.isin(kinds, ['original', 'near'])
    # positives: pairs of original/near rows of one cluster
    _, cnt = np.unique(cluster[posable], return_counts=True)
    npos = int((cnt * (cnt - 1) // 2).sum())
    absv = [int(x) for x in a.abs.split(',') if x]
    fracs = [float(x) for x in a.frac.split(',') if x]
    cutmap = {f'{c}': c for c in absv}
    for f in fracs:
        cutmap[f'{f * 100:g}%'] = int(f * N)
    adapt = [(int(C), float(r)) for C in a.adapt_c.split(',') if C for r in a.adapt_rho.split(',') if r]
    cuts = sorted(set([v for v in cutmap.values() if v >= 1] + [C for C, _ in adapt]))
    log(f'{path}: {N} rows, {int(scored.sum())} scored, {npos} positive pairs; cut-offs {cuts}')
    res = {'corpus': os.path.basename(path).replace('.tsv.gz', ''), 'path': path, 'rows': N,
           'scored': int(scored.sum()), 'positives': npos, 'cuts': cuts, 'cutmap': cutmap,
           'qs': [QNAME[q] for q in QS], 'unicode': nddtext.UNICODE_SOURCE, 'tok': {},
           'adapt': [f'{C},{r:g}' for C, r in adapt], 'group_jaccard': a.group_jaccard}
    nnstore = {}
    for tok in a.tok.split(','):
        log(f'tokenizing ({tok})')
        texts = [r['text'] for r in rows]
        sh = shingle_arrays(texts, tok == 'keep')
        log('pairs')
        hp, hn, ha, nn, stats, ares, ann = run_tok(sh, cluster, scored, posable, cuts, a.block, log, adapt, a.group_jaccard)
        res['tok'][tok] = {'hp': hp.tolist(), 'hn': hn.tolist(), 'ha': ha.tolist(), 'stats': stats, 'adapt': ares}
        nnstore[tok] = nn
        for key, v in ann.items():
            nnstore[f'{tok}:adapt:{key}'] = v
    res['seconds'] = round(time.time() - t0, 1)
    out = a.out or re.sub(r'\.tsv\.gz$', '', path) + '.ref.json'
    with open(out, 'w') as f:
        json.dump(res, f)
    np.savez_compressed(re.sub(r'\.json$', '', out) + '.nn.npz', **{t: v for t, v in nnstore.items()},
                        kinds=kinds, cluster=cluster)
    log(f'wrote {out}')
    print_tables(res)


def cutname(res, k):
    cuts = res['cuts']
    if k == len(cuts):
        return 'none'
    names = [n for n, v in res['cutmap'].items() if v == cuts[k]]
    return f'{cuts[k]} (' + ', '.join(names) + ')'


def print_tables(res):
    npos = res['positives']
    print(f"\n## {res['corpus']}: {res['rows']} rows, {res['scored']} scored, {npos} positive pairs")
    for tok, d in res['tok'].items():
        hp, hn = np.array(d['hp']), np.array(d['hn'])
        st = d['stats']
        print(f"\n### tok = {tok}: shingles/doc mean {st['shingles_mean']:.0f}, median {st['shingles_median']:.0f}, "
              f"p10 {st['shingles_p10']:.0f}; max df {st['df_max']}")
        print('| drop df > | q | ceiling F1 (t) | F1 @0.3 (P/R) | best t (0.001 grid) | docs all dropped | docs < half kept | shingles kept |')
        print('|---|---|---|---|---|---|---|---|')
        K = len(res['cuts']) + 1
        for k in range(K - 1, -1, -1):
            for qi, q in enumerate(res['qs']):
                if k == K - 1 and qi > 0:
                    continue
                best = max(GRID, key=lambda t: (f1_at(hp[qi, k], hn[qi, k], npos, t)[0], -abs(t - 0.3)))
                fb = f1_at(hp[qi, k], hn[qi, k], npos, best)[0]
                f3, p3, r3 = f1_at(hp[qi, k], hn[qi, k], npos, 0.3)
                c = curve(hp[qi, k], hn[qi, k], npos)
                fine = int(np.argmax(c[50:951])) + 50
                pc = st['per_cut'][k]
                print(f"| {cutname(res, k)} | {q} | {fb:.4f} ({best:.2f}) | {f3:.4f} ({p3:.3f}/{r3:.3f}) | "
                      f"{c[fine]:.4f} ({fine / 1000:.3f}) | {pc['all_dropped']} | {pc['less_than_half']} | {pc['kept_share']:.3f} |")
        for key, v in d.get('adapt', {}).items():
            ahp, ahn = np.array(v['hp']), np.array(v['hn'])
            best = max(GRID, key=lambda t: (f1_at(ahp, ahn, npos, t)[0], -abs(t - 0.3)))
            fb = f1_at(ahp, ahn, npos, best)[0]
            f3, p3, r3 = f1_at(ahp, ahn, npos, 0.3)
            c = curve(ahp, ahn, npos)
            fine = int(np.argmax(c[50:951])) + 50
            sa = st['adapt'][key]
            print(f"| {key.split(',')[0]}, keep >= {key.split(',')[1]} of each doc | adaptive | {fb:.4f} ({best:.2f}) | "
                  f"{f3:.4f} ({p3:.3f}/{r3:.3f}) | {c[fine]:.4f} ({fine / 1000:.3f}) | – | {sa['raised_docs']} raised | {sa['kept_share']:.3f} |")


if __name__ == '__main__':
    main()
