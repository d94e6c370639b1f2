/*-------------------------------------------------------------------------
 *
 * hamming_insert.c
 *	  Inserts into a hamming index: the row (its key and heap TID) is
 *	  appended to the last page of the appendix, a list of unsorted row
 *	  pages that every query scans and that VACUUM merges into the sorted
 *	  generation once it has grown (hamming_vacuum.c).
 *
 * Locking: the metapage says which page is the tail.  The common case
 * reads it under a share lock, locks that page exclusively, checks that it
 * is still the unsealed tail of the current list and appends.  Otherwise
 * (the page is full, there is none yet, or a merge has sealed it since) the
 * insert takes the metapage exclusively, then the tail, and appends there
 * or to a new page that it links and makes the tail: one generic WAL
 * record for the three pages.  A merge seals the tail under the same two
 * locks.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "hamming.h"

#include "access/generic_xlog.h"
#include "miscadmin.h"
#include "utils/rel.h"

/* Whether an appendix page can take rows: the unsealed tail of the list. */
static bool
tail_usable(Page page, uint64 epoch)
{
	HammingPageOpaque opaque;

	if (PageIsNew(page) ||
		PageGetSpecialSize(page) != MAXALIGN(sizeof(HammingPageOpaqueData)))
		return false;
	opaque = HammingPageGetOpaque(page);
	return opaque->kind == HAMMING_PAGE_APPENDIX && opaque->epoch == epoch &&
		!(opaque->flags & HAMMING_FLAG_SEALED) &&
		opaque->next == InvalidBlockNumber;
}

/* Put a row at the end of a row page (the page's WAL copy, or a new page). */
static void
page_add_row(Page page, uint64 key, ItemPointer tid)
{
	HammingPageOpaque opaque = HammingPageGetOpaque(page);

	Assert(opaque->nitems < (uint32) HAMMING_ROWS_PER_PAGE);
	HammingPageKeys(page)[opaque->nitems] = key;
	HammingPageTids(page)[opaque->nitems] = *tid;
	opaque->nitems++;
}

/* Append a row to a page that has room, WAL-logged. */
static void
append_row(Relation index, Buffer buf, uint64 key, ItemPointer tid)
{
	GenericXLogState *state = GenericXLogStart(index);
	Page		page = GenericXLogRegisterBuffer(state, buf, 0);

	page_add_row(page, key, tid);
	GenericXLogFinish(state);
}

/*
 * The slow path: under the metapage lock, append to the tail if it has
 * room, else start a new tail page holding the row.
 */
static void
append_with_new_page(Relation index, uint64 key, ItemPointer tid)
{
	Buffer		metabuf = ReadBuffer(index, HAMMING_METAPAGE_BLKNO);
	Buffer		tailbuf = InvalidBuffer;
	Buffer		newbuf;
	HammingMetaPageData *meta;
	GenericXLogState *state;
	Page		metapage;
	Page		newpage;

	LockBuffer(metabuf, BUFFER_LOCK_EXCLUSIVE);
	meta = HammingPageGetMeta(BufferGetPage(metabuf));
	if (meta->app_tail != InvalidBlockNumber)
	{
		Page		page;

		tailbuf = ReadBuffer(index, meta->app_tail);
		LockBuffer(tailbuf, BUFFER_LOCK_EXCLUSIVE);
		page = BufferGetPage(tailbuf);
		if (!tail_usable(page, meta->app_epoch))
			ereport(ERROR,
					(errcode(ERRCODE_INDEX_CORRUPTED),
					 errmsg("index \"%s\": the metapage names block %u as the appendix's tail, which it is not",
							RelationGetRelationName(index), meta->app_tail),
					 errhint("Please REINDEX it.")));
		if (HammingPageGetOpaque(page)->nitems < (uint32) HAMMING_ROWS_PER_PAGE)
		{
			append_row(index, tailbuf, key, tid);
			UnlockReleaseBuffer(tailbuf);
			UnlockReleaseBuffer(metabuf);
			return;
		}
	}

	newbuf = hamming_new_buffer(index, true);
	state = GenericXLogStart(index);
	metapage = GenericXLogRegisterBuffer(state, metabuf, 0);
	newpage = GenericXLogRegisterBuffer(state, newbuf, GENERIC_XLOG_FULL_IMAGE);
	meta = HammingPageGetMeta(metapage);
	hamming_init_page(newpage, HAMMING_PAGE_APPENDIX, meta->app_epoch);
	page_add_row(newpage, key, tid);
	if (BufferIsValid(tailbuf))
	{
		Page		tailpage = GenericXLogRegisterBuffer(state, tailbuf, 0);

		HammingPageGetOpaque(tailpage)->next = BufferGetBlockNumber(newbuf);
	}
	else
		meta->app_head = BufferGetBlockNumber(newbuf);
	meta->app_tail = BufferGetBlockNumber(newbuf);
	meta->app_pages++;
	GenericXLogFinish(state);

	UnlockReleaseBuffer(newbuf);
	if (BufferIsValid(tailbuf))
		UnlockReleaseBuffer(tailbuf);
	UnlockReleaseBuffer(metabuf);
}

/*
 * aminsert: append the row's key and TID (NULL fingerprints too, flagged,
 * so that ordered scans can return them last).
 */
bool
hamming_insert(Relation index, Datum *values, bool *isnull,
			   ItemPointer heap_tid, Relation heap,
			   IndexUniqueCheck checkUnique, bool indexUnchanged,
			   IndexInfo *indexInfo)
{
	uint64		key = isnull[0] ? 0 : nddup_ham_key(DatumGetSimhash64(values[0]));
	ItemPointerData tid = *heap_tid;

	if (isnull[0])
		tid.ip_posid |= HAMMING_TID_NULL;

	/* the common case: the tail named by the metapage has room */
	{
		Buffer		buf = ReadBuffer(index, HAMMING_METAPAGE_BLKNO);
		HammingMetaPageData *meta;
		BlockNumber tail;
		uint64		epoch;

		LockBuffer(buf, BUFFER_LOCK_SHARE);
		meta = HammingPageGetMeta(BufferGetPage(buf));
		tail = meta->app_tail;
		epoch = meta->app_epoch;
		UnlockReleaseBuffer(buf);
		if (tail != InvalidBlockNumber)
		{
			Page		page;

			buf = ReadBuffer(index, tail);
			LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
			page = BufferGetPage(buf);
			if (tail_usable(page, epoch) &&
				HammingPageGetOpaque(page)->nitems < (uint32) HAMMING_ROWS_PER_PAGE)
			{
				append_row(index, buf, key, &tid);
				UnlockReleaseBuffer(buf);
				return false;
			}
			/* full, or sealed by a merge since: under the metapage lock */
			UnlockReleaseBuffer(buf);
		}
	}
	append_with_new_page(index, key, &tid);
	return false;
}
