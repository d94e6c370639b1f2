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
# With --sweep N, each call is instead run once to completion (or to
# SWEEP_CAP_S) to learn its duration D, then N more times with
# statement_timeout at D * i / (N + 1), i = 1..N: the timeout lands in every
# phase of the call (reading, grouping, candidates, sorting, verifying,
# emitting), and the latencies of all calls give the p50, p99 and maximum.
# The cases added for issue 24 (minhash_pairs at 0.1 on 326K sketches,
# verified joins of long documents, the shingle-set functions, the
# recommender) run in both modes; --no-big-data skips the 592 MB texts, the
# 8M-hash set and the 3M-row index table (their cases then end at once).
#
# usage: test/bench/reliability/cancel_latency.sh [--repeat N] [--timeout-ms T]
#                                           [--cancel-after S] [--only REGEX]
#                                           [--sweep N] [--cap S] [--no-big-data]
#                                           [--no-build]

set -euo pipefail
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/common.sh"

REPEAT=3
TIMEOUT_MS=2000
CANCEL_AFTER=2
ONLY=.
BUILD=1
SWEEP=0
SWEEP_CAP_S=120
BIG_DATA=1
while [ $# -gt 0 ]; do
	case "$1" in
		--sweep) SWEEP=$2; shift ;;
		--cap) SWEEP_CAP_S=$2; shift ;;
		--no-big-data) BIG_DATA=0 ;;
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
} | if [ "$BIG_DATA" = 1 ]; then
	pg_sql -q -v text_scale=4 -v sketches=20000 -v big=3000000 -v sets=400000
else
	pg_sql -q -v text_scale=0 -v sketches=20000 -v big=1000 -v sets=400000
fi
# a set of 8M hashes, and its text form (136 MB), for the type's I/O
pg_sql -q <<'SQL'
CREATE TABLE bigset AS SELECT shingle_set(body, 1) AS s FROM big_numbers;
CREATE TABLE bigset_text AS SELECT s::text AS t FROM bigset;
SQL
# issue 24's cases: 326K sketches of 12-word documents (ids g and g + 163,000
# share 11 words); 4,000 documents of 2,000 words that share 1,600 (every
# pair a candidate at 0.2, each verification a merge of two 2,000-shingle
# sets); 100,000 short documents for the recommender
pg_sql -q <<'SQL'
CREATE TABLE sk326 AS
SELECT g AS id, minhash(concat_ws(' ', g % 163000, (g % 163000) * 7, (g % 163000) * 11,
	(g % 163000) * 13, (g % 163000) * 17, (g % 163000) * 19, (g % 163000) * 23, (g % 163000) * 29,
	(g % 163000) * 31, (g % 163000) * 37, (g % 163000) * 41, g)) AS s
FROM generate_series(1, 326000) g;
CREATE TABLE vdocs AS
SELECT d AS id, body, simhash(body) AS fp, minhash(body) AS s, shingle_set(body) AS sset
FROM (SELECT d, (SELECT string_agg(CASE WHEN w % 5 = 0 THEN md5((d * 2000 + w)::text)
		ELSE 'w' || w END, ' ') FROM generate_series(1, 2000) w) AS body
	  FROM generate_series(1, 2000) d) t;
CREATE TABLE rdocs AS
SELECT g AS id, concat_ws(' ', g % 50000, (g % 50000) * 7, (g % 50000) * 11, (g % 50000) * 13,
	(g % 50000) * 17, (g % 50000) * 19, md5(g::text), g) AS body
