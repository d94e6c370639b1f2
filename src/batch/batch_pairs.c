/*-------------------------------------------------------------------------
 *
 * batch_pairs.c
 *	  Candidate pairs of spilled rows and their verification by merges
 *	  (the shape of Broder et al.'s clustering, 1997 s.3: every step a sort
 *	  or a merge of files), shared by the sketch and shingle-set functions;
 *	  and the pairs among the rows carrying one flag (documents without
 *	  shingles), whichever the store.
 *
 * The candidates (x, y) of every table or band are one set of keys with x's
 * row number in the top bits and y's below, partitioned through temporary
 * files and sorted, which removes a pair found several times.  The first
 * merge meets them, in (x, y) order, with the rows in arrival order and
 * sends each on, keyed by (y, x), with x's id, flags and payload; the
 * second meets those, in (y, x) order, with the rows again and hands the
 * verifier both payloads.  So every payload is read sequentially, twice,
 * never at random, and memory holds one partition at a time.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "batch/batch.h"

#include "miscadmin.h"
#include "utils/memutils.h"

/*
 * A carried record: key 8, x's id 8, flags 4, extra length 4, then x's
 * fixed payload (MAXALIGNed) and extra part.
 */
#define CARRIED_HEADER		24

/* Start a set of candidate pairs of the rows. */
BatchPairSet *
batch_pairs_begin(BatchRows *rows)
{
	BatchCall  *call = rows->call;
	BatchPairSet *ps = MemoryContextAllocZero(call->cxt, sizeof(BatchPairSet));

	ps->call = call;
	ps->rows = rows;
	ps->xbits = 1;
	while (ps->xbits < 32 && (UINT64CONST(1) << ps->xbits) < rows->nrows)
		ps->xbits++;
	ps->pairs = batch_partitions_begin(call, sizeof(uint64), rows->nrows, call->mem_limit);
	return ps;
}

/* The key of the pair (x, y): x in the top bits, then y. */
static inline uint64
pair_key(const BatchPairSet *ps, uint32 x, uint32 y)
{
	return ((uint64) x << (64 - ps->xbits)) | ((uint64) y << (64 - 2 * ps->xbits));
}

/* The two rows of a pair key. */
static inline void
pair_rows(const BatchPairSet *ps, uint64 key, uint32 *x, uint32 *y)
{
	uint64		mask = (UINT64CONST(1) << ps->xbits) - 1;

	*x = (uint32) ((key >> (64 - ps->xbits)) & mask);
	*y = (uint32) ((key >> (64 - 2 * ps->xbits)) & mask);
}

/* Add the candidate pair of rows a and b (either order). */
void
batch_pairs_add(BatchPairSet *ps, uint32 a, uint32 b)
{
	uint64		key = pair_key(ps, Min(a, b), Max(a, b));

	batch_partitions_put(ps->pairs, &key);
}

/* Advance the row stream of a merge to row r; returns that row. */
static const BatchRow *
seek_row(BatchPairSet *ps, uint32 r)
{
	while (!ps->cursor_valid || ps->cursor.row < r)
	{
		if (!batch_rows_next(ps->rows, &ps->cursor))
			elog(ERROR, "row %u of %s not found in its temporary file", r,
				 ps->call->fname);
		ps->cursor_valid = true;
	}
	return &ps->cursor;
}

/*
 * First merge: the candidates in (x, y) order, repeats dropped, meet the
 * rows; each goes on keyed by (y, x) with x's id, flags and payload.
 */
static void
carry_runs(void *arg, char *records, uint64 count)
{
	BatchPairSet *ps = (BatchPairSet *) arg;
	uint64	   *keys = (uint64 *) records;

	for (uint64 i = 0; i < count; i++)
	{
		uint32		x;
		uint32		y;
		uint64		key;
		const BatchRow *rx;
		uint32		fixed = MAXALIGN(ps->rows->payload_size);
		uint32		len;
		int64		flags;

		if (ps->have_last && keys[i] == ps->last_key)
			continue;
		ps->last_key = keys[i];
		ps->have_last = true;
		pair_rows(ps, keys[i], &x, &y);
		rx = seek_row(ps, x);
		len = rx->extra_len;
		if (CARRIED_HEADER + fixed + (uint64) len > ps->carry_cap)
		{
			ps->carry_cap = Max(CARRIED_HEADER + fixed + (uint64) len, ps->carry_cap * 2);
			ps->carry = ps->carry ? repalloc_huge(ps->carry, ps->carry_cap) :
				MemoryContextAllocHuge(ps->call->cxt, ps->carry_cap);
		}
		key = pair_key(ps, y, x);
		flags = rx->flags;
		memcpy(ps->carry, &key, sizeof(uint64));
		memcpy(ps->carry + 8, &rx->id, sizeof(int64));
		memcpy(ps->carry + 16, &flags, sizeof(uint32));
		memcpy(ps->carry + 20, &len, sizeof(uint32));
		if (ps->rows->payload_size > 0)
			memcpy(ps->carry + CARRIED_HEADER, rx->payload, ps->rows->payload_size);
		if (len > 0)
			memcpy(ps->carry + CARRIED_HEADER + fixed, rx->extra, len);
		batch_partitions_put_var(ps->carried, ps->carry, CARRIED_HEADER + fixed + len);
		if ((i & 0xfff) == 0)
			CHECK_FOR_INTERRUPTS();
	}
}

