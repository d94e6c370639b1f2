/*-------------------------------------------------------------------------
 *
 * cluster_pairs.c
 *	  clusters_from_pairs(query, singletons): the connected components of a
 *	  query of (id1, id2) pairs of integer ids found by any means (an index
 *	  join, an edited list), named after their smallest id.  A row with one
 *	  NULL declares the other id as a node; a row with two NULLs is skipped.
 *	  The pairs are held in memory within work_mem (docs/batch.md).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "batch/batch.h"

#include "executor/spi.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "tcop/dest.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

PG_FUNCTION_INFO_V1(hamming_clusters_from_pairs);

/* Peak bytes per (id1, id2) input pair, measured (docs/batch.md). */
#define BYTES_PER_PAIR_INPUT	96

/* A DestReceiver that collects (id1, id2) pairs. */
typedef struct PairsReceiver
{
	DestReceiver pub;
	BatchCall  *call;
	NddupInputCols cols;
	int64	   *p1;
	int64	   *p2;
	bool	   *pnull1;
	bool	   *pnull2;
	uint64		np;
	uint64		pcap;
	bool		over_limit;		/* only counting now */
	uint64		nskipped;
} PairsReceiver;

/* DestReceiver callback: take one (id1, id2) row. */
static bool
receive_pair(TupleTableSlot *slot, DestReceiver *self)
{
	PairsReceiver *r = (PairsReceiver *) self;
	bool		n1;
	bool		n2;

	slot_getsomeattrs(slot, 2);
	n1 = slot->tts_isnull[0];
	n2 = slot->tts_isnull[1];
	if (n1 && n2)
	{
		r->nskipped++;
		return true;
	}
	if (r->over_limit)
	{
		r->np++;
		return true;
	}
	if (r->np == r->pcap)
	{
		uint64		maxpairs = Max((uint64) r->call->mem_limit / BYTES_PER_PAIR_INPUT, 1024);
		uint64		newcap = Min(Max(r->pcap * 2, 1024), maxpairs);
		MemoryContext cxt = r->call->cxt;

		if (newcap <= r->pcap || newcap >= (uint64) PG_INT32_MAX)
		{
			/* keep counting, so that the error can say what is needed */
			r->over_limit = true;
			r->np++;
			return true;
		}
		if (r->p1 == NULL)
		{
			r->p1 = MemoryContextAllocHuge(cxt, newcap * sizeof(int64));
			r->p2 = MemoryContextAllocHuge(cxt, newcap * sizeof(int64));
			r->pnull1 = MemoryContextAllocHuge(cxt, newcap * sizeof(bool));
			r->pnull2 = MemoryContextAllocHuge(cxt, newcap * sizeof(bool));
		}
		else
		{
			r->p1 = repalloc_huge(r->p1, newcap * sizeof(int64));
			r->p2 = repalloc_huge(r->p2, newcap * sizeof(int64));
			r->pnull1 = repalloc_huge(r->pnull1, newcap * sizeof(bool));
			r->pnull2 = repalloc_huge(r->pnull2, newcap * sizeof(bool));
		}
		r->pcap = newcap;
	}
	r->p1[r->np] = n1 ? 0 : nddup_datum_int64(slot->tts_values[0], r->cols.types[0]);
	r->p2[r->np] = n2 ? 0 : nddup_datum_int64(slot->tts_values[1], r->cols.types[1]);
	r->pnull1[r->np] = n1;
	r->pnull2[r->np] = n2;
	r->np++;
	return true;
}

/*
 * The greedy clusters of nodes 0 .. nnodes - 1 (in id order, the survivor
 * order) linked by the pairs: orig[i] is the node of i's original
 * (batch_greedy.c).
 */
static void
greedy_nodes(BatchCall *call, PairsReceiver *recv, const uint32 *node,
			 uint64 nnodes, uint32 *orig)
{
	BatchRec   *edges = MemoryContextAllocHuge(call->cxt, Max(recv->np, 1) * sizeof(BatchRec));
	BatchRec   *tmp = MemoryContextAllocHuge(call->cxt, Max(recv->np, 1) * sizeof(BatchRec));
	BatchRec   *sorted;
	uint64		m = 0;

	for (uint64 i = 0; i < recv->np; i++)
	{
		uint32		a = node[2 * i];
		uint32		b = node[2 * i + 1];

		if (recv->pnull1[i] || recv->pnull2[i] || a == b)
			continue;
		edges[m].key = a < b ? ((uint64) b << 32) | a : ((uint64) a << 32) | b;
		edges[m].val = 0;
		m++;
	}
	sorted = batch_radix_sort(edges, tmp, m);
	for (uint64 i = 0; i < nnodes; i++)
		orig[i] = (uint32) i;
	batch_greedy_pass(sorted, m, orig);
	pfree(edges);
	pfree(tmp);
}

/*
 * clusters_from_pairs(query, singletons, mode): ids of both columns are
 * sorted, equal ids are one node; greedy (each node joins the smallest
 * original it is paired with) or union-find over the nodes; each cluster
 * is named after its smallest id (the first node of it in id order).
 */
