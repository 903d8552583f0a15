"""Checks on the sample data shipped in ``src/memdir/data`` for ``make demo``.

The files are read by path (not through ``import memdir``) so these checks hold even while the
package itself is being built.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections import Counter
from datetime import datetime
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[1] / "src" / "memdir" / "data"
SESSION = DATA / "sample_session.jsonl"
NOTES = DATA / "sample_notes.jsonl"

ROLES = {"user", "assistant", "tool"}
CATEGORIES = {"rules", "preferences", "decisions", "pitfalls", "facts"}
EVENT_FIELDS = {"key", "role", "text", "session", "ts"}
NOTE_FIELDS = {"category", "summary", "text", "tags", "load_when", "pinned"}
TRIVIAL = {"ok", "好的", "继续", "thanks", "/compact"}
KEY_RE = re.compile(r"^sample:(s\d+):(\d+)$")
CJK_RE = re.compile(r"[\u4e00-\u9fff]")
LATIN_RE = re.compile(r"[A-Za-z]{3,}")
# Anything that looks like a credential: URI userinfo with a password, key=value secrets, token prefixes.
SECRET_RE = re.compile(
    r"[a-z][a-z0-9+.-]*://[^\s/:@]+:[^\s/@]+@"
    r"|(?i:password|passwd|secret|token)\s*[=:]\s*\S"
    r"|sk-[A-Za-z0-9]|ghp_|github_pat_|xox[bp]-|AKIA[0-9A-Z]{8}|-----BEGIN"
)


def _read_jsonl(path: Path) -> list[dict]:
    rows = []
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        assert line.strip(), f"{path.name}:{lineno}: blank line"
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:  # pragma: no cover - message for a broken edit
            pytest.fail(f"{path.name}:{lineno}: not JSON ({exc})")
        assert isinstance(obj, dict), f"{path.name}:{lineno}: not an object"
        rows.append(obj)
    return rows


@pytest.fixture(scope="module")
def events() -> list[dict]:
    return _read_jsonl(SESSION)


@pytest.fixture(scope="module")
def notes() -> list[dict]:
    return _read_jsonl(NOTES)


def test_files_exist_and_are_utf8_nfc():
    for path in (SESSION, NOTES, DATA / "README.md"):
        text = path.read_text(encoding="utf-8")
        assert text.endswith("\n"), f"{path.name}: missing final newline"
        assert unicodedata.is_normalized("NFC", text), f"{path.name}: not NFC"


def test_events_shape(events):
    for ev in events:
        assert set(ev) == EVENT_FIELDS, ev.get("key")
        assert all(isinstance(ev[f], str) for f in EVENT_FIELDS), ev["key"]
        assert ev["role"] in ROLES, ev["key"]
        assert ev["text"].strip() == ev["text"] and ev["text"], ev["key"]


def test_about_a_hundred_turns_in_two_or_three_sessions(events):
    assert 90 <= len(events) <= 110
    sessions = Counter(ev["session"] for ev in events)
    assert 2 <= len(sessions) <= 3
    assert all(n >= 20 for n in sessions.values()), sessions
    assert Counter(ev["role"] for ev in events).keys() == ROLES


def test_keys_unique_and_match_session(events):
    keys = [ev["key"] for ev in events]
    assert len(keys) == len(set(keys))
    per_session: dict[str, list[int]] = {}
    for ev in events:
        m = KEY_RE.match(ev["key"])
        assert m, ev["key"]
        assert ev["session"] == f"sample-{m.group(1)}", ev["key"]
        per_session.setdefault(ev["session"], []).append(int(m.group(2)))
    for session, numbers in per_session.items():
        assert numbers == list(range(1, len(numbers) + 1)), session


def test_timestamps_iso8601_with_offset_and_ordered(events):
    last: dict[str, datetime] = {}
    days = set()
    for ev in events:
        ts = datetime.fromisoformat(ev["ts"])
        assert ts.utcoffset() is not None, f"{ev['key']}: no UTC offset"
        assert re.search(r"[+-]\d{2}:\d{2}$", ev["ts"]), ev["key"]
        prev = last.get(ev["session"])
        assert prev is None or ts > prev, f"{ev['key']}: not after the previous turn"
        last[ev["session"]] = ts
        days.add(ts.date())
    assert len(days) >= 2
    starts = sorted(min(datetime.fromisoformat(e["ts"]) for e in events if e["session"] == s) for s in last)
    ends = sorted(last.values())
    assert all(end < nxt for end, nxt in zip(ends, starts[1:])), "sessions overlap"


def test_bilingual(events):
    texts = [ev["text"] for ev in events]
    assert sum(bool(CJK_RE.search(t)) for t in texts) >= len(texts) // 3
    assert sum(bool(LATIN_RE.search(t)) for t in texts) >= len(texts) // 2
    mixed = [t for t in texts if CJK_RE.search(t) and LATIN_RE.search(t)]
    assert len(mixed) >= 20
    english_only = [t for t in texts if not CJK_RE.search(t) and LATIN_RE.search(t)]
    assert english_only, "expected some English-only turns"


def test_realistic_lengths_except_trivial_turns(events):
    for ev in events:
        n = len(ev["text"])
        if ev["text"] in TRIVIAL:
            assert ev["role"] == "user", ev["key"]
        elif ev["role"] == "user":
            assert 10 <= n <= 300, (ev["key"], n)
        elif ev["role"] == "assistant":
            assert 50 <= n <= 800, (ev["key"], n)
        else:
            assert n <= 300 and ":" in ev["text"].split(" ", 1)[0], ev["key"]


def test_has_trivial_turns_and_one_compact(events):
    texts = Counter(ev["text"] for ev in events)
    assert texts["/compact"] == 1
    assert {"ok", "好的", "继续", "thanks"} <= set(texts)


def test_exactly_one_secret(events, notes):
    hits = [(ev["key"], m.group(0)) for ev in events for m in SECRET_RE.finditer(ev["text"])]
    assert len(hits) == 1, hits
    key, _ = hits[0]
    assert key == "sample:s1:16"
    assert "Sup3rS3cret" in next(ev["text"] for ev in events if ev["key"] == key)
    for note in notes:
        assert not SECRET_RE.search(note["text"] + note["summary"]), note["summary"]


def test_notes_shape(notes):
    assert 8 <= len(notes) <= 12
    for note in notes:
        assert set(note) == NOTE_FIELDS, note.get("summary")
        assert note["category"] in CATEGORIES, note["summary"]
        assert isinstance(note["summary"], str) and 0 < len(note["summary"]) <= 80
        assert isinstance(note["text"], str) and len(note["text"]) >= 40
        for field in ("tags", "load_when"):
            assert isinstance(note[field], list) and note[field], (note["summary"], field)
            assert all(isinstance(x, str) and x.strip() == x and x for x in note[field])
        assert isinstance(note["pinned"], bool)
    assert set(n["category"] for n in notes) == CATEGORIES
    assert len({n["summary"] for n in notes}) == len(notes)
    assert any(CJK_RE.search(n["text"]) for n in notes)
    assert any(not CJK_RE.search(n["summary"]) for n in notes)
    assert any(n["pinned"] for n in notes)


def test_readme_says_fictional():
    text = (DATA / "README.md").read_text(encoding="utf-8")
    assert "fictional" in text
    for name in ("sample_session.jsonl", "sample_notes.jsonl"):
        assert name in text
