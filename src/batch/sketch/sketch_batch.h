/*-------------------------------------------------------------------------
 *
 * sketch_batch.h
 *	  The batch functions over resemblance sketches (minhash_pairs,
 *	  minhash_join, minhash_clusters, super_shingle_pairs): candidates from
 *	  locality-sensitive bands (or super-shingle positions), verified by the
 *	  estimate itself, in memory or through temporary files, on the shared
 *	  layer of batch.h.  See docs/batch-sketches.md.
 *
 *-------------------------------------------------------------------------
 */
#ifndef NDDUP_SKETCH_BATCH_H
#define NDDUP_SKETCH_BATCH_H

#include "batch/batch.h"

/* Row flags of the sketch functions (beside BATCH_ROW_SIDE1, AUXNULL). */
#define ROW_EMPTY				(BATCH_ROW_METHOD << 0) /* sketch of a document
														 * without shingles */
#define ROW_MEMBER				(BATCH_ROW_METHOD << 1) /* sketch equal to an
														 * earlier row's */
#define ROW_GSIDE0				(BATCH_ROW_METHOD << 2) /* leader: its group has
														 * side-0 rows */
#define ROW_GSIDE1				(BATCH_ROW_METHOD << 3) /* leader: its group has
														 * side-1 rows */

/* End of a list of group members. */
#define NO_ROW					PG_UINT32_MAX

/* Everything one call works on. */
typedef struct SketchBatch
{
	BatchCall  *call;
	BatchRows	rows;			/* payload: k values (uint32, or int64 for
								 * super-shingles) */
	bool		super;			/* super_shingle_pairs */
	Oid			sketch_oid;		/* minhash_sketch in our schema */
	int			side;			/* side of the rows being read */
	bool		has_order;		/* the input has an order column */

	/* parameters of the input, from its first row */
	bool		have_params;
	NddupMinhash *params;		/* header of the first sketch */
	int			k;				/* values per row (super: super-shingles) */

	/* the test and the bands */
	double		threshold;
	int			emin;			/* least equal positions of a result */
	int			nbands;
	int			nrowsband;		/* positions per band */
	bool		exact;
	bool		auto_bands;		/* the bands were chosen, not given */
	int			match_r;		/* super_shingle_pairs: r */

	/* the prefix filter (sketch_prefix.c): NULL = the bands */
	uint64	   *prefix;			/* per row, pwords words: its positions */
	int			pwords;		/* super_shingle_pairs: r */

	/* groups of identical sketches: leader -> members list */
	uint32	   *gnext;

	/* clusters: union-find over rows */
	BatchUnionFind uf;

	/* verified candidates: the rows' extra part is the reduced value */
	BatchVerify verify;
} SketchBatch;

/* The k values of row i of rows held in memory. */
static inline uint32 *
sketch_values(const SketchBatch *sb, uint64 i)
{
	return (uint32 *) (sb->rows.payload + i * sb->rows.payload_size);
}

/* The s super-shingles of row i of rows held in memory. */
static inline int64 *
sketch_supers(const SketchBatch *sb, uint64 i)
{
	return (int64 *) (sb->rows.payload + i * sb->rows.payload_size);
}

/* Key of r consecutive 32-bit values (one band of a sketch). */
static inline uint64
sketch_band_key(const uint32 *v, int r)
{
	uint64		h = UINT64CONST(0x9e3779b97f4a7c15);
	int			i = 0;

	for (; i + 1 < r; i += 2)
		h = nddup_fmix64(h ^ ((uint64) v[i] << 32 | v[i + 1]));
	if (i < r)
		h = nddup_fmix64(h ^ v[i] ^ (UINT64CONST(1) << 40));
	return h;
}

/* Equal positions of two sketches' values. */
static inline int
sketch_equal_count(const uint32 *a, const uint32 *b, int k)
{
	int			e = 0;

	for (int i = 0; i < k; i++)
		e += a[i] == b[i];
	return e;
}

