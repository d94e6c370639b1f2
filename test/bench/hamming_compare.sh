#!/usr/bin/env bash
# Exact Hamming search on simhash64: the hamming access method beside
# simhash64_gin_ops, simhash64_spgist_ops, a sequential scan and, when they
# are built locally (never a dependency), pgvector's HNSW on bit(64) and the
# SP-GiST BK-tree (bktree_ops on int8) -- all in one run, on one table.
#
# Starts a private temporary PostgreSQL instance, generates N fingerprints
# (90 % md5-uniform, 10 % planted variants of another row with 1-6 bits
# flipped), picks NQ existing rows as centers ("near": 10 % of them planted
# variants) and NQ fresh random values ("far": their 10th neighbour is
# 14-16 bits away at 1M), computes the exact answers by sequential scans,
# then for each method: build time, size (bytes per row), radius p50 / p99
# / mean and recall at each radius, nearest-10 p50 / p99 / mean and
# recall@10 of near and far centers, timed inside the server (PL/pgSQL,
# clock_timestamp() around each query; the queries are prepared once, as an
# application's are).  Ratios against the sequential scan of the same run.
#
# Third-party extensions are looked for in $NDDUP_BENCH_EXT (default
# /work/cache/bench-ext, a DESTDIR install of pgvector 0.8.6 and the
# bktree extension, see docs/reports/bench-hamming.md); without it those
# two methods are skipped with one line.
#
# Usage: test/bench/hamming_compare.sh [--rows N] [--10m] [--queries NQ]
#            [--radii "3 6 12"] [--methods "hamming gin spgist seq hnsw bktree"]
#            [--ef "40 200"] [--shared-buffers 2GB] [--no-install] [--build-only]
# (--build-only: only the build time and size of each index method, no
# exact answers and no queries, e.g. for GIN or the hamming index at 10M)
# (--no-install: use the nddup installed under $NDDUP_EXTENSION_DESTDIR)
# The method "appendix" (not in the default list) builds the hamming index
# without the last rows of the table, a share f of them for each f of
# --appendix (default "0.05 0.2"), then inserts those rows, which go to the
# index's appendix as an application's inserts do until VACUUM merges them
# (at merge_fraction 0.05 of the sorted rows; autovacuum runs on an
# insert-only table after 20 % of it by default), and times the queries.
# The method "plans" (in the default list) builds the hamming, GIN and
# SP-GiST indexes together on the column and, at default settings, shows the
# plan the planner keeps for each query form (EXPLAIN EXECUTE of a prepared
# statement after 6 executions, the generic plan included) and times it
# beside the fastest method of the run.
set -euo pipefail

source "$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/scripts/lib.sh"

ROWS=1000000
NQ=200
RADII="3 6 12"
METHODS="hamming gin spgist seq hnsw bktree plans"
EF="40 200"
SB=2GB
INSTALL=1
BUILD_ONLY=0
APPENDIX="0.05 0.2"
BENCH_EXT=${NDDUP_BENCH_EXT:-/work/cache/bench-ext}
while [ $# -gt 0 ]; do
	case "$1" in
		--rows) ROWS=$2; shift ;;
		--10m) ROWS=10000000 ;;
		--queries) NQ=$2; shift ;;
		--radii) RADII=$2; shift ;;
		--methods) METHODS=$2; shift ;;
		--ef) EF=$2; shift ;;
		--shared-buffers) SB=$2; shift ;;
		--no-install) INSTALL=0 ;;
		--build-only) BUILD_ONLY=1 ;;
		--appendix) APPENDIX=$2; shift ;;
		*) echo "unknown option: $1" >&2; exit 2 ;;
	esac
	shift
done

for f in $APPENDIX; do
	if ! awk -v f="$f" 'BEGIN { exit !(f + 0 == f && f > 0 && f < 1) }'; then
		echo "--appendix: $f is not a share of the rows between 0 and 1" >&2
		exit 2
	fi
done

make_workdir
trap 'stop_instance; rm -rf "$WORKDIR"' EXIT
# nddup and the third-party extensions in one private extension_destdir
EXTDEST=$WORKDIR/extdest
mkdir -p "$EXTDEST"
if [ "$INSTALL" = 1 ]; then
	make -C "$NDDUP_ROOT" -s PG_CONFIG="$PG_BIN/pg_config" >/dev/null
	make -C "$NDDUP_ROOT" -s PG_CONFIG="$PG_BIN/pg_config" DESTDIR="$EXTDEST" install >/dev/null
