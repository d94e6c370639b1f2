/*-------------------------------------------------------------------------
 *
 * normalize.c
 *	  Text normalization of the nddup pipeline: UTF-8 decoding, Unicode
 *	  NFKC, full case folding and word/separator classification, with HTML
 *	  markup and character references read by src/core/markup.c (see
 *	  docs/text-pipeline.md).
 *
 * The output is a file format: it depends only on the input bytes and on
 * the generated tables (src/core/unicode_tables.h, src/core/html_entities.h),
 * never on the locale, the collation or the platform.
 *
 * Plain ASCII without '<' and '&' takes a fast path (64 bytes classified at
 * a time, words copied).  Everything else goes through the general path: code points are
 * decomposed (NFKD) into a segment buffer; at each safe boundary (a starter
 * that cannot compose with what precedes it) the segment is put in
 * canonical order, composed, case folded and classified.
 *
 *-------------------------------------------------------------------------
 */
#include <string.h>

#include "nddup_core.h"
#include "normalize_internal.h"
#include "ascii_block.h"
#include "unicode_tables.h"

/* Inline the per-character steps of the general path. */
#if defined(__GNUC__)
#define ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define ALWAYS_INLINE inline
#endif

/* Capacity of the segment buffer kept on the stack. */
#define SEGMENT_LOCAL_SIZE	64

/* A long run of marks is sorted in this many pieces (sort_marks). */
#define MARK_PIECES			8

/*
 * Fast-path class of each byte: 0 = needs the general path (non-ASCII, '<'
 * or '&'), 1 = separator, otherwise the byte to write (lower case).
 */
static const uint8_t ascii_class[256] = {
	/* 0x00 - 0x1F: controls, separators */
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	/* 0x20 - 0x2F: space ! " # $ % & ' ( ) * + , - . / */
	1, 1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	/* 0x30 - 0x3F: digits : ; < = > ? */
	'0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 1, 1, 0, 1, 1, 1,
	/* 0x40 - 0x5F: @ A-Z [ \ ] ^ _ */
	1, 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l', 'm', 'n', 'o',
	'p', 'q', 'r', 's', 't', 'u', 'v', 'w', 'x', 'y', 'z', 1, 1, 1, 1, 1,
	/* 0x60 - 0x7F: ` a-z { | } ~ DEL */
	1, 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l', 'm', 'n', 'o',
	'p', 'q', 'r', 's', 't', 'u', 'v', 'w', 'x', 'y', 'z', 1, 1, 1, 1, 1,
	/* 0x80 - 0xFF: non-ASCII (all 0) */
};

/* State of one normalization. */
typedef struct NormState
{
	NddupBuf   *out;
	bool		raw;			/* NFKC only: no folding or classification */
	bool		joined;			/* connector punctuation is a word character */
	bool		have_word;		/* a word character has been written */
	bool		pend_space;		/* separator(s) seen since the last word */
	uint32_t   *seg;			/* decomposed code points of the segment */
	size_t		seg_len;
	size_t		seg_cap;
	const NddupUProps *seg0_props;	/* properties of seg[0] if known */
	NddupSourceMap *map;		/* source range of each output byte, or NULL */
	size_t		cur_start;		/* map: source bytes of the character read */
	size_t		cur_end;
	size_t		seg_start;		/* map: source bytes of the segment */
	size_t		seg_end;
	NddupNormDrain drain;		/* streaming: consumer of out, or NULL */
	void	   *drain_arg;
	size_t		chunk;			/* drain every chunk bytes of output */
	size_t		drain_at;		/* out->len at which to drain next */
	uint32_t	seg_local[SEGMENT_LOCAL_SIZE];
} NormState;

