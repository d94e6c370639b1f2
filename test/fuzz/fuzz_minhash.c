/*-------------------------------------------------------------------------
 *
 * fuzz_minhash.c
 *	  libFuzzer harness for the sketches of the pure-C core (src/core/minhash.c):
 *	  k-permutation and one-permutation min-hash, densification, union,
 *	  b-bit packing, super-shingles and their r-subset keys, and the sorted
 *	  shingle-hash sets, over fuzzed hash arrays and parameters.
 *
 * Input: a 12-byte header (k, seed, b, the split of the hashes into two
 * sets A and B, an optional small universe to force overlaps and repeats,
 * super-shingle parameters), then 64-bit hashes.
 *
 * Invariants (see docs/reports/fuzzing.md): every result equals a direct
 * implementation of its definition in docs/sketches.md and src/core/minhash.c;
 * min-hash of A u B is the element-wise minimum of the sketches of A and B,
 * and for densified one-permutation sketches nddup_minhash_union gives
 * exactly the densified sketch of A u B, borrowed bits included;
 * densification keeps filled bins, fills every empty one from a filled one
 * and marks exactly those; repeats and order of the shingles do not matter;
 * two super-shingle vectors share a key iff they agree in >= r positions.
 *
 *-------------------------------------------------------------------------
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nddup_core.h"

/* Largest number of hashes looked at, and of (hashes x k) for kperm. */
#define MAX_HASHES		2048
#define MAX_KPERM_WORK	(32 * 1024)

/* Largest number of super-shingle keys checked (SQL allows 10000; fewer keep the harness fast). */
#define MAX_KEYS		256

