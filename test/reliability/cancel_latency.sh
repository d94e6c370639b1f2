#!/usr/bin/env bash
# Cancellation latency of every long-running nddup function
# (docs/reports/reliability.md, "Resources"): for each call, the time from
#   - pg_cancel_backend(), sent from a second session once the statement has
#     run CANCEL_AFTER seconds, to the error reaching the client, and
#   - the expiry of statement_timeout (TIMEOUT_MS) to the error reaching the
#     client (psql's elapsed time of the statement minus TIMEOUT_MS),
# the maximum over REPEAT runs of each.  The target is at most 1 s.
#
# The calls and their inputs are those of sql/cancel.sql, scaled up so that
# each runs well past the cancel (most for tens of seconds).  Runs its own
# temporary PostgreSQL instance (scripts/lib.sh); everything under nice -n 19.
# Needs about 4 GB of free memory (clusters_from_pairs holds 15M pairs).
#
# usage: test/reliability/cancel_latency.sh [--repeat N] [--timeout-ms T]
#                                           [--cancel-after S] [--only REGEX]
#                                           [--no-build]

set -euo pipefail
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/common.sh"

REPEAT=3
TIMEOUT_MS=2000
CANCEL_AFTER=2
ONLY=.
BUILD=1
while [ $# -gt 0 ]; do
	case "$1" in
		--repeat) REPEAT=$2; shift ;;
		--timeout-ms) TIMEOUT_MS=$2; shift ;;
		--cancel-after) CANCEL_AFTER=$2; shift ;;
		--only) ONLY=$2; shift ;;
		--no-build) BUILD=0 ;;
		*) echo "unknown option $1" >&2; exit 2 ;;
	esac
	shift
done

reliability_start "nddup cancellation latency"
echo "statement_timeout $TIMEOUT_MS ms; pg_cancel_backend after $CANCEL_AFTER s; $REPEAT runs of each"
echo

# the data of sql/cancel.sql, larger: 592 MB of text, 8M numbers, 20,000
# sketches, 3M fingerprints, 400,000 shingle sets
t0=$(date +%s)
{
	echo "CREATE EXTENSION nddup;"
	sed -n '/^-- begin data/,/^-- end data/p' "$NDDUP_ROOT/sql/cancel.sql"
} | pg_sql -q -v text_scale=4 -v sketches=20000 -v big=3000000 -v sets=400000
# a set of 8M hashes, and its text form (136 MB), for the type's I/O
pg_sql -q <<'SQL'
CREATE TABLE bigset AS SELECT shingle_set(body, 1) AS s FROM big_numbers;
CREATE TABLE bigset_text AS SELECT s::text AS t FROM bigset;
SQL
echo "data generated in $(($(date +%s) - t0)) s"
echo

