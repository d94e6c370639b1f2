/*-------------------------------------------------------------------------
 *
 * nddup_core.h
 *	  The pure-C core of nddup: text normalization, tokenization,
 *	  shingling, hashing, simhash, min-hash, sorted hash sets, the text and
 *	  binary forms of the types and the trigger's argument parser.
 *
 * Nothing here includes a PostgreSQL header: the core is compiled and
 * tested outside the server as well (test/unit, test/fuzz).  The server
 * glue (src/nddup.h and the folders beside src/core) sits on top of it and
 * reaches the server only through the hooks below.
 *
 * Fingerprints are stored data: every function that computes one is a file
 * format.  Never change what these functions return for a given input;
 * add a new, versioned function instead.
 *
 *-------------------------------------------------------------------------
 */
#ifndef NDDUP_CORE_H
#define NDDUP_CORE_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

/* ----------------------------------------------------------------
 *		Pure-C core
 * ----------------------------------------------------------------
 */

/* Seed of XXH3 for token and shingle hashes (ASCII "nddup\0\0\1"). */
#define NDDUP_HASH_SEED			UINT64_C(0x6e64647570000001)

/* Largest shingle size accepted by the shingling functions. */
#define NDDUP_MAX_SHINGLE_SIZE	64

/*
 * Memory hooks of the core (src/core/hooks.c).  Outside the server they are
 * malloc/realloc/free
 * (aborting on failure); the extension points them at palloc and friends in
 * _PG_init, so that memory belongs to the current memory context and an
 * allocation failure is an ordinary ERROR.
 */
extern void *(*nddup_realloc_hook) (void *ptr, size_t size);
extern void (*nddup_free_hook) (void *ptr);

/*
 * Interrupt hook of the core: its long loops call it about every
 * NDDUP_INTERRUPT_STRIDE bytes of text or items of work, so that a
 * statement_timeout or pg_cancel_backend() stops a call on a huge text in
 * time.  NULL (not called) outside the server; the extension points it at
 * CHECK_FOR_INTERRUPTS() in _PG_init.  It may not return (the server's
 * error longjmp): the core keeps nothing that would then be left
 * inconsistent, and its memory comes from the hooks above.
 */
extern void (*nddup_interrupt_hook) (void);
#define NDDUP_INTERRUPT_STRIDE	((size_t) 1 << 20)

/*
 * Working memory limit of the core: no text buffer, segment buffer or hash
 * array grows beyond nddup_max_working bytes (PostgreSQL's MaxAllocSize,
 * 1 GB - 1, unless a test lowers it).  A growth that would is refused before
 * it is allocated: nddup_limit_exceeded calls nddup_limit_hook, which must
 * not return (the extension raises 54000 there; a test may longjmp); without
 * a hook, or if it returns, the core prints a message and aborts.
 */
#define NDDUP_MAX_WORKING		((size_t) 0x3fffffff)
extern size_t nddup_max_working;
extern void (*nddup_limit_hook) (size_t requested);
extern void nddup_limit_exceeded(size_t requested) __attribute__((noreturn));

/*
 * Bytes of normalized text after which a streaming normalization hands its
 * complete tokens on and forgets them (src/core/normalize.c); a variable so
 * that the unit tests can cut texts at every place.
 */
#define NDDUP_STREAM_CHUNK		((size_t) 1 << 16)
extern size_t nddup_stream_chunk;

/* Call the interrupt hook, if there is one. */
static inline void
nddup_check_interrupts(void)
{
	if (nddup_interrupt_hook != NULL)
		nddup_interrupt_hook();
}

/* A growable byte buffer (UTF-8 text). */
typedef struct NddupBuf
{
	char	   *data;
	size_t		len;
	size_t		cap;
} NddupBuf;

/* A growable array of 64-bit hashes. */
typedef struct NddupHashes
{
	uint64_t   *items;
	size_t		len;
	size_t		cap;
} NddupHashes;

/* Unit of a shingle: w consecutive words or w consecutive characters. */
typedef enum NddupUnit
{
	NDDUP_UNIT_WORD = 0,
	NDDUP_UNIT_CHAR = 1,
	NDDUP_UNIT_WORD_JOINED = 2	/* 'word_': connector punctuation (_) is
								 * part of a word (docs/text-pipeline.md) */
} NddupUnit;

#define NDDUP_UNIT_MAX			NDDUP_UNIT_WORD_JOINED

/* The SQL names of the units: "word", "char", "word_" (src/core/tokenize.c). */
extern const char *const nddup_unit_names[NDDUP_UNIT_MAX + 1];

/* Called once per token with the token's UTF-8 bytes. */
typedef void (*NddupTokenCallback) (void *arg, const char *token, size_t len);

/* Called once per shingle with the shingle's 64-bit hash. */
typedef void (*NddupHashCallback) (void *arg, uint64_t hash);

/* Called with the next n (>= 1) shingle hashes, in text order. */
typedef void (*NddupHashBatchCallback) (void *arg, const uint64_t *hashes,
										size_t n);

