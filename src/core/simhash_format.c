/*-------------------------------------------------------------------------
 *
 * simhash_format.c
 *	  Text and binary forms of simhash64 and hamming_ball, in pure C (the
 *	  server's input, output, receive and send functions in
 *	  src/types/simhash_type.c wrap these).
 *
 * simhash64: exactly 16 hexadecimal digits, most significant first, with
 * an optional "0x" prefix and either case on input, lower case on output;
 * binary: 8 bytes, network order.
 *
 * hamming_ball: "<simhash64>/<radius>", the radius one or two decimal
 * digits, at most 64; binary: center (8 bytes) and radius (4 bytes),
 * network order.
 *
 *-------------------------------------------------------------------------
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "nddup_core.h"

/* Value of one hexadecimal digit, or -1. */
int
nddup_hex_digit_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Parse [p, end): optional 0x and exactly 16 hex digits; false otherwise. */
static bool
parse_hex16(const char *p, const char *end, uint64_t *result)
{
	uint64_t	value = 0;
	int			ndigits = 0;

	if (end - p >= 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	for (; p < end; p++)
	{
		int			d = nddup_hex_digit_value(*p);

		if (d < 0 || ndigits == 16)
			return false;
		value = (value << 4) | (uint64_t) d;
		ndigits++;
	}
	*result = value;
	return ndigits == 16;
}

/* Fill err (no detail when detail_fmt is NULL) and return code. */
NddupParseCode
nddup_parse_fail(NddupParseError *err, NddupParseCode code, int64_t have,
				 uint64_t need, const char *detail_fmt,...)
{
	err->code = code;
	err->have = have;
	err->need = need;
	err->detail[0] = '\0';
	if (detail_fmt != NULL)
	{
		va_list		ap;

		va_start(ap, detail_fmt);
		vsnprintf(err->detail, sizeof(err->detail), detail_fmt, ap);
		va_end(ap);
	}
	return code;
}

/* value when code is OK (a validated value); otherwise free it and return NULL. */
void *
nddup_parse_keep(void *value, NddupParseCode code)
{
	if (code == NDDUP_PARSE_OK)
		return value;
	nddup_free_hook(value);
	return NULL;
}

/* Parse the text form of a simhash64: SYNTAX unless 0x? and 16 hex digits. */
NddupParseCode
nddup_simhash64_parse(const char *str, uint64_t *value)
{
	return parse_hex16(str, str + strlen(str), value) ?
		NDDUP_PARSE_OK : NDDUP_PARSE_SYNTAX;
}

/* Write 16 lower-case hex digits and a NUL. */
void
nddup_simhash64_format(uint64_t value, char out[17])
{
	static const char digits[] = "0123456789abcdef";

	for (int i = 0; i < 16; i++)
		out[i] = digits[(value >> (60 - 4 * i)) & 0xf];
	out[16] = '\0';
}

/* Read the binary form (the first 8 of len bytes); SHORT if fewer. */
NddupParseCode
nddup_simhash64_recv(const uint8_t *data, size_t len, uint64_t *value,
					 NddupParseError *err)
{
	if (len < NDDUP_SIMHASH64_BINARY_SIZE)
		return nddup_parse_fail(err, NDDUP_PARSE_SHORT, (int64_t) len,
								NDDUP_SIMHASH64_BINARY_SIZE, NULL);
	*value = nddup_get_be(data, 8);
	err->code = NDDUP_PARSE_OK;
	return NDDUP_PARSE_OK;
}

/* Write the binary form: 8 bytes, network order. */
void
nddup_simhash64_send(uint64_t value, uint8_t out[8])
{
	nddup_put_be(out, value, 8);
}

/*
 * Parse "<16 hex digits>/<radius>": SYNTAX when the part before the first
 * "/" is not a simhash64 (or there is no "/"), RANGE when the rest is not
 * one or two decimal digits of a number up to 64.
 */
NddupParseCode
nddup_hamming_ball_parse(const char *str, uint64_t *center, int32_t *radius)
{
	const char *slash = strchr(str, '/');
	const char *r;
	int			value = 0;

	if (slash == NULL || !parse_hex16(str, slash, center))
		return NDDUP_PARSE_SYNTAX;
	for (r = slash + 1; *r >= '0' && *r <= '9' && r - slash <= 2; r++)
		value = value * 10 + (*r - '0');
	if (r == slash + 1 || *r != '\0' || value > 64)
		return NDDUP_PARSE_RANGE;
	*radius = value;
	return NDDUP_PARSE_OK;
}

/* Write "<16 hex digits>/<radius>" and a NUL. */
void
nddup_hamming_ball_format(uint64_t center, int32_t radius,
						  char out[NDDUP_HAMMING_BALL_TEXT_SIZE])
{
	nddup_simhash64_format(center, out);
	snprintf(out + 16, NDDUP_HAMMING_BALL_TEXT_SIZE - 16, "/%d", (int) radius);
}

/*
 * Read the binary form (the first 12 of len bytes): SHORT if fewer, RANGE
 * (the radius in err->have) unless the radius is 0 to 64.
 */
NddupParseCode
nddup_hamming_ball_recv(const uint8_t *data, size_t len, uint64_t *center,
						int32_t *radius, NddupParseError *err)
{
	int32_t		r;

	if (len < NDDUP_HAMMING_BALL_BINARY_SIZE)
		return nddup_parse_fail(err, NDDUP_PARSE_SHORT, (int64_t) len,
								NDDUP_HAMMING_BALL_BINARY_SIZE, NULL);
	r = (int32_t) (uint32_t) nddup_get_be(data + 8, 4);
	if (r < 0 || r > 64)
		return nddup_parse_fail(err, NDDUP_PARSE_RANGE, r, 0,
								"The radius must be between 0 and 64.");
	*center = nddup_get_be(data, 8);
	*radius = r;
	err->code = NDDUP_PARSE_OK;
	return NDDUP_PARSE_OK;
}

/* Write the binary form: center (8 bytes), radius (4 bytes), network order. */
void
nddup_hamming_ball_send(uint64_t center, int32_t radius, uint8_t out[12])
{
	nddup_put_be(out, center, 8);
	nddup_put_be(out + 8, (uint32_t) radius, 4);
}
