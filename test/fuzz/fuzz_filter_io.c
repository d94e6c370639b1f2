/*-------------------------------------------------------------------------
 *
 * fuzz_filter_io.c
 *	  libFuzzer harness for the text and binary forms of shingle_filter
 *	  (src/core/filter_format.c).
 *
 * Input: a mode byte (bit 0: binary rather than text), then the text or
 * the bytes.
 *
 * The server writes the share with PostgreSQL's shortest exact float8 form
 * (Ryu); here it is written by share_shortest() below, the shortest %g
 * form that reads back (strtod) as the same double.  The rest of the text
 * form is the server's own code.
 *
 * Invariants (docs/reports/fuzzing.md): a rejection has a defined code (and
 * a detail where the server prints one); an accepted filter is valid (its
 * cut-off is max(min_docs, floor(share * ndocs)), its hashes ascend, its
 * directory matches them), its hashes are the tokens after the first ":"
 * of the text, and every hash it holds is found by the lookup while the
 * values between two of them are not; its text form parses to the same
 * bytes and formats to the same text; its binary form is received as the
 * same bytes and sent again identically; accepted binary input is exactly
 * the binary form of its value; the errors of binary input follow the
 * documented header checks in order.
 *
 *-------------------------------------------------------------------------
 */
#define HARNESS "fuzz_filter_io"
#include "fuzz_io.h"

/* The shortest %g form of share that reads back (strtod) as share. */
static void
share_shortest(double share, char out[32])
{
	for (int digits = 1; digits <= 17; digits++)
	{
		double		back;

		snprintf(out, 32, "%.*g", digits, share);
		back = strtod(out, NULL);
		if (memcmp(&back, &share, sizeof(double)) == 0)
			return;
	}
	CHECK(false, "no round-tripping form of %a", share);
}

/* shingle_filter behind void pointers */
static void *
filter_parse(const char *str, NddupParseError *err)
{
	return nddup_filter_parse(str, err);
}

static void
filter_format(const void *v, NddupBuf *out)
{
	nddup_filter_format(v, share_shortest, nddup_buf_printf, out);
}

static void *
filter_recv(const uint8_t *data, size_t len, NddupParseError *err)
{
	return nddup_filter_recv(data, len, err);
}

static size_t
filter_send_size(const void *v)
{
	return nddup_filter_send_size(v);
}

static void
filter_send(const void *v, uint8_t *out)
{
	nddup_filter_send(v, out);
}

static NddupParseCode
filter_validate(const void *v, NddupParseError *err)
{
	return nddup_filter_validate(v, err);
}

static size_t
filter_size(const void *v)
{
	const NddupFilter *f = v;

	return NDDUP_FILTER_SIZE(f->nitems, f->dir_bits);
}

static const FuzzType filter = {
	filter_parse, filter_format, filter_recv, filter_send_size, filter_send,
	filter_validate, filter_size
};

/* The lookup finds every hash of f, and no value just above or below one. */
static void
check_lookup(const NddupFilter *f)
{
	for (uint32_t i = 0; i < f->nitems; i++)
	{
		uint64_t	h = f->items[i];

		CHECK(nddup_filter_contains(f, h), "hash %u not found", i);
		if (h != UINT64_MAX && (i + 1 == f->nitems || f->items[i + 1] != h + 1))
			CHECK(!nddup_filter_contains(f, h + 1), "value after hash %u found", i);
		if (h != 0 && (i == 0 || f->items[i - 1] != h - 1))
			CHECK(!nddup_filter_contains(f, h - 1), "value before hash %u found", i);
	}
	CHECK(f->cutoff == nddup_filter_cutoff(f->min_docs, f->share, f->ndocs), "cut-off");
}

/* Check an accepted text's hashes against its tokens after the first ':'. */
static void
check_tokens(const char *str, const NddupFilter *f)
{
	const char *p = strchr(str, ':');
	uint32_t	i = 0;

	CHECK(p != NULL, "accepted without ':'");
	p++;
	for (;;)
	{
		size_t		len;
		uint64_t	h = 0;
		const char *digits = p;

		p += strspn(p, " ");
		if (*p == '\0')
			break;
		CHECK(i < f->nitems, "more than %u hashes", f->nitems);
		len = strcspn(p, " ");
		digits = p;
		if (len > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
			digits = p + 2;
		CHECK(len <= 16 && digits < p + len, "hash %u has %zu characters", i, len);
		for (const char *d = digits; d < p + len; d++)
		{
			CHECK(strchr("0123456789abcdefABCDEF", *d) != NULL, "hash %u: '%c'", i, *d);
			h = (h << 4) | (uint64_t) (*d <= '9' ? *d - '0' : (*d | 32) - 'a' + 10);
		}
		CHECK(h == f->items[i], "hash %u", i);
		p += len;
		i++;
	}
	CHECK(i == f->nitems, "%u tokens, %u hashes", i, f->nitems);
}

/* Text input. */
static void
text_input(const char *str)
{
	NddupParseError err;
	NddupFilter *f = nddup_filter_parse(str, &err);

	if (f == NULL)
	{
		fuzz_check_error(err.code, &err, CODE(SYNTAX) | CODE(INVALID) | CODE(TOO_LARGE),
						 err.code == NDDUP_PARSE_INVALID);
		return;
	}
	check_tokens(str, f);
	check_lookup(f);
	fuzz_check_round_trips(&filter, f);
	nddup_free_hook(f);
}

/* Binary input. */
static void
binary_input(const uint8_t *b, size_t len)
{
	NddupParseError err;
	NddupFilter *f = nddup_filter_recv(b, len, &err);
	uint32_t	n;

	if (len < NDDUP_FILTER_BINARY_HDRSZ)
	{
		CHECK(f == NULL, "accepted %zu bytes", len);
		fuzz_check_error(err.code, &err, CODE(SHORT), false);
		CHECK(err.have == (int64_t) len && err.need == NDDUP_FILTER_BINARY_HDRSZ,
			  "SHORT for %zu bytes", len);
		return;
	}
	n = (uint32_t) nddup_get_be(b + 39, 4);
	if (b[0] != NDDUP_FILTER_VERSION || b[2] > NDDUP_UNIT_MAX)
	{
		CHECK(f == NULL, "accepted a bad header");
		fuzz_check_error(err.code, &err, CODE(HEADER), false);
		return;
	}
	if (n > NDDUP_FILTER_MAX_ITEMS)
	{
		CHECK(f == NULL, "accepted %u hashes", n);
		fuzz_check_error(err.code, &err, CODE(TOO_LARGE), false);
		CHECK(err.need == n, "TOO_LARGE reports %llu", (unsigned long long) err.need);
		return;
	}
	if (len - NDDUP_FILTER_BINARY_HDRSZ != (size_t) n * 8)
	{
		CHECK(f == NULL, "accepted %zu bytes for %u hashes", len, n);
		fuzz_check_error(err.code, &err, CODE(LENGTH), false);
		return;
	}
	if (f == NULL)
	{
		fuzz_check_error(err.code, &err, CODE(INVALID), true);
		return;
	}
	check_lookup(f);
	fuzz_check_received(&filter, f, b, len);
	nddup_free_hook(f);
}

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_text_or_binary(data, size, text_input, binary_input);
}
