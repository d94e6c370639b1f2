#!/usr/bin/env bash
# Run nddup's regression suite (every sql/*.sql through pg_regress, and the
# isolation specs) under Valgrind's memcheck, against a PostgreSQL 15 built
# from Debian's source package with assertions (--enable-cassert,
# --enable-debug, -DUSE_VALGRIND) into a private prefix.  Not part of CI:
# it takes hours.  docs/reports/memcheck.md has the commands, the options and the
# last recorded result.
#
# Usage: test/memcheck/run.sh [--prefix DIR] [--src DIR] [--out DIR]
#                             [--no-valgrind] [--no-isolation] [TEST]...
#   --prefix DIR    the PostgreSQL build is installed here (default
#                   /work/pgcassert); built only when DIR/bin/pg_config is
#                   missing or was not configured with assertions
#   --src DIR       Debian's source package is unpacked here (default
#                   /work/pgsrc)
#   --out DIR       logs, regression output and Valgrind logs (default
#                   /tmp/nddup-memcheck; emptied first)
#   --no-valgrind   run the suite on the assertion build only (minutes)
#   --no-isolation  skip the isolation specs
#   TEST...         run only these pg_regress tests (default: every
#                   sql/*.sql of the checkout)
#
# Must run as root (it installs Debian packages and a deb-src source); the
# servers run as the user postgres.  Prints one summary line per suite and a
# final "memcheck: N passed, N failed" line; exits non-zero when a suite
# fails, Valgrind reports an error or an assertion fails.

set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
PG_MAJOR=15
PREFIX=/work/pgcassert
SRC=/work/pgsrc
OUT=/tmp/nddup-memcheck
VALGRIND=1
ISOLATION=1
TESTS=()
PG_USER=postgres

while [ $# -gt 0 ]; do
	case $1 in
		--prefix) PREFIX=$2; shift 2 ;;
		--src) SRC=$2; shift 2 ;;
		--out) OUT=$2; shift 2 ;;
		--no-valgrind) VALGRIND=0; shift ;;
		--no-isolation) ISOLATION=0; shift ;;
		-*) sed -n '/^# Usage/,/^# final/p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
		*) TESTS+=("$1"); shift ;;
	esac
