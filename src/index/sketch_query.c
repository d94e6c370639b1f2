/*-------------------------------------------------------------------------
 *
 * sketch_query.c
 *	  The query types of the sketch indexes, minhash_query and
 *	  shingleset_query: a resemblance (or containment) threshold with the
 *	  query sketch or set, made by similar_to() and containing(), the
 *	  operator a <@ query, and the planner support function that turns
 *	  similar(a, b, t) into a <@ similar_to(b, t) for an index
 *	  (docs/sketch-indexes.md).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "sketch_index.h"

#include "access/gin.h"
#include "access/htup_details.h"
#include "access/reloptions.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "funcapi.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/supportnodes.h"
#include "optimizer/optimizer.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/guc.h"
#include "utils/guc_tables.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

PG_FUNCTION_INFO_V1(minhash_query_in);
PG_FUNCTION_INFO_V1(minhash_query_out);
PG_FUNCTION_INFO_V1(shingleset_query_in);
PG_FUNCTION_INFO_V1(shingleset_query_out);
PG_FUNCTION_INFO_V1(minhash_similar_to);
PG_FUNCTION_INFO_V1(shingleset_similar_to);
PG_FUNCTION_INFO_V1(shingleset_containing);
PG_FUNCTION_INFO_V1(minhash_query_match);
PG_FUNCTION_INFO_V1(shingleset_query_match);
PG_FUNCTION_INFO_V1(shingleset_overlaps);
PG_FUNCTION_INFO_V1(sketch_similar_support);

/* Raise 22023 for a threshold outside [0, 1] (the message of similar()). */
static void
check_query_threshold(double threshold)
{
	if (isnan(threshold) || threshold < 0.0 || threshold > 1.0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("similarity threshold %g is out of range", threshold),
				 errdetail("The threshold must be between 0 and 1.")));
}

/* Call a two-argument function that may return NULL. */
static Datum
call_nullable2(PGFunction fn, Datum a, Datum b, bool *isnull)
{
	LOCAL_FCINFO(fcinfo, 2);
	Datum		result;

	InitFunctionCallInfoData(*fcinfo, NULL, 2, InvalidOid, NULL, NULL);
	fcinfo->args[0].value = a;
	fcinfo->args[0].isnull = false;
	fcinfo->args[1].value = b;
	fcinfo->args[1].isnull = false;
	result = (*fn) (fcinfo);
	*isnull = fcinfo->isnull;
	return result;
}

/* ----------------------------------------------------------------
 *		Query types: minhash_query, shingleset_query
 * ----------------------------------------------------------------
 */

/* A query value of kind and threshold around a detoasted sketch or set. */
static SketchQuery *
make_query(int kind, double threshold, struct varlena *value)
{
	Size		vsize = VARSIZE(value);
	SketchQuery *q = palloc0(SKETCH_QUERY_HDRSZ + vsize);

	SET_VARSIZE(q, SKETCH_QUERY_HDRSZ + vsize);
	q->kind = (uint8) kind;
	q->threshold = threshold;
	memcpy(q->value, value, vsize);
	return q;
}

/* Fetch a query argument, detoasted, with its embedded value checked. */
SketchQuery *
nddup_sketch_get_query(Datum d)
{
	SketchQuery *q = (SketchQuery *) PG_DETOAST_DATUM(d);

	if (VARSIZE(q) < SKETCH_QUERY_HDRSZ + VARHDRSZ ||
		VARSIZE(QUERY_VALUE(q)) != VARSIZE(q) - SKETCH_QUERY_HDRSZ)
		elog(ERROR, "corrupt sketch query value");
	return q;
}

/* Text form: "jaccard>=T <value>" or "containment>=T <value>". */
static char *
query_out(SketchQuery *q, PGFunction value_out)
{
	char	   *value = DatumGetCString(DirectFunctionCall1(value_out,
															PointerGetDatum(QUERY_VALUE(q))));

	return psprintf("%s>=%s %s",
					q->kind == NDDUP_QUERY_CONTAINMENT ? "containment" : "jaccard",
					float8out_internal(q->threshold), value);
}

/*
 * Read the threshold of a query's text form (an NddupNumberParser):
 * float8in's syntax and errors, the whole query text (arg) in messages.
 */
static bool
parse_threshold(const char *num, double *value, const char **end, void *arg)
{
	char	   *stop;

	*value = float8in_internal((char *) num, &stop, "double precision",
							   (const char *) arg, NULL);
	*end = stop;
	return true;
}

