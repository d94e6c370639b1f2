/*-------------------------------------------------------------------------
 *
 * test_format.c
 *	  Unit tests of the text and binary forms of the types and of the
 *	  trigger's argument parser (src/core/simhash_format.c, src/core/sketch_format.c,
 *	  src/core/imatch_format.c, src/core/trigger_options.c): known accepted and
 *	  rejected literals with the code and the detail the server prints,
 *	  canonical output, pinned binary forms.  run_format_tests() returns the
 *	  number of failures.
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include "nddup_core.h"
#include "unit_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int			run_format_tests(void);

static int	fmt_failures = 0;
static int	fmt_checks = 0;

#define CHECK(cond, ...) UNIT_CHECK(fmt_checks, fmt_failures, cond, __VA_ARGS__)

/* Details of the server's messages, as the parsers must give them. */
#define SET_START	"It must start with \"exact\", \"bottom\" or \"mod\"."
#define SET_HEADER	"Expected size=W unit=word|char n=N: before the hashes."
#define SET_HASHES	"Hashes are 1 to 16 hex digits separated by spaces."
#define SET_RANGE	"A parameter is out of range."
#define MH_START	"It must start with \"kperm\" or \"oph\"."
#define MH_RANGE	"k must be between 1 and 1024, size between 1 and 64, bits 1, 2, 4, 8, 16 or 32."
#define LEX_HEADER	"Expected \"lexicon\" or \"df\", then ndocs=N drop_frequent=F drop_rare=R: and the terms."
#define LEX_SHARES	"The cut shares must be at least 0 and together at most 1."

/* ----------------------------------------------------------------
 *		simhash64 and hamming_ball
 * ----------------------------------------------------------------
 */

/* simhash64 text: accepted literals, their value and canonical form; rejected ones. */
static void
test_simhash64(void)
{
	static const char *const rejected[] = {
		"", " 0123456789abcdef", "0123456789abcdef ", "0x", "0x0x0123456789abcdef",
		"-123456789abcdef", "0123456789abcdeg", "fffffffffffffffff", "123456789abcdef",
		"0x123456789abcdef", "00x123456789abcdef", "0123456789abcdef/3"
	};
	uint64_t	v = 0;
	char		out[17];

	CHECK(nddup_simhash64_parse("0123456789abcdef", &v) == NDDUP_PARSE_OK &&
		  v == UINT64_C(0x0123456789abcdef), "plain literal");
	CHECK(nddup_simhash64_parse("0x0123456789ABCDEF", &v) == NDDUP_PARSE_OK &&
		  v == UINT64_C(0x0123456789abcdef), "0x and upper case");
	CHECK(nddup_simhash64_parse("0XFFFFFFFFFFFFFFFF", &v) == NDDUP_PARSE_OK && v == UINT64_MAX,
		  "0X prefix");
	for (size_t i = 0; i < sizeof(rejected) / sizeof(rejected[0]); i++)
		CHECK(nddup_simhash64_parse(rejected[i], &v) == NDDUP_PARSE_SYNTAX,
			  "simhash64 \"%s\" accepted", rejected[i]);
	nddup_simhash64_format(UINT64_C(0x0123456789ABCDEF), out);
	CHECK(strcmp(out, "0123456789abcdef") == 0, "format: %s", out);
	nddup_simhash64_format(0, out);
	CHECK(strcmp(out, "0000000000000000") == 0, "format of 0: %s", out);
}

/* simhash64 and hamming_ball binary forms: pinned bytes, short input. */
static void
test_simhash_binary(void)
{
	static const uint8_t fp[12] = {0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0, 0, 0, 5};
	uint8_t		out[12];
	uint64_t	v = 0;
	int32_t		r = 0;
	NddupParseError err;

	nddup_simhash64_send(UINT64_C(0x0123456789abcdef), out);
	CHECK(memcmp(out, fp, 8) == 0, "simhash64 binary form");
	CHECK(nddup_simhash64_recv(fp, 12, &v, &err) == NDDUP_PARSE_OK &&
		  v == UINT64_C(0x0123456789abcdef), "simhash64 recv reads the first 8 bytes");
	CHECK(nddup_simhash64_recv(fp, 7, &v, &err) == NDDUP_PARSE_SHORT &&
		  err.have == 7 && err.need == 8, "7 bytes: SHORT 7/8");

	nddup_hamming_ball_send(UINT64_C(0x0123456789abcdef), 5, out);
	CHECK(memcmp(out, fp, 12) == 0, "hamming_ball binary form");
	CHECK(nddup_hamming_ball_recv(fp, 12, &v, &r, &err) == NDDUP_PARSE_OK && r == 5,
		  "hamming_ball recv");
	CHECK(nddup_hamming_ball_recv(fp, 11, &v, &r, &err) == NDDUP_PARSE_SHORT &&
		  err.have == 11 && err.need == 12, "11 bytes: SHORT 11/12");
	memcpy(out, fp, 12);
	out[11] = 65;
	CHECK(nddup_hamming_ball_recv(out, 12, &v, &r, &err) == NDDUP_PARSE_RANGE &&
		  err.have == 65 && strcmp(err.detail, "The radius must be between 0 and 64.") == 0,
		  "radius 65: RANGE");
	memset(out + 8, 0xff, 4);
	CHECK(nddup_hamming_ball_recv(out, 12, &v, &r, &err) == NDDUP_PARSE_RANGE && err.have == -1,
		  "radius -1: RANGE");
}

/* hamming_ball text: the center's and the radius' rules. */
static void
test_hamming_ball(void)
{
	static const struct
	{
		const char *text;
		NddupParseCode code;
		int32_t		radius;
	}			cases[] = {
		{"0123456789abcdef/12", NDDUP_PARSE_OK, 12},
		{"0x0123456789ABCDEF/64", NDDUP_PARSE_OK, 64},
		{"0123456789abcdef/00", NDDUP_PARSE_OK, 0},
		{"/3", NDDUP_PARSE_SYNTAX, 0},
		{"0123456789abcdef", NDDUP_PARSE_SYNTAX, 0},
		{"xyz/3", NDDUP_PARSE_SYNTAX, 0},
		{"0123456789abcdef /3", NDDUP_PARSE_SYNTAX, 0},
		{"0123456789abcdef/", NDDUP_PARSE_RANGE, 0},
		{"0123456789abcdef/65", NDDUP_PARSE_RANGE, 0},
		{"0123456789abcdef/064", NDDUP_PARSE_RANGE, 0},
		{"0123456789abcdef/-1", NDDUP_PARSE_RANGE, 0},
		{"0123456789abcdef/+3", NDDUP_PARSE_RANGE, 0},
		{"0123456789abcdef/ 3", NDDUP_PARSE_RANGE, 0},
		{"0123456789abcdef/3 ", NDDUP_PARSE_RANGE, 0},
		{"0123456789abcdef/0x3", NDDUP_PARSE_RANGE, 0},
		{"0123456789abcdef/3/4", NDDUP_PARSE_RANGE, 0},
	};
	char		out[NDDUP_HAMMING_BALL_TEXT_SIZE];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		uint64_t	c = 0;
		int32_t		r = -1;
		NddupParseCode code = nddup_hamming_ball_parse(cases[i].text, &c, &r);

		CHECK(code == cases[i].code, "hamming_ball \"%s\": code %d, expected %d",
			  cases[i].text, (int) code, (int) cases[i].code);
		if (code == NDDUP_PARSE_OK)
			CHECK(c == UINT64_C(0x0123456789abcdef) && r == cases[i].radius,
				  "hamming_ball \"%s\": value", cases[i].text);
	}
	nddup_hamming_ball_format(UINT64_C(0xff00ff00ff00ff), 3, out);
	CHECK(strcmp(out, "00ff00ff00ff00ff/3") == 0, "format: %s", out);
}

