"""Helpers for the viewer's tests and its screenshot script: a sample store, a live server on 127.0.0.1 in a
thread, and Debian's chromium driven by Playwright (never a browser downloaded by Playwright)."""

from __future__ import annotations

import json
import os
import shutil
import socket
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

import memdir
from memdir.demo import load_sample
from memdir.hosts.hooks import run_hook

CHROMIUM = os.environ.get("MEMDIR_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
PROMPT = "部署之前要注意什么？ how do I roll back a bad deploy?"


def browser_missing() -> str | None:
    """Why the browser tests cannot run here (``None`` when they can)."""
    import importlib.util

    if importlib.util.find_spec("playwright") is None:
        return "playwright for Python is not installed (pip install -e '.[test]')"
    if not (shutil.which(CHROMIUM) or Path(CHROMIUM).is_file()):
        return f"no chromium at {CHROMIUM} (Debian: apt-get install chromium; .ci/run does it)"
    return None


def sample_store(base: Path) -> tuple[Any, Path, Path]:
    """A project ``base/tally`` and global root ``base/global`` holding the shipped sample (session through the
    capture gates, notes), plus one injected block logged by a real Claude Code UserPromptSubmit hook run."""
    project, home = base / "tally", base / "global"
    (project / ".git").mkdir(parents=True, exist_ok=True)
    m = memdir.open(project, home=home)
    load_sample(m)
    inject_once(project, home, PROMPT)
    return m, project, home


def inject_once(project: Path, home: Path, prompt: str, session: str = "s-live") -> str:
    """Run the Claude Code UserPromptSubmit hook once (as the host would); returns what it printed."""
    payload = {"prompt": prompt, "session_id": session, "cwd": str(project), "hook_event_name": "UserPromptSubmit"}
    return run_hook("claude-code", "user-prompt", json.dumps(payload, ensure_ascii=False), home=str(home))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def live_server(app: Any, host: str = "127.0.0.1") -> Iterator[str]:
    """Serve ``app`` with uvicorn in a thread; yields ``http://host:port``; stops it on exit (bounded wait)."""
    import uvicorn

    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    for _ in range(400):
        if server.started:
            break
        time.sleep(0.025)
    try:
        yield f"http://{host}:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


@contextmanager
def browser() -> Iterator[Any]:
    """A headless Debian chromium under Playwright."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            yield b
        finally:
            b.close()


LONG_TURNS = 3_000  # one long session, beyond what a session page used to show (1,000)
CATEGORIES = ("facts", "rules", "decisions", "pitfalls")


def scale_store(base: Path, *, events: int = 10_000, notes: int = 1_000, blocks: int = 120,
                skips: int = 300) -> tuple[Any, Path, Path]:
    """A project at a team's scale, built in a few seconds: ``events`` captured turns (one session of
    :data:`LONG_TURNS`, the rest in sessions of 10, so more than 500 sessions) through ``import_events``, ``notes``
    note files written as a person would and indexed by ``reindex``, ``skips`` captures the gates skipped, and
    ``blocks`` injected blocks logged against
    prompts of the long session (each one a stored user turn, as a hook captures it)."""
    from memdir.capture.gates import text_hash

    project, home = base / "scale", base / "global"
    (project / ".git").mkdir(parents=True, exist_ok=True)
    m = memdir.open(project, home=home)
    t0 = 1_760_000_000
    rows = []
    for i in range(events):
        sid = "long" if i < LONG_TURNS else f"s{(i - LONG_TURNS) // 10:04d}"
        role = ("user", "assistant", "tool")[i % 3]
        text = f"turn {i} of {sid}: deploy the cache for tenant {i % 97}, 部署 第 {i} 步"
        rows.append({"key": f"{role[0]}:{sid}:{text_hash(text)}", "role": role, "session": sid, "ts": t0 + i * 60,
                     "text": text})  # keyed as capture keys them
    got = m.import_events(rows)
    assert got["stored"] == events, got
    for i in range(notes):
        cat = CATEGORIES[i % len(CATEGORIES)]
        d = project / ".memory" / cat
        d.mkdir(parents=True, exist_ok=True)
        (d / f"n{i:04d}.md").write_text(
            f"---\nid: {cat}/n{i:04d}\nsummary: note {i} on deploying service {i}\n"
            f"created: '2026-10-01T00:00:00.000Z'\nupdated: '2026-11-{1 + i % 28:02d}T00:00:{i % 60:02d}.000Z'\n"
            f"tags: [t{i % 10}]\n---\nnote {i} on deploying service {i}: words {i * 13 % 97}\n", encoding="utf-8")
    m.reindex()
    for j in range(skips):  # captures the gates skipped (trivial acknowledgements), outside the long session
        m.capture({"role": "user", "text": ("ok", "好的", "thanks")[j % 3], "session": f"skip{j:04d}"})
    for j in range(blocks):
        i = 3 * j  # a user turn of the long session
        prompt = rows[i]["text"]
        m.record_injection(f"<memory>\n[abcdef fact 11-01] block {j}\n</memory>", prompt=prompt, host="test",
                           event="user-prompt", session="long")
    return m, project, home
