/*-------------------------------------------------------------------------
 *
 * fuzz_query_io.c
 *	  libFuzzer harness for the text form of the query types minhash_query
 *	  and shingleset_query (src/core/sketch_format.c: nddup_query_parse,
 *	  nddup_query_check_set, and the embedded value's parser).
 *
 * Input: a mode byte (bit 0: shingleset_query, which also takes
 * "containment>=", rather than minhash_query), then the text.
 *
 * The server reads the threshold with PostgreSQL's float8in; here
 * parse_number() below stands in for it (strtod between spaces).  The
 * server writes the threshold in its shortest exact form; here with %.17g.
 *
 * Invariants (docs/reports/fuzzing.md): the prefix is recognized exactly when the
 * text starts (after spaces) with "jaccard>=" or, for sets,
 * "containment>="; a rejected threshold is RANGE with the detail that
 * matches the case (nothing after it, or outside [0, 1]); an accepted one
 * is in [0, 1] and the value starts after it; a containment query of a
 * bottom-s sample is rejected; an accepted query written in canonical form
 * parses to the same kind, threshold and value bytes and is written the
 * same again.
 *
 *-------------------------------------------------------------------------
 */
#define HARNESS "fuzz_query_io"
#include <ctype.h>
#include <errno.h>
#include <math.h>

#include "fuzz_io.h"

/* Stand-in for float8in: spaces, a strtod number, spaces. */
static bool
parse_number(const char *num, double *value, const char **end, void *arg)
{
	char	   *stop;

	(void) arg;
	while (*num != '\0' && isspace((unsigned char) *num))
		num++;
	if (*num == '\0')
		return false;
	errno = 0;
	*value = strtod(num, &stop);
	if (stop == num || errno != 0)
		return false;
	while (*stop != '\0' && isspace((unsigned char) *stop))
		stop++;
	*end = stop;
	return true;
}

/* A parsed query: kind, threshold and the embedded value (or NULL). */
typedef struct Query
{
	int			kind;
	double		threshold;
	void	   *value;			/* NddupShingleSet or NddupMinhash */
	size_t		value_size;
} Query;

/*
 * Parse a query as the server does; true if accepted.  Checks the
 * rejections.
 */
static bool
parse_query(const char *str, bool sets, Query *q)
{
	NddupParseError err;
	const char *value_text = NULL;
	const char *p = str + strspn(str, " ");
	bool		prefix = strncmp(p, "jaccard>=", 9) == 0 ||
		(sets && strncmp(p, "containment>=", 13) == 0);
	NddupParseCode code = nddup_query_parse(str, sets, parse_number, NULL, &q->kind,
											&q->threshold, &value_text, &err);

	q->value = NULL;
	CHECK((code == NDDUP_PARSE_SYNTAX) == !prefix, "prefix recognized wrongly: code %d",
		  (int) code);
	if (code != NDDUP_PARSE_OK)
	{
		fuzz_check_error(code, &err, CODE(SYNTAX) | CODE(NUMBER) | CODE(RANGE),
						 code == NDDUP_PARSE_RANGE);
		if (code == NDDUP_PARSE_SYNTAX)
			CHECK(err.detail[0] == '\0', "detail for a bad prefix");
		if (code == NDDUP_PARSE_RANGE)
		{
			const char *end;
			double		t;

			CHECK(parse_number(p + (p[0] == 'j' ? 9 : 13), &t, &end, NULL), "number");
			CHECK(strcmp(err.detail, *end == '\0' ?
						 "The threshold is followed by no sketch." :
						 "The threshold must be between 0 and 1.") == 0 &&
				  (*end == '\0' || isnan(t) || t < 0.0 || t > 1.0),
				  "RANGE for threshold %g: %s", t, err.detail);
		}
		return false;
	}
	CHECK(q->kind == (p[0] == 'j' ? NDDUP_QUERY_JACCARD : NDDUP_QUERY_CONTAINMENT),
		  "kind %d", q->kind);
	CHECK(q->threshold >= 0.0 && q->threshold <= 1.0, "threshold %g", q->threshold);
	CHECK(value_text > p && value_text <= str + strlen(str) && *value_text != '\0',
		  "value position");
	if (sets)
	{
		NddupShingleSet *s = nddup_shingleset_parse(value_text, &err);

		if (s == NULL)
			return false;
		if (nddup_query_check_set(q->kind, s, &err) != NDDUP_PARSE_OK)
		{
			fuzz_check_error(err.code, &err, CODE(INVALID), true);
			CHECK(q->kind == NDDUP_QUERY_CONTAINMENT && s->kind == NDDUP_SET_BOTTOM,
				  "rejected set of kind %d for query kind %d", s->kind, q->kind);
			nddup_free_hook(s);
			return false;
		}
		CHECK(!(q->kind == NDDUP_QUERY_CONTAINMENT && s->kind == NDDUP_SET_BOTTOM),
			  "containment of a bottom-s sample accepted");
		q->value = s;
		q->value_size = NDDUP_SHINGLESET_SIZE(s->nitems);
	}
	else
	{
		NddupMinhash *m = nddup_minhash_parse(value_text, &err);

		if (m == NULL)
			return false;
		q->value = m;
		q->value_size = NDDUP_MINHASH_HDRSZ + nddup_minhash_data_size(m->method, m->k, m->bits);
	}
	return true;
}

/* Write the canonical text form of a query into out. */
static void
format_query(const Query *q, bool sets, NddupBuf *out)
{
	nddup_buf_printf(out, "%s>=%.17g ",
					 q->kind == NDDUP_QUERY_CONTAINMENT ? "containment" : "jaccard",
					 q->threshold);
	if (sets)
		nddup_shingleset_format(q->value, nddup_buf_printf, out);
	else
		nddup_minhash_format(q->value, nddup_buf_printf, out);
}

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	bool		sets;
	char	   *str;
	Query		q,
				back;
	NddupBuf	t1 = {0},
				t2 = {0};

	if (size < 1 || size > MAX_INPUT)
		return 0;
	sets = data[0] & 1;
	str = fuzz_text(data + 1, size - 1);
	if (parse_query(str, sets, &q))
	{
		format_query(&q, sets, &t1);
		CHECK(parse_query(t1.data, sets, &back), "canonical form rejected: %s", t1.data);
		CHECK(back.kind == q.kind && memcmp(&back.threshold, &q.threshold, sizeof(double)) == 0,
			  "kind or threshold changed: %s", t1.data);
		CHECK(back.value_size == q.value_size, "value size changed: %s", t1.data);
		fuzz_check_same(q.value, back.value, q.value_size, "embedded values");
		format_query(&back, sets, &t2);
		CHECK(strcmp(t1.data, t2.data) == 0, "not canonical: %s / %s", t1.data, t2.data);
		nddup_free_hook(back.value);
		nddup_free_hook(q.value);
		nddup_buf_free(&t1);
		nddup_buf_free(&t2);
	}
	free(str);
	return 0;
}
