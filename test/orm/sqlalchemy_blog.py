#!/usr/bin/python3
"""The insert-time recipe of docs/trigger.md driven through SQLAlchemy.

The same checks as django_blog.py, through SQLAlchemy 1.4 (Debian's
python3-sqlalchemy) over psycopg2, its ORM (Session.add() and flush(),
add_all(), bulk_save_objects()) and its Core insert(); what it shows is
documented in docs/clients.md:

- action=mark works as is; duplicate_of mapped with server_default=
  FetchedValue() and the mapper's eager_defaults comes back in the INSERT's
  RETURNING, a plain column holds None until session.refresh();
- action=skip breaks the ORM's flush (FlushError "did not produce a new
  primary key result", or for several objects "did not produce the correct
  number of INSERTed rows for RETURNING"), and without RETURNING
  (implicit_returning=False) a skipped object gets an id no row has; Core
  insert() works: with .returning(Post.id) a
  skipped row returns no row, without it the result's rowcount is 0;
  executemany and bulk_save_objects() drop the copies silently;
- action=error arrives as sqlalchemy.exc.IntegrityError (psycopg2's
  UniqueViolation in .orig); inside session.begin_nested() (a savepoint) the
  session goes on, without one it must be rolled back.

Connection from PGHOST, PGPORT, PGUSER and PGDATABASE (test/orm/run.sh).
"""

import os
import sys

import sqlalchemy
from sqlalchemy import BigInteger, Column, FetchedValue, Text, create_engine, insert, inspect, select, text
from sqlalchemy.exc import IntegrityError, PendingRollbackError
from sqlalchemy.orm import Session, declarative_base
from sqlalchemy.orm.exc import FlushError

from blog import COPY, EMPTY, GARDEN, ORIGINAL, OTHER, OTHER_COPY, OWN, SETUP, TRIGGER, TRIGGER_SETTINGS, VERSION, Checks

Base = declarative_base()
PlainBase = declarative_base()
NoReturningBase = declarative_base()


class Post(Base):
    """A post; duplicate_of set by the database on INSERT, returned by the INSERT itself."""
    __tablename__ = "posts"
    id = Column(BigInteger, primary_key=True)
    body = Column(Text, nullable=False)
    duplicate_of = Column(BigInteger, server_default=FetchedValue())
    __mapper_args__ = {"eager_defaults": True}


class PlainPost(PlainBase):
    """The same table, duplicate_of mapped as an ordinary column."""
    __tablename__ = "posts"
    id = Column(BigInteger, primary_key=True)
    body = Column(Text, nullable=False)
    duplicate_of = Column(BigInteger)


class NoReturningPost(NoReturningBase):
    """The same table without RETURNING: the ORM takes the id from the sequence first."""
    __tablename__ = "posts"
    __table_args__ = {"implicit_returning": False}
    id = Column(BigInteger, primary_key=True)
    body = Column(Text, nullable=False)


engine = create_engine("postgresql+psycopg2://%s@/%s?host=%s&port=%s" % (
    os.environ["PGUSER"], os.environ["PGDATABASE"], os.environ["PGHOST"], os.environ["PGPORT"]), future=True)
check = Checks()


def use_action(action):
    """An empty posts table whose trigger has the given action."""
    with engine.begin() as conn:
        conn.execute(text(EMPTY))
        conn.execute(text(TRIGGER % action))
        check("%s: nddup_check_trigger() after CREATE TRIGGER" % action,
              ("action=%s" % action) in conn.execute(text(TRIGGER_SETTINGS)).scalar_one())


def marks():
    """{body: duplicate_of} of every stored post, read through the ORM."""
    with Session(engine) as session:
        return {p.body: p.duplicate_of for p in session.scalars(select(Post).order_by(Post.id))}


def test_mark():
    use_action("mark")
    with Session(engine) as session:
        original = PlainPost(body=ORIGINAL)
        copy = PlainPost(body=COPY)
        session.add(original)
        session.flush()
        session.add(copy)
        session.flush()
        check("mark: add() and flush() store the copy and give its id",
              copy.id is not None and copy.id != original.id)
        check("mark: a plain column does not know the mark before a refresh", copy.duplicate_of is None)
        session.refresh(copy)
        check("mark: session.refresh() reads the mark", copy.duplicate_of == original.id, copy.duplicate_of)
        returned = Post(body=ORIGINAL + " (again)")
        session.add(returned)
        session.flush()
        check("mark: FetchedValue() with eager_defaults brings the mark back with the INSERT",
              "duplicate_of" in inspect(returned).dict and returned.duplicate_of == original.id,
              inspect(returned).dict.get("duplicate_of", "not loaded"))
        other = Post(body=OTHER)
        batch = [Post(body=OTHER_COPY), Post(body=OWN), Post(body=COPY + " Again.")]
        session.add(other)
        session.add_all(batch)
        session.flush()
        check("mark: add_all() gives every object its id and its mark",
              [p.duplicate_of for p in batch] == [other.id, None, original.id], [p.duplicate_of for p in batch])
        session.commit()
        original_id, other_id = original.id, other.id
    stored = marks()
    check("mark: the marks read back through the ORM",
          stored == {ORIGINAL: None, COPY: original_id, ORIGINAL + " (again)": original_id, OTHER: None,
                     OTHER_COPY: other_id, OWN: None, COPY + " Again.": original_id}, stored)
    with Session(engine) as session:
        originals = session.scalars(select(Post.body).where(Post.duplicate_of.is_(None)).order_by(Post.id)).all()
        check("mark: the originals, as a search index would read them", originals == [ORIGINAL, OTHER, OWN], originals)
        # one multi-row INSERT: a copy is judged against the rows before it in the same statement
        rows = session.execute(insert(Post).values([{"body": GARDEN}, {"body": GARDEN.replace(".", "!")}])
                               .returning(Post.id, Post.duplicate_of)).all()
        check("mark: a multi-row Core insert() returns each row's mark; a copy of an earlier row is marked",
              len(rows) == 2 and rows[1].duplicate_of == rows[0].id, rows)
        session.commit()


