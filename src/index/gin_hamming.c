/*-------------------------------------------------------------------------
 *
 * gin_hamming.c
 *	  GIN operator class simhash64_gin_ops: exact Hamming-radius search,
 *	  fp <@ ball(q, r), by multi-index hashing over permuted blocks.
 *
 * The 64 bits of a fingerprint are dealt into m blocks (opclass option
 * "blocks", 2..8): bit j, counted from the most significant bit, goes to
 * block j mod m.  Interleaving rather than cutting contiguous runs keeps the
 * blocks useful when whole ranges of bits are constant (e.g. fingerprints
 * whose low 32 bits are zero).  Every row emits one key per block ("table"
 * t = 0..m-1), tagged with t in its top T = ceil(log2 m) bits so that the
 * tables occupy disjoint key ranges (Manku et al. 2007, s.3: one permuted
 * table per block).
 *
 * Two key layouts (opclass option "layout"):
 *
 *	full	tag | P_t(fp) >> T, where P_t(fp) puts block t first and the other
 *			blocks after it.  A probe is a partial match over all keys that
 *			start with tag|v; comparePartial computes the Hamming distance on
 *			the 64 - T bits the key holds and drops non-matches inside the
 *			index, so only the T dropped bits can cause a heap recheck to fail.
 *	block	tag | block_t(fp) | zeros: short keys shared by many rows, whose
 *			posting lists compress well; probes are exact-key lookups and all
 *			candidates are verified on the heap.
 *
 * A radius-r query uses the pigeonhole principle of multi-index hashing
 * (Norouzi, Punjani and Fleet 2012, s.3, with the refinement of their
 * Proposition 1): write r = m*d + s with 0 <= s < m; if two fingerprints
 * differ in at most r bits, then among any s+1 blocks probed at radius d and
 * the other m-s-1 blocks probed at radius d-1, one probe must hit (otherwise
 * the distance is at least (s+1)(d+1) + (m-s-1)d = r+1).  extractQuery
 * enumerates every block value within that radius of the query's block and
 * emits one entry per value.
 *
 * In the full layout a probe may also be coarse: it fixes only the top b - x
 * bits of the block, enumerated within the table's radius, and its range
 * covers the 2^x values below them; comparePartial still verifies every key
 * it passes.  GIN's scan visits every entry of the scan key for every
 * candidate row it emits, so at large radii fewer, wider probes are cheaper
 * than many narrow ones; and when even the cheapest plan costs more than one
 * partial match over the whole of table 0 (every key verified in the index),
 * that single probe is used instead.  The cost model of plan_full_probes()
 * counts keys read and entry visits per candidate, both proportional to the
 * table size, so the plan does not depend on it.  In the block layout, a
 * table whose
 * enumeration exceeds GIN_HAMMING_MAX_BLOCK_PROBES is read with one partial
 * match over its (at most 2^b) short keys, keeping those within the table's
 * radius.
 *
 * The heap operator <@ is exact, so the recheck (needed for the block
 * layout, for the dropped bits of the full layout, and on lossy bitmap
 * pages) always gives the right answer.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "nddup.h"

#include "access/gin.h"
#include "access/reloptions.h"
#include "access/stratnum.h"
#include "fmgr.h"
#include "port/pg_bitutils.h"
#include "utils/memutils.h"

PG_FUNCTION_INFO_V1(gin_hamming_extract_value);
PG_FUNCTION_INFO_V1(gin_hamming_extract_query);
PG_FUNCTION_INFO_V1(gin_hamming_compare_partial);
PG_FUNCTION_INFO_V1(gin_hamming_consistent);
PG_FUNCTION_INFO_V1(gin_hamming_triconsistent);
PG_FUNCTION_INFO_V1(gin_hamming_options);

/* strategy of simhash64 <@ hamming_ball in simhash64_gin_ops */
#define GIN_HAMMING_STRATEGY_IN_BALL	1

#define GIN_HAMMING_MIN_BLOCKS	2
#define GIN_HAMMING_MAX_BLOCKS	8
#define GIN_HAMMING_DEFAULT_BLOCKS	4

