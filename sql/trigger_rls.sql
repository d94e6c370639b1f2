-- The insert-time trigger on a table with row-level security: by default the
-- lookup sees only the rows the inserting role may read, so neither mark, skip
-- nor error tells a role about rows of another (docs/security.md).
CREATE ROLE regress_nddup_alice;
CREATE ROLE regress_nddup_bob;
CREATE ROLE regress_nddup_carol;	-- may insert, may not read
CREATE TABLE rls_posts (
	id           bigserial PRIMARY KEY,
	tenant       name NOT NULL DEFAULT current_user,
	body         text NOT NULL,
	fp           simhash64 GENERATED ALWAYS AS (simhash(body)) STORED,
	duplicate_of bigint
);
CREATE INDEX ON rls_posts USING gin (fp simhash64_gin_ops) WITH (fastupdate = off)
	WHERE duplicate_of IS NULL;
ALTER TABLE rls_posts ENABLE ROW LEVEL SECURITY;
CREATE POLICY own_rows ON rls_posts USING (tenant = current_user);
CREATE POLICY carol_inserts ON rls_posts FOR INSERT TO regress_nddup_carol WITH CHECK (true);
GRANT SELECT, INSERT, UPDATE ON rls_posts TO regress_nddup_alice, regress_nddup_bob;
GRANT INSERT ON rls_posts TO regress_nddup_carol;
GRANT USAGE ON SEQUENCE rls_posts_id_seq
	TO regress_nddup_alice, regress_nddup_bob, regress_nddup_carol;

CREATE TRIGGER dedup BEFORE INSERT OR UPDATE OF body ON rls_posts FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=fp', 'source=body', 'radius=3');
-- row-level security is on, so the lookup takes the inserting role's view
SELECT settings FROM nddup_check_trigger('rls_posts');

-- alice stores a post and a copy of it: the copy is marked
SET ROLE regress_nddup_alice;
INSERT INTO rls_posts (body) VALUES ('Alice writes about the migration of the billing service to the new cluster')
	RETURNING id, duplicate_of;
INSERT INTO rls_posts (body) VALUES ('Alice writes about the migration of the billing service to the new cluster!')
	RETURNING id, duplicate_of;
RESET ROLE;

-- bob stores the same text: mark does not point him at alice's row
SET ROLE regress_nddup_bob;
INSERT INTO rls_posts (body) VALUES ('Alice writes about the migration of the billing service to the new cluster')
	RETURNING id, duplicate_of;
-- and his own copy is marked against his own row
INSERT INTO rls_posts (body) VALUES ('Alice writes about the migration of the billing service to the new cluster.')
	RETURNING id, duplicate_of;
RESET ROLE;

-- skip: bob's copy of a text only alice has is stored, his copy of his own is dropped
CREATE OR REPLACE TRIGGER dedup BEFORE INSERT OR UPDATE OF body ON rls_posts FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=fp', 'source=body', 'radius=3',
										 'action=skip');
SET ROLE regress_nddup_alice;
INSERT INTO rls_posts (body) VALUES ('Quarterly payroll export: the new format and the deadline for every team')
	RETURNING id;
RESET ROLE;
SET ROLE regress_nddup_bob;
INSERT INTO rls_posts (body) VALUES ('Quarterly payroll export: the new format and the deadline for every team')
	RETURNING id;
INSERT INTO rls_posts (body) VALUES ('Quarterly payroll export: the new format and the deadline for every team!')
	RETURNING id;		-- near his own row: skipped
RESET ROLE;

-- error: bob is not refused for a text only alice has; alice is, and sees her own key
CREATE OR REPLACE TRIGGER dedup BEFORE INSERT OR UPDATE OF body ON rls_posts FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=fp', 'source=body', 'radius=3',
										 'action=error');
SET ROLE regress_nddup_alice;
INSERT INTO rls_posts (body) VALUES ('Office move on Friday: desks, badges and the new parking rules explained')
	RETURNING id;
RESET ROLE;
SET ROLE regress_nddup_bob;
INSERT INTO rls_posts (body) VALUES ('Office move on Friday: desks, badges and the new parking rules explained')
	RETURNING id;
RESET ROLE;
SET ROLE regress_nddup_alice;
INSERT INTO rls_posts (body) VALUES ('Office move on Friday: desks, badges and the new parking rules explained!');
RESET ROLE;

-- a role that may insert but not read: the check cannot see anything, so it refuses
CREATE OR REPLACE TRIGGER dedup BEFORE INSERT OR UPDATE OF body ON rls_posts FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=fp', 'source=body', 'radius=3');
SET ROLE regress_nddup_carol;
INSERT INTO rls_posts (body) VALUES ('Carol writes about the migration of the billing service to the new cluster');
RESET ROLE;

-- the owner (not subject to the policies) judges against every row
INSERT INTO rls_posts (tenant, body)
	VALUES ('regress_nddup_alice', 'Alice writes about the migration of the billing service to the new cluster;')
	RETURNING id, duplicate_of;

