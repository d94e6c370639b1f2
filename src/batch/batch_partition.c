/*-------------------------------------------------------------------------
 *
 * batch_partition.c
 *	  Beyond work_mem, keyed records partitioned into temporary files by the
 *	  top bits of the key, each partition then sorted in memory
 *	  (batch_sort.c).  Keys of the batch functions are hashes or block
 *	  prefixes of fingerprints, close to uniform, so one distribution pass
 *	  is the whole external sort; a skewed partition is split again by the
 *	  next bits.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "batch/batch.h"

#include "miscadmin.h"
#include "utils/memutils.h"

/* Partitions at most (the buffers of their files take 8 kB each). */
#define MAX_PARTITION_BITS		8

/*
 * Partitions at most of batch_partitions_begin_wide: 1,024 files, about
 * what a backend keeps open (max_files_per_process, 1,000 by default;
 * beyond, PostgreSQL closes and reopens files on every few writes).
 */
#define MAX_WIDE_PARTITION_BITS	10

/* Bytes of small records gathered per partition (batch.h). */
#define STAGE_BYTES				BATCH_STAGE_BYTES

/* Records of at most this size are gathered so. */
#define STAGE_MAX_RECORD		64

#define record_key(record)		batch_record_key(record)

/* ----------------------------------------------------------------
 *		Partitions in temporary files
 * ----------------------------------------------------------------
 */

/* Is a record of this size sorted in place (keys, or 16-byte BatchRecs)? */
static inline bool
sorted_in_place(int record_size)
{
	return record_size == sizeof(uint64) || record_size == sizeof(BatchRec);
}

/*
 * Bytes of memory a partition of n records takes while it is sorted: the
 * records alone when they are sorted in place; else the records, their
 * sort records (key, position) and the sorted copy.
 */
static inline double
sort_bytes(uint64 n, int record_size)
{
	if (sorted_in_place(record_size))
		return (double) n * record_size;
	return (double) n * (2.0 * record_size + sizeof(BatchRec));
}

/*
 * Bytes per record, beside the records, of sorting a partition of
 * variable-length records: pointers, lengths, sort records, sorted copies.
 */
#define VAR_SORT_BYTES			64.0

static BatchPartitions *partitions_alloc(BatchCall *call, int record_size,
										 int64 mem_limit, int shift,
										 int key_bits, int bits);

/*
 * Partitions for records whose keys agree on their top 'shift' bits, of
 * which only the top key_bits count.
 */
static BatchPartitions *
partitions_new(BatchCall *call, int record_size, uint64 expected,
			   int64 mem_limit, int shift, int key_bits)
{
	/* room for the sort through a second buffer (scatter_sort) */
	double		need = sort_bytes(expected, record_size) *
		(sorted_in_place(record_size) ? 2 : 1);
	int			bits = 1;

	/* enough partitions that each one is sorted within the limit */
	while (bits < MAX_PARTITION_BITS && need / (1 << bits) > mem_limit / 2)
		bits++;
	return partitions_alloc(call, record_size, mem_limit, shift, key_bits,
							Min(bits, key_bits - shift));
}

/* 2^bits partitions below the top 'shift' bits, runs of key_bits bits. */
static BatchPartitions *
partitions_alloc(BatchCall *call, int record_size, int64 mem_limit, int shift,
				 int key_bits, int bits)
{
	BatchPartitions *parts = MemoryContextAllocZero(call->cxt, sizeof(BatchPartitions));

	parts->call = call;
	parts->record_size = record_size;
	parts->mem_limit = mem_limit;
	parts->shift = shift;
	parts->key_bits = key_bits;
	parts->root = parts;
	parts->bits = bits;
	parts->files = MemoryContextAllocZero(call->cxt, sizeof(BufFile *) << bits);
	parts->counts = MemoryContextAllocZero(call->cxt, sizeof(uint64) << bits);
	parts->bytes = MemoryContextAllocZero(call->cxt, sizeof(uint64) << bits);
	if (record_size <= STAGE_MAX_RECORD)
	{
		parts->stage = MemoryContextAlloc(call->cxt, (Size) STAGE_BYTES << bits);
		parts->staged = MemoryContextAllocZero(call->cxt, sizeof(uint32) << bits);
	}
	return parts;
}

/*
 * Records of record_size bytes that one level of partitions sorts within
 * mem_limit, each partition planned at half the limit as partitions_new
 * plans them; beyond it partitions are split again (read and written once
 * more).
 */
