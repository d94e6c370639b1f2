--
-- CREATE INDEX ... USING hamming reports its subphases and rows to
-- pg_stat_progress_create_index (the access method's ambuildphasename)
--
SELECT n, pg_indexam_progress_phasename(a.oid, n) AS phase
FROM pg_am a, generate_series(0, 6) n
WHERE a.amname = 'hamming'
ORDER BY n;

-- the building backend's own progress row, read by an index expression
-- during the heap scan (the row is read once per transaction: the first
-- call's view)
CREATE TABLE progress_docs (id int, body text);
INSERT INTO progress_docs SELECT g, 'document number ' || g FROM generate_series(1, 2) g;
CREATE FUNCTION progress_probe(t text) RETURNS simhash64
LANGUAGE plpgsql IMMUTABLE SET search_path FROM CURRENT AS $$
DECLARE
	r record;
BEGIN
	SELECT command, phase INTO r
	FROM pg_stat_progress_create_index WHERE pid = pg_backend_pid();
	RAISE NOTICE 'command: %, phase: %', r.command, r.phase;
	RETURN simhash(t);
END $$;
CREATE INDEX progress_docs_idx ON progress_docs USING hamming (progress_probe(body));
DROP TABLE progress_docs;
DROP FUNCTION progress_probe(text);
