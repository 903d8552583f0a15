"""Texts compressed with the store's own dictionary (issue 12 size, migrations m011 and m015): every text reads back
exactly through every way a store fills (one bulk import, captures one at a time, two stores in one process, the
migration of an older store), a dictionary made in a transaction that was rolled back is never used, and a store
whose zlib dictionary predates m015 keeps reading and writing with it."""

from __future__ import annotations

import gc
import random
import sqlite3
import zlib

import pytest

import memdir
from memdir.engine import events
from memdir.store.sqlite import codec, index

WORDS = ("deploy staging cluster frankfurt helsinki token rotate postgres migration pnpm webpack cache lock timeout "
         "retry release checklist review 部署 数据库 迁移 超时 锁表 缓存 客户端 参数 the a of to and we").split()


def _events(rng: random.Random, n: int, prefix: str = "e", session: str = "s") -> list[dict]:
    return [{"key": f"{prefix}{i}", "role": rng.choice(("user", "assistant")), "session": session,
             "text": f"{prefix}{i} " + " ".join(rng.choice(WORDS) for _ in range(rng.randint(5, 120))),
             "ts": 1_790_000_000 + i} for i in range(n)]


def _texts(db: sqlite3.Connection) -> dict[str, str]:
    return {r[0]: r[1] for r in db.execute("SELECT ref, text FROM docs")}


def _with_dict(db: sqlite3.Connection) -> int:
    """Compressed tails that name a dictionary: a Zstandard frame with a dictionary id, or a zlib header with FDICT."""
    import zstandard

    def named(t: bytes) -> bool:
        if t[:4] == codec.ZSTD_MAGIC:
            return zstandard.get_frame_parameters(t).dict_id != 0
        return bool(t[1] & 0x20)

    return sum(1 for (t,) in db.execute("SELECT text_tail FROM docs WHERE typeof(text_tail) = 'blob'") if named(t))


@pytest.fixture
def small_sample(monkeypatch):
    """Dictionaries made after 32 KB of tails (the default waits for 256 KB): small test stores get one."""
    monkeypatch.setattr(codec, "ZDICT_SAMPLE", 32 * 1024)


def test_a_bulk_import_makes_the_dictionary_and_every_text_reads_back(project, tmp_path):
    import zstandard

    rng = random.Random(1)
    evs = _events(rng, 1500)
    with memdir.open(project, home=tmp_path / "g") as m:
        m.import_events(evs)
        db = m.roots["project"].db
        zd, did = (db.execute("SELECT value FROM meta WHERE key = ?", (k,)).fetchone()[0] for k in ("zdict", "zdict_id"))
        assert isinstance(zd, bytes) and len(zd) <= codec.ZSTD_DICT_BYTES
        assert did == f"zstd:{zlib.adler32(zd)}" and zstandard.ZstdCompressionDict(zd).dict_id() != 0
        assert _texts(db) == {e["key"]: e["text"] for e in evs}
        # the rows written before the dictionary existed were recompressed with it too
        blobs = db.execute("SELECT count(*) FROM docs WHERE typeof(text_tail) = 'blob'").fetchone()[0]
        assert blobs > 1300 and _with_dict(db) == blobs
        assert index.check_fts(db) == []
        assert m.recall(evs[7]["text"][:60], k=3)[0].id == "e7"
    with memdir.open(project, home=tmp_path / "g") as m:  # a new connection reads them too
        assert _texts(m.roots["project"].db) == {e["key"]: e["text"] for e in evs}


def test_a_dictionary_is_smaller_than_plain_zlib(project, tmp_path, monkeypatch):
    rng = random.Random(2)
    evs = _events(rng, 1500)
    sizes = []
    for n, sample in enumerate((10 ** 12, codec.ZDICT_SAMPLE)):
        monkeypatch.setattr(codec, "ZDICT_SAMPLE", sample)  # 10**12: never made
        with memdir.open(tmp_path / f"p{n}", home=tmp_path / f"g{n}") as m:
            m.import_events(evs)
            db = m.roots["project"].db
            sizes.append(db.execute("SELECT sum(length(text_tail)) FROM docs").fetchone()[0])
            assert _texts(db) == {e["key"]: e["text"] for e in evs}
    assert sizes[1] < sizes[0] * 0.8


