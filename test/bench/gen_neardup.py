#!/usr/bin/env python3
"""Make a labelled near-duplicate corpus from a TSV of real base documents.

Every output document belongs to a ground-truth cluster: the base document it was
derived from.  Variants get the kinds of edits that near-duplicates have in the wild
(Manku et al.: ads, counters, timestamps; blog copies: copy & paste with small edits,
site chrome around the same body; Broder: excerpts and pages that contain another).

  gen_neardup.py BASE.tsv.gz OUT.tsv.gz [--docs N] [--seed S] [--dup-share F] [--base-jaccard J]

Base documents that resemble an earlier base document (word 3-shingle Jaccard >= J, default 0.3)
are dropped first, so that distinct clusters really are distinct; each base is used once, so the
corpus ends when the bases run out (fewer than N documents then).

BASE: gzip TSV with a header and columns id, <label>, text (backslash escapes \\t \\n \\\\).
OUT:  gzip TSV with columns
  doc_id      1..N, in a shuffled order (arrival order for insert-time tests)
  cluster_id  id of the base document (all documents with one cluster_id are near-duplicates,
              except kind 'contains' / 'excerpt', which are containment relations)
  kind        original | near | excerpt | contains | templated
              near:      small edits of the original (should be found as duplicates)
              excerpt:   70-90 % prefix of the original (contained in it)
              contains:  original embedded in a page twice as long (it contains the original)
              templated: a distinct document (its own negative cluster_id) wrapped in the same
                         site chrome as some variant of another cluster: a hard negative that
                         shares boilerplate only
  edits       the edits applied, e.g. "words:0.03,chrome,numbers"
  text        the document
The script is deterministic for a given seed.  It needs only Python 3's standard library.

(A copy of the project's shared tools/gen_neardup.py, kept in the checkout so that
test/bench/set_pairs_bench.sh makes its long documents from data/ alone.)
"""
import argparse, gzip, random, re

CHROME_WORDS = ('home about contact archive login register subscribe newsletter share tweet like '
                'comments reply posted by admin editor staff tags categories menu search privacy '
                'policy terms cookies copyright all rights reserved advertisement sponsored read more '
                'related posts popular recent trending follow us rss feed next previous page').split()


def unesc(s):
    return re.sub(r'\\(.)', lambda m: {'t': '\t', 'n': '\n', '\\': '\\'}.get(m.group(1), m.group(1)), s)


def esc(s):
    return s.replace('\\', '\\\\').replace('\t', '\\t').replace('\n', '\\n').replace('\r', '')


def read_base(path):
    docs = []
    with gzip.open(path, 'rt', encoding='utf-8') as f:
        next(f)
        for line in f:
            parts = line.rstrip('\n').split('\t')
            if len(parts) >= 3:
                docs.append(unesc(parts[2]))
    return docs


def shingles3(text):
    toks = re.findall(r'\w+', re.sub(r'<[^>]*>', ' ', text.lower()))
    return {hash(tuple(toks[i:i + 3])) for i in range(max(1, len(toks) - 2))}


def distinct_bases(docs, limit):
    """Keep documents whose 3-shingle Jaccard with every kept one is below limit."""
    kept, sets, inv = [], [], {}
    for text in docs:
        s = shingles3(text)
        counts = {}
        for h in s:
            for j in inv.get(h, ()):
                counts[j] = counts.get(j, 0) + 1
        if any(n / (len(s) + len(sets[j]) - n) >= limit for j, n in counts.items()):
            continue
        j = len(kept)
        kept.append(text)
        sets.append(s)
        for h in s:
            lst = inv.setdefault(h, [])
            if len(lst) < 5000:
                lst.append(j)
    return kept


def chrome(rng):
    site = rng.choice(['blog', 'news', 'daily', 'forum', 'wiki', 'digest', 'notes'])
    head = ' '.join(rng.choice(CHROME_WORDS) for _ in range(rng.randint(8, 20)))
    foot = ' '.join(rng.choice(CHROME_WORDS) for _ in range(rng.randint(8, 20)))
    date = f'{rng.randint(2001, 2026)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}'
    return (f'{site.title()} {head}\nPosted {date} by user{rng.randint(1, 99999)}\n',
            f'\n{rng.randint(0, 999)} comments {foot}')


