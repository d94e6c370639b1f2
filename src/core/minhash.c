/*-------------------------------------------------------------------------
 *
 * minhash.c
 *	  Min-hash sketches and super-shingles: the
 *	  pure-C core of the sketch types (see docs/sketches.md).
 *
 * Shingles arrive as 64-bit XXH3 hashes (nddup_shingle_hashes).  A min-hash
 * sketch keeps k 32-bit values:
 *
 * - k-permutation ("kperm"): value i is the top 32 bits of the minimum of
 *   pi_i(x) over the shingles x, where pi_i is a bijection of the 64-bit
 *   universe (xor with a per-position key, then the murmur3 64-bit
 *   finalizer, which is invertible).  Broder's estimator: the share of equal
 *   positions estimates the resemblance.  O(n k).
 *
 * - one-permutation hashing ("oph"; Li, Owen, Zhang 2012) with optimal
 *   densification (Shrivastava 2017): one permutation pi_0 splits the
 *   universe into k equal bins; value i is the position of the smallest
 *   pi_0(x) inside bin i.  Empty bins borrow the value of the first
 *   non-empty bin met by the probe sequence h(i, 1), h(i, 2), ... (a hash of
 *   the bin and the attempt), which keeps the estimator unbiased with the
 *   variance of the paper's optimal scheme.  O(n + k) expected.
 *
 * Every function here computes stored data: never change its result.
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <string.h>

#include "nddup_core.h"

/* splitmix64 step: the per-position keys derived from the seed */
static inline uint64_t
splitmix64(uint64_t *state)
{
	uint64_t	z = (*state += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* Domain tags, so that permutation keys, densification probes differ. */
#define TAG_PERMUTATION		UINT64_C(0x6d696e6861736831)	/* "minhash1" */
#define TAG_DENSIFY			UINT64_C(0x64656e7369667931)	/* "densify1" */

/* The key of permutation i for a seed: the (i+1)-th splitmix64 output. */
static inline uint64_t
permutation_key(uint32_t seed, int i)
{
	uint64_t	state = TAG_PERMUTATION ^ ((uint64_t) seed << 16) ^ (uint64_t) i *
		UINT64_C(0x9e3779b97f4a7c15);

	return splitmix64(&state);
}

/* Fill keys[0..k) with the permutation keys of a seed. */
static void
permutation_keys(uint32_t seed, int k, uint64_t *keys)
{
	for (int i = 0; i < k; i++)
		keys[i] = permutation_key(seed, i);
}

/* pi_i(x) = fmix64(x xor key_i): the i-th permutation of the universe. */
uint64_t
nddup_minhash_permute(uint64_t x, uint32_t seed, int i)
{
	return nddup_fmix64(x ^ permutation_key(seed, i));
}

/* A stored value is never EMPTY: the one value above the others is folded. */
static inline uint32_t
clamp_value(uint32_t v)
{
	return v == NDDUP_MINHASH_EMPTY ? NDDUP_MINHASH_EMPTY - 1 : v;
}

/*
 * k-permutation min-hash of n shingle hashes (repeats allowed).  Min of the
 * full 64-bit permuted values, whose top 32 bits are kept (the top bits of
 * the minimum are the minimum of the top bits).
 */
void
nddup_minhash_kperm(const uint64_t *hashes, size_t n, int k, uint32_t seed,
					uint32_t *out)
{
	uint64_t	keys[NDDUP_MINHASH_MAX_K];
	uint64_t	mins[NDDUP_MINHASH_MAX_K];
	size_t		until_check;

	if (k < 1 || k > NDDUP_MINHASH_MAX_K)
		return;
	until_check = NDDUP_INTERRUPT_STRIDE / (size_t) k;
	permutation_keys(seed, k, keys);
	for (int i = 0; i < k; i++)
		mins[i] = UINT64_MAX;
	for (size_t j = 0; j < n; j++)
	{
		uint64_t	x = hashes[j];

		/* k permutations per hash: the hook about every stride of them */
		if (--until_check == 0)
		{
			nddup_check_interrupts();
			until_check = NDDUP_INTERRUPT_STRIDE / (size_t) k;
		}
		for (int i = 0; i < k; i++)
		{
			uint64_t	y = nddup_fmix64(x ^ keys[i]);

			mins[i] = y < mins[i] ? y : mins[i];
		}
	}
	for (int i = 0; i < k; i++)
		out[i] = n == 0 ? NDDUP_MINHASH_EMPTY : clamp_value((uint32_t) (mins[i] >> 32));
}

/*
 * One-permutation hashing: y = pi_0(x); bin = floor(y k / 2^64); the value
 * is the top 32 bits of the fraction y k mod 2^64, i.e. the position of y
 * inside its bin, so that within a bin smaller values are smaller y.
 */
void
nddup_minhash_oph_bins(const uint64_t *hashes, size_t n, int k, uint32_t seed,
					   uint32_t *out)
{
	uint64_t	key = permutation_key(seed, 0);

	if (k < 1 || k > NDDUP_MINHASH_MAX_K)
		return;
	for (int i = 0; i < k; i++)
		out[i] = NDDUP_MINHASH_EMPTY;
	for (size_t j = 0; j < n; j++)
	{
		unsigned __int128 p;
		uint32_t	bin;
		uint32_t	v;

		if (j % NDDUP_INTERRUPT_STRIDE == NDDUP_INTERRUPT_STRIDE - 1)
			nddup_check_interrupts();
		p = (unsigned __int128) nddup_fmix64(hashes[j] ^ key) * (uint64_t) k;
		bin = (uint32_t) (p >> 64);
		v = clamp_value((uint32_t) ((uint64_t) p >> 32));

		out[bin] = v < out[bin] ? v : out[bin];
	}
}

/*
 * The bin probed by empty bin i at attempt a (a = 1, 2, ...): a 2-universal
 * style hash of (i, a) into [0, k), fixed by the seed (Shrivastava 2017,
 * Algorithm 2).
 */
static inline int
densify_probe(uint64_t dkey, int i, uint32_t attempt, int k)
{
	uint64_t	h = nddup_fmix64(dkey ^ (((uint64_t) (uint32_t) i << 32) | attempt));

	return (int) (((unsigned __int128) h * (uint64_t) k) >> 64);
}

/* Optimal densification, in place; see the header comment. */
bool
nddup_minhash_densify(uint32_t *bins, int k, uint32_t seed, uint8_t *borrowed)
{
	uint64_t	state = TAG_DENSIFY ^ seed;
	uint64_t	dkey = splitmix64(&state);
	uint32_t	raw[NDDUP_MINHASH_MAX_K];
	int			nonempty = 0;

	if (k < 1 || k > NDDUP_MINHASH_MAX_K)
		return false;
	for (int i = 0; i < k; i++)
		if (bins[i] != NDDUP_MINHASH_EMPTY)
			nonempty++;
	if (nonempty == 0)
		return false;
	if (borrowed != NULL)
		memset(borrowed, 0, ((size_t) k + 7) / 8);
	if (nonempty == k)
		return true;

	/* probe in the raw bins, so a borrowed value is never borrowed again */
	memcpy(raw, bins, sizeof(uint32_t) * (size_t) k);
	for (int i = 0; i < k; i++)
	{
		uint32_t	attempt = 1;
		int			j;

		if (raw[i] != NDDUP_MINHASH_EMPTY)
			continue;
		for (;;)
		{
			j = densify_probe(dkey, i, attempt, k);
			if (raw[j] != NDDUP_MINHASH_EMPTY)
				break;
			attempt++;
		}
		bins[i] = raw[j];
		if (borrowed != NULL)
			borrowed[i >> 3] |= (uint8_t) (1u << (i & 7));
	}
	return true;
}

/*
 * a = a union b (element-wise minimum).  For densified one-permutation
 * sketches the borrowed bins are emptied first, the raw bins united, and
 * the result densified again, which gives exactly the sketch of the union
 * of the two shingle sets.  An empty sketch (all EMPTY) is the identity.
 */
void
nddup_minhash_union(uint32_t *a, uint8_t *a_borrowed,
					const uint32_t *b, const uint8_t *b_borrowed,
					int k, uint32_t seed, NddupMinhashMethod method)
{
	if (method == NDDUP_MINHASH_KPERM)
	{
		for (int i = 0; i < k; i++)
			a[i] = b[i] < a[i] ? b[i] : a[i];
		return;
	}
	for (int i = 0; i < k; i++)
	{
		uint32_t	va = (a_borrowed && (a_borrowed[i >> 3] >> (i & 7)) & 1) ?
			NDDUP_MINHASH_EMPTY : a[i];
		uint32_t	vb = (b_borrowed && (b_borrowed[i >> 3] >> (i & 7)) & 1) ?
			NDDUP_MINHASH_EMPTY : b[i];

		a[i] = vb < va ? vb : va;
	}
	if (!nddup_minhash_densify(a, k, seed, a_borrowed) && a_borrowed != NULL)
		memset(a_borrowed, 0, ((size_t) k + 7) / 8);
}

/* Number of equal positions of two k-value sketches. */
int
nddup_minhash_equal_count(const uint32_t *a, const uint32_t *b, int k)
{
	int			equal = 0;

	for (int i = 0; i < k; i++)
		equal += a[i] == b[i];
	return equal;
}

/*
 * Resemblance estimate of two sketches from their equal positions (Broder
 * 1997 s.3: the share of equal min-hashes); b-bit sketches are corrected
 * for chance agreement of the low bits (Li & Koenig 2010, s.2).
 */
double
nddup_minhash_estimate(int equal, int k, int bits)
{
	double		p = (double) equal / k;

	if (bits == 32)
		return p;
	p = (p - ldexp(1.0, -bits)) / (1.0 - ldexp(1.0, -bits));
	return p < 0.0 ? 0.0 : (p > 1.0 ? 1.0 : p);
}

/* Bytes of k packed b-bit values. */
size_t
nddup_bbit_bytes(int k, int bits)
{
	return ((size_t) k * (size_t) bits + 7) / 8;
}

/*
 * Pack the low b bits of each value, value i at bit offset i*b (little
 * endian inside each byte; b divides 8 or is 16, so no value straddles a
 * byte boundary unaligned).
 */
void
nddup_bbit_pack(const uint32_t *values, int k, int bits, uint8_t *out)
{
	memset(out, 0, nddup_bbit_bytes(k, bits));
	for (int i = 0; i < k; i++)
	{
		uint32_t	v = values[i] & ((bits == 32) ? UINT32_MAX : ((1u << bits) - 1));

		if (bits >= 8)
		{
			for (int byte = 0; byte < bits / 8; byte++)
				out[(size_t) i * (size_t) (bits / 8) + (size_t) byte] = (uint8_t) (v >> (8 * byte));
		}
		else
		{
			size_t		bit = (size_t) i * (size_t) bits;

			out[bit >> 3] |= (uint8_t) (v << (bit & 7));
		}
	}
}

/* Value i of a packed b-bit sketch. */
uint32_t
nddup_bbit_get(const uint8_t *packed, int i, int bits)
{
	if (bits >= 8)
	{
		uint32_t	v = 0;

		for (int byte = 0; byte < bits / 8; byte++)
			v |= (uint32_t) packed[(size_t) i * (size_t) (bits / 8) + (size_t) byte] << (8 * byte);
		return v;
	}
	else
	{
		size_t		bit = (size_t) i * (size_t) bits;

		return (packed[bit >> 3] >> (bit & 7)) & ((1u << bits) - 1);
	}
}

/* Number of equal positions of two packed b-bit sketches. */
int
nddup_bbit_equal_count(const uint8_t *a, const uint8_t *b, int k, int bits)
{
	int			equal = 0;

	for (int i = 0; i < k; i++)
		equal += nddup_bbit_get(a, i, bits) == nddup_bbit_get(b, i, bits);
	return equal;
}

/* Store v as 4 little-endian bytes. */
static inline void
put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t) v;
	p[1] = (uint8_t) (v >> 8);
	p[2] = (uint8_t) (v >> 16);
	p[3] = (uint8_t) (v >> 24);
}