/* Decode one UTF-8 sequence (p < end); invalid input gives U+FFFD. */
static inline uint32_t
utf8_decode(const uint8_t *p, const uint8_t *end, size_t *adv)
{
	uint8_t		c = p[0];
	uint8_t		lo = 0x80;
	uint8_t		hi = 0xBF;
	uint32_t	cp;
	size_t		need;
	size_t		i;

	if (c < 0x80)
	{
		*adv = 1;
		return c;
	}
	if (c < 0xC2 || c > 0xF4)
	{
		*adv = 1;
		return NDDUP_REPLACEMENT_CHAR;
	}
	if (c < 0xE0)
	{
		need = 1;
		cp = c & 0x1F;
	}
	else if (c < 0xF0)
	{
		need = 2;
		cp = c & 0x0F;
		if (c == 0xE0)
			lo = 0xA0;			/* overlong */
		else if (c == 0xED)
			hi = 0x9F;			/* surrogates */
	}
	else
	{
		need = 3;
		cp = c & 0x07;
		if (c == 0xF0)
			lo = 0x90;			/* overlong */
		else if (c == 0xF4)
			hi = 0x8F;			/* above U+10FFFF */
	}

	/* a maximal invalid subpart becomes one U+FFFD (WHATWG) */
	for (i = 1; i <= need; i++)
	{
		uint8_t		b;

		if (p + i >= end)
		{
			*adv = i;
			return NDDUP_REPLACEMENT_CHAR;
		}
		b = p[i];
		if (b < lo || b > hi)
		{
			*adv = i;
			return NDDUP_REPLACEMENT_CHAR;
		}
		lo = 0x80;
		hi = 0xBF;
		cp = (cp << 6) | (b & 0x3F);
	}
	*adv = need + 1;
	return cp;
}

/* Write the UTF-8 encoding of cp (a valid scalar value) at o; returns o's end. */
static inline char *
utf8_encode(char *o, uint32_t cp)
{
	if (cp < 0x80)
		*o++ = (char) cp;
	else if (cp < 0x800)
	{
		*o++ = (char) (0xC0 | (cp >> 6));
		*o++ = (char) (0x80 | (cp & 0x3F));
	}
	else if (cp < 0x10000)
	{
		*o++ = (char) (0xE0 | (cp >> 12));
		*o++ = (char) (0x80 | ((cp >> 6) & 0x3F));
		*o++ = (char) (0x80 | (cp & 0x3F));
	}
	else
	{
		*o++ = (char) (0xF0 | (cp >> 18));
		*o++ = (char) (0x80 | ((cp >> 12) & 0x3F));
		*o++ = (char) (0x80 | ((cp >> 6) & 0x3F));
		*o++ = (char) (0x80 | (cp & 0x3F));
	}
	return o;
}

