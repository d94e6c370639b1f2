--
-- nddup_original_routed() on Citus: a table distributed by id, its key
-- table distributed by key; every row judged as the trigger judges it on
-- one node, and each probe sent to the shards of its keys only.
--
\set VERBOSITY terse
SET client_min_messages = warning;

-- 600 fingerprints: 200 bases, each row its base with one bit flipped,
-- every fifth row unrelated
CREATE TABLE rt_src AS
SELECT g::bigint AS id, CASE WHEN g % 5 = 0 THEN hashint8extended(g, 11)::simhash64
	ELSE (hashint8extended(1 + g % 200, 7) # (1::bigint << (g % 64)::int))::simhash64 END AS fp
FROM generate_series(1, 600) g;
CREATE TABLE rt_local (id bigint PRIMARY KEY, fp simhash64, duplicate_of bigint);
CREATE TRIGGER dedup BEFORE INSERT ON rt_local FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=fp', 'radius=3');
INSERT INTO rt_local (id, fp) SELECT id, fp FROM rt_src ORDER BY id;

CREATE TABLE rt_posts (id bigint PRIMARY KEY, fp simhash64, duplicate_of bigint);
SELECT create_distributed_table('rt_posts', 'id', shard_count => 8);
CREATE TABLE rt_keys (key bigint NOT NULL, id bigint NOT NULL, sig simhash64 NOT NULL);
SELECT create_distributed_table('rt_keys', 'key', shard_count => 8);
CREATE INDEX ON rt_keys (key);
DO $$
DECLARE
	r record;
BEGIN
	FOR r IN SELECT id, fp FROM rt_src ORDER BY id LOOP
		INSERT INTO rt_posts VALUES (r.id, r.fp,
			nddup_original_routed('rt_posts', '{fingerprint=fp,radius=3}', r.fp, r.id, 'rt_keys'));
	END LOOP;
END
$$;
SELECT count(*) AS rows, count(o.duplicate_of) AS duplicates,
	count(*) FILTER (WHERE l.duplicate_of IS DISTINCT FROM o.duplicate_of) AS differ
FROM rt_local l JOIN (SELECT * FROM rt_posts) o USING (id);
SELECT count(*) AS key_rows, count(DISTINCT id) AS originals FROM rt_keys;
-- the same key rows as the block keys of the originals on one node
SELECT count(*) AS differ FROM (
	(SELECT key, id FROM rt_keys
	 EXCEPT ALL SELECT k, id FROM rt_local, unnest(hamming_block_keys(fp, 3)) k WHERE duplicate_of IS NULL)
	UNION ALL
	(SELECT k, id FROM rt_local, unnest(hamming_block_keys(fp, 3)) k WHERE duplicate_of IS NULL
	 EXCEPT ALL SELECT key, id FROM rt_keys)) s;

-- a probe reads the shards of its keys: its tasks are the distinct shards
-- of the 4 block keys, not the 8 shards
CREATE FUNCTION rt_tasks(fp simhash64) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
	line text;
BEGIN
	FOR line IN EXECUTE format('EXPLAIN (COSTS OFF) SELECT id FROM rt_keys WHERE key = ANY (%L::bigint[]) AND sig <@ ball(%L, 3)',
							   hamming_block_keys(fp, 3), fp) LOOP
		IF line ~ 'Task Count' THEN
			RETURN substring(line FROM '[0-9]+')::int;
		END IF;
	END LOOP;
	RETURN NULL;
END
$$;
SELECT count(*) AS probes,
	count(*) FILTER (WHERE rt_tasks(fp) = (SELECT count(DISTINCT get_shard_id_for_distribution_column('rt_keys', k))
										   FROM unnest(hamming_block_keys(fp, 3)) k)) AS tasks_are_the_keys_shards,
	max(rt_tasks(fp)) AS most_tasks
FROM rt_src WHERE id <= 50;

-- action=error: the trigger's 23505 from the coordinator
SELECT fp AS fp1 FROM rt_src WHERE id = 1 \gset
INSERT INTO rt_posts VALUES (1001, :'fp1',
	nddup_original_routed('rt_posts', '{fingerprint=fp,radius=3,action=error}', :'fp1'::simhash64,
						  1001::bigint, 'rt_keys'));
SELECT count(*) AS stored FROM rt_posts WHERE id = 1001;

-- min-hash sketches of the source text, verified by the texts' exact
-- resemblance: the key table keeps the verification value
CREATE TABLE rt_docs AS
SELECT g::bigint AS id, rtrim(regexp_replace(md5('a' || (g % 60)) || md5('b' || (g % 60)) || md5('c' || (g % 60)),
	'(....)', '\1 ', 'g')) || CASE WHEN g > 60 THEN ' w' || g ELSE '' END AS body
FROM generate_series(1, 200) g;
CREATE TABLE rt_mlocal (id bigint PRIMARY KEY, body text, duplicate_of bigint);
CREATE TRIGGER dedup BEFORE INSERT ON rt_mlocal FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('source=body', 'method=minhash', 'threshold=0.6', 'verify=0.5');
INSERT INTO rt_mlocal (id, body) SELECT id, body FROM rt_docs ORDER BY id;
CREATE TABLE rt_mposts (id bigint PRIMARY KEY, body text, duplicate_of bigint);
SELECT create_distributed_table('rt_mposts', 'id', shard_count => 8);
CREATE TABLE rt_mkeys (key bigint NOT NULL, id bigint NOT NULL, sig minhash_sketch NOT NULL, verify shingleset);
SELECT create_distributed_table('rt_mkeys', 'key', shard_count => 8);
DO $$
DECLARE
	r record;
BEGIN
	FOR r IN SELECT id, body FROM rt_docs ORDER BY id LOOP
		INSERT INTO rt_mposts VALUES (r.id, r.body,
			nddup_original_routed('rt_mposts', '{source=body,method=minhash,threshold=0.6,verify=0.5}',
								  r.body, r.id, 'rt_mkeys'));
	END LOOP;
END
$$;
SELECT count(*) AS rows, count(o.duplicate_of) AS duplicates,
	count(*) FILTER (WHERE l.duplicate_of IS DISTINCT FROM o.duplicate_of) AS differ
FROM rt_mlocal l JOIN (SELECT * FROM rt_mposts) o USING (id);

DROP TABLE rt_src, rt_local, rt_posts, rt_keys, rt_docs, rt_mlocal, rt_mposts, rt_mkeys;
DROP FUNCTION rt_tasks(simhash64);