/* Are positions [from, from + len) of a and b all equal? */
static inline bool
sketch_range_equal(const uint32 *a, const uint32 *b, int from, int len)
{
	for (int i = from; i < from + len; i++)
		if (a[i] != b[i])
			return false;
	return true;
}

/*
 * Two super-shingle arrays of s values found at position p: 0 unless p is
 * the first position on which they agree (that position reports the pair),
 * else the number of positions on which they agree.
 */
static inline int
super_matches_from(const int64 *u, const int64 *v, int s, int p)
{
	int			matches = 1;

	for (int i = 0; i < p; i++)
		if (u[i] == v[i])
			return 0;
	for (int i = p + 1; i < s; i++)
		matches += u[i] == v[i];
	return matches;
}

/* Is position p in the prefix of row i (sketch_prefix.c)? */
static inline bool
sketch_in_prefix(const SketchBatch *sb, uint64 i, int p)
{
	return (sb->prefix[i * sb->pwords + p / 64] >> (p % 64)) & 1;
}

/*
 * Equal positions of two sketches' values, or -1 once more than k - emin
 * positions differ (the pair cannot reach emin): counted 16 positions at a
 * time without branches (the compiler vectorizes the block), the budget
 * checked after each block.
 */
static inline int
sketch_equal_at_least(const uint32 *a, const uint32 *b, int k, int emin)
{
	int			e = 0;
	int			i = 0;

	for (; i + 16 <= k; i += 16)
	{
		int			block = 0;

		for (int j = 0; j < 16; j++)
			block += a[i + j] == b[i + j];
		e += block;
		if (i + 16 - e > k - emin)
			return -1;
	}
	for (; i < k; i++)
		e += a[i] == b[i];
	return e >= emin ? e : -1;
}

/* sketch_prefix.c: the prefix filter, and the choice of the plan */
extern void sketch_choose_plan(SketchBatch *sb);
extern bool sketch_prefix_search(SketchBatch *sb,
								 void (*found) (SketchBatch *sb, uint32 x, uint32 y, double res),
								 bool (*may_pair) (SketchBatch *sb, uint32 x, uint32 y));

/* sketch_memory.c: the in-memory path */
extern void sketch_pairs_in_memory(SketchBatch *sb);
extern void sketch_super_pairs_in_memory(SketchBatch *sb);

/* sketch_spill.c: the path through temporary files */
extern void sketch_pairs_spilled(SketchBatch *sb);
extern void sketch_super_pairs_spilled(SketchBatch *sb);

/*
 * Do rows x and y pass the verification?  *res becomes the verified
 * resemblance; true (res unchanged) when the call does not verify.
 */
static inline bool
sketch_rows_verified(SketchBatch *sb, uint32 x, uint32 y, double *res)
{
	const char *a;
	const char *b;
	uint32		alen;
	uint32		blen;

	if (!sb->verify.active)
		return true;
	a = batch_rows_extra(&sb->rows, x, &alen);
	b = batch_rows_extra(&sb->rows, y, &blen);
	return batch_verify_pair(&sb->verify, a, alen, sb->rows.flags[x],
							 b, blen, sb->rows.flags[y], res);
}

/*
 * Append a found pair: (a, b) of a join with a the row of query_a; else
 * the smaller id first.
 */
static inline void
sketch_put_pair(SketchBatch *sb, int64 ida, uint8 flagsa, int64 idb,
				uint8 flagsb, double res)
{
	if (sb->call->mode == BATCH_JOIN)
	{
		if (flagsa & BATCH_ROW_SIDE1)
			batch_put_pair(sb->call, idb, ida, Float8GetDatum(res));
		else
			batch_put_pair(sb->call, ida, idb, Float8GetDatum(res));
	}
	else
		batch_put_ordered_pair(sb->call, ida, idb, Float8GetDatum(res));
}

#endif							/* NDDUP_SKETCH_BATCH_H */