/* Abort (a finding for libFuzzer) with a message when cond is false. */
#define CHECK(cond, ...) \
	do { \
		if (!(cond)) \
		{ \
			fprintf(stderr, "fuzz_minhash: invariant failed: %s\n  ", #cond); \
			fprintf(stderr, __VA_ARGS__); \
			fprintf(stderr, "\n"); \
			abort(); \
		} \
	} while (0)

#define EMPTY	NDDUP_MINHASH_EMPTY

/* malloc that aborts on failure. */
static void *
xmalloc(size_t n)
{
	void	   *p = malloc(n ? n : 1);

	if (p == NULL)
		abort();
	return p;
}

/* Reference k-permutation min-hash, from nddup_minhash_permute. */
static void
ref_kperm(const uint64_t *h, size_t n, int k, uint32_t seed, uint32_t *out)
{
	for (int i = 0; i < k; i++)
	{
		uint64_t	m = UINT64_MAX;

		for (size_t j = 0; j < n; j++)
		{
			uint64_t	y = nddup_minhash_permute(h[j], seed, i);

			if (y < m)
				m = y;
		}
		out[i] = n == 0 ? EMPTY : (uint32_t) (m >> 32);
		if (n > 0 && out[i] == EMPTY)
			out[i] = EMPTY - 1;
	}
}

/* Reference one-permutation bins: bin = floor(y k / 2^64), value = next 32 bits. */
static void
ref_oph(const uint64_t *h, size_t n, int k, uint32_t seed, uint32_t *out)
{
	for (int i = 0; i < k; i++)
		out[i] = EMPTY;
	for (size_t j = 0; j < n; j++)
	{
		unsigned __int128 p = (unsigned __int128) nddup_minhash_permute(h[j], seed, 0) *
			(uint64_t) k;
		uint32_t	bin = (uint32_t) (p >> 64);
		uint32_t	v = (uint32_t) ((uint64_t) p >> 32);

		if (v == EMPTY)
			v = EMPTY - 1;
		CHECK(bin < (uint32_t) k, "bin %u of %d", bin, k);
		if (v < out[bin])
			out[bin] = v;
	}
}

/* Abort unless two k-value sketches are equal. */
static void
check_values(const char *what, const uint32_t *a, const uint32_t *b, int k)
{
	for (int i = 0; i < k; i++)
		CHECK(a[i] == b[i], "%s: position %d of %d: %08x != %08x", what, i, k,
			  a[i], b[i]);
}

/* qsort comparator for uint32 values. */
static int
cmp_u32(const void *a, const void *b)
{
	uint32_t	x = *(const uint32_t *) a,
				y = *(const uint32_t *) b;

	return (x > y) - (x < y);
}

/* Bit i of a borrowed bitmap. */
static int
bit(const uint8_t *map, int i)
{
	return (map[i >> 3] >> (i & 7)) & 1;
}

/*
 * Densify a copy of raw into out (borrowed into map, zeroed first) and
 * check the densification invariants; returns nddup's result.
 */
static bool
densify_checked(const uint32_t *raw, int k, uint32_t seed, uint32_t *out,
				uint8_t *map)
{
	int			filled = 0;
	bool		ok;
	uint32_t   *again = xmalloc(sizeof(uint32_t) * k);

	uint32_t   *sorted = xmalloc(sizeof(uint32_t) * k);
	size_t		nsorted = 0;

	memcpy(out, raw, sizeof(uint32_t) * k);
	memset(map, 0, ((size_t) k + 7) / 8);
	for (int i = 0; i < k; i++)
		if (raw[i] != EMPTY)
		{
			filled++;
			sorted[nsorted++] = raw[i];
		}
	qsort(sorted, nsorted, sizeof(uint32_t), cmp_u32);
	ok = nddup_minhash_densify(out, k, seed, map);
	CHECK(ok == (filled > 0), "densify returned %d with %d filled bins", ok, filled);
	for (int i = 0; i < k; i++)
	{
		if (!ok)
		{
			CHECK(out[i] == EMPTY && !bit(map, i), "empty sketch changed at %d", i);
			continue;
		}
		CHECK(out[i] != EMPTY, "bin %d of %d still empty", i, k);
		CHECK(bit(map, i) == (raw[i] == EMPTY), "borrowed bit %d is %d", i, bit(map, i));
		if (raw[i] != EMPTY)
			CHECK(out[i] == raw[i], "filled bin %d changed", i);
		else
			CHECK(bsearch(&out[i], sorted, nsorted, sizeof(uint32_t), cmp_u32) != NULL,
				  "bin %d borrowed %08x, no filled bin has it", i, out[i]);
	}
	/* deterministic, with or without a bitmap */
	memcpy(again, raw, sizeof(uint32_t) * k);
	(void) nddup_minhash_densify(again, k, seed, NULL);
	check_values("densify twice", out, again, k);
	free(again);
	free(sorted);
	return ok;
}

/* qsort comparator for uint64 values. */
static int
cmp_u64(const void *a, const void *b)
{
	uint64_t	x = *(const uint64_t *) a,
				y = *(const uint64_t *) b;

	return (x > y) - (x < y);
}

/* Sort and remove repeats with qsort (the reference of nddup_sort_unique). */
static size_t
ref_sort_unique(uint64_t *a, size_t n)
{
	size_t		out = 0;

	qsort(a, n, sizeof(uint64_t), cmp_u64);
	for (size_t i = 0; i < n; i++)
		if (out == 0 || a[i] != a[out - 1])
			a[out++] = a[i];
	return out;
}

/* Binomial coefficient C(s, r), saturated at limit + 1. */
static size_t
binomial(int s, int r, size_t limit)
{
	size_t		c = 1;

	for (int i = 1; i <= r; i++)
	{
		c = c * (size_t) (s - r + i) / (size_t) i;	/* exact at each step */
		if (c > limit)
			return limit + 1;
	}
	return c;
}

/* Store v as little-endian bytes. */
static void
put_le(uint8_t *p, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		p[i] = (uint8_t) (v >> (8 * i));
}

/* Reference super-shingle keys of the r-subsets, in lexicographic order. */
static size_t
ref_keys(const uint64_t *ss, int s, int r, uint64_t *out)
{
	int			idx[64];
	uint8_t		buf[4 + 12 * 64];
	size_t		count = 0;

	for (int i = 0; i < r; i++)
		idx[i] = i;
	for (;;)
	{
		int			i;

		put_le(buf, (uint64_t) r, 4);
		for (int j = 0; j < r; j++)
		{
			put_le(buf + 4 + 12 * j, (uint64_t) idx[j], 4);
			put_le(buf + 8 + 12 * j, ss[idx[j]], 8);
		}
		out[count++] = nddup_hash_bytes((const char *) buf, 4 + 12 * (size_t) r);
		for (i = r - 1; i >= 0 && idx[i] == s - r + i; i--)
			;
		if (i < 0)
			return count;
		idx[i]++;
		for (int j = i + 1; j < r; j++)
			idx[j] = idx[j - 1] + 1;
	}
}

/* Super-shingles, their keys, and the shared-key property. */
static void
check_super_shingles(const uint32_t *values, int k, uint8_t p1, uint8_t p2,
					 uint64_t flips)
{
	int			group_size = 1 + p1 % (k < 16 ? k : 16);
	int			groups = k / group_size;
	uint64_t   *ss = xmalloc(sizeof(uint64_t) * groups);
	uint64_t   *ss2 = xmalloc(sizeof(uint64_t) * groups);
	uint32_t   *changed = xmalloc(sizeof(uint32_t) * k);
	uint8_t		buf[4 + 4 * NDDUP_MINHASH_MAX_K];
	int			s,
				r,
				agree = 0;
	size_t		nkeys,
				n1,
				n2;
	uint64_t   *keys,
			   *keys2,
			   *want;

	nddup_super_shingles(values, groups, group_size, ss);
	for (int g = 0; g < groups; g++)
	{
		put_le(buf, (uint64_t) g, 4);
		for (int j = 0; j < group_size; j++)
			put_le(buf + 4 + 4 * j, values[g * group_size + j], 4);
		CHECK(ss[g] == nddup_hash_bytes((const char *) buf, 4 + 4 * (size_t) group_size),
			  "super-shingle %d of %d (group size %d)", g, groups, group_size);
	}

	/* a changed value changes its own group's super-shingle only */
	memcpy(changed, values, sizeof(uint32_t) * k);
	changed[(p2 * 7) % (groups * group_size)] ^= 0x5a5a5a5au;
	nddup_super_shingles(changed, groups, group_size, ss2);
	for (int g = 0; g < groups; g++)
		if (g != (p2 * 7) % (groups * group_size) / group_size)
			CHECK(ss2[g] == ss[g], "super-shingle %d changed by another group", g);

	/* keys of r-subsets of s super-shingles, at most MAX_KEYS of them */
	s = groups < 64 ? groups : 64;
	s = 1 + p2 % s;
	r = 1 + (p1 >> 4) % s;
	while (binomial(s, r, MAX_KEYS) > MAX_KEYS)
		r = r > s / 2 ? r + 1 : r - 1;	/* towards the ends, where C is small */
	nkeys = binomial(s, r, MAX_KEYS);
	keys = xmalloc(sizeof(uint64_t) * nkeys);
	keys2 = xmalloc(sizeof(uint64_t) * nkeys);
	want = xmalloc(sizeof(uint64_t) * nkeys);
	CHECK(nddup_super_shingle_keys(ss, s, r, keys) == nkeys,
		  "C(%d, %d) = %zu keys expected", s, r, nkeys);
	CHECK(ref_keys(ss, s, r, want) == nkeys, "reference count");
	for (size_t i = 0; i < nkeys; i++)
		CHECK(keys[i] == want[i], "key %zu of C(%d, %d)", i, s, r);
	CHECK(nddup_super_shingle_keys(ss, s, 0, keys2) == 0 &&
		  nddup_super_shingle_keys(ss, s, s + 1, keys2) == 0,
		  "r out of range gives keys");

	/* change the positions flagged in flips: shared keys iff agree >= r */
	for (int i = 0; i < s; i++)
	{
		ss2[i] = ss[i];
		if ((flips >> i) & 1)
			ss2[i] ^= UINT64_C(0x9e3779b97f4a7c15) + (uint64_t) i;
		else
			agree++;
	}
	(void) nddup_super_shingle_keys(ss2, s, r, keys2);
	n1 = nddup_sort_unique(keys, nkeys);
	n2 = nddup_sort_unique(keys2, nkeys);
	CHECK(n1 == nkeys && n2 == nkeys, "repeated keys (hash collision?)");
	CHECK((nddup_intersection_count(keys, n1, keys2, n2) > 0) == (agree >= r),
		  "%d of %d super-shingles agree, r = %d, shared keys: %zu", agree, s, r,
		  nddup_intersection_count(keys, n1, keys2, n2));
	free(ss);
	free(ss2);
	free(changed);
	free(keys);
	free(keys2);
	free(want);
}

/* b-bit packing of values. */
static void
check_bbit(const uint32_t *a, const uint32_t *b, int k, int bits)
{
	size_t		bytes = nddup_bbit_bytes(k, bits);
	uint8_t    *pa = xmalloc(bytes),
			   *pb = xmalloc(bytes);
	uint32_t	mask = bits == 32 ? UINT32_MAX : (1u << bits) - 1;
	int			equal = 0;

	CHECK(bytes == ((size_t) k * bits + 7) / 8, "bbit_bytes(%d, %d) = %zu", k, bits, bytes);
	memset(pa, 0xA5, bytes);
	nddup_bbit_pack(a, k, bits, pa);
	nddup_bbit_pack(b, k, bits, pb);
	for (int i = 0; i < k; i++)
	{
		CHECK(nddup_bbit_get(pa, i, bits) == (a[i] & mask),
			  "value %d of %d at %d bits", i, k, bits);
		equal += (a[i] & mask) == (b[i] & mask);
	}
	for (size_t bitpos = (size_t) k * bits; bitpos < 8 * bytes; bitpos++)
		CHECK(((pa[bitpos >> 3] >> (bitpos & 7)) & 1) == 0, "padding bit %zu set", bitpos);
	CHECK(nddup_bbit_equal_count(pa, pb, k, bits) == equal, "bbit equal count");
	CHECK(equal >= nddup_minhash_equal_count(a, b, k), "b-bit agree less than full values");
	free(pa);
	free(pb);
}

/* The sorted-set functions on the two hash lists. */
static void
check_sets(const uint64_t *a, size_t na, const uint64_t *b, size_t nb,
		   uint64_t m, size_t s)
{
	uint64_t   *sa = xmalloc(sizeof(uint64_t) * na),
			   *ra = xmalloc(sizeof(uint64_t) * na),
			   *sb = xmalloc(sizeof(uint64_t) * nb),
			   *fa = xmalloc(sizeof(uint64_t) * na),
			   *u = xmalloc(sizeof(uint64_t) * (na + nb));
	size_t		ua,
				ub,
				rn,
				fn,
				k,
				common = 0,
				nu = 0,
				c2,
				t2,
				want_common = 0,
				want_total;

	memcpy(sa, a, sizeof(uint64_t) * na);
	memcpy(ra, a, sizeof(uint64_t) * na);
	memcpy(sb, b, sizeof(uint64_t) * nb);
	ua = nddup_sort_unique(sa, na);
	rn = ref_sort_unique(ra, na);
	CHECK(ua == rn, "sort_unique gives %zu distinct of %zu, reference %zu", ua, na, rn);
	for (size_t i = 0; i < ua; i++)
		CHECK(sa[i] == ra[i], "sort_unique item %zu of %zu", i, ua);
	ub = nddup_sort_unique(sb, nb);
	for (size_t i = 0; i < na; i++)
		CHECK(nddup_sorted_contains(sa, ua, a[i]), "sorted_contains misses item %zu", i);
	for (size_t i = 0; i < nb; i++)
	{
		bool		in = bsearch(&b[i], ra, rn, sizeof(uint64_t), cmp_u64) != NULL;

		CHECK(nddup_sorted_contains(sa, ua, b[i]) == in, "sorted_contains of b[%zu]", i);
	}

	/* MOD_m: the items that are 0 mod m, in order */
	memcpy(fa, sa, sizeof(uint64_t) * ua);
	fn = nddup_filter_mod(fa, ua, m);
	k = 0;
	for (size_t i = 0; i < ua; i++)
		if (m <= 1 || sa[i] % m == 0)
		{
			CHECK(k < fn && fa[k] == sa[i], "filter_mod item %zu (m = %llu)", k,
				  (unsigned long long) m);
			k++;
		}
	CHECK(k == fn, "filter_mod kept %zu, expected %zu", fn, k);

	/* intersection, and Broder's bottom-s comparison over the union */
	for (size_t i = 0, j = 0; i < ua || j < ub;)
	{
		if (j >= ub || (i < ua && sa[i] < sb[j]))
			u[nu++] = sa[i++];
		else if (i >= ua || sb[j] < sa[i])
			u[nu++] = sb[j++];
		else
		{
			u[nu++] = sa[i];
			common++;
			i++;
			j++;
		}
	}
	CHECK(nddup_intersection_count(sa, ua, sb, ub) == common, "intersection count");
	want_total = nu < s ? nu : s;
	for (size_t i = 0; i < want_total; i++)
		want_common += nddup_sorted_contains(sa, ua, u[i]) &&
			nddup_sorted_contains(sb, ub, u[i]);
	nddup_bottom_s_compare(sa, ua, sb, ub, s, &c2, &t2);
	CHECK(c2 == want_common && t2 == want_total,
		  "bottom_s(%zu): common %zu total %zu, expected %zu %zu", s, c2, t2,
		  want_common, want_total);
	free(sa);
	free(ra);
	free(sb);
	free(fa);
	free(u);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int bit_choices[] = {1, 2, 4, 8, 16};
	int			k,
				bits;
	uint32_t	seed;
	size_t		n,
				na,
				nb;
	uint64_t   *h,
			   *rev;
	uint64_t	universe,
				flips = 0;
	uint32_t   *ka,
			   *kb,
			   *kab,
			   *ref,
			   *oa,
			   *ob,
			   *oab,
			   *da,
			   *db,
			   *dab;
	uint8_t    *ma,
			   *mb,
			   *mab;
	size_t		mapbytes;

	if (size < 12)
		return 0;
	/*
	 * Large k one input in four: densifying a sketch with few filled bins
	 * costs O(k^2 / filled) probes, which would dominate the run time.
	 */
	k = (data[0] & 0xC0) == 0xC0 ? 1 + ((data[0] << 8 | data[1]) % NDDUP_MINHASH_MAX_K)
		: 1 + data[1] % 70;
	memcpy(&seed, data + 2, 4);
	bits = bit_choices[data[6] % 5];
	universe = data[8] == 0 ? 0 : (uint64_t) data[8] * 3;	/* 0: full range */
	for (int i = 0; i < 8 && 12 + i < (int) size; i++)
		flips |= (uint64_t) data[12 + i] << (8 * i);
	n = (size - 12) / 8;
	if (n > MAX_HASHES)
		n = MAX_HASHES;
	na = n == 0 ? 0 : (size_t) data[7] * n / 255;
	nb = n - na;

	h = xmalloc(sizeof(uint64_t) * (n + 1));
	for (size_t i = 0; i < n; i++)
	{
		memcpy(&h[i], data + 12 + 8 * i, 8);
		if (universe)
			h[i] %= universe;
	}

	mapbytes = ((size_t) k + 7) / 8;
	ka = xmalloc(4 * k);
	kb = xmalloc(4 * k);
	kab = xmalloc(4 * k);
	ref = xmalloc(4 * k);
	oa = xmalloc(4 * k);
	ob = xmalloc(4 * k);
	oab = xmalloc(4 * k);
	da = xmalloc(4 * k);
	db = xmalloc(4 * k);
	dab = xmalloc(4 * k);
	ma = xmalloc(mapbytes);
	mb = xmalloc(mapbytes);
	mab = xmalloc(mapbytes);

	/* k-permutation: reference, union, order and repeats */
	if (n * (size_t) k <= MAX_KPERM_WORK)
	{
		nddup_minhash_kperm(h, na, k, seed, ka);
		ref_kperm(h, na, k, seed, ref);
		check_values("kperm(A)", ka, ref, k);
		nddup_minhash_kperm(h + na, nb, k, seed, kb);
		nddup_minhash_kperm(h, n, k, seed, kab);
		nddup_minhash_union(ka, NULL, kb, NULL, k, seed, NDDUP_MINHASH_KPERM);
		check_values("kperm(A) u kperm(B) vs kperm(A u B)", ka, kab, k);
		rev = xmalloc(sizeof(uint64_t) * 2 * (n + 1));
		for (size_t i = 0; i < n; i++)
			rev[i] = rev[n + i] = h[n - 1 - i];
		nddup_minhash_kperm(rev, 2 * n, k, seed, ka);
		check_values("kperm of the reversed, doubled list", ka, kab, k);
		free(rev);
	}

	/* one permutation: raw bins, union of raw bins */
	nddup_minhash_oph_bins(h, na, k, seed, oa);
	ref_oph(h, na, k, seed, ref);
	check_values("oph_bins(A)", oa, ref, k);
	nddup_minhash_oph_bins(h + na, nb, k, seed, ob);
	nddup_minhash_oph_bins(h, n, k, seed, oab);
	for (int i = 0; i < k; i++)
		CHECK(oab[i] == (oa[i] < ob[i] ? oa[i] : ob[i]), "raw bin %d of A u B", i);

	/* densification, and the union of densified sketches */
	(void) densify_checked(oa, k, seed, da, ma);
	(void) densify_checked(ob, k, seed, db, mb);
	(void) densify_checked(oab, k, seed, dab, mab);
	nddup_minhash_union(da, ma, db, mb, k, seed, NDDUP_MINHASH_OPH);
	check_values("oph union vs oph(A u B)", da, dab, k);
	CHECK(memcmp(ma, mab, mapbytes) == 0, "borrowed bits of the union differ");

	/* equal counts, b-bit packing */
	CHECK(nddup_minhash_equal_count(dab, dab, k) == k, "a sketch equals itself");
	CHECK(nddup_minhash_equal_count(db, dab, k) == nddup_minhash_equal_count(dab, db, k),
		  "equal_count is symmetric");
	check_bbit(db, dab, k, bits);

	/* super-shingles of a densified sketch (never EMPTY when A u B is not empty) */
	check_super_shingles(n > 0 ? dab : oab, k, data[9], data[10], flips);

	/* sorted sets */
	check_sets(h, na, h + na, nb, (uint64_t) data[11] % 9, 1 + (size_t) data[10] % 64);

	free(h);
	free(ka);
	free(kb);
	free(kab);
	free(ref);
	free(oa);
	free(ob);
	free(oab);
	free(da);
	free(db);
	free(dab);
	free(ma);
	free(mb);
	free(mab);
	return 0;
}
