"""Hooks never wait on a long writer and lose nothing (case C33): a capture that cannot get the write lock within
``capture.lock_wait_ms`` queues its event in the root's spool and returns; the next writer stores it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import memdir
from memdir.engine import spool

FIX = Path(__file__).parent / "fixtures" / "hooks"


def hold_lock(project: Path, home: Path, seconds: float) -> subprocess.Popen:
    """A process holding the project's write lock (what a long `memdir import` does), started and holding."""
    code = textwrap.dedent(f"""
        import sys, time, memdir
        m = memdir.open({str(project)!r}, home={str(home)!r})
        root = m.roots["project"]
        root.ensure()
        with root.locked():
            print("held", flush=True)
            time.sleep({seconds})
    """)
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "held"
    return p


def test_a_capture_under_a_held_lock_is_queued_then_stored(project, tmp_path):
    home = tmp_path / "g"
    m = memdir.open(project, home=home, config={"capture.lock_wait_ms": 200})
    m.remember("the nightly backup runs at 02:00", category="facts")
    holder = hold_lock(project, home, 30)
    try:
        t = time.monotonic()
        r = m.capture({"role": "tool", "tool": "Bash", "input": {"command": "make migrate"},
                       "output": "migration 0042_zebracorn applied in 3.2s", "session": "s1"})
        assert time.monotonic() - t < 5  # 0.2 s of waiting, not the 60 s lock timeout
        assert r.stored and r.reason == "spooled"
        assert len(spool.pending(m.roots["project"])) == 1
        assert not m.recall("zebracorn", kinds=["event"])  # not stored yet
    finally:
        holder.kill()
        holder.wait()
    # the next writer (any capture or import) stores what was queued
    m.capture({"role": "user", "text": "what did the migration step print?", "session": "s1"})
    assert spool.pending(m.roots["project"]) == []
    hits = m.recall("zebracorn", kinds=["event"])
    assert hits and "0042_zebracorn" in hits[0].text
    m.capture({"role": "user", "text": "what did the migration step print?", "session": "s1"})
    assert sum("0042_zebracorn" in h.text for h in m.recall("zebracorn", kinds=["event"])) == 1  # stored once


def tool_hook_under_a_held_lock(project: Path, home: Path, **env_extra: str) -> None:
    """A note stored, then a Claude Code post-tool-use hook run in its own process (``env_extra``: MEMDIR_* settings)
    while another process holds the project's write lock; the hook must exit 0."""
    with memdir.open(project, home=home) as m:
        m.remember("The staging database listens on port 5433 at staging-db.internal.", category="facts")
    data = (FIX / "claude_post_tool_use_bash.json").read_text(encoding="utf-8").replace("__CWD__", str(project))
    holder = hold_lock(project, home, 60)
    try:
        env = {**__import__("os").environ, "MEMDIR_HOME": str(home), **env_extra}
        r = subprocess.run([sys.executable, "-m", "memdir.cli.main", "hook", "claude-code", "post-tool-use"],
                           input=data.encode(), capture_output=True, cwd=str(project), env=env, timeout=60)
        assert r.returncode == 0, r.stderr
    finally:
        holder.kill()
        holder.wait()


def test_a_hook_answers_while_an_import_holds_the_lock(project, tmp_path):
    home = tmp_path / "g"
    tool_hook_under_a_held_lock(project, home, MEMDIR_HOOK_BUDGET_MS="3000")
    with memdir.open(project, home=home) as m:
        queued = spool.pending(m.roots["project"])
        assert len(queued) == 1, "the tool output was lost instead of queued"
        rows = json.loads(queued[0].read_text(encoding="utf-8"))["rows"]
        m.capture({"role": "user", "text": "and what about the backup schedule?", "session": "x"})
        assert m.get(rows[0]["key"]) is not None  # stored by the next writer


