-- Every method of the harness on one dataset (psql variable ds).  Needs harness.sql, the corpus
-- rows of the dataset, and (for the exact methods) the exact table filled by q_exact.
SET client_min_messages = warning;
SET jit = off;
SET work_mem = '256MB';
SET max_parallel_workers_per_gather = 0;
\set t '{0.1,0.15,0.2,0.25,0.3,0.35,0.4,0.5,0.6,0.7,0.8,0.9,0.95}'

-- simhash: feature choices, k = 0..20 (hamming_pairs at 20, hamming_clusters at every k)
SELECT q_simhash(:'ds', 'simhash word 2 tf (default)', 'word 2-shingles, tf', 'simhash(body)', 20);
SELECT q_simhash(:'ds', 'simhash word 2 set', 'word 2-shingles, set', 'simhash(body, 2, ''word'', ''set'')', 20);
SELECT q_simhash(:'ds', 'simhash word 1 tf', 'words, tf', 'simhash(body, 1)', 20);
SELECT q_simhash(:'ds', 'simhash word 1 set', 'words, set', 'simhash(body, 1, ''word'', ''set'')', 20);
SELECT q_simhash(:'ds', 'simhash word 3 tf', 'word 3-shingles, tf', 'simhash(body, 3)', 20);
SELECT q_simhash(:'ds', 'simhash word 3 set', 'word 3-shingles, set', 'simhash(body, 3, ''word'', ''set'')', 20);
SELECT q_simhash(:'ds', 'simhash char 5 tf', 'char 5-grams, tf', 'simhash(body, 5, ''char'')', 20);
SELECT q_simhash(:'ds', 'simhash char 5 set', 'char 5-grams, set', 'simhash(body, 5, ''char'', ''set'')', 20);
SELECT q_simhash(:'ds', 'simhash char 7 tf', 'char 7-grams, tf', 'simhash(body, 7, ''char'')', 20);
SELECT q_simhash(:'ds', 'simhash char 7 set', 'char 7-grams, set', 'simhash(body, 7, ''char'', ''set'')', 20);
SELECT q_simhash(:'ds', 'simhash tsvector english', 'to_tsvector(''english'')', 'simhash(to_tsvector(''english'', body))', 20);

-- min-hash, k = 128: all pairs (self-join on jaccard of the sketches), estimate >= 0.2 kept
SELECT q_method(:'ds', 'minhash oph k=128 (default)', 'minhash', 'word 3-shingles, densified OPH, 32-bit', 'sim', :'t',
	$b$CREATE TABLE "mh_oph_%1$s" AS SELECT doc_id AS id, minhash(body) AS m FROM corpus WHERE ds = %1$L$b$,
	$p$INSERT INTO mpairs SELECT %1$L, %2$L, a.id, b.id, jaccard(a.m, b.m)
	   FROM "mh_oph_%1$s" a JOIN "mh_oph_%1$s" b ON a.id < b.id AND jaccard(a.m, b.m) >= 0.1$p$);
SELECT q_method(:'ds', 'minhash kperm k=128', 'minhash', 'word 3-shingles, k permutations, 32-bit', 'sim', :'t',
	$b$CREATE TABLE "mh_kperm_%1$s" AS SELECT doc_id AS id, minhash(body, 128, 'kperm') AS m FROM corpus WHERE ds = %1$L$b$,
	$p$INSERT INTO mpairs SELECT %1$L, %2$L, a.id, b.id, jaccard(a.m, b.m)
	   FROM "mh_kperm_%1$s" a JOIN "mh_kperm_%1$s" b ON a.id < b.id AND jaccard(a.m, b.m) >= 0.1$p$);
SELECT q_method(:'ds', 'minhash oph k=128 b=8', 'minhash', 'word 3-shingles, densified OPH, 8-bit', 'sim', :'t',
	$b$CREATE TABLE "mh_b8_%1$s" AS SELECT id, minhash_bbit(m, 8) AS m FROM "mh_oph_%1$s"$b$,
	$p$INSERT INTO mpairs SELECT %1$L, %2$L, a.id, b.id, jaccard(a.m, b.m)
	   FROM "mh_b8_%1$s" a JOIN "mh_b8_%1$s" b ON a.id < b.id AND jaccard(a.m, b.m) >= 0.1$p$);

-- super-shingles 6 x 14 of an 84-value kperm sketch: score = number of the 6 groups that match
SELECT q_method(:'ds', 'super-shingles 6x14', 'super-shingles', 'kperm 84 -> 6 super-shingles of 14', 'sim', '{1,2,3,4,6}',
	$b$CREATE TABLE "ss_%1$s" AS SELECT doc_id AS id, super_shingles(minhash(body, 84, 'kperm')) AS s FROM corpus WHERE ds = %1$L$b$,
	$p$INSERT INTO mpairs SELECT %1$L, %2$L, a.id, b.id, count(*)
	   FROM (SELECT id, g, v FROM "ss_%1$s", unnest(s) WITH ORDINALITY u(v, g)) a
	   JOIN (SELECT id, g, v FROM "ss_%1$s", unnest(s) WITH ORDINALITY u(v, g)) b ON a.g = b.g AND a.v = b.v AND a.id < b.id
	   GROUP BY a.id, b.id$p$);
-- the documented path for "at least 2 of 6": shared super_shingle_keys (a GIN-able && on bigint[])
SELECT q_method(:'ds', 'super-shingle keys r=2', 'super-shingles', 'super_shingle_keys(.., 2), 15 keys', 'sim', '{1}',
	NULL,
	$p$INSERT INTO mpairs SELECT DISTINCT %1$L, %2$L, a.id, b.id, 1
	   FROM (SELECT id, k FROM "ss_%1$s", unnest(super_shingle_keys(s, 2)) k) a
	   JOIN (SELECT id, k FROM "ss_%1$s", unnest(super_shingle_keys(s, 2)) k) b ON a.k = b.k AND a.id < b.id$p$);

