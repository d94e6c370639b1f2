# Copyright (c) nddup contributors; PostgreSQL Licence.
#
# Shared by the TAP tests: for 001_crash_recovery.pl and 002_replica.pl the
# tables and their nddup indexes, the concurrent workload and the comparison
# of every index answer with the sequential scan; for 005 and 006 the table
# of the hamming index; for all, the generator fpgen() and crash_node().

package NddupWorkload;

use strict;
use warnings;

use Test::More;
use Time::HiRes qw(usleep);
use Exporter 'import';

our @EXPORT =
  qw(@tables @radii setup_sql hamming_table_sql workload_sql check_indexes crash_node);

our @tables = qw(t_gin_off t_gin_on t_spg t_ham);
our @radii = (0, 3, 6, 12);

# The fingerprint generator fpgen(seed): a fingerprint of one of $clusters
# clusters with 0..8 bits flipped (seeds that agree mod $clusters give
# fingerprints a few bits apart).
sub fpgen_sql
{
	my ($clusters) = @_;
	return qq{
CREATE FUNCTION fpgen(seed bigint) RETURNS simhash64
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS \$\$
	SELECT (hashint8extended(seed % $clusters, 11) #
			coalesce((SELECT bit_or(1::bigint << (hashint8extended(seed * 8 + i, 12) & 63)::int)
					  FROM generate_series(1, (seed % 9)::int) i), 0))::simhash64
\$\$;
};
}

# 005 and 006: table h of 20,000 rows (every 97th fingerprint NULL) and its
# hamming index h_fp, merged at every VACUUM that sees a change.
sub hamming_table_sql
{
	return 'CREATE EXTENSION nddup;' . fpgen_sql(300) . q{
CREATE TABLE h (id bigint PRIMARY KEY, fp simhash64);
INSERT INTO h SELECT g, CASE WHEN g % 97 = 0 THEN NULL ELSE fpgen(g * 31) END
	FROM generate_series(1, 20000) g;
CREATE INDEX h_fp ON h USING hamming (fp) WITH (merge_fraction = 0);
};
}

# The tables, their indexes, the fingerprint generator, the queries.
sub setup_sql
{
	return 'CREATE EXTENSION nddup;' . fpgen_sql(150) . q{

CREATE TABLE t_gin_off (id bigint PRIMARY KEY, fp simhash64);
CREATE TABLE t_gin_on (id bigint PRIMARY KEY, fp simhash64);
CREATE TABLE t_spg (id bigint PRIMARY KEY, fp simhash64);
CREATE TABLE t_ham (id bigint PRIMARY KEY, fp simhash64);
INSERT INTO t_gin_off SELECT g, fpgen(g * 31) FROM generate_series(1, 3000) g;
INSERT INTO t_gin_off SELECT 3000 + g, NULL FROM generate_series(1, 20) g;
INSERT INTO t_gin_on SELECT * FROM t_gin_off;
INSERT INTO t_spg SELECT * FROM t_gin_off;
INSERT INTO t_ham SELECT * FROM t_gin_off;
CREATE INDEX t_gin_off_fp ON t_gin_off USING gin (fp simhash64_gin_ops) WITH (fastupdate = off);
CREATE INDEX t_gin_on_fp ON t_gin_on USING gin (fp simhash64_gin_ops)
	WITH (fastupdate = on, gin_pending_list_limit = 64);
CREATE INDEX t_spg_fp ON t_spg USING spgist (fp simhash64_spgist_ops);
-- the hamming access method: every VACUUM that sees a change merges
CREATE INDEX t_ham_fp ON t_ham USING hamming (fp) WITH (merge_fraction = 0);

-- 150 queries near the clusters, 50 anywhere
CREATE TABLE queries (qid int PRIMARY KEY, fp simhash64 NOT NULL);
INSERT INTO queries SELECT q, fpgen(q * 7919 + 5) FROM generate_series(1, 150) q;
INSERT INTO queries SELECT q, hashint8extended(q, 99)::simhash64 FROM generate_series(151, 200) q;
};
}

