-- within() rejects a radius above 64 as ball() does (it was true for every
-- row), and so does the radius of its index condition.
COMMENT ON FUNCTION @extschema@.hamming_within_radius(integer)
	IS 'radius of within() in an index condition: rejected like within() (and ball()) when outside 0..64';
