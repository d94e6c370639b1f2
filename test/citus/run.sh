#!/usr/bin/env bash
# nddup on Citus: starts a coordinator and two workers on loopback, runs
# test/citus/sql/*.sql on the coordinator (distributed tables against the
# same tables on one node: radius and nearest-n queries, batch pairs, joins
# and clusters, aggregates, the insert-time check, deletes of originals) and
# compares their output with test/citus/expected/*.out; then 8 pgbench
# clients insert near-duplicates through the coordinator, with
# nddup_original(), with nddup_original_routed() and with a trigger scoped
# by the distribution column, and test/citus/check_concurrency.sql checks
# that no near-duplicate was missed and no group has two originals.
#
#   NDDUP_CITUS_DESTDIR=/path/to/citus-destdir test/citus/run.sh
#
# NDDUP_CITUS_DESTDIR is a DESTDIR into which a Citus build for this
# PostgreSQL major was installed (make install DESTDIR=...), or "system"
# when Citus is installed in PostgreSQL's own directories.  Unset (or without
# citus.so): the suite says so in one line and exits 0.  Citus is never
# fetched or built here.  BUILD=0 skips building nddup (scripts/test.sh has
# done it); KEEP=1 leaves the cluster running (its directory is printed).

source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"
set +e

source "$NDDUP_ROOT/test/citus/cluster.sh"
citus_find || exit 0

CITUS_ROOT=$NDDUP_ROOT/test/citus
make_workdir
trap 'stop_cluster; [ "${KEEP:-0}" = 1 ] || rm -rf "$WORKDIR"' EXIT
citus_install || { echo "== citus: build failed"; exit 1; }

echo "== citus: $CITUS_SO, coordinator + 2 workers on loopback, load $(cut -d' ' -f1-3 /proc/loadavg)"
start_cluster || { echo "== citus: the cluster did not start"; exit 1; }

failed=0
mkdir -p "$WORKDIR/results"
[ "$(id -u)" = 0 ] && chown -R "$PG_USER" "$WORKDIR/results"
for sql in "$CITUS_ROOT"/sql/*.sql; do
	name=$(basename "$sql" .sql)
	cp "$sql" "$WORKDIR/$name.sql"
	(cd "$WORKDIR" && as_pg psql -X -a -q -h "$WORKDIR" -p "${PORT[coordinator]}" -U "$PG_USER" \
		-d postgres -f "$name.sql" >"results/$name.out" 2>&1)
	if diff -u "$CITUS_ROOT/expected/$name.out" "$WORKDIR/results/$name.out" >"$WORKDIR/results/$name.diff"; then
		echo "ok   $name"
	else
		echo "FAIL $name"; head -60 "$WORKDIR/results/$name.diff"; failed=1
	fi
done

# 8 clients insert near-duplicates through the coordinator (bases far apart,
# variants one bit from their base): every (scope,) base must end with one
# original and every other row pointing at it
node_sql coordinator -f "$CITUS_ROOT/concurrency_setup.sql" >/dev/null || failed=1
for script in insert_original insert_routed insert_scoped; do
	as_pg pgbench -n -h "$WORKDIR" -p "${PORT[coordinator]}" -U "$PG_USER" -c 8 -j 2 -t 50 \
		--random-seed=20261125 -f "$CITUS_ROOT/$script.pgbench" postgres >"$WORKDIR/results/$script.log" 2>&1 ||
		{ echo "FAIL pgbench $script"; tail -5 "$WORKDIR/results/$script.log"; failed=1; }
	echo "     pgbench $script: $(grep -E '^tps' "$WORKDIR/results/$script.log" | head -1)"
done
node_sql coordinator -At -f "$CITUS_ROOT/check_concurrency.sql" >"$WORKDIR/results/check_concurrency.out" 2>&1
if diff -u "$CITUS_ROOT/expected/check_concurrency.out" "$WORKDIR/results/check_concurrency.out"; then
	echo "ok   check_concurrency"
else
	echo "FAIL check_concurrency"; failed=1
fi

if [ $failed = 0 ]; then
	echo "== citus: ok"
else
	rm -rf /tmp/nddup-citus-results && cp -r "$WORKDIR/results" /tmp/nddup-citus-results
	echo "== citus: FAILED (results and diffs in /tmp/nddup-citus-results)"
fi
exit $failed
