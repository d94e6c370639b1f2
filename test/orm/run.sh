#!/usr/bin/env bash
# The insert-time recipe driven through a real ORM client: Django (Debian's
# python3-django) over psycopg2, against a private temporary instance (see
# test/orm/django_blog.py).  BUILD=0 skips building and installing
# (scripts/test.sh has done it).  Exits non-zero on any failed check.

source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"
set +e

ensure_packages
[ "${BUILD:-1}" = 1 ] && { build_and_install || exit 1; }
make_workdir
start_instance
pg_sql -c "CREATE DATABASE blog" || exit 1
# Debian's python3 (its dist-packages hold Django), a client of the instance
PGDATABASE=blog /usr/bin/python3 "$NDDUP_ROOT/test/orm/django_blog.py"
