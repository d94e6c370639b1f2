#!/usr/bin/env bash
# Run nddup's suites against a PostgreSQL major other than Debian's 15.
#
#   test/versions/run.sh PG_SOURCE_DIR [--suites LIST] [--keep]
#   test/versions/run.sh --prefix INSTALL_PREFIX [--suites LIST] [--keep]
#
# PG_SOURCE_DIR is a PostgreSQL source tree (with its configure script).  It
# is built once into $NDDUP_PG_CACHE/<version> (default
# ~/.cache/nddup-pg/<version>: build/, install/, *.log) and that build is
# reused from then on.  A tree already configured in place is not built
# again: the installation its configure named (its prefix) is used.
# --prefix names an installation directly (bin/pg_config, with the
# isolation tester installed: make -C src/test/isolation install).
#
# The installation itself is never written to: nddup is built from a copy of
# this checkout (so objects built for 15 in the checkout are neither used nor
# overwritten) and installed into a private copy of the installation (hard
# links), under a temporary directory removed at the end.  The suites then
# run there as scripts/test.sh runs them for 15, each on a temporary
# instance:
#   build      nddup compiles with zero warnings
#   regress    pg_regress, every sql/*.sql
#   isolation  pg_isolation_regress, every test/isolation/specs/*.spec
#   tap        prove test/t/*.pl (needs a build with --enable-tap-tests,
#              IPC::Run and contrib/amcheck; skipped with a line otherwise)
#   random     test/random/run.sh --seed 1 (not in the default list)
#   docs, reference, orm
#              test/docs/run.sh, test/reference/run.sh, test/orm/run.sh
#              (not in the default list)
# LIST is comma-separated; default build,regress,isolation,tap.
# --keep keeps the temporary directory (outputs, diffs, instances).
# NDDUP_JOBS: parallel make jobs (default 2).  NDDUP_PG_CONFIGURE: configure
# options of a build (default --enable-tap-tests --without-icu).
# Prints a summary; exits non-zero when a suite fails.

source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/suites.sh"
set +e

usage() {
	sed -n '3,5p' "${BASH_SOURCE[0]}" | sed 's/^# *//' >&2
	exit 2
}

SOURCE=
PREFIX=
SUITES=build,regress,isolation,tap
KEEP=0
while [ $# -gt 0 ]; do
	case $1 in
		--prefix) PREFIX=${2:?--prefix needs a directory}; shift 2 ;;
		--suites) SUITES=${2:?--suites needs a list}; shift 2 ;;
		--keep) KEEP=1; shift ;;
		-h|--help) usage ;;
		-*) echo "unknown option $1" >&2; usage ;;
		*) [ -z "$SOURCE" ] || usage; SOURCE=$1; shift ;;
	esac
done
[ -n "$SOURCE$PREFIX" ] && { [ -z "$SOURCE" ] || [ -z "$PREFIX" ]; } || usage
JOBS=${NDDUP_JOBS:-2}
CACHE_ROOT=${NDDUP_PG_CACHE:-$HOME/.cache/nddup-pg}

# Whether suite $1 was asked for.
wanted() {
	case ",$SUITES," in *",$1,"*) return 0 ;; *) return 1 ;; esac
}

# The version of a source tree, from its configure script ("18.3").
source_version() {
	sed -n "s/^PACKAGE_VERSION='\(.*\)'$/\1/p" "$1/configure" 2>/dev/null
}

# Configure, build and install the source tree $SOURCE into
# $CACHE_ROOT/<version>/install, unless a finished build is there.
build_postgres() {
	local version dir
	version=$(source_version "$SOURCE")
	[ -n "$version" ] || { echo "$SOURCE: no PostgreSQL configure script found" >&2; return 1; }
	if [ -f "$SOURCE/config.status" ]; then
		# configured in place: its own build and installation, or nothing
		PREFIX=$(sed -n 's/^prefix := //p' "$SOURCE/src/Makefile.global")
		if [ -x "$PREFIX/bin/pg_config" ] &&
			[ "$("$PREFIX/bin/pg_config" --version)" = "PostgreSQL $version" ]; then
			echo "== $SOURCE is configured in place; using its installation $PREFIX"
			return 0
		fi
		echo "$SOURCE is configured in place but PostgreSQL $version is not installed at its" \
			"prefix ${PREFIX:-?}: run make install there, pass --prefix, or run make distclean" >&2
		return 1
	fi
	dir=$CACHE_ROOT/$version
	PREFIX=$dir/install
	mkdir -p "$dir"
	exec 9>"$dir/.lock"
	flock 9
	if [ -f "$PREFIX/.nddup-complete" ]; then
		echo "== reusing the build of PostgreSQL $version in $dir" \
			"($(sed -n 's/^source //p' "$PREFIX/.nddup-complete"))"
		return 0
	fi
	echo "== building PostgreSQL $version from $SOURCE into $dir (logs: $dir/*.log)"
	# a tree from git has no generated parser and scanner files
	ensure_packages bison flex
	rm -rf "$dir/build" "$PREFIX"
	mkdir -p "$dir/build"
	(
		set -e
		cd "$dir/build"
		# shellcheck disable=SC2086
		"$SOURCE/configure" --prefix="$PREFIX" ${NDDUP_PG_CONFIGURE:---enable-tap-tests --without-icu} >"$dir/configure.log" 2>&1
		make -j"$JOBS" >"$dir/make.log" 2>&1
		make install >"$dir/install.log" 2>&1
		make -C contrib/amcheck install >>"$dir/install.log" 2>&1
		make -C contrib/postgres_fdw install >>"$dir/install.log" 2>&1
		make -C src/test/isolation install >>"$dir/install.log" 2>&1
	) || { echo "PostgreSQL build failed; see $dir/*.log" >&2; return 1; }
	{
		echo "source $SOURCE"
		git -C "$SOURCE" rev-parse HEAD 2>/dev/null | sed 's/^/commit /'
		echo "built $(date -u '+%F %H:%M UTC')"
	} >"$PREFIX/.nddup-complete"
}

