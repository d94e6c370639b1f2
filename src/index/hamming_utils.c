/*-------------------------------------------------------------------------
 *
 * hamming_utils.c
 *	  What every phase of the hamming access method uses: page
 *	  initialization and checks, the metapage, reading a generation through
 *	  its map, TIDs, page allocation, the table geometry, and the cost model
 *	  that both the scan and the planner use to choose between probing the
 *	  tables and scanning every row.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "hamming.h"

#include "miscadmin.h"
#include "pgstat.h"
#include "storage/buf_internals.h"
#include "storage/freespace.h"
#include "storage/indexfsm.h"
#include "storage/lmgr.h"
#include "utils/memutils.h"
#include "utils/rel.h"

/*
 * Costs of the search's unit operations in nanoseconds, measured on the
 * development machine (docs/reports/bench-hamming.md): reading a page of
 * shared buffers (pin, lock, check, release), probing a directory bucket,
 * comparing a table entry found by a probe, and comparing a row in a
 * sequential pass over packed keys.
 */
#define HAMMING_NS_PAGE			250.0
#define HAMMING_NS_BUCKET		60.0
#define HAMMING_NS_ENTRY		1.5
#define HAMMING_NS_ROW			0.7

/* Initialize a page of the given kind; its whole contents are in use. */
void
hamming_init_page(Page page, uint8 kind, uint64 epoch)
{
	HammingPageOpaque opaque;

	PageInit(page, BLCKSZ, sizeof(HammingPageOpaqueData));
	opaque = HammingPageGetOpaque(page);
	opaque->epoch = epoch;
	opaque->next = InvalidBlockNumber;
	opaque->nitems = 0;
	opaque->kind = kind;
	opaque->flags = 0;
	opaque->page_id = HAMMING_PAGE_ID;
	/* no hole: WAL images must keep the arrays that fill the page */
	((PageHeader) page)->pd_lower = ((PageHeader) page)->pd_upper;
}

/*
 * Check that a page is of the expected kind and epoch.  A page of another
 * epoch was recycled while a scan still needed it, which only a hot
 * standby allows (its queries do not hold back the primary's recycling):
 * a serialization failure, as for other recovery conflicts.
 */
void
hamming_check_page(Relation index, Page page, BlockNumber blkno, uint8 kind,
				   uint64 epoch)
{
	HammingPageOpaque opaque;

	/*
	 * The common case first, from the special space at its fixed place (a
	 * page of this index always has it there): one cache line, not the
	 * header too.
	 */
	opaque = (HammingPageOpaque) ((char *) page + BLCKSZ -
								  MAXALIGN(sizeof(HammingPageOpaqueData)));
	if (opaque->page_id == HAMMING_PAGE_ID && opaque->kind == kind &&
		opaque->epoch == epoch)
		return;

	if (PageIsNew(page) ||
		PageGetSpecialSize(page) != MAXALIGN(sizeof(HammingPageOpaqueData)))
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("index \"%s\" contains an unexpected page at block %u",
						RelationGetRelationName(index), blkno),
				 errhint("Please REINDEX it.")));
	opaque = HammingPageGetOpaque(page);
	if (opaque->page_id != HAMMING_PAGE_ID)
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("index \"%s\" contains a page of another kind at block %u",
						RelationGetRelationName(index), blkno),
				 errhint("Please REINDEX it.")));
	if (opaque->kind != kind || opaque->epoch != epoch)
		ereport(ERROR,
				(errcode(ERRCODE_T_R_SERIALIZATION_FAILURE),
				 errmsg("could not read index \"%s\": block %u was recycled during the scan",
						RelationGetRelationName(index), blkno),
				 errdetail("The scan expected a page of kind %d and epoch " UINT64_FORMAT
						   ", found kind %d and epoch " UINT64_FORMAT ".",
						   kind, epoch, opaque->kind, opaque->epoch),
				 errhint("Retry the query; on a hot standby, hot_standby_feedback = on avoids this.")));
}

