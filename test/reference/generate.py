#!/usr/bin/env python3
"""Generate docs/reference.md from an installed nddup and check what it says.

Reads the catalog of a database where the extension is installed (types,
functions with their defaults, aggregates, operators, casts, operator classes,
the nddup.* settings), the COMMENT ON of each object (sql/install), the
options of each operator class from the C function that declares them (every
bound is then tried with CREATE INDEX, so the page cannot disagree with the
code), the section of each object from the install fragment that creates it,
and one example per object from test/reference/examples.sql, which it runs and
whose result it prints.  The prose around the tables is
test/reference/intro.md.

    generate.py --out FILE        (connection from PGHOST, PGPORT, PGUSER, PGDATABASE)

Exits non-zero, after writing FILE, when an object has no example or an
example fails, or when an option bound does not behave as the code says.
"""

import argparse
import glob
import io
import os
import re
import sys

import psycopg2

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

MEMBERS = """
    SELECT objid FROM pg_depend
    WHERE refclassid = 'pg_extension'::regclass AND deptype = 'e' AND classid = %s::regclass
      AND refobjid = (SELECT oid FROM pg_extension WHERE extname = 'nddup')
"""

problems = []


def problem(text):
    """Record something the page cannot vouch for; the run fails at the end."""
    problems.append(text)
    print("reference: " + text, file=sys.stderr)


# ---------------------------------------------------------------- sources


def fragments():
    """(file, title, text) of each install fragment, in order."""
    out = []
    for path in sorted(glob.glob(os.path.join(ROOT, "sql", "install", "*.sql"))):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        header = []
        for line in text.split("\n"):
            if not line.startswith("--"):
                break
            header.append(line[2:].strip())
        head = " ".join(header)
        m = re.search(r"nddup install script(?:, part [\w.]+)?:\s*(.*?)(?:\s*\(|\.\s|\.$|:\s|$)", head)
        title = m.group(1) if m else os.path.basename(path)
        out.append((os.path.basename(path), title[:1].upper() + title[1:], text))
    return out


def object_sections(frags):
    """Map ('function', name) etc. to the fragment index that creates it."""
    where = {}
    ident = r"(?:@extschema@\.)?([\w\"]+(?:\s+precision)?(?:\[\])?)"
    for i, (_, _, text) in enumerate(frags):
        for kind, pattern in (("function", r"CREATE\s+(?:OR\s+REPLACE\s+)?FUNCTION\s+@extschema@\.(\w+)\s*\("),
                              ("function", r"CREATE\s+AGGREGATE\s+@extschema@\.(\w+)\s*\("),
                              ("type", r"CREATE\s+TYPE\s+@extschema@\.(\w+)"),
                              ("opclass", r"CREATE\s+OPERATOR\s+CLASS\s+@extschema@\.(\w+)")):
            for m in re.finditer(pattern, text):
                where.setdefault((kind, m.group(1)), i)
        for m in re.finditer(r"CREATE\s+OPERATOR\s+@extschema@\.(\S+)\s*\(\s*LEFTARG\s*=\s*" + ident
                             + r"\s*,\s*RIGHTARG\s*=\s*" + ident, text):
            where.setdefault(("operator", m.group(1), m.group(2), m.group(3)), i)
        for m in re.finditer(r"CREATE\s+CAST\s*\(\s*" + ident + r"\s+AS\s+" + ident + r"\s*\)", text):
            where.setdefault(("cast", m.group(1), m.group(2)), i)
    return where


def read_examples():
    """Fixture SQL and {key: statement} from examples.sql."""
    path = os.path.join(HERE, "examples.sql")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    parts = re.split(r"^-- @ (.+)$", text, flags=re.MULTILINE)
    fixture = parts[0]
    examples = {}
    for key, body in zip(parts[1::2], parts[2::2]):
        stmt = "\n".join(l for l in body.strip().split("\n") if not l.startswith("--")).strip()
        key = key.strip()
        if key in examples:
            problem("examples.sql: two examples for %s" % key)
        examples[key] = stmt.rstrip(";").strip()
    return fixture, examples


