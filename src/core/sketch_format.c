/*-------------------------------------------------------------------------
 *
 * sketch_format.c
 *	  Text and binary forms of shingleset and minhash_sketch, their
 *	  validation, and the text form of the query types minhash_query and
 *	  shingleset_query, in pure C (the server's input, output, receive and
 *	  send functions in src/types/shingleset_sql.c and src/index/gin_sketch.c wrap these).
 *
 * shingleset: "<kind> [s=|m=N ]size=W unit=U n=N:" then the hashes as 16
 * hex digits each, separated by spaces, e.g. "bottom s=2 size=3 unit=word
 * n=6: 0a1b... 9c8d..."; binary: version, kind, size, unit (1 byte each),
 * param and nitems (4 bytes), cardinality (8 bytes), the hashes (8 bytes
 * each), network order.
 *
 * minhash_sketch: "<method> k=K seed=S size=W unit=U bits=B:" then the k
 * values in hex (8 digits for 32 bits), a "*" before a one-permutation bin
 * that was filled by densification; or ": empty" for a document without
 * shingles.  Binary: version, method, bits, flags, size, unit (1 byte
 * each), k (2 bytes), seed (4 bytes), then the data as stored (32-bit
 * values in network order, then the borrowed bitmap; or the packed b-bit
 * bytes).
 *
 * Every value has one representation (padding and unused bits zero), so
 * that equality is byte equality; validation rejects any other.
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

static const char *const set_kind_names[] = {"exact", "bottom", "mod"};
static const char *const method_names[] = {"kperm", "oph"};

/* The name of a shingle unit in the text forms. */
static const char *
unit_name(int unit)
{
	return nddup_unit_names[unit];
}

/* Skip spaces in a text being parsed. */
static const char *
skip_spaces(const char *p)
{
	while (*p == ' ')
		p++;
	return p;
}

/*
 * Parse "name=<unsigned integer>" at *p (after spaces), advancing *p.
 * Returns false when the text does not match.
 */
static bool
parse_param(const char **p, const char *name, uint64_t *value)
{
	const char *s = skip_spaces(*p);
	size_t		len = strlen(name);
	char	   *end;

	if (strncmp(s, name, len) != 0 || s[len] != '=' || !isdigit((unsigned char) s[len + 1]))
		return false;
	errno = 0;
	*value = strtoull(s + len + 1, &end, 10);
	if (errno != 0)
		return false;
	*p = end;
	return true;
}

/* Parse "unit=word", "unit=char" or "unit=word_" (longest name first). */
static bool
parse_unit_param(const char **p, int *unit)
{
	const char *s = skip_spaces(*p);

	if (strncmp(s, "unit=word_", 10) == 0)
	{
		*unit = NDDUP_UNIT_WORD_JOINED;
		*p = s + 10;
		return true;
	}
	if (strncmp(s, "unit=word", 9) == 0)
		*unit = NDDUP_UNIT_WORD;
	else if (strncmp(s, "unit=char", 9) == 0)
		*unit = NDDUP_UNIT_CHAR;
	else
		return false;
	*p = s + 9;
	return true;
}

/* Parse a hex number of at most maxdigits digits at *p (after spaces). */
static bool
parse_hex(const char **p, int maxdigits, uint64_t *value)
{
	const char *s = skip_spaces(*p);
	uint64_t	v = 0;
	int			digits = 0;

	while (isxdigit((unsigned char) *s))
	{
		if (++digits > maxdigits)
			return false;
		v = (v << 4) | (uint64_t) (isdigit((unsigned char) *s) ? *s - '0' :
								   (tolower((unsigned char) *s) - 'a' + 10));
		s++;
	}
	if (digits == 0)
		return false;
	*value = v;
	*p = s;
	return true;
}

