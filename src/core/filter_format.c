/*-------------------------------------------------------------------------
 *
 * filter_format.c
 *	  The shingle_filter value in pure C: building one from sorted hashes
 *	  (with its lookup directory), applying it to a document's shingles,
 *	  its validation and its text and binary forms (the server's input,
 *	  output, receive and send functions in src/types/filter_sql.c wrap
 *	  these).
 *
 * Text form: "filter size=W unit=U min_docs=C share=F ndocs=N cutoff=T
 * error=E n=M:" then the M hashes as 16 hex digits, ascending, separated
 * by spaces.  The share is written by the caller's formatter (the server's
 * shortest exact float8 form).  Binary form: version, size, unit (1 byte
 * each), min_docs (4 bytes), share (the 8 bytes of the float8), ndocs,
 * cutoff, error (8 bytes each), n (4 bytes), the hashes (8 bytes each),
 * network order.  Neither carries the directory: it is a function of the
 * hashes and is rebuilt, so every value has one representation.
 *
 *-------------------------------------------------------------------------
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nddup_core.h"

/* The smallest b with 2^b >= n: about one hash per directory slot. */
int
nddup_filter_dir_bits(size_t n)
{
	int			b = 0;

	while (((size_t) 1 << b) < n)
		b++;
	return b;
}

/*
 * The cut-off: shingles in more than max(min_docs, floor(share * ndocs))
 * documents are frequent.  IEEE arithmetic, so the same on every platform.
 */
int64_t
nddup_filter_cutoff(uint32_t min_docs, double share, int64_t ndocs)
{
	double		prop = floor(share * (double) ndocs);

	if (!(prop > (double) min_docs))
		return (int64_t) min_docs;
	return prop >= 9223372036854775807.0 ? INT64_MAX : (int64_t) prop;
}

/* Fill the directory of f from its hashes. */
static void
build_directory(NddupFilter *f)
{
	uint32_t   *dir = NDDUP_FILTER_DIR(f);
	size_t		slots = (size_t) 1 << f->dir_bits;
	uint32_t	i = 0;

	for (size_t j = 0; j < slots; j++)
	{
		dir[j] = i;
		while (i < f->nitems &&
			   (f->dir_bits == 0 ? 0 : (f->items[i] >> (64 - f->dir_bits))) == j)
			i++;
	}
	dir[slots] = i;
}

/*
 * A filter of n sorted distinct hashes with the given header (allocated
 * through the core's hooks, vl_len_ left zero for the server); the caller
 * checks n <= NDDUP_FILTER_MAX_ITEMS.
 */
NddupFilter *
nddup_filter_build(int size, int unit, uint32_t min_docs, double share,
				   int64_t ndocs, int64_t error, const uint64_t *items, size_t n)
{
	int			bits = nddup_filter_dir_bits(n);
	size_t		bytes = NDDUP_FILTER_SIZE(n, bits);
	NddupFilter *f = nddup_realloc_hook(NULL, bytes);

	memset(f, 0, bytes);
	f->version = NDDUP_FILTER_VERSION;
	f->size = (uint8_t) size;
	f->unit = (uint8_t) unit;
	f->dir_bits = (uint8_t) bits;
	f->min_docs = min_docs;
	f->nitems = (uint32_t) n;
	f->share = share;
	f->ndocs = ndocs;
	f->cutoff = nddup_filter_cutoff(min_docs, share, ndocs);
	f->error = error;
	if (n > 0)
		memcpy(f->items, items, n * sizeof(uint64_t));
	build_directory(f);
	return f;
}

/*
 * Drop from hashes[0..n) the ones in the filter, keeping the order of the
 * others; returns how many are kept.
 */
size_t
nddup_filter_apply(const NddupFilter *f, uint64_t *hashes, size_t n)
{
	size_t		kept = 0;

	if (f->nitems == 0)
		return n;
	for (size_t i = 0; i < n; i++)
	{
		if ((i & (NDDUP_INTERRUPT_STRIDE - 1)) == NDDUP_INTERRUPT_STRIDE - 1)
			nddup_check_interrupts();
		if (!nddup_filter_contains(f, hashes[i]))
			hashes[kept++] = hashes[i];
	}
	return kept;
}

/* Pass the batch's hashes that the filter does not hold on to the next callback. */
void
nddup_filter_sink(void *arg, const uint64_t *hashes, size_t n)
{
	NddupFilterSink *sink = arg;
	uint64_t	kept[64];
	size_t		m = 0;

	sink->seen += n;
	for (size_t i = 0; i < n; i++)
	{
		if (sink->filter->nitems != 0 && nddup_filter_contains(sink->filter, hashes[i]))
			continue;
		kept[m++] = hashes[i];
		if (m == 64)
		{
			sink->next(sink->next_arg, kept, m);
			sink->kept += m;
			m = 0;
		}
	}
	if (m > 0)
	{
		sink->next(sink->next_arg, kept, m);
		sink->kept += m;
	}
}

