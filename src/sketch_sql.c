/*-------------------------------------------------------------------------
 *
 * sketch_sql.c
 *	  The resemblance sketch types and their SQL functions:
 *
 *	  shingleset  sorted distinct 64-bit shingle hashes of a text: the exact
 *				  set S(D), Broder's bottom-s sample F(D) or his mod-m
 *				  sample V(D), with Broder's estimators;
 *	  minhash     k 32-bit min-hash values (k-permutation, or one-permutation
 *				  hashing with optimal densification), or their b-bit form;
 *				  the union aggregate; Broder's super-shingles.
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
 *		Shared helpers
 * ----------------------------------------------------------------
 */

/* default 0.3: where word 3-shingle resemblance separates near-duplicates best (docs/quality.md) */
static double similarity_threshold = NDDUP_DEFAULT_SIMILARITY_THRESHOLD;
static bool sketch_guc_defined = false;

/*
 * Define nddup.similarity_threshold.  Meant for _PG_init; until then it is
 * also called by every sketch constructor and by the % operators, so the
 * setting exists once a sketch function has run in the session (SET before
 * that creates a placeholder, which the definition then adopts).
 */
void
nddup_sketch_init(void)
{
	if (sketch_guc_defined)
		return;
	sketch_guc_defined = true;
	DefineCustomRealVariable("nddup.similarity_threshold",
							 "Resemblance at or above which the % operator is true.",
							 "Applies to shingleset and minhash values.",
							 &similarity_threshold,
							 NDDUP_DEFAULT_SIMILARITY_THRESHOLD, 0.0, 1.0,
							 PGC_USERSET, 0,
							 NULL, NULL, NULL);
}

/* The current value of nddup.similarity_threshold. */
static double
get_similarity_threshold(void)
{
	nddup_sketch_init();
	return similarity_threshold;
}

/* Reject a threshold outside [0, 1]. */
static void
check_threshold(double threshold)
{
	if (isnan(threshold) || threshold < 0.0 || threshold > 1.0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("similarity threshold %g is out of range", threshold),
				 errdetail("The threshold must be between 0 and 1.")));
}

static const char *
unit_name(int unit)
{
	return unit == NDDUP_UNIT_CHAR ? "char" : "word";
}

/*
 * The shingle hashes of a text, in palloc'd memory: every distinct hash,
 * some repeats (min-hash and shingle sets depend on the set only).
 */
static void
collect_shingles(text *doc, int32 size, NddupUnit unit, NddupHashes *hashes)
{
	size_t		len;
	char	   *utf8;

	nddup_sketch_init();		/* until _PG_init calls it */
	nddup_check_shingle_size(size);
	utf8 = nddup_text_to_utf8(doc, &len);
	nddup_text_shingles(utf8, len, size, unit, nddup_hashes_append_distinct, hashes);
	CHECK_FOR_INTERRUPTS();
}

/* A bigint[] of n 64-bit values (the same bits). */
static ArrayType *
int8_array(const uint64 *values, size_t n)
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
static int64 *
int8_array_values(ArrayType *array, const char *what, int *n)
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
 *		shingleset
 * ----------------------------------------------------------------
 */

typedef NddupSetKind ShingleSetKind;
typedef NddupShingleSet ShingleSet;

static const char *const set_kind_names[] = {"exact", "bottom", "mod"};

#define PG_GETARG_SHINGLESET(n)	((ShingleSet *) PG_DETOAST_DATUM(PG_GETARG_DATUM(n)))

PG_FUNCTION_INFO_V1(shingleset_in);
PG_FUNCTION_INFO_V1(shingleset_out);
PG_FUNCTION_INFO_V1(shingleset_recv);
PG_FUNCTION_INFO_V1(shingleset_send);
PG_FUNCTION_INFO_V1(shingle_set_text);
PG_FUNCTION_INFO_V1(shingle_bottom_text);
PG_FUNCTION_INFO_V1(shingle_bottom_set);
PG_FUNCTION_INFO_V1(shingle_mod_text);
PG_FUNCTION_INFO_V1(shingle_mod_set);
PG_FUNCTION_INFO_V1(shingleset_jaccard);
PG_FUNCTION_INFO_V1(shingleset_containment);
PG_FUNCTION_INFO_V1(shingleset_overlap);
PG_FUNCTION_INFO_V1(shingleset_cardinality);
PG_FUNCTION_INFO_V1(shingleset_distance);
PG_FUNCTION_INFO_V1(shingleset_similar_op);
PG_FUNCTION_INFO_V1(shingleset_similar);
PG_FUNCTION_INFO_V1(shingleset_to_array);