/* Match one of the n names, followed by a space, at *p; its index or -1. */
static int
parse_name(const char **p, const char *const *names, int n)
{
	int			found = -1;

	for (int i = 0; i < n; i++)
	{
		size_t		len = strlen(names[i]);

		if (strncmp(*p, names[i], len) == 0 && (*p)[len] == ' ')
		{
			found = i;
			*p += len;
		}
	}
	return found;
}

/* Zeroed memory from the core's allocator. */
static void *
alloc0(size_t size)
{
	void	   *p = nddup_realloc_hook(NULL, size);

	memset(p, 0, size);
	return p;
}

/* ----------------------------------------------------------------
 *		shingleset
 * ----------------------------------------------------------------
 */

/* Check a set read from text or binary input: OK, or INVALID with a detail. */
NddupParseCode
nddup_shingleset_validate(const NddupShingleSet *s, NddupParseError *err)
{
	if (s->size < 1 || s->size > NDDUP_MAX_SHINGLE_SIZE)
		return nddup_parse_fail(err, NDDUP_PARSE_INVALID, 0, 0,
								"The shingle size must be between 1 and %d.",
								NDDUP_MAX_SHINGLE_SIZE);
	if (s->kind > NDDUP_SET_MOD || s->unit > NDDUP_UNIT_MAX ||
		(s->kind == NDDUP_SET_EXACT && s->param != 0))
		return nddup_parse_fail(err, NDDUP_PARSE_INVALID, 0, 0,
								"Invalid kind, unit or parameter.");
	if (s->cardinality > (uint64_t) INT64_MAX)
		return nddup_parse_fail(err, NDDUP_PARSE_INVALID, 0, 0,
								"The number of shingles n must be at most %lld.",
								(long long) INT64_MAX);
	if (s->kind == NDDUP_SET_EXACT && s->nitems != s->cardinality)
		return nddup_parse_fail(err, NDDUP_PARSE_INVALID, 0, 0,
								"An exact set of n=%llu shingles has %u hashes.",
								(unsigned long long) s->cardinality, s->nitems);
	if (s->kind == NDDUP_SET_BOTTOM &&
		(s->param < 1 || s->param > NDDUP_SHINGLESET_MAX_S ||
		 s->nitems != ((uint64_t) s->param < s->cardinality ?
					   (uint64_t) s->param : s->cardinality)))
		return nddup_parse_fail(err, NDDUP_PARSE_INVALID, 0, 0,
								"A bottom-s sample holds min(s, n) hashes, s between 1 and %d.",
								NDDUP_SHINGLESET_MAX_S);
	if (s->kind == NDDUP_SET_MOD && (s->param < 1 || s->param > INT32_MAX ||
									 s->nitems > s->cardinality))
		return nddup_parse_fail(err, NDDUP_PARSE_INVALID, 0, 0,
								"A mod-m sample holds at most n hashes, m between 1 and %d.",
								INT32_MAX);
	for (uint32_t i = 0; i < s->nitems; i++)
	{
		if ((i & 0xffff) == 0)
			nddup_check_interrupts();
		if (i > 0 && s->items[i] <= s->items[i - 1])
			return nddup_parse_fail(err, NDDUP_PARSE_INVALID, 0, 0,
									"Hashes must be distinct and in ascending order.");
		if (s->kind == NDDUP_SET_MOD && s->items[i] % s->param != 0)
			return nddup_parse_fail(err, NDDUP_PARSE_INVALID, 0, 0,
									"Hash %016llx of a mod-%u sample is not 0 mod %u.",
									(unsigned long long) s->items[i], s->param, s->param);
	}
	err->code = NDDUP_PARSE_OK;
	return NDDUP_PARSE_OK;
}

/*
 * Parse the text form.  Returns the set (allocated through the core's
 * hooks, vl_len_ zero), or NULL with err: SYNTAX or INVALID with a detail,
 * TOO_LARGE with the number of hashes in err->need.
 */