/* Index of cp in a sorted array of n code points, or -1. */
static inline long
find_cp(const uint32_t *keys, size_t n, uint32_t cp)
{
	size_t		lo = 0;
	size_t		hi = n;

	while (lo < hi)
	{
		size_t		mid = lo + (hi - lo) / 2;

		if (keys[mid] < cp)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (lo < n && keys[lo] == cp) ? (long) lo : -1;
}

/* Canonical composite of the pair (a, b), or 0 if there is none. */
static uint32_t
compose_pair(uint32_t a, uint32_t b)
{
	uint64_t	key;
	size_t		lo = 0;
	size_t		hi = sizeof(nddup_comp_key) / sizeof(nddup_comp_key[0]);

	/* Hangul LV and LVT syllables */
	if (a - NDDUP_HANGUL_LBASE < NDDUP_HANGUL_LCOUNT &&
		b - NDDUP_HANGUL_VBASE < NDDUP_HANGUL_VCOUNT)
		return NDDUP_HANGUL_SBASE +
			((a - NDDUP_HANGUL_LBASE) * NDDUP_HANGUL_VCOUNT +
			 (b - NDDUP_HANGUL_VBASE)) * NDDUP_HANGUL_TCOUNT;
	if (a - NDDUP_HANGUL_SBASE < NDDUP_HANGUL_SCOUNT &&
		(a - NDDUP_HANGUL_SBASE) % NDDUP_HANGUL_TCOUNT == 0 &&
		b - NDDUP_HANGUL_TBASE - 1 < NDDUP_HANGUL_TCOUNT - 1)
		return a + (b - NDDUP_HANGUL_TBASE);

	key = ((uint64_t) a << 21) | b;
	while (lo < hi)
	{
		size_t		mid = lo + (hi - lo) / 2;

		if (nddup_comp_key[mid] < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < sizeof(nddup_comp_key) / sizeof(nddup_comp_key[0]) &&
		nddup_comp_key[lo] == key)
		return nddup_comp_value[lo];
	return 0;
}

/* Make room for extra more code points in the segment buffer. */
static void
segment_reserve(NormState *st, size_t extra)
{
	size_t		newcap;

	if (st->seg_cap - st->seg_len >= extra)
		return;
	if (extra > nddup_max_working / sizeof(uint32_t) - st->seg_len)
		nddup_limit_exceeded((st->seg_len + extra) * sizeof(uint32_t));
	newcap = st->seg_cap * 2;
	while (newcap - st->seg_len < extra)
		newcap *= 2;
	if (newcap > nddup_max_working / sizeof(uint32_t))
		newcap = nddup_max_working / sizeof(uint32_t);
	if (st->seg == st->seg_local)
	{
		uint32_t   *heap = nddup_realloc_hook(NULL, newcap * sizeof(uint32_t));

		memcpy(heap, st->seg, st->seg_len * sizeof(uint32_t));
		st->seg = heap;
	}
	else
		st->seg = nddup_realloc_hook(st->seg, newcap * sizeof(uint32_t));
	st->seg_cap = newcap;
}

/*
 * Record the source range of the segment being output for the output bytes
 * from st->out->len up to new_len.
 */
static void
map_bytes(NormState *st, size_t new_len)
{
	NddupSourceMap *map = st->map;

	if (map->cap < new_len)
	{
		size_t		cap = map->cap > 0 ? map->cap : 64;

		while (cap < new_len)
			cap *= 2;
		map->start = nddup_realloc_hook(map->start, cap * sizeof(size_t));
		map->end = nddup_realloc_hook(map->end, cap * sizeof(size_t));
		map->cap = cap;
	}
	for (size_t i = st->out->len; i < new_len; i++)
	{
		map->start[i] = st->seg_start;
		map->end[i] = st->seg_end;
	}
}

/* Write a case-folded code point: a word character, or a pending separator. */
static inline void
emit_folded(NormState *st, uint32_t cp, uint8_t flags)
{
	NddupBuf   *out = st->out;

	if ((flags & NDDUP_UF_WORD) || (st->joined && nddup_is_connector(cp)))
	{
		char	   *o;

		if (out->cap - out->len < 5)
			nddup_buf_reserve(out, 5);
		o = out->data + out->len;
		if (st->pend_space)
		{
			*o++ = ' ';
			st->pend_space = false;
		}
		o = utf8_encode(o, cp);
		if (st->map != NULL)
			map_bytes(st, (size_t) (o - out->data));
		out->len = o - out->data;
		st->have_word = true;
	}
	else if (st->have_word)
		st->pend_space = true;
}

/*
 * Output one NFKC code point: case fold it and classify the result.  props
 * are its properties, or NULL to look them up.
 */
static ALWAYS_INLINE void
emit(NormState *st, uint32_t cp, const NddupUProps *props)
{
	if (st->raw)
	{
		char	   *o;

		nddup_buf_reserve(st->out, 4);
		o = utf8_encode(st->out->data + st->out->len, cp);
		st->out->len = o - st->out->data;
		return;
	}

	if (props == NULL)
		props = nddup_uprops_of(cp);
	if (props->flags & NDDUP_UF_FOLD)
	{
		long		i = find_cp(nddup_fold_cp,
								sizeof(nddup_fold_cp) / sizeof(nddup_fold_cp[0]),
								cp);

		if (i >= 0)
		{
			uint32_t	info = nddup_fold_info[i];
			const uint32_t *f = nddup_fold_data + (info >> 5);
			uint32_t	n = info & 31;
			uint32_t	k;

			for (k = 0; k < n; k++)
				emit_folded(st, f[k], nddup_uprops_of(f[k])->flags);
			return;
		}
	}
	emit_folded(st, cp, props->flags);
}

/*
 * Stable sort of n non-starters by canonical combining class: insertion sort
 * for short runs, counting sorts of pieces merged in place for long ones.
 */
static void
sort_marks(uint32_t *s, size_t n)
{
	size_t		i;

	if (n <= 16)
	{
		for (i = 1; i < n; i++)
		{
			uint32_t	c = s[i];
			uint8_t		cc = nddup_uprops_of(c)->ccc;
			size_t		j = i;

			while (j > 0 && nddup_uprops_of(s[j - 1])->ccc > cc)
			{
				s[j] = s[j - 1];
				j--;
			}
			s[j] = c;
		}
	}
	else
	{
		/*
		 * Counting sort (stable) of pieces of at most MARK_PIECES-th of the
		 * run through a buffer of that size, each piece then merged into the
		 * sorted run before it from the back: the buffer holds the piece, so
		 * a run of marks (a text of nothing else) needs an eighth of its
		 * segment more, not all of it again.
		 */
		size_t		piece = (n + MARK_PIECES - 1) / MARK_PIECES;
		uint32_t   *tmp = nddup_realloc_hook(NULL, piece * sizeof(uint32_t));

		for (size_t from = 0; from < n; from += piece)
		{
			size_t		len = n - from < piece ? n - from : piece;
			size_t		start[256];
			size_t		total = 0;
			size_t		a;
			size_t		b;
			size_t		w;

			memset(start, 0, sizeof(start));
			for (i = 0; i < len; i++)
				start[nddup_uprops_of(s[from + i])->ccc]++;
			for (i = 0; i < 256; i++)
			{
				size_t		c = start[i];

				start[i] = total;
				total += c;
			}
			for (i = 0; i < len; i++)
				tmp[start[nddup_uprops_of(s[from + i])->ccc]++] = s[from + i];

			/* merge s[0..from) and tmp[0..len) into s[0..from + len), backwards */
			a = from;
			b = len;
			w = from + len;
			while (b > 0)
			{
				/* on equal classes the piece's (later) mark goes last */
				if (a > 0 && nddup_uprops_of(s[a - 1])->ccc > nddup_uprops_of(tmp[b - 1])->ccc)
					s[--w] = s[--a];
				else
					s[--w] = tmp[--b];
			}
			nddup_check_interrupts();
		}
		nddup_free_hook(tmp);
	}
}

/*
 * Normalize a segment buffer of two or more code points: canonical ordering
 * (stable sort of each run of non-starters by combining class), canonical
 * composition, then output.
 */
static void
segment_flush_multi(NormState *st)
{
	uint32_t   *s = st->seg;
	size_t		n = st->seg_len;
	size_t		i;
	size_t		out;
	long		starter_pos;
	int			last_class;

	/* canonical ordering: sort each run of non-starters */
	i = 0;
	while (i < n)
	{
		size_t		j;

		if (nddup_uprops_of(s[i])->ccc == 0)
		{
			i++;
			continue;
		}
		for (j = i + 1; j < n && nddup_uprops_of(s[j])->ccc != 0; j++)
			;
		if (j - i > 1)
			sort_marks(s + i, j - i);
		i = j;
	}

	/* canonical composition (UAX #15, section 1.3) */
	starter_pos = 0;
	last_class = nddup_uprops_of(s[0])->ccc;
	if (last_class != 0)
	{
		last_class = 256;		/* no starter yet: everything is blocked */
		starter_pos = -1;
	}
	out = 1;
	for (i = 1; i < n; i++)
	{
		uint32_t	c = s[i];
		const NddupUProps *p = nddup_uprops_of(c);
		int			cc = p->ccc;

		if (starter_pos >= 0 && (p->flags & NDDUP_UF_COMP2) &&
			(last_class < cc || last_class == 0))
		{
			uint32_t	composite = compose_pair(s[starter_pos], c);

			if (composite != 0)
			{
				s[starter_pos] = composite;
				continue;
			}
		}
		if (cc == 0)
			starter_pos = (long) out;
		last_class = cc;
		s[out++] = c;
	}

	for (i = 0; i < out; i++)
	{
		emit(st, s[i], NULL);
		/* a long segment: its output is drained as it grows, too */
		if (st->drain != NULL && st->out->len >= st->drain_at)
		{
			st->drain(st->drain_arg, st->out);
			st->drain_at = st->out->len + st->chunk;
		}
	}
	st->seg_len = 0;
}

/* Normalize and output the segment buffer (one code point: as it is). */
static ALWAYS_INLINE void
segment_flush(NormState *st)
{
	if (st->seg_len == 0)
		return;
	if (st->seg_len == 1)
	{
		emit(st, st->seg[0], st->seg0_props);
		st->seg_len = 0;
		return;
	}
	segment_flush_multi(st);
}

/* Flush the segment buffer and start a new one with cp, of properties props. */
static ALWAYS_INLINE void
start_segment(NormState *st, uint32_t cp, const NddupUProps *props)
{
	if (st->seg_len > 0)
		segment_flush(st);
	st->seg[0] = cp;
	st->seg_len = 1;
	st->seg0_props = props;
	st->seg_start = st->cur_start;
	st->seg_end = st->cur_end;
}

/*
 * Feed a code point that is not NDDUP_UF_STABLE to NFKC: decompose it into
 * the segment buffer, flushing the buffer before each safe boundary.
 */
static void
process_unstable_cp(NormState *st, uint32_t cp, const NddupUProps *props)
{
	const uint32_t *d;
	size_t		n;
	size_t		k;

	/*
	 * A Hangul syllable stays whole: composition would make it again from
	 * its jamo (and compose_pair adds a following trailing jamo to an LV
	 * syllable), and like its first jamo it composes with nothing before it.
	 */
	if (cp - NDDUP_HANGUL_SBASE < NDDUP_HANGUL_SCOUNT)
	{
		start_segment(st, cp, props);
		return;
	}

	if (!(props->flags & NDDUP_UF_DECOMP))
	{
		d = &cp;
		n = 1;
	}
	else
	{
		long		i = find_cp(nddup_decomp_cp,
								sizeof(nddup_decomp_cp) / sizeof(nddup_decomp_cp[0]),
								cp);
		uint32_t	info;

		if (i < 0)				/* cannot happen with consistent tables */
		{
			d = &cp;
			n = 1;
		}
		else
		{
			info = nddup_decomp_info[i];
			d = nddup_decomp_data + (info >> 5);
			n = info & 31;
		}
	}

	for (k = 0; k < n; k++)
	{
		const NddupUProps *dp = nddup_uprops_of(d[k]);

		/* a starter that cannot compose backwards is a safe boundary */
		if (dp->ccc == 0 && !(dp->flags & NDDUP_UF_COMP2) && st->seg_len > 0)
			segment_flush(st);
		if (st->seg_len == st->seg_cap)
			segment_reserve(st, 1);
		if (st->seg_len == 0)
			st->seg_start = st->cur_start;
		st->seg_end = st->cur_end;
		st->seg[st->seg_len++] = d[k];
		st->seg0_props = NULL;
	}
}

/* Feed one decoded code point to NFKC, folding and classification. */
static ALWAYS_INLINE void
process_cp(NormState *st, uint32_t cp)
{
	const NddupUProps *props = nddup_uprops_of(cp);

	if (props->flags & NDDUP_UF_STABLE)
		start_segment(st, cp, props);	/* a safe boundary, its own NFKD */
	else
		process_unstable_cp(st, cp, props);
}

/*
 * Fast path from p, a byte of class > 0, while the next byte is of class > 0
 * too, NDDUP_BLOCK bytes at a time: each word (run of letters and digits)
 * is copied lower-cased, each run of separators becomes one pending space.
 * Returns the last byte of the run, not processed: it may compose with what
 * follows.
 */
static const uint8_t *
ascii_run(NormState *st, const uint8_t *p, const uint8_t *end)
{
	NddupBuf   *out = st->out;
	char	   *o;
	bool		have_word = st->have_word;
	bool		pend_space = st->pend_space;
	uint8_t		lower[NDDUP_BLOCK + 16];
	uint8_t		tail[NDDUP_BLOCK];
	const uint8_t *start = p;
	size_t		next_check = NDDUP_INTERRUPT_STRIDE;

	/*
	 * At most one byte out per byte in, plus a pending space; 16 more for
	 * the 16-byte copies of short words (scratch beyond len).
	 */
	nddup_buf_reserve(out, (end - p) + 1 + 16);
	o = out->data + out->len;
	memset(lower + NDDUP_BLOCK, 0, 16);
	for (;;)
	{
		size_t		avail = end - p;
		const uint8_t *block = p;
		uint64_t	word;
		uint64_t	special;
		size_t		n;
		size_t		i = 0;
		bool		whole;

		if ((size_t) (p - start) >= next_check)
		{
			nddup_check_interrupts();
			next_check += NDDUP_INTERRUPT_STRIDE;
		}
		if (avail < NDDUP_BLOCK)
		{
			/* the last bytes, then bytes that end the run */
			memset(tail, 0x80, NDDUP_BLOCK);
			memcpy(tail, p, avail);
			block = tail;
		}
		nddup_classify_block(block, &word, &special, lower);

		/*
		 * The run goes on past this block when the block and the next byte
		 * are plain; otherwise process all of it but its last byte.
		 */
		n = special != 0 ? (size_t) __builtin_ctzll(special) : NDDUP_BLOCK;
		whole = n == NDDUP_BLOCK && avail > NDDUP_BLOCK &&
			ascii_class[p[NDDUP_BLOCK]] != 0;
		if (!whole)
			n--;
		word &= nddup_low_bits(n);

		while (i < n)
		{
			uint64_t	rest = word >> i;
			size_t		e;

			if (rest & 1)
			{
				/* a word: [i, e) */
				e = ~rest == 0 ? NDDUP_BLOCK : i + (size_t) __builtin_ctzll(~rest);
				if (pend_space)
					*o++ = ' ';
				if (e - i <= 16)
					memcpy(o, lower + i, 16);
				else
					memcpy(o, lower + i, e - i);
				o += e - i;
				have_word = true;
				pend_space = false;
			}
			else
			{
				/* separators: [i, e) */
				e = rest != 0 ? i + (size_t) __builtin_ctzll(rest) : n;
				pend_space = have_word;
			}
			i = e;
		}
		p += n;
		if (!whole)
			break;
	}
	out->len = o - out->data;
	st->have_word = have_word;
	st->pend_space = pend_space;
	return p;
}

/*
 * May a normalization that is allowed to stop end before p?  p must hold a
 * plain ASCII separator and the next PART_LOOKAHEAD bytes (or all up to the
 * end) must be ASCII, so that the caller's ASCII scanner can go on from p.
 */
#define PART_LOOKAHEAD	16

static bool
may_stop_at(const uint8_t *p, const uint8_t *end)
{
	const uint8_t *q;
	const uint8_t *last = end - p > PART_LOOKAHEAD ? p + 1 + PART_LOOKAHEAD : end;

	if (ascii_class[*p] != 1)
		return false;
	for (q = p + 1; q < last; q++)
		if (*q >= 0x80)
			return false;
	return true;
}

/*
 * Common driver of the entry points (normalize_calls.c): normalize src[from..len), where markup may extend
 * up to len.  When stop_after < len, stop at the first position p >=
 * stop_after, between two characters of the top-level loop, that
 * may_stop_at accepts; returns the position where it stopped (len if it did
 * not).  *no_gt_from is the memory of find_gt.  With a drain, out is handed
 * to it between two characters of the top-level loop whenever it has grown
 * by nddup_stream_chunk bytes, and runs of ASCII are taken at most that
 * many bytes at a time, so that out stays about that size (plus what the
 * drain keeps).
 */
size_t
nddup_normalize_internal(const char *src, size_t from, size_t len, size_t stop_after,
						 NddupBuf *out, bool raw, bool joined, const uint8_t **no_gt_from,
						 NddupNormDrain drain, void *drain_arg, NddupSourceMap *map)
{
	NormState	st;
	const uint8_t *base = (const uint8_t *) src;
	const uint8_t *p = len > 0 ? base + from : base;
	const uint8_t *end = len > 0 ? base + len : base;
	const uint8_t *stop_from = stop_after < len ? base + stop_after : NULL;
	size_t		next_check = (size_t) (p - base) + NDDUP_INTERRUPT_STRIDE;
	size_t		chunk = nddup_stream_chunk > 0 ? nddup_stream_chunk : 1;
	size_t		reserve;

	st.out = out;
	st.raw = raw;
	st.joined = joined;
	st.have_word = false;
	st.pend_space = false;
	st.seg = st.seg_local;
	st.seg_len = 0;
	st.seg_cap = SEGMENT_LOCAL_SIZE;
	st.seg0_props = NULL;
	st.map = map;
	st.cur_start = st.cur_end = st.seg_start = st.seg_end = from;
	st.drain = drain;
	st.drain_arg = drain_arg;
	st.chunk = chunk;
	st.drain_at = out->len + chunk;

	reserve = stop_from ? (size_t) (stop_from - p) : len - from;
	if (drain != NULL && reserve > chunk)
		reserve = chunk;
	nddup_buf_reserve(out, reserve + 1);
	while (p < end)
	{
		uint8_t		c = *p;
		size_t		adv;

		if (drain != NULL && out->len >= st.drain_at)
		{
			drain(drain_arg, out);
			st.drain_at = out->len + chunk;
		}
		if ((size_t) (p - base) >= next_check)
		{
			nddup_check_interrupts();
			next_check = (size_t) (p - base) + NDDUP_INTERRUPT_STRIDE;
		}
		st.cur_start = (size_t) (p - base);
		st.cur_end = st.cur_start + 1;
		if (!raw && !joined && map == NULL && ascii_class[c] != 0)
		{
			const uint8_t *run_end = end;

			if (stop_from != NULL && p >= stop_from)
			{
				if (may_stop_at(p, end))
					break;
				/* look again at the next separator */
				for (run_end = p + 1; run_end < end && ascii_class[*run_end] > 1;)
					run_end++;
			}
			if (drain != NULL && (size_t) (run_end - p) > chunk)
				run_end = p + chunk;

			/*
			 * Plain ASCII.  The last byte before a non-ASCII character, '<'
			 * or '&' may compose with a following combining mark: it goes
			 * through the general path.
			 */
			if (p + 1 < run_end && ascii_class[p[1]] != 0)
			{
				segment_flush(&st);
				p = ascii_run(&st, p, run_end);
			}
			process_cp(&st, *p);
			p++;
			continue;
		}

		if (!raw && c == '<')
		{
			bool		separator = false;
			size_t		n = nddup_parse_markup(no_gt_from, p, end, &separator);

			if (n > 0)
			{
				if (separator)
					process_cp(&st, ' ');
				p += n;
				continue;
			}
		}
		else if (!raw && c == '&')
		{
			uint32_t	cps[2];
			size_t		n = 0;
			int			k = nddup_parse_entity(p, end, cps, &n);

			if (k > 0)
			{
				int			i;

				st.cur_end = st.cur_start + n;
				for (i = 0; i < k; i++)
					process_cp(&st, cps[i]);
				p += n;
				continue;
			}
		}

		{
			uint32_t	cp = utf8_decode(p, end, &adv);

			st.cur_end = st.cur_start + adv;
			process_cp(&st, cp);
		}
		p += adv;
	}
	segment_flush(&st);
	if (st.seg != st.seg_local)
		nddup_free_hook(st.seg);
	return (size_t) (p - base);
}

/* Is cp connector punctuation (General Category Pc of Unicode 15.0)? */
bool
nddup_is_connector(uint32_t cp)
{
	return cp == 0x5F || cp == 0x203F || cp == 0x2040 || cp == 0x2054 ||
		cp == 0xFE33 || cp == 0xFE34 || (cp >= 0xFE4D && cp <= 0xFE4F) ||
		cp == 0xFF3F;
}

/* Version of the Unicode Character Database the tables come from. */
const char *
nddup_unicode_version(void)
{
	return NDDUP_UNICODE_VERSION;
}
