/*-------------------------------------------------------------------------
 *
 * trigger_row.c
 *	  What a row is judged by: its signature (computed from the source
 *	  column or read from the fingerprint column), its scope value and lock
 *	  hash, its verification value; whether an UPDATE changed any of them.
 *	  Shared by the insert-time judgement (trigger.c) and the graph through
 *	  deletes and edits (trigger_graph.c).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "trigger/trigger.h"

#include "access/htup_details.h"
#include "utils/datum.h"
#include "utils/rel.h"

/*
 * The signature (simhash64 fingerprint, minhash_sketch or shingleset) of a
 * row: computed
 * from the source column (when there is one and use_stored is false), else
 * read from the fingerprint column.  Returns false when it is NULL.
 */
bool
nddup_dedup_row_sig(DedupCacheEntry *entry, HeapTuple tuple, TupleDesc desc,
			  bool use_stored, Datum *sig)
{
	const DedupConfig *cfg = &entry->config;
	bool		isnull;
	Datum		d;

	if (cfg->src_attno && !(use_stored && cfg->fp_attno))
	{
		d = heap_getattr(tuple, cfg->src_attno, desc, &isnull);
		if (isnull)
			return false;
		if (cfg->method == NDDUP_TRIGGER_SIMHASH)
			*sig = FunctionCall4Coll(&entry->source_finfo, cfg->src_collation, d,
									 Int32GetDatum(cfg->size), entry->unit_datum,
									 entry->weighting_datum);
		else if (cfg->method == NDDUP_TRIGGER_SHINGLESET && cfg->filter != NULL)
			*sig = FunctionCall2Coll(&entry->source_finfo, cfg->src_collation,
									 PointerGetDatum(cfg->filter), d);
		else if (cfg->method == NDDUP_TRIGGER_SHINGLESET)
			*sig = FunctionCall3Coll(&entry->source_finfo, cfg->src_collation, d,
									 Int32GetDatum(cfg->size), entry->unit_datum);
		else if (cfg->filter != NULL)
			*sig = FunctionCall5Coll(&entry->source_finfo, cfg->src_collation,
									 PointerGetDatum(cfg->filter), d, Int32GetDatum(cfg->k),
									 entry->oph_datum, Int32GetDatum(0));
		else
			*sig = FunctionCall6Coll(&entry->source_finfo, cfg->src_collation, d,
									 Int32GetDatum(cfg->k), entry->oph_datum,
									 Int32GetDatum(0), Int32GetDatum(cfg->size),
									 entry->unit_datum);
		return true;
	}
	d = heap_getattr(tuple, cfg->fp_attno, desc, &isnull);
	if (isnull)
		return false;
	*sig = (cfg->method == NDDUP_TRIGGER_SIMHASH) ? d : PointerGetDatum(PG_DETOAST_DATUM(d));
	return true;
}

/* Are two signatures of the config's method equal? */
bool
nddup_dedup_sig_equal(const DedupConfig *cfg, Datum a, Datum b)
{
	struct varlena *va;
	struct varlena *vb;

	if (cfg->method == NDDUP_TRIGGER_SIMHASH)
		return DatumGetSimhash64(a) == DatumGetSimhash64(b);
	va = PG_DETOAST_DATUM(a);
	vb = PG_DETOAST_DATUM(b);
	return VARSIZE(va) == VARSIZE(vb) && memcmp(va, vb, VARSIZE(va)) == 0;
}

/*
 * With verify=, is the verification value of the old row the new row's
 * (has_verify, verify)?  Without verify=, true.
 */
bool
nddup_dedup_verify_unchanged(DedupCacheEntry *entry, Relation rel, HeapTuple oldtuple,
					   bool has_verify, Datum verify)
{
	Datum		old;
	bool		has_old;

	if (entry->config.verify <= 0.0)
		return true;
	has_old = nddup_dedup_verify_value(entry, rel, oldtuple, true, &old);
	if (has_old != has_verify)
		return false;
	return !has_old || datumIsEqual(old, verify, false, -1);
}

/*
 * The scope value of a row and its hash for the lock keys; false when the
 * row has no scope value (NULL), or true with *scope 0 when the trigger has
 * no scope column.
 */
bool
nddup_dedup_row_scope(DedupCacheEntry *entry, HeapTuple tuple, TupleDesc desc,
				Datum *scope, uint32 *hash)
{
	const DedupConfig *cfg = &entry->config;
	bool		isnull;

	*scope = (Datum) 0;
	*hash = 0;
	if (cfg->scope_attno == 0)
		return true;
	*scope = heap_getattr(tuple, cfg->scope_attno, desc, &isnull);
	if (isnull)
		return false;
	if (OidIsValid(cfg->scope_hash_proc))
		*hash = DatumGetUInt32(FunctionCall1Coll(&entry->scope_hash_finfo,
												 cfg->scope_collation, *scope));
	else
		*hash = 1;				/* one key for all scopes: more waits, no misses */
	return true;
}

/*
 * The judged values of a stored row (its stored fingerprint, scope and
 * verification value); false when the row is not judged (no signature or
 * no scope value).
 */
bool
nddup_dedup_row_values(DedupCacheEntry *entry, Relation rel, HeapTuple tuple,
					   DedupRowValues *v)
{
	TupleDesc	desc = RelationGetDescr(rel);

	v->has_verify = false;
	v->verify = (Datum) 0;
	if (!nddup_dedup_row_sig(entry, tuple, desc, true, &v->sig) ||
		!nddup_dedup_row_scope(entry, tuple, desc, &v->scope, &v->scope_hash))
		return false;
	if (entry->config.verify > 0.0)
		v->has_verify = nddup_dedup_verify_value(entry, rel, tuple, true, &v->verify);
	return true;
}

/* Are two stored rows judged by the same values (an UPDATE changed none)? */
bool
nddup_dedup_same_values(DedupCacheEntry *entry, Relation rel, HeapTuple a, HeapTuple b)
{
	const DedupConfig *cfg = &entry->config;
	DedupRowValues va;
	DedupRowValues vb;
	bool		has_a = nddup_dedup_row_values(entry, rel, a, &va);
	bool		has_b = nddup_dedup_row_values(entry, rel, b, &vb);

	if (has_a != has_b)
		return false;
	if (!has_a)
		return true;
	if (cfg->scope_attno &&
		!datumIsEqual(va.scope, vb.scope,
					  TupleDescAttr(RelationGetDescr(rel), cfg->scope_attno - 1)->attbyval,
					  TupleDescAttr(RelationGetDescr(rel), cfg->scope_attno - 1)->attlen))
		return false;
	return nddup_dedup_sig_equal(cfg, va.sig, vb.sig) &&
		nddup_dedup_verify_unchanged(entry, rel, a, vb.has_verify, vb.verify);
}
