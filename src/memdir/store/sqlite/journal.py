"""Two small, bounded logs the viewer reads (tables from migration ``m006_journal``), plus the timeline query.

* ``capture_skips`` — every capture that stored nothing, with the gate's reason (``trivial``, ``too_short``,
  ``slash_command``, ``noisy_tool``, ``host_injected``, ``daily_cap``, ``tombstoned`` …) and a redacted preview
  of at most :data:`PREVIEW_CHARS` characters. Duplicates (the same turn seen by two hooks) are not logged.
* ``injections`` — every ``<memory>`` block a hook handed to a host: time, host, hook event, session, SHA-256
  of the prompt, the block as sent and the ids of the memories whose bodies it holds.

Each log keeps its newest :data:`SKIPS_KEEP` / :data:`INJECTIONS_KEEP` rows (older rows are deleted on insert),
so neither can grow without bound. Writers take only a short SQLite write transaction (no file lock): they run
inside host hooks, where the cost must stay small; callers treat any error as "not logged".

Functions take a ``sqlite3.Connection`` (a root's index) and never import the facade.
"""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
from datetime import datetime
from typing import Any

from memdir.store.rows import meta_json, session_summary
from memdir.store.sqlite import txn
from memdir.store.sqlite.codec import sha_key
from memdir.timeutil import iso

SKIPS_KEEP = 2_000
INJECTIONS_KEEP = 500
PREVIEW_CHARS = 200
#: an entry header in the block (memdir.inject.block): ``[<handle> <kind> <date>] `` (or ``[<handle>] `` at tiny budgets)
_HIT_HEADER = re.compile(r"^\[([0-9a-hjkmnp-tv-z]{6,16})[ \]]", re.M)


def preview(text: Any, limit: int = PREVIEW_CHARS) -> str:
    """A redacted, whitespace-collapsed preview of ``text`` (at most ``limit`` chars, ``…`` when cut)."""
    from memdir.capture.redact import redact

    s = " ".join(str(text or "").split())
    s = s[: limit * 4]  # redact a bounded slice, then cut (a secret straddling the cut is still caught)
    s = redact(s)
    return s if len(s) <= limit else s[: limit - 1] + "…"


def hit_ids(block: str, *dbs: Any) -> list[str]:
    """The ids of the memories whose bodies a ``<memory>`` block holds, in block order: the handles of its entry
    headers, each turned into its note id / event key by the first of ``dbs`` (root indexes — SQLite connections or
    :class:`memdir.store.protocol.Store` objects —, project first) that holds it, else kept as the handle."""
    out = []
    for m in _HIT_HEADER.finditer(block or ""):
        h = m.group(1)
        ref = None
        for db in dbs:
            if db is not None and hasattr(db, "resolve_handle"):  # a memdir.store.protocol.Store (e.g. a PostgreSQL index)
                ref = db.resolve_handle(h)
                if ref:
                    break
                continue
            row = db.execute("SELECT ref FROM docs WHERE handle = ?", (h,)).fetchone() if db is not None else None
            if row:
                ref = row[0]
                break
        out.append(ref or h)
    return list(dict.fromkeys(out))


def prompt_hash(prompt: str) -> str:
    """SHA-256 hex of the prompt text (``""`` for no prompt, e.g. a session start)."""
    return hashlib.sha256(prompt.encode("utf-8", "replace")).hexdigest() if prompt else ""


def log_skip(db: sqlite3.Connection, *, when: datetime, reason: str, role: str | None, session: str | None,
             source: str | None, text: Any) -> None:
    """Append one skipped capture and trim the log to :data:`SKIPS_KEEP` rows (one short write transaction)."""
    try:
        db.execute("BEGIN IMMEDIATE")
        cur = db.execute("INSERT INTO capture_skips(ts, ts_epoch, reason, role, session, source, preview) "
                         "VALUES (?, ?, ?, ?, ?, ?, ?)",
                         (iso(when), when.timestamp(), reason, role, session, source, preview(text)))
        db.execute("DELETE FROM capture_skips WHERE id <= ?", (cur.lastrowid - SKIPS_KEEP,))
        db.execute("COMMIT")
    except BaseException:
        txn.rollback(db)
        raise


