/*-------------------------------------------------------------------------
 *
 * trigger_verify.c
 *	  Verified candidates for the insert-time check (verify=, verify_column=;
 *	  docs/trigger.md#verified-candidates), and the warning about a radius
 *	  that pairs unrelated rows (docs/trigger.md#unsafe-settings).
 *
 * The radius (method=simhash) or the sketch threshold (method=minhash)
 * finds candidate originals cheaply; with verify=t each candidate must also
 * reach resemblance t with the new row before it counts: the exact Jaccard
 * of the shingles of the two source texts (jaccard(shingle_set(a),
 * shingle_set(b)), the batch functions' verify => t), or the resemblance of
 * a stored shingle set or min-hash sketch (verify_column=).  This is the
 * filter-and-verify shape of the set-similarity-join literature (the
 * candidate stage sets recall and cost, the verification precision).
 *
 * The verification is a condition of the lookup statement itself
 * (similar(value, $n, t) of the extension), so the earliest verified
 * original is the one found and locked, under the same advisory locks, and
 * nddup_original() (trigger_citus.c) judges with the same condition.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "trigger/trigger.h"

#include "access/htup_details.h"
#include "catalog/namespace.h"
#include "catalog/pg_statistic.h"
#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "parser/parse_func.h"
#include "rewrite/rewriteHandler.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/rls.h"
#include "utils/syscache.h"

/* Shingles of a verified text when size= is not given: shingle_set()'s 3. */
#define VERIFY_DEFAULT_SIZE 3

/* The oid of a type of the extension, or an error. */
static Oid
verify_ext_type(Oid ext_nsp, const char *name)
{
	Oid			type = GetSysCacheOid2(TYPENAMENSP, Anum_pg_type_oid,
									   CStringGetDatum(name), ObjectIdGetDatum(ext_nsp));

	if (!OidIsValid(type))
		elog(ERROR, "type %s of extension nddup not found", name);
	return type;
}

/*
 * Resolve verify= and verify_column= (already read by src/core/
 * trigger_options.c) against the table: the column must be a shingleset or
 * minhash_sketch (42804), not the fingerprint column; a verified text uses
 * shingles of the trigger's unit= and size= (3 unless size= is given).
 */
void
nddup_dedup_verify_config(Relation rel, const NddupTriggerArgs *a, DedupConfig *cfg)
{
	const char *name = a->values[NDDUP_TK_VERIFY_COLUMN];
	char	   *nspname = get_namespace_name(cfg->ext_nsp);
	Oid			argtypes[3] = {TEXTOID, INT4OID, TEXTOID};

	cfg->verify = a->verify;
	if (cfg->verify <= 0.0)
		return;
	cfg->verify_size = a->values[NDDUP_TK_SIZE] ? a->size : VERIFY_DEFAULT_SIZE;
	cfg->verify_type = verify_ext_type(cfg->ext_nsp, "shingleset");
	cfg->verify_func = LookupFuncName(list_make2(makeString(nspname), makeString("shingle_set")),
									  3, argtypes, false);
	if (name != NULL)
	{
		AttrNumber	attno = get_attnum(RelationGetRelid(rel), name);
		Form_pg_attribute att;
		Oid			sketch_type = verify_ext_type(cfg->ext_nsp, "minhash_sketch");

		if (attno == InvalidAttrNumber)
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_COLUMN),
					 errmsg("column \"%s\" of relation \"%s\" does not exist",
							name, RelationGetRelationName(rel)),
					 errdetail("It is named by the argument verify_column=%s.", name)));
		if (attno < 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("system column \"%s\" cannot be used as verify_column", name)));
		att = TupleDescAttr(RelationGetDescr(rel), attno - 1);
		if (att->atttypid != cfg->verify_type && att->atttypid != sketch_type)
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("column \"%s\" of relation \"%s\" is of type %s",
							name, RelationGetRelationName(rel), format_type_be(att->atttypid)),
					 errdetail("The verify_column column must be of type shingleset or minhash_sketch."),
					 errhint("To verify by the text, give source=<text column> and verify= without verify_column=.")));
		if (attno == cfg->fp_attno || attno == cfg->dup_attno)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("the verify_column column must differ from the fingerprint and duplicate_of columns")));
		cfg->verify_attno = attno;
		cfg->verify_type = att->atttypid;
		cfg->verify_generated = (att->attgenerated == ATTRIBUTE_GENERATED_STORED);
	}
}

/* Append the verification settings to nddup_check_trigger()'s line. */
void
nddup_dedup_verify_settings(const DedupConfig *cfg, StringInfo buf)
{
	if (cfg->verify <= 0.0)
		return;
	appendStringInfo(buf, " verify=%g", cfg->verify);
	if (cfg->verify_attno)
		appendStringInfo(buf, " verify_column=%s",
						 get_attname(cfg->relid, cfg->verify_attno, false));
}

/* Set up the functions of an entry's verification (after its config). */
void
nddup_dedup_verify_prepare(DedupCacheEntry *entry)
{
	if (entry->config.verify > 0.0 && entry->config.verify_attno == 0)
		fmgr_info_cxt(entry->config.verify_func, &entry->verify_finfo, entry->cxt);
}

/*
 * The condition of the lookup that verifies a candidate (alias t): its
 * value reaches $(param + 1), the threshold, against $param, the new row's
 * value (a shingleset or minhash_sketch).
 */
