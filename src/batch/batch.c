/*-------------------------------------------------------------------------
 *
 * batch.c
 *	  Batch near-duplicate detection as set-returning functions: all pairs
 *	  within a Hamming radius, similarity joins, union-find clustering and
 *	  incremental assignment of new rows to existing clusters.
 *
 * The pair finder is the batch form of the permuted-table method of Manku,
 * Jain and Das Sarma (WWW 2007, s.3; also the engineering wiki's "permutation
 * and prefix matching"): the 64 bits are cut into m blocks, m > k; two
 * fingerprints within k bits agree exactly on at least c = m - k blocks
 * (pigeonhole), so for every choice S of c blocks ("table") we sort the
 * fingerprints by the bits of S and compare only inside runs of equal
 * prefix.  A pair is reported by exactly one table: the one whose S is the
 * first c blocks (in block order) on which the pair agrees, a test on the
 * XOR of the two fingerprints, so no set of seen pairs is kept.  The layout
 * (m, hence C(m, c) tables) is chosen by a cost model (choose_layout).
 *
 * Equal fingerprints are grouped first (Broder et al. 1997, "identical
 * documents"): the tables hold each distinct fingerprint once and a found
 * pair of fingerprints expands into the cross product of their rows.
 *
 * Inputs are query texts run through SPI with the caller's privileges; the
 * rows arrive through a DestReceiver straight from the executor's slots.
 * While rows x bytes-per-row fits in work_mem everything stays in arrays;
 * beyond it hamming_pairs and hamming_join spill (the rows go to a
 * tuplestore, and each table is a tuplesort scanned run by run), and the
 * clustering functions, whose union-find must be in memory (Broder s.4),
 * stop with an error saying how much work_mem they need.
 *
 * Results go through a materialized tuplestore (InitMaterializedSRF), which
 * spills to disk beyond work_mem as well.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "nddup.h"
#include "distributed.h"

#include "access/htup_details.h"
#include "access/tupdesc.h"
#include "catalog/pg_operator_d.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "executor/tuptable.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "portability/instr_time.h"
#include "tcop/dest.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/plancache.h"
#include "utils/syscache.h"
#include "utils/tuplesort.h"
#include "utils/tuplestore.h"

PG_FUNCTION_INFO_V1(hamming_pairs_query);
PG_FUNCTION_INFO_V1(hamming_pairs_rel);
PG_FUNCTION_INFO_V1(hamming_join_query);
PG_FUNCTION_INFO_V1(hamming_clusters_query);
PG_FUNCTION_INFO_V1(hamming_clusters_rel);
PG_FUNCTION_INFO_V1(hamming_clusters_from_pairs);
PG_FUNCTION_INFO_V1(hamming_assign_query);

/* What a run computes. */
typedef enum BatchMode
{
	BATCH_PAIRS,				/* all pairs of one input */
	BATCH_JOIN,					/* pairs (a, b), a from side 0, b from side 1 */
	BATCH_CLUSTER,				/* connected components of the pair graph */
	BATCH_ASSIGN				/* side 1 rows joined to side 0's clusters */
} BatchMode;

/*
 * Peak bytes per input row of the in-memory path: the arrays (see the notes
 * at group_fingerprints and finish_clusters) plus what the allocator keeps
 * around them, as measured with VmHWM at 1M rows (docs/reports/bench-batch.md).
 * docs/batch.md quotes them.
 */
#define BYTES_PER_ROW_PAIRS		80
#define BYTES_PER_ROW_CLUSTER	96
#define BYTES_PER_ROW_ASSIGN	112
#define BYTES_PER_PAIR_INPUT	96	/* clusters_from_pairs, per (id1, id2) */

/*
 * Shares of work_mem on the spill path, whose structures live at the same
 * time: the store of the input rows (read once per table, from disk beyond
 * its share) a quarter, each table's tuplesort half; a run of rows sharing
 * a key takes what it needs (usually a few rows, at most work_mem / 17).
 */
#define SPILL_STORE_SHARE		4	/* work_mem / 4 */
#define SPILL_SORT_SHARE		2	/* work_mem / 2 */

/* Tables considered at most by the cost model (C(m, c) explodes with k). */
#define MAX_TABLES				250000.0

/*
 * Costs of the cost model, in nanoseconds, measured on the reference box
 * (docs/reports/bench-batch.md): a radix pass over 1M words is memory-bound, a
 * candidate is an XOR, a hardware popcount and a compare.
 */
#define COST_RADIX_PASS			5.5 /* one radix pass, per fingerprint */
#define COST_TABLE_SCAN			15.0	/* key build + run scan + gather */
#define COST_CANDIDATE			4.0 /* one candidate pair */
#define COST_SPILL_ROW			1500.0	/* tuplesort put + get, per row */

/* bestd of a group without an existing match (hamming_assign) */
#define NO_BEST					255

/* One layout of the permuted tables: m blocks, tables choose c of them. */
typedef struct Layout
{
	int			m;				/* number of blocks; 0 = compare all pairs */
	int			c;				/* blocks per table (m - k) */
	double		ntables;		/* C(m, c) */
	int			bsize[64];		/* bits of block b */
	int			bshift[64];		/* block b is (fp >> bshift) & low mask */
	uint64		blow[64];		/* low mask of bsize bits */
	uint64		bmask[64];		/* block b's bits in place */
	double		cost;			/* model cost, for the log */
} Layout;

/* A 16-byte record sorted by its key: (fingerprint or id, row number). */
typedef struct SortRec
{
	uint64		key;
	uint64		val;
} SortRec;

/* Everything one call works on. */
typedef struct BatchState
{
	BatchMode	mode;
	const char *fname;			/* SQL name, for messages */
	int			radius;
	bool		singletons;		/* clusters: report one-member clusters */
	bool		progress;		/* nddup.progress */
	int			force_blocks;	/* nddup.batch_blocks, 0 = cost model */
	Oid			simhash_oid;
	MemoryContext cxt;			/* all working memory */
	int64		mem_limit;		/* work_mem in bytes */
	int			bytes_per_row;
	bool		can_spill;

	/* input rows of the in-memory path */
	uint64		nrows;
	uint64		cap;
	uint64		nside0;			/* rows of side 0 (they come first) */
	uint64	   *fp;
	int64	   *id;
	int64	   *aux;			/* order key, or cluster id of side 0 */
	bool	   *auxnull;
	bool		has_aux;
	bool		over_limit;		/* no spill: only counting rows now */
	uint64		nskipped;		/* rows with a NULL id or fingerprint */

	/* the spill path */
	bool		spilled;
	Tuplestorestate *spill;
	TupleDesc	spilldesc;		/* (fp int8, id int8, side int4) */
	uint64		nspilled;

	/* groups of equal fingerprints */
	uint64		ndistinct;
	uint64	   *ufp;			/* distinct fingerprints, ascending */
	uint32	   *gstart;			/* rows of group g: grow[gstart[g]..[g+1]) */
	uint32	   *grow;			/* row numbers ordered by fingerprint */
	uint8	   *gflags;			/* bit 0: has side-0 rows, bit 1: side 1 */

	/* union-find over groups (clusters, assign) */
	uint32	   *parent;
	uint32	   *usize;

	/* assign: best existing match of each group, new-new edges */
	uint8	   *bestd;
	int64	   *bestc;
	int64	   *gminc;			/* smallest cluster id of side-0 rows */
	uint32	   *edges;
	uint64		nedges;
	uint64		edgecap;

	/* output */
	Tuplestorestate *out;
	TupleDesc	outdesc;
	uint64		nout;

	/* progress */
	int			next_pct;
	Layout		layout;
} BatchState;

/* A DestReceiver that stores the rows of an input query in a BatchState. */
typedef struct BatchReceiver
{
	DestReceiver pub;
	BatchState *st;
	int			side;
	NddupInputCols cols;		/* the input query's columns */
	/* clusters_from_pairs collects (id1, id2) here instead */
	bool		pairs_input;
	int64	   *p1;
	int64	   *p2;
	bool	   *pnull1;
	bool	   *pnull2;
	uint64		np;
	uint64		pcap;
} BatchReceiver;

/* ----------------------------------------------------------------
 *		Settings and messages
 * ----------------------------------------------------------------
 */

/* Reject a radius outside 0..64. */
static void
check_radius(int32 radius)
{
	if (radius < 0 || radius > 64)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("radius %d is out of range", radius),
				 errdetail("A Hamming radius of 64-bit fingerprints is between 0 and 64.")));
}

/* Progress or debug message, depending on nddup.progress. */
#define batch_log(st, ...) \
	ereport((st)->progress ? NOTICE : DEBUG1, \
			(errmsg_internal(__VA_ARGS__)))

/* Progress or debug message whose DETAIL is the time since the start. */
#define batch_log_time(st, ms, ...) \
	ereport((st)->progress ? NOTICE : DEBUG1, \
			(errmsg_internal(__VA_ARGS__), \
			 errdetail_internal("%.0f ms since the start.", (ms))))

/* Report progress every 10 % of the tables when nddup.progress is on. */
static void
report_progress(BatchState *st, double done, double total)
{
	int			pct;

	if (!st->progress || total <= 0)
		return;
	pct = (int) (100.0 * done / total);
	if (pct < st->next_pct)
		return;
	ereport(NOTICE,
			(errmsg_internal("%s: %d %% (table %.0f of %.0f), %llu result rows so far",
							 st->fname, pct - pct % 10, done, total,
							 (unsigned long long) st->nout)));
	st->next_pct = pct - pct % 10 + 10;
}

