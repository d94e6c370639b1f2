-- The database test/bench/reliability/sqlsmith.sh points sqlsmith at: the extension
-- in its own schema, tables holding every nddup type built from the sample
-- corpus (psql variable sample: the path of a gzipped TSV with a header line and
-- the columns id, package, text; read by the server), every
-- index kind, two tables with the duplicate trigger, and a role "smith" that
-- sees only these tables and (through a shadowing pg_proc) only nddup's
-- functions and a few built-in functions that make inputs for them.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;

CREATE SCHEMA nddup;
CREATE EXTENSION nddup SCHEMA nddup;
CREATE SCHEMA corpus;
SET search_path = corpus, nddup, public;

-- the corpus: package descriptions, tokens with weights, tsvector, fingerprint
CREATE TABLE docs (id integer PRIMARY KEY, package text NOT NULL, body text NOT NULL,
				   words text[], weights real[], tsv tsvector, fp simhash64, fp_bits bit(64));
\set program 'zcat ' :'sample'
COPY docs (id, package, body) FROM PROGRAM :'program' WITH (HEADER true);
UPDATE docs SET words = tokens(body), tsv = to_tsvector('simple', body), fp = simhash(body);
UPDATE docs SET weights = ARRAY(SELECT (1 + abs(hashtext(w) % 5))::real FROM unnest(words) w),
				fp_bits = simhash64_to_bit(fp);
-- a few rows with empty, HTML and non-Latin bodies and NULL columns
INSERT INTO docs (id, package, body, words, weights, tsv, fp)
VALUES (100001, 'empty', '', '{}', '{}', ''::tsvector, simhash('')),
	   (100002, 'html', '<p>caf&eacute; &amp; <b>Straße</b></p>', tokens('<p>café</p>'), '{1}', NULL, NULL),
	   (100003, 'cjk', '東京都 日本語のテキスト 東京', tokens('東京'), '{1,2}', to_tsvector('simple', '東京'), simhash('東京')),
	   (100004, 'nulls', 'x', NULL, NULL, NULL, NULL);
CREATE INDEX docs_fp_gin ON docs USING gin (fp simhash64_gin_ops) WITH (fastupdate = off);
CREATE INDEX docs_fp_btree ON docs USING btree (fp);
CREATE INDEX docs_fp_hash ON docs USING hash (fp);

-- fingerprints with the SP-GiST trie (kept apart so the GIN index does not win every plan)
CREATE TABLE fps (id integer PRIMARY KEY, fp simhash64, fp_tsv simhash64, fp_words simhash64);
INSERT INTO fps SELECT id, simhash(body, 3, 'char', 'set'), simhash(tsv), simhash(words, weights) FROM docs;
CREATE INDEX fps_fp_spgist ON fps USING spgist (fp simhash64_spgist_ops);
CREATE INDEX fps_tsv_spgist ON fps USING spgist (fp_tsv simhash64_spgist_ops);
CREATE INDEX fps_words_gin ON fps USING gin (fp_words simhash64_gin_ops);

-- sketches: exact shingle sets, samples, min-hash in both methods and b-bit, super-shingles
CREATE TABLE sketches (id integer PRIMARY KEY, body text, ss shingleset, ss_bottom shingleset,
					   ss_mod shingleset, ss_char shingleset, mh minhash_sketch, mh_kperm minhash_sketch,
					   mh_bbit minhash_sketch, supers bigint[], sig uuid);
INSERT INTO sketches (id, body, ss, ss_bottom, ss_mod, ss_char, mh, mh_kperm, mh_bbit)
SELECT id, body, shingle_set(body), shingle_bottom(body, 50), shingle_mod(body, 8),
	   shingle_set(body, 4, 'char'), minhash(body, 64), minhash(body, 32, 'kperm', 7),
	   minhash_bbit(minhash(body, 128), 4)
FROM docs WHERE id % 2 = 0 OR id > 100000;
UPDATE sketches SET supers = super_shingles(mh_kperm, 4, 8);
CREATE INDEX sketches_ss_gin ON sketches USING gin (ss shingleset_ops) WITH (fastupdate = off);
CREATE INDEX sketches_ss_bottom_gin ON sketches USING gin (ss_bottom shingleset_ops);
CREATE INDEX sketches_ss_char_gin ON sketches USING gin (ss_char);
CREATE INDEX sketches_ss_hash ON sketches USING hash (ss);
CREATE INDEX sketches_mh_lsh ON sketches USING gin (mh minhash_lsh_ops) WITH (fastupdate = off);
CREATE INDEX sketches_mh_kperm_lsh ON sketches USING gin (mh_kperm minhash_lsh_ops (threshold = 0.8));
CREATE INDEX sketches_mh_bbit_lsh ON sketches USING gin (mh_bbit minhash_lsh_ops (threshold = 0.5));
CREATE INDEX sketches_mh_hash ON sketches USING hash (mh);
CREATE INDEX sketches_supers_gin ON sketches USING gin (supers);

