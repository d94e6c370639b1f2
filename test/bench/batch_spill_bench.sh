#!/usr/bin/env bash
# Benchmark of the batch functions beyond work_mem (issue 18, targets 1;
# docs/reports/bench-batch-spill.md): hamming_clusters, minhash_clusters and
# shingleset_pairs on N short texts (default 10M) at work_mem = 4MB and
# maintenance_work_mem = 64MB (through temporary files), beside the same
# call with enough work_mem to stay in memory, in the same run: wall time
# (min and median of the repetitions, the runs of the two paths alternated),
# the ratio spilled / in memory, the result (count and a checksum, which
# must be equal), the peak private memory of the backend and the temporary
# bytes written.
#
# Memory of the backend (Linux): RssAnon, its private anonymous memory,
# sampled every 20 ms from /proc/<pid>/status by a process started from the
# calling psql session; VmHWM, the kernel's exact peak of the whole resident
# set (reset with clear_refs before the call), which also counts the
# shared buffers and the binary the backend touched; and the bound
# VmHWM - (RssFile + RssShmem before the call), which no private peak can
# exceed (file and shared pages only grow during a call).  shared_buffers
# is 128MB unless --shared-buffers says otherwise.
#
# Data: see test/bench/batch_spill_data.sql (words from data/debian-sample,
# 5 % planted variants); derived tables simhash(body), minhash(body) (k =
# 128) and shingle_set(body).  With --data-dir DIR the instance's data
# directory is kept in DIR and reused: the texts are generated once, the
# derived tables again only when the extension's install script changed.
#
# Runs its own PostgreSQL instance as the postgres user; not part of CI.
#
# usage: test/bench/batch_spill_bench.sh [--rows N] [--repeat N] [--data-dir DIR]
#            [--functions "hamming minhash sets"] [--minhash-baseline-rows M]
#            [--shared-buffers SIZE] [--words FILE] [--no-build]
#   --rows N        texts (default 10000000)
#   --repeat N      runs of each timed call and path (default 3)
#   --data-dir DIR  keep and reuse the data directory (e.g. /work/cache/bench-data/spill)
#   --functions L   which of hamming, minhash, sets to run (default all three)
#   --minhash-baseline-rows M
#                   the in-memory min-hash baseline needs 672 bytes per row
#                   (docs/batch-sketches.md); by default it runs on all rows
#                   when MemAvailable allows it with 3 GB to spare, else on
#                   the largest whole number of millions that does (both
#                   paths timed at that size, the spilled path at N too)
#   --words FILE    gzip TSV whose third column gives the words (default
#                   data/debian-sample.tsv.gz)
#   --no-build      do not build and install the extension first

set -euo pipefail
source "$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/scripts/lib.sh"
BENCH_DIR=$NDDUP_ROOT/test/bench

ROWS=10000000
REPEAT=3
DATA_DIR=
FUNCTIONS="hamming minhash sets"
MH_BASE=auto
SHARED_BUFFERS=128MB
WORDS=$NDDUP_ROOT/data/debian-sample.tsv.gz
BUILD=1
while [ $# -gt 0 ]; do
	case "$1" in
		--rows) ROWS=$2; shift ;;
		--repeat) REPEAT=$2; shift ;;
		--data-dir) DATA_DIR=$2; shift ;;
		--functions) FUNCTIONS=$2; shift ;;
		--minhash-baseline-rows) MH_BASE=$2; shift ;;
		--shared-buffers) SHARED_BUFFERS=$2; shift ;;
		--words) WORDS=$2; shift ;;
		--no-build) BUILD=0 ;;
		*) echo "unknown option $1" >&2; exit 2 ;;
	esac
	shift
done

[ $BUILD = 1 ] && build_and_install
make_workdir
source "$BENCH_DIR/bench_lib.sh"
bench_start_instance "$DATA_DIR" "$SHARED_BUFFERS"

q() { pg_sql -At "$@"; }

echo "# nddup batch functions beyond work_mem, $(date -u '+%Y-%m-%d %H:%M UTC')"
bench_header
echo

