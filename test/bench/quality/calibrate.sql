-- The calibration loop on labelled corpora, a simulated person (test/bench/quality/calibrate.sh): for a
-- corpus NAME (table c_NAME: doc_id, cluster_id, kind, body, ss = shingle_set(body),
-- sk = minhash(body), the scored rows only), nddup_pairs_to_judge's sampling proposes N pairs, the corpus
-- truth labels them, nddup_calibrate estimates; the threshold is then scored on every pair of the
-- corpus, beside the best threshold of the same sets or sketches (the ceiling) and the
-- unsupervised recommender's.  Every number is computed through nddup in SQL.
SET client_min_messages = warning;

-- every candidate pair of a corpus per method (exact: shingle sets; minhash: sketches) and
-- whether it is a duplicate; the number of duplicate pairs (any resemblance)
CREATE TABLE IF NOT EXISTS cq_pairs (ds text, method text, id1 bigint, id2 bigint, score float8, pos boolean);
CREATE INDEX IF NOT EXISTS cq_pairs_ds ON cq_pairs (ds, method, score);
CREATE TABLE IF NOT EXISTS cq_npos (ds text PRIMARY KEY, npos bigint, docs bigint);
-- one row per corpus, method, number of labels and seed
CREATE TABLE IF NOT EXISTS cq_result (ds text, method text, n integer, rounds integer, seed integer, threshold float8,
	est_precision float8, est_recall float8, est_f1 float8, precision_low float8, precision_high float8,
	recall_low float8, recall_high float8, judged integer, duplicates integer,
	true_precision float8, true_recall float8, true_f1 float8, seconds float8,
	PRIMARY KEY (ds, method, n, rounds, seed));
-- the ceiling and the recommender per corpus and method
CREATE TABLE IF NOT EXISTS cq_ref (ds text, method text, best_t float8, best_f1 float8,
	rec_t float8, rec_f1 float8, rec_precision float8, rec_recall float8, PRIMARY KEY (ds, method));

