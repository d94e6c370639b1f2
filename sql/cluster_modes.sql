--
-- The cluster modes of the *_clusters functions (docs/batch.md, "Cluster
-- modes"): greedy (the default: every member matches its cluster's
-- original, the answer of inserting the rows one by one in survivor order)
-- against a nested loop in SQL, in memory and spilled; components by name.
--
SET client_min_messages = warning;

-- The greedy reference: rows in survivor order (nodes_query gives ids in
-- that order); each joins the earliest original among the rows it matches
-- (pairs_query gives the matching pairs, found by a nested loop), else it
-- is an original.
CREATE FUNCTION greedy_ref(nodes_query text, pairs_query text, singletons boolean DEFAULT true)
	RETURNS TABLE (id bigint, cluster_id bigint) LANGUAGE plpgsql AS $$
DECLARE
	r record;
	o bigint;
	pos integer := 0;
BEGIN
	CREATE TEMP TABLE gr_pairs (a bigint, b bigint);
	EXECUTE 'INSERT INTO gr_pairs ' || pairs_query;
	INSERT INTO gr_pairs SELECT p.b, p.a FROM gr_pairs p;
	CREATE INDEX ON gr_pairs (a);
	CREATE TEMP TABLE gr_out (id bigint, cluster_id bigint, pos integer);
	FOR r IN EXECUTE nodes_query LOOP
		pos := pos + 1;
		o := NULL;
		SELECT g.id INTO o FROM gr_out g JOIN gr_pairs p ON p.a = r.id AND p.b = g.id
		WHERE g.cluster_id = g.id ORDER BY g.pos LIMIT 1;
		INSERT INTO gr_out VALUES (r.id, coalesce(o, r.id), pos);
	END LOOP;
	RETURN QUERY SELECT g.id, g.cluster_id FROM gr_out g
		WHERE singletons OR (SELECT count(*) FROM gr_out h WHERE h.cluster_id = g.cluster_id) > 1;
	DROP TABLE gr_pairs, gr_out;
END
$$;

-- Texts that chain: in each family of 40, text i is a window of 24 words
-- sliding by 3 over the family's word sequence, so neighbours match and the
-- ends of a family do not; plus unrelated texts and exact copies.
CREATE TABLE cm (id bigint, body text, created integer, ss shingleset, sk minhash_sketch, fp simhash64);
INSERT INTO cm (id, body, created)
SELECT f * 100 + i,
	(SELECT string_agg('w' || f || '_' || (w % 97), ' ' ORDER BY w) FROM generate_series(3 * i, 3 * i + 23) w),
	CASE WHEN i % 7 = 0 THEN NULL ELSE (i * 37) % 11 END
FROM generate_series(1, 6) f, generate_series(0, 39) i;
INSERT INTO cm (id, body, created)
SELECT 1000 + g, md5(g::text) || ' ' || md5((g * 7)::text) || ' unrelated text number ' || g, g % 5
FROM generate_series(1, 30) g;
INSERT INTO cm (id, body, created) SELECT id + 5000, body, created FROM cm WHERE id % 9 = 0;
UPDATE cm SET ss = shingle_set(body), sk = minhash(body), fp = simhash(body);
SELECT count(*) AS rows FROM cm;

-- the pairs of a nested loop
CREATE TABLE cm_truth AS
SELECT x.id AS id1, y.id AS id2, jaccard(x.ss, y.ss) AS j, jaccard(x.sk, y.sk) AS est,
	x.fp <-> y.fp AS distance
FROM cm x JOIN cm y ON x.id < y.id;

-- Compare a result with the reference: rows, clusters, and the rows that differ.
CREATE FUNCTION cm_diff(label text, got text, want text)
	RETURNS TABLE (variant text, rows bigint, clusters bigint, missing bigint, extra bigint)
	LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE 'CREATE TEMP TABLE cm_got AS ' || got;
	EXECUTE 'CREATE TEMP TABLE cm_want AS ' || want;
	RETURN QUERY SELECT label, (SELECT count(*) FROM cm_got), (SELECT count(DISTINCT g.cluster_id) FROM cm_got g),
		(SELECT count(*) FROM (TABLE cm_want EXCEPT ALL TABLE cm_got) x),
		(SELECT count(*) FROM (TABLE cm_got EXCEPT ALL TABLE cm_want) y);
	DROP TABLE cm_got, cm_want;
