-- Data of test/bench/batch_spill_bench.sh: :rows short texts of real words
-- (docs/reports/bench-batch-spill.md).  psql variables: rows (number of
-- texts), words (a gzip TSV whose third column is text: the word list is
-- its distinct lower-case words of 3-12 letters).
--
-- Row g (1..rows) is a base text of 10-25 words drawn uniformly from the
-- word list by hashes of g, unless g % 20 = 0: then it is a planted variant
-- (5 % of the rows) of a base text with an earlier id, chosen by a hash of
-- g, so every prefix "id <= M" holds its variants' bases.  Variant v = g / 20
-- is, by v % 5: 0 an exact copy, 1 one word replaced, 2 one word appended,
-- 3 the last word dropped, 4 two words replaced.  Nothing here needs nddup.

\set ON_ERROR_STOP on
SET work_mem = '256MB';

DROP TABLE IF EXISTS bench_src, bench_vocab, bench_text;
CREATE TEMP TABLE bench_src (id int, label text, body text);
\set cmd 'zcat ' :words ' | tail -n +2'
COPY bench_src FROM PROGRAM :'cmd';
CREATE UNLOGGED TABLE bench_vocab AS
SELECT (row_number() OVER (ORDER BY w) - 1)::int AS i, w
FROM (SELECT DISTINCT w
	  FROM bench_src, regexp_split_to_table(lower(replace(body, '\n', ' ')), '[^a-z]+') w
	  WHERE length(w) BETWEEN 3 AND 12) x;

-- bench_word(k): the word of hash key k, from the words as one constant
-- bytea of 12-byte slots (an inlined SQL function: substring() of a constant
-- costs the same wherever the word is, a text[] subscript walks the array)
DROP FUNCTION IF EXISTS bench_word(bigint);
DO $$
DECLARE
	blob bytea;
	n int;
BEGIN
	SELECT convert_to(string_agg(rpad(w, 12), '' ORDER BY i), 'UTF8'), count(*) INTO blob, n FROM bench_vocab;
	EXECUTE format('CREATE FUNCTION bench_word(k bigint) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS %L',
				   format('SELECT rtrim(encode(substring(%L::bytea FROM 12 * ((hashint8extended(k, 5) & 2147483647) %% %s)::int + 1 FOR 12), ''escape''))',
						  blob, n));
END $$;

CREATE UNLOGGED TABLE bench_text (id bigint NOT NULL, body text NOT NULL);
INSERT INTO bench_text
SELECT s.g,
	   CASE WHEN s.g % 20 <> 0 THEN t.body
			ELSE CASE (s.g / 20) % 5
				WHEN 0 THEN t.body
				WHEN 1 THEN array_to_string(w[1:p - 1] || bench_word(s.g * 4 + 1) || w[p + 1:], ' ')
				WHEN 2 THEN t.body || ' ' || bench_word(s.g * 4 + 1)
				WHEN 3 THEN array_to_string(w[1:cardinality(w) - 1], ' ')
				ELSE array_to_string(w[1:p - 1] || bench_word(s.g * 4 + 1) || w[p + 1:q - 1]
									 || bench_word(s.g * 4 + 2) || w[q + 1:], ' ')
			END
	   END
FROM (SELECT g,
			 CASE WHEN g % 20 <> 0 THEN g
				  ELSE greatest(1, (hashint8extended(g, 11) & 2147483647) % (g - 1) + 1)
			 END AS src
	  FROM generate_series(1, :rows) g) s
CROSS JOIN LATERAL (
	SELECT array_to_string(ARRAY(
		SELECT bench_word(s.src * 64 + i)
		FROM generate_series(1, 10 + ((hashint8extended(s.src, 6) & 2147483647) % 16)::int) i), ' ') AS body) t
CROSS JOIN LATERAL (SELECT string_to_array(t.body, ' ') AS w) a
CROSS JOIN LATERAL (SELECT 1 + ((hashint8extended(s.g, 12) & 2147483647) % cardinality(a.w))::int AS p,
						   1 + ((hashint8extended(s.g, 13) & 2147483647) % cardinality(a.w))::int AS q0) b
CROSS JOIN LATERAL (SELECT CASE WHEN b.q0 > b.p THEN b.q0 ELSE cardinality(a.w) + 1 END AS q) c;
