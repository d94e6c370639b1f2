--
-- GIN indexes of the sketch types (docs/sketch-indexes.md):
-- minhash_lsh_ops and shingleset_ops.  Every index answer is compared with
-- a sequential scan of the same condition, for hundreds of queries.
--
SET extra_float_digits = 0;
SET client_min_messages = warning;
SET jit = off;
-- shared functions: pg_temp.plan(query), pg_temp.compare_scans(query, index)
\getenv abs_srcdir PG_ABS_SRCDIR
\set helpers :abs_srcdir '/test/include/helpers.sql'
\set ECHO none
\i :helpers
\set ECHO all

-- 3,000 deterministic documents: 1,000 originals of 30-79 words drawn from
-- a 3,000-word md5 vocabulary, each with two variants: one with 4-20 % of
-- the words replaced, one with 0-30 % replaced or, for every third
-- original, an excerpt (its first 60 %).
CREATE TABLE sk_docs (id integer PRIMARY KEY, body text);
INSERT INTO sk_docs
SELECT b * 3 + v,
	(SELECT string_agg(
		CASE WHEN v > 0 AND get_byte(decode(md5(b || ':' || v || ':' || p), 'hex'), 0) <
				256 * CASE v WHEN 1 THEN 0.04 * (b % 5 + 1) ELSE 0.05 * (b % 7) END
			THEN substr(md5('edit' || b || ':' || v || ':' || p), 1, 4 + p % 4)
			ELSE substr(md5('w' || (get_byte(decode(md5(b || ':' || p), 'hex'), 1) * 256 +
				get_byte(decode(md5(b || ':' || p), 'hex'), 2)) % 3000), 1, 3 + p % 5)
		END, ' ' ORDER BY p)
	 FROM generate_series(1, 30 + b % 50) p
	 WHERE NOT (v = 2 AND b % 3 = 0 AND p > 0.6 * (30 + b % 50)))
FROM generate_series(0, 999) b, generate_series(0, 2) v;
-- documents without shingles, and NULLs
INSERT INTO sk_docs VALUES (3000, ''), (3001, '!!! ...'), (3002, 'two words'), (3003, NULL);

CREATE TABLE sk (id integer PRIMARY KEY, mh minhash_sketch, kp minhash_sketch,
	b8 minhash_sketch, ss shingleset, bt shingleset, md shingleset);
INSERT INTO sk
SELECT id, minhash(body), minhash(body, 64, 'kperm'), minhash_bbit(minhash(body), 8),
	shingle_set(body), shingle_bottom(body, 32), shingle_mod(body, 4)
FROM sk_docs;
INSERT INTO sk (id) VALUES (3004);

SELECT count(*) AS docs, count(mh) AS sketches,
	count(*) FILTER (WHERE cardinality(ss) = 0) AS empty_docs
FROM sk;

-- the queries: 59 documents (originals, variants, empty ones) and 5 thresholds
CREATE TABLE sk_q AS SELECT * FROM sk WHERE id % 53 = 0 OR id IN (3000, 3002);
CREATE TABLE sk_t AS SELECT unnest(ARRAY[0.5, 0.6, 0.7, 0.8, 0.9]::float8[]) AS t;
SELECT count(*) AS queries FROM sk_q, sk_t;


SET work_mem = '64kB';

-------------------------------------------------------------------------------
-- minhash_lsh_ops

-- design threshold 0.5, for k = 128: 65 bands of 1 row (the default, 0.3,
-- gives 90 bands of 1 row; 0.8 gives 26 bands of 4 rows)
SELECT t, (minhash_lsh_geometry(128, 32, t)).*
FROM unnest(ARRAY[0.3, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 1]) t;
CREATE INDEX sk_mh_idx ON sk USING gin (mh minhash_lsh_ops(threshold = 0.5)) WITH (fastupdate = off);

SELECT * FROM pg_temp.plan($$SELECT id FROM sk WHERE mh <@ similar_to((SELECT mh FROM sk WHERE id = 3), 0.8)$$);
SELECT * FROM pg_temp.plan($$SELECT id FROM sk WHERE similar(mh, (SELECT mh FROM sk WHERE id = 3), 0.8)$$);
SELECT * FROM pg_temp.plan($$SELECT id FROM sk WHERE (SELECT mh FROM sk WHERE id = 3) % mh$$);

