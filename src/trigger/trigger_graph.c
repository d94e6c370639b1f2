/*-------------------------------------------------------------------------
 *
 * trigger_graph.c
 *	  The duplicate graph kept equal to a from-scratch judgement through
 *	  INSERT, DELETE and UPDATE: the same trigger function fired AFTER
 *	  INSERT OR DELETE OR UPDATE OF <source> judges again, in the survivor
 *	  order, every row whose judgement depends on a row that changed.
 *
 * The greedy rule: in the survivor order (the order column, then the id),
 * a row is a duplicate of the earliest original *before it* that it
 * matches, or an original when it matches none.  A row's judgement
 * depends only on the originals before it, so when a row r changes (is
 * inserted, deleted, edited, or changes between original and duplicate)
 * only the later rows that match r can change: its duplicates when it stops
 * being an original, and the later rows matching it (originals, and
 * duplicates of later originals) when it becomes one.  The repair keeps a
 * worklist of such rows and judges them again one by one, always the
 * earliest first; a row whose status (original or duplicate) changes puts
 * the rows that depend on it on the worklist, all of them later than
 * itself.  So every row is judged at most once per fired row, after every
 * row before it is final: the result is the from-scratch one.
 *
 * Each row is judged as an insert is (src/trigger/trigger.c): under the
 * advisory locks of its signature, so that concurrent repairs and inserts
 * of near rows serialize, by the same lookup (the earliest original it
 * matches, locked FOR KEY SHARE; one later than the row does not count),
 * then stored.  The later rows that match a row are found through an index
 * on the signature that holds every row (docs/trigger.md#deletes-and-edits).
 *
 * With visibility=caller only the rows the deleting or updating role may
 * read are judged again, against the originals it may read, as the
 * re-pointing of nddup_dedup_repoint() does; the table owner stores them.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "trigger/trigger.h"

#include "access/htup_details.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/pg_trigger.h"
#include "catalog/pg_type.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/typcache.h"

/* The statements of the repair, in DedupCacheEntry.graph[]. */
#define GRAPH_DEPENDENTS	0	/* the duplicates of a row */
#define GRAPH_LOCK			1	/* lock a row by its id */
#define GRAPH_STORE			2	/* store its new duplicate_of */
#define GRAPH_LATER			3	/* the rows that match a signature */

/* A row on the worklist: its place in the survivor order. */
typedef struct GraphItem
{
	Datum		ord;
	bool		ord_null;
	Datum		id;
} GraphItem;

/* One repair: the worklist and what comparing places needs. */
typedef struct GraphState
{
	DedupCacheEntry *entry;
	Relation	rel;
	bool		caller;			/* visibility=caller */
	FmgrInfo   *ord_cmp;		/* btree comparison of the order column */
	Oid			ord_coll;
	FmgrInfo   *id_cmp;			/* and of the id column */
	Oid			id_coll;
	bool		ord_byval;
	int16		ord_len;
	TupleTableSlot *slot;
	GraphItem  *items;			/* the worklist, unsorted */
	int			nitems;
	int			maxitems;
	uint64		judged;			/* rows judged again */
} GraphState;

/* A row judged again: where it is, what it was and is, what it is judged by. */
typedef struct GraphRow
{
	GraphItem	place;
	bool		was_original;
	bool		now_original;
	bool		has_values;
	DedupRowValues v;
} GraphRow;

/* Set while a repair stores rows: the AFTER triggers its UPDATEs fire do nothing. */
static bool graph_repairing = false;

/* Is a trigger of this type the AFTER form (AFTER INSERT, DELETE or UPDATE)? */
bool
nddup_dedup_graph_form(int16 tgtype)
{
	return TRIGGER_FOR_AFTER(tgtype) &&
		(TRIGGER_FOR_INSERT(tgtype) || TRIGGER_FOR_DELETE(tgtype) ||
		 TRIGGER_FOR_UPDATE(tgtype));
}