/* Error for a clustering input that does not fit in work_mem. */
static void
error_work_mem(BatchState *st, uint64 nrows, int bytes_per_row)
{
	double		need_kb = (double) nrows * bytes_per_row / 1024.0 + 1024.0;

	ereport(ERROR,
			(errcode(ERRCODE_OUT_OF_MEMORY),
			 errmsg("%s needs about %.0f MB of work_mem for %llu input rows, but work_mem is %d kB",
					st->fname, ceil(need_kb / 1024.0),
					(unsigned long long) nrows, work_mem),
			 errdetail("Its union-find structure is kept in memory, about %d bytes per input row.",
					   bytes_per_row),
			 errhint("Raise work_mem for this statement, for example SET LOCAL work_mem = '%.0fMB'.",
					 ceil(need_kb / 1024.0))));
}

/* ----------------------------------------------------------------
 *		Input rows
 * ----------------------------------------------------------------
 */

/* Start the spill path: rows go to a tuplestore from now on. */
static void
start_spill(BatchState *st)
{
	MemoryContext old = MemoryContextSwitchTo(st->cxt);
	TupleDesc	desc = CreateTemplateTupleDesc(3);
	Datum		values[3];
	bool		nulls[3] = {false, false, false};

	TupleDescInitEntry(desc, 1, "fp", INT8OID, -1, 0);
	TupleDescInitEntry(desc, 2, "id", INT8OID, -1, 0);
	TupleDescInitEntry(desc, 3, "side", INT4OID, -1, 0);
	st->spilldesc = desc;
	st->spill = tuplestore_begin_heap(false, false,
									  Max(work_mem / SPILL_STORE_SHARE, 64));
	for (uint64 r = 0; r < st->nrows; r++)
	{
		values[0] = Int64GetDatum((int64) st->fp[r]);
		values[1] = Int64GetDatum(st->id[r]);
		values[2] = Int32GetDatum(r < st->nside0 ? 0 : 1);
		tuplestore_putvalues(st->spill, desc, values, nulls);
	}
	st->nspilled = st->nrows;
	if (st->fp)
	{
		pfree(st->fp);
		pfree(st->id);
	}
	st->fp = NULL;
	st->id = NULL;
	st->nrows = st->cap = 0;
	st->spilled = true;
	MemoryContextSwitchTo(old);
	batch_log(st, "%s: input exceeds work_mem (%d kB), spilling to disk",
			  st->fname, work_mem);
}

/* Grow the row arrays, never beyond what work_mem allows. */
static void
grow_rows(BatchState *st)
{
	uint64		maxrows = Max((uint64) (st->mem_limit / st->bytes_per_row) + 1, 1024);
	uint64		newcap = Max(st->cap * 2, 1024);

	newcap = Min(newcap, maxrows);
	if (newcap > (uint64) PG_UINT32_MAX - 1)
		newcap = (uint64) PG_UINT32_MAX - 1;
	if (newcap <= st->cap)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s accepts at most %u rows in memory", st->fname,
						PG_UINT32_MAX - 1)));
	if (st->fp == NULL)
	{
		st->fp = MemoryContextAllocHuge(st->cxt, newcap * sizeof(uint64));
		st->id = MemoryContextAllocHuge(st->cxt, newcap * sizeof(int64));
		if (st->has_aux)
		{
			st->aux = MemoryContextAllocHuge(st->cxt, newcap * sizeof(int64));
			st->auxnull = MemoryContextAllocHuge(st->cxt, newcap * sizeof(bool));
		}
	}
	else
	{
		st->fp = repalloc_huge(st->fp, newcap * sizeof(uint64));
		st->id = repalloc_huge(st->id, newcap * sizeof(int64));
		if (st->has_aux)
		{
			st->aux = repalloc_huge(st->aux, newcap * sizeof(int64));
			st->auxnull = repalloc_huge(st->auxnull, newcap * sizeof(bool));
		}
	}
	st->cap = newcap;
}

/* Store one input row (in memory, in the spill store, or only count it). */
static inline void
add_row(BatchState *st, uint64 fp, int64 id, int64 aux, bool auxnull, int side)
{
	if (st->spilled)
	{
		Datum		values[3];
		bool		nulls[3] = {false, false, false};

		values[0] = Int64GetDatum((int64) fp);
		values[1] = Int64GetDatum(id);
		values[2] = Int32GetDatum(side);
		tuplestore_putvalues(st->spill, st->spilldesc, values, nulls);
		st->nspilled++;
		return;
	}
	if (st->over_limit)
	{
		st->nrows++;
		return;
	}
	if ((int64) (st->nrows + 1) * st->bytes_per_row > st->mem_limit &&
		st->nrows >= 1024)
	{
		if (st->can_spill)
		{
			start_spill(st);
			add_row(st, fp, id, aux, auxnull, side);
		}
		else
		{
			/* keep counting, so that the error can say how much is needed */
			st->over_limit = true;
			st->nrows++;
		}
		return;
	}
	if (st->nrows == st->cap)
		grow_rows(st);
	st->fp[st->nrows] = fp;
	st->id[st->nrows] = id;
	if (st->has_aux)
	{
		st->aux[st->nrows] = aux;
		st->auxnull[st->nrows] = auxnull;
	}
	st->nrows++;
	if (side == 0)
		st->nside0 = st->nrows;
}

/* DestReceiver callback: take one row of an input query. */
static bool
batch_receive(TupleTableSlot *slot, DestReceiver *self)
{
	BatchReceiver *r = (BatchReceiver *) self;
	BatchState *st = r->st;

	slot_getsomeattrs(slot, r->cols.natts);

	if (r->pairs_input)
	{
		bool		n1 = slot->tts_isnull[0];
		bool		n2 = slot->tts_isnull[1];

		if (n1 && n2)
		{
			st->nskipped++;
			return true;
		}
		if (st->over_limit)
		{
			r->np++;
			return true;
		}
		if (r->np == r->pcap)
		{
			uint64		maxpairs = Max((uint64) st->mem_limit / BYTES_PER_PAIR_INPUT, 1024);
			uint64		newcap = Min(Max(r->pcap * 2, 1024), maxpairs);

			if (newcap <= r->pcap || newcap >= (uint64) PG_INT32_MAX)
			{
				/* keep counting, so that the error can say what is needed */
				st->over_limit = true;
				r->np++;
				return true;
			}
			if (r->p1 == NULL)
			{
				r->p1 = MemoryContextAllocHuge(st->cxt, newcap * sizeof(int64));
				r->p2 = MemoryContextAllocHuge(st->cxt, newcap * sizeof(int64));
				r->pnull1 = MemoryContextAllocHuge(st->cxt, newcap * sizeof(bool));
				r->pnull2 = MemoryContextAllocHuge(st->cxt, newcap * sizeof(bool));
			}
			else
			{
				r->p1 = repalloc_huge(r->p1, newcap * sizeof(int64));
				r->p2 = repalloc_huge(r->p2, newcap * sizeof(int64));
				r->pnull1 = repalloc_huge(r->pnull1, newcap * sizeof(bool));
				r->pnull2 = repalloc_huge(r->pnull2, newcap * sizeof(bool));
			}
			r->pcap = newcap;
		}
		r->p1[r->np] = n1 ? 0 : nddup_datum_int64(slot->tts_values[0], r->cols.types[0]);
		r->p2[r->np] = n2 ? 0 : nddup_datum_int64(slot->tts_values[1], r->cols.types[1]);
		r->pnull1[r->np] = n1;
		r->pnull2[r->np] = n2;
		r->np++;
		return true;
	}

	if (slot->tts_isnull[0] || slot->tts_isnull[1])
	{
		st->nskipped++;
		return true;
	}
	else
	{
		int64		id = nddup_datum_int64(slot->tts_values[0], r->cols.types[0]);
		uint64		fp = DatumGetSimhash64(slot->tts_values[1]);
		int64		aux = 0;
		bool		auxnull = true;

		if (r->cols.natts >= 3 && !slot->tts_isnull[2])
		{
			aux = nddup_datum_int64(slot->tts_values[2], r->cols.types[2]);
			auxnull = false;
		}
		/* an existing row without a cluster is its own cluster */
		if (r->cols.natts >= 3 && r->cols.roles[2] == NDDUP_COL_CLUSTER && auxnull)
		{
			aux = id;
			auxnull = false;
		}
		add_row(st, fp, id, aux, auxnull, r->side);
	}
	return true;
}

/* Set up a receiver for one input side. */
static void
init_receiver(BatchReceiver *r, BatchState *st, int side)
{
	memset(r, 0, sizeof(*r));
	nddup_init_receiver(&r->pub, batch_receive);
	r->st = st;
	r->side = side;
}

/* Read one input query of (id, fp[, aux]) rows as side 'side'. */
static void
read_input(BatchState *st, const char *argname, const char *query,
		   const NddupColRole *roles, int nreq, int nroles, int side)
{
	BatchReceiver recv;
	SPIPlanPtr	plan;

	init_receiver(&recv, st, side);
	plan = nddup_prepare_input(st->fname, argname, query, roles, nreq, nroles,
							   st->simhash_oid, &recv.cols);
	if (recv.cols.natts >= 3)
		st->has_aux = true;
	if (st->has_aux && st->nrows > 0 && st->aux == NULL)
	{
		/* side 1 brings an aux column side 0 did not have */
		st->aux = MemoryContextAllocHuge(st->cxt, st->cap * sizeof(int64));
		st->auxnull = MemoryContextAllocHuge(st->cxt, st->cap * sizeof(bool));
		for (uint64 i = 0; i < st->nrows; i++)
			st->auxnull[i] = true;
	}
	nddup_run_input(plan, &recv.pub);
}

