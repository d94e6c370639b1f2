/*-------------------------------------------------------------------------
 *
 * dist_work.c
 *	  The machinery of the distributed batch functions (src/batch/
 *	  distributed.c): which inputs go distributed, the work tables created
 *	  on the Citus cluster and dropped at the end of the call, the work
 *	  statements run through SPI, the rows that come to the coordinator
 *	  (received by a DestReceiver, not through SPI's tuple table), and the
 *	  clusters finished on the coordinator by union-find (Broder et al.
 *	  1997 s.4).  See docs/scale-out.md.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "citus/dist_work.h"

#include "access/htup_details.h"
#include "access/relation.h"
#include "catalog/namespace.h"
#include "catalog/pg_index.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "executor/tuptable.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "portability/instr_time.h"
#include "storage/itemptr.h"
#include "tcop/dest.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/plancache.h"
#include "utils/rel.h"
#include "utils/relcache.h"
#include "utils/syscache.h"
#include "utils/tuplestore.h"

PG_FUNCTION_INFO_V1(nddup_row_key);

/* Coordinator memory per received row (clusters), for the work_mem check. */
#define BYTES_PER_RECEIVED_ROW	48

/* A DestReceiver that hands the rows of a work query to a NddupDistCall. */
typedef struct DistReceiver
{
	DestReceiver pub;
	NddupDistCall *call;
	Oid			types[5];		/* of the query's columns */
	int			natts;
	int			kind;			/* RECV_* */
} DistReceiver;

/* Progress or debug message with the time since the start in its DETAIL. */
void
nddup_work_log(NddupDistCall *call, const char *fmt,...)
{
	instr_time	now;
	va_list		ap;
	StringInfoData buf;

	initStringInfo(&buf);
	for (;;)
	{
		int			needed;

		va_start(ap, fmt);
		needed = appendStringInfoVA(&buf, fmt, ap);
		va_end(ap);
		if (needed == 0)
			break;
		enlargeStringInfo(&buf, needed);
	}
	INSTR_TIME_SET_CURRENT(now);
	INSTR_TIME_SUBTRACT(now, call->start);
	ereport(call->progress ? NOTICE : DEBUG1,
			(errmsg_internal("%s: %s", call->fname, buf.data),
			 errdetail_internal("%.0f ms since the start.", INSTR_TIME_GET_MILLISEC(now))));
	pfree(buf.data);
}

/* ----------------------------------------------------------------
 *		Inputs
 * ----------------------------------------------------------------
 */

/* Does a query (or an expression in it) read a distributed table? */
static bool
reads_distributed(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Query))
		return query_tree_walker((Query *) node, reads_distributed, context,
								 QTW_EXAMINE_RTES_BEFORE);
	if (IsA(node, RangeTblEntry))
	{
		RangeTblEntry *rte = (RangeTblEntry *) node;
		char	   *distcol;

		if (rte->rtekind == RTE_RELATION)
		{
			char		method = nddup_citus_distribution(rte->relid, &distcol);

			return method != '\0' && method != 'n';
		}
		return false;
	}
	return expression_tree_walker(node, reads_distributed, context);
}

/* Is there a unique index on exactly this column (no expression, no predicate)? */
static bool
column_is_unique(Oid relid, const char *colname)
{
	Relation	rel = relation_open(relid, AccessShareLock);
	AttrNumber	attno = get_attnum(relid, colname);
	List	   *indexes = RelationGetIndexList(rel);
	ListCell   *lc;
	bool		unique = false;

	foreach(lc, indexes)
	{
		HeapTuple	tup = SearchSysCache1(INDEXRELID, ObjectIdGetDatum(lfirst_oid(lc)));
		Form_pg_index ind;

		if (!HeapTupleIsValid(tup))
			continue;
		ind = (Form_pg_index) GETSTRUCT(tup);
		if (ind->indisunique && ind->indisvalid && ind->indimmediate &&
			ind->indnkeyatts == 1 && ind->indkey.values[0] == attno &&
			heap_attisnull(tup, Anum_pg_index_indpred, NULL) &&
			heap_attisnull(tup, Anum_pg_index_indexprs, NULL))
			unique = true;
		ReleaseSysCache(tup);
	}
	list_free(indexes);
	relation_close(rel, AccessShareLock);
	return unique;
}

