/*-------------------------------------------------------------------------
 *
 * text_sql.c
 *	  SQL functions of the text pipeline (normalize_text, tokens, shingles,
 *	  nddup_unicode_version) and the argument helpers shared with the other
 *	  SQL-facing files: text to UTF-8, shingle size and unit checks.
 *
 * The pipeline works on UTF-8 whatever the database encoding, so identical
 * characters give identical fingerprints in every database.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "nddup.h"

#include "catalog/pg_type.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

PG_FUNCTION_INFO_V1(normalize_text);
PG_FUNCTION_INFO_V1(tokens_text);
PG_FUNCTION_INFO_V1(shingles_text);
PG_FUNCTION_INFO_V1(unicode_version_text);

/*
 * The bytes of t as UTF-8, and their number in *len.  In a UTF8 or
 * SQL_ASCII database this is t's data itself (not a copy, not validated: in
 * SQL_ASCII invalid UTF-8 becomes U+FFFD separators); in any other encoding
 * a palloc'd conversion.
 */
char *
nddup_text_to_utf8(text *t, size_t *len)
{
	char	   *data = VARDATA_ANY(t);
	int			n = VARSIZE_ANY_EXHDR(t);
	int			encoding = GetDatabaseEncoding();
	char	   *utf8;

	if (encoding == PG_UTF8 || encoding == PG_SQL_ASCII)
	{
		*len = n;
		return data;
	}
	utf8 = pg_server_to_any(data, n, PG_UTF8);
	*len = (utf8 == data) ? (size_t) n : strlen(utf8);
	return utf8;
}

/* Raise an error unless size is a valid shingle size. */
void
nddup_check_shingle_size(int32 size)
{
	if (size < 1 || size > NDDUP_MAX_SHINGLE_SIZE)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("shingle size %d is out of range", size),
				 errdetail("The shingle size must be between 1 and %d.",
						   NDDUP_MAX_SHINGLE_SIZE)));
}

/*
 * The index in names[] (n of them) of the keyword a text argument holds,
 * compared in place (ignoring case when icase); else 22023 "invalid <what>"
 * with the hint.
 */
int
nddup_keyword_arg(text *t, const char *what, const char *const *names, int n,
				  bool icase, const char *hint)
{
	const char *s = VARDATA_ANY(t);
	int			len = VARSIZE_ANY_EXHDR(t);

	for (int i = 0; i < n; i++)
		if (len == (int) strlen(names[i]) &&
			(icase ? pg_strncasecmp(s, names[i], len) : memcmp(s, names[i], len)) == 0)
			return i;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("invalid %s \"%s\"", what, text_to_cstring(t)),
			 errhint("%s", hint)));
	return 0;					/* keep compiler quiet */
}

/* The shingle unit named by unit: 'word', 'char' or 'word_'. */
NddupUnit
nddup_parse_unit(text *unit)
{
	return (NddupUnit) nddup_keyword_arg(unit, "shingle unit", nddup_unit_names,
										 NDDUP_UNIT_MAX + 1, false,
										 "Valid units are \"word\", \"char\" and \"word_\" (words that keep _).");
}

/* A text datum from UTF-8 bytes, converted to the server encoding. */
static text *
utf8_to_text(const char *utf8, size_t len)
{
	char	   *server;
	text	   *result;

	if (len == 0)
		return cstring_to_text_with_len("", 0);
	if (len > MaxAllocSize - VARHDRSZ)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("normalized text is too long (%zu bytes)", len),
				 errdetail("A text value holds at most %zu bytes.", (size_t) (MaxAllocSize - VARHDRSZ))));
	server = pg_any_to_server(utf8, (int) len, PG_UTF8);
	if (server == utf8)
		return cstring_to_text_with_len(utf8, (int) len);
	result = cstring_to_text(server);
	pfree(server);
	return result;
}

