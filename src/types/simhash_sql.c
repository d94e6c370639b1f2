/*-------------------------------------------------------------------------
 *
 * simhash_sql.c
 *	  SQL constructors of simhash64 fingerprints: from a text, from features
 *	  with weights, from a tsvector, and the simhash_agg aggregate.
 *
 * All follow Charikar's construction (Manku et al. 2007, section 2); the
 * feature hash is nddup_hash_bytes (XXH3-64 with NDDUP_HASH_SEED) of the
 * feature's UTF-8 bytes, so identical features give identical fingerprints
 * in every database encoding.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "nddup.h"

#include "catalog/pg_type.h"
#include "common/int.h"
#include "libpq/pqformat.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "tsearch/ts_type.h"
#include "utils/array.h"
#include "utils/builtins.h"

PG_FUNCTION_INFO_V1(simhash_text);
PG_FUNCTION_INFO_V1(simhash_features);
PG_FUNCTION_INFO_V1(simhash_weighted_features);
PG_FUNCTION_INFO_V1(simhash_tsvector);
PG_FUNCTION_INFO_V1(simhash_agg_transfn);
PG_FUNCTION_INFO_V1(simhash_agg_combinefn);
PG_FUNCTION_INFO_V1(simhash_agg_serialfn);
PG_FUNCTION_INFO_V1(simhash_agg_deserialfn);
PG_FUNCTION_INFO_V1(simhash_agg_finalfn);
PG_FUNCTION_INFO_V1(simhash_agg_state_in);
PG_FUNCTION_INFO_V1(simhash_agg_state_out);
PG_FUNCTION_INFO_V1(simhash_agg_state_recv);
PG_FUNCTION_INFO_V1(simhash_agg_state_send);

/*
 * Parse the weighting argument: 'tf' (per occurrence) or 'set' (per
 * shingle).  Compared in place: it is parsed once per row.
 */
bool
nddup_parse_weighting_is_set(text *weighting)
{
	static const char *const names[] = {"tf", "set"};

	return nddup_keyword_arg(weighting, "simhash weighting", names, 2, false,
							 "Valid weightings are \"tf\" and \"set\".") == 1;
}

/* Hash of a feature given in the server encoding. */
static uint64
hash_feature(const char *bytes, int len)
{
	char	   *utf8;
	uint64		hash;

	if (GetDatabaseEncoding() == PG_UTF8 || GetDatabaseEncoding() == PG_SQL_ASCII)
		return nddup_hash_bytes(bytes, len);
	utf8 = pg_server_to_any(bytes, len, PG_UTF8);
	hash = nddup_hash_bytes(utf8, strlen(utf8));
	if (utf8 != bytes)
		pfree(utf8);
	return hash;
}

/*
 * simhash(doc text, size int, unit text, weighting text): the fingerprint of
 * a document's w-shingles.
 */
Datum
simhash_text(PG_FUNCTION_ARGS)
{
	text	   *doc = PG_GETARG_TEXT_PP(0);
	int32		size = PG_GETARG_INT32(1);
	NddupUnit	unit = nddup_parse_unit(PG_GETARG_TEXT_PP(2));
	bool		unique = nddup_parse_weighting_is_set(PG_GETARG_TEXT_PP(3));
	size_t		len;
	char	   *utf8;

	nddup_check_shingle_size(size);
	utf8 = nddup_text_to_utf8(doc, &len);
	PG_RETURN_SIMHASH64(nddup_simhash_text(utf8, len, size, unit, unique));
}

/* Reject arrays that are not one-dimensional lists. */
static void
check_one_dimension(ArrayType *array, const char *what)
{
	if (ARR_NDIM(array) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("%s must be a one-dimensional array", what)));
}

/* Reject a NULL array element. */
static void
check_not_null(bool isnull, const char *what)
{
	if (isnull)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s must not contain nulls", what)));
}

