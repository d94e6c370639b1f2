-- nddup install script, part 6: batch near-duplicate detection
-- (src/batch/hamming/hamming_sql.c): all pairs within a Hamming radius, similarity joins,
-- clustering and incremental cluster assignment.  See docs/batch.md.
--
-- The inputs are query texts run with the caller's privileges, so these
-- functions are VOLATILE and PARALLEL UNSAFE.  Settings read at call time:
-- nddup.progress (on: a NOTICE every 10 %) and nddup.batch_blocks (force the
-- number of blocks of the permuted tables; 0 or unset: cost model).

CREATE FUNCTION @extschema@.hamming_pairs(query text, radius integer, verify float8 DEFAULT NULL)
	RETURNS TABLE (id1 bigint, id2 bigint, distance integer)
	AS 'MODULE_PATHNAME', 'hamming_pairs_query'
	LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.hamming_pairs(text, integer, float8)
	IS 'all pairs of rows of a query (id, simhash64[, verification value]) whose fingerprints differ in at most radius bits; with verify, only pairs whose values reach that resemblance';

CREATE FUNCTION @extschema@.hamming_pairs(rel regclass, id_column name, fp_column name, radius integer DEFAULT NULL,
	verify_column name DEFAULT NULL, verify float8 DEFAULT NULL)
	RETURNS TABLE (id1 bigint, id2 bigint, distance integer)
	AS 'MODULE_PATHNAME', 'hamming_pairs_rel'
	LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.hamming_pairs(regclass, name, name, integer, name, float8)
	IS 'all pairs of rows of a relation whose fingerprints differ in at most radius bits; with verify_column, only pairs whose values reach verify (default nddup.similarity_threshold)';

CREATE FUNCTION @extschema@.hamming_join(query_a text, query_b text, radius integer, verify float8 DEFAULT NULL)
	RETURNS TABLE (id_a bigint, id_b bigint, distance integer)
	AS 'MODULE_PATHNAME', 'hamming_join_query'
	LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.hamming_join(text, text, integer, float8)
	IS 'similarity join: pairs (a, b) of rows of two queries (id, simhash64[, verification value]) within radius bits; with verify, only pairs whose values reach that resemblance';

CREATE FUNCTION @extschema@.hamming_clusters(query text, radius integer, singletons boolean DEFAULT true,
	verify float8 DEFAULT NULL, mode text DEFAULT 'greedy')
	RETURNS TABLE (id bigint, cluster_id bigint)
	AS 'MODULE_PATHNAME', 'hamming_clusters_query'
	LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.hamming_clusters(text, integer, boolean, float8, text)
	IS 'clusters of a query (id, simhash64[, order key][, verification value]): by default (mode greedy) each member is within radius of its cluster''s original, the earliest row (by order key, then id) that is not within radius of an earlier original; mode components: the connected components of the pairs; cluster_id is the earliest member; with verify, only pairs whose values reach that resemblance match';

CREATE FUNCTION @extschema@.hamming_clusters(rel regclass, id_column name, fp_column name, radius integer DEFAULT NULL,
	order_column name DEFAULT NULL, singletons boolean DEFAULT true,
	verify_column name DEFAULT NULL, verify float8 DEFAULT NULL, mode text DEFAULT 'greedy')
	RETURNS TABLE (id bigint, cluster_id bigint)
	AS 'MODULE_PATHNAME', 'hamming_clusters_rel'
	LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.hamming_clusters(regclass, name, name, integer, name, boolean, name, float8, text)
	IS 'clusters of a relation: by default (mode greedy) each member is within radius of its cluster''s original, the earliest row (by order_column, then smallest id) that is not within radius of an earlier original; mode components: the connected components of the pairs; cluster_id is the earliest member; with verify_column, only pairs whose values reach verify (default nddup.similarity_threshold) match';

-- The relation named by a text: a call whose four arguments are all untyped
-- literals or parameters resolves to this form (its radius is float8, as
-- the query form's fourth argument, since float8 is the preferred type of
-- that position; a radius that is not an integer fails as integer input).
CREATE FUNCTION @extschema@.hamming_clusters(rel text, id_column name, fp_column name, radius float8 DEFAULT NULL,
	order_column name DEFAULT NULL, singletons boolean DEFAULT true,
	verify_column name DEFAULT NULL, verify float8 DEFAULT NULL, mode text DEFAULT 'greedy')
	RETURNS TABLE (id bigint, cluster_id bigint)
	LANGUAGE sql VOLATILE PARALLEL UNSAFE
	AS $$ SELECT * FROM @extschema@.hamming_clusters(rel::regclass, id_column, fp_column,
		radius::text::integer, order_column, singletons, verify_column, verify, mode) $$;
COMMENT ON FUNCTION @extschema@.hamming_clusters(text, name, name, float8, name, boolean, name, float8, text)
	IS 'the relation form, the relation named by a text: a call whose arguments are all untyped literals or parameters resolves to it';

CREATE FUNCTION @extschema@.clusters_from_pairs(query text, singletons boolean DEFAULT true,
	mode text DEFAULT 'greedy')
	RETURNS TABLE (id bigint, cluster_id bigint)
	AS 'MODULE_PATHNAME', 'hamming_clusters_from_pairs'
	LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.clusters_from_pairs(text, boolean, text)
	IS 'clusters of a query''s (id1, id2) pairs: by default (mode greedy) each id, smallest first, joins the smallest original it is paired with, else it is an original; mode components: the connected components; cluster_id is the smallest id';

CREATE FUNCTION @extschema@.hamming_assign(new_query text, existing_query text, radius integer)
	RETURNS TABLE (id bigint, cluster_id bigint)
	AS 'MODULE_PATHNAME', 'hamming_assign_query'
	LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.hamming_assign(text, text, integer)
	IS 'cluster of each new row (id, simhash64[, order key]) given existing rows (id, simhash64, cluster_id)';
