--
-- The greedy mode of hamming_clusters (docs/batch.md, "Cluster modes" and
-- "Memory") on the paths of its ranking: ids arriving ascending or not,
-- with and without an order key, rows sharing an id, equal fingerprints;
-- spilled at work_mem = 64kB and in memory, each against
-- clusters_from_pairs (its own greedy pass, in id order) over the
-- method's pairs, with survivor ranks for ids when there is an order key.
--
SET client_min_messages = warning;

-- 2,400 bases with 4 variants of 1 to 4 flipped bits (chains at radius 3),
-- exact copies, rows repeating an id with another fingerprint, an order
-- key with NULLs
CREATE TABLE gs (id bigint, fp simhash64, ord integer);
INSERT INTO gs
SELECT b * 10 + v, (hashint8extended(b, 7) # CASE WHEN v = 0 THEN 0 ELSE
	(SELECT bit_or(1::bigint << (abs(hashint8extended(b * 10 + v, k)) % 64)::integer)
	 FROM generate_series(1, v) k) END)::simhash64, NULL
FROM generate_series(1, 2400) b, generate_series(0, 4) v;
INSERT INTO gs SELECT id + 1000000, fp FROM gs WHERE id % 7 = 0;
INSERT INTO gs SELECT id, hashint8extended(id, 3)::simhash64 FROM gs WHERE id % 13 = 0 AND id < 1000000;
UPDATE gs SET ord = CASE WHEN id % 11 = 0 THEN NULL ELSE (id * 37 + fp::bigint % 5) % 101 END;
SELECT count(*) AS rows, count(DISTINCT id) AS ids, count(DISTINCT fp) AS fingerprints FROM gs;

-- the survivor rank of each id: its earliest order key (NULLs last), then the id
CREATE TABLE gs_rank AS
SELECT id, row_number() OVER (ORDER BY min(ord) NULLS LAST, id) AS rank FROM gs GROUP BY id;
CREATE TABLE gs_pairs AS SELECT id1, id2 FROM hamming_pairs('SELECT id, fp FROM gs', 3);

-- The greedy reference: clusters_from_pairs over every id (so singletons
-- appear) and the pairs, in id order, or in survivor order through the ranks.
CREATE FUNCTION gs_ref(ordered boolean, singletons boolean) RETURNS TABLE (id bigint, cluster_id bigint)
	LANGUAGE sql AS $$
	SELECT coalesce(i.id, c.id), coalesce(j.id, c.cluster_id)
	FROM clusters_from_pairs(CASE WHEN ordered THEN
		'SELECT rank, NULL::bigint FROM gs_rank UNION ALL
		 SELECT a.rank, b.rank FROM gs_pairs p JOIN gs_rank a ON a.id = p.id1 JOIN gs_rank b ON b.id = p.id2'
		ELSE 'SELECT id, NULL::bigint FROM gs UNION ALL SELECT id1, id2 FROM gs_pairs' END, singletons) c
	LEFT JOIN gs_rank i ON ordered AND i.rank = c.id
	LEFT JOIN gs_rank j ON ordered AND j.rank = c.cluster_id
$$;

-- rows differing from the reference (computed at work_mem 4MB), both ways
CREATE FUNCTION gs_diff(query text, ordered boolean, singletons boolean)
	RETURNS TABLE (rows bigint, clusters bigint, differ bigint) LANGUAGE plpgsql AS $$
DECLARE
	w text := current_setting('work_mem');
BEGIN
	PERFORM set_config('work_mem', '4MB', true);
	CREATE TEMP TABLE gs_want AS SELECT * FROM gs_ref(ordered, singletons);
	PERFORM set_config('work_mem', w, true);
	EXECUTE 'CREATE TEMP TABLE gs_got AS SELECT * FROM hamming_clusters(' || query || ', 3, singletons => '
		|| singletons || ')';
	RETURN QUERY SELECT (SELECT count(*) FROM gs_got), (SELECT count(DISTINCT g.cluster_id) FROM gs_got g),
		(SELECT count(*) FROM ((TABLE gs_want EXCEPT ALL TABLE gs_got) UNION ALL
			(TABLE gs_got EXCEPT ALL TABLE gs_want)) x);
	DROP TABLE gs_got, gs_want;
END
$$;

