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
