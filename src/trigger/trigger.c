/*-------------------------------------------------------------------------
 *
 * trigger.c
 *	  Insert-time duplicate checks: the row trigger nddup_dedup_trigger()
 *	  and its validation function nddup_check_trigger().
 *
 * The trigger judges each row when it is stored (Lee, Lee and Kim's blog
 * framework): the row is compared with the existing originals (rows whose
 * duplicate_of column is NULL); the earliest original within the Hamming
 * radius (method=simhash), at or above the estimated resemblance threshold
 * (method=minhash) or at or above the exact resemblance of the shingle sets
 * (method=shingleset), by the order column, becomes the row's original.
 * Depending on the action the row is stored and marked, silently dropped, or
 * rejected.
 *
 * Concurrency: before the lookup the trigger takes transaction-scoped
 * advisory locks on pigeonhole keys of the row's signature, chosen so that
 * any two near-duplicates share a key:
 *
 * - simhash: the 64 bits are cut into radius + 1 blocks; two fingerprints
 *	 within the radius agree on at least one whole block;
 * - minhash: with E the fewest equal positions (of k) whose estimate reaches
 *	 the threshold, the sketch is cut into k - E + 1 bands; two sketches with
 *	 at least E equal positions differ in at most k - E, so at least one band
 *	 is equal in both (the pigeonhole argument of minhash_lsh_ops);
 * - shingleset: in the sets' hash order, two sets with Jaccard >= t share a
 *	 shingle among the first |x| - ceil(t |x|) + 1 of each (prefix filtering);
 *	 the row locks the hashes of its prefix.
 *
 * So two transactions storing near-duplicates always share a lock key and
 * run one after the other.  The lookup then uses a snapshot taken after the
 * locks are held.  See docs/trigger.md.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "trigger/trigger.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/pg_operator.h"
#include "catalog/pg_trigger.h"
#include "catalog/pg_type.h"
#include "commands/trigger.h"
#include "common/hashfn.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "parser/parse_func.h"
#include "rewrite/rewriteHandler.h"
#include "storage/lmgr.h"
#include "storage/lock.h"
#include "storage/proc.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/relcache.h"
#include "utils/ruleutils.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
#include "utils/tuplestore.h"
#include "utils/typcache.h"

PG_FUNCTION_INFO_V1(nddup_dedup_trigger);
PG_FUNCTION_INFO_V1(nddup_check_trigger);

static HTAB *dedup_cache = NULL;

/* Relcache callback: forget the configuration of triggers on that table. */
static void
dedup_invalidate(Datum arg, Oid relid)
{
	HASH_SEQ_STATUS status;
	DedupCacheEntry *entry;

	if (dedup_cache == NULL)
		return;
	hash_seq_init(&status, dedup_cache);
	while ((entry = (DedupCacheEntry *) hash_seq_search(&status)) != NULL)
	{
		if (relid == InvalidOid || entry->config.relid == relid)
			entry->valid = false;
	}
}

