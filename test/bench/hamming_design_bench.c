/*-------------------------------------------------------------------------
 *
 * hamming_design_bench.c
 *	  The measurements behind the design of the hamming access method
 *	  (docs/indexes.md, "Why this design"), outside the server, on the
 *	  kernels of src/core/hamming_kernel.c:
 *
 *	1. a pass over N packed keys held in 8 kB pages (1,018 keys a page, as
 *	   the index's key pages), radius 12 and nearest-10 windows, with each
 *	   kernel the CPU has (portable, POPCNT, AVX2, AVX-512);
 *	2. multi-index hashing over m in-memory sorted tables of the whole key
 *	   (m = 4, 5, 6 blocks of 64/m bits, one directory per table over its
 *	   block): every bucket within each table's radius, every key in them
 *	   compared -- the cost of probing at radius 3..15, to set against the
 *	   pass of (1);
 *	3. layouts within the size target (<= 40 bytes a row) at radius 12:
 *	   table 0 holds whole keys, tables 1..m-1 entries of E bytes (the 8 E
 *	   bits below the table's block), so a row found there is a candidate
 *	   until its key is found in table 0 by the prefix the entry knows --
 *	   the index's layout today (m = 4, E = 6) against 5 and 6 tables of
 *	   5- and 6-byte entries (docs/reports/bench-hamming-am.md, run L).
 *
 * Usage: hamming_design_bench N [REPEAT]   (random keys, best of REPEAT)
 * Built and run by test/bench/hamming_design_bench.sh.
 *
 *-------------------------------------------------------------------------
 */
#define _POSIX_C_SOURCE 200112L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hamming_kernel.h"

#define KEYS_PER_PAGE 1018

/* Seconds of the monotonic clock. */
static double
now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

