/*-------------------------------------------------------------------------
 *
 * hamming_spill.c
 *	  The Hamming batch functions when the input exceeds work_mem: the
 *	  permuted tables of Manku, Jain and Das Sarma (WWW 2007, s.3) as their
 *	  map-reduce (s.4, and the engineering wiki's Hadoop jobs), run through
 *	  temporary files: for every table each row is written, under the
 *	  table's prefix, into a partition file chosen by the prefix; each
 *	  partition is then sorted in memory and its runs of equal prefix are
 *	  compared (batch_sort.c).  The records carry the fingerprint and the
 *	  id, so nothing is read at random.
 *
 * hamming_pairs (and every call but hamming_join's that reports pairs or
 * verifies candidates) writes 16-byte (key, id) records, (key, row) when it
 * verifies, the key that of the clusters' tables below, so the key alone
 * gives the distance and the owning table; as many partitions as the rows
 * ask for (batch_partitions_begin_wide), so none is written twice.  The
 * first table reads the rows and writes their (fingerprint, id or row) to
 * a 16-byte file that the other tables read.
 *
 * hamming_clusters first groups equal fingerprints the same way (Broder et
 * al. 1997, "identical documents"): their rows are one component at once
 * and only the first row of a group enters the tables, so a spike of a
 * million copies of one fingerprint costs one entry per table.  The first
 * rows are written to a file of their own, 16 bytes each (fingerprint,
 * row), which the tables read instead of the rows; each table's entries
 * are 16-byte (key, row) records sorted in place, the key the table's
 * prefix (mixed) above the fingerprint's other bits, so the key alone gives
 * the distance of two entries of one prefix.
 *
 * A verified call (batch_verify.c) neither groups nor reports at once: each
 * table's owned pairs within the radius become candidates of a
 * BatchPairSet, and the merges of batch_pairs.c bring both rows' values
 * together for the check at the end.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "batch/hamming/hamming_batch.h"

#include "miscadmin.h"
#include "utils/memutils.h"

/* A row under one table's key. */
typedef struct SpillRec
{
	uint64		key;			/* the table's prefix, mixed (a bijection) */
	uint64		fp;
	int64		id;
	uint32		row;
	uint32		side;
} SpillRec;

/* A table of the clusters' path: its prefix bits and its other blocks. */
typedef struct TableKey
{
	int			p;				/* bits of the prefix */
	int			nrest;
	int			rest[64];		/* the blocks not in the table, in order */
} TableKey;

/* A table of the clusters' path entered by the grouping pass. */
typedef struct EarlyTable
{
	int			sel[64];		/* its blocks */
	TableKey	tk;
	BatchPartitions *parts;
} EarlyTable;

/* Tables entered by the grouping pass, at most. */
#define EARLY_TABLES_MAX		16

/* Partition files of the tables entered by the grouping pass, at most. */
#define EARLY_FILES_MAX			128

/* What the partition callback needs. */
typedef struct SpillScan
{
	HammingBatch *hb;
	uint64		set;			/* blocks of the table */
	uint8	   *member;			/* clusters: rows left out of the tables */
	bool		have_prev;		/* grouping: the current fingerprint */
	uint64		prev_key;
	uint32		prev_row;
	BufFile    *leaders;		/* grouping: (fingerprint, row) of first rows */
	uint64		nleaders;
	int			prefix_bits;	/* clusters' tables: bits of a run's key */
	int			first_bits;		/* grouping: the first table's prefix bits */
	BatchRec   *run;			/* grouping: the first rows of the current run
								 * of the first table, (fingerprint, row) */
	uint64		nrun;
	uint64		runcap;
	EarlyTable *early;			/* grouping: the next tables, entered */
	int			nearly;
	int			nowner;			/* pairs' tables: key masks of the blocks */
	uint64		owner[64];		/* that must differ for the table to own a
								 * pair */
} SpillScan;

/* First rows read back at a time by the clusters' tables. */
#define LEADER_CHUNK			4096

/*
 * Odd multiplier of a table's prefix in the clusters' sort keys: a
 * bijection of the prefixes whose top bits (the partition) depend on all of
 * the prefix's bits.
 */
#define PREFIX_MIX				UINT64CONST(0x9e3779b97f4a7c15)



static void first_table_add(SpillScan *scan, const BatchRec *leader);
static inline uint64 cluster_sort_key(const HammingLayout *L, const int *sel,
									  const TableKey *tk, uint64 fp);
