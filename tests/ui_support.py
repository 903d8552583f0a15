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
