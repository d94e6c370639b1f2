# ALTER EXTENSION nddup UPDATE from the released 0.1: the data and indexes
# made under 0.1 keep their values and answers, and the updated catalog
# equals a fresh installation of the current version, object by object
# (functions with their flags and C symbols, operators, types, casts,
# aggregates, operator classes and families with their members, comments).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('upgrade');
$node->init;
$node->start;

my $current = $node->safe_psql('postgres',
	q{SELECT default_version FROM pg_available_extensions WHERE name = 'nddup'});
my @versions = split /\n/, $node->safe_psql('postgres',
	q{SELECT version FROM pg_available_extension_versions WHERE name = 'nddup' ORDER BY version});
ok((grep { $_ eq '0.1' } @versions), 'the released 0.1 is installable');

$node->safe_psql('postgres', 'CREATE DATABASE old');
$node->safe_psql('postgres', 'CREATE DATABASE fresh');
$node->safe_psql('old', q{CREATE EXTENSION nddup VERSION '0.1'});
$node->safe_psql('fresh', q{CREATE EXTENSION nddup});
is($node->safe_psql('old', q{SELECT extversion FROM pg_extension WHERE extname = 'nddup'}),
	'0.1', 'installed at 0.1');

# data and indexes made under 0.1
$node->safe_psql('old', q{
	CREATE TABLE docs (
		id integer PRIMARY KEY,
		body text NOT NULL,
		fp simhash64 GENERATED ALWAYS AS (simhash(body)) STORED,
		shingles shingleset,
		sketch minhash_sketch,
		supers bigint[],
		duplicate_of integer
	);
	INSERT INTO docs (id, body)
	SELECT i, 'document ' || (i % 97) || ' ' || repeat(md5((i % 211)::text) || ' ', 1 + i % 5)
		|| ' tail ' || (i % 13)
	FROM generate_series(1, 2000) i;
	UPDATE docs SET shingles = shingle_set(body), sketch = minhash(body),
		supers = super_shingles(minhash(body, 84, 'kperm'));
	CREATE INDEX docs_gin ON docs USING gin (fp simhash64_gin_ops) WITH (fastupdate = off);
	CREATE INDEX docs_spgist ON docs USING spgist (fp);
	CREATE INDEX docs_lsh ON docs USING gin (sketch minhash_lsh_ops(threshold = 0.5));
	CREATE INDEX docs_sets ON docs USING gin (shingles shingleset_ops);
	CREATE TABLE lexicons AS SELECT imatch_lexicon_agg(body) AS lexicon FROM docs;
	CREATE TABLE posts (id serial PRIMARY KEY, body text,
		fp simhash64 GENERATED ALWAYS AS (simhash(body)) STORED, duplicate_of integer);
	CREATE TRIGGER dedup BEFORE INSERT ON posts FOR EACH ROW
		EXECUTE FUNCTION nddup_dedup_trigger('fingerprint=fp', 'source=body', 'radius=3');
});

my $values_sql = q{
	SELECT md5(string_agg(concat_ws('|', id, fp, shingles, sketch, supers), ',' ORDER BY id))
	FROM docs
};
my $answers_sql = q{
	SET enable_seqscan = off;
	SELECT md5(string_agg(x, ',' ORDER BY x)) FROM (
		SELECT 'r' || q.id || ':' || d.id AS x
		FROM docs q JOIN docs d ON d.fp <@ ball(q.fp, 6) WHERE q.id % 50 = 0
		UNION ALL
		SELECT 'k' || q.id || ':' || d.id
		FROM docs q, LATERAL (SELECT id FROM docs d ORDER BY d.fp <-> q.fp, d.id LIMIT 3) d
		WHERE q.id % 100 = 0
		UNION ALL
		SELECT 'm' || q.id || ':' || d.id
		FROM docs q JOIN docs d ON d.sketch <@ similar_to(q.sketch, 0.5) WHERE q.id % 50 = 0
		UNION ALL
		SELECT 's' || q.id || ':' || d.id
		FROM docs q JOIN docs d ON d.shingles <@ similar_to(q.shingles, 0.5) WHERE q.id % 50 = 0
	) answers
};
my $batch_sql = q{
	SELECT md5(string_agg(id1 || ':' || id2, ',' ORDER BY id1, id2))
	FROM hamming_pairs('SELECT id, fp FROM docs', 3)
};
my $before_values = $node->safe_psql('old', $values_sql);
my $before_answers = $node->safe_psql('old', $answers_sql);
my $before_batch = $node->safe_psql('old', $batch_sql);
my $before_lexicon = $node->safe_psql('old', q{SELECT md5(lexicon::text) FROM lexicons});

