/*-------------------------------------------------------------------------
 *
 * set_batch.c
 *	  The SQL functions of the exact resemblance join of shingle sets:
 *	  every pair of sets at or above a Jaccard or containment threshold
 *	  (shingleset_pairs), the join of two inputs (shingleset_join), and
 *	  union-find clusters (shingleset_clusters); their inputs, the global
 *	  order of the shingles, the prefixes and the measure.
 *
 * Prefix filtering (Chaudhuri, Ganti and Kaushik, ICDE 2006; Bayardo, Ma
 * and Srikant, WWW 2007, s.4): order all shingles globally, rarest first
 * (document frequency over the input, then hash).  Two sets sharing o >=
 * alpha shingles have their first common shingle w among the first
 * |x| - alpha + 1 shingles of each: the shingles of x before w are not
 * common, so there are at most |x| - o of them.  A pair whose Jaccard
 * reaches t has o >= t |x u y| >= t max(|x|, |y|), so alpha = floor(t |x|)
 * (at least 1) is safe for each set on its own (floor rather than ceil
 * keeps the guarantee when t |x| is an integer up to rounding).  For
 * containment of x in y (o >= t |x|) only x's prefix is needed, against all
 * of y's shingles.  The sets sharing a prefix shingle are the candidates; a
 * length filter (t |y| <= |x| for Jaccard) drops some, and each is verified
 * with the exact measure, computed as jaccard() and containment() compute
 * it.
 *
 * The document frequencies come from a table of at most df_max shingles
 * (within a share of work_mem): shingles first seen once it is full count 0,
 * i.e. rare.  Any total order keeps the answer exact; rarest first keeps the
 * candidate lists short (frequent shingles, boilerplate, come last and so
 * seldom in a prefix).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "set_batch.h"

#include "common/hashfn.h"
#include "executor/spi.h"
#include "executor/tuptable.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "tcop/dest.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

/* the document-frequency table: simplehash keyed by the shingle's hash */
#define SH_PREFIX setdf
#define SH_ELEMENT_TYPE SetDfEntry
#define SH_KEY_TYPE uint64
#define SH_KEY hash
#define SH_HASH_KEY(tb, key) ((uint32) (nddup_fmix64(key) >> 32))
#define SH_EQUAL(tb, a, b) ((a) == (b))
#define SH_SCOPE static inline
#define SH_DECLARE
#define SH_DEFINE
#include "lib/simplehash.h"

PG_FUNCTION_INFO_V1(shingleset_pairs_query);
PG_FUNCTION_INFO_V1(shingleset_pairs_rel);
PG_FUNCTION_INFO_V1(shingleset_join_query);
PG_FUNCTION_INFO_V1(shingleset_clusters_query);
PG_FUNCTION_INFO_V1(shingleset_clusters_rel);

/*
 * Bytes per input row of the in-memory path besides the set's hashes: id,
 * flags, order key 17, offset 8, the prefix records (16 per prefix shingle,
 * about 4 per row at the usual thresholds, and their sort buffer) 128, for
 * clusters union-find 5 and the id sort 32; plus what the allocator keeps.
 */
#define SET_ROW_OVERHEAD_PAIRS		200
#define SET_ROW_OVERHEAD_CLUSTER	260

/* Bytes of a document-frequency table entry, with simplehash's slack. */
#define DF_ENTRY_BYTES				32

/* A DestReceiver that stores the rows of an input query. */
typedef struct SetReceiver
{
	DestReceiver pub;
	SetBatch   *sb;
	NddupInputCols cols;
} SetReceiver;

/* Column roles of an (id, shingleset[, order key]) query. */
static const NddupColRole set_cols[] = {NDDUP_COL_ID, NDDUP_COL_SHINGLESET, NDDUP_COL_ORDER};

/* The document frequency of a shingle (0 if it was not admitted). */
uint32
set_df(SetBatch *sb, uint64 hash)
{
	SetDfEntry *e = setdf_lookup(sb->df, hash);

	return e ? e->df : 0;
}

/* Count the shingles of a set in the document-frequency table. */
static void
count_df(SetBatch *sb, const uint64 *items, uint32 n)
{
	for (uint32 i = 0; i < n; i++)
	{
		SetDfEntry *e;
		bool		found;

		if (sb->df->members >= sb->df_max)
		{
			e = setdf_lookup(sb->df, items[i]);
			if (e)
				e->df++;
			continue;
		}
		e = setdf_insert(sb->df, items[i], &found);
		e->df = found ? e->df + 1 : 1;
	}
}

