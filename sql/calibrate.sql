--
-- nddup_pairs_to_judge, nddup_calibrate, nddup_decide / nddup_decision: a stratified sample of
-- candidate pairs, estimates from its labels over all candidate pairs, the decision kept
--
CREATE TABLE cal_docs (id integer PRIMARY KEY, body text);
-- 400 documents: one of four shared headers (12 words) and 20 to 60 words of their own
INSERT INTO cal_docs
SELECT i, (SELECT string_agg('hd' || (i % 4) || 'w' || j, ' ') FROM generate_series(1, 12) j)
	|| ' ' || (SELECT string_agg(substr(md5(i || ':' || j), 1, 7), ' ') FROM generate_series(1, 20 + i % 41) j)
FROM generate_series(1, 400) i;
-- 120 planted near-duplicates of documents 1..120: every k-th word replaced (k = 7 to 12)
INSERT INTO cal_docs
SELECT 10000 + id, (SELECT string_agg(CASE WHEN n % (7 + id % 6) = 1 THEN 'edit' || n ELSE w END, ' ' ORDER BY n)
	FROM unnest(string_to_array(body, ' ')) WITH ORDINALITY u(w, n))
FROM cal_docs WHERE id <= 120;
ALTER TABLE cal_docs ADD COLUMN ss shingleset, ADD COLUMN sk minhash_sketch;
UPDATE cal_docs SET ss = shingle_set(body), sk = minhash(body);
CREATE TABLE cal_pairs AS
SELECT id1, id2, similarity, id2 = id1 + 10000 AS planted FROM shingleset_pairs('cal_docs', 'id', 'ss', 0.1);

-- 40 pairs of the shingle-set column: spread over the strata that have pairs, each a candidate
-- pair with its exact Jaccard; the weights add up to the candidate pairs of each stratum
CREATE TABLE cal_labels AS SELECT * FROM nddup_pairs_to_judge('cal_docs', 'id', 'ss', 40, seed => 1);
SELECT count(*) AS proposed, count(DISTINCT (a_id, b_id)) AS distinct_pairs,
	bool_and(c.similarity IS NOT NULL AND abs(c.similarity - l.similarity) < 1e-6) AS candidates,
	bool_and(l.stratum = floor((l.similarity - 0.1) / 0.05 + 1e-9)
		OR (l.stratum = 17 AND l.similarity = 1)) AS stratum_of_similarity
FROM cal_labels l LEFT JOIN cal_pairs c ON c.id1 = l.a_id AND c.id2 = l.b_id;
SELECT l.stratum, l.proposed, l.stratum_pairs,
	l.stratum_pairs = (SELECT count(*) FROM cal_pairs c WHERE floor((c.similarity - 0.1) / 0.05 + 1e-9) = l.stratum
		OR (l.stratum = 17 AND c.similarity = 1)) AS counted,
	round(l.weights::numeric, 6) = l.stratum_pairs AS weights_add_up
FROM (SELECT stratum, count(*) AS proposed, max(stratum_pairs) AS stratum_pairs, sum(weight) AS weights
	FROM cal_labels GROUP BY 1) l ORDER BY 1;
-- the same pairs again for the same seed, others for another; the text column proposes the
-- pairs of its shingle sets; a sketch column those of its estimates
SELECT (SELECT array_agg(p ORDER BY p) FROM nddup_pairs_to_judge('cal_docs', 'id', 'ss', 40, seed => 1) p)
		= (SELECT array_agg(l::record ORDER BY l) FROM (SELECT a_id, b_id, similarity, stratum, stratum_pairs, weight
			FROM cal_labels) l) AS same_again,
	(SELECT array_agg(p ORDER BY p) FROM nddup_pairs_to_judge('cal_docs', 'id', 'ss', 40, seed => 2) p)
		<> (SELECT array_agg(p ORDER BY p) FROM nddup_pairs_to_judge('cal_docs', 'id', 'ss', 40, seed => 1) p)
		AS other_seed_differs,
	(SELECT array_agg(p ORDER BY p) FROM nddup_pairs_to_judge('cal_docs', 'id', 'body', 40, seed => 1) p)
		= (SELECT array_agg(p ORDER BY p) FROM nddup_pairs_to_judge('cal_docs', 'id', 'ss', 40, seed => 1) p)
		AS text_same_as_set,
	(SELECT bool_and(abs(p.similarity - jaccard(a.sk, b.sk)) < 1e-6)
		FROM nddup_pairs_to_judge('cal_docs', 'id', 'sk', 40) p
		JOIN cal_docs a ON a.id = p.a_id JOIN cal_docs b ON b.id = p.b_id) AS sketch_estimates;
