#!/usr/bin/env bash
# Recall of the README's insert-time recipe (nddup_dedup_trigger('source=body',
# 'method=shingleset', 'threshold=0.3') on gin ((shingle_set(body))
# shingleset_ops)) beside exact word 3-shingle Jaccard at the same threshold,
# on every labelled corpus given (issue 25): test/bench/quality/trigger_recall.sql
# per corpus, in a private temporary PostgreSQL instance.  Prints one table
# row per corpus.
#
#   test/bench/quality/trigger_recall.sh [--no-install] CORPUS.tsv.gz...
#
# Each corpus: a gzip TSV with a header (doc_id, cluster_id, kind, edits,
# text), as gen_neardup.py makes (data/quality/*.tsv.gz,
# ../shared/data/neardup-dev.tsv.gz, the corpora of
# test/bench/quality/corpora/build.sh).
set -euo pipefail

source "$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)/scripts/lib.sh"
HERE=$NDDUP_ROOT/test/bench/quality

INSTALL=1
FILES=()
while [ $# -gt 0 ]; do
	case $1 in
		--no-install) INSTALL=0 ;;
		-*) echo "unknown option: $1" >&2; exit 2 ;;
		*) FILES+=("$(readlink -f "$1")") ;;
	esac
	shift
done
[ ${#FILES[@]} -gt 0 ] || { echo "usage: $0 [--no-install] CORPUS.tsv.gz..." >&2; exit 2; }

[ "$INSTALL" = 1 ] && build_and_install
make_workdir
start_instance
cat >>"$WORKDIR/data/postgresql.conf" <<CONF
shared_buffers = 512MB
work_mem = 256MB
synchronous_commit = off
autovacuum = off
max_parallel_workers_per_gather = 0
max_wal_size = 4GB
jit = off
CONF
as_pg pg_ctl -D "$WORKDIR/data" -l "$WORKDIR/server.log" -w restart >/dev/null
export PGOPTIONS='-c client_min_messages=warning'
cp "$HERE/trigger_recall.sql" "$WORKDIR/" && chmod 644 "$WORKDIR/trigger_recall.sql"

echo "== machine: $(nproc) cores; commit $(git -C "$NDDUP_ROOT" log -1 --format=%h 2>/dev/null || echo unknown)"
echo "== load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
pg_sql -c "CREATE EXTENSION nddup" \
	-c "CREATE TABLE stage (doc_id integer, cluster_id integer, kind text, edits text, body text)" \
	-c "CREATE TABLE tr_results (ds text, nrows bigint, nscored bigint, npos bigint, trigger_ms float8,
		marked bigint, exact_pairs bigint, exact_tp bigint, trig_pairs bigint, trig_tp bigint,
		greedy_tp bigint, mismatches bigint, below bigint)" >/dev/null
for f in "${FILES[@]}"; do
	ds=$(basename "$f" .tsv.gz)
	# the language sets of data/quality, as test/bench/quality/run.sh names them
	case $f in */data/quality/*) ds=lang-$ds ;; esac
	pg_sql -c "TRUNCATE stage" -c "\\copy stage FROM PROGRAM 'zcat $f | tail -n +2'" -c "ANALYZE stage" >/dev/null
	pg_sql -v ds="$ds" -f "$WORKDIR/trigger_recall.sql" >/dev/null
	pg_sql -At -c "SELECT format('   %s: %s rows, trigger %s s', ds, nrows, round(trigger_ms::numeric / 1000, 1)) FROM tr_results WHERE ds = '$ds'"
done
echo "== load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| corpus | rows (scored) | positive pairs | trigger s | rows marked | exact J ≥ 0.3: recall (P) | trigger: recall (P) | trigger − exact | the same rule from the exact pairs: recall | rows whose duplicate_of differs from it | marked rows below 0.3 |"
echo "|---|---|---:|---:|---:|---|---|---:|---:|---:|---:|"
pg_sql -At -c "SELECT format('| %s | %s (%s) | %s | %s | %s | %s (%s) | %s (%s) | %s | %s | %s | %s |',
	ds, nrows, nscored, npos, round(trigger_ms::numeric / 1000, 1), marked,
	round(exact_tp::numeric / npos, 3), round(exact_tp::numeric / nullif(exact_pairs, 0), 3),
	round(trig_tp::numeric / npos, 3), round(trig_tp::numeric / nullif(trig_pairs, 0), 3),
	CASE WHEN trig_tp >= exact_tp THEN '+' ELSE '' END || round((trig_tp - exact_tp)::numeric / npos, 3),
	round(greedy_tp::numeric / npos, 3), mismatches, below)
	FROM tr_results ORDER BY ds"
