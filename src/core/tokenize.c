/*-------------------------------------------------------------------------
 *
 * tokenize.c
 *	  Tokenization of normalized text, and hashing of tokens and shingles
 *	  (see docs/text-pipeline.md).
 *
 * Tokens are the space-separated words of the normalized text, except that
 * ideographs, hiragana and katakana (with the combining marks that follow
 * them) are tokens of one character each.  Hashes are XXH3-64 with seed
 * NDDUP_HASH_SEED; a shingle of w > 1 words hashes the little-endian bytes
 * of its w token hashes.  The results are a file format.
 *
 *-------------------------------------------------------------------------
 */
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "nddup_core.h"
#include "ascii_block.h"
#include "unicode_tables.h"
#include "token_inline.h"

/*
 * Find the next token at or after *pos in the normalized text s[0..len):
 * sets [*start, *end) and advances *pos; returns false when there is none.
 */
static ALWAYS_INLINE bool
next_token(const uint8_t *s, size_t len, size_t *pos,
		   size_t *start, size_t *end)
{
	size_t		i = *pos;
	size_t		adv;
	uint32_t	cp;

	while (i < len && s[i] == ' ')
		i++;
	if (i >= len)
	{
		*pos = i;
		return false;
	}
	*start = i;

	if (s[i] >= 0x80)
	{
		cp = decode_at(s, len, i, &adv);
		i += adv;
		if (is_solo(cp))
		{
			/* one character, with the combining marks that follow it */
			while (i < len && s[i] >= 0x80)
			{
				cp = decode_at(s, len, i, &adv);
				if (!(nddup_uprops_of(cp)->flags & NDDUP_UF_MARK))
					break;
				i += adv;
			}
			*end = *pos = i;
			return true;
		}
	}
	else
		i++;

	/* a run of other characters, up to a space or a one-character token */
	while (i < len)
	{
		uint8_t		c = s[i];

		if (c < 0x80)
		{
			if (c == ' ')
				break;
			i = ascii_word_end(s, len, i);
			continue;
		}
		/* a two-byte sequence, below U+0800: never a one-character token */
		if (c >= 0xC2 && c < 0xE0 && len - i >= 2 && (s[i + 1] & 0xC0) == 0x80)
		{
			i += 2;
			continue;
		}
		cp = decode_at(s, len, i, &adv);
		if (is_solo(cp))
			break;
		i += adv;
	}
	*end = *pos = i;
	return true;
}

/* Call callback for each token of the normalized text; returns their number. */
size_t
nddup_tokenize(const char *norm, size_t len,
			   NddupTokenCallback callback, void *arg)
{
	const uint8_t *s = (const uint8_t *) norm;
	size_t		pos = 0;
	size_t		start;
	size_t		end;
	size_t		count = 0;

	while (next_token(s, len, &pos, &start, &end))
	{
		callback(arg, norm + start, end - start);
		count++;
	}
	return count;
}

/* The SQL names of the shingle units, by NddupUnit. */
const char *const nddup_unit_names[NDDUP_UNIT_MAX + 1] = {"word", "char", "word_"};

/* XXH3-64 of len bytes with seed NDDUP_HASH_SEED. */
uint64_t
nddup_hash_bytes(const char *bytes, size_t len)
{
	return hash_bytes(bytes, len);
}


/* ----------------------------------------------------------------
 *		Shingles, handed over in batches
 * ----------------------------------------------------------------
 */

/* Number of hashes handed over at a time, and of token hashes held. */
#define HASH_BATCH	256

/* Shingle hashes waiting to be handed over, and where they go. */
typedef struct HashSink
{
	NddupHashBatchCallback callback;
	void	   *arg;
	size_t		n;				/* hashes in out */
	size_t		count;			/* hashes handed over so far */
	uint64_t	out[HASH_BATCH];
} HashSink;

/* Start an empty sink. */
static void
sink_init(HashSink *sink, NddupHashBatchCallback callback, void *arg)
{
	sink->callback = callback;
	sink->arg = arg;
	sink->n = 0;
	sink->count = 0;
}

