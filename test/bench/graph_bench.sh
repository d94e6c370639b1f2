#!/usr/bin/env bash
# The cost of keeping the duplicate graph true (docs/trigger.md#deletes-and-edits):
# the latency of DELETE of an original with 10 duplicates, with the AFTER
# INSERT OR DELETE OR UPDATE trigger and, in the same run, without it (the BEFORE
# trigger alone, which leaves the 10 rows pointing at the deleted id), and of
# DELETE of an original without duplicates with the AFTER trigger.
#
# The table is the recipe of docs/trigger.md (text, generated simhash column,
# hamming index on every row, radius 12, verify=0.3; --method minhash or
# shingleset: the min-hash or shingle-set recipe with a GIN index, threshold
# 0.3): --rows unrelated originals of 30 words (loaded with the triggers
# disabled), then --groups groups of an original and 10 copies with one word
# replaced each, inserted through the trigger.  Each DELETE is one statement
# in its own transaction (autocommit) by one client; the phases alternate,
# graph trigger on and off, twice, then the originals without duplicates.
# For scale, the same client then inserts copies of other originals, with the
# AFTER trigger (which judges the new row again) and without it.
# Prints p50, p90, p99 and mean per phase (ms), and checks the group rows
# afterwards: dangling duplicate_of, chains, originals that match each other
# (all 0 where the graph trigger ran).
#
# Not run in CI.  Usage:
#   test/bench/graph_bench.sh [--rows N] [--groups N] [--method simhash|minhash|shingleset]
#       [--no-install]
set -euo pipefail

source "$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/scripts/lib.sh"

ROWS=100000
NGROUPS=400
METHOD=simhash
INSTALL=1
while [ $# -gt 0 ]; do
	case "$1" in
		--rows) ROWS=$2; shift ;;
		--groups) NGROUPS=$2; shift ;;
		--method) METHOD=$2; shift ;;
		--no-install) INSTALL=0 ;;
		*) echo "unknown option: $1" >&2; exit 2 ;;
	esac
	shift
done
case $METHOD in
	simhash)
		INDEX="CREATE INDEX ON posts USING hamming (fp)"
		ARGS="'fingerprint=fp', 'source=body', 'radius=12', 'verify=0.3'"
		MATCH="a.fp <-> b.fp <= 12 AND jaccard(shingle_set(a.body), shingle_set(b.body)) >= 0.3" ;;
	minhash)
		INDEX="CREATE INDEX ON posts USING gin ((minhash(body, 128, 'oph', 0, 3, 'word')) minhash_lsh_ops (threshold = 0.3)) WITH (fastupdate = off)"
		ARGS="'source=body', 'method=minhash', 'threshold=0.3', 'verify=0.3'"
		MATCH="jaccard(minhash(a.body, 128, 'oph', 0, 3, 'word'), minhash(b.body, 128, 'oph', 0, 3, 'word')) >= 0.3 AND jaccard(shingle_set(a.body), shingle_set(b.body)) >= 0.3" ;;
	shingleset)
		INDEX="CREATE INDEX ON posts USING gin ((shingle_set(body, 3, 'word')) shingleset_ops) WITH (fastupdate = off)"
		ARGS="'source=body', 'method=shingleset', 'threshold=0.3'"
		MATCH="jaccard(shingle_set(a.body), shingle_set(b.body)) >= 0.3" ;;
	*) echo "unknown method: $METHOD" >&2; exit 2 ;;
esac

[ "$INSTALL" = 1 ] && build_and_install
make_workdir
source "$(dirname "${BASH_SOURCE[0]}")/bench_lib.sh"
bench_start_instance "" 256MB
export PGOPTIONS='-c client_min_messages=error -c synchronous_commit=off'
q() { pg_sql -X -At -F ' ' "$@"; }
bench_header
echo "== method $METHOD, $ROWS unrelated originals, $NGROUPS groups of an original and 10 copies"

