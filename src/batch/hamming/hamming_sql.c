/*-------------------------------------------------------------------------
 *
 * hamming_sql.c
 *	  The SQL functions of batch near-duplicate detection over simhash64
 *	  fingerprints: all pairs within a Hamming radius (hamming_pairs), the
 *	  similarity join of two inputs (hamming_join), union-find clusters
 *	  (hamming_clusters) and the assignment of new rows to existing clusters
 *	  (hamming_assign); their inputs, and the choice between the in-memory
 *	  path (hamming_memory.c) and the path through temporary files
 *	  (hamming_spill.c).  See docs/batch.md.
 *
 * While the rows fit in work_mem (at the measured bytes per row below)
 * everything stays in arrays; beyond it the rows go to a temporary file and
 * every table is partitioned through temporary files, so any input
 * completes at default settings.  Clusters then keep only their union-find
 * in memory (5 bytes per row, within maintenance_work_mem).
 * hamming_assign keeps its whole input in memory.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "batch/hamming/hamming_batch.h"
#include "citus/distributed.h"

#include "executor/spi.h"
#include "executor/tuptable.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "tcop/dest.h"
#include "utils/builtins.h"

PG_FUNCTION_INFO_V1(hamming_pairs_query);
PG_FUNCTION_INFO_V1(hamming_pairs_rel);
PG_FUNCTION_INFO_V1(hamming_join_query);
PG_FUNCTION_INFO_V1(hamming_clusters_query);
PG_FUNCTION_INFO_V1(hamming_clusters_rel);
PG_FUNCTION_INFO_V1(hamming_assign_query);

/*
 * Peak bytes per input row of the in-memory path: the arrays (see the notes
 * at hamming_group_fingerprints and batch_finish_clusters) plus what the
 * allocator keeps around them, as measured with VmHWM at 1M rows
 * (docs/reports/bench-batch.md).  docs/batch.md quotes them.
 */
#define BYTES_PER_ROW_PAIRS		80
#define BYTES_PER_ROW_CLUSTER	96
#define BYTES_PER_ROW_ASSIGN	112

/* A DestReceiver that stores the rows of an input query. */
typedef struct HammingReceiver
{
	DestReceiver pub;
	HammingBatch *hb;
	int			side;
	NddupInputCols cols;		/* the input query's columns */
} HammingReceiver;

/* Column roles of an (id, fingerprint[, order key]) query. */
static const NddupColRole fp_cols[] = {NDDUP_COL_ID, NDDUP_COL_SIMHASH, NDDUP_COL_ORDER};

/* Column roles of an (id, fingerprint, cluster id) query. */
static const NddupColRole existing_cols[] = {NDDUP_COL_ID, NDDUP_COL_SIMHASH, NDDUP_COL_CLUSTER};

/* Reject a radius outside 0..64. */
static void
check_radius(int32 radius)
{
	if (radius < 0 || radius > 64)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("radius %d is out of range", radius),
				 errdetail("A Hamming radius of 64-bit fingerprints is between 0 and 64.")));
}

/* DestReceiver callback: take one row of an input query. */
static bool
receive_row(TupleTableSlot *slot, DestReceiver *self)
{
	HammingReceiver *r = (HammingReceiver *) self;
	HammingBatch *hb = r->hb;
	int64		id;
	uint64		fp;
	int64		aux = 0;
	bool		auxnull = true;

	slot_getsomeattrs(slot, r->cols.natts);
	if (slot->tts_isnull[0] || slot->tts_isnull[1] ||
		(hb->verify.active && slot->tts_isnull[r->cols.natts - 1]))
	{
		hb->rows.nskipped++;
		return true;
	}
	id = nddup_datum_int64(slot->tts_values[0], r->cols.types[0]);
	fp = DatumGetSimhash64(slot->tts_values[1]);
	if (hb->verify.active)
	{
		int			vcol = r->cols.natts - 1;
		uint8		flags = 0;
		uint32		len;
		const char *value = batch_verify_reduce(&hb->verify, slot->tts_values[vcol],
												r->cols.types[vcol], &len, &flags);

		if (vcol >= 3 && !slot->tts_isnull[2])
		{
			aux = nddup_datum_int64(slot->tts_values[2], r->cols.types[2]);
			auxnull = false;
		}
		batch_rows_add_extra(&hb->rows, id, aux, auxnull, r->side, flags, &fp,
							 value, len);
		return true;
	}
	if (r->cols.natts >= 3 && !slot->tts_isnull[2])
	{
		aux = nddup_datum_int64(slot->tts_values[2], r->cols.types[2]);
		auxnull = false;
	}
	/* an existing row without a cluster is its own cluster */
	if (r->cols.natts >= 3 && r->cols.roles[2] == NDDUP_COL_CLUSTER && auxnull)
	{
		aux = id;
		auxnull = false;
	}
	batch_rows_add(&hb->rows, id, aux, auxnull, r->side, 0, &fp);
	return true;
}