FROM generate_series(1, 100000) g;
ALTER TABLE rdocs ADD COLUMN s minhash_sketch, ADD COLUMN fp simhash64;
UPDATE rdocs SET s = minhash(body), fp = simhash(body);
VACUUM ANALYZE sk326, vdocs, rdocs;
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
	"minhash_pairs(query), 0.1, 326K sketches, work_mem 4MB|SET work_mem = '4MB'|SELECT count(*) FROM minhash_pairs('SELECT id, s FROM sk326', 0.1)"
	"minhash_pairs(query), 0.1, 326K sketches, work_mem 1GB|SET work_mem = '1GB'|SELECT count(*) FROM minhash_pairs('SELECT id, s FROM sk326', 0.1)"
	"minhash_join verified (text), 1K x 1K long documents|SET work_mem = '64MB'|SELECT count(*) FROM minhash_join('SELECT id, s, body FROM vdocs WHERE id % 2 = 0', 'SELECT id, s, body FROM vdocs WHERE id % 2 = 1', 0.2, verify => 0.2)"
	"minhash_join verified, spilling (work_mem 64kB)|SET work_mem = '64kB'|SELECT count(*) FROM minhash_join('SELECT id, s, body FROM vdocs WHERE id % 2 = 0', 'SELECT id, s, body FROM vdocs WHERE id % 2 = 1', 0.2, verify => 0.2)"
	"minhash_pairs verified (shingle sets), 2K long documents|SET work_mem = '64MB'|SELECT count(*) FROM minhash_pairs('SELECT id, s, sset FROM vdocs', 0.2, verify => 0.2)"
	"hamming_pairs verified (text), radius 32, 2K long documents|SET work_mem = '64MB'|SELECT count(*) FROM hamming_pairs('SELECT id, fp, body FROM vdocs', 32, verify => 0.2)"
	"shingleset_pairs, 400K sets, 0.3|SET work_mem = '64MB'|SELECT count(*) FROM shingleset_pairs('SELECT id, s FROM sets', 0.3)"
	"shingleset_pairs, 2K long documents, 0.3|SET work_mem = '64MB'|SELECT count(*) FROM shingleset_pairs('SELECT id, sset FROM vdocs', 0.3)"
	"shingleset_join, 1K x 1K long documents, 0.3, spilling|SET work_mem = '64kB'|SELECT count(*) FROM shingleset_join('SELECT id, sset FROM vdocs WHERE id % 2 = 0', 'SELECT id, sset FROM vdocs WHERE id % 2 = 1', 0.3)"
	"shingleset_clusters, 400K sets, 0.3|SET work_mem = '64MB'|SELECT count(*) FROM shingleset_clusters('SELECT id, s FROM sets', 0.3)"
	"nddup_recommend_threshold (text), 100K documents|SET work_mem = '4MB'|SELECT count(*) FROM nddup_recommend_threshold('rdocs', 'id', 'body', 100000)"
	"nddup_recommend_threshold (minhash), 326K sketches|SET work_mem = '4MB'|SELECT count(*) FROM nddup_recommend_threshold('sk326', 'id', 's', 326000)"
	"nddup_recommend_threshold (simhash64), 300K fingerprints|SET work_mem = '4MB'|SELECT count(*) FROM nddup_recommend_threshold('fps', 'id', 'fp', 300000)"
	"nddup_recommend_threshold (shingleset), 400K sets|SET work_mem = '4MB'|SELECT count(*) FROM nddup_recommend_threshold('sets', 'id', 's', 400000)"
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

# Duration of one call run to completion, in ms (or the cap, when it did not end).
full_duration() {
	local pre=$1 call=$2 out
	pg_sql -q -c "SET client_min_messages = warning" -c "DROP INDEX IF EXISTS lat_idx"
	out=$(printf '%s;\nSET statement_timeout = %s;\n\\timing on\n%s;\n' "$pre" "$((SWEEP_CAP_S * 1000))" "$call" |
		psql_q 2>&1 || true)
	grep '^Time:' <<<"$out" | tail -1 | awk '{ printf "%.0f\n", $2 }'
}

# Latency of a statement_timeout of t ms (timeout_latency with TIMEOUT_MS = t).
timeout_at() {
	local t=$1 pre=$2 call=$3
	TIMEOUT_MS=$t timeout_latency "$pre" "$call"
}

if [ "$SWEEP" -gt 0 ]; then
	echo "sweep: each call run once to completion (cap $SWEEP_CAP_S s), then with statement_timeout"
	echo "at $SWEEP evenly spaced points of that duration; latency = elapsed - timeout"
	echo
	echo "| call | full run ms | timeouts | p50 ms | max ms |"
	echo "|---|---:|---:|---:|---:|"
	all=$WORKDIR/sweep_all
	: >"$all"
	for c in "${CASES[@]}"; do
		IFS='|' read -r label pre call <<<"$c"
		grep -Eq "$ONLY" <<<"$label" || continue
		d=$(full_duration "$pre" "$call")
		[ -n "$d" ] || d=0
		lat=()
		for i in $(seq 1 "$SWEEP"); do
			t=$((d * i / (SWEEP + 1)))
			[ "$t" -ge 50 ] || continue
			v=$(timeout_at "$t" "$pre" "$call")
			[[ "$v" =~ ^-?[0-9]+$ ]] && lat+=("$v") && echo "$v" >>"$all"
		done
		if [ ${#lat[@]} -eq 0 ]; then
			echo "| $label | $d | 0 | | |"
			continue
		fi
		read -r p50 mx < <(printf '%s\n' "${lat[@]}" | sort -n |
			awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)], v[NR] }')
		echo "| $label | $d | ${#lat[@]} | $p50 | $mx |"
	done
	echo
	sort -n "$all" | awk '{ v[NR] = $1 } END { if (NR) printf "all %d timeouts: p50 %d ms, p99 %d ms, max %d ms (target: at most 1000 ms)\n",
		NR, v[int((NR + 1) / 2)], v[int(NR * 0.99 + 0.999)], v[NR] }'
	echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
	exit 0
fi

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
