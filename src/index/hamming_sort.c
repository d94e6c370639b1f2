/*-------------------------------------------------------------------------
 *
 * hamming_sort.c
 *	  Sorting the values a hamming generation is built from, in
 *	  maintenance_work_mem: values of one or two 64-bit words, ordered by
 *	  the first word (unsigned), equal first words in the order they were
 *	  put.
 *
 * While the values fit, they are sorted in memory by a radix sort (most
 * significant 8-bit digit first; it needs the values twice).  Beyond, the
 * values are cut into chunks of half the memory; each chunk is radix-sorted
 * and written to its own temporary file (a sorted run), the last one stays
 * in memory, and the runs are merged through a binary heap of their first
 * values (Knuth, TAOCP vol. 3, s.5.4.1: k-way merging of sorted runs).
 * Every value is written and read once more than in memory: two sequential
 * passes over the temporary files, where a comparison sort of tuples would
 * make several.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "hamming.h"

#include "miscadmin.h"
#include "storage/buffile.h"
#include "utils/memutils.h"

/* values read from a run file at a time, at most */
#define RUN_READ_MAX_VALUES		(64 * 1024)

/* A sorted run being merged: a temporary file, or the last chunk in memory. */
typedef struct SortRun
{
	BufFile    *file;			/* NULL for the run in memory */
	uint64		unread;			/* values still in the file */
	uint64	   *buf;			/* values read, stride words each */
	Size		nbuf;			/* values in buf */
	Size		pos;			/* next value of buf */
	Size		bufmax;			/* room in buf, in values */
} SortRun;

struct HammingWordSort
{
	MemoryContext cxt;
	int			stride;			/* words per value: 1 or 2 */
	Size		mem_limit;		/* bytes */
	uint64	   *vals;			/* the chunk being filled */
	Size		n;				/* values in the chunk */
	Size		max;			/* room in the chunk, in values */
	Size		chunk_max;		/* the most a chunk may hold (radix: twice) */
	uint64		count;			/* values put */
	/* the runs written (nruns) and, after finish, the merge */
	int			nruns;
	int			maxruns;
	BufFile   **files;
	uint64	   *lengths;
	SortRun    *runs;			/* nmerge runs */
	int			nmerge;
	int		   *heap;			/* run numbers, a min-heap by head value */
	int			nheap;
	bool		taken;			/* the heap's first run gave the last value */
	uint64	   *sorted;			/* in memory only: the sorted values */
	Size		next;			/* in memory only: the next value */
};

/* buckets of at most this many values are finished by insertion sort */
#define RADIX_SMALL		32

/*
 * Scatter the n values of src to dst by the 8-bit digit at shift of their
 * first word; pos[d] is where digit d's values start in dst (advanced).
 */
static inline void
radix_scatter(const uint64 *src, uint64 *dst, Size n, int stride, int shift, Size *pos)
{
	if (stride == 1)
		for (Size i = 0; i < n; i++)
			dst[pos[(src[i] >> shift) & 0xff]++] = src[i];
	else
		for (Size i = 0; i < n; i++)
		{
			Size		p = pos[(src[2 * i] >> shift) & 0xff]++;

			dst[2 * p] = src[2 * i];
			dst[2 * p + 1] = src[2 * i + 1];
		}
}

/*
 * Count the values of each 8-bit digit at shift into counts (256); true
 * when they all have the same digit.
 */
static inline bool
radix_count(const uint64 *a, Size n, int stride, int shift, Size *counts)
{
	memset(counts, 0, sizeof(Size) * 256);
	for (Size i = 0; i < n; i++)
		counts[(a[i * stride] >> shift) & 0xff]++;
	return counts[(a[0] >> shift) & 0xff] == n;
}

/* Stable insertion sort of a few values by their first word. */
static void
insertion_sort(uint64 *a, Size n, int stride)
{
	for (Size i = 1; i < n; i++)
	{
		uint64		key = a[i * stride];
		uint64		second = stride == 2 ? a[i * 2 + 1] : 0;
		Size		j = i;

		for (; j > 0 && a[(j - 1) * stride] > key; j--)
		{
			a[j * stride] = a[(j - 1) * stride];
			if (stride == 2)
				a[j * 2 + 1] = a[(j - 1) * 2 + 1];
		}
		a[j * stride] = key;
		if (stride == 2)
			a[j * 2 + 1] = second;
	}
}

/*
 * Radix sort of n values of `stride` words each by their first word, whose
 * bits above shift + 8 are equal: most significant digit first (8-bit
 * digits, each pass a scatter to 256 places, which the caches follow),
 * down to buckets of RADIX_SMALL values, which an insertion sort finishes
 * (Knuth, TAOCP vol. 3, s.5.2.5, and s.5.2.1).  tmp has room for n values.
 * Stable; the result is in a.
 */
