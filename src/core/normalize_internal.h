/*-------------------------------------------------------------------------
 *
 * normalize_internal.h
 *	  The driver of the normalizer (normalize.c), shared with its entry
 *	  points (normalize_calls.c).  Not part of the core's interface.
 *
 *-------------------------------------------------------------------------
 */
#ifndef NDDUP_NORMALIZE_INTERNAL_H
#define NDDUP_NORMALIZE_INTERNAL_H

#include "nddup_core.h"

/*
 * Normalize src[from..len) into out (raw: NFKC only; joined: connector
 * punctuation is a word character), stopping at the first safe position at
 * or after stop_after; *no_gt_from is the markup parser's memory; drain, if
 * not NULL, is handed out every nddup_stream_chunk bytes; map, if not NULL,
 * records the source bytes of each output byte.  Returns the stop position.
 */
extern size_t nddup_normalize_internal(const char *src, size_t from, size_t len,
									   size_t stop_after, NddupBuf *out, bool raw,
									   bool joined, const uint8_t **no_gt_from,
									   NddupNormDrain drain, void *drain_arg,
									   NddupSourceMap *map);

#endif							/* NDDUP_NORMALIZE_INTERNAL_H */
