"""Pure text hygiene for stored events and notes: redaction after surrogate repair, redaction of nested metadata,
and the length bound of one event (head and tail kept).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from memdir.graphemes import boundary
from memdir.lazylog import getLogger

log = getLogger("memdir")  # imports logging only when a record can go somewhere


ROLES = ("user", "assistant", "tool", "system")


MAX_EVENT_CHARS = 20_000  # stored length bound per event (case C8): head + tail kept, middle elided


def bound_text(text: str, limit: int = MAX_EVENT_CHARS) -> str:
    """Bound a stored text to ``limit`` chars: keep the first 70% and the last 30%, joined by a marker that
    says how many characters were elided (case C8's documented policy)."""
    if len(text) <= limit:
        return text
    head = int(limit * 0.7)
    tail = limit - head - 40
    return f"{text[:head]}\n[… {len(text) - head - tail} chars elided by memdir …]\n{text[-tail:]}"


#: characters past each cut that a long text is redacted with (:func:`redact_bounded`): a secret crossing a cut is
#: seen whole, or its piece falls in the margin, which is dropped
REDACT_MARGIN = 10_000


def redact_bounded(text: str, limit: int = MAX_EVENT_CHARS) -> str:
    """``bound_text(redact_text(text).strip(), limit)``, at a cost that does not grow with ``text``: a text far over
    ``limit`` (a 10 MB prompt or reply) is redacted in its kept head and tail only, each with
    :data:`REDACT_MARGIN` more characters on the side of the cut, then cut short of that margin (redacting 10 MB took
    seconds, twice per capture, past a hook's budget). The marker counts the characters left out."""
    if len(text) <= 4 * limit + 2 * REDACT_MARGIN:
        return bound_text(redact_text(text).strip(), limit)
    head = int(limit * 0.7)
    tail = limit - head - 40
    h = redact_text(text[: head + REDACT_MARGIN]).lstrip()
    t = redact_text(text[-(tail + REDACT_MARGIN):]).rstrip()
    h = h[: max(0, min(head, len(h) - REDACT_MARGIN))]
    keep = max(0, min(tail, len(t) - REDACT_MARGIN))
    t = t[len(t) - keep:]
    return f"{h}\n[… {len(text) - len(h) - len(t)} chars elided by memdir …]\n{t}"


#: metadata strings up to this many characters are redacted once per process and remembered: keys, tool names, a
#: session's directory repeat on every event of an import (redaction is a pure function of the text)
SHORT_MEMO_CHARS = 200
_MEMO_MAX = 8192
_memo: dict[str, str] = {}


def _redact_meta(text: str) -> str:
    if len(text) > SHORT_MEMO_CHARS:
        return redact_text(text)
    out = _memo.get(text)
    if out is None:
        out = redact_text(text)
        if len(_memo) >= _MEMO_MAX:
            _memo.clear()
        _memo[text] = out
    return out


def redact_obj(obj: Any, depth: int = 0) -> Any:
    """``obj`` (event metadata: dicts, lists, scalars) with every string redacted; nesting beyond 20 levels is
    replaced by its redacted ``str``."""
    if isinstance(obj, str):
        return _redact_meta(obj)
    if depth > 20:
        return redact_text(str(obj))
    if isinstance(obj, dict):
        return {_redact_meta(str(k)): redact_obj(v, depth + 1) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [redact_obj(v, depth + 1) for v in obj]
    return obj if obj is None or isinstance(obj, (bool, int, float)) else redact_text(str(obj))


def clean(text: str) -> str:
    """``text`` with lone UTF-16 surrogates (JSON ``\\ud800`` escapes, broken decoders) turned into U+FFFD and
    valid surrogate pairs joined, so it can be written as UTF-8 (SQLite, Markdown) without raising."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def redact_text(text: str) -> str:
    from memdir.capture.redact import redact

    return redact(clean(text))


def head(text: str | None, limit: int = 100) -> str:
    """The first ``limit`` characters of a stored ``text`` as a preview shows them (forget, prune): redacted before the
    cut (a bounded slice of four times ``limit``), so a key stored before redaction knew its shape shows as its marker
    and a cut never leaves a first part of one, nor of a ZWJ emoji, a flag or an accented letter."""
    return whole_head(redact_text((text or "")[: limit * 4]), limit)


def whole_head(text: str, limit: int) -> str:
    """At most the first ``limit`` characters of ``text``, never ending inside a ZWJ emoji, a flag or an accented
    letter (:func:`memdir.graphemes.boundary`)."""
    return text[:boundary(text, limit)]


def outbound(row: dict[str, Any]) -> dict[str, Any]:
    """A copy of the stored event ``row`` as it may leave the index (an export file, a team store, the team server's
    queue): its ``text`` and ``meta`` (a dict, or the JSON text the index holds) redacted whole, as a capture today
    stores them. A row an older memdir stored, or one holding a key whose shape was added since, may hold a secret."""
    import json

    out = dict(row)
    if isinstance(out.get("text"), str):
        out["text"] = redact_text(out["text"])
    meta = out.get("meta")
    if isinstance(meta, str) and meta:
        try:
            out["meta"] = json.dumps(redact_obj(json.loads(meta)), ensure_ascii=False)
        except ValueError:
            out["meta"] = redact_text(meta)
    elif meta:
        out["meta"] = redact_obj(meta)
    return out


def import_row(ev: Any, now: datetime) -> tuple[dict[str, Any] | None, str]:
    """The docs row one imported event ``{key, role, text, session, ts, meta}`` becomes — text repaired, redacted
    and bounded, its SHA-256 content hash, its key (``import:<source>:<hash prefix>`` when it has none), ``ts``
    defaulting to ``now`` — as ``(row, "")``, or ``(None, reason)`` for an item that is no event (not an object, no
    text, an unknown role, a bad time). Pure: the same event and ``now`` give the same row in any process."""
    import json  # here, not at the top: the gates import this module on every hook; few hooks import events

    from memdir.errors import UsageError
    from memdir.notes import markdown as notes
    from memdir.timeutil import iso, parse_ts

    if not isinstance(ev, dict):
        return None, "not an object"
    raw = text = ev.get("text")
    if isinstance(text, str):
        text = notes.without_escapes(text)
    if not isinstance(text, str) or not text.strip():
        return None, "empty text"
    role = str(ev.get("role") or "user").strip().lower()
    if role not in ROLES:
        return None, f"unknown role {role!r}"
    try:
        ts = parse_ts(ev.get("ts")) if ev.get("ts") not in (None, "") else now
    except UsageError as exc:
        return None, str(exc)
    text = redact_bounded(text.replace("\x00", ""))
    sha = notes.content_hash(text)
    key = ev.get("key")
    if key in (None, ""):
        # the hash of the text as stored before escape sequences were left out: an event without a key imported then
        # (or forgotten then: its tombstone holds that key) is the same event now, not a second copy
        was = sha if raw is text else notes.content_hash(redact_bounded(raw.replace("\x00", "")))
        key = f"import:{ev.get('source') or 'jsonl'}:{was[:16]}"
    else:
        key = clean(str(key)).strip()
    session = clean(str(ev.get("session"))) if ev.get("session") not in (None, "") else None
    meta = ev.get("meta")
    return {
        "kind": "event", "ref": key[:500], "content_sha256": sha, "role": role,
        "session": clean(str(session)) if session not in (None, "") else None, "ts": iso(ts), "ts_epoch": ts.timestamp(),
        "text": text, "meta": json.dumps(redact_obj(meta), ensure_ascii=False, default=str) if meta else None,
    }, ""
