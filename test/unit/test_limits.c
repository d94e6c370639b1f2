/*-------------------------------------------------------------------------
 *
 * test_limits.c
 *	  Unit tests of the core's memory bounds: the streaming normalization
 *	  behind nddup_text_shingles gives exactly the shingles of the whole
 *	  normalized text wherever it cuts the text, keeps its working memory
 *	  at about a chunk when NFKC expands the input 18 times, and every
 *	  buffer that would grow past nddup_max_working calls the limit hook
 *	  before anything that large is allocated.
 *
 * run_limit_tests() returns the number of failures.
 *
 *-------------------------------------------------------------------------
 */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nddup_core.h"
#include "unit_test.h"

int			run_limit_tests(void);

static int	failures;
static int	checks;

#define CHECK(cond, ...) UNIT_CHECK(checks, failures, cond, __VA_ARGS__)

/* Pieces of the random texts: heavy NFKC expanders, CJK, marks, markup. */
static const char *const pieces[] = {
	"Word ", "abc", " ", "_", "x_y ", "\xef\xb7\xba",	/* U+FDFA: 18 characters */
	"\xef\xb7\xb2",				/* U+FDF2: "allah", no space */
	"\xef\xac\xac",				/* U+FB2C: three code points */
	"\xef\xac\x83",				/* U+FB03: ffi */
	"\xe3\x8c\x80",				/* U+3300: four katakana */
	"\xe6\x9d\xb1\xe4\xba\xac",	/* two ideographs */
	"\xe3\x81\x8b\xe3\x82\x99",	/* ka + combining voiced mark */
	"e\xcc\x81", "\xcc\xa3", "&amp;", "&eacute;", "&#xFDFA;", "<b>", "</p>",
	"<!-- c -->", "\xc3\xa9t\xc3\xa9 ", "\xff", "\xef\xbc\xa1",	/* invalid, U+FF21 */
};

/* Largest allocation asked of the memory hook, and the hook that counts it. */
static size_t largest_request;

/* Blocks of counting_realloc not yet freed (a jump leaves some behind). */
#define MAX_LIVE	256
static void *live[MAX_LIVE];

/* The slot of ptr in live (NULL: a free slot). */
static int
live_slot(const void *ptr)
{
	for (int i = 0; i < MAX_LIVE; i++)
		if (live[i] == ptr)
			return i;
	abort();					/* more live blocks than the tests make */
}

/* realloc that remembers the largest size asked for, and its blocks */
static void *
counting_realloc(void *ptr, size_t size)
{
	int			slot = live_slot(ptr);
	void	   *p;

	if (size > largest_request)
		largest_request = size;
	p = realloc(ptr, size ? size : 1);
	if (p == NULL)
		abort();
	live[slot] = p;
	return p;
}

/* free for counting_realloc */
static void
counting_free(void *ptr)
{
	if (ptr == NULL)
		return;
	live[live_slot(ptr)] = NULL;
	free(ptr);
}

/* Free what a jump out of the core left allocated. */
static void
free_live(void)
{
	for (int i = 0; i < MAX_LIVE; i++)
	{
		free(live[i]);
		live[i] = NULL;
	}
}

/* The limit hook of the tests: jump back to the test with the request. */
static jmp_buf limit_jump;
static size_t limit_request;

static void
jump_on_limit(size_t requested)
{
	limit_request = requested;
	longjmp(limit_jump, 1);
}

/* NddupHashBatchCallback appending to an NddupHashes. */
static void
append_hashes(void *arg, const uint64_t *items, size_t n)
{
	nddup_hashes_append(arg, items, n);
}

/* NddupHashCallback appending to an NddupHashes. */
static void
push_one(void *arg, uint64_t hash)
{
	nddup_hashes_push(arg, hash);
}

/* NddupHashBatchCallback counting the hashes in a size_t. */
static void
count_hashes(void *arg, const uint64_t *items, size_t n)
{
	(void) items;
	*(size_t *) arg += n;
}

