/*-------------------------------------------------------------------------
 *
 * hashset.c
 *	  Sorted sets of 64-bit shingle hashes (unsigned order): sorting with
 *	  duplicates removed, Broder's mod-m sample, intersections and the
 *	  bottom-s comparison of two samples (Broder et al. 1997).
 *
 *-------------------------------------------------------------------------
 */
#include <string.h>

#include "nddup_core.h"

/* Insertion sort of a short run. */
static void
insertion_sort(uint64_t *items, size_t n)
{
	for (size_t i = 1; i < n; i++)
	{
		uint64_t	x = items[i];
		size_t		j = i;

		while (j > 0 && items[j - 1] > x)
		{
			items[j] = items[j - 1];
			j--;
		}
		items[j] = x;
	}
}

/* LSD radix sort, 8 passes of 8 bits (passes where all digits agree skipped). */
static void
radix_sort(uint64_t *items, size_t n)
{
	uint64_t   *tmp = nddup_realloc_hook(NULL, n * sizeof(uint64_t));
	size_t		counts[8][256];
	uint64_t   *src = items;
	uint64_t   *dst = tmp;

	memset(counts, 0, sizeof(counts));
	for (size_t i = 0; i < n; i++)
	{
		if (i % NDDUP_INTERRUPT_STRIDE == NDDUP_INTERRUPT_STRIDE - 1)
			nddup_check_interrupts();
		for (int pass = 0; pass < 8; pass++)
			counts[pass][(items[i] >> (8 * pass)) & 0xff]++;
	}
	for (int pass = 0; pass < 8; pass++)
	{
		size_t		offset = 0;
		size_t	   *c = counts[pass];
		uint64_t   *swap;

		if (c[(items[0] >> (8 * pass)) & 0xff] == n)
			continue;			/* every item has the same digit */
		for (int d = 0; d < 256; d++)
		{
			size_t		cnt = c[d];

			c[d] = offset;
			offset += cnt;
		}
		for (size_t i = 0; i < n; i++)
		{
			if (i % NDDUP_INTERRUPT_STRIDE == NDDUP_INTERRUPT_STRIDE - 1)
				nddup_check_interrupts();
			dst[c[(src[i] >> (8 * pass)) & 0xff]++] = src[i];
		}
		swap = src;
		src = dst;
		dst = swap;
	}
	if (src != items)
		memcpy(items, src, n * sizeof(uint64_t));
	nddup_free_hook(tmp);
}

/* Sort items in unsigned order and remove repeats; returns the new count. */
size_t
nddup_sort_unique(uint64_t *items, size_t n)
{
	size_t		out = 0;

	if (n < 2)
		return n;
	if (n <= 48)
		insertion_sort(items, n);
	else
		radix_sort(items, n);
	for (size_t i = 0; i < n; i++)
		if (out == 0 || items[i] != items[out - 1])
			items[out++] = items[i];
	return out;
}

/* Keep the items that are 0 mod m (Broder's MOD_m), in order; returns the count. */
size_t
nddup_filter_mod(uint64_t *items, size_t n, uint64_t m)
{
	size_t		out = 0;

	if (m <= 1)
		return n;
	for (size_t i = 0; i < n; i++)
		if (items[i] % m == 0)
			items[out++] = items[i];
	return out;
}

/* |A intersect B| of two sorted distinct sets. */
size_t
nddup_intersection_count(const uint64_t *a, size_t na,
						 const uint64_t *b, size_t nb)
{
	size_t		i = 0,
				j = 0,
				common = 0,
				steps = 0;

	while (i < na && j < nb)
	{
		if (++steps % NDDUP_INTERRUPT_STRIDE == 0)
			nddup_check_interrupts();
		if (a[i] < b[j])
			i++;
		else if (a[i] > b[j])
			j++;
		else
		{
			common++;
			i++;
			j++;
		}
	}
	return common;
}

/*
 * Broder's resemblance estimate from two bottom-s sketches: walk
 * U = MIN_s(F(A) union F(B)) in order; *total = |U|, *common = the members
 * of U that are in both F(A) and F(B).
 */
void
nddup_bottom_s_compare(const uint64_t *a, size_t na,
					   const uint64_t *b, size_t nb, size_t s,
					   size_t *common, size_t *total)
{
	size_t		i = 0,
				j = 0,
				c = 0,
				t = 0;

	while (t < s && (i < na || j < nb))
	{
		if ((t & (NDDUP_INTERRUPT_STRIDE - 1)) == NDDUP_INTERRUPT_STRIDE - 1)
			nddup_check_interrupts();
		if (j >= nb || (i < na && a[i] < b[j]))
			i++;
		else if (i >= na || b[j] < a[i])
			j++;
		else
		{
			c++;
			i++;
			j++;
		}
		t++;
	}
	*common = c;
	*total = t;
}

/* Binary search of x in a sorted distinct set. */
bool
nddup_sorted_contains(const uint64_t *items, size_t n, uint64_t x)
{
	size_t		lo = 0,
				hi = n;

	while (lo < hi)
	{
		size_t		mid = lo + (hi - lo) / 2;

		if (items[mid] < x)
			lo = mid + 1;
		else if (items[mid] > x)
			hi = mid;
		else
			return true;
	}
	return false;
}
