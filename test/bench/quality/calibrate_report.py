#!/usr/bin/env python3
"""Tables of test/bench/quality/calibrate.sh: per labelled corpus and column (exact shingle sets, min-hash
sketches), the F1 of the threshold calibrated from 100 and 30 judged pairs (5 seeds) beside the best
threshold's (the ceiling) and the recommender's, and the estimated precision / recall beside the
true ones.  Prints them and, with --report FILE, rewrites FILE's "<!-- generated:calibrate -->" block."""
import argparse
import csv
import re

ORDER = ['man', 'man-d30', 'html', 'html-d30', 'ko', 'ru', 'ja', 'tmpl-ja', 'tmpl-en', 'neardup-dev',
         'ko-site', 'ru-site', 'ko-big', 'man-big',
         'lang-en', 'lang-ja', 'lang-ko', 'lang-ru', 'lang-zh_CN']


def read(path):
    with open(path) as f:
        return list(csv.DictReader(f, delimiter='\t'))


def num(v):
    return float(v) if v not in ('', None) else float('nan')


def bold(s, ok):
    return s if ok else f'**{s}**'


def perr(rows):
    return max(abs(num(r['est_precision']) - num(r['true_precision'])) for r in rows)


def rerr(rows):
    return max(abs(num(r['est_recall']) - num(r['true_recall'])) for r in rows)


