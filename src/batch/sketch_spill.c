/*-------------------------------------------------------------------------
 *
 * sketch_spill.c
 *	  The sketch batch functions when the input exceeds work_mem, through
 *	  temporary files (batch_sort.c), in the shape of Broder et al.'s
 *	  clustering (1997, s.3: every step a sort or a merge of files).
 *
 * min-hash: the same exact bands as the in-memory path, band by band: the
 * rows go into partition files under the key of their band, each partition
 * is sorted and every pair inside a run of equal keys is a candidate.  The
 * candidates of all bands are one set of (x, y) row pairs, sorted (which
 * removes the pairs found in several bands), then verified by two merges
 * with the rows in arrival order: the first carries x's values to the pair,
 * re-sorted by y, the second compares them with y's values.  So each row's
 * values are read sequentially twice, never at random, and the memory used
 * is that of one partition at a time.  Empty documents (resemblance 1 with
 * each other only) are paired from a file of their own; for clusters,
 * identical sketches are grouped first (one node, one entry per band).
 *
 * super-shingles: the arrays are short (a few 8-byte values), so each
 * position's entries carry the whole array and a run is verified in place.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "sketch_batch.h"

#include "miscadmin.h"
#include "utils/memutils.h"

/* A row under the key of one band (or all its values: grouping). */
typedef struct BandRec
{
	uint64		key;
	uint32		row;
	uint32		flags;
} BandRec;

/* A candidate pair: x's row number in the top bits, then y's. */
typedef struct PairRec
{
	uint64		key;
} PairRec;

/* State of the spilled min-hash search. */
typedef struct SpillSearch
{
	SketchBatch *sb;
	int			xbits;			/* bits of a row number in a pair key */
	BatchPartitions *pairs;		/* candidate pairs, all bands */
	BatchPartitions *carried;	/* pairs re-keyed by y, with x's values */
	uint8	   *member;			/* clusters: rows left out of the bands */
	int			carried_size;	/* bytes of a carried record */
	BatchRow	cursor;			/* the row stream of a merge */
	bool		cursor_valid;
	uint64		last_pair;		/* to drop repeated candidates */
	bool		have_last;
	char	   *leader;			/* grouping: first record of the current run */
	bool		have_leader;
} SpillSearch;

/* Is bit i of a bitmap set? */
static inline bool
bit_is_set(const uint8 *bits, uint32 i)
{
	return (bits[i / 8] & (1 << (i % 8))) != 0;
}

/* The key of the pair (x, y): x in the top bits, then y. */
static inline uint64
pair_key(const SpillSearch *ss, uint32 x, uint32 y)
{
	return ((uint64) x << (64 - ss->xbits)) | ((uint64) y << (64 - 2 * ss->xbits));
}

/* The two rows of a pair key. */
static inline void
pair_rows(const SpillSearch *ss, uint64 key, uint32 *x, uint32 *y)
{
	uint64		mask = (UINT64CONST(1) << ss->xbits) - 1;

	*x = (uint32) ((key >> (64 - ss->xbits)) & mask);
	*y = (uint32) ((key >> (64 - 2 * ss->xbits)) & mask);
}

/* Advance the row stream of a merge to row r; returns that row. */
static const BatchRow *
seek_row(SpillSearch *ss, uint32 r)
{
	BatchRows  *rows = &ss->sb->rows;

	while (!ss->cursor_valid || ss->cursor.row < r)
	{
		if (!batch_rows_next(rows, &ss->cursor))
			elog(ERROR, "row %u of %s not found in its temporary file", r,
				 ss->sb->call->fname);
		ss->cursor_valid = true;
	}
	return &ss->cursor;
}

/*
 * Pairs among the sketches of empty documents (resemblance 1 with each
 * other, 0 with any other): clusters link them into one component; pairs
 * and joins compare every pair of them, from a file of their own.
 */
