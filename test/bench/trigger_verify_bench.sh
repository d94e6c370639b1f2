#!/usr/bin/env bash
# Verified candidates in the insert-time trigger (docs/trigger.md#verified-candidates):
# what the recipes of README.md, scripts/demo.sh and docs/trigger.md flag on
# short real texts, and what the verification costs per insert.
#
# (a) Precision on short texts: the corpus of one-line Debian package
#     synopses (--corpus, default /work/cache/corpora/short.tsv.gz: id,
#     package, text; 56,605 distinct texts of 1-10 tokens, see
#     /work/cache/corpora/RESEARCH.md) is inserted, in id order, through
#     each recipe's table, index and trigger.  For each recipe: the rows it
#     flags (marked; for skip the rows dropped, for error the rows refused)
#     and how many of the marked rows have an exact word 3-shingle Jaccard
#     (jaccard(shingle_set(a), shingle_set(b))) below 0.2 with the original
#     they point at (target: at most 1 %), beside the unverified radius-12
#     recipe (the README's before verify=) and the unverified min-hash one.
#     The batch recipes of README and the demo (hamming_pairs/_clusters with
#     verify) are counted the same way over the stored corpus.
# (b) Cost per insert with --rows stored rows (default 1,000,000): texts of
#     two synopses each, their fingerprints, the hamming index of the
#     recipe; a stream of --stream rows (15 % copies of stored texts with a
#     word appended, 85 % new) inserted one statement per row by pgbench,
#     with the trigger without verify and with verify=0.3, alternately,
#     --reps times each (the stream's rows are deleted and the table vacuumed
#     between runs).  Prints the mean per-insert latency of both and the
#     difference (target: verify costs at most 1 ms more per insert).
#
# Not run in CI.  Usage:
#   test/bench/trigger_verify_bench.sh [--corpus FILE] [--rows N] [--stream N]
#       [--reps N] [--skip-a] [--skip-b] [--no-install]
set -euo pipefail

source "$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/scripts/lib.sh"

CORPUS=/work/cache/corpora/short.tsv.gz
ROWS=1000000
STREAM=5000
REPS=3
RUN_A=1
RUN_B=1
INSTALL=1
while [ $# -gt 0 ]; do
	case "$1" in
		--corpus) CORPUS=$2; shift ;;
		--rows) ROWS=$2; shift ;;
		--stream) STREAM=$2; shift ;;
		--reps) REPS=$2; shift ;;
		--skip-a) RUN_A=0 ;;
		--skip-b) RUN_B=0 ;;
		--no-install) INSTALL=0 ;;
		*) echo "unknown option: $1" >&2; exit 2 ;;
	esac
	shift
done
[ -r "$CORPUS" ] || { echo "corpus $CORPUS not found" >&2; exit 1; }

[ "$INSTALL" = 1 ] && build_and_install
make_workdir
start_instance
cat >>"$WORKDIR/data/postgresql.conf" <<CONF
shared_buffers = 1GB
synchronous_commit = off
full_page_writes = off
autovacuum = off
max_parallel_workers_per_gather = 0
max_wal_size = 4GB
CONF
as_pg pg_ctl -D "$WORKDIR/data" -l "$WORKDIR/server.log" -w restart >/dev/null
export PGOPTIONS='-c client_min_messages=error'
q() { pg_sql -X -At -F ' ' "$@"; }

echo "== machine: $(nproc) cores, $(postgres --version)"
echo "== uptime at start: $(uptime)"
zcat "$CORPUS" | tail -n +2 > "$WORKDIR/corpus.tsv"
chmod 644 "$WORKDIR/corpus.tsv"
q -c "CREATE EXTENSION nddup" \
  -c "CREATE TABLE corpus (id int PRIMARY KEY, package text, body text NOT NULL)" \
  -c "\\copy corpus FROM '$WORKDIR/corpus.tsv'" >/dev/null
echo "== corpus: $(q -c "SELECT count(*) || ' texts, ' || round(avg(length(body))) || ' characters and ' || round(avg(array_length(tokens(body), 1)), 1) || ' tokens on average' FROM corpus")"

# ---------------------------------------------------------------------------
# (a) what each recipe flags
# ---------------------------------------------------------------------------

# make_posts index-sql trigger-args: an empty posts table with the recipe's
# index and trigger
make_posts() {
	q -c "DROP TABLE IF EXISTS posts" \
	  -c "CREATE TABLE posts (id bigserial PRIMARY KEY, body text NOT NULL,
	        fp simhash64 GENERATED ALWAYS AS (simhash(body)) STORED, duplicate_of bigint)" \
	  -c "$1" \
	  -c "CREATE TRIGGER dedup BEFORE INSERT OR UPDATE OF body ON posts FOR EACH ROW
	        EXECUTE FUNCTION nddup_dedup_trigger($2)" >/dev/null
}

