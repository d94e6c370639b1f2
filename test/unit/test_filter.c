/*-------------------------------------------------------------------------
 *
 * test_filter.c
 *	  Unit tests of the frequent-shingle filter in the core: the document
 *	  frequency counter against a brute-force count (exact within its
 *	  budget, upper bounds past it), the filter's lookup and apply against
 *	  a linear search, its text and binary forms, and the 'word_' unit.
 *
 *-------------------------------------------------------------------------
 */
#include "nddup_core.h"
#include "unit_test.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int	filter_checks = 0;
static int	filter_failures = 0;

#define CHECK(cond, ...) UNIT_CHECK(filter_checks, filter_failures, cond, __VA_ARGS__)

#define NDOCS		600
#define PER_DOC		40
#define COMMON		300			/* the skewed, often repeated shingles */
#define RARE		1000000		/* the range of the mostly unique ones */

/*
 * The shingles of document d: PER_DOC distinct values, a quarter from a
 * small skewed vocabulary (boilerplate), the rest from a large one (text).
 */
static size_t
doc_shingles(int d, uint64_t *out)
{
	uint64_t	state = (uint64_t) d * 104729 + 17;
	size_t		n = 0;

	while (n < PER_DOC)
	{
		uint64_t	r = unit_splitmix64(&state);
		uint64_t	v = n < PER_DOC / 4 ?
			((r % 1000) * (r % 1000) * COMMON) / 1000000 : COMMON + r % RARE;
		uint64_t	h = v == 7 ? 0 : v * UINT64_C(0x9e3779b97f4a7c15) + 1;
		bool		seen = false;

		for (size_t i = 0; i < n; i++)
			seen |= out[i] == h;
		if (!seen)
			out[n++] = h;
	}
	return n;
}

/* Ascending order of 64-bit values, for qsort. */
static int
cmp_u64(const void *a, const void *b)
{
	uint64_t	x = *(const uint64_t *) a,
				y = *(const uint64_t *) b;

	return x < y ? -1 : x > y;
}

/* The distinct hashes of every document with their true document frequencies. */
static size_t
true_counts(uint64_t *hashes, int *df)
{
	uint64_t   *all = malloc(sizeof(uint64_t) * NDOCS * PER_DOC);
	size_t		total = 0,
				n = 0;

	for (int d = 0; d < NDOCS; d++)
		total += doc_shingles(d, all + total);
	qsort(all, total, sizeof(uint64_t), cmp_u64);
	for (size_t i = 0; i < total; i++)
	{
		if (n > 0 && hashes[n - 1] == all[i])
			df[n - 1]++;
		else
		{
			hashes[n] = all[i];
			df[n++] = 1;
		}
	}
	free(all);
	return n;
}

/*
 * Count every document with a budget; check the frequent list against the
 * truth.  Returns the floor (0: exact).
 */
static uint32_t
check_counter(size_t budget, int64_t cutoff)
{
	NddupDfCounter c;
	uint64_t	s[PER_DOC];
	uint64_t   *freq;
	size_t		nfreq;
	uint64_t   *all = malloc(sizeof(uint64_t) * NDOCS * PER_DOC);
	int		   *df = malloc(sizeof(int) * NDOCS * PER_DOC);
	size_t		nall = true_counts(all, df);
	size_t		listed_true = 0,
				i = 0;

	nddup_df_init(&c, budget);
	for (int d = 0; d < NDOCS; d++)
		nddup_df_add_doc(&c, s, doc_shingles(d, s));
	CHECK(c.ndocs == NDOCS, "ndocs %lld", (long long) c.ndocs);
	freq = nddup_df_frequent(&c, cutoff, &nfreq);
	for (size_t k = 1; k < nfreq; k++)
		CHECK(freq[k] > freq[k - 1], "frequent list not ascending at %zu", k);
	/* merge the two ascending lists */
	for (size_t j = 0; j < nall; j++)
	{
		bool		listed;

		while (i < nfreq && freq[i] < all[j])
			i++;
		listed = i < nfreq && freq[i] == all[j];
		listed_true += listed;
		if (c.floor == 0)
			CHECK(listed == (df[j] > cutoff), "budget %zu: hash %016llx df %d listed %d",
				  budget, (unsigned long long) all[j], df[j], listed);
		else if ((int64_t) c.floor < cutoff)
		{
			/*
			 * lossy with the floor below the cut-off (the aggregate refuses
			 * otherwise): every truly frequent one is listed, and a listed one
			 * is within the floor of the cut-off
			 */
			CHECK(!(df[j] > cutoff) || listed, "budget %zu: frequent hash (df %d) missing",
				  budget, df[j]);
			CHECK(!listed || df[j] + (int) c.floor > cutoff,
				  "budget %zu: listed hash df %d below cutoff - floor %u", budget, df[j], c.floor);
		}
	}
	CHECK(listed_true == nfreq, "listed a hash no document has");
	if (budget >= nall)
		CHECK(c.floor == 0 && c.pruned == 0, "exact within budget");
	else
		CHECK(c.pruned > 0 && c.n <= c.max_entries, "pruned under a small budget");
	free(freq);
	free(all);
	free(df);
	nddup_df_free(&c);
	return c.floor;
}

