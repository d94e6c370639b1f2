#!/usr/bin/python3
"""The insert-time recipe of docs/trigger.md driven through the drivers alone.

The checks of django_blog.py without an ORM: psycopg 3 (Debian's
python3-psycopg) with single inserts, executemany(returning=True) and COPY,
then psycopg2 (python3-psycopg2) with single inserts and execute_values().
What it shows is documented in docs/clients.md:

- action=mark: INSERT ... RETURNING id, duplicate_of brings the mark back;
- action=skip: a skipped row returns no row (fetchone() is None, rowcount 0);
  psycopg 3's executemany(returning=True) gives an empty result for it, so
  the results line up with the rows sent; COPY drops the copies;
- action=error: errors.UniqueViolation (SQLSTATE 23505, the trigger's name as
  the constraint); a savepoint per insert (psycopg 3: conn.transaction()
  inside a transaction, psycopg2: SAVEPOINT) keeps the transaction going.

Connection from PGHOST, PGPORT, PGUSER and PGDATABASE (test/orm/run.sh).
"""

import sys

import psycopg
import psycopg2
import psycopg2.errors
import psycopg2.extras

from blog import COPY, EMPTY, GARDEN, ORIGINAL, OTHER, OTHER_COPY, OWN, SETUP, TRIGGER, TRIGGER_SETTINGS, VERSION, Checks

INSERT = "INSERT INTO posts (body) VALUES (%s) RETURNING id, duplicate_of"
check = Checks()


def use_action(conn, action, driver="psycopg 3"):
    """An empty posts table whose trigger has the given action (committed)."""
    with conn.cursor() as cur:
        cur.execute(EMPTY)
        cur.execute(TRIGGER % action)
        cur.execute(TRIGGER_SETTINGS)
        check("%s, %s: nddup_check_trigger() after CREATE TRIGGER" % (driver, action),
              ("action=%s" % action) in cur.fetchone()[0])
    conn.commit()


def marks(conn):
    """{body: duplicate_of} of every stored post."""
    with conn.cursor() as cur:
        cur.execute("SELECT body, duplicate_of FROM posts ORDER BY id")
        return dict(cur.fetchall())


def results(cur):
    """Every result set of an executemany(returning=True), one list of rows per parameter set."""
    sets = [cur.fetchall()]
    while cur.nextset():
        sets.append(cur.fetchall())
    return sets


def psycopg3_mark(conn):
    use_action(conn, "mark")
    original_id, mark = conn.execute(INSERT, (ORIGINAL,)).fetchone()
    copy_id, copy_mark = conn.execute(INSERT, (COPY,)).fetchone()
    check("psycopg 3, mark: INSERT ... RETURNING gives the copy its id and its mark",
          (mark, copy_mark) == (None, original_id) and copy_id != original_id, (mark, copy_mark))
    with conn.cursor() as cur:
        cur.executemany(INSERT, [(OTHER,), (OTHER_COPY,), (OWN,)], returning=True)
        sets = results(cur)
    other_id = sets[0][0][0]
    check("psycopg 3, mark: executemany(returning=True) gives every row its id and its mark; a copy of an "
          "earlier row of the same call is marked", [s[0][1] for s in sets] == [None, other_id, None], sets)
    with conn.cursor() as cur:
        with cur.copy("COPY posts (body) FROM STDIN") as copy:
            for body in (COPY + " Again.", GARDEN):
                copy.write_row((body,))
    conn.commit()
    stored = marks(conn)
    check("psycopg 3, mark: rows stored by COPY are marked too; the marks read back",
          stored == {ORIGINAL: None, COPY: original_id, OTHER: None, OTHER_COPY: other_id, OWN: None,
                     COPY + " Again.": original_id, GARDEN: None}, stored)


def insert_unless_duplicate(conn, body):
    """The pattern for action=skip: the new post's id, None when it was a copy."""
    row = conn.execute("INSERT INTO posts (body) VALUES (%s) RETURNING id", (body,)).fetchone()
    return row[0] if row else None


