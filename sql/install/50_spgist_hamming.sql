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
