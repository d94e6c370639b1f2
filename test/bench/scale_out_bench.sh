#!/usr/bin/env bash
# Benchmark of nddup on Citus against one node (docs/reports/bench-scale-out.md):
# the same fingerprints and sketches in a table of the coordinator and in a
# table distributed over two workers, on this machine:
#
#   - hamming_pairs at radius 3 and 12, hamming_clusters, minhash_pairs and
#     minhash_clusters: wall time (inside the backend), the rows and payload
#     bytes the coordinator receives (the functions' progress report) and
#     the bytes on its TCP connections to the workers (ss), and the CPU time
#     of each node (its processes, from /proc), hence the coordinator's share;
#   - a radius query (within(fp, q, 3)): average latency over pgbench runs;
#   - 8 pgbench clients inserting near-duplicates through the coordinator
#     with nddup_original(): throughput, missed near-duplicates and groups
#     with two originals;
#   - the same with the N rows stored: nddup_original() (one query on every
#     shard) beside nddup_original_routed() (a key table distributed by
#     key, for each key shard count asked for), all in one run, then the
#     same checks on the rows inserted.
#
#   NDDUP_CITUS_DESTDIR=... test/bench/scale_out_bench.sh [--rows N] [--sketches N]
#       [--no-r12] [--no-sketches] [--no-batch] [--insert-only] [--inserts N]
#       [--key-shards "S ..."] [--keep]
#
# --insert-only: only the insert-time checks (no batch calls, no radius
# query); --inserts N: inserts per client in the comparison at N rows
# stored (default 100); --key-shards: the shard counts of the routed
# check's key table, each with its own copy of the table, run side by side
# (default 2, one shard per worker).
#
# Defaults: 1,000,000 fingerprints (90 % random, 10 % planted variants of
# 1-6 flipped bits, as test/bench/batch_bench.sh) and 1,000,000 sketches
# (800,000 documents of 40 words and 200,000 one-word variants, as
# test/bench/sketch_pairs_bench.sh).  Without NDDUP_CITUS_DESTDIR it says
# so in one line (test/citus/run.sh describes the variable).

source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"
source "$NDDUP_ROOT/test/citus/cluster.sh"
set +e

ROWS=1000000
SKETCHES=1000000
R12=1
SK=1
BATCH=1
QUERY=1
INSERTS=100
KEY_SHARDS=2
while [ $# -gt 0 ]; do
	case $1 in
		--rows) ROWS=$2; shift 2 ;;
		--sketches) SKETCHES=$2; shift 2 ;;
		--no-r12) R12=0; shift ;;
		--no-sketches) SK=0; shift ;;
		--no-batch) BATCH=0; SK=0; shift ;;
		--insert-only) BATCH=0; SK=0; QUERY=0; shift ;;
		--inserts) INSERTS=$2; shift 2 ;;
		--key-shards) KEY_SHARDS=$2; shift 2 ;;
		--keep) KEEP=1; shift ;;
		*) echo "unknown option $1"; exit 2 ;;
	esac
done

citus_find || exit 0
make_workdir
trap 'stop_cluster; [ "${KEEP:-0}" = 1 ] || rm -rf "$WORKDIR"' EXIT
citus_install || { echo "build failed"; exit 1; }
CLUSTER_CONF="shared_buffers = 1GB
work_mem = 1GB
maintenance_work_mem = 1GB
max_wal_size = 8GB
citus.max_cached_conns_per_worker = 16"
start_cluster || { echo "the cluster did not start"; exit 1; }
coord() { node_sql coordinator "$@"; }
declare -A TPS

echo "# nddup on Citus: one node against coordinator + 2 workers"
echo
echo "$(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), $(free -g | awk '/Mem:/ {print $2}') GiB,"\
	"PostgreSQL $("$PG_BIN/pg_config" --version | cut -d' ' -f2), $CITUS_SO, $(date -u '+%F %H:%M UTC')"
echo

# ---------------------------------------------------------------- data
coord -v n="$ROWS" <<'SQL'
SET citus.shard_count = 32;
CREATE FUNCTION bench_time(q text, OUT ms float8, OUT n bigint) LANGUAGE plpgsql AS $$
DECLARE
	t0 timestamptz := clock_timestamp();
BEGIN
	EXECUTE 'SELECT count(*) FROM (' || q || ') s' INTO n;
	ms := extract(epoch FROM clock_timestamp() - t0) * 1000;