/* Lookup and apply of filters of n random hashes against a linear search. */
static void
check_lookup(size_t n)
{
	uint64_t	state = n + 99;
	uint64_t   *items = malloc((n + 1) * sizeof(uint64_t));
	uint64_t	probe[64];
	uint64_t	copy[64];
	NddupFilter *f;
	NddupParseError err;
	size_t		kept,
				expect = 0;

	for (size_t i = 0; i < n; i++)
		items[i] = unit_splitmix64(&state) | (i == 0 ? 0 : 1);
	if (n > 0)
		items[0] = 0;
	n = nddup_sort_unique(items, n);
	f = nddup_filter_build(3, NDDUP_UNIT_WORD, 20, 0.002, 1000, 0, items, n);
	CHECK(nddup_filter_validate(f, &err) == NDDUP_PARSE_OK, "built filter of %zu invalid", n);
	for (int i = 0; i < 64; i++)
	{
		probe[i] = (i % 2 == 0 && n > 0) ? items[unit_splitmix64(&state) % n] :
			unit_splitmix64(&state);
		copy[i] = probe[i];
	}
	for (int i = 0; i < 64; i++)
	{
		bool		linear = false;

		for (size_t j = 0; j < n; j++)
			linear |= items[j] == probe[i];
		CHECK(nddup_filter_contains(f, probe[i]) == linear, "n %zu probe %d", n, i);
		expect += !linear;
	}
	{
		NddupHashes sunk = {0};
		NddupFilterSink sink = {f, nddup_hashes_append, &sunk, 0, 0};

		nddup_filter_sink(&sink, copy, 40);
		nddup_filter_sink(&sink, copy + 40, 24);
		kept = nddup_filter_apply(f, copy, 64);
		CHECK(sink.seen == 64 && sink.kept == kept && sunk.len == kept &&
			  (kept == 0 || memcmp(sunk.items, copy, kept * sizeof(uint64_t)) == 0),
			  "sink kept %zu, apply %zu", sink.kept, kept);
		nddup_hashes_free(&sunk);
	}
	CHECK(kept == expect, "apply kept %zu, expected %zu", kept, expect);
	for (size_t i = 0; i < kept; i++)
		CHECK(!nddup_filter_contains(f, copy[i]), "apply kept a filtered hash");
	free(items);
	nddup_free_hook(f);
}

/* Collect the text form through NddupPrintf. */
static void
append_text(void *arg, const char *fmt,...)
{
	char	   *buf = arg;
	va_list		ap;

	va_start(ap, fmt);
	vsnprintf(buf + strlen(buf), 4096 - strlen(buf), fmt, ap);
	va_end(ap);
}

/* Write a share with %.17g (the server uses the shortest exact form). */
static void
share_17g(double share, char out[32])
{
	snprintf(out, 32, "%.17g", share);
}

