#!/usr/bin/env bash
# Sketch throughput and size, beside simhash and md5() in the same run.
#   test/bench/sketch_bench.sh [DATA_DIR]     (default ../shared/data)
# DATA_DIR holds debian-descriptions-en.tsv.gz and pydocs-sections.tsv.gz.
# Runs a private temporary instance (port 23000-23999) as the postgres user
# when started as root.  One backend, no parallel workers: figures are per
# core.  Prints:
#   1. MB/s of every constructor on the Debian descriptions (all 64K docs);
#   2. the same on the documents of 1.5-2.5 KB, and the speed-up of densified
#      one-permutation hashing over k-permutation at k = 128 (must be >= 5);
#   3. bytes stored per document for each sketch (pg_column_size).

source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"
DATA=$(cd "${1:-$NDDUP_ROOT/../shared/data}" && pwd)
RUNS=${RUNS:-3}

# a free port in 23000-23999 (lib.sh's default picks any free port)
free_port() {
	python3 -c '
import random, socket
for p in random.sample(range(23000, 24000), 1000):
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", p)); print(p); break
    except OSError:
        pass
    finally:
        s.close()'
}

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
-- documents of about 2 KB from both corpora
CREATE TABLE docs2k AS
	SELECT body FROM debian WHERE octet_length(body) BETWEEN 1536 AND 2560
	UNION ALL SELECT body FROM pydocs WHERE octet_length(body) BETWEEN 1536 AND 2560;
VACUUM ANALYZE debian, pydocs, docs2k;
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
CREATE TEMP TABLE fns(fn text, expr text, ord int);
INSERT INTO fns VALUES
	('md5 (baseline)',            'md5(body)', 0),
	('simhash (word 3)',          'simhash(body)', 1),
	('shingle_set (word 3)',      'shingle_set(body)', 2),
	('shingle_bottom s=100',      'shingle_bottom(body, 100)', 3),
	('shingle_mod m=25',          'shingle_mod(body, 25)', 4),
	('minhash oph k=128',         'minhash(body, 128, ''oph'')', 5),
	('minhash oph k=256',         'minhash(body, 256, ''oph'')', 6),
	('minhash kperm k=84',        'minhash(body, 84, ''kperm'')', 7),
	('minhash kperm k=128',       'minhash(body, 128, ''kperm'')', 8),
	('super_shingles 6x14',       'super_shingles(minhash(body, 84, ''kperm''))', 9),
	('minhash_bbit oph k=128 b=8','minhash_bbit(minhash(body, 128), 8)', 10);
CREATE TEMP TABLE runs AS
	SELECT c.tbl, f.fn, f.ord,
		pg_temp.best_ms(format('SELECT count(%s) FROM %I', f.expr, c.tbl), $RUNS) AS ms
	FROM (VALUES ('debian'), ('docs2k')) c(tbl), fns f;
\pset footer off
\echo '== throughput (best of $RUNS runs, one backend)'
SELECT r.tbl AS corpus, (SELECT count(*) FROM debian) AS docs_debian, (SELECT count(*) FROM docs2k) AS docs_2k,
	r.fn AS function, round(r.ms::numeric, 1) AS best_ms,
	round((CASE r.tbl WHEN 'debian' THEN (SELECT sum(octet_length(body)) FROM debian)
	                  ELSE (SELECT sum(octet_length(body)) FROM docs2k) END
	       / 1e6 / (r.ms / 1000))::numeric, 1) AS mb_per_s,
	round((b.ms / r.ms)::numeric, 2) AS speed_vs_md5
FROM runs r JOIN runs b ON b.tbl = r.tbl AND b.fn = 'md5 (baseline)'
ORDER BY r.tbl, r.ord;
\echo '== densified OPH vs k-permutation, k = 128, ~2 KB documents (target >= 5)'
\echo '   interleaved runs (kperm, oph, pipeline alone), best of 9 each; the pipeline'
\echo '   (normalize, tokenize, hash shingles; shingles() also builds an array) is shared by both'
CREATE TEMP TABLE ratio AS
WITH r AS (
	SELECT i, pg_temp.best_ms('SELECT count(minhash(body, 128, ''kperm'')) FROM docs2k', 1) AS kperm,
		pg_temp.best_ms('SELECT count(minhash(body, 128, ''oph'')) FROM docs2k', 1) AS oph,
		pg_temp.best_ms('SELECT count(shingles(body)) FROM docs2k', 1) AS pipeline
	FROM generate_series(1, 9) i)
SELECT min(kperm) AS kperm_ms, min(oph) AS oph_ms, min(pipeline) AS pipeline_ms,
	percentile_cont(0.5) WITHIN GROUP (ORDER BY kperm / oph) AS median_ratio FROM r;
SELECT round(kperm_ms::numeric, 1) AS kperm_k128_ms, round(oph_ms::numeric, 1) AS oph_k128_ms,
	round(pipeline_ms::numeric, 1) AS pipeline_ms,
	round((kperm_ms / oph_ms)::numeric, 2) AS oph_speedup, round(median_ratio::numeric, 2) AS median_speedup,
	kperm_ms / oph_ms >= 5 AS ok
FROM ratio;
\echo '== bytes stored per document (pg_column_size, Debian descriptions)'
SELECT round(avg(octet_length(body))) AS text_bytes,
	round(avg(pg_column_size(simhash(body)))) AS simhash,
	round(avg(pg_column_size(shingle_set(body)))) AS shingle_set,
	round(avg(pg_column_size(shingle_bottom(body, 100)))) AS bottom_100,
	round(avg(pg_column_size(shingle_mod(body, 25)))) AS mod_25,
	round(avg(pg_column_size(minhash(body, 128, 'oph')))) AS oph_128,
	round(avg(pg_column_size(minhash(body, 128, 'kperm')))) AS kperm_128,
	round(avg(pg_column_size(minhash_bbit(minhash(body, 128), 8)))) AS oph_128_b8,
	round(avg(pg_column_size(minhash_bbit(minhash(body, 128), 1)))) AS oph_128_b1,
	round(avg(pg_column_size(super_shingles(minhash(body, 84, 'kperm'))))) AS super_6
FROM debian;
SQL
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), PostgreSQL $(pg_config --version | cut -d' ' -f2)"
