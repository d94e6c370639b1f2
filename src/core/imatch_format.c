/*-------------------------------------------------------------------------
 *
 * imatch_format.c
 *	  Text and binary forms of imatch_lexicon and their validation, in pure
 *	  C (the server's input, output, receive and send functions in
 *	  src/types/imatch_sql.c wrap these).
 *
 * Text form: "lexicon ndocs=N drop_frequent=F drop_rare=R: h h ..." (16 hex
 * digits each) or, for an aggregation state, "df ndocs=N ...: h:df ...".
 * The shares are written by the caller's formatter (the server's shortest
 * exact float4 form).  Binary form: version, kind (1 byte each),
 * drop_frequent, drop_rare (float4), ndocs (int8), nterms (int4), the
 * hashes (int8 each), then for a document-frequency table the counts (int8
 * each), network order.
 *
 *-------------------------------------------------------------------------
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nddup_core.h"

/*
 * Check a lexicon read from text or binary input: OK, or INVALID with a
 * detail.  The cut shares are those of the aggregate (each at least 0,
 * together below 1), stored as float4 (their sum may round up to 1), or -1
 * and -1 in an aggregation state whose shares were not given.
 */
NddupParseCode
nddup_lexicon_validate(const NddupLexicon *l, NddupParseError *err)
{
	double		f = l->drop_frequent;
	double		r = l->drop_rare;

	if (!(l->kind == NDDUP_LEX_DF && f == -1 && r == -1) &&
		!(f >= 0 && r >= 0 && f + r <= 1))
		return nddup_parse_fail(err, NDDUP_PARSE_INVALID, 0, 0,
								"The cut shares must be at least 0 and together at most 1.");
	for (uint32_t i = 1; i < l->nterms; i++)
	{
		if ((i & 0xffff) == 0)
			nddup_check_interrupts();
		if (l->hashes[i] <= l->hashes[i - 1])
			return nddup_parse_fail(err, NDDUP_PARSE_INVALID, 0, 0,
									"Term hashes must be distinct and ascending.");
	}
	if (l->kind == NDDUP_LEX_DF)
		for (uint32_t i = 0; i < l->nterms; i++)
			if (NDDUP_LEXICON_DF(l)[i] < 1 || NDDUP_LEXICON_DF(l)[i] > l->ndocs)
				return nddup_parse_fail(err, NDDUP_PARSE_INVALID, 0, 0,
										"A document frequency is out of range (1 to ndocs).");
	err->code = NDDUP_PARSE_OK;
	return NDDUP_PARSE_OK;
}

/*
 * Parse " name=" and a number at *p, advancing *p past it; false if they
 * are not there.  An integer is a decimal int64 of digits only; a share is
 * a number in [-1, 1] (strtod syntax) starting with a digit or "-" and a
 * digit.
 */
static bool
parse_header_number(const char **p, const char *name, int64_t *integer, double *share)
{
	size_t		len = strlen(name);
	const char *s = *p;
	char	   *end;

	if (s[0] != ' ' || strncmp(s + 1, name, len) != 0 || s[len + 1] != '=')
		return false;
	s += len + 2;
	errno = 0;
	if (integer != NULL)
	{
		if (!isdigit((unsigned char) s[0]))
			return false;
		*integer = strtoll(s, &end, 10);
	}
	else
	{
		if (!isdigit((unsigned char) s[0]) && !(s[0] == '-' && isdigit((unsigned char) s[1])))
			return false;
		*share = strtod(s, &end);
		if (!(*share >= -1 && *share <= 1))
			return false;		/* every valid share is in [-1, 1] */
	}
	if (errno != 0)
		return false;
	*p = end;
	return true;
}

/* Grow the two term arrays of the text parser to hold cap terms. */
static void
grow_terms(uint64_t **hashes, int64_t **dfs, size_t cap)
{
	*hashes = nddup_realloc_hook(*hashes, cap * sizeof(uint64_t));
	*dfs = nddup_realloc_hook(*dfs, cap * sizeof(int64_t));
}

/*
 * Read the terms of the text form at p ("h" or, for a document-frequency
 * table, "h:df", separated by spaces) into the growing arrays; *n terms.
 * SYNTAX (with a detail for a missing ":df") or TOO_LARGE (err->need).
 */
