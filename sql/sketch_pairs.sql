--
-- Batch functions over resemblance sketches:
-- minhash_pairs, minhash_join, minhash_clusters, super_shingle_pairs.
-- Every answer is compared with a brute-force SQL computation.
--

-- 1,000 documents of 20-60 md5 words, 800 variants with 0-6 of their first
-- 20 words replaced (200 are variants of variants) and 40 exact copies:
-- deterministic, no random()
CREATE TABLE sp_words (id bigint, pos integer, word text);
INSERT INTO sp_words
SELECT g, j, substr(md5('d' || g || '/' || j), 1, 6)
FROM generate_series(1, 1000) g, generate_series(1, 20 + g % 41) j;
CREATE FUNCTION sp_variants(plan text) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE 'INSERT INTO sp_words
	SELECT p.id, w.pos,
		CASE WHEN w.pos IN (SELECT 1 + get_byte(decode(md5(''e'' || p.id || ''/'' || i), ''hex''), 0) % 20
							FROM generate_series(1, p.edits) i)
			 THEN substr(md5(''r'' || p.id || ''/'' || w.pos), 1, 6) ELSE w.word END
	FROM (' || plan || ') p (id, base, edits) JOIN sp_words w ON w.id = p.base';
END
$$;
SELECT sp_variants('SELECT 10000 + g, 1 + (g * 7) % 1000, g % 7 FROM generate_series(1, 600) g');
SELECT sp_variants('SELECT 20000 + g, 10000 + 1 + (g * 3) % 600, 1 + g % 3 FROM generate_series(1, 200) g');
SELECT sp_variants('SELECT 30000 + g, g * 23, 0 FROM generate_series(1, 40) g');
CREATE TABLE sp_docs AS
SELECT id, string_agg(word, ' ' ORDER BY pos) AS body FROM sp_words GROUP BY id;
ALTER TABLE sp_docs ADD s minhash_sketch, ADD s84 minhash_sketch, ADD s8 minhash_sketch;
UPDATE sp_docs SET s = minhash(body), s84 = minhash(body, 84, 'kperm');
UPDATE sp_docs SET s8 = minhash_bbit(s, 8);
SELECT count(*), count(DISTINCT body), min(minhash_k(s)) AS k FROM sp_docs;

-- the truth: every pair with an estimate of at least 0.5, by a plain self-join
CREATE TABLE sp_truth AS
SELECT a.id AS id1, b.id AS id2, jaccard(a.s, b.s) AS resemblance
FROM sp_docs a JOIN sp_docs b ON a.id < b.id AND jaccard(a.s, b.s) >= 0.5;
SELECT resemblance >= 0.7 AS ge07, resemblance >= 0.9 AS ge09, count(*)
FROM sp_truth GROUP BY 1, 2 ORDER BY 1, 2;

-- missing and extra pairs (EXCEPT ALL: a pair reported twice is extra)
CREATE FUNCTION sp_diff(t float8, b integer DEFAULT NULL, r integer DEFAULT NULL)
RETURNS TABLE (threshold float8, bands integer, "rows" integer, found bigint, missing bigint, extra bigint)
LANGUAGE sql AS $$
	WITH got AS (SELECT * FROM minhash_pairs('SELECT id, s FROM sp_docs', t, b, r)),
	tr AS (SELECT * FROM sp_truth WHERE resemblance >= t)
	SELECT t, b, r, (SELECT count(*) FROM got),
		(SELECT count(*) FROM (TABLE tr EXCEPT ALL TABLE got) x),
		(SELECT count(*) FROM (TABLE got EXCEPT ALL TABLE tr) y)
$$;

