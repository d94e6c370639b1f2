--
-- The hamming access method (simhash64_hamming_ops): every index answer is
-- compared with the sequential scan, for radius queries at 0..64 (count,
-- sum and xor-hash of the ids per query), through bitmap and plain index
-- scans, both search paths (nddup.hamming_probe = tables / rows / auto),
-- and nearest-n (ORDER BY fp <-> q), after a build that spills to disk and
-- one in memory, inserts into the appendix, updates, deletes, VACUUM
-- (tombstones, merges, recycling), NULLs, duplicates, all-zero and skewed
-- fingerprints.
--
SET client_min_messages = warning;

-- deterministic fingerprints: md5 of the row number, flipped bits from md5
CREATE FUNCTION hx_random(i int) RETURNS simhash64 LANGUAGE sql IMMUTABLE AS
$$ SELECT ('x' || substr(md5('r' || i), 1, 16))::bit(64)::bigint::simhash64 $$;
CREATE FUNCTION hx_flip(fp simhash64, seed int, nbits int, lowbit int DEFAULT 0)
RETURNS simhash64 LANGUAGE sql IMMUTABLE AS
$$ SELECT (fp::bigint # (SELECT bit_or(1::bigint << (lowbit + get_byte(decode(md5('f' || seed), 'hex'), k) % (64 - lowbit)))
                          FROM generate_series(0, nbits - 1) k))::simhash64 $$;
CREATE FUNCTION hx_fp(i int) RETURNS simhash64 LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE
    WHEN i <= 4000 THEN hx_random(i)                                   -- uniform
    WHEN i <= 5000 THEN hx_flip(hx_random((i * 7919) % 4000 + 1), i, 1 + i % 6) -- planted 1-6 bits
    WHEN i <= 5200 THEN (('x' || substr(md5('s' || i), 1, 8) || '00000000')::bit(64)::bigint)::simhash64 -- low 32 bits zero
    WHEN i <= 5300 THEN hx_flip((('x' || substr(md5('s' || (5001 + i % 200)), 1, 8) || '00000000')::bit(64)::bigint)::simhash64, i, 1 + i % 5, 32)
    WHEN i <= 5500 THEN hx_random(1)                                   -- 200 copies
    WHEN i <= 5520 THEN '0000000000000000'::simhash64                  -- all zero
    WHEN i <= 5525 THEN 'ffffffffffffffff'::simhash64
    WHEN i <= 5545 THEN NULL
    WHEN i % 3 = 0 THEN hx_flip(hx_fp(i - 5000), i, 1 + i % 4)         -- later rows
    WHEN i % 7 = 0 THEN NULL
    ELSE hx_random(i) END $$;

CREATE TABLE hx (id int, fp simhash64, pad text);
INSERT INTO hx SELECT i, hx_fp(i), 'x' FROM generate_series(1, 5545) i;

-- queries: ~70 centers at radius 0..12, fewer at larger radii, corner cases
CREATE TABLE hx_queries (qid serial, center simhash64, r int);
CREATE TABLE hx_centers AS
  SELECT fp AS center, row_number() OVER (ORDER BY id) AS n FROM hx WHERE id % 97 = 1 AND fp IS NOT NULL
  UNION ALL SELECT hx_fp(i), 1000 + i FROM unnest(array[4001, 5150, 5250, 5300, 5510, 5522]) i
  UNION ALL SELECT hx_random(-i), 2000 + i FROM generate_series(1, 3) i;
INSERT INTO hx_queries (center, r)
  SELECT center, r FROM hx_centers, generate_series(0, 12) r
  UNION ALL SELECT center, r FROM hx_centers, generate_series(13, 20) r WHERE n % 7 = 1 OR n > 1000
  UNION ALL SELECT center, r FROM hx_centers, unnest(array[22, 24, 28, 32, 40, 48, 63, 64]) r WHERE n % 20 = 1 OR n IN (1003, 1005)
  ORDER BY 1, 2;
SELECT count(*) AS queries, count(DISTINCT center) AS centers, max(r) AS max_radius FROM hx_queries;

