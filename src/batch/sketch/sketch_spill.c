/*-------------------------------------------------------------------------
 *
 * sketch_spill.c
 *	  The sketch batch functions when the input exceeds work_mem, through
 *	  temporary files (batch_sort.c), in the shape of Broder et al.'s
 *	  clustering (1997, s.3: every step a sort or a merge of files).
 *
 * min-hash: the same exact bands as the in-memory path: the rows go into
 * partition files under the key of each band, many bands in one pass over
 * the rows (so the rows, 536 bytes each at k = 128, are read a few times,
 * not once per band), each partition is sorted and every pair of one band
 * inside a run of equal keys is a candidate.  The candidates of all bands
 * are verified by two merges with the rows (batch_pairs.c), so each row's
 * values are read sequentially, never at random, and the memory used is
 * that of one partition at a time.  Empty documents (resemblance 1 with
 * each other only) are paired from a file of their own; for clusters,
 * identical sketches are grouped first (one node, one entry per band), and
 * the empty ones linked on the way.
 *
 * super-shingles: the arrays are short (a few 8-byte values), so each
 * position's entries carry the whole array and a run is verified in place.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "batch/sketch/sketch_batch.h"

#include "miscadmin.h"
#include "utils/memutils.h"

/* A row under the key of one band. */
typedef struct BandRec
{
	uint64		key;			/* the band's key, mixed with its number */
	uint32		row;
	uint32		flags;			/* the row's flags, the band's number above */
} BandRec;

/* Where the band's number is in BandRec.flags. */
#define BAND_SHIFT				8

/*
 * An entry of an exact search (no join) is 8 bytes: the top bits of the
 * band's key (mixed with its number) above the row number, which takes the
 * bits the number of rows needs (20 for 1M rows, so 44 bits of key).  Keys
 * that collide only add candidates, which their estimate then turns down:
 * the exact search reports every pair whose estimate reaches the threshold.
 */

/* State of the spilled min-hash search. */
typedef struct SpillSearch
{
	SketchBatch *sb;
	BatchPairSet *pairs;		/* candidates of every band */
	uint8	   *member;			/* clusters: rows left out of the bands */
	uint32	   *leader;			/* grouping: values of the current run's first
								 * row */
	uint64		leader_key;
	uint32		leader_row;
	int64		leader_id;		/* its id, once read */
	bool		have_leader;
	bool		leader_read;	/* its values are in leader */
	uint64		nmember;		/* grouping: rows that joined a group */
	uint64		nentered;		/* rows entered in the bands, at most */
	int			row_bits;		/* 8-byte entries: bits of the row number */
	uint64		nadded;			/* candidates added (with repeats) */
} SpillSearch;

/*
 * Greedy clusters verify every candidate pair through temporary files (the
 * components mode skips those already in one component): at most this many
 * candidates a row, so that large families of near-copies stop with an
 * error instead of filling the disk.
 */
#define GREEDY_CANDIDATES_PER_ROW	64

/* Add a candidate pair of rows a and b (greedy clusters: within the cap). */
static inline void
add_candidate(SpillSearch *ss, uint32 a, uint32 b)
{
	SketchBatch *sb = ss->sb;

	if (sb->call->greedy != NULL &&
		++ss->nadded > GREEDY_CANDIDATES_PER_ROW * sb->rows.nrows + 1000000)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s: more than %llu candidate pairs for greedy clusters of %llu rows through temporary files",
						sb->call->fname, (unsigned long long) (ss->nadded - 1),
						(unsigned long long) sb->rows.nrows),
				 errdetail("Greedy clusters verify every candidate pair; the components mode skips the pairs already in one cluster."),
				 errhint("Use mode => 'components', a higher threshold, or raise work_mem so that the rows stay in memory.")));
	batch_pairs_add(ss->pairs, a, b);
}

/* A pair of sketches of empty documents: resemblance 1. */
static void
empty_pair_found(void *arg, int64 ida, uint8 fa, int64 idb, uint8 fb)
{
	sketch_put_pair((SketchBatch *) arg, ida, fa, idb, fb, 1.0);
}

/*
 * Rows a and b (ids ida, idb) have equal sketches: one component
 * (clusters), or one class (greedy clusters, batch_greedy.c).
 */
