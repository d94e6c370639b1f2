#!/usr/bin/env bash
# The insert-time trigger's recipes side by side on short real texts
# (docs/reports/bench-trigger-recipes.md): the first line (the synopsis) of
# each Debian package description in --corpus (default
# ../shared/data/debian-descriptions-en.tsv.gz beside the repository: id,
# package, text), inserted in id order, one INSERT ... SELECT, through
#
#   plain  no trigger, no index;
#   (a)    simhash radius 12 + verify=0.3, hamming index (README 0.2 before
#          method=shingleset);
#   (b)    min-hash 0.3 + verify=0.3, minhash_lsh_ops (threshold = 0.3);
#   (c)    method=shingleset threshold=0.3, shingleset_ops on the expression;
#   (c')   the same with a stored (generated) shingleset column.
#
# For each: seconds, rows marked, marked rows whose exact word 3-shingle
# Jaccard with their original is below 0.2 (and 0.3), and the time and the
# rows marked relative to (a).  --reps runs of every recipe, in turn; the
# ratios use the mean time.  Targets (issue 25): (c) marks at least (b)'s
# rows, none below 0.2, in at most 1.5x the time of (a).
#
# Not run in CI.  Usage:
#   test/bench/trigger_recipes_bench.sh [--corpus FILE] [--reps N] [--limit N] [--no-install]
set -euo pipefail

source "$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/scripts/lib.sh"

CORPUS=$NDDUP_ROOT/../../shared/data/debian-descriptions-en.tsv.gz
[ -r "$CORPUS" ] || CORPUS=$(cd "$NDDUP_ROOT/.." && pwd)/shared/data/debian-descriptions-en.tsv.gz
REPS=2
LIMIT=0
INSTALL=1
while [ $# -gt 0 ]; do
	case "$1" in
		--corpus) CORPUS=$2; shift ;;
		--reps) REPS=$2; shift ;;
		--limit) LIMIT=$2; shift ;;
		--no-install) INSTALL=0 ;;
		*) echo "unknown option: $1" >&2; exit 2 ;;
	esac
	shift
done
[ -r "$CORPUS" ] || { echo "corpus $CORPUS not found (give --corpus)" >&2; exit 1; }

[ "$INSTALL" = 1 ] && build_and_install
make_workdir
start_instance
cat >>"$WORKDIR/data/postgresql.conf" <<CONF
shared_buffers = 512MB
synchronous_commit = off
autovacuum = off
max_parallel_workers_per_gather = 0
max_wal_size = 4GB
jit = off
CONF
as_pg pg_ctl -D "$WORKDIR/data" -l "$WORKDIR/server.log" -w restart >/dev/null
export PGOPTIONS='-c client_min_messages=error'
q() { pg_sql -X -At -F ' ' "$@"; }

echo "== machine: $(nproc) cores, $(postgres --version 2>/dev/null || "$PG_BIN/postgres" --version)"
echo "== commit: $(git -C "$NDDUP_ROOT" log -1 --format='%h %cd' --date=short 2>/dev/null || echo unknown)"
echo "== load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
zcat "$CORPUS" | tail -n +2 > "$WORKDIR/corpus.tsv"
chmod 644 "$WORKDIR/corpus.tsv"
q -c "CREATE EXTENSION nddup" \
  -c "CREATE TABLE raw (id int PRIMARY KEY, package text, text text)" \
  -c "\\copy raw FROM '$WORKDIR/corpus.tsv'" \
  -c "CREATE TABLE corpus AS SELECT id, split_part(text, E'\\n', 1) AS body FROM raw
      WHERE $LIMIT = 0 OR id <= $LIMIT" \
  -c "ALTER TABLE corpus ADD PRIMARY KEY (id)" -c "DROP TABLE raw" -c "VACUUM ANALYZE corpus" >/dev/null
echo "== corpus: $(q -c "SELECT count(*) || ' synopses (' || count(DISTINCT body) || ' distinct), ' || round(avg(length(body))) || ' characters and ' || round(avg(array_length(tokens(body), 1)), 1) || ' tokens on average' FROM corpus")"

# make_posts columns index trigger-args: an empty posts table with the
# recipe's columns, index and trigger (no trigger when args is empty)
make_posts() {
	q -c "DROP TABLE IF EXISTS posts" \
	  -c "CREATE TABLE posts (id bigint PRIMARY KEY, body text NOT NULL$1, duplicate_of bigint)" >/dev/null
	[ -n "$2" ] && q -c "$2" >/dev/null
	[ -n "$3" ] && q -c "CREATE TRIGGER dedup BEFORE INSERT OR UPDATE OF body ON posts FOR EACH ROW
	        EXECUTE FUNCTION nddup_dedup_trigger($3)" >/dev/null
	return 0
}