$node->safe_psql('old', q{ALTER EXTENSION nddup UPDATE});
is($node->safe_psql('old', q{SELECT extversion FROM pg_extension WHERE extname = 'nddup'}),
	$current, "updated to $current");

is($node->safe_psql('old', $values_sql), $before_values, 'values are unchanged by the update');
is($node->safe_psql('old', $answers_sql), $before_answers, 'the 0.1 indexes answer the same after the update');
is($node->safe_psql('old', $batch_sql), $before_batch, 'batch functions answer the same');
is($node->safe_psql('old', q{SELECT md5(lexicon::text) FROM lexicons}), $before_lexicon,
	'the I-Match lexicon is unchanged');
is($node->safe_psql('old', q{
	INSERT INTO posts (body) VALUES ('a post about the update'), ('a post about the update!');
	SELECT string_agg(coalesce(duplicate_of::text, '-'), ',' ORDER BY id) FROM posts}),
	'-,1', 'the trigger made under 0.1 works after the update');

# the index answers equal a sequential scan after the update, too
my $seq_answers = $node->safe_psql('old', $answers_sql =~ s/SET enable_seqscan = off;/SET enable_indexscan = off; SET enable_bitmapscan = off;/r);
is($seq_answers, $before_answers, 'index answers equal the sequential scan');

