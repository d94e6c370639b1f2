--
-- The planner uses the sketch indexes on a small table (3,000 rows, the
-- size of a shard of a 100,000-row Citus table over 32 shards): the
-- resemblance operators are costed as what they are, several times an
-- integer comparison, so the sequential scan that calls them on every row
-- is not taken for cheaper than the index.  Answers equal the scan's.
--
CREATE TABLE sp3_docs AS
SELECT g AS id, string_agg(substr(md5(g || '/' || j), 1, 6), ' ' ORDER BY j) AS body
FROM generate_series(1, 3000) g, generate_series(1, 40) j GROUP BY g;
INSERT INTO sp3_docs SELECT 10000 + id, replace(body, substr(body, 1, 6), 'edited') FROM sp3_docs WHERE id <= 30;
CREATE TABLE sp3m AS SELECT id, minhash(body) AS s FROM sp3_docs;
CREATE TABLE sp3s AS SELECT id, shingle_set(body) AS ss FROM sp3_docs;
CREATE INDEX sp3m_s ON sp3m USING gin (s minhash_lsh_ops (threshold = 0.8));
CREATE INDEX sp3s_ss ON sp3s USING gin (ss shingleset_ops);
VACUUM ANALYZE sp3m;
VACUUM ANALYZE sp3s;
SELECT s AS q FROM sp3m WHERE id = 7 \gset
SELECT ss AS qs FROM sp3s WHERE id = 7 \gset

-- the plans (their scan nodes: the query values are long)
CREATE FUNCTION sp3_plan(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
	line text;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
		IF line ~ 'Scan' THEN
			RETURN NEXT line;
		END IF;
	END LOOP;
END
$$;
SELECT sp3_plan(format('SELECT id FROM sp3m WHERE s <@ similar_to(%L::minhash_sketch, 0.8)', :'q'));
SELECT sp3_plan(format('SELECT id FROM sp3m WHERE similar(s, %L::minhash_sketch, 0.8)', :'q'));
SET nddup.similarity_threshold = 0.8;
SELECT sp3_plan(format('SELECT id FROM sp3m WHERE s %% %L::minhash_sketch', :'q'));
SELECT sp3_plan(format('SELECT id FROM sp3s WHERE ss <@ similar_to(%L::shingleset, 0.8)', :'qs'));
SELECT sp3_plan(format('SELECT id FROM sp3s WHERE ss && %L::shingleset', :'qs'));

-- the answers, with the index and with a sequential scan
CREATE VIEW sp3_answers AS
SELECT 'minhash <@' AS q, array_agg(id ORDER BY id) AS ids FROM sp3m WHERE s <@ similar_to(:'q'::minhash_sketch, 0.8)
UNION ALL SELECT 'minhash %', array_agg(id ORDER BY id) FROM sp3m WHERE s % :'q'::minhash_sketch
UNION ALL SELECT 'shingleset <@', array_agg(id ORDER BY id) FROM sp3s WHERE ss <@ similar_to(:'qs'::shingleset, 0.8)
UNION ALL SELECT 'shingleset &&', array_agg(id ORDER BY id) FROM sp3s WHERE ss && :'qs'::shingleset;
CREATE TABLE sp3_index AS SELECT * FROM sp3_answers;
SET enable_bitmapscan = off;
SET enable_indexscan = off;
SELECT a.q, a.ids, a.ids = s.ids AS same_as_scan
FROM sp3_index a JOIN sp3_answers s USING (q) ORDER BY a.q;
RESET enable_bitmapscan;
RESET enable_indexscan;
RESET nddup.similarity_threshold;