# doc(seed, edit): 30 words; edit k > 0 appends the word editk
q -c "CREATE EXTENSION nddup" \
  -c "CREATE FUNCTION doc(seed bigint, edit int) RETURNS text LANGUAGE sql IMMUTABLE AS \$\$
        SELECT string_agg('w' || (hashint8(seed * 31 + i) & 32767), ' ' ORDER BY i)
               || CASE WHEN edit > 0 THEN ' edit' || edit ELSE '' END
        FROM generate_series(1, 30) i \$\$" \
  -c "CREATE TABLE posts (id bigserial PRIMARY KEY, grp int, edit int, body text NOT NULL,
        fp simhash64 GENERATED ALWAYS AS (simhash(body)) STORED, duplicate_of bigint)
        WITH (autovacuum_enabled = off)" \
  -c "$INDEX" -c "CREATE INDEX ON posts (duplicate_of)" \
  -c "CREATE TRIGGER dedup BEFORE INSERT OR UPDATE OF body ON posts FOR EACH ROW
        EXECUTE FUNCTION nddup_dedup_trigger($ARGS)" \
  -c "CREATE TRIGGER dedup_graph AFTER INSERT OR DELETE OR UPDATE OF body ON posts FOR EACH ROW
        EXECUTE FUNCTION nddup_dedup_trigger($ARGS)" \
  -c "ALTER TABLE posts DISABLE TRIGGER USER" \
  -c "INSERT INTO posts (body) SELECT doc(1000000 + g, 0) FROM generate_series(1, $ROWS) g" \
  -c "ALTER TABLE posts ENABLE TRIGGER USER" \
  -c "INSERT INTO posts (grp, edit, body) SELECT g, e, doc(g, e)
        FROM generate_series(1, $NGROUPS + 5) g, generate_series(0, 10) e ORDER BY g, e" \
  -c "VACUUM ANALYZE posts" >/dev/null
echo "== groups whose 10 copies point at the group's original: $(q -c "SELECT count(*) FROM (SELECT grp FROM posts p WHERE grp IS NOT NULL GROUP BY grp
      HAVING count(*) FILTER (WHERE edit > 0 AND duplicate_of = (SELECT id FROM posts o WHERE o.grp = p.grp AND o.edit = 0)) = 10) s") of $((NGROUPS + 5)) (5 of them warm up the session)"

# phases: name, graph trigger on/off, which groups, what to delete
chmod 755 "$WORKDIR"
as_pg python3 - "$WORKDIR" "$PGPORT" "$NGROUPS" <<'PY'
import sys, time, psycopg2
host, port, groups = sys.argv[1], sys.argv[2], int(sys.argv[3])
conn = psycopg2.connect(host=host, port=port, dbname="postgres",
                        options="-c synchronous_commit=off -c client_min_messages=error")
conn.autocommit = True
cur = conn.cursor()
# the originals of groups whose 10 copies point at them
cur.execute("""SELECT o.grp, o.id FROM posts o WHERE o.edit = 0
               AND (SELECT count(*) FROM posts d WHERE d.duplicate_of = o.id) = 10 ORDER BY o.grp""")
