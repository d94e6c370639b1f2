/*-------------------------------------------------------------------------
 *
 * simhash.c
 *	  Charikar's simhash over 64-bit feature hashes (pure C, no server
 *	  headers).
 *
 * Charikar 2002; Manku, Jain, Das Sarma 2007, section 2: keep a vector V of
 * 64 counters; every feature adds its weight to V[i] where bit i of its hash
 * is 1 and subtracts it where the bit is 0; fingerprint bit i is 1 exactly
 * when V[i] > 0 (a tie gives 0).
 *
 * Unweighted features (weight 1 per occurrence) take a fast path: hashes are
 * batched and counted 16 at a time by carry-save adders over 64 vertical
 * bit counters (see count_batch), about six logical operations a feature.
 *
 *-------------------------------------------------------------------------
 */
#include "nddup.h"

#include <stdlib.h>
#include <string.h>

/* SPREAD_BITS[b] has byte i equal to bit i of b. */
static uint64_t spread_bits[256];
static bool spread_ready = false;

/* Fill the bit-spreading table (idempotent, no shared state beyond it). */
static void
init_spread_bits(void)
{
	for (int b = 0; b < 256; b++)
	{
		uint64_t	v = 0;

		for (int i = 0; i < 8; i++)
			if (b & (1 << i))
				v |= UINT64_C(1) << (8 * i);
		spread_bits[b] = v;
	}
	spread_ready = true;
}

/* Reset an unweighted accumulator. */
void
nddup_simhash_init(NddupSimhashAcc *acc)
{
	if (!spread_ready)
		init_spread_bits();
	acc->pending = 0;
	acc->total = 0;
	memset(acc->planes, 0, sizeof(acc->planes));
	memset(acc->counts, 0, sizeof(acc->counts));
}

/* Carry-save adder: (high, low) = a + b + c, bit by bit. */
static inline void
carry_save_add(uint64_t *high, uint64_t *low, uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t	u = a ^ b;

	*high = (a & b) | (u & c);
	*low = u ^ c;
}

/* Add the byte-wide counters of eight lanes, times weight, to counts. */
static void
add_lanes(int64_t *counts, const uint64_t *lanes, int64_t weight)
{
	if ((lanes[0] | lanes[1] | lanes[2] | lanes[3] |
		 lanes[4] | lanes[5] | lanes[6] | lanes[7]) == 0)
		return;
	for (int j = 0; j < 8; j++)
		for (int i = 0; i < 8; i++)
			counts[8 * j + i] += weight * (int64_t) ((lanes[j] >> (8 * i)) & 0xff);
}

/* Spread the bits of word into eight lanes of byte-wide counters. */
static inline void
spread_into_lanes(uint64_t *lanes, uint64_t word)
{
	for (int j = 0; j < 8; j++)
		lanes[j] += spread_bits[(word >> (8 * j)) & 0xff];
}

/*
 * Count the bits of the batched hashes.  Blocks of 16 hashes go through a
 * tree of carry-save adders (the Harley-Seal population count, applied to 64
 * vertical counters at once) into bit-sliced counters of weight 1, 2, 4 and
 * 8; each block's carry of weight 16, and the hashes of a last partial
 * block, are spread into byte-wide counters, at most 16 per batch, so no
 * byte overflows.
 */
static void
count_batch(NddupSimhashAcc *acc)
{
	uint64_t	ones = acc->planes[0],
				twos = acc->planes[1],
				fours = acc->planes[2],
				eights = acc->planes[3];
	uint64_t	sixteen_lanes[8] = {0};
	uint64_t	single_lanes[8] = {0};
	uint32_t	k = 0;

	for (; k + 16 <= acc->pending; k += 16)
	{
		const uint64_t *d = acc->batch + k;
		uint64_t	twos_a,
					twos_b,
					fours_a,
					fours_b,
					eights_a,
					eights_b,
					sixteens;

		carry_save_add(&twos_a, &ones, ones, d[0], d[1]);
		carry_save_add(&twos_b, &ones, ones, d[2], d[3]);
		carry_save_add(&fours_a, &twos, twos, twos_a, twos_b);
		carry_save_add(&twos_a, &ones, ones, d[4], d[5]);
		carry_save_add(&twos_b, &ones, ones, d[6], d[7]);
		carry_save_add(&fours_b, &twos, twos, twos_a, twos_b);
		carry_save_add(&eights_a, &fours, fours, fours_a, fours_b);
		carry_save_add(&twos_a, &ones, ones, d[8], d[9]);
		carry_save_add(&twos_b, &ones, ones, d[10], d[11]);
		carry_save_add(&fours_a, &twos, twos, twos_a, twos_b);
		carry_save_add(&twos_a, &ones, ones, d[12], d[13]);
		carry_save_add(&twos_b, &ones, ones, d[14], d[15]);
		carry_save_add(&fours_b, &twos, twos, twos_a, twos_b);
		carry_save_add(&eights_b, &fours, fours, fours_a, fours_b);
		carry_save_add(&sixteens, &eights, eights, eights_a, eights_b);
		spread_into_lanes(sixteen_lanes, sixteens);
	}
	for (; k < acc->pending; k++)
		spread_into_lanes(single_lanes, acc->batch[k]);
	add_lanes(acc->counts, sixteen_lanes, 16);
	add_lanes(acc->counts, single_lanes, 1);
	acc->planes[0] = ones;
	acc->planes[1] = twos;
	acc->planes[2] = fours;
	acc->planes[3] = eights;
	acc->total += acc->pending;
	acc->pending = 0;
}

