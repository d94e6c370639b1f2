/*-------------------------------------------------------------------------
 *
 * set_filter.c
 *	  The filters of the exact resemblance join of shingle sets, shared by
 *	  the in-memory and the spilled path: the document frequencies and the
 *	  global order of the shingles, the prefixes, the length filter, the
 *	  exact measure, and the output of a verified pair.
 *
 * Prefix filtering (Chaudhuri, Ganti and Kaushik, ICDE 2006; Bayardo, Ma
 * and Srikant, WWW 2007, s.4): order all shingles globally, rarest first
 * (document frequency over the input, then hash).  Two sets sharing o >=
 * alpha shingles have their first common shingle w among the first
 * |x| - alpha + 1 shingles of each: the shingles of x before w are not
 * common, so there are at most |x| - o of them.  A pair whose Jaccard
 * reaches t has o >= t |x u y| >= t max(|x|, |y|), so alpha = floor(t |x|)
 * (at least 1) is safe for each set on its own (floor rather than ceil
 * keeps the guarantee when t |x| is an integer up to rounding).  For
 * containment of x in y (o >= t |x|) only x's prefix is needed, against all
 * of y's shingles.  The sets sharing a prefix shingle are the candidates; a
 * length filter (t |y| <= |x| for Jaccard) drops some, and each is verified
 * with the exact measure, computed as jaccard() and containment() compute
 * it.
 *
 * The document frequencies are counted in 2^k saturating 16-bit counters
 * indexed by the top bits of the shingle's mixed hash (at most 8 MB, within
 * a quarter of work_mem): no keys, no probing, one access per shingle, and
 * the counters stay in the CPU's caches.  Shingles sharing a counter share
 * its count, so the order is (count of the counter, hash): a function of the
 * hash alone, which is all exactness needs (any total order keeps the answer
 * exact); rarest first keeps the candidate lists short (frequent shingles,
 * boilerplate, come last and so seldom in a prefix).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "batch/sets/set_batch.h"

#include "miscadmin.h"
#include "utils/memutils.h"

/* a set's prefix (set_row_tokens) sorted by SET_ORDER_KEY, compares inlined */
#define ST_SORT set_sort_order_keys
#define ST_ELEMENT_TYPE uint64
#define ST_COMPARE(a, b) (*(a) < *(b) ? -1 : *(a) > *(b) ? 1 : 0)
#define ST_SCOPE static
#define ST_DEFINE
#include "lib/sort_template.h"

/*
 * The counters: 2^DF_MAX_BITS at most (8 MB, which stays in the CPU's
 * caches), 2^10 at least.
 */
#define DF_MAX_BITS			22
#define DF_MIN_BITS			10

/* How many shingles ahead the counters are prefetched. */
#define DF_PREFETCH_AHEAD	16

/*
 * The selection of a prefix sorts a window of fewer keys than this, or one
 * still open after this many partitions (so its worst case is n log n).
 */
#define SELECT_SORT_BELOW	16
#define SELECT_MAX_ROUNDS	64

/* Prefixes of at most this many keys are sorted by insertion (hashset.c). */
#define INSERTION_SORT_MAX	48

/* The counter of a shingle's hash. */
static inline uint16 *
set_df_counter(const SetBatch *sb, uint64 hash)
{
	return &sb->dfc[nddup_fmix64(hash) >> (64 - sb->dfc_bits)];
}

/* Ask the CPU for the counter of a shingle's hash ahead of its use. */
static inline void
set_df_prefetch(const SetBatch *sb, uint64 hash)
{
	nddup_prefetch(set_df_counter(sb, hash));
}

/* Counters for the document frequencies within 'bytes' (zeroed). */
void
set_df_init(SetBatch *sb, int64 bytes)
{
	int			bits = DF_MIN_BITS;

	while (bits < DF_MAX_BITS && ((int64) sizeof(uint16) << (bits + 1)) <= bytes)
		bits++;
	sb->dfc_bits = bits;
	sb->dfc = MemoryContextAllocZero(sb->call->cxt, sizeof(uint16) << bits);
	sb->counted = 0;
}

/* The number of shingles counted. */
uint64
set_df_size(SetBatch *sb)
{
	return sb->counted;
}

/* The count of a shingle's counter (shared by the shingles it stands for). */
uint32
set_df(SetBatch *sb, uint64 hash)
{
	return *set_df_counter(sb, hash);
}

/* Count the shingles of a set. */
void
set_count_df(SetBatch *sb, const uint64 *items, uint32 n)
{
	for (uint32 i = 0; i < Min(n, DF_PREFETCH_AHEAD); i++)
		set_df_prefetch(sb, items[i]);
	for (uint32 i = 0; i < n; i++)
	{
		uint16	   *c;

		if (i + DF_PREFETCH_AHEAD < n)
			set_df_prefetch(sb, items[i + DF_PREFETCH_AHEAD]);
		c = set_df_counter(sb, items[i]);
		if (*c < PG_UINT16_MAX)
			(*c)++;
	}
	sb->counted += n;
}

