"""The SQLite side of the vector channel: the ``vectors`` table (migration ``m002``) and the pending set.

One L2-normalised float32 blob per doc, tagged with the provider's ``model`` and the text hash it was computed from.
A doc is *pending* when it has no ``ok`` vector for the current model and its current text (new, failed, edited,
another model, or another vector length under the same model name). Called by
:class:`memdir.store.sqlite.store.SqliteStore`; the search and fusion are :mod:`memdir.engine.hybrid`'s.
"""

from __future__ import annotations

from typing import Any

from memdir.store.sqlite import txn


def _np():
    import numpy as np

    return np


#: a stored vector that is whole: bytes of its recorded length (float32). A damaged one (cut, or text written over it)
#: is never searched (it made every hybrid recall fail), counts as ``damaged`` and is embedded again by a backfill
_WHOLE = "(typeof(v.vector) = 'blob' AND v.dim IS NOT NULL AND length(v.vector) = 4 * v.dim)"
_PENDING_WHERE = ("(v.ref IS NULL OR v.status != 'ok' OR v.model IS NOT ?1 OR v.content_sha256 IS NOT d.content_sha256 "
                  "OR v.dim IS NOT coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'embed_dim:' || ?1), v.dim) "
                  f"OR NOT {_WHOLE}) "
                  "AND d.superseded_by IS NULL AND d.ref NOT IN (SELECT ref FROM tombstones)")


def current_dim(db, model: str | None) -> int | None:
    """The vector length ``model`` returns now, as last seen (``meta`` key ``embed_dim:<model>``); ``None`` unknown.

    An endpoint can change its vector length under the same model name (case C21): vectors of another length
    are then stale (pending for :func:`backfill`), never searched and never an error."""
    row = db.execute("SELECT value FROM meta WHERE key = ?", (f"embed_dim:{model}",)).fetchone()
    try:
        return int(row[0]) if row else None
    except (TypeError, ValueError):
        return None


def note_dim(db, model: str | None, dim: int) -> bool:
    """Record that ``model`` returns vectors of length ``dim``; on a change, drop the backfill watermark so the
    old-length vectors are found as pending. Returns True when the length changed. Opens its own transaction
    unless one is open."""
    if current_dim(db, model) == dim:
        return False
    own = not db.in_transaction
    try:
        if own:
            db.execute("BEGIN IMMEDIATE")
        db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (f"embed_dim:{model}", str(int(dim))))
        db.execute("DELETE FROM meta WHERE key = ?", (f"embed_watermark:{model}",))
        if own:
            db.execute("COMMIT")
    except BaseException:
        if own:
            txn.rollback(db)
        raise
    return True


def pending_count(db, model: str | None) -> int:
    """Docs of this index that need a vector for ``model`` (none yet, failed, stale text or other model)."""
    return db.execute(f"SELECT count(*) FROM docs d LEFT JOIN vectors v ON v.ref = d.ref WHERE {_PENDING_WHERE}",
                      (model,)).fetchone()[0]


def pending_exists(db, model: str | None) -> bool:
    """Is anything pending for ``model``? Only docs above the watermark left by the last complete backfill are
    checked (new and edited docs get new ids), so the recall path does not scan the whole store."""
    row = db.execute("SELECT value FROM meta WHERE key = ?", (f"embed_watermark:{model}",)).fetchone()
    wm = int(row[0]) if row and str(row[0]).isdigit() else 0
    return db.execute(f"SELECT 1 FROM docs d LEFT JOIN vectors v ON v.ref = d.ref WHERE d.id > ?2 AND {_PENDING_WHERE} LIMIT 1",
                      (model, wm)).fetchone() is not None


def set_watermark(db, model: str | None) -> None:
    top = db.execute("SELECT coalesce(max(id), 0) FROM docs").fetchone()[0]
    db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (f"embed_watermark:{model}", str(top)))


def ids_may_return(db, first: int) -> None:
    """Docs from id ``first`` up were deleted. SQLite gives a new row the id after the largest one left, so a replaced
    newest doc (an edited note) or the next capture can come back under an id a backfill watermark already covers and
    would never be seen pending by recall: every watermark at or above ``first`` goes below it. Caller holds a
    transaction."""
    db.execute("UPDATE meta SET value = ? WHERE key LIKE 'embed\\_watermark:%' ESCAPE '\\' "
               "AND CAST(value AS INTEGER) >= ?", (str(first - 1), first))


def pending_rows(db, model: str | None, limit: int) -> list:
    """Up to ``limit`` pending docs ``(ref, content_sha256, kind, summary, text)``, newest first."""
    return db.execute(f"SELECT d.ref, d.content_sha256, d.kind, d.summary, d.text FROM docs d LEFT JOIN vectors v "
                      f"ON v.ref = d.ref WHERE {_PENDING_WHERE} ORDER BY d.ts_epoch DESC, d.id DESC LIMIT ?2",
                      (model, limit)).fetchall()


