/*-------------------------------------------------------------------------
 *
 * imatch.c
 *	  I-Match (Chowdhury et al. 2002) and its multi-lexicon variant (Kolcz
 *	  et al. 2004): the imatch_lexicon type, the imatch_lexicon aggregate
 *	  that builds one from a collection, and the imatch signatures.
 *
 * A term is a token of the normalized text (docs/text-pipeline.md), hashed
 * with nddup_hash_bytes.  The aggregate counts each term's document
 * frequency; its final function ranks the terms by document frequency and
 * keeps the middle band, cutting the given shares of the ranked terms at
 * each end.  A signature is the XXH3-128 of the document's distinct kept
 * term hashes in ascending order (8 little-endian bytes each), as a uuid.
 *
 * The aggregate's state is the imatch_lexicon type itself in its
 * "document frequency" form (not internal), so partial aggregation works in
 * parallel plans and can be pushed down by Citus.  During aggregation the
 * state is an expanded object holding a hash table; it is flattened (sorted
 * hashes and counts) only when PostgreSQL needs the value as a datum.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "nddup.h"

#include "catalog/pg_type.h"
#include "common/shortest_dec.h"
#include "libpq/pqformat.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/expandeddatum.h"
#include "utils/memutils.h"
#include "utils/uuid.h"

/* Largest number of terms in a document-frequency table or a lexicon. */
#define IMATCH_MAX_TERMS	10000000
#define IMATCH_VERSION		1
#define IMATCH_MAX_LEXICONS	64

typedef enum LexiconKind
{
	LEX_DF = 0,					/* aggregation state: terms and their DF */
	LEX_FINAL = 1				/* the kept terms */
} LexiconKind;

typedef struct Lexicon
{
	int32		vl_len_;
	uint8		version;
	uint8		kind;			/* LexiconKind */
	uint16		padding;		/* zero */
	float4		drop_frequent;	/* share of the most frequent terms cut */
	float4		drop_rare;		/* share of the rarest terms cut */
	int64		ndocs;			/* documents counted */
	uint32		nterms;
	uint32		padding2;		/* zero */
	uint64		hashes[FLEXIBLE_ARRAY_MEMBER];	/* sorted; then int64 df[] for LEX_DF */
} Lexicon;

#define LEXICON_HDRSZ		offsetof(Lexicon, hashes)
#define LEXICON_DF(l)		((int64 *) ((l)->hashes + (l)->nterms))
#define LEXICON_SIZE(kind, n) \
	(LEXICON_HDRSZ + (Size) (n) * ((kind) == LEX_DF ? 16 : 8))

PG_FUNCTION_INFO_V1(imatch_lexicon_in);
PG_FUNCTION_INFO_V1(imatch_lexicon_out);
PG_FUNCTION_INFO_V1(imatch_lexicon_recv);
PG_FUNCTION_INFO_V1(imatch_lexicon_send);
PG_FUNCTION_INFO_V1(imatch_df_transfn);
PG_FUNCTION_INFO_V1(imatch_df_combinefn);
PG_FUNCTION_INFO_V1(imatch_lexicon_finalfn);
PG_FUNCTION_INFO_V1(imatch_lexicon_size);
PG_FUNCTION_INFO_V1(imatch_text);
PG_FUNCTION_INFO_V1(imatch_multi_text);

/* Raise the size-limit error. */
static void
check_terms(uint64 n)
{
	if (n > IMATCH_MAX_TERMS)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("I-Match lexicon too large (%llu terms)", (unsigned long long) n),
				 errdetail("A lexicon or document-frequency table holds at most %d terms.",
						   IMATCH_MAX_TERMS)));
}

/* Raise 22023 unless both cut shares are in [0, 1) and sum below 1. */
static void
check_cuts(double drop_frequent, double drop_rare)
{
	if (isnan(drop_frequent) || isnan(drop_rare) || drop_frequent < 0 ||
		drop_rare < 0 || drop_frequent + drop_rare >= 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid I-Match cut shares %g and %g", drop_frequent, drop_rare),
				 errdetail("Each share must be at least 0 and together below 1.")));
}

/* ----------------------------------------------------------------
 *		Expanded document-frequency table (the aggregate state)
 * ----------------------------------------------------------------
 */

