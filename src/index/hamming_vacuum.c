/*-------------------------------------------------------------------------
 *
 * hamming_vacuum.c
 *	  VACUUM of the hamming access method: dead rows become tombstones
 *	  (ambulkdelete); then (amvacuumcleanup) the pages the last merge
 *	  retired are recycled once no snapshot can still read them, and the
 *	  appendix is merged into a new generation when it (with the
 *	  tombstones) has grown past merge_fraction of the generation.
 *
 * The merge: (1) under the metapage and tail locks, seal the appendix (new
 * inserts start a fresh list); (2) sort the live rows of the generation and
 * of the sealed list into a new generation on free or new pages; (3) under
 * the metapage lock, switch to it and retire the old pages, stamped with
 * the next transaction id.  Scans that read the old metapage keep reading
 * the old pages, which a later VACUUM recycles only when that transaction
 * id is older than every snapshot (GlobalVisCheckRemovableFullXid, the test
 * nbtree uses before reusing a deleted page).  A crash before (3) leaves
 * the sealed list in place (the next merge completes it) and the pages
 * written so far unreferenced (recycled by the next pass).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "hamming.h"

#include "access/generic_xlog.h"
#include "access/transam.h"
#include "commands/vacuum.h"
#include "miscadmin.h"
#include "storage/indexfsm.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

/*
 * Turn the dead rows of one row page into tombstones; returns the number
 * removed, adds the live ones to *live, and gives the page's next link.
 */
static int64
vacuum_page(IndexVacuumInfo *info, BlockNumber blkno, uint8 kind, uint64 epoch,
			IndexBulkDeleteCallback callback, void *callback_state,
			double *live, BlockNumber *next)
{
	Relation	index = info->index;
	Buffer		buf = ReadBufferExtended(index, MAIN_FORKNUM, blkno, RBM_NORMAL,
										 info->strategy);
	Page		page;
	HammingPageOpaque opaque;
	ItemPointerData *tids;
	uint16		dead[HAMMING_TIDS_PER_PAGE];
	int			ndead = 0;

	LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
	page = BufferGetPage(buf);
	hamming_check_page(index, page, blkno, kind, epoch);
	opaque = HammingPageGetOpaque(page);
	tids = kind == HAMMING_PAGE_TIDS ? HammingPageTidArray(page) : HammingPageTids(page);
	for (uint32 i = 0; i < opaque->nitems; i++)
	{
		ItemPointerData tid = tids[i];

		if (!hamming_tid_live(&tid))
			continue;
		tid.ip_posid &= ~HAMMING_TID_NULL;
		if (callback(&tid, callback_state))
			dead[ndead++] = (uint16) i;
		else
			*live += 1;
	}
	if (next)
		*next = opaque->next;
	if (ndead > 0)
	{
		GenericXLogState *state = GenericXLogStart(index);
		Page		copy = GenericXLogRegisterBuffer(state, buf, 0);

		ItemPointerData *ctids = kind == HAMMING_PAGE_TIDS ?
			HammingPageTidArray(copy) : HammingPageTids(copy);

		for (int i = 0; i < ndead; i++)
			ctids[dead[i]].ip_posid = InvalidOffsetNumber;
		GenericXLogFinish(state);
	}
	UnlockReleaseBuffer(buf);
	return ndead;
}

/* Add n to the metapage's count of tombstones. */
static void
add_dead_rows(Relation index, int64 n)
{
	Buffer		buf = ReadBuffer(index, HAMMING_METAPAGE_BLKNO);
	GenericXLogState *state;
	Page		page;

	LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
	state = GenericXLogStart(index);
	page = GenericXLogRegisterBuffer(state, buf, 0);
	HammingPageGetMeta(page)->dead_rows += n;
	GenericXLogFinish(state);
	UnlockReleaseBuffer(buf);
}

/* Tombstone the dead rows of every row page of a list; returns the count. */
static int64
vacuum_list(IndexVacuumInfo *info, BlockNumber blkno, uint64 epoch,
			IndexBulkDeleteCallback callback, void *callback_state, double *live)
{
	int64		removed = 0;

	while (blkno != InvalidBlockNumber)
	{
		vacuum_delay_point(false);
		removed += vacuum_page(info, blkno, HAMMING_PAGE_APPENDIX, epoch, callback,
							   callback_state, live, &blkno);
	}
	return removed;
}

