
# Copyright (c) nddup contributors; PostgreSQL Licence.
#
# Streaming replication of the nddup indexes: a primary with the four
# indexes of 001_crash_recovery.pl (GIN simhash64_gin_ops with fastupdate
# off and on, SP-GiST simhash64_spgist_ops, hamming, one table each), a standby made
# from a base backup (init_from_backup, has_streaming), then concurrent
# inserts, updates, deletes and VACUUMs on the primary.  Once the standby
# has replayed everything, its index answers (radius 0, 3, 6, 12, within(),
# nearest-10) must equal the primary's sequential-scan answers, so the WAL
# records of every index change redo to the same index on the standby.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use IPC::Run;
use Test::More;
use FindBin;
use lib $FindBin::Bin;
use NddupWorkload;


my $primary = PostgreSQL::Test::Cluster->new('primary');
$primary->init(allows_streaming => 1);
$primary->append_conf(
	'postgresql.conf', q{
autovacuum = off
max_parallel_workers_per_gather = 0
jit = off
});
$primary->start;
$primary->safe_psql('postgres', setup_sql());

# the base backup has the indexes as built; the standby replays the rest
$primary->backup('backup');
my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($primary, 'backup', has_streaming => 1);
$standby->append_conf(
	'postgresql.conf', q{
max_parallel_workers_per_gather = 0
jit = off
});
$standby->start;

# two concurrent sessions of writes on the primary, run to completion
my @sessions;
for my $s (1 .. 2)
{
	my $file = "${PostgreSQL::Test::Utils::tmp_check}/replica_workload_$s.sql";
	open my $fh, '>', $file or die "cannot write $file: $!";
	print $fh workload_sql($s + 2, 500);
	close $fh;
	my ($out, $err) = ('', '');
	my $h = IPC::Run::start(
		[
			'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1',
			'-d', $primary->connstr('postgres'), '-f', $file
		],
		'>', \$out, '2>', \$err,
		IPC::Run::timeout($PostgreSQL::Test::Utils::timeout_default));
	push @sessions, { h => $h, err => \$err };
}
for my $s (@sessions)
{
	$s->{h}->finish;
	is($s->{h}->result(0), 0, 'workload session finished') or diag ${ $s->{err} };
}
$primary->safe_psql('postgres', 'VACUUM t_gin_off; VACUUM t_spg; VACUUM t_ham; VACUUM t_ham; VACUUM t_ham;');
# more writes after the VACUUMs: t_gin_on keeps a pending list
$primary->safe_psql('postgres', workload_sql(7, 200));

$primary->wait_for_catchup($standby, 'replay', $primary->lsn('insert'));
ok($standby->safe_psql('postgres', 'SELECT pg_is_in_recovery()') eq 't',
	'the standby is in recovery');
my $workload = $standby->safe_psql('postgres',
	'SELECT count(*) FROM t_spg WHERE id >= 1000000');
note "the standby has $workload workload rows";

check_indexes($standby, $primary, 'standby against the primary', @radii);

$standby->stop;
$primary->stop;
done_testing();
