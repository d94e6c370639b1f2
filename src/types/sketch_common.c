/*-------------------------------------------------------------------------
 *
 * sketch_common.c
 *	  What the resemblance sketch types share (src/types/shingleset_sql.c,
 *	  src/types/minhash_sql.c): the threshold check, the shingles of a
 *	  text, bigint[] conversions, and byte equality and hashing of values.
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
/* Reject a threshold outside [0, 1]. */
void
nddup_check_threshold(double threshold)
{
	if (isnan(threshold) || threshold < 0.0 || threshold > 1.0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("similarity threshold %g is out of range", threshold),
				 errdetail("The threshold must be between 0 and 1.")));
}

/* The name of a shingle unit. */
const char *
nddup_unit_name(int unit)
{
	return nddup_unit_names[unit];
}

/*
 * The shingle hashes of a text, in palloc'd memory: every distinct hash,
 * some repeats (min-hash and shingle sets depend on the set only).
 */
void
nddup_collect_shingles(text *doc, int32 size, NddupUnit unit, NddupHashes *hashes)
{
	size_t		len;
	char	   *utf8;

	nddup_check_shingle_size(size);
	utf8 = nddup_text_to_utf8(doc, &len);
	nddup_text_shingles(utf8, len, size, unit, nddup_hashes_append_distinct, hashes);
	CHECK_FOR_INTERRUPTS();
}

/* A bigint[] of n 64-bit values (the same bits). */
ArrayType *
nddup_int8_array(const uint64 *values, size_t n)
{
	Datum	   *elems;
	ArrayType  *result;

	if (n == 0)
		return construct_empty_array(INT8OID);
	elems = palloc_extended(n * sizeof(Datum), MCXT_ALLOC_HUGE);
	for (size_t i = 0; i < n; i++)
		elems[i] = Int64GetDatum((int64) values[i]);
	result = construct_array(elems, (int) n, INT8OID, sizeof(int64),
							 FLOAT8PASSBYVAL, TYPALIGN_DOUBLE);
	pfree(elems);
	return result;
}

/* The elements of a one-dimensional bigint[] without NULLs. */
int64 *
nddup_int8_array_values(ArrayType *array, const char *what, int *n)
{
	if (ARR_NDIM(array) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("%s must be a one-dimensional array", what)));
	if (ARR_HASNULL(array) && array_contains_nulls(array))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s must not contain nulls", what)));
	*n = ArrayGetNItems(ARR_NDIM(array), ARR_DIMS(array));
	return (int64 *) ARR_DATA_PTR(array);
}

/* ----------------------------------------------------------------
 *		Equality (identical values: same parameters, same hashes)
 * ----------------------------------------------------------------
 */

PG_FUNCTION_INFO_V1(sketch_eq);
PG_FUNCTION_INFO_V1(sketch_ne);
PG_FUNCTION_INFO_V1(sketch_hash);
PG_FUNCTION_INFO_V1(sketch_hash_extended);

/*
 * Both types have one representation per value (padding and unused bits
 * zero), so equality is byte equality; shared by shingleset and
 * minhash_sketch.
 */
static bool
varlena_equal(FunctionCallInfo fcinfo)
{
	struct varlena *a = PG_DETOAST_DATUM_PACKED(PG_GETARG_DATUM(0));
	struct varlena *b = PG_DETOAST_DATUM_PACKED(PG_GETARG_DATUM(1));

	return VARSIZE_ANY_EXHDR(a) == VARSIZE_ANY_EXHDR(b) &&
		memcmp(VARDATA_ANY(a), VARDATA_ANY(b), VARSIZE_ANY_EXHDR(a)) == 0;
}

Datum
sketch_eq(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(varlena_equal(fcinfo));
}

Datum
sketch_ne(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(!varlena_equal(fcinfo));
}

Datum
sketch_hash(PG_FUNCTION_ARGS)
{
	struct varlena *a = PG_DETOAST_DATUM_PACKED(PG_GETARG_DATUM(0));

	return hash_any((unsigned char *) VARDATA_ANY(a), VARSIZE_ANY_EXHDR(a));
}

Datum
sketch_hash_extended(PG_FUNCTION_ARGS)
{
	struct varlena *a = PG_DETOAST_DATUM_PACKED(PG_GETARG_DATUM(0));

	return hash_any_extended((unsigned char *) VARDATA_ANY(a), VARSIZE_ANY_EXHDR(a),
							 PG_GETARG_INT64(1));
}
