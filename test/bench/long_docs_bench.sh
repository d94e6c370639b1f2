#!/usr/bin/env bash
# Exact shingle sets against min-hash sketches and simhash by document length
# (issue 25, "Long documents"; docs/reports/bench-long-docs.md): for short
# (~10 shingles), medium (~60), 1K, 10K and 100K-shingle documents made of
# real text (test/bench/long_docs_gen.py: Debian package descriptions, alone
# or concatenated, each original followed by 0-3 planted variants: 1-5 % of
# the words edited, or a 50-80 % part), side by side in one run:
#   1. bytes per row: pg_column_size of shingle_set(body), minhash(body)
#      (k = 128, oph), simhash(body) and of the bounded sample
#      shingle_bottom(body, S); GIN (shingleset_ops) bytes per row of the set
#      and of the sample, minhash_lsh_ops at design thresholds 0.3 (default)
#      and 0.2, the hamming index of the simhash;
#   2. the time to compute each per document (a pass over up to 2,000
#      documents of the tier, beside length(body), which reads the same
#      values);
#   3. probes "documents resembling q at >= t", t = 0.3 and 0.5, QUERIES
#      queries per tier (fresh variants of stored originals, their set,
#      sketch and sample computed beforehand): p50/p99/mean latency inside the
#      server (clock_timestamp() around EXECUTE, planning included), answers
#      per query, and recall / precision against the exact answer (a
#      sequential scan of jaccard(ss, qs) >= t, also timed), for:
#        exact set      ss <@ similar_to(qs, t)                 (shingleset_ops)
#        exact set, seq scan  jaccard(ss, qs) >= t on every row
#        minhash        mh <@ similar_to(qm, t)                 (minhash_lsh_ops 0.3)
#        minhash candidates  mh <@ similar_to(qm, t - 0.1)  (minhash_lsh_ops 0.2)
#        minhash+verify mh <@ similar_to(qm, t - 0.1) AND jaccard(ss, qs) >= t
#                       (minhash_lsh_ops 0.2; candidates verified against the stored sets)
#        sample         sb <@ similar_to(qb, t)                 (shingleset_ops on bottom-S)
#        sample+verify  sb <@ similar_to(qb, t - 0.1) AND jaccard(ss, qs) >= t
#
# usage: test/bench/long_docs_bench.sh [DATA_DIR]
#   DATA_DIR holds debian-descriptions-en.tsv.gz (default ../shared/data beside
#   the checkout, or two levels up for a worktree; else data/debian-sample.tsv.gz).
# Environment: TIERS (tier:documents:words, default
#   "short:20000:0,medium:20000:0,1k:4000:1000,10k:500:10000,100k:100:100000";
#   words 0 = one synopsis / one description), QUERIES (per tier, default 100),
#   SAMPLE (S of the bottom-S sample, default 1000), SEED (default 25),
#   EXACT_BUDGET (seconds per tier and threshold for the "exact set" index
#   path, default 30, after which, with at least 2 done, its remaining
#   queries are skipped: at 100K shingles one query takes seconds),
#   NDDUP_SHARED_BUFFERS (default 1GB).
# Runs a private temporary instance (as the postgres user when root); one
# backend, no parallel workers, JIT off, enable_seqscan off for the index
# probes (the sequential pass that computes the exact answers comes first and
# warms the cache).

set -euo pipefail
source "$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/scripts/lib.sh"
BENCH_DIR=$NDDUP_ROOT/test/bench
set -o errtrace
trap 'echo "long_docs_bench.sh: exit status $? at line $LINENO: $BASH_COMMAND" >&2' ERR

TIERS=${TIERS:-short:20000:0,medium:20000:0,1k:4000:1000,10k:500:10000,100k:100:100000}
QUERIES=${QUERIES:-100}
SAMPLE=${SAMPLE:-1000}
EXACT_BUDGET=${EXACT_BUDGET:-30}
SEED=${SEED:-25}
DATA=${1:-}
for d in "$NDDUP_ROOT/../shared/data" "$NDDUP_ROOT/../../shared/data"; do
	[ -z "$DATA" ] && [ -f "$d/debian-descriptions-en.tsv.gz" ] && DATA=$d
