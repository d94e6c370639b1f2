-- nddup install script, part 9: scale-out (src/citus/keys.c,
-- src/citus/distributed.c).  See docs/scale-out.md.
--
-- Equi-join keys of near-duplicates: any two fingerprints within the radius
-- share a block key, any two sketches at or above the threshold share a band
-- key, and the pair functions name the one key a pair is reported under, so
-- that a self-join on equal keys (which Citus repartitions) finds every pair
-- exactly once.  The nddup_* functions are the worker side of the batch
-- functions on distributed tables; they are not meant to be called directly.

CREATE FUNCTION @extschema@.hamming_block_keys(fp @extschema@.simhash64, radius integer,
		blocks integer DEFAULT NULL) RETURNS bigint[]
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.hamming_block_keys(@extschema@.simhash64, integer, integer)
	IS 'block keys of a fingerprint: any two fingerprints within radius bits share one (blocks: radius + 1 by default)';

CREATE FUNCTION @extschema@.hamming_pair_key(fp1 @extschema@.simhash64, fp2 @extschema@.simhash64,
		radius integer, blocks integer DEFAULT NULL) RETURNS bigint
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.hamming_pair_key(@extschema@.simhash64, @extschema@.simhash64, integer, integer)
	IS 'the block key of the first block two fingerprints agree on, when they are within radius bits; else NULL';

CREATE FUNCTION @extschema@.minhash_band_keys(sketch @extschema@.minhash_sketch, threshold float8,
		bands bigint DEFAULT NULL, "rows" bigint DEFAULT NULL) RETURNS bigint[]
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.minhash_band_keys(@extschema@.minhash_sketch, float8, bigint, bigint)
	IS 'LSH band keys of a sketch: any two sketches whose estimated resemblance reaches threshold share one';

CREATE FUNCTION @extschema@.minhash_pair_band_key(a @extschema@.minhash_sketch, b @extschema@.minhash_sketch,
		threshold float8, bands bigint DEFAULT NULL, "rows" bigint DEFAULT NULL) RETURNS bigint
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.minhash_pair_band_key(@extschema@.minhash_sketch, @extschema@.minhash_sketch, float8, bigint, bigint)
	IS 'the band key of the first band two sketches are equal on, when their estimated resemblance reaches threshold; else NULL';

CREATE FUNCTION @extschema@.nddup_hamming_key_group(key bigint, fps @extschema@.simhash64[],
		sides smallint[], radius integer, blocks integer, mode integer)
	RETURNS TABLE (i integer, j integer, distance integer)
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.nddup_hamming_key_group(bigint, @extschema@.simhash64[], smallint[], integer, integer, integer)
	IS 'internal (distributed hamming_* functions): the pairs of one group of rows sharing a block key';

CREATE FUNCTION @extschema@.nddup_minhash_params(@extschema@.minhash_sketch) RETURNS bigint
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.nddup_minhash_params(@extschema@.minhash_sketch)
	IS 'internal (distributed minhash_* functions): the parameters of a sketch as a number';

CREATE FUNCTION @extschema@.nddup_row_key(shardid bigint, row_ctid tid) RETURNS bigint
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.nddup_row_key(bigint, tid)
	IS 'internal (distributed minhash_* functions): a number for a row of a shard';

-- simhash_agg with a state of its own type (not internal), so that Citus
-- aggregates it partially on the workers and sends the partial states
-- (their text form is exact).  The C functions are those of 0.1's
-- aggregate, whose state was internal.
CREATE TYPE @extschema@.simhash_agg_state;
CREATE FUNCTION @extschema@.simhash_agg_state_in(cstring) RETURNS @extschema@.simhash_agg_state
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash_agg_state_out(@extschema@.simhash_agg_state) RETURNS cstring
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash_agg_state_recv(internal) RETURNS @extschema@.simhash_agg_state
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash_agg_state_send(@extschema@.simhash_agg_state) RETURNS bytea
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE TYPE @extschema@.simhash_agg_state (
	INPUT = @extschema@.simhash_agg_state_in,
	OUTPUT = @extschema@.simhash_agg_state_out,
	RECEIVE = @extschema@.simhash_agg_state_recv,
	SEND = @extschema@.simhash_agg_state_send,
	INTERNALLENGTH = 520,
	ALIGNMENT = double,
	STORAGE = plain
);
COMMENT ON TYPE @extschema@.simhash_agg_state
	IS 'partial state of simhash_agg: the feature count and the 64 signed weight sums';

