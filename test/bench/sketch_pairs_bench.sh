#!/usr/bin/env bash
# Benchmark of minhash_pairs (src/batch/batch_sketch.c, docs/batch-sketches.md):
# all pairs of 1M min-hash sketches (oph, k = 128) at threshold 0.8, time and
# peak backend memory (VmHWM), beside a plain SQL self-join (jaccard >= 0.8)
# and minhash_pairs on a 10K sample, measured in the same run.
#
# Data: 800,000 documents of 40 words of 4 hex digits (md5), and 200,000
# variants with one word replaced, 4 per base document for the first 50,000
# (groups of 5: base-variant resemblance ~0.85, variant-variant ~0.73);
# sketches computed in SQL with minhash(body).
#
# Runs its own temporary PostgreSQL instance as the postgres user.
#
# usage: test/bench/sketch_pairs_bench.sh [--repeat N] [--no-build]

set -euo pipefail
source "$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/scripts/lib.sh"

REPEAT=3
BUILD=1
while [ $# -gt 0 ]; do
	case "$1" in
		--repeat) REPEAT=$2; shift ;;
		--no-build) BUILD=0 ;;
		*) echo "unknown option $1" >&2; exit 2 ;;
	esac
	shift
done

[ "$BUILD" = 1 ] && build_and_install
make_workdir
start_instance
pg_sql -c "CREATE EXTENSION nddup"

echo "== $(date -u +%F) $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(pg_sql -Atc 'SHOW server_version')"
echo "== generating 1M documents and their sketches"
t0=$(date +%s.%N)
pg_sql <<'SQL'
SET work_mem = '256MB';
CREATE UNLOGGED TABLE bdocs AS
SELECT g AS id, rtrim(regexp_replace(md5('a' || g) || md5('b' || g) || md5('c' || g) || md5('d' || g)
	|| md5('e' || g), '(....)', '\1 ', 'g')) AS body
FROM generate_series(1, 800000) g;
INSERT INTO bdocs
SELECT 800000 + v, overlay(b.body placing substr(md5('v' || v), 1, 4) from 5 * (v % 38 + 1) + 1 for 4)
FROM generate_series(1, 200000) v JOIN bdocs b ON b.id = 1 + v % 50000;
CREATE UNLOGGED TABLE bsk AS SELECT id, minhash(body) AS s FROM bdocs;
CREATE UNLOGGED TABLE bsk10k AS SELECT * FROM bsk WHERE id <= 8000 OR id BETWEEN 800001 AND 802000;
VACUUM ANALYZE bsk, bsk10k;
SQL
t1=$(date +%s.%N)
printf "generation: %.1f s\n" "$(echo "$t1 - $t0" | bc)"
pg_sql -Atc "SELECT 'rows: ' || count(*) || ', table ' || pg_size_pretty(pg_total_relation_size('bsk')) FROM bsk"

# time of a statement in ms (psql \timing), best and median of REPEAT runs
timed() {
	local sql=$1 n=${2:-$REPEAT} out
	out=$(pg_sql <<SQL
SET work_mem = '1GB';
\timing on
$(for _ in $(seq "$n"); do echo "$sql"; done)
SQL
)
	echo "$out" | grep -E '^Time:' | awk '{print $2}' | sort -n |
		awk '{a[NR]=$1} END {printf "best %.0f ms, median %.0f ms (%d runs)", a[1], a[int((NR+1)/2)], NR}'
}

echo "== 10K sample (8,000 bases + 2,000 variants of the first 2,000 bases)"
echo "plain SQL self-join, jaccard >= 0.8: $(timed "SELECT count(*) FROM bsk10k a JOIN bsk10k b ON a.id < b.id AND jaccard(a.s, b.s) >= 0.8;" 1)"
echo "minhash_pairs, threshold 0.8:         $(timed "SELECT count(*) FROM minhash_pairs('SELECT id, s FROM bsk10k', 0.8);")"
pg_sql -At -c "SET work_mem = '64MB'" -c "SELECT 'pairs: self-join ' || (SELECT count(*) FROM bsk10k a JOIN bsk10k b ON a.id < b.id AND jaccard(a.s, b.s) >= 0.8)
	|| ', minhash_pairs ' || (SELECT count(*) FROM minhash_pairs('SELECT id, s FROM bsk10k', 0.8))
	|| ', missing ' || (SELECT count(*) FROM (SELECT a.id, b.id, jaccard(a.s, b.s) FROM bsk10k a JOIN bsk10k b
		ON a.id < b.id AND jaccard(a.s, b.s) >= 0.8 EXCEPT ALL SELECT * FROM minhash_pairs('SELECT id, s FROM bsk10k', 0.8)) x)"

echo "== 1M sketches"
echo "minhash_pairs, threshold 0.8:         $(timed "SELECT count(*) FROM minhash_pairs('SELECT id, s FROM bsk', 0.8);")"
echo "reading the input only (count):       $(timed "SELECT count(s) FROM bsk;")"
# peak memory of one backend: VmHWM before and after one call
pg_sql -At <<'SQL'
SET work_mem = '1GB';
SELECT 'VmHWM before: ' || substring(pg_read_file('/proc/' || pg_backend_pid() || '/status') from 'VmHWM:\s*(\d+ kB)');
SET nddup.progress = on;
SELECT 'result pairs: ' || count(*) FROM minhash_pairs('SELECT id, s FROM bsk', 0.8);
RESET nddup.progress;
SELECT 'VmHWM after:  ' || substring(pg_read_file('/proc/' || pg_backend_pid() || '/status') from 'VmHWM:\s*(\d+ kB)');
SQL