NddupShingleSet *
nddup_shingleset_parse(const char *str, NddupParseError *err)
{
	const char *p = skip_spaces(str);
	int			kind;
	uint64_t	param = 0,
				size,
				card;
	int			unit;
	NddupShingleSet *set;
	size_t		cap;

	kind = parse_name(&p, set_kind_names, 3);
	if (kind < 0)
	{
		nddup_parse_fail(err, NDDUP_PARSE_SYNTAX, 0, 0,
						 "It must start with \"exact\", \"bottom\" or \"mod\".");
		return NULL;
	}
	if (kind == NDDUP_SET_BOTTOM && !parse_param(&p, "s", &param))
	{
		nddup_parse_fail(err, NDDUP_PARSE_SYNTAX, 0, 0, "A bottom-s sample needs s=N.");
		return NULL;
	}
	if (kind == NDDUP_SET_MOD && !parse_param(&p, "m", &param))
	{
		nddup_parse_fail(err, NDDUP_PARSE_SYNTAX, 0, 0, "A mod-m sample needs m=N.");
		return NULL;
	}
	if (!parse_param(&p, "size", &size) || !parse_unit_param(&p, &unit) ||
		!parse_param(&p, "n", &card) || *p != ':')
	{
		nddup_parse_fail(err, NDDUP_PARSE_SYNTAX, 0, 0,
						 "Expected size=W unit=word|char n=N: before the hashes.");
		return NULL;
	}
	p++;
	if (param > INT32_MAX || size > NDDUP_MAX_SHINGLE_SIZE || card > (uint64_t) INT64_MAX)
	{
		nddup_parse_fail(err, NDDUP_PARSE_SYNTAX, 0, 0, "A parameter is out of range.");
		return NULL;
	}

	cap = 16;
	set = alloc0(NDDUP_SHINGLESET_SIZE(cap));
	for (;;)
	{
		uint64_t	h;

		if ((set->nitems & 0xffff) == 0)
			nddup_check_interrupts();
		p = skip_spaces(p);
		if (*p == '\0')
			break;
		if (!parse_hex(&p, 16, &h) || (*p != ' ' && *p != '\0'))
		{
			nddup_parse_fail(err, NDDUP_PARSE_SYNTAX, 0, 0,
							 "Hashes are 1 to 16 hex digits separated by spaces.");
			nddup_free_hook(set);
			return NULL;
		}
		if ((uint64_t) set->nitems + 1 > NDDUP_SHINGLESET_MAX_ITEMS)
		{
			nddup_parse_fail(err, NDDUP_PARSE_TOO_LARGE, 0,
							 (uint64_t) set->nitems + 1, NULL);
			nddup_free_hook(set);
			return NULL;
		}
		if (set->nitems == cap)
		{
			cap *= 2;
			set = nddup_realloc_hook(set, NDDUP_SHINGLESET_SIZE(cap));
		}
		set->items[set->nitems++] = h;
	}
	set->version = NDDUP_SHINGLESET_VERSION;
	set->kind = (uint8_t) kind;
	set->size = (uint8_t) size;
	set->unit = (uint8_t) unit;
	set->param = (uint32_t) param;
	set->cardinality = card;
	return nddup_parse_keep(set, nddup_shingleset_validate(set, err));
}

/* Write the text form of a valid set through print. */
void
nddup_shingleset_format(const NddupShingleSet *s, NddupPrintf print, void *arg)
{
	print(arg, "%s", set_kind_names[s->kind]);
	if (s->kind != NDDUP_SET_EXACT)
		print(arg, " %s=%u", s->kind == NDDUP_SET_BOTTOM ? "s" : "m", s->param);
	print(arg, " size=%d unit=%s n=%llu:", s->size, unit_name(s->unit),
		  (unsigned long long) s->cardinality);
	for (uint32_t i = 0; i < s->nitems; i++)
	{
		if ((i & 0xffff) == 0)
			nddup_check_interrupts();
		print(arg, " %016llx", (unsigned long long) s->items[i]);
	}
}