/*
 * Tombstone the dead rows of the generation the last merge retired: its TID
 * pages, found by walking its chain of map pages.
 */
static void
vacuum_retired_gen(IndexVacuumInfo *info, const HammingGenInfo *gen,
				   BlockNumber mapblk, IndexBulkDeleteCallback callback,
				   void *callback_state)
{
	uint32		first = gen->tid_first;
	uint32		last = first + (uint32) ((gen->rows + HAMMING_TIDS_PER_PAGE - 1) / HAMMING_TIDS_PER_PAGE);
	uint32		base = 0;
	double		ignored = 0;

	while (mapblk != InvalidBlockNumber && base < last)
	{
		Buffer		buf = ReadBufferExtended(info->index, MAIN_FORKNUM, mapblk,
											 RBM_NORMAL, info->strategy);
		Page		page;
		uint32		n;
		BlockNumber *blocks;

		LockBuffer(buf, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buf);
		hamming_check_page(info->index, page, mapblk, HAMMING_PAGE_MAP, gen->epoch);
		n = HammingPageGetOpaque(page)->nitems;
		blocks = palloc(sizeof(BlockNumber) * n);
		memcpy(blocks, HammingPageU32(page), sizeof(BlockNumber) * n);
		mapblk = HammingPageGetOpaque(page)->next;
		UnlockReleaseBuffer(buf);
		for (uint32 i = 0; i < n; i++)
			if (base + i >= first && base + i < last)
			{
				vacuum_delay_point(false);
				(void) vacuum_page(info, blocks[i], HAMMING_PAGE_TIDS, gen->epoch,
								   callback, callback_state, &ignored, NULL);
			}
		base += n;
		pfree(blocks);
	}
}

/*
 * ambulkdelete: every row the callback calls dead becomes a tombstone, in
 * the generation and the appendix, and in what the last merge retired if
 * it is not recycled yet: a scan that started before that merge may still
 * read it, and must not find a row whose heap tuple VACUUM then removes.
 */
IndexBulkDeleteResult *
hamming_bulk_delete(IndexVacuumInfo *info, IndexBulkDeleteResult *stats,
					IndexBulkDeleteCallback callback, void *callback_state)
{
	Relation	index = info->index;
	HammingMetaCopy mc;
	HammingGen *gen;
	uint32		rowpages;
	int64		removed = 0;
	double		live = 0;

	if (stats == NULL)
		stats = palloc0(sizeof(IndexBulkDeleteResult));
	hamming_read_meta(index, &mc);
	gen = &mc.gen;
	rowpages = (uint32) ((gen->info.rows + HAMMING_TIDS_PER_PAGE - 1) / HAMMING_TIDS_PER_PAGE);
	for (uint32 p = 0; p < rowpages; p++)
	{
		vacuum_delay_point(false);
		removed += vacuum_page(info, hamming_gen_block(gen, gen->info.tid_first + p),
							   HAMMING_PAGE_TIDS, gen->info.epoch, callback,
							   callback_state, &live, NULL);
	}
	removed += vacuum_list(info, mc.meta->app_head, mc.meta->app_epoch,
						   callback, callback_state, &live);
	if (mc.meta->sealed_head != InvalidBlockNumber)
		removed += vacuum_list(info, mc.meta->sealed_head, mc.meta->sealed_epoch,
							   callback, callback_state, &live);
	if (removed > 0)
		add_dead_rows(index, removed);
	if (mc.meta->retire_pending)
	{
		double		ignored = 0;

		vacuum_retired_gen(info, &mc.meta->retired_gen, mc.meta->retired_map,
						   callback, callback_state);
		if (mc.meta->retired_list != InvalidBlockNumber)
			(void) vacuum_list(info, mc.meta->retired_list, mc.meta->retired_list_epoch,
							   callback, callback_state, &ignored);
	}
	hamming_free_meta(&mc);

	stats->tuples_removed += removed;
	stats->num_index_tuples = live;
	stats->num_pages = RelationGetNumberOfBlocks(index);
	return stats;
}