/*
 * Check a filter read from text or binary input, or built: OK, or INVALID
 * with a detail.
 */
NddupParseCode
nddup_filter_validate(const NddupFilter *f, NddupParseError *err)
{
	const uint32_t *dir = NDDUP_FILTER_DIR(f);

	if (f->size < 1 || f->size > NDDUP_MAX_SHINGLE_SIZE || f->unit > NDDUP_UNIT_MAX)
		return nddup_parse_fail(err, NDDUP_PARSE_INVALID, 0, 0,
								"The shingle size must be between 1 and %d, the unit word, char or word_.",
								NDDUP_MAX_SHINGLE_SIZE);
	if (!(f->share >= 0 && f->share <= 1) || signbit(f->share) || f->ndocs < 0 || f->error < 0 ||
		f->error > f->ndocs)
		return nddup_parse_fail(err, NDDUP_PARSE_INVALID, 0, 0,
								"The share must be between 0 and 1, ndocs and error at least 0, error at most ndocs.");
	if (f->cutoff != nddup_filter_cutoff(f->min_docs, f->share, f->ndocs))
		return nddup_parse_fail(err, NDDUP_PARSE_INVALID, 0, 0,
								"The cut-off must be max(min_docs, floor(share * ndocs)) = %lld.",
								(long long) nddup_filter_cutoff(f->min_docs, f->share, f->ndocs));
	if (f->nitems > NDDUP_FILTER_MAX_ITEMS ||
		f->dir_bits != nddup_filter_dir_bits(f->nitems))
		return nddup_parse_fail(err, NDDUP_PARSE_INVALID, 0, 0,
								"The directory does not fit the number of hashes.");
	for (uint32_t i = 1; i < f->nitems; i++)
	{
		if ((i & 0xffff) == 0)
			nddup_check_interrupts();
		if (f->items[i] <= f->items[i - 1])
			return nddup_parse_fail(err, NDDUP_PARSE_INVALID, 0, 0,
									"Shingle hashes must be distinct and ascending.");
	}
	for (size_t j = 0; j <= ((size_t) 1 << f->dir_bits); j++)
	{
		uint32_t	expect = 0;
		size_t		lo = 0,
					hi = f->nitems;

		/* the number of hashes whose top bits are below j */
		while (lo < hi)
		{
			size_t		mid = lo + (hi - lo) / 2;
			uint64_t	top = f->dir_bits == 0 ? 0 : f->items[mid] >> (64 - f->dir_bits);

			if (top < j)
				lo = mid + 1;
			else
				hi = mid;
		}
		expect = (uint32_t) lo;
		if (dir[j] != expect)
			return nddup_parse_fail(err, NDDUP_PARSE_INVALID, 0, 0,
									"The directory does not match the hashes.");
	}
	err->code = NDDUP_PARSE_OK;
	return NDDUP_PARSE_OK;
}

/*
 * Parse " name=" and an unsigned decimal integer (digits only) at *p,
 * advancing *p; false if they are not there or it exceeds max.
 */
static bool
header_integer(const char **p, const char *name, uint64_t max, uint64_t *value)
{
	size_t		len = strlen(name);
	const char *s = *p;
	char	   *end;

	if (s[0] != ' ' || strncmp(s + 1, name, len) != 0 || s[len + 1] != '=' ||
		!isdigit((unsigned char) s[len + 2]))
		return false;
	errno = 0;
	*value = strtoull(s + len + 2, &end, 10);
	if (errno != 0 || *value > max)
		return false;
	*p = end;
	return true;
}

/* Parse " share=" and a number in [0, 1] starting with a digit, advancing *p. */
static bool
header_share(const char **p, double *value)
{
	const char *s = *p;
	char	   *end;

	if (strncmp(s, " share=", 7) != 0 || !isdigit((unsigned char) s[7]))
		return false;
	errno = 0;
	*value = strtod(s + 7, &end);
	/* ERANGE for an underflow: a subnormal share is read exactly */
	if ((errno != 0 && errno != ERANGE) || !(*value >= 0 && *value <= 1))
		return false;
	*p = end;
	return true;
}

