-- One example per object of docs/reference.md.  test/reference/generate.py
-- runs the fixture below, then each example in a transaction it rolls back,
-- and shows the first row of its result beside it.
--
-- An example is a line "-- @ KEY" followed by one statement; KEY names the
-- object as PostgreSQL prints it: a function or aggregate as its
-- regprocedure (hamming(simhash64,simhash64)), an operator as its
-- regoperator (<->(simhash64,simhash64)), a type by name, a cast as
-- "SOURCE AS TARGET", an operator class as "NAME USING METHOD", a setting by
-- name.  Keep each example to one line of the page: short, and showing what
-- the object is for.

CREATE TABLE docs (
	id bigint PRIMARY KEY,
	body text NOT NULL,
	created_at date NOT NULL,
	fp simhash64 GENERATED ALWAYS AS (simhash(body)) STORED,
	ss shingleset GENERATED ALWAYS AS (shingle_set(body)) STORED,
	sk minhash_sketch GENERATED ALWAYS AS (minhash(body)) STORED,
	supers bigint[] GENERATED ALWAYS AS (super_shingles(minhash(body, 84, 'kperm'))) STORED
);
INSERT INTO docs (id, body, created_at) VALUES
	(1, 'PostgreSQL 15 adds the MERGE command, which lets one statement insert, update or delete rows of a target table depending on a join with a source.', '2026-01-05'),
	(2, 'PostgreSQL 15 adds the MERGE command, which lets one statement insert, update or delete the rows of a target table depending on a join with the source.', '2026-01-04'),
	(3, 'Sourdough needs a lively starter, a long cold proof in the fridge and a very hot oven with steam for the first twenty minutes of the bake.', '2026-01-05'),
	(4, 'Sourdough needs a lively starter, a long cold proof in the fridge and a very hot oven with steam for the first 20 minutes of the bake!', '2026-01-06'),
	(5, 'PostgreSQL 15 adds the MERGE command, which lets one statement insert, update or delete rows of a target table depending on a join with a source!', '2026-01-07');
-- the labels: the candidate pairs of docs, all judged duplicates, and one pair judged distinct
CREATE TABLE docs_labels AS SELECT *, true AS is_duplicate FROM nddup_pairs_to_judge('docs', 'id', 'ss', 100);
INSERT INTO docs_labels VALUES (1, 3, 0.12, 0, 1, 1, false);
SELECT count(*) FROM nddup_decide('docs', 'ss', 0.3, source_column => 'body');
CREATE TABLE posts (id bigserial PRIMARY KEY, body text NOT NULL,
	fp simhash64 GENERATED ALWAYS AS (simhash(body)) STORED, duplicate_of bigint);
CREATE INDEX ON posts USING gin (fp simhash64_gin_ops) WITH (fastupdate = off) WHERE duplicate_of IS NULL;
CREATE INDEX posts_fp_ham ON posts USING hamming (fp) WHERE duplicate_of IS NULL;
CREATE TRIGGER dedup BEFORE INSERT OR UPDATE OF body ON posts FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=fp', 'source=body', 'radius=12');
-- the key table of nddup_original_routed(): the block keys of every original of docs at radius 3
CREATE TABLE docs_keys AS SELECT k AS key, id, fp AS sig FROM docs, unnest(hamming_block_keys(fp, 3)) k;

-- types
-- @ simhash64
SELECT '00ff00ff00ff00ff'::simhash64
-- @ hamming_ball
SELECT ball('00ff00ff00ff00ff', 3)
-- @ shingleset
SELECT shingle_set('a rose is a rose')
-- @ minhash_sketch
SELECT minhash('a rose is a rose', 4, 'kperm')
-- @ imatch_lexicon
SELECT imatch_lexicon_agg(body) FROM docs
-- @ minhash_query
SELECT similar_to(minhash('a rose is a rose', 4, 'kperm'), 0.5)
-- @ shingleset_query
SELECT containing(shingle_set('a rose is a rose'), 0.8)

