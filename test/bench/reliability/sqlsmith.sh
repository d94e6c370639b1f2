#!/usr/bin/env bash
# Random SQL against nddup: run sqlsmith (Debian's package, 1.4) for DURATION
# seconds against a private temporary PostgreSQL instance holding a database
# with the extension, tables of every nddup type filled from the sample corpus
# in data/, every index kind and two tables with the duplicate trigger
# (test/bench/reliability/sqlsmith_schema.sql), then check the server log for
# crashes and print a summary.  Not part of CI: docs/reports/sqlsmith.md has the
# command and the last recorded run.
#
# sqlsmith connects as a role "smith" that sees only the test tables and, for
# functions, only nddup's and a few built-ins (see the schema file).  Every
# statement it sends is rolled back.  Errors go to a second small instance
# through sqlsmith's --log-to (so they survive a crash of the first), the
# generated queries to $SQLSMITH_OUT/queries.sql.gz; the server counts the
# calls of every nddup function (track_functions = all), and a watcher notes
# statements still running 5 s after their start (sqlsmith's statement
# timeout is 1 s).  Results: $SQLSMITH_OUT/summary.txt, errors.tsv.gz,
# internal_errors.sql, slow.tsv, function_calls.txt, server.log.
#
# Environment:
#   DURATION       seconds of random queries (default 1800)
#   SEED           sqlsmith's random seed (default 20241124)
#   SQLSMITH_OUT   where the logs and the summary are kept (default
#                  /tmp/nddup-sqlsmith; emptied first)
#   NDDUP_DESTDIR  install the extension there instead of the system (lib.sh)
#
# Usage: test/bench/reliability/sqlsmith.sh [--no-install]
# Exits 1 when the server crashed, an assertion failed, a query raised an
# internal error (SQLSTATE XX*, or "unexpected", "cache lookup failed",
# "assert" outside the classes 22 and 42) or ignored the statement timeout
# for 5 s, or when sqlsmith stopped early.
set -euo pipefail

source "$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)/scripts/lib.sh"

DURATION=${DURATION:-1800}
SEED=${SEED:-20241124}
OUT=${SQLSMITH_OUT:-/tmp/nddup-sqlsmith}
INSTALL=1
while [ $# -gt 0 ]; do
	case "$1" in
		--no-install) INSTALL=0 ;;
		*) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
	esac
	shift
done

ensure_packages sqlsmith
[ "$INSTALL" = 1 ] && build_and_install
make_workdir
rm -rf "$OUT" && mkdir -p "$OUT" && chmod 755 "$OUT"
[ "$(id -u)" = 0 ] && chown "$PG_USER" "$OUT"

# init_instance dir port extra-settings: initdb and start an instance
init_instance() {
	as_pg initdb -D "$1" -U "$PG_USER" --encoding=UTF8 --locale=C.UTF-8 >/dev/null
	cat >>"$1/postgresql.conf" <<CONF
listen_addresses = ''
port = $2
unix_socket_directories = '$WORKDIR'
fsync = off
$3
$(instance_settings)
CONF
	as_pg pg_ctl -D "$1" -l "$1.log" -w start >/dev/null
}

# stop the watcher and both instances, keep the log, remove the work directory
stop_all() {
	local d
	[ -n "${WATCH_PID:-}" ] && kill "$WATCH_PID" 2>/dev/null
	for d in "$WORKDIR/data" "$WORKDIR/logdb"; do
		[ -d "$d" ] && as_pg pg_ctl -D "$d" -m fast -w stop >/dev/null 2>&1 || true
	done
	cp "$WORKDIR/data.log" "$OUT/server.log" 2>/dev/null || true
	rm -rf "$WORKDIR"
}
trap stop_all EXIT

PGPORT=$(free_port)
LOGPORT=$(free_port)
while [ "$LOGPORT" = "$PGPORT" ]; do LOGPORT=$(free_port); done
export PGPORT PGHOST=$WORKDIR PGDATABASE=postgres PGUSER=$PG_USER

# the instance under test: errors with their SQLSTATE in the log, no
# statements (they are in the error log), crash restarts, function counts
init_instance "$WORKDIR/data" "$PGPORT" "shared_buffers = 128MB
log_line_prefix = '%m [%p] %e %a '
log_min_error_statement = panic
restart_after_crash = on
track_functions = all
track_activity_query_size = 65536"
# the error log's instance
init_instance "$WORKDIR/logdb" "$LOGPORT" "shared_buffers = 16MB"

