"""Issue 13 items 1, 5, 6: `memdir migrate` (alice-memory stores built here from seed 001's description, in the
one-file and the older two-file layout; other memdir roots, exports and seed 000 Markdown directories), the
drop-file import (`<global root>/import/*.jsonl`) and the claude-mem SQLite importer."""

from __future__ import annotations

import json
import sqlite3
import struct
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from click.testing import CliRunner

import memdir
from memdir.cli.main import cli

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=timezone.utc)
MODEL, DIMS = "BAAI/bge-m3", 4
PROVIDER_CFG = {"embed.provider": "openai", "embed.url": "http://127.0.0.1:9/v1/embeddings", "embed.model": MODEL}


def _vec(*xs: float) -> bytes:
    return struct.pack(f"<{len(xs)}f", *xs)


MEMORIES = [
    # id, kind, user_text, assistant_text, content, pinned
    (1, "turn", "how do we deploy the api?", "with pnpm deploy from the ci runner",
     "user: how do we deploy the api?\nassistant: with pnpm deploy from the ci runner", 0),
    (2, "note", None, None, "以后都用 pnpm，不用 npm", 1),
    (3, "turn", "the kafka consumer lags after midnight", None, "the kafka consumer lags after midnight", 0),
    (4, "note", None, None, "this one was deleted by the user", 0),
]


def alice_store(d: Path, *, layout: str = "single", memories=MEMORIES, vector_model: str = MODEL) -> Path:
    """An alice-memory data directory as seed 001 documents it (memories, vectors, tombstones, meta)."""
    d.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(d / "memories.sqlite3")
    db.executescript("""
        CREATE TABLE memories(id INTEGER PRIMARY KEY, occurred_at TEXT, local_date TEXT, kind TEXT, user_text TEXT,
          assistant_text TEXT, content TEXT, content_sha256 TEXT UNIQUE, heat0 REAL, reinforced_at TEXT,
          half_life_days REAL, tier TEXT, embedding_status TEXT, pinned INTEGER, importance REAL);
        CREATE TABLE tombstones(memory_id INTEGER, content_sha256 TEXT, deleted_at TEXT);
        CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);
    """)
    import hashlib

    for i, (mid, kind, u, a, content, pinned) in enumerate(memories):
        ts = (T0 + timedelta(hours=i)).isoformat()
        db.execute("INSERT INTO memories VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                   (mid, ts, ts[:10], kind, u, a, content, hashlib.sha256(content.encode()).hexdigest(), 1.0, ts, 45,
                    "warm", "ok", pinned, 2.0 if pinned else 1.0))
    db.execute("INSERT INTO tombstones VALUES (4, NULL, ?)", (T0.isoformat(),))
    db.executemany("INSERT INTO meta VALUES (?, ?)", [("schema_version", "3"), ("model", vector_model), ("dimensions", str(DIMS))])
    vdb = db if layout == "single" else sqlite3.connect(d / "vectors.sqlite3")
    vdb.execute("CREATE TABLE vectors(memory_id INTEGER PRIMARY KEY, vector BLOB, model TEXT, dimensions INTEGER)")
    vdb.executemany("INSERT INTO vectors VALUES (?, ?, ?, ?)", [
        (1, _vec(1, 0, 0, 0), vector_model, DIMS), (2, _vec(0, 1, 0, 0), vector_model, DIMS), (3, _vec(0, 0, 1, 0), vector_model, DIMS)])
    for x in {db, vdb}:
        x.commit()
        x.close()
    return d


@pytest.fixture
def store(tmp_path):
    p = tmp_path / "proj"
    (p / ".git").mkdir(parents=True)
    m = memdir.open(p, home=tmp_path / "home", config=PROVIDER_CFG)
    yield m
    m.close()


