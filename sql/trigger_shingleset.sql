--
-- nddup_dedup_trigger() with method=shingleset: the original is the earliest
-- existing original whose exact shingle-set resemblance (Jaccard) reaches the
-- threshold, found through a shingleset_ops index.  Every answer is compared
-- with a nested loop over jaccard(); lock keys are the hashes of the set's
-- prefix.  Concurrency is tested in test/isolation/specs/trigger_shingleset.spec.
--
SET client_min_messages = warning;
-- shared functions: pg_temp.plan(query), pg_temp.compare_scans(query, index)
\getenv abs_srcdir PG_ABS_SRCDIR
\set helpers :abs_srcdir '/test/include/helpers.sql'
\set ECHO none
\i :helpers
\set ECHO all

-- 1. A blog table judged from its text; only originals are indexed.
CREATE TABLE sposts (
	id bigserial PRIMARY KEY,
	body text,
	duplicate_of bigint
);
CREATE INDEX sposts_ss_idx ON sposts USING gin ((shingle_set(body, 3, 'word')) shingleset_ops)
	WITH (fastupdate = off) WHERE duplicate_of IS NULL;
CREATE TRIGGER dedup BEFORE INSERT OR UPDATE OF body ON sposts FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('source=body', 'method=shingleset', 'threshold=0.5');
SELECT * FROM nddup_check_trigger('sposts');

-- generated documents: 40 sources of 30 words and edited copies (0 to 6
-- words replaced, so resemblances on both sides of 0.5), in a fixed
-- pseudo-random order
CREATE FUNCTION ss_doc(src int, edits int) RETURNS text LANGUAGE sql IMMUTABLE AS $$
	SELECT string_agg(CASE WHEN i % 5 = 0 AND i / 5 <= edits THEN 'edit' || i ELSE 'w' || ((src * 7919 + i * 104729) % 5003) END,
					  ' ' ORDER BY i)
	FROM generate_series(1, 30) i
$$;
CREATE FUNCTION ss(t text) RETURNS shingleset LANGUAGE sql IMMUTABLE AS
$$ SELECT shingle_set(t, 3, 'word') $$;
INSERT INTO sposts (body)
SELECT ss_doc(src, edits)
FROM generate_series(1, 40) src, generate_series(0, 6) edits
WHERE edits = 0 OR src % 3 = 0
ORDER BY md5(src::text || ':' || edits);
SELECT count(*) AS rows, count(duplicate_of) AS marked FROM sposts;
-- copies on both sides of the threshold
SELECT count(*) FILTER (WHERE j >= 0.5) AS above, count(*) FILTER (WHERE j < 0.5) AS below
FROM (SELECT jaccard(ss(ss_doc(src, 0)), ss(ss_doc(src, e))) AS j
	  FROM generate_series(3, 39, 3) src, generate_series(1, 6) e) x;

-- nested loop: every duplicate points at the earliest original at or above
-- the threshold, which is itself an original; every original is below the
-- threshold with every earlier original
SELECT count(*) AS wrong_original
FROM sposts d
WHERE d.duplicate_of IS DISTINCT FROM (
	SELECT min(o.id) FROM sposts o
	WHERE o.id < d.id AND o.duplicate_of IS NULL AND jaccard(ss(o.body), ss(d.body)) >= 0.5);
SELECT count(*) AS marked_below
FROM sposts d JOIN sposts o ON o.id = d.duplicate_of
WHERE jaccard(ss(o.body), ss(d.body)) < 0.5;
SELECT count(*) AS chains FROM sposts d JOIN sposts o ON o.id = d.duplicate_of
WHERE o.duplicate_of IS NOT NULL;
SELECT count(*) AS close_originals FROM sposts a JOIN sposts b ON a.id < b.id
WHERE a.duplicate_of IS NULL AND b.duplicate_of IS NULL AND jaccard(ss(a.body), ss(b.body)) >= 0.5;

-- 2. Updates: a duplicate edited into new text becomes an original; an
--    original edited into a copy of another is marked and its duplicates
--    re-pointed at the new root.
UPDATE sposts SET body = ss_doc(1000, 0) WHERE id = (SELECT min(id) FROM sposts WHERE duplicate_of IS NOT NULL);
SELECT duplicate_of FROM sposts WHERE body = ss_doc(1000, 0);
UPDATE sposts SET body = ss_doc(2000, 0)
WHERE id = (SELECT min(id) FROM sposts WHERE duplicate_of IS NULL AND body = ss_doc(3, 0));
UPDATE sposts SET body = ss_doc(2000, 1)
WHERE id = (SELECT min(id) FROM sposts WHERE duplicate_of IS NULL AND body = ss_doc(6, 0));
SELECT count(*) AS wrong_original
FROM sposts d
WHERE d.duplicate_of IS NOT NULL AND d.duplicate_of <> (
	SELECT min(o.id) FROM sposts o
	WHERE o.id <> d.id AND o.duplicate_of IS NULL AND jaccard(ss(o.body), ss(d.body)) >= 0.5);