static void table_key_init(const HammingLayout *L, const int *sel, TableKey *tk);
static void first_table_flush(SpillScan *scan);

/*
 * Partition callback of the grouping pass, over (fingerprint, row) records
 * in that order: rows of equal fingerprints are one node, the first of them
 * its entry in the tables, written to the file of first rows (a run may
 * span calls).
 */
static void
group_runs(void *arg, char *records, uint64 count)
{
	SpillScan  *scan = (SpillScan *) arg;
	BatchRec   *recs = (BatchRec *) records;

	for (uint64 i = 0; i < count; i++)
	{
		uint32		row = (uint32) recs[i].val;

		if ((i & 0xfff) == 0)
			CHECK_FOR_INTERRUPTS();
		if (!scan->have_prev || recs[i].key != scan->prev_key)
		{
			scan->have_prev = true;
			scan->prev_key = recs[i].key;
			scan->prev_row = row;
			if (scan->leaders)
				BufFileWrite(scan->leaders, &recs[i], sizeof(BatchRec));
			scan->nleaders++;
			if (scan->first_bits > 0)
				first_table_add(scan, &recs[i]);
			for (int t = 0; t < scan->nearly; t++)
			{
				EarlyTable *et = &scan->early[t];
				BatchRec	rec;

				rec.key = cluster_sort_key(&scan->hb->layout, et->sel, &et->tk,
										   recs[i].key);
				rec.val = row;
				batch_partitions_put(et->parts, &rec);
			}
			continue;
		}
		batch_uf_union(&scan->hb->uf, scan->prev_row, row);
		batch_bit_set(scan->member, row);
	}
}

/*
 * Partitions for the tables after the first that the grouping pass enters
 * as it meets the first rows, as many as EARLY_FILES_MAX partition files
 * hold (the others read the file of first rows after it).
 */
static void
early_tables_begin(HammingBatch *hb, SpillScan *scan)
{
	HammingLayout *L = &hb->layout;
	int			sel[64];
	int			files = 0;

	scan->early = palloc(EARLY_TABLES_MAX * sizeof(EarlyTable));
	hamming_first_table(L, sel);
	while (scan->nearly < EARLY_TABLES_MAX && hamming_next_table(L, sel))
	{
		EarlyTable *et = &scan->early[scan->nearly];

		memcpy(et->sel, sel, sizeof(sel));
		table_key_init(L, sel, &et->tk);
		et->parts = batch_partitions_begin_prefix(hb->call, sizeof(BatchRec),
												  hb->rows.nrows, hb->call->mem_limit,
												  et->tk.p);
		files += 1 << et->parts->bits;
		if (files > EARLY_FILES_MAX)
		{
			batch_partitions_end(et->parts);
			break;
		}
		scan->nearly++;
	}
}

/*
 * Group equal fingerprints of spilled rows (hamming_clusters): the members
 * of a group are marked in member, the first rows written to
 * scan->leaders; with first_bits > 0 the first table (of that many prefix
 * bits) is linked on the way.
 */
static void
group_spilled(HammingBatch *hb, uint8 *member, SpillScan *scan, int first_bits)
{
	BatchCall  *call = hb->call;
	BatchPartitions *parts;
	BatchRow	row;

	parts = batch_partitions_begin(call, sizeof(BatchRec), hb->rows.nrows,
								   call->mem_limit);
	batch_rows_rewind(&hb->rows);
	while (batch_rows_next(&hb->rows, &row))
	{
		BatchRec	rec;

		memcpy(&rec.key, row.payload, sizeof(uint64));
		rec.val = row.row;
		batch_partitions_put(parts, &rec);
	}
	memset(scan, 0, sizeof(*scan));
	scan->hb = hb;
	scan->member = member;
	scan->first_bits = first_bits;
	if (first_bits > 0)
		early_tables_begin(hb, scan);
	if (first_bits == 0 || 1 + scan->nearly < hb->layout.ntables)
		scan->leaders = BufFileCreateTemp(false);
	batch_partitions_sort_each(parts, group_runs, scan, false);
	batch_partitions_end(parts);
	if (first_bits > 0)
	{
		first_table_flush(scan);
		if (scan->run)
			pfree(scan->run);
		scan->run = NULL;
	}
	batch_log_time(call, "%s: %llu distinct fingerprints",
				   call->fname, (unsigned long long) scan->nleaders);
}

