/*-------------------------------------------------------------------------
 *
 * batch.h
 *	  The shared layer of the batch functions (src/batch/): one call's
 *	  budget, output and progress; the input rows, in memory or spilled to a
 *	  temporary file; sorting and partitioning of keyed records; union-find
 *	  and the naming of clusters.  The Hamming, min-hash, super-shingle and
 *	  shingle-set functions are candidate generators and verifiers on top of
 *	  it (docs/batch.md).
 *
 * The stages of every batch function:
 *
 *	 1. input: a query text or a relation, run through SPI with the caller's
 *		privileges (batch_input.c), rows into a BatchRows (batch_rows.c);
 *	 2. candidates: pairs of rows that share a key of some table (Manku's
 *		permuted tables, LSH bands, super-shingle positions, prefix tokens),
 *		found by sorting keyed records: in memory when they fit in work_mem,
 *		else partitioned into temporary files (batch_sort.c);
 *	 3. verification: the exact measure of each candidate (the method);
 *	 4. output: pairs into the result, or links of a union-find whose
 *		components are named after their earliest row (batch_cluster.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef NDDUP_BATCH_H
#define NDDUP_BATCH_H

#include "nddup.h"

#include "portability/instr_time.h"
#include "storage/buffile.h"
#include "utils/tuplestore.h"

/* What a call computes. */
typedef enum BatchMode
{
	BATCH_PAIRS,				/* all pairs of one input */
	BATCH_JOIN,					/* pairs (a, b), a from side 0, b from side 1 */
	BATCH_CLUSTER,				/* connected components of the pair graph */
	BATCH_ASSIGN				/* side 1 rows joined to side 0's clusters */
} BatchMode;

/* One call of a batch function. */
typedef struct BatchCall
{
	const char *fname;			/* SQL name, for messages */
	BatchMode	mode;
	bool		singletons;		/* clusters: report one-member clusters */
	bool		progress;		/* nddup.progress */
	MemoryContext cxt;			/* all working memory of the call */
	int64		mem_limit;		/* work_mem in bytes */
	Tuplestorestate *out;		/* the result */
	TupleDesc	outdesc;
	uint64		nout;
	uint64		ncand;			/* candidates verified */
	bool		greedy_clusters;	/* BATCH_CLUSTER: clusters without chains
									 * (batch_greedy.c), not components */
	struct BatchGreedy *greedy; /* while its pairs are found: pairs are
								 * edges of the greedy clustering */
	void		(*greedy_edge) (struct BatchCall *call, int64 a, int64 b);	/* takes them */
	int			next_pct;		/* next progress report, in % */
	instr_time	start;
} BatchCall;

extern BatchCall *batch_begin(FunctionCallInfo fcinfo, BatchMode mode,
							  const char *fname);
extern void batch_end(BatchCall *call);
extern double batch_elapsed_ms(const BatchCall *call);
extern void batch_report_progress(BatchCall *call, const char *what,
								  double done, double total);

/* Progress or debug message, depending on nddup.progress. */
#define batch_log(call, ...) \
	ereport((call)->progress ? NOTICE : DEBUG1, \
			(errmsg_internal(__VA_ARGS__)))

/* Progress or debug message whose DETAIL is the time since the start. */
#define batch_log_time(call, ...) \
	ereport((call)->progress ? NOTICE : DEBUG1, \
			(errmsg_internal(__VA_ARGS__), \
			 errdetail_internal("%.0f ms since the start.", batch_elapsed_ms(call))))

/* Result rows: (id1, id2, score) of pairs and joins, (id, cluster) of clusters. */
extern void batch_put_pair(BatchCall *call, int64 a, int64 b, Datum score);
extern void batch_put_ordered_pair(BatchCall *call, int64 a, int64 b, Datum score);
extern void batch_put_cluster(BatchCall *call, int64 id, int64 cluster);

/* Errors of memory budgets (53200), with a hint that works where typed. */
extern void batch_error_memory(BatchCall *call, const char *setting,
							   double need_bytes, const char *what);

/* ----------------------------------------------------------------
 *		Input (batch_input.c)
 *
 * A query text or a relation, run through SPI with the caller's
 * privileges, its columns checked by role before any row is read, the
 * rows taken from the executor's slots by a DestReceiver.
 * ----------------------------------------------------------------
 */
struct _SPI_plan;
struct _DestReceiver;
struct TupleTableSlot;

