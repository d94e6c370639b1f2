/*-------------------------------------------------------------------------
 *
 * hamming_design_bench.c
 *	  The measurements behind the design of the hamming access method
 *	  (docs/indexes.md, "Why this design"), outside the server, on the
 *	  kernels of src/core/hamming_kernel.c:
 *
 *	1. a pass over N packed keys held in 8 kB pages (1,018 keys a page, as
 *	   the index's key pages), radius 12 and nearest-10 windows, with each
 *	   kernel the CPU has (portable, POPCNT, AVX2);
 *	2. multi-index hashing over m in-memory sorted tables of the whole key
 *	   (m = 4, 5, 6 blocks of 64/m bits, one directory per table over its
 *	   block): every bucket within each table's radius, every key in them
 *	   compared -- the cost of probing at radius 3..15, to set against the
 *	   pass of (1).
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
	static const char *const names[] = {"", "generic", "popcnt", "avx2"};

	for (size_t i = 0; i < n; i++)
		keys[i] = next_key(&state);
	for (size_t p = 0; p < npages; p++)
	{
		pages[p] = aligned_alloc(8192, 8192);
		memcpy(pages[p], keys + p * KEYS_PER_PAGE,
			   sizeof(uint64_t) * ((p + 1 < npages) ? KEYS_PER_PAGE : n - p * KEYS_PER_PAGE));
	}

	printf("pass over %zu keys in %zu pages (best of %d, ms)\n", n, npages, repeat);
	for (int k = NDDUP_HAM_KERNEL_GENERIC; k <= NDDUP_HAM_KERNEL_AVX2; k++)
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
	return 0;
}
