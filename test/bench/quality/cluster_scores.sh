#!/usr/bin/env bash
# Cluster-level scores of shingleset_clusters and minhash_clusters at 0.3, mode greedy (the
# default) and mode components, on every labelled corpus.
#
#   [WORK_MEM=256MB] test/bench/quality/cluster_scores.sh [CACHE_DIR]
#
# The corpora: CACHE_DIR/labelled/*.tsv.gz (made by corpora/build.sh; default
# /work/cache/corpora), neardup-dev (../shared/data or /work/shared/data) and data/quality/*.tsv.gz.
# Starts a private temporary PostgreSQL (scripts/lib.sh; work_mem $WORK_MEM, default 256MB as in
# corpora/run_quality.sh, jit off), loads each
# corpus with shingle_set(body) and minhash(body), runs both cluster functions in both modes
# (cluster_scores.sql) and scores them against the labels (cluster_scores.py): ARI and pairwise
# P/R/F1 over the original/near/templated rows (templated rows are singletons), the largest cluster
# over all rows, and the time of each call.

source "$(dirname "${BASH_SOURCE[0]}")/../../../scripts/lib.sh"
HERE=$NDDUP_ROOT/test/bench/quality
CACHE=$(readlink -f "${1:-/work/cache/corpora}")
WORK_MEM=${WORK_MEM:-256MB}
CORPORA=()
for c in man man-d30 html html-d30 ko ru ja tmpl-ja tmpl-en; do
	[ -f "$CACHE/labelled/$c.tsv.gz" ] && CORPORA+=("$c=$CACHE/labelled/$c.tsv.gz")
done
for f in "$NDDUP_ROOT/../shared/data/neardup-dev.tsv.gz" /work/shared/data/neardup-dev.tsv.gz; do
	[ -f "$f" ] && { CORPORA+=("neardup-dev=$(readlink -f "$f")"); break; }
done
for f in "$NDDUP_ROOT"/data/quality/*.tsv.gz; do
	n=$(basename "$f" .tsv.gz)
	CORPORA+=("q-${n//_/-}=$f")
done

echo "== start $(date -u +%FT%TZ); load: $(cut -d' ' -f1-3 /proc/loadavg)"
ensure_packages
build_and_install
make_workdir
start_instance
pg_sql -c "ALTER SYSTEM SET work_mem = '$WORK_MEM'" -c "ALTER SYSTEM SET jit = off" -c "SELECT pg_reload_conf()" \
	-c "CREATE EXTENSION nddup" >/dev/null
pg_sql -f "$HERE/cluster_scores.sql"
for entry in "${CORPORA[@]}"; do
	name=${entry%%=*}
	file=${entry#*=}
	tbl=${name//-/_}
	echo "== $name ($(date -u +%T), load: $(cut -d' ' -f1-3 /proc/loadavg))"
	pg_sql -c "SET client_min_messages = warning" -c "SELECT cs_load('$tbl', '$file')" -c "SELECT cs_run('$tbl')" >/dev/null
done
for t in cs_truth cs_pred cs_time; do
	pg_sql -c "\\copy $t TO '$WORKDIR/$t.tsv'"
done
echo "== end $(date -u +%FT%TZ); load: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 "$HERE/cluster_scores.py" "$WORKDIR"