/* Parse " unit=word", " unit=char" or " unit=word_" at *p, advancing it. */
static bool
header_unit(const char **p, int *unit)
{
	for (int u = NDDUP_UNIT_MAX; u >= 0; u--)
	{
		const char *name = nddup_unit_names[u];
		size_t		len = strlen(name);

		if (strncmp(*p, " unit=", 6) == 0 && strncmp(*p + 6, name, len) == 0 &&
			((*p)[6 + len] == ' ' || (*p)[6 + len] == ':'))
		{
			*unit = u;
			*p += 6 + len;
			return true;
		}
	}
	return false;
}

/*
 * Read the n hashes of the text form at p (16 hex digits at most each,
 * separated by spaces) into a growing array; SYNTAX or TOO_LARGE.
 */
static NddupParseCode
parse_hashes(const char *p, uint64_t **items, size_t *n, NddupParseError *err)
{
	size_t		cap = 16;

	*items = nddup_realloc_hook(NULL, cap * sizeof(uint64_t));
	*n = 0;
	for (;;)
	{
		char	   *end;
		uint64_t	h;

		if ((*n & 0xffff) == 0)
			nddup_check_interrupts();
		while (*p == ' ')
			p++;
		if (*p == '\0')
			return NDDUP_PARSE_OK;
		if (!isxdigit((unsigned char) *p))
			return nddup_parse_fail(err, NDDUP_PARSE_SYNTAX, 0, 0, NULL);
		errno = 0;
		h = strtoull(p, &end, 16);
		if (errno != 0 || end - p > 16 || (*end != ' ' && *end != '\0'))
			return nddup_parse_fail(err, NDDUP_PARSE_SYNTAX, 0, 0, NULL);
		p = end;
		if (*n + 1 > NDDUP_FILTER_MAX_ITEMS)
			return nddup_parse_fail(err, NDDUP_PARSE_TOO_LARGE, 0, *n + 1, NULL);
		if (*n == cap)
		{
			cap *= 2;
			*items = nddup_realloc_hook(*items, cap * sizeof(uint64_t));
		}
		(*items)[(*n)++] = h;
	}
}

/*
 * Parse the text form.  Returns the filter (allocated through the core's
 * hooks, vl_len_ zero), or NULL with err: SYNTAX, TOO_LARGE (err->need
 * hashes) or INVALID with a detail.
 */
NddupFilter *
nddup_filter_parse(const char *str, NddupParseError *err)
{
	const char *p = str;
	uint64_t	size,
				min_docs,
				ndocs,
				cutoff,
				error,
				count;
	int			unit;
	double		share;
	uint64_t   *items = NULL;
	size_t		n = 0;
	NddupFilter *f = NULL;

	if (strncmp(p, "filter", 6) != 0 ||
		(p += 6, !header_integer(&p, "size", UINT8_MAX, &size)) ||
		!header_unit(&p, &unit) ||
		!header_integer(&p, "min_docs", UINT32_MAX, &min_docs) ||
		!header_share(&p, &share) ||
		!header_integer(&p, "ndocs", INT64_MAX, &ndocs) ||
		!header_integer(&p, "cutoff", INT64_MAX, &cutoff) ||
		!header_integer(&p, "error", INT64_MAX, &error) ||
		!header_integer(&p, "n", UINT32_MAX, &count) || *p != ':')
	{
		nddup_parse_fail(err, NDDUP_PARSE_SYNTAX, 0, 0,
						 "Expected \"filter size=W unit=U min_docs=C share=F ndocs=N cutoff=T error=E n=M:\" and M hashes.");
		return NULL;
	}
	if (count > NDDUP_FILTER_MAX_ITEMS)
	{
		nddup_parse_fail(err, NDDUP_PARSE_TOO_LARGE, 0, count, NULL);
		return NULL;
	}
	if (parse_hashes(p + 1, &items, &n, err) == NDDUP_PARSE_OK)
	{
		if (n != count)
			nddup_parse_fail(err, NDDUP_PARSE_INVALID, 0, 0,
							 "n=%llu, but %zu hashes follow.", (unsigned long long) count, n);
		else
		{
			/* the directory assumes ascending hashes: check them first */
			for (size_t i = 1; i < n; i++)
				if (items[i] <= items[i - 1])
				{
					nddup_parse_fail(err, NDDUP_PARSE_INVALID, 0, 0,
									 "Shingle hashes must be distinct and ascending.");
					nddup_free_hook(items);
					return NULL;
				}
			f = nddup_filter_build((int) size, unit, (uint32_t) min_docs, share,
								   (int64_t) ndocs, (int64_t) error, items, n);
			f->cutoff = (int64_t) cutoff;	/* the validation compares it */
			f = nddup_parse_keep(f, nddup_filter_validate(f, err));
		}
	}
	nddup_free_hook(items);
	return f;
}

