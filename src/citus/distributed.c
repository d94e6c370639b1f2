/*-------------------------------------------------------------------------
 *
 * distributed.c
 *	  The batch functions on a Citus distributed table: candidate pairs are
 *	  found and verified on the workers, as an equi-join on keys that any
 *	  two near-duplicates share, which Citus repartitions; the coordinator
 *	  receives pairs, never rows (docs/scale-out.md).
 *
 * This is the map-reduce form of the seeds (Manku, Jain and Das Sarma, WWW
 * 2007, s.4; Broder et al. 1997 s.3), run by an existing engine:
 *
 *	hamming_pairs / hamming_join / hamming_clusters:
 *	  1. every row is written to a work table distributed by key, once per
 *		 block key (hamming_block_keys(): the first k + 1 blocks of the
 *		 layout of m blocks; Citus repartitions the INSERT ... SELECT from
 *		 worker to worker);
 *	  2. each key group is searched on its worker by nddup_hamming_key_group()
 *		 (src/citus/keys.c), which keeps a pair only in the group of its first
 *		 agreeing block, so a pair sharing several keys is reported once;
 *	  3. the coordinator receives the pairs (clusters: a spanning forest of
 *		 each group's pairs with the order keys of their ends) and, for
 *		 clusters, runs the union-find.
 *
 *	minhash_pairs / minhash_clusters (relation form):
 *	  1. the rows' ids (or, when the id is not a unique distribution column,
 *		 a copy keyed by a row number) are written to a work table
 *		 distributed by band key, once per band (minhash_band_keys());
 *	  2. the co-located self-join on equal keys gives candidate pairs, which
 *		 are written to a work table distributed (and de-duplicated) by the
 *		 first row, co-located with the sketches;
 *	  3. joined with the first sketch, they are moved by the second row and
 *		 verified there with the second sketch: the estimate must reach the
 *		 threshold on a pair equal on a whole band (minhash_pair_band_key()),
 *		 which is what the local banding reports; only such pairs are sent.
 *
 * The work tables are UNLOGGED tables created in the first schema of the
 * search_path and dropped before the call returns (an error rolls them
 * back with the transaction).  The answers are those of the local code,
 * always: the same pairs, the same cluster ids.  Inputs the distributed
 * path does not take (a query over no distributed table, the min-hash
 * query forms, threshold 0, radius 64, sketches with different parameters)
 * go to the local code, which then reads every row.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "citus/dist_work.h"
#include "batch/hamming/hamming_batch.h"

#include "executor/spi.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

/* Tables considered at most for a layout (as the local cost model). */

/* Rows of one key group at most: its arrays must stay below 1 GB. */
#define MAX_GROUP_ROWS			(64.0 * 1024 * 1024)

/*
 * The number of blocks for radius k over n rows: the local cost model's
 * shape (Manku s.3, hamming-search-math.md), the tables of a layout being
 * searched group by group on the workers: C(m, c) tables, each a sort of
 * the n fingerprints by its c - 1 blocks after the first and about
 * n^2 / 2^(p+1) candidates for a p-bit prefix.  Groups must stay below
 * MAX_GROUP_ROWS.  nddup.batch_blocks forces m.
 */
static int
dist_choose_blocks(int k, double n)
{
	double		best = -1;
	int			bestm = k + 1;

	if (nddup_batch_blocks != 0)
	{
		hamming_check_forced_blocks(nddup_batch_blocks, k);
		return nddup_batch_blocks;
	}
	for (int m = k + 1; m <= 64; m++)
	{
		NddupBlocks L;
		double		tables = nddup_binomial(m, m - k);
		int			p = 0;
		double		cost;

		if (tables > MAX_TABLES)
			continue;
		nddup_blocks_init(&L, k, m);
		for (int b = 0; b < L.c; b++)
			p += L.bsize[b];
		if (n / ldexp(1.0, L.bsize[0]) > MAX_GROUP_ROWS)
			continue;
		cost = tables * n * (COST_TABLE_SCAN + COST_RADIX_PASS * ((p - L.bsize[0] + 15) / 16)) +
			tables * n * n / ldexp(1.0, p + 1) * COST_CANDIDATE;
		if (best < 0 || cost < best)
		{
			best = cost;
			bestm = m;
		}
	}
	return bestm;
}

/* Column roles of an (id, fingerprint[, order key]) query. */
static const NddupColRole fp_cols[] = {NDDUP_COL_ID, NDDUP_COL_SIMHASH, NDDUP_COL_ORDER};

