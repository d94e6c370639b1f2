/*-------------------------------------------------------------------------
 *
 * nddup.h
 *	  Declarations shared by all nddup source files.
 *
 * The first part is the pure-C core (text normalization, tokenization,
 * shingling, hashing, simhash): it includes no PostgreSQL header, so it is
 * compiled and tested outside the server as well (test/unit).  The second
 * part, guarded by PG_VERSION_NUM, is visible only to the server-side files,
 * which include postgres.h first.
 *
 * Fingerprints are stored data: every function that computes one is a file
 * format.  Never change what these functions return for a given input;
 * add a new, versioned function instead.
 *
 *-------------------------------------------------------------------------
 */
#ifndef NDDUP_H
#define NDDUP_H

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
 * Memory hooks of the core.  Outside the server they are malloc/realloc/free
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
	NDDUP_UNIT_CHAR = 1
} NddupUnit;

/* Called once per token with the token's UTF-8 bytes. */
typedef void (*NddupTokenCallback) (void *arg, const char *token, size_t len);

/* Called once per shingle with the shingle's 64-bit hash. */
typedef void (*NddupHashCallback) (void *arg, uint64_t hash);

/* Called with the next n (>= 1) shingle hashes, in text order. */
typedef void (*NddupHashBatchCallback) (void *arg, const uint64_t *hashes,
										size_t n);

/* buffers (src/buffers.c) */
extern void nddup_buf_reserve(NddupBuf *buf, size_t extra);
extern void nddup_buf_append(NddupBuf *buf, const char *bytes, size_t len);
extern void nddup_buf_free(NddupBuf *buf);
extern void nddup_hashes_push(NddupHashes *hashes, uint64_t hash);
/* array size (hashes) from which nddup_hashes_push_distinct deduplicates */
#define NDDUP_DISTINCT_COMPACT	(1 << 20)
extern void nddup_hashes_push_distinct(NddupHashes *hashes, uint64_t hash);
/* an NddupHashBatchCallback: append the batch to the NddupHashes arg */
extern void nddup_hashes_append(void *hashes, const uint64_t *items, size_t n);
/* the same, nddup_hashes_push_distinct for each (order and repeats do not matter) */
extern void nddup_hashes_append_distinct(void *hashes, const uint64_t *items, size_t n);
extern void nddup_hashes_free(NddupHashes *hashes);

/* normalization (src/normalize.c) */
extern void nddup_normalize(const char *src, size_t len, NddupBuf *out);
extern const char *nddup_unicode_version(void);
/* NFKC alone (UTF-8 in and out, no markup, folding or word splitting): tests */
extern void nddup_nfkc(const char *src, size_t len, NddupBuf *out);
/* pieces of nddup_normalize for the one-pass tokenizer of src/tokenize.c */
extern size_t nddup_normalize_part(const char *src, size_t len, size_t from,
								   size_t stop_after, NddupBuf *out,
								   const char **no_gt_from);
extern size_t nddup_markup_length(const char *p, const char *end,
								  bool *separator, const char **no_gt_from);
extern int	nddup_char_reference(const char *p, const char *end,
								 uint32_t cps[2], size_t *consumed);

/* tokenization and shingling (src/tokenize.c) */
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

/* simhash accumulation (src/simhash.c), Charikar 2002; Manku et al. 2007 s.2 */
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

/* ----------------------------------------------------------------
 *		Server-side declarations
 * ----------------------------------------------------------------
 */
#ifdef PG_VERSION_NUM

#include "fmgr.h"

/* simhash64 is a pass-by-value uint64 */
#define DatumGetSimhash64(X)	((uint64) DatumGetInt64(X))
#define Simhash64GetDatum(X)	Int64GetDatum((int64) (X))
#define PG_GETARG_SIMHASH64(n)	DatumGetSimhash64(PG_GETARG_DATUM(n))
#define PG_RETURN_SIMHASH64(x)	return Simhash64GetDatum(x)

/*
 * hamming_ball: the set of fingerprints within radius bits of center; the
 * query operand of simhash64 <@ hamming_ball (fixed length, by reference).
 */
typedef struct HammingBall
{
	uint64		center;
	int32		radius;
	int32		padding;		/* always zero */
} HammingBall;

extern HammingBall *nddup_make_ball(uint64 center, int32 radius);
struct StringInfoData;
extern struct StringInfoData *nddup_recv_buffer(Datum arg, int need, const char *typname);
extern Datum simhash64_in(PG_FUNCTION_ARGS);
extern Datum simhash64_out(PG_FUNCTION_ARGS);

/* text arguments converted to UTF-8 (src/text_sql.c) */
extern char *nddup_text_to_utf8(text *t, size_t *len);
extern void nddup_check_shingle_size(int32 size);
extern NddupUnit nddup_parse_unit(text *unit);

#endif							/* PG_VERSION_NUM */

/* ----------------------------------------------------------------
 *		Sketches (src/minhash.c, src/sketch_sql.c, src/imatch.c)
 *
 * Pure-C part: min-hash sketches (k-permutation, and one-permutation
 * hashing with optimal densification), b-bit packing, super-shingles,
 * and sorted sets of 64-bit shingle hashes.  See docs/sketches.md.
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

/* sorted sets of 64-bit hashes (unsigned order) */
extern size_t nddup_sort_unique(uint64_t *items, size_t n);
extern size_t nddup_filter_mod(uint64_t *items, size_t n, uint64_t m);
extern size_t nddup_intersection_count(const uint64_t *a, size_t na,
									   const uint64_t *b, size_t nb);
extern void nddup_bottom_s_compare(const uint64_t *a, size_t na,
								   const uint64_t *b, size_t nb, size_t s,
								   size_t *common, size_t *total);
extern bool nddup_sorted_contains(const uint64_t *items, size_t n, uint64_t x);

#ifdef PG_VERSION_NUM
/* Default of nddup.similarity_threshold and of the trigger's threshold=. */
#define NDDUP_DEFAULT_SIMILARITY_THRESHOLD	0.3

/* GUC nddup.similarity_threshold (src/sketch_sql.c); call from _PG_init */
extern void nddup_sketch_init(void);

/* A minhash_sketch datum's k values, unpacked (palloc'd), and its shape. */
extern uint32 *nddup_minhash_datum_values(Datum sketch, int *k, int *bits,
										  bool *empty_doc);

/* Resemblance estimate of two minhash_sketch datums (22023 if incompatible). */
extern double nddup_minhash_datum_resemblance(Datum a, Datum b);

/* Fewest equal positions of k whose estimate reaches t (src/gin_sketch.c). */
extern int	nddup_minhash_min_equal(double t, int k, int bits);
#endif

/* ---------------- end of sketches ---------------- */

#endif							/* NDDUP_H */