/* Do two triggers have the same arguments, in the same order? */
static bool
graph_same_args(const Trigger *a, const Trigger *b)
{
	if (a->tgnargs != b->tgnargs)
		return false;
	for (int i = 0; i < a->tgnargs; i++)
		if (strcmp(a->tgargs[i], b->tgargs[i]) != 0)
			return false;
	return true;
}

/*
 * Does the AFTER trigger fire for every UPDATE the BEFORE trigger fires
 * for (no column list, or one that holds every column of the other's)?
 */
static bool
graph_covers_columns(const Trigger *after, const Trigger *before)
{
	if (after->tgnattr == 0)
		return true;
	if (before->tgnattr == 0)
		return false;
	for (int i = 0; i < before->tgnattr; i++)
	{
		bool		found = false;

		for (int j = 0; j < after->tgnattr && !found; j++)
			found = (after->tgattr[j] == before->tgattr[i]);
		if (!found)
			return false;
	}
	return true;
}

/*
 * Has the table an enabled AFTER UPDATE row trigger of the same function
 * with the same arguments as the BEFORE trigger, firing for every UPDATE
 * it fires for?  Then the BEFORE trigger leaves the duplicates of an
 * original that becomes a duplicate to it instead of re-pointing them.
 */
bool
nddup_dedup_graph_present(Relation rel, Trigger *before)
{
	TriggerDesc *trigdesc = rel->trigdesc;

	if (trigdesc == NULL || !trigdesc->trig_update_after_row)
		return false;
	for (int i = 0; i < trigdesc->numtriggers; i++)
	{
		Trigger    *t = &trigdesc->triggers[i];

		if (t->tgfoid == before->tgfoid && t->tgenabled != TRIGGER_DISABLED &&
			TRIGGER_FOR_ROW(t->tgtype) && TRIGGER_FOR_AFTER(t->tgtype) &&
			TRIGGER_FOR_UPDATE(t->tgtype) && graph_same_args(t, before) &&
			graph_covers_columns(t, before))
			return true;
	}
	return false;
}

/*
 * The AFTER form keeps duplicates marked: it needs duplicate_of and
 * action=mark; and a symmetric match, to find the later rows that match a
 * row (not measure=containment).
 */
static void
graph_check_config(const DedupConfig *cfg, const char *trigname)
{
	if (cfg->dup_attno == 0 || cfg->action != NDDUP_TRIGGER_MARK)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("trigger \"%s\" fired AFTER INSERT, DELETE or UPDATE needs action=mark and a duplicate_of column",
						trigname),
				 errdetail("It judges again the rows whose duplicate_of depends on a row that was inserted, deleted or changed.")));
	if (cfg->containment)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("trigger \"%s\" fired AFTER INSERT, DELETE or UPDATE does not support measure=containment",
						trigname),
				 errdetail("The repair finds the later rows that match a row through the index, which answers containment in one direction only.")));
}

/*
 * nddup_check_trigger() of the AFTER form: a row trigger for INSERT, DELETE
 * and/or UPDATE, with action=mark, beside a BEFORE trigger of the same
 * function with the same arguments whose UPDATEs it covers.
 */
void
nddup_dedup_graph_check(Relation rel, Trigger *trigger, const DedupConfig *cfg)
{
	TriggerDesc *trigdesc = rel->trigdesc;
	bool		paired = false;

	if (!TRIGGER_FOR_ROW(trigger->tgtype))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("trigger \"%s\" fired AFTER must be AFTER INSERT OR DELETE OR UPDATE OF <source> ... FOR EACH ROW",
						trigger->tgname)));
	graph_check_config(cfg, trigger->tgname);
	for (int i = 0; trigdesc && i < trigdesc->numtriggers && !paired; i++)
	{
		Trigger    *t = &trigdesc->triggers[i];

		paired = (t->tgfoid == trigger->tgfoid && TRIGGER_FOR_BEFORE(t->tgtype) &&
				  graph_same_args(t, trigger) &&
				  (!TRIGGER_FOR_UPDATE(t->tgtype) || !TRIGGER_FOR_UPDATE(trigger->tgtype) ||
				   graph_covers_columns(trigger, t)));
	}
	if (!paired)
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("trigger \"%s\" has no BEFORE INSERT OR UPDATE trigger of nddup_dedup_trigger() with the same arguments on table \"%s\"",
						trigger->tgname, RelationGetRelationName(rel)),
				 errhint("Create both with the same arguments, in the same order, and UPDATE OF the same columns.")));
}

