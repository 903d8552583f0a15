"""Writes that meet a hostile world (cases C30, C41, C42, C43): an append-only log ending in a torn line, a model
reply that is not JSON, an index deleted under a store of episodic events, Ctrl-C in the middle of an import."""

from __future__ import annotations

import json
import logging

import pytest

import memdir
from memdir import jsonlog
from memdir.store.sqlite import tombstones

EVENTS = [
    {"key": f"import:t:s1:{i}", "role": "user", "text": f"deploy step number {i} of the payments service",
     "session": "s1", "ts": f"2026-10-01T10:00:{i:02d}Z"}
    for i in range(6)
]


def _drop_index(derived):
    for p in derived.glob("index.sqlite3*"):
        p.unlink()


# ---- C30: append-only logs with a torn tail -----------------------------------------------------------------
@pytest.mark.parametrize("torn", [
    b'{"ref": "import:t:s1:0", "content_sha256": "ab',     # cut mid-record
    b'{"ref": "import:t:s1:0", "content_sha256": null, "kind": "event", "deleted_at": "2026"}',  # whole, no newline
    b'\x00\x00\x00\x00',                                   # a power cut's zero-filled block
    b'{"ref": "x", "kind": "ev\xe2\x82',                   # cut inside a multi-byte character
])
def test_c30_a_torn_tombstone_log_keeps_the_next_forget(project, tmp_path, torn):
    home = tmp_path / "g"
    with memdir.open(project, home=home) as m:
        assert m.import_events(EVENTS)["stored"] == 6
        assert m.forget("import:t:s1:1")
    derived = project / ".memory" / ".memdir"
    log = derived / tombstones.LOG_NAME
    log.write_bytes(log.read_bytes() + torn)  # the tail a full disk or a power cut leaves
    with memdir.open(project, home=home) as m:
        assert m.forget("import:t:s1:2")
    assert log.read_bytes().endswith(b"\n")
    _drop_index(derived)
    with memdir.open(project, home=home) as m:
        got = m.import_events(EVENTS)
        assert m.get("import:t:s1:2") is None and m.get("import:t:s1:1") is None
        assert got["skipped"] >= 2
        assert not [h for h in m.recall("deploy step number 2") if h.id == "import:t:s1:2"]


def test_c30_a_record_an_older_writer_glued_onto_a_torn_line_is_still_read(tmp_path, caplog):
    path = tmp_path / "log.jsonl"
    good = {"ref": "b", "content_sha256": None, "kind": "event", "deleted_at": "2026-11-01"}
    path.write_text('{"ref": "a"}\n{"ref": "torn", "ki' + json.dumps(good) + "\n" + "not json at all\n", encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="memdir"):
        recs, bad = jsonlog.read(path)
        jsonlog.read(path)  # reported once per file and process
    assert [r["ref"] for r in recs] == ["a", "b"] and bad == 2
    assert len([r for r in caplog.records if "unreadable line" in r.getMessage()]) == 1
    assert "2 unreadable lines" in caplog.text