def log_skips(db: sqlite3.Connection, rows: list[dict[str, Any]]) -> int:
    """Append many skipped captures (``{"when": datetime, "reason", "role", "session", "source", "text"}``, e.g. an
    import's gated events) in one write transaction and trim the log to :data:`SKIPS_KEEP` rows. A row already
    logged (same time, reason, session and preview: the same file imported again) is not added twice. Returns the
    rows added."""
    if not rows:
        return 0
    try:
        db.execute("BEGIN IMMEDIATE")
        vals = []
        for r in rows:
            ts_epoch, pv = r["when"].timestamp(), preview(r.get("text"))
            vals.append((iso(r["when"]), ts_epoch, r["reason"], r.get("role"), r.get("session"), r.get("source"), pv,
                         ts_epoch, r["reason"], r.get("session"), pv))
        cur = db.executemany("INSERT INTO capture_skips(ts, ts_epoch, reason, role, session, source, preview) "
                             "SELECT ?, ?, ?, ?, ?, ?, ? WHERE NOT EXISTS (SELECT 1 FROM capture_skips WHERE ts_epoch = ? "
                             "AND reason = ? AND session IS ? AND preview = ?)", vals)
        added = max(cur.rowcount, 0)
        last = db.execute("SELECT max(id) FROM capture_skips").fetchone()[0] or 0
        db.execute("DELETE FROM capture_skips WHERE id <= ?", (last - SKIPS_KEEP,))
        db.execute("COMMIT")
    except BaseException:
        txn.rollback(db)
        raise
    return added


def log_injection(db: sqlite3.Connection, *, when: datetime, block: str, prompt: str, host: str | None,
                  event: str | None, session: str | None, others: tuple[Any, ...] = (), index: Any = None) -> int:
    """Append one injected block and trim the log to :data:`INJECTIONS_KEEP` rows; hit handles are resolved in
    ``index`` (the root's :class:`memdir.store.protocol.Store`; default ``db``), then in ``others`` (the other roots'
    indexes). Returns the row id."""
    try:
        db.execute("BEGIN IMMEDIATE")
        cur = db.execute("INSERT INTO injections(ts, ts_epoch, prompt_sha256, host, event, session, block, hit_ids) "
                         "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                         (iso(when), when.timestamp(), prompt_hash(prompt), host, event, session, block,
                          json.dumps(hit_ids(block, db if index is None else index, *others), ensure_ascii=False)))
        db.execute("DELETE FROM injections WHERE id <= ?", (cur.lastrowid - INJECTIONS_KEEP,))
        db.execute("COMMIT")
    except BaseException:
        txn.rollback(db)
        raise
    return int(cur.lastrowid)


def skips(db: sqlite3.Connection, *, limit: int = 200, session: str | None = None,
          since: float | None = None, until: float | None = None) -> list[dict[str, Any]]:
    """Newest first: ``[{"id", "ts", "reason", "role", "session", "source", "preview"}]``."""
    sql, params = "SELECT id, ts, reason, role, session, source, preview FROM capture_skips WHERE 1=1", []
    if session:
        sql += " AND session = ?"
        params.append(session)
    if since is not None:
        sql += " AND ts_epoch >= ?"
        params.append(since)
    if until is not None:
        sql += " AND ts_epoch < ?"
        params.append(until)
    sql += " ORDER BY ts_epoch DESC, id DESC LIMIT ?"
    params.append(int(limit))
    return [dict(r) for r in db.execute(sql, params)]


