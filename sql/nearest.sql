--
-- hamming_nearest: exact nearest-n by expanding radius over the radius index
--
CREATE TABLE near_docs (id integer PRIMARY KEY, fp simhash64);
-- 3,000 uniform fingerprints, 1,000 variants 1-6 bits away from them, repeats and NULLs
INSERT INTO near_docs SELECT i, ('x' || md5(i::text))::bit(64)::simhash64 FROM generate_series(1, 3000) i;
INSERT INTO near_docs
SELECT 3000 + i, (src.fp::bigint # (((1::bigint << (i % 61)) | (1::bigint << ((i * 7) % 59))
	| CASE WHEN i % 3 = 0 THEN 1::bigint << ((i * 13) % 57) ELSE 0 END)))::simhash64
FROM generate_series(1, 1000) i JOIN near_docs src ON src.id = i * 3;
INSERT INTO near_docs SELECT 4000 + i, '0123456789abcdef' FROM generate_series(1, 30) i;
INSERT INTO near_docs VALUES (5000, NULL), (5001, '0000000000000000');
CREATE INDEX near_docs_fp ON near_docs USING gin (fp simhash64_gin_ops) WITH (fastupdate = off);
ANALYZE near_docs;

-- equal to a sequential scan ordered by (distance, id), for 80 queries and n = 1, 10, 50
SELECT n, count(*) AS queries,
	count(*) FILTER (WHERE idx = truth) AS exact
FROM (VALUES (1), (10), (50)) ns(n),
	LATERAL (SELECT q.fp AS query FROM near_docs q WHERE q.id % 50 = 0 AND q.fp IS NOT NULL) qs,
	LATERAL (SELECT array_agg(ARRAY[h.id, h.distance] ORDER BY h.distance, h.id) AS idx
		FROM hamming_nearest('near_docs', 'id', 'fp', qs.query, ns.n) h) a,
	LATERAL (SELECT array_agg(ARRAY[t.id::bigint, t.d] ORDER BY t.d, t.id) AS truth
		FROM (SELECT d.id, d.fp <-> qs.query AS d FROM near_docs d WHERE d.fp IS NOT NULL
			ORDER BY 2, 1 LIMIT ns.n) t) b
GROUP BY n ORDER BY n;

-- far queries (fresh random values) and the repeated value
SELECT count(*) AS far_queries_exact FROM generate_series(1, 20) i,
	LATERAL (SELECT ('x' || md5('far' || i))::bit(64)::simhash64 AS query) qs
WHERE (SELECT array_agg(h.id ORDER BY h.distance, h.id) FROM hamming_nearest('near_docs', 'id', 'fp', qs.query, 5) h)
	= (SELECT array_agg(t.id::bigint) FROM (SELECT id FROM near_docs WHERE fp IS NOT NULL ORDER BY fp <-> qs.query, id LIMIT 5) t);
SELECT * FROM hamming_nearest('near_docs', 'id', 'fp', '0123456789abcdef', 3);
-- more neighbours than rows: every non-NULL row
SELECT count(*) FROM hamming_nearest('near_docs', 'id', 'fp', '0000000000000000', 100000);
-- errors
SELECT * FROM hamming_nearest('near_docs', 'id', 'fp', '0000000000000000', 0);
SELECT * FROM hamming_nearest('near_docs', 'id', 'nope', '0000000000000000', 1);
SELECT * FROM hamming_nearest('no_such_table', 'id', 'fp', '0000000000000000', 1);
-- the table and columns are checked before any query runs: 42804 names the
-- column, its type and the type expected (domains over them are accepted)
CREATE TABLE near_text (id bigint, body text, fp simhash64, num numeric);
SELECT * FROM hamming_nearest('near_text', 'id', 'body', '0000000000000000', 3);
SELECT * FROM hamming_nearest('near_text', 'num', 'fp', '0000000000000000', 3);
SELECT * FROM hamming_nearest('near_docs_fp', 'id', 'fp', '0000000000000000', 3);
CREATE DOMAIN near_fp AS simhash64;
CREATE DOMAIN near_id AS smallint;
CREATE TABLE near_domains (id near_id, fp near_fp);
INSERT INTO near_domains VALUES (1, '0000000000000003'), (2, '000000000000000f'), (3, NULL);
SELECT * FROM hamming_nearest('near_domains', 'id', 'fp', '0000000000000000', 5);
DROP TABLE near_text, near_domains;
DROP DOMAIN near_fp, near_id;
-- a hostile search_path does not change what it calls
CREATE SCHEMA hostile;
CREATE FUNCTION hostile.ball(simhash64, integer) RETURNS hamming_ball
	LANGUAGE sql AS $$ SELECT ball('0000000000000000', 64) $$;
SET search_path = hostile, public;
SELECT count(*) FROM hamming_nearest('near_docs', 'id', 'fp', '0123456789abcdef', 3);
RESET search_path;
DROP SCHEMA hostile CASCADE;
DROP TABLE near_docs;
