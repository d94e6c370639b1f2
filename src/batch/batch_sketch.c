/*-------------------------------------------------------------------------
 *
 * batch_sketch.c
 *	  Batch near-duplicate detection over resemblance sketches, as
 *	  set-returning functions: all pairs of min-hash sketches whose estimated
 *	  resemblance reaches a threshold (minhash_pairs), the similarity join of
 *	  two sets (minhash_join), union-find clusters (minhash_clusters), and all
 *	  pairs of documents sharing at least r super-shingles
 *	  (super_shingle_pairs).
 *
 * Candidates come from locality-sensitive bands: the k positions of a
 * sketch are cut into b bands of r consecutive positions, every row is
 * entered once per band under a hash of the band's values, the entries of a
 * band are sorted and every run of equal keys is a set of candidates
 * (Broder et al. 1997 s.3, "sort <shingle, docID>", with a band of r
 * min-hash values as the shingle).  Each candidate is verified with the
 * estimate itself (the share of equal positions, as jaccard() computes it).
 *
 * Exactness (the default): a pair whose estimate reaches t has at least
 * E = the smallest count of equal positions whose estimate is >= t, so at
 * most D = k - E unequal positions.  The bands are disjoint, so the unequal
 * positions spoil at most D bands; with b = D + 1 bands at least one band is
 * equal on all its positions and the pair is a candidate (pigeonhole, as in
 * Manku et al. 2007 s.3 for Hamming distance).  r = floor(k / b) >= 1 since
 * E >= 1.  A pair is reported once: by the first band (in band order) on
 * which its values are all equal, a check on the values, so neither a set
 * of seen pairs nor a sort of the pairs is needed.
 *
 * Identical sketches are grouped first (Broder et al. 1997 s.3, "identical
 * documents"): the bands hold each distinct sketch once, and a found pair of
 * sketches expands into the pairs of their rows.
 *
 * super_shingle_pairs is Broder's super-shingle clustering (s.3) in the
 * "r of s" form of the blog framework (Lee, Lee, Kim): entries
 * (position, super-shingle, row) are sorted position by position and a pair
 * is reported from the first position on which it agrees, when it agrees on
 * at least r positions.
 *
 * Inputs and outputs follow batch.c (docs/batch.md; the input handling is
 * shared, src/batch/batch_input.c): query texts or a relation, run through SPI with the caller's privileges, columns checked
 * before any row is read, rows taken from the executor's slots by a
 * DestReceiver, results in a materialized tuplestore.  Everything is kept
 * in memory within work_mem; beyond it the functions stop with SQLSTATE
 * 53200 saying how much they need.  See docs/batch-sketches.md.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "nddup.h"
#include "distributed.h"

#include "access/htup_details.h"
#include "access/tupdesc.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "executor/tuptable.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "portability/instr_time.h"
#include "tcop/dest.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/plancache.h"
#include "utils/syscache.h"
#include "utils/tuplestore.h"

PG_FUNCTION_INFO_V1(minhash_pairs_query);
PG_FUNCTION_INFO_V1(minhash_pairs_rel);
PG_FUNCTION_INFO_V1(minhash_join_query);
PG_FUNCTION_INFO_V1(minhash_clusters_query);
PG_FUNCTION_INFO_V1(minhash_clusters_rel);
PG_FUNCTION_INFO_V1(super_shingle_pairs_query);

/* Per-row flags of the state. */
#define ROW_EMPTY				0x01	/* sketch of a document without shingles */
#define ROW_SIDE1				0x02	/* row of query_b (minhash_join) */
#define ROW_MEMBER				0x04	/* sketch equal to an earlier row's */
#define ROW_GSIDE0				0x08	/* leader: its group has side-0 rows */
#define ROW_GSIDE1				0x10	/* leader: its group has side-1 rows */

/* End of a list of group members. */
#define NO_ROW					PG_UINT32_MAX

/*
 * Bytes per input row besides the sketch values: id 8, flags 1, the two
 * entry arrays of a band 32, the group lists 8, order key 9, and for
 * clusters union-find 8 and the id sort 32 + 8; plus what the allocator
 * and the growth of the arrays keep around them, so that the total covers
 * the measured peak (612 bytes per row at k = 128, docs/batch-sketches.md).
 */
#define SK_ROW_OVERHEAD_PAIRS	112
#define SK_ROW_OVERHEAD_CLUSTER	160

/* What a call computes. */
typedef enum SkMode
{
	SK_PAIRS,					/* minhash_pairs */
	SK_JOIN,					/* minhash_join */
	SK_CLUSTER,					/* minhash_clusters */
	SK_SUPER					/* super_shingle_pairs */
} SkMode;

/* An entry of a band (or position): its key and its row. */
typedef struct SkEntry
{
	uint64		key;
	uint64		row;
} SkEntry;

/* Everything one call works on. */
typedef struct SkState
{
	SkMode		mode;
	const char *fname;			/* SQL name, for messages */
	bool		progress;		/* nddup.progress */
	bool		singletons;
	Oid			sketch_oid;		/* minhash_sketch in our schema */
	MemoryContext cxt;
	int64		mem_limit;		/* work_mem in bytes */

	/* parameters of the input, from its first row */
	bool		have_params;
	NddupMinhash *params;		/* header of the first sketch */
	int			k;				/* values per row (super: super-shingles) */
	int			bytes_per_row;
	uint64		maxrows;

	/* rows */
	uint64		nrows;
	uint64		cap;
	uint32	   *vals;			/* k values per row (minhash) */
	int64	   *ss;				/* k super-shingles per row */
	int64	   *id;
	uint8	   *flags;
	int64	   *aux;			/* order key (clusters) */
	bool	   *auxnull;
	bool		has_aux;
	bool		over_limit;		/* only counting rows now */
	uint64		nskipped;		/* NULL id or value, or no super-shingles */
	int			side;			/* side of the rows being read */

	/* the test and the bands */
	double		threshold;
	int			emin;			/* least equal positions of a result */
	int			nbands;
	int			nrowsband;		/* positions per band */
	bool		exact;
	int			match_r;		/* super_shingle_pairs: r */

	/* groups of identical sketches: leader -> members list */
	uint32	   *gnext;

	/* union-find over rows (clusters) */
	uint32	   *parent;
	uint32	   *usize;

	/* output and counters */
	Tuplestorestate *out;
	TupleDesc	outdesc;
	uint64		nout;
	uint64		ncand;
} SkState;

