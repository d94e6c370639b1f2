--
-- Sketches: shingleset (exact, bottom-s, mod-m), minhash (kperm, oph, b-bit),
-- super-shingles, I-Match.  Known answers, I/O, operators, error paths, and
-- estimator accuracy on the real document pairs of test/data/sketch-pairs.tsv.gz.
--
\getenv abs_srcdir PG_ABS_SRCDIR
\getenv abs_builddir PG_ABS_BUILDDIR
\set pairs_cmd 'zcat ' :abs_srcdir '/test/data/sketch-pairs.tsv.gz'
\set binfile :abs_builddir '/results/sketch.bin'

-- known answers: exact set, Broder's samples (Broder's example, w = 4)
SELECT shingle_set('a rose is a rose is a rose', 4);
SELECT shingle_set('<p>A ROSE is a rose</p> is a rose', 4)
       = shingle_set('a rose is a rose is a rose', 4) AS normalized;
SELECT shingle_bottom('a rose is a rose is a rose', 2, 4);
SELECT shingle_mod('a rose is a rose is a rose', 2, 4);
SELECT shingle_set('abcd', 3, 'char');
SELECT shingle_set('a rose', 3);		-- fewer words than w: one shingle
SELECT shingle_set('');
SELECT cardinality(shingle_set('a rose is a rose is a rose', 4)),
       cardinality(shingle_bottom('a rose is a rose is a rose', 2, 4)),
       shingle_set('a rose is a rose is a rose', 4)::bigint[];
-- samples of an exact set equal the samples of the text
SELECT shingle_bottom(shingle_set('the quick brown fox jumps over the lazy dog', 2), 3)
       = shingle_bottom('the quick brown fox jumps over the lazy dog', 3, 2) AS same_bottom,
       shingle_mod(shingle_set('the quick brown fox jumps over the lazy dog', 2), 3)
       = shingle_mod('the quick brown fox jumps over the lazy dog', 3, 2) AS same_mod;

-- known answers: min-hash sketches
SELECT minhash('a rose is a rose is a rose', 8, 'kperm');
SELECT minhash('a rose is a rose is a rose', 8, 'oph');
SELECT minhash('a rose is a rose is a rose', 8);		-- defaults: oph, seed 0, 3 words
SELECT minhash('a rose is a rose is a rose', 4, 'kperm', 42, 2, 'char');
SELECT minhash('', 4, 'kperm'), minhash('!!!', 4);
SELECT minhash_bbit(minhash('a rose is a rose is a rose', 8, 'kperm'), 8);
SELECT minhash_bbit(minhash('a rose is a rose is a rose', 8, 'kperm'), 1);
SELECT minhash_bbit(minhash_bbit(minhash('a rose is a rose is a rose', 8, 'kperm'), 4), 2)
       = minhash_bbit(minhash('a rose is a rose is a rose', 8, 'kperm'), 2) AS narrowing;
SELECT minhash('a rose is a rose is a rose', 4, 'kperm')::bigint[], minhash_k(minhash('x'));
SELECT minhash('', 4)::bigint[];
SELECT pg_column_size(minhash('a rose', 128, 'kperm')) AS kperm_128,
       pg_column_size(minhash('a rose', 128, 'oph')) AS oph_128,
       pg_column_size(minhash_bbit(minhash('a rose', 128, 'oph'), 8)) AS oph_128_b8,
       pg_column_size(minhash('a rose', 1024, 'kperm')) AS kperm_1024;

-- known answers: super-shingles (84 = 6 x 14) and their C(6,2) = 15 pair keys
SELECT super_shingles(minhash('a rose is a rose is a rose', 84, 'kperm'));
SELECT super_shingle_keys(super_shingles(minhash('a rose is a rose is a rose', 84, 'kperm')));
SELECT cardinality(super_shingle_keys('{1,2,3,4,5,6}', 3)) AS c63,
       cardinality(super_shingle_keys('{1,2,3,4,5,6}', 1)) AS c61,
       super_shingle_keys('{}');
