--
-- The prefix filter of the sketch batch functions (sketch_prefix.c): the
-- plan chosen by the estimated candidates, on template-heavy text, and the
-- answers of every plan (the prefix index, the prefixes position by
-- position when the index does not fit in work_mem, the bands) against a
-- brute-force SQL computation of the estimate.
--

-- 1,500 documents: one of 5 boilerplate sentences, then 6-25 words of a
-- vocabulary of 400 (so many pairs share some shingles), 300 of them with
-- a copy of another document's words (near-duplicates), deterministic
CREATE TABLE pf_docs AS
SELECT g AS id,
	(ARRAY['this package contains the documentation of the library',
		   'this is a transitional package it can safely be removed',
		   'this package provides the development files of the library',
		   'a dummy package that depends on the default version',
		   'this package contains the debugging symbols'])[1 + g % 5] || ' ' ||
	(SELECT string_agg('w' || (hashint4(g * 100 + j) & 1023) % 400, ' ' ORDER BY j)
	 FROM generate_series(1, 6 + g % 20) j) AS body
FROM generate_series(1, 1500) g;
UPDATE pf_docs d SET body = split_part(o.body, ' ', 1) || ' ' || o.body || ' extra' || d.id % 3
FROM pf_docs o WHERE d.id % 5 = 0 AND o.id = d.id - 7;
ALTER TABLE pf_docs ADD sk minhash_sketch;
UPDATE pf_docs SET sk = minhash(body);
-- the brute force: every pair's estimate
CREATE TABLE pf_all AS
SELECT a.id AS id1, b.id AS id2, jaccard(a.sk, b.sk) AS r
FROM pf_docs a JOIN pf_docs b ON a.id < b.id
WHERE jaccard(a.sk, b.sk) >= 0.3;

-- pf_check(threshold, label, rows): missing and extra pairs against the
-- brute force, and the number of pairs
CREATE FUNCTION pf_check(t float8, q text) RETURNS TABLE (pairs bigint, missing bigint, extra bigint)
LANGUAGE sql AS $$
	WITH got AS (SELECT * FROM minhash_pairs(q, t))
	SELECT (SELECT count(*) FROM got),
		   (SELECT count(*) FROM pf_all WHERE r >= t AND (id1, id2, r) NOT IN (SELECT * FROM got)),
		   (SELECT count(*) FROM got WHERE (id1, id2, resemblance) NOT IN (SELECT * FROM pf_all WHERE r >= t))
$$;

-- the plan: said in the progress output (terse: no timings; the rows in id
-- order, so that the counts so far do not depend on the heap's order)
\set VERBOSITY terse
SET nddup.progress = on;
SET work_mem = '64MB';
SELECT count(*) FROM minhash_pairs('SELECT id, sk FROM pf_docs ORDER BY id', 0.3);
SELECT count(*) FROM minhash_pairs('SELECT id, sk FROM pf_docs ORDER BY id', 0.9);
-- bands given: the bands run
SELECT count(*) FROM minhash_pairs('SELECT id, sk FROM pf_docs ORDER BY id', 0.5, 65, 1);
-- rows in work_mem, the index not: the prefixes position by position
SET work_mem = '1100kB';
SELECT count(*) FROM minhash_pairs('SELECT id, sk FROM pf_docs ORDER BY id', 0.5);
RESET nddup.progress;
\set VERBOSITY default

-- every plan against the brute force
SET work_mem = '64MB';
SELECT t, (pf_check(t, 'SELECT id, sk FROM pf_docs')).* FROM unnest(ARRAY[0.3, 0.5, 0.7, 0.9]) t;
SET work_mem = '1100kB';
SELECT t, (pf_check(t, 'SELECT id, sk FROM pf_docs')).* FROM unnest(ARRAY[0.3, 0.5, 0.7, 0.9]) t;
SET work_mem = '64MB';

-- the join: the pairs across the two halves
SELECT count(*) AS pairs,
	count(*) FILTER (WHERE (j.id_a, j.id_b) NOT IN (SELECT id1, id2 FROM pf_all WHERE r >= 0.4 AND id1 % 2 = 0 AND id2 % 2 = 1
												   UNION ALL SELECT id2, id1 FROM pf_all WHERE r >= 0.4 AND id2 % 2 = 0 AND id1 % 2 = 1)) AS extra,
	(SELECT count(*) FROM pf_all WHERE r >= 0.4 AND (id1 + id2) % 2 = 1) AS expected
FROM minhash_join('SELECT id, sk FROM pf_docs WHERE id % 2 = 0', 'SELECT id, sk FROM pf_docs WHERE id % 2 = 1', 0.4) j;

-- the clusters: the components of the brute force's pairs
SELECT count(DISTINCT c.cluster_id) AS clusters, count(*) AS clustered,
	count(*) FILTER (WHERE c.cluster_id IS DISTINCT FROM f.cluster_id) AS different
FROM minhash_clusters('SELECT id, sk FROM pf_docs', 0.4, singletons => false, mode => 'components') c
FULL JOIN clusters_from_pairs('SELECT id1, id2 FROM pf_all WHERE r >= 0.4', mode => 'components') f USING (id);

DROP FUNCTION pf_check(float8, text);
DROP TABLE pf_docs, pf_all;