typedef struct ExpandedDf
{
	ExpandedObjectHeader hdr;
	float4		drop_frequent;
	float4		drop_rare;
	bool		cuts_set;		/* set by a 3-argument call */
	int64		ndocs;
	/* open addressing, linear probing; key 0 is stored apart */
	uint64	   *keys;
	int64	   *counts;
	size_t		cap;			/* power of 2 */
	size_t		n;				/* used slots */
	int64		zero_count;		/* DF of the term whose hash is 0 */
} ExpandedDf;

static Size df_get_flat_size(ExpandedObjectHeader *eohptr);
static void df_flatten_into(ExpandedObjectHeader *eohptr, void *result, Size allocated_size);

static const ExpandedObjectMethods df_methods = {df_get_flat_size, df_flatten_into};

/* Slot of key in the table (key != 0). */
static inline size_t
df_slot(const ExpandedDf *df, uint64 key)
{
	size_t		mask = df->cap - 1;
	size_t		i = (size_t) (key * UINT64CONST(0x9e3779b97f4a7c15) >> 20) & mask;

	while (df->keys[i] != 0 && df->keys[i] != key)
		i = (i + 1) & mask;
	return i;
}

/* Add count to the DF of a term. */
static void
df_add(ExpandedDf *df, uint64 key, int64 count)
{
	size_t		i;

	if (key == 0)
	{
		if (df->zero_count == 0)
			check_terms(df->n + 1 + 1);
		df->zero_count += count;
		return;
	}
	if ((df->n + 1) * 4 > df->cap * 3)
	{
		uint64	   *old_keys = df->keys;
		int64	   *old_counts = df->counts;
		size_t		old_cap = df->cap;

		df->cap *= 2;
		df->keys = MemoryContextAllocExtended(df->hdr.eoh_context, df->cap * sizeof(uint64),
											  MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
		df->counts = MemoryContextAllocExtended(df->hdr.eoh_context, df->cap * sizeof(int64),
												MCXT_ALLOC_HUGE);
		for (size_t j = 0; j < old_cap; j++)
			if (old_keys[j] != 0)
			{
				size_t		s = df_slot(df, old_keys[j]);

				df->keys[s] = old_keys[j];
				df->counts[s] = old_counts[j];
			}
		pfree(old_keys);
		pfree(old_counts);
	}
	i = df_slot(df, key);
	if (df->keys[i] == 0)
	{
		check_terms(df->n + 1 + (df->zero_count > 0));
		df->keys[i] = key;
		df->counts[i] = 0;
		df->n++;
	}
	df->counts[i] += count;
}

/* A new, empty expanded table in a child context of parent. */
static ExpandedDf *
df_new(MemoryContext parent)
{
	MemoryContext cxt = AllocSetContextCreate(parent, "imatch df",
											  ALLOCSET_DEFAULT_SIZES);
	ExpandedDf *df = MemoryContextAllocZero(cxt, sizeof(ExpandedDf));

	EOH_init_header(&df->hdr, &df_methods, cxt);
	df->cap = 1024;
	df->keys = MemoryContextAllocZero(cxt, df->cap * sizeof(uint64));
	df->counts = MemoryContextAlloc(cxt, df->cap * sizeof(int64));
	return df;
}

/* Add a flat LEX_DF value into an expanded table. */
static void
df_add_flat(ExpandedDf *df, const Lexicon *flat)
{
	if (flat->kind != LEX_DF)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a finished I-Match lexicon is not an aggregation state")));
	for (uint32 i = 0; i < flat->nterms; i++)
	{
		if ((i & 0xffff) == 0)
			CHECK_FOR_INTERRUPTS();
		df_add(df, flat->hashes[i], LEXICON_DF(flat)[i]);
	}
	df->ndocs += flat->ndocs;
	if (flat->drop_frequent >= 0)
	{
		df->drop_frequent = flat->drop_frequent;
		df->drop_rare = flat->drop_rare;
		df->cuts_set = true;
	}
}

/* The sorted term hashes of an expanded table (palloc'd). */
static uint64 *
df_sorted_keys(const ExpandedDf *df, size_t *n)
{
	size_t		total = df->n + (df->zero_count > 0);
	uint64	   *keys = palloc_extended((total + 1) * sizeof(uint64), MCXT_ALLOC_HUGE);
	size_t		m = 0;

	if (df->zero_count > 0)
		keys[m++] = 0;
	for (size_t i = 0; i < df->cap; i++)
		if (df->keys[i] != 0)
			keys[m++] = df->keys[i];
	(void) nddup_sort_unique(keys, m);	/* distinct: an interruptible sort */
	*n = m;
	return keys;
}

/* DF of a term present in the table. */
static int64
df_count(const ExpandedDf *df, uint64 key)
{
	return key == 0 ? df->zero_count : df->counts[df_slot(df, key)];
}

static Size
df_get_flat_size(ExpandedObjectHeader *eohptr)
{
	ExpandedDf *df = (ExpandedDf *) eohptr;

	return LEXICON_SIZE(LEX_DF, df->n + (df->zero_count > 0));
}

static void
df_flatten_into(ExpandedObjectHeader *eohptr, void *result, Size allocated_size)
{
	ExpandedDf *df = (ExpandedDf *) eohptr;
	Lexicon    *flat = (Lexicon *) result;
	size_t		n;
	uint64	   *keys = df_sorted_keys(df, &n);

	Assert(allocated_size == LEXICON_SIZE(LEX_DF, n));
	memset(flat, 0, allocated_size);
	SET_VARSIZE(flat, allocated_size);
	flat->version = IMATCH_VERSION;
	flat->kind = LEX_DF;
	flat->drop_frequent = df->cuts_set ? df->drop_frequent : -1;
	flat->drop_rare = df->cuts_set ? df->drop_rare : -1;
	flat->ndocs = df->ndocs;
	flat->nterms = (uint32) n;
	for (size_t i = 0; i < n; i++)
	{
		flat->hashes[i] = keys[i];
		LEXICON_DF(flat)[i] = df_count(df, keys[i]);
	}
	pfree(keys);
}

/*
 * The aggregate state as a read-write expanded table: the one passed in
 * (when it is ours), or a new one in the aggregate context (filled from a
 * flat value if one is passed).
 */
static ExpandedDf *
df_state(FunctionCallInfo fcinfo)
{
	MemoryContext aggcontext;
	ExpandedDf *df;

	if (!AggCheckCallContext(fcinfo, &aggcontext))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("imatch_lexicon_agg called in non-aggregate context")));
	if (!PG_ARGISNULL(0))
	{
		Datum		d = PG_GETARG_DATUM(0);

		if (VARATT_IS_EXTERNAL_EXPANDED_RW(DatumGetPointer(d)) &&
			DatumGetEOHP(d)->eoh_methods == &df_methods)
			return (ExpandedDf *) DatumGetEOHP(d);
		df = df_new(aggcontext);
		df_add_flat(df, (Lexicon *) PG_DETOAST_DATUM(d));
		return df;
	}
	return df_new(aggcontext);
}