/* buffers and hash arrays (src/core/buffers.c) */
extern void nddup_buf_reserve(NddupBuf *buf, size_t extra);
extern void nddup_buf_append(NddupBuf *buf, const char *bytes, size_t len);
extern void nddup_buf_free(NddupBuf *buf);
/* an NddupPrintf: append printf-formatted text to the NddupBuf arg, NUL kept after it */
extern void nddup_buf_printf(void *buf, const char *fmt,...)
			__attribute__((format(printf, 2, 3)));
extern void nddup_hashes_push(NddupHashes *hashes, uint64_t hash);
/* array size (hashes) from which nddup_hashes_push_distinct deduplicates */
#define NDDUP_DISTINCT_COMPACT	(1 << 20)
extern void nddup_hashes_push_distinct(NddupHashes *hashes, uint64_t hash);
/* an NddupHashBatchCallback: append the batch to the NddupHashes arg */
extern void nddup_hashes_append(void *hashes, const uint64_t *items, size_t n);
/* the same, nddup_hashes_push_distinct for each (order and repeats do not matter) */
extern void nddup_hashes_append_distinct(void *hashes, const uint64_t *items, size_t n);
extern void nddup_hashes_free(NddupHashes *hashes);

/* normalization (src/core/normalize.c) */
extern void nddup_normalize(const char *src, size_t len, NddupBuf *out);
/* the same, with connector punctuation (_) kept as word characters ('word_') */
extern void nddup_normalize_joined(const char *src, size_t len, NddupBuf *out);
/* Source bytes of each byte of a normalized text (nddup_normalize_mapped). */
typedef struct NddupSourceMap
{
	size_t	   *start;			/* start[i]: first source byte of output byte i */
	size_t	   *end;			/* end[i]: one past its last source byte */
	size_t		cap;
} NddupSourceMap;

/* nddup_normalize(_joined) with the source bytes of each output byte */
extern void nddup_normalize_mapped(const char *src, size_t len, bool joined,
								   NddupBuf *out, NddupSourceMap *map);
extern void nddup_source_map_free(NddupSourceMap *map);
/* Is cp connector punctuation (General Category Pc)? */
extern bool nddup_is_connector(uint32_t cp);
extern const char *nddup_unicode_version(void);
/* NFKC alone (UTF-8 in and out, no markup, folding or word splitting): tests */
extern void nddup_nfkc(const char *src, size_t len, NddupBuf *out);
/* pieces of nddup_normalize for the one-pass tokenizer of src/core/tokenize.c */
extern size_t nddup_normalize_part(const char *src, size_t len, size_t from,
								   size_t stop_after, NddupBuf *out,
								   const char **no_gt_from);

/*
 * Called by a streaming normalization whenever out has grown by about
 * nddup_stream_chunk bytes: the callee consumes a prefix of out (ending at a
 * character boundary) and removes it, so that the normalized text is never
 * held whole.
 */
typedef void (*NddupNormDrain) (void *arg, NddupBuf *out);
/* the length of nddup_normalize(src, len), in a chunk of memory */
extern size_t nddup_normalized_length(const char *src, size_t len);
extern size_t nddup_normalize_stream(const char *src, size_t len, size_t from,
									 size_t stop_after, bool joined,
									 NddupBuf *out, const char **no_gt_from,
									 NddupNormDrain drain, void *drain_arg);
/* markup and character references (src/core/markup.c) */
#define NDDUP_REPLACEMENT_CHAR	0xFFFD
extern size_t nddup_parse_markup(const uint8_t **no_gt_from, const uint8_t *p,
								 const uint8_t *end, bool *separator);
extern int	nddup_parse_entity(const uint8_t *p, const uint8_t *end,
							   uint32_t cps[2], size_t *consumed);
extern size_t nddup_markup_length(const char *p, const char *end,
								  bool *separator, const char **no_gt_from);
extern int	nddup_char_reference(const char *p, const char *end,
								 uint32_t cps[2], size_t *consumed);

/* tokenization and shingling (src/core/tokenize.c) */
/* no one-character token (NDDUP_UF_SOLO) below this code point (test/unit) */
#define NDDUP_SOLO_MIN			0x3000
extern size_t nddup_tokenize(const char *norm, size_t len,
							 NddupTokenCallback callback, void *arg);
extern uint64_t nddup_hash_bytes(const char *bytes, size_t len);
extern size_t nddup_shingle_hashes(const char *norm, size_t len, int size,
								   NddupUnit unit,
								   NddupHashCallback callback, void *arg);
/* normalize + shingle hashes in one call (one pass for word shingles) */
extern size_t nddup_text_shingles(const char *src, size_t len, int size,
								  NddupUnit unit,
								  NddupHashBatchCallback callback, void *arg);

/* simhash accumulation (src/core/simhash.c), Charikar 2002; Manku et al. 2007 s.2 */
#define NDDUP_SIMHASH_BLOCK 16	/* hashes counted at a time */

typedef struct NddupSimhashAcc
{
	uint64_t	block[NDDUP_SIMHASH_BLOCK];	/* hashes not yet counted */
	uint32_t	pending;		/* number of hashes in block */
	uint32_t	blocks;			/* blocks in sixteens since the last spill */
	bool		spilled;		/* counts holds something */
	uint64_t	planes[4];		/* bit-sliced counters of weight 1, 2, 4, 8 */
	uint64_t	sixteens[8];	/* byte-wide counters of weight 16, bit 8j+i
								 * in byte i of sixteens[j] */
	int64_t		counts[64];		/* number of features with bit i set, of
								 * the blocks spilled (if spilled) */
	int64_t		total;			/* number of features */
} NddupSimhashAcc;