static void
link_same(SketchBatch *sb, uint32 a, int64 ida, uint32 b, int64 idb)
{
	if (sb->call->mode == BATCH_CLUSTER)
		batch_uf_union(&sb->uf, a, b);
	else
		batch_greedy_same(sb->call, ida, idb);
}

/*
 * Partition callback of the grouping pass (clusters), over (hash of all
 * values, row) records in that order: a row whose values equal those of the
 * first row of its run of equal hashes joins that row's group (a run may
 * span calls; a rare hash collision only leaves two groups apart, which the
 * bands then link).  The values of the rows of a run of two or more are
 * read back from the rows, in row order.
 */
static void
group_runs(void *arg, char *records, uint64 count)
{
	SpillSearch *ss = (SpillSearch *) arg;
	SketchBatch *sb = ss->sb;
	BatchRec   *recs = (BatchRec *) records;
	size_t		vbytes = sizeof(uint32) * sb->k;

	for (uint64 i = 0; i < count; i++)
	{
		uint32		row = (uint32) recs[i].val;
		BatchRow	r;

		if ((i & 0xfff) == 0)
			CHECK_FOR_INTERRUPTS();
		if (!ss->have_leader || recs[i].key != ss->leader_key)
		{
			ss->have_leader = true;
			ss->leader_key = recs[i].key;
			ss->leader_row = row;
			ss->leader_read = false;
			continue;
		}
		if (!ss->leader_read)
		{
			batch_rows_fetch(&sb->rows, ss->leader_row, &r);
			memcpy(ss->leader, r.payload, vbytes);
			ss->leader_id = r.id;
			ss->leader_read = true;
		}
		batch_rows_fetch(&sb->rows, row, &r);
		if (memcmp(r.payload, ss->leader, vbytes) == 0)
		{
			link_same(sb, ss->leader_row, ss->leader_id, row, r.id);
			batch_bit_set(ss->member, row);
			ss->nmember++;
		}
	}
}

/*
 * Group identical sketches of spilled rows (clusters): (hash of all values,
 * row) records, partitioned and sorted; members of a group are linked to
 * its first row and left out of the bands.  The sketches of empty
 * documents, all alike, are linked into one component on the way.
 */
static void
group_identical_spilled(SpillSearch *ss)
{
	SketchBatch *sb = ss->sb;
	BatchCall  *call = sb->call;
	BatchPartitions *parts;
	BatchRow	row;
	int64		first_empty = -1;
	int64		first_empty_id = 0;

	parts = batch_partitions_begin(call, sizeof(BatchRec), sb->rows.nrows, call->mem_limit);
	batch_rows_rewind(&sb->rows);
	while (batch_rows_next(&sb->rows, &row))
	{
		BatchRec	rec;

		if (row.flags & ROW_EMPTY)
		{
			if (first_empty < 0)
			{
				first_empty = row.row;
				first_empty_id = row.id;
			}
			else
				link_same(sb, (uint32) first_empty, first_empty_id, row.row, row.id);
			continue;
		}
		rec.key = sketch_band_key((const uint32 *) row.payload, sb->k);
		rec.val = row.row;
		batch_partitions_put(parts, &rec);
	}
	ss->leader = palloc(sizeof(uint32) * sb->k);
	ss->have_leader = false;
	batch_partitions_sort_each(parts, group_runs, ss, false);
	batch_partitions_end(parts);
	pfree(ss->leader);
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
				/* a run can be long: check within it too */
				if (((b - a) & 0x3ff) == 0)
					CHECK_FOR_INTERRUPTS();
				/* keys of two bands that collide */
				if ((recs[a].flags >> BAND_SHIFT) != (recs[b].flags >> BAND_SHIFT))
					continue;
				if (sb->call->mode == BATCH_JOIN &&
					!((recs[a].flags ^ recs[b].flags) & BATCH_ROW_SIDE1))
					continue;
				if (sb->call->mode == BATCH_CLUSTER &&
					batch_uf_find(&sb->uf, recs[a].row) == batch_uf_find(&sb->uf, recs[b].row))
					continue;
				add_candidate(ss, recs[a].row, recs[b].row);
			}
		}
		CHECK_FOR_INTERRUPTS();	/* every run: s jumps by its length */
		s = e;
	}
}

/*
 * Partition callback of the bands of an exact search (8-byte entries):
 * every pair of rows inside a run of one key is a candidate.
 */