/*
 * Read the binary form, all len bytes.  Returns the set, or NULL with err:
 * SHORT, HEADER, TOO_LARGE (err->need hashes), LENGTH (err->have bytes of
 * hashes, err->need expected) or INVALID.
 */
NddupShingleSet *
nddup_shingleset_recv(const uint8_t *data, size_t len, NddupParseError *err)
{
	NddupShingleSet hdr;
	NddupShingleSet *s;

	if (len < NDDUP_SHINGLESET_BINARY_HDRSZ)
	{
		nddup_parse_fail(err, NDDUP_PARSE_SHORT, (int64_t) len,
						 NDDUP_SHINGLESET_BINARY_HDRSZ, NULL);
		return NULL;
	}
	memset(&hdr, 0, sizeof(hdr));
	hdr.version = data[0];
	hdr.kind = data[1];
	hdr.size = data[2];
	hdr.unit = data[3];
	hdr.param = (uint32_t) nddup_get_be(data + 4, 4);
	hdr.nitems = (uint32_t) nddup_get_be(data + 8, 4);
	hdr.cardinality = nddup_get_be(data + 12, 8);
	if (hdr.version != NDDUP_SHINGLESET_VERSION || hdr.kind > NDDUP_SET_MOD ||
		hdr.unit > NDDUP_UNIT_MAX)
	{
		nddup_parse_fail(err, NDDUP_PARSE_HEADER, 0, 0, NULL);
		return NULL;
	}
	if (hdr.nitems > NDDUP_SHINGLESET_MAX_ITEMS)
	{
		nddup_parse_fail(err, NDDUP_PARSE_TOO_LARGE, 0, hdr.nitems, NULL);
		return NULL;
	}
	if (len - NDDUP_SHINGLESET_BINARY_HDRSZ != (size_t) hdr.nitems * 8)
	{
		nddup_parse_fail(err, NDDUP_PARSE_LENGTH,
						 (int64_t) (len - NDDUP_SHINGLESET_BINARY_HDRSZ),
						 (uint64_t) hdr.nitems * 8, NULL);
		return NULL;
	}
	s = alloc0(NDDUP_SHINGLESET_SIZE(hdr.nitems));
	memcpy(s, &hdr, NDDUP_SHINGLESET_HDRSZ);
	for (uint32_t i = 0; i < hdr.nitems; i++)
		s->items[i] = nddup_get_be(data + NDDUP_SHINGLESET_BINARY_HDRSZ + 8 * (size_t) i, 8);
	return nddup_parse_keep(s, nddup_shingleset_validate(s, err));
}

/* Bytes of the binary form of s. */
size_t
nddup_shingleset_send_size(const NddupShingleSet *s)
{
	return NDDUP_SHINGLESET_BINARY_HDRSZ + (size_t) s->nitems * 8;
}

/* Write the binary form of s (nddup_shingleset_send_size bytes). */
void
nddup_shingleset_send(const NddupShingleSet *s, uint8_t *out)
{
	out[0] = s->version;
	out[1] = s->kind;
	out[2] = s->size;
	out[3] = s->unit;
	nddup_put_be(out + 4, s->param, 4);
	nddup_put_be(out + 8, s->nitems, 4);
	nddup_put_be(out + 12, s->cardinality, 8);
	for (uint32_t i = 0; i < s->nitems; i++)
		nddup_put_be(out + NDDUP_SHINGLESET_BINARY_HDRSZ + 8 * (size_t) i, s->items[i], 8);
}

/* ----------------------------------------------------------------
 *		minhash_sketch
 * ----------------------------------------------------------------
 */

/* Is b a valid number of bits per value (1, 2, 4, 8, 16 or 32)? */
static bool
valid_bits(uint64_t b)
{
	return b == 1 || b == 2 || b == 4 || b == 8 || b == 16 || b == 32;
}

