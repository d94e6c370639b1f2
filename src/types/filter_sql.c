/*-------------------------------------------------------------------------
 *
 * filter_sql.c
 *	  Boilerplate-aware sketches: the shingle_filter type (the shingles of a
 *	  collection that occur in more than a cut-off of its documents), the
 *	  shingle_filter_agg aggregate that builds one from a text column, and
 *	  the constructors minhash_filtered(), shingle_set_filtered() and
 *	  simhash_filtered() that take one and leave its shingles out.
 *
 * Broder et al. ("Syntactic clustering of the Web", 1997, s.3) dropped the
 * shingles shared by more than 1,000 documents before clustering; I-Match
 * (Chowdhury et al. 2002) keeps terms by their collection frequency.  Here
 * the cut-off is max(min_docs, floor(share * N)) documents (default 20 and
 * 0.2 %: docs/sketches.md#boilerplate-aware-sketches gives the measurements
 * behind it).  A filter is exact and stored, so the same filter always
 * gives the same sketch.  A document whose every shingle is in the filter
 * keeps them all (it would otherwise have no shingles at all and match
 * nothing, or every other emptied document).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "nddup.h"

#include "access/detoast.h"
#include "catalog/pg_type.h"
#include "common/shortest_dec.h"
#include "libpq/pqformat.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

typedef NddupFilter Filter;

PG_FUNCTION_INFO_V1(shingle_filter_in);
PG_FUNCTION_INFO_V1(shingle_filter_out);
PG_FUNCTION_INFO_V1(shingle_filter_recv);
PG_FUNCTION_INFO_V1(shingle_filter_send);
PG_FUNCTION_INFO_V1(shingle_filter_to_array);
PG_FUNCTION_INFO_V1(shingle_filter_size);
PG_FUNCTION_INFO_V1(shingle_filter_transfn);
PG_FUNCTION_INFO_V1(shingle_filter_finalfn);
PG_FUNCTION_INFO_V1(minhash_text_filtered);
PG_FUNCTION_INFO_V1(shingle_set_text_filtered);
PG_FUNCTION_INFO_V1(simhash_text_filtered);

/* ----------------------------------------------------------------
 *		Input and output
 * ----------------------------------------------------------------
 */

/* Raise 54000 for a filter of more than NDDUP_FILTER_MAX_ITEMS shingles. */
static void
check_items(uint64 n)
{
	if (n > NDDUP_FILTER_MAX_ITEMS)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("shingle filter too large (%llu shingles)", (unsigned long long) n),
				 errdetail("A shingle filter holds at most %d shingles.",
						   NDDUP_FILTER_MAX_ITEMS),
				 errhint("Raise min_docs or share so that fewer shingles are frequent.")));
}

/* Raise the error of a filter rejected by the input (str) or receive (NULL) function. */
static void
filter_input_error(const NddupParseError *err, const char *str)
{
	if (err->code == NDDUP_PARSE_TOO_LARGE)
		check_items(err->need);
	if (err->code == NDDUP_PARSE_LENGTH)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("binary shingle_filter has the wrong length")));
	nddup_parse_error(err, "shingle_filter", str);
}

/* Give a filter built by the core its varlena header. */
static Filter *
finish_filter(Filter *f)
{
	SET_VARSIZE(f, NDDUP_FILTER_SIZE(f->nitems, f->dir_bits));
	return f;
}

/* Write the share in its shortest exact float8 form (an NddupDoubleFormatter). */
static void
format_share(double share, char out[32])
{
	double_to_shortest_decimal_buf(share, out);
}

/* Text form: "filter size=W unit=U min_docs=C share=F ndocs=N cutoff=T error=E n=M: h ..." */
Datum
shingle_filter_out(PG_FUNCTION_ARGS)
{
	StringInfoData buf;

	initStringInfo(&buf);
	nddup_filter_format((Filter *) PG_DETOAST_DATUM(PG_GETARG_DATUM(0)),
						format_share, nddup_string_info_printf, &buf);
	PG_RETURN_CSTRING(buf.data);
}

/* Text input: the text form above; 22P02 (54000 past the size limit) when bad. */
Datum
shingle_filter_in(PG_FUNCTION_ARGS)
{
	char	   *str = PG_GETARG_CSTRING(0);
	NddupParseError err;
	Filter	   *f = nddup_filter_parse(str, &err);

	if (f == NULL)
		filter_input_error(&err, str);
	PG_RETURN_POINTER(finish_filter(f));
}