/* Read one input query of (id, fp[, aux]) rows as side 'side'. */
static void
read_input(HammingBatch *hb, const char *argname, const char *query,
		   const NddupColRole *roles, int nreq, int nroles, int side)
{
	HammingReceiver recv;
	SPIPlanPtr	plan;

	memset(&recv, 0, sizeof(recv));
	nddup_init_receiver(&recv.pub, receive_row);
	recv.hb = hb;
	recv.side = side;
	plan = nddup_prepare_input(hb->call->fname, argname, query, roles, nreq,
							   nroles, hb->simhash_oid, hb->verify.active,
							   &recv.cols);
	if (recv.cols.natts - (hb->verify.active ? 1 : 0) >= 3)
		batch_rows_use_aux(&hb->rows);
	nddup_run_input(plan, &recv.pub);
}

/*
 * Set up a call and its row store; with verify (a threshold, not NULL) the
 * rows also keep their reduced verification values.
 */
static HammingBatch *
begin_hamming(FunctionCallInfo fcinfo, BatchMode mode, const char *fname,
			  int32 radius, bool verify, double threshold)
{
	HammingBatch *hb;
	BatchCall  *call;
	int			bytes_per_row;

	check_radius(radius);
	call = batch_begin(fcinfo, mode, fname);
	hb = MemoryContextAllocZero(call->cxt, sizeof(HammingBatch));
	hb->call = call;
	hb->radius = radius;
	hb->simhash_oid = nddup_lookup_type(fcinfo, "simhash64");
	bytes_per_row = mode == BATCH_CLUSTER ? BYTES_PER_ROW_CLUSTER :
		mode == BATCH_ASSIGN ? BYTES_PER_ROW_ASSIGN : BYTES_PER_ROW_PAIRS;
	batch_rows_init(&hb->rows, call, sizeof(uint64), bytes_per_row, call->mem_limit);
	batch_verify_init(&hb->verify, call, verify, threshold,
					  verify ? nddup_lookup_type(fcinfo, "shingleset") : InvalidOid,
					  verify ? nddup_lookup_type(fcinfo, "minhash_sketch") : InvalidOid);
	if (verify)
		batch_rows_use_extra(&hb->rows);
	return hb;
}

/* Compute and emit the result once the input is read; frees the state. */
static void
finish_hamming(HammingBatch *hb)
{
	BatchCall  *call = hb->call;
	BatchRows  *rows = &hb->rows;

	batch_log(call, "%s: read %llu rows (%llu skipped for a NULL id or fingerprint)",
			  call->fname, (unsigned long long) rows->nrows,
			  (unsigned long long) rows->nskipped);
	if (call->mode == BATCH_CLUSTER && call->greedy_clusters)
		batch_greedy_begin(rows);	/* the pairs, as edges */
	if (!rows->spilled)
	{
		hamming_group_fingerprints(hb);
		batch_log_time(call, "%s: grouped %llu rows into %llu distinct fingerprints",
					   call->fname, (unsigned long long) rows->nrows,
					   (unsigned long long) hb->ndistinct);
		if (call->mode == BATCH_CLUSTER)
			batch_uf_init(call, &hb->uf, rows->nrows, "work_mem");
		if (call->mode == BATCH_ASSIGN)
			hamming_assign_begin(hb);
		hamming_tables_in_memory(hb);
		batch_log_time(call, "%s: tables done", call->fname);
		if (call->mode == BATCH_CLUSTER)
			batch_finish_clusters(rows, &hb->uf);
		else if (call->mode == BATCH_ASSIGN)
			hamming_assign_finish(hb);
		else if (call->greedy != NULL)
			batch_greedy_finish(rows);
	}
	else
	{
		if (call->mode == BATCH_ASSIGN)
			batch_error_memory(call, "work_mem", (double) rows->nrows * BYTES_PER_ROW_ASSIGN,
							   "hamming_assign keeps its input rows in memory, about 112 bytes per row.");
		if (call->mode == BATCH_CLUSTER)
			batch_uf_init(call, &hb->uf, rows->nrows, "maintenance_work_mem");
		hamming_tables_spilled(hb);
		batch_log_time(call, "%s: tables done", call->fname);
		if (call->mode == BATCH_CLUSTER)
			batch_finish_clusters(rows, &hb->uf);
		else if (call->greedy != NULL)
			batch_greedy_finish(rows);
	}
	batch_rows_free(rows);
	batch_end(call);
}