def edit_words(text, rate, rng, vocab):
    out = []
    for tok in re.split(r'(\s+)', text):
        if not tok or tok.isspace() or rng.random() >= rate:
            out.append(tok)
            continue
        op = rng.random()
        if op < 0.4:
            out.append(rng.choice(vocab))            # substitute
        elif op < 0.7:
            continue                                  # delete
        else:
            out.append(tok + ' ' + rng.choice(vocab))  # insert
    return ''.join(out)


def renumber(text, rng):
    return re.sub(r'\d+', lambda m: str(rng.randint(0, 10 ** len(m.group(0)))), text)


def reformat(text, rng):
    if rng.random() < 0.5:
        text = text.upper() if rng.random() < 0.2 else text.lower()
    text = re.sub(r'[ \t]+', lambda m: ' ' * rng.randint(1, 3), text)
    if rng.random() < 0.5:
        paras = text.split('\n\n')
        text = '\n'.join(f'<p class="c{rng.randint(1, 9)}">{p}</p>' for p in paras)
        text = f'<html><body><div id="main">{text}</div></body></html>'
    return text


def swap_paragraphs(text, rng):
    paras = text.split('\n\n')
    if len(paras) >= 3:
        i, j = rng.sample(range(len(paras)), 2)
        paras[i], paras[j] = paras[j], paras[i]
    return '\n\n'.join(paras)


CHROMES = []   # site chrome already used by some variant, reused by 'templated' hard negatives


def near_variant(text, rng, vocab):
    edits = []
    rate = rng.choice([0.0, 0.01, 0.02, 0.03, 0.05])
    if rate:
        text = edit_words(text, rate, rng, vocab)
        edits.append(f'words:{rate}')
    if rng.random() < 0.5:
        h, f = chrome(rng)
        CHROMES.append((h, f))
        text = h + text + f
        edits.append('chrome')
    if rng.random() < 0.4:
        text = renumber(text, rng)
        edits.append('numbers')
    if rng.random() < 0.3:
        text = swap_paragraphs(text, rng)
        edits.append('swap')
    if rng.random() < 0.4:
        text = reformat(text, rng)
        edits.append('format')
    if not edits:
        edits.append('exact')
    return text, ','.join(edits)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('base')
    ap.add_argument('out')
    ap.add_argument('--docs', type=int, default=10000)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--dup-share', type=float, default=0.3, help='share of base documents given variants')
    ap.add_argument('--base-jaccard', type=float, default=0.3, help='drop bases this similar to an earlier one')
    a = ap.parse_args()
    rng = random.Random(a.seed)
    base = distinct_bases(read_base(a.base), a.base_jaccard)
    vocab = [w for w in ' '.join(rng.sample(base, min(200, len(base)))).split() if w.isalpha()][:5000]
    rows = []
    order = list(range(len(base)))
    rng.shuffle(order)
    bi = 0
    while len(rows) < a.docs and bi < len(order):
        b = order[bi]
        bi += 1
        text = base[b]
        cid = b + 1
        rows.append((cid, 'original', 'none', text))
        if rng.random() < a.dup_share:
            for _ in range(min(1 + int(rng.expovariate(0.6)), 8)):
                r = rng.random()
                if r < 0.8:
                    t, e = near_variant(text, rng, vocab)
                    rows.append((cid, 'near', e, t))
                elif r < 0.9:
                    words = text.split(' ')
                    keep = int(len(words) * rng.uniform(0.7, 0.9))
                    rows.append((cid, 'excerpt', 'prefix', ' '.join(words[:keep])))
                else:
                    other = base[rng.randrange(len(base))]
                    rows.append((cid, 'contains', 'embed', other[: len(text)] + '\n\n' + text))
        if CHROMES and rng.random() < 0.05:
            h, f = rng.choice(CHROMES)
            if bi < len(order):                             # a base of its own, never used again
                rows.append((-len(rows), 'templated', 'chrome-of-another', h + base[order[bi]] + f))
                bi += 1
    rows = rows[: a.docs]
    rng.shuffle(rows)
    with gzip.open(a.out, 'wt', encoding='utf-8') as f:
        f.write('doc_id\tcluster_id\tkind\tedits\ttext\n')
        for i, (cid, kind, edits, text) in enumerate(rows, 1):
            f.write(f'{i}\t{cid}\t{kind}\t{edits}\t{esc(text)}\n')


if __name__ == '__main__':
    main()
