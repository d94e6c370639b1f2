#!/usr/bin/env bash
# The suites that run on a temporary PostgreSQL instance, shared by
# scripts/test.sh (Debian's PostgreSQL 15) and test/versions/run.sh (other
# majors).  Source after scripts/lib.sh; they use PG_BIN, PGXS_DIR, WORKDIR
# and $WORKDIR/instance.conf.

passed=0
failed=0
failed_suites=()

# Record the outcome of one suite: name, exit status.
record() {
	local name=$1 rc=$2
	if [ "$rc" = 0 ]; then
		passed=$((passed + 1)); echo "== $name: ok"
	else
		failed=$((failed + 1)); failed_suites+=("$name"); echo "== $name: FAILED"
	fi
}

# Run a pg_regress driver (regress/pg_regress or
# isolation/pg_isolation_regress) over the tests that follow, from input
# directory $2, on a temporary instance; print the differences on failure.
run_pg_regress() {
	local driver=$1 inputdir=$2 out rc
	shift 2
	out=$WORKDIR/$(basename "$driver")
	as_pg "$PGXS_DIR/src/test/$driver" \
		--temp-instance="$out-instance" --temp-config="$WORKDIR/instance.conf" --inputdir="$inputdir" \
		--outputdir="$out" --bindir="$PG_BIN" --load-extension=nddup "$@"
	rc=$?
	[ $rc = 0 ] || head -200 "$out/regression.diffs" 2>/dev/null
	return $rc
}

# pg_regress over every regression test of the checkout $1 (the Makefile's
# list: every sql/*.sql but the install scripts, in name order).
run_regress() {
	# shellcheck disable=SC2046
	run_pg_regress regress/pg_regress "$1" \
		$(make -C "$1" -s PG_CONFIG="$PG_BIN/pg_config" print-regress)
}

# The isolation tests of the checkout $1: every test/isolation/specs/*.spec.
run_isolation() {
	# shellcheck disable=SC2046
	run_pg_regress isolation/pg_isolation_regress "$1/test/isolation" \
		$(cd "$1/test/isolation/specs" && ls *.spec | sed 's/\.spec$//' | sort)
}

# The TAP tests of the checkout $1 (test/t/*.pl), their nodes' ports from $2.
run_tap() {
	mkdir -p "$WORKDIR/tap" && cp -r "$1/test/t" "$WORKDIR/tap/t"
	[ "$(id -u)" = 0 ] && chown -R "$PG_USER" "$WORKDIR/tap"
	(cd "$WORKDIR/tap" && as_pg env PG_REGRESS="$PGXS_DIR/src/test/regress/pg_regress" \
		TESTDIR="$WORKDIR/tap" TEMP_CONFIG="$WORKDIR/instance.conf" PGPORT="$2" NDDUP_ROOT="$1" \
		prove -I "$PGXS_DIR/src/test/perl" t/*.pl)
}