/* Put the live rows of a list into a sorter. */
static void
sort_list_rows(Relation index, HammingSorter *sorter, BlockNumber blkno,
			   uint64 epoch)
{
	while (blkno != InvalidBlockNumber)
	{
		Buffer		buf = ReadBuffer(index, blkno);
		Page		page;
		HammingPageOpaque opaque;

		CHECK_FOR_INTERRUPTS();
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buf);
		hamming_check_page(index, page, blkno, HAMMING_PAGE_APPENDIX, epoch);
		opaque = HammingPageGetOpaque(page);
		for (uint32 i = 0; i < opaque->nitems; i++)
		{
			ItemPointerData tid = HammingPageTids(page)[i];
			bool		isnull = (tid.ip_posid & HAMMING_TID_NULL) != 0;

			if (!hamming_tid_live(&tid))
				continue;
			tid.ip_posid &= ~HAMMING_TID_NULL;
			hamming_sorter_put(sorter, HammingPageKeys(page)[i],
							   hamming_tid_pack(&tid, isnull));
		}
		blkno = opaque->next;
		UnlockReleaseBuffer(buf);
	}
}

/*
 * Seal the appendix: the tail page gets the sealed flag and the metapage
 * starts an empty list; the old one becomes the sealed list.  When a
 * sealed list is left by a merge that did not finish, it is kept and the
 * appendix is left alone.  Reserves the epoch of the new generation.
 */
static void
seal_appendix(Relation index, uint64 *gen_epoch)
{
	Buffer		metabuf = ReadBuffer(index, HAMMING_METAPAGE_BLKNO);
	Buffer		tailbuf = InvalidBuffer;
	GenericXLogState *state;
	HammingMetaPageData *meta;

	LockBuffer(metabuf, BUFFER_LOCK_EXCLUSIVE);
	meta = HammingPageGetMeta(BufferGetPage(metabuf));
	if (meta->sealed_head == InvalidBlockNumber && meta->app_tail != InvalidBlockNumber)
	{
		tailbuf = ReadBuffer(index, meta->app_tail);
		LockBuffer(tailbuf, BUFFER_LOCK_EXCLUSIVE);
	}
	state = GenericXLogStart(index);
	meta = HammingPageGetMeta(GenericXLogRegisterBuffer(state, metabuf, 0));
	if (meta->sealed_head == InvalidBlockNumber && meta->app_head != InvalidBlockNumber)
	{
		if (BufferIsValid(tailbuf))
		{
			Page		tail = GenericXLogRegisterBuffer(state, tailbuf, 0);

			HammingPageGetOpaque(tail)->flags |= HAMMING_FLAG_SEALED;
		}
		meta->sealed_head = meta->app_head;
		meta->sealed_epoch = meta->app_epoch;
		meta->sealed_pages = meta->app_pages;
		meta->app_head = InvalidBlockNumber;
		meta->app_tail = InvalidBlockNumber;
		meta->app_pages = 0;
		meta->app_epoch = ++meta->last_epoch;
	}
	*gen_epoch = ++meta->last_epoch;
	meta->merging = 1;
	GenericXLogFinish(state);
	if (BufferIsValid(tailbuf))
		UnlockReleaseBuffer(tailbuf);
	UnlockReleaseBuffer(metabuf);
}