/* ----------------------------------------------------------------
 *		shingleset
 * ----------------------------------------------------------------
 */

/* A type's text parser and writer, behind void pointers. */
typedef struct TextForm
{
	const char *name;
	void	   *(*parse) (const char *str, NddupParseError *err);
	void		(*format) (const void *value, NddupBuf *out);
} TextForm;

/* Parse text; check the code and detail, or (code OK) the text written. */
static void
check_literal(const TextForm *t, const char *text, NddupParseCode code, const char *expect)
{
	NddupParseError err;
	void	   *v = t->parse(text, &err);

	if (code != NDDUP_PARSE_OK)
	{
		CHECK(v == NULL && err.code == code && strcmp(err.detail, expect) == 0,
			  "%s \"%s\": code %d \"%s\", expected %d \"%s\"", t->name, text,
			  v ? 0 : (int) err.code, v ? "" : err.detail, (int) code, expect);
		nddup_free_hook(v);
		return;
	}
	CHECK(v != NULL, "%s \"%s\" rejected: %s", t->name, text, v ? "" : err.detail);
	if (v != NULL)
	{
		NddupBuf	out = {0};

		t->format(v, &out);
		CHECK(strcmp(out.data, expect) == 0, "%s \"%s\" written \"%s\"", t->name, text, out.data);
		nddup_buf_free(&out);
		nddup_free_hook(v);
	}
}

/* shingleset's text form behind void pointers */
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

static const TextForm set_form = {"shingleset", set_parse, set_format};

#define check_set_literal(text, code, expect) check_literal(&set_form, text, code, expect)

/* shingleset text input: every check of the parser and of validation. */
static void
test_shingleset_text(void)
{
	check_set_literal("exact size=3 unit=word n=0:", NDDUP_PARSE_OK, "exact size=3 unit=word n=0:");
	check_set_literal("  bottom s=2 size=2 unit=word n=3:  135BA797C13563D8 631ee2e130c21947 ",
					  NDDUP_PARSE_OK,
					  "bottom s=2 size=2 unit=word n=3: 135ba797c13563d8 631ee2e130c21947");
	check_set_literal("mod m=2 size=3 unit=char n=5: 4 6", NDDUP_PARSE_OK,
					  "mod m=2 size=3 unit=char n=5: 0000000000000004 0000000000000006");
	check_set_literal("exact size=1 unit=word n=1:ff", NDDUP_PARSE_OK,
					  "exact size=1 unit=word n=1: 00000000000000ff");
	check_set_literal("", NDDUP_PARSE_SYNTAX, SET_START);
	check_set_literal("exact", NDDUP_PARSE_SYNTAX, SET_START);
	check_set_literal("Exact size=3 unit=word n=0:", NDDUP_PARSE_SYNTAX, SET_START);
	check_set_literal("bottom size=3 unit=word n=0:", NDDUP_PARSE_SYNTAX, "A bottom-s sample needs s=N.");
	check_set_literal("mod size=3 unit=word n=0:", NDDUP_PARSE_SYNTAX, "A mod-m sample needs m=N.");
	check_set_literal("exact s=2 size=3 unit=word n=0:", NDDUP_PARSE_SYNTAX, SET_HEADER);
	check_set_literal("exact size=3 unit=WORD n=0:", NDDUP_PARSE_SYNTAX, SET_HEADER);
	check_set_literal("exact size=3 unit=word n=0", NDDUP_PARSE_SYNTAX, SET_HEADER);
	check_set_literal("exact size=99999999999999999999 unit=word n=0:", NDDUP_PARSE_SYNTAX, SET_HEADER);
	check_set_literal("exact size=65 unit=word n=0:", NDDUP_PARSE_SYNTAX, SET_RANGE);
	check_set_literal("mod m=2147483648 size=3 unit=word n=0:", NDDUP_PARSE_SYNTAX, SET_RANGE);
	check_set_literal("exact size=3 unit=word n=9223372036854775808:", NDDUP_PARSE_SYNTAX, SET_RANGE);
	check_set_literal("exact size=3 unit=word n=1: 00000000000000001", NDDUP_PARSE_SYNTAX, SET_HASHES);
	check_set_literal("exact size=3 unit=word n=1: -1", NDDUP_PARSE_SYNTAX, SET_HASHES);
	check_set_literal("exact size=3 unit=word n=1: 1,", NDDUP_PARSE_SYNTAX, SET_HASHES);
	check_set_literal("exact size=0 unit=word n=0:", NDDUP_PARSE_INVALID,
					  "The shingle size must be between 1 and 64.");
	check_set_literal("exact size=3 unit=word n=1:", NDDUP_PARSE_INVALID,
					  "An exact set of n=1 shingles has 0 hashes.");
	check_set_literal("exact size=3 unit=word n=2: 2 1", NDDUP_PARSE_INVALID,
					  "Hashes must be distinct and in ascending order.");
	check_set_literal("exact size=3 unit=word n=2: 1 1", NDDUP_PARSE_INVALID,
					  "Hashes must be distinct and in ascending order.");
	check_set_literal("bottom s=0 size=3 unit=word n=0:", NDDUP_PARSE_INVALID,
					  "A bottom-s sample holds min(s, n) hashes, s between 1 and 1000000.");
	check_set_literal("bottom s=2 size=3 unit=word n=3: 1", NDDUP_PARSE_INVALID,
					  "A bottom-s sample holds min(s, n) hashes, s between 1 and 1000000.");
	check_set_literal("mod m=0 size=3 unit=word n=0:", NDDUP_PARSE_INVALID,
					  "A mod-m sample holds at most n hashes, m between 1 and 2147483647.");
	check_set_literal("mod m=2 size=3 unit=word n=1: 2 4", NDDUP_PARSE_INVALID,
					  "A mod-m sample holds at most n hashes, m between 1 and 2147483647.");
	check_set_literal("mod m=2 size=3 unit=word n=3: 3", NDDUP_PARSE_INVALID,
					  "Hash 0000000000000003 of a mod-2 sample is not 0 mod 2.");
}

