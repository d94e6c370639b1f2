/*-------------------------------------------------------------------------
 *
 * explain.c
 *	  Why two texts match (docs/explain.md): the word shingles of each text
 *	  with the input bytes they come from, the shingles they share, and the
 *	  shared passages, the maximal runs of consecutive shared shingles, as
 *	  byte ranges of the input texts.
 *
 * Each text is normalized with a source map (nddup_normalize_mapped), so
 * every token of the normalized text knows the input characters it comes
 * from, markup, character references and Unicode normalization included.
 * The shingle hashes follow the rule of docs/text-pipeline.md (and are
 * compared with nddup_text_shingles in test/unit), so the distinct shingles
 * of the passages of a text are exactly the shingles both texts share.
 *
 *-------------------------------------------------------------------------
 */
#include <string.h>

#include "explain.h"

/* The tokens of a normalized text: bytes [start, end) and hashes. */
typedef struct TokenList
{
	const char *base;			/* the normalized text */
	size_t	   *start;
	size_t	   *end;
	uint64_t   *hash;
	size_t		n;
	size_t		cap;
} TokenList;

/* Token callback: append the token to the TokenList arg. */
static void
add_token(void *arg, const char *token, size_t len)
{
	TokenList  *t = arg;

	if (t->n == t->cap)
	{
		t->cap = t->cap > 0 ? t->cap * 2 : 256;
		t->start = nddup_realloc_hook(t->start, t->cap * sizeof(size_t));
		t->end = nddup_realloc_hook(t->end, t->cap * sizeof(size_t));
		t->hash = nddup_realloc_hook(t->hash, t->cap * sizeof(uint64_t));
	}
	t->start[t->n] = (size_t) (token - t->base);
	t->end[t->n] = t->start[t->n] + len;
	t->hash[t->n] = nddup_hash_bytes(token, len);
	t->n++;
	if (t->n % NDDUP_INTERRUPT_STRIDE == 0)
		nddup_check_interrupts();
}

/* XXH3 of the little-endian bytes of the n token hashes t[0..n). */
static uint64_t
window_hash(const uint64_t *t, size_t n)
{
	uint8_t		bytes[8 * NDDUP_MAX_SHINGLE_SIZE];

	for (size_t i = 0; i < n; i++)
		for (int b = 0; b < 8; b++)
			bytes[8 * i + b] = (uint8_t) (t[i] >> (8 * b));
	return nddup_hash_bytes((const char *) bytes, 8 * n);
}

/* Free a token list's arrays. */
static void
token_list_free(TokenList *t)
{
	nddup_free_hook(t->start);
	nddup_free_hook(t->end);
	nddup_free_hook(t->hash);
}

/* A text's shingles, the input bytes of its tokens, and its sorted set. */
typedef struct TextShingles
{
	NddupBuf	norm;
	NddupSourceMap map;
	TokenList	tokens;
	uint64_t   *shingles;		/* text order */
	size_t		nshingles;
	uint64_t   *set;			/* sorted, distinct */
	size_t		distinct;
} TextShingles;

/* Normalize, tokenize and shingle src[0..len) into ts (zeroed). */
static void
text_shingles(const char *src, size_t len, size_t w, bool joined,
			  TextShingles *ts)
{
	TokenList  *t = &ts->tokens;
	size_t		n;

	nddup_normalize_mapped(src, len, joined, &ts->norm, &ts->map);
	t->base = ts->norm.data;
	nddup_tokenize(ts->norm.data, ts->norm.len, add_token, t);

	/* n >= w tokens: n - w + 1 windows; 1 <= n < w: one over all of them */
	n = t->n == 0 ? 0 : (t->n >= w ? t->n - w + 1 : 1);
	ts->nshingles = n;
	ts->shingles = nddup_realloc_hook(NULL, (n > 0 ? n : 1) * sizeof(uint64_t));
	for (size_t i = 0; i < n; i++)
	{
		size_t		k = t->n >= w ? w : t->n;

		ts->shingles[i] = w == 1 ? t->hash[i] : window_hash(t->hash + i, k);
		if (i % NDDUP_INTERRUPT_STRIDE == NDDUP_INTERRUPT_STRIDE - 1)
			nddup_check_interrupts();
	}
	ts->set = nddup_realloc_hook(NULL, (n > 0 ? n : 1) * sizeof(uint64_t));
	memcpy(ts->set, ts->shingles, n * sizeof(uint64_t));
	ts->distinct = nddup_sort_unique(ts->set, n);
}

