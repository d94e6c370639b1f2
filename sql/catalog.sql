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
