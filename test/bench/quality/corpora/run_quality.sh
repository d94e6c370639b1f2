#!/usr/bin/env bash
# Quality of the shipped defaults and of nddup_recommend_threshold() on every labelled corpus.
#
#   test/bench/quality/corpora/run_quality.sh [CACHE_DIR] [--report FILE] [--only NAME,...]
#
# CACHE_DIR (default /work/cache/corpora) holds labelled/*.tsv.gz, made by build.sh in this
# directory; neardup-dev comes from ../shared/data (or /work/shared/data).  Starts a private temporary PostgreSQL
# (scripts/lib.sh), loads each corpus with its default sketch minhash(body) and fingerprint
# simhash(body), and computes through nddup in SQL (quality.sql): min-hash pairs >= 0.1 scored at
# every threshold, the recommended threshold, exact word 3-shingle Jaccard (every min-hash
# candidate >= 0.08 verified against the text) at every threshold, simhash at radius 12 without
# and with verification (hamming_pairs(..., verify => 0.3)) and the recommended radius.  Prints the
# tables (report_quality.py) and, with --report, rewrites its "<!-- generated:corpora -->" block.

source "$(dirname "${BASH_SOURCE[0]}")/../../../../scripts/lib.sh"
HERE=$NDDUP_ROOT/test/bench/quality/corpora
ARGS="$*"
CACHE=/work/cache/corpora
REPORT=
ONLY=
while [ $# -gt 0 ]; do
	case $1 in
	--report) REPORT=$(readlink -f "$2"); shift 2 ;;
	--only) ONLY=$2; shift 2 ;;
	-h|--help) sed -n '2,13p' "$0"; exit 0 ;;
	-*) echo "unknown option $1" >&2; exit 2 ;;
	*) CACHE=$1; shift ;;
	esac
done
CACHE=$(readlink -f "$CACHE")
NEARDUP=
for f in "$NDDUP_ROOT/../shared/data/neardup-dev.tsv.gz" /work/shared/data/neardup-dev.tsv.gz; do
	[ -f "$f" ] && { NEARDUP=$(readlink -f "$f"); break; }
done
[ -d "$CACHE/labelled" ] || { echo "no $CACHE/labelled: run test/bench/quality/corpora/build.sh $CACHE first" >&2; exit 2; }

echo "== start $(date -u +%FT%TZ); uptime: $(uptime)"
T_START=$(date +%s)
ensure_packages
build_and_install
make_workdir
start_instance
pg_sql -c "ALTER SYSTEM SET work_mem = '256MB'" -c "ALTER SYSTEM SET jit = off" -c "SELECT pg_reload_conf()" >/dev/null
pg_sql -c "CREATE EXTENSION nddup"
pg_sql -f "$HERE/quality.sql"

# the corpora, in the report's order: name and file
CORPORA=()
for c in man man-d30 html html-d30 ko ru ja tmpl-ja tmpl-en; do
	[ -f "$CACHE/labelled/$c.tsv.gz" ] && CORPORA+=("$c=$CACHE/labelled/$c.tsv.gz")
done
[ -n "$NEARDUP" ] && [ -f "$NEARDUP" ] && CORPORA+=("neardup-dev=$NEARDUP")
for entry in "${CORPORA[@]}"; do
	name=${entry%%=*}
	file=${entry#*=}
	[ -z "$ONLY" ] || [[ ",$ONLY," == *",$name,"* ]] || continue
	echo "== $name ($(date -u +%T), load: $(cut -d' ' -f1-3 /proc/loadavg))"
	pg_sql -c "SET client_min_messages = error" -c "SELECT q_load('$name', '$file')" -c "SELECT q_corpus('$name')" \
		-c "SELECT q_corpus_filtered('$name')" >/dev/null
done

T_END=$(date +%s)
pg_sql -A -F $'\t' -P footer=off -c "SELECT * FROM qresult ORDER BY 1, 2, 3" >"$WORKDIR/qresult.tsv"
pg_sql -A -F $'\t' -P footer=off -c "SELECT * FROM qrecommend ORDER BY 1, 2" >"$WORKDIR/qrecommend.tsv"
pg_sql -A -F $'\t' -P footer=off -c "SELECT ds, count(*) FILTER (WHERE kind IN ('original', 'near', 'templated')) AS scored,
	count(*) AS docs FROM qcorpora GROUP BY ds ORDER BY ds" >"$WORKDIR/qsizes.tsv"
echo "== end $(date -u +%FT%TZ), $((T_END - T_START)) s; uptime: $(uptime)"
python3 "$HERE/report_quality.py" --work "$WORKDIR" --command "test/bench/quality/corpora/run_quality.sh $ARGS" \
	--seconds $((T_END - T_START)) --load "$(cut -d' ' -f1-3 /proc/loadavg)" ${REPORT:+--report "$REPORT"}
