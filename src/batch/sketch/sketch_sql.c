/*-------------------------------------------------------------------------
 *
 * sketch_sql.c
 *	  The SQL functions of batch near-duplicate detection over resemblance
 *	  sketches: all pairs of min-hash sketches whose estimated resemblance
 *	  reaches a threshold (minhash_pairs), the similarity join of two inputs
 *	  (minhash_join), union-find clusters (minhash_clusters), and all pairs
 *	  of documents sharing at least r super-shingles (super_shingle_pairs);
 *	  their inputs, and the choice between the in-memory path
 *	  (sketch_memory.c) and the path through temporary files
 *	  (sketch_spill.c).  See docs/batch-sketches.md.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "batch/sketch/sketch_batch.h"
#include "citus/distributed.h"

#include "executor/spi.h"
#include "executor/tuptable.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "tcop/dest.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

PG_FUNCTION_INFO_V1(minhash_pairs_query);
PG_FUNCTION_INFO_V1(minhash_pairs_rel);
PG_FUNCTION_INFO_V1(minhash_join_query);
PG_FUNCTION_INFO_V1(minhash_clusters_query);
PG_FUNCTION_INFO_V1(minhash_clusters_rel);
PG_FUNCTION_INFO_V1(super_shingle_pairs_query);

/*
 * Bytes per input row of the in-memory path besides the values: id 8,
 * flags 1, the two entry arrays of a band 32, the group lists 8, order key
 * 8, and for clusters union-find 5 and the id sort 32 + 8; plus what the
 * allocator and the growth of the arrays keep around them, so that the
 * total covers the measured peak (612 bytes per row at k = 128,
 * docs/batch-sketches.md).
 */
#define SK_ROW_OVERHEAD_PAIRS	112
#define SK_ROW_OVERHEAD_CLUSTER	160

/* A DestReceiver that stores the rows of an input query. */
typedef struct SketchReceiver
{
	DestReceiver pub;
	SketchBatch *sb;
	NddupInputCols cols;		/* the input query's columns */
} SketchReceiver;

/* Column roles of an (id, sketch[, order key]) query. */
static const NddupColRole sketch_cols[] = {NDDUP_COL_ID, NDDUP_COL_SKETCH, NDDUP_COL_ORDER};

/* Column roles of an (id, super-shingles) query. */
static const NddupColRole super_cols[] = {NDDUP_COL_ID, NDDUP_COL_SUPER};

/* Reject a threshold outside [0, 1]. */
static void
check_threshold(double t)
{
	if (isnan(t) || t < 0.0 || t > 1.0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("similarity threshold %g is out of range", t),
				 errdetail("The threshold must be between 0 and 1.")));
}

/* Reject a number of bands or of rows per band outside 1..1024. */
static int32
check_band_arg(const char *what, int64 v)
{
	if (v < 1 || v > NDDUP_MINHASH_MAX_K)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("number of %s %lld is out of range", what, (long long) v),
				 errdetail("It must be between 1 and %d.", NDDUP_MINHASH_MAX_K)));
	return (int32) v;
}

/* Take the shape of the first row: values per row and the row store. */
static void
set_params(SketchBatch *sb, int k)
{
	int			overhead = sb->call->mode == BATCH_CLUSTER ?
		SK_ROW_OVERHEAD_CLUSTER : SK_ROW_OVERHEAD_PAIRS;
	int			vsize = sb->super ? sizeof(int64) : sizeof(uint32);

	uint64		nskipped = sb->rows.nskipped;

	sb->k = k;
	batch_rows_init(&sb->rows, sb->call, MAXALIGN(vsize * k), vsize * k + overhead,
					sb->call->mem_limit);
	sb->rows.nskipped = nskipped;
	if (sb->verify.active)
		batch_rows_use_extra(&sb->rows);
	if (sb->has_order)
		batch_rows_use_aux(&sb->rows);
	sb->have_params = true;
}

/* Check that a sketch was made like the first one of the input. */
static void
check_params(SketchBatch *sb, const NddupMinhash *m)
{
	const NddupMinhash *p = sb->params;

	if (m->method != p->method || m->k != p->k || m->seed != p->seed ||
		m->size != p->size || m->unit != p->unit || m->bits != p->bits)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cannot compare min-hash sketches made with different parameters"),
				 errdetail("The first row of %s has (%s), a later row (%s).",
						   sb->call->fname, nddup_minhash_describe(p),
						   nddup_minhash_describe(m)),
				 errhint("Build all sketches with the same method, k, seed, shingle size, unit and bits.")));
}

