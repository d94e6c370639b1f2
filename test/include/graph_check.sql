-- Checks of a duplicate graph kept by nddup_dedup_trigger() (columns id and
-- duplicate_of), for test/sql/trigger_graph.sql and test/bench/graph_bench.sh.
-- pred is the trigger's match condition between rows a and b, e.g.
-- 'a.fp <-> b.fp <= 3'; ord the survivor order ('id', or 'created, id').

-- Dangling duplicate_of, chains, pairs of originals that match each other,
-- duplicates that do not match their original: all 0 in a true graph.
CREATE FUNCTION pg_temp.graph_check(tbl regclass, pred text)
RETURNS TABLE (dangling bigint, chains bigint, matching_originals bigint,
			   unmatched_duplicates bigint)
LANGUAGE plpgsql AS $$
BEGIN
	RETURN QUERY EXECUTE format($q$
		SELECT
		  (SELECT count(*) FROM %1$s d WHERE d.duplicate_of IS NOT NULL
		     AND NOT EXISTS (SELECT FROM %1$s o WHERE o.id = d.duplicate_of)),
		  (SELECT count(*) FROM %1$s d JOIN %1$s o ON o.id = d.duplicate_of
		    WHERE o.duplicate_of IS NOT NULL),
		  (SELECT count(*) FROM %1$s a JOIN %1$s b ON a.id < b.id AND (%2$s)
		    WHERE a.duplicate_of IS NULL AND b.duplicate_of IS NULL),
		  (SELECT count(*) FROM %1$s b JOIN %1$s a ON a.id = b.duplicate_of
		    WHERE NOT (%2$s))$q$, tbl, pred);
END
$$;

-- The rows whose duplicate_of differs from a from-scratch judgement: the
-- rows inserted one by one in the survivor order, each pointing at the
-- earliest original before it that it matches.
CREATE FUNCTION pg_temp.graph_scratch_diff(tbl regclass, pred text, ord text)
RETURNS TABLE (id bigint, duplicate_of bigint, from_scratch bigint)
LANGUAGE plpgsql AS $$
DECLARE
	r record;
	o bigint;
BEGIN
	CREATE TEMP TABLE graph_scratch (id bigint PRIMARY KEY, pos bigint, dup bigint);
	FOR r IN EXECUTE format('SELECT id::bigint AS id, row_number() OVER (ORDER BY %s, id) AS pos FROM %s ORDER BY pos', ord, tbl)
	LOOP
		EXECUTE format($q$
			SELECT a.id FROM graph_scratch s JOIN %1$s a ON a.id = s.id, %1$s b
			WHERE s.dup IS NULL AND b.id = $1 AND (%2$s)
			ORDER BY s.pos LIMIT 1$q$, tbl, pred) INTO o USING r.id;
		INSERT INTO graph_scratch VALUES (r.id, r.pos, o);
	END LOOP;
	RETURN QUERY EXECUTE format($q$
		SELECT t.id::bigint, t.duplicate_of::bigint, s.dup FROM %s t JOIN graph_scratch s ON s.id = t.id
		WHERE t.duplicate_of IS DISTINCT FROM s.dup ORDER BY t.id$q$, tbl);
	DROP TABLE graph_scratch;
END
$$;

-- The two triggers of a graph on tbl: BEFORE INSERT OR UPDATE OF cols and
-- AFTER INSERT OR DELETE OR UPDATE OF cols, both with the arguments args.
CREATE FUNCTION pg_temp.graph_triggers(tbl regclass, cols text, args text)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('CREATE TRIGGER dedup BEFORE INSERT OR UPDATE OF %s ON %s FOR EACH ROW EXECUTE FUNCTION nddup_dedup_trigger(%s)',
				   cols, tbl, args);
	EXECUTE format('CREATE TRIGGER dedup_graph AFTER INSERT OR DELETE OR UPDATE OF %s ON %s FOR EACH ROW EXECUTE FUNCTION nddup_dedup_trigger(%s)',
				   cols, tbl, args);
END
$$;
