/*-------------------------------------------------------------------------
 *
 * batch_input.c
 *	  The inputs of the batch functions: a query text (one SELECT, its
 *	  columns checked by role before any row is read, rows delivered to a
 *	  DestReceiver) or a relation and column names, checked up front (42P01,
 *	  42703, 42804 with the type expected) and turned into such a query.
 *
 * Inputs run through SPI with the caller's privileges; a relation argument
 * becomes a query of quoted identifiers, so it is read with the caller's
 * privileges too (docs/security.md).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "batch/batch.h"

#include "access/tupdesc.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "executor/tuptable.h"
#include "lib/stringinfo.h"
#include "nodes/parsenodes.h"
#include "tcop/dest.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/plancache.h"
#include "utils/syscache.h"

/* OID of one of our types in the schema of the calling function. */
Oid
nddup_lookup_type(FunctionCallInfo fcinfo, const char *typname)
{
	Oid			nsp = get_func_namespace(fcinfo->flinfo->fn_oid);
	Oid			typid;

	typid = GetSysCacheOid2(TYPENAMENSP, Anum_pg_type_oid,
							CStringGetDatum(typname),
							ObjectIdGetDatum(nsp));
	if (!OidIsValid(typid))
		elog(ERROR, "type %s not found in the schema of %s",
			 typname, get_func_name(fcinfo->flinfo->fn_oid));
	return typid;
}

/* A column value as int64 (integer types, dates, timestamps). */
int64
nddup_datum_int64(Datum d, Oid type)
{
	switch (type)
	{
		case INT2OID:
			return DatumGetInt16(d);
		case INT4OID:
		case DATEOID:
			return DatumGetInt32(d);
		default:
			return DatumGetInt64(d);
	}
}

/* Human name of the types accepted for a column role. */
static const char *
role_types(NddupColRole role)
{
	switch (role)
	{
		case NDDUP_COL_ID:
		case NDDUP_COL_CLUSTER:
			return "smallint, integer or bigint";
		case NDDUP_COL_ORDER:
			return "smallint, integer, bigint, date, timestamp or timestamp with time zone";
		case NDDUP_COL_SIMHASH:
			return "simhash64";
		case NDDUP_COL_SKETCH:
			return "minhash_sketch";
		case NDDUP_COL_SUPER:
			return "bigint[]";
		case NDDUP_COL_SHINGLESET:
			return "shingleset";
		case NDDUP_COL_VERIFY:
			return "text, varchar, shingleset or minhash_sketch";
	}
	return "?";
}

/* Is 'type' the type named typname in the schema of own_type? */
static bool
is_sibling_type(Oid type, Oid own_type, const char *typname)
{
	HeapTuple	tup = SearchSysCache1(TYPEOID, ObjectIdGetDatum(own_type));
	Oid			nsp;

	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for type %u", own_type);
	nsp = ((Form_pg_type) GETSTRUCT(tup))->typnamespace;
	ReleaseSysCache(tup);
	return type == GetSysCacheOid2(TYPENAMENSP, Anum_pg_type_oid,
								   CStringGetDatum(typname),
								   ObjectIdGetDatum(nsp));
}

/*
 * Is the (base) type acceptable for the column role?  own_type is the OID
 * of simhash64 or minhash_sketch in the extension's schema.
 */
static bool
role_accepts(NddupColRole role, Oid type, Oid own_type)
{
	switch (role)
	{
		case NDDUP_COL_ID:
		case NDDUP_COL_CLUSTER:
			return type == INT2OID || type == INT4OID || type == INT8OID;
		case NDDUP_COL_ORDER:
			return type == INT2OID || type == INT4OID || type == INT8OID ||
				type == DATEOID || type == TIMESTAMPOID ||
				type == TIMESTAMPTZOID;
		case NDDUP_COL_SIMHASH:
		case NDDUP_COL_SKETCH:
		case NDDUP_COL_SHINGLESET:
			return type == own_type;
		case NDDUP_COL_SUPER:
			return type == INT8ARRAYOID;
		case NDDUP_COL_VERIFY:
			if (type == TEXTOID || type == VARCHAROID || type == BPCHAROID)
				return true;
			return is_sibling_type(type, own_type, "shingleset") ||
				is_sibling_type(type, own_type, "minhash_sketch");
	}
	return false;
}

/*
 * Prepare an input query and check that it is one SELECT whose columns have
 * the roles asked for (the first nreq are required, up to nroles in all,
 * then with verify a last column holding the verification value); fills
 * cols.  Must be called inside SPI_connect.
 */
