-- nddup install script, part 7.5: exact GIN indexes for the sketch types
-- (src/index/gin_sketch.c, docs/sketch-indexes.md).
--   minhash_lsh_ops  minhash_sketch: LSH bands; a % q, a <@ similar_to(q, t), similar(a, q, t)
--   shingleset_ops   shingleset: one key per hash; a && b, a % q, a <@ similar_to(q, t),
--                    a <@ containing(q, t), similar(a, q, t)
-- Every index answer equals a sequential scan of the same operator.

-------------------------------------------------------------------------------
-- query types: a threshold with the query sketch or set

CREATE TYPE @extschema@.minhash_query;
CREATE FUNCTION @extschema@.minhash_query_in(cstring) RETURNS @extschema@.minhash_query
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.minhash_query_out(@extschema@.minhash_query) RETURNS cstring
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE TYPE @extschema@.minhash_query (
	INPUT = @extschema@.minhash_query_in,
	OUTPUT = @extschema@.minhash_query_out,
	INTERNALLENGTH = VARIABLE,
	ALIGNMENT = double,
	STORAGE = extended
);
COMMENT ON TYPE @extschema@.minhash_query
	IS 'query of minhash_lsh_ops: a min-hash sketch and a resemblance threshold (similar_to)';

CREATE TYPE @extschema@.shingleset_query;
CREATE FUNCTION @extschema@.shingleset_query_in(cstring) RETURNS @extschema@.shingleset_query
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.shingleset_query_out(@extschema@.shingleset_query) RETURNS cstring
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE TYPE @extschema@.shingleset_query (
	INPUT = @extschema@.shingleset_query_in,
	OUTPUT = @extschema@.shingleset_query_out,
	INTERNALLENGTH = VARIABLE,
	ALIGNMENT = double,
	STORAGE = extended
);
COMMENT ON TYPE @extschema@.shingleset_query
	IS 'query of shingleset_ops: a shingle set and a Jaccard (similar_to) or containment (containing) threshold';

CREATE FUNCTION @extschema@.similar_to(query @extschema@.minhash_sketch, threshold double precision)
	RETURNS @extschema@.minhash_query
	AS 'MODULE_PATHNAME', 'minhash_similar_to' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.similar_to(@extschema@.minhash_sketch, double precision)
	IS 'sketches whose resemblance estimate with query is >= threshold: sketch <@ similar_to(query, t)';
CREATE FUNCTION @extschema@.similar_to(query @extschema@.shingleset, threshold double precision)
	RETURNS @extschema@.shingleset_query
	AS 'MODULE_PATHNAME', 'shingleset_similar_to' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.similar_to(@extschema@.shingleset, double precision)
	IS 'sets whose resemblance (or its estimate) with query is >= threshold: set <@ similar_to(query, t)';
CREATE FUNCTION @extschema@.containing(query @extschema@.shingleset, threshold double precision)
	RETURNS @extschema@.shingleset_query
	AS 'MODULE_PATHNAME', 'shingleset_containing' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.containing(@extschema@.shingleset, double precision)
	IS 'sets D with containment(query, D) >= threshold (D contains that share of query): set <@ containing(query, t)';

CREATE FUNCTION @extschema@.minhash_query_match(@extschema@.minhash_sketch, @extschema@.minhash_query)
	RETURNS boolean
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OPERATOR @extschema@.<@ (
	LEFTARG = @extschema@.minhash_sketch, RIGHTARG = @extschema@.minhash_query,
	FUNCTION = @extschema@.minhash_query_match,
	RESTRICT = pg_catalog.contsel, JOIN = pg_catalog.contjoinsel);
COMMENT ON OPERATOR @extschema@.<@ (@extschema@.minhash_sketch, @extschema@.minhash_query)
	IS 'resemblance estimate >= the query''s threshold';

CREATE FUNCTION @extschema@.shingleset_query_match(@extschema@.shingleset, @extschema@.shingleset_query)
	RETURNS boolean
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OPERATOR @extschema@.<@ (
	LEFTARG = @extschema@.shingleset, RIGHTARG = @extschema@.shingleset_query,
	FUNCTION = @extschema@.shingleset_query_match,
	RESTRICT = pg_catalog.contsel, JOIN = pg_catalog.contjoinsel);
COMMENT ON OPERATOR @extschema@.<@ (@extschema@.shingleset, @extschema@.shingleset_query)
	IS 'resemblance (similar_to) or containment of the query (containing) >= the query''s threshold';

CREATE FUNCTION @extschema@.shingleset_overlaps(@extschema@.shingleset, @extschema@.shingleset)
	RETURNS boolean
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OPERATOR @extschema@.&& (
	LEFTARG = @extschema@.shingleset, RIGHTARG = @extschema@.shingleset,
	FUNCTION = @extschema@.shingleset_overlaps,
	COMMUTATOR = OPERATOR(@extschema@.&&),
	RESTRICT = pg_catalog.contsel, JOIN = pg_catalog.contjoinsel);
COMMENT ON OPERATOR @extschema@.&& (@extschema@.shingleset, @extschema@.shingleset)
	IS 'the sets (or samples) share at least one shingle hash';

-------------------------------------------------------------------------------
-- minhash_lsh_ops

