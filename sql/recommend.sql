--
-- nddup_recommend_threshold: the threshold (radius) at the valley between the background and a
-- planted near-duplicate mode, the same answer for the same data and seed, and its errors
--
CREATE TABLE rec_docs (id integer PRIMARY KEY, body text);
-- 600 documents: one of five shared headers (12 words) and 20 to 60 words of their own
INSERT INTO rec_docs
SELECT i, (SELECT string_agg('hd' || (i % 5) || 'w' || j, ' ') FROM generate_series(1, 12) j)
	|| ' ' || (SELECT string_agg(substr(md5(i || ':' || j), 1, 7), ' ') FROM generate_series(1, 20 + i % 41) j)
FROM generate_series(1, 600) i;
-- 150 planted near-duplicates of documents 1..150: every tenth word replaced
INSERT INTO rec_docs
SELECT 10000 + id, (SELECT string_agg(CASE WHEN n % 10 = 5 THEN 'edit' || n ELSE w END, ' ' ORDER BY n)
	FROM unnest(string_to_array(body, ' ')) WITH ORDINALITY u(w, n))
FROM rec_docs WHERE id <= 150;
ALTER TABLE rec_docs ADD COLUMN sk minhash_sketch, ADD COLUMN fp simhash64, ADD COLUMN ss shingleset;
UPDATE rec_docs SET sk = minhash(body), fp = simhash(body), ss = shingle_set(body);

-- the recommended threshold separates the planted pairs from all the others: every planted
-- pair's estimate reaches it and no other pair's does (the valley); the counts it reports are
-- those of minhash_pairs
CREATE TABLE rec_pairs AS
SELECT id1, id2, resemblance, id2 = id1 + 10000 AS planted FROM minhash_pairs('rec_docs', 'id', 'sk', 0.05);
SELECT r.valley_found, r.note, r.sampled_rows, r.table_rows, r.radius,
	r.threshold > (SELECT max(resemblance) FROM rec_pairs WHERE NOT planted) AS above_background,
	r.threshold <= (SELECT min(resemblance) FROM rec_pairs WHERE planted) AS below_planted,
	r.background_mode < r.valley AND r.valley < r.duplicate_mode AS modes_in_order,
	r.flagged_pairs = (SELECT count(*) FROM rec_pairs WHERE resemblance >= r.threshold) AS flagged_counted,
	r.candidate_pairs = (SELECT count(*) FROM rec_pairs WHERE resemblance >= r.bin_lower[1]) AS pairs_counted,
	r.bin_pairs[5] = (SELECT count(*) FROM rec_pairs
		WHERE resemblance >= r.bin_lower[5] AND resemblance < r.bin_lower[6]) AS bin_counted,
	cardinality(r.bin_lower) = cardinality(r.bin_pairs) AS one_count_per_bin
FROM nddup_recommend_threshold('rec_docs', 'id', 'sk') r;

