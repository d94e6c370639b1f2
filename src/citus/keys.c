/*-------------------------------------------------------------------------
 *
 * keys.c
 *	  Equi-join keys of near-duplicates, so that an engine that only
 *	  repartitions by equality (Citus, or any hash join) can find them:
 *
 *	  hamming_block_keys(fp, radius, blocks)	  the block keys of a fingerprint
 *	  hamming_pair_key(fp1, fp2, radius, blocks)  the key a pair is found under
 *	  minhash_band_keys(sketch, threshold, ...)   the band keys of a sketch
 *	  minhash_pair_band_key(a, b, threshold, ...) the band a pair is found under
 *
 *	  and the worker side of the distributed hamming_* functions,
 *	  nddup_hamming_key_group(), which finds the pairs of one key group.
 *
 * Block keys (Manku, Jain and Das Sarma, WWW 2007, s.3, and s.4 for the
 * map-reduce form): the 64 bits are cut into m blocks (m = radius + 1 by
 * default); two fingerprints within k bits agree on at least c = m - k
 * blocks (pigeonhole), so the first block on which they agree, a, is at
 * most k.  A fingerprint has one key per block a = 0..k: the block number
 * and the block's bits.  Two fingerprints within k share at least the key
 * of their first agreeing block, and hamming_pair_key() names that key, so
 * a self-join on equal keys that keeps a pair only under that key reports
 * each pair exactly once (the rule of src/batch/batch.c: a pair belongs to
 * the first blocks it agrees on).
 *
 * With m > k + 1 the groups of equal keys are larger (shorter blocks), and
 * nddup_hamming_key_group() searches a group with the remaining permuted
 * tables: for each choice T of c - 1 blocks after a, the group's distinct
 * fingerprints are sorted by the bits of T and compared inside runs; a pair
 * is kept when {a} and T are the first c blocks it agrees on.  Over all
 * groups and choices this is exactly the table set C(m, c) of the local
 * batch search, so the work is the same, spread over the key groups.
 *
 * Band keys (Broder et al. 1997 s.3 with a band of r min-hash values as the
 * shingle; the exact banding of src/batch/batch_sketch.c): the k positions
 * are cut into b bands of r positions; with E_min the fewest equal
 * positions whose estimate reaches the threshold, b = k - E_min + 1 bands
 * guarantee that every pair at or above the threshold is equal on at least
 * one whole band.  A key is a hash of the band number and the band's values.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "batch/batch.h"
#include "citus/distributed.h"

#include "catalog/pg_type.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/tuplestore.h"

PG_FUNCTION_INFO_V1(hamming_block_keys);
PG_FUNCTION_INFO_V1(hamming_pair_key);
PG_FUNCTION_INFO_V1(minhash_band_keys);
PG_FUNCTION_INFO_V1(minhash_pair_band_key);
PG_FUNCTION_INFO_V1(nddup_hamming_key_group);
PG_FUNCTION_INFO_V1(nddup_minhash_params);

/* Key of the sketches of documents without shingles ("EMPTYDOC"). */
#define EMPTY_DOC_KEY		INT64CONST(0x454D505459444F43)

/* Modes of nddup_hamming_key_group (distributed.c passes them). */
#define GROUP_PAIRS			0	/* every pair (or every (a, b) of a join) */
#define GROUP_EDGES			1	/* a spanning forest of the pairs */

/* ----------------------------------------------------------------
 *		Block layout
 * ----------------------------------------------------------------
 */

/*
 * Fill the layout of m blocks for radius k (blocks = 0: k + 1).  Raises
 * 22023 for a radius outside 0..63 or a number of blocks outside k+1..64.
 */
void
nddup_blocks_init(NddupBlocks *L, int radius, int blocks)
{
	int			small;
	int			nbig;
	int			pos = 0;

	if (radius < 0 || radius > 63)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("radius %d is out of range for block keys", radius),
				 errdetail("Block keys exist for radii 0 to 63; at radius 64 every pair is within the radius.")));
	if (blocks == 0)
		blocks = radius + 1;
	if (blocks <= radius || blocks > 64)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("number of blocks %d is out of range for radius %d", blocks, radius),
				 errdetail("It must be between the radius + 1 and 64.")));
	L->m = blocks;
	L->k = radius;
	L->c = blocks - radius;
	small = 64 / blocks;
	nbig = 64 % blocks;
	for (int b = 0; b < blocks; b++)
	{
		int			size = small + (b < nbig ? 1 : 0);
		uint64		low = size >= 64 ? ~UINT64CONST(0) : (UINT64CONST(1) << size) - 1;

		L->bsize[b] = size;
		L->bshift[b] = 64 - pos - size;
		L->bmask[b] = low << L->bshift[b];
		pos += size;
	}
}