/* Forget the repair's statements (the configuration changed). */
void
nddup_dedup_graph_free(DedupCacheEntry *entry)
{
	for (int i = 0; i < NDDUP_GRAPH_NPLANS; i++)
	{
		if (entry->graph[i])
			SPI_freeplan(entry->graph[i]);
		entry->graph[i] = NULL;
	}
}

/* Prepare and keep one statement of the repair. */
static SPIPlanPtr
graph_prepare(const char *sql, int nargs, Oid *argtypes)
{
	SPIPlanPtr	plan = SPI_prepare(sql, nargs, argtypes);

	if (plan == NULL)
		elog(ERROR, "SPI_prepare failed for \"%s\": %s",
			 sql, SPI_result_code_string(SPI_result));
	if (SPI_keepplan(plan) != 0)
		elog(ERROR, "SPI_keepplan failed");
	return plan;
}

/*
 * The statements of the repair (inside SPI):
 *
 *	SELECT t.id, t.order FROM ONLY <table> t WHERE t.duplicate_of = $1
 *	 AND t.id IS NOT NULL
 *
 *	SELECT t.id, t.order, t.duplicate_of,
 *		   (SELECT o.order FROM ONLY <table> o WHERE o.id = t.duplicate_of)
 *	  FROM ONLY <table> t WHERE <t matches $1> (nddup_dedup_match_clause(),
 *	  every row)
 *
 * (the subquery is t.duplicate_of itself when the order is the id's; a
 * scalar subquery rather than a join, so that the plan cannot become a
 * join that reads the table);
 *
 * (as the table owner, or as the current role under visibility=caller);
 *
 *	SELECT t.ctid FROM ONLY <table> t WHERE t.id = $1 FOR NO KEY UPDATE OF t
 *
 *	UPDATE ONLY <table> t SET duplicate_of = $1 WHERE t.ctid = $2
 *
 * (as the owner).
 */
static void
graph_prepare_plans(DedupCacheEntry *entry, Relation rel)
{
	const DedupConfig *cfg = &entry->config;
	const char *table = quote_qualified_identifier(get_namespace_name(RelationGetNamespace(rel)),
												   RelationGetRelationName(rel));
	const char *id = quote_identifier(get_attname(cfg->relid, cfg->id_attno, false));
	const char *dup = quote_identifier(get_attname(cfg->relid, cfg->dup_attno, false));
	const char *ord = quote_identifier(get_attname(cfg->relid, cfg->order_attno, false));
	const char *equals = nddup_dedup_equals(cfg->id_type);
	Oid			argtypes[7];
	int			nargs;

	argtypes[0] = argtypes[1] = cfg->id_type;
	if (entry->graph[GRAPH_DEPENDENTS] == NULL)
		entry->graph[GRAPH_DEPENDENTS] =
			graph_prepare(psprintf("SELECT t.%s, t.%s FROM ONLY %s t WHERE t.%s %s $1 AND t.%s IS NOT NULL",
								   id, ord, table, dup, equals, id),
						  1, argtypes);
	if (entry->graph[GRAPH_LOCK] == NULL)
		entry->graph[GRAPH_LOCK] =
			graph_prepare(psprintf("SELECT t.ctid FROM ONLY %s t WHERE t.%s %s $1 FOR NO KEY UPDATE OF t",
								   table, id, equals),
						  1, argtypes);
	if (entry->graph[GRAPH_STORE] == NULL)
	{
		argtypes[1] = TIDOID;
		entry->graph[GRAPH_STORE] =
			graph_prepare(psprintf("UPDATE ONLY %s t SET %s = $1 WHERE t.ctid OPERATOR(pg_catalog.=) $2",
								   table, dup),
						  2, argtypes);
	}
	if (entry->graph[GRAPH_LATER] == NULL)
	{
		char	   *match = nddup_dedup_match_clause(cfg, false, argtypes, &nargs);

		char	   *dup_ord = cfg->order_attno == cfg->id_attno ?
			psprintf("t.%s", dup) :
			psprintf("(SELECT o.%s FROM ONLY %s o WHERE o.%s %s t.%s)", ord, table, id, equals, dup);

		entry->graph[GRAPH_LATER] =
			graph_prepare(psprintf("SELECT t.%s, t.%s, t.%s, %s FROM ONLY %s t WHERE %s",
								   id, ord, dup, dup_ord, table, match),
						  nargs, argtypes);
	}
}

