/*-------------------------------------------------------------------------
 *
 * trigger_config.c
 *	  The arguments of nddup_dedup_trigger(), validated against the table:
 *	  columns and their types, the signature's parameters (which must match
 *	  a generated fingerprint's expression), the index that serves the
 *	  lookup, and the normalized settings (docs/trigger.md#arguments).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "trigger/trigger.h"

#include "access/genam.h"
#include "access/table.h"
#include "catalog/namespace.h"
#include "catalog/pg_am_d.h"
#include "catalog/pg_trigger.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "parser/parse_func.h"
#include "rewrite/rewriteHandler.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/ruleutils.h"
#include "utils/syscache.h"
#include "utils/typcache.h"

/* Error context while validating trigger arguments. */
typedef struct DedupErrorContext
{
	const char *trigname;
	const char *relname;
} DedupErrorContext;

/* Add "trigger ... on table ..." to errors raised while validating. */
static void
dedup_error_callback(void *arg)
{
	DedupErrorContext *ctx = (DedupErrorContext *) arg;

	if (ctx->trigname)
		errcontext("arguments of nddup_dedup_trigger() in trigger \"%s\" on table \"%s\"",
				   ctx->trigname, ctx->relname);
	else
		errcontext("arguments of nddup_dedup_trigger() for table \"%s\"",
				   ctx->relname);
}

/* Look up a column by name; it must exist and be a user column. */
static AttrNumber
dedup_column(Relation rel, const char *key, const char *name)
{
	AttrNumber	attno = get_attnum(RelationGetRelid(rel), name);

	if (attno == InvalidAttrNumber)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_COLUMN),
				 errmsg("column \"%s\" of relation \"%s\" does not exist",
						name, RelationGetRelationName(rel)),
				 errdetail("It is named by the argument %s=%s.", key, name)));
	if (attno < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("system column \"%s\" cannot be used as %s", name, key)));
	return attno;
}

/* Raise wrong-type error for a column. */
static void
dedup_wrong_type(Relation rel, AttrNumber attno, const char *key,
				 const char *expected)
{
	Form_pg_attribute att = TupleDescAttr(RelationGetDescr(rel), attno - 1);

	ereport(ERROR,
			(errcode(ERRCODE_DATATYPE_MISMATCH),
			 errmsg("column \"%s\" of relation \"%s\" is of type %s",
					NameStr(att->attname), RelationGetRelationName(rel),
					format_type_be(att->atttypid)),
			 errdetail("The %s column must be of type %s.", key, expected)));
}