@pytest.mark.parametrize("layout", ["single", "two-file"])
def test_migrate_alice_store_both_layouts(store, tmp_path, layout):
    src = alice_store(tmp_path / "old", layout=layout)
    out = store.migrate(from_path=src)
    s = out["sources"][0]
    assert s["type"] == "alice" and s["layout"] == layout and "error" not in s
    assert s["found"]["memories"] == 4 and s["found"]["vectors"] == 3
    r = s["result"]
    assert r["notes_new"] == 1 and r["events_new"] == 3  # the tombstoned note is not brought over
    assert store.get("alice:1:u").text == "how do we deploy the api?"
    assert store.get("alice:1:a").role == "assistant"
    assert store.get("alice:1:u").session == "alice:2026-03-01"
    notes = store.inspect().notes
    assert len(notes) == 1 and notes[0].pinned and notes[0].text == "以后都用 pnpm，不用 npm"
    assert store.forget_matching(query="deleted by the user")["count"] == 0
    # vectors: copied for the note and the single-text turn (their stored text is what was embedded), not for the
    # split turn 1, whose vector embedded the joined text
    db = store.roots["project"].db
    vecs = {r["ref"]: r for r in db.execute("SELECT ref, status, model, dim, vector FROM vectors WHERE status = 'ok'")}
    assert set(vecs) == {notes[0].id, "alice:3:u"}
    assert vecs["alice:3:u"]["vector"] == _vec(0, 0, 1, 0) and vecs["alice:3:u"]["dim"] == DIMS
    assert r["vectors_copied"] == 2
    # imported history starts hot: prune does not offer it
    assert store.prune(30)["count"] == 0


def test_migrate_is_safe_to_rerun_and_renames_on_key_conflict(store, tmp_path):
    src = alice_store(tmp_path / "old")
    store.migrate(from_path=src)
    again = store.migrate(from_path=src)["sources"][0]["result"]
    assert again.get("notes_new", 0) == 0 and again.get("events_new", 0) == 0
    assert again["notes_existing"] == 1 and again["events_existing"] == 3
    other = alice_store(tmp_path / "other", memories=[(1, "turn", "a different first question", None,
                                                       "a different first question", 0)])
    r = store.migrate(from_path=other)["sources"][0]["result"]
    assert r["renamed"] == 1 and r["events_new"] == 1
    assert store.get("alice:1:u~2").text == "a different first question"
    assert store.get("alice:1:u").text == "how do we deploy the api?"


def test_vectors_never_overwritten_and_only_for_the_same_model(store, tmp_path):
    from memdir.engine import hybrid as vectors

    src = alice_store(tmp_path / "old")
    store.import_events([{"key": "alice:3:u", "text": "the kafka consumer lags after midnight", "ts": T0}])
    db = store.roots["project"].db
    db.execute("INSERT OR REPLACE INTO vectors(ref, content_sha256, model, dim, status, vector) "
               "SELECT ref, content_sha256, ?, 4, 'ok', ? FROM docs WHERE ref = 'alice:3:u'",
               (vectors.provider_for(store).model, _vec(9, 9, 9, 9)))
    r = store.migrate(from_path=src)["sources"][0]["result"]
    assert db.execute("SELECT vector FROM vectors WHERE ref = 'alice:3:u'").fetchone()[0] == _vec(9, 9, 9, 9)
    other = alice_store(tmp_path / "m2", vector_model="text-embedding-3-small",
                        memories=[(2, "note", None, None, "a note embedded by another model", 0)])
    r = store.migrate(from_path=other)["sources"][0]["result"]
    assert r["notes_new"] == 1 and r["vectors_skipped_model"] == 1 and r.get("vectors_copied", 0) == 0


def test_scan_dry_run_writes_nothing_then_purge(store, tmp_path):
    top = tmp_path / "scan"
    a = alice_store(top / "a" / "data")
    b = alice_store(top / "b", layout="two-file", memories=[(7, "note", None, None, "redis holds the session cache", 0)])
    mixed = alice_store(top / "mixed", memories=[(8, "note", None, None, "mixed dir note", 0)])
    (mixed / "notes.txt").write_text("my own file")
    before = {p: p.stat().st_mtime_ns for p in top.rglob("*")}
    dry = store.migrate(scan=top, dry_run=True)
    assert dry["dry_run"] and {Path(s["path"]) for s in dry["sources"]} == {a, b, mixed}
    assert sum(s["result"].get("notes_new", 0) for s in dry["sources"]) == 3
    assert not store.roots["project"].path.exists() or store.inspect().counts["project"]["notes"] == 0
    assert {p: p.stat().st_mtime_ns for p in top.rglob("*")} == before
    with pytest.raises(memdir.UsageError):
        store.migrate(scan=top, dry_run=True, purge=True)
    out = store.migrate(scan=top, purge=True)
    assert sorted(out["purged"]) == sorted([str(a), str(b)])
    assert [r["path"] for r in out["purge_refused"]] == [str(mixed)]
    assert not a.exists() and not b.exists() and (mixed / "notes.txt").exists()
    assert len(store.inspect().notes) == 3


