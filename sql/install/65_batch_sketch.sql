-- nddup install script, part 6b: batch near-duplicate detection over
-- resemblance sketches (src/batch/sketch/sketch_sql.c): all pairs of min-hash sketches
-- above a resemblance threshold (LSH bands, exact by default), the
-- similarity join of two sets, clusters, and all pairs of documents sharing
-- at least r super-shingles.  See docs/batch-sketches.md.
--
-- The inputs are query texts run with the caller's privileges, so these
-- functions are VOLATILE and PARALLEL UNSAFE.  The optional arguments may be
-- NULL (choose), so the min-hash functions are not STRICT: a NULL query or
-- threshold returns no rows.  bands and rows are bigint (the functions take
-- 1 to 1024) so that a relation form called with an integer threshold,
-- minhash_pairs('docs', 'id', 'sk', 1), is not taken for the query form.
-- The minhash_sketch type is looked up when a
-- function runs (it is created by a later part of this script).

CREATE FUNCTION @extschema@.minhash_pairs(query text, threshold float8,
	bands bigint DEFAULT NULL, "rows" bigint DEFAULT NULL, verify float8 DEFAULT NULL)
	RETURNS TABLE (id1 bigint, id2 bigint, resemblance float8)
	AS 'MODULE_PATHNAME', 'minhash_pairs_query'
	LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.minhash_pairs(text, float8, bigint, bigint, float8)
	IS 'all pairs of rows of a query (id, minhash_sketch[, verification value]) whose estimated resemblance is at least threshold; with verify, only pairs whose values reach that resemblance (then reported)';

CREATE FUNCTION @extschema@.minhash_pairs(rel regclass, id_column name, sketch_column name,
	threshold float8 DEFAULT NULL, bands bigint DEFAULT NULL, "rows" bigint DEFAULT NULL,
	verify_column name DEFAULT NULL, verify float8 DEFAULT NULL)
	RETURNS TABLE (id1 bigint, id2 bigint, resemblance float8)
	AS 'MODULE_PATHNAME', 'minhash_pairs_rel'
	LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.minhash_pairs(regclass, name, name, float8, bigint, bigint, name, float8)
	IS 'all pairs of rows of a relation whose min-hash sketches'' estimated resemblance is at least threshold; with verify_column, only pairs whose values reach verify (default nddup.similarity_threshold)';

CREATE FUNCTION @extschema@.minhash_pairs(rel text, id_column name, sketch_column name,
	threshold float8 DEFAULT NULL, bands bigint DEFAULT NULL, "rows" bigint DEFAULT NULL,
	verify_column name DEFAULT NULL, verify float8 DEFAULT NULL)
	RETURNS TABLE (id1 bigint, id2 bigint, resemblance float8)
	LANGUAGE sql VOLATILE PARALLEL UNSAFE
	AS $$ SELECT * FROM @extschema@.minhash_pairs(rel::regclass, id_column, sketch_column, threshold,
		bands, "rows", verify_column, verify) $$;
COMMENT ON FUNCTION @extschema@.minhash_pairs(text, name, name, float8, bigint, bigint, name, float8)
	IS 'the relation form, the relation named by a text: a call whose arguments are all untyped literals or parameters resolves to it';

CREATE FUNCTION @extschema@.minhash_join(query_a text, query_b text, threshold float8,
	bands bigint DEFAULT NULL, "rows" bigint DEFAULT NULL, verify float8 DEFAULT NULL)
	RETURNS TABLE (id_a bigint, id_b bigint, resemblance float8)
	AS 'MODULE_PATHNAME', 'minhash_join_query'
	LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.minhash_join(text, text, float8, bigint, bigint, float8)
	IS 'similarity join: pairs (a, b) of rows of two queries (id, minhash_sketch[, verification value]) with estimated resemblance at least threshold; with verify, only pairs whose values reach that resemblance (then reported)';

CREATE FUNCTION @extschema@.minhash_clusters(query text, threshold float8,
	bands bigint DEFAULT NULL, "rows" bigint DEFAULT NULL, singletons boolean DEFAULT true,
	verify float8 DEFAULT NULL, mode text DEFAULT 'greedy')
	RETURNS TABLE (id bigint, cluster_id bigint)
	AS 'MODULE_PATHNAME', 'minhash_clusters_query'
	LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.minhash_clusters(text, float8, bigint, bigint, boolean, float8, text)
	IS 'clusters of a query (id, minhash_sketch[, order key][, verification value]) at resemblance >= threshold: by default (mode greedy) each member is within the threshold of its cluster''s original, the earliest row (by order key, then id) that is not within the threshold of an earlier original; mode components: the connected components of the pairs; cluster_id is the earliest member; with verify, only pairs whose values reach that resemblance match';

CREATE FUNCTION @extschema@.minhash_clusters(rel regclass, id_column name, sketch_column name,
	threshold float8 DEFAULT NULL, order_column name DEFAULT NULL, bands bigint DEFAULT NULL,
	"rows" bigint DEFAULT NULL, singletons boolean DEFAULT true,
	verify_column name DEFAULT NULL, verify float8 DEFAULT NULL, mode text DEFAULT 'greedy')
	RETURNS TABLE (id bigint, cluster_id bigint)
	AS 'MODULE_PATHNAME', 'minhash_clusters_rel'
	LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.minhash_clusters(regclass, name, name, float8, name, bigint, bigint, boolean, name, float8, text)
	IS 'clusters of a relation at resemblance >= threshold: by default (mode greedy) each member is within the threshold of its cluster''s original, the earliest row (by order_column, then smallest id) that is not within the threshold of an earlier original; mode components: the connected components of the pairs; cluster_id is the earliest member; bands and rows as in the query form; with verify_column, only pairs whose values reach verify (default nddup.similarity_threshold) match';

CREATE FUNCTION @extschema@.minhash_clusters(rel text, id_column name, sketch_column name,
	threshold float8 DEFAULT NULL, order_column name DEFAULT NULL, bands bigint DEFAULT NULL,
	"rows" bigint DEFAULT NULL, singletons boolean DEFAULT true,
	verify_column name DEFAULT NULL, verify float8 DEFAULT NULL, mode text DEFAULT 'greedy')
	RETURNS TABLE (id bigint, cluster_id bigint)
	LANGUAGE sql VOLATILE PARALLEL UNSAFE
	AS $$ SELECT * FROM @extschema@.minhash_clusters(rel::regclass, id_column, sketch_column, threshold,
		order_column, bands, "rows", singletons, verify_column, verify, mode) $$;
COMMENT ON FUNCTION @extschema@.minhash_clusters(text, name, name, float8, name, bigint, bigint, boolean, name, float8, text)
	IS 'the relation form, the relation named by a text: a call whose arguments are all untyped literals or parameters resolves to it';

CREATE FUNCTION @extschema@.super_shingle_pairs(query text, r integer DEFAULT 2)
	RETURNS TABLE (id1 bigint, id2 bigint, matches integer)
	AS 'MODULE_PATHNAME', 'super_shingle_pairs_query'
	LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.super_shingle_pairs(text, integer)
	IS 'all pairs of rows of a query (id, super-shingles bigint[]) with at least r equal super-shingles at the same positions';
