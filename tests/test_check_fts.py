"""``memdir doctor``'s full-text check finds postings that do not match the documents: a contentless index deletes a
row with the values it is given, so a delete with other values leaves the old postings behind (and the counts of
rows still agree)."""

from __future__ import annotations

import memdir
from memdir.store.sqlite import index


def test_stale_postings_are_found_and_reindex_clears_them(tmp_path):
    (tmp_path / "p" / ".git").mkdir(parents=True)
    with memdir.open(tmp_path / "p", home=tmp_path / "g") as m:
        m.import_events([{"key": f"k{i}", "role": "user", "text": f"the cormorant rollout step {i} needs a freeze",
                          "session": "s", "ts": 1_790_000_000 + i} for i in range(20)])
        db = m.stores.roots["project"].db
        assert index.check_fts(db) == []
        rid = db.execute("SELECT id FROM docs WHERE ref = 'k3'").fetchone()[0]
        with db:  # deleted with other words than it was indexed with, then indexed again: 'cormorant' stays twice
            db.execute("INSERT INTO fts(fts, rowid, tags, title, body, context) VALUES ('delete', ?, '', '', "
                       "'pelican', '')", (rid,))
            db.execute("INSERT INTO fts(rowid, tags, title, body, context) VALUES (?, '', '', 'cormorant rollout', '')",
                       (rid,))
        problems = index.check_fts(db)
        assert problems and any("cormorant" in p or "pelican" in p for p in problems), problems
        bad = [c for c in m.doctor(repair=False) if c["check"] == "project fts terms"]
        assert bad and bad[0]["ok"] == "warn" and "reindex" in bad[0]["remedy"], bad
        m.reindex()
        assert index.check_fts(m.stores.roots["project"].db) == []


def _two_events(tmp_path):
    (tmp_path / "p" / ".git").mkdir(parents=True)
    m = memdir.open(tmp_path / "p", home=tmp_path / "g")
    m.import_events([{"key": "a", "role": "user", "text": "redis times out under load", "session": "s",
                      "ts": 1_790_000_000},
                     {"key": "b", "role": "user", "text": "pnpm lockfile drifted again", "session": "s",
                      "ts": 1_790_000_100}])
    db = m.stores.roots["project"].db
    tokens = index.Tokens(db)
    rows = {r["ref"]: (r["id"], index.event_values(r, tokens)) for r in db.execute("SELECT * FROM docs")}
    assert index.check_fts(db) == []
    return m, db, rows


_DELETE = "INSERT INTO fts(fts, rowid, tags, title, body, context) VALUES ('delete', ?, ?, ?, ?, ?)"
_INSERT = "INSERT INTO fts(rowid, tags, title, body, context) VALUES (?, ?, ?, ?, ?)"


def test_postings_swapped_between_two_rows_are_found(tmp_path):
    """The counts per term agree, and recall returns the other event: the rows holding each term differ."""
    m, db, rows = _two_events(tmp_path)
    (ia, va), (ib, vb) = rows["a"], rows["b"]
    with db:
        db.execute(_DELETE, (ia, *va))
        db.execute(_DELETE, (ib, *vb))
        db.execute(_INSERT, (ia, *vb))
        db.execute(_INSERT, (ib, *va))
    assert index.check_fts(db), "swapped postings not found"
    m.close()


def test_postings_under_a_row_no_document_has_are_found(tmp_path):
    m, db, rows = _two_events(tmp_path)
    ia, va = rows["a"]
    with db:
        db.execute(_DELETE, (ia, *va))
        db.execute(_INSERT, (ia + 100_000, *va))
    problems = index.check_fts(db)
    assert any(str(ia + 100_000) in p for p in problems), problems
    m.close()