/*
 * Key of block a of fp: the block number in bits 57-62 and the block's bits
 * below (blocks have at most 32 bits when m >= 2); with one block the key
 * is the fingerprint itself.
 */
uint64
nddup_block_key(const NddupBlocks *L, int a, uint64 fp)
{
	if (L->m == 1)
		return fp;
	return ((uint64) a << 57) | ((fp & L->bmask[a]) >> L->bshift[a]);
}

/* The block number a key belongs to. */
int
nddup_block_of_key(const NddupBlocks *L, uint64 key)
{
	return L->m == 1 ? 0 : (int) (key >> 57);
}

/* The first block on which a pair with XOR x agrees, or -1. */
int
nddup_first_agreeing_block(const NddupBlocks *L, uint64 x)
{
	for (int b = 0; b < L->m; b++)
		if ((x & L->bmask[b]) == 0)
			return b;
	return -1;
}

/* The optional blocks argument: NULL or 0 = radius + 1. */
static int
blocks_arg(FunctionCallInfo fcinfo, int argno)
{
	return PG_ARGISNULL(argno) ? 0 : PG_GETARG_INT32(argno);
}

/*
 * hamming_block_keys(fp simhash64, radius int, blocks int): one key per
 * block a = 0..radius of the layout of m blocks (see the file header).
 */
Datum
hamming_block_keys(PG_FUNCTION_ARGS)
{
	NddupBlocks L;
	uint64		fp;
	uint64		keys[64];

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		PG_RETURN_NULL();
	fp = PG_GETARG_SIMHASH64(0);
	nddup_blocks_init(&L, PG_GETARG_INT32(1), blocks_arg(fcinfo, 2));
	for (int a = 0; a <= L.k; a++)
		keys[a] = nddup_block_key(&L, a, fp);
	PG_RETURN_ARRAYTYPE_P(nddup_int8_array(keys, L.k + 1));
}

/*
 * hamming_pair_key(fp1, fp2, radius, blocks): the key of the first block on
 * which the two fingerprints agree when they are within radius bits, else
 * NULL.  A self-join on equal block keys that keeps a pair only when its
 * key is this one reports each pair once.
 */
Datum
hamming_pair_key(PG_FUNCTION_ARGS)
{
	NddupBlocks L;
	uint64		fp1;
	uint64		x;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2))
		PG_RETURN_NULL();
	fp1 = PG_GETARG_SIMHASH64(0);
	x = fp1 ^ PG_GETARG_SIMHASH64(1);
	nddup_blocks_init(&L, PG_GETARG_INT32(2), blocks_arg(fcinfo, 3));
	if (__builtin_popcountll(x) > L.k)
		PG_RETURN_NULL();
	PG_RETURN_INT64((int64) nddup_block_key(&L, nddup_first_agreeing_block(&L, x), fp1));
}

/* ----------------------------------------------------------------
 *		Band keys of min-hash sketches
 * ----------------------------------------------------------------
 */

/* The band layout of a threshold: as batch_sketch.c chooses it. */
typedef struct BandLayout
{
	int			emin;			/* fewest equal positions of a result */
	int			bands;
	int			rows;
} BandLayout;

/*
 * Bands and rows for sketches of k values of the given width: b = k - E_min
 * + 1 and r = floor(k / b) unless given (then b * r <= k; one of them alone
 * gives the other as floor(k / given)).  Raises 22023 when the threshold is
 * outside [0, 1], is met by every pair, or the layout does not fit.  bands
 * and rows are 0 (choose) or between 1 and 1024 (band_arg).
 */
static void
band_layout(double threshold, int k, int bits, int64 bands, int64 rows,
			BandLayout *lay)
{
	if (isnan(threshold) || threshold < 0.0 || threshold > 1.0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("similarity threshold %g is out of range", threshold),
				 errdetail("The threshold must be between 0 and 1.")));
	lay->emin = k;
	for (int e = 0; e <= k; e++)
		if (nddup_minhash_estimate(e, k, bits) >= threshold)
		{
			lay->emin = e;
			break;
		}
	if (lay->emin == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("threshold %g is met by every pair of sketches, which have no band keys for it",
						threshold),
				 errhint("Compare all pairs instead, for example with minhash_pairs().")));
	if (bands == 0 && rows == 0)
	{
		lay->bands = k - lay->emin + 1;
		lay->rows = k / lay->bands;
		return;
	}
	if (bands == 0)
		bands = k / rows;
	if (rows == 0)
		rows = k / bands;
	if (bands < 1 || rows < 1 || bands * rows > k)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%d bands of %d rows do not fit in sketches of k=%d values",
						(int) bands, (int) rows, k),
				 errdetail("bands * rows must be at most k.")));
	lay->bands = (int) bands;
	lay->rows = (int) rows;
}