/* Raise the error of a query text (str) rejected by src/core/sketch_format.c. */
static void
query_input_error(const NddupParseError *err, const char *str, bool allow_containment)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
			 errmsg("invalid input syntax for a sketch query: \"%s\"", str),
			 err->detail[0] ? errdetail("%s", err->detail) : 0,
			 err->code == NDDUP_PARSE_SYNTAX ?
			 errhint("The form is \"jaccard>=threshold value\"%s.",
					 allow_containment ? " or \"containment>=threshold value\"" : "") : 0));
}

/*
 * Parse the text form (src/core/sketch_format.c); value_in reads the embedded
 * value.
 */
static SketchQuery *
query_in(char *str, PGFunction value_in, bool allow_containment)
{
	int			kind;
	double		threshold;
	const char *value_text;
	struct varlena *value;
	NddupParseError err;

	if (nddup_query_parse(str, allow_containment, parse_threshold, str, &kind,
						  &threshold, &value_text, &err) != NDDUP_PARSE_OK)
		query_input_error(&err, str, allow_containment);
	value = (struct varlena *) PG_DETOAST_DATUM(DirectFunctionCall1(value_in,
																	CStringGetDatum(value_text)));
	return make_query(kind, threshold, value);
}

/* Raise the error of containment() for bottom-s samples. */
static void
check_containment_kind(const SketchSet *s)
{
	if (s->kind == NDDUP_SET_BOTTOM)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("containment cannot be estimated from bottom-s samples"),
				 errhint("Use exact shingle sets (shingle_set) or mod-m samples (shingle_mod).")));
}

/* minhash_query input */
Datum
minhash_query_in(PG_FUNCTION_ARGS)
{
	PG_RETURN_POINTER(query_in(PG_GETARG_CSTRING(0), minhash_in, false));
}

/* minhash_query output */
Datum
minhash_query_out(PG_FUNCTION_ARGS)
{
	PG_RETURN_CSTRING(query_out(nddup_sketch_get_query(PG_GETARG_DATUM(0)), minhash_out));
}

/* shingleset_query input */
Datum
shingleset_query_in(PG_FUNCTION_ARGS)
{
	char	   *str = PG_GETARG_CSTRING(0);
	SketchQuery *q = query_in(str, shingleset_in, true);
	NddupParseError err;

	if (nddup_query_check_set(q->kind, (const SketchSet *) QUERY_VALUE(q),
							  &err) != NDDUP_PARSE_OK)
		query_input_error(&err, str, true);
	PG_RETURN_POINTER(q);
}

/* shingleset_query output */
Datum
shingleset_query_out(PG_FUNCTION_ARGS)
{
	PG_RETURN_CSTRING(query_out(nddup_sketch_get_query(PG_GETARG_DATUM(0)), shingleset_out));
}

/* similar_to(q minhash_sketch, t): the rows whose estimate with q is >= t */
Datum
minhash_similar_to(PG_FUNCTION_ARGS)
{
	double		t = PG_GETARG_FLOAT8(1);

	check_query_threshold(t);
	PG_RETURN_POINTER(make_query(NDDUP_QUERY_JACCARD, t, PG_DETOAST_DATUM(PG_GETARG_DATUM(0))));
}

/* similar_to(q shingleset, t): the rows whose resemblance with q is >= t */
Datum
shingleset_similar_to(PG_FUNCTION_ARGS)
{
	double		t = PG_GETARG_FLOAT8(1);

	check_query_threshold(t);
	PG_RETURN_POINTER(make_query(NDDUP_QUERY_JACCARD, t, PG_DETOAST_DATUM(PG_GETARG_DATUM(0))));
}

/* containing(q shingleset, t): the rows D with containment(q, D) >= t */
Datum
shingleset_containing(PG_FUNCTION_ARGS)
{
	double		t = PG_GETARG_FLOAT8(1);
	struct varlena *value = PG_DETOAST_DATUM(PG_GETARG_DATUM(0));

	check_query_threshold(t);
	check_containment_kind((SketchSet *) value);
	PG_RETURN_POINTER(make_query(NDDUP_QUERY_CONTAINMENT, t, value));
}

/* sketch <@ minhash_query: similar(sketch, q, t) */
Datum
minhash_query_match(PG_FUNCTION_ARGS)
{
	SketchQuery *q = nddup_sketch_get_query(PG_GETARG_DATUM(1));

	PG_RETURN_DATUM(DirectFunctionCall3(minhash_similar, PG_GETARG_DATUM(0),
										PointerGetDatum(QUERY_VALUE(q)),
										Float8GetDatum(q->threshold)));
}

