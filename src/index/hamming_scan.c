/*-------------------------------------------------------------------------
 *
 * hamming_scan.c
 *	  Scans of the hamming access method: fp <@ ball(q, r) (bitmap and
 *	  plain index scans) and ORDER BY fp <-> q (ordered index scans), both
 *	  exact (no recheck, exact distances).
 *
 * A radius search reads the generation one of two ways, whichever the
 * cost model (hamming_plan_search) finds faster for the radius and size:
 *
 *	tables	multi-index hashing (Norouzi, Punjani and Fleet 2012, s.3): each
 *			table probed at its radius (hamming_table_radii), every
 *			directory bucket within it read, every entry compared with the
 *			whole query; a row found in table t is reported only if no
 *			earlier table covers it (so once), and looked up in table 0 by
 *			key for its TIDs;
 *	rows	a pass over every key of table 0 with the popcount kernel.
 *
 * and always passes over the appendix (and the list a merge in progress
 * has sealed).  Several <@ conditions are answered by the one with the
 * smallest radius, the others checked on each row.
 *
 * An ordered scan returns rows in batches: all rows within some distance
 * T of the query, T the smallest distance that makes the batch at least
 * `batch` rows, then the next ones beyond T, and so on; each batch is one
 * pass (the first may be a cheap table probe at a small radius, which
 * answers at once when the neighbours are near).  Rows whose fingerprint
 * is NULL come last.  The executor stops at its LIMIT.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "hamming.h"

#include "access/relscan.h"
#include "miscadmin.h"
#include "nodes/tidbitmap.h"
#include "pgstat.h"
#include "utils/memutils.h"
#include "utils/rel.h"

/*
 * How many buckets ahead a probe prefetches the directory entries and the
 * entry pages (hamming_prefetch).
 */
#define HAMMING_PREFETCH_DIR		16
#define HAMMING_PREFETCH_BUCKETS	8

/* rows wanted in the first batch of an ordered scan; later ones grow */
#define HAMMING_FIRST_BATCH		100

/* A <@ condition: the key of the ball's center and its radius. */
typedef struct HammingBallKey
{
	uint64		key;
	int			radius;
} HammingBallKey;

/* A row found. */
typedef struct HammingHit
{
	ItemPointerData tid;
	uint8		dist;
	bool		isnull;
	uint64		key;
} HammingHit;

typedef struct HammingScanOpaqueData
{
	MemoryContext cxt;			/* everything of one rescan */
	MemoryContext tuplecxt;		/* index tuples returned */
	/* the query */
	bool		empty;			/* a NULL or empty condition: no rows */
	int			nballs;
	HammingBallKey *balls;
	bool		ordered;
	bool		order_null;		/* ORDER BY fp <-> NULL */
	uint64		order_key;
	/* state */
	bool		started;
	HammingMetaCopy meta;
	HammingHit *hits;
	int			nhits;
	int			maxhits;
	int			next;
	int			done;			/* ordered: rows within this were returned */
	int			batch;
	bool		nulls_done;
	/* bitmap output */
	TIDBitmap  *tbm;
	int64		ntids;
	ItemPointerData tidbuf[256];
	int			ntidbuf;
	/* ordered batch being collected: rows with lo < dist <= limit */
	int			limit;
	int64		counts[65];
	int64		kept;
	/* scratch for the kernels */
	uint32		idx[Max(HAMMING_KEYS_PER_PAGE, 2048)];
	uint8		dist[Max(HAMMING_KEYS_PER_PAGE, 2048)];
} HammingScanOpaqueData;

typedef HammingScanOpaqueData *HammingScanOpaque;

/* How a pass reports a row: to the bitmap, the hit list or a batch. */
typedef enum EmitMode
{
	EMIT_BITMAP,
	EMIT_HITS,
	EMIT_BATCH
} EmitMode;

/* One search pass: the driving key and distance window, and where to. */
typedef struct Search
{
	HammingScanOpaque so;
	uint64		qkey;
	int			lo;
	EmitMode	mode;
} Search;

/* The upper end of the window: fixed, or the shrinking batch limit. */
static inline int
search_hi(Search *s, int hi)
{
	return s->mode == EMIT_BATCH ? Min(hi, s->so->limit) : hi;
}