/* Key of band j of the values: a hash of j and the band's r values. */
static int64
band_key(const uint32 *values, int j, int rows)
{
	uint32		buf[1 + 1024];

	buf[0] = (uint32) j;
	memcpy(buf + 1, values + (size_t) j * rows, sizeof(uint32) * rows);
	return (int64) nddup_hash_bytes((const char *) buf, sizeof(uint32) * (rows + 1));
}

/*
 * The optional bands or rows argument: NULL = 0 = choose; a value given must
 * be between 1 and 1024 (the messages of the batch functions).
 */
static int64
band_arg(FunctionCallInfo fcinfo, int argno, const char *what)
{
	int64		v;

	if (PG_ARGISNULL(argno))
		return 0;
	v = PG_GETARG_INT64(argno);
	if (v < 1 || v > NDDUP_MINHASH_MAX_K)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("number of %s %lld is out of range", what, (long long) v),
				 errdetail("It must be between 1 and %d.", NDDUP_MINHASH_MAX_K)));
	return v;
}

/*
 * minhash_band_keys(sketch, threshold, bands, rows): one key per band of
 * the exact layout for the threshold (or of the layout given); a sketch of
 * a document without shingles has one key, shared by all such sketches.
 */
Datum
minhash_band_keys(PG_FUNCTION_ARGS)
{
	int			k;
	int			bits;
	bool		empty_doc;
	uint32	   *values;
	BandLayout	lay;
	uint64	   *keys;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		PG_RETURN_NULL();
	values = nddup_minhash_datum_values(PG_GETARG_DATUM(0), &k, &bits, &empty_doc);
	band_layout(PG_GETARG_FLOAT8(1), k, bits, band_arg(fcinfo, 2, "bands"),
				band_arg(fcinfo, 3, "rows per band"), &lay);
	if (empty_doc)
	{
		uint64		key = (uint64) EMPTY_DOC_KEY;

		PG_RETURN_ARRAYTYPE_P(nddup_int8_array(&key, 1));
	}
	keys = palloc(sizeof(uint64) * lay.bands);
	for (int j = 0; j < lay.bands; j++)
		keys[j] = (uint64) band_key(values, j, lay.rows);
	PG_RETURN_ARRAYTYPE_P(nddup_int8_array(keys, lay.bands));
}

/*
 * minhash_pair_band_key(a, b, threshold, bands, rows): when the estimated
 * resemblance of a and b reaches the threshold and they are equal on a
 * whole band, the key of the first such band; else NULL.  Sketches with
 * other parameters raise 22023, as jaccard() does.
 */
Datum
minhash_pair_band_key(PG_FUNCTION_ARGS)
{
	int			k;
	int			bits;
	bool		empty_a;
	bool		empty_b;
	uint32	   *va;
	uint32	   *vb;
	BandLayout	lay;
	double		threshold;
	double		res;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2))
		PG_RETURN_NULL();
	threshold = PG_GETARG_FLOAT8(2);
	res = nddup_minhash_datum_resemblance(PG_GETARG_DATUM(0), PG_GETARG_DATUM(1));
	va = nddup_minhash_datum_values(PG_GETARG_DATUM(0), &k, &bits, &empty_a);
	vb = nddup_minhash_datum_values(PG_GETARG_DATUM(1), &k, &bits, &empty_b);
	band_layout(threshold, k, bits, band_arg(fcinfo, 3, "bands"),
				band_arg(fcinfo, 4, "rows per band"), &lay);
	if (res < threshold)
		PG_RETURN_NULL();
	if (empty_a || empty_b)
		PG_RETURN_INT64(EMPTY_DOC_KEY);	/* both: resemblance 1 */
	for (int j = 0; j < lay.bands; j++)
	{
		const uint32 *a = va + (size_t) j * lay.rows;
		const uint32 *b = vb + (size_t) j * lay.rows;

		if (memcmp(a, b, sizeof(uint32) * lay.rows) == 0)
			PG_RETURN_INT64(band_key(va, j, lay.rows));
	}
	PG_RETURN_NULL();
}

