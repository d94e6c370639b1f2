-- Helpers of test/bench/hamming_compare.sh: one query function per method
-- (static SQL, so PL/pgSQL prepares it once, as an application would), and
-- in-server timing of radius and nearest-10 queries with recall against the
-- exact answers of a sequential scan.

-- Make cmp_q_<name>(c, r), returning the ids a method answers (radius r,
-- or the 10 nearest when r < 0), from the body's SQL ($1 center, $2 radius).
CREATE FUNCTION cmp_make(name text, body text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format($f$
    CREATE OR REPLACE FUNCTION %I(c simhash64, r int) RETURNS bigint[] LANGUAGE plpgsql AS $b$
    BEGIN
      RETURN ARRAY(%s);
    END $b$ $f$, 'cmp_q_' || name, replace(replace(body, '$1', 'c'), '$2', 'r'));
END $$;

-- The exact answers: ids within each radius (up to the largest), and the
-- 10th-nearest distance, for every center, by sequential scans.
CREATE FUNCTION cmp_truth(maxr int, nq int) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  SET LOCAL enable_indexscan = off;
  SET LOCAL enable_bitmapscan = off;
  SET LOCAL enable_indexonlyscan = off;
  CREATE TABLE cmp_truth_ball AS
    SELECT c.qid, t.id, t.fp <-> c.center AS d
    FROM (SELECT * FROM cmp_centers ORDER BY qid LIMIT nq) c, fps t WHERE (t.fp <-> c.center) <= maxr;
  CREATE TABLE cmp_truth_knn AS
    SELECT c.qid, c.kind, (SELECT max(d) FROM (SELECT fp <-> c.center AS d FROM fps
                                                WHERE fp IS NOT NULL ORDER BY 1 LIMIT 10) s) AS d10
    FROM (SELECT * FROM cmp_centers ORDER BY qid LIMIT nq) c;
END $$;

-- Time the method on nq centers at radius r (r < 0: nearest-10 of the
-- centers of kind `kind`); p50, p99 and mean in ms, and recall.
CREATE FUNCTION cmp_run(name text, r int, nq int, kind text DEFAULT 'near',
                        settings text DEFAULT '')
RETURNS TABLE (p50_ms float8, p99_ms float8, mean_ms float8, recall float8)
LANGUAGE plpgsql AS $$
DECLARE
  c record;
  t0 timestamptz;
  ms float8[] := '{}';
  ids bigint[];
  found bigint := 0;
  want bigint := 0;
  s text;
BEGIN
  FOREACH s IN ARRAY string_to_array(settings, ';') LOOP
    IF btrim(s) <> '' THEN
      EXECUTE 'SET LOCAL ' || s;
    END IF;
  END LOOP;
  FOR c IN SELECT * FROM cmp_centers WHERE r >= 0 OR cmp_centers.kind = cmp_run.kind
           ORDER BY qid LIMIT nq LOOP
    t0 := clock_timestamp();
    EXECUTE format('SELECT %I($1, $2)', 'cmp_q_' || name) INTO ids USING c.center, r;
    ms := ms || (extract(epoch FROM clock_timestamp() - t0) * 1000)::float8;
    IF r >= 0 THEN
      want := want + (SELECT count(*) FROM cmp_truth_ball b WHERE b.qid = c.qid AND b.d <= r);
      found := found + (SELECT count(*) FROM cmp_truth_ball b WHERE b.qid = c.qid AND b.d <= r
                                                                 AND b.id = ANY (ids));
    ELSE
      -- recall@10: returned rows within the true 10th distance (ties count)
      want := want + 10;
      found := found + least(10, (SELECT count(*) FROM fps f, cmp_truth_knn k
                                  WHERE f.id = ANY (ids) AND k.qid = c.qid
                                    AND (f.fp <-> c.center) <= k.d10));
    END IF;
  END LOOP;
  RETURN QUERY SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x),
                      percentile_cont(0.99) WITHIN GROUP (ORDER BY x), avg(x),
                      CASE WHEN want = 0 THEN 1 ELSE found::float8 / want END
               FROM unnest(ms) x;
END $$;
