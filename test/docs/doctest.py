#!/usr/bin/env python3
"""Run the SQL examples of README.md and docs/*.md against a fresh database.

Every ```sql block of a page runs, in page order, in a database of its own
(the page's blocks share it, so a later block may use a table an earlier one
created), with psql's ON_ERROR_STOP on; what psql prints (statements echoed,
results, notices, errors) is compared with test/docs/expected/<page>.out.
The extension is created first unless the page creates it itself.

A block is marked by an HTML comment (invisible when the page is rendered) on
the line just before its opening fence:

    <!-- doctest: skip - reason -->     not run (a signature list, a fragment)
    <!-- doctest: error -->             runs; the errors it shows are expected
                                        (they are part of the compared output)
    <!-- doctest: ignore-output -->     runs and must succeed; output not compared

and a page may hold hidden set-up SQL, run where it stands (a table that the
page's examples assume, psql variables such as :doc):

    <!-- doctest-setup
    CREATE TABLE archive (id bigint, fp simhash64);
    \\set doc '''the quick brown fox'''
    -->

A reader copying a page sees neither: what a hidden set-up creates is missing
and psql's variables (:doc, :'text', \\set, \\gset) do not exist outside
psql.  --report-hidden lists, page by page, each hidden set-up and each psql
variable in a ```sql block (run nothing); --strict fails a page that has any
(its set-up belongs in a visible block, its values in plain SQL).

Usage (the instance comes from the environment: PGHOST, PGPORT, PGUSER):
    doctest.py [--accept] [--list] [--strict] [--report-hidden] PAGE.md...
--accept writes the expected files instead of comparing; --list prints the
SQL that would run.  Exits non-zero when a page fails.
"""

import argparse
import difflib
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
EXPECTED = os.path.join(HERE, "expected")

MARKER = re.compile(r"^<!--\s*doctest:\s*(skip|error|ignore-output)\b.*-->\s*$")
FENCE = re.compile(r"^\s*(```+|~~~+)\s*([A-Za-z0-9_+-]*)")
# psql's own syntax in SQL: a variable's use (:name, :'name', :"name"), its
# definition (\\set, \\gset, ...); found outside comments, string literals and
# quoted identifiers (a '::' cast is SQL)
PSQL_SYNTAX = re.compile(r"""(?P<skip>--[^\n]*|::|'(?:[^']|'')*'|"(?:[^"]|"")*"|\$(?P<tag>(?:[A-Za-z_]\w*)?)\$[\s\S]*?\$(?P=tag)\$)"""
                         r"""|(?P<var>:(?:'[A-Za-z_]\w*'|"[A-Za-z_]\w*"|[A-Za-z_]\w*))"""
                         r"""|(?P<meta>\\(?:set|unset|gset|getenv|setenv)\b)""")
CREATES_EXTENSION = re.compile(r"^\s*CREATE\s+EXTENSION\s+(IF\s+NOT\s+EXISTS\s+)?nddup\b",
                               re.IGNORECASE | re.MULTILINE)


class PageError(Exception):
    """A page that cannot be turned into a script (an unterminated block)."""


def page_name(path):
    """The name of a page's expected file: README, trigger, ..."""
    return os.path.splitext(os.path.basename(path))[0]


def parts(page):
    """The page's hidden set-ups and code blocks, in order: (line, lang, marker,
    text), lang "setup" for a hidden set-up, marker the doctest marker before a
    block (or None)."""
    path = os.path.relpath(page, ROOT)
    with open(page, encoding="utf-8") as f:
        lines = f.read().split("\n")
    i = 0
    marker = None
    while i < len(lines):
        line = lines[i]
        if line.strip().startswith("<!-- doctest-setup"):
            start = i + 1
            j = start
            while j < len(lines) and lines[j].strip() != "-->":
                j += 1
            if j == len(lines):
                raise PageError("%s:%d: doctest-setup comment without a closing '-->' line" % (path, i + 1))
            yield i + 1, "setup", None, "\n".join(lines[start:j])
            i = j + 1
            continue
        m = MARKER.match(line.strip())
        if m:
            marker = m.group(1)
            i += 1
            continue
        fence = FENCE.match(line)
        if fence:
            opening, lang = fence.group(1), fence.group(2).lower()
            j = i + 1
            while j < len(lines) and not lines[j].lstrip().startswith(opening[:3]):
                j += 1
            if j == len(lines):
                raise PageError("%s:%d: code block without a closing fence" % (path, i + 1))
            yield i + 1, lang, marker, "\n".join(lines[i + 1:j])
            marker = None
            i = j + 1
            continue
        if line.strip():
            marker = None
        i += 1


