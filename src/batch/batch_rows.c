/*-------------------------------------------------------------------------
 *
 * batch_rows.c
 *	  The input rows of a batch function: id, auxiliary value (order key or
 *	  cluster id), side, flags, the method's fixed-size payload and, when
 *	  asked for, an extra part of each row's own length (a shingle set, or
 *	  the shingles a candidate is verified with); in arrays while they fit in
 *	  their share of work_mem, and in a temporary file of records beyond it
 *	  (as a hash join's batches or a sort's runs go to disk).  The later
 *	  stages read a spilled store sequentially, once per table or pass.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "batch/batch.h"

#include "miscadmin.h"
#include "utils/memutils.h"

/* Rows always held in memory, whatever work_mem says. */
#define BATCH_MIN_ROWS		1024

/*
 * A spilled record: id 8, aux 8 (only when the rows have auxiliary
 * values), flags 1, padding 3, the extra part's length 4; then the fixed
 * payload (MAXALIGNed), then the extra part.
 */
#define RECORD_HEADER		24

/* Bytes of a spilled record before its flags. */
#define RECORD_FLAGS_AT(rows)	((rows)->has_aux ? 16 : 8)

/* Read exactly size bytes; false at the end of the file. */
static bool
read_record(BufFile *file, void *ptr, size_t size)
{
	size_t		got = BufFileRead(file, ptr, size);

	if (got == 0)
		return false;
	if (got != size)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not read from a temporary file of the batch function: read only %zu of %zu bytes",
						got, size)));
	return true;
}

/* Set up an empty store of rows with payloads of payload_size bytes. */
void
batch_rows_init(BatchRows *rows, BatchCall *call, int payload_size,
				int bytes_per_row, int64 mem_limit)
{
	memset(rows, 0, sizeof(*rows));
	rows->call = call;
	rows->payload_size = payload_size;
	rows->bytes_per_row = bytes_per_row;
	rows->mem_limit = mem_limit;
	rows->ids_ascending = true;
	rows->record_size = RECORD_HEADER + MAXALIGN(payload_size);
}

/*
 * Every row has an extra part of its own length from now on (call before
 * the first row).
 */
void
batch_rows_use_extra(BatchRows *rows)
{
	Assert(rows->nrows == 0);
	rows->has_extra = true;
}

/*
 * The rows carry an auxiliary value (order key or cluster id) from now on;
 * rows stored before have none (NULL).
 */
