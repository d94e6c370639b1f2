/*-------------------------------------------------------------------------
 *
 * hamming_build.c
 *	  Building a generation of the hamming access method by sorting: the
 *	  rows sorted by key into table 0 (keys and TIDs), then for each other
 *	  block the table keys sorted into table t, each with its directory
 *	  (Manku, Jain and Das Sarma 2007, s.3: the sorted permuted tables;
 *	  built once by sorting, as the paper's batch construction).
 *
 * The sorts run in maintenance_work_mem (hamming_sort.c: a radix sort in
 * memory, sorted runs in temporary files merged beyond).  CREATE INDEX
 * (hamming_build) feeds the rows of the heap; the merge of VACUUM
 * (hamming_vacuum.c) feeds the rows of the old generation and of the
 * sealed appendix.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "hamming.h"

#include "access/generic_xlog.h"
#include "access/tableam.h"
#include "access/xloginsert.h"
#include "catalog/index.h"
#include "commands/progress.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/smgr.h"
#include "utils/memutils.h"
#include "utils/rel.h"

/*
 * The rows of a generation to sort: the rows with a fingerprint by key
 * (key, packed TID), the rows whose fingerprint is NULL apart (packed TID;
 * they go last, in any order).
 */
struct HammingSorter
{
	HammingWordSort *keyed;
	HammingWordSort *nulls;
};

/* Start collecting rows to sort, in maintenance_work_mem. */
HammingSorter *
hamming_sorter_begin(void)
{
	HammingSorter *s = palloc0(sizeof(HammingSorter));
	Size		limit = (Size) maintenance_work_mem * 1024;

	/* NULL rows are rare: an eighth of the memory before they spill */
	s->keyed = hamming_wordsort_begin(2, limit - limit / 8, 0);
	s->nulls = hamming_wordsort_begin(1, limit / 8, 0);
	return s;
}

/* Add a row (key 0 and the NULL flag in packed_tid for a NULL fingerprint). */
void
hamming_sorter_put(HammingSorter *s, uint64 key, uint64 packed_tid)
{
	if (packed_tid >> 63)
		hamming_wordsort_put(s->nulls, &packed_tid);
	else
	{
		uint64		row[2] = {key, packed_tid};

		hamming_wordsort_put(s->keyed, row);
	}
}

/* Sort the collected rows: by key, the rows with a NULL fingerprint last. */
void
hamming_sorter_finish(HammingSorter *s)
{
	hamming_wordsort_finish(s->keyed);
	hamming_wordsort_finish(s->nulls);
}

/* Number of rows put. */
uint64
hamming_sorter_count(HammingSorter *s)
{
	return hamming_wordsort_count(s->keyed) + hamming_wordsort_count(s->nulls);
}

/* The next row in sorted order; false at the end. */
static bool
sorter_next(HammingSorter *s, uint64 *key, uint64 *ptid)
{
	const uint64 *v = hamming_wordsort_next(s->keyed);

	if (v != NULL)
	{
		*key = v[0];
		*ptid = v[1];
		return true;
	}
	v = hamming_wordsort_next(s->nulls);
	if (v == NULL)
		return false;
	*key = 0;
	*ptid = v[0];
	return true;
}

/* Free a sorter. */
static void
sorter_end(HammingSorter *s)
{
	hamming_wordsort_end(s->keyed);
	hamming_wordsort_end(s->nulls);
	pfree(s);
}

/* A page being filled, and the logical page the next one gets. */
typedef struct PageStream
{
	Buffer		buf;			/* exclusively locked, or Invalid */
	Page		page;
	uint32		next;			/* next logical page (map slot) */
} PageStream;

/* Writes the pages of a generation, recording their blocks in its map. */
typedef struct GenWriter
{
	Relation	index;
	bool		building;		/* CREATE INDEX: new blocks, WAL at the end */
	uint64		epoch;
	BlockNumber *map;			/* logical page -> block */
	uint32		npages;			/* logical pages reserved */
	uint32		maxpages;
	PageStream	main;			/* sequential writes */
} GenWriter;

/*
 * Finish a stream's page: dirty, and WAL-logged as a full image (in a
 * build, log_newpage_range logs every page at the end).
 */
static void
stream_flush(GenWriter *w, PageStream *st)
{
	if (!BufferIsValid(st->buf))
		return;
	START_CRIT_SECTION();
	MarkBufferDirty(st->buf);
	if (!w->building && RelationNeedsWAL(w->index))
		log_newpage_buffer(st->buf, true);
	END_CRIT_SECTION();
	UnlockReleaseBuffer(st->buf);
	st->buf = InvalidBuffer;
	st->page = NULL;
}