/* Hand the pending hashes over; the interrupt hook every stride of them. */
static void
sink_flush(HashSink *sink)
{
	if (sink->n > 0)
		sink->callback(sink->arg, sink->out, sink->n);
	if ((sink->count + sink->n) / NDDUP_INTERRUPT_STRIDE !=
		sink->count / NDDUP_INTERRUPT_STRIDE)
		nddup_check_interrupts();
	sink->count += sink->n;
	sink->n = 0;
}

/* Queue one hash. */
static inline void
sink_push(HashSink *sink, uint64_t hash)
{
	sink->out[sink->n++] = hash;
	if (sink->n == HASH_BATCH)
		sink_flush(sink);
}

/* Word shingles of a stream of token hashes. */
typedef struct WordShingler
{
	HashSink	sink;
	size_t		w;				/* shingle size */
	size_t		n;				/* hashes in tokens */
	size_t		total;			/* tokens seen */
	uint64_t	tokens[HASH_BATCH + NDDUP_MAX_SHINGLE_SIZE];
} WordShingler;

/* Start a shingler of size w (1..NDDUP_MAX_SHINGLE_SIZE). */
static void
shingler_init(WordShingler *ws, size_t w, NddupHashBatchCallback callback,
			  void *arg)
{
	sink_init(&ws->sink, callback, arg);
	ws->w = w;
	ws->n = 0;
	ws->total = 0;
}

/* XXH3 of the little-endian bytes of w consecutive token hashes. */
static inline uint64_t
window_hash(const uint64_t *t, size_t w)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	/* in memory, the hashes already are their little-endian bytes */
	return hash_bytes(t, 8 * w);
#else
	uint8_t		bytes[8 * NDDUP_MAX_SHINGLE_SIZE];

	for (size_t i = 0; i < w; i++)
		store_le64(bytes + 8 * i, t[i]);
	return hash_bytes(bytes, 8 * w);
#endif
}

/*
 * Hash every complete window of w token hashes held, straight into the
 * sink's batch, and keep the last w - 1 hashes for the next windows.
 */
static NOINLINE void
shingler_drain(WordShingler *ws)
{
	HashSink   *sink = &ws->sink;
	size_t		w = ws->w;
	size_t		m;
	size_t		j = 0;

	if (ws->n < w)
		return;
	m = ws->n - w + 1;
	while (j < m)
	{
		size_t		k = HASH_BATCH - sink->n;
		uint64_t   *out = sink->out + sink->n;

		if (k > m - j)
			k = m - j;
		if (w == 1)
			memcpy(out, ws->tokens + j, k * sizeof(uint64_t));
		else if (w == 2)
		{
			/* the default size: a constant length, inlined */
			for (size_t i = 0; i < k; i++)
				out[i] = window_hash(ws->tokens + j + i, 2);
		}
		else
		{
			for (size_t i = 0; i < k; i++)
				out[i] = window_hash(ws->tokens + j + i, w);
		}
		sink->n += k;
		j += k;
		if (sink->n == HASH_BATCH)
			sink_flush(sink);
	}
	memmove(ws->tokens, ws->tokens + m, (w - 1) * sizeof(uint64_t));
	ws->n = w - 1;
}

/* Add the hash of the next token. */
static inline void
shingler_push(WordShingler *ws, uint64_t hash)
{
	ws->tokens[ws->n++] = hash;
	ws->total++;
	if (ws->n == HASH_BATCH + ws->w - 1)
		shingler_drain(ws);
}

/* Emit the last shingles; returns the number of shingles handed over. */
static size_t
shingler_finish(WordShingler *ws)
{
	/* fewer tokens than w: one shingle over all of them */
	if (ws->total > 0 && ws->total < ws->w)
		sink_push(&ws->sink, window_hash(ws->tokens, ws->total));
	else
		shingler_drain(ws);
	sink_flush(&ws->sink);
	return ws->sink.count;
}