FP=", fp simhash64 GENERATED ALWAYS AS (simhash(body)) STORED"
SS=", ss shingleset GENERATED ALWAYS AS (shingle_set(body)) STORED"
declare -A COLS INDEX ARGS
NAMES=(plain a b c c2)
LABEL[0]="plain insert (no trigger)"
LABEL[1]="(a) simhash radius 12 + verify=0.3"
LABEL[2]="(b) minhash 0.3 + verify=0.3"
LABEL[3]="(c) shingleset 0.3 (expression index)"
LABEL[4]="(c') shingleset 0.3 (stored column)"
COLS[plain]=""; INDEX[plain]=""; ARGS[plain]=""
COLS[a]=$FP
INDEX[a]="CREATE INDEX ON posts USING hamming (fp) WHERE duplicate_of IS NULL"
ARGS[a]="'fingerprint=fp', 'source=body', 'radius=12', 'verify=0.3'"
COLS[b]=""
INDEX[b]="CREATE INDEX ON posts USING gin ((minhash(body, 128, 'oph', 0, 3, 'word')) minhash_lsh_ops (threshold = 0.3)) WITH (fastupdate = off) WHERE duplicate_of IS NULL"
ARGS[b]="'source=body', 'method=minhash', 'threshold=0.3', 'verify=0.3'"
COLS[c]=""
INDEX[c]="CREATE INDEX ON posts USING gin ((shingle_set(body)) shingleset_ops) WITH (fastupdate = off) WHERE duplicate_of IS NULL"
ARGS[c]="'source=body', 'method=shingleset', 'threshold=0.3'"
COLS[c2]=$SS
INDEX[c2]="CREATE INDEX ON posts USING gin (ss) WITH (fastupdate = off) WHERE duplicate_of IS NULL"
ARGS[c2]="'fingerprint=ss', 'source=body', 'threshold=0.3'"

declare -A SECS MARKED BELOW2 BELOW3
for n in "${NAMES[@]}"; do SECS[$n]=0; done
echo
echo "== runs (seconds to insert the corpus in id order; marked rows; of them, exact Jaccard < 0.2 and < 0.3 with the original)"
for rep in $(seq "$REPS"); do
	for i in "${!NAMES[@]}"; do
		n=${NAMES[$i]}
		make_posts "${COLS[$n]}" "${INDEX[$n]}" "${ARGS[$n]}"
		q -c "CHECKPOINT" >/dev/null
		t0=$(date +%s.%N)
		q -c "INSERT INTO posts (id, body) SELECT id, body FROM corpus ORDER BY id" >/dev/null
		t1=$(date +%s.%N)
		s=$(echo "$t1 - $t0" | bc -l)
		read -r m b2 b3 < <(q -c "SELECT count(*), count(*) FILTER (WHERE j < 0.2), count(*) FILTER (WHERE j < 0.3)
		      FROM (SELECT jaccard(shingle_set(p.body), shingle_set(o.body)) AS j
		            FROM posts p JOIN posts o ON o.id = p.duplicate_of) x")
		printf '   run %d %-40s %8.2f s %8d marked %6d < 0.2 %6d < 0.3\n' "$rep" "${LABEL[$i]}" "$s" "$m" "$b2" "$b3"
		SECS[$n]=$(echo "${SECS[$n]} + $s" | bc -l)
		MARKED[$n]=$m; BELOW2[$n]=$b2; BELOW3[$n]=$b3
	done
done

echo
echo "== summary (mean of $REPS runs; ratios to (a))"
printf '%-40s %9s %8s %7s %7s %9s %9s\n' recipe seconds marked "J<0.2" "J<0.3" "time/(a)" "marked/(a)"
a_s=$(echo "${SECS[a]} / $REPS" | bc -l)
for i in "${!NAMES[@]}"; do
	n=${NAMES[$i]}
	s=$(echo "${SECS[$n]} / $REPS" | bc -l)
	printf '%-40s %9.2f %8d %7d %7d %9.2f %9.2f\n' "${LABEL[$i]}" "$s" "${MARKED[$n]}" "${BELOW2[$n]}" \
		"${BELOW3[$n]}" "$(echo "$s / $a_s" | bc -l)" "$(echo "${MARKED[$n]} / ${MARKED[a]}" | bc -l)"
done
echo
echo "== sizes after the last run of (c'): $(q -c "SELECT 'table ' || pg_size_pretty(pg_table_size('posts')) || ', index ' || pg_size_pretty(pg_indexes_size('posts')) || ', ' || round(avg(pg_column_size(ss))) || ' bytes per set' FROM posts")"
echo "== load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
