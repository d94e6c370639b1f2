#!/usr/bin/python3
"""Decision rules beyond "Jaccard >= t", tested with ONE parameter set on every labelled corpus.

  rulestudy.py pairs CORPUS.tsv.gz [...] --cache DIR        exact pair features of each corpus (cached)
  rulestudy.py eval DIR/NAME.pairs.npz [...] [--md OUT.md]  rule families, one fixed parameter set,
                                                            leave-one-corpus-out, recommenders

Issue 15's target: with the shipped defaults, F1 within 0.01 of the ceiling (the best F1 of exact word
3-shingle Jaccard over thresholds, 0.001 grid) on every labelled corpus.  This asks whether some other
decision rule, with one parameter set for all corpora, meets it on more corpora than "J >= 0.3".

Features of every pair of rows (nddup's tokenizer: nddtext.py, '_' splits words; word 3-shingles):
  J    exact Jaccard of the shingle sets
  C    containment of the smaller set in the larger, |A & B| / min(|A|, |B|)
  Jf   Jaccard after dropping the shingles in more than max(20, floor(0.002 N)) of the N rows (the
       default cut-off of shingle_filter_agg); a row whose shingles are all dropped keeps its full set
       (as minhash_filtered / shingle_set_filtered do)
  Cf   containment on the filtered sets
  Jw   weighted Jaccard, each shingle weighted by its idf log(N / df): sum(w, A & B) / sum(w, A | B)
  n    the smaller set's size
Pairs are kept when J >= 0.05 or Jf >= 0.05 or Jw >= 0.05 or C >= 0.2 or Cf >= 0.2; thresholds below those are not
tried, so every other pair is a predicted negative under every rule.

Scoring as reference.py / docs/reports/quality.md: pairs over the original/near/templated rows, a pair
is positive when both rows are original/near of one cluster.  A rule "meets" a corpus when its F1 is
within 0.01 of that corpus's ceiling.  Parameters are chosen to maximise (corpora met, mean F1 -
ceiling); the leave-one-corpus-out view chooses them on the other corpora and scores the held-out one.
"""
import argparse
import json
import os
import sys
import time

if os.environ.get('PYTHONHASHSEED') != '0':            # deterministic shingle hashes
    os.environ['PYTHONHASHSEED'] = '0'
    os.execv(sys.executable, [sys.executable] + sys.argv)

import numpy as np                                      # noqa: E402
import scipy.sparse as sp                               # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reference import read_corpus, shingle_arrays       # noqa: E402

KEEP_J, KEEP_C = 0.05, 0.2                               # pairs kept (see above)
TOL = 0.01                                               # issue 15: within 0.01 of the ceiling
STEP = 200                                               # rule thresholds on a 0.005 grid
T0 = time.time()


def log(m):
    """A progress line on stderr."""
    print(f'[{time.time() - T0:7.1f}s] {m}', file=sys.stderr, flush=True)


# ------------------------------------------------------------------ phase 1: pair features

