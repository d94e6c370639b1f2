--
-- nddup_dedup_trigger(): insert-time duplicate checks (mark, skip, error),
-- updates, argument validation, index detection, lock keys, and a hostile
-- search_path.  Concurrency is tested in test/isolation/specs/trigger_*.spec.
--
SET client_min_messages = warning;
-- shared functions: pg_temp.plan(query), pg_temp.compare_scans(query, index)
\getenv abs_srcdir PG_ABS_SRCDIR
\set helpers :abs_srcdir '/test/include/helpers.sql'
\set ECHO none
\i :helpers
\set ECHO all

-- fingerprints: a fixed center and copies with the lowest n bits flipped
CREATE FUNCTION tr_flip(fp simhash64, n int) RETURNS simhash64 LANGUAGE sql IMMUTABLE AS
$$ SELECT (fp::bigint # ((1::bigint << n) - 1))::simhash64 $$;

-- 1. A blog table: the fingerprint is a generated column, so the trigger
--    computes simhash(body) itself (generated columns come after BEFORE
--    triggers).  Only originals are indexed.
CREATE TABLE posts (
	id bigserial PRIMARY KEY,
	body text,
	fp simhash64 GENERATED ALWAYS AS (simhash(body)) STORED,
	duplicate_of bigint,
	note text
);
CREATE INDEX posts_fp_idx ON posts USING gin (fp simhash64_gin_ops)
	WITH (fastupdate = off) WHERE duplicate_of IS NULL;
CREATE INDEX posts_dup_idx ON posts (duplicate_of);
CREATE TRIGGER dedup BEFORE INSERT OR UPDATE OF body ON posts FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=fp', 'source=body', 'radius=12',
										 'id=id', 'duplicate_of=duplicate_of', 'action=mark');
SELECT * FROM nddup_check_trigger('posts');

INSERT INTO posts (body) VALUES
	('PostgreSQL 15 adds the MERGE command, which lets one statement insert, update or delete rows of a target table depending on a join with a source.');
INSERT INTO posts (body) VALUES
	('PostgreSQL 15 adds the MERGE command, which lets one statement insert, update or delete rows of a target table depending on a join with the source.');
-- a copy of the copy points at the root, not at the copy
INSERT INTO posts (body) VALUES
	('PostgreSQL 15 adds the MERGE command, which lets one statement insert, update or delete the rows of a target table depending on a join with the source.');
INSERT INTO posts (body) VALUES
	('Sourdough needs a lively starter, a long cold proof in the fridge and a very hot oven with steam for the first twenty minutes of the bake.');
INSERT INTO posts (body) VALUES (NULL);		-- cannot be judged: an original
INSERT INTO posts (body, duplicate_of) VALUES	-- the trigger owns duplicate_of
	('Sourdough needs a lively starter, a long cold proof in the fridge and a very hot oven with steam for the first 20 minutes of the bake.', 42);
SELECT id, duplicate_of, fp <-> (SELECT fp FROM posts WHERE id = coalesce(p.duplicate_of, p.id)) AS dist
FROM posts p ORDER BY id;

-- several near-duplicates in one statement: each sees the rows stored before it
INSERT INTO posts (body) VALUES
	('Cats sleep for most of the day and hunt at dawn and dusk, when their prey is the most active and the light is low.'),
	('Cats sleep for most of the day and they hunt at dawn and dusk, when their prey is the most active and the light is low.'),
	('Cats sleep most of the day and hunt at dawn and dusk, when their prey is the most active and the light is low.');
SELECT id, duplicate_of FROM posts WHERE id > 6 ORDER BY id;

-- 2. Updates.  A duplicate edited into new text becomes an original.
UPDATE posts SET body = 'A completely new post about the migration habits of arctic terns, which fly from pole to pole every year.' WHERE id = 2;
-- an update of other columns keeps the judgement (the trigger does not even fire)
UPDATE posts SET note = 'edited' WHERE id = 3;
-- an original edited into a copy of another original becomes its duplicate,
-- and its own duplicates (3) are re-pointed at the new root: no chains
UPDATE posts SET body = 'Sourdough needs a lively starter, a long cold proof in the fridge and a very hot oven with steam for the first twenty minutes of baking.' WHERE id = 1;
-- the same text again: the row is excluded from its own lookup
UPDATE posts SET body = body || '' WHERE id = 4;
SELECT id, duplicate_of, note FROM posts ORDER BY id;
-- invariant: no chains, and no two originals within the radius
SELECT count(*) AS chains FROM posts d JOIN posts o ON o.id = d.duplicate_of WHERE o.duplicate_of IS NOT NULL;
SELECT count(*) AS close_originals FROM posts a JOIN posts b ON a.id < b.id
WHERE a.duplicate_of IS NULL AND b.duplicate_of IS NULL AND a.fp <-> b.fp <= 12;

