--
-- The table count of the hamming access method (docs/indexes.md, "Table
-- count"): the index option tables forces 2, 3 or 4 tables (0, the default,
-- lets the row count choose: 4 below about 200M rows).  With each count,
-- every radius answer (11 radii, 0..20) and every nearest-10 answer is
-- compared with the sequential scan, after the build, after inserts into
-- the appendix and after the merge that VACUUM runs; the index shrinks with
-- fewer tables.
--
SET client_min_messages = warning;

CREATE TABLE ht (id int, fp simhash64);
-- 5000 uniform rows, 1500 planted 1-7-bit variants, 50 copies, 20 NULLs
INSERT INTO ht
  SELECT i, CASE
    WHEN i <= 5000 THEN hashint8extended(i, 7)::simhash64
    WHEN i <= 6500 THEN (hashint8extended(i % 5000 + 1, 7)
          # (SELECT bit_or(1::bigint << (abs(hashint8extended(i * 8 + k, 3)) % 64)::int)
               FROM generate_series(0, i % 7) k))::simhash64
    WHEN i <= 6550 THEN hashint8extended(17, 7)::simhash64
    ELSE NULL END
  FROM generate_series(1, 6570) i;

CREATE TABLE ht_centers AS
  SELECT row_number() OVER (ORDER BY id) AS qid, fp AS center FROM ht
   WHERE id % 331 = 3 AND fp IS NOT NULL
  UNION ALL SELECT 1000 + i, hashint8extended(-i, 9)::simhash64 FROM generate_series(1, 5) i;

-- the truth by sequential scans: per center and radius the count and
-- sum of the ids within it, per center the distance of the 10th nearest
CREATE FUNCTION ht_truth() RETURNS bigint LANGUAGE plpgsql AS $$
BEGIN
  SET LOCAL enable_bitmapscan = off;
  SET LOCAL enable_indexscan = off;
  DROP TABLE IF EXISTS ht_expected;
  CREATE TEMP TABLE ht_expected AS
    SELECT c.qid, r, (SELECT count(*) FROM ht WHERE (fp <-> c.center) <= r) AS n,
           (SELECT coalesce(sum(id), 0) FROM ht WHERE (fp <-> c.center) <= r) AS s,
           (SELECT max(d) FROM (SELECT fp <-> c.center AS d FROM ht WHERE fp IS NOT NULL
                                 ORDER BY 1 LIMIT 10) k) AS d10
      FROM ht_centers c, unnest(ARRAY[0, 1, 3, 4, 6, 7, 9, 12, 13, 16, 20]) r;
  RETURN (SELECT sum(n) FROM ht_expected);
END $$;

-- the index's answers (probing the tables, no sequential scan), compared
CREATE FUNCTION ht_check() RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  c record;
  rad int;
  n bigint;
  s bigint;
  d10 int;
  e record;
  nq int := 0;
  bad int := 0;
BEGIN
  SET LOCAL enable_seqscan = off;
  SET LOCAL nddup.hamming_probe = 'tables';
  FOR c IN SELECT * FROM ht_centers ORDER BY qid LOOP
    FOREACH rad IN ARRAY ARRAY[0, 1, 3, 4, 6, 7, 9, 12, 13, 16, 20] LOOP
      SELECT count(*), coalesce(sum(id), 0) INTO n, s FROM ht WHERE fp <@ ball(c.center, rad);
      SELECT * INTO e FROM ht_expected x WHERE x.qid = c.qid AND x.r = rad;
      nq := nq + 1;
      IF (n, s) IS DISTINCT FROM (e.n, e.s) THEN
        bad := bad + 1;
      END IF;
    END LOOP;
    SELECT max(d) INTO d10 FROM (SELECT fp <-> c.center AS d FROM ht
                                  ORDER BY fp <-> c.center LIMIT 10) k;
    nq := nq + 1;
    IF d10 IS DISTINCT FROM e.d10 THEN
      bad := bad + 1;
    END IF;
  END LOOP;
  RETURN format('%s queries, %s mismatches', nq, bad);
END $$;

SELECT ht_truth() > 0 AS truth;

-- each forced count, and the default; sizes shrink with fewer tables
CREATE TABLE ht_sizes (tables int, bytes bigint);
DO $$
DECLARE
  t int;
BEGIN
  FOREACH t IN ARRAY ARRAY[2, 3, 4, 0] LOOP
    EXECUTE format('CREATE INDEX ht_idx ON ht USING hamming (fp) WITH (tables = %s)', t);
    INSERT INTO ht_sizes VALUES (t, pg_relation_size('ht_idx'));
    RAISE WARNING 'tables = %: %', t, ht_check();
    DROP INDEX ht_idx;
  END LOOP;
END $$;
SELECT (SELECT bytes FROM ht_sizes WHERE tables = 2) < (SELECT bytes FROM ht_sizes WHERE tables = 3) AS two_smaller,
       (SELECT bytes FROM ht_sizes WHERE tables = 3) < (SELECT bytes FROM ht_sizes WHERE tables = 4) AS three_smaller,
       (SELECT bytes FROM ht_sizes WHERE tables = 0) = (SELECT bytes FROM ht_sizes WHERE tables = 4) AS default_four;

-- three tables through inserts (appendix), deletes and the merge
CREATE INDEX ht_idx ON ht USING hamming (fp) WITH (tables = 3, merge_fraction = 0);
INSERT INTO ht
  SELECT i, (hashint8extended(i % 3000 + 1, 7) # (1::bigint << (i % 64)::int))::simhash64
  FROM generate_series(7001, 7600) i;
DELETE FROM ht WHERE id % 11 = 0;
SELECT ht_truth() > 0 AS truth;
SELECT ht_check() AS appendix;
VACUUM ht;
SELECT sorted_rows, appendix_rows FROM hamming_index_stats('ht_idx');
SELECT ht_check() AS merged;

-- the option changes the next merge or rebuild
ALTER INDEX ht_idx SET (tables = 2);
REINDEX INDEX ht_idx;
SELECT ht_check() AS two_after_reindex;

-- the planner's estimate follows the index's tables: it still chooses the
-- index (as an index scan or a bitmap scan: the costs of the two are close
-- with 2 tables, and which one wins depends on the table's statistics)
DO $$
DECLARE
	line text;
	uses_index boolean := false;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) SELECT id FROM ht WHERE fp <@ ball(''0123456789abcdef'', 3)' LOOP
		uses_index := uses_index OR line ~ 'Index Scan (using|on) ht_idx( |$)';
	END LOOP;
	RAISE WARNING 'the radius-3 query uses ht_idx: %', uses_index;
END
$$;

-- out of range
CREATE INDEX ht_bad ON ht USING hamming (fp) WITH (tables = 1);
CREATE INDEX ht_bad ON ht USING hamming (fp) WITH (tables = 5);

DROP TABLE ht, ht_centers, ht_sizes;
DROP FUNCTION ht_truth(), ht_check();
