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

/* Skip spaces in a text being parsed. */
static const char *
skip_spaces(const char *p)
{
	while (*p == ' ')
		p++;
	return p;
}

/*
 * Parse "name=<unsigned integer>" at *p (after spaces), advancing *p.
 * Returns false when the text does not match.
 */
static bool
parse_param(const char **p, const char *name, uint64 *value)
{
	const char *s = skip_spaces(*p);
	size_t		len = strlen(name);
	char	   *end;

	if (strncmp(s, name, len) != 0 || s[len] != '=' || !isdigit((unsigned char) s[len + 1]))
		return false;
	errno = 0;
	*value = strtoull(s + len + 1, &end, 10);
	if (errno != 0)
		return false;
	*p = end;
	return true;
}

/* Parse "unit=word" or "unit=char". */
static bool
parse_unit_param(const char **p, int *unit)
{
	const char *s = skip_spaces(*p);

	if (strncmp(s, "unit=word", 9) == 0)
		*unit = NDDUP_UNIT_WORD;
	else if (strncmp(s, "unit=char", 9) == 0)
		*unit = NDDUP_UNIT_CHAR;
	else
		return false;
	*p = s + 9;
	return true;
}

/* Parse a hex number of at most maxdigits digits at *p (after spaces). */
static bool
parse_hex(const char **p, int maxdigits, uint64 *value)
{
	const char *s = skip_spaces(*p);
	uint64		v = 0;
	int			digits = 0;

	while (isxdigit((unsigned char) *s))
	{
		if (++digits > maxdigits)
			return false;
		v = (v << 4) | (uint64) (isdigit((unsigned char) *s) ? *s - '0' :
								 (tolower((unsigned char) *s) - 'a' + 10));
		s++;
	}
	if (digits == 0)
		return false;
	*value = v;
	*p = s;
	return true;
}

#define SYNTAX_ERROR(typname, str, ...) \
	ereport(ERROR, \
			(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION), \
			 errmsg("invalid input syntax for type %s: \"%s\"", typname, str), \
			 errdetail(__VA_ARGS__)))

/* A value read by an input function (str) or a receive function (NULL) is invalid. */
#define INVALID_VALUE(typname, str, ...) \
	do { \
		if ((str) != NULL) \
			SYNTAX_ERROR(typname, str, __VA_ARGS__); \
		ereport(ERROR, \
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION), \
				 errmsg("invalid binary value for type %s", typname), \
				 errdetail(__VA_ARGS__))); \
	} while (0)

/* ----------------------------------------------------------------
 *		shingleset
 * ----------------------------------------------------------------
 */

/* Largest number of hashes in a shingleset. */
#define SHINGLESET_MAX_ITEMS	100000000
#define SHINGLESET_MAX_S		1000000
#define SHINGLESET_VERSION		1

typedef enum ShingleSetKind
{
	SET_EXACT = 0,				/* S(D) */
	SET_BOTTOM = 1,				/* F(D) = MIN_s(S(D)) */
	SET_MOD = 2					/* V(D) = MOD_m(S(D)) */
} ShingleSetKind;

static const char *const set_kind_names[] = {"exact", "bottom", "mod"};

typedef struct ShingleSet
{
	int32		vl_len_;
	uint8		version;
	uint8		kind;			/* ShingleSetKind */
	uint8		size;			/* shingle size */
	uint8		unit;			/* NddupUnit */
	uint32		param;			/* s (bottom), m (mod), 0 (exact) */
	uint32		nitems;			/* hashes stored */
	uint64		cardinality;	/* |S(D)|: distinct shingles of the document */
	uint64		items[FLEXIBLE_ARRAY_MEMBER];	/* sorted, distinct */
} ShingleSet;

#define SHINGLESET_HDRSZ	offsetof(ShingleSet, items)
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
	if (n > SHINGLESET_MAX_ITEMS)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("shingle set too large (%llu shingles)", (unsigned long long) n),
				 errdetail("A shingleset holds at most %d shingles.", SHINGLESET_MAX_ITEMS)));
}

