# Copyright (c) nddup contributors; PostgreSQL Licence.
#
# Crashes at every step of a hamming index's merge and of the recycling of
# the pages a merge retired, reached on purpose (005 crashes at random
# points of a VACUUM loop and may miss some).  The setting
# nddup.hamming_crash_point makes the VACUUM PANIC at the named step:
#  - sealed     the appendix sealed (the merge's first WAL record);
#  - writing    table 0 of the new generation written, the other tables not;
#  - written    the whole new generation written, the metapage not switched;
#  - switched   the metapage switched, the old pages retired, not recycled;
#  - recycling  the first retired page marked free, the others not.
# After each crash and WAL replay the index answers like a sequential scan
# (radius queries and nearest-10), takes inserts, updates and deletes, and
# the next VACUUMs finish or redo what the crash cut short: the appendix is
# merged, every live row is in the sorted generation, and every page of
# the merges cut short is freed (after two rounds of crashes at every step
# the index uses as many pages as a fresh build; the rest are free).

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::Bin;
use NddupWorkload qw(hamming_table_sql);

my @steps = qw(sealed writing written switched recycling);

my $node = PostgreSQL::Test::Cluster->new('ham_crash_points');
$node->init;
$node->append_conf(
	'postgresql.conf', q{
autovacuum = off
restart_after_crash = on
max_parallel_workers_per_gather = 0
jit = off
});
$node->start;

$node->safe_psql('postgres', hamming_table_sql()
	  . 'CREATE TABLE centers AS SELECT k, fpgen(k * 7919 + 5) AS c FROM generate_series(1, 120) k;');

# every radius answer and nearest-10 order of the index against a
# sequential scan's
sub compare_all
{
	my ($when) = @_;
	my $radius = q{
SELECT string_agg(k || ':' || coalesce((SELECT string_agg(id::text, ',' ORDER BY id) FROM h
	WHERE fp <@ ball(c, k % 15)), ''), ' ' ORDER BY k)
FROM centers};
	my $nearest = q{
SELECT string_agg(k || ':' || (SELECT string_agg(d::text, ',' ORDER BY n) FROM
	(SELECT row_number() OVER () AS n, d FROM
		(SELECT fp <-> c AS d FROM h WHERE fp IS NOT NULL ORDER BY fp <-> c LIMIT 10) o) s),
	' ' ORDER BY k)
FROM centers WHERE k <= 40};
	my $seqscan =
	  'SET enable_indexscan = off; SET enable_bitmapscan = off; SET enable_indexonlyscan = off;';
	for my $q ($radius, $nearest)
	{
		my $idx = $node->safe_psql('postgres', "SET enable_seqscan = off; $q");
		my $seq = $node->safe_psql('postgres', "$seqscan $q");
		is($idx, $seq, "the index answers like a sequential scan ($when)");
	}
	like($node->safe_psql('postgres', "SET enable_seqscan = off; EXPLAIN (COSTS OFF) $radius"),
		qr/h_fp/, "the hamming index serves the radius queries ($when)");
	return;
}

# inserts, deletes and updates: work for the next merge
my $round = 0;

sub churn
{
	$round++;
	my $base = 100000 * $round;
	$node->safe_psql(
		'postgres', qq{
INSERT INTO h SELECT g, CASE WHEN g % 89 = 0 THEN NULL ELSE fpgen(g) END
	FROM generate_series($base, $base + 599) g;
DELETE FROM h WHERE id <= 20000 AND id % 61 = $round;
UPDATE h SET fp = fpgen(id * 3 + $round) WHERE id <= 20000 AND id % 67 = $round;
DELETE FROM h WHERE id BETWEEN $base AND $base + 40;
});
	return;
}

# VACUUM with the crash point set: it must crash at that step, and the
# server must come back after replaying WAL
my %crashes;

sub crash_at
{
	my ($step) = @_;
	my $log_offset = -s $node->logfile;
	my ($ret, $out, $err) =
	  $node->psql('postgres', "SET nddup.hamming_crash_point = '$step'; VACUUM h;");
	isnt($ret, 0, "VACUUM did not finish (crash point $step)");

	# the client may see the crash before the postmaster does: a connection
	# made then would be ended by the restart; wait for the restart first
	$node->wait_for_log(qr/all server processes terminated; reinitializing/, $log_offset);
	$node->poll_query_until('postgres', 'SELECT true')
	  or die "the server did not come back after the crash at $step";
	$crashes{$step}++;
	my $panics = () = slurp_file($node->logfile) =~
	  /PANIC:  nddup\.hamming_crash_point: crashing at step "$step"/g;
	is($panics, $crashes{$step}, "the server crashed at step $step");
	return;
}

for my $pass (1 .. 2)
{
	for my $step (@steps)
	{
		# recycling needs a retirement older than every snapshot: a merge,
		# then transactions after it
		$node->safe_psql('postgres', 'VACUUM h') if $step eq 'recycling';
		churn();
		crash_at($step);
		compare_all("after a crash at $step, pass $pass");
		churn();
		compare_all("inserts after the crash at $step, pass $pass");
	}
}

# a session may not set it
$node->safe_psql('postgres', 'CREATE ROLE plain LOGIN');
my ($ret, $out, $err) = $node->psql('postgres',
	"SELECT fpgen(1); SET SESSION AUTHORIZATION plain; SET nddup.hamming_crash_point = 'sealed';");
like($err, qr/permission denied to set parameter "nddup.hamming_crash_point"/,
	'only a superuser can set the crash point');

# the VACUUMs after the crashes finish the work
$node->safe_psql('postgres', 'VACUUM h; VACUUM h; VACUUM h;');
compare_all('after the VACUUMs that follow the crashes');
my ($appendix, $sorted, $dead, $rows) = split /\|/, $node->safe_psql('postgres',
	"SELECT s.appendix_rows, s.sorted_rows, s.dead_rows, (SELECT count(*) FROM h) FROM hamming_index_stats('h_fp') s"
);
is($appendix, 0, 'the appendix is merged');
note "sorted rows $sorted, tombstones $dead, live rows $rows";
cmp_ok($sorted - $dead, '>=', $rows, 'every live row is in the sorted generation');
my $fresh = $node->safe_psql('postgres',
	"CREATE INDEX h_fp2 ON h USING hamming (fp); SELECT pages FROM hamming_index_stats('h_fp2')");
$node->safe_psql('postgres', 'DROP INDEX h_fp2');

# once the last retirement is old enough, every page that is not in the
# current generation is free (a page a crash left behind and no VACUUM
# freed would stay in use for ever)
my $in_use;
for (1 .. 5)
{
	$node->safe_psql('postgres', 'SELECT txid_current(); VACUUM h;');
	$in_use = $node->safe_psql('postgres',
		"SELECT pages - free_pages FROM hamming_index_stats('h_fp')");
	last if $in_use <= $fresh * 1.1 + 2;
}
cmp_ok($in_use, '<=', $fresh * 1.1 + 2,
	"after 10 crashes the index uses $in_use pages, as a fresh build ($fresh); the others are free");

$node->stop;
done_testing();
