--
-- Verified candidates: hamming_pairs, hamming_join and hamming_clusters
-- with verify => t confirm every pair within the radius by the resemblance
-- of a second value (a text, an exact shingle set, a min-hash sketch).
-- Every answer is compared with the same test written in plain SQL, in
-- memory and through temporary files.
--

-- short texts over a small vocabulary (simhash is noisy on them: many
-- unrelated pairs fall within a wide radius), planted variants, exact
-- copies, texts without word 3-shingles and NULLs; deterministic
CREATE TABLE vt (id bigint, body text);
CREATE FUNCTION vword(seed text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
	SELECT (ARRAY['red', 'green', 'blue', 'cat', 'dog', 'bird', 'runs', 'sleeps', 'eats',
				  'big', 'small', 'old', 'new', 'house', 'tree', 'road', 'river', 'stone',
				  'quick', 'slow', 'under', 'over', 'near', 'far', 'with', 'without',
				  'light', 'dark', 'warm', 'cold'])[1 + get_byte(decode(md5(seed), 'hex'), 0) % 30]
$$;
INSERT INTO vt
SELECT g, (SELECT string_agg(vword(g || '/' || i), ' ' ORDER BY i)
		   FROM generate_series(1, 6 + g % 5) i)
FROM generate_series(1, 900) g;
-- variants: one or two words replaced
INSERT INTO vt
SELECT 10000 + g,
	   (SELECT string_agg(CASE WHEN i IN (1 + g % 7, 1 + (g * 3) % 9) THEN vword('v' || g || i) ELSE w END,
						  ' ' ORDER BY i)
		FROM unnest(string_to_array(b.body, ' ')) WITH ORDINALITY AS u(w, i))
FROM generate_series(1, 300) g JOIN vt b ON b.id = 1 + (g * 7) % 900;
INSERT INTO vt SELECT 20000 + g, b.body FROM generate_series(1, 40) g JOIN vt b ON b.id = g * 13;
INSERT INTO vt VALUES (30001, ''), (30002, 'one'), (30003, 'two words'), (30004, 'one'),
	(30005, NULL), (30006, NULL), (30007, '  !! '), (30008, '...');
ALTER TABLE vt ADD COLUMN fp simhash64, ADD COLUMN sset shingleset, ADD COLUMN sk minhash_sketch,
	ADD COLUMN ord bigint;
UPDATE vt SET fp = simhash(coalesce(body, 'null')), sset = shingle_set(body), sk = minhash(body),
	ord = 100000 - id;
SELECT id, cardinality(sset) FROM vt WHERE id > 30000 ORDER BY id;
SELECT count(*), count(body), count(DISTINCT fp) FROM vt;

-- the truth at radius 16, by a plain self-join
CREATE TABLE vtruth AS
SELECT a.id AS id1, b.id AS id2, a.fp <-> b.fp AS distance,
	   jaccard(shingle_set(a.body), shingle_set(b.body)) AS j,
	   jaccard(a.sk, b.sk) AS jsk
FROM vt a JOIN vt b ON a.id < b.id AND a.fp <-> b.fp <= 16
WHERE a.body IS NOT NULL AND b.body IS NOT NULL;
-- the radius alone: most pairs share no text
SELECT count(*) AS within_16, count(*) FILTER (WHERE j < 0.2) AS below_02,
	   count(*) FILTER (WHERE j >= 0.5) AS at_least_05
FROM vtruth;

-- missing and extra pairs of one call against the truth
CREATE FUNCTION vdiff(got regclass, r integer, t float8, use_sketch boolean DEFAULT false)
RETURNS TABLE (found bigint, missing bigint, extra bigint)
LANGUAGE plpgsql AS $$
BEGIN
	RETURN QUERY EXECUTE format($q$
		WITH t AS (SELECT id1, id2, distance FROM vtruth
				   WHERE distance <= %s AND (CASE WHEN %L THEN jsk ELSE j END) >= %s)
		SELECT (SELECT count(*) FROM %s),
			   (SELECT count(*) FROM (SELECT * FROM t EXCEPT ALL SELECT * FROM %s) m),
			   (SELECT count(*) FROM (SELECT * FROM %s EXCEPT ALL SELECT * FROM t) e)$q$,
		r, use_sketch, t, got, got, got);
END $$;

-- hamming_pairs verified by the text (the query's last column)
CREATE TEMP TABLE got AS
SELECT * FROM hamming_pairs('SELECT id, fp, body FROM vt', 16, verify => 0.5);
SELECT * FROM vdiff('got', 16, 0.5);
-- by the stored exact shingle set: the same pairs
CREATE TEMP TABLE got_set AS
SELECT * FROM hamming_pairs('SELECT id, fp, sset FROM vt', 16, verify => 0.5);
SELECT count(*) FROM (SELECT * FROM got EXCEPT SELECT * FROM got_set) d;
SELECT count(*) FROM (SELECT * FROM got_set EXCEPT SELECT * FROM got) d;
-- by the stored sketch: the sketches' estimate
CREATE TEMP TABLE got_sk AS
SELECT * FROM hamming_pairs('SELECT id, fp, sk FROM vt', 12, verify => 0.3);
SELECT * FROM vdiff('got_sk', 12, 0.3, true);
-- other radii and thresholds
DO $$
DECLARE
	r integer;
	t float8;
	d record;
BEGIN
	FOREACH r IN ARRAY ARRAY[0, 3, 8, 16] LOOP
		FOREACH t IN ARRAY ARRAY[0.1, 0.3, 1.0] LOOP
			DROP TABLE IF EXISTS g;
			CREATE TEMP TABLE g AS SELECT * FROM hamming_pairs('SELECT id, fp, body FROM vt', r, t);
			SELECT * INTO d FROM vdiff('g', r, t);
			IF d.missing <> 0 OR d.extra <> 0 THEN
				RAISE WARNING 'radius %, verify %: % missing, % extra', r, t, d.missing, d.extra;
			END IF;
		END LOOP;
	END LOOP;
END $$;

-- the relation form: verify_column, and verify defaulting to
-- nddup.similarity_threshold
SET nddup.similarity_threshold = 0.5;
SELECT count(*) FROM (
	SELECT * FROM hamming_pairs('vt', 'id', 'fp', 16, verify_column => 'body')
	EXCEPT SELECT * FROM got) d;
SELECT count(*) FROM hamming_pairs('vt', 'id', 'fp', 16, verify_column => 'body')
UNION ALL SELECT count(*) FROM got;
RESET nddup.similarity_threshold;
SELECT count(*) FROM hamming_pairs('vt', 'id', 'fp', 16, verify_column => 'sset', verify => 0.5);

-- through temporary files: the same pairs
SET work_mem = '64kB';
CREATE TEMP TABLE got_spill AS
SELECT * FROM hamming_pairs('SELECT id, fp, body FROM vt', 16, verify => 0.5);
RESET work_mem;
SELECT * FROM vdiff('got_spill', 16, 0.5);

-- hamming_join: old rows against new ones, in memory and spilled
CREATE TEMP TABLE got_join AS
SELECT id_a AS id1, id_b AS id2, distance
FROM hamming_join('SELECT id, fp, body FROM vt WHERE id < 10000',
				  'SELECT id, fp, body FROM vt WHERE id >= 10000', 16, verify => 0.5);
SELECT count(*),
	   count(*) FILTER (WHERE (id1, id2, distance) NOT IN (SELECT id1, id2, distance FROM vtruth
															 WHERE j >= 0.5)) AS wrong
FROM got_join;
SELECT count(*) AS missing FROM vtruth
WHERE j >= 0.5 AND id1 < 10000 AND id2 >= 10000
  AND (id1, id2) NOT IN (SELECT id1, id2 FROM got_join);
SET work_mem = '64kB';
SELECT count(*) FROM (
	SELECT id_a, id_b, distance
	FROM hamming_join('SELECT id, fp, body FROM vt WHERE id < 10000',
					  'SELECT id, fp, body FROM vt WHERE id >= 10000', 16, verify => 0.5)
	EXCEPT ALL SELECT * FROM got_join) d;
RESET work_mem;

-- hamming_clusters: the components of the verified pairs
CREATE TEMP TABLE vpairs AS SELECT id1, id2 FROM vtruth WHERE j >= 0.5;
CREATE TEMP TABLE want AS
SELECT * FROM clusters_from_pairs('SELECT id1, id2 FROM vpairs', false, mode => 'components');
CREATE TEMP TABLE got_cl AS
SELECT * FROM hamming_clusters('SELECT id, fp, body FROM vt', 16, false, verify => 0.5, mode => 'components');
SELECT count(*), count(DISTINCT cluster_id) FROM got_cl;
SELECT count(*) FROM (SELECT * FROM got_cl EXCEPT SELECT * FROM want) d;
SELECT count(*) FROM (SELECT * FROM want EXCEPT SELECT * FROM got_cl) d;
SET work_mem = '64kB';
SELECT count(*) FROM (
	SELECT * FROM hamming_clusters('SELECT id, fp, body FROM vt', 16, false, verify => 0.5, mode => 'components')
	EXCEPT SELECT * FROM want) d;
SELECT count(*) FROM hamming_clusters('SELECT id, fp, body FROM vt', 16, false, verify => 0.5, mode => 'components');
RESET work_mem;
-- the relation form with an order column (the largest id is the earliest):
-- the same components, each named after its earliest member
CREATE TEMP TABLE got_ord AS
SELECT * FROM hamming_clusters('vt', 'id', 'fp', 16, order_column => 'ord', singletons => false,
							   verify_column => 'body', verify => 0.5, mode => 'components');
SELECT count(*) FROM got_ord o JOIN got_cl c USING (id) JOIN got_ord o2 ON o2.id = c.cluster_id
WHERE o2.cluster_id <> o.cluster_id;
SELECT count(*) FROM got_ord
WHERE cluster_id <> (SELECT max(id) FROM got_ord g WHERE g.cluster_id = got_ord.cluster_id);
-- unverified clusters at radius 16 chain most of the table together
SELECT count(*) FROM hamming_clusters('SELECT id, fp FROM vt', 16, false, mode => 'components');

-- texts without shingles: resemblance 1 with each other, 0 with the rest
SELECT * FROM hamming_pairs($$SELECT id, fp, body FROM vt WHERE id > 30000$$, 64, verify => 1.0)
ORDER BY 1, 2;
-- a NULL verification value: the row is skipped
SELECT count(*) FROM hamming_pairs($$SELECT id, fp, NULL::text FROM vt$$, 64, verify => 0.1);

-- NULL arguments: no rows, as before
SELECT count(*) FROM hamming_pairs(NULL, 3);
SELECT count(*) FROM hamming_pairs('SELECT id, fp FROM vt', NULL);
SELECT count(*) FROM hamming_clusters(NULL::text, 3, mode => 'components');
SELECT count(*) FROM hamming_join('SELECT id, fp FROM vt', NULL, 3);
SELECT count(*) FROM hamming_pairs('vt', 'id', NULL, 3);
-- without verify: unchanged
SELECT count(*) = (SELECT count(*) FROM vtruth WHERE distance <= 8)
FROM hamming_pairs('SELECT id, fp FROM vt WHERE body IS NOT NULL', 8);

-- errors
SELECT * FROM hamming_pairs('SELECT id, fp, body FROM vt', 3, verify => 0);
SELECT * FROM hamming_pairs('SELECT id, fp, body FROM vt', 3, verify => 1.5);
SELECT * FROM hamming_pairs('SELECT id, fp, body FROM vt', 3, verify => 'NaN');
SELECT * FROM hamming_pairs('SELECT id, fp FROM vt', 3, verify => 0.5);
SELECT * FROM hamming_pairs('SELECT id, fp, id FROM vt', 3, verify => 0.5);
SELECT * FROM hamming_pairs('vt', 'id', 'fp', 3, verify => 0.5);
SELECT * FROM hamming_pairs('vt', 'id', 'fp', 3, verify_column => 'nope');
SELECT * FROM hamming_pairs('vt', 'id', 'fp', 3, verify_column => 'id');
SELECT * FROM hamming_join('SELECT id, fp, body FROM vt', 'SELECT id, fp, sk FROM vt', 3, verify => 0.5);
SELECT * FROM hamming_pairs($$SELECT id, fp, CASE WHEN id < 500 THEN shingle_set(body) ELSE shingle_set(body, 2) END FROM vt$$,
							3, verify => 0.5);
SELECT * FROM hamming_pairs($$SELECT id, fp, shingle_bottom(body, 4) FROM vt$$, 3, verify => 0.5);
SELECT * FROM hamming_clusters('SELECT id, fp, now(), body FROM vt', 3, verify => 0.5, mode => 'components') LIMIT 1;
SELECT * FROM hamming_clusters('SELECT id, fp, id, body, body FROM vt', 3, verify => 0.5, mode => 'components');

--
-- minhash_pairs / minhash_join / minhash_clusters with verify: candidates
-- from the bands (estimate >= threshold), confirmed by the exact Jaccard of
-- the text, which is then the reported resemblance
--
CREATE TABLE mtruth AS
SELECT a.id AS id1, b.id AS id2, jaccard(a.sk, b.sk) AS est,
	   jaccard(shingle_set(a.body), shingle_set(b.body)) AS j
FROM vt a JOIN vt b ON a.id < b.id
WHERE a.body IS NOT NULL AND b.body IS NOT NULL AND jaccard(a.sk, b.sk) >= 0.3;
SELECT count(*) AS candidates, count(*) FILTER (WHERE j >= 0.5) AS verified FROM mtruth;
CREATE FUNCTION mdiff(q text) RETURNS TABLE (found bigint, missing bigint, extra bigint)
LANGUAGE plpgsql AS $$
BEGIN
	RETURN QUERY EXECUTE format($q$
		WITH t AS (SELECT id1, id2, j FROM mtruth WHERE j >= 0.5), g AS (%s)
		SELECT (SELECT count(*) FROM g),
			   (SELECT count(*) FROM (SELECT * FROM t EXCEPT ALL SELECT * FROM g) m),
			   (SELECT count(*) FROM (SELECT * FROM g EXCEPT ALL SELECT * FROM t) e)$q$, q);
END $$;
SELECT * FROM mdiff($$SELECT * FROM minhash_pairs('SELECT id, sk, body FROM vt', 0.3, verify => 0.5)$$);
SELECT * FROM mdiff($$SELECT * FROM minhash_pairs('SELECT id, sk, sset FROM vt', 0.3, verify => 0.5)$$);
SELECT * FROM mdiff($$SELECT * FROM minhash_pairs('vt', 'id', 'sk', 0.3, verify_column => 'body', verify => 0.5)$$);
SET work_mem = '64kB';
SELECT * FROM mdiff($$SELECT * FROM minhash_pairs('SELECT id, sk, body FROM vt', 0.3, verify => 0.5)$$);
RESET work_mem;
-- the join, in memory and spilled
SELECT * FROM mdiff($$SELECT * FROM minhash_join('SELECT id, sk, body FROM vt WHERE id < 10000',
	'SELECT id, sk, body FROM vt WHERE id >= 10000', 0.3, verify => 0.5)
	UNION ALL SELECT id1, id2, j FROM mtruth WHERE j >= 0.5 AND NOT (id1 < 10000 AND id2 >= 10000)$$);
SET work_mem = '64kB';
SELECT * FROM mdiff($$SELECT * FROM minhash_join('SELECT id, sk, body FROM vt WHERE id < 10000',
	'SELECT id, sk, body FROM vt WHERE id >= 10000', 0.3, verify => 0.5)
	UNION ALL SELECT id1, id2, j FROM mtruth WHERE j >= 0.5 AND NOT (id1 < 10000 AND id2 >= 10000)$$);
RESET work_mem;
-- clusters: the components of the verified pairs
CREATE TEMP TABLE mwant AS
SELECT * FROM clusters_from_pairs('SELECT id1, id2 FROM mtruth WHERE j >= 0.5', false, mode => 'components');
SELECT count(*), count(DISTINCT cluster_id) FROM mwant;
SELECT count(*) FROM (
	SELECT * FROM minhash_clusters('SELECT id, sk, body FROM vt', 0.3, singletons => false, verify => 0.5, mode => 'components')
	EXCEPT SELECT * FROM mwant) d;
SELECT count(*) FROM minhash_clusters('SELECT id, sk, body FROM vt', 0.3, singletons => false, verify => 0.5, mode => 'components');
SET work_mem = '64kB';
SELECT count(*) FROM (
	SELECT * FROM minhash_clusters('vt', 'id', 'sk', 0.3, singletons => false,
								   verify_column => 'body', verify => 0.5, mode => 'components')
	EXCEPT SELECT * FROM mwant) d;
SELECT count(*) FROM minhash_clusters('vt', 'id', 'sk', 0.3, singletons => false,
									  verify_column => 'body', verify => 0.5, mode => 'components');
RESET work_mem;
-- sketches of texts without shingles: verified like the rest
SELECT * FROM minhash_pairs($$SELECT id, sk, body FROM vt WHERE id > 30000$$, 0.3, verify => 1.0)
ORDER BY 1, 2;
SET work_mem = '64kB';
SELECT * FROM minhash_pairs($$SELECT id, sk, body FROM vt WHERE id > 30000 OR id < 400$$, 0.9,
							verify => 1.0)
WHERE id1 > 30000 ORDER BY 1, 2;
RESET work_mem;
-- errors
SELECT * FROM minhash_pairs('SELECT id, sk FROM vt', 0.3, verify => 0.5);
SELECT * FROM minhash_pairs('vt', 'id', 'sk', 0.3, verify => 0.5);
SELECT * FROM minhash_clusters('SELECT id, sk, body FROM vt', 0.3, verify => 2, mode => 'components');

-- calls whose arguments are all untyped literals or parameters (a driver
-- that sends every parameter as text) resolve to the relation forms
SELECT count(*) FROM hamming_clusters('vt', 'id', 'fp', '16', mode => 'components');
SELECT count(*) FROM minhash_pairs('vt', 'id', 'sk', '0.5');
SELECT count(*) FROM minhash_clusters('vt', 'id', 'sk', '0.5', mode => 'components');
SELECT count(*) FROM minhash_pairs('vt', 'id', 'sk', 'abc');
SELECT count(*) FROM hamming_clusters('vt', 'id', 'fp', '1.5', mode => 'components');
PREPARE untyped(unknown, unknown, unknown, unknown) AS
	SELECT count(*) FROM hamming_clusters($1, $2, $3, $4, mode => 'components');
EXECUTE untyped('vt', 'id', 'fp', '16');
DEALLOCATE untyped;
-- shingleset_clusters too (its query form's fourth argument is a text, the
-- measure): four untyped literals, or the threshold as a number, take the
-- relation form
SELECT count(*) FROM shingleset_clusters('vt', 'id', 'sset', '0.5', mode => 'components');
SELECT count(*) FROM shingleset_clusters('vt', 'id', 'sset', 0.5, mode => 'components');
SELECT count(*) FROM shingleset_clusters('vt', 'id', 'sset', '0.5', NULL, 'false', mode => 'components');
SELECT count(*) FROM shingleset_clusters('no_such_table', 'id', 'sset', '0.5', mode => 'components');

DROP FUNCTION mdiff(text);
DROP TABLE mtruth;
DROP FUNCTION vdiff(regclass, integer, float8, boolean);
DROP FUNCTION vword(text);
DROP TABLE vt, vtruth;
