-- nddup install script: the hamming index access method (src/index/hamming*.c),
-- exact Hamming-radius search (fp <@ ball(q, r), within(fp, q, r)) and exact
-- nearest-n (ORDER BY fp <-> q) on simhash64.  See docs/indexes.md.

CREATE FUNCTION @extschema@.hamming_handler(internal)
	RETURNS index_am_handler
	AS 'MODULE_PATHNAME' LANGUAGE C;

CREATE ACCESS METHOD hamming TYPE INDEX HANDLER @extschema@.hamming_handler;
COMMENT ON ACCESS METHOD hamming
	IS 'exact Hamming-radius and nearest-neighbour search on simhash64: sorted permuted tables and packed fingerprint scans';

-- Strategy numbers: 1 = <@ hamming_ball, 2 = <-> (ordering, integer distance).
CREATE OPERATOR CLASS @extschema@.simhash64_hamming_ops
	DEFAULT FOR TYPE @extschema@.simhash64 USING hamming AS
	OPERATOR 1 @extschema@.<@ (@extschema@.simhash64, @extschema@.hamming_ball),
	OPERATOR 2 @extschema@.<-> (@extschema@.simhash64, @extschema@.simhash64)
		FOR ORDER BY pg_catalog.integer_ops;
COMMENT ON OPERATOR CLASS @extschema@.simhash64_hamming_ops USING hamming
	IS 'exact fp <@ ball(q, r), within(fp, q, r) and ORDER BY fp <-> q';

CREATE FUNCTION @extschema@.hamming_index_stats(index regclass,
		OUT sorted_rows bigint, OUT appendix_rows bigint, OUT dead_rows bigint,
		OUT directory_bits integer, OUT pages bigint, OUT free_pages bigint)
	RETURNS record
	AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.hamming_index_stats(regclass)
	IS 'rows of a hamming index: sorted (generation), appendix, dead (tombstones); its directory bits, pages and free pages';
