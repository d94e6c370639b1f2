#!/usr/bin/python3
"""gen_neardup.py with REPEATED site chrome: the same generator, but a variant's header and footer
come from a fixed pool of --sites sites instead of being fresh random words every time.

  gen_sitechrome.py BASE.tsv.gz OUT.tsv.gz --docs N --seed S [--sites 20] [--gen PATH] [gen_neardup options]

gen_neardup.py draws a new random header/footer (8-20 random chrome words each) for every variant,
so no two pages share their chrome (except 'templated' hard negatives) and the chrome's shingles
have document frequency 1-2: a df filter cannot remove it.  Real site chrome is the same on every
page of a site.  Here each of --sites sites has one fixed header and footer word sequence (made
from the generator's own word list, seeded); only the date, user and comment count vary per page,
as on a real site.  Everything else is gen_neardup.py's own code (imported, chrome() replaced).
"""
import importlib.util
import os
import random
import sys


def main():
    argv = sys.argv[1:]
    gen_path, sites = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'gen_neardup.py'), 20
    if '--gen' in argv:
        i = argv.index('--gen')
        gen_path = argv[i + 1]
        del argv[i:i + 2]
    if '--sites' in argv:
        i = argv.index('--sites')
        sites = int(argv[i + 1])
        del argv[i:i + 2]
    seed = int(argv[argv.index('--seed') + 1]) if '--seed' in argv else 1
    spec = importlib.util.spec_from_file_location('gen_neardup', gen_path)
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    prng = random.Random(f'sites-{seed}')
    pool = []
    for s in range(sites):
        name = prng.choice(['blog', 'news', 'daily', 'forum', 'wiki', 'digest', 'notes']) + str(s)
        head = ' '.join(prng.choice(gen.CHROME_WORDS) for _ in range(prng.randint(8, 20)))
        foot = ' '.join(prng.choice(gen.CHROME_WORDS) for _ in range(prng.randint(8, 20)))
        pool.append((name, head, foot))

    def chrome(rng):
        name, head, foot = pool[rng.randrange(len(pool))]
        date = f'{rng.randint(2001, 2026)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}'
        return (f'{name.title()} {head}\nPosted {date} by user{rng.randint(1, 99999)}\n',
                f'\n{rng.randint(0, 999)} comments {foot}')
    gen.chrome = chrome
    sys.argv = [gen_path] + argv
    gen.main()


if __name__ == '__main__':
    main()