/*
 * Binary form: version, size, unit (1 byte each), min_docs (int4), share
 * (float8), ndocs, cutoff, error (int8 each), n (int4), the hashes (int8).
 */
Datum
shingle_filter_send(PG_FUNCTION_ARGS)
{
	Filter	   *f = (Filter *) PG_DETOAST_DATUM(PG_GETARG_DATUM(0));
	size_t		n = nddup_filter_send_size(f);
	bytea	   *result = palloc(VARHDRSZ + n);

	SET_VARSIZE(result, VARHDRSZ + n);
	nddup_filter_send(f, (uint8 *) VARDATA(result));
	PG_RETURN_BYTEA_P(result);
}

/* Binary input: the binary form above; 22P03 (54000 past the size limit) when bad. */
Datum
shingle_filter_recv(PG_FUNCTION_ARGS)
{
	const uint8 *data;
	size_t		len;
	StringInfo	buf = nddup_recv_buffer(PG_GETARG_DATUM(0), &data, &len);
	NddupParseError err;
	Filter	   *f = nddup_filter_recv(data, len, &err);

	if (f == NULL)
		filter_input_error(&err, NULL);
	buf->cursor = buf->len;
	PG_RETURN_POINTER(finish_filter(f));
}

/* shingle_filter::bigint[]: the frequent shingles' hashes, ascending (unsigned). */
Datum
shingle_filter_to_array(PG_FUNCTION_ARGS)
{
	Filter	   *f = (Filter *) PG_DETOAST_DATUM(PG_GETARG_DATUM(0));

	PG_RETURN_ARRAYTYPE_P(nddup_int8_array(f->items, f->nitems));
}

/* shingle_filter_size(shingle_filter): the number of frequent shingles. */
Datum
shingle_filter_size(PG_FUNCTION_ARGS)
{
	Filter	   *f = (Filter *) PG_DETOAST_DATUM(PG_GETARG_DATUM(0));

	PG_RETURN_INT64((int64) f->nitems);
}

/* ----------------------------------------------------------------
 *		The aggregate
 * ----------------------------------------------------------------
 */

typedef struct FilterAggState
{
	int32		min_docs;
	double		share;
	int32		size;
	NddupUnit	unit;
	NddupDfCounter counter;
} FilterAggState;

/* Raise 22023 unless min_docs >= 1 and share is in [0, 1]. */
static void
check_cutoff(int32 min_docs, double share)
{
	if (min_docs < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("min_docs %d is out of range", min_docs),
				 errdetail("A shingle is frequent when it occurs in more than max(min_docs, share * documents) documents; min_docs must be at least 1.")));
	if (isnan(share) || share < 0 || share > 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("share %g is out of range", share),
				 errdetail("The share of documents must be between 0 and 1.")));
}

/*
 * shingle_filter_agg(doc text [, min_docs int, share float8 [, size int,
 * unit text]]) transition: count the document's distinct shingles.  NULL
 * documents are not counted; the parameters must be the same on every row.
 */
