/*-------------------------------------------------------------------------
 *
 * fuzz_shingles.c
 *	  libFuzzer harness for tokenization, shingle hashing and simhash of the
 *	  pure-C core (nddup_tokenize, nddup_shingle_hashes, nddup_simhash_*),
 *	  over fuzzed UTF-8 text and parameters.
 *
 * Input: byte 0 chooses the shingle size (1..64, small sizes more often),
 * byte 1 the unit and a repeat count (every input also checks the unit
 * 'word_' against the joined normalization), the rest is the text (and, read as
 * 64-bit words, a list of feature hashes).
 *
 * Invariants (see docs/reports/fuzzing.md):
 *	- tokens are non-empty, space-free, in order, and cover every non-space
 *	  byte (of the normalized text and of arbitrary bytes); two tokens touch
 *	  only where one of them is a one-character (ideograph, kana) token;
 *	- word and character shingles equal a direct implementation of the
 *	  rules of docs/text-pipeline.md, in number and value;
 *	- the one-pass path (nddup_text_shingles) equals normalize + shingles;
 *	- simhash over the shingles (the bit-sliced fast path) equals the
 *	  weighted path with weight 1, a naive per-bit count, and
 *	  nddup_simhash_text (term-frequency and set weighting);
 *	- an integer weight w equals w repeats of a feature.
 *
 *-------------------------------------------------------------------------
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nddup_core.h"
#include "unicode_tables.h"

/* Largest input looked at. */
#define MAX_INPUT	8192

/* Abort (a finding for libFuzzer) with a message when cond is false. */
#define CHECK(cond, ...) \
	do { \
		if (!(cond)) \
		{ \
			fprintf(stderr, "fuzz_shingles: invariant failed: %s\n  ", #cond); \
			fprintf(stderr, __VA_ARGS__); \
			fprintf(stderr, "\n"); \
			abort(); \
		} \
	} while (0)

/* The bytes of a buffer, never NULL. */
#define BYTES(b)	((b).data != NULL ? (b).data : "")

/* Tokens found by nddup_tokenize: offsets into the text. */
typedef struct Tokens
{
	const char *base;
	size_t		n;
	size_t		cap;
	size_t	   *start;
	size_t	   *len;
} Tokens;

/* Token callback: record the token's offset and length. */
static void
collect_token(void *arg, const char *token, size_t len)
{
	Tokens	   *t = arg;

	if (t->n == t->cap)
	{
		t->cap = t->cap ? 2 * t->cap : 64;
		t->start = realloc(t->start, t->cap * sizeof(size_t));
		t->len = realloc(t->len, t->cap * sizeof(size_t));
		if (t->start == NULL || t->len == NULL)
			abort();
	}
	t->start[t->n] = (size_t) (token - t->base);
	t->len[t->n] = len;
	t->n++;
}

/* Hash callback: collect into an NddupHashes. */
static void
collect_hash(void *arg, uint64_t hash)
{
	nddup_hashes_push((NddupHashes *) arg, hash);
}

/* Decode the code point at s (valid UTF-8 of a normalized text); sets *n. */
static uint32_t
decode(const uint8_t *s, size_t *n)
{
	if (s[0] < 0x80)
	{
		*n = 1;
		return s[0];
	}
	if (s[0] < 0xE0)
	{
		*n = 2;
		return ((uint32_t) (s[0] & 0x1F) << 6) | (s[1] & 0x3F);
	}
	if (s[0] < 0xF0)
	{
		*n = 3;
		return ((uint32_t) (s[0] & 0x0F) << 12) | ((uint32_t) (s[1] & 0x3F) << 6) |
			(s[2] & 0x3F);
	}
	*n = 4;
	return ((uint32_t) (s[0] & 0x07) << 18) | ((uint32_t) (s[1] & 0x3F) << 12) |
		((uint32_t) (s[2] & 0x3F) << 6) | (s[3] & 0x3F);
}

/* Is the token a one-character (SOLO) token: a SOLO code point, then marks? */
static bool
is_solo_token(const uint8_t *s, size_t len)
{
	size_t		n;
	uint32_t	cp = decode(s, &n);

	if (!(nddup_uprops_of(cp)->flags & NDDUP_UF_SOLO))
		return false;
	for (size_t i = n; i < len; i += n)
	{
		cp = decode(s + i, &n);
		CHECK(nddup_uprops_of(cp)->flags & NDDUP_UF_MARK,
			  "one-character token continues with U+%04X", (unsigned) cp);
	}
	return true;
}

/*
 * Tokenize s[0..len) and check the partition invariant; normalized = s is
 * the output of nddup_normalize (valid UTF-8), for the adjacency check.
 */
static void
check_tokens(const char *s, size_t len, bool normalized, Tokens *t)
{
	size_t		count;
	size_t		pos = 0;

	memset(t, 0, sizeof(*t));
	t->base = s;
	count = nddup_tokenize(s, len, collect_token, t);
	CHECK(count == t->n, "tokenize returned %zu for %zu tokens", count, t->n);
	for (size_t k = 0; k < t->n; k++)
	{
		size_t		st = t->start[k];

		CHECK(t->len[k] > 0, "empty token %zu", k);
		CHECK(st >= pos && st + t->len[k] <= len, "token %zu out of order", k);
		for (size_t i = pos; i < st; i++)
			CHECK(s[i] == ' ', "byte %zu (0x%02x) in no token", i, (uint8_t) s[i]);
		for (size_t i = st; i < st + t->len[k]; i++)
			CHECK(s[i] != ' ', "space inside token %zu", k);
		if (normalized && k > 0 && st == pos)
			CHECK(is_solo_token((const uint8_t *) s + t->start[k - 1], t->len[k - 1]) ||
				  is_solo_token((const uint8_t *) s + st, t->len[k]),
				  "tokens %zu and %zu touch, neither is a one-character token",
				  k - 1, k);
		pos = st + t->len[k];
	}
	for (size_t i = pos; i < len; i++)
		CHECK(s[i] == ' ', "trailing byte %zu in no token", i);
}

/* Store v as 8 little-endian bytes. */
static void
put_le64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t) (v >> (8 * i));
}

