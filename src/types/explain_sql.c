/*-------------------------------------------------------------------------
 *
 * explain_sql.c
 *	  nddup_explain(a, b, size, unit) and nddup_highlight(a, b, open, close,
 *	  size, unit): why two texts match (docs/explain.md).
 *
 * The shared passages come from src/core/explain.c as byte ranges of the
 * UTF-8 input; here they become 1-based character positions of the SQL
 * text (int4range [first, last + 1), as substr takes them), or marks
 * around the HTML-escaped texts.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "nddup.h"
#include "core/explain.h"

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "funcapi.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rangetypes.h"
#include "utils/typcache.h"

PG_FUNCTION_INFO_V1(nddup_explain_text);
PG_FUNCTION_INFO_V1(nddup_highlight_text);

/* The min-hash estimate uses minhash(doc)'s defaults: 128 bins, 'oph', seed 0. */
#define EXPLAIN_MINHASH_K		128
/* The simhash distance uses simhash(doc)'s defaults: word 2-shingles, 'tf'. */
#define EXPLAIN_SIMHASH_SIZE	2

/* One call: the two texts as UTF-8, the shingle size and unit, the result. */
typedef struct ExplainCall
{
	char	   *a;
	char	   *b;
	size_t		alen;
	size_t		blen;
	int32		size;
	NddupUnit	unit;
	NddupExplain e;
	TupleDesc	tupdesc;		/* of the result row */
} ExplainCall;

/*
 * Explain the texts of arguments 0 and 1 with the size and unit of
 * arguments size_arg and size_arg + 1.
 */
static void
explain_args(FunctionCallInfo fcinfo, int size_arg, ExplainCall *c)
{
	if (get_call_result_type(fcinfo, NULL, &c->tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	c->tupdesc = BlessTupleDesc(c->tupdesc);
	c->size = PG_GETARG_INT32(size_arg);
	nddup_check_shingle_size(c->size);
	c->unit = nddup_parse_unit(PG_GETARG_TEXT_PP(size_arg + 1));
	if (c->unit == NDDUP_UNIT_CHAR)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("shared passages are found for word shingles only"),
				 errhint("Use unit 'word' or 'word_'.")));
	c->a = nddup_text_to_utf8(PG_GETARG_TEXT_PP(0), &c->alen);
	c->b = nddup_text_to_utf8(PG_GETARG_TEXT_PP(1), &c->blen);
	if (!nddup_explain(c->a, c->alen, c->b, c->blen, c->size, c->unit, &c->e))
		elog(ERROR, "could not explain the texts");	/* checked above */
}

/*
 * 1-based character positions of the byte offsets at[0..n) (nondecreasing)
 * of utf8[0..len), into chr (bytes in SQL_ASCII, whose characters are bytes).
 */
static void
char_positions(const char *utf8, size_t len, const size_t *at, size_t n,
			   int32 *chr)
{
	bool		bytes = GetDatabaseEncoding() == PG_SQL_ASCII;
	size_t		pos = 0;
	int32		chars = 0;

	for (size_t i = 0; i < n; i++)
	{
		for (; pos < at[i] && pos < len; pos++)
			if (bytes || (((unsigned char) utf8[pos]) & 0xC0) != 0x80)
				chars++;
		chr[i] = chars + 1;
	}
}

/* The passages of one text as int4range[] of character positions. */
static Datum
passage_ranges(const char *utf8, size_t len, const NddupExplainSide *side)
{
	TypeCacheEntry *typcache = lookup_type_cache(INT4RANGEOID, TYPECACHE_RANGE_INFO);
	size_t		n = side->npassages;
	Datum	   *ranges = palloc(sizeof(Datum) * (n > 0 ? n : 1));
	size_t	   *at = palloc(sizeof(size_t) * (n > 0 ? 2 * n : 1));
	int32	   *chr = palloc(sizeof(int32) * (n > 0 ? 2 * n : 1));
	int16		typlen;
	bool		typbyval;
	char		typalign;

	/* starts and ends are each nondecreasing: two sweeps */
	for (size_t p = 0; p < n; p++)
	{
		at[p] = side->passages[p].start;
		at[n + p] = side->passages[p].end;
	}
	char_positions(utf8, len, at, n, chr);
	char_positions(utf8, len, at + n, n, chr + n);
	for (size_t p = 0; p < n; p++)
	{
		RangeBound lower;
		RangeBound upper;

		lower.val = Int32GetDatum(chr[p]);
		lower.infinite = false;
		lower.inclusive = true;
		lower.lower = true;
		upper.val = Int32GetDatum(chr[n + p]);
		upper.infinite = false;
		upper.inclusive = false;
		upper.lower = false;
		ranges[p] = RangeTypePGetDatum(make_range(typcache, &lower, &upper, false, NULL));
		CHECK_FOR_INTERRUPTS();
	}
	get_typlenbyvalalign(INT4RANGEOID, &typlen, &typbyval, &typalign);
	return PointerGetDatum(construct_array(ranges, (int) n, INT4RANGEOID,
										   typlen, typbyval, typalign));
}

