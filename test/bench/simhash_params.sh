#!/usr/bin/env bash
# Choose simhash's defaults by measurement: pairwise precision, recall and F1
# of each feature choice at every Hamming radius, on a labelled corpus
# (neardup-dev format: doc_id, cluster_id, kind, edits, text).  Positives are
# pairs of one cluster among kinds original/near; templated rows are hard
# negatives; excerpt/contains rows are left out (a containment task).
#   test/bench/simhash_params.sh [CORPUS]   (default ../shared/data/neardup-dev.tsv.gz)

source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"
CORPUS=$(readlink -f "${1:-$NDDUP_ROOT/../shared/data/neardup-dev.tsv.gz}")

ensure_packages
build_and_install
make_workdir
start_instance
pg_sql -c "CREATE EXTENSION nddup"
pg_sql <<SQL
CREATE TABLE corpus (doc_id integer, cluster_id integer, kind text, edits text, body text);
\copy corpus FROM PROGRAM 'zcat $CORPUS | tail -n +2'
CREATE TABLE scored AS SELECT doc_id, cluster_id, kind, body FROM corpus
	WHERE kind IN ('original', 'near', 'templated');
CREATE TABLE configs (name text, expr text);
INSERT INTO configs VALUES
	('word 1 tf', 'simhash(body, 1)'), ('word 1 set', 'simhash(body, 1, ''word'', ''set'')'),
	('word 2 tf', 'simhash(body, 2)'), ('word 2 set', 'simhash(body, 2, ''word'', ''set'')'),
	('word 3 tf', 'simhash(body, 3)'), ('word 3 set', 'simhash(body, 3, ''word'', ''set'')'),
	('word 4 tf', 'simhash(body, 4)'),
	('char 4 tf', 'simhash(body, 4, ''char'')'), ('char 5 tf', 'simhash(body, 5, ''char'')'),
	('char 6 tf', 'simhash(body, 6, ''char'')'), ('char 6 set', 'simhash(body, 6, ''char'', ''set'')'),
	('char 7 tf', 'simhash(body, 7, ''char'')'), ('char 8 tf', 'simhash(body, 8, ''char'')'),
	('char 9 tf', 'simhash(body, 9, ''char'')'), ('char 10 tf', 'simhash(body, 10, ''char'')'), ('char 12 tf', 'simhash(body, 12, ''char'')'),
	('tsvector english', 'simhash(to_tsvector(''english'', body))');
CREATE TABLE results (name text, k integer, tp bigint, fp bigint, positives bigint);
SQL

pg_sql <<'SQL'
SET max_parallel_workers_per_gather = 0;
DO $$
DECLARE c record; positives bigint;
BEGIN
	SELECT count(*) INTO positives FROM scored a JOIN scored b
		ON a.doc_id < b.doc_id AND a.cluster_id = b.cluster_id
	WHERE a.kind <> 'templated' AND b.kind <> 'templated';
	FOR c IN SELECT * FROM configs LOOP
		EXECUTE format('CREATE TEMP TABLE fp AS SELECT doc_id, cluster_id, kind, %s AS fp FROM scored', c.expr);
		INSERT INTO results
		SELECT c.name, k.k,
			sum(n) FILTER (WHERE pos AND d <= k.k), coalesce(sum(n) FILTER (WHERE NOT pos AND d <= k.k), 0), positives
		FROM (SELECT a.fp <-> b.fp AS d,
				(a.cluster_id = b.cluster_id AND a.kind <> 'templated' AND b.kind <> 'templated') AS pos,
				count(*) AS n
			FROM fp a JOIN fp b ON a.doc_id < b.doc_id GROUP BY 1, 2) p,
			generate_series(0, 24) k(k)
		GROUP BY k.k;
		DROP TABLE fp;
	END LOOP;
END $$;
\pset footer off
\echo best operating point of each feature choice
SELECT DISTINCT ON (name) name, k, round(tp::numeric / nullif(tp + fp, 0), 3) AS precision,
	round(tp::numeric / positives, 3) AS recall,
	round(2.0 * tp / (positives + tp + fp), 3) AS f1,
	(SELECT round(2.0 * r3.tp / (r3.positives + r3.tp + r3.fp), 3) FROM results r3 WHERE r3.name = r.name AND r3.k = 3) AS f1_at_k3
FROM results r ORDER BY name, 2.0 * tp / (positives + tp + fp) DESC, k;
SQL