/*
 * Store a min-hash row: its values unpacked to 32 bits, and the reduced
 * verification value (extra, len bytes; vflags) when the call verifies.
 */
static void
add_sketch(SketchBatch *sb, int64 id, Datum d, int64 aux, bool auxnull,
		   const char *extra, uint32 len, uint8 vflags)
{
	NddupMinhash *m = (NddupMinhash *) PG_DETOAST_DATUM(d);
	uint32		values[NDDUP_MINHASH_MAX_K + 1];
	uint8		flags = vflags;

	if (!sb->have_params)
	{
		sb->params = MemoryContextAlloc(sb->call->cxt, NDDUP_MINHASH_HDRSZ);
		memcpy(sb->params, m, NDDUP_MINHASH_HDRSZ);
		set_params(sb, m->k);
	}
	else
		check_params(sb, m);
	if (m->flags & NDDUP_MINHASH_EMPTY_DOC)
		flags |= ROW_EMPTY;
	memset(values, 0, sizeof(values));
	if (m->bits == 32)
		memcpy(values, NDDUP_MINHASH_VALUES(m), sizeof(uint32) * sb->k);
	else
		for (int i = 0; i < sb->k; i++)
			values[i] = nddup_bbit_get(m->data, i, m->bits);
	batch_rows_add_extra(&sb->rows, id, aux, auxnull, sb->side, flags, values,
						 extra, len);
	if ((Pointer) m != DatumGetPointer(d))
		pfree(m);
}

/* Store a super-shingle row; rows without super-shingles are skipped. */
static void
add_super(SketchBatch *sb, int64 id, Datum d)
{
	ArrayType  *a = DatumGetArrayTypeP(d);
	int			n;

	if (ARR_NDIM(a) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("super-shingles must be a one-dimensional array")));
	if (ARR_HASNULL(a) && array_contains_nulls(a))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("super-shingles must not contain nulls")));
	n = ArrayGetNItems(ARR_NDIM(a), ARR_DIMS(a));
	if (n == 0)
		sb->rows.nskipped++;	/* a document without shingles: no match */
	else
	{
		if (!sb->have_params)
			set_params(sb, n);
		else if (n != sb->k)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("cannot compare %d super-shingles with %d", sb->k, n),
					 errdetail("Every row of %s must have the same number of super-shingles.",
							   sb->call->fname)));
		batch_rows_add(&sb->rows, id, 0, true, 0, 0, ARR_DATA_PTR(a));
	}
	if ((Pointer) a != DatumGetPointer(d))
		pfree(a);
}

/* DestReceiver callback: take one row of an input query. */
static bool
receive_row(TupleTableSlot *slot, DestReceiver *self)
{
	SketchReceiver *r = (SketchReceiver *) self;
	SketchBatch *sb = r->sb;
	int64		id;
	int64		aux = 0;
	bool		auxnull = true;

	int			natts = r->cols.natts - (sb->verify.active ? 1 : 0);
	const char *extra = NULL;
	uint32		len = 0;
	uint8		vflags = 0;

	slot_getsomeattrs(slot, r->cols.natts);
	if (slot->tts_isnull[0] || slot->tts_isnull[1] ||
		(sb->verify.active && slot->tts_isnull[natts]))
	{
		sb->rows.nskipped++;
		return true;
	}
	id = nddup_datum_int64(slot->tts_values[0], r->cols.types[0]);
	if (natts >= 3 && !slot->tts_isnull[2])
	{
		aux = nddup_datum_int64(slot->tts_values[2], r->cols.types[2]);
		auxnull = false;
	}
	if (sb->verify.active)
		extra = batch_verify_reduce(&sb->verify, slot->tts_values[natts],
									r->cols.types[natts], &len, &vflags);
	if (sb->super)
		add_super(sb, id, slot->tts_values[1]);
	else
		add_sketch(sb, id, slot->tts_values[1], aux, auxnull, extra, len, vflags);
	return true;
}

/* Read one input query as side 'side' (0, or 1 for query_b). */
static void
read_input(SketchBatch *sb, const char *argname, const char *query,
		   const NddupColRole *roles, int nreq, int nroles, int side)
{
	SketchReceiver recv;
	SPIPlanPtr	plan;

	memset(&recv, 0, sizeof(recv));
	nddup_init_receiver(&recv.pub, receive_row);
	recv.sb = sb;
	sb->side = side;
	plan = nddup_prepare_input(sb->call->fname, argname, query, roles, nreq, nroles,
							   sb->sketch_oid, sb->verify.active, &recv.cols);
	if (recv.cols.natts - (sb->verify.active ? 1 : 0) >= 3)
	{
		sb->has_order = true;
		if (sb->have_params)
			batch_rows_use_aux(&sb->rows);
	}
	nddup_run_input(plan, &recv.pub);
}