/* Write the block keys of one input into the key table as side 'side'. */
static uint64
dist_hamming_keys(NddupDistCall *call, const char *keys, int side, int k, int m)
{
	return nddup_work_exec(call, psprintf("INSERT INTO %s (key, side, id, fp%s) "
									"SELECT k.key, %d, q.id, q.val%s FROM %s, "
									"LATERAL pg_catalog.unnest(%s.hamming_block_keys(q.val, %d, %d)) AS k(key) "
									"WHERE q.id IS NOT NULL AND q.val IS NOT NULL",
									keys, call->has_ord ? ", ord" : "", side,
									call->has_ord ? ", q.ord" : "",
									nddup_work_subquery(call), call->nsp, k, m));
}

/*
 * The pairs of the key table when every block is a key (m = radius + 1): a
 * pair is found in the group of its first agreeing block, which
 * hamming_pair_key() names, so a self-join of each shard on equal keys
 * that keeps a pair under that key reports it once (rows of a key are in
 * one shard, where ctid orders them).  Clusters receive every pair.
 */
static void
distributed_hamming_selfjoin(NddupDistCall *call, const char *keys, int radius)
{
	const char *from = psprintf("FROM %s AS a JOIN %s AS b ON a.key = b.key AND %s "
								"WHERE %s.hamming_pair_key(a.fp, b.fp, %d, %d) = a.key",
								keys, keys,
								call->mode == NDDUP_DIST_JOIN ? "a.side = 0 AND b.side = 1" :
								"a.ctid < b.ctid",
								call->nsp, radius, radius + 1);

	if (call->mode == NDDUP_DIST_PAIRS)
		nddup_work_fetch(call, psprintf("SELECT LEAST(a.id, b.id), GREATEST(a.id, b.id), "
										"a.fp OPERATOR(%s.<->) b.fp %s", call->nsp, from),
						 RECV_PAIRS, 0, NULL, NULL);
	else if (call->mode == NDDUP_DIST_JOIN)
		nddup_work_fetch(call, psprintf("SELECT a.id, b.id, a.fp OPERATOR(%s.<->) b.fp %s",
										call->nsp, from),
						 RECV_PAIRS, 0, NULL, NULL);
	else
		nddup_work_fetch(call, psprintf("SELECT a.id, b.id%s %s",
										call->has_ord ? ", a.ord, b.ord" : "", from),
						 RECV_EDGES, 0, NULL, NULL);
}

/*
 * The pairs of the key table when groups are searched with the remaining
 * tables (m > radius + 1): each group's rows as arrays to
 * nddup_hamming_key_group() on its worker (clusters: a spanning forest of
 * the group's pairs).
 */
static void
distributed_hamming_groups(NddupDistCall *call, const char *keys, int radius, int m)
{
	const char *groups = psprintf("(SELECT key, pg_catalog.array_agg(id) AS ids, pg_catalog.array_agg(fp) AS fps%s%s "
								  "FROM %s GROUP BY key HAVING %s) AS g",
								  call->mode == NDDUP_DIST_JOIN ? ", pg_catalog.array_agg(side) AS sides" : "",
								  call->has_ord ? ", pg_catalog.array_agg(ord) AS ords" : "",
								  keys,
								  call->mode == NDDUP_DIST_JOIN ? "pg_catalog.min(side) <> pg_catalog.max(side)" :
								  "pg_catalog.count(*) > 1");

	if (call->mode == NDDUP_DIST_PAIRS)
		nddup_work_fetch(call, psprintf("SELECT LEAST(g.ids[p.i], g.ids[p.j]), GREATEST(g.ids[p.i], g.ids[p.j]), p.distance "
										"FROM %s, LATERAL %s.nddup_hamming_key_group(g.key, g.fps, NULL, %d, %d, 0) AS p",
										groups, call->nsp, radius, m),
						 RECV_PAIRS, 0, NULL, NULL);
	else if (call->mode == NDDUP_DIST_JOIN)
		nddup_work_fetch(call, psprintf("SELECT g.ids[p.i], g.ids[p.j], p.distance "
										"FROM %s, LATERAL %s.nddup_hamming_key_group(g.key, g.fps, g.sides, %d, %d, 0) AS p",
										groups, call->nsp, radius, m),
						 RECV_PAIRS, 0, NULL, NULL);
	else
		nddup_work_fetch(call, psprintf("SELECT g.ids[p.i], g.ids[p.j]%s "
										"FROM %s, LATERAL %s.nddup_hamming_key_group(g.key, g.fps, NULL, %d, %d, 1) AS p",
										call->has_ord ? ", g.ords[p.i], g.ords[p.j]" : "",
										groups, call->nsp, radius, m),
						 RECV_EDGES, 0, NULL, NULL);
}

