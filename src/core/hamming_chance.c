/*-------------------------------------------------------------------------
 *
 * hamming_chance.c
 *	  How many pairs of unrelated 64-bit fingerprints fall within a Hamming
 *	  radius by chance: the arithmetic behind the warning about unsafe radii
 *	  (docs/trigger.md#unsafe-settings).
 *
 * Two unrelated fingerprints behave like independent uniform 64-bit words
 * (Charikar 2002, section 3: each bit of simhash agrees with probability
 * 1 - theta / pi, one half for unrelated documents), so their distance is
 * Binomial(64, 1/2) and P(d <= r) = sum_{i <= r} C(64, i) / 2^64.  Among n
 * fingerprints there are n (n - 1) / 2 pairs, so the expected number of
 * chance pairs grows with n^2 at a fixed radius.
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>

#include "nddup_core.h"

/* The binomial coefficient C(n, r) as a double (0 outside 0 <= r <= n). */
double
nddup_binomial(int n, int r)
{
	double		result = 1.0;

	if (r < 0 || r > n)
		return 0.0;
	for (int i = 1; i <= r; i++)
		result = result * (n - r + i) / i;
	return result;
}

/* P(d <= radius) for two independent uniform 64-bit words. */
double
nddup_hamming_chance(int radius)
{
	double		binom = 1.0;	/* C(64, i) */
	double		sum = 0.0;

	if (radius < 0)
		return 0.0;
	if (radius >= 64)
		return 1.0;
	for (int i = 0; i <= radius; i++)
	{
		sum += binom;
		binom = binom * (64 - i) / (i + 1);
	}
	return ldexp(sum, -64);
}

/* The expected number of chance pairs within radius among n fingerprints. */
double
nddup_hamming_chance_pairs(double n, int radius)
{
	if (n < 2.0)
		return 0.0;
	return n * (n - 1.0) / 2.0 * nddup_hamming_chance(radius);
}

/* The number of fingerprints at which the expected chance pairs reach 1. */
double
nddup_hamming_chance_rows(int radius)
{
	double		p = nddup_hamming_chance(radius);

	return p > 0.0 ? 0.5 + sqrt(0.25 + 2.0 / p) : INFINITY;
}