-- the plan of the lookup (the trigger prepares it with a generic plan)
SET plan_cache_mode = force_generic_plan;
PREPARE lookup(simhash64, int) AS
	SELECT t.id, t.fp FROM ONLY public.posts t
	WHERE t.fp OPERATOR(public.<@) public.ball($1, $2) AND t.id IS NOT NULL AND t.duplicate_of IS NULL
	ORDER BY ROW(t.id) LIMIT 1 FOR KEY SHARE OF t;
SELECT * FROM pg_temp.plan($$EXECUTE lookup('0000000000000000', 12)$$);
DEALLOCATE lookup;
RESET plan_cache_mode;

-- 3. Lock keys: one table key (share) and one key per block (radius 12: 6), with
--    objsubid 20036/20037 so that users' advisory locks never collide.
BEGIN;
INSERT INTO posts (body) VALUES ('Lock keys of this row.');
SELECT objsubid, mode, count(*) FROM pg_locks
WHERE locktype = 'advisory' AND pid = pg_backend_pid() AND classid = 'posts'::regclass::oid
GROUP BY 1, 2 ORDER BY 1, 2;
ROLLBACK;

-- a bulk load in one transaction: after 512 block keys the transaction takes
-- the table key in exclusive mode instead (radius 3: 4 keys per row)
CREATE TABLE bulk (id int, fp simhash64, duplicate_of int);
CREATE INDEX ON bulk USING gin (fp);
CREATE TRIGGER dedup BEFORE INSERT ON bulk FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=fp', 'radius=3');
BEGIN;
INSERT INTO bulk SELECT i, hashint8extended(i, 7)::simhash64 FROM generate_series(1, 300) i;
SELECT objsubid, mode, CASE objsubid WHEN 20036 THEN count(*) BETWEEN 512 AND 520 ELSE count(*) = 1 END AS as_expected FROM pg_locks
WHERE locktype = 'advisory' AND pid = pg_backend_pid() AND classid = 'bulk'::regclass::oid
GROUP BY 1, 2 ORDER BY 1, 2;
COMMIT;
SELECT count(*) FROM bulk WHERE duplicate_of IS NULL;

-- 4. action=skip and action=error; a precomputed fingerprint column
CREATE TABLE docs (id int PRIMARY KEY, fp simhash64, duplicate_of int);
CREATE INDEX ON docs USING gin (fp);
CREATE TRIGGER dedup_skip BEFORE INSERT ON docs FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=fp', 'radius=3', 'action=skip');
INSERT INTO docs VALUES (1, 'f0f0f0f0f0f0f0f0'), (2, tr_flip('f0f0f0f0f0f0f0f0', 3)),
	(3, tr_flip('f0f0f0f0f0f0f0f0', 4)), (4, NULL);
SELECT * FROM docs ORDER BY id;
CREATE OR REPLACE TRIGGER dedup_skip BEFORE INSERT ON docs FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=fp', 'radius=3', 'action=error');
INSERT INTO docs VALUES (5, tr_flip('f0f0f0f0f0f0f0f0', 2));
\echo :LAST_ERROR_SQLSTATE
INSERT INTO docs VALUES (5, tr_flip('0f0f0f0f0f0f0f0f', 2));
-- a writer without SELECT privilege: judged all the same (the lookup runs as
-- the table owner, like a foreign-key check), but the error hides the id
CREATE ROLE regress_nddup_writer;
GRANT INSERT ON docs TO regress_nddup_writer;
SET ROLE regress_nddup_writer;
INSERT INTO docs VALUES (6, tr_flip('f0f0f0f0f0f0f0f0', 1));
INSERT INTO docs VALUES (7, 'aaaaaaaaaaaaaaaa');
RESET ROLE;
DROP OWNED BY regress_nddup_writer;
DROP ROLE regress_nddup_writer;
SELECT * FROM docs ORDER BY id;

