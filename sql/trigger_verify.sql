-- Verified candidates in the insert-time trigger (docs/trigger.md#verified-candidates):
-- verify=t confirms each candidate original found by the radius (or the sketch
-- threshold) by the exact word 3-shingle Jaccard of the source texts, or by a
-- stored shingleset or minhash_sketch (verify_column=); a candidate that fails
-- is not an original for the row, and the earliest verified original wins.

-- 1. Two one-line texts that share no word at Hamming distance 12 (from the
--    Debian synopses of docs/reports/bench-trigger-verify.md).
SELECT hamming(simhash('Terminal locking program'), simhash('Perl pragma for subroutine signatures')) AS distance,
	jaccard(shingle_set('Terminal locking program'), shingle_set('Perl pragma for subroutine signatures')) AS resemblance;
CREATE TABLE vposts (
	id           bigserial PRIMARY KEY,
	body         text,
	fp           simhash64 GENERATED ALWAYS AS (simhash(body)) STORED,
	sh           shingleset GENERATED ALWAYS AS (shingle_set(body)) STORED,
	mh           minhash_sketch GENERATED ALWAYS AS (minhash(body, 256)) STORED,
	duplicate_of bigint
);
CREATE INDEX ON vposts USING hamming (fp) WHERE duplicate_of IS NULL;
-- unverified, the radius marks the second as a copy of the first
CREATE TRIGGER dedup BEFORE INSERT OR UPDATE OF body ON vposts FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=fp', 'source=body', 'radius=12');
INSERT INTO vposts (body) VALUES ('Terminal locking program'), ('Perl pragma for subroutine signatures')
	RETURNING id, duplicate_of;
-- verified, it is an original; a real copy is still marked
CREATE OR REPLACE TRIGGER dedup BEFORE INSERT OR UPDATE OF body ON vposts FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=fp', 'source=body', 'radius=12', 'verify=0.3');
SELECT * FROM nddup_check_trigger('vposts');
TRUNCATE vposts;
INSERT INTO vposts (body) VALUES ('Terminal locking program'), ('Perl pragma for subroutine signatures'),
	('Perl pragma for subroutine signatures.')
	RETURNING id, duplicate_of;

-- 2. The earliest verified original wins.  At radius 32 about half of the
--    unrelated pairs are candidates; families of near-duplicates (one word
--    changed at the end) are inserted in a shuffled order.
CREATE TABLE vsrc AS
SELECT g, v, array_to_string(ARRAY(
		SELECT (ARRAY['amber', 'basil', 'cedar', 'delta', 'ember', 'fjord', 'grove', 'haven',
					  'iris', 'jade', 'kelp', 'lumen', 'maple', 'nectar', 'onyx', 'pearl',
					  'quill', 'raven', 'sable', 'thyme', 'umber', 'vale', 'willow', 'yarrow'])
			   [1 + (g * 7 + k * k * 5 + k * g) % 24]
		FROM generate_series(1, 10) k), ' ') ||
	CASE v WHEN 0 THEN '' ELSE ' variant ' || v END AS body
FROM generate_series(1, 15) g, generate_series(0, 2) v;
-- the replay the trigger must match: originals by id, the earliest one within
-- the radius whose resemblance reaches the verification threshold
CREATE FUNCTION replay(radius int, verify float8) RETURNS TABLE (id bigint, duplicate_of bigint)
LANGUAGE plpgsql AS $$
DECLARE r record; o bigint;
BEGIN
	CREATE TEMP TABLE replayed (id bigint, body text, duplicate_of bigint);
	FOR r IN SELECT p.id, p.body FROM vposts p ORDER BY p.id LOOP
		SELECT min(x.id) INTO o FROM replayed x
		WHERE x.duplicate_of IS NULL AND hamming(simhash(x.body), simhash(r.body)) <= radius
		  AND (verify IS NULL OR jaccard(shingle_set(x.body), shingle_set(r.body)) >= verify);
		INSERT INTO replayed VALUES (r.id, r.body, o);
	END LOOP;
	RETURN QUERY SELECT x.id, x.duplicate_of FROM replayed x;
	DROP TABLE replayed;
END $$;
CREATE FUNCTION fill() RETURNS void LANGUAGE sql AS $$
	TRUNCATE vposts;
	ALTER SEQUENCE vposts_id_seq RESTART;
	INSERT INTO vposts (body) SELECT body FROM vsrc ORDER BY (g * 37 + v * 11) % 45, g, v;
$$;
CREATE OR REPLACE TRIGGER dedup BEFORE INSERT OR UPDATE OF body ON vposts FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=fp', 'source=body', 'radius=32');
SELECT fill();
CREATE TABLE unverified AS SELECT id, duplicate_of FROM vposts;
SELECT count(*) FILTER (WHERE p.duplicate_of IS DISTINCT FROM r.duplicate_of) AS differ_from_replay,
	count(p.duplicate_of) AS marked,
	count(*) FILTER (WHERE jaccard(shingle_set(p.body), shingle_set(o.body)) < 0.3) AS marked_unrelated
FROM vposts p JOIN replay(32, NULL) r USING (id) LEFT JOIN vposts o ON o.id = p.duplicate_of;
CREATE OR REPLACE TRIGGER dedup BEFORE INSERT OR UPDATE OF body ON vposts FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=fp', 'source=body', 'radius=32', 'verify=0.3');
SELECT fill();
SELECT count(*) FILTER (WHERE p.duplicate_of IS DISTINCT FROM r.duplicate_of) AS differ_from_replay,
	count(p.duplicate_of) AS marked,
	count(*) FILTER (WHERE jaccard(shingle_set(p.body), shingle_set(o.body)) < 0.3) AS marked_unrelated,
	count(*) FILTER (WHERE u.duplicate_of < p.duplicate_of) AS earlier_unverified_candidate
FROM vposts p JOIN replay(32, 0.3) r USING (id) JOIN unverified u USING (id)
	LEFT JOIN vposts o ON o.id = p.duplicate_of;

-- 3. verify_column: a stored shingle set gives the same judgement as the text
CREATE TABLE by_text AS SELECT id, duplicate_of FROM vposts;
CREATE OR REPLACE TRIGGER dedup BEFORE INSERT OR UPDATE OF body ON vposts FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=fp', 'source=body', 'radius=32',
										 'verify_column=sh');