uint64
batch_partitions_capacity(int record_size, int64 mem_limit)
{
	return (uint64) ((double) (1 << MAX_PARTITION_BITS) * (double) (mem_limit / 2) /
					 sort_bytes(1, record_size));
}

/*
 * Partitions for about 'expected' records of record_size bytes, each to be
 * sorted within mem_limit bytes.
 */
BatchPartitions *
batch_partitions_begin(BatchCall *call, int record_size, uint64 expected,
					   int64 mem_limit)
{
	return partitions_new(call, record_size, expected, mem_limit, 0, 64);
}

/*
 * Partitions of records whose runs are the records sharing the top key_bits
 * bits of their keys (1 to 64): a run is never split between partitions,
 * and a partition too large for the limit whose records all share those
 * bits is handed over as one run (see batch_partitions_sort_each).
 */
BatchPartitions *
batch_partitions_begin_prefix(BatchCall *call, int record_size, uint64 expected,
							  int64 mem_limit, int key_bits)
{
	Assert(key_bits >= 1 && key_bits <= 64);
	return partitions_new(call, record_size, expected, mem_limit, 0, key_bits);
}

/*
 * Memory of the files of 2^bits partitions while they are written: a
 * BufFile's buffer and the gathered records of each.
 */
static inline double
partition_buffer_bytes(int bits)
{
	return (double) (sizeof(BufFile *) + BLCKSZ + 64 + STAGE_BYTES) * (1 << bits);
}

/*
 * Partitions of records sorted in place (8 or 16 bytes) whose runs share
 * the top key_bits bits of their keys, as batch_partitions_begin_prefix,
 * but as many as the row count asks for, beyond MAX_PARTITION_BITS, so that
 * no partition is split again (read and written once more): the fewest
 * whose partitions are sorted through a second buffer (2 x their bytes
 * within mem_limit), else in place (their bytes within mem_limit), with
 * the files' buffers and the partition being sorted within 2 x mem_limit
 * together; failing both, as many as keep the buffers within mem_limit
 * (and larger partitions are split again).
 */
BatchPartitions *
batch_partitions_begin_wide(BatchCall *call, int record_size, uint64 expected,
							int64 mem_limit, int key_bits)
{
	double		bytes = (double) expected * record_size;
	int			bits = -1;
	BatchPartitions *parts;

	Assert(sorted_in_place(record_size));
	Assert(key_bits >= 1 && key_bits <= 64);
	for (int pass = 0; pass < 2 && bits < 0; pass++)
	{
		/* pass 0: through a second buffer; pass 1: in place */
		double		copies = pass == 0 ? 2.0 : 1.0;

		for (int b = 1; b <= MAX_WIDE_PARTITION_BITS; b++)
		{
			double		part = bytes / (1 << b);

			if (part * copies <= mem_limit &&
				partition_buffer_bytes(b) + part * copies <= 2.0 * mem_limit)
			{
				bits = b;
				break;
			}
		}
	}
	if (bits < 0)
	{
		bits = 1;
		while (bits < MAX_WIDE_PARTITION_BITS &&
			   partition_buffer_bytes(bits + 1) <= mem_limit)
			bits++;
	}
	parts = partitions_alloc(call, record_size, mem_limit, 0, key_bits,
							 Min(bits, key_bits));
	parts->keep_buffers = true;
	return parts;
}

/* The file of partition p, created when first needed. */
static BufFile *
partition_file(BatchPartitions *parts, uint64 p)
{
	if (parts->files[p] == NULL)
	{
		MemoryContext old = MemoryContextSwitchTo(parts->call->cxt);

		parts->files[p] = BufFileCreateTemp(false);
		MemoryContextSwitchTo(old);
	}
	return parts->files[p];
}

/* Write the records gathered for partition p to its file. */
void
batch_partitions_flush_stage(BatchPartitions *parts, uint64 p)
{
	if (parts->staged[p] == 0)
		return;
	BufFileWrite(partition_file(parts, p), parts->stage + p * STAGE_BYTES,
				 parts->staged[p]);
	parts->staged[p] = 0;
}