/*
 * nddup_minhash_params(sketch): the sketch's parameters (method, k, seed,
 * shingle size, unit, bit width) as one number; two sketches can be
 * compared when their numbers are equal.  Internal to the distributed
 * min-hash functions, which check that an input has one parameter set.
 */
Datum
nddup_minhash_params(PG_FUNCTION_ARGS)
{
	NddupMinhash *m = (NddupMinhash *) PG_DETOAST_DATUM_SLICE(PG_GETARG_DATUM(0), 0,
															  NDDUP_MINHASH_HDRSZ);

	PG_RETURN_INT64(nddup_minhash_params_code(m));
}

/* ----------------------------------------------------------------
 *		One key group of the distributed hamming functions
 * ----------------------------------------------------------------
 */

/* Everything the search of one group works on. */
typedef struct KeyGroup
{
	NddupBlocks L;
	int			a;				/* the block of the group's key */
	int			mode;
	uint32		nrows;
	const uint64 *fp;			/* per row */
	const int16 *side;			/* per row, or NULL (not a join) */
	uint32		ndistinct;
	uint64	   *dfp;			/* distinct fingerprints */
	uint32	   *dstart;			/* rows of u: drow[dstart[u]..dstart[u+1]) */
	uint32	   *drow;
	BatchUnionFind uf;			/* GROUP_EDGES: union-find over u */
	Tuplestorestate *out;
	TupleDesc	outdesc;
} KeyGroup;

/* Append (i, j, distance) with 1-based array positions. */
static void
group_put(KeyGroup *g, uint32 i, uint32 j, int d)
{
	Datum		values[3];
	bool		nulls[3] = {false, false, false};

	values[0] = Int32GetDatum((int32) i + 1);
	values[1] = Int32GetDatum((int32) j + 1);
	values[2] = Int32GetDatum(d);
	tuplestore_putvalues(g->out, g->outdesc, values, nulls);
}

/*
 * Emit the rows of a found pair of distinct fingerprints u and v (u == v:
 * the pairs among the rows of one fingerprint): every pair of rows, or of a
 * join only those of different sides (side 0 first); GROUP_EDGES links u
 * and v and emits one edge when that joins two components.
 */
static void
group_found(KeyGroup *g, uint32 u, uint32 v, int d)
{
	if (g->mode == GROUP_EDGES)
	{
		uint32		ru,
					rv;

		if (u == v)
		{
			/* a star over the rows of one fingerprint */
			for (uint32 i = g->dstart[u] + 1; i < g->dstart[u + 1]; i++)
				group_put(g, g->drow[g->dstart[u]], g->drow[i], 0);
			return;
		}
		ru = batch_uf_find(&g->uf, u);
		rv = batch_uf_find(&g->uf, v);
		if (ru == rv)
			return;
		batch_uf_union(&g->uf, ru, rv);
		group_put(g, g->drow[g->dstart[u]], g->drow[g->dstart[v]], d);
		return;
	}
	for (uint32 i = g->dstart[u]; i < g->dstart[u + 1]; i++)
	{
		uint32		ri = g->drow[i];

		CHECK_FOR_INTERRUPTS();
		for (uint32 j = (u == v ? i + 1 : g->dstart[v]); j < g->dstart[v + 1]; j++)
		{
			uint32		rj = g->drow[j];

			if (g->side == NULL)
				group_put(g, ri, rj, d);
			else if (g->side[ri] != g->side[rj])
				group_put(g, g->side[ri] == 0 ? ri : rj, g->side[ri] == 0 ? rj : ri, d);
		}
	}
}

/* qsort comparator of (value, row) words: by value, then row. */
static int
word_pair_cmp(const void *pa, const void *pb)
{
	const uint64 *a = (const uint64 *) pa;
	const uint64 *b = (const uint64 *) pb;

	if (a[0] != b[0])
		return a[0] < b[0] ? -1 : 1;
	return (a[1] > b[1]) - (a[1] < b[1]);
}

