/*-------------------------------------------------------------------------
 *
 * gin_sketch.c
 *	  GIN operator classes for the resemblance sketch types, exact: an index
 *	  scan returns the rows a sequential scan of the same operator returns.
 *
 *	  minhash_lsh_ops  minhash_sketch, locality-sensitive hashing by bands
 *					   (Indyk and Motwani 1998; Broder 1997; Leskovec,
 *					   Rajaraman and Ullman, Mining of Massive Datasets,
 *					   3rd ed., s.3.4): one key per band of r values;
 *					   "a % q" and "a <@ similar_to(q, t)".
 *	  shingleset_ops   shingleset, one key per stored shingle hash;
 *					   "a && b" (a common shingle), "a % q",
 *					   "a <@ similar_to(q, t)" (Jaccard >= t) and
 *					   "a <@ containing(q, t)" (|Q n A| / |Q| >= t).
 *
 * Exactness.  Every candidate is rechecked with the operator itself, so the
 * index can only lose rows, never add them; the key conditions below are
 * necessary conditions of the operator being true:
 *
 *	- min-hash: an estimate >= t needs E >= E_min equal positions out of k.
 *	  With b bands of r positions (b * r <= k), a pair whose equal positions
 *	  fill m bands completely has at most m * r + (b - m) * (r - 1) +
 *	  (k - b * r) = k - b + m equal positions, so E >= E_min implies
 *	  m >= E_min - k + b: the scan asks for that many common band keys, and
 *	  falls back to a full index scan when that bound is <= 0.  E_min is not
 *	  computed from a formula: it is found by asking the operator about
 *	  synthetic sketches with exactly E equal positions (the estimate depends
 *	  on E only), so it is the operator's own arithmetic and setting.
 *	- sets: Jaccard |Q n D| / |Q u D| >= t implies |Q n D| >= t |Q| because
 *	  |Q u D| >= |Q| (Broder's bottom-s estimate: its denominator is
 *	  min(s, |F(Q) u F(D)|) >= |F(Q)|); containment |Q n D| / |Q| >= t is
 *	  the same count.  The scan asks for ceil(t |Q| - 1e-6) common keys.
 *
 * Sketches made with other parameters than the query raise 22023 in the
 * operator.  So that the index raises it as well, every row also stores a
 * key encoding its parameters; a query reads, by partial match, the keys of
 * every other parameter set (a handful of index entries) and returns those
 * rows as candidates, whose recheck raises the error.
 *
 * Key space (int8, signed order): parameter keys are PARAM_BASE + code
 * (code < 2^55), keys of documents without shingles EMPTY_BASE + code; band
 * keys and shingle keys whose top byte would fall there (0x80) get bit 62
 * set instead, which can only merge two keys (more candidates, never fewer).
 *
 * The layouts of minhash_sketch and shingleset are read as documented in
 * docs/sketches.md ("Binary form"); src/nddup.h defines them.  See
 * docs/sketch-indexes.md.
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

PG_FUNCTION_INFO_V1(minhash_lsh_options);
PG_FUNCTION_INFO_V1(minhash_lsh_extract_value);
PG_FUNCTION_INFO_V1(minhash_lsh_extract_query);
PG_FUNCTION_INFO_V1(shingleset_gin_extract_value);
PG_FUNCTION_INFO_V1(shingleset_gin_extract_query);
PG_FUNCTION_INFO_V1(sketch_gin_compare_partial);
PG_FUNCTION_INFO_V1(sketch_gin_consistent);
PG_FUNCTION_INFO_V1(sketch_gin_triconsistent);
PG_FUNCTION_INFO_V1(minhash_lsh_geometry);

/* key space, see the file header */
#define PARAM_BASE		PG_INT64_MIN
#define EMPTY_BASE		(PG_INT64_MIN + (INT64CONST(1) << 55))
#define SPECIAL_END		(PG_INT64_MIN + (INT64CONST(1) << 56))