# Copy this checkout to $1: the files git tracks and the untracked ones it
# does not ignore, as they are in the working tree (no build products).
copy_checkout() {
	mkdir -p "$1"
	if git -C "$NDDUP_ROOT" rev-parse --git-dir >/dev/null 2>&1; then
		(cd "$NDDUP_ROOT" && git ls-files -z --cached --others --exclude-standard |
			tar --null -T - --ignore-failed-read -cf - 2>/dev/null) | tar -xf - -C "$1"
	else
		(cd "$NDDUP_ROOT" && tar --exclude=.git --exclude='*.o' --exclude='*.so' --exclude='*.bc' \
			-cf - .) | tar -xf - -C "$1"
	fi
}

if [ -n "$SOURCE" ]; then
	SOURCE=$(cd "$SOURCE" && pwd) || exit 2
	build_postgres || exit 1
fi
PREFIX=$(cd "$PREFIX" 2>/dev/null && pwd) || { echo "no such directory: $PREFIX" >&2; exit 2; }
[ -x "$PREFIX/bin/pg_config" ] || { echo "$PREFIX/bin/pg_config not found" >&2; exit 2; }
VERSION=$("$PREFIX/bin/pg_config" --version)
echo "== $VERSION at $PREFIX$( [ -f "$PREFIX/.nddup-complete" ] && sed -n 's/^commit / (source commit /p' "$PREFIX/.nddup-complete" | sed 's/$/)/')"

make_workdir
[ "$KEEP" = 1 ] || trap 'rm -rf "$WORKDIR"' EXIT
[ "$KEEP" = 1 ] && echo "== work directory $WORKDIR (kept)"

# the private installation: hard links to $PREFIX (a copy across file systems)
PG=$WORKDIR/pg
cp -al "$PREFIX" "$PG" 2>/dev/null || { rm -rf "$PG"; cp -a "$PREFIX" "$PG"; }
PG_BIN=$PG/bin
PGXS_DIR=$(dirname "$(dirname "$(dirname "$("$PG_BIN/pg_config" --pgxs)")")")
export PATH="$PG_BIN:$PATH"
# its own libpq for its programs, also where the rpath of the build is a
# directory PG_USER cannot enter (root's ~/.cache): else psql takes the
# system's libpq of another major (undefined symbol PQgetCurrentTimeUSec)
export LD_LIBRARY_PATH="$PG/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# unlink (never write through) any nddup files the installation already has
rm -rf "$("$PG_BIN/pg_config" --pkglibdir)"/nddup.so "$("$PG_BIN/pg_config" --pkglibdir)"/bitcode/nddup* \
	"$("$PG_BIN/pg_config" --sharedir)"/extension/nddup[.-]*

echo "== building nddup against $VERSION"
SRC=$WORKDIR/nddup
copy_checkout "$SRC"
make -C "$SRC" -j"$JOBS" PG_CONFIG="$PG_BIN/pg_config" >"$WORKDIR/build.log" 2>&1 &&
	make -C "$SRC" PG_CONFIG="$PG_BIN/pg_config" install >>"$WORKDIR/build.log" 2>&1
rc=$?
warnings=$(grep -c 'warning:' "$WORKDIR/build.log")
grep -E 'warning:|error:' "$WORKDIR/build.log" | head -40
if [ $rc != 0 ]; then
	tail -20 "$WORKDIR/build.log"
	echo "== nddup does not build against $VERSION"
	exit 1
fi
echo "== nddup built against $VERSION: $warnings warnings"
wanted build && record build "$([ "$warnings" = 0 ] && echo 0 || echo 1)"
: >"$WORKDIR/instance.conf"

if wanted regress; then
	echo "== pg_regress"
	run_regress "$SRC"
	record regress $?
fi

if wanted isolation; then
	echo "== isolation tests"
	run_isolation "$SRC"
	record isolation $?
fi

if wanted tap; then
	if [ ! -f "$PGXS_DIR/src/test/perl/PostgreSQL/Test/Cluster.pm" ]; then
		echo "== tap: skipped ($VERSION was built without --enable-tap-tests)"
	elif ! perl -MIPC::Run -e 1 2>/dev/null; then
		echo "== tap: skipped (the Perl module IPC::Run is missing)"
	elif [ ! -f "$("$PG_BIN/pg_config" --sharedir)/extension/amcheck.control" ]; then
		echo "== tap: skipped (contrib/amcheck is not installed in $PREFIX)"
	else
		echo "== TAP tests"
		run_tap "$SRC" "${PGPORT_TAP:-$(free_port)}"
		record tap $?
	fi
fi

if wanted random; then
	echo "== random differential test"
	NDDUP_PG_BIN="$PG_BIN" BUILD=0 bash "$SRC/test/random/run.sh" --seed 1 --iterations "${NDDUP_RANDOM_ITERATIONS:-60}"
	record random $?
fi

# the suites that start their own instance through scripts/lib.sh
for suite in docs reference orm; do
	if wanted $suite; then
		echo "== $suite"
		NDDUP_PG_BIN="$PG_BIN" BUILD=0 bash "$SRC/test/$suite/run.sh"
		record $suite $?
	fi
done

echo
echo "$VERSION: ${passed} passed, ${failed} failed${failed_suites:+ (${failed_suites[*]})}"
[ "$failed" = 0 ]