SELECT super_shingles_match('{1,2,3,4,5,6}', '{1,9,3,9,9,9}') AS two_of_six,
       super_shingles_match('{1,2,3,4,5,6}', '{1,9,9,9,9,9}') AS one_of_six,
       super_shingles_match('{1,2,3,4,5,6}', '{1,9,9,9,9,9}', 1) AS one_of_six_r1,
       super_shingle_keys('{1,2,3,4,5,6}') && super_shingle_keys('{1,9,3,9,9,9}') AS keys_two,
       super_shingle_keys('{1,2,3,4,5,6}') && super_shingle_keys('{1,9,9,9,9,9}') AS keys_one,
       super_shingle_keys('{1,2,3,4,5,6}') && super_shingle_keys('{2,1,4,3,6,5}') AS keys_swapped;
SELECT super_shingles(minhash('', 84, 'kperm'));
SELECT super_shingles(minhash('a b c d', 12, 'kperm'), 3, 4);

-- text input and output round trips
SELECT 'exact size=3 unit=word n=2: 0000000000000001 ffffffffffffffff'::shingleset;
SELECT 'mod m=4 size=2 unit=char n=9: 0 8 c'::shingleset;
SELECT 'bottom s=2 size=3 unit=word n=1: 5'::shingleset;
SELECT 'kperm k=3 seed=7 size=3 unit=word bits=32: 00000001 fffffffe 0'::minhash_sketch;
SELECT 'oph k=3 seed=0 size=3 unit=word bits=32: 1 *1 2'::minhash_sketch;
SELECT 'oph k=3 seed=0 size=5 unit=char bits=2: 3 0 1'::minhash_sketch;
SELECT 'kperm k=2 seed=0 size=3 unit=word bits=32: empty'::minhash_sketch;
SELECT count(*) AS text_roundtrips_ok
FROM (SELECT i, 'doc ' || i || ' ' || repeat(md5(i::text) || ' ', i % 7) AS body
      FROM generate_series(0, 60) i) d,
     LATERAL (SELECT minhash(body, 16, 'kperm', i) AS a, minhash(body, 16, 'oph', i) AS b,
                     minhash_bbit(minhash(body, 16, 'oph', i), 2) AS c,
                     shingle_set(body, 2) AS s, shingle_mod(body, 3, 1) AS v,
                     shingle_bottom(body, 4) AS f) x
WHERE a::text::minhash_sketch::text = a::text AND b::text::minhash_sketch::text = b::text
  AND c::text::minhash_sketch::text = c::text AND s::text::shingleset::text = s::text
  AND v::text::shingleset::text = v::text AND f::text::shingleset::text = f::text;
-- binary output, pinned
SELECT minhash_send(minhash('a rose is a rose', 2, 'oph'));
SELECT shingleset_send(shingle_bottom('a rose is a rose', 1));
-- binary round trip through COPY
CREATE TABLE sketch_io (m minhash_sketch, s shingleset, l imatch_lexicon);
INSERT INTO sketch_io VALUES
	(minhash('a b c d e f', 8, 'oph'), shingle_set('a b c d e f'), NULL),
	(minhash('a b c d e f', 8, 'kperm', 3), shingle_mod('a b c d e f', 2, 1), NULL),
	(minhash_bbit(minhash('a b c d e f', 9), 4), shingle_bottom('a b c d e f', 2, 1), NULL),
	(minhash('', 3), shingle_set(''), NULL);
UPDATE sketch_io SET l = (SELECT imatch_lexicon_agg(t, 0, 0)
	FROM (VALUES ('a b c'), ('b c d')) v(t));
COPY sketch_io TO :'binfile' (FORMAT binary);
CREATE TABLE sketch_io2 (LIKE sketch_io);
COPY sketch_io2 FROM :'binfile' (FORMAT binary);
SELECT count(*) AS binary_roundtrips_ok FROM sketch_io a JOIN sketch_io2 b
	ON a.m::text = b.m::text AND a.s::text = b.s::text AND a.l::text = b.l::text;

