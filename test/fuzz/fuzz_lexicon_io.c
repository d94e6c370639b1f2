/*-------------------------------------------------------------------------
 *
 * fuzz_lexicon_io.c
 *	  libFuzzer harness for the text and binary forms of imatch_lexicon
 *	  (src/core/imatch_format.c).
 *
 * Input: a mode byte (bit 0: binary rather than text), then the text or
 * the bytes.
 *
 * The server writes the cut shares with PostgreSQL's shortest exact float4
 * form (Ryu); here they are written by share_shortest() below, the
 * shortest %g form that reads back as the same float4 the way the parser
 * reads it (strtod, then a cast).  The rest of the text form is the
 * server's own code.
 *
 * Invariants (docs/reports/fuzzing.md): a rejection has a defined code (and a
 * detail where the server prints one); an accepted lexicon is valid, and
 * its terms are the tokens after the first ":" of the text (hex hashes of
 * at most 16 characters, an optional 0x included; for a document-frequency
 * table each with ":" and a decimal count); its text form parses to the
 * same bytes and formats to the same text; its binary form is received as
 * the same bytes and sent again identically; accepted binary input is
 * exactly the binary form of its value; the errors of binary input follow
 * the documented header checks in order.
 *
 *-------------------------------------------------------------------------
 */
#define HARNESS "fuzz_lexicon_io"
#include "fuzz_io.h"

/* The shortest %g form of share that reads back (strtod, cast) as share. */
static void
share_shortest(float share, char out[32])
{
	for (int digits = 1; digits <= 9; digits++)
	{
		float		back;

		snprintf(out, 32, "%.*g", digits, (double) share);
		back = (float) strtod(out, NULL);
		if (memcmp(&back, &share, sizeof(float)) == 0)
			return;
	}
	CHECK(false, "no round-tripping form of %a", (double) share);
}

/* imatch_lexicon behind void pointers */
static void *
lexicon_parse(const char *str, NddupParseError *err)
{
	return nddup_lexicon_parse(str, err);
}

static void
lexicon_format(const void *v, NddupBuf *out)
{
	const NddupLexicon *l = v;

	CHECK(l->padding == 0 && l->padding2 == 0, "padding not zero");
	nddup_lexicon_format(l, share_shortest, nddup_buf_printf, out);
}

static void *
lexicon_recv(const uint8_t *data, size_t len, NddupParseError *err)
{
	return nddup_lexicon_recv(data, len, err);
}

static size_t
lexicon_send_size(const void *v)
{
	return nddup_lexicon_send_size(v);
}

static void
lexicon_send(const void *v, uint8_t *out)
{
	nddup_lexicon_send(v, out);
}

static NddupParseCode
lexicon_validate(const void *v, NddupParseError *err)
{
	return nddup_lexicon_validate(v, err);
}

static size_t
lexicon_size(const void *v)
{
	const NddupLexicon *l = v;

	return NDDUP_LEXICON_SIZE(l->kind, l->nterms);
}

static const FuzzType lexicon = {
	lexicon_parse, lexicon_format, lexicon_recv, lexicon_send_size, lexicon_send,
	lexicon_validate, lexicon_size
};