/* Word shingles by the rules of docs/text-pipeline.md. */
static void
reference_word_shingles(const char *s, const Tokens *t, int w, NddupHashes *out)
{
	size_t		n = t->n;
	uint8_t		buf[8 * NDDUP_MAX_SHINGLE_SIZE];
	size_t		count = n >= (size_t) w ? n - w + 1 : (n > 0 ? 1 : 0);

	for (size_t i = 0; i < count; i++)
	{
		size_t		m = n >= (size_t) w ? (size_t) w : n;

		if (w == 1)
		{
			nddup_hashes_push(out, nddup_hash_bytes(s + t->start[i], t->len[i]));
			continue;
		}
		for (size_t j = 0; j < m; j++)
			put_le64(buf + 8 * j,
					 nddup_hash_bytes(s + t->start[i + j], t->len[i + j]));
		nddup_hashes_push(out, nddup_hash_bytes((const char *) buf, 8 * m));
	}
}

/* Character shingles of a normalized (valid UTF-8) text, by the rules. */
static void
reference_char_shingles(const char *s, size_t len, int w, NddupHashes *out)
{
	size_t	   *cps = malloc((len + 1) * sizeof(size_t));
	size_t		n = 0;

	if (cps == NULL)
		abort();
	for (size_t i = 0; i < len;)
	{
		size_t		adv;

		(void) decode((const uint8_t *) s + i, &adv);
		cps[n++] = i;
		i += adv;
	}
	cps[n] = len;
	if (n > 0 && n < (size_t) w)
		nddup_hashes_push(out, nddup_hash_bytes(s, len));
	for (size_t i = 0; n >= (size_t) w && i + w <= n; i++)
		nddup_hashes_push(out, nddup_hash_bytes(s + cps[i], cps[i + w] - cps[i]));
	free(cps);
}

/* Abort unless the two hash lists are equal. */
static void
check_same_hashes(const char *what, const NddupHashes *a, const NddupHashes *b)
{
	CHECK(a->len == b->len, "%s: %zu and %zu hashes", what, a->len, b->len);
	for (size_t i = 0; i < a->len; i++)
		CHECK(a->items[i] == b->items[i], "%s: hash %zu differs", what, i);
}