-- malformed input
SELECT 'exact size=3 unit=word n=2: 2 1'::shingleset;			-- not ascending
SELECT 'exact size=3 unit=word n=3: 1 2'::shingleset;			-- n does not match
SELECT 'mod m=4 size=3 unit=word n=5: 4 6'::shingleset;		-- 6 is not 0 mod 4
SELECT 'bottom s=1 size=3 unit=word n=5: 4 6'::shingleset;		-- more than s
SELECT 'exact size=0 unit=word n=0:'::shingleset;
SELECT 'exact size=3 unit=Word n=0:'::shingleset;
SELECT 'set size=3 unit=word n=0:'::shingleset;
SELECT 'kperm k=3 seed=0 size=3 unit=word bits=32: 1 2'::minhash_sketch;	-- too few
SELECT 'kperm k=1 seed=0 size=3 unit=word bits=32: 1 2'::minhash_sketch;	-- too many
SELECT 'kperm k=0 seed=0 size=3 unit=word bits=32:'::minhash_sketch;
SELECT 'kperm k=1025 seed=0 size=3 unit=word bits=32: 1'::minhash_sketch;
SELECT 'kperm k=1 seed=0 size=3 unit=word bits=3: 1'::minhash_sketch;
SELECT 'kperm k=1 seed=0 size=3 unit=word bits=4: 10'::minhash_sketch;	-- 2 digits in 4 bits
SELECT 'kperm k=2 seed=0 size=3 unit=word bits=32: 1 *2'::minhash_sketch;	-- * in kperm
SELECT 'oph k=2 seed=0 size=3 unit=word bits=32: *1 *2'::minhash_sketch;	-- all borrowed
SELECT 'kperm k=2 seed=0 size=3 unit=word bits=32: 1 ffffffff'::minhash_sketch;
SELECT 'minhash k=2'::minhash_sketch;
SELECT 'lexicon ndocs=2 drop_frequent=0 drop_rare=0: 2 1'::imatch_lexicon;
SELECT 'df ndocs=2 drop_frequent=-1 drop_rare=-1: 1:3'::imatch_lexicon;
SELECT 'df ndocs=9223372036854775807 drop_frequent=-1 drop_rare=-1: 1:99999999999999999999'::imatch_lexicon;

-- error paths of the constructors and estimators
SELECT minhash('x', 0);
SELECT minhash('x', -5);
SELECT minhash('x', 1025);
SELECT minhash('x', 8, 'perm');
SELECT minhash('x', 8, 'oph', 0, 0);
SELECT minhash('x', 8, 'oph', 0, 3, 'words');
SELECT minhash_bbit(minhash('x'), 3);
SELECT minhash_bbit(minhash_bbit(minhash('x'), 4), 8);
SELECT shingle_set('x', 65);
SELECT shingle_bottom('x', 0);
SELECT shingle_bottom('x', 1000001);
SELECT shingle_mod('x', 0);
SELECT shingle_bottom(shingle_mod('x', 2), 3);
SELECT jaccard(minhash('a b c', 8), minhash('a b c', 16));
SELECT jaccard(minhash('a b c', 8, 'oph'), minhash('a b c', 8, 'kperm'));
SELECT jaccard(minhash('a b c', 8, 'oph', 1), minhash('a b c', 8, 'oph', 2));
SELECT jaccard(minhash('a b c', 8, 'oph', 0, 3), minhash('a b c', 8, 'oph', 0, 2));
SELECT minhash('a b c', 8, 'oph', 0, 3, 'word') <-> minhash('a b c', 8, 'oph', 0, 3, 'char');
SELECT minhash('a b c', 8) % minhash_bbit(minhash('a b c', 8), 8);
SELECT minhash_merge(minhash_bbit(minhash('a'), 8), minhash_bbit(minhash('b'), 8));
SELECT minhash_union(m) FROM (VALUES (minhash('a', 8)), (minhash('b', 16))) v(m);
SELECT jaccard(shingle_set('a b c'), shingle_set('a b c', 2));
SELECT jaccard(shingle_set('a b c'), shingle_set('a b c', 3, 'char'));
SELECT jaccard(shingle_set('a b c'), shingle_bottom('a b c'));
SELECT jaccard(shingle_bottom('a b c', 10), shingle_bottom('a b c', 20));
SELECT containment(shingle_bottom('a b c'), shingle_bottom('a b c'));
SELECT overlap(shingle_mod('a b c', 2), shingle_mod('a b c', 3));
SELECT similar(shingle_set('a'), shingle_set('a'), 1.5);
SELECT similar(minhash('a'), minhash('a'), -0.1);
SELECT super_shingles(minhash('a b c'), 6, 14);				-- k = 128, not 84
SELECT super_shingles(minhash('a b c', 84, 'kperm'), 7, 12);
SELECT super_shingles(minhash('a b c', 84, 'kperm'), 7, 13);
SELECT super_shingles(minhash_bbit(minhash('a b c', 84, 'kperm'), 8));
SELECT super_shingles_match('{1,2,3}', '{1,2}');
SELECT super_shingles_match('{1,2,3}', '{1,2,3}', 0);
SELECT super_shingles_match('{1,NULL,3}', '{1,2,3}');
SELECT super_shingle_keys('{1,2,3}', 4);
SELECT super_shingle_keys('{{1,2},{3,4}}');
SELECT cardinality(super_shingle_keys(array(SELECT generate_series(1, 30)::bigint), 5));
SELECT imatch('a b', 'df ndocs=1 drop_frequent=-1 drop_rare=-1: 1:1'::imatch_lexicon);
SELECT imatch_lexicon_agg(t, 0.6, 0.5) FROM (VALUES ('a')) v(t);
SELECT imatch_lexicon_agg(t, -0.1, 0) FROM (VALUES ('a')) v(t);
SELECT imatch('a b', (SELECT imatch_lexicon_agg(t, 0, 0) FROM (VALUES ('a b')) v(t)), 0);
SELECT imatch('a b', (SELECT imatch_lexicon_agg(t, 0, 0) FROM (VALUES ('a b')) v(t)), 65);
SELECT imatch('a b', (SELECT imatch_lexicon_agg(t, 0, 0) FROM (VALUES ('a b')) v(t)), 4, 1.0);
SELECT imatch_df_transfn(NULL, 'a b');

