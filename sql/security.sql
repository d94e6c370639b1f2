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
	duplicate_of bigint,
	dup_text     text		-- for id=body, as in the issue
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
-- pg_authid through the batch functions: their queries run as the caller
\set VERBOSITY terse
SELECT * FROM hamming_pairs('SELECT oid::bigint, simhash(rolpassword) FROM pg_authid', 64);
SELECT * FROM minhash_pairs('SELECT oid::bigint, minhash(rolpassword) FROM pg_authid', 0.1);
SELECT * FROM shingleset_clusters('SELECT oid::bigint, shingle_set(rolpassword) FROM pg_authid', 0.1);
SELECT * FROM hamming_assign('SELECT oid::bigint, simhash(rolpassword) FROM pg_authid',
	'SELECT oid::bigint, simhash(rolname), oid::bigint FROM pg_authid', 64);
\set VERBOSITY default
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
SELECT nddup_original('sec.posts', '{fingerprint=fp,id=body,duplicate_of=dup_text,radius=3}', sec.fp(1), NULL::text);
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
\set VERBOSITY terse
SELECT nddup_original('sec.posts', '{fingerprint=fp,radius=3}', sec.fp(1), NULL::bigint);
\set VERBOSITY default
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
\set VERBOSITY terse
SELECT nddup_original('sec.mposts', '{fingerprint=sk,source=body,method=minhash,filter=sec.mfilter.f,threshold=0.5}',
	'the quick brown fox jumps over the lazy dog'::text, NULL::bigint);
\set VERBOSITY default
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

-- 7. the matrix: every function that takes a relation, a column or a query,
-- as each role.  The table: alice's rows 1-3, bob's 4-5, the cols role's 6-7;
-- 2 and 4 are near-copies of 1, 5 of 3, 7 of 6.
SET ROLE regress_nddup_sec_owner;
CREATE TABLE sec.docs (
	id           bigint PRIMARY KEY,
	tenant       name NOT NULL,
	body         text NOT NULL,
	fp           simhash64,
	sk           minhash_sketch,
	sh           shingleset,
	ss           bigint[],
	duplicate_of bigint
);
INSERT INTO sec.docs (id, tenant, body, duplicate_of)
SELECT id, 'regress_nddup_sec_' || tenant, body, dup FROM (VALUES
	(1, 'alice', 'the quarterly report on the migration of the billing service to the new cluster in the north region', NULL),
	(2, 'alice', 'the quarterly report on the migration of the billing service to the new cluster in the north region.', 1),
	(3, 'alice', 'a recipe for bread with rye flour, sourdough starter, caraway seeds and a long cold proof overnight', NULL),
	(4, 'bob', 'the quarterly report on the migration of the billing service to the new cluster in the north region!', 1),
	(5, 'bob', 'a recipe for bread with rye flour, sourdough starter, caraway seeds and a long cold proof overnight!', 3),
	(6, 'cols', 'notes from the meeting of the garden club about the tomato seedlings and the watering schedule', NULL),
	(7, 'cols', 'notes from the meeting of the garden club about the tomato seedlings and the watering schedule.', 6))
	AS v(id, tenant, body, dup);
UPDATE sec.docs SET fp = simhash(body), sk = minhash(body), sh = shingle_set(body),
	ss = super_shingles(minhash(body, 84, 'kperm'));
CREATE INDEX docs_fp_idx ON sec.docs USING hamming (fp);
ANALYZE sec.docs;
ALTER TABLE sec.docs ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_rows ON sec.docs USING (tenant = current_user);
GRANT SELECT, INSERT ON sec.docs
	TO regress_nddup_sec_alice, regress_nddup_sec_bob, regress_nddup_sec_bypass;
GRANT INSERT, SELECT (id, fp, duplicate_of) ON sec.docs TO regress_nddup_sec_cols;
-- judged pairs under the same policy: a tenant judges its own docs (one row
-- per doc, so no role counts more judged pairs than docs it may read)
CREATE TABLE sec.labels (tenant name NOT NULL, a_id bigint, b_id bigint, similarity float8, stratum integer,
	stratum_pairs bigint, is_duplicate boolean);