/* The prefix bits and the other blocks of the table sel. */
static void
table_key_init(const HammingLayout *L, const int *sel, TableKey *tk)
{
	uint64		set = hamming_table_blockset(L, sel);

	tk->p = hamming_table_prefix_bits(L, sel);
	tk->nrest = 0;
	for (int b = 0; b < L->m; b++)
		if ((set & (UINT64CONST(1) << b)) == 0)
			tk->rest[tk->nrest++] = b;
}

/*
 * The clusters' sort key of fingerprint fp under a table: the table's
 * prefix, mixed by a bijection, in the top p bits, the bits of the other
 * blocks below.  Two keys of one prefix agree on their top p bits, and the
 * XOR of the keys then has as many bits set as the XOR of the fingerprints
 * (the same bits, permuted).
 */
static inline uint64
cluster_sort_key(const HammingLayout *L, const int *sel, const TableKey *tk,
				 uint64 fp)
{
	uint64		mixed = hamming_table_key(L, sel, fp) * PREFIX_MIX;
	uint64		rest = 0;

	if (tk->p >= 64)
		return mixed;
	for (int i = 0; i < tk->nrest; i++)
	{
		int			b = tk->rest[i];

		rest = (rest << L->bsize[b]) | ((fp >> L->bshift[b]) & L->blow[b]);
	}
	return (mixed << (64 - tk->p)) | rest;
}

/*
 * Link every pair of a run of first rows sharing a table's prefix within
 * the radius (the key's bits give the distance).
 */
static pg_attribute_always_inline void
cluster_run_body(BatchUnionFind *uf, const BatchRec *r, uint64 len, int k)
{
	for (uint64 a = 0; a + 1 < len; a++)
	{
		uint64		ka = r[a].key;

		if ((a & 63) == 0)
			CHECK_FOR_INTERRUPTS();
		for (uint64 b = a + 1; b < len; b++)
			if (__builtin_popcountll(ka ^ r[b].key) <= k)
				batch_uf_union(uf, (uint32) r[a].val, (uint32) r[b].val);
	}
}

#ifdef BATCH_POPCNT_DISPATCH
/* cluster_run compiled for the POPCNT instruction. */
__attribute__((target("popcnt")))
static void
cluster_run_popcnt(BatchUnionFind *uf, const BatchRec *r, uint64 len, int k)
{
	cluster_run_body(uf, r, len, k);
}
#endif

/* cluster_run for any CPU (popcount in software). */
static void
cluster_run_generic(BatchUnionFind *uf, const BatchRec *r, uint64 len, int k)
{
	cluster_run_body(uf, r, len, k);
}

/*
 * Link every pair of a run of first rows within the radius, with the
 * hardware popcount when the CPU has one.
 */
static void
cluster_run(HammingBatch *hb, const BatchRec *r, uint64 len)
{
#ifdef BATCH_POPCNT_DISPATCH
	if (hamming_have_popcnt())
	{
		cluster_run_popcnt(&hb->uf, r, len, hb->radius);
		return;
	}
#endif
	cluster_run_generic(&hb->uf, r, len, hb->radius);
}

/* What is done with a run of (key, value) records of one prefix. */
typedef void (*PrefixRunFn) (SpillScan *scan, const BatchRec *r, uint64 len);

/*
 * Cut sorted (key, value) records into the runs sharing the top
 * scan->prefix_bits bits of their keys and hand each run of two or more to
 * fn.
 */
static void
prefix_runs(SpillScan *scan, const BatchRec *recs, uint64 count, PrefixRunFn fn)
{
	int			drop = 64 - scan->prefix_bits;

	for (uint64 s = 0; s < count;)
	{
		uint64		e = s + 1;
		uint64		pre = recs[s].key >> drop;

		while (e < count && (recs[e].key >> drop) == pre)
			e++;
		if (e - s > 1)
			fn(scan, recs + s, e - s);
		else
			CHECK_FOR_INTERRUPTS();	/* every run: s jumps by its length */
		s = e;
	}
}

/* Link the pairs of a clusters' run within the radius. */
static void
cluster_scan_run(SpillScan *scan, const BatchRec *r, uint64 len)
{
	cluster_run(scan->hb, r, len);
}

/* Partition callback of a clusters' table: link the pairs of each run. */
static void
cluster_table_runs(void *arg, char *records, uint64 count)
{
	prefix_runs((SpillScan *) arg, (BatchRec *) records, count, cluster_scan_run);
}

