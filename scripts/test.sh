#!/usr/bin/env bash
# Run every nddup test suite: the pure-C core unit tests (with ASan and UBSan),
# short fuzz runs, pg_regress, the isolation tests, the random differential
# test and the TAP tests, each against a private temporary PostgreSQL
# instance.  Prints a summary; exits non-zero on failure.

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
set +e

ensure_packages
build_and_install || { echo "build failed"; exit 1; }
make_workdir
trap 'rm -rf "$WORKDIR"' EXIT
instance_settings >"$WORKDIR/instance.conf"
chmod 644 "$WORKDIR/instance.conf"

passed=0
failed=0
failed_suites=()

# Record the outcome of one suite.
record() {
	local name=$1 rc=$2
	if [ "$rc" = 0 ]; then
		passed=$((passed + 1)); echo "== $name: ok"
	else
		failed=$((failed + 1)); failed_suites+=("$name"); echo "== $name: FAILED"
	fi
}

echo "== unit tests of the pure-C core (ASan + UBSan)"
make -C "$NDDUP_ROOT" -s unit
record unit $?

if [ -d "$NDDUP_ROOT/test/fuzz" ] && ls "$NDDUP_ROOT"/test/fuzz/fuzz_*.c >/dev/null 2>&1; then
	echo "== short fuzz runs"
	bash "$NDDUP_ROOT/test/fuzz/run.sh" --seconds "${NDDUP_FUZZ_SECONDS:-10}"
	record fuzz $?
fi

echo "== pg_regress"
# the Makefile's list: every test/sql/*.sql, in name order
tests=$(make -C "$NDDUP_ROOT" -s print-regress)
as_pg "$PGXS_DIR/src/test/regress/pg_regress" \
	--temp-instance="$WORKDIR/regress" --temp-config="$WORKDIR/instance.conf" --inputdir="$NDDUP_ROOT/test" \
	--outputdir="$WORKDIR/regress-out" --bindir="$PG_BIN" \
	--load-extension=nddup $tests
rc=$?
[ $rc = 0 ] || cat "$WORKDIR/regress-out/regression.diffs" 2>/dev/null | head -200
record pg_regress $rc

if ls "$NDDUP_ROOT"/test/isolation/specs/*.spec >/dev/null 2>&1; then
	echo "== isolation tests"
	specs=$(cd "$NDDUP_ROOT/test/isolation/specs" && ls *.spec | sed 's/\.spec$//' | sort)
	as_pg "$PGXS_DIR/src/test/isolation/pg_isolation_regress" \
		--temp-instance="$WORKDIR/isolation" --temp-config="$WORKDIR/instance.conf" --inputdir="$NDDUP_ROOT/test/isolation" \
		--outputdir="$WORKDIR/isolation-out" --bindir="$PG_BIN" \
		--load-extension=nddup $specs
	rc=$?
	[ $rc = 0 ] || cat "$WORKDIR/isolation-out/regression.diffs" 2>/dev/null | head -200
	record isolation $rc
fi

echo "== random differential test (batch functions, nearest, index scans vs an oracle)"
BUILD=0 bash "$NDDUP_ROOT/test/random/run.sh" --seed 1 --iterations "${NDDUP_RANDOM_ITERATIONS:-60}"
record random $?

echo "== documentation examples (README.md, docs/*.md against a fresh install)"
BUILD=0 bash "$NDDUP_ROOT/test/docs/run.sh"
record docs $?

echo "== reference (docs/reference.md agrees with the installation)"
BUILD=0 bash "$NDDUP_ROOT/test/reference/run.sh"
record reference $?

echo "== ORM client (the insert-time recipe through Django and psycopg2)"
BUILD=0 bash "$NDDUP_ROOT/test/orm/run.sh"
record orm $?

if ls "$NDDUP_ROOT"/test/t/*.pl >/dev/null 2>&1; then
	echo "== TAP tests"
	mkdir -p "$WORKDIR/tap" && cp -r "$NDDUP_ROOT/test/t" "$WORKDIR/tap/t"
	[ "$(id -u)" = 0 ] && chown -R "$PG_USER" "$WORKDIR/tap"
	(cd "$WORKDIR/tap" && as_pg env PG_REGRESS="$PGXS_DIR/src/test/regress/pg_regress" \
		TESTDIR="$WORKDIR/tap" TEMP_CONFIG="$WORKDIR/instance.conf" PGPORT=65432 NDDUP_ROOT="$NDDUP_ROOT" \
		prove -I "$PGXS_DIR/src/test/perl" t/*.pl)
	record tap $?
fi

# Citus: only where a Citus build is named (test/citus/run.sh says so otherwise)
if [ -n "${NDDUP_CITUS_DESTDIR:-}" ]; then
	BUILD=0 bash "$NDDUP_ROOT/test/citus/run.sh"
	record citus $?
else
	bash "$NDDUP_ROOT/test/citus/run.sh"
fi

echo
echo "suites: ${passed} passed, ${failed} failed${failed_suites:+ (${failed_suites[*]})}"
[ "$failed" = 0 ]
