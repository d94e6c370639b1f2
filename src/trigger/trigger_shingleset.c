/*-------------------------------------------------------------------------
 *
 * trigger_shingleset.c
 *	  What method=shingleset of the insert-time trigger adds: the lock keys
 *	  of an exact shingle set and the resemblance shown by action=error
 *	  (docs/trigger.md#exact-shingle-sets).
 *
 * Lock keys by prefix filtering (Chaudhuri, Ganti and Kaushik 2006; Bayardo,
 * Ma and Srikant 2007, "AllPairs").  Jaccard(x, y) >= t implies
 * |x n y| >= t |x u y| >= t max(|x|, |y|), so the overlap o is at least
 * ceil(t |x|) and ceil(t |y|).  Order every set by one global order (the
 * stored order of the hashes: ascending); if the first |x| - o + 1
 * elements of x and the first |y| - o + 1 of y had nothing in common, x
 * and y would share at most o - 1 elements.  So two sets that reach the
 * threshold share a hash among the first p(x) = |x| - ceil(t |x|) + 1
 * hashes of each, and locking the keys of those prefix hashes serializes
 * every pair the lookup could find, as the band keys of min-hash do.  The
 * count is rounded as the index rounds it (ceil(t n - 1e-6)), which can
 * only lengthen the prefix.  Empty sets resemble only each other (r = 1)
 * and share one key.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "trigger.h"

#include "common/hashfn.h"

/* Lock key of the sets of documents without shingles. */
#define NDDUP_EMPTY_SET_KEY		0x454D5053	/* "EMPS" */

/* A shingleset datum, detoasted. */
static const NddupShingleSet *
set_of(Datum d)
{
	return (const NddupShingleSet *) PG_DETOAST_DATUM(d);
}

/*
 * The number of lock keys of a set at threshold t: its prefix length
 * (file header), 1 for an empty set.
 */
int
nddup_dedup_set_nkeys(Datum set, double threshold)
{
	const NddupShingleSet *s = set_of(set);
	int64		need;

	if (s->nitems == 0)
		return 1;
	need = (int64) ceil(threshold * s->nitems - 1e-6);
	need = Max(need, 1);
	return (int) (s->nitems - need + 1);
}

/*
 * The lock keys of a set (appended to keys, nddup_dedup_set_nkeys() of
 * them; returns their number): one per hash of its prefix, the 64-bit hash
 * folded to 32 bits.
 */
int
nddup_dedup_set_keys(Datum set, double threshold, uint32 *keys)
{
	const NddupShingleSet *s = set_of(set);
	int			n = nddup_dedup_set_nkeys(set, threshold);

	if (s->nitems == 0)
	{
		keys[0] = NDDUP_EMPTY_SET_KEY;
		return 1;
	}
	for (int i = 0; i < n; i++)
		keys[i] = hash_combine((uint32) s->items[i], (uint32) (s->items[i] >> 32));
	return n;
}

/* The exact resemblance (Jaccard) of two shingle sets; 1 for two empty sets. */
double
nddup_dedup_set_resemblance(Datum a, Datum b)
{
	const NddupShingleSet *x = set_of(a);
	const NddupShingleSet *y = set_of(b);
	size_t		common;

	if (x->nitems == 0 && y->nitems == 0)
		return 1.0;
	common = nddup_intersection_count(x->items, x->nitems, y->items, y->nitems);
	return (double) common / (double) (x->nitems + y->nitems - common);
}
