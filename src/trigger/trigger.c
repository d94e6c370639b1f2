/*-------------------------------------------------------------------------
 *
 * trigger.c
 *	  Insert-time duplicate checks: the row trigger nddup_dedup_trigger()
 *	  and its validation function nddup_check_trigger().
 *
 * The trigger judges each row when it is stored (Lee, Lee and Kim's blog
 * framework): the row is compared with the existing originals (rows whose
 * duplicate_of column is NULL); the earliest original within the Hamming
 * radius (method=simhash) or at or above the resemblance threshold
 * (method=minhash), by the order column, becomes the row's original.
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
 *	 is equal in both (the pigeonhole argument of minhash_lsh_ops).
 *
 * So two transactions storing near-duplicates always share a lock key and
 * run one after the other.  The lookup then uses a snapshot taken after the
 * locks are held.  See docs/trigger.md.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "nddup.h"

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

/*
 * Field 4 of our advisory lock tags.  pg_advisory_xact_lock(bigint) uses 1
 * and pg_advisory_xact_lock(int, int) uses 2, so our keys never collide with
 * a user's advisory locks.  They show in pg_locks as locktype 'advisory',
 * classid = the table's oid, objid = the key, objsubid = 20036 / 20037.
 */
#define NDDUP_LOCK_BLOCK		0x4E44	/* "ND": one pigeonhole block */
#define NDDUP_LOCK_TABLE		0x4E45	/* the whole table */

/*
 * A transaction that has taken this many block keys of one trigger (a bulk
 * load) takes the table key in exclusive mode from then on, so that it does
 * not fill the shared lock table.
 */
#define NDDUP_LOCK_ESCALATE		512

/* Lock key of the sketches of documents without shingles (method=minhash). */
#define NDDUP_EMPTY_SKETCH_KEY	0x454D5054	/* "EMPT" */

typedef NddupTriggerMethod DedupMethod;
typedef NddupTriggerAction DedupAction;
typedef NddupTriggerLock DedupLockMode;
typedef NddupTriggerVisibility DedupVisibility;

/* The validated arguments of one trigger, resolved against its table. */
typedef struct DedupConfig
{
	Oid			relid;
	DedupMethod method;
	AttrNumber	fp_attno;		/* fingerprint (or sketch) column, or 0 */
	bool		fp_generated;	/* it is a STORED generated column */
	AttrNumber	src_attno;		/* source text column, or 0 */
	Oid			src_collation;
	AttrNumber	id_attno;
	Oid			id_type;
	int16		id_typlen;
	bool		id_typbyval;
	AttrNumber	dup_attno;		/* duplicate_of column, or 0 */
	AttrNumber	order_attno;	/* order column (defaults to id) */
	AttrNumber	scope_attno;	/* scope column, or 0 */
	Oid			scope_type;
	Oid			scope_collation;
	Oid			scope_hash_proc;	/* its hash function, or InvalidOid */
	int32		size;			/* signature parameters (source only) */
	char	   *unit;
	char	   *weighting;		/* simhash */
	int32		k;				/* minhash */
	int32		radius;			/* simhash */
	double		threshold;		/* minhash */
	DedupAction action;
	DedupLockMode lock;
	DedupVisibility visibility; /* resolved: CALLER or ALL */
	/* objects of the extension */
	Oid			ext_nsp;
	Oid			sig_type;		/* simhash64 or minhash_sketch */
	Oid			lookup_op;		/* <@ (simhash64, hamming_ball) or
								 * <@ (minhash_sketch, minhash_query) */
	Oid			source_func;	/* simhash(text, int, text, text) or
								 * minhash(text, int, text, int, int, text) */
	char	   *index_name;		/* an index serving the lookup, or NULL */
	char	   *settings;		/* normalized arguments, for messages */
} DedupConfig;