-- the same sample from a query of the candidate pairs (in either order, with pairs below the floor)
SELECT (SELECT array_agg(p ORDER BY p) FROM nddup_sample_pairs(
		'SELECT id2, id1, similarity FROM shingleset_pairs(''cal_docs'', ''id'', ''ss'', 0.05)', 40, seed => 1) p)
	= (SELECT array_agg(p ORDER BY p) FROM nddup_pairs_to_judge('cal_docs', 'id', 'ss', 40, seed => 1) p) AS query_same;
-- more pairs than there are: every candidate pair, weight 1
SELECT count(*) = (SELECT count(*) FROM cal_pairs) AS all_pairs, bool_and(weight = 1) AS weight_one
FROM nddup_pairs_to_judge('cal_docs', 'id', 'ss', 100000);

-- a person judges them (here: the planted pairs are the duplicates)
ALTER TABLE cal_labels ADD COLUMN is_duplicate boolean;
UPDATE cal_labels SET is_duplicate = (b_id = a_id + 10000);
-- the calibrated threshold lies between the background and the planted pairs, the estimates are
-- those of the truth (every planted pair and only those at the threshold), the intervals hold them
SELECT c.threshold > (SELECT max(similarity) FROM cal_pairs WHERE NOT planted) AS above_background,
	c.threshold <= (SELECT min(similarity) FROM cal_pairs WHERE planted) AS below_planted,
	c.precision > 0.99 AS precision, c.recall > 0.99 AS recall, c.f1 > 0.99 AS f1,
	c.precision_low <= c.precision AND c.precision <= c.precision_high AS precision_in_interval,
	c.recall_low <= c.recall AND c.recall <= c.recall_high AS recall_in_interval,
	c.threshold_low <= c.threshold AND c.threshold <= c.threshold_high AS threshold_in_interval,
	c.judged, c.duplicates = (SELECT count(*) FROM cal_labels WHERE is_duplicate) AS duplicates_counted,
	c.candidate_pairs = (SELECT count(*) FROM cal_pairs) AS candidates_counted,
	abs(c.flagged_pairs - (SELECT count(*) FROM cal_pairs WHERE planted)) <= 0.05 * c.flagged_pairs AS flagged_estimated,
	c.note
FROM nddup_calibrate('cal_labels') c;
-- the same answer again (a seeded bootstrap); the evaluation form at a low threshold: precision
-- drops to the planted share of the pairs above it, recall stays
SELECT a = b AS same_again FROM nddup_calibrate('cal_labels') a, nddup_calibrate('cal_labels') b;
SELECT threshold, precision < 0.9 AS precision_drops, recall > 0.99 AS recall, threshold_low, note,
	abs(precision - (SELECT avg(planted::int) FROM cal_pairs WHERE similarity >= 0.1)) < 0.15 AS precision_near_truth
