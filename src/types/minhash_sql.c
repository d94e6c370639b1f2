/*-------------------------------------------------------------------------
 *
 * minhash_sql.c
 *	  The minhash_sketch type and its SQL functions: k 32-bit min-hash
 *	  values (k-permutation, or one-permutation hashing with optimal
 *	  densification), or their b-bit form; the union aggregate; Broder's
 *	  super-shingles.
 *
 * Every value records the parameters it was made with; estimators refuse
 * (22023) to compare values made with different ones.  The similarity
 * operator % compares the resemblance with nddup.similarity_threshold; <->
 * is the resemblance distance 1 - r.  See docs/sketches.md.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "nddup.h"

#include "catalog/pg_type.h"
#include "libpq/pqformat.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "common/hashfn.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/memutils.h"
/* ----------------------------------------------------------------
 *		minhash
 * ----------------------------------------------------------------
 */

typedef NddupMinhash MinhashSketch;

#define PG_GETARG_MINHASH(n)	((MinhashSketch *) PG_DETOAST_DATUM(PG_GETARG_DATUM(n)))

static const char *const method_names[] = {"kperm", "oph"};

PG_FUNCTION_INFO_V1(minhash_in);
PG_FUNCTION_INFO_V1(minhash_out);
PG_FUNCTION_INFO_V1(minhash_recv);
PG_FUNCTION_INFO_V1(minhash_send);
PG_FUNCTION_INFO_V1(minhash_text);
PG_FUNCTION_INFO_V1(minhash_bbit);
PG_FUNCTION_INFO_V1(minhash_jaccard);
PG_FUNCTION_INFO_V1(minhash_distance);
PG_FUNCTION_INFO_V1(minhash_similar_op);
PG_FUNCTION_INFO_V1(minhash_similar);
PG_FUNCTION_INFO_V1(minhash_merge);
PG_FUNCTION_INFO_V1(minhash_to_array);
PG_FUNCTION_INFO_V1(minhash_k);
PG_FUNCTION_INFO_V1(super_shingles);
PG_FUNCTION_INFO_V1(super_shingles_match);
PG_FUNCTION_INFO_V1(super_shingle_keys);

/* Raise 22023 unless k is in 1..NDDUP_MINHASH_MAX_K. */
static void
check_k(int32 k)
{
	if (k < 1 || k > NDDUP_MINHASH_MAX_K)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("number of min-hash values k %d is out of range", k),
				 errdetail("k must be between 1 and %d.", NDDUP_MINHASH_MAX_K)));
}

/*
 * Raise 22023 for a negative seed: the SQL argument is an integer and the
 * stored seed an unsigned 32-bit value, so only 0 .. 2^31 - 1 mean the same
 * in both (a negative one would be stored as 2^32 + seed).
 */
static void
check_seed(int32 seed)
{
	if (seed < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("min-hash seed %d is out of range", seed),
				 errdetail("The seed must be between 0 and %d.", PG_INT32_MAX)));
}

/* The method named by a text: 'kperm' or 'oph'. */
static NddupMinhashMethod
parse_method(text *t)
{
	/* in the order of NddupMinhashMethod */
	static const char *const names[] = {"kperm", "oph"};

	return (NddupMinhashMethod) nddup_keyword_arg(t, "min-hash method", names, 2, false,
												  "Valid methods are \"kperm\" (k permutations) and \"oph\" (one permutation, densified).");
}

/* A zeroed sketch with its header filled. */
static MinhashSketch *
new_minhash(int method, int k, uint32 seed, int size, int unit, int bits)
{
	MinhashSketch *m = nddup_minhash_new(method, k, seed, size, unit, bits);

	SET_VARSIZE(m, NDDUP_MINHASH_HDRSZ + nddup_minhash_data_size(method, k, bits));
	return m;
}

/*
 * The min-hash sketch of n shingle hashes (any order, repeats allowed):
 * minhash() of a text and of a text through a shingle_filter.
 */
