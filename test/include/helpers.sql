--
-- Functions the regression tests share, in pg_temp.  Include with
--   \getenv abs_srcdir PG_ABS_SRCDIR
--   \set helpers :abs_srcdir '/include/helpers.sql'
--   \set ECHO none
--   \i :helpers
--   \set ECHO all
--

--
-- pg_temp.plan(query): the lines of EXPLAIN (COSTS OFF) query, printed the
-- same by every PostgreSQL major nddup supports (15 to 18).  Only how the server prints a plan differs between the majors, never the
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

--
-- pg_temp.compare_scans(query, index_name): run query (no ORDER BY needed)
-- once through bitmap index scans and once by sequential scans; return the
-- size of the answer, the rows only one of them returned (as multisets), and
-- whether the first plan used the index.
--
CREATE FUNCTION pg_temp.compare_scans(query text, index_name text,
	OUT pairs bigint, OUT index_only bigint, OUT seq_only bigint, OUT used_index boolean)
LANGUAGE plpgsql AS $$
DECLARE
	plan text := '';
	line text;
BEGIN
	PERFORM set_config('enable_seqscan', 'off', true);
	PERFORM set_config('enable_bitmapscan', 'on', true);
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
		plan := plan || line || E'\n';
	END LOOP;
	used_index := plan LIKE '%Bitmap Index Scan on ' || index_name || E'\n%';
	EXECUTE 'CREATE TEMP TABLE compare_by_index AS ' || query;
	PERFORM set_config('enable_seqscan', 'on', true);
	PERFORM set_config('enable_bitmapscan', 'off', true);
	PERFORM set_config('enable_indexscan', 'off', true);
	EXECUTE 'CREATE TEMP TABLE compare_by_seq AS ' || query;
	PERFORM set_config('enable_bitmapscan', 'on', true);
	PERFORM set_config('enable_indexscan', 'on', true);
	SELECT count(*) INTO pairs FROM compare_by_seq;
	SELECT count(*) INTO index_only FROM (TABLE compare_by_index EXCEPT ALL TABLE compare_by_seq) x;
	SELECT count(*) INTO seq_only FROM (TABLE compare_by_seq EXCEPT ALL TABLE compare_by_index) x;
	DROP TABLE compare_by_index, compare_by_seq;
END
$$;