static void
entry_runs(void *arg, char *records, uint64 count)
{
	SpillSearch *ss = (SpillSearch *) arg;
	SketchBatch *sb = ss->sb;
	uint64	   *ent = (uint64 *) records;
	int			rb_bits = ss->row_bits;
	uint64		row_mask = (UINT64CONST(1) << rb_bits) - 1;

	for (uint64 s = 0; s < count;)
	{
		uint64		e = s + 1;
		uint64		key = ent[s] >> rb_bits;

		while (e < count && (ent[e] >> rb_bits) == key)
			e++;
		for (uint64 a = s; a + 1 < e; a++)
		{
			uint32		ra = (uint32) (ent[a] & row_mask);

			CHECK_FOR_INTERRUPTS();
			for (uint64 b = a + 1; b < e; b++)
			{
				uint32		rb = (uint32) (ent[b] & row_mask);

				/* a run can be long: check within it too */
				if (((b - a) & 0x3ff) == 0)
					CHECK_FOR_INTERRUPTS();
				/* two bands of one row whose keys collide */
				if (ra == rb)
					continue;
				if (sb->call->mode == BATCH_CLUSTER &&
					batch_uf_find(&sb->uf, ra) == batch_uf_find(&sb->uf, rb))
					continue;
				add_candidate(ss, ra, rb);
			}
		}
		CHECK_FOR_INTERRUPTS();	/* every run: s jumps by its length */
		s = e;
	}
}

/*
 * The key of band j of a row: the key of its values, mixed with j, so that
 * the entries of all bands can share partitions.
 */
static inline uint64
band_entry_key(const uint32 *values, int j, int r)
{
	return nddup_fmix64(sketch_band_key(values + j * r, r) +
						(uint64) j * UINT64CONST(0x9e3779b97f4a7c15));
}

/*
 * Bands entered per pass over the rows: every band in one pass when the
 * partitions of all their entries take fewer bytes to write and read again
 * (their second level) than reading the rows once more per extra pass
 * would; else as many as one level of partitions sorts.
 */
static int
bands_per_pass(SketchBatch *sb, uint64 nentered, int entry_size)
{
	BatchRows  *rows = &sb->rows;
	double		cap = (double) batch_partitions_capacity(entry_size,
														 sb->call->mem_limit);
	double		entries = (double) nentered * sb->nbands;
	double		passes = ceil(entries / Max(cap, 1.0));
	double		row_bytes = (double) rows->nrows * rows->record_size;
	double		split_bytes = 2.0 * entries * entry_size;

	if (passes <= 1 || row_bytes * (passes - 1) > split_bytes)
		return sb->nbands;
	return (int) ceil(sb->nbands / passes);
}

/*
 * Verify a candidate pair with the estimate (two sketches of empty
 * documents: 1), then with the verification values when the call verifies;
 * report (or link) it.
 */
static void
verify_pair(void *arg, const BatchCarried *x, const BatchRow *y)
{
	SketchBatch *sb = (SketchBatch *) arg;
	double		res;

	if ((x->flags & ROW_EMPTY) && (y->flags & ROW_EMPTY))
		res = 1.0;
	else
	{
		int			e = sketch_equal_count((const uint32 *) x->payload,
										   (const uint32 *) y->payload, sb->k);

		if (e < sb->emin)
			return;
		res = nddup_minhash_estimate(e, sb->k, sb->params->bits);
	}
	if (sb->verify.active &&
		!batch_verify_pair(&sb->verify, x->extra, x->extra_len, x->flags,
						   y->extra, y->extra_len, y->flags, &res))
		return;
	if (sb->call->mode == BATCH_CLUSTER)
		batch_uf_union(&sb->uf, x->row, y->row);
	else
		sketch_put_pair(sb, x->id, x->flags, y->id, y->flags, res);
}

/*
 * A verified call: every pair of sketches of empty documents (of a join,
 * one from each side) is a candidate, verified with the others.
 */
