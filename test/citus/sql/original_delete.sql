--
-- Deleting originals of a table judged through nddup_original() or
-- nddup_original_routed() on Citus: the recipe of docs/scale-out.md
-- (the locks of the deleted row's signature, the delete, then its
-- duplicates judged again one by one by id) gives the graph of the
-- one-node AFTER DELETE trigger.
--
\set VERBOSITY terse
SET client_min_messages = warning;

-- 600 fingerprints: 200 bases, each row its base with one bit flipped,
-- every fifth row unrelated; a third of the bases have a second variant
-- 2 bits further (within 3 of some rows of the group, not all)
CREATE TABLE od_src AS
SELECT g::bigint AS id, CASE WHEN g % 5 = 0 THEN hashint8extended(g, 11)::simhash64
	WHEN g % 3 = 0 THEN (hashint8extended(1 + g % 200, 7) # (7::bigint << (g % 62)::int))::simhash64
	ELSE (hashint8extended(1 + g % 200, 7) # (1::bigint << (g % 64)::int))::simhash64 END AS fp
FROM generate_series(1, 600) g;

-- one node: the trigger and its AFTER DELETE repair
CREATE TABLE od_local (id bigint PRIMARY KEY, fp simhash64, duplicate_of bigint);
CREATE INDEX ON od_local USING gin (fp simhash64_gin_ops);
CREATE INDEX ON od_local (duplicate_of);
CREATE TRIGGER dedup BEFORE INSERT ON od_local FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=fp', 'radius=3');
CREATE TRIGGER dedup_graph AFTER DELETE OR UPDATE OF fp ON od_local FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=fp', 'radius=3');
INSERT INTO od_local (id, fp) SELECT id, fp FROM od_src ORDER BY id;

-- Citus: the same rows inserted through nddup_original(), and through
-- nddup_original_routed() with a key table
CREATE TABLE od_posts (id bigint PRIMARY KEY, fp simhash64, duplicate_of bigint);
SELECT create_distributed_table('od_posts', 'id', shard_count => 8);
CREATE INDEX ON od_posts USING gin (fp simhash64_gin_ops);
CREATE TABLE od_routed (id bigint PRIMARY KEY, fp simhash64, duplicate_of bigint);
SELECT create_distributed_table('od_routed', 'id', shard_count => 8);
CREATE TABLE od_routed_keys (key bigint NOT NULL, id bigint NOT NULL, sig simhash64 NOT NULL);
SELECT create_distributed_table('od_routed_keys', 'key', shard_count => 2);
CREATE INDEX ON od_routed_keys (key);
DO $$
DECLARE
	r record;
BEGIN
	FOR r IN SELECT id, fp FROM od_src ORDER BY id LOOP
		INSERT INTO od_posts VALUES (r.id, r.fp,
			nddup_original('od_posts', '{fingerprint=fp,radius=3}', r.fp, NULL::bigint));
		INSERT INTO od_routed VALUES (r.id, r.fp,
			nddup_original_routed('od_routed', '{fingerprint=fp,radius=3}', r.fp, r.id, 'od_routed_keys'));
	END LOOP;
END
$$;

-- the recipe (docs/scale-out.md, "Deletes and edits")
CREATE FUNCTION od_posts_delete(p_id bigint) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	v_fp simhash64;
	r record;
	v_original bigint;
BEGIN
	SELECT fp INTO v_fp FROM od_posts WHERE id = p_id;
	-- the locks an insert near the row takes, held to the end of the transaction
	PERFORM nddup_original('od_posts', '{fingerprint=fp,radius=3}', v_fp, NULL::bigint);
	DELETE FROM od_posts WHERE id = p_id;
	-- its duplicates, by id: each judged as an insert of it would be now
	FOR r IN SELECT id, fp FROM od_posts WHERE duplicate_of = p_id ORDER BY id LOOP
		v_original := nddup_original('od_posts', '{fingerprint=fp,radius=3}', r.fp, NULL::bigint);
		UPDATE od_posts SET duplicate_of = v_original WHERE id = r.id;
	END LOOP;
END
$$;
CREATE FUNCTION od_routed_delete(p_id bigint) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	v_fp simhash64;
	r record;
	v_original bigint;
BEGIN
	SELECT fp INTO v_fp FROM od_routed WHERE id = p_id;
	-- the locks, while the row's keys are still stored (it finds an original: stores nothing)
	PERFORM nddup_original_routed('od_routed', '{fingerprint=fp,radius=3}', v_fp, p_id, 'od_routed_keys');
	DELETE FROM od_routed_keys WHERE id = p_id;
	DELETE FROM od_routed WHERE id = p_id;
	-- its duplicates, by id: one that finds no original stores its keys
	FOR r IN SELECT id, fp FROM od_routed WHERE duplicate_of = p_id ORDER BY id LOOP
		v_original := nddup_original_routed('od_routed', '{fingerprint=fp,radius=3}', r.fp, r.id, 'od_routed_keys');
		UPDATE od_routed SET duplicate_of = v_original WHERE id = r.id;
	END LOOP;
END
$$;

SELECT count(*) AS rows, count(o.duplicate_of) AS duplicates,
	count(*) FILTER (WHERE l.duplicate_of IS DISTINCT FROM o.duplicate_of) AS differ,
	count(*) FILTER (WHERE l.duplicate_of IS DISTINCT FROM r.duplicate_of) AS differ_routed
FROM od_local l JOIN (SELECT * FROM od_posts) o USING (id) JOIN (SELECT * FROM od_routed) r USING (id);

-- delete every original of 40 groups with duplicates, one at a time, in
-- the same order on one node and on Citus
CREATE TABLE od_victims AS
SELECT id, row_number() OVER (ORDER BY (id * 7919) % 1009) AS n FROM od_local o
WHERE duplicate_of IS NULL AND EXISTS (SELECT FROM od_local d WHERE d.duplicate_of = o.id)
ORDER BY (id * 7919) % 1009 LIMIT 40;
CREATE TABLE od_before AS SELECT id, duplicate_of FROM od_local;
DO $$
DECLARE
	v bigint;
BEGIN
	FOR v IN SELECT id FROM od_victims ORDER BY n LOOP
		DELETE FROM od_local WHERE id = v;
		PERFORM od_posts_delete(v);
		PERFORM od_routed_delete(v);
	END LOOP;
END
$$;
SELECT count(*) AS deleted, count(*) FILTER (WHERE b.duplicate_of IS NULL) AS originals_when_chosen
FROM od_victims v JOIN od_before b USING (id);
-- what the repairs changed on one node: duplicates that became originals,
-- duplicates that point at another original
SELECT count(*) FILTER (WHERE l.duplicate_of IS NULL) AS became_originals,
	count(*) FILTER (WHERE l.duplicate_of IS NOT NULL) AS re_pointed
FROM od_local l JOIN od_before b USING (id) WHERE l.duplicate_of IS DISTINCT FROM b.duplicate_of;
SELECT count(*) AS rows, count(o.duplicate_of) AS duplicates,
	count(*) FILTER (WHERE l.duplicate_of IS DISTINCT FROM o.duplicate_of) AS differ,
	count(*) FILTER (WHERE l.duplicate_of IS DISTINCT FROM r.duplicate_of) AS differ_routed
FROM od_local l FULL JOIN (SELECT * FROM od_posts) o USING (id) FULL JOIN (SELECT * FROM od_routed) r USING (id);
-- the properties: no dangling or chained duplicate_of, every duplicate
-- within the radius of its original, no two originals within it
CREATE TEMP TABLE od_after AS SELECT * FROM od_posts;
SELECT count(*) FILTER (WHERE o.id IS NULL OR o.duplicate_of IS NOT NULL) AS dangling_or_chained,
	count(*) FILTER (WHERE o.id IS NOT NULL AND NOT within(d.fp, o.fp, 3)) AS not_matching
FROM od_after d LEFT JOIN od_after o ON o.id = d.duplicate_of WHERE d.duplicate_of IS NOT NULL;
SELECT count(*) AS originals_matching_originals
FROM od_after a JOIN od_after b ON a.id < b.id AND within(a.fp, b.fp, 3)
WHERE a.duplicate_of IS NULL AND b.duplicate_of IS NULL;
-- the key table: exactly the block keys of the routed table's originals
SELECT count(*) AS differ FROM (
	(SELECT key, id FROM od_routed_keys
	 EXCEPT ALL SELECT k, id FROM (SELECT * FROM od_routed) r, unnest(hamming_block_keys(fp, 3)) k WHERE duplicate_of IS NULL)
	UNION ALL
	(SELECT k, id FROM (SELECT * FROM od_routed) r, unnest(hamming_block_keys(fp, 3)) k WHERE duplicate_of IS NULL
	 EXCEPT ALL SELECT key, id FROM od_routed_keys)) s;
