/*-------------------------------------------------------------------------
 *
 * sketch_memory.c
 *	  The in-memory path of the sketch batch functions.
 *
 * Candidates come from locality-sensitive bands: the k positions of a
 * sketch are cut into b bands of r consecutive positions, every row is
 * entered once per band under a hash of the band's values, the entries of a
 * band are sorted and every run of equal keys is a set of candidates
 * (Broder et al. 1997 s.3, "sort <shingle, docID>", with a band of r
 * min-hash values as the shingle).  Each candidate is verified with the
 * estimate itself (the share of equal positions, as jaccard() computes it).
 *
 * Exactness (the default): a pair whose estimate reaches t has at least
 * E = the smallest count of equal positions whose estimate is >= t, so at
 * most D = k - E unequal positions.  The bands are disjoint, so the unequal
 * positions spoil at most D bands; with b = D + 1 bands at least one band is
 * equal on all its positions and the pair is a candidate (pigeonhole).  A
 * pair is reported once: by the first band (in band order) on which its
 * values are all equal, a check on the values, so neither a set of seen
 * pairs nor a sort of the pairs is needed.
 *
 * Identical sketches are grouped first (Broder et al. 1997 s.3, "identical
 * documents"): the bands hold each distinct sketch once, and a found pair of
 * sketches expands into the pairs of their rows.
 *
 * super_shingle_pairs is Broder's super-shingle clustering (s.3) in the
 * "r of s" form of the blog framework (Lee, Lee, Kim): entries
 * (position, super-shingle, row) are sorted position by position and a pair
 * is reported from the first position on which it agrees, when it agrees on
 * at least r positions.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "batch/sketch/sketch_batch.h"

#include "miscadmin.h"
#include "port/pg_bitutils.h"
#include "utils/memutils.h"

/*
 * A found pair of rows: verify it (when asked; res becomes the verified
 * resemblance), then emit it, or link it (clusters).
 */
static inline void
found(SketchBatch *sb, uint32 x, uint32 y, double res)
{
	BatchRows  *rows = &sb->rows;

	if (sb->verify.active)
	{
		sb->call->ncand++;
		if (!sketch_rows_verified(sb, x, y, &res))
			return;
	}
	if (sb->call->mode == BATCH_CLUSTER)
		batch_uf_union(&sb->uf, x, y);
	else
		sketch_put_pair(sb, rows->id[x], rows->flags[x], rows->id[y], rows->flags[y], res);
}

/* May rows x and y form a pair at all (join: one row of each side)? */
static inline bool
may_pair(SketchBatch *sb, uint32 x, uint32 y)
{
	if (sb->call->mode == BATCH_JOIN)
		return ((sb->rows.flags[x] ^ sb->rows.flags[y]) & BATCH_ROW_SIDE1) != 0;
	if (sb->call->mode == BATCH_CLUSTER)
		return batch_uf_find(&sb->uf, x) != batch_uf_find(&sb->uf, y);
	return true;
}

/* May the groups of leaders x and y form a pair at all? */
static inline bool
may_pair_groups(SketchBatch *sb, uint32 x, uint32 y)
{
	const uint8 *flags = sb->rows.flags;

	if (sb->call->mode == BATCH_JOIN)
		return ((flags[x] & ROW_GSIDE0) && (flags[y] & ROW_GSIDE1)) ||
			((flags[x] & ROW_GSIDE1) && (flags[y] & ROW_GSIDE0));
	if (sb->call->mode == BATCH_CLUSTER)
		return batch_uf_find(&sb->uf, x) != batch_uf_find(&sb->uf, y);
	return true;
}

/* may_pair_groups, called through a pointer. */
static bool
may_pair_groups_fn(SketchBatch *sb, uint32 x, uint32 y)
{
	return may_pair_groups(sb, x, y);
}

/*
 * A found pair of groups (leaders x and y): link them (clusters), or emit
 * every pair of their rows (Broder's identical documents added back).
 */
static void
found_groups(SketchBatch *sb, uint32 x, uint32 y, double res)
{
	if (sb->call->mode == BATCH_CLUSTER && !sb->verify.active)
	{
		batch_uf_union(&sb->uf, x, y);
		return;
	}
	if (sb->call->greedy != NULL && !sb->verify.active)
	{
		/* greedy clusters: the groups are classes, one edge */
		batch_greedy_edge(sb->call, sb->rows.id[x], sb->rows.id[y]);
		return;
	}
	for (uint32 a = x; a != NO_ROW; a = sb->gnext[a])
	{
		CHECK_FOR_INTERRUPTS();
		for (uint32 b = y; b != NO_ROW; b = sb->gnext[b])
			if (sb->call->mode != BATCH_JOIN ||
				((sb->rows.flags[a] ^ sb->rows.flags[b]) & BATCH_ROW_SIDE1))
				found(sb, a, b, res);
	}
}