C_CALL = re.compile(r"add_local_(int|real|bool|enum)_reloption\s*\(")


def c_sources():
    """The text of every C file and header under src/."""
    out = {}
    for path in glob.glob(os.path.join(ROOT, "src", "**", "*.[ch]"), recursive=True):
        with open(path, encoding="utf-8", errors="replace") as f:
            out[path] = f.read()
    return out


def c_args(text, start):
    """The arguments of the C call whose '(' is at start, split at depth 0."""
    args, depth, cur, i, quote = [], 0, "", start + 1, None
    while i < len(text):
        ch = text[i]
        if quote:
            cur += ch
            if ch == "\\":
                cur += text[i + 1]
                i += 1
            elif ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
            cur += ch
        elif ch in "([{":
            depth += 1
            cur += ch
        elif ch in ")]}":
            if depth == 0:
                args.append(cur.strip())
                return args
            depth -= 1
            cur += ch
        elif ch == "," and depth == 0:
            args.append(cur.strip())
            cur = ""
        else:
            cur += ch
        i += 1
    return args


def c_value(expr, sources, depth=0):
    """A C constant expression resolved through #define (numbers, strings, names)."""
    expr = expr.strip()
    if expr.startswith('"'):
        return "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', expr))
    if re.fullmatch(r"[-+]?[0-9.]+[fF]?", expr):
        return float(expr.rstrip("fF")) if "." in expr else int(expr)
    if depth < 5 and re.fullmatch(r"\w+", expr):
        for text in sources.values():
            m = re.search(r"^#define\s+%s\s+(.+?)\s*(?:/\*.*)?$" % re.escape(expr), text, re.MULTILINE)
            if m:
                return c_value(m.group(1), sources, depth + 1)
    return expr


def opclass_options(csymbol, sources):
    """The options an opclass's options function declares: [(name, kind, desc, default, min, max, values)]."""
    for text in sources.values():
        m = re.search(r"^%s\s*\(PG_FUNCTION_ARGS\)\s*\{" % re.escape(csymbol), text, re.MULTILINE)
        if not m:
            continue
        end = text.find("\n}", m.end())
        body = text[m.end():end]
        options = []
        for call in C_CALL.finditer(body):
            kind = call.group(1)
            args = c_args(body, call.end() - 1)
            name, desc = c_value(args[1], sources), c_value(args[2], sources)
            if kind in ("int", "real"):
                options.append((name, kind, desc, c_value(args[3], sources),
                                c_value(args[4], sources), c_value(args[5], sources), None))
            elif kind == "bool":
                options.append((name, kind, desc, c_value(args[3], sources), None, None, None))
            else:
                values = enum_values(args[3], sources)
                default = c_value(args[4], sources)
                default = next((v for v, const in values if c_value(const, sources) == default), default)
                options.append((name, kind, desc, default, None, None, [v for v, _ in values]))
        return options
    problem("the C function %s (operator class options) was not found under src/" % csymbol)
    return []


def enum_values(array, sources):
    """[(string, constant)] of a relopt_enum_elt_def array."""
    for text in sources.values():
        m = re.search(r"relopt_enum_elt_def\s+%s\s*\[\]\s*=\s*\{(.*?)\};" % re.escape(array), text, re.S)
        if m:
            return re.findall(r'\{\s*"([^"]*)"\s*,\s*(\w+)\s*\}', m.group(1))
    problem("the enum %s was not found under src/" % array)
    return []


# ---------------------------------------------------------------- database


def query(cur, sql, args=None):
    cur.execute(sql, args)
    return cur.fetchall()