typedef struct NddupSimhashWeighted
{
	double		sums[64];		/* sum of +w / -w per bit */
} NddupSimhashWeighted;

extern void nddup_simhash_init(NddupSimhashAcc *acc);
extern void nddup_simhash_add(NddupSimhashAcc *acc, uint64_t hash);
extern void nddup_simhash_add_many(NddupSimhashAcc *acc, const uint64_t *hashes,
								   size_t n);
extern uint64_t nddup_simhash_finish(NddupSimhashAcc *acc);
extern void nddup_simhash_weighted_init(NddupSimhashWeighted *acc);
extern void nddup_simhash_weighted_add(NddupSimhashWeighted *acc,
									   uint64_t hash, double weight);
extern uint64_t nddup_simhash_weighted_finish(const NddupSimhashWeighted *acc);
extern uint64_t nddup_simhash_text(const char *src, size_t len, int size,
								   NddupUnit unit, bool unique);

/* Hamming distance of two 64-bit fingerprints. */
static inline int
nddup_hamming(uint64_t a, uint64_t b)
{
	return __builtin_popcountll(a ^ b);
}

/* murmur3's 64-bit finalizer: a bijection of the 64-bit integers. */
static inline uint64_t
nddup_fmix64(uint64_t x)
{
	x ^= x >> 33;
	x *= UINT64_C(0xff51afd7ed558ccd);
	x ^= x >> 33;
	x *= UINT64_C(0xc4ceb9fe1a85ec53);
	x ^= x >> 33;
	return x;
}


/* ----------------------------------------------------------------
 *		Sketches (src/core/minhash.c, src/core/hashset.c)
 *
 * Min-hash sketches (k-permutation, and one-permutation hashing with
 * optimal densification), b-bit packing, super-shingles, and sorted sets
 * of 64-bit shingle hashes.  See docs/sketches.md.
 * ----------------------------------------------------------------
 */

/* Largest number of min-hash values in a sketch. */
#define NDDUP_MINHASH_MAX_K		1024

/* Value of a one-permutation bin that no shingle fell into. */
#define NDDUP_MINHASH_EMPTY		UINT32_MAX

typedef enum NddupMinhashMethod
{
	NDDUP_MINHASH_KPERM = 0,	/* k independent permutations */
	NDDUP_MINHASH_OPH = 1		/* one permutation, k bins, densified */
} NddupMinhashMethod;

/* pi_i(x): the i-th permutation of the 64-bit shingle hash universe */
extern uint64_t nddup_minhash_permute(uint64_t x, uint32_t seed, int i);

/* k-permutation min-hash: out[i] = top 32 bits of min pi_i(S); all EMPTY if n = 0 */
extern void nddup_minhash_kperm(const uint64_t *hashes, size_t n, int k,
								uint32_t seed, uint32_t *out);

/* one-permutation hashing: the k raw bins (EMPTY where no shingle fell) */
extern void nddup_minhash_oph_bins(const uint64_t *hashes, size_t n, int k,
								   uint32_t seed, uint32_t *out);

/*
 * Optimal densification (Shrivastava 2017) of k raw bins, in place.  Sets
 * bit i of borrowed (k bits, may be NULL) for each bin filled from another.
 * Returns false (and changes nothing) when every bin is empty.
 */
extern bool nddup_minhash_densify(uint32_t *bins, int k, uint32_t seed,
								  uint8_t *borrowed);

/* element-wise union (minimum) of two sketches of the same method, into a */
extern void nddup_minhash_union(uint32_t *a, uint8_t *a_borrowed,
								const uint32_t *b, const uint8_t *b_borrowed,
								int k, uint32_t seed, NddupMinhashMethod method);

/* number of positions where a and b are equal */
extern int	nddup_minhash_equal_count(const uint32_t *a, const uint32_t *b, int k);

/*
 * Resemblance estimate from equal positions of k: their share; for b-bit
 * sketches corrected for chance agreement (Li & Koenig 2010),
 * (p - 2^-b) / (1 - 2^-b) clamped to [0, 1].
 */
extern double nddup_minhash_estimate(int equal, int k, int bits);

/* b-bit min-hash (b in 1, 2, 4, 8, 16): the low b bits of each value, packed */
extern size_t nddup_bbit_bytes(int k, int bits);
extern void nddup_bbit_pack(const uint32_t *values, int k, int bits, uint8_t *out);
extern uint32_t nddup_bbit_get(const uint8_t *packed, int i, int bits);
extern int	nddup_bbit_equal_count(const uint8_t *a, const uint8_t *b, int k, int bits);

/* Broder's super-shingles: out[g] hashes values[g*group_size .. +group_size) */
extern void nddup_super_shingles(const uint32_t *values, int groups,
								 int group_size, uint64_t *out);

/* keys of the r-subsets of s super-shingles (C(s, r) of them, in lexicographic order) */
extern size_t nddup_super_shingle_keys(const uint64_t *ss, int s, int r,
									   uint64_t *out);

