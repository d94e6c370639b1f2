-- Helpers of test/bench/hamming_curve.sh: in-server timing of the radius
-- and nearest-10 queries of every center, with each answer kept for the
-- comparison with the flat scan, and the per-insert timing of the trigger.

-- p50, p99 and mean of a list of times.
CREATE FUNCTION hc_stats(ms float8[], OUT p50_ms float8, OUT p99_ms float8, OUT mean_ms float8)
LANGUAGE sql AS $$
  SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x),
         percentile_cont(0.99) WITHIN GROUP (ORDER BY x), avg(x)
    FROM unnest(ms) x
$$;

-- Time the queries of mode ('index': no sequential scan, 'seq': no index)
-- at radius r (count of rows) or, when r < 0, nearest-10 of the centers of
-- kind `kind` (distance of the 10th row); nq centers.  Appends one row per
-- center to hc_answers under measure, returns p50, p99, mean in ms.
CREATE FUNCTION hc_run(mode text, measure text, r int, kind text, nq int)
RETURNS TABLE (p50_ms float8, p99_ms float8, mean_ms float8)
LANGUAGE plpgsql AS $$
DECLARE
  c record;
  t0 timestamptz;
  ms float8[] := '{}';
  v bigint;
BEGIN
  IF mode = 'index' THEN
    SET LOCAL enable_seqscan = off;
  ELSE
    SET LOCAL enable_bitmapscan = off;
    SET LOCAL enable_indexscan = off;
  END IF;
  FOR c IN SELECT * FROM hc_centers WHERE hc_centers.kind = hc_run.kind ORDER BY qid LIMIT nq LOOP
    t0 := clock_timestamp();
    IF r >= 0 THEN
      SELECT count(*) INTO v FROM fps WHERE fp <@ ball(c.center, r);
    ELSE
      SELECT max(d) INTO v FROM (SELECT fp <-> c.center AS d FROM fps
                                  ORDER BY fp <-> c.center LIMIT 10) s;
    END IF;
    ms := ms || (extract(epoch FROM clock_timestamp() - t0) * 1000)::float8;
    INSERT INTO hc_answers VALUES (mode, measure, c.qid, v);
  END LOOP;
  RETURN QUERY SELECT * FROM hc_stats(ms);
END $$;

-- Insert the k rows of hc_inserts from position first (ids above every
-- stored row), one statement each; p50, p99, mean of the inserts in ms.
CREATE FUNCTION hc_insert(first int, k int)
RETURNS TABLE (p50_ms float8, p99_ms float8, mean_ms float8)
LANGUAGE plpgsql AS $$
DECLARE
  c record;
  t0 timestamptz;
  ms float8[] := '{}';
BEGIN
  FOR c IN SELECT * FROM hc_inserts WHERE pos >= first ORDER BY pos LIMIT k LOOP
    t0 := clock_timestamp();
    INSERT INTO fps (id, fp) VALUES (c.id, c.fp);
    ms := ms || (extract(epoch FROM clock_timestamp() - t0) * 1000)::float8;
  END LOOP;
  RETURN QUERY SELECT * FROM hc_stats(ms);
END $$;