/* A DestReceiver that stores the rows of an input query in an SkState. */
typedef struct SkReceiver
{
	DestReceiver pub;
	SkState    *st;
	NddupInputCols cols;		/* the input query's columns */
} SkReceiver;

/* Progress or debug message, depending on nddup.progress. */
#define sk_log(st, ...) \
	ereport((st)->progress ? NOTICE : DEBUG1, \
			(errmsg_internal(__VA_ARGS__)))

/* Progress or debug message whose DETAIL is the time since the start. */
#define sk_log_time(st, ms, ...) \
	ereport((st)->progress ? NOTICE : DEBUG1, \
			(errmsg_internal(__VA_ARGS__), \
			 errdetail_internal("%.0f ms since the start.", (ms))))

/* ----------------------------------------------------------------
 *		Settings, arguments and messages
 * ----------------------------------------------------------------
 */

/* Reject a threshold outside [0, 1]. */
static void
sk_check_threshold(double t)
{
	if (isnan(t) || t < 0.0 || t > 1.0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("similarity threshold %g is out of range", t),
				 errdetail("The threshold must be between 0 and 1.")));
}

/* Reject a number of bands or of rows per band outside 1..1024. */
static int32
sk_check_band_arg(const char *what, int64 v)
{
	if (v < 1 || v > NDDUP_MINHASH_MAX_K)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("number of %s %lld is out of range", what, (long long) v),
				 errdetail("It must be between 1 and %d.", NDDUP_MINHASH_MAX_K)));
	return (int32) v;
}

/* Error for an input that does not fit in work_mem. */
static void
sk_error_work_mem(SkState *st)
{
	double		need_kb = (double) st->nrows * st->bytes_per_row / 1024.0 + 1024.0;

	ereport(ERROR,
			(errcode(ERRCODE_OUT_OF_MEMORY),
			 errmsg("%s needs about %.0f MB of work_mem for %llu input rows, but work_mem is %d kB",
					st->fname, ceil(need_kb / 1024.0),
					(unsigned long long) st->nrows, work_mem),
			 errdetail("The input rows and one band of entries are kept in memory, about %d bytes per input row here.",
					   st->bytes_per_row),
			 errhint("Raise work_mem for this statement, for example SET LOCAL work_mem = '%.0fMB'.",
					 ceil(need_kb / 1024.0))));
}

/* ----------------------------------------------------------------
 *		Input rows
 * ----------------------------------------------------------------
 */

/* Take the parameters of the first row: values per row and the row limit. */
static void
sk_set_params(SkState *st, int k)
{
	int			overhead = st->mode == SK_CLUSTER ?
		SK_ROW_OVERHEAD_CLUSTER : SK_ROW_OVERHEAD_PAIRS;

	st->k = k;
	st->bytes_per_row = (st->mode == SK_SUPER ? 8 : 4) * k + overhead;
	st->maxrows = Max((uint64) (st->mem_limit / st->bytes_per_row), 1024);
	st->maxrows = Min(st->maxrows, (uint64) PG_UINT32_MAX - 1);
	st->have_params = true;
}

/* Make room for one more row; false when work_mem does not allow it. */
static bool
sk_grow(SkState *st)
{
	uint64		newcap;
	size_t		vsize = st->mode == SK_SUPER ? sizeof(int64) : sizeof(uint32);
	void	   *v;

	if (st->nrows < st->cap)
		return true;
	if (st->cap >= st->maxrows)
		return false;
	newcap = Min(Max(st->cap * 2, 1024), st->maxrows);
	if (st->cap == 0)
	{
		v = MemoryContextAllocHuge(st->cxt, newcap * st->k * vsize);
		st->id = MemoryContextAllocHuge(st->cxt, newcap * sizeof(int64));
		st->flags = MemoryContextAllocHuge(st->cxt, newcap);
		if (st->has_aux)
		{
			st->aux = MemoryContextAllocHuge(st->cxt, newcap * sizeof(int64));
			st->auxnull = MemoryContextAllocHuge(st->cxt, newcap * sizeof(bool));
		}
	}
	else
	{
		v = repalloc_huge(st->mode == SK_SUPER ? (void *) st->ss : (void *) st->vals,
						  newcap * st->k * vsize);
		st->id = repalloc_huge(st->id, newcap * sizeof(int64));
		st->flags = repalloc_huge(st->flags, newcap);
		if (st->has_aux)
		{
			st->aux = repalloc_huge(st->aux, newcap * sizeof(int64));
			st->auxnull = repalloc_huge(st->auxnull, newcap * sizeof(bool));
		}
	}
	if (st->mode == SK_SUPER)
		st->ss = v;
	else
		st->vals = v;
	st->cap = newcap;
	return true;
}

/* Store the common part of a row; false when only counting now. */
static inline bool
sk_add_row(SkState *st, int64 id, uint8 flags, int64 aux, bool auxnull)
{
	if (st->over_limit || !sk_grow(st))
	{
		/* keep counting, so that the error can say how much is needed */
		st->over_limit = true;
		st->nrows++;
		return false;
	}
	st->id[st->nrows] = id;
	st->flags[st->nrows] = flags;
	if (st->has_aux)
	{
		st->aux[st->nrows] = aux;
		st->auxnull[st->nrows] = auxnull;
	}
	return true;
}

/* Check that a sketch was made like the first one of the input. */
static void
sk_check_params(SkState *st, const NddupMinhash *m)
{
	const NddupMinhash *p = st->params;

	if (m->method != p->method || m->k != p->k || m->seed != p->seed ||
		m->size != p->size || m->unit != p->unit || m->bits != p->bits)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cannot compare min-hash sketches made with different parameters"),
				 errdetail("The first row of %s has (%s), a later row (%s).",
						   st->fname, nddup_minhash_describe(p),
						   nddup_minhash_describe(m)),
				 errhint("Build all sketches with the same method, k, seed, shingle size, unit and bits.")));
}