/* Add a record to the partition of its key. */
void
batch_partitions_put(BatchPartitions *parts, const void *record)
{
	uint64		key = record_key(record);
	uint64		p = parts->shift >= 64 ? 0 :
		(key << parts->shift) >> (64 - parts->bits);

	if (parts->stage)
	{
		int			rs = parts->record_size;
		char	   *slot;

		if (parts->staged[p] + rs > STAGE_BYTES)
			batch_partitions_flush_stage(parts, p);
		slot = parts->stage + p * STAGE_BYTES + parts->staged[p];
		/* constant sizes, so that the copies are inlined */
		if (rs == sizeof(BatchRec))
			memcpy(slot, record, sizeof(BatchRec));
		else if (rs == sizeof(uint64))
			memcpy(slot, record, sizeof(uint64));
		else
			memcpy(slot, record, rs);
		parts->staged[p] += rs;
	}
	else
	{
		partition_file(parts, p);
		BufFileWrite(parts->files[p], (void *) record, parts->record_size);
	}
	parts->counts[p]++;
	parts->total++;
}

/* Rewind a temporary file of a batch function, or raise the error. */
void
batch_file_rewind(BufFile *file)
{
	if (BufFileSeek(file, 0, 0, SEEK_SET) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not rewind a temporary file of the batch function")));
}

/* Read exactly size bytes of a temporary file, or raise the error. */
void
batch_file_read(BufFile *file, void *buf, size_t size)
{
	if (BufFileRead(file, buf, size) != size)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not read from a temporary file of the batch function")));
}

/* Read size bytes of a partition file from its start into buf. */
static void
read_partition_bytes(BufFile *file, char *buf, size_t want)
{
	size_t		done = 0;

	batch_file_rewind(file);
	while (done < want)
	{
		size_t		chunk = Min(want - done, (size_t) 1 << 20);
		size_t		got = BufFileRead(file, buf + done, chunk);

		if (got != chunk)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not read from a temporary file of the batch function: read only %zu of %zu bytes",
							done + got, want)));
		done += got;
		CHECK_FOR_INTERRUPTS();
	}
}

/*
 * Sort n records in buf by key (then position) into out; their keys share
 * their top 'skip' bits.
 */
static void
sort_records(const char *buf, char *out, uint64 n, int record_size, int skip)
{
	BatchRec   *recs = palloc_extended(Max(n, 1) * sizeof(BatchRec), MCXT_ALLOC_HUGE);

	for (uint64 i = 0; i < n; i++)
	{
		recs[i].key = record_key(buf + i * record_size);
		recs[i].val = i;
	}
	batch_sort_recs_in_place(recs, n, skip);
	for (uint64 i = 0; i < n; i++)
	{
		if ((i & 0xfff) == 0)
			CHECK_FOR_INTERRUPTS();
		memcpy(out + i * record_size, buf + recs[i].val * record_size, record_size);
	}
	pfree(recs);
}

/*
 * Raise 54000 for a run of n records of rs bytes sharing one key, which
 * must be in memory at once and takes more than 2 x work_mem.
 */
void
batch_error_run_too_large(BatchCall *call, uint64 n, int rs)
{
	ereport(ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 errmsg("%s: %llu rows share one key, more than work_mem (%d kB) holds",
					call->fname, (unsigned long long) n, work_mem),
			 errdetail("The rows that share a key are compared with each other in memory."),
			 errhint("Raise work_mem for this session, for example SET work_mem = '%.0fMB';",
					 (double) n * rs / (2.0 * 1024.0 * 1024.0) + 1)));
}

/*
 * Hand a partition whose records all share one key to the callback: whole
 * when whole_runs is asked for (an error beyond twice the limit: every pair
 * of such a run is compared in memory, and would be billions of pairs
 * anyway), else in chunks that each fit in the limit.
 */
static void
deliver_one_key(BatchPartitions *parts, BufFile *file, uint64 n,
				BatchRunsCallback callback, void *arg, bool whole_runs)
{
	int			rs = parts->record_size;
	uint64		chunk = Max((uint64) parts->mem_limit / rs, 1);
	char	   *buf;

	if (whole_runs && (double) n * rs > 2.0 * parts->mem_limit)
		batch_error_run_too_large(parts->call, n, rs);
	if (whole_runs)
		chunk = n;
	buf = palloc_extended((size_t) Min(chunk, n) * rs, MCXT_ALLOC_HUGE);
	batch_file_rewind(file);
	for (uint64 done = 0; done < n; done += chunk)
	{
		uint64		m = Min(chunk, n - done);
		size_t		want = (size_t) m * rs;
		size_t		got = 0;

		while (got < want)
		{
			size_t		step = Min(want - got, (size_t) 1 << 20);

			if (BufFileRead(file, buf + got, step) != step)
				ereport(ERROR,
						(errcode_for_file_access(),
						 errmsg("could not read from a temporary file of the batch function")));
			got += step;
			CHECK_FOR_INTERRUPTS();
		}
		/* the key's records go on in the next call? */
		parts->root->more_of_key = done + m < n;
		callback(arg, buf, m);
	}
	parts->root->more_of_key = false;
	pfree(buf);
}

