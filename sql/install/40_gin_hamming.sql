-- nddup install script, part 4: exact Hamming-radius search with GIN
-- (simhash64_gin_ops, src/index/gin_hamming.c) and the planner support of
-- within() and <@ (src/index/hamming_query.c).  See docs/indexes.md.

-- GIN support functions
CREATE FUNCTION @extschema@.gin_hamming_extract_value(@extschema@.simhash64, internal, internal)
	RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.gin_hamming_extract_query(@extschema@.hamming_ball, internal, smallint,
	internal, internal, internal, internal)
	RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.gin_hamming_compare_partial(@extschema@.simhash64, @extschema@.simhash64,
	smallint, internal)
	RETURNS integer
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.gin_hamming_consistent(internal, smallint, @extschema@.hamming_ball,
	integer, internal, internal, internal, internal)
	RETURNS boolean
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.gin_hamming_triconsistent(internal, smallint, @extschema@.hamming_ball,
	integer, internal, internal, internal)
	RETURNS pg_catalog."char"
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.gin_hamming_options(internal)
	RETURNS void
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;

-- Options: blocks (2..8, default 4), layout ('full' default, or 'block').
CREATE OPERATOR CLASS @extschema@.simhash64_gin_ops
	DEFAULT FOR TYPE @extschema@.simhash64 USING gin AS
	OPERATOR 1 @extschema@.<@ (@extschema@.simhash64, @extschema@.hamming_ball),
	FUNCTION 1 @extschema@.simhash64_cmp(@extschema@.simhash64, @extschema@.simhash64),
	FUNCTION 2 @extschema@.gin_hamming_extract_value(@extschema@.simhash64, internal, internal),
	FUNCTION 3 @extschema@.gin_hamming_extract_query(@extschema@.hamming_ball, internal, smallint,
		internal, internal, internal, internal),
	FUNCTION 4 @extschema@.gin_hamming_consistent(internal, smallint, @extschema@.hamming_ball,
		integer, internal, internal, internal, internal),
	FUNCTION 5 @extschema@.gin_hamming_compare_partial(@extschema@.simhash64, @extschema@.simhash64,
		smallint, internal),
	FUNCTION 6 @extschema@.gin_hamming_triconsistent(internal, smallint, @extschema@.hamming_ball,
		integer, internal, internal, internal),
	FUNCTION 7 @extschema@.gin_hamming_options(internal),
	STORAGE @extschema@.simhash64;
COMMENT ON OPERATOR CLASS @extschema@.simhash64_gin_ops USING gin
	IS 'exact Hamming-radius search (fp <@ ball(q, r), within(fp, q, r)) by multi-index hashing';

-- Planner support: within(fp, q, k) is indexable as fp <@ ball(q, k).
CREATE FUNCTION @extschema@.hamming_within_radius(integer)
	RETURNS integer
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.hamming_within_radius(integer)
	IS 'radius of within() in an index condition: rejected like within() (and ball()) when outside 0..64';

CREATE FUNCTION @extschema@.hamming_within_support(internal)
	RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
ALTER FUNCTION @extschema@.within(@extschema@.simhash64, @extschema@.simhash64, integer)
	SUPPORT @extschema@.hamming_within_support;

CREATE FUNCTION @extschema@.hamming_ball_restrict(internal, oid, internal, integer)
	RETURNS double precision
	AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL SAFE;
ALTER OPERATOR @extschema@.<@ (@extschema@.simhash64, @extschema@.hamming_ball)
	SET (RESTRICT = @extschema@.hamming_ball_restrict);
