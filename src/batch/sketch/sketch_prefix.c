/*-------------------------------------------------------------------------
 *
 * sketch_prefix.c
 *	  The prefix filter of the in-memory sketch search, and the choice
 *	  between it and the bands by the estimated number of candidates.
 *
 * A sketch of k values is a set of k tokens (position, value).  A pair
 * whose estimate reaches the threshold has at least E = emin equal
 * positions, so its two token sets share at least E tokens.  Order all
 * tokens globally, rarest first; two sets of k tokens sharing o >= E tokens
 * have their first common token among the first k - E + 1 tokens of each
 * (Chaudhuri, Ganti and Kaushik, ICDE 2006; Bayardo, Ma and Srikant,
 * WWW 2007, s.4: the tokens of a set before its first common one are not
 * common, at most k - o of them).  So every pair of the answer shares a
 * position that lies in the prefix of both sketches and holds the same
 * value there: the search enters each row only at the positions of its
 * prefix (k - E + 1 = D + 1 of them), and reports a pair once (the index
 * below: a stamp per row; position by position: at the first position of
 * both prefixes where the pair agrees).  That is the pigeonhole of the default bands (D + 1 bands
 * of one position) with the positions chosen per row: the rarest ones, so
 * that values shared by many rows (boilerplate, the sketches of very short
 * documents) seldom enter a run.  The answer is the same: exactly the pairs
 * whose estimate reaches the threshold.
 *
 * The frequencies are counted in saturating 16-bit counters indexed by the
 * top bits of the token's mixed hash (as the exact set join does,
 * set_filter.c): tokens sharing a counter share its count, so the order is
 * (count of the counter, hash, position), a function of the token alone;
 * two different tokens that tie have the same position and so never meet
 * in one sketch, which is all the prefix principle needs.
 *
 * The choice: the number of candidates each plan would enumerate is
 * estimated from the counters before any run is formed (for the bands, the
 * counts of the band keys; for the prefixes, the counts of the prefix
 * tokens), and the cheaper plan runs.  Both are exact.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "batch/sketch/sketch_batch.h"

#include "miscadmin.h"
#include "port/pg_bitutils.h"
#include "utils/memutils.h"

/* a sketch's order keys, sorted with the comparison inlined */
#define ST_SORT sketch_sort_keys
#define ST_ELEMENT_TYPE uint64
#define ST_COMPARE(a, b) (*(a) < *(b) ? -1 : *(a) > *(b) ? 1 : 0)
#define ST_SCOPE static
#define ST_DEFINE
#include "lib/sort_template.h"

/* The counters: at most 2^22 (8 MB), at least 2^10. */
#define PF_MAX_BITS			22
#define PF_MIN_BITS			10

/* Bits of a position in an order key (k <= NDDUP_MINHASH_MAX_K = 1024). */
#define PF_POS_BITS			10

/*
 * Move the m smallest of the n distinct keys to keys[0 .. m) (in no
 * order): Hoare's selection, finished by a sort of a small window.
 */
static void
select_smallest(uint64 *keys, int n, int m)
{
	int			lo = 0;
	int			hi = n;			/* the m-th smallest lies in [lo, hi) */

	while (hi - lo > 16)
	{
		uint64		pivot = keys[lo + (hi - lo) / 2];
		int			i = lo;
		int			j = hi - 1;

		while (i <= j)
		{
			while (keys[i] < pivot)
				i++;
			while (keys[j] > pivot)
				j--;
			if (i <= j)
			{
				uint64		t = keys[i];

				keys[i] = keys[j];
				keys[j] = t;
				i++;
				j--;
			}
		}
		/* now [lo, j] <= pivot <= [i, hi) */
		if (m <= j + 1)
			hi = j + 1;
		else if (m >= i)
			lo = i;
		else
			return;				/* the keys between j and i equal the pivot */
	}
	if (lo < m && m < hi)
		sketch_sort_keys(keys + lo, hi - lo);
}

/* The mixed hash of token (position, value). */
static inline uint64
token_hash(int pos, uint32 value)
{
	return nddup_fmix64(((uint64) (pos + 1) << 32) | value);
}

