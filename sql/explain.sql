--
-- nddup_explain and nddup_highlight: why two texts match (docs/explain.md)
--
\pset null '(null)'

CREATE TABLE explain_pairs (name text, a text, b text);
INSERT INTO explain_pairs VALUES
	('plain', 'the quick brown fox jumps over the lazy dog and runs away',
	          'a quick brown fox jumps over the lazy dog, then sleeps'),
	('html', '<p>The <b>Quick</b> brown&nbsp;fox!</p> jumps over the lazy dog. Unrelated tail here',
	         'the quick brown fox jumps over the lazy cat'),
	('entities', 'Caf&eacute; au lait, s''il vous pla&#xEE;t, with croissants and jam',
	             'CAFÉ AU LAIT S''IL VOUS PLAÎT with tea'),
	('composed', 'x cafe&#x301; y z w', 'X CAFÉ Y Z'),
	('cjk', '今日の東京都の天気は晴れです', '東京都の天気は雨、明日の東京都の天気は晴れ'),
	('mixed', 'iPhone手机 ﬁne Ｆｕｌｌ width text here', 'iphone手机 fine full width text there'),
	('fraction', 'take ½ cup of sugar', 'take 1 cup of sugar'),
	('two runs', 'a b c d X e f g h', 'a b c d Y e f g h'),
	('repeats', 'a rose is a rose is a rose', 'a rose is a rose'),
	('short', 'Hello <i>World</i>', 'hello world'),
	('none', 'no match at all', 'something else entirely'),
	('empty', '', '<p></p>'),
	('one empty', 'some words here', '');

-- every measure, and the passages as the text they cover
SELECT p.name, round(e.jaccard::numeric, 4) AS jaccard, round(e.a_in_b::numeric, 4) AS a_in_b,
	round(e.b_in_a::numeric, 4) AS b_in_a, e.shared, e.a_shingles, e.b_shingles,
	e.a_passages, e.b_passages
FROM explain_pairs p, nddup_explain(p.a, p.b) e ORDER BY p.name;

SELECT p.name, s.side, s.n, s.passage
FROM explain_pairs p, nddup_explain(p.a, p.b) e,
	LATERAL (SELECT 'a' AS side, n, substr(p.a, lower(r), upper(r) - lower(r)) AS passage
	         FROM unnest(e.a_passages) WITH ORDINALITY AS u(r, n)
	         UNION ALL
	         SELECT 'b', n, substr(p.b, lower(r), upper(r) - lower(r))
	         FROM unnest(e.b_passages) WITH ORDINALITY AS u(r, n)) s
ORDER BY p.name, s.side, s.n;

-- the measures are those of the extension's functions, for several sizes and units
SELECT p.name, sz.size, u.unit,
	e.jaccard = jaccard(shingle_set(p.a, sz.size, u.unit), shingle_set(p.b, sz.size, u.unit)) AS jaccard_ok,
	e.a_in_b = containment(shingle_set(p.a, sz.size, u.unit), shingle_set(p.b, sz.size, u.unit)) AS a_in_b_ok,
	e.b_in_a = containment(shingle_set(p.b, sz.size, u.unit), shingle_set(p.a, sz.size, u.unit)) AS b_in_a_ok,
	e.shared = overlap(shingle_set(p.a, sz.size, u.unit), shingle_set(p.b, sz.size, u.unit)) AS shared_ok,
	e.a_shingles = cardinality(shingle_set(p.a, sz.size, u.unit))
		AND e.b_shingles = cardinality(shingle_set(p.b, sz.size, u.unit)) AS sizes_ok,
	e.minhash_estimate = jaccard(minhash(p.a, 128, 'oph', 0, sz.size, u.unit),
	                             minhash(p.b, 128, 'oph', 0, sz.size, u.unit)) AS minhash_ok,
	e.simhash_distance = (simhash(p.a) <-> simhash(p.b)) AS simhash_ok
FROM explain_pairs p, (VALUES (1), (2), (3), (5)) sz(size), (VALUES ('word'), ('word_')) u(unit),
	nddup_explain(p.a, p.b, sz.size, u.unit) e
