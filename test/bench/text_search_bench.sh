#!/usr/bin/env bash
# "Near-duplicates of this document" on labelled real text, nddup's indexes
# beside pg_trgm in the same run.
#   test/bench/text_search_bench.sh [DATA_DIR]       (default ../shared/data)
# Environment: QUERIES (queries per nddup method, default 300), TRGM_QUERIES
# (queries for pg_trgm, which is slow, default 30), SEQ_QUERIES (sequential
# scans, default 30), RADIUS (simhash radius, default 12).
#
# Loads DATA_DIR/neardup-dev.tsv.gz (doc_id, cluster_id, kind, edits, text)
# into a private temporary instance, computes simhash(body) and minhash(body)
# with the defaults, and builds three indexes: simhash64_gin_ops on the
# fingerprint, minhash_lsh_ops (default design threshold) on the sketch and
# pg_trgm's gin_trgm_ops on the text.  Queries are the documents of kind
# original or near with doc_id % 16 = 1, each asking for the other documents
# that are near-duplicates of it:
#   simhash     within(fp, q.fp, RADIUS)             (GIN radius index)
#   minhash     mh % q.mh  (nddup.similarity_threshold, default 0.3; LSH index)
#   minhash seq the same with index scans disabled
#   trgm 0.5    body % q.body, pg_trgm.similarity_threshold = 0.5 (GIN trigram)
#   trgm 0.3    the same at 0.3
# Latency is measured inside the server (clock_timestamp() around each
# EXECUTE, planning included; one backend, no parallel workers, JIT off).
# Quality per method over its queries: a found document is a true
# near-duplicate when it is in the query's cluster and of kind original or
# near (documents of kind excerpt / contains are a containment task and are
# not counted either way; templated documents are hard negatives); recall is
# over the query's labelled near-duplicates.

source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"
DATA=$(cd "${1:-$NDDUP_ROOT/../shared/data}" && pwd)
QUERIES=${QUERIES:-300}
TRGM_QUERIES=${TRGM_QUERIES:-30}
SEQ_QUERIES=${SEQ_QUERIES:-30}
RADIUS=${RADIUS:-12}

ensure_packages
build_and_install
make_workdir
start_instance
echo "== $(date -u +'%F %H:%M UTC'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(psql --version | head -1)"
pg_sql -c "ALTER SYSTEM SET max_parallel_workers_per_gather = 0" -c "ALTER SYSTEM SET jit = off" \
	-c "ALTER SYSTEM SET maintenance_work_mem = '512MB'" -c "SELECT pg_reload_conf()" >/dev/null
pg_sql -q <<SQL
CREATE EXTENSION nddup;
CREATE EXTENSION pg_trgm;
CREATE TABLE docs (doc_id int PRIMARY KEY, cluster_id int, kind text, edits text, body text);
\copy docs FROM PROGRAM 'zcat $DATA/neardup-dev.tsv.gz | tail -n +2'
ALTER TABLE docs ADD COLUMN fp simhash64, ADD COLUMN mh minhash_sketch;
\timing on
\echo '-- fingerprints and sketches of every document'
UPDATE docs SET fp = simhash(body), mh = minhash(body);
\echo '-- simhash64_gin_ops build'
CREATE INDEX docs_fp ON docs USING gin (fp simhash64_gin_ops) WITH (fastupdate = off);
\echo '-- minhash_lsh_ops build'
CREATE INDEX docs_mh ON docs USING gin (mh minhash_lsh_ops) WITH (fastupdate = off);
\echo '-- gin_trgm_ops build'
CREATE INDEX docs_trgm ON docs USING gin (body gin_trgm_ops) WITH (fastupdate = off);
\timing off
VACUUM ANALYZE docs;

CREATE TABLE q AS
	SELECT row_number() OVER (ORDER BY doc_id) AS n, doc_id, cluster_id, fp, mh, body
	FROM docs WHERE kind IN ('original', 'near') AND doc_id % 16 = 1;
CREATE TABLE found (method text, q int, doc_id int);
CREATE TABLE lat (method text, q int, ms float8);

-- run the first nq queries of q with one query text (parameters: fp, mh, body, doc_id)
CREATE FUNCTION run(method text, sql text, nq int) RETURNS void LANGUAGE plpgsql AS \$\$
DECLARE
	r record;
	t0 timestamptz;
	ids int[];
BEGIN
	FOR r IN SELECT * FROM q ORDER BY n LIMIT nq LOOP
		t0 := clock_timestamp();
		EXECUTE sql INTO ids USING r.fp, r.mh, r.body, r.doc_id;
		INSERT INTO lat VALUES (method, r.doc_id, extract(epoch FROM clock_timestamp() - t0) * 1000);
		INSERT INTO found SELECT method, r.doc_id, i FROM unnest(ids) i WHERE i <> r.doc_id;
	END LOOP;
END
\$\$;
SELECT count(*) AS queries FROM q;
SQL