-- the text pipeline
-- @ normalize_text(text)
SELECT normalize_text('<p>The <b>Quick</b> brown&nbsp;fox!</p>')
-- @ tokens(text)
SELECT tokens('東京abc 123')
-- @ shingles(text,integer,text)
SELECT cardinality(shingles('a rose is a rose is a rose'))
-- @ nddup_unicode_version()
SELECT nddup_unicode_version()

-- simhash
-- @ simhash(text,integer,text,text)
SELECT simhash('The quick brown fox jumps over the lazy dog')
-- @ simhash(text[])
SELECT simhash(ARRAY['quick', 'brown', 'fox'])
-- @ simhash(text[],real[])
SELECT simhash(ARRAY['quick', 'brown', 'fox'], ARRAY[1, 2, 0.5]::real[])
-- @ simhash(tsvector)
SELECT simhash(to_tsvector('english', 'The quick brown foxes jumped'))
-- @ simhash_agg_state
SELECT ('n=1' || repeat(' 3ff0000000000000', 64))::simhash_agg_state IS NOT NULL AS a_state_with_one_feature
-- @ simhash_agg(text,double precision)
SELECT simhash_agg(word, length(word)) FROM unnest(ARRAY['quick', 'brown', 'fox']) word
-- @ to_simhash64(text,integer,text,text)
SELECT to_simhash64('The quick brown fox jumps over the lazy dog')
-- @ to_simhash64(text[])
SELECT to_simhash64(ARRAY['quick', 'brown', 'fox'])
-- @ to_simhash64(text[],real[])
SELECT to_simhash64(ARRAY['quick', 'brown', 'fox'], ARRAY[1, 2, 0.5]::real[])
-- @ to_simhash64(tsvector)
SELECT to_simhash64(to_tsvector('english', 'The quick brown foxes jumped'))
-- @ simhash64_agg(text,double precision)
SELECT simhash64_agg(word, length(word)) FROM unnest(ARRAY['quick', 'brown', 'fox']) word
-- @ hamming(simhash64,simhash64)
SELECT hamming('0000000000000000', '000000000000000f')
-- @ within(simhash64,simhash64,integer)
SELECT within(simhash('the quick brown fox'), simhash('the quick brown fox!'), 3)
-- @ ball(simhash64,integer)
SELECT count(*) FROM docs WHERE fp <@ ball((SELECT fp FROM docs WHERE id = 1), 12)
-- @ center(hamming_ball)
SELECT center(ball('00ff00ff00ff00ff', 3))
-- @ radius(hamming_ball)
SELECT radius(ball('00ff00ff00ff00ff', 3))
-- @ hamming_within_radius(integer)
SELECT hamming_within_radius(12)
-- @ <->(simhash64,simhash64)
SELECT '0000000000000000'::simhash64 <-> '00000000000000ff'
-- @ <@(simhash64,hamming_ball)
SELECT '0000000000000003'::simhash64 <@ ball('0000000000000000', 2)
-- @ =(simhash64,simhash64)
SELECT simhash('The QUICK brown fox') = simhash('the quick brown fox')
-- @ <>(simhash64,simhash64)
SELECT simhash('the quick brown fox') <> simhash('a slow red fox')
-- @ <(simhash64,simhash64)
SELECT '7fffffffffffffff'::simhash64 < '8000000000000000'
-- @ <=(simhash64,simhash64)
SELECT '8000000000000000'::simhash64 <= '8000000000000000'
-- @ >(simhash64,simhash64)
SELECT 'ffffffffffffffff'::simhash64 > '0000000000000000'
-- @ >=(simhash64,simhash64)
SELECT '0000000000000001'::simhash64 >= '0000000000000000'
-- @ simhash64 AS bigint
SELECT 'ffffffffffffffff'::simhash64::bigint
-- @ bigint AS simhash64
SELECT (-1)::bigint::simhash64
-- @ simhash64 AS bit
SELECT '000000000000000f'::simhash64::bit(64)
-- @ bit AS simhash64
SELECT lpad('1111', 64, '0')::bit(64)::simhash64
-- @ simhash64_ops USING btree
SELECT id FROM docs ORDER BY fp LIMIT 1
-- @ simhash64_ops USING hash
SELECT count(DISTINCT fp) FROM docs
-- @ simhash64_gin_ops USING gin
CREATE INDEX ON docs USING gin (fp simhash64_gin_ops(blocks = 4)) WITH (fastupdate = off)
-- @ simhash64_hamming_ops USING hamming
CREATE INDEX docs_fp_ham ON docs USING hamming (fp) WITH (merge_fraction = 0.05)
-- @ hamming_index_stats(regclass)
SELECT * FROM hamming_index_stats('posts_fp_ham')
-- @ simhash64_spgist_ops USING spgist
CREATE INDEX ON docs USING spgist (fp)