def insert_many_unless_duplicate(conn, bodies):
    """The pattern for action=skip, many rows: each new post's id, None for each copy."""
    with conn.cursor() as cur:
        cur.executemany("INSERT INTO posts (body) VALUES (%s) RETURNING id", [(b,) for b in bodies],
                        returning=True)
        ids = []
        while True:
            row = cur.fetchone()
            ids.append(row[0] if row else None)     # None: that body was a near-duplicate
            if not cur.nextset():
                break
    return ids


def psycopg3_skip(conn):
    use_action(conn, "skip")
    new_id = insert_unless_duplicate(conn, ORIGINAL)
    copy_id = insert_unless_duplicate(conn, COPY)
    check("psycopg 3, skip: INSERT ... RETURNING: the id of a stored row, no row (None) for a copy",
          new_id is not None and copy_id is None, (new_id, copy_id))
    cur = conn.execute("INSERT INTO posts (body) VALUES (%s)", (COPY + " Once more.",))
    check("psycopg 3, skip: without RETURNING, rowcount 0 for a copy", cur.rowcount == 0, cur.rowcount)
    ids = insert_many_unless_duplicate(conn, [OTHER, OTHER_COPY, OWN, COPY])
    check("psycopg 3, skip: executemany(returning=True): an empty result for each copy, in the order of the rows",
          [i is not None for i in ids] == [True, False, True, False], ids)
    with conn.cursor() as cur:
        with cur.copy("COPY posts (body) FROM STDIN") as copy:
            for body in (GARDEN, OTHER_COPY, COPY):
                copy.write_row((body,))
        check("psycopg 3, skip: COPY drops the copies; its rowcount counts the stored rows", cur.rowcount == 1,
              cur.rowcount)
    conn.commit()
    stored = marks(conn)
    check("psycopg 3, skip: only the originals are stored",
          stored == {ORIGINAL: None, OTHER: None, OWN: None, GARDEN: None}, stored)


def insert_or_none(conn, body):
    """The pattern for action=error: one savepoint per post; None when it was a copy."""
    try:
        with conn.transaction():                # a savepoint inside the connection's transaction
            return conn.execute("INSERT INTO posts (body) VALUES (%s) RETURNING id", (body,)).fetchone()[0]
    except psycopg.errors.UniqueViolation as e:
        if e.diag.constraint_name == "dedup":
            return None                         # a near-duplicate; e.diag.message_detail names the original
        raise


def psycopg3_error(conn):
    use_action(conn, "error")
    original_id = conn.execute(INSERT, (ORIGINAL,)).fetchone()[0]
    conn.commit()
    try:
        conn.execute(INSERT, (COPY,))
        error = None
    except psycopg.errors.UniqueViolation as e:
        error = e
    check.rejected("psycopg 3, error: the insert of a copy: errors.UniqueViolation", error and error.diag, original_id)
    check("psycopg 3, error: the exception's sqlstate", error is not None and error.sqlstate == "23505")
    try:
        conn.execute("SELECT 1")
        outcome = "no error"
    except psycopg.errors.InFailedSqlTransaction:
        outcome = "InFailedSqlTransaction"
    check("psycopg 3, error: without a savepoint the transaction cannot go on", outcome == "InFailedSqlTransaction",
          outcome)
    conn.rollback()
    check.savepoint_per_insert("psycopg 3, error: with a savepoint per insert (conn.transaction()) the transaction "
                               "goes on", lambda body: insert_or_none(conn, body))
    conn.commit()
    try:
        with conn.transaction():
            with conn.cursor() as cur:
                cur.executemany(INSERT, [("Fresh text number one.",), (COPY,)], returning=True)
        outcome = "no error"
    except psycopg.errors.UniqueViolation:
        outcome = "UniqueViolation"
    check("psycopg 3, error: executemany() with a copy in one transaction block is rolled back as a whole",
          outcome == "UniqueViolation", outcome)
    try:
        with conn.transaction():
            with conn.cursor() as cur:
                with cur.copy("COPY posts (body) FROM STDIN") as copy:
                    for body in ("Fresh text number two.", COPY):
                        copy.write_row((body,))
        outcome = "no error"
    except psycopg.errors.UniqueViolation:
        outcome = "UniqueViolation"
    check("psycopg 3, error: COPY with a copy is rejected as a whole", outcome == "UniqueViolation", outcome)
    conn.commit()
    stored = marks(conn)
    check("psycopg 3, error: only the originals are stored", stored == {ORIGINAL: None, OTHER: None, OWN: None},
          stored)