/* Initialize the metapage: an empty generation and an empty appendix. */
void
hamming_init_meta(Page page)
{
	HammingMetaPageData *meta;

	hamming_init_page(page, HAMMING_PAGE_META, 0);
	meta = HammingPageGetMeta(page);
	memset(meta, 0, offsetof(HammingMetaPageData, map));
	meta->magic = HAMMING_MAGIC;
	meta->version = HAMMING_VERSION;
	meta->gen.ntables = HAMMING_TABLES;
	meta->gen.dbits = hamming_dir_bits(0, HAMMING_TABLES);
	meta->gen.width = hamming_entry_width(meta->gen.dbits);
	meta->app_head = InvalidBlockNumber;
	meta->app_tail = InvalidBlockNumber;
	meta->sealed_head = InvalidBlockNumber;
}

/*
 * Bring a metapage of an older version (or a copy of one) to the current
 * layout: version 1 had four tables, and the padding where ntables now is.
 */
void
hamming_meta_fixup(HammingMetaPageData *meta)
{
	if (meta->version == 1)
	{
		meta->gen.ntables = HAMMING_TABLES;
		meta->retired_gen.ntables = HAMMING_TABLES;
		meta->version = HAMMING_VERSION;
	}
}

/* Copy the metapage (share lock) and open its generation for reading. */
void
hamming_read_meta(Relation index, HammingMetaCopy *copy)
{
	Buffer		buf = ReadBuffer(index, HAMMING_METAPAGE_BLKNO);
	Page		page;
	HammingMetaPageData *meta;
	Size		size;

	LockBuffer(buf, BUFFER_LOCK_SHARE);
	page = BufferGetPage(buf);
	meta = HammingPageGetMeta(page);
	if (PageIsNew(page) || meta->magic != HAMMING_MAGIC)
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("index \"%s\" is not a hamming index",
						RelationGetRelationName(index))));
	if (meta->version < 1 || meta->version > HAMMING_VERSION)
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("index \"%s\" has version %u, expected %u",
						RelationGetRelationName(index), meta->version,
						HAMMING_VERSION),
				 errhint("Please REINDEX it.")));
	size = offsetof(HammingMetaPageData, map) + meta->gen.nmap * sizeof(BlockNumber);
	copy->meta = palloc(size);
	memcpy(copy->meta, meta, size);
	UnlockReleaseBuffer(buf);
	hamming_meta_fixup(copy->meta);
	hamming_gen_open(&copy->gen, index, copy->meta);
}

/* Free what hamming_read_meta allocated. */
void
hamming_free_meta(HammingMetaCopy *copy)
{
	for (uint32 i = 0; i < copy->gen.info.nmap; i++)
		if (copy->gen.maps[i])
			pfree(copy->gen.maps[i]);
	if (copy->gen.maps)
		pfree(copy->gen.maps);
	pfree(copy->meta);
}

/* Prepare to read the generation a metapage (copy) describes. */
void
hamming_gen_open(HammingGen *gen, Relation index, const HammingMetaPageData *meta)
{
	gen->index = index;
	gen->info = meta->gen;
	gen->mapblocks = (BlockNumber *) meta->map;
	gen->maps = gen->info.nmap > 0 ?
		palloc0(sizeof(BlockNumber *) * gen->info.nmap) : NULL;
	gen->hints = NULL;
	gen->nhints = 0;
	gen->hints_stamp = 0;
}

/* The block of logical page lpage, loading its map page if needed. */
BlockNumber
hamming_gen_block(HammingGen *gen, uint32 lpage)
{
	uint32		m = lpage / HAMMING_U32_PER_PAGE;

	if (lpage >= gen->info.npages)
		elog(ERROR, "logical page %u is beyond the %u pages of the generation",
			 lpage, gen->info.npages);
	if (gen->maps[m] == NULL)
	{
		Buffer		buf = ReadBuffer(gen->index, gen->mapblocks[m]);
		Page		page;
		BlockNumber *copy;

		LockBuffer(buf, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buf);
		hamming_check_page(gen->index, page, gen->mapblocks[m], HAMMING_PAGE_MAP,
						   gen->info.epoch);
		copy = MemoryContextAlloc(GetMemoryChunkContext(gen->maps),
								  sizeof(BlockNumber) * HAMMING_U32_PER_PAGE);
		memcpy(copy, HammingPageU32(page), sizeof(BlockNumber) * HAMMING_U32_PER_PAGE);
		UnlockReleaseBuffer(buf);
		gen->maps[m] = copy;
	}
	return gen->maps[m][lpage % HAMMING_U32_PER_PAGE];
}

