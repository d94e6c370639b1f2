/*-------------------------------------------------------------------------
 *
 * fuzz_io.h
 *	  Helpers shared by the libFuzzer harnesses of the types' text and
 *	  binary forms (test/fuzz/fuzz_*_io.c): exact-size copies of the input
 *	  (so that AddressSanitizer reports any read past it), the check of a
 *	  rejection, and text output into a buffer.
 *
 * A harness defines HARNESS (its name, for the messages) before including
 * this file.  The first input byte chooses the mode: even = text input,
 * odd = binary input (the seeds start with "0" or "1").
 *
 *-------------------------------------------------------------------------
 */
#ifndef FUZZ_IO_H
#define FUZZ_IO_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nddup_core.h"

/* Abort (a finding for libFuzzer) with a message when cond is false. */
#define CHECK(cond, ...) \
	do { \
		if (!(cond)) \
		{ \
			fprintf(stderr, HARNESS ": invariant failed: %s\n  ", #cond); \
			fprintf(stderr, __VA_ARGS__); \
			fprintf(stderr, "\n"); \
			abort(); \
		} \
	} while (0)

/* Largest input looked at. */
#define MAX_INPUT	8192

/*
 * The input as the C string an input function receives: a heap copy of
 * exactly len + 1 bytes (cut at an embedded NUL, as the server's cstring
 * would be).
 */
static inline char *
fuzz_text(const uint8_t *data, size_t len)
{
	char	   *s = malloc(len + 1);

	if (s == NULL)
		abort();
	memcpy(s, data, len);
	s[len] = '\0';
	return s;
}

/* A heap copy of exactly len bytes (a receive function's unread bytes). */
static inline uint8_t *
fuzz_bytes(const uint8_t *data, size_t len)
{
	uint8_t    *b = malloc(len ? len : 1);

	if (b == NULL)
		abort();
	if (len > 0)
		memcpy(b, data, len);
	return b;
}

/*
 * Check a rejection: code is err->code, one of the allowed ones (a bit
 * mask of 1 << code), and the detail is a NUL-terminated string, non-empty
 * when needed.
 */
static inline void
fuzz_check_error(NddupParseCode code, const NddupParseError *err,
				 unsigned allowed, bool need_detail)
{
	CHECK(code != NDDUP_PARSE_OK && code == err->code, "code %d, err->code %d",
		  (int) code, (int) err->code);
	CHECK(code > 0 && code < NDDUP_PARSE_NCODES && (allowed & (1u << code)),
		  "unexpected code %d", (int) code);
	CHECK(memchr(err->detail, '\0', sizeof(err->detail)) != NULL, "detail not terminated");
	if (need_detail)
		CHECK(err->detail[0] != '\0', "code %d without a detail", (int) code);
}

#define CODE(c)		(1u << NDDUP_PARSE_##c)

/* Compare two values of n bytes, aborting with what differs. */
static inline void
fuzz_check_same(const void *a, const void *b, size_t n, const char *what)
{
	if (memcmp(a, b, n) != 0)
	{
		const uint8_t *x = a,
				   *y = b;
		size_t		i = 0;

		while (x[i] == y[i])
			i++;
		CHECK(false, "%s differ at byte %zu of %zu: %02x vs %02x", what, i, n, x[i], y[i]);
	}
}

/*
 * The functions of a varlena type (src/core/sketch_format.c,
 * src/core/imatch_format.c), behind wrappers taking void pointers.
 */
typedef struct FuzzType
{
	void	   *(*parse) (const char *str, NddupParseError *err);
	void		(*format) (const void *value, NddupBuf *out);
	void	   *(*recv) (const uint8_t *data, size_t len, NddupParseError *err);
	size_t		(*send_size) (const void *value);
	void		(*send) (const void *value, uint8_t *out);
	NddupParseCode (*validate) (const void *value, NddupParseError *err);
	size_t		(*size) (const void *value);	/* bytes of the stored value */
} FuzzType;

/*
 * Check an accepted value: it is valid; its text form parses to the same
 * bytes and formats to the same text; its binary form is received as the
 * same bytes and sent again identically.
 */
static inline void
fuzz_check_round_trips(const FuzzType *t, const void *value)
{
	size_t		size = t->size(value);
	size_t		n = t->send_size(value);
	NddupBuf	t1 = {0},
				t2 = {0};
	NddupParseError err;
	void	   *back;
	uint8_t    *b1 = malloc(n),
			   *b2 = malloc(n);

	CHECK(b1 != NULL && b2 != NULL, "out of memory");
	CHECK(t->validate(value, &err) == NDDUP_PARSE_OK, "accepted value invalid: %s", err.detail);

	t->format(value, &t1);
	back = t->parse(t1.data, &err);
	CHECK(back != NULL, "text form rejected (%s): %s", err.detail, t1.data);
	CHECK(t->size(back) == size, "text round trip changes the size: %s", t1.data);
	fuzz_check_same(value, back, size, "text round trip");
	t->format(back, &t2);
	CHECK(t1.len == t2.len && strcmp(t1.data, t2.data) == 0, "not canonical: %s / %s",
		  t1.data, t2.data);
	nddup_free_hook(back);

	t->send(value, b1);
	back = t->recv(b1, n, &err);
	CHECK(back != NULL, "binary form rejected: code %d %s", (int) err.code, err.detail);
	CHECK(t->size(back) == size && t->send_size(back) == n, "binary round trip sizes");
	fuzz_check_same(value, back, size, "binary round trip");
	t->send(back, b2);
	fuzz_check_same(b1, b2, n, "binary forms");
	nddup_free_hook(back);

	nddup_buf_free(&t1);
	nddup_buf_free(&t2);
	free(b1);
	free(b2);
}

/*
 * Check a value accepted from the len bytes b: they are exactly its binary
 * form (one representation per value), and its round trips hold.
 */
static inline void
fuzz_check_received(const FuzzType *t, const void *value, const uint8_t *b, size_t len)
{
	uint8_t    *sent;

	CHECK(t->send_size(value) == len, "%zu bytes received, %zu sent", len, t->send_size(value));
	sent = malloc(len ? len : 1);
	CHECK(sent != NULL, "out of memory");
	t->send(value, sent);
	fuzz_check_same(sent, b, len, "sent and received bytes");
	free(sent);
	fuzz_check_round_trips(t, value);
}

/*
 * The harness entry for the types with text and binary input: the first
 * byte chooses text (even) or binary (odd) input, given to text_input as
 * a C string or to binary_input as exact-size bytes.
 */
static inline int
fuzz_text_or_binary(const uint8_t *data, size_t size,
					void (*text_input) (const char *str),
					void (*binary_input) (const uint8_t *b, size_t len))
{
	if (size < 1 || size > MAX_INPUT)
		return 0;
	if (data[0] & 1)
	{
		uint8_t    *b = fuzz_bytes(data + 1, size - 1);

		binary_input(b, size - 1);
		free(b);
	}
	else
	{
		char	   *s = fuzz_text(data + 1, size - 1);

		text_input(s);
		free(s);
	}
	return 0;
}

#endif							/* FUZZ_IO_H */