/* layouts (values of the "layout" option) */
#define GIN_HAMMING_LAYOUT_FULL		0
#define GIN_HAMMING_LAYOUT_BLOCK	1
#define GIN_HAMMING_DEFAULT_LAYOUT	GIN_HAMMING_LAYOUT_FULL

/* enumerations larger than this fall back to one scan of a whole table */
#define GIN_HAMMING_MAX_PROBES	16384

/*
 * Cost model of full-layout probes (plan_full_probes), per row of the table:
 * reading one key in a partial-match range costs 1, and GIN's visit of one
 * entry for one candidate row costs GIN_HAMMING_ENTRY_VISIT_COST.  Measured
 * on 1M rows (docs/reports/bench-hamming.md): the model predicts the time of radius
 * 16-19 queries relative to the whole-table probe within a factor 1.6.
 */
#define GIN_HAMMING_ENTRY_VISIT_COST	0.25

/*
 * Block layout: a table needing more exact probes than this is read with one
 * partial match over all its keys instead (at most 2^b short keys), because
 * GIN merges the entries of a scan key with a cost linear in their number
 * for every candidate row.
 */
#define GIN_HAMMING_MAX_BLOCK_PROBES	64

/* opclass options; starts with a varlena header */
typedef struct GinHammingOptions
{
	int32		vl_len_;
	int			blocks;
	int			layout;
} GinHammingOptions;

static relopt_enum_elt_def gin_hamming_layouts[] =
{
	{"full", GIN_HAMMING_LAYOUT_FULL},
	{"block", GIN_HAMMING_LAYOUT_BLOCK},
	{(const char *) NULL}
};

/* Derived geometry of one block count m. */
typedef struct GinHammingGeometry
{
	int			m;				/* number of blocks (tables) */
	int			tagbits;		/* T = ceil(log2 m) */
	int			bits[GIN_HAMMING_MAX_BLOCKS];	/* bits in block t */
	/* gather[p][x][u]: bits of block u contributed by byte p with value x */
	uint32		gather[8][256][GIN_HAMMING_MAX_BLOCKS];
} GinHammingGeometry;

struct GinHammingQuery;

/* What comparePartial needs about the table a probe belongs to. */
typedef struct GinHammingTable
{
	struct GinHammingQuery *query;
	int			shift;			/* low bits below tag|prefix in the key */
	int			coarse;			/* low block bits a probe leaves free (x) */
	int			check;			/* GIN_HAMMING_CHECK_* */
	int			radius;			/* block radius, GIN_HAMMING_CHECK_BLOCK */
	uint64		qkey;			/* query's key in this table */
} GinHammingTable;

/* what comparePartial checks within a probe's range */
#define GIN_HAMMING_CHECK_FULL		0	/* distance of the stored bits <= r */
#define GIN_HAMMING_CHECK_NONE		1	/* every key (heap verifies) */
#define GIN_HAMMING_CHECK_BLOCK		2	/* distance of the block <= radius */

/* The state of one query, shared by all its entries through extra_data. */
typedef struct GinHammingQuery
{
	int			radius;
	int			hint;			/* triConsistent: last entry not FALSE */
	GinHammingTable tables[GIN_HAMMING_MAX_BLOCKS];
} GinHammingQuery;

static GinHammingGeometry *geometries[GIN_HAMMING_MAX_BLOCKS + 1];

/* Geometry for m blocks, computed once per backend. */
static const GinHammingGeometry *
get_geometry(int m)
{
	GinHammingGeometry *g;

	if (m < GIN_HAMMING_MIN_BLOCKS || m > GIN_HAMMING_MAX_BLOCKS)
		elog(ERROR, "invalid number of blocks in simhash64_gin_ops: %d", m);
	if (geometries[m] != NULL)
		return geometries[m];

	g = MemoryContextAllocZero(TopMemoryContext, sizeof(GinHammingGeometry));
	g->m = m;
	g->tagbits = pg_ceil_log2_32((uint32) m);
	for (int t = 0; t < m; t++)
		g->bits[t] = (64 - t + m - 1) / m;

	/* bit j (0 = most significant) lands in block j % m at index j / m */
	for (int p = 0; p < 8; p++)
		for (int x = 0; x < 256; x++)
			for (int b = 0; b < 8; b++)
			{
				int			j = 8 * p + b;
				int			u = j % m;

				if (x & (0x80 >> b))
					g->gather[p][x][u] |= UINT32_C(1) << (g->bits[u] - 1 - j / m);
			}
	geometries[m] = g;
	return g;
}