-- the same answer again, and from the text (minhash(body) is the column's sketch)
SELECT a = b AS same_again, a = c AS text_same_as_sketch
FROM (SELECT r FROM nddup_recommend_threshold('rec_docs', 'id', 'sk') r) x(a),
	(SELECT r FROM nddup_recommend_threshold('rec_docs', 'id', 'sk') r) y(b),
	(SELECT r FROM nddup_recommend_threshold('rec_docs', 'id', 'body') r) z(c);

-- a sample of 300 rows joined with the whole table, two seeds: still in the valley, the same
-- answer again, and every pair of a sampled row counted once
SELECT seed, r.sampled_rows, r.valley_found,
	r.threshold > (SELECT max(resemblance) FROM rec_pairs WHERE NOT planted) AS above_background,
	r.threshold <= (SELECT min(resemblance) FROM rec_pairs WHERE planted) AS below_planted,
	r = (SELECT s FROM nddup_recommend_threshold('rec_docs', 'id', 'sk', 300, seed) s) AS same_again,
	r.candidate_pairs = (SELECT count(*) FROM rec_pairs p WHERE p.resemblance >= r.bin_lower[1]
		AND (p.id1 IN (SELECT id FROM rec_docs ORDER BY hashint8extended(id, seed) LIMIT 300)
			OR p.id2 IN (SELECT id FROM rec_docs ORDER BY hashint8extended(id, seed) LIMIT 300)))
		AS sample_pairs_counted
FROM (VALUES (0), (7)) v(seed), LATERAL nddup_recommend_threshold('rec_docs', 'id', 'sk', 300, seed) r;

-- exact shingle sets: the valley of the exact Jaccard values
SELECT r.valley_found, r.radius,
	r.threshold > (SELECT max(jaccard(a.ss, b.ss)) FROM rec_pairs p JOIN rec_docs a ON a.id = p.id1
		JOIN rec_docs b ON b.id = p.id2 WHERE NOT planted) AS above_background,
	r.threshold <= (SELECT min(jaccard(a.ss, b.ss)) FROM rec_docs a JOIN rec_docs b ON b.id = a.id + 10000)
		AS below_planted
FROM nddup_recommend_threshold('rec_docs', 'id', 'ss') r;

-- no evidence: too few pairs keep nddup.similarity_threshold
CREATE TABLE rec_few AS SELECT * FROM rec_docs WHERE id <= 20 OR id BETWEEN 10000 AND 10005;
SET nddup.similarity_threshold = 0.45;
SELECT threshold, valley_found, candidate_pairs, note FROM nddup_recommend_threshold('rec_few', 'id', 'sk');
RESET nddup.similarity_threshold;

-- 400 longer documents (150 to 250 words of their own) and 100 planted copies with every
-- 25th word replaced: simhash fingerprints of the copies lie a few bits away
CREATE TABLE rec_long (id bigint PRIMARY KEY, body text, fp simhash64);
INSERT INTO rec_long (id, body)
SELECT i, (SELECT string_agg(substr(md5(i || '/' || j), 1, 6), ' ') FROM generate_series(1, 150 + i % 101) j)
FROM generate_series(1, 400) i;
INSERT INTO rec_long (id, body)
SELECT 10000 + id, (SELECT string_agg(CASE WHEN n % 25 = 7 THEN 'edit' || n ELSE w END, ' ' ORDER BY n)
	FROM unnest(string_to_array(body, ' ')) WITH ORDINALITY u(w, n))
FROM rec_long WHERE id <= 100;
UPDATE rec_long SET fp = simhash(body);

-- simhash64: the radius lies between the planted copies' mode and the nearest unrelated pair
-- (radius 24 finds the unrelated pairs: its warning about chance pairs is expected, not shown)
SET client_min_messages = error;
SELECT r.valley_found, r.threshold, r.note,
	r.radius >= r.duplicate_mode AS above_planted_mode,
	r.radius < (SELECT min(distance) FROM hamming_pairs('rec_long', 'id', 'fp', 24) WHERE id2 <> id1 + 10000)
		AS below_background,
	r.flagged_pairs = (SELECT count(*) FROM hamming_pairs('rec_long', 'id', 'fp', r.radius)) AS flagged_counted
FROM nddup_recommend_threshold('rec_long', 'id', 'fp') r;
RESET client_min_messages;
-- short texts: the radius where the count stops falling, and how many of the pairs it flags
-- are planted copies; too few pairs: no evidence, radius 3
SELECT r.radius, r.valley_found, r.note, r.bin_pairs[21] > r.bin_pairs[11] AS background_rises,
	(SELECT count(*) FILTER (WHERE id2 = id1 + 10000) FROM hamming_pairs('rec_docs', 'id', 'fp', r.radius)) AS planted,
	r.flagged_pairs
FROM nddup_recommend_threshold('rec_docs', 'id', 'fp') r;
SELECT radius, valley_found, note FROM nddup_recommend_threshold('rec_few', 'id', 'fp');

-- below 0.2: pairs of 40-word sets sharing k words (Jaccard k / (80 - k)), each pair with words of
-- its own; a background falling from 0.11 to a dip at 0.14-0.16 and a near-duplicate mode from
-- 0.18 on (rec_dip), and the same without the dip (rec_nodip: counts rise from 0.12 on)
CREATE FUNCTION rec_pairset(tab text, counts int[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE k int; i int; p int := 0;
BEGIN
	EXECUTE format('CREATE TABLE %I (id int PRIMARY KEY, ss shingleset)', tab);
	FOR k IN 8 .. 7 + cardinality(counts) LOOP
		FOR i IN 1 .. counts[k - 7] LOOP
			p := p + 1;
			EXECUTE format('INSERT INTO %I SELECT $1 * 2 + s, shingle_set((SELECT string_agg(CASE WHEN w <= $2 OR s = 0 '
				'THEN ''p'' || $1 || ''w'' || w ELSE ''p'' || $1 || ''x'' || w END, '' '') FROM generate_series(1, 40) w), 1, ''word'') '
				'FROM generate_series(0, 1) s', tab) USING p, k;
		END LOOP;
	END LOOP;
END $$;
SELECT rec_pairset('rec_dip', ARRAY[400, 150, 40, 40, 100, 200, 300, 300, 300, 300, 300, 300, 300, 300]);
SELECT rec_pairset('rec_nodip', ARRAY[400, 300, 300, 300, 300, 300, 300, 300, 300, 300, 300, 300, 300, 300]);
SELECT threshold, valley_found, note, bin_pairs[1:8] AS first_bins FROM nddup_recommend_threshold('rec_dip', 'id', 'ss');
SELECT threshold, valley_found, note, bin_pairs[1:8] AS first_bins FROM nddup_recommend_threshold('rec_nodip', 'id', 'ss');
DROP TABLE rec_dip, rec_nodip;
DROP FUNCTION rec_pairset(text, int[]);

-- errors: the relation, its columns and their types, the sample size; NULL gives no row
\set SHOW_CONTEXT never
SELECT * FROM nddup_recommend_threshold('rec_docs', 'id', 'nope');
SELECT * FROM nddup_recommend_threshold('rec_docs', 'nope', 'sk');
SELECT * FROM nddup_recommend_threshold('no_such_table', 'id', 'sk');
SELECT * FROM nddup_recommend_threshold(1::oid::regclass, 'id', 'sk');
SELECT * FROM nddup_recommend_threshold('rec_docs', 'body', 'sk');
SELECT * FROM nddup_recommend_threshold('rec_docs', 'id', 'id');
SELECT * FROM nddup_recommend_threshold('rec_docs_pkey', 'id', 'sk');
SELECT * FROM nddup_recommend_threshold('rec_docs', 'id', 'sk', 5);
SELECT count(*) FROM nddup_recommend_threshold('rec_docs', 'id', 'sk', NULL);
DROP TABLE rec_docs, rec_pairs, rec_few, rec_long;