/* Simhash by a naive per-bit count: bit i set iff 2 * count_i > n. */
static uint64_t
naive_simhash(const uint64_t *h, size_t n)
{
	uint64_t	fp = 0;

	for (int i = 0; i < 64; i++)
	{
		size_t		c = 0;

		for (size_t j = 0; j < n; j++)
			c += (h[j] >> i) & 1;
		if (2 * c > n)
			fp |= UINT64_C(1) << i;
	}
	return fp;
}

/* Check the three simhash paths on a list of feature hashes. */
static void
check_simhash(const char *what, const uint64_t *h, size_t n)
{
	NddupSimhashAcc *acc = malloc(sizeof(NddupSimhashAcc));
	NddupSimhashWeighted wacc;
	uint64_t	fast,
				weighted,
				naive = naive_simhash(h, n);

	if (acc == NULL)
		abort();
	nddup_simhash_init(acc);
	nddup_simhash_weighted_init(&wacc);
	for (size_t j = 0; j < n; j++)
	{
		nddup_simhash_add(acc, h[j]);
		nddup_simhash_weighted_add(&wacc, h[j], 1.0);
	}
	fast = nddup_simhash_finish(acc);
	weighted = nddup_simhash_weighted_finish(&wacc);
	CHECK(fast == naive, "%s: simhash %016llx, naive count %016llx (%zu features)",
		  what, (unsigned long long) fast, (unsigned long long) naive, n);
	CHECK(weighted == naive, "%s: weighted simhash %016llx, naive %016llx (%zu features)",
		  what, (unsigned long long) weighted, (unsigned long long) naive, n);
	free(acc);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int			w;
	NddupUnit	unit;
	unsigned	repeat;
	const char *text;
	size_t		tlen;
	NddupBuf	norm = {0};
	Tokens		tok,
				rawtok;
	NddupHashes got = {0},
				want = {0},
				raw = {0},
				feats = {0};
	size_t		count;
	uint64_t	fp;

	if (size < 2 || size > MAX_INPUT)
		return 0;
	w = (data[0] & 0x80) ? 1 + data[0] % 64 : 1 + (data[0] & 7);
	unit = (data[1] & 1) ? NDDUP_UNIT_CHAR : NDDUP_UNIT_WORD;
	repeat = 1 + (data[1] >> 1) % 40;
	text = (const char *) data + 2;
	tlen = size - 2;

	/* tokens, of the normalized text and of the raw bytes */
	nddup_normalize(text, tlen, &norm);
	check_tokens(BYTES(norm), norm.len, true, &tok);
	check_tokens(text, tlen, false, &rawtok);

	/* shingles against the reference implementation */
	count = nddup_shingle_hashes(BYTES(norm), norm.len, w, unit, collect_hash, &got);
	CHECK(count == got.len, "shingle_hashes returned %zu for %zu shingles", count, got.len);
	if (unit == NDDUP_UNIT_WORD)
		reference_word_shingles(BYTES(norm), &tok, w, &want);
	else
		reference_char_shingles(BYTES(norm), norm.len, w, &want);
	check_same_hashes(unit == NDDUP_UNIT_WORD ? "word shingles" : "char shingles",
					  &got, &want);

	/* the one-pass path of the raw text gives the same shingles */
	count = nddup_text_shingles(text, tlen, w, unit, nddup_hashes_append, &raw);
	CHECK(count == raw.len, "text_shingles returned %zu for %zu shingles", count, raw.len);
	check_same_hashes("one-pass shingles", &raw, &got);
	raw.len = 0;

	/*
	 * unit 'word_': the one-pass shingles are the word shingles of the text
	 * normalized with connector punctuation kept; without any kept, that
	 * text is the ordinary normalized one
	 */
	{
		NddupBuf	joined = {0};
		NddupHashes jraw = {0},
					jgot = {0};
		bool		has_connector = false;

		nddup_normalize_joined(text, tlen, &joined);
		for (size_t j = 0; j < joined.len; j++)
			has_connector |= joined.data[j] == '_' || (unsigned char) joined.data[j] == 0xE2;
		CHECK(has_connector || (joined.len == norm.len &&
								memcmp(joined.data, norm.data, norm.len) == 0),
			  "joined normalization differs without connector punctuation");
		nddup_text_shingles(text, tlen, w, NDDUP_UNIT_WORD_JOINED, nddup_hashes_append, &jraw);
		nddup_shingle_hashes(BYTES(joined), joined.len, w, NDDUP_UNIT_WORD, collect_hash, &jgot);
		check_same_hashes("word_ shingles", &jraw, &jgot);
		nddup_buf_free(&joined);
		nddup_hashes_free(&jraw);
		nddup_hashes_free(&jgot);
	}

	/* sizes out of range give nothing */
	CHECK(nddup_shingle_hashes(BYTES(norm), norm.len, 0, unit, collect_hash, &raw) == 0 &&
		  nddup_shingle_hashes(BYTES(norm), norm.len, NDDUP_MAX_SHINGLE_SIZE + 1, unit,
							   collect_hash, &raw) == 0 && raw.len == 0,
		  "shingle size out of range gives shingles");

	/* shingles of arbitrary bytes: no crash, plausible counts */
	count = nddup_shingle_hashes(text, tlen, w, unit, collect_hash, &raw);
	CHECK(count == raw.len && count <= tlen, "%zu shingles of %zu raw bytes", count, tlen);
	if (unit == NDDUP_UNIT_WORD)
		CHECK(count == (rawtok.n >= (size_t) w ? rawtok.n - w + 1 : rawtok.n > 0),
			  "%zu word shingles of %zu raw tokens", count, rawtok.n);

	/* simhash of the shingles, and of the whole text */
	check_simhash("shingles", got.items, got.len);
	{
		NddupSimhashAcc *acc = malloc(sizeof(NddupSimhashAcc));

		if (acc == NULL)
			abort();
		nddup_simhash_init(acc);
		for (size_t j = 0; j < got.len; j++)
			nddup_simhash_add(acc, got.items[j]);
		fp = nddup_simhash_finish(acc);
		CHECK(fp == nddup_simhash_text(text, tlen, w, unit, false),
			  "simhash_text differs from normalize + shingles + simhash");
		count = nddup_sort_unique(got.items, got.len);
		nddup_simhash_init(acc);
		for (size_t j = 0; j < count; j++)
			nddup_simhash_add(acc, got.items[j]);
		fp = nddup_simhash_finish(acc);
		CHECK(fp == nddup_simhash_text(text, tlen, w, unit, true),
			  "simhash_text(unique) differs from the distinct shingles' simhash");
		free(acc);
	}

	/*
	 * The input as 64-bit feature hashes, each repeated: long runs of one
	 * value cross the 16-hash blocks and 256-hash batches of the fast path.
	 */
	for (size_t i = 0; i + 8 <= tlen; i += 8)
	{
		uint64_t	h = 0;

		memcpy(&h, text + i, 8);
		for (unsigned r = 0; r < repeat; r++)
			nddup_hashes_push(&feats, h);
	}
	check_simhash("fuzzed features", feats.items, feats.len);

	/* an integer weight is the same as that many repeats */
	{
		NddupSimhashWeighted wacc;
		NddupSimhashAcc *acc = malloc(sizeof(NddupSimhashAcc));
		size_t		nfeat = tlen / 8;

		if (acc == NULL)
			abort();
		nddup_simhash_weighted_init(&wacc);
		nddup_simhash_init(acc);
		for (size_t j = 0; j < nfeat; j++)
		{
			uint64_t	h = feats.items[j * repeat];
			unsigned	weight = 1 + (unsigned) (h >> 61) + (unsigned) (j % 3);

			nddup_simhash_weighted_add(&wacc, h, (double) weight);
			for (unsigned r = 0; r < weight; r++)
				nddup_simhash_add(acc, h);
		}
		fp = nddup_simhash_finish(acc);
		CHECK(fp == nddup_simhash_weighted_finish(&wacc),
			  "integer weights differ from repeats (%zu features)", nfeat);
		free(acc);
	}

	nddup_buf_free(&norm);
	nddup_hashes_free(&got);
	nddup_hashes_free(&want);
	nddup_hashes_free(&raw);
	nddup_hashes_free(&feats);
	free(tok.start);
	free(tok.len);
	free(rawtok.start);
	free(rawtok.len);
	return 0;
}
