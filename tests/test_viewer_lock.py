"""Under ``memdir serve`` the viewer's pages have their own store and lock (case C46): a page that takes seconds
(Health runs doctor over the whole store) never holds the lock the warm hooks and the MCP tools wait for."""

from __future__ import annotations

import threading

import pytest

pytest.importorskip("mcp")

from memdir.cli.serve import viewer_store  # noqa: E402
from memdir.server.mcp import MemoryStore  # noqa: E402


def test_a_slow_page_does_not_hold_the_hooks_lock(project, tmp_path):
    hooks_lock = threading.RLock()
    hooks = MemoryStore(project, home=tmp_path / "g", lock=hooks_lock)
    hooks.memdir.remember("deploys use scripts/deploy.sh", category="decisions")
    pages = viewer_store(hooks)
    assert pages.memdir is not hooks.memdir and pages.memdir.project_root == hooks.memdir.project_root
    rendering, done = threading.Event(), threading.Event()

    def health_page():
        with pages.lock:  # what the viewer's Backend holds while a page renders
            pages.memdir.doctor(repair=False)
            rendering.set()
            done.wait(10)

    t = threading.Thread(target=health_page)
    t.start()
    assert rendering.wait(30)
    try:
        got = hooks_lock.acquire(timeout=1.0)  # a prompt hook answered by the server meanwhile
        assert got, "the viewer held the hooks' lock"
        assert "deploy.sh" in hooks.memdir.context("how do we deploy?")
        hooks_lock.release()
    finally:
        done.set()
        t.join()