/*
 * A document whose normalized form may not fit in 1 GB (NFKC can make a
 * text up to 11 times longer in bytes: U+FDFA) is measured first, so that
 * normalize_text and tokens, which hold the whole normalized text, raise
 * 54000 before allocating it rather than when it reaches 1 GB.  Returns the
 * UTF-8 bytes of the document (argument 0).
 */
static char *
normalizable_arg(FunctionCallInfo fcinfo, size_t *len)
{
	char	   *utf8 = nddup_text_to_utf8(PG_GETARG_TEXT_PP(0), len);
	size_t		n;

	if (*len <= nddup_max_working / 16)
		return utf8;
	n = nddup_normalized_length(utf8, *len);
	if (n > nddup_max_working - VARHDRSZ)
		nddup_limit_exceeded(n + VARHDRSZ);
	return utf8;
}

/* normalize_text(text): the normalized form of a text. */
Datum
normalize_text(PG_FUNCTION_ARGS)
{
	size_t		len;
	char	   *utf8 = normalizable_arg(fcinfo, &len);
	NddupBuf	norm = {0};
	text	   *result;
	int			encoding = GetDatabaseEncoding();

	if (encoding == PG_UTF8 || encoding == PG_SQL_ASCII)
	{
		/* normalize behind a varlena header: the buffer is the result */
		nddup_buf_append(&norm, "\0\0\0\0", VARHDRSZ);
		nddup_normalize(utf8, len, &norm);
		SET_VARSIZE(norm.data, norm.len);
		PG_RETURN_TEXT_P((text *) norm.data);
	}
	nddup_normalize(utf8, len, &norm);
	result = utf8_to_text(norm.data, norm.len);
	nddup_buf_free(&norm);
	PG_RETURN_TEXT_P(result);
}

/*
 * The text[] of the tokens is built in two passes over the normalized text:
 * the first counts the tokens and the array's bytes (so that a too large
 * result is a clean 54000 before anything big is allocated), the second
 * copies the tokens into the array.
 */
typedef struct TokenArray
{
	bool		convert;		/* database encoding is not UTF8 or SQL_ASCII */
	size_t		n;				/* tokens seen */
	Size		bytes;			/* bytes of the elements seen */
	char	   *data;			/* second pass: where the next element goes */
} TokenArray;

/* The bytes of a token in the database encoding (palloc'd when converted). */
static const char *
token_in_server_encoding(TokenArray *a, const char *token, size_t len, size_t *outlen)
{
	char	   *server;

	if (!a->convert)
	{
		*outlen = len;
		return token;
	}
	server = pg_any_to_server(token, (int) len, PG_UTF8);
	*outlen = strlen(server);
	return server;
}

/*
 * Token callback: in the first pass (data NULL) count the token and its
 * element's bytes, in the second append it as the next element.
 */
static void
add_token(void *arg, const char *token, size_t len)
{
	TokenArray *a = (TokenArray *) arg;
	size_t		outlen;
	const char *out = token_in_server_encoding(a, token, len, &outlen);

	CHECK_FOR_INTERRUPTS();
	if (a->data == NULL)
	{
		a->n++;
		a->bytes += INTALIGN(VARHDRSZ + outlen);
		if (a->n > MaxArraySize || a->bytes > MaxAllocSize)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("too many tokens for an array (more than %zu, or more than %zu bytes)",
							(size_t) MaxArraySize, (size_t) MaxAllocSize)));
	}
	else
	{
		SET_VARSIZE(a->data, VARHDRSZ + outlen);
		memcpy(VARDATA(a->data), out, outlen);
		a->data += INTALIGN(VARHDRSZ + outlen);
	}
	if (out != token)
		pfree((char *) out);
}