/* The distinct term hashes of a document, sorted; returns their number. */
static size_t
doc_terms(text *doc, NddupHashes *terms)
{
	size_t		len;
	char	   *utf8 = nddup_text_to_utf8(doc, &len);

	nddup_text_shingles(utf8, len, 1, NDDUP_UNIT_WORD, nddup_hashes_append_distinct,
						terms);
	CHECK_FOR_INTERRUPTS();
	return terms->len = nddup_sort_unique(terms->items, terms->len);
}

/*
 * Transition of imatch_lexicon(doc [, drop_frequent, drop_rare]): count
 * each distinct term of the document once.  NULL documents are skipped.
 */
Datum
imatch_df_transfn(PG_FUNCTION_ARGS)
{
	ExpandedDf *df = df_state(fcinfo);

	if (PG_NARGS() >= 4 && !PG_ARGISNULL(2) && !PG_ARGISNULL(3))
	{
		double		f = PG_GETARG_FLOAT8(2);
		double		r = PG_GETARG_FLOAT8(3);

		check_cuts(f, r);
		df->drop_frequent = (float4) f;
		df->drop_rare = (float4) r;
		df->cuts_set = true;
	}
	if (!PG_ARGISNULL(1))
	{
		NddupHashes terms = {0};
		size_t		n = doc_terms(PG_GETARG_TEXT_PP(1), &terms);

		for (size_t i = 0; i < n; i++)
		{
			if ((i & 0xffff) == 0)
				CHECK_FOR_INTERRUPTS();
			df_add(df, terms.items[i], 1);
		}
		nddup_hashes_free(&terms);
		df->ndocs++;
	}
	PG_RETURN_DATUM(EOHPGetRWDatum(&df->hdr));
}