done
if [ -n "$DATA" ] && [ -f "$DATA/debian-descriptions-en.tsv.gz" ]; then
	SOURCE=$(cd "$DATA" && pwd)/debian-descriptions-en.tsv.gz
else
	SOURCE=$NDDUP_ROOT/data/debian-sample.tsv.gz
fi

[ "${BUILD:-1}" = 1 ] && build_and_install
make_workdir
source "$BENCH_DIR/bench_lib.sh"
bench_start_instance "" "${NDDUP_SHARED_BUFFERS:-1GB}"
T0=$(date +%s)

echo "# nddup representations by document length, $(date -u '+%Y-%m-%d %H:%M UTC')"
bench_header
echo "source: $SOURCE; tiers: $TIERS; queries per tier: $QUERIES; bottom sample s = $SAMPLE; seed $SEED"
echo

python3 "$BENCH_DIR/long_docs_gen.py" "$SOURCE" "$TIERS" "$QUERIES" "$SEED" >"$WORKDIR/docs.tsv"
chmod 644 "$WORKDIR/docs.tsv"
echo "generated: $(du -m "$WORKDIR/docs.tsv" | cut -f1) MB of text in $(($(date +%s) - T0)) s"

pg_sql -q >/dev/null <<SQL
SET client_min_messages = warning;
CREATE EXTENSION nddup;
ALTER SYSTEM SET maintenance_work_mem = '1GB';
SELECT pg_reload_conf();
CREATE TABLE raw (kind text, tier text, id int, grp int, body text);
\copy raw FROM '$WORKDIR/docs.tsv'
CREATE TABLE sizes (tier text, what text, bytes float8, seconds float8);
CREATE TABLE comp (tier text, fn text, docs int, ms float8);
CREATE TABLE res (tier text, t float8, path text, n int, ms float8, ids int[]);
CREATE FUNCTION pct(a float8[], p float8) RETURNS float8 LANGUAGE sql AS
	\$\$SELECT percentile_cont(p) WITHIN GROUP (ORDER BY x) FROM unnest(a) x\$\$;
-- milliseconds of one statement
CREATE FUNCTION timed(sql text) RETURNS float8 LANGUAGE plpgsql AS \$\$
DECLARE t0 timestamptz := clock_timestamp();
BEGIN
	EXECUTE sql;
	RETURN extract(epoch FROM clock_timestamp() - t0) * 1000;
END \$\$;
-- the queries of tier tr through sql (\$1 set, \$2 sketch, \$3 sample of
-- the query; returns array_agg(id)), recorded as path at threshold t; after
-- budget seconds (and at least 2 queries) the rest are skipped
CREATE FUNCTION probe(tr text, t float8, path text, sql text, budget float8 DEFAULT 1e9) RETURNS void
LANGUAGE plpgsql AS \$\$
DECLARE r record; t0 timestamptz; start timestamptz := clock_timestamp(); a int[]; k int := 0;
BEGIN
	FOR r IN EXECUTE format('SELECT n, ss, mh, sb FROM %I ORDER BY n', 'q_' || tr) LOOP
		EXIT WHEN k >= 2 AND clock_timestamp() - start > budget * interval '1 s';
		t0 := clock_timestamp();
		EXECUTE sql INTO a USING r.ss, r.mh, r.sb;
		INSERT INTO res VALUES (tr, t, path, r.n, extract(epoch FROM clock_timestamp() - t0) * 1000,
			coalesce(a, '{}'));
		k := k + 1;
	END LOOP;