/*
 * LSH option defaults and limits.  The default design threshold is the
 * default of nddup.similarity_threshold, so that the default index serves
 * the % operator at the default setting without a full index scan.
 */
#define LSH_DEFAULT_THRESHOLD	0.3
#define LSH_INTEGRATION_STEPS	64
/* Refuse to run while GIN may drop matching rows at random. */
static void
check_fuzzy_limit(const char *opclass)
{
	if (GinFuzzySearchLimit > 0)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s cannot be used while gin_fuzzy_search_limit is set", opclass),
				 errdetail("gin_fuzzy_search_limit = %d would silently drop matching rows.",
						   GinFuzzySearchLimit),
				 errhint("SET gin_fuzzy_search_limit = 0 for this query.")));
}

/* A band or shingle key moved out of the reserved range of special keys. */
static inline int64
regular_key(uint64 h)
{
	if ((h >> 56) == 0x80)
		h |= UINT64CONST(1) << 62;
	return (int64) h;
}

/* ----------------------------------------------------------------
 *		Scan state shared by both opclasses
 *
 * Query key 0 is always the partial match over the parameter keys; its
 * extra_data is the scan state.  The row matches when key 0 matched (a row
 * made with other parameters: the recheck raises the error) or when at
 * least "need" of keys 1..nkeys-1 are present.
 * ----------------------------------------------------------------
 */

typedef struct SketchScan
{
	int64		params_key;		/* the query's own parameter key */
	int32		need;			/* keys among 1..nkeys-1 needed */
	bool		all;			/* key 0 matches every parameter key */
} SketchScan;

/* Fill the outputs of extractQuery for key 0 plus nextra keys. */
static Datum *
begin_query_keys(int nextra, int64 params_key, int need, int32 *nkeys,
				 bool **pmatch, Pointer **extra_data)
{
	Datum	   *keys = palloc(sizeof(Datum) * (nextra + 1));
	SketchScan *scan = palloc(sizeof(SketchScan));

	scan->params_key = params_key;
	scan->need = need;
	scan->all = false;
	keys[0] = Int64GetDatum(PARAM_BASE);
	*pmatch = palloc0(sizeof(bool) * (nextra + 1));
	(*pmatch)[0] = true;
	*extra_data = palloc0(sizeof(Pointer) * (nextra + 1));
	(*extra_data)[0] = (Pointer) scan;
	*nkeys = nextra + 1;
	return keys;
}

/*
 * The full-scan answer of extractQuery: every non-NULL row is a candidate.
 * Every row has exactly one parameter key, so key 0 matching all of them
 * finds every row by reading one posting tree per parameter set, much
 * cheaper than GIN_SEARCH_MODE_ALL, which reads every key of the index.
 */
static Datum *
full_scan(int64 params_key, int32 *nkeys, bool **pmatch, Pointer **extra_data)
{
	Datum	   *keys = begin_query_keys(0, params_key, 1, nkeys, pmatch, extra_data);

	((SketchScan *) (*extra_data)[0])->all = true;
	return keys;
}

/*
 * comparePartial: over the parameter keys, a match is a key of other
 * parameters than the query's; stop at the end of the parameter keys.
 */
Datum
sketch_gin_compare_partial(PG_FUNCTION_ARGS)
{
	int64		key = PG_GETARG_INT64(1);
	SketchScan *scan = (SketchScan *) PG_GETARG_POINTER(3);

	if (key >= EMPTY_BASE)
		PG_RETURN_INT32(1);
	PG_RETURN_INT32(key == scan->params_key && !scan->all ? -1 : 0);
}

