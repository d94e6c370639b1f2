/*-------------------------------------------------------------------------
 *
 * test_core.c
 *	  Unit tests of the pure-C core, built outside the server with ASan and
 *	  UBSan ("make unit").  Prints "N passed, N failed" and exits non-zero on
 *	  any failure.
 *
 *-------------------------------------------------------------------------
 */
#include "nddup_core.h"
#include "unit_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int	run_text_tests(void);
extern int	run_minhash_tests(void);
extern int	run_scan_tests(bool exhaustive);
extern int	run_format_tests(void);
extern int	run_hamming_kernel_tests(void);
extern int	run_filter_tests(void);
extern int	run_explain_tests(void);
extern int	run_limit_tests(void);

static int	simhash_failures = 0;
static int	simhash_checks = 0;

#define CHECK(cond, ...) UNIT_CHECK(simhash_checks, simhash_failures, cond, __VA_ARGS__)

/* Check the fast path on n generated features, one by one and in batches. */
static void
check_simhash_size(size_t n)
{
	uint64_t	state = n * 7919 + 1;
	uint64_t   *h = malloc((n + 1) * sizeof(uint64_t));
	NddupSimhashAcc acc;
	NddupSimhashAcc many;
	NddupSimhashWeighted wacc;
	int64_t		sums[64] = {0};
	uint64_t	expected = 0;
	size_t		i = 0;

	nddup_simhash_init(&acc);
	nddup_simhash_weighted_init(&wacc);
	for (size_t k = 0; k < n; k++)
	{
		/*
		 * bias a few bits so that some sums are far from zero, and set bit 63
		 * always, so that its counters reach their limits
		 */
		h[k] = unit_splitmix64(&state) | (k % 3 == 0 ? 0xf0 : 0) |
			UINT64_C(0x8000000000000000);
		nddup_simhash_add(&acc, h[k]);
		nddup_simhash_weighted_add(&wacc, h[k], 1.0);
		for (int b = 0; b < 64; b++)
			sums[b] += ((h[k] >> b) & 1) ? 1 : -1;
	}
	for (int b = 0; b < 64; b++)
		if (sums[b] > 0)
			expected |= UINT64_C(1) << b;
	CHECK(nddup_simhash_finish(&acc) == expected,
		  "fast path differs from definition for %zu features", n);
	CHECK(nddup_simhash_weighted_finish(&wacc) == expected,
		  "weighted path differs from definition for %zu features", n);

	/* batches of varied sizes, mixed with single hashes */
	nddup_simhash_init(&many);
	while (i < n)
	{
		size_t		k = unit_splitmix64(&state) % 40;

		if (k > n - i)
			k = n - i;
		if (k == 0)
			nddup_simhash_add(&many, h[i++]);
		else
		{
			nddup_simhash_add_many(&many, h + i, k);
			i += k;
		}
	}
	CHECK(nddup_simhash_finish(&many) == expected,
		  "batched fast path differs from definition for %zu features", n);
	free(h);
}

/* The bit-sliced accumulator agrees with the plain +1/-1 definition. */
static void
test_simhash_fast_path_matches_definition(void)
{
	static const size_t sizes[] = {254, 255, 256, 257, 511, 1000, 4079, 4080,
	4081, 4095, 4096, 4103, 8200, 70000};

	for (size_t n = 0; n <= 100; n++)
		check_simhash_size(n);
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
		check_simhash_size(sizes[s]);
}

