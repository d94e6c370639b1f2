/*-------------------------------------------------------------------------
 *
 * test_explain.c
 *	  Unit tests of the explanation of a match (src/core/explain.c) and of
 *	  the source map of normalization (nddup_normalize_mapped).
 *
 * run_explain_tests() runs them all, prints each failure and returns the
 * number of failures.
 *
 *-------------------------------------------------------------------------
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explain.h"
#include "unit_test.h"

int			run_explain_tests(void);

static int	checks;
static int	failures;

#define CHECK(cond, ...) UNIT_CHECK(checks, failures, cond, __VA_ARGS__)

/* Texts that exercise markup, references, NFKC, folding and CJK. */
static const char *const samples[] = {
	"",
	"   ",
	"one",
	"two words",
	"<p>The <b>Quick</b> brown&nbsp;fox!</p> jumps over the lazy dog.",
	"Caf&eacute; au lait, s'il vous pla&#xEE;t &amp; merci",
	"e&#x301;te\xcc\x81 <!-- gone --> stra\xc3\x9f" "e STRASSE",
	"\xe6\x9d\xb1\xe4\xba\xac\xe9\x83\xbd\xe3\x81\xae\xe5\xa4\xa9\xe6\xb0\x97 abc 123",
	"\xef\xac\x81ne \xef\xbc\xa6\xef\xbd\x95\xef\xbd\x8c\xef\xbd\x8c \xc2\xbd \xe3\x8d\xbf x",
	"SSL_CTX_new SSL_CTX_free <script>var x = 1;</script> foo_bar baz",
	"a rose is a rose is a rose",
	"bad \xff\xfe utf8 \xe2\x82 here <a href=x>link</a>text &lt;b&gt;",
	"\xed\x95\x9c\xea\xb5\xad\xec\x96\xb4 \xed\x85\x8d\xec\x8a\xa4\xed\x8a\xb8 \xd0\x9f\xd1\x80\xd0\xb8\xd0\xb2\xd0\xb5\xd1\x82, \xd0\x9c\xd0\x98\xd0\xa0!",
};

#define NSAMPLES (sizeof(samples) / sizeof(samples[0]))

/* A random text of ASCII words, markup, references and some Unicode. */
static size_t
random_text(uint64_t *state, char *buf, size_t cap)
{
	static const char *const pieces[] = {
		"alpha", "beta", "gamma", "delta", "the", "a", " ", " ", "  ", ", ",
		"<b>", "</b>", "<p>", "&amp;", "&eacute;", "&#x301;", "\xc3\xa9",
		"\xe6\x9d\xb1", "\xe4\xba\xac", "\xcc\x81", "Zeta", "x_y", "<!-- c -->",
		"\xef\xac\x81", "1", "\xe3\x8d\xbf",
	};
	size_t		n = 0;
	size_t		count = 5 + unit_splitmix64(state) % 60;

	for (size_t i = 0; i < count; i++)
	{
		const char *p = pieces[unit_splitmix64(state) % (sizeof(pieces) / sizeof(pieces[0]))];
		size_t		len = strlen(p);

		if (n + len >= cap)
			break;
		memcpy(buf + n, p, len);
		n += len;
	}
	return n;
}

/* The mapped normalization writes what nddup_normalize writes. */
static void
check_mapped(const char *src, size_t len, bool joined)
{
	NddupBuf	plain = {0};
	NddupBuf	mapped = {0};
	NddupSourceMap map = {0};

	if (joined)
		nddup_normalize_joined(src, len, &plain);
	else
		nddup_normalize(src, len, &plain);
	nddup_normalize_mapped(src, len, joined, &mapped, &map);
	CHECK(plain.len == mapped.len &&
		  (plain.len == 0 || memcmp(plain.data, mapped.data, plain.len) == 0),
		  "mapped normalization differs for \"%.*s\"", (int) len, src);
	for (size_t i = 0; i < mapped.len; i++)
	{
		CHECK(map.start[i] < map.end[i] && map.end[i] <= len,
			  "bad source range [%zu, %zu) of byte %zu of \"%.*s\"",
			  map.start[i], map.end[i], i, (int) len, src);
		if (i > 0)
			CHECK(map.start[i] >= map.start[i - 1] && map.end[i] >= map.end[i - 1],
				  "source ranges go back at byte %zu of \"%.*s\"", i, (int) len, src);
	}
	nddup_buf_free(&plain);
	nddup_buf_free(&mapped);
	nddup_source_map_free(&map);
}