/* sorted sets of 64-bit hashes, unsigned order (src/core/hashset.c) */
extern size_t nddup_sort_unique(uint64_t *items, size_t n);
extern size_t nddup_filter_mod(uint64_t *items, size_t n, uint64_t m);
extern size_t nddup_intersection_count(const uint64_t *a, size_t na,
									   const uint64_t *b, size_t nb);
extern void nddup_bottom_s_compare(const uint64_t *a, size_t na,
								   const uint64_t *b, size_t nb, size_t s,
								   size_t *common, size_t *total);
extern bool nddup_sorted_contains(const uint64_t *items, size_t n, uint64_t x);

/* ----------------------------------------------------------------
 *		Text and binary forms of the types, and the trigger's arguments
 *		(src/core/simhash_format.c, src/core/sketch_format.c,
 *		src/core/imatch_format.c, src/core/trigger_options.c)
 *
 * Pure C: the input, output, receive and send functions of the types and
 * the argument parser of nddup_dedup_trigger are thin wrappers around these
 * functions, which are unit tested and fuzzed outside the server
 * (test/unit/test_format.c, test/fuzz/, docs/reports/fuzzing.md).  A parser returns
 * NDDUP_PARSE_OK or the kind of error, and fills an NddupParseError with
 * what the wrapper's message needs.  Text input is the input function's
 * C string; binary input is the bytes of the value (the receive buffer from
 * its cursor on), binary output the bytes its send function returns.  The
 * structs below are the stored layouts of the varlena types, the varlena
 * header (vl_len_) left for the server to set.  They are stored data:
 * never change them (docs/sketches.md).
 * ----------------------------------------------------------------
 */

typedef enum NddupParseCode
{
	NDDUP_PARSE_OK = 0,
	NDDUP_PARSE_SYNTAX,			/* malformed text (22P02) */
	NDDUP_PARSE_RANGE,			/* hamming_ball: a bad radius (22P02 text,
								 * 22P03 binary); sketch query: a bad
								 * threshold (22P02) */
	NDDUP_PARSE_INVALID,		/* well-formed, not a valid value (22P02 text,
								 * 22P03 binary) */
	NDDUP_PARSE_SHORT,			/* binary: shorter than the fixed part (22P03) */
	NDDUP_PARSE_HEADER,			/* binary: invalid header (22P03) */
	NDDUP_PARSE_LENGTH,			/* binary: length not the header's (22P03) */
	NDDUP_PARSE_TOO_LARGE,		/* more items than the type holds (54000) */
	NDDUP_PARSE_NUMBER			/* sketch query: the caller's number parser
								 * failed */
} NddupParseCode;

#define NDDUP_PARSE_NCODES		9

/* Read a big-endian (network order) unsigned integer of n <= 8 bytes. */
static inline uint64_t
nddup_get_be(const uint8_t *p, int n)
{
	uint64_t	v = 0;

	for (int i = 0; i < n; i++)
		v = (v << 8) | p[i];
	return v;
}

/* Write the low n <= 8 bytes of v big-endian (network order). */
static inline void
nddup_put_be(uint8_t *p, uint64_t v, int n)
{
	for (int i = n - 1; i >= 0; i--)
	{
		p[i] = (uint8_t) v;
		v >>= 8;
	}
}

/* What a parser reports with an error, beyond its code. */
typedef struct NddupParseError
{
	NddupParseCode code;
	int64_t		have;			/* SHORT, LENGTH: bytes there; RANGE
								 * (binary): the radius */
	uint64_t	need;			/* SHORT, LENGTH: bytes expected; TOO_LARGE:
								 * the number of items */
	char		detail[192];	/* the errdetail, or "" for none */
} NddupParseError;

/*
 * Fill err (detail_fmt may be NULL: no detail) and return code; shared by
 * the parsers (src/core/simhash_format.c).
 */
extern NddupParseCode nddup_parse_fail(NddupParseError *err, NddupParseCode code,
									   int64_t have, uint64_t need,
									   const char *detail_fmt,...)
			__attribute__((format(printf, 5, 6)));

/*
 * Where the text forms of the varlena types are written: appends
 * printf-formatted text to arg (nddup_buf_printf; the server's appends to
 * a StringInfo as appendStringInfo does, with its limits and errors).
 */
typedef void (*NddupPrintf) (void *arg, const char *fmt,...)
			__attribute__((format(printf, 2, 3)));

/* value if code is NDDUP_PARSE_OK; else frees value and returns NULL */
extern void *nddup_parse_keep(void *value, NddupParseCode code);

/* simhash64 and hamming_ball (src/core/simhash_format.c) */
#define NDDUP_SIMHASH64_BINARY_SIZE		8
#define NDDUP_HAMMING_BALL_BINARY_SIZE	12
#define NDDUP_HAMMING_BALL_TEXT_SIZE	32	/* buffer for the text form */

extern int	nddup_hex_digit_value(char c);
extern NddupParseCode nddup_simhash64_parse(const char *str, uint64_t *value);
extern void nddup_simhash64_format(uint64_t value, char out[17]);
extern NddupParseCode nddup_simhash64_recv(const uint8_t *data, size_t len,
										   uint64_t *value, NddupParseError *err);
extern void nddup_simhash64_send(uint64_t value, uint8_t out[8]);
extern NddupParseCode nddup_hamming_ball_parse(const char *str, uint64_t *center,
											   int32_t *radius);