def test_c30_append_starts_a_new_line_after_a_torn_tail(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_bytes(b'{"ref": "a", "kin')
    assert jsonlog.append(path, [{"ref": "b"}, {"ref": "c"}]) == 2
    assert path.read_bytes() == b'{"ref": "a", "kin\n{"ref": "b"}\n{"ref": "c"}\n'
    assert [r["ref"] for r in jsonlog.read(path)[0]] == ["b", "c"]
    jsonlog.append(path, [{"ref": "d"}])  # a whole file: no blank line added
    assert path.read_bytes().endswith(b'"c"}\n{"ref": "d"}\n')


@pytest.mark.parametrize("fault", ["directory", "disk full"])
def test_c30_a_tombstone_the_log_could_not_take_is_said_and_written_by_doctor(project, tmp_path, monkeypatch, caplog,
                                                                             fault):
    """A forget whose tombstone never reached the log (full disk, a directory under its name) says so in one line,
    and `memdir doctor` writes it (a directory under the log's name is set aside, never deleted): a rebuilt index
    keeps the event forgotten."""
    home = tmp_path / "g"
    derived = project / ".memory" / ".memdir"
    log = derived / tombstones.LOG_NAME
    with memdir.open(project, home=home) as m:
        assert m.import_events(EVENTS)["stored"] == 6
    if fault == "directory":
        log.unlink()
        log.mkdir()
        (log / "kept.txt").write_text("mine", encoding="utf-8")
    else:
        def full(*a, **k):
            raise OSError(28, "No space left on device")
        monkeypatch.setattr(jsonlog, "append", full)
    with caplog.at_level(logging.WARNING, logger="memdir"), memdir.open(project, home=home) as m:
        assert m.forget("import:t:s1:3")
    said = [r.getMessage() for r in caplog.records if tombstones.LOG_NAME in r.getMessage()]
    assert len(said) == 1 and "memdir doctor" in said[0] and "\n" not in said[0]
    monkeypatch.undo()
    with memdir.open(project, home=home) as m:
        checks = [c for c in m.doctor() if "tombstone" in c["check"]]
        assert checks and checks[0]["ok"] == "warn", checks
        assert all("tombstone" not in c["check"] for c in m.doctor())  # mended: nothing left to say
    assert log.is_file() and "import:t:s1:3" in log.read_text(encoding="utf-8")
    if fault == "directory":
        aside = [p for p in derived.iterdir() if p.name.startswith(tombstones.LOG_NAME + ".")]
        assert len(aside) == 1 and (aside[0] / "kept.txt").read_text(encoding="utf-8") == "mine"
    _drop_index(derived)
    with memdir.open(project, home=home) as m:
        m.import_events(EVENTS)
        assert m.get("import:t:s1:3") is None and m.get("import:t:s1:4") is not None


# ---- C41: a model reply that is not JSON ---------------------------------------------------------------------
def _distill_store(project, tmp_path, stub):
    (project / ".memory").mkdir(exist_ok=True)
    (tmp_path / "g").mkdir(exist_ok=True)  # distill/embed URLs, commands and key names: the user's own config
    (tmp_path / "g" / "config.toml").write_text(
        f'[distill]\nprovider = "openai"\nurl = "{stub.url}"\nmodel = "stub-1"\ntimeout_s = 5.0\n', encoding="utf-8")
    m = memdir.open(project, home=tmp_path / "g")
    evs = []
    for i in range(4):
        evs.append({"key": f"u:s1:{i}", "role": "user", "text": f"turn {i}: we deploy with pnpm since npm broke CI ({i})",
                    "session": "s1", "ts": f"2026-10-01T10:{i:02d}:00Z"})
        evs.append({"key": f"a:s1:{i}", "role": "assistant", "text": f"Noted point {i} about pnpm and the lockfile.",
                    "session": "s1", "ts": f"2026-10-01T10:{i:02d}:30Z"})
    m.import_events(evs)
    return m


BAD_REPLIES = [
    "Sure! Here are the memories I found: the team deploys with pnpm because npm broke CI.",   # prose
    '{"version": 1, "memories": [{"category": "facts", "summary": "pnpm", "body": "We dep',     # cut in half
    '```json\n{"version": 1, "memories": [{"category": "facts", "summary": "pnpm"}\n```',       # cut, fenced
    '{"version": 1, "memories": [{"category": "facts"}]} and {"memories": [',                    # two halves
    '',                                                                                          # nothing
    '["just", "strings"',                                                                        # a list cut short
    '["just", "strings"]',                                                                       # JSON, wrong shape
    '{"version": 1, "memories": ["we deploy with pnpm"]}',                                       # items not objects
    '{"version": 1, "memories": [{"title": "Deploy with pnpm", "content": "npm broke CI"}]}',    # other field names
]


@pytest.mark.parametrize("reply", BAD_REPLIES)
def test_c41_a_reply_that_is_not_json_leaves_the_turns_pending(project, tmp_path, reply):
    from stub_model import StubModel, memories

    from memdir.distill import flow

    good = {"category": "decisions", "summary": "Deploy with pnpm", "body": "We deploy with pnpm: npm's lockfile broke CI."}
    with StubModel([reply, memories(good)]) as stub:
        m = _distill_store(project, tmp_path, stub)
        try:
            out = m.distill()
            assert out["sessions"][0]["status"] == "error" and out["marked"] == 0 and not out["notes"]
            assert out["errors"] and "stay pending" in out["errors"][0]["reason"]
            assert len(flow.pending_turns(m.roots["project"])["s1"]) == 8      # nothing marked distilled
            again = m.distill()                                                 # retried next run
            assert len(stub.requests) == 2 and stub.requests[0]["messages"] == stub.requests[1]["messages"]
            assert [n["summary"] for n in again["notes"]] == ["Deploy with pnpm"] and again["marked"] == 8
            assert not flow.pending_turns(m.roots["project"])
        finally:
            m.close()


def test_c41_the_cli_exits_1_with_one_error_line(project, tmp_path, capsys):
    from conftest import run_cli
    from stub_model import StubModel

    with StubModel(["I could not find anything worth remembering, sorry!"]) as stub:
        _distill_store(project, tmp_path, stub).close()
        code, out, err = run_cli(capsys, "--dir", str(project), "--home", str(tmp_path / "g"), "distill")
    assert code == 1, (out, err)
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("memdir: error: distill: session s1:") and "invalid JSON" in lines[0]
    assert "distilled" not in out and "error: s1:" in out


def test_c41_dry_run_names_an_accept_command_only_for_a_proposal_that_exists(project, tmp_path, capsys):
    from conftest import run_cli
    from stub_model import StubModel, memories

    rule = {"category": "rules", "summary": "Never force-push to main", "body": "Never force-push to main; open a PR."}
    with StubModel([memories(rule), memories(rule), memories(rule)]) as stub:
        _distill_store(project, tmp_path, stub).close()
        args = ("--dir", str(project), "--home", str(tmp_path / "g"), "distill")
        code, out, _ = run_cli(capsys, *args, "--dry-run")
        assert code == 0 and "proposals accept" not in out and "would propose a rule: Never force-push" in out
        assert not (project / ".memory" / ".proposals").exists()
        code, out, _ = run_cli(capsys, *args)                                  # the real run writes it
        pid = out.split("proposals accept ")[1].split(")")[0]
        assert code == 0 and (project / ".memory" / ".proposals" / f"{pid}.md").is_file()


# ---- C43: Ctrl-C in the middle of an import ------------------------------------------------------------------
def _export_file(path, n, start=0):
    with open(path, "w", encoding="utf-8") as f:
        for i in range(start, start + n):
            f.write(json.dumps({"type": "event", "key": f"k:{i}", "role": "user" if i % 2 == 0 else "assistant",
                                "text": f"line {i}: the payments deploy step {i} checks log {i * 7}", "session": f"s{i // 50}",
                                "ts": f"2026-10-{1 + i % 28:02d}T10:{(i // 60) % 60:02d}:{i % 60:02d}Z"}) + "\n")
    return path


def _events_in(project):
    import sqlite3

    path = project / ".memory" / ".memdir" / "index.sqlite3"
    if not path.exists():
        return 0
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30)
    try:
        return db.execute("SELECT count(*) FROM docs WHERE kind = 'event'").fetchone()[0]
    except sqlite3.Error:
        return 0
    finally:
        db.close()


