--
-- simhash64_gin_ops: exact Hamming-radius search with GIN, and the planner
-- support of within() and <@.  Every index answer is compared with the
-- sequential-scan answer (count, sum and xor-hash of the ids per query).
--
SET client_min_messages = warning;

-- deterministic fingerprints: md5 of the row number, flipped bits from md5
CREATE FUNCTION gh_random(i int) RETURNS simhash64 LANGUAGE sql IMMUTABLE AS
$$ SELECT ('x' || substr(md5('r' || i), 1, 16))::bit(64)::bigint::simhash64 $$;
CREATE FUNCTION gh_flip(fp simhash64, seed int, nbits int, lowbit int DEFAULT 0)
RETURNS simhash64 LANGUAGE sql IMMUTABLE AS
$$ SELECT (fp::bigint # (SELECT bit_or(1::bigint << (lowbit + get_byte(decode(md5('f' || seed), 'hex'), k) % (64 - lowbit)))
                          FROM generate_series(0, nbits - 1) k))::simhash64 $$;
CREATE FUNCTION gh_fp(i int) RETURNS simhash64 LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE
    WHEN i <= 5000 THEN gh_random(i)                                   -- uniform
    WHEN i <= 6000 THEN gh_flip(gh_random((i * 7919) % 5000 + 1), i, 1 + i % 6) -- planted 1-6 bits
    WHEN i <= 6200 THEN (('x' || substr(md5('s' || i), 1, 8) || '00000000')::bit(64)::bigint)::simhash64 -- low 32 bits zero
    WHEN i <= 6300 THEN gh_flip((('x' || substr(md5('s' || (6001 + i % 200)), 1, 8) || '00000000')::bit(64)::bigint)::simhash64, i, 1 + i % 5, 32)
    WHEN i <= 6350 THEN gh_random(1)                                   -- repeated
    WHEN i <= 6360 THEN '0000000000000000'::simhash64                  -- all zero
    WHEN i <= 6365 THEN 'ffffffffffffffff'::simhash64
    WHEN i <= 6385 THEN NULL
    WHEN i % 3 = 0 THEN gh_flip(gh_fp(i - 6000), i, 1 + i % 4)         -- later rows
    ELSE gh_random(i) END $$;

-- the padding spreads the rows over ~1800 heap pages (for lossy bitmaps)
CREATE TABLE gh (id int, fp simhash64, pad text);
INSERT INTO gh SELECT i, gh_fp(i), repeat('x', 1800) FROM generate_series(1, 6385) i;

-- queries: ~80 centers at radius 0..12, fewer at larger radii, plus corner cases
CREATE TABLE gh_queries (qid serial, center simhash64, r int);
CREATE TABLE gh_centers AS
  SELECT fp AS center, row_number() OVER (ORDER BY id) AS n FROM gh WHERE id % 97 = 1
  UNION ALL SELECT gh_fp(i), 1000 + i FROM unnest(array[6001, 6250, 6301, 6355, 6361, 6370]) i
  UNION ALL SELECT gh_random(-i), 2000 + i FROM generate_series(1, 3) i;
INSERT INTO gh_queries (center, r)
  SELECT center, r FROM gh_centers, generate_series(0, 12) r
  UNION ALL SELECT center, r FROM gh_centers, generate_series(13, 20) r WHERE n % 9 = 1 OR n > 1000
  UNION ALL SELECT center, r FROM gh_centers, unnest(array[24, 28, 32, 40, 48, 63, 64]) r WHERE n % 40 = 1 OR n IN (1003, 1004)
  ORDER BY 1, 2;
SELECT count(*) AS queries, count(DISTINCT center) AS centers, max(r) AS max_radius FROM gh_queries;

-- the sequential-scan answer of every query, recomputed after each change
CREATE FUNCTION gh_truth() RETURNS bigint LANGUAGE plpgsql AS $$
BEGIN
  SET LOCAL enable_bitmapscan = off;
  SET LOCAL enable_indexscan = off;
  DROP TABLE IF EXISTS gh_expected;
  CREATE TEMP TABLE gh_expected AS
    SELECT q.qid, a.* FROM gh_queries q CROSS JOIN LATERAL
      (SELECT count(*) AS n, coalesce(sum(id), 0) AS s, coalesce(bit_xor(hashint4(id)), 0) AS x
         FROM gh t WHERE (t.fp <-> q.center) <= q.r) a;
  RETURN (SELECT sum(n) FROM gh_expected);
END $$;