/* The cache entry of a trigger, with a configuration that is up to date. */
static DedupCacheEntry *
dedup_get_entry(Trigger *trigger, Relation rel, Oid ext_nsp)
{
	DedupCacheEntry *entry;
	bool		found;
	MemoryContext old;

	if (dedup_cache == NULL)
	{
		HASHCTL		ctl;

		ctl.keysize = sizeof(Oid);
		ctl.entrysize = sizeof(DedupCacheEntry);
		dedup_cache = hash_create("nddup trigger cache", 16, &ctl,
								  HASH_ELEM | HASH_BLOBS);
		CacheRegisterRelcacheCallback(dedup_invalidate, (Datum) 0);
	}
	entry = (DedupCacheEntry *) hash_search(dedup_cache, &trigger->tgoid,
											HASH_ENTER, &found);
	if (!found)
	{
		entry->valid = false;
		entry->warned = false;
		entry->busy = 0;
		entry->cxt = AllocSetContextCreate(CacheMemoryContext,
										   "nddup trigger",
										   ALLOCSET_SMALL_SIZES);
		entry->lookup_insert = entry->lookup_update = entry->repoint = NULL;
		entry->lock_original = entry->dependents = NULL;
		memset(entry->graph, 0, sizeof(entry->graph));
		entry->lock_lxid = InvalidLocalTransactionId;
		entry->nkeys = 0;
		entry->original_lookup = entry->routed_store = NULL;	/* unused here */
		entry->routed_keys = InvalidOid;
		entry->routed_nkeys = 0;
		memset(&entry->config, 0, sizeof(entry->config));
	}
	/* a call further up the stack uses the plans: keep them until it ends */
	if (entry->valid || entry->busy > 0)
		return entry;

	if (entry->lookup_insert)
		SPI_freeplan(entry->lookup_insert);
	if (entry->lookup_update)
		SPI_freeplan(entry->lookup_update);
	if (entry->repoint)
		SPI_freeplan(entry->repoint);
	if (entry->lock_original)
		SPI_freeplan(entry->lock_original);
	if (entry->dependents)
		SPI_freeplan(entry->dependents);
	entry->lookup_insert = entry->lookup_update = entry->repoint = NULL;
	entry->lock_original = entry->dependents = NULL;
	nddup_dedup_graph_free(entry);
	MemoryContextReset(entry->cxt);
	memset(&entry->config, 0, sizeof(entry->config));

	old = MemoryContextSwitchTo(entry->cxt);
	PG_TRY();
	{
		nddup_dedup_parse_args(rel, trigger->tgnargs, trigger->tgargs, ext_nsp,
						 trigger->tgname, &entry->config);
		nddup_dedup_citus_check(rel, &entry->config);
		fmgr_info_cxt(entry->config.source_func, &entry->source_finfo, entry->cxt);
		entry->unit_datum = CStringGetTextDatum(entry->config.unit);
		entry->weighting_datum = CStringGetTextDatum(entry->config.weighting);
		entry->oph_datum = CStringGetTextDatum("oph");
		if (OidIsValid(entry->config.scope_hash_proc))
			fmgr_info_cxt(entry->config.scope_hash_proc, &entry->scope_hash_finfo, entry->cxt);
		nddup_dedup_verify_prepare(entry);
	}
	PG_CATCH();
	{
		MemoryContextSwitchTo(old);
		memset(&entry->config, 0, sizeof(entry->config));
		PG_RE_THROW();
	}
	PG_END_TRY();
	MemoryContextSwitchTo(old);
	entry->valid = true;

	if (entry->config.index_name == NULL && !entry->warned)
	{
		const DedupConfig *cfg = &entry->config;
		const char *table = quote_qualified_identifier(get_namespace_name(RelationGetNamespace(rel)),
													   RelationGetRelationName(rel));
		const char *opclass = cfg->method == NDDUP_TRIGGER_SHINGLESET ?
			quote_qualified_identifier(get_namespace_name(ext_nsp), "shingleset_ops") :
			psprintf("%s (threshold = %g)",
					 quote_qualified_identifier(get_namespace_name(ext_nsp), "minhash_lsh_ops"),
					 cfg->threshold);
		char	   *column;

		if (cfg->fp_attno)
			column = pstrdup(quote_identifier(get_attname(cfg->relid, cfg->fp_attno, false)));
		else
			column = psprintf("(%s)",
							  nddup_dedup_source_call(cfg,
												quote_identifier(get_attname(cfg->relid, cfg->src_attno, false)),
												true));
		entry->warned = true;
		ereport(WARNING,
				(errmsg("no index serves the near-duplicate lookup of trigger \"%s\" on table \"%s\"",
						trigger->tgname, RelationGetRelationName(rel)),
				 errdetail("Every row stored reads the whole table."),
				 errhint("Create one with: CREATE INDEX ON %s USING %s%s%s;",
						 table, cfg->method == NDDUP_TRIGGER_SIMHASH ?
						 psprintf("hamming (%s)", column) :
						 psprintf("gin (%s %s) WITH (fastupdate = off)", column, opclass),
						 cfg->dup_attno ? " WHERE " : "",
						 cfg->dup_attno ? psprintf("%s IS NULL",
												   quote_identifier(get_attname(cfg->relid, cfg->dup_attno, false))) : "")));
	}
	return entry;
}