# label | settings before the call | the call
CASES=(
	"hamming_pairs(query), radius 14, 300K rows|SET work_mem = '64MB'|SELECT count(*) FROM hamming_pairs('SELECT id, fp FROM fps', 14)"
	"hamming_pairs(rel), radius 14, 300K rows|SET work_mem = '64MB'|SELECT count(*) FROM hamming_pairs('fps', 'id', 'fp', 14)"
	"hamming_pairs spilling (work_mem 64kB), radius 8|SET work_mem = '64kB'|SELECT count(*) FROM hamming_pairs('SELECT id, fp FROM fps', 8)"
	"hamming_join, radius 14, 150K x 150K|SET work_mem = '64MB'|SELECT count(*) FROM hamming_join('SELECT id, fp FROM fps WHERE id % 2 = 0', 'SELECT id, fp FROM fps WHERE id % 2 = 1', 14)"
	"hamming_clusters(query), radius 14|SET work_mem = '64MB'|SELECT count(*) FROM hamming_clusters('SELECT id, fp FROM fps', 14)"
	"hamming_clusters(rel), radius 14|SET work_mem = '64MB'|SELECT count(*) FROM hamming_clusters('fps', 'id', 'fp', 14)"
	"hamming_assign, radius 14|SET work_mem = '64MB'|SELECT count(*) FROM hamming_assign('SELECT id, fp FROM fps WHERE id % 2 = 0', 'SELECT id, fp, id FROM fps WHERE id % 2 = 1', 14)"
	"clusters_from_pairs, 15M pairs|SET work_mem = '2GB'|SELECT count(*) FROM clusters_from_pairs('SELECT g, g + 1 FROM generate_series(1, 15000000) g')"
	"hamming_nearest, n = 3M (no index)|SET work_mem = '256MB'|SELECT count(*) FROM hamming_nearest('fps_big', 'id', 'fp', 0::bigint::simhash64, 3000000)"
	"minhash_pairs(query), 20K sketches|SET work_mem = '64MB'|SELECT count(*) FROM minhash_pairs('SELECT id, s FROM sk', 0.9)"
	"minhash_pairs(rel)|SET work_mem = '64MB'|SELECT count(*) FROM minhash_pairs('sk', 'id', 's', 0.9)"
	"minhash_join, 10K x 10K|SET work_mem = '64MB'|SELECT count(*) FROM minhash_join('SELECT id, s FROM sk WHERE id % 2 = 0', 'SELECT id, s FROM sk WHERE id % 2 = 1', 0.9)"
	"minhash_clusters(query)|SET work_mem = '64MB'|SELECT count(*) FROM minhash_clusters('SELECT id, s FROM sk', 0.9)"
	"minhash_clusters(rel)|SET work_mem = '64MB'|SELECT count(*) FROM minhash_clusters('sk', 'id', 's', 0.9)"
	"super_shingle_pairs, 60K arrays|SET work_mem = '64MB'|SELECT count(*) FROM super_shingle_pairs('SELECT id, ss FROM sup', 3)"
	"normalize_text, 592 MB|SET work_mem = '4MB'|SELECT length(normalize_text(body)) FROM big_words"
	"tokens, 592 MB|SET work_mem = '4MB'|SELECT cardinality(tokens(body)) FROM big_words"
	"shingles, 592 MB|SET work_mem = '4MB'|SELECT cardinality(shingles(body)) FROM big_words"
	"simhash (word, tf), 592 MB|SET work_mem = '4MB'|SELECT simhash(body) FROM big_words"
	"simhash (word, set), 592 MB|SET work_mem = '4MB'|SELECT simhash(body, 3, 'word', 'set') FROM big_words"
	"simhash (char 5), 592 MB|SET work_mem = '4MB'|SELECT simhash(body, 5, 'char') FROM big_words"
	"shingle_set, 592 MB|SET work_mem = '4MB'|SELECT cardinality(shingle_set(body)) FROM big_words"
	"shingle_bottom, 592 MB|SET work_mem = '4MB'|SELECT cardinality(shingle_bottom(body, 100)) FROM big_words"
	"shingle_mod, 592 MB|SET work_mem = '4MB'|SELECT cardinality(shingle_mod(body, 25)) FROM big_words"
	"minhash (oph), 592 MB|SET work_mem = '4MB'|SELECT minhash(body) IS NULL FROM big_words"
	"minhash (kperm, k = 1024), 8M distinct shingles|SET work_mem = '4MB'|SELECT minhash(body, 1024, 'kperm') IS NULL FROM big_numbers"
	"imatch, 592 MB|SET work_mem = '4MB'|SELECT imatch(body, l) FROM big_words, lex"
	"imatch (64 lexicons), 8M terms|SET work_mem = '4MB'|SELECT imatch(body, l, 64) IS NULL FROM big_numbers, lex"
	"imatch_lexicon_agg, one 592 MB document|SET work_mem = '4MB'|SELECT imatch_lexicon_agg(body) IS NULL FROM big_words"
	"shingleset output, 3 x 8M hashes|SET work_mem = '4MB'|SELECT length(s::text) + length((s::text)) + length(((s::text))) FROM bigset"
	"shingleset input, 3 x 136 MB|SET work_mem = '4MB'|SELECT cardinality(t::shingleset) + cardinality((t || ' ')::shingleset) + cardinality((t || '  ')::shingleset) FROM bigset_text"
	"CREATE INDEX simhash64_gin_ops, 3M rows|SET maintenance_work_mem = '64MB'|CREATE INDEX lat_idx ON fps_big USING gin (fp simhash64_gin_ops)"
	"CREATE INDEX simhash64_spgist_ops, 3M rows|SET maintenance_work_mem = '64MB'|CREATE INDEX lat_idx ON fps_big USING spgist (fp simhash64_spgist_ops)"
	"CREATE INDEX minhash_lsh_ops, 200K sketches|SET maintenance_work_mem = '64MB'|CREATE INDEX lat_idx ON sk_copies USING gin (s minhash_lsh_ops)"
	"CREATE INDEX shingleset_ops, 400K sets|SET maintenance_work_mem = '64MB'|CREATE INDEX lat_idx ON sets USING gin (s shingleset_ops)"
	"trigger scan fallback, 1,000 rows into 300K|SET client_min_messages = error|INSERT INTO posts SELECT 1000000 + g, hashint8extended(g, 44)::simhash64 FROM generate_series(1, 1000) g"
)