# recipe name index-sql trigger-args: insert the corpus through it and print
# one line: flagged, of which J < 0.2, share, J < 0.3, seconds.
recipe() {
	local name=$1 index=$2 args=$3 t0 t1
	make_posts "$index" "$args"
	t0=$(date +%s.%N)
	q -c "INSERT INTO posts (id, body) SELECT id, body FROM corpus ORDER BY id" >/dev/null
	t1=$(date +%s.%N)
	q -c "SELECT count(*) AS flagged,
	             count(*) FILTER (WHERE j < 0.2) AS below_02,
	             round(100.0 * count(*) FILTER (WHERE j < 0.2) / greatest(count(*), 1), 2) AS pct,
	             count(*) FILTER (WHERE j < 0.3) AS below_03
	      FROM (SELECT jaccard(shingle_set(p.body), shingle_set(o.body)) AS j
	            FROM posts p JOIN posts o ON o.id = p.duplicate_of) s" |
		awk -v name="$name" -v s="$(echo "$t1 - $t0" | bc)" \
			'{ printf "%-44s %8d %8d %7.2f %% %8d %8.1f\n", name, $1, $2, $3, $4, s }'
}

# count_skip name index args: rows dropped by action=skip
count_skip() {
	local name=$1 index=$2 args=$3
	make_posts "$index" "$args"
	q -c "INSERT INTO posts (id, body) SELECT id, body FROM corpus ORDER BY id" >/dev/null
	q -c "SELECT (SELECT count(*) FROM corpus) - count(*) FROM posts" |
		awk -v name="$name" '{ printf "%-44s %8d   (dropped; same lookup as mark)\n", name, $1 }'
}

# count_error name index args: rows refused by action=error, one statement each
count_error() {
	local name=$1 index=$2 args=$3
	make_posts "$index" "$args"
	q -c "CREATE TABLE IF NOT EXISTS refused (n int)" -c "TRUNCATE refused" \
	  -c "DO \$\$
	      DECLARE r record; n int := 0;
	      BEGIN
	        FOR r IN SELECT id, body FROM corpus ORDER BY id LOOP
	          BEGIN
	            INSERT INTO posts (id, body) VALUES (r.id, r.body);
	          EXCEPTION WHEN unique_violation THEN n := n + 1;
	          END;
	        END LOOP;
	        INSERT INTO refused VALUES (n);
	      END \$\$" >/dev/null
	q -c "SELECT n FROM refused" |
		awk -v name="$name" '{ printf "%-44s %8d   (refused; same lookup as mark)\n", name, $1 }'
}

HAM="CREATE INDEX posts_fp_idx ON posts USING hamming (fp) WHERE duplicate_of IS NULL"
HAM_README="CREATE INDEX ON posts USING hamming (fp) WHERE duplicate_of IS NULL"
MH="CREATE INDEX posts_mh_idx ON posts USING gin ((minhash(body, 128, 'oph', 0, 3, 'word')) minhash_lsh_ops (threshold = 0.3)) WITH (fastupdate = off) WHERE duplicate_of IS NULL"