/* Bytes after the header of a sketch with these parameters. */
size_t
nddup_minhash_data_size(int method, int k, int bits)
{
	if (bits < 32)
		return nddup_bbit_bytes(k, bits);
	return 4 * (size_t) k + (method == NDDUP_MINHASH_OPH ? ((size_t) k + 7) / 8 : 0);
}

/* A zeroed sketch with its header filled (vl_len_ zero), from the core's hooks. */
NddupMinhash *
nddup_minhash_new(int method, int k, uint32_t seed, int size, int unit, int bits)
{
	NddupMinhash *m = alloc0(NDDUP_MINHASH_HDRSZ + nddup_minhash_data_size(method, k, bits));

	m->version = NDDUP_MINHASH_VERSION;
	m->method = (uint8_t) method;
	m->bits = (uint8_t) bits;
	m->size = (uint8_t) size;
	m->unit = (uint8_t) unit;
	m->k = (uint16_t) k;
	m->seed = seed;
	return m;
}

/* Check a sketch read from text or binary input: OK, or INVALID with a detail. */
NddupParseCode
nddup_minhash_validate(const NddupMinhash *m, NddupParseError *err)
{
	if (m->method > NDDUP_MINHASH_OPH || m->unit > NDDUP_UNIT_MAX ||
		m->size < 1 || m->size > NDDUP_MAX_SHINGLE_SIZE ||
		m->k < 1 || m->k > NDDUP_MINHASH_MAX_K || !valid_bits(m->bits) ||
		(m->flags & ~NDDUP_MINHASH_EMPTY_DOC) != 0)
		return nddup_parse_fail(err, NDDUP_PARSE_INVALID, 0, 0,
								"A parameter is out of range (k must be between 1 and %d).",
								NDDUP_MINHASH_MAX_K);
	if (m->bits == 32)
	{
		for (int i = 0; i < m->k; i++)
		{
			bool		empty = NDDUP_MINHASH_VALUES(m)[i] == NDDUP_MINHASH_EMPTY;

			if (empty != ((m->flags & NDDUP_MINHASH_EMPTY_DOC) != 0))
				return nddup_parse_fail(err, NDDUP_PARSE_INVALID, 0, 0,
										"Value ffffffff stands for \"empty\" only.");
		}
		if (m->method == NDDUP_MINHASH_OPH)
		{
			const uint8_t *borrowed_bits = NDDUP_MINHASH_BORROWED(m);
			int			borrowed = 0;

			for (int i = 0; i < m->k; i++)
				borrowed += (borrowed_bits[i >> 3] >> (i & 7)) & 1;
			if (!(m->flags & NDDUP_MINHASH_EMPTY_DOC) && borrowed == m->k)
				return nddup_parse_fail(err, NDDUP_PARSE_INVALID, 0, 0,
										"At least one bin must not be borrowed.");
			if ((m->flags & NDDUP_MINHASH_EMPTY_DOC) && borrowed != 0)
				return nddup_parse_fail(err, NDDUP_PARSE_INVALID, 0, 0,
										"A sketch of a document without shingles has no borrowed bins.");
			if ((m->k & 7) != 0 && (borrowed_bits[m->k >> 3] >> (m->k & 7)) != 0)
				return nddup_parse_fail(err, NDDUP_PARSE_INVALID, 0, 0,
										"The unused bits of the borrowed-bin bitmap must be zero.");
		}
	}
	else
	{
		size_t		nbits = (size_t) m->k * m->bits;

		if ((nbits & 7) != 0 && (m->data[nbits >> 3] >> (nbits & 7)) != 0)
			return nddup_parse_fail(err, NDDUP_PARSE_INVALID, 0, 0,
									"The unused bits of a %d-bit sketch must be zero.",
									m->bits);
		if (m->flags & NDDUP_MINHASH_EMPTY_DOC)
			for (int i = 0; i < m->k; i++)
				if (nddup_bbit_get(m->data, i, m->bits) !=
					(NDDUP_MINHASH_EMPTY >> (32 - m->bits)))
					return nddup_parse_fail(err, NDDUP_PARSE_INVALID, 0, 0,
											"A %d-bit sketch of a document without shingles has all bits set.",
											m->bits);
	}
	err->code = NDDUP_PARSE_OK;
	return NDDUP_PARSE_OK;
}