/* Build the binary form of a set header and its hashes. */
static size_t
set_binary(uint8_t *b, int version, int kind, int size, int unit, uint32_t param,
		   uint32_t nitems, uint64_t card, const uint64_t *items, size_t n)
{
	b[0] = (uint8_t) version;
	b[1] = (uint8_t) kind;
	b[2] = (uint8_t) size;
	b[3] = (uint8_t) unit;
	nddup_put_be(b + 4, param, 4);
	nddup_put_be(b + 8, nitems, 4);
	nddup_put_be(b + 12, card, 8);
	for (size_t i = 0; i < n; i++)
		nddup_put_be(b + 20 + 8 * i, items[i], 8);
	return 20 + 8 * n;
}

/* shingleset binary input: pinned form, each header check in order. */
static void
test_shingleset_binary(void)
{
	static const uint8_t pinned[36] = {
		1, 2, 3, 1, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 5,
		0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 6
	};
	static const uint64_t items[2] = {4, 6};
	uint8_t		b[64];
	uint8_t		out[36];
	NddupParseError err;
	NddupShingleSet *s = nddup_shingleset_recv(pinned, sizeof(pinned), &err);
	size_t		n;

	CHECK(s != NULL && s->kind == NDDUP_SET_MOD && s->param == 2 && s->nitems == 2 &&
		  s->cardinality == 5 && s->items[1] == 6, "pinned mod-2 set");
	if (s != NULL)
	{
		CHECK(nddup_shingleset_send_size(s) == 36, "send size");
		nddup_shingleset_send(s, out);
		CHECK(memcmp(out, pinned, 36) == 0, "binary form");
		nddup_free_hook(s);
	}
	CHECK(nddup_shingleset_recv(pinned, 19, &err) == NULL && err.code == NDDUP_PARSE_SHORT &&
		  err.have == 19 && err.need == 20, "19 bytes: SHORT");
	n = set_binary(b, 2, 0, 3, 0, 0, 0, 0, NULL, 0);
	CHECK(nddup_shingleset_recv(b, n, &err) == NULL && err.code == NDDUP_PARSE_HEADER,
		  "version 2: HEADER");
	n = set_binary(b, 1, 3, 3, 0, 0, 0, 0, NULL, 0);
	CHECK(nddup_shingleset_recv(b, n, &err) == NULL && err.code == NDDUP_PARSE_HEADER,
		  "kind 3: HEADER");
	n = set_binary(b, 1, 0, 3, 0, 0, 100000001, 0, NULL, 0);
	CHECK(nddup_shingleset_recv(b, n, &err) == NULL && err.code == NDDUP_PARSE_TOO_LARGE &&
		  err.need == 100000001, "10^8 + 1 hashes: TOO_LARGE");
	n = set_binary(b, 1, 0, 3, 0, 0, 2, 2, items, 1);
	CHECK(nddup_shingleset_recv(b, n, &err) == NULL && err.code == NDDUP_PARSE_LENGTH &&
		  err.have == 8 && err.need == 16, "one hash of two: LENGTH 8/16");
	n = set_binary(b, 1, 0, 0, 0, 0, 0, 0, NULL, 0);
	CHECK(nddup_shingleset_recv(b, n, &err) == NULL && err.code == NDDUP_PARSE_INVALID &&
		  strcmp(err.detail, "The shingle size must be between 1 and 64.") == 0, "size 0: INVALID");
	n = set_binary(b, 1, 0, 3, 0, 0, 1, UINT64_C(1) << 63, items, 1);
	CHECK(nddup_shingleset_recv(b, n, &err) == NULL && err.code == NDDUP_PARSE_INVALID &&
		  strcmp(err.detail, "The number of shingles n must be at most 9223372036854775807.") == 0,
		  "n = 2^63: INVALID");
}

/* ----------------------------------------------------------------
 *		minhash_sketch
 * ----------------------------------------------------------------
 */

/* minhash_sketch's text form behind void pointers */
static void *
minhash_parse(const char *str, NddupParseError *err)
{
	return nddup_minhash_parse(str, err);
}

static void
minhash_format(const void *v, NddupBuf *out)
{
	nddup_minhash_format(v, nddup_buf_printf, out);
}

static const TextForm minhash_form = {"minhash_sketch", minhash_parse, minhash_format};

#define check_minhash_literal(text, code, expect) check_literal(&minhash_form, text, code, expect)

/* minhash_sketch text input. */
static void
test_minhash_text(void)
{
	check_minhash_literal("kperm k=3 seed=0 size=3 unit=word bits=32: 1a2b3c4d 1 7FFFFFFF",
						  NDDUP_PARSE_OK,
						  "kperm k=3 seed=0 size=3 unit=word bits=32: 1a2b3c4d 00000001 7fffffff");
	check_minhash_literal("oph k=3 seed=4294967295 size=64 unit=char bits=32: 5 *5 * 5",
						  NDDUP_PARSE_OK,
						  "oph k=3 seed=4294967295 size=64 unit=char bits=32: 00000005 *00000005 *00000005");
	check_minhash_literal("oph k=5 seed=0 size=3 unit=word bits=2: 0 1 2 3 1", NDDUP_PARSE_OK,
						  "oph k=5 seed=0 size=3 unit=word bits=2: 0 1 2 3 1");
	check_minhash_literal("kperm k=2 seed=0 size=3 unit=word bits=16: ffff 0", NDDUP_PARSE_OK,
						  "kperm k=2 seed=0 size=3 unit=word bits=16: ffff 0000");
	check_minhash_literal("kperm k=2 seed=0 size=3 unit=word bits=32:  empty", NDDUP_PARSE_OK,
						  "kperm k=2 seed=0 size=3 unit=word bits=32: empty");
	check_minhash_literal("", NDDUP_PARSE_SYNTAX, MH_START);
	check_minhash_literal("KPERM k=1 seed=0 size=3 unit=word bits=32: 1", NDDUP_PARSE_SYNTAX, MH_START);
	check_minhash_literal("kperm k=1 seed=0 size=3 unit=word: 1", NDDUP_PARSE_SYNTAX,
						  "Expected k=K seed=S size=W unit=word|char bits=B: before the values.");
	check_minhash_literal("kperm k=0 seed=0 size=3 unit=word bits=32:", NDDUP_PARSE_SYNTAX, MH_RANGE);
	check_minhash_literal("kperm k=1025 seed=0 size=3 unit=word bits=32:", NDDUP_PARSE_SYNTAX, MH_RANGE);
	check_minhash_literal("kperm k=1 seed=4294967296 size=3 unit=word bits=32: 1",
						  NDDUP_PARSE_SYNTAX, MH_RANGE);
	check_minhash_literal("kperm k=1 seed=0 size=0 unit=word bits=32: 1", NDDUP_PARSE_SYNTAX, MH_RANGE);
	check_minhash_literal("kperm k=1 seed=0 size=3 unit=word bits=3: 1", NDDUP_PARSE_SYNTAX, MH_RANGE);
	check_minhash_literal("kperm k=1 seed=0 size=3 unit=word bits=32:", NDDUP_PARSE_SYNTAX,
						  "Expected 1 values of 8 hex digits.");
	check_minhash_literal("kperm k=2 seed=0 size=3 unit=word bits=32: 1", NDDUP_PARSE_SYNTAX,
						  "Expected 2 values of 8 hex digits.");
	check_minhash_literal("kperm k=1 seed=0 size=3 unit=word bits=32: 100000000", NDDUP_PARSE_SYNTAX,
						  "Expected 1 values of 8 hex digits.");
	check_minhash_literal("kperm k=1 seed=0 size=3 unit=word bits=1: 2", NDDUP_PARSE_SYNTAX,
						  "Expected 1 values of 1 hex digits.");
	check_minhash_literal("kperm k=2 seed=0 size=3 unit=word bits=32: empty x", NDDUP_PARSE_SYNTAX,
						  "Expected 2 values of 8 hex digits.");
	check_minhash_literal("kperm k=1 seed=0 size=3 unit=word bits=32: 1 2", NDDUP_PARSE_SYNTAX,
						  "Expected 1 values.");
	check_minhash_literal("kperm k=1 seed=0 size=3 unit=word bits=32: *1", NDDUP_PARSE_SYNTAX,
						  "Only 32-bit one-permutation sketches have borrowed bins (*).");
	check_minhash_literal("oph k=2 seed=0 size=3 unit=word bits=8: *1 1", NDDUP_PARSE_SYNTAX,
						  "Only 32-bit one-permutation sketches have borrowed bins (*).");
	check_minhash_literal("kperm k=1 seed=0 size=3 unit=word bits=32: ffffffff", NDDUP_PARSE_INVALID,
						  "Value ffffffff stands for \"empty\" only.");
	check_minhash_literal("oph k=2 seed=0 size=3 unit=word bits=32: *1 *1", NDDUP_PARSE_INVALID,
						  "At least one bin must not be borrowed.");
}

