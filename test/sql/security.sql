-- Security: no function of the extension that takes a relation, a column or a
-- query discloses what its caller could not read with SELECT, or takes a lock
-- its caller could not take by inserting (docs/security.md).  Roles: none
-- (no grant), writer (INSERT only), cols (INSERT and SELECT on some columns),
-- alice and bob (tenants under row-level security), bypass (BYPASSRLS) and
-- owner (owns the tables).
SET client_min_messages = warning;
CREATE ROLE regress_nddup_sec_none;
CREATE ROLE regress_nddup_sec_writer;
CREATE ROLE regress_nddup_sec_cols;
CREATE ROLE regress_nddup_sec_alice;
CREATE ROLE regress_nddup_sec_bob;
CREATE ROLE regress_nddup_sec_bypass BYPASSRLS;
CREATE ROLE regress_nddup_sec_owner;
CREATE ROLE regress_nddup_sec_readers;	-- a group that may read
CREATE SCHEMA sec AUTHORIZATION regress_nddup_sec_owner;
GRANT USAGE ON SCHEMA sec TO PUBLIC;
RESET client_min_messages;

-- the table of the issue, owned by the superuser
CREATE TABLE sec.secrets (id int PRIMARY KEY, username text, password text);
INSERT INTO sec.secrets VALUES (1, 'admin', 'hunter2-SuperSecret'), (2, 'root', 's3cr3t');
ANALYZE sec.secrets;
GRANT INSERT ON sec.secrets TO regress_nddup_sec_writer;
GRANT INSERT, SELECT (id, username) ON sec.secrets TO regress_nddup_sec_cols;

-- a table of posts under row-level security: each tenant reads its own rows
SET ROLE regress_nddup_sec_owner;
CREATE TABLE sec.posts (
	id           bigint PRIMARY KEY,
	tenant       name NOT NULL,
	body         text NOT NULL,
	fp           simhash64,
	duplicate_of bigint
);
ALTER TABLE sec.posts ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_rows ON sec.posts USING (tenant = current_user);
GRANT SELECT, INSERT ON sec.posts
	TO regress_nddup_sec_alice, regress_nddup_sec_bob, regress_nddup_sec_bypass;
GRANT INSERT ON sec.posts TO regress_nddup_sec_writer;
GRANT INSERT, SELECT (id, fp, duplicate_of) ON sec.posts TO regress_nddup_sec_cols;
INSERT INTO sec.posts (id, tenant, body, fp) SELECT id, tenant, body, simhash(body) FROM (VALUES
	(1, 'regress_nddup_sec_alice', 'Alice writes about the migration of the billing service to the new cluster'),
	(2, 'regress_nddup_sec_bob', 'Bob reports the results of the quarterly security review of the login service'),
	(3, 'regress_nddup_sec_cols', 'The cols role keeps a note that only it and the owner of the table can read'))
	AS v(id, tenant, body);
RESET ROLE;
CREATE FUNCTION sec.fp(int) RETURNS simhash64 LANGUAGE sql IMMUTABLE
	AS $$ SELECT simhash(CASE $1
		WHEN 1 THEN 'Alice writes about the migration of the billing service to the new cluster'
		WHEN 2 THEN 'Bob reports the results of the quarterly security review of the login service'
		ELSE 'The cols role keeps a note that only it and the owner of the table can read' END) $$;

