#!/usr/bin/env bash
# The insert-time recipe driven through real clients, against a private
# temporary instance: Django over psycopg2 (test/orm/django_blog.py),
# SQLAlchemy 1.4 over psycopg2 (sqlalchemy_blog.py), psycopg 3 and psycopg2
# alone (psycopg_blog.py); Debian's python3-django, python3-sqlalchemy,
# python3-psycopg and python3-psycopg2.  Each client gets a database of its
# own.  BUILD=0 skips building and installing (scripts/test.sh has done it).
# Exits non-zero on any failed check.

source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"
set +e

ensure_packages
[ "${BUILD:-1}" = 1 ] && { build_and_install || exit 1; }
make_workdir
start_instance
failed=()
for client in django sqlalchemy psycopg; do
	echo "== $client"
	pg_sql -c "CREATE DATABASE blog_$client" || exit 1
	# Debian's python3 (its dist-packages hold the clients), a client of the instance
	PGDATABASE=blog_$client PYTHONDONTWRITEBYTECODE=1 /usr/bin/python3 "$NDDUP_ROOT/test/orm/${client}_blog.py" ||
		failed+=("$client")
done
echo "orm: 3 clients, ${#failed[@]} failed${failed:+ (${failed[*]})}"
[ ${#failed[@]} = 0 ]