/*
 * Run one statement of the repair.  Under REPEATABLE READ and SERIALIZABLE
 * it reads with the latest snapshot (a row inserted after the transaction's
 * snapshot must not be missed), and the UPDATE checks against the
 * transaction snapshot, as foreign-key actions do: a row it cannot see is a
 * serialization failure.  As the table owner when owner is true.
 */
static void
graph_exec(Relation rel, SPIPlanPtr plan, Datum *values, const char *nulls,
		   bool owner, int expect)
{
	Oid			userid;
	int			sec_context;
	int			rc;

	GetUserIdAndSecContext(&userid, &sec_context);
	if (owner)
		SetUserIdAndSecContext(rel->rd_rel->relowner,
							   sec_context | SECURITY_LOCAL_USERID_CHANGE |
							   SECURITY_NOFORCE_RLS);
	if (IsolationUsesXactSnapshot())
		rc = SPI_execute_snapshot(plan, values, nulls, GetLatestSnapshot(),
								  expect == SPI_OK_UPDATE ? GetTransactionSnapshot() : InvalidSnapshot,
								  false, true, 0);
	else
		rc = SPI_execute_plan(plan, values, nulls, false, 0);
	if (owner)
		SetUserIdAndSecContext(userid, sec_context);
	if (rc != expect)
		elog(ERROR, "SPI_execute_plan returned %s", SPI_result_code_string(rc));
}

/* Compare two places in the survivor order (order value, NULLs last; then id). */
static int
graph_cmp(const GraphState *gs, Datum ord_a, bool null_a, Datum id_a,
		  Datum ord_b, bool null_b, Datum id_b)
{
	int32		c;

	if (null_a != null_b)
		return null_a ? 1 : -1;
	if (!null_a)
	{
		c = DatumGetInt32(FunctionCall2Coll(gs->ord_cmp, gs->ord_coll, ord_a, ord_b));
		if (c != 0)
			return c;
	}
	c = DatumGetInt32(FunctionCall2Coll(gs->id_cmp, gs->id_coll, id_a, id_b));
	return c;
}

/* Compare two worklist places. */
static int
graph_cmp_items(const GraphState *gs, const GraphItem *a, const GraphItem *b)
{
	return graph_cmp(gs, a->ord, a->ord_null, a->id, b->ord, b->ord_null, b->id);
}

/* The value of column col (1-based) of SPI result row i, copied. */
static Datum
graph_spi_value(uint64 i, int col, bool *isnull)
{
	Form_pg_attribute att = TupleDescAttr(SPI_tuptable->tupdesc, col - 1);
	Datum		d = SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, col, isnull);

	return *isnull ? (Datum) 0 : datumCopy(d, att->attbyval, att->attlen);
}