/* Combine: add the counts of the second state to the first. */
Datum
imatch_df_combinefn(PG_FUNCTION_ARGS)
{
	ExpandedDf *df;
	Datum		b;

	if (PG_ARGISNULL(1))
	{
		if (PG_ARGISNULL(0))
			PG_RETURN_NULL();
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	}
	df = df_state(fcinfo);
	b = PG_GETARG_DATUM(1);
	if (VARATT_IS_EXTERNAL_EXPANDED(DatumGetPointer(b)) &&
		DatumGetEOHP(b)->eoh_methods == &df_methods)
	{
		ExpandedDf *other = (ExpandedDf *) DatumGetEOHP(b);

		for (size_t i = 0; i < other->cap; i++)
		{
			if ((i & 0xffff) == 0)
				CHECK_FOR_INTERRUPTS();
			if (other->keys[i] != 0)
				df_add(df, other->keys[i], other->counts[i]);
		}
		if (other->zero_count > 0)
			df_add(df, 0, other->zero_count);
		df->ndocs += other->ndocs;
		if (other->cuts_set)
		{
			df->drop_frequent = other->drop_frequent;
			df->drop_rare = other->drop_rare;
			df->cuts_set = true;
		}
	}
	else
		df_add_flat(df, (Lexicon *) PG_DETOAST_DATUM(b));
	PG_RETURN_DATUM(EOHPGetRWDatum(&df->hdr));
}

/* A term and its DF, for ranking. */
typedef struct RankedTerm
{
	uint64		hash;
	int64		df;
} RankedTerm;

/* Most frequent first; ties by hash, so the ranking is deterministic. */
static int
cmp_ranked(const void *a, const void *b, void *arg)
{
	const RankedTerm *x = a;
	const RankedTerm *y = b;

	if (x->df != y->df)
		return x->df > y->df ? -1 : 1;
	return x->hash < y->hash ? -1 : x->hash > y->hash;
}

/* Default cut shares (docs/sketches.md). */
#define IMATCH_DEFAULT_DROP_FREQUENT	0.1
#define IMATCH_DEFAULT_DROP_RARE		0.1

/*
 * Final: rank the terms by DF, cut floor(f n) terms at the frequent end and
 * floor(r n) at the rare end, keep the rest.  NULL if no document counted.
 */
Datum
imatch_lexicon_finalfn(PG_FUNCTION_ARGS)
{
	RankedTerm *ranked;
	size_t		n = 0;
	int64		ndocs;
	double		f = IMATCH_DEFAULT_DROP_FREQUENT;
	double		r = IMATCH_DEFAULT_DROP_RARE;
	size_t		cut_f,
				cut_r,
				kept;
	Lexicon    *lex;
	Datum		d;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	d = PG_GETARG_DATUM(0);
	if (VARATT_IS_EXTERNAL_EXPANDED(DatumGetPointer(d)) &&
		DatumGetEOHP(d)->eoh_methods == &df_methods)
	{
		ExpandedDf *df = (ExpandedDf *) DatumGetEOHP(d);
		uint64	   *keys = df_sorted_keys(df, &n);

		ranked = palloc_extended((n + 1) * sizeof(RankedTerm), MCXT_ALLOC_HUGE);
		for (size_t i = 0; i < n; i++)
		{
			ranked[i].hash = keys[i];
			ranked[i].df = df_count(df, keys[i]);
		}
		ndocs = df->ndocs;
		if (df->cuts_set)
		{
			f = df->drop_frequent;
			r = df->drop_rare;
		}
	}
	else
	{
		Lexicon    *flat = (Lexicon *) PG_DETOAST_DATUM(d);

		if (flat->kind != LEX_DF)
			PG_RETURN_POINTER(flat);
		n = flat->nterms;
		ranked = palloc_extended((n + 1) * sizeof(RankedTerm), MCXT_ALLOC_HUGE);
		for (size_t i = 0; i < n; i++)
		{
			ranked[i].hash = flat->hashes[i];
			ranked[i].df = LEXICON_DF(flat)[i];
		}
		ndocs = flat->ndocs;
		if (flat->drop_frequent >= 0)
		{
			f = flat->drop_frequent;
			r = flat->drop_rare;
		}
	}
	if (ndocs == 0)
		PG_RETURN_NULL();
	qsort_interruptible(ranked, n, sizeof(RankedTerm), cmp_ranked, NULL);
	cut_f = (size_t) floor(f * (double) n);
	cut_r = (size_t) floor(r * (double) n);
	kept = n - Min(n, cut_f + cut_r);
	check_terms(kept);
	lex = palloc0(LEXICON_SIZE(LEX_FINAL, kept));
	SET_VARSIZE(lex, LEXICON_SIZE(LEX_FINAL, kept));
	lex->version = IMATCH_VERSION;
	lex->kind = LEX_FINAL;
	lex->drop_frequent = (float4) f;
	lex->drop_rare = (float4) r;
	lex->ndocs = ndocs;
	lex->nterms = (uint32) kept;
	for (size_t i = 0; i < kept; i++)
		lex->hashes[i] = ranked[cut_f + i].hash;
	(void) nddup_sort_unique(lex->hashes, kept);	/* distinct: sorts only */
	PG_RETURN_POINTER(lex);
}