/* Store a min-hash row: its values unpacked to 32 bits. */
static void
sk_add_sketch(SkState *st, int64 id, Datum d, int64 aux, bool auxnull)
{
	NddupMinhash *m = (NddupMinhash *) PG_DETOAST_DATUM(d);
	uint32	   *dst;
	uint8		flags = 0;

	if (!st->have_params)
	{
		st->params = MemoryContextAlloc(st->cxt, NDDUP_MINHASH_HDRSZ);
		memcpy(st->params, m, NDDUP_MINHASH_HDRSZ);
		sk_set_params(st, m->k);
	}
	else
		sk_check_params(st, m);
	if (m->flags & NDDUP_MINHASH_EMPTY_DOC)
		flags |= ROW_EMPTY;
	if (st->side == 1)
		flags |= ROW_SIDE1;
	if (sk_add_row(st, id, flags, aux, auxnull))
	{
		dst = st->vals + st->nrows * st->k;
		if (m->bits == 32)
			memcpy(dst, NDDUP_MINHASH_VALUES(m), sizeof(uint32) * st->k);
		else
			for (int i = 0; i < st->k; i++)
				dst[i] = nddup_bbit_get(m->data, i, m->bits);
		st->nrows++;
	}
	if ((Pointer) m != DatumGetPointer(d))
		pfree(m);
}

/* Store a super-shingle row; rows without super-shingles are skipped. */
static void
sk_add_super(SkState *st, int64 id, Datum d)
{
	ArrayType  *a = DatumGetArrayTypeP(d);
	int			n;

	if (ARR_NDIM(a) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("super-shingles must be a one-dimensional array")));
	if (ARR_HASNULL(a) && array_contains_nulls(a))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("super-shingles must not contain nulls")));
	n = ArrayGetNItems(ARR_NDIM(a), ARR_DIMS(a));
	if (n == 0)
		st->nskipped++;			/* a document without shingles: no match */
	else
	{
		if (!st->have_params)
			sk_set_params(st, n);
		else if (n != st->k)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("cannot compare %d super-shingles with %d", st->k, n),
					 errdetail("Every row of %s must have the same number of super-shingles.",
							   st->fname)));
		if (sk_add_row(st, id, 0, 0, true))
		{
			memcpy(st->ss + st->nrows * st->k, ARR_DATA_PTR(a),
				   sizeof(int64) * st->k);
			st->nrows++;
		}
	}
	if ((Pointer) a != DatumGetPointer(d))
		pfree(a);
}

/* DestReceiver callback: take one row of an input query. */
static bool
sk_receive(TupleTableSlot *slot, DestReceiver *self)
{
	SkReceiver *r = (SkReceiver *) self;
	SkState    *st = r->st;
	int64		id;
	int64		aux = 0;
	bool		auxnull = true;

	slot_getsomeattrs(slot, r->cols.natts);
	if (slot->tts_isnull[0] || slot->tts_isnull[1])
	{
		st->nskipped++;
		return true;
	}
	id = nddup_datum_int64(slot->tts_values[0], r->cols.types[0]);
	if (r->cols.natts >= 3 && !slot->tts_isnull[2])
	{
		aux = nddup_datum_int64(slot->tts_values[2], r->cols.types[2]);
		auxnull = false;
	}
	if (st->mode == SK_SUPER)
		sk_add_super(st, id, slot->tts_values[1]);
	else
		sk_add_sketch(st, id, slot->tts_values[1], aux, auxnull);
	return true;
}

/* Read one input query as side 'side' (0, or 1 for query_b). */
static void
sk_read_input(SkState *st, const char *argname, const char *query,
			  const NddupColRole *roles, int nreq, int nroles, int side)
{
	SkReceiver	recv;
	SPIPlanPtr	plan;

	memset(&recv, 0, sizeof(recv));
	nddup_init_receiver(&recv.pub, sk_receive);
	recv.st = st;
	st->side = side;
	plan = nddup_prepare_input(st->fname, argname, query, roles, nreq, nroles,
							   st->sketch_oid, &recv.cols);
	if (recv.cols.natts >= 3)
		st->has_aux = true;
	nddup_run_input(plan, &recv.pub);
}

/* ----------------------------------------------------------------
 *		Sorting entries
 * ----------------------------------------------------------------
 */

/* Order of entries: key, then row. */
static int
sk_entry_cmp(const void *a, const void *b)
{
	const SkEntry *x = a;
	const SkEntry *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	if (x->row != y->row)
		return x->row < y->row ? -1 : 1;
	return 0;
}

/*
 * Sort entries by (key, row): one MSD pass on the top bits of the key into
 * about n buckets (the keys are hashes, so the buckets are small), then an
 * insertion sort or a quicksort per bucket.  Returns a or tmp, whichever
 * holds the result.
 */
static SkEntry *
sk_sort_entries(SkEntry *a, SkEntry *tmp, uint64 n)
{
	int			bits = 8;
	uint64		nb;
	uint64	   *start;

	while (bits < 20 && (UINT64CONST(1) << bits) < n)
		bits++;
	nb = UINT64CONST(1) << bits;
	start = palloc0((nb + 1) * sizeof(uint64));
	for (uint64 i = 0; i < n; i++)
		start[(a[i].key >> (64 - bits)) + 1]++;
	for (uint64 b = 0; b < nb; b++)
		start[b + 1] += start[b];
	for (uint64 i = 0; i < n; i++)
	{
		uint64		b = a[i].key >> (64 - bits);

		if ((i & 0xffff) == 0)
			CHECK_FOR_INTERRUPTS();
		/* start[b] is advanced while scattering and restored below */
		tmp[start[b]++] = a[i];
	}
	for (uint64 b = nb; b > 0; b--)
		start[b] = start[b - 1];
	start[0] = 0;
	for (uint64 b = 0; b < nb; b++)
	{
		uint64		lo = start[b];
		uint64		hi = start[b + 1];

		if ((b & 0xfff) == 0)
			CHECK_FOR_INTERRUPTS();
		if (hi - lo <= 24)
		{
			for (uint64 i = lo + 1; i < hi; i++)
			{
				SkEntry		e = tmp[i];
				uint64		j = i;

				while (j > lo && sk_entry_cmp(&tmp[j - 1], &e) > 0)
				{
					tmp[j] = tmp[j - 1];
					j--;
				}
				tmp[j] = e;
			}
		}
		else
			qsort(tmp + lo, hi - lo, sizeof(SkEntry), sk_entry_cmp);
	}
	pfree(start);
	return tmp;
}