-- NULLs give NULL (STRICT), empty documents follow the conventions
SELECT minhash(NULL) IS NULL AS a, shingle_set(NULL) IS NULL AS b,
       jaccard(minhash('a'), NULL) IS NULL AS c, (shingle_set('a') <-> NULL) IS NULL AS d,
       super_shingles(NULL) IS NULL AS e, imatch(NULL, NULL) IS NULL AS f,
       similar(minhash('a'), minhash('a'), NULL) IS NULL AS g;
SELECT jaccard(shingle_set(''), shingle_set('')) AS empty_empty,
       jaccard(shingle_set(''), shingle_set('a b c')) AS empty_doc,
       containment(shingle_set(''), shingle_set('a b c')) AS empty_in_doc,
       containment(shingle_set('a b c'), shingle_set('')) AS doc_in_empty,
       jaccard(minhash('', 16), minhash('', 16)) AS mh_empty_empty,
       jaccard(minhash('', 16), minhash('a b c', 16)) AS mh_empty_doc,
       jaccard(minhash_bbit(minhash('', 16), 1), minhash_bbit(minhash('a b c', 16), 1)) AS b1_empty_doc;
-- a sample that holds nothing cannot estimate: NULL
SELECT jaccard(shingle_mod('a b c d', 1000000), shingle_mod('a b c e', 1000000)) AS v_empty,
       containment(shingle_mod('a b c d', 1000000), shingle_mod('a b c e', 1000000)) AS cv_empty;

-- operators: % with nddup.similarity_threshold, similar(), <-> in ORDER BY
SHOW nddup.similarity_threshold;
CREATE TABLE sketch_docs (id int, body text);
INSERT INTO sketch_docs VALUES
	(1, 'the quick brown fox jumps over the lazy dog near the river bank'),
	(2, 'the quick brown fox jumps over the lazy dog near the river'),
	(3, 'the quick brown fox jumps over a lazy cat near the river bank'),
	(4, 'an entirely different sentence about databases and indexes'),
	(5, '');
SELECT b.id, round(jaccard(shingle_set(a.body), shingle_set(b.body))::numeric, 3) AS exact,
       round((shingle_set(a.body) <-> shingle_set(b.body))::numeric, 3) AS dist,
       shingle_set(a.body) % shingle_set(b.body) AS sim,
       similar(shingle_set(a.body), shingle_set(b.body), 0.5) AS sim05,
       round(jaccard(minhash(a.body, 64), minhash(b.body, 64))::numeric, 3) AS oph64,
       round(jaccard(minhash(a.body, 64, 'kperm'), minhash(b.body, 64, 'kperm'))::numeric, 3) AS kperm64,
       minhash(a.body, 64) % minhash(b.body, 64) AS mh_sim
