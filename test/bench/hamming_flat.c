/*
 * hamming_flat.c: the fingerprints of test/bench/hamming_curve.sh and the
 * flat in-memory popcount scan it compares the hamming index with.
 *
 *   hamming_flat gen N          COPY BINARY rows (id int8, fp simhash64) to
 *                               stdout: ids 1..N, 90 % uniform, 10 % planted
 *                               1-6-bit variants of one of the 9 rows before
 *   hamming_flat centers N NQ   the query centers, "qid kind hex" a line:
 *                               NQ existing rows spread over the ids (10 %
 *                               of them planted variants), kind "near", and
 *                               NQ uniform fingerprints not drawn from the
 *                               table, kind "far"
 *   hamming_flat scan N NQ R... every fingerprint in one array in memory,
 *                               then on one core, per center: the count of
 *                               rows within each radius R (near centers) and
 *                               the distance of the 10th nearest row (near
 *                               and far centers) by a pass over the array;
 *                               prints "flat MEASURE p50 p99 mean" (ms) and
 *                               "answer MEASURE qid value" lines
 *
 * The generator is a pure function of the id (splitmix64), so that the
 * server and this program see the same rows without exchanging them.
 */
#define _POSIX_C_SOURCE 199309L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SEED_ROWS	UINT64_C(0x6e64647570313030)
#define SEED_FLIPS	UINT64_C(0x9e3779b97f4a7c15)
#define SEED_FAR	UINT64_C(0x666172666172)

/* One step of splitmix64 on x. */
static uint64_t
mix(uint64_t x)
{
	x += UINT64_C(0x9e3779b97f4a7c15);
	x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
	return x ^ (x >> 31);
}

/* The fingerprint of row id (ids from 1). */
static uint64_t
row_fp(uint64_t id)
{
	uint64_t	src,
				fp,
				r;
	int			nflip;

	if (id % 10 != 0)
		return mix(id ^ SEED_ROWS);
	/* a planted variant of one of the 9 rows before (none a multiple of 10) */
	src = id - 1 - (id / 10) % 9;
	fp = mix(src ^ SEED_ROWS);
	r = mix(id ^ SEED_FLIPS);
	nflip = 1 + (int) (id % 6);
	for (int k = 0; k < nflip; k++)
		fp ^= UINT64_C(1) << ((r >> (6 * k)) & 63);
	return fp;
}

/* The id of near center q of nq over n rows. */
static uint64_t
center_id(uint64_t n, int nq, int q)
{
	uint64_t	step = n / (uint64_t) nq;

	return 1 + (uint64_t) q * step + (uint64_t) (q % 10);
}

/* Write v big-endian in len bytes. */
static void
put_be(FILE *f, uint64_t v, int len)
{
	unsigned char b[8];

	for (int i = 0; i < len; i++)
		b[i] = (unsigned char) (v >> (8 * (len - 1 - i)));
	fwrite(b, 1, (size_t) len, f);
}

/* COPY BINARY of rows 1..n to stdout. */
static void
gen(uint64_t n)
{
	static char buf[1 << 20];

	setvbuf(stdout, buf, _IOFBF, sizeof(buf));
	fwrite("PGCOPY\n\377\r\n\0", 1, 11, stdout);
	put_be(stdout, 0, 4);
	put_be(stdout, 0, 4);
	for (uint64_t id = 1; id <= n; id++)
	{
		put_be(stdout, 2, 2);
		put_be(stdout, 8, 4);
		put_be(stdout, id, 8);
		put_be(stdout, 8, 4);
		put_be(stdout, row_fp(id), 8);
	}
	put_be(stdout, 0xffff, 2);
}

/* The center of a query: near (existing row) or far. */
static uint64_t
center_fp(uint64_t n, int nq, int q, int far)
{
	return far ? mix((uint64_t) q ^ SEED_FAR) : row_fp(center_id(n, nq, q));
}

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int
cmp_double(const void *a, const void *b)
{
	double		x = *(const double *) a,
				y = *(const double *) b;

	return (x > y) - (x < y);
}