-- nearest, batch
-- @ hamming_nearest(regclass,name,name,simhash64,integer)
SELECT * FROM hamming_nearest('docs', 'id', 'fp', (SELECT fp FROM docs WHERE id = 3), 2)
-- @ nddup_recommend_threshold(regclass,name,name,integer,integer)
SELECT threshold, valley_found, candidate_pairs, note FROM nddup_recommend_threshold('docs', 'id', 'sk')
-- @ nddup_column_kind(regclass,name)
SELECT nddup_column_kind('docs', 'sk')
-- @ nddup_pairs_to_judge(regclass,name,name,integer,integer,double precision,integer,regclass)
SELECT * FROM nddup_pairs_to_judge('docs', 'id', 'ss', 10) ORDER BY similarity DESC
-- @ nddup_sample_pairs(text,integer,integer,double precision,integer,regclass)
SELECT * FROM nddup_sample_pairs('SELECT id1, id2, resemblance FROM minhash_pairs(''docs'', ''id'', ''sk'', 0.1)', 2)
-- @ nddup_calibrate(regclass,double precision,double precision,integer,integer,double precision)
SELECT threshold, precision, recall, f1, note FROM nddup_calibrate('docs_labels', first_guess => 0.3)
-- @ nddup_decide(regclass,name,double precision,integer,shingle_filter,name,text)
SELECT relid, column_name, method, threshold FROM nddup_decide('docs', 'sk', 0.4, source_column => 'body')
-- @ nddup_decision(regclass,name,integer)
SELECT column_name, method, threshold, column_check FROM nddup_decision('docs')
-- @ nddup_decisions_changed()
SELECT tgrelid::regclass, tgname FROM pg_trigger WHERE tgfoid = 'nddup_decisions_changed'::regproc
-- @ nddup_explain(text,text,integer,text)
SELECT round(jaccard::numeric, 3) AS jaccard, minhash_estimate, simhash_distance, a_passages, b_passages FROM nddup_explain((SELECT body FROM docs WHERE id = 3), (SELECT body FROM docs WHERE id = 4))
-- @ nddup_highlight(text,text,text,text,integer,text)
SELECT * FROM nddup_highlight('<p>Sourdough needs a lively starter</p>', 'sourdough needs a LIVELY starter and a hot oven')
-- @ hamming_pairs(text,integer,double precision)
SELECT * FROM hamming_pairs('SELECT id, fp, body FROM docs', 12, verify => 0.5) ORDER BY 1, 2
-- @ hamming_pairs(regclass,name,name,integer,name,double precision)
SELECT * FROM hamming_pairs('docs', 'id', 'fp', 12, verify_column => 'body') ORDER BY 1, 2
-- @ hamming_join(text,text,integer,double precision)
SELECT * FROM hamming_join('SELECT id, fp FROM docs WHERE id < 3', 'SELECT id, fp FROM docs WHERE id >= 3', 12) ORDER BY 1, 2
-- @ hamming_clusters(text,integer,boolean,double precision,text)
SELECT * FROM hamming_clusters('SELECT id, fp, created_at, body FROM docs', 12, verify => 0.5) ORDER BY id
-- @ hamming_clusters(regclass,name,name,integer,name,boolean,name,double precision,text)
SELECT * FROM hamming_clusters('docs', 'id', 'fp', 12, 'created_at') ORDER BY id
-- @ hamming_clusters(text,name,name,double precision,name,boolean,name,double precision,text)
SELECT * FROM hamming_clusters('docs', 'id', 'fp', '12') ORDER BY id
-- @ clusters_from_pairs(text,boolean,text)
SELECT * FROM clusters_from_pairs('VALUES (1, 2), (2, 3), (7, 8)', mode => 'components') ORDER BY id
-- @ hamming_assign(text,text,integer)
SELECT * FROM hamming_assign('SELECT id, fp FROM docs WHERE id = 5', 'SELECT id, fp, 1 FROM docs WHERE id = 1', 12)
-- @ minhash_pairs(text,double precision,bigint,bigint,double precision)
SELECT * FROM minhash_pairs('SELECT id, sk FROM docs', 0.5) ORDER BY 1, 2
-- @ minhash_pairs(regclass,name,name,double precision,bigint,bigint,name,double precision)
SELECT * FROM minhash_pairs('docs', 'id', 'sk', 0.4, verify_column => 'body', verify => 0.5) ORDER BY 1, 2
-- @ minhash_pairs(text,name,name,double precision,bigint,bigint,name,double precision)
SELECT * FROM minhash_pairs('docs', 'id', 'sk', '0.5') ORDER BY 1, 2
-- @ minhash_join(text,text,double precision,bigint,bigint,double precision)
SELECT * FROM minhash_join('SELECT id, sk FROM docs WHERE id < 3', 'SELECT id, sk FROM docs WHERE id >= 3', 0.5) ORDER BY 1, 2
-- @ minhash_clusters(text,double precision,bigint,bigint,boolean,double precision,text)
SELECT * FROM minhash_clusters('SELECT id, sk, created_at, body FROM docs', 0.4, verify => 0.5) ORDER BY id
-- @ minhash_clusters(regclass,name,name,double precision,name,bigint,bigint,boolean,name,double precision,text)
SELECT * FROM minhash_clusters('docs'::regclass, 'id', 'sk', 0.5, 'created_at', bands => 16, rows => 8) ORDER BY id
-- @ minhash_clusters(text,name,name,double precision,name,bigint,bigint,boolean,name,double precision,text)
SELECT * FROM minhash_clusters('docs', 'id', 'sk', '0.5') ORDER BY id
-- @ super_shingle_pairs(text,integer)
SELECT * FROM super_shingle_pairs('SELECT id, supers FROM docs') ORDER BY 1, 2
-- @ shingleset_pairs(text,double precision,text)
SELECT * FROM shingleset_pairs('SELECT id, ss FROM docs', 0.5) ORDER BY 1, 2
-- @ shingleset_pairs(regclass,name,name,double precision,text)
SELECT * FROM shingleset_pairs('docs', 'id', 'ss', 0.5) ORDER BY 1, 2
-- @ shingleset_join(text,text,double precision,text)
SELECT * FROM shingleset_join('SELECT id, ss FROM docs WHERE id < 3', 'SELECT id, ss FROM docs WHERE id >= 3', 0.9, 'containment') ORDER BY 1, 2
-- @ shingleset_clusters(text,double precision,boolean,text,text)
SELECT * FROM shingleset_clusters('SELECT id, ss, created_at FROM docs', 0.5) ORDER BY id
-- @ shingleset_clusters(regclass,name,name,double precision,name,boolean,text,text)
SELECT * FROM shingleset_clusters('docs', 'id', 'ss', 0.5, 'created_at') ORDER BY id
-- @ shingleset_clusters(text,name,name,text,name,boolean,text,text)
SELECT * FROM shingleset_clusters('docs', 'id', 'ss', '0.5') ORDER BY id