/* Split a fingerprint into its m block values. */
static inline void
split_blocks(const GinHammingGeometry *g, uint64 fp, uint32 *blocks)
{
	for (int u = 0; u < g->m; u++)
		blocks[u] = 0;
	for (int p = 0; p < 8; p++)
	{
		const uint32 *row = g->gather[p][(fp >> (56 - 8 * p)) & 0xff];

		for (int u = 0; u < g->m; u++)
			blocks[u] |= row[u];
	}
}

/* P_t: the blocks concatenated starting with block t (a bit permutation). */
static inline uint64
permuted(const GinHammingGeometry *g, const uint32 *blocks, int t)
{
	uint64		acc = 0;

	for (int i = 0; i < g->m; i++)
	{
		int			u = (t + i) % g->m;

		acc = (acc << g->bits[u]) | blocks[u];
	}
	return acc;
}

/* The tag of table t in the top T bits of a key. */
static inline uint64
tag_bits(const GinHammingGeometry *g, int t)
{
	return (uint64) t << (64 - g->tagbits);
}

/* The full-layout key of a fingerprint in table t. */
static inline uint64
full_key(const GinHammingGeometry *g, const uint32 *blocks, int t)
{
	return tag_bits(g, t) | (permuted(g, blocks, t) >> g->tagbits);
}

/* The key (or probe lower bound) of block value v in table t. */
static inline uint64
prefix_key(const GinHammingGeometry *g, int t, uint64 v)
{
	return tag_bits(g, t) | (v << (64 - g->tagbits - g->bits[t]));
}

/* Read the opclass options, with defaults. */
static void
get_options(FunctionCallInfo fcinfo, int *blocks, int *layout)
{
	*blocks = GIN_HAMMING_DEFAULT_BLOCKS;
	*layout = GIN_HAMMING_DEFAULT_LAYOUT;
	if (PG_HAS_OPCLASS_OPTIONS())
	{
		GinHammingOptions *opts = (GinHammingOptions *) PG_GET_OPCLASS_OPTIONS();

		*blocks = opts->blocks;
		*layout = opts->layout;
	}
}

/* Number of b-bit values within d bits of a given one: sum C(b, i), i <= d. */
static double
ball_volume(int b, int d)
{
	double		sum = 0;
	double		c = 1;

	if (d < 0)
		return 0;
	if (d >= b)
		return ldexp(1.0, b);
	for (int i = 0; i <= d; i++)
	{
		sum += c;
		c = c * (b - i) / (i + 1);
	}
	return sum;
}

/*
 * Plan the probes of a full-layout query: for each table t probed at radius
 * tradius[t], the number of low block bits x a probe leaves free (coarse[t])
 * minimizing
 *
 *	2^x V(b - x, rho) / 2^b  +  ENTRY_VISIT_COST * p * V(b - x, rho)
 *
 * (keys read per row, plus entry visits per candidate row, with V the
 * volume of a Hamming ball and p the share of uniform rows within the radius
 * on the 64 - T stored bits).  Returns false when one partial match over
 * the whole of table 0, costing 1 + ENTRY_VISIT_COST * p, is cheaper, or the
 * probes would exceed GIN_HAMMING_MAX_PROBES; else sets *nprobes.
 */
static bool
plan_full_probes(const GinHammingGeometry *g, int radius, const int *tradius,
				 int *coarse, double *nprobes)
{
	double		p = ball_volume(64 - g->tagbits, radius) / ldexp(1.0, 64 - g->tagbits);
	double		total_cost = 0;

	*nprobes = 0;
	for (int t = 0; t < g->m; t++)
	{
		int			b = g->bits[t];
		double		best = -1;

		coarse[t] = 0;
		if (tradius[t] < 0)
			continue;
		for (int x = 0; x < b; x++)
		{
			double		v = ball_volume(b - x, tradius[t]);
			double		cost = ldexp(v, x - b) + GIN_HAMMING_ENTRY_VISIT_COST * p * v;

			if (best < 0 || cost < best)
			{
				best = cost;
				coarse[t] = x;
			}
		}
		total_cost += best;
		*nprobes += ball_volume(b - coarse[t], tradius[t]);
	}
	return total_cost < 1.0 + GIN_HAMMING_ENTRY_VISIT_COST * p &&
		*nprobes <= GIN_HAMMING_MAX_PROBES;
}