/* Raise the error of trigger arguments rejected by src/core/trigger_options.c. */
static void
dedup_args_error(const NddupTriggerError *err, char **args, const NddupTriggerArgs *a)
{
	const char *key = nddup_trigger_keys[err->key];
	const char *value = a->values[err->key];

	switch (err->code)
	{
		case NDDUP_TRIGGER_NOT_KEY_VALUE:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("nddup_dedup_trigger argument \"%s\" is not of the form key=value",
							args[err->arg])));
			break;
		case NDDUP_TRIGGER_UNKNOWN_KEY:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("unknown nddup_dedup_trigger argument \"%s\"",
							pnstrdup(args[err->arg], err->key_len)),
					 errhint("Valid keys are fingerprint, source, method, radius, threshold, size, unit, weighting, k, verify, verify_column, filter, measure, id, duplicate_of, order, scope, action, lock and visibility.")));
			break;
		case NDDUP_TRIGGER_DUPLICATE_KEY:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("nddup_dedup_trigger argument \"%s\" is given more than once",
							key)));
			break;
		case NDDUP_TRIGGER_METHOD:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("unknown near-duplicate method \"%s\"", value),
					 errhint("Valid methods are simhash, minhash and shingleset.")));
			break;
		case NDDUP_TRIGGER_NOT_FOR_METHOD:
			if (a->method == NDDUP_TRIGGER_SHINGLESET &&
				(err->key == NDDUP_TK_VERIFY || err->key == NDDUP_TK_VERIFY_COLUMN))
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("%s= does not apply to method=shingleset", key),
						 errdetail("method=shingleset compares exact shingle sets: every original it finds reaches the threshold, so there is nothing to verify.")));
			if (err->key == NDDUP_TK_MEASURE)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("%s= applies only to method=shingleset", key)));
			if (a->method == NDDUP_TRIGGER_SHINGLESET && err->key == NDDUP_TK_K)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("%s= applies only to method=minhash", key),
						 errhint("method=shingleset stores exact sets: it takes size=, unit= and threshold=.")));
			if (a->method == NDDUP_TRIGGER_SIMHASH && err->key != NDDUP_TK_K)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("%s= applies only to method=minhash and method=shingleset", key),
						 errhint("method=simhash takes radius=.")));
			if (a->method == NDDUP_TRIGGER_SIMHASH)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("%s= applies only to method=minhash", key),
						 errhint("method=simhash takes radius=.")));
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s= applies only to method=simhash", key),
					 errhint("method=%s takes threshold=.",
							 a->method == NDDUP_TRIGGER_MINHASH ? "minhash" : "shingleset")));
			break;
		case NDDUP_TRIGGER_INTEGER:
			if (err->not_number)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
						 errmsg("invalid value for %s: \"%s\"", key, value),
						 errhint("The %s must be an integer between %d and %d.",
								 key, err->min, err->max)));
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s \"%s\" is out of range", key, value),
					 errhint("The %s must be an integer between %d and %d.",
							 key, err->min, err->max)));
			break;
		case NDDUP_TRIGGER_THRESHOLD:
			if (err->not_number)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
						 errmsg("invalid value for threshold: \"%s\"", value),
						 errhint("The threshold must be a number greater than 0 and at most 1.")));
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("threshold \"%s\" is out of range", value),
					 errhint("The threshold must be a number greater than 0 and at most 1.")));
			break;
		case NDDUP_TRIGGER_ACTION:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("invalid action \"%s\"", value),
					 errhint("Valid actions are mark, skip and error.")));
			break;
		case NDDUP_TRIGGER_LOCK:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("invalid lock mode \"%s\"", value),
					 errhint("Valid lock modes are blocks and table.")));
			break;
		case NDDUP_TRIGGER_VISIBILITY:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("invalid visibility \"%s\"", value),
					 errhint("Valid visibilities are caller (the rows the inserting role may read) and all (every row).")));
			break;
		case NDDUP_TRIGGER_NO_COLUMN:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("nddup_dedup_trigger needs a fingerprint= or a source= argument")));
			break;
		case NDDUP_TRIGGER_SOURCE_ONLY:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("size=, unit=, weighting=, k= and filter= apply only with source=")));
			break;
		case NDDUP_TRIGGER_UNIT:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("invalid shingle unit \"%s\"", a->unit),
					 errhint("Valid units are \"word\" and \"char\".")));
			break;
		case NDDUP_TRIGGER_WEIGHTING:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("invalid simhash weighting \"%s\"", a->weighting),
					 errhint("Valid weightings are \"tf\" and \"set\".")));
			break;
		case NDDUP_TRIGGER_VERIFY:
			if (err->not_number)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
						 errmsg("invalid value for verify: \"%s\"", value),
						 errhint("The verification threshold must be a number greater than 0 and at most 1, e.g. verify=0.3.")));
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("verify \"%s\" is out of range", value),
					 errhint("The verification threshold must be a number greater than 0 and at most 1, e.g. verify=0.3.")));
			break;
		case NDDUP_TRIGGER_VERIFY_NO_VALUE:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("verify= needs source= or verify_column="),
					 errdetail("Each candidate is verified by the exact resemblance of the source texts, or of a stored shingleset or minhash_sketch column."),
					 errhint("Add source=<text column>, or verify_column=<shingleset or minhash_sketch column>.")));
			break;
		case NDDUP_TRIGGER_MEASURE:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("invalid measure \"%s\"", value),
					 errhint("Valid measures are jaccard (the resemblance of the two sets) and containment (the share of the new row's set in the original's).")));
			break;
		case NDDUP_TRIGGER_OK:
			break;
	}
	elog(ERROR, "unexpected result %d of the trigger argument parser", (int) err->code);
}

/* Is node a non-null constant integer equal to value? */
static bool
dedup_const_int(Node *node, int32 value)
{
	Const	   *c = (Const *) node;

	return IsA(c, Const) && !c->constisnull && DatumGetInt32(c->constvalue) == value;
}

