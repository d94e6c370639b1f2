/*-------------------------------------------------------------------------
 *
 * test_text.c
 *	  Unit tests of the text pipeline: buffers, normalization (HTML, NFKC,
 *	  case folding, separators), tokenization and shingle hashing.
 *
 * run_text_tests() runs them all, prints each failure and returns the number
 * of failures.  The hash values pinned here are a file format: if one of
 * them changes, stored fingerprints change; do not "fix" the expected value.
 *
 * When /usr/share/unicode/NormalizationTest.txt(.bz2) is present, every line
 * of it is checked against the NFKC column; otherwise that check is skipped
 * with a message.
 *
 *-------------------------------------------------------------------------
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nddup_core.h"

int			run_text_tests(void);

#define NORMALIZATION_TEST_TXT	"/usr/share/unicode/NormalizationTest.txt"
#define NORMALIZATION_TEST_BZ2	"/usr/share/unicode/NormalizationTest.txt.bz2"

static int	failures;
static int	checks;

/* Record one check; print it when it fails. */
static void
check_true(int line, int ok, const char *what)
{
	checks++;
	if (!ok)
	{
		failures++;
		printf("test_text.c:%d: check failed: %s\n", line, what);
	}
}

#define CHECK(cond) check_true(__LINE__, (cond) ? 1 : 0, #cond)

/* Record a comparison of two byte strings; print both when they differ. */
static void
check_bytes(int line, const char *what, const char *got, size_t got_len,
			const char *want, size_t want_len)
{
	checks++;
	if (got_len != want_len || memcmp(got, want, got_len) != 0)
	{
		failures++;
		printf("test_text.c:%d: %s\n    got:  \"%.*s\" (%zu bytes)\n"
			   "    want: \"%.*s\" (%zu bytes)\n",
			   line, what, (int) got_len, got, got_len,
			   (int) want_len, want, want_len);
	}
}

/* Record a comparison of two 64-bit values. */
static void
check_u64(int line, const char *what, uint64_t got, uint64_t want)
{
	checks++;
	if (got != want)
	{
		failures++;
		printf("test_text.c:%d: %s\n    got:  0x%016llx\n    want: 0x%016llx\n",
			   line, what, (unsigned long long) got, (unsigned long long) want);
	}
}

#define CHECK_U64(got, want) check_u64(__LINE__, #got, (got), (want))

/* Check that the normalized form of in[0..in_len) is want. */
static void
check_norm_len(int line, const char *in, size_t in_len, const char *want)
{
	NddupBuf	buf = {0};
	char		what[160];

	nddup_normalize(in, in_len, &buf);
	snprintf(what, sizeof(what), "normalize(\"%.60s\")", in);
	check_bytes(line, what, buf.data, buf.len, want, strlen(want));
	nddup_buf_free(&buf);
}

#define NORM_IS(in, want) check_norm_len(__LINE__, (in), strlen(in), (want))
#define NORM_BYTES_IS(in, want) \
	check_norm_len(__LINE__, (in), sizeof(in) - 1, (want))

/* Check that the NFKC form of in is want. */
static void
check_nfkc(int line, const char *in, const char *want)
{
	NddupBuf	buf = {0};
	char		what[160];

	nddup_nfkc(in, strlen(in), &buf);
	snprintf(what, sizeof(what), "nfkc(\"%.60s\")", in);
	check_bytes(line, what, buf.data, buf.len, want, strlen(want));
	nddup_buf_free(&buf);
}

#define NFKC_IS(in, want) check_nfkc(__LINE__, (in), (want))

/* Token callback: append the token and a '|' to a NddupBuf. */
static void
join_token(void *arg, const char *token, size_t len)
{
	NddupBuf   *buf = arg;

	nddup_buf_append(buf, token, len);
	nddup_buf_append(buf, "|", 1);
}

/* Check the tokens of normalize(in), each followed by '|'. */
static void
check_tokens(int line, const char *in, const char *want, size_t want_count)
{
	NddupBuf	norm = {0};
	NddupBuf	joined = {0};
	size_t		count;
	char		what[160];

	nddup_normalize(in, strlen(in), &norm);
	count = nddup_tokenize(norm.data, norm.len, join_token, &joined);
	snprintf(what, sizeof(what), "tokens(\"%.60s\")", in);
	check_bytes(line, what, joined.data ? joined.data : "", joined.len,
				want, strlen(want));
	snprintf(what, sizeof(what), "token count of \"%.60s\" is %zu, not %zu",
			 in, count, want_count);
	check_true(line, count == want_count, what);
	nddup_buf_free(&norm);
	nddup_buf_free(&joined);
}

#define TOKENS_ARE(in, want, n) check_tokens(__LINE__, (in), (want), (n))

/* Hash callback: push the hash to a NddupHashes. */
static void
push_hash(void *arg, uint64_t hash)
{
	nddup_hashes_push((NddupHashes *) arg, hash);
}

/* Shingle hashes of normalize(in) into out (emptied first); returns the count. */
static size_t
shingles_of(const char *in, int size, NddupUnit unit, NddupHashes *out)
{
	NddupBuf	norm = {0};
	size_t		n;

	out->len = 0;
	nddup_normalize(in, strlen(in), &norm);
	n = nddup_shingle_hashes(norm.data ? norm.data : "", norm.len, size, unit,
							 push_hash, out);
	nddup_buf_free(&norm);
	return n;
}

/* Write v as 8 little-endian bytes. */
static void
put_le64(unsigned char *p, uint64_t v)
{
	int			i;

	for (i = 0; i < 8; i++)
		p[i] = (unsigned char) (v >> (8 * i));
}