/* A random text of about n pieces from the list above, into buf. */
static size_t
random_text(uint64_t *state, char *buf, size_t n)
{
	size_t		len = 0;

	for (size_t i = 0; i < n; i++)
	{
		const char *p = pieces[unit_splitmix64(state) % (sizeof(pieces) / sizeof(pieces[0]))];
		size_t		plen = strlen(p);

		memcpy(buf + len, p, plen);
		len += plen;
	}
	return len;
}

/*
 * The shingles of src by nddup_text_shingles (streaming, chunk bytes at a
 * time) must equal those of the whole normalized text.
 */
static void
compare_streaming(const char *src, size_t len, int w, NddupUnit unit,
				  size_t chunk)
{
	NddupBuf	norm = {0};
	NddupHashes whole = {0};
	NddupHashes streamed = {0};
	size_t		nwhole;
	size_t		nstreamed;

	nddup_stream_chunk = NDDUP_STREAM_CHUNK;
	if (unit == NDDUP_UNIT_WORD_JOINED)
		nddup_normalize_joined(src, len, &norm);
	else
		nddup_normalize(src, len, &norm);
	nwhole = nddup_shingle_hashes(norm.data ? norm.data : "", norm.len, w,
								  unit, push_one, &whole);
	nddup_stream_chunk = chunk;
	nstreamed = nddup_text_shingles(src, len, w, unit, append_hashes, &streamed);
	if (unit == NDDUP_UNIT_WORD && w == 1)
		CHECK(nddup_normalized_length(src, len) == norm.len,
			  "normalized length %zu, normalized text %zu bytes (chunk %zu)",
			  nddup_normalized_length(src, len), norm.len, chunk);
	nddup_stream_chunk = NDDUP_STREAM_CHUNK;
	CHECK(nwhole == nstreamed && whole.len == streamed.len &&
		  (whole.len == 0 ||
		   memcmp(whole.items, streamed.items, whole.len * sizeof(uint64_t)) == 0),
		  "streamed shingles differ (unit %s, size %d, chunk %zu, %zu bytes: %zu and %zu shingles)",
		  nddup_unit_names[unit], w, chunk, len, nstreamed, nwhole);
	nddup_buf_free(&norm);
	nddup_hashes_free(&whole);
	nddup_hashes_free(&streamed);
}

/* Streaming gives the shingles of the whole text, for every chunk size. */
static void
test_streaming_matches_whole(void)
{
	static const size_t chunks[] = {1, 2, 3, 7, 16, 64, 1000, NDDUP_STREAM_CHUNK};
	static const int sizes[] = {1, 2, 3, 5, 64};
	uint64_t	state = 24;
	char	   *buf = malloc(600 * 16);

	for (int round = 0; round < 60; round++)
	{
		size_t		len = random_text(&state, buf, 1 + round * 10);

		for (size_t c = 0; c < sizeof(chunks) / sizeof(chunks[0]); c++)
			for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
				for (int unit = 0; unit <= NDDUP_UNIT_MAX; unit++)
					compare_streaming(buf, len, sizes[s], (NddupUnit) unit,
									  chunks[c]);
	}
	free(buf);
}

/*
 * 2 MB of U+FDFA (36 MB normalized): the shingles of every unit and the
 * simhash need no allocation near the size of the normalized text.
 */
static void
test_expansion_is_streamed(void)
{
	size_t		reps = 700000;
	size_t		len = reps * 3;
	char	   *big = malloc(len);
	size_t		n;
	size_t		counted;

	for (size_t i = 0; i < reps; i++)
		memcpy(big + 3 * i, "\xef\xb7\xba", 3);
	nddup_realloc_hook = counting_realloc;
	nddup_free_hook = counting_free;
	for (int unit = 0; unit <= NDDUP_UNIT_MAX; unit++)
	{
		largest_request = 0;
		counted = 0;
		n = nddup_text_shingles(big, len, 3, (NddupUnit) unit,
								count_hashes, &counted);
		CHECK(n > reps && counted == n, "unit %s: %zu shingles",
			  nddup_unit_names[unit], n);
		CHECK(largest_request <= 4 * NDDUP_STREAM_CHUNK,
			  "unit %s: an allocation of %zu bytes for %zu bytes of input",
			  nddup_unit_names[unit], largest_request, len);
	}
	largest_request = 0;
	(void) nddup_simhash_text(big, len, 3, NDDUP_UNIT_WORD, false);
	CHECK(largest_request <= 4 * NDDUP_STREAM_CHUNK,
		  "simhash: an allocation of %zu bytes", largest_request);
	free_live();
	free(big);
}