/*
 * Decide whether an input goes to the distributed path, and check its
 * columns as the local code does (the same errors, before any row is
 * read).  Fills call->sql and call->cols.  Inside SPI.
 */
bool
nddup_work_input(NddupDistCall *call, const NddupDistInput *in, const NddupColRole *roles,
		   int nreq, int nroles, Oid own_type)
{
	SPIPlanPtr	plan;
	bool		distributed = false;
	const char *argname = "the query";

	if (OidIsValid(in->relid))
	{
		NameData	idn,
					valn,
					ordn;
		char	   *distcol;
		char		method = nddup_citus_distribution(in->relid, &distcol);

		if (method == '\0' || method == 'n')
			return false;
		namestrcpy(&idn, in->idcol);
		namestrcpy(&valn, in->valcol);
		if (in->ordcol)
			namestrcpy(&ordn, in->ordcol);
		call->sql = nddup_relation_query(call->fname, in->relid, &idn, &valn,
										 in->ordcol ? &ordn : NULL, NULL, roles,
										 own_type);
		call->ids_unique = column_is_unique(in->relid, in->idcol);
		distributed = true;
	}
	else
		call->sql = pstrdup(in->query);

	plan = nddup_prepare_input(call->fname, argname, call->sql, roles, nreq,
							   nroles, own_type, false, &call->cols);
	if (!distributed)
	{
		ListCell   *lc;

		foreach(lc, SPI_plan_get_plan_sources(plan))
		{
			CachedPlanSource *src = (CachedPlanSource *) lfirst(lc);
			ListCell   *lq;

			foreach(lq, src->query_list)
				if (reads_distributed((Node *) lfirst(lq), NULL))
					distributed = true;
		}
	}
	SPI_freeplan(plan);
	return distributed;
}

/*
 * The input as a subquery of the work queries, its columns named id, val
 * and ord ("AS q(id, val[, ord])").  A trailing semicolon is dropped, and
 * the text sits on lines of its own so that a trailing comment ends there.
 */
char *
nddup_work_subquery(NddupDistCall *call)
{
	char	   *text = pstrdup(call->sql);
	int			len = strlen(text);

	while (len > 0 && (text[len - 1] == ';' || isspace((unsigned char) text[len - 1])))
		text[--len] = '\0';
	return psprintf("(\n%s\n) AS q(id, val%s)", text,
					call->cols.natts >= 3 ? ", ord" : "");
}

/* ----------------------------------------------------------------
 *		Work tables and queries
 * ----------------------------------------------------------------
 */

/* Run a work statement. */
uint64
nddup_work_exec(NddupDistCall *call, const char *sql)
{
	int			rc = SPI_execute(sql, false, 0);

	if (rc < 0)
		elog(ERROR, "%s: work statement failed (%s): %s", call->fname,
			 SPI_result_code_string(rc), sql);
	return SPI_processed;
}

/*
 * Create an UNLOGGED work table with the given columns in the first schema
 * of the search_path and distribute it by distcol, co-located with
 * colocate (a qualified table name) or with nothing.  Returns its quoted
 * qualified name.
 */
