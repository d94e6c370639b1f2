--
-- hamming_pairs through temporary files: 16-byte (key, id) records, as
-- many partitions as the rows ask for.  Every spilled answer (work_mem
-- 64kB) is compared with the in-memory answer of the same call.
--

-- 24,000 md5 fingerprints, 5,000 planted variants (1-6 bits flipped, some
-- of variants), 1,000 exact copies (some fingerprints three times):
-- deterministic, no random()
CREATE TABLE ps (id bigint, fp simhash64);
INSERT INTO ps
SELECT g, ('x' || substr(md5('ps' || g), 1, 16))::bit(64)::bigint::simhash64
FROM generate_series(1, 24000) g;
CREATE FUNCTION ps_flips(seed text, n integer) RETURNS bigint
LANGUAGE sql IMMUTABLE AS $$
	SELECT bit_or(1::bigint << (get_byte(decode(md5(seed || '/' || i), 'hex'), 0) % 64))
	FROM generate_series(1, n) i
$$;
INSERT INTO ps
SELECT 100000 + g, (p.fp::bigint # ps_flips('v' || g, 1 + g % 6))::simhash64
FROM generate_series(1, 4000) g JOIN ps p ON p.id = 1 + (g * 7) % 24000;
INSERT INTO ps
SELECT 200000 + g, (p.fp::bigint # ps_flips('w' || g, 1 + g % 4))::simhash64
FROM generate_series(1, 1000) g JOIN ps p ON p.id = 100001 + (g * 3) % 4000;
INSERT INTO ps
SELECT 300000 + g, p.fp FROM generate_series(1, 1000) g JOIN ps p ON p.id = 1 + g % 500;
SELECT count(*), count(DISTINCT fp) FROM ps;

-- the pairs of one call in memory (work_mem 64MB) and through temporary
-- files (64kB): rows, missing and extra (EXCEPT ALL: a pair reported twice
-- is extra)
CREATE FUNCTION ps_diff(q text, r integer, mem text DEFAULT '64kB')
RETURNS TABLE (radius integer, found bigint, missing bigint, extra bigint)
LANGUAGE plpgsql AS $$
BEGIN
	SET LOCAL work_mem = '64MB';
	CREATE TEMP TABLE ps_mem AS SELECT * FROM hamming_pairs(q, r);
	PERFORM set_config('work_mem', mem, true);
	CREATE TEMP TABLE ps_spill AS SELECT * FROM hamming_pairs(q, r);
	RETURN QUERY SELECT r, (SELECT count(*) FROM ps_spill),
		(SELECT count(*) FROM (TABLE ps_mem EXCEPT ALL TABLE ps_spill) x),
		(SELECT count(*) FROM (TABLE ps_spill EXCEPT ALL TABLE ps_mem) y);
	DROP TABLE ps_mem, ps_spill;
END
$$;

-- the cost model's layouts, radius 0 to 6
SELECT d.* FROM unnest(ARRAY[0, 1, 2, 3, 4, 6]) r, ps_diff('SELECT id, fp FROM ps', r) d;

-- forced layouts: which table owns a pair depends on the blocks before its
-- last one (2 to 9 blocks at radius 1, 2 and 3)
SET nddup.batch_blocks = 2;
SELECT d.* FROM ps_diff('SELECT id, fp FROM ps', 1) d;
SET nddup.batch_blocks = 4;
SELECT d.* FROM unnest(ARRAY[1, 2, 3]) r, ps_diff('SELECT id, fp FROM ps', r) d;
SET nddup.batch_blocks = 7;
SELECT d.* FROM unnest(ARRAY[2, 3]) r, ps_diff('SELECT id, fp FROM ps', r) d;
SET nddup.batch_blocks = 9;
SELECT d.* FROM ps_diff('SELECT id, fp FROM ps', 3) d;
RESET nddup.batch_blocks;

-- negative and extreme ids travel in the records unchanged
SELECT d.* FROM ps_diff('SELECT CASE WHEN id % 3 = 0 THEN -id WHEN id % 3 = 1 THEN id ELSE 9223372036854775807 - id END, fp FROM ps', 3) d;

-- 3,000 fingerprints sharing their top 48 bits and 3,000 sharing their low
-- 48 bits, with the rows above: in the tables keyed by one half the rows of
-- one kind fall into one partition, larger than work_mem, split again by
-- the key's lower bits
CREATE TABLE ps_skew AS
SELECT id, fp FROM ps
UNION ALL
SELECT 400000 + g, ('x' || substr(md5('top' || g), 1, 4))::bit(16)::integer::bigint::simhash64
FROM generate_series(1, 3000) g
UNION ALL
SELECT 500000 + g, ((('x' || substr(md5('low' || g), 1, 4))::bit(16)::integer::bigint) << 48)::simhash64
FROM generate_series(1, 3000) g;
SELECT d.* FROM unnest(ARRAY[1, 3]) r, ps_diff('SELECT id, fp FROM ps_skew', r) d;

-- as many partitions as the rows ask for: at 64kB the partitions' buffers
-- alone would exceed work_mem, so a few partitions are each split again;
-- 36,000 rows at 1MB are 2 partitions sorted through a second buffer, and
-- 100,000 rows at 128kB 16 partitions sorted in place (their buffers and
-- one partition within 2 x work_mem)
SELECT d.* FROM ps_diff('SELECT id, fp FROM ps_skew', 3, '1MB') d;
CREATE TABLE ps_big AS
SELECT id, fp FROM ps
UNION ALL
SELECT 600000 + g, ('x' || substr(md5('big' || g), 1, 16))::bit(64)::bigint::simhash64
FROM generate_series(1, 70000) g;
SELECT d.* FROM ps_diff('SELECT id, fp FROM ps_big', 3, '128kB') d;
DROP TABLE ps_big;

-- hamming_clusters' default mode (clusters without chains) takes its edges
-- from the same pairs: the same clusters through temporary files
CREATE TABLE ps_greedy_mem AS SELECT * FROM hamming_clusters('SELECT id, fp FROM ps_skew', 3);
SET work_mem = '64kB';
SET client_min_messages = warning;	-- its notice on the memory of the ids
CREATE TABLE ps_greedy_spill AS SELECT * FROM hamming_clusters('SELECT id, fp FROM ps_skew', 3);
RESET client_min_messages;
RESET work_mem;
SELECT count(*) AS rows, count(DISTINCT cluster_id) AS clusters,
	(SELECT count(*) FROM (TABLE ps_greedy_mem EXCEPT ALL TABLE ps_greedy_spill) x) AS missing,
	(SELECT count(*) FROM (TABLE ps_greedy_spill EXCEPT ALL TABLE ps_greedy_mem) y) AS extra
FROM ps_greedy_mem;
DROP TABLE ps_greedy_mem, ps_greedy_spill;

-- a run of 30,000 rows sharing one key is compared in memory: too large
-- for 64kB
SET work_mem = '64kB';
SELECT count(*) FROM hamming_pairs('SELECT g, ''0123456789abcdef''::simhash64 FROM generate_series(1, 30000) g', 3);
RESET work_mem;

DROP TABLE ps, ps_skew;
DROP FUNCTION ps_diff(text, integer, text);
DROP FUNCTION ps_flips(text, integer);