/* simhash(features text[]): every feature weighs 1. */
Datum
simhash_features(PG_FUNCTION_ARGS)
{
	ArrayType  *features = PG_GETARG_ARRAYTYPE_P(0);
	Datum	   *elems;
	bool	   *nulls;
	int			n;
	NddupSimhashAcc acc;

	check_one_dimension(features, "features");
	deconstruct_array(features, TEXTOID, -1, false, TYPALIGN_INT,
					  &elems, &nulls, &n);
	nddup_simhash_init(&acc);
	for (int i = 0; i < n; i++)
	{
		text	   *t;

		check_not_null(nulls[i], "features");
		t = DatumGetTextPP(elems[i]);
		nddup_simhash_add(&acc, hash_feature(VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t)));
		CHECK_FOR_INTERRUPTS();
	}
	PG_RETURN_SIMHASH64(nddup_simhash_finish(&acc));
}

/* Reject a weight that is not a finite number. */
static void
check_weight(double weight)
{
	if (isnan(weight) || isinf(weight))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("simhash weight must be a finite number")));
}

/* simhash(features text[], weights real[]): Charikar's weighted simhash. */
Datum
simhash_weighted_features(PG_FUNCTION_ARGS)
{
	ArrayType  *features = PG_GETARG_ARRAYTYPE_P(0);
	ArrayType  *weights = PG_GETARG_ARRAYTYPE_P(1);
	Datum	   *felems,
			   *welems;
	bool	   *fnulls,
			   *wnulls;
	int			nf,
				nw;
	NddupSimhashWeighted acc;

	check_one_dimension(features, "features");
	check_one_dimension(weights, "weights");
	deconstruct_array(features, TEXTOID, -1, false, TYPALIGN_INT,
					  &felems, &fnulls, &nf);
	deconstruct_array(weights, FLOAT4OID, sizeof(float4), true, TYPALIGN_INT,
					  &welems, &wnulls, &nw);
	if (nf != nw)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("features and weights have different lengths %d and %d",
						nf, nw),
				 errhint("Give one weight per feature.")));
	nddup_simhash_weighted_init(&acc);
	for (int i = 0; i < nf; i++)
	{
		text	   *t;
		double		weight;

		check_not_null(fnulls[i], "features");
		check_not_null(wnulls[i], "weights");
		weight = DatumGetFloat4(welems[i]);
		check_weight(weight);
		t = DatumGetTextPP(felems[i]);
		nddup_simhash_weighted_add(&acc,
								   hash_feature(VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t)),
								   weight);
		CHECK_FOR_INTERRUPTS();
	}
	PG_RETURN_SIMHASH64(nddup_simhash_weighted_finish(&acc));
}

/*
 * simhash(tsvector): each lexeme is a feature weighted by its number of
 * positions (its term frequency; 1 for a stripped tsvector).
 */
Datum
simhash_tsvector(PG_FUNCTION_ARGS)
{
	TSVector	vector = PG_GETARG_TSVECTOR(0);
	WordEntry  *entries = ARRPTR(vector);
	char	   *lexemes = STRPTR(vector);
	NddupSimhashAcc acc;

	nddup_simhash_init(&acc);
	for (int i = 0; i < vector->size; i++)
	{
		uint64		hash = hash_feature(lexemes + entries[i].pos, entries[i].len);
		int			tf = entries[i].haspos ? POSDATALEN(vector, &entries[i]) : 1;

		for (int j = 0; j < tf; j++)
			nddup_simhash_add(&acc, hash);
		CHECK_FOR_INTERRUPTS();
	}
	PG_RETURN_SIMHASH64(nddup_simhash_finish(&acc));
}

/*
 * Aggregate state of simhash_agg: since 0.2 also the value of the SQL type
 * simhash_agg_state (fixed length, by reference), so that Citus can send
 * partial states from the workers (it refuses an internal state); the
 * transition, combine and final functions are the same C functions for
 * both (the 0.1 aggregate, STYPE internal, calls them too).
 */
typedef struct SimhashAggState
{
	NddupSimhashWeighted acc;
	int64		nfeatures;
} SimhashAggState;

#define SIMHASH_AGG_STATE_SIZE	520 /* INTERNALLENGTH in the install script */
StaticAssertDecl(sizeof(SimhashAggState) == SIMHASH_AGG_STATE_SIZE,
				 "simhash_agg_state is 8 + 64 float8");

