/*-------------------------------------------------------------------------
 *
 * hamming_kernel.h
 *	  The pure-C kernels of the hamming index access method
 *	  (src/index/hamming*.c): the block permutation of a fingerprint, the
 *	  enumeration of a Hamming ball over a block, and the popcount scans of
 *	  packed fingerprints (AVX-512, AVX2 or POPCNT chosen at run time).
 *
 * A fingerprint's 64 bits (bit j counted from the most significant) are
 * dealt into 4 blocks of 16 bits, bit j to block j mod 4 (interleaving keeps
 * every block informative when whole runs of bits are constant).  The key
 * of a fingerprint is the concatenation [block 0][block 1][block 2][block 3]
 * (a bit permutation, so Hamming distances are the same between keys as
 * between fingerprints); the key in table t, which puts block t first, is
 * the key rotated left by 16 t bits (Manku, Jain and Das Sarma 2007, s.3:
 * one permuted copy per block).
 *
 * Nothing here includes a PostgreSQL header (see nddup_core.h).
 *
 *-------------------------------------------------------------------------
 */
#ifndef NDDUP_HAMMING_KERNEL_H
#define NDDUP_HAMMING_KERNEL_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

/* number of blocks (tables) and bits per block */
#define NDDUP_HAM_TABLES		4
#define NDDUP_HAM_BLOCK_BITS	16

/* The key of a fingerprint: its blocks concatenated, block 0 first. */
extern uint64_t nddup_ham_key(uint64_t fp);

/* The fingerprint of a key (the inverse of nddup_ham_key). */
extern uint64_t nddup_ham_unkey(uint64_t key);

/* The key in table t: block t first (rotate left by 16 t bits). */
static inline uint64_t
nddup_ham_table_key(uint64_t key, int t)
{
	int			s = NDDUP_HAM_BLOCK_BITS * t;

	return s == 0 ? key : (key << s) | (key >> (64 - s));
}

/* The key of table 0 again from a key of table t. */
static inline uint64_t
nddup_ham_table_unkey(uint64_t tkey, int t)
{
	int			s = NDDUP_HAM_BLOCK_BITS * t;

	return s == 0 ? tkey : (tkey >> s) | (tkey << (64 - s));
}

/* Number of b-bit values within d bits of a given one: sum C(b, i), i <= d. */
extern double nddup_ham_ball_volume(int bits, int d);

/*
 * Every value of `bits` bits (bits <= 30) within d bits of v, in ascending
 * order, into out (room for max values); returns their number, or -1 when
 * there are more than max.
 */
extern long nddup_ham_enumerate(uint32_t v, int bits, int d, uint32_t *out,
								long max);

/*
 * For i in [0, n): with dist = popcount(keys[i] ^ q), the i with
 * lo < dist <= hi are written to idx (and their distances to dist, when not
 * NULL), in ascending order; returns their number.  idx must have room for
 * n values.
 */
extern size_t nddup_ham_scan(const uint64_t *keys, size_t n, uint64_t q,
							 int lo, int hi, uint32_t *idx, uint8_t *dist);

/*
 * The same over packed entries of width bytes each (5 to 8; the low bytes
 * of a value, little-endian): value i is high | (entry i & lowmask).  Reads
 * up to 8 bytes from each entry's start, so the buffer must extend at least
 * 8 - width bytes past the last entry.  Returns the i with
 * popcount(value ^ q) <= hi.
 */
extern size_t nddup_ham_scan_packed(const uint8_t *entries, size_t n, int width,
									uint64_t lowmask, uint64_t high, uint64_t q,
									int hi, uint32_t *idx);

/* Entry i of a packed array (see nddup_ham_scan_packed), masked. */
static inline uint64_t
nddup_ham_packed_entry(const uint8_t *entries, size_t i, int width,
					   uint64_t lowmask)
{
	const uint8_t *p = entries + i * (size_t) width;
	uint64_t	v = 0;

	for (int b = width - 1; b >= 0; b--)
		v = (v << 8) | p[b];
	return v & lowmask;
}

/* Store the low width bytes of v, little-endian. */
static inline void
nddup_ham_packed_store(uint8_t *entries, size_t i, int width, uint64_t v)
{
	uint8_t    *p = entries + i * (size_t) width;

	for (int b = 0; b < width; b++, v >>= 8)
		p[b] = (uint8_t) v;
}

/* The scan kernels (for tests and reports). */
typedef enum NddupHamKernel
{
	NDDUP_HAM_KERNEL_AUTO = 0,	/* the best the CPU has */
	NDDUP_HAM_KERNEL_GENERIC,	/* portable C */
	NDDUP_HAM_KERNEL_POPCNT,	/* x86-64 POPCNT */
	NDDUP_HAM_KERNEL_AVX2,		/* x86-64 AVX2 (and POPCNT) */
	NDDUP_HAM_KERNEL_AVX512		/* x86-64 AVX-512 F, BW, VBMI, VPOPCNTDQ */
} NddupHamKernel;

/*
 * Use the given kernel from now on; false (and no change) when the CPU or
 * the build lacks it.  AUTO picks the best available.
 */
extern bool nddup_ham_use_kernel(NddupHamKernel kernel);

/* The kernel in use. */
extern NddupHamKernel nddup_ham_kernel(void);

#endif							/* NDDUP_HAMMING_KERNEL_H */