SELECT count(*) AS chains FROM sposts d JOIN sposts o ON o.id = d.duplicate_of
WHERE o.duplicate_of IS NOT NULL;

-- 3. The lookup plan uses the shingleset_ops index (the trigger prepares a
--    generic plan).
SET plan_cache_mode = force_generic_plan;
PREPARE lookup(shingleset, float8) AS
	SELECT t.id FROM ONLY public.sposts t
	WHERE public.shingle_set(t.body, 3, 'word') OPERATOR(public.<@) public.similar_to($1, $2)
	  AND t.id IS NOT NULL AND t.duplicate_of IS NULL
	ORDER BY ROW(t.id) LIMIT 1 FOR KEY SHARE OF t;
SELECT * FROM pg_temp.plan($$EXECUTE lookup(ss('x'), 0.5)$$);
DEALLOCATE lookup;
RESET plan_cache_mode;

-- 4. Lock keys: 12 words make 10 shingles; at threshold 0.5 the prefix is
--    10 - 5 + 1 = 6 hashes (keys), plus the table key.
BEGIN;
INSERT INTO sposts (body) VALUES ('one two three four five six seven eight nine ten eleven twelve');
SELECT count(*) FILTER (WHERE objsubid = 20036) AS prefix_keys,
	   count(*) FILTER (WHERE objsubid = 20037 AND mode = 'ShareLock') AS table_keys
FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()
  AND classid = 'sposts'::regclass::oid;
ROLLBACK;
-- an empty document (no shingles) has one key
BEGIN;
INSERT INTO sposts (body) VALUES ('');
SELECT count(*) FILTER (WHERE objsubid = 20036) AS prefix_keys
FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()
  AND classid = 'sposts'::regclass::oid;
ROLLBACK;
-- a prefix of more than 256 hashes takes the table key in exclusive mode
BEGIN;
INSERT INTO sposts (body) SELECT string_agg('long' || i, ' ') FROM generate_series(1, 600) i;
SELECT count(*) FILTER (WHERE objsubid = 20036) AS prefix_keys,
	   count(*) FILTER (WHERE objsubid = 20037 AND mode = 'ExclusiveLock') AS table_keys
FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()
  AND classid = 'sposts'::regclass::oid;
ROLLBACK;

-- 5. A stored shingleset column: the method follows from its type;
--    action=error and skip.
CREATE TABLE sss (id int PRIMARY KEY, s shingleset);
CREATE INDEX ON sss USING gin (s) WITH (fastupdate = off);
CREATE TRIGGER dedup BEFORE INSERT OR UPDATE OF s ON sss FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=s', 'threshold=0.8', 'action=error');
SELECT * FROM nddup_check_trigger('sss');
INSERT INTO sss VALUES (1, ss(ss_doc(1, 0))), (2, ss(ss_doc(2, 0)));
\set VERBOSITY default
-- one word appended: resemblance 28/29
INSERT INTO sss VALUES (3, ss(ss_doc(1, 0) || ' again'));
\echo :LAST_ERROR_SQLSTATE
-- a copy below the threshold is stored
INSERT INTO sss VALUES (4, ss(ss_doc(2, 2)));
SELECT round(jaccard(ss(ss_doc(2, 0)), ss(ss_doc(2, 2)))::numeric, 3) AS resemblance;
-- sets of other parameters cannot be compared
INSERT INTO sss VALUES (5, shingle_set(ss_doc(1, 0), 2));
\echo :LAST_ERROR_SQLSTATE
\set VERBOSITY terse
DROP TRIGGER dedup ON sss;
CREATE TRIGGER dedup BEFORE INSERT ON sss FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=s', 'method=shingleset', 'threshold=0.8',
										 'action=skip');
INSERT INTO sss VALUES (6, ss(ss_doc(1, 0) || ' again')), (7, ss(ss_doc(7, 0))), (8, NULL);
SELECT id FROM sss ORDER BY id;

-- 6. Arguments that do not apply: the answer is exact, nothing to verify.
SELECT * FROM nddup_check_trigger('sposts', ARRAY['source=body', 'method=shingleset', 'verify=0.3']);
SELECT * FROM nddup_check_trigger('sposts', ARRAY['source=body', 'method=shingleset', 'k=64']);
SELECT * FROM nddup_check_trigger('sposts', ARRAY['source=body', 'method=shingleset', 'radius=3']);
SELECT * FROM nddup_check_trigger('sposts', ARRAY['fingerprint=body', 'method=shingleset']);
SELECT * FROM nddup_check_trigger('sposts', ARRAY['source=body', 'method=shingleset', 'size=2',
												   'unit=char', 'order=id', 'lock=table']);

