#!/usr/bin/env bash
# Query latency of the sketch GIN indexes (docs/sketch-indexes.md), beside a
# sequential scan of the same queries in the same run.
#   test/bench/sketch_index_bench.sh [DATA_DIR]      (default ../shared/data)
# Environment: N (documents, default 1000000), QUERIES (index queries,
# default 1000), SEQ_QUERIES (sequential-scan queries, default 20).
# Runs a private temporary instance as the postgres user when started as
# root.  One backend, no parallel workers.  Latency is measured inside the
# server (clock_timestamp() around EXECUTE, planning included).  Prints:
#   1. min-hash LSH (minhash_lsh_ops, default options = design threshold
#      0.8: 26 bands of 4) on N synthetic k = 128 sketches, queries
#      "mh <@ similar_to(q, 0.8)": build time, index size, p50/p99 latency,
#      candidates per query, vs a sequential scan;
#   2. shingleset_ops on the Debian descriptions (~64K real documents),
#      "ss <@ containing(excerpt, 0.8)" (which documents contain >= 80 % of
#      the excerpt's shingles), vs a sequential scan.
#
# The N sketches are synthesised, not computed from text: N / 10 clusters
# of 10; member 0 has 128 pseudo-random 32-bit values (Python's random,
# seed 42), member j > 0 is member 0 with m positions replaced, m drawn
# around (1 - s_j) * 128 for s_j in 0.98, 0.95, 0.9, 0.85, 0.8, 0.75, 0.7,
# 0.6, 0.4: the estimate's distribution for a pair of resemblance s_j
# (k independent permutations agree at each position with probability r).
# They are loaded with COPY (FORMAT binary) in minhash_sketch's binary form.

source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"
DATA=$(cd "${1:-$NDDUP_ROOT/../shared/data}" && pwd)
N=${N:-1000000}
QUERIES=${QUERIES:-1000}
SEQ_QUERIES=${SEQ_QUERIES:-20}

ensure_packages
build_and_install
make_workdir
start_instance
echo "== $(date -u +%F), $(nproc) cores, $(psql --version | head -1), N=$N"
pg_sql -c "CREATE EXTENSION nddup"
pg_sql -c "ALTER SYSTEM SET maintenance_work_mem = '1GB'" -c "ALTER SYSTEM SET max_parallel_workers_per_gather = 0" \
	-c "ALTER SYSTEM SET jit = off" -c "SELECT pg_reload_conf()" >/dev/null

cat >"$WORKDIR/gen.py" <<'PY'
import random, struct, sys
n = int(sys.argv[1])
k = 128
rng = random.Random(42)
levels = [0.98, 0.95, 0.9, 0.85, 0.8, 0.75, 0.7, 0.6, 0.4]
out = sys.stdout.buffer
out.write(b"PGCOPY\n\xff\r\n\x00" + struct.pack(">ii", 0, 0))
# minhash_sketch binary form: version 1, kperm, 32 bits, flags 0, size 3, word, k, seed 0
header = struct.pack(">BBBBBBhi", 1, 0, 32, 0, 3, 0, k, 0)
row_head = struct.pack(">hi", 2, 8)
sketch_len = struct.pack(">i", len(header) + 4 * k)
def value():
    v = rng.getrandbits(32)
    return v if v != 0xFFFFFFFF else 0
base = None
for i in range(n):
    j = i % 10
    if j == 0:
        base = [value() for _ in range(k)]
        vals = base
    else:
        s = levels[j - 1]
        m = int(round(rng.gauss((1 - s) * k, (s * (1 - s) * k) ** 0.5)))
        m = max(0, min(k, m))
        vals = list(base)
        for p in rng.sample(range(k), m):
            vals[p] = value()
    out.write(row_head + struct.pack(">q", i) + sketch_len + header + struct.pack(">%dI" % k, *vals))
out.write(struct.pack(">h", -1))
PY

echo "== 1. minhash_lsh_ops, $N synthetic sketches (k = 128, kperm)"
pg_sql <<SQL
\timing on
CREATE TABLE lsh (id bigint, mh minhash_sketch);
\echo load:
\copy lsh FROM PROGRAM 'python3 $WORKDIR/gen.py $N' WITH (FORMAT binary)
ALTER TABLE lsh ADD PRIMARY KEY (id);
VACUUM ANALYZE lsh;
\echo index build (default options: threshold 0.8):
CREATE INDEX lsh_idx ON lsh USING gin (mh minhash_lsh_ops) WITH (fastupdate = off);
\timing off
SELECT * FROM minhash_lsh_geometry(128);
SELECT pg_size_pretty(pg_relation_size('lsh')) AS heap, pg_size_pretty(pg_relation_size('lsh_idx')) AS index;
CREATE TABLE q AS SELECT row_number() OVER () AS n, id, mh FROM lsh
	WHERE id IN (SELECT (hashint8(g) & x'7fffffff'::bigint) % $N FROM generate_series(1, $QUERIES) g) LIMIT $QUERIES;

