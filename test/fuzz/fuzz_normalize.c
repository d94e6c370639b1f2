/*-------------------------------------------------------------------------
 *
 * fuzz_normalize.c
 *	  libFuzzer harness for the text normalization of the pure-C core
 *	  (nddup_normalize, nddup_nfkc), with invariants checked on every input.
 *
 * Invariants (see docs/reports/fuzzing.md):
 *	- the output is valid UTF-8; its ASCII bytes are only a-z, 0-9 and
 *	  single spaces, never leading or trailing; every other code point is a
 *	  word character (General Category L, M or N);
 *	- nddup_normalize appends to its buffer and is deterministic;
 *	- normalize is idempotent up to canonical equivalence only (see the
 *	  comment in LLVMFuzzerTestOneInput): nfkc(normalize(normalize(x))) ==
 *	  nfkc(normalize(x)), and normalize(normalize(x)) is a fixed point;
 *	- writing any characters of a text without '<' and '&' as decimal or
 *	  hexadecimal character references does not change the result (this
 *	  compares the ASCII fast path with the general path);
 *	- NFKC is idempotent, and normalize(nfkc(t)) == normalize(t) for the
 *	  same markup-free texts, when NFKC makes no '<' or '&' (U+FF1C -> '<'
 *	  would be parsed as markup in nfkc(t) only).
 *
 *-------------------------------------------------------------------------
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nddup_core.h"
#include "unicode_tables.h"

/* Largest input looked at: longer ones add time, not coverage. */
#define MAX_INPUT	8192