def test_an_unreadable_queue_file_is_set_aside_not_deleted(project, tmp_path):
    m = memdir.open(project, home=tmp_path / "g")
    root = m.roots["project"]
    root.ensure()
    spool.spool_dir(root).mkdir(parents=True)
    bad = spool.spool_dir(root) / "00000000000000000001-1-1.json"
    bad.write_text('{"rows": [{"key": "x"', encoding="utf-8")  # cut mid-record
    m.capture({"role": "user", "text": "a prompt long enough to be stored", "session": "s"})
    assert not bad.exists() and (bad.with_name("bad-" + bad.name)).read_text(encoding="utf-8").startswith('{"rows"')
    assert m.status()["project"]["events"] == 1
    # JSON that reads, with a row no capture writes: set aside too (it was stored as nothing and deleted)
    odd = spool.spool_dir(root) / "00000000000000000002-1-1.json"
    odd.write_text('{"scope": "project", "rows": [{"role": "user", "text": null}]}', encoding="utf-8")
    m.capture({"role": "user", "text": "another prompt long enough to be stored", "session": "s"})
    assert not odd.exists() and odd.with_name("bad-" + odd.name).exists()


def test_captured_turns_are_their_owners_alone_whatever_the_umask(project, tmp_path):
    """The index (with its WAL) and a queued spool file hold captured prompts and replies: mode 0600 under a 022 or
    even a 000 umask, as the ledger and the tombstones already are."""
    import os
    import stat

    old = os.umask(0)
    try:
        m = memdir.open(project, home=tmp_path / "g")
        m.capture({"role": "user", "text": "the staging password rotates every monday", "session": "s1"})
        derived = Path(m.roots["project"].derived)
        files = [derived / n for n in ("index.sqlite3", "index.sqlite3-wal")]
        files.append(spool.put(m.roots["project"], [{"role": "user", "text": "queued while busy"}], scope="project"))
        for f in files:
            assert stat.S_IMODE(f.stat().st_mode) == 0o600, f.name
        assert stat.S_IMODE(files[-1].parent.stat().st_mode) == 0o700  # the spool directory too
        for f in files[:2]:
            os.chmod(f, 0o644)  # an index (and its WAL) an earlier version made under a 022 umask
        with memdir.open(project, home=tmp_path / "g") as other:  # the next process that opens it
            other.recall("password")
            assert [stat.S_IMODE(f.stat().st_mode) for f in files[:2]] == [0o600, 0o600]
        m.close()
    finally:
        os.umask(old)


def test_the_derived_directories_and_the_global_root_are_their_owners_alone(project, tmp_path):
    """Under a 022 umask: each root's ``.memdir/`` (index, lock, debug log) and the global root (one person's notes,
    the ``.env`` with the embedding key) are 0700; an older one left 0755 is closed at the next open. The project's
    notes keep the user's usual modes: they are meant to be committed."""
    import os
    import stat

    old = os.umask(0o022)
    try:
        with memdir.open(project, home=tmp_path / "g") as m:
            m.remember("the staging server is at 10.0.0.5", category="facts")
            m.remember("I prefer tabs over spaces", category="preferences", scope="global")
            dirs = [Path(m.roots["project"].derived), Path(m.roots["global"].derived), Path(m.roots["global"].path)]
        assert [stat.S_IMODE(d.stat().st_mode) for d in dirs] == [0o700] * 3
        for d in dirs:
            os.chmod(d, 0o755)
        with memdir.open(project, home=tmp_path / "g") as m:
            m.remember("the deploy window is friday", category="facts")
            m.remember("I prefer short commit subjects", category="preferences", scope="global")
        assert [stat.S_IMODE(d.stat().st_mode) for d in dirs] == [0o700] * 3
        assert stat.S_IMODE((project / ".memory").stat().st_mode) == 0o755
    finally:
        os.umask(old)


