#!/usr/bin/python3
"""Threshold recommendation from unlabelled resemblance values, tested against the labels.

  thresholds.py RESULT.ref.json [...] [--tok split] [--cut none|<df>|rule:C,f] [--q fallback] [--sample 0]

Reads reference.py's saved results (the all-pairs J histogram and every document's nearest-neighbour
J, both over all rows and without labels) and runs each recommender on them; the labels (positive and
negative pair histograms) are used only to score the recommended threshold: F1 at it, against the best
F1 over thresholds 0.050..0.950 (0.001 grid).  A recommender is "good" on a corpus when its F1 is
within 0.005 of the best.

Recommenders (all see only unlabelled values):
  fixed-0.3        the current default
  pairs-first-min  all pairs with J >= 0.05: histogram (0.02 bins) of log(1 + count), smoothed (Gaussian,
                   sigma one bin): the first local minimum at or above 0.2 (the end of the background's
                   decline); 0.3 if there is none below 0.9.  pairs-first-min-0.1: the same from 0.1
  pairs-valley     all pairs with J >= 0.05: histogram (0.02 bins) of log(1 + count), smoothed, minimum
                   in [0.1, 0.9]
  pairs-otsu       Otsu's threshold on the J values of all pairs with J >= 0.05
  nn-valley        each document's nearest-neighbour J (max J to any other row): minimum of the smoothed
                   histogram (0.02 bins, of counts) in [0.1, 0.9], ignoring documents with no neighbour
  nn-otsu          Otsu on the nearest-neighbour values >= 0.05
  nn-ki            Kittler-Illingworth minimum-error threshold on the nearest-neighbour values >= 0.05
  nn-gap           the middle of the widest empty (or emptiest) stretch of nearest-neighbour values
  pairs-bgfit      fit the background decay of the all-pairs histogram (log count linear in J over
                   [0.05, 0.15]), take observed - background as duplicates, maximise the estimated F1
With --sample n, nearest-neighbour recommenders see only n random documents' values (10 seeds).
"""
import argparse
import json
import math
import os
import re
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

LO, HI = 50, 950          # thresholds considered, in 0.001 units


def curve(hp, hn, npos):
    tp = np.cumsum(hp[::-1])[::-1].astype(float)
    fp = np.cumsum(hn[::-1])[::-1].astype(float)
    p = np.divide(tp, tp + fp, out=np.ones_like(tp), where=(tp + fp) > 0)
    r = tp / max(1, npos)
    return np.divide(2 * p * r, p + r, out=np.zeros_like(tp), where=(p + r) > 0)


def smooth(y, sigma_bins):
    if sigma_bins <= 0:
        return y
    r = int(3 * sigma_bins) + 1
    k = np.exp(-0.5 * (np.arange(-r, r + 1) / sigma_bins) ** 2)
    k /= k.sum()
    yp = np.concatenate([np.full(r, y[0]), y, np.full(r, y[-1])])
    return np.convolve(yp, k, mode='valid')


def rebin(h, width):
    """0.001-bin histogram over 0..1000 -> bins of `width` thousandths; returns (counts, left edges)."""
    n = (len(h) + width - 1) // width
    hh = np.zeros(n * width)
    hh[:len(h)] = h
    return hh.reshape(n, width).sum(axis=1), np.arange(n) * width