END \$\$;
-- the exact answers at 0.3 and 0.5 by a sequential scan of jaccard() (each
-- query timed: the path "exact set, seq scan", the same work at both)
CREATE FUNCTION truth(tr text) RETURNS void LANGUAGE plpgsql AS \$\$
DECLARE r record; t0 timestamptz; ms float8; a int[]; j float8[];
BEGIN
	FOR r IN EXECUTE format('SELECT n, ss FROM %I ORDER BY n', 'q_' || tr) LOOP
		t0 := clock_timestamp();
		EXECUTE format('SELECT array_agg(id), array_agg(j) FROM (SELECT id, jaccard(ss, \$1) AS j FROM %I) x WHERE j >= 0.3',
			'd_' || tr) INTO a, j USING r.ss;
		ms := extract(epoch FROM clock_timestamp() - t0) * 1000;
		INSERT INTO res SELECT tr, t, p, r.n, ms,
			coalesce((SELECT array_agg(x.id) FROM unnest(a, j) x(id, j) WHERE x.j >= t), '{}')
			FROM unnest(ARRAY[0.3, 0.5]) t, unnest(ARRAY['truth', 'exact set, seq scan']) p;
	END LOOP;
END \$\$;
-- build an index, record its bytes per row and build time
CREATE FUNCTION build(tr text, what text, ddl text) RETURNS void LANGUAGE plpgsql AS \$\$
DECLARE ms float8;
BEGIN
	ms := timed(ddl);
	INSERT INTO sizes SELECT tr, what, pg_relation_size(what)::float8 / count(*), ms / 1000
		FROM (SELECT 1 FROM raw WHERE kind = 'doc' AND tier = tr) d;
END \$\$;
SQL

