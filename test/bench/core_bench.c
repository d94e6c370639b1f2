/*-------------------------------------------------------------------------
 *
 * core_bench.c
 *	  Throughput of the pure-C text pipeline outside the server, for
 *	  test/bench/core_bench.sh: reads documents (a 4-byte little-endian
 *	  length, then the bytes, repeated), runs one function over all of them
 *	  PASSES times and prints the best time and MB/s, with a checksum of the
 *	  results so that two builds can be compared.
 *
 * Usage: core_bench FILE MODE [PASSES]
 * MODE: simhash (word 2-shingles, tf: the SQL default), word1 (tf),
 *	 word3set (set weighting), char5 (tf), normalize.  Only functions that
 *	 every version of the core has, so that versions can be compared.
 *
 *-------------------------------------------------------------------------
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nddup.h"

/* Seconds on the monotonic clock. */
static double
now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

/* A checksum of what one document gives in one mode. */
static uint64_t
run_one(const char *mode, const char *doc, uint32_t n)
{
	if (strcmp(mode, "simhash") == 0)
		return nddup_simhash_text(doc, n, 2, NDDUP_UNIT_WORD, false);
	if (strcmp(mode, "word1") == 0)
		return nddup_simhash_text(doc, n, 1, NDDUP_UNIT_WORD, false);
	if (strcmp(mode, "word3set") == 0)
		return nddup_simhash_text(doc, n, 3, NDDUP_UNIT_WORD, true);
	if (strcmp(mode, "char5") == 0)
		return nddup_simhash_text(doc, n, 5, NDDUP_UNIT_CHAR, false);
	if (strcmp(mode, "normalize") == 0)
	{
		NddupBuf	b = {0};
		uint64_t	h;

		nddup_normalize(doc, n, &b);
		h = nddup_hash_bytes(b.data ? b.data : "", b.len);
		nddup_buf_free(&b);
		return h;
	}
	fprintf(stderr, "core_bench: unknown mode %s\n", mode);
	exit(2);
}

int
main(int argc, char **argv)
{
	FILE	   *f;
	long		size;
	char	   *data;
	int			passes;
	double		best = 1e30;
	uint64_t	sum = 0;
	size_t		bytes = 0;
	size_t		docs = 0;

	if (argc < 3)
	{
		fprintf(stderr, "usage: core_bench FILE MODE [PASSES]\n");
		return 2;
	}
	passes = argc > 3 ? atoi(argv[3]) : 5;
	f = fopen(argv[1], "rb");
	if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 ||
		fseek(f, 0, SEEK_SET) != 0)
	{
		perror(argv[1]);
		return 1;
	}
	data = malloc(size > 0 ? size : 1);
	if (data == NULL || fread(data, 1, size, f) != (size_t) size)
	{
		perror(argv[1]);
		return 1;
	}
	fclose(f);

	for (int p = 0; p < passes; p++)
	{
		double		t0 = now();
		double		t;

		sum = 0;
		bytes = 0;
		docs = 0;
		for (long i = 0; i + 4 <= size;)
		{
			uint32_t	n = (uint32_t) (unsigned char) data[i] |
				(uint32_t) (unsigned char) data[i + 1] << 8 |
				(uint32_t) (unsigned char) data[i + 2] << 16 |
				(uint32_t) (unsigned char) data[i + 3] << 24;

			i += 4;
			if (n > size - i)
				break;
			sum = sum * 1099511628211u + run_one(argv[2], data + i, n);
			i += n;
			bytes += n;
			docs++;
		}
		t = now() - t0;
		if (t < best)
			best = t;
	}
	printf("%-10s %-28s %7zu docs %8.1f MB %9.1f ms %8.1f MB/s  checksum %016llx\n",
		   argv[2], argv[1], docs, bytes / 1e6, best * 1e3, bytes / 1e6 / best,
		   (unsigned long long) sum);
	free(data);
	return 0;
}
