# Sourced by test/bench/batch_spill_bench.sh and set_pairs_bench.sh, after
# scripts/lib.sh and make_workdir: a private PostgreSQL instance whose data
# directory is temporary (in $WORKDIR) or kept in a given directory and
# reused by the next run, so that generated data survives; and one measured
# call per fresh session: wall time, CPU time, peak memory of the backend,
# temporary bytes (docs/reports/bench-batch-spill.md, "How it was measured").

# bench_start_instance DATA_DIR SHARED_BUFFERS: start the instance (initdb
# first when DATA_DIR holds none); sets PGDATA_DIR, PGHOST, PGPORT; stops
# it (and removes $WORKDIR) on exit.
bench_start_instance() {
	PGDATA_DIR=${1:-$WORKDIR/data}
	local sb=$2
	export PGPORT=$(free_port)
	export PGHOST=$WORKDIR
	export PGDATABASE=postgres
	export PGUSER=$PG_USER
	if [ ! -f "$PGDATA_DIR/PG_VERSION" ]; then
		mkdir -p "$PGDATA_DIR"
		[ "$(id -u)" = 0 ] && chown "$PG_USER" "$PGDATA_DIR"
		chmod 700 "$PGDATA_DIR"
		as_pg initdb -D "$PGDATA_DIR" -U "$PG_USER" --encoding=UTF8 --locale=C.UTF-8 >/dev/null 2>&1
		echo "include_if_exists = 'bench.conf'" | as_pg tee -a "$PGDATA_DIR/postgresql.conf" >/dev/null
	elif [ "$(cat "$PGDATA_DIR/PG_VERSION")" != "$PG_MAJOR" ]; then
		echo "$PGDATA_DIR holds a PostgreSQL $(cat "$PGDATA_DIR/PG_VERSION") cluster, not $PG_MAJOR" >&2
		exit 2
	fi
	as_pg tee "$PGDATA_DIR/bench.conf" >/dev/null <<CONF
listen_addresses = ''
port = $PGPORT
unix_socket_directories = '$WORKDIR'
shared_buffers = $sb
fsync = off
synchronous_commit = off
max_wal_size = 8GB
jit = off
max_parallel_workers_per_gather = 0
$(instance_settings)
CONF
	as_pg pg_ctl -D "$PGDATA_DIR" -l "$WORKDIR/server.log" -w start >/dev/null
	trap bench_stop_instance EXIT
	bench_write_sampler
}

# Stop the instance; remove $WORKDIR (and with it a temporary data directory).
bench_stop_instance() {
	as_pg pg_ctl -D "$PGDATA_DIR" -m fast -w stop >/dev/null 2>&1 || true
	[ -n "${WORKDIR:-}" ] && rm -rf "$WORKDIR"
}

# The machine, the server and the load, for the head of a report.
bench_header() {
	echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo) RAM, MemAvailable $(awk '/MemAvailable/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo)"
	echo "server: $(pg_sql -At -c 'SELECT version()' | cut -d, -f1); shared_buffers $(pg_sql -At -c 'SHOW shared_buffers'); no parallel workers; data directory $PGDATA_DIR"
	echo "commit: $(git -C "$NDDUP_ROOT" log -1 --format='%h %cd' --date=short 2>/dev/null || echo unknown)"
	echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
}

# $WORKDIR/sampler.sh: peak RssAnon, VmRSS, RssShmem of the process
# $BENCH_PID every 20 ms until the stop file exists.
bench_write_sampler() {
	cat >"$WORKDIR/sampler.sh" <<'SAMPLER'
#!/bin/bash
# usage: BENCH_PID=pid sampler.sh OUT STOP: peak RssAnon, VmRSS, RssShmem (kB)
# of the process every 20 ms until the file STOP exists, written to OUT
pid=$BENCH_PID out=$1 stop=$2
ma=0 mr=0 ms=0 n=0
while [ ! -e "$stop" ] && [ -r "/proc/$pid/status" ]; do
	a=0 r=0 s=0
	while read -r k v _; do
		case $k in RssAnon:) a=$v ;; VmRSS:) r=$v ;; RssShmem:) s=$v ;; esac
	done <"/proc/$pid/status"
	[ "$a" -gt "$ma" ] && ma=$a
	[ "$r" -gt "$mr" ] && mr=$r
	[ "$s" -gt "$ms" ] && ms=$s
	n=$((n + 1))
	sleep 0.02
done
rm -f "$stop"
echo "$ma $mr $ms $n" >"$out.tmp" && mv "$out.tmp" "$out"
SAMPLER
	chmod 755 "$WORKDIR/sampler.sh"
	: >"$WORKDIR/runs"
	: >"$WORKDIR/notices"
}

