-- Helpers of test/bench/set_curve.sh: in-server timing of the Jaccard 0.3
-- searches of stored rows' sets, with each answer kept for the comparison
-- with the sequential scan, and of one-row inserts with and without the
-- trigger.

-- p50, p99 and mean of a list of times.
CREATE FUNCTION sc_stats(ms float8[], OUT p50_ms float8, OUT p99_ms float8, OUT mean_ms float8)
LANGUAGE sql AS $$
  SELECT p[1], p[2], m
    FROM (SELECT percentile_cont(ARRAY[0.5, 0.99]::float8[]) WITHIN GROUP (ORDER BY x) p, avg(x) m
            FROM unnest(ms) x) st
$$;

-- Time one statement per row of sc_work of kind `kind` (the first nq by
-- qid): in mode 'index' the search shingle_set(body) <@ similar_to(q, 0.3),
-- served by the shingleset_ops index on that expression (no sequential
-- scan); 'seq', similar(ss, q, 0.3) on the stored sets (no index), both
-- appending the count and the sum of the ids found to sc_answers under
-- measure; 'insert', the insert of the row's id and body into sets, in
-- alternate blocks of 50 rows without ordinary triggers (measure 'plain':
-- session_replication_role = replica) and with them ('trigger'), each
-- insert's time appended to sc_answers (column s), so that both are timed
-- under the same load.  Returns p50, p99, mean in ms of all statements.
CREATE FUNCTION sc_time(mode text, measure text, kind text, nq int)
RETURNS TABLE (p50_ms float8, p99_ms float8, mean_ms float8)
LANGUAGE plpgsql AS $$
DECLARE
  c record;
  t0 timestamptz;
  ms float8[] := '{}';
  n bigint;
  s numeric;
  m text := measure;
BEGIN
  PERFORM set_config('enable_seqscan', (mode <> 'index')::text, true),
          set_config('enable_bitmapscan', (mode <> 'seq')::text, true),
          set_config('enable_indexscan', (mode <> 'seq')::text, true);
  FOR c IN SELECT * FROM sc_work w WHERE w.kind = sc_time.kind ORDER BY qid LIMIT nq LOOP
    IF mode = 'insert' THEN
      m := CASE WHEN (c.qid - 1) / 50 % 2 = 0 THEN 'plain' ELSE 'trigger' END;
      PERFORM set_config('session_replication_role', CASE m WHEN 'plain' THEN 'replica' ELSE 'origin' END, true);
    END IF;
    t0 := clock_timestamp();
    IF mode = 'insert' THEN
      INSERT INTO sets (id, body) VALUES (c.id, c.body);
    ELSIF mode = 'index' THEN
      SELECT count(*), sum(id) INTO n, s FROM sets WHERE shingle_set(body) <@ similar_to(c.q, 0.3);
    ELSE
      SELECT count(*), sum(id) INTO n, s FROM sets WHERE similar(ss, c.q, 0.3);
    END IF;
    ms := ms || (extract(epoch FROM clock_timestamp() - t0) * 1000)::float8;
    INSERT INTO sc_answers VALUES (mode, m, c.qid, n, CASE WHEN mode = 'insert' THEN ms[cardinality(ms)] ELSE s END);
  END LOOP;
  RETURN QUERY SELECT * FROM sc_stats(ms);
END $$;