def test_an_export_and_the_debug_log_are_owner_only(project, tmp_path):
    """``memdir export`` writes every captured turn, the debug log the queries: 0600 as the index is (a note keeps the
    user's usual mode: it is meant to be committed)."""
    import logging
    import os
    import stat

    from memdir.debuglog import enable_debug_log

    m = memdir.open(project, home=tmp_path / "g")
    m.capture({"role": "user", "text": "the staging password rotates every monday", "session": "s1"})
    m.export(tmp_path / "dump.jsonl")
    assert stat.S_IMODE((tmp_path / "dump.jsonl").stat().st_mode) == 0o600
    log_file = tmp_path / "dbg" / ".memdir" / "debug.log"
    log_file.parent.mkdir(parents=True)
    log_file.write_text("")
    os.chmod(log_file, 0o644)  # one an earlier version left readable
    logger = logging.getLogger("memdir")
    before, level = list(logger.handlers), logger.level
    try:
        enable_debug_log(tmp_path / "dbg")
        assert stat.S_IMODE(log_file.stat().st_mode) == 0o600
    finally:  # the handler is once per process: leave none behind for the next test in this worker
        for h in [h for h in logger.handlers if h not in before]:
            logger.removeHandler(h)
            h.close()
        logger.setLevel(level)
    m.close()


def test_a_queued_event_is_redacted_before_it_touches_the_disk(project, tmp_path):
    """The queue file of a capture made while an import holds the lock held the raw secret until a writer drained it
    (and for good, had the file been set aside as unreadable); the store itself only ever held it redacted."""
    home = tmp_path / "g"
    key = "AKIA" + "Q3EGRT5KWXN2PZ7L"
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    m = memdir.open(project, home=home, config={"capture.lock_wait_ms": 200})
    m.remember("the nightly backup runs at 02:00", category="facts")
    holder = hold_lock(project, home, 30)
    try:
        r = m.capture({"role": "tool", "tool": "Bash", "input": {"command": "aws sts get-caller-identity"},
                       "output": f"using key {key} for the deploy", "session": "s1", "meta": {"note": token}})
        assert r.stored and r.reason == "spooled"
        [queued] = spool.pending(m.roots["project"])
        raw = queued.read_text(encoding="utf-8")
        assert key not in raw and token not in raw and "[redacted:" in raw
    finally:
        holder.kill()
        holder.wait()
    m.capture({"role": "user", "text": "what identity did the deploy use?", "session": "s1"})
    [hit] = [h for h in m.recall("deploy identity key", kinds=["event"]) if "caller-identity" in h.text]
    assert key not in hit.text and "[redacted:" in hit.text
    again = m.capture({"role": "tool", "tool": "Bash", "input": {"command": "aws sts get-caller-identity"},
                       "output": f"using key {key} for the deploy", "session": "s1"})
    assert not again.stored  # the queued row's content hash is the one the store computes: a duplicate
    m.close()


def test_recent_and_get_see_a_queued_event_without_waiting_for_the_next_write(project, tmp_path):
    home = tmp_path / "g"
    m = memdir.open(project, home=home, config={"capture.lock_wait_ms": 200})
    m.remember("the nightly backup runs at 02:00", category="facts")
    holder = hold_lock(project, home, 30)
    try:
        r = m.capture({"role": "tool", "tool": "Bash", "input": {"command": "make migrate"},
                       "output": "migration 0043_quokka applied", "session": "s1"})
        assert r.reason == "spooled"
    finally:
        holder.kill()
        holder.wait()
    assert any("0043_quokka" in h.text for h in m.recent(kinds=["event"]))
    assert spool.pending(m.roots["project"]) == []
    assert m.get(r.key) is not None
    m.close()


def test_a_long_queue_is_drained_in_one_transaction_and_a_hook_drains_only_a_part(project, tmp_path):
    """A writer that held the lock for many seconds leaves hundreds of queued files; the prompt hook after it drained
    them one transaction each (~45 ms a file on a large store) and ran past its time budget, its own prompt never
    stored. The queue's rows go in together now (one call per scope, every row stored once), and a drain with a time
    budget (a hook's, a reader's) stops taking files when it is spent; the next one takes the rest."""
    m = memdir.open(project, home=tmp_path / "g")
    root = m.roots["project"]
    root.ensure()
    for i in range(200):
        spool.put(root, [{"role": "user", "text": f"queued prompt number {i} about the zebracorn migration",
                          "session": "s1", "key": f"u:queued-{i}"}], scope="project")
    assert spool.drain(root, lambda rows, sc: None, budget_s=0) == 1  # the budget spent: one file, then stop
    calls = []

    def store(rows, scope):
        calls.append((len(rows), scope))
        m.import_events(rows, scope=scope)

    assert spool.drain(root, store) == 199 and calls == [(199, "project")]
    assert spool.pending(root) == []
    m.capture({"role": "user", "text": "and the backup window, when is it?", "session": "s1"})
    texts = [e["text"] for e in m.session_events("s1")]
    assert len(texts) == 200 and len(set(texts)) == 200 and "and the backup window, when is it?" in texts


