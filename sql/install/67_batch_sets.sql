-- nddup install script, part 6c: the exact resemblance join of shingle sets
-- (src/batch/sets/set_sql.c): every pair of rows whose shingle sets reach a
-- Jaccard or containment threshold, the join of two inputs, clusters; by
-- prefix filtering over a global order of the shingles (rarest first) and
-- an exact check of every candidate.  See docs/batch-sets.md.
--
-- The inputs are query texts run with the caller's privileges, so these
-- functions are VOLATILE and PARALLEL UNSAFE; NULL arguments give no rows.
-- measure is 'jaccard' (the default) or 'containment'.

CREATE FUNCTION @extschema@.shingleset_pairs(query text, threshold float8,
	measure text DEFAULT 'jaccard')
	RETURNS TABLE (id1 bigint, id2 bigint, similarity float8)
	AS 'MODULE_PATHNAME', 'shingleset_pairs_query'
	LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.shingleset_pairs(text, float8, text)
	IS 'every pair of rows of a query (id, shingleset) whose exact Jaccard (or containment of the smaller set in the larger) reaches threshold';

CREATE FUNCTION @extschema@.shingleset_pairs(rel regclass, id_column name, set_column name,
	threshold float8 DEFAULT NULL, measure text DEFAULT 'jaccard')
	RETURNS TABLE (id1 bigint, id2 bigint, similarity float8)
	AS 'MODULE_PATHNAME', 'shingleset_pairs_rel'
	LANGUAGE C VOLATILE PARALLEL UNSAFE;
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
	singletons boolean DEFAULT true, measure text DEFAULT 'jaccard', mode text DEFAULT 'greedy')
	RETURNS TABLE (id bigint, cluster_id bigint)
	AS 'MODULE_PATHNAME', 'shingleset_clusters_query'
	LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.shingleset_clusters(text, float8, boolean, text, text)
	IS 'clusters of a query (id, shingleset[, order key]) at threshold: by default (mode greedy) each member is within the threshold of its cluster''s original, the earliest row (by order key, then id) that is not within the threshold of an earlier original; mode components: the connected components of the pairs; named after their earliest member';

CREATE FUNCTION @extschema@.shingleset_clusters(rel regclass, id_column name, set_column name,
	threshold float8 DEFAULT NULL, order_column name DEFAULT NULL, singletons boolean DEFAULT true,
	measure text DEFAULT 'jaccard', mode text DEFAULT 'greedy')
	RETURNS TABLE (id bigint, cluster_id bigint)
	AS 'MODULE_PATHNAME', 'shingleset_clusters_rel'
	LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.shingleset_clusters(regclass, name, name, float8, name, boolean, text, text)
	IS 'clusters of a relation by exact shingle-set resemblance: by default (mode greedy) each member is within the threshold of its cluster''s original, the earliest row (by order_column, then smallest id) that is not within the threshold of an earlier original; mode components: the connected components of the pairs; named after their earliest member';

-- the relation form for calls whose arguments are all untyped (drivers that
-- send every parameter as text): the threshold is a text here too, since
-- the query form's fourth argument (the measure) is one and PostgreSQL would
-- otherwise find the two forms equally good
CREATE FUNCTION @extschema@.shingleset_clusters(rel text, id_column name, set_column name,
	threshold text DEFAULT NULL, order_column name DEFAULT NULL, singletons boolean DEFAULT true,
	measure text DEFAULT 'jaccard', mode text DEFAULT 'greedy')
	RETURNS TABLE (id bigint, cluster_id bigint)
	LANGUAGE sql VOLATILE PARALLEL UNSAFE
	AS $$ SELECT * FROM @extschema@.shingleset_clusters(rel::regclass, id_column, set_column,
		threshold::float8, order_column, singletons, measure, mode) $$;
COMMENT ON FUNCTION @extschema@.shingleset_clusters(text, name, name, text, name, boolean, text, text)
	IS 'the relation form, relation and threshold as texts: a call whose arguments are all untyped literals or parameters resolves to it';
