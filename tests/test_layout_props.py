"""Property test of the contentless full-text index (m009): random sequences of what a user can do — import with
duplicates and turns landing between older ones, capture, long tool outputs (passages), remember, edit a note's
file on disk then sync, supersede, forget (id, --query, --prefix), prune, reindex — must leave an index that holds
exactly what ``docs`` says (:func:`memdir.store.sqlite.index.check_fts`: FTS5 integrity-check + every term instance against an
index built afresh) and recall results equal to those after a full rebuild."""

from __future__ import annotations

import random

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402

import memdir  # noqa: E402
from memdir.store import rows  # noqa: E402
from memdir.store.sqlite import index, opening  # noqa: E402
from memdir.capture.tools import summarise_tool  # noqa: E402

WORDS = ("deploy staging cluster frankfurt helsinki token rotate postgres migration pnpm webpack cache lock "
         "timeout retry zebracorn quokka 部署 数据库 迁移 超时 缓存").split()
QUERIES = ["deploy staging", "zebracorn quokka", "postgres migration", "数据库 迁移", "helsinki cache", "needle"]

OPS = st.lists(st.tuples(st.sampled_from(["import", "import_dup", "capture", "tool", "remember", "edit_disk",
                                          "supersede", "forget_event", "forget_note", "forget_query", "forget_prefix",
                                          "prune", "reindex"]),
                         st.integers(0, 10_000)), min_size=3, max_size=14)


