#!/usr/bin/env bash
# Where exact shingle sets stop paying against min-hash sketches and simhash
# fingerprints as documents grow (issue 25, item 2): for documents of about
# 100, 1,000, 10,000 and 100,000 word 3-shingles, the bytes stored per row
# (pg_column_size of the set, the 128-value sketch and the fingerprint), the
# index bytes per row (shingleset_ops; minhash_lsh_ops (threshold = 0.3);
# hamming), the time to build each, and the mean time of one probe at
# resemblance 0.3 (ss <@ similar_to(q, 0.3) against mh <@ similar_to(q, 0.3)),
# over --probes query documents that are copies of stored ones with 5 % of
# their words replaced.
#
# Documents are synthetic: words drawn from a vocabulary of 50,000, so
# unrelated documents share few shingles (the sets are as large as the
# text).  Rows per length: --rows "2000 1000 200 20" (about 2M shingles per
# table at the longer lengths).  A synthetic word takes about 6.9 bytes, so
# 15,000 shingles make a document of about 100 KB.
#
# --corpus FILE (a .tsv.gz of id, package, text, as
# ../shared/data/debian-descriptions-en.tsv.gz) first measures real texts the
# same way: "short", the first line of each text, and "medium", the whole
# text; their probes are --probes stored texts themselves.  Not run in CI.
# Usage:
#   test/bench/set_sizes_bench.sh [--lengths "100 1000 10000 100000"] [--rows "2000 1000 200 20"]
#       [--probes 20] [--corpus FILE] [--no-install]
set -euo pipefail

source "$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/scripts/lib.sh"

ROWS="2000 1000 200 20"
LENGTHS="100 1000 10000 100000"
PROBES=20
INSTALL=1
CORPUS=
while [ $# -gt 0 ]; do
	case "$1" in
		--rows) ROWS=$2; shift ;;
		--probes) PROBES=$2; shift ;;
		--lengths) LENGTHS=$2; shift ;;
		--corpus) CORPUS=$2; shift ;;
		--no-install) INSTALL=0 ;;
		*) echo "unknown option: $1" >&2; exit 2 ;;
	esac
	shift
done

[ "$INSTALL" = 1 ] && build_and_install
make_workdir
start_instance
cat >>"$WORKDIR/data/postgresql.conf" <<CONF
shared_buffers = 512MB
maintenance_work_mem = 512MB
synchronous_commit = off
autovacuum = off
max_parallel_workers_per_gather = 0
max_parallel_maintenance_workers = 0
max_wal_size = 4GB
jit = off
CONF
as_pg pg_ctl -D "$WORKDIR/data" -l "$WORKDIR/server.log" -w restart >/dev/null
export PGOPTIONS='-c client_min_messages=error'
q() { pg_sql -X -At -F ' ' "$@"; }

echo "== machine: $(nproc) cores; commit $(git -C "$NDDUP_ROOT" log -1 --format=%h 2>/dev/null || echo unknown)"
echo "== load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
q >/dev/null <<'SQL'
CREATE EXTENSION nddup;
-- document d of n words; with r > 0 about r per mille of them replaced (seed s)
CREATE FUNCTION bench_doc(d bigint, n int, r int, s bigint) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
SELECT string_agg(CASE WHEN r > 0 AND (hashint8extended(i, s) & 1023) < r * 1024 / 1000
					   THEN 'x' || (hashint8extended(i, s + 1) & 1048575)
					   ELSE 'w' || (hashint8extended(d * 1000003 + i, 7) % 50000) END, ' ' ORDER BY i)
FROM generate_series(1, n) i
$$;
-- wall time of a statement, in ms
CREATE FUNCTION bench_ms(sql text) RETURNS double precision LANGUAGE plpgsql AS $$
DECLARE t0 timestamptz := clock_timestamp();
BEGIN
	EXECUTE sql;
	RETURN 1000 * extract(epoch FROM clock_timestamp() - t0);
END $$;
SQL

printf '\n%-20s %6s %8s | %9s %8s %4s | %12s %12s %9s | %9s %9s %9s | %9s %9s %5s %5s\n' \
	"text (shingles)" rows "text B" "set B/row" "sketch B" "fp B" "ss idx B/row" "mh idx B/row" "ham B/row" \
	"ss build" "mh build" "ham build" "ss probe" "mh probe" "ss hit" "mh hit"

