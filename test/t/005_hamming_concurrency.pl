# Copyright (c) nddup contributors; PostgreSQL Licence.
#
# The hamming access method under concurrency, crashes and replication.
#
# A primary with a table whose hamming index merges at every VACUUM
# (merge_fraction = 0) and a streaming standby.  While two writers insert,
# update and delete (one row per transaction), a third session runs VACUUM
# in a loop (tombstones, merges, recycling of retired pages):
#  - a checker compares, inside one REPEATABLE READ snapshot, the index's
#    answer with a sequential scan's (radius queries, nearest-10): they
#    must be equal every time;
#  - a session holds an ordered index scan open across the merges (a
#    cursor, its later batches read the old generation's pages) and
#    compares its whole order with a sequential scan: pages must not be
#    recycled under it;
#  - a checker on the standby does the same at 60 points of the replay
#    (paused around each check, so that its READ COMMITTED statements read
#    one state).
# Then the postmaster is killed (SIGKILL) while the writers and the VACUUM
# loop run, possibly mid-merge; after WAL replay every index answer must
# equal the sequential scan, VACUUMs recycle the orphaned pages and merge,
# and the standby (caught up) answers like the primary.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use IPC::Run;
use Test::More;
use Time::HiRes qw(usleep);
use FindBin;
use lib $FindBin::Bin;
use NddupWorkload qw(hamming_table_sql crash_node);

my $primary = PostgreSQL::Test::Cluster->new('ham_primary');
$primary->init(allows_streaming => 1);
$primary->append_conf(
	'postgresql.conf', q{
autovacuum = off
max_parallel_workers_per_gather = 0
jit = off
restart_after_crash = off
});
$primary->start;

$primary->safe_psql('postgres', hamming_table_sql());
$primary->safe_psql(
	'postgres', q{
-- writer s: n transactions of one insert, and some updates and deletes
CREATE PROCEDURE writer(s int, n int) LANGUAGE plpgsql AS $$
DECLARE
	base bigint := s * 1000000;
BEGIN
	FOR i IN 1 .. n LOOP
		INSERT INTO h VALUES (base + i, fpgen(base + i));
		IF i % 5 = 0 THEN
			DELETE FROM h WHERE id = base + i - 3;
		END IF;
		IF i % 7 = 0 THEN
			UPDATE h SET fp = fpgen(i * 13 + s) WHERE id = base + i - 1;
		END IF;
		IF i % 11 = 0 THEN
			DELETE FROM h WHERE id = (i * 37) % 20000 + 1;
		END IF;
		COMMIT;
	END LOOP;
END $$;

-- the index's answers against a sequential scan's, in the same snapshot;
-- raises on a difference, returns the rows found
CREATE FUNCTION check_once(seed int) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
	c simhash64 := fpgen(seed * 7919 + 5);
	r int := seed % 15;
	a bigint[];
	b bigint[];
	da int[];
	db int[];
BEGIN
	SET LOCAL enable_seqscan = off;
	SELECT array_agg(id ORDER BY id) INTO a FROM h WHERE fp <@ ball(c, r);
	SELECT array_agg(d) INTO da FROM (SELECT fp <-> c AS d FROM h ORDER BY fp <-> c LIMIT 10) s;
	SET LOCAL enable_seqscan = on;
	SET LOCAL enable_indexscan = off;
	SET LOCAL enable_indexonlyscan = off;
	SET LOCAL enable_bitmapscan = off;
	SELECT array_agg(id ORDER BY id) INTO b FROM h WHERE (fp <-> c) <= r;
	SELECT array_agg(d ORDER BY d) INTO db FROM (SELECT fp <-> c AS d FROM h ORDER BY 1 LIMIT 10) s;
	SET LOCAL enable_indexscan = on;
	SET LOCAL enable_indexonlyscan = on;
	SET LOCAL enable_bitmapscan = on;
	IF a IS DISTINCT FROM b OR da IS DISTINCT FROM db THEN
		RAISE EXCEPTION 'index and sequential scan differ for seed % (radius %)', seed, r;
	END IF;
	RETURN coalesce(cardinality(a), 0);
END $$;

-- an ordered index scan held open across merges (later batches read the
-- pages of the generation it started with), against a sequential scan
CREATE FUNCTION check_long_scan(pause float8) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
	cur refcursor;
	d int;
	got int[] := '{}';
	want int[];
	q simhash64 := fpgen(4242);
BEGIN
	SET LOCAL enable_seqscan = off;
	OPEN cur FOR SELECT fp <-> q FROM h ORDER BY fp <-> q;
	FOR i IN 1 .. 3 LOOP
		FETCH cur INTO d;
		got := got || d;
	END LOOP;
	PERFORM pg_sleep(pause);
	LOOP
		FETCH cur INTO d;
		EXIT WHEN NOT FOUND;
		got := got || d;
	END LOOP;
	CLOSE cur;
	SET LOCAL enable_seqscan = on;
	SET LOCAL enable_indexscan = off;
	SET LOCAL enable_indexonlyscan = off;
	SET LOCAL enable_bitmapscan = off;
	SELECT array_agg(x ORDER BY x) INTO want FROM (SELECT fp <-> q AS x FROM h) s;
	IF array_to_string(got, ',', 'null') IS DISTINCT FROM array_to_string(want, ',', 'null') THEN
		RAISE EXCEPTION 'a long ordered scan differs from the sequential scan'
			USING DETAIL = format('index %s rows, sequential scan %s rows; first difference at %s',
				cardinality(got), cardinality(want),
				(SELECT min(i) FROM generate_series(1, greatest(cardinality(got), cardinality(want))) i
				  WHERE got[i] IS DISTINCT FROM want[i]));
	END IF;
	RETURN cardinality(got);
END $$;

-- on the standby: pause replay, run check_once on the paused state, resume.
-- It holds no snapshot while it waits for the pause (a COMMIT before each
-- wait): replay may be resolving a recovery conflict first, and with
-- max_standby_streaming_delay = -1 it waits for the statements in its way
CREATE PROCEDURE standby_check(seed int) LANGUAGE plpgsql AS $$
DECLARE
	waits int := 0;
BEGIN
	PERFORM pg_wal_replay_pause();
	COMMIT;
	WHILE pg_get_wal_replay_pause_state() <> 'paused' LOOP
		waits := waits + 1;
		IF waits > 6000 THEN
			PERFORM pg_wal_replay_resume();
			RAISE EXCEPTION 'replay did not pause within 60 s (check %)', seed;
		END IF;
		COMMIT;
		PERFORM pg_sleep(0.01);
	END LOOP;
	BEGIN
		PERFORM check_once(seed);
	EXCEPTION WHEN OTHERS THEN
		PERFORM pg_wal_replay_resume();
		RAISE;
	END;
	PERFORM pg_wal_replay_resume();
END $$;
});

