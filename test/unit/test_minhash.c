/*-------------------------------------------------------------------------
 *
 * test_minhash.c
 *	  Unit tests of src/core/minhash.c: pinned known answers, the definitions
 *	  (brute force), union = sketch of the union, estimator bias and spread
 *	  on sets of known resemblance, b-bit packing, super-shingle keys and the
 *	  sorted-set helpers.  run_minhash_tests() returns the number of failures.
 *
 *-------------------------------------------------------------------------
 */
#include "nddup_core.h"
#include "unit_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int			run_minhash_tests(void);

static int	mh_failures = 0;
static int	mh_checks = 0;

#define CHECK(cond, ...) UNIT_CHECK(mh_checks, mh_failures, cond, __VA_ARGS__)

/* FNV-1a of a sketch: compact pins for known answers */
static uint64_t
digest32(const uint32_t *v, int k)
{
	uint64_t	h = UINT64_C(0xcbf29ce484222325);

	for (int i = 0; i < k; i++)
		for (int b = 0; b < 4; b++)
		{
			h ^= (v[i] >> (8 * b)) & 0xff;
			h *= UINT64_C(0x100000001b3);
		}
	return h;
}

static void
collect(void *arg, uint64_t hash)
{
	nddup_hashes_push((NddupHashes *) arg, hash);
}

/* Shingle hashes of a text (normalized first), word 3-shingles. */
static NddupHashes
text_shingles(const char *text)
{
	NddupBuf	norm = {0};
	NddupHashes hashes = {0};

	nddup_normalize(text, strlen(text), &norm);
	nddup_shingle_hashes(norm.data, norm.len, 3, NDDUP_UNIT_WORD, collect, &hashes);
	nddup_buf_free(&norm);
	return hashes;
}

/* Pinned values: a change here changes stored sketches. */
static void
test_known_answers(void)
{
	static const char *doc = "a rose is a rose is a rose, said Gertrude Stein";
	NddupHashes h = text_shingles(doc);
	uint32_t	v[84];
	uint64_t	ss[6];
	uint64_t	keys[15];

	CHECK(nddup_minhash_permute(1, 0, 0) == UINT64_C(0x096f4d6e5452b3a4),
		  "permute(1,0,0) = %016llx", (unsigned long long) nddup_minhash_permute(1, 0, 0));
	CHECK(nddup_minhash_permute(1, 7, 3) == UINT64_C(0x191ec70fb971aeb1),
		  "permute(1,7,3) = %016llx", (unsigned long long) nddup_minhash_permute(1, 7, 3));

	nddup_minhash_kperm(h.items, h.len, 8, 0, v);
	CHECK(digest32(v, 8) == UINT64_C(0x4497a880236e21a0), "kperm k=8 digest %016llx (v[0] %08x)",
		  (unsigned long long) digest32(v, 8), v[0]);
	nddup_minhash_oph_bins(h.items, h.len, 8, 0, v);
	nddup_minhash_densify(v, 8, 0, NULL);
	CHECK(digest32(v, 8) == UINT64_C(0x1bccdb40d7bff79c), "oph k=8 digest %016llx (v[0] %08x)",
		  (unsigned long long) digest32(v, 8), v[0]);
	nddup_minhash_kperm(h.items, h.len, 84, 42, v);
	nddup_super_shingles(v, 6, 14, ss);
	CHECK(ss[0] == UINT64_C(0x2990527e639c70cd), "super-shingle 0 = %016llx", (unsigned long long) ss[0]);
	CHECK(nddup_super_shingle_keys(ss, 6, 2, keys) == 15, "15 pair keys");
	CHECK(keys[14] == UINT64_C(0xf9919ff3af3e54dd), "pair key 14 = %016llx", (unsigned long long) keys[14]);
	nddup_hashes_free(&h);
}