NddupMinhash *
nddup_minhash_of_hashes(const uint64 *items, size_t n, int method, int k,
						uint32 seed, int size, int unit)
{
	MinhashSketch *m = new_minhash(method, k, seed, size, unit, 32);

	if (method == NDDUP_MINHASH_KPERM)
		nddup_minhash_kperm(items, n, k, seed, NDDUP_MINHASH_VALUES(m));
	else
	{
		nddup_minhash_oph_bins(items, n, k, seed, NDDUP_MINHASH_VALUES(m));
		nddup_minhash_densify(NDDUP_MINHASH_VALUES(m), k, seed, NDDUP_MINHASH_BORROWED(m));
	}
	if (n == 0)
		m->flags |= NDDUP_MINHASH_EMPTY_DOC;
	return m;
}

/* The method named by a text, k and seed of a minhash() call, checked. */
int
nddup_minhash_check_args(text *method, int32 k, int32 seed)
{
	check_k(k);
	check_seed(seed);
	return parse_method(method);
}

/*
 * minhash(doc text, k int, method text, seed int, size int, unit text): the
 * min-hash sketch of the document's shingles.
 */
Datum
minhash_text(PG_FUNCTION_ARGS)
{
	text	   *doc = PG_GETARG_TEXT_PP(0);
	int32		k = PG_GETARG_INT32(1);
	NddupMinhashMethod method = parse_method(PG_GETARG_TEXT_PP(2));
	int32		seed = PG_GETARG_INT32(3);
	int32		size = PG_GETARG_INT32(4);
	NddupUnit	unit = nddup_parse_unit(PG_GETARG_TEXT_PP(5));
	NddupHashes hashes = {0};
	MinhashSketch *m;

	check_k(k);
	check_seed(seed);
	nddup_collect_shingles(doc, size, unit, &hashes);
	m = nddup_minhash_of_hashes(hashes.items, hashes.len, method, k, (uint32) seed,
								size, unit);
	nddup_hashes_free(&hashes);
	PG_RETURN_POINTER(m);
}

/* minhash_bbit(m minhash, bits int): the b-bit form (low b bits of each value) */
Datum
minhash_bbit(PG_FUNCTION_ARGS)
{
	MinhashSketch *src = PG_GETARG_MINHASH(0);
	int32		bits = PG_GETARG_INT32(1);
	MinhashSketch *m;
	uint32	   *values;

	if (bits != 1 && bits != 2 && bits != 4 && bits != 8 && bits != 16 && bits != 32)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid number of bits %d per min-hash value", bits),
				 errdetail("b must be 1, 2, 4, 8, 16 or 32.")));
	if (bits > src->bits)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cannot widen a %d-bit min-hash sketch to %d bits", src->bits, bits)));
	if (bits == src->bits)
		PG_RETURN_POINTER(src);
	values = palloc(sizeof(uint32) * src->k);
	for (int i = 0; i < src->k; i++)
		values[i] = src->bits == 32 ? NDDUP_MINHASH_VALUES(src)[i] :
			nddup_bbit_get(src->data, i, src->bits);
	m = new_minhash(src->method, src->k, src->seed, src->size, src->unit, bits);
	m->flags = src->flags;
	nddup_bbit_pack(values, src->k, bits, m->data);
	PG_RETURN_POINTER(m);
}

/* Describe a sketch's parameters for error messages. */
char *
nddup_minhash_describe(const MinhashSketch *m)
{
	return psprintf("%s, k=%d, seed=%u, size=%d, unit=%s, bits=%d",
					method_names[m->method], m->k, m->seed, m->size,
					nddup_unit_name(m->unit), m->bits);
}

/* Raise 22023 unless a and b were made with the same parameters. */
static void
check_minhash_compatible(const MinhashSketch *a, const MinhashSketch *b)
{
	if (a->method != b->method || a->k != b->k || a->seed != b->seed ||
		a->size != b->size || a->unit != b->unit || a->bits != b->bits)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cannot compare min-hash sketches made with different parameters"),
				 errdetail("The first is (%s), the second (%s).", nddup_minhash_describe(a),
						   nddup_minhash_describe(b)),
				 errhint("Build both with the same method, k, seed, shingle size, unit and bits.")));
}

/*
 * Resemblance estimate: the share of equal positions; for b-bit sketches
 * corrected for chance agreement, (p - 2^-b) / (1 - 2^-b), clamped to [0, 1].
 */
