#!/usr/bin/env bash
# Shared start of the scripts in test/bench/reliability: lowest priority, build and
# install (unless BUILD=0), a private temporary instance (scripts/lib.sh)
# without JIT, and a header line about the machine.  Source it after setting
# BUILD; then call reliability_start "title".

source "$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)/scripts/lib.sh"

# Start at nice 19 (the server inherits it), set up the instance, print the header.
reliability_start() {
	local title=$1

	renice -n 19 $$ >/dev/null
	[ "${BUILD:-1}" = 1 ] && build_and_install
	make_workdir
	start_instance
	pg_sql -q -c "ALTER SYSTEM SET jit = off" -c "SELECT pg_reload_conf()" >/dev/null
	echo "# $title, $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo) RAM; $(pg_sql -Atc 'SELECT version()' | cut -d, -f1); shared_buffers $(pg_sql -Atc 'SHOW shared_buffers')"
	echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
}