Datum
hamming_clusters_from_pairs(PG_FUNCTION_ARGS)
{
	char	   *query = text_to_cstring(PG_GETARG_TEXT_PP(0));
	static const NddupColRole pair_cols[] = {NDDUP_COL_ID, NDDUP_COL_ID};
	BatchCall  *call = batch_begin(fcinfo, BATCH_CLUSTER, "clusters_from_pairs");
	PairsReceiver recv;
	SPIPlanPtr	plan;
	BatchRec   *recs;
	BatchRec   *tmp;
	BatchRec   *sorted;
	uint32	   *node;
	int64	   *nodeid;
	uint32	   *rep;
	uint32	   *count;
	BatchUnionFind uf;
	uint64		nslots;
	uint64		nnodes = 0;
	uint64		j = 0;
	bool		greedy = batch_parse_cluster_mode(PG_GETARG_TEXT_PP(2));

	call->singletons = PG_GETARG_BOOL(1);
	memset(&recv, 0, sizeof(recv));
	nddup_init_receiver(&recv.pub, receive_pair);
	recv.call = call;
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	plan = nddup_prepare_input(call->fname, "the query", query, pair_cols, 2, 2,
							   InvalidOid, false, &recv.cols);
	nddup_run_input(plan, &recv.pub);
	SPI_finish();
	batch_log(call, "%s: read %llu pairs (%llu skipped for two NULLs)", call->fname,
			  (unsigned long long) recv.np, (unsigned long long) recv.nskipped);
	if (recv.over_limit)
		batch_error_memory(call, "work_mem", (double) recv.np * BYTES_PER_PAIR_INPUT,
						   "Its pairs and union-find are kept in memory, about 96 bytes per input pair.");

	/* ids of both columns, sorted; equal ids are one node */
	nslots = 2 * recv.np;
	recs = MemoryContextAllocHuge(call->cxt, Max(nslots, 1) * sizeof(BatchRec));
	for (uint64 i = 0; i < recv.np; i++)
	{
		if (!recv.pnull1[i])
		{
			recs[j].key = (uint64) recv.p1[i] ^ (UINT64CONST(1) << 63);
			recs[j].val = 2 * i;
			j++;
		}
		if (!recv.pnull2[i])
		{
			recs[j].key = (uint64) recv.p2[i] ^ (UINT64CONST(1) << 63);
			recs[j].val = 2 * i + 1;
			j++;
		}
	}
	tmp = MemoryContextAllocHuge(call->cxt, Max(j, 1) * sizeof(BatchRec));
	sorted = batch_radix_sort(recs, tmp, j);
	node = MemoryContextAllocHuge(call->cxt, Max(nslots, 1) * sizeof(uint32));
	nodeid = MemoryContextAllocHuge(call->cxt, Max(j, 1) * sizeof(int64));
	for (uint64 i = 0; i < j; i++)
	{
		if (i == 0 || sorted[i].key != sorted[i - 1].key)
		{
			nodeid[nnodes] = (int64) (sorted[i].key ^ (UINT64CONST(1) << 63));
			nnodes++;
		}
		node[sorted[i].val] = (uint32) (nnodes - 1);
	}
	rep = MemoryContextAllocHuge(call->cxt, Max(nnodes, 1) * sizeof(uint32));
	count = MemoryContextAllocHuge(call->cxt, Max(nnodes, 1) * sizeof(uint32));
	if (greedy)
	{
		/* rep[i]: the node of i's original, i itself for an original */
		greedy_nodes(call, &recv, node, nnodes, rep);
		batch_uf_init(call, &uf, nnodes, "work_mem");
		for (uint64 i = 0; i < nnodes; i++)
			uf.parent[i] = rep[i];
	}
	else
	{
		batch_uf_init(call, &uf, nnodes, "work_mem");
		for (uint64 i = 0; i < recv.np; i++)
		{
			if ((i & 0xfff) == 0)
				CHECK_FOR_INTERRUPTS();
			if (!recv.pnull1[i] && !recv.pnull2[i])
				batch_uf_union(&uf, node[2 * i], node[2 * i + 1]);
		}
	}
	/* nodes are in id order: the first node seen of a root is its smallest */
	for (uint64 i = 0; i < nnodes; i++)
	{
		rep[i] = PG_UINT32_MAX;
		count[i] = 0;
	}
	for (uint64 i = 0; i < nnodes; i++)
	{
		uint32		root = batch_uf_find(&uf, (uint32) i);

		if (rep[root] == PG_UINT32_MAX)
			rep[root] = (uint32) i;
		count[root]++;
	}
	for (uint64 i = 0; i < nnodes; i++)
	{
		uint32		root = batch_uf_find(&uf, (uint32) i);

		if ((i & 0xfff) == 0)
			CHECK_FOR_INTERRUPTS();
		if (!call->singletons && count[root] < 2)
			continue;
		batch_put_cluster(call, nodeid[i], nodeid[rep[root]]);
	}
	batch_end(call);
	return (Datum) 0;
}