-- the sequential-scan answer of every query, recomputed after each change
CREATE FUNCTION hx_truth() RETURNS bigint LANGUAGE plpgsql AS $$
BEGIN
  SET LOCAL enable_bitmapscan = off;
  SET LOCAL enable_indexscan = off;
  DROP TABLE IF EXISTS hx_expected;
  CREATE TEMP TABLE hx_expected AS
    SELECT q.qid, a.* FROM hx_queries q CROSS JOIN LATERAL
      (SELECT count(*) AS n, coalesce(sum(id), 0) AS s, coalesce(bit_xor(hashint4(id)), 0) AS x
         FROM hx t WHERE (t.fp <-> q.center) <= q.r) a;
  RETURN (SELECT sum(n) FROM hx_expected);
END $$;

-- the index answer of every query: form 'ball', 'within' or 'within2'
-- (commuted), through 'bitmap' or 'index' scans, compared with the truth;
-- checks that the hamming index serves it
CREATE FUNCTION hx_check(form text DEFAULT 'ball', scan text DEFAULT 'bitmap',
                         every int DEFAULT 1, maxr int DEFAULT 64, tbl text DEFAULT 'hx')
RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  cond text := CASE form WHEN 'ball' THEN 't.fp <@ ball(q.center, q.r)'
                         WHEN 'within' THEN 'within(t.fp, q.center, q.r)'
                         ELSE 'within(q.center, t.fp, q.r)' END;
  sql text;
  plan text;
  used boolean := false;
  nq bigint;
  nrows bigint;
  bad bigint;
