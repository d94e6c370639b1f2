/*-------------------------------------------------------------------------
 *
 * test_hamming_kernel.c
 *	  Unit tests of the kernels of the hamming index access method
 *	  (src/core/hamming_kernel.c): the block permutation and its inverse,
 *	  Hamming-ball enumeration against brute force, and every scan kernel
 *	  the CPU has (portable, POPCNT, AVX2) against a plain loop, on random,
 *	  near, all-zero and all-one keys, at every distance window, for every
 *	  length up to a few hundred (so the vector loops and their tails are
 *	  both exercised).
 *
 * run_hamming_kernel_tests() returns the number of failures.
 *
 *-------------------------------------------------------------------------
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hamming_kernel.h"
#include "unit_test.h"

int			run_hamming_kernel_tests(void);

static int	failures;
static int	checks;

#define CHECK(cond, ...) UNIT_CHECK(checks, failures, cond, __VA_ARGS__)

/* The permutation: a bit permutation, blocks in place, inverse exact. */
static void
test_permutation(void)
{
	uint64_t	state = 17;

	for (int j = 0; j < 64; j++)
	{
		uint64_t	fp = UINT64_C(1) << (63 - j);
		uint64_t	key = nddup_ham_key(fp);
		int			block = j % NDDUP_HAM_TABLES;
		int			index = j / NDDUP_HAM_TABLES;

		CHECK(key == UINT64_C(1) << (63 - (16 * block + index)),
			  "bit %d goes to block %d index %d", j, block, index);
	}
	for (int i = 0; i < 100000; i++)
	{
		uint64_t	a = unit_splitmix64(&state);
		uint64_t	b = unit_splitmix64(&state) & unit_splitmix64(&state);
		uint64_t	ka = nddup_ham_key(a);
		uint64_t	kb = nddup_ham_key(a ^ b);

		CHECK(nddup_ham_unkey(ka) == a, "unkey(key(x)) != x for %016llx",
			  (unsigned long long) a);
		CHECK(__builtin_popcountll(ka ^ kb) == __builtin_popcountll(b),
			  "distance not kept");
		for (int t = 0; t < NDDUP_HAM_TABLES; t++)
			CHECK(nddup_ham_table_unkey(nddup_ham_table_key(ka, t), t) == ka,
				  "table %d rotation not inverted", t);
	}
}

/* Enumeration equals brute force over all values, for small block sizes. */
static void
test_enumerate(void)
{
	uint32_t	out[1 << 12];
	uint64_t	state = 5;

	for (int bits = 1; bits <= 12; bits++)
		for (int d = -1; d <= bits + 1; d++)
		{
			uint32_t	v = (uint32_t) unit_splitmix64(&state) & ((1u << bits) - 1);
			long		n = nddup_ham_enumerate(v, bits, d, out, 1 << 12);
			long		expect = 0;
			long		k = 0;
			bool		same = true;

			for (uint32_t x = 0; x < (1u << bits); x++)
				if (d >= 0 && __builtin_popcount(x ^ v) <= d)
				{
					expect++;
					if (k >= n || out[k++] != x)
						same = false;
				}
			CHECK(n == expect && same, "bits %d d %d: %ld values, expected %ld",
				  bits, d, n, expect);
			CHECK(d < 0 || (double) n == nddup_ham_ball_volume(bits, d),
				  "ball volume of %d bits radius %d", bits, d);
		}
	CHECK(nddup_ham_enumerate(0, 16, 3, out, 100) == -1, "overflow not reported");
	CHECK(nddup_ham_enumerate(0, 16, 3, out, 697) == 697, "V(16,3) = 697");
}

/* One scan kernel on one key array against the plain loop. */
static void
check_scan(const char *kernel, const uint64_t *keys, size_t n, uint64_t q,
		   int lo, int hi)
{
	uint32_t	idx[512];
	uint8_t		dist[512];
	size_t		m = nddup_ham_scan(keys, n, q, lo, hi, idx, dist);
	size_t		k = 0;
	bool		same = true;

	for (size_t i = 0; i < n; i++)
	{
		int			d = __builtin_popcountll(keys[i] ^ q);

		if (d > lo && d <= hi)
		{
			if (k >= m || idx[k] != i || dist[k] != d)
				same = false;
			k++;
		}
	}
	CHECK(same && k == m, "%s scan: n %zu window (%d, %d]: %zu matches, expected %zu",
		  kernel, n, lo, hi, m, k);
}