# The SQL of workload session s: n statements or transactions, each
# writing the same rows to every table (deterministic).
sub workload_sql
{
	my ($s, $n) = @_;
	my $seed = 12345 + $s;
	my $next = sub {
		$seed = ($seed * 1103515245 + 12345) % 2147483648;
		return $seed;
	};
	my ($inserted, @sql) = (0);
	my $base = $s * 1000000;

	# one statement that applies $op (a data-modifying CTE body with the
	# table name as %T) to every table
	my $all = sub {
		my ($op) = @_;
		my @parts = map { (my $x = $op) =~ s/%T/$_/g; $x } @tables;
		my $last = pop @parts;
		my $n = 0;
		return 'WITH ' . join(', ', map { 'w' . $n++ . " AS ($_)" } @parts) . " $last;";
	};
	my $insert = sub {
		$inserted++;
		my $id = $base + $inserted;
		return $all->("INSERT INTO %T VALUES ($id, fpgen($id))");
	};
	for my $i (1 .. $n)
	{
		my $r = $next->() % 100;
		my $target = $base + 1 + $next->() % ($inserted || 1);
		if ($r < 55 || $inserted < 10)
		{
			push @sql, $insert->();
		}
		elsif ($r < 70)
		{
			my $v = $next->();
			push @sql, $all->("UPDATE %T SET fp = fpgen($v) WHERE id = $target");
		}
		elsif ($r < 80)
		{
			push @sql, $all->("DELETE FROM %T WHERE id = $target");
		}
		elsif ($r < 83)
		{
			# an old row of the initial load
			my $old = 1 + $next->() % 3000;
			push @sql,
			  $all->("UPDATE %T SET fp = fpgen(fp::bigint % 100000) WHERE id = $old");
		}
		else
		{
			# a transaction of several writes, sometimes rolled back
			my $end = $next->() % 5 == 0 ? 'ROLLBACK;' : 'COMMIT;';
			push @sql, 'BEGIN;', (map { $insert->() } 1 .. 4),
			  $all->("DELETE FROM %T WHERE id = $target"), $end;
		}
		push @sql, 'VACUUM t_gin_on;' if $s == 3 && $i % 400 == 0;
		# merges of the hamming index while the others write
		push @sql, 'VACUUM t_ham;' if $s == 2 && $i % 150 == 0;
	}
	return join("\n", @sql) . "\n";
}

# Compare every index answer of node $n with the sequential scan on node $s.
sub check_indexes
{
	my ($n, $s, $when, @rs) = @_;
	my %index_on = (
		'SET enable_seqscan = off;' => 'index',
		'SET enable_indexscan = off; SET enable_bitmapscan = off;' => 'seqscan');

	for my $t (@tables)
	{
		my %answer;
		for my $mode (keys %index_on)
		{
			my $which = $index_on{$mode};
			for my $r (@rs)
			{
				# t_gin_on: every radius-12 probe (1,108) is compared with
				# every pending-list row; a quarter of the queries is enough
				my $where = ($t eq 't_gin_on' && $r >= 12) ? 'q.qid % 4 = 0' : 'true';
				$answer{$which}{"ball $r"} = ($which eq 'index' ? $n : $s)->safe_psql('postgres',
					$mode . radius_sql($t, "t.fp <@ ball(q.fp, $r)", $where));
			}
			$answer{$which}{'within 6'} = ($which eq 'index' ? $n : $s)->safe_psql('postgres',
				$mode . radius_sql($t, 'within(t.fp, q.fp, 6)', 'true'));

			# hamming_nearest() over the fastupdate index probes radii up to
			# 16 (4,608 probes) against the pending list, which is slow; it
			# is checked on t_gin_off
			$answer{$which}{'nearest 10'} =
			  ($which eq 'index' ? $n : $s)->safe_psql('postgres', $mode . nearest_sql($t, $which))
			  unless $t eq 't_gin_on';
		}

		# the index is really used
		my $plan = $n->safe_psql('postgres',
			"SET enable_seqscan = off; EXPLAIN (COSTS OFF) "
			  . radius_sql($t, 't.fp <@ ball(q.fp, 6)', 'true'));
		like($plan, qr/${t}_fp/, "$t: radius queries use ${t}_fp ($when)");
		if ($t eq 't_spg' || $t eq 't_ham')
		{
			$plan = $n->safe_psql('postgres',
				"SET enable_seqscan = off; EXPLAIN (COSTS OFF) " . nearest_sql($t, 'index'));
			like($plan, qr/Index (Only )?Scan using ${t}_fp/, "$t: nearest-10 is an ordered index scan ($when)");
		}

		for my $q (sort keys %{ $answer{seqscan} })
		{
			my $values = () = $answer{seqscan}{$q} =~ /[:,]\d/g;
			is($answer{index}{$q}, $answer{seqscan}{$q},
				"$t: $q: index = sequential scan ($values values; $when)");
		}
	}
	return;
}

