/*-------------------------------------------------------------------------
 *
 * test_scan.c
 *	  Unit tests of the one-pass shingle path (nddup_text_shingles, used by
 *	  nddup_simhash_text and the sketches): on every input it must give
 *	  exactly what the general path gives, nddup_normalize followed by
 *	  nddup_shingle_hashes.
 *
 * The normalized form of plain ASCII is also compared with the rules
 * directly (the normalizer copies it 64 bytes at a time).
 *
 * Inputs: random ASCII (letters, digits, separators, '<', '&' and the
 * other bytes of markup), long words and lengths around the 64-byte blocks
 * of the scanner, random mixes of ASCII with non-ASCII text (composing
 * marks, ideographs, full-width forms, invalid UTF-8), random HTML (tags,
 * comments, script, character references), and every ASCII byte followed
 * by every combining or composing code point.  Any difference fails, with
 * the input printed.
 *
 * run_scan_tests() returns the number of failures.  test_core.c runs it
 * in the normal build, and without the exhaustive ASCII-then-mark test in
 * a build with -DNDDUP_NO_SIMD (the portable byte classifier and simhash
 * comparison).
 *
 *-------------------------------------------------------------------------
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nddup_core.h"
#include "unicode_tables.h"
#include "unit_test.h"

int			run_scan_tests(bool exhaustive);

static int	failures;
static int	checks;
static int	reported;

#define CHECK(cond, ...) UNIT_CHECK(checks, failures, cond, __VA_ARGS__)

/* Hash callback: push the hash to a NddupHashes. */
static void
push_hash(void *arg, uint64_t hash)
{
	nddup_hashes_push((NddupHashes *) arg, hash);
}

/* Print an input as C string escapes (only the first few failures). */
static void
print_input(const char *what, const char *s, size_t len)
{
	if (++reported > 10)
		return;
	fprintf(stderr, "  %s (%zu bytes): \"", what, len);
	for (size_t i = 0; i < len && i < 400; i++)
	{
		unsigned char c = (unsigned char) s[i];

		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\')
			fputc(c, stderr);
		else
			fprintf(stderr, "\\x%02x", c);
	}
	fprintf(stderr, "%s\"\n", len > 400 ? "..." : "");
}

/* The simhash of n hashes, one feature each (the reference for tf). */
static uint64_t
simhash_of(const uint64_t *h, size_t n)
{
	NddupSimhashAcc acc;

	nddup_simhash_init(&acc);
	for (size_t i = 0; i < n; i++)
		nddup_simhash_add(&acc, h[i]);
	return nddup_simhash_finish(&acc);
}

/*
 * Compare the one-pass path with the general path on src[0..len), for
 * shingle size w and unit; with_simhash, also the simhash of the text, tf
 * and set.
 */
static void
compare_paths(const char *what, const char *src, size_t len, int w,
			  NddupUnit unit, bool with_simhash)
{
	NddupBuf	norm = {0};
	NddupHashes slow = {0};
	NddupHashes fast = {0};
	size_t		nslow;
	size_t		nfast;
	bool		same;

	nddup_normalize(src, len, &norm);
	nslow = nddup_shingle_hashes(norm.data ? norm.data : "", norm.len, w, unit,
								 push_hash, &slow);
	nfast = nddup_text_shingles(src, len, w, unit, nddup_hashes_append, &fast);
	same = nslow == nfast && slow.len == fast.len && nslow == slow.len &&
		(slow.len == 0 || memcmp(slow.items, fast.items,
								 slow.len * sizeof(uint64_t)) == 0);
	CHECK(same, "%s: one-pass shingles differ from normalize + shingles "
		  "(size %d, %s; %zu and %zu shingles)", what, w,
		  unit == NDDUP_UNIT_CHAR ? "char" : "word", nfast, nslow);
	if (!same)
		print_input("input", src, len);

	if (same && with_simhash)
	{
		uint64_t	tf = nddup_simhash_text(src, len, w, unit, false);
		uint64_t	set = nddup_simhash_text(src, len, w, unit, true);
		size_t		distinct;

		uint64_t	want_tf = simhash_of(slow.items, slow.len);
		uint64_t	want_set;

		distinct = nddup_sort_unique(slow.items, slow.len);
		want_set = simhash_of(slow.items, distinct);
		CHECK(tf == want_tf,
			  "%s: simhash_text (tf) differs from the general path", what);
		CHECK(set == want_set,
			  "%s: simhash_text (set) differs from the general path", what);
		if (tf != want_tf || set != want_set)
			print_input("input", src, len);
	}
	nddup_buf_free(&norm);
	nddup_hashes_free(&slow);
	nddup_hashes_free(&fast);
}