void
batch_rows_use_aux(BatchRows *rows)
{
	if (rows->has_aux)
		return;
	/* (the records of a spilled store have their layout) */
	if (rows->spilled)
		elog(ERROR, "%s: order keys come after the rows went to a temporary file",
			 rows->call->fname);
	rows->has_aux = true;
	for (uint64 i = 0; i < rows->nrows && !rows->spilled; i++)
		rows->flags[i] |= BATCH_ROW_AUXNULL;
	if (!rows->spilled && rows->cap > 0)
		rows->aux = MemoryContextAllocExtended(rows->call->cxt, rows->cap * sizeof(int64),
											   MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
}

/* The fields of the spilled record just read (the extra part's length). */
static inline void
decode_record(BatchRows *rows, BatchRow *row)
{
	const char *r = rows->record;
	int			at = RECORD_FLAGS_AT(rows);

	memcpy(&row->id, r, sizeof(int64));
	row->aux = 0;
	if (rows->has_aux)
		memcpy(&row->aux, r + 8, sizeof(int64));
	row->flags = (uint8) r[at];
	memcpy(&row->extra_len, r + at + 4, sizeof(uint32));
	row->payload = r + at + 8;
}

/* Write the record of one row to the spill file. */
static void
write_record(BatchRows *rows, int64 id, int64 aux, uint8 flags,
			 const void *payload, const void *extra, uint32 len)
{
	char	   *r = rows->record;
	int			at = RECORD_FLAGS_AT(rows);

	memset(r, 0, rows->record_size);
	memcpy(r, &id, sizeof(int64));
	if (rows->has_aux)
		memcpy(r + 8, &aux, sizeof(int64));
	r[at] = (char) flags;
	memcpy(r + at + 4, &len, sizeof(uint32));
	if (rows->payload_size > 0)
		memcpy(r + at + 8, payload, rows->payload_size);
	BufFileWrite(rows->file, r, rows->record_size);
	if (len > 0)
		BufFileWrite(rows->file, (void *) extra, len);
}

/*
 * Move the rows to a temporary file: from now on rows are appended there
 * and the arrays are freed.
 */
void
batch_rows_spill(BatchRows *rows)
{
	MemoryContext old;

	if (rows->spilled)
		return;
	old = MemoryContextSwitchTo(rows->call->cxt);
	rows->file = BufFileCreateTemp(false);
	rows->record_size = RECORD_FLAGS_AT(rows) + 8 + MAXALIGN(rows->payload_size);
	rows->record = palloc0(rows->record_size);
	for (uint64 i = 0; i < rows->nrows; i++)
	{
		uint32		len = 0;
		const char *extra = rows->has_extra ? batch_rows_extra(rows, i, &len) : NULL;

		if ((i & 0xfff) == 0)
			CHECK_FOR_INTERRUPTS();
		write_record(rows, rows->id[i], rows->has_aux ? rows->aux[i] : 0,
					 rows->flags[i], rows->payload + i * rows->payload_size, extra, len);
	}
	if (rows->id)
	{
		pfree(rows->id);
		pfree(rows->flags);
		if (rows->aux)
			pfree(rows->aux);
		if (rows->payload)
			pfree(rows->payload);
		if (rows->offsets)
			pfree(rows->offsets);
		if (rows->arena)
			pfree(rows->arena);
	}
	rows->id = rows->aux = NULL;
	rows->flags = NULL;
	rows->payload = rows->arena = NULL;
	rows->offsets = NULL;
	rows->cap = 0;
	rows->spilled = true;
	MemoryContextSwitchTo(old);
	batch_log(rows->call, "%s: %llu input rows exceed work_mem (%d kB), the rows go to a temporary file",
			  rows->call->fname, (unsigned long long) rows->nrows, work_mem);
}

/* Grow the arrays, never beyond their share of work_mem; false when full. */
static bool
grow_rows(BatchRows *rows)
{
	uint64		maxrows = Max((uint64) (rows->mem_limit / rows->bytes_per_row),
							  BATCH_MIN_ROWS);
	uint64		newcap = Min(Max(rows->cap * 2, BATCH_MIN_ROWS), maxrows);
	MemoryContext cxt = rows->call->cxt;

	if (newcap <= rows->cap)
		return false;
	if (rows->id == NULL)
	{
		rows->id = MemoryContextAllocHuge(cxt, newcap * sizeof(int64));
		rows->flags = MemoryContextAllocHuge(cxt, newcap);
		if (rows->has_aux)
			rows->aux = MemoryContextAllocHuge(cxt, newcap * sizeof(int64));
		if (rows->payload_size > 0)
			rows->payload = MemoryContextAllocHuge(cxt, newcap * rows->payload_size);
		if (rows->has_extra)
		{
			rows->offsets = MemoryContextAllocHuge(cxt, (newcap + 1) * sizeof(uint64));
			rows->offsets[0] = 0;
		}
	}
	else
	{
		rows->id = repalloc_huge(rows->id, newcap * sizeof(int64));
		rows->flags = repalloc_huge(rows->flags, newcap);
		if (rows->has_aux)
			rows->aux = repalloc_huge(rows->aux, newcap * sizeof(int64));
		if (rows->payload_size > 0)
			rows->payload = repalloc_huge(rows->payload, newcap * rows->payload_size);
		if (rows->has_extra)
			rows->offsets = repalloc_huge(rows->offsets, (newcap + 1) * sizeof(uint64));
	}
	rows->cap = newcap;
	return true;
}

/* Make room in memory for an extra part of len bytes; false if over the limit. */
static bool
reserve_extra(BatchRows *rows, uint32 len)
{
	uint64		need = rows->arena_used + len;

	/* the extra parts count against the limit beside the rows */
	if (rows->nrows >= BATCH_MIN_ROWS &&
		(double) (rows->nrows + 1) * rows->bytes_per_row + need > (double) rows->mem_limit)
		return false;
	if (need > rows->arena_cap)
	{
		uint64		newcap = Max(need, Max(rows->arena_cap * 2, 65536));

		rows->arena = rows->arena == NULL ?
			MemoryContextAllocHuge(rows->call->cxt, newcap) :
			repalloc_huge(rows->arena, newcap);
		rows->arena_cap = newcap;
	}
	return true;
}

/*
 * Store one row, with its fixed payload and (for a store with extra parts)
 * len bytes of extra: in memory, or in the spill file once over the limit.
 */
void
batch_rows_add_extra(BatchRows *rows, int64 id, int64 aux, bool auxnull, int side,
					 uint8 flags, const void *payload, const void *extra, uint32 len)
{
	if (rows->nrows >= (uint64) PG_UINT32_MAX - 1)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s accepts at most %u input rows", rows->call->fname,
						PG_UINT32_MAX - 1)));
	if (rows->nrows > 0 && id <= rows->last_id)
		rows->ids_ascending = false;
	rows->last_id = id;
	if (auxnull)
		flags |= BATCH_ROW_AUXNULL;
	if (side == 1)
		flags |= BATCH_ROW_SIDE1;
	if (!rows->spilled && rows->has_extra && !reserve_extra(rows, len))
		batch_rows_spill(rows);
	if (!rows->spilled && rows->nrows == rows->cap && !grow_rows(rows))
		batch_rows_spill(rows);
	if (rows->spilled)
		write_record(rows, id, auxnull ? 0 : aux, flags, payload, extra, len);
	else
	{
		uint64		i = rows->nrows;

		rows->id[i] = id;
		if (rows->has_aux)
			rows->aux[i] = auxnull ? 0 : aux;
		rows->flags[i] = flags;
		if (rows->payload_size > 0)
			memcpy(rows->payload + i * rows->payload_size, payload,
				   rows->payload_size);
		if (rows->has_extra)
		{
			if (len > 0)
				memcpy(rows->arena + rows->arena_used, extra, len);
			rows->arena_used += len;
			rows->offsets[i + 1] = rows->arena_used;
		}
	}
	rows->nrows++;
	if (side == 0)
		rows->nside0 = rows->nrows;
}

