/*-------------------------------------------------------------------------
 *
 * set_memory.c
 *	  The in-memory path of the exact resemblance join of shingle sets:
 *	  every row entered under the shingles of its prefix (set_filter.c), the
 *	  entries sorted by shingle, so that a run of one shingle lists its rows
 *	  in row order.  Then row by row (the AllPairs loop of Bayardo, Ma and
 *	  Srikant): the later rows met in the runs of the row's shingles are its
 *	  candidates, each collected once however many prefix shingles the two
 *	  share, filtered by length and, for Jaccard, by the position of their
 *	  first common shingle (the positional filter of PPJoin, Xiao et al.,
 *	  WWW 2008), and verified once with the exact measure.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "batch/sets/set_batch.h"

#include "miscadmin.h"
#include "utils/memutils.h"

/*
 * An entry's value: its row in the high 32 bits, its position among the
 * row's tokens (for Jaccard, the rank of the shingle in the row's global
 * order) above the prefix mark in bit 0.
 */
#define ENTRY_VAL(row, pos, prefix) \
	(((uint64) (row) << 32) | ((uint64) (pos) << 1) | ((prefix) ? 1 : 0))
#define ENTRY_ROW(val)		((uint32) ((val) >> 32))
#define ENTRY_POS(val)		((uint32) (((val) >> 1) & 0x7fffffff))
#define ENTRY_PREFIX(val)	(((val) & 1) != 0)

/* In a row's list of where its entries are: an entry alone in its run. */
#define ENTRY_ALONE			PG_UINT64_MAX

/* A pair of documents without shingles: resemblance 1. */
static void
empty_pair_found(void *arg, int64 ida, uint8 fa, int64 idb, uint8 fb)
{
	SetBatch   *sb = (SetBatch *) arg;

	set_found(sb, 0, ida, fa, 0, idb, fb, 1.0);
}

/*
 * The positional filter of Jaccard: x and y first meet at the shingle of
 * rank i in x and j in y (the shingles before it in either set are not
 * common), so they share at most min(nx - i, ny - j) shingles; Jaccard t
 * needs t / (1 + t) (nx + ny).  Conservative by a rounding margin.
 */
static inline bool
position_ok(const SetBatch *sb, uint32 nx, uint32 i, uint32 ny, uint32 j)
{
	double		most = (double) Min(nx - i, ny - j);

	return most >= sb->threshold / (1.0 + sb->threshold) *
		((double) nx + (double) ny) * (1.0 - 1e-12);
}

/*
 * The candidates of row x among the later rows: for each of x's entries
 * (at sorted[where[k]], in the order of x's tokens), the rest of its
 * shingle's run.  A Jaccard pair is decided at its first meeting (the
 * first common prefix shingle, where the positional filter holds); a
 * containment pair whenever a meeting passes the filters.  Returns their
 * number, in cand.
 */
static uint32
row_candidates(SetBatch *sb, uint32 x, const BatchRec *sorted, uint64 nent,
			   const uint64 *where, uint64 nwhere, uint32 *mark,
			   uint32 *cand)
{
	BatchRows  *rows = &sb->rows;
	uint32		nx;
	uint32		ncand = 0;
	bool		jaccard = sb->measure == SET_JACCARD;

	(void) batch_rows_extra(rows, x, &nx);
	nx /= sizeof(uint64);
	for (uint64 k = 0; k < nwhere; k++)
	{
		uint64		p = where[k];
		uint64		key;
		bool		px;
		uint32		ix;

		if (p == ENTRY_ALONE)
			continue;
		CHECK_FOR_INTERRUPTS();
		key = sorted[p].key;
		px = ENTRY_PREFIX(sorted[p].val);
		ix = ENTRY_POS(sorted[p].val);
		for (uint64 q = p + 1; q < nent && sorted[q].key == key; q++)
		{
			uint32		y = ENTRY_ROW(sorted[q].val);
			uint32		ny;
			bool		ok;

			if (mark[y] == x + 1)
				continue;
			(void) batch_rows_extra(rows, y, &ny);
			ny /= sizeof(uint64);
			ok = set_candidate(sb, x, nx, rows->flags[x], px,
							   y, ny, rows->flags[y], ENTRY_PREFIX(sorted[q].val));
			if (jaccard)
			{
				/* decided here, whatever the later meetings */
				mark[y] = x + 1;
				if (!ok || !position_ok(sb, nx, ix, ny, ENTRY_POS(sorted[q].val)))
					continue;
			}
			else
			{
				if (!ok)
					continue;
				mark[y] = x + 1;
			}
			cand[ncand++] = y;
		}
	}
	return ncand;
}

