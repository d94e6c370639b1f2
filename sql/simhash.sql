--
-- simhash64: the type, its operators and casts, and the simhash constructors
--

-- text input and output
SELECT '0123456789abcdef'::simhash64, '0x0123456789ABCDEF'::simhash64,
       '0XFFFFFFFFFFFFFFFF'::simhash64, '0000000000000000'::simhash64;
SELECT 'ffffffffffffff'::simhash64;		-- too short
SELECT '0123456789abcdef0'::simhash64;	-- too long
SELECT '0123456789abcdeg'::simhash64;	-- not hex
SELECT ''::simhash64;
SELECT '0x'::simhash64;
SELECT ' 0123456789abcdef'::simhash64;	-- no white space
SELECT '-123456789abcdef'::simhash64;
SELECT '0x0x23456789abcdef'::simhash64;

-- binary output: 8 bytes, network order
SELECT simhash64_send('0123456789abcdef');

-- casts keep the bit pattern
SELECT '8000000000000001'::simhash64::bigint, (-1)::bigint::simhash64;
SELECT '0123456789abcdef'::simhash64::bit(64);
SELECT B'1000000000000000000000000000000000000000000000000000000000000010'::simhash64;
SELECT B'101'::simhash64;
SELECT count(*) AS roundtrips_ok FROM generate_series(1, 1000) i,
	LATERAL (SELECT ('x' || md5(i::text))::bit(64) AS b) x
WHERE b::simhash64::bit(64) = b AND b::simhash64::bigint::simhash64 = b::simhash64
	AND b::simhash64::bigint = b::bigint;

-- comparison: unsigned, the order of the hex text
SELECT '8000000000000000'::simhash64 > '7fffffffffffffff'::simhash64 AS unsigned_order,
       '0000000000000001'::simhash64 = '0x0000000000000001'::simhash64 AS eq,
       '0000000000000001'::simhash64 <> '0000000000000002'::simhash64 AS ne,
       '0000000000000001'::simhash64 <= '0000000000000001'::simhash64 AS le,
       'ffffffffffffffff'::simhash64 >= '0000000000000000'::simhash64 AS ge,
       'ffffffffffffffff'::simhash64 < '0000000000000000'::simhash64 AS lt;
CREATE TABLE fps (id integer, fp simhash64);
INSERT INTO fps SELECT i, ('x' || md5(i::text))::bit(64)::simhash64 FROM generate_series(1, 2000) i;
INSERT INTO fps VALUES (0, NULL);
SELECT fp FROM fps ORDER BY fp LIMIT 3;
SELECT fp FROM fps WHERE fp IS NOT NULL ORDER BY fp DESC LIMIT 3;
-- btree and hash opclasses: primary keys, hash joins, DISTINCT
CREATE UNIQUE INDEX fps_btree ON fps (fp);
CREATE INDEX fps_hash ON fps USING hash (fp);
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM fps WHERE fp = '0123456789abcdef';
SELECT id FROM fps WHERE fp = (SELECT fp FROM fps WHERE id = 77);
RESET enable_seqscan;
SET enable_mergejoin = off;
SET enable_nestloop = off;
-- (OFFSET 0 keeps 18 from removing the self-join on the unique column)
EXPLAIN (COSTS OFF) SELECT count(*) FROM fps a JOIN (SELECT * FROM fps OFFSET 0) b ON a.fp = b.fp;
SELECT count(*) FROM fps a JOIN (SELECT * FROM fps OFFSET 0) b ON a.fp = b.fp;
RESET enable_mergejoin;
RESET enable_nestloop;
SELECT count(DISTINCT fp) FROM fps;
SELECT simhash64_hash('0123456789abcdef') = hashint8('0123456789abcdef'::simhash64::bigint) AS same_hash_as_bigint;

-- Hamming distance
SELECT '0000000000000000'::simhash64 <-> 'ffffffffffffffff'::simhash64 AS d64,
       hamming('0000000000000000', '8000000000000001') AS d2,
       within('0000000000000000', '8000000000000001', 2) AS w2,
       within('0000000000000000', '8000000000000001', 1) AS w1,
       within('0000000000000000', 'ffffffffffffffff', 64) AS w64;