/* Write the text form of a valid filter through print; share writes the share. */
void
nddup_filter_format(const NddupFilter *f, NddupDoubleFormatter share,
					NddupPrintf print, void *arg)
{
	char		digits[32];

	share(f->share, digits);
	print(arg, "filter size=%d unit=%s min_docs=%u share=%s ndocs=%lld cutoff=%lld error=%lld n=%u:",
		  f->size, nddup_unit_names[f->unit], f->min_docs, digits,
		  (long long) f->ndocs, (long long) f->cutoff, (long long) f->error, f->nitems);
	for (uint32_t i = 0; i < f->nitems; i++)
	{
		if ((i & 0xffff) == 0)
			nddup_check_interrupts();
		print(arg, " %016llx", (unsigned long long) f->items[i]);
	}
}

/*
 * Read the binary form, all len bytes.  Returns the filter, or NULL with
 * err: SHORT, HEADER, TOO_LARGE (err->need hashes), LENGTH or INVALID.
 */
NddupFilter *
nddup_filter_recv(const uint8_t *data, size_t len, NddupParseError *err)
{
	uint64_t	share_bits;
	double		share;
	uint32_t	n;
	uint64_t   *items;
	NddupFilter *f;
	int64_t		cutoff;

	if (len < NDDUP_FILTER_BINARY_HDRSZ)
	{
		nddup_parse_fail(err, NDDUP_PARSE_SHORT, (int64_t) len,
						 NDDUP_FILTER_BINARY_HDRSZ, NULL);
		return NULL;
	}
	if (data[0] != NDDUP_FILTER_VERSION || data[2] > NDDUP_UNIT_MAX)
	{
		nddup_parse_fail(err, NDDUP_PARSE_HEADER, 0, 0, NULL);
		return NULL;
	}
	n = (uint32_t) nddup_get_be(data + 39, 4);
	if (n > NDDUP_FILTER_MAX_ITEMS)
	{
		nddup_parse_fail(err, NDDUP_PARSE_TOO_LARGE, 0, n, NULL);
		return NULL;
	}
	if (len - NDDUP_FILTER_BINARY_HDRSZ != (size_t) n * 8)
	{
		nddup_parse_fail(err, NDDUP_PARSE_LENGTH,
						 (int64_t) (len - NDDUP_FILTER_BINARY_HDRSZ),
						 (uint64_t) n * 8, NULL);
		return NULL;
	}
	share_bits = nddup_get_be(data + 7, 8);
	memcpy(&share, &share_bits, sizeof(share));
	items = nddup_realloc_hook(NULL, ((size_t) n + 1) * sizeof(uint64_t));
	for (uint32_t i = 0; i < n; i++)
		items[i] = nddup_get_be(data + NDDUP_FILTER_BINARY_HDRSZ + 8 * (size_t) i, 8);
	for (uint32_t i = 1; i < n; i++)
		if (items[i] <= items[i - 1])
		{
			nddup_free_hook(items);
			nddup_parse_fail(err, NDDUP_PARSE_INVALID, 0, 0,
							 "Shingle hashes must be distinct and ascending.");
			return NULL;
		}
	cutoff = (int64_t) nddup_get_be(data + 23, 8);
	f = nddup_filter_build(data[1], data[2], (uint32_t) nddup_get_be(data + 3, 4),
						   share, (int64_t) nddup_get_be(data + 15, 8),
						   (int64_t) nddup_get_be(data + 31, 8), items, n);
	nddup_free_hook(items);
	f->cutoff = cutoff;			/* the validation compares it */
	return nddup_parse_keep(f, nddup_filter_validate(f, err));
}

/* Bytes of the binary form of f. */
size_t
nddup_filter_send_size(const NddupFilter *f)
{
	return NDDUP_FILTER_BINARY_HDRSZ + (size_t) f->nitems * 8;
}

/* Write the binary form of f (nddup_filter_send_size bytes). */
void
nddup_filter_send(const NddupFilter *f, uint8_t *out)
{
	uint64_t	share_bits;

	memcpy(&share_bits, &f->share, sizeof(share_bits));
	out[0] = f->version;
	out[1] = f->size;
	out[2] = f->unit;
	nddup_put_be(out + 3, f->min_docs, 4);
	nddup_put_be(out + 7, share_bits, 8);
	nddup_put_be(out + 15, (uint64_t) f->ndocs, 8);
	nddup_put_be(out + 23, (uint64_t) f->cutoff, 8);
	nddup_put_be(out + 31, (uint64_t) f->error, 8);
	nddup_put_be(out + 39, f->nitems, 4);
	for (uint32_t i = 0; i < f->nitems; i++)
		nddup_put_be(out + NDDUP_FILTER_BINARY_HDRSZ + 8 * (size_t) i, f->items[i], 8);
}
