#!/usr/bin/env bash
# A random concurrent workload on the duplicate graph kept by the BEFORE and
# AFTER INSERT OR DELETE OR UPDATE triggers (docs/trigger.md#deletes-and-edits), then its checks.
#
# posts(id, grp, fp simhash64, duplicate_of), method=simhash on a plain
# fingerprint column, radius 3: each of --rows/10 groups has a base
# fingerprint, and a row of the group flips 3 random bits of its lowest 8
# (fewer when they coincide), so two rows of a group are 0 to 6 bits apart
# and match or not (matches are not transitive: the repairs have work to do).  --rows rows are inserted through
# the triggers, then --clients pgbench clients run for --seconds: 45 % inserts
# of rows of a random group, 10 % inserts of unrelated rows, 20 % deletes of
# an original of a group, 10 % deletes of a duplicate, 15 % edits (a row of a
# group, originals first, gets the fingerprint of a row of another group);
# deadlocks (40P01) are retried (pgbench --max-tries).  Afterwards it counts
# dangling duplicate_of, chains, pairs of originals that match, duplicates
# that do not match their original (all must be 0), and how many rows differ
# from a from-scratch judgement (the surviving rows inserted one by one in id
# order through the BEFORE trigger into a fresh table): must be 0 too.
#
# Not run in CI.  Usage:
#   test/bench/graph_workload.sh [--rows N] [--clients N] [--seconds N] [--edits WEIGHT]
#       [--order rank] [--no-install]
# --edits 0 leaves the edits out (the other shares keep their weights).
# --order rank gives every row a random rank (order=rank): inserts then land
# anywhere in the survivor order, and the from-scratch judgement runs in
# (rank, id) order.
set -euo pipefail

source "$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/scripts/lib.sh"

ROWS=100000
CLIENTS=8
SECONDS_RUN=60
EDITS=15
INSTALL=1
ORDER=id
while [ $# -gt 0 ]; do
	case "$1" in
		--rows) ROWS=$2; shift ;;
		--clients) CLIENTS=$2; shift ;;
		--seconds) SECONDS_RUN=$2; shift ;;
		--edits) EDITS=$2; shift ;;
		--order) ORDER=$2; shift ;;
		--no-install) INSTALL=0 ;;
		*) echo "unknown option: $1" >&2; exit 2 ;;
	esac
	shift
done
NGROUPS=$((ROWS / 10))
case $ORDER in
	id) ORDER_ARG="" ; ORDER_BY="id" ;;
	rank) ORDER_ARG=", 'order=rank'" ; ORDER_BY="rank, id" ;;
	*) echo "unknown order: $ORDER" >&2; exit 2 ;;
esac

[ "$INSTALL" = 1 ] && build_and_install
make_workdir
source "$(dirname "${BASH_SOURCE[0]}")/bench_lib.sh"
bench_start_instance "" 256MB
export PGOPTIONS='-c client_min_messages=error'
q() { pg_sql -X -At -F ' ' "$@"; }
bench_header
echo "== $ROWS rows in $NGROUPS groups, $CLIENTS clients for $SECONDS_RUN s, edits weight $EDITS (of $((85 + EDITS))), survivor order ($ORDER_BY)"

# make_table name: the table, its indexes and both triggers
make_table() {
	q -c "CREATE TABLE $1 (id bigserial PRIMARY KEY, grp bigint, fp simhash64, duplicate_of bigint,
	        rank int NOT NULL DEFAULT (random() * 1000000)::int)" \
	  -c "CREATE INDEX ON $1 USING hamming (fp)" \
	  -c "CREATE INDEX ON $1 (duplicate_of)" -c "CREATE INDEX ON $1 (grp)" \
	  -c "CREATE TRIGGER dedup BEFORE INSERT OR UPDATE OF fp ON $1 FOR EACH ROW
	        EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=fp', 'radius=3'$ORDER_ARG)" \
	  -c "CREATE TRIGGER dedup_graph AFTER INSERT OR DELETE OR UPDATE OF fp ON $1 FOR EACH ROW
	        EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=fp', 'radius=3'$ORDER_ARG)" >/dev/null
}
q -c "CREATE EXTENSION nddup" \
  -c "CREATE FUNCTION fpof(g bigint, a int, b int, c int) RETURNS simhash64 LANGUAGE sql IMMUTABLE AS
        \$\$ SELECT (hashint8(g) # (1::bigint << a) # (1::bigint << b) # (1::bigint << c))::simhash64 \$\$" >/dev/null
make_table posts
t0=$(date +%s.%N)
q -c "INSERT INTO posts (grp, fp) SELECT g, fpof(g, a, b, c) FROM (SELECT 1 + (hashint4(i) & 2147483647) % $NGROUPS AS g,
        (hashint4(i * 3 + 1) & 7) AS a, (hashint4(i * 3 + 2) & 7) AS b, (hashint4(i * 3 + 3) & 7) AS c
        FROM generate_series(1, $ROWS) i) s" >/dev/null