/* The explanation's shingles are nddup_text_shingles' in the same order. */
static void
check_shingles(const char *src, size_t len, const NddupExplainSide *side,
			   int w, NddupUnit unit)
{
	NddupHashes want = {0};

	nddup_text_shingles(src, len, w, unit, nddup_hashes_append, &want);
	CHECK(want.len == side->nshingles &&
		  (want.len == 0 || memcmp(want.items, side->shingles, want.len * 8) == 0),
		  "shingles (size %d, unit %d) differ for \"%.*s\": %zu vs %zu",
		  w, (int) unit, (int) len, src, side->nshingles, want.len);
	nddup_hashes_free(&want);
}

/*
 * The distinct shingles of the passages of one side are the shared ones,
 * their number the intersection's; the passages cover no other shingle.
 */
static void
check_passages(const NddupExplainSide *side, const NddupExplainSide *other,
			   size_t shared, size_t len)
{
	NddupHashes covered = {0};
	NddupHashes other_set = {0};
	size_t		next = 0;

	for (size_t i = 0; i < other->nshingles; i++)
		nddup_hashes_push(&other_set, other->shingles[i]);
	other_set.len = nddup_sort_unique(other_set.items, other_set.len);
	for (size_t p = 0; p < side->npassages; p++)
	{
		const NddupPassage *ps = &side->passages[p];

		CHECK(ps->count > 0 && ps->first >= next && ps->start < ps->end &&
			  ps->end <= len, "bad passage %zu", p);
		/* maximal: the shingles just before and after are not shared */
		if (ps->first > 0)
			CHECK(!nddup_sorted_contains(other_set.items, other_set.len,
										 side->shingles[ps->first - 1]),
				  "passage %zu could start earlier", p);
		if (ps->first + ps->count < side->nshingles)
			CHECK(!nddup_sorted_contains(other_set.items, other_set.len,
										 side->shingles[ps->first + ps->count]),
				  "passage %zu could end later", p);
		for (size_t i = ps->first; i < ps->first + ps->count; i++)
		{
			CHECK(nddup_sorted_contains(other_set.items, other_set.len,
										side->shingles[i]),
				  "passage %zu holds an unshared shingle", p);
			nddup_hashes_push(&covered, side->shingles[i]);
		}
		next = ps->first + ps->count + 1;
	}
	covered.len = covered.len > 0 ? nddup_sort_unique(covered.items, covered.len) : 0;
	CHECK(covered.len == shared, "passages cover %zu distinct shingles, %zu shared",
		  covered.len, shared);
	nddup_hashes_free(&covered);
	nddup_hashes_free(&other_set);
}

/* Explain a against b and check every property above. */
static void
check_pair(const char *a, size_t alen, const char *b, size_t blen, int w,
		   NddupUnit unit)
{
	NddupExplain e;

	if (!nddup_explain(a, alen, b, blen, w, unit, &e))
	{
		CHECK(false, "nddup_explain refused size %d unit %d", w, (int) unit);
		return;
	}
	check_shingles(a, alen, &e.a, w, unit);
	check_shingles(b, blen, &e.b, w, unit);
	CHECK(e.shared <= e.a.distinct && e.shared <= e.b.distinct, "shared too large");
	check_passages(&e.a, &e.b, e.shared, alen);
	check_passages(&e.b, &e.a, e.shared, blen);
	nddup_explain_free(&e);
}

/* The bytes of each passage of a, as a string list "x|y|". */
static void
passage_text(const char *a, const NddupExplainSide *side, char *out, size_t cap)
{
	size_t		n = 0;

	out[0] = '\0';
	for (size_t p = 0; p < side->npassages; p++)
	{
		size_t		len = side->passages[p].end - side->passages[p].start;

		if (n + len + 2 > cap)
			break;
		memcpy(out + n, a + side->passages[p].start, len);
		n += len;
		out[n++] = '|';
		out[n] = '\0';
	}
}

