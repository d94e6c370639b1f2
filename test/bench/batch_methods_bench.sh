#!/usr/bin/env bash
# The batch functions on min-hash sketches beside the exact ones on shingle
# sets (docs/batch.md, docs/reports/bench-batch-methods.md): pairs, join and
# clusters at resemblance thresholds 0.3 and 0.5 on the 63,956 Debian package
# descriptions (template-heavy text: "This package contains ...", 60
# shingles a description on average), in one run, the methods alternated,
# with the ratio of each min-hash call to the exact set call of the same
# function and threshold.  The join is the table's even ids against its odd
# ones, also with min-hash verified against the shingle sets (verify => t).
# The clusters are the functions' default mode.
#
# --bands adds, for pairs, min-hash through the fixed bands of the exact
# default layout (bands => D + 1, rows => floor(k / (D + 1)), given
# explicitly, which is what the default ran before the plan was chosen by
# cost), one run per threshold: the baseline of the prefix filter.
#
# Timed calls: "SELECT count(*) FROM ..." inside the backend
# (test/bench/bench_memory.sql), each in a fresh session, min and median of
# --repeat runs, at work_mem 1GB (the in-memory paths; --work-mem to
# change).  The plan each min-hash call took is quoted from its progress
# output (nddup.progress = on).
#
# Data: --data DIR holding debian-descriptions-en.tsv.gz (default:
# ../shared/data beside the checkout, or two levels up for a worktree).
# Runs its own PostgreSQL instance; not part of CI.
#
# usage: test/bench/batch_methods_bench.sh [--thresholds "0.3 0.5"]
#            [--functions "pairs join clusters"] [--repeat N] [--data DIR]
#            [--data-dir DIR] [--work-mem SIZE] [--bands] [--no-build]

set -euo pipefail
source "$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/scripts/lib.sh"
BENCH_DIR=$NDDUP_ROOT/test/bench
set -o errtrace
trap 'echo "batch_methods_bench.sh: exit status $? at line $LINENO: $BASH_COMMAND" >&2' ERR

THRESHOLDS="0.3 0.5"
FUNCTIONS="pairs join clusters"
REPEAT=3
DATA=
DATA_DIR=
WORK_MEM=1GB
BUILD=1
BANDS=0
while [ $# -gt 0 ]; do
	case "$1" in
		--thresholds) THRESHOLDS=$2; shift ;;
		--functions) FUNCTIONS=$2; shift ;;
		--repeat) REPEAT=$2; shift ;;
		--data) DATA=$2; shift ;;
		--data-dir) DATA_DIR=$2; shift ;;
		--work-mem) WORK_MEM=$2; shift ;;
		--bands) BANDS=1 ;;
		--no-build) BUILD=0 ;;
		*) echo "unknown option $1" >&2; exit 2 ;;
	esac
	shift
done
for d in "$NDDUP_ROOT/../shared" "$NDDUP_ROOT/../../shared"; do
	[ -z "$DATA" ] && [ -f "$d/data/debian-descriptions-en.tsv.gz" ] && DATA=$(cd "$d/data" && pwd)
done
DESCRIPTIONS=${DATA:+$DATA/debian-descriptions-en.tsv.gz}
if [ -z "$DESCRIPTIONS" ] || [ ! -f "$DESCRIPTIONS" ]; then
	echo "debian-descriptions-en.tsv.gz not found (give --data DIR)" >&2
	exit 2
fi

[ $BUILD = 1 ] && build_and_install
make_workdir
source "$BENCH_DIR/bench_lib.sh"
bench_start_instance "$DATA_DIR" 1GB
q() { pg_sql -At "$@"; }

echo "# nddup batch functions: min-hash sketches beside exact shingle sets, $(date -u '+%Y-%m-%d %H:%M UTC')"
bench_header
echo "thresholds: $THRESHOLDS; functions: $FUNCTIONS; repeat $REPEAT; work_mem $WORK_MEM; data $DESCRIPTIONS"
echo

# the data (kept in --data-dir, made again when the extension script or
# the file changed)
pg_sql -q -c "SET client_min_messages = warning" -c "CREATE TABLE IF NOT EXISTS bench_meta (k text PRIMARY KEY, v text)"
ext_script=$(ls "${NDDUP_DESTDIR:-}$(pg_config --sharedir)"/extension/nddup--*.sql 2>/dev/null | sort -V | tail -1)
stamp="$(md5sum <"$ext_script" | cut -c1-12) $(md5sum <"$DESCRIPTIONS" | cut -c1-12)"
if [ "$(q -c "SELECT v FROM bench_meta WHERE k = 'descriptions'")" != "$stamp" ] ||
	[ "$(q -c "SELECT to_regclass('descriptions') IS NOT NULL")" != t ]; then
	echo "loading the descriptions"
	pg_sql -q <<SQL
