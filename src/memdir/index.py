"""The derived SQLite index of one memory root (``<root>/.memdir/index.sqlite3``).

WAL mode, a busy timeout, numbered migrations. The Markdown files are the truth for notes: the index mirrors
them and is rebuilt when missing; a corrupt database file is moved aside (never deleted) with a warning and a
fresh one is built. Events live only here (export them with ``memdir export``).
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import time
from pathlib import Path
from typing import Any, Iterable

from .migrations import migrate
from .tokenize import fts_query, tokenize

log = logging.getLogger("memdir")

BUSY_TIMEOUT_MS = 30_000


def _connect(path: Path) -> sqlite3.Connection:
    db = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False)
    db.row_factory = sqlite3.Row
    db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    mode = db.execute("PRAGMA journal_mode = WAL").fetchone()[0]
    if mode.lower() != "wal":
        log.debug("journal_mode is %s (WAL unavailable on this filesystem)", mode)
    db.execute("PRAGMA synchronous = NORMAL")
    db.execute("PRAGMA foreign_keys = ON")
    return db


def open_index(path: Path) -> tuple[sqlite3.Connection, bool]:
    """Open (creating or migrating) the index at ``path``; returns ``(connection, created)``.

    A file that is not a usable SQLite database is renamed to ``<name>.corrupt-<epoch>`` beside it, with a
    warning, and a new one is created (``created`` is then True).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    existed = path.exists() and path.stat().st_size > 0
    try:
        db = _connect(path)
        if existed:
            # reading the schema fails fast on a file that is not a database; the full integrity check is
            # `memdir doctor`'s job (PRAGMA quick_check reads every page: too slow for each hook call)
            db.execute("SELECT count(*) FROM sqlite_master").fetchone()
        migrate(db)
        check_tokenizer(db)
        return db, not existed
    except sqlite3.DatabaseError as exc:
        try:
            db.close()  # type: ignore[possibly-undefined]
        except Exception:
            pass
        if isinstance(exc, sqlite3.OperationalError):  # locked, busy, I/O: not corruption; never move it aside
            from .errors import MemdirError

            raise MemdirError(f"could not open the index {path}: {exc}; retry") from None
        import shutil

        aside = path.with_name(f"{path.name}.corrupt-{int(time.time())}")
        for suffix in ("", "-wal", "-shm"):
            src = Path(str(path) + suffix)
            if src.exists():
                shutil.move(str(src), str(aside) + suffix)
        log.warning("memdir: index %s was unreadable (%s); moved aside to %s and rebuilt from the Markdown", path, exc, aside.name)
        db = _connect(path)
        migrate(db)
        return db, True


def check_tokenizer(db: sqlite3.Connection) -> int:
    """Re-tokenize every FTS row when the index was built by another tokenizer version; returns rows rebuilt."""
    from .tokenize import TOKENIZER_VERSION

    row = db.execute("SELECT value FROM meta WHERE key = 'tokenizer'").fetchone()
    if row is not None and row[0] == TOKENIZER_VERSION:
        return 0
    db.execute("BEGIN IMMEDIATE")
    try:
        row = db.execute("SELECT value FROM meta WHERE key = 'tokenizer'").fetchone()
        if row is not None and row[0] == TOKENIZER_VERSION:
            db.execute("COMMIT")
            return 0
        n = 0
        if row is not None:  # an older index: rebuild its token streams from the stored texts
            log.warning("memdir: index built by tokenizer %s; re-tokenizing for %s (one-time)", row[0], TOKENIZER_VERSION)
            db.execute("DELETE FROM fts")
            for r in db.execute("SELECT id, kind, tags, load_when, summary, highlight, text FROM docs").fetchall():
                if r["kind"] == "note":
                    tags = json.loads(r["tags"] or "[]") + json.loads(r["load_when"] or "[]")
                    title = " ".join(x for x in (r["summary"], r["highlight"]) if x)
                    fields = fts_fields(tags, title, r["text"])
                else:
                    fields = ("", "", " ".join(tokenize(r["text"])))
                db.execute("INSERT INTO fts(rowid, tags, title, body, context) VALUES (?, ?, ?, ?, '')", (r["id"], *fields))
                n += 1
            sessions = [x[0] for x in db.execute("SELECT DISTINCT session FROM docs WHERE kind = 'event' AND session IS NOT NULL")]
            refresh_context(db, sessions)
        db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('tokenizer', ?)", (TOKENIZER_VERSION,))
        db.execute("COMMIT")
        return n
    except BaseException:
        db.execute("ROLLBACK")
        raise


def fts_fields(tags: Iterable[str], title: str, body: str) -> tuple[str, str, str]:
    """Token streams for the three FTS5 columns (tags + load_when, summary/highlight, body)."""
    return " ".join(tokenize(" ".join(tags))), " ".join(tokenize(title)), " ".join(tokenize(body))


def bump_gen(db: sqlite3.Connection, key: str = "notes_gen") -> None:
    """Count a change of the note mirror (compared with ``compiled_gen`` to find stale index.md/ROOT.md)."""
    db.execute("INSERT INTO meta(key, value) VALUES (?, '1') ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1", (key,))


def meta_int(db: sqlite3.Connection, key: str) -> int:
    row = db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    try:
        return int(row[0]) if row else 0
    except (TypeError, ValueError):
        return 0


