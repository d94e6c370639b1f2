/*-------------------------------------------------------------------------
 *
 * hamming.h
 *	  The hamming index access method: exact Hamming-radius and nearest-n
 *	  search over simhash64 (docs/indexes.md).  What its files share: the
 *	  page layout, the metapage, the generation reader, the cost model.
 *
 * An index holds one sorted *generation* and an *appendix*.
 *
 * The generation is built by sorting (CREATE INDEX, and the merge that
 * VACUUM runs when the appendix has grown).  It has `ntables` tables (2 to
 * 4), one per block of the key (src/core/hamming_kernel.h): the key's 64
 * bits cut into ntables runs, block t starting at bit 64 t / ntables (four
 * tables: the 16-bit blocks).  Each table is sorted by its table key (the
 * key rotated so that its block comes first) and has a directory of its
 * top `dbits` bits (at most the narrowest block).  The table count and
 * dbits are chosen from the row count at each build and merge
 * (hamming_choose_tables: Manku, Jain and Das Sarma 2007, s.3.1, fewer and
 * longer blocks as the collection grows, so that a probe's buckets stay
 * small), or forced by the index option `tables`:
 *
 *	table 0	every row's key (8 bytes, on key pages) and heap TID (6 bytes,
 *			on TID pages, in the same order), sorted by key, the rows whose
 *			fingerprint is NULL last (a pass over every row reads only the
 *			key pages);
 *	table t	(t = 1..ntables-1) entry pages: the low 64 - dbits bits of the row's
 *			table-t key, 6 to 8 bytes, sorted;
 *	dir t	the offset of every directory bucket in table t (uint32).
 *
 * Its pages are numbered 0..npages-1 ("logical pages"), in the order of the
 * list above; map pages list their block numbers, and the metapage lists
 * the map pages.  A generation is never changed after it is built, except
 * that VACUUM turns the TIDs of dead rows into tombstones.
 *
 * The appendix is a list of row pages in insertion order (keys and TIDs,
 * not sorted), to which inserts append; every query scans it.  A merge
 * seals it (new inserts go to a fresh list), builds a new generation from
 * the old one and the sealed list, and switches the metapage to it; the
 * pages of the old structures are recycled once no snapshot can still be
 * reading them.  Every page carries the epoch of its generation or list,
 * and a scan checks it: a page recycled under a scan (possible only on a
 * hot standby) raises an error instead of a wrong answer.
 *
 * Every change is WAL-logged: generic WAL records for inserts, tombstones
 * and the metapage, full-page images for the pages a build or merge writes.
 *
 *-------------------------------------------------------------------------
 */
#ifndef NDDUP_HAMMING_H
#define NDDUP_HAMMING_H

#include "nddup.h"
#include "core/hamming_kernel.h"

#include "access/amapi.h"
#include "access/genam.h"
#include "access/transam.h"
#include "nodes/execnodes.h"
#include "nodes/pathnodes.h"
#include "storage/bufmgr.h"
#include "storage/bufpage.h"
#include "storage/itemptr.h"
#include "utils/relcache.h"

/* strategies of simhash64_hamming_ops */
#define HAMMING_STRATEGY_IN_BALL	1	/* simhash64 <@ hamming_ball */
#define HAMMING_STRATEGY_DISTANCE	2	/* simhash64 <-> simhash64 (ORDER BY) */
#define HAMMING_NSTRATEGIES			2

#define HAMMING_MAGIC				0x484D4958	/* "HMIX" */
/*
 * Version 2 records the table count (HammingGenInfo.ntables); a version 1
 * metapage is read as ntables = 4 (hamming_meta_fixup).
 */
#define HAMMING_VERSION				2
#define HAMMING_METAPAGE_BLKNO		0
#define HAMMING_PAGE_ID				0xFF9A

#define HAMMING_TABLES				NDDUP_HAM_TABLES