BEGIN
  SET LOCAL enable_seqscan = off;
  PERFORM set_config('enable_indexscan', (scan <> 'bitmap')::text, true);
  PERFORM set_config('enable_bitmapscan', (scan = 'bitmap')::text, true);
  sql := format('SELECT q.qid, a.* FROM hx_queries q CROSS JOIN LATERAL
      (SELECT count(*) AS n, coalesce(sum(id), 0) AS s, coalesce(bit_xor(hashint4(id)), 0) AS x
         FROM %I t WHERE %s) a WHERE q.qid %% %s = 0 AND q.r <= %s', tbl, cond, every, maxr);
  FOR plan IN EXECUTE 'EXPLAIN (COSTS OFF) ' || sql LOOP
    IF plan LIKE (CASE scan WHEN 'bitmap' THEN '%Bitmap Index Scan on ' ELSE '%Index%Scan using ' END) || tbl || '_idx%' THEN
      used := true;
    END IF;
  END LOOP;
  IF NOT used THEN
    SET LOCAL enable_seqscan = on;
    SET LOCAL enable_indexscan = on;
    SET LOCAL enable_bitmapscan = on;
    RETURN 'index not used';
  END IF;
  EXECUTE format('SELECT count(*), coalesce(sum(a.n), 0),
                         count(*) FILTER (WHERE e.qid IS NULL OR (a.n, a.s, a.x) IS DISTINCT FROM (e.n, e.s, e.x))
                    FROM (%s) a LEFT JOIN hx_expected e USING (qid)', sql)
    INTO nq, nrows, bad;
  SET LOCAL enable_seqscan = on;
  SET LOCAL enable_indexscan = on;
  SET LOCAL enable_bitmapscan = on;
  RETURN format('%s queries, %s rows, %s mismatches', nq, nrows, bad);
END $$;

-- every search path of the index: probes of the tables, passes over the
-- rows, and the cost model's choice
CREATE FUNCTION hx_check_paths(every int DEFAULT 1) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  mode text;
BEGIN
  FOREACH mode IN ARRAY ARRAY['tables', 'rows', 'auto'] LOOP
    PERFORM set_config('nddup.hamming_probe', mode, true);
    RETURN NEXT mode || ' bitmap: ' || hx_check('ball', 'bitmap', CASE mode WHEN 'auto' THEN every ELSE every * 2 END);
    RETURN NEXT mode || ' index: ' || hx_check('within', 'index', every * 5);
  END LOOP;
  PERFORM set_config('nddup.hamming_probe', 'auto', true);
END $$;

-- nearest-n: per center, the distances of ORDER BY fp <-> c LIMIT n by the
-- ordered index scan, against the sorted sequential scan (ties make the ids
-- ambiguous, so also: every id returned is at the distance it is listed
-- at); hamming_nearest() against (distance, id) order exactly.
CREATE FUNCTION hx_nearest(n int, every int DEFAULT 1) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  c record;
  idx int[];
  seq int[];
  ids int[];
  nearest bigint[];
  truth bigint[];
  plan text;
  used boolean := false;
  nq int := 0;
  bad int := 0;
  badn int := 0;
BEGIN
  FOR plan IN EXPLAIN (COSTS OFF) SELECT id FROM hx ORDER BY fp <-> '0123456789abcdef' LIMIT 5 LOOP
    IF plan LIKE '%Index%Scan using hx_idx%' THEN
      used := true;
    END IF;
  END LOOP;
  IF NOT used THEN
    RETURN 'index not used';
  END IF;
  FOR c IN SELECT DISTINCT center, min(qid) AS qid FROM hx_queries GROUP BY center ORDER BY 2 LOOP
    CONTINUE WHEN c.qid % every <> 0;
    nq := nq + 1;
    SET LOCAL enable_seqscan = off;
    SELECT array_agg(d ORDER BY o), array_agg(id ORDER BY o) INTO idx, ids FROM
      (SELECT id, fp <-> c.center AS d, row_number() OVER () AS o
         FROM (SELECT id, fp FROM hx ORDER BY fp <-> c.center LIMIT n) s) t;
    SET LOCAL enable_seqscan = on;
    SET LOCAL enable_indexscan = off;
    SET LOCAL enable_bitmapscan = off;
    SELECT array_agg(d ORDER BY d) INTO seq FROM
      (SELECT fp <-> c.center AS d FROM hx ORDER BY fp <-> c.center LIMIT n) s;
    SELECT array_agg(ARRAY[id, d] ORDER BY d, id) INTO truth FROM
      (SELECT id, fp <-> c.center AS d FROM hx WHERE fp IS NOT NULL ORDER BY 2, 1 LIMIT n) s;
    SET LOCAL enable_indexscan = on;
    SET LOCAL enable_bitmapscan = on;
    SELECT array_agg(ARRAY[id, distance] ORDER BY distance, id) INTO nearest
      FROM hamming_nearest('hx', 'id', 'fp', c.center, n);
    IF idx IS DISTINCT FROM seq OR cardinality(ids) IS DISTINCT FROM least(n, (SELECT count(*) FROM hx)) THEN
      bad := bad + 1;
    END IF;
    IF nearest IS DISTINCT FROM truth THEN
      badn := badn + 1;
    END IF;
  END LOOP;
  RETURN format('%s centers, %s ordered-scan mismatches, %s hamming_nearest mismatches', nq, bad, badn);
END $$;

-- a whole ordered scan (every batch, NULLs last) of a few centers
CREATE FUNCTION hx_full_order(every int) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  c record;
  idx text;
  seq text;
  nq int := 0;
  bad int := 0;
BEGIN
  FOR c IN SELECT center, n FROM hx_centers WHERE n % every = 0 LOOP
    nq := nq + 1;
    SET LOCAL enable_seqscan = off;
    SELECT string_agg(coalesce((fp <-> c.center)::text, 'null'), ',' ORDER BY o) INTO idx
      FROM (SELECT fp, row_number() OVER () AS o FROM (SELECT fp FROM hx ORDER BY fp <-> c.center) s) t;
    SET LOCAL enable_seqscan = on;
    SET LOCAL enable_indexscan = off;
    SELECT string_agg(coalesce((fp <-> c.center)::text, 'null'), ',' ORDER BY fp <-> c.center) INTO seq FROM hx;
    SET LOCAL enable_indexscan = on;
    IF idx IS DISTINCT FROM seq THEN
      bad := bad + 1;
    END IF;
  END LOOP;
  RETURN format('%s centers, %s mismatches', nq, bad);
END $$;

SELECT hx_truth() AS expected_rows;

-- 1. built with the smallest maintenance_work_mem (the rows fit in it)
SET maintenance_work_mem = '1MB';
CREATE INDEX hx_idx ON hx USING hamming (fp);
RESET maintenance_work_mem;
SELECT sorted_rows, appendix_rows, dead_rows, directory_bits FROM hamming_index_stats('hx_idx');
SELECT * FROM hx_check_paths();
SELECT hx_check('within2', 'bitmap', 3) AS commuted_within;

-- 2. built in memory: the same answers
DROP INDEX hx_idx;
CREATE INDEX hx_idx ON hx USING hamming (fp simhash64_hamming_ops) WITH (merge_fraction = 1);
CREATE TEMP TABLE hx_built AS SELECT pages FROM hamming_index_stats('hx_idx');
SELECT * FROM hx_check_paths(2);
SELECT hx_nearest(1, 2) AS nearest_1;
SELECT hx_nearest(10) AS nearest_10;
SELECT hx_nearest(150, 5) AS nearest_150;
SELECT hx_full_order(9) AS whole_order;
-- the same with every batch of the ordered scans probing the tables (the
-- later batches probe the shell beyond the rows already returned)
SET nddup.hamming_probe = tables;
SELECT hx_nearest(150, 5) AS nearest_150_tables;
SELECT hx_full_order(9) AS whole_order_tables;
RESET nddup.hamming_probe;

-- 3. inserts after the build go to the appendix (duplicates, NULLs, zeros)
INSERT INTO hx SELECT i, hx_fp(i), 'y' FROM generate_series(5546, 6500) i;
INSERT INTO hx SELECT 7000 + i, hx_fp(1), 'y' FROM generate_series(1, 30) i;
INSERT INTO hx VALUES (7100, NULL, 'y'), (7101, '0000000000000000', 'y');
SELECT sorted_rows, appendix_rows, dead_rows FROM hamming_index_stats('hx_idx');
SELECT hx_truth() AS expected_rows;
SELECT * FROM hx_check_paths(2);
SELECT hx_nearest(10, 2) AS nearest_with_appendix;
SELECT hx_full_order(11) AS whole_order_with_appendix;

-- 4. updates and deletes; VACUUM makes tombstones (no merge: below 1)
UPDATE hx SET fp = hx_flip(fp, id, 2) WHERE id % 11 = 0 AND fp IS NOT NULL;
UPDATE hx SET fp = NULL WHERE id % 101 = 5;
DELETE FROM hx WHERE id % 13 = 0;
SELECT hx_truth() AS expected_rows;
SELECT * FROM hx_check_paths(2);
VACUUM hx;
SELECT sorted_rows, appendix_rows, dead_rows > 0 AS has_tombstones FROM hamming_index_stats('hx_idx');
SELECT * FROM hx_check_paths(2);
SELECT hx_nearest(10, 3) AS nearest_after_vacuum;

-- 5. merges: every VACUUM that sees a change merges (merge_fraction = 0)
ALTER INDEX hx_idx SET (merge_fraction = 0);
VACUUM hx;
SELECT sorted_rows = (SELECT count(*) FROM hx) AS all_sorted, appendix_rows, dead_rows
  FROM hamming_index_stats('hx_idx');
SELECT * FROM hx_check_paths(2);
INSERT INTO hx SELECT i, hx_fp(i), 'z' FROM generate_series(8001, 8400) i;
DELETE FROM hx WHERE id % 17 = 0;
VACUUM hx;    -- tombstones; the last merge's pages wait (merge when recycled)
VACUUM hx;
VACUUM hx;
SELECT sorted_rows = (SELECT count(*) FROM hx) AS all_sorted, appendix_rows, dead_rows
  FROM hamming_index_stats('hx_idx');
SELECT hx_truth() AS expected_rows;
SELECT * FROM hx_check_paths(2);
SELECT hx_nearest(10, 2) AS nearest_after_merge;
SELECT hx_full_order(13) AS whole_order_after_merge;
-- pages of old generations are reused: after three merges of a table that
-- grew by a half, the index is less than three times its first size
SELECT s.pages < 3 * b.pages AS bounded FROM hamming_index_stats('hx_idx') s, hx_built b;

-- 6. lossy bitmaps (tiny work_mem): the recheck of <@ on the heap is exact
-- (the padding spreads the rows over ~1500 heap pages)
CREATE TABLE hx_wide AS SELECT id, fp, repeat('x', 1800) AS pad FROM hx;
CREATE INDEX hx_wide_idx ON hx_wide USING hamming (fp);
CREATE FUNCTION hx_lossy() RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE line text;
BEGIN
  SET LOCAL enable_seqscan = off;
  FOR line IN EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
      SELECT count(*) FROM hx_wide WHERE fp <@ ball(hx_fp(1), 40) LOOP
    IF line LIKE '%Heap Blocks:%lossy=%' THEN
      RETURN true;
    END IF;
  END LOOP;
  RETURN false;
END $$;
SET work_mem = '64kB';
SELECT hx_lossy() AS some_pages_lossy;
SELECT hx_check('ball', 'bitmap', 3, 64, 'hx_wide') AS lossy_bitmaps;
RESET work_mem;
DROP TABLE hx_wide;
DROP FUNCTION hx_lossy();

-- 7. no index-only scans (every row is checked on the heap: the index may
-- hand out rows that VACUUM removed after it found them)
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT fp FROM hx WHERE fp <@ ball('0123456789abcdef', 3);
EXPLAIN (COSTS OFF) SELECT fp FROM hx ORDER BY fp <-> '0123456789abcdef' LIMIT 3;
RESET enable_bitmapscan;
RESET enable_seqscan;

-- 8. several conditions, NULL arguments, the plan's query forms
SET enable_seqscan = off;
SELECT count(*) FROM hx WHERE fp <@ ball(hx_fp(1), 20) AND fp <@ ball(hx_fp(2), 30);
SET enable_indexscan = off; SET enable_bitmapscan = off; SET enable_seqscan = on;
SELECT count(*) FROM hx WHERE fp <@ ball(hx_fp(1), 20) AND fp <@ ball(hx_fp(2), 30);
RESET enable_indexscan; RESET enable_bitmapscan; SET enable_seqscan = off;
SELECT count(*) FROM hx WHERE fp <@ NULL::hamming_ball;
SELECT count(*) FROM hx WHERE within(fp, NULL, 3);
SELECT count(*), count(fp) FROM (SELECT fp FROM hx ORDER BY fp <-> NULL) s;
SELECT count(*) = (SELECT count(*) FROM hx) AS every_row FROM (SELECT fp FROM hx ORDER BY fp <-> '0000000000000000') s;
CREATE FUNCTION hx_uses_index(q text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE line text;
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
    IF line LIKE '%Index Cond: (fp <@ ball(%' AND line NOT LIKE '%Filter%' THEN
      RETURN true;
    END IF;
  END LOOP;
  RETURN false;
END $$;
SELECT hx_uses_index($$SELECT id FROM hx WHERE within(fp, '0123456789abcdef', 12)$$) AS within_indexed;
DROP FUNCTION hx_uses_index(text);
EXPLAIN (COSTS OFF) SELECT id FROM hx WHERE fp <@ ball('0123456789abcdef', 3) ORDER BY fp <-> '0123456789abcdef' LIMIT 2;
RESET enable_seqscan;

-- 9. a large table: 16-bit directories and 6-byte entries; built with the
-- smallest maintenance_work_mem, so that every sort spills to disk
CREATE TABLE hx_big (id int, fp simhash64);
INSERT INTO hx_big SELECT i, hashint8extended(i, 7)::simhash64 FROM generate_series(1, 270000) i;
INSERT INTO hx_big SELECT 300000 + i, hx_flip(hashint8extended(i, 7)::simhash64, i, 1 + i % 12) FROM generate_series(1, 2000) i;
SET maintenance_work_mem = '1MB';
CREATE INDEX hx_big_idx ON hx_big USING hamming (fp);
RESET maintenance_work_mem;
SELECT sorted_rows, directory_bits FROM hamming_index_stats('hx_big_idx');
CREATE FUNCTION hx_big_check() RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  probe text;
  bad int := 0;
  nq int := 0;
  rows bigint := 0;
  a bigint[];
  b bigint[];
  r int;
  c simhash64;
BEGIN
  FOR c IN SELECT fp FROM hx_big WHERE id % 18000 = 1 OR id IN (300001, 300777) LOOP
    -- the truth up to the largest radius, by one sequential scan
    SET LOCAL enable_bitmapscan = off;
    SET LOCAL enable_indexscan = off;
    CREATE TEMP TABLE hx_big_truth AS SELECT id, fp <-> c AS d FROM hx_big WHERE (fp <-> c) <= 16;
    SET LOCAL enable_bitmapscan = on;
    SET LOCAL enable_indexscan = on;
    SET LOCAL enable_seqscan = off;
    FOREACH r IN ARRAY ARRAY[0, 3, 6, 9, 12, 16] LOOP
      SELECT array_agg(id ORDER BY id) INTO b FROM hx_big_truth WHERE d <= r;
      FOREACH probe IN ARRAY ARRAY['tables', 'rows', 'auto'] LOOP
        PERFORM set_config('nddup.hamming_probe', probe, true);
        SELECT array_agg(id ORDER BY id) INTO a FROM hx_big WHERE fp <@ ball(c, r);
        nq := nq + 1;
        rows := rows + coalesce(cardinality(b), 0);
        IF a IS DISTINCT FROM b THEN
          bad := bad + 1;
        END IF;
      END LOOP;
    END LOOP;
    SET LOCAL enable_seqscan = on;
    DROP TABLE hx_big_truth;
  END LOOP;
  PERFORM set_config('nddup.hamming_probe', 'auto', true);
  RETURN NEXT format('%s queries, %s rows, %s mismatches', nq, rows, bad);
END $$;
SELECT hx_big_check() AS big;
-- nearest-10 of far and near centers
SELECT count(*) FILTER (WHERE a = b) AS exact, count(*) AS centers FROM (
  SELECT (SELECT array_agg(d) FROM (SELECT fp <-> c.fp AS d FROM hx_big ORDER BY fp <-> c.fp LIMIT 10) s) AS a,
         (SELECT array_agg(d ORDER BY d) FROM (SELECT (fp <-> c.fp) AS d FROM hx_big ORDER BY 1 LIMIT 10) s) AS b
    FROM (SELECT fp FROM hx_big WHERE id % 15000 = 7 UNION ALL SELECT hashint8extended(-i, 3)::simhash64 FROM generate_series(1, 5) i) c) x;
-- the same with the later batches probing the tables, as large tables do
SET nddup.hamming_probe = tables;
SELECT count(*) FILTER (WHERE a = b) AS exact, count(*) AS centers FROM (
  SELECT (SELECT array_agg(d) FROM (SELECT fp <-> c.fp AS d FROM hx_big ORDER BY fp <-> c.fp LIMIT 10) s) AS a,
         (SELECT array_agg(d ORDER BY d) FROM (SELECT (fp <-> c.fp) AS d FROM hx_big ORDER BY 1 LIMIT 10) s) AS b
    FROM (SELECT fp FROM hx_big WHERE id % 15000 = 7 UNION ALL SELECT hashint8extended(-i, 3)::simhash64 FROM generate_series(1, 5) i) c) x;
RESET nddup.hamming_probe;
-- rows whose fingerprint is NULL beyond the memory of their own sort (they
-- spill to sorted runs too, and come last in table 0): the same answers
INSERT INTO hx_big SELECT 400000 + i, NULL FROM generate_series(1, 20000) i;
SET maintenance_work_mem = '1MB';
REINDEX INDEX hx_big_idx;
RESET maintenance_work_mem;
SELECT sorted_rows, directory_bits FROM hamming_index_stats('hx_big_idx');
SELECT hx_big_check() AS big_with_nulls;
-- the three ways a build sorts tables 1..3, on 500,000 rows: in memory
-- (64MB), in slices of their top bits (2MB: 131,072 keys a slice), and in
-- sorted runs in temporary files (1MB: more than 7 slices); every radius
-- answer of 24 centers equal to a sequential scan's
CREATE TABLE hx_huge (id int, fp simhash64);
INSERT INTO hx_huge SELECT i, hashint8extended(i, 11)::simhash64 FROM generate_series(1, 500000) i;
INSERT INTO hx_huge SELECT 600000 + i, hx_flip(hashint8extended(i * 97, 11)::simhash64, i, 1 + i % 6) FROM generate_series(1, 3000) i;
CREATE TEMP TABLE hx_huge_truth AS
  SELECT c.id AS qid, r, (SELECT count(*) FROM hx_huge h WHERE (h.fp <-> c.fp) <= r) AS n
    FROM hx_huge c, unnest(ARRAY[3, 6, 12]) r WHERE c.id % 25000 = 1 OR c.id IN (600600, 601600, 602600);
SELECT count(*) AS checks FROM hx_huge_truth;
CREATE FUNCTION hx_huge_check(mwm text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  bad int;
BEGIN
  DROP INDEX IF EXISTS hx_huge_idx;
  PERFORM set_config('maintenance_work_mem', mwm, true);
  CREATE INDEX hx_huge_idx ON hx_huge USING hamming (fp);
  PERFORM set_config('enable_seqscan', 'off', true);
  SELECT count(*) INTO bad FROM hx_huge_truth t JOIN hx_huge c ON c.id = t.qid
   WHERE (SELECT count(*) FROM hx_huge h WHERE h.fp <@ ball(c.fp, t.r)) <> t.n;
  PERFORM set_config('enable_seqscan', 'on', true);
  RETURN format('%s: %s mismatches', mwm, bad);
END $$;
SELECT hx_huge_check('64MB') AS in_memory, hx_huge_check('2MB') AS slices, hx_huge_check('1MB') AS runs;
DROP TABLE hx_huge;
DROP FUNCTION hx_huge_check(text);

-- 10. other relations: unlogged (init fork), empty at build, temporary
CREATE UNLOGGED TABLE hx_unlogged (id int, fp simhash64);
CREATE INDEX ON hx_unlogged USING hamming (fp);
INSERT INTO hx_unlogged SELECT id, fp FROM hx WHERE id < 600;
CREATE TEMP TABLE hx_temp (id int, fp simhash64);
CREATE INDEX hx_temp_idx ON hx_temp USING hamming (fp);
INSERT INTO hx_temp SELECT id, fp FROM hx WHERE id < 600;
SET enable_seqscan = off;
SELECT (SELECT count(*) FROM hx_unlogged WHERE fp <@ ball(hx_fp(1), 5)) AS unlogged,
       (SELECT count(*) FROM hx_temp WHERE fp <@ ball(hx_fp(1), 5)) AS temp,
       (SELECT count(*) FROM hx WHERE id < 600 AND (fp <-> hx_fp(1)) <= 5) AS expected;
VACUUM hx_temp;
SELECT count(*) FROM hx_temp WHERE fp <@ ball(hx_fp(1), 5);
RESET enable_seqscan;

-- 11. errors and statistics
CREATE INDEX hx_bad ON hx USING hamming (fp) WITH (merge_fraction = 2);
CREATE INDEX hx_bad ON hx USING hamming (id, fp);
CREATE INDEX hx_bad ON hx USING hamming (id);
SELECT * FROM hamming_index_stats('hx');
SELECT * FROM hamming_index_stats('hx_pkey_nope');
CREATE INDEX hx_btree ON hx (id);
SELECT * FROM hamming_index_stats('hx_btree');
SET nddup.hamming_probe = 'sometimes';
-- every scan of the index counts in pg_stat_user_indexes.idx_scan (a plain
-- index scan and a bitmap scan: two)
SELECT pg_stat_force_next_flush();
SELECT idx_scan AS hx_scans FROM pg_stat_user_indexes WHERE indexrelname = 'hx_idx' \gset
SET enable_seqscan = off; SET enable_bitmapscan = off;
SELECT count(*) FROM hx WHERE fp <@ ball(hx_fp(1), 3);
SET enable_bitmapscan = on; SET enable_indexscan = off;
SELECT count(*) FROM hx WHERE fp <@ ball(hx_fp(1), 3);
RESET enable_seqscan; RESET enable_bitmapscan; RESET enable_indexscan;
SELECT pg_stat_force_next_flush();
SELECT idx_scan - :hx_scans AS scans_counted FROM pg_stat_user_indexes WHERE indexrelname = 'hx_idx';

DROP TABLE hx, hx_queries, hx_centers, hx_expected, hx_big, hx_unlogged, hx_temp, hx_built;
DROP FUNCTION hx_check(text, text, int, int, text), hx_check_paths(int), hx_nearest(int, int),
  hx_full_order(int), hx_truth(), hx_big_check(), hx_fp(int), hx_flip(simhash64, int, int, int), hx_random(int);