/* qsort comparator of order keys. */
static int
order_key_cmp(const void *a, const void *b)
{
	return set_order_cmp((const SetOrderKey *) a, (const SetOrderKey *) b);
}

/*
 * The prefix of a set of n hashes: its first n - alpha + 1 shingles in the
 * global order, as hashes into prefix (in that order); returns their
 * number.
 */
static uint32
set_prefix(SetBatch *sb, const uint64 *items, uint32 n, uint64 *prefix)
{
	SetOrderKey *keys;
	uint32		alpha = (uint32) Max(floor(sb->threshold * n), 1.0);
	uint32		p = alpha > n ? 1 : n - alpha + 1;

	if (n == 0)
		return 0;
	keys = palloc(sizeof(SetOrderKey) * n);
	for (uint32 i = 0; i < n; i++)
	{
		keys[i].df = set_df(sb, items[i]);
		keys[i].hash = items[i];
	}
	qsort(keys, n, sizeof(SetOrderKey), order_key_cmp);
	for (uint32 i = 0; i < p; i++)
		prefix[i] = keys[i].hash;
	pfree(keys);
	return p;
}

/*
 * The shingles a row is entered under, into tokens (room for n), with
 * is_prefix[i] telling whether tokens[i] is in the row's prefix; returns
 * their number.  Jaccard: the prefix.  Containment join: query_a's rows
 * their prefix, query_b's every shingle.  Containment pairs: every
 * shingle, the prefix marked (the smaller set of a pair must meet the
 * larger with a prefix shingle).  Documents without shingles, and samples
 * that kept none, are entered under none.
 */
uint32
set_row_tokens(SetBatch *sb, const uint64 *items, uint32 n, uint8 flags,
			   uint64 *tokens, bool *is_prefix)
{
	uint32		p;
	uint32		m;

	if (flags & (ROW_EMPTY | ROW_NO_SAMPLE))
		return 0;
	p = set_prefix(sb, items, n, tokens);
	for (uint32 i = 0; i < p; i++)
		is_prefix[i] = true;
	if (sb->measure == SET_JACCARD ||
		(sb->call->mode == BATCH_JOIN && !(flags & BATCH_ROW_SIDE1)))
		return p;
	/* every shingle: the prefix ones first, then the others */
	m = p;
	for (uint32 i = 0; i < n; i++)
	{
		bool		in_prefix = false;

		for (uint32 j = 0; j < p && !in_prefix; j++)
			in_prefix = tokens[j] == items[i];
		if (in_prefix)
			continue;
		tokens[m] = items[i];
		is_prefix[m] = false;
		m++;
	}
	return m;
}

/*
 * May two rows met under one shingle be a candidate pair?  Not a row with
 * itself; a join pairs the two inputs only; Jaccard needs the shingle in
 * both prefixes; containment in the prefix of the set that must be
 * contained (query_a's row of a join; the smaller set of a pair, ties by
 * row number).  Then the length filter.
 */
bool
set_candidate(const SetBatch *sb, uint32 rowa, uint32 na, uint8 fa, bool pa,
			  uint32 rowb, uint32 nb, uint8 fb, bool pb)
{
	if (rowa == rowb)
		return false;
	if (sb->call->mode == BATCH_JOIN && !((fa ^ fb) & BATCH_ROW_SIDE1))
		return false;
	if (sb->measure == SET_JACCARD)
	{
		if (!pa || !pb)
			return false;
	}
	else if (sb->call->mode == BATCH_JOIN)
	{
		if (!((fa & BATCH_ROW_SIDE1) ? pb : pa))
			return false;
	}
	else
	{
		bool		a_smaller = na < nb || (na == nb && rowa < rowb);

		if (!(a_smaller ? pa : pb))
			return false;
	}
	return set_length_ok(sb, na, fa, nb, fb);
}

/*
 * The length filter: can sets of sizes na and nb reach the threshold?
 * Jaccard is at most min / max; containment of a set is at most 1 whatever
 * the sizes.  Conservative by a rounding margin.
 */
bool
set_length_ok(const SetBatch *sb, uint32 na, uint8 fa, uint32 nb, uint8 fb)
{
	if (sb->measure != SET_JACCARD)
		return true;
	if (na == 0 || nb == 0)
		return na == nb;
	return (double) Min(na, nb) >= sb->threshold * (double) Max(na, nb) * (1.0 - 1e-12);
}