/* Raise the size-limit error of a shingleset. */
static void
check_set_items(uint64 n)
{
	if (n > NDDUP_SHINGLESET_MAX_ITEMS)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("shingle set too large (%llu shingles)", (unsigned long long) n),
				 errdetail("A shingleset holds at most %d shingles.", NDDUP_SHINGLESET_MAX_ITEMS)));
}

/* A new shingleset of the given items (sorted, distinct). */
static ShingleSet *
make_set(ShingleSetKind kind, int size, int unit, uint32 param,
		 const uint64 *items, size_t nitems, uint64 cardinality)
{
	Size		sz;
	ShingleSet *set;

	check_set_items(nitems);
	sz = NDDUP_SHINGLESET_HDRSZ + nitems * sizeof(uint64);
	set = palloc0(sz);
	SET_VARSIZE(set, sz);
	set->version = NDDUP_SHINGLESET_VERSION;
	set->kind = (uint8) kind;
	set->size = (uint8) size;
	set->unit = (uint8) unit;
	set->param = param;
	set->nitems = (uint32) nitems;
	set->cardinality = cardinality;
	if (nitems > 0)
		memcpy(set->items, items, nitems * sizeof(uint64));
	return set;
}

/*
 * The sample of a sorted distinct set: the first s items (bottom) or the
 * items that are 0 mod m (mod); filters in place, returns the count.
 */
static size_t
sample_items(uint64 *items, size_t n, ShingleSetKind kind, uint32 param)
{
	if (kind == NDDUP_SET_BOTTOM)
		return n < param ? n : param;
	if (kind == NDDUP_SET_MOD)
		return nddup_filter_mod(items, n, param);
	return n;
}

/* Check a sample parameter: s in 1..1000000, m in 1..2^31-1. */
static void
check_sample_param(ShingleSetKind kind, int32 param)
{
	if (kind == NDDUP_SET_BOTTOM && (param < 1 || param > NDDUP_SHINGLESET_MAX_S))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("sample size s %d is out of range", param),
				 errdetail("s must be between 1 and %d.", NDDUP_SHINGLESET_MAX_S)));
	if (kind == NDDUP_SET_MOD && param < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("modulus m %d is out of range", param),
				 errdetail("m must be between 1 and %d.", PG_INT32_MAX)));
}

/* A shingleset of the given kind from a text. */
static ShingleSet *
set_from_text(text *doc, int32 size, text *unit_arg, ShingleSetKind kind,
			  int32 param)
{
	NddupUnit	unit = nddup_parse_unit(unit_arg);
	NddupHashes hashes = {0};
	size_t		n,
				kept;
	ShingleSet *set;

	check_sample_param(kind, param);
	collect_shingles(doc, size, unit, &hashes);
	n = nddup_sort_unique(hashes.items, hashes.len);
	kept = sample_items(hashes.items, n, kind, (uint32) param);
	set = make_set(kind, size, unit, kind == NDDUP_SET_EXACT ? 0 : (uint32) param,
				   hashes.items, kept, n);
	nddup_hashes_free(&hashes);
	return set;
}

/* shingle_set(doc text, size int, unit text): the exact set S(D). */
Datum
shingle_set_text(PG_FUNCTION_ARGS)
{
	PG_RETURN_POINTER(set_from_text(PG_GETARG_TEXT_PP(0), PG_GETARG_INT32(1),
									PG_GETARG_TEXT_PP(2), NDDUP_SET_EXACT, 0));
}

/* shingle_bottom(doc text, s int, size int, unit text): F(D). */
Datum
shingle_bottom_text(PG_FUNCTION_ARGS)
{
	PG_RETURN_POINTER(set_from_text(PG_GETARG_TEXT_PP(0), PG_GETARG_INT32(2),
									PG_GETARG_TEXT_PP(3), NDDUP_SET_BOTTOM,
									PG_GETARG_INT32(1)));
}

/* shingle_mod(doc text, m int, size int, unit text): V(D). */
Datum
shingle_mod_text(PG_FUNCTION_ARGS)
{
	PG_RETURN_POINTER(set_from_text(PG_GETARG_TEXT_PP(0), PG_GETARG_INT32(2),
									PG_GETARG_TEXT_PP(3), NDDUP_SET_MOD,
									PG_GETARG_INT32(1)));
}