def test_migrate_memdir_root_and_seed000_markdown_and_export(store, tmp_path):
    other = tmp_path / "other"
    (other / ".git").mkdir(parents=True)
    with memdir.open(other, home=tmp_path / "home2") as o:
        o.remember("use ruff for linting", category="decisions", tags=["lint"])
        o.import_events([{"key": "u:s:1", "session": "s", "text": "old prompt about ruff", "ts": T0}])
        o.export(tmp_path / "dump.jsonl")
    md = tmp_path / "seed000" / "memory"
    (md / "pitfalls").mkdir(parents=True)
    (md / "ROOT.md").write_text("# ROOT\n")
    (md / "pitfalls" / "sqlite-cjk-tokenizer.md").write_text(
        "---\nid: pitfalls/sqlite-cjk-tokenizer\nkind: pitfall\nsummary: unicode61 把整段中文当一个 token\n"
        "highlight: 实测：查\"部署\"两种分词器都是 0 命中\ncreated: 1791512014824\nupdated: 1791512014824\n"
        "load_when:\n- SQLite\n- 分词\npinned: true\n---\n正文：上下文、决策、原因、根因。\n", encoding="utf-8")
    r1 = store.migrate(from_path=other / ".memory")["sources"][0]
    assert r1["type"] == "memdir" and r1["result"]["notes_new"] == 1 and r1["result"]["events_new"] == 1
    r2 = store.migrate(from_path=md)["sources"][0]["result"]
    assert r2["notes_new"] == 1
    note = store.get("pitfalls/sqlite-cjk-tokenizer")
    assert note.pinned and note.highlight.startswith("实测") and note.created.year == 2026 and "分词" in note.load_when
    r3 = store.migrate(from_path=tmp_path / "dump.jsonl")["sources"][0]["result"]
    assert r3["notes_existing"] == 1 and r3["stored"] == 0  # everything was already brought over


def test_migrate_refuses_bad_requests(store, tmp_path):
    with pytest.raises(memdir.UsageError):
        store.migrate()
    (tmp_path / "empty").mkdir()
    with pytest.raises(memdir.NotFound):
        store.migrate(from_path=tmp_path / "empty")
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "memories.sqlite3").write_bytes(b"not a database at all" * 100)
    out = store.migrate(from_path=bad, purge=True)
    assert "error" in out["sources"][0] and out["purge_refused"][0]["reason"] == "its migration failed"
    assert bad.exists()


def test_cli_migrate(tmp_path):
    proj = tmp_path / "p"
    (proj / ".git").mkdir(parents=True)
    src = alice_store(tmp_path / "old")
    base = ["--home", str(tmp_path / "h"), "--dir", str(proj)]
    r = CliRunner().invoke(cli, [*base, "migrate", "--from", str(src), "--dry-run"], catch_exceptions=False)
    assert r.exit_code == 0 and "dry run: nothing was written" in r.output and "notes_new 1" in r.output
    r = CliRunner().invoke(cli, [*base, "--json", "migrate", "--from", str(src)], catch_exceptions=False)
    assert json.loads(r.output)["sources"][0]["result"]["events_new"] == 3


