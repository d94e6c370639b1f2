-- 0.1 -> 0.2: the constructor names of the naming rule (to_simhash64,
-- to_shingleset, to_minhash_sketch, simhash64_agg); the 0.1 names stay.

CREATE FUNCTION @extschema@.to_simhash64(doc text, size integer DEFAULT 2, unit text DEFAULT 'word',
		weighting text DEFAULT 'tf') RETURNS @extschema@.simhash64
	LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
	RETURN @extschema@.simhash(doc, size, unit, weighting);
COMMENT ON FUNCTION @extschema@.to_simhash64(text, integer, text, text)
	IS 'Charikar simhash of the normalized text''s w-shingles (the same as simhash())';

CREATE FUNCTION @extschema@.to_simhash64(features text[]) RETURNS @extschema@.simhash64
	LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
	RETURN @extschema@.simhash(features);
COMMENT ON FUNCTION @extschema@.to_simhash64(text[])
	IS 'Charikar simhash of features, each of weight 1 (the same as simhash())';

CREATE FUNCTION @extschema@.to_simhash64(features text[], weights real[]) RETURNS @extschema@.simhash64
	LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
	RETURN @extschema@.simhash(features, weights);
COMMENT ON FUNCTION @extschema@.to_simhash64(text[], real[])
	IS 'Charikar simhash of weighted features (the same as simhash())';

CREATE FUNCTION @extschema@.to_simhash64(doc tsvector) RETURNS @extschema@.simhash64
	LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
	RETURN @extschema@.simhash(doc);
COMMENT ON FUNCTION @extschema@.to_simhash64(tsvector)
	IS 'Charikar simhash of the lexemes, weighted by their frequency (the same as simhash())';

CREATE AGGREGATE @extschema@.simhash64_agg(feature text, weight double precision) (
	SFUNC = @extschema@.simhash_agg_transfn,
	STYPE = @extschema@.simhash_agg_state,
	FINALFUNC = @extschema@.simhash_agg_finalfn,
	COMBINEFUNC = @extschema@.simhash_agg_combinefn,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE @extschema@.simhash64_agg(text, double precision)
	IS 'Charikar simhash of the (feature, weight) rows (the same as simhash_agg())';

CREATE FUNCTION @extschema@.to_shingleset(doc text, size integer DEFAULT 3, unit text DEFAULT 'word')
	RETURNS @extschema@.shingleset
	LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
	RETURN @extschema@.shingle_set(doc, size, unit);
COMMENT ON FUNCTION @extschema@.to_shingleset(text, integer, text)
	IS 'exact set of the distinct w-shingle hashes of the normalized text (the same as shingle_set())';

CREATE FUNCTION @extschema@.to_minhash_sketch(doc text, k integer DEFAULT 128, method text DEFAULT 'oph',
		seed integer DEFAULT 0, size integer DEFAULT 3, unit text DEFAULT 'word')
	RETURNS @extschema@.minhash_sketch
	LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
	RETURN @extschema@.minhash(doc, k, method, seed, size, unit);
COMMENT ON FUNCTION @extschema@.to_minhash_sketch(text, integer, text, integer, integer, text)
	IS 'min-hash sketch of the w-shingles, ''kperm'' or ''oph'' (the same as minhash())';
