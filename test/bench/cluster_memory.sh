#!/usr/bin/env bash
# The memory per input row of hamming_clusters through temporary files
# (work_mem 4MB), greedy and components modes, with and without an order
# key, ids ascending and shuffled: the growth of the backend's VmHWM during
# one call in a fresh session, minus that of hamming_pairs over the same
# rows in the same order (its input and pair stage), divided by the rows.
# Rows: N fingerprints in groups of 4 near-copies (1 bit apart from the
# group's first), ids 1..N, order key (id * 7919) mod 1000003.
#
# Usage: test/bench/cluster_memory.sh [--rows 3000000] [--no-install]
set -euo pipefail

source "$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/scripts/lib.sh"

N=3000000
INSTALL=1
while [ $# -gt 0 ]; do
	case "$1" in
		--rows) N=$2; shift ;;
		--no-install) INSTALL=0 ;;
		*) echo "unknown option: $1" >&2; exit 2 ;;
	esac
	shift
done

[ "$INSTALL" = 1 ] && build_and_install
make_workdir
start_instance
echo "maintenance_work_mem = 1GB" >>"$WORKDIR/data/postgresql.conf"
as_pg pg_ctl -D "$WORKDIR/data" -w restart -l "$WORKDIR/server.log" >/dev/null
echo "== commit: $(git -C "$NDDUP_ROOT" log -1 --format='%h' 2>/dev/null || echo unknown); $N rows; load average $(cut -d' ' -f1-3 /proc/loadavg)"
pg_sql -c "CREATE EXTENSION nddup" \
	-c "CREATE TABLE t AS SELECT g::bigint AS id,
	        (hashint8extended(g / 4, 1) # CASE WHEN g % 4 = 0 THEN 0 ELSE 1::bigint << (g % 61) END)::simhash64 AS fp,
	        (g::bigint * 7919) % 1000003 AS ord
	    FROM generate_series(1, $N) g" \
	-c "VACUUM ANALYZE t"

# growth LABEL CALL: VmHWM growth (kB) of the call in a fresh session
growth() {
	pg_sql -At <<SQL | tr '\n' ' ' | awk '{print $4 - $2, $3}'
SET work_mem = '4MB';
SET client_min_messages = warning;
SELECT pg_backend_pid() AS pid \gset
SELECT count(*) FROM hamming_pairs('SELECT 1::bigint, 0::bigint::simhash64', 3);
\setenv P :pid
\! awk '/VmHWM/ {print \$2}' /proc/\$P/status
SELECT count(*) FROM $1;
\! awk '/VmHWM/ {print \$2}' /proc/\$P/status
SQL
}

printf '   %-34s %14s %14s %12s\n' "input" "VmHWM growth" "minus pairs" "bytes/row"
for order in "" " ORDER BY md5(id::text)"; do
	read -r base _ < <(growth "hamming_pairs('SELECT id, fp FROM t$order', 3)")
	for cols in "id, fp" "id, fp, ord"; do
		for mode in greedy components; do
			read -r kb rows < <(growth "hamming_clusters('SELECT $cols FROM t$order', 3, singletons => false, mode => '$mode')")
			printf '   %-34s %11s kB %11s kB %12.2f\n' "$mode ($cols)${order:+, shuffled}" "$kb" "$((kb - base))" \
				"$(echo "($kb - $base) * 1024 / $N" | bc -l)"
		done
	done
	printf '   %-34s %11s kB\n' "hamming_pairs (id, fp)${order:+, shuffled}" "$base"
done
