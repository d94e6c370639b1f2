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
 * counted 16 at a time by carry-save adders over 64 vertical bit counters
 * (see count_block), about six logical operations a feature.
 *
 *-------------------------------------------------------------------------
 */
#include "nddup_core.h"

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
	acc->blocks = 0;
	acc->spilled = false;
	acc->total = 0;
	memset(acc->planes, 0, sizeof(acc->planes));
	memset(acc->sixteens, 0, sizeof(acc->sixteens));
}

/* Carry-save adder: (high, low) = a + b + c, bit by bit. */
static inline void
carry_save_add(uint64_t *high, uint64_t *low, uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t	u = a ^ b;

	*high = (a & b) | (u & c);
	*low = u ^ c;
}

/* Byte i of lanes[j] (the counter of bit 8j+i), whatever the byte order. */
static inline unsigned
lane_byte(const uint64_t *lanes, int bit)
{
	return (unsigned) ((lanes[bit >> 3] >> (8 * (bit & 7))) & 0xff);
}

/* Move the byte-wide counters of weight 16 into counts. */
static void
spill_sixteens(NddupSimhashAcc *acc)
{
	if (!acc->spilled)
	{
		memset(acc->counts, 0, sizeof(acc->counts));
		acc->spilled = true;
	}
	for (int i = 0; i < 64; i++)
		acc->counts[i] += 16 * (int64_t) lane_byte(acc->sixteens, i);
	memset(acc->sixteens, 0, sizeof(acc->sixteens));
	acc->blocks = 0;
}

/*
 * Count the bits of 16 hashes: a tree of carry-save adders (the Harley-Seal
 * population count, applied to 64 vertical counters at once) into the
 * bit-sliced counters of weight 1, 2, 4 and 8; the carry of weight 16 is
 * spread into byte-wide counters, spilled before a byte can overflow.
 */
static inline void
count_block(NddupSimhashAcc *acc, const uint64_t *d)
{
	uint64_t	ones = acc->planes[0],
				twos = acc->planes[1],
				fours = acc->planes[2],
				eights = acc->planes[3];
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
	acc->planes[0] = ones;
	acc->planes[1] = twos;
	acc->planes[2] = fours;
	acc->planes[3] = eights;
	if (sixteens != 0)
	{
		for (int j = 0; j < 8; j++)
			acc->sixteens[j] += spread_bits[(sixteens >> (8 * j)) & 0xff];
	}
	if (++acc->blocks == 255)
		spill_sixteens(acc);
}

/* Add one feature hash with weight 1. */
void
nddup_simhash_add(NddupSimhashAcc *acc, uint64_t hash)
{
	acc->block[acc->pending++] = hash;
	acc->total++;
	if (acc->pending == NDDUP_SIMHASH_BLOCK)
	{
		count_block(acc, acc->block);
		acc->pending = 0;
	}
}

/* Add n feature hashes with weight 1 each. */
void
nddup_simhash_add_many(NddupSimhashAcc *acc, const uint64_t *hashes, size_t n)
{
	size_t		i = 0;

	acc->total += (int64_t) n;
	if (acc->pending > 0)
	{
		while (i < n && acc->pending < NDDUP_SIMHASH_BLOCK)
			acc->block[acc->pending++] = hashes[i++];
		if (acc->pending < NDDUP_SIMHASH_BLOCK)
			return;
		count_block(acc, acc->block);
		acc->pending = 0;
	}
	for (; n - i >= NDDUP_SIMHASH_BLOCK; i += NDDUP_SIMHASH_BLOCK)
		count_block(acc, hashes + i);
	while (i < n)
		acc->block[acc->pending++] = hashes[i++];
}

/*
 * The bits i with 16 sixteens_i + low_i > half (the byte-wide counters of
 * bit i, as in NddupSimhashAcc; half < 2048).  SSE2 compares them eight at
 * a time in 16-bit lanes where the bytes lie in memory in bit order.
 */
#if defined(__SSE2__) && !defined(NDDUP_NO_SIMD) && \
	defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#include <emmintrin.h>

static uint64_t
compare_counts(const uint64_t *sixteens, const uint64_t *low, int half)
{
	const __m128i zero = _mm_setzero_si128();
	const __m128i limit = _mm_set1_epi16((short) half);
	uint64_t	fp = 0;

	for (int c = 0; c < 4; c++)
	{
		__m128i		s = _mm_loadu_si128((const __m128i *) (sixteens + 2 * c));
		__m128i		l = _mm_loadu_si128((const __m128i *) (low + 2 * c));
		__m128i		lo = _mm_add_epi16(_mm_slli_epi16(_mm_unpacklo_epi8(s, zero), 4),
									   _mm_unpacklo_epi8(l, zero));
		__m128i		hi = _mm_add_epi16(_mm_slli_epi16(_mm_unpackhi_epi8(s, zero), 4),
									   _mm_unpackhi_epi8(l, zero));
		__m128i		gt = _mm_packs_epi16(_mm_cmpgt_epi16(lo, limit),
										 _mm_cmpgt_epi16(hi, limit));

		fp |= (uint64_t) (uint16_t) _mm_movemask_epi8(gt) << (16 * c);
	}
	return fp;
}
#else
static uint64_t
compare_counts(const uint64_t *sixteens, const uint64_t *low, int half)
{
	uint64_t	fp = 0;

	for (int i = 0; i < 64; i++)
		if ((int) (16 * lane_byte(sixteens, i) + lane_byte(low, i)) > half)
			fp |= UINT64_C(1) << i;
	return fp;
}
#endif