def extract(page):
    """The page's runnable chunks: (line, kind, sql), kind in run/error/quiet/setup."""
    path = os.path.relpath(page, ROOT)
    chunks = []
    for line, lang, marker, text in parts(page):
        if lang == "setup":
            chunks.append((line, "setup", text))
        elif lang == "sql" and marker != "skip":
            check_complete(path, line, text)
            chunks.append((line, {"error": "error", "ignore-output": "quiet"}.get(marker, "run"), text))
    return chunks


def hidden(page):
    """What a reader copying the page would miss: [(line, description)] for each
    hidden set-up and each psql variable in a ```sql block (run or not)."""
    found = []
    for line, lang, _, text in parts(page):
        if lang == "setup":
            found.append((line, "hidden set-up (<!-- doctest-setup -->): make it a visible ```sql block"))
        elif lang == "sql":
            for m in PSQL_SYNTAX.finditer(text):
                at = line + 1 + text.count("\n", 0, m.start())
                if m.group("var"):
                    found.append((at, "psql variable %s: write the value in plain SQL" % m.group("var")))
                elif m.group("meta"):
                    found.append((at, "psql meta-command %s: write plain SQL" % m.group("meta")))
    return found


def check_complete(path, line, sql):
    """A block must end its last statement (a ';' or a psql meta-command)."""
    body = [l for l in (re.sub(r"--.*$", "", l).rstrip() for l in sql.split("\n")) if l.strip()]
    if body and not (body[-1].endswith(";") or body[-1].lstrip().startswith("\\")):
        raise PageError("%s:%d: the block's last statement has no ';' (it would run into the next "
                        "block); end it, or mark the block <!-- doctest: skip - reason -->" % (path, line))


def script(path, chunks):
    """The psql script of a page: each chunk headed by a comment naming its line."""
    rel = os.path.relpath(path, ROOT)
    out = []
    # blocks are named by their number, not their line: prose edits above a
    # block do not change the expected output
    for number, (line, kind, sql) in enumerate(chunks, 1):
        label = {"run": "", "error": " (errors expected)", "quiet": " (output not compared)",
                 "setup": " (hidden set-up)"}[kind]
        out.append("-- %s, block %d%s" % (rel, number, label))
        if kind == "error":
            out += ["\\set ON_ERROR_STOP 0", sql, "\\set ON_ERROR_STOP 1"]
        elif kind == "quiet":
            out += ["\\o /dev/null", sql, "\\o"]
        else:
            out.append(sql)
    return "\n".join(out) + "\n"


def psql(database, args, stdin=None):
    """Run psql on a database; (exit code, stdout and stderr merged)."""
    env = dict(os.environ, PGTZ="UTC", PGDATESTYLE="ISO, MDY", PGOPTIONS="-c lc_messages=C")
    proc = subprocess.run(["psql", "-X", "-q", "-d", database] + args, input=stdin,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env,
                          universal_newlines=True)
    return proc.returncode, proc.stdout