def test_a_waiter_that_got_the_lock_removes_the_markers_of_waiters_that_died(tmp_path):
    """A process killed while it waited for the lock leaves its ``write.lock.wait-<pid>-<thread>`` marker; the next
    waiter that gets the lock removes markers untouched for a minute (only a long import's pause check did)."""
    import os
    import threading

    from memdir.engine import writelock

    path = str(tmp_path / "write.lock")
    stale = tmp_path / "write.lock.wait-999999-1"
    stale.write_text("")
    os.utime(stale, (time.time() - 120, time.time() - 120))
    holder, waiter = writelock.new_lock(path), writelock.new_lock(path)
    held = threading.Event()

    def hold():
        holder.acquire(5)
        held.set()
        time.sleep(0.7)
        holder.release()

    t = threading.Thread(target=hold)
    t.start()
    held.wait(5)
    assert waiter.acquire(5)
    waiter.release()
    t.join()
    assert not stale.exists() and oct(os.stat(path).st_mode & 0o777) == "0o600"


def test_a_hook_late_in_its_budget_queues_its_event_instead_of_being_ended_while_it_waits(project, tmp_path):
    """The lock wait of a hook's capture ends in time to queue the event before the hook's budget ends the process:
    with a lock wait longer than what is left of the budget, the event was lost (the watchdog exits without a word)."""
    home = tmp_path / "g"
    tool_hook_under_a_held_lock(project, home, MEMDIR_HOOK_BUDGET_MS="2500", MEMDIR_CAPTURE_LOCK_WAIT_MS="30000")
    with memdir.open(project, home=home) as m:
        assert len(spool.pending(m.roots["project"])) == 1, "the tool output was lost instead of queued"


def test_a_prompt_hook_whose_block_comes_too_late_still_stores_the_prompt(project, tmp_path):
    """A prompt hook on a loaded machine (30 processes on 2 cores) spent its budget building the block; the watchdog
    ended it before the capture, and the prompt was lost without a trace. The watchdog now queues the turns the call
    has not stored yet (redacted) before it exits: the block is lost, the prompt is not."""
    home = tmp_path / "g"
    with memdir.open(project, home=home) as m:
        m.remember("deploys go through helm charts", category="decisions")
    secret = "ghp_" + "abcdefghijklmnopqrstuvwxyz0123456789"
    payload = json.dumps({"session_id": "s1", "cwd": str(project), "hook_event_name": "UserPromptSubmit",
                          "prompt": f"why does the helm deploy hang, token {secret}"})
    code = ("import sys, time, memdir.core\n"
            "memdir.core.Memdir.context = lambda self, *a, **k: time.sleep(30)\n"  # a block that never comes in time
            "from memdir.hosts.hooks import execute\n"
            f"execute('claude-code', 'user-prompt', home={str(home)!r}, budget_ms=1500, raw=sys.stdin.buffer.read())\n"
            "print('not ended by the watchdog')\n")
    r = subprocess.run([sys.executable, "-c", code], input=payload, capture_output=True, text=True, timeout=60,
                       env={**os.environ, "MEMDIR_HOME": str(home)})
    assert r.returncode == 0 and r.stdout == ""
    with memdir.open(project, home=home) as m:
        queued = spool.pending(m.roots["project"])
        assert len(queued) == 1 and secret not in queued[0].read_text(encoding="utf-8")
        hits = m.recent(kinds=["user"])
    assert len(hits) == 1 and "helm deploy hang" in hits[0].text and secret not in hits[0].text


