"""What the clients of test/orm/ share: the recipe's table, the texts, the
trigger of each action and the bookkeeping of the checks.

The table is the insert-time recipe of docs/trigger.md: the fingerprint is a
generated column the clients need not know about, the trigger fills
duplicate_of (action=mark), drops the row (skip) or raises 23505 (error).
"""

ORIGINAL = ("PostgreSQL 15 adds the MERGE command, which lets one statement insert, update or "
            "delete rows of a target table depending on a join with a source.")
COPY = ("PostgreSQL 15 adds the MERGE command, which lets one statement insert, update or "
        "delete the rows of a target table depending on a join with the source.")
OTHER = ("Sourdough needs a lively starter, a long cold proof in the fridge and a very hot oven "
         "with steam for the first twenty minutes of the bake.")
OTHER_COPY = OTHER.replace("twenty", "20") + "!"
OWN = "A post of its own."
GARDEN = "Brand new text about gardening in spring."

RECIPE = """
CREATE TABLE posts (
    id           bigserial PRIMARY KEY,
    body         text NOT NULL,
    fp           simhash64 GENERATED ALWAYS AS (simhash(body)) STORED,
    duplicate_of bigint
);
CREATE INDEX posts_fp_idx ON posts USING gin (fp simhash64_gin_ops)
    WITH (fastupdate = off) WHERE duplicate_of IS NULL;
CREATE INDEX ON posts (duplicate_of);
"""

# a fresh posts table (one statement each); the installed version of nddup
SETUP = ["CREATE EXTENSION IF NOT EXISTS nddup", "DROP TABLE IF EXISTS posts", RECIPE]
VERSION = "SELECT extversion FROM pg_extension WHERE extname = 'nddup'"
# empty the table; give its trigger an action (TRIGGER % action); read the
# trigger's settings back
EMPTY = "TRUNCATE posts RESTART IDENTITY"
TRIGGER = """CREATE OR REPLACE TRIGGER dedup BEFORE INSERT OR UPDATE OF body ON posts
             FOR EACH ROW EXECUTE FUNCTION nddup_dedup_trigger(
                 'fingerprint=fp', 'source=body', 'radius=12', 'action=%s')"""
TRIGGER_SETTINGS = "SELECT settings FROM nddup_check_trigger('posts')"


class Checks:
    """The assertions of one client: each printed as it is made, failures counted."""

    def __init__(self):
        self.count = 0
        self.failures = []

    def __call__(self, name, condition, detail=""):
        """Record one assertion."""
        self.count += 1
        print("%s %s%s" % ("ok  " if condition else "FAIL", name,
                           (": " + str(detail)) if detail and not condition else ""))
        if not condition:
            self.failures.append(name)

    def rejected(self, label, diag, original_id):
        """The checks of an insert that action=error rejects: diag is the driver's
        error diagnostics (None when nothing was raised)."""
        self("%s raises" % label, diag is not None)
        if diag is not None:
            self("%s: SQLSTATE 23505, the trigger's name as the constraint" % label,
                 (diag.sqlstate, diag.constraint_name) == ("23505", "dedup"), (diag.sqlstate, diag.constraint_name))
            self("%s: the detail names the original" % label,
                 "Key (id)=(%d) is the original" % original_id in (diag.message_detail or ""), diag.message_detail)

    def savepoint_per_insert(self, label, insert):
        """insert(body) returns the new row or None for a copy: an original, a copy and
        an original in one transaction must all go through."""
        got = [insert(body) for body in (OTHER, OTHER_COPY, OWN)]
        self(label, got[0] is not None and got[1] is None and got[2] is not None, got)

    def summary(self, client):
        """Print the client's result line; the process's exit code."""
        print("%s: %d checks, %d failed%s" % (client, self.count, len(self.failures),
                                             (" (" + "; ".join(self.failures) + ")") if self.failures else ""))
        return 1 if self.failures else 0
