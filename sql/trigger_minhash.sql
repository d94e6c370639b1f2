--
-- nddup_dedup_trigger() with method=minhash: the original is the earliest
-- existing original whose min-hash resemblance estimate reaches the
-- threshold.  Every answer is compared with brute force over jaccard();
-- lock keys are the pigeonhole bands of the sketch.  Concurrency is tested
-- in test/isolation/specs/trigger_minhash.spec.
--
SET client_min_messages = warning;
-- shared functions: pg_temp.plan(query), pg_temp.compare_scans(query, index)
\getenv abs_srcdir PG_ABS_SRCDIR
\set helpers :abs_srcdir '/test/include/helpers.sql'
\set ECHO none
\i :helpers
\set ECHO all

-- 1. A blog table judged from its text; only originals are indexed, with
--    an LSH index designed for the trigger's threshold.
CREATE TABLE mposts (
	id bigserial PRIMARY KEY,
	body text,
	duplicate_of bigint
);
CREATE INDEX mposts_mh_idx ON mposts
	USING gin ((minhash(body, 128, 'oph', 0, 3, 'word')) minhash_lsh_ops (threshold = 0.6))
	WITH (fastupdate = off) WHERE duplicate_of IS NULL;
CREATE TRIGGER dedup BEFORE INSERT OR UPDATE OF body ON mposts FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('source=body', 'method=minhash', 'threshold=0.6');
SELECT * FROM nddup_check_trigger('mposts');

-- generated documents: 40 sources of 60 words, and edited copies (a few
-- words replaced) of some of them, in a fixed pseudo-random order
CREATE FUNCTION mh_doc(src int, edits int) RETURNS text LANGUAGE sql IMMUTABLE AS $$
	SELECT string_agg(CASE WHEN i % 17 < edits THEN 'edit' || i ELSE 'w' || ((src * 7919 + i * 104729) % 5003) END,
					  ' ' ORDER BY i)
	FROM generate_series(1, 60) i
$$;
INSERT INTO mposts (body)
SELECT mh_doc(src, edits)
FROM generate_series(1, 40) src, generate_series(0, 3) edits
WHERE edits = 0 OR src % 3 = 0
ORDER BY md5(src::text || ':' || edits);
SELECT count(*) AS rows, count(duplicate_of) AS marked FROM mposts;

-- brute force: every duplicate points at the earliest original at or above
-- the threshold, which is itself an original; no two originals reach it
CREATE FUNCTION mh(t text) RETURNS minhash_sketch LANGUAGE sql IMMUTABLE AS
$$ SELECT minhash(t, 128, 'oph', 0, 3, 'word') $$;
SELECT count(*) AS wrong_original
FROM mposts d
WHERE d.duplicate_of IS DISTINCT FROM (
	SELECT min(o.id) FROM mposts o
	WHERE o.id < d.id AND o.duplicate_of IS NULL AND jaccard(mh(o.body), mh(d.body)) >= 0.6);
SELECT count(*) AS chains FROM mposts d JOIN mposts o ON o.id = d.duplicate_of
WHERE o.duplicate_of IS NOT NULL;
SELECT count(*) AS close_originals FROM mposts a JOIN mposts b ON a.id < b.id
WHERE a.duplicate_of IS NULL AND b.duplicate_of IS NULL AND jaccard(mh(a.body), mh(b.body)) >= 0.6;

-- 2. Updates: a duplicate edited into new text becomes an original; an
--    original edited into a copy of another is marked and its duplicates
--    re-pointed at the new root.
UPDATE mposts SET body = mh_doc(1000, 0) WHERE id = (SELECT min(id) FROM mposts WHERE duplicate_of IS NOT NULL);
UPDATE mposts SET body = mh_doc(2000, 0)
WHERE id = (SELECT min(id) FROM mposts WHERE duplicate_of IS NULL AND body = mh_doc(3, 0));
UPDATE mposts SET body = mh_doc(2000, 1)
WHERE id = (SELECT min(id) FROM mposts WHERE duplicate_of IS NULL AND body = mh_doc(6, 0));
SELECT count(*) AS wrong_original
FROM mposts d
WHERE d.duplicate_of IS NOT NULL AND d.duplicate_of <> (
	SELECT min(o.id) FROM mposts o
	WHERE o.id <> d.id AND o.duplicate_of IS NULL AND jaccard(mh(o.body), mh(d.body)) >= 0.6);
SELECT count(*) AS chains FROM mposts d JOIN mposts o ON o.id = d.duplicate_of
WHERE o.duplicate_of IS NOT NULL;

-- 3. The lookup plan uses the LSH index (the trigger prepares a generic plan).
SET plan_cache_mode = force_generic_plan;
PREPARE lookup(minhash_sketch, float8) AS
	SELECT t.id FROM ONLY public.mposts t
	WHERE public.minhash(t.body, 128, 'oph', 0, 3, 'word') OPERATOR(public.<@) public.similar_to($1, $2)
	  AND t.id IS NOT NULL AND t.duplicate_of IS NULL
	ORDER BY ROW(t.id) LIMIT 1 FOR KEY SHARE OF t;
