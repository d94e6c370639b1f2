
# Copyright (c) nddup contributors; PostgreSQL Licence.
#
# Crash recovery of the nddup indexes: a GIN simhash64_gin_ops index with
# fastupdate = off, one with fastupdate = on (and the smallest pending list,
# so pending-list cleanups happen during the workload), an SP-GiST
# simhash64_spgist_ops index and a hamming index (merged by VACUUMs during
# the workload), each on its own table.  Three background psql
# sessions insert, update and delete (each statement writes the same rows
# to all three tables), a checkpoint is taken mid-stream, then the
# postmaster and all its children are killed with SIGKILL.  After the
# restart (WAL replay), every index answer must equal the sequential scan:
# radius queries at 0, 3, 6 and 12 bits, within(), nearest-10 by
# hamming_nearest() and by the SP-GiST ordered scan; the three tables must
# hold the same rows, the primary-key B-trees pass amcheck, and the indexes
# stay correct through VACUUM and more writes after recovery.
#
# Everything written is deterministic; only the moment of the crash is not,
# and the checks do not depend on it.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use IPC::Run;
use Test::More;
use FindBin;
use lib $FindBin::Bin;
use NddupWorkload;
use Time::HiRes qw(usleep);


my $node = PostgreSQL::Test::Cluster->new('crash');
$node->init;
$node->append_conf(
	'postgresql.conf', q{
autovacuum = off
max_parallel_workers_per_gather = 0
jit = off
checkpoint_timeout = 1h
max_wal_size = 1GB
restart_after_crash = off
});
$node->start;

$node->safe_psql('postgres', setup_sql());

# Three sessions, each a fixed script of writes; the crash comes mid-stream.
my @sessions;
for my $s (1 .. 3)
{
	my $file = "${PostgreSQL::Test::Utils::tmp_check}/workload_$s.sql";
	open my $fh, '>', $file or die "cannot write $file: $!";
	print $fh workload_sql($s, 2500);
	close $fh;
	my ($out, $err) = ('', '');
	my $h = IPC::Run::start(
		[
			'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1',
			'-d', $node->connstr('postgres'), '-f', $file
		],
		'>', \$out, '2>', \$err);
	push @sessions, { h => $h, out => \$out, err => \$err };
}

# a checkpoint once some writes are in, so that recovery starts mid-stream
# and replays full-page images as well as incremental index records
wait_for_rows(300);
$node->safe_psql('postgres', 'CHECKPOINT');
wait_for_rows(900);

my $still_running = grep { $_->{h}->pumpable } @sessions;
my $before = $node->safe_psql('postgres',
	'SELECT count(*) FROM t_spg WHERE id >= 1000000');
note "crash after $before workload rows, $still_running of 3 sessions running";
ok($still_running > 0, 'the crash comes while the workload is running');

# SIGKILL the postmaster and every child of it at once, as in a crash
crash_node($node);

for my $s (@sessions)
{
	$s->{h}->kill_kill;
	$s->{h}->finish;
	unlike(${ $s->{err} }, qr/ERROR:/, 'no SQL error in a workload session before the crash');
}

$node->start;
ok($node->log_contains('redo starts at'), 'the restart replayed WAL');

# the three tables were written by the same statements
my %content;
for my $t (@tables)
{
	$content{$t} = $node->safe_psql(
		'postgres', qq{
SET enable_indexscan = off; SET enable_bitmapscan = off;
SELECT count(*) || ' ' || md5(string_agg(id || ':' || fp::text, ',' ORDER BY id)) FROM $t});
}
is($content{t_gin_on}, $content{t_gin_off}, 't_gin_on has the rows of t_gin_off');
is($content{t_spg}, $content{t_gin_off}, 't_spg has the rows of t_gin_off');
is($content{t_ham}, $content{t_gin_off}, 't_ham has the rows of t_gin_off');

check_indexes($node, $node, 'after crash recovery', @radii);

# amcheck: the B-tree primary keys, with their heaps
$node->safe_psql('postgres', 'CREATE EXTENSION amcheck');
for my $t (@tables)
{
	my $r = $node->psql('postgres', "SELECT bt_index_check('${t}_pkey', true)");
	is($r, 0, "amcheck of ${t}_pkey");
}

# VACUUM (GIN: pending list into the tree, dead entries out), more writes
$node->safe_psql('postgres', join("\n", map { "VACUUM $_;" } @tables));
$node->safe_psql('postgres', workload_sql(9, 400));
# (radius 12 left out here: its 1,108 probes per query are each compared
# with every pending-list row of t_gin_on, which is slow)
check_indexes($node, $node, 'after VACUUM and more writes', 0, 3, 6);

$node->stop;
done_testing();


# Wait (at most 60 s) until the workload has inserted n rows.
sub wait_for_rows
{
	my ($n) = @_;
	for (1 .. 600)
	{
		my $c = $node->safe_psql('postgres',
			'SELECT count(*) FROM t_spg WHERE id >= 1000000');
		return if $c >= $n;
		usleep(100_000);
	}
	note "the workload did not reach $n rows in 60 s";
	return;
}