# ---- data: the texts once, the derived tables when the extension changed
text_stamp="$ROWS $(cat "$BENCH_DIR/batch_spill_data.sql" "$WORDS" | md5sum | cut -c1-12)"
pg_sql -q -c "SET client_min_messages = warning" -c "CREATE TABLE IF NOT EXISTS bench_meta (k text PRIMARY KEY, v text)"
# (the tables are unlogged: a server that was not shut down cleanly comes
# back with them empty, so an empty table is made again too)
has_rows() { [ "$(q -c "SELECT to_regclass('$1') IS NOT NULL AND EXISTS (SELECT 1 FROM $1)" 2>/dev/null)" = t ]; }
if [ "$(q -c "SELECT v FROM bench_meta WHERE k = 'text'")" != "$text_stamp" ] || ! has_rows bench_text; then
	echo "generating $ROWS texts"
	t0=$(date +%s)
	pg_sql -q -c "SET client_min_messages = warning" -c "DROP TABLE IF EXISTS bench_fp, bench_sk, bench_sk_base, bench_ss, bench_text" \
		-c "DELETE FROM bench_meta"
	PGOPTIONS="-c client_min_messages=warning" pg_sql -q -v rows="$ROWS" -v words="$WORDS" -f "$BENCH_DIR/batch_spill_data.sql"
	pg_sql -q -c "INSERT INTO bench_meta VALUES ('text', '$text_stamp')"
	echo "texts generated in $(( $(date +%s) - t0 )) s"
fi
# derived tables: all dropped when the extension's install script changed
# (DROP EXTENSION takes their columns), then each one the selected
# functions need computed if it is missing
ext_script=$(ls "${NDDUP_DESTDIR:-}$(pg_config --sharedir)"/extension/nddup--*.sql 2>/dev/null | sort -V | tail -1)
ext_stamp="$(md5sum <"$ext_script" | cut -c1-12)"
if [ "$(q -c "SELECT v FROM bench_meta WHERE k = 'extension'")" != "$ext_stamp" ]; then
	echo "new extension script $(basename "$ext_script"): the derived tables are recomputed when needed"
	pg_sql -q -c "SET client_min_messages = warning" -c "DROP TABLE IF EXISTS bench_fp, bench_sk, bench_sk_base, bench_ss" \
		-c "DROP EXTENSION IF EXISTS nddup CASCADE" -c "CREATE EXTENSION nddup" \
		-c "DELETE FROM bench_meta WHERE k <> 'text'" -c "INSERT INTO bench_meta VALUES ('extension', '$ext_stamp')"
fi
for f in $FUNCTIONS; do
	case $f in
		hamming) tab=bench_fp; expr="simhash(body) AS fp" ;;
		minhash) tab=bench_sk; expr="minhash(body) AS sk" ;;
		sets) tab=bench_ss; expr="shingle_set(body) AS ss" ;;
		*) continue ;;
	esac
	if ! has_rows "$tab"; then
		echo "computing $tab ($expr) of the texts"
		t0=$(date +%s)
		pg_sql -q -c "SET client_min_messages = warning" -c "DROP TABLE IF EXISTS $tab" \
			-c "SET work_mem = '256MB'" -c "CREATE UNLOGGED TABLE $tab AS SELECT id, $expr FROM bench_text" \
			-c "VACUUM ANALYZE $tab"
		echo "$tab computed in $(( $(date +%s) - t0 )) s"
	fi
done
pg_sql -q -f "$BENCH_DIR/bench_memory.sql"
# (bench_ss is named only when it exists: a query naming a missing table fails
# even in a CASE branch that is not taken)
shingles=
if [ "$(q -c "SELECT to_regclass('bench_ss') IS NOT NULL")" = t ]; then
	shingles=$(q -c "SELECT ', shingles per set ' || round(avg(cardinality(shingleset_to_array(ss))), 1) FROM bench_ss WHERE id % 100 = 1")
fi
q -F' ' -c "SELECT 'rows: ' || (SELECT count(*) FROM bench_text) || ' texts, '
	|| (SELECT count(*) FROM bench_text WHERE id % 20 = 0) || ' of them planted variants; '
	|| 'words per text ' || (SELECT round(avg(cardinality(string_to_array(body, ' '))), 1) FROM bench_text WHERE id % 100 = 1)
	|| '$shingles'
	|| '; tables: text ' || pg_size_pretty(pg_total_relation_size('bench_text'))
	|| ', simhash ' || coalesce(pg_size_pretty(pg_total_relation_size(to_regclass('bench_fp'))), '-')
	|| ', minhash ' || coalesce(pg_size_pretty(pg_total_relation_size(to_regclass('bench_sk'))), '-')
	|| ', shingle_set ' || coalesce(pg_size_pretty(pg_total_relation_size(to_regclass('bench_ss'))), '-')"
echo