/* Per-trigger state cached for the session, keyed by the trigger's oid. */
typedef struct DedupCacheEntry
{
	Oid			tgoid;			/* hash key */
	bool		valid;			/* config still matches the catalogs */
	bool		warned;			/* the "no index" warning was given */
	int			busy;			/* calls in progress (recursion) */
	MemoryContext cxt;			/* holds config's strings */
	DedupConfig config;
	FmgrInfo	source_finfo;	/* computes the signature of a source */
	Datum		unit_datum;
	Datum		weighting_datum;
	Datum		oph_datum;
	FmgrInfo	scope_hash_finfo;	/* hashes scope values into lock keys */
	SPIPlanPtr	lookup_insert;	/* the lookup */
	SPIPlanPtr	lookup_update;	/* the lookup, excluding one ctid */
	SPIPlanPtr	repoint;		/* re-point the duplicates of a row */
	SPIPlanPtr	lock_original;	/* visibility=caller: lock the original */
	SPIPlanPtr	dependents;		/* visibility=caller: duplicates of a row */
	LocalTransactionId lock_lxid;	/* transaction that nkeys counts */
	int			nkeys;			/* block keys it took */
} DedupCacheEntry;

static HTAB *dedup_cache = NULL;

/* Error context while validating trigger arguments. */
typedef struct DedupErrorContext
{
	const char *trigname;
	const char *relname;
} DedupErrorContext;

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

