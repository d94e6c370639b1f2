/*-------------------------------------------------------------------------
 *
 * hamming_kernel.c
 *	  Kernels of the hamming index access method: the block permutation of
 *	  fingerprints, Hamming-ball enumeration, and the popcount scans over
 *	  packed fingerprints that answer large radii and nearest-neighbour
 *	  queries at memory speed.
 *
 * The scans come in three builds of one body: portable C, x86-64 with the
 * POPCNT instruction, and AVX2 (four keys per vector, popcount by nibble
 * lookup: Mula, Kurz and Lemire 2018, "Faster population counts using AVX2
 * instructions", s.2); and an AVX-512 build of its own (eight keys per
 * vector, VPOPCNTQ; packed entries spread to their lanes by one VPERMB),
 * which pays on the long buckets of large indexes.  The extension is not
 * compiled with -mpopcnt, -mavx2 or -mavx512*; the CPU is asked once, at
 * the first scan, which it has (as src/batch/batch.c does for its pair
 * scans).  -DNDDUP_NO_SIMD keeps only the portable build.
 *
 *-------------------------------------------------------------------------
 */
#include "hamming_kernel.h"

#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && \
	!defined(NDDUP_NO_SIMD)
#define HAM_X86_DISPATCH 1
#include <immintrin.h>
/* compilers that know the AVX-512 VBMI and VPOPCNTDQ intrinsics */
#if (defined(__clang__) && __clang_major__ >= 6) || \
	(!defined(__clang__) && __GNUC__ >= 8)
#define HAM_X86_AVX512 1
#endif
#endif

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define HAM_LITTLE_ENDIAN 1
#endif

/* byte p (0 = most significant) of a value -> its bits in the other order */
static uint64_t key_lut[8][256];
static uint64_t unkey_lut[8][256];
static bool luts_ready;

/* Fill the byte lookup tables of the permutation and its inverse. */
static void
build_luts(void)
{
	for (int p = 0; p < 8; p++)
		for (int x = 0; x < 256; x++)
		{
			uint64_t	k = 0;
			uint64_t	u = 0;

			for (int b = 0; b < 8; b++)
			{
				int			j = 8 * p + b;	/* bit j, 0 = most significant */
				int			kpos = NDDUP_HAM_BLOCK_BITS * (j % NDDUP_HAM_TABLES) +
					j / NDDUP_HAM_TABLES;

				if (x & (0x80 >> b))
					k |= UINT64_C(1) << (63 - kpos);
				/* the inverse: key bit j goes back to fingerprint bit */
				if (x & (0x80 >> b))
				{
					int			blk = j / NDDUP_HAM_BLOCK_BITS;
					int			idx = j % NDDUP_HAM_BLOCK_BITS;
					int			fpos = NDDUP_HAM_TABLES * idx + blk;

					u |= UINT64_C(1) << (63 - fpos);
				}
			}
			key_lut[p][x] = k;
			unkey_lut[p][x] = u;
		}
	luts_ready = true;
}

/* Apply one of the byte lookup tables to v. */
static inline uint64_t
apply_lut(uint64_t (*lut)[256], uint64_t v)
{
	uint64_t	r = 0;

	for (int p = 0; p < 8; p++)
		r |= lut[p][(v >> (56 - 8 * p)) & 0xff];
	return r;
}

/* The key of a fingerprint: its blocks concatenated, block 0 first. */
uint64_t
nddup_ham_key(uint64_t fp)
{
	if (!luts_ready)
		build_luts();
	return apply_lut(key_lut, fp);
}

/* The fingerprint of a key. */
uint64_t
nddup_ham_unkey(uint64_t key)
{
	if (!luts_ready)
		build_luts();
	return apply_lut(unkey_lut, key);
}

/* Number of b-bit values within d bits of a given one. */
double
nddup_ham_ball_volume(int bits, int d)
{
	double		sum = 0;
	double		c = 1;

	if (d < 0)
		return 0;
	if (d >= bits)
		return (double) ((uint64_t) 1 << bits);
	for (int i = 0; i <= d; i++)
	{
		sum += c;
		c = c * (bits - i) / (i + 1);
	}
	return sum;
}

/*
 * Append to out, ascending, every value that has the bits of prefix above
 * bit `bit` and differs from v in at most `left` of bits bit..0: bit by
 * bit from the most significant, 0 before 1, so no sort is needed; once no
 * flip is left the remaining bits are v's.
 */