static double
minhash_resemblance(const MinhashSketch *a, const MinhashSketch *b)
{
	int			equal;

	check_minhash_compatible(a, b);
	if ((a->flags & NDDUP_MINHASH_EMPTY_DOC) || (b->flags & NDDUP_MINHASH_EMPTY_DOC))
		return ((a->flags & b->flags) & NDDUP_MINHASH_EMPTY_DOC) ? 1.0 : 0.0;
	if (a->bits == 32)
		equal = nddup_minhash_equal_count(NDDUP_MINHASH_VALUES(a),
										  NDDUP_MINHASH_VALUES(b), a->k);
	else
		equal = nddup_bbit_equal_count(a->data, b->data, a->k, a->bits);
	return nddup_minhash_estimate(equal, a->k, a->bits);
}

/* The resemblance estimate of two minhash_sketch datums (for other files). */
double
nddup_minhash_datum_resemblance(Datum a, Datum b)
{
	return minhash_resemblance((MinhashSketch *) PG_DETOAST_DATUM(a),
							   (MinhashSketch *) PG_DETOAST_DATUM(b));
}

/*
 * The k values of a minhash_sketch datum, unpacked into a palloc'd array
 * (b-bit values in their low bits), with k, the bit width and whether the
 * document had no shingles.
 */
uint32 *
nddup_minhash_datum_values(Datum sketch, int *k, int *bits, bool *empty_doc)
{
	MinhashSketch *m = (MinhashSketch *) PG_DETOAST_DATUM(sketch);
	uint32	   *values = palloc(sizeof(uint32) * m->k);

	if (m->bits == 32)
		memcpy(values, NDDUP_MINHASH_VALUES(m), sizeof(uint32) * m->k);
	else
		for (int i = 0; i < m->k; i++)
			values[i] = nddup_bbit_get(m->data, i, m->bits);
	*k = m->k;
	*bits = m->bits;
	*empty_doc = (m->flags & NDDUP_MINHASH_EMPTY_DOC) != 0;
	return values;
}

/* jaccard(a minhash, b minhash): the resemblance estimate */
Datum
minhash_jaccard(PG_FUNCTION_ARGS)
{
	PG_RETURN_FLOAT8(minhash_resemblance(PG_GETARG_MINHASH(0), PG_GETARG_MINHASH(1)));
}

/* a <-> b: 1 - the resemblance estimate */
Datum
minhash_distance(PG_FUNCTION_ARGS)
{
	PG_RETURN_FLOAT8(1.0 - minhash_resemblance(PG_GETARG_MINHASH(0), PG_GETARG_MINHASH(1)));
}

/* a % b: estimate >= nddup.similarity_threshold */
Datum
minhash_similar_op(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(minhash_resemblance(PG_GETARG_MINHASH(0), PG_GETARG_MINHASH(1)) >=
				   nddup_similarity_threshold);
}

/* similar(a, b, threshold): estimate >= threshold */
Datum
minhash_similar(PG_FUNCTION_ARGS)
{
	double		threshold = PG_GETARG_FLOAT8(2);

	nddup_check_threshold(threshold);
	PG_RETURN_BOOL(minhash_resemblance(PG_GETARG_MINHASH(0), PG_GETARG_MINHASH(1)) >=
				   threshold);
}

/*
 * minhash_merge(a, b): the sketch of the union of the two shingle sets
 * (element-wise minimum; densified sketches are re-densified).  Transition
 * and combine function of minhash_union: in an aggregate the state (a) is
 * updated in place.
 */
Datum
minhash_merge(PG_FUNCTION_ARGS)
{
	MinhashSketch *a;
	MinhashSketch *b = PG_GETARG_MINHASH(1);

	if (AggCheckCallContext(fcinfo, NULL))
		a = PG_GETARG_MINHASH(0);
	else
		a = (MinhashSketch *) PG_DETOAST_DATUM_COPY(PG_GETARG_DATUM(0));
	check_minhash_compatible(a, b);
	if (a->bits != 32)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cannot merge %d-bit min-hash sketches", a->bits),
				 errhint("Merge the 32-bit sketches, then take minhash_bbit of the result.")));
	if (b->flags & NDDUP_MINHASH_EMPTY_DOC)
		PG_RETURN_POINTER(a);
	if (a->flags & NDDUP_MINHASH_EMPTY_DOC)
	{
		memcpy(a->data, b->data, nddup_minhash_data_size(a->method, a->k, 32));
		a->flags &= ~NDDUP_MINHASH_EMPTY_DOC;
		PG_RETURN_POINTER(a);
	}
	nddup_minhash_union(NDDUP_MINHASH_VALUES(a),
						a->method == NDDUP_MINHASH_OPH ? NDDUP_MINHASH_BORROWED(a) : NULL,
						NDDUP_MINHASH_VALUES(b),
						b->method == NDDUP_MINHASH_OPH ? NDDUP_MINHASH_BORROWED(b) : NULL,
						a->k, a->seed, (NddupMinhashMethod) a->method);
	PG_RETURN_POINTER(a);
}