static void
radix_sort(uint64 *a, uint64 *tmp, Size n, int stride, int shift)
{
	Size		counts[256];
	Size		starts[257];
	Size		sum = 0;

	if (n <= RADIX_SMALL)
	{
		insertion_sort(a, n, stride);
		return;
	}
	CHECK_FOR_INTERRUPTS();
	if (radix_count(a, n, stride, shift, counts))
	{
		if (shift > 0)
			radix_sort(a, tmp, n, stride, shift - 8);
		return;
	}
	for (int d = 0; d < 256; d++)
	{
		starts[d] = sum;
		sum += counts[d];
		counts[d] = starts[d];
	}
	starts[256] = sum;
	radix_scatter(a, tmp, n, stride, shift, counts);
	memcpy(a, tmp, sizeof(uint64) * stride * n);
	if (shift == 0)
		return;
	for (int d = 0; d < 256; d++)
	{
		Size		m = starts[d + 1] - starts[d];

		if (m > 1)
			radix_sort(a + starts[d] * stride, tmp + starts[d] * stride, m,
					   stride, shift - 8);
	}
}

/*
 * The values of stride words that mem_limit bytes sort in memory at once
 * (the radix sort needs them twice; at least 1024).
 */
Size
hamming_wordsort_room(int stride, Size mem_limit)
{
	return Max(mem_limit / (2 * sizeof(uint64) * stride), 1024);
}

/*
 * Start a sort of values of stride words in mem_limit bytes; expected, if
 * not 0, is the number of values to come (the chunk is sized for it).
 */
HammingWordSort *
hamming_wordsort_begin(int stride, Size mem_limit, uint64 expected)
{
	HammingWordSort *ws = palloc0(sizeof(HammingWordSort));
	Size		value_bytes = sizeof(uint64) * stride;

	Assert(stride == 1 || stride == 2);
	ws->cxt = AllocSetContextCreate(CurrentMemoryContext, "hamming sort",
									ALLOCSET_DEFAULT_SIZES);
	ws->stride = stride;
	ws->mem_limit = mem_limit;
	ws->chunk_max = hamming_wordsort_room(stride, mem_limit);
	ws->max = expected > 0 ? Min((Size) expected, ws->chunk_max) : Min(ws->chunk_max, 1024);
	ws->max = Max(ws->max, 1);
	ws->vals = MemoryContextAllocHuge(ws->cxt, value_bytes * ws->max);
	return ws;
}

/* Radix-sort the chunk and write it to a new run file. */
static void
write_run(HammingWordSort *ws)
{
	MemoryContext old = MemoryContextSwitchTo(ws->cxt);
	Size		bytes = sizeof(uint64) * ws->stride * ws->n;
	uint64	   *tmp = MemoryContextAllocHuge(ws->cxt, bytes);
	BufFile    *file = BufFileCreateTemp(false);

	radix_sort(ws->vals, tmp, ws->n, ws->stride, 56);
	pfree(tmp);
	for (Size done = 0; done < bytes;)
	{
		Size		part = Min(bytes - done, (Size) 1 << 24);

		BufFileWrite(file, (char *) ws->vals + done, part);
		done += part;
		CHECK_FOR_INTERRUPTS();
	}
	if (ws->nruns == ws->maxruns)
	{
		ws->maxruns = Max(8, ws->maxruns * 2);
		ws->files = ws->files ? repalloc(ws->files, sizeof(BufFile *) * ws->maxruns) :
			palloc(sizeof(BufFile *) * ws->maxruns);
		ws->lengths = ws->lengths ? repalloc(ws->lengths, sizeof(uint64) * ws->maxruns) :
			palloc(sizeof(uint64) * ws->maxruns);
	}
	ws->files[ws->nruns] = file;
	ws->lengths[ws->nruns] = ws->n;
	ws->nruns++;
	ws->n = 0;
	MemoryContextSwitchTo(old);
}

/* Add a value (stride words). */
void
hamming_wordsort_put(HammingWordSort *ws, const uint64 *value)
{
	if (ws->n == ws->max)
	{
		if (ws->max < ws->chunk_max)
		{
			ws->max = Min(ws->max * 2, ws->chunk_max);
			ws->vals = repalloc_huge(ws->vals, sizeof(uint64) * ws->stride * ws->max);
		}
		else
			write_run(ws);
	}
	ws->vals[ws->n * ws->stride] = value[0];
	if (ws->stride == 2)
		ws->vals[ws->n * ws->stride + 1] = value[1];
	ws->n++;
	ws->count++;
}

/* Number of values put. */
uint64
hamming_wordsort_count(HammingWordSort *ws)
{
	return ws->count;
}

