#!/usr/bin/env python3
"""Random differential test of nddup's set-returning functions and indexes.

Each iteration makes random data (fingerprints around a few centres, texts
with near-duplicate edits, NULLs, extreme ids, order keys with ties) and
random parameters (radius, threshold, bands/rows, work_mem, index options,
some of them invalid), runs every batch function, hamming_nearest and the
radius / ordered index scans through psql, and compares each answer with an
oracle computed here in Python (fingerprints) or from jaccard() and the
arrays themselves (sketches, whose values only the server computes).

An answer must equal the oracle's exactly (multisets of rows), or be a
subset of it where the parameters make the function approximate (explicit
LSH bands); invalid parameters must fail with SQLSTATE 22023; the only other
error allowed is 53200 (work_mem too small) from the functions documented to
raise it.  Any other error, a lost connection or a wrong row is a failure:
the SQL of the iteration is written to the output directory to replay it.

Usage: srf_check.py [--seed S] [--iterations N] [--seconds T] [--out DIR]
The server is the one of the libpq environment (PGHOST, PGPORT, ...); the
database must have the extension.
"""

import argparse
import os
import random
import re
import subprocess
import sys
import time

INT64_MIN = -(1 << 63)
INT64_MAX = (1 << 63) - 1
MASK64 = (1 << 64) - 1

# Functions that keep everything in memory and stop with 53200 beyond work_mem
# (every other batch function goes through temporary files).
# Expectation of a check that the sketch oracle fills in after the run.
LATER = "later"

MAY_NEED_WORK_MEM = {"from_pairs", "assign"}

# Min-hash pairs at a threshold every pair meets, beyond work_mem: refused with
# 54000 (the result would be every pair of more rows than work_mem holds).
ALL_PAIRS_REFUSED = {"mh_pairs", "mh_pairs_rel", "mh_pairs_bands", "mh_pairs_bands_rel", "mh_join"}

WORDS = ("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi "
         "omicron pi rho sigma tau upsilon phi chi psi omega red green blue cyan "
         "magenta yellow black white north south east west spring summer autumn "
         "winter river lake sea ocean hill mountain valley forest desert island "
         "東京 京都 大阪 Straße naïve façade").split()


def popcount(x):
    return bin(x).count("1")


def sql_str(s):
    return "'" + s.replace("'", "''") + "'"


def sql_lit(v):
    return "NULL" if v is None else str(v)


class Failure(Exception):
    pass


# ----------------------------------------------------------------------------
# Oracles
# ----------------------------------------------------------------------------

def components(nodes, edges):
    """Connected components: dict node -> root (union-find)."""
    parent = {n: n for n in nodes}

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in edges:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[ra] = rb
    return {n: find(n) for n in nodes}


def cluster_rows(rows, edges, singletons, key):
    """(id, cluster id) rows: each component named after its earliest row.

    rows: list of row indexes; edges: pairs of row indexes; key(row) orders
    rows (the earliest first)."""
    root = components(rows, edges)
    members = {}
    for r in rows:
        members.setdefault(root[r], []).append(r)
    out = []
    for group in members.values():
        if not singletons and len(group) < 2:
            continue
        first = min(group, key=key)
        for r in group:
            out.append((r, first))
    return out


def greedy_rows(rows, edges, singletons, key):
    """(id, cluster id) rows of mode 'greedy': rows in key order join the
    earliest original they match, else become originals (clusters without
    chains); an original left alone is a singleton."""
    adj = {r: set() for r in rows}
    for a, b in edges:
        if a != b and a in adj and b in adj:
            adj[a].add(b)
            adj[b].add(a)
    original = {}
    for r in sorted(rows, key=key):
        earlier = [o for o in adj[r] if original.get(o) == o]
        original[r] = min(earlier, key=key) if earlier else r
    members = {}
    for r in rows:
        members.setdefault(original[r], []).append(r)
    return [(r, o) for o, group in members.items() if singletons or len(group) > 1 for r in group]


def mode_rows(mode, rows, edges, singletons, key):
    """The expected clusters of a mode: 'greedy' (the default) or 'components'."""
    if mode == "components":
        return cluster_rows(rows, edges, singletons, key)
    return greedy_rows(rows, edges, singletons, key)


