-- nddup install script, part 2: the text pipeline (docs/text-pipeline.md).

CREATE FUNCTION @extschema@.normalize_text(doc text) RETURNS text
	AS 'MODULE_PATHNAME', 'normalize_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.normalize_text(text)
	IS 'text without markup, NFKC, case folded, words separated by single spaces';

CREATE FUNCTION @extschema@.tokens(doc text) RETURNS text[]
	AS 'MODULE_PATHNAME', 'tokens_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.tokens(text)
	IS 'tokens of the normalized text (ideographs and kana one per character)';

CREATE FUNCTION @extschema@.shingles(doc text, size integer DEFAULT 3, unit text DEFAULT 'word')
	RETURNS bigint[]
	AS 'MODULE_PATHNAME', 'shingles_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.shingles(text, integer, text)
	IS '64-bit hashes of the normalized text''s w-shingles, in order, repeats kept';

CREATE FUNCTION @extschema@.nddup_unicode_version() RETURNS text
	AS 'MODULE_PATHNAME', 'unicode_version_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.nddup_unicode_version()
	IS 'Unicode version of the normalization tables';