/* Fill a file run's buffer; false when the run has no values left. */
static bool
refill_run(HammingWordSort *ws, SortRun *run)
{
	Size		want;
	Size		bytes;

	if (run->pos < run->nbuf)
		return true;
	if (run->file == NULL || run->unread == 0)
		return false;
	want = (Size) Min(run->unread, (uint64) run->bufmax);
	bytes = sizeof(uint64) * ws->stride * want;
	if (BufFileRead(run->file, run->buf, bytes) != bytes)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not read a sorted run of the hamming index build")));
	run->unread -= want;
	run->nbuf = want;
	run->pos = 0;
	CHECK_FOR_INTERRUPTS();
	return true;
}

/* The first word of a run's next value. */
static inline uint64
run_head(HammingWordSort *ws, int r)
{
	SortRun    *run = &ws->runs[r];

	return run->buf[run->pos * ws->stride];
}

/* Whether run a's head goes before run b's (equal heads: the earlier run). */
static inline bool
run_before(HammingWordSort *ws, int a, int b)
{
	uint64		ha = run_head(ws, a);
	uint64		hb = run_head(ws, b);

	return ha < hb || (ha == hb && a < b);
}

/* Restore the heap property from slot i down. */
static void
heap_sift_down(HammingWordSort *ws, int i)
{
	for (;;)
	{
		int			l = 2 * i + 1;
		int			r = l + 1;
		int			m = i;
		int			t;

		if (l < ws->nheap && run_before(ws, ws->heap[l], ws->heap[m]))
			m = l;
		if (r < ws->nheap && run_before(ws, ws->heap[r], ws->heap[m]))
			m = r;
		if (m == i)
			return;
		t = ws->heap[i];
		ws->heap[i] = ws->heap[m];
		ws->heap[m] = t;
		i = m;
	}
}

/*
 * No more values: sort the chunk in memory; if runs were written, give
 * each a read buffer and start their merge (the chunk is the last run).
 */
void
hamming_wordsort_finish(HammingWordSort *ws)
{
	MemoryContext old = MemoryContextSwitchTo(ws->cxt);
	uint64	   *tmp;
	Size		per_run;

	tmp = MemoryContextAllocHuge(ws->cxt, sizeof(uint64) * ws->stride * Max(ws->n, 1));
	radix_sort(ws->vals, tmp, ws->n, ws->stride, 56);
	pfree(tmp);
	if (ws->nruns == 0)
	{
		ws->sorted = ws->vals;
		ws->next = 0;
		MemoryContextSwitchTo(old);
		return;
	}

	/* the runs' read buffers take the half of the memory the sort's copy held */
	ws->nmerge = ws->nruns + 1;
	ws->runs = palloc0(sizeof(SortRun) * ws->nmerge);
	ws->heap = palloc(sizeof(int) * ws->nmerge);
	per_run = ws->mem_limit / 2 / ws->nruns / (sizeof(uint64) * ws->stride);
	per_run = Max(Min(per_run, (Size) RUN_READ_MAX_VALUES), 64);
	for (int r = 0; r < ws->nruns; r++)
	{
		SortRun    *run = &ws->runs[r];

		run->file = ws->files[r];
		run->unread = ws->lengths[r];
		run->bufmax = per_run;
		run->buf = palloc(sizeof(uint64) * ws->stride * per_run);
		if (BufFileSeek(run->file, 0, 0, SEEK_SET) != 0)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not rewind a sorted run of the hamming index build")));
	}
	ws->runs[ws->nruns].buf = ws->vals;
	ws->runs[ws->nruns].nbuf = ws->n;
	ws->nheap = 0;
	for (int r = 0; r < ws->nmerge; r++)
		if (refill_run(ws, &ws->runs[r]))
			ws->heap[ws->nheap++] = r;
	for (int i = ws->nheap / 2 - 1; i >= 0; i--)
		heap_sift_down(ws, i);
	MemoryContextSwitchTo(old);
}

/* The next value in sorted order (stride words), or NULL at the end. */
const uint64 *
hamming_wordsort_next(HammingWordSort *ws)
{
	SortRun    *run;

	if (ws->sorted != NULL)
	{
		if (ws->next >= ws->n)
			return NULL;
		return ws->sorted + ws->stride * ws->next++;
	}
	/* the run of the previous value has moved on: its place in the heap */
	if (ws->taken)
	{
		run = &ws->runs[ws->heap[0]];
		if (!refill_run(ws, run))
			ws->heap[0] = ws->heap[--ws->nheap];
		if (ws->nheap > 1)
			heap_sift_down(ws, 0);
		ws->taken = false;
	}
	if (ws->nheap == 0)
		return NULL;
	run = &ws->runs[ws->heap[0]];
	ws->taken = true;
	return run->buf + ws->stride * run->pos++;
}

/* Free a sort and its temporary files. */
void
hamming_wordsort_end(HammingWordSort *ws)
{
	for (int r = 0; r < ws->nruns; r++)
		BufFileClose(ws->files[r]);
	MemoryContextDelete(ws->cxt);
	pfree(ws);
}
