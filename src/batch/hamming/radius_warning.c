/*-------------------------------------------------------------------------
 *
 * radius_warning.c
 *	  The warning about a Hamming radius that pairs unrelated rows, given by
 *	  nddup_check_trigger() for method=simhash without verify= and by
 *	  hamming_pairs() and hamming_clusters() without verify
 *	  (docs/trigger.md#unsafe-settings).
 *
 * The rule: warn when the expected number of chance pairs among n
 * unrelated fingerprints (src/core/hamming_chance.c) is at least 1, or when
 * the texts average fewer than NDDUP_SHORT_TEXT_BYTES bytes (about 10
 * words), where simhash at the usual radii pairs unrelated texts
 * (docs/reports/bench-trigger-verify.md: 29 % of radius-12 pairs of
 * one-line package synopses share no real text).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "nddup.h"

#include "lib/stringinfo.h"

/*
 * Warn about radius over n fingerprints (avg_bytes the texts' average
 * length, or a negative number when unknown); subject names the check (for
 * the message), hint says what to use instead.  Returns whether it warned.
 */
bool
nddup_warn_chance_pairs(const char *subject, double n, int radius, double avg_bytes,
						const char *hint)
{
	double		pairs = nddup_hamming_chance_pairs(n, radius);
	bool		crowded = pairs >= 1.0;
	bool		short_texts = avg_bytes >= 0.0 && avg_bytes < NDDUP_SHORT_TEXT_BYTES;
	StringInfoData detail;

	if (!crowded && !short_texts)
		return false;
	initStringInfo(&detail);
	appendStringInfo(&detail,
					 "Among %.0f rows, about %.3g pairs of unrelated 64-bit fingerprints fall within Hamming distance %d by chance (%.3g per pair); at least one is expected from %.0f rows on.",
					 Max(n, 0.0), pairs, radius, nddup_hamming_chance(radius),
					 ceil(nddup_hamming_chance_rows(radius)));
	if (short_texts)
		appendStringInfo(&detail,
						 " The texts average %.0f bytes: on texts shorter than %d bytes simhash pairs unrelated texts at any size.",
						 avg_bytes, NDDUP_SHORT_TEXT_BYTES);
	ereport(WARNING,
			(errmsg("%s: radius %d pairs unrelated rows by chance", subject, radius),
			 errdetail_internal("%s", detail.data),
			 errhint("%s", hint)));
	return true;
}