/* Buffers: append, reserve, free, hash arrays. */
static void
test_buffers(void)
{
	NddupBuf	buf = {0};
	NddupHashes hashes = {0};
	int			i;

	nddup_buf_append(&buf, "abc", 3);
	nddup_buf_append(&buf, "", 0);
	for (i = 0; i < 1000; i++)
		nddup_buf_append(&buf, "0123456789", 10);
	CHECK(buf.len == 10003);
	CHECK(buf.cap >= buf.len);
	CHECK(memcmp(buf.data, "abc0123", 7) == 0);
	nddup_buf_reserve(&buf, 100000);
	CHECK(buf.cap - buf.len >= 100000);
	nddup_buf_free(&buf);
	CHECK(buf.data == NULL && buf.len == 0 && buf.cap == 0);
	nddup_buf_free(&buf);

	for (i = 0; i < 5000; i++)
		nddup_hashes_push(&hashes, (uint64_t) i * 3);
	CHECK(hashes.len == 5000);
	CHECK(hashes.items[4999] == 14997);
	nddup_hashes_free(&hashes);
	CHECK(hashes.items == NULL && hashes.len == 0);
}

/* Pinned known answers: these values are stored data, never change them. */
static void
test_known_answers(void)
{
	NddupHashes h = {0};
	unsigned char bytes[24];
	size_t		n;

	CHECK_U64(nddup_hash_bytes("", 0), UINT64_C(0x5b9ce37a2c265a85));
	CHECK_U64(nddup_hash_bytes("rose", 4), UINT64_C(0xffc04b8af32943e3));
	CHECK_U64(nddup_hash_bytes("a", 1), UINT64_C(0xbfe7c874373d7561));
	CHECK(strcmp(nddup_unicode_version(), "15.0.0") == 0);

	/* word 3-shingles: [a rose is] [rose is a] [is a rose] x 2 */
	n = shingles_of("a rose is a rose is a rose", 3, NDDUP_UNIT_WORD, &h);
	CHECK(n == 6 && h.len == 6);
	if (h.len == 6)
	{
		CHECK_U64(h.items[0], UINT64_C(0x9331e40e81d906cb));
		CHECK_U64(h.items[1], UINT64_C(0x80e0f4ec1b2e7ac6));
		CHECK_U64(h.items[2], UINT64_C(0x78fc4e4033ec2f54));
		CHECK_U64(h.items[3], h.items[0]);
		CHECK_U64(h.items[4], h.items[1]);
		CHECK_U64(h.items[5], h.items[2]);

		/* the definition: XXH3 of the little-endian token hashes */
		put_le64(bytes, nddup_hash_bytes("a", 1));
		put_le64(bytes + 8, nddup_hash_bytes("rose", 4));
		put_le64(bytes + 16, nddup_hash_bytes("is", 2));
		CHECK_U64(h.items[0], nddup_hash_bytes((const char *) bytes, 24));
	}

	/* w = 1: the token hashes themselves */
	n = shingles_of("A ROSE", 1, NDDUP_UNIT_WORD, &h);
	CHECK(n == 2 && h.len == 2);
	if (h.len == 2)
	{
		CHECK_U64(h.items[0], nddup_hash_bytes("a", 1));
		CHECK_U64(h.items[1], nddup_hash_bytes("rose", 4));
	}

	nddup_hashes_free(&h);

	/* normalization pinned on a mixed input */
	NORM_IS("<p>Ｔｈｅ&nbsp;<b>Ｑｕｉｃｋ</b> ﬁsh — Straße №①</p>",
			"the quick fish strasse no1");
}