/* Raise the error of action=error. */
static void
dedup_report(const DedupConfig *cfg, Relation rel, Trigger *trigger,
			 Datum sig, const DedupFound *res)
{
	const char *idname = get_attname(cfg->relid, cfg->id_attno, false);
	Oid			outfunc;
	bool		varlena;
	bool		may_see;
	char	   *nearness;

	if (cfg->method == NDDUP_TRIGGER_SIMHASH)
		nearness = psprintf("at Hamming distance %d (radius %d)",
							nddup_hamming(DatumGetSimhash64(sig), DatumGetSimhash64(res->sig)),
							cfg->radius);
	else if (cfg->method == NDDUP_TRIGGER_SHINGLESET)
		nearness = psprintf("with %s %.3f (threshold %g)",
							cfg->containment ? "containment" : "resemblance",
							nddup_dedup_set_measure(cfg, sig, res->sig), cfg->threshold);
	else
		nearness = psprintf("with estimated resemblance %.3f (threshold %g)",
							nddup_minhash_datum_resemblance(sig, res->sig),
							cfg->threshold);
	if (cfg->verify > 0.0)
		nearness = psprintf("%s, verified at resemblance %g or more", nearness, cfg->verify);

	/* show the original's id only to users who may read it */
	may_see = pg_class_aclcheck(cfg->relid, GetUserId(), ACL_SELECT) == ACLCHECK_OK ||
		pg_attribute_aclcheck(cfg->relid, cfg->id_attno, GetUserId(), ACL_SELECT) == ACLCHECK_OK;
	getTypeOutputInfo(cfg->id_type, &outfunc, &varlena);
	if (may_see)
		ereport(ERROR,
				(errcode(ERRCODE_UNIQUE_VIOLATION),
				 errmsg("new row for relation \"%s\" is a near-duplicate of an existing row",
						RelationGetRelationName(rel)),
				 errdetail("Key (%s)=(%s) is the original, %s.",
						   idname, OidOutputFunctionCall(outfunc, res->id), nearness),
				 errtableconstraint(rel, trigger->tgname)));
	ereport(ERROR,
			(errcode(ERRCODE_UNIQUE_VIOLATION),
			 errmsg("new row for relation \"%s\" is a near-duplicate of an existing row",
					RelationGetRelationName(rel)),
			 errdetail("An existing original is %s.", nearness),
			 errtableconstraint(rel, trigger->tgname)));
}