extern void nddup_hamming_ball_format(uint64_t center, int32_t radius,
									  char out[NDDUP_HAMMING_BALL_TEXT_SIZE]);
extern NddupParseCode nddup_hamming_ball_recv(const uint8_t *data, size_t len,
											  uint64_t *center, int32_t *radius,
											  NddupParseError *err);
extern void nddup_hamming_ball_send(uint64_t center, int32_t radius, uint8_t out[12]);

/* shingleset (src/core/sketch_format.c) */
#define NDDUP_SHINGLESET_VERSION		1
#define NDDUP_SHINGLESET_MAX_ITEMS		100000000
#define NDDUP_SHINGLESET_MAX_S			1000000
#define NDDUP_SHINGLESET_BINARY_HDRSZ	20

typedef enum NddupSetKind
{
	NDDUP_SET_EXACT = 0,		/* S(D) */
	NDDUP_SET_BOTTOM = 1,		/* F(D) = MIN_s(S(D)) */
	NDDUP_SET_MOD = 2			/* V(D) = MOD_m(S(D)) */
} NddupSetKind;

typedef struct NddupShingleSet
{
	int32_t		vl_len_;
	uint8_t		version;
	uint8_t		kind;			/* NddupSetKind */
	uint8_t		size;			/* shingle size */
	uint8_t		unit;			/* NddupUnit */
	uint32_t	param;			/* s (bottom), m (mod), 0 (exact) */
	uint32_t	nitems;			/* hashes stored */
	uint64_t	cardinality;	/* |S(D)|: distinct shingles of the document */
	uint64_t	items[];		/* sorted, distinct */
} NddupShingleSet;

#define NDDUP_SHINGLESET_HDRSZ	offsetof(NddupShingleSet, items)
#define NDDUP_SHINGLESET_SIZE(n)	(NDDUP_SHINGLESET_HDRSZ + (size_t) (n) * 8)

extern NddupParseCode nddup_shingleset_validate(const NddupShingleSet *s,
												NddupParseError *err);
extern NddupShingleSet *nddup_shingleset_parse(const char *str, NddupParseError *err);
extern void nddup_shingleset_format(const NddupShingleSet *s, NddupPrintf print,
									void *arg);
extern NddupShingleSet *nddup_shingleset_recv(const uint8_t *data, size_t len,
											  NddupParseError *err);
extern size_t nddup_shingleset_send_size(const NddupShingleSet *s);
extern void nddup_shingleset_send(const NddupShingleSet *s, uint8_t *out);

/* minhash_sketch (src/core/sketch_format.c) */
#define NDDUP_MINHASH_VERSION			1
#define NDDUP_MINHASH_EMPTY_DOC			0x01	/* the document had no shingles */
#define NDDUP_MINHASH_BINARY_HDRSZ		12

typedef struct NddupMinhash
{
	int32_t		vl_len_;
	uint8_t		version;
	uint8_t		method;			/* NddupMinhashMethod */
	uint8_t		bits;			/* 32, or b of a b-bit sketch (1, 2, 4, 8, 16) */
	uint8_t		flags;			/* NDDUP_MINHASH_EMPTY_DOC */
	uint8_t		size;			/* shingle size */
	uint8_t		unit;			/* NddupUnit */
	uint16_t	k;
	uint32_t	seed;

	/*
	 * bits = 32: uint32 values[k], then for oph the borrowed-bin bitmap of
	 * (k + 7) / 8 bytes; bits < 32: the packed values only.
	 */
	uint8_t		data[];
} NddupMinhash;

#define NDDUP_MINHASH_HDRSZ			offsetof(NddupMinhash, data)
#define NDDUP_MINHASH_VALUES(m)		((uint32_t *) (m)->data)
#define NDDUP_MINHASH_BORROWED(m)	((m)->data + 4 * (size_t) (m)->k)

extern size_t nddup_minhash_data_size(int method, int k, int bits);
extern NddupMinhash *nddup_minhash_new(int method, int k, uint32_t seed, int size,
									   int unit, int bits);
extern NddupParseCode nddup_minhash_validate(const NddupMinhash *m,
											 NddupParseError *err);
extern NddupMinhash *nddup_minhash_parse(const char *str, NddupParseError *err);
extern void nddup_minhash_format(const NddupMinhash *m, NddupPrintf print, void *arg);
extern NddupMinhash *nddup_minhash_recv(const uint8_t *data, size_t len,
										NddupParseError *err);
extern size_t nddup_minhash_send_size(const NddupMinhash *m);
extern void nddup_minhash_send(const NddupMinhash *m, uint8_t *out);

/*
 * minhash_query and shingleset_query (src/core/sketch_format.c): "jaccard>=T
 * value" or "containment>=T value".  The threshold is read by the caller's
 * number parser, which returns false on failure (the server's raises its
 * own error instead) and sets *end past the number and the spaces after it.
 */
#define NDDUP_QUERY_JACCARD		0
#define NDDUP_QUERY_CONTAINMENT	1

typedef bool (*NddupNumberParser) (const char *num, double *value,
								   const char **end, void *arg);

extern NddupParseCode nddup_query_parse(const char *str, bool allow_containment,
										NddupNumberParser parse_number, void *arg,
										int *kind, double *threshold,
										const char **value, NddupParseError *err);