END
$$;

CREATE TABLE cm_results (variant text, rows bigint, clusters bigint, missing bigint, extra bigint);
CREATE FUNCTION cm_run(with_pairs boolean) RETURNS SETOF cm_results LANGUAGE sql AS $$
	SELECT * FROM cm_diff('shingleset 0.5',
		$q$SELECT * FROM shingleset_clusters('SELECT id, ss FROM cm', 0.5)$q$,
		$q$SELECT * FROM greedy_ref('SELECT id FROM cm ORDER BY id', 'SELECT id1, id2 FROM cm_truth WHERE j >= 0.5')$q$)
	UNION ALL SELECT * FROM cm_diff('shingleset 0.3 order key',
		$q$SELECT * FROM shingleset_clusters('SELECT id, ss, created FROM cm', 0.3)$q$,
		$q$SELECT * FROM greedy_ref('SELECT id FROM cm ORDER BY created NULLS LAST, id', 'SELECT id1, id2 FROM cm_truth WHERE j >= 0.3')$q$)
	UNION ALL SELECT * FROM cm_diff('shingleset relation, no singletons',
		$q$SELECT * FROM shingleset_clusters('cm', 'id', 'ss', 0.4, 'created', false)$q$,
		$q$SELECT * FROM greedy_ref('SELECT id FROM cm ORDER BY created NULLS LAST, id', 'SELECT id1, id2 FROM cm_truth WHERE j >= 0.4', false)$q$)
	UNION ALL SELECT * FROM cm_diff('minhash 0.5',
		$q$SELECT * FROM minhash_clusters('SELECT id, sk FROM cm', 0.5)$q$,
		$q$SELECT * FROM greedy_ref('SELECT id FROM cm ORDER BY id', 'SELECT id1, id2 FROM cm_truth WHERE est >= 0.5')$q$)
	UNION ALL SELECT * FROM cm_diff('minhash relation, order key',
		$q$SELECT * FROM minhash_clusters('cm', 'id', 'sk', 0.4, 'created')$q$,
		$q$SELECT * FROM greedy_ref('SELECT id FROM cm ORDER BY created NULLS LAST, id', 'SELECT id1, id2 FROM cm_truth WHERE est >= 0.4')$q$)
	UNION ALL SELECT * FROM cm_diff('minhash verified',
		$q$SELECT * FROM minhash_clusters('SELECT id, sk, ss FROM cm', 0.3, verify => 0.5)$q$,
		$q$SELECT * FROM greedy_ref('SELECT id FROM cm ORDER BY id', 'SELECT id1, id2 FROM cm_truth WHERE est >= 0.3 AND j >= 0.5')$q$)
	UNION ALL SELECT * FROM cm_diff('hamming radius 8',
		$q$SELECT * FROM hamming_clusters('SELECT id, fp FROM cm', 8)$q$,
		$q$SELECT * FROM greedy_ref('SELECT id FROM cm ORDER BY id', 'SELECT id1, id2 FROM cm_truth WHERE distance <= 8')$q$)
	UNION ALL SELECT * FROM cm_diff('hamming verified, order key',
		$q$SELECT * FROM hamming_clusters('SELECT id, fp, created, ss FROM cm', 12, verify => 0.4)$q$,
		$q$SELECT * FROM greedy_ref('SELECT id FROM cm ORDER BY created NULLS LAST, id', 'SELECT id1, id2 FROM cm_truth WHERE distance <= 12 AND j >= 0.4')$q$)
	UNION ALL SELECT * FROM cm_diff('hamming relation, no singletons',
		$q$SELECT * FROM hamming_clusters('cm', 'id', 'fp', 10, singletons => false)$q$,
		$q$SELECT * FROM greedy_ref('SELECT id FROM cm ORDER BY id', 'SELECT id1, id2 FROM cm_truth WHERE distance <= 10', false)$q$)
	UNION ALL SELECT * FROM cm_diff('hamming, copies first',
		$q$SELECT * FROM hamming_clusters('SELECT id, fp, -id FROM cm', 8)$q$,
		$q$SELECT * FROM greedy_ref('SELECT id FROM cm ORDER BY -id', 'SELECT id1, id2 FROM cm_truth WHERE distance <= 8')$q$)
	UNION ALL SELECT * FROM cm_diff('minhash, copies first',
		$q$SELECT * FROM minhash_clusters('SELECT id, sk, -id FROM cm', 0.5)$q$,
		$q$SELECT * FROM greedy_ref('SELECT id FROM cm ORDER BY -id', 'SELECT id1, id2 FROM cm_truth WHERE est >= 0.5')$q$)
	UNION ALL SELECT * FROM cm_diff('from pairs',
		$q$SELECT * FROM clusters_from_pairs('SELECT id, NULL::bigint FROM cm UNION ALL SELECT id1, id2 FROM cm_truth WHERE j >= 0.5')$q$,
		$q$SELECT * FROM greedy_ref('SELECT id FROM cm ORDER BY id', 'SELECT id1, id2 FROM cm_truth WHERE j >= 0.5')$q$)
		WHERE with_pairs