FROM sketch_docs a, sketch_docs b WHERE a.id = 1 ORDER BY b.id;
SET nddup.similarity_threshold = 0.5;
SELECT b.id FROM sketch_docs a, sketch_docs b
WHERE a.id = 1 AND shingle_set(a.body) % shingle_set(b.body) ORDER BY b.id;
SELECT b.id FROM sketch_docs a, sketch_docs b
WHERE a.id = 1 AND minhash(a.body, 256, 'kperm') % minhash(b.body, 256, 'kperm') ORDER BY b.id;
SET nddup.similarity_threshold = 1.5;
RESET nddup.similarity_threshold;
SELECT id FROM sketch_docs
ORDER BY minhash(body, 128) <-> minhash('the quick brown fox jumps over the lazy dog near the river bank', 128), id
LIMIT 3;

-- union: the sketch of the union of word sets (1-word shingles) is the
-- sketch of the document holding all the words, serial and parallel
SELECT minhash_union(m) IS NULL AS no_rows FROM (SELECT NULL::minhash_sketch) v(m);
SELECT minhash_union(m)::text = minhash('a b c d e f g h', 32, 'oph', 0, 1)::text AS oph_union,
       minhash_merge(minhash('a b c', 32, 'oph', 0, 1), minhash('', 32, 'oph', 0, 1))::text
         = minhash('a b c', 32, 'oph', 0, 1)::text AS merge_empty
FROM (VALUES (minhash('a b c', 32, 'oph', 0, 1)), (NULL), (minhash('', 32, 'oph', 0, 1)),
             (minhash('c d e f', 32, 'oph', 0, 1)), (minhash('h g', 32, 'oph', 0, 1))) v(m);
SELECT minhash_union(m)::text = minhash('a b c d e f g h', 32, 'kperm', 0, 1)::text AS kperm_union
FROM (VALUES (minhash('a b c', 32, 'kperm', 0, 1)), (minhash('c d e f', 32, 'kperm', 0, 1)),
             (minhash('h g', 32, 'kperm', 0, 1))) v(m);
CREATE TABLE sketch_words AS
	SELECT i, minhash('w' || i || ' w' || (i * 7 % 1000), 64, 'oph', 0, 1) AS m,
	       minhash('w' || i || ' w' || (i * 7 % 1000), 64, 'kperm', 0, 1) AS k
	FROM generate_series(1, 3000) i;
ANALYZE sketch_words;
SELECT minhash_union(m)::text AS serial_oph, minhash_union(k)::text AS serial_kperm
FROM sketch_words \gset
SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0; SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
EXPLAIN (COSTS OFF) SELECT minhash_union(m) FROM sketch_words;
SELECT minhash_union(m)::text = :'serial_oph' AS parallel_oph,
       minhash_union(k)::text = :'serial_kperm' AS parallel_kperm
FROM sketch_words;
RESET parallel_setup_cost; RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size; RESET max_parallel_workers_per_gather;
RESET parallel_leader_participation;

-------------------------------------------------------------------------------
-- Estimator accuracy on 568 real document pairs (test/data/sketch-pairs.tsv.gz):
-- near-duplicates, excerpts, containers and unrelated documents sampled from
-- the neardup-dev corpus, exact word 3-shingle Jaccard from 0 to 1.
CREATE TABLE sketch_pairs (pair_id int, kind text, a_doc int, b_doc int, a text, b text);
COPY sketch_pairs FROM PROGRAM :'pairs_cmd' (FORMAT text, HEADER true);
CREATE TABLE sketch_est AS
SELECT pair_id, kind,
       jaccard(shingle_set(a), shingle_set(b)) AS j,
       containment(shingle_set(a), shingle_set(b)) AS c,
       cardinality(shingle_set(a)) AS na, cardinality(shingle_set(b)) AS nb,
       jaccard(minhash(a, 256, 'kperm'), minhash(b, 256, 'kperm')) AS kperm,
       jaccard(minhash(a, 256, 'oph'), minhash(b, 256, 'oph')) AS oph,
       jaccard(minhash(a, 256, 'oph', 7), minhash(b, 256, 'oph', 7)) AS oph7,
       jaccard(minhash_bbit(minhash(a, 256, 'oph'), 8), minhash_bbit(minhash(b, 256, 'oph'), 8)) AS oph_b8,
       jaccard(shingle_bottom(a, 256), shingle_bottom(b, 256)) AS f256,
       jaccard(shingle_mod(a, 4), shingle_mod(b, 4)) AS v4,
       containment(shingle_mod(a, 4), shingle_mod(b, 4)) AS cv4,
       cardinality(shingle_mod(a, 4)::bigint[]) AS nva,
       super_shingles(minhash(a, 84, 'kperm')) AS ssa,
       super_shingles(minhash(b, 84, 'kperm')) AS ssb