char *
nddup_work_table(NddupDistCall *call, const char *columns, const char *distcol,
				const char *colocate)
{
	static uint32 counter = 0;
	char	   *name = psprintf("nddup_work_%d_%u", MyProcPid, ++counter);
	Oid			nsp = RangeVarGetCreationNamespace(makeRangeVar(NULL, name, -1));
	char	   *qname = quote_qualified_identifier(get_namespace_name(nsp), name);
	bool		isnull;

	nddup_work_exec(call, psprintf("CREATE UNLOGGED TABLE %s (%s)", qname, columns));
	if (colocate)
		nddup_work_exec(call, psprintf("SELECT pg_catalog.create_distributed_table(%s, %s, colocate_with => %s)",
								 quote_literal_cstr(qname), quote_literal_cstr(distcol),
								 quote_literal_cstr(colocate)));
	else
	{
		/*
		 * Two shards per worker: a repartition moves data from every source
		 * shard to every target shard, so fewer targets mean fewer transfers,
		 * and two tasks per worker keep its cores busy.
		 */
		nddup_work_exec(call, "SELECT pg_catalog.count(*) FROM pg_catalog.pg_dist_node "
				  "WHERE isactive AND noderole = 'primary' AND shouldhaveshards");
		nddup_work_exec(call, psprintf("SELECT pg_catalog.create_distributed_table(%s, %s, colocate_with => 'none', shard_count => %lld)",
								 quote_literal_cstr(qname), quote_literal_cstr(distcol),
								 (long long) Max(2, 2 * DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0],
																				   SPI_tuptable->tupdesc, 1,
																				   &isnull)))));
	}
	Assert(call->nwork < (int) lengthof(call->work));
	call->work[call->nwork++] = qname;
	return qname;
}

/* Drop the work tables. */
static void
dist_drop_work(NddupDistCall *call)
{
	for (int i = call->nwork - 1; i >= 0; i--)
		nddup_work_exec(call, psprintf("DROP TABLE %s", call->work[i]));
	call->nwork = 0;
}

/*
 * Grow an array of elements of the given size (doubling); the rows and
 * edges the coordinator keeps for clusters must fit in work_mem, as the
 * local clustering's arrays do.
 */
static void *
dist_grow(NddupDistCall *call, void *array, uint64 *cap, size_t size)
{
	uint64		newcap = Max(*cap * 2, 1024);
	uint64		total = call->ecap + call->rcap + newcap - *cap;

	if (total * BYTES_PER_RECEIVED_ROW > (uint64) work_mem * 1024 && total > 65536)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s needs more than work_mem on the coordinator for the clusters",
						call->fname),
				 errdetail("The coordinator keeps the ids of the pairs received and their order keys, about %d bytes each, %llu so far; work_mem is %d kB.",
						   BYTES_PER_RECEIVED_ROW, (unsigned long long) total, work_mem),
				 errhint("Raise work_mem for this statement, for example SET LOCAL work_mem = '%lldMB'.",
						 (long long) (total * 2 * BYTES_PER_RECEIVED_ROW / (1024 * 1024) + 1))));
	array = array ? repalloc_huge(array, newcap * size) :
		MemoryContextAllocHuge(call->cxt, newcap * size);
	*cap = newcap;
	return array;
}

/* Remember a row (id, order key) the coordinator learned. */
static void
dist_add_row(NddupDistCall *call, int64 id, int64 ord, bool ordnull)
{
	if (call->nrows == call->rcap)
		call->rows = dist_grow(call, call->rows, &call->rcap, sizeof(NddupDistRow));
	call->rows[call->nrows].id = id;
	call->rows[call->nrows].ord = ord;
	call->rows[call->nrows].ordnull = ordnull;
	call->nrows++;
}

/* DestReceiver callback: one row of a work query's result. */
static bool
dist_receive(TupleTableSlot *slot, DestReceiver *self)
{
	DistReceiver *r = (DistReceiver *) self;
	NddupDistCall   *call = r->call;
	Datum	   *v;
	bool	   *n;

	slot_getallattrs(slot);
	v = slot->tts_values;
	n = slot->tts_isnull;
	call->nreceived++;
	call->bytes += 8 * r->natts;
	if (r->kind == RECV_PAIRS)
	{
		tuplestore_putvalues(call->out, call->outdesc, v, n);
		return true;
	}
	if (r->kind == RECV_ROWS)
	{
		dist_add_row(call, nddup_datum_int64(v[0], r->types[0]),
					 r->natts > 1 && !n[1] ? nddup_datum_int64(v[1], r->types[1]) : 0,
					 r->natts < 2 || n[1]);
		return true;
	}
	/* an edge: both ends are rows the coordinator now knows */
	if (call->nedges == call->ecap)
	{
		uint64		cap = call->ecap;

		call->e1 = dist_grow(call, call->e1, &cap, sizeof(int64));
		call->e2 = call->e2 ? repalloc_huge(call->e2, cap * sizeof(int64)) :
			MemoryContextAllocHuge(call->cxt, cap * sizeof(int64));
		call->ecap = cap;
	}
	call->e1[call->nedges] = nddup_datum_int64(v[0], r->types[0]);
	call->e2[call->nedges] = nddup_datum_int64(v[1], r->types[1]);
	call->nedges++;
	if (call->has_ord)
	{
		dist_add_row(call, call->e1[call->nedges - 1],
					 n[2] ? 0 : nddup_datum_int64(v[2], r->types[2]), n[2]);
		dist_add_row(call, call->e2[call->nedges - 1],
					 n[3] ? 0 : nddup_datum_int64(v[3], r->types[3]), n[3]);
	}
	return true;
}