/* The k values of a sketch as 32-bit integers (palloc'd). */
static uint32 *
minhash_values(const MinhashSketch *m)
{
	uint32	   *values = palloc(sizeof(uint32) * m->k);

	for (int i = 0; i < m->k; i++)
		values[i] = m->bits == 32 ? NDDUP_MINHASH_VALUES(m)[i] : nddup_bbit_get(m->data, i, m->bits);
	return values;
}

/* minhash::bigint[]: the k values ({} for a document without shingles) */
Datum
minhash_to_array(PG_FUNCTION_ARGS)
{
	MinhashSketch *m = PG_GETARG_MINHASH(0);
	uint32	   *values;
	uint64	   *wide;

	if (m->flags & NDDUP_MINHASH_EMPTY_DOC)
		PG_RETURN_ARRAYTYPE_P(construct_empty_array(INT8OID));
	values = minhash_values(m);
	wide = palloc(sizeof(uint64) * m->k);
	for (int i = 0; i < m->k; i++)
		wide[i] = values[i];
	PG_RETURN_ARRAYTYPE_P(nddup_int8_array(wide, m->k));
}

/* minhash_k(m): the number of values */
Datum
minhash_k(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT32(PG_GETARG_MINHASH(0)->k);
}

/*
 * super_shingles(m minhash, groups int, group_size int): Broder's
 * super-shingles, one per group of group_size consecutive values; k must be
 * groups * group_size.  {} for a document without shingles.
 */
Datum
super_shingles(PG_FUNCTION_ARGS)
{
	MinhashSketch *m = PG_GETARG_MINHASH(0);
	int32		groups = PG_GETARG_INT32(1);
	int32		group_size = PG_GETARG_INT32(2);
	uint64		ss[NDDUP_MINHASH_MAX_K];

	if (groups < 1 || group_size < 1 || groups > NDDUP_MINHASH_MAX_K ||
		group_size > NDDUP_MINHASH_MAX_K || groups * group_size != m->k)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%d groups of %d values do not match a sketch of k=%d values",
						groups, group_size, m->k),
				 errhint("Make the sketch with k = groups * group_size, e.g. minhash(doc, 84, 'kperm') for 6 groups of 14.")));
	if (m->bits != 32)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("super-shingles need a 32-bit min-hash sketch, not %d-bit", m->bits)));
	if (m->flags & NDDUP_MINHASH_EMPTY_DOC)
		PG_RETURN_ARRAYTYPE_P(construct_empty_array(INT8OID));
	nddup_super_shingles(NDDUP_MINHASH_VALUES(m), groups, group_size, ss);
	PG_RETURN_ARRAYTYPE_P(nddup_int8_array(ss, groups));
}

/*
 * super_shingles_match(a bigint[], b bigint[], r int): at least r
 * super-shingles are equal position by position.
 */
Datum
super_shingles_match(PG_FUNCTION_ARGS)
{
	int			na,
				nb,
				equal = 0;
	int64	   *a = nddup_int8_array_values(PG_GETARG_ARRAYTYPE_P(0), "super-shingles", &na);
	int64	   *b = nddup_int8_array_values(PG_GETARG_ARRAYTYPE_P(1), "super-shingles", &nb);
	int32		r = PG_GETARG_INT32(2);

	if (r < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("number of matches r %d is out of range", r),
				 errdetail("r must be at least 1.")));
	if (na == 0 || nb == 0)
		PG_RETURN_BOOL(false);
	if (na != nb)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cannot compare %d super-shingles with %d", na, nb)));
	for (int i = 0; i < na; i++)
		equal += a[i] == b[i];
	PG_RETURN_BOOL(equal >= r);
}

/* Largest number of keys super_shingle_keys returns. */
#define SUPER_SHINGLE_MAX_KEYS	10000