def psycopg2_insert_or_none(cur, body):
    """The pattern for action=error with psycopg2: SAVEPOINT in SQL; None when it was a copy."""
    cur.execute("SAVEPOINT post")
    try:
        cur.execute("INSERT INTO posts (body) VALUES (%s) RETURNING id", (body,))
    except psycopg2.errors.UniqueViolation as e:
        cur.execute("ROLLBACK TO SAVEPOINT post")
        if e.diag.constraint_name == "dedup":
            return None
        raise
    new_id = cur.fetchone()[0]
    cur.execute("RELEASE SAVEPOINT post")
    return new_id


def test_psycopg2(conn):
    """The three actions through psycopg2: single inserts, execute_values(), savepoints."""
    use_action(conn, "mark", "psycopg2")
    cur = conn.cursor()
    cur.execute(INSERT, (ORIGINAL,))
    original_id = cur.fetchone()[0]
    cur.execute(INSERT, (COPY,))
    check("psycopg2, mark: INSERT ... RETURNING brings the mark back", cur.fetchone()[1] == original_id)
    rows = psycopg2.extras.execute_values(cur, "INSERT INTO posts (body) VALUES %s RETURNING id, duplicate_of",
                                          [(OTHER,), (OTHER_COPY,)], fetch=True)
    check("psycopg2, mark: execute_values(fetch=True) returns every row's mark, a copy of an earlier row marked",
          [r[1] for r in rows] == [None, rows[0][0]], rows)
    conn.commit()

    use_action(conn, "skip", "psycopg2")
    cur.execute(INSERT, (ORIGINAL,))
    cur.execute(INSERT, (COPY,))
    check("psycopg2, skip: INSERT ... RETURNING of a copy: fetchone() is None, rowcount 0",
          cur.fetchone() is None and cur.rowcount == 0)
    rows = psycopg2.extras.execute_values(cur, "INSERT INTO posts (body) VALUES %s RETURNING id, body",
                                          [(OTHER,), (COPY,), (OWN,)], fetch=True)
    check("psycopg2, skip: execute_values(fetch=True) returns the stored rows only",
          [r[1] for r in rows] == [OTHER, OWN], rows)
    conn.commit()

    use_action(conn, "error", "psycopg2")
    check.savepoint_per_insert("psycopg2, error: with SAVEPOINT per insert the transaction goes on",
                               lambda body: psycopg2_insert_or_none(cur, body))
    conn.commit()
    check("psycopg2, error: only the originals are stored", marks(conn) == {OTHER: None, OWN: None}, marks(conn))
    cur.execute("SELECT id FROM posts WHERE body = %s", (OTHER,))
    other_id = cur.fetchone()[0]
    try:
        cur.execute(INSERT, (OTHER_COPY,))
        error = None
    except psycopg2.errors.UniqueViolation as e:
        error = e
    check.rejected("psycopg2, error: the insert of a copy: errors.UniqueViolation", error and error.diag, other_id)
    check("psycopg2, error: the exception's pgcode", error is not None and error.pgcode == "23505")
    conn.rollback()


def main():
    with psycopg.connect() as conn:
        for statement in SETUP:
            conn.execute(statement)
        version = conn.execute(VERSION).fetchone()[0]
        conn.commit()
        print("psycopg %s, psycopg2 %s, nddup %s" % (psycopg.__version__, psycopg2.__version__.split()[0], version))
        psycopg3_mark(conn)
        psycopg3_skip(conn)
        psycopg3_error(conn)
    conn = psycopg2.connect("")
    try:
        test_psycopg2(conn)
    finally:
        conn.close()
    return check.summary("psycopg")


if __name__ == "__main__":
    sys.exit(main())
