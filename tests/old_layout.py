"""Index files of an earlier schema, filled the way memdir wrote them then: what a migration test opens.

:func:`build_old_index` creates ``path`` at schema ``version`` (7 or 8) with the migrations of that time and writes
events as the memdir of that schema did: ``docs`` rows with the plain text, FTS5 rows that keep their own copy of the
token streams (a content table), each event's neighbouring turns in ``context``, and from schema 8 on the handles and
the passages of long tool outputs (FTS rowid ``-passages.id``).
"""

from __future__ import annotations

import hashlib
import sqlite3
from datetime import datetime, timezone
from pathlib import Path

from memdir.recall import handles, passages
from memdir.store.sqlite.migrations import migrate
from memdir.recall.tokenize import TOKENIZER_VERSION, tokenize


def _toks(text: str) -> str:
    return " ".join(tokenize(text))


def build_old_index(path: Path, version: int, events: list[dict]) -> None:
    """``events``: ``{"key", "role", "text", "session", "ts" (epoch seconds)}``."""
    assert version in (7, 8)
    for suffix in ("", "-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(str(path), isolation_level=None)
    db.execute("PRAGMA journal_mode = WAL")
    assert migrate(db, upto=version) == version
    db.execute("BEGIN")
    body: dict[int, str] = {}
    order: dict[str, list[tuple[float, int]]] = {}
    for ev in events:
        ts = float(ev["ts"])
        iso = datetime.fromtimestamp(ts, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.000Z")
        cols = {"kind": "event", "ref": ev["key"], "content_sha256": hashlib.sha256(ev["text"].encode()).hexdigest(),
                "role": ev["role"], "session": ev.get("session"), "ts": iso, "ts_epoch": ts, "text": ev["text"]}
        if version >= 8:
            cols["handle"] = handles.digest(ev["key"])[:handles.LENGTH]
        doc_id = db.execute(f"INSERT INTO docs({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})",
                            list(cols.values())).lastrowid
        text = ev["text"]
        if version >= 8:
            spans = passages.split(text, split_above=passages.split_above(ev["role"]))
            for seq, (a, b) in enumerate(spans[1:], start=1):
                pid = db.execute("INSERT INTO passages(doc_id, seq, start, end) VALUES (?, ?, ?, ?)", (doc_id, seq, a, b)).lastrowid
                db.execute("INSERT INTO fts(rowid, tags, title, body, context) VALUES (?, '', '', ?, '')", (-pid, _toks(text[a:b])))
            a, b = spans[0]
            body[doc_id] = _toks(text[a:b])
        else:
            body[doc_id] = _toks(text)
        if ev.get("session"):
            order.setdefault(ev["session"], []).append((ts, doc_id))
    context: dict[int, str] = {}
    for members in order.values():
        ids = [i for _, i in sorted(members)]
        for n, x in enumerate(ids):
            near = [ids[n - 1]] if n > 0 else []
            near += [ids[n + 1]] if n + 1 < len(ids) else []
            context[x] = " ".join(t for y in near for t in body[y].split()[:80])
    for doc_id, toks in body.items():
        db.execute("INSERT INTO fts(rowid, tags, title, body, context) VALUES (?, '', '', ?, ?)", (doc_id, toks, context.get(doc_id, "")))
    db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('tokenizer', ?)", (TOKENIZER_VERSION,))
    db.execute("COMMIT")
    db.close()