/* Compare the paths for the usual shingle sizes and both units. */
static void
compare_all(const char *what, const char *src, size_t len)
{
	static const int sizes[] = {1, 2, 3, 5};

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		compare_paths(what, src, len, sizes[i], NDDUP_UNIT_WORD,
					  sizes[i] == 2 || sizes[i] == 3);
	compare_paths(what, src, len, 4, NDDUP_UNIT_CHAR, false);
}

/* A random value below n. */
static size_t
below(uint64_t *state, size_t n)
{
	return (size_t) (unit_splitmix64(state) % n);
}

/*
 * The normalized form of ASCII text without '<' and '&' by the rules of
 * docs/text-pipeline.md: lower-cased runs of letters and digits, joined by
 * single spaces.  out needs len + 1 bytes; returns the length.
 */
static size_t
reference_ascii_normalize(const char *s, size_t len, char *out)
{
	size_t		n = 0;
	bool		pending = false;

	for (size_t i = 0; i < len; i++)
	{
		unsigned char c = (unsigned char) s[i];
		bool		word = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
			(c >= 'A' && c <= 'Z');

		if (!word)
		{
			pending = n > 0;
			continue;
		}
		if (pending)
			out[n++] = ' ';
		pending = false;
		out[n++] = (c >= 'A' && c <= 'Z') ? (char) (c + 32) : (char) c;
	}
	return n;
}

/* Compare nddup_normalize with the reference on ASCII without markup. */
static void
check_ascii_normalize(const char *s, size_t len)
{
	NddupBuf	norm = {0};
	char	   *want = malloc(len + 1);
	size_t		n = reference_ascii_normalize(s, len, want);

	nddup_normalize(s, len, &norm);
	CHECK(norm.len == n && (n == 0 || memcmp(norm.data, want, n) == 0),
		  "normalize of plain ASCII differs from the rules (%zu and %zu bytes)",
		  norm.len, n);
	if (norm.len != n || (n > 0 && memcmp(norm.data, want, n) != 0))
		print_input("input", s, len);
	nddup_buf_free(&norm);
	free(want);
}

/* Random ASCII: separators and markup bytes among letters and digits. */
static void
test_random_ascii(void)
{
	static const char alphabet[] =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
		"eeeeaaaaoooo      \n\t.,;:!?-_'\"()[]{}/\\|=+*%$#@^~`<>&\x01\x7f";
	uint64_t	state = 1;
	char		buf[700];

	for (int round = 0; round < 3000; round++)
	{
		size_t		len = below(&state, round < 1500 ? 140 : sizeof(buf));
		/* sometimes only word bytes and spaces, sometimes few separators */
		size_t		span = round % 3 == 0 ? 62 : sizeof(alphabet) - 1;

		for (size_t i = 0; i < len; i++)
		{
			size_t		k = below(&state, span);

			buf[i] = round % 5 == 0 && below(&state, 8) == 0 ? ' ' : alphabet[k];
		}
		compare_all("random ASCII", buf, len);
		if (memchr(buf, '<', len) == NULL && memchr(buf, '&', len) == NULL)
			check_ascii_normalize(buf, len);
	}
}

/*
 * Long words and every length around the scanner's blocks: one word of
 * length n, words that end on each byte of a block, words longer than the
 * scanner's token buffer on the stack (256 bytes).
 */