/* Are any of the first n arguments NULL (a STRICT function's no rows)? */
static bool
any_null_arg(FunctionCallInfo fcinfo, int n)
{
	for (int i = 0; i < n; i++)
		if (PG_ARGISNULL(i))
		{
			InitMaterializedSRF(fcinfo, 0);
			return true;
		}
	return false;
}

/* Common body of hamming_pairs and hamming_clusters over a query text. */
static void
pairs_or_clusters(FunctionCallInfo fcinfo, BatchMode mode, const char *fname,
				  const char *query, int32 radius, bool singletons,
				  bool verify, double threshold, bool greedy)
{
	HammingBatch *hb = begin_hamming(fcinfo, mode, fname, radius, verify, threshold);

	hb->call->singletons = singletons;
	hb->call->greedy_clusters = greedy;
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	read_input(hb, "the query", query, fp_cols, 2, mode == BATCH_CLUSTER ? 3 : 2, 0);
	SPI_finish();
	if (!verify)
		nddup_warn_chance_pairs(fname, (double) hb->rows.nrows, radius, -1.0,
								"Add verify => 0.3 to confirm each pair by the exact resemblance of the texts (the query's last column, or verify_column => for a table), or use minhash_pairs() or minhash_clusters().");
	finish_hamming(hb);
}

/*
 * hamming_pairs(query text, radius integer, verify float8): all pairs
 * within radius, verified by the query's last column when verify is given.
 */
Datum
hamming_pairs_query(PG_FUNCTION_ARGS)
{
	double		threshold;
	bool		verify;

	if (any_null_arg(fcinfo, 2))
		return (Datum) 0;
	if (nddup_dist_hamming_pairs(fcinfo, false))
		return (Datum) 0;
	verify = batch_verify_query_arg(fcinfo, 2, &threshold);
	pairs_or_clusters(fcinfo, BATCH_PAIRS, "hamming_pairs",
					  text_to_cstring(PG_GETARG_TEXT_PP(0)), PG_GETARG_INT32(1),
					  true, verify, threshold, false);
	return (Datum) 0;
}

/*
 * hamming_pairs(rel, id_column, fp_column, radius, verify_column, verify):
 * over a relation.
 */
Datum
hamming_pairs_rel(PG_FUNCTION_ARGS)
{
	char	   *query;
	Name		verifycol;
	double		threshold;

	nddup_batch_decided_arg(fcinfo, 3, "hamming_pairs", "simhash64");
	if (any_null_arg(fcinfo, 4))
		return (Datum) 0;
	if (nddup_dist_hamming_pairs(fcinfo, true))
		return (Datum) 0;
	check_radius(PG_GETARG_INT32(3));
	verifycol = batch_verify_relation_args(fcinfo, "hamming_pairs", 4, &threshold);
	query = nddup_relation_query("hamming_pairs", PG_GETARG_OID(0), PG_GETARG_NAME(1),
								 PG_GETARG_NAME(2), NULL, verifycol, fp_cols,
								 nddup_lookup_type(fcinfo, "simhash64"));
	pairs_or_clusters(fcinfo, BATCH_PAIRS, "hamming_pairs", query,
					  PG_GETARG_INT32(3), true, verifycol != NULL, threshold, false);
	return (Datum) 0;
}

/*
 * hamming_join(query_a, query_b, radius, verify): pairs (a, b) within
 * radius, verified by each query's last column when verify is given.
 */
