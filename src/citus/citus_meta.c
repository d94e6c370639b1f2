/*-------------------------------------------------------------------------
 *
 * citus_meta.c
 *	  What nddup asks Citus's metadata (docs/scale-out.md): whether Citus is
 *	  installed and this node is its coordinator, how a table is
 *	  distributed and by which column, and whether a relation is a shard
 *	  (the name a trigger sees on a worker).
 *
 * nddup does not link against Citus: the questions are SQL queries on
 * Citus's catalog tables and functions (pg_dist_partition, pg_dist_shard,
 * citus_is_coordinator(), column_to_column_name()), asked only when the
 * citus extension is installed in the database.  Callers are inside
 * SPI_connect().
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "nddup.h"

#include "catalog/pg_type.h"
#include "commands/extension.h"
#include "executor/spi.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

/* Is the citus extension installed in this database? */
bool
nddup_citus_installed(void)
{
	return OidIsValid(get_extension_oid("citus", true));
}

/* Run a one-row, one-column query with one oid or int8 parameter. */
static bool
meta_query(const char *sql, Oid argtype, Datum arg, Datum *result, bool *isnull)
{
	int			rc;

	rc = SPI_execute_with_args(sql, 1, &argtype, &arg, NULL, true, 1);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "query on the Citus metadata failed: %s",
			 SPI_result_code_string(rc));
	if (SPI_processed == 0)
		return false;
	*result = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, isnull);
	return true;
}

/* Is Citus installed and this node its coordinator (not a worker)? */
bool
nddup_citus_coordinator(void)
{
	int			rc;
	bool		isnull;
	Datum		d;

	if (!nddup_citus_installed())
		return false;
	rc = SPI_execute("SELECT pg_catalog.citus_is_coordinator()", true, 1);
	if (rc != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "citus_is_coordinator() failed: %s", SPI_result_code_string(rc));
	d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	return !isnull && DatumGetBool(d);
}

/*
 * How a table is distributed: 'h' (hash), 'r' (range), 'a' (append), 'n'
 * (reference table or Citus local table: no distribution column) or '\0'
 * when it is not a Citus table.  *distcol gets the distribution column's
 * name (palloc'd in the caller's context), or NULL.
 */
char
nddup_citus_distribution(Oid relid, char **distcol)
{
	Datum		d;
	bool		isnull;
	char		method;
	MemoryContext cxt = CurrentMemoryContext;

	*distcol = NULL;
	if (!nddup_citus_installed())
		return '\0';
	if (!meta_query("SELECT partmethod FROM pg_catalog.pg_dist_partition WHERE logicalrelid = $1",
					OIDOID, ObjectIdGetDatum(relid), &d, &isnull) || isnull)
		return '\0';
	method = DatumGetChar(d);
	if (method == 'n')
		return method;
	if (meta_query("SELECT pg_catalog.column_to_column_name(logicalrelid, partkey)::text "
				   "FROM pg_catalog.pg_dist_partition WHERE logicalrelid = $1",
				   OIDOID, ObjectIdGetDatum(relid), &d, &isnull) && !isnull)
	{
		MemoryContext old = MemoryContextSwitchTo(cxt);

		*distcol = TextDatumGetCString(d);
		MemoryContextSwitchTo(old);
	}
	return method;
}

/*
 * Is relid a shard of a Citus table (a relation named <table>_<shardid>
 * that pg_dist_shard knows)?  Then *logical is the table it is a shard of.
 * A worker knows its shards when the metadata is synced to it (the
 * default since Citus 11).
 */
bool
nddup_citus_shard_of(Oid relid, Oid *logical)
{
	char	   *name = get_rel_name(relid);
	char	   *us;
	char	   *end;
	int64		shardid;
	Datum		d;
	bool		isnull;

	if (name == NULL || !nddup_citus_installed())
		return false;
	us = strrchr(name, '_');
	if (us == NULL || us[1] == '\0')
		return false;
	errno = 0;
	shardid = strtoll(us + 1, &end, 10);
	if (*end != '\0' || errno != 0 || shardid <= 0)
		return false;
	if (!meta_query("SELECT logicalrelid FROM pg_catalog.pg_dist_shard WHERE shardid = $1",
					INT8OID, Int64GetDatum(shardid), &d, &isnull) || isnull)
		return false;
	*logical = DatumGetObjectId(d);
	/* Citus may shorten a long table name, but keeps the shard id suffix */
	return get_rel_name(*logical) != NULL;
}
