/*-------------------------------------------------------------------------
 *
 * original_routed.c
 *	  nddup_original_routed(): the cluster-wide insert-time check of
 *	  nddup_original() (trigger_citus.c) with a lookup routed to the shards
 *	  that can hold a near-duplicate (docs/scale-out.md#routed-check).
 *
 * nddup_original() looks the original up with one query on every shard of
 * the table.  The routed form reads a key table instead, distributed by
 * key, that holds for every original of the table its keys:
 *
 *	  key bigint, id <the id column's type>, sig <the signature's type>
 *	  [, verify <shingleset or minhash_sketch>, with verify=]
 *
 * The keys are those of hamming_block_keys(fp, radius) (radius + 1 blocks:
 * two fingerprints within the radius agree on one block, so they share its
 * key) and minhash_band_keys(sketch, threshold) (two sketches whose
 * estimate reaches the threshold agree on one band).  A probe reads the
 * rows of the new row's keys only, so Citus sends it to the shards that
 * hold those keys (radius 3: at most 4), and applies the trigger's
 * condition to their signatures (and, with verify=, their verification
 * values).  When no original is found the function stores the new row's
 * keys with the id it was given, in the caller's transaction: the row it
 * returns NULL for is the original of its group.
 *
 * The guarantees are those of nddup_original(): the trigger's advisory
 * locks on the coordinator, held until the transaction has committed on
 * the workers (the key rows with it), so that an insert that waited sees
 * the keys of the row it waited for; the lookup under READ COMMITTED, as
 * the caller, after the locks.  Because the lookup reads the key table and
 * not the table, a table whose row-level security restricts the caller is
 * refused (its policies would not filter the key table), as are scope=,
 * order= (the key table orders by id) and method=shingleset.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "citus/original.h"
#include "trigger/trigger.h"

#include "access/table.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rls.h"

PG_FUNCTION_INFO_V1(nddup_original_routed);

/* the key functions of src/citus/keys.c, called as SQL would call them */
extern Datum hamming_block_keys(PG_FUNCTION_ARGS);
extern Datum minhash_band_keys(PG_FUNCTION_ARGS);

/* most keys of one row: radius + 1 blocks, or one per band */
#define ROUTED_MAX_KEYS		NDDUP_MINHASH_MAX_K

/*
 * Refuse the configurations the key table cannot judge as the trigger
 * would (see the file header), with 0A000.
 */
static void
routed_check_config(const DedupConfig *cfg, Relation rel)
{
	const char *what = NULL;

	if (cfg->method == NDDUP_TRIGGER_SHINGLESET)
		what = "method=shingleset";
	else if (cfg->scope_attno)
		what = "scope=";
	else if (cfg->order_attno != cfg->id_attno)
		what = "order=";
	if (what)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("nddup_original_routed() does not support %s", what),
				 errdetail("Its key table holds the id, the signature and the keys of each original; it orders originals by id."),
				 errhint("Use nddup_original(), which reads the table itself.")));
	if (check_enable_rls(cfg->relid, InvalidOid, true) == RLS_ENABLED)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("nddup_original_routed() cannot judge rows of \"%s\" under row-level security",
						RelationGetRelationName(rel)),
				 errdetail("Row-level security restricts the rows role \"%s\" may read; the key table is not filtered by the table's policies.",
						   GetUserNameFromId(GetUserId(), false)),
				 errhint("Use nddup_original(), whose lookup reads the table as the caller.")));
}

/* 42804 unless column name of the key table exists with type want. */
static void
routed_check_column(Oid keys, const char *name, Oid want)
{
	AttrNumber	attno = get_attnum(keys, name);
	Oid			type = attno > 0 ? get_atttype(keys, attno) : InvalidOid;

	if (attno <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_COLUMN),
				 errmsg("key table \"%s\" has no column \"%s\"", get_rel_name(keys), name),
				 errhint("A key table has the columns key bigint, id (the id column's type), sig (the signature's type) and, with verify=, verify.")));
	if (getBaseType(type) != getBaseType(want))
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("column \"%s\" of key table \"%s\" has type %s, expected %s",
						name, get_rel_name(keys), format_type_be(type), format_type_be(want))));
}

/*
 * Check the key table: not the table itself, INSERT for the caller (and no
 * catalog: nddup_original_check_table), no row-level security restricting
 * the caller, the columns and their types.  The
 * lookup and the insert run as the caller, so SELECT is checked by them.
 */