/* page kinds */
#define HAMMING_PAGE_META			1
#define HAMMING_PAGE_KEYS			2	/* generation: keys of table 0 */
#define HAMMING_PAGE_ENTRIES		3	/* entries of tables 1..3 */
#define HAMMING_PAGE_DIR			4
#define HAMMING_PAGE_MAP			5
#define HAMMING_PAGE_APPENDIX		6
#define HAMMING_PAGE_FREE			7
#define HAMMING_PAGE_TIDS			8	/* generation: TIDs of table 0 */

/* page flags */
#define HAMMING_FLAG_SEALED			0x01	/* appendix page: no more inserts */

/* The special space of every page. */
typedef struct HammingPageOpaqueData
{
	uint64		epoch;			/* generation or appendix list of the page */
	BlockNumber next;			/* next page of an appendix list or of the
								 * generation's map pages */
	uint32		nitems;			/* rows, entries or offsets on the page */
	uint8		kind;			/* HAMMING_PAGE_* */
	uint8		flags;			/* HAMMING_FLAG_* */
	uint16		unused1;
	uint16		unused2;
	uint16		page_id;		/* HAMMING_PAGE_ID, for page inspection */
} HammingPageOpaqueData;

typedef HammingPageOpaqueData *HammingPageOpaque;

#define HammingPageGetOpaque(page) \
	((HammingPageOpaque) PageGetSpecialPointer(page))

/* bytes of a page available to its contents */
#define HAMMING_PAGE_SPACE \
	(BLCKSZ - MAXALIGN(SizeOfPageHeaderData) - MAXALIGN(sizeof(HammingPageOpaqueData)))

/* appendix pages: keys, then TIDs */
#define HAMMING_ROWS_PER_PAGE \
	((int) (HAMMING_PAGE_SPACE / (sizeof(uint64) + sizeof(ItemPointerData))))
#define HammingPageKeys(page)	((uint64 *) PageGetContents(page))
#define HammingPageTids(page) \
	((ItemPointerData *) (PageGetContents(page) + HAMMING_ROWS_PER_PAGE * sizeof(uint64)))

/* the generation's key pages and TID pages (table 0) */
#define HAMMING_KEYS_PER_PAGE	((int) (HAMMING_PAGE_SPACE / sizeof(uint64)))
#define HAMMING_TIDS_PER_PAGE	((int) (HAMMING_PAGE_SPACE / sizeof(ItemPointerData)))
#define HammingPageKeyArray(page)	((uint64 *) PageGetContents(page))
#define HammingPageTidArray(page)	((ItemPointerData *) PageGetContents(page))

/* entry pages: width-byte entries; 8 bytes kept free for 8-byte loads */
#define HammingEntriesPerPage(width)	((int) ((HAMMING_PAGE_SPACE - 8) / (width)))
#define HammingPageEntries(page)		((uint8 *) PageGetContents(page))

/* directory and map pages: arrays of uint32 */
#define HAMMING_U32_PER_PAGE	((int) (HAMMING_PAGE_SPACE / sizeof(uint32)))
#define HammingPageU32(page)	((uint32 *) PageGetContents(page))

/*
 * A TID's offset number with this bit set marks a row whose fingerprint is
 * NULL (its key is 0); an offset of 0 (InvalidOffsetNumber) a tombstone.
 * Heap offsets never reach 0x8000.
 */
#define HAMMING_TID_NULL		0x8000

/* The generation, as the metapage describes it. */
typedef struct HammingGenInfo
{
	uint64		epoch;
	uint64		rows;			/* rows in the row pages, NULL rows last */
	uint64		keyed;			/* rows with a fingerprint (sorted part) */
	uint32		dbits;			/* directory bits of every table */
	uint32		width;			/* bytes per entry of tables 1..3 */
	uint32		npages;			/* logical pages */
	uint32		nmap;			/* map pages */
	uint32		table_first[HAMMING_TABLES];	/* first logical page of table t
												 * (t = 0: its key pages) */
	uint32		tid_first;		/* first logical page of table 0's TIDs */
	uint32		dir_first[HAMMING_TABLES];	/* first logical page of dir t */
	uint32		ntables;		/* tables (version 2; in version 1 the
								 * structure's padding, read as 4) */
} HammingGenInfo;

