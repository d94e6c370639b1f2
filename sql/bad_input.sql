--
-- Bad input, swept across every SQL-callable function and every type of the
-- extension: malformed, truncated and oversized literals; random and
-- corrupted bytes to every binary receive function (through COPY FORMAT
-- binary); NULLs, empty strings, zero, negative and extreme values for every
-- parameter; a few-MB document and documents of one repeated token; invalid
-- operator class options; databases in LATIN1 and SQL_ASCII.  Every error
-- must be an ereport with a specific SQLSTATE (22P02 bad literal, 22P03 bad
-- binary value, 22023 bad parameter, 54000 limit, ...): never a crash,
-- never XX000.  The 100 MB documents are in test/bench/reliability/big_document.sh.
--
\getenv abs_builddir PG_ABS_BUILDDIR
\set recv_file :abs_builddir '/results/bad_input_recv.bin'
SET client_min_messages = warning;
CREATE SCHEMA bad_input;

-- try(sql): 'ok <first 60 characters of the sorted rows>' or '<SQLSTATE> <message>'
-- (the body is kept in :try_body to define try() in other databases too)
SELECT $$
DECLARE
	r text;
BEGIN
	IF q ~* '^\s*(select|values|with)\M' THEN
		EXECUTE format('SELECT string_agg(t::text, '' | '' ORDER BY t::text) FROM (%s) t', q) INTO r;
		RETURN 'ok ' || coalesce(left(r, 60), 'NULL');
	END IF;
	EXECUTE q;
	RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
	RETURN SQLSTATE || ' ' || left(SQLERRM, 160);
END
$$ AS try_body \gset
CREATE FUNCTION bad_input.try(q text) RETURNS text LANGUAGE plpgsql AS :'try_body';

-- the kind of an outcome: 'ok', or the SQLSTATE and the message up to its
-- first quoted value, numbers replaced by N
CREATE FUNCTION bad_input.kind(outcome text) RETURNS text LANGUAGE sql IMMUTABLE
	RETURN CASE WHEN outcome LIKE 'ok%' THEN 'ok'
		ELSE left(outcome, 6) || regexp_replace(regexp_replace(substr(outcome, 7), '(: |")(.|\n)*$', ''),
												'\m[0-9]+(\.[0-9]+)?\M', 'N', 'g') END;

--
-- 1. Inventory: the functions of the extension.  Those with an internal
-- argument (index, aggregate and planner support) cannot be called from SQL
-- (no value of type internal can be written); every other one is swept in
-- section 4, the receive functions in section 3.
--
CREATE VIEW bad_input.functions AS
SELECT p.oid, p.oid::regprocedure AS signature, p.proname::text AS name, p.prokind, p.proisstrict,
       p.proretset, p.pronargs,
       'internal'::regtype = ANY (p.proargtypes::regtype[]) AS internal_arg
FROM pg_proc p
JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'nddup';
SELECT count(*) AS functions,
       count(*) FILTER (WHERE internal_arg) AS internal_argument,
       count(*) FILTER (WHERE NOT internal_arg) AS callable,
       count(*) FILTER (WHERE prokind = 'a') AS aggregates
FROM bad_input.functions;
SELECT signature AS not_callable_from_sql FROM bad_input.functions WHERE internal_arg
ORDER BY signature::text;
-- refused by the server before nddup is called (42846 on 15.20, 0A000 on 15.18)
SELECT left(bad_input.try('SELECT simhash64_recv(NULL::internal)'), 5) IN ('42846', '0A000')
	AS internal_literal_refused;

--
-- 2. Literals of every type: every prefix of a valid literal, every
-- character of it replaced, then malformed and oversized literals one by one
--
CREATE TABLE bad_input.literals (typ text, literal text);
INSERT INTO bad_input.literals
SELECT 'simhash64', '0x0123456789ABCDEF'
UNION ALL SELECT 'hamming_ball', '0123456789abcdef/12'
UNION ALL SELECT 'shingleset', shingle_set('a rose is a rose is a rose', 2)::text
UNION ALL SELECT 'shingleset', shingle_bottom('a rose is a rose is a rose', 2, 2)::text
UNION ALL SELECT 'shingleset', shingle_mod('a rose is a rose is a rose', 2, 2)::text
UNION ALL SELECT 'minhash_sketch', minhash('a rose is a rose is a rose', 4, 'kperm')::text
UNION ALL SELECT 'minhash_sketch', minhash('a rose', 6, 'oph')::text
UNION ALL SELECT 'minhash_sketch', minhash_bbit(minhash('a rose is a rose', 4, 'kperm'), 2)::text
UNION ALL SELECT 'minhash_sketch', minhash('', 3)::text
UNION ALL SELECT 'imatch_lexicon', imatch_lexicon_agg(d)::text
          FROM unnest(ARRAY['a b c', 'b c d', 'c d e', 'd e f']) AS d
UNION ALL SELECT 'imatch_lexicon', 'df ndocs=3 drop_frequent=-1 drop_rare=-1: 0000000000000001:1 0000000000000002:3'
UNION ALL SELECT 'shingle_filter', shingle_filter_agg(d, 1, 0)::text
          FROM unnest(ARRAY['a rose is a rose', 'a rose is red', 'is a rose']) AS d
UNION ALL SELECT 'minhash_query', similar_to(minhash('a rose is a rose', 3, 'kperm'), 0.5)::text
UNION ALL SELECT 'shingleset_query', containing(shingle_mod('a rose is a rose', 2, 2), 0.25)::text;
SELECT typ, literal FROM bad_input.literals ORDER BY typ, literal;

-- every prefix (the literal cut after n characters)
SELECT l.typ, bad_input.kind(bad_input.try(format('SELECT %L::%s', left(l.literal, n), l.typ))) AS outcome,
       count(*)
FROM bad_input.literals l, generate_series(0, length(l.literal) - 1) AS n
GROUP BY 1, 2 ORDER BY 1, 2;
-- every character replaced by 'z' and by a space
SELECT l.typ, bad_input.kind(bad_input.try(format('SELECT %L::%s',
           overlay(l.literal PLACING c FROM n FOR 1), l.typ))) AS outcome,
       count(*)
FROM bad_input.literals l, generate_series(1, length(l.literal)) AS n, unnest(ARRAY['z', ' ']) AS c
WHERE substr(l.literal, n, 1) <> c
GROUP BY 1, 2 ORDER BY 1, 2;

