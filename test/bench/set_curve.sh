#!/usr/bin/env bash
# The cost curve of exact word 3-shingle sets of short texts from 100K to
# 10M rows (the shingle-set counterpart of hamming_curve.sh), each search
# figure next to a sequential scan of the stored sets measured in the same
# run, and the growth exponent e of every measure (cost proportional to N^e
# between consecutive sizes).
#
# Per size N (ids 1..N, texts from test/bench/set_curve_gen.c: 4-12 words
# of a Zipf-like vocabulary of 50,000 words, 10 % planted near-copies of an
# earlier row with one word changed, added or removed):
#   - load: COPY (FREEZE) of id and body into a table created in the same
#     transaction, with ss shingleset GENERATED ALWAYS AS (shingle_set(body))
#     STORED (wal_level = minimal: the load writes no WAL);
#   - the GIN index of the trigger's recipe (docs/trigger.md):
#     USING gin ((shingle_set(body)) shingleset_ops) WITH (fastupdate = off):
#     CREATE INDEX time and bytes per row;
#   - NQ searches shingle_set(body) <@ similar_to(q, 0.3) (q: the set of a
#     stored row, spread over the ids), p50 / p99 / mean timed in the server,
#     in a fresh backend and "warm" (in a backend that has just run NQ other
#     searches); the sequential scan similar(ss, q, 0.3) of the first NS
#     queries (the baseline), and the index's answers to those NS queries
#     (count and sum of the ids found) compared with the scan's (mismatches
#     must be 0);
#   - nddup_dedup_trigger('source=body', 'method=shingleset',
#     'threshold=0.3', action=mark): K one-row inserts (new rows of the
#     generator, ids above N: 10 % near-copies) without and with the
#     trigger, per-insert p50 / p99, with N rows stored;
#   - shingleset_pairs and shingleset_clusters at 0.3 (relation forms, on
#     ss) at work_mem 4MB, each in a fresh session (bench_lib.sh's
#     bench_measure), cancelled after --batch-timeout seconds: time, result
#     rows, peak RssAnon of the backend (sampled every 20 ms), temp bytes.
#
# Usage: test/bench/set_curve.sh [--sizes 100K,1M,10M] [--queries 200]
#            [--seq-queries 5] [--inserts 1000] [--batch-timeout 900]
#            [--shared-buffers 4GB] [--maintenance-work-mem 1GB]
#            [--no-batch] [--no-trigger] [--no-install]
#            [--batch-only]   (load and the batch functions only)
#            [--batch-calls "pairs clusters"] [--batch-maintenance-work-mem 64MB]
#                             (the batch calls, and their maintenance_work_mem:
#                              PostgreSQL's default unless given)
# Run sizes of 10M rows and more under flock /tmp/nddup-100m.lock.
set -euo pipefail

source "$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/scripts/lib.sh"
BENCH_DIR=$NDDUP_ROOT/test/bench

SIZES=100K,1M,10M
NQ=200
NS=5
INSERTS=1000
BATCH_TIMEOUT=900
SB=4GB
MWM=1GB
BATCH=1
TRIGGER=1
INSTALL=1
QUERIES=1
CALLS="pairs clusters"
BATCH_MWM=64MB
while [ $# -gt 0 ]; do
	case "$1" in
		--sizes) SIZES=$2; shift ;;
		--queries) NQ=$2; shift ;;
		--seq-queries) NS=$2; shift ;;
		--inserts) INSERTS=$2; shift ;;
		--batch-timeout) BATCH_TIMEOUT=$2; shift ;;
		--shared-buffers) SB=$2; shift ;;
		--maintenance-work-mem) MWM=$2; shift ;;
		--no-batch) BATCH=0 ;;
		--no-trigger) TRIGGER=0 ;;
		--no-install) INSTALL=0 ;;
		--batch-only) QUERIES=0; TRIGGER=0 ;;
		--batch-calls) CALLS=$2; shift ;;
		--batch-maintenance-work-mem) BATCH_MWM=$2; shift ;;
		*) echo "unknown option: $1" >&2; exit 2 ;;
	esac
	shift
