#!/usr/bin/env bash
# Memory of the backend (docs/reports/reliability.md, "Resources"):
#   (a) peak growth of the backend's resident set (VmHWM after the call minus
#       VmRSS before, the peak reset with /proc/self/clear_refs) for the batch
#       functions over 10M fingerprints (hamming_pairs, hamming_clusters) and
#       1M min-hash sketches (minhash_pairs) at work_mem = 4MB and 64MB, and
#       with a work_mem large enough for the in-memory path: does the memory
#       follow work_mem or the input?
#   (b) the same peak for N = 100K and N = 1M calls of each per-row function
#       in one statement: flat means nothing accumulates from call to call.
#   (c) the same peak for one call of each text function on one document of
#       about TEXT_MB MB of each hard character class (NFKC expanders such as
#       U+FDFA, 18 characters, and U+FDF2, one long word; U+FB2C; ligatures;
#       character references; ideographs; ASCII), as a multiple of the
#       input: at most 4, or 54000 (a working text over 1 GB) - never an
#       out-of-memory kill.
# Each measurement runs in a fresh session, after a scan of its input table.
# The peak includes the shared buffers the backend touches for the first
# time during the call (they stay mapped, so their growth is read after the
# call and shown beside): peak - shared is the backend's private memory.
# Runs its own temporary PostgreSQL instance (scripts/lib.sh); everything
# under nice -n 19.  Needs about 3 GB of free memory and 2 GB of disk.
#
# usage: test/bench/reliability/memory.sh [--part a|b|c] [--no-reference] [--no-build]
#                                    [--text-mb N]
#   --no-reference  skip the in-memory reference runs (large work_mem)
#   --text-mb N     size of the documents of part (c) (default 100)

set -euo pipefail
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/common.sh"

PARTS="a b c"
REFERENCE=1
BUILD=1
TEXT_MB=100
while [ $# -gt 0 ]; do
	case "$1" in
		--text-mb) TEXT_MB=$2; shift ;;
		--part) PARTS=$2; shift ;;
		--no-reference) REFERENCE=0 ;;
		--no-build) BUILD=0 ;;
		*) echo "unknown option $1" >&2; exit 2 ;;
	esac
	shift
done

reliability_start "nddup backend memory"
echo

pg_sql -q <<'SQL'
CREATE EXTENSION nddup;
-- run sql (a query returning one value) and report its time, its value (or
-- the SQLSTATE of its error), the backend's peak resident growth and, of
-- that, the growth of its shared memory pages (shared buffers touched)
CREATE FUNCTION peak(sql text) RETURNS TABLE (ms numeric, result text, peak_kb bigint, shm_kb bigint)
LANGUAGE plpgsql AS $$
DECLARE
	t0 timestamptz;
	rss0 bigint;
	shm0 bigint;
BEGIN
	-- reset the peak resident size of this backend (Linux clear_refs 5)
	EXECUTE 'COPY (SELECT 5) TO ''/proc/self/clear_refs''';
	rss0 := substring(pg_read_file('/proc/self/status') FROM 'VmRSS:\s+(\d+)')::bigint;
	shm0 := substring(pg_read_file('/proc/self/status') FROM 'RssShmem:\s+(\d+)')::bigint;
	t0 := clock_timestamp();
	BEGIN
		EXECUTE sql INTO result;
	EXCEPTION WHEN OTHERS THEN
		result := 'error:' || SQLSTATE;
	END;
	ms := round(extract(epoch FROM clock_timestamp() - t0)::numeric * 1000);
	peak_kb := substring(pg_read_file('/proc/self/status') FROM 'VmHWM:\s+(\d+)')::bigint - rss0;
	shm_kb := substring(pg_read_file('/proc/self/status') FROM 'RssShmem:\s+(\d+)')::bigint - shm0;
	RETURN NEXT;
END $$;
SQL

# One measurement in a fresh session: prints "ms result peak_kb shm_kb".
measure() {
	local settings=$1 warm=$2 sql=$3
	pg_sql -At -F ' ' -c "$settings" -c "$warm" -c "SELECT * FROM peak(\$q\$$sql\$q\$)" | tail -1
}