Datum
shingle_filter_transfn(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt;
	MemoryContext old;
	FilterAggState *st = PG_ARGISNULL(0) ? NULL : (FilterAggState *) PG_GETARG_POINTER(0);
	int32		min_docs = 20;
	double		share = 0.002;
	int32		size = 3;
	NddupUnit	unit = NDDUP_UNIT_WORD;
	NddupHashes hashes = {0};
	size_t		n;
	size_t		slots = 1024;

	if (!AggCheckCallContext(fcinfo, &aggcxt))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("shingle_filter_transfn called in a non-aggregate context")));
	for (int i = 2; i < PG_NARGS(); i++)
		if (PG_ARGISNULL(i))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("the parameters of shingle_filter_agg must not be null")));
	if (PG_NARGS() >= 4)
	{
		min_docs = PG_GETARG_INT32(2);
		share = PG_GETARG_FLOAT8(3);
	}
	if (PG_NARGS() >= 6)
	{
		size = PG_GETARG_INT32(4);
		unit = nddup_parse_unit(PG_GETARG_TEXT_PP(5));
	}
	if (st == NULL)
	{
		check_cutoff(min_docs, share);
		nddup_check_shingle_size(size);
		st = MemoryContextAllocZero(aggcxt, sizeof(FilterAggState));
		st->min_docs = min_docs;
		st->share = share;
		st->size = size;
		st->unit = unit;
		/*
		 * the largest table (a power of 2 of slots of 12 bytes) within
		 * work_mem, at most half full
		 */
		while (slots * 2 * 12 <= (size_t) work_mem * 1024)
			slots *= 2;
		old = MemoryContextSwitchTo(aggcxt);
		nddup_df_init(&st->counter, slots / 2);
		MemoryContextSwitchTo(old);
	}
	else if (st->min_docs != min_docs || st->share != share || st->size != size ||
			 st->unit != unit)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the parameters of shingle_filter_agg changed between rows"),
				 errhint("Pass constants for min_docs, share, size and unit.")));
	if (PG_ARGISNULL(1))
		PG_RETURN_POINTER(st);
	nddup_collect_shingles(PG_GETARG_TEXT_PP(1), size, unit, &hashes);
	n = nddup_sort_unique(hashes.items, hashes.len);
	old = MemoryContextSwitchTo(aggcxt);
	nddup_df_add_doc(&st->counter, hashes.items, n);
	MemoryContextSwitchTo(old);
	nddup_hashes_free(&hashes);
	PG_RETURN_POINTER(st);
}

/*
 * The filter of the counted documents: the shingles counted in more than
 * max(min_docs, floor(share * N)) of them.  When work_mem could not hold
 * every distinct shingle the counts are upper bounds that exceed the truth
 * by at most the recorded error; an error that reaches the cut-off could
 * miss frequent shingles and raises 53200.
 */
Datum
shingle_filter_finalfn(PG_FUNCTION_ARGS)
{
	FilterAggState *st;
	int64		cutoff;
	uint64	   *items;
	size_t		n;
	Filter	   *f;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	st = (FilterAggState *) PG_GETARG_POINTER(0);
	cutoff = nddup_filter_cutoff((uint32) st->min_docs, st->share, st->counter.ndocs);
	if ((int64) st->counter.floor >= cutoff)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("work_mem is too small to count the shingles of %lld documents",
						(long long) st->counter.ndocs),
				 errdetail("The counts exceed the truth by up to %u documents, and the cut-off is %lld.",
						   st->counter.floor, (long long) cutoff),
				 errhint("Raise work_mem for this aggregate.")));
	items = nddup_df_frequent(&st->counter, cutoff, &n);
	check_items(n);
	f = nddup_filter_build(st->size, st->unit, (uint32) st->min_docs, st->share,
						   st->counter.ndocs, (int64) st->counter.floor, items, n);
	pfree(items);
	PG_RETURN_POINTER(finish_filter(f));
}

/* ----------------------------------------------------------------
 *		Filtered constructors
 * ----------------------------------------------------------------
 */

/*
 * A detoasted filter kept across the calls of one expression: a filter
 * stored out of line is read once per query, not once per row.  The key is
 * the toast pointer (the value's identity in its table).
 */
typedef struct FilterCache
{
	struct varatt_external key;
	Filter	   *filter;
} FilterCache;

/* The filter argument argno, detoasted at most once while its pointer is the same. */
static Filter *
filter_arg(FunctionCallInfo fcinfo, int argno)
{
	struct varlena *raw = (struct varlena *) DatumGetPointer(PG_GETARG_DATUM(argno));
	FilterCache *cache = fcinfo->flinfo->fn_extra;
	struct varatt_external key;
	MemoryContext old;

	if (!VARATT_IS_EXTERNAL_ONDISK(raw))
		return (Filter *) PG_DETOAST_DATUM(PG_GETARG_DATUM(argno));
	VARATT_EXTERNAL_GET_POINTER(key, raw);
	if (cache != NULL && memcmp(&cache->key, &key, sizeof(key)) == 0)
		return cache->filter;
	if (cache == NULL)
		cache = fcinfo->flinfo->fn_extra =
			MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(FilterCache));
	else if (cache->filter != NULL)
		pfree(cache->filter);
	cache->filter = NULL;
	old = MemoryContextSwitchTo(fcinfo->flinfo->fn_mcxt);
	cache->filter = (Filter *) detoast_attr(raw);
	MemoryContextSwitchTo(old);
	cache->key = key;
	return cache->filter;
}