def pairs(path, cache, block=256):
    """Exact features of every pair of rows of one corpus that any measure keeps (cached .pairs.npz)."""
    name = os.path.basename(path).replace('.tsv.gz', '')
    out = os.path.join(cache, name + '.pairs.npz')
    if os.path.exists(out):
        log(f'{out} exists')
        return out
    header, rows = read_corpus(path)
    N = len(rows)
    kinds = np.array([r['kind'] for r in rows])
    cluster = np.array([int(r['cluster_id']) for r in rows], dtype=np.int64)
    sh = shingle_arrays([r['text'] for r in rows], False)
    lens = np.array([len(a) for a in sh], dtype=np.int64)
    owner = np.repeat(np.arange(N), lens)
    allh = np.concatenate(sh)
    _, inv, dfu = np.unique(allh, return_inverse=True, return_counts=True)
    df = dfu[inv]
    cut = max(20, int(0.002 * N))
    keep = df <= cut
    lf = np.bincount(owner[keep], minlength=N)
    fallback = lf == 0                                   # all dropped: the full set
    shared = df > 1

    def mat(sel):
        cols = np.unique(inv[sel], return_inverse=True)[1]
        X = sp.csr_matrix((np.ones(int(sel.sum()), np.float32), (owner[sel], cols)),
                          shape=(N, int(cols.max()) + 1 if sel.any() else 1))
        return X, X.T.tocsr()
    Xk, XkT = mat(shared & keep)
    Xd, XdT = mat(shared & ~keep)
    # idf weights log(N / df): the weighted Jaccard sum(w, A & B) / sum(w, A | B)
    wocc = np.log(N / df)
    W = np.bincount(owner, weights=wocc, minlength=N)
    colsw = np.unique(inv[shared], return_inverse=True)[1]
    Xw = sp.csr_matrix((wocc[shared].astype(np.float32), (owner[shared], colsw)),
                       shape=(N, int(colsw.max()) + 1 if shared.any() else 1))
    Xs = sp.csr_matrix((np.ones(int(shared.sum()), np.float32), (owner[shared], colsw)), shape=Xw.shape).T.tocsr()
    log(f'{name}: {N} rows, {len(dfu)} distinct shingles, cut-off df > {cut} drops {int((dfu > cut).sum())}; '
        f'{int(fallback.sum())} rows fall back to their full set')
    sf = np.where(fallback, lens, lf).astype(np.float64)
    lensf = lens.astype(np.float64)
    out_i, out_j, out_I, out_If, out_Iw = [], [], [], [], []
    for a in range(0, N, block):
        b = min(N, a + block)
        Ik = (Xk[a:b] @ XkT[:, a:]).toarray()
        Ia = Ik + (Xd[a:b] @ XdT[:, a:]).toarray()
        both_fb = fallback[a:b, None] & fallback[None, a:]
        If = np.where(both_fb, Ia, Ik)
        Iw = (Xw[a:b] @ Xs[:, a:]).toarray().astype(np.float64)
        la, lb = lensf[a:b, None], lensf[None, a:]
        fa, fb = sf[a:b, None], sf[None, a:]
        with np.errstate(divide='ignore', invalid='ignore'):
            J = Ia / (la + lb - Ia)
            C = Ia / np.minimum(la, lb)
            Jf = If / (fa + fb - If)
            Cf = If / np.minimum(fa, fb)
            Jw = Iw / (W[a:b, None] + W[None, a:] - Iw)
        upper = np.arange(a, N)[None, :] > np.arange(a, b)[:, None]
        m = upper & (Ia > 0) & ((J >= KEEP_J - 1e-9) | (C >= KEEP_C - 1e-9) | (Jf >= KEEP_J - 1e-9) | (Cf >= KEEP_C - 1e-9) | (Jw >= KEEP_J - 1e-9))
        r, c = np.nonzero(m)
        out_i.append((r + a).astype(np.int32))
        out_j.append((c + a).astype(np.int32))
        out_I.append(Ia[r, c].astype(np.int32))
        out_If.append(If[r, c].astype(np.int32))
        out_Iw.append(Iw[r, c].astype(np.float32))
        if (a // block) % 10 == 0:
            log(f'  rows {b}/{N}, pairs so far {sum(len(x) for x in out_i)}')
    np.savez_compressed(out, i=np.concatenate(out_i), j=np.concatenate(out_j), I=np.concatenate(out_I),
                        If=np.concatenate(out_If), Iw=np.concatenate(out_Iw), W=W, lens=lens, lf=lf, fallback=fallback, kinds=kinds,
                        cluster=cluster, cut=cut, name=name)
    log(f'wrote {out}')
    return out


# ------------------------------------------------------------------ phase 2: rules

class Corpus:
    """Scored pairs' features of one corpus and its ceiling."""

    def __init__(self, path):
        z = np.load(path)
        self.name = str(z['name'])
        kinds, cluster = z['kinds'], z['cluster']
        scored = np.isin(kinds, ['original', 'near', 'templated'])
        posable = np.isin(kinds, ['original', 'near'])
        _, cnt = np.unique(cluster[posable], return_counts=True)
        self.npos = int((cnt * (cnt - 1) // 2).sum())
        self.rows, self.scored_rows = len(kinds), int(scored.sum())
        i, j, I, If = z['i'], z['j'], z['I'].astype(float), z['If'].astype(float)
        lens = z['lens'].astype(float)
        sf = np.where(z['fallback'], lens, z['lf']).astype(float)
        with np.errstate(divide='ignore', invalid='ignore'):
            J = I / (lens[i] + lens[j] - I)
            C = I / np.minimum(lens[i], lens[j])
            Jf = np.nan_to_num(If / (sf[i] + sf[j] - If))
            Cf = np.nan_to_num(If / np.minimum(sf[i], sf[j]))
            W = z['W']
            Jw = np.nan_to_num(z['Iw'] / (W[i] + W[j] - z['Iw']))
        # unlabelled: every kept pair of all rows (recommenders)
        self.allJ, self.allC, self.allJf = J, C, Jf
        s = scored[i] & scored[j]
        self.sidx = s
        self.pos = (posable[i] & posable[j] & (cluster[i] == cluster[j]))[s]
        self.J, self.C, self.Jf, self.Cf, self.Jw = J[s], C[s], Jf[s], Cf[s], Jw[s]
        self.allJw = Jw
        self.n = np.minimum(lens[i], lens[j])[s]
        self.nmax = np.maximum(lens[i], lens[j])[s]
        self.median_len = float(np.median(lens[scored]))
        self.cut = int(z['cut'])
        # ceiling: exact J, 0.001 grid, thresholds 0.05 .. 0.95
        self.ceiling, self.ceiling_t = best_1d(self.J, self.pos, self.npos, 1000, 50, 950)

    def f1(self, pred):
        """F1 of a boolean prediction over the scored pairs."""
        tp = int((pred & self.pos).sum())
        fp = int((pred & ~self.pos).sum())
        return f1v(tp, fp, self.npos)


def f1v(tp, fp, npos):
    """F1 from true and false positive counts (arrays), npos positives in all."""
    tp, fp = np.asarray(tp, float), np.asarray(fp, float)
    p = np.divide(tp, tp + fp, out=np.ones_like(tp), where=(tp + fp) > 0)
    r = tp / max(1, npos)
    return np.divide(2 * p * r, p + r, out=np.zeros_like(tp), where=(p + r) > 0)


def bins(v, steps=STEP):
    """Bin index floor(v * steps) (1e-6 guard), at most steps."""
    return np.minimum((v * steps + 1e-6).astype(np.int64), steps)


def suffix1(v, w, steps):
    """count of v >= t for t = i / steps, i in 0..steps."""
    h = np.bincount(bins(v, steps), weights=w, minlength=steps + 1)
    return np.cumsum(h[::-1])[::-1]


def best_1d(v, pos, npos, steps, lo, hi):
    tp = suffix1(v[pos], None, steps)
    fp = suffix1(v[~pos], None, steps)
    f = f1v(tp, fp, npos)
    k = int(np.argmax(f[lo:hi + 1])) + lo
    return float(f[k]), k / steps


def suffix2(x, y, w=None, steps=STEP):
    """S[a, b] = count of (x >= a/steps and y >= b/steps)."""
    H = np.zeros((steps + 2, steps + 2))
    np.add.at(H, (bins(x, steps), bins(y, steps)), 1 if w is None else w)
    return H[::-1, ::-1].cumsum(0).cumsum(1)[::-1, ::-1]


# Each family: name, a description, parameter grid axes, and per corpus a function giving (tp, fp)
# over the whole grid (arrays of the grid's shape).

def grid(lo, hi, step=1 / STEP):
    """Thresholds lo..hi in steps."""
    return np.round(np.arange(lo, hi + 1e-9, step), 4)


def idx(ts, steps=STEP):
    """Bin indexes of thresholds."""
    return np.round(np.asarray(ts) * steps).astype(int)


def fam_1d(feat):
    """feat >= t."""
    ts = grid(0.1, 0.9)

    def fn(c):
        v = getattr(c, feat)
        return suffix1(v[c.pos], None, STEP)[idx(ts)], suffix1(v[~c.pos], None, STEP)[idx(ts)]
    return {'name': f'{feat} >= t', 'axes': {'t': ts}, 'fn': fn}


def fam_2d(fx, fy, xr, yr, op):
    """x >= t1 OR y >= t2 (op 'OR') or x >= t1 AND y >= t2 (op 'AND'), from the 2-d suffix counts."""
    tx, ty = grid(*xr, 0.01), grid(*yr, 0.01)

    def fn(c):
        x, y = getattr(c, fx), getattr(c, fy)
        out = []
        for m in (c.pos, ~c.pos):
            S = suffix2(x[m], y[m])
            both = S[np.ix_(idx(tx), idx(ty))]
            if op == 'AND':
                out.append(both)
            else:                                   # count(x >= a) + count(y >= b) - count(both)
                out.append(S[idx(tx), 0][:, None] + S[0, idx(ty)][None, :] - both)
        return out[0], out[1]
    return {'name': f'{fx} >= t1 {op} {fy} >= t2', 'axes': {'t1': tx, 't2': ty}, 'fn': fn}


def fam_or(fx, fy, xr=(0.1, 0.8), yr=(0.3, 1.0)):
    """x >= t1 OR y >= t2."""
    return fam_2d(fx, fy, xr, yr, 'OR')


def fam_and(fx, fy, xr=(0.1, 0.8), yr=(0.05, 0.8)):
    """x >= t1 AND y >= t2."""
    return fam_2d(fx, fy, xr, yr, 'AND')


def fam_or_gated(fx, fy, yr=(0.4, 1.0)):
    """x >= t1 OR (y >= t2 AND x >= t3), t3 < t1: a lower x threshold for pairs of high y."""
    t1, t2, t3 = grid(0.2, 0.7, 0.01), grid(*yr, 0.02), grid(0.05, 0.5, 0.01)

    def fn(c):
        x, y = getattr(c, fx), getattr(c, fy)
        out = []
        for m in (c.pos, ~c.pos):
            S = suffix2(x[m], y[m])
            a = S[idx(t1), 0][:, None, None]
            lo = S[np.ix_(idx(t3), idx(t2))].T[None, :, :]          # x >= t3, y >= t2: [1, t2, t3]
            hi = S[np.ix_(idx(t1), idx(t2))][:, :, None]            # x >= t1, y >= t2: [t1, t2, 1]
            extra = np.where(t3[None, None, :] < t1[:, None, None], lo - hi, 0)
            out.append(a + np.maximum(extra, 0))
        return out[0], out[1]
    return {'name': f'{fx} >= t1 OR ({fy} >= t2 AND {fx} >= t3)', 'axes': {'t1': t1, 't2': t2, 't3': t3}, 'fn': fn}


def fam_or3(fx, fy, fz, r=(0.1, 0.9), step=0.02):
    """x >= t1 OR y >= t2 OR z >= t3 (0.01 bins)."""
    t = grid(*r, step)
    S = 100

    def fn(c):
        out = []
        for m in (c.pos, ~c.pos):
            H = np.zeros((S + 1, S + 1, S + 1))
            np.add.at(H, tuple(bins(getattr(c, f)[m], S) for f in (fx, fy, fz)), 1)
            P = np.zeros((S + 2, S + 2, S + 2))
            P[1:, 1:, 1:] = H.cumsum(0).cumsum(1).cumsum(2)      # P[a, b, c] = count(x < a, y < b, z < c) in bins
            k = idx(t, S)
            out.append(m.sum() - P[np.ix_(k, k, k)])
        return out[0], out[1]
    return {'name': f'{fx} >= t1 OR {fy} >= t2 OR {fz} >= t3', 'axes': {'t1': t, 't2': t, 't3': t}, 'fn': fn}


def fam_len(feat):
    """feat >= t_short when the smaller set has fewer than n0 shingles, else feat >= t_long."""
    n0s = np.array([20, 30, 40, 50, 60, 80, 100, 150, 200, 300])
    ts, tl = grid(0.1, 0.7, 0.01), grid(0.1, 0.7, 0.01)

    def fn(c):
        v = getattr(c, feat)
        tp = np.zeros((len(n0s), len(ts), len(tl)))
        fp = np.zeros_like(tp)
        for k, n0 in enumerate(n0s):
            short = c.n < n0
            for m, o in ((c.pos, tp), (~c.pos, fp)):
                a = suffix1(v[m & short], None, STEP)[idx(ts)]
                b = suffix1(v[m & ~short], None, STEP)[idx(tl)]
                o[k] = a[:, None] + b[None, :]
        return tp, fp
    return {'name': f'{feat} >= (t_short if n < n0 else t_long)', 'axes': {'n0': n0s, 't_short': ts, 't_long': tl}, 'fn': fn}


def families():
    """The rule families tried."""
    return [fam_1d('J'), fam_1d('Jf'), fam_1d('C'), fam_1d('Cf'), fam_1d('Jw'), fam_or('Jw', 'C'),
            fam_or_gated('Jw', 'C'), fam_len('Jw'),
            fam_or('J', 'C'), fam_or('Jf', 'C'), fam_or('Jf', 'Cf'), fam_or('J', 'Jf', yr=(0.1, 0.8)),
            fam_and('J', 'Jf'), fam_and('C', 'J', xr=(0.3, 1.0)), fam_and('Cf', 'Jf', xr=(0.3, 1.0)),
            fam_or_gated('J', 'C'), fam_or_gated('Jf', 'C'), fam_or_gated('Jf', 'Cf'),
            fam_len('J'), fam_len('Jf'), fam_or('J', 'Jw', yr=(0.1, 0.8)), fam_or('Jw', 'Jf', xr=(0.1, 0.8), yr=(0.1, 0.8)),
            fam_or_gated('Jf', 'J', yr=(0.2, 1.0)), fam_or_gated('Jf', 'Jw', yr=(0.2, 1.0)),
            fam_or3('J', 'Jf', 'C'), fam_or3('J', 'Jf', 'Jw'), fam_or3('Jw', 'Jf', 'C')]


def choose(D, which):
    """Index of the parameter set maximising (corpora met, mean deficit) over the corpora `which`.
    D: deficits, shape (corpora, grid...)."""
    sub = D[which]
    met = (sub >= -TOL - 1e-12).sum(axis=0)
    score = met * 10.0 + sub.mean(axis=0)               # mean deficit is > -10
    return np.unravel_index(int(np.argmax(score)), score.shape)


def describe(fam, ix):
    """A parameter set of a family as text."""
    return ', '.join(f'{k} = {v[i]:g}' for (k, v), i in zip(fam['axes'].items(), ix))


def evaluate(cs, fams):
    """Each family's F1 - ceiling on every corpus: the one parameter set and leave-one-corpus-out."""
    K = len(cs)
    summary = []
    for fam in fams:
        F = []
        for c in cs:
            tp, fp = fam['fn'](c)
            F.append(f1v(tp, fp, c.npos))
        F = np.stack(F)
        ceil = np.array([c.ceiling for c in cs]).reshape((K,) + (1,) * (F.ndim - 1))
        D = F - ceil
        ix = choose(D, np.arange(K))
        fixed = D[(slice(None),) + ix]
        loco, loco_params = [], []
        for h in range(K):
            jx = choose(D, np.array([x for x in range(K) if x != h]))
            loco.append(D[(h,) + jx])
            loco_params.append(describe(fam, jx))
        loco = np.array(loco)
        summary.append({'family': fam['name'], 'params': describe(fam, ix), 'met': int((fixed >= -TOL - 1e-12).sum()),
                        'mean': float(fixed.mean()), 'worst': float(fixed.min()),
                        'loco_met': int((loco >= -TOL - 1e-12).sum()), 'loco_mean': float(loco.mean()),
                        'fixed': fixed.tolist(), 'loco': loco.tolist(), 'loco_params': loco_params,
                        'f1': (F[(slice(None),) + ix]).tolist()})
        log(f"{fam['name']}: {describe(fam, ix)} met {summary[-1]['met']}/{K}, LOCO {summary[-1]['loco_met']}/{K}")
    return summary


# ------------------------------------------------------------------ recommenders on exact values

def smooth_log(counts):
    """log(1 + count) smoothed by a Gaussian of one bin (cut at three, edges repeated) and the factor of its standard error."""
    w = np.exp(-0.5 * np.arange(-3, 4) ** 2)
    y = np.log1p(counts)
    n = len(y)
    s = np.array([sum(w[k + 3] * y[min(n - 1, max(0, i + k))] for k in range(-3, 4)) for i in range(n)]) / w.sum()
    se_scale = np.sqrt((w ** 2).sum()) / w.sum()
    return s, se_scale


def valley_pick(values, fine, width, low=0.1, scan_from=0.2, scan_to=0.9, clamp=0.6, se_mult=1.0,
                edge=0.5, default=0.3):
    """nddup_recommend_threshold's rule (77_recommend.sql) on values counted in steps of 1/fine: bins of
    `width` from the first whole bin above `low`, log(1 + count) smoothed by a Gaussian of one bin, the
    first bin from scan_from not above either neighbour by more than se_mult standard errors; the answer
    is the bin's lower edge + edge * width (0.5: its centre, as shipped), at most clamp."""
    f = np.floor(values * fine + 1e-9).astype(int)
    f = f[f / fine >= low - 1e-9]
    first = int(np.ceil(low / width - 1e-9))
    nb = int(np.floor(1 / width + 1e-9)) - first + 1
    b = np.floor(f / fine / width + 1e-9).astype(int) - first
    counts = np.bincount(np.clip(b, 0, nb - 1), minlength=nb).astype(float)
    lower = (first + np.arange(nb)) * width
    sm, sc = smooth_log(counts)
    for i in range(nb - 1):
        if lower[i] < scan_from - 1e-9:
            continue
        if lower[i] + width > scan_to + 1e-9:
            break
        se = se_mult * sc / np.sqrt(1 + counts[i])
        if sm[i] <= sm[i + 1] + se and (lower[i] - width < scan_from - 1e-9 or sm[i] <= sm[i - 1] + se):
            return min(round(lower[i] + edge * width, 4), clamp)
    return default


def rec_valley(values, width=0.02, **kw):
    """The rule on exact values (shingleset kind: 0.001 steps, bins of 0.02)."""
    return valley_pick(values, 1000, width, **kw)


def rec_valley_mh(values, k=128, **kw):
    """The rule on min-hash estimates of k values: steps of 1/k, bins of round(0.02 k) / k."""
    return valley_pick(values, k, max(1, round(0.02 * k)) / k, **kw)


def recommenders_mh(cs, k=128, seeds=3):
    """The recommender on simulated min-hash estimates (binomial(k, J) / k of each pair's exact J; the
    same draw for the labelled and the unlabelled view), against the best threshold of those estimates."""
    variants = {
        'as shipped': {},
        'bin lower edge': {'edge': 0.0},
        'se x0.5': {'se_mult': 0.5},
        'se x1.5': {'se_mult': 1.5},
        'se x2': {'se_mult': 2.0},
        'from 0.25': {'scan_from': 0.25},
        'clamp 0.7': {'clamp': 0.7},
    }
    rows = []
    for c in cs:
        f = {n: [] for n in variants}
        best = []
        for seed in range(seeds):
            rng = np.random.default_rng(seed)
            est = rng.binomial(k, np.clip(c.allJ, 0, 1)) / k
            lab = est[c.sidx]
            curve = f1v(suffix1(lab[c.pos], None, 1000), suffix1(lab[~c.pos], None, 1000), c.npos)
            b = float(curve[100:951].max())
            best.append(b)
            for n, kw in variants.items():
                t = rec_valley_mh(est, k=k, **kw)
                f[n].append((t, float(curve[int(np.floor(t * 1000 + 1e-9))]) - b))
        rows.append((c.name, float(np.mean(best)), f))
    L = ['', f'The recommender on simulated min-hash estimates (k = {k}: binomial(k, J) / k per pair, {seeds} seeds; '
         'F1 at the pick − the best F1 of the same estimates; worst seed shown, * = within 0.005 on every seed).', '',
         '| corpus | best F1 | ' + ' | '.join(variants) + ' |', '|---|---|' + '---|' * len(variants)]
    ok = {n: 0 for n in variants}
    for name, b, f in rows:
        cells = []
        for n in variants:
            worst = min(f[n], key=lambda x: x[1])
            good = all(d >= -0.005 for _, d in f[n])
            ok[n] += good
            cells.append(f"{worst[0]:.4f}: {worst[1]:+.3f}{'*' if good else ''}")
        L.append(f'| {name} | {b:.3f} | ' + ' | '.join(cells) + ' |')
    L.append('| within 0.005 | | ' + ' | '.join(f'{ok[n]}/{len(rows)}' for n in variants) + ' |')
    return L


def recommenders(cs):
    """Valley-rule variants on the exact values of J, Jf, Jw of all pairs of all rows."""
    """F1 at the threshold each unlabelled rule picks from a corpus's all-pairs values."""
    variants = {
        'valley (as shipped)': lambda v: rec_valley(v),
        'valley, se x2': lambda v: rec_valley(v, se_mult=2.0),
        'valley, se x0': lambda v: rec_valley(v, se_mult=0.0),
        'valley, bins 0.03': lambda v: rec_valley(v, width=0.03),
        'valley, bins 0.04': lambda v: rec_valley(v, width=0.04),
        'valley, no clamp': lambda v: rec_valley(v, clamp=0.9),
        'valley, from 0.25': lambda v: rec_valley(v, scan_from=0.25),
    }
    rows = []
    for c in cs:
        f = {}
        for feat in ('J', 'Jf', 'Jw'):
            vals, lab = getattr(c, 'all' + feat), getattr(c, feat)
            tp = suffix1(lab[c.pos], None, 1000)
            fp = suffix1(lab[~c.pos], None, 1000)
            curve = f1v(tp, fp, c.npos)
            best = float(curve[50:951].max())
            for name, fn in variants.items():
                t = fn(vals)
                f[(feat, name)] = (t, float(curve[int(round(t * 1000))]), best)
        rows.append((c.name, f))
    return list(variants), rows


def main():
    """pairs or eval."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('cmd', choices=['pairs', 'eval'])
    ap.add_argument('inputs', nargs='+')
    ap.add_argument('--cache', default='/work/cache/corpora/rules')
    ap.add_argument('--md', help='write the markdown tables here (also printed)')
    ap.add_argument('--json', help='write the raw results here')
    a = ap.parse_args()
    if a.cmd == 'pairs':
        os.makedirs(a.cache, exist_ok=True)
        for p in a.inputs:
            pairs(p, a.cache)
        return
    cs = [Corpus(p) for p in a.inputs]
    log('loaded ' + ', '.join(f'{c.name} ({len(c.J)} scored pairs kept, {c.npos} positives)' for c in cs))
    fams = families()
    summary = evaluate(cs, fams)
    lines = report_windows(cs) + report(cs, fams, summary)
    vnames, rrows = recommenders(cs)
    lines += report_sim(cs)
    lines += report_rec(vnames, rrows)
    lines += recommenders_mh(cs)
    text = '\n'.join(lines) + '\n'
    print(text)
    if a.md:
        open(a.md, 'w').write(text)
    if a.json:
        json.dump({'summary': summary, 'corpora': [{'name': c.name, 'ceiling': c.ceiling, 't': c.ceiling_t,
                                                    'npos': c.npos} for c in cs]}, open(a.json, 'w'))


def report_windows(cs):
    """For each corpus and single measure: the thresholds whose F1 is within 0.01 of the ceiling."""
    feats = ('J', 'Jf', 'Jw', 'C', 'Cf')
    L = ['Thresholds t (0.005 grid) at which "measure >= t" is within 0.01 of the ceiling, per corpus; '
         'a single shipped threshold must lie in every row\'s window.', '',
         '| corpus | ceiling (t) | ' + ' | '.join(feats) + ' |', '|---|---|' + '---|' * len(feats)]
    ts = np.arange(0, STEP + 1)
    common = {f: np.ones(len(ts), bool) for f in feats}
    for c in cs:
        cells = []
        for f in feats:
            v = getattr(c, f)
            F = f1v(suffix1(v[c.pos], None, STEP), suffix1(v[~c.pos], None, STEP), c.npos)
            ok = F >= c.ceiling - TOL - 1e-12
            ok[:int(0.1 * STEP)] = False                 # below the kept pairs' range
            common[f] &= ok
            cells.append(windows(ok))
        L.append(f'| {c.name} | {c.ceiling:.3f} ({c.ceiling_t:.3f}) | ' + ' | '.join(cells) + ' |')
    L.append('| all corpora | | ' + ' | '.join(windows(common[f]) for f in feats) + ' |')
    L.append('')
    return L


def windows(ok):
    """'[a, b]' stretches of True on the 0.005 grid."""
    out, i = [], 0
    while i < len(ok):
        if ok[i]:
            j = i
            while j + 1 < len(ok) and ok[j + 1]:
                j += 1
            out.append(f'{i / STEP:.3f}–{j / STEP:.3f}' if j > i else f'{i / STEP:.3f}')
            i = j + 1
        else:
            i += 1
    return ', '.join(out) if out else 'none'


def report(cs, fams, summary):
    """The families table, the per-corpus view and the LOCO parameters."""
    K = len(cs)
    L = [f'Rules with one parameter set for all {K} corpora (chosen to maximise corpora within {TOL} of the '
         'ceiling, then the mean F1 - ceiling); leave-one-corpus-out (LOCO): parameters chosen on the other '
         f'{K - 1}, the held-out corpus scored.', '',
         '| rule | parameters (all corpora) | within 0.01 | mean F1 − ceiling | worst | LOCO within 0.01 | LOCO mean |',
         '|---|---|---|---|---|---|---|']
    for s in summary:
        L.append(f"| {s['family']} | {s['params']} | {s['met']}/{K} | {s['mean']:+.3f} | {s['worst']:+.3f} | "
                 f"{s['loco_met']}/{K} | {s['loco_mean']:+.3f} |")
    # the per-corpus view for the baseline and the best few families
    base = [s for s in summary if s['family'] == 'J >= t'][0]
    simple = [s for s in summary if s['family'] == 'Jf >= t'][0]
    ranked = sorted(summary, key=lambda s: (-s['loco_met'], -s['loco_mean']))[:4]
    show = [base, simple] + [s for s in ranked if s is not base and s is not simple][:3]
    L += ['', 'Per corpus: F1 − ceiling with the one parameter set (LOCO in brackets: parameters chosen without '
          'that corpus); **bold** = more than 0.01 below.', '']
    L.append('| corpus | ceiling (t) | J ≥ 0.3 | ' + ' | '.join(f"{s['family']} ({s['params']})" for s in show) + ' |')
    L.append('|---|---|---|' + '---|' * len(show))
    for k, c in enumerate(cs):
        j3 = c.f1(c.J >= 0.3 - 1e-9) - c.ceiling
        cells = []
        for s in show:
            d, lo = s['fixed'][k], s['loco'][k]
            cells.append(f"{fmt(d)} ({fmt(lo)})")
        L.append(f'| {c.name} | {c.ceiling:.3f} ({c.ceiling_t:.3f}) | {fmt(j3)} | ' + ' | '.join(cells) + ' |')
    L.append('| within 0.01 | | ' + f"{sum(c.f1(c.J >= 0.3 - 1e-9) - c.ceiling >= -TOL for c in cs)}/{K} | "
             + ' | '.join(f"{s['met']}/{K} ({s['loco_met']}/{K})" for s in show) + ' |')
    L += ['', 'LOCO parameters of those rules (held-out corpus: parameters chosen on the others):', '']
    for s in show:
        L.append(f"- {s['family']}: " + '; '.join(f'{c.name}: {p}' for c, p in zip(cs, s['loco_params'])))
    return L


def report_sim(cs, k=128, seeds=3):
    """Single-measure rules on exact values and on simulated min-hash estimates of them (binomial(k, v) / k
    per pair, mean over seeds): does a rule's gain survive the sketch's noise?"""
    rules = [('J', 0.3), ('Jf', 0.3), ('Jf', 0.25)]
    L = ['', f'Single thresholds, exact and on simulated k = {k} min-hash estimates of the same measure '
         f'(binomial(k, v) / k per pair, mean of {seeds} seeds): F1 − ceiling; **bold** = more than 0.01 below.', '',
         '| corpus | ' + ' | '.join(f'{f} ≥ {t}: exact / min-hash' for f, t in rules) + ' |', '|---|' + '---|' * len(rules)]
    met = {r: [0, 0] for r in rules}
    for c in cs:
        cells = []
        for f, t in rules:
            v = getattr(c, f)
            ex = float(c.f1(v >= t - 1e-9)) - c.ceiling
            sims = []
            for seed in range(seeds):
                est = np.random.default_rng(seed).binomial(k, np.clip(v, 0, 1)) / k
                sims.append(float(c.f1(est >= t - 1e-9)) - c.ceiling)
            mh = float(np.mean(sims))
            met[(f, t)][0] += ex >= -TOL
            met[(f, t)][1] += mh >= -TOL
            cells.append(f'{fmt(ex)} / {fmt(mh)}')
        L.append(f'| {c.name} | ' + ' | '.join(cells) + ' |')
    L.append('| within 0.01 | ' + ' | '.join(f'{met[r][0]}/{len(cs)} / {met[r][1]}/{len(cs)}' for r in rules) + ' |')
    return L


def report_rec(vnames, rrows):
    L = ['', 'Threshold recommenders on exact values (all pairs of all rows, unlabelled; F1 at the pick − the '
         "best F1 of that measure's threshold, 0.001 grid); * = within 0.005.", '']
    for feat in ('J', 'Jf', 'Jw'):
        L.append(f'| corpus ({feat}) | ' + ' | '.join(vnames) + ' |')
        L.append('|---|' + '---|' * len(vnames))
        ok = {n: 0 for n in vnames}
        for name, f in rrows:
            cells = []
            for n in vnames:
                t, v, best = f[(feat, n)]
                good = v >= best - 0.005
                ok[n] += good
                cells.append(f"{t:.3f}: {v - best:+.3f}{'*' if good else ''}")
            L.append(f'| {name} | ' + ' | '.join(cells) + ' |')
        L.append('| within 0.005 | ' + ' | '.join(f'{ok[n]}/{len(rrows)}' for n in vnames) + ' |')
        L.append('')
    return L


def fmt(d):
    """F1 - ceiling, bold when more than TOL below."""
    s = f'{d:+.3f}'
    return f'**{s}**' if d < -TOL - 1e-12 else s


if __name__ == '__main__':
    main()