def insert_unless_duplicate(session, body):
    """The pattern for action=skip: the new post's id, None when it was a copy."""
    return session.scalar(insert(Post).values(body=body).returning(Post.id))


def test_skip():
    use_action("skip")
    with Session(engine) as session:
        session.add(Post(body=ORIGINAL))
        session.commit()
        try:
            with session.begin_nested():
                session.add(Post(body=COPY))
            outcome = "no error"
        except FlushError as e:
            outcome = str(e)
        check("skip: the ORM's flush of a copy fails (FlushError: ... did not produce a new primary key result)",
              "did not produce a new primary key result" in outcome, outcome)
        try:
            with session.begin_nested():
                session.add_all([Post(body=OTHER), Post(body=COPY)])
            outcome = "no error"
        except FlushError as e:
            outcome = str(e)
        check("skip: add_all() with a copy among the objects fails (FlushError: Multi-row INSERT ... did not "
              "produce the correct number of INSERTed rows for RETURNING)",
              "did not produce the correct number of INSERTed rows" in outcome, outcome)
        check("skip: after the FlushError inside begin_nested() the session goes on",
              session.scalar(select(sqlalchemy.func.count()).select_from(Post)) == 1)
        # turning RETURNING off hides the skip: the object gets an id that no row has
        ghost = NoReturningPost(body=COPY)
        with session.begin_nested():
            session.add(ghost)
        check("skip: with implicit_returning=False the flush of a copy succeeds, with an id no row has",
              ghost.id is not None and session.get(Post, ghost.id) is None, ghost.id)
        new_id = insert_unless_duplicate(session, OTHER)
        copy_id = insert_unless_duplicate(session, OTHER_COPY)
        check("skip: Core insert().returning(Post.id): the id of a stored row, None for a copy",
              new_id is not None and copy_id is None, (new_id, copy_id))
        check("skip: the stored row loads as an ORM object", session.get(Post, new_id).body == OTHER)
        counts = [session.execute(insert(Post).values(body=body)).rowcount for body in (COPY + " Once more.", GARDEN)]
        check("skip: Core insert() without RETURNING: rowcount 0 for a copy, 1 for an original", counts == [0, 1],
              counts)
        result = session.execute(insert(Post), [{"body": OWN}, {"body": OTHER_COPY}, {"body": COPY}])
        check("skip: Core insert() of many rows (executemany) stores the originals, drops the copies",
              result.rowcount == 1, result.rowcount)
        session.bulk_save_objects([Post(body="A post about nothing in particular."), Post(body=COPY)])
        session.commit()
    stored = marks()
    check("skip: only the originals are stored",
          stored == {ORIGINAL: None, OTHER: None, GARDEN: None, OWN: None, "A post about nothing in particular.": None},
          stored)


def add_unless_duplicate(session, body):
    """The pattern for action=error: one savepoint per post; None when it was a copy."""
    post = Post(body=body)
    try:
        with session.begin_nested():            # SAVEPOINT; flushed and released at the end
            session.add(post)
        return post
    except IntegrityError as e:
        diag = e.orig.diag                      # psycopg2's
        if diag.sqlstate == "23505" and diag.constraint_name == "dedup":
            return None                         # a near-duplicate; the detail names the original
        raise


def test_error():
    use_action("error")
    with Session(engine) as session:
        original = Post(body=ORIGINAL)
        session.add(original)
        session.commit()
        original_id = original.id
        session.add(Post(body=COPY))
        try:
            session.flush()
            error = None
        except IntegrityError as e:
            error = e
        check.rejected("error: flush() of a copy: IntegrityError", error and error.orig.diag, original_id)
        # without a savepoint the session's transaction cannot go on
        try:
            session.scalar(select(Post.id).limit(1))
            outcome = "no error"
        except PendingRollbackError:
            outcome = "PendingRollbackError"
        check("error: without a savepoint the session must be rolled back", outcome == "PendingRollbackError", outcome)
        session.rollback()
        # with a savepoint per insert the transaction goes on
        check.savepoint_per_insert("error: with a savepoint per insert (begin_nested()) the transaction goes on",
                                   lambda body: add_unless_duplicate(session, body))
        session.commit()
        # a flush of several objects, or a multi-row insert, is rejected as a whole
        try:
            with session.begin_nested():
                session.add_all([Post(body="Fresh text number one."), Post(body=COPY)])
            outcome = "no error"
        except IntegrityError:
            outcome = "IntegrityError"
        check("error: add_all() with a copy is rolled back as a whole to the savepoint",
              outcome == "IntegrityError", outcome)
        try:
            with session.begin_nested():
                session.execute(insert(Post).values([{"body": "Fresh text number two."}, {"body": COPY}]))
            outcome = "no error"
        except IntegrityError:
            outcome = "IntegrityError"
        check("error: a multi-row Core insert() with a copy is rejected as a whole", outcome == "IntegrityError", outcome)
        session.commit()
    stored = marks()
    check("error: only the originals are stored", stored == {ORIGINAL: None, OTHER: None, OWN: None}, stored)


def main():
    with engine.begin() as conn:
        for statement in SETUP:
            conn.execute(text(statement))
        print("SQLAlchemy %s, psycopg2, nddup %s" % (sqlalchemy.__version__, conn.execute(text(VERSION)).scalar_one()))
    test_mark()
    test_skip()
    test_error()
    return check.summary("sqlalchemy")


if __name__ == "__main__":
    sys.exit(main())
