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


def _shown(reply: dict, turn: dict) -> str:
    """A neighbour's text as the model reads it: its window, or the text of the hit it names."""
    if turn["text"].startswith("(hit "):
        other = reply["hits"][int(turn["text"].split()[1]) - 1]
        assert other["handle"] == turn["handle"]
        return other["text"]
    return turn["text"]


def test_a_hit_carries_the_turn_before_and_after_it(tmp_path):
    m = _store(tmp_path)
    try:
        reply = do_recall(m, "why did the billing integration suite fail", 8)
        reply_hit = next(h for h in reply["hits"] if "will look at the fixture" in h["text"])
        # the failing output before the reply that names the failure, and the change after it: here hits of their
        # own, shown whole, so the neighbours name them instead of repeating their lines
        before, after = reply_hit["before"], reply_hit["after"]
        assert before["role"] == "tool" and before["text"].startswith("(hit ")
        assert "invoice_currency_code" in _shown(reply, before) and "currency = 'EUR'" in _shown(reply, after)
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
        assert "invoice_currency_code" in _shown(body, reply_hit["before"]) and reply_hit["before"]["role"] == "tool"
        assert reply_hit["before"]["handle"] and "currency = 'EUR'" in _shown(body, reply_hit["after"])
        assert reply_hit["ts"] == "2026-11-20T09:02:00.000Z"
    finally:
        m.close()


def test_a_neighbour_is_windowed_when_it_is_no_hit_of_the_reply(tmp_path):
    m = _store(tmp_path)
    try:
        reply = do_recall(m, "why did the billing integration suite fail", 1)  # one hit: its neighbours are windows
        (hit,) = reply["hits"]
        side = hit.get("before") or hit.get("after")
        assert side and not side["text"].startswith("(hit ") and len(side["text"]) <= 400
    finally:
        m.close()


def test_a_neighbour_another_hit_shows_whole_is_named_not_repeated():
    from memdir.server.tools import shared_turns, unshare_lost

    window = "E   KeyError: 'invoice_currency_code'"
    out = [{"handle": "aaa111", "text": "I will look at the fixture.",
            "before": {"handle": "bbb222", "role": "tool", "text": "… " + window + " …"}},
           {"handle": "bbb222", "text": "Bash: pytest → exit 1\n" + window + "\nok line"}]
    named = shared_turns(out)
    assert out[0]["before"] == {"handle": "bbb222", "role": "tool", "text": "(hit 2 of this reply)"}
    # the other hit's text cut below the window (the reply's bound): the window comes back
    out[1]["text"] = "Bash: pytest → exit 1 … [cut]"
    assert unshare_lost(out, named) and window in out[0]["before"]["text"] and not named
    # and when the other hit was left out of the reply altogether
    named = shared_turns(out := [out[0] | {"before": {"handle": "bbb222", "role": "tool", "text": window}},
                                 {"handle": "bbb222", "text": window}])
    assert named and unshare_lost(out[:1], named) and out[0]["before"]["text"] == window