/*
 * Set up a call; with verify (a threshold) the rows also keep their reduced
 * verification values.
 */
static SketchBatch *
begin_sketch(FunctionCallInfo fcinfo, BatchMode mode, const char *fname,
			 bool super, bool verify, double vthreshold)
{
	BatchCall  *call = batch_begin(fcinfo, mode, fname);
	SketchBatch *sb = MemoryContextAllocZero(call->cxt, sizeof(SketchBatch));

	sb->call = call;
	sb->super = super;
	sb->sketch_oid = super ? InvalidOid : nddup_lookup_type(fcinfo, "minhash_sketch");
	batch_verify_init(&sb->verify, call, verify, vthreshold,
					  verify ? nddup_lookup_type(fcinfo, "shingleset") : InvalidOid,
					  sb->sketch_oid);
	return sb;
}

/*
 * Choose the bands.  emin = the least number of equal positions whose
 * estimate reaches the threshold; a result has at most D = k - emin unequal
 * positions, so b = D + 1 disjoint bands guarantee an all-equal band
 * (pigeonhole, as in Manku et al. 2007 s.3 for Hamming distance).
 */
static void
choose_bands(SketchBatch *sb, int32 bands, int32 rows)
{
	int			k = sb->k;
	int			bits = sb->params->bits;
	int			dmax;

	sb->emin = k;
	for (int e = 0; e <= k; e++)
		if (nddup_minhash_estimate(e, k, bits) >= sb->threshold)
		{
			sb->emin = e;
			break;
		}
	dmax = k - sb->emin;
	sb->auto_bands = bands == 0 && rows == 0;
	if (sb->auto_bands)
	{
		sb->nbands = dmax + 1;
		sb->nrowsband = sb->emin > 0 ? k / sb->nbands : 0;
	}
	else
	{
		if (bands == 0)
			bands = k / rows;
		if (rows == 0)
			rows = k / bands;
		if (bands < 1 || rows < 1 || (int64) bands * rows > k)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%d bands of %d rows do not fit in sketches of k=%d values",
							bands, rows, k),
					 errdetail("bands * rows must be at most k.")));
		sb->nbands = bands;
		sb->nrowsband = rows;
	}
	sb->exact = sb->emin > 0 && sb->nbands > dmax;
}

/* Compute and emit the result once the input is read; frees the state. */
static void
finish_sketch(SketchBatch *sb, int32 bands, int32 rows)
{
	BatchCall  *call = sb->call;
	MemoryContext old;

	batch_log(call, "%s: read %llu rows (%llu skipped)", call->fname,
			  (unsigned long long) sb->rows.nrows, (unsigned long long) sb->rows.nskipped);
	old = MemoryContextSwitchTo(call->cxt);
	if (sb->rows.nrows > 0 && call->mode == BATCH_CLUSTER && call->greedy_clusters)
		batch_greedy_begin(&sb->rows);	/* the pairs, as edges */
	if (sb->rows.nrows > 0 && call->mode == BATCH_CLUSTER)
		batch_uf_init(call, &sb->uf, sb->rows.nrows,
					  sb->rows.spilled ? "maintenance_work_mem" : "work_mem");
	if (sb->super)
	{
		if (sb->rows.nrows > 1)
		{
			if (sb->rows.spilled)
				sketch_super_pairs_spilled(sb);
			else
				sketch_super_pairs_in_memory(sb);
		}
	}
	else if (sb->rows.nrows > 0)
	{
		choose_bands(sb, bands, rows);
		if (sb->emin > 0)
			batch_log(call, "%s: k=%d, at least %d equal positions, %d bands of %d rows (%s)",
					  call->fname, sb->k, sb->emin, sb->nbands, sb->nrowsband,
					  sb->exact ? "exact" : "approximate");
		if (sb->rows.spilled)
			sketch_pairs_spilled(sb);
		else
			sketch_pairs_in_memory(sb);
		if (call->mode == BATCH_CLUSTER)
			batch_finish_clusters(&sb->rows, &sb->uf);
		else if (call->greedy != NULL)
			batch_greedy_finish(&sb->rows);
	}
	MemoryContextSwitchTo(old);
	if (sb->have_params)
		batch_rows_free(&sb->rows);
	batch_end(call);
}