/* Send the buffered TIDs to the bitmap. */
static void
flush_tids(HammingScanOpaque so)
{
	if (so->ntidbuf > 0)
		tbm_add_tuples(so->tbm, so->tidbuf, so->ntidbuf, false);
	so->ntidbuf = 0;
}

/* Add a row to the hit list. */
static void
add_hit(HammingScanOpaque so, ItemPointer tid, uint64 key, int dist, bool isnull)
{
	HammingHit *h;

	if (so->nhits == so->maxhits)
	{
		so->maxhits = Max(64, so->maxhits * 2);
		so->hits = so->hits ?
			repalloc_huge(so->hits, sizeof(HammingHit) * so->maxhits) :
			MemoryContextAllocHuge(so->cxt, sizeof(HammingHit) * so->maxhits);
	}
	h = &so->hits[so->nhits++];
	h->tid = *tid;
	h->tid.ip_posid &= ~HAMMING_TID_NULL;
	h->dist = (uint8) dist;
	h->isnull = isnull;
	h->key = key;
}

/* Drop the hits of a batch beyond its (lowered) limit. */
static void
compact_batch(HammingScanOpaque so)
{
	int			n = 0;

	for (int i = 0; i < so->nhits; i++)
		if (so->hits[i].dist <= so->limit)
			so->hits[n++] = so->hits[i];
	so->nhits = n;
}

/*
 * Report a row with a fingerprint (key) found by a pass: check the other
 * conditions, then hand it on.  dist is its distance to the driving key.
 */
static void
emit(Search *s, const ItemPointerData *tid, uint64 key, int dist)
{
	HammingScanOpaque so = s->so;

	for (int i = 0; i < so->nballs; i++)
		if (__builtin_popcountll(key ^ so->balls[i].key) > so->balls[i].radius)
			return;
	switch (s->mode)
	{
		case EMIT_BITMAP:
			so->tidbuf[so->ntidbuf++] = *tid;
			so->ntids++;
			if (so->ntidbuf == lengthof(so->tidbuf))
				flush_tids(so);
			break;
		case EMIT_HITS:
			if (so->ordered && !so->order_null)
				dist = __builtin_popcountll(key ^ so->order_key);
			add_hit(so, unconstify(ItemPointerData *, tid), key, dist, false);
			break;
		case EMIT_BATCH:
			if (dist > so->limit)
				return;
			add_hit(so, unconstify(ItemPointerData *, tid), key, dist, false);
			so->counts[dist]++;
			so->kept++;
			/* lower the limit while the rows below it are enough */
			while (so->limit > s->lo + 1 &&
				   so->kept - so->counts[so->limit] >= so->batch)
			{
				so->kept -= so->counts[so->limit];
				so->counts[so->limit] = 0;
				so->limit--;
			}
			if (so->nhits > 4 * Max(so->kept, so->batch))
				compact_batch(so);
			break;
	}
}

/*
 * The keys of rows [first, last) of table 0, a key page at a time through
 * the kernel; the TIDs of the rows found from the TID pages (tidcur).
 */
static void
pass_rows(Search *s, HammingGen *gen, HammingCursor *cur, HammingCursor *tidcur,
		  uint64 first, uint64 last, uint64 qkey, int hi)
{
	HammingScanOpaque so = s->so;
	int			per = HAMMING_KEYS_PER_PAGE;

	while (first < last)
	{
		uint32		lp = gen->info.table_first[0] + (uint32) (first / per);
		int			slot = (int) (first % per);
		int			n = (int) Min((uint64) (per - slot), last - first);
		Page		page = hamming_cursor_read(gen, cur, lp, HAMMING_PAGE_KEYS);
		uint64	   *keys = HammingPageKeyArray(page);
		size_t		m;

		m = nddup_ham_scan(keys + slot, n, qkey, s->lo, search_hi(s, hi),
						   so->idx, so->dist);
		for (size_t i = 0; i < m; i++)
		{
			uint64		row = first + so->idx[i];
			ItemPointerData *tid = hamming_gen_tid(gen, tidcur, row);

			if (hamming_tid_live(tid))
				emit(s, tid, keys[slot + so->idx[i]], so->dist[i]);
		}
		first += n;
		if ((first / per) % 64 == 0)
			CHECK_FOR_INTERRUPTS();
	}
}