/* Push the hash of every token of the normalized text s[0..len). */
static NOINLINE void
push_normalized_tokens(WordShingler *ws, const uint8_t *s, size_t len)
{
	size_t		pos = 0;
	size_t		start;
	size_t		end;

	while (next_token(s, len, &pos, &start, &end))
		shingler_push(ws, hash_bytes(s + start, end - start));
}

/*
 * Character shingles of the normalized text norm[0..len) into a sink: one
 * per window of w code points.  When the text has fewer than w code points
 * and whole_if_short, one shingle of the whole text.
 */
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((flatten))
#endif
static void
char_shingles(const char *norm, size_t len, size_t w, HashSink *sink,
			  bool whole_if_short)
{
	const uint8_t *s = (const uint8_t *) norm;
	size_t		starts[NDDUP_MAX_SHINGLE_SIZE];	/* ring of code point starts */
	size_t		slot = 0;		/* n % w */
	size_t		i = 0;
	size_t		n = 0;

	/* ASCII fast path: a window of w code points is w bytes */
	while (i < len && s[i] < 0x80)
	{
		i++;
		if (++n >= w)
			sink_push(sink, token_hash(s + i - w, w));
	}
	/* the ring of starts for the general loop below */
	for (size_t back = 0; back < w && back < n; back++)
		starts[(n - 1 - back) % w] = i - 1 - back;
	slot = n % w;

	while (i < len)
	{
		size_t		adv = 1;

		if (s[i] >= 0x80)
			(void) decode_at(s, len, i, &adv);
		starts[slot] = i;
		i += adv;
		n++;
		if (++slot == w)
			slot = 0;
		/* code points n - w .. n - 1; the oldest start is at slot n % w */
		if (n >= w)
			sink_push(sink, token_hash(s + starts[slot], i - starts[slot]));
	}

	/* fewer code points than w: one shingle of the whole text */
	if (n > 0 && n < w && whole_if_short)
		sink_push(sink, hash_long(s, len));
}

/* ----------------------------------------------------------------
 *		Drains of a streaming normalization
 *
 * nddup_normalize_stream hands its output so far to a drain every
 * nddup_stream_chunk bytes; the drain shingles what it can and keeps only
 * what the rest of the text may still change: for words, the text from the
 * last token boundary (a space, or the start of a one-character token) on;
 * for characters, the last w - 1 code points.  The shingles are the same
 * as those of the whole normalized text (test/unit compares them), and the
 * memory is that of a chunk, not of the normalized text, which NFKC can
 * make 18 times the input (U+FDFA).
 * ----------------------------------------------------------------
 */

/* State of a word drain. */
typedef struct WordDrain
{
	WordShingler *ws;
	size_t		scanned;		/* out[1..scanned) holds no token boundary */
	bool		hashing;		/* a word is in progress, its bytes in state */
	XXH3_state_t state;			/* XXH3 of the word so far, streamed */
} WordDrain;

/* Start a word drain for ws. */
static void
word_drain_init(WordDrain *d, WordShingler *ws)
{
	d->ws = ws;
	d->scanned = 0;
	d->hashing = false;
}

/* Is the character at s[i] a one-character token?  *adv is its length in bytes. */
static inline bool
solo_at(const uint8_t *s, size_t len, size_t i, size_t *adv)
{
	*adv = 1;
	return s[i] >= 0x80 && is_solo(decode_at(s, len, i, adv));
}

/*
 * The word in progress (hashing) goes on with out: hash out up to its
 * first token boundary; if there is one, push the word's hash and remove
 * the word's bytes from out.  Returns false when the word goes on past out
 * (then out is empty).
 */
static bool
continue_word(WordDrain *d, NddupBuf *out)
{
	const uint8_t *s = (const uint8_t *) out->data;
	size_t		len = out->len;
	size_t		first = 0;
	size_t		adv;

	while (first < len && s[first] != ' ' && !solo_at(s, len, first, &adv))
		first += adv;
	XXH3_64bits_update(&d->state, s, first);
	if (first == len)
	{
		out->len = 0;
		return false;
	}
	shingler_push(d->ws, XXH3_64bits_digest(&d->state));
	d->hashing = false;
	memmove(out->data, out->data + first, len - first);
	out->len = len - first;
	return true;
}