/*
 * A buffer for n records of a partition to be sorted: a new one, or with
 * keep_buffers the partitions' buffer 'which' (0: read, 1: sorted copy),
 * allocated once for the largest partition that uses it (sorted in memory;
 * through the copy), so that the pages of one partition's buffer serve the
 * next ones.
 */
static char *
sort_buffer(BatchPartitions *parts, int which, uint64 n)
{
	int			rs = parts->record_size;

	if (!parts->keep_buffers)
		return palloc_extended((size_t) n * rs, MCXT_ALLOC_HUGE);
	if (parts->kept[which] == NULL)
	{
		uint64		most = n;

		for (uint64 p = 0; p < (UINT64CONST(1) << parts->bits); p++)
			if (parts->counts[p] > most &&
				sort_bytes(parts->counts[p], rs) * (which + 1) <= parts->mem_limit)
				most = parts->counts[p];
		parts->kept[which] = MemoryContextAllocExtended(parts->call->cxt,
														(size_t) most * rs,
														MCXT_ALLOC_HUGE);
	}
	return parts->kept[which];
}

/*
 * Hand every partition, sorted, to the callback, in key order, so that the
 * callbacks see all records in (key, insertion) order.  A partition larger
 * than the limit is split again by the next bits of the key.  One whose
 * records all share one key (its top key_bits bits) is handed over by
 * deliver_one_key, unsorted: with whole_runs false the records of one key
 * may come in several calls (the callback then keeps the state of the
 * current key across calls).
 */
void
batch_partitions_sort_each(BatchPartitions *parts, BatchRunsCallback callback,
						   void *arg, bool whole_runs)
{
	int			rs = parts->record_size;
	int			skip = Min(parts->shift + parts->bits, 64);

	if (parts->stage)
		for (uint64 p = 0; p < (UINT64CONST(1) << parts->bits); p++)
			batch_partitions_flush_stage(parts, p);
	for (uint64 p = 0; p < (UINT64CONST(1) << parts->bits); p++)
	{
		uint64		n = parts->counts[p];
		BufFile    *file = parts->files[p];
		char	   *buf;
		char	   *sorted;

		CHECK_FOR_INTERRUPTS();
		if (n == 0)
			continue;
		if (sort_bytes(n, rs) > parts->mem_limit)
		{
			/* split this partition again by the next bits of the key */
			BatchPartitions *sub = NULL;
			char	   *record = palloc(rs);
			int			drop = 64 - parts->key_bits;
			uint64		first = 0;
			bool		same = true;

			if (parts->shift + parts->bits < parts->key_bits)
			{
				sub = partitions_new(parts->call, rs, n, parts->mem_limit,
									 parts->shift + parts->bits, parts->key_bits);
				sub->root = parts->root;
			}
			batch_file_rewind(file);
			for (uint64 i = 0; i < n; i++)
			{
				if (BufFileRead(file, record, rs) != (size_t) rs)
					ereport(ERROR,
							(errcode_for_file_access(),
							 errmsg("could not read from a temporary file of the batch function")));
				if (i == 0)
					first = record_key(record) >> drop;
				else if ((record_key(record) >> drop) != first)
					same = false;
				if (sub)
					batch_partitions_put(sub, record);
				if ((i & 0xfff) == 0)
					CHECK_FOR_INTERRUPTS();
			}
			pfree(record);
			if (!same && sub)
			{
				BufFileClose(file);
				parts->files[p] = NULL;
				batch_partitions_sort_each(sub, callback, arg, whole_runs);
				batch_partitions_end(sub);
				continue;
			}
			/* every record has one key: splitting cannot help */
			if (sub)
				batch_partitions_end(sub);
			deliver_one_key(parts, file, n, callback, arg, whole_runs);
			BufFileClose(file);
			parts->files[p] = NULL;
			continue;
		}
		buf = sort_buffer(parts, 0, n);
		read_partition_bytes(file, buf, (size_t) n * rs);
		BufFileClose(file);
		parts->files[p] = NULL;
		if (sorted_in_place(rs) && 2.0 * n * rs <= parts->mem_limit &&
			n <= PG_UINT32_MAX)
		{
			/* room for a second buffer: the faster sort */
			sorted = sort_buffer(parts, 1, n);
			if (rs == sizeof(uint64))
				batch_scatter_sort(buf, sorted, n, skip, sizeof(uint64));
			else
				batch_scatter_sort(buf, sorted, n, skip, sizeof(BatchRec));
			if (!parts->keep_buffers)
				pfree(buf);
			buf = sorted;
		}
		else if (rs == sizeof(uint64))
			batch_sort_keys_in_place((uint64 *) buf, n, skip);
		else if (rs == sizeof(BatchRec))
			batch_sort_recs_in_place((BatchRec *) buf, n, skip);
		else
		{
			sorted = palloc_extended((size_t) n * rs, MCXT_ALLOC_HUGE);
			sort_records(buf, sorted, n, rs, skip);
			pfree(buf);
			buf = sorted;
		}
		callback(arg, buf, n);
		if (!parts->keep_buffers)
			pfree(buf);
	}
}