/* Column roles of a batch function's input query. */
typedef enum NddupColRole
{
	NDDUP_COL_ID,				/* smallint, integer or bigint */
	NDDUP_COL_CLUSTER,			/* smallint, integer or bigint */
	NDDUP_COL_ORDER,			/* integer types, date, timestamp(tz) */
	NDDUP_COL_SIMHASH,			/* simhash64 */
	NDDUP_COL_SKETCH,			/* minhash_sketch */
	NDDUP_COL_SUPER,			/* bigint[] */
	NDDUP_COL_SHINGLESET,		/* shingleset */
	NDDUP_COL_VERIFY			/* text, varchar, shingleset or minhash_sketch */
} NddupColRole;

#define NDDUP_INPUT_MAX_COLS	4

/* The checked columns of a prepared input query. */
typedef struct NddupInputCols
{
	int			natts;
	Oid			types[NDDUP_INPUT_MAX_COLS];	/* base types */
	NddupColRole roles[NDDUP_INPUT_MAX_COLS];
} NddupInputCols;

extern Oid	nddup_lookup_type(FunctionCallInfo fcinfo, const char *typname);
extern int64 nddup_datum_int64(Datum d, Oid type);
extern struct _SPI_plan *nddup_prepare_input(const char *fname,
											 const char *argname,
											 const char *query,
											 const NddupColRole *roles,
											 int nreq, int nroles,
											 Oid own_type, bool verify,
											 NddupInputCols *cols);
extern void nddup_init_receiver(struct _DestReceiver *r,
								bool (*receive) (struct TupleTableSlot *slot,
												 struct _DestReceiver *self));
extern void nddup_run_input(struct _SPI_plan *plan, struct _DestReceiver *dest);
extern void nddup_batch_decided_arg(FunctionCallInfo fcinfo, int argno,
									const char *fname, const char *method);
extern char *nddup_relation_query(const char *fname, Oid relid, Name idcol,
								  Name valcol, Name ordcol, Name verifycol,
								  const NddupColRole *roles, Oid own_type);

/* ----------------------------------------------------------------
 *		Input rows (batch_rows.c)
 *
 * Rows are numbered in arrival order.  Every row has an id, an optional
 * auxiliary integer (an order key, or an existing cluster id) that may be
 * NULL, a side (0, or 1 for the second input of a join), a flags byte of
 * the method's, and a payload of payload_size bytes (the fingerprint, the
 * min-hash values, ...).  They are kept in arrays while they fit in their
 * share of work_mem, and written to a temporary file of fixed-size records
 * beyond it, which the later stages read sequentially, as often as needed.
 * ----------------------------------------------------------------
 */
#define BATCH_ROW_SIDE1			0x01	/* flags: a row of the second input */
#define BATCH_ROW_AUXNULL		0x02	/* flags: the auxiliary value is NULL */
#define BATCH_ROW_METHOD		0x04	/* first flag bit free for the method */
#define BATCH_ROW_VERIFY_EMPTY	0x80	/* flags: its verification value has no
										 * shingles */

typedef struct BatchRows
{
	BatchCall  *call;
	int			payload_size;	/* bytes of every row's fixed payload */
	bool		has_extra;		/* rows also have an extra part of their own
								 * length */
	int64		mem_limit;		/* bytes the arrays may take */
	int			bytes_per_row;	/* what a row costs in memory, measured */
	uint64		nrows;
	uint64		nside0;			/* rows of side 0 (they come first) */
	uint64		nskipped;		/* rows with a NULL id or value */
	bool		has_aux;
	bool		ids_ascending;	/* ids arrived strictly ascending */
	int64		last_id;
	uint64		readpos;		/* next row batch_rows_next returns */
	/* in memory */
	uint64		cap;
	int64	   *id;
	int64	   *aux;
	uint8	   *flags;
	char	   *payload;
	uint64	   *offsets;		/* extra part of row i at [offsets[i],
								 * offsets[i + 1]) of arena */
	char	   *arena;
	uint64		arena_used;
	uint64		arena_cap;
	/* spilled */
	bool		spilled;
	BufFile    *file;
	int			record_size;	/* id, aux, flags, payload */
	char	   *record;			/* one record being written or read */
	char	   *extrabuf;		/* the extra part read back */
	uint64		extrabuf_cap;
} BatchRows;

/* A row read back from a spilled store. */
typedef struct BatchRow
{
	uint32		row;
	int64		id;
	int64		aux;
	uint8		flags;
	const char *payload;		/* the fixed payload */
	const char *extra;			/* the extra part, extra_len bytes */
	uint32		extra_len;
} BatchRow;

