#!/usr/bin/python3
"""Tables across corpora from reference.py results, and the search for one default df cut-off rule.

  summary.py RESULT.ref.json [...] [--tol 0.01]

Ceiling of a corpus (per tokenizer) = best F1 of unfiltered exact word 3-shingle Jaccard over the
thresholds 0.05, 0.10, ..., 0.95.  A rule "drop shingles in more than max(C, floor(f * N)) documents"
(with what a document keeps when most of it is dropped: q = empty / fallback / half, see reference.py)
passes a corpus when its F1 at t = 0.3 is within --tol of the corpus's ceiling.
"""
import argparse
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reference import GRID, f1_at  # noqa: E402


def load(paths):
    out = []
    for p in paths:
        r = json.load(open(p))
        for tok in r['tok'].values():
            tok['hp'] = np.array(tok['hp'])
            tok['hn'] = np.array(tok['hn'])
        out.append(r)
    return out


def f1(r, tok, qi, k, t):
    d = r['tok'][tok]
    if k == len(r['cuts']):
        qi = 0
    return f1_at(d['hp'][qi, k], d['hn'][qi, k], r['positives'], t)[0]


def ceiling(r, tok, qi=0, k=None):
    k = len(r['cuts']) if k is None else k
    return max((f1(r, tok, qi, k, t), t) for t in GRID)