/* Entry v of a directory: the first entry of bucket v in table t. */
static uint32
dir_entry(HammingGen *gen, HammingCursor *cur, int t, uint32 v)
{
	uint32		lp = gen->info.dir_first[t] + v / HAMMING_U32_PER_PAGE;
	Page		page = hamming_cursor_read(gen, cur, lp, HAMMING_PAGE_DIR);

	return HammingPageU32(page)[v % HAMMING_U32_PER_PAGE];
}

/* Emit every live row of table 0 whose key is key (a lookup by key). */
static void
lookup_key(Search *s, HammingGen *gen, HammingCursor *dircur,
		   HammingCursor *keycur, HammingCursor *tidcur, uint64 key, int dist)
{
	int			shift = 64 - (int) gen->info.dbits;
	uint32		b = (uint32) (key >> shift);
	uint32		first = dir_entry(gen, dircur, 0, b);
	uint32		last = dir_entry(gen, dircur, 0, b + 1);

	for (uint32 p = first; p < last; p++)
	{
		uint64		k = *hamming_gen_key(gen, keycur, p);

		if (k == key)
		{
			ItemPointerData *tid = hamming_gen_tid(gen, tidcur, p);

			if (hamming_tid_live(tid))
				emit(s, tid, k, dist);
		}
		else if (k > key)
			break;
	}
}

/*
 * Whether a table before t (in probe order) covers a key: its prefix lies
 * within that table's probe radius of the query's.
 */
static bool
covered_before(const HammingGenInfo *info, uint64 key, uint64 qkey, int t,
			   const int *rho, int shift)
{
	for (int u = 0; u < t; u++)
		if (rho[u] >= 0 &&
			__builtin_popcountll((hamming_table_key(info, key, u) ^
								  hamming_table_key(info, qkey, u)) >> shift) <= rho[u])
			return true;
	return false;
}

/*
 * Prefetch the entries [bounds[0], bounds[1]) of table t (hamming_prefetch):
 * whole keys on table 0's key pages, packed entries (eper a page) on the
 * others.
 */
static inline void
prefetch_bucket(HammingGen *gen, int t, const uint32 *bounds, int eper)
{
	int			width = t == 0 ? (int) sizeof(uint64) : (int) gen->info.width;
	int			per = t == 0 ? HAMMING_KEYS_PER_PAGE : eper;

	if (bounds[0] < bounds[1])
		hamming_prefetch(gen, gen->info.table_first[t] + bounds[0] / per,
						 (Size) (bounds[0] % per) * width,
						 (Size) (bounds[1] - bounds[0]) * width);
}

/*
 * Probe the tables for every row within radius of qkey (multi-index
 * hashing, see the file header).
 */
