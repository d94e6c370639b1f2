--
-- text pipeline: normalize_text, tokens, shingles, nddup_unicode_version
-- (docs/text-pipeline.md)
--
-- psql computes column widths in the client encoding; UTF8 gives the same
-- output whether the database is UTF8 or SQL_ASCII.
SET client_encoding = 'UTF8';

SELECT nddup_unicode_version();

--
-- normalize_text: case, separators, empty input
--
SELECT normalize_text('Hello, World!');
SELECT normalize_text(E'  \t Leading,\n\ntrailing  and   inner   spaces...  ');
SELECT normalize_text('') = '' AS empty_is_empty,
       normalize_text(' ,.;!? ') = '' AS separators_only_is_empty;
SELECT normalize_text('under_score hy-phen it''s 3.14 1,000');
SELECT normalize_text('Straße ΣΑΣ ς İstanbul ǅ ﬀ');
SELECT normalize_text('Ｆｕｌｌｗｉｄｔｈ ①② ﬁne ㍿ ½ x² Ⅻ');
SELECT normalize_text('😀 emoji — dashes “quotes” · dots…');

-- HTML: block tags separate words, inline tags do not
SELECT normalize_text('<p>Hello<br>world</p><div>foo<b>bar</b>baz</div>');
SELECT normalize_text('a<span class="x">b</span><EM>c</EM><a href="/">d</a>e');
SELECT normalize_text('before<!-- comment <p> -->after');
SELECT normalize_text('x<script type="text/javascript">var a = "<p>";</script>y<STYLE>p {}</style >z');
SELECT normalize_text('unterminated <!-- comment');
SELECT normalize_text('unterminated <script> code');
SELECT normalize_text('a < b and c<d and e >f');
SELECT normalize_text('<!DOCTYPE html><?xml version="1.0"?></> end');
-- character references; decoded text is never parsed as markup
SELECT normalize_text('caf&eacute; caf&#233; caf&#xE9; caf&#XE9; &Eacute;T&Eacute;');
SELECT normalize_text('&lt;b&gt;not bold&lt;/b&gt; &amp;amp; A&nbsp;B');
SELECT normalize_text('&unknown; &amp no semicolon &#65 &#x41; &#0;x&#xD800;y&#x110000;z');
SELECT normalize_text('e&#x301; = é = &eacute; = e<b>&#769;</b>');

-- variants that normalize identically give identical shingles
CREATE TEMP TABLE variants (v text);
INSERT INTO variants VALUES
  ('The quick brown fox jumps over the lazy dog.'),
  ('THE QUICK BROWN FOX JUMPS OVER THE LAZY DOG'),
  (E'the\tquick\n\nbrown   fox -- jumps over, the lazy dog!!!'),
  ('<p>The <b>quick</b> brown&nbsp;fox</p><p>jumps over the <i>lazy</i> dog</p>'),
  ('The quick<!-- ad --> brown fox<script>track()</script> jumps over the lazy dog'),
  ('Ｔｈｅ ｑｕｉｃｋ ｂｒｏｗｎ ｆｏｘ ｊｕｍｐｓ ｏｖｅｒ ｔｈｅ ｌａｚｙ ｄｏｇ');
SELECT count(*) AS variants,
       count(DISTINCT normalize_text(v)) AS normalized_forms,
       count(DISTINCT shingles(v)) AS word_shingle_arrays,
       count(DISTINCT shingles(v, 5, 'char')) AS char_shingle_arrays,
       count(DISTINCT tokens(v)) AS token_arrays
FROM variants;
SELECT DISTINCT normalize_text(v) FROM variants;

-- NFKC and case folding variants (Turkish dotted I folds to i + U+0307);
-- column a holds: e + U+0301, U+212B, U+2126, U+1100 U+1161 U+11A8, U+212A
SELECT what, normalize_text(a) = normalize_text(b) AS same,
       normalize_text(b) AS normalized
FROM (VALUES ('precomposed', 'é', 'é'),
             ('angstrom sign', 'Å', 'Å'),
             ('ohm sign', 'Ω', 'ω'),
             ('ligature', 'ﬁ', 'fi'),
             ('full width', 'ＡＢＣ', 'abc'),
             ('circled digit', '①', '1'),
             ('sharp s', 'STRASSE', 'straße'),
             ('final sigma', 'ΌΣΟΣ', 'όσος'),
             ('Hangul jamo', '각', '각'),
             ('half-width kana', 'ｶﾞ', 'ガ'),
             ('kelvin sign', 'K', 'k'),
             ('dotted capital I', 'İ', 'i')) AS t(what, a, b);

--
-- tokens
--
SELECT tokens('Hello, World! 123 foo_bar');
SELECT tokens('東京abc 123');
SELECT tokens('我爱北京天安门');
SELECT tokens('日本語のテキストとカタカナ、データー');
SELECT tokens('iPhone手机 2024年');
SELECT tokens('한국어 텍스트 처리');
SELECT tokens('مرحبا بالعالم');
SELECT tokens('Привет, МИР!');
SELECT tokens('Ελληνικά κείμενα');
SELECT tokens('') AS empty, tokens('<p> </p>') AS markup_only;

