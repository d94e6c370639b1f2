-- 0.2: hamming_nearest() answers with one ordered scan of a hamming index
-- when the column has one (sql/install/55_nearest.sql).

CREATE OR REPLACE FUNCTION @extschema@.hamming_nearest(rel regclass, id_column name, fp_column name,
		query @extschema@.simhash64, n integer)
	RETURNS TABLE (id bigint, distance integer)
	LANGUAGE plpgsql STABLE STRICT
	SET search_path = pg_catalog, pg_temp
	SET enable_seqscan = off
AS $$
DECLARE
	radius integer;
	ids bigint[];
	distances integer[];
BEGIN
	IF NOT EXISTS (SELECT FROM pg_class WHERE oid = rel) THEN
		RAISE EXCEPTION 'relation with OID % does not exist', rel::oid
			USING ERRCODE = '42P01';
	END IF;
	IF n < 1 THEN
		RAISE EXCEPTION 'number of neighbours % is out of range', n
			USING ERRCODE = '22023', HINT = 'Ask for at least one neighbour.';
	END IF;
	IF EXISTS (SELECT FROM pg_index i
				JOIN pg_class c ON c.oid = i.indexrelid
				JOIN pg_am a ON a.oid = c.relam
				JOIN pg_attribute t ON t.attrelid = i.indrelid AND t.attnum = i.indkey[0]
				WHERE i.indrelid = rel AND a.amname = 'hamming' AND i.indisvalid
				  AND i.indpred IS NULL AND t.attname = fp_column) THEN
		RETURN QUERY EXECUTE format(
			'SELECT i, d FROM (SELECT i, d, rank() OVER (ORDER BY d) AS k FROM ('
			'SELECT %I::bigint AS i, %I OPERATOR(@extschema@.<->) $1 AS d FROM %s '
			'WHERE %I IS NOT NULL ORDER BY %I OPERATOR(@extschema@.<->) $1) s) r '
			'WHERE k <= $2 ORDER BY d, i LIMIT $2',
			id_column, fp_column, rel, fp_column, fp_column)
			USING query, n;
		RETURN;
	END IF;
	FOREACH radius IN ARRAY ARRAY[0, 2, 4, 6, 8, 10, 12, 14, 16, 64] LOOP
		IF radius = 64 THEN
			PERFORM set_config('enable_seqscan', 'on', true);
		END IF;
		EXECUTE format(
			'SELECT array_agg(i ORDER BY d, i), array_agg(d ORDER BY d, i) FROM ('
			'SELECT i, d FROM (SELECT %I::bigint AS i, %I OPERATOR(@extschema@.<->) $1 AS d FROM %s '
			'WHERE %I OPERATOR(@extschema@.<@) @extschema@.ball($1, $2) OFFSET 0) r '
			'ORDER BY d, i LIMIT $3) s',
			id_column, fp_column, rel, fp_column)
			INTO ids, distances USING query, radius, n;
		IF coalesce(cardinality(ids), 0) >= n OR radius = 64 THEN
			RETURN QUERY SELECT * FROM unnest(ids, distances);
			RETURN;
		END IF;
	END LOOP;
END
$$;
COMMENT ON FUNCTION @extschema@.hamming_nearest(regclass, name, name, @extschema@.simhash64, integer)
	IS 'the n rows whose fingerprints are nearest to query (exact; ties by id)';