/*
 * Enter a subphase of CREATE INDEX that writes total rows (reported only
 * when building: a merge of VACUUM runs under VACUUM's progress report).
 */
static void
report_phase(GenWriter *w, int phase, uint64 total)
{
	const int	index[] = {
		PROGRESS_CREATEIDX_SUBPHASE,
		PROGRESS_CREATEIDX_TUPLES_TOTAL,
		PROGRESS_CREATEIDX_TUPLES_DONE
	};
	const int64 val[] = {phase, (int64) total, 0};

	if (w->building)
		pgstat_progress_update_multi_param(3, index, val);
}

/* Report done rows of the current subphase of CREATE INDEX. */
static void
report_done(GenWriter *w, uint64 done)
{
	if (w->building)
		pgstat_progress_update_param(PROGRESS_CREATEIDX_TUPLES_DONE, (int64) done);
}

/* Reserve n logical pages (map slots); returns the first. */
static uint32
writer_reserve(GenWriter *w, uint32 n)
{
	uint32		first = w->npages;

	while (w->npages + n > w->maxpages)
	{
		w->maxpages *= 2;
		w->map = repalloc_huge(w->map, sizeof(BlockNumber) * w->maxpages);
	}
	w->npages += n;
	return first;
}

/*
 * Start a stream's next page, of the given kind; a logical one takes the
 * stream's next map slot.
 */
static Page
stream_page(GenWriter *w, PageStream *st, uint8 kind, bool logical)
{
	stream_flush(w, st);
	CHECK_FOR_INTERRUPTS();
	st->buf = hamming_new_buffer(w->index, !w->building);
	st->page = BufferGetPage(st->buf);
	hamming_init_page(st->page, kind, w->epoch);
	if (logical)
		w->map[st->next++] = BufferGetBlockNumber(st->buf);
	return st->page;
}

/* Start a page appended to the generation's logical pages. */
static Page
writer_page(GenWriter *w, uint8 kind)
{
	w->main.next = writer_reserve(w, 1);
	return stream_page(w, &w->main, kind, true);
}

/* Finish the sequential stream's page. */
static void
writer_flush(GenWriter *w)
{
	stream_flush(w, &w->main);
}

/*
 * Table 0: the sorted rows, their keys on key pages and their TIDs on TID
 * pages (two streams into two reserved ranges); counts its buckets.
 */
static void
write_rows(GenWriter *w, HammingSorter *s, HammingGenInfo *info, uint32 *counts)
{
	uint32		kpages = (uint32) ((info->rows + HAMMING_KEYS_PER_PAGE - 1) / HAMMING_KEYS_PER_PAGE);
	uint32		tpages = (uint32) ((info->rows + HAMMING_TIDS_PER_PAGE - 1) / HAMMING_TIDS_PER_PAGE);
	PageStream	keys = {InvalidBuffer, NULL, 0};
	PageStream	tids = {InvalidBuffer, NULL, 0};
	int			nk = HAMMING_KEYS_PER_PAGE;
	int			nt = HAMMING_TIDS_PER_PAGE;
	uint64		key;
	uint64		ptid;
	uint64		done = 0;

	info->table_first[0] = keys.next = writer_reserve(w, kpages);
	info->tid_first = tids.next = writer_reserve(w, tpages);
	while (sorter_next(s, &key, &ptid))
	{
		ItemPointerData tid;

		if (nk == HAMMING_KEYS_PER_PAGE)
		{
			report_done(w, done);
			stream_page(w, &keys, HAMMING_PAGE_KEYS, true);
			nk = 0;
		}
		if (nt == HAMMING_TIDS_PER_PAGE)
		{
			stream_page(w, &tids, HAMMING_PAGE_TIDS, true);
			nt = 0;
		}
		ItemPointerSetBlockNumber(&tid, (BlockNumber) ((ptid >> 16) & 0xFFFFFFFF));
		tid.ip_posid = (OffsetNumber) (ptid & 0xFFFF);
		if (ptid >> 63)
			tid.ip_posid |= HAMMING_TID_NULL;
		else
			counts[key >> (64 - info->dbits)]++;
		HammingPageKeyArray(keys.page)[nk] = key;
		HammingPageGetOpaque(keys.page)->nitems = ++nk;
		HammingPageTidArray(tids.page)[nt] = tid;
		HammingPageGetOpaque(tids.page)->nitems = ++nt;
		done++;
	}
	report_done(w, done);
	stream_flush(w, &keys);
	stream_flush(w, &tids);
	Assert(keys.next == info->table_first[0] + kpages && tids.next == info->tid_first + tpages);
}

