-- Detection-quality harness: tables and functions (run once per instance, after CREATE EXTENSION).
-- Every method computes its fingerprints / sketches and its pairs through nddup in SQL; scoring is
-- SQL too.  A dataset `ds` is one labelled corpus (doc_id, cluster_id, kind, edits, body).
SET client_min_messages = warning;

CREATE TABLE corpus (ds text, doc_id integer, cluster_id integer, kind text, edits text, body text,
	PRIMARY KEY (ds, doc_id));
CREATE TABLE stage (doc_id integer, cluster_id integer, kind text, edits text, body text);

-- one row per method: how its pairs pass a parameter (dist: score <= p; sim: score >= p)
CREATE TABLE methods (ds text, method text, family text, features text, kind text, params float8[],
	build_ms float8, pairs_ms float8, note text, PRIMARY KEY (ds, method));
-- candidate pairs of each method with their score (id1 < id2), over every document of the dataset
CREATE TABLE mpairs (ds text, method text, id1 integer, id2 integer, score float8);
-- exact word 3-shingle overlap of every pair that has J >= 0.1 or containment >= 0.3
CREATE TABLE exact (ds text, id1 integer, id2 integer, o integer, n1 integer, n2 integer, j float8, c float8);
-- scores
CREATE TABLE results (ds text, method text, param float8, pairs bigint, tp bigint, fp bigint, npos bigint,
	precision float8, recall float8, f1 float8, ari float8, excerpt_recall float8, contains_recall float8,
	PRIMARY KEY (ds, method, param));
CREATE TABLE results_exact (ds text, method text, param float8, truth_t float8, pairs bigint, tp bigint,
	ntruth bigint, precision float8, recall float8, f1 float8);
CREATE TABLE ari_cache (ds text, method text, param float8, ari float8);

-- ground truth of a dataset
CREATE VIEW scored AS SELECT ds, doc_id, cluster_id FROM corpus WHERE kind IN ('original', 'near', 'templated');
CREATE VIEW positives AS
	SELECT a.ds, a.doc_id AS id1, b.doc_id AS id2 FROM corpus a JOIN corpus b
		ON a.ds = b.ds AND a.cluster_id = b.cluster_id AND a.doc_id < b.doc_id
	WHERE a.kind IN ('original', 'near') AND b.kind IN ('original', 'near');
CREATE VIEW containment_truth AS            -- each excerpt/contains row and its cluster's original
	SELECT v.ds, v.doc_id, v.kind, o.doc_id AS orig FROM corpus v JOIN corpus o
		ON o.ds = v.ds AND o.cluster_id = v.cluster_id AND o.kind = 'original'
	WHERE v.kind IN ('excerpt', 'contains');

CREATE FUNCTION q_ms(t0 timestamptz) RETURNS float8 LANGUAGE sql AS
$$ SELECT extract(epoch FROM clock_timestamp() - t0) * 1000 $$;

-- adjusted Rand index of a predicted clustering (a table of doc_id, cluster_id over the scored rows)
CREATE FUNCTION q_ari(p_ds text, pred regclass) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE r float8;
BEGIN
	EXECUTE format($q$
	WITH j AS (SELECT s.cluster_id AS t, p.cluster_id AS c FROM scored s JOIN %s p ON p.id = s.doc_id
			WHERE s.ds = $1),
		nij AS (SELECT sum(n * (n - 1) / 2.0) AS x FROM (SELECT count(*) AS n FROM j GROUP BY t, c) q),
		ai AS (SELECT sum(n * (n - 1) / 2.0) AS x FROM (SELECT count(*) AS n FROM j GROUP BY t) q),
		bj AS (SELECT sum(n * (n - 1) / 2.0) AS x FROM (SELECT count(*) AS n FROM j GROUP BY c) q),
		tot AS (SELECT count(*) * (count(*) - 1) / 2.0 AS x FROM j)
	SELECT CASE WHEN ((ai.x + bj.x) / 2 - ai.x * bj.x / tot.x) = 0 THEN 1
		ELSE (nij.x - ai.x * bj.x / tot.x) / ((ai.x + bj.x) / 2 - ai.x * bj.x / tot.x) END
	FROM nij, ai, bj, tot $q$, pred) INTO r USING p_ds;
	RETURN r;
END $$;

