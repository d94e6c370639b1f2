--
-- The catalog: every SQL-callable function of the extension is IMMUTABLE
-- and PARALLEL SAFE unless it has a reason not to be; this lists the
-- exceptions, so a new one is a visible change.  Planner and index support
-- functions (taking internal) are left out.
--
SELECT p.proname, p.provolatile, p.proparallel
FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.deptype = 'e'
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'nddup'
WHERE (p.provolatile <> 'i' OR p.proparallel <> 's')
	AND NOT 'internal'::regtype = ANY (p.proargtypes)
ORDER BY 1, 2;

-- no function is SECURITY DEFINER
SELECT count(*) AS security_definer
FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.deptype = 'e'
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'nddup'
WHERE p.prosecdef;

-- every function and type of the extension lives in the extension's schema
SELECT count(*) AS outside_schema
FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.deptype = 'e'
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'nddup'
WHERE p.pronamespace <> e.extnamespace;

-- the extension is trusted: the owner of a database, without superuser,
-- can install it there and use it (docs/security.md)
SELECT version, trusted FROM pg_available_extension_versions WHERE name = 'nddup' ORDER BY version;
SELECT current_database() AS orig_db, current_user AS orig_user \gset
CREATE ROLE regress_nddup_owner LOGIN;
CREATE DATABASE nddup_trusted OWNER regress_nddup_owner;
\c nddup_trusted regress_nddup_owner
SELECT rolsuper FROM pg_roles WHERE rolname = current_user;
CREATE EXTENSION nddup;
SELECT simhash('the quick brown fox') <-> simhash('the quick brown fox!') AS distance;
SELECT e.extname, r.rolname AS owner
FROM pg_extension e JOIN pg_roles r ON r.oid = e.extowner WHERE e.extname = 'nddup';
DROP EXTENSION nddup;
\c :orig_db :orig_user
DROP DATABASE nddup_trusted;
DROP ROLE regress_nddup_owner;