-- shingle sets
-- @ shingle_set(text,integer,text)
SELECT shingle_set('a rose is a rose is a rose')
-- @ to_shingleset(text,integer,text)
SELECT to_shingleset('a rose is a rose is a rose')
-- @ shingle_bottom(text,integer,integer,text)
SELECT shingle_bottom('a rose is a rose is a rose', 2)
-- @ shingle_bottom(shingleset,integer)
SELECT shingle_bottom(shingle_set('a rose is a rose is a rose'), 2)
-- @ shingle_mod(text,integer,integer,text)
SELECT shingle_mod('a rose is a rose is a rose', 2)
-- @ shingle_mod(shingleset,integer)
SELECT shingle_mod(shingle_set('a rose is a rose is a rose'), 2)
-- @ jaccard(shingleset,shingleset)
SELECT jaccard(ss, (SELECT ss FROM docs WHERE id = 2)) FROM docs WHERE id = 1
-- @ containment(shingleset,shingleset)
SELECT containment(shingle_set('a long cold proof in the fridge'), ss) FROM docs WHERE id = 3
-- @ overlap(shingleset,shingleset)
SELECT overlap(ss, (SELECT ss FROM docs WHERE id = 2)) FROM docs WHERE id = 1
-- @ cardinality(shingleset)
SELECT cardinality(shingle_set('a rose is a rose is a rose'))
-- @ "similar"(shingleset,shingleset,double precision)
SELECT similar(ss, (SELECT ss FROM docs WHERE id = 2), 0.5) FROM docs WHERE id = 1
-- @ similar_to(shingleset,double precision)
SELECT id FROM docs WHERE ss <@ similar_to((SELECT ss FROM docs WHERE id = 1), 0.5) ORDER BY id
-- @ containing(shingleset,double precision)
SELECT id FROM docs WHERE ss <@ containing(shingle_set('a long cold proof in the fridge'), 1.0) ORDER BY id
-- @ <->(shingleset,shingleset)
SELECT shingle_set('a b c d') <-> shingle_set('a b c e')
-- @ %(shingleset,shingleset)
SELECT shingle_set('a b c d e f') % shingle_set('a b c d e g')
-- @ &&(shingleset,shingleset)
SELECT shingle_set('a b c d') && shingle_set('x a b c')
-- @ <@(shingleset,shingleset_query)
SELECT shingle_set('a b c d') <@ similar_to(shingle_set('a b c d e'), 0.5)
-- @ =(shingleset,shingleset)
SELECT shingle_set('A rose, a ROSE') = shingle_set('a rose a rose')
-- @ <>(shingleset,shingleset)
SELECT shingle_set('a rose') <> shingle_set('a rose', 2, 'char')
-- @ shingleset AS bigint[]
SELECT cardinality(shingle_set('a rose is a rose')::bigint[])
-- @ shingleset_hash_ops USING hash
SELECT count(*) FROM (SELECT ss FROM docs GROUP BY ss) g
-- @ shingleset_ops USING gin
CREATE INDEX ON docs USING gin (ss shingleset_ops) WITH (fastupdate = off)