SELECT settings FROM nddup_check_trigger('vposts');
SELECT fill();
SELECT count(*) AS differ_from_text FROM vposts p JOIN by_text t USING (id)
WHERE p.duplicate_of IS DISTINCT FROM t.duplicate_of;
-- a min-hash sketch column at a higher threshold: its estimate decides
CREATE OR REPLACE TRIGGER dedup BEFORE INSERT OR UPDATE OF body ON vposts FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=fp', 'source=body', 'radius=32',
										 'verify_column=mh', 'verify=0.7');
SELECT fill();
SELECT count(*) FILTER (WHERE p.duplicate_of IS DISTINCT FROM (
		SELECT min(o.id) FROM vposts o WHERE o.id < p.id AND o.duplicate_of IS NULL
		  AND hamming(o.fp, p.fp) <= 32 AND jaccard(o.mh, p.mh) >= 0.7)) AS differ_from_sketches,
	count(p.duplicate_of) AS marked
FROM vposts p;
-- method=minhash: the sketch threshold finds candidates, the text verifies them
CREATE TABLE mposts (id int PRIMARY KEY, body text, duplicate_of int);
CREATE INDEX ON mposts USING gin ((minhash(body, 128, 'oph', 0, 3, 'word')) minhash_lsh_ops (threshold = 0.3))
	WITH (fastupdate = off) WHERE duplicate_of IS NULL;
CREATE TRIGGER dedup BEFORE INSERT ON mposts FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('source=body', 'method=minhash', 'threshold=0.3',
										 'verify=0.75');
INSERT INTO mposts SELECT row_number() OVER (ORDER BY g, v), body FROM vsrc ORDER BY g, v;
SELECT count(*) FILTER (WHERE p.duplicate_of IS DISTINCT FROM (
		SELECT min(o.id) FROM mposts o WHERE o.id < p.id AND o.duplicate_of IS NULL
		  AND jaccard(minhash(o.body), minhash(p.body)) >= 0.3
		  AND jaccard(shingle_set(o.body), shingle_set(p.body)) >= 0.75)) AS differ_from_oracle,
	count(p.duplicate_of) AS marked