/* Print p50, p99 and mean of ms[0..nq) under the label. */
static void
report(const char *label, double *ms, int nq)
{
	double		sum = 0;
	int			i99 = (int) (0.99 * (nq - 1) + 0.5);

	for (int i = 0; i < nq; i++)
		sum += ms[i];
	qsort(ms, (size_t) nq, sizeof(double), cmp_double);
	printf("flat %s %.4f %.4f %.4f\n", label,
		   (nq % 2) ? ms[nq / 2] : (ms[nq / 2 - 1] + ms[nq / 2]) / 2,
		   ms[i99], sum / nq);
}

/* Rows of fps[0..n) within r bits of q. */
static uint64_t
count_within(const uint64_t *fps, uint64_t n, uint64_t q, int r)
{
	uint64_t	c = 0;

	for (uint64_t i = 0; i < n; i++)
		c += __builtin_popcountll(fps[i] ^ q) <= r;
	return c;
}

/* The distance of the 10th nearest row of fps[0..n) to q. */
static int
tenth_distance(const uint64_t *fps, uint64_t n, uint64_t q)
{
	int			best[10];
	int			worst = 65;

	for (int k = 0; k < 10; k++)
		best[k] = 65;
	for (uint64_t i = 0; i < n; i++)
	{
		int			d = __builtin_popcountll(fps[i] ^ q);

		if (d < worst)
		{
			/* replace the largest of the 10, find the new largest */
			int			at = 0;

			for (int k = 1; k < 10; k++)
				if (best[k] > best[at])
					at = k;
			best[at] = d;
			worst = 0;
			for (int k = 0; k < 10; k++)
				if (best[k] > worst)
					worst = best[k];
		}
	}
	return worst;
}

/* The flat scans of every center. */
static void
scan(uint64_t n, int nq, int nradii, char **radii)
{
	uint64_t   *fps = malloc(n * sizeof(uint64_t));
	double	   *ms = malloc((size_t) nq * sizeof(double));
	long	   *ans = malloc((size_t) nq * sizeof(long));
	double		t0;
	char		label[32];

	if (fps == NULL || ms == NULL || ans == NULL)
	{
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
	for (uint64_t id = 1; id <= n; id++)
		fps[id - 1] = row_fp(id);
	for (int a = 0; a < nradii; a++)
	{
		int			r = atoi(radii[a]);

		for (int q = 0; q < nq; q++)
		{
			uint64_t	c = center_fp(n, nq, q, 0);

			t0 = now_ms();
			ans[q] = (long) count_within(fps, n, c, r);
			ms[q] = now_ms() - t0;
		}
		snprintf(label, sizeof(label), "radius_%d", r);
		report(label, ms, nq);
		for (int q = 0; q < nq; q++)
			printf("answer %s %d %ld\n", label, q + 1, ans[q]);
	}
	for (int far = 0; far <= 1; far++)
	{
		for (int q = 0; q < nq; q++)
		{
			uint64_t	c = center_fp(n, nq, q, far);

			t0 = now_ms();
			ans[q] = tenth_distance(fps, n, c);
			ms[q] = now_ms() - t0;
		}
		snprintf(label, sizeof(label), "nearest10_%s", far ? "far" : "near");
		report(label, ms, nq);
		for (int q = 0; q < nq; q++)
			printf("answer %s %d %ld\n", label, q + 1, ans[q]);
	}
	free(fps);
	free(ms);
	free(ans);
}

int
main(int argc, char **argv)
{
	if (argc >= 3 && strcmp(argv[1], "gen") == 0)
		gen(strtoull(argv[2], NULL, 10));
	else if (argc >= 4 && strcmp(argv[1], "centers") == 0)
	{
		uint64_t	n = strtoull(argv[2], NULL, 10);
		int			nq = atoi(argv[3]);

		for (int far = 0; far <= 1; far++)
			for (int q = 0; q < nq; q++)
				printf("%d\t%s\t%016llx\n", q + 1, far ? "far" : "near",
					   (unsigned long long) center_fp(n, nq, q, far));
	}
	else if (argc >= 4 && strcmp(argv[1], "scan") == 0)
		scan(strtoull(argv[2], NULL, 10), atoi(argv[3]), argc - 4, argv + 4);
	else
	{
		fprintf(stderr, "usage: %s gen N | centers N NQ | scan N NQ RADIUS...\n", argv[0]);
		return 2;
	}
	return 0;
}