/* Key of r consecutive 32-bit values (one band of a sketch). */
static inline uint64
sk_band_key(const uint32 *v, int r)
{
	uint64		h = UINT64CONST(0x9e3779b97f4a7c15);
	int			i = 0;

	for (; i + 1 < r; i += 2)
		h = nddup_fmix64(h ^ ((uint64) v[i] << 32 | v[i + 1]));
	if (i < r)
		h = nddup_fmix64(h ^ v[i] ^ (UINT64CONST(1) << 40));
	return h;
}

/* ----------------------------------------------------------------
 *		Pairs of min-hash sketches
 * ----------------------------------------------------------------
 */

/* Append (a, b, resemblance) to the result; smaller id first unless a join. */
static inline void
sk_put_pair(SkState *st, uint32 x, uint32 y, double res)
{
	Datum		values[3];
	bool		nulls[3] = {false, false, false};
	int64		a = st->id[x];
	int64		b = st->id[y];

	if (st->mode == SK_JOIN)
	{
		/* x is the row of query_a */
		if (st->flags[x] & ROW_SIDE1)
		{
			a = st->id[y];
			b = st->id[x];
		}
	}
	else if (a > b)
	{
		int64		t = a;

		a = b;
		b = t;
	}
	values[0] = Int64GetDatum(a);
	values[1] = Int64GetDatum(b);
	values[2] = Float8GetDatum(res);
	tuplestore_putvalues(st->out, st->outdesc, values, nulls);
	st->nout++;
}

/* A found pair of rows: emit it, or link it (clusters). */
static inline void
sk_found(SkState *st, uint32 x, uint32 y, double res)
{
	if (st->mode == SK_CLUSTER)
		nddup_uf_union(st->parent, st->usize, x, y);
	else
		sk_put_pair(st, x, y, res);
}

/* May rows x and y form a pair at all (join: one row of each side)? */
static inline bool
sk_may_pair(const SkState *st, uint32 x, uint32 y)
{
	if (st->mode == SK_JOIN)
		return ((st->flags[x] ^ st->flags[y]) & ROW_SIDE1) != 0;
	if (st->mode == SK_CLUSTER)
		return nddup_uf_find(st->parent, x) != nddup_uf_find(st->parent, y);
	return true;
}

/* May the groups of leaders x and y form a pair at all? */
static inline bool
sk_may_pair_groups(const SkState *st, uint32 x, uint32 y)
{
	if (st->mode == SK_JOIN)
		return ((st->flags[x] & ROW_GSIDE0) && (st->flags[y] & ROW_GSIDE1)) ||
			((st->flags[x] & ROW_GSIDE1) && (st->flags[y] & ROW_GSIDE0));
	if (st->mode == SK_CLUSTER)
		return nddup_uf_find(st->parent, x) != nddup_uf_find(st->parent, y);
	return true;
}

/*
 * A found pair of groups (leaders x and y): link them (clusters), or emit
 * every pair of their rows (Broder's identical documents added back).
 */
static void
sk_found_groups(SkState *st, uint32 x, uint32 y, double res)
{
	if (st->mode == SK_CLUSTER)
	{
		nddup_uf_union(st->parent, st->usize, x, y);
		return;
	}
	for (uint32 a = x; a != NO_ROW; a = st->gnext[a])
	{
		CHECK_FOR_INTERRUPTS();
		for (uint32 b = y; b != NO_ROW; b = st->gnext[b])
			if (st->mode != SK_JOIN ||
				((st->flags[a] ^ st->flags[b]) & ROW_SIDE1))
				sk_put_pair(st, a, b, res);
	}
}

/*
 * Group identical sketches (Broder et al. 1997 s.3, "identical documents"):
 * the bands then hold each distinct sketch once.  Rows are sorted by a hash
 * of all k values; inside a run of equal hashes each row is compared with
 * the run's leaders so far.  Pairs inside a group (resemblance 1) are
 * emitted, or linked for clusters, here.
 */
static void
sk_group_identical(SkState *st, SkEntry *ent, SkEntry *tmp)
{
	uint64		n = st->nrows;
	int			k = st->k;
	uint64		m = 0;
	SkEntry    *sorted;
	uint32	   *leaders = MemoryContextAllocHuge(st->cxt, Max(n, 1) * sizeof(uint32));
	double		one = nddup_minhash_estimate(k, k, st->params->bits);

	st->gnext = MemoryContextAllocHuge(st->cxt, Max(n, 1) * sizeof(uint32));
	for (uint64 i = 0; i < n; i++)
	{
		if ((i & 0xffff) == 0)
			CHECK_FOR_INTERRUPTS();
		st->gnext[i] = NO_ROW;
		st->flags[i] |= (st->flags[i] & ROW_SIDE1) ? ROW_GSIDE1 : ROW_GSIDE0;
		if (st->flags[i] & ROW_EMPTY)
			continue;
		ent[m].key = sk_band_key(st->vals + i * k, k);
		ent[m].row = i;
		m++;
	}
	sorted = sk_sort_entries(ent, tmp, m);
	for (uint64 s = 0; s < m;)
	{
		uint64		e = s + 1;
		uint64		nl = 0;

		while (e < m && sorted[e].key == sorted[s].key)
			e++;
		for (uint64 i = s; i < e; i++)
		{
			uint32		row = (uint32) sorted[i].row;
			uint64		l;

			CHECK_FOR_INTERRUPTS();
			for (l = 0; l < nl; l++)
				if (memcmp(st->vals + (uint64) leaders[l] * k,
						   st->vals + (uint64) row * k, sizeof(uint32) * k) == 0)
					break;
			if (l == nl)
			{
				leaders[nl++] = row;
				continue;
			}
			/* row joins the group of leaders[l]: pairs with its members */
			if (st->mode == SK_CLUSTER)
				nddup_uf_union(st->parent, st->usize, leaders[l], row);
			else
				for (uint32 a = leaders[l]; a != NO_ROW; a = st->gnext[a])
					if (st->mode != SK_JOIN ||
						((st->flags[a] ^ st->flags[row]) & ROW_SIDE1))
						sk_put_pair(st, a, row, one);
			st->flags[row] |= ROW_MEMBER;
			st->flags[leaders[l]] |= (st->flags[row] & ROW_SIDE1) ? ROW_GSIDE1 : ROW_GSIDE0;
			st->gnext[row] = st->gnext[leaders[l]];
			st->gnext[leaders[l]] = row;
		}
		s = e;
	}
	pfree(leaders);
}