static void
routed_check_keys(const DedupConfig *cfg, Oid keys)
{
	if (keys == cfg->relid)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the key table of nddup_original_routed() must not be the table itself")));
	nddup_original_check_table(keys);
	if (check_enable_rls(keys, InvalidOid, true) == RLS_ENABLED)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("nddup_original_routed() cannot read the key table \"%s\" under row-level security",
						get_rel_name(keys)),
				 errdetail("Its policies would hide keys of originals from role \"%s\", and their copies would be missed.",
						   GetUserNameFromId(GetUserId(), false))));
	routed_check_column(keys, "key", INT8OID);
	routed_check_column(keys, "id", cfg->id_type);
	routed_check_column(keys, "sig", cfg->sig_type);
	if (cfg->verify > 0.0)
		routed_check_column(keys, "verify", cfg->verify_type);
}

/*
 * The keys of a signature (at most ROUTED_MAX_KEYS): those of
 * hamming_block_keys(fp, radius) or minhash_band_keys(sketch, threshold),
 * computed by the same functions, so that a key table filled with them in
 * SQL holds the keys this function probes.
 */
static int
routed_keys(const DedupConfig *cfg, Datum sig, int64 *keys)
{
	LOCAL_FCINFO(fcinfo, 4);
	Datum		arr;
	int64	   *values;
	int			n;

	InitFunctionCallInfoData(*fcinfo, NULL, 4, InvalidOid, NULL, NULL);
	fcinfo->args[0].value = sig;
	fcinfo->args[0].isnull = false;
	fcinfo->args[1].isnull = false;
	fcinfo->args[2].isnull = true;
	fcinfo->args[3].isnull = true;
	if (cfg->method == NDDUP_TRIGGER_SIMHASH)
	{
		fcinfo->args[1].value = Int32GetDatum(cfg->radius);
		arr = hamming_block_keys(fcinfo);
	}
	else
	{
		fcinfo->args[1].value = Float8GetDatum(cfg->threshold);
		arr = minhash_band_keys(fcinfo);
	}
	if (fcinfo->isnull)
		elog(ERROR, "nddup_original_routed(): no keys for the signature");
	values = nddup_int8_array_values(DatumGetArrayTypeP(arr), "keys", &n);
	if (n > ROUTED_MAX_KEYS)
		elog(ERROR, "nddup_original_routed(): %d keys for one signature", n);
	memcpy(keys, values, sizeof(int64) * n);
	return n;
}

/* The key table, schema-qualified and quoted. */
static char *
routed_table(Oid keys)
{
	return quote_qualified_identifier(get_namespace_name(get_rel_namespace(keys)),
									  get_rel_name(keys));
}

/*
 * The lookup: the earliest (smallest) id among the key rows of the new
 * row's keys whose signature meets the trigger's condition (and, with
 * verify=, whose verification value does).  One statement, prepared once
 * per configuration and key table; Citus sends it to the shards of those
 * keys only.  Returns whether one was found (*id, in the caller's context).
 */
static bool
routed_lookup(DedupCacheEntry *entry, Oid keys, const int64 *kv, int nkeys, Datum sig,
			  const Datum *verify, Datum *id)
{
	const DedupConfig *cfg = &entry->config;
	Oid			argtypes[5];
	Datum		values[5];
	char		nulls[6] = "     ";
	int			nargs = 3;

	argtypes[0] = INT8ARRAYOID;
	values[0] = PointerGetDatum(nddup_int8_array((const uint64 *) kv, nkeys));
	nddup_original_query_params(cfg, sig, argtypes + 1, values + 1);
	if (cfg->verify > 0.0)
		nargs = nddup_original_verify_params(cfg, verify, nargs, argtypes, values, nulls);
	nddup_original_plans_for(entry, keys);
	if (entry->original_lookup == NULL)
	{
		const char *nsp = quote_identifier(get_namespace_name(cfg->ext_nsp));
		StringInfoData sql;

		initStringInfo(&sql);
		appendStringInfo(&sql, "SELECT t.id FROM %s t WHERE t.key = ANY ($1) AND t.sig OPERATOR(%s.<@) %s.%s($2, $3)",
						 routed_table(keys), nsp, nsp, cfg->query_func);
		/* the trigger's condition (trigger_verify.c) on the stored value */
		if (cfg->verify > 0.0)
			appendStringInfo(&sql, " AND %s.similar(t.verify, $%d, $%d)", nsp, nargs - 1, nargs);
		appendStringInfoString(&sql, " ORDER BY t.id LIMIT 1");
		entry->original_lookup = nddup_original_prepare(sql.data, nargs, argtypes);
	}
	return nddup_original_run_lookup(cfg, entry->original_lookup, values, nulls, id);
}

/*
 * Store the keys of a new original: one multi-row INSERT (prepared once per
 * configuration, key table and key count), which Citus routes row by row to
 * the shards of the keys.
 */