/* k-permutation values are the definition: top 32 bits of min pi_i. */
static void
test_kperm_definition(void)
{
	uint64_t	state = 11;
	uint64_t	items[300];
	uint32_t	v[200];

	for (int i = 0; i < 300; i++)
		items[i] = unit_splitmix64(&state);
	nddup_minhash_kperm(items, 300, 200, 5, v);
	for (int i = 0; i < 200; i++)
	{
		uint64_t	m = UINT64_MAX;

		for (int j = 0; j < 300; j++)
		{
			uint64_t	y = nddup_minhash_permute(items[j], 5, i);

			m = y < m ? y : m;
		}
		CHECK(v[i] == (uint32_t) (m >> 32), "kperm value %d", i);
	}
	/* repeats do not matter; the empty set gives EMPTY everywhere */
	{
		uint64_t	twice[600];
		uint32_t	w[200];

		memcpy(twice, items, sizeof(items));
		memcpy(twice + 300, items, sizeof(items));
		nddup_minhash_kperm(twice, 600, 200, 5, w);
		CHECK(memcmp(v, w, sizeof(w)) == 0, "repeats change the kperm sketch");
		nddup_minhash_kperm(items, 0, 200, 5, w);
		CHECK(w[0] == NDDUP_MINHASH_EMPTY && w[199] == NDDUP_MINHASH_EMPTY, "empty kperm");
		CHECK(!nddup_minhash_densify(w, 200, 5, NULL), "densify of nothing");
	}
	/* seeds give different permutations */
	CHECK(nddup_minhash_permute(1, 1, 0) != nddup_minhash_permute(1, 2, 0), "seed ignored");
}

/* OPH: raw bins follow the definition; densification fills from non-empty bins. */
static void
test_oph_densify(void)
{
	uint64_t	state = 99;
	uint64_t	items[40];
	uint32_t	raw[128];
	uint32_t	v[128];
	uint8_t		borrowed[16];
	int			empties = 0;

	for (int i = 0; i < 40; i++)
		items[i] = unit_splitmix64(&state);
	nddup_minhash_oph_bins(items, 40, 128, 3, raw);
	for (int b = 0; b < 128; b++)
	{
		uint32_t	m = NDDUP_MINHASH_EMPTY;

		for (int j = 0; j < 40; j++)
		{
			uint64_t	y = nddup_minhash_permute(items[j], 3, 0);
			unsigned __int128 p = (unsigned __int128) y * 128;

			if ((int) (p >> 64) == b && (uint32_t) ((uint64_t) p >> 32) < m)
				m = (uint32_t) ((uint64_t) p >> 32);
		}
		CHECK(raw[b] == m, "oph bin %d", b);
		empties += raw[b] == NDDUP_MINHASH_EMPTY;
	}
	CHECK(empties > 40, "40 items in 128 bins leave many empty (%d)", empties);
	memcpy(v, raw, sizeof(v));
	CHECK(nddup_minhash_densify(v, 128, 3, borrowed), "densify");
	for (int b = 0; b < 128; b++)
	{
		bool		was_empty = raw[b] == NDDUP_MINHASH_EMPTY;
		bool		found = false;

		CHECK(((borrowed[b >> 3] >> (b & 7)) & 1) == was_empty, "borrowed bit %d", b);
		CHECK(v[b] != NDDUP_MINHASH_EMPTY, "bin %d still empty", b);
		if (!was_empty)
			CHECK(v[b] == raw[b], "non-empty bin %d changed", b);
		for (int j = 0; j < 128; j++)
			found |= raw[j] == v[b] && raw[j] != NDDUP_MINHASH_EMPTY;
		CHECK(found, "bin %d value comes from nowhere", b);
	}
}

