#!/usr/bin/env bash
# Cost and correctness of nddup_dedup_trigger under concurrent inserts.
#
# Starts a private temporary PostgreSQL instance (initdb in a temp dir, a port
# in 24000-24999, unix socket in that dir).  For each table size N it stores N
# documents (precomputed fingerprints: the cost of simhash() is not measured),
# with an index on the fingerprint (the hamming access method, or with
# --index gin simhash64_gin_ops), then inserts a stream with pgbench
# (test/bench/trigger_insert.sql: 15 % copies of stored documents, 15 % copies
# of a hot pool of new documents that all clients insert at the same time,
# 70 % new documents) with 1 and 8 clients:
#   - plain: no trigger (same table, same indexes);
#   - trigger at each radius (lock=blocks), and lock=table at the largest.
# Per run: per-insert latency p50/p99 (pgbench's per-transaction log) and
# throughput; after each trigger run, test/bench/trigger_check.sql counts
# duplicate originals, missed duplicates, bad pointers and wrong originals
# (all must be 0).  The rows of the run are then deleted (VACUUM) so that
# every run starts from N stored documents.  Finally a stress run: 8 clients,
# 10,000 stored documents, a hot pool of 50, STRESS_TX inserts, checked the
# same way.
#
# --method minhash does the same with min-hash sketches: synthetic k = 128
# sketches (test/bench/trigger_minhash.sql: copies change about 5 of the 128
# values), method=minhash at each threshold of --thresholds, an LSH index
# designed for that threshold, and the checks of trigger_minhash_check.sql.
# --method shingleset: synthetic texts of 20 words (copies replace one word,
# test/bench/trigger_shingleset.sql), their exact shingle sets in a column,
# method=shingleset at each threshold (default "0.5 0.3"), the shingleset_ops
# index, and the checks of trigger_minhash_check.sql on the set column.
# --method shingleset --texts mixed: the README's recipe instead, on a mix of
# short and long texts (test/bench/trigger_texts.sql): half the stored texts
# have 8 words (about 60 characters), half 50 words (about 400 characters);
# a body text column, the index on shingle_set(body) WHERE duplicate_of IS
# NULL, and the trigger 'source=body', 'method=shingleset'; the plain run
# computes the same index entries.  The checks are trigger_minhash_check.sql
# with shingle_set(body) for the set column.
# --clients "8" runs only those client counts; --stress-tx 0 skips the stress
# run.
#
# Usage: test/bench/trigger_bench.sh [--sizes "10000 1000000"] [--radii "3 12"]
#            [--method simhash|minhash|shingleset] [--thresholds "0.8 0.5"] [--index hamming|gin]
#            [--texts synthetic|mixed] [--clients "1 8"]
#            [--tx1 2000] [--tx8 4000] [--stress-tx 20000] [--no-install]
set -euo pipefail

source "$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/scripts/lib.sh"

SIZES="10000 1000000"
RADII="3 12"
TX1=2000
TX8=4000
STRESS_TX=20000
HOT=1000
INSTALL=1
METHOD=simhash
THRESHOLDS=
INDEX=hamming
TEXTS=synthetic
CLIENTS="1 8"
while [ $# -gt 0 ]; do
	case "$1" in
		--sizes) SIZES=$2; shift ;;
		--radii) RADII=$2; shift ;;
		--method) METHOD=$2; shift ;;
		--thresholds) THRESHOLDS=$2; shift ;;
		--index) INDEX=$2; shift ;;
		--texts) TEXTS=$2; shift ;;
		--clients) CLIENTS=$2; shift ;;
		--tx1) TX1=$2; shift ;;
		--tx8) TX8=$2; shift ;;
		--stress-tx) STRESS_TX=$2; shift ;;
		--no-install) INSTALL=0 ;;
		*) echo "unknown option: $1" >&2; exit 2 ;;
	esac
	shift
done

[ -n "$THRESHOLDS" ] || THRESHOLDS=$([ "$METHOD" = shingleset ] && echo "0.5 0.3" || echo "0.8 0.5")
[ "$INSTALL" = 1 ] && build_and_install
make_workdir
trap stop_instance EXIT

# a free port in 24000-24999
PGPORT=
for _ in $(seq 50); do
	p=$((24000 + RANDOM % 1000))
	if ! python3 -c "import socket,sys; s=socket.socket(); s.bind(('127.0.0.1',$p))" 2>/dev/null; then continue; fi
	[ -e "/tmp/.s.PGSQL.$p" ] && continue
	PGPORT=$p
	break
