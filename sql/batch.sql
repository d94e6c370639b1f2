--
-- Batch near-duplicate detection: hamming_pairs,
-- hamming_join, hamming_clusters, clusters_from_pairs, hamming_assign.
-- Every answer is compared with a brute-force SQL computation.
--

-- 2,500 md5 fingerprints, 700 planted variants (1-8 bits flipped, some
-- variants of variants) and 60 exact copies: deterministic, no random()
CREATE TABLE bt (id bigint, fp simhash64);
INSERT INTO bt
SELECT g, ('x' || substr(md5('bt' || g), 1, 16))::bit(64)::bigint::simhash64
FROM generate_series(1, 2500) g;
CREATE FUNCTION flips(seed text, n integer) RETURNS bigint
LANGUAGE sql IMMUTABLE AS $$
	SELECT bit_or(1::bigint << (get_byte(decode(md5(seed || '/' || i), 'hex'), 0) % 64))
	FROM generate_series(1, n) i
$$;
INSERT INTO bt
SELECT 100000 + g, (b.fp::bigint # flips('v' || g, 1 + g % 8))::simhash64
FROM generate_series(1, 500) g JOIN bt b ON b.id = 1 + (g * 7) % 2500;
INSERT INTO bt
SELECT 200000 + g, (b.fp::bigint # flips('w' || g, 1 + g % 5))::simhash64
FROM generate_series(1, 200) g JOIN bt b ON b.id = 100000 + 1 + (g * 3) % 500;
INSERT INTO bt
SELECT 300000 + g, b.fp FROM generate_series(1, 60) g JOIN bt b ON b.id = g * 41;
SELECT count(*), count(DISTINCT fp) FROM bt;

-- the truth: every pair within 20 bits, by a plain self-join
CREATE TABLE truth AS
SELECT a.id AS id1, b.id AS id2, a.fp <-> b.fp AS distance
FROM bt a JOIN bt b ON a.id < b.id AND a.fp <-> b.fp <= 20;
SELECT distance <= 3 AS le3, distance <= 6 AS le6, distance <= 12 AS le12, count(*)
FROM truth GROUP BY 1, 2, 3 ORDER BY 1, 2, 3;

-- missing and extra pairs (EXCEPT ALL: a pair reported twice is extra)
CREATE FUNCTION pairs_diff(r integer) RETURNS TABLE (radius integer, found bigint, missing bigint, extra bigint)
LANGUAGE sql AS $$
	WITH got AS (SELECT * FROM hamming_pairs('SELECT id, fp FROM bt', r)),
	t AS (SELECT * FROM truth WHERE distance <= r)
	SELECT r, (SELECT count(*) FROM got),
		(SELECT count(*) FROM (TABLE t EXCEPT ALL TABLE got) x),
		(SELECT count(*) FROM (TABLE got EXCEPT ALL TABLE t) y)
$$;

-- layouts chosen by the cost model
SELECT d.* FROM unnest(ARRAY[0, 1, 3, 6, 12, 20]) r, pairs_diff(r) d;

-- forced layouts: m blocks, tables choose m - radius of them
SET nddup.batch_blocks = 4;
SELECT * FROM pairs_diff(3);
SET nddup.batch_blocks = 5;
SELECT * FROM pairs_diff(3);
SET nddup.batch_blocks = 7;
SELECT * FROM pairs_diff(3);
SELECT * FROM pairs_diff(6);
SET nddup.batch_blocks = 9;
SELECT * FROM pairs_diff(6);
SET nddup.batch_blocks = 13;
SELECT * FROM pairs_diff(12);
SET nddup.batch_blocks = 15;
SELECT * FROM pairs_diff(12);
SET nddup.batch_blocks = 21;
SELECT * FROM pairs_diff(20);
SET nddup.batch_blocks = 22;
SELECT * FROM pairs_diff(20);
SET nddup.batch_blocks = 6;
SELECT * FROM pairs_diff(3);
-- 64 one-bit blocks at radius 62: 2,016 tables with 2-bit prefixes
SET nddup.batch_blocks = 64;
SELECT count(*) AS differences FROM (
	(SELECT * FROM hamming_pairs('SELECT id, fp FROM bt WHERE id <= 80', 62)
	 EXCEPT ALL SELECT a.id, b.id, a.fp <-> b.fp FROM bt a JOIN bt b
		ON a.id < b.id AND a.id <= 80 AND b.id <= 80 AND a.fp <-> b.fp <= 62)
	UNION ALL
	(SELECT a.id, b.id, a.fp <-> b.fp FROM bt a JOIN bt b
		ON a.id < b.id AND a.id <= 80 AND b.id <= 80 AND a.fp <-> b.fp <= 62
	 EXCEPT ALL SELECT * FROM hamming_pairs('SELECT id, fp FROM bt WHERE id <= 80', 62))) d;
SET nddup.batch_blocks = 3;
SELECT * FROM pairs_diff(3);  -- error: not more blocks than the radius
RESET nddup.batch_blocks;

-- the relation form, with identifiers that need quoting
CREATE TABLE "Batch Docs" ("Doc Id" integer, "Finger Print" simhash64);
INSERT INTO "Batch Docs" SELECT id::integer, fp FROM bt WHERE id < 200000;
SELECT count(*) FROM hamming_pairs('"Batch Docs"', 'Doc Id', 'Finger Print', 3);
SELECT count(*) FROM truth WHERE distance <= 3 AND id2 < 200000;

-- edge cases
SELECT * FROM hamming_pairs('SELECT 1::bigint, NULL::simhash64 WHERE false', 3);
SELECT * FROM hamming_pairs('SELECT 1, ''0000000000000000''::simhash64', 3);
SELECT * FROM hamming_pairs($$SELECT * FROM (VALUES
	(1, '0000000000000000'::simhash64), (NULL, '0000000000000000'),
	(2, NULL), (3, '0000000000000007'), (4, '00000000000000ff')) v$$, 3)
ORDER BY 1, 2;
-- all rows identical: 300 * 299 / 2 pairs
SELECT count(*), min(distance), max(distance)
FROM hamming_pairs('SELECT g, ''0123456789abcdef''::simhash64 FROM generate_series(1, 300) g', 3);
-- repeated ids are reported as given (id1 = id2 when a pair repeats an id)
SELECT * FROM hamming_pairs($$SELECT * FROM (VALUES
	(5::smallint, '00000000000000f0'::simhash64), (5, '00000000000000f0'),
	(5, '00000000000000f1'), (2, '00000000000000f3')) v$$, 2)
ORDER BY 1, 2, 3;

-- errors
SELECT * FROM hamming_pairs('SELECT id, fp FROM bt', -1);
SELECT * FROM hamming_pairs('SELECT id, fp FROM bt', 65);
SELECT * FROM hamming_pairs('not a query', 3);
SELECT * FROM hamming_pairs('DELETE FROM bt RETURNING id, fp', 3);
SELECT * FROM hamming_pairs('SELECT 1; SELECT 2', 3);
SELECT * FROM hamming_pairs('', 3);
SELECT * FROM hamming_pairs('SELECT id FROM bt', 3);
SELECT * FROM hamming_pairs('SELECT id, fp, fp FROM bt', 3);
SELECT * FROM hamming_pairs('SELECT id::text, fp FROM bt', 3);
SELECT * FROM hamming_pairs('SELECT id, fp::bigint FROM bt', 3);
SELECT * FROM hamming_pairs('SELECT id, fp FROM no_such_table', 3);
SELECT * FROM hamming_pairs('no_such_table', 'id', 'fp', 3);
SELECT * FROM hamming_pairs('bt', 'no_such_column', 'fp', 3);
SELECT * FROM hamming_pairs('bt', 'fp', 'id', 3);
SELECT count(*) FROM bt;  -- the DELETE above did not run

-- similarity join: even ids against odd ids
CREATE FUNCTION join_diff(r integer) RETURNS TABLE (radius integer, found bigint, missing bigint, extra bigint)
LANGUAGE sql AS $$
	WITH got AS (SELECT * FROM hamming_join('SELECT id, fp FROM bt WHERE id % 2 = 0',
											'SELECT id, fp FROM bt WHERE id % 2 = 1', r)),
	t AS (SELECT a.id, b.id, a.fp <-> b.fp FROM bt a JOIN bt b
		  ON a.id % 2 = 0 AND b.id % 2 = 1 AND a.fp <-> b.fp <= r)
	SELECT r, (SELECT count(*) FROM got),
		(SELECT count(*) FROM (TABLE t EXCEPT ALL TABLE got) x),
		(SELECT count(*) FROM (TABLE got EXCEPT ALL TABLE t) y)
$$;
SELECT d.* FROM unnest(ARRAY[0, 3, 12]) r, join_diff(r) d;
-- a row on both sides meets itself at distance 0
SELECT * FROM hamming_join('SELECT id, fp FROM bt WHERE id IN (2, 3)',
						   'SELECT id, fp FROM bt WHERE id IN (3, 4)', 0);
SELECT * FROM hamming_join('SELECT id, fp FROM bt', 'SELECT 1, NULL::simhash64', 3);
SELECT * FROM hamming_join('SELECT id, fp FROM bt', 'SELECT 1', 3);

-- clusters equal the connected components of the pair graph, computed
-- here with a recursive CTE on a part of the data
CREATE TABLE small AS SELECT * FROM bt WHERE id <= 800 OR id % 5 = 0;
CREATE TABLE components AS
WITH RECURSIVE e AS (
	SELECT a.id AS a, b.id AS b FROM small a JOIN small b ON a.fp <-> b.fp <= 6
), reach(a, b) AS (
	SELECT a, b FROM e
	UNION
	SELECT r.a, e.b FROM reach r JOIN e ON e.a = r.b
)
SELECT a AS id, min(b) AS cluster_id, max(b) AS last_id, count(*) AS size
FROM reach GROUP BY a;
SELECT size, count(*) FROM components GROUP BY size ORDER BY size;
SELECT count(*) AS differences FROM (
	(SELECT id, cluster_id FROM components
	 EXCEPT ALL SELECT * FROM hamming_clusters('SELECT id, fp FROM small', 6, mode => 'components'))
	UNION ALL
	(SELECT * FROM hamming_clusters('SELECT id, fp FROM small', 6, mode => 'components')
	 EXCEPT ALL SELECT id, cluster_id FROM components)) d;
-- the same with the ids in no particular order
SELECT count(*) AS differences FROM (
	(SELECT id, cluster_id FROM components
	 EXCEPT ALL SELECT * FROM hamming_clusters('SELECT id, fp FROM small ORDER BY md5(id::text)', 6, mode => 'components'))
	UNION ALL
	(SELECT * FROM hamming_clusters('SELECT id, fp FROM small ORDER BY md5(id::text)', 6, mode => 'components')
	 EXCEPT ALL SELECT id, cluster_id FROM components)) d;
-- without singletons
SELECT count(*) AS differences FROM (
	(SELECT id, cluster_id FROM components WHERE size > 1
	 EXCEPT ALL SELECT * FROM hamming_clusters('SELECT id, fp FROM small', 6, false, mode => 'components'))
	UNION ALL
	(SELECT * FROM hamming_clusters('SELECT id, fp FROM small', 6, false, mode => 'components')
	 EXCEPT ALL SELECT id, cluster_id FROM components WHERE size > 1)) d;
-- an order key: the earliest member (here the largest id) represents
SELECT count(*) AS differences FROM (
	(SELECT id, last_id FROM components
	 EXCEPT ALL SELECT * FROM hamming_clusters('SELECT id, fp, -id FROM small', 6, mode => 'components'))
	UNION ALL
	(SELECT * FROM hamming_clusters('SELECT id, fp, -id FROM small', 6, mode => 'components')
	 EXCEPT ALL SELECT id, last_id FROM components)) d;
-- the relation form with an order column of type timestamptz
CREATE TABLE small_t AS
SELECT id, fp, timestamptz '2020-01-01' - id * interval '1 second' AS created_at FROM small;
SELECT count(*) AS differences FROM (
	SELECT id, last_id FROM components
	EXCEPT ALL SELECT * FROM hamming_clusters('small_t', 'id', 'fp', 6, 'created_at', mode => 'components')) d;
SELECT count(*) FROM hamming_clusters('small_t', 'id', 'fp', 6, order_column => 'no_such', mode => 'components');
SELECT count(*) FROM hamming_clusters('SELECT id, fp, fp FROM small', 6, mode => 'components');
-- stability: unrelated rows do not change existing cluster ids
CREATE TABLE far AS
SELECT 900000 + g AS id, ('x' || substr(md5('far' || g), 1, 16))::bit(64)::bigint::simhash64 AS fp
FROM generate_series(1, 300) g;
DELETE FROM far f WHERE EXISTS (SELECT FROM small s WHERE s.fp <-> f.fp <= 6);
SELECT count(*) AS changed FROM hamming_clusters('SELECT id, fp FROM small', 6, mode => 'components') a
JOIN hamming_clusters('SELECT id, fp FROM small UNION ALL SELECT id, fp FROM far', 6, mode => 'components') b USING (id)
WHERE a.cluster_id <> b.cluster_id;
-- a repeated id links its fingerprints' clusters; one row per distinct id
SELECT * FROM hamming_clusters($$SELECT * FROM (VALUES
	(1, '0000000000000000'::simhash64), (2, '0000000000000001'),
	(7, 'ffffffffffffffff'), (3, 'fffffffffffffffe'),
	(7, '0000000000000003'), (9, '0f0f0f0f0f0f0f0f'), (NULL, '0000000000000000')) v$$, 1, mode => 'components')
ORDER BY id;
SELECT * FROM hamming_clusters('SELECT 1::bigint, NULL::simhash64 WHERE false', 3, mode => 'components');

-- clusters from pairs: the same components
SELECT count(*) AS differences FROM (
	(SELECT * FROM clusters_from_pairs('SELECT id1, id2 FROM hamming_pairs(''SELECT id, fp FROM small'', 6)', mode => 'components')
	 EXCEPT ALL SELECT * FROM hamming_clusters('SELECT id, fp FROM small', 6, false, mode => 'components'))
	UNION ALL
	(SELECT * FROM hamming_clusters('SELECT id, fp FROM small', 6, false, mode => 'components')
	 EXCEPT ALL SELECT * FROM clusters_from_pairs('SELECT id1, id2 FROM hamming_pairs(''SELECT id, fp FROM small'', 6)', mode => 'components'))) d;
-- a row with one NULL declares a node: singletons come back
SELECT count(*) AS differences FROM (
	SELECT * FROM clusters_from_pairs('SELECT id, NULL::bigint FROM small UNION ALL SELECT id1, id2 FROM hamming_pairs(''SELECT id, fp FROM small'', 6)', mode => 'components')
	EXCEPT ALL SELECT * FROM hamming_clusters('SELECT id, fp FROM small', 6, mode => 'components')) d;
SELECT * FROM clusters_from_pairs($$VALUES (1, 2), (2, 3), (10, 10), (20, NULL), (NULL, NULL), (4, 3)$$, mode => 'components')
ORDER BY id;
SELECT * FROM clusters_from_pairs($$VALUES (1, 2), (2, 3), (10, 10), (20, NULL)$$, false, mode => 'components')
ORDER BY id;
SELECT * FROM clusters_from_pairs('SELECT 1, ''x''::text', mode => 'components');

-- incremental assignment (radius 2)
CREATE TABLE existing (id bigint, fp simhash64, cluster_id bigint);
INSERT INTO existing VALUES
	(1, '0000000000000000', 1), (2, '0000000000000003', 1),
	(3, 'ffffffffffffffff', 3),
	(4, '0f00000000000000', 4), (5, '0f00000000000003', 5),
	(6, '3333333333333333', NULL);
CREATE TABLE incoming (id bigint, fp simhash64, created_at integer);
INSERT INTO incoming VALUES
	(10, '0000000000000001', NULL),	-- within 1 of rows 1 and 2: cluster 1
	(11, 'fffffffffffffffe', NULL),	-- near row 3: cluster 3
	(12, '00000000ffffffff', NULL),	-- far from all: new cluster 12
	(13, '00000000fffffffe', NULL),	-- near 12: cluster 12
	(14, '00000000fffffff8', NULL),	-- near 13 only: cluster 12
	(16, 'fffffffffffffff8', NULL),	-- near new row 11 only: cluster 3
	(17, '0f00000000000001', NULL),	-- 1 bit from clusters 4 and 5: smaller id 4
	(18, '0f00000000000007', NULL),	-- nearest is row 5: cluster 5
	(19, '3333333333333332', NULL),	-- row 6 without a cluster is cluster 6
	(20, 'aaaaaaaaaaaaaaaa', 5),		-- new cluster, earliest member 21
	(21, 'aaaaaaaaaaaaaaab', 1),
	(22, NULL, NULL);
SELECT * FROM hamming_assign('SELECT id, fp, created_at FROM incoming',
							 'SELECT id, fp, cluster_id FROM existing', 2)
ORDER BY id;
SELECT * FROM hamming_assign('SELECT id, fp FROM incoming',
							 'SELECT id, fp, cluster_id FROM existing WHERE false', 2)
ORDER BY id;
SELECT * FROM hamming_assign('SELECT id, fp FROM incoming', 'SELECT id, fp FROM existing', 2);
-- assigning the variants to the clusters of the base rows equals clustering
-- everything when every variant is directly near its base
CREATE TABLE base_clusters AS
SELECT c.id, c.cluster_id, b.fp FROM hamming_clusters('SELECT id, fp FROM bt WHERE id < 100000', 3, mode => 'components') c
JOIN bt b USING (id);
SELECT count(*) AS assigned, count(*) FILTER (WHERE a.cluster_id = c.cluster_id) AS agree
FROM hamming_assign('SELECT id, fp FROM bt WHERE id >= 100000', 'SELECT id, fp, cluster_id FROM base_clusters', 3) a
JOIN hamming_clusters('SELECT id, fp FROM bt', 3, mode => 'components') c USING (id);

-- progress notices (terse: the DETAIL of the timed lines is a duration)
SET nddup.progress = on;
SET nddup.batch_blocks = 5;
\set VERBOSITY terse
SELECT count(*) FROM hamming_pairs('SELECT id, fp FROM bt', 3);
\set VERBOSITY default
RESET nddup.batch_blocks;
RESET nddup.progress;

-- a tiny work_mem: pairs, joins and clusters go through temporary files and
-- give the same answers; a run of rows sharing a table's key must fit (its
-- output is quadratic)
CREATE TABLE mem_clusters AS
SELECT 'order' AS variant, * FROM hamming_clusters('SELECT id, fp, -id FROM bt ORDER BY fp', 3, mode => 'components')
UNION ALL SELECT 'repeated ids', * FROM hamming_clusters('SELECT id % 1500, fp FROM bt', 3, mode => 'components')
UNION ALL SELECT 'no singletons', * FROM hamming_clusters('SELECT id, fp FROM bt', 6, false, mode => 'components')
UNION ALL SELECT 'radius 0', * FROM hamming_clusters('SELECT id, fp FROM bt', 0, mode => 'components');
SET work_mem = '64kB';
SELECT d.* FROM unnest(ARRAY[0, 3, 12]) r, pairs_diff(r) d;
SELECT d.* FROM unnest(ARRAY[3]) r, join_diff(r) d;
SELECT count(*) FROM hamming_pairs('SELECT g, ''0123456789abcdef''::simhash64 FROM generate_series(1, 1000) g', 0);
SELECT count(*) FROM hamming_pairs('SELECT g, ''0123456789abcdef''::simhash64 FROM generate_series(1, 30000) g', 0);
CREATE TABLE spill_clusters AS
SELECT 'order' AS variant, * FROM hamming_clusters('SELECT id, fp, -id FROM bt ORDER BY fp', 3, mode => 'components')
UNION ALL SELECT 'repeated ids', * FROM hamming_clusters('SELECT id % 1500, fp FROM bt', 3, mode => 'components')
UNION ALL SELECT 'no singletons', * FROM hamming_clusters('SELECT id, fp FROM bt', 6, false, mode => 'components')
UNION ALL SELECT 'radius 0', * FROM hamming_clusters('SELECT id, fp FROM bt', 0, mode => 'components');
-- 30,000 copies of one fingerprint are grouped first: one cluster
SELECT count(*), count(DISTINCT cluster_id), min(cluster_id)
FROM hamming_clusters('SELECT g, ''0123456789abcdef''::simhash64 FROM generate_series(1, 30000) g', 3, mode => 'components');
RESET work_mem;
SELECT variant, count(*) AS rows,
	(SELECT count(*) FROM (SELECT * FROM mem_clusters m WHERE m.variant = v.variant
						   EXCEPT ALL SELECT * FROM spill_clusters s WHERE s.variant = v.variant) x) AS missing,
	(SELECT count(*) FROM (SELECT * FROM spill_clusters s WHERE s.variant = v.variant
						   EXCEPT ALL SELECT * FROM mem_clusters m WHERE m.variant = v.variant) y) AS extra
FROM mem_clusters v GROUP BY variant ORDER BY variant;
DROP TABLE mem_clusters, spill_clusters;
-- 6,000 fingerprints sharing their top 48 bits and 6,000 sharing their low
-- 48 bits: in each table (keyed by one half) the ones of one kind are one
-- run, larger than work_mem: the first table's met in order while grouping,
-- the second's handed over whole (its partition cannot be split by the
-- key's lower bits); the same clusters
CREATE TABLE top_fp AS
SELECT g AS id, ('x' || substr(md5('top' || g), 1, 4))::bit(16)::integer::bigint::simhash64 AS fp
FROM generate_series(1, 6000) g
UNION ALL
SELECT 10000 + g, ((('x' || substr(md5('low' || g), 1, 4))::bit(16)::integer::bigint) << 48)::simhash64
FROM generate_series(1, 6000) g;
CREATE TABLE top_mem AS SELECT * FROM hamming_clusters('SELECT id, fp FROM top_fp', 1, mode => 'components');
SET work_mem = '64kB';
CREATE TABLE top_spill AS SELECT * FROM hamming_clusters('SELECT id, fp FROM top_fp', 1, mode => 'components');
-- 10 blocks, 10 tables: the grouping pass enters 8 of those after the first,
-- the last one reads the file of first rows
SET nddup.batch_blocks = 10;
CREATE TABLE top_spill10 AS SELECT * FROM hamming_clusters('SELECT id, fp FROM top_fp', 1, mode => 'components');
RESET nddup.batch_blocks;
RESET work_mem;
SELECT count(*) AS rows, count(DISTINCT cluster_id) AS clusters,
	(SELECT count(*) FROM (TABLE top_mem EXCEPT ALL TABLE top_spill) x) AS missing,
	(SELECT count(*) FROM (TABLE top_spill EXCEPT ALL TABLE top_mem) y) AS extra,
	(SELECT count(*) FROM (TABLE top_mem EXCEPT ALL TABLE top_spill10) x) AS missing10,
	(SELECT count(*) FROM (TABLE top_spill10 EXCEPT ALL TABLE top_mem) y) AS extra10
FROM top_mem;
DROP TABLE top_fp, top_mem, top_spill, top_spill10;

-- statement_timeout stops a long run
SET statement_timeout = '300ms';
\set VERBOSITY terse
SELECT count(*) FROM hamming_pairs(
	'SELECT g, (hashint8(g)::bigint << 32 | hashint8(-g)::bigint & 4294967295)::simhash64 FROM generate_series(1, 200000) g', 24);
\set VERBOSITY default
RESET statement_timeout;

-- fingerprints that share their top 40 bits fall into one bucket of the
-- first radix pass of the batch sort, which the flag sort then orders:
-- the pairs against a nested loop (three copies of each low 24 bits)
CREATE TABLE skew_fp AS
	SELECT g AS id, (x'5a5a5a5a5a000000'::bigint | (hashint8(g % 1000)::bigint & 16777215))::simhash64 AS fp
	FROM generate_series(1, 3000) g;
WITH p AS (SELECT least(id1, id2) AS a, greatest(id1, id2) AS b FROM hamming_pairs('SELECT id, fp FROM skew_fp', 2)),
	 q AS (SELECT x.id AS a, y.id AS b FROM skew_fp x JOIN skew_fp y ON x.id < y.id AND (x.fp <-> y.fp) <= 2)
SELECT (SELECT count(*) FROM p) AS pairs, (SELECT count(*) FROM q) AS nested_loop,
	(SELECT count(*) FROM (TABLE p EXCEPT ALL TABLE q) e) AS extra,
	(SELECT count(*) FROM (TABLE q EXCEPT ALL TABLE p) m) AS missing;
DROP TABLE skew_fp;