/*
 * The measure of two sets (hashes ascending) and whether it reaches the
 * threshold, as jaccard() and containment() compute it; also the first
 * common shingle in the global order, for the in-memory path's rule that
 * a pair is reported by that shingle's run only.
 */
bool
set_measure(SetBatch *sb, const uint64 *a, uint32 na, uint8 fa,
			const uint64 *b, uint32 nb, uint8 fb, double *score,
			SetOrderKey *first_common)
{
	uint32		i = 0;
	uint32		j = 0;
	uint64		common = 0;
	double		denom;

	if ((fa | fb) & ROW_NO_SAMPLE)
		return false;
	if ((fa & ROW_EMPTY) || (fb & ROW_EMPTY))
	{
		/* r(empty, empty) = 1, r(empty, B) = 0; no containment pairs */
		*score = 1.0;
		return sb->measure == SET_JACCARD && (fa & ROW_EMPTY) && (fb & ROW_EMPTY);
	}
	if (first_common)
		first_common->df = PG_UINT32_MAX;
	while (i < na && j < nb)
	{
		if (a[i] < b[j])
			i++;
		else if (a[i] > b[j])
			j++;
		else
		{
			if (first_common)
			{
				SetOrderKey k;

				k.df = set_df(sb, a[i]);
				k.hash = a[i];
				if (common == 0 || set_order_cmp(&k, first_common) < 0)
					*first_common = k;
			}
			common++;
			i++;
			j++;
		}
	}
	if (sb->measure == SET_JACCARD)
		denom = (double) ((uint64) na + nb - common);
	else if (sb->call->mode == BATCH_JOIN)
		denom = (double) ((fa & BATCH_ROW_SIDE1) ? nb : na);
	else
		denom = (double) Min(na, nb);
	if (denom <= 0)
		return false;
	*score = (double) common / denom;
	return *score >= sb->threshold;
}

/* A verified pair of rows: emit it, or link it (clusters). */
void
set_found(SetBatch *sb, uint32 x, int64 idx, uint8 fx, uint32 y, int64 idy,
		  uint8 fy, double score)
{
	BatchCall  *call = sb->call;

	if (call->mode == BATCH_CLUSTER)
		batch_uf_union(&sb->uf, x, y);
	else if (call->mode == BATCH_JOIN)
	{
		if (fx & BATCH_ROW_SIDE1)
			batch_put_pair(call, idy, idx, Float8GetDatum(score));
		else
			batch_put_pair(call, idx, idy, Float8GetDatum(score));
	}
	else
		batch_put_ordered_pair(call, idx, idy, Float8GetDatum(score));
}

/* Check that a set was made like the first one of the input. */
static void
check_params(SetBatch *sb, const NddupShingleSet *s)
{
	if (s->kind == NDDUP_SET_BOTTOM)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s cannot join bottom-s samples", sb->call->fname),
				 errdetail("The resemblance of bottom-s samples is estimated from the bottom s of their union, which has no exact prefix filter."),
				 errhint("Use exact shingle sets (shingle_set) or mod-m samples (shingle_mod).")));
	if (!sb->have_params)
	{
		sb->kind = s->kind;
		sb->size = s->size;
		sb->unit = s->unit;
		sb->param = s->param;
		sb->have_params = true;
		return;
	}
	if (s->kind != sb->kind || s->param != sb->param || s->size != sb->size ||
		s->unit != sb->unit)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cannot compare shingle sets made with different parameters"),
				 errdetail("Every row of %s must be made with the same function, shingle size and unit.",
						   sb->call->fname),
				 errhint("Build all sets with the same function, shingle size and unit.")));
}