/* Every pair of rows held in memory reaching the threshold. */
void
set_pairs_in_memory(SetBatch *sb)
{
	BatchRows  *rows = &sb->rows;
	uint64		n = rows->nrows;
	uint64		nent = 0;
	uint64		cap = Max(n, 1024);
	BatchRec   *ent = MemoryContextAllocHuge(sb->call->cxt, cap * sizeof(BatchRec));
	BatchRec   *tmp;
	BatchRec   *sorted;
	uint64	   *rowstart;
	uint64	   *where;
	uint32	   *mark;
	uint32	   *cand;
	uint64	   *tokens = NULL;
	bool	   *is_prefix = NULL;
	uint32		tokcap = 0;

	if (sb->measure == SET_JACCARD)
		batch_pairs_of_flagged(rows, ROW_EMPTY, &sb->uf, empty_pair_found, sb);
	rowstart = MemoryContextAllocHuge(sb->call->cxt, (n + 1) * sizeof(uint64));
	for (uint64 i = 0; i < n; i++)
	{
		uint32		len;
		const uint64 *items = (const uint64 *) batch_rows_extra(rows, i, &len);
		uint32		m;

		len /= sizeof(uint64);
		if ((i & 0xfff) == 0)
			CHECK_FOR_INTERRUPTS();
		if (len > tokcap)
		{
			tokcap = Max(len, tokcap * 2);
			tokens = tokens ? repalloc_huge(tokens, tokcap * sizeof(uint64)) :
				MemoryContextAllocHuge(sb->call->cxt, tokcap * sizeof(uint64));
			is_prefix = is_prefix ? repalloc_huge(is_prefix, tokcap) :
				MemoryContextAllocHuge(sb->call->cxt, tokcap);
		}
		m = set_row_tokens(sb, items, len, rows->flags[i], tokens, is_prefix);
		rowstart[i] = nent;
		if (nent + m > cap)
		{
			cap = Max(cap * 2, nent + m);
			ent = repalloc_huge(ent, cap * sizeof(BatchRec));
		}
		for (uint32 j = 0; j < m; j++)
		{
			ent[nent].key = tokens[j];
			ent[nent].val = ENTRY_VAL(i, j, is_prefix[j]);
			nent++;
		}
	}
	rowstart[n] = nent;
	batch_log(sb->call, "%s: %llu rows, %llu entries under their prefix shingles, in memory",
			  sb->call->fname, (unsigned long long) n, (unsigned long long) nent);
	tmp = MemoryContextAllocHuge(sb->call->cxt, Max(nent, 1) * sizeof(BatchRec));
	sorted = batch_sort_by_key(ent, tmp, nent);

	/*
	 * Where each row's entries went, in the buffer the sort left free; an
	 * entry alone in its run (a shingle no other row has in its tokens) is
	 * marked so that the search passes over it without reading it.  All are
	 * marked first, in one sequential pass, so that only the entries of runs
	 * of two or more are written at random.
	 */
	where = (uint64 *) (sorted == ent ? tmp : ent);
	memset(where, 0xff, nent * sizeof(uint64));
	StaticAssertStmt(ENTRY_ALONE == PG_UINT64_MAX, "ENTRY_ALONE is all ones");
	for (uint64 s = 0; s < nent;)
	{
		uint64		e = s + 1;

		CHECK_FOR_INTERRUPTS();	/* every run: s jumps by its length */
		while (e < nent && sorted[e].key == sorted[s].key)
			e++;
		if (e - s > 1)
		{
			for (uint64 k = s; k < e; k++)
				where[rowstart[ENTRY_ROW(sorted[k].val)] + ENTRY_POS(sorted[k].val)] = k;
		}
		s = e;
	}

	mark = MemoryContextAllocHuge(sb->call->cxt, Max(n, 1) * sizeof(uint32));
	memset(mark, 0, Max(n, 1) * sizeof(uint32));
	cand = MemoryContextAllocHuge(sb->call->cxt, Max(n, 1) * sizeof(uint32));
	for (uint64 x = 0; x < n; x++)
	{
		uint32		ncand;
		uint32		nx;
		const uint64 *ix;

		CHECK_FOR_INTERRUPTS();
		if (rowstart[x + 1] == rowstart[x])
			continue;
		ncand = row_candidates(sb, x, sorted, nent, where + rowstart[x],
							   rowstart[x + 1] - rowstart[x], mark, cand);
		if (ncand == 0)
			continue;
		ix = (const uint64 *) batch_rows_extra(rows, x, &nx);
		nx /= sizeof(uint64);
		for (uint32 c = 0; c < ncand; c++)
		{
			uint32		y = cand[c];
			uint32		ny;
			const uint64 *iy;
			double		score;

			if (sb->call->mode == BATCH_CLUSTER &&
				batch_uf_find(&sb->uf, x) == batch_uf_find(&sb->uf, y))
				continue;
			CHECK_FOR_INTERRUPTS();
			iy = (const uint64 *) batch_rows_extra(rows, y, &ny);
			ny /= sizeof(uint64);
			sb->call->ncand++;
			if (set_measure(sb, ix, nx, rows->flags[x], iy, ny, rows->flags[y],
							&score))
				set_found(sb, x, rows->id[x], rows->flags[x], y, rows->id[y],
						  rows->flags[y], score);
		}
	}
	pfree(mark);
	pfree(cand);
	pfree(rowstart);
	pfree(ent);
	pfree(tmp);
}