END
$$;
CREATE TABLE fps_local (id bigint PRIMARY KEY, fp simhash64);
INSERT INTO fps_local SELECT g, hashint8extended(g, 42)::simhash64 FROM generate_series(1, :n * 9 / 10) g;
INSERT INTO fps_local
SELECT :n * 9 / 10 + g,
	(b.fp::bigint
	 # (1::bigint << (hashint8extended(g, 101) & 63)::int)
	 # CASE WHEN g % 6 >= 1 THEN 1::bigint << (hashint8extended(g, 102) & 63)::int ELSE 0 END
	 # CASE WHEN g % 6 >= 2 THEN 1::bigint << (hashint8extended(g, 103) & 63)::int ELSE 0 END
	 # CASE WHEN g % 6 >= 3 THEN 1::bigint << (hashint8extended(g, 104) & 63)::int ELSE 0 END
	 # CASE WHEN g % 6 >= 4 THEN 1::bigint << (hashint8extended(g, 105) & 63)::int ELSE 0 END
	 # CASE WHEN g % 6 >= 5 THEN 1::bigint << (hashint8extended(g, 106) & 63)::int ELSE 0 END)::simhash64
FROM generate_series(1, :n / 10) g
JOIN fps_local b ON b.id = 1 + (hashint8extended(g, 7) & 2147483647) % (:n * 9 / 10);
CREATE TABLE fps (id bigint PRIMARY KEY, fp simhash64);
SELECT create_distributed_table('fps', 'id');
INSERT INTO fps SELECT * FROM fps_local;
CREATE INDEX ON fps_local USING gin (fp simhash64_gin_ops);
CREATE INDEX ON fps USING gin (fp simhash64_gin_ops);
VACUUM ANALYZE fps_local;
VACUUM ANALYZE fps;
SQL
if [ "$QUERY" = 1 ]; then
	coord <<'SQL'
CREATE TABLE fps4 (id bigint PRIMARY KEY, fp simhash64);
SELECT create_distributed_table('fps4', 'id', shard_count => 4);
INSERT INTO fps4 SELECT * FROM fps_local;
CREATE INDEX ON fps4 USING gin (fp simhash64_gin_ops);
VACUUM ANALYZE fps4;
SQL
fi
if [ "$SK" = 1 ]; then
	coord -v n="$SKETCHES" <<'SQL'
SET citus.shard_count = 32;
CREATE UNLOGGED TABLE bdocs AS
SELECT g AS id, rtrim(regexp_replace(md5('a' || g) || md5('b' || g) || md5('c' || g) || md5('d' || g)
	|| md5('e' || g), '(....)', '\1 ', 'g')) AS body
FROM generate_series(1, :n * 4 / 5) g;
INSERT INTO bdocs
SELECT :n * 4 / 5 + v, overlay(b.body placing substr(md5('v' || v), 1, 4) from 5 * (v % 38 + 1) + 1 for 4)
FROM generate_series(1, :n / 5) v JOIN bdocs b ON b.id = 1 + v % (:n / 20);
CREATE TABLE bsk_local (id bigint PRIMARY KEY, s minhash_sketch);
INSERT INTO bsk_local SELECT id, minhash(body) FROM bdocs;
DROP TABLE bdocs;
CREATE TABLE bsk (id bigint PRIMARY KEY, s minhash_sketch);
SELECT create_distributed_table('bsk', 'id');
INSERT INTO bsk SELECT * FROM bsk_local;
VACUUM ANALYZE bsk_local;
VACUUM ANALYZE bsk;
SQL
fi

# ---------------------------------------------------------------- measures

# CPU ticks (1/CLK_TCK s) of a node: its postmaster, the children it reaped
# and the children that run.
cpu_ticks() {
	local pid total=0 f
	pid=$(head -1 "$WORKDIR/$1/postmaster.pid")
	read -r -a f <<<"$(sed 's/^.*) //' "/proc/$pid/stat")"
	total=$((f[11] + f[12] + f[13] + f[14]))
	for c in $(pgrep -P "$pid"); do
		[ -r "/proc/$c/stat" ] || continue
		read -r -a f <<<"$(sed 's/^.*) //' "/proc/$c/stat" 2>/dev/null)"
		total=$((total + f[11] + f[12]))
	done
	echo "$total"
}

# Bytes received so far on each TCP connection of backend $1 (the measuring
# session's, whose Citus connections to the workers stay cached), as lines
# "local-address bytes".
coord_conn_bytes() {
	ss -tinpH "( dport = :${PORT[worker1]} or dport = :${PORT[worker2]} )" 2>/dev/null |
		awk -v pid="$1" '
			/^ESTAB/ { keep = index($0, "pid=" pid ","); local = $4; next }
			keep && match($0, /bytes_received:[0-9]+/) { print local, substr($0, RSTART + 15, RLENGTH - 15) }'
}

# Bytes received between two coord_conn_bytes snapshots (a connection opened
# in between counts from 0; one closed in between is lost: an undercount).
bytes_between() {
	awk 'NR == FNR { before[$1] = $2; next } { s += $2 - ($1 in before ? before[$1] : 0) } END { print s + 0 }' "$1" "$2"
}

# One psql session on the coordinator for all measures: sql_session runs a
# statement there and prints its output (NOTICEs included).
coproc PSQL { as_pg psql -X -q -At -h "$WORKDIR" -p "${PORT[coordinator]}" -U "$PG_USER" -d postgres 2>&1; }
sql_session() {
	local line
	printf '%s\n\\echo __done__\n' "$1" >&"${PSQL[1]}"
	while IFS= read -r line <&"${PSQL[0]}"; do
		[ "$line" = __done__ ] && break
		echo "$line"
	done
}
sql_session "SET nddup.progress = on;" >/dev/null
SESSION_PID=$(sql_session "SELECT pg_backend_pid();")

HZ=$(getconf CLK_TCK)
load() { cut -d' ' -f1 /proc/loadavg; }

# Run one call on the coordinator; sets MS, N, RECV (rows received), RBYTES
# (their payload), NETB (bytes on the wire from the workers), CPU_C/W1/W2 (s).
measure() {
	local sql=$1 out c0 w10 w20 c1 w11 w21
	c0=$(cpu_ticks coordinator); w10=$(cpu_ticks worker1); w20=$(cpu_ticks worker2)
	coord_conn_bytes "$SESSION_PID" >"$WORKDIR/conn.before"
	out=$(sql_session "SELECT ms || ' ' || n FROM bench_time(\$q\$$sql\$q\$);")
	c1=$(cpu_ticks coordinator); w11=$(cpu_ticks worker1); w21=$(cpu_ticks worker2)
	coord_conn_bytes "$SESSION_PID" >"$WORKDIR/conn.after"
	read -r MS N <<<"$(echo "$out" | grep -E '^[0-9.]+ [0-9]+$' | tail -1)"
	PAIRS=$(echo "$out" | sed -n 's/.* \([0-9]*\) pairs or edges;.*/\1/p' | tail -1)
	RECV=$(echo "$out" | sed -n 's/.*received \([0-9]*\) rows (\([0-9]*\) bytes).*/\1/p' | tail -1)
	RBYTES=$(echo "$out" | sed -n 's/.*received \([0-9]*\) rows (\([0-9]*\) bytes).*/\2/p' | tail -1)
	NETB=$(bytes_between "$WORKDIR/conn.before" "$WORKDIR/conn.after")
	CPU_C=$(echo "scale=2; ($c1 - $c0) / $HZ" | bc)
	CPU_W1=$(echo "scale=2; ($w11 - $w10) / $HZ" | bc)
	CPU_W2=$(echo "scale=2; ($w21 - $w20) / $HZ" | bc)
	[ -n "$MS" ] || { echo "failed: $sql"; echo "$out" | tail -5; }
}

# A warm-up: the session's connections to the workers are opened and cached
sql_session "SELECT count(*) FROM fps; SELECT count(*) FROM hamming_pairs('SELECT id, fp FROM fps WHERE id < 1000', 3);" >/dev/null

# One line of the table: label, local call, distributed call.
row() {
	local label=$1 lsql=$2 dsql=$3 lms lload
	measure "$lsql"; lms=$MS; lload=$(load)
	measure "$dsql"
	echo "| $label | $N | $(printf '%.0f' "$lms") ($lload) | $(printf '%.0f' "$MS") ($(load)) | $(echo "scale=2; $MS / $lms" | bc) |"\
		"${PAIRS:-0} | ${RECV:-0} (${RBYTES:-0}) | $NETB | $CPU_C / $CPU_W1 / $CPU_W2 |"\
		"$(echo "scale=1; 100 * $CPU_C / ($CPU_C + $CPU_W1 + $CPU_W2 + 0.001)" | bc) % |"
}

if [ "$BATCH" = 1 ]; then
	echo "| call | result rows | one node ms (load) | distributed ms (load) | ratio | pairs (edges) found on the workers | rows to the coordinator (payload bytes) | bytes on the wire to the coordinator | CPU s: coordinator / worker 1 / worker 2 | coordinator share |"
	echo "|---|---|---|---|---|---|---|---|---|---|"
	row "hamming_pairs, radius 3" "SELECT * FROM hamming_pairs('fps_local', 'id', 'fp', 3)" \
		"SELECT * FROM hamming_pairs('fps', 'id', 'fp', 3)"
	row "hamming_clusters, radius 3, singletons => false" \
		"SELECT * FROM hamming_clusters('fps_local', 'id', 'fp', 3, singletons => false)" \
		"SELECT * FROM hamming_clusters('fps', 'id', 'fp', 3, singletons => false)"
	row "hamming_clusters, radius 3 (one row per id)" \
		"SELECT * FROM hamming_clusters('fps_local', 'id', 'fp', 3)" \
		"SELECT * FROM hamming_clusters('fps', 'id', 'fp', 3)"
	if [ "$R12" = 1 ]; then
		row "hamming_pairs, radius 12" "SELECT * FROM hamming_pairs('fps_local', 'id', 'fp', 12)" \
			"SELECT * FROM hamming_pairs('fps', 'id', 'fp', 12)"
		row "hamming_clusters, radius 12, singletons => false" \
			"SELECT * FROM hamming_clusters('fps_local', 'id', 'fp', 12, singletons => false)" \
			"SELECT * FROM hamming_clusters('fps', 'id', 'fp', 12, singletons => false)"
	fi
	if [ "$SK" = 1 ]; then
		row "minhash_pairs, threshold 0.8" "SELECT * FROM minhash_pairs('bsk_local', 'id', 's', 0.8)" \
			"SELECT * FROM minhash_pairs('bsk', 'id', 's', 0.8)"
		row "minhash_clusters, threshold 0.8, singletons => false" \
			"SELECT * FROM minhash_clusters('bsk_local', 'id', 's', 0.8, singletons => false)" \
			"SELECT * FROM minhash_clusters('bsk', 'id', 's', 0.8, singletons => false)"
	fi
	echo
fi

# ---------------------------------------------------------------- radius query
[ "$QUERY" = 1 ] && {
cat >"$WORKDIR/radius_local.pgbench" <<'EOF'
\set i random(1, 900000)
SELECT count(*) FROM fps_local WHERE within(fp, hashint8extended(:i, 42)::simhash64, 3);
EOF
sed 's/fps_local/fps/' "$WORKDIR/radius_local.pgbench" >"$WORKDIR/radius_dist.pgbench"
sed 's/fps_local/fps4/' "$WORKDIR/radius_local.pgbench" >"$WORKDIR/radius_dist4.pgbench"
[ "$(id -u)" = 0 ] && chown "$PG_USER" "$WORKDIR"/*.pgbench
echo "| radius query within(fp, q, 3), 1 client, 500 queries | latency average ms (load) |"
echo "|---|---|"
for t in local dist dist4; do
	lat=$(as_pg pgbench -n -h "$WORKDIR" -p "${PORT[coordinator]}" -U "$PG_USER" -c 1 -t 500 \
		-f "$WORKDIR/radius_$t.pgbench" postgres 2>&1 | sed -n 's/^latency average = \([0-9.]*\) ms/\1/p')
	case $t in
		local) what="one node (fps_local)" ;;
		dist) what="distributed, 32 shards (fps)" ;;
		dist4) what="distributed, 4 shards (fps4)" ;;
	esac
	echo "| $what | $lat ($(load)) |"
done
echo
}

# ---------------------------------------------------------------- insert-time check
coord -f "$NDDUP_ROOT/test/citus/concurrency_setup.sql" >/dev/null
l0=$(load)
for script in insert_original insert_routed insert_scoped; do
	TPS[$script]=$(as_pg pgbench -n -h "$WORKDIR" -p "${PORT[coordinator]}" -U "$PG_USER" -c 8 -j 2 -t 100 \
		--random-seed=20261125 -f "$NDDUP_ROOT/test/citus/$script.pgbench" postgres 2>&1 |
		sed -n 's/^tps = \([0-9.]*\) .*/\1/p')
done
echo "8 pgbench clients, 100 inserts each, empty tables (load $l0 before, $(load) after): nddup_original() ${TPS[insert_original]} inserts/s,"\
	"nddup_original_routed() ${TPS[insert_routed]} inserts/s, site-scoped trigger ${TPS[insert_scoped]} inserts/s"
echo
echo '```'
coord -At -f "$NDDUP_ROOT/test/citus/check_concurrency.sql"
echo '```'
echo

# ---------------------------------------------------------------- insert-time check, N rows stored
# Tables distributed by id holding the N fingerprints (as originals):
# ins_all for nddup_original(), and for nddup_original_routed() one table
# per key shard count S of --key-shards, ins_routed (S = 2, one shard per
# worker) or ins_routed_S, with its key table ins_routed[_S]_keys (the
# block keys at radius 3 of every row, distributed by key over S shards).
# Two workloads, each run with every form: "variants", every insert a
# variant of one of 100 bases (one bit flipped: groups of near-duplicates,
# as test/citus), and "mixed", with even odds such a variant or a fresh
# random fingerprint (a group of its own, an original that stores its
# keys); base is the group.
coord -v n="$ROWS" >/dev/null <<'SQL'
CREATE SEQUENCE ins_ids START 1;
SELECT setval('ins_ids', :n);
CREATE TABLE ins_all (id bigint PRIMARY KEY, base bigint, fp simhash64, duplicate_of bigint);
SELECT create_distributed_table('ins_all', 'id', colocate_with => 'fps');
INSERT INTO ins_all (id, fp) SELECT id, fp FROM fps;
CREATE INDEX ON ins_all USING gin (fp simhash64_gin_ops);
VACUUM ANALYZE ins_all;
-- the checks of the rows inserted after the first n: groups (base) with
-- one original each, duplicates pointing at it, no original within the
-- radius of another original (stored or inserted)
CREATE FUNCTION ins_check(t regclass, n bigint, OUT what text, OUT value bigint)
RETURNS SETOF record LANGUAGE plpgsql AS $$
DECLARE
	r record;
	missed bigint := 0;
	c bigint;
BEGIN
	CREATE TEMP TABLE ins_new ON COMMIT DROP AS SELECT * FROM ins_all WHERE false;
	EXECUTE format('INSERT INTO ins_new SELECT * FROM %s WHERE id > %s', t, n);
	RETURN QUERY SELECT 'rows inserted', count(*) FROM ins_new;
	RETURN QUERY SELECT 'groups', count(DISTINCT base) FROM ins_new;
	RETURN QUERY SELECT 'originals', count(*) FROM ins_new WHERE duplicate_of IS NULL;
	RETURN QUERY SELECT 'groups without exactly one original (double originals)', count(*)
		FROM (SELECT base FROM ins_new GROUP BY base
			  HAVING count(*) FILTER (WHERE duplicate_of IS NULL) <> 1) s;
	RETURN QUERY SELECT 'duplicates not pointing at the original of their group', count(*)
		FROM ins_new d LEFT JOIN ins_new o ON o.id = d.duplicate_of
		WHERE d.duplicate_of IS NOT NULL AND (o.id IS NULL OR o.base <> d.base OR o.duplicate_of IS NOT NULL);
	FOR r IN SELECT id, fp FROM ins_new WHERE duplicate_of IS NULL LOOP
		EXECUTE format('SELECT count(*) FROM %s WHERE within(fp, $1, 3) AND duplicate_of IS NULL AND id <> $2', t)
			INTO c USING r.fp, r.id;
		missed := missed + c;
	END LOOP;
	RETURN QUERY SELECT 'originals within the radius of another original (missed near-duplicates)', missed;
END
$$;
SQL
# the routed tables: ins_routed with 2 key shards, ins_routed_S with S
routed_tables=""
for ks in $KEY_SHARDS; do
	if [ "$ks" = 2 ]; then rt=ins_routed; else rt=ins_routed_$ks; fi
	routed_tables="$routed_tables $rt"
	coord -v rt="$rt" -v rk="${rt}_keys" -v ks="$ks" >/dev/null <<'SQL'
CREATE TABLE :rt (id bigint PRIMARY KEY, base bigint, fp simhash64, duplicate_of bigint);
SELECT create_distributed_table(:'rt', 'id', colocate_with => 'fps');
INSERT INTO :rt (id, fp) SELECT id, fp FROM fps;
CREATE TABLE :rk (key bigint NOT NULL, id bigint NOT NULL, sig simhash64 NOT NULL);
SELECT create_distributed_table(:'rk', 'key', shard_count => :ks);
INSERT INTO :rk SELECT k, id, fp FROM :rt, unnest(hamming_block_keys(fp, 3)) k
WHERE duplicate_of IS NULL;
CREATE INDEX ON :rk (key);
VACUUM ANALYZE :rt;
VACUUM ANALYZE :rk;
SQL
done
for w in variants mixed; do
	case $w in
		variants) base='\set base random(1, 100)' ;;
		mixed) base='\set base case when random(0, 1) = 0 then random(1, 100) else random(1000, 1000000000000) end' ;;
	esac
	cat >"$WORKDIR/ins_all_$w.pgbench" <<EOF
