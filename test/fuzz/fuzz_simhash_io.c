/*-------------------------------------------------------------------------
 *
 * fuzz_simhash_io.c
 *	  libFuzzer harness for the text and binary forms of simhash64 and
 *	  hamming_ball (src/core/simhash_format.c).
 *
 * Input: a mode byte (bit 0: binary rather than text, bit 1: hamming_ball
 * rather than simhash64), then the text or the bytes.
 *
 * Invariants (docs/reports/fuzzing.md): the parsers accept exactly what a direct
 * implementation of the documented syntax accepts, with the same value and
 * error code; accepted text formats to the canonical form, which parses to
 * the same value and formats to the same bytes; binary input is read from
 * its first 8 (12) bytes, and sending the value gives those bytes back;
 * a shorter input is SHORT with its length.
 *
 *-------------------------------------------------------------------------
 */
#define HARNESS "fuzz_simhash_io"
#include "fuzz_io.h"

/* Value of a hex digit, or -1 (reference). */
static int
ref_hex(char c)
{
	const char *digits = "0123456789abcdef0123456789ABCDEF";
	const char *p = c != '\0' ? strchr(digits, c) : NULL;

	return p == NULL ? -1 : (int) ((p - digits) % 16);
}

/* Reference simhash64 syntax on [s, s + n): 0x? and 16 hex digits. */
static bool
ref_simhash(const char *s, size_t n, uint64_t *v)
{
	if (n == 18 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
	{
		s += 2;
		n -= 2;
	}
	if (n != 16)
		return false;
	*v = 0;
	for (size_t i = 0; i < 16; i++)
	{
		if (ref_hex(s[i]) < 0)
			return false;
		*v = (*v << 4) | (uint64_t) ref_hex(s[i]);
	}
	return true;
}

/* Check the canonical text form of value: 16 lower-case digits, round trip. */
static void
check_simhash_text(uint64_t value)
{
	char		text[17];
	char		again[17];
	uint64_t	back = ~value;

	nddup_simhash64_format(value, text);
	CHECK(strlen(text) == 16 && strspn(text, "0123456789abcdef") == 16,
		  "formatted \"%s\"", text);
	CHECK(nddup_simhash64_parse(text, &back) == NDDUP_PARSE_OK && back == value,
		  "\"%s\" does not parse back", text);
	nddup_simhash64_format(back, again);
	CHECK(strcmp(text, again) == 0, "not canonical: %s, %s", text, again);
}

/* simhash64 text input. */
static void
simhash_text(const char *s)
{
	uint64_t	value = 0,
				want = 0;
	NddupParseCode code = nddup_simhash64_parse(s, &value);
	bool		ok = ref_simhash(s, strlen(s), &want);

	CHECK(code == (ok ? NDDUP_PARSE_OK : NDDUP_PARSE_SYNTAX), "code %d for \"%s\"", (int) code, s);
	if (!ok)
		return;
	CHECK(value == want, "value %016llx, expected %016llx", (unsigned long long) value,
		  (unsigned long long) want);
	check_simhash_text(value);
}

/* simhash64 binary input. */
static void
simhash_binary(const uint8_t *b, size_t len)
{
	NddupParseError err;
	uint64_t	value = 0,
				back = 0;
	uint8_t		sent[8];
	NddupParseCode code = nddup_simhash64_recv(b, len, &value, &err);

	if (len < 8)
	{
		fuzz_check_error(code, &err, CODE(SHORT), false);
		CHECK(err.have == (int64_t) len && err.need == 8, "SHORT %lld/%llu for %zu bytes",
			  (long long) err.have, (unsigned long long) err.need, len);
		return;
	}
	CHECK(code == NDDUP_PARSE_OK, "code %d for %zu bytes", (int) code, len);
	nddup_simhash64_send(value, sent);
	fuzz_check_same(sent, b, 8, "sent and received bytes");
	CHECK(nddup_simhash64_recv(sent, 8, &back, &err) == NDDUP_PARSE_OK && back == value,
		  "send/recv round trip");
	check_simhash_text(value);
}

/* Check the canonical text and binary forms of a ball. */
static void
check_ball(uint64_t center, int32_t radius)
{
	char		text[NDDUP_HAMMING_BALL_TEXT_SIZE];
	char		again[NDDUP_HAMMING_BALL_TEXT_SIZE];
	uint8_t		sent[12];
	uint64_t	c2 = ~center;
	int32_t		r2 = -1;
	NddupParseError err;

	nddup_hamming_ball_format(center, radius, text);
	CHECK(nddup_hamming_ball_parse(text, &c2, &r2) == NDDUP_PARSE_OK &&
		  c2 == center && r2 == radius, "\"%s\" does not parse back", text);
	nddup_hamming_ball_format(c2, r2, again);
	CHECK(strcmp(text, again) == 0, "not canonical: %s, %s", text, again);
	nddup_hamming_ball_send(center, radius, sent);
	CHECK(nddup_hamming_ball_recv(sent, 12, &c2, &r2, &err) == NDDUP_PARSE_OK &&
		  c2 == center && r2 == radius, "send/recv round trip of %s", text);
}

/* hamming_ball text input, against the documented syntax. */
static void
ball_text(const char *s)
{
	uint64_t	center = 0,
				want = 0;
	int32_t		radius = -1;
	NddupParseCode code = nddup_hamming_ball_parse(s, &center, &radius);
	const char *slash = strchr(s, '/');
	const char *r;
	NddupParseCode expect;

	if (slash == NULL || !ref_simhash(s, (size_t) (slash - s), &want))
		expect = NDDUP_PARSE_SYNTAX;
	else
	{
		r = slash + 1;
		expect = NDDUP_PARSE_RANGE;
		if ((strlen(r) == 1 || strlen(r) == 2) && strspn(r, "0123456789") == strlen(r) &&
			atoi(r) <= 64)
			expect = NDDUP_PARSE_OK;
	}
	CHECK(code == expect, "code %d, expected %d for \"%s\"", (int) code, (int) expect, s);
	if (code != NDDUP_PARSE_OK)
		return;
	CHECK(center == want && radius == atoi(slash + 1), "value of \"%s\"", s);
	check_ball(center, radius);
}

/* hamming_ball binary input. */
static void
ball_binary(const uint8_t *b, size_t len)
{
	NddupParseError err;
	uint64_t	center = 0;
	int32_t		radius = 0;
	uint8_t		sent[12];
	NddupParseCode code = nddup_hamming_ball_recv(b, len, &center, &radius, &err);
	int32_t		want;

	if (len < 12)
	{
		fuzz_check_error(code, &err, CODE(SHORT), false);
		CHECK(err.have == (int64_t) len && err.need == 12, "SHORT for %zu bytes", len);
		return;
	}
	want = (int32_t) (((uint32_t) b[8] << 24) | ((uint32_t) b[9] << 16) |
						((uint32_t) b[10] << 8) | b[11]);
	if (want < 0 || want > 64)
	{
		fuzz_check_error(code, &err, CODE(RANGE), true);
		CHECK(err.have == want, "RANGE reports %lld, radius %d", (long long) err.have, want);
		return;
	}
	CHECK(code == NDDUP_PARSE_OK && radius == want, "code %d for radius %d", (int) code, want);
	nddup_hamming_ball_send(center, radius, sent);
	fuzz_check_same(sent, b, 12, "sent and received bytes");
	check_ball(center, radius);
}

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	bool		binary,
				ball;

	if (size < 1 || size > MAX_INPUT)
		return 0;
	binary = data[0] & 1;
	ball = data[0] & 2;
	data++;
	size--;
	if (binary)
	{
		uint8_t    *b = fuzz_bytes(data, size);

		if (ball)
			ball_binary(b, size);
		else
			simhash_binary(b, size);
		free(b);
	}
	else
	{
		char	   *s = fuzz_text(data, size);

		if (ball)
			ball_text(s);
		else
			simhash_text(s);
		free(s);
	}
	return 0;
}
