--
-- Scale-out on one node: the equi-join keys of near-duplicates and the
-- worker side of the distributed batch functions, against the batch
-- functions and a brute-force self-join.  (The distributed functions
-- themselves are compared on a Citus cluster by test/citus/run.sh.)
--

-- 1,500 md5 fingerprints, 500 planted variants (1-8 bits flipped, some of
-- variants), 40 exact copies: deterministic
CREATE TABLE so (rn serial, id bigint, fp simhash64, ord integer);
INSERT INTO so (id, fp, ord)
SELECT g, ('x' || substr(md5('so' || g), 1, 16))::bit(64)::bigint::simhash64, (g * 37) % 500
FROM generate_series(1, 1500) g;
CREATE FUNCTION so_flips(seed text, n integer) RETURNS bigint
LANGUAGE sql IMMUTABLE AS $$
	SELECT bit_or(1::bigint << (get_byte(decode(md5(seed || '/' || i), 'hex'), 0) % 64))
	FROM generate_series(1, n) i
$$;
INSERT INTO so (id, fp, ord)
SELECT 100000 + g, (b.fp::bigint # so_flips('v' || g, 1 + g % 8))::simhash64,
	CASE WHEN g % 7 = 0 THEN NULL ELSE g % 300 END
FROM generate_series(1, 400) g JOIN so b ON b.id = 1 + (g * 7) % 1500;
INSERT INTO so (id, fp, ord)
SELECT 200000 + g, (b.fp::bigint # so_flips('w' || g, 1 + g % 5))::simhash64, g
FROM generate_series(1, 100) g JOIN so b ON b.id = 100000 + 1 + (g * 3) % 400;
INSERT INTO so (id, fp, ord) SELECT 300000 + g, b.fp, -g FROM generate_series(1, 40) g JOIN so b ON b.id = g * 37;
INSERT INTO so (id, fp, ord) VALUES (200001, '0123456789abcdef', 1);	-- a repeated id
SELECT count(*), count(DISTINCT fp), count(DISTINCT id) FROM so;

-- the truth: every pair within 20 bits
CREATE TABLE so_truth AS
SELECT LEAST(a.id, b.id) AS id1, GREATEST(a.id, b.id) AS id2, a.fp <-> b.fp AS distance
FROM so a JOIN so b ON a.rn < b.rn AND a.fp <-> b.fp <= 20;

-- block keys: radius + 1 keys, the block number in bits 57-62
SELECT hamming_block_keys('0123456789abcdef', 3);
SELECT hamming_block_keys('0123456789abcdef', 3, 5);
SELECT hamming_block_keys('0123456789abcdef', 0);		-- one block: the fingerprint
SELECT hamming_block_keys('0123456789abcdef', 0, 2);
SELECT hamming_pair_key('0123456789abcdef', '0123456789abcdee', 3),
	hamming_pair_key('0123456789abcdef', '8123456789abcdef', 3),
	hamming_pair_key('0123456789abcdef', 'f123456789abcdef', 3);	-- 4 bits: NULL
SELECT hamming_block_keys(NULL, 3), hamming_block_keys('0123456789abcdef', NULL),
	hamming_pair_key(NULL, '0123456789abcdef', 3);

-- the self-join on equal keys that keeps a pair under its own key finds
-- every pair exactly once (EXCEPT ALL: a pair found twice is extra)
CREATE TABLE so_keys (key bigint, id bigint, fp simhash64, ord integer);
CREATE FUNCTION so_selfjoin_diff(r integer, m integer DEFAULT NULL)
RETURNS TABLE (radius integer, blocks integer, found bigint, missing bigint, extra bigint)
LANGUAGE plpgsql AS $$
BEGIN
	TRUNCATE so_keys;
	INSERT INTO so_keys SELECT k, s.id, s.fp, s.ord FROM so s, unnest(hamming_block_keys(s.fp, r, m)) k;
	RETURN QUERY
	WITH got AS (
		SELECT LEAST(a.id, b.id) AS id1, GREATEST(a.id, b.id) AS id2, a.fp <-> b.fp AS distance
		FROM so_keys a JOIN so_keys b ON a.key = b.key AND a.ctid < b.ctid
		WHERE a.key = hamming_pair_key(a.fp, b.fp, r, m)),
	t AS (SELECT * FROM so_truth WHERE so_truth.distance <= r)
	SELECT r, m, (SELECT count(*) FROM got),
		(SELECT count(*) FROM (TABLE t EXCEPT ALL TABLE got) x),
		(SELECT count(*) FROM (TABLE got EXCEPT ALL TABLE t) y);
END
$$;
SELECT d.* FROM unnest(ARRAY[0, 1, 3, 6, 12]) r, so_selfjoin_diff(r) d;
SELECT * FROM so_selfjoin_diff(3, 6);

-- the worker side: a key group searched with the remaining tables
-- (blocks > radius + 1), pairs, a join's pairs and the clusters' edges
CREATE FUNCTION so_group_diff(r integer, m integer)
RETURNS TABLE (radius integer, blocks integer, pairs_missing bigint, pairs_extra bigint,
	join_missing bigint, join_extra bigint)
LANGUAGE plpgsql AS $$
BEGIN
	TRUNCATE so_keys;
	INSERT INTO so_keys SELECT k, s.id, s.fp, s.ord FROM so s, unnest(hamming_block_keys(s.fp, r, m)) k;
	RETURN QUERY
	WITH g AS (SELECT key, array_agg(id) ids, array_agg(fp) fps, array_agg(ord) ords,
				array_agg((id % 2)::smallint) sides
			   FROM so_keys GROUP BY key HAVING count(*) > 1),
	got AS (SELECT LEAST(g.ids[p.i], g.ids[p.j]) AS id1, GREATEST(g.ids[p.i], g.ids[p.j]) AS id2, p.distance
			FROM g, nddup_hamming_key_group(g.key, g.fps, NULL, r, m, 0) p),
	t AS (SELECT * FROM so_truth WHERE so_truth.distance <= r),
	jgot AS (SELECT g.ids[p.i] AS a, g.ids[p.j] AS b, p.distance
			 FROM g, nddup_hamming_key_group(g.key, g.fps, g.sides, r, m, 0) p),
	jt AS (SELECT CASE WHEN id1 % 2 = 0 THEN id1 ELSE id2 END AS a,
				  CASE WHEN id1 % 2 = 0 THEN id2 ELSE id1 END AS b, t.distance
		   FROM t WHERE id1 % 2 <> id2 % 2)
	SELECT r, m,
		(SELECT count(*) FROM (TABLE t EXCEPT ALL TABLE got) x),
		(SELECT count(*) FROM (TABLE got EXCEPT ALL TABLE t) y),
		(SELECT count(*) FROM (TABLE jt EXCEPT ALL TABLE jgot) x),
		(SELECT count(*) FROM (TABLE jgot EXCEPT ALL TABLE jt) y);
END
$$;
SELECT d.*
FROM (VALUES (0, 1), (0, 3), (1, 2), (3, 4), (3, 7), (6, 9), (12, 13), (12, 16), (20, 22)) v(r, m),
	so_group_diff(v.r, v.m) d;

-- clusters from the edges (a spanning forest of each group's pairs) equal
-- the clusters of all pairs
CREATE TABLE so_edges (id1 bigint, id2 bigint);
CREATE FUNCTION so_edges_clusters_diff(r integer, m integer) RETURNS TABLE (edges bigint, pairs bigint, differ bigint)
LANGUAGE plpgsql AS $$
BEGIN
	TRUNCATE so_keys, so_edges;
	INSERT INTO so_keys SELECT k, s.id, s.fp, s.ord FROM so s, unnest(hamming_block_keys(s.fp, r, m)) k;
	INSERT INTO so_edges
	SELECT g.ids[p.i], g.ids[p.j]
	FROM (SELECT key, array_agg(id) ids, array_agg(fp) fps FROM so_keys GROUP BY key HAVING count(*) > 1) g,
		nddup_hamming_key_group(g.key, g.fps, NULL, r, m, 1) p;
	RETURN QUERY SELECT (SELECT count(*) FROM so_edges), (SELECT count(*) FROM so_truth WHERE distance <= r),
		(SELECT count(*) FROM (
			(SELECT * FROM clusters_from_pairs('SELECT id1, id2 FROM so_edges', false, mode => 'components')
			 EXCEPT SELECT * FROM clusters_from_pairs('SELECT id1, id2 FROM so_truth WHERE distance <= ' || r, false, mode => 'components'))
			UNION ALL
			(SELECT * FROM clusters_from_pairs('SELECT id1, id2 FROM so_truth WHERE distance <= ' || r, false, mode => 'components')
			 EXCEPT SELECT * FROM clusters_from_pairs('SELECT id1, id2 FROM so_edges', false, mode => 'components'))) d);
END
$$;
SELECT v.*, d.edges <= d.pairs AS fewer_edges, d.differ
FROM (VALUES (0, 1), (3, 4), (6, 9), (12, 16)) v(r, m), so_edges_clusters_diff(v.r, v.m) d;

-- errors
SELECT hamming_block_keys('0123456789abcdef', 64);
SELECT hamming_block_keys('0123456789abcdef', -1);
SELECT hamming_block_keys('0123456789abcdef', 3, 3);
SELECT hamming_block_keys('0123456789abcdef', 3, 65);
SELECT * FROM nddup_hamming_key_group(5::bigint << 57, '{0123456789abcdef}', NULL, 3, 4, 0);
SELECT * FROM nddup_hamming_key_group(0, '{0123456789abcdef,NULL}', NULL, 3, 4, 0);
SELECT * FROM nddup_hamming_key_group(0, '{0123456789abcdef}', '{0,1}', 3, 4, 0);

-- band keys of min-hash sketches: 600 documents, 300 variants (one word
-- in 8 to 37 replaced), 20 copies
CREATE TABLE so_words (id bigint, pos integer, word text);
INSERT INTO so_words
SELECT g, j, substr(md5('d' || g || '/' || j), 1, 6)
FROM generate_series(1, 600) g, generate_series(1, 20 + g % 41) j;
INSERT INTO so_words
SELECT 10000 + g, w.pos,
	CASE WHEN w.pos % (8 + g % 30) = 3 THEN substr(md5('r' || g || '/' || w.pos), 1, 6)
		 ELSE w.word END
FROM generate_series(1, 300) g JOIN so_words w ON w.id = 1 + (g * 7) % 600;
INSERT INTO so_words SELECT 20000 + g, w.pos, w.word FROM generate_series(1, 20) g JOIN so_words w ON w.id = g * 23;
CREATE TABLE so_docs AS SELECT id, string_agg(word, ' ' ORDER BY pos) AS body FROM so_words GROUP BY id;
INSERT INTO so_docs VALUES (30001, ''), (30002, '...');		-- no shingles
ALTER TABLE so_docs ADD s minhash_sketch, ADD s84 minhash_sketch, ADD s8 minhash_sketch;
UPDATE so_docs SET s = minhash(body), s84 = minhash(body, 84, 'kperm');
UPDATE so_docs SET s8 = minhash_bbit(s, 8);

SELECT array_length(minhash_band_keys(s, 0.8), 1) AS bands_08,
	array_length(minhash_band_keys(s, 0.5), 1) AS bands_05,
	array_length(minhash_band_keys(s, 0.7, 8, 16), 1) AS given,
	array_length(minhash_band_keys(s8, 0.8), 1) AS bbit_08,
	minhash_band_keys(minhash(''), 0.8) = minhash_band_keys(minhash('!'), 0.8) AS empty_shared
FROM so_docs WHERE id = 1;

CREATE TABLE so_bkeys (key bigint, id bigint, s minhash_sketch);
CREATE FUNCTION so_band_diff(col text, t float8, b bigint DEFAULT NULL, r bigint DEFAULT NULL)
RETURNS TABLE (sketch text, threshold float8, bands bigint, "rows" bigint, found bigint, missing bigint, extra bigint)
LANGUAGE plpgsql AS $$
BEGIN
	TRUNCATE so_bkeys;
	EXECUTE format('INSERT INTO so_bkeys SELECT k, d.id, d.%I FROM so_docs d, unnest(minhash_band_keys(d.%I, $1, $2, $3)) k',
				   col, col) USING t, b, r;
	RETURN QUERY EXECUTE format($q$
	WITH got AS (
		SELECT LEAST(x.id, y.id) AS id1, GREATEST(x.id, y.id) AS id2, jaccard(x.s, y.s) AS res
		FROM so_bkeys x JOIN so_bkeys y ON x.key = y.key AND x.ctid < y.ctid
		WHERE x.key = minhash_pair_band_key(x.s, y.s, $1, $2, $3)),
	tr AS (SELECT * FROM minhash_pairs('SELECT id, %I FROM so_docs', $1, $2, $3))
	SELECT %L, $1, $2, $3, (SELECT count(*) FROM got),
		(SELECT count(*) FROM (TABLE tr EXCEPT ALL TABLE got) x),
		(SELECT count(*) FROM (TABLE got EXCEPT ALL TABLE tr) y)$q$, col, col) USING t, b, r;
END
$$;
SELECT d.* FROM unnest(ARRAY[0.5, 0.7, 0.9, 1.0]) t, so_band_diff('s', t) d;
SELECT * FROM so_band_diff('s84', 0.7);
SELECT * FROM so_band_diff('s8', 0.7);
SELECT * FROM so_band_diff('s', 0.7, 39, 3);	-- another exact layout
SELECT * FROM so_band_diff('s', 0.7, 8, 16);	-- approximate: pairs equal on a band only
SELECT * FROM so_band_diff('s', 0.9, 20);

-- errors: every pair qualifies at 0, bad layouts, other parameters
SELECT minhash_band_keys(minhash('a b c d'), 0);
SELECT minhash_band_keys(minhash('a b c d'), 1.5);
SELECT minhash_band_keys(minhash('a b c d'), 0.8, 100, 2);
SELECT minhash_band_keys(minhash('a b c d'), 0.8, 0);
SELECT minhash_band_keys(minhash('a b c d'), 0.8, NULL, 2000);
SELECT minhash_pair_band_key(minhash('a b c d'), minhash('a b c d', 64), 0.8);
SELECT nddup_minhash_params(minhash('a b c d')) = nddup_minhash_params(minhash('x y z w')) AS same,
	nddup_minhash_params(minhash('a b c d')) = nddup_minhash_params(minhash('a b c d', 64)) AS other_k;
SELECT nddup_row_key(102008, '(5,3)'), nddup_row_key(1, '(0,1)');
SELECT nddup_row_key(1 << 28, '(0,1)');

-- simhash_agg's state type: Citus moves partial states in their text form,
-- which must give the same state back bit for bit
SELECT simhash_agg(f, w) FROM (VALUES ('a', 1.5), ('b', -0.25), ('c', 1e-300)) v(f, w);
SELECT 'n=2 3ff8000000000000 bfd0000000000000 0000000000000001 8000000000000000 7ff0000000000000 0000000000000000 0000000000000000 0000000000000000 0000000000000000 0000000000000000 0000000000000000 0000000000000000 0000000000000000 0000000000000000 0000000000000000 0000000000000000 0000000000000000 0000000000000000 0000000000000000 0000000000000000 0000000000000000 0000000000000000 0000000000000000 0000000000000000 0000000000000000 0000000000000000 0000000000000000 0000000000000000 0000000000000000 0000000000000000 0000000000000000 0000000000000000 0000000000000000 0000000000000000 0000000000000000 0000000000000000 0000000000000000 0000000000000000 0000000000000000 0000000000000000 0000000000000000 0000000000000000 0000000000000000 0000000000000000 0000000000000000 0000000000000000 0000000000000000 0000000000000000 0000000000000000 0000000000000000 0000000000000000 0000000000000000 0000000000000000 0000000000000000 0000000000000000 0000000000000000 0000000000000000 0000000000000000 0000000000000000 0000000000000000 0000000000000000 0000000000000000 0000000000000000 0000000000000000'::simhash_agg_state AS st \gset
SELECT :'st'::simhash_agg_state::text = :'st' AS text_round_trip,
	simhash_agg_finalfn(:'st'::simhash_agg_state) AS fingerprint,
	length(simhash_agg_state_send(:'st'::simhash_agg_state)) AS binary_bytes;
SELECT 'n=1 00'::simhash_agg_state;
SELECT 'n=-1'::simhash_agg_state;
SELECT replace(:'st', '7ff0000000000000', '7ff8000000000000')::simhash_agg_state;	-- NaN
-- called from SQL, the transition and combine functions return a new state
-- and leave the stored one as it is
CREATE TABLE so_state AS SELECT :'st'::simhash_agg_state AS st;
SELECT simhash_agg_transfn(st, 'x', 1)::text <> :'st' AS new_state,
	simhash_agg_combinefn(st, st)::text <> :'st' AS combined, st::text = :'st' AS stored_unchanged
FROM so_state;
SELECT st::text = :'st' AS still_unchanged FROM so_state;

-- nddup_original(), the insert-time check through the Citus coordinator,
-- judges on one node as the trigger does
CREATE TABLE so_trig (id bigint PRIMARY KEY, site integer, fp simhash64, duplicate_of bigint);
CREATE INDEX ON so_trig USING gin (fp simhash64_gin_ops);
CREATE TRIGGER dedup BEFORE INSERT ON so_trig FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=fp', 'radius=6', 'scope=site');
CREATE TABLE so_orig (LIKE so_trig INCLUDING INDEXES);
INSERT INTO so_trig (id, site, fp)
SELECT DISTINCT ON (id) id, id % 3, fp FROM so WHERE rn <= 400 OR rn > 1500 ORDER BY id;
DO $$
DECLARE
	r record;
BEGIN
	FOR r IN SELECT DISTINCT ON (id) id, id % 3 AS site, fp FROM so WHERE rn <= 400 OR rn > 1500 ORDER BY id LOOP
		INSERT INTO so_orig VALUES (r.id, r.site, r.fp,
			nddup_original('so_orig', '{fingerprint=fp,radius=6,scope=site}', r.fp, NULL::bigint, r.site));
	END LOOP;
END
$$;
SELECT count(*) AS rows, count(t.duplicate_of) AS duplicates,
	count(*) FILTER (WHERE t.duplicate_of IS DISTINCT FROM o.duplicate_of) AS differ
FROM so_trig t JOIN so_orig o USING (id);

-- from the source text, with min-hash sketches; action=error
CREATE TABLE so_mtrig (id bigint PRIMARY KEY, body text, duplicate_of bigint);
CREATE TRIGGER dedup BEFORE INSERT ON so_mtrig FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('source=body', 'method=minhash', 'threshold=0.7');
CREATE TABLE so_morig (LIKE so_mtrig);
CREATE VIEW so_docs_part AS SELECT id, body FROM so_docs WHERE id <= 300 OR id BETWEEN 10001 AND 10150 OR id > 20000;
INSERT INTO so_mtrig (id, body) SELECT id, body FROM so_docs_part ORDER BY id;
DO $$
DECLARE
	r record;
BEGIN
	FOR r IN SELECT id, body FROM so_docs_part ORDER BY id LOOP
		INSERT INTO so_morig VALUES (r.id, r.body,
			nddup_original('so_morig', '{source=body,method=minhash,threshold=0.7}', r.body, NULL::bigint));
	END LOOP;
END
$$;
SELECT count(*) AS rows, count(t.duplicate_of) AS duplicates,
	count(*) FILTER (WHERE t.duplicate_of IS DISTINCT FROM o.duplicate_of) AS differ
FROM so_mtrig t JOIN so_morig o USING (id);
SELECT nddup_original('so_morig', '{source=body,method=minhash,threshold=0.7,action=error}',
	(SELECT body FROM so_docs WHERE id = 20001), NULL::bigint);
SELECT nddup_original('so_morig', '{source=body,method=minhash,threshold=0.7}', 'no such text anywhere', NULL::bigint);

-- errors: the id type, the scope value, the isolation level, bad arguments
SELECT nddup_original('so_orig', '{fingerprint=fp,radius=6,scope=site}', '0123456789abcdef'::simhash64, NULL::integer, 1);
SELECT nddup_original('so_orig', '{fingerprint=fp,radius=6,scope=site}', '0123456789abcdef'::simhash64, NULL::bigint);
SELECT nddup_original('so_orig', '{fingerprint=fp,radius=6,scope=site}', '0123456789abcdef'::simhash64, NULL::bigint, NULL);
SELECT nddup_original('so_orig', '{fingerprint=fp,radius=6}', 42, NULL::bigint);
SELECT nddup_original('so_orig', '{fingerprint=fp,radius=99}', '0123456789abcdef'::simhash64, NULL::bigint);
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT nddup_original('so_orig', '{fingerprint=fp,radius=6}', '0123456789abcdef'::simhash64, NULL::bigint);
ROLLBACK;