/*
 * An NddupNormDrain for word shingles: push the tokens before the last
 * token boundary of out and remove them.  When out holds no boundary but
 * at its start, it is one word in progress (the text after a space, or
 * any but a one-character token): its bytes go into a streamed XXH3 state
 * (the same hash as XXH3 of the whole word), so that a word of the whole
 * text (U+FDF2 repeated) is not held either.
 */
static void
drain_words(void *arg, NddupBuf *out)
{
	WordDrain  *d = arg;
	const uint8_t *s;
	size_t		len;
	size_t		i;
	size_t		cut = 0;

	if (d->hashing)
	{
		d->scanned = 0;
		if (!continue_word(d, out))
			return;
	}
	s = (const uint8_t *) out->data;
	len = out->len;
	i = d->scanned > 0 ? d->scanned : (len > 0 ? 1 : 0);
	if (i > 0 && i < len)
	{
		/* i is a character boundary: scanned is, and so is 1 (' ') unless out[0] is not ASCII */
		if (d->scanned == 0 && s[0] >= 0x80)
			(void) decode_at(s, len, 0, &i);
	}
	while (i < len)
	{
		size_t		adv = 1;

		if (s[i] == ' ' || solo_at(s, len, i, &adv))
			cut = i;
		i += adv;
	}
	d->scanned = len;
	if (cut == 0)
	{
		size_t		start = (len > 0 && s[0] == ' ') ? 1 : 0;
		size_t		adv;

		if (start < len && !solo_at(s, len, start, &adv))
		{
			XXH3_64bits_reset_withSeed(&d->state, NDDUP_HASH_SEED);
			XXH3_64bits_update(&d->state, s + start, len - start);
			d->hashing = true;
			out->len = 0;
			d->scanned = 0;
		}
		return;
	}
	push_normalized_tokens(d->ws, s, cut);
	memmove(out->data, out->data + cut, len - cut);
	out->len = len - cut;
	d->scanned = out->len;
}

/* Push the tokens of what a word drain has left in out, at the end of the text. */
static void
drain_words_finish(WordDrain *d, NddupBuf *out)
{
	if (d->hashing)
	{
		d->scanned = 0;
		if (!continue_word(d, out))
		{
			shingler_push(d->ws, XXH3_64bits_digest(&d->state));
			d->hashing = false;
		}
	}
	push_normalized_tokens(d->ws, (const uint8_t *) out->data, out->len);
}

/* State of a character drain. */
typedef struct CharDrain
{
	HashSink   *sink;
	size_t		w;
	bool		dropped;		/* text has been removed from the front */
} CharDrain;

/*
 * An NddupNormDrain for character shingles: the shingles of the windows
 * that end in out (those that end in the w - 1 code points kept from the
 * last call were pushed then), keeping the last w - 1 code points.
 */
static void
drain_chars(void *arg, NddupBuf *out)
{
	CharDrain  *d = arg;
	const uint8_t *s = (const uint8_t *) out->data;
	size_t		keep = out->len;
	size_t		cps = 0;

	char_shingles(out->data, out->len, d->w, d->sink, false);
	while (cps < d->w - 1 && keep > 0)
	{
		keep--;
		if ((s[keep] & 0xC0) != 0x80)
			cps++;
	}
	if (cps < d->w - 1)
		return;					/* fewer than w - 1 code points so far */
	if (keep > 0)
		d->dropped = true;
	memmove(out->data, out->data + keep, out->len - keep);
	out->len -= keep;
}

/* A per-hash callback and its argument, fed from batches. */
typedef struct OneByOne
{
	NddupHashCallback callback;
	void	   *arg;
} OneByOne;

/* Batch callback: hand each hash of the batch to a per-hash callback. */
static void
one_by_one(void *arg, const uint64_t *hashes, size_t n)
{
	OneByOne   *o = arg;

	for (size_t i = 0; i < n; i++)
		o->callback(o->arg, hashes[i]);
}

