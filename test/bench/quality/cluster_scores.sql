-- Cluster-level scores on the labelled corpora (test/bench/quality/cluster_scores.sh): the
-- clusters of shingleset_clusters and minhash_clusters at 0.3 in mode greedy and mode components,
-- one row per corpus, method, mode and document in cs_pred, the time of each call in cs_time.
SET client_min_messages = warning;

CREATE TABLE IF NOT EXISTS cs_pred (ds text, method text, mode text, id bigint, cluster_id bigint);
CREATE TABLE IF NOT EXISTS cs_time (ds text, method text, mode text, ms float8, error text);
CREATE TABLE IF NOT EXISTS cs_truth (ds text, doc_id bigint, cluster_id bigint, kind text);

-- a labelled TSV (doc_id, cluster_id, kind, edits, text) into d_NAME with the exact word 3-shingle
-- set and the default min-hash sketch of every row; the labels into cs_truth
CREATE OR REPLACE FUNCTION cs_load(name text, file text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('DROP TABLE IF EXISTS %I', 'd_' || name);
	EXECUTE format('CREATE TABLE %I (doc_id integer PRIMARY KEY, cluster_id integer, kind text, edits text,
		body text, ss shingleset, sk minhash_sketch)', 'd_' || name);
	EXECUTE format('COPY %I (doc_id, cluster_id, kind, edits, body) FROM PROGRAM %L',
		'd_' || name, format('zcat %s | tail -n +2', file));
	EXECUTE format('UPDATE %I SET ss = shingle_set(body), sk = minhash(body)', 'd_' || name);
	EXECUTE format('ANALYZE %I', 'd_' || name);
	DELETE FROM cs_truth WHERE ds = name;
	EXECUTE format('INSERT INTO cs_truth SELECT %L, doc_id, cluster_id, kind FROM %I', name, 'd_' || name);
END $$;

-- both cluster functions at 0.3 in both modes on corpus NAME, each call timed (an error is kept
-- in cs_time and the other calls go on)
CREATE OR REPLACE FUNCTION cs_run(name text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE m text; md text; t0 timestamptz;
BEGIN
	DELETE FROM cs_pred WHERE ds = name;
	DELETE FROM cs_time WHERE ds = name;
	FOREACH m IN ARRAY ARRAY['shingleset', 'minhash'] LOOP
		FOREACH md IN ARRAY ARRAY['greedy', 'components'] LOOP
			t0 := clock_timestamp();
			BEGIN
			IF m = 'shingleset' THEN
				INSERT INTO cs_pred SELECT name, m, md, c.id, c.cluster_id
				FROM shingleset_clusters(format('%I', 'd_' || name)::regclass, 'doc_id', 'ss', 0.3, mode => md) c;
			ELSE
				INSERT INTO cs_pred SELECT name, m, md, c.id, c.cluster_id
				FROM minhash_clusters(format('%I', 'd_' || name)::regclass, 'doc_id', 'sk', 0.3, mode => md) c;
			END IF;
			INSERT INTO cs_time VALUES (name, m, md,
				extract(epoch FROM clock_timestamp() - t0) * 1000, NULL);
			EXCEPTION WHEN OTHERS THEN
				INSERT INTO cs_time VALUES (name, m, md, NULL, SQLERRM);
			END;
		END LOOP;
	END LOOP;
END $$;