/* ntables took the padding at the end: the layout of version 1 is kept */
StaticAssertDecl(sizeof(HammingGenInfo) == 80, "HammingGenInfo changed size");

/* Bit offset of block t of a key cut into ntables blocks. */
static inline int
hamming_block_offset(uint32 ntables, int t)
{
	return (int) ((64 * (uint32) t) / ntables);
}

/* The key in table t of a generation: block t first. */
static inline uint64
hamming_table_key(const HammingGenInfo *info, uint64 key, int t)
{
	int			s = hamming_block_offset(info->ntables, t);

	return s == 0 ? key : (key << s) | (key >> (64 - s));
}

/* The key again from a key of table t of a generation. */
static inline uint64
hamming_table_unkey(const HammingGenInfo *info, uint64 tkey, int t)
{
	int			s = hamming_block_offset(info->ntables, t);

	return s == 0 ? tkey : (tkey >> s) | (tkey << (64 - s));
}

/* The metapage (block 0). */
typedef struct HammingMetaPageData
{
	uint32		magic;
	uint32		version;
	uint64		last_epoch;		/* epochs handed out so far */
	HammingGenInfo gen;
	/* the appendix that inserts go to */
	uint64		app_epoch;
	BlockNumber app_head;
	BlockNumber app_tail;
	uint32		app_pages;
	/* the appendix a merge in progress is reading, or none */
	uint64		sealed_epoch;
	BlockNumber sealed_head;
	uint32		sealed_pages;
	uint64		dead_rows;		/* tombstones made since the last build */
	/*
	 * Pages retired by the last merge (its old generation, whose map pages
	 * are chained from retired_map, and the appendix list it merged) wait
	 * until no snapshot is older than retire_xid; until then scans that
	 * started before may read them, so VACUUM tombstones their dead rows
	 * too.
	 */
	FullTransactionId retire_xid;
	uint32		retire_pending;
	HammingGenInfo retired_gen;
	BlockNumber retired_map;
	BlockNumber retired_list;
	uint64		retired_list_epoch;
	uint32		merging;		/* a merge sealed the appendix and has not
								 * switched yet, or a recycling pass has not
								 * finished (after a crash: orphan pages) */
	BlockNumber map[FLEXIBLE_ARRAY_MEMBER];	/* the generation's map pages */
} HammingMetaPageData;

#define HammingPageGetMeta(page) ((HammingMetaPageData *) PageGetContents(page))
#define HAMMING_MAX_MAP_PAGES \
	((int) ((HAMMING_PAGE_SPACE - offsetof(HammingMetaPageData, map)) / sizeof(BlockNumber)))

/* index options (WITH (...)) */
typedef struct HammingOptions
{
	int32		vl_len_;		/* varlena header */
	double		merge_fraction; /* merge when appendix + dead rows reach this
								 * share of the generation's rows */
	int			tables;			/* table count of every build and merge, or 0:
								 * chosen from the row count */
} HammingOptions;

#define HAMMING_DEFAULT_MERGE_FRACTION	0.05

/*
 * Reading a generation: its description, its map pages loaded on demand,
 * and one pinned page per stream of reads.
 */
typedef struct HammingGen
{
	Relation	index;
	HammingGenInfo info;
	BlockNumber *mapblocks;		/* info.nmap blocks */
	BlockNumber **maps;			/* loaded map pages, or NULL */
	Buffer	   *hints;			/* its buffer hints (hamming_utils.c), valid
								 * while hints_stamp is current */
	uint32		nhints;
	uint64		hints_stamp;
} HammingGen;