CREATE FUNCTION run(sql text, nq int, OUT ms float8[], OUT rows bigint) LANGUAGE plpgsql AS \$\$
DECLARE
	r record;
	t0 timestamptz;
	c bigint;
BEGIN
	ms := '{}';
	rows := 0;
	FOR r IN SELECT mh FROM q ORDER BY n LIMIT nq LOOP
		t0 := clock_timestamp();
		EXECUTE sql INTO c USING r.mh;
		ms := ms || extract(epoch FROM clock_timestamp() - t0)::float8 * 1000;
		rows := rows + c;
	END LOOP;
END
\$\$;
CREATE FUNCTION pct(a float8[], p float8) RETURNS float8 LANGUAGE sql AS
	\$\$SELECT percentile_cont(p) WITHIN GROUP (ORDER BY x) FROM unnest(a) x\$\$;

-- warm the cache, then measure
SELECT run('SELECT count(*) FROM lsh WHERE mh <@ similar_to(\$1, 0.8)', $QUERIES) IS NOT NULL AS warm;
CREATE TABLE res AS SELECT 'index' AS plan, * FROM run('SELECT count(*) FROM lsh WHERE mh <@ similar_to(\$1, 0.8)', $QUERIES);
SET enable_bitmapscan = off;
INSERT INTO res SELECT 'seq scan', * FROM run('SELECT count(*) FROM lsh WHERE mh <@ similar_to(\$1, 0.8)', $SEQ_QUERIES);
RESET enable_bitmapscan;
-- the same queries by the index, restricted to the seq-scan ones: equal answers
INSERT INTO res SELECT 'index, same queries', * FROM run('SELECT count(*) FROM lsh WHERE mh <@ similar_to(\$1, 0.8)', $SEQ_QUERIES);
SELECT plan, cardinality(ms) AS queries, round(pct(ms, 0.5)::numeric, 3) AS p50_ms,
	round(pct(ms, 0.99)::numeric, 3) AS p99_ms, round((SELECT avg(x) FROM unnest(ms) x)::numeric, 3) AS mean_ms,
	round(rows::numeric / cardinality(ms), 2) AS rows_per_query
FROM res;
\echo one query, EXPLAIN ANALYZE (candidates = rows + rows removed by recheck):
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF)
SELECT count(*) FROM lsh WHERE mh <@ similar_to((SELECT mh FROM q WHERE n = 1), 0.8);
DROP TABLE lsh, res;
SQL

echo "== 2. shingleset_ops, Debian descriptions, containment >= 0.8 of an excerpt"
pg_sql <<SQL
CREATE TABLE debian (id integer, package text, body text);
\copy debian FROM PROGRAM 'zcat $DATA/debian-descriptions-en.tsv.gz | tail -n +2'
\timing on
CREATE TABLE docs AS SELECT id, shingle_set(body) AS ss FROM debian;
\echo index build:
CREATE INDEX docs_ss_idx ON docs USING gin (ss) WITH (fastupdate = off);
\timing off
VACUUM ANALYZE docs;
SELECT count(*) AS docs, round(avg(cardinality(ss))) AS avg_shingles,
	pg_size_pretty(pg_total_relation_size('docs') - pg_relation_size('docs_ss_idx')) AS heap,
	pg_size_pretty(pg_relation_size('docs_ss_idx')) AS index FROM docs;
-- the queries: the first half of the words of 1,000 descriptions of 40+ words
DROP TABLE q;
CREATE TABLE q AS
SELECT row_number() OVER () AS n, shingle_set(array_to_string((w)[1:cardinality(w) / 2], ' ')) AS mh
FROM (SELECT id, regexp_split_to_array(body, '\s+') AS w FROM debian
	  WHERE id % 50 = 7) d WHERE cardinality(w) >= 40 LIMIT $QUERIES;
SELECT count(*) AS queries FROM q;
SELECT run('SELECT count(*) FROM docs WHERE ss <@ containing(\$1, 0.8)', $QUERIES) IS NOT NULL AS warm;
CREATE TABLE res AS SELECT 'index' AS plan, * FROM run('SELECT count(*) FROM docs WHERE ss <@ containing(\$1, 0.8)', $QUERIES);
SET enable_bitmapscan = off;
INSERT INTO res SELECT 'seq scan', * FROM run('SELECT count(*) FROM docs WHERE ss <@ containing(\$1, 0.8)', 100);
RESET enable_bitmapscan;
INSERT INTO res SELECT 'index, same queries', * FROM run('SELECT count(*) FROM docs WHERE ss <@ containing(\$1, 0.8)', 100);
SELECT plan, cardinality(ms) AS queries, round(pct(ms, 0.5)::numeric, 3) AS p50_ms,
	round(pct(ms, 0.99)::numeric, 3) AS p99_ms, round((SELECT avg(x) FROM unnest(ms) x)::numeric, 3) AS mean_ms,
	round(rows::numeric / cardinality(ms), 2) AS rows_per_query
FROM res;
\echo one query, EXPLAIN ANALYZE:
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF)
SELECT count(*) FROM docs WHERE ss <@ containing((SELECT mh FROM q WHERE n = 1), 0.8);
SQL
