/*-------------------------------------------------------------------------
 *
 * batch_call.c
 *	  One call of a batch function: its memory, its result store (a
 *	  materialized tuplestore, which spills beyond work_mem by itself), its
 *	  progress reports and the errors of its memory budgets.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "batch/batch.h"

#include "funcapi.h"
#include "miscadmin.h"
#include "utils/memutils.h"

/* Set up a call: its context, its result store, its settings. */
BatchCall *
batch_begin(FunctionCallInfo fcinfo, BatchMode mode, const char *fname)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	BatchCall  *call;

	InitMaterializedSRF(fcinfo, 0);
	call = palloc0(sizeof(BatchCall));
	call->fname = fname;
	call->mode = mode;
	call->singletons = true;
	call->progress = nddup_progress;
	call->mem_limit = (int64) work_mem * 1024;
	call->out = rsinfo->setResult;
	call->outdesc = rsinfo->setDesc;
	call->next_pct = 10;
	call->cxt = AllocSetContextCreate(CurrentMemoryContext, "nddup batch",
									  ALLOCSET_DEFAULT_SIZES);
	INSTR_TIME_SET_CURRENT(call->start);
	return call;
}

/* Free the working memory of a call (the result store stays). */
void
batch_end(BatchCall *call)
{
	if (call->ncand > 0)
		batch_log_time(call, "%s: %llu candidates verified, %llu result rows",
					   call->fname, (unsigned long long) call->ncand,
					   (unsigned long long) call->nout);
	else
		batch_log_time(call, "%s: %llu result rows", call->fname,
					   (unsigned long long) call->nout);
	MemoryContextDelete(call->cxt);
	pfree(call);
}

/* Milliseconds since the call began. */
double
batch_elapsed_ms(const BatchCall *call)
{
	instr_time	now;

	INSTR_TIME_SET_CURRENT(now);
	INSTR_TIME_SUBTRACT(now, call->start);
	return INSTR_TIME_GET_MILLISEC(now);
}

/*
 * Report progress every 10 % of the work when nddup.progress is on: the
 * share and the units done, the result rows so far (clusters are formed at
 * the end), and in the DETAIL (which \set VERBOSITY terse leaves out) the
 * time so far, the rate and the time left at that rate.
 */
void
batch_report_progress(BatchCall *call, const char *what, double done,
					  double total)
{
	int			pct;
	double		secs;
	double		rate;

	if (!call->progress || total <= 0)
		return;
	pct = (int) (100.0 * done / total);
	if (pct < call->next_pct)
		return;
	secs = batch_elapsed_ms(call) / 1000.0;
	rate = secs > 0 ? done / secs : 0;
	ereport(NOTICE,
			(errmsg_internal("%s: %d %% (%s %.0f of %.0f), %s",
							 call->fname, pct - pct % 10, what, done, total,
							 call->mode == BATCH_CLUSTER || call->mode == BATCH_ASSIGN ?
							 "the clusters are formed at the end" :
							 psprintf("%llu result rows so far",
									  (unsigned long long) call->nout)),
			 errdetail_internal("%.0f ms since the start, %.1f %ss a second, about %.1f s left.",
								secs * 1000.0, rate, what, rate > 0 ? (total - done) / rate : 0)));
	call->next_pct = pct - pct % 10 + 10;
}

/* Append (a, b, score) to the result (an edge of a greedy clustering). */
void
batch_put_pair(BatchCall *call, int64 a, int64 b, Datum score)
{
	Datum		values[3];
	bool		nulls[3] = {false, false, false};

	if (call->greedy != NULL)
	{
		call->greedy_edge(call, a, b);
		return;
	}
	values[0] = Int64GetDatum(a);
	values[1] = Int64GetDatum(b);
	values[2] = score;
	tuplestore_putvalues(call->out, call->outdesc, values, nulls);
	call->nout++;
}

/* Append a pair of one input with the smaller id first. */
void
batch_put_ordered_pair(BatchCall *call, int64 a, int64 b, Datum score)
{
	if (a <= b)
		batch_put_pair(call, a, b, score);
	else
		batch_put_pair(call, b, a, score);
}

/* Append (id, cluster_id) to the result. */
void
batch_put_cluster(BatchCall *call, int64 id, int64 cluster)
{
	Datum		values[2];
	bool		nulls[2] = {false, false};

	values[0] = Int64GetDatum(id);
	values[1] = Int64GetDatum(cluster);
	tuplestore_putvalues(call->out, call->outdesc, values, nulls);
	call->nout++;
}

/*
 * Raise 53200 for a structure that must be in memory and does not fit in
 * the given setting (work_mem or maintenance_work_mem), with a hint that
 * works where the user typed the call: SET, not SET LOCAL, which does
 * nothing outside a transaction block.
 */
void
batch_error_memory(BatchCall *call, const char *setting, double need_bytes,
				   const char *what)
{
	double		need_mb = ceil((need_bytes + 1024.0 * 1024.0) / (1024.0 * 1024.0));
	int			have_kb = strcmp(setting, "work_mem") == 0 ? work_mem :
		maintenance_work_mem;

	ereport(ERROR,
			(errcode(ERRCODE_OUT_OF_MEMORY),
			 errmsg("%s needs about %.0f MB of %s, but %s is %d kB",
					call->fname, need_mb, setting, setting, have_kb),
			 errdetail("%s", what),
			 errhint("Raise it for this session, for example SET %s = '%.0fMB';",
					 setting, need_mb)));
}
