/*-------------------------------------------------------------------------
 *
 * hamming_handler.c
 *	  The hamming index access method: its handler, its options, the
 *	  validation of its operator classes, and its cost estimate.  The other
 *	  phases are in hamming_build.c, hamming_insert.c, hamming_scan.c and
 *	  hamming_vacuum.c; the page layout is described in hamming.h.
 *
 *	  CREATE INDEX ON docs USING hamming (fp);	-- simhash64_hamming_ops
 *
 * The cost estimate prices the search the scan will run (the plan of
 * hamming_plan_search for the radius of the <@ condition: probes of the
 * tables, or one pass over every row) in the planner's units, on the scale
 * that src/index/hamming_query.c gives every Hamming index: the modeled
 * time on cached pages, and a share of the index pages read (random for
 * probes, sequential for a pass) as I/O.  Every row is found before the
 * first is returned, so all of it is start-up cost.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "hamming.h"

#include "access/amvalidate.h"
#include "access/relation.h"
#include "catalog/index.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "access/htup_details.h"
#include "access/reloptions.h"
#include "catalog/pg_amop.h"
#include "catalog/pg_amproc.h"
#include "catalog/pg_opclass.h"
#include "commands/vacuum.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "storage/freespace.h"
#include "utils/regproc.h"
#include "utils/catcache.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/selfuncs.h"
#include "utils/spccache.h"
#include "utils/syscache.h"

PG_FUNCTION_INFO_V1(hamming_handler);
PG_FUNCTION_INFO_V1(hamming_index_stats);

static relopt_kind hamming_relopt_kind;

/* nddup.hamming_probe: how scans read the sorted tables (tests, benchmarks) */
int			hamming_probe = HAMMING_PROBE_AUTO;

static const struct config_enum_entry hamming_probe_options[] = {
	{"auto", HAMMING_PROBE_AUTO, false},
	{"tables", HAMMING_PROBE_TABLES, false},
	{"rows", HAMMING_PROBE_ROWS, false},
	{NULL, 0, false}
};

/* nddup.hamming_crash_point: crash the server at a step of a merge (tests) */
static int	hamming_crash_point = HAMMING_CRASH_NONE;

static const struct config_enum_entry hamming_crash_point_options[] = {
	{"none", HAMMING_CRASH_NONE, false},
	{"sealed", HAMMING_CRASH_SEALED, false},
	{"writing", HAMMING_CRASH_WRITING, false},
	{"written", HAMMING_CRASH_WRITTEN, false},
	{"switched", HAMMING_CRASH_SWITCHED, false},
	{"recycling", HAMMING_CRASH_RECYCLING, false},
	{NULL, 0, false}
};

/* Register the index options and the settings (from _PG_init). */
void
nddup_hamming_am_init(void)
{
	DefineCustomEnumVariable("nddup.hamming_probe",
							 "How hamming index scans search the sorted tables.",
							 "auto: by the cost model; tables: always probe them; rows: always pass over every row. The answer is the same.",
							 &hamming_probe, HAMMING_PROBE_AUTO, hamming_probe_options,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomEnumVariable("nddup.hamming_crash_point",
							 "For tests only: crash the server (PANIC) when a VACUUM of a hamming index reaches this step.",
							 "none, or a step of a merge (sealed, writing, written, switched) or of the recycling of retired pages (recycling).",
							 &hamming_crash_point, HAMMING_CRASH_NONE, hamming_crash_point_options,
							 PGC_SUSET, GUC_NOT_IN_SAMPLE | GUC_NO_SHOW_ALL, NULL, NULL, NULL);
	nddup_hamming_planner_init();
	hamming_relopt_kind = add_reloption_kind();
	add_real_reloption(hamming_relopt_kind, "merge_fraction",
					   "VACUUM merges the appendix into the sorted tables when it and the dead rows reach this share of the sorted rows",
					   HAMMING_DEFAULT_MERGE_FRACTION, 0.0, 1.0,
					   ShareUpdateExclusiveLock);
	add_int_reloption(hamming_relopt_kind, "tables",
					  "Tables of every build and merge (2 to 4), or 0: chosen from the row count",
					  0, 0, HAMMING_TABLES, ShareUpdateExclusiveLock);
}

/* PANIC when nddup.hamming_crash_point names this step (test/t/006). */
void
hamming_crash_point_reached(HammingCrashPoint point)
{
	if (hamming_crash_point == (int) point)
		elog(PANIC, "nddup.hamming_crash_point: crashing at step \"%s\"",
			 hamming_crash_point_options[point].name);
}

/* amoptions */
static bytea *
hamming_options(Datum reloptions, bool validate)
{
	static const relopt_parse_elt tab[] = {
		{"merge_fraction", RELOPT_TYPE_REAL, offsetof(HammingOptions, merge_fraction)},
		{"tables", RELOPT_TYPE_INT, offsetof(HammingOptions, tables)},
	};
	HammingOptions *opts;

	opts = (HammingOptions *) build_reloptions(reloptions, validate, hamming_relopt_kind,
											   sizeof(HammingOptions), tab, lengthof(tab));
	if (validate && opts && opts->tables == 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("value 1 out of bounds for option \"tables\""),
				 errdetail("Valid values are 0 (chosen from the row count) and 2 to %d.",
						   HAMMING_TABLES)));
	return (bytea *) opts;
}