/*
 * Run f(src, len) with the working limit lowered to limit: true when the
 * limit hook was called, and then no allocation asked for more than limit.
 */
static bool
hits_limit(void (*f) (const char *, size_t), const char *src, size_t len,
		   size_t limit)
{
	volatile bool hit = false;

	nddup_realloc_hook = counting_realloc;
	nddup_free_hook = counting_free;
	nddup_limit_hook = jump_on_limit;
	nddup_max_working = limit;
	largest_request = 0;
	limit_request = 0;
	if (setjmp(limit_jump) == 0)
		f(src, len);
	else
		hit = true;
	nddup_max_working = NDDUP_MAX_WORKING;
	nddup_limit_hook = NULL;
	free_live();
	CHECK(largest_request <= limit,
		  "an allocation of %zu bytes over the limit of %zu", largest_request, limit);
	CHECK(!hit || limit_request > limit,
		  "the limit hook was called for %zu bytes, within the limit %zu",
		  limit_request, limit);
	return hit;
}

/* The functions under the limit (memory leaked on the jump: a test). */
static void
do_normalize(const char *src, size_t len)
{
	NddupBuf	out = {0};

	nddup_normalize(src, len, &out);
	nddup_buf_free(&out);
}

static void
do_simhash(const char *src, size_t len)
{
	(void) nddup_simhash_text(src, len, 3, NDDUP_UNIT_WORD, false);
}

static void
do_chars(const char *src, size_t len)
{
	size_t		n = 0;

	nddup_text_shingles(src, len, 4, NDDUP_UNIT_CHAR, count_hashes, &n);
}

static void
do_joined(const char *src, size_t len)
{
	size_t		n = 0;

	nddup_text_shingles(src, len, 2, NDDUP_UNIT_WORD_JOINED, count_hashes, &n);
}

static void
do_all_shingles(const char *src, size_t len)
{
	NddupHashes h = {0};

	nddup_text_shingles(src, len, 1, NDDUP_UNIT_CHAR, append_hashes, &h);
	nddup_hashes_free(&h);
}

/*
 * With the limit lowered to 1 MB: normalizing 100 KB of U+FDFA (1.2 MB
 * normalized) is refused before the buffer passes 1 MB, while its
 * shingles and simhash, streamed, are not; a single token longer than the
 * limit is refused; so is an array of more hashes than the limit holds.
 */
static void
test_limit(void)
{
	size_t		reps = 100000 / 3;
	size_t		len = reps * 3;
	size_t		limit = (size_t) 1 << 20;
	char	   *big = malloc(2 * limit);

	for (size_t i = 0; i < reps; i++)
		memcpy(big + 3 * i, "\xef\xb7\xba", 3);
	CHECK(hits_limit(do_normalize, big, len, limit),
		  "normalize: 1.2 MB of normalized text within a 1 MB limit");
	CHECK(!hits_limit(do_simhash, big, len, limit), "simhash hit the limit");
	CHECK(!hits_limit(do_chars, big, len, limit), "char shingles hit the limit");
	CHECK(!hits_limit(do_joined, big, len, limit), "word_ shingles hit the limit");
	CHECK(!hits_limit(do_normalize, big, len / 16, limit),
		  "normalize of 75 KB normalized hit the limit");

	/*
	 * one word of 1.5 MB: ASCII (the scanner holds it) and U+FDF2 (the
	 * general path streams it into its hash)
	 */
	memset(big, 'a', limit + limit / 2);
	CHECK(hits_limit(do_simhash, big, limit + limit / 2, limit),
		  "simhash: a 1.5 MB word within a 1 MB limit");
	for (size_t i = 0; i < limit / 6; i++)
		memcpy(big + 3 * i, "\xef\xb7\xb2", 3);
	CHECK(!hits_limit(do_simhash, big, limit / 6 * 3, limit),
		  "simhash: a 1.4 MB normalized word (streamed into its hash) hit the limit");
	CHECK(!hits_limit(do_joined, big, limit / 6 * 3, limit),
		  "word_: a 1.4 MB normalized word (streamed into its hash) hit the limit");
	CHECK(hits_limit(do_normalize, big, limit / 6 * 3, limit),
		  "normalize: a 1.4 MB normalized word within a 1 MB limit");

	/* 300 K character shingles kept (2.4 MB of hashes) */
	for (size_t i = 0; i < 300000; i++)
		big[i] = 'a' + i % 26;
	CHECK(hits_limit(do_all_shingles, big, 300000, limit),
		  "2.4 MB of hashes within a 1 MB limit");
	free(big);
}

