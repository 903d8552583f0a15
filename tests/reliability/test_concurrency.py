"""Concurrency: several processes write one project root at once (Markdown + SQLite) — issue 6, case C7.

Each worker (``_worker.py``) waits at a barrier, then remembers unique and identical texts, captures unique and
identical prompts (same deterministic keys), imports events under shared keys and forgets some of its own
writes. Afterwards every acknowledged write is present exactly once, forgotten ones are gone, nothing printed
"database is locked", and the store is consistent (see ``helpers.check_store``).
"""

from __future__ import annotations

import pytest

import memdir

from .helpers import check_store, parse, spawn, texts_of
from memdir.notes import markdown as notes_mod


def _run_all(specs, home):
    procs = [spawn(s, home) for s in specs]
    for p in procs:  # barrier: every worker has imported memdir and opened its store before anyone writes
        line = p.stdout.readline()
        assert line.strip() == "READY", (line, p.stderr.read())
    for p in procs:
        p.stdin.write("go\n")
        p.stdin.flush()
    outs = []
    for p in procs:
        out, err = p.communicate(timeout=600)
        outs.append((p.returncode, out, err))
    return outs


def _assert_clean(outs):
    for rc, out, err in outs:
        assert "database is locked" not in (out + err), err[-2000:]
        assert "Traceback" not in err, err[-2000:]
        assert rc == 0, (rc, out[-500:], err[-2000:])
        _, _, errs = parse(out.splitlines())
        assert errs == []


@pytest.mark.parametrize("procs,ops", [
    pytest.param(2, 36, id="2x36"),
    pytest.param(8, 120, id="8x120", marks=pytest.mark.slow),
])
def test_concurrent_writers_lose_nothing(tmp_path, procs, ops):
    project, home = tmp_path / "proj", tmp_path / "home"
    (project / ".git").mkdir(parents=True)
    specs = [{"project": str(project), "home": str(home), "wid": w, "seed": w, "mode": "mix", "n": ops, "barrier": True}
             for w in range(procs)]
    outs = _run_all(specs, home)
    _assert_clean(outs)
    acks = [a for _, out, _ in outs for a in parse(out.splitlines())[0]]
    forgotten = {a["id"] for a in acks if a["op"] == "forget"}
    assert all(a["result"] for a in acks if a["op"] == "forget"), "forgetting my own write must find it"
    facts = check_store(project, home)
    counts = texts_of(facts["notes"])
    remembered = [a for a in acks if a["op"] == "remember"]
    for a in remembered:
        key = notes_mod.normalize_text(a["text"])
        if a["id"] in forgotten:
            assert a["id"] not in facts["ids"] and key not in counts, a
        else:
            assert a["id"] in facts["ids"], a
            assert counts.get(key) == 1, (a, counts.get(key))
    shared_texts = {notes_mod.normalize_text(a["text"]) for a in remembered if a.get("shared")}
    assert sum(1 for a in remembered if a.get("shared") and not a["existed"]) == len(shared_texts), \
        "each identical text must be written once and acknowledged as existing everywhere else"
    ev_keys = {a["key"] for a in acks if a["op"] == "event"}
    for k in ev_keys:
        if k in forgotten:
            assert k not in facts["events"], k
        else:
            assert k in facts["events"], k
    ev_texts = list(facts["events"].values())
    assert len(ev_texts) == len(set(ev_texts)), "an event text is stored twice"
    # every note ever acknowledged and not forgotten is also findable
    with memdir.open(project, home=home) as m:
        for a in remembered[:20]:
            if a["id"] not in forgotten:
                assert a["id"] in [h.id for h in m.recall(a["text"], k=50)], a
    print(f"\nconcurrency: {procs} processes x {ops} ops = {len(acks)} acknowledged writes "
          f"({len(remembered)} remember, {len(ev_keys)} event keys, {len(forgotten)} forgets); "
          f"{len(facts['ids'])} notes and {len(facts['events'])} events in the store")


