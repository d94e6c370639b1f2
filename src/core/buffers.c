/*-------------------------------------------------------------------------
 *
 * buffers.c
 *	  Growable byte buffers and hash arrays of the pure-C core, allocated
 *	  through the memory hooks of src/core/hooks.c and never larger than
 *	  nddup_max_working bytes.
 *
 *-------------------------------------------------------------------------
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nddup_core.h"

/* Next capacity of at least need bytes or items: doubles, from 64. */
static size_t
grow_capacity(size_t cap, size_t need)
{
	size_t		newcap = cap < 64 ? 64 : cap;

	while (newcap < need)
	{
		if (newcap > SIZE_MAX / 2)
			return need;
		newcap *= 2;
	}
	return newcap;
}

/*
 * Next capacity of at least need items of item_size bytes, at most
 * nddup_max_working bytes: the limit error when need items do not fit.
 */
static size_t
grow_limited(size_t cap, size_t need, size_t item_size)
{
	size_t		max_items = nddup_max_working / item_size;
	size_t		newcap;

	if (need > max_items)
		nddup_limit_exceeded(need > SIZE_MAX / item_size ? SIZE_MAX : need * item_size);
	newcap = grow_capacity(cap, need);
	return newcap > max_items ? max_items : newcap;
}

/* Make room for at least extra more bytes in buf. */
void
nddup_buf_reserve(NddupBuf *buf, size_t extra)
{
	size_t		need;

	if (buf->cap - buf->len >= extra && buf->data != NULL)
		return;
	need = extra > SIZE_MAX - buf->len ? SIZE_MAX : buf->len + extra;
	buf->cap = grow_limited(buf->cap, need, 1);
	buf->data = nddup_realloc_hook(buf->data, buf->cap);
}

/* Append len bytes to buf. */
void
nddup_buf_append(NddupBuf *buf, const char *bytes, size_t len)
{
	nddup_buf_reserve(buf, len);
	if (len > 0)
		memcpy(buf->data + buf->len, bytes, len);
	buf->len += len;
}

/*
 * Append printf-formatted text to the NddupBuf at arg and keep a NUL after
 * it (not counted in len): an NddupPrintf for the text forms of the types.
 */
void
nddup_buf_printf(void *arg, const char *fmt,...)
{
	NddupBuf   *buf = (NddupBuf *) arg;
	va_list		ap;
	int			n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
	{
		fprintf(stderr, "nddup: invalid format \"%s\"\n", fmt);
		abort();
	}
	nddup_buf_reserve(buf, (size_t) n + 1);
	va_start(ap, fmt);
	vsnprintf(buf->data + buf->len, (size_t) n + 1, fmt, ap);
	va_end(ap);
	buf->len += (size_t) n;
}

/* Release the memory of buf and reset it to empty. */
void
nddup_buf_free(NddupBuf *buf)
{
	if (buf->data != NULL)
		nddup_free_hook(buf->data);
	*buf = (NddupBuf) {0};
}

/* Append one hash to hashes. */
void
nddup_hashes_push(NddupHashes *hashes, uint64_t hash)
{
	if (hashes->len == hashes->cap)
	{
		size_t		newcap = grow_limited(hashes->cap, hashes->len + 1,
										  sizeof(uint64_t));

		hashes->items = nddup_realloc_hook(hashes->items,
										   newcap * sizeof(uint64_t));
		hashes->cap = newcap;
	}
	hashes->items[hashes->len++] = hash;
}

/*
 * Append one hash to a collection whose order and repeats do not matter (a
 * set in the making): when the array is full and holds at least
 * NDDUP_DISTINCT_COMPACT hashes, it is first sorted and deduplicated in place,
 * and grows only if that frees less than half of it.  Memory then follows
 * the number of distinct hashes, not the length of the document.
 */
void
nddup_hashes_push_distinct(NddupHashes *hashes, uint64_t hash)
{
	if (hashes->len == hashes->cap && hashes->cap >= NDDUP_DISTINCT_COMPACT)
	{
		hashes->len = nddup_sort_unique(hashes->items, hashes->len);
		if (hashes->len <= hashes->cap / 2)
		{
			hashes->items[hashes->len++] = hash;
			return;
		}
	}
	nddup_hashes_push(hashes, hash);
}

/* Append n hashes to the NddupHashes at arg (an NddupHashBatchCallback). */
void
nddup_hashes_append(void *arg, const uint64_t *items, size_t n)
{
	NddupHashes *hashes = arg;

	if (hashes->cap - hashes->len < n)
	{
		size_t		newcap;

		newcap = grow_limited(hashes->cap,
							  n > SIZE_MAX - hashes->len ? SIZE_MAX : hashes->len + n,
							  sizeof(uint64_t));
		hashes->items = nddup_realloc_hook(hashes->items,
										   newcap * sizeof(uint64_t));
		hashes->cap = newcap;
	}
	memcpy(hashes->items + hashes->len, items, n * sizeof(uint64_t));
	hashes->len += n;
}

/*
 * Append n hashes to the NddupHashes at arg whose order and repeats do not
 * matter (an NddupHashBatchCallback): nddup_hashes_push_distinct each.
 */
void
nddup_hashes_append_distinct(void *arg, const uint64_t *items, size_t n)
{
	for (size_t i = 0; i < n; i++)
		nddup_hashes_push_distinct((NddupHashes *) arg, items[i]);
}

/* Release the memory of hashes and reset it to empty. */
void
nddup_hashes_free(NddupHashes *hashes)
{
	if (hashes->items != NULL)
		nddup_free_hook(hashes->items);
	*hashes = (NddupHashes) {0};
}
