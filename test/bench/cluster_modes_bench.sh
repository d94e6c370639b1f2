#!/usr/bin/env bash
# The two cluster modes of shingleset_clusters on the 63,956 Debian package
# descriptions (exact word 3-shingle sets, Jaccard 0.3, default work_mem):
# time of each mode, the largest cluster, and how many members of the
# largest cluster are below the threshold with the cluster's original
# (docs/reports/bench-cluster-modes.md).  Target: greedy <= 1.5x the
# components mode's time.
#   test/bench/cluster_modes_bench.sh [DATA_DIR]
# DATA_DIR (default ../shared/data) holds debian-descriptions-en.tsv.gz.
# The modes run alternately, RUNS (2) times each, in one backend; every
# time is printed and the best of each mode is compared.  Runs a private
# temporary instance as the postgres user when started as root.

source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"
DATA=$(cd "${1:-$NDDUP_ROOT/../shared/data}" && pwd)
RUNS=${RUNS:-2}

ensure_packages
build_and_install
make_workdir
start_instance
pg_sql -c "CREATE EXTENSION nddup"
pg_sql <<SQL
CREATE TABLE deb (id integer PRIMARY KEY, package text, body text);
\copy deb FROM PROGRAM 'zcat $DATA/debian-descriptions-en.tsv.gz | tail -n +2'
ALTER TABLE deb ADD ss shingleset;
UPDATE deb SET ss = shingle_set(body);
VACUUM ANALYZE deb;
SQL
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "server: $(pg_sql -At -c 'SELECT version()' | cut -d, -f1); work_mem $(pg_sql -At -c 'SHOW work_mem'); commit $(git -C "$NDDUP_ROOT" log -1 --format='%h' 2>/dev/null || echo unknown)"
pg_sql <<SQL
CREATE TABLE times (mode text, run integer, ms float8);
CREATE TABLE result (mode text, id bigint, cluster_id bigint);
CREATE FUNCTION run_mode(m text, r integer) RETURNS void LANGUAGE plpgsql AS \$\$
DECLARE t timestamptz;
BEGIN
  DELETE FROM result WHERE mode = m;
  t := clock_timestamp();
  INSERT INTO result SELECT m, c.* FROM shingleset_clusters('deb', 'id', 'ss', 0.3, mode => m) c;
  INSERT INTO times VALUES (m, r, extract(epoch FROM clock_timestamp() - t) * 1000);
END \$\$;
SELECT run_mode(m, r) FROM generate_series(1, $RUNS) r, unnest(ARRAY['components', 'greedy']) m;
\pset footer off
SELECT mode, run, round(ms) AS ms FROM times ORDER BY run, mode;
WITH best AS (SELECT mode, min(ms) AS ms FROM times GROUP BY mode),
sizes AS (SELECT mode, cluster_id, count(*) AS n FROM result GROUP BY mode, cluster_id),
largest AS (SELECT DISTINCT ON (mode) mode, cluster_id, n FROM sizes ORDER BY mode, n DESC, cluster_id),
below AS (SELECT l.mode, count(*) FILTER (WHERE jaccard(a.ss, o.ss) < 0.3) AS below
          FROM largest l JOIN result c ON c.mode = l.mode AND c.cluster_id = l.cluster_id
          JOIN deb a ON a.id = c.id JOIN deb o ON o.id = c.cluster_id GROUP BY l.mode)
SELECT b.mode, round(b.ms) AS best_ms,
       round((b.ms / (SELECT ms FROM best WHERE mode = 'components'))::numeric, 2) AS "time / components",
       (SELECT count(*) FROM sizes s WHERE s.mode = b.mode) AS clusters,
       (SELECT count(*) FROM sizes s WHERE s.mode = b.mode AND s.n > 1) AS "clusters > 1",
       l.n AS largest, l.cluster_id AS largest_id, (SELECT package FROM deb WHERE id = l.cluster_id) AS largest_original,
       w.below AS "largest: members below 0.3 with the original"
FROM best b JOIN largest l USING (mode) JOIN below w USING (mode) ORDER BY b.mode;
-- greedy: every member of every cluster against its original
SELECT count(*) AS greedy_members, count(*) FILTER (WHERE jaccard(a.ss, o.ss) < 0.3) AS below_threshold
FROM result c JOIN deb a ON a.id = c.id JOIN deb o ON o.id = c.cluster_id
WHERE c.mode = 'greedy' AND c.id <> c.cluster_id;
SQL