/* The union of two sketches is the sketch of the union of the sets. */
static void
test_union(void)
{
	for (int method = 0; method < 2; method++)
		for (int trial = 0; trial < 20; trial++)
		{
			uint64_t	state = 1000 + trial;
			size_t		na = trial % 5 == 0 ? 0 : 3 + (size_t) trial * 7;
			size_t		nb = trial % 7 == 0 ? 0 : 1 + (size_t) trial * 3;
			uint64_t	items[400];
			uint32_t	a[64],
						b[64],
						u[64];
			uint8_t		ba[8] = {0},
						bb[8] = {0},
						bu[8] = {0};

			for (size_t i = 0; i < na + nb; i++)
				items[i] = unit_splitmix64(&state);
			if (method == NDDUP_MINHASH_KPERM)
			{
				nddup_minhash_kperm(items, na, 64, 9, a);
				nddup_minhash_kperm(items + na, nb, 64, 9, b);
				nddup_minhash_kperm(items, na + nb, 64, 9, u);
			}
			else
			{
				nddup_minhash_oph_bins(items, na, 64, 9, a);
				nddup_minhash_densify(a, 64, 9, ba);
				nddup_minhash_oph_bins(items + na, nb, 64, 9, b);
				nddup_minhash_densify(b, 64, 9, bb);
				nddup_minhash_oph_bins(items, na + nb, 64, 9, u);
				nddup_minhash_densify(u, 64, 9, bu);
			}
			nddup_minhash_union(a, ba, b, bb, 64, 9, (NddupMinhashMethod) method);
			CHECK(memcmp(a, u, sizeof(u)) == 0, "union method %d trial %d", method, trial);
			CHECK(method == 0 || memcmp(ba, bu, sizeof(bu)) == 0,
				  "union borrowed bits trial %d", trial);
		}
}

/*
 * Estimator: on pairs of random sets of known resemblance J the share of
 * equal positions has mean J (no bias) and stays within 4 standard errors
 * sqrt(J(1-J)/k).  Small sets (fewer shingles than bins) test the
 * densification.
 */
static void
test_estimator(void)
{
	static const int sizes[][2] = {{10, 10}, {30, 50}, {100, 100}, {400, 250}, {2000, 1800}};
	const int	k = 128;

	for (int method = 0; method < 2; method++)
		for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
		{
			int			na = sizes[s][0];
			int			nb = sizes[s][1];
			int			common = na < nb ? na / 2 : nb / 2;
			double		J = (double) common / (double) (na + nb - common);
			double		se = sqrt(J * (1 - J) / k);
			double		sum_err = 0;
			int			outside = 0;
			const int	trials = 200;

			for (int t = 0; t < trials; t++)
			{
				uint64_t	state = (uint64_t) (s * 100000 + (size_t) t);
				uint64_t   *A = malloc(sizeof(uint64_t) * (size_t) na);
				uint64_t   *B = malloc(sizeof(uint64_t) * (size_t) nb);
				uint32_t	a[128],
							b[128];
				uint32_t	seed = (uint32_t) t;
				double		est;

				for (int i = 0; i < na; i++)
					A[i] = unit_splitmix64(&state);
				for (int i = 0; i < nb; i++)
					B[i] = i < common ? A[i] : unit_splitmix64(&state);
				if (method == NDDUP_MINHASH_KPERM)
				{
					nddup_minhash_kperm(A, (size_t) na, k, seed, a);
					nddup_minhash_kperm(B, (size_t) nb, k, seed, b);
				}
				else
				{
					nddup_minhash_oph_bins(A, (size_t) na, k, seed, a);
					nddup_minhash_densify(a, k, seed, NULL);
					nddup_minhash_oph_bins(B, (size_t) nb, k, seed, b);
					nddup_minhash_densify(b, k, seed, NULL);
				}
				est = nddup_minhash_equal_count(a, b, k) / (double) k;
				sum_err += est - J;
				outside += fabs(est - J) > 4 * se;
				free(A);
				free(B);
			}
			/* the mean of 200 estimates has standard error se / sqrt(200) */
			CHECK(fabs(sum_err / trials) < 4 * se / sqrt((double) trials),
				  "method %d sizes %d/%d: mean error %.4f (J %.3f, se %.4f)",
				  method, na, nb, sum_err / trials, J, se);
			CHECK(outside <= 1, "method %d sizes %d/%d: %d estimates beyond 4 se",
				  method, na, nb, outside);
		}
}