def store(db, items: list[tuple[str, str]], mat, model: str, when: str) -> int:
    """Write ``ok`` vectors: ``items`` = ``[(ref, content_sha256)]``, ``mat`` float32 ``(n, dim)`` unit rows.
    Tombstoned refs are skipped (no resurrection). Returns rows written. Caller holds a transaction."""
    np = _np()
    mat = np.ascontiguousarray(mat, dtype=np.float32)
    if mat.ndim != 2 or (len(items) and mat.shape[0] != len(items)):
        import memdir.embed as embed

        raise embed.EmbedError(f"provider returned an array of shape {mat.shape} for {len(items)} texts")
    if len(items):
        note_dim(db, model, int(mat.shape[1]))
    dead = {r[0] for r in db.execute("SELECT ref FROM tombstones")} if items else set()
    n = 0
    for (ref, sha), vec in zip(items, mat):
        if ref in dead:
            continue
        db.execute("INSERT OR REPLACE INTO vectors(ref, content_sha256, model, dim, status, vector, error, updated) "
                   "VALUES (?, ?, ?, ?, 'ok', ?, NULL, ?)", (ref, sha, model, int(vec.shape[0]), vec.tobytes(), when))
        n += 1
    return n


def mark_failed(db, items: list[tuple[str, str]], model: str, error: str, when: str) -> None:
    """Record a failed embedding (status ``failed``; still pending for :func:`backfill`)."""
    db.executemany("INSERT OR REPLACE INTO vectors(ref, content_sha256, model, dim, status, vector, error, updated) "
                   "VALUES (?, ?, ?, NULL, 'failed', NULL, ?, ?)", [(r, s, model, error[:300], when) for r, s in items])


def hot_rows(db, model: str, dim: int | None) -> list:
    """``(ref, content_sha256, vector bytes)`` of the hot, warm and unswept ``ok`` vectors of ``model`` (of length
    ``dim`` when known), in insertion order (SQLite index)."""
    return db.execute(
        "SELECT v.ref, v.content_sha256, v.vector FROM vectors v LEFT JOIN tiers t ON t.ref = v.ref "
        "WHERE v.status = 'ok' AND v.model = ? AND coalesce(t.tier, 'hot') IN ('hot', 'warm') "
        f"AND (? IS NULL OR v.dim = ?) AND {_WHOLE} ORDER BY v.rowid", (model, dim, dim)).fetchall()


def cold_rows(db, model: str, dim: int):
    """A cursor over ``(ref, content_sha256, vector bytes)`` of the cold ``ok`` vectors (SQLite index)."""
    return db.execute("SELECT v.ref, v.content_sha256, v.vector FROM vectors v JOIN tiers t ON t.ref = v.ref "
                      f"WHERE t.tier = 'cold' AND v.status = 'ok' AND v.model = ? AND v.dim = ? AND {_WHOLE}",
                      (model, dim))


def live_rows(db, refs: list[str]) -> dict[str, Any]:
    """``{ref: docs row + rehearsals}`` of the live (not superseded, not forgotten) docs among ``refs``."""
    rows = {}
    for i in range(0, len(refs), 500):
        part = refs[i:i + 500]
        for r in db.execute(
                "SELECT d.*, coalesce(r.count, 0) AS rehearsals FROM docs d LEFT JOIN rehearsal r ON r.ref = d.ref "
                f"WHERE d.ref IN ({','.join('?' * len(part))}) AND d.superseded_by IS NULL "
                "AND d.ref NOT IN (SELECT ref FROM tombstones)", part):
            rows[r["ref"]] = r
    return rows


def vector_counts(db, model: str | None) -> dict[str, int]:
    """``ok`` (whole) vectors of ``model``, ``failed`` ones, ``ok`` ones of another model and ``damaged`` ones of
    ``model`` (not bytes of their recorded length) (SQLite index)."""
    whole = _WHOLE.replace("v.", "")
    return {"ok": db.execute(f"SELECT count(*) FROM vectors WHERE status = 'ok' AND model IS ? AND {whole}",
                             (model,)).fetchone()[0],
            "failed": db.execute("SELECT count(*) FROM vectors WHERE status = 'failed'").fetchone()[0],
            "other_model": db.execute("SELECT count(*) FROM vectors WHERE status = 'ok' AND model IS NOT ?", (model,)).fetchone()[0],
            "damaged": db.execute(f"SELECT count(*) FROM vectors WHERE status = 'ok' AND model IS ? AND NOT {whole}",
                                  (model,)).fetchone()[0]}


def stamp(db, model: str) -> tuple:
    """What an in-memory vector matrix of ``model`` was built from: vector count and top rowid, top doc id, the
    tiers generation and the current vector length; a change means reload."""
    v = db.execute("SELECT count(*), max(rowid) FROM vectors").fetchone()
    d = db.execute("SELECT max(id) FROM docs").fetchone()[0]
    g = db.execute("SELECT value FROM meta WHERE key = 'tiers_gen'").fetchone()
    return (model, v[0], v[1], d, g[0] if g else None, current_dim(db, model))
