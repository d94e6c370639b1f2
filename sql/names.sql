--
-- The naming rule (docs/reference.md, "Names"): to_<type>() computes a value
-- of <type> from a document, <type>_agg() from rows; the 0.1 names simhash(),
-- shingle_set(), minhash() and simhash_agg() compute the same values, and an
-- index or a generated column written with one name serves the other.
--
CREATE TABLE names_docs (id integer PRIMARY KEY, body text NOT NULL);
INSERT INTO names_docs
SELECT i, CASE i % 5
	WHEN 0 THEN ''
	WHEN 1 THEN 'Lorem ipsum ' || repeat(md5(i::text) || ' ', 1 + i % 7)
	WHEN 2 THEN '<p>The <b>Quick</b> brown&nbsp;fox ' || i || '!</p>'
	WHEN 3 THEN '東京abc ' || i || ' 大阪 def ' || (i * 7)
	ELSE 'one two three four five six seven ' || (i % 11) END
FROM generate_series(1, 400) i;

-- the same values, with default and explicit parameters
SELECT count(*) AS docs,
	count(*) FILTER (WHERE to_simhash64(body) = simhash(body)) AS simhash,
	count(*) FILTER (WHERE to_simhash64(body, 3, 'char', 'set') = simhash(body, 3, 'char', 'set')) AS simhash_params,
	count(*) FILTER (WHERE to_simhash64(tokens(body)) = simhash(tokens(body))) AS simhash_features,
	count(*) FILTER (WHERE to_simhash64(to_tsvector('simple', body)) = simhash(to_tsvector('simple', body))) AS simhash_tsvector,
	count(*) FILTER (WHERE to_shingleset(body) = shingle_set(body)) AS shingleset,
	count(*) FILTER (WHERE to_shingleset(body, 2, 'char') = shingle_set(body, 2, 'char')) AS shingleset_params,
	count(*) FILTER (WHERE to_minhash_sketch(body) = minhash(body)) AS minhash,
	count(*) FILTER (WHERE to_minhash_sketch(body, 64, 'kperm', 7, 2, 'char')
		= minhash(body, 64, 'kperm', 7, 2, 'char')) AS minhash_params
FROM names_docs;
SELECT to_simhash64(ARRAY['a', 'b'], ARRAY[1, 2]::real[]) = simhash(ARRAY['a', 'b'], ARRAY[1, 2]::real[]) AS weighted;
SELECT simhash64_agg(t, 1.0 + length(t)) = simhash_agg(t, 1.0 + length(t)) AS agg
FROM (SELECT unnest(tokens(string_agg(body, ' '))) t FROM names_docs) s;
-- NULL in, NULL out (STRICT like the functions they call)
SELECT to_simhash64(NULL::text) IS NULL AS s, to_shingleset(NULL) IS NULL AS ss,
	to_minhash_sketch(NULL) IS NULL AS m, to_minhash_sketch('a b c', NULL) IS NULL AS m_null_k;
-- errors are those of the functions they call
SELECT to_minhash_sketch('a b c', seed => -5);
SELECT to_shingleset('a b c', 0);

-- an index made with one name serves the other (the planner inlines to_T())
CREATE INDEX names_sets ON names_docs USING gin (to_shingleset(body) shingleset_ops);
CREATE INDEX names_sketches ON names_docs USING gin (minhash(body) minhash_lsh_ops);
SET enable_seqscan = off;
CREATE FUNCTION names_index_used(query text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	line text;
	used text := 'no index';
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
		IF line ~ 'Index Scan on' THEN
			used := substring(line from 'Index Scan on (\S+)');
		END IF;
	END LOOP;
	RETURN used;
END
$$;
SELECT names_index_used($$SELECT id FROM names_docs WHERE shingle_set(body) && shingle_set('one two three four')$$) AS old_name_query,
	names_index_used($$SELECT id FROM names_docs WHERE to_minhash_sketch(body) % to_minhash_sketch('one two three')$$) AS new_name_query;
SELECT array_agg(id ORDER BY id) = (SELECT array_agg(id ORDER BY id) FROM names_docs
		WHERE minhash(body) % minhash('one two three four five six seven 3')) AS same_rows,
	count(*) AS rows
FROM names_docs WHERE to_minhash_sketch(body) % to_minhash_sketch('one two three four five six seven 3');
RESET enable_seqscan;

-- the trigger accepts a generated column and an expression index written with to_T()
CREATE TABLE names_posts (id bigserial PRIMARY KEY, body text NOT NULL,
	fp simhash64 GENERATED ALWAYS AS (to_simhash64(body)) STORED, duplicate_of bigint);
CREATE INDEX ON names_posts USING gin (fp simhash64_gin_ops) WITH (fastupdate = off) WHERE duplicate_of IS NULL;
CREATE TRIGGER dedup BEFORE INSERT ON names_posts FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=fp', 'source=body', 'radius=3');
SELECT * FROM nddup_check_trigger('names_posts');
CREATE TABLE names_sketched (id bigserial PRIMARY KEY, body text NOT NULL, duplicate_of bigint);
CREATE INDEX ON names_sketched USING gin (to_minhash_sketch(body) minhash_lsh_ops) WHERE duplicate_of IS NULL;
CREATE TRIGGER dedup BEFORE INSERT ON names_sketched FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('source=body', 'method=minhash');
SELECT * FROM nddup_check_trigger('names_sketched');
INSERT INTO names_posts (body) SELECT body FROM names_docs WHERE id IN (1, 6, 2, 7) ORDER BY id;
INSERT INTO names_posts (body) VALUES ('<p>the quick BROWN fox 2</p>');
INSERT INTO names_sketched (body) VALUES ('one two three four five six seven 3'), ('one two three four five six seven 3!');
SELECT id, duplicate_of FROM names_posts ORDER BY id;
SELECT id, duplicate_of FROM names_sketched ORDER BY id;
DROP TABLE names_docs, names_posts, names_sketched;
DROP FUNCTION names_index_used(text);