/* b-bit packing round trip and equality counts. */
static void
test_bbit(void)
{
	static const int widths[] = {1, 2, 4, 8, 16, 32};
	uint64_t	state = 5;
	uint32_t	a[77],
				b[77];
	uint8_t		pa[77 * 4],
				pb[77 * 4];

	for (int i = 0; i < 77; i++)
	{
		a[i] = (uint32_t) unit_splitmix64(&state);
		b[i] = i % 3 == 0 ? a[i] : (uint32_t) unit_splitmix64(&state);
	}
	for (size_t w = 0; w < sizeof(widths) / sizeof(widths[0]); w++)
	{
		int			bits = widths[w];
		uint32_t	mask = bits == 32 ? UINT32_MAX : (1u << bits) - 1;
		int			equal = 0;

		CHECK(nddup_bbit_bytes(77, bits) == (77 * (size_t) bits + 7) / 8, "bytes");
		nddup_bbit_pack(a, 77, bits, pa);
		nddup_bbit_pack(b, 77, bits, pb);
		for (int i = 0; i < 77; i++)
		{
			CHECK(nddup_bbit_get(pa, i, bits) == (a[i] & mask), "b=%d value %d", bits, i);
			equal += (a[i] & mask) == (b[i] & mask);
		}
		CHECK(nddup_bbit_equal_count(pa, pb, 77, bits) == equal, "b=%d equal count", bits);
	}
}

/*
 * The resemblance estimate of equal positions: the share for full values,
 * (p - 2^-b) / (1 - 2^-b) clamped to [0, 1] for b-bit ones (exact binary
 * fractions, so the comparisons are exact).
 */
static void
test_estimate(void)
{
	CHECK(nddup_minhash_estimate(64, 128, 32) == 0.5, "32-bit share");
	CHECK(nddup_minhash_estimate(0, 128, 32) == 0.0, "32-bit none equal");
	CHECK(nddup_minhash_estimate(128, 128, 32) == 1.0, "32-bit all equal");
	CHECK(nddup_minhash_estimate(128, 128, 1) == 1.0, "1-bit all equal");
	CHECK(nddup_minhash_estimate(64, 128, 1) == 0.0, "1-bit chance agreement is 0");
	CHECK(nddup_minhash_estimate(32, 128, 1) == 0.0, "1-bit below chance clamps to 0");
	CHECK(nddup_minhash_estimate(80, 128, 2) == 0.5, "2-bit (0.625 - 0.25) / 0.75");
	CHECK(nddup_minhash_estimate(0, 128, 16) == 0.0, "16-bit none equal clamps to 0");
	CHECK(nddup_minhash_estimate(128, 128, 16) == 1.0, "16-bit all equal");
}

/* Pair keys: shared iff at least 2 of 6 super-shingles agree by position. */
static void
test_super_shingle_keys(void)
{
	uint64_t	a[6] = {1, 2, 3, 4, 5, 6};
	uint64_t	b[6] = {1, 9, 3, 9, 9, 9};	/* agrees at 0 and 2 */
	uint64_t	c[6] = {1, 9, 9, 9, 9, 9};	/* agrees at 0 only */
	uint64_t	d[6] = {2, 1, 4, 3, 6, 5};	/* same values, other positions */
	uint64_t	ka[15],
				kb[15],
				kc[15],
				kd[15],
				k3[20];
	int			ab = 0,
				ac = 0,
				ad = 0;

	nddup_super_shingle_keys(a, 6, 2, ka);
	nddup_super_shingle_keys(b, 6, 2, kb);
	nddup_super_shingle_keys(c, 6, 2, kc);
	nddup_super_shingle_keys(d, 6, 2, kd);
	for (int i = 0; i < 15; i++)
		for (int j = 0; j < 15; j++)
		{
			ab += ka[i] == kb[j];
			ac += ka[i] == kc[j];
			ad += ka[i] == kd[j];
		}
	CHECK(ab == 1 && ac == 0 && ad == 0, "shared keys %d %d %d", ab, ac, ad);
	CHECK(nddup_super_shingle_keys(a, 6, 3, k3) == 20, "C(6,3) = 20");
	CHECK(nddup_super_shingle_keys(a, 6, 7, k3) == 0, "r > s");
	{
		uint32_t	v[84];
		uint64_t	s1[6],
					s2[6];

		for (int i = 0; i < 84; i++)
			v[i] = (uint32_t) i;
		nddup_super_shingles(v, 6, 14, s1);
		v[20] = 1000;			/* in group 1 */
		nddup_super_shingles(v, 6, 14, s2);
		CHECK(s1[0] == s2[0] && s1[1] != s2[1] && s1[2] == s2[2], "one group changes");
	}
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t	x = *(const uint64_t *) a;
	uint64_t	y = *(const uint64_t *) b;

	return x < y ? -1 : x > y;
}

