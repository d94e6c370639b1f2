#!/usr/bin/env python3
"""Check META.json against the PGXN Meta Spec 1.0.0 (https://pgxn.org/spec/)
and against the checkout: the required keys and their forms, SemVer
versions, the license names of the spec, the prereq phases and relations,
files that exist, and the version that nddup.control installs.

    scripts/check_meta.py [META.json]     exits non-zero with the problems
"""

import json
import os
import re
import sys

SEMVER = re.compile(r"^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z-]+)?$")
LICENSES = {"agpl_3", "apache_1_1", "apache_2_0", "artistic_1", "artistic_2", "bsd", "freebsd",
            "gfdl_1_2", "gfdl_1_3", "gpl_1", "gpl_2", "gpl_3", "lgpl_2_1", "lgpl_3_0", "mit",
            "mozilla_1_0", "mozilla_1_1", "openssl", "perl_5", "postgresql", "qpl_1_0", "ssleay",
            "sun", "zlib", "open_source", "restricted", "unrestricted", "unknown"}
PHASES = {"configure", "build", "test", "runtime", "develop"}
RELATIONS = {"requires", "recommends", "suggests", "conflicts"}
STATUS = {"stable", "testing", "unstable"}


def check(meta, root):
    """The list of problems of the META.json structure meta, for checkout root."""
    errors = []
    for key in ("name", "abstract", "version", "maintainer", "license", "provides", "meta-spec"):
        if key not in meta:
            errors.append("missing mandatory field '%s'" % key)
    if meta.get("meta-spec", {}).get("version") != "1.0.0":
        errors.append("meta-spec.version is not 1.0.0")
    if not SEMVER.match(str(meta.get("version", ""))):
        errors.append("version %r is not SemVer" % meta.get("version"))
    maint = meta.get("maintainer")
    if not (isinstance(maint, str) and maint) and not (
            isinstance(maint, list) and maint and all(isinstance(m, str) and m for m in maint)):
        errors.append("maintainer must be a string or a list of strings")
    lic = meta.get("license")
    if isinstance(lic, str):
        if lic not in LICENSES:
            errors.append("license %r is not one of the spec's names" % lic)
    elif not (isinstance(lic, (list, dict)) and lic):
        errors.append("license must be a name, a list of names or an object of name: URL")
    for name, ext in meta.get("provides", {}).items():
        for key in ("file", "version"):
            if key not in ext:
                errors.append("provides.%s lacks '%s'" % (name, key))
        if not SEMVER.match(str(ext.get("version", ""))):
            errors.append("provides.%s.version is not SemVer" % name)
        for key in ("file", "docfile"):
            path = ext.get(key)
            if path and not os.path.exists(os.path.join(root, path)):
                errors.append("provides.%s.%s: no file %s" % (name, key, path))
    for phase, rels in meta.get("prereqs", {}).items():
        if phase not in PHASES:
            errors.append("prereqs: unknown phase %r" % phase)
        for rel, reqs in rels.items():
            if rel not in RELATIONS:
                errors.append("prereqs.%s: unknown relation %r" % (phase, rel))
            for req, ver in reqs.items():
                if ver != 0 and not SEMVER.match(str(ver)):
                    errors.append("prereqs.%s.%s.%s: %r is not SemVer" % (phase, rel, req, ver))
    if "release_status" in meta and meta["release_status"] not in STATUS:
        errors.append("release_status %r is not stable, testing or unstable" % meta["release_status"])
    for tag in meta.get("tags", []):
        if not isinstance(tag, str) or not 1 <= len(tag) <= 255:
            errors.append("tag %r is not a string of 1 to 255 characters" % tag)
    # the extension's version (nddup.control) is the distribution's major.minor
    control = os.path.join(root, "nddup.control")
    if os.path.exists(control):
        m = re.search(r"default_version\s*=\s*'([^']*)'", open(control).read())
        if m and not str(meta.get("version", "")).startswith(m.group(1) + "."):
            errors.append("version %s does not match nddup.control's %s" % (meta.get("version"), m.group(1)))
    return errors


def main():
    """Check the file named on the command line (default META.json here)."""
    path = sys.argv[1] if len(sys.argv) > 1 else "META.json"
    errors = check(json.load(open(path)), os.path.dirname(os.path.abspath(path)))
    for e in errors:
        print("%s: %s" % (path, e))
    if not errors:
        print("%s is OK (PGXN Meta Spec 1.0.0)" % path)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