def _interrupt_after(monkeypatch, module, name, n):
    real = getattr(module, name)
    calls = {"n": 0}

    def fake(*a, **kw):
        calls["n"] += 1
        if calls["n"] == n:
            raise KeyboardInterrupt
        return real(*a, **kw)

    monkeypatch.setattr(module, name, fake)
    return lambda: monkeypatch.setattr(module, name, real)


def test_c43_ctrl_c_keeps_the_committed_batches_and_a_rerun_stores_the_rest(project, tmp_path, monkeypatch):
    from memdir.engine import events as event_ops
    from memdir.errors import Interrupted

    monkeypatch.setattr(event_ops, "BATCH_SECONDS", 1e9)  # batches of exactly BATCH_EVENTS, however slow the machine
    path = _export_file(tmp_path / "export.jsonl", 1800)
    with memdir.open(project, home=tmp_path / "g") as m:
        undo = _interrupt_after(monkeypatch, event_ops, "event_row", 1234)  # in the third batch of 500
        with pytest.raises(Interrupted) as exc:
            m.import_jsonl(path)
        assert (exc.value.done, exc.value.total) == (1000, 1800) and isinstance(exc.value, KeyboardInterrupt)
        assert str(exc.value) == "interrupted after 1000 of 1800 events; run the same command again to import the rest"
        undo()
    assert _events_in(project) == 1000                                   # kept; the cut batch rolled back whole
    with memdir.open(project, home=tmp_path / "g") as m:
        got = m.import_jsonl(path)
        assert (got["stored"], got["duplicate"]) == (800, 1000)           # a re-run stores only the rest
        assert len(m.recall("payments deploy step 1500 checks")) > 0
    assert _events_in(project) == 1800