/* Group the rows by fingerprint: dfp, dstart, drow. */
static void
group_distinct(KeyGroup *g)
{
	uint64	   *pairs = palloc(sizeof(uint64) * 2 * Max(g->nrows, 1));
	uint32		d = 0;

	for (uint32 i = 0; i < g->nrows; i++)
	{
		pairs[2 * i] = g->fp[i];
		pairs[2 * i + 1] = i;
	}
	qsort(pairs, g->nrows, 2 * sizeof(uint64), word_pair_cmp);
	g->dfp = palloc(sizeof(uint64) * Max(g->nrows, 1));
	g->dstart = palloc(sizeof(uint32) * (g->nrows + 1));
	g->drow = palloc(sizeof(uint32) * Max(g->nrows, 1));
	for (uint32 i = 0; i < g->nrows; i++)
	{
		if (i == 0 || pairs[2 * i] != pairs[2 * i - 2])
		{
			g->dfp[d] = pairs[2 * i];
			g->dstart[d] = i;
			d++;
		}
		g->drow[i] = (uint32) pairs[2 * i + 1];
	}
	g->dstart[d] = g->nrows;
	g->ndistinct = d;
	pfree(pairs);
}

/*
 * Do {a} and the blocks sel[0..c-2] form the first c blocks on which a pair
 * with XOR x agrees?  (The pair is within k, so c blocks agree.)
 */
static bool
group_owns(const KeyGroup *g, const int *sel, uint64 x)
{
	int			found = 0;

	for (int b = 0; b < g->L.m && found < g->L.c; b++)
	{
		if ((x & g->L.bmask[b]) != 0)
			continue;
		if (b != (found == 0 ? g->a : sel[found - 1]))
			return false;
		found++;
	}
	return found == g->L.c;
}

/* qsort comparator of words. */
static int
word_cmp(const void *pa, const void *pb)
{
	uint64		a = *(const uint64 *) pa;
	uint64		b = *(const uint64 *) pb;

	return (a > b) - (a < b);
}

/*
 * Sort the words (sub-key in the top 32 bits, distinct number below) by
 * their top keybits bits: a small group with qsort, a large one by LSD
 * radix sort in 16-bit digits (count: 65,536 counters of the caller's).
 * Returns the sorted array (words or tmp).
 */
static uint64 *
group_sort(uint64 *words, uint64 *tmp, uint32 n, int keybits, uint32 *count)
{
	if (keybits == 0)
		return words;
	if (n < 4096)
	{
		qsort(words, n, sizeof(uint64), word_cmp);
		return words;
	}
	for (int shift = 32; shift < 32 + keybits; shift += 16)
	{
		uint32		sum = 0;
		uint64	   *t;

		memset(count, 0, sizeof(uint32) * 65536);
		for (uint32 i = 0; i < n; i++)
			count[(words[i] >> shift) & 0xffff]++;
		for (int b = 0; b < 65536; b++)
		{
			uint32		c = count[b];

			count[b] = sum;
			sum += c;
		}
		for (uint32 i = 0; i < n; i++)
			tmp[count[(words[i] >> shift) & 0xffff]++] = words[i];
		t = words;
		words = tmp;
		tmp = t;
		CHECK_FOR_INTERRUPTS();
	}
	return words;
}

/*
 * Search one choice sel[0..c-2] of blocks after a: sort the distinct
 * fingerprints by the bits of those blocks (hashed to 32 bits when longer:
 * equal bits still meet) and compare inside runs.
 */
static void
group_table(KeyGroup *g, const int *sel, uint64 *words, uint64 *tmp,
			uint32 *count)
{
	int			bits = 0;
	uint32		n = g->ndistinct;
	uint64	   *sorted;

	for (int i = 0; i < g->L.c - 1; i++)
		bits += g->L.bsize[sel[i]];
	for (uint32 u = 0; u < n; u++)
	{
		uint64		sub = 0;

		for (int i = 0; i < g->L.c - 1; i++)
			sub = (sub << g->L.bsize[sel[i]]) |
				((g->dfp[u] & g->L.bmask[sel[i]]) >> g->L.bshift[sel[i]]);
		if (bits > 32)
			sub = nddup_fmix64(sub) >> 32;
		words[u] = (sub << 32) | u;
	}
	sorted = group_sort(words, tmp, n, Min(bits, 32), count);
	for (uint32 s = 0; s < n;)
	{
		uint32		e = s + 1;

		while (e < n && (sorted[e] >> 32) == (sorted[s] >> 32))
			e++;
		for (uint32 x = s; x + 1 < e; x++)
		{
			uint32		u = (uint32) sorted[x];

			CHECK_FOR_INTERRUPTS();
			for (uint32 y = x + 1; y < e; y++)
			{
				uint32		v = (uint32) sorted[y];
				uint64		xr = g->dfp[u] ^ g->dfp[v];
				int			d = __builtin_popcountll(xr);

				if (d <= g->L.k && group_owns(g, sel, xr))
					group_found(g, Min(u, v), Max(u, v), d);
			}
		}
		s = e;
	}
}