/*
 * Group identical sketches (Broder et al. 1997 s.3, "identical documents"):
 * the bands then hold each distinct sketch once.  Rows are sorted by a hash
 * of all k values; inside a run of equal hashes each row is compared with
 * the run's leaders so far.  Pairs inside a group (resemblance 1) are
 * emitted, or linked for clusters, here.
 */
static void
group_identical(SketchBatch *sb, BatchRec *ent, BatchRec *tmp)
{
	BatchRows  *rows = &sb->rows;
	uint64		n = rows->nrows;
	int			k = sb->k;
	uint64		m = 0;
	BatchRec   *sorted;
	uint32	   *leaders = MemoryContextAllocHuge(sb->call->cxt, Max(n, 1) * sizeof(uint32));
	double		one = nddup_minhash_estimate(k, k, sb->params->bits);

	sb->gnext = MemoryContextAllocHuge(sb->call->cxt, Max(n, 1) * sizeof(uint32));
	for (uint64 i = 0; i < n; i++)
	{
		if ((i & 0xfff) == 0)
			CHECK_FOR_INTERRUPTS();
		sb->gnext[i] = NO_ROW;
		rows->flags[i] |= (rows->flags[i] & BATCH_ROW_SIDE1) ? ROW_GSIDE1 : ROW_GSIDE0;
		/* verified: every row is checked on its own, no groups */
		if ((rows->flags[i] & ROW_EMPTY) || sb->verify.active)
			continue;
		ent[m].key = sketch_band_key(sketch_values(sb, i), k);
		ent[m].val = i;
		m++;
	}
	sorted = batch_sort_by_key(ent, tmp, m);
	for (uint64 s = 0; s < m;)
	{
		uint64		e = s + 1;
		uint64		nl = 0;

		while (e < m && sorted[e].key == sorted[s].key)
			e++;
		for (uint64 i = s; i < e; i++)
		{
			uint32		row = (uint32) sorted[i].val;
			uint64		l;

			CHECK_FOR_INTERRUPTS();
			for (l = 0; l < nl; l++)
				if (memcmp(sketch_values(sb, leaders[l]), sketch_values(sb, row),
						   sizeof(uint32) * k) == 0)
					break;
			if (l == nl)
			{
				leaders[nl++] = row;
				continue;
			}
			/* row joins the group of leaders[l]: pairs with its members */
			if (sb->call->mode == BATCH_CLUSTER)
				batch_uf_union(&sb->uf, leaders[l], row);
			else if (sb->call->greedy != NULL && !sb->verify.active)
				batch_greedy_same(sb->call, rows->id[leaders[l]], rows->id[row]);
			else
				for (uint32 a = leaders[l]; a != NO_ROW; a = sb->gnext[a])
					if (sb->call->mode != BATCH_JOIN ||
						((rows->flags[a] ^ rows->flags[row]) & BATCH_ROW_SIDE1))
						found(sb, a, row, one);
			rows->flags[row] |= ROW_MEMBER;
			rows->flags[leaders[l]] |= (rows->flags[row] & BATCH_ROW_SIDE1) ? ROW_GSIDE1 : ROW_GSIDE0;
			sb->gnext[row] = sb->gnext[leaders[l]];
			sb->gnext[leaders[l]] = row;
		}
		s = e;
	}
	pfree(leaders);
}

/*
 * A candidate pair from a run of band j: report it if band j really is
 * equal (not just its key), no earlier band is all equal (that band owns
 * the pair), and the estimate reaches the threshold.
 */
static inline void
candidate(SketchBatch *sb, uint32 x, uint32 y, int j)
{
	int			k = sb->k;
	int			r = sb->nrowsband;
	const uint32 *a = sketch_values(sb, x);
	const uint32 *b = sketch_values(sb, y);
	int			e;

	if (!may_pair_groups(sb, x, y))
		return;
	if (!sketch_range_equal(a, b, j * r, r))
		return;
	for (int i = 0; i < j; i++)
		if (sketch_range_equal(a, b, i * r, r))
			return;
	sb->call->ncand++;
	e = sketch_equal_count(a, b, k);
	if (e >= sb->emin)
		found_groups(sb, x, y, nddup_minhash_estimate(e, k, sb->params->bits));
}

/*
 * A candidate pair from a run of position j of the prefix filter
 * (sketch_prefix.c): report it if both rows hold the same value at j, no
 * earlier position in both prefixes holds the same value in both (that
 * position owns the pair), and the estimate reaches the threshold.
 */
