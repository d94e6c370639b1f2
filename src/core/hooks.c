/*-------------------------------------------------------------------------
 *
 * hooks.c
 *	  The memory, limit and interrupt hooks of the pure-C core.
 *
 * Outside the server the memory hooks are realloc (aborting with a message
 * when memory runs out) and free, and there is no interrupt hook; the
 * extension points them at palloc and CHECK_FOR_INTERRUPTS() when it loads
 * (src/module.c).
 *
 *-------------------------------------------------------------------------
 */
#include <stdio.h>
#include <stdlib.h>

#include "nddup_core.h"

/* realloc that never returns NULL: prints a message and aborts instead */
static void *
default_realloc(void *ptr, size_t size)
{
	void	   *p = realloc(ptr, size ? size : 1);

	if (p == NULL)
	{
		fprintf(stderr, "nddup: out of memory (requested %zu bytes)\n", size);
		abort();
	}
	return p;
}

/* free, for symmetry with default_realloc */
static void
default_free(void *ptr)
{
	free(ptr);
}

void	   *(*nddup_realloc_hook) (void *ptr, size_t size) = default_realloc;
void		(*nddup_free_hook) (void *ptr) = default_free;
void		(*nddup_interrupt_hook) (void) = NULL;

size_t		nddup_max_working = NDDUP_MAX_WORKING;
void		(*nddup_limit_hook) (size_t requested) = NULL;
size_t		nddup_stream_chunk = NDDUP_STREAM_CHUNK;

/*
 * A buffer of the core would need requested bytes, more than
 * nddup_max_working: call the limit hook (which raises an error); abort if
 * there is none or it returns.
 */
void
nddup_limit_exceeded(size_t requested)
{
	if (nddup_limit_hook != NULL)
		nddup_limit_hook(requested);
	fprintf(stderr, "nddup: working memory limit exceeded (%zu bytes requested, at most %zu)\n",
			requested, nddup_max_working);
	abort();
}
