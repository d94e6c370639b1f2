#!/usr/bin/env bash
# Query latency of the sketch GIN indexes (docs/sketch-indexes.md), beside a
# sequential scan of the same queries in the same run.
#   test/bench/sketch_index_bench.sh [DATA_DIR]      (default ../shared/data)
# Environment: NDDUP_SHARED_BUFFERS (default 256MB), N (documents, default 1000000), QUERIES (index queries,
# default 1000), SEQ_QUERIES (sequential-scan queries, default 20), PARTS
# (which of the parts below to run, default "1 2 3"), THRESHOLDS (design
# thresholds of part 3, default "0.8 0.5 0.3 0.25").
# Runs a private temporary instance as the postgres user when started as
# root.  One backend, no parallel workers.  Latency is measured inside the
# server (clock_timestamp() around EXECUTE, planning included).  Prints:
#   1. min-hash LSH (minhash_lsh_ops(threshold = 0.8): 26 bands of 4) on N
#      synthetic k = 128 sketches, queries "mh <@ similar_to(q, 0.8)": build
#      time, index size, p50/p99 latency, candidates per query, vs a
#      sequential scan;
#   2. shingleset_ops on the Debian descriptions (~64K real documents),
#      "ss <@ containing(excerpt, 0.8)" (which documents contain >= 80 % of
#      the excerpt's shingles), vs a sequential scan;
#   3. min-hash LSH on real text, by design threshold: minhash(body) of the
#      Debian descriptions, one index per design threshold t, queried by
#      "mh <@ similar_to(q, t)", "mh <@ similar_to(q, 0.8)" and "mh % q" at
#      nddup.similarity_threshold = t (min(QUERIES, 500) queries: the
#      documents with id % 128 = 5), vs a sequential scan; then "mh % q" at
#      each t against an index of design threshold 0.8 (a full index scan
#      when t < 0.8).  Candidates = answers + rows removed by the recheck
#      (EXPLAIN ANALYZE of the first 100 queries).
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
PARTS=${PARTS:-1 2 3}
THRESHOLDS=${THRESHOLDS:-0.8 0.5 0.3 0.25}
part() { [[ " $PARTS " == *" $1 "* ]]; }

ensure_packages
build_and_install
make_workdir
start_instance
echo "== $(date -u +%F), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(psql --version | head -1), N=$N"
pg_sql -c "CREATE EXTENSION nddup"
pg_sql -c "ALTER SYSTEM SET maintenance_work_mem = '1GB'" -c "ALTER SYSTEM SET max_parallel_workers_per_gather = 0" \
	-c "ALTER SYSTEM SET jit = off" -c "SELECT pg_reload_conf()" >/dev/null

# latencies (ms) of the first nq queries of table q (n, mh), and the total of their count(*) answers
pg_sql <<SQL
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
SQL

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

if part 1; then
echo "== 1. minhash_lsh_ops, $N synthetic sketches (k = 128, kperm)"
pg_sql <<SQL
\timing on
CREATE TABLE lsh (id bigint, mh minhash_sketch);
\echo load:
\copy lsh FROM PROGRAM 'python3 $WORKDIR/gen.py $N' WITH (FORMAT binary)
ALTER TABLE lsh ADD PRIMARY KEY (id);
VACUUM ANALYZE lsh;
\echo index build (threshold 0.8):
CREATE INDEX lsh_idx ON lsh USING gin (mh minhash_lsh_ops(threshold = 0.8)) WITH (fastupdate = off);
\timing off
SELECT * FROM minhash_lsh_geometry(128, 32, 0.8);
SELECT pg_size_pretty(pg_relation_size('lsh')) AS heap, pg_size_pretty(pg_relation_size('lsh_idx')) AS index;
CREATE TABLE q AS SELECT row_number() OVER () AS n, id, mh FROM lsh
	WHERE id IN (SELECT (hashint8(g) & x'7fffffff'::bigint) % $N FROM generate_series(1, $QUERIES) g) LIMIT $QUERIES;

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
DROP TABLE lsh, res, q;
SQL
fi

if part 2; then
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
DROP TABLE docs, res, q;
SQL
fi

if part 3; then
echo "== 3. minhash_lsh_ops on real text (Debian descriptions, minhash(body)), by design threshold"
pg_sql <<SQL
SET client_min_messages = warning;
CREATE TABLE IF NOT EXISTS debian (id integer, package text, body text);
SQL
[ "$(pg_sql -At -c 'SELECT count(*) FROM debian')" != 0 ] ||
	pg_sql -c "\\copy debian FROM PROGRAM 'zcat $DATA/debian-descriptions-en.tsv.gz | tail -n +2'"