def test_c43_the_write_lock_is_let_go_between_batches(project, tmp_path, monkeypatch):
    import threading
    import time as clock

    from memdir.store.sqlite import index as sqlite_index

    order = []
    with memdir.open(project, home=tmp_path / "g") as m:
        root = m.roots["project"]
        # a step each event takes inside its batch, in this process, whether its row was made here or ahead
        real_row, seen = sqlite_index.insert_event, [0]

        def waiter():  # a hook that wants the lock while a batch holds it
            with root.locked(timeout=30):
                order.append("the waiter took the lock")

        def row(*a, **kw):
            seen[0] += 1
            if seen[0] == 600:  # inside the second batch, the lock held: a writer starts waiting
                threading.Thread(target=waiter, daemon=True).start()
                deadline = clock.monotonic() + 5
                while not root.lock_waited() and clock.monotonic() < deadline:
                    clock.sleep(0.005)
            return real_row(*a, **kw)

        monkeypatch.setattr(sqlite_index, "insert_event", row)
        evs = [{"key": f"k:{i}", "role": "user", "text": f"event number {i} about deploys", "session": "s"} for i in range(3000)]
        assert m.import_events(evs)["stored"] == 3000
        order.append("the import ended")
    assert order == ["the waiter took the lock", "the import ended"]


def test_an_import_nobody_waits_for_does_not_pause(project, tmp_path, monkeypatch):
    from memdir.engine import events as event_ops

    pauses = []
    monkeypatch.setattr(event_ops.time, "sleep", pauses.append)
    with memdir.open(project, home=tmp_path / "g") as m:
        evs = [{"key": f"k:{i}", "role": "user", "text": f"event number {i} about deploys", "session": "s"} for i in range(1200)]
        assert m.import_events(evs)["stored"] == 1200
    assert pauses == []


def test_c43_ctrl_c_in_a_host_transcript_import(project, tmp_path, monkeypatch, capsys):
    from conftest import run_cli

    from memdir.engine import events as event_ops
    from memdir.portability import transcripts

    monkeypatch.setattr(event_ops, "BATCH_SECONDS", 1e9)
    path = tmp_path / "sess.jsonl"
    base = {"sessionId": "big", "cwd": str(project), "version": "2.1.40", "userType": "external", "isSidechain": False}
    with open(path, "w", encoding="utf-8") as f:
        for i in range(1300):
            role = "user" if i % 2 == 0 else "assistant"
            content = f"question {i}: how does deploy step {i} work" if role == "user" else \
                [{"type": "text", "text": f"answer {i}: deploy step {i} runs the migration then restarts"}]
            f.write(json.dumps({**base, "type": role, "uuid": f"u{i}", "timestamp": f"2026-04-01T10:{i // 60 % 60:02d}:{i % 60:02d}Z",
                                "message": {"role": role, "content": content}}) + "\n")
    args = ("--dir", str(project), "--home", str(tmp_path / "g"), "import", "claude-code", str(path), "--no-progress")
    undo = _interrupt_after(monkeypatch, transcripts, "gate", 1100)  # after two batches of 500 were committed
    code, out, err = run_cli(capsys, *args)
    undo()
    assert code == 130 and out == ""
    assert err.splitlines() == ["memdir: interrupted after 1000 events (file 1 of 1; 1000 stored); run the same command "
                                "again to import the rest"]
    assert _events_in(project) == 1000
    code, out, err = run_cli(capsys, *args)
    assert code == 0 and "300 stored, 1000 duplicates" in out, (out, err)
    assert _events_in(project) == 1300