# psql as PG_USER with extra arguments, quietly
psql_q() { as_pg env PGHOST="$PGHOST" PGPORT="$PGPORT" PGUSER="$PGUSER" psql -X -q -d "$PGDATABASE" "$@"; }

# Latency of statement_timeout for one call: psql's elapsed time minus the timeout, in ms;
# "done" if the call finished first, "error" for another error.
timeout_latency() {
	local pre=$1 call=$2 out
	pg_sql -q -c "SET client_min_messages = warning" -c "DROP INDEX IF EXISTS lat_idx"
	out=$(printf '%s;\nSET statement_timeout = %s;\n\\timing on\n%s;\n' "$pre" "$TIMEOUT_MS" "$call" |
		psql_q 2>&1 || true)
	if ! grep -q 'canceling statement due to statement timeout' <<<"$out"; then
		grep -q '^ERROR' <<<"$out" && echo error || echo done
		return
	fi
	grep '^Time:' <<<"$out" | tail -1 | awk -v t="$TIMEOUT_MS" '{ printf "%.0f\n", $2 - t }'
}

# Latency of pg_cancel_backend() for one call, sent once it has run CANCEL_AFTER s.
cancel_latency() {
	local pre=$1 call=$2 pid sent end out status
	pg_sql -q -c "SET client_min_messages = warning" -c "DROP INDEX IF EXISTS lat_idx"
	out=$WORKDIR/cancel.out
	(
		printf "SET application_name = 'nddup_latency';\n%s;\n%s;\n" "$pre" "$call" | psql_q >"$out" 2>&1 || true
		date +%s.%N >"$out.end"
	) &
	status=
	sent=
	while [ -z "$sent" ]; do
		if [ -s "$out.end" ]; then
			status=done
			break
		fi
		sent=$(pg_sql -At -c "SELECT extract(epoch FROM clock_timestamp()), pg_cancel_backend(pid)
			FROM pg_stat_activity WHERE application_name = 'nddup_latency' AND state = 'active'
			AND clock_timestamp() - query_start >= interval '$CANCEL_AFTER s'" | cut -d'|' -f1)
		[ -n "$sent" ] || sleep 0.05
	done
	wait
	end=$(cat "$out.end")
	rm -f "$out.end"
	if [ -n "$status" ] && ! grep -q 'canceling statement due to user request' "$out"; then
		echo done
	elif ! grep -q 'canceling statement due to user request' "$out"; then
		echo error
	else
		echo "$end $sent" | awk '{ printf "%.0f\n", ($1 - $2) * 1000 }'
	fi
}

# Maximum of numbers, or the first word that is not one.
max_of() {
	awk '$1 !~ /^-?[0-9]+$/ { print $1; bad = 1; exit } { if (NR == 1 || $1 > m) m = $1 }
		 END { if (!bad) print m }'
}

echo "| call | cancel: max ms | statement_timeout: max ms | runs |"
echo "|---|---:|---:|---:|"
worst=0
unmeasured=0
for c in "${CASES[@]}"; do
	IFS='|' read -r label pre call <<<"$c"
	grep -Eq "$ONLY" <<<"$label" || continue
	cl=()
	tl=()
	for _ in $(seq 1 "$REPEAT"); do
		cl+=("$(cancel_latency "$pre" "$call")")
		tl+=("$(timeout_latency "$pre" "$call")")
	done
	cmax=$(printf '%s\n' "${cl[@]}" | max_of)
	tmax=$(printf '%s\n' "${tl[@]}" | max_of)
	for v in "$cmax" "$tmax"; do
		if [[ "$v" =~ ^-?[0-9]+$ ]]; then
			[ "$v" -le "$worst" ] || worst=$v
		else
			unmeasured=$((unmeasured + 1))
		fi
	done
	echo "| $label | $cmax | $tmax | $REPEAT |"
done
echo
echo "worst latency: $worst ms (target: at most 1000 ms); columns without a latency: $unmeasured"
echo "(\"done\": the call ended before the cancel; \"error\": another error than the cancel)"
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