/* ----------------------------------------------------------------
 *		Radix sorts
 * ----------------------------------------------------------------
 */

/*
 * Sort 16-byte records by their 64-bit key (LSD radix, 8-bit digits, stable;
 * digits all keys share are skipped).  Returns a or tmp, whichever holds the
 * result.
 */
static SortRec *
radix_sort_recs(SortRec *a, SortRec *tmp, uint64 n)
{
	uint64	   *hist;
	SortRec    *src = a;
	SortRec    *dst = tmp;

	hist = palloc0(8 * 256 * sizeof(uint64));
	for (uint64 i = 0; i < n; i++)
	{
		uint64		k = a[i].key;

		for (int d = 0; d < 8; d++)
			hist[d * 256 + ((k >> (8 * d)) & 0xff)]++;
		if ((i & 0xfffff) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	for (int d = 0; d < 8; d++)
	{
		uint64	   *h = hist + d * 256;
		uint64		sum = 0;
		bool		trivial = false;

		for (int b = 0; b < 256; b++)
		{
			uint64		cnt = h[b];

			if (cnt == n)
				trivial = true;
			h[b] = sum;
			sum += cnt;
		}
		if (trivial)
			continue;
		CHECK_FOR_INTERRUPTS();
		for (uint64 i = 0; i < n; i++)
			dst[h[(src[i].key >> (8 * d)) & 0xff]++] = src[i];
		{
			SortRec    *t = src;

			src = dst;
			dst = t;
		}
	}
	pfree(hist);
	return src;
}

/* Quicksort of records by (key, row), PostgreSQL's sort template. */
#define ST_SORT sort_recs_qs
#define ST_ELEMENT_TYPE SortRec
#define ST_COMPARE(a, b) \
	((a)->key != (b)->key ? ((a)->key < (b)->key ? -1 : 1) : \
	 ((a)->val < (b)->val ? -1 : (a)->val > (b)->val ? 1 : 0))
#define ST_SCOPE static
#define ST_DEFINE
#include "lib/sort_template.h"

/*
 * Sort records of (fingerprint, row) by fingerprint, then row: one MSD radix
 * pass on the top bits spreads them into buckets of a few hundred records,
 * each of which is then sorted in cache.  Returns a or tmp.
 */
static SortRec *
sort_recs_by_fp(SortRec *a, SortRec *tmp, uint64 n)
{
	int			bits = 0;
	uint64	   *count;
	uint64		sum = 0;
	int			shift;

	while (bits < 12 && (n >> (bits + 8)) > 0)
		bits++;
	if (bits == 0)
	{
		sort_recs_qs(a, n);
		return a;
	}
	shift = 64 - bits;
	count = palloc0(sizeof(uint64) * ((1 << bits) + 1));
	for (uint64 i = 0; i < n; i++)
		count[a[i].key >> shift]++;
	for (int b = 0; b < (1 << bits); b++)
	{
		uint64		c = count[b];

		count[b] = sum;
		sum += c;
	}
	count[1 << bits] = n;
	CHECK_FOR_INTERRUPTS();
	for (uint64 i = 0; i < n; i++)
		tmp[count[a[i].key >> shift]++] = a[i];
	/* count[b] is now the end of bucket b */
	for (int b = 0; b < (1 << bits); b++)
	{
		uint64		start = b == 0 ? 0 : count[b - 1];

		if ((b & 63) == 0)
			CHECK_FOR_INTERRUPTS();
		if (count[b] - start > 1)
			sort_recs_qs(tmp + start, count[b] - start);
	}
	pfree(count);
	return tmp;
}

/*
 * Sort 64-bit words by their top 'bits' bits only (LSD radix, digits of at
 * most 11 bits); the order below is arbitrary.  Returns a or tmp.
 */
static uint64 *
radix_sort_top(uint64 *a, uint64 *tmp, uint64 n, int bits)
{
	uint64	   *src = a;
	uint64	   *dst = tmp;
	int			ndigits;
	int			width;
	uint64		count[2048];

	if (bits <= 0 || n < 2)
		return a;
	ndigits = (bits + 10) / 11;
	width = (bits + ndigits - 1) / ndigits;
	for (int d = 0; d < ndigits; d++)
	{
		int			shift = 64 - bits + d * width;
		int			w = Min(width, 64 - shift);
		uint64		mask = (UINT64CONST(1) << w) - 1;
		uint64		sum = 0;

		CHECK_FOR_INTERRUPTS();
		memset(count, 0, sizeof(uint64) << w);
		for (uint64 i = 0; i < n; i++)
			count[(src[i] >> shift) & mask]++;
		for (uint64 b = 0; b <= mask; b++)
		{
			uint64		c = count[b];

			count[b] = sum;
			sum += c;
		}
		for (uint64 i = 0; i < n; i++)
			dst[count[(src[i] >> shift) & mask]++] = src[i];
		{
			uint64	   *t = src;

			src = dst;
			dst = t;
		}
	}
	return src;
}

/* ----------------------------------------------------------------
 *		Layouts and the cost model
 * ----------------------------------------------------------------
 */

/* Binomial coefficient as a double. */
static double
binom(int n, int r)
{
	double		result = 1;

	if (r < 0 || r > n)
		return 0;
	for (int i = 1; i <= r; i++)
		result = result * (n - r + i) / i;
	return result;
}

/* Fill a layout of m blocks (the first 64 mod m one bit wider) for radius k. */
static void
make_layout(Layout *L, int m, int k)
{
	int			small = 64 / m;
	int			nbig = 64 % m;
	int			pos = 0;		/* bits used from the top */

	L->m = m;
	L->c = m - k;
	L->ntables = binom(m, L->c);
	for (int b = 0; b < m; b++)
	{
		int			size = small + (b < nbig ? 1 : 0);

		L->bsize[b] = size;
		L->bshift[b] = 64 - pos - size;
		L->blow[b] = size >= 64 ? ~UINT64CONST(0) : (UINT64CONST(1) << size) - 1;
		L->bmask[b] = L->blow[b] << L->bshift[b];
		pos += size;
	}
}

/*
 * Model cost of the tables of one layout over n distinct fingerprints
 * (Manku s.3: a table with a p-bit prefix leaves about n^2 / 2^(p+1)
 * candidate pairs among uniform fingerprints, hamming-search-math.md).  The
 * prefix of a table depends on how many of its c blocks are the wider ones;
 * in memory it is cut to the bits left beside the row number.
 */
static double
layout_cost(const Layout *L, double n, bool spill, int maxprefix)
{
	int			small = 64 / L->m;
	int			nbig = 64 % L->m;
	double		cost = 0;

	for (int j = 0; j <= Min(nbig, L->c); j++)
	{
		double		tables = binom(nbig, j) * binom(L->m - nbig, L->c - j);
		int			p = j * (small + 1) + (L->c - j) * small;
		double		per;

		if (tables <= 0)
			continue;
		p = Min(p, maxprefix);
		if (spill)
			per = n * COST_SPILL_ROW;
		else
			per = n * (COST_RADIX_PASS * ((p + 10) / 11) + COST_TABLE_SCAN);
		per += n * n / 2.0 / pow(2.0, p) * COST_CANDIDATE;
		cost += tables * per;
	}
	return cost;
}

/*
 * Choose the layout for radius k over n distinct fingerprints: every m from
 * k + 1 to 64 (tables choose m - k blocks, Manku s.3) against comparing all
 * pairs (m = 0), cheapest by the model.  nddup.batch_blocks forces m.
 */
static void
choose_layout(BatchState *st, Layout *L, int k, double n, bool spill,
			  int maxprefix)
{
	double		best = n * n / 2.0 * COST_CANDIDATE + n;
	int			bestm = 0;

	if (st->force_blocks != 0)
	{
		if (st->force_blocks <= k || st->force_blocks > 64)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("nddup.batch_blocks must be between the radius + 1 and 64, or 0"),
					 errdetail("It is %d and the radius is %d.", st->force_blocks, k)));
		make_layout(L, st->force_blocks, k);
		L->cost = layout_cost(L, n, spill, maxprefix);
		return;
	}
	if (k == 0)
	{
		make_layout(L, 1, 0);
		L->cost = n;
		return;
	}
	for (int m = k + 1; m <= 64; m++)
	{
		Layout		cand;
		double		cost;

		if (binom(m, m - k) > MAX_TABLES)
			continue;
		make_layout(&cand, m, k);
		cost = layout_cost(&cand, n, spill, maxprefix);
		if (cost < best)
		{
			best = cost;
			bestm = m;
		}
	}
	/* the spill path keeps runs in memory: never one run of everything */
	if (bestm == 0 && spill && k < 64)
	{
		best = -1;
		for (int m = k + 1; m <= 64; m++)
		{
			Layout		cand;
			double		cost;

			if (binom(m, m - k) > MAX_TABLES)
				continue;
			make_layout(&cand, m, k);
			cost = layout_cost(&cand, n, spill, maxprefix);
			if (best < 0 || cost < best)
			{
				best = cost;
				bestm = m;
			}
		}
	}
	if (bestm == 0)
	{
		memset(L, 0, sizeof(*L));
		L->m = 0;
		L->c = 0;
		L->ntables = 1;
		L->cost = best;
		return;
	}
	make_layout(L, bestm, k);
	L->cost = best;
}

/* First table (combination of c blocks out of m, ascending). */
static void
first_table(const Layout *L, int *sel)
{
	for (int i = 0; i < L->c; i++)
		sel[i] = i;
}