/*
 * Second merge: the carried candidates in (y, x) order meet the rows
 * again; the verifier gets both.
 */
static void
verify_runs(void *arg, char **records, const uint32 *lens, uint64 count)
{
	BatchPairSet *ps = (BatchPairSet *) arg;

	for (uint64 i = 0; i < count; i++)
	{
		const char *rec = records[i];
		uint64		key;
		uint32		x;
		uint32		y;
		BatchCarried cx;
		uint32		flags;

		memcpy(&key, rec, sizeof(uint64));
		pair_rows(ps, key, &y, &x);
		cx.row = x;
		cx.aux = 0;
		memcpy(&cx.id, rec + 8, sizeof(int64));
		memcpy(&flags, rec + 16, sizeof(uint32));
		cx.flags = (uint8) flags;
		memcpy(&cx.extra_len, rec + 20, sizeof(uint32));
		cx.payload = rec + CARRIED_HEADER;
		cx.extra = rec + CARRIED_HEADER + MAXALIGN(ps->rows->payload_size);
		ps->call->ncand++;
		CHECK_FOR_INTERRUPTS();
		ps->verify(ps->arg, &cx, seek_row(ps, y));
	}
}

/*
 * Verify every distinct candidate pair with verify(arg, x, y): x carried
 * (its row number, id, flags and payload), y the row read back; then free
 * the set.
 */
void
batch_pairs_verify(BatchPairSet *ps, BatchVerifyCallback verify, void *arg)
{
	BatchRows  *rows = ps->rows;

	batch_log_time(ps->call, "%s: %llu candidate pairs (with repeats)",
				   ps->call->fname, (unsigned long long) ps->pairs->total);
	ps->verify = verify;
	ps->arg = arg;
	ps->carried = batch_partitions_begin_var(ps->call,
											 (double) ps->pairs->total *
											 (CARRIED_HEADER + MAXALIGN(rows->payload_size) +
											  (rows->has_extra ? 64 : 0)),
											 ps->call->mem_limit);
	batch_rows_rewind(rows);
	ps->cursor_valid = false;
	batch_partitions_sort_each(ps->pairs, carry_runs, ps, false);
	batch_partitions_end(ps->pairs);
	batch_rows_rewind(rows);
	ps->cursor_valid = false;
	batch_partitions_sort_each_var(ps->carried, verify_runs, ps);
	batch_partitions_end(ps->carried);
	if (ps->carry)
		pfree(ps->carry);
	pfree(ps);
}

/*
 * Every pair among the rows carrying a flag (documents without shingles:
 * resemblance 1 with each other): a join pairs the two inputs only; clusters
 * link them all into one component; otherwise found(arg, a, b) for every
 * pair, read from a file of their own (their number may exceed memory).
 */
void
batch_pairs_of_flagged(BatchRows *rows, uint8 flag, BatchUnionFind *uf,
					   BatchFlaggedCallback found, void *arg)
{
	BatchCall  *call = rows->call;
	BatchRow	row;
	BufFile    *file = NULL;
	uint64		n = 0;
	int64		first = -1;
	struct
	{
		int64		id;
		int64		flags;
	}			a, b;

	batch_rows_rewind(rows);
	while (batch_rows_next(rows, &row))
	{
		if (!(row.flags & flag))
			continue;
		if (call->mode == BATCH_CLUSTER)
		{
			if (first < 0)
				first = row.row;
			else
				batch_uf_union(uf, (uint32) first, row.row);
			continue;
		}
		if (file == NULL)
		{
			MemoryContext old = MemoryContextSwitchTo(call->cxt);

			file = BufFileCreateTemp(false);
			MemoryContextSwitchTo(old);
		}
		a.id = row.id;
		a.flags = row.flags;
		BufFileWrite(file, &a, sizeof(a));
		n++;
	}
	for (uint64 i = 0; i + 1 < n; i++)
	{
		if (BufFileSeek(file, 0, (off_t) (i * sizeof(a)), SEEK_SET) != 0 ||
			BufFileRead(file, &a, sizeof(a)) != sizeof(a))
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not read from a temporary file of the batch function")));
		for (uint64 j = i + 1; j < n; j++)
		{
			if (BufFileRead(file, &b, sizeof(b)) != sizeof(b))
				ereport(ERROR,
						(errcode_for_file_access(),
						 errmsg("could not read from a temporary file of the batch function")));
			if ((j & 0xfff) == 0)
				CHECK_FOR_INTERRUPTS();
			if (call->mode == BATCH_JOIN && !((a.flags ^ b.flags) & BATCH_ROW_SIDE1))
				continue;
			found(arg, a.id, (uint8) a.flags, b.id, (uint8) b.flags);
		}
	}
	if (file)
		BufFileClose(file);
}