/*
 * super_shingle_keys(ss bigint[], r int): one key per r-subset of the
 * super-shingles (C(6, 2) = 15 for the defaults); two documents share a key
 * iff at least r super-shingles match, so `keys && keys` with a GIN index on
 * the bigint[] finds the candidates.
 */
Datum
super_shingle_keys(PG_FUNCTION_ARGS)
{
	int			s;
	int64	   *ss = nddup_int8_array_values(PG_GETARG_ARRAYTYPE_P(0), "super-shingles", &s);
	int32		r = PG_GETARG_INT32(1);
	double		combinations = 1;
	uint64	   *keys;
	size_t		n;

	if (s == 0)
		PG_RETURN_ARRAYTYPE_P(construct_empty_array(INT8OID));
	if (r < 1 || r > s)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("number of matches r %d is out of range", r),
				 errdetail("r must be between 1 and the number of super-shingles, %d.", s)));
	for (int i = 0; i < r; i++)
		combinations = combinations * (s - i) / (i + 1);
	if (s > 64 || combinations > SUPER_SHINGLE_MAX_KEYS)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("too many super-shingle keys: C(%d, %d) = %.0f", s, r, combinations),
				 errdetail("At most %d keys from at most 64 super-shingles.",
						   SUPER_SHINGLE_MAX_KEYS)));
	keys = palloc(sizeof(uint64) * (size_t) combinations);
	n = nddup_super_shingle_keys((const uint64 *) ss, s, r, keys);
	PG_RETURN_ARRAYTYPE_P(nddup_int8_array(keys, n));
}

/*
 * Raise the error of a sketch rejected by text (str) or binary (str NULL)
 * input.
 */
static void
minhash_input_error(const NddupParseError *err, const char *str)
{
	if (err->code == NDDUP_PARSE_LENGTH)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("binary minhash_sketch has %d data bytes, expected %zu",
						(int) err->have, (size_t) err->need)));
	nddup_parse_error(err, "minhash_sketch", str);
}

/*
 * Text form: "<method> k=K seed=S size=W unit=U bits=B:" then the k values
 * in hex (8 digits for 32 bits), a "*" before a one-permutation bin that was
 * filled by densification; or ": empty" for a document without shingles
 * (src/core/sketch_format.c).
 */
Datum
minhash_out(PG_FUNCTION_ARGS)
{
	StringInfoData buf;

	initStringInfo(&buf);
	nddup_minhash_format(PG_GETARG_MINHASH(0), nddup_string_info_printf, &buf);
	PG_RETURN_CSTRING(buf.data);
}

Datum
minhash_in(PG_FUNCTION_ARGS)
{
	char	   *str = PG_GETARG_CSTRING(0);
	NddupParseError err;
	MinhashSketch *m = nddup_minhash_parse(str, &err);

	if (m == NULL)
		minhash_input_error(&err, str);
	SET_VARSIZE(m, NDDUP_MINHASH_HDRSZ + nddup_minhash_data_size(m->method, m->k, m->bits));
	PG_RETURN_POINTER(m);
}

/*
 * Binary form: version, method, bits, flags, size, unit (1 byte each), k
 * (2 bytes), seed (4 bytes), then the data as stored (32-bit values in
 * network order, then the borrowed bitmap; or the packed b-bit bytes).
 */
Datum
minhash_send(PG_FUNCTION_ARGS)
{
	MinhashSketch *m = PG_GETARG_MINHASH(0);
	size_t		n = nddup_minhash_send_size(m);
	bytea	   *result = palloc(VARHDRSZ + n);

	SET_VARSIZE(result, VARHDRSZ + n);
	nddup_minhash_send(m, (uint8 *) VARDATA(result));
	PG_RETURN_BYTEA_P(result);
}

Datum
minhash_recv(PG_FUNCTION_ARGS)
{
	const uint8 *data;
	size_t		len;
	StringInfo	buf = nddup_recv_buffer(PG_GETARG_DATUM(0), &data, &len);
	NddupParseError err;
	MinhashSketch *m = nddup_minhash_recv(data, len, &err);

	if (m == NULL)
		minhash_input_error(&err, NULL);
	buf->cursor = buf->len;
	SET_VARSIZE(m, NDDUP_MINHASH_HDRSZ + nddup_minhash_data_size(m->method, m->k, m->bits));
	PG_RETURN_POINTER(m);
}
