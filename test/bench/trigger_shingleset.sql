-- pgbench script of test/bench/trigger_bench.sh --method shingleset: one INSERT.
--
-- Variables (pgbench -D): n = documents already stored (keys 1..n, the set
-- of key k is shingle_set(bench_text(k, 0, 0))), hot = size of a pool of new
-- documents that all clients copy at the same time (keys n+1 .. n+hot).
-- A text has 20 words; a copy replaces one (bench_text's m), so a copy keeps
-- at least 15 of the 18 shingles (Jaccard >= 0.71 with the original) and two
-- copies of one key at least 12 (>= 0.5).
--
-- 15 % copies of stored documents, 15 % copies from the hot pool, 70 % new
-- documents.  The key is stored in column k.
\set u random(1, 100)
\set k case when :u <= 15 then random(1, :n) when :u <= 30 then :n + random(1, :hot) else random(1000000000, 9000000000000000000) end
\set s random(1, 1000000000)
\set m case when :u <= 30 then 1 else 0 end
INSERT INTO posts (k, ss) VALUES (:k, shingle_set(bench_text(:k, :m, :s)));
