#!/usr/bin/env bash
# Benchmark of the batch functions (src/batch/batch.c, docs/reports/bench-batch.md):
# all pairs within Hamming 3 and 12, clustering, peak backend memory and
# cancellation latency, beside a plain SQL self-join on a sample and, when
# simhash64_gin_ops exists, a LATERAL index-probe join on a sample.
#
# Runs its own temporary PostgreSQL instance as the postgres user (initdb in
# a temporary directory, a port in 22000-22999, the unix socket in that
# directory), so it disturbs nothing else.
#
# usage: test/bench/batch_bench.sh [--10m] [--repeat N] [--r12-10m] [--no-r12]
#                                    [--no-compare] [--no-build]
#   --10m        also run 10M fingerprints (needs about 3 GB of RAM and time)
#   --repeat N   repetitions of each timed call (default 3; min and median)
#   --r12-10m    also radius 12 at 10M (hours)
#   --no-r12     skip radius 12 altogether
#   --no-compare skip the SQL self-join and GIN comparisons
#   --no-build   do not build and install the extension first

set -euo pipefail
source "$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/scripts/lib.sh"

SIZES=(1000000)
REPEAT=3
R12_10M=0
R12=1
COMPARE=1
BUILD=1
while [ $# -gt 0 ]; do
	case "$1" in
		--10m) SIZES=(1000000 10000000) ;;
		--repeat) REPEAT=$2; shift ;;
		--r12-10m) R12_10M=1 ;;
		--no-r12) R12=0 ;;
		--no-compare) COMPARE=0 ;;
		--no-build) BUILD=0 ;;
		*) echo "unknown option $1" >&2; exit 2 ;;
	esac
	shift
done

[ $BUILD = 1 ] && build_and_install

make_workdir
# a port in 22000-22999 that nothing listens on
for _ in $(seq 1 50); do
	PGPORT=$((22000 + RANDOM % 1000))
	if ! (exec 3<>/dev/tcp/127.0.0.1/$PGPORT) 2>/dev/null && [ ! -e "$WORKDIR/.s.PGSQL.$PGPORT" ]; then
		break
	fi
done
export PGPORT PGHOST=$WORKDIR PGDATABASE=postgres PGUSER=$PG_USER
as_pg initdb -D "$WORKDIR/data" -U "$PG_USER" --encoding=UTF8 --locale=C.UTF-8 >/dev/null
cat >>"$WORKDIR/data/postgresql.conf" <<CONF
listen_addresses = ''
port = $PGPORT
unix_socket_directories = '$WORKDIR'
shared_buffers = 1GB
fsync = off
synchronous_commit = off
max_wal_size = 8GB
jit = off
CONF
as_pg pg_ctl -D "$WORKDIR/data" -l "$WORKDIR/server.log" -w start >/dev/null
trap stop_instance EXIT

q() { pg_sql -At "$@"; }

echo "# nddup batch benchmark, $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo) RAM"
echo "server: $(q -c 'SELECT version()' | cut -d, -f1); port $PGPORT"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "repeat: $REPEAT (min and median of the repetitions are reported)"
echo

pg_sql -q <<'SQL'
CREATE EXTENSION nddup;
-- time one call inside the backend: (ms, result rows, peak anonymous growth)
CREATE FUNCTION bench(sql text) RETURNS TABLE (ms numeric, n bigint, peak_mb numeric)
LANGUAGE plpgsql AS $$
DECLARE
	t0 timestamptz;
	rss0 bigint;
BEGIN
	-- reset the peak resident size of this backend (Linux clear_refs 5)
	EXECUTE 'COPY (SELECT 5) TO ''/proc/self/clear_refs''';
	rss0 := substring(pg_read_file('/proc/self/status') FROM 'VmRSS:\s+(\d+)')::bigint;
	t0 := clock_timestamp();
	EXECUTE 'SELECT count(*) FROM ' || sql INTO n;
	ms := round(extract(epoch FROM clock_timestamp() - t0)::numeric * 1000, 1);
	peak_mb := round((substring(pg_read_file('/proc/self/status') FROM 'VmHWM:\s+(\d+)')::bigint - rss0) / 1024.0, 1);
	RETURN NEXT;
END $$;
-- elapsed time of a call until the statement_timeout set before the calling
-- statement cancels it (the timer starts with the statement)
CREATE FUNCTION cancel_latency(sql text) RETURNS numeric
LANGUAGE plpgsql AS $$
DECLARE
	t0 timestamptz;
	n bigint;
BEGIN
	t0 := clock_timestamp();
	BEGIN
		EXECUTE 'SELECT count(*) FROM ' || sql INTO n;
	EXCEPTION WHEN query_canceled THEN
		RETURN round(extract(epoch FROM clock_timestamp() - t0)::numeric * 1000, 1);
	END;
	RETURN NULL;	-- finished before the timeout
END $$;
SQL

# Run a timed call REPEAT times in fresh sessions; print min / median / rows / peak.
timed() {
	local label=$1 sql=$2 wm=$3 reps=${4:-$REPEAT}
	local out=()
	for _ in $(seq 1 "$reps"); do
		out+=("$(q -F' ' -c "SET work_mem = '$wm'; SELECT count(*) FROM docs; SELECT * FROM bench(\$q\$$sql\$q\$)" | tail -1)")
	done
	printf '%s\n' "${out[@]}" | sort -n -k1 | awk -v label="$label" -v wm="$wm" '
		{ ms[NR] = $1; n = $2; if ($3 > peak) peak = $3 }
		END { med = ms[int((NR + 1) / 2)];
			  printf "| %s | %.0f | %.0f | %d | %.0f | %s |\n", label, ms[1], med, n, peak, wm }'
}