/* Exact passages, as input bytes, of a few pairs. */
static void
test_exact_passages(void)
{
	static const struct
	{
		const char *a;
		const char *b;
		int			w;
		const char *want_a;
		const char *want_b;
	}			cases[] = {
		{"<p>The <b>Quick</b> brown&nbsp;fox!</p> jumps. Unrelated tail here",
			"the quick brown fox jumps", 3,
		"The <b>Quick</b> brown&nbsp;fox!</p> jumps|", "the quick brown fox jumps|"},
		{"Caf&eacute; au lait s'il vous pla&#xEE;t", "CAF\xc3\x89 AU LAIT, non", 2,
		"Caf&eacute; au lait|", "CAF\xc3\x89 AU LAIT|"},
		/* e + combining acute from a reference composes: the range covers both */
		{"x caf&#x65;&#x301; y z", "X CAF\xc3\xa9 Y", 2, "x caf&#x65;&#x301; y|", "X CAF\xc3\xa9 Y|"},
		/* CJK: one token per ideograph or kana */
		{"\xe4\xbb\x8a\xe6\x97\xa5\xe3\x81\xae\xe6\x9d\xb1\xe4\xba\xac\xe9\x83\xbd\xe3\x81\xae\xe5\xa4\xa9\xe6\xb0\x97",
			"\xe6\x9d\xb1\xe4\xba\xac\xe9\x83\xbd\xe3\x81\xae\xe5\xa4\xa9\xe6\xb0\x97\xe3\x81\xaf\xe6\x99\xb4\xe3\x82\x8c", 3,
			"\xe6\x9d\xb1\xe4\xba\xac\xe9\x83\xbd\xe3\x81\xae\xe5\xa4\xa9\xe6\xb0\x97|",
		"\xe6\x9d\xb1\xe4\xba\xac\xe9\x83\xbd\xe3\x81\xae\xe5\xa4\xa9\xe6\xb0\x97|"},
		/* two runs; the unshared middle is not covered */
		{"a b c d X e f g h", "a b c d Y e f g h", 3, "a b c d|e f g h|", "a b c d|e f g h|"},
		/* fewer tokens than w: one shingle over all of them */
		{"Hello <i>World</i>", "hello world", 3, "Hello <i>World|", "hello world|"},
		{"no match at all", "something else entirely", 3, "", ""},
	};

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
	{
		NddupExplain e;
		char		got[512];

		if (!nddup_explain(cases[c].a, strlen(cases[c].a), cases[c].b,
						   strlen(cases[c].b), cases[c].w, NDDUP_UNIT_WORD, &e))
		{
			CHECK(false, "case %zu refused", c);
			continue;
		}
		passage_text(cases[c].a, &e.a, got, sizeof(got));
		CHECK(strcmp(got, cases[c].want_a) == 0, "case %zu a: got \"%s\", want \"%s\"",
			  c, got, cases[c].want_a);
		passage_text(cases[c].b, &e.b, got, sizeof(got));
		CHECK(strcmp(got, cases[c].want_b) == 0, "case %zu b: got \"%s\", want \"%s\"",
			  c, got, cases[c].want_b);
		nddup_explain_free(&e);
	}
}

/* Merging overlapping and touching passages. */
static void
test_merge(void)
{
	NddupPassage p[] = {{0, 5, 0, 1}, {3, 8, 2, 1}, {8, 9, 4, 1}, {12, 20, 9, 1}};
	size_t		n = nddup_merge_passages(p, 4);

	CHECK(n == 2 && p[0].start == 0 && p[0].end == 9 && p[1].start == 12 &&
		  p[1].end == 20, "merge gave %zu ranges", n);
	CHECK(nddup_merge_passages(p, 0) == 0, "merge of nothing");
}

/* Run the suite; returns the number of failures. */
int
run_explain_tests(void)
{
	uint64_t	state = 26;
	char		a[2048];
	char		b[2048];
	NddupExplain e;

	for (size_t i = 0; i < NSAMPLES; i++)
	{
		check_mapped(samples[i], strlen(samples[i]), false);
		check_mapped(samples[i], strlen(samples[i]), true);
		for (size_t j = 0; j < NSAMPLES; j++)
			for (int w = 1; w <= 4; w++)
			{
				check_pair(samples[i], strlen(samples[i]), samples[j],
						   strlen(samples[j]), w, NDDUP_UNIT_WORD);
				check_pair(samples[i], strlen(samples[i]), samples[j],
						   strlen(samples[j]), w, NDDUP_UNIT_WORD_JOINED);
			}
	}
	for (int round = 0; round < 400; round++)
	{
		size_t		alen = random_text(&state, a, sizeof(a));
		size_t		blen = random_text(&state, b, sizeof(b));

		check_mapped(a, alen, round % 2 == 1);
		check_pair(a, alen, b, blen, 1 + round % 5,
				   round % 3 == 0 ? NDDUP_UNIT_WORD_JOINED : NDDUP_UNIT_WORD);
		/* a text against itself: one passage over all of it */
		check_pair(a, alen, a, alen, 3, NDDUP_UNIT_WORD);
	}
	test_exact_passages();
	test_merge();
	CHECK(!nddup_explain("a", 1, "b", 1, 3, NDDUP_UNIT_CHAR, &e), "char unit accepted");
	CHECK(!nddup_explain("a", 1, "b", 1, 0, NDDUP_UNIT_WORD, &e), "size 0 accepted");
	printf("explain: %d checks, %d failed\n", checks, failures);
	return failures;
}