/* Store v as 8 little-endian bytes. */
static inline void
put_le64(uint8_t *p, uint64_t v)
{
	put_le32(p, (uint32_t) v);
	put_le32(p + 4, (uint32_t) (v >> 32));
}

/*
 * Super-shingles (Broder et al. 1997): super-shingle g is the XXH3-64 (seed
 * NDDUP_HASH_SEED) of the group number g as 4 little-endian bytes followed
 * by the group's values, 4 little-endian bytes each.  The group number
 * makes equal value runs at different positions give different keys.
 */
void
nddup_super_shingles(const uint32_t *values, int groups, int group_size,
					 uint64_t *out)
{
	uint8_t		buf[4 + 4 * NDDUP_MINHASH_MAX_K];

	for (int g = 0; g < groups; g++)
	{
		put_le32(buf, (uint32_t) g);
		for (int j = 0; j < group_size; j++)
			put_le32(buf + 4 + 4 * j, values[g * group_size + j]);
		out[g] = nddup_hash_bytes((const char *) buf, 4 + 4 * (size_t) group_size);
	}
}

/*
 * Keys of the r-subsets {i1 < ... < ir} of s super-shingles, in
 * lexicographic order: the XXH3-64 of r, then each index (4 bytes) and
 * super-shingle (8 bytes), little-endian.  Two documents share a key iff at
 * least r of their super-shingles agree position by position (up to hash
 * collisions).  out must hold C(s, r) keys; returns their number.
 */
size_t
nddup_super_shingle_keys(const uint64_t *ss, int s, int r, uint64_t *out)
{
	int			idx[64];
	uint8_t		buf[4 + 12 * 64];
	size_t		count = 0;

	if (r < 1 || r > s || s > 64)
		return 0;
	for (int i = 0; i < r; i++)
		idx[i] = i;
	for (;;)
	{
		put_le32(buf, (uint32_t) r);
		for (int i = 0; i < r; i++)
		{
			put_le32(buf + 4 + 12 * i, (uint32_t) idx[i]);
			put_le64(buf + 8 + 12 * i, ss[idx[i]]);
		}
		out[count++] = nddup_hash_bytes((const char *) buf, 4 + 12 * (size_t) r);

		/* next combination */
		{
			int			i = r - 1;

			while (i >= 0 && idx[i] == s - r + i)
				i--;
			if (i < 0)
				break;
			idx[i]++;
			for (int j = i + 1; j < r; j++)
				idx[j] = idx[j - 1] + 1;
		}
	}
	return count;
}