-- one query by hand
SELECT id, round(jaccard(mh, (SELECT mh FROM sk WHERE id = 3))::numeric, 3) AS r
FROM sk WHERE mh <@ similar_to((SELECT mh FROM sk WHERE id = 3), 0.5) ORDER BY id;

-- hundreds of queries, thresholds 0.5 (one common band) to 0.9 (53 of the
-- 65 bands)
SELECT * FROM pg_temp.compare_scans($$SELECT q.id AS qid, t, d.id FROM sk_q q, sk_t, sk d
	WHERE d.mh <@ similar_to(q.mh, t)$$, 'sk_mh_idx');
SELECT * FROM pg_temp.compare_scans($$SELECT q.id AS qid, t, d.id FROM sk_q q, sk_t, sk d
	WHERE similar(d.mh, q.mh, t)$$, 'sk_mh_idx');
SELECT * FROM pg_temp.compare_scans($$SELECT q.id AS qid, t, d.id FROM sk_q q, sk_t, sk d
	WHERE similar(q.mh, d.mh, t)$$, 'sk_mh_idx');
-- thresholds that do not fall on a multiple of 1/k
SELECT * FROM pg_temp.compare_scans($$SELECT q.id AS qid, t, d.id FROM sk_q q,
	(VALUES (0.7734375::float8), (0.7734374), (0.7734376), (0.85), (1.0)) s(t), sk d
	WHERE d.mh <@ similar_to(q.mh, t)$$, 'sk_mh_idx');
-- the % operator reads nddup.similarity_threshold
SET nddup.similarity_threshold = 0.75;
SELECT * FROM pg_temp.compare_scans($$SELECT q.id AS qid, 0 AS t, d.id FROM sk_q q, sk d
	WHERE d.mh % q.mh$$, 'sk_mh_idx');
SET nddup.similarity_threshold = 0.83;
SELECT * FROM pg_temp.compare_scans($$SELECT q.id AS qid, 0 AS t, d.id FROM sk_q q, sk d
	WHERE q.mh % d.mh$$, 'sk_mh_idx');
SET nddup.similarity_threshold = 0.0;
SELECT * FROM pg_temp.compare_scans($$SELECT q.id AS qid, 0 AS t, d.id FROM sk_q q, sk d
	WHERE d.mh % q.mh AND q.id % 4 = 0$$, 'sk_mh_idx');
RESET nddup.similarity_threshold;
-- threshold 0: every non-NULL row, through a full index scan
SELECT count(*) FROM sk WHERE mh <@ similar_to((SELECT mh FROM sk WHERE id = 3), 0);

-- explicit bands and rows, k-permutation sketches of k = 64 (4 values left over)
CREATE INDEX sk_kp_idx ON sk USING gin (kp minhash_lsh_ops(bands = 15, rows = 4));
SELECT * FROM pg_temp.compare_scans($$SELECT q.id AS qid, t, d.id FROM sk_q q, sk_t, sk d
	WHERE d.kp <@ similar_to(q.kp, t)$$, 'sk_kp_idx');
-- b-bit sketches (chance-corrected estimate), design threshold 0.8 (lower
-- query thresholds: a full index scan)
SELECT * FROM minhash_lsh_geometry(128, 8, 0.8);
CREATE INDEX sk_b8_idx ON sk USING gin (b8 minhash_lsh_ops(threshold = 0.8));
SELECT * FROM pg_temp.compare_scans($$SELECT q.id AS qid, t, d.id FROM sk_q q, sk_t, sk d
	WHERE d.b8 <@ similar_to(q.b8, t)$$, 'sk_b8_idx');

