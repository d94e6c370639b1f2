#!/usr/bin/env python3
"""Tables and gnuplot plots of the detection-quality harness (called by test/bench/quality/run.sh).

  report.py --work DIR --out PLOTDIR --report REPORT.md --main DATASET [--seconds N] [--command TEXT]

Reads DIR/{methods,results,results_exact,deb_full}.csv and DIR/datasets.txt, writes PLOTDIR/*.png
(gnuplot scripts test/bench/quality/*.gp), prints every table, and replaces the blocks between
`<!-- generated:NAME -->` and `<!-- /generated:NAME -->` in REPORT (creates REPORT with all the
blocks if it does not exist).  Python 3 standard library only.
"""
import argparse, csv, os, re, shutil, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_SIMHASH = 'simhash word 2 tf (default)'
DEFAULT_MINHASH = 'minhash oph k=128 (default)'
EXACT = 'exact jaccard word 3'


def read(path):
    if not os.path.exists(path):
        return []
    with open(path, newline='') as f:
        return list(csv.DictReader(f))


def num(x):
    return None if x in (None, '') else float(x)


def f3(x):
    return '–' if x is None else f'{x:.3f}'


def fparam(m, p):
    if m['kind'] == 'dist':
        return f'k = {int(p)}'
    if m['family'] in ('I-Match',) or m['method'] == 'super-shingle keys r=2':
        return '–'
    if m['family'] == 'super-shingles':
        return f'≥ {int(p)} of 6'
    return f'≥ {p:g}'


def secs(m):
    b, p = num(m['build_ms']) or 0, num(m['pairs_ms']) or 0
    return f'{b / 1000:.1f} + {p / 1000:.1f}'


def table(head, rows):
    out = ['| ' + ' | '.join(head) + ' |', '|' + '|'.join('---' for _ in head) + '|']
    out += ['| ' + ' | '.join(str(c) for c in r) + ' |' for r in rows]
    return '\n'.join(out)


class Data:
    def __init__(self, work):
        self.methods = {(r['ds'], r['method']): r for r in read(f'{work}/methods.csv')}
        self.res = {}
        for r in read(f'{work}/results.csv'):
            for k in ('param', 'precision', 'recall', 'f1', 'ari', 'excerpt_recall', 'contains_recall'):
                r[k] = num(r[k])
            for k in ('pairs', 'tp', 'fp', 'npos'):
                r[k] = int(r[k])
            self.res.setdefault((r['ds'], r['method']), []).append(r)
        for v in self.res.values():
            v.sort(key=lambda r: r['param'])
        self.exact = {}
        for r in read(f'{work}/results_exact.csv'):
            for k in ('param', 'truth_t', 'precision', 'recall', 'f1'):
                r[k] = num(r[k])
            self.exact.setdefault((r['ds'], r['method'], r['truth_t']), []).append(r)
        self.deb = read(f'{work}/deb_full.csv')
        self.datasets = {}
        if os.path.exists(f'{work}/datasets.txt'):
            for line in open(f'{work}/datasets.txt'):
                ds, scored, npos, total = line.strip().split('|')
                self.datasets[ds] = (int(scored), int(npos), int(total))

    def best(self, ds, method):
        rows = self.res.get((ds, method), [])
        rows = [r for r in rows if r['f1'] is not None]
        return max(rows, key=lambda r: (r['f1'], -r['param'] if self.methods[(ds, method)]['kind'] == 'dist' else r['param'])) if rows else None

    def at(self, ds, method, p):
        for r in self.res.get((ds, method), []):
            if abs(r['param'] - p) < 1e-9:
                return r
        return None

    def ds_methods(self, ds):
        return [m for (d, _), m in self.methods.items() if d == ds]