done
[ -n "$PGPORT" ] || { echo "no free port in 24000-24999" >&2; exit 1; }
export PGPORT PGHOST=$WORKDIR PGDATABASE=postgres PGUSER=$PG_USER PGOPTIONS='-c client_min_messages=warning'
as_pg initdb -D "$WORKDIR/data" -U "$PG_USER" --encoding=UTF8 --locale=C.UTF-8 >/dev/null
cat >>"$WORKDIR/data/postgresql.conf" <<CONF
listen_addresses = ''
port = $PGPORT
unix_socket_directories = '$WORKDIR'
shared_buffers = 1GB
fsync = off
synchronous_commit = off
full_page_writes = off
autovacuum = off
max_parallel_workers_per_gather = 0
max_wal_size = 4GB
$(instance_settings)
CONF
as_pg pg_ctl -D "$WORKDIR/data" -l "$WORKDIR/server.log" -w start >/dev/null
cp "$NDDUP_ROOT"/test/bench/trigger_{insert,check,minhash,minhash_check,shingleset,texts}.sql "$WORKDIR/"
chmod 644 "$WORKDIR"/*.sql

q() { pg_sql -At -F ' ' "$@"; }

echo "== machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(postgres --version)"
echo "== load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== settings: shared_buffers 1GB, fsync off, synchronous_commit off; method $METHOD; index $(case $METHOD in minhash) echo "GIN minhash_lsh_ops, fastupdate=off" ;; shingleset) echo "GIN shingleset_ops, fastupdate=off" ;; *) echo "$INDEX" ;; esac)$([ "$TEXTS" = mixed ] && echo "; texts: 8 and 50 words, the README recipe")"
q -c "CREATE EXTENSION nddup" -c "CREATE EXTENSION pg_prewarm"

# The method's table, stored rows, index, stream, checks and parameters.
if [ "$METHOD" = minhash ]; then
	# the synthetic sketch of key k (k-permutation layout, k = 128, 32-bit
	# values) with the values at about m of the positions (chosen by salt)
	# replaced
	q >/dev/null <<'SQL'
CREATE FUNCTION bench_sketch(key bigint, m int, salt bigint) RETURNS minhash_sketch
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
SELECT ('kperm k=128 seed=0 size=3 unit=word bits=32: ' ||
		string_agg(lpad(to_hex((CASE WHEN m > 0 AND (hashint8extended(i, salt) & 127) < m
									 THEN hashint8extended(i, salt + 1)
									 ELSE hashint8extended(key, i) END) & 4294967295), 8, '0'),
				   ' ' ORDER BY i))::minhash_sketch
FROM generate_series(0, 127) i
$$;
SQL
	PARAMS=$THRESHOLDS
	SIG_COLUMN="mh minhash_sketch"
	SIG_VALUE="bench_sketch(i, 0, 0)"
	STREAM=trigger_minhash.sql
	CHECK=trigger_minhash_check.sql
	index_sql() { echo "CREATE INDEX posts_fp_idx ON posts USING gin (mh minhash_lsh_ops (threshold = $1)) WITH (fastupdate = off)"; }
	trigger_args() { echo "'fingerprint=mh', 'method=minhash', 'threshold=$1', 'lock=$2'"; }
elif [ "$METHOD" = shingleset ]; then
	# the synthetic text of key k: 20 words, about m of them (chosen by
	# salt) replaced
	q >/dev/null <<'SQL'
CREATE FUNCTION bench_text(key bigint, m int, salt bigint) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
SELECT string_agg(CASE WHEN m > 0 AND i = 1 + (hashint8extended(salt, 7) & 1048575) % 20
					   THEN 'x' || (hashint8extended(salt, i) & 1048575)
					   ELSE 'w' || (hashint8extended(key, i) & 1048575) END, ' ' ORDER BY i)
FROM generate_series(1, 20) i
$$;
SQL
	PARAMS=$THRESHOLDS
	SIG_COLUMN="ss shingleset"
	SIG_VALUE="shingle_set(bench_text(i, 0, 0))"
	STREAM=trigger_shingleset.sql
	CHECK=trigger_minhash_check.sql
	index_sql() { echo "CREATE INDEX posts_fp_idx ON posts USING gin (ss shingleset_ops) WITH (fastupdate = off)"; }
	trigger_args() { echo "'fingerprint=ss', 'method=shingleset', 'threshold=$1', 'lock=$2'"; }
	if [ "$TEXTS" = mixed ]; then
		# the text of key k: 8 words for even keys, 50 for odd ones, about
		# m of them (chosen by salt) replaced
		q >/dev/null <<'SQL'
CREATE OR REPLACE FUNCTION bench_text(key bigint, m int, salt bigint) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
SELECT string_agg(CASE WHEN m > 0 AND i = 1 + (hashint8extended(salt, 7) & 1048575) % w
					   THEN 'x' || (hashint8extended(salt, i) & 1048575)
					   ELSE 'w' || (hashint8extended(key, i) & 1048575) END, ' ' ORDER BY i)
FROM (SELECT CASE WHEN key % 2 = 0 THEN 8 ELSE 50 END AS w) n, generate_series(1, n.w) i
$$;
SQL
		SIG_COLUMN="body text NOT NULL"
		SIG_VALUE="bench_text(i, 0, 0)"
		STREAM=trigger_texts.sql
		# the checks on shingle_set(body) rather than on a set column
		sed 's/\([a-z]\)\.:col/shingle_set(\1.body)/g' "$WORKDIR/trigger_minhash_check.sql" >"$WORKDIR/trigger_texts_check.sql"
		CHECK=trigger_texts_check.sql
		index_sql() { echo "CREATE INDEX posts_fp_idx ON posts USING gin ((shingle_set(body)) shingleset_ops) WITH (fastupdate = off) WHERE duplicate_of IS NULL"; }
		trigger_args() { echo "'source=body', 'method=shingleset', 'threshold=$1', 'lock=$2'"; }
	fi
else
	PARAMS=$RADII
	SIG_COLUMN="fp simhash64"
	SIG_VALUE="hashint8extended(i, 42)::simhash64"
	STREAM=trigger_insert.sql
	CHECK=trigger_check.sql
	if [ "$INDEX" = gin ]; then
		index_sql() { echo "CREATE INDEX posts_fp_idx ON posts USING gin (fp simhash64_gin_ops) WITH (fastupdate = off)"; }
	else
		index_sql() { echo "CREATE INDEX posts_fp_idx ON posts USING hamming (fp)"; }
	fi
	trigger_args() { echo "'fingerprint=fp', 'radius=$1', 'lock=$2'"; }
fi

# create_table n param: n stored documents, the index for param
create_table() {
	q -c "DROP TABLE IF EXISTS posts" \
	  -c "CREATE TABLE posts (id bigserial PRIMARY KEY, k bigint, $SIG_COLUMN, duplicate_of bigint)" \
	  -c "INSERT INTO posts (k, ${SIG_COLUMN%% *}) SELECT i, $SIG_VALUE FROM generate_series(1, $1) i" \
	  -c "$(index_sql "$2")" \
	  -c "VACUUM ANALYZE posts" \
	  -c "SELECT pg_prewarm('posts'), pg_prewarm('posts_fp_idx'), pg_prewarm('posts_pkey')" >/dev/null
}

# p50 and p99 (ms) of the latencies in the pgbench logs with this prefix
percentiles() {
	cat "$1".* | awk '{print $3}' | sort -n | awk '
		{ v[NR] = $1 }
		END { if (NR == 0) { print "- -"; exit }
			  i50 = int(NR * 0.50); if (i50 < 1) i50 = 1
			  i99 = int(NR * 0.99); if (i99 < 1) i99 = 1
			  printf "%.3f %.3f\n", v[i50] / 1000, v[i99] / 1000 }'
}

# run_pgbench label clients transactions n param hot -> sets TPS P50 P99
run_pgbench() {
	local label=$1 clients=$2 tx=$3 n=$4 radius=$5 hot=$6 f=1 out
	if [ "$METHOD" = simhash ]; then
		f=$(( radius / 2 )); [ "$f" -gt 3 ] && f=3; [ "$f" -lt 1 ] && f=1
	fi
	rm -f "$WORKDIR"/log_"$label".*
	if ! out=$(cd "$WORKDIR" && as_pg pgbench -n -c "$clients" -j "$clients" -t $(( tx / clients )) \
		--random-seed=20241122 -D n="$n" -D hot="$hot" -D f="$f" \
		-l --log-prefix="log_$label" -f "$STREAM" 2>&1); then
		echo "pgbench failed ($label):" >&2
		echo "$out" | tail -20 >&2
		exit 1
	fi
	TPS=$(echo "$out" | awk '/^tps/ {printf "%.0f", $3}')
	read -r P50 P99 < <(percentiles "$WORKDIR/log_$label")
}

# reset: back to n stored documents
reset_table() {
	q -c "DROP TRIGGER IF EXISTS dedup ON posts" -c "DELETE FROM posts WHERE id > $1" -c "VACUUM posts" >/dev/null
}

check() {
	pg_sql -v n="$1" -v r="$2" -v col="${SIG_COLUMN%% *}" -f "$WORKDIR/$CHECK" -P footer=off | sed 's/^/    /'
}

# the parameter's label in the output: radius r or threshold t
label_of() { if [ "$METHOD" != simhash ]; then echo "threshold $1"; else echo "radius $1"; fi; }

# run_trigger n clients tx param lock plain_tps plain_p50 plain_p99
run_trigger() {
	local n=$1 clients=$2 tx=$3 param=$4 lock=$5 added50 added99 ratio
	reset_table "$n"
	q -c "CREATE TRIGGER dedup BEFORE INSERT ON posts FOR EACH ROW EXECUTE FUNCTION nddup_dedup_trigger($(trigger_args "$param" "$lock"))" >/dev/null
	run_pgbench "trig_${n}_${clients}_${param}_$lock" "$clients" "$tx" "$n" "$param" "$HOT"
	added50=$(awk -v a="$P50" -v b="$7" 'BEGIN {printf "%+.3f", a - b}')
	added99=$(awk -v a="$P99" -v b="$8" 'BEGIN {printf "%+.3f", a - b}')
	ratio=$(awk -v a="$TPS" -v b="$6" 'BEGIN {printf "%.0f %%", 100 * a / b}')
	echo "   $(label_of "$param") lock=$lock clients=$clients: $TPS inserts/s ($ratio of plain), p50 $P50 ms ($added50), p99 $P99 ms ($added99)"
	RESULTS+=("| $n | $clients | $(label_of "$param"), lock=$lock | $TPS ($ratio) | $P50 ($added50) | $P99 ($added99) |")
	check "$n" "$param"
}

RESULTS=()
for N in $SIZES; do
	echo "== $N stored documents"
	first=1
	for param in $PARAMS; do
		# simhash: one index serves every radius; minhash: an index per threshold
		if [ "$first" = 1 ] || [ "$METHOD" = minhash ]; then
			if [ "$first" = 1 ]; then
				create_table "$N" "$param"
			else
				reset_table "$N"
				q -c "DROP INDEX posts_fp_idx" -c "$(index_sql "$param")" \
				  -c "SELECT pg_prewarm('posts_fp_idx')" >/dev/null
			fi
			for clients in $CLIENTS; do
				tx=$TX1; [ "$clients" = 8 ] && tx=$TX8
				reset_table "$N"
				run_pgbench "plain_${N}_${clients}_$param" "$clients" "$tx" "$N" "$param" "$HOT"
				echo "   plain            clients=$clients: $TPS inserts/s, p50 $P50 ms, p99 $P99 ms"
				RESULTS+=("| $N | $clients | none$(if [ "$METHOD" = minhash ]; then echo " (index for $param)"; fi) | $TPS | $P50 | $P99 |")
				eval "plain_$clients=\"$TPS $P50 $P99\""
			done
		fi
		first=0
		for clients in $CLIENTS; do
			tx=$TX1; [ "$clients" = 8 ] && tx=$TX8
			eval "run_trigger $N $clients $tx $param blocks \$plain_$clients"
		done
	done
	# lock=table at the last parameter, 8 clients
	case " $CLIENTS " in *" 8 "*) eval "run_trigger $N 8 $TX8 $param table \$plain_8" ;; esac
	reset_table "$N"
done

N=10000
param=$(echo $PARAMS | awk '{print $NF}')
if [ "$STRESS_TX" -gt 0 ]; then
	echo "== stress: 8 clients, $STRESS_TX inserts, $N stored documents, hot pool of 50, $(label_of "$param")"
	create_table "$N" "$param"
	q -c "CREATE TRIGGER dedup BEFORE INSERT ON posts FOR EACH ROW EXECUTE FUNCTION nddup_dedup_trigger($(trigger_args "$param" blocks))" >/dev/null
	run_pgbench "stress" 8 "$STRESS_TX" "$N" "$param" 50
	echo "   $(label_of "$param"): $TPS inserts/s, p50 $P50 ms, p99 $P99 ms"
	check "$N" "$param"
fi

echo "== load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| stored | clients | trigger | inserts/s (vs plain) | p50 ms (added) | p99 ms (added) |"
echo "|---|---|---|---|---|---|"
printf '%s\n' "${RESULTS[@]}"
