--
-- nddup_dedup_trigger() without threshold= (radius=) takes the decision kept
-- with the table (nddup_decide): the decided value, shown by
-- nddup_check_trigger() as "(decided)"; an explicit argument wins; a new or
-- withdrawn decision reaches the cached settings at once (the trigger on
-- nddup_decisions).  Other sessions: test/isolation/specs/trigger_decision.spec.
--
SET client_min_messages = warning;

-- word sets (size=1): a text of 10 words, a copy sharing 6 of its words
-- (resemblance 6/15 = 0.4) and one sharing 9 (9/14 = 0.64)
CREATE TABLE dposts (id int PRIMARY KEY, body text, ss shingleset, duplicate_of int);
CREATE INDEX ON dposts USING gin (ss shingleset_ops) WITH (fastupdate = off) WHERE duplicate_of IS NULL;
CREATE TRIGGER dedup BEFORE INSERT OR UPDATE OF body ON dposts FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=ss', 'source=body', 'method=shingleset', 'size=1');
CREATE FUNCTION dwords(prefix text, n int) RETURNS text LANGUAGE sql IMMUTABLE
	AS $$ SELECT string_agg(prefix || i, ' ' ORDER BY i) FROM generate_series(1, n) i $$;
SELECT jaccard(shingle_set(dwords('o', 10), 1, 'word'), shingle_set(dwords('o', 6) || ' ' || dwords('m', 5), 1, 'word')) AS j04,
	jaccard(shingle_set(dwords('o', 10), 1, 'word'), shingle_set(dwords('o', 9) || ' ' || dwords('n', 4), 1, 'word')) AS j064;
-- the three rows stored again (DELETE: no change to the table's definition); which were marked
CREATE FUNCTION dmarks() RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	DELETE FROM dposts;
	INSERT INTO dposts (id, body) VALUES (1, dwords('o', 10));
	INSERT INTO dposts (id, body) VALUES (2, dwords('o', 6) || ' ' || dwords('m', 5));
	INSERT INTO dposts (id, body) VALUES (3, dwords('o', 9) || ' ' || dwords('n', 4));
	RETURN (SELECT string_agg(id || ':' || coalesce(duplicate_of::text, '-'), ' ' ORDER BY id) FROM dposts);
END
$$;

-- no decision: the default 0.3 marks both copies
SELECT settings FROM nddup_check_trigger('dposts');
SELECT dmarks();
-- decided 0.5: the copy at 0.4 is an original, the one at 0.64 a duplicate
SELECT threshold FROM nddup_decide('dposts', 'ss', 0.5, source_column => 'body');
SELECT settings FROM nddup_check_trigger('dposts');
SELECT dmarks();
-- changed to 0.7 in the same session: neither copy is marked
SELECT threshold FROM nddup_decide('dposts', 'ss', 0.7, source_column => 'body');
SELECT dmarks();
-- changed by writing the table itself (as its owner): the same
UPDATE nddup_decisions SET threshold = 0.35 WHERE relid = 'dposts'::regclass;
SELECT dmarks();
-- an explicit threshold= wins over the decision
SELECT settings FROM nddup_check_trigger('dposts', '{fingerprint=ss,source=body,method=shingleset,size=1,threshold=0.5}');
-- nddup_original() (the check through the Citus coordinator) reads it too: 0.35 finds row 1
SELECT nddup_original('dposts', '{fingerprint=ss,source=body,method=shingleset,size=1}',
	dwords('o', 7) || ' ' || dwords('x', 5), NULL::int) AS original;
SELECT nddup_original('dposts', '{fingerprint=ss,source=body,method=shingleset,size=1,threshold=0.5}',
	dwords('o', 7) || ' ' || dwords('x', 5), NULL::int) AS original;

-- only the trigger's column counts (the fingerprint= column, else source=), and only a decision
-- of a fitting method: a decision for the text column body applies to a trigger on source=body
-- alone (minhash or shingleset), not to one with fingerprint=ss, and never to measure=containment
SELECT threshold FROM nddup_decide('dposts', 'body', 0.6);
SELECT settings FROM nddup_check_trigger('dposts', '{source=body,method=minhash}');
SELECT settings FROM nddup_check_trigger('dposts', '{source=body,method=shingleset}');
SELECT settings FROM nddup_check_trigger('dposts', '{source=body,method=shingleset,measure=containment}');
SELECT settings FROM nddup_check_trigger('dposts');
-- simhash takes the radius of a simhash64 decision, not a threshold
ALTER TABLE dposts ADD COLUMN fp simhash64;
SELECT settings FROM nddup_check_trigger('dposts', '{fingerprint=fp}');
SELECT radius FROM nddup_decide('dposts', 'fp', radius => 5);
SELECT settings FROM nddup_check_trigger('dposts', '{fingerprint=fp}');
SELECT settings FROM nddup_check_trigger('dposts', '{fingerprint=fp,radius=3}');
SELECT settings FROM nddup_check_trigger('dposts', '{source=body}');
-- a decided radius the trigger cannot use is an error that says what to do
SELECT radius FROM nddup_decide('dposts', 'fp', radius => 40);
\set VERBOSITY terse
SELECT settings FROM nddup_check_trigger('dposts', '{fingerprint=fp}');
\set VERBOSITY default
SELECT count(*) FROM nddup_decide('dposts', 'fp');

-- a role that may insert but not read the table (nor, by row-level security, its decision)
-- is judged with the decision all the same
CREATE ROLE regress_decision_inserter;
GRANT INSERT ON dposts TO regress_decision_inserter;
SELECT threshold FROM nddup_decide('dposts', 'ss', 0.5, source_column => 'body');
DELETE FROM dposts;
INSERT INTO dposts (id, body) VALUES (1, dwords('o', 10));
SET ROLE regress_decision_inserter;
SELECT count(*) FROM nddup_decisions WHERE relid = 'dposts'::regclass;
INSERT INTO dposts (id, body) VALUES (2, dwords('o', 6) || ' ' || dwords('m', 5));
INSERT INTO dposts (id, body) VALUES (3, dwords('o', 9) || ' ' || dwords('n', 4));
RESET ROLE;
SELECT id, duplicate_of FROM dposts ORDER BY id;

-- withdrawn: the default 0.3 again
SELECT count(*) FROM nddup_decide('dposts', 'ss');
SELECT settings FROM nddup_check_trigger('dposts');
SELECT dmarks();
SELECT count(*) FROM nddup_decide('dposts', 'body');

-- clean up
DROP TABLE dposts;
DROP FUNCTION dmarks(), dwords(text, int);
DROP ROLE regress_decision_inserter;