-- 7. scope=: the same text in two scopes is two originals; a generated set
--    column computed with the trigger's size=.
CREATE TABLE sgen (id int PRIMARY KEY, site text, body text,
	s shingleset GENERATED ALWAYS AS (shingle_set(body, 2, 'word')) STORED,
	duplicate_of int);
CREATE TRIGGER bad BEFORE INSERT ON sgen FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=s', 'source=body', 'scope=site');
\set VERBOSITY default
INSERT INTO sgen (id, site, body) VALUES (1, 'a', 'x');
\set VERBOSITY terse
DROP TRIGGER bad ON sgen;
CREATE TRIGGER dedup BEFORE INSERT OR UPDATE ON sgen FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=s', 'source=body', 'size=2', 'scope=site',
										 'threshold=0.6');
-- no index: a warning, once per session
SET client_min_messages = notice;
INSERT INTO sgen (id, site, body) VALUES (1, 'a', ss_doc(5, 0)), (2, 'b', ss_doc(5, 0)),
	(3, 'a', ss_doc(5, 1));
INSERT INTO sgen (id, site, body) VALUES (4, 'b', ss_doc(5, 1)), (5, NULL, ss_doc(5, 0));
SET client_min_messages = warning;
SELECT id, site, duplicate_of, s = shingle_set(body, 2, 'word') AS set_ok FROM sgen ORDER BY id;
-- moving a duplicate to another scope judges it again
UPDATE sgen SET site = 'c' WHERE id = 3;
SELECT id, site, duplicate_of FROM sgen WHERE id = 3;

-- 8. filter=: shingles of the boilerplate filter do not count.
CREATE TABLE sfilter (f shingle_filter);
INSERT INTO sfilter SELECT shingle_filter_agg(
	'copyright example corp all rights reserved terms of use privacy policy ' || ss_doc(i, 0),
	2, 0.5, 3, 'word')
FROM generate_series(1, 4) i;
CREATE TABLE spages (id int PRIMARY KEY, body text, s shingleset, duplicate_of int);
CREATE INDEX ON spages USING gin (s) WITH (fastupdate = off) WHERE duplicate_of IS NULL;
CREATE TRIGGER dedup BEFORE INSERT ON spages FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=s', 'source=body', 'method=shingleset',
										 'filter=sfilter.f', 'threshold=0.5');
SELECT * FROM nddup_check_trigger('spages');
-- two short texts that share only the boilerplate (resemblance 0.6 without
-- the filter) are both originals; a copy of one is its duplicate
INSERT INTO spages (id, body) VALUES
	(1, 'copyright example corp all rights reserved terms of use privacy policy apples are red'),
	(2, 'copyright example corp all rights reserved terms of use privacy policy bananas are yellow'),
	(3, 'copyright example corp all rights reserved terms of use privacy policy apples are red');
SELECT id, duplicate_of, s = shingle_set_filtered((SELECT f FROM sfilter), body) AS set_ok
FROM spages ORDER BY id;
SELECT round(jaccard(ss(a.body), ss(b.body))::numeric, 3) AS unfiltered_1_2
FROM spages a, spages b WHERE a.id = 1 AND b.id = 2;

-- 9. Row-level security: with visibility=caller (the default on such a
--    table) a role is judged only against the rows it may read.
CREATE ROLE regress_nddup_ss_alice;
CREATE ROLE regress_nddup_ss_bob;
CREATE TABLE srls (id serial PRIMARY KEY, tenant text DEFAULT current_user, body text,
	duplicate_of int);
ALTER TABLE srls ENABLE ROW LEVEL SECURITY;
CREATE POLICY own_rows ON srls USING (tenant = current_user);
GRANT SELECT, INSERT, UPDATE ON srls TO regress_nddup_ss_alice, regress_nddup_ss_bob;
GRANT USAGE ON SEQUENCE srls_id_seq TO regress_nddup_ss_alice, regress_nddup_ss_bob;
CREATE TRIGGER dedup BEFORE INSERT ON srls FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('source=body', 'method=shingleset', 'threshold=0.5');
SELECT trigger, settings ~ 'visibility=caller' AS caller FROM nddup_check_trigger('srls');
SET ROLE regress_nddup_ss_alice;
INSERT INTO srls (body) VALUES (ss_doc(9, 0));
RESET ROLE;
SET ROLE regress_nddup_ss_bob;
INSERT INTO srls (body) VALUES (ss_doc(9, 1));
INSERT INTO srls (body) VALUES (ss_doc(9, 2));
RESET ROLE;
SELECT id, tenant, duplicate_of FROM srls ORDER BY id;

