#!/usr/bin/env bash
# Run every nddup test suite: the pure-C core unit tests (with ASan and UBSan),
# short fuzz runs, pg_regress, the isolation tests, the random differential
# test and the TAP tests, each against a private temporary PostgreSQL
# instance.  Prints a summary; exits non-zero on failure.

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/suites.sh"
set +e

ensure_packages
# the tests build with every compiler warning an error
export NDDUP_MAKE_OPTS=${NDDUP_MAKE_OPTS-COPT=-Werror}
build_and_install || { echo "build failed"; exit 1; }
make_workdir
trap 'rm -rf "$WORKDIR"' EXIT
instance_settings >"$WORKDIR/instance.conf"
chmod 644 "$WORKDIR/instance.conf"

echo "== unit tests of the pure-C core (ASan + UBSan)"
make -C "$NDDUP_ROOT" -s unit
record unit $?

if [ -d "$NDDUP_ROOT/test/fuzz" ] && ls "$NDDUP_ROOT"/test/fuzz/fuzz_*.c >/dev/null 2>&1; then
	echo "== short fuzz runs"
	bash "$NDDUP_ROOT/test/fuzz/run.sh" --seconds "${NDDUP_FUZZ_SECONDS:-10}"
	record fuzz $?
fi

echo "== pg_regress"
run_regress "$NDDUP_ROOT"
record pg_regress $?

if ls "$NDDUP_ROOT"/test/isolation/specs/*.spec >/dev/null 2>&1; then
	echo "== isolation tests"
	run_isolation "$NDDUP_ROOT"
	record isolation $?
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
	run_tap "$NDDUP_ROOT" 65432
	record tap $?
fi

echo "== release metadata (META.json against the PGXN Meta Spec 1.0.0)"
python3 "$NDDUP_ROOT/scripts/check_meta.py" "$NDDUP_ROOT/META.json"
record meta $?

# The Debian package (2 to 4 minutes: build, lintian, install into a clean
# cluster, README's tour), installed with dpkg into a private root that the
# cluster reaches through extension_destdir, so that the system's
# installation is left alone; NDDUP_PACKAGE_TEST=0 skips it.
if [ "${NDDUP_PACKAGE_TEST:-1}" = 1 ]; then
	echo "== Debian package (scripts/package.sh)"
	NDDUP_DESTDIR=${NDDUP_DESTDIR:-private} NDDUP_PACKAGE_DIR=${NDDUP_PACKAGE_DIR:-$WORKDIR/package} \
		bash "$NDDUP_ROOT/scripts/package.sh"
	record package $?
else
	echo "== Debian package: skipped (NDDUP_PACKAGE_TEST=0)"
fi

# The other PostgreSQL majors, where an installation built for them is
# present: a prefix listed in $NDDUP_PG_PREFIXES (separated by spaces or
# colons), or a build that test/versions/run.sh left in $NDDUP_PG_CACHE
# (default ~/.cache/nddup-pg).  Without one, a major is skipped.
other_major_prefix() {
	local major=$1 list=${NDDUP_PG_PREFIXES:-} p
	for p in ${list//:/ }; do
		[ -x "$p/bin/pg_config" ] && [[ $("$p/bin/pg_config" --version) =~ ^PostgreSQL\ $major[^0-9] ]] &&
			{ echo "$p"; return 0; }
	done
	for p in "${NDDUP_PG_CACHE:-$HOME/.cache/nddup-pg}/$major".*/install; do
		[ -f "$p/.nddup-complete" ] && { echo "$p"; return 0; }
	done
	return 1
}
for major in 16 17 18; do
	if prefix=$(other_major_prefix $major); then
		echo "== PostgreSQL $major: $prefix (test/versions/run.sh)"
		bash "$NDDUP_ROOT/test/versions/run.sh" --prefix "$prefix"
		record "postgresql-$major" $?
	else
		echo "== PostgreSQL $major: skipped (no built tree; see test/versions/run.sh)"
	fi
done

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