/* consistent: key 0, or at least need of the other keys; always rechecked */
Datum
sketch_gin_consistent(PG_FUNCTION_ARGS)
{
	bool	   *check = (bool *) PG_GETARG_POINTER(0);
	int32		nkeys = PG_GETARG_INT32(3);
	Pointer    *extra_data = (Pointer *) PG_GETARG_POINTER(4);
	bool	   *recheck = (bool *) PG_GETARG_POINTER(5);
	SketchScan *scan;
	int			count = 0;

	*recheck = true;
	scan = (SketchScan *) extra_data[0];
	if (check[0])
		PG_RETURN_BOOL(true);
	for (int i = 1; i < nkeys; i++)
		if (check[i] && ++count >= scan->need)
			PG_RETURN_BOOL(true);
	PG_RETURN_BOOL(false);
}

/* triConsistent: FALSE when even every MAYBE key cannot reach need */
Datum
sketch_gin_triconsistent(PG_FUNCTION_ARGS)
{
	GinTernaryValue *check = (GinTernaryValue *) PG_GETARG_POINTER(0);
	int32		nkeys = PG_GETARG_INT32(3);
	Pointer    *extra_data = (Pointer *) PG_GETARG_POINTER(4);
	SketchScan *scan;
	int			possible = 0;

	if (check[0] != GIN_FALSE)
		PG_RETURN_GIN_TERNARY_VALUE(GIN_MAYBE);
	scan = (SketchScan *) extra_data[0];
	for (int i = 1; i < nkeys; i++)
		if (check[i] != GIN_FALSE && ++possible >= scan->need)
			PG_RETURN_GIN_TERNARY_VALUE(GIN_MAYBE);
	PG_RETURN_GIN_TERNARY_VALUE(GIN_FALSE);
}

/* ----------------------------------------------------------------
 *		minhash_lsh_ops
 * ----------------------------------------------------------------
 */

/* opclass options; starts with a varlena header */
typedef struct MinhashLshOptions
{
	int32		vl_len_;
	int			bands;			/* 0: derived */
	int			rows;			/* 0: derived */
	double		threshold;		/* design threshold when bands, rows are 0 */
} MinhashLshOptions;

/* Reject threshold together with bands or rows. */
static void
validate_lsh_options(void *parsed, relopt_value *vals, int nvals)
{
	bool		threshold_set = false;
	bool		geometry_set = false;

	for (int i = 0; i < nvals; i++)
	{
		if (!vals[i].isset)
			continue;
		if (strcmp(vals[i].gen->name, "threshold") == 0)
			threshold_set = true;
		else
			geometry_set = true;
	}
	if (threshold_set && geometry_set)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("minhash_lsh_ops options threshold and bands/rows cannot be combined"),
				 errhint("Give either threshold, or bands and/or rows.")));
}

/* Options: bands, rows (1..1024, 0 = derived) or threshold (0.01..1). */
Datum
minhash_lsh_options(PG_FUNCTION_ARGS)
{
	local_relopts *relopts = (local_relopts *) PG_GETARG_POINTER(0);

	init_local_reloptions(relopts, sizeof(MinhashLshOptions));
	add_local_int_reloption(relopts, "bands",
							"number of bands b (0: k / rows, or derived from threshold)",
							0, 0, NDDUP_MINHASH_MAX_K,
							offsetof(MinhashLshOptions, bands));
	add_local_int_reloption(relopts, "rows",
							"min-hash values per band r (0: k / bands, or derived from threshold)",
							0, 0, NDDUP_MINHASH_MAX_K,
							offsetof(MinhashLshOptions, rows));
	add_local_real_reloption(relopts, "threshold",
							 "lowest resemblance the index answers without a full scan",
							 LSH_DEFAULT_THRESHOLD, 0.01, 1.0,
							 offsetof(MinhashLshOptions, threshold));
	register_reloptions_validator(relopts, validate_lsh_options);
	PG_RETURN_VOID();
}

/* Probability that one position of a b-bit (or 32-bit) pair agrees at r = s. */
static double
position_agreement(double s, int bits)
{
	if (bits >= 32)
		return s;
	return s + (1.0 - s) * ldexp(1.0, -bits);
}