else
	cp -a "${NDDUP_EXTENSION_DESTDIR:?--no-install needs NDDUP_EXTENSION_DESTDIR}"/. "$EXTDEST"/
fi
if [ -d "$BENCH_EXT/usr" ]; then
	cp -a "$BENCH_EXT/usr" "$EXTDEST"/
else
	echo "== pgvector HNSW and the BK-tree skipped: $BENCH_EXT (their local build) is absent"
	METHODS=$(echo "$METHODS" | tr ' ' '\n' | grep -vE '^(hnsw|bktree)$' | tr '\n' ' ')
fi
chmod -R a+rX "$EXTDEST"
unset NDDUP_DESTDIR
NDDUP_SHARED_BUFFERS=$SB start_instance
cat >>"$WORKDIR/data/postgresql.conf" <<CONF
extension_destdir = '$EXTDEST'
# parallel workers (pgvector's HNSW build) load libraries by name: let them find them
dynamic_library_path = '\$libdir:$EXTDEST$("$PG_BIN/pg_config" --pkglibdir)'
max_parallel_workers_per_gather = 0
jit = off
maintenance_work_mem = 1GB
max_wal_size = 8GB
autovacuum = off
CONF
as_pg pg_ctl -D "$WORKDIR/data" -w restart -l "$WORKDIR/server.log" >/dev/null

q() { pg_sql -At -F ' ' "$@"; }
elapsed() { echo "$(date +%s.%N) - $1" | bc; }

echo "== machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(uname -r), $(postgres --version)"
echo "== load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== settings: shared_buffers $SB, maintenance_work_mem 1GB, no parallel workers, JIT off"
q -c "CREATE EXTENSION nddup" -c "CREATE EXTENSION pg_prewarm" -c "CREATE TABLE fps (id int, fp simhash64)"
pg_sql -f "$NDDUP_ROOT/test/bench/hamming_bench.sql" -f "$NDDUP_ROOT/test/bench/hamming_compare.sql"
t0=$(date +%s.%N)
q -c "SELECT bench_fill($ROWS)" >/dev/null
q -c "CREATE INDEX fps_id ON fps (id)" -c "VACUUM ANALYZE fps"
echo "== $ROWS rows generated in $(elapsed "$t0") s; heap $(q -c "SELECT pg_size_pretty(pg_relation_size('fps'))")"

if [ "$BUILD_ONLY" = 1 ]; then
	echo
	echo "| method | build s | bytes/row | index size |"
	echo "|---|---|---|---|"
	for m in $METHODS; do
		case $m in
		hamming) sql="CREATE INDEX fps_ix ON fps USING hamming (fp)" ;;
		gin) sql="CREATE INDEX fps_ix ON fps USING gin (fp simhash64_gin_ops) WITH (fastupdate = off)" ;;
		spgist) sql="CREATE INDEX fps_ix ON fps USING spgist (fp simhash64_spgist_ops)" ;;
		*) continue ;;
		esac
		t0=$(date +%s.%N)
		q -c "$sql" >/dev/null
		secs=$(printf '%.1f' "$(elapsed "$t0")")
		echo "| $m | $secs | $(q -c "SELECT round(pg_relation_size('fps_ix')::numeric / $ROWS, 1) || ' | ' || pg_size_pretty(pg_relation_size('fps_ix'))") |"
		q -c "DROP INDEX fps_ix"
	done
	echo "== load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
	exit 0
fi

# centers: NQ existing rows (near) and NQ fresh random values (far)
q -c "CREATE TABLE cmp_centers AS
        SELECT row_number() OVER (ORDER BY id) AS qid, 'near' AS kind, fp AS center
        FROM fps WHERE id % ($ROWS / $NQ) = (id / ($ROWS / $NQ)) % 10 + 1
        UNION ALL
        SELECT $NQ + g, 'far', hashint8extended(g, 20241125)::simhash64 FROM generate_series(1, $NQ) g" >/dev/null
