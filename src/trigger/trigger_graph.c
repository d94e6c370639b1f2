/*-------------------------------------------------------------------------
 *
 * trigger_graph.c
 *	  The duplicate graph kept true through DELETE and UPDATE: the same
 *	  trigger function fired AFTER DELETE OR UPDATE OF <source> judges again
 *	  the duplicates of an original that was deleted or whose judged values
 *	  (text, fingerprint, scope, verification value) changed.
 *
 * The former duplicates are judged one by one in the survivor order (the
 * order column, then the id), each as an insert of that row would be judged
 * at that moment: under the advisory locks of its signature (so that
 * concurrent inserts, deletes and updates of near rows serialize), by the
 * same lookup (the earliest original it matches, the ones made by this
 * repair included, locked FOR KEY SHARE), then stored: it points at that
 * original, or becomes an original when it matches none.  Rows other than
 * those duplicates are not judged again (docs/trigger.md#deletes-and-edits
 * says what that guarantees).
 *
 * With visibility=caller only the duplicates the deleting or updating role
 * may read are judged again, against the originals it may read, as the
 * re-pointing of nddup_dedup_repoint() does; the table owner stores them.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "trigger/trigger.h"

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
#include "utils/snapmgr.h"

/* The statements of the repair, in DedupCacheEntry.graph[]. */
#define GRAPH_DEPENDENTS	0	/* ids of the duplicates of a row, in order */
#define GRAPH_LOCK			1	/* lock one of them, if it still is one */
#define GRAPH_STORE			2	/* store its new duplicate_of */

/* Is a trigger of this type the AFTER form (AFTER DELETE OR UPDATE, rows)? */
bool
nddup_dedup_graph_form(int16 tgtype)
{
	return TRIGGER_FOR_AFTER(tgtype) &&
		(TRIGGER_FOR_DELETE(tgtype) || TRIGGER_FOR_UPDATE(tgtype));
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

/* The AFTER form keeps duplicates marked: it needs duplicate_of and action=mark. */
static void
graph_check_config(const DedupConfig *cfg, const char *trigname)
{
	if (cfg->dup_attno == 0 || cfg->action != NDDUP_TRIGGER_MARK)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("trigger \"%s\" fired AFTER DELETE or UPDATE needs action=mark and a duplicate_of column",
						trigname),
				 errdetail("It judges again the rows whose duplicate_of points at an original that was deleted or changed.")));
}

/*
 * nddup_check_trigger() of the AFTER form: a row trigger for DELETE and/or
 * UPDATE (not INSERT), with action=mark, beside a BEFORE trigger of the
 * same function with the same arguments whose UPDATEs it covers.
 */
