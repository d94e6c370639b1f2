/*-------------------------------------------------------------------------
 *
 * trigger.h
 *	  What the files of the insert-time trigger share: the validated
 *	  configuration of a trigger, its per-session cache entry, and the
 *	  steps of a judgement (src/trigger/).
 *
 *-------------------------------------------------------------------------
 */
#ifndef NDDUP_TRIGGER_H
#define NDDUP_TRIGGER_H

#include "nddup.h"

#include "commands/trigger.h"
#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "utils/rel.h"

typedef NddupTriggerMethod DedupMethod;
typedef NddupTriggerAction DedupAction;
typedef NddupTriggerLock DedupLockMode;
typedef NddupTriggerVisibility DedupVisibility;

/* The validated arguments of one trigger, resolved against its table. */
typedef struct DedupConfig
{
	Oid			relid;
	DedupMethod method;
	AttrNumber	fp_attno;		/* fingerprint (or sketch) column, or 0 */
	bool		fp_generated;	/* it is a STORED generated column */
	AttrNumber	src_attno;		/* source text column, or 0 */
	Oid			src_collation;
	AttrNumber	id_attno;
	Oid			id_type;
	int16		id_typlen;
	bool		id_typbyval;
	AttrNumber	dup_attno;		/* duplicate_of column, or 0 */
	AttrNumber	order_attno;	/* order column (defaults to id) */
	AttrNumber	scope_attno;	/* scope column, or 0 */
	Oid			scope_type;
	Oid			scope_collation;
	Oid			scope_hash_proc;	/* its hash function, or InvalidOid */
	int32		size;			/* signature parameters (source only) */
	char	   *unit;
	char	   *weighting;		/* simhash */
	int32		k;				/* minhash */
	int32		radius;			/* simhash */
	double		threshold;		/* minhash, shingleset */
	bool		decided;		/* radius or threshold from nddup_decisions */
	double		verify;			/* verification threshold, or 0: none */
	AttrNumber	verify_attno;	/* verify_column, or 0: the source text */
	bool		verify_generated;	/* verify_column is STORED generated */
	Oid			verify_type;	/* shingleset or minhash_sketch */
	int32		verify_size;	/* shingle size of a verified text */
	Oid			verify_func;	/* shingle_set(text, int, text) */
	DedupAction action;
	DedupLockMode lock;
	DedupVisibility visibility; /* resolved: CALLER or ALL */
	/* objects of the extension */
	Oid			ext_nsp;
	Oid			sig_type;		/* simhash64, minhash_sketch or shingleset */
	Oid			lookup_op;		/* <@ (simhash64, hamming_ball),
								 * <@ (minhash_sketch, minhash_query) or
								 * <@ (shingleset, shingleset_query) */
	const char *query_func;		/* ball, similar_to or containing: the
								 * lookup's query */
	bool		containment;	/* shingleset: measure=containment */
	Oid			source_func;	/* simhash(text, int, text, text),
								 * minhash(text, int, text, int, int, text)
								 * or shingle_set(text, int, text) */
	char	   *index_name;		/* an index serving the lookup, or NULL */
	bool		index_full;		/* one of them holds every row (no predicate) */
	struct varlena *filter;		/* filter=: the shingle_filter, or NULL */
	char	   *filter_sql;		/* filter=: "(SELECT column FROM table)" */
	Oid			filter_relid;	/* filter=: the table, or InvalidOid */
	AttrNumber	filter_attno;	/* filter=: the column */
	char	   *settings;		/* normalized arguments, for messages */
} DedupConfig;

/* Statements of the repair of the duplicate graph (trigger_graph.c). */
#define NDDUP_GRAPH_NPLANS		4

/* Per-trigger state cached for the session, keyed by the trigger's oid. */
typedef struct DedupCacheEntry
{
	Oid			tgoid;			/* hash key */
	bool		valid;			/* config still matches the catalogs */
	bool		warned;			/* the "no index" warning was given */
	int			busy;			/* calls in progress (recursion) */
	MemoryContext cxt;			/* holds config's strings */
	DedupConfig config;
	FmgrInfo	source_finfo;	/* computes the signature of a source */
	Datum		unit_datum;
	Datum		weighting_datum;
	Datum		oph_datum;
	FmgrInfo	scope_hash_finfo;	/* hashes scope values into lock keys */
	FmgrInfo	verify_finfo;	/* shingle_set() of a verified text */
	SPIPlanPtr	lookup_insert;	/* the lookup */
	SPIPlanPtr	lookup_update;	/* the lookup, excluding one ctid */
	SPIPlanPtr	repoint;		/* re-point the duplicates of a row */
	SPIPlanPtr	lock_original;	/* visibility=caller: lock the original */
	SPIPlanPtr	dependents;		/* visibility=caller: duplicates of a row */
	SPIPlanPtr	graph[NDDUP_GRAPH_NPLANS];	/* the repair (trigger_graph.c) */
	LocalTransactionId lock_lxid;	/* transaction that nkeys counts */
	int			nkeys;			/* block keys it took */
	/* nddup_original() and nddup_original_routed() (src/citus) */
	SPIPlanPtr	original_lookup;	/* the lookup of the original */
	SPIPlanPtr	routed_store;	/* the routed form's insert of keys */
	Oid			routed_keys;	/* their key table (InvalidOid: unrouted) */
	int			routed_nkeys;	/* keys that insert stores */
} DedupCacheEntry;

/* Result of one lookup. */
typedef struct DedupFound
{
	bool		found;
	Datum		id;				/* in the caller's context */
	Datum		sig;			/* the original's signature, likewise */
	Datum		ord;			/* its order value, likewise */
	bool		ord_null;
} DedupFound;

