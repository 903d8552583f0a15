"""Issue 26 (size), migration m014: ``docs.content_sha256`` stored as 32 bytes and ``docs.ts`` derived from
``ts_epoch`` where SQLite renders it exactly; readers, dedup by hash and old stores keep their values."""

from __future__ import annotations

import hashlib
import random
import sqlite3

import memdir
from memdir.store.sqlite import codec, index, opening
from memdir.store.sqlite.migrations import MIGRATIONS


def _events(n: int) -> list[dict]:
    rng = random.Random(3)
    words = "deploy staging kafka lag cache token rotate migration schema parser".split()
    return [{"key": f"e:{i}", "role": "user" if i % 2 else "assistant", "session": f"s{i % 3}",
             "text": f"turn {i}: " + " ".join(rng.choice(words) for _ in range(12)), "ts": 1_790_000_000 + i * 61.5}
            for i in range(n)]


def test_hash_is_stored_as_bytes_and_read_as_hex(project, tmp_path):
    evs = _events(20)
    with memdir.open(project, home=tmp_path / "g") as m:
        m.import_events(evs)
        db = m.roots["project"].db
        rows = db.execute("SELECT ref, sha, content_sha256, ts, ts_raw, ts_epoch FROM docs").fetchall()
        assert len(rows) == 20
        for r in rows:
            assert isinstance(r["sha"], bytes) and len(r["sha"]) == 32 and r["sha"].hex() == r["content_sha256"]
            assert r["ts_raw"] is None  # memdir's own ISO times are derivable from the epoch
            assert r["ts"].endswith("Z") and len(r["ts"]) == 24
        assert "sha" not in m.roots["project"].store.get_doc("e:1")
        # the same text under another key is still a duplicate (the unique index is on the bytes)
        got = m.import_events([{**evs[4], "key": "other"}])
        assert got["duplicate"] == 1 and got["stored"] == 0
        sha = db.execute("SELECT content_sha256 FROM docs WHERE ref = 'e:4'").fetchone()[0]
        assert m.roots["project"].store.has_text(sha) and m.roots["project"].store.has_text(sha, "event")
        assert not m.roots["project"].store.has_text("0" * 64)
        plan = " ".join(r[3] for r in db.execute("EXPLAIN QUERY PLAN SELECT 1 FROM docs WHERE kind = 'event' AND sha = ?",
                                                   (b"x" * 32,)))
        assert "docs_event_sha" in plan
        assert index.check_fts(db) == []


def test_a_time_or_hash_the_epoch_cannot_restore_is_kept():
    db = sqlite3.connect(":memory:")
    opening.add_functions(db)
    from memdir.store.sqlite.migrations import migrate

    migrate(db)
    for ref, ts, sha in (("a", "2026-09-21T10:00:00+02:00", "not-a-hash"), ("b", "2026-09-21T08:00:00Z", "AB" * 32),
                         ("c", "2026-09-21T08:00:00.000Z", hashlib.sha256(b"c").hexdigest())):
        cols, _ = codec.doc_columns(db, {"kind": "event", "ref": ref, "content_sha256": sha, "ts": ts,
                                         "ts_epoch": 1_789_977_600.0, "text": "x"})
        codec.write(db, *codec.insert_sql("INSERT", cols))
    got = {r[0]: r[1:] for r in db.execute("SELECT ref, ts, ts_raw, content_sha256, typeof(sha) FROM docs")}
    assert got["a"] == ("2026-09-21T10:00:00+02:00", "2026-09-21T10:00:00+02:00", "not-a-hash", "text")
    assert got["b"] == ("2026-09-21T08:00:00Z", "2026-09-21T08:00:00Z", "AB" * 32, "text")  # not lowercase: kept as is
    assert got["c"] == ("2026-09-21T08:00:00.000Z", None, hashlib.sha256(b"c").hexdigest(), "blob")


def test_a_schema_13_store_is_upgraded_in_place(project, tmp_path):
    """Back to the schema-13 columns (hex hash, stored ts, hash indexes on the text): m014 moves every value and
    readers see the same rows, recall unchanged."""
    evs = _events(60)
    with memdir.open(project, home=tmp_path / "g") as m:
        path = m.roots["project"].db_path
        m.import_events(evs)
        want = {r["ref"]: (r["content_sha256"], r["ts"]) for r in m.roots["project"].db.execute("SELECT * FROM docs")}
        before = [[h.id for h in m.recall(q, k=5)] for q in ("kafka lag", "token rotate", "schema parser")]
    db = sqlite3.connect(path, isolation_level=None)
    opening.add_functions(db)
    db.execute("BEGIN")
    db.execute("DROP VIEW events")
    for ix in ("docs_event_sha", "docs_note_sha"):
        db.execute(f"DROP INDEX {ix}")
    db.execute("ALTER TABLE docs ADD COLUMN h TEXT")
    db.execute("ALTER TABLE docs ADD COLUMN t TEXT")
    db.execute("UPDATE docs SET h = content_sha256, t = ts")
    db.execute("UPDATE docs SET t = '2026-09-21T10:00:00+02:00' WHERE ref = 'e:7'")  # a zone the epoch cannot give
    for c in ("content_sha256", "ts", "sha", "ts_raw"):
        db.execute(f"ALTER TABLE docs DROP COLUMN {c}")
    db.execute("ALTER TABLE docs RENAME COLUMN h TO content_sha256")
    db.execute("ALTER TABLE docs RENAME COLUMN t TO ts")
    db.execute("CREATE UNIQUE INDEX docs_event_sha ON docs(content_sha256) WHERE kind = 'event'")
    db.execute("CREATE INDEX docs_note_sha ON docs(content_sha256) WHERE kind = 'note'")
    db.execute("CREATE VIEW events AS SELECT id, ref AS key, content_sha256, session, role, ts, text FROM docs WHERE kind = 'event'")
    db.execute("PRAGMA user_version = 13")
    db.execute("COMMIT")
    assert isinstance(db.execute("SELECT content_sha256 FROM docs LIMIT 1").fetchone()[0], str)
    db.close()
    want["e:7"] = (want["e:7"][0], "2026-09-21T10:00:00+02:00")
    with memdir.open(project, home=tmp_path / "g") as m:
        db = m.roots["project"].db
        assert db.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
        assert {r["ref"]: (r["content_sha256"], r["ts"]) for r in db.execute("SELECT * FROM docs")} == want
        assert {r[0]: r[1] for r in db.execute("SELECT key, ts FROM events")} == {k: v[1] for k, v in want.items()}
        assert db.execute("SELECT count(*) FROM docs WHERE ts_raw IS NOT NULL").fetchone()[0] == 1
        assert db.execute("SELECT count(*) FROM docs WHERE typeof(sha) = 'blob'").fetchone()[0] == 60
        assert [[h.id for h in m.recall(q, k=5)] for q in ("kafka lag", "token rotate", "schema parser")] == before
        assert m.import_events([{**evs[9], "key": "again"}])["duplicate"] == 1
        assert index.check_fts(db) == []