SET client_min_messages = warning;
DROP TABLE IF EXISTS descriptions;
DROP EXTENSION IF EXISTS nddup CASCADE;
CREATE EXTENSION nddup;
CREATE TEMP TABLE src (id int, package text, body text);
COPY src FROM PROGRAM 'zcat $DESCRIPTIONS | tail -n +2';
CREATE UNLOGGED TABLE descriptions AS
SELECT id::bigint AS id, body, shingle_set(body) AS ss, minhash(body) AS sk FROM src ORDER BY id;
VACUUM ANALYZE descriptions;
INSERT INTO bench_meta VALUES ('descriptions', '$stamp') ON CONFLICT (k) DO UPDATE SET v = excluded.v;
SQL
fi
pg_sql -q -f "$BENCH_DIR/bench_memory.sql"
echo "$(q -c "SELECT count(*) FROM descriptions") descriptions, $(q -c "SELECT round(avg(cardinality(shingleset_to_array(ss))), 1) FROM descriptions") shingles a set on average; sketches: $(q -c "SELECT split_part(sk::text, ':', 1) FROM descriptions LIMIT 1")"
echo

T=descriptions
# half COLUMNS PARITY: the query of the even (0) or odd (1) ids
half() { echo "SELECT id, $1 FROM $T WHERE id % 2 = $2"; }
# call FUNCTION METHOD THRESHOLD: the SQL of one call
call() {
	local f=$1 m=$2 t=$3 col fn
	case $m in sets) col=ss; fn=shingleset ;; *) col=sk; fn=minhash ;; esac
	if [ "$m" = bands ]; then
		# the exact default layout, given: E = ceil(t k) at 32 bits, D + 1 bands
		local k e b
		k=$(q -c "SELECT (regexp_match(sk::text, 'k=([0-9]+)'))[1] FROM $T LIMIT 1")
		e=$(awk -v t="$t" -v k="$k" 'BEGIN { e = int(t * k); if (e < t * k) e++; print e }')
		b=$((k - e + 1))
		echo "minhash_pairs('SELECT id, sk FROM $T', $t, $b, $((k / b)))"
		return
	fi
	case $f in
		pairs) echo "${fn}_pairs('SELECT id, $col FROM $T', $t)" ;;
		clusters) echo "${fn}_clusters('SELECT id, $col FROM $T', $t)" ;;
		join)
			if [ "$m" = verified ]; then
				echo "minhash_join('$(half "sk, ss" 0)', '$(half "sk, ss" 1)', $t, verify => $t)"
			else
				echo "${fn}_join('$(half $col 0)', '$(half $col 1)', $t)"
			fi ;;
	esac
}
# methods FUNCTION: the methods timed for it
methods() { if [ "$1" = join ]; then echo "sets minhash verified"; else echo "sets minhash"; fi; }
field() { bench_stats "$1" "$2" | cut -d' ' -f"$3"; }

declare -A PLAN
for t in $THRESHOLDS; do
	for f in $FUNCTIONS; do
		if [ "$BANDS" = 1 ] && [ "$f" = pairs ]; then
			bench_measure "$f-$t" bands "$WORK_MEM" "$(call "$f" bands "$t")" "count(*)::text"
		fi
		for _ in $(seq 1 "$REPEAT"); do
			for m in $(methods "$f"); do
				bench_measure "$f-$t" "$m" "$WORK_MEM" "$(call "$f" "$m" "$t")" "count(*)::text"
				if [ "$m" != sets ]; then
					log=$(ls -t "$WORKDIR"/log.* | head -1)
					PLAN[$f-$t-$m]=$(grep -o 'plan: [^(]*' "$log" | head -1 | sed 's/ *$//' || true)
				fi
			done
		done
	done
done

echo "| function | threshold | exact sets: rows, wall min / median s (CPU min s) | min-hash: rows, wall min / median s (CPU min s) | min-hash ÷ sets: wall min, median (CPU min) | min-hash plan | load (1 min) at the runs |"
echo "|---|---|---|---|---|---|---|"
for t in $THRESHOLDS; do
	for f in $FUNCTIONS; do
		for m in $(methods "$f") $( [ "$BANDS" = 1 ] && [ "$f" = pairs ] && echo bands); do
			[ "$m" = sets ] && continue
			l="$f-$t"
			printf '| %s%s | %s | %s, %s / %s (%s) | %s, %s / %s (%s) | %.2f, %.2f (%.2f) | %s | sets %s; min-hash %s |\n' \
				"$f" "$(case $m in verified) echo ", min-hash verified" ;; bands) echo ", min-hash through the fixed bands" ;; esac)" "$t" \
				"$(field "$l" sets 8)" "$(field "$l" sets 2)" "$(field "$l" sets 3)" "$(field "$l" sets 4)" \
				"$(field "$l" "$m" 8)" "$(field "$l" "$m" 2)" "$(field "$l" "$m" 3)" "$(field "$l" "$m" 4)" \
				"$(echo "$(field "$l" "$m" 2) / $(field "$l" sets 2)" | bc -l)" \
				"$(echo "$(field "$l" "$m" 3) / $(field "$l" sets 3)" | bc -l)" \
				"$(echo "$(field "$l" "$m" 4) / $(field "$l" sets 4)" | bc -l)" \
				"${PLAN[$f-$t-$m]:-}" "$(field "$l" sets 7)" "$(field "$l" "$m" 7)"
		done
	done
done
echo
echo "(rows: result rows; clusters: one row per description. Min-hash finds the pairs whose estimate reaches the threshold, the sets those whose exact Jaccard does: the counts differ.)"
echo
bench_footer
