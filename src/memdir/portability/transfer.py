"""Moving a project's episodic memory between the local SQLite index and a PostgreSQL team store (issue 14 item 4):
``memdir export --store postgresql://…`` and ``memdir import --store postgresql://…``.

What moves: every event (key, role, session, time, text, meta, as stored, redacted again on the way: a row an older
memdir stored may hold a key whose shape it did not know) and every tombstone, so a
memory forgotten on one side is not brought back by the other. Curated notes stay Markdown in the project's Git
repository and are not copied (the store re-indexes them from there). Both directions use the event's key and text
hash, which the receiving side deduplicates on (``ON CONFLICT DO NOTHING`` on the server, key/text checks locally):
running either direction again, or after a partial run, stores nothing twice and loses nothing.

The server side is reached through :class:`memdir.store.postgres.store.PgStore` (``project`` + the person's token, so row-level
security applies to a client login); the local side through the facade's import (:meth:`Memdir.import_events`, which
redacts, bounds and keys every row as a capture would). No import of :mod:`memdir.core` here: the facade is passed in (public members and its ``stores`` only).
"""

from __future__ import annotations

import json
import os
from typing import Any

from memdir.capture import events as cevents
from memdir.errors import UsageError
from memdir.stores import Stores

BATCH = 500
EVENT_COLUMNS = ("ref", "content_sha256", "role", "session", "ts", "ts_epoch", "text", "meta")


def _open(url: str, project: str, token: str | None):
    import memdir.store as storage
    from memdir.urlmask import masked
    from memdir.store.postgres.store import PgStore

    if not storage.is_remote(url):
        raise UsageError(f"--store needs a postgresql:// URL (got {masked(url)!r})")
    return PgStore.connect(url, project=project, token=token or None)


def _local_db(root):
    """The project root's SQLite index (``export``/``import --store`` move between it and a server)."""
    if root.store_spec:
        raise UsageError("this project's index is already a PostgreSQL store (store = postgresql://…): "
                         "export/import --store move a local index to a server and back")
    return root.db


def to_store(m, url: str, *, project: str | None = None, token: str | None = None, batch: int = BATCH) -> dict[str, Any]:
    """Copy the project root's events and tombstones into ``project`` of the store at ``url`` (``m``: the facade;
    ``project`` and ``token`` default as :func:`store_target` says). Returns
    ``{"project", "read", "stored", "duplicate", "skipped", "tombstones"}`` (``skipped`` = tombstoned on the server)."""
    project, token = store_target(m.stores, project, token)
    root = m.stores.root("project")
    out: dict[str, Any] = {"project": project, "read": 0, "stored": 0, "duplicate": 0, "skipped": 0, "tombstones": 0}
    if root.exists():
        _local_db(root)
    pg = _open(url, project, token)  # a bad URL or a server that is down says so, also when there is nothing to copy
    if not root.exists():
        pg.close()
        return out
    db = _local_db(root)
    try:
        tombs = [dict(r) for r in db.execute("SELECT ref, content_sha256, kind, deleted_at FROM tombstones ORDER BY ref")]
        if tombs:
            def put(st):
                for t in tombs:
                    st.tombstone(t["ref"], t["content_sha256"], t["kind"] or "event", t["deleted_at"])
            pg.write(put)
            out["tombstones"] = len(tombs)
        last = 0
        while True:
            rows = [dict(r) for r in db.execute(
                f"SELECT id, {', '.join(EVENT_COLUMNS)} FROM docs WHERE kind = 'event' AND id > ? ORDER BY id LIMIT ?",
                (last, batch))]
            if not rows:
                break
            last = rows[-1]["id"]
            rows = [cevents.outbound({**r, "kind": "event"}) for r in rows]
            for r in rows:
                r.pop("id")
            got = pg.write_rows(rows)
            out["read"] += len(rows)
            for k in ("stored", "duplicate", "skipped"):
                out[k] += got[k]
    finally:
        pg.close()
    return out


def from_store(m, url: str, *, project: str | None = None, token: str | None = None, batch: int = BATCH) -> dict[str, Any]:
    """Copy ``project``'s events and tombstones from the store at ``url`` into the project root (through
    :meth:`Memdir.import_events`). Returns ``{"project", "read", "stored", "duplicate", "skipped", "tombstones"}``
    (``skipped`` = tombstoned locally, or refused by the import's checks)."""
    project, token = store_target(m.stores, project, token)
    out: dict[str, Any] = {"project": project, "read": 0, "stored": 0, "duplicate": 0, "skipped": 0, "tombstones": 0}
    root = m.stores.root("project")
    _local_db(root)
    pg = _open(url, project, token)
    try:
        tombs = pg.conn.execute("SELECT ref, content_sha256, kind, deleted_at FROM tombstones WHERE project = %s ORDER BY ref",
                                (project,)).fetchall()
        if tombs:  # recorded (and in the tombstone log) first: an event forgotten there is not stored here
            out["tombstones"] += m.import_tombstones([dict(t) for t in tombs])
        last = 0
        while True:
            rows = pg.conn.execute(
                "SELECT id, ref, role, session, ts, text, meta FROM docs WHERE project = %s AND kind = 'event' AND id > %s "
                "ORDER BY id LIMIT %s", (project, last, batch)).fetchall()
            if not rows:
                break
            last = rows[-1]["id"]
            evs = []
            for r in rows:
                ev = {"key": r["ref"], "role": r["role"], "session": r["session"], "ts": r["ts"], "text": r["text"]}
                if r["meta"]:
                    try:
                        ev["meta"] = json.loads(r["meta"])
                    except ValueError:
                        pass
                evs.append(ev)
            got = m.import_events(evs)
            for k in ("read", "stored", "duplicate", "skipped"):
                out[k] += got[k]
    finally:
        pg.close()
    return out


def store_target(s: Stores, project: str | None, token: str | None) -> tuple[str, str | None]:
    """The project name and token a store copy uses: ``project``, else ``remote.project``, else the project directory's
    name; ``token``, else the variable ``remote.token_env`` names."""
    project = project or s.config.get("remote.project") or s.project_root.name
    if token is None:
        token = os.environ.get(s.config.get("remote.token_env") or "", "") or None
    return project, token
