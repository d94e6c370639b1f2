-- Quality of the shipped defaults and of the recommended threshold on the labelled corpora
-- (test/bench/quality/corpora/run_quality.sh).  A corpus NAME is the table d_NAME (doc_id, cluster_id,
-- kind, body, sk minhash_sketch, fp simhash64); every number is computed through nddup in SQL.
SET client_min_messages = warning;

-- one row per corpus and method at a threshold (or radius): pairs over the scored rows and F1
CREATE TABLE IF NOT EXISTS qresult (ds text, method text, param float8, pairs bigint, tp bigint,
	npos bigint, precision float8, recall float8, f1 float8, PRIMARY KEY (ds, method, param));
-- the recommender's answer per corpus and column
CREATE TABLE IF NOT EXISTS qrecommend (ds text, method text, threshold float8, radius integer,
	valley_found boolean, candidate_pairs bigint, note text, seconds float8, PRIMARY KEY (ds, method));
CREATE TABLE IF NOT EXISTS qtiming (ds text, step text, seconds float8);

-- the corpora loaded (for the sizes in the report)
CREATE OR REPLACE VIEW qcorpora AS SELECT NULL::text AS ds, NULL::text AS kind WHERE false;

-- a labelled TSV (doc_id, cluster_id, kind, edits, text) into d_NAME, with the default
-- min-hash sketch and simhash fingerprint of every row
CREATE OR REPLACE FUNCTION q_load(name text, file text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE v text;
BEGIN
	EXECUTE format('DROP TABLE IF EXISTS %I CASCADE', 'd_' || name);
	EXECUTE format('CREATE TABLE %I (doc_id integer PRIMARY KEY, cluster_id integer, kind text, edits text,
		body text, sk minhash_sketch, fp simhash64)', 'd_' || name);
	EXECUTE format('COPY %I (doc_id, cluster_id, kind, edits, body) FROM PROGRAM %L',
		'd_' || name, format('zcat %s | tail -n +2', file));
	EXECUTE format('UPDATE %I SET sk = minhash(body), fp = simhash(body)', 'd_' || name);
	EXECUTE format('ANALYZE %I', 'd_' || name);
	-- qcorpora: every loaded corpus's (ds, kind) rows
	SELECT string_agg(format('SELECT %L AS ds, kind FROM %I', substr(c.relname, 3), c.relname), ' UNION ALL ')
		INTO v FROM pg_class c WHERE c.relname LIKE 'd\_%' AND c.relkind = 'r'
		AND c.relnamespace = 'public'::regnamespace;
	EXECUTE 'CREATE OR REPLACE VIEW qcorpora AS ' || v;
END $$;

-- candidate pairs of a method over every row of a corpus: (id1, id2, score); kept in qpairs
CREATE TABLE IF NOT EXISTS qpairs (ds text, method text, id1 integer, id2 integer, score float8);
CREATE INDEX IF NOT EXISTS qpairs_ds ON qpairs (ds, method);

-- P/R/F1 over the scored rows (original/near/templated; a pair is positive when both rows are
-- original or near of one cluster) at every cut of a method's pairs: score >= t (sim) or
-- score <= t (dist); the cuts are the given params, or every distinct score when params is NULL
CREATE OR REPLACE FUNCTION q_score(p_ds text, p_method text, p_kind text, params float8[] DEFAULT NULL)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE npos bigint;
BEGIN
	EXECUTE format($q$SELECT count(*) FROM %1$I a JOIN %1$I b ON a.cluster_id = b.cluster_id AND a.doc_id < b.doc_id
		WHERE a.kind IN ('original', 'near') AND b.kind IN ('original', 'near')$q$, 'd_' || p_ds) INTO npos;
	EXECUTE format($q$
	INSERT INTO qresult
	WITH sc AS (SELECT doc_id, cluster_id, kind FROM %1$I WHERE kind IN ('original', 'near', 'templated')),
		p AS (SELECT CASE WHEN $3 = 'dist' THEN -q.score ELSE q.score END AS c,
				(a.cluster_id = b.cluster_id AND a.kind <> 'templated' AND b.kind <> 'templated') AS pos
			FROM qpairs q JOIN sc a ON a.doc_id = q.id1 JOIN sc b ON b.doc_id = q.id2
			WHERE q.ds = $1 AND q.method = $2),
		g AS (SELECT c, count(*) AS n, count(*) FILTER (WHERE pos) AS tp FROM p GROUP BY c),
		cum AS (SELECT c, sum(n) OVER (ORDER BY c DESC) AS n, sum(tp) OVER (ORDER BY c DESC) AS tp FROM g),
		at AS (SELECT c, n, tp FROM cum WHERE $4 IS NULL
			UNION ALL
			SELECT x.c, coalesce(a.n, 0), coalesce(a.tp, 0)
			FROM (SELECT DISTINCT CASE WHEN $3 = 'dist' THEN -v ELSE v END AS c FROM unnest($4) v) x
			LEFT JOIN LATERAL (SELECT n, tp FROM cum WHERE cum.c >= x.c - 1e-12 ORDER BY cum.c LIMIT 1) a ON true)
	SELECT $1, $2, CASE WHEN $3 = 'dist' THEN -c ELSE c END, n, tp, $5,
		tp::float8 / nullif(n, 0), tp::float8 / nullif($5, 0), 2.0 * tp / nullif($5 + n, 0)
	FROM at
	ON CONFLICT (ds, method, param) DO UPDATE SET pairs = excluded.pairs, tp = excluded.tp,
		precision = excluded.precision, recall = excluded.recall, f1 = excluded.f1$q$, 'd_' || p_ds)
	USING p_ds, p_method, p_kind, params, npos;
END $$;

-- every method of one corpus: min-hash pairs (>= 0.1) scored at every threshold, the recommender,
-- exact Jaccard pairs (>= 0.1 among the pairs whose min-hash estimate is >= 0.08: the text of
-- every candidate verified, so a pair with J >= 0.2 is missed only when its k = 128 estimate is
-- more than 3 standard deviations low) scored at every threshold, simhash at radius 12 (and the recommended
-- radius) with and without verification of the text (exact Jaccard >= 0.3)
CREATE OR REPLACE FUNCTION q_corpus(p_ds text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE rel text := 'd_' || p_ds; t0 timestamptz; r record; seed integer;
BEGIN
	DELETE FROM qpairs WHERE ds = p_ds;
	DELETE FROM qresult WHERE ds = p_ds;
	DELETE FROM qrecommend WHERE ds = p_ds;
	t0 := clock_timestamp();
	INSERT INTO qpairs SELECT p_ds, 'minhash', id1, id2, resemblance FROM minhash_pairs(rel, 'doc_id', 'sk', 0.1);
	INSERT INTO qtiming VALUES (p_ds, 'minhash_pairs 0.1', extract(epoch FROM clock_timestamp() - t0));
	PERFORM q_score(p_ds, 'minhash', 'sim');
	t0 := clock_timestamp();
	SELECT * INTO r FROM nddup_recommend_threshold(rel::regclass, 'doc_id', 'sk');
	INSERT INTO qrecommend VALUES (p_ds, 'minhash', r.threshold, r.radius, r.valley_found, r.candidate_pairs, r.note,
		extract(epoch FROM clock_timestamp() - t0));
	PERFORM q_score(p_ds, 'minhash', 'sim', ARRAY[0.3, r.threshold]);
	-- the recommender on samples of 1,000 rows (each joined with the whole table), three seeds
	FOR seed IN 1 .. 3 LOOP
		SELECT * INTO r FROM nddup_recommend_threshold(rel::regclass, 'doc_id', 'sk', 1000, seed);
		INSERT INTO qrecommend VALUES (p_ds, 'minhash sample 1000 seed ' || seed, r.threshold, r.radius,
			r.valley_found, r.candidate_pairs, r.note, NULL);
		PERFORM q_score(p_ds, 'minhash', 'sim', ARRAY[r.threshold]);
	END LOOP;
	t0 := clock_timestamp();
	INSERT INTO qpairs SELECT p_ds, 'exact', id1, id2, resemblance
		FROM minhash_pairs(rel, 'doc_id', 'sk', 0.08, verify_column => 'body', verify => 0.1);
	INSERT INTO qtiming VALUES (p_ds, 'exact: minhash_pairs 0.08 verified', extract(epoch FROM clock_timestamp() - t0));
	PERFORM q_score(p_ds, 'exact', 'sim');
	PERFORM q_score(p_ds, 'exact', 'sim', ARRAY[0.3]);
	-- min-hash candidates >= 0.2 confirmed by the text's exact Jaccard >= 0.3 (verified candidates)
	INSERT INTO qpairs SELECT p_ds, 'minhash-verified', id1, id2, resemblance
		FROM minhash_pairs(rel, 'doc_id', 'sk', 0.2, verify_column => 'body', verify => 0.3);
	PERFORM q_score(p_ds, 'minhash-verified', 'sim', ARRAY[0.3]);
	t0 := clock_timestamp();
	INSERT INTO qpairs SELECT p_ds, 'simhash', id1, id2, distance FROM hamming_pairs(rel, 'doc_id', 'fp', 16);
	INSERT INTO qpairs SELECT p_ds, 'simhash-verified', id1, id2, distance
		FROM hamming_pairs(rel, 'doc_id', 'fp', 12, verify_column => 'body', verify => 0.3);
	INSERT INTO qtiming VALUES (p_ds, 'hamming_pairs 12 (plain, verified)', extract(epoch FROM clock_timestamp() - t0));
	PERFORM q_score(p_ds, 'simhash-verified', 'dist', ARRAY[12]);
	SELECT * INTO r FROM nddup_recommend_threshold(rel::regclass, 'doc_id', 'fp');
	INSERT INTO qrecommend VALUES (p_ds, 'simhash', r.threshold, r.radius, r.valley_found, r.candidate_pairs, r.note, NULL);
	PERFORM q_score(p_ds, 'simhash', 'dist', ARRAY[12, r.radius]);
END $$;

-- with the boilerplate filter (when the extension has it): shingle_filter_agg(body) over the whole
-- corpus at its default cut-off, every row's minhash_filtered(filter, body), min-hash pairs >= 0.1
-- scored at every threshold, and the recommender on the filtered sketches
CREATE OR REPLACE FUNCTION q_corpus_filtered(p_ds text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE rel text := 'd_' || p_ds; t0 timestamptz; r record;
BEGIN
	IF to_regproc('minhash_filtered') IS NULL THEN
		RETURN false;
	END IF;
	DELETE FROM qpairs WHERE ds = p_ds AND method = 'minhash-filtered';
	DELETE FROM qresult WHERE ds = p_ds AND method = 'minhash-filtered';
	DELETE FROM qrecommend WHERE ds = p_ds AND method = 'minhash-filtered';
	t0 := clock_timestamp();
	EXECUTE format('ALTER TABLE %I ADD COLUMN IF NOT EXISTS skf minhash_sketch', rel);
	EXECUTE format('UPDATE %1$I SET skf = minhash_filtered((SELECT shingle_filter_agg(body) FROM %1$I), body)', rel);
	INSERT INTO qtiming VALUES (p_ds, 'filter and filtered sketches', extract(epoch FROM clock_timestamp() - t0));
	INSERT INTO qpairs SELECT p_ds, 'minhash-filtered', id1, id2, resemblance
		FROM minhash_pairs(rel, 'doc_id', 'skf', 0.1);
	PERFORM q_score(p_ds, 'minhash-filtered', 'sim');
	t0 := clock_timestamp();
	SELECT * INTO r FROM nddup_recommend_threshold(rel::regclass, 'doc_id', 'skf');
	INSERT INTO qrecommend VALUES (p_ds, 'minhash-filtered', r.threshold, r.radius, r.valley_found, r.candidate_pairs,
		r.note, extract(epoch FROM clock_timestamp() - t0));
	PERFORM q_score(p_ds, 'minhash-filtered', 'sim', ARRAY[0.3, 0.25, r.threshold]);
	RETURN true;
END $$;