extern void batch_rows_init(BatchRows *rows, BatchCall *call, int payload_size,
							int bytes_per_row, int64 mem_limit);
extern void batch_rows_use_extra(BatchRows *rows);
extern void batch_rows_use_aux(BatchRows *rows);
extern void batch_rows_add_extra(BatchRows *rows, int64 id, int64 aux, bool auxnull,
								 int side, uint8 flags, const void *payload,
								 const void *extra, uint32 len);
extern void batch_rows_add(BatchRows *rows, int64 id, int64 aux, bool auxnull,
						   int side, uint8 flags, const void *payload);
extern void batch_rows_spill(BatchRows *rows);
extern void batch_rows_rewind(BatchRows *rows);
extern bool batch_rows_next(BatchRows *rows, BatchRow *row);
extern void batch_rows_fetch(BatchRows *rows, uint32 r, BatchRow *row);
extern void batch_rows_free(BatchRows *rows);

/* Is bit i of a bitmap set? */
static inline bool
batch_bit_is_set(const uint8 *bits, uint64 i)
{
	return (bits[i / 8] & (1 << (i % 8))) != 0;
}

/* Set bit i of a bitmap. */
static inline void
batch_bit_set(uint8 *bits, uint64 i)
{
	bits[i / 8] |= (uint8) (1 << (i % 8));
}

/* The extra part of row i of rows held in memory, and its length. */
static inline const char *
batch_rows_extra(const BatchRows *rows, uint64 i, uint32 *len)
{
	*len = (uint32) (rows->offsets[i + 1] - rows->offsets[i]);
	return rows->arena + rows->offsets[i];
}

/* Is row a an earlier representative than row b (order key, then id)? */
static inline bool
batch_row_before(const BatchRows *rows, uint32 a, uint32 b)
{
	if (rows->has_aux)
	{
		bool		na = (rows->flags[a] & BATCH_ROW_AUXNULL) != 0;
		bool		nb = (rows->flags[b] & BATCH_ROW_AUXNULL) != 0;

		if (na != nb)
			return !na;			/* NULL order keys last */
		if (!na && rows->aux[a] != rows->aux[b])
			return rows->aux[a] < rows->aux[b];
	}
	return rows->id[a] < rows->id[b];
}

/* ----------------------------------------------------------------
 *		Sorting and partitioning keyed records (batch_sort.c)
 * ----------------------------------------------------------------
 */

/* A 16-byte record sorted by its key: (key, value). */
typedef struct BatchRec
{
	uint64		key;
	uint64		val;
} BatchRec;

extern BatchRec *batch_radix_sort(BatchRec *a, BatchRec *tmp, uint64 n);
extern BatchRec *batch_sort_by_key(BatchRec *a, BatchRec *tmp, uint64 n);
extern uint64 *batch_radix_sort_top(uint64 *a, uint64 *tmp, uint64 n, int bits);
extern void batch_sort_recs_in_place(BatchRec *a, uint64 n, int skip);
extern void batch_sort_keys_in_place(uint64 *a, uint64 n, int skip);
extern void batch_scatter_sort(const char *a, char *tmp, uint64 n, int skip, int rs);

/* The sort key of a record: its first 8 bytes. */
static inline uint64
batch_record_key(const char *record)
{
	uint64		key;

	memcpy(&key, record, sizeof(uint64));
	return key;
}

/*
 * Records of a fixed size whose first 8 bytes are an unsigned sort key,
 * distributed into temporary files by the top bits of the key (one pass),
 * then read back partition by partition: each partition fits in memory,
 * so it is sorted there (the map and reduce of Manku et al. s.4, with
 * files instead of machines).  A partition that turns out larger than its
 * share is split again by the next bits of the key.
 */
typedef struct BatchPartitions
{
	BatchCall  *call;
	int			record_size;
	int64		mem_limit;		/* bytes a partition may take in memory */
	int			bits;			/* partitions: 2^bits, by the top bits */
	int			shift;			/* top bits already fixed (recursion) */
	int			key_bits;		/* top bits of the key that make a run */
	BufFile   **files;
	uint64	   *counts;
	uint64	   *bytes;			/* varlen (record_size 0): bytes written */
	uint64		total;
	char	   *stage;			/* small records gathered per partition */
	uint32	   *staged;			/* bytes gathered per partition */
	struct BatchPartitions *root;	/* the first level (itself, or split from) */
	bool		more_of_key;	/* root: during a call, the last key's
								 * records go on in the next call */
	bool		keep_buffers;	/* the sort buffers serve every partition */
	char	   *kept[2];		/* they (read, sorted copy) */
} BatchPartitions;