@pytest.mark.parametrize("sig", ["SIGINT", "SIGTERM", "SIGHUP"])
def test_c43_sigint_to_a_running_import_says_how_far_it_got(project, tmp_path, sig):
    import os
    import re
    import signal
    import subprocess
    import sys
    import time

    path = _export_file(tmp_path / "big.jsonl", 6000)
    env = {**os.environ, "MEMDIR_HOME": str(tmp_path / "g")}
    cmd = [sys.executable, "-m", "memdir", "--dir", str(project), "import", str(path)]
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # as at a terminal
    deadline = time.monotonic() + 120
    while _events_in(project) < 500 and p.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    p.send_signal(getattr(signal, sig))  # Ctrl-C, a kill, a closed terminal: the same line, the same exit
    out, err = p.communicate(timeout=120)
    if p.returncode == 0:
        pytest.skip("the import finished before the signal arrived (a very fast machine)")
    assert p.returncode == 130 and "Traceback" not in err, err
    lines = err.splitlines()
    assert len(lines) == 1 and re.fullmatch(r"memdir: interrupted after (\d+) of 6000 events; run the same command "
                                            r"again to import the rest", lines[0]), err
    done = int(re.search(r"after (\d+)", lines[0]).group(1))
    assert _events_in(project) == done >= 500
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and f"{6000 - done} events stored ({done} duplicates" in r.stdout, r.stdout + r.stderr


@pytest.mark.parametrize("module", ["click", "memdir.debuglog", "memdir.hosts.hooks"])
def test_c43_ctrl_c_while_the_command_is_still_loading_is_no_traceback(project, tmp_path, module):
    """Ctrl-C in the first moments of a command (its modules still loading, before the command's own handler runs)
    exits 130 without a traceback, as it does later on."""
    import os
    import subprocess
    import sys

    code = ("import builtins, os, signal, sys\n"
            "real = builtins.__import__\n"
            "def imp(name, *a, **k):\n"
            f"    if name == {module!r}:\n"
            "        builtins.__import__ = real\n"
            "        os.kill(os.getpid(), signal.SIGINT)\n"
            "    return real(name, *a, **k)\n"
            "builtins.__import__ = imp\n"
            "from memdir.__main__ import main\n"
            "main(sys.argv[1:])\n")
    cmd = ["status"] if module != "memdir.hosts.hooks" else ["hook", "claude-code", "user-prompt"]
    env = {**os.environ, "MEMDIR_HOME": str(tmp_path / "g")}
    r = subprocess.run([sys.executable, "-c", code, "--dir", str(project), *cmd], env=env, capture_output=True,
                       text=True, timeout=120, input="{}")
    assert "Traceback" not in r.stderr and len(r.stderr.splitlines()) <= 1, r.stderr
    assert r.returncode in (0, 130), (r.returncode, r.stderr)  # a hook fails open


# ---- C42: the index deleted under a store of episodic events -------------------------------------------------
def _store_with_events(project, home):
    with memdir.open(project, home=home) as m:
        m.remember("We deploy the payments service with the blue-green script.", category="facts")
        assert m.import_events(EVENTS)["stored"] == 6
        assert m.capture({"role": "user", "text": "how do we roll back a payments deploy?", "session": "s2"}).stored
        assert m.forget("import:t:s1:5")                                  # 6 + 1 - 1 events held
        m.export(project.parent / "export.jsonl")
    return project / ".memory" / ".memdir"


def test_c42_a_deleted_index_says_how_many_events_are_gone_and_how_to_restore(project, tmp_path, capsys):
    from conftest import run_cli

    home = tmp_path / "g"
    derived = _store_with_events(project, home)
    _drop_index(derived)
    args = ("--dir", str(project), "--home", str(home))
    code, out, err = run_cli(capsys, *args, "recall", "payments deploy")
    assert code == 0 and "blue-green" in out                               # the notes are back
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("memdir: warning: project root: the index ") and "was rebuilt from the notes" in lines[0]
    assert "6 episodic events are gone unless restored from an export (memdir import <export.jsonl>)" in lines[0]
    assert "re-imported from the host's transcripts (memdir import claude-code" in lines[0]
    for cmd in (("status",), ("inspect",), ("recent",)):                    # any command, until an import
        code, _, err = run_cli(capsys, *args, *cmd)
        assert code == 0 and err.count("6 episodic events are gone") == 1, (cmd, err)
    code, out, err = run_cli(capsys, *args, "import", str(project.parent / "export.jsonl"))
    assert code == 0 and "6 events stored" in out and "gone" not in err, (out, err)
    code, _, err = run_cli(capsys, *args, "status")
    assert code == 0 and "gone" not in err
    with memdir.open(project, home=home) as m:
        assert m.notices() == [] and m.get("import:t:s1:5") is None         # forgotten stays forgotten