/* minhash_sketch binary input: pinned form, header checks, validation. */
static void
test_minhash_binary(void)
{
	/* oph, 32 bits, k = 2, seed 7, values 16 and 16, bin 1 borrowed */
	static const uint8_t pinned[21] = {
		1, 1, 32, 0, 3, 0, 0, 2, 0, 0, 0, 7, 0, 0, 0, 16, 0, 0, 0, 16, 2
	};
	uint8_t		b[32];
	uint8_t		out[21];
	NddupParseError err;
	NddupMinhash *m = nddup_minhash_recv(pinned, sizeof(pinned), &err);

	CHECK(m != NULL && m->method == NDDUP_MINHASH_OPH && m->k == 2 && m->seed == 7 &&
		  NDDUP_MINHASH_VALUES(m)[1] == 16 && NDDUP_MINHASH_BORROWED(m)[0] == 2,
		  "pinned oph sketch");
	if (m != NULL)
	{
		CHECK(nddup_minhash_send_size(m) == 21, "send size");
		nddup_minhash_send(m, out);
		CHECK(memcmp(out, pinned, 21) == 0, "binary form");
		nddup_free_hook(m);
	}
	CHECK(nddup_minhash_recv(pinned, 11, &err) == NULL && err.code == NDDUP_PARSE_SHORT &&
		  err.have == 11 && err.need == 12, "11 bytes: SHORT");
	memcpy(b, pinned, 21);
	b[2] = 3;
	CHECK(nddup_minhash_recv(b, 21, &err) == NULL && err.code == NDDUP_PARSE_HEADER,
		  "3 bits: HEADER");
	CHECK(nddup_minhash_recv(pinned, 20, &err) == NULL && err.code == NDDUP_PARSE_LENGTH &&
		  err.have == 8 && err.need == 9, "no bitmap: LENGTH 8/9");
	memcpy(b, pinned, 21);
	b[20] = 3;
	CHECK(nddup_minhash_recv(b, 21, &err) == NULL && err.code == NDDUP_PARSE_INVALID &&
		  strcmp(err.detail, "At least one bin must not be borrowed.") == 0, "all borrowed");
	b[20] = 6;
	CHECK(nddup_minhash_recv(b, 21, &err) == NULL && err.code == NDDUP_PARSE_INVALID &&
		  strcmp(err.detail, "The unused bits of the borrowed-bin bitmap must be zero.") == 0,
		  "bitmap padding");
	/* kperm, 2 bits, k = 3: one byte, its top two bits unused */
	memcpy(b, (const uint8_t[]) {1, 0, 2, 0, 3, 0, 0, 3, 0, 0, 0, 0, 0xc0}, 13);
	CHECK(nddup_minhash_recv(b, 13, &err) == NULL && err.code == NDDUP_PARSE_INVALID &&
		  strcmp(err.detail, "The unused bits of a 2-bit sketch must be zero.") == 0,
		  "b-bit padding");
	b[3] = 1;
	b[12] = 0x3f;
	m = nddup_minhash_recv(b, 13, &err);
	CHECK(m != NULL, "2-bit sketch of an empty document");
	nddup_free_hook(m);
	b[3] = 2;
	CHECK(nddup_minhash_recv(b, 13, &err) == NULL && err.code == NDDUP_PARSE_INVALID,
		  "unknown flag");
}

/* ----------------------------------------------------------------
 *		imatch_lexicon
 * ----------------------------------------------------------------
 */

/* A share formatter for the tests: %g with 9 significant digits at most. */
static void
share_g(float share, char out[32])
{
	snprintf(out, 32, "%.9g", (double) share);
}

/* imatch_lexicon's text form behind void pointers */
static void *
lexicon_parse(const char *str, NddupParseError *err)
{
	return nddup_lexicon_parse(str, err);
}

static void
lexicon_format(const void *v, NddupBuf *out)
{
	nddup_lexicon_format(v, share_g, nddup_buf_printf, out);
}

static const TextForm lexicon_form = {"imatch_lexicon", lexicon_parse, lexicon_format};

#define check_lexicon_literal(text, code, expect) check_literal(&lexicon_form, text, code, expect)