/*
 * The optional bands and rows arguments (NULL = 0 = choose).  They are
 * bigint in SQL only so that a call of the relation form with an integer
 * threshold, minhash_pairs('docs', 'id', 'sk', 1), resolves to the relation
 * form: with integer band arguments the query form would match the integer
 * exactly and win, and fail on 'id' as a float8.
 */
static void
band_args(FunctionCallInfo fcinfo, int bandarg, int32 *bands, int32 *rows)
{
	*bands = PG_ARGISNULL(bandarg) ? 0 :
		check_band_arg("bands", PG_GETARG_INT64(bandarg));
	*rows = PG_ARGISNULL(bandarg + 1) ? 0 :
		check_band_arg("rows per band", PG_GETARG_INT64(bandarg + 1));
}

/* Common body of minhash_pairs and minhash_clusters. */
static void
pairs_or_clusters(FunctionCallInfo fcinfo, BatchMode mode, const char *fname,
				  const char *query, double threshold, int32 bands,
				  int32 rows, bool singletons, bool verify, double vthreshold,
				  bool greedy)
{
	SketchBatch *sb;

	check_threshold(threshold);
	sb = begin_sketch(fcinfo, mode, fname, false, verify, vthreshold);
	sb->threshold = threshold;
	sb->call->singletons = singletons;
	sb->call->greedy_clusters = greedy;
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	read_input(sb, "the query", query, sketch_cols, 2, mode == BATCH_CLUSTER ? 3 : 2, 0);
	SPI_finish();
	finish_sketch(sb, bands, rows);
}

/*
 * minhash_pairs(query text, threshold float8, bands int, rows int): all
 * pairs of rows whose estimated resemblance is at least threshold.
 */
Datum
minhash_pairs_query(PG_FUNCTION_ARGS)
{
	int32		bands,
				rows;
	double		vthreshold;
	bool		verify;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
	{
		InitMaterializedSRF(fcinfo, 0);
		return (Datum) 0;
	}
	band_args(fcinfo, 2, &bands, &rows);
	verify = batch_verify_query_arg(fcinfo, 4, &vthreshold);
	pairs_or_clusters(fcinfo, BATCH_PAIRS, "minhash_pairs",
					  text_to_cstring(PG_GETARG_TEXT_PP(0)),
					  PG_GETARG_FLOAT8(1), bands, rows, true, verify, vthreshold, false);
	return (Datum) 0;
}

/*
 * minhash_pairs(rel regclass, id_column name, sketch_column name, threshold
 * float8, bands int, rows int): the same over a relation.
 */
Datum
minhash_pairs_rel(PG_FUNCTION_ARGS)
{
	int32		bands,
				rows;
	char	   *query;
	Name		verifycol;
	double		vthreshold;

	nddup_batch_decided_arg(fcinfo, 3, "minhash_pairs", "minhash");
	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2) ||
		PG_ARGISNULL(3))
	{
		InitMaterializedSRF(fcinfo, 0);
		return (Datum) 0;
	}
	if (nddup_dist_minhash_pairs(fcinfo))
		return (Datum) 0;
	band_args(fcinfo, 4, &bands, &rows);
	check_threshold(PG_GETARG_FLOAT8(3));
	verifycol = batch_verify_relation_args(fcinfo, "minhash_pairs", 6, &vthreshold);
	query = nddup_relation_query("minhash_pairs", PG_GETARG_OID(0), PG_GETARG_NAME(1),
								 PG_GETARG_NAME(2), NULL, verifycol, sketch_cols,
								 nddup_lookup_type(fcinfo, "minhash_sketch"));
	pairs_or_clusters(fcinfo, BATCH_PAIRS, "minhash_pairs", query,
					  PG_GETARG_FLOAT8(3), bands, rows, true, verifycol != NULL,
					  vthreshold, false);
	return (Datum) 0;
}

/*
 * minhash_join(query_a, query_b, threshold, bands, rows): pairs (a, b) of a
 * row of each query whose estimated resemblance is at least threshold.
 */
