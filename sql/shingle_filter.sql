--
-- Boilerplate-aware sketches: the shingle_filter type, shingle_filter_agg,
-- and minhash / shingle_set / simhash through a filter.  The filter is
-- compared with document frequencies counted in SQL, and the filtered
-- sketches with the sketches of the text with the frequent words removed
-- (unigram filters, where removing shingles is a text edit) or with the
-- set difference (3-shingles).  Known answers pin the stored forms.
--
SET extra_float_digits = 0;
-- own schema: the tables below must not meet those of other tests
CREATE SCHEMA sf;
SET search_path = sf, public;

-- a collection with boilerplate: a header on every page, a footer on 60 of
-- them, a template line on 25, and distinct words
CREATE TABLE pages (id int PRIMARY KEY, body text);
INSERT INTO pages
SELECT i, 'welcome to the example site home page '
	|| CASE WHEN i % 5 < 3 THEN 'copyright all rights reserved contact us ' ELSE '' END
	|| CASE WHEN i % 4 = 0 THEN 'this package provides the development files ' ELSE '' END
	|| 'w' || i || 'a w' || (i * 7 % 101) || 'b w' || (i % 13) || 'c w' || i || 'd'
FROM generate_series(1, 100) i;
-- a page that is all boilerplate, and a page made of one word
INSERT INTO pages VALUES (101, 'welcome to the example site home page'), (102, 'w1a');

-- known answers: the filter of the collection (defaults: size 3, word,
-- more than max(20, 0.2% of N) documents)
SELECT shingle_filter_agg(body) FROM pages;
SELECT shingle_filter_agg(body, 30, 0.5) FROM pages;
SELECT shingle_filter_size(shingle_filter_agg(body, 5, 0)) FROM pages;
-- NULL documents are not counted; no rows give NULL
SELECT shingle_filter_agg(d) FROM unnest(ARRAY['a b c', NULL, 'a b c']) AS d;
SELECT shingle_filter_agg(body) IS NULL AS no_rows FROM pages WHERE false;

-- the filter holds exactly the shingles whose document frequency exceeds the
-- cut-off (counted in SQL from the exact shingle sets)
CREATE FUNCTION frequent(size int, unit text, cutoff bigint) RETURNS SETOF bigint LANGUAGE sql
AS $$SELECT h FROM pages, unnest(shingle_set(body, size, unit)::bigint[]) h
	GROUP BY h HAVING count(*) > cutoff$$;
CREATE TABLE filters (name text PRIMARY KEY, f shingle_filter);
INSERT INTO filters
SELECT 'default', shingle_filter_agg(body) FROM pages
UNION ALL SELECT 'c10', shingle_filter_agg(body, 10, 0) FROM pages
UNION ALL SELECT 'share', shingle_filter_agg(body, 1, 0.3) FROM pages
UNION ALL SELECT 'unigram', shingle_filter_agg(body, 20, 0, 1, 'word') FROM pages
UNION ALL SELECT 'char', shingle_filter_agg(body, 2, 0, 4, 'char') FROM pages;
SELECT name, shingle_filter_size(f) AS n,
       (SELECT count(*) FROM frequent(s.size, s.unit, s.cutoff)) AS sql_n,
       (SELECT count(*) FROM ((SELECT unnest(f::bigint[])
							   EXCEPT SELECT frequent(s.size, s.unit, s.cutoff))
							  UNION ALL (SELECT frequent(s.size, s.unit, s.cutoff)
										 EXCEPT SELECT unnest(f::bigint[]))) d) AS differences
FROM filters,
     LATERAL (SELECT (regexp_match(f::text, 'size=(\d+)'))[1]::int AS size,
					 (regexp_match(f::text, 'unit=(\w+)'))[1] AS unit,
					 (regexp_match(f::text, 'cutoff=(\d+)'))[1]::bigint AS cutoff) s
ORDER BY name;

