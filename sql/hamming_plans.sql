--
-- The planner with several Hamming indexes on one column (the hamming
-- access method, simhash64_gin_ops, simhash64_spgist_ops): each query form
-- goes to the index that is fastest for it, or to a sequential scan where
-- no index is faster, at default settings.  The choices pinned here were
-- checked against measured times on this table (docs/indexes.md, "The
-- planner"): e.g. radius 12: hamming 0.26 ms, GIN 6.6 ms, SP-GiST 63 ms,
-- sequential scan 36 ms; nearest-10: hamming 0.17 ms, SP-GiST 144 ms,
-- sequential scan 69 ms.
--
SET client_min_messages = warning;

-- 90,000 uniform fingerprints and 10,000 near copies (1-2 bits) of 1,000 of them
CREATE TABLE hp (id int, fp simhash64);
INSERT INTO hp SELECT i, hashint8extended(i, 1)::simhash64 FROM generate_series(1, 90000) i;
INSERT INTO hp SELECT 90000 + i, (hashint8extended(i % 1000, 1)
	# (1::bigint << (i % 64)) # (1::bigint << ((i * 7) % 64)))::simhash64 FROM generate_series(1, 10000) i;
CREATE INDEX hp_ham ON hp USING hamming (fp);
CREATE INDEX hp_gin ON hp USING gin (fp) WITH (fastupdate = off);
CREATE INDEX hp_spg ON hp USING spgist (fp);
-- statistics from every row (a sample would make them, and plans, vary)
ALTER TABLE hp ALTER COLUMN fp SET STATISTICS 400;
VACUUM ANALYZE hp;

-- the scan nodes of a query's plan, with some indexes hidden
CREATE FUNCTION hp_plan(q text, hide text[] DEFAULT '{}') RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  line text;
  res text := '';
  i text;
BEGIN
  BEGIN
    FOREACH i IN ARRAY hide LOOP
      EXECUTE format('DROP INDEX %I', i);
    END LOOP;
    FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
      IF line ~ 'Scan' THEN
        res := res || CASE WHEN res = '' THEN '' ELSE ' / ' END
          || regexp_replace(regexp_replace(line, '^\s*(->\s*)?', ''), ' on hp$', '');
      END IF;
    END LOOP;
    RAISE EXCEPTION 'undo';
  EXCEPTION WHEN raise_exception THEN NULL;
  END;
  RETURN res;
END $$;

CREATE TABLE hp_forms (n int, form text, q text);
INSERT INTO hp_forms VALUES
  (1, 'radius 0', 'SELECT id FROM hp WHERE fp <@ ball(''0123456789abcdef'', 0)'),
  (2, 'radius 3', 'SELECT id FROM hp WHERE fp <@ ball(''0123456789abcdef'', 3)'),
  (3, 'radius 6', 'SELECT id FROM hp WHERE fp <@ ball(''0123456789abcdef'', 6)'),
  (4, 'within 12', 'SELECT id FROM hp WHERE within(fp, ''0123456789abcdef'', 12)'),
  (5, 'radius 24', 'SELECT id FROM hp WHERE fp <@ ball(''0123456789abcdef'', 24)'),
  (6, 'radius 40', 'SELECT id FROM hp WHERE fp <@ ball(''0123456789abcdef'', 40)'),
  (7, 'nearest 10', 'SELECT id FROM hp ORDER BY fp <-> ''0123456789abcdef'' LIMIT 10'),
  (8, 'radius 3, nearest 10', 'SELECT id FROM hp WHERE fp <@ ball(''0123456789abcdef'', 3) ORDER BY fp <-> ''0123456789abcdef'' LIMIT 10');

-- all three indexes: the hamming index, except where every other row
-- matches (radius 40: a sequential scan)
SELECT form, hp_plan(q) AS all_three FROM hp_forms ORDER BY n;
-- without it: GIN for radius searches up to 12, then a sequential scan;
-- SP-GiST's ordered scan is slower than a sorted sequential scan
SELECT form, hp_plan(q, '{hp_ham}') AS gin_and_spgist FROM hp_forms ORDER BY n;
-- SP-GiST alone: radius 0 and 3 (also bounding an ordered scan), a
-- sequential scan from radius 6
SELECT form, hp_plan(q, '{hp_ham,hp_gin}') AS spgist_only FROM hp_forms ORDER BY n;

-- a generic plan (the trigger's lookup: the radius is a parameter)
SET plan_cache_mode = force_generic_plan;
PREPARE hp_lookup(simhash64, int) AS
  SELECT id FROM hp WHERE fp <@ ball($1, $2) ORDER BY ROW(id) LIMIT 1;
EXPLAIN (COSTS OFF) EXECUTE hp_lookup('0123456789abcdef', 12);
PREPARE hp_within(simhash64, int) AS SELECT count(*) FROM hp WHERE within(fp, $1, $2);
EXPLAIN (COSTS OFF) EXECUTE hp_within('0123456789abcdef', 12);
RESET plan_cache_mode;

DROP TABLE hp, hp_forms;
DROP FUNCTION hp_plan(text, text[]);