$primary->backup('backup');
my $standby = PostgreSQL::Test::Cluster->new('ham_standby');
$standby->init_from_backup($primary, 'backup', has_streaming => 1);
$standby->append_conf(
	'postgresql.conf', q{
max_parallel_workers_per_gather = 0
jit = off
max_standby_streaming_delay = -1
});
$standby->start;

# Start a psql session running a script on a node.
sub start_script
{
	my ($node, $name, $sql) = @_;
	my $file = "${PostgreSQL::Test::Utils::tmp_check}/$name.sql";
	open my $fh, '>', $file or die "cannot write $file: $!";
	print $fh $sql;
	close $fh;
	my ($out, $err) = ('', '');
	my $h = IPC::Run::start(
		[ 'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', $node->connstr('postgres'), '-f', $file ],
		'>', \$out, '2>', \$err);
	return { h => $h, out => \$out, err => \$err, name => $name };
}

my $vacuums = join('', map { "VACUUM h; SELECT pg_sleep(0.05);\n" } 1 .. 25);
my $checks = join('',
	map { "BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT check_once($_); COMMIT;\n" } 1 .. 80);
my @s = (
	start_script($primary, 'writer1', "CALL writer(1, 600);\n"),
	start_script($primary, 'writer2', "CALL writer(2, 600);\n"),
	start_script($primary, 'vacuum', $vacuums),
	start_script($primary, 'checker', $checks),
	start_script($primary, 'long_scan',
		"BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT check_long_scan(2); COMMIT;\n"));

# the standby checker pauses replay around each check (standby_check): its
# statements run in READ COMMITTED (each takes a new snapshot), and with
# replay going on the index and the sequential scan could see different
# commits; paused, both read the same state, which must agree exactly.
# Replay never cancels a standby query (max_standby_streaming_delay = -1):
# with a delay, a replay lagging behind the VACUUM loop's cleanup records
# cancelled even the checker's connection attempt.
my $standby_checks = join('', map { "CALL standby_check($_);\n" } 1 .. 60);
push @s, start_script($standby, 'standby_checker', $standby_checks);

for my $s (@s)
{
	$s->{h}->finish;
	is($s->{h}->result(0), 0, "session $s->{name} finished without error")
	  or diag ${ $s->{err} };
}

my $stats = $primary->safe_psql('postgres',
	'SELECT sorted_rows, appendix_rows, dead_rows FROM hamming_index_stats(\'h_fp\')');
note "after the workload: sorted, appendix, dead rows = $stats";