-- 10. nddup_original() (the check through the Citus coordinator) judges
--     as the trigger does: from the text or from a given set.
SELECT count(*) AS duplicates,
	   count(*) FILTER (WHERE nddup_original('sposts', '{source=body,method=shingleset,threshold=0.5}',
											 body, NULL::bigint) IS DISTINCT FROM duplicate_of) AS differ
FROM sposts WHERE duplicate_of IS NOT NULL;
SELECT nddup_original('sss', '{fingerprint=s,threshold=0.8,action=skip}', ss(ss_doc(7, 0) || ' again'),
					  NULL::int) AS original;
SELECT nddup_original('sposts', '{source=body,method=shingleset,threshold=0.5}',
					  'no such text anywhere', NULL::bigint) AS none;
\set VERBOSITY default
SELECT nddup_original('sss', '{fingerprint=s,threshold=0.8,action=error}', ss(ss_doc(7, 0)),
					  NULL::int);
\set VERBOSITY terse

-- 11. measure=containment: a row is a copy of the earliest original that
--     holds at least the threshold's share of its shingles (an excerpt);
--     its lock keys are every hash of its set.
CREATE TABLE scont (id int PRIMARY KEY, body text, duplicate_of int);
CREATE INDEX ON scont USING gin ((shingle_set(body)) shingleset_ops)
	WITH (fastupdate = off) WHERE duplicate_of IS NULL;
CREATE TRIGGER dedup BEFORE INSERT OR UPDATE OF body ON scont FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('source=body', 'method=shingleset',
										 'measure=containment', 'threshold=0.8');
SELECT * FROM nddup_check_trigger('scont');
CREATE FUNCTION ss_head(t text, n int) RETURNS text LANGUAGE sql IMMUTABLE AS
$$ SELECT array_to_string((string_to_array(t, ' '))[1:n], ' ') $$;
INSERT INTO scont VALUES
	(1, ss_doc(1, 0), NULL),
	(2, ss_head(ss_doc(1, 0), 12), NULL),					-- an excerpt of 1
	(3, ss_doc(1, 0) || ' ' || ss_doc(2, 0), NULL),		-- 1 and more
	(4, ss_head(ss_doc(2, 0), 20) || ' and some more words', NULL),	-- mostly in 3
	(5, ss_head(ss_doc(6, 0), 10), NULL),
	(6, '', NULL);										-- contained in every set
SELECT id, duplicate_of, round(containment(ss(d.body), (SELECT ss(o.body) FROM scont o
											   WHERE o.id = d.duplicate_of))::numeric, 3) AS containment,
	   round(jaccard(ss(d.body), (SELECT ss(o.body) FROM scont o
								   WHERE o.id = d.duplicate_of))::numeric, 3) AS resemblance
FROM scont d ORDER BY id;
SELECT count(*) AS wrong_original
FROM scont d
WHERE d.duplicate_of IS DISTINCT FROM (
	SELECT min(o.id) FROM scont o
	WHERE o.id < d.id AND o.duplicate_of IS NULL AND containment(ss(d.body), ss(o.body)) >= 0.8);
BEGIN;
INSERT INTO scont VALUES (7, ss_head(ss_doc(9, 0), 12), NULL);
SELECT count(*) FILTER (WHERE objsubid = 20036) AS set_keys
FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()
  AND classid = 'scont'::regclass::oid;
ROLLBACK;
SELECT nddup_original('scont', '{source=body,method=shingleset,measure=containment,threshold=0.8}',
					  ss_head(ss_doc(6, 0), 8), NULL::int) AS original;
\set VERBOSITY default
CREATE OR REPLACE TRIGGER dedup BEFORE INSERT OR UPDATE OF body ON scont FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('source=body', 'method=shingleset',
										 'measure=containment', 'threshold=0.8', 'action=error');
INSERT INTO scont VALUES (8, ss_head(ss_doc(1, 0), 9), NULL);
\set VERBOSITY terse
SELECT * FROM nddup_check_trigger('scont', ARRAY['source=body', 'method=shingleset', 'measure=cosine']);
SELECT * FROM nddup_check_trigger('scont', ARRAY['source=body', 'method=minhash', 'measure=containment']);
SELECT * FROM nddup_check_trigger('scont', ARRAY['source=body', 'measure=jaccard']);
SELECT settings ~ 'measure' AS shown
FROM nddup_check_trigger('scont', ARRAY['source=body', 'method=shingleset', 'measure=jaccard']);

DROP TABLE sposts, sss, sgen, sfilter, spages, srls, scont;
DROP ROLE regress_nddup_ss_alice, regress_nddup_ss_bob;
DROP FUNCTION ss_doc(int, int);
DROP FUNCTION ss(text);
DROP FUNCTION ss_head(text, int);