SPIPlanPtr
nddup_prepare_input(const char *fname, const char *argname, const char *query,
					const NddupColRole *roles, int nreq, int nroles,
					Oid own_type, bool verify, NddupInputCols *cols)
{
	SPIPlanPtr	plan;
	List	   *sources;
	CachedPlanSource *src = NULL;
	ListCell   *lc;
	TupleDesc	desc;
	bool		ok = true;

	Assert(nroles + (verify ? 1 : 0) <= NDDUP_INPUT_MAX_COLS);
	plan = SPI_prepare(query, 0, NULL);
	if (plan == NULL)
		elog(ERROR, "SPI_prepare failed for %s of %s: %s",
			 argname, fname, SPI_result_code_string(SPI_result));

	sources = SPI_plan_get_plan_sources(plan);
	if (list_length(sources) != 1)
		ok = false;
	else
	{
		src = (CachedPlanSource *) linitial(sources);
		if (src->commandTag != CMDTAG_SELECT || src->resultDesc == NULL)
			ok = false;
		foreach(lc, src->query_list)
		{
			Query	   *q = lfirst_node(Query, lc);

			if (q->commandType != CMD_SELECT || q->utilityStmt != NULL ||
				q->hasModifyingCTE)
				ok = false;
		}
	}
	if (!ok)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s of %s must be a single SELECT query", argname, fname),
				 errdetail("The text given is: %s", query)));

	desc = src->resultDesc;
	if (verify)
	{
		nreq++;
		nroles++;
	}
	if (desc->natts < nreq || desc->natts > nroles)
	{
		if (verify)
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("%s of %s returns %d columns, expected %d%s with the verification value last",
							argname, fname, desc->natts, nreq,
							nreq == nroles ? "" : psprintf(" or %d", nroles))));
		if (nreq == nroles)
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("%s of %s returns %d columns, expected %d",
							argname, fname, desc->natts, nreq)));
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("%s of %s returns %d columns, expected %d or %d",
						argname, fname, desc->natts, nreq, nroles)));
	}

	cols->natts = desc->natts;
	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);
		Oid			base = getBaseType(att->atttypid);
		NddupColRole role = (verify && i == desc->natts - 1) ? NDDUP_COL_VERIFY : roles[i];

		if (!role_accepts(role, base, own_type))
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("column %d (\"%s\") of %s of %s has type %s, expected %s",
							i + 1, NameStr(att->attname), argname, fname,
							format_type_be(att->atttypid), role_types(role))));
		cols->types[i] = base;
		cols->roles[i] = role;
	}
	return plan;
}

/* DestReceiver startup: nothing to do. */
static void
receiver_startup(DestReceiver *self, int operation, TupleDesc typeinfo)
{
}

/* DestReceiver shutdown: nothing to release. */
static void
receiver_shutdown(DestReceiver *self)
{
}

/* DestReceiver destroy: the receiver lives in the caller's memory. */
static void
receiver_destroy(DestReceiver *self)
{
}

/* Set up a DestReceiver whose only work is done by receive. */
void
nddup_init_receiver(DestReceiver *r,
					bool (*receive) (TupleTableSlot *slot, DestReceiver *self))
{
	r->receiveSlot = receive;
	r->rStartup = receiver_startup;
	r->rShutdown = receiver_shutdown;
	r->rDestroy = receiver_destroy;
	r->mydest = DestTuplestore;
}

/* Run a prepared input query, feeding its rows to dest; frees the plan. */
void
nddup_run_input(SPIPlanPtr plan, DestReceiver *dest)
{
	SPIExecuteOptions options;
	int			rc;

	memset(&options, 0, sizeof(options));
	options.read_only = false;
	options.dest = dest;
	rc = SPI_execute_plan_extended(plan, &options);
	if (rc < 0)
		elog(ERROR, "SPI_execute_plan_extended failed: %s",
			 SPI_result_code_string(rc));
	SPI_freeplan(plan);
}

/*
 * Build "SELECT id, value[, order] FROM rel" for a relation argument, with
 * the identifiers quoted and the relation schema-qualified, after checking
 * that the relation and the columns exist and that each column has a type
 * its role accepts (roles[i] for column i; own_type is the extension's type
 * of the value column).
 */
char *
nddup_relation_query(const char *fname, Oid relid, Name idcol, Name valcol,
					 Name ordcol, Name verifycol, const NddupColRole *roles,
					 Oid own_type)
{
	char	   *relname = get_rel_name(relid);
	StringInfoData buf;
	Name		cols[4];
	NddupColRole colroles[4];
	int			ncols = 0;

	if (relname == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", relid)));
	cols[ncols] = idcol;
	colroles[ncols++] = roles[0];
	cols[ncols] = valcol;
	colroles[ncols++] = roles[1];
	if (ordcol)
	{
		cols[ncols] = ordcol;
		colroles[ncols++] = roles[2];
	}
	if (verifycol)
	{
		cols[ncols] = verifycol;
		colroles[ncols++] = NDDUP_COL_VERIFY;
	}
	for (int i = 0; i < ncols; i++)
	{
		AttrNumber	attno = get_attnum(relid, NameStr(*cols[i]));
		Oid			type;

		if (attno == InvalidAttrNumber)
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_COLUMN),
					 errmsg("column \"%s\" of relation \"%s\" does not exist",
							NameStr(*cols[i]), relname)));
		type = get_atttype(relid, attno);
		if (!role_accepts(colroles[i], getBaseType(type), own_type))
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("column \"%s\" of relation \"%s\" has type %s, but %s expects %s",
							NameStr(*cols[i]), relname, format_type_be(type), fname,
							role_types(colroles[i])),
					 errhint("Name a column of type %s, or pass a query that computes one.",
							 role_types(colroles[i]))));
	}
	initStringInfo(&buf);
	appendStringInfo(&buf, "SELECT %s", quote_identifier(NameStr(*cols[0])));
	for (int i = 1; i < ncols; i++)
		appendStringInfo(&buf, ", %s", quote_identifier(NameStr(*cols[i])));
	appendStringInfo(&buf, " FROM %s",
					 quote_qualified_identifier(get_namespace_name(get_rel_namespace(relid)),
												relname));
	return buf.data;
}