typedef struct HammingCursor
{
	Buffer		buf;			/* pinned and share-locked, or Invalid */
	uint32		lpage;			/* its logical page */
} HammingCursor;

/* A copy of the metapage, taken under its lock. */
typedef struct HammingMetaCopy
{
	HammingMetaPageData *meta;	/* palloc'd copy, with its map list */
	HammingGen	gen;
} HammingMetaCopy;

/* values of the setting nddup.hamming_probe */
typedef enum HammingProbe
{
	HAMMING_PROBE_AUTO,			/* the cost model chooses */
	HAMMING_PROBE_TABLES,		/* always probe the tables */
	HAMMING_PROBE_ROWS			/* always pass over every row */
} HammingProbe;

/*
 * Values of the setting nddup.hamming_crash_point (tests only): the step of
 * a merge or of the recycling of pages at which the server is made to
 * crash (PANIC), so that a test can check the recovery from each.
 */
typedef enum HammingCrashPoint
{
	HAMMING_CRASH_NONE,
	HAMMING_CRASH_SEALED,		/* the appendix sealed, nothing written */
	HAMMING_CRASH_WRITING,		/* table 0 of the new generation written */
	HAMMING_CRASH_WRITTEN,		/* the new generation written, not in use */
	HAMMING_CRASH_SWITCHED,		/* the metapage switched, old pages retired */
	HAMMING_CRASH_RECYCLING		/* the first retired page freed */
} HammingCrashPoint;

/* hamming_handler.c: handler, options, settings, cost estimate */
extern int	hamming_probe;
extern double hamming_merge_fraction(Relation index);
extern int	hamming_tables_option(Relation index);
extern void hamming_crash_point_reached(HammingCrashPoint point);

/* hamming_utils.c: pages, metapage, generation reader, rows, cost model */
extern void hamming_init_page(Page page, uint8 kind, uint64 epoch);
extern void hamming_check_page(Relation index, Page page, BlockNumber blkno,
							   uint8 kind, uint64 epoch);
extern void hamming_init_meta(Page page);
extern void hamming_meta_fixup(HammingMetaPageData *meta);
extern void hamming_read_meta(Relation index, HammingMetaCopy *copy);
extern void hamming_free_meta(HammingMetaCopy *copy);
extern void hamming_gen_open(HammingGen *gen, Relation index,
							 const HammingMetaPageData *meta);
extern BlockNumber hamming_gen_block(HammingGen *gen, uint32 lpage);
extern Page hamming_cursor_read(HammingGen *gen, HammingCursor *cursor,
								uint32 lpage, uint8 kind);
extern uint64 *hamming_gen_key(HammingGen *gen, HammingCursor *cursor, uint64 row);
extern ItemPointerData *hamming_gen_tid(HammingGen *gen, HammingCursor *cursor,
										uint64 row);
extern void hamming_cursor_release(HammingCursor *cursor);
extern void hamming_prefetch(HammingGen *gen, uint32 lpage, Size offset, Size len);
extern uint64 hamming_list_rows(Relation index, BlockNumber blkno, uint64 epoch);
extern uint64 hamming_tid_pack(ItemPointer tid, bool isnull);
extern bool hamming_tid_live(const ItemPointerData *tid);
extern Buffer hamming_new_buffer(Relation index, bool use_fsm);
extern uint32 hamming_dir_bits(uint64 keyed, uint32 ntables);
extern int	hamming_entry_width(uint32 dbits);
extern void hamming_table_radii(int radius, uint32 ntables, int *rho);
extern uint32 hamming_choose_tables(double keyed, int forced);

/* The planned work of a search, and its cost in nanoseconds. */
typedef struct HammingPlan
{
	bool		use_tables;		/* probe the tables (else scan every row) */
	double		buckets;		/* directory buckets probed */
	double		entries;		/* entries compared */
	double		pages;			/* index pages read */
	double		nanoseconds;	/* estimated time */
} HammingPlan;