-- empty documents: r(empty, empty) = 1, r(empty, other) = 0
SELECT id FROM sk WHERE mh <@ similar_to(minhash(''), 0.9) ORDER BY id;
SELECT id FROM sk WHERE mh <@ similar_to(minhash(''), 0) ORDER BY id LIMIT 3;
SELECT count(*) FROM sk WHERE mh <@ similar_to(minhash('two words'), 0.5);
-- NULL query or threshold: no row
SELECT count(*) FROM sk WHERE mh <@ similar_to(NULL::minhash_sketch, 0.5);
SELECT count(*) FROM sk WHERE similar(mh, (SELECT mh FROM sk WHERE id = 3), NULL);

-- UPDATE and DELETE (sk_kp_idx and sk_b8_idx have fastupdate on: the new
-- entries wait in the pending list), then VACUUM
UPDATE sk SET mh = minhash(body), b8 = minhash_bbit(minhash(body), 8), kp = minhash(body, 64, 'kperm')
FROM (SELECT id, body || ' appended words here' AS body FROM sk_docs WHERE id % 7 = 1) u
WHERE sk.id = u.id;
DELETE FROM sk WHERE id % 11 = 5;
SELECT * FROM pg_temp.compare_scans($$SELECT q.id AS qid, t, d.id FROM sk_q q, sk_t, sk d
	WHERE d.kp <@ similar_to(q.kp, t)$$, 'sk_kp_idx');
SELECT * FROM pg_temp.compare_scans($$SELECT q.id AS qid, t, d.id FROM sk_q q, sk_t, sk d
	WHERE d.mh <@ similar_to(q.mh, t)$$, 'sk_mh_idx');
VACUUM sk;
SELECT * FROM pg_temp.compare_scans($$SELECT q.id AS qid, t, d.id FROM sk_q q, sk_t, sk d
	WHERE d.b8 <@ similar_to(q.b8, t)$$, 'sk_b8_idx');
SELECT * FROM pg_temp.compare_scans($$SELECT q.id AS qid, t, d.id FROM sk_q q, sk_t, sk d
	WHERE d.kp <@ similar_to(q.kp, t)$$, 'sk_kp_idx');

-- lossy bitmaps: one row per page (fillfactor 10) and work_mem = 64kB make
-- the bitmap of a full-scan query (threshold 0.5 < design threshold 0.8)
-- keep whole pages, rechecked row by row
CREATE TABLE sk_wide (id integer, mh minhash_sketch) WITH (fillfactor = 10);
INSERT INTO sk_wide SELECT id, minhash(body) FROM sk_docs;
CREATE INDEX sk_wide_idx ON sk_wide USING gin (mh minhash_lsh_ops(threshold = 0.8));
CREATE FUNCTION sk_lossy(query text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
	line text;
	lossy boolean := false;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) ' || query LOOP
		lossy := lossy OR line LIKE '%lossy=%';
	END LOOP;
	RETURN lossy;
END
$$;
SET enable_seqscan = off;
SELECT sk_lossy($$SELECT * FROM sk_wide WHERE mh <@ similar_to((SELECT mh FROM sk_wide WHERE id = 3), 0.5)$$);
RESET enable_seqscan;
SELECT * FROM pg_temp.compare_scans($$SELECT q.id AS qid, t, d.id FROM sk_q q, sk_t, sk_wide d
	WHERE d.mh <@ similar_to(q.mh, t) AND q.id % 2 = 0$$, 'sk_wide_idx');
DROP TABLE sk_wide;
DROP FUNCTION sk_lossy(text);

-------------------------------------------------------------------------------
-- minhash_lsh_ops: errors