-- I-Match: lexicon over the dataset (imatch_lexicon_agg, 10 % / 10 % cut), single and multi-lexicon
SELECT q_method(:'ds', 'imatch single', 'I-Match', 'one lexicon', 'sim', '{1}',
	$b$CREATE TABLE "lex_%1$s" AS SELECT imatch_lexicon_agg(body) AS l FROM corpus WHERE ds = %1$L;
	   CREATE TABLE "im_%1$s" AS SELECT doc_id AS id, imatch(body, l) AS sig FROM corpus, "lex_%1$s" WHERE ds = %1$L$b$,
	$p$INSERT INTO mpairs SELECT %1$L, %2$L, a.id, b.id, 1 FROM "im_%1$s" a JOIN "im_%1$s" b ON a.sig = b.sig AND a.id < b.id$p$);
SELECT q_method(:'ds', 'imatch multi n=5', 'I-Match', '5 sub-lexicons, drop 0.2', 'sim', '{1}',
	$b$CREATE TABLE "im5_%1$s" AS SELECT doc_id AS id, unnest(imatch(body, l, 5)) AS sig FROM corpus, "lex_%1$s" WHERE ds = %1$L$b$,
	$p$INSERT INTO mpairs SELECT DISTINCT %1$L, %2$L, a.id, b.id, 1 FROM "im5_%1$s" a JOIN "im5_%1$s" b ON a.sig = b.sig AND a.id < b.id$p$);
SELECT q_method(:'ds', 'imatch multi n=10', 'I-Match', '10 sub-lexicons, drop 0.2', 'sim', '{1}',
	$b$CREATE TABLE "im10_%1$s" AS SELECT doc_id AS id, unnest(imatch(body, l, 10)) AS sig FROM corpus, "lex_%1$s" WHERE ds = %1$L$b$,
	$p$INSERT INTO mpairs SELECT DISTINCT %1$L, %2$L, a.id, b.id, 1 FROM "im10_%1$s" a JOIN "im10_%1$s" b ON a.sig = b.sig AND a.id < b.id$p$);

-- exact word 3-shingle resemblance and containment (from the overlaps computed by q_exact)
SELECT q_method(:'ds', 'exact jaccard word 3', 'exact', 'shingle_set, word 3', 'sim', :'t', NULL,
	$p$INSERT INTO mpairs SELECT %1$L, %2$L, id1, id2, j FROM exact WHERE ds = %1$L AND j >= 0.1$p$,
	'time: see the exact-overlap step');
SELECT q_method(:'ds', 'exact containment word 3', 'exact', 'shingle_set, word 3, c(smaller, larger)', 'sim',
	'{0.3,0.4,0.5,0.6,0.7,0.8,0.9}', NULL,
	$p$INSERT INTO mpairs SELECT %1$L, %2$L, id1, id2, c FROM exact WHERE ds = %1$L AND c >= 0.3$p$,
	'time: see the exact-overlap step');

-- hybrid: simhash (default features) candidates within a large radius, confirmed by min-hash
SELECT q_method(:'ds', 'hybrid simhash<=16 + minhash', 'hybrid', 'word 2 tf k<=16, then oph k=128 estimate', 'sim', :'t', NULL,
	$p$INSERT INTO mpairs SELECT %1$L, %2$L, h.id1, h.id2, jaccard(a.m, b.m)
	   FROM hamming_pairs('SELECT id, fp FROM "fp_' || md5(%1$L || 'simhash word 2 tf (default)') || '"', 16) h
	   JOIN "mh_oph_%1$s" a ON a.id = h.id1 JOIN "mh_oph_%1$s" b ON b.id = h.id2
	   WHERE jaccard(a.m, b.m) >= 0.1$p$, 'time: pairs only (fingerprints and sketches reused)');
SELECT q_method(:'ds', 'hybrid simhash<=22 + minhash', 'hybrid', 'word 2 tf k<=22, then oph k=128 estimate', 'sim', :'t', NULL,
	$p$INSERT INTO mpairs SELECT %1$L, %2$L, h.id1, h.id2, jaccard(a.m, b.m)
	   FROM hamming_pairs('SELECT id, fp FROM "fp_' || md5(%1$L || 'simhash word 2 tf (default)') || '"', 22) h
	   JOIN "mh_oph_%1$s" a ON a.id = h.id1 JOIN "mh_oph_%1$s" b ON b.id = h.id2
	   WHERE jaccard(a.m, b.m) >= 0.1$p$, 'time: pairs only (fingerprints and sketches reused)');
SELECT q_method(:'ds', 'hybrid simhash char7<=16 + minhash', 'hybrid', 'char 7 tf k<=16, then oph k=128 estimate', 'sim', :'t', NULL,
	$p$INSERT INTO mpairs SELECT %1$L, %2$L, h.id1, h.id2, jaccard(a.m, b.m)
	   FROM hamming_pairs('SELECT id, fp FROM "fp_' || md5(%1$L || 'simhash char 7 tf') || '"', 16) h
	   JOIN "mh_oph_%1$s" a ON a.id = h.id1 JOIN "mh_oph_%1$s" b ON b.id = h.id2
	   WHERE jaccard(a.m, b.m) >= 0.1$p$, 'time: pairs only (fingerprints and sketches reused)');

-- scores
SELECT q_score(:'ds', method) FROM methods WHERE ds = :'ds' ORDER BY method;
SELECT q_score_exact(:'ds', '{0.3,0.5,0.8}');