-- filtered shingle sets are the sets minus the filter (or the whole set when
-- nothing would be left)
SELECT name, count(*) AS pages,
       count(*) FILTER (WHERE filtered = expected) AS equal,
       count(*) FILTER (WHERE fell_back) AS fell_back
FROM (SELECT name, p.id,
			 shingle_set_filtered(f, p.body)::bigint[] AS filtered,
			 CASE WHEN cardinality(kept) = 0 THEN full_set ELSE kept END AS expected,
			 cardinality(kept) = 0 AS fell_back
	  FROM filters, pages p,
		   LATERAL (SELECT (regexp_match(f::text, 'size=(\d+)'))[1]::int AS size,
						   (regexp_match(f::text, 'unit=(\w+)'))[1] AS unit) s,
		   LATERAL (SELECT shingle_set(p.body, s.size, s.unit)::bigint[] AS full_set) fs,
		   LATERAL (SELECT coalesce(array_agg(h ORDER BY h::numeric + CASE WHEN h < 0 THEN 18446744073709551616 ELSE 0 END),
									'{}') AS kept
					FROM unnest(full_set) h WHERE h <> ALL (f::bigint[])) k) t
GROUP BY name ORDER BY name;

-- unigram filter: the filtered sketches equal the sketches of the text with
-- the frequent words removed (all words when every one is frequent)
CREATE TABLE frequent_words AS
SELECT w FROM (SELECT DISTINCT q.id, w FROM pages q, unnest(tokens(q.body)) w) d
GROUP BY w HAVING count(*) > 20;
SELECT string_agg(w, ' ' ORDER BY w) AS frequent_words FROM frequent_words;
CREATE TABLE stripped AS
SELECT p.id, p.body,
       coalesce(nullif((SELECT string_agg(w, ' ' ORDER BY pos)
						FROM unnest(tokens(p.body)) WITH ORDINALITY AS t(w, pos)
						WHERE w NOT IN (SELECT w FROM frequent_words)), ''), p.body) AS rest
FROM pages p;
SELECT count(*) AS pages,
       count(*) FILTER (WHERE minhash_filtered(f, body, 64) = minhash(rest, 64, 'oph', 0, 1)) AS oph_equal,
       count(*) FILTER (WHERE minhash_filtered(f, body, 16, 'kperm', 7) = minhash(rest, 16, 'kperm', 7, 1)) AS kperm_equal,
       count(*) FILTER (WHERE shingle_set_filtered(f, body) = shingle_set(rest, 1)) AS set_equal,
       count(*) FILTER (WHERE simhash_filtered(f, body) = simhash(rest, 1, 'word', 'tf')) AS simhash_tf_equal,
       count(*) FILTER (WHERE simhash_filtered(f, body, 'set') = simhash(rest, 1, 'word', 'set')) AS simhash_set_equal,
       count(*) FILTER (WHERE rest = body) AS fell_back
FROM stripped, filters WHERE name = 'unigram';

-- an empty filter changes nothing: the same sketches as without one
SELECT count(*) AS pages,
       count(*) FILTER (WHERE minhash_filtered(f, body) = minhash(body)
						AND minhash_filtered(f, body, 32, 'kperm', 3) = minhash(body, 32, 'kperm', 3)
						AND shingle_set_filtered(f, body) = shingle_set(body)
						AND simhash_filtered(f, body) = simhash(body, 3)
						AND simhash_filtered(f, body, 'set') = simhash(body, 3, 'word', 'set')) AS unchanged
FROM pages, (SELECT shingle_filter_agg(body, 1000, 0) AS f FROM pages) e;

-- the boilerplate goes: unfiltered, pages that share only boilerplate look
-- alike; filtered, they do not, and near-copies still do
SELECT round(jaccard(shingle_set(a.body), shingle_set(b.body))::numeric, 3) AS unfiltered,
       round(jaccard(shingle_set_filtered(f, a.body), shingle_set_filtered(f, b.body))::numeric, 3) AS filtered,
       round(jaccard(shingle_set_filtered(f, a.body), shingle_set_filtered(f, a.body || ' one more'))::numeric, 3) AS near_copy
