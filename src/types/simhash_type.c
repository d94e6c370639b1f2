/*-------------------------------------------------------------------------
 *
 * simhash_type.c
 *	  The simhash64 type: a 64-bit fingerprint passed by value.
 *
 * Text form: exactly 16 hexadecimal digits, most significant first, with an
 * optional "0x" prefix and either case on input, lower case on output.
 * Comparison treats the value as an unsigned 64-bit integer (the order of
 * the hex text); casts to bigint and bit(64) keep the bit pattern.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "nddup.h"

#include "libpq/pqformat.h"
#include "utils/builtins.h"
#include "utils/varbit.h"
#include "common/hashfn.h"

PG_FUNCTION_INFO_V1(simhash64_in);
PG_FUNCTION_INFO_V1(simhash64_out);
PG_FUNCTION_INFO_V1(simhash64_recv);
PG_FUNCTION_INFO_V1(simhash64_send);
PG_FUNCTION_INFO_V1(simhash64_eq);
PG_FUNCTION_INFO_V1(simhash64_ne);
PG_FUNCTION_INFO_V1(simhash64_lt);
PG_FUNCTION_INFO_V1(simhash64_le);
PG_FUNCTION_INFO_V1(simhash64_gt);
PG_FUNCTION_INFO_V1(simhash64_ge);
PG_FUNCTION_INFO_V1(simhash64_cmp);
PG_FUNCTION_INFO_V1(simhash64_hash);
PG_FUNCTION_INFO_V1(simhash64_hash_extended);
PG_FUNCTION_INFO_V1(simhash64_hamming);
PG_FUNCTION_INFO_V1(simhash64_within);
PG_FUNCTION_INFO_V1(simhash64_to_bit);
PG_FUNCTION_INFO_V1(bit_to_simhash64);

/* Parse the text form: optional 0x, then exactly 16 hex digits. */
Datum
simhash64_in(PG_FUNCTION_ARGS)
{
	const char *str = PG_GETARG_CSTRING(0);
	uint64_t	value;

	if (nddup_simhash64_parse(str, &value) != NDDUP_PARSE_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid input syntax for type %s: \"%s\"",
						"simhash64", str),
				 errhint("A simhash64 value is exactly 16 hexadecimal digits, optionally preceded by \"0x\".")));
	PG_RETURN_SIMHASH64(value);
}

/* Print 16 lower-case hex digits. */
Datum
simhash64_out(PG_FUNCTION_ARGS)
{
	char	   *out = palloc(17);

	nddup_simhash64_format(PG_GETARG_SIMHASH64(0), out);
	PG_RETURN_CSTRING(out);
}

/*
 * Raise the error of a value rejected by a pure-C parser (simhash_format.c,
 * sketch_format.c, imatch_format.c) for the codes whose message is the same
 * for every type: SHORT (a binary value shorter than its fixed part),
 * HEADER, and SYNTAX or INVALID of text (str, 22P02) or binary (str NULL,
 * 22P03) input, with the parser's detail.
 */
void
nddup_parse_error(const NddupParseError *err, const char *typname, const char *str)
{
	switch (err->code)
	{
		case NDDUP_PARSE_SHORT:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
					 errmsg("invalid binary value for type %s: %d bytes, expected at least %d",
							typname, (int) err->have, (int) err->need)));
			break;
		case NDDUP_PARSE_HEADER:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
					 errmsg("invalid binary %s header", typname)));
			break;
		case NDDUP_PARSE_SYNTAX:
		case NDDUP_PARSE_INVALID:
			if (str != NULL)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
						 errmsg("invalid input syntax for type %s: \"%s\"", typname, str),
						 err->detail[0] ? errdetail("%s", err->detail) : 0));
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
					 errmsg("invalid binary value for type %s", typname),
					 err->detail[0] ? errdetail("%s", err->detail) : 0));
			break;
		default:
			elog(ERROR, "unexpected result %d of the %s parser", (int) err->code, typname);
	}
}

/*
 * An NddupPrintf appending to the StringInfo arg, exactly as
 * appendStringInfo does (same growth, limit and error).
 */
void
nddup_string_info_printf(void *arg, const char *fmt,...)
{
	StringInfo	buf = (StringInfo) arg;

	for (;;)
	{
		va_list		args;
		int			needed;

		va_start(args, fmt);
		needed = appendStringInfoVA(buf, fmt, args);
		va_end(args);
		if (needed == 0)
			break;
		enlargeStringInfo(buf, needed);
	}
}

/* The unread bytes of a receive function's message buffer argument. */
StringInfo
nddup_recv_buffer(Datum arg, const uint8 **data, size_t *len)
{
	StringInfo	buf = (StringInfo) DatumGetPointer(arg);

	*data = (const uint8 *) buf->data + buf->cursor;
	*len = (size_t) (buf->len - buf->cursor);
	return buf;
}

