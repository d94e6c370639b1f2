-- pgbench script of test/bench/trigger_bench.sh --method minhash: one INSERT.
--
-- Variables (pgbench -D): n = documents already stored (keys 1..n, the
-- sketch of key k is bench_sketch(k, 0, 0)), hot = size of a pool of new
-- documents that all clients copy at the same time (keys n+1 .. n+hot).
-- A copy replaces about 5 of the 128 values (bench_sketch's m), so two
-- copies of one key almost always keep an estimate >= 0.9 with each other.
--
-- 15 % copies of stored documents, 15 % copies from the hot pool, 70 % new
-- documents.  The key is stored in column k.
\set u random(1, 100)
\set k case when :u <= 15 then random(1, :n) when :u <= 30 then :n + random(1, :hot) else random(1000000000, 9000000000000000000) end
\set s random(1, 1000000000)
\set m case when :u <= 30 then 5 else 0 end
INSERT INTO posts (k, mh) VALUES (:k, bench_sketch(:k, :m, :s));
