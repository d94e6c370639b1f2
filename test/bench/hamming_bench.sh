#!/usr/bin/env bash
# Benchmark of exact Hamming-radius search with simhash64_gin_ops.
#
# Starts a private temporary PostgreSQL instance (initdb in a temp dir, free
# port, unix socket in that dir), builds a table of N fingerprints (90 %
# uniform, 10 % planted 1-6-bit variants of another row), then for each
# index configuration: build time, index size (bytes/row), p50/p99 latency
# of NQ queries (existing rows as centers) at each radius measured inside the
# server, recall/precision against the sequential scan, and the sequential
# scan latency of the same queries in the same run, with ratios.
#
# Usage: test/bench/hamming_bench.sh [--rows N] [--10m] [--queries NQ]
#            [--seq-queries NS] [--radii "3 6 12 16"]
#            [--configs "blocks=4,layout=full blocks=4,layout=block"]
#            [--key-sizes] [--maintenance-work-mem 64MB] [--no-install]
set -euo pipefail

source "$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/scripts/lib.sh"

ROWS=1000000
NQ=200
NS=50
RADII="3 6 12 16"
CONFIGS="blocks=4,layout=full blocks=4,layout=block"
KEY_SIZES=0
MWM=64MB
INSTALL=1
while [ $# -gt 0 ]; do
	case "$1" in
		--rows) ROWS=$2; shift ;;
		--10m) ROWS=10000000 ;;
		--queries) NQ=$2; shift ;;
		--seq-queries) NS=$2; shift ;;
		--radii) RADII=$2; shift ;;
		--configs) CONFIGS=$2; shift ;;
		--key-sizes) KEY_SIZES=1 ;;
		--maintenance-work-mem) MWM=$2; shift ;;
		--no-install) INSTALL=0 ;;
		*) echo "unknown option: $1" >&2; exit 2 ;;
	esac
	shift
done

[ "$INSTALL" = 1 ] && build_and_install
make_workdir
start_instance
echo "shared_buffers = 2GB" >>"$WORKDIR/data/postgresql.conf"
# testing an uninstalled build (Debian's extension_destdir), e.g. make install DESTDIR=...
[ -n "${NDDUP_EXTENSION_DESTDIR:-}" ] && echo "extension_destdir = '$NDDUP_EXTENSION_DESTDIR'" >>"$WORKDIR/data/postgresql.conf"
echo "max_parallel_workers_per_gather = 0" >>"$WORKDIR/data/postgresql.conf"
as_pg pg_ctl -D "$WORKDIR/data" -w restart -l "$WORKDIR/server.log" >/dev/null

q() { pg_sql -At -F ' ' "$@"; }

echo "== machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(uname -r), $(postgres --version)"
echo "== load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
q -c "CREATE EXTENSION nddup" -c "CREATE TABLE fps (id int, fp simhash64)"
pg_sql -f "$NDDUP_ROOT/test/bench/hamming_bench.sql"
t0=$(date +%s.%N)
q -c "SELECT bench_fill($ROWS)" >/dev/null
q -c "VACUUM ANALYZE fps"
echo "== $ROWS rows generated in $(echo "$(date +%s.%N) - $t0" | bc) s; heap $(q -c "SELECT pg_size_pretty(pg_relation_size('fps'))")"

# centers: NQ existing rows spread over the table, 10 % of them planted variants
q -c "CREATE TABLE bench_centers AS SELECT row_number() OVER (ORDER BY id) AS qid, fp AS center
        FROM fps WHERE id % ($ROWS / $NQ) = (id / ($ROWS / $NQ)) % 10 + 1 ORDER BY id LIMIT $NQ"

# the sequential-scan truth of every query up to the largest radius: one pass
maxr=$(echo "$RADII" | tr ' ' '\n' | sort -n | tail -1)
t0=$(date +%s.%N)
q -c "SET enable_bitmapscan = off" -c "SET enable_indexscan = off" \
  -c "CREATE TABLE bench_truth AS SELECT c.qid, t.id, t.fp <-> c.center AS d
        FROM bench_centers c, fps t WHERE (t.fp <-> c.center) <= $maxr" >/dev/null