/* Advance to the next combination; false after the last one. */
static bool
next_table(const Layout *L, int *sel)
{
	int			i;

	for (i = L->c - 1; i >= 0; i--)
	{
		if (sel[i] < L->m - L->c + i)
			break;
	}
	if (i < 0)
		return false;
	sel[i]++;
	for (int j = i + 1; j < L->c; j++)
		sel[j] = sel[j - 1] + 1;
	return true;
}

/* Bit set of the blocks of a table. */
static uint64
table_blockset(const Layout *L, const int *sel)
{
	uint64		set = 0;

	for (int i = 0; i < L->c; i++)
		set |= UINT64CONST(1) << sel[i];
	return set;
}

/* Prefix bits of a table. */
static int
table_prefix_bits(const Layout *L, const int *sel)
{
	int			p = 0;

	for (int i = 0; i < L->c; i++)
		p += L->bsize[sel[i]];
	return p;
}

/* The concatenated bits of the table's blocks (the permuted prefix). */
static inline uint64
table_key(const Layout *L, const int *sel, uint64 fp)
{
	uint64		key = 0;

	if (L->m == 1)
		return fp;
	for (int i = 0; i < L->c; i++)
	{
		int			b = sel[i];

		key = (key << L->bsize[b]) | ((fp >> L->bshift[b]) & L->blow[b]);
	}
	return key;
}

/*
 * Does the table with block set 'set' own the pair whose XOR is x?  It does
 * when its blocks are the first c blocks on which the pair agrees; then no
 * other table reports the pair (each pair once, without a set of seen
 * pairs).  The caller has checked popcount(x) <= k, so at least c blocks
 * agree (pigeonhole, Manku s.3).
 */
static inline bool
table_owns_pair(const Layout *L, uint64 set, uint64 x)
{
	int			found = 0;

	for (int b = 0; b < L->m && found < L->c; b++)
	{
		if ((x & L->bmask[b]) == 0)
		{
			if ((set & (UINT64CONST(1) << b)) == 0)
				return false;
			found++;
		}
	}
	return found == L->c;
}

/* ----------------------------------------------------------------
 *		Output
 * ----------------------------------------------------------------
 */

/* Append (a, b, distance) to the result. */
static inline void
put_triple(BatchState *st, int64 a, int64 b, int d)
{
	Datum		values[3];
	bool		nulls[3] = {false, false, false};

	values[0] = Int64GetDatum(a);
	values[1] = Int64GetDatum(b);
	values[2] = Int32GetDatum(d);
	tuplestore_putvalues(st->out, st->outdesc, values, nulls);
	st->nout++;
}

/* Append (id, cluster_id) to the result. */
static inline void
put_cluster(BatchState *st, int64 id, int64 cluster)
{
	Datum		values[2];
	bool		nulls[2] = {false, false};

	values[0] = Int64GetDatum(id);
	values[1] = Int64GetDatum(cluster);
	tuplestore_putvalues(st->out, st->outdesc, values, nulls);
	st->nout++;
}

/* Emit a pair of input rows for hamming_pairs: smaller id first. */
static inline void
emit_row_pair(BatchState *st, int64 a, int64 b, int d)
{
	if (a <= b)
		put_triple(st, a, b, d);
	else
		put_triple(st, b, a, d);
}

/* ----------------------------------------------------------------
 *		Union-find (Broder et al. 1997 s.4: components are the clusters)
 * ----------------------------------------------------------------
 */

/* Allocate a union-find of n singletons. */
static void
uf_init(BatchState *st, uint64 n)
{
	st->parent = MemoryContextAllocHuge(st->cxt, Max(n, 1) * sizeof(uint32));
	st->usize = MemoryContextAllocHuge(st->cxt, Max(n, 1) * sizeof(uint32));
	for (uint64 i = 0; i < n; i++)
	{
		st->parent[i] = (uint32) i;
		st->usize[i] = 1;
	}
}

/* ----------------------------------------------------------------
 *		The in-memory path
 * ----------------------------------------------------------------
 */

/*
 * Group rows by fingerprint (Broder's identical-documents step): ufp gets
 * the distinct fingerprints, grow the row numbers in fingerprint order
 * (input order inside a group, so side-0 rows first).  Peak memory: id 8 +
 * records 16 + sort buffer 16 bytes per row (the fingerprint array is freed
 * on the way), under BYTES_PER_ROW_PAIRS.
 */
