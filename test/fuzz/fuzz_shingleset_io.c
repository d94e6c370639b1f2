/*-------------------------------------------------------------------------
 *
 * fuzz_shingleset_io.c
 *	  libFuzzer harness for the text and binary forms of shingleset
 *	  (src/core/sketch_format.c).
 *
 * Input: a mode byte (bit 0: binary rather than text), then the text or
 * the bytes.
 *
 * Invariants (docs/reports/fuzzing.md): a rejection has a defined code (and a
 * detail where the server prints one); an accepted value is valid, its
 * hashes are the hex tokens after the first ":" of the text; its text
 * form parses to the same bytes and formats to the same text; its binary
 * form is received as the same bytes and sent again identically; accepted
 * binary input is exactly the binary form of its value (one representation
 * per value); the errors of binary input follow the documented header
 * checks in order.
 *
 *-------------------------------------------------------------------------
 */
#define HARNESS "fuzz_shingleset_io"
#include "fuzz_io.h"

/* shingleset behind void pointers */
static void *
set_parse(const char *str, NddupParseError *err)
{
	return nddup_shingleset_parse(str, err);
}

static void
set_format(const void *v, NddupBuf *out)
{
	nddup_shingleset_format(v, nddup_buf_printf, out);
}

static void *
set_recv(const uint8_t *data, size_t len, NddupParseError *err)
{
	return nddup_shingleset_recv(data, len, err);
}

static size_t
set_send_size(const void *v)
{
	return nddup_shingleset_send_size(v);
}

static void
set_send(const void *v, uint8_t *out)
{
	nddup_shingleset_send(v, out);
}

static NddupParseCode
set_validate(const void *v, NddupParseError *err)
{
	return nddup_shingleset_validate(v, err);
}

static size_t
set_size(const void *v)
{
	return NDDUP_SHINGLESET_SIZE(((const NddupShingleSet *) v)->nitems);
}

static const FuzzType shingleset = {
	set_parse, set_format, set_recv, set_send_size, set_send, set_validate, set_size
};

/* Text input. */
static void
text_input(const char *str)
{
	NddupParseError err;
	NddupShingleSet *s = nddup_shingleset_parse(str, &err);
	const char *p;
	uint32_t	i = 0;

	if (s == NULL)
	{
		fuzz_check_error(err.code, &err, CODE(SYNTAX) | CODE(INVALID) | CODE(TOO_LARGE),
						 err.code != NDDUP_PARSE_TOO_LARGE);
		return;
	}
	/* the hashes are the space-separated hex tokens after the first ':' */
	p = strchr(str, ':');
	CHECK(p != NULL, "accepted without ':'");
	p++;
	for (;;)
	{
		char	   *end;

		p += strspn(p, " ");
		if (*p == '\0')
			break;
		CHECK(i < s->nitems, "more tokens than the %u hashes", s->nitems);
		CHECK(strcspn(p, " ") <= 16 && strspn(p, "0123456789abcdefABCDEF") == strcspn(p, " "),
			  "token %u is not 1 to 16 hex digits", i);
		CHECK(strtoull(p, &end, 16) == s->items[i], "hash %u", i);
		p = end;
		i++;
	}
	CHECK(i == s->nitems, "%u tokens, %u hashes", i, s->nitems);
	fuzz_check_round_trips(&shingleset, s);
	nddup_free_hook(s);
}

/* Binary input. */
static void
binary_input(const uint8_t *b, size_t len)
{
	NddupParseError err;
	NddupShingleSet *s = nddup_shingleset_recv(b, len, &err);
	uint32_t	nitems;

	if (len < NDDUP_SHINGLESET_BINARY_HDRSZ)
	{
		CHECK(s == NULL, "accepted %zu bytes", len);
		fuzz_check_error(err.code, &err, CODE(SHORT), false);
		CHECK(err.have == (int64_t) len && err.need == 20, "SHORT for %zu bytes", len);
		return;
	}
	nitems = (uint32_t) nddup_get_be(b + 8, 4);
	if (b[0] != 1 || b[1] > 2 || b[3] > NDDUP_UNIT_MAX)
	{
		CHECK(s == NULL, "accepted a bad header");
		fuzz_check_error(err.code, &err, CODE(HEADER), false);
		return;
	}
	if (nitems > NDDUP_SHINGLESET_MAX_ITEMS)
	{
		CHECK(s == NULL, "accepted %u hashes", nitems);
		fuzz_check_error(err.code, &err, CODE(TOO_LARGE), false);
		CHECK(err.need == nitems, "TOO_LARGE reports %llu", (unsigned long long) err.need);
		return;
	}
	if (len - 20 != (size_t) nitems * 8)
	{
		CHECK(s == NULL, "accepted %zu bytes for %u hashes", len, nitems);
		fuzz_check_error(err.code, &err, CODE(LENGTH), false);
		CHECK(err.have == (int64_t) (len - 20) && err.need == (uint64_t) nitems * 8,
			  "LENGTH reports %lld/%llu", (long long) err.have, (unsigned long long) err.need);
		return;
	}
	if (s == NULL)
	{
		fuzz_check_error(err.code, &err, CODE(INVALID), true);
		return;
	}
	CHECK(s->nitems == nitems, "%u hashes for %u", s->nitems, nitems);
	fuzz_check_received(&shingleset, s, b, len);
	nddup_free_hook(s);
}

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_text_or_binary(data, size, text_input, binary_input);
}
