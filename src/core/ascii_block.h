/*-------------------------------------------------------------------------
 *
 * ascii_block.h
 *	  Classification of plain ASCII text 64 bytes at a time, shared by the
 *	  normalizer's ASCII path (src/core/normalize.c) and the one-pass tokenizer
 *	  (src/core/tokenize.c).  Pure C, no server headers.
 *
 *-------------------------------------------------------------------------
 */
#ifndef NDDUP_ASCII_BLOCK_H
#define NDDUP_ASCII_BLOCK_H

#include <stddef.h>
#include <stdint.h>

/* Bytes looked at a time. */
#define NDDUP_BLOCK	64

/* Class of each byte: NDDUP_SC_WORD, NDDUP_SC_SPECIAL or 0 (a separator). */
#define NDDUP_SC_WORD		1	/* ASCII letter or digit */
#define NDDUP_SC_SPECIAL	2	/* '<', '&' or not ASCII */

static const uint8_t nddup_scan_class[256] = {
	/* 0x00 - 0x1F: controls */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	/* 0x20 - 0x2F: space ! " # $ % & ' ( ) * + , - . / */
	0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	/* 0x30 - 0x3F: digits : ; < = > ? */
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 2, 0, 0, 0,
	/* 0x40 - 0x5F: @ A-Z [ \ ] ^ _ */
	0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0,
	/* 0x60 - 0x7F: ` a-z { | } ~ DEL */
	0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0,
	/* 0x80 - 0xFF: not ASCII */
	2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
	2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
	2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
	2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
	2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
	2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
	2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
	2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2
};

/*
 * Classify the NDDUP_BLOCK bytes at p: bit i of *word is set when p[i] is an
 * ASCII letter or digit, bit i of *special when p[i] is '<', '&' or not
 * ASCII; lower[i] = p[i] | 0x20, which is the lower case of a letter and
 * leaves a digit unchanged.  SSE2 (every x86-64) where available, else a
 * table lookup per byte; both give the same result (test/unit builds both).
 */
#if defined(__SSE2__) && !defined(NDDUP_NO_SIMD)
#include <emmintrin.h>

static inline void
nddup_classify_block(const uint8_t *p, uint64_t *word, uint64_t *special,
					 uint8_t *lower)
{
	const __m128i case_bit = _mm_set1_epi8(0x20);
	const __m128i letter_shift = _mm_set1_epi8((char) (0x80 - 'a'));
	const __m128i letter_limit = _mm_set1_epi8((char) (-128 + 26));
	const __m128i digit_shift = _mm_set1_epi8((char) (0x80 - '0'));
	const __m128i digit_limit = _mm_set1_epi8((char) (-128 + 10));
	const __m128i lt = _mm_set1_epi8('<');
	const __m128i amp = _mm_set1_epi8('&');
	uint64_t	w = 0;
	uint64_t	sp = 0;

	for (int k = 0; k < NDDUP_BLOCK / 16; k++)
	{
		__m128i		v = _mm_loadu_si128((const __m128i *) (p + 16 * k));
		__m128i		lo = _mm_or_si128(v, case_bit);

		/*
		 * x - lo < n (unsigned) is x + (0x80 - lo) < -128 + n (signed):
		 * letters after setting the case bit, then digits
		 */
		__m128i		letter = _mm_cmplt_epi8(_mm_add_epi8(lo, letter_shift),
											letter_limit);
		__m128i		digit = _mm_cmplt_epi8(_mm_add_epi8(v, digit_shift),
										   digit_limit);
		__m128i		markup = _mm_or_si128(_mm_cmpeq_epi8(v, lt),
										  _mm_cmpeq_epi8(v, amp));

		_mm_storeu_si128((__m128i *) (lower + 16 * k), lo);
		w |= (uint64_t) (uint16_t) _mm_movemask_epi8(_mm_or_si128(letter, digit)) << (16 * k);
		/* the sign bit of v: not ASCII */
		sp |= (uint64_t) (uint16_t) (_mm_movemask_epi8(markup) |
									 _mm_movemask_epi8(v)) << (16 * k);
	}
	*word = w;
	*special = sp;
}
#else
static inline void
nddup_classify_block(const uint8_t *p, uint64_t *word, uint64_t *special,
					 uint8_t *lower)
{
	uint64_t	w = 0;
	uint64_t	sp = 0;

	for (int i = 0; i < NDDUP_BLOCK; i++)
	{
		uint8_t		c = nddup_scan_class[p[i]];

		w |= (uint64_t) (c & NDDUP_SC_WORD) << i;
		sp |= (uint64_t) (c >> 1) << i;
		lower[i] = p[i] | 0x20;
	}
	*word = w;
	*special = sp;
}
#endif

/* Bits 0 .. n - 1 (n <= 64). */
static inline uint64_t
nddup_low_bits(size_t n)
{
	return n >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << n) - 1;
}

#endif							/* NDDUP_ASCII_BLOCK_H */