static void
empty_pairs_spilled(SpillSearch *ss)
{
	SketchBatch *sb = ss->sb;
	BatchRows  *rows = &sb->rows;
	BatchRow	row;
	BufFile    *file = NULL;
	uint64		ne = 0;
	int64		first = -1;
	struct
	{
		int64		id;
		int64		flags;
	}			a, b;

	batch_rows_rewind(rows);
	while (batch_rows_next(rows, &row))
	{
		if (!(row.flags & ROW_EMPTY))
			continue;
		if (sb->call->mode == BATCH_CLUSTER)
		{
			if (first < 0)
				first = row.row;
			else
				batch_uf_union(&sb->uf, (uint32) first, row.row);
			continue;
		}
		if (file == NULL)
			file = BufFileCreateTemp(false);
		a.id = row.id;
		a.flags = row.flags;
		BufFileWrite(file, &a, sizeof(a));
		ne++;
	}
	for (uint64 i = 0; i + 1 < ne; i++)
	{
		if (BufFileSeek(file, 0, (off_t) (i * sizeof(a)), SEEK_SET) != 0 ||
			BufFileRead(file, &a, sizeof(a)) != sizeof(a))
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not read from a temporary file of the batch function")));
		for (uint64 j = i + 1; j < ne; j++)
		{
			if (BufFileRead(file, &b, sizeof(b)) != sizeof(b))
				ereport(ERROR,
						(errcode_for_file_access(),
						 errmsg("could not read from a temporary file of the batch function")));
			if ((j & 0xfff) == 0)
				CHECK_FOR_INTERRUPTS();
			if (sb->call->mode == BATCH_JOIN &&
				!((a.flags ^ b.flags) & BATCH_ROW_SIDE1))
				continue;
			sketch_put_pair(sb, a.id, (uint8) a.flags, b.id, (uint8) b.flags, 1.0);
		}
	}
	if (file)
		BufFileClose(file);
}

/* A carried record's parts: key, x's id and flags, x's values. */
#define CARRIED_ID(rec)		((int64 *) ((rec) + 8))
#define CARRIED_FLAGS(rec)	((int64 *) ((rec) + 16))
#define CARRIED_VALUES(rec)	((uint32 *) ((rec) + 24))

/*
 * Partition callback of the grouping pass (clusters): a record whose values
 * equal those of the first record of its run of equal hashes joins that
 * record's group (a run may span calls; a rare hash collision only leaves
 * two groups apart, which the bands then link).
 */
static void
group_runs(void *arg, char *records, uint64 count)
{
	SpillSearch *ss = (SpillSearch *) arg;
	SketchBatch *sb = ss->sb;
	size_t		vbytes = sizeof(uint32) * sb->k;

	for (uint64 i = 0; i < count; i++)
	{
		char	   *ri = records + i * ss->carried_size;
		uint32		rowi = (uint32) *CARRIED_ID(ri);

		if ((i & 0xfff) == 0)
			CHECK_FOR_INTERRUPTS();
		if (!ss->have_leader || memcmp(ri, ss->leader, 8) != 0)
		{
			memcpy(ss->leader, ri, ss->carried_size);
			ss->have_leader = true;
			continue;
		}
		if (memcmp(CARRIED_VALUES(ri), CARRIED_VALUES(ss->leader), vbytes) == 0)
		{
			batch_uf_union(&sb->uf, (uint32) *CARRIED_ID(ss->leader), rowi);
			ss->member[rowi / 8] |= (uint8) (1 << (rowi % 8));
		}
	}
}

/*
 * Group identical sketches of spilled rows (clusters): records keyed by a
 * hash of all values, carrying the values (here the id field holds the row
 * number); members of a group are linked to its first row and left out of
 * the bands.
 */
static void
group_identical_spilled(SpillSearch *ss)
{
	SketchBatch *sb = ss->sb;
	BatchCall  *call = sb->call;
	BatchPartitions *parts;
	BatchRow	row;
	char	   *rec = palloc0(ss->carried_size);

	parts = batch_partitions_begin(call, ss->carried_size, sb->rows.nrows, call->mem_limit);
	batch_rows_rewind(&sb->rows);
	while (batch_rows_next(&sb->rows, &row))
	{
		uint64		key;

		if (row.flags & ROW_EMPTY)
			continue;
		key = sketch_band_key((const uint32 *) row.payload, sb->k);
		memcpy(rec, &key, sizeof(uint64));
		*CARRIED_ID(rec) = row.row;
		*CARRIED_FLAGS(rec) = row.flags;
		memcpy(CARRIED_VALUES(rec), row.payload, sizeof(uint32) * sb->k);
		batch_partitions_put(parts, rec);
	}
	ss->leader = palloc(ss->carried_size);
	ss->have_leader = false;
	batch_partitions_sort_each(parts, group_runs, ss, false);
	batch_partitions_end(parts);
	pfree(rec);
}

/* Partition callback of a band: every pair of a run is a candidate. */
static void
band_runs(void *arg, char *records, uint64 count)
{
	SpillSearch *ss = (SpillSearch *) arg;
	SketchBatch *sb = ss->sb;
	BandRec    *recs = (BandRec *) records;

	for (uint64 s = 0; s < count;)
	{
		uint64		e = s + 1;

		while (e < count && recs[e].key == recs[s].key)
			e++;
		for (uint64 a = s; a + 1 < e; a++)
		{
			CHECK_FOR_INTERRUPTS();
			for (uint64 b = a + 1; b < e; b++)
			{
				PairRec		p;
				uint32		x = Min(recs[a].row, recs[b].row);
				uint32		y = Max(recs[a].row, recs[b].row);

				if (sb->call->mode == BATCH_JOIN &&
					!((recs[a].flags ^ recs[b].flags) & BATCH_ROW_SIDE1))
					continue;
				if (sb->call->mode == BATCH_CLUSTER &&
					batch_uf_find(&sb->uf, x) == batch_uf_find(&sb->uf, y))
					continue;
				p.key = pair_key(ss, x, y);
				batch_partitions_put(ss->pairs, &p);
			}
		}
		if ((s & 0xffff) == 0)
			CHECK_FOR_INTERRUPTS();
		s = e;
	}
}