static inline void
candidate_prefix(SketchBatch *sb, uint32 x, uint32 y, int j)
{
	const uint32 *a = sketch_values(sb, x);
	const uint32 *b = sketch_values(sb, y);
	const uint64 *px = sb->prefix + (uint64) x * sb->pwords;
	const uint64 *py = sb->prefix + (uint64) y * sb->pwords;
	int			e;

	if (a[j] != b[j] || !may_pair_groups(sb, x, y))
		return;
	for (int w = 0; w <= j / 64; w++)
	{
		uint64		both = px[w] & py[w];

		if (w == j / 64)
			both &= (UINT64CONST(1) << (j % 64)) - 1;
		while (both != 0)
		{
			int			i = w * 64 + pg_rightmost_one_pos64(both);

			if (a[i] == b[i])
				return;
			both &= both - 1;
		}
	}
	sb->call->ncand++;
	e = sketch_equal_at_least(a, b, sb->k, sb->emin);
	if (e >= sb->emin)
		found_groups(sb, x, y, nddup_minhash_estimate(e, sb->k, sb->params->bits));
}

/* Compare every pair (threshold 0: every pair is a result). */
static void
all_pairs(SketchBatch *sb)
{
	BatchRows  *rows = &sb->rows;
	uint64		n = rows->nrows;

	batch_log(sb->call, "%s: threshold %g is met by every pair: comparing all pairs",
			  sb->call->fname, sb->threshold);
	if (sb->call->mode == BATCH_CLUSTER && !sb->verify.active)
	{
		/* every pair is linked: one component */
		for (uint64 x = 1; x < n; x++)
			batch_uf_union(&sb->uf, 0, (uint32) x);
		return;
	}
	for (uint64 x = 0; x < n; x++)
	{
		CHECK_FOR_INTERRUPTS();
		for (uint64 y = x + 1; y < n; y++)
		{
			bool		ex = rows->flags[x] & ROW_EMPTY;
			bool		ey = rows->flags[y] & ROW_EMPTY;
			int			e;

			if ((y & 0xfff) == 0)
				CHECK_FOR_INTERRUPTS();
			if (!may_pair(sb, (uint32) x, (uint32) y))
				continue;
			sb->call->ncand++;
			if (ex || ey)
			{
				/* jaccard(empty, empty) = 1, jaccard(empty, other) = 0 */
				e = (ex && ey) ? sb->k : 0;
				if ((e == 0 && sb->threshold <= 0.0) || e == sb->k)
					found(sb, (uint32) x, (uint32) y, e ? 1.0 : 0.0);
				continue;
			}
			e = sketch_equal_count(sketch_values(sb, x), sketch_values(sb, y), sb->k);
			if (e >= sb->emin)
				found(sb, (uint32) x, (uint32) y,
					  nddup_minhash_estimate(e, sb->k, sb->params->bits));
		}
	}
}

/* Pairs of sketches of empty documents: all of them, resemblance 1. */
static void
empty_pairs(SketchBatch *sb)
{
	BatchRows  *rows = &sb->rows;
	uint32	   *e = palloc(Max(rows->nrows, 1) * sizeof(uint32));
	uint64		ne = 0;

	for (uint64 i = 0; i < rows->nrows; i++)
		if (rows->flags[i] & ROW_EMPTY)
			e[ne++] = (uint32) i;
	if (sb->call->mode == BATCH_CLUSTER && !sb->verify.active)
	{
		/* one component; no need to look at every pair */
		for (uint64 i = 1; i < ne; i++)
			batch_uf_union(&sb->uf, e[0], e[i]);
		ne = 0;
	}
	if (sb->call->greedy != NULL && !sb->verify.active)
	{
		/* greedy clusters: equal (empty) sketches are one class */
		for (uint64 i = 1; i < ne; i++)
			batch_greedy_same(sb->call, rows->id[e[0]], rows->id[e[i]]);
		ne = 0;
	}
	for (uint64 i = 0; i < ne; i++)
	{
		CHECK_FOR_INTERRUPTS();
		for (uint64 j = i + 1; j < ne; j++)
		{
			if ((j & 0xfff) == 0)
				CHECK_FOR_INTERRUPTS();
			if (may_pair(sb, e[i], e[j]))
				found(sb, e[i], e[j], 1.0);
		}
	}
	pfree(e);
}

/*
 * All pairs of min-hash sketches reaching the threshold: the empty ones,
 * then the banded search: for every band, the entries (key of the band's
 * values, row) of the non-empty rows are sorted, and every pair inside a
 * run of equal keys is a candidate.
 */
