/*-------------------------------------------------------------------------
 *
 * trigger_citus.c
 *	  The insert-time check on Citus (docs/scale-out.md#the-insert-time-check):
 *
 *	  - nddup_dedup_citus_check(): a trigger on a distributed table fires on
 *		its shards, where the lookup sees one shard and the advisory locks
 *		hold on one node.  That is exact only when the scope column is the
 *		distribution column (every row a row is judged against is on its
 *		shard, and so are the locks of its scope); any other configuration
 *		is refused when the trigger is checked (nddup_check_trigger()) and
 *		when it fires, never run as a silent per-shard check.  Citus
 *		refuses the alternative, a distributed query from a trigger on a
 *		shard ("cannot execute a distributed query from a query on a
 *		shard"), unless citus.allow_nested_distributed_execution is set
 *		"with possible incorrectness".
 *
 *	  - nddup_original(): the coordinator-side form for every other layout.
 *		Called in the VALUES of an INSERT through the coordinator (Citus
 *		evaluates a volatile function there, before it routes the row), it
 *		takes the trigger's advisory locks on the coordinator, looks the
 *		earliest original up on every shard with a distributed query, and
 *		returns its id (or NULL) for duplicate_of.  The coordinator is one
 *		node, so its locks serialize near-duplicates cluster-wide among the
 *		inserts that call it; they are held until the end of the
 *		transaction, after Citus's commit on the workers (one-phase commit
 *		before the local commit, two-phase COMMIT PREPARED in the commit
 *		callbacks, both before a transaction releases its locks), so the
 *		lookup of a waiting insert sees the row it waited for.
 *		nddup_original_routed() (original_routed.c) shares these steps and
 *		reads a key table distributed by key instead of every shard.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "citus/original.h"
#include "trigger/trigger.h"

#include "access/htup_details.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/pg_operator.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "storage/lock.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/syscache.h"
#include "utils/typcache.h"

PG_FUNCTION_INFO_V1(nddup_original);

/*
 * Refuse a trigger configuration that would check one shard of a Citus
 * table alone (see the file header).  rel is the table the trigger is on:
 * a distributed table on the coordinator, or a shard on a worker.
 */
void
nddup_dedup_citus_check(Relation rel, const DedupConfig *cfg)
{
	Oid			relid = RelationGetRelid(rel);
	Oid			logical = relid;
	char		method;
	char	   *distcol = NULL;
	const char *scope = NULL;

	if (!nddup_citus_installed())
		return;
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (!nddup_citus_shard_of(relid, &logical))
		logical = relid;
	method = nddup_citus_distribution(logical, &distcol);
	SPI_finish();

	/* not a Citus table, a reference table or a Citus local table: all rows */
	if (method == '\0' || method == 'n')
		return;
	if (cfg->scope_attno)
		scope = get_attname(relid, cfg->scope_attno, false);
	if ((method == 'h' || method == 'r') && scope && distcol &&
		strcmp(scope, distcol) == 0)
		return;
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("nddup_dedup_trigger() on distributed table \"%s\" would check each shard alone",
					get_rel_name(logical)),
			 distcol ?
			 errdetail("The table is distributed by column \"%s\"; a near-duplicate stored in another shard would not be seen, and the locks would not hold across nodes.",
					   distcol) :
			 errdetail("A near-duplicate stored in another shard would not be seen."),
			 distcol && method != 'a' &&
			 strcmp(distcol, get_attname(relid, cfg->id_attno, false)) != 0 ?
			 errhint("Add scope=%s to the trigger's arguments to judge rows within each value of the distribution column, or drop the trigger and insert through the coordinator with nddup_original() (docs/scale-out.md).",
					 distcol) :
			 errhint("Drop the trigger and insert through the coordinator with nddup_original() (docs/scale-out.md).")));
}

/* ----------------------------------------------------------------
 *		nddup_original()
 * ----------------------------------------------------------------
 */