CREATE FUNCTION @extschema@.minhash_lsh_extract_value(@extschema@.minhash_sketch, internal, internal)
	RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.minhash_lsh_extract_query(@extschema@.minhash_sketch, internal, smallint,
	internal, internal, internal, internal)
	RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.minhash_lsh_compare_partial(bigint, bigint, smallint, internal)
	RETURNS integer
	AS 'MODULE_PATHNAME', 'sketch_gin_compare_partial' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.minhash_lsh_consistent(internal, smallint, @extschema@.minhash_sketch,
	integer, internal, internal, internal, internal)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'sketch_gin_consistent' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.minhash_lsh_triconsistent(internal, smallint, @extschema@.minhash_sketch,
	integer, internal, internal, internal)
	RETURNS pg_catalog."char"
	AS 'MODULE_PATHNAME', 'sketch_gin_triconsistent' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.minhash_lsh_options(internal)
	RETURNS void
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;

-- Options: bands and/or rows (b * r <= k), or threshold (default 0.3, the default of
-- nddup.similarity_threshold).
CREATE OPERATOR CLASS @extschema@.minhash_lsh_ops
	DEFAULT FOR TYPE @extschema@.minhash_sketch USING gin AS
	OPERATOR 1 @extschema@.% (@extschema@.minhash_sketch, @extschema@.minhash_sketch),
	OPERATOR 2 @extschema@.<@ (@extschema@.minhash_sketch, @extschema@.minhash_query),
	FUNCTION 2 @extschema@.minhash_lsh_extract_value(@extschema@.minhash_sketch, internal, internal),
	FUNCTION 3 @extschema@.minhash_lsh_extract_query(@extschema@.minhash_sketch, internal, smallint,
		internal, internal, internal, internal),
	FUNCTION 4 @extschema@.minhash_lsh_consistent(internal, smallint, @extschema@.minhash_sketch,
		integer, internal, internal, internal, internal),
	FUNCTION 5 @extschema@.minhash_lsh_compare_partial(bigint, bigint, smallint, internal),
	FUNCTION 6 @extschema@.minhash_lsh_triconsistent(internal, smallint, @extschema@.minhash_sketch,
		integer, internal, internal, internal),
	FUNCTION 7 @extschema@.minhash_lsh_options(internal),
	STORAGE bigint;
COMMENT ON OPERATOR CLASS @extschema@.minhash_lsh_ops USING gin
	IS 'exact resemblance-threshold search of min-hash sketches by LSH bands (a % q, a <@ similar_to(q, t))';

CREATE FUNCTION @extschema@.minhash_lsh_geometry(k integer, bits integer DEFAULT 32,
		threshold double precision DEFAULT 0.3,
		OUT bands integer, OUT rows integer, OUT min_equal integer,
		OUT false_positive_area double precision, OUT false_negative_area double precision)
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.minhash_lsh_geometry(integer, integer, double precision)
	IS 'bands and rows that minhash_lsh_ops(threshold = t) uses for sketches of k values of b bits';

-------------------------------------------------------------------------------
-- shingleset_ops

CREATE FUNCTION @extschema@.shingleset_gin_extract_value(@extschema@.shingleset, internal, internal)
	RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.shingleset_gin_extract_query(@extschema@.shingleset, internal, smallint,
	internal, internal, internal, internal)
	RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.shingleset_gin_compare_partial(bigint, bigint, smallint, internal)
	RETURNS integer
	AS 'MODULE_PATHNAME', 'sketch_gin_compare_partial' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.shingleset_gin_consistent(internal, smallint, @extschema@.shingleset,
	integer, internal, internal, internal, internal)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'sketch_gin_consistent' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.shingleset_gin_triconsistent(internal, smallint, @extschema@.shingleset,
	integer, internal, internal, internal)
	RETURNS pg_catalog."char"
	AS 'MODULE_PATHNAME', 'sketch_gin_triconsistent' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OPERATOR CLASS @extschema@.shingleset_ops
	DEFAULT FOR TYPE @extschema@.shingleset USING gin AS
	OPERATOR 1 @extschema@.% (@extschema@.shingleset, @extschema@.shingleset),
	OPERATOR 2 @extschema@.<@ (@extschema@.shingleset, @extschema@.shingleset_query),
	OPERATOR 3 @extschema@.&& (@extschema@.shingleset, @extschema@.shingleset),
	FUNCTION 2 @extschema@.shingleset_gin_extract_value(@extschema@.shingleset, internal, internal),
	FUNCTION 3 @extschema@.shingleset_gin_extract_query(@extschema@.shingleset, internal, smallint,
		internal, internal, internal, internal),
	FUNCTION 4 @extschema@.shingleset_gin_consistent(internal, smallint, @extschema@.shingleset,
		integer, internal, internal, internal, internal),
	FUNCTION 5 @extschema@.shingleset_gin_compare_partial(bigint, bigint, smallint, internal),
	FUNCTION 6 @extschema@.shingleset_gin_triconsistent(internal, smallint, @extschema@.shingleset,
		integer, internal, internal, internal),
	STORAGE bigint;
COMMENT ON OPERATOR CLASS @extschema@.shingleset_ops USING gin
	IS 'exact overlap, resemblance and containment search of shingle sets (&&, %, <@ similar_to, <@ containing)';

-------------------------------------------------------------------------------
-- planner support: similar(a, b, t) on an indexed column becomes a <@ similar_to(b, t)

CREATE FUNCTION @extschema@.sketch_similar_support(internal)
	RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
ALTER FUNCTION @extschema@.similar(@extschema@.minhash_sketch, @extschema@.minhash_sketch, double precision)
	SUPPORT @extschema@.sketch_similar_support;
ALTER FUNCTION @extschema@.similar(@extschema@.shingleset, @extschema@.shingleset, double precision)
	SUPPORT @extschema@.sketch_similar_support;
