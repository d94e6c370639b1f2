#!/usr/bin/env bash
# Throughput of the boilerplate-aware constructors: minhash_filtered,
# shingle_set_filtered and simhash_filtered through a stored shingle_filter,
# beside minhash, shingle_set and simhash of the same documents (the same
# shingle size and unit) in the same run, as a ratio.  Target: minhash
# through the filter >= 0.8 x without (docs/reports/bench-filter.md).
#   test/bench/filter_bench.sh [DATA_DIR] [MAN_CORPUS]
# DATA_DIR (default ../shared/data) holds debian-descriptions-en.tsv.gz;
# MAN_CORPUS (default /work/cache/corpora/labelled/man.tsv.gz, skipped when
# absent) is the labelled manual-page corpus of test/bench/quality/corpora.
# One backend, no parallel workers; the plain and the filtered query run
# alternately, RUNS (5) times each after a warm-up, and the best time of
# each is kept, so that a change of the machine's load hits both alike.
# The filter is read from a table by a sub-select, as a stored one would be.
# Runs a private temporary instance as the postgres user when started as root.

source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"
DATA=$(cd "${1:-$NDDUP_ROOT/../shared/data}" && pwd)
MAN=${2:-/work/cache/corpora/labelled/man.tsv.gz}
RUNS=${RUNS:-5}

ensure_packages
build_and_install
make_workdir
start_instance
pg_sql -c "CREATE EXTENSION nddup"
pg_sql <<SQL
CREATE TABLE debian (id integer, package text, body text);
\copy debian FROM PROGRAM 'zcat $DATA/debian-descriptions-en.tsv.gz | tail -n +2'
CREATE TABLE corpora (name text, body text);
INSERT INTO corpora SELECT 'debian', body FROM debian;
SQL
if [ -r "$MAN" ]; then
	pg_sql <<SQL
CREATE TABLE man (doc_id int, cluster_id int, kind text, edits text, body text);
\copy man FROM PROGRAM 'zcat $MAN | tail -n +2'
INSERT INTO corpora SELECT 'man', body FROM man;
SQL
else
	echo "man corpus $MAN absent: skipped (debian only)"
fi

pg_sql <<SQL
SET max_parallel_workers_per_gather = 0;
SET jit = off;
SET work_mem = '256MB';
VACUUM ANALYZE corpora;
-- the filters: the documented default (more than max(20, 0.2% of N)
-- documents), and a large one (more than 2 documents) for the lookup cost
CREATE TABLE filters AS
	SELECT name, 'default' AS filter, shingle_filter_agg(body) AS f FROM corpora GROUP BY name
	UNION ALL
	SELECT name, 'min_docs=2', shingle_filter_agg(body, 2, 0) FROM corpora GROUP BY name;
-- best times of q1 and q2, run alternately
CREATE FUNCTION pg_temp.pair_ms(q1 text, q2 text, runs int) RETURNS float8[] LANGUAGE plpgsql AS \$\$
DECLARE t0 timestamptz; b1 float8 := 'Infinity'; b2 float8 := 'Infinity';
BEGIN
	EXECUTE q1; EXECUTE q2;	-- warm-up
	FOR i IN 1 .. runs LOOP
		t0 := clock_timestamp();
		EXECUTE q1;
		b1 := least(b1, extract(epoch FROM clock_timestamp() - t0) * 1000);
		t0 := clock_timestamp();
		EXECUTE q2;
		b2 := least(b2, extract(epoch FROM clock_timestamp() - t0) * 1000);
	END LOOP;
	RETURN ARRAY[b1, b2];
END \$\$;
CREATE FUNCTION pg_temp.best_ms(q text, runs int) RETURNS float8 LANGUAGE plpgsql AS \$\$
DECLARE t0 timestamptz; best float8 := 'Infinity'; ms float8;
BEGIN
	EXECUTE q;	-- warm-up
	FOR i IN 1 .. runs LOOP
		t0 := clock_timestamp();
		EXECUTE q;
		ms := extract(epoch FROM clock_timestamp() - t0) * 1000;
		best := least(best, ms);
	END LOOP;
	RETURN best;
END \$\$;
CREATE TEMP TABLE fns(fn text, plain text, filtered text, ord int);
INSERT INTO fns VALUES
	('minhash oph k=128', 'minhash(body)', 'minhash_filtered(%s, body)', 1),
	('minhash kperm k=128', 'minhash(body, 128, ''kperm'')', 'minhash_filtered(%s, body, 128, ''kperm'')', 2),
	('shingle_set', 'shingle_set(body)', 'shingle_set_filtered(%s, body)', 3),
	('simhash tf (word 3)', 'simhash(body, 3)', 'simhash_filtered(%s, body)', 4);
CREATE TEMP TABLE sizes AS
	SELECT name, count(*) AS docs, sum(octet_length(body)) / 1e6 AS mb FROM corpora GROUP BY name;
\pset footer off
\echo '== filters (work_mem 256MB: exact counts)'
SELECT name AS corpus, filter, shingle_filter_size(f) AS shingles,
       (regexp_match(f::text, 'cutoff=(\d+)'))[1] AS cutoff, pg_column_size(f) AS bytes
FROM filters ORDER BY 1, 2;
\echo '== filter build: shingle_filter_agg (default cut-off) beside count(shingle_set(body))'
SELECT s.name AS corpus, s.docs, round(s.mb, 1) AS mb,
       round(pg_temp.best_ms(format('SELECT shingle_filter_agg(body) FROM corpora WHERE name = %L', s.name), 1)::numeric) AS agg_ms,
       round(pg_temp.best_ms(format('SELECT count(shingle_set(body)) FROM corpora WHERE name = %L', s.name), 1)::numeric) AS shingle_set_ms
FROM sizes s ORDER BY 1;
-- one table per corpus, so that the scans read only its rows
CREATE TABLE c_debian AS SELECT body FROM corpora WHERE name = 'debian';
CREATE TABLE c_man AS SELECT body FROM corpora WHERE name = 'man';
VACUUM ANALYZE c_debian, c_man;
CREATE TEMP TABLE pairs AS
	SELECT s.name, fl.filter, fn.fn, fn.ord, s.mb,
		pg_temp.pair_ms(format('SELECT count(%s) FROM c_%s', fn.plain, s.name),
						format('SELECT count(%s) FROM c_%s',
							   format(fn.filtered, format('(SELECT f FROM filters WHERE name = %L AND filter = %L)',
														  s.name, fl.filter)), s.name), $RUNS) AS ms
	FROM sizes s JOIN filters fl ON fl.name = s.name, fns fn
	WHERE s.docs > 0;
CREATE TEMP TABLE runs AS
	SELECT name, filter, fn, ord, mb, ms[1] AS plain_ms, ms[2] AS filtered_ms FROM pairs;
\echo '== throughput (MB/s, one backend), filtered / plain in the same run; target >= 0.8 for minhash with the default filter'
SELECT name AS corpus, filter, fn AS function,
       round((mb * 1000 / plain_ms::numeric), 2) AS plain_mb_s, round((mb * 1000 / filtered_ms::numeric), 2) AS filtered_mb_s,
       round((plain_ms / filtered_ms)::numeric, 3) AS ratio
FROM runs ORDER BY name, filter, ord;
\echo '== target: minhash oph k=128 through the default filter'
SELECT name AS corpus, round((plain_ms / filtered_ms)::numeric, 3) AS ratio,
       CASE WHEN plain_ms / filtered_ms >= 0.8 THEN 'met' ELSE 'MISSED' END AS target_0_8
FROM runs WHERE filter = 'default' AND ord = 1 ORDER BY 1;
SQL