def run_example(conn, stmt):
    """(shown result, error) of one example, run in a transaction rolled back after."""
    cur = conn.cursor()
    try:
        if re.match(r"\s*(SELECT|VALUES|WITH|TABLE)\b", stmt, re.IGNORECASE) and ";" not in stmt:
            buf = io.StringIO()
            cur.copy_expert("COPY (%s) TO STDOUT" % stmt, buf)
            rows = [r.split("\t") for r in buf.getvalue().split("\n") if r != ""]
            shown = show_rows(rows)
        else:
            cur.execute(stmt)
            shown = cur.statusmessage or ""
            if cur.description:
                rows = [["" if v is None else str(v) for v in r] for r in cur.fetchall()]
                shown = show_rows(rows)
        return shown, None
    except psycopg2.Error as e:
        return None, (e.pgcode or "") + " " + (e.pgerror or str(e)).strip().split("\n")[0]
    finally:
        conn.rollback()


def copy_text(value):
    """A COPY text field as text (NULL shown as NULL)."""
    if value == "\\N":
        return "NULL"
    return re.sub(r"\\(.)", lambda m: {"t": "\t", "n": "\n", "\\": "\\"}.get(m.group(1), m.group(1)), value)


def show_rows(rows):
    """The result of an example in one short line."""
    if not rows:
        return "(no rows)"
    first = [copy_text(v) for v in rows[0]]
    text = first[0] if len(first) == 1 else "(" + ", ".join(first) + ")"
    if len(text) > 64:
        text = text[:61] + "…"
    if len(rows) > 1:
        text += " … (%d rows)" % len(rows)
    return text


def check_option(conn, opclass, am, intype, option):
    """Try the bounds of an option with CREATE INDEX; problems recorded."""
    name, kind, _, default, lo, hi, values = option
    if kind == "int":
        good, bad = [lo, hi, default], [lo - 1, hi + 1]
    elif kind == "real":
        good, bad = [lo, hi, default], [lo - abs(lo) / 2 - 0.001, hi + 0.5]
    elif kind == "enum":
        good, bad = values, ["no_such_value"]
    else:
        good, bad = ["on", "off"], ["maybe"]
    cur = conn.cursor()
    for value, should_work in [(v, True) for v in good] + [(v, False) for v in bad]:
        literal = "'%s'" % value if kind in ("enum", "bool") else repr(value)
        try:
            cur.execute("CREATE TEMP TABLE option_check (c %s)" % intype)
            cur.execute("CREATE INDEX ON option_check USING %s (c %s(%s = %s))" % (am, opclass, name, literal))
            worked = True
        except psycopg2.Error:
            worked = False
        conn.rollback()
        if worked != should_work:
            problem("%s(%s = %s) %s, but %s says it %s" % (opclass, name, literal,
                    "works" if worked else "fails", "the C code", "should" if should_work else "should not"))


# ---------------------------------------------------------------- rendering


