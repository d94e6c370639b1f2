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
-- nddup install script, part 2: the text pipeline (docs/text-pipeline.md).

CREATE FUNCTION @extschema@.normalize_text(doc text) RETURNS text
	AS 'MODULE_PATHNAME', 'normalize_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.normalize_text(text)
	IS 'text without markup, NFKC, case folded, words separated by single spaces';

CREATE FUNCTION @extschema@.tokens(doc text) RETURNS text[]
	AS 'MODULE_PATHNAME', 'tokens_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.tokens(text)
	IS 'tokens of the normalized text (ideographs and kana one per character)';

CREATE FUNCTION @extschema@.shingles(doc text, size integer DEFAULT 3, unit text DEFAULT 'word')
	RETURNS bigint[]
	AS 'MODULE_PATHNAME', 'shingles_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.shingles(text, integer, text)
	IS '64-bit hashes of the normalized text''s w-shingles, in order, repeats kept';

CREATE FUNCTION @extschema@.nddup_unicode_version() RETURNS text
	AS 'MODULE_PATHNAME', 'unicode_version_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.nddup_unicode_version()
	IS 'Unicode version of the normalization tables';
-- nddup install script, part 3: simhash constructors.

CREATE FUNCTION @extschema@.simhash(doc text, size integer DEFAULT 2, unit text DEFAULT 'word',
		weighting text DEFAULT 'tf') RETURNS @extschema@.simhash64
	AS 'MODULE_PATHNAME', 'simhash_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.simhash(text, integer, text, text)
	IS 'Charikar simhash of the normalized text''s w-shingles';

CREATE FUNCTION @extschema@.simhash(features text[]) RETURNS @extschema@.simhash64
	AS 'MODULE_PATHNAME', 'simhash_features' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.simhash(text[])
	IS 'Charikar simhash of features, each of weight 1';

CREATE FUNCTION @extschema@.simhash(features text[], weights real[]) RETURNS @extschema@.simhash64
	AS 'MODULE_PATHNAME', 'simhash_weighted_features' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.simhash(text[], real[])
	IS 'Charikar simhash of weighted features';

CREATE FUNCTION @extschema@.simhash(doc tsvector) RETURNS @extschema@.simhash64
	AS 'MODULE_PATHNAME', 'simhash_tsvector' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.simhash(tsvector)
	IS 'Charikar simhash of the lexemes, weighted by their frequency';

