/*-------------------------------------------------------------------------
 *
 * tokenize.c
 *	  Tokenization of normalized text, and hashing of tokens and shingles
 *	  (see docs/text-pipeline.md).
 *
 * Tokens are the space-separated words of the normalized text, except that
 * ideographs, hiragana and katakana (with the combining marks that follow
 * them) are tokens of one character each.  Hashes are XXH3-64 with seed
 * NDDUP_HASH_SEED; a shingle of w > 1 words hashes the little-endian bytes
 * of its w token hashes.  The results are a file format.
 *
 *-------------------------------------------------------------------------
 */
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "nddup.h"
#include "unicode_tables.h"

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

/*
 * Find the next token at or after *pos in the normalized text s[0..len):
 * sets [*start, *end) and advances *pos; returns false when there is none.
 */
static ALWAYS_INLINE bool
next_token(const uint8_t *s, size_t len, size_t *pos,
		   size_t *start, size_t *end)
{
	size_t		i = *pos;
	size_t		adv;
	uint32_t	cp;

	while (i < len && s[i] == ' ')
		i++;
	if (i >= len)
	{
		*pos = i;
		return false;
	}
	*start = i;

	if (s[i] >= 0x80)
	{
		cp = decode_at(s, len, i, &adv);
		i += adv;
		if (nddup_uprops_of(cp)->flags & NDDUP_UF_SOLO)
		{
			/* one character, with the combining marks that follow it */
			while (i < len && s[i] >= 0x80)
			{
				cp = decode_at(s, len, i, &adv);
				if (!(nddup_uprops_of(cp)->flags & NDDUP_UF_MARK))
					break;
				i += adv;
			}
			*end = *pos = i;
			return true;
		}
	}
	else
		i++;

	/* a run of other characters, up to a space or a one-character token */
	while (i < len)
	{
		i = ascii_word_end(s, len, i);
		if (i >= len || s[i] == ' ')
			break;
		cp = decode_at(s, len, i, &adv);
		if (nddup_uprops_of(cp)->flags & NDDUP_UF_SOLO)
			break;
		i += adv;
	}
	*end = *pos = i;
	return true;
}

/* Call callback for each token of the normalized text; returns their number. */
size_t
nddup_tokenize(const char *norm, size_t len,
			   NddupTokenCallback callback, void *arg)
{
	const uint8_t *s = (const uint8_t *) norm;
	size_t		pos = 0;
	size_t		start;
	size_t		end;
	size_t		count = 0;

	while (next_token(s, len, &pos, &start, &end))
	{
		callback(arg, norm + start, end - start);
		count++;
	}
	return count;
}

/* XXH3-64 of len bytes with seed NDDUP_HASH_SEED. */
uint64_t
nddup_hash_bytes(const char *bytes, size_t len)
{
	return hash_bytes(bytes, len);
}

/* Word shingles: see nddup_shingle_hashes. */
static size_t
word_shingles(const char *norm, size_t len, int size,
			  NddupHashCallback callback, void *arg)
{
	const uint8_t *s = (const uint8_t *) norm;
	size_t		w = (size_t) size;

	/*
	 * Ring of the last w token hashes, written twice (at slot i and i + w)
	 * so that the window always lies contiguous at slot n % w.
	 */
	uint8_t		ring[2 * NDDUP_MAX_SHINGLE_SIZE * 8];
	size_t		slot = 0;		/* n % w */
	size_t		pos = 0;
	size_t		start;
	size_t		end;
	size_t		n = 0;
	size_t		count = 0;

	while (next_token(s, len, &pos, &start, &end))
	{
		uint64_t	h = hash_bytes(s + start, end - start);

		n++;
		if (w == 1)
		{
			callback(arg, h);
			count++;
			continue;
		}
		store_le64(ring + 8 * slot, h);
		store_le64(ring + 8 * (slot + w), h);
		if (++slot == w)
			slot = 0;
		if (n >= w)
		{
			callback(arg, hash_bytes(ring + 8 * slot, 8 * w));
			count++;
		}
	}

	/* fewer tokens than w: one shingle over all of them */
	if (n > 0 && n < w)
	{
		callback(arg, hash_bytes(ring, 8 * n));
		count++;
	}
	return count;
}

/* Character shingles: see nddup_shingle_hashes. */
static size_t
char_shingles(const char *norm, size_t len, int size,
			  NddupHashCallback callback, void *arg)
{
	const uint8_t *s = (const uint8_t *) norm;
	size_t		w = (size_t) size;
	size_t		starts[NDDUP_MAX_SHINGLE_SIZE];	/* ring of code point starts */
	size_t		slot = 0;		/* n % w */
	size_t		i = 0;
	size_t		n = 0;
	size_t		count = 0;

	/* ASCII fast path: a window of w code points is w bytes */
	while (i < len && s[i] < 0x80)
	{
		i++;
		if (++n >= w)
		{
			callback(arg, hash_bytes(s + i - w, w));
			count++;
		}
	}
	/* the ring of starts for the general loop below */
	for (size_t back = 0; back < w && back < n; back++)
		starts[(n - 1 - back) % w] = i - 1 - back;
	slot = n % w;

	while (i < len)
	{
		size_t		adv = 1;

		if (s[i] >= 0x80)
			(void) decode_at(s, len, i, &adv);
		starts[slot] = i;
		i += adv;
		n++;
		if (++slot == w)
			slot = 0;
		if (n >= w)
		{
			/* code points n - w .. n - 1; the oldest start is at slot n % w */
			callback(arg, hash_bytes(s + starts[slot], i - starts[slot]));
			count++;
		}
	}

	/* fewer code points than w: one shingle of the whole text */
	if (n > 0 && n < w)
	{
		callback(arg, hash_bytes(s, len));
		count++;
	}
	return count;
}

/*
 * Call callback with the hash of each w-shingle of the normalized text, in
 * text order, repeats included; returns their number.  size must be in
 * 1..NDDUP_MAX_SHINGLE_SIZE (checked by the caller).
 */
size_t
nddup_shingle_hashes(const char *norm, size_t len, int size, NddupUnit unit,
					 NddupHashCallback callback, void *arg)
{
	if (size < 1 || size > NDDUP_MAX_SHINGLE_SIZE)
		return 0;
	if (unit == NDDUP_UNIT_CHAR)
		return char_shingles(norm, len, size, callback, arg);
	return word_shingles(norm, len, size, callback, arg);
}