/* Link the pairs of the first table's current run and empty it. */
static void
first_table_flush(SpillScan *scan)
{
	if (scan->nrun > 1)
		cluster_run(scan->hb, scan->run, scan->nrun);
	scan->nrun = 0;
}

/*
 * The first table's blocks are the top bits of the fingerprint, and the
 * grouping pass meets the first rows in fingerprint order: the runs of that
 * table come one after the other, and are linked there, the fingerprint
 * being the key (the same limit on a run as in a partition).
 */
static void
first_table_add(SpillScan *scan, const BatchRec *leader)
{
	int			drop = 64 - scan->first_bits;

	if (scan->nrun > 0 && (scan->run[0].key >> drop) != (leader->key >> drop))
		first_table_flush(scan);
	if (scan->nrun == scan->runcap)
	{
		BatchCall  *call = scan->hb->call;

		if ((double) scan->nrun * sizeof(BatchRec) >= 2.0 * call->mem_limit)
			batch_error_run_too_large(call, scan->nrun + 1, sizeof(BatchRec));
		scan->runcap = Max(scan->runcap * 2, 1024);
		scan->run = scan->run ?
			repalloc_huge(scan->run, scan->runcap * sizeof(BatchRec)) :
			MemoryContextAllocHuge(call->cxt, scan->runcap * sizeof(BatchRec));
	}
	scan->run[scan->nrun++] = *leader;
}

/*
 * Enter the n (fingerprint, value) records of a file into a table's
 * partitions as (key, value) records, the key cluster_sort_key's; chunk
 * holds LEADER_CHUNK records.
 */
static void
enter_from_file(const HammingLayout *L, BatchPartitions *parts, const int *sel,
				const TableKey *tk, BufFile *file, uint64 n, BatchRec *chunk)
{
	batch_file_rewind(file);
	for (uint64 done = 0; done < n;)
	{
		uint64		m = Min((uint64) LEADER_CHUNK, n - done);

		batch_file_read(file, chunk, m * sizeof(BatchRec));
		CHECK_FOR_INTERRUPTS();
		for (uint64 i = 0; i < m; i++)
		{
			BatchRec	rec;

			rec.key = cluster_sort_key(L, sel, tk, chunk[i].key);
			rec.val = chunk[i].val;
			batch_partitions_put_rec(parts, &rec);
		}
		done += m;
	}
}

/*
 * The tables of hamming_clusters over the file of first rows: per table,
 * every first row goes as a (key, row) record into the partition of its
 * prefix; each partition is sorted in place and its runs of one prefix
 * linked.
 */
static void
cluster_tables_spilled(HammingBatch *hb, SpillScan *scan)
{
	BatchCall  *call = hb->call;
	HammingLayout *L = &hb->layout;
	BatchRec   *chunk = palloc(LEADER_CHUNK * sizeof(BatchRec));
	int			sel[64];
	double		tno = 0;

	/* the first table was linked by the grouping pass, the next entered */
	hamming_first_table(L, sel);
	tno++;
	batch_report_progress(call, "table", tno, L->ntables);
	for (int t = 0; t < scan->nearly; t++)
	{
		EarlyTable *et = &scan->early[t];

		scan->prefix_bits = et->tk.p;
		batch_partitions_sort_each(et->parts, cluster_table_runs, scan, true);
		batch_partitions_end(et->parts);
		hamming_next_table(L, sel);
		tno++;
		batch_report_progress(call, "table", tno, L->ntables);
	}
	while (hamming_next_table(L, sel))
	{
		BatchPartitions *parts;
		TableKey	tk;

		table_key_init(L, sel, &tk);
		parts = batch_partitions_begin_prefix(call, sizeof(BatchRec), scan->nleaders,
											  call->mem_limit, tk.p);
		enter_from_file(L, parts, sel, &tk, scan->leaders, scan->nleaders, chunk);
		scan->prefix_bits = tk.p;
		batch_partitions_sort_each(parts, cluster_table_runs, scan, true);
		batch_partitions_end(parts);
		tno++;
		batch_report_progress(call, "table", tno, L->ntables);
	}
	pfree(chunk);
}

