/*-------------------------------------------------------------------------
 *
 * batch_cluster.c
 *	  Clusters of the batch functions: a union-find over the input rows
 *	  (Broder et al. 1997 s.4: the connected components of the pair graph
 *	  are the clusters), and the naming of each component after its earliest
 *	  row (order key, NULLs last, then smallest id), one result row per
 *	  distinct id.
 *
 * The union-find takes 5 bytes per input row and must be in memory (as
 * Broder et al. note).  It is counted against work_mem while the whole
 * input fits there; otherwise it takes maintenance_work_mem, the budget
 * PostgreSQL gives CREATE INDEX for the same kind of whole-input structure,
 * and says so in a NOTICE.  Everything else of the naming streams through
 * temporary files when the rows were spilled.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "batch/batch.h"

#include "miscadmin.h"
#include "utils/memutils.h"

/* Bytes per row of the union-find: parent 4, rank 1. */
#define UF_BYTES_PER_ROW	5

/* Record of the naming pass over spilled rows. */
typedef struct NameRec
{
	uint64		key;			/* the root, mixed (a bijection) */
	int64		aux;
	int64		id;
	uint32		auxnull;
	uint32		repeat;			/* not the first row of its id: not emitted */
} NameRec;

/* Record of the id sort over spilled rows. */
typedef struct IdRec
{
	uint64		key;			/* the id, mixed (a bijection) */
	uint64		row;
} IdRec;

/*
 * A union-find of n singletons.  The caller says which setting pays for
 * it: "work_mem" (the call's other structures are in memory too) or
 * "maintenance_work_mem" (the input was spilled).
 */
void
batch_uf_init(BatchCall *call, BatchUnionFind *uf, uint64 n, const char *setting)
{
	double		need = (double) n * UF_BYTES_PER_ROW;

	if (strcmp(setting, "maintenance_work_mem") == 0)
	{
		if (need > (double) maintenance_work_mem * 1024.0)
			batch_error_memory(call, "maintenance_work_mem", need,
							   "Its union-find over the input rows is kept in memory, 5 bytes per row.");
		if (need > (double) call->mem_limit)
			ereport(NOTICE,
					(errmsg("%s keeps its union-find of %llu rows (%.0f kB) in memory, within maintenance_work_mem",
							call->fname, (unsigned long long) n, ceil(need / 1024.0)),
					 errdetail("The rest of its work spills to temporary files within work_mem (%d kB).",
							   work_mem)));
	}
	uf->n = n;
	uf->parent = MemoryContextAllocHuge(call->cxt, Max(n, 1) * sizeof(uint32));
	uf->rank = MemoryContextAllocHuge(call->cxt, Max(n, 1));
	for (uint64 i = 0; i < n; i++)
	{
		uf->parent[i] = (uint32) i;
		uf->rank[i] = 0;
	}
}

/*
 * The clusters of rows held in memory: rows sharing an id are one node;
 * one result row per distinct id.  When the ids arrived strictly ascending
 * (a scan of an append-only table with a serial key, or ORDER BY id) they
 * are distinct and in order already; otherwise they are sorted, so that
 * equal ids meet.
 */