/* Judge one row; returns the row to store, or NULL to skip it. */
static HeapTuple
dedup_judge(DedupCacheEntry *entry, TriggerData *td)
{
	const DedupConfig *cfg = &entry->config;
	Relation	rel = td->tg_relation;
	TupleDesc	desc = RelationGetDescr(rel);
	bool		is_update = TRIGGER_FIRED_BY_UPDATE(td->tg_event);
	HeapTuple	newtuple = is_update ? td->tg_newtuple : td->tg_trigtuple;
	HeapTuple	oldtuple = is_update ? td->tg_trigtuple : NULL;
	Datum		fp = (Datum) 0;
	Datum		oldfp = (Datum) 0;
	Datum		scope;
	Datum		oldscope;
	uint32		scope_hash;
	uint32		oldscope_hash = 0;
	bool		has_fp;
	bool		has_oldfp = false;
	bool		old_original = false;
	bool		isnull;
	int			ncols = 0;
	int			cols[2];
	Datum		vals[2];
	bool		nulls[2];
	Datum		lockfps[2];
	uint32		lockscopes[2];
	int			nlockfps = 0;
	DedupFound	res;
	Datum		verify = (Datum) 0;
	bool		has_verify = false;

	has_fp = nddup_dedup_row_sig(entry, newtuple, desc, false, &fp);
	if (has_fp && cfg->verify > 0.0)
		has_verify = nddup_dedup_verify_value(entry, rel, newtuple, false, &verify);

	/* a plain fingerprint column next to a source is maintained by us */
	if (cfg->fp_attno && cfg->src_attno && !cfg->fp_generated)
	{
		cols[ncols] = cfg->fp_attno;
		vals[ncols] = fp;
		nulls[ncols] = !has_fp;
		ncols++;
	}
	/* a row without a scope value is not judged, like one without text */
	if (!nddup_dedup_row_scope(entry, newtuple, desc, &scope, &scope_hash))
		has_fp = false;

	if (is_update)
	{
		bool		same_scope = true;

		has_oldfp = nddup_dedup_row_sig(entry, oldtuple, desc, true, &oldfp);
		if (!nddup_dedup_row_scope(entry, oldtuple, desc, &oldscope, &oldscope_hash))
			has_oldfp = false;
		else if (cfg->scope_attno && has_fp)
			same_scope = datumIsEqual(scope, oldscope,
									  TupleDescAttr(desc, cfg->scope_attno - 1)->attbyval,
									  TupleDescAttr(desc, cfg->scope_attno - 1)->attlen);
		if (has_fp == has_oldfp && same_scope && (!has_fp || nddup_dedup_sig_equal(cfg, fp, oldfp)) &&
			(!has_fp || nddup_dedup_verify_unchanged(entry, rel, oldtuple, has_verify, verify)))
			goto done;			/* same fingerprint: keep the judgement */
		old_original = (cfg->dup_attno == 0);
		if (cfg->dup_attno)
		{
			(void) heap_getattr(oldtuple, cfg->dup_attno, desc, &isnull);
			old_original = isnull;
		}
	}

	res.found = false;
	if (has_fp)
	{
		if (cfg->visibility == NDDUP_TRIGGER_VISIBILITY_CALLER)
			nddup_dedup_check_caller(cfg, rel, td->tg_trigger);
		if (SPI_connect() != SPI_OK_CONNECT)
			elog(ERROR, "SPI_connect failed");
		nddup_dedup_prepare_plans(entry, rel);

		lockscopes[nlockfps] = scope_hash;
		lockfps[nlockfps++] = fp;
		/* an original that changes: its old neighbours must wait for us */
		if (old_original && has_oldfp)
		{
			lockscopes[nlockfps] = oldscope_hash;
			lockfps[nlockfps++] = oldfp;
		}
		nddup_dedup_lock(entry, lockfps, lockscopes, nlockfps);

		nddup_dedup_lookup(entry, rel, fp, scope, has_verify ? &verify : NULL,
						   is_update ? &oldtuple->t_self : NULL, &res);
		/* with an AFTER UPDATE trigger the duplicates are judged again there */
		if (res.found && cfg->action == NDDUP_TRIGGER_MARK && old_original &&
			!nddup_dedup_graph_present(rel, td->tg_trigger))
		{
			Datum		oldid = heap_getattr(oldtuple, cfg->id_attno, desc, &isnull);

			if (!isnull)
				nddup_dedup_repoint(entry, rel, res.id, oldid);
		}
		SPI_finish();
	}

	if (res.found && cfg->action == NDDUP_TRIGGER_SKIP)
		return NULL;
	if (res.found && cfg->action == NDDUP_TRIGGER_ERROR)
		dedup_report(cfg, rel, td->tg_trigger, fp, &res);
	if (cfg->dup_attno)
	{
		cols[ncols] = cfg->dup_attno;
		vals[ncols] = res.found ? res.id : (Datum) 0;
		nulls[ncols] = !res.found;
		ncols++;
	}

done:
	if (ncols == 0)
		return newtuple;
	return heap_modify_tuple_by_cols(newtuple, desc, ncols, cols, vals, nulls);
}

/*
 * nddup_dedup_trigger(key=value, ...): BEFORE INSERT OR UPDATE row trigger
 * that marks, skips or rejects near-duplicates of existing originals; fired
 * AFTER DELETE OR UPDATE, it judges again the duplicates of an original that
 * was deleted or changed (trigger_graph.c).
 */