@pytest.mark.parametrize("procs,events,n_notes", [
    pytest.param(2, 20, 5, id="2x(20+5)"),
    pytest.param(4, 200, 50, id="C7-4x(200+50)", marks=pytest.mark.slow),
])
def test_c7_parallel_capture_and_remember(tmp_path, procs, events, n_notes):
    project, home = tmp_path / "proj", tmp_path / "home"
    (project / ".git").mkdir(parents=True)
    # the default config: its daily cap must not drop the case's 800 events of one day
    specs = [{"project": str(project), "home": str(home), "wid": w, "mode": "c7", "events": events, "notes": n_notes,
              "barrier": True, "config": {}} for w in range(procs)]
    outs = _run_all(specs, home)
    _assert_clean(outs)
    acks = [a for _, out, _ in outs for a in parse(out.splitlines())[0]]
    assert all(a["stored"] for a in acks if a["op"] == "event"), [a for a in acks if a["op"] == "event" and not a["stored"]][:3]
    assert not any(a["existed"] for a in acks if a["op"] == "remember")
    facts = check_store(project, home)
    assert len(facts["events"]) == procs * events
    assert len(facts["ids"]) == procs * n_notes
    assert all(v == 1 for v in texts_of(facts["notes"]).values())
    assert {a["key"] for a in acks if a["op"] == "event"} == set(facts["events"])
    assert {a["id"] for a in acks if a["op"] == "remember"} == facts["ids"]


# ---- regressions found by the suites above --------------------------------------------------------------------
class _StaleVersion:
    """A connection proxy whose first ``PRAGMA user_version`` answers 0: what a second process saw before the
    first one finished creating the index (the race the C7 run hit: "table meta already exists")."""

    def __init__(self, db):
        self.db, self.first = db, True

    def execute(self, sql, *a):
        if self.first and sql.strip() == "PRAGMA user_version":
            self.first = False
            return self.db.execute("SELECT 0")
        return self.db.execute(sql, *a)


def test_migration_race_is_harmless(tmp_path):
    from memdir.store.sqlite import migrations, opening

    path = tmp_path / "index.sqlite3"
    db, _ = opening.open_index(path)
    db.execute("INSERT INTO meta(key, value) VALUES ('x', 'kept')")
    assert migrations.migrate(_StaleVersion(db)) == len(migrations.MIGRATIONS)
    assert db.execute("SELECT value FROM meta WHERE key = 'x'").fetchone()[0] == "kept"
    db.close()


def test_busy_index_is_not_moved_aside(tmp_path, monkeypatch):
    """An operational error while opening (locked, I/O) must not be mistaken for corruption: moving the index
    aside would hide every event, which lives only there."""
    from memdir.store.sqlite import opening
    from memdir.errors import MemdirError

    path = tmp_path / "index.sqlite3"
    db, _ = opening.open_index(path)
    db.close()

    def busy(db, **_):
        import sqlite3

        raise sqlite3.OperationalError("database is locked")

    monkeypatch.setattr(opening, "migrate", busy)
    with pytest.raises(MemdirError, match="locked"):
        opening.open_index(path)
    assert path.exists() and not list(tmp_path.glob("*.corrupt-*"))


def test_late_registered_config_key_honours_overrides(tmp_path, monkeypatch):
    """``capture.*`` keys register when memdir.capture.gates is imported, after ``memdir.open`` built the config: the
    override (and the environment) must still win over the default (C7 hit the 500/day cap despite ``0``)."""
    from memdir import config

    monkeypatch.setenv("MEMDIR_TEST_LATE_ENV", "7")
    cfg = config.Config(overrides={"test.late": 3})
    config.register("test.late", 1, "a key registered late")
    config.register("test.late_env", 1, "a key registered late")
    try:
        assert cfg.get("test.late") == 3 and cfg.source("test.late") == "override"
        assert cfg.get("test.late_env") == 7 and cfg.source("test.late_env") == "env"
    finally:
        config.REGISTRY.pop("test.late", None)
        config.REGISTRY.pop("test.late_env", None)
