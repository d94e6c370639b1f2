-- nddup install script, part 8: insert-time duplicate checks (src/trigger/trigger.c).
-- See docs/trigger.md.

CREATE FUNCTION @extschema@.nddup_dedup_trigger() RETURNS trigger
	AS 'MODULE_PATHNAME' LANGUAGE C;
COMMENT ON FUNCTION @extschema@.nddup_dedup_trigger()
	IS 'BEFORE INSERT OR UPDATE row trigger: marks, skips or rejects near-duplicates of the existing originals (arguments key=value, see docs/trigger.md)';

CREATE FUNCTION @extschema@.nddup_check_trigger(rel regclass, args text[] DEFAULT NULL)
	RETURNS TABLE (trigger text, settings text)
	AS 'MODULE_PATHNAME' LANGUAGE C STABLE;
COMMENT ON FUNCTION @extschema@.nddup_check_trigger(regclass, text[])
	IS 'validate nddup_dedup_trigger arguments against a table (or, without args, every such trigger of the table); returns the effective settings';