CREATE FUNCTION @extschema@.simhash_agg_transfn(internal, text, double precision) RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash_agg_combinefn(internal, internal) RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash_agg_serialfn(internal) RETURNS bytea
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash_agg_deserialfn(bytea, internal) RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash_agg_finalfn(internal) RETURNS @extschema@.simhash64
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE @extschema@.simhash_agg(feature text, weight double precision) (
	SFUNC = @extschema@.simhash_agg_transfn,
	STYPE = internal,
	FINALFUNC = @extschema@.simhash_agg_finalfn,
	COMBINEFUNC = @extschema@.simhash_agg_combinefn,
	SERIALFUNC = @extschema@.simhash_agg_serialfn,
	DESERIALFUNC = @extschema@.simhash_agg_deserialfn,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE @extschema@.simhash_agg(text, double precision)
	IS 'Charikar simhash of the (feature, weight) rows';
-- nddup install script, part 4: exact Hamming-radius search with GIN
-- (simhash64_gin_ops, src/gin_hamming.c) and the planner support of
-- within() and <@ (src/hamming_query.c).  See docs/indexes.md.

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
	IS 'radius of within() in an index condition: rejected like within() when negative, clamped to 64';

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
-- nddup install script, part 5: SP-GiST radix trie for nearest-neighbour
-- (ORDER BY fp <-> q) and Hamming-ball (fp <@ ball(q, k)) search.

CREATE FUNCTION @extschema@.simhash64_spg_config(internal, internal) RETURNS void
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash64_spg_choose(internal, internal) RETURNS void
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash64_spg_picksplit(internal, internal) RETURNS void
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash64_spg_inner_consistent(internal, internal) RETURNS void
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash64_spg_leaf_consistent(internal, internal) RETURNS boolean
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- Strategy numbers: 1 = <@ hamming_ball, 3 = equality, 15 = <-> (ordering).
CREATE OPERATOR CLASS @extschema@.simhash64_spgist_ops
	DEFAULT FOR TYPE @extschema@.simhash64 USING spgist AS
	OPERATOR 1 @extschema@.<@ (@extschema@.simhash64, @extschema@.hamming_ball),
	OPERATOR 3 @extschema@.= (@extschema@.simhash64, @extschema@.simhash64),
	OPERATOR 15 @extschema@.<-> (@extschema@.simhash64, @extschema@.simhash64)
		FOR ORDER BY pg_catalog.integer_ops,
	FUNCTION 1 @extschema@.simhash64_spg_config(internal, internal),
	FUNCTION 2 @extschema@.simhash64_spg_choose(internal, internal),
	FUNCTION 3 @extschema@.simhash64_spg_picksplit(internal, internal),
	FUNCTION 4 @extschema@.simhash64_spg_inner_consistent(internal, internal),
	FUNCTION 5 @extschema@.simhash64_spg_leaf_consistent(internal, internal);
COMMENT ON OPERATOR CLASS @extschema@.simhash64_spgist_ops USING spgist
	IS 'radix trie on nibbles: exact ORDER BY fp <-> q and fp <@ ball(q, k)';
-- nddup install script: exact nearest-n by expanding radius.

-- The n fingerprints nearest to query, exactly: radius searches of growing
-- radius (served by a simhash64_gin_ops or simhash64_spgist_ops index when
-- there is one) until one returns at least n rows; the n nearest rows all
-- lie within that radius, so ordering it by (distance, id) is exact.  Up to
-- radius 16 the index is forced (GIN's cost model overrates probes of cached
-- pages); beyond, one scan of the whole table ranks every row.  OFFSET 0
-- keeps the radius search a radius search: without it an SP-GiST index
-- could serve the ORDER BY as a (slower) ordered scan.
CREATE FUNCTION @extschema@.hamming_nearest(rel regclass, id_column name, fp_column name,
		query @extschema@.simhash64, n integer)
	RETURNS TABLE (id bigint, distance integer)
	LANGUAGE plpgsql STABLE STRICT
	SET search_path = pg_catalog, pg_temp
	SET enable_seqscan = off
AS $$
DECLARE
	radius integer;
	ids bigint[];
	distances integer[];
BEGIN
	IF NOT EXISTS (SELECT FROM pg_class WHERE oid = rel) THEN
		RAISE EXCEPTION 'relation with OID % does not exist', rel::oid
			USING ERRCODE = '42P01';
	END IF;
	IF n < 1 THEN
		RAISE EXCEPTION 'number of neighbours % is out of range', n
			USING ERRCODE = '22023', HINT = 'Ask for at least one neighbour.';
	END IF;
	FOREACH radius IN ARRAY ARRAY[0, 2, 4, 6, 8, 10, 12, 14, 16, 64] LOOP
		IF radius = 64 THEN
			PERFORM set_config('enable_seqscan', 'on', true);
		END IF;
		EXECUTE format(
			'SELECT array_agg(i ORDER BY d, i), array_agg(d ORDER BY d, i) FROM ('
			'SELECT i, d FROM (SELECT %I::bigint AS i, %I OPERATOR(@extschema@.<->) $1 AS d FROM %s '
			'WHERE %I OPERATOR(@extschema@.<@) @extschema@.ball($1, $2) OFFSET 0) r '
			'ORDER BY d, i LIMIT $3) s',
			id_column, fp_column, rel, fp_column)
			INTO ids, distances USING query, radius, n;
		IF coalesce(cardinality(ids), 0) >= n OR radius = 64 THEN
			RETURN QUERY SELECT * FROM unnest(ids, distances);
			RETURN;
		END IF;
	END LOOP;
END
$$;
COMMENT ON FUNCTION @extschema@.hamming_nearest(regclass, name, name, @extschema@.simhash64, integer)
	IS 'the n rows whose fingerprints are nearest to query (exact; ties by id)';
-- nddup install script, part 6: batch near-duplicate detection
-- (src/batch.c): all pairs within a Hamming radius, similarity joins,
-- clustering and incremental cluster assignment.  See docs/batch.md.
--
-- The inputs are query texts run with the caller's privileges, so these
-- functions are VOLATILE and PARALLEL UNSAFE.  Settings read at call time:
-- nddup.progress (on: a NOTICE every 10 %) and nddup.batch_blocks (force the
-- number of blocks of the permuted tables; 0 or unset: cost model).

CREATE FUNCTION @extschema@.hamming_pairs(query text, radius integer)
	RETURNS TABLE (id1 bigint, id2 bigint, distance integer)
	AS 'MODULE_PATHNAME', 'hamming_pairs_query'
	LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.hamming_pairs(text, integer)
	IS 'all pairs of rows of a query (id, simhash64) whose fingerprints differ in at most radius bits';

CREATE FUNCTION @extschema@.hamming_pairs(rel regclass, id_column name, fp_column name, radius integer)
	RETURNS TABLE (id1 bigint, id2 bigint, distance integer)
	AS 'MODULE_PATHNAME', 'hamming_pairs_rel'
	LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.hamming_pairs(regclass, name, name, integer)
	IS 'all pairs of rows of a relation whose fingerprints differ in at most radius bits';

CREATE FUNCTION @extschema@.hamming_join(query_a text, query_b text, radius integer)
	RETURNS TABLE (id_a bigint, id_b bigint, distance integer)
	AS 'MODULE_PATHNAME', 'hamming_join_query'
	LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.hamming_join(text, text, integer)
	IS 'similarity join: pairs (a, b) of rows of two queries (id, simhash64) within radius bits';

CREATE FUNCTION @extschema@.hamming_clusters(query text, radius integer, singletons boolean DEFAULT true)
	RETURNS TABLE (id bigint, cluster_id bigint)
	AS 'MODULE_PATHNAME', 'hamming_clusters_query'
	LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.hamming_clusters(text, integer, boolean)
	IS 'connected components of the within-radius graph of a query (id, simhash64[, order key]); cluster_id is the earliest member';

CREATE FUNCTION @extschema@.hamming_clusters(rel regclass, id_column name, fp_column name, radius integer,
	order_column name DEFAULT NULL, singletons boolean DEFAULT true)
	RETURNS TABLE (id bigint, cluster_id bigint)
	AS 'MODULE_PATHNAME', 'hamming_clusters_rel'
	LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.hamming_clusters(regclass, name, name, integer, name, boolean)
	IS 'connected components of the within-radius graph of a relation; cluster_id is the earliest member by order_column, else the smallest id';

CREATE FUNCTION @extschema@.clusters_from_pairs(query text, singletons boolean DEFAULT true)
	RETURNS TABLE (id bigint, cluster_id bigint)
	AS 'MODULE_PATHNAME', 'hamming_clusters_from_pairs'
	LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.clusters_from_pairs(text, boolean)
	IS 'connected components of the graph of a query''s (id1, id2) pairs; cluster_id is the smallest id';

CREATE FUNCTION @extschema@.hamming_assign(new_query text, existing_query text, radius integer)
	RETURNS TABLE (id bigint, cluster_id bigint)
	AS 'MODULE_PATHNAME', 'hamming_assign_query'
	LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.hamming_assign(text, text, integer)
	IS 'cluster of each new row (id, simhash64[, order key]) given existing rows (id, simhash64, cluster_id)';
-- nddup install script, part 6b: batch near-duplicate detection over
-- resemblance sketches (src/batch_sketch.c): all pairs of min-hash sketches
-- above a resemblance threshold (LSH bands, exact by default), the
-- similarity join of two sets, clusters, and all pairs of documents sharing
-- at least r super-shingles.  See docs/batch-sketches.md.
--
-- The inputs are query texts run with the caller's privileges, so these
-- functions are VOLATILE and PARALLEL UNSAFE.  The optional arguments may be
-- NULL (choose), so the min-hash functions are not STRICT: a NULL query or
-- threshold returns no rows.  bands and rows are bigint (the functions take
-- 1 to 1024) so that a relation form called with an integer threshold,
-- minhash_pairs('docs', 'id', 'sk', 1), is not taken for the query form.
-- The minhash_sketch type is looked up when a
-- function runs (it is created by a later part of this script).

CREATE FUNCTION @extschema@.minhash_pairs(query text, threshold float8,
	bands bigint DEFAULT NULL, "rows" bigint DEFAULT NULL)
	RETURNS TABLE (id1 bigint, id2 bigint, resemblance float8)
	AS 'MODULE_PATHNAME', 'minhash_pairs_query'
	LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.minhash_pairs(text, float8, bigint, bigint)
	IS 'all pairs of rows of a query (id, minhash_sketch) whose estimated resemblance is at least threshold';

CREATE FUNCTION @extschema@.minhash_pairs(rel regclass, id_column name, sketch_column name,
	threshold float8, bands bigint DEFAULT NULL, "rows" bigint DEFAULT NULL)
	RETURNS TABLE (id1 bigint, id2 bigint, resemblance float8)
	AS 'MODULE_PATHNAME', 'minhash_pairs_rel'
	LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.minhash_pairs(regclass, name, name, float8, bigint, bigint)
	IS 'all pairs of rows of a relation whose min-hash sketches'' estimated resemblance is at least threshold';

CREATE FUNCTION @extschema@.minhash_join(query_a text, query_b text, threshold float8,
	bands bigint DEFAULT NULL, "rows" bigint DEFAULT NULL)
	RETURNS TABLE (id_a bigint, id_b bigint, resemblance float8)
	AS 'MODULE_PATHNAME', 'minhash_join_query'
	LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.minhash_join(text, text, float8, bigint, bigint)
	IS 'similarity join: pairs (a, b) of rows of two queries (id, minhash_sketch) with estimated resemblance at least threshold';

CREATE FUNCTION @extschema@.minhash_clusters(query text, threshold float8,
	bands bigint DEFAULT NULL, "rows" bigint DEFAULT NULL, singletons boolean DEFAULT true)
	RETURNS TABLE (id bigint, cluster_id bigint)
	AS 'MODULE_PATHNAME', 'minhash_clusters_query'
	LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.minhash_clusters(text, float8, bigint, bigint, boolean)
	IS 'connected components of the resemblance >= threshold graph of a query (id, minhash_sketch[, order key]); cluster_id is the earliest member';

CREATE FUNCTION @extschema@.minhash_clusters(rel regclass, id_column name, sketch_column name,
	threshold float8, order_column name DEFAULT NULL, singletons boolean DEFAULT true)
	RETURNS TABLE (id bigint, cluster_id bigint)
	AS 'MODULE_PATHNAME', 'minhash_clusters_rel'
	LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.minhash_clusters(regclass, name, name, float8, name, boolean)
	IS 'connected components of the resemblance >= threshold graph of a relation; cluster_id is the earliest member by order_column, else the smallest id';

CREATE FUNCTION @extschema@.super_shingle_pairs(query text, r integer DEFAULT 2)
	RETURNS TABLE (id1 bigint, id2 bigint, matches integer)
	AS 'MODULE_PATHNAME', 'super_shingle_pairs_query'
	LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.super_shingle_pairs(text, integer)
	IS 'all pairs of rows of a query (id, super-shingles bigint[]) with at least r equal super-shingles at the same positions';
-- nddup install script, part 7: resemblance sketches (docs/sketches.md).
--   shingleset: exact shingle sets S(D), Broder's bottom-s F(D) and mod-m V(D)
--   minhash_sketch: k-permutation / one-permutation (densified) min-hash, b-bit form,
--               union aggregate, super-shingles
--   imatch_lexicon: I-Match lexicons and signatures (uuid)
-- Operators, the same for every sketch type:
--   a % b    resemblance >= nddup.similarity_threshold (GUC, default 0.3)
--   a <-> b  resemblance distance 1 - r (float8; ORDER BY a <-> b)
--   similar(a, b, threshold)  the % test with the threshold as an argument

-------------------------------------------------------------------------------
-- shingleset

CREATE TYPE @extschema@.shingleset;

CREATE FUNCTION @extschema@.shingleset_in(cstring) RETURNS @extschema@.shingleset
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.shingleset_out(@extschema@.shingleset) RETURNS cstring
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.shingleset_recv(internal) RETURNS @extschema@.shingleset
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.shingleset_send(@extschema@.shingleset) RETURNS bytea
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE @extschema@.shingleset (
	INPUT = @extschema@.shingleset_in,
	OUTPUT = @extschema@.shingleset_out,
	RECEIVE = @extschema@.shingleset_recv,
	SEND = @extschema@.shingleset_send,
	INTERNALLENGTH = VARIABLE,
	ALIGNMENT = double,
	STORAGE = external
);
COMMENT ON TYPE @extschema@.shingleset
	IS 'sorted distinct 64-bit shingle hashes: exact set S(D), bottom-s sample F(D) or mod-m sample V(D)';

CREATE FUNCTION @extschema@.shingle_set(doc text, size integer DEFAULT 3, unit text DEFAULT 'word')
	RETURNS @extschema@.shingleset
	AS 'MODULE_PATHNAME', 'shingle_set_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.shingle_set(text, integer, text)
	IS 'exact set of the distinct w-shingle hashes of the normalized text';

CREATE FUNCTION @extschema@.shingle_bottom(doc text, s integer DEFAULT 100, size integer DEFAULT 3,
		unit text DEFAULT 'word') RETURNS @extschema@.shingleset
	AS 'MODULE_PATHNAME', 'shingle_bottom_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.shingle_bottom(text, integer, integer, text)
	IS 'Broder''s bottom-s sample F(D): the s smallest shingle hashes';
CREATE FUNCTION @extschema@.shingle_bottom(set @extschema@.shingleset, s integer)
	RETURNS @extschema@.shingleset
	AS 'MODULE_PATHNAME', 'shingle_bottom_set' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.shingle_bottom(@extschema@.shingleset, integer)
	IS 'Broder''s bottom-s sample F(D) of an exact shingle set';

CREATE FUNCTION @extschema@.shingle_mod(doc text, m integer DEFAULT 25, size integer DEFAULT 3,
		unit text DEFAULT 'word') RETURNS @extschema@.shingleset
	AS 'MODULE_PATHNAME', 'shingle_mod_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.shingle_mod(text, integer, integer, text)
	IS 'Broder''s mod-m sample V(D): the shingle hashes that are 0 mod m';
CREATE FUNCTION @extschema@.shingle_mod(set @extschema@.shingleset, m integer)
	RETURNS @extschema@.shingleset
	AS 'MODULE_PATHNAME', 'shingle_mod_set' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.shingle_mod(@extschema@.shingleset, integer)
	IS 'Broder''s mod-m sample V(D) of an exact shingle set';

CREATE FUNCTION @extschema@.jaccard(a @extschema@.shingleset, b @extschema@.shingleset)
	RETURNS double precision
	AS 'MODULE_PATHNAME', 'shingleset_jaccard' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.jaccard(@extschema@.shingleset, @extschema@.shingleset)
	IS 'resemblance |A n B| / |A u B| (exact), or Broder''s estimate from F or V samples';
CREATE FUNCTION @extschema@.containment(a @extschema@.shingleset, b @extschema@.shingleset)
	RETURNS double precision
	AS 'MODULE_PATHNAME', 'shingleset_containment' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.containment(@extschema@.shingleset, @extschema@.shingleset)
	IS 'containment of A in B, |A n B| / |A| (exact), or its estimate from V samples';
CREATE FUNCTION @extschema@.overlap(a @extschema@.shingleset, b @extschema@.shingleset)
	RETURNS bigint
	AS 'MODULE_PATHNAME', 'shingleset_overlap' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.overlap(@extschema@.shingleset, @extschema@.shingleset)
	IS 'number of hashes the two sets (or samples) share';
CREATE FUNCTION @extschema@.cardinality(@extschema@.shingleset) RETURNS bigint
	AS 'MODULE_PATHNAME', 'shingleset_cardinality' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.cardinality(@extschema@.shingleset)
	IS 'number of distinct shingles of the document, |S(D)|';
CREATE FUNCTION @extschema@.shingleset_distance(@extschema@.shingleset, @extschema@.shingleset)
	RETURNS double precision
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.shingleset_similar_op(@extschema@.shingleset, @extschema@.shingleset)
	RETURNS boolean
	AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.similar(a @extschema@.shingleset, b @extschema@.shingleset,
		threshold double precision) RETURNS boolean
	AS 'MODULE_PATHNAME', 'shingleset_similar' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.similar(@extschema@.shingleset, @extschema@.shingleset, double precision)
	IS 'resemblance (or its estimate) >= threshold';

CREATE OPERATOR @extschema@.<-> (
	LEFTARG = @extschema@.shingleset, RIGHTARG = @extschema@.shingleset,
	FUNCTION = @extschema@.shingleset_distance,
	COMMUTATOR = OPERATOR(@extschema@.<->));
COMMENT ON OPERATOR @extschema@.<-> (@extschema@.shingleset, @extschema@.shingleset)
	IS 'resemblance distance 1 - r';
CREATE OPERATOR @extschema@.% (
	LEFTARG = @extschema@.shingleset, RIGHTARG = @extschema@.shingleset,
	FUNCTION = @extschema@.shingleset_similar_op,
	COMMUTATOR = OPERATOR(@extschema@.%),
	RESTRICT = pg_catalog.contsel, JOIN = pg_catalog.contjoinsel);
COMMENT ON OPERATOR @extschema@.% (@extschema@.shingleset, @extschema@.shingleset)
	IS 'resemblance >= nddup.similarity_threshold';

-- equality: the same parameters and the same hashes (GROUP BY, DISTINCT, hash joins)
CREATE FUNCTION @extschema@.shingleset_eq(@extschema@.shingleset, @extschema@.shingleset) RETURNS boolean
	AS 'MODULE_PATHNAME', 'sketch_eq' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION @extschema@.shingleset_ne(@extschema@.shingleset, @extschema@.shingleset) RETURNS boolean
	AS 'MODULE_PATHNAME', 'sketch_ne' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION @extschema@.shingleset_hash(@extschema@.shingleset) RETURNS integer
	AS 'MODULE_PATHNAME', 'sketch_hash' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION @extschema@.shingleset_hash_extended(@extschema@.shingleset, bigint) RETURNS bigint
	AS 'MODULE_PATHNAME', 'sketch_hash_extended' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OPERATOR @extschema@.= (
	LEFTARG = @extschema@.shingleset, RIGHTARG = @extschema@.shingleset,
	FUNCTION = @extschema@.shingleset_eq,
	COMMUTATOR = OPERATOR(@extschema@.=), NEGATOR = OPERATOR(@extschema@.<>),
	RESTRICT = pg_catalog.eqsel, JOIN = pg_catalog.eqjoinsel, HASHES);
CREATE OPERATOR @extschema@.<> (
	LEFTARG = @extschema@.shingleset, RIGHTARG = @extschema@.shingleset,
	FUNCTION = @extschema@.shingleset_ne,
	COMMUTATOR = OPERATOR(@extschema@.<>), NEGATOR = OPERATOR(@extschema@.=),
	RESTRICT = pg_catalog.neqsel, JOIN = pg_catalog.neqjoinsel);
CREATE OPERATOR CLASS @extschema@.shingleset_hash_ops DEFAULT FOR TYPE @extschema@.shingleset USING hash AS
	OPERATOR 1 @extschema@.= (@extschema@.shingleset, @extschema@.shingleset),
	FUNCTION 1 @extschema@.shingleset_hash(@extschema@.shingleset),
	FUNCTION 2 @extschema@.shingleset_hash_extended(@extschema@.shingleset, bigint);

CREATE FUNCTION @extschema@.shingleset_to_array(@extschema@.shingleset) RETURNS bigint[]
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE CAST (@extschema@.shingleset AS bigint[])
	WITH FUNCTION @extschema@.shingleset_to_array(@extschema@.shingleset);

-------------------------------------------------------------------------------
-- minhash_sketch

CREATE TYPE @extschema@.minhash_sketch;

CREATE FUNCTION @extschema@.minhash_in(cstring) RETURNS @extschema@.minhash_sketch
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.minhash_out(@extschema@.minhash_sketch) RETURNS cstring
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.minhash_recv(internal) RETURNS @extschema@.minhash_sketch
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.minhash_send(@extschema@.minhash_sketch) RETURNS bytea
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE @extschema@.minhash_sketch (
	INPUT = @extschema@.minhash_in,
	OUTPUT = @extschema@.minhash_out,
	RECEIVE = @extschema@.minhash_recv,
	SEND = @extschema@.minhash_send,
	INTERNALLENGTH = VARIABLE,
	ALIGNMENT = int4,
	STORAGE = external
);
COMMENT ON TYPE @extschema@.minhash_sketch
	IS 'min-hash sketch: k 32-bit (or b-bit) values with their parameters';

CREATE FUNCTION @extschema@.minhash(doc text, k integer DEFAULT 128, method text DEFAULT 'oph',
		seed integer DEFAULT 0, size integer DEFAULT 3, unit text DEFAULT 'word')
	RETURNS @extschema@.minhash_sketch
	AS 'MODULE_PATHNAME', 'minhash_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.minhash(text, integer, text, integer, integer, text)
	IS 'min-hash sketch of the w-shingles: ''kperm'' (k permutations) or ''oph'' (one permutation, optimal densification)';
CREATE FUNCTION @extschema@.minhash_bbit(sketch @extschema@.minhash_sketch, bits integer)
	RETURNS @extschema@.minhash_sketch
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.minhash_bbit(@extschema@.minhash_sketch, integer)
	IS 'b-bit min-hash: the low b bits (1, 2, 4, 8, 16) of each value';
CREATE FUNCTION @extschema@.minhash_k(@extschema@.minhash_sketch) RETURNS integer
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.minhash_k(@extschema@.minhash_sketch) IS 'number of min-hash values';

CREATE FUNCTION @extschema@.jaccard(a @extschema@.minhash_sketch, b @extschema@.minhash_sketch)
	RETURNS double precision
	AS 'MODULE_PATHNAME', 'minhash_jaccard' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.jaccard(@extschema@.minhash_sketch, @extschema@.minhash_sketch)
	IS 'resemblance estimate: share of equal positions (chance-corrected for b-bit sketches)';
CREATE FUNCTION @extschema@.minhash_distance(@extschema@.minhash_sketch, @extschema@.minhash_sketch)
	RETURNS double precision
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.minhash_similar_op(@extschema@.minhash_sketch, @extschema@.minhash_sketch)
	RETURNS boolean
	AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.similar(a @extschema@.minhash_sketch, b @extschema@.minhash_sketch,
		threshold double precision) RETURNS boolean
	AS 'MODULE_PATHNAME', 'minhash_similar' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.similar(@extschema@.minhash_sketch, @extschema@.minhash_sketch, double precision)
	IS 'resemblance estimate >= threshold';

CREATE OPERATOR @extschema@.<-> (
	LEFTARG = @extschema@.minhash_sketch, RIGHTARG = @extschema@.minhash_sketch,
	FUNCTION = @extschema@.minhash_distance,
	COMMUTATOR = OPERATOR(@extschema@.<->));
COMMENT ON OPERATOR @extschema@.<-> (@extschema@.minhash_sketch, @extschema@.minhash_sketch)
	IS 'estimated resemblance distance 1 - r';
CREATE OPERATOR @extschema@.% (
	LEFTARG = @extschema@.minhash_sketch, RIGHTARG = @extschema@.minhash_sketch,
	FUNCTION = @extschema@.minhash_similar_op,
	COMMUTATOR = OPERATOR(@extschema@.%),
	RESTRICT = pg_catalog.contsel, JOIN = pg_catalog.contjoinsel);
COMMENT ON OPERATOR @extschema@.% (@extschema@.minhash_sketch, @extschema@.minhash_sketch)
	IS 'estimated resemblance >= nddup.similarity_threshold';

CREATE FUNCTION @extschema@.minhash_merge(a @extschema@.minhash_sketch, b @extschema@.minhash_sketch)
	RETURNS @extschema@.minhash_sketch
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.minhash_merge(@extschema@.minhash_sketch, @extschema@.minhash_sketch)
	IS 'sketch of the union of the two shingle sets (element-wise minimum)';
CREATE AGGREGATE @extschema@.minhash_union(@extschema@.minhash_sketch) (
	SFUNC = @extschema@.minhash_merge,
	STYPE = @extschema@.minhash_sketch,
	COMBINEFUNC = @extschema@.minhash_merge,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE @extschema@.minhash_union(@extschema@.minhash_sketch)
	IS 'sketch of the union of the rows'' shingle sets';

-- equality: the same parameters and the same hashes (GROUP BY, DISTINCT, hash joins)
CREATE FUNCTION @extschema@.minhash_sketch_eq(@extschema@.minhash_sketch, @extschema@.minhash_sketch) RETURNS boolean
	AS 'MODULE_PATHNAME', 'sketch_eq' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION @extschema@.minhash_sketch_ne(@extschema@.minhash_sketch, @extschema@.minhash_sketch) RETURNS boolean
	AS 'MODULE_PATHNAME', 'sketch_ne' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION @extschema@.minhash_sketch_hash(@extschema@.minhash_sketch) RETURNS integer
	AS 'MODULE_PATHNAME', 'sketch_hash' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION @extschema@.minhash_sketch_hash_extended(@extschema@.minhash_sketch, bigint) RETURNS bigint
	AS 'MODULE_PATHNAME', 'sketch_hash_extended' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OPERATOR @extschema@.= (
	LEFTARG = @extschema@.minhash_sketch, RIGHTARG = @extschema@.minhash_sketch,
	FUNCTION = @extschema@.minhash_sketch_eq,
	COMMUTATOR = OPERATOR(@extschema@.=), NEGATOR = OPERATOR(@extschema@.<>),
	RESTRICT = pg_catalog.eqsel, JOIN = pg_catalog.eqjoinsel, HASHES);
CREATE OPERATOR @extschema@.<> (
	LEFTARG = @extschema@.minhash_sketch, RIGHTARG = @extschema@.minhash_sketch,
	FUNCTION = @extschema@.minhash_sketch_ne,
	COMMUTATOR = OPERATOR(@extschema@.<>), NEGATOR = OPERATOR(@extschema@.=),
	RESTRICT = pg_catalog.neqsel, JOIN = pg_catalog.neqjoinsel);
CREATE OPERATOR CLASS @extschema@.minhash_sketch_hash_ops DEFAULT FOR TYPE @extschema@.minhash_sketch USING hash AS
	OPERATOR 1 @extschema@.= (@extschema@.minhash_sketch, @extschema@.minhash_sketch),
	FUNCTION 1 @extschema@.minhash_sketch_hash(@extschema@.minhash_sketch),
	FUNCTION 2 @extschema@.minhash_sketch_hash_extended(@extschema@.minhash_sketch, bigint);

CREATE FUNCTION @extschema@.minhash_to_array(@extschema@.minhash_sketch) RETURNS bigint[]
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE CAST (@extschema@.minhash_sketch AS bigint[])
	WITH FUNCTION @extschema@.minhash_to_array(@extschema@.minhash_sketch);

-- super-shingles (Broder et al. 1997; the blog framework's 84 = 6 x 14, >= 2 of 6)
CREATE FUNCTION @extschema@.super_shingles(sketch @extschema@.minhash_sketch, groups integer DEFAULT 6,
		group_size integer DEFAULT 14) RETURNS bigint[]
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.super_shingles(@extschema@.minhash_sketch, integer, integer)
	IS 'one super-shingle per group of group_size min-hash values (k = groups * group_size)';
CREATE FUNCTION @extschema@.super_shingles_match(a bigint[], b bigint[], r integer DEFAULT 2)
	RETURNS boolean
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.super_shingles_match(bigint[], bigint[], integer)
	IS 'at least r of the super-shingles are equal, position by position';
CREATE FUNCTION @extschema@.super_shingle_keys(super_shingles bigint[], r integer DEFAULT 2)
	RETURNS bigint[]
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.super_shingle_keys(bigint[], integer)
	IS 'one key per r-subset of the super-shingles (C(6,2) = 15): keys && keys iff >= r match';

-------------------------------------------------------------------------------
-- I-Match (Chowdhury et al. 2002; multi-lexicon: Kolcz et al. 2004)

CREATE TYPE @extschema@.imatch_lexicon;

CREATE FUNCTION @extschema@.imatch_lexicon_in(cstring) RETURNS @extschema@.imatch_lexicon
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.imatch_lexicon_out(@extschema@.imatch_lexicon) RETURNS cstring
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.imatch_lexicon_recv(internal) RETURNS @extschema@.imatch_lexicon
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.imatch_lexicon_send(@extschema@.imatch_lexicon) RETURNS bytea
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE @extschema@.imatch_lexicon (
	INPUT = @extschema@.imatch_lexicon_in,
	OUTPUT = @extschema@.imatch_lexicon_out,
	RECEIVE = @extschema@.imatch_lexicon_recv,
	SEND = @extschema@.imatch_lexicon_send,
	INTERNALLENGTH = VARIABLE,
	ALIGNMENT = double,
	STORAGE = external
);
COMMENT ON TYPE @extschema@.imatch_lexicon
	IS 'I-Match lexicon: the sorted hashes of the kept terms (or, while aggregating, terms with document frequencies)';

CREATE FUNCTION @extschema@.imatch_df_transfn(@extschema@.imatch_lexicon, text)
	RETURNS @extschema@.imatch_lexicon
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.imatch_df_transfn(@extschema@.imatch_lexicon, text,
		double precision, double precision) RETURNS @extschema@.imatch_lexicon
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.imatch_df_combinefn(@extschema@.imatch_lexicon, @extschema@.imatch_lexicon)
	RETURNS @extschema@.imatch_lexicon
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.imatch_lexicon_finalfn(@extschema@.imatch_lexicon)
	RETURNS @extschema@.imatch_lexicon
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE @extschema@.imatch_lexicon_agg(doc text) (
	SFUNC = @extschema@.imatch_df_transfn,
	STYPE = @extschema@.imatch_lexicon,
	FINALFUNC = @extschema@.imatch_lexicon_finalfn,
	COMBINEFUNC = @extschema@.imatch_df_combinefn,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE @extschema@.imatch_lexicon_agg(text)
	IS 'I-Match lexicon of the documents: terms ranked by document frequency, 10% cut at each end';
CREATE AGGREGATE @extschema@.imatch_lexicon_agg(doc text, drop_frequent double precision,
		drop_rare double precision) (
	SFUNC = @extschema@.imatch_df_transfn,
	STYPE = @extschema@.imatch_lexicon,
	FINALFUNC = @extschema@.imatch_lexicon_finalfn,
	COMBINEFUNC = @extschema@.imatch_df_combinefn,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE @extschema@.imatch_lexicon_agg(text, double precision, double precision)
	IS 'I-Match lexicon: terms ranked by document frequency, the given shares cut at the frequent and rare ends';

CREATE FUNCTION @extschema@.imatch_lexicon_size(@extschema@.imatch_lexicon) RETURNS bigint
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.imatch_lexicon_size(@extschema@.imatch_lexicon)
	IS 'number of terms in the lexicon';

CREATE FUNCTION @extschema@.imatch(doc text, lexicon @extschema@.imatch_lexicon) RETURNS uuid
	AS 'MODULE_PATHNAME', 'imatch_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.imatch(text, @extschema@.imatch_lexicon)
	IS 'I-Match signature: XXH3-128 of the document''s distinct lexicon terms (NULL if none)';
CREATE FUNCTION @extschema@.imatch(doc text, lexicon @extschema@.imatch_lexicon, n integer,
		drop double precision DEFAULT 0.2) RETURNS uuid[]
	AS 'MODULE_PATHNAME', 'imatch_multi_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.imatch(text, @extschema@.imatch_lexicon, integer, double precision)
	IS 'multi-lexicon I-Match: n signatures over sub-lexicons each dropping a share of the terms; duplicates when any matches (&&)';
-- nddup install script, part 7.5: exact GIN indexes for the sketch types
-- (src/gin_sketch.c, docs/sketch-indexes.md).
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
-- nddup install script, part 8: insert-time duplicate checks (src/trigger.c).
-- See docs/trigger.md.

CREATE FUNCTION @extschema@.nddup_dedup_trigger() RETURNS trigger
	AS 'MODULE_PATHNAME' LANGUAGE C;
COMMENT ON FUNCTION @extschema@.nddup_dedup_trigger()
	IS 'BEFORE INSERT OR UPDATE row trigger: marks, skips or rejects near-duplicates of the existing originals (arguments key=value, see docs/trigger.md)';

CREATE FUNCTION @extschema@.nddup_check_trigger(rel regclass, args text[] DEFAULT NULL)
	RETURNS TABLE (trigger text, settings text)
	AS 'MODULE_PATHNAME' LANGUAGE C STABLE;
COMMENT ON FUNCTION @extschema@.nddup_check_trigger(regclass, text[])
	IS 'validate nddup_dedup_trigger arguments against a table (or, without args, every such trigger of the table); returns the effective settings';