static long
enumerate_below(uint32_t v, int bit, int left, uint32_t prefix, uint32_t *out, long n)
{
	uint32_t	vbit;

	if (bit < 0)
	{
		out[n++] = prefix;
		return n;
	}
	if (left == 0)
	{
		out[n++] = prefix | (v & (uint32_t) (((uint64_t) 2 << bit) - 1));
		return n;
	}
	vbit = v & ((uint32_t) 1 << bit);
	/* the 0 branch, then the 1 branch; one of them flips v's bit */
	n = enumerate_below(v, bit - 1, vbit ? left - 1 : left, prefix, out, n);
	return enumerate_below(v, bit - 1, vbit ? left : left - 1,
						   prefix | ((uint32_t) 1 << bit), out, n);
}

/*
 * Every value of `bits` bits within d bits of v, ascending (the probes of
 * multi-index hashing read the directory and the tables in page order);
 * -1 when there are more than max.
 */
long
nddup_ham_enumerate(uint32_t v, int bits, int d, uint32_t *out, long max)
{
	if (d < 0)
		return 0;
	if (nddup_ham_ball_volume(bits, d) > (double) max)
		return -1;
	return enumerate_below(v, bits - 1, d < bits ? d : bits, 0, out, 0);
}

/*
 * The matches of one vector step: i + b for every bit b of hit (keys, when
 * dist is wanted, give their distances); returns the new count.
 */
static inline __attribute__((always_inline)) size_t
emit_hits(unsigned hit, size_t i, const uint64_t *keys, uint64_t q,
		  uint32_t *idx, uint8_t *dist, size_t m)
{
	while (hit)
	{
		int			b = __builtin_ctz(hit);

		idx[m] = (uint32_t) (i + b);
		if (dist)
			dist[m] = (uint8_t) __builtin_popcountll(keys[i + b] ^ q);
		m++;
		hit &= hit - 1;
	}
	return m;
}

/* The keys from i on, one at a time (the tail of the unrolled loops). */
static inline __attribute__((always_inline)) size_t
scan_tail(const uint64_t *keys, size_t i, size_t n, uint64_t q, int lo, int hi,
		  uint32_t *idx, uint8_t *dist, size_t m)
{
	for (; i < n; i++)
	{
		int			d = __builtin_popcountll(keys[i] ^ q);

		if (d <= hi && d > lo)
		{
			idx[m] = (uint32_t) i;
			if (dist)
				dist[m] = (uint8_t) d;
			m++;
		}
	}
	return m;
}

/*
 * The scan body: every i with lo < popcount(keys[i] ^ q) <= hi.  The
 * distances are computed four at a time and a match is rare, so the loop
 * tests a 4-bit mask rather than branching on every key.
 */
static inline __attribute__((always_inline)) size_t
scan_body(const uint64_t *keys, size_t n, uint64_t q, int lo, int hi,
		  uint32_t *idx, uint8_t *dist)
{
	size_t		m = 0;
	size_t		i = 0;

	for (; i + 4 <= n; i += 4)
	{
		int			d0 = __builtin_popcountll(keys[i] ^ q);
		int			d1 = __builtin_popcountll(keys[i + 1] ^ q);
		int			d2 = __builtin_popcountll(keys[i + 2] ^ q);
		int			d3 = __builtin_popcountll(keys[i + 3] ^ q);
		unsigned	hit = (unsigned) (d0 <= hi && d0 > lo) |
			((unsigned) (d1 <= hi && d1 > lo) << 1) |
			((unsigned) (d2 <= hi && d2 > lo) << 2) |
			((unsigned) (d3 <= hi && d3 > lo) << 3);

		if (__builtin_expect(hit != 0, 0))
		{
			int			ds[4] = {d0, d1, d2, d3};

			while (hit)
			{
				int			b = __builtin_ctz(hit);

				idx[m] = (uint32_t) (i + b);
				if (dist)
					dist[m] = (uint8_t) ds[b];
				m++;
				hit &= hit - 1;
			}
		}
	}
	return scan_tail(keys, i, n, q, lo, hi, idx, dist, m);
}

/* Load entry i of a packed array (8 bytes from its start) and mask it. */
static inline __attribute__((always_inline)) uint64_t
load_packed(const uint8_t *entries, size_t i, int width, uint64_t lowmask)
{
#ifdef HAM_LITTLE_ENDIAN
	uint64_t	v;

	memcpy(&v, entries + i * (size_t) width, sizeof(v));
	return v & lowmask;
#else
	return nddup_ham_packed_entry(entries, i, width, lowmask);
#endif
}