/* imatch_lexicon_size(lexicon): the number of terms */
Datum
imatch_lexicon_size(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT64(((Lexicon *) PG_DETOAST_DATUM(PG_GETARG_DATUM(0)))->nterms);
}

/* ----------------------------------------------------------------
 *		Signatures
 * ----------------------------------------------------------------
 */

/* A finished lexicon argument, or an error. */
static Lexicon *
get_final_lexicon(FunctionCallInfo fcinfo, int argno)
{
	Lexicon    *lex = (Lexicon *) PG_DETOAST_DATUM(PG_GETARG_DATUM(argno));

	if (lex->kind != LEX_FINAL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("I-Match lexicon is an unfinished aggregation state"),
				 errhint("Use the result of the imatch_lexicon aggregate.")));
	return lex;
}

/* The document's distinct terms that are in the lexicon, in place. */
static size_t
kept_terms(text *doc, const Lexicon *lex, NddupHashes *terms)
{
	size_t		n = doc_terms(doc, terms);
	size_t		kept = 0;

	for (size_t i = 0; i < n; i++)
	{
		if ((i & 0xffff) == 0)
			CHECK_FOR_INTERRUPTS();
		if (nddup_sorted_contains(lex->hashes, lex->nterms, terms->items[i]))
			terms->items[kept++] = terms->items[i];
	}
	return kept;
}

/* XXH3-128 of n sorted term hashes (8 little-endian bytes each) as a uuid. */
static pg_uuid_t *
signature(const uint64 *terms, size_t n, uint64 seed)
{
	uint8	   *bytes = palloc(n * 8 + 1);
	XXH128_hash_t h;
	XXH128_canonical_t canon;
	pg_uuid_t  *uuid = palloc(sizeof(pg_uuid_t));

	for (size_t i = 0; i < n; i++)
		for (int b = 0; b < 8; b++)
			bytes[8 * i + b] = (uint8) (terms[i] >> (8 * b));
	h = XXH3_128bits_withSeed(bytes, n * 8, seed);
	XXH128_canonicalFromHash(&canon, h);
	memcpy(uuid->data, canon.digest, UUID_LEN);
	pfree(bytes);
	return uuid;
}

/*
 * imatch(doc text, lexicon imatch_lexicon): the I-Match signature, or NULL
 * when the document has no lexicon term.
 */
Datum
imatch_text(PG_FUNCTION_ARGS)
{
	text	   *doc = PG_GETARG_TEXT_PP(0);
	Lexicon    *lex = get_final_lexicon(fcinfo, 1);
	NddupHashes terms = {0};
	size_t		kept = kept_terms(doc, lex, &terms);
	pg_uuid_t  *sig;

	if (kept == 0)
		PG_RETURN_NULL();
	sig = signature(terms.items, kept, NDDUP_HASH_SEED);
	nddup_hashes_free(&terms);
	PG_RETURN_UUID_P(sig);
}

/*
 * imatch(doc text, lexicon, n int, drop float8): n signatures, signature j
 * over the sub-lexicon that drops each term t with probability drop (when
 * XXH3-64 of t's hash with seed NDDUP_HASH_SEED + j + 1 falls below drop *
 * 2^64), hashed with that seed.  A NULL element when no term is left; NULL
 * when the document has no lexicon term.
 */