/*
 * The configuration of the last call, kept for the session: parsing the
 * arguments against the table reads the catalogs (and filter= reads its
 * table as the caller); a change of the table or of the filter's table
 * (relcache invalidation) drops it.  It is kept per role; the privileges
 * are checked on every call (trigger_acl.c).
 */
static DedupCacheEntry original_entry;
static char *original_key = NULL;	/* "relid userid args..." of original_entry */
static MemoryContext original_cxt = NULL;
static bool original_callback = false;

/* Relcache callback: forget the configuration. */
static void
original_invalidate(Datum arg, Oid relid)
{
	if (original_key != NULL &&
		(relid == InvalidOid || relid == original_entry.config.relid ||
		 relid == original_entry.config.filter_relid ||
		 relid == original_entry.routed_keys))
		original_key = NULL;
}

/* Free the saved statements of the configuration of the last call. */
static void
original_free_plans(DedupCacheEntry *entry)
{
	if (entry->original_lookup)
		SPI_freeplan(entry->original_lookup);
	if (entry->routed_store)
		SPI_freeplan(entry->routed_store);
	entry->original_lookup = entry->routed_store = NULL;
	entry->routed_keys = InvalidOid;
	entry->routed_nkeys = 0;
}

/*
 * The saved statements of a lookup through key table keys (InvalidOid: the
 * lookup of nddup_original()): kept while the configuration, the caller
 * and the key table stay the same; else freed, to be prepared again.
 */
void
nddup_original_plans_for(DedupCacheEntry *entry, Oid keys)
{
	if (entry->routed_keys != keys)
		original_free_plans(entry);
	entry->routed_keys = keys;
}

/*
 * Prepare a statement and keep it for the configuration's later calls
 * (the planner of Citus then runs once, not on every insert).
 */
SPIPlanPtr
nddup_original_prepare(const char *sql, int nargs, Oid *argtypes)
{
	SPIPlanPtr	plan = SPI_prepare(sql, nargs, argtypes);

	if (plan == NULL)
		elog(ERROR, "SPI_prepare failed for \"%s\": %s", sql,
			 SPI_result_code_string(SPI_result));
	if (SPI_keepplan(plan) != 0)
		elog(ERROR, "SPI_keepplan failed");
	return plan;
}

/* The configuration of (rel, args), parsed or from the last call. */
static DedupCacheEntry *
original_config(Relation rel, ArrayType *arr, Oid ext_nsp)
{
	int			n;
	char	  **args = nddup_dedup_args_array(arr, &n);
	StringInfoData key;
	MemoryContext old;

	initStringInfo(&key);
	appendStringInfo(&key, "%u %u", RelationGetRelid(rel), GetUserId());
	for (int i = 0; i < n; i++)
		appendStringInfo(&key, " %s", args[i]);
	if (original_key != NULL && strcmp(original_key, key.data) == 0)
		return &original_entry;

	if (original_cxt == NULL)
		original_cxt = AllocSetContextCreate(CacheMemoryContext, "nddup_original",
											 ALLOCSET_SMALL_SIZES);
	if (!original_callback)
	{
		CacheRegisterRelcacheCallback(original_invalidate, (Datum) 0);
		original_callback = true;
	}
	original_key = NULL;
	original_free_plans(&original_entry);
	MemoryContextReset(original_cxt);
	memset(&original_entry, 0, sizeof(original_entry));
	old = MemoryContextSwitchTo(original_cxt);
	PG_TRY();
	{
		nddup_dedup_parse_args(rel, n, args, ext_nsp, NULL, &original_entry.config);
	}
	PG_CATCH();
	{
		MemoryContextSwitchTo(old);
		memset(&original_entry, 0, sizeof(original_entry));
		PG_RE_THROW();
	}
	PG_END_TRY();
	original_key = pstrdup(key.data);
	original_entry.cxt = original_cxt;
	original_entry.unit_datum = CStringGetTextDatum(original_entry.config.unit);
	nddup_dedup_verify_prepare(&original_entry);
	MemoryContextSwitchTo(old);
	original_entry.valid = true;
	original_entry.lock_lxid = InvalidLocalTransactionId;
	return &original_entry;
}