CREATE TABLE gs_cases (variant text, query text, ordered boolean);
INSERT INTO gs_cases VALUES
	('ids unordered', $q$'SELECT id, fp FROM gs ORDER BY md5(id::text)'$q$, false),
	('ids ascending', $q$'SELECT DISTINCT ON (id) id, fp FROM gs ORDER BY id, fp'$q$, false),
	('order key, ids unordered', $q$'SELECT id, fp, ord FROM gs ORDER BY md5(id::text || fp::text)'$q$, true),
	('order key, ids ascending', $q$'SELECT DISTINCT ON (id) id, fp, ord FROM gs ORDER BY id, fp'$q$, true);
-- the ascending cases hold one row per id: their reference is over those rows
CREATE FUNCTION gs_run() RETURNS TABLE (variant text, singletons boolean, rows bigint, clusters bigint, differ bigint)
	LANGUAGE plpgsql AS $$
DECLARE
	c record;
	s boolean;
BEGIN
	FOR c IN SELECT * FROM gs_cases LOOP
		IF c.variant LIKE '%ascending' THEN
			ALTER TABLE gs RENAME TO gs_all;
			CREATE TABLE gs AS SELECT DISTINCT ON (id) * FROM gs_all ORDER BY id, fp;
			ALTER TABLE gs_pairs RENAME TO gs_pairs_all;
			ALTER TABLE gs_rank RENAME TO gs_rank_all;
			CREATE TABLE gs_pairs AS SELECT id1, id2 FROM hamming_pairs('SELECT id, fp FROM gs', 3);
			CREATE TABLE gs_rank AS
			SELECT g.id, row_number() OVER (ORDER BY g.ord NULLS LAST, g.id) AS rank FROM gs g;
		END IF;
		FOREACH s IN ARRAY ARRAY[true, false] LOOP
			RETURN QUERY SELECT c.variant, s, d.* FROM gs_diff(c.query, c.ordered, s) d;
		END LOOP;
		IF c.variant LIKE '%ascending' THEN
			DROP TABLE gs, gs_pairs, gs_rank;
			ALTER TABLE gs_all RENAME TO gs;
			ALTER TABLE gs_pairs_all RENAME TO gs_pairs;
			ALTER TABLE gs_rank_all RENAME TO gs_rank;
		END IF;
	END LOOP;
END
$$;

-- in memory (equal fingerprints are classes there), then spilled (every
-- pair an edge, the decisions as bits)
CREATE TABLE gs_mem AS SELECT * FROM gs_run();
CREATE TABLE gs_mem_clusters AS SELECT * FROM hamming_clusters('SELECT id, fp FROM gs', 3);
SELECT * FROM gs_mem;
SET work_mem = 64;
SELECT m.variant, m.singletons, s.rows = m.rows AND s.clusters = m.clusters AND s.differ = 0 AS spilled_same
FROM gs_mem m JOIN gs_run() s USING (variant, singletons) ORDER BY 1, 2;
-- ids spread far apart and negative (an order-preserving map of gs's ids):
-- the same clusters, mapped
SELECT count(*) AS differ FROM (
	(SELECT id * 7919 - 40000000, cluster_id * 7919 - 40000000 FROM gs_mem_clusters
	 EXCEPT ALL SELECT * FROM hamming_clusters('SELECT id * 7919 - 40000000, fp FROM gs ORDER BY md5(id::text)', 3))
	UNION ALL
	(SELECT * FROM hamming_clusters('SELECT id * 7919 - 40000000, fp FROM gs', 3)
	 EXCEPT ALL SELECT id * 7919 - 40000000, cluster_id * 7919 - 40000000 FROM gs_mem_clusters)) x;

-- what the spilled ranking keeps in memory, said when it exceeds work_mem;
-- beyond maintenance_work_mem, what it needs
SET client_min_messages = notice;
SELECT count(*) FROM hamming_clusters('SELECT id, fp FROM gs ORDER BY md5(id::text)', 3);
SET maintenance_work_mem = '1MB';
SELECT count(*) FROM hamming_clusters('SELECT g, hashint8extended(g, 1)::simhash64, g FROM generate_series(1, 40000) g', 3);
SELECT count(*) FROM hamming_clusters('SELECT g, hashint8extended(g, 1)::simhash64 FROM generate_series(1, 140000) g', 3);
RESET maintenance_work_mem;
RESET work_mem;
SET client_min_messages = warning;

DROP TABLE gs, gs_rank, gs_pairs, gs_cases, gs_mem, gs_mem_clusters CASCADE;
DROP FUNCTION gs_ref, gs_diff, gs_run;
