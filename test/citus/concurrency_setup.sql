-- Tables of the concurrency test (test/citus/run.sh): near-duplicates are
-- inserted through the coordinator by 8 pgbench clients.
SET citus.enable_unsafe_triggers = on;
SET client_min_messages = warning;
DROP TABLE IF EXISTS cposts, csposts, crposts, crposts_keys;
-- distributed by id: nddup_original() in the INSERT
CREATE TABLE cposts (id bigserial PRIMARY KEY, base integer, fp simhash64, duplicate_of bigint);
SELECT create_distributed_table('cposts', 'id');
CREATE INDEX ON cposts USING gin (fp simhash64_gin_ops);
-- distributed by id: nddup_original_routed() in the INSERT, its key table
-- distributed by key, one shard per worker
CREATE TABLE crposts (id bigserial PRIMARY KEY, base integer, fp simhash64, duplicate_of bigint);
SELECT create_distributed_table('crposts', 'id');
CREATE TABLE crposts_keys (key bigint NOT NULL, id bigint NOT NULL, sig simhash64 NOT NULL);
SELECT create_distributed_table('crposts_keys', 'key', shard_count => 2);
CREATE INDEX ON crposts_keys (key);
-- distributed by site: the trigger scoped by site, on the shards
CREATE TABLE csposts (id bigserial, site integer, base integer, fp simhash64, duplicate_of bigint,
	PRIMARY KEY (site, id));
SELECT create_distributed_table('csposts', 'site');
CREATE INDEX ON csposts USING gin (fp simhash64_gin_ops);
CREATE TRIGGER dedup BEFORE INSERT ON csposts FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=fp', 'radius=3', 'scope=site');