/* A column of the table in the lookup, quoted, with the alias "t.". */
static char *
original_col(const DedupConfig *cfg, AttrNumber attno)
{
	return psprintf("t.%s", quote_identifier(get_attname(cfg->relid, attno, false)));
}

/*
 * The scope value given to nddup_original() as the scope column's type: the
 * same type (or a domain over it) as is, another type (an unknown literal,
 * a bigint for an integer column) through its text form, as a cast from
 * text would convert it.
 */
static Datum
original_scope(FunctionCallInfo fcinfo, int argno, Oid want)
{
	Oid			type = get_fn_expr_argtype(fcinfo->flinfo, argno);
	Oid			infunc;
	Oid			ioparam;
	Oid			outfunc;
	bool		varlena;
	char	   *str;

	if (getBaseType(type) == getBaseType(want))
		return PG_GETARG_DATUM(argno);
	if (type == UNKNOWNOID)
		str = pstrdup(DatumGetCString(PG_GETARG_DATUM(argno)));
	else
	{
		getTypeOutputInfo(type, &outfunc, &varlena);
		str = OidOutputFunctionCall(outfunc, PG_GETARG_DATUM(argno));
	}
	getTypeInputInfo(want, &infunc, &ioparam);
	return OidInputFunctionCall(infunc, str, ioparam, -1);
}

/*
 * The value of nddup_original() as a text into *text; false when it is the
 * signature itself (any other type is 42804).
 */
static bool
original_text(FunctionCallInfo fcinfo, const DedupConfig *cfg, Datum *text)
{
	Oid			type = get_fn_expr_argtype(fcinfo->flinfo, 2);

	if (getBaseType(type) == cfg->sig_type)
		return false;
	if (type != TEXTOID && type != VARCHAROID && type != UNKNOWNOID &&
		getBaseType(type) != TEXTOID && getBaseType(type) != VARCHAROID)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("the value of nddup_original() has type %s, expected %s or text",
						format_type_be(type), format_type_be(cfg->sig_type))));
	*text = type == UNKNOWNOID ? CStringGetTextDatum(DatumGetCString(PG_GETARG_DATUM(2))) :
		PG_GETARG_DATUM(2);
	return true;
}

/*
 * With verify=, the verification value of the new row, computed as the
 * trigger computes it (trigger_verify.c) from a row that holds only the
 * source text: shingle_set() of the text, or a verify_column generated from
 * it.  False when it is NULL.
 */
bool
nddup_original_verify_value(FunctionCallInfo fcinfo, DedupCacheEntry *entry, Relation rel,
							Datum *value)
{
	const DedupConfig *cfg = &entry->config;
	TupleDesc	desc = RelationGetDescr(rel);
	Datum	   *values;
	bool	   *nulls;
	Datum		text;

	if (cfg->src_attno == 0 || !original_text(fcinfo, cfg, &text))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("with verify=, nddup_original() needs the new row's source text"),
				 errhint("Give source= in the arguments and pass the text as the value.")));
	if (cfg->verify_attno && !cfg->verify_generated)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("nddup_original() cannot read verify_column \"%s\" of a row not yet stored",
						get_attname(cfg->relid, cfg->verify_attno, false)),
				 errdetail("Only a column generated from the source text can be computed from the value."),
				 errhint("Verify by the text (verify= without verify_column=), or make the column GENERATED ALWAYS AS (shingle_set(<source>)) STORED.")));
	values = palloc0(sizeof(Datum) * desc->natts);
	nulls = palloc(sizeof(bool) * desc->natts);
	memset(nulls, true, sizeof(bool) * desc->natts);
	values[cfg->src_attno - 1] = text;
	nulls[cfg->src_attno - 1] = false;
	return nddup_dedup_verify_value(entry, rel, heap_form_tuple(desc, values, nulls), false,
									value);
}