/* Add one feature hash with weight 1. */
void
nddup_simhash_add(NddupSimhashAcc *acc, uint64_t hash)
{
	acc->batch[acc->pending++] = hash;
	if (acc->pending == NDDUP_SIMHASH_BATCH)
		count_batch(acc);
}

/* The fingerprint: bit i is set when more features have bit i set than not. */
uint64_t
nddup_simhash_finish(NddupSimhashAcc *acc)
{
	uint64_t	fp = 0;

	count_batch(acc);
	for (int i = 0; i < 64; i++)
	{
		int64_t		count = acc->counts[i] +
			(int64_t) ((acc->planes[0] >> i) & 1) +
			((int64_t) ((acc->planes[1] >> i) & 1) << 1) +
			((int64_t) ((acc->planes[2] >> i) & 1) << 2) +
			((int64_t) ((acc->planes[3] >> i) & 1) << 3);

		if (2 * count > acc->total)
			fp |= UINT64_C(1) << i;
	}
	return fp;
}

/* Reset a weighted accumulator. */
void
nddup_simhash_weighted_init(NddupSimhashWeighted *acc)
{
	memset(acc, 0, sizeof(*acc));
}

/* Add one feature hash with a real weight (Charikar's +w / -w per bit). */
void
nddup_simhash_weighted_add(NddupSimhashWeighted *acc, uint64_t hash,
						   double weight)
{
	for (int i = 0; i < 64; i++)
		acc->sums[i] += ((hash >> i) & 1) ? weight : -weight;
}

/* The fingerprint of a weighted accumulator: bit i is set when sums[i] > 0. */
uint64_t
nddup_simhash_weighted_finish(const NddupSimhashWeighted *acc)
{
	uint64_t	fp = 0;

	for (int i = 0; i < 64; i++)
		if (acc->sums[i] > 0)
			fp |= UINT64_C(1) << i;
	return fp;
}

/* Shingle callback: add the shingle to an unweighted accumulator. */
static void
add_to_acc(void *arg, uint64_t hash)
{
	nddup_simhash_add((NddupSimhashAcc *) arg, hash);
}

/* Shingle callback: collect the shingle into a set of hashes. */
static void
add_to_hashes(void *arg, uint64_t hash)
{
	nddup_hashes_push_distinct((NddupHashes *) arg, hash);
}

/* qsort comparator for uint64 values. */
static int
compare_uint64(const void *a, const void *b)
{
	uint64_t	x = *(const uint64_t *) a;
	uint64_t	y = *(const uint64_t *) b;

	return (x > y) - (x < y);
}

/*
 * Simhash of a text: normalize, take w-shingles of the given unit and feed
 * their hashes with weight 1 per occurrence (unique = false, term-frequency
 * weighting) or once per distinct shingle (unique = true, set weighting).
 */
uint64_t
nddup_simhash_text(const char *src, size_t len, int size, NddupUnit unit,
				   bool unique)
{
	NddupBuf	norm = {0};
	NddupSimhashAcc acc;
	uint64_t	fp;

	nddup_simhash_init(&acc);
	nddup_normalize(src, len, &norm);
	if (!unique)
		nddup_shingle_hashes(norm.data, norm.len, size, unit, add_to_acc, &acc);
	else
	{
		NddupHashes hashes = {0};

		nddup_shingle_hashes(norm.data, norm.len, size, unit,
							 add_to_hashes, &hashes);
		if (hashes.len > 1)
			qsort(hashes.items, hashes.len, sizeof(uint64_t), compare_uint64);
		for (size_t i = 0; i < hashes.len; i++)
			if (i == 0 || hashes.items[i] != hashes.items[i - 1])
				nddup_simhash_add(&acc, hashes.items[i]);
		nddup_hashes_free(&hashes);
	}
	nddup_buf_free(&norm);
	fp = nddup_simhash_finish(&acc);
	return fp;
}