/* Merge the generation and the sealed appendix into a new generation. */
static void
merge(Relation index)
{
	uint64		gen_epoch;
	HammingMetaCopy mc;
	HammingGen *gen;
	HammingSorter *sorter;
	HammingGenInfo info;
	BlockNumber *mapblocks;
	HammingCursor keycur = {InvalidBuffer, 0};
	HammingCursor tidcur = {InvalidBuffer, 0};
	Buffer		metabuf;
	GenericXLogState *state;
	HammingMetaPageData *meta;
	HammingGenInfo old_gen;
	BlockNumber old_map;
	BlockNumber old_list;
	uint64		old_list_epoch;

	seal_appendix(index, &gen_epoch);
	hamming_crash_point_reached(HAMMING_CRASH_SEALED);
	hamming_read_meta(index, &mc);
	gen = &mc.gen;

	sorter = hamming_sorter_begin();
	for (uint64 p = 0; p < gen->info.rows; p++)
	{
		ItemPointerData tid = *hamming_gen_tid(gen, &tidcur, p);
		bool		isnull = (tid.ip_posid & HAMMING_TID_NULL) != 0;

		if (p % HAMMING_TIDS_PER_PAGE == 0)
			CHECK_FOR_INTERRUPTS();
		if (!hamming_tid_live(&tid))
			continue;
		tid.ip_posid &= ~HAMMING_TID_NULL;
		hamming_sorter_put(sorter, *hamming_gen_key(gen, &keycur, p),
						   hamming_tid_pack(&tid, isnull));
	}
	hamming_cursor_release(&keycur);
	hamming_cursor_release(&tidcur);
	if (mc.meta->sealed_head != InvalidBlockNumber)
		sort_list_rows(index, sorter, mc.meta->sealed_head, mc.meta->sealed_epoch);
	hamming_sorter_finish(sorter);
	hamming_write_generation(index, sorter, gen_epoch, false, &info, &mapblocks);
	hamming_crash_point_reached(HAMMING_CRASH_WRITTEN);
	old_gen = mc.meta->gen;
	old_map = mc.meta->gen.nmap > 0 ? mc.meta->map[0] : InvalidBlockNumber;
	old_list = mc.meta->sealed_head;
	old_list_epoch = mc.meta->sealed_epoch;
	hamming_free_meta(&mc);

	/* switch, and retire the old pages */
	metabuf = ReadBuffer(index, HAMMING_METAPAGE_BLKNO);
	LockBuffer(metabuf, BUFFER_LOCK_EXCLUSIVE);
	state = GenericXLogStart(index);
	meta = HammingPageGetMeta(GenericXLogRegisterBuffer(state, metabuf,
														GENERIC_XLOG_FULL_IMAGE));
	meta->version = HAMMING_VERSION;	/* old_gen was read as this version */
	meta->gen = info;
	memcpy(meta->map, mapblocks, sizeof(BlockNumber) * info.nmap);
	meta->sealed_head = InvalidBlockNumber;
	meta->sealed_pages = 0;
	meta->dead_rows = 0;
	meta->retire_xid = ReadNextFullTransactionId();
	meta->retire_pending = 1;
	meta->retired_gen = old_gen;
	meta->retired_map = old_map;
	meta->retired_list = old_list;
	meta->retired_list_epoch = old_list_epoch;
	meta->merging = 0;
	GenericXLogFinish(state);
	UnlockReleaseBuffer(metabuf);
	pfree(mapblocks);
	hamming_crash_point_reached(HAMMING_CRASH_SWITCHED);
}

/* Whether a page belongs to the index's current structure. */
static bool
page_is_live(Page page, const HammingMetaPageData *meta)
{
	HammingPageOpaque opaque = HammingPageGetOpaque(page);

	switch (opaque->kind)
	{
		case HAMMING_PAGE_META:
			return true;
		case HAMMING_PAGE_KEYS:
		case HAMMING_PAGE_TIDS:
		case HAMMING_PAGE_ENTRIES:
		case HAMMING_PAGE_DIR:
		case HAMMING_PAGE_MAP:
			return opaque->epoch == meta->gen.epoch;
		case HAMMING_PAGE_APPENDIX:
			return opaque->epoch == meta->app_epoch ||
				(meta->sealed_head != InvalidBlockNumber &&
				 opaque->epoch == meta->sealed_epoch);
		default:
			return false;
	}
}

/* Set the metapage's retire_pending and merging flags. */
static void
set_recycle_flags(Relation index, uint32 retire_pending, uint32 merging)
{
	Buffer		metabuf = ReadBuffer(index, HAMMING_METAPAGE_BLKNO);
	GenericXLogState *state;
	HammingMetaPageData *meta;

	LockBuffer(metabuf, BUFFER_LOCK_EXCLUSIVE);
	state = GenericXLogStart(index);
	meta = HammingPageGetMeta(GenericXLogRegisterBuffer(state, metabuf, 0));
	meta->retire_pending = retire_pending;
	meta->merging = merging;
	GenericXLogFinish(state);
	UnlockReleaseBuffer(metabuf);
}

/*
 * Recycle every page that is not part of the current structure, when the
 * last merge retired pages and that is old enough, or a merge was cut short
 * by a crash (its pages are orphans); returns false when a retirement is
 * still too recent (nothing done).  Pages are marked free (WAL-logged)
 * before they go to the free space map, so that a page listed there after
 * it was taken is recognized as in use.
 */
