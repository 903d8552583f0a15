"""memory_recall's hits carry the turns next to them in their session (before / after), windowed to what matched."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import memdir
from memdir.server.tools import do_recall

T0 = datetime(2026, 11, 20, 9, 0, tzinfo=timezone.utc)


def _ev(i: int, role: str, text: str, session: str = "s1") -> dict:
    return {"role": role, "text": text, "session": session, "ts": (T0 + timedelta(minutes=i)).isoformat()}


def _store(tmp_path):
    (tmp_path / "p").mkdir()
    m = memdir.Memdir(tmp_path / "p", home=tmp_path / "g", clock=lambda: T0 + timedelta(days=3))
    m.import_events([
        _ev(0, "user", "run the integration suite for the billing service please"),
        _ev(1, "tool", "Bash: pytest tests/billing → exit 1\nE   KeyError: 'invoice_currency_code'\n" + "ok line\n" * 200),
        _ev(2, "assistant", "The integration suite for the billing service failed; I will look at the fixture."),
        _ev(3, "tool", "Edit: tests/conftest.py (-1 +1 lines)\n- currency = None\n+ currency = 'EUR'"),
        _ev(0, "user", "an unrelated session about the docs site", session="s2"),
    ])
    return m


def test_a_hit_carries_the_turn_before_and_after_it(tmp_path):
    m = _store(tmp_path)
    try:
        reply = do_recall(m, "why did the billing integration suite fail", 8)
        reply_hit = next(h for h in reply["hits"] if "will look at the fixture" in h["text"])
        # the failing output before the reply that names the failure, windowed to its error line
        assert "invoice_currency_code" in reply_hit["before"]["text"]
        assert reply_hit["before"]["role"] == "tool" and len(reply_hit["before"]["text"]) <= 400
        assert "currency = 'EUR'" in reply_hit["after"]["text"]
    finally:
        m.close()


def test_first_turn_has_no_before_and_sessions_do_not_mix(tmp_path):
    m = _store(tmp_path)
    try:
        hits = m.recall("unrelated session about the docs site", k=3)
        got = m.around(hits, "docs site")
        top = dict(zip((h.text for h in hits), got))["an unrelated session about the docs site"]
        assert top == {}  # alone in its session: nothing before or after, nothing borrowed from s1
        first = next(h for h in m.recall("run the integration suite billing", k=8) if h.text.startswith("run the"))
        ctx = m.around([first], "billing")[0]
        assert "before" not in ctx and ctx["after"]["role"] == "tool"
    finally:
        m.close()


def test_notes_get_no_neighbours(tmp_path):
    m = _store(tmp_path)
    try:
        m.remember("billing uses EUR as the default invoice currency", category="facts")
        hits = [h for h in m.recall("default invoice currency billing", k=8) if h.category]
        assert hits and m.around(hits, "invoice currency") == [{} for _ in hits]
    finally:
        m.close()


def test_the_mcp_tool_sends_the_turns_around_and_times_in_utc(tmp_path):
    """Over the MCP protocol too (the reply model once dropped ``before``/``after`` on the way out), with event times
    written as the CLI writes them (``…Z``)."""
    import pytest

    pytest.importorskip("mcp", reason="needs the optional `mcp` SDK")
    import anyio
    from mcp import Client

    from memdir.server.mcp import build_server

    m = _store(tmp_path)

    async def main():
        async with Client(build_server(memdir=m)) as c:
            return (await c.call_tool("memory_recall", {"query": "why did the billing integration suite fail"})).structured_content

    try:
        body = anyio.run(main)
        reply_hit = next(h for h in body["hits"] if "will look at the fixture" in h["text"])
        assert "invoice_currency_code" in reply_hit["before"]["text"] and reply_hit["before"]["role"] == "tool"
        assert reply_hit["before"]["handle"] and "currency = 'EUR'" in reply_hit["after"]["text"]
        assert reply_hit["ts"] == "2026-11-20T09:02:00.000Z"
    finally:
        m.close()