/* The packed scan body: every i with popcount(value_i ^ q) <= hi. */
static inline __attribute__((always_inline)) size_t
scan_packed_body(const uint8_t *entries, size_t n, int width, uint64_t lowmask,
				 uint64_t high, uint64_t q, int hi, uint32_t *idx)
{
	size_t		m = 0;
	uint64_t	qlow = q & lowmask;
	int			limit = hi - __builtin_popcountll((high ^ q) & ~lowmask);

	if (limit < 0)
		return 0;
	for (size_t i = 0; i < n; i++)
	{
		if (__builtin_popcountll(load_packed(entries, i, width, lowmask) ^ qlow) <= limit)
			idx[m++] = (uint32_t) i;
	}
	return m;
}

/* Portable builds of the scans. */
static size_t
scan_generic(const uint64_t *keys, size_t n, uint64_t q, int lo, int hi,
			 uint32_t *idx, uint8_t *dist)
{
	return scan_body(keys, n, q, lo, hi, idx, dist);
}

static size_t
scan_packed_generic(const uint8_t *entries, size_t n, int width, uint64_t lowmask,
					uint64_t high, uint64_t q, int hi, uint32_t *idx)
{
	return scan_packed_body(entries, n, width, lowmask, high, q, hi, idx);
}

#ifdef HAM_X86_DISPATCH

/* The scans compiled for the POPCNT instruction. */
__attribute__((target("popcnt")))
static size_t
scan_popcnt(const uint64_t *keys, size_t n, uint64_t q, int lo, int hi,
			uint32_t *idx, uint8_t *dist)
{
	return scan_body(keys, n, q, lo, hi, idx, dist);
}

__attribute__((target("popcnt")))
static size_t
scan_packed_popcnt(const uint8_t *entries, size_t n, int width, uint64_t lowmask,
				   uint64_t high, uint64_t q, int hi, uint32_t *idx)
{
	return scan_packed_body(entries, n, width, lowmask, high, q, hi, idx);
}

/*
 * The AVX2 scan: eight keys per iteration, popcount of each byte by two
 * nibble lookups (vpshufb), summed per 64-bit lane (vpsadbw); the lanes in
 * (lo, hi] make a bit mask that is rarely non-zero.
 */
__attribute__((target("avx2,popcnt")))
static size_t
scan_avx2(const uint64_t *keys, size_t n, uint64_t q, int lo, int hi,
		  uint32_t *idx, uint8_t *dist)
{
	const __m256i nibble_counts = _mm256_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3,
												   1, 2, 2, 3, 2, 3, 3, 4,
												   0, 1, 1, 2, 1, 2, 2, 3,
												   1, 2, 2, 3, 2, 3, 3, 4);
	const __m256i low_nibbles = _mm256_set1_epi8(0x0f);
	const __m256i zero = _mm256_setzero_si256();
	const __m256i vq = _mm256_set1_epi64x((long long) q);
	const __m256i vlo = _mm256_set1_epi64x(lo);
	const __m256i vhi = _mm256_set1_epi64x(hi);
	size_t		m = 0;
	size_t		i = 0;

	for (; i + 8 <= n; i += 8)
	{
		__m256i		x0 = _mm256_xor_si256(_mm256_loadu_si256((const __m256i *) (keys + i)), vq);
		__m256i		x1 = _mm256_xor_si256(_mm256_loadu_si256((const __m256i *) (keys + i + 4)), vq);
		__m256i		c0 = _mm256_add_epi8(_mm256_shuffle_epi8(nibble_counts, _mm256_and_si256(x0, low_nibbles)),
										 _mm256_shuffle_epi8(nibble_counts, _mm256_and_si256(_mm256_srli_epi16(x0, 4), low_nibbles)));
		__m256i		c1 = _mm256_add_epi8(_mm256_shuffle_epi8(nibble_counts, _mm256_and_si256(x1, low_nibbles)),
										 _mm256_shuffle_epi8(nibble_counts, _mm256_and_si256(_mm256_srli_epi16(x1, 4), low_nibbles)));
		__m256i		in0;
		__m256i		in1;
		unsigned	hit;

		c0 = _mm256_sad_epu8(c0, zero);
		c1 = _mm256_sad_epu8(c1, zero);
		/* lo < c <= hi */
		in0 = _mm256_andnot_si256(_mm256_cmpgt_epi64(c0, vhi), _mm256_cmpgt_epi64(c0, vlo));
		in1 = _mm256_andnot_si256(_mm256_cmpgt_epi64(c1, vhi), _mm256_cmpgt_epi64(c1, vlo));
		hit = (unsigned) _mm256_movemask_pd(_mm256_castsi256_pd(in0)) |
			((unsigned) _mm256_movemask_pd(_mm256_castsi256_pd(in1)) << 4);
		if (__builtin_expect(hit != 0, 0))
			m = emit_hits(hit, i, keys, q, idx, dist, m);
	}
	/* the last keys, fewer than eight */
	return scan_tail(keys, i, n, q, lo, hi, idx, dist, m);
}

