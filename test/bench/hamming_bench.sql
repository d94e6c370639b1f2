-- Helpers of test/bench/hamming_bench.sh: data generation and in-server
-- timing of Hamming-radius queries.  Loaded into the benchmark database.

-- n fingerprints: 90 % uniform (md5 of the row number), 10 % planted
-- variants of an earlier row with 1-6 bits flipped (deterministic).
CREATE FUNCTION bench_fill(n int) RETURNS void LANGUAGE sql AS $$
  INSERT INTO fps
  SELECT i, CASE WHEN i % 10 <> 0
    THEN ('x' || substr(md5(i::text), 1, 16))::bit(64)::bigint::simhash64
    ELSE (('x' || substr(md5((i - 1 - (i / 10) % 9)::text), 1, 16))::bit(64)::bigint
          # (SELECT bit_or((1::bigint) << (get_byte(decode(md5('p' || i), 'hex'), k) % 64))
               FROM generate_series(0, i % 6) k))::simhash64
    END
  FROM generate_series(1, n) i
$$;

-- Time nq queries at radius r, centers = existing rows (bench_centers),
-- in the server: clock_timestamp() around each query.  mode 'index' forbids
-- the sequential scan, 'seq' forbids the index, 'planner' lets it choose.
CREATE FUNCTION bench_latency(r int, nq int, mode text)
RETURNS TABLE (p50_ms float8, p99_ms float8, mean_rows float8)
LANGUAGE plpgsql AS $$
DECLARE
  c record;
  t0 timestamptz;
  ms float8[] := '{}';
  cnt bigint;
  total bigint := 0;
BEGIN
  IF mode = 'index' THEN
    SET LOCAL enable_seqscan = off;
  ELSIF mode = 'seq' THEN
    SET LOCAL enable_bitmapscan = off;
    SET LOCAL enable_indexscan = off;
  END IF;
  FOR c IN SELECT center FROM bench_centers ORDER BY qid LIMIT nq LOOP
    t0 := clock_timestamp();
    SELECT count(*) INTO cnt FROM fps WHERE fp <@ ball(c.center, r);
    ms := ms || (extract(epoch FROM clock_timestamp() - t0) * 1000)::float8;
    total := total + cnt;
  END LOOP;
  RETURN QUERY SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x),
                      percentile_cont(0.99) WITHIN GROUP (ORDER BY x),
                      total::float8 / nq
                 FROM unnest(ms) x;
END $$;

-- Recall and precision (prec) of the index at radius r against bench_truth.
CREATE FUNCTION bench_recall(r int, nq int)
RETURNS TABLE (recall float8, prec float8, truth_rows bigint)
LANGUAGE plpgsql AS $$
BEGIN
  SET LOCAL enable_seqscan = off;
  CREATE TEMP TABLE bench_idx ON COMMIT DROP AS
    SELECT c.qid, t.id FROM (SELECT * FROM bench_centers ORDER BY qid LIMIT nq) c
      CROSS JOIN LATERAL (SELECT id FROM fps WHERE fp <@ ball(c.center, r)) t;
  RETURN QUERY
    WITH tr AS (SELECT qid, id FROM bench_truth WHERE d <= r AND qid IN (SELECT qid FROM bench_centers ORDER BY qid LIMIT nq)),
         hit AS (SELECT count(*) AS n FROM tr JOIN bench_idx USING (qid, id))
    SELECT (SELECT n FROM hit)::float8 / greatest((SELECT count(*) FROM tr), 1),
           (SELECT n FROM hit)::float8 / greatest((SELECT count(*) FROM bench_idx), 1),
           (SELECT count(*) FROM tr);
  DROP TABLE bench_idx;
END $$;
