/*-------------------------------------------------------------------------
 *
 * normalize_calls.c
 *	  The entry points of the normalizer (normalize.c): the whole text, the
 *	  unit 'word_' (connector punctuation kept), NFKC alone, a part of a
 *	  text, a stream handed to a drain chunk by chunk, the normalized length
 *	  measured in a chunk of memory, and the form with a source map
 *	  (nddup_explain).  See docs/text-pipeline.md.
 *
 *-------------------------------------------------------------------------
 */
#include <string.h>

#include "nddup_core.h"
#include "normalize_internal.h"

/*
 * The whole of src[0..len) appended to out: NFKC alone (nfkc), connector
 * punctuation kept (joined), source bytes recorded in map (unless NULL).
 */
static void
normalize_whole(const char *src, size_t len, NddupBuf *out, bool nfkc, bool joined,
				NddupSourceMap *map)
{
	const uint8_t *no_gt_from = NULL;

	nddup_normalize_internal(src, 0, len, len, out, nfkc, joined, &no_gt_from,
							 NULL, NULL, map);
}

/*
 * Append to out the normalized form of the UTF-8 text src[0..len): markup
 * removed, NFKC, case folded, words separated by single spaces.
 */
void
nddup_normalize(const char *src, size_t len, NddupBuf *out)
{
	normalize_whole(src, len, out, false, false, NULL);
}

/*
 * The same with connector punctuation (General Category Pc: _ and its
 * compatibility forms, which NFKC maps to _, and U+203F, U+2040, U+2054)
 * kept as word characters: the text of the unit 'word_'.  Every character
 * goes through the general path (the ASCII fast path reads _ as a
 * separator).
 */
void
nddup_normalize_joined(const char *src, size_t len, NddupBuf *out)
{
	normalize_whole(src, len, out, false, true, NULL);
}

/*
 * nddup_normalize (joined: nddup_normalize_joined) that also records in map
 * the source bytes of each output byte: [map->start[i], map->end[i]) is the
 * smallest run of whole input characters (a UTF-8 sequence, a character
 * reference, one ASCII byte) whose normalization gave output byte i (the
 * same for every byte that a composition or a decomposition makes from the
 * same characters; a space gets the range of the word character after it).
 * map must be zeroed or reused; free it with nddup_source_map_free.  The
 * ASCII fast path is not taken, which does not change the output.
 */
void
nddup_normalize_mapped(const char *src, size_t len, bool joined, NddupBuf *out,
					   NddupSourceMap *map)
{
	normalize_whole(src, len, out, false, joined, map);
}

/* Free the arrays of a source map. */
void
nddup_source_map_free(NddupSourceMap *map)
{
	if (map->start != NULL)
		nddup_free_hook(map->start);
	if (map->end != NULL)
		nddup_free_hook(map->end);
	map->start = map->end = NULL;
	map->cap = 0;
}

/*
 * Append to out the NFKC form of the UTF-8 text src[0..len) (invalid
 * sequences as U+FFFD), without markup removal, case folding or word
 * splitting.  For tests against NormalizationTest.txt.
 */
void
nddup_nfkc(const char *src, size_t len, NddupBuf *out)
{
	normalize_whole(src, len, out, true, false, NULL);
}

/*
 * Append to out the normalized form of src[from..stop), where stop is the
 * return value: the first position at or after stop_after that holds a
 * plain ASCII separator (not '<' or '&') followed by ASCII bytes, or len.
 * Markup that starts before stop may extend to len, as in nddup_normalize.
 *
 * from must be a position where nddup_normalize(src, len) starts a
 * character at its top level with an empty composition segment: 0, or a
 * byte that it reads as an ASCII separator (literal, or the '<' of markup
 * that stands for a separator, or the '&' of a reference to one).  Then the
 * words of the result are exactly the words that nddup_normalize(src, len)
 * writes for src[from..stop): an ASCII separator flushes the segment and
 * never composes with what precedes it, so nothing before from changes
 * them, and the separator at stop ends the last of them.  *no_gt_from is
 * the memory of the markup parser, shared by the calls on one text (NULL at
 * first).
 */
size_t
nddup_normalize_part(const char *src, size_t len, size_t from,
					 size_t stop_after, NddupBuf *out, const char **no_gt_from)
{
	const uint8_t *no_gt = (const uint8_t *) *no_gt_from;
	size_t		stop = nddup_normalize_internal(src, from, len, stop_after, out,
												false, false, &no_gt, NULL, NULL, NULL);

	*no_gt_from = (const char *) no_gt;
	return stop;
}

/*
 * nddup_normalize_part (joined false) or a part of nddup_normalize_joined
 * (joined true; from 0 only), handing out to drain whenever it has grown by
 * nddup_stream_chunk bytes: what drain removes from the front of out is
 * gone, the rest is appended to.  Returns the stop position as
 * nddup_normalize_part does.
 */
size_t
nddup_normalize_stream(const char *src, size_t len, size_t from,
					   size_t stop_after, bool joined, NddupBuf *out,
					   const char **no_gt_from, NddupNormDrain drain,
					   void *drain_arg)
{
	const uint8_t *no_gt = (const uint8_t *) *no_gt_from;
	size_t		stop = nddup_normalize_internal(src, from, len, stop_after, out,
												false, joined, &no_gt, drain,
												drain_arg, NULL);

	*no_gt_from = (const char *) no_gt;
	return stop;
}

/* An NddupNormDrain that counts the bytes of out in the size_t at arg and forgets them. */
static void
count_drain(void *arg, NddupBuf *out)
{
	*(size_t *) arg += out->len;
	out->len = 0;
}

/*
 * The length in bytes of nddup_normalize(src, len), computed with a chunk
 * of memory: so that a caller that must hold the whole normalized text can
 * refuse one over its limit before allocating it.
 */
size_t
nddup_normalized_length(const char *src, size_t len)
{
	NddupBuf	out = {0};
	const char *no_gt_from = NULL;
	size_t		count = 0;

	nddup_normalize_stream(src, len, 0, len, false, &out, &no_gt_from,
						   count_drain, &count);
	count += out.len;
	nddup_buf_free(&out);
	return count;
}
