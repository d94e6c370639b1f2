/*-------------------------------------------------------------------------
 *
 * dist_work.h
 *	  The machinery of the distributed batch functions (src/batch/
 *	  dist_work.c): a call's state, its inputs, the work tables on the
 *	  Citus cluster, the queries whose rows come to the coordinator and the
 *	  clusters finished there.  Used by src/citus/distributed.c.
 *
 *-------------------------------------------------------------------------
 */
#ifndef NDDUP_DIST_WORK_H
#define NDDUP_DIST_WORK_H

#include "batch/batch.h"
#include "citus/distributed.h"

#include "portability/instr_time.h"
#include "utils/tuplestore.h"

/* One row the coordinator knows for clusters: an id and its order key. */
typedef struct NddupDistRow
{
	int64		id;
	int64		ord;
	bool		ordnull;
} NddupDistRow;

/* Everything one distributed call works on. */
typedef struct NddupDistCall
{
	const char *fname;
	NddupDistMode mode;
	bool		singletons;
	bool		progress;
	const char *nsp;			/* the extension's schema, quoted */
	MemoryContext cxt;			/* what outlives the work queries */
	Tuplestorestate *out;
	TupleDesc	outdesc;
	instr_time	start;
	int			nwork;
	char	   *work[4];		/* work tables, qualified and quoted */

	/* the input */
	char	   *sql;			/* SELECT id, value[, ord] ... */
	NddupInputCols cols;
	bool		ids_unique;		/* a unique index on the id column alone */

	/* what the coordinator received */
	uint64		nreceived;
	uint64		bytes;

	/* clusters: edges and rows */
	int64	   *e1;
	int64	   *e2;
	uint64		nedges;
	uint64		ecap;
	NddupDistRow    *rows;
	uint64		nrows;
	uint64		rcap;
	bool		has_ord;
} NddupDistCall;

#define RECV_PAIRS		0		/* (id1, id2, value): the result */
#define RECV_EDGES		1		/* (id1, id2[, ord1, ord2]) */
#define RECV_ROWS		2		/* (id[, ord]) */

/* What the rows of a work query are (nddup_work_fetch). */
#define RECV_PAIRS		0		/* (id1, id2, value): the result */
#define RECV_EDGES		1		/* (id1, id2[, ord1, ord2]) */
#define RECV_ROWS		2		/* (id[, ord]) */

extern bool nddup_work_begin(NddupDistCall *call, FunctionCallInfo fcinfo,
							 NddupDistMode mode, const char *fname,
							 bool singletons);
extern void nddup_work_result(NddupDistCall *call, FunctionCallInfo fcinfo);
extern void nddup_work_end(NddupDistCall *call);
extern void nddup_work_complete(NddupDistCall *call);
extern void nddup_work_log(NddupDistCall *call, const char *fmt,...) pg_attribute_printf(2, 3);
extern bool nddup_work_input(NddupDistCall *call, const NddupDistInput *in,
							 const NddupColRole *roles, int nreq, int nroles,
							 Oid own_type);
extern char *nddup_work_subquery(NddupDistCall *call);
extern uint64 nddup_work_exec(NddupDistCall *call, const char *sql);
extern int64 nddup_work_int8(NddupDistCall *call, const char *sql, bool *isnull);
extern int64 nddup_work_count(NddupDistCall *call);
extern char *nddup_work_table(NddupDistCall *call, const char *columns,
							  const char *distcol, const char *colocate);
extern const char *nddup_work_type_name(Oid type);
extern void nddup_work_fetch(NddupDistCall *call, const char *sql, int kind,
							 int nargs, Oid *argtypes, Datum *args);

#endif							/* NDDUP_DIST_WORK_H */
