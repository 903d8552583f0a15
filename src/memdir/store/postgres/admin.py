"""Team administration on the PostgreSQL store: per-person tokens (labelled, expiring, revoked one at a time), the
client role, per-person sharing (m012: :mod:`memdir.store.postgres.people`)."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any, Iterable

from memdir.errors import MemdirError
from memdir.store.postgres.migrations import CLIENT_ROLE
from memdir.store.postgres.people import ID_CHARS


def share_events(conn, project: str, share: bool = True, *, person: str) -> None:
    """Open ``person``'s events in ``project`` to every member (``share``), or make them private to ``person`` again
    (the default). One person at a time: a member decides for their own history (``memdir share`` through the team
    server); the admin can set one named person's switch, never every member's at once. ``conn``: an admin
    connection."""
    if not person:
        raise MemdirError("sharing is per person: name the person whose events to share (--person)")
    conn.execute("INSERT INTO memdir_sharing(project, person, share) VALUES (%s, %s, %s) ON CONFLICT (project, person) "
                 "DO UPDATE SET share = excluded.share, changed_at = now()", (project, person, bool(share)))


def sharing(conn, project: str) -> dict[str, bool]:
    """``{person: share}`` of ``project`` (the persons who ever set their switch)."""
    return {r["person"]: r["share"] for r in conn.execute(
        "SELECT person, share FROM memdir_sharing WHERE project = %s ORDER BY person", (project,))}


def add_token(conn, person: str, projects: Iterable[str], *, label: str | None = None,
              expires: datetime | None = None) -> str:
    """Create a token for ``person`` granting ``projects``; returns the token (shown once: only its SHA-256 is kept).
    ``label`` names it among the person's tokens (default ``token-N``; unique per person: raises ``MemdirError``
    when taken); ``expires`` (an aware time) ends it (default: never). ``conn`` is an admin connection (the schema
    owner)."""
    import hashlib
    import secrets

    import psycopg

    projects = sorted({p for p in projects if p})
    if not person or not projects:
        raise MemdirError("a token needs a person and at least one project")
    if not conn.execute("SELECT EXISTS (SELECT 1 FROM information_schema.columns WHERE table_name = 'memdir_tokens' "
                        "AND column_name = 'label') AS ok").fetchone()["ok"]:  # a schema before m012 (its migration tests)
        token = "mdt_" + secrets.token_urlsafe(24)
        conn.execute("INSERT INTO memdir_tokens(sha256, person, projects) VALUES (%s, %s, %s)",
                     (hashlib.sha256(token.encode()).hexdigest(), person, projects))
        return token
    if label is None:
        n = conn.execute("SELECT count(*) AS n FROM memdir_tokens WHERE person = %s", (person,)).fetchone()["n"]
        label = f"token-{n + 1}"
        while conn.execute("SELECT 1 FROM memdir_tokens WHERE person = %s AND label = %s", (person, label)).fetchone():
            n += 1
            label = f"token-{n + 1}"
    token = "mdt_" + secrets.token_urlsafe(24)
    try:
        conn.execute("INSERT INTO memdir_tokens(sha256, person, projects, label, expires_at) VALUES (%s, %s, %s, %s, %s)",
                     (hashlib.sha256(token.encode()).hexdigest(), person, projects, label, expires))
    except psycopg.errors.UniqueViolation:
        raise MemdirError(f"{person} already has a token labelled {label!r}: choose another --label "
                          f"(or revoke it: memdir store revoke {person} --label {label})") from None
    return token


def list_tokens(conn, person: str | None = None, *, revoked: bool = False) -> list[dict[str, Any]]:
    """The tokens (never their values): ``[{"id", "person", "label", "projects", "created", "last_used", "expires",
    "expired", "revoked"}]`` (times ISO 8601 UTC or ``None``; ``revoked``: when, ``None`` for a live token), by
    person then creation; ``person`` limits to one. ``revoked=True`` lists the revoked ones (m013) instead."""
    table, when = ("memdir_revoked", "revoked_at") if revoked else ("memdir_tokens", "NULL::timestamptz")
    rows = conn.execute(
        f"SELECT left(sha256, %s) AS id, person, label, projects, created_at, last_used_at, expires_at, {when} AS revoked, "
        f"(expires_at IS NOT NULL AND expires_at <= now()) AS expired FROM {table} "
        "WHERE %s::text IS NULL OR person = %s ORDER BY person, created_at, label", (ID_CHARS, person, person)).fetchall()

    def iso(t):
        return t.astimezone(timezone.utc).isoformat(timespec="seconds") if t else None

    return [{"id": r["id"], "person": r["person"], "label": r["label"], "projects": list(r["projects"]),
             "created": iso(r["created_at"]), "last_used": iso(r["last_used_at"]), "expires": iso(r["expires_at"]),
             "expired": bool(r["expired"]), "revoked": iso(r["revoked"])} for r in rows]


def revoke_token(conn, person: str, *, label: str | None = None, token_id: str | None = None) -> int:
    """Delete one token of ``person``, named by ``label`` or by ``token_id`` (its id from :func:`list_tokens`, or a
    longer prefix of its SHA-256); the person's other tokens keep working (a rotation: a new token first, then the
    old one revoked). Neither given: the person's only token. Returns 1, or 0 when no such token. Raises
    ``MemdirError`` when neither is given and the person holds several."""
    if label and token_id:
        raise MemdirError("name the token by --label or by --id, not both")
    if not (label or token_id):  # one token: no doubt which; several: never all of them by accident (a rotation)
        labels = [r["label"] for r in conn.execute("SELECT label FROM memdir_tokens WHERE person = %s ORDER BY created_at",
                                                   (person,))]
        if len(labels) > 1:
            raise MemdirError(f"{person} has {len(labels)} tokens ({', '.join(labels)}): name one with --label or --id "
                              "(memdir store tokens lists them), or --all")
        return _revoke(conn, "person = %s", (person,))
    if label:
        return _revoke(conn, "person = %s AND label = %s", (person, label))
    tid = token_id.lower()
    if len(tid) < 6 or any(c not in "0123456789abcdef" for c in tid):  # hex only: % and _ would be LIKE wildcards
        raise MemdirError("a token id is 6 or more hex digits (memdir store tokens lists them)")
    n = conn.execute("SELECT count(*) AS n FROM memdir_tokens WHERE person = %s AND sha256 LIKE %s",
                     (person, tid + "%")).fetchone()["n"]
    if n > 1:
        raise MemdirError(f"{n} tokens of {person} start with {tid}: give more digits")
    return _revoke(conn, "person = %s AND sha256 LIKE %s", (person, tid + "%"))


def revoke_tokens(conn, person: str) -> int:
    """Delete every token of ``person``; returns how many. ``conn`` is an admin connection."""
    return _revoke(conn, "person = %s", (person,))


def _revoke(conn, where: str, params: tuple) -> int:
    """Delete the tokens matching ``where`` and keep their rows in ``memdir_revoked`` (m013); returns how many."""
    return conn.execute(
        f"WITH gone AS (DELETE FROM memdir_tokens WHERE {where} RETURNING *), kept AS ("
        "INSERT INTO memdir_revoked(sha256, person, label, projects, created_at, last_used_at, expires_at) "
        "SELECT sha256, person, label, projects, created_at, last_used_at, expires_at FROM gone "
        "ON CONFLICT (sha256) DO NOTHING) SELECT count(*) AS n FROM gone", params).fetchone()["n"]


def grant_client(conn, login: str) -> None:
    """Make the existing database login ``login`` a member of :data:`CLIENT_ROLE` (reads/writes limited by RLS)."""
    from psycopg import sql

    conn.execute(sql.SQL("GRANT {} TO {}").format(sql.Identifier(CLIENT_ROLE), sql.Identifier(login)))