/* Put one row on the worklist. */
static void
graph_push(GraphState *gs, Datum ord, bool ord_null, Datum id)
{
	if (gs->nitems == gs->maxitems)
	{
		gs->maxitems *= 2;
		gs->items = repalloc_huge(gs->items, sizeof(GraphItem) * gs->maxitems);
	}
	gs->items[gs->nitems].ord = ord;
	gs->items[gs->nitems].ord_null = ord_null;
	gs->items[gs->nitems].id = id;
	gs->nitems++;
}

/* Take the earliest row off the worklist. */
static GraphItem
graph_pop(GraphState *gs)
{
	int			best = 0;
	GraphItem	item;

	for (int i = 1; i < gs->nitems; i++)
		if (graph_cmp_items(gs, &gs->items[i], &gs->items[best]) < 0)
			best = i;
	item = gs->items[best];
	gs->items[best] = gs->items[--gs->nitems];
	return item;
}

/*
 * Put the duplicates of the row id on the worklist (those after the place
 * after, when it is given).
 */
static void
graph_push_dependents(GraphState *gs, Datum id, const GraphItem *after)
{
	graph_exec(gs->rel, gs->entry->graph[GRAPH_DEPENDENTS], &id, NULL, !gs->caller,
			   SPI_OK_SELECT);
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		GraphItem	it;
		bool		isnull;

		it.id = graph_spi_value(i, 1, &isnull);
		it.ord = graph_spi_value(i, 2, &it.ord_null);
		if (after == NULL || graph_cmp_items(gs, &it, after) > 0)
			graph_push(gs, it.ord, it.ord_null, it.id);
	}
	SPI_freetuptable(SPI_tuptable);
}

/*
 * Put on the worklist the rows after a new original (row) that match it and
 * may now be its duplicates: the originals, and the duplicates whose
 * original comes after it (or is missing).
 */
static void
graph_push_later(GraphState *gs, const GraphRow *row)
{
	const DedupConfig *cfg = &gs->entry->config;
	Datum		values[7];
	char		nulls[8] = "       ";

	(void) nddup_dedup_match_values(cfg, row->v.sig, row->v.scope,
									row->v.has_verify ? &row->v.verify : NULL,
									values, nulls);
	graph_exec(gs->rel, gs->entry->graph[GRAPH_LATER], values, nulls, !gs->caller,
			   SPI_OK_SELECT);
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		GraphItem	it;
		GraphItem	orig;
		bool		dup_null;
		bool		orig_null;

		it.id = graph_spi_value(i, 1, &dup_null);
		it.ord = graph_spi_value(i, 2, &it.ord_null);
		if (graph_cmp_items(gs, &it, &row->place) <= 0)
			continue;
		orig.id = graph_spi_value(i, 3, &dup_null);
		orig.ord = graph_spi_value(i, 4, &orig_null);
		orig.ord_null = false;
		/* its original comes first: it stays (a missing one reads NULL: judged again) */
		if (!dup_null && !orig_null && graph_cmp_items(gs, &orig, &row->place) < 0)
			continue;
		graph_push(gs, it.ord, it.ord_null, it.id);
	}
	SPI_freetuptable(SPI_tuptable);
}

/*
 * Judge the row id again, as an insert of it would be judged now with only
 * the originals before it counting, and store the answer.  Returns false
 * when the row is gone.
 */