/* Close every file of the partitions and free them. */
void
batch_partitions_end(BatchPartitions *parts)
{
	for (uint64 p = 0; p < (UINT64CONST(1) << parts->bits); p++)
		if (parts->files[p])
			BufFileClose(parts->files[p]);
	for (int i = 0; i < 2; i++)
		if (parts->kept[i])
			pfree(parts->kept[i]);
	pfree(parts->files);
	pfree(parts->counts);
	pfree(parts->bytes);
	if (parts->stage)
	{
		pfree(parts->stage);
		pfree(parts->staged);
	}
	pfree(parts);
}

/* ----------------------------------------------------------------
 *		Partitions of variable-length records
 * ----------------------------------------------------------------
 */

/* Variable-length partitions for about expected_bytes, below 'shift' bits. */
static BatchPartitions *
partitions_new_var(BatchCall *call, double expected_bytes, int64 mem_limit, int shift)
{
	BatchPartitions *parts = MemoryContextAllocZero(call->cxt, sizeof(BatchPartitions));
	int			bits = 1;

	/* the bytes, and about as much again for the sort */
	while (bits < MAX_PARTITION_BITS && 2.0 * expected_bytes / (1 << bits) > mem_limit / 2)
		bits++;
	parts->call = call;
	parts->record_size = 0;
	parts->mem_limit = mem_limit;
	parts->shift = shift;
	parts->key_bits = 64;
	parts->root = parts;
	parts->bits = Min(bits, 64 - shift);
	parts->files = MemoryContextAllocZero(call->cxt, sizeof(BufFile *) << parts->bits);
	parts->counts = MemoryContextAllocZero(call->cxt, sizeof(uint64) << parts->bits);
	parts->bytes = MemoryContextAllocZero(call->cxt, sizeof(uint64) << parts->bits);
	return parts;
}

/*
 * Partitions for about expected_bytes of variable-length records, each
 * partition to be sorted within mem_limit bytes.
 */
BatchPartitions *
batch_partitions_begin_var(BatchCall *call, double expected_bytes, int64 mem_limit)
{
	return partitions_new_var(call, expected_bytes, mem_limit, 0);
}

/* Add a record of len bytes (len >= 8) to the partition of its key. */
void
batch_partitions_put_var(BatchPartitions *parts, const void *record, uint32 len)
{
	uint64		key = record_key(record);
	uint64		p = parts->shift >= 64 ? 0 :
		(key << parts->shift) >> (64 - parts->bits);

	Assert(len >= sizeof(uint64));
	partition_file(parts, p);
	BufFileWrite(parts->files[p], &len, sizeof(uint32));
	BufFileWrite(parts->files[p], (void *) record, len);
	parts->counts[p]++;
	parts->bytes[p] += sizeof(uint32) + len;
	parts->total++;
}

/* Read the next variable-length record of a file into *buf; its length. */
static uint32
read_var_record(BufFile *file, char **buf, uint64 *cap)
{
	uint32		len;

	if (BufFileRead(file, &len, sizeof(uint32)) != sizeof(uint32))
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not read from a temporary file of the batch function")));
	if (len > *cap)
	{
		*cap = Max((uint64) len, *cap * 2);
		*buf = *buf ? repalloc_huge(*buf, *cap) : palloc_extended(*cap, MCXT_ALLOC_HUGE);
	}
	if (BufFileRead(file, *buf, len) != len)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not read from a temporary file of the batch function")));
	return len;
}