/*
 * hamming_pairs, hamming_join and hamming_clusters over a distributed
 * input (in_b: the second input of a join): if the input reads a
 * distributed table, compute the answer as described in the file header,
 * fill the result and return true.
 */
static bool
distributed_hamming(FunctionCallInfo fcinfo, NddupDistMode mode,
						  const char *fname, const NddupDistInput *in,
						  const NddupDistInput *in_b, int32 radius,
						  bool singletons)
{
	NddupDistCall	call;
	NddupDistCall	call_b;
	Oid			simhash_oid = nddup_lookup_type(fcinfo, "simhash64");
	int			nroles = mode == NDDUP_DIST_CLUSTERS ? 3 : 2;
	bool		distributed;
	double		n;
	int			m;
	char	   *keys;
	uint64		nkeys;
	char	   *ords = "";

	if (radius < 0 || radius > 63 || !nddup_work_begin(&call, fcinfo, mode, fname, singletons))
		return false;
	distributed = nddup_work_input(&call, in, fp_cols, 2, nroles, simhash_oid);
	if (in_b)
	{
		call_b = call;
		distributed |= nddup_work_input(&call_b, in_b, fp_cols, 2, 2, simhash_oid);
	}
	if (!distributed)
	{
		nddup_work_end(&call);
		return false;
	}
	nddup_work_result(&call, fcinfo);
	call.has_ord = call.cols.natts >= 3;

	/* the layout, from the number of rows */
	n = (double) nddup_work_count(&call);
	if (in_b)
		n += (double) nddup_work_count(&call_b);
	m = dist_choose_blocks(radius, n);
	{
		NddupBlocks L;

		nddup_blocks_init(&L, radius, m);	/* checks a forced m */
	}
	nddup_work_log(&call, "distributed over Citus: %.0f rows, %d blocks, %d keys per row",
			 n, m, radius + 1);

	/* 1. the key table, repartitioned by key */
	if (call.has_ord)
		ords = psprintf(", ord %s", nddup_work_type_name(call.cols.types[2]));
	keys = nddup_work_table(&call,
						   psprintf("key bigint, side smallint, id bigint, fp %s.simhash64%s",
									call.nsp, ords),
						   "key", NULL);
	nkeys = dist_hamming_keys(&call, keys, 0, radius, m);
	if (in_b)
	{
		call_b.nsp = call.nsp;
		call_b.has_ord = false;
		nkeys += dist_hamming_keys(&call_b, keys, 1, radius, m);
	}
	nddup_work_log(&call, "key table %s: %llu rows", keys, (unsigned long long) nkeys);

	/* 2. the groups, searched on the workers; 3. the pairs come here */
	if (m == radius + 1)
		distributed_hamming_selfjoin(&call, keys, radius);
	else
		distributed_hamming_groups(&call, keys, radius, m);
	nddup_work_complete(&call);
	return true;
}

/* Column roles of an (id, sketch[, order key]) query. */
static const NddupColRole sketch_cols[] = {NDDUP_COL_ID, NDDUP_COL_SKETCH, NDDUP_COL_ORDER};

/*
 * minhash_pairs and minhash_clusters over a distributed relation: compute
 * the answer as described in the file header, fill the result and return
 * true.  The query forms, threshold 0 and inputs mixing sketch parameters
 * return false (the local code answers).
 */
