--
-- The exact resemblance join of shingle sets: shingleset_pairs,
-- shingleset_join, shingleset_clusters.  Every answer is compared with a
-- nested loop of jaccard() / containment() over all pairs, in memory and
-- through temporary files (a tiny work_mem).
--

-- 1,000 documents of 20-60 md5 words, 800 variants with 0-6 of their first
-- 20 words replaced, 40 exact copies, 3 empty documents, and a shared
-- boilerplate sentence in every tenth document: deterministic
CREATE TABLE ss_words (id bigint, pos integer, word text);
INSERT INTO ss_words
SELECT g, j, substr(md5('d' || g || '/' || j), 1, 6)
FROM generate_series(1, 1000) g, generate_series(1, 20 + g % 41) j;
CREATE FUNCTION ss_variants(plan text) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE 'INSERT INTO ss_words
	SELECT p.id, w.pos,
		CASE WHEN w.pos IN (SELECT 1 + get_byte(decode(md5(''e'' || p.id || ''/'' || i), ''hex''), 0) % 20
							FROM generate_series(1, p.edits) i)
			 THEN substr(md5(''r'' || p.id || ''/'' || w.pos), 1, 6) ELSE w.word END
	FROM (' || plan || ') p (id, base, edits) JOIN ss_words w ON w.id = p.base';
END
$$;
SELECT ss_variants('SELECT 10000 + g, 1 + (g * 7) % 1000, g % 7 FROM generate_series(1, 600) g');
SELECT ss_variants('SELECT 20000 + g, 10000 + 1 + (g * 3) % 600, 1 + g % 3 FROM generate_series(1, 200) g');
SELECT ss_variants('SELECT 30000 + g, g * 23, 0 FROM generate_series(1, 40) g');
CREATE TABLE ss_docs AS
SELECT id, string_agg(word, ' ' ORDER BY pos)
	|| CASE WHEN id % 10 = 0 THEN ' posted by the site team all rights reserved' ELSE '' END AS body
FROM ss_words GROUP BY id;
INSERT INTO ss_docs VALUES (40001, ''), (40002, '<p></p>'), (40003, '   ');
ALTER TABLE ss_docs ADD s shingleset, ADD s_mod shingleset, ADD s_bottom shingleset, ADD s4 shingleset;
UPDATE ss_docs SET s = shingle_set(body), s_mod = shingle_mod(body, 3),
	s_bottom = shingle_bottom(body, 20), s4 = shingle_set(body, 4);
SELECT count(*), count(*) FILTER (WHERE cardinality(s) = 0) AS empty FROM ss_docs;

-- the truth: every pair by a nested loop
CREATE TABLE ss_truth AS
SELECT a.id AS id1, b.id AS id2, jaccard(a.s, b.s) AS j,
	containment(CASE WHEN cardinality(a.s) <= cardinality(b.s) THEN a.s ELSE b.s END,
				CASE WHEN cardinality(a.s) <= cardinality(b.s) THEN b.s ELSE a.s END) AS c,
	jaccard(a.s_mod, b.s_mod) AS jm
FROM ss_docs a JOIN ss_docs b ON a.id < b.id
WHERE jaccard(a.s, b.s) >= 0.1 OR overlap(a.s, b.s) > 0 OR cardinality(a.s) = 0 OR cardinality(b.s) = 0;
CREATE TABLE ss_jtruth AS
SELECT a.id AS id_a, b.id AS id_b, jaccard(a.s, b.s) AS j, containment(a.s, b.s) AS c
FROM ss_docs a JOIN ss_docs b ON a.id % 2 = 0 AND b.id % 2 = 1;

-- missing and extra pairs (EXCEPT ALL: a pair reported twice is extra)
CREATE FUNCTION ss_diff(t float8, m text) RETURNS TABLE (threshold float8, measure text, found bigint, missing bigint, extra bigint)
LANGUAGE sql AS $$
	WITH got AS (SELECT * FROM shingleset_pairs('SELECT id, s FROM ss_docs', t, m)),
	tr AS (SELECT id1, id2, CASE WHEN m = 'jaccard' THEN j ELSE c END
		   FROM ss_truth
		   WHERE CASE WHEN m = 'jaccard' THEN j ELSE c END >= t
			 AND (m = 'jaccard' OR (id1 < 40001 AND id2 < 40001)))
	SELECT t, m, (SELECT count(*) FROM got),
		(SELECT count(*) FROM (TABLE tr EXCEPT ALL TABLE got) x),
		(SELECT count(*) FROM (TABLE got EXCEPT ALL TABLE tr) y)