/* Run a work query whose rows come to the coordinator. */
void
nddup_work_fetch(NddupDistCall *call, const char *sql, int kind, int nargs, Oid *argtypes,
		   Datum *args)
{
	SPIPlanPtr	plan = SPI_prepare(sql, nargs, argtypes);
	DistReceiver r;
	TupleDesc	desc;
	SPIExecuteOptions options;
	ParamListInfo params = NULL;
	int			rc;

	if (plan == NULL)
		elog(ERROR, "%s: work query failed to prepare (%s): %s", call->fname,
			 SPI_result_code_string(SPI_result), sql);
	desc = ((CachedPlanSource *) linitial(SPI_plan_get_plan_sources(plan)))->resultDesc;
	memset(&r, 0, sizeof(r));
	nddup_init_receiver(&r.pub, dist_receive);
	r.call = call;
	r.kind = kind;
	r.natts = desc->natts;
	for (int i = 0; i < desc->natts && i < (int) lengthof(r.types); i++)
		r.types[i] = getBaseType(TupleDescAttr(desc, i)->atttypid);
	if (nargs > 0)
	{
		params = makeParamList(nargs);
		for (int i = 0; i < nargs; i++)
		{
			params->params[i].value = args[i];
			params->params[i].isnull = false;
			params->params[i].pflags = PARAM_FLAG_CONST;
			params->params[i].ptype = argtypes[i];
		}
	}
	memset(&options, 0, sizeof(options));
	options.params = params;
	options.dest = &r.pub;
	rc = SPI_execute_plan_extended(plan, &options);
	if (rc < 0)
		elog(ERROR, "%s: work query failed (%s): %s", call->fname,
			 SPI_result_code_string(rc), sql);
	SPI_freeplan(plan);
}

/* ----------------------------------------------------------------
 *		Clusters on the coordinator
 * ----------------------------------------------------------------
 */

/* qsort: rows by id, then the earliest order key first (NULLs last). */
static int
dist_row_cmp(const void *pa, const void *pb)
{
	const NddupDistRow *a = (const NddupDistRow *) pa;
	const NddupDistRow *b = (const NddupDistRow *) pb;

	if (a->id != b->id)
		return a->id < b->id ? -1 : 1;
	if (a->ordnull != b->ordnull)
		return a->ordnull ? 1 : -1;
	if (!a->ordnull && a->ord != b->ord)
		return a->ord < b->ord ? -1 : 1;
	return 0;
}

/* Is node a an earlier representative than node b (order key, then id)? */
static bool
dist_before(const NddupDistRow *a, const NddupDistRow *b)
{
	if (a->ordnull != b->ordnull)
		return !a->ordnull;
	if (!a->ordnull && a->ord != b->ord)
		return a->ord < b->ord;
	return a->id < b->id;
}

