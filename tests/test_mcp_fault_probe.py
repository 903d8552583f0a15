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


def test_prune_days_nan_is_said_to_be_no_number(tmp_path, project):
    """``{"days": "NaN"}`` was refused with ``days: Input should be greater than or equal to 0``: true of no number,
    and no help to a model that sent a non-finite one."""
    import pytest

    pytest.importorskip("mcp")
    from memdir.server.mcp import build_server
    from memdir.server.mcptable import wire_replies

    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}
    calls = [{"jsonrpc": "2.0", "id": i, "method": "tools/call",
              "params": {"name": "memory_prune", "arguments": {"days": days}}}
             for i, days in enumerate(["NaN", "inf", "-Infinity"], start=2)]
    with memdir.open(project, home=tmp_path / "g") as m:
        replies = wire_replies(build_server(memdir=m), [init, *calls])[1:]
    for r in replies:
        text = r["result"]["content"][0]["text"]
        assert r["result"]["isError"] and "days" in text and "finite number" in text, text
        assert "greater than" not in text and "\n" not in text


def test_prompts_get_of_an_unknown_prompt_is_invalid_params_without_a_traceback(tmp_path, project, caplog):
    """The SDK answered ``prompts/get`` of a prompt it does not have with error code 0 (no JSON-RPC code) and logged a
    traceback on stderr, in the host's MCP log; memdir serves no prompts."""
    import logging

    import pytest

    pytest.importorskip("mcp")
    from memdir.server.mcp import build_server
    from memdir.server.mcptable import wire_replies

    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}
    get = {"jsonrpc": "2.0", "id": 2, "method": "prompts/get", "params": {"name": "remember-this"}}
    with caplog.at_level(logging.WARNING), memdir.open(project, home=tmp_path / "g") as m:
        reply = wire_replies(build_server(memdir=m), [init, get])[1]
    err = reply["error"]
    assert err["code"] == -32602, err
    assert "remember-this" in err["message"] and "tools" in err["message"] and "\n" not in err["message"]
    assert not [r for r in caplog.records if r.exc_info], [r.getMessage() for r in caplog.records]


def test_a_write_after_the_project_directory_was_deleted_is_refused_and_recreates_nothing(tmp_path):
    """An MCP server (one process for the whole agent session) whose project directory was deleted meanwhile (a
    worktree removed, a checkout moved) recreated it at the next memory_remember, holding only .memory/: the note went
    where nobody would look. The write is refused now, in one line naming the directory; recall still answers."""
    import shutil

    import pytest

    from memdir.errors import MemdirError
    from memdir.server.tools import do_recall, do_remember

    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    with memdir.open(proj, home=tmp_path / "g") as m:
        do_remember(m, "deploys use pnpm", "decisions", None, None, None, None, None, "project", None)
        shutil.rmtree(proj)
        with pytest.raises(MemdirError) as exc:
            do_remember(m, "written after the project was deleted", "facts", None, None, None, None, None, "project", None)
        assert str(proj) in str(exc.value) and "no longer exists" in str(exc.value) and "\n" not in str(exc.value)
        assert not proj.exists()
        assert do_recall(m, "pnpm")["count"] == 0  # nothing left to find, and no error
        do_remember(m, "a global note still works", "facts", None, None, None, None, None, "global", None)
    assert not proj.exists()