def test_captures_one_at_a_time_get_the_dictionary_at_a_later_open(project, tmp_path, small_sample):
    rng = random.Random(3)
    evs = _events(rng, 400)
    for e in evs:  # one process (connection) per capture, as hooks do: none gathers a sample
        with memdir.open(project, home=tmp_path / "g") as m:
            m.import_events([e])
        if e is evs[150]:
            break
    with memdir.open(project, home=tmp_path / "g") as m:
        db = m.roots["project"].db
        assert db.execute("SELECT value FROM meta WHERE key = 'zdict_id'").fetchone() is not None
        assert _with_dict(db) > 100
        assert _texts(db) == {e["key"]: e["text"] for e in evs[:151]}
        m.import_events(evs[151:])
        assert _texts(db) == {e["key"]: e["text"] for e in evs}


def test_a_dictionary_made_in_a_rolled_back_transaction_is_never_used(project, tmp_path, small_sample):
    rng = random.Random(4)
    evs = _events(rng, 600)
    with memdir.open(project, home=tmp_path / "g") as m:
        store = m.roots["project"].store
        with pytest.raises(RuntimeError):
            with store.transaction() as st:
                for e in evs[:400]:
                    row, _ = events.event_row(m.stores, e, m.clock())
                    st.insert_event(row)
                assert st.db.execute("SELECT 1 FROM meta WHERE key = 'zdict_id'").fetchone() is not None
                raise RuntimeError("rolled back")
        db = m.roots["project"].db
        assert db.execute("SELECT count(*) FROM docs").fetchone()[0] == 0
        m.import_events(evs[400:450])  # too few bytes for a dictionary of its own: must not use the vanished one
        assert db.execute("SELECT 1 FROM meta WHERE key = 'zdict_id'").fetchone() is None
        assert _with_dict(db) == 0
        assert _texts(db) == {e["key"]: e["text"] for e in evs[400:450]}


def test_two_stores_in_one_process_keep_their_own_dictionaries(project, tmp_path, small_sample):
    rng = random.Random(5)
    a, b = _events(rng, 500, prefix="a"), _events(random.Random(6), 500, prefix="b")
    with memdir.open(project, home=tmp_path / "g") as m:
        m.import_events(a)
        m.import_events(b, scope="global")
        pdb, gdb = m.roots["project"].db, m.roots["global"].db
        assert pdb.execute("SELECT value FROM meta WHERE key = 'zdict'").fetchone()[0] != \
            gdb.execute("SELECT value FROM meta WHERE key = 'zdict'").fetchone()[0]
        assert _texts(pdb) == {e["key"]: e["text"] for e in a}
        assert _texts(gdb) == {e["key"]: e["text"] for e in b}


def test_an_older_store_is_recompressed_by_the_migration(project, tmp_path, small_sample):
    """m011 on a schema-10 store (plain zlib tails): a dictionary is made and every tail recompressed; texts,
    recall and the index unchanged; the session index is gone."""
    from memdir.store.sqlite.migrations import MIGRATIONS, migrate

    rng = random.Random(7)
    evs = _events(rng, 500)
    with memdir.open(project, home=tmp_path / "g") as m:
        path = m.roots["project"].db_path
        m.import_events(evs)
        before = [[h.id for h in m.recall(q, k=5)] for q in ("deploy staging", "数据库 迁移", "token rotate cache")]
        db = m.roots["project"].db
        # back to the schema-10 layout: tails plain zlib, no dictionary, the session index
        rows = db.execute("SELECT id, text FROM docs").fetchall()
        db.execute("BEGIN")
        codec.write(db, "UPDATE docs SET text_tail = ? WHERE id = ?",
                     [(codec.text_columns(t)[1], i) for i, t in rows], many=True)
        db.execute("DELETE FROM meta WHERE key IN ('zdict', 'zdict_id')")
        db.execute("CREATE INDEX docs_session ON docs(session) WHERE session IS NOT NULL")
        db.execute("PRAGMA user_version = 10")
        db.execute("COMMIT")
        assert _with_dict(db) == 0
    with memdir.open(project, home=tmp_path / "g") as m:
        db = m.roots["project"].db
        assert db.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
        assert "docs_session" not in {r[0] for r in db.execute("SELECT name FROM sqlite_master")}
        assert _with_dict(db) > 400
        assert _texts(db) == {e["key"]: e["text"] for e in evs}
        assert [[h.id for h in m.recall(q, k=5)] for q in ("deploy staging", "数据库 迁移", "token rotate cache")] == before
        assert index.check_fts(db) == []
        assert migrate(db) == len(MIGRATIONS)