-- the table of a corpus
CREATE OR REPLACE FUNCTION cq_rel(name text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
	SELECT 'c_' || lower(translate(name, '-.', '__')) $$;

-- a labelled TSV (doc_id, cluster_id, kind, edits, text): its scored rows with their sets and sketches
CREATE OR REPLACE FUNCTION cq_load(name text, file text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('DROP TABLE IF EXISTS %I', cq_rel(name));
	CREATE TEMP TABLE cq_stage (doc_id integer, cluster_id integer, kind text, edits text, body text);
	EXECUTE format('COPY cq_stage FROM PROGRAM %L', format('zcat %s | tail -n +2', file));
	EXECUTE format('CREATE TABLE %I AS SELECT doc_id, cluster_id, kind, body, shingle_set(body) AS ss, '
		'minhash(body) AS sk FROM cq_stage WHERE kind IN (''original'', ''near'', ''templated'')', cq_rel(name));
	DROP TABLE cq_stage;
	EXECUTE format('ALTER TABLE %I ADD PRIMARY KEY (doc_id)', cq_rel(name));
	EXECUTE format('ANALYZE %I', cq_rel(name));
END $$;

-- a pair is a duplicate when both rows are original or near rows of one cluster
CREATE OR REPLACE FUNCTION cq_truth(name text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE rel text := cq_rel(name);
BEGIN
	DELETE FROM cq_pairs WHERE ds = name;
	DELETE FROM cq_npos WHERE ds = name;
	EXECUTE format($q$INSERT INTO cq_pairs SELECT %1$L, 'exact', p.id1, p.id2, p.similarity,
			a.cluster_id = b.cluster_id AND a.kind <> 'templated' AND b.kind <> 'templated'
		FROM shingleset_pairs(%2$L, 'doc_id', 'ss', 0.05) p JOIN %2$I a ON a.doc_id = p.id1 JOIN %2$I b ON b.doc_id = p.id2$q$,
		name, rel);
	EXECUTE format($q$INSERT INTO cq_pairs SELECT %1$L, 'minhash', p.id1, p.id2, p.resemblance,
			a.cluster_id = b.cluster_id AND a.kind <> 'templated' AND b.kind <> 'templated'
		FROM minhash_pairs(%2$L::regclass, 'doc_id', 'sk', 0.05) p JOIN %2$I a ON a.doc_id = p.id1 JOIN %2$I b ON b.doc_id = p.id2$q$,
		name, rel);
	EXECUTE format($q$INSERT INTO cq_npos SELECT %1$L, (SELECT count(*) FROM %2$I a JOIN %2$I b ON a.cluster_id = b.cluster_id
		AND a.doc_id < b.doc_id WHERE a.kind <> 'templated' AND b.kind <> 'templated'), (SELECT count(*) FROM %2$I)$q$,
		name, rel);
END $$;

-- precision, recall and F1 of the pairs with score >= t
CREATE OR REPLACE FUNCTION cq_at(p_ds text, p_method text, t float8, OUT prec float8, OUT rec float8, OUT f1 float8)
LANGUAGE sql STABLE AS $$
	SELECT tp::float8 / nullif(n, 0), tp::float8 / nullif(np, 0), 2.0 * tp / nullif(n + np, 0)
	FROM (SELECT count(*) AS n, count(*) FILTER (WHERE pos) AS tp FROM cq_pairs
		WHERE ds = p_ds AND method = p_method AND score >= t - 1e-12) c,
		(SELECT npos AS np FROM cq_npos WHERE ds = p_ds) q
$$;

-- the best threshold (every distinct score) and the recommender's answer on the column
CREATE OR REPLACE FUNCTION cq_reference(name text, p_method text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE bt float8; bf float8; r record; a record;
BEGIN
	SELECT c.score, 2.0 * c.tp / (c.n + q.npos) INTO bt, bf
	FROM (SELECT score, sum(count(*)) OVER (ORDER BY score DESC) AS n,
			sum(count(*) FILTER (WHERE pos)) OVER (ORDER BY score DESC) AS tp
		FROM cq_pairs WHERE ds = name AND method = p_method GROUP BY score) c, cq_npos q
	WHERE q.ds = name ORDER BY 2 DESC, 1 LIMIT 1;
	SELECT * INTO r FROM nddup_recommend_threshold(cq_rel(name)::regclass, 'doc_id',
		CASE p_method WHEN 'exact' THEN 'ss' ELSE 'sk' END);
	a := cq_at(name, p_method, r.threshold);
	INSERT INTO cq_ref VALUES (name, p_method, bt, bf, r.threshold, a.f1, a.prec, a.rec)
	ON CONFLICT (ds, method) DO UPDATE SET best_t = excluded.best_t, best_f1 = excluded.best_f1,
		rec_t = excluded.rec_t, rec_f1 = excluded.rec_f1, rec_precision = excluded.rec_precision,
		rec_recall = excluded.rec_recall;
END $$;

-- one simulated person: n pairs proposed with a seed, labelled from the truth, calibrated; in two
-- rounds, half of them first, the rest proposed given the labels of the first
CREATE OR REPLACE FUNCTION cq_simulate(name text, p_method text, p_n integer, p_seed integer, p_rounds integer DEFAULT 1)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE rel text := cq_rel(name);
	-- the column's candidate pairs, found once by cq_truth with the functions nddup_pairs_to_judge
	-- uses (shingleset_pairs, minhash_pairs), given to the sampling it does (nddup_sample_pairs)
	pairs text := format('SELECT id1, id2, score FROM cq_pairs WHERE ds = %L AND method = %L AND score >= 0.1',
		name, p_method);
	c record; a record; t0 timestamptz := clock_timestamp(); first integer := (p_n + p_rounds - 1) / p_rounds;
BEGIN
	DROP TABLE IF EXISTS cq_labels;
	CREATE TEMP TABLE cq_labels AS SELECT *, NULL::boolean AS is_duplicate FROM nddup_sample_pairs(pairs, first, p_seed);
	IF p_rounds = 2 THEN
		PERFORM cq_judge(rel);
		INSERT INTO cq_labels SELECT *, NULL FROM nddup_sample_pairs(pairs, p_n - first, p_seed, judged => 'cq_labels');
	END IF;
	PERFORM cq_judge(rel);
	-- the recommender's threshold (cq_reference) as the first guess, as the recipe does
	SELECT * INTO c FROM nddup_calibrate('cq_labels', seed => p_seed,
		first_guess => (SELECT rec_t FROM cq_ref WHERE ds = name AND method = p_method));
	a := cq_at(name, p_method, c.threshold);
	INSERT INTO cq_result VALUES (name, p_method, p_n, p_rounds, p_seed, c.threshold, c.precision, c.recall, c.f1,
		c.precision_low, c.precision_high, c.recall_low, c.recall_high, c.judged, c.duplicates,
		a.prec, a.rec, a.f1, extract(epoch FROM clock_timestamp() - t0))
	ON CONFLICT (ds, method, n, rounds, seed) DO UPDATE SET threshold = excluded.threshold,
		est_precision = excluded.est_precision, est_recall = excluded.est_recall, est_f1 = excluded.est_f1,
		precision_low = excluded.precision_low, precision_high = excluded.precision_high,
		recall_low = excluded.recall_low, recall_high = excluded.recall_high, judged = excluded.judged,
		duplicates = excluded.duplicates, true_precision = excluded.true_precision,
		true_recall = excluded.true_recall, true_f1 = excluded.true_f1, seconds = excluded.seconds;
END $$;

-- the simulated person's judgement of the pairs not judged yet: the corpus truth
CREATE OR REPLACE FUNCTION cq_judge(rel text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format($q$UPDATE cq_labels l SET is_duplicate = a.cluster_id = b.cluster_id
			AND a.kind <> 'templated' AND b.kind <> 'templated'
		FROM %1$I a, %1$I b WHERE a.doc_id = l.a_id AND b.doc_id = l.b_id AND l.is_duplicate IS NULL$q$, rel);
END $$;

-- what n judged pairs can estimate at the best threshold (cq_ref.best_t): the smallest standard
-- error of the estimated precision and recall that any sample of n pairs stratified like
-- nddup_pairs_to_judge's (18 strata of resemblance from 0.1, each split at the threshold) can
-- give, with Neyman's allocation for the true shares of duplicates of the strata; and the number
-- of judged pairs that would bring the recall's to 0.025 (±0.05 at two standard errors)
CREATE OR REPLACE FUNCTION cq_bound(p_n integer)
RETURNS TABLE (ds text, method text, best_t float8, dups_above bigint, dups_below bigint,
	se_precision float8, se_recall float8, pairs_for_recall float8)
LANGUAGE sql STABLE AS $$
	WITH cells AS (
		SELECT p.ds, p.method, r.best_t, least(17, floor((p.score - 0.1) / 0.05 + 1e-9))::integer AS h,
			p.score >= r.best_t - 1e-12 AS up, count(*) AS n, count(*) FILTER (WHERE p.pos) AS k
		FROM cq_pairs p JOIN cq_ref r USING (ds, method) WHERE p.score >= 0.1 - 1e-12 GROUP BY 1, 2, 3, 4, 5),
	tot AS (
		SELECT ds, method, best_t, sum(k) FILTER (WHERE up) AS a, sum(k) FILTER (WHERE NOT up) AS b,
			sum(n) FILTER (WHERE up) AS f FROM cells GROUP BY 1, 2, 3),
	s AS (
		SELECT c.ds, c.method, sum(c.n * sqrt(c.k::float8 / c.n * (1 - c.k::float8 / c.n))) FILTER (WHERE c.up) AS sp,
			sum(CASE WHEN c.up THEN t.b ELSE t.a END * c.n * sqrt(c.k::float8 / c.n * (1 - c.k::float8 / c.n))) AS sr
		FROM cells c JOIN tot t USING (ds, method) GROUP BY 1, 2)
	SELECT t.ds, t.method, t.best_t, t.a, t.b, s.sp / sqrt(p_n) / t.f, s.sr / sqrt(p_n) / ((t.a + t.b)::float8 ^ 2),
		ceil((s.sr / ((t.a + t.b)::float8 ^ 2) / 0.025) ^ 2)
	FROM tot t JOIN s USING (ds, method)
$$;
