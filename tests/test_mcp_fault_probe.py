"""Faults an MCP, hook and install probe found: what a tool echoes back of a huge argument stays small."""

from __future__ import annotations

import json

import memdir
from memdir.server.tools import QUERY_ECHO, do_forget


def test_forget_of_a_huge_unknown_id_does_not_echo_it_whole(tmp_path, project):
    """A 200,000-character id (a pasted log as the id) came back twice, in ``id`` and in the message: 400 KB of reply,
    twice again as text and structured content, past a host's output cap; the call changed nothing."""
    with memdir.open(project, home=tmp_path / "g") as m:
        m.remember("deploys use pnpm", category="decisions")
        out = do_forget(m, "x" * 200_000)
    assert out["forgotten"] is False
    assert len(json.dumps(out)) < 3 * QUERY_ECHO
    assert out["id"].startswith("x" * 100) and "nothing has the id" in out["message"]