/* A sample of an exact shingleset (the same as the sample of the text). */
static ShingleSet *
set_from_set(ShingleSet *src, ShingleSetKind kind, int32 param)
{
	uint64	   *items;
	size_t		kept;
	ShingleSet *set;

	check_sample_param(kind, param);
	if (src->kind != NDDUP_SET_EXACT)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cannot sample a %s shingleset", set_kind_names[src->kind]),
				 errhint("Samples are taken from exact shingle sets (shingle_set).")));
	items = palloc_extended(src->nitems * sizeof(uint64) + 1, MCXT_ALLOC_HUGE);
	memcpy(items, src->items, src->nitems * sizeof(uint64));
	kept = sample_items(items, src->nitems, kind, (uint32) param);
	set = make_set(kind, src->size, src->unit, (uint32) param, items, kept,
				   src->cardinality);
	pfree(items);
	return set;
}

/* shingle_bottom(set shingleset, s int) */
Datum
shingle_bottom_set(PG_FUNCTION_ARGS)
{
	PG_RETURN_POINTER(set_from_set(PG_GETARG_SHINGLESET(0), NDDUP_SET_BOTTOM,
								   PG_GETARG_INT32(1)));
}

/* shingle_mod(set shingleset, m int) */
Datum
shingle_mod_set(PG_FUNCTION_ARGS)
{
	PG_RETURN_POINTER(set_from_set(PG_GETARG_SHINGLESET(0), NDDUP_SET_MOD,
								   PG_GETARG_INT32(1)));
}

/* Describe a shingleset's parameters for error messages. */
static char *
set_params(const ShingleSet *s)
{
	if (s->kind == NDDUP_SET_EXACT)
		return psprintf("exact, size=%d, unit=%s", s->size, unit_name(s->unit));
	return psprintf("%s %s=%u, size=%d, unit=%s", set_kind_names[s->kind],
					s->kind == NDDUP_SET_BOTTOM ? "s" : "m", s->param, s->size,
					unit_name(s->unit));
}

/* Raise 22023 unless a and b were made with the same parameters. */
static void
check_sets_compatible(const ShingleSet *a, const ShingleSet *b)
{
	if (a->kind != b->kind || a->param != b->param || a->size != b->size ||
		a->unit != b->unit)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cannot compare shingle sets made with different parameters"),
				 errdetail("The first is (%s), the second (%s).", set_params(a),
						   set_params(b)),
				 errhint("Build both with the same function, shingle size and unit.")));
}

/*
 * The resemblance (or its estimate) of two compatible sets; *defined is
 * false when a sample holds no information (both samples empty though the
 * documents are not).
 */
static double
set_resemblance(const ShingleSet *a, const ShingleSet *b, bool *defined)
{
	*defined = true;
	check_sets_compatible(a, b);
	/* documents without shingles: r(empty, empty) = 1, r(empty, B) = 0 */
	if (a->cardinality == 0 || b->cardinality == 0)
		return (a->cardinality == 0 && b->cardinality == 0) ? 1.0 : 0.0;
	if (a->kind == NDDUP_SET_BOTTOM)
	{
		size_t		common,
					total;

		nddup_bottom_s_compare(a->items, a->nitems, b->items, b->nitems,
							   a->param, &common, &total);
		if (total == 0)
		{
			*defined = false;
			return 0.0;
		}
		return (double) common / (double) total;
	}
	else
	{
		size_t		common = nddup_intersection_count(a->items, a->nitems,
													  b->items, b->nitems);
		size_t		total = (size_t) a->nitems + b->nitems - common;

		if (total == 0)
		{
			*defined = false;
			return 0.0;
		}
		return (double) common / (double) total;
	}
}

/* jaccard(a shingleset, b shingleset): resemblance r(A, B) or its estimate */
Datum
shingleset_jaccard(PG_FUNCTION_ARGS)
{
	bool		defined;
	double		r = set_resemblance(PG_GETARG_SHINGLESET(0), PG_GETARG_SHINGLESET(1),
									&defined);

	if (!defined)
		PG_RETURN_NULL();
	PG_RETURN_FLOAT8(r);
}

/* a <-> b: the resemblance distance 1 - r(A, B), a metric */
Datum
shingleset_distance(PG_FUNCTION_ARGS)
{
	bool		defined;
	double		r = set_resemblance(PG_GETARG_SHINGLESET(0), PG_GETARG_SHINGLESET(1),
									&defined);

	if (!defined)
		PG_RETURN_NULL();
	PG_RETURN_FLOAT8(1.0 - r);
}