static void
test_block_edges(void)
{
	char	   *buf = malloc(3000);

	for (size_t n = 0; n <= 200; n++)
	{
		for (size_t i = 0; i < n; i++)
			buf[i] = (char) ('a' + i % 26);
		compare_all("one word", buf, n);
		for (size_t i = 0; i < n; i++)
			buf[i] = (i % 7 == 6) ? ' ' : (char) ('A' + i % 26);
		compare_all("short words", buf, n);
		check_ascii_normalize(buf, n);
	}
	for (size_t n = 250; n < 3000; n += 97)
	{
		for (size_t i = 0; i < n; i++)
			buf[i] = (char) ('a' + (i * 7) % 26);
		buf[n / 3] = ' ';
		compare_all("long words", buf, n);
		/* a long token across inline tags */
		memcpy(buf + n / 2, "<b>", 3);
		compare_all("long word with a tag", buf, n);
		/* and a non-ASCII letter near its end */
		if (n > 10)
		{
			memcpy(buf + n - 5, "\xc3\xa9", 2);
			compare_all("long word, then non-ASCII", buf, n);
		}
	}
	free(buf);
}

/* Pieces of mixed text: ASCII words, marks, scripts, invalid bytes. */
static const char *const mixed_pieces[] = {
	"word", "Word", "WORD", "a", "e", "E", "o", "n", "i", "s", "K", "1", "42",
	" ", " ", " ", "  ", "\n", ".", ",", "-", "'", "=", "<", ">",
	"\xcc\x81",					/* U+0301 combining acute */
	"\xcc\x88",					/* U+0308 combining diaeresis */
	"\xcc\xa3",					/* U+0323 combining dot below */
	"\xcc\xb8",					/* U+0338 combining long solidus overlay */
	"\xcd\x85",					/* U+0345 combining ypogegrammeni */
	"\xc3\xa9",					/* é */
	"\xc3\x9f",					/* ß */
	"\xc4\xb0",					/* İ */
	"\xe2\x84\xaa",				/* U+212A Kelvin sign */
	"\xef\xbc\xa1\xef\xbd\x82",	/* full-width Ａｂ */
	"\xef\xac\x81",				/* ﬁ */
	"\xe6\x9d\xb1\xe4\xba\xac",	/* 東京 */
	"\xe3\x83\x87\xe3\x83\xbc",	/* デー */
	"\xe3\x82\xab\xe3\x82\x99",	/* カ + combining voiced mark */
	"\xed\x95\x9c\xea\xb5\xad",	/* 한국 */
	"\xe1\x84\x80\xe1\x85\xa1\xe1\x86\xa8",	/* Hangul jamo L V T */
	"\xd0\x9f\xd1\x80\xd0\xb8",	/* При */
	"\xce\xa3\xce\xb1",			/* Σα */
	"\xc2\xa0",					/* no-break space */
	"\xe2\x80\x8d",				/* zero width joiner */
	"\xef\xbf\xbd",				/* U+FFFD */
	"\xf0\x9f\x98\x80",			/* an emoji */
	"\xff", "\xc3", "\xe6\x9d", "\x80",	/* invalid UTF-8 */
	"\xc2\xbd",					/* ½ */
	"\xe2\x91\xa0",				/* ① */
};

/* Pieces of HTML: tags, comments, raw text elements, references. */
static const char *const html_pieces[] = {
	"<b>", "</b>", "<i>", "<span class=x>", "</span>", "<p>", "</p>",
	"<br/>", "<div\n>", "<a href=\"x\">", "</a>", "<B>", "<SPAN>",
	"<!-- c -->", "<!-->", "<!--", "-->", "<!doctype html>", "<?xml?>",
	"<script>var a = 1 < 2;</script>", "<style>p{}</style>", "<script",
	"</script>", "<scripts>", "<", "<<", "< b", "x<y", ">", "<b",
	"&amp;", "&lt;", "&gt;", "&quot;", "&nbsp;", "&eacute;", "&fjlig;",
	"&NotEqualTilde;", "&#65;", "&#x41;", "&#X62;", "&#x301;", "&#769;",
	"&#0;", "&#xD800;", "&#1114112;", "&#;", "&#x;", "&amp", "&", "&&",
	"&#x338;", "&#61;", "&#60;", "&unknownentity;",
};