WHERE NOT (e.jaccard = jaccard(shingle_set(p.a, sz.size, u.unit), shingle_set(p.b, sz.size, u.unit))
	AND e.a_in_b = containment(shingle_set(p.a, sz.size, u.unit), shingle_set(p.b, sz.size, u.unit))
	AND e.b_in_a = containment(shingle_set(p.b, sz.size, u.unit), shingle_set(p.a, sz.size, u.unit))
	AND e.shared = overlap(shingle_set(p.a, sz.size, u.unit), shingle_set(p.b, sz.size, u.unit))
	AND e.a_shingles = cardinality(shingle_set(p.a, sz.size, u.unit))
	AND e.b_shingles = cardinality(shingle_set(p.b, sz.size, u.unit))
	AND e.minhash_estimate = jaccard(minhash(p.a, 128, 'oph', 0, sz.size, u.unit),
	                                 minhash(p.b, 128, 'oph', 0, sz.size, u.unit))
	AND e.simhash_distance = (simhash(p.a) <-> simhash(p.b)));
SELECT count(*) AS explained
FROM explain_pairs p, (VALUES (1), (2), (3), (5)) sz(size), (VALUES ('word'), ('word_')) u(unit),
	nddup_explain(p.a, p.b, sz.size, u.unit) e;

-- the passages reproduce the Jaccard: the distinct shingles of the text they
-- cover are the shared shingles (but where NFKC makes several tokens of one
-- character, ½ -> 1⁄2, and a passage ends inside it: see the fraction pair)
CREATE FUNCTION passage_shingles(doc text, passages int4range[], size integer)
	RETURNS bigint LANGUAGE sql IMMUTABLE
	RETURN (SELECT count(DISTINCT h) FROM unnest(passages) r,
	        unnest(shingles(substr(doc, lower(r), upper(r) - lower(r)), size)) h);
SELECT p.name, sz.size, e.shared, passage_shingles(p.a, e.a_passages, sz.size) AS a_covered,
	passage_shingles(p.b, e.b_passages, sz.size) AS b_covered
FROM explain_pairs p, (VALUES (1), (2), (3), (4)) sz(size), nddup_explain(p.a, p.b, sz.size) e
WHERE passage_shingles(p.a, e.a_passages, sz.size) <> e.shared
	OR passage_shingles(p.b, e.b_passages, sz.size) <> e.shared;

-- larger texts: package-like descriptions with boilerplate, HTML and edits
CREATE TABLE explain_docs AS
SELECT i, string_agg(format('Package %s %s provides the library %s for %s; this package contains the %s files.',
	i, md5((i * j)::text), left(md5(j::text), 6), CASE WHEN j % 3 = 0 THEN '<b>Haskell</b>' ELSE 'Rust &amp; C' END,
	CASE WHEN (i + j) % 4 = 0 THEN 'développement' ELSE 'documentation' END), E'\n' ORDER BY j) AS body
FROM generate_series(1, 6) i, generate_series(1, 40) j GROUP BY i;
SELECT x.i AS a, y.i AS b, e.shared, passage_shingles(x.body, e.a_passages, 3) = e.shared AS a_ok,
	passage_shingles(y.body, e.b_passages, 3) = e.shared AS b_ok,
	e.jaccard = jaccard(shingle_set(x.body), shingle_set(y.body)) AS jaccard_ok
FROM explain_docs x JOIN explain_docs y ON x.i < y.i, nddup_explain(x.body, y.body) e
ORDER BY 1, 2;

-- the highlighting form: HTML-escaped, the passages marked (overlapping ones merged)
SELECT p.name, h.a_html, h.b_html
FROM explain_pairs p, nddup_highlight(p.a, p.b) h ORDER BY p.name;
SELECT * FROM nddup_highlight('Tom & "Jerry" <said> it''s a b c', 'it''s a b c! Tom & "Jerry"', '[[', ']]', 2);
SELECT * FROM nddup_highlight('a b c d e f', 'a b c d e f', size => 1);

-- NULL in, NULL out
SELECT nddup_explain(NULL, 'a') IS NULL AS explain_null, nddup_highlight('a', NULL) IS NULL AS highlight_null;

-- errors
SELECT * FROM nddup_explain('a b c', 'a b c', 3, 'char');
SELECT * FROM nddup_explain('a b c', 'a b c', 0);
SELECT * FROM nddup_explain('a b c', 'a b c', 3, 'Word');
SELECT * FROM nddup_highlight('a b c', 'a b c', size => 65);

DROP TABLE explain_pairs, explain_docs;
DROP FUNCTION passage_shingles(text, int4range[], integer);