INSERT INTO sec.labels SELECT d.tenant, d.id, d.id + 1, s, (s * 10)::integer - 1, 10, s > 0.5
FROM sec.docs d, LATERAL (SELECT CASE WHEN d.duplicate_of IS NULL THEN 0.2 ELSE 0.9 END::float8 AS s) x;
ALTER TABLE sec.labels ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_rows ON sec.labels USING (tenant = current_user);
GRANT SELECT ON sec.labels TO regress_nddup_sec_alice, regress_nddup_sec_bob, regress_nddup_sec_bypass;
GRANT SELECT (a_id, b_id) ON sec.labels TO regress_nddup_sec_cols;
-- the decision kept with sec.docs, for nddup_decision()
SELECT column_name, method, threshold FROM nddup_decide('sec.docs', 'sk', 0.5, source_column => 'body');
-- the key table of nddup_original_routed(), every role may use it: what
-- the function refuses (row-level security of sec.docs) is its own check
CREATE TABLE sec.docs_keys AS
SELECT k AS key, id, fp AS sig FROM sec.docs, unnest(hamming_block_keys(fp, 3)) k WHERE duplicate_of IS NULL;
GRANT SELECT, INSERT ON sec.docs_keys TO PUBLIC;
RESET ROLE;
CREATE FUNCTION sec.text1() RETURNS text LANGUAGE sql IMMUTABLE
	AS $$ SELECT 'the quarterly report on the migration of the billing service to the new cluster in the north region' $$;
CREATE FUNCTION sec.text6() RETURNS text LANGUAGE sql IMMUTABLE
	AS $$ SELECT 'notes from the meeting of the garden club about the tomato seedlings and the watering schedule' $$;