/*
 * First merge: the candidates in (x, y) order, repeats dropped, meet the
 * rows in arrival order; each goes on keyed by (y, x) with x's id, flags
 * and values.
 */
static void
carry_runs(void *arg, char *records, uint64 count)
{
	SpillSearch *ss = (SpillSearch *) arg;
	SketchBatch *sb = ss->sb;
	PairRec    *pairs = (PairRec *) records;
	char	   *rec = palloc0(ss->carried_size);

	for (uint64 i = 0; i < count; i++)
	{
		uint32		x;
		uint32		y;
		uint64		key;
		const BatchRow *rx;

		if (ss->have_last && pairs[i].key == ss->last_pair)
			continue;
		ss->last_pair = pairs[i].key;
		ss->have_last = true;
		pair_rows(ss, pairs[i].key, &x, &y);
		rx = seek_row(ss, x);
		key = pair_key(ss, y, x);
		memcpy(rec, &key, sizeof(uint64));
		*CARRIED_ID(rec) = rx->id;
		*CARRIED_FLAGS(rec) = rx->flags;
		memcpy(CARRIED_VALUES(rec), rx->payload, sizeof(uint32) * sb->k);
		batch_partitions_put(ss->carried, rec);
		if ((i & 0xffff) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	pfree(rec);
}

/*
 * Second merge: the carried candidates in (y, x) order meet the rows again;
 * each pair is verified with the estimate and reported (or linked).
 */
static void
verify_runs(void *arg, char *records, uint64 count)
{
	SpillSearch *ss = (SpillSearch *) arg;
	SketchBatch *sb = ss->sb;

	for (uint64 i = 0; i < count; i++)
	{
		char	   *rec = records + i * ss->carried_size;
		uint64		key;
		uint32		x;
		uint32		y;
		const BatchRow *ry;
		int			e;

		memcpy(&key, rec, sizeof(uint64));
		pair_rows(ss, key, &y, &x);
		ry = seek_row(ss, y);
		sb->call->ncand++;
		e = sketch_equal_count(CARRIED_VALUES(rec), (const uint32 *) ry->payload, sb->k);
		if (e < sb->emin)
			continue;
		if (sb->call->mode == BATCH_CLUSTER)
			batch_uf_union(&sb->uf, x, y);
		else
			sketch_put_pair(sb, *CARRIED_ID(rec), (uint8) *CARRIED_FLAGS(rec),
							ry->id, ry->flags,
							nddup_minhash_estimate(e, sb->k, sb->params->bits));
		if ((i & 0xffff) == 0)
			CHECK_FOR_INTERRUPTS();
	}
}

/*
 * All pairs of spilled min-hash sketches reaching the threshold (see the
 * file header).  A threshold every pair meets (emin = 0) makes one cluster
 * of everything, and is refused for pairs: the result would be every pair
 * of more rows than work_mem holds.
 */
void
sketch_pairs_spilled(SketchBatch *sb)
{
	BatchCall  *call = sb->call;
	BatchRows  *rows = &sb->rows;
	SpillSearch ss;
	int			r = sb->nrowsband;

	if (sb->emin == 0 && call->mode == BATCH_CLUSTER)
	{
		/* every pair is linked: one component */
		for (uint64 x = 1; x < rows->nrows; x++)
			batch_uf_union(&sb->uf, 0, (uint32) x);
		return;
	}
	if (sb->emin == 0)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s: threshold %g is met by every pair of %llu rows",
						call->fname, sb->threshold, (unsigned long long) rows->nrows),
				 errdetail("The result would be every pair of more rows than work_mem (%d kB) holds.",
						   work_mem),
				 errhint("Use a threshold above 0.")));
	memset(&ss, 0, sizeof(ss));
	ss.sb = sb;
	ss.xbits = 1;
	while (ss.xbits < 32 && (UINT64CONST(1) << ss.xbits) < rows->nrows)
		ss.xbits++;
	ss.carried_size = MAXALIGN(24 + sizeof(uint32) * sb->k);
	batch_log(call, "%s: %llu rows through temporary files (work_mem %d kB)",
			  call->fname, (unsigned long long) rows->nrows, work_mem);

	empty_pairs_spilled(&ss);
	if (call->mode == BATCH_CLUSTER)
	{
		ss.member = MemoryContextAllocZero(call->cxt, rows->nrows / 8 + 1);
		group_identical_spilled(&ss);
	}

	/* candidates of every band */
	ss.pairs = batch_partitions_begin(call, sizeof(PairRec), rows->nrows, call->mem_limit);
	for (int j = 0; j < sb->nbands; j++)
	{
		BatchPartitions *band = batch_partitions_begin(call, sizeof(BandRec),
													   rows->nrows, call->mem_limit);
		BatchRow	row;

		batch_rows_rewind(rows);
		while (batch_rows_next(rows, &row))
		{
			BandRec		rec;

			if (row.flags & ROW_EMPTY)
				continue;
			if (ss.member && bit_is_set(ss.member, row.row))
				continue;
			rec.key = sketch_band_key((const uint32 *) row.payload + j * r, r);
			rec.row = row.row;
			rec.flags = row.flags;
			batch_partitions_put(band, &rec);
		}
		batch_partitions_sort_each(band, band_runs, &ss, true);
		batch_partitions_end(band);
		batch_report_progress(call, "band", j + 1, sb->nbands);
	}
	batch_log_time(call, "%s: %llu candidate pairs from %d bands",
				   call->fname, (unsigned long long) ss.pairs->total, sb->nbands);

	/* verification: two merges with the rows */
	ss.carried = batch_partitions_begin(call, ss.carried_size, ss.pairs->total,
										call->mem_limit);
	batch_rows_rewind(rows);
	ss.cursor_valid = false;
	batch_partitions_sort_each(ss.pairs, carry_runs, &ss, false);
	batch_partitions_end(ss.pairs);
	batch_rows_rewind(rows);
	ss.cursor_valid = false;
	batch_partitions_sort_each(ss.carried, verify_runs, &ss, false);
	batch_partitions_end(ss.carried);
	if (ss.member)
		pfree(ss.member);
}

