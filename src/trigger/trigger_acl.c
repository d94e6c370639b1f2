/*-------------------------------------------------------------------------
 *
 * trigger_acl.c
 *	  What nddup_original() (trigger_citus.c) requires of its caller
 *	  (docs/security.md#nddup_original).
 *
 * A trigger's arguments are chosen by the owner of its table; those of
 * nddup_original() by whoever calls it, on a table of its choice.  So the
 * function may disclose nothing its caller could not read with SELECT and
 * may take no lock its caller could not take by inserting:
 *
 *	- no system catalog;
 *	- INSERT on the table (on the table or on some column), before the table
 *	  is opened, its arguments parsed or any advisory lock taken;
 *	- SELECT on every column the lookup reads (fingerprint, source, id,
 *	  duplicate_of, order, scope, verify_column) and on the filter= column;
 *	- visibility=all only where row-level security does not restrict the
 *	  caller (no policy applies: the table has none enabled, or the caller
 *	  owns it without FORCE, or has BYPASSRLS): the lookup then sees every
 *	  row because the caller may read every row.  The lookup always runs as
 *	  the caller.
 *
 * The checks run on every call: the parsed arguments are cached for the
 * session, privileges are not.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "trigger/trigger.h"

#include "catalog/catalog.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/lsyscache.h"
#include "utils/rls.h"

/*
 * Refuse a system catalog, and a table the current user may not insert
 * into (42501); 42P01 when relid names no relation.  Runs before the table
 * is opened.
 */
void
nddup_original_check_table(Oid relid)
{
	Oid			userid = GetUserId();
	Oid			nsp = get_rel_namespace(relid);

	if (!OidIsValid(nsp))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", relid)));
	if (IsCatalogRelationOid(relid) || IsCatalogNamespace(nsp) || IsToastNamespace(nsp))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied: \"%s\" is a system catalog", get_rel_name(relid)),
				 errdetail("nddup_original() judges rows of user tables only.")));
	if (pg_class_aclcheck(relid, userid, ACL_INSERT) != ACLCHECK_OK &&
		pg_attribute_aclcheck_all(relid, userid, ACL_INSERT, ACLMASK_ANY) != ACLCHECK_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for table %s", get_rel_name(relid)),
				 errdetail("nddup_original() takes the locks of an insert into the table, so role \"%s\" needs INSERT on it.",
						   GetUserNameFromId(userid, false))));
}

/* 42501 unless the current user may read column attno of relid. */
static void
check_column(Oid relid, AttrNumber attno, const char *key)
{
	Oid			userid = GetUserId();

	if (attno == 0 ||
		pg_attribute_aclcheck(relid, attno, userid, ACL_SELECT) == ACLCHECK_OK)
		return;
	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("permission denied for column \"%s\" of relation \"%s\"",
					get_attname(relid, attno, false), get_rel_name(relid)),
			 errdetail("nddup_original() reads the %s= column, and role \"%s\" may not read it.",
					   key, GetUserNameFromId(userid, false))));
}

/*
 * Check that the current user may read what the lookup of cfg reads, and
 * may see every row if cfg has visibility=all (see the file header).
 */
void
nddup_original_check_read(const DedupConfig *cfg, Relation rel)
{
	Oid			userid = GetUserId();

	if (pg_class_aclcheck(cfg->relid, userid, ACL_SELECT) != ACLCHECK_OK)
	{
		check_column(cfg->relid, cfg->fp_attno, "fingerprint");
		check_column(cfg->relid, cfg->src_attno, "source");
		check_column(cfg->relid, cfg->id_attno, "id");
		check_column(cfg->relid, cfg->dup_attno, "duplicate_of");
		check_column(cfg->relid, cfg->order_attno, "order");
		check_column(cfg->relid, cfg->scope_attno, "scope");
		check_column(cfg->relid, cfg->verify_attno, "verify_column");
	}
	if (OidIsValid(cfg->filter_relid) &&
		pg_class_aclcheck(cfg->filter_relid, userid, ACL_SELECT) != ACLCHECK_OK)
		check_column(cfg->filter_relid, cfg->filter_attno, "filter");
	if (cfg->visibility == NDDUP_TRIGGER_VISIBILITY_ALL &&
		check_enable_rls(cfg->relid, InvalidOid, true) == RLS_ENABLED)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("nddup_original() cannot judge against every row of \"%s\" (visibility=all)",
						RelationGetRelationName(rel)),
				 errdetail("Row-level security restricts the rows role \"%s\" may read.",
						   GetUserNameFromId(userid, false)),
				 errhint("Leave visibility= out, or give visibility=caller, to judge against the rows the role may read.")));
}