-- one call of each function (and the verify_column forms of the relation
-- forms), summarised as the ids it returns, n=<rows counted>, ok (no rows
-- read), - (nothing found) or the SQLSTATE of its error
CREATE TABLE sec.calls (fn regprocedure, label text, q text);
INSERT INTO sec.calls VALUES
	('hamming_pairs(text,integer,double precision)', '',
	 $$SELECT id1, id2 FROM hamming_pairs('SELECT id, fp FROM sec.docs', 3)$$),
	('hamming_pairs(regclass,name,name,integer,name,double precision)', '',
	 $$SELECT id1, id2 FROM hamming_pairs('sec.docs'::regclass, 'id', 'fp', 3)$$),
	('hamming_pairs(regclass,name,name,integer,name,double precision)', 'verify_column',
	 $$SELECT id1, id2 FROM hamming_pairs('sec.docs'::regclass, 'id', 'fp', 3, 'sh', 0.5)$$),
	('hamming_join(text,text,integer,double precision)', '',
	 $$SELECT id_a, id_b FROM hamming_join('SELECT id, fp FROM sec.docs', 'SELECT id, fp FROM sec.docs', 3)$$),
	('hamming_clusters(text,integer,boolean,double precision,text)', '',
	 $$SELECT id, cluster_id FROM hamming_clusters('SELECT id, fp FROM sec.docs', 3, false)$$),
	('hamming_clusters(regclass,name,name,integer,name,boolean,name,double precision,text)', '',
	 $$SELECT id, cluster_id FROM hamming_clusters('sec.docs'::regclass, 'id', 'fp', 3, singletons => false)$$),
	('hamming_clusters(regclass,name,name,integer,name,boolean,name,double precision,text)', 'verify_column',
	 $$SELECT id, cluster_id FROM hamming_clusters('sec.docs'::regclass, 'id', 'fp', 3, singletons => false, verify_column => 'sh', verify => 0.5)$$),
	('hamming_clusters(text,name,name,double precision,name,boolean,name,double precision,text)', '',
	 $$SELECT id, cluster_id FROM hamming_clusters('sec.docs'::text, 'id', 'fp', 3::float8, singletons => false)$$),
	('clusters_from_pairs(text,boolean,text)', '',
	 $$SELECT id, cluster_id FROM clusters_from_pairs('SELECT id, duplicate_of FROM sec.docs WHERE duplicate_of IS NOT NULL', false)$$),
	('hamming_assign(text,text,integer)', '',
	 $$SELECT id, cluster_id FROM hamming_assign('SELECT id, fp FROM sec.docs WHERE duplicate_of IS NOT NULL',
		'SELECT id, fp, id FROM sec.docs WHERE duplicate_of IS NULL', 3)$$),
	('hamming_nearest(regclass,name,name,simhash64,integer)', '',
	 $$SELECT id FROM hamming_nearest('sec.docs', 'id', 'fp', simhash(sec.text1()), 3)$$),
	('hamming_index_stats(regclass)', '',
	 $$SELECT 'counted' AS entries FROM hamming_index_stats('sec.docs_fp_idx') WHERE sorted_rows + appendix_rows > 0$$),
	('minhash_pairs(text,double precision,bigint,bigint,double precision)', '',
	 $$SELECT id1, id2 FROM minhash_pairs('SELECT id, sk FROM sec.docs', 0.5)$$),
	('minhash_pairs(regclass,name,name,double precision,bigint,bigint,name,double precision)', '',
	 $$SELECT id1, id2 FROM minhash_pairs('sec.docs'::regclass, 'id', 'sk', 0.5)$$),
	('minhash_pairs(regclass,name,name,double precision,bigint,bigint,name,double precision)', 'verify_column',
	 $$SELECT id1, id2 FROM minhash_pairs('sec.docs'::regclass, 'id', 'sk', 0.5, verify_column => 'body', verify => 0.5)$$),
	('minhash_pairs(text,name,name,double precision,bigint,bigint,name,double precision)', '',
	 $$SELECT id1, id2 FROM minhash_pairs('sec.docs'::text, 'id', 'sk', 0.5)$$),
	('minhash_join(text,text,double precision,bigint,bigint,double precision)', '',
	 $$SELECT id_a, id_b FROM minhash_join('SELECT id, sk FROM sec.docs', 'SELECT id, sk FROM sec.docs', 0.5)$$),
	('minhash_clusters(text,double precision,bigint,bigint,boolean,double precision,text)', '',
	 $$SELECT id, cluster_id FROM minhash_clusters('SELECT id, sk FROM sec.docs', 0.5, singletons => false)$$),
	('minhash_clusters(regclass,name,name,double precision,name,bigint,bigint,boolean,name,double precision,text)', '',
	 $$SELECT id, cluster_id FROM minhash_clusters('sec.docs'::regclass, 'id', 'sk', 0.5, singletons => false)$$),
	('minhash_clusters(text,name,name,double precision,name,bigint,bigint,boolean,name,double precision,text)', '',
	 $$SELECT id, cluster_id FROM minhash_clusters('sec.docs'::text, 'id', 'sk', 0.5, singletons => false)$$),
	('super_shingle_pairs(text,integer)', '',
	 $$SELECT id1, id2 FROM super_shingle_pairs('SELECT id, ss FROM sec.docs')$$),
	('shingleset_pairs(text,double precision,text)', '',
	 $$SELECT id1, id2 FROM shingleset_pairs('SELECT id, sh FROM sec.docs', 0.5)$$),
	('shingleset_pairs(regclass,name,name,double precision,text)', '',
	 $$SELECT id1, id2 FROM shingleset_pairs('sec.docs'::regclass, 'id', 'sh', 0.5)$$),
	('shingleset_join(text,text,double precision,text)', '',
	 $$SELECT id_a, id_b FROM shingleset_join('SELECT id, sh FROM sec.docs', 'SELECT id, sh FROM sec.docs', 0.5)$$),
	('shingleset_clusters(text,double precision,boolean,text,text)', '',
	 $$SELECT id, cluster_id FROM shingleset_clusters('SELECT id, sh FROM sec.docs', 0.5, false)$$),
	('shingleset_clusters(regclass,name,name,double precision,name,boolean,text,text)', '',
	 $$SELECT id, cluster_id FROM shingleset_clusters('sec.docs'::regclass, 'id', 'sh', 0.5, singletons => false)$$),
	('shingleset_clusters(text,name,name,text,name,boolean,text,text)', '',
	 $$SELECT id, cluster_id FROM shingleset_clusters('sec.docs'::text, 'id', 'sh', '0.5'::text, singletons => false)$$),
	('nddup_recommend_threshold(regclass,name,name,integer,integer)', '',
	 $$SELECT table_rows AS n FROM nddup_recommend_threshold('sec.docs', 'id', 'fp')$$),
	('nddup_check_trigger(regclass,text[])', '',
	 $$SELECT 'ok' AS ok FROM nddup_check_trigger('sec.docs', '{fingerprint=fp,radius=3}')$$),
	('nddup_original(regclass,text[],"any",anyelement)', '',
	 $$SELECT nddup_original('sec.docs', '{fingerprint=fp,radius=3}', simhash(sec.text6()), NULL::bigint) AS id$$),
	('nddup_original(regclass,text[],"any",anyelement)', 'visibility=all',
	 $$SELECT nddup_original('sec.docs', '{fingerprint=fp,radius=3,visibility=all}', simhash(sec.text6()), NULL::bigint) AS id$$),
	('nddup_original(regclass,text[],"any",anyelement)', 'source=',
	 $$SELECT nddup_original('sec.docs', '{source=body,radius=3}', sec.text6(), NULL::bigint) AS id$$),
	('nddup_original_routed(regclass,text[],"any",anyelement,regclass)', '',
	 $$SELECT nddup_original_routed('sec.docs', '{fingerprint=fp,radius=3}', simhash(sec.text6()), 100::bigint,
		'sec.docs_keys') AS id$$),
	('nddup_original(regclass,text[],"any",anyelement,"any")', '',
	 $$SELECT nddup_original('sec.docs', '{fingerprint=fp,radius=3,scope=tenant}', simhash(sec.text6()), NULL::bigint,
		'regress_nddup_sec_cols'::name) AS id$$),
	('nddup_column_kind(regclass,name)', '',
	 $$SELECT nddup_column_kind('sec.docs', 'sk') AS kind$$),
	('nddup_sample_pairs(text,integer,integer,double precision,integer,regclass)', '',
	 $$SELECT a_id, b_id FROM nddup_sample_pairs('SELECT id1, id2, similarity FROM shingleset_pairs(''SELECT id, sh FROM sec.docs'', 0.1)', 10)$$),
	('nddup_sample_pairs(text,integer,integer,double precision,integer,regclass)', 'judged',
	 $$SELECT a_id, b_id FROM nddup_sample_pairs('SELECT id1, id2, similarity FROM shingleset_pairs(''SELECT id, sh FROM sec.docs'', 0.1)', 10,
		judged => 'sec.labels')$$),
	('nddup_pairs_to_judge(regclass,name,name,integer,integer,double precision,integer,regclass)', '',
	 $$SELECT a_id, b_id FROM nddup_pairs_to_judge('sec.docs', 'id', 'body', 10)$$),
	('nddup_pairs_to_judge(regclass,name,name,integer,integer,double precision,integer,regclass)', 'minhash',
	 $$SELECT a_id, b_id FROM nddup_pairs_to_judge('sec.docs', 'id', 'sk', 10)$$),
	('nddup_pairs_to_judge(regclass,name,name,integer,integer,double precision,integer,regclass)', 'shingleset',
	 $$SELECT a_id, b_id FROM nddup_pairs_to_judge('sec.docs', 'id', 'sh', 10)$$),
	('nddup_calibrate(regclass,double precision,double precision,integer,integer,double precision)', '',
	 $$SELECT judged AS n FROM nddup_calibrate('sec.labels', bootstrap => 0)$$),
	('nddup_decide(regclass,name,double precision,integer,shingle_filter,name,text)', '',
	 $$SELECT 'ok' AS ok FROM nddup_decide('sec.docs', 'sk', 0.6, source_column => 'body')$$),
	('nddup_decide(regclass,name,double precision,integer,shingle_filter,name,text)', 'withdraw',
	 $$SELECT 'ok' AS ok FROM nddup_decide('sec.docs', 'sk')$$),
	('nddup_decision(regclass,name,integer)', '',
	 $$SELECT (regexp_match(column_check, '^([0-9]+) rows checked'))[1] AS n FROM nddup_decision('sec.docs')$$);

