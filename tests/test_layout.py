"""The compact on-disk layout (issue 12 item 3, migration m009): a contentless full-text index whose rows are removed
with the exact values they were written with, texts stored once (compressed where it pays), and an index that stays
exact through every write path: import, capture between older turns, forget, forget_matching, supersede, edit,
reindex, prune, the migration from the previous layout. A wrong delete on a contentless index corrupts it silently,
so each step compares the index with one built afresh from ``docs`` (:func:`memdir.store.sqlite.index.check_fts`)."""

from __future__ import annotations

import random
import shutil
import sqlite3

import pytest

import memdir
from memdir.store.sqlite import codec, index, opening
from memdir.capture.tools import summarise_tool

WORDS = ("deploy staging cluster frankfurt helsinki token rotate postgres migration pnpm webpack cache lock "
         "timeout retry zebracorn quokka 部署 数据库 迁移 超时 锁表 缓存 客户端 参数").split()


def _text(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def _long_tool(rng: random.Random, needle: str) -> str:
    lines = [f"line {i}: {_text(rng, 8)}" for i in range(120)]
    lines[90] = needle
    return summarise_tool("Bash", "make test", "\n".join(lines))


def _events(rng: random.Random, n: int, *, t0: int = 1_790_000_000, sessions: int = 4, prefix: str = "e") -> list[dict]:
    out = []
    for i in range(n):
        role = rng.choice(("user", "assistant", "tool"))
        text = _long_tool(rng, f"needle{i} {_text(rng, 3)}") if role == "tool" and rng.random() < 0.3 else \
            f"{prefix}{i} " + _text(rng, rng.randint(3, 60))
        out.append({"key": f"{prefix}:{i}", "role": role, "text": text, "session": f"s{rng.randrange(sessions)}",
                    "ts": t0 + rng.randrange(100_000)})
    return out


def _exact(m) -> None:
    for root in m.roots.values():
        if root.path.exists() and (root.path / ".memdir").exists():
            assert index.check_fts(root.db) == [], root.scope


def _recall_ids(m, queries) -> list[list[str]]:
    return [[h.id for h in m.recall(q, k=8)] for q in queries]


def test_fresh_index_is_contentless_and_texts_are_stored_compressed(project, tmp_path):
    rng = random.Random(1)
    long_text = "the release checklist says " + _text(rng, 400)
    with memdir.open(project, home=tmp_path / "g") as m:
        m.import_events([{"key": "k1", "role": "assistant", "text": long_text, "session": "s", "ts": 1_790_000_000},
                         {"key": "k2", "role": "user", "text": "short one", "session": "s", "ts": 1_790_000_010}])
        db = m.roots["project"].db
        names = {r[0] for r in db.execute("SELECT name FROM sqlite_master")}
        assert "fts_content" not in names  # FTS5 keeps no second copy of the token streams
        row = db.execute("SELECT typeof(text_tail), text_len, text_head, text FROM docs WHERE ref = 'k1'").fetchone()
        assert row[0] == "blob" and row[1] == len(long_text) and row[2] == long_text[:codec.TEXT_HEAD] and row[3] == long_text
        assert db.execute("SELECT text_tail FROM docs WHERE ref = 'k2'").fetchone()[0] is None
        assert m.get("k1").text == long_text
        assert next(h for h in m.recall("release checklist") if h.id == "k1").text == long_text
        assert db.execute("SELECT ctx_prev, ctx_next FROM docs WHERE ref = 'k1'").fetchone()[:] == (
            None, db.execute("SELECT id FROM docs WHERE ref = 'k2'").fetchone()[0])
        _exact(m)


@pytest.mark.slow  # over 5 s: CI runs it in `make test-slow`
def test_the_index_stays_exact_through_every_write_path(project, tmp_path):
    rng = random.Random(7)
    clock_now = [1_790_200_000.0]
    with memdir.open(project, home=tmp_path / "g") as m:
        m.import_events(_events(rng, 120))
        _exact(m)
        # turns arriving between older turns of the same sessions (the neighbours' context changes)
        m.import_events(_events(rng, 40, prefix="late"))
        _exact(m)
        for i in range(5):  # one at a time, as capture does
            m.capture({"role": "user", "text": f"captured turn {i} about {_text(rng, 6)}", "session": "s1"})
        _exact(m)
        # forget from the middle of a session, its first and last turn, a long tool event with passages
        db = m.roots["project"].db
        for sess in ("s0", "s2"):
            order = [r[0] for r in db.execute("SELECT ref FROM docs WHERE kind = 'event' AND session = ? ORDER BY ts_epoch, id", (sess,))]
            for ref in (order[len(order) // 2], order[0], order[-1]):
                assert m.forget(ref)
                _exact(m)
        tool = db.execute("SELECT ref FROM docs d WHERE EXISTS (SELECT 1 FROM passages p WHERE p.doc_id = d.id)").fetchone()
        assert tool is not None and m.forget(tool[0])
        _exact(m)
        preview = m.forget_matching(query="zebracorn")
        if preview["count"]:
            m.forget_matching(query="zebracorn", token=preview["token"])
        m.forget_matching(prefix="late:", force=True)
        _exact(m)
        # notes: remember, supersede, edit, delete, reindex
        a = m.remember("the deploy target is the staging cluster in frankfurt", category="facts")
        b = m.remember("the deploy target is the staging cluster in helsinki now", category="facts", supersedes=a.id)
        _exact(m)
        m.edit(b.id, text=b.path.read_text(encoding="utf-8").replace("helsinki now", "helsinki since monday"))
        _exact(m)
        assert m.forget(a.id)
        _exact(m)
        m.reindex()
        _exact(m)
        hits = m.recall("helsinki")
        assert hits and hits[0].id == b.id


def test_recall_equals_a_fresh_rebuild_after_deletes(project, tmp_path):
    rng = random.Random(11)
    queries = ["deploy frankfurt", "数据库 迁移", "needle3", "zebracorn quokka", "timeout retry lock", "缓存 客户端"]
    with memdir.open(project, home=tmp_path / "g") as m:
        m.import_events(_events(rng, 150))
        m.import_events(_events(rng, 30, prefix="late"))
        for ref in rng.sample([f"e:{i}" for i in range(150)], 25):
            m.forget(ref)
        m.remember("the webpack cache lives in node_modules/.cache", category="facts")
        got = _recall_ids(m, queries)
        path = m.roots["project"].db_path
    copy = tmp_path / "copy"
    shutil.copytree(project, copy)
    with memdir.open(copy, home=tmp_path / "g") as m2:
        db = m2.roots["project"].db
        db.execute("BEGIN IMMEDIATE")
        index.rebuild_fts(db)
        db.execute("COMMIT")
        _exact(m2)
        assert _recall_ids(m2, queries) == got
        fresh_vocab = [tuple(r) for r in db.execute("SELECT term, doc, cnt FROM fts_vocab ORDER BY term")]
    db = sqlite3.connect(path)
    assert db.execute("SELECT term, doc, cnt FROM fts_vocab ORDER BY term").fetchall() == fresh_vocab
    db.close()


def test_prune_gives_space_back_and_keeps_the_index_exact(project, tmp_path):
    rng = random.Random(3)
    with memdir.open(project, home=tmp_path / "g") as m:
        m.import_events(_events(rng, 400, sessions=2))
        path = m.roots["project"].db_path
        before = opening.file_size(path)
        m.forget_matching(prefix="e:", force=True)
        _exact(m)
        assert m.roots["project"].db.execute("SELECT count(*) FROM fts").fetchone()[0] == 0
        assert opening.file_size(path) < before


def test_a_store_of_the_previous_layout_is_converted(project, tmp_path):
    """m009 on an index written by the schema-8 memdir: texts moved into the compact columns, the contentless index
    and the neighbour ids rebuilt from them; recall, handles and passages as before."""
    from old_layout import build_old_index

    rng = random.Random(5)
    events = _events(rng, 80)
    with memdir.open(project, home=tmp_path / "g") as m:
        path = m.roots["project"].db_path
    build_old_index(path, 8, events)
    old = sqlite3.connect(path)
    handle = old.execute("SELECT handle FROM docs WHERE ref = 'e:5'").fetchone()[0]
    assert old.execute("SELECT count(*) FROM fts_content").fetchone()[0] > 0
    old.close()
    with memdir.open(project, home=tmp_path / "g") as m:
        db = m.roots["project"].db
        assert db.execute("PRAGMA user_version").fetchone()[0] >= 9
        assert "fts_content" not in {r[0] for r in db.execute("SELECT name FROM sqlite_master")}
        _exact(m)
        by_key = {e["key"]: e["text"] for e in events}
        assert {r[0]: r[1] for r in db.execute("SELECT ref, text FROM docs")} == by_key
        assert db.execute("SELECT handle FROM docs WHERE ref = 'e:5'").fetchone()[0] == handle and m.get(handle).key == "e:5"
        long = next(e for e in events if e["text"].startswith("Bash: make test"))
        needle = next(w for w in long["text"].split() if w.startswith("needle"))
        hit = next(h for h in m.recall(needle) if h.id == long["key"])
        assert hit.span and needle in hit.text[hit.span[0]:hit.span[1]]
        assert db.execute("SELECT count(*) FROM passages").fetchone()[0] > 0
        for e in events[:10]:
            assert e["key"] in [h.id for h in m.recall(e["text"][:80], k=20)]
        m.forget(events[3]["key"])
        m.import_events(_events(rng, 10, prefix="after"))
        _exact(m)


def test_a_missing_neighbour_marks_the_index_for_a_rebuild(project, tmp_path):
    with memdir.open(project, home=tmp_path / "g") as m:
        m.import_events([{"key": f"k{i}", "role": "user", "text": f"turn {i} quokka", "session": "s", "ts": 1_790_000_000 + i}
                         for i in range(4)])
        db = m.roots["project"].db
        # a hand edit removes a turn behind memdir's back (its neighbours' context still names it)
        db.execute("DELETE FROM docs WHERE ref = 'k1'")
        m.import_events([{"key": "k9", "role": "user", "text": "turn 9 quokka", "session": "s", "ts": 1_790_000_001.5}])
    with memdir.open(project, home=tmp_path / "g") as m:
        _exact(m)
        assert {h.id for h in m.recall("quokka")} == {"k0", "k2", "k3", "k9"}


@pytest.mark.parametrize("seed", [21, 22])
def test_random_write_sequences_keep_the_index_exact(project, tmp_path, seed):
    """Seeded random interleavings of every write the Store offers (bulk import, single inserts without neighbour
    context, turns with equal timestamps, events without a session, upserts of events and notes, deletes, context
    refreshes, a tokenizer rebuild): after each step the index equals one built afresh from ``docs``."""
    from memdir.store.sqlite.store import SqliteStore

    rng = random.Random(seed)
    with memdir.open(project, home=tmp_path / "g") as m:
        st = SqliteStore(m.roots["project"].db)
        n = 0
        for step in range(40):
            op = rng.choice(("import", "import", "single", "upsert_event", "upsert_note", "delete", "delete", "refresh"))
            with st.transaction():
                if op == "import":
                    pending: dict[int, str] = {}
                    for ev in _events(rng, rng.randint(1, 12), sessions=3, prefix=f"b{step}-"):
                        ev = {"kind": "event", "ref": ev["key"], "content_sha256": f"{seed}-{n}", "role": ev["role"],
                              "session": rng.choice((ev["session"], ev["session"], None)), "ts": "2026-01-01T00:00:00.000Z",
                              "ts_epoch": float(rng.choice((ev["ts"], 1_790_000_000))), "text": ev["text"]}
                        n += 1
                        st.insert_event(ev, pending=pending)
                    st.flush_events(pending)
                elif op == "single":
                    st.insert_event({"kind": "event", "ref": f"one{step}", "content_sha256": f"{seed}-{n}", "role": "user",
                                     "session": "s1", "ts": "2026-01-01T00:00:00.000Z", "ts_epoch": 1_790_000_000.0 + step,
                                     "text": f"single {step} " + _text(rng, 20)})
                    n += 1
                elif op in ("upsert_event", "upsert_note"):
                    refs = [r[0] for r in st.db.execute("SELECT ref FROM docs WHERE kind = ?", ("event" if op == "upsert_event" else "note",))]
                    ref = rng.choice(refs) if refs and rng.random() < 0.5 else f"up{step}"
                    row = {"kind": "event" if op == "upsert_event" else "note", "ref": ref, "content_sha256": f"{seed}-{n}",
                           "role": "tool" if op == "upsert_event" else None, "session": "s2" if op == "upsert_event" else None,
                           "ts": "2026-01-01T00:00:00.000Z", "ts_epoch": 1_790_000_000.0 + step,
                           "text": _long_tool(rng, f"needle{step}") if op == "upsert_event" else "note " + _text(rng, 15)}
                    if op == "upsert_note":
                        row.update(category="facts", note_kind="fact", summary=_text(rng, 4), tags='["x", "数据库"]', load_when="[]")
                    n += 1
                    st.upsert_doc(row)
                elif op == "delete":
                    refs = [r[0] for r in st.db.execute("SELECT ref FROM docs")]
                    for ref in rng.sample(refs, min(len(refs), rng.randint(1, 4))):
                        st.delete_doc(ref)
                else:
                    st.refresh_context([f"s{i}" for i in range(3)])
            assert index.check_fts(st.db) == [], (step, op)
        st.db.execute("UPDATE meta SET value = 'older' WHERE key = 'tokenizer'")
        assert opening.check_tokenizer(st.db) > 0
        assert index.check_fts(st.db) == []


def test_reindex_rebuilds_the_events_full_text_rows_too(tmp_path):
    """doctor names `memdir reindex` for an index that disagrees with its documents; it rebuilt notes only,
    so a lost event row stayed lost (hreview2). Now every full-text row is rebuilt from the stored texts."""
    import memdir
    from memdir.store.sqlite import index

    proj = tmp_path / "p"
    (proj / ".git").mkdir(parents=True)
    with memdir.open(proj, home=tmp_path / "h") as m:
        m.remember("we deploy with blue-green switches", category="decisions")
        m.import_events([{"key": f"u:s:{i}", "role": "user", "text": f"the zeppelin hangar door {i} sticks in winter",
                          "session": "s", "ts": f"2026-11-01T10:0{i}:00Z"} for i in range(3)])
        root = m.stores.live("project")[0]
        db = root.db
        with root.locked(), root.tx() as tx:  # lose the rows of every event (a damaged index)
            tx.execute("INSERT INTO fts(fts) VALUES ('delete-all')")
        assert not m.recall("zeppelin")
        m.reindex()
        assert len(m.recall("zeppelin hangar")) == 3 and m.recall("blue-green")
        assert index.check_fts(db) == []


def test_m009_on_sqlite_before_3_35_rebuilds_docs_like_drop_column(project, tmp_path, monkeypatch):
    """SQLite < 3.35 has no ``DROP COLUMN`` (RHEL 9's Python links 3.34): m009 rebuilds ``docs`` instead, and the
    result has the same columns, indexes, rows and ids as the in-place path."""
    from old_layout import build_old_index
    from memdir.store.sqlite import migrations

    events = _events(random.Random(9), 40)
    shapes = {}
    for native in (True, False):
        monkeypatch.setattr(migrations, "HAS_DROP_COLUMN", native)
        path = tmp_path / f"native{native}" / "index.db"
        build_old_index(path, 8, events)
        db = sqlite3.connect(path)
        migrations.migrate(db, upto=9)
        shapes[native] = (
            [r[1:] for r in db.execute("PRAGMA table_xinfo(docs)")],
            sorted(r[0] for r in db.execute("SELECT sql FROM sqlite_master WHERE tbl_name = 'docs' AND type = 'index' AND sql IS NOT NULL")),
            db.execute("SELECT id, ref, handle, text_head, text_tail, text_len FROM docs ORDER BY id").fetchall(),
        )
        db.close()
    assert shapes[False] == shapes[True]
    assert any(c[0] == "text" for c in shapes[False][0]) and len(shapes[False][2]) == 40
    monkeypatch.setattr(migrations, "HAS_DROP_COLUMN", False)
    with memdir.open(project, home=tmp_path / "g") as m:
        path = m.roots["project"].db_path
    build_old_index(path, 8, events)
    with memdir.open(project, home=tmp_path / "g") as m:
        _exact(m)
        assert {r[0]: r[1] for r in m.roots["project"].db.execute("SELECT ref, text FROM docs")} == {e["key"]: e["text"] for e in events}


def test_an_old_sqlite_library_gets_one_clear_line(project, tmp_path, monkeypatch):
    monkeypatch.setattr(sqlite3, "sqlite_version_info", (3, 30, 1))
    monkeypatch.setattr(sqlite3, "sqlite_version", "3.30.1")
    with pytest.raises(memdir.MemdirError, match=r"needs SQLite 3\.31\.0 or newer; this Python links SQLite 3\.30\.1"):
        with memdir.open(project, home=tmp_path / "g") as m:
            m.remember("we deploy with make release", kind="fact")