pg_sql <<SQL
CREATE TABLE mdocs AS SELECT id, minhash(body) AS mh FROM debian;
ALTER TABLE mdocs ADD PRIMARY KEY (id);
VACUUM ANALYZE mdocs;
CREATE TABLE q AS SELECT row_number() OVER (ORDER BY id) AS n, mh FROM mdocs WHERE id % 128 = 5 LIMIT least($QUERIES, 500);
CREATE TABLE res3 (design float8, plan text, queries int, p50 float8, p99 float8, mean float8,
	answers float8, candidates float8);
CREATE TABLE build3 (design float8, bands int, "rows" int, build_s float8, index_mb float8);
-- mean candidates per query of the bitmap heap scan (answers + rows removed by the recheck)
CREATE FUNCTION cands(sql text, nq int) RETURNS float8 LANGUAGE plpgsql AS \$\$
DECLARE r record; p json; s json; tot float8 := 0; cnt int := 0;
BEGIN
	FOR r IN SELECT mh FROM q ORDER BY n LIMIT nq LOOP
		EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON, TIMING OFF) ' || sql INTO p USING r.mh;
		s := p->0->'Plan'->'Plans'->0;		-- Aggregate -> Bitmap Heap Scan
		IF s->>'Node Type' <> 'Bitmap Heap Scan' THEN
			RAISE EXCEPTION 'unexpected plan %', s->>'Node Type';
		END IF;
		tot := tot + (s->>'Actual Rows')::float8 + coalesce((s->>'Rows Removed by Index Recheck')::float8, 0);
		cnt := cnt + 1;
	END LOOP;
	RETURN tot / cnt;
END \$\$;
-- nq queries of sql (after 50 to warm the cache) recorded as plan under design threshold t
CREATE FUNCTION measure(t float8, plan text, sql text, nq int, with_cands boolean) RETURNS void
LANGUAGE plpgsql AS \$\$
DECLARE m record;
BEGIN
	PERFORM run(sql, least(nq, 50));
	SELECT * INTO m FROM run(sql, nq);
	INSERT INTO res3 VALUES (t, plan, cardinality(m.ms), pct(m.ms, 0.5), pct(m.ms, 0.99),
		(SELECT avg(x) FROM unnest(m.ms) x), m.rows::float8 / cardinality(m.ms),
		CASE WHEN with_cands THEN cands(sql, least(nq, 100)) END);
END \$\$;
SELECT count(*) AS documents, (SELECT count(*) FROM q) AS queries FROM mdocs;
SQL
for t in $THRESHOLDS; do
	echo "   design threshold $t"
	pg_sql <<SQL
SET client_min_messages = warning;
DO \$\$
DECLARE t0 timestamptz := clock_timestamp();
BEGIN
	CREATE INDEX mdocs_idx ON mdocs USING gin (mh minhash_lsh_ops(threshold = $t)) WITH (fastupdate = off);
	INSERT INTO build3 SELECT $t, g.bands, g.rows, extract(epoch FROM clock_timestamp() - t0),
		pg_relation_size('mdocs_idx') / 1048576.0 FROM minhash_lsh_geometry(128, 32, $t) g;
END \$\$;
SELECT measure($t, 'index, similar_to(q, t)', 'SELECT count(*) FROM mdocs WHERE mh <@ similar_to(\$1, $t)', 500, true);
SELECT measure($t, 'index, similar_to(q, 0.8)', 'SELECT count(*) FROM mdocs WHERE mh <@ similar_to(\$1, 0.8)', 500, true)
	WHERE $t < 0.8;
SET nddup.similarity_threshold = $t;
SELECT measure($t, 'index, % at t', 'SELECT count(*) FROM mdocs WHERE mh % \$1', 500, false);
SET enable_bitmapscan = off;
SELECT measure($t, 'seq scan, similar_to(q, t)', 'SELECT count(*) FROM mdocs WHERE mh <@ similar_to(\$1, $t)', $SEQ_QUERIES, false);
RESET enable_bitmapscan;
DROP INDEX mdocs_idx;
SQL
done
pg_sql <<SQL
SET client_min_messages = warning;
CREATE INDEX mdocs_idx ON mdocs USING gin (mh minhash_lsh_ops(threshold = 0.8)) WITH (fastupdate = off);
$(for t in $THRESHOLDS; do echo "SET nddup.similarity_threshold = $t;
SELECT measure($t, 'index of design 0.8, % at t', 'SELECT count(*) FROM mdocs WHERE mh % \$1', $SEQ_QUERIES, true);"; done)
SELECT design, bands, "rows", round(build_s::numeric, 1) AS build_s, round(index_mb::numeric, 1) AS index_mb
FROM build3 ORDER BY design DESC;
SELECT design, plan, queries, round(p50::numeric, 3) AS p50_ms, round(p99::numeric, 3) AS p99_ms,
	round(mean::numeric, 3) AS mean_ms, round(answers::numeric, 2) AS answers_per_query,
	round(candidates::numeric, 1) AS candidates_per_query
FROM res3 ORDER BY design DESC, plan;
SQL
fi