/*
 * Where the pages of recently read generations were found in shared
 * buffers: per logical page, the buffer that last held it.  A scan that
 * reads the page again first tries that buffer (ReadRecentBuffer, which
 * checks the buffer's tag under its header lock and pins it), skipping the
 * look-up in the shared buffer mapping table that otherwise costs each
 * page a few cache misses.  Only a hint: a buffer reused for another page
 * fails the tag check, and the page is read the usual way.  Kept for the
 * backend's lifetime for a few generations (4 bytes per page, for the
 * first HAMMING_HINT_PAGES pages: at most 4 MB), keyed by the index's file,
 * the generation's epoch and its size.
 */
#define HAMMING_HINT_SLOTS	4
#define HAMMING_HINT_PAGES	(1 << 20)

typedef struct HammingBufferHint
{
	NddupRelFileLocator locator;
	uint64		epoch;			/* 0: slot unused */
	uint32		npages;
	uint32		nhints;			/* pages with a hint: min(npages, HAMMING_HINT_PAGES) */
	Buffer	   *buffers;		/* nhints entries, InvalidBuffer = unknown */
} HammingBufferHint;

static HammingBufferHint buffer_hints[HAMMING_HINT_SLOTS];
static int	buffer_hint_last;
static int	buffer_hint_victim;

/* changes whenever a slot is given to another generation (never 0) */
static uint64 buffer_hint_stamp = 1;

/*
 * The buffer hints of a generation (*nhints of them), made (replacing a
 * slot) if needed; NULL for none.
 */
static Buffer *
buffer_hint_lookup(HammingGen *gen, uint32 *nhints)
{
	const NddupRelFileLocator *locator = NDDUP_RELATION_LOCATOR(gen->index);
	HammingBufferHint *h;

	if (RelationUsesLocalBuffers(gen->index) || gen->info.npages == 0)
		return NULL;
	for (int i = 0; i < HAMMING_HINT_SLOTS; i++)
	{
		h = &buffer_hints[(buffer_hint_last + i) % HAMMING_HINT_SLOTS];
		if (h->epoch == gen->info.epoch && h->npages == gen->info.npages &&
			memcmp(&h->locator, locator, sizeof(NddupRelFileLocator)) == 0)
		{
			buffer_hint_last = (int) (h - buffer_hints);
			*nhints = h->nhints;
			return h->buffers;
		}
	}
	h = &buffer_hints[buffer_hint_victim];
	buffer_hint_victim = (buffer_hint_victim + 1) % HAMMING_HINT_SLOTS;
	buffer_hint_stamp++;
	if (h->buffers != NULL)
		pfree(h->buffers);
	h->buffers = NULL;
	h->epoch = 0;
	h->nhints = Min(gen->info.npages, HAMMING_HINT_PAGES);
	h->buffers = MemoryContextAllocExtended(TopMemoryContext,
											sizeof(Buffer) * h->nhints,
											MCXT_ALLOC_NO_OOM);
	if (h->buffers == NULL)
		return NULL;
	/* InvalidBuffer is 0 */
	memset(h->buffers, 0, sizeof(Buffer) * h->nhints);
	h->locator = *locator;
	h->epoch = gen->info.epoch;
	h->npages = gen->info.npages;
	buffer_hint_last = (int) (h - buffer_hints);
	*nhints = h->nhints;
	return h->buffers;
}

/*
 * The buffer hints of a generation, as buffer_hint_lookup finds them,
 * remembered in the reader until a slot changes hands.
 */
static inline Buffer *
buffer_hint_array(HammingGen *gen, uint32 *nhints)
{
	if (gen->hints_stamp != buffer_hint_stamp)
	{
		gen->nhints = 0;
		gen->hints = buffer_hint_lookup(gen, &gen->nhints);
		gen->hints_stamp = buffer_hint_stamp;
	}
	*nhints = gen->nhints;
	return gen->hints;
}

/*
 * Pin block blkno, logical page lpage of the generation: through the
 * buffer that last held it when it still does, else ReadBuffer.
 */