/* Compare all pairs of one run of rows sharing a table's prefix. */
static void
scan_run(SpillScan *scan, const SpillRec *r, uint64 len)
{
	HammingBatch *hb = scan->hb;
	BatchCall  *call = hb->call;
	const HammingLayout *L = &hb->layout;
	int			k = hb->radius;

	for (uint64 a = 0; a + 1 < len; a++)
	{
		if ((a & 63) == 0)
			CHECK_FOR_INTERRUPTS();
		for (uint64 b = a + 1; b < len; b++)
		{
			uint64		x = r[a].fp ^ r[b].fp;
			int			dist = __builtin_popcountll(x);

			if (dist > k)
				continue;
			if (call->mode == BATCH_JOIN && r[a].side == r[b].side)
				continue;
			if (hb->candidates)
			{
				if (L->m == 0 || hamming_table_owns_pair(L, scan->set, x))
					batch_pairs_add(hb->candidates, r[a].row, r[b].row);
				continue;
			}
			if (call->mode == BATCH_CLUSTER)
			{
				batch_uf_union(&hb->uf, r[a].row, r[b].row);
				continue;
			}
			if (L->m > 0 && !hamming_table_owns_pair(L, scan->set, x))
				continue;
			if (call->mode == BATCH_JOIN)
			{
				if (r[a].side == 0)
					batch_put_pair(call, r[a].id, r[b].id, Int32GetDatum(dist));
				else
					batch_put_pair(call, r[b].id, r[a].id, Int32GetDatum(dist));
			}
			else
				batch_put_ordered_pair(call, r[a].id, r[b].id, Int32GetDatum(dist));
		}
	}
}

/*
 * Verify a candidate pair (x the earlier row, so the side-0 row of a join)
 * and report or link it.
 */
static void
verify_candidate(void *arg, const BatchCarried *x, const BatchRow *y)
{
	HammingBatch *hb = (HammingBatch *) arg;
	BatchCall  *call = hb->call;
	uint64		fx;
	uint64		fy;
	double		similarity;
	int			dist;

	if (!batch_verify_pair(&hb->verify, x->extra, x->extra_len, x->flags,
						   y->extra, y->extra_len, y->flags, &similarity))
		return;
	memcpy(&fx, x->payload, sizeof(uint64));
	memcpy(&fy, y->payload, sizeof(uint64));
	dist = __builtin_popcountll(fx ^ fy);
	if (call->mode == BATCH_CLUSTER)
		batch_uf_union(&hb->uf, x->row, y->row);
	else if (call->mode == BATCH_JOIN)
		batch_put_pair(call, x->id, y->id, Int32GetDatum(dist));
	else
		batch_put_ordered_pair(call, x->id, y->id, Int32GetDatum(dist));
}

/* Partition callback of a table: cut the sorted records into runs. */
static void
table_runs(void *arg, char *records, uint64 count)
{
	SpillScan  *scan = (SpillScan *) arg;
	SpillRec   *recs = (SpillRec *) records;

	for (uint64 s = 0; s < count;)
	{
		uint64		e = s + 1;

		while (e < count && recs[e].key == recs[s].key)
			e++;
		if (e - s > 1)
			scan_run(scan, recs + s, e - s);
		else
			CHECK_FOR_INTERRUPTS();	/* every run: s jumps by its length */
		s = e;
	}
}

/*
 * The masks, in the key of table sel (cluster_sort_key), of the blocks
 * outside the table that come before its last block: the table owns a pair
 * of one prefix when the pair differs in each of them
 * (hamming_table_owns_pair: its blocks are then the first c on which the
 * pair agrees).
 */
static void
pairs_owner_masks(const HammingLayout *L, const int *sel, const TableKey *tk,
				  SpillScan *scan)
{
	int			shift = 0;

	scan->nowner = 0;
	for (int i = tk->nrest - 1; i >= 0; i--)
	{
		int			b = tk->rest[i];

		if (b < sel[L->c - 1])
			scan->owner[scan->nowner++] = L->blow[b] << shift;
		shift += L->bsize[b];
	}
}

/*
 * Report every owned pair within the radius of a run of (key, id) records
 * sharing a table's prefix, or make it a candidate of (key, row) records
 * when the call verifies; the XOR of two keys has the bits of the XOR of
 * their fingerprints, permuted.
 */
