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

#define IMATCH_MAX_LEXICONS	64

typedef NddupLexicon Lexicon;

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
	if (n > NDDUP_LEXICON_MAX_TERMS)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("I-Match lexicon too large (%llu terms)", (unsigned long long) n),
				 errdetail("A lexicon or document-frequency table holds at most %d terms.",
						   NDDUP_LEXICON_MAX_TERMS)));
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

/* Add a flat NDDUP_LEX_DF value into an expanded table. */
static void
df_add_flat(ExpandedDf *df, const Lexicon *flat)
{
	if (flat->kind != NDDUP_LEX_DF)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a finished I-Match lexicon is not an aggregation state")));
	for (uint32 i = 0; i < flat->nterms; i++)
	{
		if ((i & 0xfff) == 0)
			CHECK_FOR_INTERRUPTS();
		df_add(df, flat->hashes[i], NDDUP_LEXICON_DF(flat)[i]);
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

	return NDDUP_LEXICON_SIZE(NDDUP_LEX_DF, df->n + (df->zero_count > 0));
}

static void
df_flatten_into(ExpandedObjectHeader *eohptr, void *result, Size allocated_size)
{
	ExpandedDf *df = (ExpandedDf *) eohptr;
	Lexicon    *flat = (Lexicon *) result;
	size_t		n;
	uint64	   *keys = df_sorted_keys(df, &n);

	Assert(allocated_size == NDDUP_LEXICON_SIZE(NDDUP_LEX_DF, n));
	memset(flat, 0, allocated_size);
	SET_VARSIZE(flat, allocated_size);
	flat->version = NDDUP_LEXICON_VERSION;
	flat->kind = NDDUP_LEX_DF;
	flat->drop_frequent = df->cuts_set ? df->drop_frequent : -1;
	flat->drop_rare = df->cuts_set ? df->drop_rare : -1;
	flat->ndocs = df->ndocs;
	flat->nterms = (uint32) n;
	for (size_t i = 0; i < n; i++)
	{
		flat->hashes[i] = keys[i];
		NDDUP_LEXICON_DF(flat)[i] = df_count(df, keys[i]);
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
			if ((i & 0xfff) == 0)
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
			if ((i & 0xfff) == 0)
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

		if (flat->kind != NDDUP_LEX_DF)
			PG_RETURN_POINTER(flat);
		n = flat->nterms;
		ranked = palloc_extended((n + 1) * sizeof(RankedTerm), MCXT_ALLOC_HUGE);
		for (size_t i = 0; i < n; i++)
		{
			ranked[i].hash = flat->hashes[i];
			ranked[i].df = NDDUP_LEXICON_DF(flat)[i];
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
	lex = palloc0(NDDUP_LEXICON_SIZE(NDDUP_LEX_FINAL, kept));
	SET_VARSIZE(lex, NDDUP_LEXICON_SIZE(NDDUP_LEX_FINAL, kept));
	lex->version = NDDUP_LEXICON_VERSION;
	lex->kind = NDDUP_LEX_FINAL;
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

	if (lex->kind != NDDUP_LEX_FINAL)
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
		if ((i & 0xfff) == 0)
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
 * Raise the error of a lexicon rejected by imatch_lexicon_in (the text str,
 * 22P02) or imatch_lexicon_recv (str NULL, 22P03).
 */
static void
lexicon_input_error(const NddupParseError *err, const char *str)
{
	if (err->code == NDDUP_PARSE_TOO_LARGE)
		check_terms(err->need);
	if (err->code == NDDUP_PARSE_LENGTH)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("binary imatch_lexicon has the wrong length")));
	nddup_parse_error(err, "imatch_lexicon", str);
}

/* Write a cut share in its shortest exact float4 form (an NddupShareFormatter). */
static void
format_share(float share, char out[32])
{
	float_to_shortest_decimal_buf(share, out);
}

/*
 * Text form: "lexicon ndocs=N drop_frequent=F drop_rare=R: h h ..." (16
 * hex digits each) or, for an aggregation state, "df ndocs=N ...: h:df ..."
 * (src/core/imatch_format.c).
 */
Datum
imatch_lexicon_out(PG_FUNCTION_ARGS)
{
	StringInfoData buf;

	initStringInfo(&buf);
	nddup_lexicon_format((Lexicon *) PG_DETOAST_DATUM(PG_GETARG_DATUM(0)),
						 format_share, nddup_string_info_printf, &buf);
	PG_RETURN_CSTRING(buf.data);
}

Datum
imatch_lexicon_in(PG_FUNCTION_ARGS)
{
	char	   *str = PG_GETARG_CSTRING(0);
	NddupParseError err;
	Lexicon    *l = nddup_lexicon_parse(str, &err);

	if (l == NULL)
		lexicon_input_error(&err, str);
	SET_VARSIZE(l, NDDUP_LEXICON_SIZE(l->kind, l->nterms));
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
	size_t		n = nddup_lexicon_send_size(l);
	bytea	   *result = palloc(VARHDRSZ + n);

	SET_VARSIZE(result, VARHDRSZ + n);
	nddup_lexicon_send(l, (uint8 *) VARDATA(result));
	PG_RETURN_BYTEA_P(result);
}

Datum
imatch_lexicon_recv(PG_FUNCTION_ARGS)
{
	const uint8 *data;
	size_t		len;
	StringInfo	buf = nddup_recv_buffer(PG_GETARG_DATUM(0), &data, &len);
	NddupParseError err;
	Lexicon    *l = nddup_lexicon_recv(data, len, &err);

	if (l == NULL)
		lexicon_input_error(&err, NULL);
	buf->cursor = buf->len;
	SET_VARSIZE(l, NDDUP_LEXICON_SIZE(l->kind, l->nterms));
	PG_RETURN_POINTER(l);
}