Datum
nddup_dedup_trigger(PG_FUNCTION_ARGS)
{
	TriggerData *td = (TriggerData *) fcinfo->context;
	DedupCacheEntry *entry;
	HeapTuple	result = NULL;

	if (!CALLED_AS_TRIGGER(fcinfo))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("nddup_dedup_trigger() was not called by the trigger manager")));
	/* AFTER DELETE OR UPDATE: judge the duplicates of a changed original */
	if (nddup_dedup_graph_form(td->tg_trigger->tgtype))
	{
		entry = dedup_get_entry(td->tg_trigger, td->tg_relation,
								get_func_namespace(fcinfo->flinfo->fn_oid));
		entry->busy++;
		PG_TRY();
		{
			nddup_dedup_graph_fire(entry, td);
		}
		PG_FINALLY();
		{
			entry->busy--;
		}
		PG_END_TRY();
		return PointerGetDatum(NULL);
	}
	if (!TRIGGER_FIRED_BEFORE(td->tg_event))
		nddup_dedup_check_tgtype(td->tg_trigger->tgtype, td->tg_trigger->tgname);
	if (!TRIGGER_FIRED_FOR_ROW(td->tg_event))
		nddup_dedup_check_tgtype(td->tg_trigger->tgtype, td->tg_trigger->tgname);
	if (!TRIGGER_FIRED_BY_INSERT(td->tg_event) && !TRIGGER_FIRED_BY_UPDATE(td->tg_event))
		nddup_dedup_check_tgtype(td->tg_trigger->tgtype, td->tg_trigger->tgname);

	entry = dedup_get_entry(td->tg_trigger, td->tg_relation,
							get_func_namespace(fcinfo->flinfo->fn_oid));
	entry->busy++;
	PG_TRY();
	{
		result = dedup_judge(entry, td);
	}
	PG_FINALLY();
	{
		entry->busy--;
	}
	PG_END_TRY();
	return PointerGetDatum(result);
}

/*
 * nddup_check_trigger(rel, args): validate trigger arguments against a
 * table without storing a row; with args NULL, validate every trigger of
 * the table that calls nddup_dedup_trigger().  Returns the trigger's name
 * (NULL for args) and its normalized settings, one row per trigger.
 */
Datum
nddup_check_trigger(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Oid			ext_nsp = get_func_namespace(fcinfo->flinfo->fn_oid);
	Relation	rel;
	DedupConfig cfg;

	InitMaterializedSRF(fcinfo, 0);
	if (PG_ARGISNULL(0))
		return (Datum) 0;
	rel = nddup_dedup_open_table(PG_GETARG_OID(0));

	if (!PG_ARGISNULL(1))
	{
		int			n;
		char	  **args = nddup_dedup_args_array(PG_GETARG_ARRAYTYPE_P(1), &n);
		Datum		line[2];
		bool		null[2] = {true, false};

		nddup_dedup_parse_args(rel, n, args, ext_nsp, NULL, &cfg);
		nddup_dedup_citus_check(rel, &cfg);
		nddup_dedup_warn_unsafe(rel, &cfg, NULL);
		line[0] = (Datum) 0;
		line[1] = CStringGetTextDatum(cfg.settings);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, line, null);
	}
	else if (rel->trigdesc)
	{
		Oid			trigfunc = LookupFuncName(list_make2(makeString(get_namespace_name(ext_nsp)),
														 makeString("nddup_dedup_trigger")),
											  0, NULL, false);

		for (int i = 0; i < rel->trigdesc->numtriggers; i++)
		{
			Trigger    *trigger = &rel->trigdesc->triggers[i];
			Datum		line[2];
			bool		null[2] = {false, false};

			if (trigger->tgfoid != trigfunc)
				continue;
			if (!nddup_dedup_graph_form(trigger->tgtype))
				nddup_dedup_check_tgtype(trigger->tgtype, trigger->tgname);
			nddup_dedup_parse_args(rel, trigger->tgnargs, trigger->tgargs, ext_nsp,
							 trigger->tgname, &cfg);
			nddup_dedup_citus_check(rel, &cfg);
			if (nddup_dedup_graph_form(trigger->tgtype))
				nddup_dedup_graph_check(rel, trigger, &cfg);
			else
				nddup_dedup_warn_unsafe(rel, &cfg, trigger->tgname);
			line[0] = CStringGetTextDatum(trigger->tgname);
			line[1] = CStringGetTextDatum(cfg.settings);
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, line, null);
		}
	}
	table_close(rel, AccessShareLock);
	return (Datum) 0;
}