/* splitmix64: deterministic random keys. */
static uint64_t
next_key(uint64_t *state)
{
	uint64_t	z = (*state += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* Pass over the pages with window (lo, hi]; returns the matches. */
static size_t
pass(uint64_t **pages, size_t npages, size_t n, uint64_t q, int lo, int hi,
	 uint32_t *idx, uint8_t *dist)
{
	size_t		m = 0;

	for (size_t p = 0; p < npages; p++)
	{
		size_t		k = (p + 1 < npages) ? KEYS_PER_PAGE : n - p * KEYS_PER_PAGE;

		m += nddup_ham_scan(pages[p], k, q, lo, hi, idx, dist);
	}
	return m;
}

/* Tables of multi-index hashing with m blocks, and one probe search. */
typedef struct Mih
{
	int			m;
	int			bits[8];
	int			shift[8];
	uint64_t   *table[8];
	uint32_t   *dir[8];
} Mih;

/* Block t of key, contiguous blocks of mih->bits[t] bits. */
static uint32_t
block_of(const Mih *mih, uint64_t key, int t)
{
	return (uint32_t) ((key >> mih->shift[t]) & ((UINT64_C(1) << mih->bits[t]) - 1));
}

/* The m tables (keys grouped by block t) and their directories. */
static void
mih_build(Mih *mih, int m, const uint64_t *keys, size_t n)
{
	int			start = 0;

	mih->m = m;
	for (int t = 0; t < m; t++)
	{
		mih->bits[t] = 64 / m + (t < 64 % m ? 1 : 0);
		start += mih->bits[t];
		mih->shift[t] = 64 - start;
	}
	for (int t = 0; t < m; t++)
	{
		uint32_t	nb = UINT32_C(1) << mih->bits[t];
		uint32_t   *fill = malloc(sizeof(uint32_t) * nb);

		/* a counting sort by block t (the order inside a bucket is free) */
		mih->table[t] = malloc(sizeof(uint64_t) * n);
		mih->dir[t] = calloc(nb + 1, sizeof(uint32_t));
		for (size_t i = 0; i < n; i++)
			mih->dir[t][block_of(mih, keys[i], t) + 1]++;
		for (uint32_t b = 0; b < nb; b++)
			mih->dir[t][b + 1] += mih->dir[t][b];
		memcpy(fill, mih->dir[t], sizeof(uint32_t) * nb);
		for (size_t i = 0; i < n; i++)
			mih->table[t][fill[block_of(mih, keys[i], t)]++] = keys[i];
		free(fill);
	}
}

/* Probe every table at its multi-index hashing radius; returns the hits. */
static size_t
mih_search(const Mih *mih, uint64_t q, int r, uint32_t *buckets, uint32_t *idx)
{
	size_t		hits = 0;
	int			d = r / mih->m;
	int			s = r % mih->m;

	for (int t = 0; t < mih->m; t++)
	{
		int			rho = (t <= s) ? d : d - 1;
		long		nb;

		if (rho < 0)
			continue;
		nb = nddup_ham_enumerate(block_of(mih, q, t), mih->bits[t], rho, buckets,
								 1L << 22);
		for (long b = 0; b < nb; b++)
		{
			uint32_t	first = mih->dir[t][buckets[b]];
			uint32_t	last = mih->dir[t][buckets[b] + 1];

			hits += nddup_ham_scan(mih->table[t] + first, last - first, q, -1, r, idx, NULL);
		}
	}
	return hits;
}

/*
 * A layout of section 3: table t holds the rows sorted by their table-t
 * key, [block t][the other blocks in key order], with a directory over
 * block t; table 0 keeps whole keys, the others the `width` bytes below
 * the block.
 */
typedef struct Packed
{
	int			m;
	int			width;
	int			bits[8];		/* bits of block t */
	int			start[8];		/* bits of the key above block t */
	uint64_t   *keys;			/* table 0 */
	uint8_t    *entries[8];		/* tables 1..m-1 (8 bytes of slack) */
	uint32_t   *dir[8];
	int			rho[8];			/* probe radius of each table at radius 12 */
	uint64_t	candidates;		/* entries that passed, looked up in table 0 */
} Packed;

/* The table-t key of a key: block t moved to the front. */
static uint64_t
packed_table_key(const Packed *p, uint64_t key, int t)
{
	int			above = p->start[t];
	int			below = 64 - above - p->bits[t];
	uint64_t	block = (key << above) >> (64 - p->bits[t]);
	uint64_t	high = above ? key >> (64 - above) : 0;
	uint64_t	low = below ? key & ((UINT64_C(1) << below) - 1) : 0;

	return t == 0 ? key : (block << (64 - p->bits[t])) | (high << below) | low;
}

/* The key of a table-t key (the inverse of packed_table_key). */
static uint64_t
packed_key(const Packed *p, uint64_t tkey, int t)
{
	int			above = p->start[t];
	int			below = 64 - above - p->bits[t];
	uint64_t	block = tkey >> (64 - p->bits[t]);
	uint64_t	rest = tkey & ((UINT64_C(1) << (64 - p->bits[t])) - 1);
	uint64_t	high = rest >> below;
	uint64_t	low = below ? rest & ((UINT64_C(1) << below) - 1) : 0;

	return t == 0 ? tkey :
		(above ? high << (64 - above) : 0) | (block << below) | low;
}

static int
compare_u64(const void *a, const void *b)
{
	uint64_t	x = *(const uint64_t *) a;
	uint64_t	y = *(const uint64_t *) b;

	return x < y ? -1 : x > y;
}

/* Build a layout of m tables (block bits given) and entries of width bytes. */
static void
packed_build(Packed *p, int m, const int *bits, const int *rho, int width,
			 const uint64_t *keys, size_t n)
{
	uint64_t   *sorted = malloc(sizeof(uint64_t) * n);
	int			start = 0;

	memset(p, 0, sizeof(*p));
	p->m = m;
	p->width = width;
	for (int t = 0; t < m; t++)
	{
		p->bits[t] = bits[t];
		p->start[t] = start;
		p->rho[t] = rho[t];
		start += bits[t];
	}
	for (int t = 0; t < m; t++)
	{
		uint32_t	nb = UINT32_C(1) << p->bits[t];
		size_t		i = 0;

		for (size_t j = 0; j < n; j++)
			sorted[j] = packed_table_key(p, keys[j], t);
		qsort(sorted, n, sizeof(uint64_t), compare_u64);
		p->dir[t] = malloc(sizeof(uint32_t) * (nb + 1));
		for (uint32_t b = 0; b <= nb; b++)
		{
			while (i < n && (sorted[i] >> (64 - p->bits[t])) < b)
				i++;
			p->dir[t][b] = (uint32_t) i;
		}
		if (t == 0)
		{
			p->keys = sorted;
			sorted = malloc(sizeof(uint64_t) * n);
			continue;
		}
		p->entries[t] = malloc((size_t) width * n + 8);
		for (size_t j = 0; j < n; j++)
			nddup_ham_packed_store(p->entries[t], j, width,
								   (sorted[j] << p->bits[t]) >> (64 - 8 * width));
	}
	free(sorted);
}

static void
packed_free(Packed *p)
{
	free(p->keys);
	for (int t = 0; t < p->m; t++)
	{
		free(p->entries[t]);
		free(p->dir[t]);
	}
}

/*
 * The packed scan: every i < n with popcount(entry_i ^ q) <= limit, by the
 * kernel in use (src/core/hamming_kernel.c).
 */
static size_t
packed_scan_kernel(const uint8_t *e, size_t n, int width, uint64_t q, int limit,
				   uint32_t *idx)
{
	return nddup_ham_scan_packed(e, n, width, (UINT64_C(1) << (8 * width)) - 1, 0, q,
								 limit, idx);
}

/*
 * Probe a layout at radius r (table t at p->rho[t]); a candidate of table
 * t >= 1 is looked up in table 0 by the prefix its table-t key knows.
 * Returns the rows within r (once per table that finds them).
 */
static size_t
packed_search(Packed *p, uint64_t q, int r, uint32_t *buckets,
			  uint32_t *idx)
{
	size_t		hits = 0;

	for (int t = 0; t < p->m; t++)
	{
		int			bits = p->bits[t];
		uint64_t	tq = packed_table_key(p, q, t);
		uint32_t	qblock = (uint32_t) (tq >> (64 - bits));
		uint64_t	qentry = (tq << bits) >> (64 - 8 * p->width);
		int			known = bits + 8 * p->width;
		/* the top bits of the key a candidate's entry fixes */
		int			prefix = p->start[t] >= known - bits ? known - bits : known;
		long		nb;

		if (p->rho[t] < 0)
			continue;
		nb = nddup_ham_enumerate(qblock, bits, p->rho[t], buckets, 1L << 22);
		for (long b = 0; b < nb; b++)
		{
			uint32_t	first = p->dir[t][buckets[b]];
			uint32_t	last = p->dir[t][buckets[b] + 1];
			int			limit = r - __builtin_popcount(buckets[b] ^ qblock);
			size_t		found;

			if (t == 0)
			{
				hits += nddup_ham_scan(p->keys + first, last - first, q, -1, r, idx, NULL);
				continue;
			}
			found = packed_scan_kernel(p->entries[t] + (size_t) p->width * first,
									   last - first, p->width, qentry, limit, idx);
			p->candidates += found;
			for (size_t i = 0; i < found; i++)
			{
				uint64_t	entry = nddup_ham_packed_entry(p->entries[t], first + idx[i], p->width,
														   (UINT64_C(1) << (8 * p->width)) - 1);
				uint64_t	tkey = ((uint64_t) buckets[b] << (64 - bits)) |
					(entry << (64 - known));
				uint64_t	key = packed_key(p, tkey, t);
				uint64_t	mask = ~UINT64_C(0) << (64 - prefix);
				uint32_t	block0 = (uint32_t) (key >> (64 - p->bits[0]));
				uint32_t	lo = p->dir[0][block0];
				uint32_t	hi = p->dir[0][block0 + 1];

				/* the first key of table 0 with that prefix, by bisection */
				while (lo < hi)
				{
					uint32_t	mid = lo + (hi - lo) / 2;

					if (p->keys[mid] < (key & mask))
						lo = mid + 1;
					else
						hi = mid;
				}
				for (; lo < p->dir[0][block0 + 1] && (p->keys[lo] & mask) == (key & mask); lo++)
					hits += __builtin_popcountll(p->keys[lo] ^ q) <= r;
			}
		}
	}
	return hits;
}

/*
 * Section 3: the layouts within the size target at radius 12, each with
 * the POPCNT and (when the CPU has it) the AVX-512 kernel.
 */
static void
packed_layouts(const uint64_t *keys, size_t n, int repeat, uint32_t *buckets,
			   uint32_t *idx)
{
	static const struct
	{
		const char *name;
		int			m;
		int			width;
		int			bits[8];
		int			rho[8];
	}			layouts[] = {
		{"4 x 16 bits, 6-byte entries (the index)", 4, 6, {16, 16, 16, 16}, {2, 3, 2, 2}},
		{"5 x 13 bits, 6-byte entries", 5, 6, {13, 13, 13, 13, 12}, {1, 2, 2, 2, 1}},
		{"5 x 13 bits, 5-byte entries", 5, 5, {13, 13, 13, 13, 12}, {1, 2, 2, 2, 1}},
		{"6 x 11 bits, 5-byte entries", 6, 5, {11, 11, 11, 11, 10, 10}, {1, 2, 1, 1, 1, 1}},
		{"6 x 11 bits, 6-byte entries", 6, 6, {11, 11, 11, 11, 10, 10}, {1, 2, 1, 1, 1, 1}},
	};
	int			nqueries = 200 * repeat;
	uint64_t   *queries = malloc(sizeof(uint64_t) * nqueries);
	uint64_t	state = 7;
	double		base = 0;

	/* half near copies (2 bits flipped), half random keys */
	for (int i = 0; i < nqueries; i++)
		queries[i] = (i % 2) ? keys[next_key(&state) % n] ^ (UINT64_C(1) << (next_key(&state) % 64)) ^
			(UINT64_C(1) << (next_key(&state) % 64)) : next_key(&state);
	printf("layouts within 40 bytes a row, radius 12 (mean of %d queries, us, with the "
		   "POPCNT and the AVX-512 kernels; ratio: the index's layout with POPCNT / this one)\n",
		   nqueries);
	for (size_t l = 0; l < sizeof(layouts) / sizeof(layouts[0]); l++)
	{
		Packed		p;
		static const NddupHamKernel kernels[2] = {NDDUP_HAM_KERNEL_POPCNT, NDDUP_HAM_KERNEL_AVX512};
		static const char *const kname[2] = {"popcnt", "avx512"};

		packed_build(&p, layouts[l].m, layouts[l].bits, layouts[l].rho, layouts[l].width, keys, n);
		printf("  %-42s %2d B/row:", layouts[l].name, 14 + (layouts[l].m - 1) * layouts[l].width);
		for (int k = 0; k < 2; k++)
		{
			double		t0;
			double		us;
			size_t		hits = 0;

			if (!nddup_ham_use_kernel(kernels[k]))
			{
				printf("  %s n/a", kname[k]);
				continue;
			}
			p.candidates = 0;
			t0 = now();
			for (int i = 0; i < nqueries; i++)
				hits += packed_search(&p, queries[i], 12, buckets, idx);
			us = (now() - t0) / nqueries * 1e6;
			if (l == 0 && k == 0)
				base = us;
			printf("  %s %.1f (%.2fx)", kname[k], us, base / us);
			if (k == 0)
				printf(" lookups/query %.1f hits %zu", (double) p.candidates / nqueries, hits);
		}
		printf("\n");
		packed_free(&p);
	}
	nddup_ham_use_kernel(NDDUP_HAM_KERNEL_AUTO);
	free(queries);
}

int
main(int argc, char **argv)
{
	size_t		n = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000000;
	int			repeat = argc > 2 ? atoi(argv[2]) : 20;
	size_t		npages = (n + KEYS_PER_PAGE - 1) / KEYS_PER_PAGE;
	uint64_t  **pages = malloc(sizeof(uint64_t *) * npages);
	uint64_t   *keys = malloc(sizeof(uint64_t) * n);
	uint32_t   *idx = malloc(sizeof(uint32_t) * (n > KEYS_PER_PAGE ? n : KEYS_PER_PAGE));
	uint8_t    *dist = malloc(n > KEYS_PER_PAGE ? n : KEYS_PER_PAGE);
	uint32_t   *buckets = malloc(sizeof(uint32_t) << 22);
	uint64_t	state = 42;
	static const char *const names[] = {"", "generic", "popcnt", "avx2", "avx512"};

	for (size_t i = 0; i < n; i++)
		keys[i] = next_key(&state);
	for (size_t p = 0; p < npages; p++)
	{
		pages[p] = aligned_alloc(8192, 8192);
		memcpy(pages[p], keys + p * KEYS_PER_PAGE,
			   sizeof(uint64_t) * ((p + 1 < npages) ? KEYS_PER_PAGE : n - p * KEYS_PER_PAGE));
	}

	printf("pass over %zu keys in %zu pages (best of %d, ms)\n", n, npages, repeat);
	for (int k = NDDUP_HAM_KERNEL_GENERIC; k <= NDDUP_HAM_KERNEL_AVX512; k++)
	{
		double		best12 = 1e9;
		double		bestknn = 1e9;

		if (!nddup_ham_use_kernel((NddupHamKernel) k))
		{
			printf("  %-8s not available\n", names[k]);
			continue;
		}
		for (int i = 0; i < repeat; i++)
		{
			uint64_t	q = next_key(&state);
			double		t0 = now();

			(void) pass(pages, npages, n, q, -1, 12, idx, dist);
			if (now() - t0 < best12)
				best12 = now() - t0;
			t0 = now();
			/* nearest-10: the window of the 10th distance at this size */
			(void) pass(pages, npages, n, q, -1, 16, idx, dist);
			if (now() - t0 < bestknn)
				bestknn = now() - t0;
		}
		printf("  %-8s radius 12 %.3f   radius 16 (nearest-10 window) %.3f\n",
			   names[k], best12 * 1e3, bestknn * 1e3);
	}
	nddup_ham_use_kernel(NDDUP_HAM_KERNEL_AUTO);

	printf("multi-index hashing, tables in memory (mean of %d queries, ms)\n", repeat);
	for (int m = 4; m <= 6; m++)
	{
		Mih			mih;

		mih_build(&mih, m, keys, n);
		printf("  m=%d:", m);
		for (int r = 3; r <= 15; r += 3)
		{
			double		total = 0;

			for (int i = 0; i < repeat; i++)
			{
				uint64_t	q = keys[next_key(&state) % n];
				double		t0 = now();

				(void) mih_search(&mih, q, r, buckets, idx);
				total += now() - t0;
			}
			printf("  r%d %.3f", r, total / repeat * 1e3);
		}
		printf("\n");
		for (int t = 0; t < m; t++)
		{
			free(mih.table[t]);
			free(mih.dir[t]);
		}
	}
	packed_layouts(keys, n, repeat, buckets, idx);
	return 0;
}