/* The min-hash estimate of the two texts' shingles (minhash(doc)'s sketch). */
static double
minhash_estimate(const NddupExplain *e, int32 size, NddupUnit unit)
{
	Datum		ma = PointerGetDatum(nddup_minhash_of_hashes(e->a.shingles, e->a.nshingles,
															 NDDUP_MINHASH_OPH, EXPLAIN_MINHASH_K,
															 0, size, unit));
	Datum		mb = PointerGetDatum(nddup_minhash_of_hashes(e->b.shingles, e->b.nshingles,
															 NDDUP_MINHASH_OPH, EXPLAIN_MINHASH_K,
															 0, size, unit));

	return nddup_minhash_datum_resemblance(ma, mb);
}

/*
 * nddup_explain(a text, b text, size int, unit text): the exact resemblance
 * of the shingle sets, containment both ways, the numbers of shingles, the
 * min-hash estimate, the simhash distance and the shared passages.
 */
Datum
nddup_explain_text(PG_FUNCTION_ARGS)
{
	ExplainCall c;
	NddupExplain *e = &c.e;
	Datum		values[10];
	bool		nulls[10] = {0};
	size_t		da;
	size_t		db;

	explain_args(fcinfo, 2, &c);
	da = e->a.distinct;
	db = e->b.distinct;

	/* as jaccard() and containment() of shingle_set(): empty sets too */
	if (da == 0 || db == 0)
		values[0] = Float8GetDatum(da == 0 && db == 0 ? 1.0 : 0.0);
	else
		values[0] = Float8GetDatum((double) e->shared / (double) (da + db - e->shared));
	values[1] = Float8GetDatum(da == 0 ? 1.0 : (double) e->shared / (double) da);
	values[2] = Float8GetDatum(db == 0 ? 1.0 : (double) e->shared / (double) db);
	values[3] = Int64GetDatum((int64) e->shared);
	values[4] = Int64GetDatum((int64) da);
	values[5] = Int64GetDatum((int64) db);
	values[6] = Float8GetDatum(minhash_estimate(e, c.size, c.unit));
	values[7] = Int32GetDatum(nddup_hamming(nddup_simhash_text(c.a, c.alen, EXPLAIN_SIMHASH_SIZE,
															   NDDUP_UNIT_WORD, false),
											nddup_simhash_text(c.b, c.blen, EXPLAIN_SIMHASH_SIZE,
															   NDDUP_UNIT_WORD, false)));
	values[8] = passage_ranges(c.a, c.alen, &e->a);
	values[9] = passage_ranges(c.b, c.blen, &e->b);
	nddup_explain_free(e);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(c.tupdesc, values, nulls)));
}

/* Append utf8[from..to) to out, HTML-escaped. */
static void
append_escaped(StringInfo out, const char *utf8, size_t from, size_t to)
{
	size_t		plain = from;

	for (size_t i = from; i < to; i++)
	{
		const char *entity;

		switch (utf8[i])
		{
			case '&':
				entity = "&amp;";
				break;
			case '<':
				entity = "&lt;";
				break;
			case '>':
				entity = "&gt;";
				break;
			case '"':
				entity = "&quot;";
				break;
			case '\'':
				entity = "&#39;";
				break;
			default:
				continue;
		}
		appendBinaryStringInfo(out, utf8 + plain, (int) (i - plain));
		appendStringInfoString(out, entity);
		plain = i + 1;
	}
	appendBinaryStringInfo(out, utf8 + plain, (int) (to - plain));
}

/*
 * One text HTML-escaped, with its shared passages (merged where they
 * overlap or touch) between open and close, in the server encoding.
 */
static Datum
highlight(const char *utf8, size_t len, NddupExplainSide *side,
		  const char *open, size_t open_len, const char *close, size_t close_len)
{
	StringInfoData out;
	size_t		n = nddup_merge_passages(side->passages, side->npassages);
	size_t		pos = 0;
	char	   *server;

	initStringInfo(&out);
	for (size_t p = 0; p < n; p++)
	{
		append_escaped(&out, utf8, pos, side->passages[p].start);
		appendBinaryStringInfo(&out, open, (int) open_len);
		append_escaped(&out, utf8, side->passages[p].start, side->passages[p].end);
		appendBinaryStringInfo(&out, close, (int) close_len);
		pos = side->passages[p].end;
		CHECK_FOR_INTERRUPTS();
	}
	append_escaped(&out, utf8, pos, len);
	server = pg_any_to_server(out.data, out.len, PG_UTF8);
	if (server == out.data)
		return PointerGetDatum(cstring_to_text_with_len(out.data, out.len));
	return PointerGetDatum(cstring_to_text(server));
}

/*
 * nddup_highlight(a text, b text, open text, close text, size int, unit
 * text): both texts HTML-escaped, their shared passages between open and
 * close (inserted as they are).
 */
Datum
nddup_highlight_text(PG_FUNCTION_ARGS)
{
	ExplainCall c;
	char	   *open;
	char	   *close;
	size_t		open_len;
	size_t		close_len;
	Datum		values[2];
	bool		nulls[2] = {0};

	open = nddup_text_to_utf8(PG_GETARG_TEXT_PP(2), &open_len);
	close = nddup_text_to_utf8(PG_GETARG_TEXT_PP(3), &close_len);
	explain_args(fcinfo, 4, &c);
	values[0] = highlight(c.a, c.alen, &c.e.a, open, open_len, close, close_len);
	values[1] = highlight(c.b, c.blen, &c.e.b, open, open_len, close, close_len);
	nddup_explain_free(&c.e);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(c.tupdesc, values, nulls)));
}