/*
 * A text of nothing but marks of five combining classes is one segment:
 * NFKC sorts it (stably) by class.  Compared with a stable sort done here,
 * for lengths around the pieces of sort_marks.
 */
static void
test_long_mark_runs(void)
{
	static const uint32_t marks[] = {0x0301, 0x0323, 0x0334, 0x0E48, 0x05B0};
	static const int ccc[] = {230, 220, 1, 107, 10};
	static const size_t lengths[] = {2, 16, 17, 23, 64, 1000, 65537};
	uint64_t	state = 7;

	for (size_t l = 0; l < sizeof(lengths) / sizeof(lengths[0]); l++)
	{
		size_t		n = lengths[l];
		int		   *kind = malloc(n * sizeof(int));
		size_t	   *off = malloc((n + 1) * sizeof(size_t));
		char	   *src = malloc(n * 3);
		char	   *want = malloc(n * 3);
		size_t		len = 0;
		size_t		wlen = 0;
		NddupBuf	out = {0};

		for (size_t i = 0; i < n; i++)
		{
			uint32_t	cp;

			kind[i] = (int) (unit_splitmix64(&state) % 5);
			cp = marks[kind[i]];
			off[i] = len;
			if (cp < 0x800)
			{
				src[len++] = (char) (0xC0 | (cp >> 6));
				src[len++] = (char) (0x80 | (cp & 0x3F));
			}
			else
			{
				src[len++] = (char) (0xE0 | (cp >> 12));
				src[len++] = (char) (0x80 | ((cp >> 6) & 0x3F));
				src[len++] = (char) (0x80 | (cp & 0x3F));
			}
		}
		off[n] = len;
		/* the expected order: by class, in text order within one */
		for (int c = 0; c < 256; c++)
			for (size_t i = 0; i < n; i++)
				if (ccc[kind[i]] == c)
				{
					memcpy(want + wlen, src + off[i], off[i + 1] - off[i]);
					wlen += off[i + 1] - off[i];
				}
		nddup_nfkc(src, len, &out);
		CHECK(out.len == wlen && memcmp(out.data, want, wlen) == 0,
			  "a run of %zu marks is not sorted stably by class", n);
		nddup_buf_free(&out);
		free(kind);
		free(off);
		free(src);
		free(want);
	}
}

/* Run the tests above; returns the number of failures. */
int
run_limit_tests(void)
{
	void	   *(*saved_realloc) (void *, size_t) = nddup_realloc_hook;
	void		(*saved_free) (void *) = nddup_free_hook;

	failures = 0;
	checks = 0;
	test_streaming_matches_whole();
	test_expansion_is_streamed();
	test_long_mark_runs();
	nddup_realloc_hook = saved_realloc;
	test_limit();
	nddup_realloc_hook = saved_realloc;
	nddup_free_hook = saved_free;
	printf("test_limits: %d checks, %d failures\n", checks, failures);
	fflush(stdout);
	return failures;
}
