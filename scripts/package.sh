#!/usr/bin/env bash
# Build nddup's Debian packages the way Debian's PostgreSQL packagers build
# extensions (pg_buildext, one binary package postgresql-MAJOR-nddup per
# installed PostgreSQL major), from the release tarball of this checkout,
# without network access beyond Debian's own packages; then install the
# package into a clean temporary cluster, run CREATE EXTENSION and the README
# tour, time the install and CREATE EXTENSION, and run lintian.
#
#   scripts/package.sh [--no-test]
#
# The packaging files are scripts/debian/ (copied to debian/ in the build
# directory).  Output: $NDDUP_PACKAGE_DIR (default /tmp/nddup-package): the
# release tarball, the source package and the .deb files.  The package is
# installed with dpkg into the system, or, when NDDUP_DESTDIR is set, with
# dpkg into a private root that the temporary instance reaches through
# Debian's extension_destdir (the system is not touched).
# The package build does not run the regression tests (DEB_BUILD_OPTIONS
# nocheck: see docs/packaging.md, which also explains the lintian tags that
# remain); scripts/test.sh runs them.

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

TEST=1
[ "${1:-}" = --no-test ] && TEST=0
OUT=${NDDUP_PACKAGE_DIR:-/tmp/nddup-package}
T0=$(date +%s.%N)

# Print a line with the seconds since the start.
say() {
	printf '== [%5.1f s] %s\n' "$(echo "$(date +%s.%N) - $T0" | bc)" "$*"
}

say "building the Debian package of $NDDUP_ROOT into $OUT"
ensure_build_packages dpkg-dev debhelper postgresql-server-dev-all lintian

# the version: META.json's; the changelog's maintainer and date: the
# environment's DEBFULLNAME/DEBEMAIL or the last commit's committer, and its date
VERSION=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["version"])' "$NDDUP_ROOT/META.json")
python3 "$NDDUP_ROOT/scripts/check_meta.py" "$NDDUP_ROOT/META.json" || exit 1
MAINT_NAME=${DEBFULLNAME:-$(git -C "$NDDUP_ROOT" log -1 --format=%cn)}
MAINT_MAIL=${DEBEMAIL:-$(git -C "$NDDUP_ROOT" log -1 --format=%ce)}
DATE=$(git -C "$NDDUP_ROOT" log -1 --format=%cD)
DIST=$( . /etc/os-release && echo "${VERSION_CODENAME:-unstable}")

# the release tarball (make dist), of the committed tree, or of the working
# tree's tracked files when they differ from it (said so)
REF=HEAD
if [ -n "$(git -C "$NDDUP_ROOT" status --porcelain --untracked-files=no)" ]; then
	REF=$(git -C "$NDDUP_ROOT" stash create)
	say "note: the checkout has uncommitted changes; packaging its tracked files as they are"
fi
rm -rf "$OUT" && mkdir -p "$OUT"
make -C "$NDDUP_ROOT" -s dist DIST_REF="$REF" >/dev/null
mv "$NDDUP_ROOT/nddup-$VERSION.tar.gz" "$OUT/"
say "release tarball: $OUT/nddup-$VERSION.tar.gz"

# the Debian source tree: the tarball as the upstream source plus debian/
cp "$OUT/nddup-$VERSION.tar.gz" "$OUT/nddup_$VERSION.orig.tar.gz"
tar -C "$OUT" -xzf "$OUT/nddup_$VERSION.orig.tar.gz"
SRC=$OUT/nddup-$VERSION
cp -r "$NDDUP_ROOT/scripts/debian" "$SRC/debian"
sed -i "s|@MAINTAINER@|$MAINT_NAME <$MAINT_MAIL>|" "$SRC/debian/control.in"
cat >"$SRC/debian/changelog" <<CHANGELOG
nddup ($VERSION-1) $DIST; urgency=medium

  * Package of nddup $VERSION (see CHANGELOG.md).

 -- $MAINT_NAME <$MAINT_MAIL>  $DATE