/*
 * The passages of ts: the maximal runs of its shingles that are in the
 * other text's set, with the input bytes of their tokens.
 */
static void
find_passages(const TextShingles *ts, size_t w, const uint64_t *other,
			  size_t nother, NddupExplainSide *side)
{
	const TokenList *t = &ts->tokens;
	size_t		cap = 0;
	size_t		i = 0;

	side->passages = NULL;
	side->npassages = 0;
	while (i < ts->nshingles)
	{
		size_t		j;
		size_t		last_token;
		NddupPassage *p;

		if (!nddup_sorted_contains(other, nother, ts->shingles[i]))
		{
			i++;
			continue;
		}
		for (j = i + 1; j < ts->nshingles &&
			 nddup_sorted_contains(other, nother, ts->shingles[j]); j++)
			;
		if (side->npassages == cap)
		{
			cap = cap > 0 ? cap * 2 : 16;
			side->passages = nddup_realloc_hook(side->passages,
												cap * sizeof(NddupPassage));
		}
		p = &side->passages[side->npassages++];
		/* shingle j - 1 ends at token j - 1 + w - 1, or at the last token */
		last_token = j - 1 + w - 1;
		if (last_token >= t->n)
			last_token = t->n - 1;
		p->first = i;
		p->count = j - i;
		p->start = ts->map.start[t->start[i]];
		p->end = ts->map.end[t->end[last_token] - 1];
		i = j;
	}
}

/* Free what text_shingles allocated, but the shingles (handed over). */
static void
text_shingles_free(TextShingles *ts)
{
	nddup_buf_free(&ts->norm);
	nddup_source_map_free(&ts->map);
	token_list_free(&ts->tokens);
	nddup_free_hook(ts->set);
}

/*
 * Explain the texts a and b: their shingles, the number they share, and
 * each one's shared passages.
 */
bool
nddup_explain(const char *a, size_t alen, const char *b, size_t blen,
			  int w, NddupUnit unit, NddupExplain *out)
{
	TextShingles ta;
	TextShingles tb;
	bool		joined = unit == NDDUP_UNIT_WORD_JOINED;

	if (w < 1 || w > NDDUP_MAX_SHINGLE_SIZE ||
		(unit != NDDUP_UNIT_WORD && unit != NDDUP_UNIT_WORD_JOINED))
		return false;
	memset(&ta, 0, sizeof(ta));
	memset(&tb, 0, sizeof(tb));
	text_shingles(a, alen, (size_t) w, joined, &ta);
	text_shingles(b, blen, (size_t) w, joined, &tb);

	memset(out, 0, sizeof(*out));
	out->shared = nddup_intersection_count(ta.set, ta.distinct, tb.set, tb.distinct);
	find_passages(&ta, (size_t) w, tb.set, tb.distinct, &out->a);
	find_passages(&tb, (size_t) w, ta.set, ta.distinct, &out->b);
	out->a.shingles = ta.shingles;
	out->a.nshingles = ta.nshingles;
	out->a.distinct = ta.distinct;
	out->b.shingles = tb.shingles;
	out->b.nshingles = tb.nshingles;
	out->b.distinct = tb.distinct;
	text_shingles_free(&ta);
	text_shingles_free(&tb);
	return true;
}

/* Free the arrays of an explanation. */
void
nddup_explain_free(NddupExplain *e)
{
	nddup_free_hook(e->a.shingles);
	nddup_free_hook(e->b.shingles);
	if (e->a.passages != NULL)
		nddup_free_hook(e->a.passages);
	if (e->b.passages != NULL)
		nddup_free_hook(e->b.passages);
	memset(e, 0, sizeof(*e));
}

/* Merge overlapping or touching passages into disjoint ranges, in place. */
size_t
nddup_merge_passages(NddupPassage *passages, size_t n)
{
	size_t		m = 0;

	for (size_t i = 0; i < n; i++)
	{
		if (m > 0 && passages[i].start <= passages[m - 1].end)
		{
			if (passages[i].end > passages[m - 1].end)
				passages[m - 1].end = passages[i].end;
			continue;
		}
		passages[m++] = passages[i];
	}
	return m;
}
