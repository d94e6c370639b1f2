/*-------------------------------------------------------------------------
 *
 * batch_greedy.c
 *	  Clusters without chains, the default mode of the *_clusters functions
 *	  (docs/batch.md, "Cluster modes"): the rows are taken in survivor order
 *	  (order key, NULLs last, then smallest id); a row joins the cluster of
 *	  the earliest original it matches, else it becomes an original.  Every
 *	  member is then within the threshold (radius) of its cluster's
 *	  original: the answer of inserting the rows one by one, in that order,
 *	  through nddup_dedup_trigger.
 *
 * The method's pair stage runs as for *_pairs (every matching pair once);
 * each pair becomes an edge (later row, earlier row) by survivor rank,
 * partitioned into temporary files by batch_sort.c within work_mem and read
 * back in (later, earlier) order.  Then one pass decides the rows in rank
 * order: a row's first edge to an original names its cluster (an earlier
 * row is decided before any later row's edges are read), and a row that
 * joins an original is emitted at once.  The nodes (one per distinct id:
 * rows sharing an id are one node, as in the components mode) are kept in
 * memory, counted against work_mem while the rows fit there and against
 * maintenance_work_mem otherwise, as the union-find of the components mode.
 * Without an order key the survivor order is the id order, so a node's
 * index is its rank and a node costs its id and two bits of decision;
 * with one, a node's rank and the node of each rank come on top.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "batch/batch.h"

#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

/*
 * Bytes per input row at the peak, without an order key: the ids (8, sorted
 * in place) and two bits of decision per node.
 */
#define GREEDY_BYTES_PER_ROW	9

/*
 * With an order key: while ranking, a GreedyNode (24), the id (8) and the
 * node of each rank (4); then id 8, rank 4, node of rank 4.
 */
#define GREEDY_BYTES_PER_ROW_ORDERED	36

/* The top bit flipped: signed ids in the order of their unsigned keys. */
#define GREEDY_ID_FLIP			(UINT64CONST(1) << 63)

/* The state of a greedy clustering. */
typedef struct BatchGreedy
{
	uint64		n;				/* nodes (distinct ids) */
	int64	   *ids;			/* ascending */
	uint32	   *rank;			/* survivor rank of node i (NULL: i) */
	uint32	   *node_of_rank;	/* (NULL: the rank) */
	BatchPartitions *edges;		/* key (later rank << 32) | earlier rank */
	uint64		nedges;
	bool		have_classes;	/* rows of equal values were grouped */
	BatchUnionFind classes;		/* over nodes: rows of equal values */
} BatchGreedy;

/* A row's id and order key, for the ranking. */
typedef struct GreedyNode
{
	int64		id;
	int64		aux;
	bool		auxnull;
	uint32		node;
} GreedyNode;

/* qsort comparator: by id, then the survivor order of the order key. */
static int
by_id_then_order(const void *pa, const void *pb)
{
	const GreedyNode *a = pa;
	const GreedyNode *b = pb;

	if (a->id != b->id)
		return a->id < b->id ? -1 : 1;
	if (a->auxnull != b->auxnull)
		return a->auxnull ? 1 : -1;
	if (a->aux != b->aux)
		return a->aux < b->aux ? -1 : 1;
	return 0;
}

/* qsort comparator: survivor order (order key, NULLs last, then id). */
static int
by_survivor_order(const void *pa, const void *pb)
{
	const GreedyNode *a = pa;
	const GreedyNode *b = pb;

	if (a->auxnull != b->auxnull)
		return a->auxnull ? 1 : -1;
	if (a->aux != b->aux)
		return a->aux < b->aux ? -1 : 1;
	if (a->id != b->id)
		return a->id < b->id ? -1 : 1;
	return 0;
}

/*
 * The cluster mode named by a *_clusters function's mode argument: true for
 * 'greedy', false for 'components'.
 */
bool
batch_parse_cluster_mode(text *mode)
{
	char	   *name = text_to_cstring(mode);

	if (strcmp(name, "greedy") == 0)
		return true;
	if (strcmp(name, "components") == 0)
		return false;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("invalid cluster mode \"%s\"", name),
			 errhint("Valid modes are \"greedy\" (every member matches its cluster's original) and \"components\" (connected components of the pairs).")));
	return true;				/* keep compiler quiet */
}

