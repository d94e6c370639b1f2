/*-------------------------------------------------------------------------
 *
 * batch_decision.c
 *	  The decision kept with a table (nddup_decisions, written by
 *	  nddup_decide()) as the threshold or radius of a batch function's
 *	  relation form called without one (docs/quality.md#the-stored-decision).
 *
 * The relation forms of shingleset_pairs/_clusters, minhash_pairs/_clusters
 * and hamming_pairs/_clusters take their threshold (radius) from the row of
 * nddup_decisions for the table and the column they read when the argument
 * is NULL or omitted.  The row is read through SPI with the caller's
 * privileges (row-level security shows the rows of tables the caller may
 * read), and its method must be the column's: shingleset, minhash or
 * simhash64.  No argument and no row is an error (22023), as is a row of
 * another method.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "batch/batch.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

/*
 * When argument argno of a relation form (rel regclass, id_column,
 * value_column, threshold or radius, ...) is NULL and the relation and the
 * value column are given, put the decided threshold (method simhash64: the
 * radius) of that column there.  method is the decision's method the
 * function takes.
 */
void
nddup_batch_decided_arg(FunctionCallInfo fcinfo, int argno, const char *fname,
						const char *method)
{
	bool		radius = strcmp(method, "simhash64") == 0;
	Oid			relid;
	Name		column;
	StringInfoData sql;
	Oid			types[2] = {OIDOID, NAMEOID};
	Datum		values[2];
	char		found_method[NAMEDATALEN] = "";
	Datum		value = (Datum) 0;
	bool		isnull = true;

	if (!PG_ARGISNULL(argno) || PG_ARGISNULL(0) || PG_ARGISNULL(2))
		return;
	relid = PG_GETARG_OID(0);
	column = PG_GETARG_NAME(2);
	initStringInfo(&sql);
	appendStringInfo(&sql,
					 "SELECT method, %s FROM %s.nddup_decisions WHERE relid OPERATOR(pg_catalog.=) $1::pg_catalog.regclass "
					 "AND column_name OPERATOR(pg_catalog.=) $2",
					 radius ? "radius::pg_catalog.int4" : "threshold::pg_catalog.float8",
					 quote_identifier(get_namespace_name(get_func_namespace(fcinfo->flinfo->fn_oid))));
	values[0] = ObjectIdGetDatum(relid);
	values[1] = NameGetDatum(column);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (SPI_execute_with_args(sql.data, 2, types, values, NULL, true, 1) != SPI_OK_SELECT)
		elog(ERROR, "reading nddup_decisions failed");
	if (SPI_processed > 0)
	{
		HeapTuple	tuple = SPI_tuptable->vals[0];
		TupleDesc	desc = SPI_tuptable->tupdesc;

		char	   *m = SPI_getvalue(tuple, desc, 1);

		/* kept outside SPI's memory, which SPI_finish frees */
		strlcpy(found_method, m ? m : "?", sizeof(found_method));
		value = SPI_getbinval(tuple, desc, 2, &isnull);
	}
	SPI_finish();

	if (found_method[0] == '\0')
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: no %s given and no decision stored for column \"%s\" of \"%s\"",
						fname, radius ? "radius" : "threshold", NameStr(*column),
						get_rel_name(relid) ? get_rel_name(relid) : "?"),
				 errhint("Give the %s, or store one with nddup_decide().",
						 radius ? "radius" : "threshold")));
	if (strcmp(found_method, method) != 0 || isnull)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: the decision stored for column \"%s\" of \"%s\" is of method %s, not %s",
						fname, NameStr(*column), get_rel_name(relid) ? get_rel_name(relid) : "?",
						found_method, method),
				 errhint("Give the %s, or store a decision of the column's kind with nddup_decide().",
						 radius ? "radius" : "threshold")));
	/* a float8 or int4 is passed by value: no copy out of SPI's memory needed */
	fcinfo->args[argno].value = value;
	fcinfo->args[argno].isnull = false;
}
