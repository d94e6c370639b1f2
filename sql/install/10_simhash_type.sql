-- nddup install script, part 1: the simhash64 type.
-- (The install script is the concatenation of sql/install/*.sql in name order.)

\echo Use "CREATE EXTENSION nddup" to load this file. \quit

CREATE TYPE @extschema@.simhash64;

CREATE FUNCTION @extschema@.simhash64_in(cstring) RETURNS @extschema@.simhash64
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash64_out(@extschema@.simhash64) RETURNS cstring
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash64_recv(internal) RETURNS @extschema@.simhash64
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash64_send(@extschema@.simhash64) RETURNS bytea
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE @extschema@.simhash64 (
	INPUT = @extschema@.simhash64_in,
	OUTPUT = @extschema@.simhash64_out,
	RECEIVE = @extschema@.simhash64_recv,
	SEND = @extschema@.simhash64_send,
	INTERNALLENGTH = 8,
	PASSEDBYVALUE,
	ALIGNMENT = double,
	STORAGE = plain
);
COMMENT ON TYPE @extschema@.simhash64 IS '64-bit simhash fingerprint (16 hex digits)';

-- comparison (unsigned order, the order of the hex text)
CREATE FUNCTION @extschema@.simhash64_eq(@extschema@.simhash64, @extschema@.simhash64) RETURNS boolean
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION @extschema@.simhash64_ne(@extschema@.simhash64, @extschema@.simhash64) RETURNS boolean
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION @extschema@.simhash64_lt(@extschema@.simhash64, @extschema@.simhash64) RETURNS boolean
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION @extschema@.simhash64_le(@extschema@.simhash64, @extschema@.simhash64) RETURNS boolean
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION @extschema@.simhash64_gt(@extschema@.simhash64, @extschema@.simhash64) RETURNS boolean
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION @extschema@.simhash64_ge(@extschema@.simhash64, @extschema@.simhash64) RETURNS boolean
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION @extschema@.simhash64_cmp(@extschema@.simhash64, @extschema@.simhash64) RETURNS integer
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION @extschema@.simhash64_hash(@extschema@.simhash64) RETURNS integer
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION @extschema@.simhash64_hash_extended(@extschema@.simhash64, bigint) RETURNS bigint
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;

CREATE OPERATOR @extschema@.= (
	LEFTARG = @extschema@.simhash64, RIGHTARG = @extschema@.simhash64,
	FUNCTION = @extschema@.simhash64_eq,
	COMMUTATOR = OPERATOR(@extschema@.=), NEGATOR = OPERATOR(@extschema@.<>),
	RESTRICT = pg_catalog.eqsel, JOIN = pg_catalog.eqjoinsel, HASHES, MERGES);
CREATE OPERATOR @extschema@.<> (
	LEFTARG = @extschema@.simhash64, RIGHTARG = @extschema@.simhash64,
	FUNCTION = @extschema@.simhash64_ne,
	COMMUTATOR = OPERATOR(@extschema@.<>), NEGATOR = OPERATOR(@extschema@.=),
	RESTRICT = pg_catalog.neqsel, JOIN = pg_catalog.neqjoinsel);
CREATE OPERATOR @extschema@.< (
	LEFTARG = @extschema@.simhash64, RIGHTARG = @extschema@.simhash64,
	FUNCTION = @extschema@.simhash64_lt,
	COMMUTATOR = OPERATOR(@extschema@.>), NEGATOR = OPERATOR(@extschema@.>=),
	RESTRICT = pg_catalog.scalarltsel, JOIN = pg_catalog.scalarltjoinsel);
CREATE OPERATOR @extschema@.<= (
	LEFTARG = @extschema@.simhash64, RIGHTARG = @extschema@.simhash64,
	FUNCTION = @extschema@.simhash64_le,
	COMMUTATOR = OPERATOR(@extschema@.>=), NEGATOR = OPERATOR(@extschema@.>),
	RESTRICT = pg_catalog.scalarlesel, JOIN = pg_catalog.scalarlejoinsel);
CREATE OPERATOR @extschema@.> (
	LEFTARG = @extschema@.simhash64, RIGHTARG = @extschema@.simhash64,
	FUNCTION = @extschema@.simhash64_gt,
	COMMUTATOR = OPERATOR(@extschema@.<), NEGATOR = OPERATOR(@extschema@.<=),
	RESTRICT = pg_catalog.scalargtsel, JOIN = pg_catalog.scalargtjoinsel);
CREATE OPERATOR @extschema@.>= (
	LEFTARG = @extschema@.simhash64, RIGHTARG = @extschema@.simhash64,
	FUNCTION = @extschema@.simhash64_ge,
	COMMUTATOR = OPERATOR(@extschema@.<=), NEGATOR = OPERATOR(@extschema@.<),
	RESTRICT = pg_catalog.scalargesel, JOIN = pg_catalog.scalargejoinsel);

CREATE OPERATOR CLASS @extschema@.simhash64_ops
	DEFAULT FOR TYPE @extschema@.simhash64 USING btree AS
	OPERATOR 1 @extschema@.<,
	OPERATOR 2 @extschema@.<=,
	OPERATOR 3 @extschema@.=,
	OPERATOR 4 @extschema@.>=,
	OPERATOR 5 @extschema@.>,
	FUNCTION 1 @extschema@.simhash64_cmp(@extschema@.simhash64, @extschema@.simhash64);

CREATE OPERATOR CLASS @extschema@.simhash64_ops
	DEFAULT FOR TYPE @extschema@.simhash64 USING hash AS
	OPERATOR 1 @extschema@.=,
	FUNCTION 1 @extschema@.simhash64_hash(@extschema@.simhash64),
	FUNCTION 2 @extschema@.simhash64_hash_extended(@extschema@.simhash64, bigint);

-- Hamming distance
CREATE FUNCTION @extschema@.hamming(@extschema@.simhash64, @extschema@.simhash64) RETURNS integer
	AS 'MODULE_PATHNAME', 'simhash64_hamming' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
COMMENT ON FUNCTION @extschema@.hamming(@extschema@.simhash64, @extschema@.simhash64)
	IS 'Hamming distance: the number of bits in which two fingerprints differ';

CREATE OPERATOR @extschema@.<-> (
	LEFTARG = @extschema@.simhash64, RIGHTARG = @extschema@.simhash64,
	FUNCTION = @extschema@.hamming,
	COMMUTATOR = OPERATOR(@extschema@.<->));

-- COST 9 (simhash64_in_ball: COST 6): the time a sequential scan spends on
-- it, in int4 comparisons, measured (docs/indexes.md, "The planner")
CREATE FUNCTION @extschema@.within(fp @extschema@.simhash64, query @extschema@.simhash64, radius integer) RETURNS boolean
	AS 'MODULE_PATHNAME', 'simhash64_within' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 9;
COMMENT ON FUNCTION @extschema@.within(@extschema@.simhash64, @extschema@.simhash64, integer)
	IS 'true when the fingerprints differ in at most radius bits';

-- casts that keep the bit pattern
CREATE CAST (@extschema@.simhash64 AS bigint) WITHOUT FUNCTION;
CREATE CAST (bigint AS @extschema@.simhash64) WITHOUT FUNCTION;

CREATE FUNCTION @extschema@.simhash64_to_bit(@extschema@.simhash64) RETURNS bit
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bit_to_simhash64(bit) RETURNS @extschema@.simhash64
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE CAST (@extschema@.simhash64 AS bit) WITH FUNCTION @extschema@.simhash64_to_bit(@extschema@.simhash64);
CREATE CAST (bit AS @extschema@.simhash64) WITH FUNCTION @extschema@.bit_to_simhash64(bit);

-- hamming_ball: the query operand "within radius bits of center"
CREATE TYPE @extschema@.hamming_ball;
CREATE FUNCTION @extschema@.hamming_ball_in(cstring) RETURNS @extschema@.hamming_ball
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.hamming_ball_out(@extschema@.hamming_ball) RETURNS cstring
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.hamming_ball_recv(internal) RETURNS @extschema@.hamming_ball
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.hamming_ball_send(@extschema@.hamming_ball) RETURNS bytea
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE TYPE @extschema@.hamming_ball (
	INPUT = @extschema@.hamming_ball_in,
	OUTPUT = @extschema@.hamming_ball_out,
	RECEIVE = @extschema@.hamming_ball_recv,
	SEND = @extschema@.hamming_ball_send,
	INTERNALLENGTH = 16,
	ALIGNMENT = double,
	STORAGE = plain
);
COMMENT ON TYPE @extschema@.hamming_ball IS 'query value: all fingerprints within a Hamming radius of a center';

CREATE FUNCTION @extschema@.ball(center @extschema@.simhash64, radius integer) RETURNS @extschema@.hamming_ball
	AS 'MODULE_PATHNAME', 'hamming_ball_make' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.center(@extschema@.hamming_ball) RETURNS @extschema@.simhash64
	AS 'MODULE_PATHNAME', 'hamming_ball_center' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.radius(@extschema@.hamming_ball) RETURNS integer
	AS 'MODULE_PATHNAME', 'hamming_ball_radius' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.simhash64_in_ball(@extschema@.simhash64, @extschema@.hamming_ball) RETURNS boolean
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 6;
CREATE OPERATOR @extschema@.<@ (
	LEFTARG = @extschema@.simhash64, RIGHTARG = @extschema@.hamming_ball,
	FUNCTION = @extschema@.simhash64_in_ball,
	RESTRICT = pg_catalog.contsel, JOIN = pg_catalog.contjoinsel);
COMMENT ON OPERATOR @extschema@.<@ (@extschema@.simhash64, @extschema@.hamming_ball)
	IS 'fingerprint lies within the ball (Hamming distance to its center at most its radius)';