done

[ "$INSTALL" = 1 ] && build_and_install
make_workdir
cc -O2 -std=c11 -Wall -Wextra -o "$WORKDIR/gen" "$BENCH_DIR/set_curve_gen.c" -lm
source "$BENCH_DIR/bench_lib.sh"
bench_start_instance "$WORKDIR/data" "$SB"
as_pg tee -a "$PGDATA_DIR/bench.conf" >/dev/null <<CONF
wal_level = minimal
max_wal_senders = 0
max_wal_size = 16GB
max_parallel_maintenance_workers = 0
maintenance_work_mem = $MWM
CONF
as_pg pg_ctl -D "$PGDATA_DIR" -l "$WORKDIR/server.log" -w restart >/dev/null

q() { pg_sql -At -F ' ' "$@"; }
el() { echo "$(date +%s.%N) - $1" | bc; }
RES=$WORKDIR/results		# size measure p50 (ms, or bytes per row)
: >"$RES"

echo "== $(bench_header | paste -sd';' | sed 's/;/; /g')"
echo "== maintenance_work_mem $MWM; wal_level minimal; searches at Jaccard 0.3: $NQ queries, sequential scan $NS"
q -c "CREATE EXTENSION nddup" >/dev/null
pg_sql -q -f "$BENCH_DIR/set_curve.sql"
pg_sql -q -f "$BENCH_DIR/bench_memory.sql" 2>&1 | grep -v 'NOTICE: .* does not exist, skipping' || true