-- the exact default layout: b = k - ceil(t k) + 1 bands of floor(k / b) rows
SELECT d.* FROM unnest(ARRAY[0.5, 0.7, 0.9, 0.95, 1.0]) t, sp_diff(t) d;
-- the same layout given explicitly, and a wider exact one (more bands)
SELECT * FROM sp_diff(0.7, 39, 3);
SELECT * FROM sp_diff(0.7, 64);
-- approximate layouts: a subset of the truth, never a wrong or repeated pair
SELECT * FROM sp_diff(0.7, 8, 16);
SELECT * FROM sp_diff(0.9, NULL, 8);
-- with 20 bands of 6 rows nearly every pair of 0.9 is found (1 - (1 - 0.9^6)^20)
SELECT found >= 0.99 * (found + missing) AS recall_ok, extra FROM sp_diff(0.9, 20, 6);
-- the relation form and named arguments
SELECT count(*) FROM minhash_pairs('sp_docs', 'id', 's', 0.7);
SELECT count(*) FROM minhash_pairs('sp_docs'::regclass, 'id', 's', threshold => 0.7, bands => 64);
SELECT count(*) FROM minhash_pairs(query => 'SELECT id, s FROM sp_docs', threshold => 0.9, "rows" => 4);
-- an integer threshold selects the relation form too (not the query form)
SELECT (SELECT count(*) FROM minhash_pairs('sp_docs', 'id', 's', 1)) =
	(SELECT count(*) FROM sp_truth WHERE resemblance = 1) AS relation_form_threshold_1;
SELECT (SELECT count(*) FROM minhash_clusters('sp_docs', 'id', 's', 1, mode => 'components')) =
	(SELECT count(*) FROM sp_docs) AS relation_form_clusters_1;
CREATE VIEW sp_first50 AS SELECT * FROM sp_docs ORDER BY id LIMIT 50;
SELECT (SELECT count(*) FROM minhash_pairs('sp_first50', 'id', 's', 0, 2, 1)) = 50 * 49 / 2
	AS relation_form_threshold_0;
DROP VIEW sp_first50;
SELECT * FROM minhash_pairs('SELECT id, s FROM sp_docs', 0.5, 4294967297);

-- k-permutation sketches (k = 84) and b-bit sketches (b = 8, chance-corrected)
CREATE TABLE sp_truth2 AS
SELECT a.id AS id1, b.id AS id2, jaccard(a.s84, b.s84) AS r84, jaccard(a.s8, b.s8) AS r8
FROM sp_docs a JOIN sp_docs b
ON a.id < b.id AND (jaccard(a.s84, b.s84) >= 0.8 OR jaccard(a.s8, b.s8) >= 0.7);
WITH got AS (SELECT * FROM minhash_pairs('SELECT id, s84 FROM sp_docs', 0.8)),
tr AS (SELECT id1, id2, r84 FROM sp_truth2 WHERE r84 >= 0.8)
SELECT 'kperm k=84, t=0.8' AS sketches, (SELECT count(*) FROM got) AS found,
	(SELECT count(*) FROM (TABLE tr EXCEPT ALL TABLE got) x) AS missing,
	(SELECT count(*) FROM (TABLE got EXCEPT ALL TABLE tr) y) AS extra;
WITH got AS (SELECT * FROM minhash_pairs('SELECT id, s8 FROM sp_docs', 0.7)),
tr AS (SELECT id1, id2, r8 FROM sp_truth2 WHERE r8 >= 0.7)
SELECT 'oph k=128 b=8, t=0.7' AS sketches, (SELECT count(*) FROM got) AS found,
	(SELECT count(*) FROM (TABLE tr EXCEPT ALL TABLE got) x) AS missing,
	(SELECT count(*) FROM (TABLE got EXCEPT ALL TABLE tr) y) AS extra;

-- minhash_join: originals against variants, and a set against itself
SELECT
	(SELECT count(*) FROM minhash_join('SELECT id, s FROM sp_docs WHERE id < 10000',
		'SELECT id, s FROM sp_docs WHERE id >= 10000', 0.7)) AS found,
	(SELECT count(*) FROM (
		SELECT a.id, b.id, jaccard(a.s, b.s) FROM sp_docs a, sp_docs b
		WHERE a.id < 10000 AND b.id >= 10000 AND jaccard(a.s, b.s) >= 0.7
		EXCEPT ALL SELECT * FROM minhash_join('SELECT id, s FROM sp_docs WHERE id < 10000',
			'SELECT id, s FROM sp_docs WHERE id >= 10000', 0.7)) x) AS missing,
	(SELECT count(*) FROM (
		SELECT * FROM minhash_join('SELECT id, s FROM sp_docs WHERE id < 10000',
			'SELECT id, s FROM sp_docs WHERE id >= 10000', 0.7)
		EXCEPT ALL SELECT a.id, b.id, jaccard(a.s, b.s) FROM sp_docs a, sp_docs b
		WHERE a.id < 10000 AND b.id >= 10000 AND jaccard(a.s, b.s) >= 0.7) y) AS extra;