static bool
graph_rejudge(GraphState *gs, Datum id, GraphRow *row)
{
	DedupCacheEntry *entry = gs->entry;
	const DedupConfig *cfg = &entry->config;
	Relation	rel = gs->rel;
	TupleDesc	desc = RelationGetDescr(rel);
	Datum		values[2];
	ItemPointerData ctid;
	HeapTuple	tuple;
	Datum		cur_dup;
	bool		isnull;
	bool		changed;
	DedupFound	res;

	/* lock the row: a concurrent change of it is waited for */
	values[0] = id;
	graph_exec(rel, entry->graph[GRAPH_LOCK], values, NULL, true, SPI_OK_SELECT);
	if (SPI_processed == 0)
		return false;
	ctid = *(ItemPointer) DatumGetPointer(SPI_getbinval(SPI_tuptable->vals[0],
														SPI_tuptable->tupdesc, 1, &isnull));
	SPI_freetuptable(SPI_tuptable);
	if (!table_tuple_fetch_row_version(rel, &ctid, SnapshotAny, gs->slot))
		elog(ERROR, "could not fetch the row at (%u,%u)",
			 ItemPointerGetBlockNumber(&ctid), ItemPointerGetOffsetNumber(&ctid));
	tuple = ExecCopySlotHeapTuple(gs->slot);
	ExecClearTuple(gs->slot);
	gs->judged++;

	row->place.id = datumCopy(heap_getattr(tuple, cfg->id_attno, desc, &isnull),
							  cfg->id_typbyval, cfg->id_typlen);
	row->place.ord = heap_getattr(tuple, cfg->order_attno, desc, &row->place.ord_null);
	if (!row->place.ord_null)
		row->place.ord = datumCopy(row->place.ord, gs->ord_byval, gs->ord_len);
	cur_dup = heap_getattr(tuple, cfg->dup_attno, desc, &isnull);
	row->was_original = isnull;

	res.found = false;
	row->has_values = nddup_dedup_row_values(entry, rel, tuple, &row->v);
	if (row->has_values)
	{
		nddup_dedup_lock(entry, &row->v.sig, &row->v.scope_hash, 1);
		nddup_dedup_lookup(entry, rel, row->v.sig, row->v.scope,
						   row->v.has_verify ? &row->v.verify : NULL, &ctid, &res);
		/* an original after the row is not one for it */
		if (res.found &&
			graph_cmp(gs, res.ord, res.ord_null, res.id,
					  row->place.ord, row->place.ord_null, row->place.id) > 0)
			res.found = false;
	}
	row->now_original = !res.found;
	changed = (row->was_original != row->now_original) ||
		(res.found && !datumIsEqual(cur_dup, res.id, cfg->id_typbyval, cfg->id_typlen));
	if (changed)
	{
		values[0] = res.found ? res.id : (Datum) 0;
		values[1] = PointerGetDatum(&ctid);
		graph_exec(rel, entry->graph[GRAPH_STORE], values, res.found ? NULL : "n ", true,
				   SPI_OK_UPDATE);
	}
	return true;
}

/* Put on the worklist the rows that depend on a row judged again. */
static void
graph_push_changed(GraphState *gs, const GraphRow *row, bool force)
{
	if (row->now_original && (force || !row->was_original) && row->has_values)
		graph_push_later(gs, row);
	else if (!row->now_original && (force || row->was_original))
		graph_push_dependents(gs, row->place.id, &row->place);
}

/* Judge the worklist, the earliest row first, until it is empty. */
static void
graph_run(GraphState *gs)
{
	GraphItem	last;
	bool		have_last = false;

	while (gs->nitems > 0)
	{
		GraphItem	item;
		GraphRow	row;

		CHECK_FOR_INTERRUPTS();
		item = graph_pop(gs);
		/* a row put on twice */
		if (have_last && graph_cmp_items(gs, &item, &last) == 0)
			continue;
		last = item;
		have_last = true;
		if (graph_rejudge(gs, item.id, &row))
			graph_push_changed(gs, &row, false);
	}
}

/*
 * Had the old row the id, the order value, the judged values and the
 * duplicate_of of the new row?  Then an UPDATE changed nothing judged.
 */