/* The S-curve: probability of at least one common band, 1 - (1 - p^r)^b. */
static double
s_curve(double s, int b, int r, int bits)
{
	return 1.0 - pow(1.0 - pow(position_agreement(s, bits), r), b);
}

/* Simpson's rule of f(s) = S-curve (or 1 - S-curve) over [lo, hi]. */
static double
s_curve_area(double lo, double hi, int b, int r, int bits, bool complement)
{
	int			n = LSH_INTEGRATION_STEPS;
	double		h = (hi - lo) / n;
	double		sum = 0;

	if (hi <= lo)
		return 0;
	for (int i = 0; i <= n; i++)
	{
		double		y = s_curve(lo + i * h, b, r, bits);
		double		w = (i == 0 || i == n) ? 1 : (i % 2 ? 4 : 2);

		sum += w * (complement ? 1.0 - y : y);
	}
	return sum * h / 3;
}

/*
 * Smallest number of equal positions (of k) whose estimate reaches t: the
 * estimator of docs/sketches.md, chance-corrected for b < 32, computed as
 * the operators compute it.  Chooses the index geometry and the duplicate
 * trigger's lock bands; scans ask the operator itself.
 */
int
nddup_minhash_min_equal(double t, int k, int bits)
{
	for (int e = 0; e <= k; e++)
	{
		double		p = (double) e / k;

		if (bits < 32)
		{
			p = (p - ldexp(1.0, -bits)) / (1.0 - ldexp(1.0, -bits));
			p = p < 0.0 ? 0.0 : (p > 1.0 ? 1.0 : p);
		}
		if (p >= t)
			return e;
	}
	return k;
}

/*
 * Bands and rows for design threshold t: among the (b, r) with b * r <= k
 * for which every pair with estimate >= t shares a band (b >= k - E_min +
 * 1, see the file header), the one minimising the false-positive area
 * under the S-curve below t plus the false-negative area above it
 * (Leskovec et al., MMDS s.3.4.3; equal weights).  Cached per backend.
 */
static void
derive_geometry(double t, int k, int bits, int *bands, int *rows)
{
	static struct
	{
		double		t;
		int			k;
		int			bits;
		int			b;
		int			r;
	}			cache[16];
	static int	ncache = 0;
	int			bmin;
	double		best = -1;
	int			bestb = 1,
				bestr = 1;

	for (int i = 0; i < ncache; i++)
		if (cache[i].t == t && cache[i].k == k && cache[i].bits == bits)
		{
			*bands = cache[i].b;
			*rows = cache[i].r;
			return;
		}

	bmin = k - nddup_minhash_min_equal(t, k, bits) + 1;
	for (int b = bmin; b <= k; b++)
		for (int r = k / b; r >= 1; r--)
		{
			double		cost = s_curve_area(0, t, b, r, bits, false) +
				s_curve_area(t, 1, b, r, bits, true);

			if (best < 0 || cost < best)
			{
				best = cost;
				bestb = b;
				bestr = r;
			}
		}

	if (ncache < (int) lengthof(cache))
	{
		cache[ncache].t = t;
		cache[ncache].k = k;
		cache[ncache].bits = bits;
		cache[ncache].b = bestb;
		cache[ncache].r = bestr;
		ncache++;
	}
	*bands = bestb;
	*rows = bestr;
}

/* Bands and rows of this index for sketches of this k and b. */
static void
lsh_geometry(FunctionCallInfo fcinfo, const SketchMinhash *m, int *bands, int *rows)
{
	int			b = 0,
				r = 0;
	double		t = LSH_DEFAULT_THRESHOLD;
	int			k = m->k;

	if (PG_HAS_OPCLASS_OPTIONS())
	{
		MinhashLshOptions *opts = (MinhashLshOptions *) PG_GET_OPCLASS_OPTIONS();

		b = opts->bands;
		r = opts->rows;
		t = opts->threshold;
	}
	if (b == 0 && r == 0)
	{
		derive_geometry(t, k, m->bits, bands, rows);
		return;
	}
	if (b == 0)
		b = Max(1, k / r);
	if (r == 0)
		r = Max(1, k / b);
	if ((int64) b * r > k)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("minhash_lsh_ops with %d bands of %d rows needs k >= %d, but the sketch has k = %d",
						b, r, b * r, k),
				 errhint("Choose bands * rows <= k, or give the threshold option instead.")));
	*bands = b;
	*rows = r;
}

