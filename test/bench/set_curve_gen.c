/*
 * set_curve_gen.c: the short texts of test/bench/set_curve.sh.
 *
 *   set_curve_gen FIRST LAST   COPY text rows "id<TAB>body<TAB>source" to
 *                              stdout for ids FIRST..LAST
 *
 * A text is 4-12 words drawn from a vocabulary of 50,000 made-up words
 * (rank r is 1-3 syllables spelling r in base 100, so the frequent words
 * are short) with a Zipf-like law: rank = floor(V^u) - 1 for u uniform in
 * [0, 1), a density about 1/r.  10 % of the ids (never id 1) are planted
 * near-copies of an earlier id that is not itself a copy: its words with
 * one word changed, added or removed (the column source holds that id,
 * else \N).  Every row is a pure function of its id (splitmix64), so that
 * rows above N (the trigger's inserts) follow the same law.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VOCAB		50000
#define MAX_WORDS	13
#define SEED_TEXT	UINT64_C(0x7365746375727665)
#define SEED_COPY	UINT64_C(0x636f707963757276)
#define SEED_SRC	UINT64_C(0x7372636375727665)
#define SEED_EDIT	UINT64_C(0x6564697463757276)

/* One step of splitmix64 on x. */
static uint64_t
mix(uint64_t x)
{
	x += UINT64_C(0x9e3779b97f4a7c15);
	x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
	return x ^ (x >> 31);
}

/* A uniform double in [0, 1) from a hash. */
static double
unit(uint64_t h)
{
	return (double) (h >> 11) * (1.0 / 9007199254740992.0);
}

/* A Zipf-like rank in [0, VOCAB) from a hash. */
static int
zipf_rank(uint64_t h)
{
	static double logv = 0;
	int			r;

	if (logv == 0)
		logv = log((double) VOCAB + 1);
	r = (int) exp(unit(h) * logv) - 1;
	return r < 0 ? 0 : (r >= VOCAB ? VOCAB - 1 : r);
}

/* Whether id is a planted near-copy. */
static int
is_copy(uint64_t id)
{
	return id > 1 && mix(id ^ SEED_COPY) % 10 == 0;
}

/* The base words (ranks) of id; returns their count. */
static int
base_words(uint64_t id, int *w)
{
	uint64_t	h = mix(id ^ SEED_TEXT);
	int			n = 4 + (int) (h % 9);

	for (int i = 0; i < n; i++)
		w[i] = zipf_rank(mix(h + (uint64_t) i + 1));
	return n;
}

/* The words of id (a copy: its source's words, edited once); *src = source id or 0. */
static int
row_words(uint64_t id, int *w, uint64_t *src)
{
	uint64_t	j,
				h;
	int			n,
				p,
				op;

	*src = 0;
	if (!is_copy(id))
		return base_words(id, w);
	j = 1 + mix(id ^ SEED_SRC) % (id - 1);
	while (is_copy(j))
		j = 1 + mix(j ^ SEED_SRC ^ id) % (j - 1);
	*src = j;
	n = base_words(j, w);
	h = mix(id ^ SEED_EDIT);
	op = (int) (h % 3);
	if (op == 2 && n <= 4)
		op = 0;
	p = (int) ((h >> 8) % (uint64_t) (op == 1 ? n + 1 : n));
	if (op == 0)				/* change word p (to a different word) */
	{
		int			r = zipf_rank(mix(h));

		w[p] = r == w[p] ? (r + 1) % VOCAB : r;
	}
	else if (op == 1)			/* add a word before position p */
	{
		memmove(w + p + 1, w + p, sizeof(int) * (size_t) (n - p));
		w[p] = zipf_rank(mix(h));
		n++;
	}
	else						/* remove word p */
	{
		memmove(w + p, w + p + 1, sizeof(int) * (size_t) (n - p - 1));
		n--;
	}
	return n;
}

/* Append the word of rank r to out; returns the new end. */
static char *
put_word(char *out, int r)
{
	static const char cons[] = "bcdfghjklmnpqrstvwxz";
	static const char vow[] = "aeiou";
	int			d[3],
				k = 0;

	do
	{
		d[k++] = r % 100;
		r /= 100;
	} while (r > 0);
	while (k-- > 0)
	{
		*out++ = cons[d[k] / 5];
		*out++ = vow[d[k] % 5];
	}
	return out;
}

int
main(int argc, char **argv)
{
	uint64_t	first,
				last;
	char		line[256];
	int			w[MAX_WORDS];

	if (argc != 3)
	{
		fprintf(stderr, "usage: %s FIRST LAST\n", argv[0]);
		return 2;
	}
	first = strtoull(argv[1], NULL, 10);
	last = strtoull(argv[2], NULL, 10);
	if (first < 1)
		first = 1;
	for (uint64_t id = first; id <= last; id++)
	{
		uint64_t	src;
		int			n = row_words(id, w, &src);
		char	   *o = line + sprintf(line, "%llu\t", (unsigned long long) id);

		for (int i = 0; i < n; i++)
		{
			if (i > 0)
				*o++ = ' ';
			o = put_word(o, w[i]);
		}
		if (src)
			sprintf(o, "\t%llu\n", (unsigned long long) src);
		else
			strcpy(o, "\t\\N\n");
		fputs(line, stdout);
	}
	return ferror(stdout) ? 1 : 0;
}