/*
 * Read the k values after the header of the text form at p into values
 * (and the borrowed bits into m); SYNTAX with a detail when they are not
 * "empty" or k hex values, "*" marking borrowed bins of 32-bit oph.
 */
static NddupParseCode
parse_minhash_values(const char *p, NddupMinhash *m, uint32_t *values,
					 NddupParseError *err)
{
	int			k = m->k;
	int			bits = m->bits;
	int			digits = bits < 4 ? 1 : bits / 4;

	p = skip_spaces(p);
	if (strcmp(p, "empty") == 0)
	{
		m->flags |= NDDUP_MINHASH_EMPTY_DOC;
		for (int i = 0; i < k; i++)
			values[i] = NDDUP_MINHASH_EMPTY;
		p += 5;
	}
	else
		for (int i = 0; i < k; i++)
		{
			uint64_t	v;

			p = skip_spaces(p);
			if (*p == '*')
			{
				if (m->method != NDDUP_MINHASH_OPH || bits != 32)
					return nddup_parse_fail(err, NDDUP_PARSE_SYNTAX, 0, 0,
											"Only 32-bit one-permutation sketches have borrowed bins (*).");
				NDDUP_MINHASH_BORROWED(m)[i >> 3] |= (uint8_t) (1u << (i & 7));
				p++;
			}
			if (!parse_hex(&p, digits, &v) || (*p != ' ' && *p != '\0') ||
				v >= ((uint64_t) 1 << bits))
				return nddup_parse_fail(err, NDDUP_PARSE_SYNTAX, 0, 0,
										"Expected %d values of %d hex digits.",
										k, digits);
			values[i] = (uint32_t) v;
		}
	if (*skip_spaces(p) != '\0')
		return nddup_parse_fail(err, NDDUP_PARSE_SYNTAX, 0, 0, "Expected %d values.", k);
	return NDDUP_PARSE_OK;
}

/*
 * Parse the text form.  Returns the sketch (allocated through the core's
 * hooks, vl_len_ zero), or NULL with err: SYNTAX or INVALID with a detail.
 */
NddupMinhash *
nddup_minhash_parse(const char *str, NddupParseError *err)
{
	const char *p = skip_spaces(str);
	int			method;
	uint64_t	k,
				seed,
				size,
				bits;
	int			unit;
	NddupMinhash *m;
	uint32_t   *values;

	method = parse_name(&p, method_names, 2);
	if (method < 0)
	{
		nddup_parse_fail(err, NDDUP_PARSE_SYNTAX, 0, 0,
						 "It must start with \"kperm\" or \"oph\".");
		return NULL;
	}
	if (!parse_param(&p, "k", &k) || !parse_param(&p, "seed", &seed) ||
		!parse_param(&p, "size", &size) || !parse_unit_param(&p, &unit) ||
		!parse_param(&p, "bits", &bits) || *p != ':')
	{
		nddup_parse_fail(err, NDDUP_PARSE_SYNTAX, 0, 0,
						 "Expected k=K seed=S size=W unit=word|char bits=B: before the values.");
		return NULL;
	}
	p++;
	if (k < 1 || k > NDDUP_MINHASH_MAX_K || seed > UINT32_MAX ||
		size < 1 || size > NDDUP_MAX_SHINGLE_SIZE || !valid_bits(bits))
	{
		nddup_parse_fail(err, NDDUP_PARSE_SYNTAX, 0, 0,
						 "k must be between 1 and %d, size between 1 and %d, bits 1, 2, 4, 8, 16 or 32.",
						 NDDUP_MINHASH_MAX_K, NDDUP_MAX_SHINGLE_SIZE);
		return NULL;
	}
	m = nddup_minhash_new(method, (int) k, (uint32_t) seed, (int) size, unit, (int) bits);
	values = nddup_realloc_hook(NULL, sizeof(uint32_t) * k);
	if (parse_minhash_values(p, m, values, err) != NDDUP_PARSE_OK)
	{
		nddup_free_hook(values);
		nddup_free_hook(m);
		return NULL;
	}
	if (bits == 32)
		memcpy(NDDUP_MINHASH_VALUES(m), values, sizeof(uint32_t) * k);
	else
		nddup_bbit_pack(values, (int) k, (int) bits, m->data);
	nddup_free_hook(values);
	return nddup_parse_keep(m, nddup_minhash_validate(m, err));
}