static void
group_fingerprints(BatchState *st)
{
	uint64		n = st->nrows;
	SortRec    *recs;
	SortRec    *tmp;
	SortRec    *sorted;
	uint64		d = 0;
	MemoryContext old = MemoryContextSwitchTo(st->cxt);

	recs = palloc_extended(Max(n, 1) * sizeof(SortRec), MCXT_ALLOC_HUGE);
	for (uint64 i = 0; i < n; i++)
	{
		recs[i].key = st->fp[i];
		recs[i].val = i;
	}
	if (st->fp)
		pfree(st->fp);
	st->fp = NULL;
	tmp = palloc_extended(Max(n, 1) * sizeof(SortRec), MCXT_ALLOC_HUGE);
	sorted = sort_recs_by_fp(recs, tmp, n);
	pfree(sorted == recs ? tmp : recs);

	for (uint64 i = 0; i < n; i++)
		if (i == 0 || sorted[i].key != sorted[i - 1].key)
			d++;
	st->ndistinct = d;
	st->ufp = palloc_extended(Max(d, 1) * sizeof(uint64), MCXT_ALLOC_HUGE);
	st->gstart = palloc_extended((d + 1) * sizeof(uint32), MCXT_ALLOC_HUGE);
	st->grow = palloc_extended(Max(n, 1) * sizeof(uint32), MCXT_ALLOC_HUGE);
	st->gflags = palloc_extended(Max(d, 1), MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	d = 0;
	for (uint64 i = 0; i < n; i++)
	{
		if (i == 0 || sorted[i].key != sorted[i - 1].key)
		{
			st->ufp[d] = sorted[i].key;
			st->gstart[d] = (uint32) i;
			d++;
		}
		st->grow[i] = (uint32) sorted[i].val;
		st->gflags[d - 1] |= (sorted[i].val < st->nside0) ? 1 : 2;
	}
	st->gstart[d] = (uint32) n;
	pfree(sorted);
	MemoryContextSwitchTo(old);
}

/* Note an edge between groups u and v for hamming_assign. */
static void
assign_edge(BatchState *st, uint32 u, uint32 v)
{
	if (st->nedges == st->edgecap)
	{
		uint64		newcap = Max(st->edgecap * 2, 4096);

		if ((int64) newcap * 2 * sizeof(uint32) > st->mem_limit)
			newcap = Max((uint64) st->mem_limit / (2 * sizeof(uint32)),
						 st->edgecap + 1);
		if ((int64) (st->nedges + 1) * 2 * sizeof(uint32) > st->mem_limit)
			ereport(ERROR,
					(errcode(ERRCODE_OUT_OF_MEMORY),
					 errmsg("%s found more than %llu pairs among the new rows, more than work_mem (%d kB) holds",
							st->fname, (unsigned long long) st->nedges, work_mem),
					 errhint("Raise work_mem, or lower the radius.")));
		if (st->edges == NULL)
			st->edges = MemoryContextAllocHuge(st->cxt, newcap * 2 * sizeof(uint32));
		else
			st->edges = repalloc_huge(st->edges, newcap * 2 * sizeof(uint32));
		st->edgecap = newcap;
	}
	st->edges[2 * st->nedges] = u;
	st->edges[2 * st->nedges + 1] = v;
	st->nedges++;
}

/* hamming_assign: group v (new rows) is at distance d of group u's rows. */
static inline void
assign_match(BatchState *st, uint32 u, uint32 v, int d)
{
	int64		c = st->gminc[u];

	if (d < st->bestd[v] || (d == st->bestd[v] && c < st->bestc[v]))
	{
		st->bestd[v] = (uint8) d;
		st->bestc[v] = c;
	}
}

/*
 * Two distinct fingerprint groups u and v are within the radius (distance
 * d): expand them into result rows, or record what the mode needs.
 */
static void
handle_group_pair(BatchState *st, uint32 u, uint32 v, int d)
{
	switch (st->mode)
	{
		case BATCH_PAIRS:
			for (uint32 i = st->gstart[u]; i < st->gstart[u + 1]; i++)
			{
				int64		a = st->id[st->grow[i]];

				CHECK_FOR_INTERRUPTS();
				for (uint32 j = st->gstart[v]; j < st->gstart[v + 1]; j++)
					emit_row_pair(st, a, st->id[st->grow[j]], d);
			}
			break;
		case BATCH_JOIN:
			for (int swap = 0; swap < 2; swap++)
			{
				uint32		x = swap ? v : u;
				uint32		y = swap ? u : v;

				if (!(st->gflags[x] & 1) || !(st->gflags[y] & 2))
					continue;
				for (uint32 i = st->gstart[x]; i < st->gstart[x + 1]; i++)
				{
					uint32		ri = st->grow[i];

					if (ri >= st->nside0)
						break;	/* side-0 rows come first in a group */
					CHECK_FOR_INTERRUPTS();
					for (uint32 j = st->gstart[y]; j < st->gstart[y + 1]; j++)
					{
						uint32		rj = st->grow[j];

						if (rj >= st->nside0)
							put_triple(st, st->id[ri], st->id[rj], d);
					}
				}
			}
			break;
		case BATCH_CLUSTER:
			nddup_uf_union(st->parent, st->usize, u, v);
			break;
		case BATCH_ASSIGN:
			if ((st->gflags[u] & 1) && (st->gflags[v] & 2))
				assign_match(st, u, v, d);
			if ((st->gflags[v] & 1) && (st->gflags[u] & 2))
				assign_match(st, v, u, d);
			if ((st->gflags[u] & 2) && (st->gflags[v] & 2))
				assign_edge(st, u, v);
			break;
	}
}

/* Pairs inside one group of equal fingerprints (distance 0). */
static void
handle_identical(BatchState *st, uint32 g)
{
	uint32		lo = st->gstart[g];
	uint32		hi = st->gstart[g + 1];

	switch (st->mode)
	{
		case BATCH_PAIRS:
			for (uint32 i = lo; i < hi; i++)
			{
				int64		a = st->id[st->grow[i]];

				CHECK_FOR_INTERRUPTS();
				for (uint32 j = i + 1; j < hi; j++)
					emit_row_pair(st, a, st->id[st->grow[j]], 0);
			}
			break;
		case BATCH_JOIN:
			if (st->gflags[g] != 3)
				break;
			for (uint32 i = lo; i < hi && st->grow[i] < st->nside0; i++)
			{
				CHECK_FOR_INTERRUPTS();
				for (uint32 j = i + 1; j < hi; j++)
					if (st->grow[j] >= st->nside0)
						put_triple(st, st->id[st->grow[i]],
								   st->id[st->grow[j]], 0);
			}
			break;
		case BATCH_CLUSTER:
			break;				/* the group is one union-find node */
		case BATCH_ASSIGN:
			if (st->gflags[g] == 3)
				assign_match(st, g, g, 0);
			break;
	}
}

/*
 * Compare all pairs inside one run of fingerprints sharing the table's
 * prefix; f[i] is the fingerprint of group ix[i].
 */
static pg_attribute_always_inline void
scan_run_body(BatchState *st, const Layout *L, uint64 set,
			  const uint64 *f, const uint32 *ix, uint32 len)
{
	int			k = st->radius;
	bool		cross = (st->mode == BATCH_JOIN || st->mode == BATCH_ASSIGN);

	for (uint32 a = 0; a + 1 < len; a++)
	{
		uint64		fa = f[a];

		if ((a & 63) == 0)
			CHECK_FOR_INTERRUPTS();
		if (cross)
		{
			uint8		ga = st->gflags[ix[a]];

			for (uint32 b = a + 1; b < len; b++)
			{
				uint64		x = fa ^ f[b];
				uint8		gb;
				int			dist;

				if (__builtin_popcountll(x) > k)
					continue;
				gb = st->gflags[ix[b]];
				/* join: one side each way; assign: anything with new rows */
				if (st->mode == BATCH_JOIN
					? !(((ga & 1) && (gb & 2)) || ((ga & 2) && (gb & 1)))
					: !((ga | gb) & 2))
					continue;
				if (L->m > 0 && !table_owns_pair(L, set, x))
					continue;
				dist = __builtin_popcountll(x);
				handle_group_pair(st, ix[a], ix[b], dist);
			}
		}
		else
		{
			for (uint32 b = a + 1; b < len; b++)
			{
				uint64		x = fa ^ f[b];

				if (__builtin_popcountll(x) > k)
					continue;
				if (L->m > 0 && st->mode != BATCH_CLUSTER &&
					!table_owns_pair(L, set, x))
					continue;
				handle_group_pair(st, ix[a], ix[b], __builtin_popcountll(x));
			}
		}
	}
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define BATCH_POPCNT_DISPATCH 1

/* scan_run compiled for the POPCNT instruction. */
__attribute__((target("popcnt")))
static void
scan_run_popcnt(BatchState *st, const Layout *L, uint64 set,
				const uint64 *f, const uint32 *ix, uint32 len)
{
	scan_run_body(st, L, set, f, ix, len);
}
#endif

/* scan_run for any CPU (popcount in software). */
static void
scan_run_generic(BatchState *st, const Layout *L, uint64 set,
				 const uint64 *f, const uint32 *ix, uint32 len)
{
	scan_run_body(st, L, set, f, ix, len);
}

/*
 * Compare all pairs of a run, with the hardware popcount when the CPU has
 * one (the build does not assume it: -mpopcnt is not in the flags).
 */
static void
scan_run(BatchState *st, const Layout *L, uint64 set,
		 const uint64 *f, const uint32 *ix, uint32 len)
{
#ifdef BATCH_POPCNT_DISPATCH
	static int	have_popcnt = -1;

	if (have_popcnt < 0)
		have_popcnt = __builtin_cpu_supports("popcnt") ? 1 : 0;
	if (have_popcnt)
	{
		scan_run_popcnt(st, L, set, f, ix, len);
		return;
	}
#endif
	scan_run_generic(st, L, set, f, ix, len);
}

/*
 * The tables over the distinct fingerprints (Manku s.3, batch form): for
 * each table build words (prefix << (64 - p)) | group number, sort them by
 * the prefix, and compare inside every run of equal prefix.
 */
static void
run_tables_memory(BatchState *st)
{
	uint64		d = st->ndistinct;
	Layout	   *L = &st->layout;
	int			idxbits;
	int			maxprefix;
	uint64		idxmask;
	uint64	   *w;
	uint64	   *tmp;
	uint64	   *fbuf = NULL;
	uint32	   *ibuf = NULL;
	uint64		bufcap = 0;
	int			sel[64];
	double		tno = 0;

	/* distance 0: the groups themselves */
	for (uint64 g = 0; g < d; g++)
	{
		if ((g & 0xffff) == 0)
			CHECK_FOR_INTERRUPTS();
		if (st->gstart[g + 1] - st->gstart[g] > 1)
			handle_identical(st, (uint32) g);
	}
	if (st->radius == 0 || d < 2)
		return;

	idxbits = 64 - __builtin_clzll(d - 1);
	maxprefix = 64 - idxbits;
	idxmask = (UINT64CONST(1) << idxbits) - 1;
	choose_layout(st, L, st->radius, (double) d, false, maxprefix);
	batch_log(st, "%s: %llu rows, %llu distinct fingerprints, radius %d: %s%d blocks, %.0f tables, in memory",
			  st->fname, (unsigned long long) st->nrows,
			  (unsigned long long) d, st->radius,
			  L->m == 0 ? "all pairs compared, " : "", L->m, L->ntables);

	if (L->m == 0)
	{
		/* one run holding everything: compare all pairs */
		uint32	   *ix = MemoryContextAllocHuge(st->cxt, d * sizeof(uint32));

		for (uint64 i = 0; i < d; i++)
			ix[i] = (uint32) i;
		scan_run(st, L, 0, st->ufp, ix, (uint32) d);
		pfree(ix);
		return;
	}

	w = MemoryContextAllocHuge(st->cxt, d * sizeof(uint64));
	tmp = MemoryContextAllocHuge(st->cxt, d * sizeof(uint64));
	first_table(L, sel);
	do
	{
		int			p = table_prefix_bits(L, sel);
		int			peff = Min(p, maxprefix);
		uint64		set = table_blockset(L, sel);
		uint64	   *sorted;
		uint64		i;

		CHECK_FOR_INTERRUPTS();
		for (i = 0; i < d; i++)
		{
			uint64		key = table_key(L, sel, st->ufp[i]) >> (p - peff);

			w[i] = (peff > 0 ? key << (64 - peff) : 0) | i;
		}
		sorted = radix_sort_top(w, tmp, d, peff);

		i = 0;
		while (i < d)
		{
			uint64		pre = sorted[i] & ~idxmask;
			uint64		j = i + 1;

			while (j < d && (sorted[j] & ~idxmask) == pre)
				j++;
			if (j - i > 1)
			{
				uint64		len = j - i;

				if (len > bufcap)
				{
					bufcap = Max(len, bufcap * 2);
					if (fbuf)
					{
						pfree(fbuf);
						pfree(ibuf);
					}
					fbuf = MemoryContextAllocHuge(st->cxt, bufcap * sizeof(uint64));
					ibuf = MemoryContextAllocHuge(st->cxt, bufcap * sizeof(uint32));
				}
				for (uint64 r = 0; r < len; r++)
				{
					uint32		g = (uint32) (sorted[i + r] & idxmask);

					ibuf[r] = g;
					fbuf[r] = st->ufp[g];
				}
				scan_run(st, L, set, fbuf, ibuf, (uint32) len);
			}
			else if ((i & 0xffff) == 0)
				CHECK_FOR_INTERRUPTS();
			i = j;
		}
		tno++;
		report_progress(st, tno, L->ntables);
	} while (next_table(L, sel));

	pfree(w);
	pfree(tmp);
	if (fbuf)
	{
		pfree(fbuf);
		pfree(ibuf);
	}
}

/* ----------------------------------------------------------------
 *		The spill path (hamming_pairs, hamming_join beyond work_mem)
 * ----------------------------------------------------------------
 */

/* Compare all pairs of rows inside one run of the spill path. */
static void
spill_scan_run(BatchState *st, const Layout *L, uint64 set,
			   const uint64 *f, const int64 *ids, const uint8 *side,
			   uint64 len)
{
	int			k = st->radius;

	for (uint64 a = 0; a + 1 < len; a++)
	{
		CHECK_FOR_INTERRUPTS();
		for (uint64 b = a + 1; b < len; b++)
		{
			uint64		x = f[a] ^ f[b];
			int			dist = __builtin_popcountll(x);

			if (dist > k)
				continue;
			if (st->mode == BATCH_JOIN && side[a] == side[b])
				continue;
			if (L->m > 0 && !table_owns_pair(L, set, x))
				continue;
			if (st->mode == BATCH_JOIN)
			{
				if (side[a] == 0)
					put_triple(st, ids[a], ids[b], dist);
				else
					put_triple(st, ids[b], ids[a], dist);
			}
			else
				emit_row_pair(st, ids[a], ids[b], dist);
		}
	}
}

/*
 * The tables when the input exceeds work_mem: per table, every spilled row
 * goes into a tuplesort keyed by the table's prefix (which spills to disk
 * itself), and the sorted stream is cut into runs of equal prefix; a run is
 * held in memory while it is compared (the wiki's map-reduce: map to
 * (table, prefix), reduce per bucket).
 */
static void
run_tables_spill(BatchState *st)
{
	Layout	   *L = &st->layout;
	TupleDesc	sortdesc;
	TupleTableSlot *inslot;
	TupleTableSlot *sslot;
	AttrNumber	attno = 1;
	Oid			sortop = Int8LessOperator;
	Oid			coll = InvalidOid;
	bool		nullsfirst = false;
	uint64	   *f = NULL;
	int64	   *ids = NULL;
	uint8	   *side = NULL;
	uint64		cap = 0;
	uint64		maxrun = Max((uint64) st->mem_limit / 17, 1024);
	int			sel[64];
	double		tno = 0;
	MemoryContext old = MemoryContextSwitchTo(st->cxt);

	choose_layout(st, L, st->radius, (double) st->nspilled, true, 64);
	batch_log(st, "%s: %llu rows, radius %d: %d blocks, %.0f tables, spilling (work_mem %d kB)",
			  st->fname, (unsigned long long) st->nspilled, st->radius,
			  L->m, L->ntables, work_mem);

	sortdesc = CreateTemplateTupleDesc(4);
	TupleDescInitEntry(sortdesc, 1, "key", INT8OID, -1, 0);
	TupleDescInitEntry(sortdesc, 2, "fp", INT8OID, -1, 0);
	TupleDescInitEntry(sortdesc, 3, "id", INT8OID, -1, 0);
	TupleDescInitEntry(sortdesc, 4, "side", INT4OID, -1, 0);
	inslot = MakeSingleTupleTableSlot(st->spilldesc, &TTSOpsMinimalTuple);
	sslot = MakeSingleTupleTableSlot(sortdesc, &TTSOpsMinimalTuple);

	if (L->m == 0)
	{
		/* one run with every row (only at radius 64) */
		memset(sel, 0, sizeof(sel));
	}
	first_table(L, sel);
	do
	{
		Tuplesortstate *ts;
		uint64		set = L->m > 0 ? table_blockset(L, sel) : 0;
		uint64		len = 0;
		int64		runkey = 0;

		ts = tuplesort_begin_heap(sortdesc, 1, &attno, &sortop, &coll,
								  &nullsfirst, Max(work_mem / SPILL_SORT_SHARE, 64),
								  NULL, TUPLESORT_NONE);
		tuplestore_rescan(st->spill);
		while (tuplestore_gettupleslot(st->spill, true, false, inslot))
		{
			bool		isnull;
			uint64		fp = (uint64) DatumGetInt64(slot_getattr(inslot, 1, &isnull));

			CHECK_FOR_INTERRUPTS();
			ExecClearTuple(sslot);
			sslot->tts_values[0] = Int64GetDatum(L->m > 0 ? (int64) table_key(L, sel, fp) : 0);
			sslot->tts_values[1] = Int64GetDatum((int64) fp);
			sslot->tts_values[2] = slot_getattr(inslot, 2, &isnull);
			sslot->tts_values[3] = slot_getattr(inslot, 3, &isnull);
			memset(sslot->tts_isnull, 0, 4 * sizeof(bool));
			ExecStoreVirtualTuple(sslot);
			tuplesort_puttupleslot(ts, sslot);
		}
		tuplesort_performsort(ts);

		for (;;)
		{
			bool		more = tuplesort_gettupleslot(ts, true, false, sslot, NULL);
			bool		isnull;
			int64		key = 0;

			if (more)
				key = DatumGetInt64(slot_getattr(sslot, 1, &isnull));
			if (!more || (len > 0 && key != runkey))
			{
				if (len > 1)
					spill_scan_run(st, L, set, f, ids, side, len);
				len = 0;
			}
			if (!more)
				break;
			CHECK_FOR_INTERRUPTS();
			runkey = key;
			if (len == cap)
			{
				if (len >= maxrun)
					ereport(ERROR,
							(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
							 errmsg("%s: more than %llu rows share the key of one table, more than work_mem (%d kB) holds",
									st->fname, (unsigned long long) len, work_mem),
							 errdetail("The rows of one key (%d of the %d blocks of the fingerprint) are compared with each other in memory.",
									   L->c, L->m),
							 errhint("Raise work_mem.")));
				cap = Min(Max(cap * 2, 1024), maxrun);
				if (f == NULL)
				{
					f = palloc_extended(cap * sizeof(uint64), MCXT_ALLOC_HUGE);
					ids = palloc_extended(cap * sizeof(int64), MCXT_ALLOC_HUGE);
					side = palloc_extended(cap, MCXT_ALLOC_HUGE);
				}
				else
				{
					f = repalloc_huge(f, cap * sizeof(uint64));
					ids = repalloc_huge(ids, cap * sizeof(int64));
					side = repalloc_huge(side, cap);
				}
			}
			f[len] = (uint64) DatumGetInt64(slot_getattr(sslot, 2, &isnull));
			ids[len] = DatumGetInt64(slot_getattr(sslot, 3, &isnull));
			side[len] = (uint8) DatumGetInt32(slot_getattr(sslot, 4, &isnull));
			len++;
		}
		tuplesort_end(ts);
		tno++;
		report_progress(st, tno, L->ntables);
	} while (L->m > 0 && next_table(L, sel));

	ExecDropSingleTupleTableSlot(inslot);
	ExecDropSingleTupleTableSlot(sslot);
	MemoryContextSwitchTo(old);
}

/* ----------------------------------------------------------------
 *		Clusters and assignment
 * ----------------------------------------------------------------
 */

/* Is row a an earlier representative than row b (order key, then id)? */
static inline bool
row_before(const BatchState *st, uint32 a, uint32 b)
{
	if (st->has_aux)
	{
		if (st->auxnull[a] != st->auxnull[b])
			return !st->auxnull[a]; /* NULL order keys last */
		if (!st->auxnull[a] && st->aux[a] != st->aux[b])
			return st->aux[a] < st->aux[b];
	}
	return st->id[a] < st->id[b];
}

/* Group number of every row (inverse of gstart/grow). */
static uint32 *
row_groups(BatchState *st)
{
	uint32	   *rg = MemoryContextAllocHuge(st->cxt, Max(st->nrows, 1) * sizeof(uint32));

	for (uint64 g = 0; g < st->ndistinct; g++)
		for (uint32 i = st->gstart[g]; i < st->gstart[g + 1]; i++)
			rg[st->grow[i]] = (uint32) g;
	return rg;
}

/*
 * finish_clusters when every id is distinct: walk the groups in order (the
 * union-find is then read almost sequentially, and a row's id is only read
 * when its cluster has other members); the result is in fingerprint order.
 */
static void
finish_clusters_unique(BatchState *st)
{
	uint64		d = st->ndistinct;
	uint32	   *rep = MemoryContextAllocHuge(st->cxt, Max(d, 1) * sizeof(uint32));
	uint32	   *count = MemoryContextAllocHuge(st->cxt, Max(d, 1) * sizeof(uint32));

	for (uint64 g = 0; g < d; g++)
	{
		rep[g] = PG_UINT32_MAX;
		count[g] = 0;
	}
	for (uint64 g = 0; g < d; g++)
	{
		uint32		root = nddup_uf_find(st->parent, (uint32) g);

		if ((g & 0xffff) == 0)
			CHECK_FOR_INTERRUPTS();
		for (uint32 i = st->gstart[g]; i < st->gstart[g + 1]; i++)
		{
			uint32		r = st->grow[i];

			if (rep[root] == PG_UINT32_MAX || row_before(st, r, rep[root]))
				rep[root] = r;
			count[root]++;
		}
	}
	for (uint64 g = 0; g < d; g++)
	{
		uint32		root = nddup_uf_find(st->parent, (uint32) g);
		int64		cluster;

		if ((g & 0xffff) == 0)
			CHECK_FOR_INTERRUPTS();
		if (!st->singletons && count[root] < 2)
			continue;
		cluster = st->id[rep[root]];
		for (uint32 i = st->gstart[g]; i < st->gstart[g + 1]; i++)
			put_cluster(st, st->id[st->grow[i]], cluster);
	}
}

/*
 * hamming_clusters after the tables: rows sharing an id are one node, each
 * component's representative is its earliest row (order key, NULLs last,
 * then smallest id); one result row per distinct id, ascending.  Peak
 * memory: id, aux 17 + grow, rowgroup 8 + records 32 bytes per row, and
 * gstart, parent, size, rep, count 20 bytes per group.
 */
static void
finish_clusters(BatchState *st)
{
	uint64		n = st->nrows;
	uint32	   *rg;
	SortRec    *sorted = NULL;
	uint32	   *rep;
	uint32	   *count;
	bool		ascending = true;

	/*
	 * Ids that arrive strictly ascending (a scan of an append-only table with
	 * a serial key, or an ORDER BY id) are distinct and in order already;
	 * otherwise sort them, so that equal ids meet.
	 */
	for (uint64 i = 1; i < n && ascending; i++)
		if (st->id[i] <= st->id[i - 1])
			ascending = false;
	if (ascending)
	{
		finish_clusters_unique(st);
		return;
	}
	else
	{
		SortRec    *recs;
		SortRec    *tmp;

		recs = MemoryContextAllocHuge(st->cxt, n * sizeof(SortRec));
		tmp = MemoryContextAllocHuge(st->cxt, n * sizeof(SortRec));
		for (uint64 i = 0; i < n; i++)
		{
			recs[i].key = (uint64) st->id[i] ^ (UINT64CONST(1) << 63);
			recs[i].val = i;
		}
		sorted = radix_sort_recs(recs, tmp, n);
		pfree(sorted == recs ? tmp : recs);

		/* rows repeating an id are one node */
		rg = row_groups(st);
		for (uint64 i = 1; i < n; i++)
			if (sorted[i].key == sorted[i - 1].key)
				nddup_uf_union(st->parent, st->usize, rg[sorted[i - 1].val],
						 rg[sorted[i].val]);
	}

#define CLUSTER_ROW(i)		(sorted ? (uint32) sorted[i].val : (uint32) (i))
#define CLUSTER_NEW_ID(i)	(!sorted || (i) == 0 || sorted[i].key != sorted[(i) - 1].key)

	rep = MemoryContextAllocHuge(st->cxt, Max(st->ndistinct, 1) * sizeof(uint32));
	count = MemoryContextAllocHuge(st->cxt, Max(st->ndistinct, 1) * sizeof(uint32));
	for (uint64 g = 0; g < st->ndistinct; g++)
	{
		rep[g] = PG_UINT32_MAX;
		count[g] = 0;
	}
	for (uint64 i = 0; i < n; i++)
	{
		uint32		r = CLUSTER_ROW(i);
		uint32		root = nddup_uf_find(st->parent, rg[r]);

		if (rep[root] == PG_UINT32_MAX || row_before(st, r, rep[root]))
			rep[root] = r;
		if (CLUSTER_NEW_ID(i))
			count[root]++;
		if ((i & 0xffff) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	for (uint64 i = 0; i < n; i++)
	{
		uint32		r = CLUSTER_ROW(i);
		uint32		root;

		if (!CLUSTER_NEW_ID(i))
			continue;
		if ((i & 0xffff) == 0)
			CHECK_FOR_INTERRUPTS();
		root = nddup_uf_find(st->parent, rg[r]);
		if (!st->singletons && count[root] < 2)
			continue;
		put_cluster(st, st->id[r], st->id[rep[root]]);
	}
#undef CLUSTER_ROW
#undef CLUSTER_NEW_ID
}

/*
 * hamming_assign after the tables.  A new row with existing matches takes
 * the cluster of the nearest one (ties: smallest cluster id).  New rows
 * without one are clustered among themselves (union-find over new-new
 * pairs); such a component joins the smallest cluster id of the matched new
 * rows it touches, or else is a new cluster named after its earliest row
 * (order key, then smallest id).  Existing clusters never merge.
 */
static void
finish_assign(BatchState *st)
{
	uint32	   *rg = row_groups(st);
	int64	   *attach;
	bool	   *attached;
	uint32	   *rep;
	uint64		d = st->ndistinct;

	attach = MemoryContextAllocHuge(st->cxt, Max(d, 1) * sizeof(int64));
	attached = MemoryContextAllocHuge(st->cxt, Max(d, 1) * sizeof(bool));
	rep = MemoryContextAllocHuge(st->cxt, Max(d, 1) * sizeof(uint32));
	for (uint64 g = 0; g < d; g++)
	{
		attached[g] = false;
		rep[g] = PG_UINT32_MAX;
	}

	/* components of unmatched new rows */
	for (uint64 e = 0; e < st->nedges; e++)
	{
		uint32		u = st->edges[2 * e];
		uint32		v = st->edges[2 * e + 1];

		if (st->bestd[u] == NO_BEST && st->bestd[v] == NO_BEST)
			nddup_uf_union(st->parent, st->usize, u, v);
	}
	/* components touching matched new rows */
	for (uint64 e = 0; e < st->nedges; e++)
	{
		uint32		u = st->edges[2 * e];
		uint32		v = st->edges[2 * e + 1];

		if ((st->bestd[u] == NO_BEST) == (st->bestd[v] == NO_BEST))
			continue;
		if (st->bestd[u] != NO_BEST)
		{
			uint32		t = u;

			u = v;
			v = t;
		}
		/* u unmatched, v matched */
		u = nddup_uf_find(st->parent, u);
		if (!attached[u] || st->bestc[v] < attach[u])
		{
			attach[u] = st->bestc[v];
			attached[u] = true;
		}
	}
	/* representatives of new clusters */
	for (uint64 r = st->nside0; r < st->nrows; r++)
	{
		uint32		g = rg[r];
		uint32		root;

		if (st->bestd[g] != NO_BEST)
			continue;
		root = nddup_uf_find(st->parent, g);
		if (rep[root] == PG_UINT32_MAX || row_before(st, (uint32) r, rep[root]))
			rep[root] = (uint32) r;
	}
	for (uint64 r = st->nside0; r < st->nrows; r++)
	{
		uint32		g = rg[r];
		uint32		root;

		if ((r & 0xffff) == 0)
			CHECK_FOR_INTERRUPTS();
		if (st->bestd[g] != NO_BEST)
		{
			put_cluster(st, st->id[r], st->bestc[g]);
			continue;
		}
		root = nddup_uf_find(st->parent, g);
		if (attached[root])
			put_cluster(st, st->id[r], attach[root]);
		else
			put_cluster(st, st->id[r], st->id[rep[root]]);
	}
}

/* ----------------------------------------------------------------
 *		Driver
 * ----------------------------------------------------------------
 */

/* Set up the state and the result tuplestore of a call. */
static BatchState *
begin_batch(FunctionCallInfo fcinfo, BatchMode mode, const char *fname,
			int32 radius)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	BatchState *st;

	check_radius(radius);
	InitMaterializedSRF(fcinfo, 0);

	st = palloc0(sizeof(BatchState));
	st->mode = mode;
	st->fname = fname;
	st->radius = radius;
	st->singletons = true;
	st->progress = nddup_progress;
	st->force_blocks = nddup_batch_blocks;
	st->simhash_oid = nddup_lookup_type(fcinfo, "simhash64");
	st->mem_limit = (int64) work_mem * 1024;
	st->can_spill = (mode == BATCH_PAIRS || mode == BATCH_JOIN);
	st->bytes_per_row = mode == BATCH_CLUSTER ? BYTES_PER_ROW_CLUSTER :
		mode == BATCH_ASSIGN ? BYTES_PER_ROW_ASSIGN : BYTES_PER_ROW_PAIRS;
	st->out = rsinfo->setResult;
	st->outdesc = rsinfo->setDesc;
	st->next_pct = 10;
	st->cxt = AllocSetContextCreate(CurrentMemoryContext, "nddup batch",
									ALLOCSET_DEFAULT_SIZES);
	return st;
}

/* Compute and emit the result once the input is read; frees the state. */
static void
finish_batch(BatchState *st)
{
	instr_time	t0;
	instr_time	t1;

	batch_log(st, "%s: read %llu rows (%llu skipped for a NULL id or fingerprint)",
			  st->fname,
			  (unsigned long long) (st->spilled ? st->nspilled : st->nrows),
			  (unsigned long long) st->nskipped);
	if (st->over_limit)
		error_work_mem(st, st->nrows, st->bytes_per_row);

	INSTR_TIME_SET_CURRENT(t0);
	if (st->spilled)
		run_tables_spill(st);
	else
	{
		group_fingerprints(st);
		INSTR_TIME_SET_CURRENT(t1);
		INSTR_TIME_SUBTRACT(t1, t0);
		batch_log_time(st, INSTR_TIME_GET_MILLISEC(t1),
					   "%s: grouped %llu rows into %llu distinct fingerprints",
					   st->fname, (unsigned long long) st->nrows,
					   (unsigned long long) st->ndistinct);
		if (st->mode == BATCH_CLUSTER || st->mode == BATCH_ASSIGN)
			uf_init(st, st->ndistinct);
		if (st->mode == BATCH_ASSIGN)
		{
			uint64		d = st->ndistinct;

			st->bestd = MemoryContextAllocHuge(st->cxt, Max(d, 1));
			st->bestc = MemoryContextAllocHuge(st->cxt, Max(d, 1) * sizeof(int64));
			st->gminc = MemoryContextAllocHuge(st->cxt, Max(d, 1) * sizeof(int64));
			for (uint64 g = 0; g < d; g++)
			{
				st->bestd[g] = NO_BEST;
				st->bestc[g] = 0;
				st->gminc[g] = PG_INT64_MAX;
				for (uint32 i = st->gstart[g]; i < st->gstart[g + 1]; i++)
				{
					uint32		r = st->grow[i];

					if (r < st->nside0 && st->aux[r] < st->gminc[g])
						st->gminc[g] = st->aux[r];
				}
			}
		}
		run_tables_memory(st);
		INSTR_TIME_SET_CURRENT(t1);
		INSTR_TIME_SUBTRACT(t1, t0);
		batch_log_time(st, INSTR_TIME_GET_MILLISEC(t1), "%s: tables done",
					   st->fname);
		/* the fingerprints are not needed any more */
		pfree(st->ufp);
		st->ufp = NULL;
		if (st->mode == BATCH_CLUSTER)
			finish_clusters(st);
		else if (st->mode == BATCH_ASSIGN)
			finish_assign(st);
	}
	INSTR_TIME_SET_CURRENT(t1);
	INSTR_TIME_SUBTRACT(t1, t0);
	batch_log_time(st, INSTR_TIME_GET_MILLISEC(t1), "%s: %llu result rows",
				   st->fname, (unsigned long long) st->nout);
	if (st->spill)
		tuplestore_end(st->spill);
	MemoryContextDelete(st->cxt);
}

/* Column roles of an (id, fingerprint[, order key]) query. */
static const NddupColRole fp_cols[] = {NDDUP_COL_ID, NDDUP_COL_SIMHASH, NDDUP_COL_ORDER};

/* Column roles of an (id, fingerprint, cluster id) query. */
static const NddupColRole existing_cols[] = {NDDUP_COL_ID, NDDUP_COL_SIMHASH, NDDUP_COL_CLUSTER};

/* Common body of hamming_pairs and hamming_clusters over a query text. */
static void
pairs_or_clusters(FunctionCallInfo fcinfo, BatchMode mode, const char *fname,
				  const char *query, int32 radius, bool singletons)
{
	BatchState *st = begin_batch(fcinfo, mode, fname, radius);

	st->singletons = singletons;
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	read_input(st, "the query", query, fp_cols, 2,
			   mode == BATCH_CLUSTER ? 3 : 2, 0);
	SPI_finish();
	finish_batch(st);
}

/* hamming_pairs(query text, radius integer): all pairs within radius. */
Datum
hamming_pairs_query(PG_FUNCTION_ARGS)
{
	char	   *query = text_to_cstring(PG_GETARG_TEXT_PP(0));

	if (nddup_dist_hamming_pairs(fcinfo, false))
		return (Datum) 0;
	pairs_or_clusters(fcinfo, BATCH_PAIRS, "hamming_pairs", query,
					  PG_GETARG_INT32(1), true);
	return (Datum) 0;
}

/* hamming_pairs(rel, id_column, fp_column, radius): over a relation. */
Datum
hamming_pairs_rel(PG_FUNCTION_ARGS)
{
	char	   *query;

	if (nddup_dist_hamming_pairs(fcinfo, true))
		return (Datum) 0;
	check_radius(PG_GETARG_INT32(3));
	query = nddup_relation_query(PG_GETARG_OID(0), PG_GETARG_NAME(1),
								 PG_GETARG_NAME(2), NULL);
	pairs_or_clusters(fcinfo, BATCH_PAIRS, "hamming_pairs", query,
					  PG_GETARG_INT32(3), true);
	return (Datum) 0;
}

/* hamming_join(query_a, query_b, radius): pairs (a, b) within radius. */
Datum
hamming_join_query(PG_FUNCTION_ARGS)
{
	char	   *qa = text_to_cstring(PG_GETARG_TEXT_PP(0));
	char	   *qb = text_to_cstring(PG_GETARG_TEXT_PP(1));
	BatchState *st;

	if (nddup_dist_hamming_join(fcinfo))
		return (Datum) 0;
	st = begin_batch(fcinfo, BATCH_JOIN, "hamming_join", PG_GETARG_INT32(2));
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	read_input(st, "query_a", qa, fp_cols, 2, 2, 0);
	read_input(st, "query_b", qb, fp_cols, 2, 2, 1);
	SPI_finish();
	finish_batch(st);
	return (Datum) 0;
}

/* hamming_clusters(query, radius, singletons): clusters of fingerprints. */
Datum
hamming_clusters_query(PG_FUNCTION_ARGS)
{
	char	   *query = text_to_cstring(PG_GETARG_TEXT_PP(0));

	if (nddup_dist_hamming_clusters(fcinfo, false))
		return (Datum) 0;
	pairs_or_clusters(fcinfo, BATCH_CLUSTER, "hamming_clusters", query,
					  PG_GETARG_INT32(1), PG_GETARG_BOOL(2));
	return (Datum) 0;
}

/*
 * hamming_clusters(rel, id_column, fp_column, radius, order_column,
 * singletons): over a relation; order_column may be NULL.
 */
Datum
hamming_clusters_rel(PG_FUNCTION_ARGS)
{
	char	   *query;
	bool		singletons = PG_ARGISNULL(5) ? true : PG_GETARG_BOOL(5);

	if (nddup_dist_hamming_clusters(fcinfo, true))
		return (Datum) 0;
	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2) ||
		PG_ARGISNULL(3))
	{
		/* like a STRICT function: no rows */
		InitMaterializedSRF(fcinfo, 0);
		return (Datum) 0;
	}
	check_radius(PG_GETARG_INT32(3));
	query = nddup_relation_query(PG_GETARG_OID(0), PG_GETARG_NAME(1),
								 PG_GETARG_NAME(2),
								 PG_ARGISNULL(4) ? NULL : PG_GETARG_NAME(4));
	pairs_or_clusters(fcinfo, BATCH_CLUSTER, "hamming_clusters", query,
					  PG_GETARG_INT32(3), singletons);
	return (Datum) 0;
}

/*
 * hamming_assign(new_query, existing_query, radius): the cluster of each
 * new row (see finish_assign for the rules).
 */
Datum
hamming_assign_query(PG_FUNCTION_ARGS)
{
	char	   *qnew = text_to_cstring(PG_GETARG_TEXT_PP(0));
	char	   *qold = text_to_cstring(PG_GETARG_TEXT_PP(1));
	BatchState *st = begin_batch(fcinfo, BATCH_ASSIGN, "hamming_assign",
								 PG_GETARG_INT32(2));

	st->has_aux = true;
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	/* existing rows are side 0 (cluster id as aux), new rows side 1 */
	read_input(st, "existing_query", qold, existing_cols, 3, 3, 0);
	read_input(st, "new_query", qnew, fp_cols, 2, 3, 1);
	SPI_finish();
	finish_batch(st);
	return (Datum) 0;
}

/*
 * clusters_from_pairs(query, singletons): connected components of the
 * (id1, id2) pairs; a row with one NULL only declares the other id.  The
 * representative is the smallest id of a component.
 */
Datum
hamming_clusters_from_pairs(PG_FUNCTION_ARGS)
{
	char	   *query = text_to_cstring(PG_GETARG_TEXT_PP(0));
	bool		singletons = PG_GETARG_BOOL(1);
	static const NddupColRole pair_cols[] = {NDDUP_COL_ID, NDDUP_COL_ID};
	BatchState *st = begin_batch(fcinfo, BATCH_CLUSTER, "clusters_from_pairs", 0);
	BatchReceiver recv;
	SPIPlanPtr	plan;
	SortRec    *recs;
	SortRec    *tmp;
	SortRec    *sorted;
	uint32	   *node;
	int64	   *nodeid;
	uint32	   *rep;
	uint32	   *count;
	uint64		nslots;
	uint64		nnodes = 0;
	uint64		j = 0;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	init_receiver(&recv, st, 0);
	recv.pairs_input = true;
	plan = nddup_prepare_input(st->fname, "the query", query, pair_cols, 2, 2,
							   st->simhash_oid, &recv.cols);
	nddup_run_input(plan, &recv.pub);
	SPI_finish();
	if (st->over_limit)
		error_work_mem(st, recv.np, BYTES_PER_PAIR_INPUT);

	/* ids of both columns, sorted; equal ids are one node */
	nslots = 2 * recv.np;
	recs = MemoryContextAllocHuge(st->cxt, Max(nslots, 1) * sizeof(SortRec));
	for (uint64 i = 0; i < recv.np; i++)
	{
		if (!recv.pnull1[i])
		{
			recs[j].key = (uint64) recv.p1[i] ^ (UINT64CONST(1) << 63);
			recs[j].val = 2 * i;
			j++;
		}
		if (!recv.pnull2[i])
		{
			recs[j].key = (uint64) recv.p2[i] ^ (UINT64CONST(1) << 63);
			recs[j].val = 2 * i + 1;
			j++;
		}
	}
	tmp = MemoryContextAllocHuge(st->cxt, Max(j, 1) * sizeof(SortRec));
	sorted = radix_sort_recs(recs, tmp, j);
	node = MemoryContextAllocHuge(st->cxt, Max(nslots, 1) * sizeof(uint32));
	nodeid = MemoryContextAllocHuge(st->cxt, Max(j, 1) * sizeof(int64));
	for (uint64 i = 0; i < j; i++)
	{
		if (i == 0 || sorted[i].key != sorted[i - 1].key)
		{
			nodeid[nnodes] = (int64) (sorted[i].key ^ (UINT64CONST(1) << 63));
			nnodes++;
		}
		node[sorted[i].val] = (uint32) (nnodes - 1);
	}
	uf_init(st, nnodes);
	for (uint64 i = 0; i < recv.np; i++)
	{
		if ((i & 0xffff) == 0)
			CHECK_FOR_INTERRUPTS();
		if (!recv.pnull1[i] && !recv.pnull2[i])
			nddup_uf_union(st->parent, st->usize, node[2 * i], node[2 * i + 1]);
	}
	/* nodes are in id order: the first node seen of a root is its smallest */
	rep = MemoryContextAllocHuge(st->cxt, Max(nnodes, 1) * sizeof(uint32));
	count = MemoryContextAllocHuge(st->cxt, Max(nnodes, 1) * sizeof(uint32));
	for (uint64 i = 0; i < nnodes; i++)
	{
		rep[i] = PG_UINT32_MAX;
		count[i] = 0;
	}
	for (uint64 i = 0; i < nnodes; i++)
	{
		uint32		root = nddup_uf_find(st->parent, (uint32) i);

		if (rep[root] == PG_UINT32_MAX)
			rep[root] = (uint32) i;
		count[root]++;
	}
	for (uint64 i = 0; i < nnodes; i++)
	{
		uint32		root = nddup_uf_find(st->parent, (uint32) i);

		if ((i & 0xffff) == 0)
			CHECK_FOR_INTERRUPTS();
		if (!singletons && count[root] < 2)
			continue;
		put_cluster(st, nodeid[i], nodeid[rep[root]]);
	}
	MemoryContextDelete(st->cxt);
	return (Datum) 0;
}