$$;

-- in memory, then spilled (rows and edges in temporary files;
-- clusters_from_pairs holds its pairs in memory: not at 64 kB)
INSERT INTO cm_results SELECT * FROM cm_run(true);
SELECT * FROM cm_results;
SET work_mem = 64;
SELECT r.variant, s.rows = r.rows AND s.clusters = r.clusters AND s.missing = 0 AND s.extra = 0 AS spilled_same
FROM cm_results r JOIN cm_run(false) s USING (variant);
RESET work_mem;

-- Larger inputs, spilled at work_mem = 64kB (rows, pairs and edges in
-- temporary files), checked against the method's own pairs: the greedy
-- answer is the only one in which every member's cluster id is an earlier
-- original it matches (a), no two originals match (b), and no original
-- earlier than a member's own matches it (c).
CREATE TABLE cm_big (id bigint, body text, ss shingleset, sk minhash_sketch, fp simhash64);
INSERT INTO cm_big (id, body)
SELECT f * 100 + i, (SELECT string_agg('v' || f || '_' || (w % 89), ' ' ORDER BY w)
	FROM generate_series(2 * i, 2 * i + 19) w)
FROM generate_series(1, 60) f, generate_series(0, 49) i;
-- copies (equal sets, sketches, fingerprints) and empty documents
INSERT INTO cm_big (id, body) SELECT id + 100000, body FROM cm_big WHERE id % 10 = 0;
INSERT INTO cm_big (id, body) VALUES (999997, ''), (999998, '<p></p>'), (999999, '');
UPDATE cm_big SET ss = shingle_set(body), sk = minhash(body), fp = simhash(body);
CREATE FUNCTION greedy_check(clusters_sql text, pairs_sql text)
	RETURNS TABLE (rows bigint, members bigint, a_bad bigint, b_bad bigint, c_bad bigint)
	LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE 'CREATE TEMP TABLE gc_pairs AS SELECT id1, id2 FROM (' || pairs_sql || ') p';
	INSERT INTO gc_pairs SELECT p.id2, p.id1 FROM gc_pairs p;
	SET LOCAL work_mem = 64;
	EXECUTE 'CREATE TEMP TABLE gc_c AS ' || clusters_sql;
	RESET work_mem;
	RETURN QUERY SELECT (SELECT count(*) FROM gc_c),
		(SELECT count(*) FROM gc_c c WHERE c.id <> c.cluster_id),
		(SELECT count(*) FROM gc_c c WHERE c.id <> c.cluster_id AND (c.cluster_id > c.id
			OR NOT EXISTS (SELECT 1 FROM gc_pairs p WHERE p.id1 = c.id AND p.id2 = c.cluster_id)
			OR NOT EXISTS (SELECT 1 FROM gc_c o WHERE o.id = c.cluster_id AND o.cluster_id = o.id))),
		(SELECT count(*) FROM gc_c x JOIN gc_pairs p ON p.id1 = x.id JOIN gc_c y ON y.id = p.id2
		 WHERE x.id = x.cluster_id AND y.id = y.cluster_id),
		(SELECT count(*) FROM gc_c c JOIN gc_pairs p ON p.id1 = c.id JOIN gc_c o ON o.id = p.id2
		 WHERE c.id <> c.cluster_id AND o.id = o.cluster_id AND o.id < c.cluster_id);
	DROP TABLE gc_pairs, gc_c;
END
$$;
SELECT 'shingleset' AS method, * FROM greedy_check(
	$q$SELECT * FROM shingleset_clusters('SELECT id, ss FROM cm_big', 0.4)$q$,
	$q$SELECT * FROM shingleset_pairs('SELECT id, ss FROM cm_big', 0.4)$q$)
