#!/usr/bin/env python3
"""Documents of five lengths made of real text, with planted near-duplicates
(test/bench/long_docs_bench.sh).

  long_docs_gen.py DESCRIPTIONS.tsv.gz SPEC QUERIES SEED > docs.tsv

DESCRIPTIONS: gzip TSV with a header and columns id, package, text (Debian
package descriptions, backslash escapes).  SPEC: comma-separated tier:docs:words,
e.g. "short:20000:0,medium:20000:0,1k:5000:1000"; words 0 means the tier's own
unit (short: the first line of one description; medium: one whole
description), otherwise an original is descriptions drawn at random (with
replacement, in random order) concatenated until it has at least that many
words.  Each original is followed by 0-3 variants of it (uniformly), each
either a near copy (a share of 1, 2, 3 or 5 % of the words, at least one,
substituted, deleted or followed by an inserted word) or a part (a contiguous
50-80 % of the words, then 2 % edited): all of one cluster share `grp`.
Output rows (COPY text): kind ('doc' or 'query'), tier, id, grp, text.  The
QUERIES query texts of each tier are fresh variants (not stored) of stored
originals, drawn at random.  Deterministic for a seed; Python 3 stdlib only.
"""
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_neardup import read_base  # noqa: E402  (the same TSV reader)


def variant(words, rng, vocab):
    """A near copy or a part of the word list, edited."""
    if rng.random() < 0.6:
        rate = rng.choice([0.01, 0.02, 0.03, 0.05])
    else:
        n = len(words)
        keep = max(1, int(n * rng.uniform(0.5, 0.8)))
        start = rng.randint(0, n - keep)
        words = words[start:start + keep]
        rate = 0.02
    words = list(words)
    edits = max(1, round(rate * len(words)))
    for p in sorted(rng.sample(range(len(words)), min(edits, len(words))), reverse=True):
        op = rng.random()
        if op < 0.4:
            words[p] = rng.choice(vocab)
        elif op < 0.7 and len(words) > 1:
            del words[p]
        else:
            words.insert(p + 1, rng.choice(vocab))
    return words


def esc(s):
    return s.replace('\\', '\\\\')


def main():
    path, spec, queries, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    rng = random.Random(seed)
    descs = read_base(path)
    split = [d.split() for d in descs]
    firsts = [d.split('\n', 1)[0].split() for d in descs]
    vocab = [w for ws in split[:2000] for w in ws]
    out = sys.stdout
    for item in spec.split(','):
        tier, ndocs, nwords = item.split(':')
        ndocs, nwords = int(ndocs), int(nwords)
        order = list(range(len(descs)))
        rng.shuffle(order)
        pos = 0
        originals = []
        doc_id = 0
        while doc_id < ndocs:
            if nwords == 0:
                src = firsts if tier == 'short' else split
                words = src[order[pos % len(order)]]
                pos += 1
                if len(words) < 2:
                    continue
            else:
                words = []
                while len(words) < nwords:
                    words.extend(split[rng.randrange(len(split))])
            grp = len(originals)
            originals.append(words)
            doc_id += 1
            out.write(f'doc\t{tier}\t{doc_id}\t{grp}\t{esc(" ".join(words))}\n')
            for _ in range(rng.randint(0, 3)):
                if doc_id >= ndocs:
                    break
                doc_id += 1
                out.write(f'doc\t{tier}\t{doc_id}\t{grp}\t{esc(" ".join(variant(words, rng, vocab)))}\n')
        for n in range(1, queries + 1):
            grp = rng.randrange(len(originals))
            out.write(f'query\t{tier}\t{n}\t{grp}\t{esc(" ".join(variant(originals[grp], rng, vocab)))}\n')


if __name__ == '__main__':
    main()