/* A directory: the first entry of every bucket, and the total after them. */
static void
write_dir(GenWriter *w, const uint32 *counts, uint32 dbits)
{
	uint32		nbuckets = (uint32) 1 << dbits;
	int			per = HAMMING_U32_PER_PAGE;
	int			n = per;
	uint32		sum = 0;

	for (uint32 v = 0; v <= nbuckets; v++)
	{
		if (n == per)
		{
			writer_page(w, HAMMING_PAGE_DIR);
			n = 0;
		}
		HammingPageU32(w->main.page)[n] = sum;
		HammingPageGetOpaque(w->main.page)->nitems = ++n;
		if (v < nbuckets)
			sum += counts[v];
	}
	writer_flush(w);
}

/* table-t keys are cut into slices by their top bits (SLICE_BITS of them) */
#define SLICE_BITS		16
#define SLICE_PREFIXES	(1 << SLICE_BITS)
/* keys of up to this many times the memory are sorted in slices */
#define SLICE_MAX_MEMORIES	7

/*
 * Read the table-t keys of the keyed rows back from table 0's pages: count
 * them by prefix (prefix_counts, if not NULL), and put those whose prefix
 * is in [lo, hi) into ws (if not NULL).
 */
static void
read_table_keys(GenWriter *w, const HammingGenInfo *info, int t, uint64 *prefix_counts,
				HammingWordSort *ws, uint32 lo, uint32 hi)
{
	uint64		seen = 0;

	/* the keyed rows come first in table 0 */
	for (uint32 lp = info->table_first[0]; seen < info->keyed; lp++)
	{
		Buffer		buf = ReadBuffer(w->index, w->map[lp]);
		Page		page;
		uint32		nitems;

		LockBuffer(buf, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buf);
		nitems = HammingPageGetOpaque(page)->nitems;
		for (uint32 j = 0; j < nitems && seen < info->keyed; j++, seen++)
		{
			uint64		tkey = hamming_table_key(info, HammingPageKeyArray(page)[j], t);
			uint32		prefix = (uint32) (tkey >> (64 - SLICE_BITS));

			if (prefix_counts)
				prefix_counts[prefix]++;
			if (ws && prefix >= lo && prefix < hi)
				hamming_wordsort_put(ws, &tkey);
		}
		UnlockReleaseBuffer(buf);
		CHECK_FOR_INTERRUPTS();
	}
}

/*
 * Table t (1..3): the table-t keys of the keyed rows (read back from table
 * 0's pages), sorted, stored as their low 64 - dbits bits; counts buckets.
 * Keys that do not fit in maintenance_work_mem at once, but in a few
 * times it, are sorted in slices, ranges of their top bits that fit (one
 * more read of table 0 per slice, and one to count them), written one after
 * the other; beyond, and for a slice of one prefix that does not fit, the
 * sort spills to sorted runs (hamming_sort.c).
 */
static void
write_table(GenWriter *w, const HammingGenInfo *info, int t, uint32 *counts)
{
	uint64		keyed = info->keyed;
	int			width = (int) info->width;
	uint64		lowmask = info->dbits == 0 ? ~UINT64CONST(0) :
		(UINT64CONST(1) << (64 - info->dbits)) - 1;
	int			per = HammingEntriesPerPage(width);
	Size		mem = (Size) maintenance_work_mem * 1024;
	uint64		room = hamming_wordsort_room(1, mem);
	uint64	   *prefix_counts = NULL;
	uint32		lo = 0;
	uint64		i = 0;
	int			n = per;

	if (keyed == 0)
		return;
	/* slices only when a few of them fit; else one sort, spilled to runs */
	if (keyed > room && keyed <= room * SLICE_MAX_MEMORIES)
	{
		prefix_counts = palloc0(sizeof(uint64) * SLICE_PREFIXES);
		read_table_keys(w, info, t, prefix_counts, NULL, 0, 0);
	}
	while (lo < SLICE_PREFIXES)
	{
		uint32		hi = SLICE_PREFIXES;
		uint64		slice = keyed;
		HammingWordSort *ws;
		const uint64 *v;

		if (prefix_counts)
		{
			/* the longest range from lo that fits (at least one prefix) */
			slice = prefix_counts[lo];
			for (hi = lo + 1; hi < SLICE_PREFIXES && slice + prefix_counts[hi] <= room; hi++)
				slice += prefix_counts[hi];
		}
		ws = hamming_wordsort_begin(1, mem, Min(slice, room));
		read_table_keys(w, info, t, NULL, ws, lo, hi);
		hamming_wordsort_finish(ws);
		while ((v = hamming_wordsort_next(ws)) != NULL)
		{
			if (n == per)
			{
				report_done(w, (uint64) (t - 1) * keyed + i);
				writer_page(w, HAMMING_PAGE_ENTRIES);
				n = 0;
			}
			nddup_ham_packed_store(HammingPageEntries(w->main.page), n, width, *v & lowmask);
			HammingPageGetOpaque(w->main.page)->nitems = ++n;
			counts[*v >> (64 - info->dbits)]++;
			i++;
		}
		hamming_wordsort_end(ws);
		lo = hi;
	}
	if (i != keyed)
		elog(ERROR, "hamming index build: table %d sorted %llu of %llu keys",
			 t, (unsigned long long) i, (unsigned long long) keyed);
	writer_flush(w);
	if (prefix_counts)
		pfree(prefix_counts);
}