/* Write the text form of a valid sketch through print. */
void
nddup_minhash_format(const NddupMinhash *m, NddupPrintf print, void *arg)
{
	int			digits = m->bits < 4 ? 1 : m->bits / 4;

	print(arg, "%s k=%d seed=%u size=%d unit=%s bits=%d:",
		  method_names[m->method], m->k, m->seed, m->size,
		  unit_name(m->unit), m->bits);
	if (m->flags & NDDUP_MINHASH_EMPTY_DOC)
		print(arg, " empty");
	else
		for (int i = 0; i < m->k; i++)
		{
			bool		borrowed = m->bits == 32 && m->method == NDDUP_MINHASH_OPH &&
				((NDDUP_MINHASH_BORROWED(m)[i >> 3] >> (i & 7)) & 1);
			uint32_t	v = m->bits == 32 ? NDDUP_MINHASH_VALUES(m)[i] :
				nddup_bbit_get(m->data, i, m->bits);

			print(arg, " %s%0*x", borrowed ? "*" : "", digits, v);
		}
}

/*
 * Read the binary form, all len bytes.  Returns the sketch, or NULL with
 * err: SHORT, HEADER, LENGTH (err->have data bytes, err->need expected) or
 * INVALID.
 */
NddupMinhash *
nddup_minhash_recv(const uint8_t *data, size_t len, NddupParseError *err)
{
	int			version,
				method,
				bits,
				flags,
				size,
				unit,
				k;
	uint32_t	seed;
	size_t		need;
	NddupMinhash *m;

	if (len < NDDUP_MINHASH_BINARY_HDRSZ)
	{
		nddup_parse_fail(err, NDDUP_PARSE_SHORT, (int64_t) len,
						 NDDUP_MINHASH_BINARY_HDRSZ, NULL);
		return NULL;
	}
	version = data[0];
	method = data[1];
	bits = data[2];
	flags = data[3];
	size = data[4];
	unit = data[5];
	k = (int) nddup_get_be(data + 6, 2);
	seed = (uint32_t) nddup_get_be(data + 8, 4);
	if (version != NDDUP_MINHASH_VERSION || method > NDDUP_MINHASH_OPH || k < 1 ||
		k > NDDUP_MINHASH_MAX_K || !valid_bits(bits))
	{
		nddup_parse_fail(err, NDDUP_PARSE_HEADER, 0, 0, NULL);
		return NULL;
	}
	need = nddup_minhash_data_size(method, k, bits);
	if (len - NDDUP_MINHASH_BINARY_HDRSZ != need)
	{
		nddup_parse_fail(err, NDDUP_PARSE_LENGTH,
						 (int64_t) (len - NDDUP_MINHASH_BINARY_HDRSZ), need, NULL);
		return NULL;
	}
	data += NDDUP_MINHASH_BINARY_HDRSZ;
	m = nddup_minhash_new(method, k, seed, size, unit, bits);
	m->flags = (uint8_t) flags;
	if (bits == 32)
	{
		for (int i = 0; i < k; i++)
			NDDUP_MINHASH_VALUES(m)[i] = (uint32_t) nddup_get_be(data + 4 * (size_t) i, 4);
		if (method == NDDUP_MINHASH_OPH)
			memcpy(NDDUP_MINHASH_BORROWED(m), data + 4 * (size_t) k, ((size_t) k + 7) / 8);
	}
	else
		memcpy(m->data, data, need);
	return nddup_parse_keep(m, nddup_minhash_validate(m, err));
}