/* Options: blocks (2..8) and layout (full or block). */
Datum
gin_hamming_options(PG_FUNCTION_ARGS)
{
	local_relopts *relopts = (local_relopts *) PG_GETARG_POINTER(0);

	init_local_reloptions(relopts, sizeof(GinHammingOptions));
	add_local_int_reloption(relopts, "blocks",
							"number of blocks (index tables) the 64 bits are split into",
							GIN_HAMMING_DEFAULT_BLOCKS,
							GIN_HAMMING_MIN_BLOCKS, GIN_HAMMING_MAX_BLOCKS,
							offsetof(GinHammingOptions, blocks));
	add_local_enum_reloption(relopts, "layout",
							 "key layout: full (in-index verification) or block (short shared keys)",
							 gin_hamming_layouts, GIN_HAMMING_DEFAULT_LAYOUT,
							 "Valid values are \"full\" and \"block\".",
							 offsetof(GinHammingOptions, layout));
	PG_RETURN_VOID();
}

/* extractValue: one tagged key per table (Manku et al. 2007, s.3). */
Datum
gin_hamming_extract_value(PG_FUNCTION_ARGS)
{
	uint64		fp = PG_GETARG_SIMHASH64(0);
	int32	   *nkeys = (int32 *) PG_GETARG_POINTER(1);
	int			m,
				layout;
	const GinHammingGeometry *g;
	uint32		blocks[GIN_HAMMING_MAX_BLOCKS];
	Datum	   *keys;

	get_options(fcinfo, &m, &layout);
	g = get_geometry(m);
	split_blocks(g, fp, blocks);

	keys = (Datum *) palloc(sizeof(Datum) * m);
	for (int t = 0; t < m; t++)
	{
		uint64		key;

		if (layout == GIN_HAMMING_LAYOUT_FULL)
			key = full_key(g, blocks, t);
		else
			key = prefix_key(g, t, blocks[t]);
		keys[t] = Simhash64GetDatum(key);
	}
	*nkeys = m;
	PG_RETURN_POINTER(keys);
}

/*
 * extractQuery: the probes of multi-index hashing (Norouzi et al. 2012,
 * s.3): per table, every block value within the table's radius of the
 * query's block.
 */
