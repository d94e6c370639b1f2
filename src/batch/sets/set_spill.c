/*-------------------------------------------------------------------------
 *
 * set_spill.c
 *	  The exact resemblance join of shingle sets when the input exceeds
 *	  work_mem: every row is written, under each shingle of its prefix
 *	  (set_filter.c), into a partition file chosen by the shingle; each
 *	  partition is sorted and every pair inside a run of one shingle that
 *	  passes the prefix and length filters is a candidate.  The candidates
 *	  are verified with the exact measure by two merges with the rows
 *	  (batch_pairs.c), so the sets are read sequentially, never at random.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "batch/sets/set_batch.h"

#include "miscadmin.h"
#include "utils/memutils.h"

/* A row under one of its shingles. */
typedef struct TokenRec
{
	uint64		key;			/* the shingle's hash */
	uint32		row;
	uint32		size;			/* the set's size */
	uint8		flags;
	bool		prefix;			/* the shingle is in the row's prefix */
	uint16		padding;
	uint32		padding2;
} TokenRec;

/* State of the spilled search. */
typedef struct SetSpill
{
	SetBatch   *sb;
	BatchPairSet *pairs;
} SetSpill;

/* A pair of documents without shingles: resemblance 1. */
static void
empty_pair_found(void *arg, int64 ida, uint8 fa, int64 idb, uint8 fb)
{
	set_found((SetBatch *) arg, 0, ida, fa, 0, idb, fb, 1.0);
}

/* Partition callback: the candidates of each run of one shingle. */
static void
token_runs(void *arg, char *records, uint64 count)
{
	SetSpill   *sp = (SetSpill *) arg;
	SetBatch   *sb = sp->sb;
	TokenRec   *recs = (TokenRec *) records;

	for (uint64 s = 0; s < count;)
	{
		uint64		e = s + 1;

		while (e < count && recs[e].key == recs[s].key)
			e++;
		for (uint64 a = s; a + 1 < e; a++)
		{
			CHECK_FOR_INTERRUPTS();
			for (uint64 b = a + 1; b < e; b++)
			{
				/* a run can be long: check within it too */
				if (((b - a) & 0x3ff) == 0)
					CHECK_FOR_INTERRUPTS();
				if (!set_candidate(sb, recs[a].row, recs[a].size, recs[a].flags, recs[a].prefix,
								   recs[b].row, recs[b].size, recs[b].flags, recs[b].prefix))
					continue;
				if (sb->call->mode == BATCH_CLUSTER &&
					batch_uf_find(&sb->uf, recs[a].row) == batch_uf_find(&sb->uf, recs[b].row))
					continue;
				batch_pairs_add(sp->pairs, recs[a].row, recs[b].row);
			}
		}
		CHECK_FOR_INTERRUPTS();	/* every run: s jumps by its length */
		s = e;
	}
}

/* Verify a candidate with the exact measure; report (or link) it. */
static void
verify_pair(void *arg, const BatchCarried *x, const BatchRow *y)
{
	SetBatch   *sb = (SetBatch *) arg;
	double		score;

	if (!set_measure(sb, (const uint64 *) x->extra, x->extra_len / sizeof(uint64),
					 x->flags, (const uint64 *) y->extra,
					 y->extra_len / sizeof(uint64), y->flags, &score))
		return;
	set_found(sb, x->row, x->id, x->flags, y->row, y->id, y->flags, score);
}

/* Every pair of spilled rows reaching the threshold. */
void
set_pairs_spilled(SetBatch *sb)
{
	BatchCall  *call = sb->call;
	BatchRows  *rows = &sb->rows;
	BatchPartitions *parts;
	BatchRow	row;
	SetSpill	sp;
	uint64	   *tokens = NULL;
	bool	   *is_prefix = NULL;
	uint32		tokcap = 0;

	batch_log(call, "%s: %llu rows through temporary files (work_mem %d kB)",
			  call->fname, (unsigned long long) rows->nrows, work_mem);
	if (sb->measure == SET_JACCARD)
		batch_pairs_of_flagged(rows, ROW_EMPTY, &sb->uf, empty_pair_found, sb);

	parts = batch_partitions_begin(call, sizeof(TokenRec), rows->nrows * 4, call->mem_limit);
	batch_rows_rewind(rows);
	while (batch_rows_next(rows, &row))
	{
		uint32		n = row.extra_len / sizeof(uint64);
		uint32		m;

		if (n > tokcap)
		{
			tokcap = Max(n, tokcap * 2);
			tokens = tokens ? repalloc_huge(tokens, tokcap * sizeof(uint64)) :
				MemoryContextAllocHuge(call->cxt, tokcap * sizeof(uint64));
			is_prefix = is_prefix ? repalloc_huge(is_prefix, tokcap) :
				MemoryContextAllocHuge(call->cxt, tokcap);
		}
		m = set_row_tokens(sb, (const uint64 *) row.extra, n, row.flags, tokens, is_prefix);
		for (uint32 j = 0; j < m; j++)
		{
			TokenRec	rec;

			memset(&rec, 0, sizeof(rec));
			rec.key = tokens[j];
			rec.row = row.row;
			rec.size = n;
			rec.flags = row.flags;
			rec.prefix = is_prefix[j];
			batch_partitions_put(parts, &rec);
		}
	}
	batch_log_time(call, "%s: %llu entries under their prefix shingles",
				   call->fname, (unsigned long long) parts->total);
	memset(&sp, 0, sizeof(sp));
	sp.sb = sb;
	sp.pairs = batch_pairs_begin(rows);
	batch_partitions_sort_each(parts, token_runs, &sp, true);
	batch_partitions_end(parts);
	batch_pairs_verify(sp.pairs, verify_pair, sb);
}