def test_a_store_that_cannot_be_migrated_exits_1_with_one_line(tmp_path):
    """A migrate whose store could not be read (an alice-memory directory whose database is junk), or an export none
    of whose lines is a record, said so and exited 0: a script read it as done."""
    proj = tmp_path / "p"
    (proj / ".git").mkdir(parents=True)
    base = ["--home", str(tmp_path / "h"), "--dir", str(proj)]
    broken = tmp_path / "old"
    broken.mkdir()
    (broken / "memories.sqlite3").write_bytes(b"not a database")
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{not json\n", encoding="utf-8")
    good = alice_store(tmp_path / "fine")
    for args in (["--from", str(broken)], ["--scan", str(tmp_path)], ["--from", str(bad)]):
        r = CliRunner().invoke(cli, [*base, "migrate", *args])
        assert r.exit_code == 1 and "not migrated" in str(r.exception), (args, r.output, r.exception)
    r = CliRunner().invoke(cli, [*base, "migrate", "--scan", str(tmp_path)])
    assert "1 of 2 stores not migrated" in str(r.exception) and "not an SQLite database" in r.output
    r = CliRunner().invoke(cli, [*base, "migrate", "--from", str(good)])
    assert r.exit_code == 0, r.output  # the readable store alone: done


# ---- item 5: drop-file import -----------------------------------------------------------------------------
def _drop(home: Path, name: str, rows: list[dict]) -> Path:
    d = home / "import"
    d.mkdir(parents=True, exist_ok=True)
    p = d / name
    p.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows) + "not json\n", encoding="utf-8")
    return p


def test_drop_file_import_renames_dedups_and_undoes(tmp_path):
    proj = tmp_path / "p"
    (proj / ".git").mkdir(parents=True)
    home = tmp_path / "h"
    rows = [{"source": "oldplugin", "kind": "note", "title": "deploy flow", "tags": ["ci"], "text": f"deploy step {i} runs on the runner",
             "ts": (T0 + timedelta(minutes=i)).isoformat()} for i in range(8)]
    _drop(home, "local-memory-import.jsonl", rows)
    with memdir.open(proj, home=home, config={"import.max_items": 5}) as m:
        out = m.import_pending()
        f = out["files"][0]
        assert f["stored"] == 5 and f["skipped_over_max"] == 3 and f["bad_lines"] == 1
        assert f["done_as"].startswith("local-memory-import.jsonl.done-") and len(f["done_as"].split("done-")[1]) == 15
        assert not (home / "import" / "local-memory-import.jsonl").exists()
        hits = m.recall("deploy step 7")
        assert hits[0].text.startswith("deploy flow\n") and hits[0].id.startswith("import:oldplugin:")
        ev = m.get(hits[0].id)
        assert ev is not None
        meta = json.loads(m.roots["project"].db.execute("SELECT meta FROM docs WHERE ref = ?", (hits[0].id,)).fetchone()[0])
        assert meta["title"] == "deploy flow" and meta["tags"] == ["ci"] and meta["kind"] == "note"
        assert m.recall("deploy step 1") == [] or all("step 1 " not in h.text for h in m.recall("deploy step 1"))
        # a re-run of the same file stores nothing
        _drop(home, "again.jsonl", rows)
        assert m.import_pending()["files"][0]["stored"] == 0
        assert m.import_pending()["files"] == []
        pre = m.forget_matching(prefix="import:oldplugin")
        assert pre["count"] == 5
        m.forget_matching(prefix="import:oldplugin", token=pre["token"])
        assert m.recall("deploy") == []


def test_spawn_if_pending_only_when_a_file_waits(tmp_path, monkeypatch):
    from memdir.portability import dropimport

    started = []
    import subprocess

    monkeypatch.setattr(subprocess, "Popen", lambda args, **kw: started.append((args, kw)))
    assert dropimport.spawn_if_pending(tmp_path / "h") is False
    _drop(tmp_path / "h", "x.jsonl", [{"text": "hello there from a drop file"}])
    assert dropimport.spawn_if_pending(tmp_path / "h", tmp_path) is True
    args, kw = started[0]
    assert args[-3:] == ["import", "--pending", "--json"] and kw["start_new_session"] is True
    assert kw["stdout"] is subprocess.DEVNULL