echo "== machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(postgres --version), sqlsmith $(dpkg-query -W -f='${Version}' sqlsmith)"
echo "== building the test database (extension, tables from data/, indexes, triggers)"
pg_sql -c "CREATE DATABASE smith"
cp "$NDDUP_ROOT/data/debian-sample.tsv.gz" "$WORKDIR/sample.tsv.gz"
chmod 644 "$WORKDIR/sample.tsv.gz"
pg_sql -d smith -v sample="$WORKDIR/sample.tsv.gz" -f "$NDDUP_ROOT/test/bench/reliability/sqlsmith_schema.sql"
pg_sql -d smith -At -F ' ' -c "SELECT 'corpus.' || relname, reltuples::bigint FROM pg_class
	WHERE relnamespace = 'corpus'::regnamespace AND relkind = 'r' ORDER BY 1" | sed 's/^/   /'
# count only sqlsmith's calls of nddup functions, not the set-up's
pg_sql -d smith -Atq -c "SELECT pg_stat_reset()" >/dev/null
pg_sql -d smith -At -c "SELECT '   indexes: ' || string_agg(DISTINCT coalesce(o.opcname, a.amname), ', ')
	FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam
	LEFT JOIN pg_opclass o ON o.oid = i.indclass[0] AND o.opcnamespace = 'nddup'::regnamespace
	WHERE c.relnamespace = 'corpus'::regnamespace"

# the error log: the tables sqlsmith's --log-to writes
PGPORT=$LOGPORT pg_sql -c "CREATE DATABASE smithlog"
PGPORT=$LOGPORT pg_sql -d smithlog <<'SQL'
CREATE TABLE instance (id bigserial PRIMARY KEY, rev text, target text, hostname text,
					   version text, seed text, t timestamptz DEFAULT now());
CREATE TABLE error (id bigint REFERENCES instance, msg text, query text, sqlstate text,
					t timestamptz DEFAULT now());
CREATE TABLE stat (id bigint REFERENCES instance, generated bigint, level float8, nodes float8,
				   retries float8, impedance text, updated timestamptz);
SQL

# every 2 s, the sqlsmith statements still running 5 s after their start
# (sqlsmith sets statement_timeout = 1 s: a function that does not check for
# interrupts keeps running)
watch_slow() {
	while sleep 2; do
		pg_sql -d smith -At -F $'\t' -c "SELECT pid, query_start, round(extract(epoch FROM now() - query_start)),
			replace(replace(query, E'\n', ' '), E'\t', ' ') FROM pg_stat_activity
			WHERE application_name = 'sqlsmith::dut' AND state = 'active'
			AND now() - query_start > interval '5 s'" 2>/dev/null || true
	done >>"$OUT/slow.tsv"
}
: >"$OUT/slow.tsv"
watch_slow &
WATCH_PID=$!

TARGET="host=$WORKDIR port=$PGPORT dbname=smith user=smith"
echo "== sqlsmith for $DURATION s, seed $SEED (load average $(cut -d' ' -f1-3 /proc/loadavg))"
START=$(date +%s)
set +e
(cd "$WORKDIR" && as_pg timeout -s INT -k 60 "$DURATION" sqlsmith --target="$TARGET" \
	--log-to="host=$WORKDIR port=$LOGPORT dbname=smithlog user=$PG_USER" \
	--seed="$SEED" --exclude-catalog --verbose --dump-all-queries) \
	2>"$OUT/sqlsmith.err" | gzip -1 >"$OUT/queries.sql.gz"
RC=${PIPESTATUS[0]}
set -e
ELAPSED=$(( $(date +%s) - START ))
kill "$WATCH_PID" 2>/dev/null || true
WATCH_PID=
echo "== sqlsmith stopped after $ELAPSED s (exit $RC; 124 = stopped by the time limit)"

# what the server counted: calls of nddup functions that returned (a call
# that raised an error is not counted; the counters were reset after the set-up)
sleep 2
pg_sql -d smith -At -F ' ' -c "SELECT funcid::regprocedure, calls FROM pg_stat_user_functions
	WHERE schemaname = 'nddup' AND calls > 0 ORDER BY calls DESC, 1" >"$OUT/function_calls.txt"
pg_sql -d smith -At -c "SELECT oid::regprocedure FROM pg_proc
	WHERE pronamespace = 'nddup'::regnamespace AND prokind = 'f' AND NOT proretset
	AND prorettype <> ALL ('{internal,trigger}'::regtype[])
	AND NOT ('internal'::regtype = ANY (proargtypes))
	AND oid NOT IN (SELECT funcid FROM pg_stat_user_functions WHERE calls > 0)
	ORDER BY 1" >"$OUT/functions_not_called.txt"

PGPORT=$LOGPORT pg_sql -d smithlog -c "\copy (SELECT sqlstate, split_part(msg, E'\n', 1), query FROM error) TO PROGRAM 'gzip -1 >$OUT/errors.tsv.gz'"
cp "$WORKDIR/data.log" "$OUT/server.log"

status=0
python3 - "$OUT" "$ELAPSED" <<'PY' || status=$?
import collections, gzip, re, sys

out, elapsed = sys.argv[1], int(sys.argv[2])

