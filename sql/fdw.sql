--
-- postgres_fdw (docs/scale-out.md#postgres_fdw): with OPTIONS (extensions
-- 'nddup') on the server, within(), <@ ball() and the sketch operators are
-- sent to the remote server in the remote SQL (where its indexes serve
-- them); without it they are evaluated locally on every row fetched.  The
-- answers are those of the local table either way.  The remote server is
-- this one, reached through its socket (a loopback server).
--
CREATE EXTENSION postgres_fdw;
DO $$
BEGIN
	EXECUTE format('CREATE SERVER nddup_loop FOREIGN DATA WRAPPER postgres_fdw
					OPTIONS (host %L, port %L, dbname %L, extensions %L)',
				   split_part(current_setting('unix_socket_directories'), ',', 1),
				   current_setting('port'), current_database(), 'nddup');
	EXECUTE format('CREATE SERVER nddup_loop_plain FOREIGN DATA WRAPPER postgres_fdw
					OPTIONS (host %L, port %L, dbname %L)',
				   split_part(current_setting('unix_socket_directories'), ',', 1),
				   current_setting('port'), current_database());
END
$$;
CREATE USER MAPPING FOR CURRENT_USER SERVER nddup_loop;
CREATE USER MAPPING FOR CURRENT_USER SERVER nddup_loop_plain;

CREATE TABLE fdw_docs (id bigint PRIMARY KEY, body text, fp simhash64, s minhash_sketch);
INSERT INTO fdw_docs
SELECT g, b, simhash(b), minhash(b)
FROM generate_series(1, 2000) g,
	LATERAL (SELECT string_agg(substr(md5((g % 500) || '/' || j), 1, 6), ' ' ORDER BY j) ||
					CASE WHEN g > 500 THEN ' edit' || g ELSE '' END AS b
			 FROM generate_series(1, 30) j) t;
CREATE INDEX ON fdw_docs USING gin (fp simhash64_gin_ops);
CREATE INDEX ON fdw_docs USING gin (s minhash_lsh_ops (threshold = 0.7));
ANALYZE fdw_docs;
CREATE FOREIGN TABLE fdw_remote (id bigint, body text, fp simhash64, s minhash_sketch)
	SERVER nddup_loop OPTIONS (table_name 'fdw_docs');
CREATE FOREIGN TABLE fdw_plain (id bigint, body text, fp simhash64, s minhash_sketch)
	SERVER nddup_loop_plain OPTIONS (table_name 'fdw_docs');
SELECT fp AS q, s AS qs FROM fdw_docs WHERE id = 7 \gset

-- the remote SQL
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM fdw_remote WHERE within(fp, :'q', 6);
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM fdw_remote WHERE fp <@ ball(:'q', 6);
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM fdw_plain WHERE within(fp, :'q', 6);
CREATE FUNCTION fdw_remote_sql(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	line text;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (VERBOSE, COSTS OFF) ' || q LOOP
		IF line ~ 'Remote SQL' THEN
			RETURN regexp_replace(line, '''[^'']*''::public\.minhash_query', '<query>', 'g');
		END IF;
	END LOOP;
	RETURN NULL;
END
$$;
SELECT fdw_remote_sql(format('SELECT id FROM fdw_remote WHERE s <@ similar_to(%L::minhash_sketch, 0.7)', :'qs'));
SELECT fdw_remote_sql(format('SELECT id FROM fdw_plain WHERE s <@ similar_to(%L::minhash_sketch, 0.7)', :'qs'));

-- the answers equal the local table's
SELECT r, (SELECT array_agg(id ORDER BY id) FROM fdw_remote WHERE within(fp, :'q', r)) =
		  (SELECT array_agg(id ORDER BY id) FROM fdw_docs WHERE within(fp, :'q', r)) AS within_same,
		  (SELECT array_agg(id ORDER BY id) FROM fdw_plain WHERE fp <@ ball(:'q', r)) =
		  (SELECT array_agg(id ORDER BY id) FROM fdw_docs WHERE within(fp, :'q', r)) AS plain_same,
		  (SELECT count(*) FROM fdw_docs WHERE within(fp, :'q', r)) AS rows
FROM unnest(ARRAY[0, 3, 6, 12]) r;
SELECT (SELECT array_agg(id ORDER BY id) FROM fdw_remote WHERE s <@ similar_to(:'qs'::minhash_sketch, 0.7)) =
	   (SELECT array_agg(id ORDER BY id) FROM fdw_docs WHERE s <@ similar_to(:'qs'::minhash_sketch, 0.7))
	AS sketch_same,
	(SELECT count(*) FROM fdw_docs WHERE s <@ similar_to(:'qs'::minhash_sketch, 0.7)) AS rows;

-- a partitioned table with a foreign partition: the partition's scan is sent
CREATE TABLE fdw_parted (id bigint, body text, fp simhash64, s minhash_sketch) PARTITION BY RANGE (id);
CREATE TABLE fdw_parted_local PARTITION OF fdw_parted FOR VALUES FROM (1) TO (1001);
INSERT INTO fdw_parted_local SELECT * FROM fdw_docs WHERE id <= 1000;
CREATE TABLE fdw_docs_high AS SELECT * FROM fdw_docs WHERE id > 1000;
CREATE FOREIGN TABLE fdw_parted_remote PARTITION OF fdw_parted FOR VALUES FROM (1001) TO (3001)
	SERVER nddup_loop OPTIONS (table_name 'fdw_docs_high');
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM fdw_parted WHERE within(fp, :'q', 6);
SELECT (SELECT array_agg(id ORDER BY id) FROM fdw_parted WHERE within(fp, :'q', 6)) =
	   (SELECT array_agg(id ORDER BY id) FROM fdw_docs WHERE within(fp, :'q', 6)) AS parted_same;
