#!/usr/bin/env bash
# Fingerprinting throughput from SQL, beside md5() over the same rows in the
# same run.  Usage:
#   RUNS=5 test/bench/throughput.sh [DATA_DIR]     (default ../shared/data)
# DATA_DIR holds debian-descriptions-en.tsv.gz and pydocs-sections.tsv.gz.
# One backend, no parallel workers: figures are per core.  Prints a Markdown
# table: the best elapsed time and the best CPU time of the backend over
# RUNS runs (after a warm-up), MB/s by CPU time and the ratio to md5.

source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"
DATA=$(cd "${1:-$NDDUP_ROOT/../shared/data}" && pwd)
RUNS=${RUNS:-5}

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
VACUUM ANALYZE debian, pydocs;
SQL

# Sizes of the corpora.
declare -A DOCS BYTES
for t in debian pydocs; do
	read -r DOCS[$t] BYTES[$t] < <(pg_sql -At -F ' ' -c "SELECT count(*), sum(octet_length(body)) FROM $t")
done

# Time SELECT count(EXPR) FROM TABLE: a warm-up, then RUNS runs, each a
# statement of its own; log_statement_stats reports the backend's CPU time
# (user + system) and the elapsed time of each.  Prints the best of each,
# in ms.  CPU time leaves out the time the backend waits for a core, which
# on a shared machine is most of the elapsed time.
measure() {
	local q="SELECT count($2) FROM $1;"
	local script="SET log_statement_stats = on; SET client_min_messages = log; SET max_parallel_workers_per_gather = 0; SET jit = off;"
	for _ in $(seq 0 "$RUNS"); do script+=$'\n'"$q"; done
	pg_sql -o /dev/null <<<"$script" 2>&1 |
		sed -n 's/^!\t\([0-9.]*\) s user, \([0-9.]*\) s system, \([0-9.]*\) s elapsed$/\1 \2 \3/p' |
		tail -n "$RUNS" |
		awk 'NR == 1 || $1 + $2 < cpu { cpu = $1 + $2 }
			 NR == 1 || $3 < el { el = $3 }
			 END { printf "%.1f %.1f\n", el * 1000, cpu * 1000 }'
}

FNS=("md5 (baseline)|md5(body)"
	"simhash (defaults)|simhash(body)"
	"simhash word 1 tf|simhash(body, 1)"
	"simhash char 5 tf|simhash(body, 5, 'char')"
	"simhash word 3 set|simhash(body, 3, 'word', 'set')"
	"normalize_text|normalize_text(body)")

printf '| corpus | docs | MB | function | best ms | best CPU ms | MB/s (CPU) | speed vs md5 (CPU) |\n'
printf '|---|---|---|---|---|---|---|---|\n'
for t in debian pydocs; do
	name=debian-descriptions-en
	[ "$t" = pydocs ] && name=pydocs-sections
	base_cpu=
	for f in "${FNS[@]}"; do
		read -r el cpu < <(measure "$t" "${f#*|}")
		[ -n "$base_cpu" ] || base_cpu=$cpu
		awk -v n="$name" -v d="${DOCS[$t]}" -v b="${BYTES[$t]}" -v f="${f%%|*}" \
			-v el="$el" -v cpu="$cpu" -v base="$base_cpu" 'BEGIN {
			printf "| %s | %d | %.1f | %s | %.1f | %.1f | %.1f | %.2f |\n",
				n, d, b / 1e6, f, el, cpu, b / 1e6 / (cpu / 1000), base / cpu }'
	done
done
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), PostgreSQL $(pg_config --version | cut -d' ' -f2), load average $(cut -d' ' -f1-3 /proc/loadavg)"