/* DestReceiver callback: take one row of an input query. */
static bool
receive_row(TupleTableSlot *slot, DestReceiver *self)
{
	SetReceiver *r = (SetReceiver *) self;
	SetBatch   *sb = r->sb;
	NddupShingleSet *s;
	int64		id;
	int64		aux = 0;
	bool		auxnull = true;
	uint8		flags = 0;

	slot_getsomeattrs(slot, r->cols.natts);
	if (slot->tts_isnull[0] || slot->tts_isnull[1])
	{
		sb->rows.nskipped++;
		return true;
	}
	id = nddup_datum_int64(slot->tts_values[0], r->cols.types[0]);
	if (r->cols.natts >= 3 && !slot->tts_isnull[2])
	{
		aux = nddup_datum_int64(slot->tts_values[2], r->cols.types[2]);
		auxnull = false;
	}
	s = (NddupShingleSet *) PG_DETOAST_DATUM(slot->tts_values[1]);
	check_params(sb, s);
	if (s->cardinality == 0)
		flags |= ROW_EMPTY;
	else if (s->nitems == 0)
		flags |= ROW_NO_SAMPLE;
	count_df(sb, s->items, s->nitems);
	batch_rows_add_extra(&sb->rows, id, aux, auxnull, sb->side, flags, NULL, s->items,
						 s->nitems * sizeof(uint64));
	if ((Pointer) s != DatumGetPointer(slot->tts_values[1]))
		pfree(s);
	return true;
}

/* Read one input query as side 'side' (0, or 1 for query_b). */
static void
read_input(SetBatch *sb, const char *argname, const char *query, int nroles,
		   int side)
{
	SetReceiver recv;
	SPIPlanPtr	plan;

	memset(&recv, 0, sizeof(recv));
	nddup_init_receiver(&recv.pub, receive_row);
	recv.sb = sb;
	sb->side = side;
	plan = nddup_prepare_input(sb->call->fname, argname, query, set_cols, 2, nroles,
							   sb->set_oid, &recv.cols);
	if (recv.cols.natts >= 3)
		batch_rows_use_aux(&sb->rows);
	nddup_run_input(plan, &recv.pub);
}

/* The measure argument: 'jaccard' or 'containment'. */
static SetMeasure
parse_measure(text *t)
{
	char	   *m = text_to_cstring(t);

	if (pg_strcasecmp(m, "jaccard") == 0)
		return SET_JACCARD;
	if (pg_strcasecmp(m, "containment") == 0)
		return SET_CONTAINMENT;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("invalid measure \"%s\"", m),
			 errhint("Valid measures are jaccard and containment.")));
	return SET_JACCARD;			/* keep the compiler quiet */
}

/* Set up a call: threshold, measure, row store and frequency table. */
static SetBatch *
begin_sets(FunctionCallInfo fcinfo, BatchMode mode, const char *fname,
		   double threshold, text *measure)
{
	BatchCall  *call;
	SetBatch   *sb;

	if (isnan(threshold) || threshold <= 0.0 || threshold > 1.0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("similarity threshold %g is out of range", threshold),
				 errdetail("The threshold of %s must be greater than 0 and at most 1.", fname)));
	call = batch_begin(fcinfo, mode, fname);
	sb = MemoryContextAllocZero(call->cxt, sizeof(SetBatch));
	sb->call = call;
	sb->threshold = threshold;
	sb->measure = measure ? parse_measure(measure) : SET_JACCARD;
	sb->set_oid = nddup_lookup_type(fcinfo, "shingleset");
	/* the frequency table takes a quarter of work_mem, the rows the rest */
	sb->df_max = Max((uint64) call->mem_limit / 4 / DF_ENTRY_BYTES, 1024);
	sb->df = setdf_create(call->cxt, 1024, NULL);
	batch_rows_init(&sb->rows, call, 0,
					mode == BATCH_CLUSTER ? SET_ROW_OVERHEAD_CLUSTER : SET_ROW_OVERHEAD_PAIRS,
					call->mem_limit - call->mem_limit / 4);
	batch_rows_use_extra(&sb->rows);
	return sb;
}

/* Compute and emit the result once the input is read; frees the state. */
static void
finish_sets(SetBatch *sb)
{
	BatchCall  *call = sb->call;
	MemoryContext old = MemoryContextSwitchTo(call->cxt);

	batch_log(call, "%s: read %llu rows (%llu skipped), %llu distinct shingles counted",
			  call->fname, (unsigned long long) sb->rows.nrows,
			  (unsigned long long) sb->rows.nskipped, (unsigned long long) sb->df->members);
	if (sb->rows.nrows > 0 && call->mode == BATCH_CLUSTER)
		batch_uf_init(call, &sb->uf, sb->rows.nrows,
					  sb->rows.spilled ? "maintenance_work_mem" : "work_mem");
	if (sb->rows.nrows > 0)
	{
		if (sb->rows.spilled)
			set_pairs_spilled(sb);
		else
			set_pairs_in_memory(sb);
		if (call->mode == BATCH_CLUSTER)
			batch_finish_clusters(&sb->rows, &sb->uf);
	}
	MemoryContextSwitchTo(old);
	batch_rows_free(&sb->rows);
	batch_end(call);
}