/*
 * Call callback with the hash of each w-shingle of the normalized text, in
 * text order, repeats included; returns their number.  size must be in
 * 1..NDDUP_MAX_SHINGLE_SIZE (checked by the caller).
 */
size_t
nddup_shingle_hashes(const char *norm, size_t len, int size, NddupUnit unit,
					 NddupHashCallback callback, void *arg)
{
	OneByOne	o = {callback, arg};

	if (size < 1 || size > NDDUP_MAX_SHINGLE_SIZE)
		return 0;
	if (unit == NDDUP_UNIT_CHAR)
	{
		HashSink	sink;

		sink_init(&sink, one_by_one, &o);
		char_shingles(norm, len, (size_t) size, &sink, true);
		sink_flush(&sink);
		return sink.count;
	}
	else
	{
		WordShingler ws;

		shingler_init(&ws, (size_t) size, one_by_one, &o);
		push_normalized_tokens(&ws, (const uint8_t *) norm, len);
		return shingler_finish(&ws);
	}
}

/* ----------------------------------------------------------------
 *		Tokens of a raw text in one pass
 *
 * The scanner below gives the same token hashes as nddup_normalize followed
 * by nddup_tokenize, without writing the normalized text where the input is
 * plain ASCII.  There, a token is a maximal run of ASCII letters and digits
 * (lower-cased: their normalization), continued across markup that
 * nddup_normalize removes without a separator; any other ASCII byte is a
 * separator.  That holds because every ASCII character is its own NFKC, is
 * a safe starting point of normalization (it decomposes to itself, has
 * combining class 0 and never composes with what precedes it), and because
 * nothing in ASCII is a one-character (ideograph, kana) token.  The one
 * thing ASCII cannot tell alone is what follows: a non-ASCII character may
 * compose with the ASCII letter before it ("e" U+0301 is "é") or extend the
 * token.  So at the first non-ASCII byte (or a character reference to a
 * non-ASCII character) the scanner drops the token in progress and hands
 * the text, from the separator that ended the last complete token, to the
 * general path (nddup_normalize_part and the tokenizer above), which gives
 * it back at a later ASCII separator followed by ASCII text.  The three
 * ASCII separators that compose ('<', '=', '>' with U+0338) compose into
 * symbols, which are separators too, so a separator always ends a token.
 *
 * Inputs are compared with the general path in test/unit (random ASCII,
 * mixed ASCII and Unicode, HTML) and in test/fuzz/fuzz_shingles.c.
 * ----------------------------------------------------------------
 */


/* Size of the token buffer on the stack. */
#define TOKEN_LOCAL	256

/* The bytes of a token in progress (it crosses a block, or markup). */
typedef struct TokenBytes
{
	uint8_t    *data;
	size_t		len;
	size_t		cap;
	uint8_t		local[TOKEN_LOCAL];
} TokenBytes;

/* Make room for n more bytes in a token in progress. */
static NOINLINE void
token_grow(TokenBytes *t, size_t n)
{
	size_t		cap = t->cap;

	if (n > nddup_max_working - t->len)
		nddup_limit_exceeded(t->len + n);
	while (cap - t->len < n)
		cap *= 2;
	if (cap > nddup_max_working)
		cap = nddup_max_working;
	if (t->data == t->local)
	{
		t->data = nddup_realloc_hook(NULL, cap);
		memcpy(t->data, t->local, t->len);
	}
	else
		t->data = nddup_realloc_hook(t->data, cap);
	t->cap = cap;
}

/* Append n bytes to a token in progress. */
static inline void
token_append(TokenBytes *t, const uint8_t *bytes, size_t n)
{
	if (t->cap - t->len < n)
		token_grow(t, n);
	memcpy(t->data + t->len, bytes, n);
	t->len += n;
}

/* State of a scan of one text. */
typedef struct Scanner
{
	const char *src;
	size_t		len;
	WordShingler *ws;
	TokenBytes	token;			/* the token in progress */
	bool		in_token;		/* a token is in progress */
	size_t		restart;		/* where the general path may take over */
	const char *no_gt_from;		/* memory of the markup parser */
	NddupBuf	norm;			/* output of the general path */
} Scanner;