def valley(h, width=20, sigma=1.0, log=True, lo=100, hi=900):
    c, edges = rebin(h, width)
    y = np.log1p(c) if log else c.astype(float)
    y = smooth(y, sigma)
    idx = [i for i in range(len(c)) if lo <= edges[i] and edges[i] + width <= hi]
    if not idx:
        return 300
    m = min(y[i] for i in idx)
    # centre of the lowest stretch (ties and near-ties within 2 %)
    tol = 0.02 * (max(y) - m + 1e-12)
    near = [i for i in idx if y[i] <= m + tol]
    i = near[len(near) // 2]
    return int(edges[i] + width // 2)


def first_min(h, width=20, sigma=1.0, lo=100, hi=900, log=True, default=300):
    """First local minimum (scanning up from lo) of the smoothed histogram (log(1 + count) by default)."""
    c, e = rebin(h, width)
    y = smooth(np.log1p(c) if log else c.astype(float), sigma)
    idx = [i for i in range(len(c)) if lo <= e[i] and e[i] + width <= hi]
    for j, i in enumerate(idx[:-1]):
        if y[i] <= y[idx[j + 1]] and (j == 0 or y[i] <= y[idx[j - 1]]):
            return int(e[i] + width // 2)
    return default


def otsu(h, lo=50):
    """Otsu on a 0.001-bin histogram restricted to bins >= lo; returns the threshold bin."""
    x = np.arange(len(h), dtype=float)
    w = h.astype(float).copy()
    w[:lo] = 0
    W = w.sum()
    if W == 0:
        return 300
    w0 = np.cumsum(w)
    m0 = np.cumsum(w * x)
    mt = m0[-1]
    with np.errstate(divide='ignore', invalid='ignore'):
        between = (mt * w0 / W - m0) ** 2 / (w0 * (W - w0))
    between[~np.isfinite(between)] = -1
    between[:lo] = -1
    return int(np.argmax(between)) + 1          # class 1 = bins > argmax


def kittler(h, lo=50, width=10):
    """Kittler-Illingworth minimum error thresholding (two Gaussians) on bins >= lo."""
    c, edges = rebin(h, width)
    x = edges + width / 2
    c = c.astype(float)
    c[edges < lo] = 0
    best, bt = math.inf, 300
    for t in range(1, len(c)):
        a, b = c[:t], c[t:]
        pa, pb = a.sum(), b.sum()
        if pa < 2 or pb < 2:
            continue
        ma, mb = (a * x[:t]).sum() / pa, (b * x[t:]).sum() / pb
        va = (a * (x[:t] - ma) ** 2).sum() / pa
        vb = (b * (x[t:] - mb) ** 2).sum() / pb
        if va <= 0 or vb <= 0:
            continue
        P = pa + pb
        J = 1 + 2 * (pa / P * math.log(math.sqrt(va)) + pb / P * math.log(math.sqrt(vb))) \
            - 2 * (pa / P * math.log(pa / P) + pb / P * math.log(pb / P))
        if J < best and LO <= edges[t] <= HI:
            best, bt = J, int(edges[t])
    return bt


def gap(values, lo=0.1, hi=0.9, width=0.05):
    """Middle of the window of given width in [lo, hi] holding the fewest values."""
    v = np.sort(values)
    best, bt = None, 0.3
    for s in np.arange(lo, hi - width + 1e-9, 0.005):
        n = np.searchsorted(v, s + width) - np.searchsorted(v, s)
        if best is None or n < best:
            best, bt = n, s + width / 2
    return int(round(bt * 1000))


def bgfit(ha, fit_lo=50, fit_hi=150, width=10):
    """Background = exponential decay fitted to the all-pairs histogram on [fit_lo, fit_hi);
    duplicates = observed - background; threshold maximising the estimated F1."""
    c, edges = rebin(ha, width)
    c = c.astype(float)
    sel = (edges >= fit_lo) & (edges < fit_hi) & (c > 0)
    if sel.sum() < 3:
        return 300
    slope, icpt = np.polyfit(edges[sel], np.log(c[sel]), 1)
    bg = np.exp(icpt + slope * edges)
    dup = np.clip(c - bg, 0, None)
    dup[edges < fit_lo] = 0
    tot = dup[edges >= fit_lo].sum()
    best, bt = -1, 300
    for i, e in enumerate(edges):
        if e < LO or e > HI:
            continue
        tp = dup[i:].sum()
        fp = np.minimum(bg[i:], c[i:]).sum()
        p = tp / (tp + fp) if tp + fp else 0
        r = tp / tot if tot else 0
        f = 2 * p * r / (p + r) if p + r else 0
        if f > best:
            best, bt = f, int(e)
    return bt


def nn_hist(nnv):
    v = nnv[nnv > 0]
    return np.bincount(np.minimum((v * 1000 + 1e-6).astype(int), 1000), minlength=1001)


RECS = {
    'fixed-0.3': lambda ha, nnv: 300,
    'pairs-first-min': lambda ha, nnv: first_min(ha, lo=200),
    'pairs-first-min-0.1': lambda ha, nnv: first_min(ha, lo=100),
    'pairs-valley': lambda ha, nnv: valley(ha),
    'pairs-otsu': lambda ha, nnv: otsu(ha),
    'pairs-bgfit': lambda ha, nnv: bgfit(ha),
    'nn-valley': lambda ha, nnv: valley(nn_hist(nnv), log=False),
    'nn-otsu': lambda ha, nnv: otsu(nn_hist(nnv)),
    'nn-ki': lambda ha, nnv: kittler(nn_hist(nnv)),
    'nn-gap': lambda ha, nnv: gap(nnv[nnv >= 0.05]),
}


def select(res, tok, cut, q):
    """Index (q index, cut index) for a variant; cut: 'none', an integer df, or 'rule:C,f'."""
    cuts = res['cuts']
    qi = res['qs'].index(q)
    if cut == 'none':
        return (0 if True else qi), len(cuts)
    if cut.startswith('rule:'):
        C, f = cut[5:].split(',')
        v = max(int(C), int(float(f) * res['rows']))
    else:
        v = int(cut)
    if v not in cuts:                 # nearest computed cut-off not above v
        below = [c for c in cuts if c <= v]
        v = below[-1] if below else cuts[0]
    return qi, cuts.index(v)


def variant(res, nnz, tok, cut, q):
    """(hp, hn, ha, nn) of a variant: cut = 'none', a df cut-off, 'rule:C,f', or 'adapt:C,rho'."""
    d = res['tok'][tok]
    if cut.startswith('adapt:'):
        key = cut[6:]
        ad = d['adapt'][key]
        return np.array(ad['hp']), np.array(ad['hn']), np.array(ad['ha']), nnz[f'{tok}:adapt:{key}']
    qi, k = select(res, tok, cut, q)
    if k == len(res['cuts']):
        qi = 0
    hp, hn, ha = (np.array(d[x][qi][k]) for x in ('hp', 'hn', 'ha'))
    return hp, hn, ha, nnz[tok][qi][k]


def evaluate(res, nnz, tok, cut, q, sample, seeds=10):
    hp, hn, ha, nnv = variant(res, nnz, tok, cut, q)
    f = curve(hp, hn, res['positives'])
    bi = int(np.argmax(f[LO:HI + 1])) + LO
    out = {'best': (f[bi], bi)}
    rng = np.random.default_rng(1)
    for name, fn in RECS.items():
        if sample and name.startswith('nn-'):
            ts = [fn(ha, nnv[rng.choice(len(nnv), min(sample, len(nnv)), replace=False)]) for _ in range(seeds)]
            fs = [f[t] for t in ts]
            out[name] = (float(np.mean(fs)), int(np.median(ts)), float(min(fs)))
        else:
            t = fn(ha, nnv)
            out[name] = (f[t], t, f[t])
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('results', nargs='+')
    ap.add_argument('--tok', default='split')
    ap.add_argument('--cut', default='none')
    ap.add_argument('--q', default='fallback')
    ap.add_argument('--sample', type=int, default=0)
    a = ap.parse_args()
    names = list(RECS)
    print(f'variant: tok={a.tok} cut={a.cut} q={a.q} sample={a.sample or "all"}; '
          'cells: F1 at the chosen threshold (threshold); * = within 0.005 of the best')
    print('| corpus | best F1 (t) | ' + ' | '.join(names) + ' |')
    print('|---|---|' + '---|' * len(names))
    good = {n: 0 for n in names}
    loss = {n: [] for n in names}
    for p in a.results:
        res = json.load(open(p))
        nnz = np.load(re.sub(r'\.json$', '', p) + '.nn.npz')
        if a.tok not in res['tok']:
            continue
        o = evaluate(res, nnz, a.tok, a.cut, a.q, a.sample)
        fb, tb = o['best']
        cells = []
        for n in names:
            fv, t, fmin = o[n]
            ok = fmin >= fb - 0.005
            good[n] += ok
            loss[n].append(fb - fv)
            cells.append(f'{fv:.3f} ({t / 1000:.3f}){"*" if ok else ""}')
        print(f"| {res['corpus']} | {fb:.3f} ({tb / 1000:.3f}) | " + ' | '.join(cells) + ' |')
    print('| within 0.005 | | ' + ' | '.join(f'{good[n]}/{len(a.results)}' for n in names) + ' |')
    print('| mean / worst loss | | ' + ' | '.join(f'{np.mean(loss[n]):.3f} / {max(loss[n]):.3f}' for n in names) + ' |')


if __name__ == '__main__':
    main()