/*
 * set <@ shingleset_query: similar(set, q, t), or containment(q, set) >= t
 * (false where containment is NULL: a mod-m sample without elements).
 */
Datum
shingleset_query_match(PG_FUNCTION_ARGS)
{
	SketchQuery *q = nddup_sketch_get_query(PG_GETARG_DATUM(1));
	bool		isnull;
	Datum		c;

	if (q->kind == NDDUP_QUERY_JACCARD)
		PG_RETURN_DATUM(DirectFunctionCall3(shingleset_similar, PG_GETARG_DATUM(0),
											PointerGetDatum(QUERY_VALUE(q)),
											Float8GetDatum(q->threshold)));
	c = call_nullable2(shingleset_containment, PointerGetDatum(QUERY_VALUE(q)),
					   PG_GETARG_DATUM(0), &isnull);
	PG_RETURN_BOOL(!isnull && DatumGetFloat8(c) >= q->threshold);
}

/* a && b: the two sets (or samples) share at least one hash */
Datum
shingleset_overlaps(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(DatumGetInt64(DirectFunctionCall2(shingleset_overlap,
													 PG_GETARG_DATUM(0),
													 PG_GETARG_DATUM(1))) > 0);
}

/* ----------------------------------------------------------------
 *		Planner support: similar(a, b, t) -> a <@ similar_to(b, t)
 * ----------------------------------------------------------------
 */

/* Find function name(argtypes) in namespace nsp, or InvalidOid. */
static Oid
lookup_function_in(Oid nsp, const char *name, int nargs, const Oid *argtypes)
{
	oidvector  *args = buildoidvector(argtypes, nargs);

	return GetSysCacheOid3(PROCNAMEARGSNSP, Anum_pg_proc_oid,
						   CStringGetDatum(name), PointerGetDatum(args),
						   ObjectIdGetDatum(nsp));
}

/* SupportRequestIndexCondition of similar(a, b, t), either side indexed. */
static List *
similar_index_condition(SupportRequestIndexCondition *req)
{
	FuncExpr   *fexpr;
	Node	   *colarg;
	Node	   *qarg;
	Node	   *targ;
	Oid			argtypes[2];
	Oid			ctor;
	Oid			querytype;
	Oid			opr;
	Expr	   *query;

	if (!is_funcclause(req->node))
		return NIL;
	fexpr = (FuncExpr *) req->node;
	if (list_length(fexpr->args) != 3 || req->indexarg > 1)
		return NIL;

	/* the resemblance is symmetric: the index column may be either side */
	colarg = (Node *) list_nth(fexpr->args, req->indexarg);
	qarg = (Node *) list_nth(fexpr->args, 1 - req->indexarg);
	targ = (Node *) lthird(fexpr->args);
	if (!is_pseudo_constant_for_index(req->root, qarg, req->index) ||
		!is_pseudo_constant_for_index(req->root, targ, req->index))
		return NIL;

	argtypes[0] = exprType(colarg);
	argtypes[1] = FLOAT8OID;
	ctor = lookup_function_in(get_func_namespace(req->funcid), "similar_to", 2, argtypes);
	if (!OidIsValid(ctor))
		return NIL;
	querytype = get_func_rettype(ctor);
	opr = get_opfamily_member(req->opfamily, argtypes[0], querytype, STRATEGY_QUERY);
	if (!OidIsValid(opr))
		return NIL;

	query = (Expr *) makeFuncExpr(ctor, querytype,
								  list_make2(copyObject(qarg), copyObject(targ)),
								  InvalidOid, InvalidOid, COERCE_EXPLICIT_CALL);
	/* equivalent: similar_to() checks t like similar(), both are strict */
	req->lossy = false;
	return list_make1(make_opclause(opr, BOOLOID, false,
									(Expr *) copyObject(colarg), query,
									InvalidOid, InvalidOid));
}

/* Planner support function of similar(a, b, t) for both sketch types. */
Datum
sketch_similar_support(PG_FUNCTION_ARGS)
{
	Node	   *rawreq = (Node *) PG_GETARG_POINTER(0);

	if (IsA(rawreq, SupportRequestIndexCondition))
		PG_RETURN_POINTER(similar_index_condition((SupportRequestIndexCondition *) rawreq));
	PG_RETURN_POINTER(NULL);
}