static void
routed_store(DedupCacheEntry *entry, Oid keys, const int64 *kv, int nkeys, Datum sig,
			 Datum id, const Datum *verify)
{
	const DedupConfig *cfg = &entry->config;
	int			nargs = nkeys + 2 + (cfg->verify > 0.0 ? 1 : 0);
	Oid		   *argtypes = palloc(sizeof(Oid) * nargs);
	Datum	   *values = palloc(sizeof(Datum) * nargs);
	char	   *nulls = palloc(nargs + 1);
	int			rc;

	memset(nulls, ' ', nargs);
	nulls[nargs] = '\0';
	argtypes[nkeys] = cfg->id_type;
	values[nkeys] = id;
	argtypes[nkeys + 1] = cfg->sig_type;
	values[nkeys + 1] = sig;
	if (cfg->verify > 0.0)
	{
		argtypes[nkeys + 2] = cfg->verify_type;
		values[nkeys + 2] = verify ? *verify : (Datum) 0;
		if (verify == NULL)
			nulls[nkeys + 2] = 'n';
	}
	for (int i = 0; i < nkeys; i++)
	{
		argtypes[i] = INT8OID;
		values[i] = Int64GetDatum(kv[i]);
	}
	nddup_original_plans_for(entry, keys);
	if (entry->routed_store != NULL && entry->routed_nkeys != nkeys)
	{
		SPI_freeplan(entry->routed_store);
		entry->routed_store = NULL;
	}
	if (entry->routed_store == NULL)
	{
		StringInfoData sql;

		initStringInfo(&sql);
		appendStringInfo(&sql, "INSERT INTO %s (key, id, sig%s) VALUES ",
						 routed_table(keys), cfg->verify > 0.0 ? ", verify" : "");
		for (int i = 0; i < nkeys; i++)
		{
			appendStringInfo(&sql, "%s($%d, $%d, $%d", i > 0 ? ", " : "", i + 1, nkeys + 1, nkeys + 2);
			if (cfg->verify > 0.0)
				appendStringInfo(&sql, ", $%d", nkeys + 3);
			appendStringInfoChar(&sql, ')');
		}
		entry->routed_store = nddup_original_prepare(sql.data, nargs, argtypes);
		entry->routed_nkeys = nkeys;
	}
	rc = SPI_execute_plan(entry->routed_store, values, nulls, false, 0);
	if (rc != SPI_OK_INSERT)
		elog(ERROR, "nddup_original_routed(): storing the keys failed: %s",
			 SPI_result_code_string(rc));
}

/*
 * nddup_original_routed(rel, args, value, id, keys): nddup_original() with
 * the lookup routed through the key table keys (see the file header).  id
 * is the new row's id: when no original is found, the row's keys are
 * stored with it and NULL is returned.  The caller needs what
 * nddup_original() needs on rel (checked on every call), and INSERT and
 * SELECT on keys.
 */
Datum
nddup_original_routed(PG_FUNCTION_ARGS)
{
	Relation	rel;
	DedupCacheEntry *entry;
	const DedupConfig *cfg;
	Oid			keys;
	int64		kv[ROUTED_MAX_KEYS];
	int			nkeys;
	Datum		sig;
	uint32		scope_hash = 0;
	Datum		id = (Datum) 0;
	Datum		verify = (Datum) 0;
	bool		has_verify = false;
	bool		found;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2))
		PG_RETURN_NULL();
	if (PG_ARGISNULL(4))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("the key table of nddup_original_routed() must not be NULL")));
	keys = PG_GETARG_OID(4);
	entry = nddup_original_open(fcinfo, "nddup_original_routed", &rel);
	cfg = &entry->config;
	routed_check_config(cfg, rel);
	routed_check_keys(cfg, keys);

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (!nddup_original_signature(fcinfo, cfg, &sig))
	{
		/* a NULL signature (a text without one): not judged, no keys */
		SPI_finish();
		table_close(rel, AccessShareLock);
		PG_RETURN_NULL();
	}
	if (PG_ARGISNULL(3))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("nddup_original_routed() needs the new row's id"),
				 errdetail("The keys of an original are stored with its id."),
				 errhint("Give the id the row will be inserted with, for example from nextval() of its sequence.")));
	if (cfg->verify > 0.0)
		has_verify = nddup_original_verify_value(fcinfo, entry, rel, &verify);
	nkeys = routed_keys(cfg, sig, kv);
	nddup_dedup_lock(entry, &sig, &scope_hash, 1);
	found = routed_lookup(entry, keys, kv, nkeys, sig, has_verify ? &verify : NULL, &id);
	if (!found)
		routed_store(entry, keys, kv, nkeys, sig, PG_GETARG_DATUM(3),
					 has_verify ? &verify : NULL);
	SPI_finish();
	if (found && cfg->action == NDDUP_TRIGGER_ERROR)
		nddup_original_report(cfg, rel, id);
	table_close(rel, AccessShareLock);
	if (!found)
		PG_RETURN_NULL();
	PG_RETURN_DATUM(id);
}