/* Raise the error of trigger arguments rejected by src/trigger_options.c. */
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
					 errhint("Valid keys are fingerprint, source, method, radius, threshold, size, unit, weighting, k, id, duplicate_of, order, scope, action, lock and visibility.")));
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
					 errhint("Valid methods are simhash and minhash.")));
			break;
		case NDDUP_TRIGGER_NOT_FOR_METHOD:
			if (a->method == NDDUP_TRIGGER_SIMHASH)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("%s= applies only to method=minhash", key),
						 errhint("method=simhash takes radius=.")));
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s= applies only to method=simhash", key),
					 errhint("method=minhash takes threshold=.")));
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
					 errmsg("size=, unit=, weighting= and k= apply only with source=")));
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
 * simhash(source, size, unit, weighting), or minhash(source, k, 'oph', 0,
 * size, unit)?
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
		list_length(args) != (cfg->method == NDDUP_TRIGGER_SIMHASH ? 4 : 6))
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
static char *
dedup_source_call(const DedupConfig *cfg, const char *column, bool qualified)
{
	const char *fname = cfg->method == NDDUP_TRIGGER_SIMHASH ? "simhash" : "minhash";

	if (qualified)
		fname = quote_qualified_identifier(get_namespace_name(cfg->ext_nsp), fname);
	if (cfg->method == NDDUP_TRIGGER_SIMHASH)
		return psprintf("%s(%s, %d, %s, %s)", fname, column, cfg->size,
						quote_literal_cstr(cfg->unit),
						quote_literal_cstr(cfg->weighting));
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
 * Find an index that serves the lookup ("fp <@ ball", "sketch <@
 * similar_to"): a valid index whose column is the fingerprint column (or the
 * source expression) in an operator family that contains that <@.  Returns
 * its name, or NULL.
 */
static char *
dedup_find_index(Relation rel, const DedupConfig *cfg)
{
	List	   *indexes = RelationGetIndexList(rel);
	ListCell   *lc;
	char	   *found = NULL;

	foreach(lc, indexes)
	{
		Relation	irel = index_open(lfirst_oid(lc), AccessShareLock);
		Form_pg_index index = irel->rd_index;
		List	   *exprs = RelationGetIndexExpressions(irel);
		ListCell   *expr = list_head(exprs);

		if (index->indisvalid && index->indisready && dedup_predicate_ok(irel, cfg))
		{
			for (int i = 0; i < index->indnkeyatts && found == NULL; i++)
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
					found = pstrdup(RelationGetRelationName(irel));
			}
		}
		index_close(irel, AccessShareLock);
		if (found)
			break;
	}
	list_free(indexes);
	return found;
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
static void
dedup_parse_args(Relation rel, int nargs, char **args, Oid ext_nsp,
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
	cfg->method = a.method;
	cfg->sig_type = GetSysCacheOid2(TYPENAMENSP, Anum_pg_type_oid,
									CStringGetDatum(cfg->method == NDDUP_TRIGGER_SIMHASH ?
													"simhash64" : "minhash_sketch"),
									ObjectIdGetDatum(ext_nsp));
	query_type = GetSysCacheOid2(TYPENAMENSP, Anum_pg_type_oid,
								 CStringGetDatum(cfg->method == NDDUP_TRIGGER_SIMHASH ?
												 "hamming_ball" : "minhash_query"),
								 ObjectIdGetDatum(ext_nsp));
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
							 cfg->method == NDDUP_TRIGGER_SIMHASH ? "simhash64" : "minhash_sketch");
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

	/* the signature's parameters */
	if (nddup_trigger_check_signature(&a, &err) != NDDUP_TRIGGER_OK)
		dedup_args_error(&err, args, &a);
	cfg->size = a.size;
	cfg->k = a.k;
	cfg->unit = pstrdup(a.unit);
	cfg->weighting = pstrdup(a.weighting);
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
							values[NDDUP_TK_FINGERPRINT], dedup_source_call(cfg, values[NDDUP_TK_SOURCE], false)),
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

	cfg->index_name = dedup_find_index(rel, cfg);

	/* normalized settings, for messages and nddup_check_trigger() */
	initStringInfo(&buf);
	if (cfg->fp_attno)
		appendStringInfo(&buf, "fingerprint=%s ", values[NDDUP_TK_FINGERPRINT]);
	if (cfg->src_attno && cfg->method == NDDUP_TRIGGER_SIMHASH)
		appendStringInfo(&buf, "source=%s size=%d unit=%s weighting=%s ",
						 values[NDDUP_TK_SOURCE], cfg->size, cfg->unit, cfg->weighting);
	else if (cfg->src_attno)
		appendStringInfo(&buf, "source=%s size=%d unit=%s k=%d ",
						 values[NDDUP_TK_SOURCE], cfg->size, cfg->unit, cfg->k);
	if (cfg->method == NDDUP_TRIGGER_SIMHASH)
		appendStringInfo(&buf, "method=simhash radius=%d id=%s", cfg->radius, id_name);
	else
		appendStringInfo(&buf, "method=minhash threshold=%g id=%s", cfg->threshold, id_name);
	if (cfg->dup_attno)
		appendStringInfo(&buf, " duplicate_of=%s", dup_name);
	appendStringInfo(&buf, " order=%s", values[NDDUP_TK_ORDER] ? values[NDDUP_TK_ORDER] : id_name);
	if (cfg->scope_attno)
		appendStringInfo(&buf, " scope=%s", values[NDDUP_TK_SCOPE]);
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
static void
dedup_check_tgtype(int16 tgtype, const char *trigname)
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
		entry->lock_lxid = InvalidLocalTransactionId;
		entry->nkeys = 0;
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
	MemoryContextReset(entry->cxt);
	memset(&entry->config, 0, sizeof(entry->config));

	old = MemoryContextSwitchTo(entry->cxt);
	PG_TRY();
	{
		dedup_parse_args(rel, trigger->tgnargs, trigger->tgargs, ext_nsp,
						 trigger->tgname, &entry->config);
		fmgr_info_cxt(entry->config.source_func, &entry->source_finfo, entry->cxt);
		entry->unit_datum = CStringGetTextDatum(entry->config.unit);
		entry->weighting_datum = CStringGetTextDatum(entry->config.weighting);
		entry->oph_datum = CStringGetTextDatum("oph");
		if (OidIsValid(entry->config.scope_hash_proc))
			fmgr_info_cxt(entry->config.scope_hash_proc, &entry->scope_hash_finfo, entry->cxt);
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
		const char *opclass = cfg->method == NDDUP_TRIGGER_SIMHASH ?
			quote_qualified_identifier(get_namespace_name(ext_nsp), "simhash64_gin_ops") :
			psprintf("%s (threshold = %g)",
					 quote_qualified_identifier(get_namespace_name(ext_nsp), "minhash_lsh_ops"),
					 cfg->threshold);
		char	   *column;

		if (cfg->fp_attno)
			column = pstrdup(quote_identifier(get_attname(cfg->relid, cfg->fp_attno, false)));
		else
			column = psprintf("(%s)",
							  dedup_source_call(cfg,
												quote_identifier(get_attname(cfg->relid, cfg->src_attno, false)),
												true));
		entry->warned = true;
		ereport(WARNING,
				(errmsg("no index serves the near-duplicate lookup of trigger \"%s\" on table \"%s\"",
						trigger->tgname, RelationGetRelationName(rel)),
				 errdetail("Every row stored reads the whole table."),
				 errhint("Create one with: CREATE INDEX ON %s USING gin (%s %s) WITH (fastupdate = off)%s%s;",
						 table, column, opclass,
						 cfg->dup_attno ? " WHERE " : "",
						 cfg->dup_attno ? psprintf("%s IS NULL",
												   quote_identifier(get_attname(cfg->relid, cfg->dup_attno, false))) : "")));
	}
	return entry;
}

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
 * Prepare the plans of an entry (inside SPI):
 *
 *	SELECT t.id, <fp> FROM ONLY <table> t
 *	 WHERE <fp> OPERATOR(ext.<@) ext.ball($1, $2) AND t.id IS NOT NULL
 *	   (method=minhash: ext.similar_to($1, $2), $2 the threshold)
 *	   AND t.duplicate_of IS NULL [AND t.scope = $3]
 *	   [AND t.ctid OPERATOR(pg_catalog.<>) $3 or $4]
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
static void
dedup_prepare_plans(DedupCacheEntry *entry, Relation rel)
{
	const DedupConfig *cfg = &entry->config;
	bool		caller = (cfg->visibility == NDDUP_TRIGGER_VISIBILITY_CALLER);
	const char *nsp = quote_identifier(get_namespace_name(cfg->ext_nsp));
	const char *table = quote_qualified_identifier(get_namespace_name(RelationGetNamespace(rel)),
												   RelationGetRelationName(rel));
	char	   *fpexpr;
	char	   *id = dedup_col(cfg, cfg->id_attno);
	char	   *dup = cfg->dup_attno ? dedup_col(cfg, cfg->dup_attno) : NULL;
	StringInfoData base;
	StringInfoData tail;
	char	   *sql;
	Oid			argtypes[4];
	int			nargs = 2;

	if (cfg->fp_attno)
		fpexpr = dedup_col(cfg, cfg->fp_attno);
	else
		fpexpr = dedup_source_call(cfg, dedup_col(cfg, cfg->src_attno), true);

	argtypes[0] = cfg->sig_type;
	argtypes[1] = cfg->method == NDDUP_TRIGGER_SIMHASH ? INT4OID : FLOAT8OID;
	initStringInfo(&base);
	appendStringInfo(&base,
					 "SELECT %s, %s FROM ONLY %s t WHERE %s OPERATOR(%s.<@) %s.%s($1, $2) AND %s IS NOT NULL",
					 id, fpexpr, table, fpexpr, nsp, nsp,
					 cfg->method == NDDUP_TRIGGER_SIMHASH ? "ball" : "similar_to", id);
	if (dup)
		appendStringInfo(&base, " AND %s IS NULL", dup);
	if (cfg->scope_attno)
	{
		TypeCacheEntry *tc = lookup_type_cache(cfg->scope_type, TYPECACHE_EQ_OPR);

		argtypes[nargs++] = cfg->scope_type;
		appendStringInfo(&base, " AND %s %s $%d", dedup_col(cfg, cfg->scope_attno),
						 dedup_operator_name(tc->eq_opr), nargs);
	}
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

/*
 * The signature (simhash64 fingerprint or minhash_sketch) of a row: computed
 * from the source column (when there is one and use_stored is false), else
 * read from the fingerprint column.  Returns false when it is NULL.
 */
static bool
dedup_row_sig(DedupCacheEntry *entry, HeapTuple tuple, TupleDesc desc,
			  bool use_stored, Datum *sig)
{
	const DedupConfig *cfg = &entry->config;
	bool		isnull;
	Datum		d;

	if (cfg->src_attno && !(use_stored && cfg->fp_attno))
	{
		d = heap_getattr(tuple, cfg->src_attno, desc, &isnull);
		if (isnull)
			return false;
		if (cfg->method == NDDUP_TRIGGER_SIMHASH)
			*sig = FunctionCall4Coll(&entry->source_finfo, cfg->src_collation, d,
									 Int32GetDatum(cfg->size), entry->unit_datum,
									 entry->weighting_datum);
		else
			*sig = FunctionCall6Coll(&entry->source_finfo, cfg->src_collation, d,
									 Int32GetDatum(cfg->k), entry->oph_datum,
									 Int32GetDatum(0), Int32GetDatum(cfg->size),
									 entry->unit_datum);
		return true;
	}
	d = heap_getattr(tuple, cfg->fp_attno, desc, &isnull);
	if (isnull)
		return false;
	*sig = (cfg->method == NDDUP_TRIGGER_SIMHASH) ? d : PointerGetDatum(PG_DETOAST_DATUM(d));
	return true;
}

/* Are two signatures of the config's method equal? */
static bool
dedup_sig_equal(const DedupConfig *cfg, Datum a, Datum b)
{
	struct varlena *va;
	struct varlena *vb;

	if (cfg->method == NDDUP_TRIGGER_SIMHASH)
		return DatumGetSimhash64(a) == DatumGetSimhash64(b);
	va = PG_DETOAST_DATUM(a);
	vb = PG_DETOAST_DATUM(b);
	return VARSIZE(va) == VARSIZE(vb) && memcmp(va, vb, VARSIZE(va)) == 0;
}

/* qsort comparator of lock keys. */
static int
dedup_key_cmp(const void *a, const void *b)
{
	uint32		x = *(const uint32 *) a;
	uint32		y = *(const uint32 *) b;

	return (x > y) - (x < y);
}

/*
 * Lock key of block b of fp (radius + 1 blocks of consecutive bits, the
 * first 64 mod (radius + 1) blocks one bit longer): the block number in the
 * top 6 bits and the block's value below when it fits in 26 bits (radius
 * >= 2); a hash of both otherwise.  Equal blocks give equal keys; unequal
 * blocks rarely do, which costs only a needless wait.
 */
static uint32
dedup_block_key(uint64 fp, int radius, int b)
{
	int			nblocks = radius + 1;
	int			start = 0;
	int			len;
	uint64		value;

	for (int i = 0; i < b; i++)
		start += 64 / nblocks + (i < 64 % nblocks ? 1 : 0);
	len = 64 / nblocks + (b < 64 % nblocks ? 1 : 0);
	value = (len == 64) ? fp : (fp >> start) & ((UINT64CONST(1) << len) - 1);
	if (len <= 26)
		return ((uint32) b << 26) | (uint32) value;
	return hash_combine(hash_combine(hash_bytes_uint32((uint32) value),
									 hash_bytes_uint32((uint32) (value >> 32))),
						(uint32) b);
}

/*
 * Lock keys of a minhash sketch (appended to keys, returns their number):
 * one per band of the pigeonhole banding described in the file header, a
 * hash of the band number and its values.  Sketches of documents without
 * shingles (whose estimate is 1 only with each other) share one key.
 */
static int
dedup_band_keys(const DedupConfig *cfg, Datum sketch, uint32 *keys)
{
	int			k;
	int			bits;
	bool		empty_doc;
	uint32	   *values = nddup_minhash_datum_values(sketch, &k, &bits, &empty_doc);
	int			nbands;
	int			rows;

	if (empty_doc)
	{
		keys[0] = NDDUP_EMPTY_SKETCH_KEY;
		pfree(values);
		return 1;
	}
	nbands = k - nddup_minhash_min_equal(cfg->threshold, k, bits) + 1;
	nbands = Min(Max(nbands, 1), k);
	rows = k / nbands;
	for (int j = 0; j < nbands; j++)
		keys[j] = hash_combine(hash_bytes((const unsigned char *) (values + (size_t) j * rows),
										  sizeof(uint32) * rows),
							   (uint32) j);
	pfree(values);
	return nbands;
}

/*
 * Take the transaction-scoped advisory locks that serialize the judgement
 * of near-duplicate signatures: the table key in share mode, then every
 * pigeonhole key of every signature in exclusive mode, in ascending order
 * (so that two triggers never wait for each other in a cycle).  With a
 * scope column each key is mixed with the hash of the signature's scope
 * value, so rows of different scopes do not wait for each other.  lock=table
 * takes the table key in exclusive mode instead, which conflicts with
 * everything the block mode takes; so does a transaction that has taken
 * NDDUP_LOCK_ESCALATE block keys.
 */
static void
dedup_lock(DedupCacheEntry *entry, const Datum *sigs, const uint32 *scopes, int nsigs)
{
	const DedupConfig *cfg = &entry->config;
	LOCKTAG		tag;
	uint32	   *keys;
	int			nkeys = 0;

	if (entry->lock_lxid != MyProc->lxid)
	{
		entry->lock_lxid = MyProc->lxid;
		entry->nkeys = 0;
	}
	SET_LOCKTAG_ADVISORY(tag, MyDatabaseId, cfg->relid, 0, NDDUP_LOCK_TABLE);
	if (cfg->lock == NDDUP_TRIGGER_LOCK_TABLE || entry->nkeys >= NDDUP_LOCK_ESCALATE)
	{
		(void) LockAcquire(&tag, ExclusiveLock, false, false);
		return;
	}
	(void) LockAcquire(&tag, ShareLock, false, false);

	keys = palloc(sizeof(uint32) * nsigs *
				  (cfg->method == NDDUP_TRIGGER_SIMHASH ? cfg->radius + 1 : NDDUP_MINHASH_MAX_K));
	for (int f = 0; f < nsigs; f++)
	{
		int			first = nkeys;

		if (cfg->method == NDDUP_TRIGGER_MINHASH)
			nkeys += dedup_band_keys(cfg, sigs[f], keys + nkeys);
		else
			for (int b = 0; b <= cfg->radius; b++)
				keys[nkeys++] = dedup_block_key(DatumGetSimhash64(sigs[f]), cfg->radius, b);
		/* rows of different scopes are never judged against each other */
		if (cfg->scope_attno)
			for (int i = first; i < nkeys; i++)
				keys[i] = hash_combine(keys[i], scopes[f]);
	}
	qsort(keys, nkeys, sizeof(uint32), dedup_key_cmp);
	for (int i = 0; i < nkeys; i++)
	{
		if (i > 0 && keys[i] == keys[i - 1])
			continue;
		SET_LOCKTAG_ADVISORY(tag, MyDatabaseId, cfg->relid, keys[i], NDDUP_LOCK_BLOCK);
		if (LockAcquire(&tag, ExclusiveLock, false, false) == LOCKACQUIRE_OK)
			entry->nkeys++;
	}
	pfree(keys);
}

/* Result of one lookup. */
typedef struct DedupFound
{
	bool		found;
	Datum		id;				/* in the caller's context */
	Datum		sig;			/* the original's signature, likewise */
} DedupFound;

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
	if (cfg->method == NDDUP_TRIGGER_MINHASH)
		res->sig = SPI_datumTransfer(res->sig, false, -1);
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
				  DedupFound *res)
{
	int			rc;

	if (IsolationUsesXactSnapshot())
	{
		DedupFound	latest;
		bool		same;

		rc = SPI_execute_snapshot(plan, values, NULL, GetLatestSnapshot(),
								  InvalidSnapshot, false, true, 1);
		if (rc != SPI_OK_SELECT)
			elog(ERROR, "SPI_execute_snapshot returned %s", SPI_result_code_string(rc));
		dedup_read_result(cfg, &latest);
		rc = SPI_execute_plan(plan, values, NULL, false, 1);
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
	rc = SPI_execute_plan(plan, values, NULL, false, 1);
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
static void
dedup_lookup(DedupCacheEntry *entry, Relation rel, Datum sig, Datum scope,
			 ItemPointer ctid, DedupFound *res)
{
	const DedupConfig *cfg = &entry->config;
	SPIPlanPtr	plan = ctid ? entry->lookup_update : entry->lookup_insert;
	Datum		values[4];
	int			nvalues = 0;
	DedupUser	saved;

	values[nvalues++] = sig;
	values[nvalues++] = cfg->method == NDDUP_TRIGGER_SIMHASH ? Int32GetDatum(cfg->radius)
		: Float8GetDatum(cfg->threshold);
	if (cfg->scope_attno)
		values[nvalues++] = scope;
	values[nvalues] = PointerGetDatum(ctid);

	if (cfg->visibility == NDDUP_TRIGGER_VISIBILITY_ALL)
	{
		dedup_become_owner(rel, &saved);
		dedup_lookup_once(cfg, plan, values, res);
		dedup_restore_user(&saved);
		return;
	}
	for (;;)
	{
		Datum		id;
		int			rc;

		dedup_lookup_once(cfg, plan, values, res);
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
static void
dedup_repoint(DedupCacheEntry *entry, Relation rel, Datum new_original, Datum old_id)
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
static void
dedup_check_caller(const DedupConfig *cfg, Relation rel, Trigger *trigger)
{
	AttrNumber	cols[6];
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
	else
		nearness = psprintf("with estimated resemblance %.3f (threshold %g)",
							nddup_minhash_datum_resemblance(sig, res->sig),
							cfg->threshold);

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

/*
 * The scope value of a row and its hash for the lock keys; false when the
 * row has no scope value (NULL), or true with *scope 0 when the trigger has
 * no scope column.
 */
static bool
dedup_row_scope(DedupCacheEntry *entry, HeapTuple tuple, TupleDesc desc,
				Datum *scope, uint32 *hash)
{
	const DedupConfig *cfg = &entry->config;
	bool		isnull;

	*scope = (Datum) 0;
	*hash = 0;
	if (cfg->scope_attno == 0)
		return true;
	*scope = heap_getattr(tuple, cfg->scope_attno, desc, &isnull);
	if (isnull)
		return false;
	if (OidIsValid(cfg->scope_hash_proc))
		*hash = DatumGetUInt32(FunctionCall1Coll(&entry->scope_hash_finfo,
												 cfg->scope_collation, *scope));
	else
		*hash = 1;				/* one key for all scopes: more waits, no misses */
	return true;
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

	has_fp = dedup_row_sig(entry, newtuple, desc, false, &fp);

	/* a plain fingerprint column next to a source is maintained by us */
	if (cfg->fp_attno && cfg->src_attno && !cfg->fp_generated)
	{
		cols[ncols] = cfg->fp_attno;
		vals[ncols] = fp;
		nulls[ncols] = !has_fp;
		ncols++;
	}
	/* a row without a scope value is not judged, like one without text */
	if (!dedup_row_scope(entry, newtuple, desc, &scope, &scope_hash))
		has_fp = false;

	if (is_update)
	{
		bool		same_scope = true;

		has_oldfp = dedup_row_sig(entry, oldtuple, desc, true, &oldfp);
		if (!dedup_row_scope(entry, oldtuple, desc, &oldscope, &oldscope_hash))
			has_oldfp = false;
		else if (cfg->scope_attno && has_fp)
			same_scope = datumIsEqual(scope, oldscope,
									  TupleDescAttr(desc, cfg->scope_attno - 1)->attbyval,
									  TupleDescAttr(desc, cfg->scope_attno - 1)->attlen);
		if (has_fp == has_oldfp && same_scope && (!has_fp || dedup_sig_equal(cfg, fp, oldfp)))
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
			dedup_check_caller(cfg, rel, td->tg_trigger);
		if (SPI_connect() != SPI_OK_CONNECT)
			elog(ERROR, "SPI_connect failed");
		dedup_prepare_plans(entry, rel);

		lockscopes[nlockfps] = scope_hash;
		lockfps[nlockfps++] = fp;
		/* an original that changes: its old neighbours must wait for us */
		if (old_original && has_oldfp)
		{
			lockscopes[nlockfps] = oldscope_hash;
			lockfps[nlockfps++] = oldfp;
		}
		dedup_lock(entry, lockfps, lockscopes, nlockfps);

		dedup_lookup(entry, rel, fp, scope, is_update ? &oldtuple->t_self : NULL, &res);
		if (res.found && cfg->action == NDDUP_TRIGGER_MARK && old_original)
		{
			Datum		oldid = heap_getattr(oldtuple, cfg->id_attno, desc, &isnull);

			if (!isnull)
				dedup_repoint(entry, rel, res.id, oldid);
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
 * that marks, skips or rejects near-duplicates of existing originals.
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
	if (!TRIGGER_FIRED_BEFORE(td->tg_event))
		dedup_check_tgtype(td->tg_trigger->tgtype, td->tg_trigger->tgname);
	if (!TRIGGER_FIRED_FOR_ROW(td->tg_event))
		dedup_check_tgtype(td->tg_trigger->tgtype, td->tg_trigger->tgname);
	if (!TRIGGER_FIRED_BY_INSERT(td->tg_event) && !TRIGGER_FIRED_BY_UPDATE(td->tg_event))
		dedup_check_tgtype(td->tg_trigger->tgtype, td->tg_trigger->tgname);

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
	rel = try_table_open(PG_GETARG_OID(0), AccessShareLock);
	if (rel == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", PG_GETARG_OID(0))));
	if (rel->rd_rel->relkind != RELKIND_RELATION &&
		rel->rd_rel->relkind != RELKIND_PARTITIONED_TABLE)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a table", RelationGetRelationName(rel))));

	if (!PG_ARGISNULL(1))
	{
		ArrayType  *arr = PG_GETARG_ARRAYTYPE_P(1);
		Datum	   *elems;
		bool	   *elnulls;
		int			n;
		char	  **args;
		Datum		line[2];
		bool		null[2] = {true, false};

		if (ARR_NDIM(arr) > 1)
			ereport(ERROR,
					(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
					 errmsg("trigger arguments must be a one-dimensional array")));
		deconstruct_array(arr, TEXTOID, -1, false, TYPALIGN_INT, &elems, &elnulls, &n);
		args = palloc(sizeof(char *) * (n + 1));
		for (int i = 0; i < n; i++)
		{
			if (elnulls[i])
				ereport(ERROR,
						(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
						 errmsg("trigger arguments must not contain nulls")));
			args[i] = TextDatumGetCString(elems[i]);
		}
		dedup_parse_args(rel, n, args, ext_nsp, NULL, &cfg);
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
			dedup_check_tgtype(trigger->tgtype, trigger->tgname);
			dedup_parse_args(rel, trigger->tgnargs, trigger->tgargs, ext_nsp,
							 trigger->tgname, &cfg);
			line[0] = CStringGetTextDatum(trigger->tgname);
			line[1] = CStringGetTextDatum(cfg.settings);
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, line, null);
		}
	}
	table_close(rel, AccessShareLock);
	return (Datum) 0;
}