/* The injective parameter code of a sketch (55 bits); also nddup_minhash_params(). */
int64
nddup_minhash_params_code(const SketchMinhash *m)
{
	uint64		code = 0;
	int			logbits = 0;

	while (logbits < 5 && (1 << logbits) < m->bits)
		logbits++;
	code = (code << 1) | (m->method & 1);
	code = (code << 3) | logbits;
	code = (code << 1) | (m->unit & 1);
	code = (code << 7) | (m->size & 0x7f);
	code = (code << 11) | (m->k & 0x7ff);
	code = (code << 32) | m->seed;
	/* unit 'word_' (2) above the 55 bits: the codes of 0.1's units are unchanged */
	code |= (uint64) (m->unit >> 1) << 55;
	return (int64) code;
}

/* The k values of a sketch, unpacked (palloc'd). */
static uint32 *
minhash_values(const SketchMinhash *m)
{
	uint32	   *v = palloc(sizeof(uint32) * m->k);

	if (m->bits == 32)
		memcpy(v, m->data, sizeof(uint32) * m->k);
	else
		for (int i = 0; i < m->k; i++)
			v[i] = nddup_bbit_get(m->data, i, m->bits);
	return v;
}

/* Key of band j: a hash of j and the band's r values. */
static int64
band_key(const uint32 *values, int j, int rows, uint32 *buf)
{
	buf[0] = (uint32) j;
	memcpy(buf + 1, values + (size_t) j * rows, sizeof(uint32) * rows);
	return regular_key(nddup_hash_bytes((const char *) buf, sizeof(uint32) * (rows + 1)));
}

/* extractValue: the parameter key, then one key per band (or the empty key). */
Datum
minhash_lsh_extract_value(PG_FUNCTION_ARGS)
{
	SketchMinhash *m = (SketchMinhash *) PG_DETOAST_DATUM(PG_GETARG_DATUM(0));
	int32	   *nkeys = (int32 *) PG_GETARG_POINTER(1);
	int64		code = nddup_minhash_params_code(m);
	int			bands,
				rows;
	Datum	   *keys;

	lsh_geometry(fcinfo, m, &bands, &rows);
	if (m->flags & NDDUP_MINHASH_EMPTY_DOC)
	{
		keys = palloc(sizeof(Datum) * 2);
		keys[0] = Int64GetDatum(PARAM_BASE + code);
		keys[1] = Int64GetDatum(EMPTY_BASE + code);
		*nkeys = 2;
	}
	else
	{
		uint32	   *values = minhash_values(m);
		uint32	   *buf = palloc(sizeof(uint32) * (rows + 1));

		keys = palloc(sizeof(Datum) * (bands + 1));
		keys[0] = Int64GetDatum(PARAM_BASE + code);
		for (int j = 0; j < bands; j++)
			keys[j + 1] = Int64GetDatum(band_key(values, j, rows, buf));
		*nkeys = bands + 1;
	}
	PG_RETURN_POINTER(keys);
}

/* What the operator of a scan is: % (the setting) or <@ (a threshold). */
typedef struct MinhashProbe
{
	bool		use_guc;
	double		threshold;
	SketchMinhash *query;
	SketchMinhash *probe;		/* scratch copy of the query */
	uint32	   *values;			/* the query's values */
	uint32	   *scratch;
} MinhashProbe;

