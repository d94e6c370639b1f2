/*-------------------------------------------------------------------------
 *
 * batch_verify.c
 *	  Verified candidates: a Hamming radius or a min-hash band finds
 *	  candidate pairs cheaply, and the batch functions, asked to (verify =>
 *	  t), confirm each one by the resemblance of a second value of the rows
 *	  before they report or link it: the exact Jaccard of the word
 *	  3-shingles of a text (as jaccard(shingle_set(a), shingle_set(b))), the
 *	  exact Jaccard of stored shingle sets, or the estimate of stored min-hash
 *	  sketches (as jaccard() of the sketches).  This is the filter-and-verify
 *	  shape of the set-similarity-join literature: the candidate stage sets
 *	  recall and cost, the verification precision
 *	  (docs/batch.md#verified-candidates).
 *
 * The value is reduced when a row is read to what the comparison needs,
 * the row store's extra part: the sorted distinct shingle hashes of a text
 * or a set, or a sketch's k values unpacked to 32 bits.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "batch/batch.h"

#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

/* Shingles of a verified text: word 3-shingles, shingle_set()'s defaults. */
#define VERIFY_SHINGLE_SIZE		3

/*
 * Set up the verification of a call (active with a threshold t in (0, 1],
 * else 22023); set_type and sketch_type are the extension's shingleset and
 * minhash_sketch.
 */
void
batch_verify_init(BatchVerify *v, BatchCall *call, bool active, double threshold,
				  Oid set_type, Oid sketch_type)
{
	memset(v, 0, sizeof(*v));
	v->call = call;
	v->active = active;
	v->threshold = threshold;
	v->set_type = set_type;
	v->sketch_type = sketch_type;
	if (active && (isnan(threshold) || threshold <= 0.0 || threshold > 1.0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("verification threshold %g is out of range", threshold),
				 errdetail("The verification threshold of %s must be greater than 0 and at most 1.",
						   call->fname)));
}

/* Grow the buffer of reduced values to n bytes. */
static void
reserve(BatchVerify *v, size_t n)
{
	if (n <= v->bufcap)
		return;
	v->bufcap = Max(n, Max(v->bufcap * 2, 1024));
	v->buf = v->buf ? repalloc_huge(v->buf, v->bufcap) :
		MemoryContextAllocHuge(v->call->cxt, v->bufcap);
}

/* Check that a value of this kind can be compared with the first one. */
static void
check_kind(BatchVerify *v, BatchVerifyKind kind)
{
	if (!v->have_params)
		v->kind = kind;
	else if (v->kind != kind)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("cannot verify a min-hash sketch against a text or shingle set"),
				 errdetail("Every verification value of %s must be a sketch, or every one a text or shingle set.",
						   v->call->fname)));
}

/*
 * Check that shingles of this size and unit can be compared like the first
 * value's (a text counts as word 3-shingles).
 */
static void
check_set(BatchVerify *v, uint8 size, uint8 unit)
{
	check_kind(v, VERIFY_SETS);
	if (!v->have_params)
	{
		v->set_size = size;
		v->set_unit = unit;
		v->have_params = true;
	}
	else if (size != v->set_size || unit != v->set_unit)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cannot compare shingle sets made with different parameters"),
				 errdetail("Every verification value of %s must be made with the same shingle size and unit (a text counts as word 3-shingles).",
						   v->call->fname)));
}

/* Check that a sketch can be compared like the first one. */
static void
check_sketch(BatchVerify *v, const NddupMinhash *m)
{
	check_kind(v, VERIFY_SKETCH);
	if (!v->have_params)
	{
		v->sketch_method = m->method;
		v->sketch_k = m->k;
		v->sketch_bits = m->bits;
		v->sketch_seed = m->seed;
		v->set_size = m->size;
		v->set_unit = m->unit;
		v->have_params = true;
	}
	else if (m->method != v->sketch_method || m->k != v->sketch_k ||
			 m->bits != v->sketch_bits || m->seed != v->sketch_seed ||
			 m->size != v->set_size || m->unit != v->set_unit)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cannot compare min-hash sketches made with different parameters"),
				 errdetail("Every verification value of %s must be made with the same method, k, seed, shingle size, unit and bits.",
						   v->call->fname)));
}

/*
 * Reduce a verification value of type 'type' to the bytes the comparison
 * needs (valid until the next call): the sorted distinct shingle hashes of
 * a text or an exact set, or a sketch's values; flags get
 * BATCH_ROW_VERIFY_EMPTY for a document without shingles.
 */
