#!/usr/bin/env bash
# Random SQL against nddup: run sqlsmith (Debian's package, 1.4) for DURATION
# seconds against a private temporary PostgreSQL instance holding a database
# with the extension, tables of every nddup type filled from the sample corpus
# in data/, every index kind and two tables with the duplicate trigger
# (test/reliability/sqlsmith_schema.sql), then check the server log for
# crashes and print a summary.  Not part of CI: docs/sqlsmith.md has the
# command and the last recorded run.
#
# sqlsmith connects as a role "smith" that sees only the test tables and, for
# functions, only nddup's and a few built-ins (see the schema file).  Every
# statement it sends is rolled back.  Errors go to a second small instance
# through sqlsmith's --log-to (so they survive a crash of the first), the
# generated queries to $SQLSMITH_OUT/queries.sql.gz, and the server counts
# the calls of every nddup function (track_functions = all).
#
# Environment:
#   DURATION       seconds of random queries (default 1800)
#   SEED           sqlsmith's random seed (default 20241124)
#   SQLSMITH_OUT   where the logs and the summary are kept (default
#                  /tmp/nddup-sqlsmith; emptied first)
#   NDDUP_DESTDIR  install the extension there instead of the system (lib.sh)
#
# Usage: test/reliability/sqlsmith.sh [--no-install]
# Exits 1 when the server crashed, an assertion failed or nddup raised an
# internal error (SQLSTATE XX000-XX002), or when sqlsmith stopped early.
set -euo pipefail

source "$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/scripts/lib.sh"

DURATION=${DURATION:-1800}
SEED=${SEED:-20241124}
OUT=${SQLSMITH_OUT:-/tmp/nddup-sqlsmith}
INSTALL=1
while [ $# -gt 0 ]; do
	case "$1" in
		--no-install) INSTALL=0 ;;
		*) sed -n '/^# Usage/,/^# internal/p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
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