/* The map pages of a generation (not logical pages themselves). */
static void
write_map(GenWriter *w, HammingGenInfo *info, BlockNumber **mapblocks)
{
	int			per = HAMMING_U32_PER_PAGE;
	uint32		nmap = (w->npages + per - 1) / per;

	if (nmap > (uint32) HAMMING_MAX_MAP_PAGES)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("hamming index \"%s\" would need %u pages, more than its limit of %u",
						RelationGetRelationName(w->index), w->npages,
						(uint32) HAMMING_MAX_MAP_PAGES * per)));
	*mapblocks = palloc(sizeof(BlockNumber) * Max(nmap, 1));
	/* written last to first, so that each links to the next */
	for (int m = (int) nmap - 1; m >= 0; m--)
	{
		uint32		first = (uint32) m * per;
		uint32		count = Min((uint32) per, w->npages - first);
		BlockNumber next = (m + 1 < (int) nmap) ? (*mapblocks)[m + 1] : InvalidBlockNumber;

		stream_page(w, &w->main, HAMMING_PAGE_MAP, false);
		memcpy(HammingPageU32(w->main.page), w->map + first, sizeof(BlockNumber) * count);
		HammingPageGetOpaque(w->main.page)->nitems = count;
		HammingPageGetOpaque(w->main.page)->next = next;
		(*mapblocks)[m] = BufferGetBlockNumber(w->main.buf);
		writer_flush(w);
	}
	info->nmap = nmap;
}

/*
 * Write a generation of the given epoch from the sorted rows of sorter
 * (which this ends): table 0 and its directory, then tables 1..3 and
 * theirs, then the map.  Fills info and the map's block list; the caller
 * puts them into the metapage.  building: a CREATE INDEX, whose caller
 * WAL-logs every block at the end; else pages come from the free space map
 * and are WAL-logged one by one.
 */
void
hamming_write_generation(Relation index, HammingSorter *sorter, uint64 epoch,
						 bool building, HammingGenInfo *info,
						 BlockNumber **mapblocks)
{
	GenWriter	w;
	uint32	   *counts;

	memset(info, 0, sizeof(HammingGenInfo));
	info->epoch = epoch;
	info->rows = hamming_sorter_count(sorter);
	info->keyed = hamming_wordsort_count(sorter->keyed);
	info->ntables = hamming_choose_tables((double) info->keyed,
										  hamming_tables_option(index));
	info->dbits = hamming_dir_bits(info->keyed, info->ntables);
	info->width = (uint32) hamming_entry_width(info->dbits);

	memset(&w, 0, sizeof(w));
	w.index = index;
	w.building = building;
	w.epoch = epoch;
	w.maxpages = 1024;
	w.map = palloc(sizeof(BlockNumber) * w.maxpages);
	w.main.buf = InvalidBuffer;
	counts = palloc(sizeof(uint32) * ((Size) 1 << info->dbits));

	memset(counts, 0, sizeof(uint32) * ((Size) 1 << info->dbits));
	report_phase(&w, HAMMING_PHASE_TABLE0, info->rows);
	write_rows(&w, sorter, info, counts);
	sorter_end(sorter);			/* tables 1..3 read table 0 back */
	info->dir_first[0] = w.npages;
	write_dir(&w, counts, info->dbits);
	if (!building)
		hamming_crash_point_reached(HAMMING_CRASH_WRITING);
	report_phase(&w, HAMMING_PHASE_TABLES, info->keyed * (info->ntables - 1));
	for (int t = 1; t < (int) info->ntables; t++)
	{
		memset(counts, 0, sizeof(uint32) * ((Size) 1 << info->dbits));
		info->table_first[t] = w.npages;
		write_table(&w, info, t, counts);
		info->dir_first[t] = w.npages;
		write_dir(&w, counts, info->dbits);
	}
	info->npages = w.npages;
	write_map(&w, info, mapblocks);
	pfree(counts);
	pfree(w.map);
}