/*
 * Hand every partition of variable-length records, sorted by key, to the
 * callback.  A partition larger than the limit is split again by the next
 * bits of the key; one whose records all share one key is handed over in
 * pieces that fit in the limit, in the order they were written.
 */
void
batch_partitions_sort_each_var(BatchPartitions *parts, BatchVarRunsCallback callback,
							   void *arg)
{
	for (uint64 p = 0; p < (UINT64CONST(1) << parts->bits); p++)
	{
		uint64		n = parts->counts[p];
		uint64		size = parts->bytes[p];
		BufFile    *file = parts->files[p];
		char	   *buf;
		char	  **ptrs;
		uint32	   *lens;
		BatchRec   *recs;
		char	  **sptrs;
		uint32	   *slens;
		uint64		pos = 0;

		CHECK_FOR_INTERRUPTS();
		if (n == 0)
			continue;
		if ((double) size + (double) n * VAR_SORT_BYTES > parts->mem_limit)
		{
			char	   *record = NULL;
			uint64		cap = 0;
			uint64		first = 0;
			bool		same = true;
			BatchPartitions *sub = NULL;

			if (parts->shift + parts->bits < 64)
				sub = partitions_new_var(parts->call, (double) size, parts->mem_limit,
										 parts->shift + parts->bits);
			batch_file_rewind(file);
			for (uint64 i = 0; i < n; i++)
			{
				uint32		len = read_var_record(file, &record, &cap);

				if (i == 0)
					first = record_key(record);
				else if (record_key(record) != first)
					same = false;
				if (sub)
					batch_partitions_put_var(sub, record, len);
				if ((i & 0xfff) == 0)
					CHECK_FOR_INTERRUPTS();
			}
			if (!same && sub)
			{
				BufFileClose(file);
				parts->files[p] = NULL;
				if (record)
					pfree(record);
				batch_partitions_sort_each_var(sub, callback, arg);
				batch_partitions_end(sub);
				continue;
			}
			if (sub)
				batch_partitions_end(sub);
			/* one key: pieces within the limit, in file order */
			batch_file_rewind(file);
			for (uint64 i = 0; i < n;)
			{
				uint64		used = 0;
				uint64		m = 0;
				uint64		chunk = Max((uint64) parts->mem_limit / 64, 1);

				ptrs = palloc(sizeof(char *) * Min(chunk, n - i));
				lens = palloc(sizeof(uint32) * Min(chunk, n - i));
				while (i < n && m < chunk && used < (uint64) parts->mem_limit)
				{
					char	   *one = NULL;
					uint64		onecap = 0;

					lens[m] = read_var_record(file, &one, &onecap);
					ptrs[m] = one;
					used += lens[m];
					m++;
					i++;
				}
				callback(arg, ptrs, lens, m);
				for (uint64 j = 0; j < m; j++)
					pfree(ptrs[j]);
				pfree(ptrs);
				pfree(lens);
			}
			if (record)
				pfree(record);
			BufFileClose(file);
			parts->files[p] = NULL;
			continue;
		}
		buf = palloc_extended(Max(size, 1), MCXT_ALLOC_HUGE);
		read_partition_bytes(file, buf, size);
		BufFileClose(file);
		parts->files[p] = NULL;
		ptrs = palloc_extended(n * sizeof(char *), MCXT_ALLOC_HUGE);
		lens = palloc_extended(n * sizeof(uint32), MCXT_ALLOC_HUGE);
		recs = palloc_extended(n * sizeof(BatchRec), MCXT_ALLOC_HUGE);
		for (uint64 i = 0; i < n; i++)
		{
			memcpy(&lens[i], buf + pos, sizeof(uint32));
			ptrs[i] = buf + pos + sizeof(uint32);
			recs[i].key = record_key(ptrs[i]);
			recs[i].val = i;
			pos += sizeof(uint32) + lens[i];
		}
		batch_sort_recs_in_place(recs, n, Min(parts->shift + parts->bits, 64));
		sptrs = palloc_extended(n * sizeof(char *), MCXT_ALLOC_HUGE);
		slens = palloc_extended(n * sizeof(uint32), MCXT_ALLOC_HUGE);
		for (uint64 i = 0; i < n; i++)
		{
			sptrs[i] = ptrs[recs[i].val];
			slens[i] = lens[recs[i].val];
		}
		pfree(recs);
		pfree(ptrs);
		pfree(lens);
		callback(arg, sptrs, slens, n);
		pfree(sptrs);
		pfree(slens);
		pfree(buf);
	}
}