echo "== truth (all $NQ centers, radius <= $maxr) by one nested-loop scan in $(echo "$(date +%s.%N) - $t0" | bc) s"

# sequential scan latency of the first NS queries, per radius
declare -A SEQ50 SEQ99
for r in $RADII; do
	read -r p50 p99 rows < <(q -c "SELECT * FROM bench_latency($r, $NS, 'seq')")
	SEQ50[$r]=$p50; SEQ99[$r]=$p99
	printf '   seq scan  r=%-3s p50 %9.3f ms  p99 %9.3f ms  (%s queries, mean rows %s)\n' "$r" "$p50" "$p99" "$NS" "$rows"
done

center1=$(q -c "SELECT center FROM bench_centers WHERE qid = 1")
for cfg in $CONFIGS; do
	opts=${cfg//,/, }
	q -c "DROP INDEX IF EXISTS fps_idx" >/dev/null
	t0=$(date +%s.%N)
	q -c "SET maintenance_work_mem = '$MWM'" \
	  -c "CREATE INDEX fps_idx ON fps USING gin (fp simhash64_gin_ops($opts)) WITH (fastupdate = off)" >/dev/null
	build=$(echo "$(date +%s.%N) - $t0" | bc)
	size=$(q -c "SELECT pg_relation_size('fps_idx')")
	q -c "ANALYZE fps" >/dev/null
	printf '== index simhash64_gin_ops(%s): build %.1f s (maintenance_work_mem %s), %s bytes = %.1f bytes/row\n' \
		"$opts" "$build" "$MWM" "$size" "$(echo "$size / $ROWS" | bc -l)"
	for r in $RADII; do
		read -r p50 p99 rows < <(q -c "SELECT * FROM bench_latency($r, $NQ, 'index')")
		read -r recall prec truth < <(q -c "SELECT * FROM bench_recall($r, $NQ)")
		plan=$(q -c "EXPLAIN SELECT count(*) FROM fps WHERE fp <@ ball('$center1', $r)" | grep -oE "Seq Scan|Bitmap Index Scan" | head -1)
		printf '   index     r=%-3s p50 %9.3f ms  p99 %9.3f ms  recall %s precision %s (%s true rows)  seq/index p50 %7.1fx  planner: %s\n' \
			"$r" "$p50" "$p99" "$recall" "$prec" "$truth" "$(echo "${SEQ50[$r]} / $p50" | bc -l)" "$plan"
	done
done

if [ "$KEY_SIZES" = 1 ]; then
	# sizes of the other key layouts with the same entry structure: GIN
	# array_ops over 4 unique keys per row (16-byte uuid, 8-byte int8) and
	# 4 shared 4-byte keys (tag | 16-bit block)
	q -c "DROP INDEX IF EXISTS fps_idx" >/dev/null
	q -c "CREATE TABLE keys_uuid AS SELECT id, ARRAY(SELECT md5(id || '/' || t)::uuid FROM generate_series(0, 3) t) AS k FROM fps" \
	  -c "CREATE TABLE keys_int8 AS SELECT id, ARRAY(SELECT ('x' || substr(md5(id || '/' || t), 1, 16))::bit(64)::bigint FROM generate_series(0, 3) t) AS k FROM fps" \
	  -c "CREATE TABLE keys_int4 AS SELECT id, ARRAY(SELECT (t << 16) | (fp::bigint >> (16 * t) & 65535)::int FROM generate_series(0, 3) t) AS k FROM fps" >/dev/null
	for t in uuid int8 int4; do
		t0=$(date +%s.%N)
		q -c "SET maintenance_work_mem = '$MWM'" -c "CREATE INDEX keys_${t}_idx ON keys_$t USING gin (k) WITH (fastupdate = off)" >/dev/null
		build=$(echo "$(date +%s.%N) - $t0" | bc)
		size=$(q -c "SELECT pg_relation_size('keys_${t}_idx')")
		printf '== key layout %-4s x4 (array_ops): build %.1f s, %.1f bytes/row\n' "$t" "$build" "$(echo "$size / $ROWS" | bc -l)"
	done
fi
echo "== load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