/* The counter of a hash. */
static inline uint16 *
pf_counter(uint16 *dfc, int bits, uint64 hash)
{
	return &dfc[hash >> (64 - bits)];
}

/* Count one hash (saturating). */
static inline void
pf_count(uint16 *dfc, int bits, uint64 hash)
{
	uint16	   *c = pf_counter(dfc, bits, hash);

	if (*c < PG_UINT16_MAX)
		(*c)++;
}

/* Is row i one that the search enters (a leader of a non-empty sketch)? */
static inline bool
searched_row(const SketchBatch *sb, uint64 i)
{
	return (sb->rows.flags[i] & (ROW_EMPTY | ROW_MEMBER)) == 0;
}

/*
 * One pass over the band keys of the searched rows: count them (count), or
 * sum the counts of the other entries with the same key.
 */
static double
band_pass(SketchBatch *sb, uint16 *dfc, int bits, bool count)
{
	BatchRows  *rows = &sb->rows;
	int			r = sb->nrowsband;
	double		sum = 0;

	for (uint64 i = 0; i < rows->nrows; i++)
	{
		if ((i & 0x3ff) == 0)
			CHECK_FOR_INTERRUPTS();
		if (!searched_row(sb, i))
			continue;
		for (int j = 0; j < sb->nbands; j++)
		{
			uint64		h = nddup_fmix64(sketch_band_key(sketch_values(sb, i) + j * r, r) + j);

			if (count)
				pf_count(dfc, bits, h);
			else
				sum += *pf_counter(dfc, bits, h) - 1;
		}
	}
	return sum;
}

/*
 * Estimated candidates of the bands: for every band, the sum over its
 * entries of the other entries with the same key (each pair twice), / 2.
 */
static double
band_cost(SketchBatch *sb, uint16 *dfc, int bits)
{
	memset(dfc, 0, sizeof(uint16) << bits);
	band_pass(sb, dfc, bits, true);
	return band_pass(sb, dfc, bits, false) / 2;
}

/*
 * The token hashes of row i's k positions into h, their counters asked of
 * the CPU ahead of their use (the counters are read at random).
 */
static inline void
row_token_hashes(const SketchBatch *sb, uint64 i, uint16 *dfc, int bits, uint64 *h)
{
	const uint32 *v = sketch_values(sb, i);

	for (int p = 0; p < sb->k; p++)
	{
		h[p] = token_hash(p, v[p]);
		__builtin_prefetch(pf_counter(dfc, bits, h[p]));
	}
}

/*
 * Mark the prefix of every searched row (its D + 1 rarest positions) in
 * sb->prefix; returns the estimated candidates: for every prefix token,
 * the other rows holding the token, / 2.
 */
static double
mark_prefixes(SketchBatch *sb, uint16 *dfc, int bits)
{
	BatchRows  *rows = &sb->rows;
	int			k = sb->k;
	int			plen = k - sb->emin + 1;
	uint64		keys[NDDUP_MINHASH_MAX_K];
	double		cost = 0;

	memset(dfc, 0, sizeof(uint16) << bits);
	for (uint64 i = 0; i < rows->nrows; i++)
	{
		if ((i & 0x3ff) == 0)
			CHECK_FOR_INTERRUPTS();
		if (!searched_row(sb, i))
			continue;
		row_token_hashes(sb, i, dfc, bits, keys);
		for (int p = 0; p < k; p++)
			pf_count(dfc, bits, keys[p]);
	}
	for (uint64 i = 0; i < rows->nrows; i++)
	{
		uint64	   *mask = sb->prefix + i * sb->pwords;

		if ((i & 0xff) == 0)
			CHECK_FOR_INTERRUPTS();
		memset(mask, 0, sizeof(uint64) * sb->pwords);
		if (!searched_row(sb, i))
			continue;
		row_token_hashes(sb, i, dfc, bits, keys);
		for (int p = 0; p < k; p++)
		{
			uint64		h = keys[p];

			/* (count, hash, position): see the file header */
			keys[p] = ((uint64) *pf_counter(dfc, bits, h) << 48) |
				((h >> (16 + PF_POS_BITS)) << PF_POS_BITS) | (uint64) p;
		}
		select_smallest(keys, k, plen);
		for (int x = 0; x < plen; x++)
		{
			int			p = (int) (keys[x] & ((1 << PF_POS_BITS) - 1));

			mask[p / 64] |= UINT64CONST(1) << (p % 64);
			cost += (keys[x] >> 48) - 1;
		}
	}
	return cost / 2;
}