# bench_measure LABEL PATH WORK_MEM CALL AGG [SETTINGS]: one run of
# "SELECT AGG FROM CALL" in a fresh session (maintenance_work_mem 64MB,
# nddup.progress on, then the SQL SETTINGS), the sampler watching it;
# appends a line to $WORKDIR/runs (BENCH_RUN_FIELDS)
# and the last progress lines to $WORKDIR/notices.
bench_measure() {
	local label=$1 path=$2 wm=$3 call=$4 agg=$5 settings=${6:-} load out peak log spilled=no
	load=$(cut -d' ' -f1 /proc/loadavg)
	rm -f "$WORKDIR/sample.out" "$WORKDIR/sample.stop"
	log="$WORKDIR/log.$(date +%s%N)"
	out=$(pg_sql -At -F' ' 2>"$log" <<SQL
SET work_mem = '$wm';
SET maintenance_work_mem = '64MB';
SET nddup.progress = on;
$settings
SELECT temp_bytes AS t0 FROM pg_stat_database WHERE datname = current_database() \gset
SELECT pg_backend_pid() AS pid \gset
\setenv BENCH_PID :pid
\! $WORKDIR/sampler.sh $WORKDIR/sample.out $WORKDIR/sample.stop >/dev/null 2>&1 &
SELECT ms, cpu_ms, wait_ms, replace(result, ' ', ':'), hwm, rss0, anon0, file0, shmem0, anon1, sys_ms, minflt, rchar, wchar FROM bench_call(\$q\$$call\$q\$, \$q\$$agg\$q\$);
\! touch $WORKDIR/sample.stop
SELECT pg_stat_force_next_flush();
SELECT 'TEMP', temp_bytes - :t0 FROM pg_stat_database WHERE datname = current_database();
SQL
) || { echo "failed: $label $path: $call" >&2; cat "$log" >&2; return 1; }
	for _ in $(seq 1 500); do [ -e "$WORKDIR/sample.out" ] && break; sleep 0.02; done
	peak=$(cat "$WORKDIR/sample.out" 2>/dev/null || echo "0 0 0 0")
	grep -q 'through temporary files\|go to a temporary file' "$log" && spilled=yes
	echo "$out" | awk -v head="$label $path $load" -v peak="$peak" -v spilled="$spilled" '
		/^TEMP/ { temp = $2; next }
		NF >= 14 { line = $1; for (i = 2; i <= 10; i++) line = line " " $i; extra = $11 " " $12 " " $13 " " $14 }
		END { print head, line, peak, temp, spilled, extra }' >>"$WORKDIR/runs"
	# (sed, not grep -v: a call that raises no notice, such as the GIN
	# self-join, leaves an empty log, on which grep exits 1, and under
	# set -e -o pipefail that ended the calling script without a message)
	sed -e '/^$/d' -e 's/^psql:[^ ]* //' "$log" | tail -4 | sed "s/^/    [$label $path] /" >>"$WORKDIR/notices"
}

BENCH_RUN_FIELDS="label path load ms cpu_ms wait_ms result VmHWM rss0 anon0 file0 shmem0 anon1 peak_anon peak_rss peak_shmem samples temp_bytes spilled sys_ms minflt rchar wchar (times in ms, memory in kB, temp, rchar, wchar in bytes)"

# bench_footer: the progress lines and every run, for the record.
bench_footer() {
	echo "progress notices of the calls (last lines of each):"
	cat "$WORKDIR/notices"
	echo
	echo "every run: $BENCH_RUN_FIELDS"
	cat "$WORKDIR/runs"
	echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
}

# bench_stats LABEL PATH: one line over the runs of LABEL PATH:
#   runs wall_min wall_median cpu_min cpu_median blocked_median (s) loads
#   result same peak_anon growth bound hwm (MB) temp_gb spilled
#   sys_median (s) minflt_median rchar_median wchar_median (GB)
# (blocked = wall - CPU - waiting for a CPU; "same" says whether all runs
# gave the same result; loads and spilled are comma-joined)
bench_stats() {
	awk -v label="$1" -v path="$2" '
		function sort(arr, n,   i, j, t) {
			for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (arr[j] < arr[i]) { t = arr[i]; arr[i] = arr[j]; arr[j] = t }
		}
		$1 == label && $2 == path {
			k++; w[k] = $4; c[k] = $5; b[k] = $4 - $5 - $6; res[k] = $7
			loads = loads (k == 1 ? "" : ",") $3
			if ($14 / 1024 > pa) pa = $14 / 1024
			if (($14 - $10) / 1024 > pg) pg = ($14 - $10) / 1024
			if ($8 / 1024 > ph) ph = $8 / 1024
			if (($8 - $11 - $12) / 1024 > pb) pb = ($8 - $11 - $12) / 1024
			if ($18 > tb) tb = $18
			sp = sp (k == 1 ? "" : ",") $19
			sy[k] = $20; mf[k] = $21; rc[k] = $22; wc[k] = $23
		}
		END {
			if (k == 0) { print 0; exit }
			same = "yes"; for (i = 2; i <= k; i++) if (res[i] != res[1]) same = "no"
			sort(w, k); sort(c, k); sort(b, k); sort(sy, k); sort(mf, k); sort(rc, k); sort(wc, k)
			m = int((k + 1) / 2)
			printf "%d %.2f %.2f %.2f %.2f %.2f %s %s %s %.1f %.1f %.1f %.1f %.2f %s %.2f %d %.2f %.2f\n",
				k, w[1] / 1000, w[m] / 1000, c[1] / 1000, c[m] / 1000, b[m] / 1000, loads,
				res[1], same, pa, pg, pb, ph, tb / 1073741824, sp, sy[m] / 1000, mf[m],
				rc[m] / 1073741824, wc[m] / 1073741824
		}' "$WORKDIR/runs"
}
