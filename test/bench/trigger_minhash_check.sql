-- Correctness of a run of test/bench/trigger_bench.sh --method minhash or
-- --method shingleset (psql -v n=... -v r=<threshold> -v col=<mh or ss>, the
-- sketch or set column): every row with id > n was stored through the
-- trigger.
--   duplicate_originals: originals of the run with an older original whose
--                        estimate (or resemblance) with them reaches the threshold (this
--                        includes copies of one key that both stayed originals)
--   bad_pointers:        duplicate_of pointing at a missing row, a duplicate (a
--                        chain) or a row below the threshold
--   not_earliest:        rows whose earliest original among the stored
--                        documents (older than every row of the run) is not
--                        their duplicate_of
SET random_page_cost = 1.1;
-- no plain index scans: a walk of the primary key filtering every row
-- (for min(id) or id < x) would read the whole table per row checked
SET enable_indexscan = off;
SELECT
	(SELECT count(*) FROM posts WHERE id > :n) AS stored,
	(SELECT count(*) FROM posts WHERE id > :n AND duplicate_of IS NOT NULL) AS marked,
	(SELECT count(*) FROM posts a WHERE a.id > :n AND a.duplicate_of IS NULL
		AND EXISTS (SELECT 1 FROM posts b WHERE b.:col <@ similar_to(a.:col, :r)
					AND b.duplicate_of IS NULL AND b.id < a.id)) AS duplicate_originals,
	(SELECT count(*) FROM posts d LEFT JOIN posts o ON o.id = d.duplicate_of
	 WHERE d.id > :n AND d.duplicate_of IS NOT NULL
		AND (o.id IS NULL OR o.duplicate_of IS NOT NULL OR NOT similar(d.:col, o.:col, :r))) AS bad_pointers,
	(SELECT count(*) FROM
		(SELECT d.duplicate_of, (SELECT min(b.id) FROM posts b WHERE b.:col <@ similar_to(d.:col, :r)
								 AND b.id <= :n AND b.duplicate_of IS NULL) AS earliest
		 FROM posts d WHERE d.id > :n) x
	 WHERE earliest IS NOT NULL AND earliest IS DISTINCT FROM duplicate_of) AS not_earliest;