/* Store one row of a store without extra parts. */
void
batch_rows_add(BatchRows *rows, int64 id, int64 aux, bool auxnull, int side,
			   uint8 flags, const void *payload)
{
	batch_rows_add_extra(rows, id, aux, auxnull, side, flags, payload, NULL, 0);
}

/* Start reading the rows from the first one (any store). */
void
batch_rows_rewind(BatchRows *rows)
{
	if (rows->spilled && BufFileSeek(rows->file, 0, 0, SEEK_SET) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not rewind a temporary file of the batch function")));
	rows->readpos = 0;
}

/*
 * The next row after a rewind, in arrival order; false after the last.
 * The payload and extra pointers stay valid until the next call.
 */
bool
batch_rows_next(BatchRows *rows, BatchRow *row)
{
	uint64		i = rows->readpos;

	if (i >= rows->nrows)
		return false;
	rows->readpos = i + 1;
	if ((i & 0x3ff) == 0)
		CHECK_FOR_INTERRUPTS();
	row->row = (uint32) i;
	row->extra = NULL;
	row->extra_len = 0;
	if (!rows->spilled)
	{
		row->id = rows->id[i];
		row->aux = rows->has_aux ? rows->aux[i] : 0;
		row->flags = rows->flags[i];
		row->payload = rows->payload + i * rows->payload_size;
		if (rows->has_extra)
			row->extra = batch_rows_extra(rows, i, &row->extra_len);
		return true;
	}
	if (!read_record(rows->file, rows->record, rows->record_size))
		elog(ERROR, "temporary file of %s ended after %llu of %llu rows",
			 rows->call->fname, (unsigned long long) i,
			 (unsigned long long) rows->nrows);
	decode_record(rows, row);
	if (!rows->has_extra)
		return true;
	if (row->extra_len > rows->extrabuf_cap)
	{
		uint64		newcap = Max((uint64) row->extra_len, rows->extrabuf_cap * 2);

		rows->extrabuf = rows->extrabuf == NULL ?
			MemoryContextAllocHuge(rows->call->cxt, newcap) :
			repalloc_huge(rows->extrabuf, newcap);
		rows->extrabuf_cap = newcap;
	}
	if (row->extra_len > 0 && !read_record(rows->file, rows->extrabuf, row->extra_len))
		elog(ERROR, "temporary file of %s ended inside row %llu",
			 rows->call->fname, (unsigned long long) i);
	row->extra = rows->extrabuf;
	return true;
}

/*
 * Row r of a spilled store whose rows have no extra part, read at random
 * (its records have one size, so r's offset is known).  Reading the rows in
 * order takes a rewind after it.  The payload stays valid until the next
 * call.
 */
void
batch_rows_fetch(BatchRows *rows, uint32 r, BatchRow *row)
{
	Assert(rows->spilled && !rows->has_extra && r < rows->nrows);
	/* an offset past the first segment is carried into the later ones */
	if (BufFileSeek(rows->file, 0, (off_t) r * rows->record_size, SEEK_SET) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not seek in a temporary file of the batch function")));
	if (!read_record(rows->file, rows->record, rows->record_size))
		elog(ERROR, "temporary file of %s ended before row %u", rows->call->fname, r);
	row->row = r;
	decode_record(rows, row);
	row->extra = NULL;
	row->extra_len = 0;
}

/* Release the store's memory and file. */
void
batch_rows_free(BatchRows *rows)
{
	if (rows->file)
		BufFileClose(rows->file);
	rows->file = NULL;
}