def test_hook_run_starts_the_detached_import(tmp_path, monkeypatch):
    from memdir.portability import dropimport
    from memdir.hosts.hooks import run_hook

    calls = []
    monkeypatch.setattr(dropimport, "spawn_if_pending", lambda home, project_dir=None: calls.append(home) or False)
    proj = tmp_path / "p"
    (proj / ".git").mkdir(parents=True)
    run_hook("claude-code", "user-prompt", {"prompt": "hello world prompt", "session_id": "s", "cwd": str(proj)},
             project_dir=str(proj), home=str(tmp_path / "h"))
    assert calls == [tmp_path / "h"]


def test_cli_import_pending(tmp_path):
    proj = tmp_path / "p"
    (proj / ".git").mkdir(parents=True)
    home = tmp_path / "h"
    _drop(home, "x.jsonl", [{"text": "a drop-file record about grafana", "kind": "user"}])
    r = CliRunner().invoke(cli, ["--home", str(home), "--dir", str(proj), "import", "--pending"], catch_exceptions=False)
    assert r.exit_code == 0 and "1 stored" in r.output and ".done-" in r.output


# ---- item 6: claude-mem SQLite ----------------------------------------------------------------------------
def claude_mem_db(path: Path) -> Path:
    db = sqlite3.connect(path)
    db.executescript("""
        CREATE TABLE user_prompts(id INTEGER PRIMARY KEY, content_session_id TEXT, prompt_number INTEGER,
          prompt_text TEXT, created_at TEXT, created_at_epoch INTEGER);
        CREATE TABLE observations(id INTEGER PRIMARY KEY, memory_session_id TEXT, project TEXT, type TEXT, title TEXT,
          subtitle TEXT, narrative TEXT, facts TEXT, concepts TEXT, files_read TEXT, files_modified TEXT,
          prompt_number INTEGER, created_at TEXT, created_at_epoch INTEGER);
        CREATE TABLE session_summaries(id INTEGER PRIMARY KEY, memory_session_id TEXT, project TEXT, request TEXT,
          investigated TEXT, learned TEXT, completed TEXT, next_steps TEXT, notes TEXT, created_at TEXT,
          created_at_epoch INTEGER);
    """)
    ms = int(T0.timestamp() * 1000)
    db.execute("INSERT INTO user_prompts VALUES (1, 'sess1', 1, 'why does the websocket drop after 60s?', NULL, ?)", (ms,))
    db.execute("INSERT INTO observations VALUES (1, 'sess1', 'spotter', 'discovery', 'nginx proxy_read_timeout is 60s', "
               "'the drop matches it', 'Raised proxy_read_timeout to 3600s', '[\"timeout was 60s\"]', '[\"how-it-works\"]', "
               "'[\"nginx.conf\"]', '[]', 1, NULL, ?)", (ms + 1000,))
    db.execute("INSERT INTO session_summaries VALUES (1, 'sess1', 'spotter', 'fix websocket drops', 'nginx config', "
               "'proxy_read_timeout defaults to 60s', 'raised it', 'watch the logs', NULL, NULL, ?)", (ms + 2000,))
    db.execute("INSERT INTO user_prompts VALUES (2, 'sess1', 2, '', NULL, ?)", (ms + 3000,))
    db.commit()
    db.close()
    return path


def test_claude_mem_importer(tmp_path):
    from collections import Counter

    from memdir.portability.importers import iter_events

    db = claude_mem_db(tmp_path / "claude-mem.db")
    stats = Counter()
    evs = list(iter_events("claude-mem", db, stats=stats))
    assert [e["role"] for e in evs] == ["user", "tool", "assistant"]
    assert stats == Counter({"user_prompts": 1, "observations": 1, "session_summaries": 1, "skipped:empty": 1})
    assert evs[1]["text"].startswith("nginx proxy_read_timeout is 60s") and "- timeout was 60s" in evs[1]["text"]
    assert evs[1]["meta"]["project"] == "spotter" and evs[0]["ts"].startswith("2026-03-01T09:00:00")
    assert all(e["key"].startswith("import:claude-mem:") for e in evs)
    proj = tmp_path / "p"
    (proj / ".git").mkdir(parents=True)
    base = ["--home", str(tmp_path / "h"), "--dir", str(proj), "--json"]
    # the rows name project "spotter", not this one ("p"): --here takes them all (routing: test_seed_parity)
    r = CliRunner().invoke(cli, [*base, "import", "claude-mem", str(db), "--here"], catch_exceptions=False)
    assert json.loads(r.output)["stored"] == 3
    r = CliRunner().invoke(cli, [*base, "import", "claude-mem", str(db), "--here"], catch_exceptions=False)
    assert json.loads(r.output)["stored"] == 0
    with memdir.open(proj, home=tmp_path / "h") as m:
        assert m.recall("websocket timeout")[0].id.startswith("import:claude-mem:")