/* imatch_lexicon text input. */
static void
test_lexicon_text(void)
{
	check_lexicon_literal("lexicon ndocs=4 drop_frequent=0.25 drop_rare=0.5: 01 02", NDDUP_PARSE_OK,
						  "lexicon ndocs=4 drop_frequent=0.25 drop_rare=0.5: 0000000000000001 0000000000000002");
	check_lexicon_literal("df ndocs=3 drop_frequent=-1 drop_rare=-1: 01:1  02:3", NDDUP_PARSE_OK,
						  "df ndocs=3 drop_frequent=-1 drop_rare=-1: 0000000000000001:1 0000000000000002:3");
	/* strtoull and strtod syntax: a 0x hash, a hexadecimal share */
	check_lexicon_literal("lexicon ndocs=1 drop_frequent=0x1p-3 drop_rare=0: 0x1f", NDDUP_PARSE_OK,
						  "lexicon ndocs=1 drop_frequent=0.125 drop_rare=0: 000000000000001f");
	/* a count beyond int64 is out of range, not clamped (docs/reports/fuzzing.md, finding 4) */
	check_lexicon_literal("df ndocs=9223372036854775807 drop_frequent=-1 drop_rare=-1: 1:99999999999999999999",
						  NDDUP_PARSE_INVALID, "A document frequency is out of range (1 to ndocs).");
	check_lexicon_literal("df ndocs=9223372036854775807 drop_frequent=-1 drop_rare=-1: 1:9223372036854775807",
						  NDDUP_PARSE_OK,
						  "df ndocs=9223372036854775807 drop_frequent=-1 drop_rare=-1: 0000000000000001:9223372036854775807");
	check_lexicon_literal("", NDDUP_PARSE_SYNTAX, LEX_HEADER);
	check_lexicon_literal(" lexicon ndocs=1 drop_frequent=0 drop_rare=0:", NDDUP_PARSE_SYNTAX, LEX_HEADER);
	check_lexicon_literal("lexicon ndocs=-1 drop_frequent=0.1 drop_rare=0.1:", NDDUP_PARSE_SYNTAX, LEX_HEADER);
	check_lexicon_literal("lexicon ndocs=99999999999999999999 drop_frequent=0.1 drop_rare=0.1:",
						  NDDUP_PARSE_SYNTAX, LEX_HEADER);
	check_lexicon_literal("lexicon ndocs=1 drop_frequent=nan drop_rare=0.1:", NDDUP_PARSE_SYNTAX, LEX_HEADER);
	check_lexicon_literal("lexicon ndocs=1 drop_frequent=1.5 drop_rare=0.1:", NDDUP_PARSE_SYNTAX, LEX_HEADER);
	check_lexicon_literal("lexicon ndocs=1 drop_frequent=0.1 drop_rare=0.1 :", NDDUP_PARSE_SYNTAX, LEX_HEADER);
	check_lexicon_literal("lexicon ndocs=1 drop_frequent=0.1 drop_rare=0.1: 12345678901234567",
						  NDDUP_PARSE_SYNTAX, "");
	check_lexicon_literal("lexicon ndocs=1 drop_frequent=0.1 drop_rare=0.1: x", NDDUP_PARSE_SYNTAX, "");
	check_lexicon_literal("lexicon ndocs=1 drop_frequent=0.1 drop_rare=0.1: 1:1", NDDUP_PARSE_SYNTAX, "");
	check_lexicon_literal("df ndocs=1 drop_frequent=-1 drop_rare=-1: 1", NDDUP_PARSE_SYNTAX,
						  "A document-frequency table lists hash:df pairs.");
	check_lexicon_literal("lexicon ndocs=1 drop_frequent=0.6 drop_rare=0.5:", NDDUP_PARSE_INVALID, LEX_SHARES);
	check_lexicon_literal("lexicon ndocs=1 drop_frequent=-1 drop_rare=-1:", NDDUP_PARSE_INVALID, LEX_SHARES);
	check_lexicon_literal("df ndocs=1 drop_frequent=0.5 drop_rare=-1: 1:1", NDDUP_PARSE_INVALID, LEX_SHARES);
	check_lexicon_literal("lexicon ndocs=1 drop_frequent=0.1 drop_rare=0.1: 2 1", NDDUP_PARSE_INVALID,
						  "Term hashes must be distinct and ascending.");
	check_lexicon_literal("df ndocs=1 drop_frequent=-1 drop_rare=-1: 1:0", NDDUP_PARSE_INVALID,
						  "A document frequency is out of range (1 to ndocs).");
	check_lexicon_literal("df ndocs=1 drop_frequent=-1 drop_rare=-1: 1:2", NDDUP_PARSE_INVALID,
						  "A document frequency is out of range (1 to ndocs).");
}

/* imatch_lexicon binary input: pinned form, header checks. */
static void
test_lexicon_binary(void)
{
	/* df, shares -1 and -1, ndocs 3, terms 1:1 and 2:3 */
	static const uint8_t pinned[54] = {
		1, 0, 0xbf, 0x80, 0, 0, 0xbf, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 2,
		0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 2,
		0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 3
	};
	uint8_t		b[54];
	uint8_t		out[54];
	NddupParseError err;
	NddupLexicon *l = nddup_lexicon_recv(pinned, sizeof(pinned), &err);

	CHECK(l != NULL && l->kind == NDDUP_LEX_DF && l->drop_frequent == -1.0f && l->ndocs == 3 &&
		  l->nterms == 2 && NDDUP_LEXICON_DF(l)[1] == 3, "pinned df table");
	if (l != NULL)
	{
		CHECK(nddup_lexicon_send_size(l) == 54, "send size");
		nddup_lexicon_send(l, out);
		CHECK(memcmp(out, pinned, 54) == 0, "binary form");
		nddup_free_hook(l);
	}
	CHECK(nddup_lexicon_recv(pinned, 21, &err) == NULL && err.code == NDDUP_PARSE_SHORT &&
		  err.have == 21 && err.need == 22, "21 bytes: SHORT");
	memcpy(b, pinned, 54);
	b[1] = 2;
	CHECK(nddup_lexicon_recv(b, 54, &err) == NULL && err.code == NDDUP_PARSE_HEADER, "kind 2");
	memcpy(b, pinned, 54);
	b[10] = 0x80;
	CHECK(nddup_lexicon_recv(b, 54, &err) == NULL && err.code == NDDUP_PARSE_HEADER,
		  "negative ndocs");
	memcpy(b, pinned, 54);
	nddup_put_be(b + 18, 10000001, 4);
	CHECK(nddup_lexicon_recv(b, 54, &err) == NULL && err.code == NDDUP_PARSE_TOO_LARGE &&
		  err.need == 10000001, "10^7 + 1 terms: TOO_LARGE");
	CHECK(nddup_lexicon_recv(pinned, 46, &err) == NULL && err.code == NDDUP_PARSE_LENGTH,
		  "a count missing: LENGTH");
	memcpy(b, pinned, 54);
	b[53] = 4;
	CHECK(nddup_lexicon_recv(b, 54, &err) == NULL && err.code == NDDUP_PARSE_INVALID &&
		  strcmp(err.detail, "A document frequency is out of range (1 to ndocs).") == 0,
		  "count 4 of 3 documents");
}

/* ----------------------------------------------------------------
 *		Query types
 * ----------------------------------------------------------------
 */

/* A number parser for the tests: strtod and the spaces after it. */
static bool
strtod_number(const char *num, double *value, const char **end, void *arg)
{
	char	   *stop;

	(void) arg;
	*value = strtod(num, &stop);
	if (stop == num)
		return false;
	while (*stop == ' ')
		stop++;
	*end = stop;
	return true;
}