/* Binary input: 8 bytes, network order. */
Datum
simhash64_recv(PG_FUNCTION_ARGS)
{
	const uint8 *data;
	size_t		len;
	StringInfo	buf = nddup_recv_buffer(PG_GETARG_DATUM(0), &data, &len);
	NddupParseError err;
	uint64_t	value;

	if (nddup_simhash64_recv(data, len, &value, &err) != NDDUP_PARSE_OK)
		nddup_parse_error(&err, "simhash64", NULL);
	buf->cursor += NDDUP_SIMHASH64_BINARY_SIZE;
	PG_RETURN_SIMHASH64(value);
}

/* Binary output: 8 bytes, network order. */
Datum
simhash64_send(PG_FUNCTION_ARGS)
{
	bytea	   *result = palloc(VARHDRSZ + NDDUP_SIMHASH64_BINARY_SIZE);

	SET_VARSIZE(result, VARHDRSZ + NDDUP_SIMHASH64_BINARY_SIZE);
	nddup_simhash64_send(PG_GETARG_SIMHASH64(0), (uint8 *) VARDATA(result));
	PG_RETURN_BYTEA_P(result);
}

#define SIMHASH64_COMPARISON(name, op) \
Datum \
name(PG_FUNCTION_ARGS) \
{ \
	PG_RETURN_BOOL(PG_GETARG_SIMHASH64(0) op PG_GETARG_SIMHASH64(1)); \
}

/* a = b, a <> b, a < b, a <= b, a > b, a >= b (unsigned order) */
SIMHASH64_COMPARISON(simhash64_eq, ==)
SIMHASH64_COMPARISON(simhash64_ne, !=)
SIMHASH64_COMPARISON(simhash64_lt, <)
SIMHASH64_COMPARISON(simhash64_le, <=)
SIMHASH64_COMPARISON(simhash64_gt, >)
SIMHASH64_COMPARISON(simhash64_ge, >=)

/* btree support: -1, 0, 1 in unsigned order. */
Datum
simhash64_cmp(PG_FUNCTION_ARGS)
{
	uint64		a = PG_GETARG_SIMHASH64(0);
	uint64		b = PG_GETARG_SIMHASH64(1);

	PG_RETURN_INT32((a > b) - (a < b));
}

/* hash support: the same hash as bigint, so distribution by hash is stable. */
Datum
simhash64_hash(PG_FUNCTION_ARGS)
{
	return DirectFunctionCall1(hashint8, PG_GETARG_DATUM(0));
}

/* Extended (seeded) hash support, as for bigint. */
Datum
simhash64_hash_extended(PG_FUNCTION_ARGS)
{
	return DirectFunctionCall2(hashint8extended, PG_GETARG_DATUM(0),
							   PG_GETARG_DATUM(1));
}

/* a <-> b: the Hamming distance, the number of differing bits. */
Datum
simhash64_hamming(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT32(nddup_hamming(PG_GETARG_SIMHASH64(0),
								  PG_GETARG_SIMHASH64(1)));
}

/* within(a, b, k): true when a and b differ in at most k bits (k 0..64, as ball()). */
Datum
simhash64_within(PG_FUNCTION_ARGS)
{
	int32		k = PG_GETARG_INT32(2);

	nddup_check_radius(k);
	PG_RETURN_BOOL(nddup_hamming(PG_GETARG_SIMHASH64(0),
								 PG_GETARG_SIMHASH64(1)) <= k);
}

/* Cast to bit(64): the first bit is the most significant one. */
Datum
simhash64_to_bit(PG_FUNCTION_ARGS)
{
	uint64		value = PG_GETARG_SIMHASH64(0);
	VarBit	   *result = (VarBit *) palloc0(VARBITTOTALLEN(64));

	SET_VARSIZE(result, VARBITTOTALLEN(64));
	VARBITLEN(result) = 64;
	for (int i = 0; i < 8; i++)
		VARBITS(result)[i] = (bits8) (value >> (56 - 8 * i));
	PG_RETURN_VARBIT_P(result);
}

/* Cast from bit(n): n must be 64. */
Datum
bit_to_simhash64(PG_FUNCTION_ARGS)
{
	VarBit	   *bits = PG_GETARG_VARBIT_P(0);
	uint64		value = 0;

	if (VARBITLEN(bits) != 64)
		ereport(ERROR,
				(errcode(ERRCODE_STRING_DATA_LENGTH_MISMATCH),
				 errmsg("cannot cast a bit string of length %d to simhash64",
						VARBITLEN(bits)),
				 errhint("A simhash64 value has exactly 64 bits.")));
	for (int i = 0; i < 8; i++)
		value = (value << 8) | VARBITS(bits)[i];
	PG_RETURN_SIMHASH64(value);
}

/*
 * hamming_ball: a query value "every fingerprint within radius bits of
 * center", the right operand of simhash64 <@ hamming_ball.  Text form:
 * "<16 hex digits>/<radius>", e.g. "00ff00ff00ff00ff/3".
 */