def test_claude_mem_import_is_an_api_function_too(tmp_path):
    from memdir.errors import NotFound, UsageError
    from memdir.portability.importers.claude_mem import import_claude_mem

    db = claude_mem_db(tmp_path / "claude-mem.db")
    proj = tmp_path / "p"
    (proj / ".git").mkdir(parents=True)
    with memdir.open(proj, home=tmp_path / "h") as m:
        out = import_claude_mem(m, db, projects="here")
        assert out["stored"] == 3 and out["tables"]["observations"] == 1
        assert import_claude_mem(m, db, projects="here")["stored"] == 0  # deterministic keys
        with pytest.raises(NotFound):
            import_claude_mem(m, tmp_path / "absent.db")
        (tmp_path / "not.db").write_text("hello")
        with pytest.raises(UsageError):
            import_claude_mem(m, tmp_path / "not.db")


def test_a_drop_file_that_keeps_failing_starts_no_importer_per_hook_until_its_retry_time(tmp_path, monkeypatch):
    """hreview item 6: a file whose import fails stays in place; every hook call then started another importer.
    Now the failure leaves a marker and the hooks' spawn waits RETRY_FAILED_S (or until the file changes);
    ``memdir import --pending`` by hand still tries it, and a success removes the marker."""
    import os
    import subprocess
    import time

    from memdir.portability import dropimport

    started = []
    monkeypatch.setattr(subprocess, "Popen", lambda args, **kw: started.append(args))
    proj = tmp_path / "p"
    (proj / ".git").mkdir(parents=True)
    home = tmp_path / "h"
    path = _drop(home, "bad.jsonl", [{"text": "a record that cannot be read today"}])
    real_records = dropimport.records

    def broken(p, **kw):
        raise OSError("Input/output error")

    monkeypatch.setattr(dropimport, "records", broken)
    with memdir.open(proj, home=home) as m:
        assert "error" in m.import_pending()["files"][0]
        assert path.exists()
        assert dropimport.spawn_if_pending(home, proj) is False and started == []   # backing off
        assert m.import_pending()["files"][0]["error"]                               # by hand: tried again
        marker = path.with_name(f".{path.name}.failed")
        assert marker.exists() and "Input/output error" in marker.read_text(encoding="utf-8")
        # the file changed after the failure: tried again at once
        t = marker.stat().st_mtime
        os.utime(path, (t + 5, t + 5))
        assert dropimport.spawn_if_pending(home, proj) is True and len(started) == 1
        # unchanged, but the failure is older than the retry interval: tried again
        os.utime(path, (t - 5, t - 5))
        assert dropimport.spawn_if_pending(home, proj) is False
        old = time.time() - dropimport.RETRY_FAILED_S - 1
        os.utime(path, (old - 5, old - 5))
        os.utime(marker, (old, old))
        assert dropimport.spawn_if_pending(home, proj) is True and len(started) == 2
        # a later success imports it and removes the marker
        monkeypatch.setattr(dropimport, "records", real_records)
        assert m.import_pending()["files"][0]["stored"] == 1
        assert not marker.exists() and not path.exists()


