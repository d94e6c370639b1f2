/*-------------------------------------------------------------------------
 *
 * hamming_query.c
 *	  Planner support for Hamming-radius queries: within(fp, q, k) becomes
 *	  the index condition fp <@ ball(q, k), and both forms get a selectivity
 *	  estimate instead of contsel's fixed guess.
 *
 * Selectivity of "fp within r bits of c": the part of the column held by its
 * most common values is counted exactly (each MCV's distance to c); the rest
 * is estimated as the larger of
 *	- the uniform share sum_{i<=r} C(64,i) / 2^64 (random fingerprints),
 *	- the share of histogram bounds within r of c, when at least two are
 *	  (the bounds are a sample of the column, and this catches clustered or
 *	  skewed data at large radii),
 *	- a floor of one distinct value's share (the center's own duplicates:
 *	  queries are usually existing fingerprints).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "nddup.h"
#include "hamming.h"

#include "access/htup_details.h"
#include "catalog/namespace.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_statistic.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/supportnodes.h"
#include "optimizer/optimizer.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/selfuncs.h"
#include "utils/syscache.h"

PG_FUNCTION_INFO_V1(hamming_within_support);
PG_FUNCTION_INFO_V1(hamming_ball_restrict);
PG_FUNCTION_INFO_V1(hamming_within_radius);

/* defined in simhash_type.c: within(a, b, k), whose radius check we reuse */
extern Datum simhash64_within(PG_FUNCTION_ARGS);

/* strategy of <@ in simhash64_gin_ops (src/index/gin_hamming.c) */
#define HAMMING_STRATEGY_IN_BALL	1

/* radius assumed when the query's radius is unknown at plan time */
#define HAMMING_DEFAULT_RADIUS	3

/* Share of uniform random 64-bit values within r bits of a given one. */
static double
uniform_ball_share(int r)
{
	double		sum = 0;
	double		c = 1;

	if (r >= 64)
		return 1.0;
	for (int i = 0; i <= r; i++)
	{
		sum += c;
		c = c * (64 - i) / (i + 1);
	}
	return ldexp(sum, -64);
}

/* Selectivity of "column within radius of center", see the file header. */
static Selectivity
ball_selectivity(VariableStatData *vardata, bool have_center, uint64 center,
				 int radius)
{
	double		nullfrac = 0;
	double		mcv_total = 0;
	double		mcv_match = 0;
	double		rest_share;
	double		ndistinct;
	bool		isdefault;
	Selectivity sel;

	if (radius < 0)
		return 0;
	if (radius > 64)
		radius = 64;
	rest_share = uniform_ball_share(radius);

	ndistinct = get_variable_numdistinct(vardata, &isdefault);

	if (HeapTupleIsValid(vardata->statsTuple))
	{
		Form_pg_statistic stats = (Form_pg_statistic) GETSTRUCT(vardata->statsTuple);
		AttStatsSlot sslot;

		nullfrac = stats->stanullfrac;

		if (get_attstatsslot(&sslot, vardata->statsTuple,
							 STATISTIC_KIND_MCV, InvalidOid,
							 ATTSTATSSLOT_VALUES | ATTSTATSSLOT_NUMBERS))
		{
			for (int i = 0; i < sslot.nvalues; i++)
			{
				mcv_total += sslot.numbers[i];
				if (have_center &&
					nddup_hamming(DatumGetSimhash64(sslot.values[i]), center) <= radius)
					mcv_match += sslot.numbers[i];
			}
			if (!have_center)
				mcv_match = mcv_total * rest_share;
			ndistinct -= sslot.nvalues;
			free_attstatsslot(&sslot);
		}

		if (have_center &&
			get_attstatsslot(&sslot, vardata->statsTuple,
							 STATISTIC_KIND_HISTOGRAM, InvalidOid,
							 ATTSTATSSLOT_VALUES))
		{
			int			within = 0;

			for (int i = 0; i < sslot.nvalues; i++)
				if (nddup_hamming(DatumGetSimhash64(sslot.values[i]), center) <= radius)
					within++;
			if (within >= 2 && sslot.nvalues > 0)
				rest_share = Max(rest_share, (double) within / sslot.nvalues);
			free_attstatsslot(&sslot);
		}
	}

	/* at least the center's own duplicates */
	if (ndistinct >= 1)
		rest_share = Max(rest_share, 1.0 / ndistinct);

	sel = mcv_match + Max(0.0, 1.0 - nullfrac - mcv_total) * rest_share;
	CLAMP_PROBABILITY(sel);
	return sel;
}