/* The node (index of the distinct ids) of an id. */
static uint32
dist_node(const NddupDistRow *nodes, uint64 n, int64 id)
{
	uint64		lo = 0,
				hi = n;

	while (lo < hi)
	{
		uint64		mid = (lo + hi) / 2;

		if (nodes[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	Assert(lo < n && nodes[lo].id == id);
	return (uint32) lo;
}

/*
 * The clusters from the edges and the rows the coordinator learned (the
 * rule of the local functions: rows sharing an id are one node, a
 * component is named after its earliest row by the order key, NULLs last,
 * then the smallest id; one result row per id).
 */
static void
dist_finish_clusters(NddupDistCall *call)
{
	uint64		n = 0;
	NddupDistRow *nodes;
	BatchUnionFind uf;
	uint32	   *rep;
	uint32	   *count;

	/* rows without an order column: the edges' ends are the rows */
	if (!call->has_ord)
		for (uint64 i = 0; i < call->nedges; i++)
		{
			dist_add_row(call, call->e1[i], 0, true);
			dist_add_row(call, call->e2[i], 0, true);
		}
	nodes = call->rows;
	if (call->nrows > 0)
		qsort(nodes, call->nrows, sizeof(NddupDistRow), dist_row_cmp);
	/* the first row of each id is its earliest: keep it */
	for (uint64 i = 0; i < call->nrows; i++)
		if (i == 0 || nodes[i].id != nodes[i - 1].id)
			nodes[n++] = nodes[i];
	uf.n = n;
	uf.parent = palloc(sizeof(uint32) * Max(n, 1));
	uf.rank = palloc0(Max(n, 1));
	rep = palloc(sizeof(uint32) * Max(n, 1));
	count = palloc0(sizeof(uint32) * Max(n, 1));
	for (uint64 i = 0; i < n; i++)
	{
		uf.parent[i] = (uint32) i;
		rep[i] = PG_UINT32_MAX;
	}
	for (uint64 i = 0; i < call->nedges; i++)
	{
		if ((i & 0xfff) == 0)
			CHECK_FOR_INTERRUPTS();
		batch_uf_union(&uf, dist_node(nodes, n, call->e1[i]),
					   dist_node(nodes, n, call->e2[i]));
	}
	for (uint64 i = 0; i < n; i++)
	{
		uint32		root = batch_uf_find(&uf, (uint32) i);

		if (rep[root] == PG_UINT32_MAX || dist_before(&nodes[i], &nodes[rep[root]]))
			rep[root] = (uint32) i;
		count[root]++;
	}
	for (uint64 i = 0; i < n; i++)
	{
		uint32		root = batch_uf_find(&uf, (uint32) i);
		Datum		values[2];
		bool		nulls[2] = {false, false};

		if ((i & 0xfff) == 0)
			CHECK_FOR_INTERRUPTS();
		if (!call->singletons && count[root] < 2)
			continue;
		values[0] = Int64GetDatum(nodes[i].id);
		values[1] = Int64GetDatum(nodes[rep[root]].id);
		tuplestore_putvalues(call->out, call->outdesc, values, nulls);
	}
}

/*
 * After the edges of clusters arrived: learn the rows the representatives
 * may come from.  With singletons every row (the result has one row per
 * id); else, when an id may repeat with an earlier order key on a row
 * without pairs, the rows of the ids in the edges.
 */
static void
dist_cluster_rows(NddupDistCall *call, const char *notnull)
{
	char	   *sub = nddup_work_subquery(call);

	if (call->singletons)
		nddup_work_fetch(call, psprintf("SELECT q.id%s FROM %s WHERE q.id IS NOT NULL AND %s",
								  call->has_ord ? ", q.ord" : "", sub, notnull),
				   RECV_ROWS, 0, NULL, NULL);
	else if (call->has_ord && !call->ids_unique && call->nedges > 0)
	{
		Oid			argtype = INT8ARRAYOID;
		Datum		arg;
		uint64	   *ids = palloc(sizeof(uint64) * 2 * call->nedges);

		for (uint64 i = 0; i < call->nedges; i++)
		{
			ids[2 * i] = (uint64) call->e1[i];
			ids[2 * i + 1] = (uint64) call->e2[i];
		}
		arg = PointerGetDatum(nddup_int8_array(ids, 2 * call->nedges));
		nddup_work_fetch(call, psprintf("SELECT q.id, q.ord FROM %s WHERE q.id = ANY ($1) AND %s",
								  sub, notnull),
				   RECV_ROWS, 1, &argtype, &arg);
	}
}

/* ----------------------------------------------------------------
 *		Entry points
 * ----------------------------------------------------------------
 */

/* Set up a call; false when Citus is absent or this is not its coordinator. */
bool
nddup_work_begin(NddupDistCall *call, FunctionCallInfo fcinfo, NddupDistMode mode,
		   const char *fname, bool singletons)
{
	if (!nddup_citus_installed())
		return false;
	memset(call, 0, sizeof(*call));
	call->cxt = AllocSetContextCreate(CurrentMemoryContext, "nddup distributed",
									  ALLOCSET_DEFAULT_SIZES);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (!nddup_citus_coordinator())
	{
		SPI_finish();
		MemoryContextDelete(call->cxt);
		return false;
	}
	call->fname = fname;
	call->mode = mode;
	call->singletons = singletons;
	call->progress = nddup_progress;
	call->nsp = quote_identifier(get_namespace_name(get_func_namespace(fcinfo->flinfo->fn_oid)));
	INSTR_TIME_SET_CURRENT(call->start);
	return true;
}

/* End a call: leave SPI and free what the call kept. */
void
nddup_work_end(NddupDistCall *call)
{
	SPI_finish();
	MemoryContextDelete(call->cxt);
}

/* The number of rows of the input with an id and a value. */
int64
nddup_work_count(NddupDistCall *call)
{
	bool		isnull;
	Datum		d;

	nddup_work_exec(call, psprintf("SELECT pg_catalog.count(*) FROM %s WHERE q.id IS NOT NULL AND q.val IS NOT NULL",
							 nddup_work_subquery(call)));
	d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	return DatumGetInt64(d);
}

/*
 * After the work query: drop the work tables, finish clusters on the
 * coordinator, end the call.
 */
void
nddup_work_complete(NddupDistCall *call)
{
	uint64		npairs = call->nreceived;

	dist_drop_work(call);
	if (call->mode == NDDUP_DIST_CLUSTERS)
	{
		dist_cluster_rows(call, "q.val IS NOT NULL");
		dist_finish_clusters(call);
	}
	nddup_work_log(call, "%llu pairs or edges; the coordinator received %llu rows (%llu bytes) from the workers",
				   (unsigned long long) npairs, (unsigned long long) call->nreceived,
				   (unsigned long long) call->bytes);
	nddup_work_end(call);
}

/* Set up the result of a call that goes distributed. */
void
nddup_work_result(NddupDistCall *call, FunctionCallInfo fcinfo)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;

	InitMaterializedSRF(fcinfo, 0);
	call->out = rsinfo->setResult;
	call->outdesc = rsinfo->setDesc;
}


/* The SQL name of a column's type, for a work table. */
const char *
nddup_work_type_name(Oid type)
{
	return format_type_be_qualified(type);
}

/* One int8 result of a query (NULL: *isnull). */
int64
nddup_work_int8(NddupDistCall *call, const char *sql, bool *isnull)
{
	Datum		d;

	nddup_work_exec(call, sql);
	if (SPI_processed != 1)
		elog(ERROR, "%s: expected one row from: %s", call->fname, sql);
	d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, isnull);
	return *isnull ? 0 : DatumGetInt64(d);
}

/*
 * nddup_row_key(shardid, ctid): a number for a row of a distributed table
 * that no other row has: the shard id (below 2^28) and the row's place in
 * the shard (block below 2^26, line pointer below 2^9).  Internal to the
 * distributed min-hash functions.
 */
Datum
nddup_row_key(PG_FUNCTION_ARGS)
{
	int64		shardid = PG_GETARG_INT64(0);
	ItemPointer tid = (ItemPointer) PG_GETARG_POINTER(1);
	BlockNumber block = ItemPointerGetBlockNumberNoCheck(tid);
	OffsetNumber off = ItemPointerGetOffsetNumberNoCheck(tid);

	if (shardid < 0 || shardid >= (INT64CONST(1) << 28) ||
		block >= (1U << 26) || off >= (1U << 9))
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("row (%u,%u) of shard %lld cannot be numbered", block, off,
						(long long) shardid),
				 errdetail("Row numbers hold shard ids below 2^28 and shards below 2^26 pages.")));
	PG_RETURN_INT64((shardid << 35) | ((int64) block << 9) | off);
}