Datum
imatch_multi_text(PG_FUNCTION_ARGS)
{
	text	   *doc = PG_GETARG_TEXT_PP(0);
	Lexicon    *lex = get_final_lexicon(fcinfo, 1);
	int32		nlex = PG_GETARG_INT32(2);
	double		drop = PG_GETARG_FLOAT8(3);
	NddupHashes terms = {0};
	size_t		kept;
	uint64	   *sub;
	Datum	   *elems;
	bool	   *nulls;
	int			dims[1];
	int			lbs[1] = {1};
	uint64		threshold;

	if (nlex < 1 || nlex > IMATCH_MAX_LEXICONS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("number of I-Match lexicons %d is out of range", nlex),
				 errdetail("It must be between 1 and %d.", IMATCH_MAX_LEXICONS)));
	if (isnan(drop) || drop < 0 || drop >= 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("I-Match drop share %g is out of range", drop),
				 errdetail("It must be at least 0 and below 1.")));
	kept = kept_terms(doc, lex, &terms);
	if (kept == 0)
		PG_RETURN_NULL();
	threshold = (uint64) ldexp(drop, 64);
	sub = palloc(kept * sizeof(uint64));
	elems = palloc(nlex * sizeof(Datum));
	nulls = palloc(nlex * sizeof(bool));
	for (int j = 0; j < nlex; j++)
	{
		uint64		seed = NDDUP_HASH_SEED + (uint64) j + 1;
		size_t		m = 0;

		CHECK_FOR_INTERRUPTS();
		for (size_t i = 0; i < kept; i++)
		{
			uint64		t = terms.items[i];

			if (XXH3_64bits_withSeed(&t, sizeof(t), seed) >= threshold)
				sub[m++] = t;
		}
		nulls[j] = (m == 0);
		elems[j] = m == 0 ? (Datum) 0 : UUIDPGetDatum(signature(sub, m, seed));
	}
	dims[0] = nlex;
	PG_RETURN_ARRAYTYPE_P(construct_md_array(elems, nulls, 1, dims, lbs, UUIDOID,
											 UUID_LEN, false, TYPALIGN_CHAR));
}

/* ----------------------------------------------------------------
 *		I/O
 * ----------------------------------------------------------------
 */

/*
 * Raise the error of an invalid lexicon read by imatch_lexicon_in (the
 * text str, 22P02) or imatch_lexicon_recv (str NULL, 22P03).
 */
static void
invalid_lexicon(const char *str, const char *detail)
{
	if (str != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid input syntax for type imatch_lexicon: \"%s\"", str),
				 errdetail("%s", detail)));
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
			 errmsg("invalid binary value for type imatch_lexicon"),
			 errdetail("%s", detail)));
}

/*
 * Validate a lexicon read from text (str) or binary (NULL) input.  The cut
 * shares are those of check_cuts, stored as float4 (their sum may round up
 * to 1), or -1 and -1 in an aggregation state whose shares were not given.
 */
static void
validate_lexicon(const Lexicon *l, const char *str)
{
	double		f = l->drop_frequent;
	double		r = l->drop_rare;

	if (!(l->kind == LEX_DF && f == -1 && r == -1) &&
		!(f >= 0 && r >= 0 && f + r <= 1))
		invalid_lexicon(str, "The cut shares must be at least 0 and together at most 1.");
	for (uint32 i = 1; i < l->nterms; i++)
	{
		if ((i & 0xffff) == 0)
			CHECK_FOR_INTERRUPTS();
		if (l->hashes[i] <= l->hashes[i - 1])
			invalid_lexicon(str, "Term hashes must be distinct and ascending.");
	}
	if (l->kind == LEX_DF)
		for (uint32 i = 0; i < l->nterms; i++)
			if (LEXICON_DF(l)[i] < 1 || LEXICON_DF(l)[i] > l->ndocs)
				invalid_lexicon(str, "A document frequency is out of range (1 to ndocs).");
}

/* Append " name=<float4 in its shortest exact form>" to buf. */
static void
append_share(StringInfo buf, const char *name, float4 value)
{
	char		digits[32];

	float_to_shortest_decimal_buf(value, digits);
	appendStringInfo(buf, " %s=%s", name, digits);
}