/*
 * The signature of the new row: a simhash64 or minhash_sketch given as is,
 * or computed from a text (or unknown literal) with the trigger's source
 * parameters, as the trigger computes it from its source column.  False
 * when the computed signature is NULL.
 */
bool
nddup_original_signature(FunctionCallInfo fcinfo, const DedupConfig *cfg, Datum *sig)
{
	Oid			texttype = TEXTOID;
	Datum		text;
	bool		isnull;

	if (!original_text(fcinfo, cfg, &text))
	{
		*sig = PG_GETARG_DATUM(2);
		return true;
	}
	if (SPI_execute_with_args(psprintf("SELECT %s", nddup_dedup_source_call(cfg, "$1", true)),
							  1, &texttype, &text, NULL, true, 1) != SPI_OK_SELECT ||
		SPI_processed != 1)
		elog(ERROR, "nddup_original(): computing the signature failed");
	*sig = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	if (isnull)
		return false;
	if (cfg->method != NDDUP_TRIGGER_SIMHASH)
		*sig = SPI_datumTransfer(*sig, false, -1);
	return true;
}

/* Raise the error of action=error (the message of the trigger). */
void
nddup_original_report(const DedupConfig *cfg, Relation rel, Datum id)
{
	Oid			outfunc;
	bool		varlena;

	getTypeOutputInfo(cfg->id_type, &outfunc, &varlena);
	ereport(ERROR,
			(errcode(ERRCODE_UNIQUE_VIOLATION),
			 errmsg("new row for relation \"%s\" is a near-duplicate of an existing row",
					RelationGetRelationName(rel)),
			 errdetail("Key (%s)=(%s) is the original.",
					   get_attname(cfg->relid, cfg->id_attno, false),
					   OidOutputFunctionCall(outfunc, id))));
}

/*
 * The lookup's first two parameters: the signature and the radius or the
 * threshold of the condition "sig <@ query_func($1, $2)".
 */
void
nddup_original_query_params(const DedupConfig *cfg, Datum sig, Oid *argtypes, Datum *values)
{
	argtypes[0] = cfg->sig_type;
	values[0] = sig;
	if (cfg->method == NDDUP_TRIGGER_SIMHASH)
	{
		argtypes[1] = INT4OID;
		values[1] = Int32GetDatum(cfg->radius);
	}
	else
	{
		argtypes[1] = FLOAT8OID;
		values[1] = Float8GetDatum(cfg->threshold);
	}
}

/*
 * With verify=, the parameters of the verification clause after the nargs
 * ones: the new row's value (NULL when verify is NULL) and the threshold.
 * Returns the new number of parameters.
 */
int
nddup_original_verify_params(const DedupConfig *cfg, const Datum *verify, int nargs,
							 Oid *argtypes, Datum *values, char *nulls)
{
	if (verify == NULL)
		nulls[nargs] = 'n';
	argtypes[nargs] = cfg->verify_type;
	values[nargs++] = verify ? *verify : (Datum) 0;
	argtypes[nargs] = FLOAT8OID;
	values[nargs++] = Float8GetDatum(cfg->verify);
	return nargs;
}

/*
 * Run a lookup (its first column is the original's id) as the caller;
 * whether it found one (*id, copied to the caller's context).
 */
bool
nddup_original_run_lookup(const DedupConfig *cfg, SPIPlanPtr plan, Datum *values,
						  const char *nulls, Datum *id)
{
	bool		isnull;
	int			rc;

	rc = SPI_execute_plan(plan, values, nulls, false, 1);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "the lookup of the original failed: %s", SPI_result_code_string(rc));
	if (SPI_processed == 0)
		return false;
	*id = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	*id = SPI_datumTransfer(*id, cfg->id_typbyval, cfg->id_typlen);
	return true;
}