for N in "${SIZES[@]}"; do
	echo "## $N fingerprints (90 % random, 10 % planted variants of 1-6 flipped bits)"
	t0=$(date +%s.%N)
	pg_sql -q -v n="$N" <<'SQL'
DROP TABLE IF EXISTS docs;
CREATE UNLOGGED TABLE docs (id bigint, fp simhash64);
INSERT INTO docs SELECT g, hashint8extended(g, 42)::simhash64 FROM generate_series(1, :n * 9 / 10) g;
INSERT INTO docs
SELECT :n * 9 / 10 + g,
	(b.fp::bigint
	 # (1::bigint << (hashint8extended(g, 101) & 63)::int)
	 # CASE WHEN g % 6 >= 1 THEN 1::bigint << (hashint8extended(g, 102) & 63)::int ELSE 0 END
	 # CASE WHEN g % 6 >= 2 THEN 1::bigint << (hashint8extended(g, 103) & 63)::int ELSE 0 END
	 # CASE WHEN g % 6 >= 3 THEN 1::bigint << (hashint8extended(g, 104) & 63)::int ELSE 0 END
	 # CASE WHEN g % 6 >= 4 THEN 1::bigint << (hashint8extended(g, 105) & 63)::int ELSE 0 END
	 # CASE WHEN g % 6 >= 5 THEN 1::bigint << (hashint8extended(g, 106) & 63)::int ELSE 0 END)::simhash64
FROM generate_series(1, :n / 10) g
JOIN docs b ON b.id = 1 + (hashint8extended(g, 7) & 2147483647) % (:n * 9 / 10);
VACUUM ANALYZE docs;
SQL
	printf 'data generated in %.0f s\n\n' "$(echo "$(date +%s.%N) - $t0" | bc)"

	WM=$([ "$N" -gt 1000000 ] && echo 2GB || echo 256MB)
	echo "| call | min ms | median ms | result rows | peak MB | work_mem |"
	echo "|---|---|---|---|---|---|"
	timed "read only: hamming_pairs radius 0" "hamming_pairs('SELECT id, fp FROM docs', 0)" "$WM"
	timed "hamming_pairs radius 3" "hamming_pairs('SELECT id, fp FROM docs', 3)" "$WM"
	timed "hamming_pairs(docs, id, fp) radius 3" "hamming_pairs('docs', 'id', 'fp', 3)" "$WM"
	timed "hamming_clusters radius 3, no singletons" "hamming_clusters('SELECT id, fp FROM docs', 3, false)" "$WM"
	timed "hamming_clusters radius 3, with singletons" "hamming_clusters('SELECT id, fp FROM docs', 3)" "$WM"
	if [ "$N" -le 1000000 ]; then
		timed "hamming_pairs radius 3, spilling (work_mem 16MB)" "hamming_pairs('SELECT id, fp FROM docs', 3)" 16MB 1
	fi
	if [ $R12 = 1 ] && { [ "$N" -le 1000000 ] || [ $R12_10M = 1 ]; }; then
		timed "hamming_pairs radius 12" "hamming_pairs('SELECT id, fp FROM docs', 12)" "$WM" 1
	fi
	echo
	for timeout in 1000 3000; do
		echo "cancellation: statement_timeout $timeout ms during hamming_pairs radius 12 over $N rows: the error came after $(q -c "SET work_mem = '$WM'; SET statement_timeout = $timeout; SELECT cancel_latency(\$\$hamming_pairs('SELECT id, fp FROM docs', 12)\$\$)" | tail -1) ms"
	done
	echo

	[ $COMPARE = 1 ] || continue
	# the alternatives, on samples, scaled by the number of pairs
	S=20000
	pg_sql -q -c "DROP TABLE IF EXISTS sample; CREATE TABLE sample AS SELECT * FROM docs WHERE id % ($N / $S) = 0; ANALYZE sample"
	ns=$(q -c "SELECT count(*) FROM sample")
	r=$(q -F' ' -c "SELECT * FROM bench(\$q\$(SELECT 1 FROM sample a JOIN sample b ON a.id < b.id AND a.fp <-> b.fp <= 3) x\$q\$)")
	ms=${r%% *}
	echo "plain SQL self-join on a $ns-row sample, radius 3: $ms ms; scaled by ($N / $ns)^2: $(echo "$ms * ($N / $ns)^2 / 1000" | bc) s for all $N"
	if [ "$(q -c "SELECT count(*) FROM pg_opclass WHERE opcname = 'simhash64_gin_ops'")" != 0 ]; then
		t0=$(date +%s.%N)
		pg_sql -q -c "SET maintenance_work_mem = '1GB'; CREATE INDEX docs_fp_gin ON docs USING gin (fp simhash64_gin_ops)"
		printf 'GIN index (simhash64_gin_ops, default options) built in %.1f s\n' "$(echo "$(date +%s.%N) - $t0" | bc)"
		P=2000
		pg_sql -q -c "DROP TABLE IF EXISTS probe; CREATE TABLE probe AS SELECT * FROM docs WHERE id % ($N / $P) = 0; ANALYZE probe"
		np=$(q -c "SELECT count(*) FROM probe")
		r=$(q -F' ' -c "SET enable_seqscan = off; SELECT * FROM bench(\$q\$probe p CROSS JOIN LATERAL (SELECT d.id FROM docs d WHERE d.fp <@ ball(p.fp, 3) AND d.id <> p.id) x\$q\$)")
		ms=${r%% *}
		echo "LATERAL GIN probe join, $np probe rows against all $N, radius 3: $ms ms; scaled by $N / $np: $(echo "scale=1; $ms * $N / $np / 1000" | bc) s for all $N"
		pg_sql -q -c "DROP INDEX docs_fp_gin"
	else
		echo "GIN opclass simhash64_gin_ops not installed: no index-probe comparison"
	fi
	echo
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