PG_FUNCTION_INFO_V1(hamming_ball_in);
PG_FUNCTION_INFO_V1(hamming_ball_out);
PG_FUNCTION_INFO_V1(hamming_ball_recv);
PG_FUNCTION_INFO_V1(hamming_ball_send);
PG_FUNCTION_INFO_V1(hamming_ball_make);
PG_FUNCTION_INFO_V1(hamming_ball_center);
PG_FUNCTION_INFO_V1(hamming_ball_radius);
PG_FUNCTION_INFO_V1(simhash64_in_ball);

/* Reject a Hamming radius outside 0..64 (ball(), within()). */
void
nddup_check_radius(int32 radius)
{
	if (radius < 0 || radius > 64)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("Hamming radius %d is out of range", radius),
				 errhint("The radius must be between 0 and 64.")));
}

/* Build a ball, rejecting radii outside 0..64. */
HammingBall *
nddup_make_ball(uint64 center, int32 radius)
{
	HammingBall *ball;

	nddup_check_radius(radius);
	ball = (HammingBall *) palloc0(sizeof(HammingBall));
	ball->center = center;
	ball->radius = radius;
	return ball;
}

/* Parse "<16 hex digits>/<radius>", the radius one or two decimal digits. */
Datum
hamming_ball_in(PG_FUNCTION_ARGS)
{
	char	   *str = PG_GETARG_CSTRING(0);
	uint64_t	center;
	int32_t		radius;
	NddupParseCode code = nddup_hamming_ball_parse(str, &center, &radius);

	if (code == NDDUP_PARSE_SYNTAX)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid input syntax for type %s: \"%s\"",
						"hamming_ball", str),
				 errhint("A hamming_ball is written as a simhash64 value, \"/\" and a radius, e.g. \"00ff00ff00ff00ff/3\".")));
	if (code != NDDUP_PARSE_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid input syntax for type %s: \"%s\"",
						"hamming_ball", str),
				 errhint("The radius must be an integer between 0 and 64.")));
	PG_RETURN_POINTER(nddup_make_ball(center, radius));
}

/* Print "<16 hex digits>/<radius>". */
Datum
hamming_ball_out(PG_FUNCTION_ARGS)
{
	HammingBall *ball = (HammingBall *) PG_GETARG_POINTER(0);
	char	   *out = palloc(NDDUP_HAMMING_BALL_TEXT_SIZE);

	nddup_hamming_ball_format(ball->center, ball->radius, out);
	PG_RETURN_CSTRING(out);
}

/* Binary input: center (8 bytes) and radius (4 bytes). */
Datum
hamming_ball_recv(PG_FUNCTION_ARGS)
{
	const uint8 *data;
	size_t		len;
	StringInfo	buf = nddup_recv_buffer(PG_GETARG_DATUM(0), &data, &len);
	NddupParseError err;
	uint64_t	center;
	int32_t		radius;

	NddupParseCode code = nddup_hamming_ball_recv(data, len, &center, &radius, &err);

	if (code == NDDUP_PARSE_RANGE)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("invalid binary hamming_ball: radius %d is out of range", (int) err.have),
				 errdetail("%s", err.detail)));
	if (code != NDDUP_PARSE_OK)
		nddup_parse_error(&err, "hamming_ball", NULL);
	buf->cursor += NDDUP_HAMMING_BALL_BINARY_SIZE;
	PG_RETURN_POINTER(nddup_make_ball(center, radius));
}

/* Binary output: center (8 bytes) and radius (4 bytes). */
Datum
hamming_ball_send(PG_FUNCTION_ARGS)
{
	HammingBall *ball = (HammingBall *) PG_GETARG_POINTER(0);
	bytea	   *result = palloc(VARHDRSZ + NDDUP_HAMMING_BALL_BINARY_SIZE);

	SET_VARSIZE(result, VARHDRSZ + NDDUP_HAMMING_BALL_BINARY_SIZE);
	nddup_hamming_ball_send(ball->center, ball->radius, (uint8 *) VARDATA(result));
	PG_RETURN_BYTEA_P(result);
}

/* ball(center, radius) */
Datum
hamming_ball_make(PG_FUNCTION_ARGS)
{
	PG_RETURN_POINTER(nddup_make_ball(PG_GETARG_SIMHASH64(0),
									  PG_GETARG_INT32(1)));
}

/* center(ball) */
Datum
hamming_ball_center(PG_FUNCTION_ARGS)
{
	PG_RETURN_SIMHASH64(((HammingBall *) PG_GETARG_POINTER(0))->center);
}

/* radius(ball) */
Datum
hamming_ball_radius(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT32(((HammingBall *) PG_GETARG_POINTER(0))->radius);
}

/* fp <@ ball: fp lies within the ball's radius of its center. */
Datum
simhash64_in_ball(PG_FUNCTION_ARGS)
{
	uint64		fp = PG_GETARG_SIMHASH64(0);
	HammingBall *ball = (HammingBall *) PG_GETARG_POINTER(1);

	PG_RETURN_BOOL(nddup_hamming(fp, ball->center) <= ball->radius);
}
