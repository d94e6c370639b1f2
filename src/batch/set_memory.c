/*-------------------------------------------------------------------------
 *
 * set_memory.c
 *	  The in-memory path of the exact resemblance join of shingle sets:
 *	  every row entered under the shingles of its prefix (set_filter.c), the
 *	  entries sorted by shingle, and every pair inside a run of one shingle
 *	  a candidate, filtered by length and verified with the exact measure.
 *	  A pair is reported by the run of its first common shingle in the global
 *	  order only, which lies in the prefixes (the prefix principle), so no
 *	  set of seen pairs is needed.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "set_batch.h"

#include "miscadmin.h"
#include "utils/memutils.h"

/* An entry's row in the high bits, the prefix mark in bit 0. */
#define ENTRY_ROW(val)		((uint32) ((val) >> 1))
#define ENTRY_PREFIX(val)	(((val) & 1) != 0)

/* A pair of documents without shingles: resemblance 1. */
static void
empty_pair_found(void *arg, int64 ida, uint8 fa, int64 idb, uint8 fb)
{
	SetBatch   *sb = (SetBatch *) arg;

	set_found(sb, 0, ida, fa, 0, idb, fb, 1.0);
}

/* Compare the pairs of one run of entries of shingle 'token'. */
static void
scan_run(SetBatch *sb, const BatchRec *run, uint64 len, uint64 token)
{
	BatchRows  *rows = &sb->rows;

	for (uint64 a = 0; a + 1 < len; a++)
	{
		uint32		x = ENTRY_ROW(run[a].val);
		uint32		nx;
		const uint64 *ix = (const uint64 *) batch_rows_extra(rows, x, &nx);

		nx /= sizeof(uint64);
		CHECK_FOR_INTERRUPTS();
		for (uint64 b = a + 1; b < len; b++)
		{
			uint32		y = ENTRY_ROW(run[b].val);
			uint32		ny;
			const uint64 *iy = (const uint64 *) batch_rows_extra(rows, y, &ny);
			double		score;
			SetOrderKey first;

			ny /= sizeof(uint64);
			if (!set_candidate(sb, x, nx, rows->flags[x], ENTRY_PREFIX(run[a].val),
							   y, ny, rows->flags[y], ENTRY_PREFIX(run[b].val)))
				continue;
			if (sb->call->mode == BATCH_CLUSTER &&
				batch_uf_find(&sb->uf, x) == batch_uf_find(&sb->uf, y))
				continue;
			sb->call->ncand++;
			if (!set_measure(sb, ix, nx, rows->flags[x], iy, ny, rows->flags[y],
							 &score, &first))
				continue;
			/* the run of the first common shingle reports the pair */
			if (first.hash != token)
				continue;
			set_found(sb, x, rows->id[x], rows->flags[x], y, rows->id[y],
					  rows->flags[y], score);
		}
	}
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
	uint64	   *tokens = NULL;
	bool	   *is_prefix = NULL;
	uint32		tokcap = 0;

	if (sb->measure == SET_JACCARD)
		batch_pairs_of_flagged(rows, ROW_EMPTY, &sb->uf, empty_pair_found, sb);
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
		if (nent + m > cap)
		{
			cap = Max(cap * 2, nent + m);
			ent = repalloc_huge(ent, cap * sizeof(BatchRec));
		}
		for (uint32 j = 0; j < m; j++)
		{
			ent[nent].key = tokens[j];
			ent[nent].val = ((uint64) i << 1) | (is_prefix[j] ? 1 : 0);
			nent++;
		}
	}
	batch_log(sb->call, "%s: %llu rows, %llu entries under their prefix shingles, in memory",
			  sb->call->fname, (unsigned long long) n, (unsigned long long) nent);
	tmp = MemoryContextAllocHuge(sb->call->cxt, Max(nent, 1) * sizeof(BatchRec));
	sorted = batch_sort_by_key(ent, tmp, nent);
	for (uint64 s = 0; s < nent;)
	{
		uint64		e = s + 1;

		while (e < nent && sorted[e].key == sorted[s].key)
			e++;
		if (e - s > 1)
			scan_run(sb, sorted + s, e - s, sorted[s].key);
		else if ((s & 0xffff) == 0)
			CHECK_FOR_INTERRUPTS();
		s = e;
	}
	pfree(ent);
	pfree(tmp);
}