def run_page(path, accept, strict=False):
    """Run one page in a fresh database; True when it passes."""
    name = page_name(path)
    if strict:
        found = hidden(path)
        if found:
            rel = os.path.relpath(path, ROOT)
            print("== %s: %d things a reader copying the page would miss (--strict):" % (rel, len(found)))
            for line, what in found:
                print("%s:%d: %s" % (rel, line, what))
            return False
    chunks = extract(path)
    if not chunks:
        print("== %s: no SQL examples" % os.path.relpath(path, ROOT))
        return True
    text = script(path, chunks)
    database = "doctest_" + re.sub(r"[^a-z0-9_]", "_", name.lower())
    psql("postgres", ["-c", 'DROP DATABASE IF EXISTS "%s"' % database])
    rc, out = psql("postgres", ["-v", "ON_ERROR_STOP=1", "-c", 'CREATE DATABASE "%s"' % database])
    if rc != 0:
        print(out)
        return False
    if not CREATES_EXTENSION.search("\n".join(sql for _, kind, sql in chunks)):
        rc, out = psql(database, ["-v", "ON_ERROR_STOP=1", "-c", "CREATE EXTENSION nddup"])
        if rc != 0:
            print(out)
            return False
    rc, out = psql(database, ["-a", "-v", "ON_ERROR_STOP=1"], stdin=text)
    psql("postgres", ["-c", 'DROP DATABASE IF EXISTS "%s"' % database])
    rel = os.path.relpath(path, ROOT)
    if rc != 0:
        blocks = re.findall(r"^-- %s, block (\d+)" % re.escape(rel), out, re.MULTILINE)
        line = chunks[int(blocks[-1]) - 1][0] if blocks else 0
        print("== %s:%d: an example failed (psql exit %d); the end of its output:" % (rel, line, rc))
        print("\n".join(out.rstrip("\n").split("\n")[-25:]))
        return False
    expected_path = os.path.join(EXPECTED, name + ".out")
    if accept:
        with open(expected_path, "w", encoding="utf-8") as f:
            f.write(out)
        print("== %s: %d blocks, wrote %s" % (rel, len(chunks), os.path.relpath(expected_path, ROOT)))
        return True
    try:
        with open(expected_path, encoding="utf-8") as f:
            expected = f.read()
    except FileNotFoundError:
        print("== %s: no expected output %s (run test/docs/run.sh --accept %s)"
              % (rel, os.path.relpath(expected_path, ROOT), rel))
        return False
    if out != expected:
        print("== %s: the output differs from %s:" % (rel, os.path.relpath(expected_path, ROOT)))
        sys.stdout.writelines(list(difflib.unified_diff(
            expected.splitlines(True), out.splitlines(True), "expected", "actual"))[:200])
        return False
    print("== %s: %d blocks, ok" % (rel, len(chunks)))
    return True


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--accept", action="store_true", help="write the expected outputs")
    parser.add_argument("--list", action="store_true", help="print the scripts, run nothing")
    parser.add_argument("--strict", action="store_true",
                        help="fail a page with a hidden set-up or a psql variable")
    parser.add_argument("--report-hidden", action="store_true",
                        help="list the hidden set-ups and psql variables, run nothing")
    parser.add_argument("--all", action="store_true", help="the pages are all pages: name stale expected files")
    parser.add_argument("pages", nargs="+")
    args = parser.parse_args()
    if args.report_hidden:
        total = 0
        for page in args.pages:
            rel = os.path.relpath(page, ROOT)
            found = hidden(page)
            total += len(found)
            for line, what in found:
                print("%s:%d: %s" % (rel, line, what))
        print("docs: %d pages, %d hidden set-ups and psql variables" % (len(args.pages), total))
        return 0
    failed = []
    for page in args.pages:
        try:
            if args.list:
                sys.stdout.write(script(page, extract(page)))
                continue
            if not run_page(page, args.accept, args.strict):
                failed.append(page)
        except PageError as e:
            print("== %s" % e)
            failed.append(page)
    failed = [os.path.relpath(p, ROOT) for p in failed]
    if args.all:
        names = {page_name(p) + ".out" for p in args.pages}
        for stale in sorted(set(os.listdir(EXPECTED)) - names):
            print("== %s has no page any more: remove it" % os.path.join("test/docs/expected", stale))
            failed.append(stale)
    print("docs: %d pages, %d failed%s" % (len(args.pages), len(failed),
                                         " (%s)" % ", ".join(failed) if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
