#!/usr/bin/env bash
# Benchmark of shingleset_pairs, the exact resemblance join (issue 18,
# targets 2; docs/batch-sets.md, docs/reports/bench-set-pairs.md): at Jaccard
# thresholds 0.3, 0.5 and 0.8, on short texts (the one-line synopses of the
# Debian package descriptions, 63,956) and on long documents (the Debian
# descriptions shipped in data/debian-sample.tsv.gz made into a labelled
# near-duplicate corpus by test/bench/gen_neardup.py, replicated to 1M with
# the words of each replica renamed), beside minhash_pairs at the same
# threshold (on minhash() of the same texts) and the self-join through a
# shingleset_ops GIN index (b.ss % a.ss, nddup.similarity_threshold = t),
# in one run, as ratios; and its answers against a nested loop of jaccard()
# on a 20K sample.
#
# Long documents: gen_neardup.py (Python 3, deterministic for a seed) turns
# the base descriptions into a corpus of originals and variants (edits, site
# chrome, excerpts, ...) until the base documents run out (a few thousand
# documents from the 4,000 of data/); the corpus is then repeated R times,
# replica r with every run of letters and digits suffixed by two letters
# that spell r in base 26 ('aa', 'ab', ...), so that replicas share no
# shingle: each replica is the same problem under other names, and the
# exact answer on all of them is R times the answer on one (checked).  The
# nested-loop sample is whole clusters of the first replicas.
# shingleset_pairs and minhash_pairs run on all rows; the GIN self-join, which
# would take long on 1M, on a sample of probe rows against all rows, scaled
# (x N / probes: each probe is independent); --full-baselines runs it on
# everything.
#
# Timed calls: "SELECT count(*) FROM ..." inside the backend
# (test/bench/bench_memory.sql), each in a fresh session, min and median
# of --repeat runs, with work_mem large enough for the in-memory paths
# (computed from the documented bytes per row; --work-mem to force) and
# once at the default 4MB (shingleset_pairs through temporary files).
#
# Data: the long documents need only the checkout (--long-base FILE for
# another base TSV of id, label, text); the short texts need --data DIR
# holding debian-descriptions-en.tsv.gz (default: ../shared/data beside the
# checkout, or two levels up for a worktree), without which the short part
# is skipped.  Runs its own PostgreSQL instance; not part of CI.
#
# usage: test/bench/set_pairs_bench.sh [--parts "short long"] [--long-docs N]
#            [--thresholds "0.3 0.5 0.8"] [--repeat N] [--sample N] [--probes N]
#            [--data DIR] [--long-base FILE] [--data-dir DIR] [--work-mem SIZE]
#            [--full-baselines] [--methods "sets minhash gin sets4mb"] [--no-build]
#            [--keep-extension]
#
# --methods times only the methods named: without sets4mb the column of
# work_mem 4MB stays empty; without one of the others, a table per method
# replaces the ratios (e.g. "sets" to compare two builds of
# shingleset_pairs, with NDDUP_DESTDIR naming each and --data-dir keeping
# the data).
#
# --keep-extension keeps the extension objects and the tables of --data-dir
# when the installed extension script differs from the one they were made
# with (without it they are dropped and made again, which takes long on 1M
# rows): the calls then run the new library under the functions' old SQL
# declarations, so use it only when the functions timed are declared alike.

set -euo pipefail
source "$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/scripts/lib.sh"
BENCH_DIR=$NDDUP_ROOT/test/bench
# a failing command says where, instead of ending the run silently
set -o errtrace
trap 'echo "set_pairs_bench.sh: exit status $? at line $LINENO: $BASH_COMMAND" >&2' ERR

