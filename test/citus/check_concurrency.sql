-- After the pgbench runs of test/citus/run.sh: every group of near-duplicates
-- (a base; a base within a site) has exactly one original, every other row
-- points at it, and no two originals are near-duplicates.
CREATE TEMP TABLE cp AS SELECT * FROM cposts;
CREATE TEMP TABLE csp AS SELECT * FROM csposts;
CREATE TEMP TABLE crp AS SELECT * FROM crposts;
CREATE TEMP TABLE crk AS SELECT * FROM crposts_keys;
SELECT 'cposts: rows', count(*) FROM cp;
SELECT 'cposts: groups', count(DISTINCT base) FROM cp;
SELECT 'cposts: originals', count(*) FROM cp WHERE duplicate_of IS NULL;
SELECT 'cposts: groups without exactly one original (double originals)', count(*)
FROM (SELECT base FROM cp GROUP BY base HAVING count(*) FILTER (WHERE duplicate_of IS NULL) <> 1) s;
SELECT 'cposts: duplicates not pointing at the original of their group', count(*)
FROM cp d LEFT JOIN cp o ON o.id = d.duplicate_of
WHERE d.duplicate_of IS NOT NULL AND (o.id IS NULL OR o.base <> d.base OR o.duplicate_of IS NOT NULL);
SELECT 'cposts: originals within the radius of each other (missed near-duplicates)', count(*)
FROM hamming_pairs('SELECT id, fp FROM cposts WHERE duplicate_of IS NULL', 3);
SELECT 'csposts: rows', count(*) FROM csp;
SELECT 'csposts: groups', count(DISTINCT (site, base)) FROM csp;
SELECT 'csposts: originals', count(*) FROM csp WHERE duplicate_of IS NULL;
SELECT 'csposts: groups without exactly one original (double originals)', count(*)
FROM (SELECT site, base FROM csp GROUP BY site, base HAVING count(*) FILTER (WHERE duplicate_of IS NULL) <> 1) s;
SELECT 'csposts: duplicates not pointing at the original of their group', count(*)
FROM csp d LEFT JOIN csp o ON o.id = d.duplicate_of
WHERE d.duplicate_of IS NOT NULL AND (o.id IS NULL OR o.base <> d.base OR o.site <> d.site OR o.duplicate_of IS NOT NULL);
SELECT 'csposts: originals of one site within the radius of each other', count(*)
FROM csp a JOIN csp b ON a.site = b.site AND a.id < b.id AND a.fp <-> b.fp <= 3
WHERE a.duplicate_of IS NULL AND b.duplicate_of IS NULL;
SELECT 'crposts: rows', count(*) FROM crp;
SELECT 'crposts: groups', count(DISTINCT base) FROM crp;
SELECT 'crposts: originals', count(*) FROM crp WHERE duplicate_of IS NULL;
SELECT 'crposts: groups without exactly one original (double originals)', count(*)
FROM (SELECT base FROM crp GROUP BY base HAVING count(*) FILTER (WHERE duplicate_of IS NULL) <> 1) s;
SELECT 'crposts: duplicates not pointing at the original of their group', count(*)
FROM crp d LEFT JOIN crp o ON o.id = d.duplicate_of
WHERE d.duplicate_of IS NOT NULL AND (o.id IS NULL OR o.base <> d.base OR o.duplicate_of IS NOT NULL);
SELECT 'crposts: originals within the radius of each other (missed near-duplicates)', count(*)
FROM hamming_pairs('SELECT id, fp FROM crposts WHERE duplicate_of IS NULL', 3);
SELECT 'crposts_keys: key rows other than the block keys of the originals', count(*) FROM (
	(SELECT key, id, sig FROM crk
	 EXCEPT ALL SELECT k, id, fp FROM crp, unnest(hamming_block_keys(fp, 3)) k WHERE duplicate_of IS NULL)
	UNION ALL
	(SELECT k, id, fp FROM crp, unnest(hamming_block_keys(fp, 3)) k WHERE duplicate_of IS NULL
	 EXCEPT ALL SELECT key, id, sig FROM crk)) s;