/* The scratch of set_row_tokens, for a set of n shingles. */
static void
set_order_scratch(SetBatch *sb, uint32 n)
{
	if (n <= sb->order_cap)
		return;
	if (sb->order)
	{
		pfree(sb->order);
		pfree(sb->order_mark);
	}
	/* n is at most NDDUP_SHINGLESET_MAX_ITEMS, so the doubling cannot wrap */
	sb->order_cap = Max(n, sb->order_cap * 2);
	sb->order = MemoryContextAllocHuge(sb->call->cxt,
									   sizeof(uint64) * (Size) sb->order_cap);
	sb->order_mark = MemoryContextAllocHuge(sb->call->cxt, sb->order_cap);
}

/*
 * Sort n distinct keys: by nddup_sort_unique when they are few (most
 * prefixes: it sorts up to 48 keys by insertion, src/core/hashset.c, and
 * removes nothing from distinct keys), else by quicksort (its radix sort
 * would clear 16 kB of counters for each short run).
 */
static inline void
set_sort_prefix(uint64 *keys, uint32 n)
{
	if (n <= INSERTION_SORT_MAX)
		(void) nddup_sort_unique(keys, n);
	else
		set_sort_order_keys(keys, n);
}

/*
 * Put the k smallest of the n distinct keys first, in no particular order:
 * Hoare's quickselect, a median of three for pivot and a branch-free
 * Lomuto partition.  A window of few keys, or one still open after
 * SELECT_MAX_ROUNDS partitions, is sorted instead.
 */
static void
set_select_smallest(uint64 *keys, uint32 n, uint32 k)
{
	uint32		lo = 0;
	uint32		hi = n;
	int			rounds = 0;

	/* keys[0, lo) < keys[lo, hi) < keys[hi, n), and lo <= k <= hi */
	while (lo < k && k < hi)
	{
		uint32		len = hi - lo;
		uint32		mid = lo + len / 2;
		uint32		med;
		uint32		i = lo;
		uint64		pivot;
		uint64		t;

		if (len < SELECT_SORT_BELOW || ++rounds > SELECT_MAX_ROUNDS)
		{
			set_sort_prefix(keys + lo, len);
			return;
		}
		/* the median of the first, middle and last keys, moved last */
		if (keys[lo] < keys[mid])
			med = keys[mid] < keys[hi - 1] ? mid :
				(keys[lo] < keys[hi - 1] ? hi - 1 : lo);
		else
			med = keys[lo] < keys[hi - 1] ? lo :
				(keys[mid] < keys[hi - 1] ? hi - 1 : mid);
		pivot = keys[med];
		keys[med] = keys[hi - 1];
		keys[hi - 1] = pivot;
		/* keys[lo, i) < pivot <= keys[i, j) */
		for (uint32 j = lo; j < hi - 1; j++)
		{
			t = keys[j];
			keys[j] = keys[i];
			keys[i] = t;
			i += t < pivot;
		}
		keys[hi - 1] = keys[i];
		keys[i] = pivot;
		/* keys[lo, i) < keys[i] < keys(i, hi) */
		if (k <= i)
			hi = i;
		else
			lo = i + 1;
	}
}

/*
 * The shingles a row is entered under, into tokens (room for n), with
 * is_prefix[i] telling whether tokens[i] is in the row's prefix; returns
 * their number.  The prefix of a set of n shingles is its first
 * n - alpha + 1 in the global order, in that order (the rank of each is
 * the positional filter's, set_memory.c); they are selected, and only they
 * sorted.  Jaccard: the prefix.  Containment join: query_a's rows their
 * prefix, query_b's every shingle.  Containment pairs: every shingle, the
 * prefix first and marked, then the others by hash (the smaller set of a
 * pair must meet the larger with a prefix shingle).  Documents without
 * shingles, and samples that kept none, are entered under none.
 */