CREATE FUNCTION @extschema@.simhash_agg_transfn(@extschema@.simhash_agg_state, text, double precision)
	RETURNS @extschema@.simhash_agg_state
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash_agg_combinefn(@extschema@.simhash_agg_state, @extschema@.simhash_agg_state)
	RETURNS @extschema@.simhash_agg_state
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash_agg_finalfn(@extschema@.simhash_agg_state) RETURNS @extschema@.simhash64
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE @extschema@.simhash_agg(feature text, weight double precision) (
	SFUNC = @extschema@.simhash_agg_transfn,
	STYPE = @extschema@.simhash_agg_state,
	FINALFUNC = @extschema@.simhash_agg_finalfn,
	COMBINEFUNC = @extschema@.simhash_agg_combinefn,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE @extschema@.simhash_agg(text, double precision)
	IS 'Charikar simhash of the (feature, weight) rows';

-- Costs of the resemblance operators and functions, in integer comparisons
-- (COST 1): comparing two min-hash sketches of k = 128 costs about 30 of
-- them, two shingle sets of 40-word documents about 45 (measured in a
-- sequential scan, docs/scale-out.md#planner-costs).  With the default
-- COST 1 the planner took a scan that calls them on every row for cheaper
-- than the GIN index on tables (and shards) of a few thousand rows.
ALTER FUNCTION @extschema@.minhash_query_match(@extschema@.minhash_sketch, @extschema@.minhash_query) COST 25;
ALTER FUNCTION @extschema@.minhash_similar_op(@extschema@.minhash_sketch, @extschema@.minhash_sketch) COST 25;
ALTER FUNCTION @extschema@.similar(@extschema@.minhash_sketch, @extschema@.minhash_sketch, double precision) COST 25;
ALTER FUNCTION @extschema@.jaccard(@extschema@.minhash_sketch, @extschema@.minhash_sketch) COST 25;
ALTER FUNCTION @extschema@.minhash_distance(@extschema@.minhash_sketch, @extschema@.minhash_sketch) COST 25;
ALTER FUNCTION @extschema@.shingleset_query_match(@extschema@.shingleset, @extschema@.shingleset_query) COST 50;
ALTER FUNCTION @extschema@.shingleset_overlaps(@extschema@.shingleset, @extschema@.shingleset) COST 50;
ALTER FUNCTION @extschema@.shingleset_similar_op(@extschema@.shingleset, @extschema@.shingleset) COST 50;
ALTER FUNCTION @extschema@.similar(@extschema@.shingleset, @extschema@.shingleset, double precision) COST 50;
ALTER FUNCTION @extschema@.jaccard(@extschema@.shingleset, @extschema@.shingleset) COST 50;
ALTER FUNCTION @extschema@.containment(@extschema@.shingleset, @extschema@.shingleset) COST 50;
ALTER FUNCTION @extschema@.overlap(@extschema@.shingleset, @extschema@.shingleset) COST 50;
ALTER FUNCTION @extschema@.shingleset_distance(@extschema@.shingleset, @extschema@.shingleset) COST 50;

-- the insert-time check through the Citus coordinator (src/citus/trigger_citus.c)
CREATE FUNCTION @extschema@.nddup_original(rel regclass, args text[], value "any", id_type anyelement)
	RETURNS anyelement
	AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.nddup_original(regclass, text[], "any", anyelement)
	IS 'id of the earliest original near a row to insert, judged as nddup_dedup_trigger(args) would, under its locks; for INSERT ... VALUES through the Citus coordinator';
CREATE FUNCTION @extschema@.nddup_original(rel regclass, args text[], value "any", id_type anyelement, scope "any")
	RETURNS anyelement
	AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.nddup_original(regclass, text[], "any", anyelement, "any")
	IS 'id of the earliest original near a row to insert with the given scope value, judged as nddup_dedup_trigger(args) would';
