"""The client side of a team server (issue 14 item 3): events stored locally are queued and sent to
``remote.url`` (a ``memdir serve --store`` server) later, exactly once.

The local SQLite index stays the store every hook and command uses; when ``remote.url`` is set, each event it stores
is also put in a queue file beside it (``<root>/.memdir/remote-queue.sqlite3``, keyed by the event's key). :func:`push`
sends queued rows in batches and deletes them only when the server answered (stored, duplicate or tombstoned all
count as delivered); a server that is down, slow or unreachable costs at most the time budget given, and the rows wait
for the next push (``memdir push``, or the next capture). The server stores a row once whatever the number of sends
(deterministic keys, ``ON CONFLICT DO NOTHING``), so a batch whose answer was lost is simply sent again.

HTTP with the standard library only (this runs on the hook path).
"""

from __future__ import annotations

import json
import sqlite3
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Iterable

from .teamserver import EVENT_FIELDS

QUEUE_FILE = "remote-queue.sqlite3"
BATCH = 200
BACKOFF_MAX_S = 300.0


def _open(derived: Path) -> sqlite3.Connection:
    derived.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(str(derived / QUEUE_FILE), timeout=10, isolation_level=None)
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("CREATE TABLE IF NOT EXISTS queue(ref TEXT PRIMARY KEY, row TEXT NOT NULL, tries INTEGER NOT NULL DEFAULT 0, "
               "next_at REAL NOT NULL DEFAULT 0, seq INTEGER)")
    return db


def enqueue(derived: Path, rows: Iterable[dict[str, Any]]) -> int:
    """Queue event rows (as stored locally) for the server; a key already queued is kept once. Returns rows added."""
    rows = [{k: r.get(k) for k in EVENT_FIELDS} for r in rows]
    if not rows:
        return 0
    db = _open(derived)
    try:
        db.execute("BEGIN IMMEDIATE")
        seq = db.execute("SELECT coalesce(max(seq), 0) FROM queue").fetchone()[0]
        n = 0
        for i, r in enumerate(rows, start=1):
            n += db.execute("INSERT OR IGNORE INTO queue(ref, row, seq) VALUES (?, ?, ?)",
                            (r["ref"], json.dumps(r, ensure_ascii=False), seq + i)).rowcount
        db.execute("COMMIT")
        return n
    finally:
        db.close()


def pending(derived: Path) -> int:
    """Rows waiting to be sent."""
    if not (derived / QUEUE_FILE).exists():
        return 0
    db = _open(derived)
    try:
        return db.execute("SELECT count(*) FROM queue").fetchone()[0]
    finally:
        db.close()


def push(derived: Path, url: str, project: str, token: str, *, budget_s: float, batch: int = BATCH,
         now=time.time) -> dict[str, Any]:
    """Send queued rows to ``url`` (``http://host:port/v1``) for ``project`` until the queue is empty or ``budget_s``
    is spent; returns ``{"sent", "left", "error"}`` (``error`` is the last failure, one line, or ``None``).
    Never raises for network or server errors."""
    out: dict[str, Any] = {"sent": 0, "left": 0, "error": None}
    if not (derived / QUEUE_FILE).exists():
        return out
    deadline = time.monotonic() + budget_s
    db = _open(derived)
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0.01:
                break
            rows = db.execute("SELECT ref, row, tries FROM queue WHERE next_at <= ? ORDER BY seq LIMIT ?", (now(), batch)).fetchall()
            if not rows:
                break
            body = json.dumps({"events": [json.loads(r[1]) for r in rows]}).encode()
            req = urllib.request.Request(f"{url.rstrip('/')}/{project}/events", data=body, method="POST",
                                         headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}"})
            try:
                with urllib.request.urlopen(req, timeout=max(0.05, left)) as resp:
                    json.loads(resp.read() or b"{}")
            except urllib.error.HTTPError as exc:
                out["error"] = f"HTTP {exc.code}: {exc.read()[:200].decode('utf-8', 'replace')}"
                _later(db, rows, now())
                if exc.code in (401, 403):  # a token problem does not go away by retrying now
                    break
                break
            except (OSError, ValueError) as exc:  # refused, reset, timed out, unreadable answer
                out["error"] = f"{type(exc).__name__}: {exc}"
                _later(db, rows, now())
                break
            db.execute("BEGIN IMMEDIATE")
            db.executemany("DELETE FROM queue WHERE ref = ?", [(r[0],) for r in rows])
            db.execute("COMMIT")
            out["sent"] += len(rows)
        out["left"] = db.execute("SELECT count(*) FROM queue").fetchone()[0]
        return out
    finally:
        db.close()


def _later(db: sqlite3.Connection, rows, t: float) -> None:
    """Back off the rows of a failed send: 1, 2, 4 … s, at most :data:`BACKOFF_MAX_S`."""
    db.execute("BEGIN IMMEDIATE")
    db.executemany("UPDATE queue SET tries = tries + 1, next_at = ? WHERE ref = ?",
                   [(t + min(BACKOFF_MAX_S, 2.0 ** min(r[2], 16)), r[0]) for r in rows])
    db.execute("COMMIT")


def settings(config, root_path: Path) -> tuple[str, str, str] | None:
    """``(url, project, token)`` from the ``remote.*`` settings, or ``None`` when ``remote.url`` is empty.
    The project defaults to the project directory's name; the token is read from the variable ``remote.token_env``."""
    import os

    url = config.get("remote.url")
    if not url:
        return None
    return url, config.get("remote.project") or root_path.name, os.environ.get(config.get("remote.token_env") or "", "")