UNION ALL SELECT 'minhash', * FROM greedy_check(
	$q$SELECT * FROM minhash_clusters('SELECT id, sk FROM cm_big', 0.4)$q$,
	$q$SELECT * FROM minhash_pairs('SELECT id, sk FROM cm_big', 0.4)$q$)
UNION ALL SELECT 'hamming', * FROM greedy_check(
	$q$SELECT * FROM hamming_clusters('SELECT id, fp FROM cm_big', 10)$q$,
	$q$SELECT * FROM hamming_pairs('SELECT id, fp FROM cm_big', 10)$q$);

-- by construction: every member matches its original, no two originals match
WITH c AS (SELECT * FROM shingleset_clusters('SELECT id, ss FROM cm', 0.3))
SELECT count(*) FILTER (WHERE c.id <> c.cluster_id) AS members,
	count(*) FILTER (WHERE c.id <> c.cluster_id AND jaccard(a.ss, o.ss) < 0.3) AS members_below,
	(SELECT count(*) FROM c x JOIN c y ON x.id < y.id AND x.id = x.cluster_id AND y.id = y.cluster_id
	 JOIN cm a ON a.id = x.id JOIN cm b ON b.id = y.id WHERE jaccard(a.ss, b.ss) >= 0.3) AS originals_matching
FROM c JOIN cm a ON a.id = c.id JOIN cm o ON o.id = c.cluster_id;

-- the components mode by name: the chains make larger clusters
SELECT mode, count(DISTINCT cluster_id) AS clusters, max(n) AS largest
FROM (SELECT 'greedy' AS mode, cluster_id, count(*) OVER (PARTITION BY cluster_id) AS n
      FROM shingleset_clusters('SELECT id, ss FROM cm', 0.3)
      UNION ALL
      SELECT 'components', cluster_id, count(*) OVER (PARTITION BY cluster_id)
      FROM shingleset_clusters('SELECT id, ss FROM cm', 0.3, mode => 'components')) s
GROUP BY mode ORDER BY mode;
-- rows of equal fingerprints or sketches are one class: 20,000 copies are
-- not paired with each other
SELECT count(*), count(DISTINCT cluster_id) FROM minhash_clusters(
	'SELECT g, minhash(''one text copied many times'') FROM generate_series(1, 20000) g', 0.5);
SELECT count(*), count(DISTINCT cluster_id) FROM hamming_clusters(
	'SELECT g, simhash(''one text copied many times'') FROM generate_series(1, 20000) g', 3);

-- a chain a - b - c: b joins a, c is an original (components: one cluster)
SELECT * FROM clusters_from_pairs('VALUES (1, 2), (2, 3)');
SELECT * FROM clusters_from_pairs('VALUES (1, 2), (2, 3)', mode => 'components');
-- rows sharing an id are one node, named once
SELECT * FROM clusters_from_pairs('VALUES (1, 2), (2, 2), (3, 1)') ORDER BY 1;

-- spilled min-hash rows: greedy clusters verify every candidate pair, and a
-- family of near-copies stops at 64 candidates a row (plus a million)
-- instead of filling the disk; the components mode links it
SET work_mem = 64;
SELECT count(*) FROM minhash_clusters(
	'SELECT g, minhash(''one text copied many times with a number '' || g) FROM generate_series(1, 2000) g', 0.3);
SELECT count(*), count(DISTINCT cluster_id) FROM minhash_clusters(
	'SELECT g, minhash(''one text copied many times with a number '' || g) FROM generate_series(1, 2000) g', 0.3,
	mode => 'components');
RESET work_mem;

-- errors and NULLs
SELECT * FROM shingleset_clusters('SELECT id, ss FROM cm', 0.3, mode => 'chains');
SELECT * FROM clusters_from_pairs('VALUES (1, 2)', mode => 'Greedy');
SELECT count(*) FROM hamming_clusters('SELECT id, fp FROM cm', 3, mode => NULL);
SELECT count(*) FROM minhash_clusters('cm', 'id', 'sk', 0.5, mode => NULL);

DROP TABLE cm, cm_truth, cm_results, cm_big CASCADE;
DROP FUNCTION greedy_ref, cm_diff, greedy_check;