-- min-hash sketches
-- @ minhash(text,integer,text,integer,integer,text)
SELECT minhash('a rose is a rose is a rose', 4, 'kperm')
-- @ to_minhash_sketch(text,integer,text,integer,integer,text)
SELECT to_minhash_sketch('a rose is a rose is a rose', 4, 'kperm')
-- @ minhash_bbit(minhash_sketch,integer)
SELECT minhash_bbit(minhash('a rose is a rose is a rose', 4, 'kperm'), 8)
-- @ minhash_k(minhash_sketch)
SELECT minhash_k(sk) FROM docs WHERE id = 1
-- @ jaccard(minhash_sketch,minhash_sketch)
SELECT jaccard(sk, (SELECT sk FROM docs WHERE id = 2)) FROM docs WHERE id = 1
-- @ "similar"(minhash_sketch,minhash_sketch,double precision)
SELECT similar(sk, (SELECT sk FROM docs WHERE id = 2), 0.5) FROM docs WHERE id = 1
-- @ similar_to(minhash_sketch,double precision)
SELECT id FROM docs WHERE sk <@ similar_to((SELECT sk FROM docs WHERE id = 1), 0.5) ORDER BY id
-- @ minhash_merge(minhash_sketch,minhash_sketch)
SELECT jaccard(minhash_merge(minhash('a b c d'), minhash('c d e f')), minhash('a b c d e f'))
-- @ minhash_union(minhash_sketch)
SELECT jaccard(minhash_union(sk), (SELECT sk FROM docs WHERE id = 1)) FROM docs WHERE id IN (1, 3)
-- @ super_shingles(minhash_sketch,integer,integer)
SELECT cardinality(super_shingles(minhash('a rose is a rose', 84, 'kperm')))
-- @ super_shingles_match(bigint[],bigint[],integer)
SELECT super_shingles_match(a.supers, b.supers) FROM docs a, docs b WHERE a.id = 1 AND b.id = 5
-- @ super_shingle_keys(bigint[],integer)
SELECT cardinality(super_shingle_keys(supers)) FROM docs WHERE id = 1
-- @ minhash_lsh_geometry(integer,integer,double precision)
SELECT * FROM minhash_lsh_geometry(128, 32, 0.5)
-- @ <->(minhash_sketch,minhash_sketch)
SELECT a.sk <-> b.sk FROM docs a, docs b WHERE a.id = 1 AND b.id = 2
-- @ %(minhash_sketch,minhash_sketch)
SELECT a.sk % b.sk FROM docs a, docs b WHERE a.id = 1 AND b.id = 3
-- @ <@(minhash_sketch,minhash_query)
SELECT a.sk <@ similar_to(b.sk, 0.5) FROM docs a, docs b WHERE a.id = 1 AND b.id = 2
-- @ =(minhash_sketch,minhash_sketch)
SELECT minhash('The rose!') = minhash('the rose')
-- @ <>(minhash_sketch,minhash_sketch)
SELECT minhash('the rose') <> minhash('the rose', seed => 1)
-- @ minhash_sketch AS bigint[]
SELECT (minhash('a rose is a rose', 4, 'kperm')::bigint[])[1]
-- @ minhash_sketch_hash_ops USING hash
SELECT count(*) FROM (SELECT sk FROM docs GROUP BY sk) g
-- @ minhash_lsh_ops USING gin
CREATE INDEX ON docs USING gin (sk minhash_lsh_ops(threshold = 0.5)) WITH (fastupdate = off)

