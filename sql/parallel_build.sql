--
-- GIN indexes built by parallel workers.  PostgreSQL 18 builds a GIN index
-- with parallel workers (GIN's amcanbuildparallel), each worker calling the
-- operator class's extractValue and the leader merging their sorted keys;
-- 15 to 17 build the same indexes serially.  Either way every GIN operator
-- class of the extension must answer exactly as a sequential scan: each
-- index is built with two workers requested (on 18.3 the server's DEBUG1
-- line reads "building index ... with request for 2 parallel workers"),
-- then queried from 100 rows of the table, and the answers are compared
-- with those of a sequential scan.
--
SET client_min_messages = warning;
SET jit = off;

-- 6,000 deterministic documents in 400 groups of 15 near-duplicates: the
-- same 20-32 words, a third of them with one more word of their own
CREATE TABLE pb (id integer PRIMARY KEY, body text, fp simhash64, mh minhash_sketch, ss shingleset)
	WITH (parallel_workers = 2);
INSERT INTO pb (id, body)
SELECT i, (SELECT string_agg(substr(md5((i % 400) || ':' || w), 1, 5 + w % 3), ' ')
		   FROM generate_series(1, 20 + i % 13) w)
	|| CASE WHEN i % 3 = 0 THEN ' ' || substr(md5(i::text), 1, 8) ELSE '' END
FROM generate_series(1, 6000) i;
UPDATE pb SET fp = simhash(body), mh = minhash(body), ss = shingle_set(body);
ANALYZE pb;

-- shared functions: pg_temp.compare_scans(query, index)
\getenv abs_srcdir PG_ABS_SRCDIR
\set helpers :abs_srcdir '/test/include/helpers.sql'
\set ECHO none
\i :helpers
\set ECHO all

-- build an index (definition def) with two workers requested, and compare
-- the answers of query through it with those of a sequential scan
CREATE FUNCTION pg_temp.build_and_compare(def text, query text,
	OUT pairs bigint, OUT index_only bigint, OUT seq_only bigint, OUT used_index boolean)
LANGUAGE plpgsql AS $$
BEGIN
	PERFORM set_config('max_parallel_maintenance_workers', '2', true);
	PERFORM set_config('maintenance_work_mem', '256MB', true);
	EXECUTE 'CREATE INDEX pb_idx ON pb USING ' || def || ' WITH (fastupdate = off)';
	SELECT * INTO pairs, index_only, seq_only, used_index FROM pg_temp.compare_scans(query, 'pb_idx');
	DROP INDEX pb_idx;
END
$$;

SELECT t.def, c.*
FROM (VALUES
	('gin (fp simhash64_gin_ops)',
	 'SELECT q.id AS qid, d.id FROM pb q JOIN pb d ON d.fp <@ ball(q.fp, 3) WHERE q.id % 60 = 0'),
	('gin (fp simhash64_gin_ops)',
	 'SELECT q.id AS qid, d.id FROM pb q JOIN pb d ON d.fp <@ ball(q.fp, 12) WHERE q.id % 60 = 0'),
	('gin (fp simhash64_gin_ops(blocks = 6, layout = block))',
	 'SELECT q.id AS qid, d.id FROM pb q JOIN pb d ON d.fp <@ ball(q.fp, 8) WHERE q.id % 60 = 0'),
	('gin (mh minhash_lsh_ops(threshold = 0.5))',
	 'SELECT q.id AS qid, d.id FROM pb q JOIN pb d ON d.mh <@ similar_to(q.mh, 0.6) WHERE q.id % 60 = 0'),
	('gin (mh minhash_lsh_ops(threshold = 0.5))',
	 'SELECT q.id AS qid, d.id FROM pb q JOIN pb d ON d.mh % q.mh WHERE q.id % 60 = 0'),
	('gin (ss shingleset_ops)',
	 'SELECT q.id AS qid, d.id FROM pb q JOIN pb d ON d.ss <@ similar_to(q.ss, 0.5) WHERE q.id % 60 = 0'),
	('gin (ss shingleset_ops)',
	 'SELECT q.id AS qid, d.id FROM pb q JOIN pb d ON d.ss <@ containing(q.ss, 0.8) WHERE q.id % 60 = 0'),
	('gin (ss shingleset_ops)',
	 'SELECT q.id AS qid, d.id FROM pb q JOIN pb d ON d.ss && q.ss WHERE q.id % 60 = 0')
) AS t(def, query), LATERAL pg_temp.build_and_compare(t.def, t.query) c;

DROP TABLE pb;