/* Ties give 0 bits; a single feature's fingerprint is the feature itself. */
static void
test_simhash_edge_cases(void)
{
	NddupSimhashAcc acc;
	NddupSimhashWeighted wacc;

	nddup_simhash_init(&acc);
	CHECK(nddup_simhash_finish(&acc) == 0, "empty simhash is not 0");

	nddup_simhash_init(&acc);
	nddup_simhash_add(&acc, UINT64_C(0xdeadbeefcafef00d));
	CHECK(nddup_simhash_finish(&acc) == UINT64_C(0xdeadbeefcafef00d),
		  "one feature does not give itself");

	nddup_simhash_init(&acc);
	nddup_simhash_add(&acc, UINT64_C(0xffffffff00000000));
	nddup_simhash_add(&acc, UINT64_C(0x00000000ffffffff));
	CHECK(nddup_simhash_finish(&acc) == 0, "ties must give 0 bits");

	/* weights: a heavy feature wins over two light ones */
	nddup_simhash_weighted_init(&wacc);
	nddup_simhash_weighted_add(&wacc, UINT64_C(0xffffffffffffffff), 3.0);
	nddup_simhash_weighted_add(&wacc, 0, 1.0);
	nddup_simhash_weighted_add(&wacc, 0, 1.0);
	CHECK(nddup_simhash_weighted_finish(&wacc) == UINT64_C(0xffffffffffffffff),
		  "weights are not honoured");

	CHECK(nddup_hamming(0, UINT64_MAX) == 64, "hamming of complements");
	CHECK(nddup_hamming(UINT64_C(0x8000000000000001), 0) == 2, "hamming of two bits");
}

/* Pinned fingerprints of fixed texts: a change here changes stored data. */
static void
test_simhash_text_pinned(void)
{
	const char *doc = "A rose is a rose is a rose.";
	uint64_t	tf = nddup_simhash_text(doc, strlen(doc), 3, NDDUP_UNIT_WORD, false);
	uint64_t	set = nddup_simhash_text(doc, strlen(doc), 3, NDDUP_UNIT_WORD, true);
	const char *variant = "<p>a   ROSE is a <b>rose</b> is a rose</p>";

	CHECK(nddup_simhash_text(variant, strlen(variant), 3, NDDUP_UNIT_WORD, false) == tf,
		  "HTML/case/space variant changes the fingerprint");
	CHECK(nddup_simhash_text("", 0, 3, NDDUP_UNIT_WORD, false) == 0,
		  "empty text must give 0");
	CHECK(tf == UINT64_C(0x90f0e44c13ec2ec6), "pinned word-3 tf simhash changed: %016llx",
		  (unsigned long long) tf);
	CHECK(set == UINT64_C(0x90f0e44c13ec2ec6), "pinned word-3 set simhash changed: %016llx",
		  (unsigned long long) set);
	CHECK(nddup_simhash_text(doc, strlen(doc), 4, NDDUP_UNIT_CHAR, false) ==
		  UINT64_C(0xde85bbc96220c0df), "pinned char-4 simhash changed");
	CHECK(nddup_simhash_text(doc, strlen(doc), 1, NDDUP_UNIT_WORD, false) ==
		  UINT64_C(0xbfc7cbc0f7297363), "pinned word-1 simhash changed");
}

/*
 * Run every suite and print the totals; with the argument "scan", only the
 * simhash, one-pass path and hamming kernel suites (for the build without
 * SIMD code).
 */
int
main(int argc, char **argv)
{
	int			failures[9] = {0};
	int			suites = 9;
	int			passed = 0;

	test_simhash_fast_path_matches_definition();
	test_simhash_edge_cases();
	test_simhash_text_pinned();
	printf("simhash: %d checks, %d failed\n", simhash_checks, simhash_failures);
	failures[0] = simhash_failures;
	if (argc > 1 && strcmp(argv[1], "scan") == 0)
	{
		failures[1] = run_scan_tests(false);
		failures[2] = run_hamming_kernel_tests();
		suites = 3;
	}
	else
	{
		failures[1] = run_scan_tests(true);
		failures[2] = run_text_tests();
		failures[3] = run_minhash_tests();
		failures[4] = run_format_tests();
		failures[5] = run_hamming_kernel_tests();
		failures[6] = run_filter_tests();
		failures[7] = run_explain_tests();
		failures[8] = run_limit_tests();
	}
	for (int i = 0; i < suites; i++)
		passed += failures[i] == 0;
	printf("unit suites: %d passed, %d failed\n", passed, suites - passed);
	return passed == suites ? 0 : 1;
}