-- 1. nddup_original(): the probes of the issue, by a role without any grant
SET ROLE regress_nddup_sec_none;
SELECT * FROM sec.secrets;
SELECT nddup_original('sec.secrets', '{source=username,id=password,radius=32,action=error}', 'x'::text, NULL::text);
SELECT nddup_original('pg_authid', '{source=rolpassword,id=rolpassword,radius=32,action=error}', 'probe7'::text, NULL::text);
SELECT nddup_original('sec.posts', '{fingerprint=fp,radius=3,visibility=all}', sec.fp(1), NULL::bigint);
RESET ROLE;
-- no system catalog, for the superuser either
SELECT nddup_original('pg_authid', '{source=rolpassword,id=rolpassword,radius=32,action=error}', 'probe7'::text, NULL::text);
-- INSERT only, or SELECT on some columns only: every column the lookup reads needs SELECT
SET ROLE regress_nddup_sec_writer;
SELECT nddup_original('sec.secrets', '{source=username,id=password,radius=32,action=error}', 'x'::text, NULL::text);
SELECT nddup_original('sec.posts', '{fingerprint=fp,radius=3}', sec.fp(1), NULL::bigint);
RESET ROLE;
SET ROLE regress_nddup_sec_cols;
SELECT nddup_original('sec.secrets', '{source=username,id=password,radius=32,action=error}', 'x'::text, NULL::text);
SELECT nddup_original('sec.secrets', '{source=username,radius=32,action=error}', 'admin'::text, NULL::int) AS own_columns;
SELECT nddup_original('sec.posts', '{fingerprint=fp,id=body,radius=3,action=error}', sec.fp(1), NULL::text);
SELECT nddup_original('sec.posts', '{fingerprint=fp,source=body,radius=3}', sec.fp(1), NULL::bigint);
SELECT nddup_original('sec.posts', '{fingerprint=fp,radius=3,scope=tenant}', sec.fp(1), NULL::bigint, 'x');
SELECT nddup_original('sec.posts', '{fingerprint=fp,radius=3,order=tenant}', sec.fp(1), NULL::bigint);
-- the columns it may read, under its policy: its own row, not alice's
SELECT nddup_original('sec.posts', '{fingerprint=fp,duplicate_of=duplicate_of,radius=3}', sec.fp(1), NULL::bigint) AS alice_text,
	nddup_original('sec.posts', '{fingerprint=fp,duplicate_of=duplicate_of,radius=3}', sec.fp(3), NULL::bigint) AS own_text;
SELECT nddup_original('sec.posts', '{fingerprint=fp,radius=3,visibility=all}', sec.fp(1), NULL::bigint);
RESET ROLE;

-- 2. row-level security as in the trigger: each tenant is judged against its
-- own rows; visibility=all only for a role that sees every row anyway
SET ROLE regress_nddup_sec_bob;
SELECT nddup_original('sec.posts', '{fingerprint=fp,radius=3}', sec.fp(1), NULL::bigint) AS alice_text,
	nddup_original('sec.posts', '{source=body,radius=3}',
		'Alice writes about the migration of the billing service to the new cluster'::text, NULL::bigint) AS alice_source,
	nddup_original('sec.posts', '{fingerprint=fp,radius=3,visibility=caller}', sec.fp(1), NULL::bigint) AS caller,
	nddup_original('sec.posts', '{fingerprint=fp,radius=3}', sec.fp(2), NULL::bigint) AS own_text;
SELECT nddup_original('sec.posts', '{fingerprint=fp,radius=3,action=error}', sec.fp(1), NULL::bigint);
SELECT nddup_original('sec.posts', '{fingerprint=fp,radius=3,action=error}', sec.fp(2), NULL::bigint);
SELECT nddup_original('sec.posts', '{fingerprint=fp,radius=3,visibility=all}', sec.fp(1), NULL::bigint);
SELECT nddup_original('sec.posts', '{fingerprint=fp,radius=3,visibility=all,action=error}', sec.fp(1), NULL::bigint);
SET row_security = off;
SELECT nddup_original('sec.posts', '{fingerprint=fp,radius=3}', sec.fp(1), NULL::bigint);
RESET row_security;
RESET ROLE;
SET ROLE regress_nddup_sec_bypass;
SELECT nddup_original('sec.posts', '{fingerprint=fp,radius=3,visibility=all}', sec.fp(1), NULL::bigint) AS bypass_all;
RESET ROLE;
SET ROLE regress_nddup_sec_owner;
SELECT nddup_original('sec.posts', '{fingerprint=fp,radius=3,visibility=all}', sec.fp(1), NULL::bigint) AS owner_all;
ALTER TABLE sec.posts FORCE ROW LEVEL SECURITY;
SELECT nddup_original('sec.posts', '{fingerprint=fp,radius=3,visibility=all}', sec.fp(1), NULL::bigint);
SELECT nddup_original('sec.posts', '{fingerprint=fp,radius=3}', sec.fp(1), NULL::bigint) AS owner_forced;
ALTER TABLE sec.posts NO FORCE ROW LEVEL SECURITY;
RESET ROLE;