def block_best(d, ds):
    rows = []
    for m in sorted(d.ds_methods(ds), key=lambda m: (m['family'], m['method'])):
        r = d.best(ds, m['method'])
        if r is None:
            continue
        rows.append((m['family'], m['method'], m['features'], fparam(m, r['param']), f3(r['precision']),
                     f3(r['recall']), f'**{r["f1"]:.3f}**', f3(r['ari']), r['pairs'], secs(m)))
    return table(['family', 'method', 'features', 'best parameter', 'P', 'R', 'F1', 'ARI', 'pairs',
                  'time s (build + pairs)'], rows)


def block_defaults(d, ds):
    pts = [(DEFAULT_SIMHASH, k) for k in (3, 6, 10, 12, 13, 14, 16)] + \
          [('simhash char 7 tf', k) for k in (12, 13)] + \
          [(DEFAULT_MINHASH, t) for t in (0.3, 0.4, 0.5, 0.7, 0.9)] + \
          [(EXACT, t) for t in (0.3, 0.5)] + [('super-shingles 6x14', 2), ('imatch single', 1)]
    rows = []
    for meth, p in pts:
        m, r = d.methods.get((ds, meth)), d.at(ds, meth, p)
        if m and r:
            rows.append((meth, fparam(m, p), f3(r['precision']), f3(r['recall']), f3(r['f1']), f3(r['ari']),
                         r['tp'], r['fp'], r['pairs']))
    return table(['method', 'parameter', 'P', 'R', 'F1', 'ARI', 'true pairs', 'false pairs', 'pairs (all docs)'], rows)


def block_simhash(d, ds):
    ms = sorted((m for m in d.ds_methods(ds) if m['family'] == 'simhash'), key=lambda m: m['method'])
    ks = list(range(0, 21))
    rows = []
    for m in ms:
        line = [m['method'].replace('simhash ', '')]
        best = d.best(ds, m['method'])
        for k in ks:
            r = d.at(ds, m['method'], k)
            v = f'{r["f1"]:.3f}' if r else '–'
            line.append(f'**{v}**' if r is best else v)
        rows.append(line)
    return table(['F1 at k ='] + [str(k) for k in ks], rows)


def block_simhash_pr(d, ds):
    rows = []
    for k in range(0, 21):
        line = [k]
        for meth in (DEFAULT_SIMHASH, 'simhash char 7 tf', 'simhash word 3 set'):
            r = d.at(ds, meth, k)
            line += [f3(r['precision']), f3(r['recall']), f3(r['ari'])] if r else ['–'] * 3
        rows.append(line)
    return table(['k', 'word 2 tf P', 'R', 'ARI', 'char 7 tf P', 'R', 'ARI', 'word 3 set P', 'R', 'ARI'], rows)


def block_thresholds(d, ds):
    ms = [m for m in d.ds_methods(ds) if m['family'] in ('minhash', 'exact', 'hybrid')]
    ms.sort(key=lambda m: (m['family'] != 'exact', m['family'], m['method']))
    ts = sorted({r['param'] for m in ms for r in d.res.get((ds, m['method']), [])})
    rows = []
    for m in ms:
        best = d.best(ds, m['method'])
        line = [m['method']]
        for t in ts:
            r = d.at(ds, m['method'], t)
            v = f'{r["f1"]:.3f}' if r else '–'
            line.append(f'**{v}**' if r is best else v)
        rows.append(line)
    return table(['F1 at threshold'] + [f'{t:g}' for t in ts], rows)


def block_containment(d, ds):
    rows = []
    for m in sorted(d.ds_methods(ds), key=lambda m: (m['family'], m['method'])):
        pts = []
        if m['kind'] == 'dist':
            pts = [r for r in d.res.get((ds, m['method']), []) if r['param'] in (12, 13)] if m['method'] in (
                DEFAULT_SIMHASH, 'simhash char 7 tf') else []
        elif m['family'] in ('minhash', 'exact', 'hybrid'):
            want = (0.3, 0.5, 0.8) if m['method'] in (DEFAULT_MINHASH, EXACT, 'exact containment word 3') else ()
            pts = [r for r in d.res.get((ds, m['method']), []) if r['param'] in want]
        else:
            pts = [r for r in d.res.get((ds, m['method']), []) if r['param'] in (1, 2)]
        for r in pts:
            rows.append((m['method'], fparam(m, r['param']), f3(r['excerpt_recall']), f3(r['contains_recall'])))
    return table(['method', 'parameter', 'excerpt → original found', 'contains → original found'], rows)