/*
 * Choose the plan of an in-memory search with the default (exact) bands:
 * the prefixes or the bands, whichever the counters estimate to give fewer
 * candidates.  Sets sb->prefix (NULL: the bands) and says which in the
 * progress output.
 */
void
sketch_choose_plan(SketchBatch *sb)
{
	BatchRows  *rows = &sb->rows;
	uint64		n = rows->nrows;
	uint64		searched = 0;
	int			bits = PF_MIN_BITS;
	uint16	   *dfc;
	double		pcost;
	double		bcost = -1;

	sb->prefix = NULL;
	if (!sb->auto_bands || !sb->exact || sb->emin == 0 || sb->emin > sb->k)
		return;
	for (uint64 i = 0; i < n; i++)
		searched += searched_row(sb, i);
	if (searched < 2)
		return;
	/* about one counter per token, within a quarter of work_mem */
	while (bits < PF_MAX_BITS && ((uint64) 1 << bits) < searched * sb->k &&
		   ((int64) sizeof(uint16) << (bits + 1)) <= sb->call->mem_limit / 4)
		bits++;
	dfc = MemoryContextAllocHuge(sb->call->cxt, sizeof(uint16) << bits);
	sb->pwords = (sb->k + 63) / 64;
	sb->prefix = MemoryContextAllocHuge(sb->call->cxt, n * sb->pwords * sizeof(uint64));
	pcost = mark_prefixes(sb, dfc, bits);
	/* one position per band: the prefixes are never worse (rarest D + 1) */
	if (sb->nrowsband > 1)
		bcost = band_cost(sb, dfc, bits);
	pfree(dfc);
	if (bcost >= 0 && bcost < pcost)
	{
		pfree(sb->prefix);
		sb->prefix = NULL;
		batch_log_time(sb->call, "%s: plan: %d bands of %d positions (about %.0f candidates; the prefix filter, about %.0f)",
				  sb->call->fname, sb->nbands, sb->nrowsband, bcost, pcost);
		return;
	}
	if (bcost >= 0)
		batch_log_time(sb->call, "%s: plan: prefix filter, the %d rarest of %d positions of each sketch (about %.0f candidates; %d bands of %d positions, about %.0f)",
				  sb->call->fname, sb->k - sb->emin + 1, sb->k, pcost,
				  sb->nbands, sb->nrowsband, bcost);
	else
		batch_log_time(sb->call, "%s: plan: prefix filter, the %d rarest of %d positions of each sketch (about %.0f candidates; the %d bands of one position hold more)",
				  sb->call->fname, sb->k - sb->emin + 1, sb->k, pcost, sb->nbands);
}

/*
 * Sort n entries (value << 32 | row) by value, stably (the rows of a value
 * keep their order): least significant digit first, 8 bits a pass, through
 * tmp (n entries); passes over a byte all entries share are skipped.
 */
static void
radix_sort_values(uint64 *a, uint64 *tmp, uint64 n)
{
	uint64	   *src = a;
	uint64	   *dst = tmp;

	for (int shift = 32; shift < 64; shift += 8)
	{
		uint64		count[257];

		CHECK_FOR_INTERRUPTS();
		memset(count, 0, sizeof(count));
		for (uint64 i = 0; i < n; i++)
			count[((src[i] >> shift) & 0xff) + 1]++;
		if (n == 0 || count[((src[0] >> shift) & 0xff) + 1] == n)
			continue;			/* one digit: the order stays */
		for (int d = 0; d < 256; d++)
			count[d + 1] += count[d];
		for (uint64 i = 0; i < n; i++)
			dst[count[(src[i] >> shift) & 0xff]++] = src[i];
		{
			uint64	   *t = src;

			src = dst;
			dst = t;
		}
	}
	if (src != a)
		memcpy(a, src, n * sizeof(uint64));
}