-- malformed and oversized literals
SELECT typ, left(literal, 70) AS literal, bad_input.try(format('SELECT %L::%s', literal, typ)) AS outcome
FROM (VALUES
	('simhash64', ''), ('simhash64', ' 0123456789abcdef'), ('simhash64', '0123456789abcdef '),
	('simhash64', '0x'), ('simhash64', '0X0123456789abcdef'), ('simhash64', '0x0x0123456789abcdef'),
	('simhash64', '-123456789abcdef'), ('simhash64', '0123456789abcdeg'), ('simhash64', repeat('f', 17)),
	('simhash64', repeat('f', 1000000)), ('simhash64', 'ÿÿÿÿÿÿÿÿ'), ('simhash64', '１２３４５６７８９０１２３４５６'),
	('hamming_ball', '/3'), ('hamming_ball', '0123456789abcdef/'), ('hamming_ball', '0123456789abcdef'),
	('hamming_ball', '0123456789abcdef/65'), ('hamming_ball', '0123456789abcdef/-1'),
	('hamming_ball', '0123456789abcdef/99999999999999999999'), ('hamming_ball', '0123456789abcdef/ 3'),
	('hamming_ball', '0123456789abcdef/3 '), ('hamming_ball', '0123456789abcdef/+3'),
	('hamming_ball', '0123456789abcdef/0x3'), ('hamming_ball', '0123456789abcdef/3/4'),
	('hamming_ball', 'xyz/3'), ('hamming_ball', repeat('0', 100000) || '/3'),
	('shingleset', ''), ('shingleset', 'exact'), ('shingleset', 'exact size=3 unit=word n=0:'),
	('shingleset', 'exact size=0 unit=word n=0:'), ('shingleset', 'exact size=65 unit=word n=0:'),
	('shingleset', 'exact size=99999999999999999999 unit=word n=0:'),
	('shingleset', 'exact size=3 unit=WORD n=0:'), ('shingleset', 'exact size=3 unit=word n=1:'),
	('shingleset', 'exact size=3 unit=word n=18446744073709551615:'),
	('shingleset', 'exact size=3 unit=word n=18446744073709551616:'),
	('shingleset', 'exact size=3 unit=word n=2: 2 1'), ('shingleset', 'exact size=3 unit=word n=2: 1 1'),
	('shingleset', 'exact size=3 unit=word n=1: 00000000000000001'),
	('shingleset', 'exact size=3 unit=word n=1: -1'), ('shingleset', 'exact size=3 unit=word n=1: 1,'),
	('shingleset', 'exact s=2 size=3 unit=word n=0:'), ('shingleset', 'bottom size=3 unit=word n=0:'),
	('shingleset', 'bottom s=0 size=3 unit=word n=0:'), ('shingleset', 'bottom s=1000001 size=3 unit=word n=0:'),
	('shingleset', 'bottom s=2 size=3 unit=word n=3: 1'), ('shingleset', 'bottom s=2 size=3 unit=word n=3: 1 2 3'),
	('shingleset', 'mod m=0 size=3 unit=word n=0:'), ('shingleset', 'mod m=2147483648 size=3 unit=word n=0:'),
	('shingleset', 'mod m=2 size=3 unit=word n=3: 3'), ('shingleset', 'mod m=2 size=3 unit=word n=1: 2 4'),
	('shingleset', 'exact size=3 unit=word n=200000:' || (SELECT string_agg(' ' || to_hex(g), '') FROM generate_series(1, 200000) g)),
	('minhash_sketch', ''), ('minhash_sketch', 'kperm k=1 seed=0 size=3 unit=word bits=32:'),
	('minhash_sketch', 'kperm k=0 seed=0 size=3 unit=word bits=32:'),
	('minhash_sketch', 'kperm k=1025 seed=0 size=3 unit=word bits=32:'),
	('minhash_sketch', 'kperm k=65537 seed=0 size=3 unit=word bits=32: 1'),
	('minhash_sketch', 'kperm k=1 seed=4294967296 size=3 unit=word bits=32: 1'),
	('minhash_sketch', 'kperm k=1 seed=0 size=3 unit=word bits=3: 1'),
	('minhash_sketch', 'kperm k=1 seed=0 size=3 unit=word bits=64: 1'),
	('minhash_sketch', 'kperm k=2 seed=0 size=3 unit=word bits=32: 1'),
	('minhash_sketch', 'kperm k=1 seed=0 size=3 unit=word bits=32: 1 2'),
	('minhash_sketch', 'kperm k=1 seed=0 size=3 unit=word bits=32: ffffffff'),
	('minhash_sketch', 'kperm k=1 seed=0 size=3 unit=word bits=32: 100000000'),
	('minhash_sketch', 'kperm k=1 seed=0 size=3 unit=word bits=32: *1'),
	('minhash_sketch', 'oph k=2 seed=0 size=3 unit=word bits=32: *1 *1'),
	('minhash_sketch', 'oph k=2 seed=0 size=3 unit=word bits=8: *1 1'),
	('minhash_sketch', 'kperm k=1 seed=0 size=3 unit=word bits=1: 2'),
	('minhash_sketch', 'kperm k=2 seed=0 size=3 unit=word bits=32: empty x'),
	('minhash_sketch', 'kperm k=2 seed=0 size=3 unit=word bits=32: ffffffff ffffffff'),
	('minhash_sketch', 'oph k=1024 seed=0 size=64 unit=char bits=32:' || repeat(' 1', 1024)),
	('imatch_lexicon', ''), ('imatch_lexicon', 'lexicon ndocs=1 drop_frequent=0.1 drop_rare=0.1:'),
	('imatch_lexicon', 'lexicon ndocs=-1 drop_frequent=0.1 drop_rare=0.1:'),
	('imatch_lexicon', 'lexicon ndocs=1 drop_frequent=0.6 drop_rare=0.5:'),
	('imatch_lexicon', 'lexicon ndocs=1 drop_frequent=-0.1 drop_rare=0.1:'),
	('imatch_lexicon', 'lexicon ndocs=1 drop_frequent=nan drop_rare=0.1:'),
	('imatch_lexicon', 'lexicon ndocs=1 drop_frequent=inf drop_rare=-inf:'),
	('imatch_lexicon', 'lexicon ndocs=99999999999999999999 drop_frequent=0.1 drop_rare=0.1:'),
	('imatch_lexicon', 'lexicon ndocs=1 drop_frequent=0.1 drop_rare=0.1: 2 1'),
	('imatch_lexicon', 'lexicon ndocs=1 drop_frequent=0.1 drop_rare=0.1: 12345678901234567'),
	('imatch_lexicon', 'lexicon ndocs=1 drop_frequent=0.1 drop_rare=0.1: 1:1'),
	('imatch_lexicon', 'df ndocs=1 drop_frequent=-1 drop_rare=-1: 1'),
	('imatch_lexicon', 'df ndocs=1 drop_frequent=-1 drop_rare=-1: 1:0'),
	('imatch_lexicon', 'df ndocs=1 drop_frequent=-1 drop_rare=-1: 1:2'),
	('imatch_lexicon', 'df ndocs=1 drop_frequent=-1 drop_rare=-1: 1:99999999999999999999'),
	('imatch_lexicon', 'df ndocs=1 drop_frequent=0.5 drop_rare=-3: 1:1'),
	('imatch_lexicon', 'df ndocs=1 drop_frequent=inf drop_rare=inf: 1:1'),
	('imatch_lexicon', 'df ndocs=1 drop_frequent=nan drop_rare=0: 1:1'),
	('minhash_query', ''), ('minhash_query', 'jaccard>=0.5'), ('minhash_query', 'jaccard>=0.5 '),
	('minhash_query', 'jaccard>= kperm k=1 seed=0 size=3 unit=word bits=32: 1'),
	('minhash_query', 'jaccard>=1.5 kperm k=1 seed=0 size=3 unit=word bits=32: 1'),
	('minhash_query', 'jaccard>=-0 kperm k=1 seed=0 size=3 unit=word bits=32: 1'),
	('minhash_query', 'jaccard>=nan kperm k=1 seed=0 size=3 unit=word bits=32: 1'),
	('minhash_query', 'jaccard>=1e999 kperm k=1 seed=0 size=3 unit=word bits=32: 1'),
	('minhash_query', 'jaccard>=0.5kperm k=1 seed=0 size=3 unit=word bits=32: 1'),
	('minhash_query', 'containment>=0.5 kperm k=1 seed=0 size=3 unit=word bits=32: 1'),
	('minhash_query', 'jaccard>=0.5 exact size=3 unit=word n=0:'),
	('shingleset_query', 'containment>=0.5 bottom s=2 size=3 unit=word n=0:'),
	('shingleset_query', 'containment>=0.5 exact size=3 unit=word n=0:'),
	('shingleset_query', 'jaccard>=2 exact size=3 unit=word n=0:'),
	('shingleset_query', 'jaccard>=0.5 kperm k=1 seed=0 size=3 unit=word bits=32: 1'),
	('shingle_filter', ''), ('shingle_filter', 'filter'),
	('shingle_filter', 'filter size=3 unit=word min_docs=1 share=0 ndocs=0 cutoff=1 error=0 n=0:'),
	('shingle_filter', 'filter size=3 unit=word_ min_docs=1 share=0 ndocs=0 cutoff=1 error=0 n=0:'),
	('shingle_filter', 'filter size=0 unit=word min_docs=1 share=0 ndocs=0 cutoff=1 error=0 n=0:'),
	('shingle_filter', 'filter size=65 unit=word min_docs=1 share=0 ndocs=0 cutoff=1 error=0 n=0:'),
	('shingle_filter', 'filter size=3 unit=WORD min_docs=1 share=0 ndocs=0 cutoff=1 error=0 n=0:'),
	('shingle_filter', 'filter size=3 unit=word min_docs=1 share=1.5 ndocs=0 cutoff=1 error=0 n=0:'),
	('shingle_filter', 'filter size=3 unit=word min_docs=1 share=nan ndocs=0 cutoff=1 error=0 n=0:'),
	('shingle_filter', 'filter size=3 unit=word min_docs=1 share=0.5 ndocs=10 cutoff=1 error=0 n=0:'),
	('shingle_filter', 'filter size=3 unit=word min_docs=1 share=0 ndocs=1 cutoff=1 error=2 n=0:'),
	('shingle_filter', 'filter size=3 unit=word min_docs=1 share=0 ndocs=99999999999999999999 cutoff=1 error=0 n=0:'),
	('shingle_filter', 'filter size=3 unit=word min_docs=1 share=0 ndocs=2 cutoff=1 error=0 n=1:'),
	('shingle_filter', 'filter size=3 unit=word min_docs=1 share=0 ndocs=2 cutoff=1 error=0 n=2: 2 1'),
	('shingle_filter', 'filter size=3 unit=word min_docs=1 share=0 ndocs=2 cutoff=1 error=0 n=2: 1 1'),
	('shingle_filter', 'filter size=3 unit=word min_docs=1 share=0 ndocs=2 cutoff=1 error=0 n=1: 00000000000000001'),
	('shingle_filter', 'filter size=3 unit=word min_docs=1 share=0 ndocs=2 cutoff=1 error=0 n=1: -1'),
	('shingle_filter', 'filter size=3 unit=word min_docs=1 share=0 ndocs=2 cutoff=1 error=0 n=16000001:'),
	('shingle_filter', 'filter size=3 unit=word min_docs=1 share=0 ndocs=2 cutoff=1 error=0 n=200000:' || (SELECT string_agg(' ' || to_hex(g), '') FROM generate_series(1, 200000) g))
) AS t(typ, literal);