/* The fingerprint: bit i is set when more features have bit i set than not. */
uint64_t
nddup_simhash_finish(NddupSimhashAcc *acc)
{
	uint64_t	fp = 0;
	uint64_t	low[8];

	/* a last partial block, completed with zeros (which count no bit) */
	if (acc->pending > 0)
	{
		memset(acc->block + acc->pending, 0,
			   (NDDUP_SIMHASH_BLOCK - acc->pending) * sizeof(uint64_t));
		count_block(acc, acc->block);
		acc->pending = 0;
	}

	/*
	 * The four planes as byte-wide counters, bit 8j+i in byte i of low[j]
	 * like sixteens: at most 15, so the shifted spreads add without carries.
	 */
	for (int j = 0; j < 8; j++)
	{
		int			shift = 8 * j;

		low[j] = spread_bits[(acc->planes[0] >> shift) & 0xff] +
			(spread_bits[(acc->planes[1] >> shift) & 0xff] << 1) +
			(spread_bits[(acc->planes[2] >> shift) & 0xff] << 2) +
			(spread_bits[(acc->planes[3] >> shift) & 0xff] << 3);
	}

	/* bit i: count_i = counts[i] + 16 sixteens_i + low_i > total / 2 */
	if (acc->spilled)
	{
		for (int i = 0; i < 64; i++)
			if (2 * (acc->counts[i] + 16 * (int64_t) lane_byte(acc->sixteens, i) +
					 lane_byte(low, i)) > acc->total)
				fp |= UINT64_C(1) << i;
		return fp;
	}
	/* not spilled: fewer than 255 * 16 + 16 features, counts fit 16 bits */
	return compare_counts(acc->sixteens, low, (int) (acc->total / 2));
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

/* Shingle batch callback: add the shingles to an unweighted accumulator. */
static void
add_to_acc(void *arg, const uint64_t *hashes, size_t n)
{
	nddup_simhash_add_many((NddupSimhashAcc *) arg, hashes, n);
}

/* Slots of the distinct-shingle set kept on the stack. */
#define SET_LOCAL_SLOTS	128

/*
 * The distinct shingle hashes seen so far (set weighting): open addressing
 * with linear probing, indexed by the low bits of the hash (XXH3 output, so
 * uniform); 0 marks an empty slot, and the hash 0 is remembered apart.
 */
typedef struct ShingleSet
{
	NddupSimhashAcc *acc;		/* where each new hash is added */
	uint64_t   *slots;
	size_t		mask;			/* number of slots - 1 */
	size_t		n;				/* non-zero hashes held */
	bool		has_zero;
	uint64_t	local[SET_LOCAL_SLOTS];
} ShingleSet;

/* Put a non-zero hash known to be absent into its slot. */
static inline void
set_place(uint64_t *slots, size_t mask, uint64_t hash)
{
	size_t		i = (size_t) hash & mask;

	while (slots[i] != 0)
		i = (i + 1) & mask;
	slots[i] = hash;
}

/* Double the number of slots of a set. */
static void
set_grow(ShingleSet *set)
{
	size_t		old_size = set->mask + 1;
	size_t		size = 2 * old_size;
	uint64_t   *slots = nddup_realloc_hook(NULL, size * sizeof(uint64_t));

	memset(slots, 0, size * sizeof(uint64_t));
	for (size_t i = 0; i < old_size; i++)
		if (set->slots[i] != 0)
			set_place(slots, size - 1, set->slots[i]);
	if (set->slots != set->local)
		nddup_free_hook(set->slots);
	set->slots = slots;
	set->mask = size - 1;
}

/*
 * Shingle batch callback of set weighting: add each hash not seen before
 * to the accumulator.  The counts are sums, so the order of the distinct
 * hashes does not matter: the result is that of sorting them.
 */
static void
add_distinct(void *arg, const uint64_t *hashes, size_t n)
{
	ShingleSet *set = arg;

	for (size_t k = 0; k < n; k++)
	{
		uint64_t	hash = hashes[k];
		size_t		i;

		if (hash == 0)
		{
			if (!set->has_zero)
				nddup_simhash_add(set->acc, 0);
			set->has_zero = true;
			continue;
		}
		for (i = (size_t) hash & set->mask; set->slots[i] != 0; i = (i + 1) & set->mask)
			if (set->slots[i] == hash)
				break;
		if (set->slots[i] == hash)
			continue;
		set->slots[i] = hash;
		nddup_simhash_add(set->acc, hash);
		/* at most half full */
		if (++set->n > set->mask / 2)
			set_grow(set);
	}
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
	NddupSimhashAcc acc;

	nddup_simhash_init(&acc);
	if (!unique)
		nddup_text_shingles(src, len, size, unit, add_to_acc, &acc);
	else
	{
		ShingleSet	set;

		set.acc = &acc;
		set.slots = set.local;
		set.mask = SET_LOCAL_SLOTS - 1;
		set.n = 0;
		set.has_zero = false;
		memset(set.local, 0, sizeof(set.local));
		nddup_text_shingles(src, len, size, unit, add_distinct, &set);
		if (set.slots != set.local)
			nddup_free_hook(set.slots);
	}
	return nddup_simhash_finish(&acc);
}