/* nddup_query_parse and nddup_query_check_set. */
static void
test_query(void)
{
	int			kind = -1;
	double		t = -1;
	const char *value = NULL;
	NddupParseError err;
	NddupShingleSet set = {0};
	const char *q1 = "  containment>=0.25  exact size=3 unit=word n=0:";

	CHECK(nddup_query_parse("jaccard>=0.5 kperm", false, strtod_number, NULL, &kind, &t,
							&value, &err) == NDDUP_PARSE_OK &&
		  kind == NDDUP_QUERY_JACCARD && t == 0.5 && strcmp(value, "kperm") == 0, "jaccard query");
	CHECK(nddup_query_parse(q1, true, strtod_number, NULL, &kind, &t, &value, &err) == NDDUP_PARSE_OK &&
		  kind == NDDUP_QUERY_CONTAINMENT && t == 0.25 && value == q1 + 21, "containment query");
	CHECK(nddup_query_parse(q1, false, strtod_number, NULL, &kind, &t, &value, &err) ==
		  NDDUP_PARSE_SYNTAX && err.detail[0] == '\0', "containment of a sketch: SYNTAX");
	CHECK(nddup_query_parse("", true, strtod_number, NULL, &kind, &t, &value, &err) ==
		  NDDUP_PARSE_SYNTAX, "empty query: SYNTAX");
	CHECK(nddup_query_parse("jaccard>=0.5", false, strtod_number, NULL, &kind, &t, &value, &err) ==
		  NDDUP_PARSE_RANGE && strcmp(err.detail, "The threshold is followed by no sketch.") == 0,
		  "no value");
	CHECK(nddup_query_parse("jaccard>=1.5 x", false, strtod_number, NULL, &kind, &t, &value, &err) ==
		  NDDUP_PARSE_RANGE && strcmp(err.detail, "The threshold must be between 0 and 1.") == 0,
		  "threshold 1.5");
	CHECK(nddup_query_parse("jaccard>=nan x", false, strtod_number, NULL, &kind, &t, &value, &err) ==
		  NDDUP_PARSE_RANGE, "threshold NaN");
	CHECK(nddup_query_parse("jaccard>=x", false, strtod_number, NULL, &kind, &t, &value, &err) ==
		  NDDUP_PARSE_NUMBER, "no number: the parser's failure");
	set.kind = NDDUP_SET_BOTTOM;
	CHECK(nddup_query_check_set(NDDUP_QUERY_CONTAINMENT, &set, &err) == NDDUP_PARSE_INVALID &&
		  strcmp(err.detail, "Containment cannot be estimated from bottom-s samples.") == 0,
		  "containment of a bottom-s sample");
	CHECK(nddup_query_check_set(NDDUP_QUERY_JACCARD, &set, &err) == NDDUP_PARSE_OK,
		  "resemblance of a bottom-s sample");
	set.kind = NDDUP_SET_MOD;
	CHECK(nddup_query_check_set(NDDUP_QUERY_CONTAINMENT, &set, &err) == NDDUP_PARSE_OK,
		  "containment of a mod-m sample");
}

/* ----------------------------------------------------------------
 *		Trigger arguments
 * ----------------------------------------------------------------
 */

/* Run the three steps on n arguments; the first failing code. */
static NddupTriggerCode
trigger_args(int n, const char *const *args, NddupTriggerArgs *a, NddupTriggerError *err)
{
	NddupTriggerCode code = nddup_trigger_split(n, (char *const *) args, a, err);

	if (code == NDDUP_TRIGGER_OK)
		code = nddup_trigger_check_params(a, err);
	if (code == NDDUP_TRIGGER_OK)
		code = nddup_trigger_check_signature(a, err);
	return code;
}

#define ARGS(...)	(int) (sizeof((const char *[]) {__VA_ARGS__}) / sizeof(char *)), \
	(const char *[]) {__VA_ARGS__}

/* Expect a rejection with code and key (the key only where it is reported). */
static void
check_trigger_error(int n, const char *const *args, NddupTriggerCode code, int key)
{
	NddupTriggerArgs a;
	NddupTriggerError err;
	NddupTriggerCode got = trigger_args(n, args, &a, &err);

	CHECK(got == code && (key < 0 || err.key == (NddupTriggerKey) key),
		  "trigger arguments starting \"%s\": code %d key %d, expected %d key %d",
		  n > 0 ? args[0] : "", (int) got, (int) err.key, (int) code, key);
}