static void
probe_tables(Search *s, HammingGen *gen, uint64 qkey, int radius)
{
	HammingScanOpaque so = s->so;
	int			dbits = (int) gen->info.dbits;
	int			shift = 64 - dbits;
	int			width = (int) gen->info.width;
	uint64		lowmask = (UINT64CONST(1) << shift) - 1;
	int			eper = HammingEntriesPerPage(width);
	int			rho[HAMMING_TABLES];
	long		maxbuckets = 1;
	uint32	   *buckets;
	uint32	   *bounds;			/* first and last entry of each bucket */
	HammingCursor dircur = {InvalidBuffer, 0};
	HammingCursor datacur = {InvalidBuffer, 0};
	HammingCursor tidcur = {InvalidBuffer, 0};
	HammingCursor lookdir = {InvalidBuffer, 0};
	HammingCursor lookkeys = {InvalidBuffer, 0};
	int			ntables = (int) gen->info.ntables;

	hamming_table_radii(radius, gen->info.ntables, rho);
	/* room for the buckets of the widest probe, not the whole directory */
	for (int t = 0; t < ntables; t++)
		if (rho[t] >= 0)
			maxbuckets = Max(maxbuckets, (long) (nddup_ham_ball_volume(dbits, rho[t]) + 0.5));
	buckets = palloc(sizeof(uint32) * maxbuckets);
	bounds = palloc(sizeof(uint32) * 2 * maxbuckets);
	for (int t = 0; t < ntables; t++)
	{
		uint64		tq = hamming_table_key(&gen->info, qkey, t);
		long		nb;

		if (rho[t] < 0)
			continue;
		nb = nddup_ham_enumerate((uint32) (tq >> shift), dbits, rho[t],
								 buckets, maxbuckets);

		/*
		 * Every bucket's bounds from the directory first, then the buckets;
		 * each pass prefetches the pages of the buckets a few ahead, so that
		 * the random reads of a probe overlap.
		 */
		for (long b = 0; b < nb; b++)
		{
			if (b + HAMMING_PREFETCH_DIR < nb)
			{
				uint32		ahead = buckets[b + HAMMING_PREFETCH_DIR];

				hamming_prefetch(gen, gen->info.dir_first[t] + ahead / HAMMING_U32_PER_PAGE,
								 (ahead % HAMMING_U32_PER_PAGE) * sizeof(uint32),
								 2 * sizeof(uint32));
			}
			bounds[2 * b] = dir_entry(gen, &dircur, t, buckets[b]);
			bounds[2 * b + 1] = dir_entry(gen, &dircur, t, buckets[b] + 1);
		}
		for (long b = 0; b < nb; b++)
		{
			uint32		v = buckets[b];
			uint32		first = bounds[2 * b];
			uint32		last = bounds[2 * b + 1];
			uint64		high = (uint64) v << shift;
			uint64		prev = 0;
			bool		have_prev = false;

			if ((b & 255) == 0)
				CHECK_FOR_INTERRUPTS();
			if (b + HAMMING_PREFETCH_BUCKETS < nb)
				prefetch_bucket(gen, t, bounds + 2 * (b + HAMMING_PREFETCH_BUCKETS), eper);
			if (first == last)
				continue;
			if (t == 0)
			{
				/* table 0 is first: it owns every row it finds */
				pass_rows(s, gen, &datacur, &tidcur, first, last, qkey, radius);
				continue;
			}
			while (first < last)
			{
				uint32		lp = gen->info.table_first[t] + first / eper;
				int			slot = (int) (first % eper);
				int			n = (int) Min((uint32) (eper - slot), last - first);
				Page		page = hamming_cursor_read(gen, &datacur, lp,
													   HAMMING_PAGE_ENTRIES);
				const uint8 *entries = HammingPageEntries(page) + (Size) slot * width;
				size_t		m = nddup_ham_scan_packed(entries, n, width, lowmask,
													  high, tq, radius, so->idx);

				for (size_t i = 0; i < m; i++)
				{
					uint64		value = high |
						nddup_ham_packed_entry(entries, so->idx[i], width, lowmask);
					uint64		key = hamming_table_unkey(&gen->info, value, t);
					int			dist;

					/* equal keys are adjacent: look each up once */
					if (have_prev && value == prev)
						continue;
					prev = value;
					have_prev = true;
					dist = __builtin_popcountll(key ^ qkey);
					if (dist <= s->lo || covered_before(&gen->info, key, qkey, t, rho, shift))
						continue;
					lookup_key(s, gen, &lookdir, &lookkeys, &tidcur, key, dist);
				}
				first += n;
			}
		}
	}
	hamming_cursor_release(&dircur);
	hamming_cursor_release(&datacur);
	hamming_cursor_release(&tidcur);
	hamming_cursor_release(&lookdir);
	hamming_cursor_release(&lookkeys);
	pfree(buckets);
	pfree(bounds);
}

/*
 * A pass over an appendix list: every live row with a fingerprint within
 * the window (or, nulls, every live row whose fingerprint is NULL).
 */