Datum
gin_hamming_extract_query(PG_FUNCTION_ARGS)
{
	HammingBall *ball = (HammingBall *) PG_GETARG_POINTER(0);
	int32	   *nentries = (int32 *) PG_GETARG_POINTER(1);
	StrategyNumber strategy = PG_GETARG_UINT16(2);
	bool	  **pmatch = (bool **) PG_GETARG_POINTER(3);
	Pointer   **extra_data = (Pointer **) PG_GETARG_POINTER(4);
	int32	   *searchMode = (int32 *) PG_GETARG_POINTER(6);
	int			m,
				layout;
	const GinHammingGeometry *g;
	GinHammingQuery *query;
	uint32		qblocks[GIN_HAMMING_MAX_BLOCKS];
	int			order[GIN_HAMMING_MAX_BLOCKS];
	int			tradius[GIN_HAMMING_MAX_BLOCKS];
	int			coarse[GIN_HAMMING_MAX_BLOCKS] = {0};
	int			radius = ball->radius;
	int			d,
				s;
	double		nprobes = 0;
	Datum	   *entries;
	int			n = 0;

	if (strategy != GIN_HAMMING_STRATEGY_IN_BALL)
		elog(ERROR, "unrecognized strategy number: %d", strategy);

	/* GIN would drop matching rows at random: refuse rather than miss */
	if (GinFuzzySearchLimit > 0)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("simhash64_gin_ops cannot be used while gin_fuzzy_search_limit is set"),
				 errdetail("gin_fuzzy_search_limit = %d would silently drop rows within the Hamming radius.",
						   GinFuzzySearchLimit),
				 errhint("SET gin_fuzzy_search_limit = 0 for this query.")));

	/* a hand-made hamming_ball value may bypass the constructor's check */
	if (radius < 0 || radius > 64)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("Hamming radius %d is out of range", radius),
				 errhint("The radius must be between 0 and 64.")));

	get_options(fcinfo, &m, &layout);
	g = get_geometry(m);
	split_blocks(g, ball->center, qblocks);

	query = (GinHammingQuery *) palloc0(sizeof(GinHammingQuery));
	query->radius = radius;
	for (int t = 0; t < m; t++)
	{
		GinHammingTable *tab = &query->tables[t];

		tab->query = query;
		tab->shift = 64 - g->tagbits - g->bits[t];
		if (layout == GIN_HAMMING_LAYOUT_FULL)
		{
			tab->check = GIN_HAMMING_CHECK_FULL;
			tab->qkey = full_key(g, qblocks, t);
		}
		else
		{
			tab->check = GIN_HAMMING_CHECK_BLOCK;
			tab->qkey = prefix_key(g, t, qblocks[t]);
		}
	}

	/*
	 * Radius per table (Norouzi et al. 2012, Proposition 1): r = m*d + s;
	 * the s+1 smallest blocks are probed at radius d, the others at d-1.
	 * Blocks are sorted by size, smallest first; sizes differ by one at most
	 * and the larger blocks come first, so this is table order reversed.
	 */
	d = radius / m;
	s = radius % m;
	for (int i = 0; i < m; i++)
		order[i] = m - 1 - i;
	for (int i = 0; i < m; i++)
	{
		int			t = order[i];
		double		v;

		tradius[t] = (i <= s) ? d : d - 1;
		if (tradius[t] > g->bits[t])
			tradius[t] = g->bits[t];
		v = ball_volume(g->bits[t], tradius[t]);
		if (layout == GIN_HAMMING_LAYOUT_BLOCK && v > GIN_HAMMING_MAX_BLOCK_PROBES)
			v = 1;				/* one walk over the table's keys */
		nprobes += v;
	}

	if (layout == GIN_HAMMING_LAYOUT_FULL &&
		!plan_full_probes(g, radius, tradius, coarse, &nprobes))
	{
		/*
		 * Fallback: a single partial match over the whole of table 0, every
		 * key checked in the index (full layout) or on the heap (block).
		 */
		GinHammingTable *tab = &query->tables[0];

		tab->shift = 64 - g->tagbits;
		if (layout == GIN_HAMMING_LAYOUT_BLOCK)
			tab->check = GIN_HAMMING_CHECK_NONE;
		entries = (Datum *) palloc(sizeof(Datum));
		*pmatch = (bool *) palloc(sizeof(bool));
		*extra_data = (Pointer *) palloc(sizeof(Pointer));
		entries[0] = Simhash64GetDatum(tag_bits(g, 0));
		(*pmatch)[0] = true;
		(*extra_data)[0] = (Pointer) tab;
		*nentries = 1;
		*searchMode = GIN_SEARCH_MODE_DEFAULT;
		PG_RETURN_POINTER(entries);
	}

	entries = (Datum *) palloc(sizeof(Datum) * (int) nprobes);
	*pmatch = (bool *) palloc(sizeof(bool) * (int) nprobes);
	*extra_data = (Pointer *) palloc(sizeof(Pointer) * (int) nprobes);

	for (int t = 0; t < m; t++)
	{
		int			x = coarse[t];
		int			b = g->bits[t] - x; /* enumerated bits of the block */
		uint64		qtop = qblocks[t] >> x;

		if (tradius[t] < 0)
			continue;
		query->tables[t].coarse = x;
		query->tables[t].shift += x;

		/* block layout, many probes: walk the table's keys instead */
		if (layout == GIN_HAMMING_LAYOUT_BLOCK &&
			ball_volume(b, tradius[t]) > GIN_HAMMING_MAX_BLOCK_PROBES)
		{
			GinHammingTable *tab = &query->tables[t];

			tab->shift = 64 - g->tagbits;
			tab->radius = tradius[t];
			entries[n] = Simhash64GetDatum(tag_bits(g, t));
			(*pmatch)[n] = true;
			(*extra_data)[n] = (Pointer) tab;
			n++;
			continue;
		}

		/* every b-bit mask of weight k <= tradius[t], by Gosper's hack */
		for (int k = 0; k <= tradius[t]; k++)
		{
			uint64		mask = (UINT64_C(1) << k) - 1;

			while (mask < (UINT64_C(1) << b))
			{
				uint64		lowest;
				uint64		ripple;

				entries[n] = Simhash64GetDatum(prefix_key(g, t, (qtop ^ mask) << x));
				(*pmatch)[n] = (layout == GIN_HAMMING_LAYOUT_FULL);
				(*extra_data)[n] = (Pointer) &query->tables[t];
				n++;
				if (mask == 0)
					break;
				lowest = mask & -mask;
				ripple = mask + lowest;
				mask = (((ripple ^ mask) >> 2) / lowest) | ripple;
			}
		}
	}
	Assert(n <= (int) nprobes);
	*nentries = n;
	*searchMode = GIN_SEARCH_MODE_DEFAULT;
	PG_RETURN_POINTER(entries);
}

