/*-------------------------------------------------------------------------
 *
 * hamming_assign.c
 *	  hamming_assign(): the rows of new_query joined to the existing
 *	  clusters of existing_query (side 0, whose auxiliary value is the
 *	  cluster id) within a Hamming radius.  The rules (docs/batch.md):
 *
 *	  1. a new row with existing rows within the radius joins the cluster of
 *		 the nearest one (ties: the smallest cluster id);
 *	  2. new rows without such a match are clustered among themselves
 *		 (union-find over new-new pairs); a component that touches a new row
 *		 matched by rule 1 joins the smallest such cluster id;
 *	  3. any other component is a new cluster named after its earliest row.
 *
 * Existing clusters never merge.  The whole input is held in memory (the
 * in-memory path of hamming_memory.c finds the pairs).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "batch/hamming/hamming_batch.h"

#include "miscadmin.h"
#include "utils/memutils.h"

/* Set up the per-group state once the groups are known. */
void
hamming_assign_begin(HammingBatch *hb)
{
	uint64		d = hb->ndistinct;
	MemoryContext cxt = hb->call->cxt;

	batch_uf_init(hb->call, &hb->guf, d, "work_mem");
	hb->bestd = MemoryContextAllocHuge(cxt, Max(d, 1));
	hb->bestc = MemoryContextAllocHuge(cxt, Max(d, 1) * sizeof(int64));
	hb->gminc = MemoryContextAllocHuge(cxt, Max(d, 1) * sizeof(int64));
	for (uint64 g = 0; g < d; g++)
	{
		hb->bestd[g] = NO_BEST;
		hb->bestc[g] = 0;
		hb->gminc[g] = PG_INT64_MAX;
		for (uint32 i = hb->gstart[g]; i < hb->gstart[g + 1]; i++)
		{
			uint32		r = hb->grow[i];

			if (r < hb->rows.nside0 && hb->rows.aux[r] < hb->gminc[g])
				hb->gminc[g] = hb->rows.aux[r];
		}
	}
}

/* Note an edge between groups u and v of new rows. */
static void
assign_edge(HammingBatch *hb, uint32 u, uint32 v)
{
	int64		limit = hb->call->mem_limit;

	if (hb->nedges == hb->edgecap)
	{
		uint64		newcap = Max(hb->edgecap * 2, 4096);

		if ((int64) newcap * 2 * sizeof(uint32) > limit)
			newcap = Max((uint64) limit / (2 * sizeof(uint32)), hb->edgecap + 1);
		if ((int64) (hb->nedges + 1) * 2 * sizeof(uint32) > limit)
			batch_error_memory(hb->call, "work_mem",
							   (double) (hb->nedges + 1) * 4 * sizeof(uint32),
							   "hamming_assign keeps the pairs among the new rows in memory, 8 bytes per pair.");
		if (hb->edges == NULL)
			hb->edges = MemoryContextAllocHuge(hb->call->cxt, newcap * 2 * sizeof(uint32));
		else
			hb->edges = repalloc_huge(hb->edges, newcap * 2 * sizeof(uint32));
		hb->edgecap = newcap;
	}
	hb->edges[2 * hb->nedges] = u;
	hb->edges[2 * hb->nedges + 1] = v;
	hb->nedges++;
}

/* Group v (new rows) is at distance d of group u's existing rows. */
static inline void
assign_match(HammingBatch *hb, uint32 u, uint32 v, int d)
{
	int64		c = hb->gminc[u];

	if (d < hb->bestd[v] || (d == hb->bestd[v] && c < hb->bestc[v]))
	{
		hb->bestd[v] = (uint8) d;
		hb->bestc[v] = c;
	}
}

/* Two fingerprint groups within the radius (distance d). */
void
hamming_assign_pair(HammingBatch *hb, uint32 u, uint32 v, int d)
{
	if ((hb->gflags[u] & 1) && (hb->gflags[v] & 2))
		assign_match(hb, u, v, d);
	if ((hb->gflags[v] & 1) && (hb->gflags[u] & 2))
		assign_match(hb, v, u, d);
	if ((hb->gflags[u] & 2) && (hb->gflags[v] & 2))
		assign_edge(hb, u, v);
}

/* A group holding existing and new rows: its new rows match at distance 0. */
void
hamming_assign_identical(HammingBatch *hb, uint32 g)
{
	if (hb->gflags[g] == 3)
		assign_match(hb, g, g, 0);
}

/* Emit the cluster of every new row (the rules in the file header). */
void
hamming_assign_finish(HammingBatch *hb)
{
	BatchRows  *rows = &hb->rows;
	uint64		d = hb->ndistinct;
	uint32	   *rg;
	int64	   *attach;
	bool	   *attached;
	uint32	   *rep;
	MemoryContext cxt = hb->call->cxt;

	rg = MemoryContextAllocHuge(cxt, Max(rows->nrows, 1) * sizeof(uint32));
	for (uint64 g = 0; g < d; g++)
		for (uint32 i = hb->gstart[g]; i < hb->gstart[g + 1]; i++)
			rg[hb->grow[i]] = (uint32) g;
	attach = MemoryContextAllocHuge(cxt, Max(d, 1) * sizeof(int64));
	attached = MemoryContextAllocHuge(cxt, Max(d, 1) * sizeof(bool));
	rep = MemoryContextAllocHuge(cxt, Max(d, 1) * sizeof(uint32));
	for (uint64 g = 0; g < d; g++)
	{
		attached[g] = false;
		rep[g] = PG_UINT32_MAX;
	}

	/* components of unmatched new rows */
	for (uint64 e = 0; e < hb->nedges; e++)
	{
		uint32		u = hb->edges[2 * e];
		uint32		v = hb->edges[2 * e + 1];

		if (hb->bestd[u] == NO_BEST && hb->bestd[v] == NO_BEST)
			batch_uf_union(&hb->guf, u, v);
	}
	/* components touching matched new rows */
	for (uint64 e = 0; e < hb->nedges; e++)
	{
		uint32		u = hb->edges[2 * e];
		uint32		v = hb->edges[2 * e + 1];

		if ((hb->bestd[u] == NO_BEST) == (hb->bestd[v] == NO_BEST))
			continue;
		if (hb->bestd[u] != NO_BEST)
		{
			uint32		t = u;

			u = v;
			v = t;
		}
		/* u unmatched, v matched */
		u = batch_uf_find(&hb->guf, u);
		if (!attached[u] || hb->bestc[v] < attach[u])
		{
			attach[u] = hb->bestc[v];
			attached[u] = true;
		}
	}
	/* representatives of new clusters */
	for (uint64 r = rows->nside0; r < rows->nrows; r++)
	{
		uint32		g = rg[r];
		uint32		root;

		if (hb->bestd[g] != NO_BEST)
			continue;
		root = batch_uf_find(&hb->guf, g);
		if (rep[root] == PG_UINT32_MAX || batch_row_before(rows, (uint32) r, rep[root]))
			rep[root] = (uint32) r;
	}
	for (uint64 r = rows->nside0; r < rows->nrows; r++)
	{
		uint32		g = rg[r];
		uint32		root;

		if ((r & 0xfff) == 0)
			CHECK_FOR_INTERRUPTS();
		if (hb->bestd[g] != NO_BEST)
		{
			batch_put_cluster(hb->call, rows->id[r], hb->bestc[g]);
			continue;
		}
		root = batch_uf_find(&hb->guf, g);
		if (attached[root])
			batch_put_cluster(hb->call, rows->id[r], attach[root]);
		else
			batch_put_cluster(hb->call, rows->id[r], rows->id[rep[root]]);
	}
}