SELECT * FROM pg_temp.plan($$EXECUTE lookup(mh('x'), 0.6)$$);
DEALLOCATE lookup;
RESET plan_cache_mode;

-- 4. Lock keys: with k = 128 and threshold 0.6 an estimate needs 77 equal
--    positions, so 128 - 77 + 1 = 52 bands (keys), plus the table key.
BEGIN;
INSERT INTO mposts (body) VALUES ('lock keys of this row');
SELECT count(*) FILTER (WHERE objsubid = 20036) AS band_keys,
	   count(*) FILTER (WHERE objsubid = 20037) AS table_keys
FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()
  AND classid = 'mposts'::regclass::oid;
ROLLBACK;
-- an empty document (no shingles) has one key
BEGIN;
INSERT INTO mposts (body) VALUES ('');
SELECT count(*) FILTER (WHERE objsubid = 20036) AS band_keys
FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()
  AND classid = 'mposts'::regclass::oid;
ROLLBACK;

-- 5. action=error and skip, with a stored sketch column (b-bit sketches
--    work too: the estimate is chance-corrected).
CREATE TABLE msk (id int PRIMARY KEY, mh minhash_sketch);
CREATE INDEX ON msk USING gin (mh minhash_lsh_ops (threshold = 0.8)) WITH (fastupdate = off);
CREATE TRIGGER dedup BEFORE INSERT OR UPDATE OF mh ON msk FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=mh', 'method=minhash', 'threshold=0.8',
										 'action=error');
INSERT INTO msk VALUES (1, mh(mh_doc(1, 0))), (2, mh(mh_doc(2, 0)));
\set VERBOSITY default
-- one word appended: resemblance about 58/59
INSERT INTO msk VALUES (3, mh(mh_doc(1, 0) || ' again'));
\echo :LAST_ERROR_SQLSTATE
-- a copy below the threshold is stored
INSERT INTO msk VALUES (4, mh(mh_doc(2, 3)));
SELECT round(jaccard(mh(mh_doc(2, 0)), mh(mh_doc(2, 3)))::numeric, 3) AS resemblance;
-- sketches of other parameters cannot be compared
INSERT INTO msk VALUES (5, minhash(mh_doc(1, 0), 64));
\echo :LAST_ERROR_SQLSTATE
\set VERBOSITY terse
DROP TRIGGER dedup ON msk;
CREATE TRIGGER dedup BEFORE INSERT ON msk FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=mh', 'method=minhash', 'threshold=0.8',
										 'action=skip');
INSERT INTO msk VALUES (6, mh(mh_doc(1, 0) || ' again')), (7, mh(mh_doc(7, 0))), (8, NULL);
SELECT id FROM msk ORDER BY id;

-- b-bit sketches: 8-bit values, chance-corrected estimate
CREATE TABLE mbb (id int PRIMARY KEY, mh minhash_sketch, duplicate_of int);
CREATE TRIGGER dedup BEFORE INSERT ON mbb FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=mh', 'method=minhash', 'threshold=0.7');
INSERT INTO mbb SELECT src * 10 + e, minhash_bbit(mh(mh_doc(src, e)), 8)
FROM generate_series(1, 6) src, generate_series(0, 2) e ORDER BY src, e;
SELECT count(*) AS wrong_original
FROM mbb d
WHERE d.duplicate_of IS DISTINCT FROM (
	SELECT min(o.id) FROM mbb o
	WHERE o.id < d.id AND o.duplicate_of IS NULL AND jaccard(o.mh, d.mh) >= 0.7);
SELECT count(duplicate_of) AS marked FROM mbb;

-- 6. A generated sketch column: the trigger computes the sketch from the
--    source, with k=, size= and unit= matching the generation expression.
CREATE TABLE mgen (id int PRIMARY KEY, body text,
	mh minhash_sketch GENERATED ALWAYS AS (minhash(body, 64, 'oph', 0, 2, 'word')) STORED,
	duplicate_of int);
CREATE TRIGGER bad BEFORE INSERT ON mgen FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=mh', 'source=body', 'method=minhash');
\set VERBOSITY default
INSERT INTO mgen (id, body) VALUES (1, 'x');
\set VERBOSITY terse
DROP TRIGGER bad ON mgen;
CREATE TRIGGER dedup BEFORE INSERT ON mgen FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=mh', 'source=body', 'method=minhash',
										 'k=64', 'size=2', 'threshold=0.5');
-- no index: a warning, once per session
SET client_min_messages = notice;
INSERT INTO mgen (id, body) VALUES (1, mh_doc(5, 0)), (2, mh_doc(5, 2)), (3, mh_doc(9, 0));
INSERT INTO mgen (id, body) VALUES (4, mh_doc(9, 1));
SET client_min_messages = warning;
SELECT id, duplicate_of, mh = minhash(body, 64, 'oph', 0, 2, 'word') AS sketch_ok FROM mgen ORDER BY id;

DROP TABLE mposts, msk, mbb, mgen;
DROP FUNCTION mh_doc(int, int);
DROP FUNCTION mh(text);