SET enable_seqscan = off;
-- a query made with other parameters: 22023, as from a sequential scan
SELECT count(*) FROM sk WHERE mh <@ similar_to(minhash('some words for a query', 64), 0.8);
SELECT count(*) FROM sk WHERE mh % minhash('some words for a query', 128, 'kperm');
-- the query's k is too small for the index's bands and rows
SELECT count(*) FROM sk WHERE kp <@ similar_to(minhash('some words for a query', 32, 'kperm'), 0.8);
-- a row made with other parameters is found by the index as well
CREATE TABLE sk_mixed (id integer, mh minhash_sketch);
INSERT INTO sk_mixed SELECT id, mh FROM sk WHERE id < 300;
INSERT INTO sk_mixed VALUES (999, minhash('an unrelated text of other parameters', 128, 'oph', 7));
CREATE INDEX ON sk_mixed USING gin (mh);
SELECT count(*) FROM sk_mixed WHERE mh <@ similar_to((SELECT mh FROM sk WHERE id = 3), 0.8);
DELETE FROM sk_mixed WHERE id = 999;
SELECT count(*) FROM sk_mixed WHERE mh <@ similar_to((SELECT mh FROM sk WHERE id = 3), 0.8);
-- default options: design threshold 0.3, the default of
-- nddup.similarity_threshold; % at the default setting and similar_to()
-- through this index agree with a sequential scan
SELECT * FROM minhash_lsh_geometry(128);
SELECT * FROM pg_temp.compare_scans($$SELECT q.id AS qid, 0 AS t, d.id FROM sk_q q, sk_mixed d
	WHERE d.mh % q.mh$$, 'sk_mixed_mh_idx');
SELECT * FROM pg_temp.compare_scans($$SELECT q.id AS qid, t, d.id FROM sk_q q, sk_t, sk_mixed d
	WHERE d.mh <@ similar_to(q.mh, t)$$, 'sk_mixed_mh_idx');
-- bad options
CREATE INDEX ON sk USING gin (kp minhash_lsh_ops(bands = 20, rows = 4));
CREATE INDEX ON sk USING gin (kp minhash_lsh_ops(bands = 65));
CREATE INDEX ON sk USING gin (kp minhash_lsh_ops(bands = 8, threshold = 0.9));
CREATE INDEX ON sk USING gin (kp minhash_lsh_ops(threshold = 0));
CREATE INDEX ON sk USING gin (kp minhash_lsh_ops(rows = 2000));
-- an insert that does not fit the index's bands
INSERT INTO sk (id, kp) VALUES (5000, minhash('a short sketch', 32, 'kperm'));
-- bad thresholds
SELECT similar_to(minhash('x'), 1.5);
SELECT 'jaccard>=-1 oph k=1 seed=0 size=3 unit=word bits=32: 00000000'::minhash_query;
SELECT 'containment>=0.5 oph k=1 seed=0 size=3 unit=word bits=32: 00000000'::minhash_query;
-- gin_fuzzy_search_limit would drop rows: refused
SET gin_fuzzy_search_limit = 100;
SELECT count(*) FROM sk WHERE mh <@ similar_to((SELECT mh FROM sk WHERE id = 3), 0.8);
RESET gin_fuzzy_search_limit;
RESET enable_seqscan;

-------------------------------------------------------------------------------
-- shingleset_ops

CREATE INDEX sk_ss_idx ON sk USING gin (ss shingleset_ops) WITH (fastupdate = off);
CREATE INDEX sk_bt_idx ON sk USING gin (bt);
CREATE INDEX sk_md_idx ON sk USING gin (md);

SELECT * FROM pg_temp.plan($$SELECT id FROM sk WHERE ss <@ containing((SELECT ss FROM sk WHERE id = 2), 0.9)$$);
SELECT * FROM pg_temp.plan($$SELECT id FROM sk WHERE similar(ss, (SELECT ss FROM sk WHERE id = 2), 0.7)$$);
SELECT * FROM pg_temp.plan($$SELECT id FROM sk WHERE ss && (SELECT ss FROM sk WHERE id = 2)$$);

-- which documents contain the excerpt 2 (of original 0)?
SELECT id, round(containment((SELECT ss FROM sk WHERE id = 2), ss)::numeric, 3) AS c
FROM sk WHERE ss <@ containing((SELECT ss FROM sk WHERE id = 2), 0.5) ORDER BY id;

SELECT * FROM pg_temp.compare_scans($$SELECT q.id AS qid, t, d.id FROM sk_q q, sk_t, sk d
	WHERE d.ss <@ similar_to(q.ss, t)$$, 'sk_ss_idx');
SELECT * FROM pg_temp.compare_scans($$SELECT q.id AS qid, t, d.id FROM sk_q q, sk_t, sk d
	WHERE similar(q.ss, d.ss, t)$$, 'sk_ss_idx');