/* Selectivity of within(a, b, k) or a <@ ball: args are the two sides. */
static Selectivity
estimate_restriction(PlannerInfo *root, Node *fpside, Node *otherside,
					 Node *radiusarg, int varRelid)
{
	VariableStatData vardata;
	Node	   *other;
	bool		varonleft;
	bool		have_center = false;
	uint64		center = 0;
	int			radius = HAMMING_DEFAULT_RADIUS;
	Selectivity sel;

	if (!get_restriction_variable(root, list_make2(fpside, otherside),
								  varRelid, &vardata, &other, &varonleft))
		return uniform_ball_share(HAMMING_DEFAULT_RADIUS);

	if (IsA(other, Const) && ((Const *) other)->constisnull)
	{
		ReleaseVariableStats(vardata);
		return 0;
	}

	if (radiusarg == NULL)
	{
		/* fp <@ ball: other is the ball */
		if (IsA(other, Const))
		{
			HammingBall *ball = (HammingBall *) DatumGetPointer(((Const *) other)->constvalue);

			have_center = true;
			center = ball->center;
			radius = ball->radius;
		}
	}
	else
	{
		Node	   *k = estimate_expression_value(root, radiusarg);

		if (IsA(other, Const))
		{
			have_center = true;
			center = DatumGetSimhash64(((Const *) other)->constvalue);
		}
		if (IsA(k, Const))
		{
			if (((Const *) k)->constisnull)
			{
				ReleaseVariableStats(vardata);
				return 0;
			}
			radius = DatumGetInt32(((Const *) k)->constvalue);
		}
	}

	sel = ball_selectivity(&vardata, have_center, center, radius);
	ReleaseVariableStats(vardata);
	return sel;
}

/*
 * The radius of a hamming_ball expression at plan time: a constant ball, or
 * ball(q, k) with k a constant (the center may be unknown, e.g. a join's
 * outer value), clamped to 0..64; -1 when it is not known.
 */
int
nddup_hamming_ball_radius(PlannerInfo *root, Node *expr)
{
	Node	   *e = estimate_expression_value(root, expr);
	int32		radius;

	if (IsA(e, Const))
	{
		if (((Const *) e)->constisnull)
			return 0;
		radius = ((HammingBall *) DatumGetPointer(((Const *) e)->constvalue))->radius;
	}
	else if (IsA(e, FuncExpr) && list_length(((FuncExpr *) e)->args) == 2 &&
			 IsA(lsecond(((FuncExpr *) e)->args), Const))
	{
		Const	   *k = (Const *) lsecond(((FuncExpr *) e)->args);

		if (k->constisnull || k->consttype != INT4OID)
			return -1;
		radius = DatumGetInt32(k->constvalue);
	}
	else
		return -1;
	return Max(0, Min(radius, 64));
}

/* RESTRICT estimator of simhash64 <@ hamming_ball. */
Datum
hamming_ball_restrict(PG_FUNCTION_ARGS)
{
	PlannerInfo *root = (PlannerInfo *) PG_GETARG_POINTER(0);
	List	   *args = (List *) PG_GETARG_POINTER(2);
	int			varRelid = PG_GETARG_INT32(3);

	if (list_length(args) != 2)
		PG_RETURN_FLOAT8(uniform_ball_share(HAMMING_DEFAULT_RADIUS));
	PG_RETURN_FLOAT8(estimate_restriction(root, linitial(args), lsecond(args),
										  NULL, varRelid));
}

/*
 * The radius of within() in an index condition: raises within()'s own error
 * for a negative radius, and clamps to 64 (every fingerprint is within 64).
 */
Datum
hamming_within_radius(PG_FUNCTION_ARGS)
{
	int32		k = PG_GETARG_INT32(0);

	if (k < 0)
	{
		DirectFunctionCall3(simhash64_within, Simhash64GetDatum(0),
							Simhash64GetDatum(0), Int32GetDatum(k));
		elog(ERROR, "within() accepted the negative radius %d", k);
	}
	PG_RETURN_INT32(Min(k, 64));
}

/* Find function name(argtypes) in namespace nsp, or InvalidOid. */
static Oid
lookup_function_in(Oid nsp, const char *name, int nargs, const Oid *argtypes)
{
	oidvector  *args = buildoidvector(argtypes, nargs);

	return GetSysCacheOid3(PROCNAMEARGSNSP, Anum_pg_proc_oid,
						   CStringGetDatum(name), PointerGetDatum(args),
						   ObjectIdGetDatum(nsp));
}

/*
 * The <@ operator usable with this opfamily: simhash64_gin_ops's strategy,
 * else any <@ (fp, hamming_ball) of the extension that the family contains
 * (e.g. another access method's opclass with its own strategy numbers).
 */
static Oid
lookup_ball_operator(Oid opfamily, Oid nsp, Oid fptype, Oid balltype)
{
	Oid			opr;
	char	   *nspname;

	opr = get_opfamily_member(opfamily, fptype, balltype,
							  HAMMING_STRATEGY_IN_BALL);
	if (OidIsValid(opr))
		return opr;
	nspname = get_namespace_name(nsp);
	if (nspname == NULL)
		return InvalidOid;
	opr = OpernameGetOprid(list_make2(makeString(nspname), makeString("<@")),
						   fptype, balltype);
	if (OidIsValid(opr) && op_in_opfamily(opr, opfamily))
		return opr;
	return InvalidOid;
}

