#!/usr/bin/env bash
# Shared by test/citus/run.sh and test/bench/scale_out_bench.sh (sourced
# after scripts/lib.sh): find the Citus build named by NDDUP_CITUS_DESTDIR,
# install nddup next to it, start and stop a coordinator and two workers on
# loopback in $WORKDIR.  See test/citus/run.sh for NDDUP_CITUS_DESTDIR.
#
#   citus_find || exit 0         sets CITUS_SO; says "skipped" and fails without one
#   citus_install                nddup into $WORKDIR/dest, beside a copy of Citus
#   start_cluster / stop_cluster the nodes (CLUSTER_CONF: extra settings)
#   node_sql NODE [psql args]    psql on coordinator, worker1 or worker2
#   PORT[NODE]                   their ports

PKGLIBDIR=$("$PG_BIN/pg_config" --pkglibdir)
NODES=(coordinator worker1 worker2)
declare -A PORT

# The Citus library named by NDDUP_CITUS_DESTDIR; false (and one line) without.
citus_find() {
	case "${NDDUP_CITUS_DESTDIR:-}" in
		"") echo "== citus: skipped (NDDUP_CITUS_DESTDIR is not set)"; return 1 ;;
		system) CITUS_SO=$PKGLIBDIR/citus.so ;;
		*) CITUS_SO=$NDDUP_CITUS_DESTDIR$PKGLIBDIR/citus.so ;;
	esac
	if [ ! -f "$CITUS_SO" ]; then
		echo "== citus: skipped (no $CITUS_SO)"
		return 1
	fi
}

# nddup into a private DESTDIR: a copy of Citus's, because extension_destdir
# names one directory for both.  BUILD=0: the build is done already.
citus_install() {
	DEST=$WORKDIR/dest
	if [ "$NDDUP_CITUS_DESTDIR" = system ]; then
		mkdir -p "$DEST"
	else
		cp -a "$NDDUP_CITUS_DESTDIR/." "$DEST/"
	fi
	if [ "${BUILD:-1}" = 1 ]; then
		NDDUP_DESTDIR=$DEST build_and_install >/dev/null || return 1
	else
		make -C "$NDDUP_ROOT" -s PG_CONFIG="$PG_BIN/pg_config" DESTDIR="$DEST" install >/dev/null || return 1
	fi
	chmod -R a+rX "$DEST"
}

# Start the three nodes: Citus preloaded, nddup from the DESTDIR.
start_cluster() {
	local node
	for node in "${NODES[@]}"; do
		PORT[$node]=$(free_port)
		while [ "$node" != coordinator ] && { [ "${PORT[$node]}" = "${PORT[coordinator]}" ] ||
			[ "${PORT[$node]}" = "${PORT[worker1]:-}" -a "$node" = worker2 ]; }; do
			PORT[$node]=$(free_port)
		done
		as_pg initdb -D "$WORKDIR/$node" -U "$PG_USER" -A trust --encoding=UTF8 \
			--locale=C.UTF-8 >/dev/null || return 1
		cat >>"$WORKDIR/$node/postgresql.conf" <<CONF
port = ${PORT[$node]}
listen_addresses = '127.0.0.1'
unix_socket_directories = '$WORKDIR'
shared_preload_libraries = 'citus'
extension_destdir = '$DEST'
max_prepared_transactions = 100
max_connections = 150
shared_buffers = 128MB
fsync = off
synchronous_commit = off
jit = off
${CLUSTER_CONF:-}
CONF
		if [ "$NDDUP_CITUS_DESTDIR" != system ]; then
			# Citus loads citus_columnar by a bare name, found only through
			# dynamic_library_path; its version check reads
			# pg_available_extensions(), which does not see extension_destdir
			cat >>"$WORKDIR/$node/postgresql.conf" <<CONF
dynamic_library_path = '$DEST$PKGLIBDIR:\$libdir'
citus.enable_version_checks = off
columnar.enable_version_checks = off
CONF
		fi
		as_pg pg_ctl -D "$WORKDIR/$node" -l "$WORKDIR/$node.log" -w start >/dev/null ||
			{ tail -5 "$WORKDIR/$node.log"; return 1; }
	done
	for node in worker1 worker2 coordinator; do
		node_sql "$node" -c "CREATE EXTENSION citus" -c "CREATE EXTENSION nddup" >/dev/null || return 1
	done
	node_sql coordinator -c "SELECT citus_set_coordinator_host('127.0.0.1', ${PORT[coordinator]})" \
		-c "SELECT citus_add_node('127.0.0.1', ${PORT[worker1]})" \
		-c "SELECT citus_add_node('127.0.0.1', ${PORT[worker2]})" >/dev/null
}

# Stop the nodes that run.
stop_cluster() {
	local node
	[ "${KEEP:-0}" = 1 ] && { echo "== citus: cluster kept in $WORKDIR (coordinator port ${PORT[coordinator]:-})"; return; }
	for node in "${NODES[@]}"; do
		[ -f "$WORKDIR/$node/postmaster.pid" ] &&
			as_pg pg_ctl -D "$WORKDIR/$node" -m fast -w stop >/dev/null 2>&1
	done
}

# psql on a node.
node_sql() {
	local node=$1; shift
	as_pg psql -X -q -v ON_ERROR_STOP=1 -h "$WORKDIR" -p "${PORT[$node]}" -U "$PG_USER" -d postgres "$@"
}
