"""The FTS index merges FTS_AUTOMERGE segments at a time (migration m016, issue 26's ingest): a new store has it, a
store made before is given it at its next open with every row kept, and recall reads the same rows either way."""

from __future__ import annotations

import sqlite3

import memdir
from memdir.store.sqlite.migrations import FTS_AUTOMERGE, MIGRATIONS


def _automerge(db) -> int | None:
    row = db.execute("SELECT v FROM fts_config WHERE k = 'automerge'").fetchone()
    return None if row is None else int(row[0])


def test_a_new_store_merges_more_segments_at_a_time(tmp_path):
    (tmp_path / "p" / ".git").mkdir(parents=True)
    with memdir.open(tmp_path / "p", home=tmp_path / "h") as m:
        m.import_events([{"key": f"e:{i}", "role": "user", "text": f"deploy step {i} uses port {8000 + i}",
                          "session": "s"} for i in range(40)])
        db = m.roots["project"].db
        assert FTS_AUTOMERGE > 4 and _automerge(db) == FTS_AUTOMERGE  # FTS5's default is 4 (no row)


def test_an_older_store_is_given_it_and_keeps_its_rows(tmp_path):
    (tmp_path / "p" / ".git").mkdir(parents=True)
    events = [{"key": f"e:{i}", "role": "user", "text": f"the cache key {i} is sha256 of the lockfile", "session": "s"}
              for i in range(30)]
    with memdir.open(tmp_path / "p", home=tmp_path / "h") as m:
        m.import_events(events)
        path = m.roots["project"].db.execute("PRAGMA database_list").fetchone()[2]
        before = [h.id for h in m.recall("cache key lockfile", k=30)]
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("DELETE FROM fts_config WHERE k = 'automerge'")  # as m015 left it
    db.execute(f"PRAGMA user_version = {len(MIGRATIONS) - 1}")
    db.close()
    with memdir.open(tmp_path / "p", home=tmp_path / "h") as m:
        db = m.roots["project"].db
        assert db.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
        assert _automerge(db) == FTS_AUTOMERGE
        assert [h.id for h in m.recall("cache key lockfile", k=30)] == before and len(before) == 30