--
-- 3. Binary input: random, truncated, extended and corrupted bytes to every
-- receive function.  COPY (SELECT payload::bytea) TO file (FORMAT binary)
-- writes exactly the binary COPY file of a one-column table whose field is
-- the payload, so COPY ... FROM that file hands the payload to the column
-- type's receive function.  An accepted value is "canonical" when its text
-- form is accepted by the input function and sent gives the payload again
-- (one representation per value: equality and hashing compare the bytes).
--
SET bad_input.recv_file = :'recv_file';
CREATE FUNCTION bad_input.recv(typ text, payload bytea) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	f text := current_setting('bad_input.recv_file');
	tbl text := 'recv_' || typ;
	sendfn regproc := (SELECT typsend FROM pg_type WHERE oid = typ::regtype);
	value text;
	back bytea;
BEGIN
	EXECUTE format('CREATE TEMP TABLE IF NOT EXISTS %I (v %s)', tbl, typ);
	EXECUTE format('TRUNCATE %I', tbl);
	EXECUTE format('COPY (SELECT %L::bytea) TO %L (FORMAT binary)', payload, f);
	EXECUTE format('COPY %I FROM %L (FORMAT binary)', tbl, f);
	EXECUTE format('SELECT v::text FROM %I', tbl) INTO value;
	BEGIN
		EXECUTE format('SELECT %s(%L::%s)', sendfn, value, typ) INTO back;
	EXCEPTION WHEN OTHERS THEN
		RETURN 'ok, text form rejected: ' || value || ': ' || SQLERRM;
	END;
	RETURN CASE WHEN back = payload THEN 'ok, canonical' ELSE 'ok, not canonical: ' || value END;
EXCEPTION WHEN OTHERS THEN
	RETURN SQLSTATE || ' ' || left(SQLERRM, 160);
END
$$;
-- n deterministic pseudo-random bytes from a seed
CREATE FUNCTION bad_input.random_bytes(seed text, n integer) RETURNS bytea LANGUAGE sql IMMUTABLE
	RETURN substr((SELECT string_agg(sha256(convert_to(seed || ':' || i, 'UTF8')), ''::bytea ORDER BY i)
				   FROM generate_series(0, n / 32) AS i), 1, n);

-- valid values of every type with a receive function, as their send functions give them
CREATE TABLE bad_input.payloads AS
SELECT typ, label, payload FROM (VALUES
	('simhash64', 'fingerprint', simhash64_send('0123456789abcdef')),
	('hamming_ball', 'radius 5', hamming_ball_send('0123456789abcdef/5')),
	('shingleset', 'exact', shingleset_send(shingle_set('a rose is a rose is a rose', 2))),
	('shingleset', 'bottom-2', shingleset_send(shingle_bottom('a rose is a rose is a rose', 2, 2))),
	('shingleset', 'mod-2', shingleset_send(shingle_mod('a rose is a rose is a rose', 2, 2))),
	('shingleset', 'empty', shingleset_send(shingle_set(''))),
	('minhash_sketch', 'kperm k=3', minhash_send(minhash('a rose is a rose', 3, 'kperm'))),
	('minhash_sketch', 'oph k=6', minhash_send(minhash('a rose', 6, 'oph'))),
	('minhash_sketch', 'oph k=3 2-bit', minhash_send(minhash_bbit(minhash('a rose is a rose', 3), 2))),
	('minhash_sketch', 'oph k=2 empty', minhash_send(minhash('', 2))),
	('imatch_lexicon', 'lexicon', imatch_lexicon_send('lexicon ndocs=4 drop_frequent=0.1 drop_rare=0.1: 01 02')),
	('imatch_lexicon', 'df', imatch_lexicon_send('df ndocs=3 drop_frequent=-1 drop_rare=-1: 01:1 02:3')),
	('shingle_filter', 'two shingles', shingle_filter_send('filter size=3 unit=word min_docs=1 share=0.25 ndocs=9 cutoff=2 error=0 n=2: 01 8000000000000000')),
	('shingle_filter', 'empty', shingle_filter_send('filter size=1 unit=char min_docs=20 share=0.002 ndocs=0 cutoff=20 error=0 n=0:'))
) AS t(typ, label, payload);
SELECT typ, label, payload, bad_input.recv(typ, payload) AS outcome FROM bad_input.payloads ORDER BY typ, label;

CREATE TABLE bad_input.recv_cases AS
-- every truncation
SELECT typ, 'truncated' AS mutation, substr(payload, 1, n) AS payload
FROM bad_input.payloads, generate_series(0, length(payload) - 1) AS n
-- one byte more: a zero, or a copy of the last one
UNION ALL SELECT typ, 'extended', payload || '\x00'::bytea FROM bad_input.payloads
UNION ALL SELECT typ, 'extended', payload || substr(payload, length(payload)) FROM bad_input.payloads
WHERE length(payload) > 0
-- every byte replaced by 0x00, 0x80 and 0xff
UNION ALL SELECT typ, 'byte replaced', set_byte(payload, n, b)
FROM bad_input.payloads, generate_series(0, length(payload) - 1) AS n, unnest(ARRAY[0, 128, 255]) AS b
WHERE get_byte(payload, n) <> b
-- random bytes of every length up to 64, and random bytes after a valid header
UNION ALL SELECT typ, 'random', bad_input.random_bytes(typ || n, n)
FROM (SELECT DISTINCT typ FROM bad_input.payloads) t, generate_series(0, 64) AS n
UNION ALL SELECT typ, 'random after a valid header',
       substr(payload, 1, CASE typ WHEN 'minhash_sketch' THEN 12 WHEN 'shingleset' THEN 20 ELSE 22 END)
       || bad_input.random_bytes(label || n, n)
FROM bad_input.payloads, generate_series(0, 40) AS n
WHERE typ IN ('minhash_sketch', 'shingleset', 'imatch_lexicon');
ALTER TABLE bad_input.recv_cases ADD COLUMN outcome text;
UPDATE bad_input.recv_cases SET outcome = bad_input.recv(typ, payload);
SELECT typ, mutation, bad_input.kind(outcome) AS outcome, count(*)
FROM bad_input.recv_cases GROUP BY 1, 2, 3 ORDER BY 1, 2, 3;
-- the accepted corruptions whose text form is rejected, or that are not the
-- canonical form of their value
SELECT typ, mutation, payload, outcome FROM bad_input.recv_cases
WHERE outcome LIKE 'ok, not canonical%' OR outcome LIKE 'ok, text form rejected%'
ORDER BY 1, 2, 3;