static bool
recycle_pages(IndexVacuumInfo *info, IndexBulkDeleteResult *stats)
{
	Relation	index = info->index;
	HammingMetaCopy mc;
	BlockNumber nblocks;
	bool		pending;
	BlockNumber nfree = 0;

	hamming_read_meta(index, &mc);
	pending = mc.meta->retire_pending != 0;
	if (pending && !GlobalVisCheckRemovableFullXid(NULL, mc.meta->retire_xid))
	{
		hamming_free_meta(&mc);
		return false;
	}
	if (!pending && !mc.meta->merging)
	{
		hamming_free_meta(&mc);
		return true;
	}

	/*
	 * The retired pages stop being the retired generation before the first
	 * is freed: a crash in the loop below must not leave a metapage whose
	 * retired generation (tombstoned by ambulkdelete) has free pages.  The
	 * merging flag makes the next VACUUM free what this one did not.
	 */
	if (pending)
		set_recycle_flags(index, 0, 1);

	nblocks = RelationGetNumberOfBlocks(index);
	for (BlockNumber blkno = HAMMING_METAPAGE_BLKNO + 1; blkno < nblocks; blkno++)
	{
		Buffer		buf;
		Page		page;

		vacuum_delay_point(false);
		buf = ReadBufferExtended(index, MAIN_FORKNUM, blkno, RBM_NORMAL, info->strategy);
		LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
		page = BufferGetPage(buf);
		if (PageIsNew(page) ||
			PageGetSpecialSize(page) != MAXALIGN(sizeof(HammingPageOpaqueData)))
		{
			if (PageIsNew(page))
			{
				RecordFreeIndexPage(index, blkno);
				nfree++;
			}
		}
		else if (HammingPageGetOpaque(page)->kind == HAMMING_PAGE_FREE)
		{
			RecordFreeIndexPage(index, blkno);
			nfree++;
		}
		else if (!page_is_live(page, mc.meta))
		{
			GenericXLogState *state = GenericXLogStart(index);
			Page		copy = GenericXLogRegisterBuffer(state, buf, 0);

			HammingPageGetOpaque(copy)->kind = HAMMING_PAGE_FREE;
			HammingPageGetOpaque(copy)->nitems = 0;
			GenericXLogFinish(state);
			RecordFreeIndexPage(index, blkno);
			nfree++;
			hamming_crash_point_reached(HAMMING_CRASH_RECYCLING);
		}
		UnlockReleaseBuffer(buf);
	}
	IndexFreeSpaceMapVacuum(index);
	hamming_free_meta(&mc);

	set_recycle_flags(index, 0, 0);
	stats->pages_free = nfree;
	return true;
}

/*
 * amvacuumcleanup: recycle what the last merge retired, merge when the
 * appendix and tombstones have grown enough, report the index's size.
 */
IndexBulkDeleteResult *
hamming_vacuum_cleanup(IndexVacuumInfo *info, IndexBulkDeleteResult *stats)
{
	Relation	index = info->index;
	HammingMetaCopy mc;
	uint64		app_rows;
	uint64		sealed_rows = 0;
	bool		counted = stats != NULL;

	if (info->analyze_only)
		return stats;
	if (stats == NULL)
		stats = palloc0(sizeof(IndexBulkDeleteResult));

	if (recycle_pages(info, stats))
	{
		double		fraction = hamming_merge_fraction(index);

		hamming_read_meta(index, &mc);
		app_rows = hamming_list_rows(index, mc.meta->app_head, mc.meta->app_epoch);
		if (mc.meta->sealed_head != InvalidBlockNumber)
			sealed_rows = hamming_list_rows(index, mc.meta->sealed_head, mc.meta->sealed_epoch);
		if (sealed_rows > 0 ||
			(app_rows + mc.meta->dead_rows > 0 &&
			 (double) (app_rows + mc.meta->dead_rows) >= fraction * (double) mc.meta->gen.rows))
		{
			merge(index);
			counted = false;
		}
		hamming_free_meta(&mc);
	}

	if (!counted)
	{
		hamming_read_meta(index, &mc);
		app_rows = hamming_list_rows(index, mc.meta->app_head, mc.meta->app_epoch);
		if (mc.meta->sealed_head != InvalidBlockNumber)
			app_rows += hamming_list_rows(index, mc.meta->sealed_head, mc.meta->sealed_epoch);
		stats->num_index_tuples = (double) (mc.meta->gen.rows + app_rows) -
			(double) mc.meta->dead_rows;
		hamming_free_meta(&mc);
	}
	stats->num_pages = RelationGetNumberOfBlocks(index);
	return stats;
}