static bool
graph_unchanged(DedupCacheEntry *entry, Relation rel, HeapTuple oldtuple, HeapTuple newtuple)
{
	const DedupConfig *cfg = &entry->config;
	TupleDesc	desc = RelationGetDescr(rel);
	bool		null_a;
	bool		null_b;
	Datum		a = heap_getattr(oldtuple, cfg->id_attno, desc, &null_a);
	Datum		b = heap_getattr(newtuple, cfg->id_attno, desc, &null_b);

	if (null_a || null_b || !datumIsEqual(a, b, cfg->id_typbyval, cfg->id_typlen))
		return false;
	a = heap_getattr(oldtuple, cfg->dup_attno, desc, &null_a);
	b = heap_getattr(newtuple, cfg->dup_attno, desc, &null_b);
	if (null_a != null_b || (!null_a && !datumIsEqual(a, b, cfg->id_typbyval, cfg->id_typlen)))
		return false;
	if (cfg->order_attno != cfg->id_attno)
	{
		Form_pg_attribute ord = TupleDescAttr(desc, cfg->order_attno - 1);

		a = heap_getattr(oldtuple, cfg->order_attno, desc, &null_a);
		b = heap_getattr(newtuple, cfg->order_attno, desc, &null_b);
		if (null_a != null_b || (!null_a && !datumIsEqual(a, b, ord->attbyval, ord->attlen)))
			return false;
	}
	return nddup_dedup_same_values(entry, rel, oldtuple, newtuple);
}

/*
 * Did the BEFORE trigger decide an inserted row for good?  With the id as
 * the order, a row it made the duplicate of an earlier row is: that is the
 * earliest original the row matches, so also the earliest before it, and a
 * row that never was an original has no duplicates.  (A later original, or
 * none, leaves the row to the repair.)
 */
static bool
graph_insert_decided(DedupCacheEntry *entry, Relation rel, HeapTuple tuple)
{
	const DedupConfig *cfg = &entry->config;
	TupleDesc	desc = RelationGetDescr(rel);
	TypeCacheEntry *tc;
	bool		isnull;
	Datum		dup;
	Datum		id;

	if (cfg->order_attno != cfg->id_attno)
		return false;
	dup = heap_getattr(tuple, cfg->dup_attno, desc, &isnull);
	if (isnull)
		return false;
	id = heap_getattr(tuple, cfg->id_attno, desc, &isnull);
	if (isnull)
		return false;
	tc = lookup_type_cache(cfg->id_type, TYPECACHE_CMP_PROC_FINFO);
	if (!OidIsValid(tc->cmp_proc_finfo.fn_oid))
		return false;
	return DatumGetInt32(FunctionCall2Coll(&tc->cmp_proc_finfo,
										   TupleDescAttr(desc, cfg->id_attno - 1)->attcollation,
										   dup, id)) < 0;
}

/* Start a repair: the comparison functions and an empty worklist. */
static void
graph_start(GraphState *gs, DedupCacheEntry *entry, Relation rel)
{
	const DedupConfig *cfg = &entry->config;
	TupleDesc	desc = RelationGetDescr(rel);
	Form_pg_attribute ord = TupleDescAttr(desc, cfg->order_attno - 1);
	Form_pg_attribute id = TupleDescAttr(desc, cfg->id_attno - 1);
	TypeCacheEntry *tc;

	gs->entry = entry;
	gs->rel = rel;
	gs->caller = (cfg->visibility == NDDUP_TRIGGER_VISIBILITY_CALLER);
	tc = lookup_type_cache(ord->atttypid, TYPECACHE_CMP_PROC_FINFO);
	if (!OidIsValid(tc->cmp_proc_finfo.fn_oid))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_FUNCTION),
				 errmsg("could not identify a comparison function for type %s",
						format_type_be(ord->atttypid))));
	gs->ord_cmp = &tc->cmp_proc_finfo;
	gs->ord_coll = ord->attcollation;
	gs->ord_byval = ord->attbyval;
	gs->ord_len = ord->attlen;
	tc = lookup_type_cache(id->atttypid, TYPECACHE_CMP_PROC_FINFO);
	if (!OidIsValid(tc->cmp_proc_finfo.fn_oid))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_FUNCTION),
				 errmsg("could not identify a comparison function for type %s",
						format_type_be(id->atttypid))));
	gs->id_cmp = &tc->cmp_proc_finfo;
	gs->id_coll = id->attcollation;
	gs->maxitems = 16;
	gs->nitems = 0;
	gs->items = palloc(sizeof(GraphItem) * gs->maxitems);
	gs->judged = 0;
	gs->slot = table_slot_create(rel, NULL);
}

