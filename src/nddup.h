/*-------------------------------------------------------------------------
 *
 * nddup.h
 *	  Declarations shared by the server side of nddup: the SQL types and
 *	  functions, the index operator classes, the batch functions and the
 *	  trigger, all of which sit on the pure-C core (src/core/nddup_core.h).
 *
 * Include postgres.h first.
 *
 * Fingerprints are stored data: every function that computes one is a file
 * format.  Never change what these functions return for a given input;
 * add a new, versioned function instead.
 *
 *-------------------------------------------------------------------------
 */
#ifndef NDDUP_H
#define NDDUP_H

#include "core/nddup_core.h"

/* ----------------------------------------------------------------
 *		Server-side declarations
 * ----------------------------------------------------------------
 */

#include "fmgr.h"
#include "pg_compat.h"

/* simhash64 is a pass-by-value uint64 */
#define DatumGetSimhash64(X)	((uint64) DatumGetInt64(X))
#define Simhash64GetDatum(X)	Int64GetDatum((int64) (X))
#define PG_GETARG_SIMHASH64(n)	DatumGetSimhash64(PG_GETARG_DATUM(n))
#define PG_RETURN_SIMHASH64(x)	return Simhash64GetDatum(x)

/* Ask the CPU to load the cache line at p ahead of its use (GCC, Clang). */
#if defined(__GNUC__) || defined(__clang__)
#define nddup_prefetch(p)	__builtin_prefetch(p)
#else
#define nddup_prefetch(p)	((void) (p))
#endif

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

extern void nddup_check_radius(int32 radius);
extern HammingBall *nddup_make_ball(uint64 center, int32 radius);
extern Datum simhash64_in(PG_FUNCTION_ARGS);
extern Datum simhash64_out(PG_FUNCTION_ARGS);

/* text arguments converted to UTF-8 (src/types/text_sql.c) */
extern char *nddup_text_to_utf8(text *t, size_t *len);
extern void nddup_check_shingle_size(int32 size);
extern NddupUnit nddup_parse_unit(text *unit);
extern int	nddup_keyword_arg(text *t, const char *what, const char *const *names, int n,
							  bool icase, const char *hint);

/* the warning about radii that pair unrelated rows (src/batch/hamming/radius_warning.c) */
#define NDDUP_SHORT_TEXT_BYTES	64
extern bool nddup_warn_chance_pairs(const char *subject, double n, int radius,
									double avg_bytes, const char *hint);

/* options and settings of the hamming access method (src/index/hamming_handler.c) */
extern void nddup_hamming_am_init(void);

/* the settings (src/module.c) */
extern double nddup_similarity_threshold;
extern bool nddup_progress;
extern int nddup_batch_blocks;

/* shared by the sketch types (src/types/sketch_common.c) */
extern void nddup_check_threshold(double threshold);
extern const char *nddup_unit_name(int unit);
extern void nddup_collect_shingles(text *doc, int32 size, NddupUnit unit,
								   NddupHashes *hashes);
struct ArrayType;
extern struct ArrayType *nddup_int8_array(const uint64 *values, size_t n);
extern int64 *nddup_int8_array_values(struct ArrayType *array, const char *what,
									  int *n);

/* A minhash_sketch datum's k values, unpacked (palloc'd), and its shape. */
extern uint32 *nddup_minhash_datum_values(Datum sketch, int *k, int *bits,
										  bool *empty_doc);

/*
 * The sketches of shingle hashes, shared with the filtered constructors
 * (src/types/minhash_sql.c, shingleset_sql.c; callers in filter_sql.c).
 */
struct NddupMinhash;
struct NddupShingleSet;
extern struct NddupMinhash *nddup_minhash_of_hashes(const uint64 *items, size_t n,
													int method, int k, uint32 seed,
													int size, int unit);
extern int	nddup_minhash_check_args(text *method, int32 k, int32 seed);
/* simhash weighting 'set' (true) or 'tf' (false), 22023 otherwise (simhash_sql.c) */
extern bool nddup_parse_weighting_is_set(text *weighting);
extern struct NddupShingleSet *nddup_exact_shingleset(uint64 *items, size_t n,
													  int size, int unit);
/* Resemblance estimate of two minhash_sketch datums (22023 if incompatible). */
extern double nddup_minhash_datum_resemblance(Datum a, Datum b);

/* Fewest equal positions of k whose estimate reaches t (src/index/gin_sketch.c). */
extern int	nddup_minhash_min_equal(double t, int k, int bits);

/* A sketch's parameters as text, for error messages (src/types/shingleset_sql.c). */
struct NddupMinhash;
/* ... and as an injective number (src/index/gin_sketch.c). */
extern int64 nddup_minhash_params_code(const struct NddupMinhash *m);
extern char *nddup_minhash_describe(const struct NddupMinhash *m);
/*
 * Server side (src/types/simhash_type.c): the unread bytes of a receive function's
 * buffer, the errors that every type raises alike, and the NddupPrintf of
 * the output functions (arg a StringInfo).
 */
struct StringInfoData;
extern struct StringInfoData *nddup_recv_buffer(Datum arg, const uint8 **data,
												size_t *len);
extern void nddup_parse_error(const NddupParseError *err, const char *typname,
							  const char *str);
extern void nddup_string_info_printf(void *arg, const char *fmt,...)
			pg_attribute_printf(2, 3);

/* Citus's metadata (src/citus/citus_meta.c; callers are inside SPI) */
extern bool nddup_citus_installed(void);
extern bool nddup_citus_coordinator(void);
extern char nddup_citus_distribution(Oid relid, char **distcol);
extern bool nddup_citus_shard_of(Oid relid, Oid *logical);

#endif							/* NDDUP_H */
