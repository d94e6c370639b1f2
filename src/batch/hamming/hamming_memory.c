/*-------------------------------------------------------------------------
 *
 * hamming_memory.c
 *	  The in-memory path of the Hamming batch functions: equal fingerprints
 *	  grouped first (Broder et al. 1997, "identical documents"), then the
 *	  permuted tables of Manku, Jain and Das Sarma (WWW 2007, s.3) over the
 *	  distinct fingerprints, each a radix sort of prefix words and a scan of
 *	  the runs of equal prefix.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "batch/hamming/hamming_batch.h"

#include "miscadmin.h"
#include "utils/memutils.h"

/*
 * Group rows by fingerprint (Broder's identical-documents step): ufp gets
 * the distinct fingerprints, grow the row numbers in fingerprint order
 * (input order inside a group, so side-0 rows first).  The fingerprints of
 * the rows are freed on the way.
 */
void
hamming_group_fingerprints(HammingBatch *hb)
{
	BatchRows  *rows = &hb->rows;
	uint64		n = rows->nrows;
	uint64	   *fp = (uint64 *) rows->payload;
	BatchRec   *recs;
	BatchRec   *tmp;
	BatchRec   *sorted;
	uint64		d = 0;
	MemoryContext old = MemoryContextSwitchTo(hb->call->cxt);

	recs = palloc_extended(Max(n, 1) * sizeof(BatchRec), MCXT_ALLOC_HUGE);
	for (uint64 i = 0; i < n; i++)
	{
		recs[i].key = fp[i];
		recs[i].val = i;
	}
	if (rows->payload)
		pfree(rows->payload);
	rows->payload = NULL;
	tmp = palloc_extended(Max(n, 1) * sizeof(BatchRec), MCXT_ALLOC_HUGE);
	sorted = batch_sort_by_key(recs, tmp, n);
	pfree(sorted == recs ? tmp : recs);

	for (uint64 i = 0; i < n; i++)
		if (i == 0 || sorted[i].key != sorted[i - 1].key)
			d++;
	hb->ndistinct = d;
	hb->ufp = palloc_extended(Max(d, 1) * sizeof(uint64), MCXT_ALLOC_HUGE);
	hb->gstart = palloc_extended((d + 1) * sizeof(uint32), MCXT_ALLOC_HUGE);
	hb->grow = palloc_extended(Max(n, 1) * sizeof(uint32), MCXT_ALLOC_HUGE);
	hb->gflags = palloc_extended(Max(d, 1), MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	d = 0;
	for (uint64 i = 0; i < n; i++)
	{
		if (i == 0 || sorted[i].key != sorted[i - 1].key)
		{
			hb->ufp[d] = sorted[i].key;
			hb->gstart[d] = (uint32) i;
			d++;
		}
		hb->grow[i] = (uint32) sorted[i].val;
		hb->gflags[d - 1] |= (sorted[i].val < rows->nside0) ? 1 : 2;
	}
	hb->gstart[d] = (uint32) n;
	pfree(sorted);
	MemoryContextSwitchTo(old);
}

/*
 * Two distinct fingerprint groups u and v are within the radius (distance
 * d): expand them into result rows, or record what the mode needs.
 */
static void
handle_group_pair(HammingBatch *hb, uint32 u, uint32 v, int d)
{
	BatchCall  *call = hb->call;
	const int64 *id = hb->rows.id;

	switch (call->mode)
	{
		case BATCH_PAIRS:
			if (call->greedy != NULL && !hb->verify.active)
			{
				/* greedy clusters: the groups are classes, one edge */
				batch_greedy_edge(call, id[hb->grow[hb->gstart[u]]], id[hb->grow[hb->gstart[v]]]);
				break;
			}
			for (uint32 i = hb->gstart[u]; i < hb->gstart[u + 1]; i++)
			{
				int64		a = id[hb->grow[i]];

				CHECK_FOR_INTERRUPTS();
				for (uint32 j = hb->gstart[v]; j < hb->gstart[v + 1]; j++)
					if (hamming_rows_verified(hb, hb->grow[i], hb->grow[j]))
						batch_put_ordered_pair(call, a, id[hb->grow[j]], Int32GetDatum(d));
			}
			break;
		case BATCH_JOIN:
			for (int swap = 0; swap < 2; swap++)
			{
				uint32		x = swap ? v : u;
				uint32		y = swap ? u : v;

				if (!(hb->gflags[x] & 1) || !(hb->gflags[y] & 2))
					continue;
				for (uint32 i = hb->gstart[x]; i < hb->gstart[x + 1]; i++)
				{
					uint32		ri = hb->grow[i];

					if (ri >= hb->rows.nside0)
						break;	/* side-0 rows come first in a group */
					CHECK_FOR_INTERRUPTS();
					for (uint32 j = hb->gstart[y]; j < hb->gstart[y + 1]; j++)
					{
						uint32		rj = hb->grow[j];

						if (rj >= hb->rows.nside0 && hamming_rows_verified(hb, ri, rj))
							batch_put_pair(call, id[ri], id[rj], Int32GetDatum(d));
					}
				}
			}
			break;
		case BATCH_CLUSTER:
			if (!hb->verify.active)
			{
				batch_uf_union(&hb->uf, hb->grow[hb->gstart[u]], hb->grow[hb->gstart[v]]);
				break;
			}
			/* verified: link the rows whose values pass, pair by pair */
			for (uint32 i = hb->gstart[u]; i < hb->gstart[u + 1]; i++)
			{
				CHECK_FOR_INTERRUPTS();
				for (uint32 j = hb->gstart[v]; j < hb->gstart[v + 1]; j++)
					if (batch_uf_find(&hb->uf, hb->grow[i]) != batch_uf_find(&hb->uf, hb->grow[j]) &&
						hamming_rows_verified(hb, hb->grow[i], hb->grow[j]))
						batch_uf_union(&hb->uf, hb->grow[i], hb->grow[j]);
			}
			break;
		case BATCH_ASSIGN:
			hamming_assign_pair(hb, u, v, d);
			break;
	}
}

/* Pairs inside one group of equal fingerprints (distance 0). */
static void
handle_identical(HammingBatch *hb, uint32 g)
{
	BatchCall  *call = hb->call;
	const int64 *id = hb->rows.id;
	uint32		lo = hb->gstart[g];
	uint32		hi = hb->gstart[g + 1];

	switch (call->mode)
	{
		case BATCH_PAIRS:
			if (call->greedy != NULL && !hb->verify.active)
			{
				/* greedy clusters: the group's rows are one class */
				for (uint32 i = lo + 1; i < hi; i++)
					batch_greedy_same(call, id[hb->grow[lo]], id[hb->grow[i]]);
				break;
			}
			for (uint32 i = lo; i < hi; i++)
			{
				int64		a = id[hb->grow[i]];

				CHECK_FOR_INTERRUPTS();
				for (uint32 j = i + 1; j < hi; j++)
					if (hamming_rows_verified(hb, hb->grow[i], hb->grow[j]))
						batch_put_ordered_pair(call, a, id[hb->grow[j]], Int32GetDatum(0));
			}
			break;
		case BATCH_JOIN:
			if (hb->gflags[g] != 3)
				break;
			for (uint32 i = lo; i < hi && hb->grow[i] < hb->rows.nside0; i++)
			{
				CHECK_FOR_INTERRUPTS();
				for (uint32 j = i + 1; j < hi; j++)
					if (hb->grow[j] >= hb->rows.nside0 &&
						hamming_rows_verified(hb, hb->grow[i], hb->grow[j]))
						batch_put_pair(call, id[hb->grow[i]], id[hb->grow[j]],
									   Int32GetDatum(0));
			}
			break;
		case BATCH_CLUSTER:
			if (!hb->verify.active)
			{
				/* the group's rows are one component */
				for (uint32 i = lo + 1; i < hi; i++)
					batch_uf_union(&hb->uf, hb->grow[lo], hb->grow[i]);
				break;
			}
			for (uint32 i = lo; i < hi; i++)
			{
				CHECK_FOR_INTERRUPTS();
				for (uint32 j = i + 1; j < hi; j++)
					if (batch_uf_find(&hb->uf, hb->grow[i]) != batch_uf_find(&hb->uf, hb->grow[j]) &&
						hamming_rows_verified(hb, hb->grow[i], hb->grow[j]))
						batch_uf_union(&hb->uf, hb->grow[i], hb->grow[j]);
			}
			break;
		case BATCH_ASSIGN:
			hamming_assign_identical(hb, g);
			break;
	}
}

/*
 * Compare all pairs inside one run of fingerprints sharing the table's
 * prefix; f[i] is the fingerprint of group ix[i].
 */
static pg_attribute_always_inline void
scan_run_body(HammingBatch *hb, const HammingLayout *L, uint64 set,
			  const uint64 *f, const uint32 *ix, uint32 len)
{
	BatchMode	mode = hb->call->mode;
	int			k = hb->radius;
	bool		cross = (mode == BATCH_JOIN || mode == BATCH_ASSIGN);

	/* clusters link a pair found twice harmlessly, unless it costs a check */
	bool		owned_only = mode != BATCH_CLUSTER || hb->verify.active;

	for (uint32 a = 0; a + 1 < len; a++)
	{
		uint64		fa = f[a];

		if ((a & 63) == 0)
			CHECK_FOR_INTERRUPTS();
		if (cross)
		{
			uint8		ga = hb->gflags[ix[a]];

			for (uint32 b = a + 1; b < len; b++)
			{
				uint64		x = fa ^ f[b];
				uint8		gb;

				if (__builtin_popcountll(x) > k)
					continue;
				gb = hb->gflags[ix[b]];
				/* join: one side each way; assign: anything with new rows */
				if (mode == BATCH_JOIN
					? !(((ga & 1) && (gb & 2)) || ((ga & 2) && (gb & 1)))
					: !((ga | gb) & 2))
					continue;
				if (L->m > 0 && !hamming_table_owns_pair(L, set, x))
					continue;
				handle_group_pair(hb, ix[a], ix[b], __builtin_popcountll(x));
			}
		}
		else
		{
			for (uint32 b = a + 1; b < len; b++)
			{
				uint64		x = fa ^ f[b];

				if (__builtin_popcountll(x) > k)
					continue;
				if (L->m > 0 && owned_only &&
					!hamming_table_owns_pair(L, set, x))
					continue;
				handle_group_pair(hb, ix[a], ix[b], __builtin_popcountll(x));
			}
		}
	}
}

#ifdef BATCH_POPCNT_DISPATCH
/* scan_run compiled for the POPCNT instruction. */
__attribute__((target("popcnt")))
static void
scan_run_popcnt(HammingBatch *hb, const HammingLayout *L, uint64 set,
				const uint64 *f, const uint32 *ix, uint32 len)
{
	scan_run_body(hb, L, set, f, ix, len);
}
#endif

/* scan_run for any CPU (popcount in software). */
static void
scan_run_generic(HammingBatch *hb, const HammingLayout *L, uint64 set,
				 const uint64 *f, const uint32 *ix, uint32 len)
{
	scan_run_body(hb, L, set, f, ix, len);
}

/*
 * Compare all pairs of a run, with the hardware popcount when the CPU has
 * one (the build does not assume it: -mpopcnt is not in the flags).
 */
static void
scan_run(HammingBatch *hb, const HammingLayout *L, uint64 set,
		 const uint64 *f, const uint32 *ix, uint32 len)
{
#ifdef BATCH_POPCNT_DISPATCH
	if (hamming_have_popcnt())
	{
		scan_run_popcnt(hb, L, set, f, ix, len);
		return;
	}
#endif
	scan_run_generic(hb, L, set, f, ix, len);
}

/*
 * The tables over the distinct fingerprints (Manku s.3, batch form): for
 * each table build words (prefix << (64 - p)) | group number, sort them by
 * the prefix, and compare inside every run of equal prefix.
 */
void
hamming_tables_in_memory(HammingBatch *hb)
{
	BatchCall  *call = hb->call;
	uint64		d = hb->ndistinct;
	HammingLayout *L = &hb->layout;
	int			idxbits;
	int			maxprefix;
	uint64		idxmask;
	uint64	   *w;
	uint64	   *tmp;
	uint64	   *fbuf = NULL;
	uint32	   *ibuf = NULL;
	uint64		bufcap = 0;
	int			sel[64];
	double		tno = 0;

	/* distance 0: the groups themselves */
	for (uint64 g = 0; g < d; g++)
	{
		if ((g & 0xfff) == 0)
			CHECK_FOR_INTERRUPTS();
		if (hb->gstart[g + 1] - hb->gstart[g] > 1)
			handle_identical(hb, (uint32) g);
	}
	if (hb->radius == 0 || d < 2)
		return;

	idxbits = 64 - __builtin_clzll(d - 1);
	maxprefix = 64 - idxbits;
	idxmask = (UINT64CONST(1) << idxbits) - 1;
	hamming_choose_layout(hb, (double) d, false, maxprefix);
	batch_log(call, "%s: %llu rows, %llu distinct fingerprints, radius %d: %s%d blocks, %.0f tables, in memory",
			  call->fname, (unsigned long long) hb->rows.nrows,
			  (unsigned long long) d, hb->radius,
			  L->m == 0 ? "all pairs compared, " : "", L->m, L->ntables);

	if (L->m == 0)
	{
		/* one run holding everything: compare all pairs */
		uint32	   *ix = MemoryContextAllocHuge(call->cxt, d * sizeof(uint32));

		for (uint64 i = 0; i < d; i++)
			ix[i] = (uint32) i;
		scan_run(hb, L, 0, hb->ufp, ix, (uint32) d);
		pfree(ix);
		return;
	}

	w = MemoryContextAllocHuge(call->cxt, d * sizeof(uint64));
	tmp = MemoryContextAllocHuge(call->cxt, d * sizeof(uint64));
	hamming_first_table(L, sel);
	do
	{
		int			p = hamming_table_prefix_bits(L, sel);
		int			peff = Min(p, maxprefix);
		uint64		set = hamming_table_blockset(L, sel);
		uint64	   *sorted;
		uint64		i;

		CHECK_FOR_INTERRUPTS();
		for (i = 0; i < d; i++)
		{
			uint64		key = hamming_table_key(L, sel, hb->ufp[i]) >> (p - peff);

			w[i] = (peff > 0 ? key << (64 - peff) : 0) | i;
		}
		sorted = batch_radix_sort_top(w, tmp, d, peff);

		i = 0;
		while (i < d)
		{
			uint64		pre = sorted[i] & ~idxmask;
			uint64		j = i + 1;

			while (j < d && (sorted[j] & ~idxmask) == pre)
				j++;
			if (j - i > 1)
			{
				uint64		len = j - i;

				if (len > bufcap)
				{
					bufcap = Max(len, bufcap * 2);
					if (fbuf)
					{
						pfree(fbuf);
						pfree(ibuf);
					}
					fbuf = MemoryContextAllocHuge(call->cxt, bufcap * sizeof(uint64));
					ibuf = MemoryContextAllocHuge(call->cxt, bufcap * sizeof(uint32));
				}
				for (uint64 r = 0; r < len; r++)
				{
					uint32		g = (uint32) (sorted[i + r] & idxmask);

					ibuf[r] = g;
					fbuf[r] = hb->ufp[g];
				}
				scan_run(hb, L, set, fbuf, ibuf, (uint32) len);
			}
			else if ((i & 0xfff) == 0)
				CHECK_FOR_INTERRUPTS();
			i = j;
		}
		tno++;
		batch_report_progress(call, "table", tno, L->ntables);
	} while (hamming_next_table(L, sel));

	pfree(w);
	pfree(tmp);
	if (fbuf)
	{
		pfree(fbuf);
		pfree(ibuf);
	}
}