char *
nddup_dedup_verify_clause(const DedupConfig *cfg, int param)
{
	const char *nsp = quote_identifier(get_namespace_name(cfg->ext_nsp));
	char	   *value;

	if (cfg->verify_attno)
		value = psprintf("t.%s", quote_identifier(get_attname(cfg->relid, cfg->verify_attno, false)));
	else
		value = psprintf("%s.shingle_set(t.%s, %d, %s)", nsp,
						 quote_identifier(get_attname(cfg->relid, cfg->src_attno, false)),
						 cfg->verify_size, quote_literal_cstr(cfg->unit));
	return psprintf("%s.similar(%s, $%d, $%d)", nsp, value, param, param + 1);
}

/*
 * The value of a generated column for a row that is about to be stored (a
 * BEFORE trigger sees it NULL: PostgreSQL computes it afterwards), by its
 * generation expression, in the caller's memory context.
 */
static Datum
verify_generated(Relation rel, AttrNumber attno, HeapTuple tuple, bool *isnull)
{
	EState	   *estate = CreateExecutorState();
	ExprContext *econtext = GetPerTupleExprContext(estate);
	TupleTableSlot *slot = MakeSingleTupleTableSlot(RelationGetDescr(rel), &TTSOpsHeapTuple);
	Form_pg_attribute att = TupleDescAttr(RelationGetDescr(rel), attno - 1);
	ExprState  *state = ExecPrepareExpr((Expr *) build_column_default(rel, attno), estate);
	Datum		d;

	ExecStoreHeapTuple(tuple, slot, false);
	econtext->ecxt_scantuple = slot;
	d = ExecEvalExprSwitchContext(state, econtext, isnull);
	if (!*isnull)
		d = datumCopy(d, att->attbyval, att->attlen);
	ExecDropSingleTupleTableSlot(slot);
	FreeExecutorState(estate);
	return d;
}

/*
 * The verification value of a row: shingle_set() of its source text, or its
 * verify_column (a generated one computed from the row unless use_stored),
 * detoasted.  Returns false when it is NULL.
 */
bool
nddup_dedup_verify_value(DedupCacheEntry *entry, Relation rel, HeapTuple tuple,
						 bool use_stored, Datum *value)
{
	const DedupConfig *cfg = &entry->config;
	TupleDesc	desc = RelationGetDescr(rel);
	bool		isnull;
	Datum		d;

	if (cfg->verify_attno == 0)
	{
		d = heap_getattr(tuple, cfg->src_attno, desc, &isnull);
		if (isnull)
			return false;
		*value = FunctionCall3Coll(&entry->verify_finfo, cfg->src_collation, d,
								   Int32GetDatum(cfg->verify_size), entry->unit_datum);
		return true;
	}
	if (cfg->verify_generated && !use_stored)
		d = verify_generated(rel, cfg->verify_attno, tuple, &isnull);
	else
		d = heap_getattr(tuple, cfg->verify_attno, desc, &isnull);
	if (isnull)
		return false;
	*value = PointerGetDatum(PG_DETOAST_DATUM(d));
	return true;
}

/*
 * The average width in bytes of the source column from its statistics
 * (ANALYZE), or -1 when there are none or the current user may not see
 * them: as in the pg_stats view, only with SELECT on the column and no
 * row-level security policy restricting the user.
 */
static double
verify_source_width(const DedupConfig *cfg)
{
	HeapTuple	tup;
	double		width = -1.0;
	Oid			userid = GetUserId();

	if (cfg->src_attno == 0)
		return -1.0;
	if ((pg_class_aclcheck(cfg->relid, userid, ACL_SELECT) != ACLCHECK_OK &&
		 pg_attribute_aclcheck(cfg->relid, cfg->src_attno, userid, ACL_SELECT) != ACLCHECK_OK) ||
		check_enable_rls(cfg->relid, InvalidOid, true) == RLS_ENABLED)
		return -1.0;
	tup = SearchSysCache3(STATRELATTINH, ObjectIdGetDatum(cfg->relid),
						  Int16GetDatum(cfg->src_attno), BoolGetDatum(false));
	if (HeapTupleIsValid(tup))
	{
		width = ((Form_pg_statistic) GETSTRUCT(tup))->stawidth;
		ReleaseSysCache(tup);
	}
	return width;
}

/*
 * nddup_check_trigger(): warn about method=simhash without verify= when the
 * table's size (reltuples) makes chance pairs expected or its texts are
 * short (src/batch/hamming/radius_warning.c).
 */
void
nddup_dedup_warn_unsafe(Relation rel, const DedupConfig *cfg, const char *trigname)
{
	double		rows = Max(rel->rd_rel->reltuples, 0.0);
	char	   *subject;

	if (cfg->method != NDDUP_TRIGGER_SIMHASH || cfg->verify > 0.0)
		return;
	subject = trigname ?
		psprintf("trigger \"%s\" on table \"%s\"", trigname, RelationGetRelationName(rel)) :
		psprintf("trigger arguments for table \"%s\"", RelationGetRelationName(rel));
	nddup_warn_chance_pairs(subject, rows, cfg->radius, verify_source_width(cfg),
							cfg->src_attno ?
							"Add verify=0.3 to confirm each candidate by the exact resemblance of the texts, or use method=shingleset (exact resemblance, no candidates)." :
							"Add verify_column=<a shingleset or minhash_sketch column> to confirm each candidate, or use method=shingleset.");
}