FROM pages a, pages b, filters WHERE a.id = 10 AND b.id = 20 AND name = 'default';

-- stability: known answers of the filtered constructors with a filter given
-- as a literal, and of the unfiltered ones (stored data: never changes)
SELECT minhash_filtered((SELECT f FROM filters WHERE name = 'default'),
               'welcome to the example site home page w5a w35b w5c w5d', 8);
SELECT minhash('welcome to the example site home page w5a w35b w5c w5d', 8);
SELECT 'filter size=1 unit=word min_docs=1 share=0 ndocs=2 cutoff=1 error=0 n=1: '
       || lpad(to_hex((shingles('rose', 1))[1]), 16, '0') AS rose_filter \gset
SELECT minhash_filtered(:'rose_filter'::shingle_filter, 'a rose is a rose is a rose', 4, 'kperm'),
       minhash('a is a is a', 4, 'kperm', 0, 1) AS without_rose,
       shingle_set_filtered(:'rose_filter'::shingle_filter, 'a rose is a rose is a rose'),
       simhash_filtered(:'rose_filter'::shingle_filter, 'a rose is a rose is a rose'),
       simhash('a is a is a', 1);
SELECT minhash_filtered(filter => :'rose_filter', doc => 'a rose is a rose is a rose', k => 4, method => 'kperm')
       = minhash_filtered(:'rose_filter'::shingle_filter, 'a rose is a rose is a rose', 4, 'kperm') AS named_argument;
-- every shingle filtered: the document keeps all of them
SELECT minhash_filtered(:'rose_filter'::shingle_filter, 'rose rose', 4, 'kperm') = minhash('rose rose', 4, 'kperm', 0, 1) AS fallback,
       shingle_set_filtered(:'rose_filter'::shingle_filter, '') AS empty_document;

-- a filter stored out of line is read once per query and gives the same
-- sketches as the same value in memory
SELECT pg_column_size(f) > 2000 AS big, shingle_filter_size(f) FROM filters WHERE name = 'char';
SELECT count(*) FILTER (WHERE minhash_filtered((SELECT f FROM filters WHERE name = 'char'), p.body, 16)
						= minhash_filtered((SELECT f::text FROM filters WHERE name = 'char')::shingle_filter, p.body, 16))
       AS same_stored_and_literal
FROM pages p;

-- text and binary forms round-trip
SELECT name, f::text::shingle_filter::text = f::text AS text_round_trip,
       shingle_filter_send(f) = shingle_filter_send(f::text::shingle_filter) AS send_equal
FROM filters ORDER BY name;
\getenv abs_builddir PG_ABS_BUILDDIR
\set binfile :abs_builddir '/results/shingle_filter.bin'
COPY (SELECT f FROM filters ORDER BY name) TO :'binfile' (FORMAT binary);
CREATE TEMP TABLE filters_copy (f shingle_filter);
COPY filters_copy FROM :'binfile' (FORMAT binary);
SELECT count(*) AS copied, count(*) FILTER (WHERE c.f::text = o.f::text) AS equal
FROM filters_copy c JOIN filters o ON c.f::text = o.f::text;

-- the unit 'word_': connector punctuation stays in words ('foo_bar' is one
-- token); 'word' and 'char' are unchanged
SELECT shingle_set('foo_bar baz', 1, 'word_'), shingle_set('foo_bar baz', 1, 'word');
SELECT cardinality(shingle_set('SSL_CTX_new SSL_CTX_free', 1, 'word_')) AS joined,
       cardinality(shingle_set('SSL_CTX_new SSL_CTX_free', 1, 'word')) AS split;