/* A new shingleset of the given items (sorted, distinct). */
static ShingleSet *
make_set(ShingleSetKind kind, int size, int unit, uint32 param,
		 const uint64 *items, size_t nitems, uint64 cardinality)
{
	Size		sz;
	ShingleSet *set;

	check_set_items(nitems);
	sz = SHINGLESET_HDRSZ + nitems * sizeof(uint64);
	set = palloc0(sz);
	SET_VARSIZE(set, sz);
	set->version = SHINGLESET_VERSION;
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
	if (kind == SET_BOTTOM)
		return n < param ? n : param;
	if (kind == SET_MOD)
		return nddup_filter_mod(items, n, param);
	return n;
}

/* Check a sample parameter: s in 1..1000000, m in 1..2^31-1. */
static void
check_sample_param(ShingleSetKind kind, int32 param)
{
	if (kind == SET_BOTTOM && (param < 1 || param > SHINGLESET_MAX_S))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("sample size s %d is out of range", param),
				 errdetail("s must be between 1 and %d.", SHINGLESET_MAX_S)));
	if (kind == SET_MOD && param < 1)
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
	set = make_set(kind, size, unit, kind == SET_EXACT ? 0 : (uint32) param,
				   hashes.items, kept, n);
	nddup_hashes_free(&hashes);
	return set;
}

/* shingle_set(doc text, size int, unit text): the exact set S(D). */
Datum
shingle_set_text(PG_FUNCTION_ARGS)
{
	PG_RETURN_POINTER(set_from_text(PG_GETARG_TEXT_PP(0), PG_GETARG_INT32(1),
									PG_GETARG_TEXT_PP(2), SET_EXACT, 0));
}

/* shingle_bottom(doc text, s int, size int, unit text): F(D). */
Datum
shingle_bottom_text(PG_FUNCTION_ARGS)
{
	PG_RETURN_POINTER(set_from_text(PG_GETARG_TEXT_PP(0), PG_GETARG_INT32(2),
									PG_GETARG_TEXT_PP(3), SET_BOTTOM,
									PG_GETARG_INT32(1)));
}