PARTS="short long"
LONG_DOCS=1000000
THRESHOLDS="0.3 0.5 0.8"
REPEAT=3
SAMPLE=20000
PROBES=2000
DATA=
LONG_BASE=$NDDUP_ROOT/data/debian-sample.tsv.gz
DATA_DIR=
WORK_MEM=
FULL=0
METHODS="sets minhash gin sets4mb"
BUILD=1
KEEP_EXTENSION=0
while [ $# -gt 0 ]; do
	case "$1" in
		--parts) PARTS=$2; shift ;;
		--long-docs) LONG_DOCS=$2; shift ;;
		--thresholds) THRESHOLDS=$2; shift ;;
		--repeat) REPEAT=$2; shift ;;
		--sample) SAMPLE=$2; shift ;;
		--probes) PROBES=$2; shift ;;
		--data) DATA=$2; shift ;;
		--long-base) LONG_BASE=$2; shift ;;
		--data-dir) DATA_DIR=$2; shift ;;
		--work-mem) WORK_MEM=$2; shift ;;
		--full-baselines) FULL=1 ;;
		--methods) METHODS=$2; shift ;;
		--no-build) BUILD=0 ;;
		--keep-extension) KEEP_EXTENSION=1 ;;
		*) echo "unknown option $1" >&2; exit 2 ;;
	esac
	shift
done
for d in "$NDDUP_ROOT/../shared" "$NDDUP_ROOT/../../shared"; do
	[ -z "$DATA" ] && [ -f "$d/data/debian-descriptions-en.tsv.gz" ] && DATA=$(cd "$d/data" && pwd)