extern NddupParseCode nddup_query_check_set(int kind, const NddupShingleSet *set,
											NddupParseError *err);

/* imatch_lexicon (src/core/imatch_format.c) */
#define NDDUP_LEXICON_VERSION		1
#define NDDUP_LEXICON_MAX_TERMS		10000000
#define NDDUP_LEXICON_BINARY_HDRSZ	22

typedef enum NddupLexiconKind
{
	NDDUP_LEX_DF = 0,			/* aggregation state: terms and their DF */
	NDDUP_LEX_FINAL = 1			/* the kept terms */
} NddupLexiconKind;

typedef struct NddupLexicon
{
	int32_t		vl_len_;
	uint8_t		version;
	uint8_t		kind;			/* NddupLexiconKind */
	uint16_t	padding;		/* zero */
	float		drop_frequent;	/* share of the most frequent terms cut */
	float		drop_rare;		/* share of the rarest terms cut */
	int64_t		ndocs;			/* documents counted */
	uint32_t	nterms;
	uint32_t	padding2;		/* zero */
	uint64_t	hashes[];		/* sorted; then int64 df[] for NDDUP_LEX_DF */
} NddupLexicon;

#define NDDUP_LEXICON_HDRSZ		offsetof(NddupLexicon, hashes)
#define NDDUP_LEXICON_DF(l)		((int64_t *) ((l)->hashes + (l)->nterms))
#define NDDUP_LEXICON_SIZE(kind, n) \
	(NDDUP_LEXICON_HDRSZ + (size_t) (n) * ((kind) == NDDUP_LEX_DF ? 16 : 8))

/* Writes a cut share in its shortest exact decimal form (at most 31 bytes + NUL). */
typedef void (*NddupShareFormatter) (float share, char out[32]);

extern NddupParseCode nddup_lexicon_validate(const NddupLexicon *l,
											 NddupParseError *err);
extern NddupLexicon *nddup_lexicon_parse(const char *str, NddupParseError *err);
extern void nddup_lexicon_format(const NddupLexicon *l, NddupShareFormatter share,
								 NddupPrintf print, void *arg);
extern NddupLexicon *nddup_lexicon_recv(const uint8_t *data, size_t len,
										NddupParseError *err);
extern size_t nddup_lexicon_send_size(const NddupLexicon *l);
extern void nddup_lexicon_send(const NddupLexicon *l, uint8_t *out);

/*
 * shingle_filter (src/core/filter_format.c): the shingles of a collection
 * that occur in more than cutoff = max(min_docs, floor(share * ndocs))
 * documents (boilerplate, templates, chrome), which the filtered
 * constructors leave out (docs/sketches.md#boilerplate).  Stored: the
 * header, the sorted hashes, then a directory of 2^dir_bits + 1 offsets:
 * dir[j] is the number of hashes whose top dir_bits bits are below j, so a
 * lookup reads one short run.  The text and binary forms carry the header
 * and the hashes; the directory is rebuilt on input (it is a function of
 * the hashes, so every value still has one representation).
 */
#define NDDUP_FILTER_VERSION		1
#define NDDUP_FILTER_MAX_ITEMS		16000000
#define NDDUP_FILTER_BINARY_HDRSZ	43

typedef struct NddupFilter
{
	int32_t		vl_len_;
	uint8_t		version;
	uint8_t		size;			/* shingle size */
	uint8_t		unit;			/* NddupUnit */
	uint8_t		dir_bits;		/* the directory has 2^dir_bits + 1 entries */
	uint32_t	min_docs;		/* C of the cut-off */
	uint32_t	nitems;
	double		share;			/* f of the cut-off, in [0, 1] */
	int64_t		ndocs;			/* documents counted */
	int64_t		cutoff;			/* max(min_docs, floor(share * ndocs)) */
	int64_t		error;			/* counts may exceed the truth by this much */
	uint64_t	items[];		/* sorted, distinct; then uint32_t dir[] */
} NddupFilter;

#define NDDUP_FILTER_HDRSZ		offsetof(NddupFilter, items)
#define NDDUP_FILTER_DIR(f)		((uint32_t *) ((f)->items + (f)->nitems))
#define NDDUP_FILTER_SIZE(n, bits) \
	(NDDUP_FILTER_HDRSZ + (size_t) (n) * 8 + (((size_t) 1 << (bits)) + 1) * 4)

/* Writes a double in its shortest exact decimal form (at most 31 bytes + NUL). */
typedef void (*NddupDoubleFormatter) (double value, char out[32]);

/* the directory size for n hashes: the smallest b with 2^b >= n */
extern int	nddup_filter_dir_bits(size_t n);
/* the cut-off of min_docs, share and ndocs */
extern int64_t nddup_filter_cutoff(uint32_t min_docs, double share, int64_t ndocs);
/* a filter of the n sorted distinct hashes (vl_len_ zero), directory built */
extern NddupFilter *nddup_filter_build(int size, int unit, uint32_t min_docs,
									   double share, int64_t ndocs, int64_t error,
									   const uint64_t *items, size_t n);
extern NddupParseCode nddup_filter_validate(const NddupFilter *f,
											NddupParseError *err);
