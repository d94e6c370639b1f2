#!/usr/bin/env bash
# docs/reference.md, generated from a fresh installation (see
# test/reference/generate.py): installs the extension into a private
# temporary instance, generates the page and compares it with the committed
# one; fails when they differ, or when an object has no example or
# description, or an example fails.
#   test/reference/run.sh           check (scripts/test.sh runs this)
#   test/reference/run.sh --write   regenerate docs/reference.md (after any
#                                   change to the SQL surface; review the diff)
# BUILD=0 skips building and installing (scripts/test.sh has done it).

source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"
set +e

ensure_packages
[ "${BUILD:-1}" = 1 ] && { build_and_install || exit 1; }
make_workdir
start_instance
pg_sql -c "CREATE DATABASE reference" && PGDATABASE=reference pg_sql -c "CREATE EXTENSION nddup" || exit 1
page=$NDDUP_ROOT/docs/reference.md
# a client of the instance: it runs as the caller, connecting as $PGUSER
PGDATABASE=reference /usr/bin/python3 "$NDDUP_ROOT/test/reference/generate.py" --out "$WORKDIR/reference.md"
rc=$?
if [ "${1:-}" = --write ]; then
	cp "$WORKDIR/reference.md" "$page" && echo "== wrote docs/reference.md"
	exit $rc
fi
if ! diff -u "$page" "$WORKDIR/reference.md" > "$WORKDIR/reference.diff"; then
	head -100 "$WORKDIR/reference.diff"
	echo "== docs/reference.md differs from what the installation says: run test/reference/run.sh --write and review the diff"
	rc=1
fi
[ $rc = 0 ] && echo "== docs/reference.md agrees with the installation"
exit $rc