/* End the token in progress: push its hash. */
static inline void
end_token(Scanner *sc)
{
	sc->in_token = false;
	shingler_push(sc->ws, token_hash(sc->token.data, sc->token.len));
	sc->token.len = 0;
}

/*
 * A separator at pos (an ASCII separator, markup standing for a space, or
 * a reference to an ASCII separator): ends the token in progress; the
 * general path may take over from here.
 */
static inline void
separator_at(Scanner *sc, size_t pos)
{
	if (sc->in_token)
		end_token(sc);
	sc->restart = pos;
}

/*
 * The general path, from the restart point to a position after pos, which
 * holds a byte the scanner cannot read alone; returns where to go on.
 */
static NOINLINE size_t
general_path(Scanner *sc, size_t pos)
{
	size_t		stop;

	WordDrain	drain;

	word_drain_init(&drain, sc->ws);
	sc->in_token = false;
	sc->token.len = 0;
	sc->norm.len = 0;
	stop = nddup_normalize_stream(sc->src, sc->len, sc->restart, pos + 1,
								  false, &sc->norm, &sc->no_gt_from,
								  drain_words, &drain);
	drain_words_finish(&drain, &sc->norm);
	sc->restart = stop;
	return stop;
}

/*
 * The byte at pos is '<', '&' or not ASCII: consume it (markup, a
 * character reference, or a stretch of the general path); returns the
 * next position.
 */
static size_t
special_at(Scanner *sc, size_t pos)
{
	const char *p = sc->src + pos;
	const char *end = sc->src + sc->len;

	if (*p == '<')
	{
		bool		separator;
		size_t		n = nddup_markup_length(p, end, &separator,
											&sc->no_gt_from);

		if (n > 0 && !separator)
			return pos + n;		/* removed; the words on both sides join */
		separator_at(sc, pos);	/* a tag, or a literal '<' */
		return pos + (n > 0 ? n : 1);
	}
	if (*p == '&')
	{
		uint32_t	cps[2];
		size_t		n = 0;
		int			k = nddup_char_reference(p, end, cps, &n);

		if (k == 0)
		{
			separator_at(sc, pos);	/* a literal '&' */
			return pos + 1;
		}
		if (k == 1 && cps[0] < 0x80)
		{
			if (nddup_scan_class[cps[0]] & NDDUP_SC_WORD)
			{
				uint8_t		c = (uint8_t) (cps[0] | 0x20);

				token_append(&sc->token, &c, 1);
				sc->in_token = true;
			}
			else
				separator_at(sc, pos);
			return pos + n;
		}
	}
	return general_path(sc, pos);
}