FROM sketch_pairs;
SELECT count(*) AS pairs, count(*) FILTER (WHERE j = 0) AS j0, count(*) FILTER (WHERE j = 1) AS j1,
       count(*) FILTER (WHERE j > 0 AND j < 0.3) AS j_0_03, count(*) FILTER (WHERE j >= 0.3 AND j < 0.6) AS j_03_06,
       count(*) FILTER (WHERE j >= 0.6 AND j < 1) AS j_06_1
FROM sketch_est;
-- every estimate within 4 standard errors sqrt(J(1-J)/k) of the exact Jaccard,
-- and the mean error within 4 standard errors of the mean (i.e. about 0)
SELECT est, count(*) FILTER (WHERE abs(e - j) > 4 * sqrt(j * (1 - j) / k)) AS beyond_4se,
       round(max(abs(e - j) / nullif(sqrt(j * (1 - j) / k), 0))::numeric, 2) AS max_z,
       round(avg(e - j)::numeric, 4) AS mean_error,
       abs(avg(e - j)) < 4 * sqrt(sum(j * (1 - j) / k)) / count(*) AS mean_error_ok,
       round(sqrt(avg((e - j) ^ 2))::numeric, 4) AS rmse
FROM (SELECT j, kperm AS e, 'kperm k=256' AS est, 256 AS k FROM sketch_est
      UNION ALL SELECT j, oph, 'oph k=256', 256 FROM sketch_est
      UNION ALL SELECT j, oph7, 'oph k=256 seed=7', 256 FROM sketch_est
      UNION ALL SELECT j, f256, 'bottom s=256', 256 FROM sketch_est) x
GROUP BY est ORDER BY est;
-- b-bit (b = 8): chance agreement 2^-8 inflates the variance, (J + (1-J)/256)-based
SELECT count(*) FILTER (WHERE abs(oph_b8 - j) > 4 * sqrt((j + (1 - j) / 256.0) * (1 - j) / 256) / (1 - 1 / 256.0)) AS b8_beyond_4se,
       round(avg(oph_b8 - j)::numeric, 4) AS b8_mean_error
FROM sketch_est;
-- mod-m sample V(D), m = 4: resemblance and containment, standard errors
-- from the sample sizes (|V(A) u V(B)| about |A u B| / 4, |V(A)| = nva)
SELECT count(*) FILTER (WHERE abs(cv4 - c) > 4 * sqrt(c * (1 - c) / nva)) AS cv_beyond_4se,
       round(avg(cv4 - c)::numeric, 4) AS cv_mean_error,
       abs(avg(cv4 - c)) < 4 * sqrt(sum(c * (1 - c) / nva)) / count(*) AS cv_mean_error_ok,
       count(*) FILTER (WHERE abs(v4 - j) > 4 * sqrt(j * (1 - j) / ((na + nb) / (1 + j) / 4))) AS v_beyond_4se,
       round(avg(v4 - j)::numeric, 4) AS v_mean_error,
       count(*) FILTER (WHERE nva = 0) AS empty_samples
FROM sketch_est WHERE nva > 0;
-- containment: excerpts are contained in their original, originals in "contains" documents
SELECT kind, count(*), round(avg(c)::numeric, 3) AS exact_c, round(avg(cv4)::numeric, 3) AS v4_c,
       round(avg(j)::numeric, 3) AS exact_j
