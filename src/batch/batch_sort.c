/*-------------------------------------------------------------------------
 *
 * batch_sort.c
 *	  Sorting keyed records in memory: LSD radix passes, the American flag
 *	  sort (MSD radix in place) with a quicksort of small buckets, and a
 *	  scatter pass through a second buffer when memory allows one.  Beyond
 *	  work_mem the records go through partitions in temporary files
 *	  (batch_partition.c), each then sorted here.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "batch/batch.h"

#include "miscadmin.h"
#include "utils/memutils.h"

#define record_key(record)		batch_record_key(record)

/*
 * Sort 16-byte records by their 64-bit key (LSD radix, 8-bit digits,
 * stable; digits all keys share are skipped).  Returns a or tmp, whichever
 * holds the result.
 */
BatchRec *
batch_radix_sort(BatchRec *a, BatchRec *tmp, uint64 n)
{
	uint64	   *hist;
	BatchRec   *src = a;
	BatchRec   *dst = tmp;

	hist = palloc0(8 * 256 * sizeof(uint64));
	for (uint64 i = 0; i < n; i++)
	{
		uint64		k = a[i].key;

		for (int d = 0; d < 8; d++)
			hist[d * 256 + ((k >> (8 * d)) & 0xff)]++;
		if ((i & 0xffff) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	for (int d = 0; d < 8; d++)
	{
		uint64	   *h = hist + d * 256;
		uint64		sum = 0;
		bool		trivial = false;

		for (int b = 0; b < 256; b++)
		{
			uint64		cnt = h[b];

			if (cnt == n)
				trivial = true;
			h[b] = sum;
			sum += cnt;
		}
		if (trivial)
			continue;
		CHECK_FOR_INTERRUPTS();
		for (uint64 i = 0; i < n; i++)
			dst[h[(src[i].key >> (8 * d)) & 0xff]++] = src[i];
		{
			BatchRec   *t = src;

			src = dst;
			dst = t;
		}
	}
	pfree(hist);
	return src;
}

/* Quicksort of records by (key, value), PostgreSQL's sort template. */
#define ST_SORT sort_recs_qs
#define ST_ELEMENT_TYPE BatchRec
#define ST_COMPARE(a, b) \
	((a)->key != (b)->key ? ((a)->key < (b)->key ? -1 : 1) : \
	 ((a)->val < (b)->val ? -1 : (a)->val > (b)->val ? 1 : 0))
#define ST_SCOPE static
#define ST_DEFINE
#include "lib/sort_template.h"

/* Quicksort of 64-bit keys, PostgreSQL's sort template. */
#define ST_SORT sort_keys_qs
#define ST_ELEMENT_TYPE uint64
#define ST_COMPARE(a, b) (*(a) < *(b) ? -1 : *(a) > *(b) ? 1 : 0)
#define ST_SCOPE static
#define ST_DEFINE
#include "lib/sort_template.h"

/* Buckets of at most this many records are sorted by insertion. */
#define FLAG_SORT_INSERTION		12

/* Is record a (rs bytes: key, then val when rs is 16) before record b? */
static pg_attribute_always_inline bool
record_before(const char *a, const char *b, const int rs)
{
	uint64		ka = record_key(a);
	uint64		kb = record_key(b);
	uint64		va;
	uint64		vb;

	if (ka != kb || rs == 8)
		return ka < kb;
	memcpy(&va, a + 8, sizeof(uint64));
	memcpy(&vb, b + 8, sizeof(uint64));
	return va < vb;
}

/* Sort a bucket of n records of rs bytes (8 or 16). */
static pg_attribute_always_inline void
sort_bucket(char *a, uint64 n, const int rs)
{
	if (n > FLAG_SORT_INSERTION)
	{
		if (rs == 8)
			sort_keys_qs((uint64 *) a, n);
		else
			sort_recs_qs((BatchRec *) a, n);
		return;
	}
	for (uint64 i = 1; i < n; i++)
	{
		char		rec[16];
		uint64		j = i;

		if (!record_before(a + i * rs, a + (i - 1) * rs, rs))
			continue;
		memcpy(rec, a + i * rs, rs);
		do
		{
			memcpy(a + j * rs, a + (j - 1) * rs, rs);
			j--;
		} while (j > 0 && record_before(rec, a + (j - 1) * rs, rs));
		memcpy(a + j * rs, rec, rs);
	}
}

static void flag_sort_keys(char *a, uint64 n, int skip);
static void flag_sort_recs(char *a, uint64 n, int skip);

/*
 * Sort n records of rs bytes in place: rs 8, 64-bit keys; rs 16, BatchRec
 * by (key, val).  Their keys share their top 'skip' bits (a partition's).
 * MSD radix on the next 8 bits, permuting the records in place (McIlroy,
 * Bostic and McIlroy's American flag sort: 256 buckets, whose bounds and
 * records stay in cache), then each bucket the same way on the next 8 bits,
 * down to buckets of a few records, sorted by insertion.  Takes no memory
 * beside the records.
 */
static pg_attribute_always_inline void
flag_sort(char *a, uint64 n, int skip, const int rs)
{
	int			bits;
	int			shift;
	uint64		mask;
	uint64		next[256];
	uint64		end[256];
	uint64		sum = 0;

	if (n <= FLAG_SORT_INSERTION || skip >= 64)
	{
		sort_bucket(a, n, rs);
		return;
	}
	if (n > 65536)
		CHECK_FOR_INTERRUPTS();
	bits = Min(8, 64 - skip);
	shift = 64 - skip - bits;
	mask = (UINT64CONST(1) << bits) - 1;
	memset(next, 0, sizeof(uint64) << bits);
	for (uint64 i = 0; i < n; i++)
		next[(record_key(a + i * rs) >> shift) & mask]++;
	for (int b = 0; b < (1 << bits); b++)
	{
		uint64		c = next[b];

		next[b] = sum;
		sum += c;
		end[b] = sum;
	}
	/* every record to its bucket, following each displacement cycle */
	for (int b = 0; b < (1 << bits); b++)
	{
		while (next[b] < end[b])
		{
			char		rec[16];
			int			d;

			memcpy(rec, a + next[b] * rs, rs);
			d = (int) ((record_key(rec) >> shift) & mask);
			while (d != b)
			{
				char		t[16];
				char	   *slot = a + next[d] * rs;

				memcpy(t, slot, rs);
				memcpy(slot, rec, rs);
				next[d]++;
				memcpy(rec, t, rs);
				d = (int) ((record_key(rec) >> shift) & mask);
			}
			memcpy(a + next[b] * rs, rec, rs);
			next[b]++;
		}
	}
	for (int b = 0; b < (1 << bits); b++)
	{
		uint64		start = b == 0 ? 0 : end[b - 1];

		if (end[b] - start < 2)
			continue;
		if (rs == 8)
			flag_sort_keys(a + start * rs, end[b] - start, skip + bits);
		else
			flag_sort_recs(a + start * rs, end[b] - start, skip + bits);
	}
}

/* Bits of the bucket number of the sort through a second buffer, at most. */
#define SCATTER_MAX_BITS		16

/*
 * Sort n records of rs bytes (8 or 16, as flag_sort) from a into tmp, when
 * memory allows a second buffer: one MSD radix pass on the bits below the
 * shared 'skip' scatters them (independent writes, faster than following
 * the cycles in place) into buckets of one or two records, then sorted.
 */
static pg_attribute_always_inline void
scatter_sort(const char *a, char *tmp, uint64 n, int skip, const int rs)
{
	int			bits = 0;
	int			shift;
	uint64		mask;
	uint32	   *pos;
	uint32		sum = 0;

	Assert(n <= PG_UINT32_MAX);
	while (bits < SCATTER_MAX_BITS && (n >> (bits + 1)) > 0)
		bits++;
	bits = Min(bits, 64 - skip);
	shift = 64 - skip - bits;
	mask = (UINT64CONST(1) << bits) - 1;
	pos = palloc0(((Size) 1 << bits) * sizeof(uint32) + sizeof(uint32));
	for (uint64 i = 0; i < n; i++)
		pos[((record_key(a + i * rs) >> shift) & mask) + 1]++;
	for (uint64 b = 1; b <= mask + 1; b++)
	{
		sum += pos[b];
		pos[b] = sum;
	}
	CHECK_FOR_INTERRUPTS();
	/* pos[b] is the start of bucket b; it becomes its end */
	for (uint64 i = 0; i < n; i++)
	{
		const char *rec = a + i * rs;

		memcpy(tmp + (uint64) pos[(record_key(rec) >> shift) & mask]++ * rs, rec, rs);
	}
	for (uint64 b = 0; b <= mask; b++)
	{
		uint32		start = b == 0 ? 0 : pos[b - 1];

		if ((b & 0xfff) == 0)
			CHECK_FOR_INTERRUPTS();
		if (pos[b] - start > 1)
		{
			if (rs == 8)
				flag_sort_keys(tmp + (uint64) start * rs, pos[b] - start, skip + bits);
			else
				flag_sort_recs(tmp + (uint64) start * rs, pos[b] - start, skip + bits);
		}
	}
	pfree(pos);
}

/* flag_sort of 64-bit keys. */
static void
flag_sort_keys(char *a, uint64 n, int skip)
{
	flag_sort(a, n, skip, sizeof(uint64));
}

/* flag_sort of BatchRecs. */
static void
flag_sort_recs(char *a, uint64 n, int skip)
{
	flag_sort(a, n, skip, sizeof(BatchRec));
}

/* Sort n BatchRecs in place by (key, val); their keys share 'skip' top bits. */
void
batch_sort_recs_in_place(BatchRec *a, uint64 n, int skip)
{
	flag_sort_recs((char *) a, n, skip);
}

/* Sort n 64-bit keys in place; they share their top 'skip' bits. */
void
batch_sort_keys_in_place(uint64 *a, uint64 n, int skip)
{
	flag_sort_keys((char *) a, n, skip);
}

/*
 * Sort n records of rs bytes (8: keys, or 16: BatchRecs) from a into tmp
 * through the scatter pass; their keys share 'skip' top bits.
 */
void
batch_scatter_sort(const char *a, char *tmp, uint64 n, int skip, int rs)
{
	if (rs == sizeof(uint64))
		scatter_sort(a, tmp, n, skip, sizeof(uint64));
	else
		scatter_sort(a, tmp, n, skip, sizeof(BatchRec));
}

/*
 * Buckets of batch_sort_by_key above this many records are sorted by the
 * American flag sort, smaller ones by quicksort (a flag sort pass costs its
 * 256 bins, more than a quicksort of a few dozen records).
 */
#define BY_KEY_FLAG_SORT		64

/*
 * Sort records by (key, value): one MSD radix pass on the top bits of the
 * key (at most 16) spreads them into buckets (the keys are hashes or
 * fingerprints), each then sorted in cache: by quicksort when it holds a
 * few dozen (up to 2^22 records in all), by the American flag sort on the
 * bits below when it holds more (the 15.6M prefix entries of
 * shingleset_pairs on 1M long documents at 0.8: 238 a bucket).  Returns a
 * or tmp.
 */
BatchRec *
batch_sort_by_key(BatchRec *a, BatchRec *tmp, uint64 n)
{
	int			bits = 0;
	uint64	   *count;
	uint64		sum = 0;
	int			shift;

	while (bits < 16 && (n >> (bits + 3)) > 0)
		bits++;
	if (bits == 0)
	{
		sort_recs_qs(a, n);
		return a;
	}
	shift = 64 - bits;
	count = palloc0(sizeof(uint64) * ((1 << bits) + 1));
	for (uint64 i = 0; i < n; i++)
		count[a[i].key >> shift]++;
	for (int b = 0; b < (1 << bits); b++)
	{
		uint64		c = count[b];

		count[b] = sum;
		sum += c;
	}
	count[1 << bits] = n;
	CHECK_FOR_INTERRUPTS();
	for (uint64 i = 0; i < n; i++)
		tmp[count[a[i].key >> shift]++] = a[i];
	/* count[b] is now the end of bucket b */
	for (int b = 0; b < (1 << bits); b++)
	{
		uint64		start = b == 0 ? 0 : count[b - 1];

		if ((b & 1023) == 0)
			CHECK_FOR_INTERRUPTS();
		if (count[b] - start > BY_KEY_FLAG_SORT)
			flag_sort_recs((char *) (tmp + start), count[b] - start, bits);
		else if (count[b] - start > 1)
			sort_recs_qs(tmp + start, count[b] - start);
	}
	pfree(count);
	return tmp;
}

/*
 * Sort 64-bit words by their top 'bits' bits only (LSD radix, digits of at
 * most 11 bits); the order below is arbitrary.  Returns a or tmp.
 */
uint64 *
batch_radix_sort_top(uint64 *a, uint64 *tmp, uint64 n, int bits)
{
	uint64	   *src = a;
	uint64	   *dst = tmp;
	int			ndigits;
	int			width;
	uint64		count[2048];

	if (bits <= 0 || n < 2)
		return a;
	ndigits = (bits + 10) / 11;
	width = (bits + ndigits - 1) / ndigits;
	for (int d = 0; d < ndigits; d++)
	{
		int			shift = 64 - bits + d * width;
		int			w = Min(width, 64 - shift);
		uint64		mask = (UINT64CONST(1) << w) - 1;
		uint64		sum = 0;

		CHECK_FOR_INTERRUPTS();
		memset(count, 0, sizeof(uint64) << w);
		for (uint64 i = 0; i < n; i++)
			count[(src[i] >> shift) & mask]++;
		for (uint64 b = 0; b <= mask; b++)
		{
			uint64		c = count[b];

			count[b] = sum;
			sum += c;
		}
		for (uint64 i = 0; i < n; i++)
			dst[count[(src[i] >> shift) & mask]++] = src[i];
		{
			uint64	   *t = src;

			src = dst;
			dst = t;
		}
	}
	return src;
}
