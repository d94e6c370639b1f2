# pg_dump / pg_restore round trip of tables with every nddup type and index:
# the restored values, and the answers of the restored indexes, are identical.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('dump');
$node->init;
$node->start;

$node->safe_psql('postgres', 'CREATE DATABASE src');
$node->safe_psql('src', q{
	CREATE EXTENSION nddup;
	CREATE TABLE docs (
		id integer PRIMARY KEY,
		body text NOT NULL,
		fp simhash64 GENERATED ALWAYS AS (simhash(body)) STORED,
		ball hamming_ball,
		shingles shingleset,
		bottom shingleset,
		sample shingleset,
		sketch minhash_sketch,
		bbit minhash_sketch,
		supers bigint[]
	);
	INSERT INTO docs (id, body)
	SELECT i, 'document ' || (i % 97) || ' ' || repeat(md5((i % 211)::text) || ' ', 1 + i % 5)
		|| ' tail ' || (i % 13)
	FROM generate_series(1, 2000) i;
	UPDATE docs SET ball = ball(fp, id % 10),
		shingles = shingle_set(body),
		bottom = shingle_bottom(body, 20),
		sample = shingle_mod(body, 3),
		sketch = minhash(body),
		bbit = minhash_bbit(minhash(body), 8),
		supers = super_shingles(minhash(body, 84, 'kperm'));
	CREATE INDEX docs_gin ON docs USING gin (fp simhash64_gin_ops(blocks = 5)) WITH (fastupdate = off);
	CREATE INDEX docs_gin_block ON docs USING gin (fp simhash64_gin_ops(layout = block));
	CREATE INDEX docs_spgist ON docs USING spgist (fp);
	CREATE INDEX docs_btree ON docs (fp);
	CREATE INDEX docs_hash ON docs USING hash (fp);
	CREATE TABLE lexicons AS SELECT imatch_lexicon_agg(body) AS lexicon FROM docs;
});

# a digest of every value, and of index answers for some radius queries
my $values_sql = q{
	SELECT md5(string_agg(concat_ws('|', id, fp, ball, shingles, bottom, sample, sketch, bbit, supers), ',' ORDER BY id))
	FROM docs
};
my $lexicon_sql = q{SELECT md5(lexicon::text) FROM lexicons};
my $answers_sql = q{
	SET enable_seqscan = off;
	SELECT md5(string_agg(q.id || ':' || d.id, ',' ORDER BY q.id, d.id))
	FROM docs q JOIN docs d ON d.fp <@ ball(q.fp, 6)
	WHERE q.id % 50 = 0
};

my $before_values = $node->safe_psql('src', $values_sql);
my $before_lexicon = $node->safe_psql('src', $lexicon_sql);
my $before_answers = $node->safe_psql('src', $answers_sql);

my $dump = $node->basedir . '/src.dump';
$node->command_ok([ 'pg_dump', '-Fc', '-f', $dump, '-d', $node->connstr('src') ], 'pg_dump');
$node->safe_psql('postgres', 'CREATE DATABASE restored');
$node->command_ok([ 'pg_restore', '--exit-on-error', '-d', $node->connstr('restored'), $dump ],
	'pg_restore');

is($node->safe_psql('restored', $values_sql), $before_values, 'every value survives the round trip');
is($node->safe_psql('restored', $lexicon_sql), $before_lexicon, 'the I-Match lexicon survives');
is($node->safe_psql('restored', $answers_sql), $before_answers, 'restored indexes give the same answers');

# the restored GIN index is used and agrees with a sequential scan
my $seq_answers = $node->safe_psql('restored', q{
	SET enable_indexscan = off; SET enable_bitmapscan = off;
	SELECT md5(string_agg(q.id || ':' || d.id, ',' ORDER BY q.id, d.id))
	FROM docs q JOIN docs d ON d.fp <@ ball(q.fp, 6)
	WHERE q.id % 50 = 0
});
is($seq_answers, $before_answers, 'index answers equal the sequential scan');
like($node->safe_psql('restored', q{SELECT indexdef FROM pg_indexes WHERE indexname = 'docs_gin'}),
	qr/simhash64_gin_ops \(blocks='?5'?\)/, 'opclass options are restored');

# plain-text dump (COPY text format) too
my $plain = $node->basedir . '/src.sql';
$node->command_ok([ 'pg_dump', '-f', $plain, '-d', $node->connstr('src') ], 'plain pg_dump');
$node->safe_psql('postgres', 'CREATE DATABASE restored_plain');
$node->command_ok([ 'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-f', $plain, '-d', $node->connstr('restored_plain') ],
	'plain restore');
is($node->safe_psql('restored_plain', $values_sql), $before_values, 'values survive a plain dump');

$node->stop;
done_testing();