# measure label n queries_sql: the sizes, build and probe times of the n rows
# of table docs (id, body), the probes of the query texts (column b, key j)
# that queries_sql selects
measure() {
	local label=$1 n=$2 len setb skb fpb textb ssi mhi hami ssb mhb hamb ssp ssh mhp mhh
	q >/dev/null <<SQL
UPDATE docs SET ss = shingle_set(body), mh = minhash(body), fp = simhash(body);
VACUUM ANALYZE docs;
CREATE TABLE IF NOT EXISTS timing (what text, ms double precision);
TRUNCATE timing;
INSERT INTO timing SELECT 'ss', bench_ms('CREATE INDEX docs_ss ON docs USING gin (ss) WITH (fastupdate = off)');
INSERT INTO timing SELECT 'mh', bench_ms('CREATE INDEX docs_mh ON docs USING gin (mh minhash_lsh_ops (threshold = 0.3)) WITH (fastupdate = off)');
INSERT INTO timing SELECT 'ham', bench_ms('CREATE INDEX docs_fp ON docs USING hamming (fp)');
DROP TABLE IF EXISTS queries;
CREATE TABLE queries AS SELECT j, shingle_set(b) AS ss, minhash(b) AS mh FROM ($3) x;
SQL
	read -r len setb skb fpb textb < <(q -c "SELECT round(avg(cardinality(ss))), round(avg(pg_column_size(ss))), round(avg(pg_column_size(mh))), round(avg(pg_column_size(fp))), round(avg(octet_length(body))) FROM docs")
	read -r ssi mhi hami < <(q -c "SELECT pg_relation_size('docs_ss') / $n, pg_relation_size('docs_mh') / $n, pg_relation_size('docs_fp') / $n")
	read -r ssb mhb hamb < <(q -c "SELECT (SELECT ms FROM timing WHERE what = 'ss'), (SELECT ms FROM timing WHERE what = 'mh'), (SELECT ms FROM timing WHERE what = 'ham')")
	# one probe per query, through the index (the planner's choice is checked)
	q -c "SET enable_seqscan = off" -c "EXPLAIN (COSTS OFF) SELECT id FROM docs WHERE ss <@ similar_to((SELECT ss FROM queries LIMIT 1), 0.3)" |
		grep -q "docs_ss" || { echo "the set probe does not use its index" >&2; exit 1; }
	# the query value comes from the queries table (an initplan), so its
	# text form is not parsed inside the timing
	read -r ssp ssh < <(q -c "SET enable_seqscan = off" -c "SELECT avg(bench_ms(format('SELECT count(*) FROM docs WHERE ss <@ similar_to((SELECT ss FROM queries WHERE j = %s), 0.3)', j))),
	                                 (SELECT count(*) FROM queries qq, docs d WHERE d.ss <@ similar_to(qq.ss, 0.3))
	                          FROM queries" | tail -1)
	read -r mhp mhh < <(q -c "SET enable_seqscan = off" -c "SELECT avg(bench_ms(format('SELECT count(*) FROM docs WHERE mh <@ similar_to((SELECT mh FROM queries WHERE j = %s), 0.3)', j))),
	                                 (SELECT count(*) FROM queries qq, docs d WHERE d.mh <@ similar_to(qq.mh, 0.3))
	                          FROM queries" | tail -1)
	printf '%-20s %6d %8d | %9d %8d %4d | %12d %12d %9d | %7.0f ms %6.0f ms %6.0f ms | %6.2f ms %6.2f ms %5d %5d\n' \
		"$label ($len)" "$n" "$textb" "$setb" "$skb" "$fpb" "$ssi" "$mhi" "$hami" "$ssb" "$mhb" "$hamb" "$ssp" "$mhp" "$ssh" "$mhh"
}

# docs_table: an empty docs table
docs_table() {
	q -c "DROP TABLE IF EXISTS docs" \
	  -c "CREATE TABLE docs (id int PRIMARY KEY, body text, ss shingleset, mh minhash_sketch, fp simhash64)" >/dev/null
}

if [ -n "$CORPUS" ]; then
	zcat "$CORPUS" | tail -n +2 > "$WORKDIR/corpus.tsv"
	chmod 644 "$WORKDIR/corpus.tsv"
	q -c "CREATE TABLE raw (id int PRIMARY KEY, package text, text text)" \
	  -c "\\copy raw FROM '$WORKDIR/corpus.tsv'" >/dev/null
	n=$(q -c "SELECT count(*) FROM raw")
	for kind in short medium; do
		docs_table
		q -c "INSERT INTO docs (id, body) SELECT id, $([ $kind = short ] && echo "split_part(text, E'\\n', 1)" || echo text) FROM raw" >/dev/null
		measure "$kind" "$n" "SELECT j, body AS b FROM generate_series(1, $PROBES) j JOIN docs ON docs.id = 1 + (j * 7919) % $n"
	done
fi

set -- $ROWS
for len in $LENGTHS; do
	n=$1; shift
	docs_table
	q -c "INSERT INTO docs (id, body) SELECT i, bench_doc(i, $((len + 2)), 0, 0) FROM generate_series(1, $n) i" >/dev/null
	measure synthetic "$n" "SELECT j, bench_doc(1 + (j * 7919) % $n, $((len + 2)), 50, j) AS b FROM generate_series(1, $PROBES) j"
done
echo
echo "== load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
