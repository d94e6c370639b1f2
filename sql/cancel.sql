--
-- statement_timeout stops every nddup function that can run long: each call
-- below would run for seconds (most for tens of seconds) and must end with
-- "canceling statement due to statement timeout" (SQLSTATE 57014).
--
-- A function that ignored interrupts would run to completion first, and the
-- cancel would only come at the executor's next check.  To tell the two
-- apart, the expression evaluated right after each call (with no interrupt
-- check in between: the projection of the first row of a set-returning
-- function, or the target list after a WHERE clause that calls a scalar
-- function) advances the sequence "completed", which an error does not roll
-- back: the number of calls that completed, shown after each group, must
-- stay 0.  No elapsed time is asserted.
--
-- Error context lines depend on where the cancel lands (reading the input
-- through SPI, or the function's own loops): terse errors.
\set VERBOSITY terse
CREATE SEQUENCE completed;
SET work_mem = '64MB';

-- begin data (test/bench/reliability/cancel_latency.sh runs this part with larger
-- sizes in the variables below)
\if :{?big}
\else
\set big 1000000
\set text_scale 1
\set sketches 10000
\set sets 200000
\endif
-- 300,000 random fingerprints; ids 0 and 1 are equal (every call has a row)
CREATE TABLE fps (id bigint, fp simhash64);
INSERT INTO fps SELECT g, hashint8extended(g, 42)::simhash64 FROM generate_series(1, 300000) g;
INSERT INTO fps SELECT 0, fp FROM fps WHERE id = 1;
-- 1M for the index builds and hamming_nearest (their per-row work is short)
CREATE TABLE fps_big (id bigint, fp simhash64);
INSERT INTO fps_big SELECT g, hashint8extended(g, 43)::simhash64 FROM generate_series(1, :big) g;

-- one document of 20M non-ASCII words (148 MB: NFKC, ligatures, ideographs;
-- compressed to under 2 MB, so it is read quickly), one of 2M distinct
-- numbers (2M distinct shingles)
CREATE TABLE big_words (body text);
INSERT INTO big_words VALUES (repeat('Ǆémigré Ａｂｃ ﬁne 東京都 ', 4000000 * :text_scale));
CREATE TABLE big_numbers (body text);
INSERT INTO big_numbers SELECT string_agg(g::text, ' ') FROM generate_series(1, 2000000 * :text_scale) g;
SELECT octet_length(w.body) AS words_bytes, octet_length(n.body) AS numbers_bytes
FROM big_words w, big_numbers n;

-- 10,000 sketches (k = 128) that all agree in their first 9 positions and
-- hold one of two values at each other position: at threshold 0.9 every
-- pair is a candidate of the first band (13 bands of 9 positions), and of
-- the prefix filter too (every value is held by about half of the rows);
-- none reaches 0.9 but ids 0 and 1 (equal)
CREATE TABLE sk (id bigint, s minhash_sketch);
INSERT INTO sk
SELECT d, ('kperm k=128 seed=0 size=3 unit=word bits=32: ' || string_agg(lpad(to_hex(
		CASE WHEN i < 9 OR hashint8extended(d * 128 + i, 1) & 1 = 0
			 THEN hashint8extended(i, 2) & 2147483647
			 ELSE hashint8extended(i, 3) & 2147483647 END), 8, '0'), ' ' ORDER BY i))::minhash_sketch
FROM generate_series(1, :sketches) d, generate_series(0, 127) i GROUP BY d;
INSERT INTO sk SELECT 0, s FROM sk WHERE id = 1;
-- 10 copies of them for the LSH index build
CREATE TABLE sk_copies AS SELECT id + (:sketches + 1) * k AS id, s FROM sk, generate_series(0, 9) k;

-- 60,000 super-shingle arrays sharing their first two values: every pair is
-- a candidate, none has the 3 matches asked but ids 0 and 1
CREATE TABLE sup (id bigint, ss bigint[]);
INSERT INTO sup
SELECT g, ARRAY[1, 2, hashint8extended(g, 3), hashint8extended(g, 4), hashint8extended(g, 5),
				hashint8extended(g, 6)]
FROM generate_series(1, 60000) g;
INSERT INTO sup SELECT 0, ss FROM sup WHERE id = 1;

-- 200,000 shingle sets for the shingleset_ops build
CREATE TABLE sets AS
SELECT g AS id, shingle_set(g || ' ' || g + 1 || ' ' || g * 7 || ' ' || g * 13 || ' ' || g % 1000
	|| ' alpha beta gamma ' || g % 77 || ' delta ' || g * 3) AS s
FROM generate_series(1, :sets) g;

-- an I-Match lexicon of every term of both documents (no cut): imatch() of
-- each of them is not NULL
CREATE TABLE lex AS SELECT imatch_lexicon_agg(body, 0, 0) AS l
FROM (SELECT body FROM big_numbers UNION ALL SELECT 'Ǆémigré Ａｂｃ ﬁne 東京都') d;

-- a table whose duplicate trigger has no index: every row stored is
-- compared with each of 300,000 rows (a sequential scan through SPI)
CREATE TABLE posts (id bigint PRIMARY KEY, fp simhash64, duplicate_of bigint);
INSERT INTO posts SELECT id + 1, fp FROM fps;
CREATE TRIGGER dedup BEFORE INSERT ON posts FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=fp', 'radius=3');
VACUUM ANALYZE fps, fps_big, big_words, big_numbers, sk, sk_copies, sup, sets, lex, posts;
-- end data

-- a second trigger, fired right after the duplicate trigger, counts the rows judged
CREATE SEQUENCE judged;
CREATE FUNCTION count_judged() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	PERFORM nextval('judged');
	RETURN NEW;
END $$;
CREATE TRIGGER zz_judged BEFORE INSERT ON posts FOR EACH ROW EXECUTE FUNCTION count_judged();

SET statement_timeout = '300ms';

-- (the unsafe-radius warning comes after the input is read, so whether it is
-- shown depends on where the cancel lands: warnings are not shown here)
SET client_min_messages = error;
-- simhash batch functions: radius 14 over 300,000 rows runs
-- for about 20 s (3,060 tables)
SELECT nextval('completed') FROM hamming_pairs('SELECT id, fp FROM fps', 14) LIMIT 1;
SELECT nextval('completed') FROM hamming_pairs('fps', 'id', 'fp', 14) LIMIT 1;
SELECT nextval('completed') FROM hamming_join('SELECT id, fp FROM fps WHERE id % 2 = 0',
	'SELECT id, fp FROM fps WHERE id % 2 = 1', 14) LIMIT 1;
SELECT nextval('completed') FROM hamming_clusters('SELECT id, fp FROM fps', 14) LIMIT 1;
SELECT nextval('completed') FROM hamming_clusters('fps', 'id', 'fp', 14) LIMIT 1;
SELECT nextval('completed') FROM hamming_assign('SELECT id, fp FROM fps WHERE id % 2 = 0',
	'SELECT id, fp, id FROM fps WHERE id % 2 = 1', 14) LIMIT 1;
-- the spill path (tuplesorts of every table): radius 8 at work_mem 64kB, 11 s
SET work_mem = '64kB';
SELECT nextval('completed') FROM hamming_pairs('SELECT id, fp FROM fps', 8) LIMIT 1;
SET work_mem = '1GB';
RESET client_min_messages;
-- 5M pairs in a chain (linear work: the cancel may land in the reading)
SELECT nextval('completed') FROM clusters_from_pairs('SELECT g, g + 1 FROM generate_series(1, 5000000) g') LIMIT 1;
SET work_mem = '64MB';
-- exact nearest-n by growing radius (no index yet), then a scan of everything
SELECT nextval('completed') FROM hamming_nearest('fps_big', 'id', 'fp', 0::bigint::simhash64, 1000000) LIMIT 1;

-- sketch batch functions: 50M candidate pairs, 3-6 s
-- each; super-shingle pairs 10 s
SELECT nextval('completed') FROM minhash_pairs('SELECT id, s FROM sk', 0.9) LIMIT 1;
SELECT nextval('completed') FROM minhash_pairs('sk', 'id', 's', 0.9) LIMIT 1;
SELECT nextval('completed') FROM minhash_join('SELECT id, s FROM sk WHERE id % 2 = 0',
	'SELECT id, s FROM sk WHERE id % 2 = 1', 0.9) LIMIT 1;
SELECT nextval('completed') FROM minhash_clusters('SELECT id, s FROM sk', 0.9) LIMIT 1;
SELECT nextval('completed') FROM minhash_clusters('sk', 'id', 's', 0.9) LIMIT 1;
SELECT nextval('completed') FROM super_shingle_pairs('SELECT id, ss FROM sup', 3) LIMIT 1;
-- verified: each of the 50M candidates is verified (here by the sketches
-- themselves); a low threshold (many bands of one value); the shingle-set
-- search over 200,000 sets sharing four words (every pair a candidate)
SELECT nextval('completed') FROM minhash_pairs('SELECT id, s, s FROM sk', 0.9, verify => 0.9) LIMIT 1;
SELECT nextval('completed') FROM minhash_join('SELECT id, s, s FROM sk WHERE id % 2 = 0',
	'SELECT id, s, s FROM sk WHERE id % 2 = 1', 0.9, verify => 0.9) LIMIT 1;
SELECT nextval('completed') FROM minhash_pairs('SELECT id, s FROM sk', 0.1) LIMIT 1;
SELECT nextval('completed') FROM shingleset_pairs('SELECT id, s FROM sets', 0.1) LIMIT 1;
SELECT nextval('completed') FROM shingleset_join('SELECT id, s FROM sets WHERE id % 2 = 0',
	'SELECT id, s FROM sets WHERE id % 2 = 1', 0.1) LIMIT 1;
SELECT nextval('completed') FROM shingleset_clusters('SELECT id, s FROM sets', 0.1) LIMIT 1;
-- the recommender: its pairs at resemblance 0.1 or 20 bits, of the whole table
SELECT nextval('completed') FROM nddup_recommend_threshold('sk', 'id', 's', 20000) LIMIT 1;
SELECT nextval('completed') FROM nddup_recommend_threshold('fps', 'id', 'fp', 300001) LIMIT 1;
SELECT nextval('completed') FROM nddup_recommend_threshold('sets', 'id', 's', 200000) LIMIT 1;

RESET statement_timeout;
SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS batch_calls_completed FROM completed;
SET statement_timeout = '300ms';

-- one call on a huge text (the pure-C core's loops, through its interrupt
-- hook): 1.5-3.5 s each
SELECT nextval('completed') FROM big_words WHERE normalize_text(body) IS NOT NULL;
SELECT nextval('completed') FROM big_words WHERE tokens(body) IS NOT NULL;
SELECT nextval('completed') FROM big_words WHERE shingles(body) IS NOT NULL;
SELECT nextval('completed') FROM big_words WHERE simhash(body) IS NOT NULL;
SELECT nextval('completed') FROM big_words WHERE simhash(body, 3, 'word', 'set') IS NOT NULL;
SELECT nextval('completed') FROM big_words WHERE simhash(body, 5, 'char') IS NOT NULL;
SELECT nextval('completed') FROM big_words WHERE shingle_set(body) IS NOT NULL;
SELECT nextval('completed') FROM big_words WHERE shingle_bottom(body, 100) IS NOT NULL;
SELECT nextval('completed') FROM big_words WHERE shingle_mod(body, 25) IS NOT NULL;
SELECT nextval('completed') FROM big_words WHERE minhash(body) IS NOT NULL;
SELECT nextval('completed') FROM big_numbers WHERE minhash(body, 1024, 'kperm') IS NOT NULL;
SELECT nextval('completed') FROM big_words, lex WHERE imatch(body, l) IS NOT NULL;
SELECT nextval('completed') FROM big_numbers, lex WHERE imatch(body, l, 64) IS NOT NULL;
-- an aggregate's transition on one huge document (the second aggregate's
-- argument is evaluated right after the first one's transition)
SELECT imatch_lexicon_agg(body) IS NULL, count(nextval('completed')) FROM big_words;

RESET statement_timeout;
SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS calls_completed FROM completed;
SET statement_timeout = '300ms';

-- index builds (the opclass support functions run per row, between the
-- heap scan's interrupt checks)
CREATE INDEX ON fps_big USING gin (fp simhash64_gin_ops);
CREATE INDEX ON fps_big USING spgist (fp simhash64_spgist_ops);
CREATE INDEX ON sk_copies USING gin (s minhash_lsh_ops);
CREATE INDEX ON sets USING gin (s shingleset_ops);

-- the duplicate trigger without an index: each of the 1,000 rows would take
-- tens of ms
INSERT INTO posts SELECT 1000000 + g, hashint8extended(g, 44)::simhash64
FROM generate_series(1, 1000) g;

RESET statement_timeout;
SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS calls_completed FROM completed;
SELECT last_value < 1000 AS insert_stopped_early FROM judged;
SELECT count(*) AS indexes FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid
WHERE c.relname IN ('fps_big', 'sk_copies', 'sets');
SELECT count(*) AS new_posts FROM posts WHERE id > 1000000;

-- the other tests share the database
DROP TABLE fps, fps_big, big_words, big_numbers, sk, sk_copies, sup, sets, lex, posts;
DROP SEQUENCE completed, judged;
DROP FUNCTION count_judged();
