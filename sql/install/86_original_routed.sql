-- the insert-time check through the Citus coordinator, routed by a key table
-- distributed by key (src/citus/original_routed.c, docs/scale-out.md)
CREATE FUNCTION @extschema@.nddup_original_routed(rel regclass, args text[], value "any", id anyelement, keys regclass)
	RETURNS anyelement
	AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.nddup_original_routed(regclass, text[], "any", anyelement, regclass)
	IS 'nddup_original() with the lookup read from a key table (key, id, sig) distributed by key: only the shards of the new row''s keys; stores the keys of a new original with its id';