# The catalog of the extension's objects, described without OIDs.
my $catalog_sql = q{
WITH members AS (
	SELECT classid, objid, objsubid
	FROM pg_depend
	WHERE refclassid = 'pg_extension'::regclass AND deptype = 'e'
	  AND refobjid = (SELECT oid FROM pg_extension WHERE extname = 'nddup')
), families AS (
	SELECT objid AS opfamily FROM members WHERE classid = 'pg_opfamily'::regclass
)
SELECT line FROM (
	SELECT 'member ' || pg_describe_object(classid, objid, objsubid) AS line FROM members
	UNION ALL
	SELECT format('function %s(%s) returns %s kind=%s vol=%s strict=%s par=%s cost=%s rows=%s secdef=%s leak=%s support=%s lang=%s src=%s bin=%s config=%s',
				  p.proname, pg_get_function_identity_arguments(p.oid), pg_get_function_result(p.oid),
				  p.prokind, p.provolatile, p.proisstrict, p.proparallel, p.procost, p.prorows,
				  p.prosecdef, p.proleakproof, p.prosupport, l.lanname,
				  CASE WHEN l.lanname = 'c' THEN p.prosrc ELSE md5(p.prosrc) END, p.probin, p.proconfig)
	FROM members m JOIN pg_proc p ON m.classid = 'pg_proc'::regclass AND p.oid = m.objid
	JOIN pg_language l ON l.oid = p.prolang
	UNION ALL
	SELECT format('defaults %s(%s): %s', p.proname, pg_get_function_identity_arguments(p.oid),
				  pg_get_function_arguments(p.oid))
	FROM members m JOIN pg_proc p ON m.classid = 'pg_proc'::regclass AND p.oid = m.objid
	UNION ALL
	SELECT format('operator %s(%s, %s) -> %s code=%s rest=%s join=%s com=%s neg=%s merge=%s hash=%s',
				  o.oprname, o.oprleft::regtype, o.oprright::regtype, o.oprresult::regtype,
				  o.oprcode, o.oprrest, o.oprjoin,
				  (SELECT format('%s(%s,%s)', c.oprname, c.oprleft::regtype, c.oprright::regtype) FROM pg_operator c WHERE c.oid = o.oprcom),
				  (SELECT format('%s(%s,%s)', c.oprname, c.oprleft::regtype, c.oprright::regtype) FROM pg_operator c WHERE c.oid = o.oprnegate),
				  o.oprcanmerge, o.oprcanhash)
	FROM members m JOIN pg_operator o ON m.classid = 'pg_operator'::regclass AND o.oid = m.objid
	UNION ALL
	SELECT format('type %s len=%s byval=%s align=%s storage=%s in=%s out=%s recv=%s send=%s mod_in=%s mod_out=%s analyze=%s subscript=%s elem=%s category=%s preferred=%s',
				  t.oid::regtype, t.typlen, t.typbyval, t.typalign, t.typstorage, t.typinput, t.typoutput,
				  t.typreceive, t.typsend, t.typmodin, t.typmodout, t.typanalyze, t.typsubscript,
				  t.typelem::regtype, t.typcategory, t.typispreferred)
	FROM members m JOIN pg_type t ON m.classid = 'pg_type'::regclass AND t.oid = m.objid
	UNION ALL
	SELECT format('cast %s -> %s func=%s context=%s method=%s', c.castsource::regtype, c.casttarget::regtype,
				  c.castfunc::regprocedure, c.castcontext, c.castmethod)
	FROM members m JOIN pg_cast c ON m.classid = 'pg_cast'::regclass AND c.oid = m.objid
	UNION ALL
	SELECT format('aggregate %s kind=%s trans=%s final=%s combine=%s serial=%s deserial=%s stype=%s sspace=%s init=%s finalextra=%s finalmodify=%s sortop=%s',
				  a.aggfnoid::regprocedure, a.aggkind, a.aggtransfn, a.aggfinalfn, a.aggcombinefn,
				  a.aggserialfn, a.aggdeserialfn, a.aggtranstype::regtype, a.aggtransspace,
				  a.agginitval, a.aggfinalextra, a.aggfinalmodify, a.aggsortop)
	FROM members m JOIN pg_aggregate a ON m.classid = 'pg_proc'::regclass AND a.aggfnoid = m.objid
	UNION ALL
	SELECT format('opclass %s for %s using %s family=%s default=%s keytype=%s',
				  c.opcname, c.opcintype::regtype, am.amname, f.opfname, c.opcdefault, c.opckeytype::regtype)
	FROM members m JOIN pg_opclass c ON m.classid = 'pg_opclass'::regclass AND c.oid = m.objid
	JOIN pg_am am ON am.oid = c.opcmethod JOIN pg_opfamily f ON f.oid = c.opcfamily
	UNION ALL
	SELECT format('amop %s: %s %s(%s, %s) purpose=%s sortfamily=%s', f.opfname, o.amopstrategy,
				  op.oprname, o.amoplefttype::regtype, o.amoprighttype::regtype, o.amoppurpose,
				  (SELECT opfname FROM pg_opfamily WHERE oid = o.amopsortfamily))
	FROM families JOIN pg_opfamily f ON f.oid = families.opfamily
	JOIN pg_amop o ON o.amopfamily = f.oid JOIN pg_operator op ON op.oid = o.amopopr
	UNION ALL
	SELECT format('amproc %s: %s (%s, %s) %s', f.opfname, p.amprocnum, p.amproclefttype::regtype,
				  p.amprocrighttype::regtype, p.amproc::regprocedure)
	FROM families JOIN pg_opfamily f ON f.oid = families.opfamily
	JOIN pg_amproc p ON p.amprocfamily = f.oid
	UNION ALL
	SELECT format('comment %s: %s', pg_describe_object(d.classoid, d.objoid, d.objsubid), d.description)
	FROM members m JOIN pg_description d ON d.classoid = m.classid AND d.objoid = m.objid
	UNION ALL
	SELECT format('event trigger %s on %s tags=%s func=%s enabled=%s', e.evtname, e.evtevent,
				  e.evttags, e.evtfoid::regproc, e.evtenabled)
	FROM members m JOIN pg_event_trigger e ON m.classid = 'pg_event_trigger'::regclass AND e.oid = m.objid
) lines
ORDER BY line COLLATE "C"
};
my $updated = $node->safe_psql('old', $catalog_sql);
my $fresh = $node->safe_psql('fresh', $catalog_sql);
my @updated = split /\n/, $updated;
my @fresh = split /\n/, $fresh;
my %in_fresh = map { $_ => 1 } @fresh;
my %in_updated = map { $_ => 1 } @updated;
my @missing = grep { !$in_updated{$_} } @fresh;
my @extra = grep { !$in_fresh{$_} } @updated;
diag("in a fresh installation, not after the update: $_") for @missing;
diag("after the update, not in a fresh installation: $_") for @extra;
ok(@fresh > 500, 'the catalog description lists the objects (' . scalar(@fresh) . ' lines)');
is(scalar(@missing) + scalar(@extra), 0, 'the updated catalog equals a fresh installation');

$node->stop;
done_testing();