/* shingle_mod(doc text, m int, size int, unit text): V(D). */
Datum
shingle_mod_text(PG_FUNCTION_ARGS)
{
	PG_RETURN_POINTER(set_from_text(PG_GETARG_TEXT_PP(0), PG_GETARG_INT32(2),
									PG_GETARG_TEXT_PP(3), SET_MOD,
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
	if (src->kind != SET_EXACT)
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
	PG_RETURN_POINTER(set_from_set(PG_GETARG_SHINGLESET(0), SET_BOTTOM,
								   PG_GETARG_INT32(1)));
}

/* shingle_mod(set shingleset, m int) */
Datum
shingle_mod_set(PG_FUNCTION_ARGS)
{
	PG_RETURN_POINTER(set_from_set(PG_GETARG_SHINGLESET(0), SET_MOD,
								   PG_GETARG_INT32(1)));
}

/* Describe a shingleset's parameters for error messages. */
static char *
set_params(const ShingleSet *s)
{
	if (s->kind == SET_EXACT)
		return psprintf("exact, size=%d, unit=%s", s->size, unit_name(s->unit));
	return psprintf("%s %s=%u, size=%d, unit=%s", set_kind_names[s->kind],
					s->kind == SET_BOTTOM ? "s" : "m", s->param, s->size,
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
	if (a->kind == SET_BOTTOM)
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
	if (a->kind == SET_BOTTOM)
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

/* Validate a set read from text or binary input. */
static void
validate_set(const ShingleSet *s, const char *str)
{
	if (s->size < 1 || s->size > NDDUP_MAX_SHINGLE_SIZE)
		INVALID_VALUE("shingleset", str, "The shingle size must be between 1 and %d.",
					 NDDUP_MAX_SHINGLE_SIZE);
	if (s->kind > SET_MOD || s->unit > NDDUP_UNIT_CHAR ||
		(s->kind == SET_EXACT && s->param != 0))
		INVALID_VALUE("shingleset", str, "Invalid kind, unit or parameter.");
	if (s->cardinality > PG_INT64_MAX)
		INVALID_VALUE("shingleset", str, "The number of shingles n must be at most %lld.",
					  (long long) PG_INT64_MAX);
	if (s->kind == SET_EXACT && s->nitems != s->cardinality)
		INVALID_VALUE("shingleset", str, "An exact set of n=%llu shingles has %u hashes.",
					 (unsigned long long) s->cardinality, s->nitems);
	if (s->kind == SET_BOTTOM &&
		(s->param < 1 || s->param > SHINGLESET_MAX_S ||
		 s->nitems != Min((uint64) s->param, s->cardinality)))
		INVALID_VALUE("shingleset", str, "A bottom-s sample holds min(s, n) hashes, s between 1 and %d.",
					 SHINGLESET_MAX_S);
	if (s->kind == SET_MOD && (s->param < 1 || s->param > PG_INT32_MAX ||
							   s->nitems > s->cardinality))
		INVALID_VALUE("shingleset", str, "A mod-m sample holds at most n hashes, m between 1 and %d.",
					 PG_INT32_MAX);
	for (uint32 i = 0; i < s->nitems; i++)
	{
		if ((i & 0xffff) == 0)
			CHECK_FOR_INTERRUPTS();
		if (i > 0 && s->items[i] <= s->items[i - 1])
			INVALID_VALUE("shingleset", str, "Hashes must be distinct and in ascending order.");
		if (s->kind == SET_MOD && s->items[i] % s->param != 0)
			INVALID_VALUE("shingleset", str, "Hash %016llx of a mod-%u sample is not 0 mod %u.",
						 (unsigned long long) s->items[i], s->param, s->param);
	}
}

/*
 * Text form: "<kind> [s=|m=N ]size=W unit=U n=N:" then the hashes as 16
 * hex digits each, separated by spaces, e.g.
 * "bottom s=2 size=3 unit=word n=6: 0a1b... 9c8d...".
 */
Datum
shingleset_in(PG_FUNCTION_ARGS)
{
	char	   *str = PG_GETARG_CSTRING(0);
	const char *p = skip_spaces(str);
	int			kind = -1;
	uint64		param = 0,
				size,
				card;
	int			unit;
	ShingleSet *set;
	size_t		cap;

	for (int i = 0; i < 3; i++)
	{
		size_t		len = strlen(set_kind_names[i]);

		if (strncmp(p, set_kind_names[i], len) == 0 && p[len] == ' ')
		{
			kind = i;
			p += len;
		}
	}
	if (kind < 0)
		SYNTAX_ERROR("shingleset", str, "It must start with \"exact\", \"bottom\" or \"mod\".");
	if (kind == SET_BOTTOM && !parse_param(&p, "s", &param))
		SYNTAX_ERROR("shingleset", str, "A bottom-s sample needs s=N.");
	if (kind == SET_MOD && !parse_param(&p, "m", &param))
		SYNTAX_ERROR("shingleset", str, "A mod-m sample needs m=N.");
	if (!parse_param(&p, "size", &size) || !parse_unit_param(&p, &unit) ||
		!parse_param(&p, "n", &card) || *p != ':')
		SYNTAX_ERROR("shingleset", str, "Expected size=W unit=word|char n=N: before the hashes.");
	p++;
	if (param > PG_INT32_MAX || size > NDDUP_MAX_SHINGLE_SIZE || card > PG_INT64_MAX)
		SYNTAX_ERROR("shingleset", str, "A parameter is out of range.");

	cap = 16;
	set = palloc0(SHINGLESET_HDRSZ + cap * sizeof(uint64));
	set->nitems = 0;
	for (;;)
	{
		uint64		h;

		if ((set->nitems & 0xffff) == 0)
			CHECK_FOR_INTERRUPTS();
		p = skip_spaces(p);
		if (*p == '\0')
			break;
		if (!parse_hex(&p, 16, &h) || (*p != ' ' && *p != '\0'))
			SYNTAX_ERROR("shingleset", str, "Hashes are 1 to 16 hex digits separated by spaces.");
		check_set_items((uint64) set->nitems + 1);
		if (set->nitems == cap)
		{
			cap *= 2;
			set = repalloc_huge(set, SHINGLESET_HDRSZ + cap * sizeof(uint64));
		}
		set->items[set->nitems++] = h;
	}
	SET_VARSIZE(set, SHINGLESET_HDRSZ + set->nitems * sizeof(uint64));
	set->version = SHINGLESET_VERSION;
	set->kind = (uint8) kind;
	set->size = (uint8) size;
	set->unit = (uint8) unit;
	set->param = (uint32) param;
	set->cardinality = card;
	validate_set(set, str);
	PG_RETURN_POINTER(set);
}

Datum
shingleset_out(PG_FUNCTION_ARGS)
{
	ShingleSet *s = PG_GETARG_SHINGLESET(0);
	StringInfoData buf;

	initStringInfo(&buf);
	appendStringInfoString(&buf, set_kind_names[s->kind]);
	if (s->kind != SET_EXACT)
		appendStringInfo(&buf, " %s=%u", s->kind == SET_BOTTOM ? "s" : "m", s->param);
	appendStringInfo(&buf, " size=%d unit=%s n=%llu:", s->size, unit_name(s->unit),
					 (unsigned long long) s->cardinality);
	for (uint32 i = 0; i < s->nitems; i++)
	{
		if ((i & 0xffff) == 0)
			CHECK_FOR_INTERRUPTS();
		appendStringInfo(&buf, " %016llx", (unsigned long long) s->items[i]);
	}
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
	StringInfoData buf;

	pq_begintypsend(&buf);
	pq_sendbyte(&buf, s->version);
	pq_sendbyte(&buf, s->kind);
	pq_sendbyte(&buf, s->size);
	pq_sendbyte(&buf, s->unit);
	pq_sendint32(&buf, s->param);
	pq_sendint32(&buf, s->nitems);
	pq_sendint64(&buf, (int64) s->cardinality);
	for (uint32 i = 0; i < s->nitems; i++)
	{
		if ((i & 0xffff) == 0)
			CHECK_FOR_INTERRUPTS();
		pq_sendint64(&buf, (int64) s->items[i]);
	}
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

Datum
shingleset_recv(PG_FUNCTION_ARGS)
{
	StringInfo	buf = nddup_recv_buffer(PG_GETARG_DATUM(0), 20, "shingleset");
	ShingleSet	hdr;
	ShingleSet *s;

	hdr.version = (uint8) pq_getmsgbyte(buf);
	hdr.kind = (uint8) pq_getmsgbyte(buf);
	hdr.size = (uint8) pq_getmsgbyte(buf);
	hdr.unit = (uint8) pq_getmsgbyte(buf);
	hdr.param = (uint32) pq_getmsgint(buf, 4);
	hdr.nitems = (uint32) pq_getmsgint(buf, 4);
	hdr.cardinality = (uint64) pq_getmsgint64(buf);
	if (hdr.version != SHINGLESET_VERSION || hdr.kind > SET_MOD ||
		hdr.unit > NDDUP_UNIT_CHAR)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("invalid binary shingleset header")));
	check_set_items(hdr.nitems);
	if ((size_t) (buf->len - buf->cursor) != (size_t) hdr.nitems * 8)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("binary shingleset has %d bytes of hashes, expected %u",
						buf->len - buf->cursor, hdr.nitems * 8)));
	s = palloc0(SHINGLESET_HDRSZ + hdr.nitems * sizeof(uint64));
	memcpy(s, &hdr, SHINGLESET_HDRSZ);
	SET_VARSIZE(s, SHINGLESET_HDRSZ + hdr.nitems * sizeof(uint64));
	for (uint32 i = 0; i < hdr.nitems; i++)
	{
		if ((i & 0xffff) == 0)
			CHECK_FOR_INTERRUPTS();
		s->items[i] = (uint64) pq_getmsgint64(buf);
	}
	validate_set(s, NULL);
	PG_RETURN_POINTER(s);
}

/* ----------------------------------------------------------------
 *		minhash
 * ----------------------------------------------------------------
 */

#define MINHASH_VERSION		1
#define MINHASH_EMPTY_DOC	0x01	/* the document had no shingles */

typedef struct MinhashSketch
{
	int32		vl_len_;
	uint8		version;
	uint8		method;			/* NddupMinhashMethod */
	uint8		bits;			/* 32, or b of a b-bit sketch (1, 2, 4, 8, 16) */
	uint8		flags;			/* MINHASH_EMPTY_DOC */
	uint8		size;			/* shingle size */
	uint8		unit;			/* NddupUnit */
	uint16		k;
	uint32		seed;
	/*
	 * bits = 32: uint32 values[k], then for oph the borrowed-bin bitmap of
	 * (k + 7) / 8 bytes; bits < 32: the packed values only.
	 */
	uint8		data[FLEXIBLE_ARRAY_MEMBER];
} MinhashSketch;

#define MINHASH_HDRSZ			offsetof(MinhashSketch, data)
#define MINHASH_VALUES(m)		((uint32 *) (m)->data)
#define MINHASH_BORROWED(m)		((m)->data + 4 * (size_t) (m)->k)
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

/* Bytes after the header of a sketch with these parameters. */
static size_t
minhash_data_size(int method, int k, int bits)
{
	if (bits < 32)
		return nddup_bbit_bytes(k, bits);
	return 4 * (size_t) k + (method == NDDUP_MINHASH_OPH ? ((size_t) k + 7) / 8 : 0);
}

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
	Size		sz = MINHASH_HDRSZ + minhash_data_size(method, k, bits);
	MinhashSketch *m = palloc0(sz);

	SET_VARSIZE(m, sz);
	m->version = MINHASH_VERSION;
	m->method = (uint8) method;
	m->bits = (uint8) bits;
	m->size = (uint8) size;
	m->unit = (uint8) unit;
	m->k = (uint16) k;
	m->seed = seed;
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
		nddup_minhash_kperm(hashes.items, hashes.len, k, seed, MINHASH_VALUES(m));
	else
	{
		nddup_minhash_oph_bins(hashes.items, hashes.len, k, seed, MINHASH_VALUES(m));
		nddup_minhash_densify(MINHASH_VALUES(m), k, seed, MINHASH_BORROWED(m));
	}
	if (hashes.len == 0)
		m->flags |= MINHASH_EMPTY_DOC;
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
		values[i] = src->bits == 32 ? MINHASH_VALUES(src)[i] :
			nddup_bbit_get(src->data, i, src->bits);
	m = new_minhash(src->method, src->k, src->seed, src->size, src->unit, bits);
	m->flags = src->flags;
	nddup_bbit_pack(values, src->k, bits, m->data);
	PG_RETURN_POINTER(m);
}