mb() { awk -v kb="$1" 'BEGIN { printf "%.1f", kb / 1024 }'; }

# A row of table (b) from the measurements at N = 100K and N = 1M.
row() {
	local label=$1 ms1 r1 k1 s1 ms2 r2 k2 s2
	read -r ms1 r1 k1 s1 <<<"$2"
	read -r ms2 r2 k2 s2 <<<"$3"
	if [[ "$r1 $r2" == *error* ]]; then
		echo "| \`$label\` | $r1 | $r2 | | |"
	else
		echo "| \`$label\` | $(mb "$k1") ($(mb "$s1")) | $(mb "$k2") ($(mb "$s2")) | $(mb $((k2 - s2 - k1 + s1))) | $ms2 |"
	fi
}

if [[ " $PARTS " == *" a "* ]]; then
	t0=$(date +%s)
	pg_sql -q <<'SQL'
-- 10M fingerprints: 90 % random, 10 % variants of a random earlier row with
-- 1-6 flipped bits (test/bench/batch_bench.sh)
CREATE UNLOGGED TABLE docs (id bigint, fp simhash64);
INSERT INTO docs SELECT g, hashint8extended(g, 42)::simhash64 FROM generate_series(1, 9000000) g;
INSERT INTO docs
SELECT 9000000 + g,
	(b.fp::bigint
	 # (1::bigint << (hashint8extended(g, 101) & 63)::int)
	 # CASE WHEN g % 6 >= 1 THEN 1::bigint << (hashint8extended(g, 102) & 63)::int ELSE 0 END
	 # CASE WHEN g % 6 >= 2 THEN 1::bigint << (hashint8extended(g, 103) & 63)::int ELSE 0 END
	 # CASE WHEN g % 6 >= 3 THEN 1::bigint << (hashint8extended(g, 104) & 63)::int ELSE 0 END
	 # CASE WHEN g % 6 >= 4 THEN 1::bigint << (hashint8extended(g, 105) & 63)::int ELSE 0 END
	 # CASE WHEN g % 6 >= 5 THEN 1::bigint << (hashint8extended(g, 106) & 63)::int ELSE 0 END)::simhash64
FROM generate_series(1, 1000000) g
JOIN docs b ON b.id = 1 + (hashint8extended(g, 7) & 2147483647) % 9000000;
-- 1M min-hash sketches (k = 128) of 12-word documents; ids g and g + 500,000
-- share 11 words
CREATE UNLOGGED TABLE sk AS
SELECT g AS id, minhash(concat_ws(' ', g % 500000, (g % 500000) * 7, (g % 500000) * 11,
	(g % 500000) * 13, (g % 500000) * 17, (g % 500000) * 19, (g % 500000) * 23, (g % 500000) * 29,
	(g % 500000) * 31, (g % 500000) * 37, (g % 500000) * 41, g)) AS s
FROM generate_series(1, 1000000) g;
VACUUM ANALYZE docs, sk;
SQL
	echo "data generated in $(($(date +%s) - t0)) s: $(pg_sql -Atc "SELECT count(*) FROM docs") fingerprints ($(pg_sql -Atc "SELECT pg_size_pretty(pg_table_size('docs'))")), $(pg_sql -Atc "SELECT count(*) FROM sk") sketches ($(pg_sql -Atc "SELECT pg_size_pretty(pg_table_size('sk'))"))"
	echo
	echo "## (a) batch functions: peak resident growth of the backend"
	echo
	echo "| call | input | work_mem | result (rows, or error) | time ms | peak MB | of which shared MB | (peak - shared) / work_mem |"
	echo "|---|---|---|---|---:|---:|---:|---:|"
	BATCH=(
		"hamming_pairs(…, 3)|10M fingerprints|docs|hamming_pairs('SELECT id, fp FROM docs', 3)|4MB 64MB 2GB"
		"hamming_clusters(…, 3)|10M fingerprints|docs|hamming_clusters('SELECT id, fp FROM docs', 3)|4MB 64MB 2GB"
		"minhash_pairs(…, 0.8)|1M sketches (k = 128)|sk|minhash_pairs('SELECT id, s FROM sk', 0.8)|4MB 64MB 1GB"
	)
	for c in "${BATCH[@]}"; do
		IFS='|' read -r label input table call wms <<<"$c"
		for wm in $wms; do
			case "$wm" in 4MB|64MB) ;; *) [ "$REFERENCE" = 1 ] || continue ;; esac
			read -r ms result kb shm < <(measure "SET work_mem = '$wm'" "SELECT count(*) FROM $table" \
				"SELECT count(*)::text FROM $call")
			wmkb=$(pg_sql -Atc "SELECT pg_size_bytes('$wm') / 1024")
			echo "| \`$label\` | $input | $wm | $result | $ms | $(mb "$kb") | $(mb "$shm") | $(awk -v a="$kb" -v s="$shm" -v b="$wmkb" 'BEGIN { printf "%.2f", (a - s) / b }') |"
		done
	done
	echo
