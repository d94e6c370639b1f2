-- The README's insert-time recipe on one labelled corpus (psql -v ds=NAME,
-- the corpus in table stage: doc_id, cluster_id, kind, edits, body), run by
-- test/bench/quality/trigger_recall.sh.  Appends one row to tr_results:
--   the rows inserted in doc_id order through nddup_dedup_trigger('source=body',
--   'method=shingleset', 'threshold=0.3') on the README's index, and the time;
--   exact Jaccard >= 0.3 of every pair (shingleset_pairs), scored pairwise;
--   the pairs the trigger links (two rows with one original: an original
--   and its duplicates), scored the same way;
--   the same decision computed from the exact pairs outside the trigger (each
--   row, in doc_id order, a duplicate of the earliest original it reaches
--   0.3 with), and the rows where the trigger's duplicate_of differs from it;
--   marked rows below 0.3 with the original they point at.
-- Scoring as in docs/reports/quality.md: pairs of original/near/templated
-- rows, positive when both are original or near rows of one cluster.
\set ON_ERROR_STOP 1
DROP TABLE IF EXISTS posts, ep, greedy, scored, positives;
CREATE TABLE posts (id bigint PRIMARY KEY, body text NOT NULL, duplicate_of bigint);
CREATE INDEX ON posts USING gin ((shingle_set(body)) shingleset_ops)
	WITH (fastupdate = off) WHERE duplicate_of IS NULL;
CREATE TRIGGER dedup BEFORE INSERT OR UPDATE OF body ON posts FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('source=body', 'method=shingleset', 'threshold=0.3');
CHECKPOINT;
SELECT clock_timestamp() AS t0 \gset
INSERT INTO posts (id, body) SELECT doc_id, body FROM stage ORDER BY doc_id;
SELECT 1000 * extract(epoch FROM clock_timestamp() - :'t0'::timestamptz) AS trigger_ms \gset

CREATE TABLE ep AS SELECT least(id1, id2) AS id1, greatest(id1, id2) AS id2
	FROM shingleset_pairs('SELECT doc_id, shingle_set(body) FROM stage', 0.3);
CREATE INDEX ON ep (id2, id1);
CREATE TABLE greedy (id bigint PRIMARY KEY, dup bigint);
DO $$
DECLARE
	r record;
	o bigint;
BEGIN
	FOR r IN SELECT doc_id FROM stage ORDER BY doc_id LOOP
		SELECT min(e.id1) INTO o FROM ep e JOIN greedy g ON g.id = e.id1 AND g.dup IS NULL
		WHERE e.id2 = r.doc_id;
		INSERT INTO greedy VALUES (r.doc_id, o);
	END LOOP;
END $$;

CREATE TABLE scored AS SELECT doc_id FROM stage WHERE kind IN ('original', 'near', 'templated');
ALTER TABLE scored ADD PRIMARY KEY (doc_id);
CREATE TABLE positives AS
	SELECT a.doc_id AS id1, b.doc_id AS id2 FROM stage a JOIN stage b
		ON a.cluster_id = b.cluster_id AND a.doc_id < b.doc_id
	WHERE a.kind IN ('original', 'near') AND b.kind IN ('original', 'near');

INSERT INTO tr_results
SELECT :'ds', (SELECT count(*) FROM stage), (SELECT count(*) FROM scored),
	(SELECT count(*) FROM positives), :trigger_ms,
	(SELECT count(*) FROM posts WHERE duplicate_of IS NOT NULL),
	-- exact pairs among the scored rows, and the positives among them
	(SELECT count(*) FROM ep JOIN scored a ON a.doc_id = ep.id1 JOIN scored b ON b.doc_id = ep.id2),
	(SELECT count(*) FROM positives p JOIN ep USING (id1, id2)),
	-- the trigger's linked pairs among the scored rows, and the positives among them
	(SELECT coalesce(sum(k * (k - 1) / 2), 0) FROM
		(SELECT count(*) AS k FROM posts JOIN scored ON scored.doc_id = posts.id
		 GROUP BY coalesce(duplicate_of, id)) g),
	(SELECT count(*) FROM positives p JOIN posts a ON a.id = p.id1 JOIN posts b ON b.id = p.id2
	 WHERE coalesce(a.duplicate_of, a.id) = coalesce(b.duplicate_of, b.id)),
	(SELECT count(*) FROM positives p JOIN greedy a ON a.id = p.id1 JOIN greedy b ON b.id = p.id2
	 WHERE coalesce(a.dup, a.id) = coalesce(b.dup, b.id)),
	(SELECT count(*) FROM posts JOIN greedy USING (id) WHERE duplicate_of IS DISTINCT FROM dup),
	(SELECT count(*) FROM posts d JOIN posts o ON o.id = d.duplicate_of
	 WHERE jaccard(shingle_set(d.body), shingle_set(o.body)) < 0.3);