#ifdef HAM_X86_AVX512
#define HAM_AVX512_TARGET "avx512f,avx512bw,avx512vbmi,avx512vpopcntdq,popcnt"

/*
 * Byte permutations that spread eight packed entries of width bytes (5..8)
 * to the eight 64-bit lanes of a vector: lane j takes bytes width * j ..
 * width * j + width - 1, the bytes above them any (masked off after).
 */
static uint8_t packed_spread[9][64];

/* The AVX-512 scan of keys: eight a step, VPOPCNTQ. */
__attribute__((target(HAM_AVX512_TARGET)))
static size_t
scan_avx512(const uint64_t *keys, size_t n, uint64_t q, int lo, int hi,
			uint32_t *idx, uint8_t *dist)
{
	const __m512i vq = _mm512_set1_epi64((long long) q);
	const __m512i vlo = _mm512_set1_epi64(lo);
	const __m512i vhi = _mm512_set1_epi64(hi);
	size_t		m = 0;
	size_t		i = 0;

	for (; i + 8 <= n; i += 8)
	{
		__m512i		c = _mm512_popcnt_epi64(_mm512_xor_si512(_mm512_loadu_si512(keys + i), vq));
		__mmask8	hit = _mm512_cmpgt_epi64_mask(c, vlo) & _mm512_cmple_epi64_mask(c, vhi);

		if (__builtin_expect(hit != 0, 0))
			m = emit_hits(hit, i, keys, q, idx, dist, m);
	}
	return scan_tail(keys, i, n, q, lo, hi, idx, dist, m);
}

/*
 * The AVX-512 scan of packed entries: eight a step, spread to their lanes
 * by one byte permutation (VPERMB); runs of fewer than 16 entries, and the
 * last n mod 8, one at a time.
 */
__attribute__((target(HAM_AVX512_TARGET)))
static size_t
scan_packed_avx512(const uint8_t *entries, size_t n, int width, uint64_t lowmask,
				   uint64_t high, uint64_t q, int hi, uint32_t *idx)
{
	int			limit = hi - __builtin_popcountll((high ^ q) & ~lowmask);
	__mmask64	bytes = width >= 8 ? ~UINT64_C(0) : (UINT64_C(1) << (8 * width)) - 1;
	__m512i		spread;
	__m512i		vmask;
	__m512i		vq;
	__m512i		vlimit;
	size_t		m = 0;
	size_t		i = 0;
	size_t		tail;

	if (limit < 0)
		return 0;
	if (n < 16)
		return scan_packed_body(entries, n, width, lowmask, high, q, hi, idx);
	spread = _mm512_loadu_si512(packed_spread[width]);
	vmask = _mm512_set1_epi64((long long) lowmask);
	vq = _mm512_set1_epi64((long long) (q & lowmask));
	vlimit = _mm512_set1_epi64(limit);
	for (; i + 8 <= n; i += 8)
	{
		__m512i		v = _mm512_maskz_loadu_epi8(bytes, entries + i * (size_t) width);
		__mmask8	hit;

		v = _mm512_and_si512(_mm512_permutexvar_epi8(spread, v), vmask);
		hit = _mm512_cmple_epi64_mask(_mm512_popcnt_epi64(_mm512_xor_si512(v, vq)), vlimit);
		if (__builtin_expect(hit != 0, 0))
			m = emit_hits(hit, i, NULL, 0, idx, NULL, m);
	}
	tail = scan_packed_body(entries + i * (size_t) width, n - i, width, lowmask, high, q,
							hi, idx + m);
	for (size_t j = m; j < m + tail; j++)
		idx[j] += (uint32_t) i;
	return m + tail;
}
#endif							/* HAM_X86_AVX512 */
#endif							/* HAM_X86_DISPATCH */