/* SupportRequestIndexCondition: within(fp, q, k) -> fp <@ ball(q, k). */
static List *
within_index_condition(SupportRequestIndexCondition *req)
{
	FuncExpr   *fexpr;
	Node	   *fparg;
	Node	   *qarg;
	Node	   *karg;
	Oid			nsp;
	Oid			fptype;
	Oid			ballfn;
	Oid			balltype;
	Oid			opr;
	Oid			argtypes[2];
	Expr	   *radius;
	Expr	   *ballexpr;

	if (!is_funcclause(req->node))
		return NIL;
	fexpr = (FuncExpr *) req->node;
	if (list_length(fexpr->args) != 3 || req->indexarg > 1)
		return NIL;

	/* Hamming distance is symmetric: the index column may be either side */
	fparg = (Node *) list_nth(fexpr->args, req->indexarg);
	qarg = (Node *) list_nth(fexpr->args, 1 - req->indexarg);
	karg = (Node *) lthird(fexpr->args);
	if (!is_pseudo_constant_for_index(req->root, qarg, req->index) ||
		!is_pseudo_constant_for_index(req->root, karg, req->index))
		return NIL;

	/* the extension's own objects, by OID in within()'s schema */
	nsp = get_func_namespace(req->funcid);
	fptype = exprType(fparg);
	argtypes[0] = fptype;
	argtypes[1] = INT4OID;
	ballfn = lookup_function_in(nsp, "ball", 2, argtypes);
	if (!OidIsValid(ballfn))
		return NIL;
	balltype = get_func_rettype(ballfn);
	opr = lookup_ball_operator(req->opfamily, nsp, fptype, balltype);
	if (!OidIsValid(opr))
		return NIL;

	if (IsA(karg, Const))
	{
		Const	   *k = (Const *) karg;

		/* NULL or negative: no index condition; within() itself decides */
		if (k->constisnull || DatumGetInt32(k->constvalue) < 0)
			return NIL;
		radius = (Expr *) makeConst(INT4OID, -1, InvalidOid, sizeof(int32),
									Int32GetDatum(Min(DatumGetInt32(k->constvalue), 64)),
									false, true);
	}
	else
	{
		Oid			radiusfn;

		argtypes[0] = INT4OID;
		radiusfn = lookup_function_in(nsp, "hamming_within_radius", 1, argtypes);
		if (!OidIsValid(radiusfn))
			return NIL;
		radius = (Expr *) makeFuncExpr(radiusfn, INT4OID,
									   list_make1(copyObject(karg)),
									   InvalidOid, InvalidOid,
									   COERCE_EXPLICIT_CALL);
	}

	ballexpr = (Expr *) makeFuncExpr(ballfn, balltype,
									 list_make2(copyObject(qarg), radius),
									 InvalidOid, InvalidOid,
									 COERCE_EXPLICIT_CALL);
	/* exactly equivalent: fp <@ ball(q, min(k, 64)) iff within(fp, q, k) */
	req->lossy = false;
	return list_make1(make_opclause(opr, BOOLOID, false,
									(Expr *) copyObject(fparg), ballexpr,
									InvalidOid, InvalidOid));
}

/* Planner support function of within(fp, q, k). */
Datum
hamming_within_support(PG_FUNCTION_ARGS)
{
	Node	   *rawreq = (Node *) PG_GETARG_POINTER(0);

	if (IsA(rawreq, SupportRequestIndexCondition))
	{
		List	   *clauses;

		clauses = within_index_condition((SupportRequestIndexCondition *) rawreq);
		PG_RETURN_POINTER(clauses);
	}

	if (IsA(rawreq, SupportRequestSelectivity))
	{
		SupportRequestSelectivity *req = (SupportRequestSelectivity *) rawreq;

		if (list_length(req->args) != 3)
			PG_RETURN_POINTER(NULL);
		if (req->is_join)
		{
			Node	   *k = estimate_expression_value(req->root, lthird(req->args));
			int			radius = HAMMING_DEFAULT_RADIUS;

			if (IsA(k, Const) && !((Const *) k)->constisnull)
				radius = DatumGetInt32(((Const *) k)->constvalue);
			req->selectivity = radius < 0 ? 0 : uniform_ball_share(Min(radius, 64));
		}
		else
			req->selectivity = estimate_restriction(req->root,
													linitial(req->args),
													lsecond(req->args),
													lthird(req->args),
													req->varRelid);
		PG_RETURN_POINTER(req);
	}

	PG_RETURN_POINTER(NULL);
}
