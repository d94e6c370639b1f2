/*-------------------------------------------------------------------------
 *
 * trigger_shingleset.c
 *	  What method=shingleset of the insert-time trigger adds: the lock keys
 *	  of an exact shingle set and the resemblance (or containment) shown by
 *	  action=error
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
 * measure=containment (|Q n D| / |Q| >= t, the new row's set Q mostly in
 * an original D) is not symmetric: of two rows stored at once, either may
 * be judged against the other, and Q's prefix meets D anywhere in D.  So
 * each row locks every hash of its set; two rows that share a hash share a
 * key.  An empty set is contained in every set: it takes the table key.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "trigger/trigger.h"

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
 * The number of lock keys of a set: its prefix length at the threshold
 * (file header), 1 for an empty set; with measure=containment every hash,
 * and for an empty set (contained in every set) more than any row may take,
 * so that it takes the table key.
 */
int
nddup_dedup_set_nkeys(const DedupConfig *cfg, Datum set)
{
	const NddupShingleSet *s = set_of(set);
	int64		need;

	if (s->nitems == 0)
		return cfg->containment ? INT_MAX / 4 : 1;
	if (cfg->containment)
		return (int) Min(s->nitems, (uint32) (INT_MAX / 4));
	need = (int64) ceil(cfg->threshold * s->nitems - 1e-6);
	need = Max(need, 1);
	return (int) (s->nitems - need + 1);
}

/*
 * The lock keys of a set (appended to keys, nddup_dedup_set_nkeys() of
 * them; returns their number): one per hash of its prefix (every hash with
 * measure=containment), the 64-bit hash folded to 32 bits.
 */
int
nddup_dedup_set_keys(const DedupConfig *cfg, Datum set, uint32 *keys)
{
	const NddupShingleSet *s = set_of(set);
	int			n = nddup_dedup_set_nkeys(cfg, set);

	if (s->nitems == 0)
	{
		keys[0] = NDDUP_EMPTY_SET_KEY;
		return 1;
	}
	for (int i = 0; i < n; i++)
		keys[i] = hash_combine((uint32) s->items[i], (uint32) (s->items[i] >> 32));
	return n;
}

/*
 * The measure of the new row's set a against the original's b: their exact
 * resemblance (1 for two empty sets), or with measure=containment the share
 * of a in b (1 for an empty a).
 */
double
nddup_dedup_set_measure(const DedupConfig *cfg, Datum a, Datum b)
{
	const NddupShingleSet *x = set_of(a);
	const NddupShingleSet *y = set_of(b);
	size_t		common;

	if (x->nitems == 0 && (cfg->containment || y->nitems == 0))
		return 1.0;
	common = nddup_intersection_count(x->items, x->nitems, y->items, y->nitems);
	if (cfg->containment)
		return (double) common / (double) x->nitems;
	return (double) common / (double) (x->nitems + y->nitems - common);
}