/* Describe a sketch's parameters for error messages. */
static char *
minhash_params(const MinhashSketch *m)
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
				 errdetail("The first is (%s), the second (%s).", minhash_params(a),
						   minhash_params(b)),
				 errhint("Build both with the same method, k, seed, shingle size, unit and bits.")));
}

/*
 * Resemblance estimate: the share of equal positions; for b-bit sketches
 * corrected for chance agreement, (p - 2^-b) / (1 - 2^-b), clamped to [0, 1].
 */
static double
minhash_resemblance(const MinhashSketch *a, const MinhashSketch *b)
{
	double		p;

	check_minhash_compatible(a, b);
	if ((a->flags & MINHASH_EMPTY_DOC) || (b->flags & MINHASH_EMPTY_DOC))
		return ((a->flags & b->flags) & MINHASH_EMPTY_DOC) ? 1.0 : 0.0;
	if (a->bits == 32)
		return (double) nddup_minhash_equal_count(MINHASH_VALUES(a), MINHASH_VALUES(b),
												  a->k) / a->k;
	p = (double) nddup_bbit_equal_count(a->data, b->data, a->k, a->bits) / a->k;
	p = (p - ldexp(1.0, -a->bits)) / (1.0 - ldexp(1.0, -a->bits));
	return p < 0.0 ? 0.0 : (p > 1.0 ? 1.0 : p);
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
		memcpy(values, MINHASH_VALUES(m), sizeof(uint32) * m->k);
	else
		for (int i = 0; i < m->k; i++)
			values[i] = nddup_bbit_get(m->data, i, m->bits);
	*k = m->k;
	*bits = m->bits;
	*empty_doc = (m->flags & MINHASH_EMPTY_DOC) != 0;
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
	if (b->flags & MINHASH_EMPTY_DOC)
		PG_RETURN_POINTER(a);
	if (a->flags & MINHASH_EMPTY_DOC)
	{
		memcpy(a->data, b->data, minhash_data_size(a->method, a->k, 32));
		a->flags &= ~MINHASH_EMPTY_DOC;
		PG_RETURN_POINTER(a);
	}
	nddup_minhash_union(MINHASH_VALUES(a),
						a->method == NDDUP_MINHASH_OPH ? MINHASH_BORROWED(a) : NULL,
						MINHASH_VALUES(b),
						b->method == NDDUP_MINHASH_OPH ? MINHASH_BORROWED(b) : NULL,
						a->k, a->seed, (NddupMinhashMethod) a->method);
	PG_RETURN_POINTER(a);
}