extern void batch_error_run_too_large(BatchCall *call, uint64 n, int rs);
extern void batch_file_rewind(BufFile *file);
extern void batch_file_read(BufFile *file, void *buf, size_t size);
extern BatchPartitions *batch_partitions_begin(BatchCall *call, int record_size,
											   uint64 expected, int64 mem_limit);
extern BatchPartitions *batch_partitions_begin_prefix(BatchCall *call,
													  int record_size,
													  uint64 expected,
													  int64 mem_limit,
													  int key_bits);
extern BatchPartitions *batch_partitions_begin_wide(BatchCall *call,
													int record_size,
													uint64 expected,
													int64 mem_limit,
													int key_bits);
extern uint64 batch_partitions_capacity(int record_size, int64 mem_limit);
extern void batch_partitions_put(BatchPartitions *parts, const void *record);
extern void batch_partitions_flush_stage(BatchPartitions *parts, uint64 p);

/*
 * Bytes of small fixed-size records gathered per partition before they go
 * to its file in one write (a write call per 16-byte record costs more
 * than the copy).
 */
#define BATCH_STAGE_BYTES		1024

/*
 * batch_partitions_put of a BatchRec into first-level partitions of
 * 16-byte records (batch_partitions_begin_wide's), inlined for the loops
 * that enter every row into every table.
 */
static inline void
batch_partitions_put_rec(BatchPartitions *parts, const BatchRec *rec)
{
	uint64		p = rec->key >> (64 - parts->bits);

	Assert(parts->record_size == sizeof(BatchRec) && parts->shift == 0 &&
		   parts->stage != NULL && parts->bits >= 1);
	if (parts->staged[p] + sizeof(BatchRec) > BATCH_STAGE_BYTES)
		batch_partitions_flush_stage(parts, p);
	memcpy(parts->stage + p * BATCH_STAGE_BYTES + parts->staged[p], rec,
		   sizeof(BatchRec));
	parts->staged[p] += sizeof(BatchRec);
	parts->counts[p]++;
	parts->total++;
}

/*
 * Called with records sorted by key (consecutive in memory, count of them),
 * partition after partition, so that all records arrive in key order; the
 * records of one key in insertion order, except records of 16 bytes (sorted
 * in place as BatchRecs, by their second 8 bytes then).  The
 * records of one key come in one call when whole_runs is asked for;
 * otherwise a key with more records than the limit holds comes in several
 * consecutive calls, and the callback keeps the state of its current key
 * (the first level's more_of_key is true during every call but the last).
 */
typedef void (*BatchRunsCallback) (void *arg, char *records, uint64 count);

extern void batch_partitions_sort_each(BatchPartitions *parts,
									   BatchRunsCallback callback, void *arg,
									   bool whole_runs);
extern void batch_partitions_end(BatchPartitions *parts);

/*
 * Partitions of records of their own lengths (the first 8 bytes of each
 * still its key), handed to the callback as pointers, in key order; a key
 * with more records than the limit holds may come in several calls.
 */
typedef void (*BatchVarRunsCallback) (void *arg, char **records,
									  const uint32 *lens, uint64 count);

extern BatchPartitions *batch_partitions_begin_var(BatchCall *call,
												   double expected_bytes,
												   int64 mem_limit);
extern void batch_partitions_put_var(BatchPartitions *parts, const void *record,
									 uint32 len);
extern void batch_partitions_sort_each_var(BatchPartitions *parts,
										   BatchVarRunsCallback callback,
										   void *arg);

/* ----------------------------------------------------------------
 *		Verified candidates (batch_verify.c)
 * ----------------------------------------------------------------
 */
typedef enum BatchVerifyKind
{
	VERIFY_SETS,				/* exact Jaccard of shingle hashes */
	VERIFY_SKETCH				/* estimate of min-hash values */
} BatchVerifyKind;

typedef struct BatchVerify
{
	BatchCall  *call;
	bool		active;			/* verify => t was given */
	double		threshold;
	Oid			set_type;		/* the extension's shingleset, minhash_sketch */
	Oid			sketch_type;
	BatchVerifyKind kind;
	bool		have_params;	/* of the first value: alike after it */
	uint8		set_size;
	uint8		set_unit;
	uint8		sketch_method;
	uint8		sketch_bits;
	uint16		sketch_k;
	uint32		sketch_seed;
	char	   *buf;			/* the reduced value being stored */
	size_t		bufcap;
} BatchVerify;

