/*-------------------------------------------------------------------------
 *
 * trigger_lookup.c
 *	  The statements of the trigger and how they run: the lookup of the
 *	  earliest original near a new row (as the table owner, or as the
 *	  inserting role under visibility=caller, docs/security.md), the lock of
 *	  the original found, and the re-pointing of duplicates.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "trigger/trigger.h"

#include "access/xact.h"
#include "catalog/pg_operator.h"
#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
#include "utils/typcache.h"

/* Prepare one statement with a generic plan and keep it for the session. */
static SPIPlanPtr
dedup_prepare(const char *sql, int nargs, Oid *argtypes)
{
	SPIPlanPtr	plan = SPI_prepare_cursor(sql, nargs, argtypes,
										  CURSOR_OPT_GENERIC_PLAN);

	if (plan == NULL)
		elog(ERROR, "SPI_prepare_cursor failed for \"%s\": %s",
			 sql, SPI_result_code_string(SPI_result));
	if (SPI_keepplan(plan) != 0)
		elog(ERROR, "SPI_keepplan failed");
	return plan;
}

/* The schema-qualified name of an operator, as OPERATOR(schema.name). */
static char *
dedup_operator_name(Oid opno)
{
	HeapTuple	tup = SearchSysCache1(OPEROID, ObjectIdGetDatum(opno));
	Form_pg_operator op;
	char	   *result;

	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for operator %u", opno);
	op = (Form_pg_operator) GETSTRUCT(tup);
	result = psprintf("OPERATOR(%s.%s)",
					  quote_identifier(get_namespace_name(op->oprnamespace)),
					  NameStr(op->oprname));
	ReleaseSysCache(tup);
	return result;
}

/* A column name of the trigger's table, quoted, with the alias "t.". */
static char *
dedup_col(const DedupConfig *cfg, AttrNumber attno)
{
	return psprintf("t.%s", quote_identifier(get_attname(cfg->relid, attno, false)));
}

/* The id column's equality operator, as OPERATOR(schema.=). */
static char *
dedup_id_equals(const DedupConfig *cfg)
{
	TypeCacheEntry *tc = lookup_type_cache(cfg->id_type, TYPECACHE_EQ_OPR);

	return dedup_operator_name(tc->eq_opr);
}

/*
 * The condition "row t matches the signature $1" of the lookup: the index
 * operator with the radius or threshold $2, t.id IS NOT NULL, [t.duplicate_of
 * IS NULL when originals_only,] [the scope = $3,] [the verification value
 * similar to $n at $n+1].  Fills argtypes and *nargs (the parameters, in the
 * order nddup_dedup_match_values() fills them).
 */
char *
nddup_dedup_match_clause(const DedupConfig *cfg, bool originals_only,
						 Oid *argtypes, int *nargs)
{
	const char *nsp = quote_identifier(get_namespace_name(cfg->ext_nsp));
	char	   *fpexpr;
	StringInfoData buf;

	if (cfg->fp_attno)
		fpexpr = dedup_col(cfg, cfg->fp_attno);
	else
		fpexpr = nddup_dedup_source_call(cfg, dedup_col(cfg, cfg->src_attno), true);
	*nargs = 2;
	argtypes[0] = cfg->sig_type;
	argtypes[1] = cfg->method == NDDUP_TRIGGER_SIMHASH ? INT4OID : FLOAT8OID;
	initStringInfo(&buf);
	appendStringInfo(&buf, "%s OPERATOR(%s.<@) %s.%s($1, $2) AND %s IS NOT NULL",
					 fpexpr, nsp, nsp, cfg->query_func, dedup_col(cfg, cfg->id_attno));
	/*
	 * Originals only: "IS NULL" proves a partial index's predicate; with an
	 * index of every row it is written so that no btree on duplicate_of can
	 * serve it (the generic plan would AND it with the signature's index and
	 * read every original's entry on each lookup).
	 */
	if (originals_only && cfg->dup_attno && cfg->index_full)
		appendStringInfo(&buf, " AND pg_catalog.num_nulls(%s) OPERATOR(pg_catalog.=) 1",
						 dedup_col(cfg, cfg->dup_attno));
	else if (originals_only && cfg->dup_attno)
		appendStringInfo(&buf, " AND %s IS NULL", dedup_col(cfg, cfg->dup_attno));
	if (cfg->scope_attno)
	{
		TypeCacheEntry *tc = lookup_type_cache(cfg->scope_type, TYPECACHE_EQ_OPR);

		argtypes[(*nargs)++] = cfg->scope_type;
		appendStringInfo(&buf, " AND %s %s $%d", dedup_col(cfg, cfg->scope_attno),
						 dedup_operator_name(tc->eq_opr), *nargs);
	}
	if (cfg->verify > 0.0)
	{
		argtypes[(*nargs)++] = cfg->verify_type;
		argtypes[(*nargs)++] = FLOAT8OID;
		appendStringInfo(&buf, " AND %s", nddup_dedup_verify_clause(cfg, *nargs - 1));
	}
	return buf.data;
}