static void
pass_list(Search *s, BlockNumber blkno, uint64 epoch, int hi, bool nulls)
{
	HammingScanOpaque so = s->so;
	Relation	index = so->meta.gen.index;

	while (blkno != InvalidBlockNumber)
	{
		Buffer		buf = ReadBuffer(index, blkno);
		Page		page;
		HammingPageOpaque opaque;
		uint64	   *keys;
		ItemPointerData *tids;

		CHECK_FOR_INTERRUPTS();
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buf);
		hamming_check_page(index, page, blkno, HAMMING_PAGE_APPENDIX, epoch);
		opaque = HammingPageGetOpaque(page);
		keys = HammingPageKeys(page);
		tids = HammingPageTids(page);
		if (nulls)
		{
			for (uint32 i = 0; i < opaque->nitems; i++)
				if (hamming_tid_live(&tids[i]) && (tids[i].ip_posid & HAMMING_TID_NULL))
					add_hit(so, &tids[i], 0, 0, true);
		}
		else
		{
			size_t		m = nddup_ham_scan(keys, opaque->nitems, s->qkey, s->lo,
										   search_hi(s, hi), so->idx, so->dist);

			for (size_t i = 0; i < m; i++)
			{
				ItemPointerData *tid = &tids[so->idx[i]];

				if (hamming_tid_live(tid) && !(tid->ip_posid & HAMMING_TID_NULL))
					emit(s, tid, keys[so->idx[i]], so->dist[i]);
			}
		}
		blkno = opaque->next;
		UnlockReleaseBuffer(buf);
	}
}

/*
 * One search pass over the whole index for rows with lo < distance to qkey
 * <= hi; allow_tables lets it probe the generation's tables out to hi (the
 * rows within lo are then found again and dropped).
 */
static void
search(HammingScanOpaque so, EmitMode mode, uint64 qkey, int lo, int hi,
	   bool allow_tables)
{
	HammingGen *gen = &so->meta.gen;
	HammingMetaPageData *meta = so->meta.meta;
	Search		s;

	s.so = so;
	s.qkey = qkey;
	s.lo = lo;
	s.mode = mode;
	if (gen->info.keyed > 0)
	{
		HammingPlan plan;

		hamming_plan_search((double) gen->info.keyed, gen->info.dbits, gen->info.ntables,
							allow_tables ? hi : -1, 0, &plan);
		if (allow_tables && hamming_probe != HAMMING_PROBE_AUTO)
			plan.use_tables = (hamming_probe == HAMMING_PROBE_TABLES);
		if (plan.use_tables)
			probe_tables(&s, gen, qkey, hi);
		else
		{
			HammingCursor cur = {InvalidBuffer, 0};
			HammingCursor tidcur = {InvalidBuffer, 0};

			pass_rows(&s, gen, &cur, &tidcur, 0, gen->info.keyed, qkey, hi);
			hamming_cursor_release(&cur);
			hamming_cursor_release(&tidcur);
		}
	}
	pass_list(&s, meta->app_head, meta->app_epoch, hi, false);
	if (meta->sealed_head != InvalidBlockNumber)
		pass_list(&s, meta->sealed_head, meta->sealed_epoch, hi, false);
}

/* Every live row whose fingerprint is NULL, into the hit list. */
static void
collect_nulls(HammingScanOpaque so)
{
	HammingGen *gen = &so->meta.gen;
	HammingMetaPageData *meta = so->meta.meta;
	HammingCursor cur = {InvalidBuffer, 0};
	Search		s;

	for (uint64 p = gen->info.keyed; p < gen->info.rows; p++)
	{
		ItemPointerData *tid = hamming_gen_tid(gen, &cur, p);

		if (hamming_tid_live(tid))
			add_hit(so, tid, 0, 0, true);
	}
	hamming_cursor_release(&cur);
	s.so = so;
	s.qkey = 0;
	s.lo = -1;
	s.mode = EMIT_HITS;
	pass_list(&s, meta->app_head, meta->app_epoch, 64, true);
	if (meta->sealed_head != InvalidBlockNumber)
		pass_list(&s, meta->sealed_head, meta->sealed_epoch, 64, true);
}

/* Sort the hit list by distance (a counting sort: distances are 0..64). */
static void
sort_hits(HammingScanOpaque so)
{
	int64		start[66] = {0};
	HammingHit *sorted;

	if (so->nhits < 2)
		return;
	for (int i = 0; i < so->nhits; i++)
		start[so->hits[i].dist + 1]++;
	for (int d = 1; d <= 65; d++)
		start[d] += start[d - 1];
	sorted = MemoryContextAllocHuge(so->cxt, sizeof(HammingHit) * so->maxhits);
	for (int i = 0; i < so->nhits; i++)
		sorted[start[so->hits[i].dist]++] = so->hits[i];
	pfree(so->hits);
	so->hits = sorted;
}

