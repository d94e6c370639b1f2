#!/usr/bin/env bash
# Run the SQL examples of README.md and docs/*.md (not docs/reports/) against
# a fresh installation, each page in a database of its own, and compare what
# they print with test/docs/expected/ (see test/docs/doctest.py for the
# markers that skip a block or expect its error).
#   test/docs/run.sh [--accept] [--report-hidden] [PAGE.md...]
#                                              (default: every page)
# --accept rewrites the expected outputs after a deliberate change: review
# the diff.  --report-hidden lists the hidden set-ups and psql variables a
# reader copying a page would miss (runs nothing).  Strict mode is on: a page
# that has any fails (--strict is accepted and changes nothing).  BUILD=0 skips
# building and installing (scripts/test.sh has done it).

source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"

args=(--strict)
pages=()
for a in "$@"; do
	case $a in
		--*) args+=("$a") ;;
		*) pages+=("$(cd "$(dirname "$a")" && pwd)/$(basename "$a")") ;;
	esac
done
if [ ${#pages[@]} = 0 ]; then
	pages=("$NDDUP_ROOT/README.md" "$NDDUP_ROOT"/docs/*.md)
	args+=(--all)
fi
if [[ " ${args[*]} " == *" --report-hidden "* ]]; then
	exec /usr/bin/python3 "$NDDUP_ROOT/test/docs/doctest.py" "${args[@]}" "${pages[@]}"
fi
ensure_packages
[ "${BUILD:-1}" = 1 ] && build_and_install
make_workdir
start_instance
# psql is a client: it runs as the caller (root included), connecting as $PGUSER
/usr/bin/python3 "$NDDUP_ROOT/test/docs/doctest.py" "${args[@]}" "${pages[@]}"
