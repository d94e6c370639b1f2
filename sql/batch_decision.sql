--
-- The batch functions' relation forms without a threshold (radius) take the
-- decision kept with the table (nddup_decide): omitted or NULL, the decided
-- value; an explicit one wins; no decision, or one of another method, is an
-- error (22023).
--
SET client_min_messages = warning;

-- word sets (size=1): a text of 10 words, a copy sharing 6 of its words
-- (resemblance 6/15 = 0.4) and one sharing 9 (9/14 = 0.64)
CREATE FUNCTION bdwords(prefix text, n int) RETURNS text LANGUAGE sql IMMUTABLE
	AS $$ SELECT string_agg(prefix || i, ' ' ORDER BY i) FROM generate_series(1, n) i $$;
CREATE TABLE bdocs (id int PRIMARY KEY, body text, ss shingleset, sk minhash_sketch, fp simhash64);
INSERT INTO bdocs (id, body) VALUES (1, bdwords('o', 10)), (2, bdwords('o', 6) || ' ' || bdwords('m', 5)),
	(3, bdwords('o', 9) || ' ' || bdwords('n', 4)), (4, bdwords('z', 12));
UPDATE bdocs SET ss = shingle_set(body, 1, 'word'), sk = minhash(body), fp = simhash(body);

-- no decision: an error that says what to do
SELECT * FROM shingleset_pairs('bdocs'::regclass, 'id', 'ss');
SELECT * FROM minhash_pairs('bdocs'::regclass, 'id', 'sk', NULL);
SELECT * FROM hamming_clusters('bdocs', 'id', 'fp');

-- decided 0.5: only the copy at 0.64 pairs; omitted, NULL and through the text forms alike
-- (shingleset_pairs and hamming_pairs have no text form: an untyped table name is cast)
SELECT threshold FROM nddup_decide('bdocs', 'ss', 0.5, source_column => 'body');
SELECT id1, id2, round(similarity::numeric, 3) AS similarity FROM shingleset_pairs('bdocs'::regclass, 'id', 'ss');
SELECT id1, id2 FROM shingleset_pairs('bdocs'::regclass, 'id', 'ss', NULL);
SELECT id, cluster_id FROM shingleset_clusters('bdocs', 'id', 'ss') ORDER BY id;
SELECT id, cluster_id FROM shingleset_clusters('bdocs'::regclass, 'id', 'ss', singletons => false) ORDER BY id;
-- an explicit threshold wins: 0.3 pairs both copies
SELECT id1, id2 FROM shingleset_pairs('bdocs', 'id', 'ss', 0.3) ORDER BY 1, 2;
-- changed: 0.7 pairs neither
SELECT threshold FROM nddup_decide('bdocs', 'ss', 0.7);
SELECT count(*) FROM shingleset_pairs('bdocs'::regclass, 'id', 'ss');

-- the sketches and the fingerprints: their own columns' decisions
SELECT threshold FROM nddup_decide('bdocs', 'sk', 0.5, source_column => 'body');
SELECT (SELECT array_agg(id1 || '-' || id2 ORDER BY id1, id2) FROM minhash_pairs('bdocs', 'id', 'sk'))
	= (SELECT array_agg(id1 || '-' || id2 ORDER BY id1, id2) FROM minhash_pairs('bdocs', 'id', 'sk', 0.5)) AS same_pairs,
	(SELECT count(*) FROM minhash_pairs('bdocs', 'id', 'sk')) AS pairs;
SELECT (SELECT array_agg(id || ':' || cluster_id ORDER BY id) FROM minhash_clusters('bdocs', 'id', 'sk'))
	= (SELECT array_agg(id || ':' || cluster_id ORDER BY id) FROM minhash_clusters('bdocs', 'id', 'sk', 0.5)) AS same_clusters;
SET client_min_messages = error;	-- radius 40 on 4 rows: the by-chance warning
SELECT radius FROM nddup_decide('bdocs', 'fp', radius => 40, source_column => 'body');
SELECT (SELECT array_agg(id1 || '-' || id2 || ':' || distance ORDER BY id1, id2) FROM hamming_pairs('bdocs'::regclass, 'id', 'fp'))
	= (SELECT array_agg(id1 || '-' || id2 || ':' || distance ORDER BY id1, id2) FROM hamming_pairs('bdocs', 'id', 'fp', 40)) AS same_pairs,
	(SELECT count(*) FROM hamming_pairs('bdocs'::regclass, 'id', 'fp')) > 0 AS some_pairs;
SELECT (SELECT array_agg(id || ':' || cluster_id ORDER BY id) FROM hamming_clusters('bdocs', 'id', 'fp'))
	= (SELECT array_agg(id || ':' || cluster_id ORDER BY id) FROM hamming_clusters('bdocs', 'id', 'fp', 40)) AS same_clusters;
SET client_min_messages = warning;

-- a decision of another method for the column (written directly): an error
SELECT count(*) FROM nddup_decide('bdocs', 'sk', NULL);
INSERT INTO nddup_decisions (relid, column_name, method, threshold) VALUES ('bdocs', 'sk', 'shingleset', 0.5);
SELECT * FROM minhash_pairs('bdocs', 'id', 'sk');
-- a withdrawn decision: the error again
SELECT count(*) FROM nddup_decide('bdocs', 'ss', NULL);
SELECT * FROM shingleset_pairs('bdocs'::regclass, 'id', 'ss');
-- NULL table or column: no rows, as before
SELECT count(*) FROM shingleset_pairs(NULL::regclass, 'id', 'ss');
SELECT count(*) FROM minhash_pairs('bdocs'::regclass, 'id', NULL);

-- a role without SELECT on the table sees no decision (the policy of
-- nddup_decisions): the same error as with none stored, then 42501 with a
-- threshold given; with SELECT it reads the decision
SELECT threshold FROM nddup_decide('bdocs', 'ss', 0.5);
CREATE ROLE regress_nddup_bdec;
SET ROLE regress_nddup_bdec;
SELECT count(*) FROM shingleset_pairs('bdocs'::regclass, 'id', 'ss');
SELECT count(*) FROM shingleset_pairs('bdocs'::regclass, 'id', 'ss', 0.5);
RESET ROLE;
GRANT SELECT ON bdocs TO regress_nddup_bdec;
SET ROLE regress_nddup_bdec;
SELECT count(*) FROM shingleset_pairs('bdocs'::regclass, 'id', 'ss');
RESET ROLE;
DROP OWNED BY regress_nddup_bdec;
DROP ROLE regress_nddup_bdec;

DROP TABLE bdocs;
DROP FUNCTION bdwords(text, int);