/*
 * The shingles of doc (size and unit of the filter) without the filter's,
 * or all of them when the filter would leave none.
 */
static void
filtered_shingles(text *doc, const Filter *f, bool all, NddupHashes *hashes)
{
	size_t		len;
	char	   *utf8 = nddup_text_to_utf8(doc, &len);
	NddupFilterSink sink = {f, all ? nddup_hashes_append : nddup_hashes_append_distinct,
	hashes, 0, 0};

	nddup_text_shingles(utf8, len, f->size, f->unit, nddup_filter_sink, &sink);
	CHECK_FOR_INTERRUPTS();
	if (sink.kept == 0 && sink.seen > 0)
		nddup_text_shingles(utf8, len, f->size, f->unit, sink.next, hashes);
}

/* An NddupHashBatchCallback: add the batch to the simhash accumulator arg. */
static void
add_to_simhash(void *arg, const uint64_t *hashes, size_t n)
{
	nddup_simhash_add_many(arg, hashes, n);
}

/*
 * minhash_filtered(filter shingle_filter, doc text, k int, method text, seed int):
 * the min-hash sketch of the document's shingles that the filter does not
 * hold (size and unit are the filter's).
 */
Datum
minhash_text_filtered(PG_FUNCTION_ARGS)
{
	Filter	   *f = filter_arg(fcinfo, 0);
	text	   *doc = PG_GETARG_TEXT_PP(1);
	int32		k = PG_GETARG_INT32(2);
	int			method = nddup_minhash_check_args(PG_GETARG_TEXT_PP(3), k,
												  PG_GETARG_INT32(4));
	NddupHashes hashes = {0};
	NddupMinhash *m;

	filtered_shingles(doc, f, false, &hashes);
	m = nddup_minhash_of_hashes(hashes.items, hashes.len, method, k,
								(uint32) PG_GETARG_INT32(4), f->size, f->unit);
	nddup_hashes_free(&hashes);
	PG_RETURN_POINTER(m);
}

/* shingle_set_filtered(filter shingle_filter, doc text): the exact set without the filter's shingles. */
Datum
shingle_set_text_filtered(PG_FUNCTION_ARGS)
{
	Filter	   *f = filter_arg(fcinfo, 0);
	NddupHashes hashes = {0};
	NddupShingleSet *s;

	filtered_shingles(PG_GETARG_TEXT_PP(1), f, false, &hashes);
	s = nddup_exact_shingleset(hashes.items, hashes.len, f->size, f->unit);
	nddup_hashes_free(&hashes);
	PG_RETURN_POINTER(s);
}

/*
 * simhash_filtered(filter shingle_filter, doc text, weighting text): Charikar's
 * simhash of the shingles the filter does not hold, each occurrence
 * weighing 1 ('tf') or each distinct shingle 1 ('set').
 */
Datum
simhash_text_filtered(PG_FUNCTION_ARGS)
{
	Filter	   *f = filter_arg(fcinfo, 0);
	bool		unique = nddup_parse_weighting_is_set(PG_GETARG_TEXT_PP(2));
	NddupHashes hashes = {0};
	NddupSimhashAcc acc;
	uint64		fp;

	nddup_simhash_init(&acc);
	if (unique)
	{
		filtered_shingles(PG_GETARG_TEXT_PP(1), f, false, &hashes);
		hashes.len = nddup_sort_unique(hashes.items, hashes.len);
		nddup_simhash_add_many(&acc, hashes.items, hashes.len);
		nddup_hashes_free(&hashes);
	}
	else
	{
		/* every occurrence streams into the accumulator */
		size_t		len;
		char	   *utf8 = nddup_text_to_utf8(PG_GETARG_TEXT_PP(1), &len);
		NddupFilterSink sink = {f, add_to_simhash, &acc, 0, 0};

		nddup_text_shingles(utf8, len, f->size, f->unit, nddup_filter_sink, &sink);
		if (sink.kept == 0 && sink.seen > 0)
			PG_RETURN_SIMHASH64(nddup_simhash_text(utf8, len, f->size, f->unit, false));
	}
	fp = nddup_simhash_finish(&acc);
	PG_RETURN_SIMHASH64(fp);
}
