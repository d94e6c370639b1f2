--
-- nddup on Citus: every answer on a distributed table equals the answer on
-- the same table on one node (a local copy on the coordinator).
--
\set VERBOSITY terse
SET citus.shard_count = 8;
SET client_min_messages = warning;

-- which calls went distributed: the work tables they create
CREATE TABLE work_log (tag text);
CREATE FUNCTION log_work() RETURNS event_trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO work_log SELECT object_identity FROM pg_event_trigger_ddl_commands()
	WHERE command_tag = 'CREATE TABLE' AND object_identity LIKE '%nddup_work_%';
END
$$;
CREATE EVENT TRIGGER log_work ON ddl_command_end WHEN TAG IN ('CREATE TABLE') EXECUTE FUNCTION log_work();

-- the symmetric difference of two queries' rows (EXCEPT ALL: a row twice is
-- a difference), and whether the first one created work tables
CREATE FUNCTION sdiff(q1 text, q2 text, OUT differ bigint, OUT distributed boolean)
LANGUAGE plpgsql AS $$
BEGIN
	TRUNCATE work_log;
	EXECUTE format('SELECT count(*) FROM ((%s EXCEPT ALL %s) UNION ALL (%s EXCEPT ALL %s)) d', q1, q2, q2, q1)
		INTO differ;
	distributed := EXISTS (SELECT FROM work_log);
END
$$;

-- fingerprints: 2,500 md5 values, 700 planted variants, 60 copies, one
-- NULL; distributed by id, and by a tenant with repeated ids
CREATE TABLE bt_local (id bigint, fp simhash64, ord integer);
INSERT INTO bt_local SELECT g, ('x' || substr(md5('bt' || g), 1, 16))::bit(64)::bigint::simhash64, (g * 37) % 500
FROM generate_series(1, 2500) g;
CREATE FUNCTION flips(seed text, n integer) RETURNS bigint LANGUAGE sql IMMUTABLE AS $$
	SELECT bit_or(1::bigint << (get_byte(decode(md5(seed || '/' || i), 'hex'), 0) % 64))
	FROM generate_series(1, n) i $$;