--
-- shingles
--
-- 8 words give 6 word 3-shingles, in text order, repeats kept
SELECT shingles('a rose is a rose is a rose');
SELECT s[1] = s[4] AND s[2] = s[5] AND s[3] = s[6] AS repeats_kept,
       s[1] <> s[2] AND s[2] <> s[3] AS distinct_neighbours
FROM shingles('a rose is a rose is a rose') AS s;
-- w = 1: one hash per token
SELECT shingles('A rose', 1);
SELECT shingles('rose', 1) = shingles('ROSE!', 1) AS same_token_hash;
-- fewer tokens than w: one shingle over all of them
SELECT shingles('a rose', 3);
SELECT shingles('rose', 64);
SELECT cardinality(shingles('one two three four five six seven')) AS w3,
       cardinality(shingles('one two three four five six seven', 7)) AS w7,
       cardinality(shingles('one two three four five six seven', 8)) AS w8;
-- char shingles: w consecutive code points of the normalized text
SELECT shingles('abcd', 3, 'char');
SELECT shingles('été', 2, 'char');
SELECT cardinality(shingles('Hello, World', 4, 'char')) AS n,
       length(normalize_text('Hello, World')) - 3 AS expected;
SELECT shingles('ab', 5, 'char');
SELECT shingles('ab', 5, 'char') = shingles('AB!', 2, 'char') AS whole_text;
-- no tokens: no shingles
SELECT shingles('') AS empty, shingles(' ... ', 2) AS separators,
       shingles('', 3, 'char') AS empty_char;
-- defaults are size 3, unit 'word'
SELECT shingles('one two three four') = shingles('one two three four', 3, 'word') AS defaults;

--
-- errors and NULLs
--
SELECT shingles('a b c', 0);
SELECT shingles('a b c', 65);
SELECT shingles('a b c', -1);
SELECT shingles('a b c', 3, 'words');
SELECT shingles('a b c', 3, 'WORD');
SELECT shingles('a b c', 3, '');
SELECT normalize_text(NULL) IS NULL AS n1, tokens(NULL) IS NULL AS n2,
       shingles(NULL) IS NULL AS n3, shingles('a', NULL) IS NULL AS n4,
       shingles('a', 3, NULL) IS NULL AS n5;
SELECT shingles('a b c', 64) AS max_size;

--
-- a long text, summarized
--
SELECT length(n) AS normalized_length,
       cardinality(tokens(t)) AS tokens,
       cardinality(shingles(t)) AS word_3_shingles,
       (SELECT count(DISTINCT x) FROM unnest(shingles(t)) AS x) AS distinct_word_3_shingles,
       cardinality(shingles(t, 4, 'char')) AS char_4_shingles,
       left(n, 20) AS head
FROM (SELECT t, normalize_text(t) AS n
      FROM (SELECT repeat('Word ', 200000) AS t) AS s1) AS s2;

--
-- the same characters give the same results in every database encoding
--
CREATE TEMP TABLE reference AS
SELECT normalize_text(v) AS n, shingles(v) AS ws, shingles(v, 4, 'char') AS cs
FROM (VALUES ('Grüße aus Köln, naïve café; Straße!')) AS t(v);
SELECT n AS reference_form FROM reference;
SELECT ws::text AS ref_ws, cs::text AS ref_cs, current_database() AS orig_db FROM reference \gset
CREATE DATABASE nddup_text_latin1 ENCODING 'LATIN1' LOCALE 'C' TEMPLATE template0;
\c nddup_text_latin1
SET client_encoding = 'UTF8';
CREATE EXTENSION nddup;
SELECT getdatabaseencoding(),
       normalize_text('Grüße aus Köln, naïve café; Straße!') AS latin1_form,
       shingles('Grüße aus Köln, naïve café; Straße!')::text = :'ref_ws' AS same_word_shingles,
       shingles('Grüße aus Köln, naïve café; Straße!', 4, 'char')::text = :'ref_cs' AS same_char_shingles;
SELECT tokens('Ærøskøbing Ärger');
-- SQL_ASCII: the bytes are taken as UTF-8; invalid sequences are separators
CREATE DATABASE nddup_text_sql_ascii ENCODING 'SQL_ASCII' LOCALE 'C' TEMPLATE template0;
\c nddup_text_sql_ascii
SET client_encoding = 'UTF8';
CREATE EXTENSION nddup;
SELECT getdatabaseencoding(),
       normalize_text('Grüße aus Köln, naïve café; Straße!') AS sql_ascii_form,
       shingles('Grüße aus Köln, naïve café; Straße!')::text = :'ref_ws' AS same_word_shingles,
       shingles('Grüße aus Köln, naïve café; Straße!', 4, 'char')::text = :'ref_cs' AS same_char_shingles;
SELECT normalize_text(E'bad\xffbytes\xc3(and\xed\xa0\x80surrogates') AS invalid_utf8;
\c :orig_db
SET client_encoding = 'UTF8';
DROP DATABASE nddup_text_latin1;
DROP DATABASE nddup_text_sql_ascii;