def kof(r, cut):
    return r['cuts'].index(cut) if cut is not None else len(r['cuts'])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('results', nargs='+')
    ap.add_argument('--tol', type=float, default=0.01)
    ap.add_argument('--abs', default='10,20,30,50,100,200,300,500,1000')
    ap.add_argument('--frac', default='0.001,0.002,0.005,0.01,0.02,0.05,0.1')
    ap.add_argument('--top', type=int, default=25)
    a = ap.parse_args()
    R = load(a.results)
    toks = ['split', 'keep']
    absv = [int(x) for x in a.abs.split(',')]
    fracs = [float(x) for x in a.frac.split(',')]

    print('## Unfiltered exact Jaccard: ceiling and F1 at 0.3\n')
    print('| corpus | rows (scored / positives) | shingles/doc median | split: ceiling (t) | split: F1@0.3 (P/R) | keep: ceiling (t) | keep: F1@0.3 | keep − split @0.3 |')
    print('|---|---|---|---|---|---|---|---|')
    for r in R:
        cells = []
        v = {}
        for tok in toks:
            if tok not in r['tok']:
                cells += ['–', '–']
                continue
            c, t = ceiling(r, tok)
            d = r['tok'][tok]
            k = len(r['cuts'])
            f3, p3, r3 = f1_at(d['hp'][0, k], d['hn'][0, k], r['positives'], 0.3)
            v[tok] = f3
            cells += [f'{c:.4f} ({t:.2f})', f'{f3:.4f} ({p3:.3f}/{r3:.3f})' if tok == 'split' else f'{f3:.4f}']
        diff = f"{v['keep'] - v['split']:+.4f}" if len(v) == 2 else '–'
        st = r['tok']['split']['stats']
        print(f"| {r['corpus']} | {r['rows']} ({r['scored']} / {r['positives']}) | {st['shingles_median']:.0f} | "
              + ' | '.join(cells) + f' | {diff} |')

    for tok in toks:
        for qn in ('fallback', 'empty', 'half'):
            print(f'\n## F1 at t = 0.3 by cut-off (tok = {tok}, q = {qn}); in brackets: minus the ceiling\n')
            print('| corpus | none | ' + ' | '.join(f'>{c}' for c in absv) + ' | ' + ' | '.join(f'>{f * 100:g}%' for f in fracs) + ' |')
            print('|---|---|' + '---|' * (len(absv) + len(fracs)))
            for r in R:
                if tok not in r['tok']:
                    continue
                qi = r['qs'].index(qn)
                ce = ceiling(r, tok)[0]
                cells = [f'{f1(r, tok, 0, len(r["cuts"]), 0.3):.3f} ({f1(r, tok, 0, len(r["cuts"]), 0.3) - ce:+.3f})']
                for c in absv + [int(f * r['rows']) for f in fracs]:
                    if c not in r['cuts']:
                        cells.append('–')
                        continue
                    v = f1(r, tok, qi, kof(r, c), 0.3)
                    cells.append(f'{v:.3f} ({v - ce:+.3f})')
                print(f"| {r['corpus']} (N={r['rows']}) | " + ' | '.join(cells) + ' |')
            if qn != 'fallback':
                break

    keys = list(R[0]['tok']['split'].get('adapt', {}).keys())
    if keys:
        for tok in toks:
            print(f'\n## Adaptive rules (tok = {tok}): F1 at t = 0.3 (minus the unfiltered ceiling) / ceiling (t)\n')
            print('| corpus | ' + ' | '.join(f'>{k.split(",")[0]}, keep ≥ {k.split(",")[1]}' for k in keys) + ' |')
            print('|---|' + '---|' * len(keys))
            for r in R:
                if tok not in r['tok']:
                    continue
                ce = ceiling(r, tok)[0]
                cells = []
                for k in keys:
                    if k not in r['tok'][tok].get('adapt', {}):
                        cells.append('–')
                        continue
                    ad = r['tok'][tok]['adapt'][k]
                    hp, hn = np.array(ad['hp']), np.array(ad['hn'])
                    v = f1_at(hp, hn, r['positives'], 0.3)[0]
                    cb, tb = max((f1_at(hp, hn, r['positives'], t)[0], t) for t in GRID)
                    cells.append(f'{v:.3f} ({v - ce:+.3f}) / {cb:.3f} ({tb:.2f})')
                print(f"| {r['corpus']} | " + ' | '.join(cells) + ' |')

    print(f'\n## Ceiling (best F1 over thresholds) by cut-off (tok = split, q = fallback)\n')
    print('| corpus | none | ' + ' | '.join(f'>{c}' for c in absv) + ' | ' + ' | '.join(f'>{f * 100:g}%' for f in fracs) + ' |')
    print('|---|---|' + '---|' * (len(absv) + len(fracs)))
    for r in R:
        qi = r['qs'].index('fallback')
        cells = ['%.3f (%.2f)' % ceiling(r, 'split')]
        for c in absv + [int(f * r['rows']) for f in fracs]:
            if c not in r['cuts']:
                cells.append('–')
                continue
            cells.append('%.3f (%.2f)' % ceiling(r, 'split', qi, kof(r, c)))
        print(f"| {r['corpus']} | " + ' | '.join(cells) + ' |')

    print(f'\n## Rules "drop df > max(C, f·N)": corpora whose F1 at 0.3 is within {a.tol} of the ceiling\n')
    rows = []
    for tok in toks:
        for qn in ('empty', 'fallback', 'half'):
            for C in [None] + absv:
                for f in [None] + fracs:
                    gaps, fails, delta = [], [], []
                    for r in R:
                        if tok not in r['tok']:
                            continue
                        qi = r['qs'].index(qn)
                        if C is None and f is None:
                            cut = None
                        else:
                            cut = max(C or 0, int((f or 0) * r['rows']))
                        if cut is not None and cut not in r['cuts']:
                            gaps = None
                            break
                        ce = ceiling(r, tok)[0]
                        v = f1(r, tok, qi, kof(r, cut), 0.3)
                        base = f1(r, tok, 0, len(r['cuts']), 0.3)
                        gaps.append(v - ce)
                        delta.append(v - base)
                        if v < ce - a.tol:
                            fails.append(f"{r['corpus']} {v - ce:+.3f}")
                    if gaps is None:
                        continue
                    name = 'none' if C is None and f is None else (
                        f'{C}' if f is None else f'{f * 100:g}% N' if C is None else f'max({C}, {f * 100:g}% N)')
                    rows.append((len(R) - len(fails), min(gaps), sum(delta) / len(delta), tok, qn, name, fails, min(delta)))
    for tok in toks:
        keys = R[0]['tok'][tok].get('adapt', {}).keys() if tok in R[0]['tok'] else []
        for key in keys:
            gaps, fails, delta = [], [], []
            for r in R:
                d = r['tok'][tok]
                if key not in d.get('adapt', {}):
                    gaps = None
                    break
                ad = d['adapt'][key]
                v = f1_at(np.array(ad['hp']), np.array(ad['hn']), r['positives'], 0.3)[0]
                ce = ceiling(r, tok)[0]
                base = f1(r, tok, 0, len(r['cuts']), 0.3)
                gaps.append(v - ce)
                delta.append(v - base)
                if v < ce - a.tol:
                    fails.append(f"{r['corpus']} {v - ce:+.3f}")
            if gaps is None:
                continue
            C, rho = key.split(',')
            rows.append((len(R) - len(fails), min(gaps), sum(delta) / len(delta), tok, 'adaptive',
                         f'{C}, keep >= {rho} of each doc', fails, min(delta)))
    rows = [x if len(x) == 8 else x + (None,) for x in rows]
    rows.sort(key=lambda x: (-x[0], -x[1], -x[2]))
    print('| pass | worst (F1@0.3 − ceiling) | mean change vs unfiltered @0.3 | worst change vs unfiltered @0.3 | tok | q | rule | failing corpora |')
    print('|---|---|---|---|---|---|---|---|')
    seen = 0
    for n, worst, mean, tok, qn, name, fails, wd in rows:
        if name == 'none' or seen < a.top:
            print(f'| {n}/{len(R)} | {worst:+.4f} | {mean:+.4f} | {wd:+.4f} | {tok} | {qn} | {name} | {", ".join(fails)} |')
            seen += 1
    print('\n## The same rules, ranked by mean change at 0.3 among rules that cost no corpus more than 0.01\n')
    print('| mean change @0.3 | worst change | pass | tok | q | rule |')
    print('|---|---|---|---|---|---|')
    safe = sorted((x for x in rows if x[7] >= -0.01), key=lambda x: -x[2])
    for n, worst, mean, tok, qn, name, fails, wd in safe[:a.top]:
        print(f'| {mean:+.4f} | {wd:+.4f} | {n}/{len(R)} | {tok} | {qn} | {name} |')


if __name__ == '__main__':
    main()