static Buffer
read_gen_buffer(HammingGen *gen, uint32 lpage, BlockNumber blkno)
{
	uint32		nhints = 0;
	Buffer	   *hints = buffer_hint_array(gen, &nhints);
	Buffer		buf;

	if (lpage >= nhints)
		hints = NULL;
	if (hints != NULL && BufferIsValid(hints[lpage]) &&
		ReadRecentBuffer(*NDDUP_RELATION_LOCATOR(gen->index), MAIN_FORKNUM, blkno,
						 hints[lpage]))
	{
		/* what ReadBuffer counts for a hit */
		pgstat_count_buffer_read(gen->index);
		pgstat_count_buffer_hit(gen->index);
		return hints[lpage];
	}
	buf = ReadBuffer(gen->index, blkno);
	if (hints != NULL)
		hints[lpage] = buf;
	return buf;
}

/* bytes of a CPU cache line, the step of the prefetches below */
#define HAMMING_CACHE_LINE	64

/*
 * Ask the CPU to start loading what a read of logical page lpage will
 * touch, when the buffer hints know its buffer: the buffer header (pin and
 * content lock), the special space (the page check) and the bytes
 * [offset, offset + len) of the page's contents, at most 4 cache lines.
 * Nothing is pinned or read: a buffer that holds another page by now costs
 * only the wasted prefetch.  A probe issues these several buckets ahead, so
 * that its random reads overlap instead of waiting one after another.
 */
void
hamming_prefetch(HammingGen *gen, uint32 lpage, Size offset, Size len)
{
	uint32		nhints = 0;
	Buffer	   *hints = buffer_hint_array(gen, &nhints);
	Buffer		buf;
	const char *block;
	const char *contents;

	if (hints == NULL || lpage >= nhints || !BufferIsValid(hints[lpage]))
		return;
	buf = hints[lpage];
	block = (const char *) BufferGetBlock(buf);
	contents = block + MAXALIGN(SizeOfPageHeaderData);
	nddup_prefetch(GetBufferDescriptor(buf - 1));
	nddup_prefetch(block + BLCKSZ - MAXALIGN(sizeof(HammingPageOpaqueData)));
	len = Min(len, 4 * HAMMING_CACHE_LINE);
	for (Size at = offset & ~((Size) HAMMING_CACHE_LINE - 1); at < offset + len;
		 at += HAMMING_CACHE_LINE)
		nddup_prefetch(contents + at);
}

/*
 * The page of logical page lpage, pinned and share-locked in the cursor
 * (which keeps it until another page is asked for or it is released).
 */
Page
hamming_cursor_read(HammingGen *gen, HammingCursor *cursor, uint32 lpage,
					uint8 kind)
{
	BlockNumber blkno;
	Page		page;

	if (BufferIsValid(cursor->buf))
	{
		if (cursor->lpage == lpage)
			return BufferGetPage(cursor->buf);
		UnlockReleaseBuffer(cursor->buf);
		cursor->buf = InvalidBuffer;
	}
	blkno = hamming_gen_block(gen, lpage);
	cursor->buf = read_gen_buffer(gen, lpage, blkno);
	LockBuffer(cursor->buf, BUFFER_LOCK_SHARE);
	cursor->lpage = lpage;
	page = BufferGetPage(cursor->buf);
	hamming_check_page(gen->index, page, blkno, kind, gen->info.epoch);
	return page;
}

/* The key of row `row` of table 0 (its page held by the cursor). */
uint64 *
hamming_gen_key(HammingGen *gen, HammingCursor *cursor, uint64 row)
{
	Page		page = hamming_cursor_read(gen, cursor,
										   gen->info.table_first[0] + (uint32) (row / HAMMING_KEYS_PER_PAGE),
										   HAMMING_PAGE_KEYS);

	return &HammingPageKeyArray(page)[row % HAMMING_KEYS_PER_PAGE];
}

/* The TID of row `row` of table 0 (its page held by the cursor). */
ItemPointerData *
hamming_gen_tid(HammingGen *gen, HammingCursor *cursor, uint64 row)
{
	Page		page = hamming_cursor_read(gen, cursor,
										   gen->info.tid_first + (uint32) (row / HAMMING_TIDS_PER_PAGE),
										   HAMMING_PAGE_TIDS);

	return &HammingPageTidArray(page)[row % HAMMING_TIDS_PER_PAGE];
}