$$;
CREATE FUNCTION ss_join_diff(t float8, m text) RETURNS TABLE (threshold float8, measure text, found bigint, missing bigint, extra bigint)
LANGUAGE sql AS $$
	WITH got AS (SELECT * FROM shingleset_join('SELECT id, s FROM ss_docs WHERE id % 2 = 0',
											   'SELECT id, s FROM ss_docs WHERE id % 2 = 1', t, m)),
	tr AS (SELECT id_a, id_b, CASE WHEN m = 'jaccard' THEN j ELSE c END
		   FROM ss_jtruth
		   WHERE CASE WHEN m = 'jaccard' THEN j ELSE c END >= t
			 AND (m = 'jaccard' OR (id_a < 40001 AND id_b < 40001)))
	SELECT t, m, (SELECT count(*) FROM got),
		(SELECT count(*) FROM (TABLE tr EXCEPT ALL TABLE got) x),
		(SELECT count(*) FROM (TABLE got EXCEPT ALL TABLE tr) y)
$$;
CREATE FUNCTION ss_clusters_diff(t float8) RETURNS TABLE (threshold float8, clusters bigint, missing bigint, extra bigint)
LANGUAGE sql AS $$
	WITH got AS (SELECT * FROM shingleset_clusters('SELECT id, s FROM ss_docs', t, mode => 'components')),
	cc AS (SELECT * FROM clusters_from_pairs(
		'SELECT id, NULL::bigint FROM ss_docs UNION ALL SELECT id1, id2 FROM ss_truth WHERE j >= ' || t, mode => 'components'))
	SELECT t, (SELECT count(DISTINCT cluster_id) FROM got),
		(SELECT count(*) FROM (TABLE cc EXCEPT ALL TABLE got) x),
		(SELECT count(*) FROM (TABLE got EXCEPT ALL TABLE cc) y)
$$;

-- exact at every threshold, for both measures (documents without shingles
-- pair with each other under Jaccard, and with nothing under containment)
SELECT d.* FROM unnest(ARRAY[0.1, 0.3, 0.5, 0.8, 1.0]) t, ss_diff(t, 'jaccard') d;
SELECT d.* FROM unnest(ARRAY[0.3, 0.5, 0.9]) t, ss_diff(t, 'containment') d;
SELECT d.* FROM unnest(ARRAY[0.3, 0.7]) t, ss_join_diff(t, 'jaccard') d;
SELECT d.* FROM unnest(ARRAY[0.5, 0.95]) t, ss_join_diff(t, 'containment') d;
SELECT d.* FROM unnest(ARRAY[0.3, 0.6]) t, ss_clusters_diff(t) d;
-- mod-m samples: the same rule on the samples (as jaccard() compares them)
SELECT count(*) AS found,
	(SELECT count(*) FROM ss_truth WHERE jm >= 0.5) AS truth,
	count(*) FILTER (WHERE (id1, id2) IN (SELECT id1, id2 FROM ss_truth WHERE jm >= 0.5)) AS agree
FROM shingleset_pairs('SELECT id, s_mod FROM ss_docs', 0.5);
-- the relation forms, named arguments, an order key
SELECT (SELECT count(*) FROM shingleset_pairs('ss_docs', 'id', 's', 0.5)) =
	(SELECT count(*) FROM shingleset_pairs('SELECT id, s FROM ss_docs', 0.5)) AS rel_pairs_same;
SELECT count(*) FROM shingleset_pairs('ss_docs', 'id', 's', threshold => 0.5, measure => 'containment');
SELECT count(*), count(DISTINCT cluster_id) FROM shingleset_clusters('ss_docs', 'id', 's', 0.5, mode => 'components');
SELECT count(*) FROM shingleset_clusters('ss_docs', 'id', 's', 0.5, singletons => false, mode => 'components');
-- the earliest member by the order column names the cluster
SELECT count(*) FILTER (WHERE c.cluster_id <> m.first) AS misnamed
FROM shingleset_clusters('SELECT id, s, -id FROM ss_docs', 0.5, mode => 'components') c
JOIN (SELECT cluster_id, max(id) AS first FROM shingleset_clusters('SELECT id, s, -id FROM ss_docs', 0.5, mode => 'components')
	  GROUP BY cluster_id) m USING (cluster_id);