void
sketch_pairs_in_memory(SketchBatch *sb)
{
	BatchRows  *rows = &sb->rows;
	uint64		n = rows->nrows;
	int			r = sb->nrowsband;
	int			nbands = sb->nbands;
	BatchRec   *ent;
	BatchRec   *tmp;

	if (sb->emin == 0)
	{
		all_pairs(sb);
		return;
	}
	empty_pairs(sb);
	ent = MemoryContextAllocHuge(sb->call->cxt, Max(n, 1) * sizeof(BatchRec));
	tmp = MemoryContextAllocHuge(sb->call->cxt, Max(n, 1) * sizeof(BatchRec));
	group_identical(sb, ent, tmp);
	sketch_choose_plan(sb);
	if (sb->prefix != NULL && sketch_prefix_search(sb, found_groups, may_pair_groups_fn))
		nbands = 0;
	else if (sb->prefix != NULL)
	{
		/* the prefix filter: every position is a band of one position */
		r = 1;
		nbands = sb->k;
	}
	for (int j = 0; j < nbands; j++)
	{
		uint64		m = 0;
		BatchRec   *sorted;

		for (uint64 i = 0; i < n; i++)
		{
			if ((i & 0xfff) == 0)
				CHECK_FOR_INTERRUPTS();
			if (rows->flags[i] & (ROW_EMPTY | ROW_MEMBER))
				continue;
			if (sb->prefix != NULL && !sketch_in_prefix(sb, i, j))
				continue;
			ent[m].key = sketch_band_key(sketch_values(sb, i) + j * r, r);
			ent[m].val = i;
			m++;
		}
		sorted = batch_sort_by_key(ent, tmp, m);
		for (uint64 s = 0; s < m;)
		{
			uint64		e = s + 1;

			while (e < m && sorted[e].key == sorted[s].key)
				e++;
			for (uint64 x = s; x + 1 < e; x++)
			{
				CHECK_FOR_INTERRUPTS();
				for (uint64 y = x + 1; y < e; y++)
				{
					/* a run can be long: check within it too */
					if (((y - x) & 0x3ff) == 0)
						CHECK_FOR_INTERRUPTS();
					if (sb->prefix != NULL)
						candidate_prefix(sb, (uint32) sorted[x].val, (uint32) sorted[y].val, j);
					else
						candidate(sb, (uint32) sorted[x].val, (uint32) sorted[y].val, j);
				}
			}
			CHECK_FOR_INTERRUPTS();	/* every run: s jumps by its length */
			s = e;
		}
		batch_report_progress(sb->call, sb->prefix != NULL ? "position" : "band", j + 1, nbands);
	}
	if (sb->prefix != NULL)
		pfree(sb->prefix);
	sb->prefix = NULL;
	pfree(ent);
	pfree(tmp);
}

/*
 * Broder's super-shingle pairs, "at least r of s": for each position p (a
 * pair first agreeing after position s - r cannot reach r matches) sort the
 * entries (value, row); a pair in a run is reported when p is the first
 * position on which it agrees and it agrees on at least r positions.
 */
void
sketch_super_pairs_in_memory(SketchBatch *sb)
{
	BatchRows  *rows = &sb->rows;
	uint64		n = rows->nrows;
	int			s = sb->k;
	BatchRec   *ent = MemoryContextAllocHuge(sb->call->cxt, Max(n, 1) * sizeof(BatchRec));
	BatchRec   *tmp = MemoryContextAllocHuge(sb->call->cxt, Max(n, 1) * sizeof(BatchRec));

	for (int p = 0; p <= s - sb->match_r; p++)
	{
		BatchRec   *sorted;

		for (uint64 i = 0; i < n; i++)
		{
			if ((i & 0xfff) == 0)
				CHECK_FOR_INTERRUPTS();
			/* fmix64 is a bijection: equal keys are equal values */
			ent[i].key = nddup_fmix64((uint64) sketch_supers(sb, i)[p]);
			ent[i].val = i;
		}
		sorted = batch_sort_by_key(ent, tmp, n);
		for (uint64 a = 0; a < n;)
		{
			uint64		e = a + 1;

			while (e < n && sorted[e].key == sorted[a].key)
				e++;
			for (uint64 x = a; x + 1 < e; x++)
			{
				const int64 *u = sketch_supers(sb, sorted[x].val);

				CHECK_FOR_INTERRUPTS();
				for (uint64 y = x + 1; y < e; y++)
				{
					int			matches = super_matches_from(u, sketch_supers(sb, sorted[y].val), s, p);

					if (((y - x) & 0x3ff) == 0)
						CHECK_FOR_INTERRUPTS();

					if (matches == 0)
						continue;
					sb->call->ncand++;
					if (matches < sb->match_r)
						continue;
					batch_put_ordered_pair(sb->call, rows->id[sorted[x].val],
										   rows->id[sorted[y].val], Int32GetDatum(matches));
				}
			}
			CHECK_FOR_INTERRUPTS();	/* every run: a jumps by its length */
			a = e;
		}
	}
	pfree(ent);
	pfree(tmp);
}