Datum
hamming_join_query(PG_FUNCTION_ARGS)
{
	char	   *qa;
	char	   *qb;
	HammingBatch *hb;
	double		threshold;
	bool		verify;

	if (any_null_arg(fcinfo, 3))
		return (Datum) 0;
	if (nddup_dist_hamming_join(fcinfo))
		return (Datum) 0;
	qa = text_to_cstring(PG_GETARG_TEXT_PP(0));
	qb = text_to_cstring(PG_GETARG_TEXT_PP(1));
	verify = batch_verify_query_arg(fcinfo, 3, &threshold);
	hb = begin_hamming(fcinfo, BATCH_JOIN, "hamming_join", PG_GETARG_INT32(2),
					   verify, threshold);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	read_input(hb, "query_a", qa, fp_cols, 2, 2, 0);
	read_input(hb, "query_b", qb, fp_cols, 2, 2, 1);
	SPI_finish();
	finish_hamming(hb);
	return (Datum) 0;
}

/*
 * hamming_clusters(query, radius, singletons, verify, mode): clusters of
 * fingerprints, linked by verified pairs when verify is given; greedy
 * (batch_greedy.c) or connected components.
 */
Datum
hamming_clusters_query(PG_FUNCTION_ARGS)
{
	double		threshold;
	bool		verify;
	bool		greedy;

	if (any_null_arg(fcinfo, 3) || !batch_cluster_mode_arg(fcinfo, 4, &greedy))
		return (Datum) 0;
	if (!greedy && nddup_dist_hamming_clusters(fcinfo, false))
		return (Datum) 0;
	verify = batch_verify_query_arg(fcinfo, 3, &threshold);
	pairs_or_clusters(fcinfo, BATCH_CLUSTER, "hamming_clusters",
					  text_to_cstring(PG_GETARG_TEXT_PP(0)), PG_GETARG_INT32(1),
					  PG_GETARG_BOOL(2), verify, threshold, greedy);
	return (Datum) 0;
}

/*
 * hamming_clusters(rel, id_column, fp_column, radius, order_column,
 * singletons, verify_column, verify, mode): over a relation; order_column
 * may be NULL.
 */
Datum
hamming_clusters_rel(PG_FUNCTION_ARGS)
{
	char	   *query;
	bool		singletons = PG_ARGISNULL(5) ? true : PG_GETARG_BOOL(5);
	Name		verifycol;
	double		threshold;
	bool		greedy;

	nddup_batch_decided_arg(fcinfo, 3, "hamming_clusters", "simhash64");
	if (any_null_arg(fcinfo, 4) || !batch_cluster_mode_arg(fcinfo, 8, &greedy))
		return (Datum) 0;
	if (!greedy && nddup_dist_hamming_clusters(fcinfo, true))
		return (Datum) 0;
	check_radius(PG_GETARG_INT32(3));
	verifycol = batch_verify_relation_args(fcinfo, "hamming_clusters", 6, &threshold);
	query = nddup_relation_query("hamming_clusters", PG_GETARG_OID(0), PG_GETARG_NAME(1),
								 PG_GETARG_NAME(2),
								 PG_ARGISNULL(4) ? NULL : PG_GETARG_NAME(4), verifycol,
								 fp_cols, nddup_lookup_type(fcinfo, "simhash64"));
	pairs_or_clusters(fcinfo, BATCH_CLUSTER, "hamming_clusters", query,
					  PG_GETARG_INT32(3), singletons, verifycol != NULL, threshold, greedy);
	return (Datum) 0;
}

/*
 * hamming_assign(new_query, existing_query, radius): the cluster of each
 * new row (see hamming_assign.c for the rules).
 */
Datum
hamming_assign_query(PG_FUNCTION_ARGS)
{
	char	   *qnew = text_to_cstring(PG_GETARG_TEXT_PP(0));
	char	   *qold = text_to_cstring(PG_GETARG_TEXT_PP(1));
	HammingBatch *hb = begin_hamming(fcinfo, BATCH_ASSIGN, "hamming_assign",
									 PG_GETARG_INT32(2), false, 0);

	batch_rows_use_aux(&hb->rows);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	/* existing rows are side 0 (cluster id as aux), new rows side 1 */
	read_input(hb, "existing_query", qold, existing_cols, 3, 3, 0);
	read_input(hb, "new_query", qnew, fp_cols, 2, 3, 1);
	SPI_finish();
	finish_hamming(hb);
	return (Datum) 0;
}
