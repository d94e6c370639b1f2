/*-------------------------------------------------------------------------
 *
 * hamming_batch.h
 *	  The batch functions over simhash64 fingerprints (hamming_pairs,
 *	  hamming_join, hamming_clusters, hamming_assign): the permuted tables of
 *	  Manku, Jain and Das Sarma (WWW 2007, s.3) in memory or partitioned
 *	  through temporary files, on the shared layer of batch.h.
 *
 *-------------------------------------------------------------------------
 */
#ifndef NDDUP_HAMMING_BATCH_H
#define NDDUP_HAMMING_BATCH_H

#include "batch/batch.h"

/* Tables considered at most by the cost model (C(m, c) explodes with k). */
#define MAX_TABLES				250000.0

/*
 * Costs of the cost model, in nanoseconds, measured on the reference box
 * (docs/reports/bench-batch.md): a radix pass over 1M words is memory-bound,
 * a candidate is an XOR, a hardware popcount and a compare; a spilled row
 * is written to and read back from a partition file and sorted there.
 */
#define COST_RADIX_PASS			5.5 /* one radix pass, per fingerprint */
#define COST_TABLE_SCAN			15.0	/* key build + run scan + gather */
#define COST_CANDIDATE			4.0 /* one candidate pair */
#define COST_SPILL_ROW			120.0	/* partition write + read + sort */

/*
 * hamming_clusters through temporary files (hamming_spill.c): a first row
 * entered in a table's partitions as a 16-byte record, sorted by radix, and
 * a candidate as a popcount of two keys in a sorted run; measured at 10M
 * rows (docs/reports/bench-batch-spill.md: 46 ns per row and table with 10
 * tables, about 0.5 ns per candidate with 4).
 */
#define COST_SPILL_CLUSTER_ROW	50.0
#define COST_SPILL_CLUSTER_CANDIDATE	0.5

/* One layout of the permuted tables: m blocks, tables choose c of them. */
typedef struct HammingLayout
{
	int			m;				/* number of blocks; 0 = compare all pairs */
	int			c;				/* blocks per table (m - k) */
	double		ntables;		/* C(m, c) */
	int			bsize[64];		/* bits of block b */
	int			bshift[64];		/* block b is (fp >> bshift) & low mask */
	uint64		blow[64];		/* low mask of bsize bits */
	uint64		bmask[64];		/* block b's bits in place */
	double		cost;			/* model cost, for the log */
} HammingLayout;

/* Everything one call works on. */
typedef struct HammingBatch
{
	BatchCall  *call;
	BatchRows	rows;			/* payload: the fingerprint */
	int			radius;
	Oid			simhash_oid;
	HammingLayout layout;

	/* verified candidates: the rows' extra part is the reduced value */
	BatchVerify verify;
	BatchPairSet *candidates;	/* the spilled path's, verified at the end */

	/* groups of equal fingerprints (the in-memory path) */
	uint64		ndistinct;
	uint64	   *ufp;			/* distinct fingerprints, ascending */
	uint32	   *gstart;			/* rows of group g: grow[gstart[g]..[g+1]) */
	uint32	   *grow;			/* row numbers ordered by fingerprint */
	uint8	   *gflags;			/* bit 0: has side-0 rows, bit 1: side 1 */

	/* clusters: union-find over rows */
	BatchUnionFind uf;

	/* assign: best existing match of each group, new-new edges */
	BatchUnionFind guf;			/* over groups */
	uint8	   *bestd;
	int64	   *bestc;
	int64	   *gminc;			/* smallest cluster id of side-0 rows */
	uint32	   *edges;
	uint64		nedges;
	uint64		edgecap;
} HammingBatch;

/* bestd of a group without an existing match (hamming_assign) */
#define NO_BEST					255

/* hamming_layout.c: layouts, the cost model, tables */
extern void hamming_check_forced_blocks(int m, int k);
extern void hamming_choose_layout(HammingBatch *hb, double n, bool spill,
								  int maxprefix);
extern void hamming_first_table(const HammingLayout *L, int *sel);
extern bool hamming_next_table(const HammingLayout *L, int *sel);
extern uint64 hamming_table_blockset(const HammingLayout *L, const int *sel);
extern int	hamming_table_prefix_bits(const HammingLayout *L, const int *sel);

/* The concatenated bits of the table's blocks (the permuted prefix). */
static inline uint64
hamming_table_key(const HammingLayout *L, const int *sel, uint64 fp)
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
hamming_table_owns_pair(const HammingLayout *L, uint64 set, uint64 x)
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

/*
 * Do rows ra and rb (in memory) pass the verification?  True when the call
 * does not verify.
 */
static inline bool
hamming_rows_verified(HammingBatch *hb, uint32 ra, uint32 rb)
{
	const char *a;
	const char *b;
	uint32		alen;
	uint32		blen;
	double		similarity;

	if (!hb->verify.active)
		return true;
	hb->call->ncand++;
	a = batch_rows_extra(&hb->rows, ra, &alen);
	b = batch_rows_extra(&hb->rows, rb, &blen);
	return batch_verify_pair(&hb->verify, a, alen, hb->rows.flags[ra],
							 b, blen, hb->rows.flags[rb], &similarity);
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define BATCH_POPCNT_DISPATCH 1

/*
 * Has the CPU the POPCNT instruction?  The build does not assume it
 * (-mpopcnt is not in the flags), so the loops that count bits come in a
 * variant compiled for it, chosen by this.
 */
static inline bool
hamming_have_popcnt(void)
{
	static int	have = -1;

	if (have < 0)
		have = __builtin_cpu_supports("popcnt") ? 1 : 0;
	return have == 1;
}
#endif

/* hamming_memory.c: the in-memory path */
extern void hamming_group_fingerprints(HammingBatch *hb);
extern void hamming_tables_in_memory(HammingBatch *hb);

/* hamming_spill.c: the path through temporary files */
extern void hamming_tables_spilled(HammingBatch *hb);

/* hamming_assign.c: hamming_assign's pairs and result */
extern void hamming_assign_begin(HammingBatch *hb);
extern void hamming_assign_pair(HammingBatch *hb, uint32 u, uint32 v, int d);
extern void hamming_assign_identical(HammingBatch *hb, uint32 g);
extern void hamming_assign_finish(HammingBatch *hb);

#endif							/* NDDUP_HAMMING_BATCH_H */