/*
 * The parameters of nddup_dedup_match_clause() for a signature, scope and
 * verification value (NULL: the row has none); returns how many.
 */
int
nddup_dedup_match_values(const DedupConfig *cfg, Datum sig, Datum scope,
						 const Datum *verify, Datum *values, char *nulls)
{
	int			nvalues = 0;

	values[nvalues++] = sig;
	values[nvalues++] = cfg->method == NDDUP_TRIGGER_SIMHASH ? Int32GetDatum(cfg->radius)
		: Float8GetDatum(cfg->threshold);
	if (cfg->scope_attno)
		values[nvalues++] = scope;
	if (cfg->verify > 0.0)
	{
		/* a row without a verification value verifies against nothing */
		if (verify == NULL)
			nulls[nvalues] = 'n';
		values[nvalues++] = verify ? *verify : (Datum) 0;
		values[nvalues++] = Float8GetDatum(cfg->verify);
	}
	return nvalues;
}

/*
 * Prepare the plans of an entry (inside SPI):
 *
 *	SELECT t.id, <fp>, t.order FROM ONLY <table> t
 *	 WHERE <fp> OPERATOR(ext.<@) ext.ball($1, $2) AND t.id IS NOT NULL
 *	   (method=minhash or shingleset: ext.similar_to($1, $2), $2 the
 *	   threshold)
 *	   AND t.duplicate_of IS NULL [AND t.scope = $3]
 *	   [AND ext.similar(<verification value>, $n, $n+1)]
 *	   [AND t.ctid OPERATOR(pg_catalog.<>) $last]
 *	 ORDER BY ROW(t.order, t.id) LIMIT 1 [FOR KEY SHARE OF t]
 *
 * with a generic plan (the center and radius are parameters, so the plan
 * does not flip to a sequential scan at large radii).  The ORDER BY is a row
 * so that no btree index on the id can provide the order: with the generic
 * estimate of 0.1 % matching rows, the planner would otherwise walk the
 * primary key and filter every row until the first match (the whole table
 * when there is none) rather than ask the near-duplicate index.  The lookup
 * locks the original it finds, like a foreign-key check, when it runs as the
 * table owner (visibility=all); with visibility=caller it runs as the
 * inserting role, who need not have the UPDATE privilege that FOR KEY SHARE
 * asks for, and the owner locks the row afterwards:
 *
 *	SELECT 1 FROM ONLY <table> t WHERE t.id = $1 AND t.duplicate_of IS NULL
 *	 FOR KEY SHARE OF t
 *
 * The duplicates of a row that becomes a duplicate are re-pointed with
 *
 *	UPDATE ONLY <table> t SET duplicate_of = $1 WHERE t.duplicate_of = $2
 *	 [AND t.id = $3]
 *
 * (visibility=caller: one id at a time, the ids of the duplicates the role
 * may read, from SELECT t.id FROM ONLY <table> t WHERE t.duplicate_of = $1).
 * Every name is qualified: the caller's search_path cannot redirect them.
 */
