#!/usr/bin/python3
"""The insert-time recipe of docs/trigger.md driven through Django's ORM.

A blog's Post model on the table of the recipe (the fingerprint is a
generated column the model does not know about, the trigger fills
duplicate_of), with each action of the trigger, single inserts (create(),
save()) and bulk inserts (bulk_create()), and the marks read back through the
ORM.  It shows what works from an ORM and what does not (docs/trigger.md,
"From an application"):

- action=mark works as is; a field with db_returning = True brings the mark
  back in the INSERT's RETURNING, without a second query;
- action=skip breaks the ORM's INSERT ... RETURNING (no row comes back):
  create() and bulk_create() fail, bulk_create(ignore_conflicts=True) works
  (it does not ask for the rows back);
- action=error arrives as django.db.IntegrityError naming the trigger as the
  constraint; inside transaction.atomic() (a savepoint) the rest of the
  transaction goes on.

Connection from PGHOST, PGPORT, PGUSER and PGDATABASE (test/orm/run.sh).
Debian's python3-django (3.2) and python3-psycopg2.
"""

import os
import sys

import django
from django.conf import settings

settings.configure(
    DATABASES={"default": {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": os.environ["PGDATABASE"],
        "HOST": os.environ["PGHOST"],
        "PORT": os.environ["PGPORT"],
        "USER": os.environ["PGUSER"],
    }},
    INSTALLED_APPS=[],
    USE_TZ=True,
)
django.setup()

from django.db import IntegrityError, connection, models, transaction  # noqa: E402
from django.db.transaction import TransactionManagementError  # noqa: E402

from blog import COPY, EMPTY, GARDEN, ORIGINAL, OTHER, OTHER_COPY, OWN, SETUP, TRIGGER, TRIGGER_SETTINGS, VERSION, Checks  # noqa: E402


class Post(models.Model):
    """A post of the blog; fp (generated) is not a field, duplicate_of is the trigger's."""
    body = models.TextField()
    duplicate_of = models.BigIntegerField(null=True)

    class Meta:
        app_label = "blog"
        db_table = "posts"
        managed = False


class ReturningBigIntegerField(models.BigIntegerField):
    """A column the database sets on INSERT, sent back by INSERT ... RETURNING."""
    db_returning = True


class MarkedPost(models.Model):
    """The same table, with duplicate_of returned by the INSERT itself."""
    body = models.TextField()
    duplicate_of = ReturningBigIntegerField(null=True)

    class Meta:
        app_label = "blog"
        db_table = "posts"
        managed = False


check = Checks()


def use_action(action):
    """An empty posts table whose trigger has the given action."""
    with connection.cursor() as cur:
        cur.execute(EMPTY)
        cur.execute(TRIGGER % action)
        cur.execute(TRIGGER_SETTINGS)
        check("%s: nddup_check_trigger() after CREATE TRIGGER" % action,
              ("action=%s" % action) in cur.fetchone()[0])


def marks():
    """{body: duplicate_of} of every stored post, read through the ORM."""
    return {p.body: p.duplicate_of for p in Post.objects.order_by("id")}


def test_mark():
    use_action("mark")
    original = Post.objects.create(body=ORIGINAL)
    copy = Post.objects.create(body=COPY)
    check("mark: create() stores the copy and gives its id", copy.id is not None and copy.id != original.id)
    check("mark: the instance does not know the mark before a refresh", copy.duplicate_of is None)
    copy.refresh_from_db()
    check("mark: refresh_from_db() reads the mark", copy.duplicate_of == original.id, copy.duplicate_of)
    returned = MarkedPost.objects.create(body=ORIGINAL + " (again)")
    check("mark: a db_returning field brings the mark back with the INSERT",
          returned.duplicate_of == original.id, returned.duplicate_of)
    post = Post(body=OTHER)
    post.save()
    check("mark: save() of a new post stores an original", Post.objects.get(id=post.id).duplicate_of is None)
    bulk = MarkedPost.objects.bulk_create([MarkedPost(body=OTHER_COPY), MarkedPost(body=OWN),
                                          MarkedPost(body=COPY + " Again.")])
    check("mark: bulk_create() gives every row its id", all(p.id is not None for p in bulk))
    check("mark: bulk_create() with a db_returning field brings every mark back",
          [p.duplicate_of for p in bulk] == [post.id, None, original.id], [p.duplicate_of for p in bulk])
    stored = marks()
    check("mark: the marks read back through the ORM",
          stored == {ORIGINAL: None, COPY: original.id, ORIGINAL + " (again)": original.id, OTHER: None,
                     OTHER_COPY: post.id, OWN: None, COPY + " Again.": original.id}, stored)
    check("mark: the originals, as a search index would read them",
          list(Post.objects.filter(duplicate_of__isnull=True).order_by("id").values_list("body", flat=True))
          == [ORIGINAL, OTHER, OWN])
    # a copy inside one bulk insert is judged against the rows before it in the same statement
    bulk = MarkedPost.objects.bulk_create([MarkedPost(body=GARDEN), MarkedPost(body=GARDEN.replace(".", "!"))])
    check("mark: a copy of an earlier row of the same bulk_create() is marked",
          bulk[1].duplicate_of == bulk[0].id, [p.duplicate_of for p in bulk])