/* The k values of a sketch as 32-bit integers (palloc'd). */
static uint32 *
minhash_values(const MinhashSketch *m)
{
	uint32	   *values = palloc(sizeof(uint32) * m->k);

	for (int i = 0; i < m->k; i++)
		values[i] = m->bits == 32 ? MINHASH_VALUES(m)[i] : nddup_bbit_get(m->data, i, m->bits);
	return values;
}

/* minhash::bigint[]: the k values ({} for a document without shingles) */
Datum
minhash_to_array(PG_FUNCTION_ARGS)
{
	MinhashSketch *m = PG_GETARG_MINHASH(0);
	uint32	   *values;
	uint64	   *wide;

	if (m->flags & MINHASH_EMPTY_DOC)
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
	if (m->flags & MINHASH_EMPTY_DOC)
		PG_RETURN_ARRAYTYPE_P(construct_empty_array(INT8OID));
	nddup_super_shingles(MINHASH_VALUES(m), groups, group_size, ss);
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

/* Validate a sketch read from text or binary input. */
static void
validate_minhash(const MinhashSketch *m, const char *str)
{
	if (m->method > NDDUP_MINHASH_OPH || m->unit > NDDUP_UNIT_CHAR ||
		m->size < 1 || m->size > NDDUP_MAX_SHINGLE_SIZE ||
		m->k < 1 || m->k > NDDUP_MINHASH_MAX_K ||
		(m->bits != 1 && m->bits != 2 && m->bits != 4 && m->bits != 8 &&
		 m->bits != 16 && m->bits != 32) ||
		(m->flags & ~MINHASH_EMPTY_DOC) != 0)
		INVALID_VALUE("minhash_sketch", str, "A parameter is out of range (k must be between 1 and %d).",
					 NDDUP_MINHASH_MAX_K);
	if (m->bits == 32)
	{
		for (int i = 0; i < m->k; i++)
		{
			bool		empty = MINHASH_VALUES(m)[i] == NDDUP_MINHASH_EMPTY;

			if (empty != ((m->flags & MINHASH_EMPTY_DOC) != 0))
				INVALID_VALUE("minhash_sketch", str, "Value ffffffff stands for \"empty\" only.");
		}
		if (m->method == NDDUP_MINHASH_OPH)
		{
			int			borrowed = 0;

			for (int i = 0; i < m->k; i++)
				borrowed += (MINHASH_BORROWED(m)[i >> 3] >> (i & 7)) & 1;
			if (!(m->flags & MINHASH_EMPTY_DOC) && borrowed == m->k)
				INVALID_VALUE("minhash_sketch", str, "At least one bin must not be borrowed.");
			if ((m->flags & MINHASH_EMPTY_DOC) && borrowed != 0)
				INVALID_VALUE("minhash_sketch", str, "A sketch of a document without shingles has no borrowed bins.");
			if ((m->k & 7) != 0 && (MINHASH_BORROWED(m)[m->k >> 3] >> (m->k & 7)) != 0)
				INVALID_VALUE("minhash_sketch", str, "The unused bits of the borrowed-bin bitmap must be zero.");
		}
	}
	else
	{
		size_t		nbits = (size_t) m->k * m->bits;

		if ((nbits & 7) != 0 && (m->data[nbits >> 3] >> (nbits & 7)) != 0)
			INVALID_VALUE("minhash_sketch", str, "The unused bits of a %d-bit sketch must be zero.", m->bits);
		if (m->flags & MINHASH_EMPTY_DOC)
			for (int i = 0; i < m->k; i++)
				if (nddup_bbit_get(m->data, i, m->bits) != (NDDUP_MINHASH_EMPTY >> (32 - m->bits)))
					INVALID_VALUE("minhash_sketch", str, "A %d-bit sketch of a document without shingles has all bits set.",
								  m->bits);
	}
}

/*
 * Text form: "<method> k=K seed=S size=W unit=U bits=B:" then the k values
 * in hex (8 digits for 32 bits), a "*" before a one-permutation bin that was
 * filled by densification; or ": empty" for a document without shingles.
 */
Datum
minhash_out(PG_FUNCTION_ARGS)
{
	MinhashSketch *m = PG_GETARG_MINHASH(0);
	StringInfoData buf;
	int			digits = m->bits < 4 ? 1 : m->bits / 4;

	initStringInfo(&buf);
	appendStringInfo(&buf, "%s k=%d seed=%u size=%d unit=%s bits=%d:",
					 method_names[m->method], m->k, m->seed, m->size,
					 unit_name(m->unit), m->bits);
	if (m->flags & MINHASH_EMPTY_DOC)
		appendStringInfoString(&buf, " empty");
	else
		for (int i = 0; i < m->k; i++)
		{
			bool		borrowed = m->bits == 32 && m->method == NDDUP_MINHASH_OPH &&
				((MINHASH_BORROWED(m)[i >> 3] >> (i & 7)) & 1);
			uint32		v = m->bits == 32 ? MINHASH_VALUES(m)[i] :
				nddup_bbit_get(m->data, i, m->bits);

			appendStringInfo(&buf, " %s%0*x", borrowed ? "*" : "", digits, v);
		}
	PG_RETURN_CSTRING(buf.data);
}

Datum
minhash_in(PG_FUNCTION_ARGS)
{
	char	   *str = PG_GETARG_CSTRING(0);
	const char *p = skip_spaces(str);
	int			method = -1;
	uint64		k,
				seed,
				size,
				bits;
	int			unit;
	MinhashSketch *m;
	uint32	   *values;
	int			digits;

	for (int i = 0; i < 2; i++)
	{
		size_t		len = strlen(method_names[i]);

		if (strncmp(p, method_names[i], len) == 0 && p[len] == ' ')
		{
			method = i;
			p += len;
		}
	}
	if (method < 0)
		SYNTAX_ERROR("minhash_sketch", str, "It must start with \"kperm\" or \"oph\".");
	if (!parse_param(&p, "k", &k) || !parse_param(&p, "seed", &seed) ||
		!parse_param(&p, "size", &size) || !parse_unit_param(&p, &unit) ||
		!parse_param(&p, "bits", &bits) || *p != ':')
		SYNTAX_ERROR("minhash_sketch", str, "Expected k=K seed=S size=W unit=word|char bits=B: before the values.");
	p++;
	if (k < 1 || k > NDDUP_MINHASH_MAX_K || seed > PG_UINT32_MAX ||
		size < 1 || size > NDDUP_MAX_SHINGLE_SIZE ||
		(bits != 1 && bits != 2 && bits != 4 && bits != 8 && bits != 16 && bits != 32))
		SYNTAX_ERROR("minhash_sketch", str, "k must be between 1 and %d, size between 1 and %d, bits 1, 2, 4, 8, 16 or 32.",
					 NDDUP_MINHASH_MAX_K, NDDUP_MAX_SHINGLE_SIZE);
	m = new_minhash(method, (int) k, (uint32) seed, (int) size, unit, (int) bits);
	values = palloc(sizeof(uint32) * k);
	digits = bits < 4 ? 1 : (int) bits / 4;
	p = skip_spaces(p);
	if (strcmp(p, "empty") == 0)
	{
		m->flags |= MINHASH_EMPTY_DOC;
		for (uint64 i = 0; i < k; i++)
			values[i] = NDDUP_MINHASH_EMPTY;
		p += 5;
	}
	else
		for (uint64 i = 0; i < k; i++)
		{
			uint64		v;

			p = skip_spaces(p);
			if (*p == '*')
			{
				if (method != NDDUP_MINHASH_OPH || bits != 32)
					SYNTAX_ERROR("minhash_sketch", str, "Only 32-bit one-permutation sketches have borrowed bins (*).");
				MINHASH_BORROWED(m)[i >> 3] |= (uint8) (1u << (i & 7));
				p++;
			}
			if (!parse_hex(&p, digits, &v) || (*p != ' ' && *p != '\0') ||
				v >= ((uint64) 1 << bits))
				SYNTAX_ERROR("minhash_sketch", str, "Expected %d values of %d hex digits.",
							 (int) k, digits);
			values[i] = (uint32) v;
		}
	if (*skip_spaces(p) != '\0')
		SYNTAX_ERROR("minhash_sketch", str, "Expected %d values.", (int) k);
	if (bits == 32)
		memcpy(MINHASH_VALUES(m), values, sizeof(uint32) * k);
	else
		nddup_bbit_pack(values, (int) k, (int) bits, m->data);
	validate_minhash(m, str);
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
	StringInfoData buf;

	pq_begintypsend(&buf);
	pq_sendbyte(&buf, m->version);
	pq_sendbyte(&buf, m->method);
	pq_sendbyte(&buf, m->bits);
	pq_sendbyte(&buf, m->flags);
	pq_sendbyte(&buf, m->size);
	pq_sendbyte(&buf, m->unit);
	pq_sendint16(&buf, m->k);
	pq_sendint32(&buf, m->seed);
	if (m->bits == 32)
	{
		for (int i = 0; i < m->k; i++)
			pq_sendint32(&buf, MINHASH_VALUES(m)[i]);
		if (m->method == NDDUP_MINHASH_OPH)
			pq_sendbytes(&buf, (const char *) MINHASH_BORROWED(m), (m->k + 7) / 8);
	}
	else
		pq_sendbytes(&buf, (const char *) m->data, (int) nddup_bbit_bytes(m->k, m->bits));
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

Datum
minhash_recv(PG_FUNCTION_ARGS)
{
	StringInfo	buf = nddup_recv_buffer(PG_GETARG_DATUM(0), 12, "minhash_sketch");
	int			version = pq_getmsgbyte(buf);
	int			method = pq_getmsgbyte(buf);
	int			bits = pq_getmsgbyte(buf);
	int			flags = pq_getmsgbyte(buf);
	int			size = pq_getmsgbyte(buf);
	int			unit = pq_getmsgbyte(buf);
	int			k = pq_getmsgint(buf, 2);
	uint32		seed = (uint32) pq_getmsgint(buf, 4);
	MinhashSketch *m;

	if (version != MINHASH_VERSION || method > NDDUP_MINHASH_OPH || k < 1 ||
		k > NDDUP_MINHASH_MAX_K ||
		(bits != 1 && bits != 2 && bits != 4 && bits != 8 && bits != 16 && bits != 32))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("invalid binary minhash_sketch header")));
	if ((size_t) (buf->len - buf->cursor) != minhash_data_size(method, k, bits))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("binary minhash_sketch has %d data bytes, expected %zu",
						buf->len - buf->cursor, minhash_data_size(method, k, bits))));
	m = new_minhash(method, k, seed, size, unit, bits);
	m->flags = (uint8) flags;
	if (bits == 32)
	{
		for (int i = 0; i < k; i++)
			MINHASH_VALUES(m)[i] = (uint32) pq_getmsgint(buf, 4);
		if (method == NDDUP_MINHASH_OPH)
			pq_copymsgbytes(buf, (char *) MINHASH_BORROWED(m), (k + 7) / 8);
	}
	else
		pq_copymsgbytes(buf, (char *) m->data, (int) nddup_bbit_bytes(k, bits));
	validate_minhash(m, NULL);
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