$base
\\set bit random(0, 63)
INSERT INTO ins_all (id, base, fp, duplicate_of)
VALUES (nextval('ins_ids'), :base, (hashint8extended(:base::bigint, 7) # (1::bigint << :bit))::simhash64,
	nddup_original('ins_all', '{fingerprint=fp,radius=3}',
				   (hashint8extended(:base::bigint, 7) # (1::bigint << :bit))::simhash64, NULL::bigint));
EOF
	for rt in $routed_tables; do
		cat >"$WORKDIR/${rt}_$w.pgbench" <<EOF
$base
\\set bit random(0, 63)
SELECT nextval('ins_ids') AS id \\gset
INSERT INTO $rt (id, base, fp, duplicate_of)
VALUES (:id, :base, (hashint8extended(:base::bigint, 7) # (1::bigint << :bit))::simhash64,
	nddup_original_routed('$rt', '{fingerprint=fp,radius=3}',
						  (hashint8extended(:base::bigint, 7) # (1::bigint << :bit))::simhash64,
						  :id::bigint, '${rt}_keys'));
EOF
	done
done
[ "$(id -u)" = 0 ] && chown "$PG_USER" "$WORKDIR"/*.pgbench
echo "With $ROWS rows stored: 8 pgbench clients (-j 2), $INSERTS inserts each"
echo
echo "| workload | form | inserts/s | latency ms | load before / after | CPU ms per insert: coordinator / worker 1 / worker 2 |"
echo "|---|---|---|---|---|---|"
runs=""
for w in variants mixed; do
	runs="$runs $w:ins_all"
	for rt in $routed_tables; do runs="$runs $w:$rt"; done
done
for run in $runs; do
	w=${run%%:*} t=${run#*:}
	l0=$(load)
	c0=$(cpu_ticks coordinator); w10=$(cpu_ticks worker1); w20=$(cpu_ticks worker2)
	out=$(as_pg pgbench -n -h "$WORKDIR" -p "${PORT[coordinator]}" -U "$PG_USER" -c 8 -j 2 -t "$INSERTS" \
		--random-seed=20261129 -f "$WORKDIR/${t}_$w.pgbench" postgres 2>&1)
	c1=$(cpu_ticks coordinator); w11=$(cpu_ticks worker1); w21=$(cpu_ticks worker2)
	n=$((8 * INSERTS))
	case $t in
		ins_all) what="nddup_original() (one query on each of 32 shards)" ;;
		ins_routed) what="nddup_original_routed() (key table distributed by key, 2 shards)" ;;
		ins_routed_*) what="nddup_original_routed() (key table distributed by key, ${t#ins_routed_} shards)" ;;
	esac
	echo "| $w | $what | $(echo "$out" | sed -n 's/^tps = \([0-9.]*\) .*/\1/p') |"\
		"$(echo "$out" | sed -n 's/^latency average = \([0-9.]*\) ms/\1/p') | $l0 / $(load) |"\
		"$(echo "scale=2; 1000 * ($c1 - $c0) / $HZ / $n" | bc) / $(echo "scale=2; 1000 * ($w11 - $w10) / $HZ / $n" | bc) /"\
		"$(echo "scale=2; 1000 * ($w21 - $w20) / $HZ / $n" | bc) |"
	echo "$out" | grep -iE 'error|abort' | head -3
done
echo
echo '```'
for t in ins_all $routed_tables; do
	coord -At -F ': ' -c "SELECT '$t: ' || what, value FROM ins_check('$t', $ROWS)"
done
for rt in $routed_tables; do
	coord -At -F ': ' -v n="$ROWS" -v rt="$rt" -v rk="${rt}_keys" <<'SQL'
SELECT :'rk' || ': key rows of the inserted originals / 4 per inserted original',
	(SELECT count(*) FROM :rk WHERE id > :n) || ' / ' ||
	4 * (SELECT count(*) FROM :rt WHERE id > :n AND duplicate_of IS NULL);
SQL
done
echo '```'