extern void hamming_plan_search(double keyed, uint32 dbits, uint32 ntables,
								int radius, double appendix_rows,
								HammingPlan *plan);

/* hamming_build.c: build and merge */
extern IndexBuildResult *hamming_build(Relation heap, Relation index,
									   IndexInfo *indexInfo);
extern void hamming_build_empty(Relation index);

/* hamming_sort.c: values of 1 or 2 words sorted by the first, in memory or in runs */
typedef struct HammingWordSort HammingWordSort;
extern HammingWordSort *hamming_wordsort_begin(int stride, Size mem_limit,
											   uint64 expected);
extern void hamming_wordsort_put(HammingWordSort *ws, const uint64 *value);
extern void hamming_wordsort_finish(HammingWordSort *ws);
extern const uint64 *hamming_wordsort_next(HammingWordSort *ws);
extern uint64 hamming_wordsort_count(HammingWordSort *ws);
extern Size hamming_wordsort_room(int stride, Size mem_limit);
extern void hamming_wordsort_end(HammingWordSort *ws);

/* The rows of a generation, sorted by key, NULL fingerprints last. */
typedef struct HammingSorter HammingSorter;
extern HammingSorter *hamming_sorter_begin(void);
extern void hamming_sorter_put(HammingSorter *sorter, uint64 key, uint64 packed_tid);
extern void hamming_sorter_finish(HammingSorter *sorter);
extern uint64 hamming_sorter_count(HammingSorter *sorter);
extern void hamming_write_generation(Relation index, HammingSorter *sorter,
									 uint64 epoch, bool building,
									 HammingGenInfo *info, BlockNumber **mapblocks);

/*
 * The subphases of CREATE INDEX that pg_stat_progress_create_index shows
 * (1 is the core's "initializing"): the heap scan, the sort of the rows,
 * the writing of table 0, the writing of tables 1..3.
 */
#define HAMMING_PHASE_SCAN		2
#define HAMMING_PHASE_SORT		3
#define HAMMING_PHASE_TABLE0	4
#define HAMMING_PHASE_TABLES	5
extern char *hamming_build_phase_name(int64 phasenum);

/* hamming_insert.c */
extern bool hamming_insert(Relation index, Datum *values, bool *isnull,
						   ItemPointer heap_tid, Relation heap,
						   IndexUniqueCheck checkUnique,
						   bool indexUnchanged, IndexInfo *indexInfo);

/* hamming_scan.c */
extern IndexScanDesc hamming_begin_scan(Relation index, int nkeys, int norderbys);
extern void hamming_rescan(IndexScanDesc scan, ScanKey keys, int nkeys,
						   ScanKey orderbys, int norderbys);
extern bool hamming_gettuple(IndexScanDesc scan, ScanDirection dir);
extern int64 hamming_getbitmap(IndexScanDesc scan, TIDBitmap *tbm);
extern void hamming_end_scan(IndexScanDesc scan);

/* hamming_vacuum.c */
extern IndexBulkDeleteResult *hamming_bulk_delete(IndexVacuumInfo *info,
												  IndexBulkDeleteResult *stats,
												  IndexBulkDeleteCallback callback,
												  void *callback_state);
extern IndexBulkDeleteResult *hamming_vacuum_cleanup(IndexVacuumInfo *info,
													 IndexBulkDeleteResult *stats);

/* hamming_query.c: planner support shared with the cost estimate */
extern int	nddup_hamming_ball_radius(PlannerInfo *root, Node *expr);
extern int	nddup_hamming_path_radius(PlannerInfo *root, IndexPath *path);
extern Cost nddup_hamming_cost(double nanoseconds, double pages, double page_cost);
extern void nddup_hamming_planner_init(void);

#endif							/* NDDUP_HAMMING_H */
