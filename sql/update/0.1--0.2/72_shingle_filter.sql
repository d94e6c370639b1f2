-- 0.2: boilerplate-aware sketches (src/types/filter_sql.c,
-- docs/sketches.md#boilerplate-aware-sketches): the shingle_filter type, its
-- aggregate and the constructors that leave the filter's shingles out
-- (minhash_filtered, shingle_set_filtered, simhash_filtered: overloads of
-- minhash() and the others would make calls with two untyped literals,
-- such as minhash('a b c', NULL), ambiguous).

CREATE TYPE @extschema@.shingle_filter;

CREATE FUNCTION @extschema@.shingle_filter_in(cstring) RETURNS @extschema@.shingle_filter
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.shingle_filter_out(@extschema@.shingle_filter) RETURNS cstring
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.shingle_filter_recv(internal) RETURNS @extschema@.shingle_filter
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.shingle_filter_send(@extschema@.shingle_filter) RETURNS bytea
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE @extschema@.shingle_filter (
	INPUT = @extschema@.shingle_filter_in,
	OUTPUT = @extschema@.shingle_filter_out,
	RECEIVE = @extschema@.shingle_filter_recv,
	SEND = @extschema@.shingle_filter_send,
	INTERNALLENGTH = VARIABLE,
	ALIGNMENT = double,
	STORAGE = external
);
COMMENT ON TYPE @extschema@.shingle_filter
	IS 'frequent-shingle filter: the sorted hashes of the shingles in more than max(min_docs, share * N) of N documents';

CREATE FUNCTION @extschema@.shingle_filter_size(@extschema@.shingle_filter) RETURNS bigint
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.shingle_filter_size(@extschema@.shingle_filter)
	IS 'number of frequent shingles in the filter';
CREATE FUNCTION @extschema@.shingle_filter_to_array(@extschema@.shingle_filter) RETURNS bigint[]
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.shingle_filter_to_array(@extschema@.shingle_filter)
	IS 'the hashes of the frequent shingles, ascending as unsigned 64-bit numbers';
CREATE CAST (@extschema@.shingle_filter AS bigint[])
	WITH FUNCTION @extschema@.shingle_filter_to_array(@extschema@.shingle_filter);

CREATE FUNCTION @extschema@.shingle_filter_transfn(internal, text) RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.shingle_filter_transfn(internal, text, integer, double precision)
	RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.shingle_filter_transfn(internal, text, integer, double precision,
		integer, text) RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.shingle_filter_finalfn(internal) RETURNS @extschema@.shingle_filter
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE @extschema@.shingle_filter_agg(doc text) (
	SFUNC = @extschema@.shingle_filter_transfn,
	STYPE = internal,
	FINALFUNC = @extschema@.shingle_filter_finalfn,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE @extschema@.shingle_filter_agg(text)
	IS 'frequent-shingle filter of the documents: word 3-shingles in more than max(20, 0.2% of the documents)';
CREATE AGGREGATE @extschema@.shingle_filter_agg(doc text, min_docs integer,
		share double precision) (
	SFUNC = @extschema@.shingle_filter_transfn,
	STYPE = internal,
	FINALFUNC = @extschema@.shingle_filter_finalfn,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE @extschema@.shingle_filter_agg(text, integer, double precision)
	IS 'frequent-shingle filter: word 3-shingles in more than max(min_docs, share * N) of the N documents';
CREATE AGGREGATE @extschema@.shingle_filter_agg(doc text, min_docs integer,
		share double precision, size integer, unit text) (
	SFUNC = @extschema@.shingle_filter_transfn,
	STYPE = internal,
	FINALFUNC = @extschema@.shingle_filter_finalfn,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE @extschema@.shingle_filter_agg(text, integer, double precision, integer, text)
	IS 'frequent-shingle filter: w-shingles of the unit in more than max(min_docs, share * N) of the N documents';

CREATE FUNCTION @extschema@.minhash_filtered(filter @extschema@.shingle_filter, doc text,
		k integer DEFAULT 128, method text DEFAULT 'oph', seed integer DEFAULT 0)
	RETURNS @extschema@.minhash_sketch
	AS 'MODULE_PATHNAME', 'minhash_text_filtered' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.minhash_filtered(@extschema@.shingle_filter, text, integer, text, integer)
	IS 'min-hash sketch of the shingles (the filter''s size and unit) that the filter does not hold; all of them if it holds every one';
CREATE FUNCTION @extschema@.shingle_set_filtered(filter @extschema@.shingle_filter, doc text)
	RETURNS @extschema@.shingleset
	AS 'MODULE_PATHNAME', 'shingle_set_text_filtered' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.shingle_set_filtered(@extschema@.shingle_filter, text)
	IS 'exact set of the shingle hashes (the filter''s size and unit) that the filter does not hold; all of them if it holds every one';
CREATE FUNCTION @extschema@.simhash_filtered(filter @extschema@.shingle_filter, doc text,
		weighting text DEFAULT 'tf') RETURNS @extschema@.simhash64
	AS 'MODULE_PATHNAME', 'simhash_text_filtered' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.simhash_filtered(@extschema@.shingle_filter, text, text)
	IS 'Charikar simhash of the shingles (the filter''s size and unit) that the filter does not hold; all of them if it holds every one';