def injections(db: sqlite3.Connection, *, limit: int = 50, id: int | None = None) -> list[dict[str, Any]]:
    """Newest first: ``[{"id", "ts", "prompt_sha256", "host", "event", "session", "block", "hit_ids": [...]}]``;
    ``id`` picks one row."""
    sql, params = "SELECT * FROM injections", []
    if id is not None:
        sql += " WHERE id = ?"
        params.append(int(id))
    sql += " ORDER BY ts_epoch DESC, id DESC LIMIT ?"
    params.append(int(limit))
    out = []
    for r in db.execute(sql, params):
        d = dict(r)
        d.pop("ts_epoch", None)
        d["hit_ids"] = json.loads(d.get("hit_ids") or "[]")
        out.append(d)
    return out


def sessions(db: sqlite3.Connection, *, limit: int = 200) -> list[dict[str, Any]]:
    """Captured sessions, newest first: ``[{"session", "first", "last", "turns", "roles": {role: n},
    "source", "cwd"}]`` (``source``/``cwd`` from the first event's metadata, when recorded)."""
    rows = db.execute(
        "SELECT coalesce(session, '') AS s, min(ts_epoch) AS t0, max(ts_epoch) AS t1, min(ts) AS first, max(ts) AS last, "
        "count(*) AS n, sum(role = 'user') AS nu, sum(role = 'assistant') AS na, sum(role = 'tool') AS nt "
        "FROM docs WHERE kind = 'event' GROUP BY s ORDER BY t1 DESC LIMIT ?", (int(limit),)).fetchall()
    out = []
    for r in rows:
        # by the session index (docs_event_order), not coalesce(session, ''), which read every event once per session
        where = "session = ?" if r["s"] else "session IS NULL"
        meta_row = db.execute(f"SELECT meta FROM docs WHERE kind = 'event' AND {where} AND meta IS NOT NULL "
                              "ORDER BY ts_epoch LIMIT 1", (r["s"],) if r["s"] else ()).fetchone()
        out.append(session_summary(r, meta_row["meta"] if meta_row else None))
    return out


def session_events(db: sqlite3.Connection, session: str | None, *, limit: int = 1000) -> list[dict[str, Any]]:
    """The events of one session in time order: ``[{"key", "role", "text", "ts", "meta", "handle"}]`` (``None`` =
    events without a session; ``handle``: the short handle a ``<memory>`` block shows for it)."""
    if session:
        rows = db.execute("SELECT ref, role, text, ts, meta, handle FROM docs WHERE kind = 'event' AND session = ? "
                          "ORDER BY ts_epoch, id LIMIT ?", (session, int(limit)))
    else:
        rows = db.execute("SELECT ref, role, text, ts, meta, handle FROM docs WHERE kind = 'event' AND session IS NULL "
                          "ORDER BY ts_epoch, id LIMIT ?", (int(limit),))
    return [{"key": r["ref"], "role": r["role"], "text": r["text"], "ts": r["ts"], "meta": meta_json(r["meta"]),
             "handle": r["handle"]} for r in rows]




def captured_replies(db: sqlite3.Connection, session: str) -> list[str]:
    """The texts of the assistant turns a hook captured in ``session`` (keys ``a:``: a Stop hook's reply, the whole
    turn's text in one event), in time order; ``[]`` for none."""
    rows = db.execute("SELECT text FROM docs WHERE kind = 'event' AND session = ? AND role = 'assistant' "
                      "AND substr(ref, 1, 2) = 'a:' ORDER BY ts_epoch, id", (session,))
    return [r[0] for r in rows]


def event_with_text(db: sqlite3.Connection, sha: str) -> tuple[str | None, float] | None:
    """``(session, ts_epoch)`` of the event whose content hash is ``sha`` (one at most: the hash is unique among
    events), or ``None``."""
    row = db.execute("SELECT session, ts_epoch FROM docs WHERE kind = 'event' AND sha = ?", (sha_key(sha),)).fetchone()
    return (row[0], row[1]) if row else None


def captured_tool_keys(db: sqlite3.Connection, session: str) -> set[str]:
    """The keys of the tool calls a hook captured in ``session`` (``t:<session>:<call id>``)."""
    rows = db.execute("SELECT ref FROM docs WHERE kind = 'event' AND session = ? AND substr(ref, 1, 2) = 't:'",
                      (session,))
    return {r[0] for r in rows}