/* Random concatenations of pieces (from one or two lists) and ASCII. */
static void
random_pieces(const char *what, const char *const *a, size_t na,
			  const char *const *b, size_t nb, int rounds, uint64_t seed)
{
	uint64_t	state = seed;
	char		buf[1200];

	for (int round = 0; round < rounds; round++)
	{
		size_t		len = 0;
		size_t		pieces = 1 + below(&state, round % 4 == 0 ? 120 : 24);

		for (size_t k = 0; k < pieces; k++)
		{
			const char *piece;
			size_t		r = below(&state, 10);

			if (b != NULL && r < 4)
				piece = b[below(&state, nb)];
			else if (r < 8)
				piece = a[below(&state, na)];
			else
				piece = r == 8 ? " " : "text";
			if (len + strlen(piece) > sizeof(buf))
				break;
			memcpy(buf + len, piece, strlen(piece));
			len += strlen(piece);
		}
		compare_all(what, buf, len);
	}
}

/* Mixed ASCII and Unicode, HTML, and both. */
static void
test_random_mixes(void)
{
	size_t		nmixed = sizeof(mixed_pieces) / sizeof(mixed_pieces[0]);
	size_t		nhtml = sizeof(html_pieces) / sizeof(html_pieces[0]);

	random_pieces("mixed ASCII and Unicode", mixed_pieces, nmixed, NULL, 0,
				  2000, 7);
	random_pieces("HTML", html_pieces, nhtml, mixed_pieces, 13, 2000, 11);
	random_pieces("HTML and Unicode", html_pieces, nhtml, mixed_pieces,
				  nmixed, 2000, 13);
}