/*
 * Text form: "lexicon ndocs=N drop_frequent=F drop_rare=R: h h ..." (16
 * hex digits each) or, for an aggregation state, "df ndocs=N ...: h:df ...".
 */
Datum
imatch_lexicon_out(PG_FUNCTION_ARGS)
{
	Lexicon    *l = (Lexicon *) PG_DETOAST_DATUM(PG_GETARG_DATUM(0));
	StringInfoData buf;

	initStringInfo(&buf);
	appendStringInfo(&buf, "%s ndocs=" INT64_FORMAT, l->kind == LEX_DF ? "df" : "lexicon",
					 l->ndocs);
	append_share(&buf, "drop_frequent", l->drop_frequent);
	append_share(&buf, "drop_rare", l->drop_rare);
	appendStringInfoChar(&buf, ':');
	for (uint32 i = 0; i < l->nterms; i++)
	{
		if ((i & 0xffff) == 0)
			CHECK_FOR_INTERRUPTS();
		appendStringInfo(&buf, " %016llx", (unsigned long long) l->hashes[i]);
		if (l->kind == LEX_DF)
			appendStringInfo(&buf, ":" INT64_FORMAT, LEXICON_DF(l)[i]);
	}
	PG_RETURN_CSTRING(buf.data);
}

/*
 * Parse " name=" and a number at *p, advancing *p past it; false if they
 * are not there.  An integer is a decimal int64 of digits only; a share is
 * a number in [-1, 1] (strtod syntax) starting with a digit or "-" and a
 * digit.
 */
static bool
parse_header_number(char **p, const char *name, int64 *integer, double *share)
{
	size_t		len = strlen(name);
	char	   *s = *p;
	char	   *end;

	if (s[0] != ' ' || strncmp(s + 1, name, len) != 0 || s[len + 1] != '=')
		return false;
	s += len + 2;
	errno = 0;
	if (integer != NULL)
	{
		if (!isdigit((unsigned char) s[0]))
			return false;
		*integer = strtoll(s, &end, 10);
	}
	else
	{
		if (!isdigit((unsigned char) s[0]) && !(s[0] == '-' && isdigit((unsigned char) s[1])))
			return false;
		*share = strtod(s, &end);
		if (!(*share >= -1 && *share <= 1))
			return false;		/* every valid share is in [-1, 1] */
	}
	if (errno != 0)
		return false;
	*p = end;
	return true;
}

Datum
imatch_lexicon_in(PG_FUNCTION_ARGS)
{
	char	   *str = PG_GETARG_CSTRING(0);
	char	   *p = str;
	int			kind;
	int64		ndocs;
	double		f,
				r;
	size_t		cap = 16,
				n = 0;
	uint64	   *hashes = palloc(cap * sizeof(uint64));
	int64	   *dfs = palloc(cap * sizeof(int64));
	Lexicon    *l;

	if (strncmp(p, "lexicon ndocs=", 14) == 0)
		kind = LEX_FINAL;
	else if (strncmp(p, "df ndocs=", 9) == 0)
		kind = LEX_DF;
	else
		kind = -1;
	if (kind >= 0)
		p += kind == LEX_FINAL ? 7 : 2;
	if (kind < 0 ||
		!parse_header_number(&p, "ndocs", &ndocs, NULL) ||
		!parse_header_number(&p, "drop_frequent", NULL, &f) ||
		!parse_header_number(&p, "drop_rare", NULL, &r) || *p != ':')
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid input syntax for type imatch_lexicon: \"%s\"", str),
				 errdetail("Expected \"lexicon\" or \"df\", then ndocs=N drop_frequent=F drop_rare=R: and the terms.")));
	p++;
	for (;;)
	{
		char	   *end;
		uint64		h;

		if ((n & 0xffff) == 0)
			CHECK_FOR_INTERRUPTS();
		while (*p == ' ')
			p++;
		if (*p == '\0')
			break;
		if (!isxdigit((unsigned char) *p))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
					 errmsg("invalid input syntax for type imatch_lexicon: \"%s\"", str)));
		errno = 0;
		h = strtoull(p, &end, 16);
		if (errno != 0 || end - p > 16)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
					 errmsg("invalid input syntax for type imatch_lexicon: \"%s\"", str)));
		p = end;
		check_terms(n + 1);
		if (n == cap)
		{
			cap *= 2;
			hashes = repalloc_huge(hashes, cap * sizeof(uint64));
			dfs = repalloc_huge(dfs, cap * sizeof(int64));
		}
		hashes[n] = h;
		dfs[n] = 0;
		if (kind == LEX_DF)
		{
			if (*p != ':' || !isdigit((unsigned char) p[1]))
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
						 errmsg("invalid input syntax for type imatch_lexicon: \"%s\"", str),
						 errdetail("A document-frequency table lists hash:df pairs.")));
			dfs[n] = strtoll(p + 1, &end, 10);
			p = end;
		}
		if (*p != ' ' && *p != '\0')
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
					 errmsg("invalid input syntax for type imatch_lexicon: \"%s\"", str)));
		n++;
	}
	l = palloc0(LEXICON_SIZE(kind, n));
	SET_VARSIZE(l, LEXICON_SIZE(kind, n));
	l->version = IMATCH_VERSION;
	l->kind = (uint8) kind;
	l->drop_frequent = (float4) f;
	l->drop_rare = (float4) r;
	l->ndocs = ndocs;
	l->nterms = (uint32) n;
	memcpy(l->hashes, hashes, n * sizeof(uint64));
	if (kind == LEX_DF)
		memcpy(LEXICON_DF(l), dfs, n * sizeof(int64));
	validate_lexicon(l, str);
	PG_RETURN_POINTER(l);
}

