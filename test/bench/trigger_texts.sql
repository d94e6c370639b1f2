-- pgbench script of test/bench/trigger_bench.sh --method shingleset --texts
-- mixed: one INSERT of a text (the README's recipe judges shingle_set(body)).
--
-- Variables (pgbench -D): n = documents already stored (keys 1..n, the text
-- of key k is bench_text(k, 0, 0): 8 words for even keys, 50 for odd ones),
-- hot = size of a pool of new documents that all clients copy at the same
-- time (keys n+1 .. n+hot).  A copy replaces one word (bench_text's m): a
-- copy of a 50-word text keeps at least 45 of its 48 shingles (Jaccard >=
-- 0.88 with the original), a copy of an 8-word text at least 3 of its 6
-- (>= 0.33); whether a copy reaches the threshold is judged by the checks
-- from the sets themselves.
--
-- 15 % copies of stored documents, 15 % copies from the hot pool, 70 % new
-- documents.  The key is stored in column k.
\set u random(1, 100)
\set k case when :u <= 15 then random(1, :n) when :u <= 30 then :n + random(1, :hot) else random(1000000000, 9000000000000000000) end
\set s random(1, 1000000000)
\set m case when :u <= 30 then 1 else 0 end
INSERT INTO posts (k, body) VALUES (:k, bench_text(:k, :m, :s));
