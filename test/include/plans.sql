--
-- pg_temp.plan(query): the lines of EXPLAIN (COSTS OFF) query, printed the
-- same by every PostgreSQL major nddup supports (15 to 18), for the
-- regression tests that show plans.  Include it with
--   \getenv abs_srcdir PG_ABS_SRCDIR
--   \set plans :abs_srcdir '/include/plans.sql'
--   \set ECHO none
--   \i :plans
--   \set ECHO all
-- Only how the server prints a plan differs between the majors, never the
-- plan, and only these differences are rewritten:
--   - 17 names the value of an initplan (InitPlan 1).col1, where 15 and 16
--     print $0 and head the initplan "InitPlan 1 (returns $0)": the older
--     form becomes the newer;
--   - 17 drops a condition "col IS NOT NULL" on a column declared NOT NULL,
--     where 15 and 16 keep it as "Filter: (col IS NOT NULL)": such a line
--     goes;
--   - 18 marks with "Disabled: true" the nodes that a test's enable_* = off
--     did not avoid (a scan of a table with no index): those lines go.
--
CREATE FUNCTION pg_temp.plan(query text) RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE
	lines text[] := '{}';
	line text;
	params text[] := '{}';
	names text[] := '{}';
	head text[];
	returned text[];
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
		lines := lines || line;
		-- 15 and 16: "InitPlan N (returns $a,$b)" names its values $a, $b
		head := regexp_match(line, '^\s*InitPlan (\d+) \(returns ([^)]*)\)$');
		IF head IS NOT NULL THEN
			returned := string_to_array(head[2], ',');
			FOR i IN 1 .. array_length(returned, 1) LOOP
				params := params || returned[i];
				names := names || format('(InitPlan %s).col%s', head[1], i);
			END LOOP;
		END IF;
	END LOOP;
	FOREACH line IN ARRAY lines LOOP
		CONTINUE WHEN line ~ '^\s*Disabled: true$' OR line ~ '^\s*Filter: \(\w+ IS NOT NULL\)$';
		line := regexp_replace(line, '^(\s*InitPlan \d+) \(returns [^)]*\)$', '\1');
		FOR i IN 1 .. coalesce(array_length(params, 1), 0) LOOP
			line := regexp_replace(line, '\' || params[i] || '(?![0-9])', names[i], 'g');
		END LOOP;
		RETURN NEXT line;
	END LOOP;
END
$$;