/* tokens(text): the tokens of the normalized text, in order. */
Datum
tokens_text(PG_FUNCTION_ARGS)
{
	size_t		len;
	char	   *utf8 = normalizable_arg(fcinfo, &len);
	TokenArray	a = {0};
	NddupBuf	norm = {0};
	Size		total;
	ArrayType  *result;

	nddup_normalize(utf8, len, &norm);
	a.convert = GetDatabaseEncoding() != PG_UTF8 && GetDatabaseEncoding() != PG_SQL_ASCII;
	nddup_tokenize(norm.data, norm.len, add_token, &a);
	if (a.n == 0)
		PG_RETURN_ARRAYTYPE_P(construct_empty_array(TEXTOID));
	total = ARR_OVERHEAD_NONULLS(1) + a.bytes;
	if (!AllocSizeIsValid(total))
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("array size exceeds the maximum allowed (%d)", (int) MaxAllocSize)));
	result = (ArrayType *) palloc0(total);
	SET_VARSIZE(result, total);
	result->ndim = 1;
	result->dataoffset = 0;
	result->elemtype = TEXTOID;
	ARR_DIMS(result)[0] = (int) a.n;
	ARR_LBOUND(result)[0] = 1;
	a.data = ARR_DATA_PTR(result);
	nddup_tokenize(norm.data, norm.len, add_token, &a);
	Assert(a.data == (char *) result + total);
	nddup_buf_free(&norm);
	PG_RETURN_ARRAYTYPE_P(result);
}

/* Hash batch callback of shingles_text: collect the hashes. */
static void
add_shingles(void *arg, const uint64_t *hashes, size_t n)
{
	CHECK_FOR_INTERRUPTS();
	nddup_hashes_append(arg, hashes, n);
}

/*
 * shingles(doc text, size int, unit text): the shingle hashes of the
 * normalized text as bigint (the same 64 bits), in order, repeats kept.
 * The hashes are collected behind room for the array's header, so that the
 * collection becomes the bigint[] in place (a bigint element is the 8 bytes
 * of the hash): the result's memory once, not three times.
 */
Datum
shingles_text(PG_FUNCTION_ARGS)
{
	text	   *doc = PG_GETARG_TEXT_PP(0);
	int32		size = PG_GETARG_INT32(1);
	NddupUnit	unit = nddup_parse_unit(PG_GETARG_TEXT_PP(2));
	size_t		header = ARR_OVERHEAD_NONULLS(1) / sizeof(uint64);
	size_t		len;
	size_t		n;
	char	   *utf8;
	NddupHashes hashes = {0};
	ArrayType  *result;

	StaticAssertStmt(ARR_OVERHEAD_NONULLS(1) % sizeof(uint64) == 0,
					 "the header of a one-dimensional array is whole hashes");
	nddup_check_shingle_size(size);
	utf8 = nddup_text_to_utf8(doc, &len);
	for (size_t i = 0; i < header; i++)
		nddup_hashes_push(&hashes, 0);
	nddup_text_shingles(utf8, len, size, unit, add_shingles, &hashes);
	n = hashes.len - header;

	if (n == 0)
	{
		nddup_hashes_free(&hashes);
		PG_RETURN_ARRAYTYPE_P(construct_empty_array(INT8OID));
	}
	if (n > MaxArraySize ||
		!AllocSizeIsValid(ARR_OVERHEAD_NONULLS(1) + n * sizeof(int64)))
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("too many shingles (%zu)", n),
				 errdetail("A bigint array holds at most %zu elements.",
						   (size_t) ((MaxAllocSize - ARR_OVERHEAD_NONULLS(1)) / sizeof(int64)))));
	result = (ArrayType *) hashes.items;
	SET_VARSIZE(result, ARR_OVERHEAD_NONULLS(1) + n * sizeof(int64));
	result->ndim = 1;
	result->dataoffset = 0;
	result->elemtype = INT8OID;
	ARR_DIMS(result)[0] = (int) n;
	ARR_LBOUND(result)[0] = 1;
	PG_RETURN_ARRAYTYPE_P(result);
}

/* nddup_unicode_version(): the Unicode version of the normalization tables. */
Datum
unicode_version_text(PG_FUNCTION_ARGS)
{
	PG_RETURN_TEXT_P(cstring_to_text(nddup_unicode_version()));
}