/* nddup_trigger_split, _check_params and _check_signature. */
static void
test_trigger_args(void)
{
	NddupTriggerArgs a;
	NddupTriggerError err;

	CHECK(trigger_args(ARGS("fingerprint=fp"), &a, &err) == NDDUP_TRIGGER_OK &&
		  a.method == NDDUP_TRIGGER_SIMHASH && a.radius == 12 && a.action == NDDUP_TRIGGER_MARK &&
		  a.lock == NDDUP_TRIGGER_LOCK_BLOCKS && a.size == 2 && a.k == 128 &&
		  strcmp(a.unit, "word") == 0 && strcmp(a.weighting, "tf") == 0 &&
		  strcmp(a.values[NDDUP_TK_FINGERPRINT], "fp") == 0, "defaults");
	CHECK(trigger_args(ARGS("Source=body", "METHOD=MinHash", "threshold=0.5", "k=64", "size=4",
							"unit=char", "action=Error", "lock=table", "id=a=b"), &a, &err) ==
		  NDDUP_TRIGGER_OK && a.method == NDDUP_TRIGGER_MINHASH && a.threshold == 0.5 &&
		  a.k == 64 && a.size == 4 && strcmp(a.unit, "char") == 0 &&
		  a.action == NDDUP_TRIGGER_ERROR && a.lock == NDDUP_TRIGGER_LOCK_TABLE &&
		  strcmp(a.values[NDDUP_TK_ID], "a=b") == 0, "every minhash setting");
	CHECK(trigger_args(ARGS("fingerprint=fp", "radius= +7"), &a, &err) == NDDUP_TRIGGER_OK &&
		  a.radius == 7, "strtol syntax: spaces and a sign");
	CHECK(trigger_args(ARGS("fingerprint=fp", "method=minhash", "threshold=1"), &a, &err) ==
		  NDDUP_TRIGGER_OK && a.threshold == 1.0 && a.size == 3, "threshold 1, minhash size 3");
	CHECK(trigger_args(ARGS("source=body", "method=ShingleSet", "threshold=0.4", "size=2"), &a,
						&err) == NDDUP_TRIGGER_OK && a.method == NDDUP_TRIGGER_SHINGLESET &&
		  a.threshold == 0.4 && a.size == 2 && a.verify == 0.0, "shingleset settings");
	check_trigger_error(ARGS("source=body", "method=shingleset", "verify=0.3"),
						NDDUP_TRIGGER_NOT_FOR_METHOD, NDDUP_TK_VERIFY);
	check_trigger_error(ARGS("source=body", "method=shingleset", "k=64"),
						NDDUP_TRIGGER_NOT_FOR_METHOD, NDDUP_TK_K);
	check_trigger_error(ARGS("source=body", "method=shingleset", "radius=3"),
						NDDUP_TRIGGER_NOT_FOR_METHOD, NDDUP_TK_RADIUS);
	CHECK(trigger_args(ARGS("source=body", "method=shingleset", "Measure=Containment"), &a,
					   &err) == NDDUP_TRIGGER_OK && a.containment, "measure=containment");
	check_trigger_error(ARGS("source=body", "method=shingleset", "measure=cosine"),
						NDDUP_TRIGGER_MEASURE, NDDUP_TK_MEASURE);
	check_trigger_error(ARGS("source=body", "method=minhash", "measure=jaccard"),
						NDDUP_TRIGGER_NOT_FOR_METHOD, NDDUP_TK_MEASURE);
	check_trigger_error(ARGS("source=body", "measure=jaccard"),
						NDDUP_TRIGGER_NOT_FOR_METHOD, NDDUP_TK_MEASURE);

	CHECK(trigger_args(ARGS("fingerprint=fp", "bogus"), &a, &err) == NDDUP_TRIGGER_NOT_KEY_VALUE &&
		  err.arg == 1, "bogus: NOT_KEY_VALUE, argument 1");
	CHECK(trigger_args(ARGS("=fp"), &a, &err) == NDDUP_TRIGGER_NOT_KEY_VALUE && err.arg == 0,
		  "=fp: NOT_KEY_VALUE");
	CHECK(trigger_args(ARGS("fingerprint=fp", "colour=red=x"), &a, &err) ==
		  NDDUP_TRIGGER_UNKNOWN_KEY && err.arg == 1 && err.key_len == 6, "colour: UNKNOWN_KEY");
	check_trigger_error(ARGS("Fingerprint=a", "FINGERPRINT=b"), NDDUP_TRIGGER_DUPLICATE_KEY,
						NDDUP_TK_FINGERPRINT);
	check_trigger_error(ARGS("fingerprint=fp", "method=lsh"), NDDUP_TRIGGER_METHOD, NDDUP_TK_METHOD);
	check_trigger_error(ARGS("fingerprint=fp", "k=3", "threshold=0.5"), NDDUP_TRIGGER_NOT_FOR_METHOD,
						NDDUP_TK_THRESHOLD);
	check_trigger_error(ARGS("fingerprint=fp", "k=3"), NDDUP_TRIGGER_NOT_FOR_METHOD, NDDUP_TK_K);
	check_trigger_error(ARGS("fingerprint=fp", "method=minhash", "weighting=tf", "radius=3"),
						NDDUP_TRIGGER_NOT_FOR_METHOD, NDDUP_TK_RADIUS);
	check_trigger_error(ARGS("fingerprint=fp", "method=minhash", "weighting=tf"),
						NDDUP_TRIGGER_NOT_FOR_METHOD, NDDUP_TK_WEIGHTING);
	check_trigger_error(ARGS("fingerprint=fp", "radius=33"), NDDUP_TRIGGER_INTEGER, NDDUP_TK_RADIUS);
	check_trigger_error(ARGS("fingerprint=fp", "radius="), NDDUP_TRIGGER_INTEGER, NDDUP_TK_RADIUS);
	check_trigger_error(ARGS("fingerprint=fp", "radius=3 "), NDDUP_TRIGGER_INTEGER, NDDUP_TK_RADIUS);
	check_trigger_error(ARGS("fingerprint=fp", "radius=99999999999999999999"), NDDUP_TRIGGER_INTEGER,
						NDDUP_TK_RADIUS);
	check_trigger_error(ARGS("fingerprint=fp", "method=minhash", "threshold=0"),
						NDDUP_TRIGGER_THRESHOLD, NDDUP_TK_THRESHOLD);
	check_trigger_error(ARGS("fingerprint=fp", "method=minhash", "threshold=1.5"),
						NDDUP_TRIGGER_THRESHOLD, NDDUP_TK_THRESHOLD);
	check_trigger_error(ARGS("fingerprint=fp", "method=minhash", "threshold=0.5x"),
						NDDUP_TRIGGER_THRESHOLD, NDDUP_TK_THRESHOLD);
	check_trigger_error(ARGS("fingerprint=fp", "method=minhash", "threshold=1e-400"),
						NDDUP_TRIGGER_THRESHOLD, NDDUP_TK_THRESHOLD);
	/* a subnormal threshold is accepted in hex and in decimal alike (fuzz finding) */
	CHECK(trigger_args(ARGS("fingerprint=mh", "method=minhash", "threshold=0x1p-1036"), &a, &err) ==
		  NDDUP_TRIGGER_OK && a.threshold == 0x1p-1036, "subnormal threshold in hex");
	CHECK(trigger_args(ARGS("fingerprint=mh", "method=minhash", "threshold=1.3580773062177743e-312"),
					   &a, &err) == NDDUP_TRIGGER_OK && a.threshold == 0x1p-1036,
		  "subnormal threshold in decimal");
	check_trigger_error(ARGS("fingerprint=fp", "action=drop"), NDDUP_TRIGGER_ACTION, NDDUP_TK_ACTION);
	check_trigger_error(ARGS("fingerprint=fp", "lock=row"), NDDUP_TRIGGER_LOCK, NDDUP_TK_LOCK);
	check_trigger_error(ARGS("radius=3"), NDDUP_TRIGGER_NO_COLUMN, -1);
	check_trigger_error(ARGS("fingerprint=fp", "unit=char"), NDDUP_TRIGGER_SOURCE_ONLY, -1);
	check_trigger_error(ARGS("source=body", "unit=WORD"), NDDUP_TRIGGER_UNIT, NDDUP_TK_UNIT);
	check_trigger_error(ARGS("source=body", "weighting=idf"), NDDUP_TRIGGER_WEIGHTING,
						NDDUP_TK_WEIGHTING);
	check_trigger_error(ARGS("source=body", "size=0"), NDDUP_TRIGGER_INTEGER, NDDUP_TK_SIZE);
	check_trigger_error(ARGS("source=body", "method=minhash", "k=1025"), NDDUP_TRIGGER_INTEGER,
						NDDUP_TK_K);
	/* the first error in the server's order: parameters, then action, then columns */
	check_trigger_error(ARGS("action=drop", "radius=99"), NDDUP_TRIGGER_INTEGER, NDDUP_TK_RADIUS);
	check_trigger_error(ARGS("size=0", "action=drop"), NDDUP_TRIGGER_ACTION, NDDUP_TK_ACTION);
	CHECK(trigger_args(ARGS("source=body", "size=65"), &a, &err) == NDDUP_TRIGGER_INTEGER &&
		  err.min == 1 && err.max == 64, "size range 1 to 64");
	/* no number at all (22P02 in the server) against out of range (22023) */
	CHECK(trigger_args(ARGS("fingerprint=fp", "radius=abc"), &a, &err) == NDDUP_TRIGGER_INTEGER &&
		  err.not_number, "radius=abc: not a number");
	CHECK(trigger_args(ARGS("fingerprint=fp", "radius=3x"), &a, &err) == NDDUP_TRIGGER_INTEGER &&
		  err.not_number, "radius=3x: not a number");
	CHECK(trigger_args(ARGS("fingerprint=fp", "radius="), &a, &err) == NDDUP_TRIGGER_INTEGER &&
		  err.not_number, "radius=: not a number");
	CHECK(trigger_args(ARGS("fingerprint=fp", "radius=33"), &a, &err) == NDDUP_TRIGGER_INTEGER &&
		  !err.not_number, "radius=33: out of range");
	CHECK(trigger_args(ARGS("fingerprint=fp", "radius=99999999999999999999"), &a, &err) ==
		  NDDUP_TRIGGER_INTEGER && !err.not_number, "radius overflow: out of range");
	CHECK(trigger_args(ARGS("fingerprint=fp", "method=minhash", "threshold=high"), &a, &err) ==
		  NDDUP_TRIGGER_THRESHOLD && err.not_number, "threshold=high: not a number");
	CHECK(trigger_args(ARGS("fingerprint=fp", "method=minhash", "threshold=2"), &a, &err) ==
		  NDDUP_TRIGGER_THRESHOLD && !err.not_number, "threshold=2: out of range");
	/* visibility= and scope= */
	CHECK(trigger_args(ARGS("fingerprint=fp"), &a, &err) == NDDUP_TRIGGER_OK &&
		  a.visibility == NDDUP_TRIGGER_VISIBILITY_UNSET, "visibility unset by default");
	CHECK(trigger_args(ARGS("fingerprint=fp", "Visibility=CALLER", "scope=site"), &a, &err) ==
		  NDDUP_TRIGGER_OK && a.visibility == NDDUP_TRIGGER_VISIBILITY_CALLER &&
		  strcmp(a.values[NDDUP_TK_SCOPE], "site") == 0, "visibility=caller, scope=site");
	CHECK(trigger_args(ARGS("fingerprint=fp", "visibility=all"), &a, &err) == NDDUP_TRIGGER_OK &&
		  a.visibility == NDDUP_TRIGGER_VISIBILITY_ALL, "visibility=all");
	check_trigger_error(ARGS("fingerprint=fp", "visibility=owner"), NDDUP_TRIGGER_VISIBILITY,
						NDDUP_TK_VISIBILITY);
	/* verify= and verify_column= */
	CHECK(trigger_args(ARGS("fingerprint=fp"), &a, &err) == NDDUP_TRIGGER_OK && a.verify == 0.0,
		  "no verification by default");
	CHECK(trigger_args(ARGS("source=body", "Verify=0.25"), &a, &err) == NDDUP_TRIGGER_OK &&
		  a.verify == 0.25, "verify=0.25 with source=");
	CHECK(trigger_args(ARGS("fingerprint=fp", "verify_column=sh"), &a, &err) == NDDUP_TRIGGER_OK &&
		  a.verify == 0.3 && strcmp(a.values[NDDUP_TK_VERIFY_COLUMN], "sh") == 0,
		  "verify_column= alone verifies at 0.3");
	check_trigger_error(ARGS("fingerprint=fp", "verify=0.3"), NDDUP_TRIGGER_VERIFY_NO_VALUE,
						NDDUP_TK_VERIFY);
	check_trigger_error(ARGS("source=body", "verify=0"), NDDUP_TRIGGER_VERIFY, NDDUP_TK_VERIFY);
	check_trigger_error(ARGS("source=body", "verify=1.01"), NDDUP_TRIGGER_VERIFY, NDDUP_TK_VERIFY);
	CHECK(trigger_args(ARGS("source=body", "verify=most"), &a, &err) == NDDUP_TRIGGER_VERIFY &&
		  err.not_number, "verify=most: not a number");
	CHECK(trigger_args(ARGS("source=body", "verify=2"), &a, &err) == NDDUP_TRIGGER_VERIFY &&
		  !err.not_number, "verify=2: out of range");
	/* a bad verify= is found after the signature parameters */
	check_trigger_error(ARGS("source=body", "verify=x", "unit=WORD"), NDDUP_TRIGGER_UNIT,
						NDDUP_TK_UNIT);
}