# compare every answer of a node with the primary's sequential scan
sub compare_all
{
	my ($node, $when) = @_;
	my $q = q{
SELECT string_agg(k || ':' || coalesce((SELECT string_agg(id::text, ',' ORDER BY id) FROM h
	WHERE fp <@ ball(fpgen(k * 7919 + 5), k % 15)), ''), ' ' ORDER BY k)
FROM generate_series(1, 120) k};
	my $idx = $node->safe_psql('postgres', "SET enable_seqscan = off; $q");
	my $seq = $primary->safe_psql('postgres',
		"SET enable_indexscan = off; SET enable_bitmapscan = off; SET enable_indexonlyscan = off; $q");
	is($idx, $seq, "radius answers equal the sequential scan ($when)");
	my $plan = $node->safe_psql('postgres', "SET enable_seqscan = off; EXPLAIN (COSTS OFF) $q");
	like($plan, qr/h_fp/, "the hamming index serves them ($when)");
}

$primary->wait_for_catchup($standby, 'replay', $primary->lsn('insert'));
compare_all($primary, 'primary after the workload');
compare_all($standby, 'standby after the workload');

# a crash while writers and merges run
my @c = (
	start_script($primary, 'writer3', "CALL writer(3, 3000);\n"),
	start_script($primary, 'vacuum2', $vacuums . $vacuums));
for (1 .. 100)
{
	last if $primary->safe_psql('postgres', 'SELECT count(*) FROM h WHERE id >= 3000000') >= 200;
	usleep(50_000);
}
crash_node($primary);
for my $s (@c)
{
	$s->{h}->kill_kill;
	$s->{h}->finish;
}
$primary->start;
ok($primary->log_contains('redo starts at'), 'the restart replayed WAL');
compare_all($primary, 'after crash recovery');

# VACUUM (VERBOSE, INDEX_CLEANUP ON) on the primary: returns its report and
# the dead tuples it left in the table (so in the index): those not
# removable yet (a snapshot horizon) and those it skipped (a heap page
# pinned by another process, such as the background writer: no cleanup
# lock).  INDEX_CLEANUP ON: by default (AUTO) VACUUM skips the index pass
# when the dead items are on fewer than 2 % of the table's pages ("index
# scan bypassed"), and their entries stay, counted by a merge, until a later
# VACUUM (harmless: the heap items stay LP_DEAD, not reused).
sub vacuum_verbose
{
	my ($sql) = @_;
	my ($out, $err) = ('', '');
	$primary->psql('postgres', $sql, stdout => \$out, stderr => \$err, on_error_die => 1);
	my @last = split /vacuuming "[^"]*\.h"/, $err;
	my $report = $last[-1];
	my $left = 0;
	$left += $1 if $report =~ /(\d+) are dead but not yet removable/;
	$left += $1 if $report =~ /tuples missed: (\d+) dead/;
	return ($err, $left);
}

# VACUUM recycles what the crash or the merges left, and merges
my ($vlog, $left) = vacuum_verbose(
	'VACUUM (VERBOSE, INDEX_CLEANUP ON) h; INSERT INTO h VALUES (9000001, fpgen(1));'
	  . ' VACUUM (VERBOSE, INDEX_CLEANUP ON) h; VACUUM (VERBOSE, INDEX_CLEANUP ON) h;');
for (1 .. 50)
{
	last if $left == 0;
	usleep(200_000);
	my $more;
	($more, $left) = vacuum_verbose('VACUUM (VERBOSE, INDEX_CLEANUP ON) h;');
	$vlog .= $more;
}
compare_all($primary, 'after VACUUMs following recovery');
my ($sorted, $appendix, $tombstones, $rows) = split /\|/, $primary->safe_psql('postgres',
	"SELECT s.sorted_rows, s.appendix_rows, s.dead_rows, (SELECT count(*) FROM h) FROM hamming_index_stats('h_fp') s");
is($appendix, 0, 'the appendix is merged');
note "sorted rows $sorted, tombstones $tombstones, live rows $rows, dead rows VACUUM left $left";
is($sorted - $tombstones, $rows + $left,
	'every row is in the sorted generation, and only the rows VACUUM could not remove besides')
  or diag "the VACUUMs after recovery:\n$vlog\n"
  . $primary->safe_psql('postgres', 'SELECT n_live_tup, n_dead_tup FROM pg_stat_user_tables WHERE relname = \'h\'');
my $pages = $primary->safe_psql('postgres', "SELECT pages FROM hamming_index_stats('h_fp')");
my $fresh = $primary->safe_psql('postgres',
	"CREATE INDEX h_fp2 ON h USING hamming (fp); SELECT pages FROM hamming_index_stats('h_fp2')");
cmp_ok($pages, '<=', 3 * $fresh, "the index ($pages pages) stays within 3x a fresh build ($fresh)");
$primary->safe_psql('postgres', 'DROP INDEX h_fp2');

$primary->wait_for_catchup($standby, 'replay', $primary->lsn('insert'));
compare_all($standby, 'standby after the crash of the primary');

$standby->stop;
$primary->stop;
done_testing();