/* Release a cursor's page, if any. */
void
hamming_cursor_release(HammingCursor *cursor)
{
	if (BufferIsValid(cursor->buf))
		UnlockReleaseBuffer(cursor->buf);
	cursor->buf = InvalidBuffer;
}

/* Rows in an appendix list of row pages (live or not). */
uint64
hamming_list_rows(Relation index, BlockNumber blkno, uint64 epoch)
{
	uint64		rows = 0;

	while (blkno != InvalidBlockNumber)
	{
		Buffer		buf = ReadBuffer(index, blkno);
		Page		page;

		CHECK_FOR_INTERRUPTS();
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buf);
		hamming_check_page(index, page, blkno, HAMMING_PAGE_APPENDIX, epoch);
		rows += HammingPageGetOpaque(page)->nitems;
		blkno = HammingPageGetOpaque(page)->next;
		UnlockReleaseBuffer(buf);
	}
	return rows;
}

/*
 * A heap TID (and whether the fingerprint is NULL) as one sortable value:
 * NULL flag in the top bit, then block and offset.
 */
uint64
hamming_tid_pack(ItemPointer tid, bool isnull)
{
	return ((uint64) (isnull ? 1 : 0) << 63) |
		((uint64) ItemPointerGetBlockNumberNoCheck(tid) << 16) |
		ItemPointerGetOffsetNumberNoCheck(tid);
}

/* Whether a stored TID is a row (not a tombstone). */
bool
hamming_tid_live(const ItemPointerData *tid)
{
	return tid->ip_posid != InvalidOffsetNumber;
}

/*
 * A new page for the index, exclusively locked: a recycled page from the
 * free space map when use_fsm (checked to be free still: a page may be
 * listed there after it was taken), else a new block at the end.
 */
Buffer
hamming_new_buffer(Relation index, bool use_fsm)
{
	Buffer		buf;
	bool		needlock = !RELATION_IS_LOCAL(index);

	while (use_fsm)
	{
		BlockNumber blkno = GetFreeIndexPage(index);

		if (blkno == InvalidBlockNumber)
			break;
		buf = ReadBuffer(index, blkno);
		if (ConditionalLockBuffer(buf))
		{
			Page		page = BufferGetPage(buf);

			if (PageIsNew(page) ||
				(PageGetSpecialSize(page) == MAXALIGN(sizeof(HammingPageOpaqueData)) &&
				 HammingPageGetOpaque(page)->kind == HAMMING_PAGE_FREE))
				return buf;
			LockBuffer(buf, BUFFER_LOCK_UNLOCK);
		}
		ReleaseBuffer(buf);
	}

	if (needlock)
		LockRelationForExtension(index, ExclusiveLock);
	buf = ReadBuffer(index, P_NEW);
	LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
	if (needlock)
		UnlockRelationForExtension(index, ExclusiveLock);
	return buf;
}

/*
 * Directory bits of a generation of `keyed` rows in ntables tables: about 8
 * rows per bucket, at most the bits of the narrowest block (the pigeonhole
 * is over blocks: a prefix of a block is a coarser but still exact probe),
 * and at most 27 (a directory's bucket counts are one allocation < 1 GB).
 */
uint32
hamming_dir_bits(uint64 keyed, uint32 ntables)
{
	int			bits = 4;
	int			narrowest = Min(64 / (int) ntables, 27);

	while (bits < narrowest && ((uint64) 8 << bits) < keyed)
		bits++;
	return (uint32) bits;
}

/* Bytes of an entry of tables 1..: the 64 - dbits bits below the prefix. */
int
hamming_entry_width(uint32 dbits)
{
	return (int) ((64 - dbits + 7) / 8);
}

/*
 * The probe radius of each of ntables tables for a search of radius r, by
 * the pigeonhole principle of multi-index hashing (Norouzi, Punjani and
 * Fleet 2012, s.3 and Proposition 1): with r = m d + s (m tables,
 * 0 <= s < m), if two keys differ in at most r bits then one of any s + 1
 * blocks differs in at most d bits or one of the others in at most d - 1.
 * The s + 1 tables at radius d are tables 1, 2, .., m - 1, 0 in that order
 * (table 0's rows are wider, so its probes read more bytes).  -1: the table
 * is not probed.
 */