-- error without a duplicate_of column: every stored row is an original
CREATE TABLE docs2 (id int, fp simhash64);
CREATE TRIGGER dedup BEFORE INSERT ON docs2 FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=fp', 'radius=0', 'action=error');
INSERT INTO docs2 VALUES (1, '0123456789abcdef'), (2, '0123456789abcdee');
INSERT INTO docs2 VALUES (3, '0123456789abcdef');
SELECT * FROM docs2 ORDER BY id;

-- 5. Source text only: the lookup is simhash(body, 7, 'char') <@ ball, served
--    by the expression index; an order column other than the id; varchar.
CREATE TABLE notes (id int, created timestamptz, body varchar(500), dup int);
CREATE INDEX notes_fp ON notes USING gin ((simhash(body, 7, 'char')));
CREATE TRIGGER dedup BEFORE INSERT OR UPDATE OF body ON notes FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('source=body', 'size=7', 'unit=char',
										 'duplicate_of=dup', 'order=created', 'radius=10');
SELECT * FROM nddup_check_trigger('notes');
INSERT INTO notes VALUES
	(10, '2024-01-02', 'Meeting notes: the team agreed to ship the release on Friday after the last review.'),
	(20, '2024-01-01', 'A note written earlier about something entirely unrelated: groceries, milk, eggs.');
-- 31 is earlier by "created" but arrives later: it is judged against the
-- originals that exist, so it is a duplicate of 10
INSERT INTO notes VALUES
	(31, '2023-12-31', 'Meeting notes: the team agreed to ship the release on Friday after the final review.');
INSERT INTO notes VALUES
	(30, '2024-01-03', 'Meeting notes: the team agreed to ship the release on Friday after the last reviews.');
SELECT id, dup FROM notes ORDER BY id;
-- an expression index with other simhash parameters does not serve the lookup
SELECT settings FROM nddup_check_trigger('notes', '{source=body,duplicate_of=dup}');

-- the order column decides between two originals within the radius:
-- 1 and 2 are 6 bits apart, 3 is 3 bits from each, 2 is older
CREATE TABLE ordered (id int, created date, fp simhash64, duplicate_of int);
CREATE INDEX ON ordered USING gin (fp) WHERE duplicate_of IS NULL AND id > 0;	-- not usable
CREATE TRIGGER dedup BEFORE INSERT ON ordered FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=fp', 'radius=3', 'order=created');
INSERT INTO ordered VALUES (1, '2024-02-01', '0000000000000000'), (2, '2024-01-01', '000000000000003f');
INSERT INTO ordered VALUES (3, '2024-03-01', '0000000000000007');
SELECT * FROM ordered ORDER BY id;

-- source text only, without an index: the hint is a statement that works
CREATE TABLE t_src (id int, body text, duplicate_of int);
CREATE TRIGGER dedup BEFORE INSERT ON t_src FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('source=body');
INSERT INTO t_src VALUES (1, 'first post');
INSERT INTO t_src VALUES (2, 'first post!');	-- no second warning in this session
CREATE INDEX ON public.t_src USING gin ((public.simhash(body, 2, 'word', 'tf')) public.simhash64_gin_ops) WITH (fastupdate = off) WHERE duplicate_of IS NULL;
SELECT settings FROM nddup_check_trigger('t_src');
SELECT * FROM t_src ORDER BY id;

-- a plain fingerprint column next to a source is maintained by the trigger
CREATE TABLE pages (id int, body text, fp simhash64, duplicate_of int);
CREATE TRIGGER dedup BEFORE INSERT OR UPDATE ON pages FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=fp', 'source=body');
INSERT INTO pages VALUES (1, 'one two three four five six seven eight nine ten', '0000000000000000');
INSERT INTO pages VALUES (2, 'one two three four five six seven eight nine ten eleven');
SELECT id, fp = simhash(body) AS fp_ok, duplicate_of FROM pages ORDER BY id;

