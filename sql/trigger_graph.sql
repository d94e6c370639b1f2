--
-- nddup_dedup_trigger() fired AFTER INSERT OR DELETE OR UPDATE: every row
-- whose judgement depends on a row that is inserted, deleted or edited is
-- judged again, in the survivor order.  After every step
-- pg_temp.graph_check() counts dangling duplicate_of, chains, originals that
-- match each other and duplicates that do not match their original (all
-- 0), and pg_temp.graph_scratch_diff() lists the rows that differ from a
-- from-scratch judgement in the survivor order (always none:
-- docs/trigger.md#deletes-and-edits).  Concurrency:
-- test/isolation/specs/trigger_graph*.spec.
--
SET client_min_messages = warning;
\getenv abs_srcdir PG_ABS_SRCDIR
\set graph_check :abs_srcdir '/test/include/graph_check.sql'
\set ECHO none
\i :graph_check
\set ECHO all

-- 1. method=simhash, precomputed fingerprints, radius 3
CREATE TABLE g (id int PRIMARY KEY, fp simhash64, duplicate_of int);
CREATE INDEX ON g USING hamming (fp);
CREATE INDEX ON g (duplicate_of);
CREATE TRIGGER dedup BEFORE INSERT OR UPDATE OF fp ON g FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=fp', 'radius=3');
CREATE TRIGGER dedup_graph AFTER INSERT OR DELETE OR UPDATE OF fp ON g FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=fp', 'radius=3');
SELECT * FROM nddup_check_trigger('g') ORDER BY 1;
\set pred '''a.fp <-> b.fp <= 3'''
-- 1 and 2 are originals (4 bits apart); 3, 4, 5, 6 are within 3 bits of 1
INSERT INTO g VALUES (1, '0000000000000000'), (2, '00000000000000f0'), (3, '0000000000000001'),
	(4, '0000000000000003'), (5, '0000000000000070'), (6, '0000000000000007');
SELECT id, fp, duplicate_of FROM g ORDER BY id;
SELECT * FROM pg_temp.graph_check('g', :pred);

-- delete the original of four duplicates: the first of them (3) matches no
-- remaining original and becomes one; 4 and 6 point at it, 5 at original 2
-- (1 bit away; 4 bits from 3)
DELETE FROM g WHERE id = 1;
SELECT id, fp, duplicate_of FROM g ORDER BY id;
SELECT * FROM pg_temp.graph_check('g', :pred);
SELECT * FROM pg_temp.graph_scratch_diff('g', :pred, 'id');

-- an original's text changes (3 moves far away, stays an original): its
-- duplicates 4 and 6 are judged again; 4 becomes the original, 6 points at it
UPDATE g SET fp = 'ff00000000000000' WHERE id = 3;
SELECT id, fp, duplicate_of FROM g ORDER BY id;
SELECT * FROM pg_temp.graph_check('g', :pred);
SELECT * FROM pg_temp.graph_scratch_diff('g', :pred, 'id');

-- an original becomes a duplicate (4 moves next to 2): its duplicate 6 is
-- judged again rather than re-pointed at 2, which it does not match (7 bits)
UPDATE g SET fp = '00000000000000f1' WHERE id = 4;
SELECT id, fp, duplicate_of FROM g ORDER BY id;
SELECT * FROM pg_temp.graph_check('g', :pred);
SELECT * FROM pg_temp.graph_scratch_diff('g', :pred, 'id');

-- an update that leaves the fingerprint, and deletes of duplicates and of
-- an original without duplicates, change nothing else
UPDATE g SET fp = fp WHERE id = 2;
DELETE FROM g WHERE id = 5;
DELETE FROM g WHERE id = 3;
SELECT id, fp, duplicate_of FROM g ORDER BY id;
SELECT * FROM pg_temp.graph_check('g', :pred);

-- one statement deletes two originals: 12 and 13 are duplicates of 10;
-- 13 also matches original 11, deleted in the same statement
TRUNCATE g;
INSERT INTO g VALUES (10, '0000000000000000'), (11, '000000000000f000'), (12, '0000000000000001'),
	(13, '0000000000000300');
UPDATE g SET fp = '000000000000b000' WHERE id = 13;	-- 3 bits from 10 and 11: stays 10's
SELECT id, fp, duplicate_of FROM g ORDER BY id;
DELETE FROM g WHERE id IN (10, 11);
SELECT id, fp, duplicate_of FROM g ORDER BY id;
SELECT * FROM pg_temp.graph_check('g', :pred);

-- the rows after a row that changes are judged again too:
-- (a) 1 original, 2 its duplicate, 3 an original that matches 2 but not 1:
-- when 1 goes, 2 becomes the original and 3 its duplicate
TRUNCATE g;
INSERT INTO g VALUES (1, '0000000000000000'), (2, '0000000000000001'), (3, '000000000000000f');
DELETE FROM g WHERE id = 1;
SELECT id, fp, duplicate_of FROM g ORDER BY id;
SELECT * FROM pg_temp.graph_check('g', :pred);
SELECT * FROM pg_temp.graph_scratch_diff('g', :pred, 'id');
-- (b) a row that becomes an original takes over a later duplicate of a
-- later original: 4 (a copy of 3) matches 2, which becomes an original
TRUNCATE g;
INSERT INTO g VALUES (1, '0000000000000000'), (2, '0000000000000001'), (3, '00000000000000f0'),
	(4, '0000000000000071');
DELETE FROM g WHERE id = 1;
SELECT id, fp, duplicate_of FROM g ORDER BY id;
SELECT * FROM pg_temp.graph_check('g', :pred);
SELECT * FROM pg_temp.graph_scratch_diff('g', :pred, 'id');

-- (c) the change travels: deleting 1 makes 2 an original, which makes 3
-- (2's match, 1's not) a duplicate, which makes 4 (3's match only) an
-- original and 5 (4's match) its duplicate
TRUNCATE g;
INSERT INTO g VALUES (1, '0000000000000000'), (2, '0000000000000007'), (3, '000000000000003f'),
	(4, '00000000000001ff'), (5, '0000000000000fff');
SELECT id, fp, duplicate_of FROM g ORDER BY id;
DELETE FROM g WHERE id = 1;
SELECT id, fp, duplicate_of FROM g ORDER BY id;
SELECT * FROM pg_temp.graph_check('g', :pred);
SELECT * FROM pg_temp.graph_scratch_diff('g', :pred, 'id');
-- and back: 1 inserted again (an earlier id than the others, as a
-- transaction that took its id first and commits last) restores the
-- first graph
INSERT INTO g VALUES (1, '0000000000000000');
SELECT id, fp, duplicate_of FROM g ORDER BY id;
SELECT * FROM pg_temp.graph_scratch_diff('g', :pred, 'id');
-- an edit that moves 1 far away does what its delete did
UPDATE g SET fp = 'ff00000000000000' WHERE id = 1;
SELECT id, fp, duplicate_of FROM g ORDER BY id;
SELECT * FROM pg_temp.graph_check('g', :pred);
SELECT * FROM pg_temp.graph_scratch_diff('g', :pred, 'id');

-- TRUNCATE has nothing to judge; the triggers work on afterwards
TRUNCATE g;
INSERT INTO g VALUES (1, '0000000000000000'), (2, '0000000000000001');
SELECT id, fp, duplicate_of FROM g ORDER BY id;

-- the AFTER form is validated by nddup_check_trigger()
CREATE TABLE gbad (id int PRIMARY KEY, fp simhash64, duplicate_of int);
CREATE TRIGGER dedup BEFORE INSERT OR UPDATE OF fp ON gbad FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=fp', 'radius=3');
CREATE TRIGGER graph_other AFTER DELETE ON gbad FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=fp', 'radius=4');
SELECT * FROM nddup_check_trigger('gbad') ORDER BY 1;
DROP TRIGGER graph_other ON gbad;
CREATE TRIGGER graph_cols AFTER DELETE OR UPDATE OF duplicate_of ON gbad FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=fp', 'radius=3');
SELECT * FROM nddup_check_trigger('gbad') ORDER BY 1;
DROP TRIGGER graph_cols ON gbad;
CREATE TRIGGER graph_stmt AFTER INSERT OR DELETE ON gbad FOR EACH STATEMENT
	EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=fp', 'radius=3');
SELECT * FROM nddup_check_trigger('gbad') ORDER BY 1;
INSERT INTO gbad VALUES (1, '0000000000000000');
DROP TRIGGER graph_stmt ON gbad;
DELETE FROM gbad;
CREATE OR REPLACE TRIGGER dedup BEFORE INSERT OR UPDATE OF fp ON gbad FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=fp', 'radius=3', 'action=skip');
CREATE TRIGGER graph_skip AFTER DELETE ON gbad FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=fp', 'radius=3', 'action=skip');
SELECT * FROM nddup_check_trigger('gbad') ORDER BY 1;
DELETE FROM gbad;
DROP TABLE gbad;
-- measure=containment is one-directional: the AFTER form refuses it
CREATE TABLE gct (id int PRIMARY KEY, body text, duplicate_of int);
SELECT pg_temp.graph_triggers('gct', 'body',
	$$'source=body', 'method=shingleset', 'threshold=0.5', 'measure=containment'$$);
SELECT * FROM nddup_check_trigger('gct') ORDER BY 1;
DROP TABLE gct;

-- 2. method=shingleset and method=minhash, from the text, with an order
-- column: the survivor order is (created, id)
CREATE FUNCTION graph_doc(src int, edits int) RETURNS text LANGUAGE sql IMMUTABLE AS $$
	SELECT string_agg(CASE WHEN i % 5 = 0 AND i / 5 <= edits THEN 'edit' || i ELSE 'w' || ((src * 7919 + i * 104729) % 5003) END,
					  ' ' ORDER BY i)
	FROM generate_series(1, 30) i
$$;
CREATE TABLE gs (id int PRIMARY KEY, created int NOT NULL, body text, duplicate_of int);
CREATE INDEX ON gs USING gin ((shingle_set(body, 3, 'word')) shingleset_ops)
	WITH (fastupdate = off) WHERE duplicate_of IS NULL;
CREATE INDEX ON gs (duplicate_of);
SELECT pg_temp.graph_triggers('gs', 'body',
	$$'source=body', 'method=shingleset', 'threshold=0.5', 'order=created'$$);
SELECT * FROM nddup_check_trigger('gs') ORDER BY 1;
\set spred '''jaccard(shingle_set(a.body, 3, ''''word''''), shingle_set(b.body, 3, ''''word'''')) >= 0.5'''
-- sources 1..4 and copies with 1 to 3 edits; created runs against the id
INSERT INTO gs (id, created, body)
SELECT row_number() OVER (ORDER BY src, e), 100 - row_number() OVER (ORDER BY src, e), graph_doc(src, e)
FROM generate_series(1, 4) src, generate_series(0, 3) e ORDER BY 2;
SELECT id, created, duplicate_of,
	   round(jaccard(shingle_set(body, 3, 'word'), shingle_set(graph_doc((id - 1) / 4 + 1, 0), 3, 'word'))::numeric, 2) AS j_source
FROM gs ORDER BY created, id;
SELECT * FROM pg_temp.graph_check('gs', :spred);
SELECT * FROM pg_temp.graph_scratch_diff('gs', :spred, 'created');
-- delete two originals in one statement: in each group the earliest of
-- the copies that matches no remaining original becomes one
DELETE FROM gs WHERE id IN (16, 8);
SELECT id, created, duplicate_of FROM gs ORDER BY created, id;
SELECT * FROM pg_temp.graph_check('gs', :spred);
SELECT * FROM pg_temp.graph_scratch_diff('gs', :spred, 'created');
-- edit the texts of the originals that have duplicates
UPDATE gs SET body = graph_doc(id + 40, 0)
WHERE duplicate_of IS NULL AND EXISTS (SELECT FROM gs d WHERE d.duplicate_of = gs.id);
SELECT id, created, duplicate_of FROM gs ORDER BY created, id;
SELECT * FROM pg_temp.graph_check('gs', :spred);
SELECT * FROM pg_temp.graph_scratch_diff('gs', :spred, 'created');

-- the same with min-hash sketches, the estimate as the match
CREATE TABLE gm (LIKE gs);
ALTER TABLE gm ADD PRIMARY KEY (id);
CREATE INDEX ON gm USING gin ((minhash(body, 128, 'oph', 0, 3, 'word')) minhash_lsh_ops (threshold = 0.5))
	WITH (fastupdate = off) WHERE duplicate_of IS NULL;
CREATE INDEX ON gm (duplicate_of);
SELECT pg_temp.graph_triggers('gm', 'body',
	$$'source=body', 'method=minhash', 'threshold=0.5', 'order=created'$$);
SELECT * FROM nddup_check_trigger('gm') ORDER BY 1;
\set mpred '''jaccard(minhash(a.body, 128, ''''oph'''', 0, 3, ''''word''''), minhash(b.body, 128, ''''oph'''', 0, 3, ''''word'''')) >= 0.5'''
INSERT INTO gm (id, created, body)
SELECT row_number() OVER (ORDER BY src, e), 100 - row_number() OVER (ORDER BY src, e), graph_doc(src, e)
FROM generate_series(1, 4) src, generate_series(0, 3) e ORDER BY 2;
SELECT count(*) FILTER (WHERE duplicate_of IS NULL) AS originals, count(duplicate_of) AS duplicates FROM gm;
SELECT * FROM pg_temp.graph_check('gm', :mpred);
DELETE FROM gm WHERE duplicate_of IS NULL;
SELECT id, created, duplicate_of FROM gm ORDER BY created, id;
SELECT * FROM pg_temp.graph_check('gm', :mpred);
SELECT * FROM pg_temp.graph_scratch_diff('gm', :mpred, 'created');
UPDATE gm SET body = graph_doc(id + 40, 0) WHERE duplicate_of IS NULL;
SELECT id, created, duplicate_of FROM gm ORDER BY created, id;
SELECT * FROM pg_temp.graph_check('gm', :mpred);

-- keep the longest text: order= a stored generated column (minus the
-- length); a longer copy inserted later sorts first and takes over
CREATE TABLE gl (id int PRIMARY KEY, body text,
	neg_len int GENERATED ALWAYS AS (-length(body)) STORED, duplicate_of int);
CREATE INDEX ON gl USING gin ((shingle_set(body, 3, 'word')) shingleset_ops) WITH (fastupdate = off);
CREATE INDEX ON gl (duplicate_of);
SELECT pg_temp.graph_triggers('gl', 'body',
	$$'source=body', 'method=shingleset', 'threshold=0.5', 'order=neg_len'$$);
INSERT INTO gl (id, body) VALUES (1, 'one two three four five six seven eight');
INSERT INTO gl (id, body) VALUES (2, 'one two three four five six seven eight nine');
INSERT INTO gl (id, body) VALUES (3, 'one two three four five six seven eight nine ten'),
	(4, 'alpha beta gamma delta epsilon zeta eta theta');
SELECT id, neg_len, duplicate_of FROM gl ORDER BY neg_len, id;
SELECT * FROM pg_temp.graph_check('gl', :spred);
SELECT * FROM pg_temp.graph_scratch_diff('gl', :spred, 'neg_len');
DELETE FROM gl WHERE id = 3;	-- the longest goes: 2 takes over
SELECT id, neg_len, duplicate_of FROM gl ORDER BY neg_len, id;
SELECT * FROM pg_temp.graph_scratch_diff('gl', :spred, 'neg_len');
DROP TABLE gl;

-- scope=: the duplicates are judged again within their scope only; the
-- AFTER trigger covers the BEFORE trigger's UPDATE OF columns
CREATE TABLE gsc (id int PRIMARY KEY, site text, fp simhash64, duplicate_of int);
CREATE INDEX ON gsc USING hamming (fp) WHERE duplicate_of IS NULL;
SELECT pg_temp.graph_triggers('gsc', 'fp, site', $$'fingerprint=fp', 'radius=3', 'scope=site'$$);
-- 1 and 2 are originals of sites a and b; 3 and 4 duplicates of 1
INSERT INTO gsc VALUES (1, 'a', '0000000000000000'), (2, 'b', '0000000000000001'),
	(3, 'a', '0000000000000003'), (4, 'a', '0000000000000007');
DELETE FROM gsc WHERE id = 1;	-- 3 becomes the original of site a, not a copy of 2
SELECT id, site, duplicate_of FROM gsc ORDER BY id;
UPDATE gsc SET site = 'b' WHERE id = 3;	-- 3 moves to site b (a copy of 2); 4 is judged again
SELECT id, site, duplicate_of FROM gsc ORDER BY id;
DROP TABLE gsc;

-- order= a column that changes: with the column in both triggers' UPDATE
-- OF lists, a row that moves is judged at its new place, and an insert
-- that sorts before existing rows takes over what it should
CREATE TABLE go (id int PRIMARY KEY, rank int NOT NULL, fp simhash64, duplicate_of int);
CREATE INDEX ON go USING hamming (fp);
SELECT pg_temp.graph_triggers('go', 'fp, rank', $$'fingerprint=fp', 'radius=3', 'order=rank'$$);
INSERT INTO go VALUES (1, 10, '0000000000000000'), (2, 20, '0000000000000007'),
	(3, 30, '000000000000003f');
SELECT id, rank, duplicate_of FROM go ORDER BY rank, id;
UPDATE go SET rank = 25 WHERE id = 1;	-- 2 comes first: 1 and 3 are its duplicates
SELECT id, rank, duplicate_of FROM go ORDER BY rank, id;
SELECT * FROM pg_temp.graph_scratch_diff('go', :pred, 'rank');
INSERT INTO go VALUES (4, 5, '00000000000001ff');	-- before all; 3 matches it (3 bits)
SELECT id, rank, duplicate_of FROM go ORDER BY rank, id;
SELECT * FROM pg_temp.graph_check('go', :pred);
SELECT * FROM pg_temp.graph_scratch_diff('go', :pred, 'rank');
DROP TABLE go;

-- 3. visibility=caller: a role that may read some rows only judges again
-- only the duplicates it may read, against the originals it may read
CREATE TABLE gr (id int PRIMARY KEY, fp simhash64, duplicate_of int, site text);
CREATE INDEX ON gr USING hamming (fp) WHERE duplicate_of IS NULL;
SELECT pg_temp.graph_triggers('gr', 'fp', $$'fingerprint=fp', 'radius=3', 'visibility=caller'$$);
INSERT INTO gr VALUES (1, '0000000000000000', NULL, 'a'), (2, '0000000000000001', NULL, 'a'),
	(3, '0000000000000003', NULL, 'b'), (4, '0000000000000007', NULL, 'a');
ALTER TABLE gr ENABLE ROW LEVEL SECURITY;
CREATE ROLE regress_graph_site_a;
GRANT SELECT, DELETE ON gr TO regress_graph_site_a;
CREATE POLICY site_a ON gr USING (site = 'a');
SET ROLE regress_graph_site_a;
DELETE FROM gr WHERE id = 1;
RESET ROLE;
-- 2 becomes the original, 4 points at it; 3, which the role may not read,
-- is left pointing at the deleted row
SELECT id, duplicate_of, site FROM gr ORDER BY id;
DROP TABLE gr;
DROP ROLE regress_graph_site_a;
