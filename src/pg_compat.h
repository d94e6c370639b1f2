/*-------------------------------------------------------------------------
 *
 * pg_compat.h
 *	  The server APIs that differ between the PostgreSQL majors nddup
 *	  supports, 15 to 18.  Write code against the newest form; this header
 *	  maps it back for the older majors, so that version guards stay here
 *	  and out of the code.
 *
 * Include after postgres.h; nddup.h includes it, so every server file has
 * it.  docs/testing.md#postgresql-versions says how each major is tested.
 *
 * Changes checked and needing nothing here (release notes 16-18, headers
 * of 15.20, 16.2 and 18.3): SPI, tuplesort_begin_heap, InitMaterializedSRF,
 * DefineCustom*Variable and MarkGUCPrefixReserved, the relcache and
 * syscache calls, snapshots, memory contexts, local reloptions, the GIN and
 * SP-GiST support function protocols, planner support requests.
 *
 * For a new index access method: makeNode(IndexAmRoutine) zeroes the
 * fields added since 15 (16: amsummarizing; 17: amcanbuildparallel,
 * aminsertcleanup; 18: amcanhash, amconsistentequality,
 * amconsistentordering, amgettreeheight, amtranslatestrategy,
 * amtranslatecmptype), so set one under "#if PG_VERSION_NUM >= ..." only
 * to a non-zero value; amestimateparallelscan takes (Relation, nkeys,
 * norderbys) since 18 and no argument before; RelFileNode is
 * RelFileLocator (rd_node is rd_locator) since 16: see
 * NDDUP_RELATION_LOCATOR below.
 *
 *-------------------------------------------------------------------------
 */
#ifndef NDDUP_PG_COMPAT_H
#define NDDUP_PG_COMPAT_H

/*
 * 16 moved the varlena macros (VARSIZE, SET_VARSIZE, VARDATA, ...) from
 * postgres.h into varatt.h.
 */
#if PG_VERSION_NUM >= 160000
#include "varatt.h"
#endif

/*
 * make_range(typcache, lower, upper, empty, escontext): 16 added escontext
 * for soft errors; before 16 an error is always thrown, as with NULL.
 */
#if PG_VERSION_NUM < 160000
#include "utils/rangetypes.h"
#define make_range(typcache, lower, upper, empty, escontext) \
	((void) (escontext), make_range((typcache), (lower), (upper), (empty)))
#endif

/*
 * float8in_internal(num, endptr_p, type_name, orig_string, escontext): 16
 * added escontext for soft errors.  Before 16 an error is always thrown, as
 * with escontext NULL; so pass NULL.
 */
#if PG_VERSION_NUM < 160000
#include "utils/float.h"
#define float8in_internal(num, endptr_p, type_name, orig_string, escontext) \
	((void) (escontext), \
	 float8in_internal((num), (endptr_p), (type_name), (orig_string)))
#endif

/*
 * The local transaction id of this backend (include storage/proc.h): 17
 * moved PGPROC.lxid into PGPROC.vxid.
 */
#if PG_VERSION_NUM >= 170000
#define NDDUP_MY_LXID	(MyProc->vxid.lxid)
#else
#define NDDUP_MY_LXID	(MyProc->lxid)
#endif

/*
 * tuplesort_getdatum(state, forward, copy, val, isNull, abbrev): 16 added
 * copy (whether a by-reference datum is copied out of the sort's memory;
 * before 16 it always was).  nddup sorts by-value datums only, so copy
 * changes nothing there.
 */
#if PG_VERSION_NUM < 160000
#include "utils/tuplesort.h"
#define tuplesort_getdatum(state, forward, copy, val, isNull, abbrev) \
	((void) (copy), \
	 tuplesort_getdatum((state), (forward), (val), (isNull), (abbrev)))
#endif

/*
 * The physical file of a relation, as log_newpage() takes it: 16 renamed
 * RelFileNode (Relation.rd_node) to RelFileLocator (rd_locator).
 */
#if PG_VERSION_NUM >= 160000
#include "storage/relfilelocator.h"
#define NDDUP_RELATION_LOCATOR(rel)	(&(rel)->rd_locator)
typedef RelFileLocator NddupRelFileLocator;
#else
#include "storage/relfilenode.h"
#define NDDUP_RELATION_LOCATOR(rel)	(&(rel)->rd_node)
typedef RelFileNode NddupRelFileLocator;
#endif

/*
 * vacuum_delay_point(is_analyze): 18 added is_analyze (which cost-based
 * delay settings apply); before 18 there is no argument.
 */
#if PG_VERSION_NUM < 180000
#include "commands/vacuum.h"
#define vacuum_delay_point(is_analyze) \
	((void) (is_analyze), vacuum_delay_point())
#endif

/*
 * Count one search of an index scan (include pgstat.h): the idx_scan of
 * pg_stat_*_indexes, and since 18 the "Index Searches" that EXPLAIN ANALYZE
 * prints from scan->instrument.
 */
#if PG_VERSION_NUM >= 180000
#define NDDUP_COUNT_INDEX_SEARCH(scan) \
	do { \
		pgstat_count_index_scan((scan)->indexRelation); \
		if ((scan)->instrument) \
			(scan)->instrument->nsearches++; \
	} while (0)
#else
#define NDDUP_COUNT_INDEX_SEARCH(scan) \
	pgstat_count_index_scan((scan)->indexRelation)
#endif

#endif							/* NDDUP_PG_COMPAT_H */