# Per query, the sorted ids of the rows that match cond.  Sorted by t.id + 0,
# an order no index gives: from 16 on, an aggregate's ORDER BY can be served
# presorted by the scan, and a full scan of the primary key (filtered by
# cond) would then stand in for the index under test.
sub radius_sql
{
	my ($t, $cond, $where) = @_;
	return qq{
SELECT string_agg(q.qid || ':' || coalesce(
	(SELECT string_agg(t.id::text, ',' ORDER BY t.id + 0) FROM $t t WHERE $cond), ''),
	' ' ORDER BY q.qid)
FROM queries q WHERE $where};
}

# Per query, the 10 nearest rows: hamming_nearest() (ids and distances;
# ties by id) against a sorted scan, and for SP-GiST and the hamming index
# the ordered index scan (distances only: ties come in any order).
sub nearest_sql
{
	my ($t, $which) = @_;
	my $inner;
	if ($t eq 't_spg' || $t eq 't_ham')
	{
		$inner = qq{array_to_string(ARRAY(SELECT t.fp <-> q.fp FROM $t t
			WHERE t.fp IS NOT NULL ORDER BY t.fp <-> q.fp LIMIT 10), ',')
			|| '/' || (SELECT string_agg(id || '~' || distance, ',' ORDER BY distance, id)
					   FROM hamming_nearest('$t', 'id', 'fp', q.fp, 10))};
		$inner = qq{array_to_string(ARRAY(SELECT t.fp <-> q.fp FROM $t t
			WHERE t.fp IS NOT NULL ORDER BY t.fp <-> q.fp LIMIT 10), ',')
			|| '/' || (SELECT string_agg(id || '~' || (fp <-> q.fp), ',' ORDER BY fp <-> q.fp, id)
					   FROM (SELECT id, fp FROM $t t WHERE t.fp IS NOT NULL
							 ORDER BY t.fp <-> q.fp, t.id LIMIT 10) s)}
		  if $which eq 'seqscan';
	}
	elsif ($which eq 'index')
	{
		$inner = qq{(SELECT string_agg(id || '~' || distance, ',' ORDER BY distance, id)
			FROM hamming_nearest('$t', 'id', 'fp', q.fp, 10))};
	}
	else
	{
		$inner = qq{(SELECT string_agg(id || '~' || (fp <-> q.fp), ',' ORDER BY fp <-> q.fp, id)
			FROM (SELECT id, fp FROM $t t WHERE t.fp IS NOT NULL
				  ORDER BY t.fp <-> q.fp, t.id LIMIT 10) s)};
	}
	return qq{SELECT string_agg(q.qid || ':' || $inner, ' ' ORDER BY q.qid) FROM queries q};
}

# Kill the postmaster and all its children with SIGKILL at once.
sub crash_node
{
	my ($n) = @_;
	my $pm = $n->{_pid};
	my @children;
	for my $stat (glob '/proc/[0-9]*/stat')
	{
		open my $fh, '<', $stat or next;
		my $line = <$fh>;
		close $fh;
		next unless defined $line && $line =~ /^(\d+) \(.*\) \S+ (\d+)/;
		push @children, $1 if $2 == $pm;
	}
	kill 'KILL', $pm, @children;
	$n->kill9;    # forget the pid
	note 'killed the postmaster and ' . scalar(@children) . ' children';

	# wait until they are gone (the shared memory must be free to restart)
	for (1 .. 300)
	{
		last unless grep { kill 0, $_ } $pm, @children;
		usleep(100_000);
	}
	return;
}

1;
