/*-------------------------------------------------------------------------
 *
 * distributed.h
 *	  The batch functions on a Citus distributed table (src/batch/
 *	  distributed.c) and the equi-join keys they repartition by
 *	  (src/citus/keys.c).  See docs/scale-out.md.
 *
 * Each SQL-callable batch function first asks its entry function here:
 * when the input is a distributed table, the entry function computes the
 * answer with the work done on the workers, fills the result and returns
 * true; otherwise it returns false and the local code runs.
 *
 *-------------------------------------------------------------------------
 */
#ifndef NDDUP_DISTRIBUTED_H
#define NDDUP_DISTRIBUTED_H

#include "nddup.h"

/* ----------------------------------------------------------------
 *		Block layout of the permuted tables (Manku et al. 2007, s.3)
 *
 * The 64 bits are cut into m blocks from the top, the first 64 mod m one
 * bit wider (the layout of src/batch/batch.c).  Two fingerprints within k
 * bits agree on at least c = m - k blocks; the first of them, a, is at most
 * k.  The equi-join key of block a of a fingerprint says which block it is
 * and what its bits are: any two fingerprints within k share the key of
 * their first agreeing block.
 * ----------------------------------------------------------------
 */
typedef struct NddupBlocks
{
	int			m;				/* blocks */
	int			k;				/* radius */
	int			c;				/* blocks a pair within k agrees on: m - k */
	int			bsize[64];		/* bits of block b */
	int			bshift[64];		/* block b is (fp >> bshift) & low mask */
	uint64		bmask[64];		/* block b's bits in place */
} NddupBlocks;

extern void nddup_blocks_init(NddupBlocks *L, int radius, int blocks);
extern uint64 nddup_block_key(const NddupBlocks *L, int a, uint64 fp);
extern int	nddup_block_of_key(const NddupBlocks *L, uint64 key);
extern int	nddup_first_agreeing_block(const NddupBlocks *L, uint64 x);

/* ----------------------------------------------------------------
 *		Entry functions (src/citus/distributed.c)
 * ----------------------------------------------------------------
 */

/* What a distributed call computes. */
typedef enum NddupDistMode
{
	NDDUP_DIST_PAIRS,			/* all pairs of one input */
	NDDUP_DIST_JOIN,			/* pairs (a, b) of two inputs */
	NDDUP_DIST_CLUSTERS			/* connected components of the pairs */
} NddupDistMode;

/* One input of a batch function: a relation and its columns, or a query. */
typedef struct NddupDistInput
{
	Oid			relid;			/* the relation, or InvalidOid for a query */
	const char *idcol;			/* relation form: the columns */
	const char *valcol;
	const char *ordcol;			/* may be NULL */
	const char *query;			/* query form: the text */
} NddupDistInput;

/*
 * One per mode; rel: the relation form of the SQL function (else its query
 * form).  True when the answer was computed distributed and is in the
 * function's result.
 */
extern bool nddup_dist_hamming_pairs(FunctionCallInfo fcinfo, bool rel);
extern bool nddup_dist_hamming_join(FunctionCallInfo fcinfo);
extern bool nddup_dist_hamming_clusters(FunctionCallInfo fcinfo, bool rel);
extern bool nddup_dist_minhash_pairs(FunctionCallInfo fcinfo);
extern bool nddup_dist_minhash_clusters(FunctionCallInfo fcinfo);

#endif							/* NDDUP_DISTRIBUTED_H */