-- a simhash configuration: fingerprints of every document, all pairs within kmax bits
-- (hamming_pairs), clusters of the scored rows at every k (hamming_clusters) for the ARI
CREATE FUNCTION q_simhash(p_ds text, p_method text, p_features text, p_expr text, kmax integer)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE t0 timestamptz; b float8; tname text := 'fp_' || md5(p_ds || p_method); k integer;
BEGIN
	t0 := clock_timestamp();
	EXECUTE format('CREATE TABLE %I AS SELECT doc_id AS id, kind, %s AS fp FROM corpus WHERE ds = %L',
		tname, p_expr, p_ds);
	b := q_ms(t0);
	t0 := clock_timestamp();
	EXECUTE format('INSERT INTO mpairs SELECT %L, %L, id1, id2, distance FROM hamming_pairs(%L, %s)',
		p_ds, p_method, format('SELECT id, fp FROM %I', tname), kmax);
	INSERT INTO methods VALUES (p_ds, p_method, 'simhash', p_features, 'dist',
		(SELECT array_agg(g::float8) FROM generate_series(0, kmax) g), b, q_ms(t0), NULL);
	FOR k IN 0 .. kmax LOOP
		EXECUTE format('CREATE TEMP TABLE pred AS SELECT * FROM hamming_clusters(%L, %s)',
			format('SELECT id, fp FROM %I WHERE kind IN (''original'', ''near'', ''templated'')', tname), k);
		INSERT INTO ari_cache VALUES (p_ds, p_method, k, q_ari(p_ds, 'pred'));
		DROP TABLE pred;
	END LOOP;
END $$;

-- any other method: build_sql makes its sketch table (may be empty), pairs_sql inserts its
-- candidate pairs into mpairs; %1$L in both is replaced by the dataset, %2$L by the method name
CREATE FUNCTION q_method(p_ds text, p_method text, p_family text, p_features text, p_kind text,
	p_params float8[], build_sql text, pairs_sql text, p_note text DEFAULT NULL)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE t0 timestamptz; b float8;
BEGIN
	t0 := clock_timestamp();
	IF build_sql IS NOT NULL THEN EXECUTE format(build_sql, p_ds, p_method); END IF;
	b := q_ms(t0);
	t0 := clock_timestamp();
	EXECUTE format(pairs_sql, p_ds, p_method);
	INSERT INTO methods VALUES (p_ds, p_method, p_family, p_features, p_kind, p_params, b, q_ms(t0), p_note);
END $$;

-- exact word 3-shingle overlap of all pairs (shingle_set + overlap; J and containment derived from
-- the overlap); shard/nshards splits the outer rows so that several sessions can share the work
CREATE FUNCTION q_exact(p_ds text, shard integer, nshards integer) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	SET LOCAL jit = off;
	SET LOCAL max_parallel_workers_per_gather = 0;
	INSERT INTO exact
	SELECT p_ds, a.id, b.id, x.o, a.n, b.n, x.o::float8 / (a.n + b.n - x.o),
		x.o::float8 / nullif(least(a.n, b.n), 0)
	FROM sets a JOIN sets b ON a.ds = p_ds AND b.ds = p_ds AND a.id < b.id AND a.id % nshards = shard,
		LATERAL (SELECT overlap(a.s, b.s)::integer AS o) x
	WHERE x.o > 0 AND (x.o::float8 / (a.n + b.n - x.o) >= 0.1 OR x.o >= 0.3 * least(a.n, b.n));
END $$;