def upsert_doc(db: sqlite3.Connection, row: dict[str, Any]) -> int:
    """Insert or replace a doc by ``ref`` and refresh its FTS row; returns the doc id. Caller holds a transaction."""
    old = db.execute("SELECT id FROM docs WHERE ref = ?", (row["ref"],)).fetchone()
    if old is not None:
        db.execute("DELETE FROM fts WHERE rowid = ?", (old["id"],))
        db.execute("DELETE FROM docs WHERE id = ?", (old["id"],))
    cols = list(row)
    cur = db.execute(f"INSERT INTO docs({', '.join(cols)}) VALUES ({', '.join('?' for _ in cols)})", [row[c] for c in cols])
    doc_id = cur.lastrowid
    if row.get("kind") == "note":
        bump_gen(db)
    tags = json.loads(row.get("tags") or "[]") + json.loads(row.get("load_when") or "[]")
    title = " ".join(x for x in (row.get("summary"), row.get("highlight")) if x)
    db.execute("INSERT INTO fts(rowid, tags, title, body, context) VALUES (?, ?, ?, ?, '')", (doc_id, *fts_fields(tags, title, row["text"])))
    return doc_id


def insert_event(db: sqlite3.Connection, row: dict[str, Any]) -> int | None:
    """Insert an event unless its key or content hash exists; returns the new doc id, or ``None`` when it was a
    duplicate. The ``context`` column is filled by :func:`refresh_context`. Caller holds a transaction."""
    cols = list(row)
    cur = db.execute(f"INSERT OR IGNORE INTO docs({', '.join(cols)}) VALUES ({', '.join('?' for _ in cols)})",
                     [row[c] for c in cols])
    if cur.rowcount == 0:
        return None
    db.execute("INSERT INTO fts(rowid, tags, title, body, context) VALUES (?, '', '', ?, '')", (cur.lastrowid, " ".join(tokenize(row["text"]))))
    return cur.lastrowid


#: characters of each neighbouring turn indexed in an event's ``context`` column
CONTEXT_CHARS = 400


def refresh_context(db: sqlite3.Connection, sessions: Iterable[str], changed: set[int] | None = None) -> int:
    """Index each event's neighbours (the previous and next turn of its session, by time) in its FTS ``context``
    column, so a question about a turn's surroundings still finds it (measured on LoCoMo: see bench/results).
    Only events in ``changed`` and their neighbours are rewritten (all, when ``None``). Returns rows updated.
    Caller holds a transaction."""
    n = 0
    for session in set(sessions):
        rows = db.execute("SELECT id, text FROM docs WHERE kind = 'event' AND session = ? ORDER BY ts_epoch, id", (session,)).fetchall()
        for i, r in enumerate(rows):
            if changed is not None and not any(rows[j][0] in changed for j in range(max(0, i - 1), min(len(rows), i + 2))):
                continue
            ctx = " ".join(rows[j][1][:CONTEXT_CHARS] for j in (i - 1, i + 1) if 0 <= j < len(rows))
            db.execute("UPDATE fts SET context = ? WHERE rowid = ?", (" ".join(tokenize(ctx)), r[0]))
            n += 1
    return n


def delete_doc(db: sqlite3.Connection, ref: str) -> bool:
    """Delete a doc and its FTS row; returns True if it existed. Caller holds a transaction."""
    old = db.execute("SELECT id, kind FROM docs WHERE ref = ?", (ref,)).fetchone()
    if old is None:
        return False
    if old["kind"] == "note":
        bump_gen(db)
    db.execute("DELETE FROM fts WHERE rowid = ?", (old["id"],))
    db.execute("DELETE FROM docs WHERE id = ?", (old["id"],))
    return True


def search(db: sqlite3.Connection, tokens: list[str], *, weights: tuple[float, ...], limit: int,
           kinds: tuple[str, ...] | None = None) -> list[sqlite3.Row]:
    """BM25 candidates for ``tokens`` (any term matching makes a candidate): rows of ``docs`` plus ``bm25``
    (positive; larger is better) and ``rehearsals``, best first, at most ``limit``.

    Scoring is :func:`memdir.bm25.score` (FTS5 term statistics, Lucene idf); ``weights`` are the per-column
    multipliers (tags, title, body, context). Superseded notes and other ``kinds`` are dropped after scoring.
    """
    from .bm25 import score

    if not tokens:
        return []
    ranked = score(db, tokens, weights=weights, limit=limit * 2 if kinds else limit)
    if not ranked:
        return []
    scores = dict(ranked)
    ids = list(scores)
    rows = []
    for i in range(0, len(ids), 500):
        chunk = ids[i:i + 500]
        rows += db.execute(
            "SELECT d.*, coalesce(r.count, 0) AS rehearsals FROM docs d LEFT JOIN rehearsal r ON r.ref = d.ref "
            f"WHERE d.id IN ({','.join('?' * len(chunk))}) AND d.superseded_by IS NULL", chunk).fetchall()
    out = []
    for r in rows:
        if kinds and r["kind"] not in kinds:
            continue
        d = dict(r)
        d["bm25"] = scores[r["id"]]
        out.append(d)
    out.sort(key=lambda d: -d["bm25"])
    return out[:limit]


def bump_rehearsal(db: sqlite3.Connection, refs: Iterable[str], when: str) -> None:
    """Add one to the rehearsal counter of each ref (recalled by a person/tool, or injected into a block)."""
    refs = list(dict.fromkeys(refs))
    if not refs:
        return
    db.executemany(
        "INSERT INTO rehearsal(ref, count, last) VALUES (?, 1, ?) ON CONFLICT(ref) DO UPDATE SET count = count + 1, last = excluded.last",
        [(r, when) for r in refs],
    )


def file_size(path: Path) -> int:
    """Bytes of the database plus its WAL (0 when missing)."""
    return sum(os.path.getsize(p) for p in (str(path), str(path) + "-wal") if os.path.exists(p))