/* Sorting, mod-m filtering, intersections, bottom-s comparison. */
static void
test_sets(void)
{
	static const size_t sizes[] = {0, 1, 2, 47, 48, 49, 1000, 100000};

	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
	{
		size_t		n = sizes[s];
		uint64_t   *x = malloc(sizeof(uint64_t) * (n + 1));
		uint64_t   *y = malloc(sizeof(uint64_t) * (n + 1));
		uint64_t	state = n;
		size_t		m = 0,
					u;

		for (size_t i = 0; i < n; i++)
			x[i] = i % 4 == 3 ? x[i / 2] : (i % 5 == 0 ? unit_splitmix64(&state) >> 40 : unit_splitmix64(&state));
		memcpy(y, x, sizeof(uint64_t) * n);
		qsort(y, n, sizeof(uint64_t), cmp_u64);
		for (size_t i = 0; i < n; i++)
			if (m == 0 || y[i] != y[m - 1])
				y[m++] = y[i];
		u = nddup_sort_unique(x, n);
		CHECK(u == m && (n == 0 || memcmp(x, y, sizeof(uint64_t) * m) == 0),
			  "sort_unique of %zu", n);
		for (size_t i = 0; i < m; i++)
			CHECK(nddup_sorted_contains(x, m, y[i]), "contains");
		CHECK(!nddup_sorted_contains(x, m, 12345), "does not contain");
		free(x);
		free(y);
	}
	{
		uint64_t	a[] = {1, 3, 5, 7, 9, 11};
		uint64_t	b[] = {2, 3, 4, 5, 11, 12};
		uint64_t	c[] = {10, 20, 25, 30, 31, 40};
		size_t		common,
					total;

		CHECK(nddup_intersection_count(a, 6, b, 6) == 3, "intersection");
		CHECK(nddup_intersection_count(a, 0, b, 6) == 0, "intersection with empty");
		/* MIN_4(A u B) = {1,2,3,4}: 3 is in both */
		nddup_bottom_s_compare(a, 6, b, 6, 4, &common, &total);
		CHECK(common == 1 && total == 4, "bottom-s %zu/%zu", common, total);
		nddup_bottom_s_compare(a, 6, b, 6, 100, &common, &total);
		CHECK(common == 3 && total == 9, "bottom-s whole %zu/%zu", common, total);
		nddup_bottom_s_compare(a, 0, b, 0, 4, &common, &total);
		CHECK(common == 0 && total == 0, "bottom-s of empty sets");
		CHECK(nddup_filter_mod(c, 6, 10) == 4 && c[3] == 40, "mod 10");
		CHECK(nddup_filter_mod(c, 4, 1) == 4, "mod 1 keeps all");
	}
}

/*
 * nddup_hashes_push_distinct: the set of the pushed hashes is kept, and the
 * array stays near the number of distinct hashes however many are pushed.
 */
static void
test_push_distinct(void)
{
	static const size_t distinct[] = {1, 1000, 3 * NDDUP_DISTINCT_COMPACT};

	for (size_t d = 0; d < sizeof(distinct) / sizeof(distinct[0]); d++)
	{
		NddupHashes h = {0};
		size_t		n = distinct[d] == 3 * NDDUP_DISTINCT_COMPACT ? distinct[d] : 5 * NDDUP_DISTINCT_COMPACT;
		size_t		u;
		bool		ok = true;

		/* value i % distinct, scrambled; every distinct value occurs */
		for (size_t i = 0; i < n; i++)
			nddup_hashes_push_distinct(&h, ((uint64_t) (i % distinct[d]) + 1) * UINT64_C(0x9e3779b97f4a7c15));
		CHECK(distinct[d] > NDDUP_DISTINCT_COMPACT || h.cap <= 2 * NDDUP_DISTINCT_COMPACT,
			  "push_distinct of %zu values: capacity %zu", distinct[d], h.cap);
		u = nddup_sort_unique(h.items, h.len);
		CHECK(u == distinct[d], "push_distinct keeps %zu distinct values, not %zu", distinct[d], u);
		for (size_t i = 0; i < u && ok; i++)
			ok = nddup_sorted_contains(h.items, u, ((uint64_t) i + 1) * UINT64_C(0x9e3779b97f4a7c15));
		CHECK(ok, "push_distinct keeps every value of %zu", distinct[d]);
		nddup_hashes_free(&h);
	}
}