-- a call as a role, summarised; the role change is undone with the call's
-- subtransaction (and so are the call's locks)
CREATE FUNCTION sec.cell(r name, q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	res text;
BEGIN
	BEGIN
		EXECUTE format('SET LOCAL ROLE %I', r);
		EXECUTE format($q$SELECT coalesce(string_agg(DISTINCT CASE k WHEN 'n' THEN 'n=' || v ELSE v END,
				',' ORDER BY CASE k WHEN 'n' THEN 'n=' || v ELSE v END), '-')
			FROM (%s) t, jsonb_each_text(to_jsonb(t)) e(k, v) WHERE v IS NOT NULL$q$, q) INTO res;
		RAISE SQLSTATE 'NDOK0';
	EXCEPTION
		WHEN SQLSTATE 'NDOK0' THEN NULL;
		WHEN OTHERS THEN res := SQLSTATE;
	END;
	RETURN res;
END
$$;
SET track_functions = 'all';
SET client_min_messages = error;
CREATE TABLE sec.matrix AS
SELECT c.fn, c.label, r.role, sec.cell(r.role, c.q) AS got, pg_stat_get_xact_function_calls(c.fn) AS calls
FROM sec.calls c,
	unnest(ARRAY['none', 'cols', 'alice', 'bypass', 'owner']) WITH ORDINALITY r0(short, ord),
	LATERAL (SELECT ('regress_nddup_sec_' || short)::name AS role) r
ORDER BY c.fn::text, c.label, r0.ord;
RESET client_min_messages;
RESET track_functions;
SELECT m.fn, m.label,
	max(got) FILTER (WHERE role = 'regress_nddup_sec_none') AS "none",
	max(got) FILTER (WHERE role = 'regress_nddup_sec_cols') AS cols,
	max(got) FILTER (WHERE role = 'regress_nddup_sec_alice') AS alice,
	max(got) FILTER (WHERE role = 'regress_nddup_sec_bypass') AS bypass,
	max(got) FILTER (WHERE role = 'regress_nddup_sec_owner') AS "owner"
FROM sec.matrix m GROUP BY m.fn, m.label ORDER BY m.fn::text, m.label;
-- no role gets an id it may not SELECT, or counts more rows than it may
-- (hamming_index_stats() counts the index's entries, as pg_class.reltuples
-- counts a table's rows for every role: docs/security.md)
WITH readable AS (
	SELECT role, coalesce(string_to_array(nullif(sec.cell(role, 'SELECT id FROM sec.docs'), '42501'), ',')::int[],
		'{}') AS ids
	FROM (SELECT DISTINCT role FROM sec.matrix) r)
SELECT m.fn, m.label, m.role, m.got, r.ids AS readable
FROM sec.matrix m JOIN readable r USING (role)
WHERE (m.got ~ '^[0-9,]+$' AND m.got !~ '^[0-9A-Z]{5}$' AND NOT string_to_array(m.got, ',')::int[] <@ r.ids)
   OR (m.got ~ '^n=' AND m.fn <> 'hamming_index_stats(regclass)'::regprocedure
	   AND substr(m.got, 3)::int > cardinality(r.ids));
-- every call reached the function it is listed under
SELECT fn FROM sec.matrix GROUP BY fn HAVING coalesce(max(calls), 0) = 0;
-- and the list is every function of the extension that takes a relation, a
-- column (regclass, name), or a query or a relation's name as a text
WITH catalog AS (
	SELECT p.oid::regprocedure AS fn
	FROM pg_proc p
	JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
	JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'nddup'
	WHERE EXISTS (SELECT FROM unnest(p.proargtypes::oid[]) WITH ORDINALITY a(t, i)
				  WHERE t IN ('regclass'::regtype, 'name'::regtype)
					 OR (t = 'text'::regtype AND p.proargnames[i] ~ '(query|rel|table|column|index)')))
SELECT (SELECT count(*) FROM catalog) AS functions,
	(SELECT array_agg(fn ORDER BY fn::text) FROM (SELECT fn FROM catalog EXCEPT SELECT fn FROM sec.calls) x) AS not_covered,
	(SELECT array_agg(fn ORDER BY fn::text) FROM (SELECT fn FROM sec.calls EXCEPT SELECT fn FROM catalog) x) AS not_in_catalog;

-- nddup_decide() is refused to every role but the owner; nddup_decision()
-- shows the decision only to the roles that may read the table
SELECT fn, label, role, got FROM sec.matrix
WHERE (fn = 'nddup_decide(regclass,name,double precision,integer,shingle_filter,name,text)'::regprocedure
		AND (got = '42501') <> (role <> 'regress_nddup_sec_owner'))
   OR (fn = 'nddup_decision(regclass,name,integer)'::regprocedure
		AND (got = '-') <> NOT has_table_privilege(role, 'sec.docs', 'SELECT'));

SET client_min_messages = warning;
DELETE FROM nddup_decisions WHERE relid = 'sec.docs'::regclass;
DROP SCHEMA sec CASCADE;
DROP ROLE regress_nddup_sec_none, regress_nddup_sec_writer, regress_nddup_sec_cols,
	regress_nddup_sec_alice, regress_nddup_sec_bob, regress_nddup_sec_bypass,
	regress_nddup_sec_owner, regress_nddup_sec_readers;
RESET client_min_messages;