-- 3. the privileges are checked on every call, not kept with the arguments:
-- the writer may read the table while it is a member of a group that may
GRANT SELECT ON sec.secrets TO regress_nddup_sec_readers;
GRANT regress_nddup_sec_readers TO regress_nddup_sec_writer;
SET ROLE regress_nddup_sec_writer;
SELECT nddup_original('sec.secrets', '{source=username,radius=32,action=error}', 'admin'::text, NULL::int);
RESET ROLE;
REVOKE regress_nddup_sec_readers FROM regress_nddup_sec_writer;
SET ROLE regress_nddup_sec_writer;
SELECT nddup_original('sec.secrets', '{source=username,radius=32,action=error}', 'admin'::text, NULL::int);
RESET ROLE;

-- 4. the advisory locks: refused without INSERT, taken with it
BEGIN;
SET LOCAL ROLE regress_nddup_sec_none;
SELECT nddup_original('sec.posts', '{fingerprint=fp,radius=3}', sec.fp(1), NULL::bigint);
ROLLBACK;
BEGIN;
SET LOCAL ROLE regress_nddup_sec_alice;
SELECT nddup_original('sec.posts', '{fingerprint=fp,radius=3}', sec.fp(1), NULL::bigint) AS original;
SELECT count(*) > 0 AS holds_locks FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid();
ROLLBACK;

-- 5. filter=<table>.<column> needs SELECT on the filter's column
SET ROLE regress_nddup_sec_owner;
CREATE TABLE sec.mfilter (f shingle_filter);
INSERT INTO sec.mfilter SELECT shingle_filter_agg(d, 1, 0)
	FROM unnest(ARRAY['the quick brown fox jumps', 'the quick brown dog sleeps']) AS d;
CREATE TABLE sec.mposts (id bigint PRIMARY KEY, body text, sk minhash_sketch, duplicate_of bigint);
INSERT INTO sec.mposts SELECT 1, 'the quick brown fox jumps over the lazy dog', minhash_filtered(f,
	'the quick brown fox jumps over the lazy dog') FROM sec.mfilter;
GRANT SELECT, INSERT ON sec.mposts TO regress_nddup_sec_alice;
RESET ROLE;
SET ROLE regress_nddup_sec_alice;
SELECT nddup_original('sec.mposts', '{fingerprint=sk,source=body,method=minhash,filter=sec.mfilter.f,threshold=0.5}',
	'the quick brown fox jumps over the lazy dog'::text, NULL::bigint);
RESET ROLE;
GRANT SELECT (f) ON sec.mfilter TO regress_nddup_sec_readers;
GRANT regress_nddup_sec_readers TO regress_nddup_sec_alice;
SET ROLE regress_nddup_sec_alice;
SELECT nddup_original('sec.mposts', '{fingerprint=sk,source=body,method=minhash,filter=sec.mfilter.f,threshold=0.5}',
	'the quick brown fox jumps over the lazy dog'::text, NULL::bigint) AS filtered;
RESET ROLE;
REVOKE regress_nddup_sec_readers FROM regress_nddup_sec_alice;
SET ROLE regress_nddup_sec_alice;
SELECT nddup_original('sec.mposts', '{fingerprint=sk,source=body,method=minhash,filter=sec.mfilter.f,threshold=0.5}',
	'the quick brown fox jumps over the lazy dog'::text, NULL::bigint);
RESET ROLE;

-- 6. nddup_check_trigger() reads the statistics of a column only as pg_stats
-- shows them: the average length of the passwords is not for every role
SELECT settings FROM nddup_check_trigger('sec.secrets', '{source=password,radius=12,action=error}');
SET ROLE regress_nddup_sec_none;
SELECT settings FROM nddup_check_trigger('sec.secrets', '{source=password,radius=12,action=error}');
RESET ROLE;

SET client_min_messages = warning;
DROP SCHEMA sec CASCADE;
DROP ROLE regress_nddup_sec_none, regress_nddup_sec_writer, regress_nddup_sec_cols,
	regress_nddup_sec_alice, regress_nddup_sec_bob, regress_nddup_sec_bypass,
	regress_nddup_sec_owner, regress_nddup_sec_readers;
RESET client_min_messages;
