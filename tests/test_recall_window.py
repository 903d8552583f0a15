"""A memory_recall hit whose text is cut shows the passage recall matched, not only the opening it never matched."""

from __future__ import annotations

import inspect
import random
import re
from datetime import datetime, timedelta, timezone
from types import SimpleNamespace

import pytest

import memdir
from memdir.server.tools import DEFAULT_K, MAX_HIT_CHARS, MIN_HIT_CHARS, do_recall, fit_hits, hit_out

T0 = datetime(2026, 11, 20, 9, 0, tzinfo=timezone.utc)
FILLER = "".join(f"collecting module {i}: plain progress output with nothing to see\n" for i in range(150))
ERROR = "E   sqlite3.OperationalError: database quarantine_ledger is locked by the vacuum daemon"
NOTE = re.compile(r" … \[characters ([\d,]+)-([\d,]+) of ([\d,]+) shown; memory_read id='([^']+)' offset=(\d+) reads on, "
                  r"offset=0 from the start\]$")


def _store(tmp_path, log: str):
    (tmp_path / "p").mkdir()
    m = memdir.Memdir(tmp_path / "p", home=tmp_path / "g", clock=lambda: T0 + timedelta(days=3))
    m.import_events([
        {"role": "user", "text": "run the whole test suite", "session": "s1", "ts": T0.isoformat()},
        {"role": "tool", "text": log, "session": "s1", "ts": (T0 + timedelta(minutes=1)).isoformat()},
    ])
    return m


def _shown(hit_text: str, stored: str) -> tuple[int, int]:
    """The ``(a, b)`` the note names, checked to be exactly the stored characters the text shows."""
    got = NOTE.search(hit_text)
    assert got is not None, hit_text[-200:]
    a, b, total = (int(x.replace(",", "")) for x in got.groups()[:3])
    assert total == len(stored) and int(got.group(5)) == b and 0 < a < b <= total
    assert hit_text[:got.start()].endswith(stored[a:b])
    return a, b


def test_a_cut_hit_shows_its_matched_passage_led_by_its_first_line(tmp_path):
    log = "Bash: make test-all → exit 2\n" + FILLER + ERROR + "\n" + FILLER.strip()
    m = _store(tmp_path, log)
    try:
        assert len(log) > MAX_HIT_CHARS and log.index("quarantine_ledger") > MAX_HIT_CHARS
        hit = next(h for h in do_recall(m, "quarantine ledger locked vacuum daemon")["hits"] if h["kind"] == "tool")
        assert hit["truncated"] and len(hit["text"]) <= MAX_HIT_CHARS and ERROR in hit["text"]
        assert hit["text"].startswith("Bash: make test-all → exit 2 …\n")  # which call it was stays in view
        a, _ = _shown(hit["text"], log)
        assert a < log.index(ERROR) and NOTE.search(hit["text"]).group(4) == hit["handle"]
    finally:
        m.close()


def test_an_error_on_the_last_line_is_shown_to_the_end(tmp_path):
    log = "Bash: make test-all → exit 2\n" + FILLER + FILLER + ERROR  # a build log ends with its error
    m = _store(tmp_path, log)
    try:
        hit = next(h for h in do_recall(m, "quarantine ledger locked vacuum daemon")["hits"] if h["kind"] == "tool")
        assert ERROR in hit["text"] and _shown(hit["text"], log)[1] == len(log)
    finally:
        m.close()


def test_the_opening_is_kept_when_it_holds_the_match(tmp_path):
    log = "Bash: make test-all → exit 2\n" + FILLER + ERROR + "\n" + FILLER.strip()
    m = _store(tmp_path, log)
    try:
        hit = next(h for h in do_recall(m, "make test-all")["hits"] if h["kind"] == "tool")
        assert hit["text"].startswith(log[:200]) and "characters shown; the rest: memory_read" in hit["text"]
    finally:
        m.close()