if [ "$RUN_A" = 1 ]; then
	echo
	echo "== (a) the corpus inserted through each recipe (marked rows; J = exact word 3-shingle Jaccard with the original)"
	printf '%-44s %8s %8s %9s %8s %8s\n' recipe flagged "J<0.2" share "J<0.3" seconds
	recipe "baseline: radius 12, no verify (README 0.1)" "$HAM_README" \
		"'fingerprint=fp', 'source=body', 'radius=12'"
	recipe "baseline: minhash 0.3, no verify" "$MH" \
		"'source=body', 'method=minhash', 'threshold=0.3'"
	recipe "README tour / demo: radius 12, verify=0.3" "$HAM_README" \
		"'fingerprint=fp', 'source=body', 'radius=12', 'verify=0.3'"
	recipe "trigger.md lead: radius 12, verify=0.3, mark" "$HAM" \
		"'fingerprint=fp', 'source=body', 'radius=12', 'verify=0.3', 'id=id', 'duplicate_of=duplicate_of', 'action=mark'"
	recipe "trigger.md: minhash 0.3, verify=0.3" "$MH" \
		"'source=body', 'method=minhash', 'threshold=0.3', 'verify=0.3'"
	count_skip "trigger.md demo blog: skip, verify=0.3" "$HAM" \
		"'fingerprint=fp', 'source=body', 'radius=12', 'verify=0.3', 'action=skip'"
	count_error "trigger.md demo blog: error, verify=0.3" "$HAM" \
		"'fingerprint=fp', 'source=body', 'radius=12', 'verify=0.3', 'action=error'"

	echo
	echo "== (a) the batch recipes of README and the demo over the corpus (pairs; J as above)"
	q -c "CREATE TABLE docs AS SELECT id::bigint AS id, body, simhash(body) AS fp FROM corpus" >/dev/null
	for v in "no verify|" "verify => 0.3|, verify_column => 'body', verify => 0.3"; do
		label=${v%%|*}
		extra=${v#*|}
		q -c "SELECT count(*), count(*) FILTER (WHERE j < 0.2),
		             round(100.0 * count(*) FILTER (WHERE j < 0.2) / greatest(count(*), 1), 2)
		      FROM (SELECT jaccard(shingle_set(a.body), shingle_set(b.body)) AS j
		            FROM hamming_pairs('docs', 'id', 'fp', 12$extra) p
		            JOIN docs a ON a.id = p.id1 JOIN docs b ON b.id = p.id2) s" |
			awk -v name="hamming_pairs radius 12, $label" '{ printf "%-44s %8d %8d %7.2f %%\n", name, $1, $2, $3 }'
	done
	q -c "DROP TABLE docs" >/dev/null
fi

# ---------------------------------------------------------------------------
# (b) the cost of verification per insert at --rows stored rows
# ---------------------------------------------------------------------------
if [ "$RUN_B" = 1 ]; then
	echo
	echo "== (b) cost per insert with $ROWS stored rows (texts of two synopses), stream of $STREAM rows, $REPS runs each"
	NC=$(q -c "SELECT count(*) FROM corpus")
	q -c "DROP TABLE IF EXISTS posts" \
	  -c "CREATE TABLE posts (id bigserial PRIMARY KEY, body text NOT NULL,
	        fp simhash64 GENERATED ALWAYS AS (simhash(body)) STORED, duplicate_of bigint)" \
	  -c "INSERT INTO posts (id, body)
	      SELECT i, a.body || ' ' || b.body
	      FROM generate_series(1, $ROWS) i
	      JOIN corpus a ON a.id = 1 + (hashint8(i) & 2147483647) % $NC
	      JOIN corpus b ON b.id = 1 + (hashint8(-i) & 2147483647) % $NC" \
	  -c "SELECT setval('posts_id_seq', $ROWS)" \
	  -c "$HAM" \
	  -c "CREATE INDEX ON posts (duplicate_of)" \
	  -c "VACUUM ANALYZE posts" >/dev/null
	echo "   stored: $(q -c "SELECT count(*) || ' rows, ' || round(avg(length(body))) || ' characters on average, ' || pg_size_pretty(pg_total_relation_size('posts')) FROM posts")"
	# the stream: row s is a copy (one word appended) of stored row s * 7919
	# when s % 100 < 15, else a text of two other synopses
	cat > "$WORKDIR/stream.sql" <<SQL
\\set s random(1, 1000000000)
INSERT INTO posts (body)
SELECT CASE WHEN :s % 100 < 15
            THEN (SELECT body FROM posts WHERE id = 1 + (:s::bigint * 7919) % $ROWS) || ' again'
            ELSE (SELECT body FROM corpus WHERE id = 1 + (:s::bigint * 31) % $NC) || ' ' ||
                 (SELECT body FROM corpus WHERE id = 1 + (:s::bigint * 17 + 5) % $NC) || ' ' || :s
       END;
SQL
	chmod 644 "$WORKDIR/stream.sql"
	declare -A total
	for mode in plain verify; do total[$mode]=0; done
	for rep in $(seq "$REPS"); do
		for mode in plain verify; do
			if [ "$mode" = plain ]; then args="'fingerprint=fp', 'source=body', 'radius=12'"
			else args="'fingerprint=fp', 'source=body', 'radius=12', 'verify=0.3'"; fi
			q -c "CREATE OR REPLACE TRIGGER dedup BEFORE INSERT OR UPDATE OF body ON posts FOR EACH ROW
			        EXECUTE FUNCTION nddup_dedup_trigger($args)" >/dev/null
			out=$(as_pg env PGHOST="$PGHOST" PGPORT="$PGPORT" PGUSER="$PGUSER" PGOPTIONS="$PGOPTIONS" \
				pgbench -n -c 1 -t "$STREAM" -f "$WORKDIR/stream.sql" postgres 2>&1) ||
				{ echo "$out" >&2; exit 1; }
			lat=$(echo "$out" | sed -n 's/^latency average = \([0-9.]*\) ms.*/\1/p')
			marked=$(q -c "SELECT count(duplicate_of) FROM posts WHERE id > $ROWS")
			printf '   run %d %-7s %8.3f ms per insert (%s of %s marked)\n' "$rep" "$mode" "$lat" "$marked" "$STREAM"
			total[$mode]=$(echo "${total[$mode]} + $lat" | bc -l)
			q -c "DELETE FROM posts WHERE id > $ROWS" -c "VACUUM posts" >/dev/null
		done
	done
	p=$(echo "${total[plain]} / $REPS" | bc -l)
	v=$(echo "${total[verify]} / $REPS" | bc -l)
	printf '   mean: without verify %.3f ms, with verify=0.3 %.3f ms: +%.3f ms per insert (%.2f x)\n' \
		"$p" "$v" "$(echo "$v - $p" | bc -l)" "$(echo "$v / $p" | bc -l)"
fi
echo
echo "== uptime at end: $(uptime)"