extern NddupFilter *nddup_filter_parse(const char *str, NddupParseError *err);
extern void nddup_filter_format(const NddupFilter *f, NddupDoubleFormatter share,
								NddupPrintf print, void *arg);
extern NddupFilter *nddup_filter_recv(const uint8_t *data, size_t len,
									  NddupParseError *err);
extern size_t nddup_filter_send_size(const NddupFilter *f);
extern void nddup_filter_send(const NddupFilter *f, uint8_t *out);

/* Is the shingle hash h in the filter? */
static inline bool
nddup_filter_contains(const NddupFilter *f, uint64_t h)
{
	const uint32_t *dir = NDDUP_FILTER_DIR(f);
	uint32_t	j = f->dir_bits == 0 ? 0 : (uint32_t) (h >> (64 - f->dir_bits));

	for (uint32_t i = dir[j]; i < dir[j + 1]; i++)
		if (f->items[i] >= h)
			return f->items[i] == h;
	return false;
}

/* Drop the hashes in the filter from hashes[0..n), in place; the number kept. */
extern size_t nddup_filter_apply(const NddupFilter *f, uint64_t *hashes, size_t n);

/*
 * An NddupHashBatchCallback (arg an NddupFilterSink) that passes on to next
 * the hashes the filter does not hold, counting the hashes seen and kept:
 * shingles are filtered as they are made, without a second pass.
 */
typedef struct NddupFilterSink
{
	const NddupFilter *filter;
	NddupHashBatchCallback next;
	void	   *next_arg;
	size_t		seen;
	size_t		kept;
} NddupFilterSink;

extern void nddup_filter_sink(void *arg, const uint64_t *hashes, size_t n);

/*
 * Document frequencies of shingles within a memory budget
 * (src/core/df_counter.c): exact while the distinct shingles fit in
 * max_entries, then lossy counting (Manku & Motwani 2002, s.4.2): when the
 * table is full, the entries whose count is at most a raised floor b are
 * dropped and a shingle seen again starts at b, so every count is an upper
 * bound of the truth by at most the floor, and no shingle whose true count
 * exceeds the floor is ever missing.
 */
typedef struct NddupDfCounter
{
	uint64_t   *keys;			/* open addressing; 0 = free (key 0 apart) */
	uint32_t   *counts;			/* estimated document frequency */
	size_t		cap;			/* power of 2 */
	size_t		n;				/* keys in the table */
	size_t		max_entries;	/* budget: at most this many keys */
	bool		has_zero;		/* the hash 0 is counted */
	uint32_t	zero_count;
	uint32_t	floor;			/* b: counts below it were dropped */
	int64_t		ndocs;
	uint64_t	pruned;			/* number of prunings, for tests */
} NddupDfCounter;

extern void nddup_df_init(NddupDfCounter *c, size_t max_entries);
/* count one document: its distinct shingle hashes (any order, no repeats) */
extern void nddup_df_add_doc(NddupDfCounter *c, const uint64_t *hashes, size_t n);
/* the sorted hashes whose count exceeds cutoff (allocated through the hooks) */
extern uint64_t *nddup_df_frequent(const NddupDfCounter *c, int64_t cutoff, size_t *n);
extern void nddup_df_free(NddupDfCounter *c);

/* chance pairs of unrelated fingerprints (src/core/hamming_chance.c) */
extern double nddup_binomial(int n, int r);
extern double nddup_hamming_chance(int radius);
extern double nddup_hamming_chance_pairs(double n, int radius);
extern double nddup_hamming_chance_rows(int radius);

/* the arguments of nddup_dedup_trigger (src/core/trigger_options.c) */
typedef enum NddupTriggerKey
{
	NDDUP_TK_FINGERPRINT = 0,
	NDDUP_TK_SOURCE,
	NDDUP_TK_METHOD,
	NDDUP_TK_RADIUS,
	NDDUP_TK_SIZE,
	NDDUP_TK_UNIT,
	NDDUP_TK_WEIGHTING,
	NDDUP_TK_ID,
	NDDUP_TK_DUPLICATE_OF,
	NDDUP_TK_ORDER,
	NDDUP_TK_ACTION,
	NDDUP_TK_LOCK,
	NDDUP_TK_THRESHOLD,
	NDDUP_TK_K,
	NDDUP_TK_VISIBILITY,
	NDDUP_TK_SCOPE,
	NDDUP_TK_VERIFY,
	NDDUP_TK_VERIFY_COLUMN,
	NDDUP_TK_FILTER,
	NDDUP_TK_MEASURE
} NddupTriggerKey;

#define NDDUP_TRIGGER_NKEYS			20
#define NDDUP_TRIGGER_MAX_RADIUS	32
#define NDDUP_TRIGGER_DEFAULT_RADIUS	12
#define NDDUP_TRIGGER_DEFAULT_K		128
/* Default of nddup.similarity_threshold and of the trigger's threshold=. */
#define NDDUP_DEFAULT_SIMILARITY_THRESHOLD	0.3

typedef enum NddupTriggerMethod
{
	NDDUP_TRIGGER_SIMHASH,		/* simhash64 within a Hamming radius */
	NDDUP_TRIGGER_MINHASH,		/* minhash_sketch estimate >= a threshold */
	NDDUP_TRIGGER_SHINGLESET	/* exact shingleset resemblance >= a threshold */
} NddupTriggerMethod;