/* Are positions [from, from + len) of a and b all equal? */
static inline bool
sk_range_equal(const uint32 *a, const uint32 *b, int from, int len)
{
	for (int i = from; i < from + len; i++)
		if (a[i] != b[i])
			return false;
	return true;
}

/*
 * A candidate pair from a run of band j: report it if band j really is
 * equal (not just its key), no earlier band is all equal (that band owns
 * the pair), and the estimate reaches the threshold.
 */
static inline void
sk_candidate(SkState *st, uint32 x, uint32 y, int j)
{
	int			k = st->k;
	int			r = st->nrowsband;
	const uint32 *a = st->vals + (uint64) x * k;
	const uint32 *b = st->vals + (uint64) y * k;
	int			e = 0;

	if (!sk_may_pair_groups(st, x, y))
		return;
	if (!sk_range_equal(a, b, j * r, r))
		return;
	for (int i = 0; i < j; i++)
		if (sk_range_equal(a, b, i * r, r))
			return;
	st->ncand++;
	for (int i = 0; i < k; i++)
		e += a[i] == b[i];
	if (e >= st->emin)
		sk_found_groups(st, x, y, nddup_minhash_estimate(e, k, st->params->bits));
}

/*
 * Choose the bands.  emin = the least number of equal positions whose
 * estimate reaches the threshold; a result has at most D = k - emin unequal
 * positions, so b = D + 1 disjoint bands guarantee an all-equal band.
 */
static void
sk_choose_bands(SkState *st, int32 bands, int32 rows)
{
	int			k = st->k;
	int			bits = st->params->bits;
	int			dmax;

	st->emin = k;
	for (int e = 0; e <= k; e++)
		if (nddup_minhash_estimate(e, k, bits) >= st->threshold)
		{
			st->emin = e;
			break;
		}
	dmax = k - st->emin;
	if (bands == 0 && rows == 0)
	{
		st->nbands = dmax + 1;
		st->nrowsband = st->emin > 0 ? k / st->nbands : 0;
	}
	else
	{
		if (bands == 0)
			bands = k / rows;
		if (rows == 0)
			rows = k / bands;
		if (bands < 1 || rows < 1 || (int64) bands * rows > k)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%d bands of %d rows do not fit in sketches of k=%d values",
							bands, rows, k),
					 errdetail("bands * rows must be at most k.")));
		st->nbands = bands;
		st->nrowsband = rows;
	}
	st->exact = st->emin > 0 && st->nbands > dmax;
}

/* Compare every pair (threshold 0, or no band can be equal-guaranteed). */
static void
sk_all_pairs(SkState *st)
{
	uint64		n = st->nrows;

	if (st->mode == SK_CLUSTER)
	{
		/* every pair is linked: one component */
		for (uint64 x = 1; x < n; x++)
			nddup_uf_union(st->parent, st->usize, 0, (uint32) x);
		return;
	}
	for (uint64 x = 0; x < n; x++)
	{
		CHECK_FOR_INTERRUPTS();
		for (uint64 y = x + 1; y < n; y++)
		{
			const uint32 *a = st->vals + x * st->k;
			const uint32 *b = st->vals + y * st->k;
			int			e = 0;
			bool		ex = st->flags[x] & ROW_EMPTY;
			bool		ey = st->flags[y] & ROW_EMPTY;

			if ((y & 0xfff) == 0)
				CHECK_FOR_INTERRUPTS();
			if (!sk_may_pair(st, (uint32) x, (uint32) y))
				continue;
			st->ncand++;
			if (ex || ey)
			{
				/* jaccard(empty, empty) = 1, jaccard(empty, other) = 0 */
				e = (ex && ey) ? st->k : 0;
				if ((e == 0 && st->threshold <= 0.0) || e == st->k)
					sk_found(st, (uint32) x, (uint32) y, e ? 1.0 : 0.0);
				continue;
			}
			for (int i = 0; i < st->k; i++)
				e += a[i] == b[i];
			if (e >= st->emin)
				sk_found(st, (uint32) x, (uint32) y,
						 nddup_minhash_estimate(e, st->k, st->params->bits));
		}
	}
}

/* Pairs of sketches of empty documents: all of them, resemblance 1. */
static void
sk_empty_pairs(SkState *st)
{
	uint32	   *e = palloc(Max(st->nrows, 1) * sizeof(uint32));
	uint64		ne = 0;

	for (uint64 i = 0; i < st->nrows; i++)
		if (st->flags[i] & ROW_EMPTY)
			e[ne++] = (uint32) i;
	if (st->mode == SK_CLUSTER)
	{
		/* one component; no need to look at every pair */
		for (uint64 i = 1; i < ne; i++)
			nddup_uf_union(st->parent, st->usize, e[0], e[i]);
		ne = 0;
	}
	for (uint64 i = 0; i < ne; i++)
	{
		CHECK_FOR_INTERRUPTS();
		for (uint64 j = i + 1; j < ne; j++)
		{
			if ((j & 0xfff) == 0)
				CHECK_FOR_INTERRUPTS();
			if (sk_may_pair(st, e[i], e[j]))
				sk_found(st, e[i], e[j], 1.0);
		}
	}
	pfree(e);
}

