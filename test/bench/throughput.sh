#!/usr/bin/env bash
# Fingerprinting throughput from SQL, beside md5() over the same rows in the
# same run.  Usage:
#   test/bench/throughput.sh [DATA_DIR]     (default ../shared/data)
# DATA_DIR holds debian-descriptions-en.tsv.gz and pydocs-sections.tsv.gz.
# One backend, no parallel workers: figures are per core.

source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"
DATA=$(cd "${1:-$NDDUP_ROOT/../shared/data}" && pwd)
RUNS=${RUNS:-5}

ensure_packages
build_and_install
make_workdir
start_instance
pg_sql -c "CREATE EXTENSION nddup"
pg_sql <<SQL
CREATE TABLE debian (id integer, package text, body text);
\copy debian FROM PROGRAM 'zcat $DATA/debian-descriptions-en.tsv.gz | tail -n +2'
CREATE TABLE pydocs (id integer, source text, body text);
\copy pydocs FROM PROGRAM 'zcat $DATA/pydocs-sections.tsv.gz | tail -n +2'
VACUUM ANALYZE debian, pydocs;
SQL

pg_sql <<SQL
SET max_parallel_workers_per_gather = 0;
SET jit = off;
CREATE FUNCTION pg_temp.best_ms(q text, runs int) RETURNS float8 LANGUAGE plpgsql AS \$\$
DECLARE t0 timestamptz; best float8 := 'Infinity'; ms float8;
BEGIN
	EXECUTE q;	-- warm-up: data in shared buffers, detoasted once
	FOR i IN 1 .. runs LOOP
		t0 := clock_timestamp();
		EXECUTE q;
		ms := extract(epoch FROM clock_timestamp() - t0) * 1000;
		best := least(best, ms);
	END LOOP;
	RETURN best;
END \$\$;
\pset footer off
WITH corpora(name, tbl) AS (VALUES ('debian-descriptions-en', 'debian'), ('pydocs-sections', 'pydocs')),
sizes AS (
	SELECT name, tbl, (xpath('/row/c/text()', query_to_xml(format('SELECT count(*) AS c FROM %I', tbl), false, true, '')))[1]::text::bigint AS docs,
		(xpath('/row/b/text()', query_to_xml(format('SELECT sum(octet_length(body)) AS b FROM %I', tbl), false, true, '')))[1]::text::bigint AS bytes
	FROM corpora),
fns(fn, expr) AS (VALUES
	('md5 (baseline)', 'md5(body)'),
	('simhash (defaults)', 'simhash(body)'),
	('simhash word 1 tf', 'simhash(body, 1)'),
	('simhash char 5 tf', 'simhash(body, 5, ''char'')'),
	('simhash word 3 set', 'simhash(body, 3, ''word'', ''set'')'),
	('normalize_text', 'normalize_text(body)')),
runs AS (
	SELECT s.name, s.docs, s.bytes, f.fn,
		pg_temp.best_ms(format('SELECT count(%s) FROM %I', f.expr, s.tbl), $RUNS) AS ms
	FROM sizes s, fns f)
SELECT r.name AS corpus, r.docs, round(r.bytes / 1e6, 1) AS mb, r.fn AS function,
	round(r.ms::numeric, 1) AS best_ms,
	round((r.bytes / 1e6 / (r.ms / 1000))::numeric, 1) AS mb_per_s,
	round((b.ms / r.ms)::numeric, 2) AS speed_vs_md5
FROM runs r JOIN runs b ON b.name = r.name AND b.fn = 'md5 (baseline)'
ORDER BY r.name, r.fn <> 'md5 (baseline)', r.fn;
SQL
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), PostgreSQL $(pg_config --version | cut -d' ' -f2)"