/* Calls of the interrupt hook, counted by count_interrupts. */
static size_t interrupts;

/* An interrupt hook that only counts its calls. */
static void
count_interrupts(void)
{
	interrupts++;
}

/* A sketch function of the core (nddup_minhash_kperm, nddup_minhash_oph_bins). */
typedef void (*SketchFunction) (const uint64_t *hashes, size_t n, int k,
								uint32_t seed, uint32_t *out);

/*
 * Sketch n hashes (k = 128) without and with the counting hook: the same
 * values, and at least min_calls calls of the hook.
 */
static void
check_sketch_hook(const char *name, SketchFunction fn, const uint64_t *hashes,
				  size_t n, size_t min_calls)
{
	uint32_t	with[128];
	uint32_t	without[128];

	nddup_interrupt_hook = NULL;
	fn(hashes, n, 128, 7, without);
	nddup_interrupt_hook = count_interrupts;
	interrupts = 0;
	fn(hashes, n, 128, 7, with);
	nddup_interrupt_hook = NULL;
	CHECK(interrupts >= min_calls, "%s: %zu interrupt checks", name, interrupts);
	CHECK(memcmp(with, without, sizeof(with)) == 0, "%s differs with the hook", name);
}

/*
 * The interrupt hook: k-permutation min-hash, one-permutation bins, the
 * radix sort and the set intersection call it about every
 * NDDUP_INTERRUPT_STRIDE items of work, and give the same results.
 */
static void
test_interrupt_hook(void)
{
	size_t		n = 4 * NDDUP_INTERRUPT_STRIDE;
	uint64_t   *a = malloc(n * sizeof(uint64_t));
	uint64_t   *b = malloc(n * sizeof(uint64_t));
	uint64_t	state = 17;
	size_t		nkperm = 8 * NDDUP_INTERRUPT_STRIDE / 128;
	size_t		ua,
				ub,
				common;

	for (size_t i = 0; i < n; i++)
	{
		a[i] = unit_splitmix64(&state);
		b[i] = i % 2 ? a[i] : unit_splitmix64(&state);
	}

	check_sketch_hook("kperm", nddup_minhash_kperm, a, nkperm, 7);
	check_sketch_hook("oph", nddup_minhash_oph_bins, a, n, 3);

	nddup_interrupt_hook = count_interrupts;
	interrupts = 0;
	ua = nddup_sort_unique(a, n);
	ub = nddup_sort_unique(b, n);
	CHECK(interrupts >= 2 * 4 * 8, "sort: %zu interrupt checks", interrupts);
	CHECK(ua == n && ub == n, "sort_unique of distinct values: %zu, %zu", ua, ub);
	for (size_t i = 1; i < n; i++)
		if (a[i - 1] >= a[i])
		{
			CHECK(false, "sort_unique order at %zu", i);
			break;
		}
	interrupts = 0;
	common = nddup_intersection_count(a, n, b, n);
	CHECK(interrupts >= 4, "intersection: %zu interrupt checks", interrupts);
	CHECK(common == n / 2, "intersection %zu, expected %zu", common, n / 2);

	nddup_interrupt_hook = NULL;
	free(a);
	free(b);
}

/* Run every min-hash test; returns the number of failures. */
int
run_minhash_tests(void)
{
	test_known_answers();
	test_kperm_definition();
	test_oph_densify();
	test_union();
	test_estimator();
	test_bbit();
	test_estimate();
	test_super_shingle_keys();
	test_sets();
	test_push_distinct();
	test_interrupt_hook();
	printf("minhash: %d checks, %d failed\n", mh_checks, mh_failures);
	return mh_failures;
}