INSERT INTO bt_local SELECT 100000 + g, (b.fp::bigint # flips('v' || g, 1 + g % 8))::simhash64,
	CASE WHEN g % 7 = 0 THEN NULL ELSE g % 300 END
FROM generate_series(1, 500) g JOIN bt_local b ON b.id = 1 + (g * 7) % 2500;
INSERT INTO bt_local SELECT 200000 + g, (b.fp::bigint # flips('w' || g, 1 + g % 5))::simhash64, g
FROM generate_series(1, 200) g JOIN bt_local b ON b.id = 100000 + 1 + (g * 3) % 500;
INSERT INTO bt_local SELECT 300000 + g, b.fp, -g FROM generate_series(1, 60) g JOIN bt_local b ON b.id = g * 41;
INSERT INTO bt_local VALUES (400001, NULL, 1);
CREATE TABLE bt (LIKE bt_local);
ALTER TABLE bt ADD PRIMARY KEY (id);
SELECT create_distributed_table('bt', 'id');
INSERT INTO bt SELECT * FROM bt_local;
CREATE INDEX ON bt USING gin (fp simhash64_gin_ops);
CREATE INDEX ON bt USING spgist (fp simhash64_spgist_ops);
CREATE INDEX ON bt_local USING gin (fp simhash64_gin_ops);
CREATE TABLE bt_t_local AS SELECT id % 7 AS tenant, id, fp, ord FROM bt_local
	UNION ALL SELECT 9, id, (fp::bigint # 1)::simhash64, ord - 1 FROM bt_local WHERE id % 50 = 0;
CREATE TABLE bt_t (LIKE bt_t_local);
SELECT create_distributed_table('bt_t', 'tenant', shard_count => 4);
INSERT INTO bt_t SELECT * FROM bt_t_local;
ANALYZE bt;
ANALYZE bt_local;

-- radius and nearest-n queries with the fingerprints of probe rows: the
-- distributed table's answers against the local table's
CREATE FUNCTION probe_diff(r integer, dist text DEFAULT 'bt', loc text DEFAULT 'bt_local',
	OUT probes bigint, OUT within_same bigint, OUT ball_same bigint, OUT nearest_same bigint)
LANGUAGE plpgsql AS $$
DECLARE
	p record;
	a bigint[];
	b bigint[];
BEGIN
	probes := 0; within_same := 0; ball_same := 0; nearest_same := 0;
	FOR p IN EXECUTE format('SELECT fp FROM %I WHERE id %% 97 = 0 AND fp IS NOT NULL ORDER BY id', loc) LOOP
		probes := probes + 1;
		EXECUTE format('SELECT array_agg(id ORDER BY id) FROM %I WHERE within(fp, %L, %s)', dist, p.fp, r) INTO a;
		EXECUTE format('SELECT array_agg(id ORDER BY id) FROM %I WHERE within(fp, %L, %s)', loc, p.fp, r) INTO b;
		within_same := within_same + (a IS NOT DISTINCT FROM b)::int;
		EXECUTE format('SELECT array_agg(id ORDER BY id) FROM %I WHERE fp <@ ball(%L, %s)', dist, p.fp, r) INTO a;
		ball_same := ball_same + (a IS NOT DISTINCT FROM b)::int;
		-- the n nearest (n = 10 + r): their distances, ties cut anywhere
		EXECUTE format('SELECT array_agg(d ORDER BY d) FROM (SELECT fp <-> %L AS d FROM %I WHERE fp IS NOT NULL ORDER BY fp <-> %L LIMIT %s) x',
					   p.fp, dist, p.fp, 10 + r) INTO a;
		EXECUTE format('SELECT array_agg(d ORDER BY d) FROM (SELECT fp <-> %L AS d FROM %I WHERE fp IS NOT NULL ORDER BY fp <-> %L LIMIT %s) x',
					   p.fp, loc, p.fp, 10 + r) INTO b;
		nearest_same := nearest_same + (a IS NOT DISTINCT FROM b)::int;
	END LOOP;
END
$$;
SELECT r, (probe_diff(r)).* FROM unnest(ARRAY[0, 3, 12]) r;

-- hamming pairs, joins and clusters: relation and query forms, by id and by
-- tenant (repeated ids), with and without an order column
SELECT r, (sdiff(format('SELECT * FROM hamming_pairs(%L, %s)', 'SELECT id, fp FROM bt', r),
				format('SELECT * FROM hamming_pairs(%L, %s)', 'SELECT id, fp FROM bt_local', r))).*
FROM unnest(ARRAY[0, 1, 3, 6, 12, 20]) r;
SELECT r, (sdiff(format('SELECT * FROM hamming_pairs(%L, %L, %L, %s)', 'bt_t', 'id', 'fp', r),
				format('SELECT * FROM hamming_pairs(%L, %L, %L, %s)', 'bt_t_local', 'id', 'fp', r))).*
FROM unnest(ARRAY[0, 3, 12]) r;
SELECT r, (sdiff(format('SELECT * FROM hamming_join(%L, %L, %s)', 'SELECT id, fp FROM bt WHERE id < 100300',
						'SELECT id, fp FROM bt_t WHERE id > 1000', r),
				format('SELECT * FROM hamming_join(%L, %L, %s)', 'SELECT id, fp FROM bt_local WHERE id < 100300',
						'SELECT id, fp FROM bt_t_local WHERE id > 1000', r))).*
FROM unnest(ARRAY[0, 3, 12]) r;
-- clusters, mode components: distributed
SELECT r, (sdiff(format('SELECT * FROM hamming_clusters(%L, %s, mode => %L)', 'SELECT id, fp, ord FROM bt', r, 'components'),
				format('SELECT * FROM hamming_clusters(%L, %s, mode => %L)', 'SELECT id, fp, ord FROM bt_local', r, 'components'))).*
FROM unnest(ARRAY[0, 3, 12]) r;
SELECT r, (sdiff(format('SELECT * FROM hamming_clusters(%L, %L, %L, %s, %L, false, mode => %L)', 'bt_t', 'id', 'fp', r, 'ord', 'components'),
				format('SELECT * FROM hamming_clusters(%L, %L, %L, %s, %L, false, mode => %L)', 'bt_t_local', 'id', 'fp', r, 'ord', 'components'))).*
FROM unnest(ARRAY[0, 3, 12]) r;
SELECT r, (sdiff(format('SELECT * FROM hamming_clusters(%L, %L, %L, %s, mode => %L)', 'bt_t', 'id', 'fp', r, 'components'),
				format('SELECT * FROM hamming_clusters(%L, %L, %L, %s, mode => %L)', 'bt_t_local', 'id', 'fp', r, 'components'))).*
FROM unnest(ARRAY[3, 12]) r;
-- clusters, the default mode greedy: on the coordinator, the one-node answer
SELECT r, (sdiff(format('SELECT * FROM hamming_clusters(%L, %s)', 'SELECT id, fp, ord FROM bt', r),
				format('SELECT * FROM hamming_clusters(%L, %s)', 'SELECT id, fp, ord FROM bt_local', r))).*
FROM unnest(ARRAY[0, 3, 12]) r;
SELECT r, (sdiff(format('SELECT * FROM hamming_clusters(%L, %L, %L, %s, %L, false)', 'bt_t', 'id', 'fp', r, 'ord'),
				format('SELECT * FROM hamming_clusters(%L, %L, %L, %s, %L, false)', 'bt_t_local', 'id', 'fp', r, 'ord'))).*
FROM unnest(ARRAY[0, 3, 12]) r;
SELECT r, (sdiff(format('SELECT * FROM hamming_clusters(%L, %L, %L, %s)', 'bt_t', 'id', 'fp', r),
				format('SELECT * FROM hamming_clusters(%L, %L, %L, %s)', 'bt_t_local', 'id', 'fp', r))).*
FROM unnest(ARRAY[3, 12]) r;
-- the two modes differ on this data (the comparisons above compare the modes asked for)
SELECT (sdiff('SELECT * FROM hamming_clusters(''bt'', ''id'', ''fp'', 12)',
			  'SELECT * FROM hamming_clusters(''bt_local'', ''id'', ''fp'', 12, mode => ''components'')')).differ > 0 AS modes_differ;
-- forced layouts: groups searched with the remaining tables on the workers
SELECT b, r, (sdiff(format('SELECT * FROM hamming_pairs(%L, %L, %L, %s)', 'bt', 'id', 'fp', r),
				   format('SELECT * FROM hamming_pairs(%L, %L, %L, %s)', 'bt_local', 'id', 'fp', r))).*
FROM (VALUES (5, 3), (7, 3), (9, 6), (16, 12), (22, 20)) v(b, r),
	LATERAL set_config('nddup.batch_blocks', b::text, false) s;
RESET nddup.batch_blocks;
-- a local table is answered locally
SELECT (sdiff('SELECT * FROM hamming_pairs(''bt_local'', ''id'', ''fp'', 3)',
			  'SELECT * FROM hamming_pairs(''SELECT id, fp FROM bt_local'', 3)')).*;

-- min-hash sketches: 1,000 documents, 300 variants, 40 copies, two empty
CREATE TABLE sp_words (id bigint, pos integer, word text);
INSERT INTO sp_words SELECT g, j, substr(md5('d' || g || '/' || j), 1, 6)
FROM generate_series(1, 1000) g, generate_series(1, 20 + g % 41) j;
INSERT INTO sp_words SELECT 10000 + g, w.pos,
	CASE WHEN w.pos % (8 + g % 30) = 3 THEN substr(md5('r' || g || '/' || w.pos), 1, 6) ELSE w.word END
FROM generate_series(1, 300) g JOIN sp_words w ON w.id = 1 + (g * 7) % 1000;
INSERT INTO sp_words SELECT 20000 + g, w.pos, w.word FROM generate_series(1, 40) g JOIN sp_words w ON w.id = g * 23;
CREATE TABLE sp_local AS SELECT id, string_agg(word, ' ' ORDER BY pos) AS body FROM sp_words GROUP BY id;
INSERT INTO sp_local VALUES (50001, ''), (50002, '!!');
ALTER TABLE sp_local ADD s minhash_sketch, ADD s8 minhash_sketch, ADD ord integer;
UPDATE sp_local SET s = minhash(body), ord = CASE WHEN id % 11 = 0 THEN NULL ELSE (id * 31) % 97 END;
UPDATE sp_local SET s8 = minhash_bbit(s, 8);
CREATE TABLE sp (LIKE sp_local);
ALTER TABLE sp ADD PRIMARY KEY (id);
SELECT create_distributed_table('sp', 'id');
INSERT INTO sp SELECT * FROM sp_local;
CREATE TABLE sp_t_local AS SELECT id % 5 AS tenant, * FROM sp_local UNION ALL SELECT 7, * FROM sp_local WHERE id % 97 = 0;
CREATE TABLE sp_t (LIKE sp_t_local);
SELECT create_distributed_table('sp_t', 'tenant', shard_count => 4);
INSERT INTO sp_t SELECT * FROM sp_t_local;
SELECT t, c, (sdiff(format('SELECT * FROM minhash_pairs(%L, %L, %L, %s)', 'sp', 'id', c, t),
				   format('SELECT * FROM minhash_pairs(%L, %L, %L, %s)', 'sp_local', 'id', c, t))).*
FROM unnest(ARRAY[0.5, 0.8, 1.0]) t, unnest(ARRAY['s', 's8']) c;
SELECT t, (sdiff(format('SELECT * FROM minhash_pairs(%L, %L, %L, %s)', 'sp_t', 'id', 's', t),
				format('SELECT * FROM minhash_pairs(%L, %L, %L, %s)', 'sp_t_local', 'id', 's', t))).*
FROM unnest(ARRAY[0.5, 0.8]) t;
-- clusters, mode components: distributed
SELECT t, (sdiff(format('SELECT * FROM minhash_clusters(%L, %L, %L, %s, %L, mode => %L)', 'sp', 'id', 's', t, 'ord', 'components'),
				format('SELECT * FROM minhash_clusters(%L, %L, %L, %s, %L, mode => %L)', 'sp_local', 'id', 's', t, 'ord', 'components'))).*
FROM unnest(ARRAY[0.5, 0.8]) t;
SELECT t, (sdiff(format('SELECT * FROM minhash_clusters(%L, %L, %L, %s, %L, singletons => false, mode => %L)', 'sp_t', 'id', 's', t, 'ord', 'components'),
				format('SELECT * FROM minhash_clusters(%L, %L, %L, %s, %L, singletons => false, mode => %L)', 'sp_t_local', 'id', 's', t, 'ord', 'components'))).*
FROM unnest(ARRAY[0.5, 0.8]) t;
-- clusters, the default mode greedy: on the coordinator, the one-node answer
SELECT t, (sdiff(format('SELECT * FROM minhash_clusters(%L, %L, %L, %s, %L)', 'sp', 'id', 's', t, 'ord'),
				format('SELECT * FROM minhash_clusters(%L, %L, %L, %s, %L)', 'sp_local', 'id', 's', t, 'ord'))).*
FROM unnest(ARRAY[0.5, 0.8]) t;
SELECT t, (sdiff(format('SELECT * FROM minhash_clusters(%L, %L, %L, %s, %L, singletons => false)', 'sp_t', 'id', 's', t, 'ord'),
				format('SELECT * FROM minhash_clusters(%L, %L, %L, %s, %L, singletons => false)', 'sp_t_local', 'id', 's', t, 'ord'))).*
FROM unnest(ARRAY[0.5, 0.8]) t;
SELECT (sdiff('SELECT * FROM minhash_pairs(''sp'', ''id'', ''s'', 0.7, 8, 16)',
			  'SELECT * FROM minhash_pairs(''sp_local'', ''id'', ''s'', 0.7, 8, 16)')).* AS approximate_layout;
-- threshold 0 and mixed parameters are answered locally (the same error)
SELECT (sdiff('SELECT * FROM minhash_pairs(''sp'', ''id'', ''s'', 0)',
			  'SELECT * FROM minhash_pairs(''sp_local'', ''id'', ''s'', 0)')).*;
UPDATE sp SET s8 = s WHERE id = 5;
SELECT count(*) FROM minhash_pairs('sp', 'id', 's8', 0.8);

-- aggregates: partial aggregation on the workers, the one-node value
CREATE TABLE feats (doc int, feature text, weight float8, body text);
SELECT create_distributed_table('feats', 'doc', shard_count => 4);
INSERT INTO feats SELECT g % 10, md5(g::text), (g % 7) - 3, 'word' || (g % 13) || ' word' || (g % 5) || ' x y'
FROM generate_series(1, 5000) g;
CREATE TABLE feats_local AS SELECT * FROM feats;
CREATE FUNCTION pushed_down(q text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
	line text;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (VERBOSE, COSTS OFF) ' || q LOOP
		IF line ~ 'worker_partial_agg' THEN
			RETURN true;
		END IF;
	END LOOP;
	RETURN false;
END
$$;
SELECT pushed_down('SELECT simhash_agg(feature, weight) FROM feats') AS simhash_agg,
	pushed_down('SELECT minhash_union(minhash(body, 16)) FROM feats') AS minhash_union,
	pushed_down('SELECT imatch_lexicon_agg(body) FROM feats') AS imatch_lexicon_agg,
	pushed_down('SELECT imatch_lexicon_agg(body, 0.2, 0.2) FROM feats') AS imatch_lexicon_agg_3;
SELECT (SELECT simhash_agg(feature, weight) FROM feats) = (SELECT simhash_agg(feature, weight) FROM feats_local) AS simhash_agg,
	(SELECT minhash_union(minhash(body, 16)) FROM feats) = (SELECT minhash_union(minhash(body, 16)) FROM feats_local) AS minhash_union,
	(SELECT imatch_lexicon_agg(body)::text FROM feats) = (SELECT imatch_lexicon_agg(body)::text FROM feats_local) AS imatch_lexicon_agg,
	(SELECT count(*) FROM (SELECT doc, simhash_agg(feature, weight) s FROM feats GROUP BY doc) a
	 JOIN (SELECT doc, simhash_agg(feature, weight) s FROM feats_local GROUP BY doc) b USING (doc)
	 WHERE a.s = b.s) AS groups_equal;

-- the trigger: refused on a shard unless scoped by the distribution column
SET citus.enable_unsafe_triggers = on;
CREATE TABLE posts (id bigserial, site integer, fp simhash64, duplicate_of bigint);
SELECT create_distributed_table('posts', 'id');
CREATE INDEX ON posts USING gin (fp simhash64_gin_ops);
CREATE TRIGGER dedup BEFORE INSERT ON posts FOR EACH ROW EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=fp', 'radius=3');
SELECT * FROM nddup_check_trigger('posts');
INSERT INTO posts (site, fp) VALUES (1, '0123456789abcdef');
SELECT count(*) FROM posts;
DROP TRIGGER dedup ON posts;
CREATE TABLE sposts (id bigserial, site integer, fp simhash64, duplicate_of bigint, PRIMARY KEY (site, id));
SELECT create_distributed_table('sposts', 'site');
CREATE INDEX ON sposts USING gin (fp simhash64_gin_ops);
SELECT * FROM nddup_check_trigger('sposts', '{fingerprint=fp,radius=3}');
CREATE TRIGGER dedup BEFORE INSERT ON sposts FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=fp', 'radius=3', 'scope=site');
SELECT * FROM nddup_check_trigger('sposts');
INSERT INTO sposts (site, fp) VALUES (1, '0123456789abcdef'), (1, '0123456789abcdee'), (2, '0123456789abcdee'),
	(1, 'f123456789abcdee'), (2, '0123456789abcdef');
SELECT site, fp, duplicate_of IS NOT NULL AS duplicate, duplicate_of = (SELECT min(id) FROM sposts s WHERE s.site = p.site) AS of_first
FROM sposts p ORDER BY id;
-- a reference table holds every row on every node: allowed
CREATE TABLE rposts (id bigserial PRIMARY KEY, fp simhash64, duplicate_of bigint);
SELECT create_reference_table('rposts');
CREATE INDEX ON rposts USING gin (fp simhash64_gin_ops);
CREATE TRIGGER dedup BEFORE INSERT ON rposts FOR EACH ROW EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=fp', 'radius=3');
INSERT INTO rposts (fp) VALUES ('0123456789abcdef'), ('0123456789abcdee');
SELECT fp, duplicate_of FROM rposts ORDER BY id;

-- the coordinator-side form: every shard, coordinator locks
INSERT INTO posts (site, fp, duplicate_of)
SELECT 1, v.fp::simhash64, nddup_original('posts', '{fingerprint=fp,radius=3}', v.fp::simhash64, NULL::bigint)
FROM (VALUES ('0123456789abcdef')) v(fp);
INSERT INTO posts (site, fp, duplicate_of)
VALUES (2, '0123456789abcdee', nddup_original('posts', '{fingerprint=fp,radius=3}', '0123456789abcdee'::simhash64, NULL::bigint));
INSERT INTO posts (site, fp, duplicate_of)
VALUES (3, 'f123456789abcdee', nddup_original('posts', '{fingerprint=fp,radius=3}', 'f123456789abcdee'::simhash64, NULL::bigint));
INSERT INTO posts (site, fp, duplicate_of)
VALUES (4, '0123456789abcdee', nddup_original('posts', '{fingerprint=fp,radius=3,scope=site}', '0123456789abcdee'::simhash64, NULL::bigint, 4));
SELECT site, fp, duplicate_of IS NOT NULL AS duplicate FROM posts ORDER BY id;
SELECT nddup_original('posts', '{fingerprint=fp,radius=3,action=error}', '0123456789abcdec'::simhash64, NULL::bigint) IS NULL;
-- with verify=: the candidates found on the shards are confirmed by the
-- texts' exact resemblance (the trigger's condition, in the distributed lookup)
CREATE TABLE vposts (id bigserial PRIMARY KEY, body text, fp simhash64, duplicate_of bigint);
SELECT create_distributed_table('vposts', 'id');
INSERT INTO vposts (body, fp, duplicate_of)
SELECT t, simhash(t), nddup_original('vposts', '{fingerprint=fp,source=body,radius=12,verify=0.3}', t, NULL::bigint)
FROM (VALUES ('Terminal locking program')) v(t);
INSERT INTO vposts (body, fp, duplicate_of)
SELECT t, simhash(t), nddup_original('vposts', '{fingerprint=fp,source=body,radius=12,verify=0.3}', t, NULL::bigint)
FROM (VALUES ('Perl pragma for subroutine signatures')) v(t);
INSERT INTO vposts (body, fp, duplicate_of)
SELECT t, simhash(t), nddup_original('vposts', '{fingerprint=fp,source=body,radius=12,verify=0.3}', t, NULL::bigint)
FROM (VALUES ('Perl pragma for subroutine signatures!')) v(t);
-- unverified, the first two are within the radius; verified, only the copy points at its text
SELECT nddup_original('vposts', '{fingerprint=fp,source=body,radius=12}', 'Perl pragma for subroutine signatures'::text, NULL::bigint) AS unverified;
SELECT id, body, duplicate_of FROM vposts ORDER BY id;


-- the hamming index on a distributed table: CREATE INDEX ... USING hamming
-- is propagated to every shard; within(), <@ ball() and ORDER BY <-> LIMIT
-- are pushed down and served by the shards' hamming indexes; the answers
-- equal those of the same rows on one node (no index: sequential scans),
-- also after inserts, deletes and VACUUM through the coordinator.
-- 4,000 md5 fingerprints, 1,000 variants 1 or 2 bits from one of them, 20
-- copies, one NULL
CREATE TABLE hx_local (id bigint, fp simhash64);
INSERT INTO hx_local SELECT g, ('x' || substr(md5('hx' || g), 1, 16))::bit(64)::bigint::simhash64
FROM generate_series(1, 4000) g;
INSERT INTO hx_local SELECT 10000 + g,
	(b.fp::bigint # (1::bigint << (g % 64)) # (CASE WHEN g % 3 = 0 THEN 1::bigint << ((g * 7 + 1) % 64) ELSE 0 END))::simhash64
FROM generate_series(1, 1000) g JOIN hx_local b ON b.id = 1 + (g * 13) % 4000;
INSERT INTO hx_local SELECT 20000 + g, b.fp FROM generate_series(1, 20) g JOIN hx_local b ON b.id = g * 97;
INSERT INTO hx_local VALUES (30001, NULL);
CREATE TABLE hx (LIKE hx_local);
ALTER TABLE hx ADD PRIMARY KEY (id);
SELECT create_distributed_table('hx', 'id', shard_count => 4);
INSERT INTO hx SELECT * FROM hx_local;
CREATE INDEX hx_fp ON hx USING hamming (fp);
ANALYZE hx;
-- one hamming index on every shard
SELECT count(*) AS shards, count(*) FILTER (WHERE result = '1') AS with_hamming_index
FROM run_command_on_shards('hx', $$SELECT count(*) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
	JOIN pg_am a ON a.oid = c.relam WHERE i.indrelid = '%s'::regclass AND a.amname = 'hamming'$$);
-- the scan and condition lines of the shards' plan (shard numbers removed)
CREATE FUNCTION shard_plan(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
	line text;
	in_task boolean := false;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
		in_task := in_task OR line ~ '->  Task$';
		CONTINUE WHEN NOT in_task OR line !~ '(Scan|Cond|Order By|Filter)';
		RETURN NEXT regexp_replace(trim(line), '_[0-9]{6,}', '_N', 'g');
	END LOOP;
END
$$;
SELECT shard_plan('SELECT id FROM hx WHERE within(fp, ''0123456789abcdef'', 3)');
SELECT shard_plan('SELECT id FROM hx WHERE fp <@ ball(''0123456789abcdef'', 3)');
SELECT shard_plan('SELECT id FROM hx ORDER BY fp <-> ''0123456789abcdef'' LIMIT 5');
-- a fingerprint from a subquery reaches the shards as a parameter
SELECT shard_plan('SELECT id FROM hx WHERE within(fp, (SELECT fp FROM hx WHERE id = 1), 3)');
SELECT r, (probe_diff(r, 'hx', 'hx_local')).*,
	(SELECT count(*) FROM hx_local p, hx_local q WHERE p.id % 97 = 0 AND within(q.fp, p.fp, r)) AS rows_found
FROM unnest(ARRAY[0, 2, 3, 8, 16]) r;
-- writes through the coordinator reach the shards' indexes
INSERT INTO hx SELECT 40000 + id, (fp::bigint # 4)::simhash64 FROM hx_local WHERE id % 50 = 0 AND fp IS NOT NULL;
INSERT INTO hx_local SELECT 40000 + id, (fp::bigint # 4)::simhash64 FROM hx_local WHERE id % 50 = 0 AND fp IS NOT NULL;
DELETE FROM hx WHERE id % 7 = 0;
DELETE FROM hx_local WHERE id % 7 = 0;
VACUUM hx;
SELECT r, (probe_diff(r, 'hx', 'hx_local')).*,
	(SELECT count(*) FROM hx_local p, hx_local q WHERE p.id % 97 = 0 AND within(q.fp, p.fp, r)) AS rows_found
FROM unnest(ARRAY[0, 3, 8]) r;
-- the live rows of the shards' indexes (sorted + appendix - dead) add up
-- to the table's rows
SELECT sum(result::bigint) AS rows_in_shard_indexes, (SELECT count(*) FROM hx) AS table_rows
FROM run_command_on_shards('hx', $$SELECT s.sorted_rows + s.appendix_rows - s.dead_rows
	FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam,
		hamming_index_stats(i.indexrelid) s
	WHERE i.indrelid = '%s'::regclass AND a.amname = 'hamming'$$);

-- the insert-time check with hamming indexes on the shards (the index the
-- trigger and nddup_original() prefer): scoped trigger on a table
-- distributed by the scope, nddup_original() across shards
CREATE TABLE hposts (id bigserial, site integer, fp simhash64, duplicate_of bigint, PRIMARY KEY (site, id));
SELECT create_distributed_table('hposts', 'site', shard_count => 4);
CREATE INDEX ON hposts USING hamming (fp);
CREATE TRIGGER dedup BEFORE INSERT ON hposts FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=fp', 'radius=3', 'scope=site');
SELECT * FROM nddup_check_trigger('hposts');
INSERT INTO hposts (site, fp) VALUES (1, '0123456789abcdef'), (1, '0123456789abcdee'), (2, '0123456789abcdee'),
	(1, 'f123456789abcdee'), (2, '0123456789abcdef'), (3, '0123456789abcde0');
SELECT site, fp, duplicate_of IS NOT NULL AS duplicate, duplicate_of = (SELECT min(id) FROM hposts s WHERE s.site = p.site) AS of_first
FROM hposts p ORDER BY id;
CREATE TABLE hdocs (id bigserial, fp simhash64, duplicate_of bigint);
SELECT create_distributed_table('hdocs', 'id', shard_count => 4);
CREATE INDEX ON hdocs USING hamming (fp);
INSERT INTO hdocs (fp, duplicate_of)
SELECT v.fp::simhash64, nddup_original('hdocs', '{fingerprint=fp,radius=3}', v.fp::simhash64, NULL::bigint)
FROM (VALUES ('0123456789abcdef')) v(fp);
INSERT INTO hdocs (fp, duplicate_of)
VALUES ('0123456789abcdee', nddup_original('hdocs', '{fingerprint=fp,radius=3}', '0123456789abcdee'::simhash64, NULL::bigint));
INSERT INTO hdocs (fp, duplicate_of)
VALUES ('f123456789abcdee', nddup_original('hdocs', '{fingerprint=fp,radius=3}', 'f123456789abcdee'::simhash64, NULL::bigint));
INSERT INTO hdocs (fp, duplicate_of)
VALUES ('0123456789abcde0', nddup_original('hdocs', '{fingerprint=fp,radius=3}', '0123456789abcde0'::simhash64, NULL::bigint));
SELECT fp, duplicate_of = (SELECT min(id) FROM hdocs) AS of_first, duplicate_of IS NULL AS original FROM hdocs ORDER BY id;

DROP EVENT TRIGGER log_work;