/* Partition callback of a super-shingle position. */
typedef struct SuperScan
{
	SketchBatch *sb;
	int			p;				/* the position */
	int			record_size;
} SuperScan;

/* The parts of a super-shingle record: key, id, the array. */
#define SUPER_ID(rec)		((int64 *) ((rec) + 8))
#define SUPER_VALUES(rec)	((int64 *) ((rec) + 16))

/* Compare the pairs of each run of equal super-shingles at position p. */
static void
super_runs(void *arg, char *records, uint64 count)
{
	SuperScan  *scan = (SuperScan *) arg;
	SketchBatch *sb = scan->sb;
	int			s = sb->k;
	int			p = scan->p;
	int			rs = scan->record_size;

	for (uint64 a = 0; a < count;)
	{
		uint64		e = a + 1;

		while (e < count && memcmp(records + e * rs, records + a * rs, 8) == 0)
			e++;
		for (uint64 x = a; x + 1 < e; x++)
		{
			const int64 *u = SUPER_VALUES(records + x * rs);

			CHECK_FOR_INTERRUPTS();
			for (uint64 y = x + 1; y < e; y++)
			{
				int			matches = super_matches_from(u, SUPER_VALUES(records + y * rs), s, p);

				if (matches == 0)
					continue;
				sb->call->ncand++;
				if (matches < sb->match_r)
					continue;
				batch_put_ordered_pair(sb->call, *SUPER_ID(records + x * rs),
									   *SUPER_ID(records + y * rs), Int32GetDatum(matches));
			}
		}
		a = e;
	}
}

/*
 * Broder's super-shingle pairs over spilled rows: the rule of the in-memory
 * path, position by position, each entry carrying its whole array.
 */
void
sketch_super_pairs_spilled(SketchBatch *sb)
{
	BatchCall  *call = sb->call;
	SuperScan	scan;
	char	   *rec;

	scan.sb = sb;
	scan.record_size = 16 + sizeof(int64) * sb->k;
	rec = palloc0(scan.record_size);
	for (int p = 0; p <= sb->k - sb->match_r; p++)
	{
		BatchPartitions *parts = batch_partitions_begin(call, scan.record_size,
														sb->rows.nrows, call->mem_limit);
		BatchRow	row;

		batch_rows_rewind(&sb->rows);
		while (batch_rows_next(&sb->rows, &row))
		{
			const int64 *ssv = (const int64 *) row.payload;
			uint64		key = nddup_fmix64((uint64) ssv[p]);

			memcpy(rec, &key, sizeof(uint64));
			*SUPER_ID(rec) = row.id;
			memcpy(SUPER_VALUES(rec), ssv, sizeof(int64) * sb->k);
			batch_partitions_put(parts, rec);
		}
		scan.p = p;
		batch_partitions_sort_each(parts, super_runs, &scan, true);
		batch_partitions_end(parts);
	}
	pfree(rec);
}