/* The operator's verdict on (a, query). */
static bool
probe_operator(MinhashProbe *p, SketchMinhash *a)
{
	if (p->use_guc)
		return DatumGetBool(DirectFunctionCall2(minhash_similar_op, PointerGetDatum(a),
												PointerGetDatum(p->query)));
	return DatumGetBool(DirectFunctionCall3(minhash_similar, PointerGetDatum(a),
											PointerGetDatum(p->query),
											Float8GetDatum(p->threshold)));
}

/*
 * The operator's verdict for a row with exactly e positions equal to the
 * (non-empty) query: the query with values e..k-1 changed.
 */
static bool
probe_equal(MinhashProbe *p, int e)
{
	SketchMinhash *s = p->probe;
	int			k = s->k;

	for (int i = 0; i < k; i++)
		p->scratch[i] = i < e ? p->values[i] : p->values[i] ^ 1;
	if (s->bits == 32)
		memcpy(s->data, p->scratch, sizeof(uint32) * k);
	else
		nddup_bbit_pack(p->scratch, k, s->bits, s->data);
	return probe_operator(p, s);
}

/*
 * extractQuery: the least number of common bands that an answer must have
 * (file header), or a full scan when that is 0.
 */
Datum
minhash_lsh_extract_query(PG_FUNCTION_ARGS)
{
	int32	   *nkeys = (int32 *) PG_GETARG_POINTER(1);
	StrategyNumber strategy = PG_GETARG_UINT16(2);
	bool	  **pmatch = (bool **) PG_GETARG_POINTER(3);
	Pointer   **extra_data = (Pointer **) PG_GETARG_POINTER(4);
	MinhashProbe p = {0};
	SketchMinhash *q;
	int64		code;
	int			bands,
				rows,
				k;
	Datum	   *keys;

	check_fuzzy_limit("minhash_lsh_ops");
	if (strategy == STRATEGY_SIMILAR_GUC)
	{
		q = (SketchMinhash *) PG_DETOAST_DATUM(PG_GETARG_DATUM(0));
		p.use_guc = true;
	}
	else if (strategy == STRATEGY_QUERY)
	{
		SketchQuery *sq = nddup_sketch_get_query(PG_GETARG_DATUM(0));

		q = (SketchMinhash *) QUERY_VALUE(sq);
		p.threshold = sq->threshold;
	}
	else
		elog(ERROR, "minhash_lsh_ops: unknown strategy %d", strategy);
	p.query = q;
	k = q->k;
	code = nddup_minhash_params_code(q);
	lsh_geometry(fcinfo, q, &bands, &rows);

	/* a copy of the query, never marked empty, for the probes */
	p.probe = palloc(VARSIZE(q));
	memcpy(p.probe, q, VARSIZE(q));
	p.probe->flags &= ~NDDUP_MINHASH_EMPTY_DOC;

	if (q->flags & NDDUP_MINHASH_EMPTY_DOC)
	{
		/* estimate 1 with empty rows, 0 with the others */
		if (probe_operator(&p, p.probe))
			PG_RETURN_POINTER(full_scan(PARAM_BASE + code, nkeys, pmatch, extra_data));
		if (!probe_operator(&p, q))
		{
			keys = begin_query_keys(0, PARAM_BASE + code, 1, nkeys, pmatch, extra_data);
			PG_RETURN_POINTER(keys);
		}
		keys = begin_query_keys(1, PARAM_BASE + code, 1, nkeys, pmatch, extra_data);
		keys[1] = Int64GetDatum(EMPTY_BASE + code);
		PG_RETURN_POINTER(keys);
	}
	else
	{
		int			lo,
					hi,
					need;
		uint32	   *buf;

		p.values = minhash_values(q);
		p.scratch = palloc(sizeof(uint32) * k);
		/* estimate 0 passes: every row matches, empty rows included */
		if (probe_equal(&p, 0))
			PG_RETURN_POINTER(full_scan(PARAM_BASE + code, nkeys, pmatch, extra_data));
		/* not even an identical sketch passes: only foreign rows (errors) */
		if (!probe_equal(&p, k))
		{
			keys = begin_query_keys(0, PARAM_BASE + code, 1, nkeys, pmatch, extra_data);
			PG_RETURN_POINTER(keys);
		}
		/* smallest e in (0, k] that passes; the estimate grows with e */
		lo = 0;
		hi = k;
		while (hi - lo > 1)
		{
			int			mid = lo + (hi - lo) / 2;

			if (probe_equal(&p, mid))
				hi = mid;
			else
				lo = mid;
		}
		/* pigeonhole: at least hi - k + bands whole bands are equal */
		need = hi - k + bands;
		if (need <= 0)
			PG_RETURN_POINTER(full_scan(PARAM_BASE + code, nkeys, pmatch, extra_data));
		keys = begin_query_keys(bands, PARAM_BASE + code, need, nkeys, pmatch, extra_data);
		buf = palloc(sizeof(uint32) * (rows + 1));
		for (int j = 0; j < bands; j++)
			keys[j + 1] = Int64GetDatum(band_key(p.values, j, rows, buf));
		PG_RETURN_POINTER(keys);
	}
}