def test_c42_the_count_follows_capture_import_and_forget_and_adds_up_over_rebuilds(project, tmp_path):
    from memdir.store.sqlite import ledger

    home = tmp_path / "g"
    derived = _store_with_events(project, home)
    index_path = derived / "index.sqlite3"
    assert ledger.read(index_path) == {"events": 6, "lost": 0, "rebuilt_at": None}
    with memdir.open(project, home=home) as m:
        assert m.forget_matching(prefix="import:t:s1:4", force=True)["count"] == 1
    assert ledger.read(index_path)["events"] == 5
    _drop_index(derived)
    with memdir.open(project, home=home) as m:
        assert m.import_events(EVENTS[:2])["stored"] == 2                  # two come back from somewhere
        assert len(m.notices()) == 1 and "5 episodic events" in m.notices()[0]
    _drop_index(derived)                                                    # lost again before any memdir import
    with memdir.open(project, home=home) as m:
        _ = m.status()
        assert "7 episodic events are gone" in m.notices()[0]


def test_c42_a_corrupt_index_moved_aside_and_an_older_store_without_a_count(project, tmp_path, caplog):
    from memdir.store.sqlite import ledger

    home = tmp_path / "g"
    derived = _store_with_events(project, home)
    ledger.path_of(derived / "index.sqlite3").unlink()                    # a store made before the count existed
    with memdir.open(project, home=home) as m:
        assert m.recall("payments deploy") and m.notices() == []
    assert ledger.read(derived / "index.sqlite3")["events"] == 6           # written once, from the index
    for p in derived.glob("index.sqlite3-*"):
        p.unlink()
    (derived / "index.sqlite3").write_bytes(b"not a database at all" * 300)
    with memdir.open(project, home=home) as m:
        assert m.recall("payments deploy")
        assert "6 episodic events are gone" in m.notices()[0]
    assert list(derived.glob("index.sqlite3.corrupt-*"))                   # set aside, never deleted


def test_c42_a_failed_commit_puts_the_count_back(project, tmp_path):
    import sqlite3

    from memdir.store.sqlite import ledger

    class FullDisk:  # the index connection, whose COMMIT fails (after the counter was written)
        def __init__(self, db):
            self.real = db

        def execute(self, sql, *a):
            if sql == "COMMIT":
                raise sqlite3.OperationalError("database or disk is full")
            return self.real.execute(sql, *a)

        def __getattr__(self, name):
            return getattr(self.real, name)

    home = tmp_path / "g"
    derived = _store_with_events(project, home)
    with memdir.open(project, home=home) as m:
        st = m.roots["project"].store
        real, st.db = st.db, FullDisk(st.db)
        try:
            with pytest.raises(sqlite3.OperationalError):
                with st.transaction():
                    st.insert_event({"kind": "event", "ref": "x:1", "content_sha256": "0" * 64, "role": "user",
                                     "session": None, "ts": "2026-10-01T00:00:00Z", "ts_epoch": 1.0, "text": "rolled back",
                                     "meta": None})
                    assert ledger.read(derived / "index.sqlite3")["events"] == 6
        finally:
            st.db = real
    assert ledger.read(derived / "index.sqlite3")["events"] == 6


def test_c42_the_global_root_says_so_too(project, tmp_path, capsys):
    from conftest import run_cli

    home = tmp_path / "g"
    with memdir.open(project, home=home) as m:
        assert m.import_events(EVENTS[:3], scope="global")["stored"] == 3
    _drop_index(home / ".memdir")
    code, out, err = run_cli(capsys, "--dir", str(project), "--home", str(home), "recall", "deploy step")
    # the events are gone (the store holds none now: an empty list, exit 0, C4), and it says why
    assert code == 0 and "no memories yet" in err
    warned = [ln for ln in err.splitlines() if ln.startswith("memdir: warning: global root: the index ")]
    assert len(warned) == 1 and "3 episodic events are gone" in warned[0] and len(err.splitlines()) == 2