static NddupParseCode
parse_terms(const char *p, int kind, uint64_t **hashes, int64_t **dfs,
			size_t *n, NddupParseError *err)
{
	size_t		cap = 16;

	grow_terms(hashes, dfs, cap);
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
		if (errno != 0 || end - p > 16)
			return nddup_parse_fail(err, NDDUP_PARSE_SYNTAX, 0, 0, NULL);
		p = end;
		if (*n + 1 > NDDUP_LEXICON_MAX_TERMS)
			return nddup_parse_fail(err, NDDUP_PARSE_TOO_LARGE, 0, *n + 1, NULL);
		if (*n == cap)
		{
			cap *= 2;
			grow_terms(hashes, dfs, cap);
		}
		(*hashes)[*n] = h;
		(*dfs)[*n] = 0;
		if (kind == NDDUP_LEX_DF)
		{
			if (*p != ':' || !isdigit((unsigned char) p[1]))
				return nddup_parse_fail(err, NDDUP_PARSE_SYNTAX, 0, 0,
										"A document-frequency table lists hash:df pairs.");
			errno = 0;
			(*dfs)[*n] = strtoll(p + 1, &end, 10);
			if (errno != 0)
				return nddup_parse_fail(err, NDDUP_PARSE_INVALID, 0, 0,
										"A document frequency is out of range (1 to ndocs).");
			p = end;
		}
		if (*p != ' ' && *p != '\0')
			return nddup_parse_fail(err, NDDUP_PARSE_SYNTAX, 0, 0, NULL);
		(*n)++;
	}
}

/*
 * Parse the text form.  Returns the lexicon (allocated through the core's
 * hooks, vl_len_ zero), or NULL with err: SYNTAX (with or without a
 * detail), TOO_LARGE (err->need terms) or INVALID with a detail.
 */
NddupLexicon *
nddup_lexicon_parse(const char *str, NddupParseError *err)
{
	const char *p = str;
	int			kind;
	int64_t		ndocs;
	double		f,
				r;
	size_t		n = 0;
	uint64_t   *hashes = NULL;
	int64_t    *dfs = NULL;
	NddupLexicon *l = NULL;

	if (strncmp(p, "lexicon ndocs=", 14) == 0)
		kind = NDDUP_LEX_FINAL;
	else if (strncmp(p, "df ndocs=", 9) == 0)
		kind = NDDUP_LEX_DF;
	else
		kind = -1;
	if (kind >= 0)
		p += kind == NDDUP_LEX_FINAL ? 7 : 2;
	if (kind < 0 ||
		!parse_header_number(&p, "ndocs", &ndocs, NULL) ||
		!parse_header_number(&p, "drop_frequent", NULL, &f) ||
		!parse_header_number(&p, "drop_rare", NULL, &r) || *p != ':')
	{
		nddup_parse_fail(err, NDDUP_PARSE_SYNTAX, 0, 0,
						 "Expected \"lexicon\" or \"df\", then ndocs=N drop_frequent=F drop_rare=R: and the terms.");
		return NULL;
	}
	if (parse_terms(p + 1, kind, &hashes, &dfs, &n, err) == NDDUP_PARSE_OK)
	{
		size_t		size = NDDUP_LEXICON_SIZE(kind, n);

		l = nddup_realloc_hook(NULL, size);
		memset(l, 0, size);
		l->version = NDDUP_LEXICON_VERSION;
		l->kind = (uint8_t) kind;
		l->drop_frequent = (float) f;
		l->drop_rare = (float) r;
		l->ndocs = ndocs;
		l->nterms = (uint32_t) n;
		if (n > 0)
			memcpy(l->hashes, hashes, n * sizeof(uint64_t));
		if (kind == NDDUP_LEX_DF && n > 0)
			memcpy(NDDUP_LEXICON_DF(l), dfs, n * sizeof(int64_t));
		l = nddup_parse_keep(l, nddup_lexicon_validate(l, err));
	}
	nddup_free_hook(hashes);
	nddup_free_hook(dfs);
	return l;
}

/* Write the text form of a valid lexicon through print; share writes each cut share. */
void
nddup_lexicon_format(const NddupLexicon *l, NddupShareFormatter share,
					 NddupPrintf print, void *arg)
{
	char		digits[32];

	print(arg, "%s ndocs=%lld", l->kind == NDDUP_LEX_DF ? "df" : "lexicon",
		  (long long) l->ndocs);
	share(l->drop_frequent, digits);
	print(arg, " %s=%s", "drop_frequent", digits);
	share(l->drop_rare, digits);
	print(arg, " %s=%s", "drop_rare", digits);
	print(arg, ":");
	for (uint32_t i = 0; i < l->nterms; i++)
	{
		if ((i & 0xffff) == 0)
			nddup_check_interrupts();
		print(arg, " %016llx", (unsigned long long) l->hashes[i]);
		if (l->kind == NDDUP_LEX_DF)
			print(arg, ":%lld", (long long) NDDUP_LEXICON_DF(l)[i]);
	}
}

