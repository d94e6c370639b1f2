/*-------------------------------------------------------------------------
 *
 * module.c
 *	  Module entry point: points the pure-C core's memory hooks at palloc
 *	  and its interrupt hook at CHECK_FOR_INTERRUPTS(), and defines the
 *	  settings (docs/reference.md#settings).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "nddup.h"

#include "fmgr.h"
#include "miscadmin.h"
#include "utils/guc.h"
#include "utils/memutils.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

/*
 * The settings.  nddup.similarity_threshold defaults to 0.3: where word
 * 3-shingle resemblance separates near-duplicates best (docs/reports/quality.md).
 */
double		nddup_similarity_threshold = NDDUP_DEFAULT_SIMILARITY_THRESHOLD;
bool		nddup_progress = false;
int			nddup_batch_blocks = 0;

/* realloc for the core: palloc in the current context, huge sizes allowed. */
static void *
nddup_palloc_realloc(void *ptr, size_t size)
{
	if (ptr == NULL)
		return MemoryContextAllocExtended(CurrentMemoryContext, size,
										  MCXT_ALLOC_HUGE);
	return repalloc_huge(ptr, size);
}

/* free for the core. */
static void
nddup_palloc_free(void *ptr)
{
	if (ptr != NULL)
		pfree(ptr);
}

/* Interrupt hook of the core: a cancel or timeout raises its ERROR here. */
static void
nddup_pg_check_interrupts(void)
{
	CHECK_FOR_INTERRUPTS();
}

/*
 * Limit hook of the core: a buffer would grow past 1 GB (MaxAllocSize);
 * raised before it is allocated.
 */
static void
nddup_pg_limit_exceeded(size_t requested)
{
	ereport(ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 errmsg("text is too large to process"),
			 errdetail("Its normalized text, tokens or shingles would need %zu bytes of working memory; at most %zu are allowed.",
					   requested, nddup_max_working)));
}

/*
 * Module load: route the core's allocations through memory contexts, let
 * its long loops be interrupted, and define the settings.
 */
void
_PG_init(void)
{
	nddup_realloc_hook = nddup_palloc_realloc;
	nddup_free_hook = nddup_palloc_free;
	nddup_interrupt_hook = nddup_pg_check_interrupts;
	nddup_limit_hook = nddup_pg_limit_exceeded;
	DefineCustomRealVariable("nddup.similarity_threshold",
							 "Resemblance at or above which the % operator is true.",
							 "Applies to shingleset and minhash values.",
							 &nddup_similarity_threshold,
							 NDDUP_DEFAULT_SIMILARITY_THRESHOLD, 0.0, 1.0,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("nddup.progress",
							 "Report the progress of batch functions as NOTICEs (every 10 %).",
							 NULL, &nddup_progress, false,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("nddup.batch_blocks",
							"Number of blocks of the batch permuted tables (0: chosen by the cost model).",
							"Between the radius + 1 and 64, or 0; at most 250,000 tables (C(blocks, blocks - radius)).",
							&nddup_batch_blocks, 0, 0, 64,
							PGC_USERSET, 0, NULL, NULL, NULL);
	nddup_hamming_am_init();
	MarkGUCPrefixReserved("nddup");
}
