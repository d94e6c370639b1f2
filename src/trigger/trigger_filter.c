/*-------------------------------------------------------------------------
 *
 * trigger_filter.c
 *	  The trigger's filter=<table>.<column> argument: the stored
 *	  shingle_filter through which method=minhash builds the sketch of
 *	  source=, and method=shingleset its set
 *	  (docs/sketches.md#boilerplate-aware-sketches).
 *
 * The table holds one row; its filter is read when the trigger's settings
 * are read (the first call in a session, and after any change to the
 * table that fires it) and kept with them.  The sketch is
 * minhash_filtered(filter, source, k, 'oph', 0) (the set
 * shingle_set_filtered(filter, source)), stored in the fingerprint=
 * column: an index expression cannot read another table, so the index is
 * on that column.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "trigger/trigger.h"

#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "parser/parse_func.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"
#include "utils/varlena.h"

/*
 * Resolve filter=<table>.<column> (the table optionally schema-qualified),
 * read its one filter into the current memory context and fit the config
 * to it: the sketch's size and unit are the filter's (size= and unit=, if
 * given, must agree), the signature function minhash_filtered().
 */
void
nddup_dedup_load_filter(DedupConfig *cfg, const char *spec, const char *size_arg,
						const char *unit_arg)
{
	MemoryContext target = CurrentMemoryContext;
	const char *dot = strrchr(spec, '.');
	char	   *colname;
	List	   *names;
	Oid			relid;
	AttrNumber	attno;
	Oid			filter_type;
	Oid			argtypes[5] = {InvalidOid, TEXTOID, INT4OID, TEXTOID, INT4OID};
	const char *nspname = get_namespace_name(cfg->ext_nsp);
	char	   *query;
	const NddupFilter *f;
	bool		isnull;
	int			rc;

	if (cfg->method == NDDUP_TRIGGER_SIMHASH)
		elog(ERROR, "filter= reached the trigger's settings with method=simhash");
	if (dot == NULL || dot == spec || dot[1] == '\0')
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid filter= argument \"%s\"", spec),
				 errhint("Give the table and the shingle_filter column: filter=<table>.<column>.")));
	if (cfg->fp_attno == 0 || cfg->fp_generated)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("filter= needs a fingerprint= column that is not generated"),
				 errdetail("An index expression or a generation expression cannot read the filter's table."),
				 cfg->method == NDDUP_TRIGGER_SHINGLESET ?
				 errhint("Add a shingleset column, name it in fingerprint=, and index it: CREATE INDEX ON t USING gin (fp shingleset_ops).") :
				 errhint("Add a minhash_sketch column, name it in fingerprint=, and index it: CREATE INDEX ON t USING gin (fp minhash_lsh_ops).")));
	colname = pstrdup(dot + 1);
	names = textToQualifiedNameList(cstring_to_text_with_len(spec, dot - spec));
	relid = RangeVarGetRelid(makeRangeVarFromNameList(names), AccessShareLock, false);
	attno = get_attnum(relid, colname);
	filter_type = GetSysCacheOid2(TYPENAMENSP, Anum_pg_type_oid,
								  CStringGetDatum("shingle_filter"),
								  ObjectIdGetDatum(cfg->ext_nsp));
	if (attno == InvalidAttrNumber || get_atttype(relid, attno) != filter_type)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_COLUMN),
				 errmsg("table \"%s\" has no shingle_filter column \"%s\"",
						get_rel_name(relid), colname)));

	/* the one row's filter, copied out of SPI's memory */
	query = psprintf("SELECT %s FROM %s", quote_identifier(colname),
					 quote_qualified_identifier(get_namespace_name(get_rel_namespace(relid)),
												get_rel_name(relid)));
	cfg->filter_sql = psprintf("(%s)", query);
	cfg->filter_relid = relid;
	cfg->filter_attno = attno;
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	rc = SPI_execute(query, true, 2);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "reading the filter failed: %s", SPI_result_code_string(rc));
	if (SPI_processed != 1)
		ereport(ERROR,
				(errcode(ERRCODE_CARDINALITY_VIOLATION),
				 errmsg("filter table \"%s\" must have exactly one row", get_rel_name(relid)),
				 errdetail("It has %s.", SPI_processed == 0 ? "none" : "more than one")));
	f = (const NddupFilter *) PG_DETOAST_DATUM(SPI_getbinval(SPI_tuptable->vals[0],
															 SPI_tuptable->tupdesc, 1, &isnull));
	if (isnull)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("the filter in table \"%s\" is null", get_rel_name(relid))));
	cfg->filter = MemoryContextAlloc(target, VARSIZE(f));
	memcpy(cfg->filter, f, VARSIZE(f));
	SPI_finish();

	f = (const NddupFilter *) cfg->filter;
	if ((size_arg != NULL && cfg->size != f->size) ||
		(unit_arg != NULL && strcmp(cfg->unit, nddup_unit_names[f->unit]) != 0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("size=%d unit=%s differ from the filter's size=%d unit=%s",
						cfg->size, cfg->unit, f->size, nddup_unit_names[f->unit]),
				 errhint("Leave size= and unit= out: the filter's are used.")));
	cfg->size = f->size;
	cfg->unit = pstrdup(nddup_unit_names[f->unit]);
	argtypes[0] = filter_type;
	if (cfg->method == NDDUP_TRIGGER_SHINGLESET)
		cfg->source_func = LookupFuncName(list_make2(makeString(pstrdup(nspname)),
													 makeString("shingle_set_filtered")),
										  2, argtypes, false);
	else
		cfg->source_func = LookupFuncName(list_make2(makeString(pstrdup(nspname)),
													 makeString("minhash_filtered")),
										  5, argtypes, false);
}