/* Bytes of the binary form of m. */
size_t
nddup_minhash_send_size(const NddupMinhash *m)
{
	return NDDUP_MINHASH_BINARY_HDRSZ + nddup_minhash_data_size(m->method, m->k, m->bits);
}

/* Write the binary form of m (nddup_minhash_send_size bytes). */
void
nddup_minhash_send(const NddupMinhash *m, uint8_t *out)
{
	out[0] = m->version;
	out[1] = m->method;
	out[2] = m->bits;
	out[3] = m->flags;
	out[4] = m->size;
	out[5] = m->unit;
	nddup_put_be(out + 6, m->k, 2);
	nddup_put_be(out + 8, m->seed, 4);
	out += NDDUP_MINHASH_BINARY_HDRSZ;
	if (m->bits == 32)
	{
		for (int i = 0; i < m->k; i++)
			nddup_put_be(out + 4 * (size_t) i, NDDUP_MINHASH_VALUES(m)[i], 4);
		if (m->method == NDDUP_MINHASH_OPH)
			memcpy(out + 4 * (size_t) m->k, NDDUP_MINHASH_BORROWED(m), ((size_t) m->k + 7) / 8);
	}
	else
		memcpy(out, m->data, nddup_bbit_bytes(m->k, m->bits));
}

/* ----------------------------------------------------------------
 *		minhash_query and shingleset_query
 * ----------------------------------------------------------------
 */

/*
 * Parse "jaccard>=T value" (or "containment>=T value" if allowed) up to
 * the value: sets *kind, *threshold and *value (where the value's text
 * starts).  Errors: SYNTAX (no such prefix), NUMBER (parse_number failed),
 * RANGE with a detail (T not in [0, 1], or nothing after it).
 */
NddupParseCode
nddup_query_parse(const char *str, bool allow_containment,
				  NddupNumberParser parse_number, void *arg, int *kind,
				  double *threshold, const char **value, NddupParseError *err)
{
	const char *p = skip_spaces(str);
	const char *end;
	double		t;

	if (strncmp(p, "jaccard>=", 9) == 0)
	{
		*kind = NDDUP_QUERY_JACCARD;
		p += 9;
	}
	else if (allow_containment && strncmp(p, "containment>=", 13) == 0)
	{
		*kind = NDDUP_QUERY_CONTAINMENT;
		p += 13;
	}
	else
		return nddup_parse_fail(err, NDDUP_PARSE_SYNTAX, 0, 0, NULL);
	if (!parse_number(p, &t, &end, arg))
		return nddup_parse_fail(err, NDDUP_PARSE_NUMBER, 0, 0, NULL);
	if (isnan(t) || t < 0.0 || t > 1.0 || *end == '\0')
		return nddup_parse_fail(err, NDDUP_PARSE_RANGE, 0, 0, "%s",
								*end == '\0' ? "The threshold is followed by no sketch." :
								"The threshold must be between 0 and 1.");
	*threshold = t;
	*value = end;
	err->code = NDDUP_PARSE_OK;
	return NDDUP_PARSE_OK;
}

/* INVALID (with a detail) for a containment query of a bottom-s sample. */
NddupParseCode
nddup_query_check_set(int kind, const NddupShingleSet *set, NddupParseError *err)
{
	if (kind == NDDUP_QUERY_CONTAINMENT && set->kind == NDDUP_SET_BOTTOM)
		return nddup_parse_fail(err, NDDUP_PARSE_INVALID, 0, 0,
								"Containment cannot be estimated from bottom-s samples.");
	err->code = NDDUP_PARSE_OK;
	return NDDUP_PARSE_OK;
}