SIM="SELECT array_agg(doc_id) FROM docs WHERE within(fp, \$1, $RADIUS)"
MH="SELECT array_agg(doc_id) FROM docs WHERE mh % \$2"
TRGM="SELECT array_agg(doc_id) FROM docs WHERE body % \$3"
pg_sql -q <<SQL
SET enable_seqscan = off;   -- 5,018 rows: the planner may prefer a scan; measure the index
SELECT run('simhash k=$RADIUS, GIN', \$q\$$SIM\$q\$, $QUERIES);
SELECT run('minhash t=0.3, LSH GIN', \$q\$$MH\$q\$, $QUERIES);
RESET enable_seqscan;
SET enable_indexscan = off; SET enable_bitmapscan = off;
SELECT run('simhash k=$RADIUS, seq scan', \$q\$$SIM\$q\$, $SEQ_QUERIES);
SELECT run('minhash t=0.3, seq scan', \$q\$$MH\$q\$, $SEQ_QUERIES);
RESET enable_indexscan; RESET enable_bitmapscan;
SET pg_trgm.similarity_threshold = 0.5;
SELECT run('pg_trgm % 0.5, GIN', \$q\$$TRGM\$q\$, $TRGM_QUERIES);
SET pg_trgm.similarity_threshold = 0.3;
SELECT run('pg_trgm % 0.3, GIN', \$q\$$TRGM\$q\$, $TRGM_QUERIES);
SQL

echo "== EXPLAIN of one query per method (plans used above)"
QFP=$(pg_sql -At -c "SELECT fp FROM q WHERE n = 1")
QID=$(pg_sql -At -c "SELECT doc_id FROM q WHERE n = 1")
pg_sql -At -c "SET enable_seqscan = off" -c "EXPLAIN (COSTS off) SELECT doc_id FROM docs WHERE within(fp, '$QFP', $RADIUS)" | sed 's/^/    /'
pg_sql -At -c "EXPLAIN (COSTS off) SELECT d.doc_id FROM docs d, docs q WHERE q.doc_id = $QID AND d.mh % q.mh" | sed 's/^/    /'
pg_sql -At -c "EXPLAIN (COSTS off) SELECT d.doc_id FROM docs d, docs q WHERE q.doc_id = $QID AND d.body % q.body" | sed 's/^/    /'

echo "== results"
pg_sql <<'SQL'
\pset footer off
WITH truth AS (      -- labelled near-duplicates of each query
	SELECT q.doc_id AS q, d.doc_id
	FROM q JOIN docs d ON d.cluster_id = q.cluster_id AND d.doc_id <> q.doc_id
	WHERE d.kind IN ('original', 'near')),
per_method AS (
	SELECT method, count(*) AS nq, percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS p50,
		percentile_cont(0.99) WITHIN GROUP (ORDER BY ms) AS p99
	FROM lat GROUP BY method),
scored AS (
	SELECT m.method,
		(SELECT count(*) FROM found f JOIN docs d USING (doc_id) JOIN q ON q.doc_id = f.q
		 WHERE f.method = m.method AND d.kind IN ('original', 'near')
		   AND d.cluster_id = q.cluster_id) AS tp,
		(SELECT count(*) FROM found f JOIN docs d USING (doc_id) JOIN q ON q.doc_id = f.q
		 WHERE f.method = m.method AND d.kind NOT IN ('excerpt', 'contains')
		   AND NOT (d.kind IN ('original', 'near') AND d.cluster_id = q.cluster_id)) AS fp,
		(SELECT count(*) FROM truth t WHERE t.q IN
			(SELECT doc_id FROM q ORDER BY n LIMIT m.nq)) AS pos
	FROM per_method m)
SELECT m.method AS "method", m.nq AS "queries", round(m.p50::numeric, 3) AS "p50 ms",
	round(m.p99::numeric, 3) AS "p99 ms",
	round(((SELECT p50 FROM per_method WHERE method LIKE 'pg_trgm % 0.5%') / m.p50)::numeric, 1)
		AS "speed-up vs pg_trgm 0.5 (p50)",
	round(s.tp::numeric / nullif(s.tp + s.fp, 0), 3) AS "precision",
	round(s.tp::numeric / nullif(s.pos, 0), 3) AS "recall"
FROM per_method m JOIN scored s USING (method)
ORDER BY m.p50;
-- index and sequential scan must give the same answers on the queries both ran
WITH answers AS (
	SELECT l.method, l.q,
		coalesce((SELECT array_agg(f.doc_id ORDER BY f.doc_id) FROM found f
		          WHERE f.method = l.method AND f.q = l.q), '{}') AS ids
	FROM lat l)
SELECT i.method AS "index method", count(*) AS "queries compared",
	count(*) FILTER (WHERE i.ids = s.ids) AS "same answer as its seq scan"
FROM answers i JOIN answers s
	ON s.q = i.q AND s.method = split_part(i.method, ',', 1) || ', seq scan'
WHERE i.method NOT LIKE '%seq scan'
GROUP BY 1 ORDER BY 1;
SELECT pg_size_pretty(pg_relation_size('docs_fp')) AS simhash_gin,
	pg_size_pretty(pg_relation_size('docs_mh')) AS minhash_lsh,
	pg_size_pretty(pg_relation_size('docs_trgm')) AS trgm_gin,
	pg_size_pretty(pg_total_relation_size('docs')) AS table_total;
SQL
stop_instance