/* Is node a non-null constant text equal to value? */
static bool
dedup_const_text(Node *node, const char *value)
{
	Const	   *c = (Const *) node;

	return IsA(c, Const) && !c->constisnull &&
		strcmp(TextDatumGetCString(c->constvalue), value) == 0;
}

/*
 * Is expr the call that computes the config's signature from the source:
 * simhash(source, size, unit, weighting), minhash(source, k, 'oph', 0,
 * size, unit) or shingle_set(source, size, unit)?
 */
static bool
dedup_is_source_expr(Node *expr, const DedupConfig *cfg)
{
	FuncExpr   *func;
	Node	   *arg;
	List	   *args;

	if (expr == NULL || !IsA(expr, FuncExpr))
		return false;
	func = (FuncExpr *) expr;
	args = func->args;
	if (func->funcid != cfg->source_func ||
		list_length(args) != (cfg->method == NDDUP_TRIGGER_SIMHASH ? 4 :
							  cfg->method == NDDUP_TRIGGER_SHINGLESET ? 3 : 6))
		return false;
	arg = linitial(args);
	while (IsA(arg, RelabelType))
		arg = (Node *) ((RelabelType *) arg)->arg;
	if (!IsA(arg, Var) || ((Var *) arg)->varattno != cfg->src_attno)
		return false;
	if (cfg->method == NDDUP_TRIGGER_SIMHASH)
		return dedup_const_int(lsecond(args), cfg->size) &&
			dedup_const_text(lthird(args), cfg->unit) &&
			dedup_const_text(lfourth(args), cfg->weighting);
	if (cfg->method == NDDUP_TRIGGER_SHINGLESET)
		return dedup_const_int(lsecond(args), cfg->size) &&
			dedup_const_text(lthird(args), cfg->unit);
	return dedup_const_int(lsecond(args), cfg->k) &&
		dedup_const_text(lthird(args), "oph") &&
		dedup_const_int(lfourth(args), 0) &&
		dedup_const_int(list_nth(args, 4), cfg->size) &&
		dedup_const_text(list_nth(args, 5), cfg->unit);
}

/*
 * The SQL call that computes the config's signature from a column, with the
 * function name schema-qualified (for SQL we run) or not (for messages).
 */
char *
nddup_dedup_source_call(const DedupConfig *cfg, const char *column, bool qualified)
{
	const char *fname = cfg->method == NDDUP_TRIGGER_SIMHASH ? "simhash" :
		cfg->method == NDDUP_TRIGGER_SHINGLESET ? "shingle_set" : "minhash";

	if (cfg->filter != NULL)
		fname = cfg->method == NDDUP_TRIGGER_SHINGLESET ? "shingle_set_filtered" :
			"minhash_filtered";
	if (qualified)
		fname = quote_qualified_identifier(get_namespace_name(cfg->ext_nsp), fname);
	if (cfg->filter != NULL && cfg->method == NDDUP_TRIGGER_SHINGLESET)
		return psprintf("%s(%s, %s)", fname, cfg->filter_sql, column);
	if (cfg->filter != NULL)
		return psprintf("%s(%s, %s, %d, 'oph', 0)", fname, cfg->filter_sql, column, cfg->k);
	if (cfg->method == NDDUP_TRIGGER_SIMHASH)
		return psprintf("%s(%s, %d, %s, %s)", fname, column, cfg->size,
						quote_literal_cstr(cfg->unit),
						quote_literal_cstr(cfg->weighting));
	if (cfg->method == NDDUP_TRIGGER_SHINGLESET)
		return psprintf("%s(%s, %d, %s)", fname, column, cfg->size,
						quote_literal_cstr(cfg->unit));
	return psprintf("%s(%s, %d, 'oph', 0, %d, %s)", fname, column, cfg->k,
					cfg->size, quote_literal_cstr(cfg->unit));
}

/* Is the partial-index predicate absent, or exactly "duplicate_of IS NULL"? */
static bool
dedup_predicate_ok(Relation irel, const DedupConfig *cfg)
{
	List	   *pred = RelationGetIndexPredicate(irel);
	ListCell   *lc;

	foreach(lc, pred)
	{
		NullTest   *nt = (NullTest *) lfirst(lc);

		if (!IsA(nt, NullTest) || nt->nulltesttype != IS_NULL ||
			!IsA(nt->arg, Var) || cfg->dup_attno == 0 ||
			((Var *) nt->arg)->varattno != cfg->dup_attno)
			return false;
	}
	return true;
}

