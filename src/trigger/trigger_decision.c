/*-------------------------------------------------------------------------
 *
 * trigger_decision.c
 *	  The decision kept with a table (nddup_decisions, written by
 *	  nddup_decide()) as the trigger's threshold or radius when its
 *	  arguments give none (docs/trigger.md#arguments).
 *
 * The trigger's column is its fingerprint= column, else its source=
 * column.  The row of nddup_decisions for the table and that column
 * applies when its method fits the trigger's: method=simhash takes the
 * radius of a simhash64 decision; method=minhash the threshold of a
 * minhash or text decision; method=shingleset (measure=jaccard) the
 * threshold of a shingleset or text decision.  Any other row is not used.
 *
 * The row is read like a catalog: directly, whatever the inserting role's
 * privileges and the table's row-level security, with a fresh snapshot.
 * The trigger's settings are cached per session and dropped when the
 * table's relcache entry is invalidated; nddup_decisions_changed(), a
 * trigger on nddup_decisions, invalidates it for every change of a row
 * (by nddup_decide() or by writing the table), so each session reads the
 * new decision at its next statement after the change commits.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "trigger/trigger.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "commands/trigger.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/syscache.h"

PG_FUNCTION_INFO_V1(nddup_decisions_changed);

/* The attribute number of a column of nddup_decisions, by name. */
static AttrNumber
decision_attno(TupleDesc desc, const char *name)
{
	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		if (!att->attisdropped && strcmp(NameStr(att->attname), name) == 0)
			return att->attnum;
	}
	elog(ERROR, "column \"%s\" of nddup_decisions not found", name);
	return InvalidAttrNumber;	/* keep compiler quiet */
}

/* Does a decision of this method give the trigger's method its parameter? */
static bool
decision_fits(const char *method, const DedupConfig *cfg)
{
	if (cfg->method == NDDUP_TRIGGER_SIMHASH)
		return strcmp(method, "simhash64") == 0;
	if (cfg->containment)
		return false;			/* decisions are of resemblance (Jaccard) */
	if (strcmp(method, "text") == 0)
		return true;
	return strcmp(method, cfg->method == NDDUP_TRIGGER_MINHASH ? "minhash" : "shingleset") == 0;
}

/*
 * Take the decided threshold (simhash: radius) of the table's column attno
 * into cfg and set cfg->decided, when nddup_decisions has a row that fits
 * (see above).  A decided value the trigger cannot use (a threshold of 0,
 * a radius above the trigger's maximum) is an error.
 */
void
nddup_dedup_decision(Relation rel, AttrNumber attno, DedupConfig *cfg)
{
	Oid			decisions_relid = get_relname_relid("nddup_decisions", cfg->ext_nsp);
	Oid			pkey = get_relname_relid("nddup_decisions_pkey", cfg->ext_nsp);
	Relation	drel;
	TupleDesc	desc;
	ScanKeyData key[2];
	NameData	column;
	SysScanDesc scan;
	HeapTuple	tuple;

	if (attno <= 0 || !OidIsValid(decisions_relid))
		return;					/* no column, or the extension's SQL is older */
	namestrcpy(&column, NameStr(TupleDescAttr(RelationGetDescr(rel), attno - 1)->attname));
	drel = table_open(decisions_relid, AccessShareLock);
	desc = RelationGetDescr(drel);
	ScanKeyInit(&key[0], decision_attno(desc, "relid"), BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(RelationGetRelid(rel)));
	ScanKeyInit(&key[1], decision_attno(desc, "column_name"), BTEqualStrategyNumber, F_NAMEEQ,
				NameGetDatum(&column));
	/* no snapshot: a fresh one, as for a table without catalog invalidations */
	scan = systable_beginscan(drel, pkey, OidIsValid(pkey), NULL, 2, key);
	tuple = systable_getnext(scan);
	if (HeapTupleIsValid(tuple))
	{
		bool		isnull;
		Datum		method = heap_getattr(tuple, decision_attno(desc, "method"), desc, &isnull);
		Datum		value;

		if (!isnull && decision_fits(TextDatumGetCString(method), cfg))
		{
			bool		simhash = cfg->method == NDDUP_TRIGGER_SIMHASH;

			value = heap_getattr(tuple, decision_attno(desc, simhash ? "radius" : "threshold"),
								 desc, &isnull);
			if (!isnull && simhash)
			{
				if (DatumGetInt32(value) > NDDUP_TRIGGER_MAX_RADIUS)
					ereport(ERROR,
							(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							 errmsg("the decided radius %d of column \"%s\" is out of range for the trigger",
									DatumGetInt32(value), NameStr(column)),
							 errhint("The trigger's radius is at most %d: give radius= or change the decision with nddup_decide().",
									 NDDUP_TRIGGER_MAX_RADIUS)));
				cfg->radius = DatumGetInt32(value);
				cfg->decided = true;
			}
			else if (!isnull)
			{
				if (!(DatumGetFloat8(value) > 0.0))
					ereport(ERROR,
							(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							 errmsg("the decided threshold %g of column \"%s\" is out of range for the trigger",
									DatumGetFloat8(value), NameStr(column)),
							 errhint("The trigger's threshold is greater than 0: give threshold= or change the decision with nddup_decide().")));
				cfg->threshold = DatumGetFloat8(value);
				cfg->decided = true;
			}
		}
	}
	systable_endscan(scan);
	table_close(drel, AccessShareLock);
}

/*
 * Trigger on nddup_decisions (AFTER INSERT OR UPDATE OR DELETE, FOR EACH
 * ROW): invalidate the relcache entry of the table of the old and the new
 * row, so that every session reads its triggers' settings again.
 */
Datum
nddup_decisions_changed(PG_FUNCTION_ARGS)
{
	TriggerData *trigdata = (TriggerData *) fcinfo->context;
	TupleDesc	desc;
	HeapTuple	rows[2];

	if (!CALLED_AS_TRIGGER(fcinfo) || !TRIGGER_FIRED_AFTER(trigdata->tg_event) ||
		!TRIGGER_FIRED_FOR_ROW(trigdata->tg_event))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("nddup_decisions_changed() must be fired AFTER ... FOR EACH ROW")));
	desc = RelationGetDescr(trigdata->tg_relation);
	rows[0] = trigdata->tg_trigtuple;
	rows[1] = TRIGGER_FIRED_BY_UPDATE(trigdata->tg_event) ? trigdata->tg_newtuple : NULL;
	for (int i = 0; i < 2; i++)
	{
		bool		isnull;
		Datum		relid;

		if (rows[i] == NULL)
			continue;
		relid = heap_getattr(rows[i], decision_attno(desc, "relid"), desc, &isnull);
		/* the row of a table dropped since: nothing to invalidate */
		if (!isnull && SearchSysCacheExists1(RELOID, relid))
			CacheInvalidateRelcacheByRelid(DatumGetObjectId(relid));
	}
	return PointerGetDatum(NULL);
}
