"""A memory_recall hit whose text is cut shows the passage recall matched, not only the opening it never matched."""

from __future__ import annotations

import inspect
import re
from datetime import datetime, timedelta, timezone
from types import SimpleNamespace

import memdir
from memdir.server.tools import DEFAULT_K, MAX_HIT_CHARS, MIN_HIT_CHARS, do_recall, hit_out

T0 = datetime(2026, 11, 20, 9, 0, tzinfo=timezone.utc)
FILLER = "".join(f"collecting module {i}: plain progress output with nothing to see\n" for i in range(150))


def _store(tmp_path):
    (tmp_path / "p").mkdir()
    m = memdir.Memdir(tmp_path / "p", home=tmp_path / "g", clock=lambda: T0 + timedelta(days=3))
    log = ("Bash: make test-all → exit 2\n" + FILLER
           + "E   sqlite3.OperationalError: database quarantine_ledger is locked by the vacuum daemon\n" + FILLER)
    m.import_events([
        {"role": "user", "text": "run the whole test suite", "session": "s1", "ts": T0.isoformat()},
        {"role": "tool", "text": log, "session": "s1", "ts": (T0 + timedelta(minutes=1)).isoformat()},
    ])
    return m, log.strip()


def test_a_cut_hit_shows_its_matched_passage_led_by_its_first_line(tmp_path):
    m, log = _store(tmp_path)
    try:
        assert len(log) > MAX_HIT_CHARS and log.index("quarantine_ledger") > MAX_HIT_CHARS
        hit = next(h for h in do_recall(m, "quarantine ledger locked vacuum daemon")["hits"] if h["kind"] == "tool")
        assert hit["truncated"] and len(hit["text"]) <= MAX_HIT_CHARS
        assert "database quarantine_ledger is locked by the vacuum daemon" in hit["text"]
        assert hit["text"].startswith("Bash: make test-all → exit 2 …\n")  # which call it was stays in view
        m_ = re.search(r"\[characters ([\d,]+)-([\d,]+) of ([\d,]+) shown; the whole: memory_read id='(\w+)' offset=0\]$",
                       hit["text"])
        assert m_ is not None and m_.group(4) == hit["handle"]
        a, b, total = (int(x.replace(",", "")) for x in m_.groups()[:3])
        assert total == len(log) and 0 < a < log.index("quarantine_ledger") < b
        assert log[a:b] in hit["text"]  # the window is the stored text itself, uncut inside
    finally:
        m.close()


def test_the_opening_is_kept_when_it_holds_the_match(tmp_path):
    m, log = _store(tmp_path)
    try:
        hit = next(h for h in do_recall(m, "make test-all")["hits"] if h["kind"] == "tool")
        assert hit["text"].startswith(log[:200]) and "characters shown; the rest: memory_read" in hit["text"]
    finally:
        m.close()


def test_a_window_never_outgrows_its_limit():
    text = "Bash: run → " + "x" * 300 + "\n" + "".join(f"line {i} " + "y" * 60 + "\n" for i in range(200))
    hit = SimpleNamespace(id="e1", handle="abc123", kind="tool", scope="project", score=1.0, summary=None, text=text,
                          ts=None, pinned=False, category=None, reasons={}, span=(9000, 10000))
    for limit in (4000, 1000, 400, 300, MIN_HIT_CHARS, 150):
        out = hit_out(hit, limit)["text"]
        assert len(out) <= limit, limit
    assert "characters 8," in hit_out(hit, 1000)["text"] and hit_out(hit, 1000)["text"].startswith("Bash: run → xxx")


def test_the_tool_and_the_mcp_schema_share_the_default_k():
    from memdir.server import tools

    assert inspect.signature(tools.do_recall).parameters["k"].default == DEFAULT_K == 12
