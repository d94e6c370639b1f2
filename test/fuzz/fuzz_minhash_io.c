/*-------------------------------------------------------------------------
 *
 * fuzz_minhash_io.c
 *	  libFuzzer harness for the text and binary forms of minhash_sketch
 *	  (src/core/sketch_format.c).
 *
 * Input: a mode byte (bit 0: binary rather than text), then the text or
 * the bytes.
 *
 * Invariants (docs/reports/fuzzing.md): a rejection has a defined code and a
 * detail; an accepted sketch is valid, and its values and borrowed bins
 * are the tokens after the first ":" of the text ("empty", or k hex values
 * of at most b/4 digits, "*" (and optional spaces) marking a borrowed
 * bin); its text form parses
 * to the same bytes and formats to the same text; its binary form is
 * received as the same bytes and sent again identically; accepted binary
 * input is exactly the binary form of its value; the errors of binary
 * input follow the documented header checks in order.
 *
 *-------------------------------------------------------------------------
 */
#define HARNESS "fuzz_minhash_io"
#include "fuzz_io.h"

/* Value i of a sketch. */
static uint32_t
value_at(const NddupMinhash *m, int i)
{
	return m->bits == 32 ? NDDUP_MINHASH_VALUES(m)[i] : nddup_bbit_get(m->data, i, m->bits);
}

/* Is bin i of a sketch borrowed? */
static bool
borrowed_at(const NddupMinhash *m, int i)
{
	return m->bits == 32 && m->method == NDDUP_MINHASH_OPH &&
		((NDDUP_MINHASH_BORROWED(m)[i >> 3] >> (i & 7)) & 1);
}

/* minhash_sketch behind void pointers */
static void *
sketch_parse(const char *str, NddupParseError *err)
{
	return nddup_minhash_parse(str, err);
}

static void
sketch_format(const void *v, NddupBuf *out)
{
	nddup_minhash_format(v, nddup_buf_printf, out);
}

static void *
sketch_recv(const uint8_t *data, size_t len, NddupParseError *err)
{
	return nddup_minhash_recv(data, len, err);
}

static size_t
sketch_send_size(const void *v)
{
	return nddup_minhash_send_size(v);
}

static void
sketch_send(const void *v, uint8_t *out)
{
	nddup_minhash_send(v, out);
}

static NddupParseCode
sketch_validate(const void *v, NddupParseError *err)
{
	return nddup_minhash_validate(v, err);
}

static size_t
sketch_size(const void *v)
{
	const NddupMinhash *m = v;

	return NDDUP_MINHASH_HDRSZ + nddup_minhash_data_size(m->method, m->k, m->bits);
}

static const FuzzType minhash = {
	sketch_parse, sketch_format, sketch_recv, sketch_send_size, sketch_send,
	sketch_validate, sketch_size
};

/* Check an accepted text's values against its tokens after the first ':'. */
static void
check_tokens(const char *str, const NddupMinhash *m)
{
	const char *p = strchr(str, ':');
	int			digits = m->bits < 4 ? 1 : m->bits / 4;
	int			i = 0;

	CHECK(p != NULL, "accepted without ':'");
	p++;
	p += strspn(p, " ");
	if (strcmp(p, "empty") == 0)
	{
		CHECK(m->flags == NDDUP_MINHASH_EMPTY_DOC, "\"empty\" without the flag");
		return;
	}
	CHECK(m->flags == 0, "flags %d without \"empty\"", m->flags);
	for (;;)
	{
		bool		star;
		size_t		len;
		char	   *end;

		p += strspn(p, " ");
		if (*p == '\0')
			break;
		CHECK(i < m->k, "more than k = %d tokens", m->k);
		star = *p == '*';
		if (star)
			p += 1 + strspn(p + 1, " ");	/* "* 1" is accepted too */
		len = strcspn(p, " ");
		CHECK(len >= 1 && len <= (size_t) digits &&
			  strspn(p, "0123456789abcdefABCDEF") == len, "token %d", i);
		CHECK(strtoul(p, &end, 16) == value_at(m, i), "value %d", i);
		CHECK(star == borrowed_at(m, i), "borrowed bit %d", i);
		p = end;
		i++;
	}
	CHECK(i == m->k, "%d tokens for k = %d", i, m->k);
}

/* Text input. */
static void
text_input(const char *str)
{
	NddupParseError err;
	NddupMinhash *m = nddup_minhash_parse(str, &err);

	if (m == NULL)
	{
		fuzz_check_error(err.code, &err, CODE(SYNTAX) | CODE(INVALID), true);
		return;
	}
	check_tokens(str, m);
	fuzz_check_round_trips(&minhash, m);
	nddup_free_hook(m);
}

/* Binary input. */
static void
binary_input(const uint8_t *b, size_t len)
{
	NddupParseError err;
	NddupMinhash *m = nddup_minhash_recv(b, len, &err);
	int			k,
				bits;

	if (len < NDDUP_MINHASH_BINARY_HDRSZ)
	{
		CHECK(m == NULL, "accepted %zu bytes", len);
		fuzz_check_error(err.code, &err, CODE(SHORT), false);
		CHECK(err.have == (int64_t) len && err.need == 12, "SHORT for %zu bytes", len);
		return;
	}
	k = (b[6] << 8) | b[7];
	bits = b[2];
	if (b[0] != 1 || b[1] > 1 || k < 1 || k > NDDUP_MINHASH_MAX_K ||
		(bits != 1 && bits != 2 && bits != 4 && bits != 8 && bits != 16 && bits != 32))
	{
		CHECK(m == NULL, "accepted a bad header");
		fuzz_check_error(err.code, &err, CODE(HEADER), false);
		return;
	}
	if (len - 12 != nddup_minhash_data_size(b[1], k, bits))
	{
		CHECK(m == NULL, "accepted %zu bytes", len);
		fuzz_check_error(err.code, &err, CODE(LENGTH), false);
		CHECK(err.have == (int64_t) (len - 12) &&
			  err.need == nddup_minhash_data_size(b[1], k, bits), "LENGTH reports");
		return;
	}
	if (m == NULL)
	{
		fuzz_check_error(err.code, &err, CODE(INVALID), true);
		return;
	}
	fuzz_check_received(&minhash, m, b, len);
	nddup_free_hook(m);
}

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_text_or_binary(data, size, text_input, binary_input);
}