-- I-Match
-- @ imatch_lexicon_agg(text)
SELECT imatch_lexicon_size(imatch_lexicon_agg(body)) FROM docs
-- @ imatch_lexicon_agg(text,double precision,double precision)
SELECT imatch_lexicon_size(imatch_lexicon_agg(body, 0.2, 0.2)) FROM docs
-- @ imatch_lexicon_size(imatch_lexicon)
SELECT imatch_lexicon_size(imatch_lexicon_agg(body, 0, 0)) FROM docs
-- @ imatch(text,imatch_lexicon)
SELECT imatch(body, (SELECT imatch_lexicon_agg(body) FROM docs)) FROM docs WHERE id = 1
-- boilerplate-aware sketches (docs/sketches.md#boilerplate-aware-sketches)
-- @ shingle_filter
SELECT shingle_filter_agg(body, 2, 0) FROM docs
-- @ shingle_filter_agg(text)
SELECT shingle_filter_size(shingle_filter_agg(body)) FROM docs
-- @ shingle_filter_agg(text,integer,double precision)
SELECT shingle_filter_size(shingle_filter_agg(body, 2, 0)) FROM docs
-- @ shingle_filter_agg(text,integer,double precision,integer,text)
SELECT shingle_filter_size(shingle_filter_agg(body, 2, 0, 1, 'word_')) FROM docs
-- @ shingle_filter_size(shingle_filter)
SELECT shingle_filter_size(shingle_filter_agg(body, 1, 0)) FROM docs
-- @ shingle_filter_to_array(shingle_filter)
SELECT cardinality(shingle_filter_to_array(shingle_filter_agg(body, 2, 0))) FROM docs
-- @ shingle_filter AS bigint[]
SELECT (shingle_filter_agg(body, 2, 0)::bigint[])[1] FROM docs
-- @ minhash_filtered(shingle_filter,text,integer,text,integer)
SELECT jaccard(minhash_filtered(f, a.body), minhash_filtered(f, b.body)) FROM docs a, docs b, (SELECT shingle_filter_agg(body, 2, 0) AS f FROM docs) s WHERE a.id = 3 AND b.id = 4
-- @ shingle_set_filtered(shingle_filter,text)
SELECT cardinality(shingle_set_filtered((SELECT shingle_filter_agg(body, 2, 0) FROM docs), body)) FROM docs WHERE id = 1
-- @ simhash_filtered(shingle_filter,text,text)
SELECT simhash_filtered((SELECT shingle_filter_agg(body, 2, 0) FROM docs), body) FROM docs WHERE id = 1
-- scale-out: equi-join keys (docs/scale-out.md)
-- @ hamming_block_keys(simhash64,integer,integer)
SELECT hamming_block_keys(fp, 3) FROM docs WHERE id = 1
-- @ hamming_pair_key(simhash64,simhash64,integer,integer)
SELECT hamming_pair_key(a.fp, b.fp, 12) FROM docs a, docs b WHERE a.id = 1 AND b.id = 2
-- @ minhash_band_keys(minhash_sketch,double precision,bigint,bigint)
SELECT cardinality(minhash_band_keys(sk, 0.8)) AS bands FROM docs WHERE id = 1
-- @ minhash_pair_band_key(minhash_sketch,minhash_sketch,double precision,bigint,bigint)
SELECT minhash_pair_band_key(a.sk, b.sk, 0.5) IS NOT NULL AS share_a_band FROM docs a, docs b WHERE a.id = 1 AND b.id = 5
-- @ nddup_hamming_key_group(bigint,simhash64[],smallint[],integer,integer,integer)
SELECT * FROM nddup_hamming_key_group(0, ARRAY['0123456789abcdef', '0123456789abcdee']::simhash64[], NULL, 3, 4, 0)
-- @ nddup_minhash_params(minhash_sketch)
SELECT nddup_minhash_params(minhash('a b c')) = nddup_minhash_params(minhash('x y z')) AS same_parameters
-- @ nddup_row_key(bigint,tid)
SELECT nddup_row_key(102008, '(5,3)')
-- @ nddup_original(regclass,text[],"any",anyelement)
SELECT nddup_original('docs', '{fingerprint=fp,source=body,radius=12,action=skip}', 'PostgreSQL 15 adds the MERGE command, which lets one statement insert, update or delete rows of a target table depending on a join with a source?', NULL::bigint)
-- @ nddup_original(regclass,text[],"any",anyelement,"any")
SELECT nddup_original('docs', '{fingerprint=fp,source=body,radius=12,scope=created_at,action=skip}', (SELECT body FROM docs WHERE id = 4), NULL::bigint, DATE '2026-01-05')
-- @ nddup_original_routed(regclass,text[],"any",anyelement,regclass)
SELECT nddup_original_routed('docs', '{fingerprint=fp,source=body,radius=3,action=skip}', 'PostgreSQL 15 adds the MERGE command, which lets one statement insert, update or delete rows of a target table depending on a join with a source?', 6::bigint, 'docs_keys')
-- @ imatch(text,imatch_lexicon,integer,double precision)
SELECT imatch(body, (SELECT imatch_lexicon_agg(body) FROM docs), 2) FROM docs WHERE id = 1

-- the trigger
-- @ nddup_dedup_trigger()
CREATE TRIGGER dedup2 BEFORE INSERT ON docs FOR EACH ROW EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=fp', 'radius=3')
-- @ nddup_check_trigger(regclass,text[])
SELECT * FROM nddup_check_trigger('posts')

-- settings
-- @ nddup.similarity_threshold
SET nddup.similarity_threshold = 0.5
-- @ nddup.progress
SET nddup.progress = on
-- @ nddup.hamming_probe
SET nddup.hamming_probe = tables
-- @ nddup.batch_blocks
SET nddup.batch_blocks = 8
