/*-------------------------------------------------------------------------
 *
 * set_batch.h
 *	  The exact resemblance join of shingle sets (shingleset_pairs,
 *	  shingleset_join, shingleset_clusters): prefix filtering over a global
 *	  order of the shingles, rarest first (the AllPairs algorithm of Bayardo,
 *	  Ma and Srikant, WWW 2007, s.4, and the prefix principle of Chaudhuri,
 *	  Ganti and Kaushik, ICDE 2006), a length filter, and the exact measure
 *	  of every candidate; in memory or through temporary files, on the
 *	  shared layer of batch.h.  See docs/batch-sets.md.
 *
 *-------------------------------------------------------------------------
 */
#ifndef NDDUP_SET_BATCH_H
#define NDDUP_SET_BATCH_H

#include "batch/batch.h"

/* The measure of a call. */
typedef enum SetMeasure
{
	SET_JACCARD,				/* |A n B| / |A u B| */
	SET_CONTAINMENT				/* join: |A n B| / |A|; pairs: of the smaller
								 * set in the larger */
} SetMeasure;

/* Row flags of the set functions (beside BATCH_ROW_SIDE1, AUXNULL). */
#define ROW_EMPTY				(BATCH_ROW_METHOD << 0) /* a document without
														 * shingles */
#define ROW_NO_SAMPLE			(BATCH_ROW_METHOD << 1) /* a mod-m sample that
														 * kept no shingle */

/*
 * A shingle's place in the global order (rarest first, then by hash) among
 * the shingles of one set: its count in the high 32 bits, its index in the
 * set in the low 32.  A set's hashes are distinct and ascending, so index
 * order is hash order, and comparing two keys of one set compares (count,
 * hash).
 */
#define SET_ORDER_KEY(df, i)	(((uint64) (df) << 32) | (uint32) (i))
#define SET_ORDER_INDEX(key)	((uint32) (key))

/* Everything one call works on. */
typedef struct SetBatch
{
	BatchCall  *call;
	BatchRows	rows;			/* payload: the set's hashes, ascending */
	Oid			set_oid;
	int			side;			/* side of the rows being read */
	SetMeasure	measure;
	double		threshold;

	/* parameters of the input, from its first row */
	bool		have_params;
	uint8		kind;			/* the first set's NddupSetKind, size, unit */
	uint8		size;
	uint8		unit;
	uint32		param;

	/* the global order: counts of the shingles by the top bits of their hash */
	uint16	   *dfc;			/* 2^dfc_bits counters, saturating */
	int			dfc_bits;
	uint64		counted;		/* shingles counted */

	/* scratch of set_row_tokens, for sets of up to order_cap shingles */
	uint64	   *order;			/* SET_ORDER_KEYs of a set's shingles */
	bool	   *order_mark;		/* by index in the set: in its prefix */
	uint32		order_cap;

	/* clusters: union-find over rows */
	BatchUnionFind uf;
} SetBatch;

/* set_filter.c: the order, prefixes, the measure */
extern void set_df_init(SetBatch *sb, int64 bytes);
extern void set_count_df(SetBatch *sb, const uint64 *items, uint32 n);
extern uint64 set_df_size(SetBatch *sb);
extern uint32 set_df(SetBatch *sb, uint64 hash);
extern uint32 set_row_tokens(SetBatch *sb, const uint64 *items, uint32 n, uint8 flags,
							 uint64 *tokens, bool *is_prefix);
extern bool set_candidate(const SetBatch *sb, uint32 rowa, uint32 na, uint8 fa, bool pa,
						  uint32 rowb, uint32 nb, uint8 fb, bool pb);
extern bool set_length_ok(const SetBatch *sb, uint32 na, uint8 fa, uint32 nb, uint8 fb);
extern bool set_measure(SetBatch *sb, const uint64 *a, uint32 na, uint8 fa,
						const uint64 *b, uint32 nb, uint8 fb, double *score);
extern void set_found(SetBatch *sb, uint32 x, int64 idx, uint8 fx,
					  uint32 y, int64 idy, uint8 fy, double score);

/* set_memory.c and set_spill.c: the search */
extern void set_pairs_in_memory(SetBatch *sb);
extern void set_pairs_spilled(SetBatch *sb);

#endif							/* NDDUP_SET_BATCH_H */