static pg_attribute_always_inline void
pairs_run_body(SpillScan *scan, const BatchRec *r, uint64 len)
{
	BatchCall  *call = scan->hb->call;
	int			k = scan->hb->radius;

	for (uint64 a = 0; a + 1 < len; a++)
	{
		uint64		ka = r[a].key;

		if ((a & 63) == 0)
			CHECK_FOR_INTERRUPTS();
		for (uint64 b = a + 1; b < len; b++)
		{
			uint64		x = ka ^ r[b].key;
			int			dist = __builtin_popcountll(x);
			bool		owned = true;

			if (dist > k)
				continue;
			for (int i = 0; i < scan->nowner && owned; i++)
				owned = (x & scan->owner[i]) != 0;
			if (!owned)
				continue;
			if (scan->hb->candidates)
				batch_pairs_add(scan->hb->candidates, (uint32) r[a].val,
								(uint32) r[b].val);
			else
				batch_put_ordered_pair(call, (int64) r[a].val, (int64) r[b].val,
									   Int32GetDatum(dist));
		}
	}
}

#ifdef BATCH_POPCNT_DISPATCH
/* pairs_run compiled for the POPCNT instruction. */
__attribute__((target("popcnt")))
static void
pairs_run_popcnt(SpillScan *scan, const BatchRec *r, uint64 len)
{
	pairs_run_body(scan, r, len);
}
#endif

/* pairs_run for any CPU (popcount in software). */
static void
pairs_run_generic(SpillScan *scan, const BatchRec *r, uint64 len)
{
	pairs_run_body(scan, r, len);
}

/*
 * Report the owned pairs of a pairs' run, with the hardware popcount when
 * the CPU has one.
 */
static void
pairs_run(SpillScan *scan, const BatchRec *r, uint64 len)
{
#ifdef BATCH_POPCNT_DISPATCH
	if (hamming_have_popcnt())
	{
		pairs_run_popcnt(scan, r, len);
		return;
	}
#endif
	pairs_run_generic(scan, r, len);
}

/* Partition callback of a pairs' table: report the owned pairs of each run. */
static void
pairs_table_runs(void *arg, char *records, uint64 count)
{
	prefix_runs((SpillScan *) arg, (BatchRec *) records, count, pairs_run);
}

/*
 * Enter a table's (key, id) records of the rows ((key, row) when the call
 * verifies) into its partitions: from the rows for the first table, which
 * also writes the (fingerprint, id or row) of each row to 'base' when there
 * is one; from base for the others, read in chunks.
 */
static void
pairs_enter_table(HammingBatch *hb, BatchPartitions *parts, const int *sel,
				  const TableKey *tk, BufFile *base, bool first,
				  BatchRec *chunk)
{
	const HammingLayout *L = &hb->layout;
	BatchRec	rec;

	if (first)
	{
		BatchRow	row;

		batch_rows_rewind(&hb->rows);
		while (batch_rows_next(&hb->rows, &row))
		{
			uint64		fp;

			memcpy(&fp, row.payload, sizeof(uint64));
			rec.val = hb->candidates ? (uint64) row.row : (uint64) row.id;
			if (base)
			{
				rec.key = fp;
				BufFileWrite(base, &rec, sizeof(rec));
			}
			rec.key = cluster_sort_key(L, sel, tk, fp);
			batch_partitions_put_rec(parts, &rec);
		}
		return;
	}
	enter_from_file(L, parts, sel, tk, base, hb->rows.nrows, chunk);
}

/*
 * The tables of hamming_pairs (and of verified hamming_clusters) over
 * spilled rows: per table, every row goes as a 16-byte (key, id) record
 * ((key, row) when the call verifies), the key the one of
 * cluster_sort_key, into the partition of its prefix, enough partitions
 * that none is split again; each partition is sorted in place and the
 * owned pairs of its runs reported (or made candidates).  The first table
 * reads the rows and writes their (fingerprint, id or row), 16 bytes, to a
 * file that the other tables read instead.
 */
static void
pairs_tables_spilled(HammingBatch *hb)
{
	BatchCall  *call = hb->call;
	HammingLayout *L = &hb->layout;
	BufFile    *base = L->ntables > 1 ? BufFileCreateTemp(false) : NULL;
	BatchRec   *chunk = palloc(LEADER_CHUNK * sizeof(BatchRec));
	int			sel[64];
	double		tno = 0;

	hamming_first_table(L, sel);
	do
	{
		BatchPartitions *parts;
		SpillScan	scan;
		TableKey	tk;

		table_key_init(L, sel, &tk);
		parts = batch_partitions_begin_wide(call, sizeof(BatchRec), hb->rows.nrows,
											call->mem_limit, Min(tk.p, 64));
		pairs_enter_table(hb, parts, sel, &tk, base, tno == 0, chunk);
		memset(&scan, 0, sizeof(scan));
		scan.hb = hb;
		scan.prefix_bits = Min(tk.p, 64);
		pairs_owner_masks(L, sel, &tk, &scan);
		batch_partitions_sort_each(parts, pairs_table_runs, &scan, true);
		batch_partitions_end(parts);
		tno++;
		batch_report_progress(call, "table", tno, L->ntables);
	} while (hamming_next_table(L, sel));
	if (base)
		BufFileClose(base);
	pfree(chunk);
}