fi

if [[ " $PARTS " == *" b "* ]]; then
	pg_sql -q <<'SQL'
-- documents of 150-200 bytes: markup, an entity, non-ASCII letters, an ideograph run, a number
CREATE FUNCTION doc(g bigint) RETURNS text LANGUAGE sql IMMUTABLE AS $$
	SELECT '<p>Lorem ipsum dolor sit amet ' || g || ', consectetur adipiscing elit &amp; '
		|| 'Ǆémigré Ａｂｃ 東京都 ' || md5(g::text) || ' sed do eiusmod ' || g % 1000 || '</p>'
$$;
CREATE TABLE lexicon AS SELECT imatch_lexicon_agg(doc(g)) AS l FROM generate_series(1, 10000) g;
CREATE TABLE posts (id bigint PRIMARY KEY, fp simhash64, duplicate_of bigint);
CREATE INDEX ON posts USING gin (fp simhash64_gin_ops) WITH (fastupdate = off) WHERE duplicate_of IS NULL;
CREATE TRIGGER dedup BEFORE INSERT ON posts FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=fp', 'radius=3');
SQL
	echo "## (b) N calls in one statement: peak resident growth of the backend"
	echo
	echo "| expression (t = a 150-200 byte document) | N = 100K: peak MB (shared) | N = 1M: peak MB (shared) | 1M - 100K without shared: MB | time at 1M: ms |"
	echo "|---|---:|---:|---:|---:|"
	CALLS=(
		"md5(t) (baseline: no nddup)|count(md5(t))"
		"normalize_text(t)|count(normalize_text(t))"
		"tokens(t)|count(tokens(t))"
		"shingles(t)|count(shingles(t))"
		"simhash(t)|count(simhash(t))"
		"simhash(t, 3, 'word', 'set')|count(simhash(t, 3, 'word', 'set'))"
		"simhash(t, 4, 'char')|count(simhash(t, 4, 'char'))"
		"simhash(tokens(t)) (text[])|count(simhash(tokens(t)))"
		"simhash(to_tsvector('simple', t))|count(simhash(to_tsvector('simple', t)))"
		"shingle_set(t)|count(shingle_set(t))"
		"shingle_bottom(t, 8)|count(shingle_bottom(t, 8))"
		"shingle_mod(t, 4)|count(shingle_mod(t, 4))"
		"jaccard(shingle_set(t), shingle_set(concat(t, ' x')))|count(jaccard(shingle_set(t), shingle_set(concat(t, ' x'))))"
		"minhash(t)|count(minhash(t))"
		"minhash(t, 128, 'kperm')|count(minhash(t, 128, 'kperm'))"
		"minhash_bbit(minhash(t), 8)|count(minhash_bbit(minhash(t), 8))"
		"super_shingles(minhash(t, 84))|count(super_shingles(minhash(t, 84)))"
		"imatch(t, lexicon)|count(imatch(t, (SELECT l FROM lexicon)))"
		"simhash_agg(t, 1) (aggregate)|simhash_agg(t, 1)"
		"minhash_union(minhash(t)) (aggregate)|minhash_union(minhash(t))"
	)
	for c in "${CALLS[@]}"; do
		IFS='|' read -r label expr <<<"$c"
		out=()
		for n in 100000 1000000; do
			out+=("$(measure "SET work_mem = '4MB'" "SELECT 1" \
				"SELECT md5(($expr)::text) FROM (SELECT doc(g) AS t FROM generate_series(1, $n) g) s")")
		done
		row "$label" "${out[@]}"
	done
	# the duplicate trigger, one row at a time, N rows per INSERT into an empty table
	out=()
	for n in 100000 1000000; do
		pg_sql -q -c "TRUNCATE posts"
		out+=("$(measure "SET client_min_messages = error" "SELECT 1" \
			"WITH i AS (INSERT INTO posts SELECT g, hashint8extended(g, 42)::simhash64 FROM generate_series(1, $n) g RETURNING 1) SELECT count(*)::text FROM i")")
	done
	row "INSERT of N rows through nddup_dedup_trigger (GIN, radius 3)" "${out[@]}"
	echo