/* Per-row callback of the heap scan of CREATE INDEX. */
static void
build_callback(Relation index, ItemPointer tid, Datum *values, bool *isnull,
			   bool tupleIsAlive, void *state)
{
	HammingSorter *sorter = (HammingSorter *) state;
	uint64		key = isnull[0] ? 0 : nddup_ham_key(DatumGetSimhash64(values[0]));

	hamming_sorter_put(sorter, key, hamming_tid_pack(tid, isnull[0]));
	pgstat_progress_update_param(PROGRESS_CREATEIDX_TUPLES_DONE, (int64) hamming_sorter_count(sorter));
}

/*
 * ambuild: the metapage, then one generation from the sorted heap rows,
 * every block WAL-logged at the end (as other access methods that write
 * their pages in one pass do).
 */
IndexBuildResult *
hamming_build(Relation heap, Relation index, IndexInfo *indexInfo)
{
	IndexBuildResult *result;
	HammingSorter *sorter;
	HammingGenInfo info;
	BlockNumber *mapblocks;
	Buffer		buf;
	HammingMetaPageData *meta;
	double		reltuples;

	if (RelationGetNumberOfBlocks(index) != 0)
		elog(ERROR, "index \"%s\" already contains data",
			 RelationGetRelationName(index));

	buf = hamming_new_buffer(index, false);
	Assert(BufferGetBlockNumber(buf) == HAMMING_METAPAGE_BLKNO);
	hamming_init_meta(BufferGetPage(buf));
	MarkBufferDirty(buf);
	UnlockReleaseBuffer(buf);

	sorter = hamming_sorter_begin();
	pgstat_progress_update_param(PROGRESS_CREATEIDX_SUBPHASE, HAMMING_PHASE_SCAN);
	reltuples = table_index_build_scan(heap, index, indexInfo, true, true,
									   build_callback, sorter, NULL);
	pgstat_progress_update_param(PROGRESS_CREATEIDX_SUBPHASE, HAMMING_PHASE_SORT);
	hamming_sorter_finish(sorter);
	result = palloc(sizeof(IndexBuildResult));
	result->heap_tuples = reltuples;
	result->index_tuples = (double) hamming_sorter_count(sorter);
	hamming_write_generation(index, sorter, 1, true, &info, &mapblocks);

	buf = ReadBuffer(index, HAMMING_METAPAGE_BLKNO);
	LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
	meta = HammingPageGetMeta(BufferGetPage(buf));
	meta->gen = info;
	memcpy(meta->map, mapblocks, sizeof(BlockNumber) * info.nmap);
	meta->last_epoch = 2;
	meta->app_epoch = 2;
	MarkBufferDirty(buf);
	UnlockReleaseBuffer(buf);

	if (RelationNeedsWAL(index))
		log_newpage_range(index, MAIN_FORKNUM, 0,
						  RelationGetNumberOfBlocks(index), true);
	return result;
}

/* ambuildempty: the metapage of an empty index in the init fork. */
void
hamming_build_empty(Relation index)
{
	Page		page = (Page) palloc(BLCKSZ);

	hamming_init_meta(page);
	PageSetChecksumInplace(page, HAMMING_METAPAGE_BLKNO);
	smgrwrite(RelationGetSmgr(index), INIT_FORKNUM, HAMMING_METAPAGE_BLKNO,
			  (char *) page, true);
	log_newpage(NDDUP_RELATION_LOCATOR(index), INIT_FORKNUM,
				HAMMING_METAPAGE_BLKNO, page, true);
	smgrimmedsync(RelationGetSmgr(index), INIT_FORKNUM);
	pfree(page);
}

/* ambuildphasename: the name of a subphase of CREATE INDEX, or NULL. */
char *
hamming_build_phase_name(int64 phasenum)
{
	switch (phasenum)
	{
		case PROGRESS_CREATEIDX_SUBPHASE_INITIALIZE:
			return "initializing";
		case HAMMING_PHASE_SCAN:
			return "scanning table";
		case HAMMING_PHASE_SORT:
			return "sorting fingerprints";
		case HAMMING_PHASE_TABLE0:
			return "writing the sorted table";
		case HAMMING_PHASE_TABLES:
			return "writing the permuted tables";
		default:
			return NULL;
	}
}