/*
 * The banded search: for every band, the entries (key of the band's values,
 * row) of the non-empty rows are sorted, and every pair inside a run of
 * equal keys is a candidate.
 */
static void
sk_banded_pairs(SkState *st)
{
	uint64		n = st->nrows;
	int			k = st->k;
	int			r = st->nrowsband;
	SkEntry    *ent = MemoryContextAllocHuge(st->cxt, Max(n, 1) * sizeof(SkEntry));
	SkEntry    *tmp = MemoryContextAllocHuge(st->cxt, Max(n, 1) * sizeof(SkEntry));

	sk_group_identical(st, ent, tmp);
	for (int j = 0; j < st->nbands; j++)
	{
		uint64		m = 0;
		SkEntry    *sorted;

		for (uint64 i = 0; i < n; i++)
		{
			if ((i & 0xffff) == 0)
				CHECK_FOR_INTERRUPTS();
			if (st->flags[i] & (ROW_EMPTY | ROW_MEMBER))
				continue;
			ent[m].key = sk_band_key(st->vals + i * k + j * r, r);
			ent[m].row = i;
			m++;
		}
		sorted = sk_sort_entries(ent, tmp, m);
		for (uint64 s = 0; s < m;)
		{
			uint64		e = s + 1;

			while (e < m && sorted[e].key == sorted[s].key)
				e++;
			for (uint64 x = s; x + 1 < e; x++)
			{
				CHECK_FOR_INTERRUPTS();
				for (uint64 y = x + 1; y < e; y++)
					sk_candidate(st, (uint32) sorted[x].row,
								 (uint32) sorted[y].row, j);
			}
			if ((s & 0xffff) == 0 || e - s > 1)
				CHECK_FOR_INTERRUPTS();
			s = e;
		}
		if (st->progress && (j + 1) * 10 / st->nbands != j * 10 / st->nbands)
			ereport(NOTICE,
					(errmsg_internal("%s: band %d of %d, %llu candidates, %llu result rows so far",
									 st->fname, j + 1, st->nbands,
									 (unsigned long long) st->ncand,
									 (unsigned long long) st->nout)));
	}
	pfree(ent);
	pfree(tmp);
}

/* ----------------------------------------------------------------
 *		Pairs of super-shingle arrays
 * ----------------------------------------------------------------
 */

/*
 * Broder's super-shingle pairs, "at least r of s": for each position p (a
 * pair first agreeing after position s - r cannot reach r matches) sort the
 * entries (value, row); a pair in a run is reported when p is the first
 * position on which it agrees and it agrees on at least r positions.
 */
static void
sk_super_pairs(SkState *st)
{
	uint64		n = st->nrows;
	int			s = st->k;
	SkEntry    *ent = MemoryContextAllocHuge(st->cxt, Max(n, 1) * sizeof(SkEntry));
	SkEntry    *tmp = MemoryContextAllocHuge(st->cxt, Max(n, 1) * sizeof(SkEntry));

	for (int p = 0; p <= s - st->match_r; p++)
	{
		SkEntry    *sorted;

		for (uint64 i = 0; i < n; i++)
		{
			if ((i & 0xffff) == 0)
				CHECK_FOR_INTERRUPTS();
			/* fmix64 is a bijection: equal keys are equal values */
			ent[i].key = nddup_fmix64((uint64) st->ss[i * s + p]);
			ent[i].row = i;
		}
		sorted = sk_sort_entries(ent, tmp, n);
		for (uint64 a = 0; a < n;)
		{
			uint64		e = a + 1;

			while (e < n && sorted[e].key == sorted[a].key)
				e++;
			for (uint64 x = a; x + 1 < e; x++)
			{
				const int64 *u = st->ss + sorted[x].row * s;

				CHECK_FOR_INTERRUPTS();
				for (uint64 y = x + 1; y < e; y++)
				{
					const int64 *v = st->ss + sorted[y].row * s;
					int			matches = 1;
					bool		first = true;
					Datum		values[3];
					bool		nulls[3] = {false, false, false};
					int64		id1 = st->id[sorted[x].row];
					int64		id2 = st->id[sorted[y].row];

					for (int i = 0; i < p && first; i++)
						if (u[i] == v[i])
							first = false;
					if (!first)
						continue;
					st->ncand++;
					for (int i = p + 1; i < s; i++)
						matches += u[i] == v[i];
					if (matches < st->match_r)
						continue;
					values[0] = Int64GetDatum(Min(id1, id2));
					values[1] = Int64GetDatum(Max(id1, id2));
					values[2] = Int32GetDatum(matches);
					tuplestore_putvalues(st->out, st->outdesc, values, nulls);
					st->nout++;
				}
			}
			if ((a & 0xffff) == 0)
				CHECK_FOR_INTERRUPTS();
			a = e;
		}
	}
	pfree(ent);
	pfree(tmp);
}

/* ----------------------------------------------------------------
 *		Clusters
 * ----------------------------------------------------------------
 */

/* Is row a an earlier representative than row b (order key, then id)? */
static inline bool
sk_row_before(const SkState *st, uint32 a, uint32 b)
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

/*
 * After the pairs are linked: rows sharing an id are one node, each
 * component is named after its earliest row (order key, NULLs last, then
 * smallest id), one result row per distinct id in id order (the rule of
 * hamming_clusters, docs/batch.md).
 */