def _late_hook(project, home, host, event, payload, patch):
    code = ("import sys, time, memdir.core\n" + patch +
            "from memdir.hosts.hooks import execute\n"
            f"execute({host!r}, {event!r}, home={str(home)!r}, budget_ms=1500, raw=sys.stdin.buffer.read())\n"
            "print('not ended by the watchdog')\n")
    r = subprocess.run([sys.executable, "-c", code], input=json.dumps(payload), capture_output=True, text=True,
                       timeout=60, env={**os.environ, "MEMDIR_HOME": str(home)})
    assert r.returncode == 0 and r.stdout == ""


SLOW_OPEN = ("first = memdir.core.Memdir.__init__\n"
             "def slow(self, *a, **k):\n"
             "    if not getattr(memdir.core, 'opened', False):\n"
             "        memdir.core.opened = True\n"
             "        time.sleep(30)\n"
             "    first(self, *a, **k)\n"
             "memdir.core.Memdir.__init__ = slow\n")
SLOW_BLOCK = "memdir.core.Memdir.context = lambda self, *a, **k: time.sleep(30)\n"


def test_turns_of_a_hook_that_ran_out_of_time_before_its_store_opened_are_queued(project, tmp_path):
    """On a loaded machine (load 12 on 2 cores, 30 hooks at once) hooks spent their budget before their store was
    open, or before a tool output or an OpenCode context's turns were captured: nothing was queued. The watchdog now
    queues every turn the payload holds, opening a store handle itself when the hook's own is not open yet."""
    home = tmp_path / "g"
    with memdir.open(project, home=home) as m:
        m.remember("deploys go through helm charts", category="decisions")
    _late_hook(project, home, "claude-code", "user-prompt",
               {"session_id": "s1", "cwd": str(project), "hook_event_name": "UserPromptSubmit",
                "prompt": "why does the helm deploy hang on node two"}, SLOW_OPEN)
    _late_hook(project, home, "claude-code", "post-tool-use",
               {"session_id": "s1", "cwd": str(project), "hook_event_name": "PostToolUse", "tool_name": "Bash",
                "tool_input": {"command": "make deploy"}, "tool_response": {"stdout": "helm upgrade timed out"}},
               SLOW_OPEN)
    _late_hook(project, home, "opencode", "context",
               {"sessionID": "o2", "directory": str(project), "text": "x",
                "messages": ["why is the staging cache cold", "and who flushed it"]}, SLOW_BLOCK)
    with memdir.open(project, home=home) as m:
        users = {h.text for h in m.recent(kinds=["user"])}
        tools = [h.text for h in m.recent(kinds=["tool"])]
    assert {"why does the helm deploy hang on node two", "why is the staging cache cold", "and who flushed it"} <= users
    assert len(tools) == 1 and "helm upgrade timed out" in tools[0]


def test_a_queue_file_whose_writer_died_before_renaming_it_is_stored(project, tmp_path):
    """A hook ended while it renamed its queue file left `.<name>.part` whole and never drained (a probe under load):
    after STALE_PART_S it is queued under its own name; a cut one is set aside, not deleted."""
    home = tmp_path / "g"
    with memdir.open(project, home=home) as m:
        m.remember("deploys go through helm charts", category="decisions")
        root = m.roots["project"]
        d = spool.spool_dir(root)
        d.mkdir(parents=True, exist_ok=True)
        row = {"key": "u:s1:late", "role": "user", "text": "why does the nightly build skip the docs", "session": "s1",
               "ts": "2026-11-01T12:00:00Z", "meta": None}
        whole = d / ".00000000000000000001-1-1.json.part"
        whole.write_text(json.dumps({"scope": "project", "rows": [row]}), encoding="utf-8")
        cut = d / ".00000000000000000002-1-1.json.part"
        cut.write_text('{"scope": "project", "rows": [{"key"', encoding="utf-8")
        young = d / ".00000000000000000003-1-1.json.part"
        young.write_text(json.dumps({"scope": "project", "rows": []}), encoding="utf-8")
        old = time.time() - spool.STALE_PART_S - 5
        for p in (whole, cut):
            os.utime(p, (old, old))
        assert len(spool.pending(root)) == 1
        assert any(p.name.startswith("bad-") for p in d.iterdir()) and young.exists()
    with memdir.open(project, home=home) as m:
        assert [h.text for h in m.recent(kinds=["user"])] == ["why does the nightly build skip the docs"]
