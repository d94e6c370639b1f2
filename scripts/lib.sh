#!/usr/bin/env bash
# Shared set-up for scripts/demo.sh and scripts/test.sh: install what is
# missing from Debian's packages, build and install the extension, and run a
# private temporary PostgreSQL instance as an unprivileged user.

set -euo pipefail

NDDUP_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PG_MAJOR=${PG_MAJOR:-15}
# Debian's PostgreSQL $PG_MAJOR, or the installation whose bin directory is
# $NDDUP_PG_BIN (test/versions/run.sh).
if [ -n "${NDDUP_PG_BIN:-}" ]; then
	PG_BIN=$NDDUP_PG_BIN
	PGXS_DIR=$(dirname "$(dirname "$(dirname "$("$PG_BIN/pg_config" --pgxs)")")")
else
	PG_BIN=/usr/lib/postgresql/$PG_MAJOR/bin
	PGXS_DIR=/usr/lib/postgresql/$PG_MAJOR/lib/pgxs
fi
export PATH="$PG_BIN:$PATH"

# Run a command as root (directly, or through sudo when not root).
as_root() {
	if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

# Install the named Debian packages that are missing.
install_missing() {
	local missing=() p
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
	done
	if [ ${#missing[@]} -gt 0 ]; then
		echo "== installing Debian packages: ${missing[*]}"
		as_root apt-get update -qq
		as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
	fi
}

# Install the Debian packages that building the extension and running it on a
# temporary instance need (the demo's set), and those named as arguments, if
# missing.
ensure_build_packages() {
	local want=(make gcc libxxhash-dev python3 bc "$@")
	[ -n "${NDDUP_PG_BIN:-}" ] || want+=(postgresql-$PG_MAJOR postgresql-server-dev-$PG_MAJOR
		postgresql-client-$PG_MAJOR)
	install_missing "${want[@]}"
}

# Install the Debian packages the build and the tests need (the build set,
# plus the sanitizers, TAP, the ORM client and the Unicode tables), and those
# named as arguments, if missing.
ensure_packages() {
	local want=(clang libclang-rt-14-dev libipc-run-perl unicode-data bzip2 python3-psycopg2
		python3-django python3-sqlalchemy python3-psycopg "$@")
	[ -n "${NDDUP_PG_BIN:-}" ] || want+=(postgresql-contrib)
	ensure_build_packages "${want[@]}"
}

# Build the extension (with the make variables in $NDDUP_MAKE_OPTS, e.g.
# COPT=-Werror) and install it into PostgreSQL's directories, or under
# $NDDUP_DESTDIR when set (a private copy that instances reach through
# Debian's extension_destdir setting, so several checkouts can be tested at
# once without touching the system's installation).
build_and_install() {
	echo "== building nddup"
	if [ "${NDDUP_BUILD_PROGRESS:-0}" = 1 ]; then
		build_with_progress
	else
		# shellcheck disable=SC2086
		make -C "$NDDUP_ROOT" -s -j"$(nproc)" PG_CONFIG="$PG_BIN/pg_config" ${NDDUP_MAKE_OPTS:-} >/dev/null
	fi
	if [ -n "${NDDUP_DESTDIR:-}" ]; then
		mkdir -p "$NDDUP_DESTDIR"
		make -C "$NDDUP_ROOT" -s PG_CONFIG="$PG_BIN/pg_config" DESTDIR="$NDDUP_DESTDIR" install >/dev/null
		chmod -R a+rX "$NDDUP_DESTDIR"
	else
		as_root make -C "$NDDUP_ROOT" -s PG_CONFIG="$PG_BIN/pg_config" install >/dev/null
	fi
}

# make, printing a line every 10 files compiled (each C file to an object
# and to LLVM bitcode for JIT) with the seconds so far (the demo: a first
# build takes a minute or two).
build_with_progress() {
	local total n=0 t0=$SECONDS line
	total=$(($(ls "$NDDUP_ROOT"/src/*.c "$NDDUP_ROOT"/src/*/*.c | wc -l) * 2))
	# shellcheck disable=SC2086
	make -C "$NDDUP_ROOT" -j"$(nproc)" PG_CONFIG="$PG_BIN/pg_config" ${NDDUP_MAKE_OPTS:-} 2>&1 | {
		while IFS= read -r line; do
			case $line in
				*" -c -o "*)
					n=$((n + 1))
					[ $((n % 10)) != 0 ] ||
						printf '   compiled %d of %d (objects and JIT bitcode, %d s)\n' "$n" "$total" \
							$((SECONDS - t0)) ;;
				*" error: "*|*" warning: "*|*"*** "*) echo "$line" ;;
			esac
		done
		[ "$n" = 0 ] && echo "   already built" ||
			printf '   compiled %d files and linked in %d s\n' "$n" $((SECONDS - t0))
	}
	return "${PIPESTATUS[0]}"
}

# Settings every test instance gets: extension_destdir when $NDDUP_DESTDIR is set.
instance_settings() {
	if [ -n "${NDDUP_DESTDIR:-}" ]; then
		echo "extension_destdir = '$NDDUP_DESTDIR'"
	fi
}

# The user that runs PostgreSQL: the caller, or 'postgres' when we are root.
PG_USER=$(id -un)
[ "$(id -u)" = 0 ] && PG_USER=postgres

# Run a command as PG_USER.
as_pg() {
	if [ "$(id -un)" = "$PG_USER" ]; then "$@"; else
		runuser -u "$PG_USER" -- env PATH="$PATH" "$@"
	fi
}

# A private work directory owned by PG_USER, removed on exit.
make_workdir() {
	WORKDIR=$(mktemp -d /tmp/nddup.XXXXXX)
	chmod 755 "$WORKDIR"
	[ "$(id -u)" = 0 ] && chown "$PG_USER" "$WORKDIR"
	return 0
}

# A free TCP port on the loopback interface.
free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# Start a temporary instance in $WORKDIR/data; sets PGHOST, PGPORT.
start_instance() {
	export PGPORT=$(free_port)
	export PGHOST=$WORKDIR
	export PGDATABASE=postgres
	export PGUSER=$PG_USER
	as_pg initdb -D "$WORKDIR/data" -U "$PG_USER" --encoding=UTF8 --locale=C.UTF-8 >/dev/null
	cat >>"$WORKDIR/data/postgresql.conf" <<CONF
listen_addresses = ''
port = $PGPORT
unix_socket_directories = '$WORKDIR'
shared_buffers = ${NDDUP_SHARED_BUFFERS:-256MB}
fsync = off
$(instance_settings)
CONF
	as_pg pg_ctl -D "$WORKDIR/data" -l "$WORKDIR/server.log" -w start >/dev/null
	trap stop_instance EXIT
}

# Stop the temporary instance and remove its directory.
stop_instance() {
	if [ -n "${WORKDIR:-}" ] && [ -d "$WORKDIR/data" ]; then
		as_pg pg_ctl -D "$WORKDIR/data" -m fast -w stop >/dev/null 2>&1 || true
	fi
	[ -n "${WORKDIR:-}" ] && rm -rf "$WORKDIR"
}

# psql against the temporary instance, stopping at the first error.
pg_sql() {
	as_pg env PGHOST="$PGHOST" PGPORT="$PGPORT" PGUSER="$PGUSER" \
		psql -X -q -v ON_ERROR_STOP=1 -d "${PGDATABASE}" "$@"
}
