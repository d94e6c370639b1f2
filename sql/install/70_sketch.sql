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