/* The values a stored row is judged by (nddup_dedup_row_values). */
typedef struct DedupRowValues
{
	Datum		sig;			/* signature */
	Datum		scope;			/* scope value, or 0 without scope= */
	uint32		scope_hash;		/* its part of the lock keys */
	bool		has_verify;		/* verify=: the row has a verification value */
	Datum		verify;
} DedupRowValues;

/* trigger_row.c: what a row is judged by */
extern bool nddup_dedup_row_sig(DedupCacheEntry *entry, HeapTuple tuple, TupleDesc desc,
								bool use_stored, Datum *sig);
extern bool nddup_dedup_sig_equal(const DedupConfig *cfg, Datum a, Datum b);
extern bool nddup_dedup_verify_unchanged(DedupCacheEntry *entry, Relation rel,
										 HeapTuple oldtuple, bool has_verify, Datum verify);
extern bool nddup_dedup_row_scope(DedupCacheEntry *entry, HeapTuple tuple, TupleDesc desc,
								  Datum *scope, uint32 *hash);
extern bool nddup_dedup_row_values(DedupCacheEntry *entry, Relation rel,
								   HeapTuple tuple, DedupRowValues *v);
extern bool nddup_dedup_same_values(DedupCacheEntry *entry, Relation rel,
									HeapTuple a, HeapTuple b);

/* trigger_config.c: the arguments, checked against the table */
extern void nddup_dedup_parse_args(Relation rel, int nargs, char **args, Oid ext_nsp,
								   const char *trigname, DedupConfig *cfg);
extern char *nddup_dedup_source_call(const DedupConfig *cfg, const char *column,
									 bool qualified);
extern void nddup_dedup_check_tgtype(int16 tgtype, const char *trigname);
/* filter=<table>.<column> (src/trigger/trigger_filter.c) */
extern void nddup_dedup_load_filter(DedupConfig *cfg, const char *spec,
									const char *size_arg, const char *unit_arg);
extern Relation nddup_dedup_open_table(Oid relid);
/* the decided threshold or radius (src/trigger/trigger_decision.c) */
extern void nddup_dedup_decision(Relation rel, AttrNumber attno, DedupConfig *cfg);
struct ArrayType;
extern char **nddup_dedup_args_array(struct ArrayType *arr, int *nargs);

/* trigger_lock.c: the advisory locks that serialize near-duplicates */
extern void nddup_dedup_lock(DedupCacheEntry *entry, const Datum *sigs,
							 const uint32 *scopes, int nsigs);

/* trigger_lookup.c: the statements, the lookup and the re-pointing */
extern void nddup_dedup_prepare_plans(DedupCacheEntry *entry, Relation rel);
extern void nddup_dedup_check_caller(const DedupConfig *cfg, Relation rel,
									 Trigger *trigger);
extern void nddup_dedup_lookup(DedupCacheEntry *entry, Relation rel, Datum sig,
							   Datum scope, const Datum *verify, ItemPointer ctid,
							   DedupFound *res);
extern void nddup_dedup_repoint(DedupCacheEntry *entry, Relation rel,
								Datum new_original, Datum old_id);
extern char *nddup_dedup_equals(Oid type);
extern char *nddup_dedup_match_clause(const DedupConfig *cfg, bool originals_only,
									  Oid *argtypes, int *nargs);
extern int	nddup_dedup_match_values(const DedupConfig *cfg, Datum sig, Datum scope,
									 const Datum *verify, Datum *values, char *nulls);

/* trigger_verify.c: verified candidates and the unsafe-radius warning */
extern void nddup_dedup_verify_config(Relation rel, const NddupTriggerArgs *a,
									  DedupConfig *cfg);
extern void nddup_dedup_verify_settings(const DedupConfig *cfg, StringInfo buf);
extern void nddup_dedup_verify_prepare(DedupCacheEntry *entry);
extern char *nddup_dedup_verify_clause(const DedupConfig *cfg, int param);
extern bool nddup_dedup_verify_value(DedupCacheEntry *entry, Relation rel,
									 HeapTuple tuple, bool use_stored, Datum *value);
extern void nddup_dedup_warn_unsafe(Relation rel, const DedupConfig *cfg,
									const char *trigname);

/* trigger_shingleset.c: lock keys and resemblance of method=shingleset */
extern int	nddup_dedup_set_nkeys(const DedupConfig *cfg, Datum set);
extern int	nddup_dedup_set_keys(const DedupConfig *cfg, Datum set, uint32 *keys);
extern double nddup_dedup_set_measure(const DedupConfig *cfg, Datum a, Datum b);

/* trigger_graph.c: the graph kept true through DELETE and UPDATE */
extern bool nddup_dedup_graph_form(int16 tgtype);
extern void nddup_dedup_graph_check(Relation rel, Trigger *trigger,
									const DedupConfig *cfg);
extern bool nddup_dedup_graph_present(Relation rel, Trigger *before);
extern void nddup_dedup_graph_fire(DedupCacheEntry *entry, TriggerData *td);
extern void nddup_dedup_graph_free(DedupCacheEntry *entry);

/* trigger_citus.c: the trigger on a Citus table */
extern void nddup_dedup_citus_check(Relation rel, const DedupConfig *cfg);

/* trigger_acl.c: what nddup_original() requires of its caller */
extern void nddup_original_check_table(Oid relid);
extern void nddup_original_check_read(const DedupConfig *cfg, Relation rel);

#endif							/* NDDUP_TRIGGER_H */