def _interrupt_after_commit(monkeypatch):
    """Every index connection's COMMIT goes through, then raises KeyboardInterrupt once (a Ctrl-C on its way back)."""
    from memdir.store.sqlite import codec

    armed = {"on": True}
    real = codec.Connection.execute

    def execute(self, sql, *args):
        cur = real(self, sql, *args)
        if armed["on"] and sql == "COMMIT":
            armed["on"] = False
            raise KeyboardInterrupt
        return cur

    monkeypatch.setattr(codec.Connection, "execute", execute)
    return armed


def test_c43_ctrl_c_after_the_commit_is_an_interrupt_not_an_internal_error(project, tmp_path, monkeypatch):
    """A Ctrl-C that arrives once COMMIT went through: no "cannot rollback - no transaction is active" in its place
    (the CLI printed an internal error and exited 1), the batch is stored and counted once, its tombstones logged."""
    from memdir.store.sqlite import ledger

    home = tmp_path / "g"
    with memdir.open(project, home=home) as m:
        m.import_events(EVENTS[:1])
        index_path = next(project.glob(".memory/.memdir/index.sqlite3"))
        armed = _interrupt_after_commit(monkeypatch)
        with pytest.raises(KeyboardInterrupt) as got:
            m.import_events(EVENTS[1:4])
        assert not armed["on"] and not m.stores.live()[0].db.in_transaction
        # the one line the CLI prints counts the batch that went in
        assert got.value.counts["stored"] == 3 and str(got.value).startswith("interrupted after 3 of 3 events")
        monkeypatch.undo()
        assert m.import_events(EVENTS[1:4]) == {"read": 3, "stored": 0, "duplicate": 3, "skipped": 0}
        assert ledger.read(index_path)["events"] == 4
        _interrupt_after_commit(monkeypatch)
        with pytest.raises(KeyboardInterrupt):
            m.forget("import:t:s1:2")
        monkeypatch.undo()
    assert "import:t:s1:2" in {t["ref"] for t in tombstones.read(tombstones.log_path(index_path))}  # logged once committed


def test_a_rollback_with_no_transaction_left_does_not_mask_the_error(tmp_path):
    import sqlite3

    from memdir.store.sqlite import txn

    db = sqlite3.connect(tmp_path / "x.db", isolation_level=None)
    txn.rollback(db)  # nothing open: nothing done, nothing raised
    db.execute("BEGIN IMMEDIATE")
    db.execute("CREATE TABLE t(x)")
    txn.rollback(db)
    assert not db.in_transaction and db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] == 0


# ---- a full disk -------------------------------------------------------------------------------------------------
def test_a_full_disk_is_one_line_that_says_so_not_an_internal_error(project, tmp_path, monkeypatch, capsys):
    """SQLite's "database or disk is full" (the index cannot grow) read as `memdir: internal error: OperationalError …
    (rerun with --debug …)`; it is the user's disk, said as such, and what was stored before is all there afterwards."""
    from conftest import run_cli

    from memdir.store.sqlite import opening

    args = ("--dir", str(project), "--home", str(tmp_path / "g"))
    assert run_cli(capsys, *args, "remember", "the payments deploy uses the blue-green script")[0] == 0
    real = opening.open_index

    def full(path):  # the index may not grow by one page: what a full disk does to SQLite
        db, created = real(path)
        pages = db.execute("PRAGMA page_count").fetchone()[0]
        db.execute(f"PRAGMA max_page_count = {pages}")
        return db, created

    monkeypatch.setattr(opening, "open_index", full)
    evs = tmp_path / "evs.jsonl"
    evs.write_text("".join(json.dumps({"type": "event", "key": f"full:{i}", "role": "user", "session": "s",
                                       "text": f"event {i} " + "words about the queue and the stream " * 40}) + "\n"
                           for i in range(400)), encoding="utf-8")
    code, out, err = run_cli(capsys, *args, "import", str(evs))
    assert code == 1 and len(err.strip().splitlines()) == 1, err
    assert "internal error" not in err and "full" in err and "free" in err, err
    monkeypatch.undo()
    code, out, err = run_cli(capsys, *args, "recall", "blue-green")
    assert code == 0 and "blue-green" in out