SELECT within('0000000000000000', '0000000000000000', -1);
-- <-> equals bit_count of the XOR for thousands of pairs
SELECT count(*) AS pairs, count(*) FILTER (WHERE a.fp <-> b.fp = bit_count(a.fp::bit(64) # b.fp::bit(64))) AS agree
FROM fps a JOIN fps b ON b.id = a.id % 1000 + 1 WHERE a.fp IS NOT NULL;
SELECT NULL::simhash64 <-> '0000000000000000' AS null_distance;

-- hamming_ball, the query operand of <@
SELECT '00000000000000ff/3'::hamming_ball, ball('00000000000000ff', 3),
       center(ball('00000000000000ff', 3)), radius('00000000000000ff/64'::hamming_ball);
SELECT '00000000000000ff'::hamming_ball;
SELECT '00000000000000ff/'::hamming_ball;
SELECT '00000000000000ff/65'::hamming_ball;
SELECT '00000000000000ff/-1'::hamming_ball;
SELECT '00000000000000ff/3x'::hamming_ball;
SELECT 'zz/3'::hamming_ball;
SELECT ball('00000000000000ff', -1);
SELECT '000000000000000f'::simhash64 <@ ball('0000000000000000', 4) AS inside,
       '000000000000001f'::simhash64 <@ ball('0000000000000000', 4) AS outside;
SELECT count(*) FILTER (WHERE fp <@ ball('0123456789abcdef', 28)) =
       count(*) FILTER (WHERE within(fp, '0123456789abcdef', 28)) AS same_answer FROM fps;

-- simhash of text: pinned known answers (stored data: these must never change)
SELECT simhash('A rose is a rose is a rose.', 3) AS word3_tf,
       simhash('A rose is a rose is a rose.') AS default_word2_tf,
       simhash('A rose is a rose is a rose.', 3, 'word', 'set') AS word3_set,
       simhash('A rose is a rose is a rose.', 1) AS word1,
       simhash('A rose is a rose is a rose.', 4, 'char') AS char4,
       simhash('The quick brown fox jumps over the lazy dog') AS fox;
SELECT simhash('') AS empty, simhash('  <p> </p> !!! ') AS no_tokens, simhash(NULL::text) AS null_text;
-- HTML, case, white space and NFKC variants give the same fingerprint
SELECT count(DISTINCT simhash(v)) AS distinct_fingerprints FROM (VALUES
	('The quick brown fox jumps over the lazy dog'),
	('<p>The <b>quick</b> brown fox</p><p>jumps over the lazy dog</p>'),
	('THE QUICK BROWN FOX JUMPS OVER THE LAZY DOG'),
	(E'the\tquick\n\nbrown   fox -- jumps over the lazy dog!'),
	('Ｔｈｅ ｑｕｉｃｋ ｂｒｏｗｎ ｆｏｘ ｊｕｍｐｓ ｏｖｅｒ ｔｈｅ ｌａｚｙ ｄｏｇ'),
	('The&nbsp;quick brown fox<!-- ad --> jumps over the lazy&#32;dog<script>var x = 1;</script>')
) t(v);
-- near-duplicates are near, unrelated texts are far
SELECT simhash('Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua. Ut enim ad minim veniam, quis nostrud exercitation ullamco laboris nisi ut aliquip ex ea commodo consequat.')
   <-> simhash('Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua. Ut enim ad minim veniam, quis nostrud exercitation ullamco laboris nisi ut aliquip ex ea commodo consequat!!! Posted 2026-11-22.') < 16 AS near,
       simhash('Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua.')
   <-> simhash('PostgreSQL is a powerful, open source object-relational database system with over 35 years of active development.') > 16 AS far;
-- repeated shingles: tf and set weighting differ
SELECT simhash('spam spam spam spam spam eggs', 1, 'word', 'tf') <> simhash('spam spam spam spam spam eggs', 1, 'word', 'set') AS differ;
-- CJK, Korean, Arabic and Cyrillic texts
SELECT simhash('東京都は日本の首都です') AS japanese, simhash('서울은 한국의 수도입니다') AS korean,
       simhash('القاهرة هي عاصمة مصر') AS arabic, simhash('Москва — столица России') AS russian;
-- a long text
SELECT simhash(repeat('lorem ipsum dolor sit amet ', 200000)) AS long_text;
-- bad parameters
SELECT simhash('abc', 0);
SELECT simhash('abc', 65);
SELECT simhash('abc', 3, 'sentence');
SELECT simhash('abc', 3, 'word', 'idf');

-- simhash of features
SELECT simhash(ARRAY['a', 'b', 'a']) AS features,
       simhash(ARRAY['a', 'b'], ARRAY[2, 1]::real[]) AS weighted,
       simhash(ARRAY['a', 'b', 'a']) = simhash(ARRAY['a', 'b'], ARRAY[2, 1]::real[]) AS same,
       simhash(ARRAY[]::text[]) AS none;
SELECT simhash(ARRAY['a', 'b'], ARRAY[1]::real[]);
SELECT simhash(ARRAY['a', NULL]);
SELECT simhash(ARRAY['a', 'b'], ARRAY[1, NULL]::real[]);
SELECT simhash(ARRAY['a'], ARRAY['NaN']::real[]);
SELECT simhash(ARRAY[['a', 'b'], ['c', 'd']]);
-- a tsvector: lexemes weighted by their frequency
SELECT simhash(to_tsvector('simple', 'b a b')) = simhash(ARRAY['a', 'b', 'b']) AS tsvector_tf,
       simhash(strip(to_tsvector('simple', 'b a b'))) = simhash(ARRAY['a', 'b']) AS stripped,
       simhash(to_tsvector('english', 'The cats were running')) = simhash(ARRAY['cat', 'run']) AS stemmed;

-- the aggregate equals the array form, also in a parallel plan
CREATE TABLE features (doc integer, feature text, weight float8);
INSERT INTO features SELECT i % 50, md5(i::text), (i % 7) + 0.5 FROM generate_series(1, 20000) i;
INSERT INTO features VALUES (1, NULL, 1), (1, 'x', NULL);
SELECT count(*) AS docs_agreeing FROM (
	SELECT doc, simhash_agg(feature, weight) AS agg,
		simhash(array_agg(feature) FILTER (WHERE feature IS NOT NULL AND weight IS NOT NULL),
				array_agg(weight::real) FILTER (WHERE feature IS NOT NULL AND weight IS NOT NULL)) AS arr
	FROM features GROUP BY doc) t WHERE agg = arr;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT simhash_agg(feature, weight) FROM features;
SELECT simhash_agg(feature, weight) = (SELECT simhash(array_agg(feature), array_agg(weight::real))
	FROM features WHERE feature IS NOT NULL AND weight IS NOT NULL) AS parallel_agrees FROM features;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
SELECT simhash_agg(feature, weight) AS no_rows FROM features WHERE false;
SELECT simhash_agg(feature, 'Infinity') FROM features;

DROP TABLE fps, features;