-- arrays: array_recv hands each element's bytes to the element's receive
-- function; the first element's length (bytes 21-24 of array_send's form)
-- set to 7 and to 13 for simhash64[], to 5 for minhash_sketch[]
CREATE TEMP TABLE recv_arrays (s simhash64[], m minhash_sketch[]);
SELECT col, len, bad_input.try(format('COPY recv_arrays (%s) FROM %L (FORMAT binary)', col, :'recv_file')) AS outcome
FROM (VALUES ('s', 7, array_send('{0123456789abcdef,fedcba9876543210}'::simhash64[])),
			 ('s', 13, array_send('{0123456789abcdef,fedcba9876543210}'::simhash64[])),
			 ('m', 5, array_send(ARRAY[minhash('a b c', 2, 'kperm'), minhash('b c d', 2, 'kperm')]))) AS t(col, len, a),
	LATERAL bad_input.try(format('COPY (SELECT %L::bytea) TO %L (FORMAT binary)',
		overlay(a PLACING int4send(len) FROM 21 FOR 4), :'recv_file')) AS w;

--
-- 4. Every parameter of every callable function: a call with valid
-- arguments, then the same call with one argument replaced by each bad
-- value of its type (NULL only for functions that are not STRICT: STRICT
-- ones are not called on NULL).  Valid values are chosen by function and
-- argument name, by argument name, or by type; bad values by argument name
-- or by type.
--
CREATE TABLE bad_input.docs AS
SELECT g::bigint AS id, d AS body, simhash(d) AS fp, minhash(d, 16) AS mh,
       super_shingles(minhash(d, 16, 'kperm'), 2, 8) AS ss, shingle_set(d) AS sset
FROM unnest(ARRAY['the quick brown fox jumps over the lazy dog',
                  'the quick brown fox jumps over the lazy cat',
                  'lorem ipsum dolor sit amet', 'lorem ipsum dolor sit amet',
                  '']) WITH ORDINALITY AS t(d, g);
CREATE TABLE bad_input.posts (id bigserial PRIMARY KEY, body text,
	fp simhash64 GENERATED ALWAYS AS (simhash(body)) STORED, duplicate_of bigint);