FROM sketch_est GROUP BY kind ORDER BY kind;
-- super-shingles: detection by resemblance band (>= 2 of 6 groups of 14);
-- the keys find exactly the pairs the position-wise test finds
SELECT CASE WHEN j >= 0.9 THEN '0.9-1' WHEN j >= 0.77 THEN '0.77-0.9' WHEN j >= 0.5 THEN '0.5-0.77'
            ELSE '0-0.5' END AS band,
       count(*), count(*) FILTER (WHERE super_shingles_match(ssa, ssb)) AS detected,
       count(*) FILTER (WHERE super_shingles_match(ssa, ssb)
                        <> (super_shingle_keys(ssa) && super_shingle_keys(ssb))) AS keys_disagree
FROM sketch_est GROUP BY 1 ORDER BY 1;

-- I-Match over the pair collection: identical documents always match, near
-- duplicates often, unrelated documents never; the multi-lexicon variant
-- matches at least as often
CREATE TABLE sketch_lex AS
	SELECT imatch_lexicon_agg(t) AS lex FROM (SELECT a FROM sketch_pairs UNION SELECT b FROM sketch_pairs) d(t);
SELECT imatch_lexicon_size(lex) AS lexicon_terms, substr(lex::text, 1, 40) AS head FROM sketch_lex;
SELECT imatch_lexicon_size(lex) AS terms_0_0
FROM (SELECT imatch_lexicon_agg(t, 0, 0) AS lex FROM (SELECT a FROM sketch_pairs UNION SELECT b FROM sketch_pairs) d(t)) x;
SELECT kind, count(*),
       count(*) FILTER (WHERE imatch(a, lex) = imatch(b, lex)) AS imatch_equal,
       count(*) FILTER (WHERE imatch(a, lex, 5) && imatch(b, lex, 5)) AS multi_overlap,
       count(*) FILTER (WHERE imatch(a, lex) = imatch(a || ' ', lex)) AS self_equal
FROM sketch_pairs, sketch_lex GROUP BY kind ORDER BY kind;
-- I-Match ignores word order and repeats; known answers for a fixed lexicon
SELECT imatch('alpha beta gamma', l) = imatch('Gamma, alpha; beta beta', l) AS order_free,
       imatch('alpha beta gamma', l), imatch('alpha beta gamma', l, 3, 0.5),
       imatch('zeta', l) IS NULL AS no_terms, imatch_lexicon_size(l)
FROM (SELECT imatch_lexicon_agg(t, 0, 0) AS l
      FROM (VALUES ('alpha beta'), ('beta gamma delta'), ('alpha epsilon')) v(t)) x;
-- the band: 4 terms with DF a 3, b 2, c 1, d 1; cutting 25% at each end drops
-- a and one of c, d (ties go by hash), so 2 terms are left
SELECT imatch_lexicon_size(l) AS kept, imatch('a', l) IS NULL AS a_cut, imatch('b', l) IS NOT NULL AS b_kept,
       (imatch('c', l) IS NULL) <> (imatch('d', l) IS NULL) AS one_of_c_d
FROM (SELECT imatch_lexicon_agg(t, 0.25, 0.25) AS l FROM (VALUES ('a b c'), ('a b'), ('a d')) v(t)) x;
-- parallel build gives the same lexicon
CREATE TABLE sketch_lexdocs AS SELECT a AS t FROM sketch_pairs UNION ALL SELECT b FROM sketch_pairs;
ANALYZE sketch_lexdocs;
SELECT imatch_lexicon_agg(t)::text AS serial_lex FROM sketch_lexdocs \gset
SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0; SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
EXPLAIN (COSTS OFF) SELECT imatch_lexicon_agg(t) FROM sketch_lexdocs;
SELECT imatch_lexicon_agg(t)::text = :'serial_lex' AS parallel_lex FROM sketch_lexdocs;
RESET parallel_setup_cost; RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size; RESET max_parallel_workers_per_gather;
RESET parallel_leader_participation;

DROP TABLE sketch_io, sketch_io2, sketch_docs, sketch_words, sketch_pairs, sketch_est,
	sketch_lex, sketch_lexdocs;