/*
 * The state a transition or combine function updates: argument argno, or a
 * new empty state when it is NULL.  In an aggregate it is the aggregate's
 * own state (new ones in its memory context) and is updated in place;
 * called from SQL on a simhash_agg_state value, a copy, so that the value
 * passed in never changes.
 */
static SimhashAggState *
simhash_agg_state_arg(FunctionCallInfo fcinfo, int argno)
{
	MemoryContext aggcontext;
	bool		in_agg = AggCheckCallContext(fcinfo, &aggcontext) != 0;
	SimhashAggState *state;

	if (PG_ARGISNULL(argno))
		return (SimhashAggState *) MemoryContextAllocZero(in_agg ? aggcontext : CurrentMemoryContext,
														  sizeof(SimhashAggState));
	state = (SimhashAggState *) PG_GETARG_POINTER(argno);
	if (!in_agg)
	{
		SimhashAggState *copy = palloc(sizeof(SimhashAggState));

		memcpy(copy, state, sizeof(SimhashAggState));
		state = copy;
	}
	return state;
}

/* Add n to the feature count of a state (22003 on overflow). */
static void
simhash_agg_count(SimhashAggState *state, int64 n)
{
	if (pg_add_s64_overflow(state->nfeatures, n, &state->nfeatures))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("simhash_agg feature count out of range")));
}

/* simhash_agg transition: add one (feature, weight); NULLs are skipped. */
Datum
simhash_agg_transfn(PG_FUNCTION_ARGS)
{
	SimhashAggState *state = simhash_agg_state_arg(fcinfo, 0);
	text	   *feature;
	double		weight;

	if (PG_ARGISNULL(1) || PG_ARGISNULL(2))
		PG_RETURN_POINTER(state);
	feature = PG_GETARG_TEXT_PP(1);
	weight = PG_GETARG_FLOAT8(2);
	check_weight(weight);
	nddup_simhash_weighted_add(&state->acc,
							   hash_feature(VARDATA_ANY(feature),
											VARSIZE_ANY_EXHDR(feature)),
							   weight);
	simhash_agg_count(state, 1);
	PG_RETURN_POINTER(state);
}

/* simhash_agg combine: add the per-bit sums of two partial states. */
Datum
simhash_agg_combinefn(PG_FUNCTION_ARGS)
{
	SimhashAggState *a;
	SimhashAggState *b;

	if (PG_ARGISNULL(1))
	{
		if (PG_ARGISNULL(0))
			PG_RETURN_NULL();
		PG_RETURN_POINTER(simhash_agg_state_arg(fcinfo, 0));
	}
	a = simhash_agg_state_arg(fcinfo, 0);
	b = (SimhashAggState *) PG_GETARG_POINTER(1);
	for (int i = 0; i < 64; i++)
		a->acc.sums[i] += b->acc.sums[i];
	simhash_agg_count(a, b->nfeatures);
	PG_RETURN_POINTER(a);
}