static void
empty_candidates(SpillSearch *ss)
{
	SketchBatch *sb = ss->sb;
	BatchRows  *rows = &sb->rows;
	BatchRow	row;
	uint32	   *empty = NULL;
	uint8	   *eflags = NULL;
	uint64		n = 0;
	uint64		cap = 0;

	batch_rows_rewind(rows);
	while (batch_rows_next(rows, &row))
	{
		if (!(row.flags & ROW_EMPTY))
			continue;
		if (n == cap)
		{
			cap = Max(cap * 2, 1024);
			empty = empty ? repalloc_huge(empty, cap * sizeof(uint32)) :
				MemoryContextAllocHuge(sb->call->cxt, cap * sizeof(uint32));
			eflags = eflags ? repalloc_huge(eflags, cap) :
				MemoryContextAllocHuge(sb->call->cxt, cap);
		}
		empty[n] = row.row;
		eflags[n++] = row.flags;
	}
	for (uint64 i = 0; i + 1 < n; i++)
	{
		CHECK_FOR_INTERRUPTS();
		for (uint64 j = i + 1; j < n; j++)
			if (sb->call->mode != BATCH_JOIN ||
				((eflags[i] ^ eflags[j]) & BATCH_ROW_SIDE1))
				add_candidate(ss, empty[i], empty[j]);
	}
	if (empty)
	{
		pfree(empty);
		pfree(eflags);
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
	int			per_pass;
	bool		short_entries = sb->exact && call->mode != BATCH_JOIN;
	int			entry_size = short_entries ? sizeof(uint64) : sizeof(BandRec);

	if (sb->emin == 0 && call->mode == BATCH_CLUSTER && !sb->verify.active)
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
	batch_log(call, "%s: %llu rows through temporary files (work_mem %d kB)",
			  call->fname, (unsigned long long) rows->nrows, work_mem);

	ss.pairs = batch_pairs_begin(rows);
	if (sb->verify.active)
		empty_candidates(&ss);
	else if (call->mode == BATCH_CLUSTER || call->greedy != NULL)
	{
		/* the empty sketches are linked by the grouping pass */
		ss.member = MemoryContextAllocZero(call->cxt, rows->nrows / 8 + 1);
		group_identical_spilled(&ss);
	}
	else
		batch_pairs_of_flagged(rows, ROW_EMPTY, &sb->uf, empty_pair_found, sb);
	ss.nentered = rows->nrows - ss.nmember;

	/* candidates of every band, a group of bands per pass over the rows */
	ss.row_bits = 1;
	while (ss.row_bits < 32 && (UINT64CONST(1) << ss.row_bits) < rows->nrows)
		ss.row_bits++;
	per_pass = bands_per_pass(sb, ss.nentered, entry_size);
	batch_log_time(call, "%s: %d bands of %llu rows, %d bands per pass over the rows, %d-byte entries",
				   call->fname, sb->nbands, (unsigned long long) ss.nentered,
				   per_pass, entry_size);
	for (int j0 = 0; j0 < sb->nbands; j0 += per_pass)
	{
		int			j1 = Min(j0 + per_pass, sb->nbands);
		uint64		expected = ss.nentered * (j1 - j0);
		BatchPartitions *band;
		BatchRow	row;

		if (short_entries)
			band = batch_partitions_begin_prefix(call, sizeof(uint64), expected,
												 call->mem_limit, 64 - ss.row_bits);
		else
			band = batch_partitions_begin(call, sizeof(BandRec), expected,
										  call->mem_limit);

		batch_rows_rewind(rows);
		while (batch_rows_next(rows, &row))
		{
			BandRec		rec;

			if (row.flags & ROW_EMPTY)
				continue;
			if (ss.member && batch_bit_is_set(ss.member, row.row))
				continue;
			rec.row = row.row;
			for (int j = j0; j < j1; j++)
			{
				rec.key = band_entry_key((const uint32 *) row.payload, j, r);
				if (short_entries)
				{
					uint64		entry = (rec.key >> ss.row_bits << ss.row_bits) |
						row.row;

					batch_partitions_put(band, &entry);
					continue;
				}
				rec.flags = row.flags | ((uint32) j << BAND_SHIFT);
				batch_partitions_put(band, &rec);
			}
		}
		batch_partitions_sort_each(band, short_entries ? entry_runs : band_runs,
								   &ss, true);
		batch_partitions_end(band);
		batch_report_progress(call, "band", j1, sb->nbands);
	}
	batch_pairs_verify(ss.pairs, verify_pair, sb);
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

				/* a run can be long: check within it too */
				if (((y - x) & 0x3ff) == 0)
					CHECK_FOR_INTERRUPTS();
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