def mode_arg(mode):
    """The SQL argument of a mode: none for the default half of the time."""
    return "" if mode is None else ", mode => '%s'" % mode


def band_plan(k, t, bands, rows, any_sketch):
    """Explicit bands and rows at threshold t over sketches of k values: 'bad'
    (refused, 22023), 'exact' (they cover every pair at the threshold) or
    'approx' (LSH may miss pairs)."""
    emin = next((e for e in range(k + 1) if e / k >= t), k)
    b = bands or 0
    r = rows or 0
    if any(v is not None and (v < 1 or v > 1024) for v in (bands, rows)):
        return "bad"
    # bands * rows is checked against the k of the first sketch: no sketch, no check
    if (b or r) and any_sketch:
        if b == 0:
            b = k // r
        if r == 0:
            r = k // b
        if b < 1 or r < 1 or b * r > k:
            return "bad"
    return "exact" if (b == 0 and r == 0) or (emin > 0 and b > k - emin) else "approx"


def order_key(ords, ids):
    """Earliest-row order of the batch functions: order key (NULLs last), id."""
    def key(r):
        o = ords[r] if ords is not None else None
        return (o is None, o if o is not None else 0, ids[r])
    return key


# ----------------------------------------------------------------------------
# One iteration
# ----------------------------------------------------------------------------