def _hit(text: str, span, hid: str = "e1", handle: str | None = "abc123") -> SimpleNamespace:
    return SimpleNamespace(id=hid, handle=handle, kind="tool", scope="project", score=1.0, summary=None, text=text,
                           ts=None, pinned=False, category=None, reasons={}, span=span)


def test_windows_stay_in_their_limit_and_name_exactly_what_they_show():
    rng = random.Random(7)
    words = ["deploy", "部署脚本", "x" * 30, "path/to/file.py", "", "E   Error: locked"]
    for _ in range(3000):
        lines = [" ".join(rng.choice(words) for _ in range(rng.randint(0, 30))) for _ in range(rng.randint(1, 120))]
        text = "\n".join(lines) if rng.random() < 0.8 else " ".join(lines)  # some one long line
        if len(text) < 10:
            continue
        a = rng.randrange(len(text))
        span = (a, min(len(text), a + rng.randint(1, 900)))
        limit = rng.choice([MAX_HIT_CHARS, 2000, 1000, 500, 300, MIN_HIT_CHARS, 150])
        out = hit_out(_hit(text, span), limit)["text"]
        assert len(out) <= max(limit, 100), (limit, len(out))
        if NOTE.search(out):
            _shown(out, text)
            got = NOTE.search(out)
            assert int(got.group(1).replace(",", "")) <= a < int(got.group(2).replace(",", ""))  # holds its start
    one_line = "curl -s https://example.org/api → " + '{"k": "v", ' * 2000 + '"needle": "quarantine_ledger"}'
    out = hit_out(_hit(one_line, (len(one_line) - 30, len(one_line))), 1000)["text"]
    assert "quarantine_ledger" in out and _shown(out, one_line)[1] == len(one_line)


def test_a_span_that_is_not_a_character_range_is_ignored():
    text = "Bash: x → " + "y" * 9000
    for span in ([None, None], ["100", "9000"], [9000.5, 9400.5], [True, 5], (5, 3), (-4, 10), "0-9", (1, 2, 3)):
        out = hit_out(_hit(text, span), 1000)["text"]
        assert out.startswith(text[:500]) and len(out) <= 1000


def test_a_reply_with_long_ids_and_no_handles_still_fits():
    hits = [_hit("z" * 6000, None, hid="team:" + "q" * 400, handle=None) for _ in range(50)]
    limits = [MAX_HIT_CHARS] * 50
    reply = fit_hits({"query": "q", "count": 50, "hits": [hit_out(h, MAX_HIT_CHARS) for h in hits]}, "hits",
                     list(hits), limits)
    assert reply["count"] + reply.get("omitted", 0) == 50 and reply["count"] >= 1


def test_the_tool_and_the_mcp_schema_share_the_default_k():
    from memdir.server import tools

    assert DEFAULT_K == 12 and inspect.signature(tools.do_recall).parameters["k"].default is None


def test_a_users_recall_k_is_the_tools_default_too(tmp_path):
    (tmp_path / "p").mkdir()
    events = [{"role": "user", "text": f"deploy step {i} of the payments service", "session": "s", "ts": T0.isoformat()}
              for i in range(20)]
    for config, want in ((None, DEFAULT_K), ({"recall.k": 3}, 3)):
        with memdir.open(tmp_path / "p", home=tmp_path / "g", config=config) as m:
            m.import_events(events)
            assert do_recall(m, "payments deploy")["count"] == want
            assert do_recall(m, "payments deploy", 5)["count"] == 5  # the model's k wins


def test_a_k_below_one_is_refused_not_answered_with_one_hit(tmp_path):
    from memdir.errors import UsageError

    (tmp_path / "p").mkdir()
    with memdir.open(tmp_path / "p", home=tmp_path / "g") as m:
        m.remember("the payments service deploys on fridays")
        for bad in (0, -1, True, 2.5):
            with pytest.raises(UsageError, match="k must be"):
                do_recall(m, "payments deploy", bad)
        assert do_recall(m, "payments deploy", 500)["count"] == 1  # above MAX_K: clamped (one note to find)