SELECT minhash('ssl_ctx_new creates a new ssl_ctx object', 4, 'kperm', 0, 3, 'word_');
SELECT shingle_set(E'foo\uff3fbar', 1, 'word_') = shingle_set('foo_bar', 1, 'word_') AS nfkc_connector,
       shingle_set(E'foo\u203fbar', 1, 'word_') AS undertie;
SELECT shingle_filter_agg(body, 20, 0, 1, 'word_')::text
       = replace(shingle_filter_agg(body, 20, 0, 1, 'word')::text, 'unit=word ', 'unit=word_ ')
       AS same_without_underscores
FROM pages;
SELECT shingle_filter_agg(d, 1, 0, 1, 'word_') FROM unnest(ARRAY['foo_bar x', 'foo_bar y']) AS d;

-- errors
SELECT 'filter size=3 unit=word min_docs=1 share=0 ndocs=0 cutoff=2 error=0 n=0:'::shingle_filter;
SELECT 'filter size=3 unit=word min_docs=1 share=0 ndocs=2 cutoff=1 error=0 n=2: 2 1'::shingle_filter;
SELECT 'filter size=3 unit=word min_docs=1 share=0 ndocs=2 cutoff=1 error=0 n=16000001:'::shingle_filter;
SELECT shingle_filter_agg(body, 0, 0) FROM pages;
SELECT shingle_filter_agg(body, 20, 1.5) FROM pages;
SELECT shingle_filter_agg(body, 20, 'NaN') FROM pages;
SELECT shingle_filter_agg(body, 20, 0, 0, 'word') FROM pages;
SELECT shingle_filter_agg(body, 20, 0, 3, 'words') FROM pages;
SELECT shingle_filter_agg(body, 20, NULL) FROM pages;
SELECT shingle_filter_agg(body, id, 0) FROM pages;
SELECT minhash_filtered(:'rose_filter'::shingle_filter, 'a b c', 0);
SELECT minhash_filtered(:'rose_filter'::shingle_filter, 'a b c', 16, 'perm');
SELECT minhash_filtered(:'rose_filter'::shingle_filter, 'a b c', 16, 'oph', -1);
SELECT simhash_filtered(:'rose_filter'::shingle_filter, 'a b c', 'idf');

-- work_mem: past it the counts are upper bounds (the error is recorded);
-- every truly frequent shingle is still found, or the aggregate refuses
CREATE TABLE many AS
SELECT i AS id, 'common words on every page ' || string_agg('u' || i || 'x' || j, ' ') AS body
FROM generate_series(1, 3000) i, generate_series(1, 8) j GROUP BY i;
SET work_mem = 64;
SELECT (regexp_match(f::text, 'error=(\d+)'))[1]::int > 0 AS lossy, shingle_filter_size(f) = 3 AS found,
       (SELECT count(*) FROM (SELECT h FROM many, unnest(shingle_set(body)::bigint[]) h
							  GROUP BY h HAVING count(*) > 20
							  EXCEPT SELECT unnest(f::bigint[])) missing) AS missing
FROM (SELECT shingle_filter_agg(body) AS f FROM many) t;
SELECT shingle_filter_agg(body, 1, 0) FROM many;
RESET work_mem;
SELECT (regexp_match(shingle_filter_agg(body)::text, 'error=(\d+)'))[1] AS exact FROM many;

-- the trigger with a stored filter: method=minhash builds the sketch of
-- source= through filter=<table>.<column> into the fingerprint column;
-- the original is the earliest original whose filtered estimate reaches the
-- threshold (brute force over jaccard()), and pages that share only
-- boilerplate are no longer duplicates
SET client_min_messages = warning;
CREATE TABLE page_filter (f shingle_filter);
INSERT INTO page_filter SELECT shingle_filter_agg(body) FROM pages;
CREATE TABLE fposts (id bigserial PRIMARY KEY, body text, fp minhash_sketch, duplicate_of bigint);
CREATE INDEX ON fposts USING gin (fp minhash_lsh_ops (threshold = 0.5))
	WITH (fastupdate = off) WHERE duplicate_of IS NULL;