/*
 * Binary form: version, kind (1 byte each), drop_frequent, drop_rare
 * (float4), ndocs (int8), nterms (int4), the hashes (int8 each), then for a
 * document-frequency table the counts (int8 each).
 */
Datum
imatch_lexicon_send(PG_FUNCTION_ARGS)
{
	Lexicon    *l = (Lexicon *) PG_DETOAST_DATUM(PG_GETARG_DATUM(0));
	StringInfoData buf;

	pq_begintypsend(&buf);
	pq_sendbyte(&buf, l->version);
	pq_sendbyte(&buf, l->kind);
	pq_sendfloat4(&buf, l->drop_frequent);
	pq_sendfloat4(&buf, l->drop_rare);
	pq_sendint64(&buf, l->ndocs);
	pq_sendint32(&buf, l->nterms);
	for (uint32 i = 0; i < l->nterms; i++)
	{
		if ((i & 0xffff) == 0)
			CHECK_FOR_INTERRUPTS();
		pq_sendint64(&buf, (int64) l->hashes[i]);
	}
	if (l->kind == LEX_DF)
		for (uint32 i = 0; i < l->nterms; i++)
			pq_sendint64(&buf, LEXICON_DF(l)[i]);
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

Datum
imatch_lexicon_recv(PG_FUNCTION_ARGS)
{
	StringInfo	buf = nddup_recv_buffer(PG_GETARG_DATUM(0), 22, "imatch_lexicon");
	int			version = pq_getmsgbyte(buf);
	int			kind = pq_getmsgbyte(buf);
	float4		f = pq_getmsgfloat4(buf);
	float4		r = pq_getmsgfloat4(buf);
	int64		ndocs = pq_getmsgint64(buf);
	uint32		n = (uint32) pq_getmsgint(buf, 4);
	Lexicon    *l;

	if (version != IMATCH_VERSION || (kind != LEX_DF && kind != LEX_FINAL) || ndocs < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("invalid binary imatch_lexicon header")));
	check_terms(n);
	if ((size_t) (buf->len - buf->cursor) != (size_t) n * (kind == LEX_DF ? 16 : 8))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("binary imatch_lexicon has the wrong length")));
	l = palloc0(LEXICON_SIZE(kind, n));
	SET_VARSIZE(l, LEXICON_SIZE(kind, n));
	l->version = IMATCH_VERSION;
	l->kind = (uint8) kind;
	l->drop_frequent = f;
	l->drop_rare = r;
	l->ndocs = ndocs;
	l->nterms = n;
	for (uint32 i = 0; i < n; i++)
	{
		if ((i & 0xffff) == 0)
			CHECK_FOR_INTERRUPTS();
		l->hashes[i] = (uint64) pq_getmsgint64(buf);
	}
	if (kind == LEX_DF)
		for (uint32 i = 0; i < n; i++)
			LEXICON_DF(l)[i] = pq_getmsgint64(buf);
	validate_lexicon(l, NULL);
	PG_RETURN_POINTER(l);
}
