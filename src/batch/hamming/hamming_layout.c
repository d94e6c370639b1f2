/*-------------------------------------------------------------------------
 *
 * hamming_layout.c
 *	  The layouts of the permuted tables of the Hamming batch functions and
 *	  the cost model that chooses one (Manku, Jain and Das Sarma, WWW 2007,
 *	  s.3; hamming-search-math.md).
 *
 * The 64 bits are cut into m blocks, m > k (the first 64 mod m blocks one
 * bit wider); two fingerprints within k bits agree exactly on at least
 * c = m - k blocks (pigeonhole), so there is one table per choice of c
 * blocks, C(m, c) tables, each keyed by the concatenated bits of its blocks.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "batch/hamming/hamming_batch.h"

/* Fill a layout of m blocks (the first 64 mod m one bit wider) for radius k. */
static void
make_layout(HammingLayout *L, int m, int k)
{
	int			small = 64 / m;
	int			nbig = 64 % m;
	int			pos = 0;		/* bits used from the top */

	L->m = m;
	L->c = m - k;
	L->ntables = nddup_binomial(m, L->c);
	for (int b = 0; b < m; b++)
	{
		int			size = small + (b < nbig ? 1 : 0);

		L->bsize[b] = size;
		L->bshift[b] = 64 - pos - size;
		L->blow[b] = size >= 64 ? ~UINT64CONST(0) : (UINT64CONST(1) << size) - 1;
		L->bmask[b] = L->blow[b] << L->bshift[b];
		pos += size;
	}
}

/*
 * Model cost of the tables of one layout over n distinct fingerprints
 * (Manku s.3: a table with a p-bit prefix leaves about n^2 / 2^(p+1)
 * candidate pairs among uniform fingerprints, hamming-search-math.md).  The
 * prefix of a table depends on how many of its c blocks are the wider ones;
 * in memory it is cut to the bits left beside the row number.  clusters:
 * hamming_clusters' own costs through temporary files.
 */
static double
layout_cost(const HammingLayout *L, double n, bool spill, bool clusters,
			int maxprefix)
{
	int			small = 64 / L->m;
	int			nbig = 64 % L->m;
	double		cost = 0;

	for (int j = 0; j <= Min(nbig, L->c); j++)
	{
		double		tables = nddup_binomial(nbig, j) * nddup_binomial(L->m - nbig, L->c - j);
		int			p = j * (small + 1) + (L->c - j) * small;
		double		per;

		if (tables <= 0)
			continue;
		p = Min(p, maxprefix);
		if (spill && clusters)
			per = n * COST_SPILL_CLUSTER_ROW +
				n * n / 2.0 / pow(2.0, p) * COST_SPILL_CLUSTER_CANDIDATE;
		else if (spill)
			per = n * COST_SPILL_ROW + n * n / 2.0 / pow(2.0, p) * COST_CANDIDATE;
		else
			per = n * (COST_RADIX_PASS * ((p + 10) / 11) + COST_TABLE_SCAN) +
				n * n / 2.0 / pow(2.0, p) * COST_CANDIDATE;
		cost += tables * per;
	}
	return cost;
}

/*
 * Check a number of blocks forced by nddup.batch_blocks for radius k: more
 * than k (pigeonhole), and no more tables (C(m, m - k)) than the cost model
 * considers, MAX_TABLES; beyond that the tables are too many to help (at
 * radius 12, 64 blocks would be 3.3e12 tables).  22023 otherwise.
 */
void
hamming_check_forced_blocks(int m, int k)
{
	double		tables;

	if (m <= k || m > 64)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("nddup.batch_blocks must be between the radius + 1 and 64, or 0"),
				 errdetail("It is %d and the radius is %d.", m, k)));
	tables = nddup_binomial(m, m - k);
	if (tables > MAX_TABLES)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("nddup.batch_blocks = %d makes %.0f tables at radius %d", m, tables, k),
				 errdetail("A layout has at most %.0f tables, as the cost model's.", MAX_TABLES),
				 errhint("Use fewer blocks, or 0 to let the cost model choose.")));
}

/*
 * Choose the layout for the radius over n distinct fingerprints: every m
 * from k + 1 to 64 (tables choose m - k blocks, Manku s.3) against
 * comparing all pairs (m = 0), cheapest by the model.  nddup.batch_blocks
 * forces m.  The spilled path never compares all pairs in one run.
 */
void
hamming_choose_layout(HammingBatch *hb, double n, bool spill, int maxprefix)
{
	HammingLayout *L = &hb->layout;
	int			k = hb->radius;
	double		best = n * n / 2.0 * COST_CANDIDATE + n;
	int			bestm = 0;

	/* hamming_clusters' own path through temporary files (hamming_spill.c) */
	bool		clusters = spill && hb->call->mode == BATCH_CLUSTER &&
		!hb->verify.active;

	if (nddup_batch_blocks != 0)
	{
		hamming_check_forced_blocks(nddup_batch_blocks, k);
		make_layout(L, nddup_batch_blocks, k);
		L->cost = layout_cost(L, n, spill, clusters, maxprefix);
		return;
	}
	if (k == 0)
	{
		make_layout(L, 1, 0);
		L->cost = n;
		return;
	}
	if (spill && k < 64)
		best = -1;
	for (int m = k + 1; m <= 64; m++)
	{
		HammingLayout cand;
		double		cost;

		if (nddup_binomial(m, m - k) > MAX_TABLES)
			continue;
		make_layout(&cand, m, k);
		cost = layout_cost(&cand, n, spill, clusters, maxprefix);
		if (best < 0 || cost < best)
		{
			best = cost;
			bestm = m;
		}
	}
	if (bestm == 0)
	{
		memset(L, 0, sizeof(*L));
		L->ntables = 1;
		L->cost = best;
		return;
	}
	make_layout(L, bestm, k);
	L->cost = best;
}

/* First table (combination of c blocks out of m, ascending). */
void
hamming_first_table(const HammingLayout *L, int *sel)
{
	for (int i = 0; i < L->c; i++)
		sel[i] = i;
}

/* Advance to the next combination; false after the last one. */
bool
hamming_next_table(const HammingLayout *L, int *sel)
{
	int			i;

	for (i = L->c - 1; i >= 0; i--)
	{
		if (sel[i] < L->m - L->c + i)
			break;
	}
	if (i < 0)
		return false;
	sel[i]++;
	for (int j = i + 1; j < L->c; j++)
		sel[j] = sel[j - 1] + 1;
	return true;
}

/* Bit set of the blocks of a table. */
uint64
hamming_table_blockset(const HammingLayout *L, const int *sel)
{
	uint64		set = 0;

	for (int i = 0; i < L->c; i++)
		set |= UINT64CONST(1) << sel[i];
	return set;
}

/* Prefix bits of a table. */
int
hamming_table_prefix_bits(const HammingLayout *L, const int *sel)
{
	int			p = 0;

	for (int i = 0; i < L->c; i++)
		p += L->bsize[sel[i]];
	return p;
}
