/*-------------------------------------------------------------------------
 *
 * set_sql.c
 *	  The SQL functions of the exact resemblance join of shingle sets:
 *	  every pair of sets at or above a Jaccard or containment threshold
 *	  (shingleset_pairs), the join of two inputs (shingleset_join), and
 *	  union-find clusters (shingleset_clusters); their inputs, and the
 *	  choice between the in-memory path (set_memory.c) and the path through
 *	  temporary files (set_spill.c).  The filters are in set_filter.c; see
 *	  docs/batch-sets.md.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "batch/sets/set_batch.h"

#include "executor/spi.h"
#include "executor/tuptable.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "tcop/dest.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

PG_FUNCTION_INFO_V1(shingleset_pairs_query);
PG_FUNCTION_INFO_V1(shingleset_pairs_rel);
PG_FUNCTION_INFO_V1(shingleset_join_query);
PG_FUNCTION_INFO_V1(shingleset_clusters_query);
PG_FUNCTION_INFO_V1(shingleset_clusters_rel);

/*
 * Bytes per input row of the in-memory path besides the set's hashes: id,
 * flags, order key 17, offset 8, the prefix records (16 per prefix shingle,
 * about 4 per row at the usual thresholds, and their sort buffer) 128, the
 * start of the row's records, its candidate mark and slot 16, for clusters
 * union-find 5 and the id sort 32; plus what the allocator keeps.
 */
#define SET_ROW_OVERHEAD_PAIRS		200
#define SET_ROW_OVERHEAD_CLUSTER	260

/* A DestReceiver that stores the rows of an input query. */
typedef struct SetReceiver
{
	DestReceiver pub;
	SetBatch   *sb;
	NddupInputCols cols;
} SetReceiver;

/* Column roles of an (id, shingleset[, order key]) query. */
static const NddupColRole set_cols[] = {NDDUP_COL_ID, NDDUP_COL_SHINGLESET, NDDUP_COL_ORDER};

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
	set_count_df(sb, s->items, s->nitems);
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
							   sb->set_oid, false, &recv.cols);
	if (recv.cols.natts >= 3)
		batch_rows_use_aux(&sb->rows);
	nddup_run_input(plan, &recv.pub);
}

/* The measure argument: 'jaccard' or 'containment'. */
static SetMeasure
parse_measure(text *t)
{
	static const char *const names[] = {"jaccard", "containment"};

	return nddup_keyword_arg(t, "measure", names, 2, true,
							 "Valid measures are jaccard and containment.") == 0 ?
		SET_JACCARD : SET_CONTAINMENT;
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
	/* the frequency counters take up to a quarter of work_mem, the rows the rest */
	set_df_init(sb, call->mem_limit / 4);
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

	batch_log(call, "%s: read %llu rows (%llu skipped), %llu shingles counted",
			  call->fname, (unsigned long long) sb->rows.nrows,
			  (unsigned long long) sb->rows.nskipped, (unsigned long long) set_df_size(sb));
	if (sb->rows.nrows > 0 && call->mode == BATCH_CLUSTER && call->greedy_clusters)
		batch_greedy_begin(&sb->rows);	/* the pairs, as edges */
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
		else if (call->greedy != NULL)
			batch_greedy_finish(&sb->rows);
	}
	MemoryContextSwitchTo(old);
	batch_rows_free(&sb->rows);
	batch_end(call);
}

/* Common body of the query forms of shingleset_pairs and _clusters. */
static void
pairs_or_clusters(FunctionCallInfo fcinfo, BatchMode mode, const char *fname,
				  const char *query, double threshold, text *measure,
				  bool singletons, bool greedy)
{
	SetBatch   *sb = begin_sets(fcinfo, mode, fname, threshold, measure);

	sb->call->singletons = singletons;
	sb->call->greedy_clusters = greedy;
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
					  PG_GETARG_TEXT_PP(2), true, false);
	return (Datum) 0;
}

/*
 * shingleset_pairs(rel, id_column, set_column, threshold, measure): the
 * same over a relation.
 */
Datum
shingleset_pairs_rel(PG_FUNCTION_ARGS)
{
	char	   *query;

	nddup_batch_decided_arg(fcinfo, 3, "shingleset_pairs", "shingleset");
	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2) || PG_ARGISNULL(4))
	{
		/* like a STRICT function: no rows */
		InitMaterializedSRF(fcinfo, 0);
		return (Datum) 0;
	}
	query = nddup_relation_query("shingleset_pairs", PG_GETARG_OID(0),
								 PG_GETARG_NAME(1), PG_GETARG_NAME(2), NULL, NULL,
								 set_cols, nddup_lookup_type(fcinfo, "shingleset"));
	pairs_or_clusters(fcinfo, BATCH_PAIRS, "shingleset_pairs", query,
					  PG_GETARG_FLOAT8(3), PG_GETARG_TEXT_PP(4), true, false);
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
					  PG_GETARG_TEXT_PP(3), PG_GETARG_BOOL(2),
					  batch_parse_cluster_mode(PG_GETARG_TEXT_PP(4)));
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
	bool		greedy;

	nddup_batch_decided_arg(fcinfo, 3, "shingleset_clusters", "shingleset");
	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2) ||
		PG_ARGISNULL(3) || PG_ARGISNULL(5) || PG_ARGISNULL(6))
	{
		/* like a STRICT function: no rows */
		InitMaterializedSRF(fcinfo, 0);
		return (Datum) 0;
	}
	if (!batch_cluster_mode_arg(fcinfo, 7, &greedy))
		return (Datum) 0;
	query = nddup_relation_query("shingleset_clusters", PG_GETARG_OID(0), PG_GETARG_NAME(1),
								 PG_GETARG_NAME(2), PG_ARGISNULL(4) ? NULL : PG_GETARG_NAME(4), NULL,
								 set_cols, nddup_lookup_type(fcinfo, "shingleset"));
	pairs_or_clusters(fcinfo, BATCH_CLUSTER, "shingleset_clusters", query,
					  PG_GETARG_FLOAT8(3), PG_GETARG_TEXT_PP(6), PG_GETARG_BOOL(5), greedy);
	return (Datum) 0;
}