# report LABEL: the table rows of both paths and their ratios
report() {
	local label=$1 path st mem spill
	for path in memory spilled; do
		st=$(bench_stats "$label" "$path")
		[ "${st%% *}" = 0 ] && continue
		echo "$st" | awk -v label="$label" -v path="$path" '{
			printf "| %s | %s | %d | %.1f | %.1f | %.1f | %.1f | %.1f | %s | %s%s | %.1f | %.1f | %.1f | %.1f | %.2f | %s | %.1f | %d | %.1f | %.1f |\n",
				label, path, $1, $2, $3, $4, $5, $6, $7, $8, ($9 == "yes" ? "" : " (runs differ!)"),
				$10, $11, $12, $13, $14, $15, $16, $17, $18, $19 }'
	done
	mem=$(bench_stats "$label" memory)
	spill=$(bench_stats "$label" spilled)
	if [ "${mem%% *}" != 0 ] && [ "${spill%% *}" != 0 ]; then
		echo "$mem $spill" | awk -v label="$label" '{
			printf "ratio %s spilled / in memory: wall min %.2f, median %.2f; CPU min %.2f, median %.2f; results %s\n",
				label, $21 / $2, $22 / $3, $23 / $4, $24 / $5, ($8 == $27 ? "equal" : "DIFFERENT") }'
	fi
}

header() {
	echo "| call | path | runs | wall min s | wall median s | CPU min s | CPU median s | blocked median s | load (1 min) at each run | result (rows:checksum) | peak RssAnon MB | its growth MB | bound MB | VmHWM MB | temp GB | spilled | system CPU median s | minor faults median | read GB (median) | written GB (median) |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
}

# run_pair LABEL CALL AGG MEM_WORK_MEM: REPEAT runs of each path, alternated
run_pair() {
	local label=$1 call=$2 agg=$3 wm_mem=$4
	echo "## $label: $call"
	echo "in memory at work_mem = $wm_mem; spilled at work_mem = 4MB; maintenance_work_mem = 64MB in both"
	for _ in $(seq 1 "$REPEAT"); do
		bench_measure "$label" memory "$wm_mem" "$call" "$agg"
		bench_measure "$label" spilled 4MB "$call" "$agg"
	done
	header
	report "$label"
	echo
}

# work_mem for the in-memory path: rows x bytes per row x 1.25 + 256 MB, in MB
mem_for() { echo $(( $1 * $2 * 5 / 4 / 1048576 + 256 ))MB; }

PAIRS_AGG="count(*)::text || ' ' || coalesce(bit_xor(hashint8extended(id1, id2)), 0)"
CLUSTERS_AGG="count(*)::text || ' ' || coalesce(bit_xor(hashint8extended(id, cluster_id)), 0)"
for f in $FUNCTIONS; do
	case $f in
		hamming)
			run_pair hamming_clusters "hamming_clusters('SELECT id, fp FROM bench_fp', 3)" \
				"$CLUSTERS_AGG" "$(mem_for "$ROWS" 96)"
			;;
		minhash)
			base=$MH_BASE
			if [ "$base" = auto ]; then
				avail=$(awk '/MemAvailable/ {printf "%.0f", $2 * 1024}' /proc/meminfo)
				need=$(( ROWS * 672 * 5 / 4 + 3 * 1073741824 ))
				if [ "$need" -le "$avail" ]; then base=$ROWS; else
					base=$(( (avail - 3 * 1073741824) * 4 / 5 / 672 / 1000000 * 1000000 ))
				fi
				echo "MemAvailable $(( avail / 1048576 )) MB: the in-memory min-hash baseline runs on $base rows"
			fi
			if [ "$base" -ge "$ROWS" ]; then
				run_pair minhash_clusters "minhash_clusters('SELECT id, sk FROM bench_sk', 0.5)" \
					"$CLUSTERS_AGG" "$(mem_for "$ROWS" 672)"
			else
				pg_sql -q -c "DROP TABLE IF EXISTS bench_sk_base" \
					-c "CREATE UNLOGGED TABLE bench_sk_base AS SELECT * FROM bench_sk WHERE id <= $base" \
					-c "VACUUM ANALYZE bench_sk_base"
				run_pair "minhash_clusters_${base}" "minhash_clusters('SELECT id, sk FROM bench_sk_base', 0.5)" \
					"$CLUSTERS_AGG" "$(mem_for "$base" 672)"
				echo "## minhash_clusters on all $ROWS rows, spilled only (the in-memory path needs about $(( ROWS * 672 / 1048576 )) MB)"
				for _ in $(seq 1 "$REPEAT"); do
					bench_measure minhash_clusters spilled 4MB "minhash_clusters('SELECT id, sk FROM bench_sk', 0.5)" "$CLUSTERS_AGG"
				done
				header
				report minhash_clusters
				echo
			fi
			;;
		sets)
			run_pair shingleset_pairs "shingleset_pairs('SELECT id, ss FROM bench_ss', 0.5)" \
				"$PAIRS_AGG" "$(mem_for "$ROWS" 450)"
			;;
		*) echo "unknown function $f" >&2; exit 2 ;;
	esac
done
bench_footer
