--
-- simhash64_spgist_ops: exact nearest-n (ORDER BY fp <-> q LIMIT n) and
-- Hamming-ball (fp <@ ball(q, k)) search, checked against sequential scans.
-- All data is derived from hashes of generate_series (deterministic).
--
SET client_min_messages = warning;
SET max_parallel_workers_per_gather = 0;
SET jit = off;
-- shared functions: pg_temp.plan(query), pg_temp.compare_scans(query, index)
\getenv abs_srcdir PG_ABS_SRCDIR
\set helpers :abs_srcdir '/test/include/helpers.sql'
\set ECHO none
\i :helpers
\set ECHO all

-- flip k pseudo-random bits (chosen by seed; repeats flip fewer) of fp
CREATE FUNCTION pg_temp.flip(fp simhash64, seed bigint, k int) RETURNS simhash64
LANGUAGE sql IMMUTABLE AS $$
	SELECT (fp::bigint # coalesce((SELECT bit_or(1::bigint << (hashint8extended(seed * 64 + i, 7) & 63)::int)
								   FROM generate_series(1, k) i), 0))::simhash64
$$;

CREATE TABLE spg (id int PRIMARY KEY, fp simhash64);
-- uniform fingerprints
INSERT INTO spg SELECT g, hashint8extended(g, 1)::simhash64 FROM generate_series(1, 8000) g;
-- planted clusters: 25 sources with 20 variants each (1-6 bits), so the
-- 10th neighbour of a source is within 6 bits
INSERT INTO spg SELECT 20000 + g, pg_temp.flip(hashint8extended(g % 25 + 1, 1)::simhash64, g, 1 + g % 6)
FROM generate_series(1, 500) g;
-- planted pairs: 500 more sources with one variant each
INSERT INTO spg SELECT 21000 + g, pg_temp.flip(hashint8extended(g + 100, 1)::simhash64, g + 5000, 1 + g % 6)
FROM generate_series(1, 500) g;
-- repeated fingerprints: 2500 identical values and 2000 all-zero ones
-- (several leaf pages each: allTheSame tuples below the 64th bit)
INSERT INTO spg SELECT 22000 + g, 'a5a5a5a5a5a5a5a5' FROM generate_series(1, 2500) g;
INSERT INTO spg SELECT 25000 + g, '0000000000000000' FROM generate_series(1, 2000) g;
-- skewed: the high 36 bits zero; mostly-ones; few distinct low bytes
INSERT INTO spg SELECT 28000 + g, (hashint8extended(g, 2) & x'fffffff'::bigint)::simhash64
FROM generate_series(1, 1500) g;
INSERT INTO spg SELECT 31000 + g, pg_temp.flip('ffffffffffffffff', g + 9000, 1 + g % 8)
FROM generate_series(1, 500) g;
INSERT INTO spg SELECT 32000 + g, (x'1234567800000000'::bigint | (g % 7))::simhash64
FROM generate_series(1, 500) g;
-- NULLs
INSERT INTO spg SELECT 33000 + g, NULL FROM generate_series(1, 100) g;

CREATE INDEX spg_fp ON spg USING spgist (fp);
VACUUM ANALYZE spg;

-- queries: fresh random values, existing rows, variants of existing rows,
-- the repeated and skewed values
CREATE TEMP TABLE q (qid int PRIMARY KEY, q simhash64 NOT NULL);
INSERT INTO q SELECT g, hashint8extended(g, 99)::simhash64 FROM generate_series(1, 300) g;
INSERT INTO q SELECT 300 + row_number() OVER (ORDER BY id), fp FROM spg
WHERE fp IS NOT NULL AND id % 67 = 7 AND (id NOT BETWEEN 22000 AND 27000 OR id % 5 = 0)
ORDER BY id LIMIT 200;
INSERT INTO q SELECT 500 + g, hashint8extended(g, 1)::simhash64 FROM generate_series(1, 50) g;
INSERT INTO q SELECT 550 + g, pg_temp.flip(fp, g + 20000, 1 + (g % 4)::int)
FROM (SELECT row_number() OVER (ORDER BY id) AS g, fp FROM spg
	  	  WHERE fp IS NOT NULL AND id % 43 = 3 AND (id NOT BETWEEN 22000 AND 27000 OR id % 5 = 0)
	  ORDER BY id LIMIT 300) x;