orig = dict(cur.fetchall())
cur.execute("SELECT id FROM posts WHERE grp IS NULL ORDER BY id LIMIT %s", (groups // 2 + groups // 2,))
lonely = [r[0] for r in cur.fetchall()]
lonely, copied = lonely[:groups // 2], lonely[groups // 2:]
# warm-up, not measured: the first deletes of the session prepare the plans
for g in range(groups + 1, groups + 6):
    if g in orig:
        cur.execute("DELETE FROM posts WHERE id = %s", (orig.pop(g),))
q = groups // 4
phases = [("10 duplicates, graph trigger", True, range(1, q + 1)),
          ("10 duplicates, BEFORE trigger only", False, range(q + 1, 2 * q + 1)),
          ("10 duplicates, graph trigger", True, range(2 * q + 1, 3 * q + 1)),
          ("10 duplicates, BEFORE trigger only", False, range(3 * q + 1, 4 * q + 1))]
def run(ids):
    out = []
    for i in ids:
        t0 = time.perf_counter()
        cur.execute("DELETE FROM posts WHERE id = %s", (i,))
        out.append((time.perf_counter() - t0) * 1000)
    return out
def insert_copies(ids):
    out = []
    for i in ids:
        t0 = time.perf_counter()
        cur.execute("INSERT INTO posts (body) SELECT body || ' copy' FROM posts WHERE id = %s", (i,))
        out.append((time.perf_counter() - t0) * 1000)
    return out
def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]
res = {}
for name, on, grps in phases:
    cur.execute("ALTER TABLE posts %s TRIGGER dedup_graph" % ("ENABLE" if on else "DISABLE"))
    res.setdefault(name, []).append(run(orig[g] for g in grps if g in orig))
half = len(lonely) // 2
res["no duplicates, BEFORE trigger only"] = [run(lonely[:half])]
cur.execute("ALTER TABLE posts ENABLE TRIGGER dedup_graph")
res["no duplicates, graph trigger"] = [run(lonely[half:])]
half = len(copied) // 2
res["(INSERT of a copy of an original, graph trigger)"] = [insert_copies(copied[:half])]
cur.execute("ALTER TABLE posts DISABLE TRIGGER dedup_graph")
res["(INSERT of a copy, BEFORE trigger only)"] = [insert_copies(copied[half:])]
print("%-50s %5s %8s %8s %8s %8s" % ("DELETE of an original", "n", "p50", "p90", "p99", "mean"))
for name, runs in res.items():
    for k, xs in enumerate(runs):
        print("%-50s %5d %8.3f %8.3f %8.3f %8.3f" % (name + (" (run %d)" % (k + 1) if len(runs) > 1 else ""),
              len(xs), pct(xs, 50), pct(xs, 90), pct(xs, 99), sum(xs) / len(xs)))
    if len(runs) > 1:
        xs = [x for r in runs for x in r]
        print("%-50s %5d %8.3f %8.3f %8.3f %8.3f" % (name + " (both)", len(xs), pct(xs, 50), pct(xs, 90),
              pct(xs, 99), sum(xs) / len(xs)))
PY

# the group rows afterwards: where the graph trigger ran, 0 of each
q -c "SELECT 'graph check (groups with the graph trigger): dangling ' || count(*) FILTER (WHERE NOT EXISTS (SELECT FROM posts o WHERE o.id = d.duplicate_of))
             || ', chains ' || count(*) FILTER (WHERE EXISTS (SELECT FROM posts o WHERE o.id = d.duplicate_of AND o.duplicate_of IS NOT NULL))
             || ', unmatched duplicates ' || count(*) FILTER (WHERE EXISTS (SELECT FROM posts a WHERE a.id = d.duplicate_of AND NOT ($(echo "$MATCH" | sed 's/\bb\./d./g'))))
      FROM posts d WHERE d.duplicate_of IS NOT NULL AND (d.grp <= $NGROUPS / 4 OR d.grp BETWEEN $NGROUPS / 2 + 1 AND 3 * $NGROUPS / 4)" \
  -c "SELECT 'matching originals among those groups: ' || count(*) FROM posts a JOIN posts b ON a.id < b.id AND a.grp = b.grp AND ($MATCH)
      WHERE a.duplicate_of IS NULL AND b.duplicate_of IS NULL AND (a.grp <= $NGROUPS / 4 OR a.grp BETWEEN $NGROUPS / 2 + 1 AND 3 * $NGROUPS / 4)" \
  -c "SELECT 'dangling in the groups without it (BEFORE trigger only): ' || count(*) FROM posts d
      WHERE d.duplicate_of IS NOT NULL AND NOT EXISTS (SELECT FROM posts o WHERE o.id = d.duplicate_of)"