-- query values and lexicons: hamming_ball, minhash_query, shingleset_query, imatch_lexicon
CREATE TABLE lexicons (id integer PRIMARY KEY, lexicon imatch_lexicon);
INSERT INTO lexicons
SELECT 1, imatch_lexicon_agg(body) FROM docs
UNION ALL SELECT 2, imatch_lexicon_agg(body, 0.05, 0.001) FROM docs WHERE id % 3 = 0
UNION ALL SELECT 3, imatch_lexicon_agg(body) FROM docs WHERE id > 100000;
UPDATE sketches s SET sig = imatch(s.body, l.lexicon) FROM lexicons l WHERE l.id = 1;
CREATE TABLE probes (id integer PRIMARY KEY, fp simhash64, ball hamming_ball, mq minhash_query,
					 sq shingleset_query, cq shingleset_query, threshold double precision);
INSERT INTO probes
SELECT d.id, d.fp, ball(d.fp, d.id % 17), similar_to(s.mh, (d.id % 10) / 10.0),
	   similar_to(s.ss, (d.id % 10 + 1) / 10.0), containing(s.ss_char, 0.5), (d.id % 11) / 10.0
FROM docs d JOIN sketches s USING (id) WHERE d.id % 20 = 0;

-- the duplicate trigger, by simhash radius and by min-hash resemblance
CREATE TABLE posts (id bigserial PRIMARY KEY, body text NOT NULL,
					fp simhash64 GENERATED ALWAYS AS (simhash(body)) STORED, duplicate_of bigint);
CREATE INDEX posts_fp_gin ON posts USING gin (fp simhash64_gin_ops) WITH (fastupdate = off);
CREATE TRIGGER dedup BEFORE INSERT OR UPDATE OF body ON posts FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=fp', 'source=body', 'radius=12');
INSERT INTO posts (body) SELECT body FROM docs WHERE id % 4 = 0 ORDER BY id;
INSERT INTO posts (body) SELECT body || ' (copy)' FROM docs WHERE id % 40 = 0 ORDER BY id;
CREATE TABLE posts_mh (id bigserial PRIMARY KEY, body text NOT NULL, mh minhash_sketch,
					   duplicate_of bigint);
CREATE INDEX posts_mh_lsh ON posts_mh USING gin (mh minhash_lsh_ops (threshold = 0.5)) WITH (fastupdate = off);
CREATE TRIGGER dedup BEFORE INSERT OR UPDATE ON posts_mh FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=mh', 'source=body', 'method=minhash',
										 'threshold=0.5', 'k=64', 'action=mark');
INSERT INTO posts_mh (body) SELECT body FROM docs WHERE id % 4 = 1 ORDER BY id;
INSERT INTO posts_mh (body) SELECT body || ' again' FROM docs WHERE id % 40 = 1 ORDER BY id;

VACUUM ANALYZE;

-- the role sqlsmith connects as: these tables only, and the shadowing pg_proc
CREATE ROLE smith LOGIN;
REVOKE ALL ON DATABASE postgres FROM PUBLIC;
GRANT USAGE ON SCHEMA corpus, nddup TO smith;
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA corpus TO smith;
GRANT USAGE ON ALL SEQUENCES IN SCHEMA corpus TO smith;

-- sqlsmith 1.4 reads routines from an unqualified "pg_proc": a materialized
-- view (not listed in information_schema.tables, so never queried itself)
-- ahead of pg_catalog in smith's search_path limits them to nddup's
-- functions and a few built-ins (without polymorphic arguments) that turn
-- sqlsmith's integer literals into text, arrays, fractions and bit strings.  Operators cannot be limited this
-- way (sqlsmith reads pg_catalog.pg_operator).
CREATE SCHEMA smith_catalog;
CREATE MATERIALIZED VIEW smith_catalog.pg_proc AS
SELECT * FROM pg_catalog.pg_proc p
WHERE p.pronamespace = 'nddup'::regnamespace
   OR (p.pronamespace = 'pg_catalog'::regnamespace
	   AND (p.proname IN ('chr', 'repeat', 'md5', 'lower', 'upper', 'concat', 'left', 'right',
						  'substr', 'lpad', 'to_hex', 'textcat', 'string_to_array', 'array_to_string',
						  'to_tsvector', 'strip', 'setweight', 'random', 'float8div', 'int2', 'int8',
						  'float4', 'float8', 'bit', 'array_length', 'cardinality', 'octet_length',
						  'hashtext', 'quote_literal', 'translate', 'replace',
						  'count', 'string_agg', 'min', 'max')
			AND (p.proname = 'count' OR NOT EXISTS (SELECT FROM unnest(p.proargtypes) a (t)
					JOIN pg_catalog.pg_type y ON y.oid = a.t WHERE y.typtype = 'p'))));
GRANT USAGE ON SCHEMA smith_catalog TO smith;
GRANT SELECT ON smith_catalog.pg_proc TO smith;
ALTER ROLE smith SET search_path = smith_catalog, pg_catalog, corpus, nddup;
-- parallel plans on these small tables (parallel safety, partial aggregates);
-- enable_seqscan = off is not used: its cost penalty turns JIT on for nearly
-- every query and rules out parallel sequential scans, and the planner picks
-- the indexes for selective conditions at these sizes anyway
ALTER ROLE smith SET parallel_setup_cost = 10;
ALTER ROLE smith SET parallel_tuple_cost = 0.001;
ALTER ROLE smith SET min_parallel_table_scan_size = 0;
ALTER ROLE smith SET min_parallel_index_scan_size = 0;