CREATE TRIGGER dedup BEFORE INSERT ON bad_input.posts FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=fp', 'source=body', 'radius=3');
CREATE TABLE bad_input.posts_keys (key bigint, id bigint, sig simhash64);
CREATE TABLE bad_input.empty_table (id bigint, body text, fp simhash64, mh minhash_sketch, sset shingleset);
CREATE INDEX bad_input_docs_ham ON bad_input.docs USING hamming (fp);
-- judged pairs (nddup_calibrate, nddup_pairs_to_judge's judged); a table only
-- nddup_decide writes decisions for, and one whose decision nddup_decision reads
-- (their long column names keep the decision's author and time, and the radius
-- a withdrawal returns, out of the outcome)
CREATE TABLE bad_input.labels (a_id bigint, b_id bigint, similarity float8, stratum integer,
	stratum_pairs bigint, is_duplicate boolean);
INSERT INTO bad_input.labels VALUES (1, 2, 0.8, 15, 4, true), (4, 5, 0.95, 17, 2, true),
	(1, 3, 0.15, 0, 6, false), (2, 3, 0.3, 4, 3, false), (1, 4, 0.55, 9, 2, false), (2, 4, 0.6, 10, 2, true);
CREATE TABLE bad_input.decided (id bigint, body text, fingerprint_of_the_body_as_decided simhash64);
CREATE TABLE bad_input.kept (id bigint, body text, sketch_computed_from_the_body minhash_sketch);
INSERT INTO bad_input.kept SELECT id, body, minhash(body, 16) FROM bad_input.docs;
SELECT column_name, method FROM nddup_decide('bad_input.kept', 'sketch_computed_from_the_body', 0.5,
	source_column => 'body');
CREATE TABLE bad_input.good (fname text, argname text, typ regtype, expr text);
INSERT INTO bad_input.good VALUES
	('', 'doc', 'text', '''The quick brown fox jumps over the lazy dog'''),
	('', 'feature', 'text', '''fox'''), ('', '', 'text', '''the quick brown fox'''),
	('', 'unit', 'text', '''word'''), ('', 'method', 'text', '''oph'''), ('', 'weighting', 'text', '''tf'''),
	('', 'size', 'integer', '2'), ('', 'k', 'integer', '16'), ('', 's', 'integer', '4'),
	('', 'm', 'integer', '2'), ('', 'seed', 'integer', '7'), ('', 'bits', 'integer', '8'),
	('', 'groups', 'integer', '2'), ('', 'group_size', 'integer', '8'), ('', 'r', 'integer', '1'),
	('', 'n', 'integer', '2'), ('', 'radius', 'integer', '3'), ('', 'bands', 'integer', '4'),
	('', 'rows', 'integer', '4'), ('', 'bands', 'bigint', '4'), ('', 'rows', 'bigint', '4'),
	('', 'threshold', 'double precision', '0.5'), ('', 'threshold', 'text', '''0.5'''),
	('', 'drop', 'double precision', '0.2'),
	('', 'drop_frequent', 'double precision', '0.1'), ('', 'drop_rare', 'double precision', '0.1'),
	('', 'weight', 'double precision', '1.5'),
	('', 'rel', 'regclass', '''bad_input.docs'''), ('', 'id_column', 'name', '''id'''),
	('', 'rel', 'text', '''bad_input.docs'''), ('', 'radius', 'double precision', '3'),
	('', 'fp_column', 'name', '''fp'''), ('', 'sketch_column', 'name', '''mh'''),
	('', 'order_column', 'name', '''id'''), ('', 'singletons', 'boolean', 'true'),
	('', 'set_column', 'name', '''sset'''), ('', 'verify_column', 'name', '''body'''),
	('', 'measure', 'text', '''jaccard'''), ('', 'mode', 'text', '''greedy'''),
	('', 'query', 'text', '''SELECT id, fp FROM bad_input.docs'''),
	('', 'query_a', 'text', '''SELECT id, fp FROM bad_input.docs'''),
	('', 'query_b', 'text', '''SELECT id, fp FROM bad_input.docs'''),
	('', 'new_query', 'text', '''SELECT id, fp FROM bad_input.docs WHERE id > 2'''),
	('', 'existing_query', 'text', '''SELECT id, fp, id AS cluster_id FROM bad_input.docs WHERE id <= 2'''),
	('minhash_pairs', 'query', 'text', '''SELECT id, mh FROM bad_input.docs'''),
	('minhash_join', 'query_a', 'text', '''SELECT id, mh FROM bad_input.docs'''),
	('minhash_join', 'query_b', 'text', '''SELECT id, mh FROM bad_input.docs'''),
	('minhash_clusters', 'query', 'text', '''SELECT id, mh FROM bad_input.docs'''),
	('super_shingle_pairs', 'query', 'text', '''SELECT id, ss FROM bad_input.docs'''),
	('shingleset_pairs', 'query', 'text', '''SELECT id, sset FROM bad_input.docs'''),
	('shingleset_join', 'query_a', 'text', '''SELECT id, sset FROM bad_input.docs'''),
	('shingleset_join', 'query_b', 'text', '''SELECT id, sset FROM bad_input.docs'''),
	('shingleset_clusters', 'query', 'text', '''SELECT id, sset FROM bad_input.docs'''),
	('hamming_pairs', 'query', 'text', '''SELECT id, fp, body FROM bad_input.docs'''),
	('hamming_join', 'query_a', 'text', '''SELECT id, fp, body FROM bad_input.docs'''),
	('hamming_join', 'query_b', 'text', '''SELECT id, fp, body FROM bad_input.docs'''),
	('hamming_clusters', 'query', 'text', '''SELECT id, fp, body FROM bad_input.docs'''),
	('minhash_pairs', 'verify', 'double precision', 'NULL'),
	('minhash_join', 'verify', 'double precision', 'NULL'),
	('minhash_clusters', 'verify', 'double precision', 'NULL'),
	('clusters_from_pairs', 'query', 'text', '''SELECT 1::bigint, 2::bigint'''),
	('nddup_check_trigger', 'rel', 'regclass', '''bad_input.posts'''),
	('hamming_index_stats', 'index', 'regclass', '''bad_input.bad_input_docs_ham'''),
	('nddup_recommend_threshold', 'column_name', 'name', '''mh'''),
	('nddup_recommend_threshold', 'sample_size', 'integer', '100'),
	('', 'args', 'text[]', 'NULL'),
	('', 'features', 'text[]', '''{quick,brown,fox}'''), ('', 'weights', 'real[]', '''{1,2,0.5}'''),
	('', '', 'tsvector', '''quick:1 brown:2 fox:3,4'''),
	('', '', 'bit', '''x0123456789abcdef''::bit(64)'),
	('', '', 'bigint', '0'), ('', '', 'integer', '3'), ('', '', 'double precision', '0.5'),
	('', '', 'simhash64', '''0123456789abcdef'''),
	('', '', 'hamming_ball', '''0123456789abcdef/3'''),
	('', '', 'shingleset', 'shingle_set(''the quick brown fox jumps over the lazy dog'')'),
	('', '', 'minhash_sketch', 'minhash(''the quick brown fox jumps over the lazy dog'', 16)'),
	('super_shingles', 'sketch', 'minhash_sketch', 'minhash(''the quick brown fox'', 16, ''kperm'')'),
	('', '', 'bigint[]', 'super_shingles(minhash(''the quick brown fox'', 16, ''kperm''), 2, 8)'),
	('', '', 'imatch_lexicon', '(SELECT imatch_lexicon_agg(d) FROM unnest(ARRAY[''quick fox'', ''quick dog'', ''lazy dog'']) AS d)'),
	('', '', 'shingle_filter', '(SELECT shingle_filter_agg(d, 1, 0) FROM unnest(ARRAY[''the quick brown fox'', ''the quick brown dog'']) AS d)'),
	('shingle_filter_in', '', 'cstring', '''filter size=3 unit=word min_docs=1 share=0 ndocs=2 cutoff=1 error=0 n=1: 01'''),
	('shingle_filter_agg', 'min_docs', 'integer', '1'), ('shingle_filter_agg', 'share', 'double precision', '0'),
	('imatch_df_transfn', '', 'imatch_lexicon', '''df ndocs=1 drop_frequent=-1 drop_rare=-1: 01:1'''),
	('imatch_df_combinefn', '', 'imatch_lexicon', '''df ndocs=1 drop_frequent=-1 drop_rare=-1: 01:1'''),
	('imatch_lexicon_finalfn', '', 'imatch_lexicon', '''df ndocs=3 drop_frequent=0.2 drop_rare=0.2: 01:1 02:2 03:3 04:1 05:2'''),
	('', '', 'minhash_query', 'similar_to(minhash(''the quick brown fox jumps over the lazy dog'', 16), 0.5)'),
	('', '', 'shingleset_query', 'containing(shingle_set(''the quick brown fox jumps over the lazy dog''), 0.5)'),
	('simhash64_in', '', 'cstring', '''0123456789abcdef'''),
	('hamming_ball_in', '', 'cstring', '''0123456789abcdef/3'''),
	('shingleset_in', '', 'cstring', '''exact size=3 unit=word n=1: 01'''),
	('minhash_in', '', 'cstring', '''kperm k=1 seed=0 size=3 unit=word bits=32: 01'''),
	('imatch_lexicon_in', '', 'cstring', '''lexicon ndocs=1 drop_frequent=0.1 drop_rare=0.1: 01'''),
	('minhash_query_in', '', 'cstring', '''jaccard>=0.5 kperm k=1 seed=0 size=3 unit=word bits=32: 01'''),
	('shingleset_query_in', '', 'cstring', '''jaccard>=0.5 exact size=3 unit=word n=1: 01'''),
	('', 'blocks', 'integer', '5'), ('', 'fps', 'simhash64[]', '''{0123456789abcdef,0123456789abcdee}'''),
	('', 'sides', 'smallint[]', 'NULL'), ('nddup_hamming_key_group', 'mode', 'integer', '0'),
	('', '', 'tid', '''(0,1)'''),
	('', '', 'simhash_agg_state', '(''n=1'' || repeat('' 3ff0000000000000'', 64))::simhash_agg_state'),
	('simhash_agg_state_in', '', 'cstring', '(''n=1'' || repeat('' 3ff0000000000000'', 64))::cstring'),
	('nddup_original', 'rel', 'regclass', '''bad_input.posts'''),
	('nddup_original', 'args', 'text[]', '''{fingerprint=fp,source=body,radius=3}'''),
	('nddup_original', 'value', '"any"', '''the quick brown fox jumps over the lazy dog''::text'),
	('nddup_original', 'id_type', 'anyelement', 'NULL::bigint'),
	('nddup_original', 'scope', '"any"', '1'),
	('nddup_original_routed', 'rel', 'regclass', '''bad_input.posts'''),
	('nddup_original_routed', 'args', 'text[]', '''{fingerprint=fp,source=body,radius=3}'''),
	('nddup_original_routed', 'value', '"any"', '''the quick brown fox jumps over the lazy dog''::text'),
	('nddup_original_routed', 'id', 'anyelement', '1::bigint'),
	('nddup_original_routed', 'keys', 'regclass', '''bad_input.posts_keys'''),
	('', 'column_name', 'name', '''sset'''), ('', 'source_column', 'name', '''body'''),
	('', 'judged', 'regclass', '''bad_input.labels'''), ('', 'labels', 'regclass', '''bad_input.labels'''),
	('', 'floor', 'double precision', '0.1'), ('', 'strata', 'integer', '18'),
	('nddup_sample_pairs', 'pairs', 'text',
	 '''SELECT id1, id2, similarity FROM shingleset_pairs(''''SELECT id, sset FROM bad_input.docs'''', 0.1)'''),
	('nddup_calibrate', 'at_threshold', 'double precision', 'NULL'),
	('nddup_calibrate', 'min_precision', 'double precision', 'NULL'),
	('nddup_calibrate', 'bootstrap', 'integer', '20'),
	('nddup_calibrate', 'first_guess', 'double precision', 'NULL'),
	('nddup_decide', 'rel', 'regclass', '''bad_input.decided'''),
	('nddup_decide', 'column_name', 'name', '''fingerprint_of_the_body_as_decided'''),
	('nddup_decide', 'threshold', 'double precision', 'NULL'),
	('nddup_decision', 'rel', 'regclass', '''bad_input.kept'''),
	('nddup_decision', 'col', 'name', '''sketch_computed_from_the_body'''),
	('nddup_decision', 'check_rows', 'integer', '10');
CREATE TABLE bad_input.bad (argname text, typ regtype, expr text);
INSERT INTO bad_input.bad VALUES
	('', 'integer', '0'), ('', 'integer', '-1'), ('', 'integer', '2147483647'), ('', 'integer', '-2147483648'),
	('', 'bigint', '-9223372036854775808'),
	('bands', 'bigint', '0'), ('bands', 'bigint', '-1'), ('bands', 'bigint', '1025'),
	('bands', 'bigint', '9223372036854775807'),
	('rows', 'bigint', '0'), ('rows', 'bigint', '-1'), ('rows', 'bigint', '1025'),
	('rows', 'bigint', '9223372036854775807'),
	('', 'double precision', '-0.5'), ('', 'double precision', '1.5'), ('', 'double precision', '''NaN'''),
	('', 'double precision', '''Infinity'''), ('', 'double precision', '''-Infinity'''),
	('', 'double precision', '1e-300'),
	('doc', 'text', ''''''), ('doc', 'text', 'E''\u00a0\t'''), ('doc', 'text', '''<p>&amp;</p>'''),
	('feature', 'text', ''''''),
	('unit', 'text', ''''''), ('unit', 'text', '''WORD'''), ('unit', 'text', '''word '''),
	('method', 'text', ''''''), ('method', 'text', '''minhash'''),
	('weighting', 'text', ''''''), ('weighting', 'text', '''idf'''),
	('mode', 'text', ''''''), ('mode', 'text', '''components '''),
	('query', 'text', ''''''), ('query', 'text', '''SELECT'''), ('query', 'text', '''SELECT 1'''),
	('query', 'text', '''SELECT NULL::bigint, NULL::simhash64'''), ('query', 'text', '''SELECT 1; SELECT 2'''),
	('query', 'text', '''DELETE FROM bad_input.docs RETURNING id, fp'''), ('query', 'text', '''not sql'''),
	('query', 'text', '''SELECT id, fp FROM bad_input.empty_table'''),
	('query', 'text', '''SELECT id, id, id, id, id FROM bad_input.docs'''),
	('query_a', 'text', ''''''), ('query_a', 'text', '''SELECT 1'''),
	('query_b', 'text', ''''''), ('query_b', 'text', '''SELECT 1'''),
	('new_query', 'text', ''''''), ('new_query', 'text', '''SELECT 1'''),
	('existing_query', 'text', ''''''), ('existing_query', 'text', '''SELECT id, fp FROM bad_input.docs'''),
	('existing_query', 'text', '''SELECT id, fp, NULL::bigint FROM bad_input.docs'''),
	('pairs', 'text', ''''''), ('pairs', 'text', '''SELECT 1'''), ('pairs', 'text', '''not sql'''),
	('pairs', 'text', '''SELECT id, id + 1, ''''NaN''''::float8 FROM bad_input.docs'''),
	('', 'name', ''''''), ('', 'name', '''no_such_column'''), ('', 'name', '''body'''), ('', 'name', '''xmin'''),
	('', 'regclass', '''pg_class'''), ('', 'regclass', '''bad_input.empty_table'''),
	('', 'regclass', '''bad_input.docs_view'''), ('', 'regclass', '0'),
	('', 'text[]', '''{}'''), ('', 'text[]', '''{NULL}'''), ('', 'text[]', '''{{a,b},{c,d}}'''),
	('', 'text[]', '''{""}'''),
	('args', 'text[]', '''{bogus}'''), ('args', 'text[]', '''{radius=-1}'''), ('args', 'text[]', '''{fingerprint=body}'''),
	('', 'real[]', '''{}'''), ('', 'real[]', '''{NaN,1,1}'''), ('', 'real[]', '''{Infinity,1,1}'''),
	('', 'real[]', '''{NULL,1,1}'''), ('', 'real[]', '''{-1,-1,-1}'''), ('', 'real[]', '''{{1,2,3}}'''),
	('', 'bigint[]', '''{}'''), ('', 'bigint[]', '''{NULL,1}'''), ('', 'bigint[]', '''{{1,2},{3,4}}'''),
	('', 'bigint[]', '''{1}'''), ('', 'bigint[]', '(SELECT array_agg(g) FROM generate_series(1, 100) g)'),
	('', 'tsvector', ''''''), ('', 'tsvector', '''a:1,2,3,4,5,6,7,8,9 b'''),
	('', 'bit', 'B'''''), ('', 'bit', 'B''1'''), ('', 'bit', '''x0123456789abcdef0''::bit(68)'),
	('', 'cstring', ''''''), ('', 'cstring', '''garbage'''),
	('', 'simhash64', '''0000000000000000'''), ('', 'simhash64', '''ffffffffffffffff'''),
	('', 'hamming_ball', '''ffffffffffffffff/0'''), ('', 'hamming_ball', '''0000000000000000/64'''),
	('', 'shingleset', 'shingle_set('''')'), ('', 'shingleset', 'shingle_set(''a b c'', 2)'),
	('', 'shingleset', 'shingle_bottom(''the quick brown fox jumps'', 1)'),
	('', 'shingleset', 'shingle_mod(''the quick brown fox jumps'', 1000)'),
	('', 'minhash_sketch', 'minhash('''', 16)'), ('', 'minhash_sketch', 'minhash(''a b c'', 8)'),
	('', 'minhash_sketch', 'minhash(''a b c'', 16, ''kperm'')'),
	('', 'minhash_sketch', 'minhash_bbit(minhash(''a b c'', 16), 1)'),
	('', 'imatch_lexicon', '''lexicon ndocs=0 drop_frequent=0.1 drop_rare=0.1:'''),
	('', 'imatch_lexicon', '''df ndocs=1 drop_frequent=-1 drop_rare=-1: 01:1'''),
	('', 'shingle_filter', '''filter size=3 unit=word min_docs=1 share=0 ndocs=0 cutoff=1 error=0 n=0:'''),
	('', 'shingle_filter', '''filter size=1 unit=char min_docs=1 share=1 ndocs=2 cutoff=2 error=0 n=1: 01'''),
	('', 'shingle_filter', '(SELECT shingle_filter_agg(d, 1, 0, 1, ''word'') FROM unnest(ARRAY[''a b'', ''a b'']) AS d)'),
	('', 'minhash_query', 'similar_to(minhash(''a b c'', 8), 0.5)'),
	('', 'minhash_query', 'similar_to(minhash(''a b c'', 16), 0)'),
	('', 'shingleset_query', 'containing(shingle_mod(''a b c d'', 1000), 1)'),
	('', 'shingleset_query', 'similar_to(shingle_set(''a b c'', 2), 0.5)'),
	('', 'simhash64[]', '''{}'''), ('', 'simhash64[]', '''{NULL}'''), ('', 'simhash64[]', '''{{0,1},{2,3}}'''),
	('sides', 'smallint[]', '''{0}'''), ('sides', 'smallint[]', '''{0,NULL}'''), ('sides', 'smallint[]', '''{0,1}'''),
	('', 'tid', '''(4294967295,65535)'''), ('', 'tid', '''(0,0)'''),
	('', 'simhash_agg_state', '(''n=0'' || repeat('' fff0000000000000'', 64))::simhash_agg_state'),
	('', 'simhash_agg_state', '(''n=9223372036854775807'' || repeat('' 7fefffffffffffff'', 64))::simhash_agg_state');
CREATE VIEW bad_input.docs_view AS SELECT * FROM bad_input.docs;

-- the arguments of each callable function, with a valid value for each
CREATE VIEW bad_input.args AS
SELECT f.oid, a.pos, a.typ, coalesce(p.proargnames[a.pos], '') AS argname,
       (SELECT g.expr FROM bad_input.good g
        WHERE g.typ = a.typ AND g.fname IN (f.name, '') AND g.argname IN (coalesce(p.proargnames[a.pos], ''), '')
        ORDER BY g.fname <> '' DESC, g.argname <> '' DESC LIMIT 1) AS good
FROM bad_input.functions f
JOIN pg_proc p ON p.oid = f.oid
CROSS JOIN LATERAL unnest(p.proargtypes::regtype[]) WITH ORDINALITY AS a(typ, pos)
WHERE NOT f.internal_arg;
SELECT f.signature AS no_valid_value_for FROM bad_input.args a JOIN bad_input.functions f USING (oid)
WHERE a.good IS NULL;

-- the call of function oid with argument bad_pos replaced by bad_expr
CREATE FUNCTION bad_input.call(fn oid, bad_pos integer, bad_expr text) RETURNS text LANGUAGE sql STABLE
RETURN (SELECT format('SELECT %s.%s(%s)', p.pronamespace::regnamespace, quote_ident(p.proname::text),
		coalesce(string_agg(format('(%s)::%s', CASE WHEN a.pos = bad_pos THEN bad_expr ELSE a.good END, a.typ),
							', ' ORDER BY a.pos) FILTER (WHERE a.pos IS NOT NULL), ''))
		FROM pg_proc p LEFT JOIN bad_input.args a ON a.oid = p.oid WHERE p.oid = fn GROUP BY p.oid);

CREATE TABLE bad_input.sweep AS
SELECT f.signature, 0 AS pos, 'all valid' AS argument, bad_input.call(f.oid, 0, NULL) AS sql
FROM bad_input.functions f WHERE NOT f.internal_arg
UNION ALL
SELECT f.signature, a.pos, format('%s = %s', CASE WHEN a.argname = '' THEN '$' || a.pos ELSE a.argname END, b.expr),
       bad_input.call(f.oid, a.pos::int, b.expr)
FROM bad_input.functions f
JOIN bad_input.args a USING (oid)
CROSS JOIN LATERAL (
	SELECT bad.expr FROM bad_input.bad bad
	WHERE bad.typ = a.typ
	  AND bad.argname = CASE WHEN EXISTS (SELECT 1 FROM bad_input.bad b2 WHERE b2.typ = a.typ AND b2.argname = a.argname)
							 THEN a.argname ELSE '' END
	UNION ALL SELECT 'NULL' WHERE NOT f.proisstrict) AS b;
SELECT count(*) AS calls, count(DISTINCT signature) AS functions FROM bad_input.sweep;
SELECT signature, argument, bad_input.try(sql) AS outcome FROM bad_input.sweep
ORDER BY signature::text, pos, argument;

--
-- 5. Big and degenerate documents, 1 to 3 MB each: distinct words, one token
-- repeated 500,000 times, one 3 MB token, unclosed markup, entities,
-- combining marks, ideographs, a ligature that NFKC expands 18-fold.  (The
-- 100 MB documents are in test/bench/reliability/big_document.sh.)
--
CREATE TABLE bad_input.big AS
SELECT 'distinct words' AS label, (SELECT string_agg(md5(g::text), ' ') FROM generate_series(1, 60000) g) AS doc
UNION ALL SELECT 'one repeated token', repeat('spam ', 500000)
UNION ALL SELECT 'one 3 MB token', repeat('a', 3000000)
UNION ALL SELECT 'unclosed tags', repeat('<a b="', 300000)
UNION ALL SELECT 'entities', repeat('&amp;&#x41;&bogus;&#99999999;', 50000)
UNION ALL SELECT 'combining marks', 'a' || repeat(U&'\0301\0316', 300000)
UNION ALL SELECT 'ideographs', repeat('東京', 250000)
UNION ALL SELECT 'expanding ligature', repeat(U&'\FDFA', 100000);
SELECT label, octet_length(doc) AS bytes, octet_length(normalize_text(doc)) AS normalized_bytes,
       cardinality(tokens(doc)) AS tokens, cardinality(shingles(doc)) AS shingles,
       cardinality(shingle_set(doc)) AS distinct_shingles
FROM bad_input.big ORDER BY label;
SELECT label, simhash(doc), simhash(doc, 3, 'char', 'set') AS simhash_char,
       md5(minhash(doc, 64)::text) AS minhash, md5(minhash(doc, 84, 'kperm')::text) AS minhash_kperm,
       md5(shingle_bottom(doc, 50)::text) AS bottom, md5(super_shingles(minhash(doc, 84, 'kperm'))::text) AS super
FROM bad_input.big ORDER BY label;
-- one repeated token is one shingle: the same as two occurrences
SELECT simhash(doc) = simhash('spam spam') AS simhash_same, minhash(doc, 32) = minhash('spam spam', 32) AS minhash_same,
       shingle_set(doc, 1) = shingle_set('spam', 1) AS set_same,
       cardinality(super_shingle_keys(super_shingles(minhash(doc, 84, 'kperm')))) AS super_keys
FROM bad_input.big WHERE label = 'one repeated token';
SELECT imatch_lexicon_size(imatch_lexicon_agg(doc)) AS lexicon_terms FROM bad_input.big;
SELECT label, imatch(doc, (SELECT imatch_lexicon_agg(doc, 0, 0) FROM bad_input.big)) IS NOT NULL AS has_signature
FROM bad_input.big ORDER BY label;

--
-- 6. Operator class and index options out of range, for every operator
-- class of the extension, and the index settings that would drop rows
--
CREATE TABLE bad_input.indexed AS
SELECT fp, mh, shingle_set(body) AS ss, ball(fp, 3) AS b FROM bad_input.docs;
-- (17 and later build an index with search_path = pg_catalog, pg_temp, so
-- the server's own message names an operator class with its schema: the
-- schema is left out here, as 15 and 16 print it)
SELECT opts, regexp_replace(bad_input.try(format('CREATE INDEX ON bad_input.indexed USING %s', opts)),
							'^22023 operator class public\.', '22023 operator class ') AS outcome
FROM (VALUES
	('gin (fp simhash64_gin_ops(blocks = 1))'), ('gin (fp simhash64_gin_ops(blocks = 9))'),
	('gin (fp simhash64_gin_ops(blocks = -1))'), ('gin (fp simhash64_gin_ops(blocks = 4.5))'),
	('gin (fp simhash64_gin_ops(blocks = ''four''))'), ('gin (fp simhash64_gin_ops(layout = ''bogus''))'),
	('gin (fp simhash64_gin_ops(layout = ''''))'), ('gin (fp simhash64_gin_ops(bogus = 1))'),
	('gin (fp simhash64_gin_ops(blocks = 2, blocks = 3))'),
	('gin (fp simhash64_gin_ops(blocks = 8, layout = ''block''))'),
	('gin (mh minhash_lsh_ops(bands = -1))'), ('gin (mh minhash_lsh_ops(bands = 1025))'),
	('gin (mh minhash_lsh_ops(rows = 1025))'), ('gin (mh minhash_lsh_ops(rows = 2147483648))'),
	('gin (mh minhash_lsh_ops(threshold = 0))'), ('gin (mh minhash_lsh_ops(threshold = 1.01))'),
	('gin (mh minhash_lsh_ops(threshold = ''NaN''))'), ('gin (mh minhash_lsh_ops(threshold = ''x''))'),
	('gin (mh minhash_lsh_ops(bands = 8, threshold = 0.9))'), ('gin (mh minhash_lsh_ops(bands = 20, rows = 4))'),
	('gin (mh minhash_lsh_ops(bands = 16, rows = 1))'),
	('gin (ss shingleset_ops(threshold = 0.5))'), ('spgist (fp simhash64_spgist_ops(blocks = 4))'),
	('btree (fp simhash64_ops(x = 1))'), ('hash (fp simhash64_ops(x = 1))'),
	('hash (mh minhash_sketch_hash_ops(x = 1))'), ('hash (ss shingleset_hash_ops(x = 1))'),
	('btree (mh)'), ('btree (ss)'), ('gist (fp)'), ('brin (fp)'), ('btree (b)'),
	('gin (fp) WITH (fastupdate = maybe)'), ('gin (fp) WITH (gin_pending_list_limit = 1)'),
	('spgist (fp) WITH (fillfactor = 5)'),
	('hamming (fp) WITH (merge_fraction = -0.1)'), ('hamming (fp) WITH (merge_fraction = 1.5)'),
	('hamming (fp) WITH (merge_fraction = ''x'')'), ('hamming (fp) WITH (bogus = 1)'),
	('hamming (fp simhash64_hamming_ops(x = 1))'), ('hamming (mh)'), ('hamming (fp, fp)')
) AS t(opts);
-- keep only the default operator classes for the queries below
DO $$
DECLARE
	i regclass;
BEGIN
	FOR i IN SELECT indexrelid::regclass FROM pg_index WHERE indrelid = 'bad_input.indexed'::regclass LOOP
		EXECUTE format('DROP INDEX %s', i);
	END LOOP;
END
$$;
CREATE INDEX ON bad_input.indexed USING gin (fp);
CREATE INDEX ON bad_input.indexed USING gin (mh);
CREATE INDEX ON bad_input.indexed USING gin (ss);
SET enable_seqscan = off;
SET gin_fuzzy_search_limit = 10;
SELECT q, bad_input.try(q) AS outcome FROM (VALUES
	('SELECT count(*) FROM bad_input.indexed WHERE fp <@ ball(''0123456789abcdef'', 10)'),
	('SELECT count(*) FROM bad_input.indexed WHERE mh % minhash(''the quick brown fox'', 16)'),
	('SELECT count(*) FROM bad_input.indexed WHERE ss && shingle_set(''the quick brown fox'')')
) AS t(q);
RESET gin_fuzzy_search_limit;
SELECT q, bad_input.try(q) AS outcome FROM (VALUES
	('SELECT count(*) FROM bad_input.indexed WHERE within(fp, ''0123456789abcdef'', -1)'),
	('SELECT count(*) FROM bad_input.indexed WHERE within(fp, ''0123456789abcdef'', 2147483647)'),
	('SELECT count(*) FROM bad_input.indexed WHERE fp <@ ball(''0123456789abcdef'', 65)'),
	('SELECT count(*) FROM bad_input.indexed WHERE similar(mh, minhash(''a'', 16), ''NaN'')'),
	('SELECT count(*) FROM bad_input.indexed WHERE similar(mh, minhash(''a'', 8), 0.5)'),
	('SELECT count(*) FROM bad_input.indexed WHERE mh <@ similar_to(minhash(''a'', 16, ''kperm''), 0.5)'),
	('SELECT count(*) FROM bad_input.indexed WHERE ss <@ containing(shingle_set(''a b c'', 2), 0.5)'),
	('SELECT count(*) FROM bad_input.indexed WHERE ss % shingle_bottom(''a b c'', 3)')
) AS t(q);
RESET enable_seqscan;
-- the settings of the extension
SELECT s, bad_input.try(s) AS outcome FROM (VALUES
	('SET nddup.similarity_threshold = 1.5'), ('SET nddup.similarity_threshold = -0.1'),
	('SET nddup.similarity_threshold = ''NaN'''), ('SET nddup.batch_blocks = 65'),
	('SET nddup.batch_blocks = -1'), ('SET nddup.progress = maybe')
) AS t(s);
SET nddup.batch_blocks = 3;
SELECT bad_input.try('SELECT * FROM hamming_pairs(''bad_input.docs'', ''id'', ''fp'', 5)') AS blocks_below_radius;
RESET nddup.batch_blocks;

--
-- 7. Database encodings.  The reference values come from a UTF8 database;
-- a LATIN1 database gives the same fingerprints and sketches for the same
-- characters, and a clean 22P05 where a result has no LATIN1 form; a
-- SQL_ASCII database takes the bytes as UTF-8 and survives invalid UTF-8.
-- In UTF8 invalid bytes never reach the extension (22021).
--
SELECT current_database() AS orig_db \gset
\set doc 'Grüße aus Köln: naïve café, Straße; déjà vu'
\set constructors 'SELECT simhash(d)::text || '' '' || simhash(d, 3, ''char'', ''set'')::text || '' '' || simhash(string_to_array(d, '' ''))::text || '' '' || simhash(string_to_array(d, '' ''), ''{1,2,3,4,5,6,7,8}'')::text || '' '' || simhash(array_to_tsvector(string_to_array(d, '' '')))::text AS fingerprints, md5(minhash(d, 32)::text || minhash(d, 12, ''kperm'', 1, 2, ''char'')::text) AS minhash, md5(convert_to(shingle_set(d)::text || shingle_bottom(d, 3)::text || shingle_mod(d, 2, 1, ''char'')::text || shingles(d)::text || tokens(d)::text, ''UTF8'')) AS sets, imatch(d, (SELECT imatch_lexicon_agg(x, 0, 0) FROM unnest(ARRAY[d, ''café crème'', ''Köln'']) AS x)) AS signature, simhash(''µ ½'') AS micro_half FROM (VALUES (:''doc'')) AS t(d)'
\set setup 'SET client_encoding = ''UTF8''; CREATE EXTENSION nddup; CREATE FUNCTION try(q text) RETURNS text LANGUAGE plpgsql AS :''try_body'''
\set compare 'SELECT getdatabaseencoding(), :''cur_fingerprints'' = :''ref_fingerprints'' AS same_fingerprints, :''cur_minhash'' = :''ref_minhash'' AS same_minhash, :''cur_sets'' = :''ref_sets'' AS same_sets, :''cur_signature'' = :''ref_signature'' AS same_signature, :''cur_micro_half'' = :''ref_micro_half'' AS same_micro_half'
CREATE DATABASE bad_input_utf8 ENCODING 'UTF8' LOCALE 'C' TEMPLATE template0;
\c bad_input_utf8
:setup;
:constructors \gset ref_
SELECT :'ref_fingerprints' AS fingerprints, :'ref_minhash' AS minhash, :'ref_sets' AS sets,
       :'ref_signature' AS signature, :'ref_micro_half' AS micro_half;
SELECT try($$SELECT simhash(E'\xff')$$) AS invalid_utf8_literal,
       try($$SELECT normalize_text(convert_from('\xc3'::bytea, 'UTF8'))$$) AS truncated_sequence,
       try($$SELECT tokens(convert_from('\xeda080'::bytea, 'UTF8'))$$) AS surrogate;

CREATE DATABASE bad_input_latin1 ENCODING 'LATIN1' LOCALE 'C' TEMPLATE template0;
\c bad_input_latin1
:setup;
:constructors \gset cur_
:compare;
-- NFKC turns µ into Greek mu, which has no LATIN1 form (22P05), and ½ into
-- 1⁄2, whose fraction slash separates 1 and 2
SELECT q, try(q) FROM (VALUES ($$SELECT normalize_text('µ')$$), ($$SELECT normalize_text('½')$$),
	($$SELECT tokens('½')$$)) AS t(q);
-- a statement with 東京 cannot even be converted to LATIN1 (22P05)
\set VERBOSITY sqlstate
SELECT simhash('東京');
\set VERBOSITY default
-- every byte is a LATIN1 character
CREATE TABLE all_bytes AS
SELECT convert_from(decode(string_agg(lpad(to_hex(b), 2, '0'), ''), 'hex'), 'LATIN1') AS d FROM generate_series(1, 255) AS b;
SELECT simhash(d), minhash(d, 4, 'kperm'), shingle_set(d, 1, 'char') = shingle_set(d, 1, 'char') AS set_ok FROM all_bytes;
SELECT try('SELECT normalize_text(d) FROM all_bytes') AS normalized_all_bytes;
CREATE TABLE t AS SELECT g AS id, simhash(:'doc' || g) AS fp, minhash(:'doc' || g, 16) AS mh FROM generate_series(1, 200) g;
CREATE INDEX ON t USING gin (fp simhash64_gin_ops);
CREATE INDEX ON t USING gin (mh minhash_lsh_ops(threshold = 0.5));
SET enable_seqscan = off;
SELECT count(*) AS indexed_within_12 FROM t WHERE fp <@ ball(simhash(:'doc' || 1), 12);
SELECT count(*) AS indexed_similar FROM t WHERE mh <@ similar_to(minhash(:'doc' || 1, 16), 0.5);
RESET enable_seqscan;
SELECT count(*) AS seqscan_within_12 FROM t WHERE hamming(fp, simhash(:'doc' || 1)) <= 12;
SELECT count(*) AS seqscan_similar FROM t WHERE similar(mh, minhash(:'doc' || 1, 16), 0.5);

CREATE DATABASE bad_input_sql_ascii ENCODING 'SQL_ASCII' LOCALE 'C' TEMPLATE template0;
\c bad_input_sql_ascii
:setup;
:constructors \gset cur_
:compare;
-- invalid UTF-8 through every constructor
SELECT normalize_text(d), tokens(d), simhash(d), simhash(d, 1, 'char'), simhash(string_to_array(d, ' ')),
       minhash(d, 4, 'kperm'), shingle_set(d, 1), shingles(d, 1, 'char')
FROM (VALUES (E'a\xff b\xc3'), (E'\xed\xa0\x80 \xf4\x90\x80\x80'), (E'\xc0\xaf\xe0\x80\xaf'), (E'\xfe\xfe\xfe')) AS t(d);
SELECT imatch_lexicon_size(imatch_lexicon_agg(d)) AS lexicon_terms,
       simhash_agg(d, 1) AS aggregated
FROM (VALUES (E'a\xff b\xc3'), (E'\xed\xa0\x80 \xf4\x90\x80\x80'), (E'\xfe\xfe\xfe')) AS t(d);
SELECT octet_length(normalize_text(string_agg(chr(b), ''))) AS all_ascii_bytes FROM generate_series(1, 127) AS b;
SELECT octet_length(normalize_text(convert_from(decode(string_agg(lpad(to_hex(b), 2, '0'), ''), 'hex'), 'SQL_ASCII'))) AS all_bytes
FROM generate_series(1, 255) AS b;

\c :orig_db
SET client_encoding = 'UTF8';
DROP DATABASE bad_input_utf8;
DROP DATABASE bad_input_latin1;
DROP DATABASE bad_input_sql_ascii;

SET client_min_messages = warning;
-- the decisions kept for the tables of the schema go with it
DO $$ BEGIN DELETE FROM nddup_decisions WHERE relid::oid IN (SELECT c.oid FROM pg_class c
	WHERE c.relnamespace = 'bad_input'::regnamespace); END $$;
DROP SCHEMA bad_input CASCADE;