class Iteration:
    def __init__(self, rng, number, stats):
        self.rng = rng
        self.number = number
        self.stats = stats      # counters shared by all iterations
        self.sql = []
        self.checks = []        # (name, expectation, oracle)

    # -- data ---------------------------------------------------------------

    def make_ids(self, n, type_name):
        rng = self.rng
        if type_name == "smallint":
            pool = rng.sample(range(-32768, 32768), n)
        elif rng.random() < 0.3:
            lo, hi = (INT64_MIN, INT64_MAX) if type_name == "bigint" else (-(1 << 31), (1 << 31) - 1)
            ids = set()
            while len(ids) < n:
                ids.add(rng.choice([lo, hi, lo + 1, hi - 1, 0, rng.randint(lo, hi)]))
            pool = list(ids)
            rng.shuffle(pool)
        else:
            pool = rng.sample(range(1, 4 * n + 10), n)
        return pool

    def make_fingerprints(self, n):
        rng = self.rng
        centres = [rng.getrandbits(64) for _ in range(rng.randint(1, 8))]
        if rng.random() < 0.2:
            centres.append(0)                       # skewed: all-zero centre
        fps = []
        for _ in range(n):
            if rng.random() < 0.1:
                fps.append(rng.getrandbits(64))
                continue
            fp = rng.choice(centres)
            flips = min(64, int(rng.expovariate(0.25)))
            for bit in rng.sample(range(64), flips):
                fp ^= 1 << bit
            fps.append(fp)
        return fps

    def simhash_data(self):
        rng = self.rng
        r = rng.random()
        n = rng.randint(0, 200) if r < 0.7 else (rng.randint(200, 800) if r < 0.9 else rng.randint(1100, 1500))
        self.id_type = rng.choice(["smallint", "integer", "bigint", "bigint"])
        self.ord_type = rng.choice(["integer", "bigint", "date", "timestamptz"])
        ids = self.make_ids(n, self.id_type)
        fps = self.make_fingerprints(n)
        p_null = rng.choice([0.0, 0.0, 0.05, 0.3])
        self.ids = [None if rng.random() < p_null else i for i in ids]
        self.fps = [None if rng.random() < p_null else f for f in fps]
        self.ords = [None if rng.random() < 0.2 else rng.randint(0, max(1, n // 4)) for _ in range(n)]
        self.side = [rng.random() < 0.5 for _ in range(n)]
        self.cl = [None if rng.random() < 0.3 else rng.randint(1, 50) for _ in range(n)]
        self.n = n

        def ord_sql(o):
            if o is None:
                return "NULL"
            if self.ord_type == "date":
                return "date '2000-01-01' + %d" % o
            if self.ord_type == "timestamptz":
                return "timestamptz '2000-01-01 00:00:00+00' + interval '%d seconds'" % o
            return str(o)

        self.sql.append("CREATE TEMP TABLE t (id %s, fp simhash64, ord %s, side boolean, cl bigint);"
                        % (self.id_type, self.ord_type))
        for start in range(0, n, 500):
            values = []
            for i in range(start, min(n, start + 500)):
                fp = "NULL" if self.fps[i] is None else "'%016x'" % self.fps[i]
                values.append("(%s, %s, %s, %s, %s)" % (sql_lit(self.ids[i]), fp, ord_sql(self.ords[i]),
                                                        "true" if self.side[i] else "false", sql_lit(self.cl[i])))
            self.sql.append("INSERT INTO t VALUES %s;" % ", ".join(values))
        self.sql.append("ANALYZE t;")

    # -- checks ---------------------------------------------------------------

    def check(self, name, query, expect, oracle=None):
        """Queue a check: expect is 'rows' (equal to oracle), 'subset', an SQLSTATE, or
        LATER when the oracle needs the server's answers (sketch_oracles fills it in)."""
        self.checks.append((name, expect, oracle))
        self.sql.append("\\echo @@ %s" % name)
        self.sql.append("SELECT * FROM pg_temp.chk(%s);" % sql_str(query))

    def valid_rows(self):
        return [i for i in range(self.n) if self.ids[i] is not None and self.fps[i] is not None]

    def dist(self, i, j):
        return popcount(self.fps[i] ^ self.fps[j])

    def simhash_checks(self):
        rng = self.rng
        radius = rng.choice([rng.randint(0, 8), rng.randint(0, 20), rng.randint(0, 64),
                             rng.choice([-1, 65, -2147483648, 2147483647])] if rng.random() < 0.1
                            else [rng.randint(0, 8), rng.randint(0, 20), rng.randint(0, 64)])
        bad_radius = radius < 0 or radius > 64
        self.radius = radius
        valid = self.valid_rows()
        ids = self.ids
        pairs = []
        within = []
        for x in range(len(valid)):
            i = valid[x]
            for y in range(x + 1, len(valid)):
                j = valid[y]
                d = self.dist(i, j)
                if d <= radius:
                    within.append((i, j))
                    pairs.append((min(ids[i], ids[j]), max(ids[i], ids[j]), d))

        def expect(oracle):
            return ("22023", None) if bad_radius else ("rows", oracle)

        e, o = expect(pairs)
        self.check("pairs_query", "SELECT * FROM hamming_pairs('SELECT id, fp FROM t', %d)" % radius, e, o)
        self.check("pairs_rel", "SELECT * FROM hamming_pairs('t', 'id', 'fp', %d)" % radius, e, o)

        side_a = [i for i in valid if self.side[i]]
        side_b = [i for i in valid if not self.side[i]]
        join = [(ids[a], ids[b], self.dist(a, b)) for a in side_a for b in side_b if self.dist(a, b) <= radius]
        e, o = expect(join)
        self.check("join", "SELECT * FROM hamming_join('SELECT id, fp FROM t WHERE side', "
                   "'SELECT id, fp FROM t WHERE NOT side', %d)" % radius, e, o)

        singletons = rng.random() < 0.7
        with_ord = rng.random() < 0.5
        key = order_key(self.ords if with_ord else None, ids)
        mode = rng.choice([None, "greedy", "components"])
        clusters = [(ids[r], ids[c]) for r, c in mode_rows(mode, valid, within, singletons, key)]
        e, o = expect(clusters)
        self.check("clusters_query", "SELECT * FROM hamming_clusters('SELECT id, fp%s FROM t', %d, %s%s)"
                   % (", ord" if with_ord else "", radius, singletons, mode_arg(mode)), e, o)
        self.check("clusters_rel", "SELECT * FROM hamming_clusters('t', 'id', 'fp', %d, %s, %s%s)"
                   % (radius, "'ord'" if with_ord else "NULL", singletons, mode_arg(mode)), e, o)

        self.assign_check(radius, bad_radius)
        self.from_pairs_check()

    def assign_check(self, radius, bad_radius):
        """hamming_assign: side rows are the existing ones, the others new."""
        ids, fps = self.ids, self.fps
        valid = self.valid_rows()
        old = [i for i in valid if self.side[i]]
        new = [i for i in valid if not self.side[i]]
        with_ord = self.rng.random() < 0.5
        best = {}
        for v in new:
            cands = [(self.dist(u, v), self.cl[u] if self.cl[u] is not None else ids[u]) for u in old]
            cands = [c for c in cands if c[0] <= radius]
            if cands:
                best[v] = min(cands)[1]
        unmatched = [v for v in new if v not in best]
        edges = [(a, b) for x, a in enumerate(unmatched) for b in unmatched[x + 1:] if self.dist(a, b) <= radius]
        root = components(unmatched, edges)
        attach = {}
        for u in unmatched:
            for v in best:
                if self.dist(u, v) <= radius:
                    r = root[u]
                    attach[r] = min(attach.get(r, best[v]), best[v])
        key = order_key(self.ords if with_ord else None, ids)
        first = {}
        for u in unmatched:
            r = root[u]
            if r not in first or key(u) < key(first[r]):
                first[r] = u
        rows = [(ids[v], best[v]) for v in best]
        for u in unmatched:
            r = root[u]
            rows.append((ids[u], attach[r] if r in attach else ids[first[r]]))
        self.check("assign", "SELECT * FROM hamming_assign('SELECT id, fp%s FROM t WHERE NOT side', "
                   "'SELECT id, fp, cl FROM t WHERE side', %d)" % (", ord" if with_ord else "", radius),
                   "22023" if bad_radius else "rows", None if bad_radius else rows)

    def from_pairs_check(self):
        rng = self.rng
        m = rng.randint(0, 300)
        pool = list(range(1, rng.randint(2, 200)))
        prs = []
        for _ in range(m):
            a = None if rng.random() < 0.1 else rng.choice(pool)
            b = None if rng.random() < 0.1 else rng.choice(pool)
            prs.append((a, b))
        self.sql.append("CREATE TEMP TABLE p (a bigint, b bigint);")
        if prs:
            self.sql.append("INSERT INTO p VALUES %s;" % ", ".join(
                "(%s, %s)" % (sql_lit(a), sql_lit(b)) for a, b in prs))
        nodes = sorted({x for pr in prs for x in pr if x is not None})
        edges = [(a, b) for a, b in prs if a is not None and b is not None]
        singletons = rng.random() < 0.5
        mode = rng.choice([None, "greedy", "components"])
        rows = mode_rows(mode, nodes, edges, singletons, lambda x: x)
        self.check("from_pairs", "SELECT * FROM clusters_from_pairs('SELECT a, b FROM p', %s%s)"
                   % (singletons, mode_arg(mode)), "rows", rows)

    def index_checks(self):
        rng = self.rng
        valid_fp = [i for i in range(self.n) if self.fps[i] is not None]
        kind = rng.choice(["gin", "gin", "spgist", "none"])
        if kind == "gin":
            opts = []
            if rng.random() < 0.6:
                opts.append("blocks = %d" % rng.randint(2, 8))
            if rng.random() < 0.5:
                opts.append("layout = %s" % rng.choice(["full", "block"]))
            self.sql.append("CREATE INDEX ON t USING gin (fp simhash64_gin_ops%s) WITH (fastupdate = %s);"
                            % ("(%s)" % ", ".join(opts) if opts else "", rng.choice(["on", "off"])))
        elif kind == "spgist":
            self.sql.append("CREATE INDEX ON t USING spgist (fp simhash64_spgist_ops);")
        self.sql.append("SET enable_seqscan = off;")
        for q in range(3):
            if valid_fp and rng.random() < 0.7:
                centre = self.fps[rng.choice(valid_fp)] ^ (1 << rng.randrange(64))
            else:
                centre = rng.getrandbits(64)
            radius = rng.choice([rng.randint(0, 8), rng.randint(0, 24), rng.randint(0, 64)])
            got = [(self.ids[i],) for i in valid_fp if popcount(self.fps[i] ^ centre) <= radius]
            form = rng.choice(["fp <@ ball('%016x', %d)", "within(fp, '%016x', %d)"]) % (centre, radius)
            self.check("radius_%d" % q, "SELECT id FROM t WHERE %s" % form, "rows", got)
            n = rng.randint(1, 25)
            dists = sorted(popcount(self.fps[i] ^ centre) for i in valid_fp)[:n]
            self.check("ordered_%d" % q, "SELECT fp <-> '%016x' FROM t WHERE fp IS NOT NULL "
                       "ORDER BY fp <-> '%016x' LIMIT %d" % (centre, centre, n), "rows", [(d,) for d in dists])
            # ordered by (distance, id), NULL ids last among equal distances
            near = sorted(((popcount(self.fps[i] ^ centre), self.ids[i]) for i in valid_fp),
                          key=lambda di: (di[0], di[1] is None, di[1] or 0))[:n]
            self.check("nearest_%d" % q, "SELECT * FROM hamming_nearest('t', 'id', 'fp', '%016x', %d)"
                       % (centre, n), "rows", [(i, d) for d, i in near])
        self.sql.append("RESET enable_seqscan;")

    # -- sketches -------------------------------------------------------------

    def sketch_data(self):
        rng = self.rng
        # a few inputs beyond the 1,024 rows always kept in memory: at a small
        # work_mem they go through temporary files
        m = rng.randint(0, 120) if rng.random() < 0.95 else rng.randint(1050, 1200)
        self.spilled_sketches = m > 1024
        bases = [[rng.choice(WORDS) for _ in range(rng.randint(3, 40))] for _ in range(rng.randint(1, 6))]
        docs = []
        for _ in range(m):
            r = rng.random()
            if r < 0.05:
                docs.append(None)
            elif r < 0.1:
                docs.append("")
            else:
                words = list(rng.choice(bases))
                for _ in range(int(rng.expovariate(0.3))):
                    op = rng.randrange(3)
                    pos = rng.randrange(len(words) + 1)
                    if op == 0:
                        words.insert(pos, rng.choice(WORDS))
                    elif words and op == 1:
                        del words[min(pos, len(words) - 1)]
                    elif words:
                        words[min(pos, len(words) - 1)] = rng.choice(WORDS)
                docs.append(" ".join(words))
        self.k, self.groups = rng.choice([(8, (2, 4)), (16, (4, 4)), (64, (8, 8)), (84, (6, 14)), (128, (8, 16))])
        method = rng.choice(["oph", "kperm"])
        size = rng.randint(1, 3)
        unit = rng.choice(["word", "word", "char"])
        ids = self.make_ids(m, "bigint")
        self.m = m
        self.sketch_ids = [ids[i] for i in range(m) if docs[i] is not None]
        self.sql.append("CREATE TEMP TABLE d (id bigint, body text, ord integer, side boolean, "
                        "s minhash_sketch, ss bigint[]);")
        if m:
            self.sql.append("INSERT INTO d (id, body, ord, side) VALUES %s;" % ", ".join(
                "(%d, %s, %s, %s)" % (ids[i], "NULL" if docs[i] is None else sql_str(docs[i]),
                                      "NULL" if rng.random() < 0.2 else rng.randint(0, 20),
                                      "true" if rng.random() < 0.5 else "false") for i in range(m)))
        self.sql.append("UPDATE d SET s = minhash(body, %d, '%s', %d, %d, '%s');"
                        % (self.k, method, rng.randint(0, 1000), size, unit))
        self.sql.append("UPDATE d SET ss = super_shingles(s, %d, %d);" % self.groups)
        # the oracle's inputs: every pair's estimate, every pair's equal super-shingles
        self.sql.append("\\echo @@ truth_sketch")
        self.sql.append("SELECT a.id, b.id, jaccard(a.s, b.s), a.side, b.side, "
                        "(SELECT count(*) FROM generate_subscripts(a.ss, 1) g WHERE a.ss[g] = b.ss[g]), "
                        "coalesce(cardinality(a.ss), 0), coalesce(cardinality(b.ss), 0) "
                        "FROM d a JOIN d b ON a.id < b.id WHERE a.s IS NOT NULL AND b.s IS NOT NULL;")
        self.sql.append("\\echo @@ truth_rows")
        self.sql.append("SELECT id, ord, side, s IS NOT NULL FROM d;")

    def sketch_checks(self):
        rng = self.rng
        if rng.random() < 0.1:
            t = rng.choice(["-0.1", "1.5", "'NaN'::float8", "'Infinity'::float8", "'-Infinity'::float8"])
            bad = True
        else:
            t = rng.choice(["0", "1", "%.2f" % rng.random(), "%.3f" % rng.uniform(0.2, 0.9)])
            bad = False
        self.threshold_sql = t
        self.threshold_bad = bad
        singletons = rng.random() < 0.7
        with_ord = rng.random() < 0.5
        mode = rng.choice([None, "greedy", "components"])
        self.mh_params = (singletons, with_ord, mode)
        exp = "22023" if bad else "rows"
        self.check("mh_pairs", "SELECT * FROM minhash_pairs('SELECT id, s FROM d', %s)" % t, exp)
        self.check("mh_pairs_rel", "SELECT * FROM minhash_pairs('d', 'id', 's', %s)" % t, exp)
        self.check("mh_join", "SELECT * FROM minhash_join('SELECT id, s FROM d WHERE side', "
                   "'SELECT id, s FROM d WHERE NOT side', %s)" % t, exp)
        self.check("mh_clusters", "SELECT * FROM minhash_clusters('SELECT id, s%s FROM d', %s, singletons => %s%s)"
                   % (", ord" if with_ord else "", t, singletons, mode_arg(mode)), exp)
        self.check("mh_clusters_rel", "SELECT * FROM minhash_clusters('d', 'id', 's', %s, order_column => %s, "
                   "singletons => %s%s)" % (t, "'ord'" if with_ord else "NULL", singletons, mode_arg(mode)), exp)
        bands = None if rng.random() < 0.3 else rng.choice([rng.randint(1, self.k), rng.randint(0, 1100)])
        rows = None if rng.random() < 0.3 else rng.choice([rng.randint(1, 8), rng.randint(0, 1100)])
        self.bands = (bands, rows)
        self.check("mh_pairs_bands", "SELECT * FROM minhash_pairs('SELECT id, s FROM d', %s, %s, %s)"
                   % (t, sql_lit(bands), sql_lit(rows)), LATER)
        # the relation forms take bands and rows by name, as the query forms do
        self.check("mh_pairs_bands_rel", "SELECT * FROM minhash_pairs('d', 'id', 's', %s, bands => %s, "
                   "rows => %s)" % (t, sql_lit(bands), sql_lit(rows)), LATER)
        # clusters with bands where the answer does not depend on the banding
        if bad or all(band_plan(self.k, float(t), bands, rows, s) != "approx" for s in (False, True)):
            self.check("mh_clusters_bands", "SELECT * FROM minhash_clusters('SELECT id, s%s FROM d', %s, "
                       "bands => %s, rows => %s, singletons => %s%s)"
                       % (", ord" if with_ord else "", t, sql_lit(bands), sql_lit(rows), singletons,
                          mode_arg(mode)), LATER)
            self.check("mh_clusters_bands_rel", "SELECT * FROM minhash_clusters('d', 'id', 's', %s, "
                       "order_column => %s, bands => %s, rows => %s, singletons => %s%s)"
                       % (t, "'ord'" if with_ord else "NULL", sql_lit(bands), sql_lit(rows), singletons,
                          mode_arg(mode)), LATER)
        self.super_r = rng.randint(-1, self.groups[0] + 1)
        self.check("super_pairs", "SELECT * FROM super_shingle_pairs('SELECT id, ss FROM d', %d)" % self.super_r,
                   LATER)
        self.lsh_checks()

    def lsh_checks(self):
        """minhash_lsh_ops with random options, queried at random thresholds."""
        rng = self.rng
        k = self.k
        r = rng.random()
        if r < 0.4:
            opts = "(threshold = %.2f)" % rng.uniform(0.01, 1.0)
        elif r < 0.8:
            b = rng.randint(1, k)
            opts = "(bands = %d, rows = %d)" % (b, rng.randint(1, k // b))
        else:
            opts = ""
        self.sql.append("CREATE INDEX ON d USING gin (s minhash_lsh_ops%s);" % opts)
        self.sql.append("SET enable_seqscan = off;")
        self.lsh_queries = []
        for q in range(3):
            qid = self.sketch_ids[rng.randrange(len(self.sketch_ids))] if self.sketch_ids else 0
            t = rng.choice(["0", "1", "%.2f" % rng.random(), "%.3f" % rng.uniform(0.2, 0.95)])
            form = rng.choice(["s <@ similar_to((SELECT s FROM d WHERE id = %d), %s)",
                               "similar(s, (SELECT s FROM d WHERE id = %d), %s)"]) % (qid, t)
            self.lsh_queries.append(("lsh_%d" % q, qid, float(t)))
            self.check("lsh_%d" % q, "SELECT id FROM d WHERE %s" % form, LATER)
        self.sql.append("RESET enable_seqscan;")

    def sketch_oracles(self, truth, truth_rows):
        """Fill in the sketch checks' expectations from the server's jaccard()."""
        pairs = []
        for row in truth:
            a, b, est, sa, sb, eq, la, lb = row
            pairs.append((int(a), int(b), est, float(est), sa == "t", sb == "t", int(eq), int(la), int(lb)))
        rows = {int(r[0]): (None if r[1] == "" else int(r[1]), r[2] == "t", r[3] == "t") for r in truth_rows}
        out = {}
        if not self.threshold_bad:
            t = float(self.threshold_sql)
            hit = [p for p in pairs if p[3] >= t]
            found = [(a, b, s) for a, b, s, *_ in hit]
            out["mh_pairs"] = out["mh_pairs_rel"] = ("rows", found)
            join = []
            for a, b, s, _, sa, sb, *_ in hit:
                if sa and not sb:
                    join.append((a, b, s))
                elif sb and not sa:
                    join.append((b, a, s))
            out["mh_join"] = ("rows", join)
            singletons, with_ord, mode = self.mh_params
            nodes = [i for i, r in rows.items() if r[2]]
            ords = {i: rows[i][0] for i in nodes}
            key = order_key(ords if with_ord else None, {i: i for i in nodes})
            cl = mode_rows(mode, nodes, [(a, b) for a, b, *_ in hit], singletons, key)
            out["mh_clusters"] = out["mh_clusters_rel"] = ("rows", cl)
            plan = band_plan(self.k, t, *self.bands, bool(nodes))
            if plan == "bad":
                out["mh_pairs_bands"] = out["mh_clusters_bands"] = ("22023", None)
            else:
                out["mh_pairs_bands"] = ("rows" if plan == "exact" else "subset", found)
                out["mh_clusters_bands"] = ("rows", cl)
        else:
            out["mh_pairs_bands"] = out["mh_clusters_bands"] = ("22023", None)
        out["mh_pairs_bands_rel"] = out["mh_pairs_bands"]
        out["mh_clusters_bands_rel"] = out["mh_clusters_bands"]
        # the LSH index answers exactly jaccard(s, q) >= t (a sketch resembles itself: 1)
        est = {}
        for a, b, _, e, *_ in pairs:
            est[(a, b)] = est[(b, a)] = e
        for name, qid, t in self.lsh_queries:
            if not self.sketch_ids:
                out[name] = ("rows", [])
                continue
            hits = [(i,) for i in rows if rows[i][2] and (1.0 if i == qid else est.get((i, qid), -1.0)) >= t]
            out[name] = ("rows", hits)
        if self.super_r < 1:
            out["super_pairs"] = ("22023", None)
        else:
            out["super_pairs"] = ("rows", [(a, b, eq) for a, b, _, _, _, _, eq, la, lb in pairs
                                           if la > 0 and lb > 0 and eq >= self.super_r])
        return out

    # -- running --------------------------------------------------------------

    def build(self):
        rng = self.rng
        self.sql.append("SET work_mem = '%s';" % rng.choice(["64kB", "128kB", "1MB", "4MB"]))
        self.simhash_data()
        self.simhash_checks()
        self.index_checks()
        self.sketch_data()
        self.sketch_checks()
        self.sql.append("DROP TABLE t, p, d;")
        self.sql.append("RESET work_mem;")
        return "\n".join(self.sql) + "\n"


CHK_FUNCTION = r"""
CREATE FUNCTION pg_temp.chk(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
	res text[];
BEGIN
	EXECUTE 'SELECT array_agg(x::text) FROM (' || q || ') x' INTO res;
	RETURN QUERY SELECT unnest(coalesce(res, '{}'));
EXCEPTION WHEN OTHERS THEN
	RETURN QUERY SELECT 'ERROR ' || SQLSTATE || ' ' || SQLERRM;
END $$;
"""


def parse_row(text):
    """A row as text, '(a,b,c)' or 'a', to a tuple of strings."""
    if text.startswith("(") and text.endswith(")"):
        return tuple(text[1:-1].split(","))
    return (text,)


def norm(rows):
    """Oracle rows to the server's text form, sorted."""
    out = []
    for row in rows:
        out.append(tuple("" if v is None else (v if isinstance(v, str) else str(v)) for v in row))
    return sorted(out)


def run_iteration(it, psql, out_dir):
    script = CHK_FUNCTION + it.build()
    proc = subprocess.run(psql + ["-X", "-q", "-A", "-t", "-F", "|", "-v", "ON_ERROR_STOP=1"],
                          input=script, capture_output=True, text=True)
    blocks = {}
    current = None
    for line in proc.stdout.splitlines():
        if line.startswith("@@ "):
            current = line[3:]
            blocks[current] = []
        elif current is not None:
            blocks[current].append(line)
    problems = []
    if proc.returncode != 0:
        problems.append("psql exited with %d: %s" % (proc.returncode, proc.stderr.strip()[-2000:]))
    else:
        truth = [line.split("|") for line in blocks.get("truth_sketch", [])]
        truth_rows = [line.split("|") for line in blocks.get("truth_rows", [])]
        sketch_expect = it.sketch_oracles(truth, truth_rows)
        for name, expect, oracle in it.checks:
            got = blocks.get(name)
            if got is None:
                problems.append("%s: no output" % name)
                continue
            if name in sketch_expect:
                expect, oracle = sketch_expect[name]
            errors = [g for g in got if g.startswith("ERROR ")]
            if errors:
                code = errors[0].split()[1]
                if code == expect:
                    it.stats["expected errors"] += 1
                    continue
                if code == "53200" and name in MAY_NEED_WORK_MEM:
                    it.stats["work_mem errors (53200)"] += 1
                    continue
                if (code == "54000" and name in ALL_PAIRS_REFUSED and it.spilled_sketches
                        and float(it.threshold_sql) == 0.0):
                    it.stats["all-pairs refusals (54000)"] += 1
                    continue
                problems.append("%s: %s (expected %s)" % (name, errors[0], expect))
                continue
            if expect not in ("rows", "subset"):
                problems.append("%s: returned %d rows, expected error %s" % (name, len(got), expect))
                continue
            got_rows = sorted(parse_row(g) for g in got)
            want = norm(oracle)
            if expect == "rows" and got_rows != want:
                missing = sorted(set(want) - set(got_rows))[:5]
                extra = sorted(set(got_rows) - set(want))[:5]
                problems.append("%s: %d rows, expected %d; missing e.g. %s; extra e.g. %s"
                                % (name, len(got_rows), len(want), missing, extra))
            elif expect == "subset":
                pool = {}
                for w in want:
                    pool[w] = pool.get(w, 0) + 1
                for g in got_rows:
                    if pool.get(g, 0) == 0:
                        problems.append("%s: row %s is not in the oracle's answer (or repeated)" % (name, g))
                        break
                    pool[g] -= 1
            it.stats["checked answers"] += 1
            it.stats["rows compared"] += len(got_rows)
    if problems:
        path = os.path.join(out_dir, "failed-%d.sql" % it.number)
        with open(path, "w") as f:
            f.write(script)
        raise Failure("iteration %d (SQL in %s):\n  %s" % (it.number, path, "\n  ".join(problems)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--iterations", type=int, default=0, help="0: until --seconds")
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--out", default=".")
    ap.add_argument("--psql", default="psql")
    args = ap.parse_args()

    psql = args.psql.split()
    stats = {"iterations": 0, "checked answers": 0, "rows compared": 0, "expected errors": 0,
             "work_mem errors (53200)": 0, "all-pairs refusals (54000)": 0}
    start = time.time()
    number = 0
    failures = 0
    while True:
        if args.iterations and number >= args.iterations:
            break
        if not args.iterations and time.time() - start >= args.seconds:
            break
        it = Iteration(random.Random("%d/%d" % (args.seed, number)), number, stats)
        try:
            run_iteration(it, psql, args.out)
        except Failure as e:
            failures += 1
            print("FAILED", e, flush=True)
            if failures >= 5:
                break
        number += 1
        stats["iterations"] = number
    print("srf_check: seed %d, %s, %d failed, %.0f s" % (
        args.seed, ", ".join("%s %d" % kv for kv in stats.items()), failures, time.time() - start))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
