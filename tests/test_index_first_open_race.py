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