uint32
set_row_tokens(SetBatch *sb, const uint64 *items, uint32 n, uint8 flags,
			   uint64 *tokens, bool *is_prefix)
{
	uint32		alpha = (uint32) Max(floor(sb->threshold * n), 1.0);
	uint32		p = alpha > n ? 1 : n - alpha + 1;
	uint64	   *keys;
	uint32		m;

	if ((flags & (ROW_EMPTY | ROW_NO_SAMPLE)) || n == 0)
		return 0;
	set_order_scratch(sb, n);
	keys = sb->order;
	for (uint32 i = 0; i < Min(n, DF_PREFETCH_AHEAD); i++)
		set_df_prefetch(sb, items[i]);
	for (uint32 i = 0; i < n; i++)
	{
		if (i + DF_PREFETCH_AHEAD < n)
			set_df_prefetch(sb, items[i + DF_PREFETCH_AHEAD]);
		keys[i] = SET_ORDER_KEY(set_df(sb, items[i]), i);
	}
	if (p < n)
		set_select_smallest(keys, n, p);
	set_sort_prefix(keys, p);
	for (uint32 i = 0; i < p; i++)
	{
		tokens[i] = items[SET_ORDER_INDEX(keys[i])];
		is_prefix[i] = true;
	}
	if (sb->measure == SET_JACCARD ||
		(sb->call->mode == BATCH_JOIN && !(flags & BATCH_ROW_SIDE1)))
		return p;
	/* every shingle: the prefix ones first, then the others */
	memset(sb->order_mark, 0, n);
	for (uint32 i = 0; i < p; i++)
		sb->order_mark[SET_ORDER_INDEX(keys[i])] = true;
	m = p;
	for (uint32 i = 0; i < n; i++)
	{
		if (sb->order_mark[i])
			continue;
		tokens[m] = items[i];
		is_prefix[m] = false;
		m++;
	}
	return m;
}

/*
 * May two rows met under one shingle be a candidate pair?  Not a row with
 * itself; a join pairs the two inputs only; Jaccard needs the shingle in
 * both prefixes; containment in the prefix of the set that must be
 * contained (query_a's row of a join; the smaller set of a pair, ties by
 * row number).  Then the length filter.
 */
bool
set_candidate(const SetBatch *sb, uint32 rowa, uint32 na, uint8 fa, bool pa,
			  uint32 rowb, uint32 nb, uint8 fb, bool pb)
{
	if (rowa == rowb)
		return false;
	if (sb->call->mode == BATCH_JOIN && !((fa ^ fb) & BATCH_ROW_SIDE1))
		return false;
	if (sb->measure == SET_JACCARD)
	{
		if (!pa || !pb)
			return false;
	}
	else if (sb->call->mode == BATCH_JOIN)
	{
		if (!((fa & BATCH_ROW_SIDE1) ? pb : pa))
			return false;
	}
	else
	{
		bool		a_smaller = na < nb || (na == nb && rowa < rowb);

		if (!(a_smaller ? pa : pb))
			return false;
	}
	return set_length_ok(sb, na, fa, nb, fb);
}

/*
 * The length filter: can sets of sizes na and nb reach the threshold?
 * Jaccard is at most min / max; containment of a set is at most 1 whatever
 * the sizes.  Conservative by a rounding margin.
 */
bool
set_length_ok(const SetBatch *sb, uint32 na, uint8 fa, uint32 nb, uint8 fb)
{
	if (sb->measure != SET_JACCARD)
		return true;
	if (na == 0 || nb == 0)
		return na == nb;
	return (double) Min(na, nb) >= sb->threshold * (double) Max(na, nb) * (1.0 - 1e-12);
}

/*
 * The measure of two sets (hashes ascending) and whether it reaches the
 * threshold, as jaccard() and containment() compute it.
 */
bool
set_measure(SetBatch *sb, const uint64 *a, uint32 na, uint8 fa,
			const uint64 *b, uint32 nb, uint8 fb, double *score)
{
	uint64		common;
	double		denom;

	if ((fa | fb) & ROW_NO_SAMPLE)
		return false;
	if ((fa & ROW_EMPTY) || (fb & ROW_EMPTY))
	{
		/* r(empty, empty) = 1, r(empty, B) = 0; no containment pairs */
		*score = 1.0;
		return sb->measure == SET_JACCARD && (fa & ROW_EMPTY) && (fb & ROW_EMPTY);
	}
	common = nddup_intersection_count(a, na, b, nb);
	if (sb->measure == SET_JACCARD)
		denom = (double) ((uint64) na + nb - common);
	else if (sb->call->mode == BATCH_JOIN)
		denom = (double) ((fa & BATCH_ROW_SIDE1) ? nb : na);
	else
		denom = (double) Min(na, nb);
	if (denom <= 0)
		return false;
	*score = (double) common / denom;
	return *score >= sb->threshold;
}

/* A verified pair of rows: emit it, or link it (clusters). */
void
set_found(SetBatch *sb, uint32 x, int64 idx, uint8 fx, uint32 y, int64 idy,
		  uint8 fy, double score)
{
	BatchCall  *call = sb->call;

	if (call->mode == BATCH_CLUSTER)
		batch_uf_union(&sb->uf, x, y);
	else if (call->mode == BATCH_JOIN)
	{
		if (fx & BATCH_ROW_SIDE1)
			batch_put_pair(call, idy, idx, Float8GetDatum(score));
		else
			batch_put_pair(call, idx, idy, Float8GetDatum(score));
	}
	else
		batch_put_ordered_pair(call, idx, idy, Float8GetDatum(score));
}