INSERT INTO q SELECT 850 + g, pg_temp.flip('a5a5a5a5a5a5a5a5', g + 30000, g % 5) FROM generate_series(1, 15) g;
INSERT INTO q SELECT 865 + g, pg_temp.flip('0000000000000000', g + 31000, g % 5) FROM generate_series(1, 15) g;
INSERT INTO q SELECT 880 + g, (hashint8extended(g, 3) & x'ffffffff'::bigint)::simhash64 FROM generate_series(1, 30) g;
INSERT INTO q SELECT 910 + g, pg_temp.flip('ffffffffffffffff', g + 32000, g % 10) FROM generate_series(1, 30) g;
SELECT count(*) AS queries FROM q;

-- plans
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF)
SELECT id FROM spg ORDER BY fp <-> 'a5a5a5a5a5a5a5a5' LIMIT 10;
EXPLAIN (COSTS OFF)
SELECT id FROM spg WHERE fp <@ ball('a5a5a5a5a5a5a5a5', 3);
EXPLAIN (COSTS OFF)
SELECT id FROM spg WHERE fp <@ ball('a5a5a5a5a5a5a5a5', 3) ORDER BY fp <-> 'a5a5a5a5a5a5a5a5' LIMIT 5;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM spg WHERE fp = 'a5a5a5a5a5a5a5a5';
EXPLAIN (COSTS OFF)
SELECT fp FROM spg ORDER BY fp <-> '0000000000000000' LIMIT 10;
SET enable_indexscan = off;
SET enable_bitmapscan = on;
EXPLAIN (COSTS OFF)
SELECT id FROM spg WHERE fp <@ ball('a5a5a5a5a5a5a5a5', 3);
RESET enable_seqscan;
RESET enable_indexscan;
RESET enable_bitmapscan;

-- Checks, run before and after changes to the table.  Truth comes from
-- sequential scans; index results from index scans (plans made with the
-- settings of each function, as EXECUTE plans afresh).
CREATE TEMP TABLE knn_truth (qid int, d int[]);
CREATE TEMP TABLE ball_truth (qid int, r int, c bigint, sid numeric, hid bigint, sfp numeric, hfp bigint);
CREATE FUNCTION pg_temp.compute_truth() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	PERFORM set_config('enable_seqscan', 'on', true);
	PERFORM set_config('enable_indexscan', 'off', true);
	PERFORM set_config('enable_indexonlyscan', 'off', true);
	PERFORM set_config('enable_bitmapscan', 'off', true);
	TRUNCATE knn_truth, ball_truth;
	-- the 100 smallest distances
	EXECUTE $q$
		INSERT INTO knn_truth
		SELECT q.qid, ARRAY(SELECT s.fp <-> q.q FROM spg s WHERE s.fp IS NOT NULL ORDER BY 1 LIMIT 100)
		FROM q$q$;
	-- for each radius 0..16: count, sum and hash-sum of the ids and of the
	-- fingerprints within it
	EXECUTE $q$
		INSERT INTO ball_truth
		WITH a AS (SELECT q.qid, s.fp <-> q.q AS d, count(*) AS c, sum(s.id) AS sid,
						  sum(hashint4(s.id)) AS hid, sum(s.fp::bigint) AS sfp,
						  sum(hashint8(s.fp::bigint)) AS hfp
				   FROM q, spg s WHERE (s.fp <-> q.q) <= 16 GROUP BY 1, 2)
		SELECT q.qid, r.r, coalesce(sum(a.c), 0), coalesce(sum(a.sid), 0), coalesce(sum(a.hid), 0),
			   coalesce(sum(a.sfp), 0), coalesce(sum(a.hfp), 0)
		FROM q CROSS JOIN generate_series(0, 16) r(r) LEFT JOIN a ON a.qid = q.qid AND a.d <= r.r
		GROUP BY q.qid, r.r$q$;
END
$$;