def block_exact_truth(d, ds):
    rows = []
    truths = sorted({k[2] for k in d.exact if k[0] == ds})
    for t in truths:
        ntruth = None
        for m in sorted(d.ds_methods(ds), key=lambda m: (m['family'], m['method'])):
            if m['family'] == 'exact':
                continue
            rs = [r for r in d.exact.get((ds, m['method'], t), []) if r['f1'] is not None]
            if not rs:
                continue
            ntruth = rs[0]['ntruth']
            b = max(rs, key=lambda r: r['f1'])
            same = [r for r in rs if m['family'] in ('minhash', 'hybrid') and abs(r['param'] - t) < 1e-9]
            s = same[0] if same else None
            rows.append((f'{t:g} ({ntruth})', m['method'], fparam(m, b['param']), f3(b['precision']),
                         f3(b['recall']), f3(b['f1']),
                         f'{f3(s["precision"])} / {f3(s["recall"])} / {f3(s["f1"])}' if s else ''))
    return table(['truth: J ≥ t (pairs)', 'method', 'best parameter', 'P', 'R', 'F1',
                  'at threshold = t: P / R / F1'], rows)


def block_langs(d, main):
    langs = sorted(ds for ds in d.datasets if ds.startswith('lang-'))
    ref = 'lang-en' if 'lang-en' in langs else None
    pts = [(DEFAULT_SIMHASH, 12), (DEFAULT_SIMHASH, 13), (DEFAULT_SIMHASH, None), ('simhash char 7 tf', None),
           ('simhash char 5 tf', None), (DEFAULT_MINHASH, 0.3), (DEFAULT_MINHASH, 0.5), (DEFAULT_MINHASH, None),
           (EXACT, 0.3), (EXACT, None)]
    head = ['method', 'parameter', main] + [l[5:] for l in langs]
    rows = []
    for meth, p in pts:
        if (main, meth) not in d.methods:
            continue
        line = [meth, 'best' if p is None else fparam(d.methods[(main, meth)], p)]
        refv = None
        if ref:
            r = d.best(ref, meth) if p is None else d.at(ref, meth, p)
            refv = r['f1'] if r else None
        for ds in [main] + langs:
            r = d.best(ds, meth) if p is None else d.at(ds, meth, p)
            if not r:
                line.append('–')
                continue
            cell = f'{r["f1"]:.3f}'
            if p is None:
                cell += f' ({fparam(d.methods[(ds, meth)], r["param"])})'
            if refv is not None and ds.startswith('lang-') and ds != ref and refv - r['f1'] > 0.03:
                cell += ' ✗'
            line.append(cell)
        rows.append(line)
    sizes = ['documents (scored / positive pairs)', ''] + [
        f'{d.datasets[ds][2]} ({d.datasets[ds][0]} / {d.datasets[ds][1]})' for ds in [main] + langs]
    return table(head, [sizes] + rows)


def block_debian(d):
    rows = [(r['method'], r['param'], r['pairs'], r['clusters'] or '', r['clustered_docs'] or '',
             f'{float(r["build_ms"]) / 1000:.1f} + {float(r["pairs_ms"]) / 1000:.1f}', r['note'] or '')
            for r in d.deb]
    return table(['method', 'parameter', 'pairs', 'clusters (≥ 2 docs)', 'docs in them', 'time s (build + pairs)',
                  'note'], rows)


def block_times(d, ds):
    rows = [(m['method'], f'{(num(m["build_ms"]) or 0) / 1000:.2f}', f'{(num(m["pairs_ms"]) or 0) / 1000:.2f}',
             m['note'] or '') for m in sorted(d.ds_methods(ds), key=lambda m: (m['family'], m['method']))]
    return table(['method', 'build s', 'pairs s', 'note'], rows)