/* A float4 from its network-order bits. */
static float
get_float4(const uint8_t *p)
{
	uint32_t	bits = (uint32_t) nddup_get_be(p, 4);
	float		f;

	memcpy(&f, &bits, 4);
	return f;
}

/* Write a float4's bits in network order. */
static void
put_float4(uint8_t *p, float f)
{
	uint32_t	bits;

	memcpy(&bits, &f, 4);
	nddup_put_be(p, bits, 4);
}

/*
 * Read the binary form, all len bytes.  Returns the lexicon, or NULL with
 * err: SHORT, HEADER, TOO_LARGE (err->need terms), LENGTH or INVALID.
 */
NddupLexicon *
nddup_lexicon_recv(const uint8_t *data, size_t len, NddupParseError *err)
{
	int			version,
				kind;
	float		f,
				r;
	int64_t		ndocs;
	uint32_t	n;
	NddupLexicon *l;
	const uint8_t *p;

	if (len < NDDUP_LEXICON_BINARY_HDRSZ)
	{
		nddup_parse_fail(err, NDDUP_PARSE_SHORT, (int64_t) len,
						 NDDUP_LEXICON_BINARY_HDRSZ, NULL);
		return NULL;
	}
	version = data[0];
	kind = data[1];
	f = get_float4(data + 2);
	r = get_float4(data + 6);
	ndocs = (int64_t) nddup_get_be(data + 10, 8);
	n = (uint32_t) nddup_get_be(data + 18, 4);
	if (version != NDDUP_LEXICON_VERSION ||
		(kind != NDDUP_LEX_DF && kind != NDDUP_LEX_FINAL) || ndocs < 0)
	{
		nddup_parse_fail(err, NDDUP_PARSE_HEADER, 0, 0, NULL);
		return NULL;
	}
	if (n > NDDUP_LEXICON_MAX_TERMS)
	{
		nddup_parse_fail(err, NDDUP_PARSE_TOO_LARGE, 0, n, NULL);
		return NULL;
	}
	if (len - NDDUP_LEXICON_BINARY_HDRSZ != (size_t) n * (kind == NDDUP_LEX_DF ? 16 : 8))
	{
		nddup_parse_fail(err, NDDUP_PARSE_LENGTH,
						 (int64_t) (len - NDDUP_LEXICON_BINARY_HDRSZ),
						 (uint64_t) n * (kind == NDDUP_LEX_DF ? 16 : 8), NULL);
		return NULL;
	}
	l = nddup_realloc_hook(NULL, NDDUP_LEXICON_SIZE(kind, n));
	memset(l, 0, NDDUP_LEXICON_SIZE(kind, n));
	l->version = NDDUP_LEXICON_VERSION;
	l->kind = (uint8_t) kind;
	l->drop_frequent = f;
	l->drop_rare = r;
	l->ndocs = ndocs;
	l->nterms = n;
	p = data + NDDUP_LEXICON_BINARY_HDRSZ;
	for (uint32_t i = 0; i < n; i++, p += 8)
		l->hashes[i] = nddup_get_be(p, 8);
	if (kind == NDDUP_LEX_DF)
		for (uint32_t i = 0; i < n; i++, p += 8)
			NDDUP_LEXICON_DF(l)[i] = (int64_t) nddup_get_be(p, 8);
	return nddup_parse_keep(l, nddup_lexicon_validate(l, err));
}

/* Bytes of the binary form of l. */
size_t
nddup_lexicon_send_size(const NddupLexicon *l)
{
	return NDDUP_LEXICON_BINARY_HDRSZ +
		(size_t) l->nterms * (l->kind == NDDUP_LEX_DF ? 16 : 8);
}

/* Write the binary form of l (nddup_lexicon_send_size bytes). */
void
nddup_lexicon_send(const NddupLexicon *l, uint8_t *out)
{
	uint8_t    *p = out + NDDUP_LEXICON_BINARY_HDRSZ;

	out[0] = l->version;
	out[1] = l->kind;
	put_float4(out + 2, l->drop_frequent);
	put_float4(out + 6, l->drop_rare);
	nddup_put_be(out + 10, (uint64_t) l->ndocs, 8);
	nddup_put_be(out + 18, l->nterms, 4);
	for (uint32_t i = 0; i < l->nterms; i++, p += 8)
		nddup_put_be(p, l->hashes[i], 8);
	if (l->kind == NDDUP_LEX_DF)
		for (uint32_t i = 0; i < l->nterms; i++, p += 8)
			nddup_put_be(p, (uint64_t) NDDUP_LEXICON_DF(l)[i], 8);
}