/* The radius that a first, cheap probe of an ordered scan covers. */
static int
first_probe_radius(HammingGen *gen)
{
	HammingPlan flat;
	int			best = -1;

	hamming_plan_search((double) gen->info.keyed, gen->info.dbits, gen->info.ntables, -1, 0, &flat);
	if (hamming_probe == HAMMING_PROBE_ROWS)
		return -1;
	if (hamming_probe == HAMMING_PROBE_TABLES)
		return 6;
	for (int r = 0; r <= 12; r++)
	{
		HammingPlan plan;

		hamming_plan_search((double) gen->info.keyed, gen->info.dbits, gen->info.ntables, r, 0, &plan);
		if (!plan.use_tables || plan.nanoseconds > 0.1 * flat.nanoseconds)
			break;
		best = r;
	}
	return best;
}

/*
 * The radius out to which a later batch of an ordered scan probes the
 * tables, or -1 for a pass over every row instead: the smallest radius
 * beyond the rows returned (done) where uniform fingerprints would give a
 * quarter of a batch more rows, if probing out to it is cheaper than a
 * pass (the k-nearest search of multi-index hashing: Norouzi, Punjani and
 * Fleet 2012, s.4, radius by radius).  Large tables gain: at 10M rows the
 * 10th neighbour of a random query is 13-14 bits away, a probe of 14 bits
 * reads ~2,200 buckets where a pass reads 10M keys.  With
 * nddup.hamming_probe = tables every batch probes, 4 bits at a time.
 */
static int
next_probe_radius(HammingScanOpaque so)
{
	HammingGen *gen = &so->meta.gen;
	double		keyed = (double) gen->info.keyed;
	double		want = keyed * nddup_hamming_chance(so->done) + Max(so->batch / 4, 1);
	int			r = so->done + 1;
	HammingPlan plan;

	if (hamming_probe == HAMMING_PROBE_ROWS || keyed <= 0)
		return -1;
	while (r < 64 && keyed * nddup_hamming_chance(r) < want)
		r++;
	if (hamming_probe == HAMMING_PROBE_TABLES)
		return Min(r, so->done + 4);
	hamming_plan_search(keyed, gen->info.dbits, gen->info.ntables, r, 0, &plan);
	return plan.use_tables ? r : -1;
}

/*
 * The next batch of an ordered scan without <@ conditions: all rows with
 * done < distance <= limit, limit as small as gives `batch` rows; false
 * when every row (and then every NULL row) has been returned.
 */
static bool
next_batch(HammingScanOpaque so)
{
	MemoryContext old = MemoryContextSwitchTo(so->cxt);

	so->nhits = 0;
	so->next = 0;
	if (so->order_null || so->done >= 64)
	{
		/* then the rows whose fingerprint is NULL, once */
		if (so->nulls_done)
		{
			MemoryContextSwitchTo(old);
			return false;
		}
		so->nulls_done = true;
		if (so->order_null)
		{
			/* fp <-> NULL is NULL for every row: all of them, any order */
			search(so, EMIT_HITS, 0, -1, 64, false);
			for (int i = 0; i < so->nhits; i++)
				so->hits[i].isnull = true;
		}
		collect_nulls(so);
		MemoryContextSwitchTo(old);
		return true;
	}

	if (so->done < 0)
	{
		int			r = first_probe_radius(&so->meta.gen);

		if (r >= 0)
		{
			search(so, EMIT_HITS, so->order_key, -1, r, true);
			sort_hits(so);
			so->done = r;
			MemoryContextSwitchTo(old);
			return true;
		}
	}
	else
	{
		int			r = next_probe_radius(so);

		if (r > so->done)
		{
			search(so, EMIT_HITS, so->order_key, so->done, r, true);
			sort_hits(so);
			so->done = r;
			so->batch = Min(so->batch * 4, 1000000);
			MemoryContextSwitchTo(old);
			return true;
		}
	}
	memset(so->counts, 0, sizeof(so->counts));
	so->kept = 0;
	so->limit = 64;
	search(so, EMIT_BATCH, so->order_key, so->done, 64, false);
	compact_batch(so);
	sort_hits(so);
	so->done = so->limit;
	so->batch = Min(so->batch * 4, 1000000);
	MemoryContextSwitchTo(old);
	return true;
}