def covered(rows):
    """How many runs' 95% intervals hold the true precision and recall."""
    c = 0
    for r in rows:
        c += (num(r['precision_low']) - 1e-4 <= num(r['true_precision']) <= num(r['precision_high']) + 1e-4
              and num(r['recall_low']) - 1e-4 <= num(r['true_recall']) <= num(r['recall_high']) + 1e-4)
    return c


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--work', required=True, action='append', help='a directory of cq_result.tsv, cq_ref.tsv (repeat to merge runs)')
    ap.add_argument('--report')
    ap.add_argument('--command', action='append')
    ap.add_argument('--seconds', action='append')
    ap.add_argument('--load', action='append')
    a = ap.parse_args()
    res = [r for w in a.work for r in read(f'{w}/cq_result.tsv')]
    ref = {(r['ds'], r['method']): r for w in a.work for r in read(f'{w}/cq_ref.tsv')}
    runs = {}
    for r in res:
        runs.setdefault((r['ds'], r['method'], int(r['rounds']), int(r['n'])), []).append(r)
    keys = sorted(ref, key=lambda k: (ORDER.index(k[0]) if k[0] in ORDER else len(ORDER), k[0], k[1]))

    head = ['| corpus | column | rounds | rows (duplicate pairs) | best F1 (t) = ceiling | recommender: t → F1 (− ceiling) | '
            '100 labels: t | F1 − ceiling (worst) | calibrated − recommender (worst) | worst P error, R error (estimated − true) | '
            'true P, R in the 95% intervals | 30 labels: F1 − ceiling (worst) | worst P error, R error |',
            '|---|---|---|---|---|---|---|---|---|---|---|---|---|']
    lines = []
    summaries = []
    for rounds in (2, 1):
        if not any(key[2] == rounds for key in runs):
            continue            # not run (e.g. two rounds only)
        met = {'f100': 0, 'f30': 0, 'pr100': 0, 'rec': 0, 'all': 0}
        total = 0
        worst = []
        for k in keys:
            ds, m = k
            rf = ref[k]
            best = num(rf['best_f1'])
            recf = num(rf['rec_f1'])
            r100 = runs.get((ds, m, rounds, 100), [])
            r30 = runs.get((ds, m, rounds, 30), [])
            if not r100:
                continue
            total += 1
            g100 = min(num(r['true_f1']) for r in r100) - best
            g30 = (min(num(r['true_f1']) for r in r30) - best) if r30 else float('nan')
            vs_rec = min(num(r['true_f1']) for r in r100) - recf
            pr100 = max(max(abs(num(r['est_precision']) - num(r['true_precision'])),
                            abs(num(r['est_recall']) - num(r['true_recall']))) for r in r100)
            ok_f100 = g100 >= -0.01
            ok_f30 = g30 >= -0.03 if r30 else None     # None: not run
            ok_pr = pr100 <= 0.05
            ok_rec = vs_rec >= -0.005
            met['f100'] += ok_f100
            met['f30'] += bool(ok_f30)
            met['pr100'] += ok_pr
            met['rec'] += ok_rec
            all_ok = ok_f100 and ok_f30 is not False and ok_pr and ok_rec
            met['all'] += all_ok
            if not all_ok:
                worst.append(f'{ds}/{m}')
            ts = sorted(num(r['threshold']) for r in r100)
            lines.append((ORDER.index(ds) if ds in ORDER else len(ORDER), ds, m, rounds, '| ' + ' | '.join([
                ds, m, str(rounds), f"{rf['docs']} ({rf['npos']})", f"{best:.3f} ({num(rf['best_t']):.3f})",
                f"{num(rf['rec_t']):.3f} → {recf:.3f} ({recf - best:+.3f})",
                f'{ts[0]:.3f}–{ts[-1]:.3f}', bold(f'{g100:+.4f}', ok_f100), bold(f'{vs_rec:+.4f}', ok_rec),
                bold(f'{perr(r100):.3f}, {rerr(r100):.3f}', ok_pr), f'{covered(r100)}/{len(r100)}',
                bold(f'{g30:+.4f}', ok_f30) if r30 else '',
                f'{perr(r30):.3f}, {rerr(r30):.3f}' if r30 else '']) + ' |'))
        how = 'two rounds (half the pairs, then the rest given their labels)' if rounds == 2 else 'one round'
        parts = [f"F1 within 0.01 of the ceiling with 100 labels (every seed) **{met['f100']}/{total}**"]
        if rounds == 2:
            parts.append(f"within 0.03 with 30 labels **{met['f30']}/{total}**")
        parts += [f"estimated precision and recall within ±0.05 with 100 labels **{met['pr100']}/{total}**",
                  f"never below the recommender by more than 0.005 with 100 labels **{met['rec']}/{total}**",
                  f"all of these **{met['all']}/{total}**" + (f" (missed: {', '.join(worst)})" if worst else '')]
        summaries.append(f"{how.capitalize()}, on {total} corpus × column cases: " + '; '.join(parts) + '.')
    lines = [x[4] for x in sorted(lines)]
    summary = '\n\n'.join(summaries)
    if not a.command:           # kept runs (calibrate.sh --keep): each directory's run.txt
        a.command, a.seconds, a.load = [], [], []
        for w in a.work:
            with open(f'{w}/run.txt') as f:
                c, sec, ld = f.read().rstrip('\n').split('\t')
            a.command.append(c)
            a.seconds.append(sec)
            a.load.append(ld)
    runs_text = '; '.join(f"`{c}` ({sec} s, load average at the end {ld})"
                          for c, sec, ld in zip(a.command or [], a.seconds or [], a.load or []))
    out = [f"Command{'s' if len(a.command or []) > 1 else ''}: {runs_text}.", '', summary, ''] + head + lines
    bound = {}
    for w in a.work:
        try:
            for r in read(f'{w}/cq_bound.tsv'):
                bound[(r['ds'], r['method'])] = r
        except FileNotFoundError:
            pass
    if bound:
        out += ['', 'What 100 judged pairs can estimate at the best threshold (`cq_bound(100)`): the smallest standard '
                'error of the estimated precision and recall any stratified sample of 100 can give (Neyman '
                'allocation for the true shares of duplicates of the 18 strata, split at the threshold), and the '
                'judged pairs that would bring the recall\'s to 0.025 (±0.05 at two standard errors).', '',
                '| corpus | column | best t | duplicates above t | duplicates below t (above 0.1) | '
                'smallest s.e. of P | smallest s.e. of R | judged pairs for s.e.(R) = 0.025 |',
                '|---|---|---|---|---|---|---|---|']
        for k in sorted(bound, key=lambda k: -num(bound[k]['se_recall'])):
            b = bound[k]
            out.append(f"| {k[0]} | {k[1]} | {num(b['best_t']):.3f} | {b['dups_above']} | {b['dups_below']} | "
                       f"{num(b['se_precision']):.3f} | {num(b['se_recall']):.3f} | {num(b['pairs_for_recall']):.0f} |")
    text = '\n'.join(out)
    print(text)
    if a.report:
        with open(a.report) as f:
            page = f.read()
        block = '<!-- generated:calibrate -->\n' + text + '\n<!-- /generated:calibrate -->'
        page, n = re.subn(r'<!-- generated:calibrate -->.*?<!-- /generated:calibrate -->', lambda _: block, page,
                          flags=re.S)
        if n != 1:
            raise SystemExit(f'{a.report}: no "<!-- generated:calibrate -->" block')
        with open(a.report, 'w') as f:
            f.write(page)


if __name__ == '__main__':
    main()