/* nddup_hamming_chance and friends: C(64, i) / 2^64 sums, n^2 / 2 growth. */
static void
test_hamming_chance(void)
{
	double		p12 = nddup_hamming_chance(12);

	CHECK(nddup_binomial(64, 0) == 1.0 && nddup_binomial(64, 2) == 2016.0 &&
		  nddup_binomial(13, 10) == 286.0 &&
		  fabs(nddup_binomial(64, 32) / 1832624140942590534.0 - 1.0) < 1e-12,
		  "C(64, 0), C(64, 2), C(13, 10), C(64, 32)");
	CHECK(nddup_binomial(5, 6) == 0.0 && nddup_binomial(5, -1) == 0.0, "C(n, r) outside 0..n is 0");
	CHECK(nddup_hamming_chance(0) == 0x1p-64, "P(d = 0) = 2^-64");
	CHECK(nddup_hamming_chance(1) == 65 * 0x1p-64, "P(d <= 1) = 65 / 2^64");
	CHECK(nddup_hamming_chance(64) == 1.0 && nddup_hamming_chance(-1) == 0.0, "ends");
	CHECK(nddup_hamming_chance(31) < 0.5 && nddup_hamming_chance(32) > 0.5, "median 32");
	/* sum_{i <= 12} C(64, i) = 4211954943769 (exact in a double) */
	CHECK(p12 == 4211954943769.0 * 0x1p-64, "P(d <= 12) = %.17g", p12);
	CHECK(nddup_hamming_chance_pairs(1, 12) == 0.0, "one row, no pairs");
	CHECK(fabs(nddup_hamming_chance_pairs(60004, 12) - 60004.0 * 60003.0 / 2 * p12) < 1e-9,
		  "pairs among 60004");
	CHECK(fabs(nddup_hamming_chance_pairs(nddup_hamming_chance_rows(12), 12) - 1.0) < 1e-9,
		  "one chance pair at nddup_hamming_chance_rows");
}

/* Run the suites; the number of failures. */
int
run_format_tests(void)
{
	test_simhash64();
	test_simhash_binary();
	test_hamming_ball();
	test_shingleset_text();
	test_shingleset_binary();
	test_minhash_text();
	test_minhash_binary();
	test_lexicon_text();
	test_lexicon_binary();
	test_query();
	test_trigger_args();
	test_hamming_chance();
	printf("format: %d checks, %d failed\n", fmt_checks, fmt_failures);
	return fmt_failures;
}