def test_a_migrated_note_forgotten_here_stays_forgotten_when_migrate_runs_again(store, tmp_path):
    src = alice_store(tmp_path / "old")
    store.migrate(from_path=src)
    nid = store.inspect().notes[0].id
    assert store.forget(nid)
    again = store.migrate(from_path=src)["sources"][0]["result"]
    assert again.get("notes_new", 0) == 0 and again["skipped"] >= 1
    assert store.get(nid) is None and not store.inspect().notes


def test_purge_is_refused_when_a_memory_did_not_come_over(store, tmp_path, caplog):
    """--purge deleted the alice-memory directory although a note too long for memdir and a turn whose time could not be
    read were left behind (counted as 'skipped', like noise): they were lost for good. Such items are counted as
    `failed`, said in a warning, and the directory is kept."""
    src = alice_store(tmp_path / "alice", memories=[
        (1, "note", None, None, "x" * 950_000, 0),
        (2, "note", None, None, "a normal note that came over", 0),
        (3, "turn", "what time is the standup meeting", "ten o'clock every weekday", "user: standup", 0)])
    db = sqlite3.connect(src / "memories.sqlite3")
    db.execute("UPDATE memories SET occurred_at = 'not a time' WHERE id = 3")
    db.commit()
    db.close()
    out = store.migrate(from_path=src, purge=True)
    res = out["sources"][0]["result"]
    assert res["failed"] == 3 and res["notes_new"] == 1, res
    assert not out["purged"] and src.exists() and (src / "memories.sqlite3").is_file()
    assert "did not come over" in out["purge_refused"][0]["reason"]
    assert "note too long" in caplog.text and "not a time" in caplog.text, caplog.text


def test_a_migrate_that_left_memories_behind_exits_1(tmp_path):
    """`memdir migrate --from DIR` said `failed 2` and `not purged` yet exited 0: a script reading the exit code saw
    success. Any memory that did not come over is exit 1, after the per-store lines, whether or not --purge was
    given; a re-run with nothing new to fail is still 1 while the store holds them (they are still not here)."""
    proj = tmp_path / "p"
    (proj / ".git").mkdir(parents=True)
    base = ["--home", str(tmp_path / "h"), "--dir", str(proj)]
    src = alice_store(tmp_path / "alice", memories=[
        (1, "note", None, None, "x" * 950_000, 0),
        (2, "note", None, None, "a normal note that came over", 0)])
    for extra in ([], ["--purge"]):
        r = CliRunner().invoke(cli, [*base, "migrate", "--from", str(src), *extra])
        assert r.exit_code == 1, (extra, r.output)
        assert "failed 1" in r.output and "did not come over" in str(r.exception), (r.output, r.exception)
        assert "\n" not in str(r.exception)
    assert src.exists()
    r = CliRunner().invoke(cli, [*base, "migrate", "--from", str(src), "--dry-run"])
    assert r.exit_code == 0, r.output  # a dry run writes nothing, so nothing failed


def test_a_dry_run_of_an_export_counts_its_tombstones_apart_and_its_bad_lines_as_the_import_does(store, tmp_path):
    """`memdir migrate --from export.jsonl --dry-run` counted each tombstone line as an event, and a line of an unknown
    type or an event without text as one too, where the import skips it as a bad line."""
    exp = tmp_path / "export.jsonl"
    exp.write_text("\n".join(json.dumps(x) for x in [
        {"type": "note", "id": "facts/a", "text": "the staging db is db-2"},
        {"type": "event", "key": "u:s:1", "session": "s", "role": "user", "text": "we moved staging to db-2"},
        {"type": "tombstone", "ref": "u:s:0", "content_sha256": "ab" * 32, "kind": "event", "deleted_at": "2026-01-01"},
        {"type": "proposal", "text": "a newer memdir's line"},
        {"type": "event", "key": "u:s:2", "role": "user"},
    ]) + "\n", encoding="utf-8")
    dry = store.migrate(from_path=exp, dry_run=True)["sources"][0]["found"]
    assert dry == {"notes": 1, "events": 1, "bad_lines": 2, "tombstones": 1}, dry
    real = store.migrate(from_path=exp)["sources"][0]["result"]
    assert (real["notes"], real["read"], real["bad_lines"], real["tombstones"]) == (1, 1, 2, 1), real