/* The tables option of an index: a forced table count, or 0. */
int
hamming_tables_option(Relation index)
{
	HammingOptions *opts = (HammingOptions *) index->rd_options;

	return opts ? opts->tables : 0;
}

/* The merge_fraction option of an index. */
double
hamming_merge_fraction(Relation index)
{
	HammingOptions *opts = (HammingOptions *) index->rd_options;

	return opts ? opts->merge_fraction : HAMMING_DEFAULT_MERGE_FRACTION;
}

/*
 * amvalidate: the operator family may hold only strategy 1 (a search
 * operator returning boolean) and strategy 2 (an ordering operator), and
 * no support functions.
 */
static bool
hamming_validate(Oid opclassoid)
{
	HeapTuple	classtup = SearchSysCache1(CLAOID, ObjectIdGetDatum(opclassoid));
	Form_pg_opclass classform;
	CatCList   *oprlist;
	CatCList   *proclist;
	char	   *name;
	bool		result = true;

	if (!HeapTupleIsValid(classtup))
		elog(ERROR, "cache lookup failed for operator class %u", opclassoid);
	classform = (Form_pg_opclass) GETSTRUCT(classtup);
	name = NameStr(classform->opcname);
	oprlist = SearchSysCacheList1(AMOPSTRATEGY, ObjectIdGetDatum(classform->opcfamily));
	proclist = SearchSysCacheList1(AMPROCNUM, ObjectIdGetDatum(classform->opcfamily));

	for (int i = 0; i < proclist->n_members; i++)
	{
		Form_pg_amproc procform = (Form_pg_amproc) GETSTRUCT(&proclist->members[i]->tuple);

		ereport(INFO,
				(errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
				 errmsg("hamming operator family of \"%s\" contains support function %s, which the access method does not use",
						name, format_procedure(procform->amproc))));
		result = false;
	}
	for (int i = 0; i < oprlist->n_members; i++)
	{
		Form_pg_amop oprform = (Form_pg_amop) GETSTRUCT(&oprlist->members[i]->tuple);
		bool		ok;

		if (oprform->amopstrategy == HAMMING_STRATEGY_IN_BALL)
			ok = oprform->amoppurpose == AMOP_SEARCH &&
				check_amop_signature(oprform->amopopr, BOOLOID,
									 oprform->amoplefttype, oprform->amoprighttype);
		else if (oprform->amopstrategy == HAMMING_STRATEGY_DISTANCE)
			ok = oprform->amoppurpose == AMOP_ORDER &&
				OidIsValid(oprform->amopsortfamily);
		else
			ok = false;
		if (!ok)
		{
			ereport(INFO,
					(errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
					 errmsg("hamming operator family of \"%s\" contains operator %s with an invalid strategy number %d or purpose",
							name, format_operator(oprform->amopopr),
							oprform->amopstrategy)));
			result = false;
		}
	}
	ReleaseCatCacheList(proclist);
	ReleaseCatCacheList(oprlist);
	ReleaseSysCache(classtup);
	return result;
}