/*
 * The tables over spilled rows: per table, every row (every first row of a
 * group, for clusters) goes into the partition of its prefix; each
 * partition is sorted and its runs compared.
 */
void
hamming_tables_spilled(HammingBatch *hb)
{
	BatchCall  *call = hb->call;
	BatchRows  *rows = &hb->rows;
	HammingLayout *L = &hb->layout;
	uint8	   *member = NULL;
	int			sel[64];
	double		tno = 0;
	SpillScan	groups;
	MemoryContext old = MemoryContextSwitchTo(call->cxt);

	memset(&groups, 0, sizeof(groups));
	hamming_choose_layout(hb, (double) rows->nrows, true, 64);
	batch_log(call, "%s: %llu rows, radius %d: %d blocks, %.0f tables, through temporary files (work_mem %d kB)",
			  call->fname, (unsigned long long) rows->nrows, hb->radius,
			  L->m, L->ntables, work_mem);
	if (L->m > 0 && call->mode != BATCH_JOIN &&
		(call->mode == BATCH_PAIRS || hb->verify.active))
	{
		if (hb->verify.active)
			hb->candidates = batch_pairs_begin(rows);
		pairs_tables_spilled(hb);
		if (hb->candidates)
			batch_pairs_verify(hb->candidates, verify_candidate, hb);
		MemoryContextSwitchTo(old);
		return;
	}
	if (hb->verify.active)
		hb->candidates = batch_pairs_begin(rows);
	else if (call->mode == BATCH_CLUSTER)
	{
		int			first_bits = 0;

		if (L->m > 0)
		{
			hamming_first_table(L, sel);
			first_bits = hamming_table_prefix_bits(L, sel);
		}
		member = palloc0(rows->nrows / 8 + 1);
		group_spilled(hb, member, &groups, first_bits);
	}
	if (member && L->m > 0)
	{
		cluster_tables_spilled(hb, &groups);
		if (groups.leaders)
			BufFileClose(groups.leaders);
		if (groups.early)
			pfree(groups.early);
		pfree(member);
		MemoryContextSwitchTo(old);
		return;
	}
	if (groups.leaders)
		BufFileClose(groups.leaders);

	memset(sel, 0, sizeof(sel));
	if (L->m > 0)
		hamming_first_table(L, sel);
	do
	{
		BatchPartitions *parts;
		BatchRow	row;
		SpillScan	scan;

		parts = batch_partitions_begin(call, sizeof(SpillRec), rows->nrows,
									   call->mem_limit);
		batch_rows_rewind(rows);
		while (batch_rows_next(rows, &row))
		{
			SpillRec	rec;

			if (member && batch_bit_is_set(member, row.row))
				continue;
			memset(&rec, 0, sizeof(rec));
			memcpy(&rec.fp, row.payload, sizeof(uint64));
			rec.key = L->m > 0 ? nddup_fmix64(hamming_table_key(L, sel, rec.fp)) : 0;
			rec.id = row.id;
			rec.row = row.row;
			rec.side = (row.flags & BATCH_ROW_SIDE1) ? 1 : 0;
			batch_partitions_put(parts, &rec);
		}
		memset(&scan, 0, sizeof(scan));
		scan.hb = hb;
		scan.set = L->m > 0 ? hamming_table_blockset(L, sel) : 0;
		scan.member = member;
		batch_partitions_sort_each(parts, table_runs, &scan, true);
		batch_partitions_end(parts);
		tno++;
		batch_report_progress(call, "table", tno, L->ntables);
	} while (L->m > 0 && hamming_next_table(L, sel));

	if (hb->candidates)
		batch_pairs_verify(hb->candidates, verify_candidate, hb);
	if (member)
		pfree(member);
	MemoryContextSwitchTo(old);
}