def test_a_store_s_dictionary_holds_only_its_own_texts(tmp_path, small_sample):
    """Tails a store gathered before it had a dictionary stay with that store's connection: many stores opened and
    closed in one process (the warm server, a test run) reuse connection ids, and a cache keyed by id once handed a
    new store a closed one's gathered tails, which then went into the new store's dictionary."""
    rng = random.Random(8)
    for i in range(12):  # each just under ZDICT_SAMPLE bytes: its tails are gathered, no dictionary made
        with memdir.open(tmp_path / f"p{i}", home=tmp_path / f"g{i}") as m:
            m.import_events([{"key": f"o{i}-{j}", "role": "user", "session": "s", "ts": 1_790_000_000 + j,
                              "text": f"other store {j} " + f"marker{i}x{j} " * (codec.ZDICT_SAMPLE // 60)}
                             for j in range(3)])
        gc.collect()  # frees the closed connections now, so the next ones may take their ids
    with memdir.open(tmp_path / "mine", home=tmp_path / "gm") as m:
        evs = _events(rng, 400)
        for e in evs:  # one at a time, as captures write: each gathers into the connection's state
            m.import_events([e])
        db = m.roots["project"].db
        zd = db.execute("SELECT value FROM meta WHERE key = 'zdict'").fetchone()[0]
        assert isinstance(zd, bytes) and b"marker" not in zd
        assert _texts(db) == {e["key"]: e["text"] for e in evs}


def test_a_store_with_a_zlib_dictionary_from_before_keeps_it(project, tmp_path, monkeypatch, small_sample):
    """A dictionary made before m015 (or when the Zstandard trainer cannot make one) is a zlib one: it stays, every
    later tail uses it, and texts of both kinds read back."""
    rng = random.Random(9)
    evs = _events(rng, 500)
    monkeypatch.setattr(codec, "_train", lambda texts: (None, None))
    with memdir.open(project, home=tmp_path / "g") as m:
        m.import_events(evs[:300])
        db = m.roots["project"].db
        zd, did = (db.execute("SELECT value FROM meta WHERE key = ?", (k,)).fetchone()[0] for k in ("zdict", "zdict_id"))
        assert zlib.adler32(zd) == int(did)
    monkeypatch.undo()
    with memdir.open(project, home=tmp_path / "g") as m:
        m.import_events(evs[300:])
        db = m.roots["project"].db
        assert db.execute("SELECT value FROM meta WHERE key = 'zdict_id'").fetchone()[0] == did
        tails = [t for (t,) in db.execute("SELECT text_tail FROM docs WHERE typeof(text_tail) = 'blob'")]
        assert tails and not any(t[:4] == codec.ZSTD_MAGIC for t in tails)
        assert _texts(db) == {e["key"]: e["text"] for e in evs}


def test_a_damaged_zstd_dictionary_is_a_database_error_not_garbage(project, tmp_path):
    rng = random.Random(10)
    evs = _events(rng, 1500)
    with memdir.open(project, home=tmp_path / "g") as m:
        m.import_events(evs)
        path = m.roots["project"].db_path
    db = sqlite3.connect(path)
    zd = db.execute("SELECT value FROM meta WHERE key = 'zdict'").fetchone()[0]
    db.execute("UPDATE meta SET value = ? WHERE key = 'zdict'", (zd[:100] + bytes(len(zd) - 100),))
    db.commit()
    db.close()
    with memdir.open(project, home=tmp_path / "g") as m:
        with pytest.raises(sqlite3.DatabaseError):  # SQLite reports the function's error (the dictionary's sum)
            m.roots["project"].db.execute("SELECT text FROM docs WHERE typeof(text_tail) = 'blob' LIMIT 1").fetchone()
        with pytest.raises(sqlite3.DatabaseError, match="compression dictionary"):
            codec._load_zdict(m.roots["project"].db, codec._dict_id(
                m.roots["project"].db.execute("SELECT value FROM meta WHERE key = 'zdict_id'").fetchone()[0]))


def test_a_process_that_opened_the_store_before_a_newer_memdir_upgraded_it_stops_writing(project, tmp_path):
    """A long-running server of an older memdir keeps its connection across an upgrade: its next write transaction
    sees the newer schema version and raises NewerIndex instead of writing in the old layout."""
    from memdir.store.sqlite.migrations import MIGRATIONS, NewerIndex

    with memdir.open(project, home=tmp_path / "g") as m:
        m.import_events(_events(random.Random(11), 5))
        path = m.roots["project"].db_path
        other = sqlite3.connect(path)
        other.execute(f"PRAGMA user_version = {len(MIGRATIONS) + 1}")
        other.close()
        with pytest.raises(NewerIndex, match="newer memdir"):
            m.import_events(_events(random.Random(12), 5, prefix="n"))
        other = sqlite3.connect(path)
        assert other.execute("SELECT count(*) FROM docs WHERE ref LIKE 'n%'").fetchone()[0] == 0
        other.execute(f"PRAGMA user_version = {len(MIGRATIONS)}")
        other.close()