/*
 * The search of the prefix filter through an inverted index (Bayardo, Ma
 * and Srikant, WWW 2007, s.4): for every position, the (value, row) entries
 * of the rows holding it in their prefix, sorted.  Each row x probes the
 * entries of its prefix positions for its own values (the entries of
 * its value before its own, found when the index is built) and takes the earlier rows
 * y < x found there as candidates, each once (a stamp per row), then
 * counts their equal positions.  Every pair is thus met from its later row
 * only, and verified once, however many prefix positions it shares.  Needs
 * n * (k - E + 1) * 16 bytes beside the rows; false when that does not fit
 * in work_mem (the caller then runs the bands over the prefixes).
 */
bool
sketch_prefix_search(SketchBatch *sb,
					 void (*found) (SketchBatch *sb, uint32 x, uint32 y, double res),
					 bool (*may_pair) (SketchBatch *sb, uint32 x, uint32 y))
{
	BatchRows  *rows = &sb->rows;
	uint64		n = rows->nrows;
	int			k = sb->k;
	uint64	   *off;
	uint64	   *fill;
	uint64	   *ent;
	uint32	   *stamp;
	uint32	   *cand;
	uint32	   *runstart;
	uint32	   *before;
	uint64	   *first;
	uint64	   *tmp;
	uint64		maxseg = 0;
	uint64		total = 0;
	int64		need;

	for (uint64 i = 0; i < n; i++)
	{
		if ((i & 0xfff) == 0)
			CHECK_FOR_INTERRUPTS();
		for (int w = 0; w < sb->pwords; w++)
			total += pg_popcount64(sb->prefix[i * sb->pwords + w]);
	}
	need = (int64) (total * (sizeof(uint64) + 2 * sizeof(uint32)) +
					n * (2 * sizeof(uint32) + 2 * sizeof(uint64)) +
					(k + 1) * 2 * sizeof(uint64));
	if ((int64) (n * rows->bytes_per_row) + need > sb->call->mem_limit ||
		total >= PG_UINT32_MAX)
	{
		batch_log(sb->call, "%s: the index of the prefixes (%lld kB) does not fit in work_mem beside the rows: searching them position by position",
				  sb->call->fname, (long long) (need / 1024));
		return false;
	}

	/* the entries, position by position, in row order */
	off = palloc0((k + 1) * sizeof(uint64));
	fill = palloc((k + 1) * sizeof(uint64));
	for (uint64 i = 0; i < n; i++)
	{
		if ((i & 0xfff) == 0)
			CHECK_FOR_INTERRUPTS();
		for (int w = 0; w < sb->pwords; w++)
			for (uint64 bits = sb->prefix[i * sb->pwords + w]; bits != 0; bits &= bits - 1)
				off[w * 64 + pg_rightmost_one_pos64(bits) + 1]++;
	}
	for (int p = 0; p < k; p++)
	{
		off[p + 1] += off[p];
		maxseg = Max(maxseg, off[p + 1] - off[p]);
	}
	memcpy(fill, off, (k + 1) * sizeof(uint64));
	ent = MemoryContextAllocHuge(sb->call->cxt, Max(total, 1) * sizeof(uint64));
	for (uint64 i = 0; i < n; i++)
	{
		const uint32 *v = sketch_values(sb, i);

		if ((i & 0x3ff) == 0)
			CHECK_FOR_INTERRUPTS();
		for (int w = 0; w < sb->pwords; w++)
			for (uint64 bits = sb->prefix[i * sb->pwords + w]; bits != 0; bits &= bits - 1)
			{
				int			p = w * 64 + pg_rightmost_one_pos64(bits);

				ent[fill[p]++] = ((uint64) v[p] << 32) | (uint32) i;
			}
	}
	/* each position's entries sorted by value, stably: (value, row) order */
	tmp = MemoryContextAllocHuge(sb->call->cxt, Max(maxseg, 1) * sizeof(uint64));
	for (int p = 0; p < k; p++)
	{
		CHECK_FOR_INTERRUPTS();
		radix_sort_values(ent + off[p], tmp, off[p + 1] - off[p]);
	}
	pfree(tmp);

	/*
	 * For each row, position by position (in the order of its prefix), the
	 * entries of the earlier rows with its value there: [runstart[t],
	 * runstart[t] + before[t]) for its t-th slot t of [first[x], first[x+1]).
	 */
	runstart = MemoryContextAllocHuge(sb->call->cxt, Max(total, 1) * sizeof(uint32));
	before = MemoryContextAllocHuge(sb->call->cxt, Max(total, 1) * sizeof(uint32));
	first = MemoryContextAllocHuge(sb->call->cxt, (n + 1) * sizeof(uint64));
	first[0] = 0;
	for (uint64 i = 0; i < n; i++)
	{
		uint32		c = 0;

		if ((i & 0xfff) == 0)
			CHECK_FOR_INTERRUPTS();
		for (int w = 0; w < sb->pwords; w++)
			c += pg_popcount64(sb->prefix[i * sb->pwords + w]);
		first[i + 1] = first[i] + c;
	}
	for (int p = 0; p < k; p++)
	{
		uint64		rs = off[p];

		for (uint64 s = off[p]; s < off[p + 1]; s++)
		{
			uint64		t;

			if (((s - off[p]) & 0xffff) == 0)
				CHECK_FOR_INTERRUPTS();
			if ((ent[s] >> 32) != (ent[rs] >> 32))
				rs = s;			/* a new value: a new run */
			t = first[(uint32) ent[s]]++;
			runstart[t] = (uint32) rs;
			before[t] = (uint32) (s - rs);
		}
	}
	/* first[x] now is where row x + 1's slots begin */
	memmove(first + 1, first, n * sizeof(uint64));
	first[0] = 0;

	batch_log_time(sb->call, "%s: an index of the prefixes, %llu entries (%lld kB)",
				   sb->call->fname, (unsigned long long) total, (long long) (need / 1024));

	/* the probes: the earlier rows of each run row x is in */
	stamp = MemoryContextAllocHuge(sb->call->cxt, Max(n, 1) * sizeof(uint32));
	cand = MemoryContextAllocHuge(sb->call->cxt, Max(n, 1) * sizeof(uint32));
	memset(stamp, 0xff, Max(n, 1) * sizeof(uint32));
	for (uint64 x = 0; x < n; x++)
	{
		const uint32 *a = sketch_values(sb, x);
		uint64		nc = 0;

		CHECK_FOR_INTERRUPTS();
		for (uint64 t = first[x]; t < first[x + 1]; t++)
		{
			/* the first row of a run (often: rare values) reads no entry */
			for (uint64 q = runstart[t]; q < (uint64) runstart[t] + before[t]; q++)
			{
				uint32		y = (uint32) ent[q];

				if (((q - runstart[t]) & 0x3fff) == 0x3fff)
					CHECK_FOR_INTERRUPTS();
				if (stamp[y] != (uint32) x)
				{
					stamp[y] = (uint32) x;
					cand[nc++] = y;
				}
			}
		}
		for (uint64 c = 0; c < nc; c++)
		{
			uint32		y = cand[c];
			int			e;

			/* often: found() may verify long documents' sets */
			if ((c & 0xf) == 0xf)
				CHECK_FOR_INTERRUPTS();
			if (c + 4 < nc)
			{
				/* the sketch four candidates ahead, while this one is counted */
				const char *ahead = (const char *) sketch_values(sb, cand[c + 4]);

				for (int l = 0; l < k * (int) sizeof(uint32); l += 64)
					__builtin_prefetch(ahead + l);
			}
			if (!may_pair(sb, y, (uint32) x))
				continue;
			sb->call->ncand++;
			e = sketch_equal_at_least(sketch_values(sb, y), a, k, sb->emin);
			if (e >= sb->emin)
				found(sb, y, (uint32) x, nddup_minhash_estimate(e, k, sb->params->bits));
		}
		batch_report_progress(sb->call, "row", x + 1, n);
	}
	pfree(stamp);
	pfree(cand);
	pfree(runstart);
	pfree(before);
	pfree(first);
	pfree(ent);
	pfree(off);
	pfree(fill);
	return true;
}