/* Write the UTF-8 encoding of cp at p; returns its length. */
static size_t
put_utf8(char *p, uint32_t cp)
{
	if (cp < 0x80)
	{
		p[0] = (char) cp;
		return 1;
	}
	if (cp < 0x800)
	{
		p[0] = (char) (0xC0 | (cp >> 6));
		p[1] = (char) (0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000)
	{
		p[0] = (char) (0xE0 | (cp >> 12));
		p[1] = (char) (0x80 | ((cp >> 6) & 0x3F));
		p[2] = (char) (0x80 | (cp & 0x3F));
		return 3;
	}
	p[0] = (char) (0xF0 | (cp >> 18));
	p[1] = (char) (0x80 | ((cp >> 12) & 0x3F));
	p[2] = (char) (0x80 | ((cp >> 6) & 0x3F));
	p[3] = (char) (0x80 | (cp & 0x3F));
	return 4;
}

/*
 * Every ASCII byte followed by every code point that may compose with what
 * precedes it or has a combining class, between words and at the start:
 * where the scanner hands over to the general path.
 */
static void
test_ascii_then_marks(void)
{
	for (uint32_t cp = 0x80; cp < 0x110000; cp++)
	{
		const NddupUProps *p;

		if (cp >= 0xD800 && cp <= 0xDFFF)
			continue;
		p = nddup_uprops_of(cp);
		if (!(p->flags & NDDUP_UF_COMP2) && p->ccc == 0)
			continue;
		for (int c = 1; c < 0x80; c++)
		{
			char		buf[32];
			size_t		len = 0;

			memcpy(buf, "ab ", 3);
			len = 3;
			buf[len++] = (char) c;
			len += put_utf8(buf + len, cp);
			memcpy(buf + len, "cd e", 4);
			len += 4;
			compare_paths("ASCII then a mark", buf, len, 1, NDDUP_UNIT_WORD,
						  false);
			compare_paths("ASCII then a mark, at the start", buf + 3, len - 3, 1,
						  NDDUP_UNIT_WORD, false);
		}
	}
}

/* The tokenizer's shortcut: no one-character token below NDDUP_SOLO_MIN. */
static void
test_solo_min(void)
{
	uint32_t	first = 0x110000;

	for (uint32_t cp = 0; cp < 0x110000 && first == 0x110000; cp++)
		if (nddup_uprops_of(cp)->flags & NDDUP_UF_SOLO)
			first = cp;
	CHECK(first >= NDDUP_SOLO_MIN,
		  "U+%04X is a one-character token, below NDDUP_SOLO_MIN", (unsigned) first);
}

/* Known equalities of the one-pass path, as in docs/text-pipeline.md. */
static void
test_known(void)
{
	NddupHashes a = {0};
	NddupHashes b = {0};

	/* markup, case, references and separators do not matter */
	nddup_text_shingles("The <b>Qu</b>ick brown&nbsp;fox", 31, 2,
						NDDUP_UNIT_WORD, nddup_hashes_append, &a);
	nddup_text_shingles("the quick   BROWN fox!", 22, 2, NDDUP_UNIT_WORD,
						nddup_hashes_append, &b);
	CHECK(a.len == 3 && b.len == 3 &&
		  memcmp(a.items, b.items, 3 * sizeof(uint64_t)) == 0,
		  "equivalent texts give different one-pass shingles");

	/* "e" + U+0301 is "é": one word, not "e" then a mark */
	a.len = 0;
	b.len = 0;
	nddup_text_shingles("caf" "e\xcc\x81 x", 9, 1, NDDUP_UNIT_WORD,
						nddup_hashes_append, &a);
	nddup_text_shingles("caf\xc3\xa9 x", 8, 1, NDDUP_UNIT_WORD,
						nddup_hashes_append, &b);
	CHECK(a.len == 2 && b.len == 2 && a.items[0] == b.items[0] &&
		  a.items[0] == nddup_hash_bytes("caf\xc3\xa9", 5),
		  "e + combining acute is not the token caf\xc3\xa9");

	/* "=" + U+0338 is a symbol: a separator */
	a.len = 0;
	nddup_text_shingles("a=\xcc\xb8" "b", 5, 1, NDDUP_UNIT_WORD,
						nddup_hashes_append, &a);
	CHECK(a.len == 2 && a.items[1] == nddup_hash_bytes("b", 1),
		  "= + U+0338 does not separate a and b");

	/* out of range sizes: nothing */
	CHECK(nddup_text_shingles("a b", 3, 0, NDDUP_UNIT_WORD,
							  nddup_hashes_append, &a) == 0 &&
		  nddup_text_shingles("a b", 3, NDDUP_MAX_SHINGLE_SIZE + 1,
							  NDDUP_UNIT_CHAR, nddup_hashes_append, &a) == 0,
		  "shingle size out of range gives shingles");
	nddup_hashes_free(&a);
	nddup_hashes_free(&b);
}

/* Large texts: many batches of hashes, a long token in one piece. */
static void
test_large(void)
{
	size_t		len = 300000;
	char	   *big = malloc(len);
	uint64_t	state = 99;

	for (size_t i = 0; i < len; i++)
		big[i] = below(&state, 6) == 0 ? ' ' : (char) ('a' + below(&state, 3));
	compare_all("300 KB of short words", big, len);
	/* a few non-ASCII characters and tags in it */
	memcpy(big + 1000, "\xc3\xa9", 2);
	memcpy(big + 150000, "<b>", 3);
	memcpy(big + 200000, "&#x301;", 7);
	compare_all("300 KB with a few non-ASCII characters", big, len);
	memset(big, 'x', len);
	compare_all("one 300 KB token", big, len);
	free(big);
}

/*
 * Run every test of the one-pass path (exhaustive: with every ASCII byte
 * before every mark); returns the number of failures.
 */
int
run_scan_tests(bool exhaustive)
{
	failures = 0;
	checks = 0;
	test_solo_min();
	test_known();
	test_random_ascii();
	test_block_edges();
	test_random_mixes();
	if (exhaustive)
		test_ascii_then_marks();
	test_large();
	printf("scan: %d checks, %d failures\n", checks, failures);
	fflush(stdout);
	return failures;
}