CHANGELOG
# one binary package per installed PostgreSQL major
export PG_SUPPORTED_VERSIONS=installed
(cd "$SRC" && pg_buildext updatecontrol >/dev/null)
say "packages: $(grep '^Package:' "$SRC/debian/control" | cut -d' ' -f2 | tr '\n' ' ')"

say "dpkg-buildpackage (log: $OUT/build.log)"
if ! (cd "$SRC" && DEB_BUILD_OPTIONS="parallel=$(nproc) nocheck" dpkg-buildpackage -us -uc >"$OUT/build.log" 2>&1); then
	tail -40 "$OUT/build.log"
	say "package build FAILED"
	exit 1
fi
CHANGES=$(ls "$OUT"/nddup_"$VERSION"-1_*.changes)
say "built: $(cd "$OUT" && ls *.deb | tr '\n' ' ')"

say "lintian"
lintian --display-info "$CHANGES" >"$OUT/lintian.txt" 2>"$OUT/lintian.err" || true   # the tags are judged below
if [ -s "$OUT/lintian.txt" ]; then
	sed 's/^/   /' "$OUT/lintian.txt"
else
	echo "   no tags"
fi
# every tag must be explained in docs/packaging.md
unexplained=0
for tag in $(awk '/^[EWIPX]: / {print $3}' "$OUT/lintian.txt" | sort -u); do
	grep -q "\`$tag\`" "$NDDUP_ROOT/docs/packaging.md" || { echo "   not explained in docs/packaging.md: $tag"; unexplained=1; }
done
grep -q '^E:' "$OUT/lintian.txt" && { say "lintian reports errors"; exit 1; }
[ $unexplained = 0 ] || exit 1
[ $TEST = 1 ] || { say "done (not installed: --no-test)"; exit 0; }

# a clean cluster; then the package installed into it and the extension created
DEB=$(ls "$OUT"/postgresql-"$PG_MAJOR"-nddup_"$VERSION"-1_*.deb)
make_workdir
if [ -n "${NDDUP_DESTDIR:-}" ]; then
	ROOT=$WORKDIR/root
	mkdir -p "$ROOT/var/lib/dpkg/info" "$ROOT/var/lib/dpkg/updates"
	touch "$ROOT/var/lib/dpkg/status"
	install_deb() {
		# the private root's dpkg database is empty: the dependencies are not checked there
		as_root dpkg --root="$ROOT" --force-depends --force-script-chrootless -i "$DEB" \
			>"$OUT/install.log" 2>&1 && as_root chmod -R a+rX "$ROOT"
	}
	export NDDUP_DESTDIR=$ROOT
	where="with dpkg into the private root $ROOT (extension_destdir)"
else
	install_deb() { as_root dpkg -i "$DEB" >/dev/null; }
	where="with dpkg into the system"
fi
start_instance
say "clean cluster on port $PGPORT; installing $(basename "$DEB") $where"
t=$(date +%s.%N)
install_deb || { say "package install FAILED"; exit 1; }
t_install=$(echo "$(date +%s.%N) - $t" | bc)
t=$(date +%s.%N)
pg_sql -c "CREATE EXTENSION nddup;" || { say "CREATE EXTENSION FAILED"; exit 1; }
t_create=$(echo "$(date +%s.%N) - $t" | bc)
pg_sql -At -c "SELECT 'installed: nddup ' || extversion FROM pg_extension WHERE extname = 'nddup'"
pg_sql -c "DROP EXTENSION nddup;"
printf '== package install %.2f s + CREATE EXTENSION %.2f s = %.2f s (target < 10 s)\n' \
	"$t_install" "$t_create" "$(echo "$t_install + $t_create" | bc)"

say "the README tour against the installed package"
python3 "$NDDUP_ROOT/test/docs/doctest.py" "$NDDUP_ROOT/README.md" || { say "README tour FAILED"; exit 1; }
[ "$(echo "$t_install + $t_create < 10" | bc)" = 1 ] || { say "install + CREATE EXTENSION over 10 s"; exit 1; }
say "done: $DEB"