# queries: sqlsmith's last report, else the number dumped; a query ends with
# ";" at the end of a line followed by an unindented line
def dumped_queries(path):
    buf = []
    for line in gzip.open(path, "rt", errors="replace"):
        if buf and buf[-1].rstrip("\n").endswith(";") and line[:1].strip():
            yield "".join(buf)
            buf = []
        buf.append(line)
    if buf:
        yield "".join(buf)
dumped = with_nddup = 0
named = collections.Counter()
for q in dumped_queries(f"{out}/queries.sql.gz"):
    names = set(re.findall(r"\bnddup\.(\w+)\(", q))
    dumped += 1
    with_nddup += bool(names)
    named.update(names)
generated = dumped
for line in open(f"{out}/sqlsmith.err", errors="replace"):
    m = re.match(r"queries: (\d+)$", line)
    if m:
        generated = int(m.group(1))

# errors by SQLSTATE and message class (quoted values and numbers folded);
# internal errors: XX*, or these words outside the connection (a crash is
# counted below), data and syntax classes
def unescape(s):
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t", "r": "\r"}.get(m.group(1), m.group(1)), s)
def msgclass(m):
    m = re.sub(r'"[^"]*"', '"…"', m)
    m = re.sub(r"\b\d+(\.\d+)?\b", "N", m)
    return re.sub(r"^ERROR:\s+", "", m).strip()
classes = collections.Counter()
internal = []
nerrors = 0
for line in gzip.open(f"{out}/errors.tsv.gz", "rt", errors="replace"):
    parts = line.rstrip("\n").split("\t")
    if len(parts) != 3:
        continue
    state, msg = parts[0], unescape(parts[1])
    nerrors += 1
    classes[(state, msgclass(msg))] += 1
    if state.startswith("XX") or (state[:2] not in ("08", "22", "42") and
            re.search(r"unexpected|cache lookup failed|assert", msg, re.I)):
        internal.append((state, msg, unescape(parts[2])))

# crashes in the server log
crash_re = re.compile(r"terminated by signal|was terminated by exception|PANIC:|TRAP:|"
                      r"server process .* exited with exit code [^01]|failed assertion")
crashes = [l.rstrip("\n") for l in open(f"{out}/server.log", errors="replace") if crash_re.search(l)]

# statements seen running 5 s after they started (sqlsmith's timeout is 1 s)
slow = {}
for line in open(f"{out}/slow.tsv", errors="replace"):
    parts = line.rstrip("\n").split("\t")
    if len(parts) == 4:
        key = (parts[0], parts[1])
        slow[key] = (max(int(parts[2]), slow.get(key, (0, ""))[0]), parts[3])

stat_calls = [l.rsplit(None, 1) for l in open(f"{out}/function_calls.txt") if l.strip()]
not_called = [l.strip() for l in open(f"{out}/functions_not_called.txt") if l.strip()]

lines = []
p = lines.append
p(f"duration: {elapsed} s")
p(f"queries: {generated} generated and sent ({generated / max(elapsed, 1):.1f}/s); {dumped} dumped")
p(f"queries calling an nddup function: {with_nddup} ({100 * with_nddup / max(dumped, 1):.1f} %), "
  f"{len(named)} distinct function names")
p(f"nddup functions executed (server count of calls that returned): "
  f"{sum(int(c) for _, c in stat_calls)} calls of {len(stat_calls)} functions; "
  f"{len(not_called)} callable ones never executed (functions_not_called.txt)"
  + (": " + ", ".join(not_called) if 0 < len(not_called) <= 10 else ""))
p(f"errors: {nerrors} ({100 * nerrors / max(generated, 1):.1f} % of queries), "
  f"{len(classes)} classes; top 15:")
for (s, m), n in classes.most_common(15):
    p(f"  {n:8d}  {s}  {m[:110]}")
p(f"internal errors (XX*, 'unexpected', 'cache lookup failed', assertions): {len(internal)}")
for s, m, q in internal[:10]:
    p(f"  {s} {m.splitlines()[0]}")
p(f"statements still running 5 s after their start: {len(slow)}")
for (pid, t), (secs, q) in sorted(slow.items(), key=lambda kv: -kv[1][0])[:5]:
    p(f"  {secs} s: {q[:150]}")
p(f"crashes (server log): {len(crashes)}")
for l in crashes[:10]:
    p("  " + l)
open(f"{out}/summary.txt", "w").write("\n".join(lines) + "\n")
with open(f"{out}/internal_errors.sql", "w") as f:
    for s, m, q in internal:
        f.write(f"-- {s} {m.splitlines()[0]}\n{q};\n\n")
print("\n".join(lines))
sys.exit(1 if crashes or internal or slow else 0)
PY
if [ "$RC" != 124 ]; then
	echo "== sqlsmith stopped early (exit $RC): tail of $OUT/sqlsmith.err"
	tail -5 "$OUT/sqlsmith.err"
	exit 1
fi
echo "== logs and queries in $OUT"
exit $status