/* Common body of the query forms of shingleset_pairs and _clusters. */
static void
pairs_or_clusters(FunctionCallInfo fcinfo, BatchMode mode, const char *fname,
				  const char *query, double threshold, text *measure,
				  bool singletons)
{
	SetBatch   *sb = begin_sets(fcinfo, mode, fname, threshold, measure);

	sb->call->singletons = singletons;
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	read_input(sb, "the query", query, mode == BATCH_CLUSTER ? 3 : 2, 0);
	SPI_finish();
	finish_sets(sb);
}

/*
 * shingleset_pairs(query, threshold, measure): every pair of rows whose
 * sets reach the threshold.
 */
Datum
shingleset_pairs_query(PG_FUNCTION_ARGS)
{
	pairs_or_clusters(fcinfo, BATCH_PAIRS, "shingleset_pairs",
					  text_to_cstring(PG_GETARG_TEXT_PP(0)), PG_GETARG_FLOAT8(1),
					  PG_GETARG_TEXT_PP(2), true);
	return (Datum) 0;
}

/*
 * shingleset_pairs(rel, id_column, set_column, threshold, measure): the
 * same over a relation.
 */
Datum
shingleset_pairs_rel(PG_FUNCTION_ARGS)
{
	char	   *query = nddup_relation_query("shingleset_pairs", PG_GETARG_OID(0),
											 PG_GETARG_NAME(1), PG_GETARG_NAME(2), NULL,
											 set_cols, nddup_lookup_type(fcinfo, "shingleset"));

	pairs_or_clusters(fcinfo, BATCH_PAIRS, "shingleset_pairs", query,
					  PG_GETARG_FLOAT8(3), PG_GETARG_TEXT_PP(4), true);
	return (Datum) 0;
}

/*
 * shingleset_join(query_a, query_b, threshold, measure): pairs (a, b) of a
 * row of each query reaching the threshold (containment: of a in b).
 */
Datum
shingleset_join_query(PG_FUNCTION_ARGS)
{
	char	   *qa = text_to_cstring(PG_GETARG_TEXT_PP(0));
	char	   *qb = text_to_cstring(PG_GETARG_TEXT_PP(1));
	SetBatch   *sb = begin_sets(fcinfo, BATCH_JOIN, "shingleset_join",
								PG_GETARG_FLOAT8(2), PG_GETARG_TEXT_PP(3));

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	read_input(sb, "query_a", qa, 2, 0);
	read_input(sb, "query_b", qb, 2, 1);
	SPI_finish();
	finish_sets(sb);
	return (Datum) 0;
}

/*
 * shingleset_clusters(query, threshold, singletons, measure): connected
 * components of the pairs, named after their earliest member.
 */
Datum
shingleset_clusters_query(PG_FUNCTION_ARGS)
{
	pairs_or_clusters(fcinfo, BATCH_CLUSTER, "shingleset_clusters",
					  text_to_cstring(PG_GETARG_TEXT_PP(0)), PG_GETARG_FLOAT8(1),
					  PG_GETARG_TEXT_PP(3), PG_GETARG_BOOL(2));
	return (Datum) 0;
}

/*
 * shingleset_clusters(rel, id_column, set_column, threshold, order_column,
 * singletons, measure): the same over a relation; order_column may be NULL.
 */
Datum
shingleset_clusters_rel(PG_FUNCTION_ARGS)
{
	char	   *query;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2) ||
		PG_ARGISNULL(3) || PG_ARGISNULL(5) || PG_ARGISNULL(6))
	{
		/* like a STRICT function: no rows */
		InitMaterializedSRF(fcinfo, 0);
		return (Datum) 0;
	}
	query = nddup_relation_query("shingleset_clusters", PG_GETARG_OID(0), PG_GETARG_NAME(1),
								 PG_GETARG_NAME(2), PG_ARGISNULL(4) ? NULL : PG_GETARG_NAME(4),
								 set_cols, nddup_lookup_type(fcinfo, "shingleset"));
	pairs_or_clusters(fcinfo, BATCH_CLUSTER, "shingleset_clusters", query,
					  PG_GETARG_FLOAT8(3), PG_GETARG_TEXT_PP(6), PG_GETARG_BOOL(5));
	return (Datum) 0;
}