maxr=$(echo "$RADII" | tr ' ' '\n' | sort -n | tail -1)
t0=$(date +%s.%N)
q -c "SELECT cmp_truth($maxr, $((2 * NQ)))" >/dev/null
echo "== exact answers (radius <= $maxr, 10th-nearest distance) of $((2 * NQ)) centers by sequential scans in $(elapsed "$t0") s"
read -r d10near d10far < <(q -c "SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY d10) FILTER (WHERE kind = 'near'),
                                        percentile_cont(0.5) WITHIN GROUP (ORDER BY d10) FILTER (WHERE kind = 'far') FROM cmp_truth_knn")
echo "== median 10th-nearest distance: near centers $d10near bits, far centers $d10far bits"

ROWS_OUT=()
PLANS_OUT=()
declare -A SEQ MEAN PMEAN PLAN

# measure name label build_seconds size_bytes radius_fn knn_fn settings
measure() {
	local name=$1 label=$2 build=$3 size=$4 rfn=$5 kfn=$6 settings=$7 r p50 p99 mean rec kind
	local bpr="-"
	[ "$size" != "-" ] && bpr=$(echo "scale=1; $size / $ROWS" | bc)
	printf '== %s: build %s s, %s bytes/row\n' "$label" "$build" "$bpr"
	if [ "$rfn" != "-" ]; then
		for r in $RADII; do
			read -r p50 p99 mean rec < <(q -c "SELECT round(p50_ms::numeric, 3), round(p99_ms::numeric, 3), round(mean_ms::numeric, 3), round(recall::numeric, 4)
			                                     FROM cmp_run('$rfn', $r, $NQ, 'near', '$settings')")
			[ "$name" = seq ] && SEQ[r$r]=$mean
			[ "$name" = plans ] && PMEAN[r$r]=$mean
			[ "$name" != plans ] && record_mean "r$r" "$label" "$mean"
			printf '   radius %-3s p50 %8s ms  p99 %8s ms  mean %8s ms  recall %s  seq/mean %s\n' "$r" "$p50" "$p99" "$mean" "$rec" \
				"$( [ -n "${SEQ[r$r]:-}" ] && echo "scale=1; ${SEQ[r$r]} / $mean" | bc || echo -)"
			ROWS_OUT+=("| $label | $build | $bpr | radius $r | $p50 | $p99 | $mean | $rec | $( [ -n "${SEQ[r$r]:-}" ] && echo "scale=1; ${SEQ[r$r]} / $mean" | bc || echo -)x |")
		done
	fi
	if [ "$kfn" != "-" ]; then
		for kind in near far; do
			read -r p50 p99 mean rec < <(q -c "SELECT round(p50_ms::numeric, 3), round(p99_ms::numeric, 3), round(mean_ms::numeric, 3), round(recall::numeric, 4)
			                                     FROM cmp_run('$kfn', -1, $NQ, '$kind', '$settings')")
			[ "$name" = seq ] && SEQ[k$kind]=$mean
			[ "$name" = plans ] && PMEAN[k$kind]=$mean
			[ "$name" != plans ] && record_mean "k$kind" "$label" "$mean"
			printf '   nearest-10 %-4s p50 %8s ms  p99 %8s ms  mean %8s ms  recall@10 %s  seq/mean %s\n' "$kind" "$p50" "$p99" "$mean" "$rec" \
				"$( [ -n "${SEQ[k$kind]:-}" ] && echo "scale=1; ${SEQ[k$kind]} / $mean" | bc || echo -)"
			ROWS_OUT+=("| $label | $build | $bpr | nearest-10 $kind | $p50 | $p99 | $mean | $rec | $( [ -n "${SEQ[k$kind]:-}" ] && echo "scale=1; ${SEQ[k$kind]} / $mean" | bc || echo -)x |")
		done
	fi
}

# record_mean QUERY LABEL MEAN: keep the fastest mean of each query form
record_mean() {
	if [ -z "${MEAN[$1]:-}" ] || [ "$(echo "$3 < ${MEAN[$1]%% *}" | bc)" = 1 ]; then
		MEAN[$1]="$3 $2"
	fi
}

# plan_of SQL CENTER RADIUS: the scan nodes of the plan the planner keeps for
# the prepared statement SQL ($1 center, $2 radius) after 6 executions, at
# default settings (the generic plan if it chose one)
plan_of() {
	{
		echo "PREPARE p(simhash64, int) AS $1;"
		for _ in 1 2 3 4 5 6; do echo "EXECUTE p('$2', $3);"; done
		echo "EXPLAIN (COSTS off) EXECUTE p('$2', $3);"
	} | pg_sql -At -q 2>&1 | grep -oE '(Seq Scan|Index Scan|Index Only Scan|Bitmap Index Scan|Function Scan)( using [a-z_]+)?' |
		sort -u | paste -sd, -
}

# build label sql... -> BUILD seconds (each statement timed together)
build() {
	local t0
	t0=$(date +%s.%N)
	q "$@" >/dev/null
	BUILD=$(printf '%.1f' "$(elapsed "$t0")")
}

NOIDX="enable_indexscan = off; enable_bitmapscan = off; enable_indexonlyscan = off"
q -c "SELECT cmp_make('ball', 'SELECT id FROM fps WHERE fp <@ ball(\$1, \$2)')" \
  -c "SELECT cmp_make('seqball', 'SELECT id FROM fps WHERE (fp <-> \$1) <= \$2')" \
  -c "SELECT cmp_make('order', 'SELECT id FROM fps ORDER BY fp <-> \$1 LIMIT 10')" \
  -c "SELECT cmp_make('nearest', 'SELECT id FROM hamming_nearest(''fps'', ''id'', ''fp'', \$1, 10)')" >/dev/null

for m in seq $METHODS; do
	case $m in
	seq)
		[ -n "${SEQ_DONE:-}" ] && continue
		SEQ_DONE=1
		measure seq "sequential scan" - - seqball order "$NOIDX" ;;
	hamming)
		build -c "CREATE INDEX fps_ham ON fps USING hamming (fp)"
		size=$(q -c "SELECT pg_relation_size('fps_ham')")
		q -c "SELECT pg_prewarm('fps_ham')" >/dev/null
		measure hamming "hamming" "$BUILD" "$size" ball order "enable_seqscan = off"
		measure hamming "hamming, hamming_nearest()" "$BUILD" "$size" - nearest "enable_seqscan = off"
		q -c "DROP INDEX fps_ham" ;;
	appendix)
		for f in $APPENDIX; do
			n=$(printf '%.0f' "$(echo "$ROWS * $f" | bc)")
			q -c "CREATE TABLE fps_tail AS SELECT * FROM fps WHERE id > $ROWS - $n" \
			  -c "DELETE FROM fps WHERE id > $ROWS - $n" -c "VACUUM fps" >/dev/null
			build -c "CREATE INDEX fps_ham ON fps USING hamming (fp)"
			q -c "INSERT INTO fps SELECT * FROM fps_tail" -c "SELECT pg_prewarm('fps_ham')" >/dev/null
			size=$(q -c "SELECT pg_relation_size('fps_ham')")
			echo "== hamming_index_stats (sorted, appendix, dead rows): $(q -c "SELECT sorted_rows, appendix_rows, dead_rows FROM hamming_index_stats('fps_ham')")"
			measure hamming "hamming, $n rows ($f) in the appendix" "$BUILD" "$size" ball order "enable_seqscan = off"
			q -c "DROP INDEX fps_ham" -c "DROP TABLE fps_tail"
		done ;;
	gin)
		build -c "CREATE INDEX fps_gin ON fps USING gin (fp simhash64_gin_ops) WITH (fastupdate = off)"
		size=$(q -c "SELECT pg_relation_size('fps_gin')")
		q -c "SELECT pg_prewarm('fps_gin')" >/dev/null
		measure gin "simhash64_gin_ops (hamming_nearest)" "$BUILD" "$size" ball nearest "enable_seqscan = off"
		q -c "DROP INDEX fps_gin" ;;
	spgist)
		build -c "CREATE INDEX fps_spg ON fps USING spgist (fp simhash64_spgist_ops)"
		size=$(q -c "SELECT pg_relation_size('fps_spg')")
		q -c "SELECT pg_prewarm('fps_spg')" >/dev/null
		measure spgist "simhash64_spgist_ops" "$BUILD" "$size" ball order "enable_seqscan = off"
		q -c "DROP INDEX fps_spg" ;;
	hnsw)
		q -c "CREATE EXTENSION vector" -c "CREATE TABLE fps_bits AS SELECT id, fp::bit(64) AS b FROM fps" \
		  -c "VACUUM ANALYZE fps_bits" >/dev/null
		build -c "CREATE INDEX fps_hnsw ON fps_bits USING hnsw (b bit_hamming_ops)"
		size=$(q -c "SELECT pg_relation_size('fps_hnsw')")
		q -c "SELECT pg_prewarm('fps_hnsw')" \
		  -c "SELECT cmp_make('hnsw', 'SELECT id FROM fps_bits ORDER BY b <~> \$1::bit(64) LIMIT 10')" >/dev/null
		for ef in $EF; do
			measure hnsw "pgvector 0.8.6 HNSW bit(64), ef_search $ef" "$BUILD" "$size" - hnsw "hnsw.ef_search = $ef"
		done
		q -c "DROP TABLE fps_bits" ;;
	bktree)
		q -c "CREATE EXTENSION bktree" -c "CREATE TABLE fps_i8 AS SELECT id, fp::bigint AS h FROM fps" \
		  -c "VACUUM ANALYZE fps_i8" >/dev/null
		build -c "CREATE INDEX fps_bk ON fps_i8 USING spgist (h bktree_ops)"
		size=$(q -c "SELECT pg_relation_size('fps_bk')")
		q -c "SELECT pg_prewarm('fps_bk')" \
		  -c "SELECT cmp_make('bktree', 'SELECT id FROM fps_i8 WHERE h <@ ROW(\$1::bigint, \$2::bigint)::bktree_area')" >/dev/null
		measure bktree "BK-tree (bktree_ops, SP-GiST on int8)" "$BUILD" "$size" bktree - "enable_seqscan = off"
		q -c "DROP TABLE fps_i8" ;;
	plans)
		q -c "CREATE INDEX fps_ham ON fps USING hamming (fp)" \
		  -c "CREATE INDEX fps_gin ON fps USING gin (fp simhash64_gin_ops) WITH (fastupdate = off)" \
		  -c "CREATE INDEX fps_spg ON fps USING spgist (fp simhash64_spgist_ops)" -c "ANALYZE fps" \
		  -c "SELECT pg_prewarm('fps_ham'), pg_prewarm('fps_gin'), pg_prewarm('fps_spg')" >/dev/null
		near=$(q -c "SELECT center FROM cmp_centers WHERE kind = 'near' ORDER BY qid LIMIT 1")
		far=$(q -c "SELECT center FROM cmp_centers WHERE kind = 'far' ORDER BY qid LIMIT 1")
		echo "== plan choice with the hamming, GIN and SP-GiST indexes on fps.fp, default settings"
		for r in $RADII; do
			PLAN[r$r]=$(plan_of 'SELECT id FROM fps WHERE fp <@ ball($1, $2)' "$near" "$r")
		done
		PLAN[knear]=$(plan_of 'SELECT id FROM fps ORDER BY fp <-> $1 LIMIT 10 + 0 * $2' "$near" 0)
		PLAN[kfar]=$(plan_of 'SELECT id FROM fps ORDER BY fp <-> $1 LIMIT 10 + 0 * $2' "$far" 0)
		measure plans "planner's choice (all three indexes)" - - ball order ""
		for key in $(for r in $RADII; do echo "r$r"; done) knear kfar; do
			qname=${key/#r/radius }; qname=${qname/#k/nearest-10 }
			PLANS_OUT+=("| $qname | ${PLAN[$key]} | ${PMEAN[$key]} | ${MEAN[$key]#* } | ${MEAN[$key]%% *} | $(echo "scale=2; ${PMEAN[$key]} / ${MEAN[$key]%% *}" | bc) |")
		done
		q -c "DROP INDEX fps_ham" -c "DROP INDEX fps_gin" -c "DROP INDEX fps_spg" ;;
	*) echo "unknown method $m" >&2; exit 2 ;;
	esac
done

echo "== load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| method | build s | bytes/row | query | p50 ms | p99 ms | mean ms | recall | seq ÷ mean |"
echo "|---|---|---|---|---|---|---|---|---|"
printf '%s\n' "${ROWS_OUT[@]}"
if [ ${#PLANS_OUT[@]} -gt 0 ]; then
	echo
	echo "| query (hamming + GIN + SP-GiST on the column) | plan kept after 6 executions | its mean ms | fastest method of the run | its mean ms | planner ÷ fastest |"
	echo "|---|---|---|---|---|---|"
	printf '%s\n' "${PLANS_OUT[@]}"
fi
