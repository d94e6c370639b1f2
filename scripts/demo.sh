#!/usr/bin/env bash
# The nddup demo: install the Debian packages the build needs if missing,
# build the extension and install it into a private temporary directory (not
# into the system's PostgreSQL), start a private temporary PostgreSQL
# instance that loads it from there, load the sample corpus that ships in
# data/, fingerprint and index it, run a radius query and a nearest-n query,
# find all near-duplicate pairs and clusters, fill a blog table through the
# insert-time trigger, print how long each step took and in all, and stop
# the instance and remove the directory.
#
#   scripts/demo.sh [radius]      (default radius 12)

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
RADIUS=${1:-12}
SAMPLE=$NDDUP_ROOT/data/debian-sample.tsv.gz
T0=$(date +%s.%N)

echo "== nddup demo: build nddup (a minute or two the first time), install it into a private"
echo "   temporary directory (not into the system's PostgreSQL), start a temporary PostgreSQL $PG_MAJOR,"
echo "   and find the near-duplicates among 4,000 Debian package descriptions; about 3 minutes"

# Run one demo step, printing its name and its wall-clock time.
step() {
	local name=$1; shift
	local t0=$(date +%s.%N)
	"$@"
	printf '   (%s: %.3f s)\n' "$name" "$(echo "$(date +%s.%N) - $t0" | bc)"
}

ensure_build_packages
make_workdir
trap 'rm -rf "$WORKDIR"' EXIT
# the private installation, removed at the end with the instance
export NDDUP_DESTDIR=${NDDUP_DESTDIR:-$WORKDIR/install}
echo "== installing into $NDDUP_DESTDIR (the instance finds it through extension_destdir)"
NDDUP_BUILD_PROGRESS=1 step "build and install" build_and_install
step "start a temporary PostgreSQL instance" start_instance
echo "== instance on port $PGPORT, data in $WORKDIR"

step "create the extension" pg_sql -c "CREATE EXTENSION nddup;"

echo "== loading $(zcat "$SAMPLE" | tail -n +2 | wc -l) Debian package descriptions"
step "load the corpus" pg_sql <<SQL
CREATE TABLE docs (id integer PRIMARY KEY, package text NOT NULL, body text NOT NULL);
\copy docs FROM PROGRAM 'zcat $SAMPLE | tail -n +2'
SQL

echo "== fingerprinting: simhash(body) with the default word shingles"
step "compute fingerprints" pg_sql <<'SQL'
ALTER TABLE docs ADD COLUMN fp simhash64;
UPDATE docs SET fp = simhash(body);
VACUUM ANALYZE docs;
SQL

echo "== indexing the fingerprints (the hamming access method: sorted permuted tables, packed scans)"
step "build the index" pg_sql -c "CREATE INDEX docs_fp_idx ON docs USING hamming (fp);"

echo "== one query: the near-duplicates of 'libblis-dev' within $RADIUS bits (through the index)"
step "radius query" pg_sql <<SQL
\pset footer off
SET random_page_cost = 1.1;
SELECT d.id, d.package, d.fp <-> q.fp AS distance, left(split_part(d.body, E'\n', 1), 60) AS summary
FROM docs d, (SELECT fp FROM docs WHERE package = 'libblis-dev') q
WHERE within(d.fp, q.fp, $RADIUS)
ORDER BY distance, d.id;
SQL

echo "== the 5 nearest descriptions of 'libavahi-client3' (exact nearest-n over the index)"
step "nearest query" pg_sql <<SQL
\pset footer off
SELECT n.id, d.package, n.distance
FROM hamming_nearest('docs', 'id', 'fp', (SELECT fp FROM docs WHERE package = 'libavahi-client3'), 5) n
JOIN docs d USING (id) ORDER BY n.distance, n.id;
SQL

echo "== all near-duplicate pairs and clusters (radius $RADIUS, each pair verified by the texts' exact"
echo "   word 3-shingle resemblance >= 0.3; the original is the smallest id)"
step "all pairs and clusters" pg_sql <<SQL
\pset footer off
SELECT count(*) AS pairs FROM hamming_pairs('docs', 'id', 'fp', $RADIUS, verify_column => 'body', verify => 0.3);
CREATE TABLE clusters AS SELECT * FROM hamming_clusters('docs', 'id', 'fp', $RADIUS, verify_column => 'body', verify => 0.3);
SELECT count(*) FILTER (WHERE size > 1) AS groups, sum(size - 1) FILTER (WHERE size > 1) AS duplicates,
	sum(size) AS documents
FROM (SELECT cluster_id, count(*) AS size FROM clusters GROUP BY cluster_id) s;
SELECT o.package AS original, count(*) - 1 AS copies,
	array_to_string((array_agg(d.package ORDER BY d.id) FILTER (WHERE d.id <> o.id))[1:4], ', ') AS first_copies
FROM clusters c JOIN docs o ON o.id = c.cluster_id JOIN docs d ON d.id = c.id
GROUP BY o.id, o.package
HAVING count(*) > 1
ORDER BY copies DESC, o.id
LIMIT 12;
SQL

echo "== a blog table: the trigger marks near-duplicates at insert time (the exact resemblance of"
echo "   the texts' word 3-shingle sets reaches 0.3, found through the shingle-set index)"
step "blog inserts" pg_sql <<'SQL'
\pset footer off
CREATE TABLE posts (
	id           bigserial PRIMARY KEY,
	author       text NOT NULL,
	body         text NOT NULL,
	duplicate_of bigint
);
CREATE INDEX posts_ss_idx ON posts USING gin ((shingle_set(body)) shingleset_ops)
	WITH (fastupdate = off) WHERE duplicate_of IS NULL;
CREATE TRIGGER dedup BEFORE INSERT OR UPDATE OF body ON posts FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('source=body', 'method=shingleset', 'threshold=0.3');
-- its options, checked now rather than at the first insert
SELECT * FROM nddup_check_trigger('posts');
INSERT INTO posts (author, body) VALUES
  ('ann',  'PostgreSQL 15 adds the MERGE command, which lets one statement insert, update or delete rows of a target table depending on a join with a source.'),
  ('bob',  'PostgreSQL 15 adds the MERGE command, which lets one statement insert, update or delete rows of a target table depending on a join with the source.'),
  ('carl', 'Sourdough needs a lively starter, a long cold proof in the fridge and a very hot oven with steam for the first twenty minutes of the bake.'),
  ('dora', 'PostgreSQL 15 adds the MERGE command, which lets one statement insert, update or delete the rows of a target table depending on a join with the source.');
SELECT id, author, duplicate_of, left(body, 50) AS body FROM posts ORDER BY id;
-- the search index of the blog: originals only
SELECT id, author FROM posts WHERE duplicate_of IS NULL ORDER BY id;
SQL

printf '== done in %.0f s; stopping the instance and removing %s\n' "$(echo "$(date +%s.%N) - $T0" | bc)" "$WORKDIR"
echo "== next: the tour in README.md (\"A five-minute tour\"); to install nddup into your own server,"
echo "   scripts/package.sh builds the Debian package postgresql-$PG_MAJOR-nddup (docs/packaging.md),"
echo "   or: make && sudo make install; then CREATE EXTENSION nddup;"
