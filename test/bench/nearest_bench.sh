#!/usr/bin/env bash
# Nearest-10 on 1M fingerprints (900K uniform + 10K sources with 10 variants
# each, 1-6 bits away): hamming_nearest() over the GIN radius index, the
# SP-GiST ordered scan, and the sequential scan, for the same queries in the
# same run.  Usage: test/bench/nearest_bench.sh [ROWS] [QUERIES]

source "$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/scripts/lib.sh"
ROWS=${1:-1000000}
NQ=${2:-50}

ensure_packages
build_and_install
make_workdir
start_instance
pg_sql -c "CREATE EXTENSION nddup"
pg_sql <<SQL
\timing on
CREATE TABLE fps (id bigint, fp simhash64);
-- uniform rows, then sources (every 10th of the first 10 % rows) with 10 variants each
INSERT INTO fps SELECT i, ('x' || substr(md5(i::text), 1, 16))::bit(64)::simhash64
	FROM generate_series(1, $ROWS * 9 / 10) i;
INSERT INTO fps
SELECT $ROWS * 9 / 10 + s * 10 + v,
	(src.fp::bigint # (SELECT bit_or(1::bigint << (get_byte(decode(md5(s || '/' || v), 'hex'), k) % 64))
		FROM generate_series(0, v % 6) k))::simhash64
FROM generate_series(1, $ROWS / 100) s, generate_series(0, 9) v, LATERAL (SELECT fp FROM fps WHERE id = s) src;
VACUUM ANALYZE fps;
CREATE INDEX fps_gin ON fps USING gin (fp simhash64_gin_ops) WITH (fastupdate = off);
-- the SP-GiST index on a copy: with both on one column the planner may serve
-- hamming_nearest's radius searches with the (slower) SP-GiST index
CREATE TABLE fps_spg AS SELECT * FROM fps;
VACUUM ANALYZE fps_spg;
CREATE INDEX fps_spgist ON fps_spg USING spgist (fp simhash64_spgist_ops);
SELECT pg_size_pretty(pg_relation_size('fps_gin')) AS gin_size, pg_size_pretty(pg_relation_size('fps_spgist')) AS spgist_size;
CREATE TABLE queries AS
	SELECT 'near' AS kind, q, fp AS query FROM generate_series(1, $NQ) q JOIN fps ON id = q * 7
	UNION ALL
	SELECT 'far', q, ('x' || md5('far' || q))::bit(64)::simhash64 FROM generate_series(1, $NQ) q;
CREATE FUNCTION bench(method text, kind text) RETURNS TABLE (p50_ms float8, p99_ms float8, tenth_distance float8)
LANGUAGE plpgsql AS \$\$
DECLARE c record; t0 timestamptz; ms float8[] := '{}'; d int; dist float8[] := '{}';
BEGIN
	-- SET LOCAL lasts until the end of the transaction: start from the defaults
	SET LOCAL enable_seqscan = on; SET LOCAL enable_indexscan = on; SET LOCAL enable_bitmapscan = on;
	IF method = 'seqscan' THEN SET LOCAL enable_indexscan = off; SET LOCAL enable_bitmapscan = off;
	ELSIF method = 'spgist' THEN SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off;
	END IF;
	FOR c IN SELECT query FROM queries WHERE queries.kind = bench.kind ORDER BY q LOOP
		t0 := clock_timestamp();
		IF method = 'hamming_nearest' THEN
			SELECT max(distance) INTO d FROM hamming_nearest('fps', 'id', 'fp', c.query, 10);
		ELSIF method = 'spgist' THEN
			SELECT max(x) INTO d FROM (SELECT fp <-> c.query AS x FROM fps_spg ORDER BY fp <-> c.query LIMIT 10) t;
		ELSE
			SELECT max(x) INTO d FROM (SELECT fp <-> c.query AS x FROM fps ORDER BY fp <-> c.query LIMIT 10) t;
		END IF;
		ms := ms || (extract(epoch FROM clock_timestamp() - t0) * 1000)::float8;
		dist := dist || d::float8;
	END LOOP;
	RETURN QUERY SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x), percentile_cont(0.99) WITHIN GROUP (ORDER BY x),
		(SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY y) FROM unnest(dist) y) FROM unnest(ms) x;
END \$\$;
SQL
echo "== nearest-10, $NQ queries each, $ROWS rows (p50/p99 in ms; tenth_distance = median distance of the 10th neighbour)"
pg_sql <<'SQL'
SET jit = off;
SET max_parallel_workers_per_gather = 0;
\pset footer off
WITH r AS (
	SELECT k.kind, m.method, b.* FROM (VALUES ('near'), ('far')) k(kind),
		(VALUES ('seqscan'), ('hamming_nearest'), ('spgist')) m(method),
		LATERAL bench(m.method, k.kind) b)
SELECT r.kind, r.method, round(r.p50_ms::numeric, 3) AS p50_ms, round(r.p99_ms::numeric, 3) AS p99_ms,
	r.tenth_distance, round((s.p50_ms / r.p50_ms)::numeric, 1) AS speedup_vs_seqscan
FROM r JOIN r s ON s.kind = r.kind AND s.method = 'seqscan'
ORDER BY r.kind DESC, r.method <> 'seqscan', r.method;
SQL
echo "machine: $(nproc) cores, PostgreSQL $(pg_config --version | cut -d' ' -f2), load: $(cut -d' ' -f1-3 /proc/loadavg)"