static bool
distributed_minhash(FunctionCallInfo fcinfo, NddupDistMode mode,
						  const char *fname, const NddupDistInput *in,
						  double threshold, int32 bands, int32 rows,
						  bool singletons)
{
	NddupDistCall	call;
	Oid			sketch_oid;
	char	   *distcol = NULL;
	char	   *rel;
	char	   *sketches;		/* the table holding (rid, id, sketch[, ord]) */
	const char *rid;
	const char *skcol;
	const char *idexpr;
	const char *ordexpr;
	const char *ridtype;
	char	   *layout;
	char	   *keys;
	char	   *cand;
	char	   *cand2;
	bool		isnull;
	int64		pmin,
				pmax;
	uint64		count;

	if (!OidIsValid(in->relid) || !(threshold > 0.0 && threshold <= 1.0) ||
		!nddup_work_begin(&call, fcinfo, mode, fname, singletons))
		return false;
	sketch_oid = nddup_lookup_type(fcinfo, "minhash_sketch");
	if (!nddup_work_input(&call, in, sketch_cols, 2, mode == NDDUP_DIST_CLUSTERS ? 3 : 2,
					sketch_oid))
	{
		nddup_work_end(&call);
		return false;
	}
	call.has_ord = call.cols.natts >= 3;
	rel = quote_qualified_identifier(get_namespace_name(get_rel_namespace(in->relid)),
									 get_rel_name(in->relid));
	(void) nddup_citus_distribution(in->relid, &distcol);

	/* sketches of other parameters: the local code raises its error */
	pmin = nddup_work_int8(&call, psprintf("SELECT pg_catalog.min(p) FROM (SELECT %s.nddup_minhash_params(%s) AS p FROM %s) s",
									 call.nsp, quote_identifier(in->valcol), rel), &isnull);
	pmax = nddup_work_int8(&call, psprintf("SELECT pg_catalog.max(p) FROM (SELECT %s.nddup_minhash_params(%s) AS p FROM %s) s",
									 call.nsp, quote_identifier(in->valcol), rel), &isnull);
	if (isnull || pmin != pmax)
	{
		nddup_work_end(&call);
		return false;
	}
	nddup_work_result(&call, fcinfo);
	layout = psprintf("%.17g, %s, %s", threshold,
					  bands ? psprintf("%d", bands) : "NULL",
					  rows ? psprintf("%d", rows) : "NULL");
	/* fails here, as the local code would, on a layout that does not fit */
	nddup_work_int8(&call, psprintf("SELECT pg_catalog.count(*) FROM (SELECT %s.minhash_band_keys(%s, %s) FROM %s LIMIT 1) s",
							  call.nsp, quote_identifier(in->valcol), layout, rel), &isnull);

	/* 0. the sketches, keyed by a unique row number co-located with them */
	if (distcol && strcmp(distcol, in->idcol) == 0 && call.ids_unique)
	{
		sketches = rel;
		rid = quote_identifier(in->idcol);
		skcol = quote_identifier(in->valcol);
		idexpr = rid;
		ordexpr = call.has_ord ? quote_identifier(in->ordcol) : NULL;
		ridtype = nddup_work_type_name(call.cols.types[0]);
	}
	else
	{
		sketches = nddup_work_table(&call,
								   psprintf("rid bigint, id bigint, sk %s.minhash_sketch%s",
											call.nsp, call.has_ord ?
											psprintf(", ord %s", nddup_work_type_name(call.cols.types[2])) : ""),
								   "rid", NULL);
		count = nddup_work_exec(&call, psprintf("INSERT INTO %s SELECT %s.nddup_row_key(pg_catalog.get_shard_id_for_distribution_column(%s, %s), ctid), "
										  "%s, %s%s%s FROM %s WHERE %s IS NOT NULL AND %s IS NOT NULL",
										  sketches, call.nsp, quote_literal_cstr(rel),
										  distcol ? quote_identifier(distcol) : "NULL",
										  quote_identifier(in->idcol), quote_identifier(in->valcol),
										  call.has_ord ? ", " : "",
										  call.has_ord ? quote_identifier(in->ordcol) : "",
										  rel, quote_identifier(in->idcol), quote_identifier(in->valcol)));
		nddup_work_log(&call, "sketches copied to %s keyed by row: %llu rows",
				 sketches, (unsigned long long) count);
		rid = "rid";
		skcol = "sk";
		idexpr = "id";
		ordexpr = call.has_ord ? "ord" : NULL;
		ridtype = "bigint";
	}

	/* 1. one key row per band, repartitioned by key */
	keys = nddup_work_table(&call, psprintf("key bigint, rid %s", ridtype), "key", NULL);
	count = nddup_work_exec(&call, psprintf("INSERT INTO %s SELECT k.key, s.%s FROM %s AS s, "
									  "LATERAL pg_catalog.unnest(%s.minhash_band_keys(s.%s, %s)) AS k(key) "
									  "WHERE s.%s IS NOT NULL AND s.%s IS NOT NULL",
									  keys, rid, sketches, call.nsp, skcol, layout,
									  idexpr, skcol));
	nddup_work_log(&call, "key table %s: %llu rows", keys, (unsigned long long) count);

	/* 2. candidate pairs from equal keys, by their first row */
	cand = nddup_work_table(&call, psprintf("a %s, b %s", ridtype, ridtype), "a", sketches);
	count = nddup_work_exec(&call, psprintf("INSERT INTO %s SELECT x.rid, y.rid FROM %s AS x JOIN %s AS y "
									  "ON x.key = y.key AND x.rid < y.rid",
									  cand, keys, keys));
	nddup_work_log(&call, "candidate table %s: %llu rows", cand, (unsigned long long) count);

	/* 3. with the first sketch, by their second row */
	cand2 = nddup_work_table(&call,
							psprintf("b %s, a %s, ida bigint, sa %s.minhash_sketch%s",
									 ridtype, ridtype, call.nsp, call.has_ord ?
									 psprintf(", orda %s", nddup_work_type_name(call.cols.types[2])) : ""),
							"b", sketches);
	count = nddup_work_exec(&call, psprintf("INSERT INTO %s SELECT c.b, c.a, s.%s, s.%s%s%s "
									  "FROM (SELECT DISTINCT a, b FROM %s) AS c JOIN %s AS s ON s.%s = c.a",
									  cand2, idexpr, skcol, ordexpr ? ", s." : "",
									  ordexpr ? ordexpr : "", cand, sketches, rid));
	nddup_work_log(&call, "distinct candidates: %llu", (unsigned long long) count);

	/* verified on the workers; the pairs come here */
	if (mode == NDDUP_DIST_PAIRS)
		nddup_work_fetch(&call, psprintf("SELECT LEAST(c.ida, s.%s), GREATEST(c.ida, s.%s), %s.jaccard(c.sa, s.%s) "
								   "FROM %s AS c JOIN %s AS s ON s.%s = c.b "
								   "WHERE %s.minhash_pair_band_key(c.sa, s.%s, %s) IS NOT NULL",
								   idexpr, idexpr, call.nsp, skcol, cand2, sketches, rid,
								   call.nsp, skcol, layout),
				   RECV_PAIRS, 0, NULL, NULL);
	else
		nddup_work_fetch(&call, psprintf("SELECT c.ida, s.%s%s%s FROM %s AS c JOIN %s AS s ON s.%s = c.b "
								   "WHERE %s.minhash_pair_band_key(c.sa, s.%s, %s) IS NOT NULL",
								   idexpr, ordexpr ? ", c.orda, s." : "", ordexpr ? ordexpr : "",
								   cand2, sketches, rid, call.nsp, skcol, layout),
				   RECV_EDGES, 0, NULL, NULL);
	nddup_work_complete(&call);
	return true;
}