/*
 * minhash_lsh_geometry(k, bits, threshold): the bands and rows that the
 * threshold option chooses, and the S-curve at the threshold (docs).
 */
Datum
minhash_lsh_geometry(PG_FUNCTION_ARGS)
{
	int32		k = PG_GETARG_INT32(0);
	int32		bits = PG_GETARG_INT32(1);
	double		t = PG_GETARG_FLOAT8(2);
	TupleDesc	tupdesc;
	Datum		values[5];
	bool		nulls[5] = {0};
	int			b,
				r;

	if (k < 1 || k > NDDUP_MINHASH_MAX_K)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("number of min-hash values k %d is out of range", k),
				 errdetail("k must be between 1 and %d.", NDDUP_MINHASH_MAX_K)));
	if (bits != 1 && bits != 2 && bits != 4 && bits != 8 && bits != 16 && bits != 32)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid number of bits %d per min-hash value", bits),
				 errdetail("b must be 1, 2, 4, 8, 16 or 32.")));
	if (isnan(t) || t < 0.01 || t > 1.0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("design threshold %g is out of range", t),
				 errdetail("The threshold option must be between 0.01 and 1.")));
	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	derive_geometry(t, k, bits, &b, &r);
	values[0] = Int32GetDatum(b);
	values[1] = Int32GetDatum(r);
	values[2] = Int32GetDatum(nddup_minhash_min_equal(t, k, bits));
	values[3] = Float8GetDatum(s_curve_area(0, t, b, r, bits, false));
	values[4] = Float8GetDatum(s_curve_area(t, 1, b, r, bits, true));
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(tupdesc), values, nulls)));
}

/* ----------------------------------------------------------------
 *		shingleset_ops
 * ----------------------------------------------------------------
 */

/* The injective parameter code of a set (43 bits). */
static int64
set_params_code(const SketchSet *s)
{
	uint64		code = 0;

	code = (code << 2) | (s->kind & 3);
	code = (code << 1) | (s->unit & 1);
	code = (code << 7) | (s->size & 0x7f);
	code = (code << 32) | s->param;
	/* unit 'word_' (2) above the 42 bits: the codes of 0.1's units are unchanged */
	code |= (uint64) (s->unit >> 1) << 42;
	return (int64) code;
}

/* extractValue: the parameter key, the empty key or one key per hash. */
Datum
shingleset_gin_extract_value(PG_FUNCTION_ARGS)
{
	SketchSet  *s = (SketchSet *) PG_DETOAST_DATUM(PG_GETARG_DATUM(0));
	int32	   *nkeys = (int32 *) PG_GETARG_POINTER(1);
	int64		code = set_params_code(s);
	Datum	   *keys;
	int			n = 1;

	keys = palloc_extended(sizeof(Datum) * ((Size) s->nitems + 2), MCXT_ALLOC_HUGE);
	keys[0] = Int64GetDatum(PARAM_BASE + code);
	if (s->cardinality == 0)
		keys[n++] = Int64GetDatum(EMPTY_BASE + code);
	for (uint32 i = 0; i < s->nitems; i++)
		keys[n++] = Int64GetDatum(regular_key(s->items[i]));
	*nkeys = n;
	PG_RETURN_POINTER(keys);
}