-- P, R, F1 of the pairs passing each parameter (scored rows), the ARI of the clusters they induce
-- (clusters_from_pairs, or the hamming_clusters run cached by q_simhash), containment recall
CREATE FUNCTION q_score(p_ds text, p_method text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE m record; p float8; a float8; npos bigint;
BEGIN
	SELECT * INTO m FROM methods WHERE ds = p_ds AND method = p_method;
	SELECT count(*) INTO npos FROM positives WHERE ds = p_ds;
	CREATE TEMP TABLE mp AS SELECT id1, id2, score FROM mpairs WHERE ds = p_ds AND method = p_method;
	CREATE TEMP TABLE sc AS SELECT doc_id FROM scored WHERE ds = p_ds;
	CREATE UNIQUE INDEX ON sc (doc_id);
	ANALYZE mp; ANALYZE sc;
	FOREACH p IN ARRAY m.params LOOP
		CREATE TEMP TABLE pass AS SELECT id1, id2 FROM mp
			WHERE CASE WHEN m.kind = 'dist' THEN score <= p ELSE score >= p - 1e-12 END;
		SELECT ari INTO a FROM ari_cache c WHERE c.ds = p_ds AND c.method = p_method AND c.param = p;
		IF NOT FOUND THEN
			CREATE TEMP TABLE pred AS SELECT * FROM clusters_from_pairs(
				'SELECT doc_id, NULL::integer FROM sc UNION ALL
				 SELECT id1, id2 FROM pass WHERE id1 IN (SELECT doc_id FROM sc) AND id2 IN (SELECT doc_id FROM sc)');
			a := q_ari(p_ds, 'pred');
			DROP TABLE pred;
		END IF;
		INSERT INTO results
		SELECT p_ds, p_method, p, (SELECT count(*) FROM pass), x.tp, x.n - x.tp, npos,
			x.tp::float8 / nullif(x.n, 0), x.tp::float8 / nullif(npos, 0),
			2.0 * x.tp / nullif(npos + x.n, 0), a,
			(SELECT avg((q.id1 IS NOT NULL)::int) FROM containment_truth c LEFT JOIN pass q
				ON q.id1 = least(c.doc_id, c.orig) AND q.id2 = greatest(c.doc_id, c.orig)
				WHERE c.ds = p_ds AND c.kind = 'excerpt'),
			(SELECT avg((q.id1 IS NOT NULL)::int) FROM containment_truth c LEFT JOIN pass q
				ON q.id1 = least(c.doc_id, c.orig) AND q.id2 = greatest(c.doc_id, c.orig)
				WHERE c.ds = p_ds AND c.kind = 'contains')
		FROM (SELECT count(*) AS n, count(t.id1) AS tp
			FROM pass q JOIN sc s1 ON s1.doc_id = q.id1 JOIN sc s2 ON s2.doc_id = q.id2
			LEFT JOIN positives t ON t.ds = p_ds AND t.id1 = q.id1 AND t.id2 = q.id2) x;
		DROP TABLE pass;
	END LOOP;
	DROP TABLE mp, sc;
END $$;

-- second mode: every method's pairs (over all documents of the dataset) against the exact truth
-- "word 3-shingle Jaccard >= t"
CREATE FUNCTION q_score_exact(p_ds text, truths float8[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	-- every candidate pair of every method with its exact J (0 when below 0.1: not in exact)
	CREATE TEMP TABLE ex AS SELECT id1, id2, j FROM exact WHERE ds = p_ds;
	CREATE TEMP TABLE mpj AS SELECT method, id1, id2, score FROM mpairs WHERE ds = p_ds;
	ANALYZE ex; ANALYZE mpj;
	-- c: closeness, larger = closer (minus the distance for simhash), so that one index serves both
	CREATE TEMP TABLE mpj2 AS SELECT q.method, CASE WHEN m.kind = 'dist' THEN -q.score ELSE q.score END AS c,
			coalesce(e.j, 0) AS j
		FROM mpj q JOIN methods m ON m.ds = p_ds AND m.method = q.method
		LEFT JOIN ex e ON e.id1 = q.id1 AND e.id2 = q.id2;
	CREATE INDEX ON mpj2 (method, c);
	ANALYZE mpj2;
	INSERT INTO results_exact
	SELECT p_ds, m.method, p.p, t.t, x.n, x.tp, nt.n,
		x.tp::float8 / nullif(x.n, 0), x.tp::float8 / nullif(nt.n, 0), 2.0 * x.tp / nullif(x.n + nt.n, 0)
	FROM methods m CROSS JOIN LATERAL unnest(m.params) p(p) CROSS JOIN unnest(truths) t(t)
		CROSS JOIN LATERAL (SELECT count(*) AS n FROM ex WHERE ex.j >= t.t) nt
		CROSS JOIN LATERAL (SELECT count(*) AS n, count(*) FILTER (WHERE q.j >= t.t) AS tp FROM mpj2 q
			WHERE q.method = m.method
			AND q.c >= CASE WHEN m.kind = 'dist' THEN -p.p ELSE p.p - 1e-12 END) x
	WHERE m.ds = p_ds;
	DROP TABLE ex, mpj, mpj2;
END $$;

-- exact shingle sets kept in the row (not TOASTed out of line) where they fit: the all-pairs
-- overlap reads every set ~n times, and fetching out-of-line values dominated its time
CREATE TABLE sets (ds text, id integer, n integer, s shingleset) WITH (toast_tuple_target = 8160);
ALTER TABLE sets ALTER COLUMN s SET STORAGE MAIN;