void
nddup_dedup_prepare_plans(DedupCacheEntry *entry, Relation rel)
{
	const DedupConfig *cfg = &entry->config;
	bool		caller = (cfg->visibility == NDDUP_TRIGGER_VISIBILITY_CALLER);
	const char *table;
	char	   *fpexpr;
	char	   *id;
	char	   *dup;
	StringInfoData base;
	StringInfoData tail;
	char	   *sql;
	Oid			argtypes[7];
	int			nargs;

	/* prepared by an earlier row: nothing to build */
	if (entry->lookup_insert && entry->lookup_update &&
		(!caller || entry->lock_original) && (!cfg->dup_attno || entry->repoint) &&
		(!caller || !cfg->dup_attno || entry->dependents))
		return;
	table = quote_qualified_identifier(get_namespace_name(RelationGetNamespace(rel)),
									   RelationGetRelationName(rel));
	id = dedup_col(cfg, cfg->id_attno);
	dup = cfg->dup_attno ? dedup_col(cfg, cfg->dup_attno) : NULL;
	if (cfg->fp_attno)
		fpexpr = dedup_col(cfg, cfg->fp_attno);
	else
		fpexpr = nddup_dedup_source_call(cfg, dedup_col(cfg, cfg->src_attno), true);

	initStringInfo(&base);
	appendStringInfo(&base, "SELECT %s, %s, %s FROM ONLY %s t WHERE %s",
					 id, fpexpr, dedup_col(cfg, cfg->order_attno), table,
					 nddup_dedup_match_clause(cfg, true, argtypes, &nargs));
	initStringInfo(&tail);
	appendStringInfoString(&tail, " ORDER BY ROW(");
	if (cfg->order_attno != cfg->id_attno)
		appendStringInfo(&tail, "%s, ", dedup_col(cfg, cfg->order_attno));
	appendStringInfo(&tail, "%s) LIMIT 1%s", id, caller ? "" : " FOR KEY SHARE OF t");

	if (entry->lookup_insert == NULL)
	{
		sql = psprintf("%s%s", base.data, tail.data);
		entry->lookup_insert = dedup_prepare(sql, nargs, argtypes);
	}
	if (entry->lookup_update == NULL)
	{
		argtypes[nargs] = TIDOID;
		sql = psprintf("%s AND t.ctid OPERATOR(pg_catalog.<>) $%d%s", base.data, nargs + 1,
					   tail.data);
		entry->lookup_update = dedup_prepare(sql, nargs + 1, argtypes);
	}
	if (caller && entry->lock_original == NULL)
	{
		argtypes[0] = cfg->id_type;
		sql = psprintf("SELECT 1 FROM ONLY %s t WHERE %s %s $1%s%s FOR KEY SHARE OF t",
					   table, id, dedup_id_equals(cfg), dup ? " AND " : "",
					   dup ? psprintf("%s IS NULL", dup) : "");
		entry->lock_original = dedup_prepare(sql, 1, argtypes);
	}
	if (entry->repoint == NULL && dup)
	{
		const char *equals = dedup_id_equals(cfg);

		sql = psprintf("UPDATE ONLY %s t SET %s = $1 WHERE %s %s $2%s",
					   table,
					   quote_identifier(get_attname(cfg->relid, cfg->dup_attno, false)),
					   dup, equals,
					   caller ? psprintf(" AND %s %s $3", id, equals) : "");
		argtypes[0] = argtypes[1] = argtypes[2] = cfg->id_type;
		entry->repoint = dedup_prepare(sql, caller ? 3 : 2, argtypes);
	}
	if (caller && dup && entry->dependents == NULL)
	{
		sql = psprintf("SELECT %s FROM ONLY %s t WHERE %s %s $1 AND %s IS NOT NULL",
					   id, table, dup, dedup_id_equals(cfg), id);
		argtypes[0] = cfg->id_type;
		entry->dependents = dedup_prepare(sql, 1, argtypes);
	}
}

/* Read the answer of the last lookup out of SPI. */
static void
dedup_read_result(const DedupConfig *cfg, DedupFound *res)
{
	bool		isnull;

	res->found = (SPI_processed > 0);
	if (!res->found)
		return;
	res->id = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	res->id = SPI_datumTransfer(res->id, cfg->id_typbyval, cfg->id_typlen);
	res->sig = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull);
	if (cfg->method != NDDUP_TRIGGER_SIMHASH)
		res->sig = SPI_datumTransfer(res->sig, false, -1);
	res->ord = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 3, &res->ord_null);
	if (!res->ord_null)
		res->ord = SPI_datumTransfer(res->ord,
									 TupleDescAttr(SPI_tuptable->tupdesc, 2)->attbyval,
									 TupleDescAttr(SPI_tuptable->tupdesc, 2)->attlen);
}

