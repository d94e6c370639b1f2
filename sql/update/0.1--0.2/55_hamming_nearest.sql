-- 0.1 -> 0.2: hamming_nearest() checks its table and columns before it runs a
-- query (42P01, 42809, 42703, 42804 with the expected type), and answers with
-- one ordered scan of a hamming index when the column has one
-- (sql/install/55_nearest.sql).

-- The n fingerprints nearest to query, exactly: radius searches of growing
-- radius (served by a simhash64_gin_ops or simhash64_spgist_ops index when
-- there is one) until one returns at least n rows; the n nearest rows all
-- lie within that radius, so ordering it by (distance, id) is exact.  Up to
-- radius 16 the index is forced (GIN's cost model overrates probes of cached
-- pages); beyond, one scan of the whole table ranks every row.  OFFSET 0
-- keeps the radius search a radius search: without it an SP-GiST index
-- could serve the ORDER BY as a (slower) ordered scan.
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
	relkind "char";
	column_name name;
	column_type oid;
	base_type oid;
	expected text;
BEGIN
	-- the table and its columns, checked before any query runs
	SELECT c.relkind INTO relkind FROM pg_class c WHERE c.oid = rel;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'relation with OID % does not exist', rel::oid
			USING ERRCODE = '42P01';
	END IF;
	IF relkind NOT IN ('r', 'p', 'v', 'm', 'f') THEN
		RAISE EXCEPTION '"%" is not a table, view, materialized view or foreign table', rel
			USING ERRCODE = '42809';
	END IF;
	FOREACH column_name IN ARRAY ARRAY[id_column, fp_column] LOOP
		SELECT a.atttypid INTO column_type FROM pg_attribute a
			WHERE a.attrelid = rel AND a.attname = column_name AND a.attnum > 0 AND NOT a.attisdropped;
		IF NOT FOUND THEN
			RAISE EXCEPTION 'column "%" of relation "%" does not exist', column_name, rel
				USING ERRCODE = '42703';
		END IF;
		base_type := column_type;
		WHILE (SELECT t.typtype = 'd' FROM pg_type t WHERE t.oid = base_type) LOOP
			SELECT t.typbasetype INTO base_type FROM pg_type t WHERE t.oid = base_type;
		END LOOP;
		IF column_name = id_column AND base_type NOT IN ('int2'::regtype, 'int4'::regtype, 'int8'::regtype) THEN
			expected := 'smallint, integer or bigint';
		ELSIF column_name = fp_column AND base_type <> '@extschema@.simhash64'::regtype THEN
			expected := 'simhash64';
		ELSE
			CONTINUE;
		END IF;
		RAISE EXCEPTION 'column "%" of relation "%" has type %, expected %',
				column_name, rel, format_type(column_type, NULL), expected
			USING ERRCODE = '42804',
				HINT = CASE WHEN expected = 'simhash64' THEN
					'Pass a simhash64 column, e.g. one generated from the text: '
					'ALTER TABLE ... ADD COLUMN fp simhash64 GENERATED ALWAYS AS (simhash(body)) STORED.'
				ELSE 'The id column must be an integer column (or a domain over one).' END;
	END LOOP;
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
