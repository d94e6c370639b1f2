-- nddup install script, part 7.8: why two texts match (docs/explain.md).
--
-- nddup_explain() gives every measure of the pair (exact shingle-set Jaccard,
-- containment both ways, the min-hash estimate, the simhash distance) and the
-- shared passages: the maximal runs of consecutive shingles of each text that
-- the other text also has, as character ranges of the original texts (markup,
-- character references and Unicode normalization included).  The distinct
-- shingles of a text's passages are exactly the shared shingles, so the
-- passages reproduce the Jaccard reported.  nddup_highlight() returns both
-- texts HTML-escaped with the passages marked, for a moderator's page.

CREATE FUNCTION @extschema@.nddup_explain(a text, b text, size integer DEFAULT 3,
		unit text DEFAULT 'word',
		OUT jaccard double precision, OUT a_in_b double precision, OUT b_in_a double precision,
		OUT shared bigint, OUT a_shingles bigint, OUT b_shingles bigint,
		OUT minhash_estimate double precision, OUT simhash_distance integer,
		OUT a_passages int4range[], OUT b_passages int4range[])
	RETURNS record
	AS 'MODULE_PATHNAME', 'nddup_explain_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.nddup_explain(text, text, integer, text)
	IS 'why two texts match: exact Jaccard, containment both ways, min-hash estimate, simhash distance and the shared passages as character ranges of each text';

CREATE FUNCTION @extschema@.nddup_highlight(a text, b text, open text DEFAULT '<mark>',
		close text DEFAULT '</mark>', size integer DEFAULT 3, unit text DEFAULT 'word',
		OUT a_html text, OUT b_html text)
	RETURNS record
	AS 'MODULE_PATHNAME', 'nddup_highlight_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.nddup_highlight(text, text, text, text, integer, text)
	IS 'both texts HTML-escaped, with the passages they share between open and close';