SELECT * FROM pg_temp.compare_scans($$SELECT q.id AS qid, t, d.id FROM sk_q q, sk_t, sk d
	WHERE d.ss <@ containing(q.ss, t)$$, 'sk_ss_idx');
SELECT * FROM pg_temp.compare_scans($$SELECT q.id AS qid, 0 AS t, d.id FROM sk_q q, sk d
	WHERE d.ss && q.ss$$, 'sk_ss_idx');
SET nddup.similarity_threshold = 0.65;
SELECT * FROM pg_temp.compare_scans($$SELECT q.id AS qid, 0 AS t, d.id FROM sk_q q, sk d
	WHERE d.ss % q.ss$$, 'sk_ss_idx');
RESET nddup.similarity_threshold;
-- Broder's samples: bottom-s (Jaccard) and mod-m (Jaccard, containment)
SELECT * FROM pg_temp.compare_scans($$SELECT q.id AS qid, t, d.id FROM sk_q q, sk_t, sk d
	WHERE d.bt <@ similar_to(q.bt, t)$$, 'sk_bt_idx');
SELECT * FROM pg_temp.compare_scans($$SELECT q.id AS qid, t, d.id FROM sk_q q, sk_t, sk d
	WHERE d.md <@ similar_to(q.md, t)$$, 'sk_md_idx');
SELECT * FROM pg_temp.compare_scans($$SELECT q.id AS qid, t, d.id FROM sk_q q, sk_t, sk d
	WHERE d.md <@ containing(q.md, t)$$, 'sk_md_idx');

-- empty documents and thresholds 0
SELECT id FROM sk WHERE ss <@ similar_to(shingle_set(''), 0.5) ORDER BY id;
SELECT count(*) FROM sk WHERE ss <@ containing(shingle_set(''), 0.5);
SELECT count(*) FROM sk WHERE ss <@ similar_to((SELECT ss FROM sk WHERE id = 2), 0);
SELECT count(*) FROM sk WHERE ss && shingle_set('');

-- after UPDATE, DELETE, VACUUM
UPDATE sk SET ss = shingle_set(body), md = shingle_mod(body, 4), bt = shingle_bottom(body, 32)
FROM (SELECT id, 'prefix words ' || body AS body FROM sk_docs WHERE id % 13 = 2) u
WHERE sk.id = u.id;
DELETE FROM sk WHERE id % 17 = 3;
VACUUM sk;
SELECT * FROM pg_temp.compare_scans($$SELECT q.id AS qid, t, d.id FROM sk_q q, sk_t, sk d
	WHERE d.ss <@ containing(q.ss, t)$$, 'sk_ss_idx');
SELECT * FROM pg_temp.compare_scans($$SELECT q.id AS qid, t, d.id FROM sk_q q, sk_t, sk d
	WHERE d.ss <@ similar_to(q.ss, t)$$, 'sk_ss_idx');

-- errors
SET enable_seqscan = off;
SELECT count(*) FROM sk WHERE ss <@ similar_to(shingle_set('some words for a query', 2), 0.5);
SELECT count(*) FROM sk WHERE ss && shingle_mod('some words for a query', 4);
SELECT containing(shingle_bottom('some words for a query', 10), 0.5);
SELECT 'containment>=0.5 bottom s=1 size=3 unit=word n=0:'::shingleset_query;
SELECT containing(shingle_set('x'), -0.1);
SET gin_fuzzy_search_limit = 100;
SELECT count(*) FROM sk WHERE ss && (SELECT ss FROM sk WHERE id = 2);
RESET gin_fuzzy_search_limit;
RESET enable_seqscan;

-- text forms
SELECT similar_to(minhash('one two three four', 4, 'kperm'), 0.75);
SELECT 'jaccard>=0.75 kperm k=4 seed=0 size=3 unit=word bits=32: 1b9ffe0d 143cb6fc 00000001 00c4b2de'::minhash_query;
SELECT containing(shingle_set('one two three four'), 0.5);
SELECT similar_to(shingle_set('one two three four'), 1)::text::shingleset_query;

DROP TABLE sk_mixed, sk, sk_q, sk_t, sk_docs;
DROP FUNCTION pg_temp.compare_scans(text, text);
