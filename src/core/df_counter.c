/*-------------------------------------------------------------------------
 *
 * df_counter.c
 *	  Document frequencies of shingle hashes within a memory budget: the
 *	  counting behind the shingle_filter aggregate (src/types/filter_sql.c).
 *
 * While the distinct shingles fit in max_entries the counts are exact.
 * When the table is full it is pruned as in lossy counting (Manku and
 * Motwani, "Approximate frequency counts over data streams", VLDB 2002,
 * s.4.2): a floor b is raised until at least half of the entries have a
 * count <= b, those entries are dropped, and a shingle that is seen again
 * starts at b + 1.  Every count is then an upper bound of the truth that
 * exceeds it by at most b, and a shingle whose true count exceeds b is
 * never missing, so "count > cut-off" finds every shingle whose true
 * document frequency exceeds the cut-off as long as b < cut-off.
 *
 * The table is open addressing with linear probing, at most half full; the
 * hash 0 is counted apart (0 marks a free slot).
 *
 *-------------------------------------------------------------------------
 */
#include <stdlib.h>
#include <string.h>

#include "nddup_core.h"

#define DF_INITIAL_CAP		1024
#define DF_HISTOGRAM		1024

/* The slot of key (not 0) in keys[0..cap): where it is, or the free slot. */
static inline size_t
df_slot(const uint64_t *keys, size_t cap, uint64_t key)
{
	size_t		mask = cap - 1;
	size_t		i = (size_t) ((key * UINT64_C(0x9e3779b97f4a7c15)) >> 20) & mask;

	while (keys[i] != 0 && keys[i] != key)
		i = (i + 1) & mask;
	return i;
}

/*
 * Move the entries of c whose count exceeds keep_above into fresh arrays
 * of new_cap slots.
 */
static void
df_rehash(NddupDfCounter *c, size_t new_cap, uint32_t keep_above)
{
	uint64_t   *keys = nddup_realloc_hook(NULL, new_cap * sizeof(uint64_t));
	uint32_t   *counts = nddup_realloc_hook(NULL, new_cap * sizeof(uint32_t));
	size_t		n = 0;

	memset(keys, 0, new_cap * sizeof(uint64_t));
	for (size_t i = 0; i < c->cap; i++)
	{
		if ((i & 0xffff) == 0xffff)
			nddup_check_interrupts();
		if (c->keys[i] != 0 && c->counts[i] > keep_above)
		{
			size_t		s = df_slot(keys, new_cap, c->keys[i]);

			keys[s] = c->keys[i];
			counts[s] = c->counts[i];
			n++;
		}
	}
	nddup_free_hook(c->keys);
	nddup_free_hook(c->counts);
	c->keys = keys;
	c->counts = counts;
	c->cap = new_cap;
	c->n = n;
}

/*
 * Prune a full table: raise the floor to the smallest value at or below
 * which at least half of the entries' counts lie (at most DF_HISTOGRAM
 * above the old floor), and drop those entries.
 */
static void
df_prune(NddupDfCounter *c)
{
	size_t		histogram[DF_HISTOGRAM];
	size_t		below = 0;
	uint32_t	step = DF_HISTOGRAM;

	memset(histogram, 0, sizeof(histogram));
	for (size_t i = 0; i < c->cap; i++)
		if (c->keys[i] != 0)
		{
			uint64_t	d = (uint64_t) c->counts[i] - c->floor - 1;

			if (d < DF_HISTOGRAM)
				histogram[d]++;
		}
	for (uint32_t d = 0; d < DF_HISTOGRAM; d++)
	{
		below += histogram[d];
		if (below * 2 >= c->n)
		{
			step = d + 1;
			break;
		}
	}
	c->floor += step;
	c->pruned++;
	df_rehash(c, c->cap, c->floor);
}

/* An empty counter that holds at most max_entries shingles (at least 16). */
void
nddup_df_init(NddupDfCounter *c, size_t max_entries)
{
	memset(c, 0, sizeof(*c));
	c->max_entries = max_entries < 16 ? 16 : max_entries;
	c->cap = DF_INITIAL_CAP;
	c->keys = nddup_realloc_hook(NULL, c->cap * sizeof(uint64_t));
	c->counts = nddup_realloc_hook(NULL, c->cap * sizeof(uint32_t));
	memset(c->keys, 0, c->cap * sizeof(uint64_t));
}

/* Count one document: its n distinct shingle hashes, in any order. */
void
nddup_df_add_doc(NddupDfCounter *c, const uint64_t *hashes, size_t n)
{
	c->ndocs++;
	for (size_t k = 0; k < n; k++)
	{
		uint64_t	key = hashes[k];
		size_t		i;

		if ((k & (NDDUP_INTERRUPT_STRIDE - 1)) == NDDUP_INTERRUPT_STRIDE - 1)
			nddup_check_interrupts();
		if (key == 0)
		{
			/* never pruned, so counted exactly */
			c->zero_count++;
			c->has_zero = true;
			continue;
		}
		i = df_slot(c->keys, c->cap, key);
		if (c->keys[i] == key)
		{
			c->counts[i]++;
			continue;
		}
		if (c->n >= c->max_entries)
		{
			df_prune(c);
			i = df_slot(c->keys, c->cap, key);
		}
		else if ((c->n + 1) * 2 > c->cap)
		{
			df_rehash(c, c->cap * 2, 0);
			i = df_slot(c->keys, c->cap, key);
		}
		c->keys[i] = key;
		c->counts[i] = c->floor + 1;
		c->n++;
	}
}

/* Ascending order of 64-bit hashes, for qsort. */
static int
compare_hashes(const void *a, const void *b)
{
	uint64_t	x = *(const uint64_t *) a;
	uint64_t	y = *(const uint64_t *) b;

	return x < y ? -1 : x > y;
}

/*
 * The hashes whose counted document frequency exceeds cutoff, ascending
 * (allocated through the hooks; the caller frees), and their number in *n.
 */
uint64_t *
nddup_df_frequent(const NddupDfCounter *c, int64_t cutoff, size_t *n)
{
	uint64_t   *out = nddup_realloc_hook(NULL, (c->n + 1) * sizeof(uint64_t));
	size_t		m = 0;

	if (c->has_zero && (int64_t) c->zero_count > cutoff)
		out[m++] = 0;
	for (size_t i = 0; i < c->cap; i++)
		if (c->keys[i] != 0 && (int64_t) c->counts[i] > cutoff)
			out[m++] = c->keys[i];
	qsort(out, m, sizeof(uint64_t), compare_hashes);
	*n = m;
	return out;
}

/* Release the counter's arrays. */
void
nddup_df_free(NddupDfCounter *c)
{
	nddup_free_hook(c->keys);
	nddup_free_hook(c->counts);
	c->keys = NULL;
	c->counts = NULL;
}
