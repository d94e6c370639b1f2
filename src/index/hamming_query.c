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
 * Costs of the Hamming indexes.  When a column has several of them (the
 * hamming access method, simhash64_gin_ops, simhash64_spgist_ops), the
 * planner must price each by what it really costs.  The estimators of GIN
 * and SP-GiST know nothing of these opclasses: GIN charges every probe as
 * uncached random page reads (~20x a cached probe) and the one partial
 * match over a whole table that large radii use as one probe; SP-GiST
 * prices a ball or nearest-neighbour search like an equality lookup (a few
 * pages) although it visits a large part of the trie.  A get_relation_info
 * hook therefore gives the indexes of these two opclasses an estimator
 * that calls the access method's own (for the selectivity) and prices the
 * search by a model of its time; all three then share one scale: the
 * modeled time on cached pages at HAMMING_NS_PER_OPERATOR nanoseconds per
 * cpu_operator_cost, plus HAMMING_PAGE_MISS of their page reads as I/O.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "nddup.h"
#include "hamming.h"

#include "access/htup_details.h"
#include "access/htup_details.h"
#include "catalog/namespace.h"
#include "catalog/pg_am_d.h"
#include "catalog/pg_amop.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_statistic.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/supportnodes.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/plancat.h"
#include "utils/index_selfuncs.h"
#include "utils/catcache.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/selfuncs.h"
#include "utils/syscache.h"

PG_FUNCTION_INFO_V1(hamming_within_support);
PG_FUNCTION_INFO_V1(hamming_ball_restrict);
PG_FUNCTION_INFO_V1(hamming_within_radius);

/* strategy of <@ in simhash64_gin_ops (src/index/gin_hamming.c) */
#define HAMMING_STRATEGY_IN_BALL	1

/* radius assumed when the query's radius is unknown at plan time */
#define HAMMING_DEFAULT_RADIUS	3

/*
 * The cost scale: nanoseconds per cpu_operator_cost (a sequential scan of
 * 1M rows spent 10 ns per int4 comparison on the development machine,
 * docs/indexes.md) and the share of index page reads taken as I/O.
 */
#define HAMMING_NS_PER_OPERATOR	10.0
#define HAMMING_PAGE_MISS		0.05

/*
 * simhash64_gin_ops (src/index/gin_hamming.c): a search probes, by
 * multi-index hashing over its `blocks` blocks, every block value within
 * each block's radius, a probe costing ~3 us and ~100 ns per key in its
 * range (N / 2^bits keys), or reads all keys of one table with one partial
 * match (~150 ns a key) when that is cheaper (radius >= 18 with 4 blocks);
 * measured on 1M and 100k rows (radius 3: 0.06 ms, 12: 4 ms, 16: 15 ms,
 * 18+: 150 ms at 1M; docs/reports/bench-hamming.md).
 */
#define HAMMING_GIN_NS_PROBE		3000.0
#define HAMMING_GIN_NS_KEY			100.0
#define HAMMING_GIN_NS_TABLE_KEY	150.0
#define HAMMING_GIN_DEFAULT_BLOCKS	4

/*
 * SP-GiST trie (simhash64_spgist_ops): a search visits the leaves below
 * the nodes whose known bits are within its radius; with N rows a leaf's
 * parent knows about log2(N) - 3 bits, and a visited leaf costs ~400 ns in
 * a ball search and ~350 ns in an ordered one (with its pairing heap),
 * calibrated on 1M and 100k rows (1M: radius 3: 2.7 ms, 6: 31-40 ms;
 * nearest-10 of random points: 255-365 ms; docs/spgist.md).
 */
#define HAMMING_SPG_BITS_BELOW_LOG2N	3
#define HAMMING_SPG_NS_LEAF				400.0
#define HAMMING_SPG_NS_ORDERED_LEAF		350.0
#define HAMMING_SPG_NS_FIXED			20000.0

/* the GIN opclass's options, as src/index/gin_hamming.c lays them out */
typedef struct GinHammingOptionsView
{
	int32		vl_len_;
	int			blocks;
	int			layout;
} GinHammingOptionsView;

static get_relation_info_hook_type prev_get_relation_info_hook = NULL;

/* Share of uniform random values within r bits over `bits` bits. */
static double
binomial_share(int bits, int r)
{
	double		sum = 0;
	double		c = 1;

	if (r >= bits)
		return 1.0;
	for (int i = 0; i <= r; i++)
	{
		sum += c;
		c = c * (bits - i) / (i + 1);
	}
	return ldexp(sum, -bits);
}

/* Share of uniform random 64-bit values within r bits of a given one. */
static double
uniform_ball_share(int r)
{
	return binomial_share(64, Min(r, 64));
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
 * outer value), clamped to 0..64; -1 when it is not known, -2 when expr is
 * not a hamming_ball at all.
 */