for size in ${SIZES//,/ }; do
	N=$(numfmt --from=si "$size")
	echo
	echo "===== N = $N"
	q -c "SET client_min_messages = warning" -c "DROP TABLE IF EXISTS sets, sc_work, sc_answers" >/dev/null
	t0=$(date +%s.%N)
	"$WORKDIR/gen" 1 "$N" | cut -f1,2 | pg_sql -q -c "BEGIN" \
		-c "CREATE TABLE sets (id bigint, body text, ss shingleset GENERATED ALWAYS AS (shingle_set(body)) STORED, duplicate_of bigint)" \
		-c "COPY sets (id, body) FROM STDIN WITH (FREEZE)" -c "COMMIT"
	load=$(el "$t0")
	q -c "VACUUM ANALYZE sets"
	printf '== loaded in %.1f s (COPY FREEZE, the sets computed by the generated column); heap %s; %s shingles a row on average\n' \
		"$load" "$(q -c "SELECT pg_size_pretty(pg_table_size('sets'))")" \
		"$(q -c "SELECT round(avg(cardinality(ss)), 2) FROM sets TABLESAMPLE SYSTEM (1) REPEATABLE (1)")"
	echo "$N load_s $load" >>"$RES"

	if [ "$QUERIES" = 1 ]; then
	t0=$(date +%s.%N)
	q -c "CREATE INDEX sets_ss_idx ON sets USING gin ((shingle_set(body)) shingleset_ops) WITH (fastupdate = off)" >/dev/null
	build=$(el "$t0")
	size_b=$(q -c "SELECT pg_relation_size('sets_ss_idx')")
	printf '== index: build %.1f s, %s bytes = %.1f bytes/row\n' "$build" "$size_b" "$(echo "$size_b / $N" | bc -l)"
	echo "$N build_s $build" >>"$RES"
	echo "$N bytes_per_row $(echo "$size_b / $N" | bc -l)" >>"$RES"

	# kind a: the measured queries, kind b: the warm-up of the warm backend
	q -c "CREATE TABLE sc_work AS SELECT kind, k AS qid, s.id, NULL::text AS body, s.ss AS q, NULL::bigint AS source
	        FROM generate_series(1, $NQ) k, LATERAL (VALUES ('a', (k::bigint * 7919) % $N + 1),
	                                                        ('b', (k::bigint * 104729 + 13) % $N + 1)) v (kind, row_id)
	        JOIN sets s ON s.id = v.row_id" \
	  -c "CREATE TABLE sc_answers (mode text, measure text, qid int, n bigint, s numeric)" >/dev/null
	echo "   plan: $(q -c "SET enable_seqscan = off" -c "EXPLAIN (COSTS off) SELECT count(*) FROM sets WHERE shingle_set(body) <@ similar_to((SELECT q FROM sc_work LIMIT 1), 0.3)" | grep -o 'Bitmap Index Scan on [a-z_]*\|Index Scan using [a-z_]*\|Seq Scan on [a-z_]*' | paste -sd';')"

	read -r p50 p99 mean < <(q -c "SELECT * FROM sc_time('seq', 'seq', 'a', $NS)")
	printf '   seq scan      p50 %9.3f ms  p99 %9.3f ms  mean %9.3f ms  (%s queries)\n' "$p50" "$p99" "$mean" "$NS"
	echo "$N search_seq $p50" >>"$RES"
	seq50=$p50
	for state in fresh warm; do
		label=search; [ $state = warm ] && label=search_warm
		if [ $state = fresh ]; then
			read -r p50 p99 mean < <(q -c "SELECT * FROM sc_time('index', '$label', 'a', $NQ)")
		else
			read -r p50 p99 mean < <(q -c "SELECT * FROM sc_time('index', 'warmup', 'b', $NQ)" \
				-c "SELECT * FROM sc_time('index', '$label', 'a', $NQ)" | tail -1)
		fi
		read -r checked bad < <(q -c "SELECT count(*), count(*) FILTER (WHERE (a.n, a.s) IS DISTINCT FROM (f.n, f.s))
		                            FROM sc_answers a JOIN sc_answers f ON f.mode = 'seq' AND f.qid = a.qid
		                           WHERE a.mode = 'index' AND a.measure = '$label'")
		rows=$(q -c "SELECT round(avg(n), 2) FROM sc_answers WHERE mode = 'index' AND measure = '$label'")
		printf '   index %-7s p50 %9.3f ms  p99 %9.3f ms  mean %9.3f ms  seq/index p50 %8.0fx  mean rows %s  mismatches %s of %s checked\n' \
			"$state" "$p50" "$p99" "$mean" "$(echo "$seq50 / $p50" | bc -l)" "$rows" "$bad" "$checked"
		echo "$N $label $p50" >>"$RES"
		echo "$N ${label}_p99 $p99" >>"$RES"
	done
	fi

	if [ "$TRIGGER" = 1 ]; then
		echo "== insert-time trigger, $N rows stored, $INSERTS one-row inserts per run"
		# ids N+1 .. N+2K: alternate blocks of 50 without and with the trigger
		"$WORKDIR/gen" $(( N + 1 )) $(( N + 2 * INSERTS )) | q -c "COPY sc_work (id, body, source) FROM STDIN"
		q -c "UPDATE sc_work SET qid = id - $N, kind = 'insert' WHERE kind IS NULL" \
		  -c "CREATE TRIGGER dedup BEFORE INSERT ON sets FOR EACH ROW EXECUTE FUNCTION
		        nddup_dedup_trigger('source=body', 'method=shingleset', 'threshold=0.3',
		                            'id=id', 'duplicate_of=duplicate_of', 'action=mark')" >/dev/null
		q -c "SELECT * FROM sc_time('insert', '', 'insert', $(( 2 * INSERTS )))" >/dev/null
		for m in plain trigger; do
			read -r p50 p99 mean < <(q -c "SELECT (sc_stats(array_agg(s::float8))).* FROM sc_answers WHERE mode = 'insert' AND measure = '$m'")
			if [ $m = plain ]; then
				plain50=$p50
				printf '   plain                p50 %7.3f ms  p99 %7.3f ms  mean %7.3f ms\n' "$p50" "$p99" "$mean"
			else
				read -r marked planted < <(q -c "SELECT count(*) FILTER (WHERE s.duplicate_of IS NOT NULL),
				                                        count(*) FILTER (WHERE w.source IS NOT NULL)
				                                   FROM sets s JOIN sc_work w USING (id)
				                                   JOIN sc_answers a ON a.mode = 'insert' AND a.qid = w.qid AND a.measure = 'trigger'
				                                  WHERE w.kind = 'insert'")
				printf '   trigger              p50 %7.3f ms  p99 %7.3f ms  mean %7.3f ms  added p50 %7.3f ms  (%s of %s marked; %s planted near-copies)\n' \
					"$p50" "$p99" "$mean" "$(echo "$p50 - $plain50" | bc -l)" "$marked" "$INSERTS" "$planted"
			fi
			echo "$N insert_$m $p50" >>"$RES"
		done
		echo "$N insert_added $(echo "$p50 - $plain50" | bc -l)" >>"$RES"
		q -c "DROP TRIGGER dedup ON sets" >/dev/null
	fi

	if [ "$BATCH" = 1 ]; then
		echo "== batch functions, Jaccard 0.3, relation forms on ss, work_mem 4MB, maintenance_work_mem $BATCH_MWM, timeout $BATCH_TIMEOUT s"
		: >"$WORKDIR/runs"
		for f in $CALLS; do
			call="shingleset_pairs('sets'::regclass, 'id', 'ss', 0.3)"
			[ $f = clusters ] && call="shingleset_clusters('sets'::regclass, 'id', 'ss', 0.3, singletons => false)"
			if ! bench_measure "shingleset_$f" rel 4MB "$call" "count(*)::text" "SET statement_timeout = '${BATCH_TIMEOUT}s'; SET maintenance_work_mem = '$BATCH_MWM';" 2>"$WORKDIR/batch.err"; then
				printf '   %-20s failed: %s\n' "shingleset_$f" "$(grep -m1 ERROR "$WORKDIR/batch.err")"
				continue
			fi
			# fields of BENCH_RUN_FIELDS: 4 ms, 5 cpu_ms, 7 result, 14 peak_anon, 18 temp_bytes
			read -r ms cpu rows anon temp < <(tail -1 "$WORKDIR/runs" | awk '{print $4, $5, $7, $14, $18}')
			printf '   %-20s %10.0f ms (CPU %.0f ms)  rows %-10s peak RssAnon %s kB, temp %s MB\n' \
				"shingleset_$f" "$ms" "$cpu" "$rows" "$anon" "$(( ${temp:-0} / 1048576 ))"
			echo "$N $f $ms" >>"$RES"
		done
	fi
	q -c "SET client_min_messages = warning" -c "DROP TABLE IF EXISTS sets, sc_work, sc_answers" >/dev/null
done

# growth exponents between consecutive sizes, e = ln(c2 / c1) / ln(N2 / N1),
# computed by the server from the results
echo
echo "== growth exponent e (cost ~ N^e) of each measure between consecutive sizes; the sequential scan's in brackets"
tr ' ' '\t' <"$RES" | q -q -c "CREATE TEMP TABLE r (n bigint, measure text, v float8, ord serial)" \
	-c "COPY r (n, measure, v) FROM STDIN" -c "
	WITH e AS (SELECT measure, n, v, min(ord) OVER (PARTITION BY measure) AS first, lag(n) OVER w AS n0,
	                  CASE WHEN v > 0 AND lag(v) OVER w > 0 THEN ln(v / lag(v) OVER w) / ln(n::float8 / lag(n) OVER w) END AS e
	             FROM r WINDOW w AS (PARTITION BY measure ORDER BY n))
	SELECT format('   %-18s', e.measure) || string_agg(lpad(round(e.v::numeric, 3)::text, 13), '' ORDER BY e.n)
	       || coalesce('  ' || string_agg(format('e(%s->%s) %s [%s]', e.n0, e.n, coalesce(round(e.e::numeric, 2)::text, '-'),
	                                             coalesce(round(s.e::numeric, 2)::text, '-')), '  ' ORDER BY e.n)
	                            FILTER (WHERE e.n0 IS NOT NULL), '')
	  FROM e LEFT JOIN e s ON s.measure = 'search_seq' AND s.n = e.n
	 GROUP BY e.measure, e.first ORDER BY e.first"
echo "== load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