def cell(text):
    """Text for a table cell: pipes escaped, newlines flattened."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def code(text):
    return "`" + cell(text) + "`" if text != "" else ""


class Page:
    """The sections of the page, one per install fragment."""

    def __init__(self, frags):
        self.frags = frags
        self.parts = {i: {} for i in range(len(frags))}

    def add(self, section, table, header, row):
        t = self.parts.setdefault(section, {}).setdefault(table, (header, []))
        t[1].append(row)

    def render(self, intro, settings):
        out = [intro.rstrip("\n"), ""]
        order = ["Types", "Functions", "Aggregates", "Operators", "Casts", "Operator classes"]
        for i, (fname, title, _) in enumerate(self.frags):
            tables = self.parts.get(i, {})
            if not tables:
                continue
            out += ["## %s" % title, "", "From `sql/install/%s`." % fname, ""]
            for name in order:
                if name not in tables:
                    continue
                header, rows = tables[name]
                out += ["### %s" % name, "", "| " + " | ".join(header) + " |",
                        "|" + "---|" * len(header)]
                out += ["| " + " | ".join(r) + " |" for r in rows]
                out.append("")
        out += settings
        return "\n".join(out).rstrip("\n") + "\n"


def example_cell(key, examples, results):
    """`example` → `result`, or a dash when there is none."""
    if key not in examples:
        problem("no example for %s in test/reference/examples.sql" % key)
        return "—"
    shown, error = results[key]
    if error:
        problem("the example of %s fails: %s" % (key, error))
        return code(examples[key]) + " → error"
    return code(examples[key]) + (" → " + code(shown) if shown else "")


def generate(conn):
    cur = conn.cursor()
    frags = fragments()
    where = object_sections(frags)
    fixture, examples = read_examples()
    sources = c_sources()
    page = Page(frags)
    cur.execute("SELECT nddup_unicode_version()")      # loads the library: its settings appear
    if re.sub(r"--.*", "", fixture).strip():
        cur.execute(fixture)
    conn.commit()
    results = {key: run_example(conn, stmt) for key, stmt in examples.items()}
    used = set()

    def section(key, fallback=None):
        if key in where:
            return where[key]
        if fallback is not None and fallback in where:
            return fallback and where[fallback]
        problem("no install fragment creates %s" % (key,))
        return len(frags) - 1

    def example(key):
        used.add(key)
        return example_cell(key, examples, results)

    # types
    for oid, name, length, byval, comment in query(cur, """
            SELECT t.oid, t.oid::regtype::text, t.typlen, t.typbyval, obj_description(t.oid, 'pg_type')
            FROM pg_type t WHERE t.oid IN (""" + MEMBERS % "'pg_type'" + """) ORDER BY 2"""):
        size = "%d bytes%s" % (length, ", by value" if byval else "") if length > 0 else "variable"
        page.add(section(("type", name)), "Types", ["type", "size", "description", "example"],
                 [code(name), size, cell(comment or problem("no COMMENT ON TYPE %s" % name) or ""), example(name)])

    # functions that users call (the others are listed with what they implement)
    implementation = dict(query(cur, """
        WITH m AS (""" + MEMBERS % "'pg_proc'" + """)
        SELECT f, string_agg(what, '; ' ORDER BY what) FROM (
            SELECT unnest(ARRAY[typinput, typoutput, typreceive, typsend])::oid AS f,
                   'input/output of type ' || oid::regtype AS what
            FROM pg_type WHERE oid IN (""" + MEMBERS % "'pg_type'" + """)
            UNION ALL SELECT oprcode::oid, 'operator ' || oid::regoperator FROM pg_operator
                WHERE oid IN (""" + MEMBERS % "'pg_operator'" + """)
            UNION ALL SELECT oprrest::oid, 'selectivity of operator ' || oid::regoperator FROM pg_operator
                WHERE oid IN (""" + MEMBERS % "'pg_operator'" + """) AND oprrest::oid IN (SELECT objid FROM m)
            UNION ALL SELECT a.amproc::oid, 'support ' || a.amprocnum || ' of ' || f.opfname || ' (' || am.amname || ')'
                FROM pg_amproc a JOIN pg_opfamily f ON f.oid = a.amprocfamily JOIN pg_am am ON am.oid = f.opfmethod
                WHERE a.amprocfamily IN (""" + MEMBERS % "'pg_opfamily'" + """)
            UNION ALL SELECT unnest(ARRAY[aggtransfn, aggfinalfn, aggcombinefn, aggserialfn, aggdeserialfn])::oid,
                   'state function of aggregate ' || aggfnoid::regprocedure FROM pg_aggregate
                WHERE aggfnoid IN (SELECT objid FROM m)
            UNION ALL SELECT castfunc, 'cast ' || castsource::regtype || ' AS ' || casttarget::regtype FROM pg_cast
                WHERE oid IN (""" + MEMBERS % "'pg_cast'" + """)
            UNION ALL SELECT prosupport::oid, 'planner support of ' || oid::regprocedure FROM pg_proc
                WHERE oid IN (SELECT objid FROM m) AND prosupport <> 0
            UNION ALL SELECT amhandler::oid, 'handler of access method ' || amname FROM pg_am
                WHERE oid IN (""" + MEMBERS % "'pg_am'" + """)
        ) s WHERE f IN (SELECT objid FROM m) GROUP BY f"""))
    rows = query(cur, """
        SELECT p.oid, p.proname, p.oid::regprocedure::text, pg_get_function_arguments(p.oid),
               pg_get_function_result(p.oid), p.prokind, p.provolatile, obj_description(p.oid, 'pg_proc')
        FROM pg_proc p WHERE p.oid IN (""" + MEMBERS % "'pg_proc'" + """) ORDER BY p.proname, 3""")
    internal = []
    for oid, name, key, args, result, kind, volatility, comment in rows:
        if oid in implementation and not comment:
            internal.append((name, key, implementation[oid], comment))
            continue
        signature = "%s(%s)" % (name, args)
        returns = result + {"s": " (stable)", "v": " (volatile)"}.get(volatility, "")
        table = "Aggregates" if kind == "a" else "Functions"
        if not comment:
            problem("no COMMENT ON FUNCTION %s" % key)
        page.add(section(("function", name)), table, ["signature", "returns", "description", "example"],
                 [code(signature), code(returns), cell(comment or ""), example(key)])

    # operators
    for key, name, left, right, result, comment, func in query(cur, """
            SELECT o.oid::regoperator::text, o.oprname, o.oprleft::regtype::text, o.oprright::regtype::text,
                   o.oprresult::regtype::text, obj_description(o.oid, 'pg_operator'), o.oprcode::text
            FROM pg_operator o WHERE o.oid IN (""" + MEMBERS % "'pg_operator'" + """) ORDER BY 2, 3, 4"""):
        if not comment:
            problem("no COMMENT ON OPERATOR %s" % key)
        page.add(section(("operator", name, left, right)), "Operators",
                 ["operator", "returns", "description", "example"],
                 [code("%s %s %s" % (left, name, right)), code(result), cell(comment or ""), example(key)])

    # casts
    for source, target, func, context, method in query(cur, """
            SELECT c.castsource::regtype::text, c.casttarget::regtype::text, c.castfunc, c.castcontext, c.castmethod
            FROM pg_cast c WHERE c.oid IN (""" + MEMBERS % "'pg_cast'" + """) ORDER BY 1, 2"""):
        key = "%s AS %s" % (source, target)
        how = {"e": "explicit", "a": "in assignments", "i": "implicit"}[context] + ", " + \
            ("the bit pattern kept" if method == "b" else "by a function")
        page.add(section(("cast", source, target)), "Casts", ["cast", "applies", "example"],
                 [code(key), how, example(key)])

    # operator classes, with the options of their options function
    for oid, name, am, intype, default, comment, family in query(cur, """
            SELECT c.oid, c.opcname, am.amname, c.opcintype::regtype::text, c.opcdefault,
                   obj_description(c.oid, 'pg_opclass'), c.opcfamily
            FROM pg_opclass c JOIN pg_am am ON am.oid = c.opcmethod
            WHERE c.oid IN (""" + MEMBERS % "'pg_opclass'" + """) ORDER BY 2, 3"""):
        ops = ", ".join("%s" % r[0] for r in query(cur, """
            SELECT o.oprname || CASE WHEN a.amoppurpose = 'o' THEN ' (ORDER BY)' ELSE '' END
            FROM pg_amop a JOIN pg_operator o ON o.oid = a.amopopr
            WHERE a.amopfamily = %s ORDER BY a.amopstrategy""", (family,)))
        options = []
        for (symbol,) in query(cur, """
                SELECT p.prosrc FROM pg_amproc a JOIN pg_proc p ON p.oid = a.amproc
                JOIN pg_am am ON am.oid = (SELECT opfmethod FROM pg_opfamily WHERE oid = a.amprocfamily)
                WHERE a.amprocfamily = %s AND p.prolang = (SELECT oid FROM pg_language WHERE lanname = 'c')
                  AND p.proargtypes = '2281'::oidvector AND p.prorettype = 'void'::regtype""", (family,)):
            for option in opclass_options(symbol, sources):
                check_option(conn, name, am, intype, option)
                oname, kind, desc, dflt, lo, hi, values = option
                rng = "%s–%s" % (fmt(lo), fmt(hi)) if lo is not None else " or ".join(values or ["on", "off"])
                options.append("`%s` (%s, default %s): %s" % (oname, rng, fmt(dflt), cell(desc)))
        key = "%s USING %s" % (name, am)
        if not comment:
            problem("no COMMENT ON OPERATOR CLASS %s" % key)
        page.add(section(("opclass", name)), "Operator classes",
                 ["operator class", "for", "operators", "options", "description", "example"],
                 [code(name), "`%s` %s%s" % (intype, am, ", default" if default else ""), cell(ops),
                  "; ".join(options) or "—", cell(comment or ""), example(key)])

    # settings
    settings = ["## Settings", "",
                "The settings exist in a session once nddup's library is loaded into it, as those of contrib",
                "modules do (`pg_trgm.similarity_threshold` behaves the same): in a new session,",
                "`SHOW nddup.similarity_threshold` fails with \"unrecognized configuration parameter\" until an",
                "nddup function, type or operator has been used. `SELECT nddup_unicode_version();` loads the",
                "library for any user, `LOAD 'nddup'` for a superuser. `SET` works before it is loaded: the",
                "value is kept and checked when it loads (an invalid one then gives a WARNING and the default).",
                "`ALTER DATABASE`/`ALTER ROLE … SET` work before it for a superuser, for other roles once it is",
                "loaded in their session (PostgreSQL takes an unknown setting for a superuser's). A superuser",
                "can load it into every session of a database with",
                "`ALTER DATABASE db SET session_preload_libraries = 'nddup'`, or into the server with",
                "`shared_preload_libraries`.", "",
                "| setting | type | default | range | description | example |",
                "|---|---|---|---|---|---|"]
    for name, vartype, boot, lo, hi, short, extra in query(cur, """
            SELECT name, vartype, boot_val, min_val, max_val, short_desc, extra_desc
            FROM pg_settings WHERE name LIKE 'nddup.%' ORDER BY name"""):
        rng = "%s – %s" % (lo, hi) if lo is not None else "on, off" if vartype == "bool" else ""
        desc = short + (" " + extra if extra else "")
        settings.append("| `%s` | %s | `%s` | %s | %s | %s |" % (name, vartype, boot, rng, cell(desc), example(name)))
    settings.append("")

    if internal:
        settings += ["## Implementation functions", "",
                     "Functions that types, operators, operator classes and aggregates call; they are "
                     "documented through what they implement.", "",
                     "| function | implements |", "|---|---|"]
        settings += ["| `%s` | %s |" % (cell(key), cell(what)) for _, key, what, _ in sorted(internal, key=lambda r: r[1])]
        settings.append("")
    for key in sorted(set(examples) - used):
        problem("examples.sql has an example for %s, which is not an object of the extension" % key)
    with open(os.path.join(HERE, "intro.md"), encoding="utf-8") as f:
        intro = f.read()
    return page.render(intro, settings)


def fmt(value):
    """An option value as the page shows it."""
    if isinstance(value, float):
        return ("%.6f" % value).rstrip("0").rstrip(".")
    return str(value)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    conn = psycopg2.connect("")
    text = generate(conn)
    with open(args.out, "w", encoding="utf-8") as f:
        f.write(text)
    if problems:
        print("reference: %d problems (above)" % len(problems), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
