/*-------------------------------------------------------------------------
 *
 * nddup.c
 *	  Module entry point: points the pure-C core's memory hooks at palloc.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "nddup.h"

#include "fmgr.h"
#include "utils/memutils.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

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

/* Module load: route the core's allocations through memory contexts. */
void
_PG_init(void)
{
	nddup_realloc_hook = nddup_palloc_realloc;
	nddup_free_hook = nddup_palloc_free;
	nddup_sketch_init();
}