typedef enum NddupTriggerAction
{
	NDDUP_TRIGGER_MARK,			/* store the row, set duplicate_of */
	NDDUP_TRIGGER_SKIP,			/* drop the row silently */
	NDDUP_TRIGGER_ERROR			/* raise unique_violation */
} NddupTriggerAction;

typedef enum NddupTriggerLock
{
	NDDUP_TRIGGER_LOCK_BLOCKS,	/* radius + 1 block keys per fingerprint */
	NDDUP_TRIGGER_LOCK_TABLE	/* one key per table: inserts serialize */
} NddupTriggerLock;

/*
 * Which rows the lookup sees: every row (as a foreign-key check), or only the
 * rows the inserting role may read (its row-level security policies apply).
 * Unset, the server chooses: the caller's view on a table with row-level
 * security, every row otherwise.
 */
typedef enum NddupTriggerVisibility
{
	NDDUP_TRIGGER_VISIBILITY_UNSET,
	NDDUP_TRIGGER_VISIBILITY_CALLER,
	NDDUP_TRIGGER_VISIBILITY_ALL
} NddupTriggerVisibility;

/* The trigger's arguments: the value of each key given, and what they say. */
typedef struct NddupTriggerArgs
{
	const char *values[NDDUP_TRIGGER_NKEYS];	/* in the arguments, or NULL */
	NddupTriggerMethod method;
	int32_t		radius;			/* simhash */
	double		threshold;		/* minhash, shingleset */
	NddupTriggerAction action;
	NddupTriggerLock lock;
	NddupTriggerVisibility visibility;
	int32_t		size;			/* signature parameters (source= only) */
	int32_t		k;
	const char *unit;			/* "word" or "char" */
	const char *weighting;		/* "tf" or "set" */
	double		verify;			/* verification threshold, or 0: none */
	bool		containment;	/* shingleset: measure=containment (else
								 * Jaccard) */
} NddupTriggerArgs;

typedef enum NddupTriggerCode
{
	NDDUP_TRIGGER_OK = 0,
	NDDUP_TRIGGER_NOT_KEY_VALUE,	/* argument arg is not key=value */
	NDDUP_TRIGGER_UNKNOWN_KEY,	/* the first key_len bytes of argument arg */
	NDDUP_TRIGGER_DUPLICATE_KEY,	/* key is given twice */
	NDDUP_TRIGGER_METHOD,		/* unknown method= */
	NDDUP_TRIGGER_NOT_FOR_METHOD,	/* key does not apply to the method */
	NDDUP_TRIGGER_INTEGER,		/* key is not an integer in [min, max] */
	NDDUP_TRIGGER_THRESHOLD,	/* threshold= is not in (0, 1] */
	NDDUP_TRIGGER_ACTION,		/* unknown action= */
	NDDUP_TRIGGER_LOCK,			/* unknown lock= */
	NDDUP_TRIGGER_NO_COLUMN,	/* neither fingerprint= nor source= */
	NDDUP_TRIGGER_SOURCE_ONLY,	/* size=, unit=, weighting=, k= or filter=
								 * without source= */
	NDDUP_TRIGGER_UNIT,			/* unit= is not word or char */
	NDDUP_TRIGGER_WEIGHTING,	/* weighting= is not tf or set */
	NDDUP_TRIGGER_VISIBILITY,	/* visibility= is not caller or all */
	NDDUP_TRIGGER_VERIFY,		/* verify= is not in (0, 1] */
	NDDUP_TRIGGER_VERIFY_NO_VALUE,	/* verify= without source= or
									 * verify_column= */
	NDDUP_TRIGGER_MEASURE		/* measure= is not jaccard or containment */
} NddupTriggerCode;

#define NDDUP_TRIGGER_NCODES	18

typedef struct NddupTriggerError
{
	NddupTriggerCode code;
	int			arg;			/* NOT_KEY_VALUE, UNKNOWN_KEY: the argument */
	size_t		key_len;		/* UNKNOWN_KEY: the length of its key */
	NddupTriggerKey key;		/* DUPLICATE_KEY, NOT_FOR_METHOD, INTEGER */
	bool		not_number;		/* INTEGER, THRESHOLD, VERIFY: the value is no number
								 * at all (rather than out of range) */
	int32_t		min;			/* INTEGER: the range */
	int32_t		max;
} NddupTriggerError;

extern const char *const nddup_trigger_keys[NDDUP_TRIGGER_NKEYS];

/*
 * Three steps, in the order of the server's checks (it looks up the
 * extension's objects after the first and the columns after the second):
 * split key=value and read method=; read radius=, threshold=, action=,
 * lock=, visibility= and check a column is named; read the signature
 * parameters.
 */
extern NddupTriggerCode nddup_trigger_split(int nargs, char *const *args,
											NddupTriggerArgs *a,
											NddupTriggerError *err);
extern NddupTriggerCode nddup_trigger_check_params(NddupTriggerArgs *a,
												   NddupTriggerError *err);
extern NddupTriggerCode nddup_trigger_check_signature(NddupTriggerArgs *a,
													  NddupTriggerError *err);



#endif							/* NDDUP_CORE_H */