-- through temporary files: the same answers
CREATE TABLE ss_mem AS
SELECT 'pairs 0.5' AS variant, id1 AS a, id2 AS b, similarity AS x FROM shingleset_pairs('SELECT id, s FROM ss_docs', 0.5)
UNION ALL SELECT 'containment 0.7', * FROM shingleset_pairs('SELECT id, s FROM ss_docs', 0.7, 'containment')
UNION ALL SELECT 'join', * FROM shingleset_join('SELECT id, s FROM ss_docs WHERE id % 2 = 0', 'SELECT id, s FROM ss_docs WHERE id % 2 = 1', 0.4)
UNION ALL SELECT 'join containment', * FROM shingleset_join('SELECT id, s FROM ss_docs WHERE id % 2 = 0', 'SELECT id, s FROM ss_docs WHERE id % 2 = 1', 0.8, 'containment')
UNION ALL SELECT 'clusters', id, cluster_id, NULL FROM shingleset_clusters('SELECT id % 900, s, -id FROM ss_docs', 0.4, mode => 'components')
UNION ALL SELECT 'no singletons', id, cluster_id, NULL FROM shingleset_clusters('SELECT id, s FROM ss_docs', 0.6, false, mode => 'components');
SET work_mem = '64kB';
CREATE TABLE ss_spill AS
SELECT 'pairs 0.5' AS variant, id1 AS a, id2 AS b, similarity AS x FROM shingleset_pairs('SELECT id, s FROM ss_docs', 0.5)
UNION ALL SELECT 'containment 0.7', * FROM shingleset_pairs('SELECT id, s FROM ss_docs', 0.7, 'containment')
UNION ALL SELECT 'join', * FROM shingleset_join('SELECT id, s FROM ss_docs WHERE id % 2 = 0', 'SELECT id, s FROM ss_docs WHERE id % 2 = 1', 0.4)
UNION ALL SELECT 'join containment', * FROM shingleset_join('SELECT id, s FROM ss_docs WHERE id % 2 = 0', 'SELECT id, s FROM ss_docs WHERE id % 2 = 1', 0.8, 'containment')
UNION ALL SELECT 'clusters', id, cluster_id, NULL FROM shingleset_clusters('SELECT id % 900, s, -id FROM ss_docs', 0.4, mode => 'components')
UNION ALL SELECT 'no singletons', id, cluster_id, NULL FROM shingleset_clusters('SELECT id, s FROM ss_docs', 0.6, false, mode => 'components');
RESET work_mem;
SELECT variant, count(*) AS rows,
	(SELECT count(*) FROM (SELECT * FROM ss_mem m WHERE m.variant = v.variant
						   EXCEPT ALL SELECT * FROM ss_spill s WHERE s.variant = v.variant) x) AS missing,
	(SELECT count(*) FROM (SELECT * FROM ss_spill s WHERE s.variant = v.variant
						   EXCEPT ALL SELECT * FROM ss_mem m WHERE m.variant = v.variant) y) AS extra
FROM ss_mem v GROUP BY variant ORDER BY variant;

-- errors
SELECT * FROM shingleset_pairs('SELECT id, s FROM ss_docs', 0);
SELECT * FROM shingleset_pairs('SELECT id, s FROM ss_docs', 1.5);
SELECT * FROM shingleset_pairs('SELECT id, s FROM ss_docs', 'NaN');
SELECT * FROM shingleset_pairs('SELECT id, s FROM ss_docs', 0.5, 'cosine');
SELECT * FROM shingleset_pairs('SELECT id, s_bottom FROM ss_docs', 0.5);
SELECT * FROM shingleset_pairs('SELECT id, CASE WHEN id < 500 THEN s ELSE s4 END FROM ss_docs', 0.5);
SELECT * FROM shingleset_pairs('SELECT id, body FROM ss_docs', 0.5);
SELECT * FROM shingleset_pairs('ss_docs', 'id', 'body', 0.5);
SELECT * FROM shingleset_pairs('ss_docs', 'id', 'nope', 0.5);
SELECT * FROM shingleset_pairs(NULL, 0.5);
SELECT * FROM shingleset_clusters('ss_docs', 'id', 's', 0.5, NULL, NULL, mode => 'components');

DROP TABLE ss_words, ss_docs, ss_truth, ss_jtruth, ss_mem, ss_spill;
DROP FUNCTION ss_variants, ss_diff, ss_join_diff, ss_clusters_diff;
