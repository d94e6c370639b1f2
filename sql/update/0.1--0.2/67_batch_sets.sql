-- 0.2: the exact resemblance join of shingle sets (src/batch/set_sql.c,
-- docs/batch-sets.md).
CREATE FUNCTION @extschema@.shingleset_pairs(query text, threshold float8,
	measure text DEFAULT 'jaccard')
	RETURNS TABLE (id1 bigint, id2 bigint, similarity float8)
	AS 'MODULE_PATHNAME', 'shingleset_pairs_query'
	LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.shingleset_pairs(text, float8, text)
	IS 'every pair of rows of a query (id, shingleset) whose exact Jaccard (or containment of the smaller set in the larger) reaches threshold';

CREATE FUNCTION @extschema@.shingleset_pairs(rel regclass, id_column name, set_column name,
	threshold float8, measure text DEFAULT 'jaccard')
	RETURNS TABLE (id1 bigint, id2 bigint, similarity float8)
	AS 'MODULE_PATHNAME', 'shingleset_pairs_rel'
	LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.shingleset_pairs(regclass, name, name, float8, text)
	IS 'every pair of rows of a relation whose shingle sets'' exact Jaccard (or containment) reaches threshold';

CREATE FUNCTION @extschema@.shingleset_join(query_a text, query_b text, threshold float8,
	measure text DEFAULT 'jaccard')
	RETURNS TABLE (id_a bigint, id_b bigint, similarity float8)
	AS 'MODULE_PATHNAME', 'shingleset_join_query'
	LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.shingleset_join(text, text, float8, text)
	IS 'exact similarity join: pairs (a, b) of rows of two queries (id, shingleset) whose Jaccard (or containment of a in b) reaches threshold';

CREATE FUNCTION @extschema@.shingleset_clusters(query text, threshold float8,
	singletons boolean DEFAULT true, measure text DEFAULT 'jaccard')
	RETURNS TABLE (id bigint, cluster_id bigint)
	AS 'MODULE_PATHNAME', 'shingleset_clusters_query'
	LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.shingleset_clusters(text, float8, boolean, text)
	IS 'clusters of a query (id, shingleset[, order key]): connected components of the pairs at threshold, named after their earliest member';

CREATE FUNCTION @extschema@.shingleset_clusters(rel regclass, id_column name, set_column name,
	threshold float8, order_column name DEFAULT NULL, singletons boolean DEFAULT true,
	measure text DEFAULT 'jaccard')
	RETURNS TABLE (id bigint, cluster_id bigint)
	AS 'MODULE_PATHNAME', 'shingleset_clusters_rel'
	LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.shingleset_clusters(regclass, name, name, float8, name, boolean, text)
	IS 'clusters of a relation by exact shingle-set resemblance, named after their earliest member (by order_column, else smallest id)';