-- updates: alice turns an original into a copy of another of her originals;
-- her rows that pointed at it are re-pointed, rows she cannot read are not touched
SET ROLE regress_nddup_alice;
INSERT INTO rls_posts (body) VALUES ('Release notes of the storage layer: compaction is now incremental and cheaper')
	RETURNING id, duplicate_of;
RESET ROLE;
-- bob's post that points at alice's first post, made by the owner on his behalf
INSERT INTO rls_posts (tenant, body)
	VALUES ('regress_nddup_bob', 'placeholder written by the owner, never judged');
UPDATE rls_posts SET duplicate_of = 1 WHERE body = 'placeholder written by the owner, never judged';
SET ROLE regress_nddup_alice;
UPDATE rls_posts SET body = 'Release notes of the storage layer: compaction is now incremental and cheaper!'
	WHERE id = 1 RETURNING id, duplicate_of;
SELECT id, duplicate_of FROM rls_posts ORDER BY id;		-- alice's view
RESET ROLE;
SELECT id, tenant, duplicate_of FROM rls_posts ORDER BY id;	-- every row

-- visibility=all: the owner's explicit choice to judge against every row
CREATE OR REPLACE TRIGGER dedup BEFORE INSERT OR UPDATE OF body ON rls_posts FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=fp', 'source=body', 'radius=3',
										 'visibility=all');
SELECT settings FROM nddup_check_trigger('rls_posts');
SET ROLE regress_nddup_bob;
INSERT INTO rls_posts (body) VALUES ('Release notes of the storage layer: compaction is now incremental and cheaper')
	RETURNING id, duplicate_of IS NOT NULL AS marked;
RESET ROLE;
-- method=minhash follows the same rule
CREATE TABLE rls_notes (id bigserial PRIMARY KEY, tenant name NOT NULL DEFAULT current_user,
						body text NOT NULL, duplicate_of bigint);
ALTER TABLE rls_notes ENABLE ROW LEVEL SECURITY;
CREATE POLICY own_rows ON rls_notes USING (tenant = current_user);
GRANT SELECT, INSERT ON rls_notes TO regress_nddup_alice, regress_nddup_bob;
GRANT USAGE ON SEQUENCE rls_notes_id_seq TO regress_nddup_alice, regress_nddup_bob;
CREATE INDEX ON rls_notes
	USING gin ((minhash(body, 128, 'oph', 0, 3, 'word')) minhash_lsh_ops (threshold = 0.3))
	WITH (fastupdate = off) WHERE duplicate_of IS NULL;
CREATE TRIGGER dedup BEFORE INSERT OR UPDATE OF body ON rls_notes FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('source=body', 'method=minhash', 'threshold=0.3');
SET ROLE regress_nddup_alice;
INSERT INTO rls_notes (body) VALUES
	('the incident review of the storage outage: what failed, what we changed, and what we will watch'),
	('the incident review of the storage outage: what failed, what we changed, and what we will watch next')
	RETURNING id, duplicate_of;
RESET ROLE;
SET ROLE regress_nddup_bob;
INSERT INTO rls_notes (body) VALUES
	('the incident review of the storage outage: what failed, what we changed, and what we will watch')
	RETURNING id, duplicate_of;
RESET ROLE;

-- scope=: rows are judged only against rows with the same value (per site,
-- per tenant), also without row-level security
CREATE TABLE site_posts (
	id           bigserial PRIMARY KEY,
	site         int,
	body         text NOT NULL,
	fp           simhash64 GENERATED ALWAYS AS (simhash(body)) STORED,
	duplicate_of bigint
);
CREATE INDEX ON site_posts USING gin (fp simhash64_gin_ops) WITH (fastupdate = off)
	WHERE duplicate_of IS NULL;
CREATE TRIGGER dedup BEFORE INSERT OR UPDATE OF body, site ON site_posts FOR EACH ROW
	EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=fp', 'source=body', 'radius=3',
										 'scope=site');
SELECT settings FROM nddup_check_trigger('site_posts');
INSERT INTO site_posts (site, body) VALUES
	(1, 'Weekly digest: three new plugins and a faster search page'),
	(2, 'Weekly digest: three new plugins and a faster search page'),
	(1, 'Weekly digest: three new plugins and a faster search page!'),
	(NULL, 'Weekly digest: three new plugins and a faster search page'),
	(NULL, 'Weekly digest: three new plugins and a faster search page');
SELECT id, site, duplicate_of FROM site_posts ORDER BY id;
-- moving a post to another site judges it again
UPDATE site_posts SET site = 2 WHERE id = 3 RETURNING id, site, duplicate_of;
UPDATE site_posts SET site = 3 WHERE id = 3 RETURNING id, site, duplicate_of;
DROP TABLE rls_posts, rls_notes, site_posts;
DROP ROLE regress_nddup_alice, regress_nddup_bob, regress_nddup_carol;