/* HTML: tags, inline elements, comments, script/style, references. */
static void
test_html(void)
{
	NORM_IS("foo<b>bar</b>", "foobar");
	NORM_IS("foo<B CLASS=x>bar</B >baz", "foobarbaz");
	NORM_IS("foo<p>bar</p>baz", "foo bar baz");
	NORM_IS("foo<br/>bar", "foo bar");
	NORM_IS("foo<div class=\"a\">bar", "foo bar");
	NORM_IS("a<span>b</span><em>c</em><i>d</i><wbr>e<strong>f</strong>",
			"abcdef");
	NORM_IS("a<abbr>b</abbr><bdi>c</bdi><sub>d</sub><sup>e</sup>f", "abcdef");
	NORM_IS("a<bold>b", "a b");		/* not an inline element */
	NORM_IS("a<strikes>b", "a b");
	NORM_IS("a<!DOCTYPE html>b<?xml version=\"1.0\"?>c</>d", "a b c d");
	NORM_IS("foo<!-- a comment -->bar", "foobar");
	NORM_IS("foo<!-- a <b>x</b> -->bar", "foobar");
	NORM_IS("foo<!-->bar", "foobar");
	NORM_IS("foo<!-- unterminated bar", "foo");
	NORM_IS("foo<script>var x = '<b>'; x < 3;</script>bar", "foo bar");
	NORM_IS("foo<SCRIPT type=\"text/javascript\">x</ScRiPt >bar", "foo bar");
	NORM_IS("foo<style>p { color: red }</style>bar", "foo bar");
	NORM_IS("foo<script>never closed bar", "foo");
	NORM_IS("foo<script>x</script bar", "foo");
	NORM_IS("foo<scripts>bar</scripts>baz", "foo bar baz");
	NORM_IS("foo<script", "foo script");	/* no '>': literal */
	NORM_IS("a < b", "a b");
	NORM_IS("a<b", "a b");
	NORM_IS("a <3 b", "a 3 b");
	NORM_IS("x<1", "x 1");
	NORM_IS("a<b and c>d", "ad");	/* the inline tag "<b and c>" */
	NORM_IS("a<p and c>d", "a d");
	NORM_IS("<", "");
	NORM_IS("<<<>>>", "");
	NORM_IS("foo<", "foo");

	/* character references */
	NORM_IS("caf&eacute;", "caf\xc3\xa9");
	NORM_IS("caf&#233;", "caf\xc3\xa9");
	NORM_IS("caf&#xE9;", "caf\xc3\xa9");
	NORM_IS("caf&#XE9;", "caf\xc3\xa9");
	NORM_IS("caf&#x0000e9;", "caf\xc3\xa9");
	NORM_IS("&#x1F600;x", "x");		/* emoji: a separator */
	NORM_IS("&#x41;&#x62;C", "abc");
	NORM_IS("&lt;b&gt;bold&lt;/b&gt;", "b bold b");
	NORM_IS("a&amp;b", "a b");
	NORM_IS("a&nbsp;b", "a b");
	NORM_IS("&Aring;&aring;", "\xc3\xa5\xc3\xa5");
	NORM_IS("&bogus;x", "bogus x");		/* unknown: literal */
	NORM_IS("&amp x", "amp x");		/* no ';': literal */
	NORM_IS("&#65 x", "65 x");
	NORM_IS("&#x41", "x41");
	NORM_IS("&#;&#x;&;", "x");
	NORM_IS("&#0;a&#xD800;b&#x110000;c&#99999999999;d", "a b c d");
	NORM_IS("&", "");
	NORM_IS("&#", "");
	/* multi-code-point reference: U+2242 U+0338 */
	NORM_IS("x&NotEqualTilde;", "x \xcc\xb8");
	/* decoded '&' and '<' are not parsed again */
	NORM_IS("&amp;amp;", "amp");
	NORM_IS("&lt;script&gt;x&lt;/script&gt;y", "script x script y");
	/* references compose with what precedes them */
	NORM_IS("e&#x301;", "\xc3\xa9");
	NORM_IS("e<b>&#x301;</b>", "\xc3\xa9");
	/* uppercase entity names are distinct */
	NORM_IS("&Eacute;", "\xc3\xa9");
	/* very long names and numbers */
	NORM_IS("&aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa;",
			"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
}

/* NFKC: compatibility decomposition, composition, Hangul, ordering. */
static void
test_nfkc(void)
{
	NFKC_IS("\xef\xac\x81", "fi");	/* U+FB01 LATIN SMALL LIGATURE FI */
	NFKC_IS("\xef\xbc\xa1\xef\xbd\x82\xef\xbc\x91", "Ab1");	/* full width */
	NFKC_IS("\xe2\x91\xa0", "1");	/* CIRCLED DIGIT ONE */
	NFKC_IS("\xe2\x84\xab", "\xc3\x85");	/* ANGSTROM SIGN -> A RING */
	NFKC_IS("A\xcc\x8a", "\xc3\x85");	/* A + COMBINING RING */
	NFKC_IS("\xc3\x85", "\xc3\x85");
	/* Hangul: jamo compose, syllables stay */
	NFKC_IS("\xe1\x84\x80\xe1\x85\xa1", "\xea\xb0\x80");	/* L+V -> GA */
	NFKC_IS("\xe1\x84\x80\xe1\x85\xa1\xe1\x86\xa8", "\xea\xb0\x81");	/* GAG */
	NFKC_IS("\xea\xb0\x80\xe1\x86\xa8", "\xea\xb0\x81");	/* LV+T */
	NFKC_IS("\xea\xb0\x81", "\xea\xb0\x81");
	/* half-width Hangul letters (compatibility) */
	NFKC_IS("\xef\xbe\xa1", "\xe1\x84\x80");
	/* canonical ordering: dot below (220) before acute (230) */
	NFKC_IS("e\xcc\x81\xcc\xa3", "\xe1\xba\xb9\xcc\x81");
	NFKC_IS("e\xcc\xa3\xcc\x81", "\xe1\xba\xb9\xcc\x81");
	/* composition exclusion: U+0958 stays decomposed */
	NFKC_IS("\xe0\xa5\x98", "\xe0\xa4\x95\xe0\xa4\xbc");
	/* singleton: OHM SIGN -> OMEGA */
	NFKC_IS("\xe2\x84\xa6", "\xce\xa9");
	/* U+FDFA expands to 18 code points */
	NFKC_IS("\xef\xb7\xba",
			"\xd8\xb5\xd9\x84\xd9\x89 \xd8\xa7\xd9\x84\xd9\x84\xd9\x87 "
			"\xd8\xb9\xd9\x84\xd9\x8a\xd9\x87 \xd9\x88\xd8\xb3\xd9\x84\xd9\x85");
	/* '=' + COMBINING LONG SOLIDUS OVERLAY -> NOT EQUAL TO */
	NFKC_IS("=\xcc\xb8", "\xe2\x89\xa0");
	NFKC_IS("", "");

	/* the same through the full pipeline */
	NORM_IS("\xef\xac\x81nd", "find");
	NORM_IS("\xef\xbc\xa6\xef\xbd\x95\xef\xbd\x8c\xef\xbd\x8c width", "full width");
	NORM_IS("\xe2\x91\xa0\xe2\x91\xa1", "12");
	NORM_IS("x\xe2\x91\xa0", "x1");
	NORM_IS("e\xcc\x81t\xc3\xa9", "\xc3\xa9t\xc3\xa9");
	NORM_IS("a=\xcc\xb8" "b", "a b");	/* composes to a separator */
	NORM_IS("\xe3\x8d\xbf", "\xe6\xa0\xaa\xe5\xbc\x8f\xe4\xbc\x9a\xe7\xa4\xbe");	/* SQUARE CORPORATION */
	NORM_IS("\xef\xbd\xb6\xef\xbe\x9e", "\xe3\x82\xac");	/* half-width ka + voiced mark -> GA */
	NORM_IS("A\xcc\x8a" "B", "\xc3\xa5" "b");
}

/* Append the UTF-8 encoding of cp (< 0x10000) to buf. */
static void
append_cp(NddupBuf *buf, uint32_t cp)
{
	char		u[3];

	if (cp < 0x800)
	{
		u[0] = (char) (0xC0 | (cp >> 6));
		u[1] = (char) (0x80 | (cp & 0x3F));
		nddup_buf_append(buf, u, 2);
		return;
	}
	u[0] = (char) (0xE0 | (cp >> 12));
	u[1] = (char) (0x80 | ((cp >> 6) & 0x3F));
	u[2] = (char) (0x80 | (cp & 0x3F));
	nddup_buf_append(buf, u, 3);
}

/*
 * Hangul syllables are kept whole by the normalizer instead of being
 * decomposed and composed again: every syllable, followed by a trailing
 * jamo, a vowel jamo, a combining mark or a Hangul tone mark, normalizes as
 * its jamo followed by the same (canonically equivalent input).
 */
static void
test_hangul_whole(void)
{
	static const uint32_t next[] = {0x11A8, 0x11C2, 0x1161, 0x0301, 0x302E};
	NddupBuf	whole = {0};
	NddupBuf	jamo = {0};
	NddupBuf	a = {0};
	NddupBuf	b = {0};
	long		bad = 0;

	for (uint32_t cp = 0xAC00; cp < 0xAC00 + 11172; cp++)
	{
		uint32_t	sidx = cp - 0xAC00;

		for (size_t k = 0; k < sizeof(next) / sizeof(next[0]); k++)
		{
			whole.len = jamo.len = a.len = b.len = 0;
			append_cp(&whole, cp);
			append_cp(&jamo, 0x1100 + sidx / 588);
			append_cp(&jamo, 0x1161 + (sidx % 588) / 28);
			if (sidx % 28 != 0)
				append_cp(&jamo, 0x11A7 + sidx % 28);
			append_cp(&whole, next[k]);
			append_cp(&jamo, next[k]);
			nddup_nfkc(whole.data, whole.len, &a);
			nddup_nfkc(jamo.data, jamo.len, &b);
			if (a.len != b.len || memcmp(a.data, b.data, a.len) != 0)
				bad++;
		}
	}
	check_true(__LINE__, bad == 0, "Hangul syllable + next normalizes as its jamo + next");
	nddup_buf_free(&whole);
	nddup_buf_free(&jamo);
	nddup_buf_free(&a);
	nddup_buf_free(&b);
}

/* Full case folding (CaseFolding.txt statuses C and F). */
static void
test_case_folding(void)
{
	NORM_IS("HELLO World", "hello world");
	NORM_IS("Stra\xc3\x9f" "e", "strasse");	/* ß -> ss */
	NORM_IS("STRASSE", "strasse");
	NORM_IS("\xe1\xba\x9e", "ss");	/* CAPITAL SHARP S */
	/* Σ, ς, σ all fold to σ */
	NORM_IS("\xce\xa3 \xcf\x82 \xcf\x83", "\xcf\x83 \xcf\x83 \xcf\x83");
	NORM_IS("\xce\x9f\xce\x94\xce\x8f\xce\xa3", "\xce\xbf\xce\xb4\xcf\x8e\xcf\x83");
	/* Turkish İ: F status gives i + COMBINING DOT ABOVE; dotless ı stays */
	NORM_IS("\xc4\xb0", "i\xcc\x87");
	NORM_IS("\xc4\xb1", "\xc4\xb1");
	NORM_IS("I", "i");
	/* Cyrillic, Armenian ligature, Kelvin */
	NORM_IS("\xd0\x9f\xd0\xa0\xd0\x98\xd0\x92\xd0\x95\xd0\xa2",
			"\xd0\xbf\xd1\x80\xd0\xb8\xd0\xb2\xd0\xb5\xd1\x82");
	NORM_IS("\xd6\x87", "\xd5\xa5\xd6\x82");	/* U+0587 */
	NORM_IS("\xe2\x84\xaa", "k");	/* KELVIN SIGN */
	NORM_IS("\xc3\x80\xc3\x89\xc3\x8e", "\xc3\xa0\xc3\xa9\xc3\xae");
	/* U+0345 COMBINING YPOGEGRAMMENI folds to ι */
	NORM_IS("\xe1\xbe\xb3", "\xce\xb1\xce\xb9");
}

/* Separators: runs collapsed, no leading/trailing space, word classes. */
static void
test_separators(void)
{
	NORM_IS("", "");
	NORM_IS("   ", "");
	NORM_IS(" \t\n\r hello \t\n world \r\n", "hello world");
	NORM_IS("hello,world!!", "hello world");
	NORM_IS("...a...b...", "a b");
	NORM_IS("under_score hy-phen it's", "under score hy phen it s");
	NORM_IS("\xe2\x80\x94\xe2\x80\x9cquoted\xe2\x80\x9d\xe2\x80\xa6", "quoted");
	NORM_IS("a\xc2\xa0" "b\xe3\x80\x80" "c", "a b c");	/* NBSP, ideographic space */
	NORM_IS("x\xf0\x9f\x98\x80y", "x y");	/* emoji */
	NORM_IS("1,234.56", "1 234 56");
	NORM_IS("\xd9\xa3\xd9\xa4", "\xd9\xa3\xd9\xa4");	/* Arabic-Indic digits (Nd) */
	NORM_IS("\xe2\x85\xab", "xii");	/* ROMAN NUMERAL TWELVE */
	NORM_BYTES_IS("a\0b", "a b");	/* NUL is a separator */
	NORM_IS("a\x01\x1f\x7f" "b", "a b");
	/* combining mark after a separator is a word character */
	NORM_IS("a \xcc\x81", "a \xcc\x81");
}

/* Invalid UTF-8: one U+FFFD (a separator) per maximal invalid subpart. */
static void
test_invalid_utf8(void)
{
	NddupBuf	buf = {0};

	NORM_IS("a\xff" "b", "a b");
	NORM_IS("a\xc0\xaf" "b", "a b");	/* overlong '/' */
	NORM_IS("a\xe0\x80\xaf" "b", "a b");	/* overlong */
	NORM_IS("a\xed\xa0\x80" "b", "a b");	/* surrogate */
	NORM_IS("a\xf4\x90\x80\x80" "b", "a b");	/* above U+10FFFF */
	NORM_IS("a\xe2\x82", "a");		/* truncated at the end */
	NORM_IS("a\xe2\x82" "b", "a b");	/* truncated in the middle */
	NORM_IS("\x80\x80\x80", "");
	NORM_IS("a\xf0\x9f" "\xc3\xa9", "a \xc3\xa9");
	NORM_IS("\xc3", "");

	/* in NFKC alone, each maximal subpart is exactly one U+FFFD */
	nddup_nfkc("\xe2\x82" "x\xff\xfe" "\xf0\x9f\x98" "\xed\xa0\x80", 11, &buf);
	check_bytes(__LINE__, "U+FFFD per maximal subpart", buf.data, buf.len,
				"\xef\xbf\xbd" "x" "\xef\xbf\xbd\xef\xbf\xbd" "\xef\xbf\xbd"
				"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd", 22);
	nddup_buf_free(&buf);
}

/* Tokenization: spaces, one-character CJK/kana tokens, other scripts. */
static void
test_tokenize(void)
{
	size_t		n;

	TOKENS_ARE("", "", 0);
	TOKENS_ARE("   ", "", 0);
	TOKENS_ARE("Hello, World!", "hello|world|", 2);
	TOKENS_ARE("\xe6\x9d\xb1\xe4\xba\xac" "abc 123",
			   "\xe6\x9d\xb1|\xe4\xba\xac|abc|123|", 4);
	/* Chinese */
	TOKENS_ARE("\xe6\x88\x91\xe7\x88\xb1\xe5\x8c\x97\xe4\xba\xac",
			   "\xe6\x88\x91|\xe7\x88\xb1|\xe5\x8c\x97|\xe4\xba\xac|", 4);
	/* Japanese: kanji, hiragana, katakana and the prolonged sound mark */
	TOKENS_ARE("\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\xe3\x81\xae"
			   "\xe3\x83\x86\xe3\x82\xad\xe3\x82\xb9\xe3\x83\x88",
			   "\xe6\x97\xa5|\xe6\x9c\xac|\xe8\xaa\x9e|\xe3\x81\xae|"
			   "\xe3\x83\x86|\xe3\x82\xad|\xe3\x82\xb9|\xe3\x83\x88|", 8);
	TOKENS_ARE("\xe3\x83\x87\xe3\x83\xbc\xe3\x82\xbf", /* データ */
			   "\xe3\x83\x87|\xe3\x83\xbc|\xe3\x82\xbf|", 3);
	/* kana with a separate voiced mark: composed by NFKC first */
	TOKENS_ARE("\xe3\x81\x8b\xe3\x82\x99x", "\xe3\x81\x8c|x|", 2);
	/* kana with a combining mark that does not compose stays one token */
	TOKENS_ARE("\xe3\x81\x82\xcc\x81x", "\xe3\x81\x82\xcc\x81|x|", 2);
	/* mixed: Latin run, then ideographs */
	TOKENS_ARE("iPhone\xe6\x89\x8b\xe6\x9c\xba", "iphone|\xe6\x89\x8b|\xe6\x9c\xba|", 3);
	/* Korean syllables form words */
	TOKENS_ARE("\xed\x95\x9c\xea\xb5\xad\xec\x96\xb4 \xed\x85\x8d\xec\x8a\xa4\xed\x8a\xb8",
			   "\xed\x95\x9c\xea\xb5\xad\xec\x96\xb4|\xed\x85\x8d\xec\x8a\xa4\xed\x8a\xb8|", 2);
	/* Arabic */
	TOKENS_ARE("\xd9\x85\xd8\xb1\xd8\xad\xd8\xa8\xd8\xa7 \xd8\xa8\xd8\xa7\xd9\x84\xd8\xb9\xd8\xa7\xd9\x84\xd9\x85",
			   "\xd9\x85\xd8\xb1\xd8\xad\xd8\xa8\xd8\xa7|\xd8\xa8\xd8\xa7\xd9\x84\xd8\xb9\xd8\xa7\xd9\x84\xd9\x85|", 2);
	/* Cyrillic, folded */
	TOKENS_ARE("\xd0\x9f\xd1\x80\xd0\xb8\xd0\xb2\xd0\xb5\xd1\x82, \xd0\xbc\xd0\xb8\xd1\x80!",
			   "\xd0\xbf\xd1\x80\xd0\xb8\xd0\xb2\xd0\xb5\xd1\x82|\xd0\xbc\xd0\xb8\xd1\x80|", 2);
	/* Thai has no spaces: stays one token */
	TOKENS_ARE("\xe0\xb8\xaa\xe0\xb8\xa7\xe0\xb8\xb1\xe0\xb8\xaa\xe0\xb8\x94\xe0\xb8\xb5",
			   "\xe0\xb8\xaa\xe0\xb8\xa7\xe0\xb8\xb1\xe0\xb8\xaa\xe0\xb8\x94\xe0\xb8\xb5|", 1);
	/* digits between ideographs */
	TOKENS_ARE("2024\xe5\xb9\xb4", "2024|\xe5\xb9\xb4|", 2);

	/* the tokenizer on raw (possibly invalid) bytes does not crash */
	{
		NddupBuf	joined = {0};

		n = nddup_tokenize("a\xff\xe6\x9d b", 6, join_token, &joined);
		CHECK(n == 2);
		nddup_buf_free(&joined);
	}
}

/* Shingle rules: fewer tokens than w, char shingles, sizes, repeats. */
static void
test_shingles(void)
{
	NddupHashes h = {0};
	unsigned char bytes[8 * 3];
	size_t		n;

	/* no tokens: no shingle */
	CHECK(shingles_of("", 3, NDDUP_UNIT_WORD, &h) == 0);
	CHECK(shingles_of(" <p> ", 3, NDDUP_UNIT_WORD, &h) == 0);
	CHECK(shingles_of("", 3, NDDUP_UNIT_CHAR, &h) == 0);

	/* fewer tokens than w: one shingle over all of them */
	n = shingles_of("Rose is", 3, NDDUP_UNIT_WORD, &h);
	CHECK(n == 1 && h.len == 1);
	put_le64(bytes, nddup_hash_bytes("rose", 4));
	put_le64(bytes + 8, nddup_hash_bytes("is", 2));
	if (h.len == 1)
		CHECK_U64(h.items[0], nddup_hash_bytes((const char *) bytes, 16));
	n = shingles_of("rose", 5, NDDUP_UNIT_WORD, &h);
	put_le64(bytes, nddup_hash_bytes("rose", 4));
	CHECK(n == 1);
	if (h.len == 1)
		CHECK_U64(h.items[0], nddup_hash_bytes((const char *) bytes, 8));

	/* exactly w tokens: one shingle, the same rule */
	n = shingles_of("a rose is", 3, NDDUP_UNIT_WORD, &h);
	CHECK(n == 1);

	/* n tokens, n >= w: n - w + 1 shingles */
	n = shingles_of("one two three four five six seven", 3, NDDUP_UNIT_WORD, &h);
	CHECK(n == 5);
	n = shingles_of("one two three four five six seven", 64, NDDUP_UNIT_WORD, &h);
	CHECK(n == 1);
	n = shingles_of("one two three four five six seven", 7, NDDUP_UNIT_WORD, &h);
	CHECK(n == 1);

	/* invalid sizes give nothing */
	CHECK(shingles_of("a b c", 0, NDDUP_UNIT_WORD, &h) == 0);
	CHECK(shingles_of("a b c", 65, NDDUP_UNIT_CHAR, &h) == 0);

	/* equivalent texts give identical shingles */
	{
		NddupHashes h2 = {0};

		shingles_of("The <b>Quick</b> brown&nbsp;fox", 2, NDDUP_UNIT_WORD, &h);
		shingles_of("the quick   BROWN fox!", 2, NDDUP_UNIT_WORD, &h2);
		CHECK(h.len == 3 && h2.len == 3 &&
			  memcmp(h.items, h2.items, 3 * sizeof(uint64_t)) == 0);
		nddup_hashes_free(&h2);
	}

	/* char shingles: substrings of w code points, spaces included */
	n = shingles_of("abcd", 3, NDDUP_UNIT_CHAR, &h);
	CHECK(n == 2 && h.len == 2);
	if (h.len == 2)
	{
		CHECK_U64(h.items[0], nddup_hash_bytes("abc", 3));
		CHECK_U64(h.items[1], nddup_hash_bytes("bcd", 3));
	}
	n = shingles_of("A B", 2, NDDUP_UNIT_CHAR, &h);
	CHECK(n == 2);
	if (h.len == 2)
	{
		CHECK_U64(h.items[0], nddup_hash_bytes("a ", 2));
		CHECK_U64(h.items[1], nddup_hash_bytes(" b", 2));
	}
	n = shingles_of("\xc3\xa9t\xc3\xa9", 2, NDDUP_UNIT_CHAR, &h);	/* été */
	CHECK(n == 2);
	if (h.len == 2)
	{
		CHECK_U64(h.items[0], nddup_hash_bytes("\xc3\xa9t", 3));
		CHECK_U64(h.items[1], nddup_hash_bytes("t\xc3\xa9", 3));
	}
	/* fewer code points than w: one shingle of the whole text */
	n = shingles_of("ab", 5, NDDUP_UNIT_CHAR, &h);
	CHECK(n == 1);
	if (h.len == 1)
		CHECK_U64(h.items[0], nddup_hash_bytes("ab", 2));
	n = shingles_of("\xe6\x9d\xb1\xe4\xba\xac", 1, NDDUP_UNIT_CHAR, &h);
	CHECK(n == 2);
	if (h.len == 2)
		CHECK_U64(h.items[1], nddup_hash_bytes("\xe4\xba\xac", 3));
	n = shingles_of("abcdefghij", 10, NDDUP_UNIT_CHAR, &h);
	CHECK(n == 1);
	if (h.len == 1)
		CHECK_U64(h.items[0], nddup_hash_bytes("abcdefghij", 10));

	nddup_hashes_free(&h);
}

/* Long inputs: big texts, long mark sequences, pathological markup. */
static void
test_long_inputs(void)
{
	size_t		reps = 200000;
	size_t		len = reps * 5;
	char	   *big = malloc(len * 4 + 16);
	NddupBuf	buf = {0};
	NddupHashes h = {0};
	size_t		i;
	size_t		n;

	/* "Word " x 200000 */
	for (i = 0; i < reps; i++)
		memcpy(big + i * 5, "Word ", 5);
	nddup_normalize(big, len, &buf);
	CHECK(buf.len == reps * 5 - 1);
	CHECK(memcmp(buf.data, "word word", 9) == 0);
	n = nddup_shingle_hashes(buf.data, buf.len, 3, NDDUP_UNIT_WORD, push_hash, &h);
	CHECK(n == reps - 2 && h.len == reps - 2);
	CHECK(h.len > 2 && h.items[0] == h.items[h.len - 1]);
	h.len = 0;
	n = nddup_shingle_hashes(buf.data, buf.len, 64, NDDUP_UNIT_CHAR, push_hash, &h);
	CHECK(n == reps * 5 - 1 - 63);
	buf.len = 0;

	/* 'a' followed by 100000 combining marks (one long segment) */
	big[0] = 'a';
	for (i = 0; i < 100000; i++)
	{
		big[1 + 2 * i] = (char) 0xcc;
		big[2 + 2 * i] = (char) (i % 2 ? 0x81 : 0xa3);	/* acute, dot below */
	}
	nddup_normalize(big, 1 + 200000, &buf);
	/* ạ (U+1EA1) then 50000 acutes and 49999 dots below, in canonical order */
	CHECK(buf.len == 3 + 2 * 99999);
	CHECK(memcmp(buf.data, "\xe1\xba\xa1", 3) == 0);
	CHECK(memcmp(buf.data + 3, "\xcc\xa3", 2) == 0);
	CHECK(memcmp(buf.data + buf.len - 2, "\xcc\x81", 2) == 0);
	buf.len = 0;

	/* 100000 full-width letters (no stable starter) */
	for (i = 0; i < 100000; i++)
		memcpy(big + 3 * i, "\xef\xbc\xa1", 3);
	nddup_normalize(big, 300000, &buf);
	CHECK(buf.len == 100000 && buf.data[0] == 'a' && buf.data[99999] == 'a');
	buf.len = 0;

	/* "<a" repeated without '>', "&#" and "<!--" forms: linear time */
	for (i = 0; i < 300000; i++)
		memcpy(big + 2 * i, "<a", 2);
	nddup_normalize(big, 600000, &buf);
	CHECK(buf.len == 300000 * 2 - 1);
	buf.len = 0;
	for (i = 0; i < 300000; i++)
		memcpy(big + 2 * i, "&#", 2);
	nddup_normalize(big, 600000, &buf);
	CHECK(buf.len == 0);
	buf.len = 0;
	for (i = 0; i < 300000; i++)
		memcpy(big + 2 * i, "<s", 2);
	memcpy(big + 600000, "cript>x", 7);
	nddup_normalize(big, 600007, &buf);
	/* one tag "<s<s...<script>" up to the only '>', then "x" */
	CHECK(buf.len == 1 && buf.data[0] == 'x');

	nddup_buf_free(&buf);
	nddup_hashes_free(&h);
	free(big);
}

/* Calls of the interrupt hook, counted by count_interrupts. */
static size_t interrupts;

/* An interrupt hook that only counts its calls. */
static void
count_interrupts(void)
{
	interrupts++;
}

/* Hash batch callback that keeps a running sum (so nothing is stored). */
static void
sum_hashes(void *arg, const uint64_t *hashes, size_t n)
{
	for (size_t i = 0; i < n; i++)
		*(uint64_t *) arg += hashes[i];
}

/*
 * The interrupt hook: the long loops of normalization and shingling call it
 * about every NDDUP_INTERRUPT_STRIDE bytes (plain ASCII words, separators
 * only, the general non-ASCII path, word and character shingles), and the
 * results do not depend on it.
 */
static void
test_interrupt_hook(void)
{
	static const char *const pieces[] = {"Word ", "     ", "\xc3\xa9t\xc3\xa9 \xe6\x9d\xb1 "};
	size_t		len = 8 * NDDUP_INTERRUPT_STRIDE;
	char	   *big = malloc(len + 16);

	for (size_t p = 0; p < sizeof(pieces) / sizeof(pieces[0]); p++)
	{
		size_t		plen = strlen(pieces[p]);
		size_t		n = len / plen * plen;
		NddupBuf	with = {0};
		NddupBuf	without = {0};
		uint64_t	sum_with = 0;
		uint64_t	sum_without = 0;
		size_t		count;

		for (size_t i = 0; i < n; i += plen)
			memcpy(big + i, pieces[p], plen);

		nddup_interrupt_hook = NULL;
		nddup_normalize(big, n, &without);
		nddup_interrupt_hook = count_interrupts;
		interrupts = 0;
		nddup_normalize(big, n, &with);
		CHECK(interrupts >= 7);
		CHECK(with.len == without.len && memcmp(with.data, without.data, with.len) == 0);

		for (int unit = 0; unit < 2; unit++)
		{
			nddup_interrupt_hook = NULL;
			sum_without = 0;
			count = nddup_text_shingles(big, n, 3, (NddupUnit) unit, sum_hashes, &sum_without);
			nddup_interrupt_hook = count_interrupts;
			interrupts = 0;
			sum_with = 0;
			CHECK(nddup_text_shingles(big, n, 3, (NddupUnit) unit, sum_hashes, &sum_with) == count);
			CHECK(sum_with == sum_without);
			/* at least one call per stride of bytes read or hashes made */
			CHECK(interrupts >= 7);
		}
		nddup_buf_free(&with);
		nddup_buf_free(&without);
	}
	nddup_interrupt_hook = NULL;
	free(big);
}

/* Parse one field of NormalizationTest.txt (hex code points) into UTF-8. */
static void
field_to_utf8(const char *field, NddupBuf *out)
{
	char	   *endp;

	out->len = 0;
	for (;;)
	{
		unsigned long cp = strtoul(field, &endp, 16);
		char		u[4];
		size_t		n;

		if (endp == field)
			break;
		field = endp;
		if (cp < 0x80)
		{
			u[0] = (char) cp;
			n = 1;
		}
		else if (cp < 0x800)
		{
			u[0] = (char) (0xC0 | (cp >> 6));
			u[1] = (char) (0x80 | (cp & 0x3F));
			n = 2;
		}
		else if (cp < 0x10000)
		{
			u[0] = (char) (0xE0 | (cp >> 12));
			u[1] = (char) (0x80 | ((cp >> 6) & 0x3F));
			u[2] = (char) (0x80 | (cp & 0x3F));
			n = 3;
		}
		else
		{
			u[0] = (char) (0xF0 | (cp >> 18));
			u[1] = (char) (0x80 | ((cp >> 12) & 0x3F));
			u[2] = (char) (0x80 | ((cp >> 6) & 0x3F));
			u[3] = (char) (0x80 | (cp & 0x3F));
			n = 4;
		}
		nddup_buf_append(out, u, n);
	}
}

/*
 * NormalizationTest.txt: for every line, NFKC(c1..c5) = c4; and every code
 * point not listed in part 1 is its own NFKC.
 */
static void
test_normalization_file(void)
{
	FILE	   *f;
	bool		piped = false;
	char		line[4096];
	NddupBuf	field = {0};
	NddupBuf	want = {0};
	NddupBuf	got = {0};
	unsigned char *listed = calloc(0x110000, 1);
	int			part = -1;
	long		lines = 0;
	long		bad = 0;
	uint32_t	cp;

	f = fopen(NORMALIZATION_TEST_TXT, "r");
	if (f == NULL)
	{
		f = fopen(NORMALIZATION_TEST_BZ2, "r");
		if (f != NULL)
		{
			fclose(f);
			f = popen("bzip2 -dc " NORMALIZATION_TEST_BZ2 " 2>/dev/null", "r");
			piped = true;
		}
	}
	if (f == NULL)
	{
		printf("test_text: NormalizationTest.txt not found, NFKC conformance check skipped\n");
		free(listed);
		return;
	}

	while (fgets(line, sizeof(line), f) != NULL)
	{
		char	   *cols[5];
		char	   *p = line;
		int			i;

		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (line[0] == '@')
		{
			part = atoi(line + 5);
			continue;
		}
		for (i = 0; i < 5; i++)
		{
			char	   *semi = strchr(p, ';');

			if (semi == NULL)
				break;
			*semi = '\0';
			cols[i] = p;
			p = semi + 1;
		}
		if (i < 5)
			continue;
		lines++;
		if (part == 1)
			listed[strtoul(cols[0], NULL, 16)] = 1;

		field_to_utf8(cols[3], &want);
		for (i = 0; i < 5; i++)
		{
			field_to_utf8(cols[i], &field);
			got.len = 0;
			nddup_nfkc(field.data, field.len, &got);
			if (got.len != want.len || memcmp(got.data, want.data, got.len) != 0)
			{
				if (++bad <= 10)
					printf("test_text: NFKC mismatch, column %d of line: %s;%s;%s;%s;%s\n",
						   i + 1, cols[0], cols[1], cols[2], cols[3], cols[4]);
			}
		}
	}
	if (piped)
		pclose(f);
	else
		fclose(f);

	if (lines == 0)
	{
		printf("test_text: NormalizationTest.txt unreadable, NFKC conformance check skipped\n");
		nddup_buf_free(&field);
		free(listed);
		return;
	}

	/* code points not in part 1 are unchanged */
	for (cp = 0; cp < 0x110000; cp++)
	{
		char		u[8];
		int			n;

		if (listed[cp] || (cp >= 0xD800 && cp <= 0xDFFF))
			continue;
		snprintf(u, sizeof(u), "%X", (unsigned) cp);
		field_to_utf8(u, &field);
		got.len = 0;
		nddup_nfkc(field.data, field.len, &got);
		n = (got.len == field.len && memcmp(got.data, field.data, got.len) == 0);
		if (!n && ++bad <= 10)
			printf("test_text: U+%04X is not its own NFKC\n", (unsigned) cp);
	}

	printf("test_text: NFKC checked against %ld lines of NormalizationTest.txt\n",
		   lines);
	checks++;
	if (bad > 0)
	{
		failures++;
		printf("test_text: %ld NFKC mismatches against NormalizationTest.txt\n", bad);
	}
	nddup_buf_free(&field);
	nddup_buf_free(&want);
	nddup_buf_free(&got);
	free(listed);
}

/* Run every text pipeline test; returns the number of failures. */
int
run_text_tests(void)
{
	failures = 0;
	checks = 0;
	test_buffers();
	test_known_answers();
	test_html();
	test_nfkc();
	test_hangul_whole();
	test_case_folding();
	test_separators();
	test_invalid_utf8();
	test_tokenize();
	test_shingles();
	test_long_inputs();
	test_interrupt_hook();
	test_normalization_file();
	printf("test_text: %d checks, %d failures\n", checks, failures);
	fflush(stdout);
	return failures;
}