/*
 * How well an index's access method serves the lookup: the hamming access
 * method first (exact and fast at every radius), then GIN, then the rest.
 */
static int
dedup_index_rank(Relation irel)
{
	char	   *amname;

	if (irel->rd_rel->relam == GIN_AM_OID)
		return 1;
	amname = get_am_name(irel->rd_rel->relam);
	return (amname != NULL && strcmp(amname, "hamming") == 0) ? 0 : 2;
}

/*
 * Find an index that serves the lookup ("fp <@ ball", "sketch <@
 * similar_to"): a valid index whose column is the fingerprint column (or the
 * source expression) in an operator family that contains that <@; of
 * several, the best ranked (dedup_index_rank), then the first.  Returns its
 * name, or NULL.  (The lookup's plan is the planner's choice; this names
 * the index for nddup_check_trigger() and decides the "no index" warning.)
 */
static char *
dedup_find_index(Relation rel, DedupConfig *cfg)
{
	List	   *indexes = RelationGetIndexList(rel);
	ListCell   *lc;
	char	   *found = NULL;
	int			found_rank = INT_MAX;

	foreach(lc, indexes)
	{
		Relation	irel = index_open(lfirst_oid(lc), AccessShareLock);
		Form_pg_index index = irel->rd_index;
		List	   *exprs = RelationGetIndexExpressions(irel);
		ListCell   *expr = list_head(exprs);
		int			rank = dedup_index_rank(irel);

		if (index->indisvalid && index->indisready && dedup_predicate_ok(irel, cfg))
		{
			for (int i = 0; i < index->indnkeyatts; i++)
			{
				AttrNumber	key = index->indkey.values[i];
				bool		match;

				if (key != 0)
					match = (cfg->fp_attno != 0 && key == cfg->fp_attno);
				else
				{
					match = (cfg->fp_attno == 0 && expr != NULL &&
							 dedup_is_source_expr((Node *) lfirst(expr), cfg));
					if (expr != NULL)
						expr = lnext(exprs, expr);
				}
				if (match && op_in_opfamily(cfg->lookup_op, irel->rd_opfamily[i]))
				{
					if (RelationGetIndexPredicate(irel) == NIL)
						cfg->index_full = true;
					if (rank < found_rank)
					{
						found = pstrdup(RelationGetRelationName(irel));
						found_rank = rank;
					}
					break;
				}
			}
		}
		index_close(irel, AccessShareLock);
	}
	list_free(indexes);
	return found;
}

/* The signature type and the lookup's query type of each method. */
static const char *const dedup_method_types[][2] = {
	[NDDUP_TRIGGER_SIMHASH] = {"simhash64", "hamming_ball"},
	[NDDUP_TRIGGER_MINHASH] = {"minhash_sketch", "minhash_query"},
	[NDDUP_TRIGGER_SHINGLESET] = {"shingleset", "shingleset_query"},
};

/*
 * The method when method= is not given: shingleset when the fingerprint=
 * column is a shingleset, else simhash.
 */
static DedupMethod
dedup_infer_method(Relation rel, const char *fingerprint, Oid ext_nsp)
{
	AttrNumber	attno;
	Oid			settype;

	if (fingerprint == NULL)
		return NDDUP_TRIGGER_SIMHASH;
	attno = get_attnum(RelationGetRelid(rel), fingerprint);
	settype = GetSysCacheOid2(TYPENAMENSP, Anum_pg_type_oid, CStringGetDatum("shingleset"),
							  ObjectIdGetDatum(ext_nsp));
	if (attno > 0 && OidIsValid(settype) &&
		TupleDescAttr(RelationGetDescr(rel), attno - 1)->atttypid == settype)
		return NDDUP_TRIGGER_SHINGLESET;
	return NDDUP_TRIGGER_SIMHASH;
}

/* Check that a type can be sorted and compared for equality. */
static void
dedup_check_ordering(Relation rel, AttrNumber attno, const char *key)
{
	Form_pg_attribute att = TupleDescAttr(RelationGetDescr(rel), attno - 1);
	TypeCacheEntry *tc = lookup_type_cache(att->atttypid,
										   TYPECACHE_LT_OPR | TYPECACHE_EQ_OPR);

	if (!OidIsValid(tc->lt_opr) || !OidIsValid(tc->eq_opr))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_FUNCTION),
				 errmsg("could not identify an ordering operator for type %s",
						format_type_be(att->atttypid)),
				 errdetail("The %s column \"%s\" must have a type with a default btree operator class.",
						   key, NameStr(att->attname))));
}