FROM mposts p;
-- a plain shingleset column with fingerprint= alone; a NULL value verifies nothing
CREATE TABLE plain (id int PRIMARY KEY, fp simhash64, sh shingleset, body text, duplicate_of int);
CREATE INDEX ON plain USING hamming (fp) WHERE duplicate_of IS NULL;
CREATE TRIGGER dedup BEFORE INSERT OR UPDATE ON plain FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=fp', 'radius=3', 'verify_column=sh',
										 'verify=0.5');
INSERT INTO plain VALUES
	(1, simhash('a b c d e'), shingle_set('a b c d e')),
	(2, simhash('a b c d e'), shingle_set('a b c d f')),	-- J 2/4
	(3, simhash('a b c d e'), shingle_set('v w x y z')),	-- J 0
	(4, simhash('a b c d e'), NULL);
SELECT id, duplicate_of FROM plain ORDER BY id;
-- an UPDATE of the verified value alone is judged again
UPDATE plain SET sh = shingle_set('a b c d e') WHERE id = 3;
SELECT id, duplicate_of FROM plain ORDER BY id;

-- 4. action=error names the verification
CREATE OR REPLACE TRIGGER dedup BEFORE INSERT OR UPDATE OF body ON vposts FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=fp', 'source=body', 'radius=12',
										 'verify=0.3', 'action=error');
TRUNCATE vposts;
INSERT INTO vposts (id, body) VALUES (1, 'Terminal locking program');
INSERT INTO vposts (id, body) VALUES (2, 'Perl pragma for subroutine signatures');
\set VERBOSITY default
INSERT INTO vposts (id, body) VALUES (3, 'Terminal locking program!');
\set VERBOSITY terse

-- 5. nddup_original() judges with the same condition
SELECT nddup_original('vposts', '{fingerprint=fp,source=body,radius=12,verify=0.3}',
					  'Perl pragma for subroutine signatures!'::text, NULL::bigint) AS verified,
	nddup_original('vposts', '{fingerprint=fp,source=body,radius=12,verify=0.9}',
				   'Perl pragma: subroutine signatures'::text, NULL::bigint) AS below_threshold,
	nddup_original('vposts', '{fingerprint=fp,source=body,radius=12,verify_column=sh}',
				   'Terminal locking program.'::text, NULL::bigint) AS generated_column;
SELECT nddup_original('vposts', '{fingerprint=fp,source=body,radius=12,verify=0.3}',
					  simhash('Terminal locking program'), NULL::bigint);
\echo :LAST_ERROR_SQLSTATE
SELECT nddup_original('plain', '{fingerprint=fp,radius=12,verify_column=sh}',
					  'Terminal locking program'::text, NULL::int);
\echo :LAST_ERROR_SQLSTATE
-- a stored column that is not generated from the text cannot be computed
SELECT nddup_original('plain', '{fingerprint=fp,source=body,radius=12,verify_column=sh}',
					  'Terminal locking program'::text, NULL::int);
\echo :LAST_ERROR_SQLSTATE

-- 6. Errors: when checked and when the trigger first fires
SELECT * FROM nddup_check_trigger('vposts', '{fingerprint=fp,verify=0.3}');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM nddup_check_trigger('vposts', '{source=body,verify=abc}');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM nddup_check_trigger('vposts', '{source=body,verify=0}');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM nddup_check_trigger('vposts', '{source=body,verify=1.5}');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM nddup_check_trigger('vposts', '{source=body,verify_column=nope}');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM nddup_check_trigger('vposts', '{source=body,verify_column=body}');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM nddup_check_trigger('plain', '{fingerprint=fp,verify_column=fp}');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM nddup_check_trigger('plain', '{fingerprint=fp,verify_column=ctid}');
\echo :LAST_ERROR_SQLSTATE
CREATE OR REPLACE TRIGGER dedup BEFORE INSERT OR UPDATE OF body ON vposts FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=fp', 'verify=0.3');
INSERT INTO vposts (id, body) VALUES (10, 'x');
\echo :LAST_ERROR_SQLSTATE
CREATE OR REPLACE TRIGGER dedup BEFORE INSERT OR UPDATE OF body ON vposts FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=fp', 'source=body', 'verify=0.3x');
INSERT INTO vposts (id, body) VALUES (10, 'x');
\echo :LAST_ERROR_SQLSTATE
-- stored sketches of other parameters cannot be compared (a plain column)
CREATE TABLE othermh (id int PRIMARY KEY, fp simhash64, mh minhash_sketch, duplicate_of int);
CREATE INDEX ON othermh USING hamming (fp) WHERE duplicate_of IS NULL;
CREATE TRIGGER dedup BEFORE INSERT ON othermh FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=fp', 'radius=3', 'verify_column=mh');
INSERT INTO othermh VALUES (1, simhash('a b c'), minhash('a b c'));
INSERT INTO othermh VALUES (2, simhash('a b c'), minhash('a b c', 64));
\echo :LAST_ERROR_SQLSTATE
-- the verified value cannot be the fingerprint itself
SELECT * FROM nddup_check_trigger('othermh', '{fingerprint=mh,method=minhash,verify_column=mh}');
\echo :LAST_ERROR_SQLSTATE