/* ----------------------------------------------------------------
 *		The entry functions the SQL-callable batch functions call first
 *
 * Each reads the arguments of its SQL function (rel: the relation form)
 * and returns false, leaving everything to the local code, when an
 * argument is NULL or out of range (the local code then answers or raises
 * its error) or the input is not distributed.
 * ----------------------------------------------------------------
 */

/* The relation-form input of arguments 0-2 (and the order column). */
static bool
rel_input(FunctionCallInfo fcinfo, NddupDistInput *in, int ordarg)
{
	memset(in, 0, sizeof(*in));
	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2))
		return false;
	in->relid = PG_GETARG_OID(0);
	in->idcol = NameStr(*PG_GETARG_NAME(1));
	in->valcol = NameStr(*PG_GETARG_NAME(2));
	if (ordarg >= 0 && !PG_ARGISNULL(ordarg))
		in->ordcol = NameStr(*PG_GETARG_NAME(ordarg));
	return true;
}

/*
 * Are the arguments from argno up to nargs (the verification arguments of
 * the batch functions: verify_column, verify; the clusters' mode after them
 * is not one) all NULL or absent?  Verified calls read the rows' texts or
 * sets: the local code answers them.
 */
static bool
no_verify_args(FunctionCallInfo fcinfo, int argno, int nargs)
{
	for (int i = argno; i < nargs; i++)
		if (!PG_ARGISNULL(i))
			return false;
	return true;
}

/* The query-form input of argument argno. */
static bool
query_input(FunctionCallInfo fcinfo, NddupDistInput *in, int argno)
{
	memset(in, 0, sizeof(*in));
	if (PG_ARGISNULL(argno))
		return false;
	in->query = text_to_cstring(PG_GETARG_TEXT_PP(argno));
	return true;
}