/* Run the query of a non-ordered or radius-bounded scan into the hit list. */
static void
collect_all(HammingScanOpaque so, EmitMode mode)
{
	MemoryContext old = MemoryContextSwitchTo(so->cxt);

	if (so->nballs > 0)
	{
		/* the smallest ball drives the search, the others filter */
		int			best = 0;

		for (int i = 1; i < so->nballs; i++)
			if (so->balls[i].radius < so->balls[best].radius)
				best = i;
		search(so, mode, so->balls[best].key, -1, so->balls[best].radius, true);
	}
	else
	{
		/* no condition: every row */
		search(so, mode, 0, -1, 64, false);
		if (mode == EMIT_HITS)
			collect_nulls(so);
	}
	if (mode == EMIT_HITS && so->ordered)
		sort_hits(so);
	MemoryContextSwitchTo(old);
}

/* Take the metapage copy the scan works from, once per rescan; count it. */
static void
start_scan(IndexScanDesc scan)
{
	HammingScanOpaque so = (HammingScanOpaque) scan->opaque;
	MemoryContext old;

	if (so->started)
		return;
	NDDUP_COUNT_INDEX_SEARCH(scan);
	old = MemoryContextSwitchTo(so->cxt);
	hamming_read_meta(scan->indexRelation, &so->meta);
	MemoryContextSwitchTo(old);
	so->started = true;
}

/* ambeginscan */
IndexScanDesc
hamming_begin_scan(Relation index, int nkeys, int norderbys)
{
	IndexScanDesc scan = RelationGetIndexScan(index, nkeys, norderbys);
	HammingScanOpaque so = palloc0(sizeof(HammingScanOpaqueData));

	so->cxt = AllocSetContextCreate(CurrentMemoryContext, "hamming scan",
									ALLOCSET_DEFAULT_SIZES);
	so->tuplecxt = AllocSetContextCreate(CurrentMemoryContext, "hamming scan tuple",
										 ALLOCSET_SMALL_SIZES);
	scan->opaque = so;
	scan->xs_itupdesc = RelationGetDescr(index);
	if (norderbys > 0)
	{
		scan->xs_orderbyvals = palloc0(sizeof(Datum) * norderbys);
		scan->xs_orderbynulls = palloc(sizeof(bool) * norderbys);
	}
	return scan;
}

/* amrescan: take the conditions and the ordering, forget any results. */
void
hamming_rescan(IndexScanDesc scan, ScanKey keys, int nkeys,
			   ScanKey orderbys, int norderbys)
{
	HammingScanOpaque so = (HammingScanOpaque) scan->opaque;

	MemoryContextReset(so->cxt);
	so->started = false;
	so->hits = NULL;
	so->nhits = so->maxhits = so->next = 0;
	so->done = -1;
	so->batch = HAMMING_FIRST_BATCH;
	so->nulls_done = false;
	so->empty = false;
	so->ordered = false;
	so->order_null = false;

	if (keys && scan->numberOfKeys > 0)
		memmove(scan->keyData, keys, scan->numberOfKeys * sizeof(ScanKeyData));
	if (orderbys && scan->numberOfOrderBys > 0)
		memmove(scan->orderByData, orderbys, scan->numberOfOrderBys * sizeof(ScanKeyData));

	so->nballs = 0;
	so->balls = MemoryContextAlloc(so->cxt,
								   sizeof(HammingBallKey) * Max(scan->numberOfKeys, 1));
	for (int i = 0; i < scan->numberOfKeys; i++)
	{
		ScanKey		key = &scan->keyData[i];
		HammingBall *ball;

		if (key->sk_strategy != HAMMING_STRATEGY_IN_BALL)
			elog(ERROR, "unrecognized strategy number: %d", key->sk_strategy);
		if (key->sk_flags & SK_ISNULL)
		{
			so->empty = true;
			continue;
		}
		ball = (HammingBall *) DatumGetPointer(key->sk_argument);
		/* a hand-made hamming_ball value may bypass the constructor's check */
		if (ball->radius < 0 || ball->radius > 64)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("Hamming radius %d is out of range", ball->radius),
					 errhint("The radius must be between 0 and 64.")));
		so->balls[so->nballs].key = nddup_ham_key(ball->center);
		so->balls[so->nballs].radius = ball->radius;
		so->nballs++;
	}
	for (int i = 0; i < scan->numberOfOrderBys; i++)
	{
		ScanKey		key = &scan->orderByData[i];

		if (key->sk_strategy != HAMMING_STRATEGY_DISTANCE)
			elog(ERROR, "unrecognized ordering strategy number: %d", key->sk_strategy);
		so->ordered = true;
		if (key->sk_flags & SK_ISNULL)
			so->order_null = true;
		else
			so->order_key = nddup_ham_key(DatumGetSimhash64(key->sk_argument));
	}
}