-- the index answer of every query (form: 'ball', 'within' or 'within2'),
-- compared with the truth; also checks that a GIN index was used
CREATE FUNCTION gh_check(form text DEFAULT 'ball', every int DEFAULT 1, maxr int DEFAULT 64) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  cond text := CASE form WHEN 'ball' THEN 't.fp <@ ball(q.center, q.r)'
                         WHEN 'within' THEN 'within(t.fp, q.center, q.r)'
                         ELSE 'within(q.center, t.fp, q.r)' END;
  sql text;
  plan text;
  nq bigint;
  nrows bigint;
  bad bigint;
BEGIN
  SET LOCAL enable_seqscan = off;
  SET LOCAL enable_indexscan = off;
  sql := format('SELECT q.qid, a.* FROM gh_queries q CROSS JOIN LATERAL
      (SELECT count(*) AS n, coalesce(sum(id), 0) AS s, coalesce(bit_xor(hashint4(id)), 0) AS x
         FROM gh t WHERE %s) a WHERE q.qid %% %s = 0 AND q.r <= %s', cond, every, maxr);
  FOR plan IN EXECUTE 'EXPLAIN (COSTS OFF) ' || sql LOOP
    EXIT WHEN plan LIKE '%Bitmap Index Scan%';
  END LOOP;
  IF plan NOT LIKE '%Bitmap Index Scan%' THEN
    RETURN 'index not used';
  END IF;
  EXECUTE format('SELECT count(*), coalesce(sum(a.n), 0),
                         count(*) FILTER (WHERE e.qid IS NULL OR (a.n, a.s, a.x) IS DISTINCT FROM (e.n, e.s, e.x))
                    FROM (%s) a LEFT JOIN gh_expected e USING (qid)', sql)
    INTO nq, nrows, bad;
  RETURN format('%s queries, %s rows, %s mismatches', nq, nrows, bad);
END $$;

SELECT gh_truth() AS expected_rows;

-- 1. default opclass (full layout, 4 blocks), rows in the pending list
-- (a scan compares every pending row with every probe: large radii are slow
-- there, so most of them are checked after VACUUM)
CREATE INDEX gh_idx ON gh USING gin (fp simhash64_gin_ops) WITH (fastupdate = on, gin_pending_list_limit = 4096);
INSERT INTO gh SELECT i, gh_fp(i), repeat('x', 1800) FROM generate_series(6386, 6700) i;
SELECT gh_truth() AS expected_rows;
SELECT gh_check('ball', 1, 12) AS pending_list;
SELECT gh_check('ball', 7) AS pending_list_all_radii;
SELECT gh_check('within', 1, 12) AS pending_list_within;
SELECT gh_check('within2', 3, 12) AS pending_list_within_commuted;

-- 2. after VACUUM (pending list merged), then direct inserts, UPDATE,
-- DELETE, VACUUM
VACUUM gh;
SELECT gh_check('ball') AS after_vacuum;
ALTER INDEX gh_idx SET (fastupdate = off);
INSERT INTO gh SELECT i, gh_fp(i), repeat('x', 1800) FROM generate_series(6701, 7200) i;
UPDATE gh SET fp = gh_flip(fp, id, 2) WHERE id % 11 = 0;
UPDATE gh SET fp = NULL WHERE id % 101 = 5;
DELETE FROM gh WHERE id % 13 = 0;
SELECT gh_truth() AS expected_rows;
SELECT gh_check('ball') AS after_update_delete;
VACUUM gh;
SELECT gh_check('ball', 2) AS after_second_vacuum;

-- 3. lossy bitmaps: the recheck of <@ on the heap is exact
CREATE FUNCTION gh_lossy(r int) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE line text;
BEGIN
  SET LOCAL enable_seqscan = off;
  FOR line IN EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
      SELECT count(*) FROM gh WHERE fp <@ ball(gh_fp(1), r) LOOP
    IF line LIKE '%Heap Blocks:%lossy=%' THEN
      RETURN true;
    END IF;
  END LOOP;
  RETURN false;
END $$;
SET work_mem = '64kB';
SELECT gh_lossy(40) AS some_pages_lossy;
SELECT gh_check('ball', 2) AS lossy_bitmaps;
RESET work_mem;

-- 4. other layouts and block counts, built from scratch (no pending list)
DROP INDEX gh_idx;
CREATE INDEX gh_idx ON gh USING gin (fp simhash64_gin_ops(layout = block)) WITH (fastupdate = off);
SELECT gh_check('ball') AS block_4;
SET work_mem = '64kB';
SELECT gh_check('within', 2) AS block_4_lossy;
RESET work_mem;
DROP INDEX gh_idx;
CREATE INDEX gh_idx ON gh USING gin (fp simhash64_gin_ops(blocks = 2)) WITH (fastupdate = off);
SELECT gh_check('ball', 3) AS full_2;
DROP INDEX gh_idx;
CREATE INDEX gh_idx ON gh USING gin (fp simhash64_gin_ops(blocks = 3)) WITH (fastupdate = off);
SELECT gh_check('ball', 3) AS full_3;
DROP INDEX gh_idx;
CREATE INDEX gh_idx ON gh USING gin (fp simhash64_gin_ops(blocks = 5, layout = 'full'));
SELECT gh_check('ball', 3) AS full_5;
DROP INDEX gh_idx;
CREATE INDEX gh_idx ON gh USING gin (fp simhash64_gin_ops(blocks = 8, layout = block));
SELECT gh_check('ball', 3) AS block_8;
DROP INDEX gh_idx;
CREATE INDEX gh_idx ON gh USING gin (fp simhash64_gin_ops(blocks = 6));
SELECT gh_check('ball', 3) AS full_6;
SELECT gh_check('within', 5) AS full_6_within;

-- 5. the query forms in EXPLAIN
DROP INDEX gh_idx;
CREATE INDEX gh_idx ON gh USING gin (fp);
ANALYZE gh;
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM gh WHERE fp <@ ball('0123456789abcdef', 3);
EXPLAIN (COSTS OFF) SELECT id FROM gh WHERE within(fp, '0123456789abcdef', 3);
-- a radius outside 0..64 is not made an index condition (the call then fails)
RESET enable_seqscan;
EXPLAIN (COSTS OFF) SELECT id FROM gh WHERE within('0123456789abcdef', fp, 100);
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM gh WHERE fp <@ '0123456789abcdef/2'::hamming_ball;
PREPARE gh_p(simhash64, int) AS SELECT count(*) FROM gh WHERE within(fp, $1, $2);
PREPARE gh_b(simhash64, int) AS SELECT count(*) FROM gh WHERE fp <@ ball($1, $2);
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE gh_p('0123456789abcdef', 3);
EXPLAIN (COSTS OFF) EXECUTE gh_b('0123456789abcdef', 3);
-- a radius above 64 is out of range, as in ball()
EXECUTE gh_p(gh_fp(1), 100);
SELECT count(fp) FROM gh;
EXECUTE gh_b(gh_fp(1), 3);
RESET plan_cache_mode;
RESET enable_seqscan;

-- the planner: the index for a small radius, a sequential scan for a large one
EXPLAIN (COSTS OFF) SELECT id FROM gh WHERE within(fp, gh_fp(17), 3);
EXPLAIN (COSTS OFF) SELECT id FROM gh WHERE fp <@ ball(gh_fp(17), 40);
SELECT r, (SELECT count(*) FROM gh WHERE within(fp, gh_fp(17), r)) AS rows_within
  FROM unnest(array[0, 3, 6, 40]) r;

-- 6. errors
-- invalid opclass options
CREATE INDEX gh_bad ON gh USING gin (fp simhash64_gin_ops(blocks = 1));
CREATE INDEX gh_bad ON gh USING gin (fp simhash64_gin_ops(blocks = 9));
CREATE INDEX gh_bad ON gh USING gin (fp simhash64_gin_ops(layout = 'tree'));
CREATE INDEX gh_bad ON gh USING gin (fp simhash64_gin_ops(max_radius = 3));
-- radius out of range
SELECT count(*) FROM gh WHERE fp <@ ball(gh_fp(1), 65);
SELECT count(*) FROM gh WHERE fp <@ ball(gh_fp(1), -1);
SET enable_seqscan = off;
SELECT count(*) FROM gh WHERE within(fp, gh_fp(1), -1);
SET plan_cache_mode = force_generic_plan;
EXECUTE gh_p(gh_fp(1), -1);
RESET plan_cache_mode;
-- gin_fuzzy_search_limit would drop matching rows: refused
SET gin_fuzzy_search_limit = 1000;
SELECT count(*) FROM gh WHERE fp <@ ball(gh_fp(1), 3);
SELECT count(*) FROM gh WHERE within(fp, gh_fp(1), 3);
RESET gin_fuzzy_search_limit;
SELECT count(*) FROM gh WHERE fp <@ ball(gh_fp(1), 3);
RESET enable_seqscan;

DROP TABLE gh, gh_queries, gh_centers, gh_expected;
DROP FUNCTION gh_check(text, int, int), gh_lossy(int), gh_truth(), gh_fp(int), gh_flip(simhash64, int, int, int), gh_random(int);