/*
 * comparePartial: within the probe's prefix, verify the Hamming distance on
 * the bits the key holds (full layout); >0 ends the range.
 */
Datum
gin_hamming_compare_partial(PG_FUNCTION_ARGS)
{
	uint64		partial = DatumGetSimhash64(PG_GETARG_DATUM(0));
	uint64		key = DatumGetSimhash64(PG_GETARG_DATUM(1));
	GinHammingTable *tab = (GinHammingTable *) PG_GETARG_POINTER(3);

	if (((partial ^ key) >> tab->shift) != 0)
		PG_RETURN_INT32(1);
	switch (tab->check)
	{
		case GIN_HAMMING_CHECK_NONE:
			PG_RETURN_INT32(0);
		case GIN_HAMMING_CHECK_BLOCK:
			/* key and qkey are tag | block | zeros */
			PG_RETURN_INT32(pg_popcount64(key ^ tab->qkey) <= tab->radius ? 0 : -1);
		default:
			/* tags are equal: the distance over the 64 - T stored bits */
			PG_RETURN_INT32(pg_popcount64(key ^ tab->qkey) <= tab->query->radius ? 0 : -1);
	}
}

/* consistent: a row matches when any probe found it; the heap rechecks. */
Datum
gin_hamming_consistent(PG_FUNCTION_ARGS)
{
	bool	   *check = (bool *) PG_GETARG_POINTER(0);
	int32		nkeys = PG_GETARG_INT32(3);
	bool	   *recheck = (bool *) PG_GETARG_POINTER(5);

	*recheck = true;
	for (int i = 0; i < nkeys; i++)
		if (check[i])
			PG_RETURN_BOOL(true);
	PG_RETURN_BOOL(false);
}

/*
 * triConsistent: FALSE when every probe is FALSE, else MAYBE.  GIN calls it
 * once per entry while it sets entries to FALSE one by one (startScanKey),
 * so the search resumes from the last entry found not FALSE: linear in all.
 */
Datum
gin_hamming_triconsistent(PG_FUNCTION_ARGS)
{
	GinTernaryValue *check = (GinTernaryValue *) PG_GETARG_POINTER(0);
	int32		nkeys = PG_GETARG_INT32(3);
	Pointer    *extra_data = (Pointer *) PG_GETARG_POINTER(4);
	GinHammingQuery *query;
	int			start;

	if (nkeys <= 0)
		PG_RETURN_GIN_TERNARY_VALUE(GIN_FALSE);
	query = ((GinHammingTable *) extra_data[0])->query;
	start = (query->hint >= 0 && query->hint < nkeys) ? query->hint : 0;
	for (int i = 0; i < nkeys; i++)
	{
		int			j = start + i;

		if (j >= nkeys)
			j -= nkeys;
		if (check[j] != GIN_FALSE)
		{
			query->hint = j;
			PG_RETURN_GIN_TERNARY_VALUE(GIN_MAYBE);
		}
	}
	PG_RETURN_GIN_TERNARY_VALUE(GIN_FALSE);
}