/* Fill the scan's output fields for hit h. */
static void
return_hit(IndexScanDesc scan, HammingHit *h)
{
	HammingScanOpaque so = (HammingScanOpaque) scan->opaque;

	scan->xs_heaptid = h->tid;
	scan->xs_recheck = false;
	if (scan->numberOfOrderBys > 0)
	{
		scan->xs_orderbyvals[0] = Int32GetDatum((int32) h->dist);
		scan->xs_orderbynulls[0] = h->isnull;
		scan->xs_recheckorderby = false;
	}

	/*
	 * The planner asks for an index-only scan of a query that needs no
	 * column (count(*)) even without amcanreturn; the cost estimate keeps
	 * it away, and if it is forced, the fingerprint is there.
	 */
	if (scan->xs_want_itup)
	{
		Datum		value = Simhash64GetDatum(h->isnull ? 0 : nddup_ham_unkey(h->key));
		bool		isnull = h->isnull;
		MemoryContext old;

		MemoryContextReset(so->tuplecxt);
		old = MemoryContextSwitchTo(so->tuplecxt);
		scan->xs_itup = index_form_tuple(RelationGetDescr(scan->indexRelation),
										 &value, &isnull);
		MemoryContextSwitchTo(old);
	}
}

/* amgettuple: the next row (in distance order when ordered). */
bool
hamming_gettuple(IndexScanDesc scan, ScanDirection dir)
{
	HammingScanOpaque so = (HammingScanOpaque) scan->opaque;

	if (!ScanDirectionIsForward(dir))
		elog(ERROR, "hamming index scans go forward only");
	if (so->empty)
		return false;
	if (!so->started)
	{
		start_scan(scan);
		if (!so->ordered || so->nballs > 0)
			collect_all(so, EMIT_HITS);
		else if (!next_batch(so))
			return false;
	}
	while (so->next >= so->nhits)
	{
		if (!so->ordered || so->nballs > 0 || !next_batch(so))
			return false;
	}
	return_hit(scan, &so->hits[so->next++]);
	return true;
}

/* amgetbitmap: every matching row into the bitmap, exact (no recheck). */
int64
hamming_getbitmap(IndexScanDesc scan, TIDBitmap *tbm)
{
	HammingScanOpaque so = (HammingScanOpaque) scan->opaque;

	if (so->empty)
		return 0;
	start_scan(scan);
	so->tbm = tbm;
	so->ntids = 0;
	so->ntidbuf = 0;
	if (so->nballs > 0)
		collect_all(so, EMIT_BITMAP);
	else
	{
		/* no condition: every row, NULL ones too */
		collect_all(so, EMIT_HITS);
		for (int i = 0; i < so->nhits; i++)
		{
			so->tidbuf[so->ntidbuf++] = so->hits[i].tid;
			so->ntids++;
			if (so->ntidbuf == lengthof(so->tidbuf))
				flush_tids(so);
		}
	}
	flush_tids(so);
	return so->ntids;
}

/* amendscan */
void
hamming_end_scan(IndexScanDesc scan)
{
	HammingScanOpaque so = (HammingScanOpaque) scan->opaque;

	MemoryContextDelete(so->cxt);
	MemoryContextDelete(so->tuplecxt);
	pfree(so);
	scan->opaque = NULL;
}