/*
 * The lookup of the trigger (trigger_lookup.c) as one distributed query:
 * the earliest original near sig, by the order column then the id, among
 * the rows of the same scope; its parameters: $1, $2 the condition, $3 the
 * scope value if any, then verify='s.  Prepared once per configuration.
 */
static SPIPlanPtr
original_lookup_plan(DedupCacheEntry *entry, Relation rel, int nargs, Oid *argtypes)
{
	const DedupConfig *cfg = &entry->config;
	const char *nsp = quote_identifier(get_namespace_name(cfg->ext_nsp));
	char	   *idcol = original_col(cfg, cfg->id_attno);
	char	   *fpexpr = cfg->fp_attno ? original_col(cfg, cfg->fp_attno) :
		nddup_dedup_source_call(cfg, original_col(cfg, cfg->src_attno), true);
	StringInfoData sql;

	nddup_original_plans_for(entry, InvalidOid);
	if (entry->original_lookup)
		return entry->original_lookup;
	initStringInfo(&sql);
	appendStringInfo(&sql, "SELECT %s FROM %s t WHERE %s OPERATOR(%s.<@) %s.%s($1, $2) AND %s IS NOT NULL",
					 idcol,
					 quote_qualified_identifier(get_namespace_name(RelationGetNamespace(rel)),
												RelationGetRelationName(rel)),
					 fpexpr, nsp, nsp, cfg->query_func, idcol);
	if (cfg->dup_attno)
		appendStringInfo(&sql, " AND %s IS NULL", original_col(cfg, cfg->dup_attno));
	if (cfg->scope_attno)
		appendStringInfo(&sql, " AND %s %s $3", original_col(cfg, cfg->scope_attno),
						 nddup_dedup_equals(cfg->scope_type));
	if (cfg->verify > 0.0)
		appendStringInfo(&sql, " AND %s", nddup_dedup_verify_clause(cfg, nargs - 1));
	appendStringInfo(&sql, " ORDER BY %s, %s LIMIT 1",
					 original_col(cfg, cfg->order_attno), idcol);
	entry->original_lookup = nddup_original_prepare(sql.data, nargs, argtypes);
	return entry->original_lookup;
}

/*
 * Look up the original of a row (original_lookup_plan).  Returns whether
 * one was found (its id in *id, copied to the caller's context).
 */
static bool
original_lookup(DedupCacheEntry *entry, Relation rel, Datum sig, Datum scope,
				const Datum *verify, Datum *id)
{
	const DedupConfig *cfg = &entry->config;
	Oid			argtypes[5];
	Datum		values[5];
	char		nulls[6] = "     ";
	int			nargs = 2;
	SPIPlanPtr	plan;

	nddup_original_query_params(cfg, sig, argtypes, values);
	if (cfg->scope_attno)
	{
		argtypes[2] = cfg->scope_type;
		values[2] = scope;
		nargs = 3;
	}
	if (cfg->verify > 0.0)
		nargs = nddup_original_verify_params(cfg, verify, nargs, argtypes, values, nulls);
	plan = original_lookup_plan(entry, rel, nargs, argtypes);

	/*
	 * As the caller, always: visibility=all was accepted only if no policy
	 * restricts the caller's rows (nddup_original_check_read()).
	 */
	return nddup_original_run_lookup(cfg, plan, values, nulls, id);
}

/*
 * The first steps of nddup_original() and nddup_original_routed() (fname,
 * for messages): the isolation level, the caller's privileges
 * (trigger_acl.c, on every call), the configuration of (rel, args) and the
 * type of the id argument (3).
 * Returns the entry and the table, opened with AccessShareLock.
 */
