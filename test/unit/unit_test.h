/*-------------------------------------------------------------------------
 *
 * unit_test.h
 *	  Helpers shared by the unit tests of the pure-C core: a CHECK macro
 *	  that counts checks and failures, and a deterministic value stream.
 *
 *-------------------------------------------------------------------------
 */
#ifndef UNIT_TEST_H
#define UNIT_TEST_H

#include <stdint.h>
#include <stdio.h>

/* Count a check in checks; on failure count it in failures and say where. */
#define UNIT_CHECK(checks, failures, cond, ...) \
	do { \
		(checks)++; \
		if (!(cond)) \
		{ \
			(failures)++; \
			fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
			fprintf(stderr, __VA_ARGS__); \
			fputc('\n', stderr); \
		} \
	} while (0)

/* splitmix64: the next value of a deterministic stream of test values. */
static inline uint64_t
unit_splitmix64(uint64_t *state)
{
	uint64_t	z = (*state += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

#endif							/* UNIT_TEST_H */