def plots(d, ds, out):
    work = os.path.join(out, '.plotdata')
    os.makedirs(work, exist_ok=True)

    def dump(name, meth, cols):
        with open(f'{work}/{name}.dat', 'w') as f:
            for r in d.res.get((ds, meth), []):
                f.write(' '.join(f'{r[c]:.6f}' if r[c] is not None else 'NaN' for c in ['param'] + cols) + '\n')
    names = {}
    for m in d.ds_methods(ds):
        key = re.sub(r'[^a-z0-9]+', '_', m['method'].lower()).strip('_')
        names[m['method']] = key
        dump(key, m['method'], ['precision', 'recall', 'f1', 'ari'])
    made = []
    for gp in sorted(f for f in os.listdir(HERE) if f.endswith('.gp')):
        png = os.path.join(out, gp[:-3] + '.png')
        r = subprocess.run(['gnuplot', '-e', f"data='{work}/'; out='{png}'", os.path.join(HERE, gp)],
                           capture_output=True, text=True)
        if r.returncode:
            print(f'gnuplot {gp}: {r.stderr}', file=sys.stderr)
        else:
            made.append(png)
    for f in os.listdir(work):
        os.remove(os.path.join(work, f))
    os.rmdir(work)
    return made


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--work', required=True)
    ap.add_argument('--out', required=True)
    ap.add_argument('--report', required=True)
    ap.add_argument('--main', required=True)
    ap.add_argument('--seconds', type=int, default=0)
    ap.add_argument('--command', default='')
    a = ap.parse_args()
    keep = os.environ.get('QUALITY_KEEP', '/tmp/nddup-quality-last')
    if keep and os.path.abspath(keep) != os.path.abspath(a.work):   # for re-running the report alone
        os.makedirs(keep, exist_ok=True)
        for f in os.listdir(a.work):
            if f.endswith('.csv') or f == 'datasets.txt':
                shutil.copy(os.path.join(a.work, f), keep)
    d = Data(a.work)
    ds = a.main
    sc, npos, total = d.datasets.get(ds, (0, 0, 0))
    blocks = {
        'run': (f'Command: `{a.command}`. ' if a.command else '') + f'Dataset `{ds}`: {total} documents, {sc} scored (original/near/templated), {npos} positive '
               f'pairs. Whole run (build, instance, every dataset, plots): {a.seconds} s.',
        'best': block_best(d, ds),
        'defaults': block_defaults(d, ds),
        'simhash': block_simhash(d, ds),
        'simhash-pr': block_simhash_pr(d, ds),
        'thresholds': block_thresholds(d, ds),
        'containment': block_containment(d, ds),
        'exact-truth': block_exact_truth(d, ds),
        'languages': block_langs(d, ds),
        'debian-sample': block_exact_truth(d, 'debian-sample') if any(k[0] == 'debian-sample' for k in d.exact) else '(not run)',
        'debian': block_debian(d) if d.deb else '(not run)',
        'times': block_times(d, ds),
    }
    made = plots(d, ds, a.out)
    for name, text in blocks.items():
        print(f'\n### {name}\n\n{text}')
    print('\nplots: ' + ', '.join(made))
    if os.path.exists(a.report):
        doc = open(a.report, encoding='utf-8').read()
        for name, text in blocks.items():
            pat = re.compile(rf'(<!-- generated:{re.escape(name)} -->\n).*?(<!-- /generated:{re.escape(name)} -->)', re.S)
            if not pat.search(doc):
                print(f'report: no block {name}', file=sys.stderr)
                continue
            doc = pat.sub(lambda m: m.group(1) + text + '\n' + m.group(2), doc)
    else:
        doc = '# Detection quality (generated skeleton)\n\n' + ''.join(
            f'## {n}\n\n<!-- generated:{n} -->\n{t}\n<!-- /generated:{n} -->\n\n' for n, t in blocks.items())
    with open(a.report, 'w', encoding='utf-8') as f:
        f.write(doc)
    print(f'report: {a.report}')


if __name__ == '__main__':
    main()