/*
 * Run the lookup once (as the current user) and read its answer.  Under
 * READ COMMITTED the statement's fresh snapshot sees every transaction that
 * held one of our lock keys.  Under REPEATABLE READ and SERIALIZABLE the
 * transaction snapshot may miss a near-duplicate that committed after it was
 * taken: the lookup then runs both with the latest snapshot and with the
 * transaction snapshot, and a different answer is a serialization failure.
 */
static void
dedup_lookup_once(const DedupConfig *cfg, SPIPlanPtr plan, Datum *values,
				  const char *nulls, DedupFound *res)
{
	int			rc;

	if (IsolationUsesXactSnapshot())
	{
		DedupFound	latest;
		bool		same;

		rc = SPI_execute_snapshot(plan, values, nulls, GetLatestSnapshot(),
								  InvalidSnapshot, false, true, 1);
		if (rc != SPI_OK_SELECT)
			elog(ERROR, "SPI_execute_snapshot returned %s", SPI_result_code_string(rc));
		dedup_read_result(cfg, &latest);
		rc = SPI_execute_plan(plan, values, nulls, false, 1);
		if (rc != SPI_OK_SELECT)
			elog(ERROR, "SPI_execute_plan returned %s", SPI_result_code_string(rc));
		dedup_read_result(cfg, res);
		same = (latest.found == res->found);
		if (same && res->found)
			same = datumIsEqual(latest.id, res->id, cfg->id_typbyval, cfg->id_typlen);
		if (!same)
			ereport(ERROR,
					(errcode(ERRCODE_T_R_SERIALIZATION_FAILURE),
					 errmsg("could not serialize access due to a concurrent near-duplicate"),
					 errdetail("A transaction that committed after this transaction's snapshot changed the originals near the new row."),
					 errhint("The transaction might succeed if retried.")));
		return;
	}
	rc = SPI_execute_plan(plan, values, nulls, false, 1);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "SPI_execute_plan returned %s", SPI_result_code_string(rc));
	dedup_read_result(cfg, res);
}

/* The identity and security context of a trigger call, to switch back to. */
typedef struct DedupUser
{
	Oid			userid;
	int			sec_context;
} DedupUser;

/*
 * Act as the table owner, ignoring row-level security, as a foreign-key
 * check does; remembers the identity to return to in *saved.
 */
static void
dedup_become_owner(Relation rel, DedupUser *saved)
{
	GetUserIdAndSecContext(&saved->userid, &saved->sec_context);
	SetUserIdAndSecContext(rel->rd_rel->relowner,
						   saved->sec_context | SECURITY_LOCAL_USERID_CHANGE |
						   SECURITY_NOFORCE_RLS);
}

/* Return to the identity saved by dedup_become_owner(). */
static void
dedup_restore_user(const DedupUser *saved)
{
	SetUserIdAndSecContext(saved->userid, saved->sec_context);
}

/*
 * Find the earliest original near sig in the scope (excluding the row at
 * ctid on UPDATE) and lock it FOR KEY SHARE, so that it cannot be deleted
 * or stop being an original before we commit.  visibility=all: one statement,
 * as the table owner.  visibility=caller: the lookup runs as the current
 * user, whose row-level security policies apply, and the owner then locks
 * the row found; if it was deleted or became a duplicate in between, the
 * lookup runs again with a newer snapshot.
 */
void
nddup_dedup_lookup(DedupCacheEntry *entry, Relation rel, Datum sig, Datum scope,
				   const Datum *verify, ItemPointer ctid, DedupFound *res)
{
	const DedupConfig *cfg = &entry->config;
	SPIPlanPtr	plan = ctid ? entry->lookup_update : entry->lookup_insert;
	Datum		values[7];
	char		nulls[8] = "       ";
	int			nvalues;
	DedupUser	saved;

	nvalues = nddup_dedup_match_values(cfg, sig, scope, verify, values, nulls);
	values[nvalues] = PointerGetDatum(ctid);

	if (cfg->visibility == NDDUP_TRIGGER_VISIBILITY_ALL)
	{
		dedup_become_owner(rel, &saved);
		dedup_lookup_once(cfg, plan, values, nulls, res);
		dedup_restore_user(&saved);
		return;
	}
	for (;;)
	{
		Datum		id;
		int			rc;

		dedup_lookup_once(cfg, plan, values, nulls, res);
		if (!res->found)
			return;
		id = res->id;
		dedup_become_owner(rel, &saved);
		rc = SPI_execute_plan(entry->lock_original, &id, NULL, false, 1);
		dedup_restore_user(&saved);
		if (rc != SPI_OK_SELECT)
			elog(ERROR, "SPI_execute_plan returned %s", SPI_result_code_string(rc));
		if (SPI_processed > 0)
			return;
		CHECK_FOR_INTERRUPTS();
	}
}