static void
finish_in_memory(BatchRows *rows, BatchUnionFind *uf)
{
	BatchCall  *call = rows->call;
	uint64		n = rows->nrows;
	BatchRec   *sorted = NULL;
	uint32	   *rep;
	uint32	   *count;

	if (!rows->ids_ascending)
	{
		BatchRec   *recs = MemoryContextAllocHuge(call->cxt, Max(n, 1) * sizeof(BatchRec));
		BatchRec   *tmp = MemoryContextAllocHuge(call->cxt, Max(n, 1) * sizeof(BatchRec));

		for (uint64 i = 0; i < n; i++)
		{
			recs[i].key = (uint64) rows->id[i] ^ (UINT64CONST(1) << 63);
			recs[i].val = i;
		}
		sorted = batch_radix_sort(recs, tmp, n);
		pfree(sorted == recs ? tmp : recs);
		for (uint64 i = 1; i < n; i++)
			if (sorted[i].key == sorted[i - 1].key)
				batch_uf_union(uf, (uint32) sorted[i - 1].val, (uint32) sorted[i].val);
	}

#define CLUSTER_ROW(i)		(sorted ? (uint32) sorted[i].val : (uint32) (i))
#define CLUSTER_NEW_ID(i)	(!sorted || (i) == 0 || sorted[i].key != sorted[(i) - 1].key)

	rep = MemoryContextAllocHuge(call->cxt, Max(n, 1) * sizeof(uint32));
	count = MemoryContextAllocHuge(call->cxt, Max(n, 1) * sizeof(uint32));
	for (uint64 i = 0; i < n; i++)
	{
		rep[i] = PG_UINT32_MAX;
		count[i] = 0;
	}
	for (uint64 i = 0; i < n; i++)
	{
		uint32		r = CLUSTER_ROW(i);
		uint32		root = batch_uf_find(uf, r);

		if (rep[root] == PG_UINT32_MAX || batch_row_before(rows, r, rep[root]))
			rep[root] = r;
		if (CLUSTER_NEW_ID(i))
			count[root]++;
		if ((i & 0xfff) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	for (uint64 i = 0; i < n; i++)
	{
		uint32		r = CLUSTER_ROW(i);
		uint32		root;

		if (!CLUSTER_NEW_ID(i))
			continue;
		if ((i & 0xfff) == 0)
			CHECK_FOR_INTERRUPTS();
		root = batch_uf_find(uf, r);
		if (!call->singletons && count[root] < 2)
			continue;
		batch_put_cluster(call, rows->id[r], rows->id[rep[root]]);
	}
#undef CLUSTER_ROW
#undef CLUSTER_NEW_ID
	pfree(rep);
	pfree(count);
	if (sorted)
		pfree(sorted);
}

/* State of the id pass over sorted partitions. */
typedef struct IdPass
{
	BatchUnionFind *uf;
	uint8	   *dup;			/* bit per row: not the first of its id */
	bool		have_prev;
	uint64		prev_key;
	uint64		prev_row;
} IdPass;

/* Partition callback of the id pass: rows of one id are one node. */
static void
id_pass_runs(void *arg, char *records, uint64 count)
{
	IdPass	   *pass = (IdPass *) arg;
	IdRec	   *recs = (IdRec *) records;

	for (uint64 i = 0; i < count; i++)
	{
		if ((i & 0xfff) == 0)
			CHECK_FOR_INTERRUPTS();
		if (pass->have_prev && recs[i].key == pass->prev_key)
		{
			batch_uf_union(pass->uf, (uint32) pass->prev_row, (uint32) recs[i].row);
			batch_bit_set(pass->dup, recs[i].row);
		}
		else
		{
			pass->have_prev = true;
			pass->prev_key = recs[i].key;
			pass->prev_row = recs[i].row;
		}
	}
}

/*
 * State of the naming pass.  Each component is a run of records of one key
 * (its root, mixed) in the sorted partitions, and a run lies whole in one
 * call of the callback, which finds its earliest record and emits its
 * members at once; except a component larger than work_mem, handed over in
 * pieces: its members wait in a file until its last piece.
 */
typedef struct NamePass
{
	BatchCall  *call;
	bool		has_aux;
	bool		compact;		/* records are (root, id) BatchRecs */
	BatchPartitions *parts;		/* says whether a run goes on */
	bool		in_run;			/* a run goes on from the last call */
	uint64		key;			/* of that run */
	NameRec		best;			/* its earliest record so far */
	uint64		size;			/* its distinct ids so far */
	BufFile    *waiting;		/* its members (NameMember) */
	uint64		nwaiting;
} NamePass;

/* A member of a run that goes on, kept until its last piece. */
typedef struct NameMember
{
	int64		id;
	int64		repeat;			/* not the first row of its id */
} NameMember;

/* The top bit flipped: ids in the order of their unsigned keys. */
#define ID_KEY_FLIP			(UINT64CONST(1) << 63)

/* Members read back at a time. */
#define NAME_CHUNK			4096

/* Is record a an earlier representative than record b? */
static inline bool
name_before(const NamePass *pass, const NameRec *a, const NameRec *b)
{
	if (pass->has_aux)
	{
		if (a->auxnull != b->auxnull)
			return !a->auxnull;
		if (!a->auxnull && a->aux != b->aux)
			return a->aux < b->aux;
	}
	return a->id < b->id;
}

/* Record i of a call, as a NameRec (compact records are expanded in *one). */
static inline const NameRec *
name_record(const NamePass *pass, const char *records, uint64 i, NameRec *one)
{
	const BatchRec *c;

	if (!pass->compact)
		return (const NameRec *) records + i;
	c = (const BatchRec *) records + i;
	memset(one, 0, sizeof(*one));
	one->key = c->key;
	one->id = (int64) (c->val ^ ID_KEY_FLIP);
	return one;
}

/* Emit a member of a component of size distinct ids named best_id. */
static inline void
name_emit(NamePass *pass, int64 id, bool repeat, int64 best_id, uint64 size)
{
	if (!repeat && (pass->call->singletons || size > 1))
		batch_put_cluster(pass->call, id, best_id);
}

/* Emit the members of the run that went on, from its file. */
static void
name_finish_waiting(NamePass *pass)
{
	NameMember *chunk;

	if (!pass->in_run)
		return;
	pass->in_run = false;
	if (pass->nwaiting == 0)
		return;
	chunk = palloc(NAME_CHUNK * sizeof(NameMember));
	batch_file_rewind(pass->waiting);
	for (uint64 done = 0; done < pass->nwaiting;)
	{
		uint64		m = Min((uint64) NAME_CHUNK, pass->nwaiting - done);

		batch_file_read(pass->waiting, chunk, m * sizeof(NameMember));
		CHECK_FOR_INTERRUPTS();
		for (uint64 i = 0; i < m; i++)
			name_emit(pass, chunk[i].id, chunk[i].repeat != 0, pass->best.id,
					  pass->size);
		done += m;
	}
	pfree(chunk);
	BufFileClose(pass->waiting);
	pass->waiting = NULL;
	pass->nwaiting = 0;
}

/*
 * Partition callback of the naming pass: the earliest record and the size
 * of each run, then its members with the earliest's id.
 */
static void
name_runs(void *arg, char *records, uint64 count)
{
	NamePass   *pass = (NamePass *) arg;
	bool		goes_on = pass->parts->more_of_key;

	for (uint64 s = 0; s < count;)
	{
		NameRec		one;
		const NameRec *first = name_record(pass, records, s, &one);
		uint64		key = first->key;
		NameRec		best = *first;
		uint64		size = 0;
		uint64		e = s;
		bool		complete;

		CHECK_FOR_INTERRUPTS();
		if (pass->in_run && key != pass->key)
			name_finish_waiting(pass);
		if (pass->in_run)
		{
			best = pass->best;
			size = pass->size;
		}
		for (; e < count; e++)
		{
			const NameRec *rec = name_record(pass, records, e, &one);

			if (rec->key != key)
				break;
			if (name_before(pass, rec, &best))
				best = *rec;
			size += rec->repeat ? 0 : 1;
		}
		complete = e < count || !goes_on;
		if (complete && !pass->in_run)
		{
			/* the whole run is here */
			for (uint64 i = s; i < e; i++)
			{
				const NameRec *rec = name_record(pass, records, i, &one);

				name_emit(pass, rec->id, rec->repeat != 0, best.id, size);
			}
			s = e;
			continue;
		}
		/* a piece of a run larger than work_mem: its members wait */
		if (pass->waiting == NULL)
		{
			MemoryContext old = MemoryContextSwitchTo(pass->call->cxt);

			pass->waiting = BufFileCreateTemp(false);
			MemoryContextSwitchTo(old);
		}
		for (uint64 i = s; i < e; i++)
		{
			const NameRec *rec = name_record(pass, records, i, &one);
			NameMember	m;

			m.id = rec->id;
			m.repeat = rec->repeat;
			BufFileWrite(pass->waiting, &m, sizeof(m));
			pass->nwaiting++;
		}
		pass->in_run = true;
		pass->key = key;
		pass->best = best;
		pass->size = size;
		if (complete)
			name_finish_waiting(pass);
		s = e;
	}
}

/*
 * Partition the naming records of the rows: every row competes for the
 * earliest, the first row of each id is emitted; a row alone in its
 * component is emitted at once.  Rows without order keys
 * whose ids arrived ascending (none repeated) need only (root, id): compact
 * records of 16 bytes, sorted in place by (root, id), which is their
 * arrival order within a root.
 */
static BatchPartitions *
name_partitions(BatchRows *rows, BatchUnionFind *uf, const uint8 *dup,
				bool compact)
{
	BatchPartitions *parts;
	BatchRow	row;

	parts = batch_partitions_begin(rows->call, compact ? sizeof(BatchRec) : sizeof(NameRec),
								   rows->nrows, rows->call->mem_limit);
	batch_rows_rewind(rows);
	while (batch_rows_next(rows, &row))
	{
		NameRec		rec;
		uint32		root = batch_uf_find(uf, row.row);

		/*
		 * A root of rank 0 has no other member (union by rank raises the
		 * rank of a root that takes one): its row is named after itself.
		 */
		if (root == row.row && uf->rank[root] == 0)
		{
			if (rows->call->singletons)
				batch_put_cluster(rows->call, row.id, row.id);
			continue;
		}
		if (compact)
		{
			BatchRec	c;

			c.key = nddup_fmix64(root);
			c.val = (uint64) row.id ^ ID_KEY_FLIP;
			batch_partitions_put(parts, &c);
			continue;
		}

		/* mixed, so that the components spread over the partitions */
		rec.key = nddup_fmix64(root);
		rec.aux = row.aux;
		rec.auxnull = (row.flags & BATCH_ROW_AUXNULL) != 0;
		rec.repeat = batch_bit_is_set(dup, row.row);
		rec.id = row.id;
		batch_partitions_put(parts, &rec);
	}
	return parts;
}

/*
 * The clusters of spilled rows: the same rules as finish_in_memory, with
 * the id sort and the grouping by component done by partitioning records
 * into temporary files (batch_sort.c); the union-find and a bit per row
 * stay in memory.  The naming records are partitioned and sorted once, and
 * each component named and emitted as its run comes.
 */
static void
finish_spilled(BatchRows *rows, BatchUnionFind *uf)
{
	BatchCall  *call = rows->call;
	BatchRow	row;
	BatchPartitions *parts;
	uint8	   *dup = MemoryContextAllocZero(call->cxt, rows->nrows / 8 + 1);
	NamePass	npass;

	if (!rows->ids_ascending)
	{
		IdPass		ipass;

		parts = batch_partitions_begin(call, sizeof(IdRec), rows->nrows, call->mem_limit);
		batch_rows_rewind(rows);
		while (batch_rows_next(rows, &row))
		{
			IdRec		rec;

			rec.key = nddup_fmix64((uint64) row.id);
			rec.row = row.row;
			batch_partitions_put(parts, &rec);
		}
		memset(&ipass, 0, sizeof(ipass));
		ipass.uf = uf;
		ipass.dup = dup;
		batch_partitions_sort_each(parts, id_pass_runs, &ipass, false);
		batch_partitions_end(parts);
	}

	memset(&npass, 0, sizeof(npass));
	npass.call = call;
	npass.has_aux = rows->has_aux;
	npass.compact = !rows->has_aux && rows->ids_ascending;
	parts = name_partitions(rows, uf, dup, npass.compact);
	npass.parts = parts;
	batch_partitions_sort_each(parts, name_runs, &npass, false);
	batch_partitions_end(parts);
	name_finish_waiting(&npass);
	pfree(dup);
}

/*
 * Emit the clusters once the pairs are linked: one row per distinct id,
 * (id, the id of the component's earliest row).
 */
void
batch_finish_clusters(BatchRows *rows, BatchUnionFind *uf)
{
	if (rows->spilled)
		finish_spilled(rows, uf);
	else
		finish_in_memory(rows, uf);
}