void
hamming_table_radii(int radius, uint32 ntables, int *rho)
{
	int			m = (int) ntables;
	int			d = radius / m;
	int			s = radius % m;

	for (int i = 0; i < m; i++)
		rho[(i + 1) % m] = (i <= s) ? d : d - 1;
}

/*
 * The table count of a generation of `keyed` rows: forced (the index option
 * `tables`, 2..4), or the count whose probes the cost model finds cheapest
 * over the radii 3, 6 and 12 (docs/indexes.md, "Table count").  Fewer
 * tables have longer blocks and so more directory bits: each probe reads
 * more, smaller buckets (Manku, Jain and Das Sarma 2007, s.3.1).
 */
uint32
hamming_choose_tables(double keyed, int forced)
{
	static const int radii[] = {3, 6, 12};
	uint32		best = HAMMING_TABLES;
	double		best_ns = -1;

	if (forced >= 2 && forced <= HAMMING_TABLES)
		return (uint32) forced;
	for (uint32 m = HAMMING_TABLES; m >= 3; m--)
	{
		uint32		dbits = hamming_dir_bits((uint64) keyed, m);
		double		ns = 0;

		for (int i = 0; i < lengthof(radii); i++)
		{
			HammingPlan plan;

			hamming_plan_search(keyed, dbits, m, radii[i], 0, &plan);
			ns += plan.nanoseconds;
		}
		if (best_ns < 0 || ns < best_ns)
		{
			best = m;
			best_ns = ns;
		}
	}
	return best;
}

/*
 * Plan a search of the given radius over a generation of `keyed` rows with
 * dbits-bit directories and an appendix of appendix_rows rows: probe the
 * tables (every directory bucket within each table's radius, every entry
 * in those buckets compared) or scan every row, whichever the cost model
 * says is faster.  radius < 0 plans a pass over every row (ordering).
 */
void
hamming_plan_search(double keyed, uint32 dbits, uint32 ntables, int radius,
					double appendix_rows, HammingPlan *plan)
{
	double		nbuckets = ldexp(1.0, (int) dbits);
	double		row_pages = ceil(keyed / HAMMING_KEYS_PER_PAGE);
	double		entry_pages = ceil(keyed / HammingEntriesPerPage(hamming_entry_width(dbits)));
	double		dir_pages = ceil((nbuckets + 1) / HAMMING_U32_PER_PAGE);
	double		flat_ns;
	double		probe_ns = 0;
	double		buckets = 0;
	double		entries = 0;
	double		pages = 0;
	double		app_pages = ceil(appendix_rows / HAMMING_ROWS_PER_PAGE);
	int			rho[HAMMING_TABLES];

	flat_ns = keyed * HAMMING_NS_ROW + row_pages * HAMMING_NS_PAGE;
	plan->use_tables = false;
	plan->buckets = 0;
	plan->entries = keyed;
	plan->pages = row_pages;
	plan->nanoseconds = flat_ns;

	if (radius >= 0 && keyed > 0)
	{
		hamming_table_radii(radius, ntables, rho);
		for (int t = 0; t < (int) ntables; t++)
		{
			double		b;
			double		e;
			double		tpages = (t == 0) ? row_pages : entry_pages;

			if (rho[t] < 0)
				continue;
			b = nddup_ham_ball_volume((int) dbits, rho[t]);
			e = keyed * b / nbuckets;
			buckets += b;
			entries += e;
			/* a bucket's run is mostly on one page; at most every page */
			pages += Min(b, tpages) + Min(b, dir_pages);
		}
		/* a match found in tables 1..3 is looked up in table 0 */
		probe_ns = buckets * HAMMING_NS_BUCKET + entries * HAMMING_NS_ENTRY +
			pages * HAMMING_NS_PAGE;
		if (probe_ns < flat_ns)
		{
			plan->use_tables = true;
			plan->buckets = buckets;
			plan->entries = entries;
			plan->pages = pages;
			plan->nanoseconds = probe_ns;
		}
	}
	plan->pages += app_pages;
	plan->entries += appendix_rows;
	plan->nanoseconds += appendix_rows * HAMMING_NS_ROW + app_pages * HAMMING_NS_PAGE;
}