DedupCacheEntry *
nddup_original_open(FunctionCallInfo fcinfo, const char *fname, Relation *relp)
{
	Oid			ext_nsp = get_func_namespace(fcinfo->flinfo->fn_oid);
	Oid			idtype = get_fn_expr_argtype(fcinfo->flinfo, 3);
	Relation	rel;
	DedupCacheEntry *entry;
	const DedupConfig *cfg;
	bool		routed = strcmp(fname, "nddup_original") != 0;

	if (IsolationUsesXactSnapshot())
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s() needs the READ COMMITTED isolation level", fname),
				 errdetail("Its lookup must see the rows committed while it waited for its locks.")));
	nddup_original_check_table(PG_GETARG_OID(0));
	rel = nddup_dedup_open_table(PG_GETARG_OID(0));
	entry = original_config(rel, PG_GETARG_ARRAYTYPE_P(1), ext_nsp);
	cfg = &entry->config;
	nddup_original_check_read(cfg, rel);
	if (getBaseType(idtype) != getBaseType(cfg->id_type))
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("%s of %s() is %s, but column \"%s\" has type %s",
						routed ? "id" : "id_type", fname,
						format_type_be(idtype), get_attname(cfg->relid, cfg->id_attno, false),
						format_type_be(cfg->id_type)),
				 routed ? errhint("Pass the new row's id as %s.", format_type_be(cfg->id_type)) :
				 errhint("Pass NULL::%s.", format_type_be(cfg->id_type))));
	*relp = rel;
	return entry;
}

/*
 * nddup_original(rel, args, value, id_type [, scope]): the id of the
 * earliest original near a row about to be inserted into rel, judged as
 * nddup_dedup_trigger(args) would judge it, or NULL.  value is the row's
 * fingerprint or sketch, or its source text; id_type is a NULL of the id
 * column's type (the type of the result); scope the row's scope value when
 * the arguments name a scope column.  action=error raises the trigger's
 * 23505 instead of returning an id.  For inserts through the Citus
 * coordinator (see the file header); it works on one node as well.  The
 * caller needs INSERT on rel and SELECT on the columns it reads
 * (trigger_acl.c).
 */
Datum
nddup_original(PG_FUNCTION_ARGS)
{
	Relation	rel;
	DedupCacheEntry *entry;
	const DedupConfig *cfg;
	Datum		sig;
	Datum		scope = (Datum) 0;
	uint32		scope_hash = 0;
	Datum		id = (Datum) 0;
	Datum		verify = (Datum) 0;
	bool		has_verify = false;
	bool		found;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2))
		PG_RETURN_NULL();
	entry = nddup_original_open(fcinfo, "nddup_original", &rel);
	cfg = &entry->config;
	if (cfg->scope_attno)
	{
		if (PG_NARGS() < 5)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("the arguments name a scope column, so nddup_original() needs the row's scope value")));
		/* a row without a scope value is not judged */
		if (PG_ARGISNULL(4))
		{
			table_close(rel, AccessShareLock);
			PG_RETURN_NULL();
		}
		scope = original_scope(fcinfo, 4, cfg->scope_type);
		scope_hash = OidIsValid(cfg->scope_hash_proc) ?
			DatumGetUInt32(OidFunctionCall1Coll(cfg->scope_hash_proc, cfg->scope_collation, scope)) : 1;
	}

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (!nddup_original_signature(fcinfo, cfg, &sig))
	{
		/* a NULL signature (a text without one): not judged */
		SPI_finish();
		table_close(rel, AccessShareLock);
		PG_RETURN_NULL();
	}
	if (cfg->verify > 0.0)
		has_verify = nddup_original_verify_value(fcinfo, entry, rel, &verify);
	nddup_dedup_lock(entry, &sig, &scope_hash, 1);
	found = original_lookup(entry, rel, sig, scope, has_verify ? &verify : NULL, &id);
	SPI_finish();
	if (found && cfg->action == NDDUP_TRIGGER_ERROR)
		nddup_original_report(cfg, rel, id);
	table_close(rel, AccessShareLock);
	if (!found)
		PG_RETURN_NULL();
	PG_RETURN_DATUM(id);
}