done
[ "$(id -u)" = 0 ] || { echo "memcheck: run as root" >&2; exit 2; }
case $PREFIX in /*) ;; *) echo "memcheck: --prefix wants an absolute path" >&2; exit 2 ;; esac

# Install the Debian packages the build and the run need, if missing.
ensure_packages() {
	local want=(valgrind gcc make perl dpkg-dev zlib1g-dev libipc-run-perl libxxhash-dev)
	local missing=() p
	for p in "${want[@]}"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
	done
	if [ ${#missing[@]} -gt 0 ]; then
		echo "== installing Debian packages: ${missing[*]}"
		apt-get update -qq
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
	fi
	id "$PG_USER" >/dev/null 2>&1 || useradd --system --create-home "$PG_USER"
}

# Add a deb-src source beside each binary source of the system, once.
ensure_deb_src() {
	local list=/etc/apt/sources.list.d/nddup-memcheck-src.sources
	if apt-cache showsrc "postgresql-$PG_MAJOR" 2>/dev/null | grep -q '^Version:'; then
		return 0
	fi
	echo "== adding deb-src sources ($list)"
	{
		local f
		for f in /etc/apt/sources.list.d/*.sources; do
			[ -e "$f" ] && [ "$f" != "$list" ] && sed -e 's/^Types:.*$/Types: deb-src/' "$f" && echo
		done
		if [ -f /etc/apt/sources.list ]; then
			grep -E '^deb ' /etc/apt/sources.list | sed -e 's/^deb /deb-src /' |
				awk '{ printf "Types: deb-src\nURIs: %s\nSuites: %s\nComponents:", $2, $3;
				       for (i = 4; i <= NF; i++) printf " %s", $i; printf "\n\n" }'
		fi
	} >"$list"
	apt-get update -qq
}

# Unpack Debian's source package of PostgreSQL into $SRC: the candidate
# version, else the newest version whose files can be fetched (a security
# update's source may be missing from a mirror).  Sets PGSRC.
fetch_source() {
	PGSRC=$(find "$SRC" -maxdepth 1 -type d -name "postgresql-$PG_MAJOR-*" 2>/dev/null | sort -V | tail -1) || true
	[ -n "$PGSRC" ] && [ -f "$PGSRC/configure" ] && return 0
	ensure_deb_src
	mkdir -p "$SRC"
	local v
	for v in $(apt-cache showsrc "postgresql-$PG_MAJOR" | awk '/^Version:/ { print $2 }' | sort -rV); do
		echo "== fetching Debian's source package postgresql-$PG_MAJOR $v"
		if (cd "$SRC" && apt-get source -qq "postgresql-$PG_MAJOR=$v" >/dev/null 2>&1); then
			break
		fi
	done
	PGSRC=$(find "$SRC" -maxdepth 1 -type d -name "postgresql-$PG_MAJOR-*" | sort -V | tail -1)
	[ -n "$PGSRC" ] && [ -f "$PGSRC/configure" ] || { echo "memcheck: no source package" >&2; exit 1; }
}

# Build PostgreSQL with assertions and Valgrind support into $PREFIX, unless
# such a build is there.  Debian's per-version-directories patch moves the
# library directory to the system's /usr/lib/postgresql/15/lib unless the
# path holds "postgres" or "pgsql", hence --libdir=$PREFIX/lib/postgresql;
# the build is checked to install nothing outside $PREFIX.
build_postgres() {
	if [ -x "$PREFIX/bin/pg_config" ] &&
		"$PREFIX/bin/pg_config" --configure | grep -q -- '--enable-cassert' &&
		"$PREFIX/bin/pg_config" --cflags | grep -q -- '-DUSE_VALGRIND'; then
		echo "== PostgreSQL with assertions: $PREFIX ($("$PREFIX/bin/pg_config" --version))"
		return 0
	fi
	fetch_source
	echo "== building $(basename "$PGSRC") into $PREFIX (log: $SRC/build.log)"
	local start=$SECONDS
	(
		cd "$PGSRC"
		if [ -f GNUmakefile ]; then make -s distclean >/dev/null 2>&1 || true; fi
		nice ./configure --prefix="$PREFIX" --libdir="$PREFIX/lib/postgresql" \
			--enable-cassert --enable-debug --enable-tap-tests \
			--without-icu --without-readline \
			CFLAGS='-O1 -g -fno-omit-frame-pointer -DUSE_VALGRIND'
		grep -q "PKGLIBDIR \"$PREFIX/" src/port/pg_config_paths.h 2>/dev/null ||
			make -s -C src/port pg_config_paths.h
		grep -q "PKGLIBDIR \"$PREFIX/" src/port/pg_config_paths.h ||
			{ echo "memcheck: the library directory is outside $PREFIX" >&2; exit 1; }
		nice make -s -j"$(nproc)"
		make -s install
	) >"$SRC/build.log" 2>&1 || { tail -30 "$SRC/build.log"; echo "memcheck: build failed" >&2; exit 1; }
	case $("$PREFIX/bin/pg_config" --pkglibdir) in
		"$PREFIX"/*) ;;
		*) echo "memcheck: pkglibdir is outside $PREFIX" >&2; exit 1 ;;
	esac
	echo "== built in $((SECONDS - start)) s"
}

# Build nddup from a copy of the checkout (the checkout's own objects stay
# those of the system's PostgreSQL) and install it into $PREFIX, each file
# renamed into place, so that a server of another run loading the library
# meanwhile never sees a half-written file.
build_nddup() {
	local b=$OUT/build stage=$OUT/stage f dest
	echo "== building nddup against $PREFIX"
	mkdir -p "$b"
	git -C "$ROOT" ls-files -co --exclude-standard -z | (cd "$ROOT" && tar --null -T - -cf -) | tar -x -C "$b"
	make -C "$b" -s clean >/dev/null 2>&1 || true
	nice make -C "$b" -s -j"$(nproc)" PG_CONFIG="$PREFIX/bin/pg_config" >"$OUT/nddup-build.log" 2>&1 &&
		make -C "$b" -s PG_CONFIG="$PREFIX/bin/pg_config" DESTDIR="$stage" install >>"$OUT/nddup-build.log" 2>&1 ||
		{ cat "$OUT/nddup-build.log"; echo "memcheck: nddup build failed" >&2; exit 1; }
	[ -d "$stage$PREFIX" ] && [ "$(find "$stage" -type f | grep -vc "^$stage$PREFIX/")" = 0 ] ||
		{ echo "memcheck: nddup installs outside $PREFIX" >&2; exit 1; }
	(cd "$stage$PREFIX" && find . -type f) | while read -r f; do
		dest=$PREFIX/${f#./}
		mkdir -p "$(dirname "$dest")"
		cp "$stage$PREFIX/$f" "$dest.tmp.$$" && mv -f "$dest.tmp.$$" "$dest"
	done
	[ -f "$("$PREFIX/bin/pg_config" --pkglibdir)/nddup.so" ] ||
		{ echo "memcheck: nddup.so is not in $PREFIX" >&2; exit 1; }
}

# A bindir for pg_regress: every program of $PREFIX/bin, with postgres
# replaced by a script that runs the real one under Valgrind.  initdb (a
# link) resolves to $PREFIX/bin and runs its own postgres unwrapped.
make_bindir() {
	local bin=$OUT/bin f
	mkdir -p "$bin" "$OUT/valgrind"
	for f in "$PREFIX"/bin/*; do
		ln -sf "$f" "$bin/$(basename "$f")"
	done
	if [ "$VALGRIND" = 1 ]; then
		rm -f "$bin/postgres"
		cat >"$bin/postgres" <<EOF
#!/bin/sh
# Run PostgreSQL's server under Valgrind memcheck (nddup test/memcheck/run.sh).
exec valgrind $VALGRIND_OPTS "$PREFIX/bin/postgres" "\$@"
EOF
		chmod 755 "$bin/postgres"
	fi
}

# Count Valgrind's error reports in $OUT/valgrind (error markers).
valgrind_errors() {
	cat "$OUT"/valgrind/*.log 2>/dev/null | grep -c '^==[0-9]*== VALGRINDERROR-BEGIN' || true
}

# Lines of the server logs that tell of a failed assertion, a crash or a
# failed check: TRAP (Assert), a backend killed or exiting with an error
# code (Valgrind's 99 included), resource leak warnings, problems that
# MEMORY_CONTEXT_CHECKING reports.
server_problems() {
	cat "$@" 2>/dev/null |
		grep -E 'TRAP:|PANIC:|server process \(PID [0-9]+\) (was terminated|exited with exit code)|reference leak|leaked|detected write past chunk end|problem in (alloc set|generation|slab)' || true
}

SUITES_PASSED=0
SUITES_FAILED=0

# Run one regression driver (pg_regress or pg_isolation_regress) and report.
run_suite() {
	local name=$1 driver=$2 inputdir=$3; shift 3
	local out=$OUT/$name before after start rc problems
	before=$(valgrind_errors)
	start=$SECONDS
	echo "== $name ($*)"
	set +e
	runuser -u "$PG_USER" -- env PGCTLTIMEOUT=1200 PATH="$OUT/bin:$PATH" \
		nice "$driver" --temp-instance="$out/instance" --temp-config="$OUT/instance.conf" \
		--inputdir="$inputdir" --outputdir="$out" --bindir="$OUT/bin" \
		--load-extension=nddup "$@"
	rc=$?
	set -e
	after=$(valgrind_errors)
	problems=$(server_problems "$out"/log/*.log)
	[ "$rc" = 0 ] || head -200 "$out/regression.diffs" 2>/dev/null || true
	[ -z "$problems" ] || echo "$problems" | head -50
	echo "== $name: exit $rc, $((after - before)) Valgrind errors, $(echo -n "$problems" | grep -c . || true) server-log problems, $((SECONDS - start)) s"
	if [ "$rc" = 0 ] && [ "$after" = "$before" ] && [ -z "$problems" ]; then
		SUITES_PASSED=$((SUITES_PASSED + 1))
	else
		SUITES_FAILED=$((SUITES_FAILED + 1))
	fi
}

# Valgrind's options: those of PostgreSQL's buildfarm animals that run under
# Valgrind, PostgreSQL's own suppressions, one log per process, error
# markers to count reports, exit code 99 so that an error in a backend
# shows as a crash in the server log and fails the test.
VALGRIND_OPTS="--quiet --trace-children=yes --track-origins=yes --read-var-info=yes \
--num-callers=30 --leak-check=no --gen-suppressions=all --error-limit=no \
--error-exitcode=99 --error-markers=VALGRINDERROR-BEGIN,VALGRINDERROR-END \
--suppressions=$OUT/valgrind.supp --log-file=$OUT/valgrind/%p.log"

ensure_packages
build_postgres
fetch_source
rm -rf "$OUT"
mkdir -p "$OUT"
cp "$PGSRC/src/tools/valgrind.supp" "$OUT/valgrind.supp"
build_nddup
make_bindir
cat >"$OUT/instance.conf" <<'EOF'
# nddup memcheck: settings of the temporary instances
max_connections = 20
shared_buffers = 64MB
log_line_prefix = '%m [%p] %q%a '
log_statement = 'all'
log_min_messages = warning
fsync = off
EOF
chown -R "$PG_USER" "$OUT"
chmod -R a+rX "$OUT"

START=$SECONDS
echo "== Valgrind: $([ "$VALGRIND" = 1 ] && echo "$VALGRIND_OPTS" || echo off)"
if [ ${#TESTS[@]} = 0 ]; then
	mapfile -t TESTS < <(cd "$ROOT/sql" && ls *.sql | grep -v '^nddup--' | sed 's/\.sql$//' | sort)
fi
run_suite regress "$PREFIX/lib/postgresql/pgxs/src/test/regress/pg_regress" "$OUT/build" "${TESTS[@]}"
if [ "$ISOLATION" = 1 ] && ls "$ROOT"/test/isolation/specs/*.spec >/dev/null 2>&1; then
	mapfile -t SPECS < <(cd "$ROOT/test/isolation/specs" && ls *.spec | sed 's/\.spec$//' | sort)
	run_suite isolation "$PREFIX/lib/postgresql/pgxs/src/test/isolation/pg_isolation_regress" \
		"$OUT/build/test/isolation" "${SPECS[@]}"
fi

echo
echo "Valgrind logs: $OUT/valgrind ($(ls "$OUT/valgrind" | wc -l) processes, $(valgrind_errors) errors)"
echo "total time: $((SECONDS - START)) s"
echo "memcheck: ${SUITES_PASSED} passed, ${SUITES_FAILED} failed"
[ "$SUITES_FAILED" = 0 ]
