-- nddup install script, part 9.5: descriptions of the objects that had none
-- (docs/reference.md is generated from the COMMENT ON of every object).

COMMENT ON FUNCTION @extschema@.ball(@extschema@.simhash64, integer)
	IS 'query value: every fingerprint within radius bits of center (fp <@ ball(center, radius))';
COMMENT ON FUNCTION @extschema@.center(@extschema@.hamming_ball)
	IS 'the center of a Hamming ball';
COMMENT ON FUNCTION @extschema@.radius(@extschema@.hamming_ball)
	IS 'the radius of a Hamming ball';

COMMENT ON OPERATOR @extschema@.<-> (@extschema@.simhash64, @extschema@.simhash64)
	IS 'Hamming distance: the number of bits in which two fingerprints differ';
COMMENT ON OPERATOR @extschema@.= (@extschema@.simhash64, @extschema@.simhash64)
	IS 'equal fingerprints';
COMMENT ON OPERATOR @extschema@.<> (@extschema@.simhash64, @extschema@.simhash64)
	IS 'different fingerprints';
COMMENT ON OPERATOR @extschema@.< (@extschema@.simhash64, @extschema@.simhash64)
	IS 'less than, as unsigned 64-bit numbers (the order of the hex text)';
COMMENT ON OPERATOR @extschema@.<= (@extschema@.simhash64, @extschema@.simhash64)
	IS 'less than or equal, as unsigned 64-bit numbers';
COMMENT ON OPERATOR @extschema@.> (@extschema@.simhash64, @extschema@.simhash64)
	IS 'greater than, as unsigned 64-bit numbers';
COMMENT ON OPERATOR @extschema@.>= (@extschema@.simhash64, @extschema@.simhash64)
	IS 'greater than or equal, as unsigned 64-bit numbers';
COMMENT ON OPERATOR @extschema@.= (@extschema@.shingleset, @extschema@.shingleset)
	IS 'the same kind of set, parameters and hashes';
COMMENT ON OPERATOR @extschema@.<> (@extschema@.shingleset, @extschema@.shingleset)
	IS 'not the same kind of set, parameters or hashes';
COMMENT ON OPERATOR @extschema@.= (@extschema@.minhash_sketch, @extschema@.minhash_sketch)
	IS 'the same parameters and values';
COMMENT ON OPERATOR @extschema@.<> (@extschema@.minhash_sketch, @extschema@.minhash_sketch)
	IS 'not the same parameters or values';

COMMENT ON OPERATOR CLASS @extschema@.simhash64_ops USING btree
	IS 'ordering of fingerprints as unsigned 64-bit numbers (ORDER BY, unique indexes, merge joins)';
COMMENT ON OPERATOR CLASS @extschema@.simhash64_ops USING hash
	IS 'equality of fingerprints (hash joins, hash indexes, GROUP BY)';
COMMENT ON OPERATOR CLASS @extschema@.shingleset_hash_ops USING hash
	IS 'equality of shingle sets (hash joins, GROUP BY, DISTINCT)';
COMMENT ON OPERATOR CLASS @extschema@.minhash_sketch_hash_ops USING hash
	IS 'equality of min-hash sketches (hash joins, GROUP BY, DISTINCT)';