def _text(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def _event(rng: random.Random, key: str, t0: int) -> dict:
    if rng.random() < 0.25:
        lines = [f"line {i}: {_text(rng, 8)}" for i in range(rng.randint(40, 150))]
        lines[rng.randrange(len(lines))] = f"needle {key} {_text(rng, 3)}"
        return {"key": key, "role": "tool", "text": summarise_tool("Bash", "make test", "\n".join(lines)),
                "session": f"s{rng.randrange(3)}", "ts": t0 + rng.randrange(50_000)}
    return {"key": key, "role": rng.choice(("user", "assistant")), "text": f"{key} " + _text(rng, rng.randint(2, 40)),
            "session": f"s{rng.randrange(3)}", "ts": t0 + rng.randrange(50_000)}


def _recall(m) -> list[list[str]]:
    return [[h.id for h in m.recall(q, k=10)] for q in QUERIES]


def _run(m, ops, rng_seed: int, after=None) -> None:
    """Apply ``ops`` to ``m``; ``after(op, seed)`` runs after each (tests/test_postings.py compares its paths)."""
    rng = random.Random(rng_seed)
    n = [0]
    notes: list = []

    def key() -> str:
        n[0] += 1
        return f"ev{n[0]}"

    db = m.roots["project"].db
    for op, seed in ops:
        rng.seed(seed)
        t0 = 1_790_000_000
        if op == "import":
            m.import_events([_event(rng, key(), t0) for _ in range(rng.randint(1, 12))])
        elif op == "import_dup":  # the same keys / texts again, mixed with new ones
            old = [dict(r) for r in db.execute("SELECT ref, role, text, session, ts_epoch FROM docs WHERE kind = 'event' LIMIT 5")]
            evs = [{"key": r["ref"] if rng.random() < 0.5 else key(), "role": r["role"], "text": r["text"],
                    "session": r["session"], "ts": r["ts_epoch"]} for r in old]
            m.import_events(evs + [_event(rng, key(), t0) for _ in range(3)])
        elif op == "capture":
            m.capture({"role": "user", "text": f"captured {key()} {_text(rng, 6)}", "session": f"s{rng.randrange(3)}"})
        elif op == "tool":
            m.import_events([dict(_event(rng, key(), t0), role="tool", text=summarise_tool(
                "Bash", "ls", "\n".join(f"row {i} {_text(rng, 9)}" for i in range(200))))])
        elif op == "remember":
            notes.append(m.remember(f"note {seed} " + _text(rng, rng.randint(3, 30)), tags=[rng.choice(WORDS)]))
        elif op == "edit_disk" and notes:
            note = rng.choice(notes)
            if note.path.exists():
                src = note.path.read_text(encoding="utf-8")
                note.path.write_text(src + "\n" + _text(rng, 5) + "\n", encoding="utf-8")
                m.recall("anything")  # the next read syncs the changed file
        elif op == "supersede" and notes:
            old = rng.choice(notes)
            if old.path.exists():
                try:
                    notes.append(m.remember(f"replacement {seed} " + _text(rng, 8), supersedes=old.id))
                except memdir.errors.UsageError:  # superseded already, or the same text: refused, nothing written
                    pass
        elif op == "forget_event":
            refs = [r[0] for r in db.execute("SELECT ref FROM docs WHERE kind = 'event' ORDER BY id")]
            if refs:
                m.forget(rng.choice(refs))
        elif op == "forget_note" and notes:
            note = notes.pop(rng.randrange(len(notes)))
            if note.path.exists():
                m.forget(note.id)
        elif op == "forget_query":
            q = rng.choice(WORDS[:17])
            try:
                m.forget_matching(query=q, force=True)
            except memdir.NotFound:
                pass
        elif op == "forget_prefix":
            try:
                m.forget_matching(prefix=f"ev{rng.randint(1, 9)}", force=True)
            except memdir.NotFound:
                pass
        elif op == "prune":
            m.prune(0, force=True)
        elif op == "reindex":
            m.reindex()
        assert index.check_fts(db) == [], (op, seed)
        if after is not None:
            after(op, seed)


@pytest.mark.slow  # over 5 s: CI runs it in `make test-slow`
@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(ops=OPS, seed=st.integers(0, 2**16))
def test_random_write_sequences_keep_the_index_exact(tmp_path_factory, ops, seed):
    base = tmp_path_factory.mktemp("props")
    project = base / "proj"
    (project / ".git").mkdir(parents=True)
    with memdir.open(project, home=base / "g") as m:
        _run(m, ops, seed)
        before = _recall(m)
        db = m.roots["project"].db
        db.execute("BEGIN IMMEDIATE")
        index.rebuild_fts(db)
        db.execute("COMMIT")
        assert index.check_fts(db) == []
        assert _recall(m) == before


def test_a_stemmer_upgrade_rebuilds_the_index_instead_of_rotting_it(project, tmp_path, monkeypatch):
    """The contentless index is cleaned by recomputing the tokens a row was written with, so everything that decides
    the tokens must be pinned: a new PyStemmer (Snowball) that stems a word differently would otherwise make every
    later delete remove the wrong terms, silently."""
    from memdir.recall import tokenize

    rng = random.Random(3)
    evs = [_event(rng, f"k{i}", 1_790_000_000) for i in range(40)]
    with memdir.open(project, home=tmp_path / "g") as m:
        m.import_events(evs)
        m.remember("the deploy target is the staging cluster in frankfurt, rotate the token monthly")

    class NewSnowball:  # a later Snowball release: some words stem differently
        def stemWord(self, w: str) -> str:
            return w[:5]

    monkeypatch.setattr(tokenize, "_stemmer", NewSnowball())
    monkeypatch.setattr(tokenize, "_stem_cache", {})
    with memdir.open(project, home=tmp_path / "g") as m:
        db = m.roots["project"].db
        m.recall("deploy staging")
        for ref in ("k3", "k10", "k11", "k25"):
            m.forget(ref)
        assert index.check_fts(db) == []
        assert [h.id for h in m.recall("rotate the token")][:1] == [m.recall("frankfurt")[0].id]


def test_tuning_the_passage_size_or_context_length_rebuilds_the_index(project, tmp_path, monkeypatch):
    """Passage 0 of a long tool output and an event's neighbour context are recomputed when the row is removed:
    a release that tunes their sizes (bench-driven knobs) must re-tokenize the store, not rot it."""
    from memdir.recall import passages

    rng = random.Random(4)
    evs = [_event(rng, f"k{i}", 1_790_000_000) for i in range(30)]
    evs += [dict(_event(rng, f"t{i}", 1_790_000_000), role="tool", text=summarise_tool(
        "Bash", "ls", "\n".join(f"row {j} {_text(rng, 9)}" for j in range(8)))) for i in range(4)]
    with memdir.open(project, home=tmp_path / "g") as m:
        m.import_events(evs)
    monkeypatch.setattr(passages, "SPLIT_ABOVE", 300)
    monkeypatch.setattr(rows, "CONTEXT_TOKENS", 40)
    with memdir.open(project, home=tmp_path / "g") as m:
        db = m.roots["project"].db
        for ref in ("t0", "t2", "k5", "k6"):
            m.forget(ref)
        assert index.check_fts(db) == []


def test_a_hook_cut_off_while_upgrading_hands_the_upgrade_to_a_detached_process(project, tmp_path, monkeypatch):
    """The first open after a memdir upgrade migrates / re-tokenizes the store (10 s for 10k events on a busy
    machine): a hook's 3 s budget cut it off, the work rolled back, and every later hook did the same, capturing
    nothing until a CLI command ran. Now the cut-off hook leaves the upgrade to a detached process."""
    import sqlite3
    import time

    from old_layout import build_old_index

    from memdir.hosts import hooks
    from memdir.store.sqlite.migrations import MIGRATIONS

    rng = random.Random(6)
    path = project / ".memory" / ".memdir" / "index.sqlite3"
    evs = [dict(_event(rng, f"k{i}", 1_790_000_000), ts=1_790_000_000 + i) for i in range(60)]
    build_old_index(path, 8, evs)
    monkeypatch.setattr(opening, "upgrading", path, raising=False)  # what open_index sets while it migrates
    exits: list[int] = []
    monkeypatch.setattr(hooks.os, "_exit", exits.append)
    dog = hooks._Watchdog(600_000)
    dog.cancel()
    dog._fire()  # the budget runs out
    assert exits == [0]

    def upgraded() -> bool:
        db = sqlite3.connect(path)
        try:
            row = db.execute("SELECT value FROM meta WHERE key = 'tokenizer'").fetchone()
            return db.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS) and row[0] == opening.index_version()
        finally:
            db.close()

    for _ in range(600):  # the detached process finishes on its own
        if upgraded() and not (path.parent / "index.sqlite3.upgrading").exists():
            break
        time.sleep(0.2)
    assert upgraded()
    with memdir.open(project, home=tmp_path / "g") as m:
        assert index.check_fts(m.roots["project"].db) == []
        assert m.get("k5") is not None