-- 6. Radii at the edges (0, 1: hashed lock keys; 32: 33 one- and two-bit blocks)
CREATE TABLE r (id int, fp simhash64, duplicate_of int, radius int);
CREATE TRIGGER r0 BEFORE INSERT ON r FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=fp', 'radius=0');
INSERT INTO r VALUES (1, '1111111111111111'), (2, '1111111111111111'), (3, '1111111111111110');
SELECT id, duplicate_of FROM r ORDER BY id;
DROP TRIGGER r0 ON r;
TRUNCATE r;
CREATE TRIGGER r1 BEFORE INSERT ON r FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=fp', 'radius=1');
INSERT INTO r VALUES (1, '1111111111111111'), (2, '1111111111111110'), (3, '1111111111111113');
DROP TRIGGER r1 ON r;
CREATE TRIGGER r32 BEFORE INSERT ON r FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=fp', 'radius=32');
INSERT INTO r VALUES (4, tr_flip('1111111111111111', 32)), (5, '0000000000000000'), (6, 'ffffffffffffffff');
SELECT id, duplicate_of FROM r ORDER BY id;

-- 7. Bad arguments and bad trigger definitions: errors when the trigger fires
--    (and from nddup_check_trigger, without storing a row).
\set VERBOSITY default
CREATE TABLE bad (id int, body text, fp simhash64, g simhash64 GENERATED ALWAYS AS (simhash(body, 3)) STORED,
	duplicate_of int, dup_text text);
CREATE FUNCTION try(args text[]) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	PERFORM nddup_check_trigger('bad', args);
	RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
	RETURN SQLSTATE || ' ' || SQLERRM;
END $$;
SELECT a, try(a) FROM (VALUES
	('{}'::text[]),
	('{fingerprint=fp}'),
	('{fingerprint}'),
	('{=fp}'),
	('{fingerprint=fp,frobnicate=1}'),
	('{fingerprint=fp,FINGERPRINT=fp}'),
	('{fingerprint=nope}'),
	('{fingerprint=body}'),
	('{source=fp}'),
	('{fingerprint=ctid}'),
	('{fingerprint=fp,radius=-1}'),
	('{fingerprint=fp,radius=33}'),
	('{fingerprint=fp,radius=twelve}'),
	('{fingerprint=fp,method=minhash}'),
	('{source=body,method=minhash}'),
	('{source=body,method=minhash,radius=3}'),
	('{source=body,method=minhash,weighting=tf}'),
	('{source=body,method=minhash,threshold=0}'),
	('{source=body,method=minhash,threshold=1.5}'),
	('{source=body,method=minhash,threshold=high}'),
	('{source=body,method=minhash,threshold=NaN}'),
	('{source=body,method=minhash,k=0}'),
	('{source=body,method=minhash,k=1025}'),
	('{source=body,method=minhash,k=64,size=2,unit=char,threshold=0.7}'),
	('{fingerprint=fp,threshold=0.5}'),
	('{source=body,k=64}'),
	('{fingerprint=fp,method=jaccard}'),
	('{fingerprint=fp,method=simhash}'),
	('{fingerprint=fp,action=delete}'),
	('{fingerprint=fp,lock=row}'),
	('{fingerprint=fp,size=3}'),
	('{source=body,size=0}'),
	('{source=body,unit=line}'),
	('{source=body,weighting=idf}'),
	('{fingerprint=g}'),
	('{fingerprint=g,source=body}'),
	('{fingerprint=g,source=body,size=3}'),
	('{fingerprint=fp,id=nope}'),
	('{fingerprint=fp,duplicate_of=dup_text}'),
	('{fingerprint=fp,duplicate_of=id}'),
	('{fingerprint=fp,duplicate_of=g}'),
	('{fingerprint=fp,order=fp}'),
	('{fingerprint=fp,order=body,lock=table,action=skip}'),
	('{fingerprint=fp,radius=}'),
	('{fingerprint=fp,radius=99999999999999999999}'),
	('{fingerprint=fp,visibility=everyone}'),
	('{fingerprint=fp,visibility=CALLER}'),
	('{fingerprint=fp,visibility=all,scope=body}'),
	('{fingerprint=fp,scope=nope}'),
	('{fingerprint=fp,scope=fp}'),
	('{fingerprint=fp,scope=duplicate_of}'),
	('{fingerprint=fp,scope=g}')
) v(a);
-- the message in full, with its hint and context
CREATE TRIGGER bad BEFORE INSERT ON bad FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=g', 'source=body');
INSERT INTO bad (id, body) VALUES (1, 'x');
\echo :LAST_ERROR_SQLSTATE
DROP TRIGGER bad ON bad;
CREATE TRIGGER bad BEFORE INSERT ON bad FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=fp', 'duplicate_of=nope');
INSERT INTO bad (id, body) VALUES (1, 'x');
\echo :LAST_ERROR_SQLSTATE
DROP TRIGGER bad ON bad;
CREATE TRIGGER bad BEFORE INSERT ON bad FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('source=body', 'method=minhash', 'radius=3');
INSERT INTO bad (id, body) VALUES (1, 'x');
\echo :LAST_ERROR_SQLSTATE
DROP TRIGGER bad ON bad;
-- wrong timing, level or event
CREATE TRIGGER bad AFTER INSERT ON bad FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=fp');
INSERT INTO bad (id, body) VALUES (1, 'x');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM nddup_check_trigger('bad');
DROP TRIGGER bad ON bad;
CREATE TRIGGER bad BEFORE INSERT ON bad FOR EACH STATEMENT
	EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=fp');