typedef size_t (*ScanFn) (const uint64_t *, size_t, uint64_t, int, int,
						  uint32_t *, uint8_t *);
typedef size_t (*ScanPackedFn) (const uint8_t *, size_t, int, uint64_t,
								uint64_t, uint64_t, int, uint32_t *);

static ScanFn scan_fn;
static ScanPackedFn scan_packed_fn;
static NddupHamKernel kernel_in_use;

/* Use the given kernel; false when unavailable. */
bool
nddup_ham_use_kernel(NddupHamKernel kernel)
{
#ifdef HAM_X86_DISPATCH
	bool		have_popcnt = __builtin_cpu_supports("popcnt");
	bool		have_avx2 = have_popcnt && __builtin_cpu_supports("avx2");
#else
	bool		have_popcnt = false;
	bool		have_avx2 = false;
#endif
#ifdef HAM_X86_AVX512
	bool		have_avx512 = have_avx2 &&
		__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
		__builtin_cpu_supports("avx512vbmi") && __builtin_cpu_supports("avx512vpopcntdq");
#else
	bool		have_avx512 = false;
#endif

	if (kernel == NDDUP_HAM_KERNEL_AUTO)
		kernel = have_avx512 ? NDDUP_HAM_KERNEL_AVX512 :
			have_avx2 ? NDDUP_HAM_KERNEL_AVX2 :
			have_popcnt ? NDDUP_HAM_KERNEL_POPCNT : NDDUP_HAM_KERNEL_GENERIC;
	if ((kernel == NDDUP_HAM_KERNEL_AVX512 && !have_avx512) ||
		(kernel == NDDUP_HAM_KERNEL_AVX2 && !have_avx2) ||
		(kernel == NDDUP_HAM_KERNEL_POPCNT && !have_popcnt))
		return false;
	switch (kernel)
	{
#ifdef HAM_X86_AVX512
		case NDDUP_HAM_KERNEL_AVX512:
			for (int width = 5; width <= 8; width++)
				for (int lane = 0; lane < 8; lane++)
					for (int b = 0; b < 8; b++)
						packed_spread[width][8 * lane + b] =
							(uint8_t) (width * lane + (b < width ? b : 0));
			scan_fn = scan_avx512;
			scan_packed_fn = scan_packed_avx512;
			break;
#endif
#ifdef HAM_X86_DISPATCH
		case NDDUP_HAM_KERNEL_AVX2:
			scan_fn = scan_avx2;
			scan_packed_fn = scan_packed_popcnt;
			break;
		case NDDUP_HAM_KERNEL_POPCNT:
			scan_fn = scan_popcnt;
			scan_packed_fn = scan_packed_popcnt;
			break;
#endif
		default:
			kernel = NDDUP_HAM_KERNEL_GENERIC;
			scan_fn = scan_generic;
			scan_packed_fn = scan_packed_generic;
			break;
	}
	kernel_in_use = kernel;
	return true;
}

/* The kernel in use (chosen at the first call). */
NddupHamKernel
nddup_ham_kernel(void)
{
	if (scan_fn == NULL)
		nddup_ham_use_kernel(NDDUP_HAM_KERNEL_AUTO);
	return kernel_in_use;
}

/* Scan keys for lo < distance <= hi. */
size_t
nddup_ham_scan(const uint64_t *keys, size_t n, uint64_t q, int lo, int hi,
			   uint32_t *idx, uint8_t *dist)
{
	if (scan_fn == NULL)
		nddup_ham_use_kernel(NDDUP_HAM_KERNEL_AUTO);
	if (hi <= lo || n == 0)
		return 0;
	return scan_fn(keys, n, q, lo, hi, idx, dist);
}

/* Scan packed entries for distance <= hi. */
size_t
nddup_ham_scan_packed(const uint8_t *entries, size_t n, int width,
					  uint64_t lowmask, uint64_t high, uint64_t q, int hi,
					  uint32_t *idx)
{
	if (scan_packed_fn == NULL)
		nddup_ham_use_kernel(NDDUP_HAM_KERNEL_AUTO);
	if (n == 0 || hi < 0)
		return 0;
	return scan_packed_fn(entries, n, width, lowmask, high, q, hi, idx);
}