/* Text and binary forms: round trips, and rejected inputs. */
static void
check_forms(void)
{
	uint64_t	items[3] = {1, UINT64_C(0x8000000000000000), UINT64_MAX};
	NddupFilter *f = nddup_filter_build(3, NDDUP_UNIT_WORD_JOINED, 20, 0.25, 1000, 2, items, 3);
	char		text[4096] = "";
	NddupParseError err;
	NddupFilter *g;
	uint8_t		bin[256];
	size_t		len = nddup_filter_send_size(f);
	const char *bad[] = {
		"", "filter", "filter size=3 unit=word min_docs=20 share=0.25 ndocs=1000 cutoff=250 error=0 n=1:",
		"filter size=3 unit=word min_docs=20 share=0.25 ndocs=1000 cutoff=250 error=0 n=1: x",
		"filter size=3 unit=word min_docs=20 share=0.25 ndocs=1000 cutoff=251 error=0 n=0:",
		"filter size=3 unit=word min_docs=20 share=-0 ndocs=1000 cutoff=20 error=0 n=0:",
		"filter size=3 unit=word min_docs=20 share=0.25 ndocs=1000 cutoff=250 error=1001 n=0:",
		"filter size=3 unit=word min_docs=20 share=0.25 ndocs=1000 cutoff=250 error=0 n=2: 2 2",
		"filter size=3 unit=words min_docs=20 share=0.25 ndocs=1000 cutoff=250 error=0 n=0:",
	};

	CHECK(f->cutoff == 250, "cutoff %lld", (long long) f->cutoff);
	CHECK(nddup_filter_cutoff(20, 0.002, 5000) == 20 && nddup_filter_cutoff(20, 0.002, 50000) == 100,
		  "cut-off max(C, floor(f N))");
	nddup_filter_format(f, share_17g, append_text, text);
	CHECK(strcmp(text, "filter size=3 unit=word_ min_docs=20 share=0.25 ndocs=1000 cutoff=250 error=2 n=3:"
				 " 0000000000000001 8000000000000000 ffffffffffffffff") == 0, "text form: %s", text);
	g = nddup_filter_parse(text, &err);
	CHECK(g != NULL && memcmp(g, f, NDDUP_FILTER_SIZE(3, f->dir_bits)) == 0, "text round trip");
	nddup_free_hook(g);
	CHECK(len == NDDUP_FILTER_BINARY_HDRSZ + 24, "binary size %zu", len);
	nddup_filter_send(f, bin);
	g = nddup_filter_recv(bin, len, &err);
	CHECK(g != NULL && memcmp(g, f, NDDUP_FILTER_SIZE(3, f->dir_bits)) == 0, "binary round trip");
	nddup_free_hook(g);
	CHECK(nddup_filter_recv(bin, len - 1, &err) == NULL && err.code == NDDUP_PARSE_LENGTH, "short");
	bin[0] = 2;
	CHECK(nddup_filter_recv(bin, len, &err) == NULL && err.code == NDDUP_PARSE_HEADER, "version");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
	{
		g = nddup_filter_parse(bad[i], &err);
		CHECK(g == NULL && err.code != NDDUP_PARSE_OK, "accepted bad input %zu: %s", i, bad[i]);
	}
	nddup_free_hook(f);
}

/* Callback: append a shingle count. */
static void
count_shingles(void *arg, const uint64_t *hashes, size_t n)
{
	(void) hashes;
	*(size_t *) arg += n;
}

/* 'word_' keeps _ (and the other connector punctuation) inside words. */
static void
check_joined_unit(void)
{
	size_t		joined = 0,
				split = 0;
	NddupBuf	norm = {0};
	const char *html;

	nddup_text_shingles("SSL_CTX_new x", 13, 1, NDDUP_UNIT_WORD_JOINED, count_shingles, &joined);
	nddup_text_shingles("SSL_CTX_new x", 13, 1, NDDUP_UNIT_WORD, count_shingles, &split);
	CHECK(joined == 2 && split == 4, "word_ %zu tokens, word %zu", joined, split);
	html = "<b>Foo_Bar</b>  BAZ\xe2\x80\xbf" "qux";

	nddup_normalize_joined(html, strlen(html), &norm);
	CHECK(norm.len == 17 && memcmp(norm.data, "foo_bar baz\xe2\x80\xbfqux", 17) == 0,
		  "joined normalization: %.*s", (int) norm.len, norm.data);
	nddup_buf_free(&norm);
	CHECK(nddup_is_connector('_') && nddup_is_connector(0x203F) && !nddup_is_connector('-'),
		  "connector punctuation");
	CHECK(strcmp(nddup_unit_names[NDDUP_UNIT_WORD_JOINED], "word_") == 0, "unit name");
}

/* Run the suite; the number of failures. */
int
run_filter_tests(void)
{
	uint32_t	floor;

	check_counter(NDOCS * PER_DOC, 20);
	check_counter(NDOCS * PER_DOC, 100);
	floor = check_counter(4000, 20);
	CHECK(floor > 0 && floor < 20, "budget 4000: floor %u, not lossy below the cut-off", floor);
	check_counter(2000, 20);
	floor = check_counter(100, 20);
	CHECK(floor >= 20, "budget 100: floor %u below the cut-off", floor);
	for (size_t n = 0; n < 300; n += 37)
		check_lookup(n);
	check_lookup(100000);
	check_forms();
	check_joined_unit();
	printf("filter: %d checks, %d failed\n", filter_checks, filter_failures);
	return filter_failures;
}