void
nddup_dedup_graph_check(Relation rel, Trigger *trigger, const DedupConfig *cfg)
{
	TriggerDesc *trigdesc = rel->trigdesc;
	bool		paired = false;

	if (!TRIGGER_FOR_ROW(trigger->tgtype) || TRIGGER_FOR_INSERT(trigger->tgtype))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("trigger \"%s\" fired AFTER must be AFTER DELETE OR UPDATE OF <source> ... FOR EACH ROW",
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
 *	SELECT t.id FROM ONLY <table> t WHERE t.duplicate_of = $1
 *	 AND t.id IS NOT NULL ORDER BY ROW(t.order, t.id)
 *
 * (as the table owner, or as the current role under visibility=caller);
 *
 *	SELECT t.ctid FROM ONLY <table> t WHERE t.id = $1 AND t.duplicate_of = $2
 *	 FOR NO KEY UPDATE OF t
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
	const char *equals = nddup_dedup_equals(cfg->id_type);
	Oid			argtypes[2];

	argtypes[0] = argtypes[1] = cfg->id_type;
	if (entry->graph[GRAPH_DEPENDENTS] == NULL)
		entry->graph[GRAPH_DEPENDENTS] =
			graph_prepare(psprintf("SELECT t.%s FROM ONLY %s t WHERE t.%s %s $1 AND t.%s IS NOT NULL ORDER BY ROW(%s%st.%s)",
								   id, table, dup, equals, id,
								   cfg->order_attno != cfg->id_attno ?
								   psprintf("t.%s", quote_identifier(get_attname(cfg->relid, cfg->order_attno, false))) : "",
								   cfg->order_attno != cfg->id_attno ? ", " : "", id),
						  1, argtypes);
	if (entry->graph[GRAPH_LOCK] == NULL)
		entry->graph[GRAPH_LOCK] =
			graph_prepare(psprintf("SELECT t.ctid FROM ONLY %s t WHERE t.%s %s $1 AND t.%s %s $2 FOR NO KEY UPDATE OF t",
								   table, id, equals, dup, equals),
						  2, argtypes);
	if (entry->graph[GRAPH_STORE] == NULL)
	{
		argtypes[1] = TIDOID;
		entry->graph[GRAPH_STORE] =
			graph_prepare(psprintf("UPDATE ONLY %s t SET %s = $1 WHERE t.ctid OPERATOR(pg_catalog.=) $2",
								   table, dup),
						  2, argtypes);
	}
}

/*
 * Run one statement of the repair.  Under REPEATABLE READ and SERIALIZABLE
 * it reads with the latest snapshot (a duplicate inserted after the
 * transaction's snapshot must not be missed), and the UPDATE checks against
 * the transaction snapshot, as foreign-key actions do: a row it cannot see
 * is a serialization failure.  As the table owner when owner is true.
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

/*
 * Judge one former duplicate (id) of the original old_id again, as an
 * insert of it would be judged now, and store the answer.
 */
static void
graph_rejudge(DedupCacheEntry *entry, Relation rel, TupleTableSlot *slot,
			  Datum id, Datum old_id)
{
	Datum		values[2];
	ItemPointerData ctid;
	HeapTuple	tuple;
	bool		should_free;
	bool		isnull;
	DedupRowValues v;
	DedupFound	res;

	/* lock the row; skip it if it changed meanwhile */
	values[0] = id;
	values[1] = old_id;
	graph_exec(rel, entry->graph[GRAPH_LOCK], values, NULL, true, SPI_OK_SELECT);
	if (SPI_processed == 0)
		return;
	ctid = *(ItemPointer) DatumGetPointer(SPI_getbinval(SPI_tuptable->vals[0],
														SPI_tuptable->tupdesc, 1, &isnull));
	SPI_freetuptable(SPI_tuptable);
	if (!table_tuple_fetch_row_version(rel, &ctid, SnapshotAny, slot))
		elog(ERROR, "could not fetch the row at (%u,%u)",
			 ItemPointerGetBlockNumber(&ctid), ItemPointerGetOffsetNumber(&ctid));
	tuple = ExecFetchSlotHeapTuple(slot, false, &should_free);

	res.found = false;
	if (nddup_dedup_row_values(entry, rel, tuple, &v))
	{
		nddup_dedup_lock(entry, &v.sig, &v.scope_hash, 1);
		nddup_dedup_lookup(entry, rel, v.sig, v.scope,
						   v.has_verify ? &v.verify : NULL, &ctid, &res);
	}
	values[0] = res.found ? res.id : (Datum) 0;
	values[1] = PointerGetDatum(&ctid);
	graph_exec(rel, entry->graph[GRAPH_STORE], values, res.found ? NULL : "n ", true,
			   SPI_OK_UPDATE);
	if (should_free)
		heap_freetuple(tuple);
	ExecClearTuple(slot);
}

/*
 * AFTER DELETE OR UPDATE: when the old row was an original that is deleted,
 * or whose id or judged values changed, judge its duplicates again in the
 * survivor order.
 */
void
nddup_dedup_graph_fire(DedupCacheEntry *entry, TriggerData *td)
{
	const DedupConfig *cfg = &entry->config;
	Relation	rel = td->tg_relation;
	TupleDesc	desc = RelationGetDescr(rel);
	HeapTuple	oldtuple = td->tg_trigtuple;
	bool		caller = (cfg->visibility == NDDUP_TRIGGER_VISIBILITY_CALLER);
	Datum		old_id;
	Datum	   *ids;
	uint64		nids;
	bool		isnull;
	TupleTableSlot *slot;

	if (!TRIGGER_FIRED_FOR_ROW(td->tg_event) || TRIGGER_FIRED_BY_INSERT(td->tg_event))
		nddup_dedup_graph_check(rel, td->tg_trigger, cfg);
	graph_check_config(cfg, td->tg_trigger->tgname);

	/* only an original has duplicates */
	(void) heap_getattr(oldtuple, cfg->dup_attno, desc, &isnull);
	if (!isnull)
		return;
	old_id = heap_getattr(oldtuple, cfg->id_attno, desc, &isnull);
	if (isnull)
		return;
	if (TRIGGER_FIRED_BY_UPDATE(td->tg_event))
	{
		HeapTuple	newtuple = td->tg_newtuple;
		Datum		new_id = heap_getattr(newtuple, cfg->id_attno, desc, &isnull);
		bool		new_original;

		(void) heap_getattr(newtuple, cfg->dup_attno, desc, &new_original);
		if (!isnull && new_original &&
			datumIsEqual(old_id, new_id, cfg->id_typbyval, cfg->id_typlen) &&
			nddup_dedup_same_values(entry, rel, oldtuple, newtuple))
			return;
	}

	if (caller)
		nddup_dedup_check_caller(cfg, rel, td->tg_trigger);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	nddup_dedup_prepare_plans(entry, rel);
	graph_prepare_plans(entry, rel);

	/* the duplicates (that the role may read, visibility=caller), in order */
	graph_exec(rel, entry->graph[GRAPH_DEPENDENTS], &old_id, NULL, !caller, SPI_OK_SELECT);
	nids = SPI_processed;
	if (nids == 0)
	{
		SPI_finish();
		return;
	}
	ids = palloc(sizeof(Datum) * nids);
	for (uint64 i = 0; i < nids; i++)
	{
		ids[i] = SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull);
		ids[i] = datumCopy(ids[i], cfg->id_typbyval, cfg->id_typlen);
	}
	SPI_freetuptable(SPI_tuptable);

	slot = table_slot_create(rel, NULL);
	for (uint64 i = 0; i < nids; i++)
	{
		CHECK_FOR_INTERRUPTS();
		graph_rejudge(entry, rel, slot, ids[i], old_id);
	}
	ExecDropSingleTupleTableSlot(slot);
	SPI_finish();
}
