/*-------------------------------------------------------------------------
 *
 * original.h
 *	  What nddup_original() (src/citus/trigger_citus.c) shares with its
 *	  routed form nddup_original_routed() (src/citus/original_routed.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef NDDUP_ORIGINAL_H
#define NDDUP_ORIGINAL_H

#include "trigger/trigger.h"

#include "fmgr.h"

extern DedupCacheEntry *nddup_original_open(FunctionCallInfo fcinfo, const char *fname,
											 Relation *relp);
extern bool nddup_original_signature(FunctionCallInfo fcinfo, const DedupConfig *cfg,
									 Datum *sig);
extern bool nddup_original_verify_value(FunctionCallInfo fcinfo, DedupCacheEntry *entry,
										Relation rel, Datum *value);
extern void nddup_original_query_params(const DedupConfig *cfg, Datum sig, Oid *argtypes,
										Datum *values);
extern int	nddup_original_verify_params(const DedupConfig *cfg, const Datum *verify,
										 int nargs, Oid *argtypes, Datum *values, char *nulls);
extern void nddup_original_plans_for(DedupCacheEntry *entry, Oid keys);
extern SPIPlanPtr nddup_original_prepare(const char *sql, int nargs, Oid *argtypes);
extern bool nddup_original_run_lookup(const DedupConfig *cfg, SPIPlanPtr plan,
									  Datum *values, const char *nulls, Datum *id);
extern void nddup_original_report(const DedupConfig *cfg, Relation rel, Datum id);

#endif							/* NDDUP_ORIGINAL_H */
