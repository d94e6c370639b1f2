-- Bounds of arguments and settings: within() takes the radii ball() takes,
-- hamming_index_stats() says that an index is invalid, nddup.batch_blocks
-- forces no layout with more tables than the cost model considers.
CREATE TABLE bounds_fp (id int, fp simhash64);
INSERT INTO bounds_fp SELECT g, simhash('bounds text number ' || g) FROM generate_series(1, 100) g;

-- within(): a radius of 0 to 64, the same error as ball()
SELECT within('0000000000000000', 'ffffffffffffffff', 64) AS w64,
	within('0000000000000000', 'ffffffffffffffff', 63) AS w63;
SELECT within('0000000000000000', 'ffffffffffffffff', 65);
SELECT within('0000000000000000', 'ffffffffffffffff', 1000000);
SELECT ball('0000000000000000', 65);
-- and through an index: a constant radius out of range adds no index
-- condition (within() raises), a parameter is checked by hamming_within_radius()
CREATE INDEX bounds_fp_idx ON bounds_fp USING hamming (fp);
SET enable_seqscan = off;
SELECT count(*) FROM bounds_fp WHERE within(fp, '0123456789abcdef', 64);
SELECT count(*) FROM bounds_fp WHERE within(fp, '0123456789abcdef', 65);
SET plan_cache_mode = force_generic_plan;
PREPARE bounds_within(int) AS SELECT count(*) FROM bounds_fp WHERE within(fp, '0123456789abcdef', $1);
EXPLAIN (COSTS OFF) EXECUTE bounds_within(3);
EXECUTE bounds_within(64);
EXECUTE bounds_within(65);
EXECUTE bounds_within(-1);
DEALLOCATE bounds_within;
RESET plan_cache_mode;
RESET enable_seqscan;

-- hamming_index_stats() on an index left invalid by a failed CREATE INDEX
-- CONCURRENTLY
CREATE FUNCTION bounds_fail(simhash64) RETURNS simhash64 LANGUAGE plpgsql IMMUTABLE
	SET search_path FROM CURRENT
	AS $$ BEGIN IF $1 = simhash('bounds text number 50') THEN RAISE EXCEPTION 'no index for this row'; END IF; RETURN $1; END $$;
\set VERBOSITY terse
CREATE INDEX CONCURRENTLY bounds_bad_idx ON bounds_fp USING hamming ((bounds_fail(fp)));
\set VERBOSITY default
SELECT indisvalid FROM pg_index WHERE indexrelid = 'bounds_bad_idx'::regclass;
SELECT * FROM hamming_index_stats('bounds_bad_idx');
SELECT sorted_rows + appendix_rows AS entries FROM hamming_index_stats('bounds_fp_idx');
DROP INDEX bounds_bad_idx;

-- nddup.batch_blocks: at most the 250,000 tables the cost model considers
-- (64 blocks at radius 12 would be 3.3e12 tables; at radius 3, 41,664)
SET statement_timeout = '60s';
SET nddup.batch_blocks = 64;
SELECT count(*) FROM hamming_pairs('SELECT id, fp FROM bounds_fp', 12);
SELECT count(*) FROM hamming_clusters('SELECT id, fp FROM bounds_fp', 12);
SELECT count(*) = (SELECT count(*) FROM bounds_fp a JOIN bounds_fp b ON a.id < b.id AND a.fp <-> b.fp <= 3)
	AS exact_41664_tables
FROM hamming_pairs('SELECT id, fp FROM bounds_fp', 3);
SET nddup.batch_blocks = 16;
SELECT count(*) = (SELECT count(*) FROM bounds_fp a JOIN bounds_fp b ON a.id < b.id AND a.fp <-> b.fp <= 12)
	AS exact_1820_tables
FROM hamming_pairs('SELECT id, fp FROM bounds_fp', 12);
RESET nddup.batch_blocks;
RESET statement_timeout;
DROP TABLE bounds_fp;
DROP FUNCTION bounds_fail(simhash64);