echo "== loaded in $(echo "$(date +%s.%N) - $t0" | bc) s: $(q -c "SELECT count(*) FILTER (WHERE duplicate_of IS NULL) || ' originals, ' || count(duplicate_of) || ' duplicates' FROM posts")"
q -c "VACUUM ANALYZE posts" >/dev/null

cat >"$WORKDIR/workload.sql" <<SQL
\set r random(1, $((85 + EDITS)))
\set g random(1, $NGROUPS)
\set h random(1, $NGROUPS)
\set a random(0, 7)
\set b random(0, 7)
\set c random(0, 7)
\if :r <= 45
INSERT INTO posts (grp, fp) VALUES (:g, fpof(:g, :a, :b, :c));
\elif :r <= 55
\set u random(100000000, 2000000000)
INSERT INTO posts (grp, fp) VALUES (:u, fpof(:u, :a, :b, :c));
\elif :r <= 75
DELETE FROM posts WHERE id = (SELECT id FROM posts WHERE grp = :g AND duplicate_of IS NULL ORDER BY id LIMIT 1);
\elif :r <= 85
DELETE FROM posts WHERE id = (SELECT id FROM posts WHERE grp = :g AND duplicate_of IS NOT NULL ORDER BY id LIMIT 1);
\else
UPDATE posts SET grp = :h, fp = fpof(:h, :a, :b, :c)
 WHERE id = (SELECT id FROM posts WHERE grp = :g ORDER BY duplicate_of NULLS FIRST, id LIMIT 1);
\endif
SQL
chmod 644 "$WORKDIR/workload.sql"
as_pg env PGHOST="$PGHOST" PGPORT="$PGPORT" PGOPTIONS="$PGOPTIONS" pgbench -n -c "$CLIENTS" -j 2 -T "$SECONDS_RUN" \
	--max-tries=50 -f "$WORKDIR/workload.sql" postgres 2>&1 |
	grep -E "^(number of transactions actually processed|number of failed|number of transactions retried|total number of retries|latency average|tps)"

echo "== checks (each must be 0)"
q -c "SELECT 'dangling duplicate_of: ' || count(*) FROM posts d WHERE d.duplicate_of IS NOT NULL
        AND NOT EXISTS (SELECT FROM posts o WHERE o.id = d.duplicate_of)" \
  -c "SELECT 'chains: ' || count(*) FROM posts d JOIN posts o ON o.id = d.duplicate_of WHERE o.duplicate_of IS NOT NULL" \
  -c "SELECT 'pairs of originals that match: ' || count(*) FROM posts a JOIN posts b
        ON b.fp OPERATOR(<@) ball(a.fp, 3) AND b.duplicate_of IS NULL AND a.id < b.id WHERE a.duplicate_of IS NULL" \
  -c "SELECT 'duplicates that do not match their original: ' || count(*) FROM posts d JOIN posts o ON o.id = d.duplicate_of
        WHERE o.fp <-> d.fp > 3"
make_table scratch
q -c "ALTER TABLE scratch DISABLE TRIGGER dedup_graph" \
  -c "INSERT INTO scratch (id, grp, fp, rank) SELECT id, grp, fp, rank FROM posts ORDER BY $ORDER_BY" >/dev/null
echo "== $(q -c "SELECT count(*) FILTER (WHERE p.duplicate_of IS DISTINCT FROM s.duplicate_of) || ' of ' || count(*)
        || ' rows differ from a from-scratch judgement in ($ORDER_BY) order (' || count(*) FILTER (WHERE p.duplicate_of IS NULL) || ' originals, '
        || count(*) FILTER (WHERE s.duplicate_of IS NULL) || ' from scratch)'
      FROM posts p JOIN scratch s USING (id)")"
