#!/usr/bin/python3
"""Compact table: a few candidate df cut-off rules on every corpus (F1 at t = 0.3, and the best F1
over thresholds with its t), from reference.py results.

  rules.py RESULT.ref.json [...] [--tok split] [--rules 'none;20;30;max(30,0.005);100;0.02;adapt:20,0.3;half:20']

Rule syntax: none | C (drop df > C, fallback) | max(C,f) (drop df > max(C, floor(f*N)), fallback) |
f<1 (drop df > floor(f*N)) | half:C (q = half) | empty:C (q = empty) | adapt:C,rho (keep >= rho).
A cell is '–' when the result file lacks that cut-off.
"""
import argparse
import json
import os
import re
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reference import GRID, f1_at  # noqa: E402


def hist(r, tok, rule):
    d = r['tok'][tok]
    K = len(r['cuts'])
    if rule == 'none':
        return d['hp'][0][K], d['hn'][0][K]
    if rule.startswith('adapt:'):
        a = d.get('adapt', {}).get(rule[6:])
        return (a['hp'], a['hn']) if a else None
    q = 'fallback'
    m = re.match(r'(half|empty|fallback):(.*)', rule)
    if m:
        q, rule = m.group(1), m.group(2)
    m = re.match(r'max\((\d+),([\d.]+)\)', rule)
    if m:
        cut = max(int(m.group(1)), int(float(m.group(2)) * r['rows']))
    elif '.' in rule:
        cut = int(float(rule) * r['rows'])
    else:
        cut = int(rule)
    if cut not in r['cuts']:
        return None
    qi = r['qs'].index(q)
    k = r['cuts'].index(cut)
    return d['hp'][qi][k], d['hn'][qi][k]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('results', nargs='+')
    ap.add_argument('--tok', default='split')
    ap.add_argument('--rules', default='none;20;30;max(30,0.005);100;0.02;half:20;adapt:20,0.3;adapt:20,0.5')
    a = ap.parse_args()
    rules = a.rules.split(';')
    print(f'tok = {a.tok}; cells: F1 at t = 0.3 / best F1 (t)')
    print('| corpus | ' + ' | '.join(rules) + ' |')
    print('|---|' + '---|' * len(rules))
    for p in a.results:
        r = json.load(open(p))
        if a.tok not in r['tok']:
            continue
        cells = []
        for rule in rules:
            h = hist(r, a.tok, rule)
            if h is None:
                cells.append('–')
                continue
            hp, hn = np.array(h[0]), np.array(h[1])
            f3 = f1_at(hp, hn, r['positives'], 0.3)[0]
            fb, tb = max((f1_at(hp, hn, r['positives'], t)[0], t) for t in GRID)
            cells.append(f'{f3:.3f} / {fb:.3f} ({tb:.2f})')
        print(f"| {r['corpus']} | " + ' | '.join(cells) + ' |')


if __name__ == '__main__':
    main()
