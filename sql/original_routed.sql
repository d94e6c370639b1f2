--
-- nddup_original_routed(): the insert-time check of nddup_original() with
-- the lookup read from a key table (docs/scale-out.md#routed-check).  On
-- one node it must judge every row as the trigger does; test/citus runs
-- it on a cluster with the key table distributed by key.
--
SET client_min_messages = warning;

-- 1,000 fingerprints: 300 bases, each row its base with one bit flipped
-- (rows of a base are within 2 bits), every seventh row unrelated
CREATE TABLE ro_src AS
SELECT g::bigint AS id, CASE WHEN g % 7 = 0 THEN hashint8extended(g, 11)::simhash64
	ELSE (hashint8extended(1 + g % 300, 7) # (1::bigint << (g % 64)::int))::simhash64 END AS fp
FROM generate_series(1, 1000) g;

-- the trigger, the ground truth
CREATE TABLE ro_trig (id bigint PRIMARY KEY, fp simhash64, duplicate_of bigint);
CREATE TRIGGER dedup BEFORE INSERT ON ro_trig FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=fp', 'radius=3');
INSERT INTO ro_trig (id, fp) SELECT id, fp FROM ro_src ORDER BY id;

-- the routed check: the key table (key, id, sig), filled by the check
CREATE TABLE ro_posts (id bigint PRIMARY KEY, fp simhash64, duplicate_of bigint);
CREATE TABLE ro_keys (key bigint NOT NULL, id bigint NOT NULL, sig simhash64 NOT NULL);
CREATE INDEX ON ro_keys (key);
DO $$
DECLARE
	r record;
BEGIN
	FOR r IN SELECT id, fp FROM ro_src ORDER BY id LOOP
		INSERT INTO ro_posts VALUES (r.id, r.fp,
			nddup_original_routed('ro_posts', '{fingerprint=fp,radius=3}', r.fp, r.id, 'ro_keys'));
	END LOOP;
END
$$;
SELECT count(*) AS rows, count(t.duplicate_of) AS duplicates,
	count(*) FILTER (WHERE t.duplicate_of IS DISTINCT FROM o.duplicate_of) AS differ
FROM ro_trig t JOIN ro_posts o USING (id);
-- the keys of every original, radius + 1 each, and nothing else: those of
-- hamming_block_keys(), so a key table can be filled in SQL
SELECT count(*) AS key_rows, count(DISTINCT id) AS originals,
	(SELECT count(*) FROM ro_posts WHERE duplicate_of IS NULL) AS expected_originals
FROM ro_keys;
SELECT count(*) AS differ FROM (
	(SELECT key, id, sig FROM ro_keys
	 EXCEPT SELECT k, id, fp FROM ro_posts, unnest(hamming_block_keys(fp, 3)) k WHERE duplicate_of IS NULL)
	UNION ALL
	(SELECT k, id, fp FROM ro_posts, unnest(hamming_block_keys(fp, 3)) k WHERE duplicate_of IS NULL
	 EXCEPT SELECT key, id, sig FROM ro_keys)) s;
-- a duplicate stores no keys; a NULL signature is not judged and stores none
SELECT nddup_original_routed('ro_posts', '{fingerprint=fp,radius=3}',
	(SELECT fp FROM ro_posts WHERE id = 5), 5000::bigint, 'ro_keys') AS original_of_a_copy,
	(SELECT count(*) FROM ro_keys WHERE id = 5000) AS its_keys;
SELECT nddup_original_routed('ro_posts', '{fingerprint=fp,source=fp,radius=3}', NULL::simhash64, 5001::bigint, 'ro_keys') AS null_value,
	(SELECT count(*) FROM ro_keys WHERE id = 5001) AS its_keys;
-- action=error: the trigger's 23505
SELECT nddup_original_routed('ro_posts', '{fingerprint=fp,radius=3,action=error}',
	(SELECT fp FROM ro_posts WHERE id = 5), 5002::bigint, 'ro_keys');

-- from the source text, with min-hash sketches and verification by the
-- texts' exact resemblance: the key table keeps the verification value
CREATE TABLE ro_docs AS
SELECT g::bigint AS id, rtrim(regexp_replace(md5('a' || (g % 150)) || md5('b' || (g % 150)) || md5('c' || (g % 150)),
	'(....)', '\1 ', 'g')) || CASE WHEN g > 150 THEN ' w' || g ELSE '' END AS body
FROM generate_series(1, 400) g;
CREATE TABLE ro_mtrig (id bigint PRIMARY KEY, body text, duplicate_of bigint);
CREATE TRIGGER dedup BEFORE INSERT ON ro_mtrig FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('source=body', 'method=minhash', 'threshold=0.6', 'verify=0.5');
INSERT INTO ro_mtrig (id, body) SELECT id, body FROM ro_docs ORDER BY id;
CREATE TABLE ro_mposts (LIKE ro_mtrig);
CREATE TABLE ro_mkeys (key bigint, id bigint, sig minhash_sketch, verify shingleset);
DO $$
DECLARE
	r record;
BEGIN
	FOR r IN SELECT id, body FROM ro_docs ORDER BY id LOOP
		INSERT INTO ro_mposts VALUES (r.id, r.body,
			nddup_original_routed('ro_mposts', '{source=body,method=minhash,threshold=0.6,verify=0.5}',
								  r.body, r.id, 'ro_mkeys'));
	END LOOP;
END
$$;
SELECT count(*) AS rows, count(t.duplicate_of) AS duplicates,
	count(*) FILTER (WHERE t.duplicate_of IS DISTINCT FROM o.duplicate_of) AS differ
FROM ro_mtrig t JOIN ro_mposts o USING (id);
SELECT count(*) = 0 AS no_differing_keys FROM (
	SELECT key, id FROM ro_mkeys
	EXCEPT SELECT k, id FROM ro_mposts, unnest(minhash_band_keys(minhash(body), 0.6)) k WHERE duplicate_of IS NULL) s;

-- the statements are prepared once per configuration and key table: a key
-- table renamed, or dropped and created again, is read anew
SELECT nddup_original_routed('ro_posts', '{fingerprint=fp,radius=3}', (SELECT fp FROM ro_posts WHERE id = 5), 9001::bigint, 'ro_keys') AS before_rename \gset
ALTER TABLE ro_keys RENAME TO ro_keys_renamed;
SELECT nddup_original_routed('ro_posts', '{fingerprint=fp,radius=3}', (SELECT fp FROM ro_posts WHERE id = 5), 9001::bigint, 'ro_keys_renamed') = :before_rename AS same_after_rename;
ALTER TABLE ro_keys_renamed RENAME TO ro_keys;
CREATE TABLE ro_keys_other (LIKE ro_keys);
SELECT nddup_original_routed('ro_posts', '{fingerprint=fp,radius=3}', (SELECT fp FROM ro_posts WHERE id = 5), 9001::bigint, 'ro_keys_other') IS NULL AS empty_key_table_no_original;
SELECT count(*) AS keys_stored FROM ro_keys_other;
DROP TABLE ro_keys_other;
CREATE TABLE ro_keys_other (LIKE ro_keys);
SELECT nddup_original_routed('ro_posts', '{fingerprint=fp,radius=3}', (SELECT fp FROM ro_posts WHERE id = 5), 9001::bigint, 'ro_keys_other') IS NULL AS recreated_no_original;
SELECT count(*) AS keys_stored FROM ro_keys_other;
SELECT nddup_original_routed('ro_posts', '{fingerprint=fp,radius=3}', (SELECT fp FROM ro_posts WHERE id = 5), 9002::bigint, 'ro_keys_other') AS found_in_recreated;
DROP TABLE ro_keys_other;
SELECT nddup_original_routed('ro_posts', '{fingerprint=fp,radius=3}', (SELECT fp FROM ro_posts WHERE id = 5), 9001::bigint, 'ro_keys') = :before_rename AS same_again;

-- what it refuses
SELECT nddup_original_routed('ro_posts', '{fingerprint=fp,radius=3}', '0123456789abcdef'::simhash64, NULL::bigint, 'ro_keys');
SELECT nddup_original_routed('ro_posts', '{fingerprint=fp,radius=3}', '0123456789abcdef'::simhash64, 1::integer, 'ro_keys');
SELECT nddup_original_routed('ro_posts', '{fingerprint=fp,radius=3}', '0123456789abcdef'::simhash64, 1::bigint, NULL);
SELECT nddup_original_routed('ro_posts', '{fingerprint=fp,radius=3}', '0123456789abcdef'::simhash64, 1::bigint, 'ro_posts');
SELECT nddup_original_routed('ro_posts', '{fingerprint=fp,radius=3}', '0123456789abcdef'::simhash64, 1::bigint, 'ro_mkeys');
SELECT nddup_original_routed('ro_mposts', '{source=body,method=minhash,threshold=0.6,verify=0.5}', 'x', 1::bigint, 'ro_keys');
SELECT nddup_original_routed('ro_posts', '{fingerprint=fp,radius=3,order=fp}', '0123456789abcdef'::simhash64, 1::bigint, 'ro_keys');
ALTER TABLE ro_posts ADD COLUMN site integer;
SELECT nddup_original_routed('ro_posts', '{fingerprint=fp,radius=3,scope=site}', '0123456789abcdef'::simhash64, 1::bigint, 'ro_keys');
SELECT nddup_original_routed('ro_mposts', '{source=body,method=shingleset,threshold=0.6}', 'x', 1::bigint, 'ro_mkeys');
-- a system catalog as the key table: refused before anything is read
SELECT nddup_original_routed('ro_posts', '{fingerprint=fp,radius=3}', '0123456789abcdef'::simhash64, 1::bigint, 'pg_authid');
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT nddup_original_routed('ro_posts', '{fingerprint=fp,radius=3}', '0123456789abcdef'::simhash64, 1::bigint, 'ro_keys');
ROLLBACK;

-- privileges, checked on every call: INSERT on the table and on the key
-- table, SELECT on the columns read; row-level security is refused
CREATE ROLE regress_nddup_routed;
GRANT INSERT, SELECT ON ro_posts TO regress_nddup_routed;
GRANT INSERT ON ro_keys TO regress_nddup_routed;
SET ROLE regress_nddup_routed;
SELECT nddup_original_routed('ro_posts', '{fingerprint=fp,radius=3}', '0123456789abcdef'::simhash64, 9000::bigint, 'ro_keys');
RESET ROLE;
REVOKE INSERT ON ro_keys FROM regress_nddup_routed;
GRANT SELECT ON ro_keys TO regress_nddup_routed;
SET ROLE regress_nddup_routed;
SELECT nddup_original_routed('ro_posts', '{fingerprint=fp,radius=3}', '0123456789abcdef'::simhash64, 9000::bigint, 'ro_keys');
RESET ROLE;
GRANT INSERT ON ro_keys TO regress_nddup_routed;
SET ROLE regress_nddup_routed;
SELECT nddup_original_routed('ro_posts', '{fingerprint=fp,radius=3}', (SELECT fp FROM ro_posts WHERE id = 5), 9000::bigint, 'ro_keys') AS allowed;
RESET ROLE;
REVOKE INSERT ON ro_posts FROM regress_nddup_routed;
SET ROLE regress_nddup_routed;
SELECT nddup_original_routed('ro_posts', '{fingerprint=fp,radius=3}', '0123456789abcdef'::simhash64, 9000::bigint, 'ro_keys');
RESET ROLE;
GRANT INSERT ON ro_posts TO regress_nddup_routed;
ALTER TABLE ro_posts ENABLE ROW LEVEL SECURITY;
CREATE POLICY ro_mine ON ro_posts USING (id < 100);
SET ROLE regress_nddup_routed;
SELECT nddup_original_routed('ro_posts', '{fingerprint=fp,radius=3}', (SELECT fp FROM ro_posts WHERE id = 5), 9000::bigint, 'ro_keys');
RESET ROLE;
DROP POLICY ro_mine ON ro_posts;
ALTER TABLE ro_posts DISABLE ROW LEVEL SECURITY;
-- row-level security on the key table: its policies would hide originals
ALTER TABLE ro_keys ENABLE ROW LEVEL SECURITY;
CREATE POLICY ro_keys_some ON ro_keys USING (id < 100);
SET ROLE regress_nddup_routed;
SELECT nddup_original_routed('ro_posts', '{fingerprint=fp,radius=3}', (SELECT fp FROM ro_posts WHERE id = 5), 9000::bigint, 'ro_keys');
RESET ROLE;
DROP POLICY ro_keys_some ON ro_keys;
ALTER TABLE ro_keys DISABLE ROW LEVEL SECURITY;
DROP OWNED BY regress_nddup_routed;
DROP ROLE regress_nddup_routed;