-- nearest-n through the index: the distances (the multiset, in order) must
-- equal the truth's and the rows must be distinct
CREATE FUNCTION pg_temp.check_knn(index_only bool, ns int[])
RETURNS TABLE (n int, queries bigint, exact bigint, distinct_rows bigint, sum_of_nth_distance bigint)
LANGUAGE plpgsql AS $$
BEGIN
	PERFORM set_config('enable_seqscan', 'off', true);
	PERFORM set_config('enable_bitmapscan', 'off', true);
	PERFORM set_config('enable_indexonlyscan', index_only::text, true);
	RETURN QUERY EXECUTE format($q$
		SELECT n.n, count(*), count(*) FILTER (WHERE k.d = t.d[1:n.n]),
			   count(*) FILTER (WHERE k.nd = n.n), sum(k.d[n.n])
		FROM q JOIN knn_truth t USING (qid) CROSS JOIN unnest($1) n(n),
		LATERAL (SELECT array_agg(y.d ORDER BY y.rn) AS d, count(DISTINCT y.k) AS nd
				 FROM (SELECT x.fp <-> q.q AS d, %s AS k, row_number() OVER () AS rn
					   FROM (SELECT %s FROM spg s ORDER BY s.fp <-> q.q LIMIT n.n) x) y) k
		GROUP BY n.n ORDER BY n.n$q$,
		CASE WHEN index_only THEN 'row_number() OVER ()' ELSE 'x.ctid' END,
		CASE WHEN index_only THEN 's.fp' ELSE 's.ctid, s.fp' END) USING ns;
END
$$;

-- Hamming balls of radius 0..16: the rows must equal the truth's (by id
-- through index and bitmap scans; by fingerprint through index-only scans)
CREATE FUNCTION pg_temp.check_ball(scan text, step int)
RETURNS TABLE (queries bigint, exact bigint, rows numeric)
LANGUAGE plpgsql AS $$
BEGIN
	PERFORM set_config('enable_seqscan', 'off', true);
	PERFORM set_config('enable_indexscan', (scan <> 'bitmap')::text, true);
	PERFORM set_config('enable_indexonlyscan', (scan = 'index-only')::text, true);
	PERFORM set_config('enable_bitmapscan', (scan = 'bitmap')::text, true);
	RETURN QUERY EXECUTE format($q$
		SELECT count(*), count(*) FILTER (WHERE (b.c, b.s, b.h) = (t.c, %s)), sum(b.c)
		FROM q CROSS JOIN generate_series(0, 16, $1) r(r) JOIN ball_truth t USING (qid, r),
		LATERAL (SELECT count(*) AS c, coalesce(sum(%s), 0) AS s, coalesce(sum(%s), 0) AS h
				 FROM spg s WHERE s.fp <@ ball(q.q, r.r)) b$q$,
		CASE WHEN scan = 'index-only' THEN 't.sfp, t.hfp' ELSE 't.sid, t.hid' END,
		CASE WHEN scan = 'index-only' THEN 's.fp::bigint' ELSE 's.id' END,
		CASE WHEN scan = 'index-only' THEN 'hashint8(s.fp::bigint)' ELSE 'hashint4(s.id)' END)
	USING step;
END
$$;

SELECT pg_temp.compute_truth();
SELECT * FROM pg_temp.check_knn(false, '{1,10,100}');
SELECT * FROM pg_temp.check_knn(true, '{10}');
SELECT * FROM pg_temp.check_ball('index-only', 1);
SELECT * FROM pg_temp.check_ball('index', 8);
SELECT * FROM pg_temp.check_ball('bitmap', 8);

-- the 10th neighbour of a cluster source is within 6 bits
SELECT count(*) AS sources, max(t.d[10]) AS max_10th_distance
FROM q JOIN knn_truth t USING (qid)
WHERE q.q IN (SELECT hashint8extended(g, 1)::simhash64 FROM generate_series(1, 25) g);