/*
 * The mode argument argno of a *_clusters function into *greedy; false
 * (the empty result set up) when it is NULL, as for the other arguments.
 */
bool
batch_cluster_mode_arg(FunctionCallInfo fcinfo, int argno, bool *greedy)
{
	if (PG_ARGISNULL(argno))
	{
		InitMaterializedSRF(fcinfo, 0);
		return false;
	}
	*greedy = batch_parse_cluster_mode(PG_GETARG_TEXT_PP(argno));
	return true;
}

/* The survivor rank of node i. */
static inline uint32
rank_of_node(const BatchGreedy *g, uint64 i)
{
	return g->rank ? g->rank[i] : (uint32) i;
}

/* The node of survivor rank r. */
static inline uint32
node_of_rank(const BatchGreedy *g, uint64 r)
{
	return g->node_of_rank ? g->node_of_rank[r] : (uint32) r;
}

/*
 * The distinct ids of rows without an order key, ascending, into g: the
 * node of an id is its rank.  Ids that arrived strictly ascending are
 * taken as they are; otherwise they are sorted in place.
 */
static void
rank_by_id(BatchRows *rows, BatchGreedy *g)
{
	BatchRow	row;
	uint64		n = 0;
	uint64	   *keys;

	g->ids = MemoryContextAllocHuge(rows->call->cxt, Max(rows->nrows, 1) * sizeof(int64));
	batch_rows_rewind(rows);
	while (batch_rows_next(rows, &row))
	{
		g->ids[n++] = row.id;
		if ((n & 0xffff) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	g->n = n;
	if (rows->ids_ascending)
		return;
	keys = (uint64 *) g->ids;
	for (uint64 i = 0; i < n; i++)
		keys[i] ^= GREEDY_ID_FLIP;
	batch_sort_keys_in_place(keys, n, 0);
	g->n = 0;
	for (uint64 i = 0; i < n; i++)
	{
		if ((i & 0xffff) == 0)
			CHECK_FOR_INTERRUPTS();
		if (i > 0 && keys[i] == keys[i - 1])
			continue;
		keys[g->n++] = keys[i];
	}
	for (uint64 i = 0; i < g->n; i++)
		g->ids[i] = (int64) (keys[i] ^ GREEDY_ID_FLIP);
}

/*
 * The distinct ids of rows with an order key into g, ascending, with the
 * survivor rank of each (its earliest order key, NULLs last, then the id).
 */
static void
rank_by_order(BatchRows *rows, BatchGreedy *g)
{
	BatchCall  *call = rows->call;
	GreedyNode *nodes;
	BatchRow	row;
	uint64		n = 0;

	nodes = MemoryContextAllocHuge(call->cxt, Max(rows->nrows, 1) * sizeof(GreedyNode));
	batch_rows_rewind(rows);
	while (batch_rows_next(rows, &row))
	{
		nodes[n].id = row.id;
		nodes[n].aux = row.aux;
		nodes[n].auxnull = (row.flags & BATCH_ROW_AUXNULL) != 0;
		n++;
		if ((n & 0xffff) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	qsort(nodes, n, sizeof(GreedyNode), by_id_then_order);
	g->ids = MemoryContextAllocHuge(call->cxt, Max(n, 1) * sizeof(int64));
	g->n = 0;
	for (uint64 i = 0; i < n; i++)
	{
		/* the first row of an id has its earliest order key */
		if (i > 0 && nodes[i].id == nodes[i - 1].id)
			continue;
		g->ids[g->n] = nodes[i].id;
		nodes[g->n] = nodes[i];
		nodes[g->n].node = (uint32) g->n;
		g->n++;
	}
	qsort(nodes, g->n, sizeof(GreedyNode), by_survivor_order);
	g->node_of_rank = MemoryContextAllocHuge(call->cxt, Max(g->n, 1) * sizeof(uint32));
	for (uint64 r = 0; r < g->n; r++)
		g->node_of_rank[r] = nodes[r].node;
	pfree(nodes);
	g->rank = MemoryContextAllocHuge(call->cxt, Max(g->n, 1) * sizeof(uint32));
	for (uint64 r = 0; r < g->n; r++)
		g->rank[g->node_of_rank[r]] = (uint32) r;
}

/*
 * Start a greedy clustering of the rows, read whole: rank the distinct ids
 * in survivor order and switch the call to emitting pairs, which
 * batch_put_pair turns into edges.
 */
void
batch_greedy_begin(BatchRows *rows)
{
	BatchCall  *call = rows->call;
	BatchGreedy *g = MemoryContextAllocZero(call->cxt, sizeof(BatchGreedy));
	int			per_row = rows->has_aux ? GREEDY_BYTES_PER_ROW_ORDERED : GREEDY_BYTES_PER_ROW;
	double		need = (double) rows->nrows * per_row;

	if (rows->spilled)
	{
		if (need > (double) maintenance_work_mem * 1024.0)
			batch_error_memory(call, "maintenance_work_mem", need,
							   psprintf("Its clusters keep every distinct id in memory, about %d bytes per row%s.",
										per_row, rows->has_aux ? " with an order key" : ""));
		if (need > (double) call->mem_limit)
			ereport(NOTICE,
					(errmsg("%s keeps its %llu rows' ids (%.0f kB) in memory, within maintenance_work_mem",
							call->fname, (unsigned long long) rows->nrows, ceil(need / 1024.0)),
					 errdetail("The rest of its work spills to temporary files within work_mem (%d kB).",
							   work_mem)));
	}
	if (rows->has_aux)
		rank_by_order(rows, g);
	else
		rank_by_id(rows, g);
	batch_log_time(call, "%s: ranked %llu distinct ids", call->fname,
				   (unsigned long long) g->n);
	g->edges = batch_partitions_begin(call, sizeof(BatchRec), Max(g->n, 1), call->mem_limit);
	call->greedy = g;
	call->greedy_edge = batch_greedy_edge;
	call->mode = BATCH_PAIRS;
}

/*
 * The node of an id (present: every pair is of two input rows): the ids
 * are searched from where the id would be if they were evenly spread,
 * which is its place when they have no gaps (a serial key), then outwards
 * by doubling steps and by halving between the last two.
 */
static uint32
node_of_id(const BatchGreedy *g, int64 id)
{
	uint64		lo = 0;
	uint64		hi = g->n;

	if (g->n > 1 && id >= g->ids[0] && id <= g->ids[g->n - 1])
	{
		uint64		span = (uint64) g->ids[g->n - 1] - (uint64) g->ids[0];
		uint64		off = (uint64) id - (uint64) g->ids[0];
		uint64		guess;
		uint64		step = 1;

		if (span == g->n - 1)
			guess = off;
		else
			guess = Min((uint64) ((double) off / (double) span * (double) (g->n - 1)), g->n - 1);
		if (g->ids[guess] == id)
			return (uint32) guess;
		if (g->ids[guess] < id)
		{
			lo = guess + 1;
			while (guess + step < g->n && g->ids[guess + step] < id)
			{
				lo = guess + step + 1;
				step *= 2;
			}
			hi = Min(g->n, guess + step + 1);
		}
		else
		{
			hi = guess;
			while (guess >= step && g->ids[guess - step] > id)
			{
				hi = guess - step;
				step *= 2;
			}
			lo = guess >= step ? guess - step : 0;
		}
	}
	while (lo < hi)
	{
		uint64		mid = lo + (hi - lo) / 2;

		if (g->ids[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo >= g->n || g->ids[lo] != id)
		elog(ERROR, "pair of an unknown id " INT64_FORMAT, id);
	return (uint32) lo;
}

/* A matching pair of ids: an edge from the later row to the earlier one. */
void
batch_greedy_edge(BatchCall *call, int64 a, int64 b)
{
	BatchGreedy *g = call->greedy;
	uint32		ra = rank_of_node(g, node_of_id(g, a));
	uint32		rb = rank_of_node(g, node_of_id(g, b));
	BatchRec	rec;

	if (ra == rb)
		return;					/* two rows of one id */
	if (ra > rb)
	{
		uint32		t = ra;

		ra = rb;
		rb = t;
	}
	rec.key = ((uint64) rb << 32) | ra;
	rec.val = 0;
	batch_partitions_put(g->edges, &rec);
	g->nedges++;
}

/*
 * Two rows of equal values (fingerprints, sketches): they match the same
 * rows, so they are one class, decided as its earliest row is, and the
 * method reports one edge per pair of classes instead of every pair of
 * their rows (batch_greedy_finish).
 */
void
batch_greedy_same(BatchCall *call, int64 a, int64 b)
{
	BatchGreedy *g = call->greedy;

	if (!g->have_classes)
	{
		batch_uf_init(call, &g->classes, g->n, "work_mem");
		g->have_classes = true;
	}
	batch_uf_union(&g->classes, node_of_id(g, a), node_of_id(g, b));
}

/* State of re-keying the edges by classes. */
typedef struct GreedyRekey
{
	BatchGreedy *g;
	const uint32 *crank;		/* class root node -> the class's first rank */
	BatchPartitions *out;
} GreedyRekey;

/* The first rank of the class of the row of rank r. */
static inline uint32
class_rank(BatchGreedy *g, const uint32 *crank, uint32 r)
{
	return crank[batch_uf_find(&g->classes, node_of_rank(g, r))];
}

/* Partition callback: an edge between rows as an edge between their classes. */
static void
rekey_runs(void *arg, char *records, uint64 count)
{
	GreedyRekey *k = arg;
	const BatchRec *recs = (const BatchRec *) records;

	for (uint64 i = 0; i < count; i++)
	{
		uint32		a = class_rank(k->g, k->crank, (uint32) (recs[i].key >> 32));
		uint32		b = class_rank(k->g, k->crank, (uint32) recs[i].key);
		BatchRec	rec;

		if ((i & 0xffff) == 0)
			CHECK_FOR_INTERRUPTS();
		if (a == b)
			continue;
		rec.key = a > b ? ((uint64) a << 32) | b : ((uint64) b << 32) | a;
		rec.val = 0;
		batch_partitions_put(k->out, &rec);
	}
}

/*
 * Decide rows by their edges, keyed (later rank << 32) | earlier rank and
 * sorted by key: orig[r] is r (an original, or not decided yet) or the rank
 * of r's original.  A row's first edge to an original, the earliest one,
 * decides it; every earlier row is decided before its edges come.
 */
void
batch_greedy_pass(const BatchRec *recs, uint64 count, uint32 *orig)
{
	for (uint64 i = 0; i < count; i++)
	{
		uint32		later = (uint32) (recs[i].key >> 32);
		uint32		earlier = (uint32) recs[i].key;

		if ((i & 0xffff) == 0)
			CHECK_FOR_INTERRUPTS();
		/* decided already, or the earlier row is no original */
		if (orig[later] != later || orig[earlier] != earlier)
			continue;
		orig[later] = earlier;
	}
}

/* Partition callback: batch_greedy_pass over records in key order. */
static void
greedy_runs(void *arg, char *records, uint64 count)
{
	batch_greedy_pass((const BatchRec *) records, count, (uint32 *) arg);
}

/*
 * State of the decision pass without classes: a bit per rank for a row
 * that joined an original, and one for an original that a row joined.
 */
typedef struct GreedyDecide
{
	BatchCall  *call;
	BatchGreedy *g;
	uint8	   *member;
	uint8	   *joined;
} GreedyDecide;

/*
 * Partition callback: batch_greedy_pass over records in key order with the
 * decisions as bits; a row is emitted as it joins its original.
 */
static void
decide_runs(void *arg, char *records, uint64 count)
{
	GreedyDecide *d = arg;
	const BatchRec *recs = (const BatchRec *) records;
	BatchGreedy *g = d->g;

	for (uint64 i = 0; i < count; i++)
	{
		uint32		later = (uint32) (recs[i].key >> 32);
		uint32		earlier = (uint32) recs[i].key;

		if ((i & 0xffff) == 0)
			CHECK_FOR_INTERRUPTS();
		/* decided already, or the earlier row is no original */
		if (batch_bit_is_set(d->member, later) || batch_bit_is_set(d->member, earlier))
			continue;
		batch_bit_set(d->member, later);
		batch_bit_set(d->joined, earlier);
		batch_put_cluster(d->call, g->ids[node_of_rank(g, later)],
						  g->ids[node_of_rank(g, earlier)]);
	}
}

/*
 * Decide the rows of a clustering without classes and emit them: each
 * member as it joins its original, then the originals (those alone only
 * with singletons).
 */
static void
finish_decided(BatchCall *call, BatchGreedy *g)
{
	GreedyDecide d;

	d.call = call;
	d.g = g;
	d.member = MemoryContextAllocZero(call->cxt, g->n / 8 + 1);
	d.joined = MemoryContextAllocZero(call->cxt, g->n / 8 + 1);
	batch_partitions_sort_each(g->edges, decide_runs, &d, false);
	batch_partitions_end(g->edges);
	for (uint64 r = 0; r < g->n; r++)
	{
		int64		id;

		if ((r & 0xffff) == 0)
			CHECK_FOR_INTERRUPTS();
		if (batch_bit_is_set(d.member, (uint32) r) ||
			(!call->singletons && !batch_bit_is_set(d.joined, (uint32) r)))
			continue;
		id = g->ids[node_of_rank(g, r)];
		batch_put_cluster(call, id, id);
	}
	pfree(d.member);
	pfree(d.joined);
}

/*
 * Decide the rows of a clustering with classes (rows of equal values):
 * the edges re-keyed by class, the decisions of the classes' first ranks,
 * then every node emitted after its class's original.
 */
static void
finish_classes(BatchCall *call, BatchGreedy *g)
{
	uint32	   *orig = MemoryContextAllocHuge(call->cxt, Max(g->n, 1) * sizeof(uint32));
	uint32	   *count = MemoryContextAllocHuge(call->cxt, Max(g->n, 1) * sizeof(uint32));
	uint32	   *crank;
	GreedyRekey k;

	for (uint64 r = 0; r < g->n; r++)
	{
		orig[r] = (uint32) r;
		count[r] = 0;
	}

	/* each class is ranked by its earliest row; edges between classes */
	crank = MemoryContextAllocHuge(call->cxt, Max(g->n, 1) * sizeof(uint32));
	for (uint64 i = 0; i < g->n; i++)
		crank[i] = PG_UINT32_MAX;
	for (uint64 i = 0; i < g->n; i++)
	{
		uint32		root = batch_uf_find(&g->classes, (uint32) i);

		crank[root] = Min(crank[root], rank_of_node(g, i));
	}
	k.g = g;
	k.crank = crank;
	k.out = batch_partitions_begin(call, sizeof(BatchRec), Max(g->nedges, 1), call->mem_limit);
	batch_partitions_sort_each(g->edges, rekey_runs, &k, false);
	batch_partitions_end(g->edges);
	batch_partitions_sort_each(k.out, greedy_runs, orig, false);
	batch_partitions_end(k.out);
	for (uint64 i = 0; i < g->n; i++)
		count[orig[crank[batch_uf_find(&g->classes, (uint32) i)]]]++;
	for (uint64 i = 0; i < g->n; i++)
	{
		uint32		o = orig[crank[batch_uf_find(&g->classes, (uint32) i)]];

		if ((i & 0xffff) == 0)
			CHECK_FOR_INTERRUPTS();
		if (!call->singletons && count[o] < 2)
			continue;
		batch_put_cluster(call, g->ids[i], g->ids[node_of_rank(g, o)]);
	}
	pfree(orig);
	pfree(count);
	pfree(crank);
}

/*
 * Decide every row in survivor order and emit (id, the id of its cluster's
 * original), one row per distinct id; the call emits clusters again.
 */
void
batch_greedy_finish(BatchRows *rows)
{
	BatchCall  *call = rows->call;
	BatchGreedy *g = call->greedy;

	call->greedy = NULL;
	call->mode = BATCH_CLUSTER;
	batch_log_time(call, "%s: %llu matching pairs of %llu distinct ids", call->fname,
				   (unsigned long long) g->nedges, (unsigned long long) g->n);
	if (g->have_classes)
		finish_classes(call, g);
	else
		finish_decided(call, g);
	batch_log_time(call, "%s: decided %llu distinct ids", call->fname,
				   (unsigned long long) g->n);
}