for tier_spec in ${TIERS//,/ }; do
	tr=${tier_spec%%:*}
	echo "tier $tr: $(($(date +%s) - T0)) s"
	pg_sql -q >/dev/null <<SQL
SET client_min_messages = warning;
SET maintenance_work_mem = '1GB';
-- the time to compute each representation per document (up to 2,000 documents)
CREATE TEMP TABLE b AS SELECT body FROM raw WHERE kind = 'doc' AND tier = '$tr' ORDER BY id LIMIT 2000;
SELECT timed('SELECT count(length(body)) FROM b') IS NOT NULL AS warm;
INSERT INTO comp SELECT '$tr', f, (SELECT count(*) FROM b), timed(format('SELECT count(%s) FROM b', e))
FROM (VALUES ('length(body)', 'length(body)'), ('shingle_set', 'shingle_set(body)'),
	('minhash (k=128)', 'minhash(body)'), ('simhash', 'simhash(body)'),
	('shingle_bottom (s=$SAMPLE)', 'shingle_bottom(body, $SAMPLE)')) v(f, e), generate_series(1, 3);
SELECT 1
FROM (VALUES ('length(body)', 'length(body)'), ('shingle_set', 'shingle_set(body)'),
	('minhash (k=128)', 'minhash(body)'), ('simhash', 'simhash(body)'),
	('shingle_bottom (s=$SAMPLE)', 'shingle_bottom(body, $SAMPLE)')) v(f, e);
CREATE TABLE d_$tr AS SELECT id, grp, body, shingle_set(body) AS ss, minhash(body) AS mh,
	simhash(body) AS sh, shingle_bottom(body, $SAMPLE) AS sb
FROM raw WHERE kind = 'doc' AND tier = '$tr';
ALTER TABLE d_$tr ADD PRIMARY KEY (id);
CREATE TABLE q_$tr AS SELECT id AS n, shingle_set(body) AS ss, minhash(body) AS mh, shingle_bottom(body, $SAMPLE) AS sb
FROM raw WHERE kind = 'query' AND tier = '$tr';
VACUUM ANALYZE d_$tr;
INSERT INTO sizes
SELECT '$tr', w, v, NULL FROM (SELECT count(*)::float8 AS docs, avg(array_length(regexp_split_to_array(body, '\s+'), 1)) AS words,
	avg(cardinality(ss)) AS shingles, avg(octet_length(body)) AS text_bytes,
	avg(pg_column_size(ss)) AS ss, avg(pg_column_size(mh)) AS mh, avg(pg_column_size(sh)) AS sh,
	avg(pg_column_size(sb)) AS sb FROM d_$tr) a,
LATERAL (VALUES ('docs', docs), ('words', words), ('shingles', shingles), ('text bytes', text_bytes),
	('col shingleset', ss), ('col minhash', mh), ('col simhash', sh), ('col sample', sb)) v(w, v);
SELECT build('$tr', 'i_ss_$tr', 'CREATE INDEX i_ss_$tr ON d_$tr USING gin (ss shingleset_ops) WITH (fastupdate = off)');
SELECT build('$tr', 'i_sb_$tr', 'CREATE INDEX i_sb_$tr ON d_$tr USING gin (sb shingleset_ops) WITH (fastupdate = off)');
SELECT build('$tr', 'i_sh_$tr', 'CREATE INDEX i_sh_$tr ON d_$tr USING hamming (sh)');
SELECT build('$tr', 'i_mh3_$tr', 'CREATE INDEX i_mh3_$tr ON d_$tr USING gin (mh minhash_lsh_ops(threshold = 0.3)) WITH (fastupdate = off)');
SQL
	pg_sql -q >/dev/null <<SQL
SET client_min_messages = warning;
SET jit = off;
SELECT truth('$tr');
SET enable_seqscan = off;

$(for t in 0.3 0.5; do cat <<EOS
SELECT probe('$tr', $t, 'exact set', 'SELECT array_agg(id) FROM d_$tr WHERE ss <@ similar_to(\$1, $t)', $EXACT_BUDGET);
SELECT probe('$tr', $t, 'minhash', 'SELECT array_agg(id) FROM d_$tr WHERE mh <@ similar_to(\$2, $t)');
SELECT probe('$tr', $t, 'sample', 'SELECT array_agg(id) FROM d_$tr WHERE sb <@ similar_to(\$3, $t)');
SELECT probe('$tr', $t, 'sample+verify', 'SELECT array_agg(id) FROM d_$tr WHERE sb <@ similar_to(\$3, $t - 0.1) AND jaccard(ss, \$1) >= $t');
EOS
done)
DROP INDEX i_mh3_$tr;
SELECT build('$tr', 'i_mh2_$tr', 'CREATE INDEX i_mh2_$tr ON d_$tr USING gin (mh minhash_lsh_ops(threshold = 0.2)) WITH (fastupdate = off)');
$(for t in 0.3 0.5; do cat <<EOS
SELECT probe('$tr', $t, 'minhash candidates', 'SELECT array_agg(id) FROM d_$tr WHERE mh <@ similar_to(\$2, $t - 0.1)');
SELECT probe('$tr', $t, 'minhash+verify', 'SELECT array_agg(id) FROM d_$tr WHERE mh <@ similar_to(\$2, $t - 0.1) AND jaccard(ss, \$1) >= $t');
EOS
done)
SQL
done
echo "measured in $(($(date +%s) - T0)) s"
echo

tiers_sql="ARRAY[$(for s in ${TIERS//,/ }; do printf "'%s'," "${s%%:*}"; done | sed 's/,$//')]"
pg_sql <<SQL
\pset footer off
\echo '## 1. Documents and bytes per row (columns: pg_column_size average; indexes: pg_relation_size / rows)'
SELECT tier, round(max(bytes) FILTER (WHERE what = 'docs')) AS docs,
	round(max(bytes) FILTER (WHERE what = 'words')) AS words,
	round(max(bytes) FILTER (WHERE what = 'shingles')) AS shingles,
	round(max(bytes) FILTER (WHERE what = 'text bytes')) AS text_bytes,
	round(max(bytes) FILTER (WHERE what = 'col shingleset')) AS set_col,
	round(max(bytes) FILTER (WHERE what = 'col minhash')) AS minhash_col,
	round(max(bytes) FILTER (WHERE what = 'col simhash')) AS simhash_col,
	round(max(bytes) FILTER (WHERE what = 'col sample')) AS sample_col,
	round(max(bytes) FILTER (WHERE what LIKE 'i_ss_%')) AS set_gin,
	round(max(bytes) FILTER (WHERE what LIKE 'i_mh3_%')) AS lsh03_gin,
	round(max(bytes) FILTER (WHERE what LIKE 'i_mh2_%')) AS lsh02_gin,
	round(max(bytes) FILTER (WHERE what LIKE 'i_sh_%')) AS hamming,
	round(max(bytes) FILTER (WHERE what LIKE 'i_sb_%')) AS sample_gin
FROM sizes GROUP BY tier ORDER BY array_position($tiers_sql, tier);
\echo '## 1b. Index build seconds'
SELECT tier, round(max(seconds) FILTER (WHERE what LIKE 'i_ss_%')::numeric, 2) AS set_gin,
	round(max(seconds) FILTER (WHERE what LIKE 'i_mh3_%')::numeric, 2) AS lsh03_gin,
	round(max(seconds) FILTER (WHERE what LIKE 'i_mh2_%')::numeric, 2) AS lsh02_gin,
	round(max(seconds) FILTER (WHERE what LIKE 'i_sh_%')::numeric, 2) AS hamming,
	round(max(seconds) FILTER (WHERE what LIKE 'i_sb_%')::numeric, 2) AS sample_gin
FROM sizes GROUP BY tier ORDER BY array_position($tiers_sql, tier);
\echo '## 2. Milliseconds per document to compute, best of 3 passes (length(body) reads the same values)'
SELECT tier, max(docs) AS docs,
	round((min(ms) FILTER (WHERE fn = 'length(body)') / max(docs))::numeric, 4) AS "length",
	round((min(ms) FILTER (WHERE fn = 'shingle_set') / max(docs))::numeric, 4) AS shingle_set,
	round((min(ms) FILTER (WHERE fn = 'minhash (k=128)') / max(docs))::numeric, 4) AS minhash,
	round((min(ms) FILTER (WHERE fn = 'simhash') / max(docs))::numeric, 4) AS simhash,
	round((min(ms) FILTER (WHERE fn LIKE 'shingle_bottom%') / max(docs))::numeric, 4) AS sample
FROM comp GROUP BY tier ORDER BY array_position($tiers_sql, tier);
\echo '## 3. Probes: latency (ms), answers per query, recall and precision against the exact set answer'
WITH ex AS (SELECT tier, t, n, ids FROM res WHERE path = 'truth'),
m AS (
	SELECT r.tier, r.t, r.path, r.ms, cardinality(r.ids) AS got, cardinality(ex.ids) AS want,
		(SELECT count(*) FROM unnest(r.ids) x WHERE x = ANY (ex.ids)) AS hit
	FROM res r JOIN ex USING (tier, t, n) WHERE r.path <> 'truth')
SELECT tier, t, path, count(*) AS queries, round(pct(array_agg(ms), 0.5)::numeric, 3) AS p50_ms,
	round(pct(array_agg(ms), 0.99)::numeric, 3) AS p99_ms, round(avg(ms)::numeric, 3) AS mean_ms,
	round(avg(got), 2) AS answers, round(sum(hit)::numeric / nullif(sum(want), 0), 4) AS recall,
	round(sum(hit)::numeric / nullif(sum(got), 0), 4) AS precision
FROM m GROUP BY tier, t, path
ORDER BY array_position($tiers_sql, tier), t,
	array_position(ARRAY['exact set', 'exact set, seq scan', 'minhash', 'minhash candidates', 'minhash+verify', 'sample', 'sample+verify'], path);
SQL
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg); total $(($(date +%s) - T0)) s"