CREATE TRIGGER dedup BEFORE INSERT OR UPDATE OF body ON fposts FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=fp', 'source=body', 'method=minhash',
										 'filter=page_filter.f', 'threshold=0.5');
CREATE TABLE uposts (LIKE fposts INCLUDING ALL);
CREATE TRIGGER dedup BEFORE INSERT OR UPDATE OF body ON uposts FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=fp', 'source=body', 'method=minhash',
										 'threshold=0.5');
SELECT settings FROM nddup_check_trigger('fposts');
INSERT INTO fposts (body) SELECT body FROM pages WHERE id <= 100 ORDER BY id;
INSERT INTO fposts (body) SELECT 'greetings' || substr(body, 8) FROM pages WHERE id IN (5, 50);
INSERT INTO uposts (body) SELECT body FROM fposts ORDER BY id;
SELECT (SELECT count(duplicate_of) FROM fposts) AS marked_filtered,
       (SELECT count(duplicate_of) FROM uposts) AS marked_unfiltered,
       (SELECT array_agg(duplicate_of ORDER BY id) FROM fposts WHERE duplicate_of IS NOT NULL) AS originals;
SELECT count(*) AS rows, count(*) FILTER (WHERE fp = minhash_filtered(f, body)) AS filtered_sketch
FROM fposts, page_filter;
SELECT count(*) AS wrong_original
FROM fposts d, page_filter
WHERE d.duplicate_of IS DISTINCT FROM (
	SELECT min(o.id) FROM fposts o
	WHERE o.id < d.id AND o.duplicate_of IS NULL
	  AND jaccard(minhash_filtered(f, o.body), minhash_filtered(f, d.body)) >= 0.5);
-- errors
CREATE TABLE t_err (id bigserial PRIMARY KEY, body text, fp minhash_sketch, h simhash64);
CREATE TABLE two_filters (f shingle_filter);
INSERT INTO two_filters SELECT f FROM page_filter UNION ALL SELECT f FROM page_filter;
CREATE TRIGGER e1 BEFORE INSERT ON t_err FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=h', 'source=body', 'filter=page_filter.f');
INSERT INTO t_err (body) VALUES ('x');
DROP TRIGGER e1 ON t_err;
CREATE TRIGGER e2 BEFORE INSERT ON t_err FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=fp', 'method=minhash', 'filter=page_filter.f');
INSERT INTO t_err (body) VALUES ('x');
DROP TRIGGER e2 ON t_err;
CREATE TRIGGER e3 BEFORE INSERT ON t_err FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('source=body', 'method=minhash', 'filter=page_filter.f');
INSERT INTO t_err (body) VALUES ('x');
DROP TRIGGER e3 ON t_err;
CREATE TRIGGER e4 BEFORE INSERT ON t_err FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=fp', 'source=body', 'method=minhash', 'filter=page_filter');
INSERT INTO t_err (body) VALUES ('x');
DROP TRIGGER e4 ON t_err;
CREATE TRIGGER e5 BEFORE INSERT ON t_err FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=fp', 'source=body', 'method=minhash', 'filter=two_filters.f');
INSERT INTO t_err (body) VALUES ('x');
DROP TRIGGER e5 ON t_err;
CREATE TRIGGER e6 BEFORE INSERT ON t_err FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=fp', 'source=body', 'method=minhash', 'filter=page_filter.body');
INSERT INTO t_err (body) VALUES ('x');
DROP TRIGGER e6 ON t_err;
CREATE TRIGGER e7 BEFORE INSERT ON t_err FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=fp', 'source=body', 'method=minhash', 'filter=page_filter.f', 'size=2');
INSERT INTO t_err (body) VALUES ('x');
DROP TRIGGER e7 ON t_err;
RESET client_min_messages;
RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA sf CASCADE;
RESET client_min_messages;