Datum
minhash_join_query(PG_FUNCTION_ARGS)
{
	int32		bands,
				rows;
	SketchBatch *sb;
	char	   *qa;
	char	   *qb;
	double		vthreshold;
	bool		verify;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2))
	{
		InitMaterializedSRF(fcinfo, 0);
		return (Datum) 0;
	}
	band_args(fcinfo, 3, &bands, &rows);
	check_threshold(PG_GETARG_FLOAT8(2));
	verify = batch_verify_query_arg(fcinfo, 5, &vthreshold);
	qa = text_to_cstring(PG_GETARG_TEXT_PP(0));
	qb = text_to_cstring(PG_GETARG_TEXT_PP(1));
	sb = begin_sketch(fcinfo, BATCH_JOIN, "minhash_join", false, verify, vthreshold);
	sb->threshold = PG_GETARG_FLOAT8(2);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	read_input(sb, "query_a", qa, sketch_cols, 2, 2, 0);
	read_input(sb, "query_b", qb, sketch_cols, 2, 2, 1);
	SPI_finish();
	finish_sketch(sb, bands, rows);
	return (Datum) 0;
}

/*
 * minhash_clusters(query, threshold, bands, rows, singletons): connected
 * components of the pairs, named after their earliest member.
 */
Datum
minhash_clusters_query(PG_FUNCTION_ARGS)
{
	int32		bands,
				rows;
	double		vthreshold;
	bool		verify;
	bool		greedy;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
	{
		InitMaterializedSRF(fcinfo, 0);
		return (Datum) 0;
	}
	if (!batch_cluster_mode_arg(fcinfo, 6, &greedy))
		return (Datum) 0;
	band_args(fcinfo, 2, &bands, &rows);
	verify = batch_verify_query_arg(fcinfo, 5, &vthreshold);
	pairs_or_clusters(fcinfo, BATCH_CLUSTER, "minhash_clusters",
					  text_to_cstring(PG_GETARG_TEXT_PP(0)),
					  PG_GETARG_FLOAT8(1), bands, rows,
					  PG_ARGISNULL(4) ? true : PG_GETARG_BOOL(4), verify, vthreshold,
					  greedy);
	return (Datum) 0;
}

/*
 * minhash_clusters(rel, id_column, sketch_column, threshold, order_column,
 * bands, rows, singletons, verify_column, verify, mode): the same over a
 * relation; order_column may be NULL.
 */
Datum
minhash_clusters_rel(PG_FUNCTION_ARGS)
{
	int32		bands,
				rows;
	char	   *query;
	Name		verifycol;
	double		vthreshold;
	bool		greedy;

	nddup_batch_decided_arg(fcinfo, 3, "minhash_clusters", "minhash");
	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2) ||
		PG_ARGISNULL(3))
	{
		InitMaterializedSRF(fcinfo, 0);
		return (Datum) 0;
	}
	if (!batch_cluster_mode_arg(fcinfo, 10, &greedy))
		return (Datum) 0;
	if (!greedy && nddup_dist_minhash_clusters(fcinfo))
		return (Datum) 0;
	band_args(fcinfo, 5, &bands, &rows);
	check_threshold(PG_GETARG_FLOAT8(3));
	verifycol = batch_verify_relation_args(fcinfo, "minhash_clusters", 8, &vthreshold);
	query = nddup_relation_query("minhash_clusters", PG_GETARG_OID(0), PG_GETARG_NAME(1),
								 PG_GETARG_NAME(2),
								 PG_ARGISNULL(4) ? NULL : PG_GETARG_NAME(4), verifycol,
								 sketch_cols, nddup_lookup_type(fcinfo, "minhash_sketch"));
	pairs_or_clusters(fcinfo, BATCH_CLUSTER, "minhash_clusters", query,
					  PG_GETARG_FLOAT8(3), bands, rows,
					  PG_ARGISNULL(7) ? true : PG_GETARG_BOOL(7), verifycol != NULL,
					  vthreshold, greedy);
	return (Datum) 0;
}

/*
 * super_shingle_pairs(query text, r int): all pairs of rows (id, bigint[])
 * with at least r equal super-shingles at the same positions.
 */
Datum
super_shingle_pairs_query(PG_FUNCTION_ARGS)
{
	char	   *query = text_to_cstring(PG_GETARG_TEXT_PP(0));
	int32		r = PG_GETARG_INT32(1);
	SketchBatch *sb;

	if (r < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("number of matches r %d is out of range", r),
				 errdetail("r must be at least 1.")));
	sb = begin_sketch(fcinfo, BATCH_PAIRS, "super_shingle_pairs", true, false, 0);
	sb->match_r = r;
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	read_input(sb, "the query", query, super_cols, 2, 2, 0);
	SPI_finish();
	finish_sketch(sb, 0, 0);
	return (Datum) 0;
}