extern void batch_verify_init(BatchVerify *v, BatchCall *call, bool active,
							  double threshold, Oid set_type, Oid sketch_type);
extern const char *batch_verify_reduce(BatchVerify *v, Datum value, Oid type,
									   uint32 *len, uint8 *flags);
extern bool batch_verify_query_arg(FunctionCallInfo fcinfo, int i, double *threshold);
extern Name batch_verify_relation_args(FunctionCallInfo fcinfo, const char *fname,
									   int colarg, double *threshold);
extern bool batch_verify_pair(BatchVerify *v, const char *a, uint32 alen, uint8 fa,
							  const char *b, uint32 blen, uint8 fb,
							  double *similarity);

/* ----------------------------------------------------------------
 *		Candidate pairs of spilled rows and their verification
 *		(batch_pairs.c)
 * ----------------------------------------------------------------
 */

/*
 * The first row of a candidate pair, as the second merge carries it: a row
 * without its aux value (0).
 */
typedef BatchRow BatchCarried;

/* Called with each distinct candidate (x carried, y read back). */
typedef void (*BatchVerifyCallback) (void *arg, const BatchCarried *x,
									 const BatchRow *y);

typedef struct BatchPairSet
{
	BatchCall  *call;
	BatchRows  *rows;
	int			xbits;			/* bits of a row number in a pair key */
	BatchPartitions *pairs;		/* candidate pair keys */
	BatchPartitions *carried;	/* re-keyed by (y, x), with x's payload */
	BatchVerifyCallback verify;
	void	   *arg;
	BatchRow	cursor;			/* the row stream of a merge */
	bool		cursor_valid;
	uint64		last_key;		/* to drop repeated candidates */
	bool		have_last;
	char	   *carry;			/* a carried record being built */
	uint64		carry_cap;
} BatchPairSet;

extern BatchPairSet *batch_pairs_begin(BatchRows *rows);
extern void batch_pairs_add(BatchPairSet *ps, uint32 a, uint32 b);
extern void batch_pairs_verify(BatchPairSet *ps, BatchVerifyCallback verify,
							   void *arg);

/* Called with each pair of rows carrying a flag (ids and flags). */
typedef void (*BatchFlaggedCallback) (void *arg, int64 ida, uint8 fa,
									  int64 idb, uint8 fb);

struct BatchUnionFind;
extern void batch_pairs_of_flagged(BatchRows *rows, uint8 flag,
								   struct BatchUnionFind *uf,
								   BatchFlaggedCallback found, void *arg);

/* ----------------------------------------------------------------
 *		Union-find and clusters (batch_cluster.c)
 * ----------------------------------------------------------------
 */

/* A union-find over rows, by rank, with path halving. */
typedef struct BatchUnionFind
{
	uint64		n;
	uint32	   *parent;
	uint8	   *rank;
} BatchUnionFind;

extern void batch_uf_init(BatchCall *call, BatchUnionFind *uf, uint64 n,
						  const char *setting);

/* Root of x, halving the path on the way. */
static inline uint32
batch_uf_find(BatchUnionFind *uf, uint32 x)
{
	uint32	   *parent = uf->parent;

	while (parent[x] != x)
	{
		parent[x] = parent[parent[x]];
		x = parent[x];
	}
	return x;
}

/* Merge the sets of a and b (union by rank); true if they were apart. */
static inline bool
batch_uf_union(BatchUnionFind *uf, uint32 a, uint32 b)
{
	a = batch_uf_find(uf, a);
	b = batch_uf_find(uf, b);
	if (a == b)
		return false;
	if (uf->rank[a] < uf->rank[b])
	{
		uint32		t = a;

		a = b;
		b = t;
	}
	uf->parent[b] = a;
	if (uf->rank[a] == uf->rank[b])
		uf->rank[a]++;
	return true;
}

extern void batch_finish_clusters(BatchRows *rows, BatchUnionFind *uf);

/* Clusters without chains (batch_greedy.c) */
extern bool batch_parse_cluster_mode(text *mode);
extern bool batch_cluster_mode_arg(FunctionCallInfo fcinfo, int argno, bool *greedy);
extern void batch_greedy_begin(BatchRows *rows);
extern void batch_greedy_edge(BatchCall *call, int64 a, int64 b);
extern void batch_greedy_same(BatchCall *call, int64 a, int64 b);
extern void batch_greedy_finish(BatchRows *rows);
extern void batch_greedy_pass(const BatchRec *recs, uint64 count, uint32 *orig);

#endif							/* NDDUP_BATCH_H */
