-- What each default reports on all 63,956 Debian descriptions (table deb: id, package, body):
-- near-duplicate pair counts (and clusters where cheap), with times.  No labels here; the
-- exact-truth check is the 5,000-document sample run by run.sh (dataset debian-sample).
SET client_min_messages = warning;
SET jit = off;
SET work_mem = '1GB';
SET max_parallel_workers_per_gather = 0;
-- (each table made here is ANALYZEd at once: without statistics the planner chose plans of
-- hours for the band and key self-joins)

CREATE TABLE deb_full (method text, param text, pairs bigint, clusters bigint, clustered_docs bigint,
	build_ms float8, pairs_ms float8, note text);

DO $$
DECLARE t0 timestamptz; b float8; k integer; r record;
BEGIN
	-- simhash, default features (word 2 tf) and char 7 tf: hamming_pairs, hamming_clusters
	FOR r IN SELECT * FROM (VALUES ('simhash word 2 tf (default)', 'simhash(body)'),
			('simhash char 7 tf', 'simhash(body, 7, ''char'')')) v(name, expr) LOOP
		t0 := clock_timestamp();
		DROP TABLE IF EXISTS dfp;
		EXECUTE format('CREATE TABLE dfp AS SELECT id, %s AS fp FROM deb', r.expr);
		ANALYZE dfp;
		b := q_ms(t0);
		FOREACH k IN ARRAY '{3,6,9,12,13}'::int[] LOOP
			t0 := clock_timestamp();
			INSERT INTO deb_full SELECT r.name, 'k=' || k, count(*), NULL, NULL, b, q_ms(t0), NULL
				FROM hamming_pairs('SELECT id, fp FROM dfp', k);
			UPDATE deb_full SET pairs_ms = q_ms(t0) WHERE method = r.name AND param = 'k=' || k;
			UPDATE deb_full SET (clusters, clustered_docs) = (SELECT count(DISTINCT cluster_id), count(*)
				FROM hamming_clusters('SELECT id, fp FROM dfp', k, false))
			WHERE method = r.name AND param = 'k=' || k;
		END LOOP;
	END LOOP;

	-- min-hash oph k=128: identical sketches grouped first (equal sketches: estimate 1), then an
	-- LSH band join over the distinct sketches (42 bands of 3 values: a pair with r becomes a
	-- candidate with probability 1 - (1 - r^3)^42: 0.68 at r = 0.3, 0.996 at 0.5, 1.000 at 0.8),
	-- confirmed by jaccard().  (64 bands of 2 values made 47.5M band matches here: too slow.)
	t0 := clock_timestamp();
	CREATE TABLE dmh AS SELECT row_number() OVER () AS sid, m, n FROM
		(SELECT minhash(body) AS m, count(*) AS n FROM deb GROUP BY 1) q; ANALYZE dmh;
	b := q_ms(t0);
	t0 := clock_timestamp();
	CREATE TABLE dband AS SELECT sid, g, v[3 * g + 1] AS v1, v[3 * g + 2] AS v2, v[3 * g + 3] AS v3
		FROM (SELECT sid, m::bigint[] AS v FROM dmh) q, generate_series(0, 41) g; ANALYZE dband;
	CREATE TABLE dcand AS SELECT DISTINCT a.sid AS s1, b.sid AS s2
		FROM dband a JOIN dband b ON a.g = b.g AND a.v1 = b.v1 AND a.v2 = b.v2 AND a.v3 = b.v3 AND a.sid < b.sid; ANALYZE dcand;
	CREATE TABLE dmhp AS SELECT c.s1, c.s2, jaccard(a.m, b.m) AS j, a.n * b.n AS npairs
		FROM dcand c JOIN dmh a ON a.sid = c.s1 JOIN dmh b ON b.sid = c.s2 WHERE jaccard(a.m, b.m) >= 0.3; ANALYZE dmhp;
	INSERT INTO deb_full SELECT 'minhash oph k=128 (default)', 'r>=' || t,
		(SELECT sum(npairs) FROM dmhp WHERE j >= t) + (SELECT sum(n * (n - 1) / 2) FROM dmh),
		NULL, NULL, b, q_ms(t0),
		(SELECT count(*) FROM dcand) || ' LSH candidate pairs of distinct sketches (42 bands x 3)'
	FROM unnest('{0.3,0.5,0.8}'::float8[]) t;

	-- super-shingles 6 x 14 (kperm 84), >= 2 of 6 groups: shared super_shingle_keys
	t0 := clock_timestamp();
	CREATE TABLE dss AS SELECT row_number() OVER () AS sid, s, n FROM
		(SELECT super_shingles(minhash(body, 84, 'kperm')) AS s, count(*) AS n FROM deb GROUP BY 1) q; ANALYZE dss;
	b := q_ms(t0);
	t0 := clock_timestamp();
	CREATE TABLE dssk AS SELECT sid, unnest(super_shingle_keys(s, 2)) AS k FROM dss; ANALYZE dssk;
	INSERT INTO deb_full SELECT 'super-shingles 6x14', '>= 2 of 6',
		coalesce((SELECT sum(a.n * b.n) FROM (SELECT DISTINCT x.sid AS s1, y.sid AS s2 FROM dssk x JOIN dssk y
			ON x.k = y.k AND x.sid < y.sid) p JOIN dss a ON a.sid = p.s1 JOIN dss b ON b.sid = p.s2), 0)
		+ (SELECT sum(n * (n - 1) / 2) FROM dss WHERE s <> '{}'), NULL, NULL, b, q_ms(t0), NULL;

	-- I-Match, one lexicon over the 64K documents
	t0 := clock_timestamp();
	CREATE TABLE dim AS SELECT id, imatch(body, (SELECT imatch_lexicon_agg(body) FROM deb)) AS sig FROM deb; ANALYZE dim;
	b := q_ms(t0);
	t0 := clock_timestamp();
	INSERT INTO deb_full SELECT 'imatch single', 'equal signature', sum(n * (n - 1) / 2),
		count(*) FILTER (WHERE n > 1), sum(n) FILTER (WHERE n > 1), b, q_ms(t0), NULL
		FROM (SELECT count(*) AS n FROM dim WHERE sig IS NOT NULL GROUP BY sig) q;
END $$;