/* a % b: r(A, B) >= nddup.similarity_threshold */
Datum
shingleset_similar_op(PG_FUNCTION_ARGS)
{
	bool		defined;
	double		r = set_resemblance(PG_GETARG_SHINGLESET(0), PG_GETARG_SHINGLESET(1),
									&defined);

	PG_RETURN_BOOL(defined && r >= get_similarity_threshold());
}

/* similar(a, b, threshold): r(A, B) >= threshold */
Datum
shingleset_similar(PG_FUNCTION_ARGS)
{
	double		threshold = PG_GETARG_FLOAT8(2);
	bool		defined;
	double		r;

	check_threshold(threshold);
	r = set_resemblance(PG_GETARG_SHINGLESET(0), PG_GETARG_SHINGLESET(1), &defined);
	PG_RETURN_BOOL(defined && r >= threshold);
}

/*
 * containment(a, b) = |A n B| / |A| (exact), or |V(A) n V(B)| / |V(A)|
 * (mod-m samples).  Bottom-s samples do not estimate containment.
 */
Datum
shingleset_containment(PG_FUNCTION_ARGS)
{
	ShingleSet *a = PG_GETARG_SHINGLESET(0);
	ShingleSet *b = PG_GETARG_SHINGLESET(1);

	check_sets_compatible(a, b);
	if (a->kind == NDDUP_SET_BOTTOM)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("containment cannot be estimated from bottom-s samples"),
				 errhint("Use exact shingle sets (shingle_set) or mod-m samples (shingle_mod).")));
	/* the empty set is contained in every set */
	if (a->cardinality == 0)
		PG_RETURN_FLOAT8(1.0);
	if (a->nitems == 0)
		PG_RETURN_NULL();		/* V(A) empty: no information */
	PG_RETURN_FLOAT8((double) nddup_intersection_count(a->items, a->nitems,
													   b->items, b->nitems) /
					 (double) a->nitems);
}

/* overlap(a, b): the number of hashes the two values share */
Datum
shingleset_overlap(PG_FUNCTION_ARGS)
{
	ShingleSet *a = PG_GETARG_SHINGLESET(0);
	ShingleSet *b = PG_GETARG_SHINGLESET(1);

	check_sets_compatible(a, b);
	PG_RETURN_INT64((int64) nddup_intersection_count(a->items, a->nitems,
													 b->items, b->nitems));
}

/* cardinality(shingleset): |S(D)|, the distinct shingles of the document */
Datum
shingleset_cardinality(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT64((int64) PG_GETARG_SHINGLESET(0)->cardinality);
}

/* shingleset::bigint[]: the stored hashes, in unsigned order */
Datum
shingleset_to_array(PG_FUNCTION_ARGS)
{
	ShingleSet *set = PG_GETARG_SHINGLESET(0);

	PG_RETURN_ARRAYTYPE_P(int8_array(set->items, set->nitems));
}

/*
 * Raise the error of a shingleset rejected by text (str) or binary (str
 * NULL) input.
 */
static void
set_input_error(const NddupParseError *err, const char *str)
{
	if (err->code == NDDUP_PARSE_TOO_LARGE)
		check_set_items(err->need);
	if (err->code == NDDUP_PARSE_LENGTH)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("binary shingleset has %d bytes of hashes, expected %u",
						(int) err->have, (uint32) err->need)));
	nddup_parse_error(err, "shingleset", str);
}

/*
 * Text form: "<kind> [s=|m=N ]size=W unit=U n=N:" then the hashes as 16
 * hex digits each, separated by spaces, e.g.
 * "bottom s=2 size=3 unit=word n=6: 0a1b... 9c8d..." (src/sketch_format.c).
 */
Datum
shingleset_in(PG_FUNCTION_ARGS)
{
	char	   *str = PG_GETARG_CSTRING(0);
	NddupParseError err;
	ShingleSet *set = nddup_shingleset_parse(str, &err);

	if (set == NULL)
		set_input_error(&err, str);
	SET_VARSIZE(set, NDDUP_SHINGLESET_SIZE(set->nitems));
	PG_RETURN_POINTER(set);
}