/* What the cost estimate needs from the metapage. */
static void
read_sizes(Oid indexoid, double *keyed, uint32 *dbits, uint32 *ntables,
		   double *appendix_rows)
{
	Relation	index = index_open(indexoid, NoLock);
	Buffer		buf = ReadBuffer(index, HAMMING_METAPAGE_BLKNO);
	HammingMetaPageData *meta;

	LockBuffer(buf, BUFFER_LOCK_SHARE);
	meta = HammingPageGetMeta(BufferGetPage(buf));
	*keyed = (double) meta->gen.keyed;
	*dbits = meta->gen.dbits;
	*ntables = meta->version == 1 ? HAMMING_TABLES : meta->gen.ntables;
	*appendix_rows = (double) (meta->app_pages + meta->sealed_pages) * HAMMING_ROWS_PER_PAGE;
	UnlockReleaseBuffer(buf);
	index_close(index, NoLock);
}

/*
 * amcostestimate: see the file header.
 */
static void
hamming_cost_estimate(PlannerInfo *root, IndexPath *path, double loop_count,
					  Cost *indexStartupCost, Cost *indexTotalCost,
					  Selectivity *indexSelectivity, double *indexCorrelation,
					  double *indexPages)
{
	IndexOptInfo *index = path->indexinfo;
	GenericCosts costs;
	double		keyed;
	double		appendix_rows;
	uint32		dbits;
	uint32		ntables;
	int			radius = -1;
	double		random_page_cost;
	double		seq_page_cost;
	HammingPlan probe;
	HammingPlan pass;
	Cost		search;

	memset(&costs, 0, sizeof(costs));
	genericcostestimate(root, path, loop_count, &costs);
	*indexSelectivity = costs.indexSelectivity;
	*indexCorrelation = 0;
	*indexPages = index->pages;
	/*
	 * Never an index-only scan (the planner considers one for a query that
	 * needs no column even without amcanreturn, see hamming_handler); nor a
	 * scan without a condition and an ordering.
	 */
	if ((path->indexclauses == NIL && path->indexorderbys == NIL) ||
		path->path.pathtype == T_IndexOnlyScan)
	{
		*indexStartupCost = disable_cost;
		*indexTotalCost = disable_cost;
		return;
	}

	/* the smallest radius of the <@ conditions drives the search */
	radius = nddup_hamming_path_radius(root, path);

	read_sizes(index->indexoid, &keyed, &dbits, &ntables, &appendix_rows);
	get_tablespace_page_costs(index->reltablespace, &random_page_cost, &seq_page_cost);
	hamming_plan_search(keyed, dbits, ntables, -1, appendix_rows, &pass);
	search = nddup_hamming_cost(pass.nanoseconds, pass.pages, seq_page_cost);
	if (radius >= 0)
	{
		hamming_plan_search(keyed, dbits, ntables, radius, appendix_rows, &probe);
		if (probe.use_tables)
			search = Min(search, nddup_hamming_cost(probe.nanoseconds, probe.pages,
													random_page_cost));
	}
	*indexStartupCost = search;
	*indexTotalCost = search + costs.numIndexTuples * cpu_index_tuple_cost;
}