-- the b side first: ids come out as (id_a, id_b)
SELECT count(*) FILTER (WHERE id_a >= 10000 AND id_b < 10000) AS oriented, count(*)
FROM minhash_join('SELECT id, s FROM sp_docs WHERE id >= 10000',
	'SELECT id, s FROM sp_docs WHERE id < 10000', 0.7);
-- a row on both sides meets itself
SELECT count(*) FILTER (WHERE id_a = id_b AND resemblance = 1) AS self, count(*)
FROM minhash_join('SELECT id, s FROM sp_docs WHERE id % 10 = 0',
	'SELECT id, s FROM sp_docs WHERE id % 10 = 0', 0.9);

-- minhash_clusters = connected components of the truth (clusters_from_pairs)
CREATE FUNCTION sp_clusters_diff(t float8) RETURNS TABLE (threshold float8, clusters bigint, missing bigint, extra bigint)
LANGUAGE sql AS $$
	WITH got AS (SELECT * FROM minhash_clusters('SELECT id, s FROM sp_docs', t, mode => 'components')),
	cc AS (SELECT * FROM clusters_from_pairs(
		'SELECT id, NULL::bigint FROM sp_docs UNION ALL SELECT id1, id2 FROM sp_truth WHERE resemblance >= ' || t, mode => 'components'))
	SELECT t, (SELECT count(DISTINCT cluster_id) FROM got),
		(SELECT count(*) FROM (TABLE cc EXCEPT ALL TABLE got) x),
		(SELECT count(*) FROM (TABLE got EXCEPT ALL TABLE cc) y)