# stop both instances, keep their logs, remove the work directory
stop_all() {
	local d
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
track_functions = all"
# the error log's instance
init_instance "$WORKDIR/logdb" "$LOGPORT" "shared_buffers = 16MB"

echo "== machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(postgres --version), sqlsmith $(dpkg-query -W -f='${Version}' sqlsmith)"
echo "== building the test database (extension, tables from data/, indexes, triggers)"
pg_sql -c "CREATE DATABASE smith"
cp "$NDDUP_ROOT/data/debian-sample.tsv.gz" "$WORKDIR/sample.tsv.gz"
chmod 644 "$WORKDIR/sample.tsv.gz"
pg_sql -d smith -v sample="$WORKDIR/sample.tsv.gz" -f "$NDDUP_ROOT/test/reliability/sqlsmith_schema.sql"
pg_sql -d smith -At -F ' ' -c "SELECT 'corpus.' || relname, reltuples::bigint FROM pg_class
	WHERE relnamespace = 'corpus'::regnamespace AND relkind = 'r' ORDER BY 1" | sed 's/^/   /'
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
echo "== sqlsmith stopped after $ELAPSED s (exit $RC; 124 = stopped by the time limit)"

# what the server counted: calls of nddup functions (executed, not erroring)
pg_sql -d smith -At -F ' ' -c "SELECT funcname, calls FROM pg_stat_user_functions
	WHERE schemaname = 'nddup' ORDER BY calls DESC, funcname" >"$OUT/function_calls.txt"
pg_sql -d smith -At -c "SELECT DISTINCT proname FROM pg_proc
	WHERE pronamespace = 'nddup'::regnamespace AND prokind = 'f' AND NOT proretset
	AND prorettype <> ALL ('{internal,trigger}'::regtype[])
	AND NOT ('internal'::regtype = ANY (proargtypes))
	AND proname NOT IN (SELECT funcname FROM pg_stat_user_functions WHERE schemaname = 'nddup')
	ORDER BY 1" >"$OUT/functions_not_called.txt"

PGPORT=$LOGPORT pg_sql -d smithlog -c "\copy (SELECT sqlstate, split_part(msg, E'\n', 1), query FROM error) TO '$OUT/errors.tsv'"
cp "$WORKDIR/data.log" "$OUT/server.log"

status=0
python3 - "$OUT" "$ELAPSED" <<'PY' || status=$?
import collections, gzip, re, sys

out, elapsed = sys.argv[1], int(sys.argv[2])

# queries: sqlsmith's last report, else the number dumped
text = gzip.open(f"{out}/queries.sql.gz", "rt", errors="replace").read()
queries = [q for q in re.split(r";\n(?=\S|$)", text) if q.strip()]
reports = re.findall(r"^queries: (\d+)$", open(f"{out}/sqlsmith.err", errors="replace").read(), re.M)
generated = int(reports[-1]) if reports else len(queries)
calls = collections.Counter()
with_nddup = 0
for q in queries:
    names = set(re.findall(r"\bnddup\.(\w+)\(", q))
    with_nddup += bool(names)
    calls.update(names)

# errors by SQLSTATE and message class (quoted values and numbers folded)
def unescape(s):
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t", "r": "\r"}.get(m.group(1), m.group(1)), s)
errors = []
for line in open(f"{out}/errors.tsv", errors="replace"):
    parts = line.rstrip("\n").split("\t")
    if len(parts) == 3:
        errors.append((parts[0], unescape(parts[1]), unescape(parts[2])))
def msgclass(m):
    m = re.sub(r'"[^"]*"', '"…"', m)
    m = re.sub(r"\b\d+(\.\d+)?\b", "N", m)
    return re.sub(r"^ERROR:\s+", "", m).strip()
classes = collections.Counter((s, msgclass(m)) for s, m, _ in errors)
internal = [(s, m, q) for s, m, q in errors
            if s.startswith("XX") or re.search(r"unexpected|cache lookup failed|assert", m, re.I)]

# crashes in the server log
log = open(f"{out}/server.log", errors="replace").read().splitlines()
crash_re = re.compile(r"terminated by signal|was terminated by exception|PANIC:|TRAP:|"
                      r"server process .* exited with exit code [^01]|failed assertion|"
                      r"terminating any other active server processes")
crashes = [l for l in log if crash_re.search(l)]

stat_calls = [l.split() for l in open(f"{out}/function_calls.txt") if l.strip()]
not_called = [l.strip() for l in open(f"{out}/functions_not_called.txt") if l.strip()]

lines = []
p = lines.append
p(f"duration: {elapsed} s")
p(f"queries: {generated} generated and sent ({generated / max(elapsed, 1):.1f}/s); "
  f"{len(queries)} dumped")
p(f"queries calling an nddup function: {with_nddup} ({100 * with_nddup / max(len(queries), 1):.1f} %), "
  f"{len(calls)} distinct functions named")
p(f"nddup functions executed (server count, calls that returned): "
  f"{sum(int(c) for _, c in stat_calls)} calls of {len(stat_calls)} functions; "
  f"callable but never executed: {', '.join(not_called) if not_called else 'none'}")
p(f"errors: {len(errors)} ({100 * len(errors) / max(generated, 1):.1f} % of queries), "
  f"{len(classes)} classes; top 15:")
for (s, m), n in classes.most_common(15):
    p(f"  {n:8d}  {s}  {m[:110]}")
p(f"internal errors (XX*, 'unexpected', 'cache lookup failed', assertions): {len(internal)}")
for s, m, q in internal[:10]:
    p(f"  {s} {m}")
p(f"crashes (server log): {len(crashes)}")
for l in crashes[:10]:
    p("  " + l)
open(f"{out}/summary.txt", "w").write("\n".join(lines) + "\n")
with open(f"{out}/internal_errors.sql", "w") as f:
    for s, m, q in internal:
        f.write(f"-- {s} {m}\n{q};\n\n")
print("\n".join(lines))
sys.exit(1 if crashes or internal else 0)
PY
if [ "$RC" != 124 ]; then
	echo "== sqlsmith stopped early (exit $RC): tail of $OUT/sqlsmith.err"
	tail -5 "$OUT/sqlsmith.err"
	exit 1
fi
echo "== logs and queries in $OUT"
exit $status