/*
 * extractQuery: Jaccard or containment >= t needs ceil(t |Q| - 1e-6) common
 * hashes (file header); && needs one.
 */
Datum
shingleset_gin_extract_query(PG_FUNCTION_ARGS)
{
	int32	   *nkeys = (int32 *) PG_GETARG_POINTER(1);
	StrategyNumber strategy = PG_GETARG_UINT16(2);
	bool	  **pmatch = (bool **) PG_GETARG_POINTER(3);
	Pointer   **extra_data = (Pointer **) PG_GETARG_POINTER(4);
	SketchSet  *q;
	int			kind = NDDUP_QUERY_JACCARD;
	double		t = 0;
	double		n;
	int64		code;
	int64		need;
	Datum	   *keys;

	check_fuzzy_limit("shingleset_ops");
	if (strategy == STRATEGY_SIMILAR_GUC)
	{
		q = (SketchSet *) PG_DETOAST_DATUM(PG_GETARG_DATUM(0));
		t = nddup_similarity_threshold;
	}
	else if (strategy == STRATEGY_QUERY)
	{
		SketchQuery *sq = nddup_sketch_get_query(PG_GETARG_DATUM(0));

		q = (SketchSet *) QUERY_VALUE(sq);
		kind = sq->kind;
		t = sq->threshold;
	}
	else if (strategy == STRATEGY_OVERLAP)
		q = (SketchSet *) PG_DETOAST_DATUM(PG_GETARG_DATUM(0));
	else
		elog(ERROR, "shingleset_ops: unknown strategy %d", strategy);
	code = set_params_code(q);

	if (strategy == STRATEGY_OVERLAP)
		need = 1;
	else if (kind == NDDUP_QUERY_CONTAINMENT)
	{
		/* c(empty, D) = 1 for every D; an empty V(Q) gives NULL (no row) */
		if (q->cardinality == 0 || t <= 0)
			PG_RETURN_POINTER(full_scan(PARAM_BASE + code, nkeys, pmatch, extra_data));
		need = (int64) ceil(t * q->nitems - 1e-6);
	}
	else
	{
		/* r(Q, D) >= 0 holds for every row where it is defined */
		if (t <= 0)
			PG_RETURN_POINTER(full_scan(PARAM_BASE + code, nkeys, pmatch, extra_data));
		if (q->cardinality == 0)
		{
			/* r(empty, empty) = 1, r(empty, D) = 0 */
			keys = begin_query_keys(1, PARAM_BASE + code, 1, nkeys, pmatch, extra_data);
			keys[1] = Int64GetDatum(EMPTY_BASE + code);
			PG_RETURN_POINTER(keys);
		}
		n = q->nitems;
		if (q->kind == NDDUP_SET_BOTTOM)
			n = Min(n, (double) q->param);
		need = (int64) ceil(t * n - 1e-6);
	}
	if (need < 1)
		need = 1;
	if (need > q->nitems)
	{
		/* no row of these parameters can match: only foreign rows (errors) */
		keys = begin_query_keys(0, PARAM_BASE + code, 1, nkeys, pmatch, extra_data);
		PG_RETURN_POINTER(keys);
	}
	keys = begin_query_keys(q->nitems, PARAM_BASE + code, (int) need, nkeys,
							pmatch, extra_data);
	for (uint32 i = 0; i < q->nitems; i++)
		keys[i + 1] = Int64GetDatum(regular_key(q->items[i]));
	PG_RETURN_POINTER(keys);
}
