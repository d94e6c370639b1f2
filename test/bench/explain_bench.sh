#!/usr/bin/env bash
# Time of nddup_explain() and nddup_highlight() on pairs of 100 KB documents,
# beside jaccard(shingle_set(a), shingle_set(b)) of the same pairs in the
# same run (docs/explain.md, "Speed").  Target: <= 50 ms a call.
#   test/bench/explain_bench.sh [DATA_DIR]
# DATA_DIR (default ../shared/data) holds debian-descriptions-en.tsv.gz.
# Pairs: 100 KB of package descriptions against a copy with every 40th word
# changed and the second half replaced; the same as HTML (every description
# a <p> with a link and an entity); and 100 KB of generated Japanese (kana
# and ideographs, one token each) against a copy with every 40th character
# changed.  Each function runs RUNS (7) times a pair after a warm-up, in one
# backend; the median is printed.  Runs a private temporary instance as the
# postgres user when started as root.

source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"
DATA=$(cd "${1:-$NDDUP_ROOT/../shared/data}" && pwd)
RUNS=${RUNS:-7}

ensure_packages
build_and_install
make_workdir
start_instance
pg_sql -c "CREATE EXTENSION nddup"
pg_sql <<SQL
CREATE TABLE debian (id integer, package text, body text);
\copy debian FROM PROGRAM 'zcat $DATA/debian-descriptions-en.tsv.gz | tail -n +2'
-- 100 KB of descriptions, in id order
CREATE TABLE src AS
SELECT left(string_agg(body, E'\n' ORDER BY id), 100000) AS plain,
       left(string_agg('<p><a href="/p/' || package || '">' || package || '</a> &mdash; ' ||
                       replace(body, '&', '&amp;') || '</p>', E'\n' ORDER BY id), 100000) AS html
FROM (SELECT * FROM debian ORDER BY id LIMIT 2000) d;
-- a copy with every 40th word changed, the second half replaced by later descriptions
CREATE FUNCTION edit(doc text, other text) RETURNS text LANGUAGE sql AS \$\$
  SELECT left(string_agg(CASE WHEN n % 40 = 0 THEN 'changed' ELSE w END, ' ' ORDER BY n), length(doc) / 2)
         || ' ' || left(other, length(doc) - length(doc) / 2)
  FROM regexp_split_to_table(doc, ' ') WITH ORDINALITY AS t(w, n)
\$\$;
CREATE TABLE pairs (name text, a text, b text);
INSERT INTO pairs
SELECT 'descriptions', plain, edit(plain, (SELECT string_agg(body, E'\n' ORDER BY id) FROM debian WHERE id > 5000 AND id <= 7000)) FROM src
UNION ALL
SELECT 'HTML', html, edit(html, (SELECT string_agg('<p>' || replace(body, '&', '&amp;') || '</p>', E'\n' ORDER BY id) FROM debian WHERE id > 5000 AND id <= 7000)) FROM src;
-- generated Japanese: hiragana and CJK ideographs, 3 bytes a character
INSERT INTO pairs
SELECT 'Japanese', a,
       (SELECT string_agg(CASE WHEN n % 40 = 0 THEN '変' ELSE c END, '' ORDER BY n)
        FROM regexp_split_to_table(a, '') WITH ORDINALITY AS t(c, n))
FROM (SELECT string_agg(CASE WHEN i % 3 = 0 THEN chr(19968 + (i * 7919) % 2000)
                             ELSE chr(12353 + (i * 31) % 80) END, '' ORDER BY i) AS a
      FROM generate_series(1, 33333) i) g;
SQL
bench_header() {
	echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "server: $(pg_sql -At -c 'SELECT version()' | cut -d, -f1); commit $(git -C "$NDDUP_ROOT" log -1 --format='%h' 2>/dev/null || echo unknown)"
}
bench_header
pg_sql <<SQL
CREATE FUNCTION median_ms(q text, runs int) RETURNS float8 LANGUAGE plpgsql AS \$\$
DECLARE t timestamptz; times float8[] := '{}';
BEGIN
  EXECUTE q;	-- warm-up
  FOR i IN 1 .. runs LOOP
    t := clock_timestamp();
    EXECUTE q;
    times := times || extract(epoch FROM clock_timestamp() - t) * 1000;
  END LOOP;
  RETURN (SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY x) FROM unnest(times) x);
END \$\$;
\pset footer off
SELECT name, octet_length(a) AS a_bytes, octet_length(b) AS b_bytes,
       round((e).jaccard::numeric, 3) AS jaccard,
       cardinality((e).a_passages) AS a_passages,
       round(median_ms(format('SELECT jaccard(shingle_set(%L), shingle_set(%L))', a, b), $RUNS)::numeric, 1) AS "baseline: jaccard(shingle_set) ms",
       round(median_ms(format('SELECT nddup_explain(%L, %L)', a, b), $RUNS)::numeric, 1) AS "nddup_explain ms",
       round(median_ms(format('SELECT nddup_highlight(%L, %L)', a, b), $RUNS)::numeric, 1) AS "nddup_highlight ms"
FROM (SELECT *, nddup_explain(a, b) AS e FROM pairs) p ORDER BY name;
SQL