const char *
batch_verify_reduce(BatchVerify *v, Datum value, Oid type, uint32 *len, uint8 *flags)
{
	if (type == v->set_type)
	{
		NddupShingleSet *s = (NddupShingleSet *) PG_DETOAST_DATUM(value);

		if (s->kind != NDDUP_SET_EXACT)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s verifies with exact shingle sets only", v->call->fname),
					 errhint("Pass shingle_set(text) or the text itself as the verification value.")));
		check_set(v, s->size, s->unit);
		reserve(v, (size_t) s->nitems * sizeof(uint64) + 1);
		memcpy(v->buf, s->items, (size_t) s->nitems * sizeof(uint64));
		*len = s->nitems * sizeof(uint64);
		if (s->cardinality == 0)
			*flags |= BATCH_ROW_VERIFY_EMPTY;
		if ((Pointer) s != DatumGetPointer(value))
			pfree(s);
	}
	else if (type == v->sketch_type)
	{
		NddupMinhash *m = (NddupMinhash *) PG_DETOAST_DATUM(value);
		uint32	   *values;

		check_sketch(v, m);
		reserve(v, sizeof(uint32) * m->k);
		values = (uint32 *) v->buf;
		for (int i = 0; i < m->k; i++)
			values[i] = m->bits == 32 ? NDDUP_MINHASH_VALUES(m)[i] :
				nddup_bbit_get(m->data, i, m->bits);
		*len = sizeof(uint32) * m->k;
		if (m->flags & NDDUP_MINHASH_EMPTY_DOC)
			*flags |= BATCH_ROW_VERIFY_EMPTY;
		if ((Pointer) m != DatumGetPointer(value))
			pfree(m);
	}
	else
	{
		NddupHashes hashes = {0};
		size_t		n;

		check_set(v, VERIFY_SHINGLE_SIZE, NDDUP_UNIT_WORD);
		nddup_collect_shingles(DatumGetTextPP(value), VERIFY_SHINGLE_SIZE, NDDUP_UNIT_WORD,
							   &hashes);
		n = nddup_sort_unique(hashes.items, hashes.len);
		reserve(v, n * sizeof(uint64) + 1);
		memcpy(v->buf, hashes.items, n * sizeof(uint64));
		*len = n * sizeof(uint64);
		if (n == 0)
			*flags |= BATCH_ROW_VERIFY_EMPTY;
		nddup_hashes_free(&hashes);
	}
	return v->buf;
}

/*
 * Do two rows' reduced values reach the threshold?  Their resemblance goes
 * into *similarity: exact Jaccard of sets (1 for two documents without
 * shingles, 0 for one), or the sketches' estimate.
 */
bool
batch_verify_pair(BatchVerify *v, const char *a, uint32 alen, uint8 fa,
				  const char *b, uint32 blen, uint8 fb, double *similarity)
{
	bool		ea = (fa & BATCH_ROW_VERIFY_EMPTY) != 0;
	bool		eb = (fb & BATCH_ROW_VERIFY_EMPTY) != 0;

	/* a comparison of two sets can take milliseconds: check every one */
	CHECK_FOR_INTERRUPTS();
	if (ea || eb)
		*similarity = (ea && eb) ? 1.0 : 0.0;
	else if (v->kind == VERIFY_SKETCH)
		*similarity = nddup_minhash_estimate(nddup_minhash_equal_count((const uint32 *) a,
																	   (const uint32 *) b,
																	   v->sketch_k),
											 v->sketch_k, v->sketch_bits);
	else
	{
		size_t		na = alen / sizeof(uint64);
		size_t		nb = blen / sizeof(uint64);
		size_t		common = nddup_intersection_count((const uint64 *) a, na,
													  (const uint64 *) b, nb);

		*similarity = (double) common / (double) (na + nb - common);
	}
	return *similarity >= v->threshold;
}

/* Is optional argument i absent (a database still at 0.1) or NULL? */
static inline bool
arg_absent(FunctionCallInfo fcinfo, int i)
{
	return i >= PG_NARGS() || PG_ARGISNULL(i);
}

/*
 * The verification threshold of a query form (argument i): false when it is
 * NULL or absent (the SQL of 0.1 passes fewer arguments than the library
 * knows).
 */
bool
batch_verify_query_arg(FunctionCallInfo fcinfo, int i, double *threshold)
{
	*threshold = 0;
	if (arg_absent(fcinfo, i))
		return false;
	*threshold = PG_GETARG_FLOAT8(i);
	return true;
}

/*
 * The verification arguments of a relation form, the column (argument
 * colarg; NULL: no verification) and the threshold (the next; NULL:
 * nddup.similarity_threshold); a threshold without a column is 22023.
 */
Name
batch_verify_relation_args(FunctionCallInfo fcinfo, const char *fname, int colarg,
						   double *threshold)
{
	*threshold = 0;
	if (arg_absent(fcinfo, colarg))
	{
		if (!arg_absent(fcinfo, colarg + 1))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s needs verify_column to verify candidates", fname),
					 errhint("Name the column of the text, shingle set or sketch to verify with, e.g. verify_column => 'body'.")));
		return NULL;
	}
	*threshold = arg_absent(fcinfo, colarg + 1) ? nddup_similarity_threshold :
		PG_GETARG_FLOAT8(colarg + 1);
	return PG_GETARG_NAME(colarg);
}