/*
 * Parse and validate the trigger arguments against the table; fills cfg
 * (strings allocated in the current memory context).
 */
void
nddup_dedup_parse_args(Relation rel, int nargs, char **args, Oid ext_nsp,
				 const char *trigname, DedupConfig *cfg)
{
	NddupTriggerArgs a;
	NddupTriggerError err;
	const char *const *values = a.values;
	ErrorContextCallback errcallback;
	DedupErrorContext errctx;
	char	   *nspname = get_namespace_name(ext_nsp);
	Oid			query_type;
	Oid			argtypes[6];
	TupleDesc	desc = RelationGetDescr(rel);
	StringInfoData buf;
	const char *id_name;
	const char *dup_name;

	errctx.trigname = trigname;
	errctx.relname = RelationGetRelationName(rel);
	errcallback.callback = dedup_error_callback;
	errcallback.arg = &errctx;
	errcallback.previous = error_context_stack;
	error_context_stack = &errcallback;

	memset(cfg, 0, sizeof(*cfg));
	cfg->relid = RelationGetRelid(rel);
	cfg->ext_nsp = ext_nsp;

	/* split key=value; method, and its objects in the extension's schema */
	if (nddup_trigger_split(nargs, args, &a, &err) != NDDUP_TRIGGER_OK)
		dedup_args_error(&err, args, &a);
	if (values[NDDUP_TK_METHOD] == NULL)
		a.method = dedup_infer_method(rel, values[NDDUP_TK_FINGERPRINT], ext_nsp);
	cfg->method = a.method;
	cfg->sig_type = GetSysCacheOid2(TYPENAMENSP, Anum_pg_type_oid,
									CStringGetDatum(dedup_method_types[cfg->method][0]),
									ObjectIdGetDatum(ext_nsp));
	query_type = GetSysCacheOid2(TYPENAMENSP, Anum_pg_type_oid,
								 CStringGetDatum(dedup_method_types[cfg->method][1]),
								 ObjectIdGetDatum(ext_nsp));
	cfg->query_func = cfg->method == NDDUP_TRIGGER_SIMHASH ? "ball" : "similar_to";
	if (!OidIsValid(cfg->sig_type) || !OidIsValid(query_type))
		elog(ERROR, "types of extension nddup not found in schema \"%s\"", nspname);
	cfg->lookup_op = OpernameGetOprid(list_make2(makeString(nspname), makeString("<@")),
									  cfg->sig_type, query_type);
	if (!OidIsValid(cfg->lookup_op))
		elog(ERROR, "operator <@ of extension nddup not found in schema \"%s\"", nspname);
	argtypes[0] = TEXTOID;
	argtypes[1] = INT4OID;
	argtypes[2] = TEXTOID;
	if (cfg->method == NDDUP_TRIGGER_SIMHASH)
	{
		argtypes[3] = TEXTOID;
		cfg->source_func = LookupFuncName(list_make2(makeString(nspname), makeString("simhash")),
										  4, argtypes, false);
	}
	else if (cfg->method == NDDUP_TRIGGER_SHINGLESET)
		cfg->source_func = LookupFuncName(list_make2(makeString(nspname), makeString("shingle_set")),
										  3, argtypes, false);
	else
	{
		argtypes[3] = INT4OID;
		argtypes[4] = INT4OID;
		argtypes[5] = TEXTOID;
		cfg->source_func = LookupFuncName(list_make2(makeString(nspname), makeString("minhash")),
										  6, argtypes, false);
	}

	/*
	 * the method's parameter: radius (simhash) or threshold (minhash); action
	 * and lock mode; a fingerprint or source column
	 */
	if (nddup_trigger_check_params(&a, &err) != NDDUP_TRIGGER_OK)
		dedup_args_error(&err, args, &a);
	cfg->radius = a.radius;
	cfg->threshold = a.threshold;
	cfg->containment = a.containment;
	if (cfg->containment)
		cfg->query_func = "containing";
	cfg->action = a.action;
	cfg->lock = a.lock;

	/*
	 * On a table with row-level security the lookup sees, unless told
	 * otherwise, only the rows the inserting role may read: judging against
	 * rows it may not read would tell it about them (by a mark, a skipped
	 * row or an error).
	 */
	cfg->visibility = a.visibility;
	if (cfg->visibility == NDDUP_TRIGGER_VISIBILITY_UNSET)
		cfg->visibility = rel->rd_rel->relrowsecurity ?
			NDDUP_TRIGGER_VISIBILITY_CALLER : NDDUP_TRIGGER_VISIBILITY_ALL;

	/* fingerprint and source columns */
	if (values[NDDUP_TK_FINGERPRINT] != NULL)
	{
		Form_pg_attribute att;

		cfg->fp_attno = dedup_column(rel, "fingerprint", values[NDDUP_TK_FINGERPRINT]);
		att = TupleDescAttr(desc, cfg->fp_attno - 1);
		if (att->atttypid != cfg->sig_type)
			dedup_wrong_type(rel, cfg->fp_attno, "fingerprint",
							 dedup_method_types[cfg->method][0]);
		cfg->fp_generated = (att->attgenerated == ATTRIBUTE_GENERATED_STORED);
	}
	if (values[NDDUP_TK_SOURCE] != NULL)
	{
		Form_pg_attribute att;

		cfg->src_attno = dedup_column(rel, "source", values[NDDUP_TK_SOURCE]);
		att = TupleDescAttr(desc, cfg->src_attno - 1);
		if (att->atttypid != TEXTOID && att->atttypid != VARCHAROID)
			dedup_wrong_type(rel, cfg->src_attno, "source", "text or varchar");
		if (att->attgenerated)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("source column \"%s\" cannot be a generated column",
							values[NDDUP_TK_SOURCE]),
					 errdetail("Generated columns are computed after BEFORE triggers.")));
		cfg->src_collation = att->attcollation;
	}

	/* no radius= (threshold=): the decision kept with the table, if any */
	if (values[cfg->method == NDDUP_TRIGGER_SIMHASH ? NDDUP_TK_RADIUS : NDDUP_TK_THRESHOLD] == NULL)
		nddup_dedup_decision(rel, cfg->fp_attno ? cfg->fp_attno : cfg->src_attno, cfg);

	/* the signature's parameters */
	if (nddup_trigger_check_signature(&a, &err) != NDDUP_TRIGGER_OK)
		dedup_args_error(&err, args, &a);
	cfg->size = a.size;
	cfg->k = a.k;
	cfg->unit = pstrdup(a.unit);
	cfg->weighting = pstrdup(a.weighting);
	if (values[NDDUP_TK_FILTER] != NULL)
		nddup_dedup_load_filter(cfg, values[NDDUP_TK_FILTER], values[NDDUP_TK_SIZE],
								values[NDDUP_TK_UNIT]);
	if (cfg->fp_generated)
	{
		Node	   *genexpr;

		if (cfg->src_attno == 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("fingerprint column \"%s\" is a generated column, and no source= is given",
							values[NDDUP_TK_FINGERPRINT]),
					 errdetail("PostgreSQL computes generated columns after BEFORE triggers, so the trigger computes the fingerprint from the source column itself."),
					 errhint("Add source=<text column> (and size=, unit=, weighting= or k= matching the generation expression).")));
		genexpr = build_column_default(rel, cfg->fp_attno);
		if (genexpr)
			genexpr = eval_const_expressions(NULL, genexpr);
		if (!dedup_is_source_expr(genexpr, cfg))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("generation expression of column \"%s\" is not %s",
							values[NDDUP_TK_FINGERPRINT], nddup_dedup_source_call(cfg, values[NDDUP_TK_SOURCE], false)),
					 errdetail("The generation expression is %s.",
							   genexpr ? deparse_expression(genexpr,
															deparse_context_for(RelationGetRelationName(rel),
																				RelationGetRelid(rel)),
															false, false) : "missing"),
					 errhint("The trigger computes the fingerprint itself: give size=, unit= and weighting= (or k=) that match the generation expression.")));
	}

	/* id, duplicate_of and order columns */
	id_name = values[NDDUP_TK_ID] ? values[NDDUP_TK_ID] : "id";
	cfg->id_attno = dedup_column(rel, "id", id_name);
	{
		Form_pg_attribute att = TupleDescAttr(desc, cfg->id_attno - 1);

		cfg->id_type = att->atttypid;
		get_typlenbyval(cfg->id_type, &cfg->id_typlen, &cfg->id_typbyval);
	}
	dedup_check_ordering(rel, cfg->id_attno, "id");
	dup_name = values[NDDUP_TK_DUPLICATE_OF] ? values[NDDUP_TK_DUPLICATE_OF] : "duplicate_of";
	if (values[NDDUP_TK_DUPLICATE_OF] == NULL && cfg->action != NDDUP_TRIGGER_MARK &&
		get_attnum(RelationGetRelid(rel), dup_name) == InvalidAttrNumber)
		cfg->dup_attno = 0;		/* optional for skip and error */
	else
	{
		Form_pg_attribute att;

		if (values[NDDUP_TK_DUPLICATE_OF] == NULL &&
			get_attnum(RelationGetRelid(rel), dup_name) == InvalidAttrNumber)
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_COLUMN),
					 errmsg("column \"%s\" of relation \"%s\" does not exist",
							dup_name, RelationGetRelationName(rel)),
					 errdetail("action=mark stores the original's id in a column, by default \"duplicate_of\"."),
					 errhint("Add the column (of the id column's type), or name another one with duplicate_of=.")));
		cfg->dup_attno = dedup_column(rel, "duplicate_of", dup_name);
		att = TupleDescAttr(desc, cfg->dup_attno - 1);
		if (att->atttypid != cfg->id_type)
			dedup_wrong_type(rel, cfg->dup_attno, "duplicate_of",
							 format_type_be(cfg->id_type));
		if (att->attgenerated)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("duplicate_of column \"%s\" cannot be a generated column",
							dup_name)));
		if (cfg->dup_attno == cfg->id_attno)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("the id and duplicate_of columns must differ")));
	}
	cfg->order_attno = cfg->id_attno;
	if (values[NDDUP_TK_ORDER] != NULL)
	{
		cfg->order_attno = dedup_column(rel, "order", values[NDDUP_TK_ORDER]);
		dedup_check_ordering(rel, cfg->order_attno, "order");
	}
	if (values[NDDUP_TK_SCOPE] != NULL)
	{
		Form_pg_attribute att;
		TypeCacheEntry *tc;

		cfg->scope_attno = dedup_column(rel, "scope", values[NDDUP_TK_SCOPE]);
		att = TupleDescAttr(desc, cfg->scope_attno - 1);
		cfg->scope_type = att->atttypid;
		cfg->scope_collation = att->attcollation;
		if (att->attgenerated)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("scope column \"%s\" cannot be a generated column",
							values[NDDUP_TK_SCOPE]),
					 errdetail("Generated columns are computed after BEFORE triggers.")));
		if (cfg->scope_attno == cfg->fp_attno || cfg->scope_attno == cfg->src_attno ||
			cfg->scope_attno == cfg->dup_attno)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("the scope column must differ from the fingerprint, source and duplicate_of columns")));
		dedup_check_ordering(rel, cfg->scope_attno, "scope");
		tc = lookup_type_cache(cfg->scope_type, TYPECACHE_HASH_PROC);
		cfg->scope_hash_proc = tc->hash_proc;
	}

	nddup_dedup_verify_config(rel, &a, cfg);
	if (cfg->verify_attno && cfg->verify_attno == cfg->scope_attno)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the verify_column column must differ from the scope column")));
	cfg->index_name = dedup_find_index(rel, cfg);

	/* normalized settings, for messages and nddup_check_trigger() */
	initStringInfo(&buf);
	if (cfg->fp_attno)
		appendStringInfo(&buf, "fingerprint=%s ", values[NDDUP_TK_FINGERPRINT]);
	if (cfg->src_attno && cfg->method == NDDUP_TRIGGER_SIMHASH)
		appendStringInfo(&buf, "source=%s size=%d unit=%s weighting=%s ",
						 values[NDDUP_TK_SOURCE], cfg->size, cfg->unit, cfg->weighting);
	else if (cfg->src_attno && cfg->method == NDDUP_TRIGGER_SHINGLESET)
		appendStringInfo(&buf, "source=%s size=%d unit=%s %s%s%s",
						 values[NDDUP_TK_SOURCE], cfg->size, cfg->unit,
						 cfg->filter ? "filter=" : "",
						 cfg->filter ? values[NDDUP_TK_FILTER] : "", cfg->filter ? " " : "");
	else if (cfg->src_attno)
		appendStringInfo(&buf, "source=%s size=%d unit=%s k=%d %s%s%s",
						 values[NDDUP_TK_SOURCE], cfg->size, cfg->unit, cfg->k,
						 cfg->filter ? "filter=" : "",
						 cfg->filter ? values[NDDUP_TK_FILTER] : "", cfg->filter ? " " : "");
	if (cfg->method == NDDUP_TRIGGER_SIMHASH)
		appendStringInfo(&buf, "method=simhash radius=%d%s id=%s", cfg->radius,
						 cfg->decided ? " (decided)" : "", id_name);
	else
		appendStringInfo(&buf, "method=%s%s threshold=%g%s id=%s",
						 cfg->method == NDDUP_TRIGGER_MINHASH ? "minhash" : "shingleset",
						 cfg->containment ? " measure=containment" : "",
						 cfg->threshold, cfg->decided ? " (decided)" : "", id_name);
	if (cfg->dup_attno)
		appendStringInfo(&buf, " duplicate_of=%s", dup_name);
	appendStringInfo(&buf, " order=%s", values[NDDUP_TK_ORDER] ? values[NDDUP_TK_ORDER] : id_name);
	if (cfg->scope_attno)
		appendStringInfo(&buf, " scope=%s", values[NDDUP_TK_SCOPE]);
	nddup_dedup_verify_settings(cfg, &buf);
	appendStringInfo(&buf, " action=%s lock=%s visibility=%s index=%s",
					 cfg->action == NDDUP_TRIGGER_MARK ? "mark" :
					 cfg->action == NDDUP_TRIGGER_SKIP ? "skip" : "error",
					 cfg->lock == NDDUP_TRIGGER_LOCK_BLOCKS ? "blocks" : "table",
					 cfg->visibility == NDDUP_TRIGGER_VISIBILITY_CALLER ? "caller" : "all",
					 cfg->index_name ? cfg->index_name : "none");
	cfg->settings = buf.data;

	error_context_stack = errcallback.previous;
}