FROM nddup_calibrate('cal_labels', at_threshold => 0.1);
-- a first guess (the recommender's threshold): kept where the judgements cannot tell it from the
-- threshold found (between the background and the planted pairs), not where it flags the background
SELECT abs(threshold - (SELECT (max(similarity) FILTER (WHERE NOT planted) + min(similarity) FILTER (WHERE planted)) / 2
	FROM cal_pairs)) < 1e-4 AS kept, note
FROM nddup_calibrate('cal_labels', bootstrap => 0, first_guess => (SELECT (max(similarity) FILTER (WHERE NOT planted)
	+ min(similarity) FILTER (WHERE planted)) / 2 FROM cal_pairs));
SELECT threshold > 0.1 AS not_kept, note FROM nddup_calibrate('cal_labels', bootstrap => 0, first_guess => 0.1);
-- a precision floor: the lowest judged similarity that reaches it; no intervals without bootstrap
SELECT threshold <= (SELECT min(similarity) FROM cal_pairs WHERE planted) AS below_planted, precision >= 0.99 AS floor_met,
	precision_low IS NULL AS no_interval, note
FROM nddup_calibrate('cal_labels', min_precision => 0.99, bootstrap => 0);
-- a second round given the labels so far: 20 more pairs, none proposed before, in the strata whose
-- labels are mixed or whose pairs are many (a pair where it most reduces the variance of the
-- estimated number of duplicates) near the threshold, with the stratum's weight over both rounds
CREATE TABLE cal_round2 AS SELECT *, b_id = a_id + 10000 AS is_duplicate
FROM nddup_pairs_to_judge('cal_docs', 'id', 'ss', 20, seed => 1, judged => 'cal_labels');
SELECT count(*) AS proposed,
	count(*) FILTER (WHERE (a_id, b_id) IN (SELECT a_id, b_id FROM cal_labels)) AS proposed_before,
	bool_and(round((r.weight * (SELECT count(*) FROM cal_labels l WHERE l.stratum = r.stratum)
		+ r.weight * (SELECT count(*) FROM cal_round2 x WHERE x.stratum = r.stratum))::numeric, 6) = r.stratum_pairs)
		AS weights_over_both_rounds
FROM cal_round2 r;
SELECT stratum, count(*) AS proposed, max(stratum_pairs) AS stratum_pairs,
	(SELECT count(*) FROM cal_labels l WHERE l.stratum = r.stratum) AS first_round,
	(SELECT count(*) FILTER (WHERE is_duplicate) FROM cal_labels l WHERE l.stratum = r.stratum) AS duplicates_so_far
FROM cal_round2 r GROUP BY 1 ORDER BY 1;
-- with 40 pairs judged, the round goes to the strata within 0.1 of the threshold their judgements
-- give (near); here those run out of pairs (every one proposed), and the rest goes to the others
SELECT c.stratum, c.lo <= t.threshold + 0.1 AND c.lo + 0.05 > t.threshold - 0.1 AS near, c.pairs,
	(SELECT count(*) FROM cal_labels l WHERE l.stratum = c.stratum) AS first_round,
	(SELECT count(*) FROM cal_round2 r WHERE r.stratum = c.stratum) AS second_round
FROM (SELECT least(17, floor((similarity - 0.1) / 0.05 + 1e-9))::integer AS stratum,
		0.1 + 0.05 * least(17, floor((similarity - 0.1) / 0.05 + 1e-9)) AS lo, count(*) AS pairs
	FROM cal_pairs GROUP BY 1, 2) c, nddup_calibrate('cal_labels', bootstrap => 0) t
ORDER BY 1;
-- the same again; both rounds together calibrate as one sample
SELECT (SELECT array_agg(p ORDER BY p) FROM nddup_pairs_to_judge('cal_docs', 'id', 'ss', 20, seed => 1, judged => 'cal_labels') p)
	= (SELECT array_agg((a_id, b_id, similarity, stratum, stratum_pairs, weight) ORDER BY a_id, b_id) FROM cal_round2)
	AS same_again;
INSERT INTO cal_labels SELECT * FROM cal_round2;
SELECT c.threshold > (SELECT max(similarity) FROM cal_pairs WHERE NOT planted) AS above_background,
	c.threshold <= (SELECT min(similarity) FROM cal_pairs WHERE planted) AS below_planted,
	c.judged, c.candidate_pairs = (SELECT count(*) FROM cal_pairs) AS candidates_counted
FROM nddup_calibrate('cal_labels') c;
DELETE FROM cal_labels l USING cal_round2 r WHERE l.a_id = r.a_id AND l.b_id = r.b_id;
-- with fewer than 40 judged (here 20, every other pair of each stratum), a round goes to the
-- strata within 0.05 of the threshold their judgements give (the others when those run out)
CREATE TABLE cal_half AS SELECT a_id, b_id, similarity, stratum, stratum_pairs, weight, is_duplicate
FROM (SELECT *, row_number() OVER (PARTITION BY stratum ORDER BY a_id, b_id) AS r FROM cal_labels) l WHERE r % 2 = 1;
SELECT c.stratum, c.lo <= t.threshold + 0.05 AND c.lo + 0.05 > t.threshold - 0.05 AS near,
	c.lo <= t.threshold + 0.1 AND c.lo + 0.05 > t.threshold - 0.1 AS within_01, c.pairs,
	(SELECT count(*) FROM cal_half l WHERE l.stratum = c.stratum) AS first_round,
	(SELECT count(*) FROM nddup_pairs_to_judge('cal_docs', 'id', 'ss', 4, seed => 1, judged => 'cal_half') r
		WHERE r.stratum = c.stratum) AS next_round
FROM (SELECT least(17, floor((similarity - 0.1) / 0.05 + 1e-9))::integer AS stratum,
		0.1 + 0.05 * least(17, floor((similarity - 0.1) / 0.05 + 1e-9)) AS lo, count(*) AS pairs
	FROM cal_pairs GROUP BY 1, 2) c, nddup_calibrate('cal_half', bootstrap => 0) t
WHERE t.judged BETWEEN 15 AND 39
ORDER BY 1;

-- pairs not judged yet (is_duplicate NULL) are left out, and their strata's weights grow
UPDATE cal_labels SET is_duplicate = NULL WHERE stratum = 0 AND a_id % 2 = 0;
SELECT judged < 40 AS fewer, candidate_pairs = (SELECT count(*) FROM cal_pairs) AS candidates_counted
FROM nddup_calibrate('cal_labels', bootstrap => 0);
-- every judged pair a duplicate: the lowest judged similarity; none, or too few: no threshold
CREATE TABLE cal_few AS SELECT * FROM cal_labels WHERE is_duplicate;
SELECT threshold = round((SELECT min(similarity) FROM cal_few)::numeric, 4)::float8 AS lowest, precision, recall,
	judged, duplicates, flagged_pairs = candidate_pairs AS all_flagged, note FROM nddup_calibrate('cal_few');
SELECT threshold, judged, duplicates, note FROM nddup_calibrate('cal_few', at_threshold => 0.5);
UPDATE cal_few SET is_duplicate = false;
SELECT threshold, judged, duplicates, note FROM nddup_calibrate('cal_few');
UPDATE cal_few SET is_duplicate = true;

-- errors
\set VERBOSITY terse
SELECT * FROM nddup_pairs_to_judge('cal_docs', 'id', 'nope');
SELECT * FROM nddup_pairs_to_judge('cal_docs', 'body', 'ss');
SELECT * FROM nddup_pairs_to_judge('cal_docs', 'id', 'ss', 0);
SELECT * FROM nddup_pairs_to_judge('cal_docs', 'id', 'ss', 10, floor => 1);
SELECT * FROM nddup_calibrate('cal_docs');
SELECT * FROM nddup_calibrate('cal_labels', min_precision => 1.5);
SELECT * FROM nddup_calibrate('cal_labels', bootstrap => -1);
SELECT * FROM nddup_calibrate('cal_labels', first_guess => 1.5);
UPDATE cal_few SET stratum_pairs = 1;
SELECT * FROM nddup_calibrate('cal_few');
\set VERBOSITY default

-- the decision: kept with the table, changed by one call, withdrawn without a threshold
SELECT relid, column_name, method, threshold, radius, source_column, filter IS NULL AS no_filter, note
FROM nddup_decide('cal_docs', 'ss', 0.35, source_column => 'body', note => 'calibrated');
SELECT relid, column_name, method, threshold, filtered, column_check FROM nddup_decision('cal_docs');
SELECT threshold FROM nddup_decide('cal_docs', 'ss', 0.4, source_column => 'body');
-- the evaluation form at the stored threshold
SELECT c.threshold, c.recall > 0.9 AS recall
FROM nddup_calibrate('cal_labels', at_threshold => (SELECT threshold FROM nddup_decision('cal_docs', 'ss')), bootstrap => 0) c;
-- a column computed with another filter is detected: decided with a filter (the shingles of
-- more than one document), the column is computed without it; then with it; then with another
-- filter (the shingles of more than five documents: the headers)
CREATE TABLE cal_filter AS SELECT shingle_filter_agg(body, 1, 0.0) AS f FROM cal_docs;
SELECT column_name, filter IS NOT NULL AS filtered FROM nddup_decide('cal_docs', 'sk', 0.3, filter => (SELECT f FROM cal_filter),
	source_column => 'body');
SELECT column_name, column_check FROM nddup_decision('cal_docs', 'sk');
UPDATE cal_docs SET sk = minhash_filtered((SELECT f FROM cal_filter), body);
SELECT column_name, column_check FROM nddup_decision('cal_docs', 'sk');
UPDATE cal_docs SET sk = minhash_filtered((SELECT shingle_filter_agg(body, 5, 0.0) FROM cal_docs), body);
SELECT column_name, column_check FROM nddup_decision('cal_docs', 'sk', check_rows => 600);
SELECT column_name, column_check FROM nddup_decision('cal_docs', 'ss');
-- a simhash64 column takes a radius; the text column itself
ALTER TABLE cal_docs ADD COLUMN fp simhash64;
UPDATE cal_docs SET fp = simhash(body);
SELECT method, threshold, radius FROM nddup_decide('cal_docs', 'fp', radius => 6, source_column => 'body');
SELECT column_name, method, column_check FROM nddup_decision('cal_docs', 'fp');
SELECT method, threshold FROM nddup_decide('cal_docs', 'body', 0.3);
SELECT column_name, column_check FROM nddup_decision('cal_docs', 'body');
\set VERBOSITY terse
SELECT * FROM nddup_decide('cal_docs', 'fp', 0.3);
SELECT * FROM nddup_decide('cal_docs', 'ss', radius => 3);
SELECT * FROM nddup_decide('cal_docs', 'ss', 1.5);
SELECT * FROM nddup_decide('cal_docs', 'id', 0.3);
SELECT * FROM nddup_decide('cal_docs', 'ss', 0.3, source_column => 'sk');
\set VERBOSITY default
SELECT column_name FROM nddup_decide('cal_docs', 'body');
SELECT column_name, threshold, radius FROM nddup_decisions WHERE relid = 'cal_docs'::regclass ORDER BY 1;

-- pg_dump keeps the decisions (a configuration table of the extension)
SELECT c.relname FROM pg_extension e, unnest(e.extconfig) x JOIN pg_class c ON c.oid = x
WHERE e.extname = 'nddup';

-- only the owner of a table may decide for it, by the function or by writing the table
CREATE ROLE regress_cal_other;
GRANT SELECT ON cal_docs TO regress_cal_other;
SET ROLE regress_cal_other;
\set VERBOSITY terse
SELECT * FROM nddup_decide('cal_docs', 'ss', 0.2);
UPDATE nddup_decisions SET threshold = 0.2 WHERE relid = 'cal_docs'::regclass;
DELETE FROM nddup_decisions WHERE relid = 'cal_docs'::regclass;
INSERT INTO nddup_decisions (relid, column_name, method, threshold) VALUES ('cal_docs', 'body', 'text', 0.2);
\set VERBOSITY default
-- it may read them (it may read the table)
SELECT column_name, threshold FROM nddup_decision('cal_docs') ORDER BY 1;
RESET ROLE;
SELECT column_name, threshold FROM nddup_decisions WHERE relid = 'cal_docs'::regclass ORDER BY 1;
-- a table that is dropped leaves a row that the next decision removes
CREATE TABLE cal_gone (id integer, ss shingleset);
SELECT column_name FROM nddup_decide('cal_gone', 'ss', 0.5);
DROP TABLE cal_gone;
SELECT column_name FROM nddup_decide('cal_docs', 'ss', 0.45, source_column => 'body');
SELECT count(*) AS decisions FROM nddup_decisions;
REVOKE SELECT ON cal_docs FROM regress_cal_other;
DROP ROLE regress_cal_other;
SELECT count(*) FROM nddup_decide('cal_docs', 'ss');
SELECT count(*) FROM nddup_decide('cal_docs', 'sk');
SELECT count(*) FROM nddup_decide('cal_docs', 'fp');
DROP TABLE cal_docs, cal_pairs, cal_labels, cal_few, cal_filter, cal_round2, cal_half;
