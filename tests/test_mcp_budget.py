"""Every MCP reply fits what hosts accept (case C29): the whole reply — texts, summaries, reasons and the SDK's
two copies (text content and structured content) — stays within 20,000 characters of JSON per copy and within a
host's 25,000-token tool-result cap, Chinese text included; what is cut says how to read the rest."""

from __future__ import annotations

import json
import random

import pytest

mcp = pytest.importorskip("mcp", reason="needs the optional `mcp` SDK (pip install 'memdir[mcp]')")
import anyio  # noqa: E402
from mcp import Client  # noqa: E402

import memdir  # noqa: E402
from memdir.server.mcp import build_server  # noqa: E402
from memdir.server.tools import MAX_RECALL_CHARS, estimate_tokens  # noqa: E402

HAN = "的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动同工也能下过子说产种面而方后多定行学法"


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.fixture(scope="module")
def chinese_store(tmp_path_factory):
    d = tmp_path_factory.mktemp("c29")
    (d / "p" / ".git").mkdir(parents=True)
    m = memdir.open(d / "p", home=d / "h")
    rng = random.Random(29)
    for i in range(60):
        m.remember("部署" + "".join(rng.choice(HAN) for _ in range(4000)), category="facts", summary=f"部署笔记 {i}")
    yield m
    m.close()


@pytest.mark.anyio
@pytest.mark.parametrize("tool,args,key", [("memory_recall", {"query": "部署", "k": 8}, "hits"),
                                           ("memory_recall", {"query": "部署", "k": 20}, "hits"),
                                           ("memory_recall", {"query": "部署", "k": 50}, "hits"),
                                           ("memory_list", {"limit": 50}, "entries")])
async def test_a_chinese_reply_fits_the_hosts_caps(chinese_store, tool, args, key):
    async with Client(build_server(memdir=chinese_store)) as c:
        r = await c.call_tool(tool, args)
    body = r.structured_content
    wire = "".join(x.text for x in r.content if hasattr(x, "text")) + json.dumps(body, ensure_ascii=False)
    assert len(json.dumps(body, ensure_ascii=False, separators=(",", ":"))) <= MAX_RECALL_CHARS
    assert estimate_tokens(wire) <= 25_000  # both copies together, as the host receives them
    assert body["count"] == len(body[key]) >= 1
    want = args.get("k") or args.get("limit")
    assert body["count"] + body.get("omitted", 0) == want  # nothing vanishes without a count
    cut = [h for h in body[key] if h["truncated"]]
    assert cut and all("memory_read id=" in h["text"] for h in cut)


def test_the_estimate_counts_chinese_as_about_a_token_a_character():
    assert estimate_tokens("部署" * 1000) >= 2000
    assert estimate_tokens("deploy " * 1000) <= 2500


def test_the_estimate_counts_indic_and_thai_as_about_a_token_a_character():
    # sibling of C29: tokenizers split Devanagari and Thai about a token a character or finer, Cyrillic about two
    assert estimate_tokens("नमस्ते दुनिया" * 100) >= 1200
    assert estimate_tokens("สวัสดีชาวโลก" * 100) >= 1200
    assert estimate_tokens("привет мир " * 100) >= 600


@pytest.mark.anyio
async def test_a_page_of_a_long_chinese_memory_fits_the_hosts_caps(tmp_path):
    """memory_read's page was bounded in characters only (16,000): a page of Chinese is about 19,000 tokens a copy,
    38,000 as the host receives it, past Claude Code's 25,000-token cap. Paging still gives back the whole text."""
    (tmp_path / "p" / ".git").mkdir(parents=True)
    rng = random.Random(290)
    text = "部署" + "".join(rng.choice(HAN) for _ in range(40_000))
    with memdir.open(tmp_path / "p", home=tmp_path / "h") as m:
        note = m.remember(text, summary="部署" * 150)
        async with Client(build_server(memdir=m)) as c:
            got, offset, pages = "", 0, 0
            while offset is not None:
                r = await c.call_tool("memory_read", {"id": note.id, "offset": offset})
                body = r.structured_content
                wire = "".join(x.text for x in r.content if hasattr(x, "text")) + json.dumps(body, ensure_ascii=False)
                assert estimate_tokens(wire) <= 25_000
                assert len(json.dumps(body, ensure_ascii=False, separators=(",", ":"))) <= MAX_RECALL_CHARS
                assert body["text"] and body["offset"] == offset == len(got)
                got += body["text"]
                offset, pages = body["next_offset"], pages + 1
                assert pages < 20
    assert got == m.get(note.id).text and pages >= 5


@pytest.mark.anyio
@pytest.mark.parametrize("how", ["rules", "supersedes a rule"])
async def test_a_long_rule_proposal_reply_fits_the_hosts_caps(tmp_path, how):
    """A rule a model proposes (category rules, or a note superseding a rule) came back whole in the reply's
    ``proposal``: 30,000 Chinese characters were about 80,000 tokens as the host receives them, three times its cap,
    where the same text as a fact is shown up to MAX_HIT_CHARS. The proposal is kept whole on disk."""
    (tmp_path / "p" / ".git").mkdir(parents=True)
    rng = random.Random(291)
    text = "部署" + "".join(rng.choice(HAN) for _ in range(30_000))
    summary = "部署" + "".join(rng.choice(HAN) for _ in range(3_000))
    with memdir.open(tmp_path / "p", home=tmp_path / "h") as m:
        rule = m.remember("部署前必须跑测试", category="rules")
        args = {"text": text, "summary": summary, "category": "rules"} if how == "rules" else {
            "text": text, "summary": summary, "supersedes": rule.id}
        async with Client(build_server(memdir=m)) as c:
            r = await c.call_tool("memory_remember", args)
        assert not r.is_error, r.content
        body = r.structured_content
        wire = "".join(x.text for x in r.content if hasattr(x, "text")) + json.dumps(body, ensure_ascii=False)
        assert estimate_tokens(wire) <= 25_000
        assert len(json.dumps(body, ensure_ascii=False, separators=(",", ":"))) <= MAX_RECALL_CHARS
        assert body["note"] is None and body["proposal"]["text"].startswith(text[:100])
        (kept,) = m.proposals()
        assert kept["text"] == text and kept["id"] == body["proposal"]["id"]