static void
sk_finish_clusters(SkState *st)
{
	uint64		n = st->nrows;
	SkEntry    *ent = MemoryContextAllocHuge(st->cxt, Max(n, 1) * sizeof(SkEntry));
	SkEntry    *tmp = MemoryContextAllocHuge(st->cxt, Max(n, 1) * sizeof(SkEntry));
	SkEntry    *sorted;
	uint32	   *rep = MemoryContextAllocHuge(st->cxt, Max(n, 1) * sizeof(uint32));
	uint32	   *count = MemoryContextAllocHuge(st->cxt, Max(n, 1) * sizeof(uint32));

	/* sort by id (mixed, for the buckets; equal ids meet) then row */
	for (uint64 i = 0; i < n; i++)
	{
		ent[i].key = nddup_fmix64((uint64) st->id[i]);
		ent[i].row = i;
	}
	sorted = sk_sort_entries(ent, tmp, n);
	for (uint64 i = 1; i < n; i++)
		if (sorted[i].key == sorted[i - 1].key)
			nddup_uf_union(st->parent, st->usize, (uint32) sorted[i - 1].row,
						(uint32) sorted[i].row);
	for (uint64 i = 0; i < n; i++)
	{
		rep[i] = PG_UINT32_MAX;
		count[i] = 0;
	}
	for (uint64 i = 0; i < n; i++)
	{
		uint32		row = (uint32) sorted[i].row;
		uint32		root = nddup_uf_find(st->parent, row);

		if ((i & 0xffff) == 0)
			CHECK_FOR_INTERRUPTS();
		if (rep[root] == PG_UINT32_MAX || sk_row_before(st, row, rep[root]))
			rep[root] = row;
		if (i == 0 || sorted[i].key != sorted[i - 1].key)
			count[root]++;
	}
	for (uint64 i = 0; i < n; i++)
	{
		uint32		row = (uint32) sorted[i].row;
		uint32		root;
		Datum		values[2];
		bool		nulls[2] = {false, false};

		if ((i & 0xffff) == 0)
			CHECK_FOR_INTERRUPTS();
		if (i > 0 && sorted[i].key == sorted[i - 1].key)
			continue;
		root = nddup_uf_find(st->parent, row);
		if (!st->singletons && count[root] < 2)
			continue;
		values[0] = Int64GetDatum(st->id[row]);
		values[1] = Int64GetDatum(st->id[rep[root]]);
		tuplestore_putvalues(st->out, st->outdesc, values, nulls);
		st->nout++;
	}
}

/* ----------------------------------------------------------------
 *		Driver
 * ----------------------------------------------------------------
 */

/* Set up the state and the result tuplestore of a call. */
static SkState *
sk_begin(FunctionCallInfo fcinfo, SkMode mode, const char *fname)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	SkState    *st;

	InitMaterializedSRF(fcinfo, 0);
	st = palloc0(sizeof(SkState));
	st->mode = mode;
	st->fname = fname;
	st->singletons = true;
	st->progress = nddup_progress;
	st->sketch_oid = mode == SK_SUPER ? InvalidOid : nddup_lookup_type(fcinfo, "minhash_sketch");
	st->mem_limit = (int64) work_mem * 1024;
	st->out = rsinfo->setResult;
	st->outdesc = rsinfo->setDesc;
	st->cxt = AllocSetContextCreate(CurrentMemoryContext, "nddup batch sketch",
									ALLOCSET_DEFAULT_SIZES);
	return st;
}

/* Compute and emit the result once the input is read; frees the state. */
static void
sk_finish(SkState *st, int32 bands, int32 rows)
{
	instr_time	t0;
	instr_time	t1;
	MemoryContext old;

	sk_log(st, "%s: read %llu rows (%llu skipped)", st->fname,
		   (unsigned long long) st->nrows, (unsigned long long) st->nskipped);
	if (st->over_limit)
		sk_error_work_mem(st);
	old = MemoryContextSwitchTo(st->cxt);
	INSTR_TIME_SET_CURRENT(t0);
	if (st->mode == SK_SUPER)
	{
		if (st->nrows > 1)
			sk_super_pairs(st);
	}
	else if (st->nrows > 0)
	{
		sk_choose_bands(st, bands, rows);
		if (st->mode == SK_CLUSTER)
		{
			st->parent = MemoryContextAllocHuge(st->cxt, st->nrows * sizeof(uint32));
			st->usize = MemoryContextAllocHuge(st->cxt, st->nrows * sizeof(uint32));
			for (uint64 i = 0; i < st->nrows; i++)
			{
				st->parent[i] = (uint32) i;
				st->usize[i] = 1;
			}
		}
		if (st->emin == 0)
		{
			sk_log(st, "%s: threshold %g is met by every pair: comparing all pairs",
				   st->fname, st->threshold);
			sk_all_pairs(st);
		}
		else
		{
			sk_log(st, "%s: k=%d, at least %d equal positions, %d bands of %d rows (%s)",
				   st->fname, st->k, st->emin, st->nbands, st->nrowsband,
				   st->exact ? "exact" : "approximate");
			sk_empty_pairs(st);
			sk_banded_pairs(st);
		}
		if (st->mode == SK_CLUSTER)
			sk_finish_clusters(st);
	}
	INSTR_TIME_SET_CURRENT(t1);
	INSTR_TIME_SUBTRACT(t1, t0);
	sk_log_time(st, INSTR_TIME_GET_MILLISEC(t1),
				"%s: %llu candidates verified, %llu result rows",
				st->fname, (unsigned long long) st->ncand,
				(unsigned long long) st->nout);
	MemoryContextSwitchTo(old);
	MemoryContextDelete(st->cxt);
}

/*
 * The optional bands and rows arguments (NULL = 0 = choose).  They are
 * bigint in SQL only so that a call of the relation form with an integer
 * threshold, minhash_pairs('docs', 'id', 'sk', 1), resolves to the relation
 * form: with integer band arguments the query form would match the integer
 * exactly and win, and fail on 'id' as a float8.
 */
static void
sk_band_args(FunctionCallInfo fcinfo, int bandarg, int32 *bands, int32 *rows)
{
	*bands = PG_ARGISNULL(bandarg) ? 0 :
		sk_check_band_arg("bands", PG_GETARG_INT64(bandarg));
	*rows = PG_ARGISNULL(bandarg + 1) ? 0 :
		sk_check_band_arg("rows per band", PG_GETARG_INT64(bandarg + 1));
}

/* Column roles of an (id, sketch[, order key]) query. */
static const NddupColRole sketch_cols[] = {NDDUP_COL_ID, NDDUP_COL_SKETCH, NDDUP_COL_ORDER};

/* Column roles of an (id, super-shingles) query. */
static const NddupColRole super_cols[] = {NDDUP_COL_ID, NDDUP_COL_SUPER};

