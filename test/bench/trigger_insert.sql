-- pgbench script of test/bench/trigger_bench.sh: one INSERT of the stream.
--
-- Variables (pgbench -D): n = documents already stored (keys 1..n, the
-- fingerprint of key k is hashint8extended(k, 42)), hot = size of a pool of
-- new documents that all clients copy at the same time (keys n+1 .. n+hot),
-- f = bits flipped per copy (at most radius / 2, so that two copies of one
-- key are within the radius of each other).
--
-- 15 % copies of stored documents, 15 % copies from the hot pool (the first
-- one stored is the original, racing with the other clients), 70 % new
-- documents.  The key is stored in column k: the truth for the checks.
\set u random(1, 100)
\set k case when :u <= 15 then random(1, :n) when :u <= 30 then :n + random(1, :hot) else random(1000000000, 9000000000000000000) end
\set a random(0, 62)
\set b case when :f >= 2 then random(0, 62) else :a end
\set c case when :f >= 3 then random(0, 62) else :a end
\set m case when :u <= 30 then (1 << :a) | (1 << :b) | (1 << :c) else 0 end
INSERT INTO posts (k, fp) VALUES (:k, (hashint8extended(:k, 42) # :m)::simhash64);
