#!/usr/bin/env bash
# The nddup demo: install what is missing, build and install the extension,
# start a private temporary PostgreSQL instance, load the sample corpus that
# ships in data/, fingerprint it, print the near-duplicate groups it finds
# and how long each step took, then stop the instance.
#
#   scripts/demo.sh [radius]      (default radius 12)

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
RADIUS=${1:-12}
SAMPLE=$NDDUP_ROOT/data/debian-sample.tsv.gz

# Run one demo step, printing its name and its wall-clock time.
step() {
	local name=$1; shift
	local t0=$(date +%s.%N)
	"$@"
	printf '   (%s: %.3f s)\n' "$name" "$(echo "$(date +%s.%N) - $t0" | bc)"
}

ensure_packages
step "build and install" build_and_install
make_workdir
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

if pg_sql -tA -c "SELECT 1 FROM pg_opclass WHERE opcname = 'simhash64_gin_ops'" | grep -q 1; then
	echo "== indexing the fingerprints (GIN, permuted blocks)"
	step "build the index" pg_sql -c "CREATE INDEX docs_fp_idx ON docs USING gin (fp simhash64_gin_ops) WITH (fastupdate = off);"
fi

echo "== one query: the near-duplicates of 'libblis-dev' within $RADIUS bits"
step "query" pg_sql <<SQL
\pset footer off
SELECT d.id, d.package, d.fp <-> q.fp AS distance, left(split_part(d.body, E'\n', 1), 60) AS summary
FROM docs d, (SELECT fp FROM docs WHERE package = 'libblis-dev') q
WHERE within(d.fp, q.fp, $RADIUS)
ORDER BY distance, d.id;
SQL

echo "== near-duplicate groups (Hamming radius $RADIUS; the original is the smallest id)"
step "find groups" pg_sql <<SQL
\pset footer off
CREATE TEMP TABLE pairs AS
	SELECT a.id AS id, b.id AS original
	FROM docs a JOIN docs b ON b.id < a.id AND within(a.fp, b.fp, $RADIUS);
CREATE TEMP TABLE groups AS
	SELECT p.id, min(p.original) AS original FROM pairs p GROUP BY p.id;
SELECT count(DISTINCT original) AS groups, count(*) AS duplicates,
	(SELECT count(*) FROM docs) AS documents FROM groups;
SELECT o.package AS original, count(*) AS copies,
	array_to_string((array_agg(d.package ORDER BY d.id))[1:4], ', ') AS first_copies
FROM groups g JOIN docs o ON o.id = g.original JOIN docs d ON d.id = g.id
GROUP BY o.id, o.package
ORDER BY copies DESC, o.id
LIMIT 15;
SQL

echo "== done; stopping the instance"
