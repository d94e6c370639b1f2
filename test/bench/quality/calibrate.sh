#!/usr/bin/env bash
# The calibration loop on every labelled corpus, with a simulated person.
#
#   test/bench/quality/calibrate.sh [CACHE_DIR] [--report FILE] [--only NAME,...] [--seeds N] [--keep DIR]
#
# Corpora: neardup-dev (../shared/data or /work/shared/data), the language sets data/quality/*.tsv.gz
# (lang-LANG), and CACHE_DIR/labelled/*.tsv.gz and CACHE_DIR/stress/*.tsv.gz when present (made by
# test/bench/quality/corpora/build.sh; default CACHE_DIR /work/cache/corpora).  Starts a private temporary
# PostgreSQL (scripts/lib.sh), loads each corpus's scored rows (original, near, templated) with
# ss = shingle_set(body) and sk = minhash(body), and for both columns (exact: shingle sets,
# minhash: sketches), 100 and 30 labels, seeds 1..N (default 5), in two rounds (half the pairs, then
# the rest proposed given their labels: the documented recipe) and, for 100, in one: nddup_pairs_to_judge
# proposes the pairs, the corpus truth labels them (both rows original or near of one cluster), nddup_calibrate
# returns the threshold and its estimates; the threshold is scored on every pair of the corpus,
# beside the best threshold of the same column (the ceiling) and nddup_recommend_threshold's
# (test/bench/quality/calibrate.sql), and what 100 judged pairs can estimate at the best threshold
# (cq_bound).  Prints the tables (calibrate_report.py) and, with --report,
# rewrites FILE's "<!-- generated:calibrate -->" block.  --keep DIR keeps the run's tables there (the
# report of several runs: calibrate_report.py --work DIR1 --work DIR2 ...).

source "$(dirname "${BASH_SOURCE[0]}")/../../../scripts/lib.sh"
HERE=$NDDUP_ROOT/test/bench/quality
ARGS="$*"
CACHE=/work/cache/corpora
REPORT=
ONLY=
SEEDS=5
KEEP=
while [ $# -gt 0 ]; do
	case $1 in
	--report) REPORT=$(readlink -f "$2"); shift 2 ;;
	--only) ONLY=$2; shift 2 ;;
	--seeds) SEEDS=$2; shift 2 ;;
	--keep) KEEP=$2; shift 2 ;;
	-h|--help) sed -n '2,17p' "$0"; exit 0 ;;
	-*) echo "unknown option $1" >&2; exit 2 ;;
	*) CACHE=$1; shift ;;
	esac
done

CORPORA=()
for f in "$NDDUP_ROOT/../shared/data/neardup-dev.tsv.gz" /work/shared/data/neardup-dev.tsv.gz; do
	[ -f "$f" ] && { CORPORA+=("neardup-dev=$(readlink -f "$f")"); break; }
done
for f in "$NDDUP_ROOT"/data/quality/*.tsv.gz; do
	[ -f "$f" ] && CORPORA+=("lang-$(basename "$f" .tsv.gz)=$f")
done
for d in labelled stress; do
	for f in "$CACHE"/$d/*.tsv.gz; do
		[ -f "$f" ] && CORPORA+=("$(basename "$f" .tsv.gz)=$(readlink -f "$f")")
	done
done

echo "== start $(date -u +%FT%TZ); uptime: $(uptime)"
T_START=$(date +%s)
ensure_packages
build_and_install
make_workdir
start_instance
pg_sql -c "ALTER SYSTEM SET work_mem = '256MB'" -c "ALTER SYSTEM SET jit = off" -c "SELECT pg_reload_conf()" >/dev/null
pg_sql -c "CREATE EXTENSION nddup"
pg_sql -f "$HERE/calibrate.sql"

for entry in "${CORPORA[@]}"; do
	name=${entry%%=*}
	file=${entry#*=}
	[ -z "$ONLY" ] || [[ ",$ONLY," == *",$name,"* ]] || continue
	echo "== $name ($(date -u +%T), load: $(cut -d' ' -f1-3 /proc/loadavg))"
	pg_sql -c "SET client_min_messages = error" -c "SELECT cq_load('$name', '$file')" -c "SELECT cq_truth('$name')" \
		-c "SELECT cq_reference('$name', m) FROM unnest(ARRAY['exact', 'minhash']) m" >/dev/null
	pg_sql -c "SET client_min_messages = error" \
		-c "SELECT cq_simulate('$name', m, n, s, r) FROM unnest(ARRAY['exact', 'minhash']) m,
			unnest(ARRAY[100, 30]) n, generate_series(1, $SEEDS) s, unnest(ARRAY[2, 1]) r
			WHERE r = 2 OR n = 100" >/dev/null
done

T_END=$(date +%s)
pg_sql -A -F $'\t' -P footer=off -c "SELECT * FROM cq_result ORDER BY 1, 2, 3, 4" >"$WORKDIR/cq_result.tsv"
pg_sql -A -F $'\t' -P footer=off -c "SELECT r.*, q.docs, q.npos FROM cq_ref r JOIN cq_npos q USING (ds) ORDER BY 1, 2" \
	>"$WORKDIR/cq_ref.tsv"
pg_sql -A -F $'\t' -P footer=off -c "SELECT * FROM cq_bound(100) ORDER BY 1, 2" >"$WORKDIR/cq_bound.tsv"
echo "== end $(date -u +%FT%TZ), $((T_END - T_START)) s; uptime: $(uptime)"
if [ -n "$KEEP" ]; then
	mkdir -p "$KEEP" && cp "$WORKDIR"/cq_result.tsv "$WORKDIR"/cq_ref.tsv "$WORKDIR"/cq_bound.tsv "$KEEP"/
	printf '%s\t%s\t%s\n' "test/bench/quality/calibrate.sh $ARGS" $((T_END - T_START)) "$(cut -d' ' -f1-3 /proc/loadavg)" \
		>"$KEEP/run.txt"
fi
python3 "$HERE/calibrate_report.py" --work "$WORKDIR" --command "test/bench/quality/calibrate.sh $ARGS" \
	--seconds $((T_END - T_START)) --load "$(cut -d' ' -f1-3 /proc/loadavg)" ${REPORT:+--report "$REPORT"}