/*
 * Push to ws the hash of every token of nddup_normalize(src, len), in order,
 * as nddup_tokenize cuts them.
 */
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((flatten))
#endif
static void
scan_tokens(const char *src, size_t len, WordShingler *ws)
{
	const uint8_t *s = (const uint8_t *) src;
	Scanner		sc;
	size_t		pos = 0;
	size_t		next_check = NDDUP_INTERRUPT_STRIDE;
	uint8_t		lower[NDDUP_BLOCK];
	uint8_t		tail[NDDUP_BLOCK];

	sc.src = src;
	sc.len = len;
	sc.ws = ws;
	sc.token.data = sc.token.local;
	sc.token.len = 0;
	sc.token.cap = TOKEN_LOCAL;
	sc.in_token = false;
	sc.restart = 0;
	sc.no_gt_from = NULL;
	memset(&sc.norm, 0, sizeof(sc.norm));

	while (pos < len)
	{
		size_t		nb = len - pos < NDDUP_BLOCK ? len - pos : NDDUP_BLOCK;
		const uint8_t *block = s + pos;
		uint64_t	word;
		uint64_t	special;
		uint64_t	carry;
		uint64_t	starts;
		uint64_t	ends;
		size_t		limit;

		if (pos >= next_check)
		{
			nddup_check_interrupts();
			next_check = pos + NDDUP_INTERRUPT_STRIDE;
		}
		if (nb < NDDUP_BLOCK)
		{
			/* the last bytes, padded with separators */
			memset(tail, ' ', NDDUP_BLOCK);
			memcpy(tail, block, nb);
			block = tail;
		}
		nddup_classify_block(block, &word, &special, lower);

		/* plain ASCII up to the first special byte or the end */
		limit = special != 0 ? (size_t) __builtin_ctzll(special) : nb;
		word &= nddup_low_bits(limit);

		/*
		 * Token starts: word bytes after a non-word byte; token ends: the
		 * non-word bytes after a word byte (before limit: the special byte
		 * there decides the end of a token that reaches it).
		 */
		carry = sc.in_token ? 1 : 0;
		starts = word & ~((word << 1) | carry);
		ends = ~word & ((word << 1) | carry) & nddup_low_bits(limit);

		if (sc.in_token)
		{
			/* the token in progress goes on with the first bytes */
			size_t		end = ends != 0 ? (size_t) __builtin_ctzll(ends) : limit;

			token_append(&sc.token, lower, end);
			if (ends != 0)
			{
				end_token(&sc);
				sc.restart = pos + end;
				ends &= ends - 1;
			}
		}

		/* tokens that start in this block: the k-th start, the k-th end */
		while (starts != 0)
		{
			size_t		start = (size_t) __builtin_ctzll(starts);

			starts &= starts - 1;
			if (ends != 0)
			{
				size_t		end = (size_t) __builtin_ctzll(ends);

				ends &= ends - 1;
				shingler_push(ws, token_hash(lower + start, end - start));
				sc.restart = pos + end;
			}
			else
			{
				/* it goes on past the block or the special byte */
				token_append(&sc.token, lower + start, limit - start);
				sc.in_token = true;
			}
		}

		pos += limit;
		if (limit < nb)
			pos = special_at(&sc, pos);
	}
	if (sc.in_token)
		end_token(&sc);
	if (sc.token.data != sc.token.local)
		nddup_free_hook(sc.token.data);
	nddup_buf_free(&sc.norm);
}

/*
 * The shingle hashes of nddup_normalize(src, len), exactly as
 * nddup_shingle_hashes gives them, handed to callback in batches; returns
 * their number.  Word shingles come from the one-pass scanner above.
 */
size_t
nddup_text_shingles(const char *src, size_t len, int size, NddupUnit unit,
					NddupHashBatchCallback callback, void *arg)
{
	if (size < 1 || size > NDDUP_MAX_SHINGLE_SIZE)
		return 0;
	if (unit == NDDUP_UNIT_WORD_JOINED)
	{
		NddupBuf	norm = {0};
		WordShingler ws;
		WordDrain	drain;
		const char *no_gt_from = NULL;
		size_t		count;

		shingler_init(&ws, (size_t) size, callback, arg);
		word_drain_init(&drain, &ws);
		nddup_normalize_stream(src, len, 0, len, true, &norm, &no_gt_from,
							   drain_words, &drain);
		drain_words_finish(&drain, &norm);
		count = shingler_finish(&ws);
		nddup_buf_free(&norm);
		return count;
	}
	if (unit == NDDUP_UNIT_CHAR)
	{
		NddupBuf	norm = {0};
		HashSink	sink;
		CharDrain	drain = {&sink, (size_t) size, false};
		const char *no_gt_from = NULL;

		sink_init(&sink, callback, arg);
		nddup_normalize_stream(src, len, 0, len, false, &norm, &no_gt_from,
							   drain_chars, &drain);
		char_shingles(norm.data, norm.len, (size_t) size, &sink,
					  !drain.dropped);
		sink_flush(&sink);
		nddup_buf_free(&norm);
		return sink.count;
	}
	else
	{
		WordShingler ws;

		shingler_init(&ws, (size_t) size, callback, arg);
		scan_tokens(src, len, &ws);
		return shingler_finish(&ws);
	}
}