/* simhash_agg serialization: the feature count and 64 float8 sums. */
Datum
simhash_agg_serialfn(PG_FUNCTION_ARGS)
{
	SimhashAggState *state = (SimhashAggState *) PG_GETARG_POINTER(0);
	StringInfoData buf;

	pq_begintypsend(&buf);
	pq_sendint64(&buf, state->nfeatures);
	for (int i = 0; i < 64; i++)
		pq_sendfloat8(&buf, state->acc.sums[i]);
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

/* simhash_agg deserialization (inverse of the serial function). */
Datum
simhash_agg_deserialfn(PG_FUNCTION_ARGS)
{
	bytea	   *bytes = PG_GETARG_BYTEA_PP(0);
	MemoryContext aggcontext;
	SimhashAggState *state;
	StringInfoData buf;

	if (!AggCheckCallContext(fcinfo, &aggcontext))
		aggcontext = CurrentMemoryContext;
	state = (SimhashAggState *) MemoryContextAllocZero(aggcontext, sizeof(SimhashAggState));

	buf.data = VARDATA_ANY(bytes);
	buf.len = VARSIZE_ANY_EXHDR(bytes);
	buf.maxlen = buf.len;
	buf.cursor = 0;
	state->nfeatures = pq_getmsgint64(&buf);
	for (int i = 0; i < 64; i++)
		state->acc.sums[i] = pq_getmsgfloat8(&buf);
	pq_getmsgend(&buf);
	PG_RETURN_POINTER(state);
}

/* simhash_agg final: the fingerprint, or NULL when no feature was added. */
Datum
simhash_agg_finalfn(PG_FUNCTION_ARGS)
{
	SimhashAggState *state = PG_ARGISNULL(0) ? NULL : (SimhashAggState *) PG_GETARG_POINTER(0);

	if (state == NULL || state->nfeatures == 0)
		PG_RETURN_NULL();
	PG_RETURN_SIMHASH64(nddup_simhash_weighted_finish(&state->acc));
}

/*
 * simhash_agg_state text form: "n=<count>" and the 64 sums as the 16 hex
 * digits of their IEEE 754 bits, so that a state read back is the same
 * state bit for bit (Citus moves partial states as text).
 */
Datum
simhash_agg_state_out(PG_FUNCTION_ARGS)
{
	SimhashAggState *state = (SimhashAggState *) PG_GETARG_POINTER(0);
	StringInfoData buf;

	initStringInfo(&buf);
	appendStringInfo(&buf, "n=%lld", (long long) state->nfeatures);
	for (int i = 0; i < 64; i++)
	{
		uint64		bits;

		memcpy(&bits, &state->acc.sums[i], sizeof(bits));
		appendStringInfo(&buf, " %016llx", (unsigned long long) bits);
	}
	PG_RETURN_CSTRING(buf.data);
}

/* Raise the error of a simhash_agg_state text that does not parse. */
static void
agg_state_syntax(const char *str)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
			 errmsg("invalid input syntax for type simhash_agg_state: \"%s\"", str),
			 errdetail("Expected \"n=<count>\" and 64 sums of 16 hex digits.")));
}

/* simhash_agg_state input: the text form of simhash_agg_state_out. */
Datum
simhash_agg_state_in(PG_FUNCTION_ARGS)
{
	char	   *str = PG_GETARG_CSTRING(0);
	SimhashAggState *state = palloc0(sizeof(SimhashAggState));
	const char *p = str;
	char	   *end;

	if (strncmp(p, "n=", 2) != 0)
		agg_state_syntax(str);
	errno = 0;
	state->nfeatures = strtoll(p + 2, &end, 10);
	if (end == p + 2 || errno != 0 || state->nfeatures < 0)
		agg_state_syntax(str);
	p = end;
	for (int i = 0; i < 64; i++)
	{
		uint64		bits = 0;

		if (*p != ' ')
			agg_state_syntax(str);
		p++;
		for (int d = 0; d < 16; d++, p++)
		{
			int			v = nddup_hex_digit_value(*p);

			if (v < 0)
				agg_state_syntax(str);
			bits = (bits << 4) | (uint64) v;
		}
		memcpy(&state->acc.sums[i], &bits, sizeof(bits));
		if (isnan(state->acc.sums[i]))
			agg_state_syntax(str);
	}
	if (*p != '\0')
		agg_state_syntax(str);
	PG_RETURN_POINTER(state);
}

/* simhash_agg_state binary input: the count (int8) and 64 float8. */
Datum
simhash_agg_state_recv(PG_FUNCTION_ARGS)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);
	SimhashAggState *state = palloc0(sizeof(SimhashAggState));

	state->nfeatures = pq_getmsgint64(buf);
	if (state->nfeatures < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("invalid feature count %lld in external simhash_agg_state value",
						(long long) state->nfeatures)));
	for (int i = 0; i < 64; i++)
	{
		state->acc.sums[i] = pq_getmsgfloat8(buf);
		if (isnan(state->acc.sums[i]))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
					 errmsg("invalid sum in external simhash_agg_state value")));
	}
	PG_RETURN_POINTER(state);
}

/* simhash_agg_state binary output (the form of simhash_agg_serialfn). */
Datum
simhash_agg_state_send(PG_FUNCTION_ARGS)
{
	return simhash_agg_serialfn(fcinfo);
}