/* Check the trigger's timing, level and events (protocol errors). */
void
nddup_dedup_check_tgtype(int16 tgtype, const char *trigname)
{
	if (!TRIGGER_FOR_BEFORE(tgtype))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("trigger \"%s\" must be fired BEFORE", trigname),
				 errhint("Create it as BEFORE INSERT OR UPDATE OF <source> ... FOR EACH ROW.")));
	if (!TRIGGER_FOR_ROW(tgtype))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("trigger \"%s\" must be fired FOR EACH ROW", trigname)));
	if (TRIGGER_FOR_DELETE(tgtype) || TRIGGER_FOR_TRUNCATE(tgtype))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("trigger \"%s\" must be fired for INSERT or UPDATE only",
						trigname)));
}

/*
 * The table a trigger's arguments are checked against (nddup_check_trigger,
 * nddup_original): 42P01 when it does not exist, 42809 when it is not a
 * table.  Opened with AccessShareLock.
 */
Relation
nddup_dedup_open_table(Oid relid)
{
	Relation	rel = try_table_open(relid, AccessShareLock);

	if (rel == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", relid)));
	if (rel->rd_rel->relkind != RELKIND_RELATION &&
		rel->rd_rel->relkind != RELKIND_PARTITIONED_TABLE)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a table", RelationGetRelationName(rel))));
	return rel;
}

/* Trigger arguments given as a text[] (one-dimensional, no NULLs). */
char **
nddup_dedup_args_array(ArrayType *arr, int *nargs)
{
	Datum	   *elems;
	bool	   *elnulls;
	char	  **args;

	if (ARR_NDIM(arr) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("trigger arguments must be a one-dimensional array")));
	deconstruct_array(arr, TEXTOID, -1, false, TYPALIGN_INT, &elems, &elnulls, nargs);
	args = palloc(sizeof(char *) * (*nargs + 1));
	for (int i = 0; i < *nargs; i++)
	{
		if (elnulls[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("trigger arguments must not contain nulls")));
		args[i] = TextDatumGetCString(elems[i]);
	}
	return args;
}