/* hamming_pairs(query, radius) or hamming_pairs(rel, id, fp, radius). */
bool
nddup_dist_hamming_pairs(FunctionCallInfo fcinfo, bool rel)
{
	NddupDistInput in;
	int			rarg = rel ? 3 : 1;

	if (!(rel ? rel_input(fcinfo, &in, -1) : query_input(fcinfo, &in, 0)) ||
		PG_ARGISNULL(rarg) || !no_verify_args(fcinfo, rarg + 1, PG_NARGS()))
		return false;
	return distributed_hamming(fcinfo, NDDUP_DIST_PAIRS, "hamming_pairs", &in,
							   NULL, PG_GETARG_INT32(rarg), true);
}

/* hamming_join(query_a, query_b, radius). */
bool
nddup_dist_hamming_join(FunctionCallInfo fcinfo)
{
	NddupDistInput in;
	NddupDistInput in_b;

	if (!query_input(fcinfo, &in, 0) || !query_input(fcinfo, &in_b, 1) ||
		PG_ARGISNULL(2) || !no_verify_args(fcinfo, 3, PG_NARGS()))
		return false;
	return distributed_hamming(fcinfo, NDDUP_DIST_JOIN, "hamming_join", &in,
							   &in_b, PG_GETARG_INT32(2), true);
}

/*
 * hamming_clusters(query, radius, singletons) or hamming_clusters(rel, id,
 * fp, radius, order_column, singletons).
 */
bool
nddup_dist_hamming_clusters(FunctionCallInfo fcinfo, bool rel)
{
	NddupDistInput in;
	int			rarg = rel ? 3 : 1;
	int			sarg = rel ? 5 : 2;

	if (!(rel ? rel_input(fcinfo, &in, 4) : query_input(fcinfo, &in, 0)) ||
		PG_ARGISNULL(rarg) || !no_verify_args(fcinfo, sarg + 1, PG_NARGS() - 1))
		return false;
	return distributed_hamming(fcinfo, NDDUP_DIST_CLUSTERS, "hamming_clusters",
							   &in, NULL, PG_GETARG_INT32(rarg),
							   PG_ARGISNULL(sarg) ? true : PG_GETARG_BOOL(sarg));
}

/* The optional bands and rows arguments, false when out of range. */
static bool
band_args(FunctionCallInfo fcinfo, int argno, int32 *bands, int32 *rows)
{
	int64		b = PG_ARGISNULL(argno) ? 0 : PG_GETARG_INT64(argno);
	int64		r = PG_ARGISNULL(argno + 1) ? 0 : PG_GETARG_INT64(argno + 1);

	if ((!PG_ARGISNULL(argno) && (b < 1 || b > 1024)) ||
		(!PG_ARGISNULL(argno + 1) && (r < 1 || r > 1024)))
		return false;
	*bands = (int32) b;
	*rows = (int32) r;
	return true;
}

/* minhash_pairs(rel, id, sketch, threshold, bands, rows). */
bool
nddup_dist_minhash_pairs(FunctionCallInfo fcinfo)
{
	NddupDistInput in;
	int32		bands,
				rows;

	if (!rel_input(fcinfo, &in, -1) || PG_ARGISNULL(3) ||
		!band_args(fcinfo, 4, &bands, &rows) || !no_verify_args(fcinfo, 6, PG_NARGS()))
		return false;
	return distributed_minhash(fcinfo, NDDUP_DIST_PAIRS, "minhash_pairs", &in,
							   PG_GETARG_FLOAT8(3), bands, rows, true);
}

/*
 * minhash_clusters(rel, id, sketch, threshold, order_column, bands, rows,
 * singletons).
 */
bool
nddup_dist_minhash_clusters(FunctionCallInfo fcinfo)
{
	NddupDistInput in;
	int32		bands,
				rows;

	if (!rel_input(fcinfo, &in, 4) || PG_ARGISNULL(3) ||
		!band_args(fcinfo, 5, &bands, &rows) || !no_verify_args(fcinfo, 8, PG_NARGS() - 1))
		return false;
	return distributed_minhash(fcinfo, NDDUP_DIST_CLUSTERS, "minhash_clusters",
							   &in, PG_GETARG_FLOAT8(3), bands, rows,
							   PG_ARGISNULL(7) ? true : PG_GETARG_BOOL(7));
}