/* One packed scan against the plain loop. */
static void
check_packed(const char *kernel, const uint64_t *keys, size_t n, int width,
			 int lowbits, uint64_t q, int hi)
{
	uint8_t		packed[512 * 8 + 8];
	uint32_t	idx[512];
	uint64_t	lowmask = lowbits == 64 ? ~UINT64_C(0) : (UINT64_C(1) << lowbits) - 1;
	uint64_t	high = n > 0 ? keys[0] & ~lowmask : 0;
	size_t		m;
	size_t		k = 0;
	bool		same = true;

	memset(packed, 0xa5, sizeof(packed));
	for (size_t i = 0; i < n; i++)
		nddup_ham_packed_store(packed, i, width, keys[i] & lowmask);
	for (size_t i = 0; i < n; i++)
		if (nddup_ham_packed_entry(packed, i, width, lowmask) != (keys[i] & lowmask))
			same = false;
	m = nddup_ham_scan_packed(packed, n, width, lowmask, high, q, hi, idx);
	for (size_t i = 0; i < n; i++)
	{
		if (__builtin_popcountll((high | (keys[i] & lowmask)) ^ q) <= hi)
		{
			if (k >= m || idx[k] != i)
				same = false;
			k++;
		}
	}
	CHECK(same && k == m, "%s packed scan: n %zu width %d radius %d: %zu, expected %zu",
		  kernel, n, width, hi, m, k);
}

/* Every kernel available, on several key distributions and lengths. */
static void
test_scans(void)
{
	static const struct
	{
		NddupHamKernel kernel;
		const char *name;
	}			kernels[] = {
		{NDDUP_HAM_KERNEL_GENERIC, "generic"},
		{NDDUP_HAM_KERNEL_POPCNT, "popcnt"},
		{NDDUP_HAM_KERNEL_AVX2, "avx2"},
		{NDDUP_HAM_KERNEL_AVX512, "avx512"},
	};
	uint64_t	keys[512];
	uint64_t	state = 99;
	int			tested = 0;

	for (size_t k = 0; k < sizeof(kernels) / sizeof(kernels[0]); k++)
	{
		if (!nddup_ham_use_kernel(kernels[k].kernel))
		{
			printf("hamming kernel %s: not available here, skipped\n", kernels[k].name);
			continue;
		}
		tested++;
		CHECK(nddup_ham_kernel() == kernels[k].kernel, "kernel not selected");
		for (int shape = 0; shape < 4; shape++)
			for (size_t n = 0; n <= 300; n += (n < 40 ? 1 : 37))
			{
				uint64_t	q = unit_splitmix64(&state);

				for (size_t i = 0; i < n; i++)
				{
					uint64_t	flips = unit_splitmix64(&state) & unit_splitmix64(&state) &
						unit_splitmix64(&state);

					keys[i] = shape == 0 ? unit_splitmix64(&state) :
						shape == 1 ? q ^ flips :
						shape == 2 ? 0 : ~UINT64_C(0);
				}
				for (int lo = -1; lo <= 64; lo += 7)
					for (int hi = lo; hi <= 64; hi += 5)
						check_scan(kernels[k].name, keys, n, q, lo, hi);
				check_scan(kernels[k].name, keys, n, q, -1, 64);
				for (int width = 6; width <= 8; width++)
					for (int hi = 0; hi <= 64; hi += 6)
						check_packed(kernels[k].name, keys, n, width,
									 width == 6 ? 48 : width == 7 ? 52 : 64, q, hi);
			}
	}
	CHECK(tested >= 1, "no kernel available");
	nddup_ham_use_kernel(NDDUP_HAM_KERNEL_AUTO);
}

/* Run the hamming kernel tests; returns the number of failures. */
int
run_hamming_kernel_tests(void)
{
	test_permutation();
	test_enumerate();
	test_scans();
	printf("hamming kernel: %d checks, %d failed\n", checks, failures);
	return failures;
}
