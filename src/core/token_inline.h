/*-------------------------------------------------------------------------
 *
 * token_inline.h
 *	  The per-byte and per-token steps of tokenize.c, inlined there: XXH3
 *	  hashing of tokens and shingles with the nddup seed, little-endian
 *	  loads and stores, the end of an ASCII word eight bytes at a time,
 *	  UTF-8 decoding of normalized text, one-character tokens.  Include
 *	  after xxhash.h (XXH_INLINE_ALL), nddup_core.h and unicode_tables.h.
 *	  Not part of the core's interface.
 *
 *-------------------------------------------------------------------------
 */
#ifndef NDDUP_TOKEN_INLINE_H
#define NDDUP_TOKEN_INLINE_H

/* XXH3-64 of len bytes with the nddup seed (inlined here). */
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((flatten))
#endif
static inline uint64_t
hash_bytes(const void *bytes, size_t len)
{
	return XXH3_64bits_withSeed(bytes, len, NDDUP_HASH_SEED);
}

/* Store v at p as 8 little-endian bytes, whatever the host byte order. */
static inline void
store_le64(uint8_t *p, uint64_t v)
{
	p[0] = (uint8_t) v;
	p[1] = (uint8_t) (v >> 8);
	p[2] = (uint8_t) (v >> 16);
	p[3] = (uint8_t) (v >> 24);
	p[4] = (uint8_t) (v >> 32);
	p[5] = (uint8_t) (v >> 40);
	p[6] = (uint8_t) (v >> 48);
	p[7] = (uint8_t) (v >> 56);
}

/* Force inlining of the per-token helpers where the compiler allows it. */
#if defined(__GNUC__)
#define ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define ALWAYS_INLINE inline
#endif

/* Keep a rarely called function out of the flattened scanner. */
#if defined(__GNUC__)
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE
#endif

/* XXH3-64 of a long token, out of line. */
static NOINLINE uint64_t
hash_long(const uint8_t *bytes, size_t len)
{
	return hash_bytes(bytes, len);
}

/*
 * XXH3-64 of a token or a character shingle, as hash_bytes.  The scanner
 * and char_shingles are flattened, so short inputs are hashed inline there
 * (the length test lets the compiler drop XXH3's long paths).
 */
static ALWAYS_INLINE uint64_t
token_hash(const uint8_t *bytes, size_t len)
{
	if (len <= 16)
		return XXH3_64bits_withSeed(bytes, len, NDDUP_HASH_SEED);
	return hash_long(bytes, len);
}

#define BYTES_01	UINT64_C(0x0101010101010101)
#define BYTES_20	UINT64_C(0x2020202020202020)
#define BYTES_80	UINT64_C(0x8080808080808080)

/* Load 8 bytes as a little-endian integer (one load on such hosts). */
static inline uint64_t
load_le64(const uint8_t *p)
{
	return (uint64_t) p[0] | ((uint64_t) p[1] << 8) |
		((uint64_t) p[2] << 16) | ((uint64_t) p[3] << 24) |
		((uint64_t) p[4] << 32) | ((uint64_t) p[5] << 40) |
		((uint64_t) p[6] << 48) | ((uint64_t) p[7] << 56);
}

/*
 * Offset in s[i..len) of the first space or non-ASCII byte, or len - i.
 * Eight bytes at a time: a byte b is flagged when b ^ 0x20 is zero (the
 * lowest flag of the zero-byte test is exact) or when its high bit is set.
 */
static ALWAYS_INLINE size_t
ascii_word_end(const uint8_t *s, size_t len, size_t i)
{
	while (len - i >= 8)
	{
		uint64_t	x = load_le64(s + i);
		uint64_t	t = x ^ BYTES_20;
		uint64_t	m = ((t - BYTES_01) & ~t & BYTES_80) | (x & BYTES_80);

		if (m != 0)
			return i + (__builtin_ctzll(m) >> 3);
		i += 8;
	}
	while (i < len && s[i] != ' ' && s[i] < 0x80)
		i++;
	return i;
}

/*
 * Decode the code point at s[i] (s[i] >= 0x80) of a normalized text, which
 * is valid UTF-8; malformed bytes are taken one at a time as U+FFFD.
 */
static inline uint32_t
decode_at(const uint8_t *s, size_t len, size_t i, size_t *adv)
{
	uint8_t		c = s[i];
	size_t		n;
	uint32_t	cp;
	size_t		k;

	if (c >= 0xC2 && c < 0xE0)
	{
		n = 2;
		cp = c & 0x1F;
	}
	else if (c >= 0xE0 && c < 0xF0)
	{
		n = 3;
		cp = c & 0x0F;
	}
	else if (c >= 0xF0 && c < 0xF5)
	{
		n = 4;
		cp = c & 0x07;
	}
	else
	{
		*adv = 1;
		return 0xFFFD;
	}
	if (len - i < n)
	{
		*adv = 1;
		return 0xFFFD;
	}
	for (k = 1; k < n; k++)
	{
		if ((s[i + k] & 0xC0) != 0x80)
		{
			*adv = 1;
			return 0xFFFD;
		}
		cp = (cp << 6) | (s[i + k] & 0x3F);
	}
	*adv = n;
	return cp;
}

/* Is cp a one-character token (ideograph, kana)?  None is below U+3000. */
static inline bool
is_solo(uint32_t cp)
{
	return cp >= NDDUP_SOLO_MIN && (nddup_uprops_of(cp)->flags & NDDUP_UF_SOLO);
}

#endif							/* NDDUP_TOKEN_INLINE_H */