/* Value of the hex digits at p (the harness's own reading), or false. */
static bool
ref_hex(const char *p, size_t len, uint64_t *v)
{
	if (len > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
	{
		p += 2;
		len -= 2;
	}
	*v = 0;
	for (size_t i = 0; i < len; i++)
	{
		const char *digits = "0123456789abcdef";
		const char *d = strchr(digits, p[i] >= 'A' && p[i] <= 'F' ? p[i] + 32 : p[i]);

		if (p[i] == '\0' || d == NULL || *v >> 60 != 0)
			return false;
		*v = (*v << 4) | (uint64_t) (d - digits);
	}
	return len > 0;
}

/*
 * Value of the decimal digits at p, or -1 when it exceeds INT64_MAX (the
 * parser must reject such a count, so an accepted one never compares equal;
 * docs/reports/fuzzing.md, finding 4).
 */
static int64_t
ref_count(const char *p, size_t len)
{
	uint64_t	v = 0;

	for (size_t i = 0; i < len; i++)
	{
		if (v > (uint64_t) (INT64_MAX - (p[i] - '0')) / 10)
			return -1;
		v = v * 10 + (uint64_t) (p[i] - '0');
	}
	return (int64_t) v;
}

/* Check an accepted text's terms against its tokens after the first ':'. */
static void
check_tokens(const char *str, const NddupLexicon *l)
{
	const char *p = strchr(str, ':');
	uint32_t	i = 0;

	CHECK(p != NULL, "accepted without ':'");
	p++;
	for (;;)
	{
		size_t		len;
		uint64_t	h;

		p += strspn(p, " ");
		if (*p == '\0')
			break;
		CHECK(i < l->nterms, "more than %u terms", l->nterms);
		len = strcspn(p, " :");
		CHECK(len <= 16 && ref_hex(p, len, &h) && h == l->hashes[i], "term %u", i);
		p += len;
		if (l->kind == NDDUP_LEX_DF)
		{
			CHECK(*p == ':', "term %u has no count", i);
			p++;
			len = strcspn(p, " ");
			CHECK(len > 0 && strspn(p, "0123456789") == len &&
				  ref_count(p, len) == NDDUP_LEXICON_DF(l)[i], "count %u", i);
			p += len;
		}
		i++;
	}
	CHECK(i == l->nterms, "%u tokens, %u terms", i, l->nterms);
}

/* Text input. */
static void
text_input(const char *str)
{
	NddupParseError err;
	NddupLexicon *l = nddup_lexicon_parse(str, &err);

	if (l == NULL)
	{
		fuzz_check_error(err.code, &err, CODE(SYNTAX) | CODE(INVALID) | CODE(TOO_LARGE),
						 err.code == NDDUP_PARSE_INVALID);
		return;
	}
	check_tokens(str, l);
	fuzz_check_round_trips(&lexicon, l);
	nddup_free_hook(l);
}

/* Binary input. */
static void
binary_input(const uint8_t *b, size_t len)
{
	NddupParseError err;
	NddupLexicon *l = nddup_lexicon_recv(b, len, &err);
	uint32_t	n;
	int64_t		ndocs;
	size_t		per;

	if (len < NDDUP_LEXICON_BINARY_HDRSZ)
	{
		CHECK(l == NULL, "accepted %zu bytes", len);
		fuzz_check_error(err.code, &err, CODE(SHORT), false);
		CHECK(err.have == (int64_t) len && err.need == 22, "SHORT for %zu bytes", len);
		return;
	}
	ndocs = (int64_t) nddup_get_be(b + 10, 8);
	n = (uint32_t) nddup_get_be(b + 18, 4);
	if (b[0] != 1 || b[1] > 1 || ndocs < 0)
	{
		CHECK(l == NULL, "accepted a bad header");
		fuzz_check_error(err.code, &err, CODE(HEADER), false);
		return;
	}
	if (n > NDDUP_LEXICON_MAX_TERMS)
	{
		CHECK(l == NULL, "accepted %u terms", n);
		fuzz_check_error(err.code, &err, CODE(TOO_LARGE), false);
		CHECK(err.need == n, "TOO_LARGE reports %llu", (unsigned long long) err.need);
		return;
	}
	per = b[1] == NDDUP_LEX_DF ? 16 : 8;
	if (len - 22 != (size_t) n * per)
	{
		CHECK(l == NULL, "accepted %zu bytes for %u terms", len, n);
		fuzz_check_error(err.code, &err, CODE(LENGTH), false);
		return;
	}
	if (l == NULL)
	{
		fuzz_check_error(err.code, &err, CODE(INVALID), true);
		return;
	}
	fuzz_check_received(&lexicon, l, b, len);
	nddup_free_hook(l);
}

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_text_or_binary(data, size, text_input, binary_input);
}