$$;
SELECT d.* FROM unnest(ARRAY[0.5, 0.7, 0.9]) t, sp_clusters_diff(t) d;
-- an order key names each cluster after its earliest member (here: the largest id)
WITH got AS (SELECT * FROM minhash_clusters('SELECT id, s, -id FROM sp_docs', 0.7, mode => 'components')),
cc AS (SELECT id, max(id) OVER (PARTITION BY cluster_id) AS cluster_id
	   FROM clusters_from_pairs('SELECT id, NULL::bigint FROM sp_docs UNION ALL
								 SELECT id1, id2 FROM sp_truth WHERE resemblance >= 0.7', mode => 'components'))
SELECT (SELECT count(*) FROM got) AS n,
	(SELECT count(*) FROM (TABLE cc EXCEPT ALL TABLE got) x) AS missing;
-- the relation form with an order column, without singletons
SELECT count(*), count(DISTINCT cluster_id), bool_and(cluster_id <= id) AS earliest_named
FROM minhash_clusters('sp_docs', 'id', 's', 0.7, 'id', singletons => false, mode => 'components');
CREATE TEMP VIEW sp_neg AS SELECT id, s, -id AS o FROM sp_docs;
SELECT count(*), bool_and(cluster_id >= id) AS largest_named
FROM minhash_clusters('sp_neg', 'id', 's', 0.7, 'o', singletons => false, mode => 'components');

-- super_shingle_pairs = the self-join with super_shingles_match
ALTER TABLE sp_docs ADD ss bigint[];
UPDATE sp_docs SET ss = super_shingles(s84);
CREATE TABLE sp_sstruth AS
SELECT a.id AS id1, b.id AS id2,
	(SELECT count(*)::integer FROM generate_subscripts(a.ss, 1) i WHERE a.ss[i] = b.ss[i]) AS matches
FROM sp_docs a JOIN sp_docs b ON a.id < b.id AND super_shingles_match(a.ss, b.ss, 1);
CREATE FUNCTION sp_ssdiff(r integer) RETURNS TABLE (r integer, found bigint, missing bigint, extra bigint)
LANGUAGE sql AS $$
	WITH got AS (SELECT * FROM super_shingle_pairs('SELECT id, ss FROM sp_docs', r)),
	tr AS (SELECT * FROM sp_sstruth WHERE matches >= r)
	SELECT r, (SELECT count(*) FROM got),
		(SELECT count(*) FROM (TABLE tr EXCEPT ALL TABLE got) x),
		(SELECT count(*) FROM (TABLE got EXCEPT ALL TABLE tr) y)
$$;
SELECT d.* FROM generate_series(1, 7) r, sp_ssdiff(r) d;
-- super_shingles_match agrees
SELECT count(*) FILTER (WHERE super_shingles_match(a.ss, b.ss, 2) <> (t.matches >= 2)) AS disagree
FROM sp_sstruth t JOIN sp_docs a ON a.id = t.id1 JOIN sp_docs b ON b.id = t.id2;
SELECT count(*) FROM super_shingle_pairs('SELECT id, ss FROM sp_docs');
SELECT * FROM super_shingle_pairs('VALUES (1, ARRAY[1, 2, 3]::bigint[]), (2, ARRAY[1, 5, 3]),
	(2, ARRAY[1, 2, 3]), (3, NULL), (NULL, ARRAY[1, 2, 3]), (4, ''{}''), (5, ARRAY[9, 2, 3])')
ORDER BY 1, 2, 3;
SELECT * FROM super_shingle_pairs('VALUES (1, ARRAY[1, 2]::bigint[]), (2, ARRAY[1, 2, 3])');
SELECT * FROM super_shingle_pairs('VALUES (1, ARRAY[1, NULL]::bigint[])');
SELECT * FROM super_shingle_pairs('SELECT id, ss FROM sp_docs', 0);
SELECT * FROM super_shingle_pairs('SELECT id, s FROM sp_docs');

-- edge cases
CREATE TABLE sp_small (id integer, s minhash_sketch);
SELECT * FROM minhash_pairs('SELECT id, s FROM sp_small', 0.5);
SELECT * FROM minhash_clusters('SELECT id, s FROM sp_small', 0.5, mode => 'components');
INSERT INTO sp_small VALUES (1, minhash('the quick brown fox jumps over the lazy dog'));
SELECT * FROM minhash_pairs('SELECT id, s FROM sp_small', 0.5);
SELECT * FROM minhash_pairs('SELECT id, s FROM sp_small', 0);
SELECT * FROM minhash_clusters('SELECT id, s FROM sp_small', 0.5, mode => 'components');
-- NULL ids and sketches are skipped; repeated ids and identical rows are rows
INSERT INTO sp_small VALUES
	(NULL, minhash('the quick brown fox jumps over the lazy dog')), (2, NULL),
	(1, minhash('the quick brown fox jumps over the lazy dog')),
	(3, minhash('the quick brown fox jumps over the lazy dog')),
	(4, minhash('the quick brown fox jumps over the lazy cat')),
	(5, minhash('')), (6, minhash('!!!')),
	(7, minhash('an entirely different sentence about databases and indexes'));
SELECT * FROM minhash_pairs('SELECT id, s FROM sp_small', 0.5) ORDER BY 1, 2, 3;
SELECT * FROM minhash_pairs('SELECT id, s FROM sp_small', 1.0) ORDER BY 1, 2, 3;
-- threshold 0: every pair, also empty documents against others (resemblance 0)
SELECT count(*), count(*) FILTER (WHERE resemblance = 0) AS zero
FROM minhash_pairs('SELECT id, s FROM sp_small', 0);
SELECT count(*) = count(*) FILTER (WHERE jaccard(a.s, b.s) >= 0) AS all_pairs
FROM sp_small a JOIN sp_small b ON a.ctid < b.ctid AND a.id IS NOT NULL AND b.s IS NOT NULL AND a.s IS NOT NULL AND b.id IS NOT NULL;
SELECT * FROM minhash_clusters('SELECT id, s FROM sp_small', 0.5, mode => 'components') ORDER BY 1;
SELECT * FROM minhash_clusters('SELECT id, s FROM sp_small', 0.5, singletons => false, mode => 'components') ORDER BY 1;
SELECT count(DISTINCT cluster_id) FROM minhash_clusters('SELECT id, s FROM sp_small', 0, mode => 'components');
SELECT * FROM minhash_join('SELECT id, s FROM sp_small WHERE id < 4',
	'SELECT id, s FROM sp_small WHERE id >= 3', 0.5) ORDER BY 1, 2;
-- NULL arguments: no rows
SELECT count(*) FROM minhash_pairs(NULL, 0.5);
SELECT count(*) FROM minhash_pairs('SELECT id, s FROM sp_small', NULL);
SELECT count(*) FROM minhash_clusters('sp_small', 'id', 's', NULL::float8, mode => 'components');
-- sketches made differently
SELECT * FROM minhash_pairs('SELECT 1, minhash(''a b c d'') UNION ALL SELECT 2, minhash(''a b c d'', 64)', 0.5);
SELECT * FROM minhash_pairs('SELECT 1, minhash(''a b c d'') UNION ALL SELECT 2, minhash_bbit(minhash(''a b c d''), 8)', 0.5);
SELECT * FROM minhash_join('SELECT 1, minhash(''a b c d'')', 'SELECT 2, minhash(''a b c d'', 128, ''kperm'')', 0.5);
-- bad arguments
SELECT * FROM minhash_pairs('SELECT id, s FROM sp_small', -0.1);
SELECT * FROM minhash_pairs('SELECT id, s FROM sp_small', 1.5);
SELECT * FROM minhash_pairs('SELECT id, s FROM sp_small', 'NaN');
SELECT * FROM minhash_pairs('SELECT id, s FROM sp_small', 0.5, 0);
SELECT * FROM minhash_pairs('SELECT id, s FROM sp_small', 0.5, NULL, -1);
SELECT * FROM minhash_pairs('SELECT id, s FROM sp_small', 0.5, 2000);
SELECT * FROM minhash_pairs('SELECT id, s FROM sp_small', 0.5, 20, 20);
SELECT * FROM minhash_clusters('SELECT id, s FROM sp_small', 2, mode => 'components');
SELECT * FROM minhash_join('SELECT id, s FROM sp_small', 'SELECT id, s FROM sp_small', 0.5, 0);
-- bad queries
SELECT * FROM minhash_pairs('SELECT id FROM sp_small', 0.5);
SELECT * FROM minhash_pairs('SELECT id, s::text FROM sp_small', 0.5);
SELECT * FROM minhash_pairs('SELECT s, id FROM sp_small', 0.5);
SELECT * FROM minhash_pairs('DELETE FROM sp_small RETURNING id, s', 0.5);
SELECT * FROM minhash_pairs('SELECT 1; SELECT 2', 0.5);
SELECT * FROM minhash_pairs('sp_small', 'id', 'nope', 0.5);
SELECT * FROM minhash_pairs('no_such_table', 'id', 's', 0.5);
SELECT * FROM minhash_clusters('SELECT id, s, s FROM sp_small', 0.5, mode => 'components');

-- a tiny work_mem: the rows and the bands go through temporary files and
-- give the same answers (pairs, a join, clusters with repeated ids and an
-- order key, super-shingles)
CREATE TABLE sp_mem AS
SELECT 'join' AS variant, id_a AS a, id_b AS b, resemblance AS x
FROM minhash_join('SELECT id, s FROM sp_docs WHERE id % 2 = 0', 'SELECT id, s FROM sp_docs WHERE id % 2 = 1', 0.5)
UNION ALL SELECT 'clusters', id, cluster_id, NULL
FROM minhash_clusters('SELECT id % 900, s, -id FROM sp_docs', 0.5, mode => 'components')
UNION ALL SELECT 'no singletons', id, cluster_id, NULL
FROM minhash_clusters('SELECT id, s FROM sp_docs', 0.7, singletons => false, mode => 'components')
UNION ALL SELECT 'b-bit', id1, id2, resemblance
FROM minhash_pairs('SELECT id, minhash_bbit(s, 8) FROM sp_docs', 0.6);
SET work_mem = '64kB';
SELECT * FROM sp_diff(0.7);
SELECT * FROM sp_diff(0.7, 8, 16);	-- approximate: as in memory above
SELECT * FROM sp_ssdiff(2);
CREATE TABLE sp_spill AS
SELECT 'join' AS variant, id_a AS a, id_b AS b, resemblance AS x
FROM minhash_join('SELECT id, s FROM sp_docs WHERE id % 2 = 0', 'SELECT id, s FROM sp_docs WHERE id % 2 = 1', 0.5)
UNION ALL SELECT 'clusters', id, cluster_id, NULL
FROM minhash_clusters('SELECT id % 900, s, -id FROM sp_docs', 0.5, mode => 'components')
UNION ALL SELECT 'no singletons', id, cluster_id, NULL
FROM minhash_clusters('SELECT id, s FROM sp_docs', 0.7, singletons => false, mode => 'components')
UNION ALL SELECT 'b-bit', id1, id2, resemblance
FROM minhash_pairs('SELECT id, minhash_bbit(s, 8) FROM sp_docs', 0.6);
-- (at least 1,024 rows are always kept in memory)
SELECT count(*) FROM minhash_pairs('SELECT id, s FROM sp_docs WHERE id % 3 = 0', 0.7);
RESET work_mem;
SELECT variant, count(*) AS rows,
	(SELECT count(*) FROM (SELECT * FROM sp_mem m WHERE m.variant = v.variant
						   EXCEPT ALL SELECT * FROM sp_spill s WHERE s.variant = v.variant) x) AS missing,
	(SELECT count(*) FROM (SELECT * FROM sp_spill s WHERE s.variant = v.variant
						   EXCEPT ALL SELECT * FROM sp_mem m WHERE m.variant = v.variant) y) AS extra
FROM sp_mem v GROUP BY variant ORDER BY variant;
DROP TABLE sp_mem, sp_spill;
-- the documents and 24,000 unrelated ones at 64kB: the entries of the 65
-- bands take two passes over the rows; the same clusters
CREATE TABLE sp_more AS
SELECT id, s FROM sp_docs
UNION ALL
SELECT 100000 + g, minhash((SELECT string_agg(substr(md5('m' || g || '/' || j), 1, 6), ' ')
							FROM generate_series(1, 20) j))
FROM generate_series(1, 24000) g;
CREATE TABLE sp_more_mem AS SELECT * FROM minhash_clusters('SELECT id, s FROM sp_more', 0.5, mode => 'components');
SET work_mem = '64kB';
SET nddup.progress = on;
\set VERBOSITY terse
CREATE TABLE sp_more_spill AS SELECT * FROM minhash_clusters('SELECT id, s FROM sp_more', 0.5, mode => 'components');
\set VERBOSITY default
RESET nddup.progress;
RESET work_mem;
SELECT count(*) AS rows, count(DISTINCT cluster_id) AS clusters,
	(SELECT count(*) FROM (TABLE sp_more_mem EXCEPT ALL TABLE sp_more_spill) x) AS missing,
	(SELECT count(*) FROM (TABLE sp_more_spill EXCEPT ALL TABLE sp_more_mem) y) AS extra
FROM sp_more_mem;
DROP TABLE sp_more, sp_more_mem, sp_more_spill;

-- statement_timeout stops a long run (20,000 copies: 200M result pairs)
CREATE TABLE sp_copies AS
SELECT g AS id, (SELECT s FROM sp_docs WHERE id = 1) AS s FROM generate_series(1, 20000) g;
SET work_mem = '64MB';
SET statement_timeout = '300ms';
\set VERBOSITY terse
SELECT count(*) FROM minhash_pairs('SELECT id, s FROM sp_copies', 0.9);
\set VERBOSITY default
RESET statement_timeout;
-- clustering the copies is quick: identical sketches are grouped first
SELECT count(DISTINCT cluster_id) FROM minhash_clusters('SELECT id, s FROM sp_copies', 0.9, mode => 'components');
-- also through temporary files
SET work_mem = '64kB';
SELECT count(DISTINCT cluster_id) FROM minhash_clusters('SELECT id, s FROM sp_copies', 0.9, mode => 'components');
RESET work_mem;

DROP TABLE sp_words, sp_docs, sp_truth, sp_truth2, sp_sstruth, sp_small, sp_copies CASCADE;
DROP FUNCTION sp_variants, sp_diff, sp_clusters_diff, sp_ssdiff;