/*
 * The repair of one row's change: the row itself (inserted or updated) is
 * judged again; then the rows that depended on it before the change (the
 * duplicates of an original that was deleted or changed) and those that
 * depend on it now (its duplicates, or the later rows that match it), and
 * in turn the rows that depend on those that change.
 */
static void
graph_repair(DedupCacheEntry *entry, TriggerData *td, bool old_original, Datum old_id)
{
	const DedupConfig *cfg = &entry->config;
	Relation	rel = td->tg_relation;
	GraphState	gs;

	graph_start(&gs, entry, rel);
	if (old_original)
		graph_push_dependents(&gs, old_id, NULL);
	if (!TRIGGER_FIRED_BY_DELETE(td->tg_event))
	{
		HeapTuple	newtuple = TRIGGER_FIRED_BY_UPDATE(td->tg_event) ? td->tg_newtuple
			: td->tg_trigtuple;
		bool		isnull;
		Datum		new_id = heap_getattr(newtuple, cfg->id_attno, RelationGetDescr(rel), &isnull);
		GraphRow	row;

		if (!isnull && graph_rejudge(&gs, new_id, &row))
			graph_push_changed(&gs, &row, true);
	}
	graph_run(&gs);
	ExecDropSingleTupleTableSlot(gs.slot);
	elog(DEBUG1, "nddup: trigger \"%s\" judged " UINT64_FORMAT " rows again",
		 td->tg_trigger->tgname, gs.judged);
}

/*
 * AFTER INSERT, DELETE or UPDATE: judge again the row and the rows whose
 * judgement depends on it, in the survivor order.
 */
void
nddup_dedup_graph_fire(DedupCacheEntry *entry, TriggerData *td)
{
	const DedupConfig *cfg = &entry->config;
	Relation	rel = td->tg_relation;
	TupleDesc	desc = RelationGetDescr(rel);
	bool		old_original = false;
	Datum		old_id = (Datum) 0;
	bool		isnull;

	nddup_dedup_graph_check(rel, td->tg_trigger, cfg);
	/* an UPDATE of duplicate_of by a repair further up the stack */
	if (graph_repairing)
		return;

	if (TRIGGER_FIRED_BY_INSERT(td->tg_event) && graph_insert_decided(entry, rel, td->tg_trigtuple))
		return;
	if (!TRIGGER_FIRED_BY_INSERT(td->tg_event))
	{
		HeapTuple	oldtuple = td->tg_trigtuple;

		(void) heap_getattr(oldtuple, cfg->dup_attno, desc, &old_original);
		old_id = heap_getattr(oldtuple, cfg->id_attno, desc, &isnull);
		if (isnull)
			old_original = false;
		/* nothing depends on a duplicate */
		if (TRIGGER_FIRED_BY_DELETE(td->tg_event) && !old_original)
			return;
		if (TRIGGER_FIRED_BY_UPDATE(td->tg_event) &&
			graph_unchanged(entry, rel, oldtuple, td->tg_newtuple))
			return;
	}

	if (cfg->visibility == NDDUP_TRIGGER_VISIBILITY_CALLER)
		nddup_dedup_check_caller(cfg, rel, td->tg_trigger);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	nddup_dedup_prepare_plans(entry, rel);
	graph_prepare_plans(entry, rel);
	graph_repairing = true;
	PG_TRY();
	{
		graph_repair(entry, td, old_original, old_id);
	}
	PG_FINALLY();
	{
		graph_repairing = false;
	}
	PG_END_TRY();
	SPI_finish();
}