-- 7. Row-level security still decides which candidates are seen
CREATE ROLE regress_nddup_vera;
CREATE ROLE regress_nddup_walt;
CREATE TABLE vrls (
	id           bigserial PRIMARY KEY,
	tenant       name NOT NULL DEFAULT current_user,
	body         text NOT NULL,
	fp           simhash64 GENERATED ALWAYS AS (simhash(body)) STORED,
	duplicate_of bigint
);
CREATE INDEX ON vrls USING hamming (fp) WHERE duplicate_of IS NULL;
ALTER TABLE vrls ENABLE ROW LEVEL SECURITY;
CREATE POLICY own_rows ON vrls USING (tenant = current_user);
GRANT SELECT, INSERT ON vrls TO regress_nddup_vera, regress_nddup_walt;
GRANT USAGE ON SEQUENCE vrls_id_seq TO regress_nddup_vera, regress_nddup_walt;
CREATE TRIGGER dedup BEFORE INSERT ON vrls FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=fp', 'source=body', 'radius=12', 'verify=0.3');
SELECT settings FROM nddup_check_trigger('vrls');
SET ROLE regress_nddup_vera;
INSERT INTO vrls (body) VALUES ('Vera writes about the migration of the billing service')
	RETURNING id, duplicate_of;
RESET ROLE;
SET ROLE regress_nddup_walt;
-- vera's row is not seen; walt's own copy is verified and marked
INSERT INTO vrls (body) VALUES ('Vera writes about the migration of the billing service')
	RETURNING id, duplicate_of;
INSERT INTO vrls (body) VALUES ('Vera writes about the migration of the billing service!')
	RETURNING id, duplicate_of;
RESET ROLE;
-- a role that may not read the source column cannot be judged by it
REVOKE SELECT ON vrls FROM regress_nddup_walt;
GRANT SELECT (id, tenant, fp, duplicate_of) ON vrls TO regress_nddup_walt;
SET ROLE regress_nddup_walt;
INSERT INTO vrls (body) VALUES ('Walt writes again');
\echo :LAST_ERROR_SQLSTATE
RESET ROLE;
DROP TABLE vrls;
DROP ROLE regress_nddup_vera;
DROP ROLE regress_nddup_walt;

-- 8. The unsafe-radius warning (docs/trigger.md#unsafe-settings): expected
--    chance pairs for the table's size, or short texts.
CREATE TABLE big (id int PRIMARY KEY, body text, fp simhash64, duplicate_of int);
INSERT INTO big SELECT g, 'note number ' || g, simhash('note number ' || g) FROM generate_series(1, 4000) g;
ANALYZE big;
\set VERBOSITY default
SELECT settings FROM nddup_check_trigger('big', '{fingerprint=fp,source=body,radius=12}');
SELECT count(*) > 0 AS pairs FROM hamming_pairs('SELECT id, fp FROM big', 12);
\set VERBOSITY terse
SELECT settings FROM nddup_check_trigger('big', '{fingerprint=fp,radius=3}');
SELECT settings FROM nddup_check_trigger('big', '{fingerprint=fp,source=body,radius=12,verify=0.3}');
SELECT settings FROM nddup_check_trigger('big', '{source=body,method=minhash}');
SELECT count(*) AS pairs FROM hamming_pairs('SELECT id, fp FROM big', 3);
SELECT count(*) AS verified_pairs FROM hamming_pairs('SELECT id, fp, body FROM big', 12, verify => 0.3);
SELECT count(*) > 0 AS clusters FROM hamming_clusters('big', 'id', 'fp', 12);