/*
 * nddup_hamming_key_group(key, fps, sides, radius, blocks, mode): the pairs
 * of one group of rows sharing a block key that the group owns (see the
 * file header), as 1-based positions in the arrays with their distance.
 * sides (smallint[], or NULL) makes it a join: only pairs of rows of
 * different sides, the side-0 row first.  mode 0 returns every pair, mode
 * 1 a spanning forest of them (for clusters).  Internal to the distributed
 * batch functions (docs/scale-out.md).
 */
Datum
nddup_hamming_key_group(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	KeyGroup	g;
	ArrayType  *fparr;
	Datum	   *elems;
	bool	   *nulls;
	int			n;
	int			sel[64];
	uint64	   *words;
	uint64	   *tmp;
	uint32	   *count = NULL;
	uint64	   *fps;

	InitMaterializedSRF(fcinfo, 0);
	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(3) || PG_ARGISNULL(5))
		return (Datum) 0;
	memset(&g, 0, sizeof(g));
	nddup_blocks_init(&g.L, PG_GETARG_INT32(3), blocks_arg(fcinfo, 4));
	g.a = nddup_block_of_key(&g.L, (uint64) PG_GETARG_INT64(0));
	g.mode = PG_GETARG_INT32(5);
	if (g.a > g.L.k || (g.mode != GROUP_PAIRS && g.mode != GROUP_EDGES))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid key or mode for nddup_hamming_key_group")));
	g.out = rsinfo->setResult;
	g.outdesc = rsinfo->setDesc;

	fparr = PG_GETARG_ARRAYTYPE_P(1);
	if (ARR_NDIM(fparr) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("fingerprints must be a one-dimensional array")));
	deconstruct_array(fparr, ARR_ELEMTYPE(fparr), 8, true, TYPALIGN_DOUBLE,
					  &elems, &nulls, &n);
	fps = palloc(sizeof(uint64) * Max(n, 1));
	for (int i = 0; i < n; i++)
	{
		if (nulls[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("fingerprints must not contain nulls")));
		fps[i] = DatumGetSimhash64(elems[i]);
	}
	g.fp = fps;
	g.nrows = (uint32) n;
	if (!PG_ARGISNULL(2))
	{
		ArrayType  *sidearr = PG_GETARG_ARRAYTYPE_P(2);

		if (ARR_NDIM(sidearr) > 1 || ARR_HASNULL(sidearr) ||
			ARR_ELEMTYPE(sidearr) != INT2OID ||
			ArrayGetNItems(ARR_NDIM(sidearr), ARR_DIMS(sidearr)) != n)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("sides must be a smallint array without nulls, as long as the fingerprints")));
		g.side = (const int16 *) ARR_DATA_PTR(sidearr);
	}

	group_distinct(&g);
	/* identical fingerprints first agree on block 0: group a = 0 owns them */
	if (g.a == 0)
		for (uint32 u = 0; u < g.ndistinct; u++)
			if (g.dstart[u + 1] - g.dstart[u] > 1)
				group_found(&g, u, u, 0);
	if (g.ndistinct < 2)
		return (Datum) 0;
	if (g.mode == GROUP_EDGES)
	{
		g.uf.n = g.ndistinct;
		g.uf.parent = palloc(sizeof(uint32) * g.ndistinct);
		g.uf.rank = palloc0(g.ndistinct);
		for (uint32 u = 0; u < g.ndistinct; u++)
			g.uf.parent[u] = u;
	}
	words = palloc(sizeof(uint64) * g.ndistinct);
	tmp = palloc(sizeof(uint64) * g.ndistinct);
	if (g.ndistinct >= 4096)
		count = palloc(sizeof(uint32) * 65536);
	/* every choice of c - 1 blocks after a, ascending */
	for (int i = 0; i < g.L.c - 1; i++)
		sel[i] = g.a + 1 + i;
	for (;;)
	{
		int			i;

		group_table(&g, sel, words, tmp, count);
		for (i = g.L.c - 2; i >= 0; i--)
			if (sel[i] < g.L.m - (g.L.c - 1) + i)
				break;
		if (i < 0)
			break;
		sel[i]++;
		for (int j = i + 1; j < g.L.c - 1; j++)
			sel[j] = sel[j - 1] + 1;
	}
	return (Datum) 0;
}