/* Common body of minhash_pairs and minhash_clusters. */
static void
sk_pairs_or_clusters(FunctionCallInfo fcinfo, SkMode mode, const char *fname,
					 const char *query, double threshold, int32 bands,
					 int32 rows, bool singletons)
{
	SkState    *st;

	sk_check_threshold(threshold);
	st = sk_begin(fcinfo, mode, fname);
	st->threshold = threshold;
	st->singletons = singletons;
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	sk_read_input(st, "the query", query, sketch_cols, 2,
				  mode == SK_CLUSTER ? 3 : 2, 0);
	SPI_finish();
	sk_finish(st, bands, rows);
}

/*
 * minhash_pairs(query text, threshold float8, bands int, rows int): all
 * pairs of rows whose estimated resemblance is at least threshold.
 */
Datum
minhash_pairs_query(PG_FUNCTION_ARGS)
{
	int32		bands,
				rows;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
	{
		InitMaterializedSRF(fcinfo, 0);
		return (Datum) 0;
	}
	sk_band_args(fcinfo, 2, &bands, &rows);
	sk_pairs_or_clusters(fcinfo, SK_PAIRS, "minhash_pairs",
						 text_to_cstring(PG_GETARG_TEXT_PP(0)),
						 PG_GETARG_FLOAT8(1), bands, rows, true);
	return (Datum) 0;
}

/*
 * minhash_pairs(rel regclass, id_column name, sketch_column name, threshold
 * float8, bands int, rows int): the same over a relation.
 */
Datum
minhash_pairs_rel(PG_FUNCTION_ARGS)
{
	int32		bands,
				rows;
	char	   *query;

	if (nddup_dist_minhash_pairs(fcinfo))
		return (Datum) 0;
	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2) ||
		PG_ARGISNULL(3))
	{
		InitMaterializedSRF(fcinfo, 0);
		return (Datum) 0;
	}
	sk_band_args(fcinfo, 4, &bands, &rows);
	sk_check_threshold(PG_GETARG_FLOAT8(3));
	query = nddup_relation_query(PG_GETARG_OID(0), PG_GETARG_NAME(1),
								 PG_GETARG_NAME(2), NULL);
	sk_pairs_or_clusters(fcinfo, SK_PAIRS, "minhash_pairs", query,
						 PG_GETARG_FLOAT8(3), bands, rows, true);
	return (Datum) 0;
}

/*
 * minhash_join(query_a, query_b, threshold, bands, rows): pairs (a, b) of a
 * row of each query whose estimated resemblance is at least threshold.
 */
Datum
minhash_join_query(PG_FUNCTION_ARGS)
{
	int32		bands,
				rows;
	SkState    *st;
	char	   *qa;
	char	   *qb;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2))
	{
		InitMaterializedSRF(fcinfo, 0);
		return (Datum) 0;
	}
	sk_band_args(fcinfo, 3, &bands, &rows);
	sk_check_threshold(PG_GETARG_FLOAT8(2));
	qa = text_to_cstring(PG_GETARG_TEXT_PP(0));
	qb = text_to_cstring(PG_GETARG_TEXT_PP(1));
	st = sk_begin(fcinfo, SK_JOIN, "minhash_join");
	st->threshold = PG_GETARG_FLOAT8(2);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	sk_read_input(st, "query_a", qa, sketch_cols, 2, 2, 0);
	sk_read_input(st, "query_b", qb, sketch_cols, 2, 2, 1);
	SPI_finish();
	sk_finish(st, bands, rows);
	return (Datum) 0;
}

/*
 * minhash_clusters(query, threshold, bands, rows, singletons): connected
 * components of the pairs, named after their earliest member.
 */
Datum
minhash_clusters_query(PG_FUNCTION_ARGS)
{
	int32		bands,
				rows;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
	{
		InitMaterializedSRF(fcinfo, 0);
		return (Datum) 0;
	}
	sk_band_args(fcinfo, 2, &bands, &rows);
	sk_pairs_or_clusters(fcinfo, SK_CLUSTER, "minhash_clusters",
						 text_to_cstring(PG_GETARG_TEXT_PP(0)),
						 PG_GETARG_FLOAT8(1), bands, rows,
						 PG_ARGISNULL(4) ? true : PG_GETARG_BOOL(4));
	return (Datum) 0;
}

/*
 * minhash_clusters(rel, id_column, sketch_column, threshold, order_column,
 * singletons): the same over a relation; order_column may be NULL.
 */
Datum
minhash_clusters_rel(PG_FUNCTION_ARGS)
{
	char	   *query;

	if (nddup_dist_minhash_clusters(fcinfo))
		return (Datum) 0;
	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2) ||
		PG_ARGISNULL(3))
	{
		InitMaterializedSRF(fcinfo, 0);
		return (Datum) 0;
	}
	sk_check_threshold(PG_GETARG_FLOAT8(3));
	query = nddup_relation_query(PG_GETARG_OID(0), PG_GETARG_NAME(1),
								 PG_GETARG_NAME(2),
								 PG_ARGISNULL(4) ? NULL : PG_GETARG_NAME(4));
	sk_pairs_or_clusters(fcinfo, SK_CLUSTER, "minhash_clusters", query,
						 PG_GETARG_FLOAT8(3), 0, 0,
						 PG_ARGISNULL(5) ? true : PG_GETARG_BOOL(5));
	return (Datum) 0;
}

/*
 * super_shingle_pairs(query text, r int): all pairs of rows (id, bigint[])
 * with at least r equal super-shingles at the same positions.
 */
Datum
super_shingle_pairs_query(PG_FUNCTION_ARGS)
{
	char	   *query = text_to_cstring(PG_GETARG_TEXT_PP(0));
	int32		r = PG_GETARG_INT32(1);
	SkState    *st;

	if (r < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("number of matches r %d is out of range", r),
				 errdetail("r must be at least 1.")));
	st = sk_begin(fcinfo, SK_SUPER, "super_shingle_pairs");
	st->match_r = r;
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	sk_read_input(st, "the query", query, super_cols, 2, 2, 0);
	SPI_finish();
	sk_finish(st, 0, 0);
	return (Datum) 0;
}
