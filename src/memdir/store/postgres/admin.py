"""Team administration on the PostgreSQL store: per-person tokens, the client role, per-project sharing."""

from __future__ import annotations

from typing import Iterable

from memdir.errors import MemdirError
from memdir.store.postgres.migrations import CLIENT_ROLE


def share_events(conn, project: str, share: bool = True) -> None:
    """Make ``project``'s events visible to every person its tokens grant (``share``), or private to the person who
    wrote each (the default). ``conn`` is an admin connection."""
    conn.execute("INSERT INTO memdir_projects(project, share_events) VALUES (%s, %s) ON CONFLICT (project) "
                 "DO UPDATE SET share_events = excluded.share_events", (project, bool(share)))


def add_token(conn, person: str, projects: Iterable[str]) -> str:
    """Create a token for ``person`` granting ``projects``; returns the token (shown once: only its SHA-256 is kept).
    ``conn`` is an admin connection (the schema owner)."""
    import hashlib
    import secrets

    projects = sorted({p for p in projects if p})
    if not person or not projects:
        raise MemdirError("a token needs a person and at least one project")
    token = "mdt_" + secrets.token_urlsafe(24)
    conn.execute("INSERT INTO memdir_tokens(sha256, person, projects) VALUES (%s, %s, %s)",
                 (hashlib.sha256(token.encode()).hexdigest(), person, projects))
    return token


def revoke_tokens(conn, person: str) -> int:
    """Delete every token of ``person``; returns how many. ``conn`` is an admin connection."""
    return conn.execute("DELETE FROM memdir_tokens WHERE person = %s", (person,)).rowcount


def grant_client(conn, login: str) -> None:
    """Make the existing database login ``login`` a member of :data:`CLIENT_ROLE` (reads/writes limited by RLS)."""
    from psycopg import sql

    conn.execute(sql.SQL("GRANT {} TO {}").format(sql.Identifier(CLIENT_ROLE), sql.Identifier(login)))