done
DESCRIPTIONS=${DATA:+$DATA/debian-descriptions-en.tsv.gz}
if [[ " $PARTS " == *" short "* ]] && { [ -z "$DESCRIPTIONS" ] || [ ! -f "$DESCRIPTIONS" ]; }; then
	echo "short texts skipped: debian-descriptions-en.tsv.gz not found (give --data DIR)"
	PARTS=" $PARTS "; PARTS=${PARTS// short / }
fi
GENERATOR=$BENCH_DIR/gen_neardup.py
if [[ " $PARTS " == *" long "* ]] && [ ! -f "$LONG_BASE" ]; then
	echo "long documents skipped: $LONG_BASE not found"
	PARTS=" $PARTS "; PARTS=${PARTS// long / }
fi
[ -n "${PARTS// /}" ] || exit 0
min_t=$(printf '%s\n' $THRESHOLDS | sort -g | head -1)

[ $BUILD = 1 ] && build_and_install
make_workdir
source "$BENCH_DIR/bench_lib.sh"
bench_start_instance "$DATA_DIR" 1GB
q() { pg_sql -At "$@"; }

echo "# nddup shingleset_pairs against minhash_pairs and the GIN self-join, $(date -u '+%Y-%m-%d %H:%M UTC')"
bench_header
echo "thresholds: $THRESHOLDS; repeat $REPEAT; sample $SAMPLE; short texts from ${DESCRIPTIONS:-(none)}; long documents from $LONG_BASE"
echo

# ---- data, kept in the data directory when --data-dir is given
pg_sql -q -c "SET client_min_messages = warning" -c "CREATE TABLE IF NOT EXISTS bench_meta (k text PRIMARY KEY, v text)"
ext_script=$(ls "${NDDUP_DESTDIR:-}$(pg_config --sharedir)"/extension/nddup--*.sql 2>/dev/null | sort -V | tail -1)
ext_stamp=$(md5sum <"$ext_script" | cut -c1-12)
ext_made=$(q -c "SELECT v FROM bench_meta WHERE k = 'extension'")
if [ "$ext_made" != "$ext_stamp" ] && [ "$KEEP_EXTENSION" = 1 ] && [ -n "$ext_made" ]; then
	echo "extension script $ext_stamp, the data's extension objects made with $ext_made: kept (--keep-extension)"
elif [ "$ext_made" != "$ext_stamp" ]; then
	pg_sql -q -c "SET client_min_messages = warning" -c "DROP TABLE IF EXISTS s_short, s_long" \
		-c "DROP EXTENSION IF EXISTS nddup CASCADE" -c "CREATE EXTENSION nddup" \
		-c "DELETE FROM bench_meta" -c "INSERT INTO bench_meta VALUES ('extension', '$ext_stamp')"
fi
pg_sql -q -f "$BENCH_DIR/bench_memory.sql"

# has_rows TABLE: the table exists and is not empty (the tables are
# unlogged: after a server that was not shut down cleanly they are empty)
has_rows() { [ "$(q -c "SELECT to_regclass('$1') IS NOT NULL AND EXISTS (SELECT 1 FROM $1)" 2>/dev/null)" = t ]; }

# make_short: the synopses (first line) of the descriptions
make_short() {
	local stamp
	stamp="short $(md5sum <"$DESCRIPTIONS" | cut -c1-12)"
	[ "$(q -c "SELECT v FROM bench_meta WHERE k = 'short'")" = "$stamp" ] && has_rows s_short && return 0
	echo "loading the short texts"
	pg_sql -q <<SQL
SET client_min_messages = warning;
DROP TABLE IF EXISTS s_short;
CREATE TEMP TABLE src (id int, package text, body text);
COPY src FROM PROGRAM 'zcat $DESCRIPTIONS | tail -n +2';
CREATE UNLOGGED TABLE s_short AS
SELECT id, body, shingle_set(body) AS ss, minhash(body) AS sk
FROM (SELECT id::bigint AS id, split_part(body, E'\n', 1) AS body FROM src ORDER BY id) s;
VACUUM ANALYZE s_short;
INSERT INTO bench_meta VALUES ('short', '$stamp') ON CONFLICT (k) DO UPDATE SET v = excluded.v;
SQL
}

# make_long: the gen_neardup corpus of LONG_BASE, replicated to at least
# LONG_DOCS rows
make_long() {
	local stamp corpus="${DATA_DIR:-$WORKDIR}/neardup-long.tsv.gz" t0
	stamp="long $LONG_DOCS $(cat "$LONG_BASE" "$GENERATOR" | md5sum | cut -c1-12) suffix2"
	[ "$(q -c "SELECT v FROM bench_meta WHERE k = 'long'")" = "$stamp" ] && has_rows s_long && return 0
	t0=$(date +%s)
	if [ ! -f "$corpus" ] || [ "$(cat "$corpus.stamp" 2>/dev/null)" != "$stamp" ]; then
		echo "making the long documents: test/bench/gen_neardup.py $LONG_BASE --docs $LONG_DOCS --seed 1 (it stops when the base documents run out)"
		python3 "$GENERATOR" "$LONG_BASE" "$WORKDIR/corpus.tsv.gz" --docs "$LONG_DOCS" --seed 1
		mv "$WORKDIR/corpus.tsv.gz" "$corpus"
		echo "$stamp" >"$corpus.stamp"
		[ "$(id -u)" = 0 ] && chown "$PG_USER" "$corpus" "$corpus.stamp"
	fi
	echo "replicating $corpus to $LONG_DOCS documents or more"
	pg_sql -q <<SQL
SET client_min_messages = warning;
SET work_mem = '256MB';
DROP TABLE IF EXISTS s_long;
CREATE TEMP TABLE src (doc_id int, cluster_id int, kind text, edits text, body text);
COPY src FROM PROGRAM 'zcat $corpus | tail -n +2';
SELECT count(*) AS nc, ceil($LONG_DOCS / count(*)::float8)::int AS r FROM src \gset
SELECT :r <= 676 AS ok \gset
\if :ok
\else
\warn 'more than 676 replicas: the two-letter suffixes run out'
SELECT 1 / 0;
\endif
CREATE UNLOGGED TABLE s_long AS
SELECT id, replica, cluster_id, kind, body, shingle_set(body) AS ss, minhash(body) AS sk
FROM (SELECT (r * :nc + doc_id)::bigint AS id, r AS replica, cluster_id, kind,
			 regexp_replace(body, '([[:alnum:]]+)', '\1' || chr(97 + r / 26) || chr(97 + r % 26), 'g') AS body
	  FROM src, generate_series(0, :r - 1) r
	  ORDER BY 1) s;
VACUUM ANALYZE s_long;
INSERT INTO bench_meta VALUES ('long', '$stamp') ON CONFLICT (k) DO UPDATE SET v = excluded.v;
SQL
	echo "long documents made in $(( $(date +%s) - t0 )) s"
}

# stats_cell LABEL PATH: "min / median s" of the runs
stats_cell() {
	bench_stats "$1" "$2" | awk '{ printf "%s / %s", $2, $3 }'
}
# field LABEL PATH N: field N of bench_stats
field() { bench_stats "$1" "$2" | cut -d' ' -f"$3"; }
# timed METHOD: METHOD is among those --methods names
timed() { [[ " $METHODS " == *" $1 "* ]]; }

# run_part NAME TABLE SAMPLE_WHERE SCALE_MINHASH_WHERE SCALE
run_part() {
	local name=$1 tab=$2 sample_where=$3 mh_where=$4 mh_scale=$5
	local n avg wm gin_from gin_scale np
	n=$(q -c "SELECT count(*) FROM $tab")
	avg=$(q -c "SELECT round(avg(cardinality(shingleset_to_array(ss))), 1) FROM $tab")
	echo "## $name: $n rows in $tab ($(q -c "SELECT pg_size_pretty(pg_total_relation_size('$tab'))")), $avg shingles per set on average"
	# enough work_mem for the in-memory paths of both batch functions:
	# sets (200 + 8 x shingles) within 3/4 of it, sketches 624 bytes per row
	wm=${WORK_MEM:-$(awk -v n="$n" -v s="$avg" 'BEGIN {
		a = n * (200 + 8 * s) * 4 / 3; b = n * 624; m = (a > b ? a : b) * 1.25 / 1048576 + 256
		printf "%dMB", m }')}
	echo "work_mem for the timed calls: $wm (and 4MB for the default-settings row)"

	# the GIN index
	local t0
	gin_from=$tab; gin_scale=1
	if timed gin; then
		# (kept with the data: made again when the table is)
		if [ "$(q -c "SELECT to_regclass('${tab}_ss_gin') IS NOT NULL")" = t ] &&
			[ -n "$(q -c "SELECT v FROM bench_meta WHERE k = 'gin $tab'")" ]; then
			echo "GIN index (shingleset_ops, fastupdate off): kept from an earlier run, $(q -c "SELECT v FROM bench_meta WHERE k = 'gin $tab'")"
		else
			t0=$(date +%s.%N)
			pg_sql -q -c "SET maintenance_work_mem = '1GB'" -c "DROP INDEX IF EXISTS ${tab}_ss_gin" \
				-c "CREATE INDEX ${tab}_ss_gin ON $tab USING gin (ss shingleset_ops) WITH (fastupdate = off)"
			local built
			built=$(printf 'built in %.1f s at load %s (%s), %s' "$(echo "$(date +%s.%N) - $t0" | bc)" \
				"$(cut -d' ' -f1 /proc/loadavg)" "$(date -u '+%F %H:%M')" \
				"$(q -c "SELECT pg_size_pretty(pg_relation_size('${tab}_ss_gin'))")")
			pg_sql -q -c "INSERT INTO bench_meta VALUES ('gin $tab', '$built') ON CONFLICT (k) DO UPDATE SET v = excluded.v"
			echo "GIN index (shingleset_ops, fastupdate off): $built"
		fi
		if [ "$FULL" = 1 ] || [ "$n" -le 200000 ]; then
			gin_from=$tab; gin_scale=1
		else
			pg_sql -q -c "DROP TABLE IF EXISTS ${tab}_probes" \
				-c "CREATE TABLE ${tab}_probes AS SELECT * FROM $tab WHERE id % ($n / $PROBES) = 0" -c "ANALYZE ${tab}_probes"
			gin_from=${tab}_probes
			np=$(q -c "SELECT count(*) FROM ${tab}_probes")
			gin_scale=$(echo "scale=4; $n / $np" | bc)
			echo "GIN self-join: $np probe rows (id % $(( n / PROBES )) = 0) against all $n, scaled by $gin_scale"
		fi
		echo "GIN plan at 0.5:"
		pg_sql -At -c "SET nddup.similarity_threshold = 0.5" -c "EXPLAIN (COSTS OFF) SELECT count(*) FROM $gin_from a JOIN $tab b ON a.id < b.id AND b.ss % a.ss" | sed 's/^/    /'
	fi
	[ "$FULL" = 1 ] && { mh_where=; mh_scale=1; }
	if [ -n "$mh_where" ]; then
		echo "minhash_pairs: on $(q -c "SELECT count(*) FROM $tab WHERE $mh_where") rows ($mh_where), scaled by $mh_scale"
	fi

	# exactness: nested loop of jaccard() on the sample, at the lowest threshold
	# (kept with the data: the stamp says how it was made and how long it took)
	local ns nl_stamp nl_secs
	nl_stamp="$sample_where >= $min_t"
	nl_made=$(q -c "SELECT split_part(v, '|', 1) FROM bench_meta WHERE k = 'nl $tab'")
	# a truth made on the same sample at a threshold up to the lowest one
	# serves (the comparison takes j >= t from it): kept, not made again
	if [ "${nl_made% >= *}" != "$sample_where" ] ||
		! awk -v made="${nl_made##* >= }" -v t="$min_t" 'BEGIN { exit !(made + 0 <= t + 0) }'; then
		pg_sql -q -c "SET client_min_messages = warning" -c "DROP TABLE IF EXISTS ${tab}_sample" \
			-c "CREATE TABLE ${tab}_sample AS SELECT id, ss, sk FROM $tab WHERE $sample_where" -c "ANALYZE ${tab}_sample"
		t0=$(date +%s.%N)
		pg_sql -q -c "SET client_min_messages = warning" -c "DROP TABLE IF EXISTS ${tab}_nl" \
			-c "CREATE TABLE ${tab}_nl AS SELECT a.id AS id1, b.id AS id2, jaccard(a.ss, b.ss) AS j FROM ${tab}_sample a JOIN ${tab}_sample b ON a.id < b.id AND jaccard(a.ss, b.ss) >= $min_t"
		nl_secs=$(printf '%.1f s at load %s (%s)' "$(echo "$(date +%s.%N) - $t0" | bc)" "$(cut -d' ' -f1 /proc/loadavg)" "$(date -u '+%F %H:%M')")
		pg_sql -q -c "INSERT INTO bench_meta VALUES ('nl $tab', \$\$$nl_stamp|$nl_secs\$\$) ON CONFLICT (k) DO UPDATE SET v = excluded.v"
	fi
	ns=$(q -c "SELECT count(*) FROM ${tab}_sample")
	printf 'nested loop of jaccard() >= %s on the %s-row sample (%s): %s, %s pairs\n' "$min_t" "$ns" "$sample_where" \
		"$(q -c "SELECT split_part(v, '|', 2) FROM bench_meta WHERE k = 'nl $tab'")" "$(q -c "SELECT count(*) FROM ${tab}_nl")"
	echo
	echo "| threshold | exact pairs (sample) | shingleset_pairs missed / extra / similarity differs (sample) | minhash_pairs missed / extra (sample) |"
	echo "|---|---|---|---|"
	for t in $THRESHOLDS; do
		q -F' | ' -c "
			WITH nl AS (SELECT id1, id2, j FROM ${tab}_nl WHERE j >= $t),
				 sp AS (SELECT * FROM shingleset_pairs('SELECT id, ss FROM ${tab}_sample', $t)),
				 mp AS (SELECT * FROM minhash_pairs('SELECT id, sk FROM ${tab}_sample', $t))
			SELECT '| ' || $t, (SELECT count(*) FROM nl),
				   (SELECT count(*) FROM nl WHERE NOT EXISTS (SELECT 1 FROM sp WHERE (sp.id1, sp.id2) = (nl.id1, nl.id2)))
				   || ' / ' || (SELECT count(*) FROM sp WHERE NOT EXISTS (SELECT 1 FROM nl WHERE (sp.id1, sp.id2) = (nl.id1, nl.id2)))
				   || ' / ' || (SELECT count(*) FROM sp JOIN nl USING (id1, id2) WHERE sp.similarity <> nl.j),
				   (SELECT count(*) FROM nl WHERE NOT EXISTS (SELECT 1 FROM mp WHERE (mp.id1, mp.id2) = (nl.id1, nl.id2)))
				   || ' / ' || (SELECT count(*) FROM mp WHERE NOT EXISTS (SELECT 1 FROM nl WHERE (mp.id1, mp.id2) = (nl.id1, nl.id2))) || ' |'"
	done
	echo

	# the timed calls, one threshold at a time, the methods alternated
	local mh_src="SELECT id, sk FROM $tab${mh_where:+ WHERE $mh_where}"
	for t in $THRESHOLDS; do
		for _ in $(seq 1 "$REPEAT"); do
			! timed sets || bench_measure "$name-$t" sets "$wm" "shingleset_pairs('SELECT id, ss FROM $tab', $t)" "count(*)::text"
			! timed minhash || bench_measure "$name-$t" minhash "$wm" "minhash_pairs('$mh_src', $t)" "count(*)::text"
			! timed gin || bench_measure "$name-$t" gin "$wm" "(SELECT 1 FROM $gin_from a JOIN $tab b ON a.id < b.id AND b.ss % a.ss) x" \
				"count(*)::text" "SET nddup.similarity_threshold = $t;"
		done
		! timed sets4mb || bench_measure "$name-$t" sets4mb 4MB "shingleset_pairs('SELECT id, ss FROM $tab', $t)" "count(*)::text"
	done
	if ! timed sets || ! timed minhash || ! timed gin; then
		echo "| threshold | method | pairs | wall min / median s | CPU min s | peak RssAnon MB | temp GB | load (1 min) at the runs |"
		echo "|---|---|---|---|---|---|---|---|"
		for t in $THRESHOLDS; do
			for m in $METHODS; do
				printf '| %s | %s | %s | %s / %s | %s | %s | %s | %s |\n' "$t" "$m" "$(field "$name-$t" "$m" 8)" \
					"$(field "$name-$t" "$m" 2)" "$(field "$name-$t" "$m" 3)" "$(field "$name-$t" "$m" 4)" \
					"$(field "$name-$t" "$m" 10)" "$(field "$name-$t" "$m" 14)" "$(field "$name-$t" "$m" 7)"
			done
		done
		echo
		return 0
	fi
	echo "| threshold | exact pairs | shingleset_pairs: wall min / median s (CPU min s) | minhash_pairs: pairs, wall min / median s (CPU min s) | GIN self-join: pairs, wall min / median s (CPU min s) | minhash ÷ sets: wall min, median (CPU min) | GIN ÷ sets: wall min, median (CPU min) | shingleset_pairs at work_mem 4MB: wall s (CPU s), peak RssAnon MB, temp GB | load (1 min) at the runs |"
	echo "|---|---|---|---|---|---|---|---|---|"
	for t in $THRESHOLDS; do
		local l="$name-$t" sm sd sc mm md mc gm gd gc
		sm=$(field "$l" sets 2); sd=$(field "$l" sets 3); sc=$(field "$l" sets 4)
		mm=$(echo "$(field "$l" minhash 2) * $mh_scale" | bc); md=$(echo "$(field "$l" minhash 3) * $mh_scale" | bc)
		mc=$(echo "$(field "$l" minhash 4) * $mh_scale" | bc)
		gm=$(echo "$(field "$l" gin 2) * $gin_scale" | bc); gd=$(echo "$(field "$l" gin 3) * $gin_scale" | bc)
		gc=$(echo "$(field "$l" gin 4) * $gin_scale" | bc)
		printf '| %s | %s | %s / %s (%s) | %s, %s / %s (%s)%s | %s, %s / %s (%s)%s | %.1f, %.1f (%.1f) | %.1f, %.1f (%.1f) | %s (%s), %s, %s | %s |\n' \
			"$t" "$(field "$l" sets 8)" "$sm" "$sd" "$sc" \
			"$(field "$l" minhash 8)" "$(field "$l" minhash 2)" "$(field "$l" minhash 3)" "$(field "$l" minhash 4)" \
			"$( [ "$mh_scale" = 1 ] || echo "; x $mh_scale = $mm / $md ($mc)")" \
			"$(field "$l" gin 8)" "$(field "$l" gin 2)" "$(field "$l" gin 3)" "$(field "$l" gin 4)" \
			"$( [ "$gin_scale" = 1 ] || echo "; x $gin_scale = $gm / $gd ($gc)")" \
			"$(echo "$mm / $sm" | bc -l)" "$(echo "$md / $sd" | bc -l)" "$(echo "$mc / $sc" | bc -l)" \
			"$(echo "$gm / $sm" | bc -l)" "$(echo "$gd / $sd" | bc -l)" "$(echo "$gc / $sc" | bc -l)" \
			"$(field "$l" sets4mb 2)" "$(field "$l" sets4mb 4)" "$(field "$l" sets4mb 10)" "$(field "$l" sets4mb 14)" \
			"sets $(field "$l" sets 7); minhash $(field "$l" minhash 7); gin $(field "$l" gin 7); 4MB $(field "$l" sets4mb 7)"
	done
	for t in $THRESHOLDS; do
		! timed sets4mb || [ "$(field "$name-$t" sets 8)" = "$(field "$name-$t" sets4mb 8)" ] ||
			echo "DIFFERENT: shingleset_pairs at $t gives $(field "$name-$t" sets 8) pairs in memory, $(field "$name-$t" sets4mb 8) at 4MB"
	done
	echo
}

for part in $PARTS; do
	case $part in
		short)
			make_short
			run_part short s_short "(id - 1) / 1000 % 16 < 5" "" 1
			;;
		long)
			make_long
			nc=$(q -c "SELECT count(*) FROM s_long WHERE replica = 0")
			r=$(q -c "SELECT max(replica) + 1 FROM s_long")
			echo "long documents: $nc per replica ($(q -c "SELECT string_agg(kind || ' ' || n, ', ' ORDER BY n DESC) FROM (SELECT kind, count(*) n FROM s_long WHERE replica = 0 GROUP BY kind) k")), $r replicas"
			# the sample: whole clusters of the first replicas, about SAMPLE rows
			nr=$(( (SAMPLE + nc - 1) / nc ))
			k=$(( SAMPLE * 1000 / (nr * nc) ))
			run_part long s_long "replica < $nr AND abs(cluster_id) % 1000 < $k" "" 1
			echo "replica check: shingleset_pairs on replica 0 alone, times $r, against all replicas:"
			for t in $THRESHOLDS; do
				one=$(q -c "SET work_mem = '1GB'" -c "SELECT count(*) FROM shingleset_pairs('SELECT id, ss FROM s_long WHERE replica = 0', $t)")
				echo "  $t: $one x $r = $(( one * r )), all replicas $(field "long-$t" sets 8)"
			done
			echo
			;;
		*) echo "unknown part $part" >&2; exit 2 ;;
	esac
done
bench_footer