Datum
shingleset_out(PG_FUNCTION_ARGS)
{
	StringInfoData buf;

	initStringInfo(&buf);
	nddup_shingleset_format(PG_GETARG_SHINGLESET(0), nddup_string_info_printf, &buf);
	PG_RETURN_CSTRING(buf.data);
}

/*
 * Binary form: version, kind, size, unit (1 byte each), param and nitems
 * (4 bytes), cardinality (8 bytes), the hashes (8 bytes each), network order.
 */
Datum
shingleset_send(PG_FUNCTION_ARGS)
{
	ShingleSet *s = PG_GETARG_SHINGLESET(0);
	size_t		n = nddup_shingleset_send_size(s);
	bytea	   *result = palloc(VARHDRSZ + n);

	SET_VARSIZE(result, VARHDRSZ + n);
	nddup_shingleset_send(s, (uint8 *) VARDATA(result));
	PG_RETURN_BYTEA_P(result);
}

Datum
shingleset_recv(PG_FUNCTION_ARGS)
{
	const uint8 *data;
	size_t		len;
	StringInfo	buf = nddup_recv_buffer(PG_GETARG_DATUM(0), &data, &len);
	NddupParseError err;
	ShingleSet *s = nddup_shingleset_recv(data, len, &err);

	if (s == NULL)
		set_input_error(&err, NULL);
	buf->cursor = buf->len;
	SET_VARSIZE(s, NDDUP_SHINGLESET_SIZE(s->nitems));
	PG_RETURN_POINTER(s);
}

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

/* The method named by a text: 'kperm' or 'oph'. */
static NddupMinhashMethod
parse_method(text *t)
{
	char	   *name = text_to_cstring(t);

	if (strcmp(name, "kperm") == 0)
		return NDDUP_MINHASH_KPERM;
	if (strcmp(name, "oph") == 0)
		return NDDUP_MINHASH_OPH;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("invalid min-hash method \"%s\"", name),
			 errhint("Valid methods are \"kperm\" (k permutations) and \"oph\" (one permutation, densified).")));
	return NDDUP_MINHASH_KPERM;	/* keep compiler quiet */
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
 * minhash(doc text, k int, method text, seed int, size int, unit text): the
 * min-hash sketch of the document's shingles.
 */
Datum
minhash_text(PG_FUNCTION_ARGS)
{
	text	   *doc = PG_GETARG_TEXT_PP(0);
	int32		k = PG_GETARG_INT32(1);
	NddupMinhashMethod method = parse_method(PG_GETARG_TEXT_PP(2));
	uint32		seed = (uint32) PG_GETARG_INT32(3);
	int32		size = PG_GETARG_INT32(4);
	NddupUnit	unit = nddup_parse_unit(PG_GETARG_TEXT_PP(5));
	NddupHashes hashes = {0};
	MinhashSketch *m;

	check_k(k);
	collect_shingles(doc, size, unit, &hashes);
	m = new_minhash(method, k, seed, size, unit, 32);
	if (method == NDDUP_MINHASH_KPERM)
		nddup_minhash_kperm(hashes.items, hashes.len, k, seed, NDDUP_MINHASH_VALUES(m));
	else
	{
		nddup_minhash_oph_bins(hashes.items, hashes.len, k, seed, NDDUP_MINHASH_VALUES(m));
		nddup_minhash_densify(NDDUP_MINHASH_VALUES(m), k, seed, NDDUP_MINHASH_BORROWED(m));
	}
	if (hashes.len == 0)
		m->flags |= NDDUP_MINHASH_EMPTY_DOC;
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
					unit_name(m->unit), m->bits);
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
				   get_similarity_threshold());
}

/* similar(a, b, threshold): estimate >= threshold */
Datum
minhash_similar(PG_FUNCTION_ARGS)
{
	double		threshold = PG_GETARG_FLOAT8(2);

	check_threshold(threshold);
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
	PG_RETURN_ARRAYTYPE_P(int8_array(wide, m->k));
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
	PG_RETURN_ARRAYTYPE_P(int8_array(ss, groups));
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
	int64	   *a = int8_array_values(PG_GETARG_ARRAYTYPE_P(0), "super-shingles", &na);
	int64	   *b = int8_array_values(PG_GETARG_ARRAYTYPE_P(1), "super-shingles", &nb);
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
	int64	   *ss = int8_array_values(PG_GETARG_ARRAYTYPE_P(0), "super-shingles", &s);
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
	PG_RETURN_ARRAYTYPE_P(int8_array(keys, n));
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
 * (src/sketch_format.c).
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
