#!/usr/bin/env bash
# Random differential test of the set-returning functions and the indexes
# (test/random/srf_check.py) against a private temporary instance.
#   test/random/run.sh [--seconds N | --iterations N] [--seed S]
# BUILD=0 skips building and installing (scripts/test.sh has done it).
# The SQL of a failing iteration is kept as /tmp/nddup-random-failed-N.sql
# (replay it with psql in a database with the extension); exits non-zero on
# any failure.

source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"

ensure_packages
[ "${BUILD:-1}" = 1 ] && build_and_install
make_workdir
start_instance
pg_sql -q -c "CREATE EXTENSION nddup" -c "ALTER SYSTEM SET jit = off" -c "SELECT pg_reload_conf()" >/dev/null
mkdir -p "$WORKDIR/failed"
[ "$(id -u)" = 0 ] && chown "$PG_USER" "$WORKDIR/failed"
echo "== random differential test: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u '+%F %H:%M UTC')"
as_pg env PGHOST="$PGHOST" PGPORT="$PGPORT" PGUSER="$PGUSER" PGDATABASE="$PGDATABASE" \
	python3 "$NDDUP_ROOT/test/random/srf_check.py" --out "$WORKDIR/failed" "$@"
rc=$?
if [ $rc != 0 ]; then
	for f in "$WORKDIR"/failed/*.sql; do
		[ -e "$f" ] && cp "$f" "/tmp/nddup-random-$(basename "$f")" && echo "kept /tmp/nddup-random-$(basename "$f")"
	done
	grep -E 'TRAP|terminated by signal|PANIC' "$WORKDIR/server.log" | head -5
fi
exit $rc
