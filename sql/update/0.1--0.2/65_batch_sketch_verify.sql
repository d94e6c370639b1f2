-- 0.2: verified candidates for the min-hash batch functions
-- (src/batch/batch_verify.c, docs/batch-sketches.md): a verification
-- threshold (and for the relation forms a verification column) after the
-- former arguments; the relation form of minhash_clusters takes bands and
-- rows, as its query form does (after order_column).
DROP FUNCTION @extschema@.minhash_pairs(text, float8, bigint, bigint);
DROP FUNCTION @extschema@.minhash_pairs(regclass, name, name, float8, bigint, bigint);
DROP FUNCTION @extschema@.minhash_join(text, text, float8, bigint, bigint);
DROP FUNCTION @extschema@.minhash_clusters(text, float8, bigint, bigint, boolean);
DROP FUNCTION @extschema@.minhash_clusters(regclass, name, name, float8, name, boolean);

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

