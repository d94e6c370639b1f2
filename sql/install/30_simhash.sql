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

-- simhash_agg(feature text, weight double precision): sql/install/85_scale_out.sql
