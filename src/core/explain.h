/*-------------------------------------------------------------------------
 *
 * explain.h
 *	  Why two texts match: their word shingles, the shared ones, and the
 *	  shared passages as byte ranges of the input texts (src/core/explain.c,
 *	  docs/explain.md).  Pure C, no PostgreSQL include.
 *
 *-------------------------------------------------------------------------
 */
#ifndef NDDUP_EXPLAIN_H
#define NDDUP_EXPLAIN_H

#include "nddup_core.h"

/*
 * A maximal run of consecutive shingles of one text whose hashes are also
 * shingles of the other text: shingles first .. first + count - 1, and the
 * input bytes [start, end) from the first character of its first token to
 * the last character of its last token.
 */
typedef struct NddupPassage
{
	size_t		start;
	size_t		end;
	size_t		first;
	size_t		count;
} NddupPassage;

/* One of the two texts. */
typedef struct NddupExplainSide
{
	uint64_t   *shingles;		/* shingle hashes in text order, repeats kept */
	size_t		nshingles;
	size_t		distinct;		/* distinct shingles, |S(D)| */
	NddupPassage *passages;		/* in text order */
	size_t		npassages;
} NddupExplainSide;

typedef struct NddupExplain
{
	NddupExplainSide a;
	NddupExplainSide b;
	size_t		shared;			/* distinct shingles of both, |S(A) n S(B)| */
} NddupExplain;

/*
 * Explain the texts a[0..alen) and b[0..blen) (UTF-8) with word shingles
 * of size w (1..NDDUP_MAX_SHINGLE_SIZE) of unit NDDUP_UNIT_WORD or
 * NDDUP_UNIT_WORD_JOINED; the shingle hashes are those of
 * nddup_text_shingles.  Returns false (and fills nothing) for another unit
 * or size.  Free the result with nddup_explain_free.
 */
extern bool nddup_explain(const char *a, size_t alen, const char *b, size_t blen,
						  int w, NddupUnit unit, NddupExplain *out);
extern void nddup_explain_free(NddupExplain *e);

/*
 * Merge the passages (in text order) that overlap or touch into disjoint
 * byte ranges, in place (start and end only); returns their number.
 */
extern size_t nddup_merge_passages(NddupPassage *passages, size_t n);

#endif							/* NDDUP_EXPLAIN_H */
