#!/usr/bin/env bash
# Benchmark of simhash64_spgist_ops: build time, index size, nearest-10 and
# radius 3/6 latency against the sequential scan of the same run.
#
# Usage: test/bench/knn_bench.sh [--rows N] [--10m] [--queries N] [--seq-queries N]
#
# Runs a private temporary instance as the postgres user (or the caller when
# not root): initdb in a temporary directory, a free port in 21000-21999,
# the socket in that directory.  Needs the extension built and installed
# (make && make install).  Output: the tables printed by knn_bench.sql.
set -euo pipefail

ROWS=1000000
NQ=200
NQ_SEQ=50
while [ $# -gt 0 ]; do
	case "$1" in
		--rows) ROWS=$2; shift 2 ;;
		--10m) ROWS=10000000; shift ;;
		--queries) NQ=$2; shift 2 ;;
		--seq-queries) NQ_SEQ=$2; shift 2 ;;
		*) echo "usage: $0 [--rows N] [--10m] [--queries N] [--seq-queries N]" >&2; exit 2 ;;
	esac
done
SOURCES=$((ROWS / 100))			# 10 planted variants per source

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
PG_USER=$(id -un)
[ "$(id -u)" = 0 ] && PG_USER=postgres

# Run a command as PG_USER.
as_pg() {
	if [ "$(id -un)" = "$PG_USER" ]; then "$@"; else runuser -u "$PG_USER" -- "$@"; fi
}

# A free TCP port in 21000-21999.
free_port() {
	python3 - <<'PY'
import random, socket
for p in random.sample(range(21000, 22000), 1000):
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", p))
    except OSError:
        continue
    finally:
        s.close()
    print(p)
    break
PY
}

WORKDIR=$(mktemp -d /tmp/nddup-knn.XXXXXX)
chmod 755 "$WORKDIR"
[ "$(id -u)" = 0 ] && chown "$PG_USER" "$WORKDIR"
PORT=$(free_port)

# Stop the instance and remove its directory.
cleanup() {
	as_pg "$PG_BIN/pg_ctl" -D "$WORKDIR/data" -m fast -w stop >/dev/null 2>&1 || true
	rm -rf "$WORKDIR"
}
trap cleanup EXIT

as_pg "$PG_BIN/initdb" -D "$WORKDIR/data" -U "$PG_USER" -A trust --locale=C.UTF-8 >/dev/null
cat >>"$WORKDIR/data/postgresql.conf" <<CONF
listen_addresses = ''
port = $PORT
unix_socket_directories = '$WORKDIR'
shared_buffers = 1GB
work_mem = 64MB
maintenance_work_mem = 1GB
max_wal_size = 8GB
fsync = off
synchronous_commit = off
full_page_writes = off
autovacuum = off
CONF
as_pg "$PG_BIN/pg_ctl" -D "$WORKDIR/data" -l "$WORKDIR/server.log" -w start >/dev/null

echo "== nddup SP-GiST kNN benchmark: $ROWS rows ($SOURCES cluster sources), $NQ queries per set, $NQ_SEQ also as sequential scans"
echo "== $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg)"
as_pg "$PG_BIN/psql" -X -q -h "$WORKDIR" -p "$PORT" -d postgres \
	-v rows="$ROWS" -v sources="$SOURCES" -v nq="$NQ" -v nq_seq="$NQ_SEQ" \
	-f "$HERE/knn_bench.sql"
echo "== load after the run: $(cut -d' ' -f1-3 /proc/loadavg)"
