"""Two hooks of a new project both found no index file; the one that opened it second took the index the first had
just created (and stored into) for a new one, moved its events into the ledger's lost count, and every command then
warned that they were gone (a walkthrough: 3 runs of 6 with 5 parallel prompt hooks). "Created" is now what this
process did (it applied the first migration), not what it saw before opening."""

from __future__ import annotations

import pathlib

import memdir
from memdir.store.sqlite import ledger, opening


class LookedTooEarly(type(pathlib.Path())):
    """The index path as a second process saw it: absent when it looked, created by another one right after."""

    def exists(self, *a, **k):
        return False


def test_an_index_another_process_created_meanwhile_is_not_taken_for_a_new_one(project, tmp_path):
    with memdir.open(project, home=tmp_path / "g") as m:
        m.capture({"role": "user", "text": "why does the helm deploy hang on the second node", "session": "s1"})
        path = m.roots["project"].db_path
    assert ledger.read(path)["events"] == 1
    db, created = opening.open_index(LookedTooEarly(path))
    db.close()
    assert not created
    assert ledger.read(path) == {"events": 1, "lost": 0, "rebuilt_at": None}
    assert ledger.notice(path) is None


def test_a_deleted_index_is_still_a_new_one_and_says_so(project, tmp_path):
    with memdir.open(project, home=tmp_path / "g") as m:
        m.capture({"role": "user", "text": "why does the helm deploy hang on the second node", "session": "s1"})
        path = m.roots["project"].db_path
    for suffix in ("", "-wal", "-shm"):
        pathlib.Path(str(path) + suffix).unlink(missing_ok=True)
    db, created = opening.open_index(path)
    db.close()
    assert created and ledger.read(path)["lost"] == 1


def test_an_index_made_by_this_process_is_new_even_when_another_had_just_opened_the_file(project, tmp_path):
    """Two processes: one connected first (the file exists, 4 KB, no schema), the other made the schema: that one
    brings the forgotten items back into its new index (the tombstone log), as a new index must."""
    import sqlite3

    with memdir.open(project, home=tmp_path / "g") as m:
        m.capture({"role": "user", "text": "the staging password rotation runs on fridays", "session": "s1"})
        m.forget(m.recent(kinds=["user"])[0].id)
        path = m.roots["project"].db_path
    for suffix in ("", "-wal", "-shm"):
        pathlib.Path(str(path) + suffix).unlink(missing_ok=True)
    sqlite3.connect(path).execute("PRAGMA journal_mode=WAL").close()  # another process opened it first
    db, created = opening.open_index(path)
    try:
        assert created
        assert db.execute("SELECT count(*) FROM tombstones").fetchone()[0] >= 1
    finally:
        db.close()