-- the plans the checks use
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT * FROM pg_temp.plan($$SELECT n.n, (SELECT array_agg(x.d) FROM (SELECT s.fp <-> q.q AS d FROM spg s ORDER BY s.fp <-> q.q LIMIT n.n) x)
FROM q, (VALUES (1), (10), (100)) n(n)$$);
SELECT * FROM pg_temp.plan($$SELECT (SELECT count(*) FROM spg s WHERE s.fp <@ ball(q.q, r.r)) FROM q, generate_series(0, 16) r(r)$$);

-- equality, the repeated values, NULLs
SELECT count(*) FROM spg WHERE fp = 'a5a5a5a5a5a5a5a5';
SELECT count(*) FROM spg WHERE fp = '0000000000000000';
SELECT count(*) FROM spg WHERE fp = '1234567800000003';
SELECT count(*) FROM spg WHERE fp = '0123456789abcdef';
SELECT count(*) FROM spg WHERE fp <@ ball('0000000000000000', 0);
SELECT count(*) FROM spg WHERE fp IS NULL;
SELECT count(*) FROM spg WHERE fp IS NOT NULL;
-- nulls come last in the ordered scan
SELECT count(*) AS rows, count(*) FILTER (WHERE fp IS NULL) AS nulls,
	   bool_and(rn <= 16000 OR fp IS NULL) AS nulls_last
FROM (SELECT fp, row_number() OVER () AS rn
	  FROM (SELECT fp FROM spg ORDER BY fp <-> '0f0f0f0f0f0f0f0f') x) y;
-- the whole ordered scan is in distance order
SELECT bool_and(d >= prev) AS ordered, count(*) AS rows
FROM (SELECT d, lag(d, 1, 0) OVER () AS prev
	  FROM (SELECT fp <-> '0f0f0f0f0f0f0f0f' AS d FROM spg WHERE fp IS NOT NULL
			ORDER BY fp <-> '0f0f0f0f0f0f0f0f') x) y;
RESET enable_seqscan;
RESET enable_bitmapscan;

-- after DELETE, UPDATE, INSERT and VACUUM
DELETE FROM spg WHERE id % 5 = 0;
UPDATE spg SET fp = pg_temp.flip(fp, id + 40000, 2) WHERE id % 7 = 1 AND fp IS NOT NULL;
UPDATE spg SET fp = NULL WHERE id % 11 = 2;
INSERT INTO spg SELECT 40000 + g, 'a5a5a5a5a5a5a5a4' FROM generate_series(1, 1500) g;
INSERT INTO spg SELECT 42000 + g, hashint8extended(g, 4)::simhash64 FROM generate_series(1, 2000) g;
VACUUM spg;
INSERT INTO spg SELECT 46000 + g, pg_temp.flip('a5a5a5a5a5a5a5a5', g + 50000, g % 3) FROM generate_series(1, 1000) g;
SELECT count(*) FROM spg WHERE fp = 'a5a5a5a5a5a5a5a4';
SELECT count(*) FROM spg WHERE fp IS NULL;

SELECT pg_temp.compute_truth();
SELECT * FROM pg_temp.check_knn(false, '{1,10,100}');
SELECT * FROM pg_temp.check_ball('index-only', 2);
SELECT * FROM pg_temp.check_ball('bitmap', 8);

-- an index built on the final contents answers the same
DROP INDEX spg_fp;
CREATE INDEX spg_fp ON spg USING spgist (fp);
SELECT * FROM pg_temp.check_knn(false, '{10}');
SELECT * FROM pg_temp.check_ball('index-only', 2);

-- a null query is not a match
SELECT count(*) FROM spg WHERE fp <@ NULL::hamming_ball;
SELECT count(*) FROM (SELECT fp FROM spg ORDER BY fp <-> NULL LIMIT 5) x;
-- an empty index, and one with nulls
CREATE TABLE spg_empty (fp simhash64);
CREATE INDEX ON spg_empty USING spgist (fp);
SELECT * FROM spg_empty ORDER BY fp <-> '0000000000000000' LIMIT 3;
INSERT INTO spg_empty VALUES (NULL), ('0000000000000001'), (NULL);
SELECT fp FROM spg_empty ORDER BY fp <-> '0000000000000000';

DROP TABLE spg, spg_empty;