/* Abort (a finding for libFuzzer) with a message when cond is false. */
#define CHECK(cond, ...) \
	do { \
		if (!(cond)) \
		{ \
			fprintf(stderr, "fuzz_normalize: invariant failed: %s\n  ", #cond); \
			fprintf(stderr, __VA_ARGS__); \
			fprintf(stderr, "\n"); \
			abort(); \
		} \
	} while (0)

/*
 * Length of the valid UTF-8 sequence at p (1..4), or 0 if the bytes there
 * are not one; sets *cp.  The rules of the Unicode standard, table 3-7.
 */
static size_t
valid_utf8(const uint8_t *p, size_t avail, uint32_t *cp)
{
	uint8_t		c = p[0];
	uint8_t		lo = 0x80,
				hi = 0xBF;
	size_t		need;
	uint32_t	v;

	if (c < 0x80)
	{
		*cp = c;
		return 1;
	}
	if (c < 0xC2 || c > 0xF4)
		return 0;
	if (c < 0xE0)
	{
		need = 1;
		v = c & 0x1F;
	}
	else if (c < 0xF0)
	{
		need = 2;
		v = c & 0x0F;
		if (c == 0xE0)
			lo = 0xA0;
		else if (c == 0xED)
			hi = 0x9F;
	}
	else
	{
		need = 3;
		v = c & 0x07;
		if (c == 0xF0)
			lo = 0x90;
		else if (c == 0xF4)
			hi = 0x8F;
	}
	if (avail < need + 1)
		return 0;
	for (size_t i = 1; i <= need; i++)
	{
		if (p[i] < lo || p[i] > hi)
			return 0;
		lo = 0x80;
		hi = 0xBF;
		v = (v << 6) | (p[i] & 0x3F);
	}
	*cp = v;
	return need + 1;
}

/* Check the shape of a normalized text (first invariant above). */
static void
check_normalized(const char *s, size_t len)
{
	const uint8_t *p = (const uint8_t *) s;
	size_t		i = 0;

	if (len == 0)
		return;
	CHECK(p[0] != ' ', "leading space, length %zu", len);
	CHECK(p[len - 1] != ' ', "trailing space, length %zu", len);
	while (i < len)
	{
		uint32_t	cp;
		size_t		n = valid_utf8(p + i, len - i, &cp);

		CHECK(n > 0, "invalid UTF-8 at offset %zu (byte 0x%02x)", i, p[i]);
		if (cp == ' ')
			CHECK(p[i + 1] != ' ', "double space at offset %zu", i);
		else if (cp < 0x80)
			CHECK((cp >= 'a' && cp <= 'z') || (cp >= '0' && cp <= '9'),
				  "ASCII byte 0x%02x at offset %zu", (unsigned) cp, i);
		else
			CHECK(nddup_uprops_of(cp)->flags & NDDUP_UF_WORD,
				  "separator U+%04X at offset %zu", (unsigned) cp, i);
		i += n;
	}
}

/* The bytes of a buffer, never NULL (an empty buffer may have none). */
#define BYTES(b)	((b).data != NULL ? (b).data : "")

/* Print a byte string in C escape form, for the messages. */
static void
dump(const char *label, const char *s, size_t len)
{
	fprintf(stderr, "%s (%zu bytes): \"", label, len);
	for (size_t i = 0; i < len; i++)
	{
		uint8_t		c = (uint8_t) s[i];

		if (c >= 0x20 && c < 0x7F && c != '"' && c != '\\')
			fputc(c, stderr);
		else
			fprintf(stderr, "\\x%02x", c);
	}
	fprintf(stderr, "\"\n");
}

/* Abort unless a[0..alen) equals b[0..blen), dumping both. */
static void
check_same(const char *what, const char *a, size_t alen,
		   const char *b, size_t blen)
{
	if (alen == blen && (alen == 0 || memcmp(a, b, alen) == 0))
		return;
	fprintf(stderr, "fuzz_normalize: %s differ\n", what);
	dump("  first ", a, alen);
	dump("  second", b, blen);
	abort();
}

/*
 * Write t[0..len) (no '<' or '&') to out with some of its valid characters
 * as character references: character i is encoded when bit (i mod 32) of
 * mask is set, in decimal when bit ((i + 7) mod 32) of mask is set too.
 * Invalid bytes are copied as they are: each is followed by a byte that is
 * no continuation byte in both texts, so they decode to the same U+FFFDs.
 */
static void
encode_references(const uint8_t *t, size_t len, uint32_t mask, NddupBuf *out)
{
	size_t		i = 0;
	unsigned	k = 0;

	while (i < len)
	{
		uint32_t	cp;
		size_t		n = valid_utf8(t + i, len - i, &cp);

		if (n == 0)
		{
			nddup_buf_append(out, (const char *) t + i, 1);
			i++;
			continue;
		}
		if ((mask >> (k % 32)) & 1)
		{
			char		ref[16];
			int			r;

			if ((mask >> ((k + 7) % 32)) & 1)
				r = snprintf(ref, sizeof(ref), "&#%u;", (unsigned) cp);
			else
				r = snprintf(ref, sizeof(ref), "&#x%X;", (unsigned) cp);
			nddup_buf_append(out, ref, (size_t) r);
		}
		else
			nddup_buf_append(out, (const char *) t + i, n);
		i += n;
		k++;
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	NddupBuf	n1 = {0},
				n2 = {0},
				n3 = {0},
				c1 = {0},
				c2 = {0},
				again = {0},
				app = {0},
				t = {0},
				enc = {0},
				ne = {0},
				k1 = {0},
				k2 = {0},
				nk = {0},
				nt = {0};
	uint32_t	mask = 0;
	static const char prefix[] = "prefix";

	if (size > MAX_INPUT)
		return 0;

	/*
	 * libFuzzer passes NULL for the empty input; the core's callers never
	 * do (p + 0 on NULL is undefined behaviour in C).
	 */
	if (data == NULL)
		data = (const uint8_t *) "";

	/* shape, determinism, appending */
	nddup_normalize((const char *) data, size, &n1);
	check_normalized(n1.data, n1.len);
	nddup_normalize((const char *) data, size, &again);
	check_same("two normalizations of one input", n1.data, n1.len,
			   again.data, again.len);
	nddup_buf_append(&app, prefix, sizeof(prefix) - 1);
	nddup_normalize((const char *) data, size, &app);
	CHECK(app.len == sizeof(prefix) - 1 + n1.len &&
		  memcmp(app.data, prefix, sizeof(prefix) - 1) == 0 &&
		  (n1.len == 0 || memcmp(app.data + sizeof(prefix) - 1, n1.data, n1.len) == 0),
		  "normalize into a non-empty buffer does not append");

	/*
	 * Idempotence holds only up to canonical equivalence: case folding comes
	 * after NFKC and is not normalized again (docs/text-pipeline.md, step
	 * 4), so a folding that yields a combining mark of a high class before
	 * marks of lower classes (U+0130 -> i U+0307) is put in canonical order
	 * by a second pass only.  What holds: both passes have the same NFKC,
	 * and the second pass is a fixed point.
	 */
	nddup_normalize(BYTES(n1), n1.len, &n2);
	check_normalized(n2.data, n2.len);
	nddup_nfkc(BYTES(n1), n1.len, &c1);
	nddup_nfkc(BYTES(n2), n2.len, &c2);
	check_same("nfkc(normalize(x)) and nfkc(normalize(normalize(x)))",
			   c1.data, c1.len, c2.data, c2.len);
	nddup_normalize(BYTES(n2), n2.len, &n3);
	check_same("normalize(normalize(x)) and normalize^3(x)", n2.data, n2.len,
			   n3.data, n3.len);

	/* the same text with '<' and '&' as spaces, and with references */
	for (size_t i = 0; i < size; i++)
	{
		char		c = (char) data[i];

		if (c == '<' || c == '&')
			c = ' ';
		nddup_buf_append(&t, &c, 1);
		mask = mask * 31 + data[i];
	}
	mask ^= (uint32_t) size * 0x9E3779B9u;
	nddup_normalize(BYTES(t), t.len, &nt);
	check_normalized(nt.data, nt.len);
	encode_references((const uint8_t *) t.data, t.len, mask, &enc);
	nddup_normalize(BYTES(enc), enc.len, &ne);
	check_same("normalize(t) and normalize(t with character references)",
			   nt.data, nt.len, ne.data, ne.len);

	/* NFKC alone: valid, idempotent, and what normalize starts from */
	nddup_nfkc(BYTES(t), t.len, &k1);
	for (size_t i = 0; i < k1.len;)
	{
		uint32_t	cp;
		size_t		n = valid_utf8((const uint8_t *) k1.data + i, k1.len - i, &cp);

		CHECK(n > 0, "nfkc output: invalid UTF-8 at offset %zu", i);
		i += n;
	}
	nddup_nfkc(BYTES(k1), k1.len, &k2);
	check_same("nfkc(t) and nfkc(nfkc(t))", k1.data, k1.len, k2.data, k2.len);

	/*
	 * NFKC can make markup: U+FF1C, U+FE64 give '<' and U+FF06, U+FE60 give
	 * '&', which normalize() parses in nfkc(t) but not in t (markup is
	 * removed before NFKC).  Compare only when nfkc(t) has neither.
	 */
	if (k1.len == 0 || (memchr(k1.data, '<', k1.len) == NULL &&
						memchr(k1.data, '&', k1.len) == NULL))
	{
		nddup_normalize(BYTES(k1), k1.len, &nk);
		check_same("normalize(t) and normalize(nfkc(t))", nt.data, nt.len,
				   nk.data, nk.len);
	}

	nddup_buf_free(&n1);
	nddup_buf_free(&n2);
	nddup_buf_free(&n3);
	nddup_buf_free(&c1);
	nddup_buf_free(&c2);
	nddup_buf_free(&again);
	nddup_buf_free(&app);
	nddup_buf_free(&t);
	nddup_buf_free(&enc);
	nddup_buf_free(&ne);
	nddup_buf_free(&k1);
	nddup_buf_free(&k2);
	nddup_buf_free(&nk);
	nddup_buf_free(&nt);
	return 0;
}