INSERT INTO bad (id, body) VALUES (1, 'x');
\echo :LAST_ERROR_SQLSTATE
DROP TRIGGER bad ON bad;
CREATE TRIGGER bad BEFORE DELETE ON bad FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=fp');
INSERT INTO bad (id, body) VALUES (1, 'x');
DELETE FROM bad;
\echo :LAST_ERROR_SQLSTATE
DROP TRIGGER bad ON bad;
SELECT nddup_dedup_trigger();
-- a column dropped after the trigger was created
CREATE TRIGGER bad BEFORE INSERT ON bad FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=fp', 'duplicate_of=duplicate_of');
INSERT INTO bad (id, fp) VALUES (2, '0000000000000000');
ALTER TABLE bad DROP COLUMN duplicate_of;
INSERT INTO bad (id, fp) VALUES (3, '0000000000000000');
DROP TABLE bad;
DROP FUNCTION try(text[]);

-- 8. search_path safety: a hostile schema first in search_path, with its own
--    <@, ball(), simhash() and = that would accept (or reject) everything.
CREATE SCHEMA evil;
CREATE FUNCTION evil.yes(simhash64, hamming_ball) RETURNS boolean LANGUAGE sql AS 'SELECT true';
CREATE OPERATOR evil.<@ (LEFTARG = simhash64, RIGHTARG = hamming_ball, FUNCTION = evil.yes);
CREATE FUNCTION evil.ball(simhash64, integer) RETURNS hamming_ball LANGUAGE plpgsql AS
$$ BEGIN RAISE EXCEPTION 'hijacked ball()'; END $$;
CREATE FUNCTION evil.simhash(text, integer, text, text) RETURNS simhash64 LANGUAGE plpgsql AS
$$ BEGIN RAISE EXCEPTION 'hijacked simhash()'; END $$;
CREATE FUNCTION evil.eq(bigint, bigint) RETURNS boolean LANGUAGE plpgsql AS
$$ BEGIN RAISE EXCEPTION 'hijacked ='; END $$;
CREATE OPERATOR evil.= (LEFTARG = bigint, RIGHTARG = bigint, FUNCTION = evil.eq);
CREATE TABLE evil.posts (id bigint, fp simhash64, duplicate_of bigint);
SET search_path = evil, pg_catalog, public;
INSERT INTO public.posts (body) VALUES ('Nothing like this has been posted before: a review of three fountain pens.');
INSERT INTO public.posts (body) VALUES ('Nothing like this has been posted before: a review of three fountain pens!');
-- the original 7 becomes a duplicate of 11; its duplicates 8 and 9 follow
-- (the re-pointing UPDATE uses OPERATOR(pg_catalog.=))
UPDATE public.posts SET body = 'Nothing like this has been posted before: a review of three fountain pens?' WHERE id = 7;
RESET search_path;
SELECT id, duplicate_of FROM posts WHERE id >= 7 ORDER BY id;
SELECT count(*) FROM evil.posts;
DROP SCHEMA evil CASCADE;

-- the settings follow CREATE OR REPLACE TRIGGER and new indexes
CREATE OR REPLACE TRIGGER dedup BEFORE INSERT OR UPDATE OF body ON posts FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=fp', 'source=body', 'radius=3', 'action=skip');
SELECT * FROM nddup_check_trigger('posts');
INSERT INTO posts (body) SELECT body FROM posts WHERE id = 4;
-- skip on UPDATE: the update is dropped, the row keeps its old text
UPDATE posts SET body = (SELECT body FROM posts WHERE id = 4) WHERE id = 2;
SELECT id, left(body, 30) AS body, duplicate_of FROM posts WHERE id IN (2, 4, 13) ORDER BY id;