/* The access method's handler. */
Datum
hamming_handler(PG_FUNCTION_ARGS)
{
	IndexAmRoutine *amroutine = makeNode(IndexAmRoutine);

	amroutine->amstrategies = HAMMING_NSTRATEGIES;
	amroutine->amsupport = 0;
	amroutine->amoptsprocnum = 0;
	amroutine->amcanorder = false;
	amroutine->amcanorderbyop = true;
	amroutine->amcanbackward = false;
	amroutine->amcanunique = false;
	amroutine->amcanmulticol = false;
	amroutine->amoptionalkey = true;
	amroutine->amsearcharray = false;
	amroutine->amsearchnulls = false;
	amroutine->amstorage = false;
	amroutine->amclusterable = false;
	amroutine->ampredlocks = false;
	amroutine->amcanparallel = false;
	amroutine->amcaninclude = false;
	amroutine->amusemaintenanceworkmem = true;
	amroutine->amparallelvacuumoptions = VACUUM_OPTION_NO_PARALLEL;
	amroutine->amkeytype = InvalidOid;

	amroutine->ambuild = hamming_build;
	amroutine->ambuildempty = hamming_build_empty;
	amroutine->aminsert = hamming_insert;
	amroutine->ambulkdelete = hamming_bulk_delete;
	amroutine->amvacuumcleanup = hamming_vacuum_cleanup;
	/*
	 * No index-only scans: a scan returns rows it found earlier (a batch),
	 * and only a heap fetch protects it from a row that VACUUM removed in
	 * between (the pin interlock of nbtree has no counterpart here).
	 */
	amroutine->amcanreturn = NULL;
	amroutine->amcostestimate = hamming_cost_estimate;
	amroutine->amoptions = hamming_options;
	amroutine->amproperty = NULL;
	amroutine->ambuildphasename = hamming_build_phase_name;
	amroutine->amvalidate = hamming_validate;
	amroutine->amadjustmembers = NULL;
	amroutine->ambeginscan = hamming_begin_scan;
	amroutine->amrescan = hamming_rescan;
	amroutine->amgettuple = hamming_gettuple;
	amroutine->amgetbitmap = hamming_getbitmap;
	amroutine->amendscan = hamming_end_scan;
	amroutine->ammarkpos = NULL;
	amroutine->amrestrpos = NULL;
	amroutine->amestimateparallelscan = NULL;
	amroutine->aminitparallelscan = NULL;
	amroutine->amparallelrescan = NULL;

	PG_RETURN_POINTER(amroutine);
}

/*
 * hamming_index_stats(index): the rows of the sorted generation, of the
 * appendix (with the sealed list of a merge in progress) and the
 * tombstones, the directory bits and the pages of a hamming index.  The
 * caller needs SELECT on the indexed table.
 */
Datum
hamming_index_stats(PG_FUNCTION_ARGS)
{
	Oid			indexoid = PG_GETARG_OID(0);
	Relation	index;
	HammingMetaCopy mc;
	TupleDesc	desc;
	Datum		values[6];
	bool		nulls[6] = {false};
	BlockNumber nblocks;
	int64		free_pages = 0;
	uint64		app_rows = 0;
	Oid			heapoid;

	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	heapoid = IndexGetRelation(indexoid, true);
	if (!OidIsValid(heapoid))
	{
		char	   *name = get_rel_name(indexoid);

		if (name == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_TABLE),
					 errmsg("relation with OID %u does not exist", indexoid)));
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not an index", name)));
	}
	if (pg_class_aclcheck(heapoid, GetUserId(), ACL_SELECT) != ACLCHECK_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for table %s", get_rel_name(heapoid))));
	index = index_open(indexoid, AccessShareLock);
	if (index->rd_indam->ambuild != hamming_build)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("index \"%s\" is not a hamming index",
						RelationGetRelationName(index))));
	if (!index->rd_index->indisvalid)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("index \"%s\" is not valid", RelationGetRelationName(index)),
				 errdetail("An index is invalid while CREATE INDEX CONCURRENTLY builds it, and after such a build failed."),
				 errhint("Drop the index and create it again, or REINDEX INDEX CONCURRENTLY.")));
	hamming_read_meta(index, &mc);
	app_rows = hamming_list_rows(index, mc.meta->app_head, mc.meta->app_epoch);
	if (mc.meta->sealed_head != InvalidBlockNumber)
		app_rows += hamming_list_rows(index, mc.meta->sealed_head, mc.meta->sealed_epoch);
	values[0] = Int64GetDatum((int64) mc.meta->gen.rows);
	values[1] = Int64GetDatum((int64) app_rows);
	values[2] = Int64GetDatum((int64) mc.meta->dead_rows);
	values[3] = Int32GetDatum((int32) mc.meta->gen.dbits);
	nblocks = RelationGetNumberOfBlocks(index);
	values[4] = Int64GetDatum((int64) nblocks);
	/* pages recycled and listed in the free space map, waiting for reuse */
	for (BlockNumber blkno = HAMMING_METAPAGE_BLKNO + 1; blkno < nblocks; blkno++)
	{
		if (GetRecordedFreeSpace(index, blkno) > 0)
			free_pages++;
		if (blkno % 1024 == 0)
			CHECK_FOR_INTERRUPTS();
	}
	values[5] = Int64GetDatum(free_pages);
	hamming_free_meta(&mc);
	index_close(index, AccessShareLock);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(desc, values, nulls)));
}