int
nddup_hamming_ball_radius(PlannerInfo *root, Node *expr)
{
	Node	   *e;
	int32		radius;
	char	   *typname = format_type_be(exprType(expr));

	/* only a hamming_ball (other operators, e.g. SP-GiST's =, are not) */
	if (strcmp(typname, "hamming_ball") != 0 &&
		(strlen(typname) < 13 || strcmp(typname + strlen(typname) - 13, ".hamming_ball") != 0))
		return -2;
	e = estimate_expression_value(root, expr);

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
 * for a radius outside 0..64.
 */
Datum
hamming_within_radius(PG_FUNCTION_ARGS)
{
	int32		k = PG_GETARG_INT32(0);

	nddup_check_radius(k);
	PG_RETURN_INT32(k);
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

		/* NULL or out of 0..64: no index condition; within() raises */
		if (k->constisnull || DatumGetInt32(k->constvalue) < 0 ||
			DatumGetInt32(k->constvalue) > 64)
			return NIL;
		radius = (Expr *) copyObject(karg);
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
	/* exactly equivalent: fp <@ ball(q, k) iff within(fp, q, k) */
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

/*
 * A modeled time (nanoseconds on cached pages) and the index pages read, in
 * the planner's units: see the file header.
 */
Cost
nddup_hamming_cost(double nanoseconds, double pages, double page_cost)
{
	return nanoseconds / HAMMING_NS_PER_OPERATOR * cpu_operator_cost +
		pages * page_cost * HAMMING_PAGE_MISS;
}

/* The smallest radius of a path's <@ conditions, or -1 when it has none. */
static int
path_radius(PlannerInfo *root, IndexPath *path)
{
	int			radius = -1;
	ListCell   *lc;

	foreach(lc, path->indexclauses)
	{
		IndexClause *iclause = lfirst_node(IndexClause, lc);
		ListCell   *lc2;

		foreach(lc2, iclause->indexquals)
		{
			RestrictInfo *rinfo = lfirst_node(RestrictInfo, lc2);
			int			r = -1;

			if (IsA(rinfo->clause, OpExpr) &&
				list_length(((OpExpr *) rinfo->clause)->args) == 2)
				r = nddup_hamming_ball_radius(root, lsecond(((OpExpr *) rinfo->clause)->args));
			if (r == -2)
				r = 0;			/* equality (SP-GiST) */
			else if (r < 0)
				r = HAMMING_DEFAULT_RADIUS;
			radius = radius < 0 ? r : Min(radius, r);
		}
	}
	return radius;
}

/* The radius of a path's conditions, as the hamming cost estimate needs it. */
int
nddup_hamming_path_radius(PlannerInfo *root, IndexPath *path)
{
	return path_radius(root, path);
}

/*
 * Modeled time of a simhash64_gin_ops search of radius r over n rows with
 * m blocks (see HAMMING_GIN_*).
 */
static double
gin_hamming_ns(double n, int m, int radius)
{
	double		probes = 0;
	double		keys = 0;
	int			d = radius / m;
	int			s = radius % m;

	for (int t = 0; t < m; t++)
	{
		int			bits = 64 / m + (t < 64 % m ? 1 : 0);
		int			rho = (t <= s) ? d : d - 1;
		double		v = binomial_share(bits, rho) * ldexp(1.0, bits);

		if (rho < 0)
			continue;
		probes += v;
		keys += n * binomial_share(bits, rho);
	}
	return Min(probes * HAMMING_GIN_NS_PROBE + keys * HAMMING_GIN_NS_KEY,
			   n * HAMMING_GIN_NS_TABLE_KEY);
}

/*
 * amcostestimate of simhash64_gin_ops indexes: GIN's selectivity, and the
 * modeled time of the search instead of gincostestimate's charge of ~5
 * uncached random page reads per probe (which is ~20 times too much for a
 * cached index, and far too little for the one partial match over a whole
 * table that large radii use).
 */
static void
gin_hamming_cost_estimate(PlannerInfo *root, IndexPath *path, double loop_count,
						  Cost *indexStartupCost, Cost *indexTotalCost,
						  Selectivity *indexSelectivity, double *indexCorrelation,
						  double *indexPages)
{
	IndexOptInfo *index = path->indexinfo;
	double		n = Max(index->tuples, 1.0);
	int			m = HAMMING_GIN_DEFAULT_BLOCKS;
	int			radius = path_radius(root, path);
	double		ns;

	gincostestimate(root, path, loop_count, indexStartupCost, indexTotalCost,
					indexSelectivity, indexCorrelation, indexPages);
	if (radius < 0)
		return;
	if (index->opclassoptions && index->opclassoptions[0] &&
		VARSIZE(index->opclassoptions[0]) >= sizeof(GinHammingOptionsView))
	{
		GinHammingOptionsView *opts = (GinHammingOptionsView *) index->opclassoptions[0];

		if (opts->blocks >= 2 && opts->blocks <= 8)
			m = opts->blocks;
	}
	ns = gin_hamming_ns(n, m, radius);
	*indexStartupCost = nddup_hamming_cost(ns, Min(ns / HAMMING_GIN_NS_PROBE, *indexPages),
										   random_page_cost);
	*indexTotalCost = *indexStartupCost +
		*indexSelectivity * index->rel->tuples * cpu_index_tuple_cost;
}

/*
 * amcostestimate of simhash64_spgist_ops indexes: SP-GiST's, raised to the
 * modeled cost of the trie search (see HAMMING_SPG_*): for a ball search of
 * radius r, N P(Bin(b, 1/2) <= r) leaves, b = log2(N) - 3; for an ordered
 * scan, those within the distance d at which uniform rows reach the LIMIT
 * (or every row).
 */
static void
spgist_hamming_cost_estimate(PlannerInfo *root, IndexPath *path, double loop_count,
							 Cost *indexStartupCost, Cost *indexTotalCost,
							 Selectivity *indexSelectivity, double *indexCorrelation,
							 double *indexPages)
{
	double		n = Max(path->indexinfo->tuples, 1.0);
	int			bits = Max(4, (int) ceil(log2(n)) - HAMMING_SPG_BITS_BELOW_LOG2N);
	double		ns;
	Cost		model;

	spgcostestimate(root, path, loop_count, indexStartupCost, indexTotalCost,
					indexSelectivity, indexCorrelation, indexPages);
	if (path->indexorderbys != NIL)
	{
		double		want = root->limit_tuples > 0 ? root->limit_tuples : n;
		int			d = 0;

		int			radius = path_radius(root, path);

		while (d < 64 && n * uniform_ball_share(d) < want)
			d++;
		/* a <@ condition bounds the search too */
		if (radius >= 0)
			d = Min(d, radius);
		ns = n * binomial_share(bits, d) * HAMMING_SPG_NS_ORDERED_LEAF;
	}
	else
	{
		int			radius = path_radius(root, path);

		if (radius < 0)
			return;
		ns = n * binomial_share(bits, radius) * HAMMING_SPG_NS_LEAF;
	}
	model = nddup_hamming_cost(ns + HAMMING_SPG_NS_FIXED, *indexPages, random_page_cost);
	if (model > *indexTotalCost)
	{
		*indexStartupCost += model - *indexTotalCost;
		*indexTotalCost = model;
	}
}

/*
 * Whether an operator family is one of nddup's Hamming families: its
 * strategy-1 operator is estimated by hamming_ball_restrict.  Answers are
 * cached for the session.
 */
static bool
is_hamming_family(Oid opfamily)
{
	static Oid	known[16];
	static bool answer[16];
	static int	nknown = 0;
	CatCList   *list;
	bool		result = false;

	for (int i = 0; i < nknown; i++)
		if (known[i] == opfamily)
			return answer[i];
	list = SearchSysCacheList1(AMOPSTRATEGY, ObjectIdGetDatum(opfamily));
	for (int i = 0; i < list->n_members && !result; i++)
	{
		Form_pg_amop amop = (Form_pg_amop) GETSTRUCT(&list->members[i]->tuple);
		RegProcedure rest;
		char	   *name;

		if (amop->amopstrategy != 1)
			continue;
		rest = get_oprrest(amop->amopopr);
		name = OidIsValid(rest) ? get_func_name(rest) : NULL;
		result = name != NULL && strcmp(name, "hamming_ball_restrict") == 0;
	}
	ReleaseCatCacheList(list);
	if (nknown < lengthof(known))
	{
		known[nknown] = opfamily;
		answer[nknown++] = result;
	}
	return result;
}

/* get_relation_info hook: the estimators of the Hamming GIN/SP-GiST indexes. */
static void
hamming_relation_info(PlannerInfo *root, Oid relid, bool inhparent,
					  RelOptInfo *rel)
{
	ListCell   *lc;

	if (prev_get_relation_info_hook)
		prev_get_relation_info_hook(root, relid, inhparent, rel);
	foreach(lc, rel->indexlist)
	{
		IndexOptInfo *index = (IndexOptInfo *) lfirst(lc);

		if (index->nkeycolumns != 1 ||
			(index->relam != GIN_AM_OID && index->relam != SPGIST_AM_OID) ||
			!is_hamming_family(index->opfamily[0]))
			continue;
		if (index->relam == GIN_AM_OID)
			index->amcostestimate = gin_hamming_cost_estimate;
		else
			index->amcostestimate = spgist_hamming_cost_estimate;
	}
}

/* Install the planner hook (from _PG_init). */
void
nddup_hamming_planner_init(void)
{
	prev_get_relation_info_hook = get_relation_info_hook;
	get_relation_info_hook = hamming_relation_info;
}
