/*-------------------------------------------------------------------------
 *
 * shingleset_sql.c
 *	  The shingleset type and its SQL functions: sorted distinct 64-bit
 *	  shingle hashes of a text, as the exact set S(D), Broder's bottom-s
 *	  sample F(D) or his mod-m sample V(D), with Broder's estimators of
 *	  resemblance and containment (Broder et al. 1997, s.2).
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
	nddup_collect_shingles(doc, size, unit, &hashes);
	n = nddup_sort_unique(hashes.items, hashes.len);
	kept = sample_items(hashes.items, n, kind, (uint32) param);
	set = make_set(kind, size, unit, kind == NDDUP_SET_EXACT ? 0 : (uint32) param,
				   hashes.items, kept, n);
	nddup_hashes_free(&hashes);
	return set;
}

/*
 * The exact shingleset of n shingle hashes (sorted and deduplicated in
 * place): shingle_set() of a text through a shingle_filter.
 */
NddupShingleSet *
nddup_exact_shingleset(uint64 *items, size_t n, int size, int unit)
{
	n = nddup_sort_unique(items, n);
	return make_set(NDDUP_SET_EXACT, size, unit, 0, items, n, n);
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
		return psprintf("exact, size=%d, unit=%s", s->size, nddup_unit_name(s->unit));
	return psprintf("%s %s=%u, size=%d, unit=%s", set_kind_names[s->kind],
					s->kind == NDDUP_SET_BOTTOM ? "s" : "m", s->param, s->size,
					nddup_unit_name(s->unit));
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
	Datum		r = shingleset_jaccard(fcinfo);

	if (fcinfo->isnull)
		PG_RETURN_NULL();
	PG_RETURN_FLOAT8(1.0 - DatumGetFloat8(r));
}

/* a % b: r(A, B) >= nddup.similarity_threshold */
Datum
shingleset_similar_op(PG_FUNCTION_ARGS)
{
	bool		defined;
	double		r = set_resemblance(PG_GETARG_SHINGLESET(0), PG_GETARG_SHINGLESET(1),
									&defined);

	PG_RETURN_BOOL(defined && r >= nddup_similarity_threshold);
}

/* similar(a, b, threshold): r(A, B) >= threshold */
Datum
shingleset_similar(PG_FUNCTION_ARGS)
{
	double		threshold = PG_GETARG_FLOAT8(2);
	bool		defined;
	double		r;

	nddup_check_threshold(threshold);
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

	PG_RETURN_ARRAYTYPE_P(nddup_int8_array(set->items, set->nitems));
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
 * "bottom s=2 size=3 unit=word n=6: 0a1b... 9c8d..." (src/core/sketch_format.c).
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
