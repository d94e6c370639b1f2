-- 0.2: clusters without chains (src/batch/batch_greedy.c, docs/batch.md): the
-- *_clusters functions take a mode, 'greedy' by default, 'components' for the
-- connected components of 0.1 (hamming_clusters and minhash_clusters are
-- re-created with it by 60_batch_verify.sql and 65_batch_sketch_verify.sql).
DROP FUNCTION @extschema@.clusters_from_pairs(text, boolean);

CREATE FUNCTION @extschema@.clusters_from_pairs(query text, singletons boolean DEFAULT true,
	mode text DEFAULT 'greedy')
	RETURNS TABLE (id bigint, cluster_id bigint)
	AS 'MODULE_PATHNAME', 'hamming_clusters_from_pairs'
	LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.clusters_from_pairs(text, boolean, text)
	IS 'clusters of a query''s (id1, id2) pairs: by default (mode greedy) each id, smallest first, joins the smallest original it is paired with, else it is an original; mode components: the connected components; cluster_id is the smallest id';