def test_skip():
    use_action("skip")
    Post.objects.create(body=ORIGINAL)
    try:
        with transaction.atomic():
            Post.objects.create(body=COPY)
        outcome = "no error"
    except Exception as e:      # Django 3.2: TypeError, the INSERT ... RETURNING returned no row
        outcome = "%s: %s" % (type(e).__name__, e)
    check("skip: create() of a copy fails in the ORM, INSERT ... RETURNING gets no row (%s)" % outcome,
          outcome != "no error")
    try:
        with transaction.atomic():
            Post.objects.bulk_create([Post(body=OTHER), Post(body=COPY)])
        outcome = "no error"
    except Exception as e:      # Django 3.2: AssertionError, fewer rows than objects came back
        outcome = type(e).__name__
    check("skip: bulk_create() with a copy among the rows fails in the ORM (%s)" % outcome, outcome != "no error")
    Post.objects.bulk_create([Post(body=OTHER), Post(body=COPY), Post(body=OTHER_COPY)], ignore_conflicts=True)
    check("skip: bulk_create(ignore_conflicts=True) drops the copies silently",
          marks() == {ORIGINAL: None, OTHER: None}, marks())


def create_unless_duplicate(body):
    """The pattern for action=error: one savepoint per post; None when it was a copy."""
    try:
        with transaction.atomic():
            return Post.objects.create(body=body)
    except IntegrityError as e:
        diag = e.__cause__.diag
        if diag.sqlstate == "23505" and diag.constraint_name == "dedup":
            return None             # a near-duplicate: detail names the original
        raise


def test_error():
    use_action("error")
    original = Post.objects.create(body=ORIGINAL)
    try:
        Post.objects.create(body=COPY)
        error = None
    except IntegrityError as e:
        error = e
    check.rejected("error: create() of a copy: IntegrityError", error and error.__cause__.diag, original.id)
    # in a transaction: a savepoint around each insert keeps the rest
    with transaction.atomic():
        check.savepoint_per_insert("error: with a savepoint per insert the transaction goes on",
                                   create_unless_duplicate)
    # without one, the transaction is aborted
    try:
        with transaction.atomic():
            try:
                Post.objects.create(body=COPY)
            except IntegrityError:
                pass
            Post.objects.create(body="Never stored.")
        outcome = "no error"
    except TransactionManagementError:
        outcome = "TransactionManagementError"
    check("error: without a savepoint the transaction cannot go on", outcome == "TransactionManagementError", outcome)
    # a bulk insert is one statement: one copy rejects it all
    try:
        with transaction.atomic():
            Post.objects.bulk_create([Post(body="Fresh text number one."), Post(body=COPY)])
        outcome = "no error"
    except IntegrityError:
        outcome = "IntegrityError"
    check("error: bulk_create() with a copy is rejected as a whole", outcome == "IntegrityError", outcome)
    stored = marks()
    check("error: only the originals are stored", stored == {ORIGINAL: None, OTHER: None, OWN: None},
          stored)


def main():
    with connection.cursor() as cur:
        for statement in SETUP:
            cur.execute(statement)
        cur.execute(VERSION)
        print("Django %s, psycopg2, nddup %s" % (django.get_version(), cur.fetchone()[0]))
    test_mark()
    test_skip()
    test_error()
    return check.summary("django")


if __name__ == "__main__":
    sys.exit(main())