/*
 * Point the duplicates of a row that became a duplicate at its original:
 * every such row (visibility=all), or those the current user may read
 * (visibility=caller; the owner updates them one by one), so that nothing
 * the user may not read changes because of its update.
 */
void
nddup_dedup_repoint(DedupCacheEntry *entry, Relation rel, Datum new_original, Datum old_id)
{
	const DedupConfig *cfg = &entry->config;
	Datum		values[3];
	Datum	   *ids = NULL;
	uint64		nids = 0;
	DedupUser	saved;
	int			rc;

	values[0] = new_original;
	values[1] = old_id;
	if (cfg->visibility == NDDUP_TRIGGER_VISIBILITY_CALLER)
	{
		rc = SPI_execute_plan(entry->dependents, &old_id, NULL, false, 0);
		if (rc != SPI_OK_SELECT)
			elog(ERROR, "SPI_execute_plan returned %s", SPI_result_code_string(rc));
		nids = SPI_processed;
		ids = palloc(sizeof(Datum) * Max(nids, 1));
		for (uint64 i = 0; i < nids; i++)
		{
			bool		isnull;

			ids[i] = SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull);
			ids[i] = datumCopy(ids[i], cfg->id_typbyval, cfg->id_typlen);
		}
		SPI_freetuptable(SPI_tuptable);
	}

	dedup_become_owner(rel, &saved);
	for (uint64 i = 0; i < (ids ? nids : 1); i++)
	{
		if (ids)
			values[2] = ids[i];
		if (IsolationUsesXactSnapshot())
			rc = SPI_execute_snapshot(entry->repoint, values, NULL,
									  GetLatestSnapshot(), GetTransactionSnapshot(),
									  false, true, 0);
		else
			rc = SPI_execute_plan(entry->repoint, values, NULL, false, 0);
		if (rc != SPI_OK_UPDATE)
			elog(ERROR, "SPI_execute_plan returned %s", SPI_result_code_string(rc));
	}
	dedup_restore_user(&saved);
}

/*
 * visibility=caller: the current user must be able to read the columns the
 * lookup reads, or the check could not see the rows it is meant to see.
 */
void
nddup_dedup_check_caller(const DedupConfig *cfg, Relation rel, Trigger *trigger)
{
	AttrNumber	cols[7];
	int			ncols = 0;
	Oid			userid = GetUserId();

	if (pg_class_aclcheck(cfg->relid, userid, ACL_SELECT) == ACLCHECK_OK)
		return;
	cols[ncols++] = cfg->id_attno;
	cols[ncols++] = cfg->fp_attno ? cfg->fp_attno : cfg->src_attno;
	cols[ncols++] = cfg->order_attno;
	if (cfg->dup_attno)
		cols[ncols++] = cfg->dup_attno;
	if (cfg->scope_attno)
		cols[ncols++] = cfg->scope_attno;
	if (cfg->verify > 0.0)
		cols[ncols++] = cfg->verify_attno ? cfg->verify_attno : cfg->src_attno;
	for (int i = 0; i < ncols; i++)
		if (pg_attribute_aclcheck(cfg->relid, cols[i], userid, ACL_SELECT) != ACLCHECK_OK)
			ereport(ERROR,
					(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
					 errmsg("permission denied for column \"%s\" of relation \"%s\"",
							get_attname(cfg->relid, cols[i], false),
							RelationGetRelationName(rel)),
					 errdetail("Trigger \"%s\" judges new rows against the rows the inserting role may read (visibility=caller), and role \"%s\" may not read this column.",
							   trigger->tgname, GetUserNameFromId(userid, false)),
					 errhint("Grant SELECT on the column, or give the trigger visibility=all to judge against every row (which tells the role about rows it may not read).")));
}

/* The qualified equality operator of a type, as OPERATOR(schema.=) (trigger_citus.c). */
char *
nddup_dedup_equals(Oid type)
{
	TypeCacheEntry *tc = lookup_type_cache(type, TYPECACHE_EQ_OPR);

	return dedup_operator_name(tc->eq_opr);
}
