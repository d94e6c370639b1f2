-- Helper SQL for test/bench/knn_bench.sh: data, index build, timed queries.
-- psql variables: rows (total rows), sources (cluster sources), nq (queries
-- per set), nq_seq (queries per set also run as sequential scans).
\set ON_ERROR_STOP 1
SET max_parallel_workers_per_gather = 0;
SET jit = off;
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS nddup;

-- 90 % uniform random fingerprints; 10 % planted variants, 1-6 bits away
-- from one of :sources source rows (ids 1..:sources), :rows/10/:sources each
DROP TABLE IF EXISTS fps;
CREATE TABLE fps (id int, fp simhash64);
INSERT INTO fps SELECT g, hashint8extended(g, 1)::simhash64
FROM generate_series(1, :rows - :rows / 10) g;
INSERT INTO fps
SELECT :rows - :rows / 10 + g,
	   (hashint8extended((g - 1) % :sources + 1, 1) #
		(SELECT bit_or(1::bigint << (hashint8extended(g::bigint * 8 + i, 7) & 63)::int)
		 FROM generate_series(1, 1 + g % 6) i))::simhash64
FROM generate_series(1, :rows / 10) g;
VACUUM ANALYZE fps;

-- build
CREATE TEMP TABLE result (what text, value numeric, unit text);
DO $$
DECLARE t0 timestamptz := clock_timestamp();
BEGIN
	CREATE INDEX fps_spg ON fps USING spgist (fp);
	INSERT INTO result VALUES ('build', extract(epoch FROM clock_timestamp() - t0), 's');
END $$;
INSERT INTO result VALUES
	('index size', pg_relation_size('fps_spg') / 1048576.0, 'MB'),
	('table size', pg_relation_size('fps') / 1048576.0, 'MB');
VACUUM fps;

-- query sets: cluster sources (their 10th neighbour is within 6 bits),
-- planted variants (existing rows) and fresh random values
CREATE TEMP TABLE q (kind text, qno int, q simhash64);
INSERT INTO q SELECT 'source', row_number() OVER (ORDER BY id), fp FROM fps
WHERE id <= :sources AND id % (:sources / :nq) = 1 ORDER BY id LIMIT :nq;
INSERT INTO q SELECT 'planted', row_number() OVER (ORDER BY id), fp FROM fps
WHERE id > :rows - :rows / 10 AND id % (:rows / 10 / :nq) = 3 ORDER BY id LIMIT :nq;
INSERT INTO q SELECT 'random', g, hashint8extended(g, 99)::simhash64 FROM generate_series(1, :nq) g;

-- run one statement per query, timing each one inside the server
CREATE TEMP TABLE lat (method text, test text, kind text, qno int, ms float8, d int[]);
CREATE FUNCTION pg_temp.run(method text, test text, sql text, maxq int) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
	r record;
	t0 timestamptz;
	d int[];
BEGIN
	PERFORM set_config('enable_indexscan', (method = 'index')::text, true);
	PERFORM set_config('enable_indexonlyscan', (method = 'index')::text, true);
	PERFORM set_config('enable_bitmapscan', (method = 'index')::text, true);
	PERFORM set_config('enable_seqscan', (method <> 'index')::text, true);
	FOR r IN SELECT * FROM q WHERE qno <= maxq ORDER BY kind, qno LOOP
		t0 := clock_timestamp();
		EXECUTE sql INTO d USING r.q;
		INSERT INTO lat VALUES (method, test, r.kind, r.qno,
								extract(epoch FROM clock_timestamp() - t0) * 1000, d);
	END LOOP;
END $$;

-- warm the caches
SELECT count(*) FROM fps;
SELECT pg_temp.run('index', 'warm-up', 'SELECT array_agg(fp <-> $1) FROM (SELECT fp FROM fps ORDER BY fp <-> $1 LIMIT 10) x', 10);

SELECT pg_temp.run(m, 'nearest-10',
	'SELECT array_agg(d ORDER BY d) FROM (SELECT fp <-> $1 AS d FROM fps ORDER BY fp <-> $1 LIMIT 10) x',
	CASE m WHEN 'index' THEN :nq ELSE :nq_seq END)
FROM unnest(ARRAY['index', 'seq']) m;
-- nearest-10 among the rows within 8 bits (a near-duplicate lookup)
SELECT pg_temp.run(m, 'nearest-10 within 8',
	'SELECT array_agg(d ORDER BY d) FROM (SELECT fp <-> $1 AS d FROM fps WHERE fp <@ ball($1, 8) ORDER BY fp <-> $1 LIMIT 10) x',
	CASE m WHEN 'index' THEN :nq ELSE :nq_seq END)
FROM unnest(ARRAY['index', 'seq']) m;
SELECT pg_temp.run(m, 'radius ' || k,
	format('SELECT array_agg(fp <-> $1 ORDER BY fp <-> $1) FROM fps WHERE fp <@ ball($1, %s)', k),
	CASE m WHEN 'index' THEN :nq ELSE :nq_seq END)
FROM unnest(ARRAY['index', 'seq']) m, unnest(ARRAY[3, 6]) k;

\echo
\echo == build
SELECT what, round(value, 2) AS value, unit FROM result;
\echo == latency per query (ms); seq = the same statement with index scans disabled
SELECT test, kind, method, count(*) AS queries,
	   round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)::numeric, 3) AS p50,
	   round(percentile_cont(0.99) WITHIN GROUP (ORDER BY ms)::numeric, 3) AS p99,
	   round(avg(ms)::numeric, 3) AS mean,
	   round(avg(d[10])::numeric, 1) AS avg_10th_dist,
	   max(d[10]) AS max_10th_dist,
	   round(avg(cardinality(d))::numeric, 1) AS avg_rows
FROM lat WHERE test <> 'warm-up'
GROUP BY test, kind, method ORDER BY test, kind, method DESC;
\echo == index vs sequential scan over the queries run both ways
SELECT i.test, i.kind, count(*) AS queries,
	   round((percentile_cont(0.5) WITHIN GROUP (ORDER BY s.ms) /
			  percentile_cont(0.5) WITHIN GROUP (ORDER BY i.ms))::numeric, 2) AS seq_over_index_p50,
	   round((avg(s.ms) / avg(i.ms))::numeric, 2) AS seq_over_index_mean,
	   round(avg((i.ms <= s.ms)::int)::numeric, 3) AS share_index_not_slower,
	   round(avg((coalesce(i.d, '{}') = coalesce(s.d, '{}'))::int)::numeric, 4) AS recall
FROM lat i JOIN lat s USING (test, kind, qno)
WHERE i.method = 'index' AND s.method = 'seq'
GROUP BY i.test, i.kind ORDER BY i.test, i.kind;