fi
if [[ " $PARTS " == *" c "* ]]; then
	# class | the repeated piece (SQL) | what NFKC and the pipeline make of it
	CLASSES=(
		"U+FDFA|U&'\\FDFA'|3 bytes, NFKC 18 characters with 3 spaces (33 bytes)"
		"U+FDF2|U&'\\FDF2'|3 bytes, NFKC 4 letters (8 bytes): one word of the whole text"
		"U+FB2C|U&'\\FB2C '|4 bytes, NFKC 3 code points (6 bytes)"
		"ligatures|U&'\\FB03\\FB04 '|7 bytes, NFKC ffi ffl"
		"&#xFDFA;|'&#xFDFA; '|9 bytes, a character reference to U+FDFA"
		"ideographs|'東京都大阪府'|18 bytes, 6 one-character tokens"
		"ASCII|'Word '|5 bytes"
		"combining marks|U&'\\0301\\0323'|4 bytes, two marks of different classes: the whole text is one segment to reorder"
	)
	FUNCS=(
		"simhash(t)|simhash(body)::text"
		"simhash(t, 4, 'char')|simhash(body, 4, 'char')::text"
		"simhash(t, 3, 'word_')|simhash(body, 3, 'word_')::text"
		"shingle_set(t)|cardinality(shingle_set(body))::text"
		"minhash(t)|(minhash(body) IS NULL)::text"
		"normalize_text(t)|octet_length(normalize_text(body))::text"
		"tokens(t)|cardinality(tokens(body))::text"
		"shingles(t)|cardinality(shingles(body))::text"
	)
	echo "## (c) one call on a document of about $TEXT_MB MB: peak resident growth of the backend"
	echo
	for cl in "${CLASSES[@]}"; do
		IFS='|' read -r label piece what <<<"$cl"
		echo "- $label: $piece repeated; $what"
	done
	echo
	echo "| class | input MB | call | result (or SQLSTATE) | time ms | peak MB | peak / input |"
	echo "|---|---:|---|---|---:|---:|---:|"
	for cl in "${CLASSES[@]}"; do
		IFS='|' read -r label piece what <<<"$cl"
		pg_sql -q -c "DROP TABLE IF EXISTS doc1" \
			-c "CREATE TABLE doc1 AS SELECT repeat($piece, ($TEXT_MB * 1048576 / octet_length($piece))::int) AS body"
		inmb=$(pg_sql -Atc "SELECT round(octet_length(body) / 1048576.0, 1) FROM doc1")
		for f in "${FUNCS[@]}"; do
			IFS='|' read -r flabel expr <<<"$f"
			read -r ms result kb shm < <(measure "SET work_mem = '4MB'" "SELECT length(body) FROM doc1" \
				"SELECT $expr FROM doc1")
			[ ${#result} -le 20 ] || result="${result:0:17}..."
			echo "| $label | $inmb | \`$flabel\` | $result | $ms | $(mb $((kb - shm))) | $(awk -v k="$((kb - shm))" -v m="$inmb" 'BEGIN { printf "%.2f", k / 1024 / m }') |"
		done
	done
	echo
	echo "(peak MB without the shared buffers touched; the input document itself, detoasted, is part of the peak)"
	echo
fi
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
