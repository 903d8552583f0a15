"""Setting a team store up (issue 25 item 4): :func:`init` creates the roles, the database and the schema with the
least privileges, and :func:`refusal` turns a database refusal met while creating or upgrading the schema into a
line that names the missing privilege and the command that fixes it.

Roles made by :func:`init` (names configurable):

* ``memdir_owner`` — LOGIN, owns the database and the schema (migrates, administers tokens); no SUPERUSER, CREATEDB
  or CREATEROLE;
* :data:`memdir.store.postgres.migrations.CLIENT_ROLE` (``memdir_client``) — NOLOGIN; what client logins are members
  of (row-level security applies to them); it may CONNECT to the database, nothing else outside the schema's grants;
* ``memdir_srv`` — LOGIN, a member of ``memdir_client``: the team server's login (``memdir serve --store``).

``PUBLIC`` loses CONNECT and TEMPORARY on the database. The login running :func:`init` needs CREATEROLE and CREATEDB
(or SUPERUSER, which also enables pgvector when the server has it).
"""

from __future__ import annotations

import secrets
from typing import Any
from urllib.parse import quote, urlsplit, urlunsplit

from memdir.urlmask import safe_url, scrub
from memdir.errors import MemdirError


def with_login(url: str, login: str, password: str | None, database: str | None = None) -> str:
    """``url`` with another login (and password) and, when given, another database."""
    u = urlsplit(url)
    host = u.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    netloc = quote(login, safe="") + (f":{quote(password, safe='')}" if password else "") + "@" + host
    if u.port:
        netloc += f":{u.port}"
    path = f"/{quote(database, safe='')}" if database else u.path
    return urlunsplit((u.scheme, netloc, path, u.query, u.fragment))


def _first(exc: Exception) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


def init(admin_url: str, *, database: str = "memdir", owner: str = "memdir_owner", server: str = "memdir_srv",
         passwords: bool = True) -> dict[str, Any]:
    """Create ``owner``, the client role, ``server`` and ``database`` (owned by ``owner``), then the schema (as
    ``owner``). ``admin_url``: a login with CREATEROLE and CREATEDB (or a superuser), any database of the cluster.
    What exists already is kept and the schema is upgraded (a second run sets no password: the URLs of roles it did
    not create carry none, ``owner_password`` is ``"unchanged"``). Returns ``{"database", "owner_url", "server_url",
    "created", "schema_version", "pgvector", "owner_password"}`` (URLs with the passwords made for new roles). Raises
    ``MemdirError`` naming the missing privilege."""
    import psycopg
    from psycopg import sql

    from memdir.store.postgres.migrations import CLIENT_ROLE, MIGRATIONS

    try:
        conn = psycopg.connect(admin_url, autocommit=True, connect_timeout=10)
    except psycopg.Error as exc:
        raise MemdirError(f"could not connect to {safe_url(admin_url)}: {scrub(_first(exc), admin_url)}") from None
    created: list[str] = []
    pw: dict[str, str | None] = {owner: None, server: None}
    try:
        me, su, cr, cd = conn.execute("SELECT current_user, rolsuper, rolcreaterole, rolcreatedb FROM pg_roles "
                                      "WHERE rolname = current_user").fetchone()
        missing = [p for p, have in (("CREATEROLE", cr), ("CREATEDB", cd)) if not (su or have)]
        if missing:
            raise MemdirError(f"{me} lacks {' and '.join(missing)}, needed to create the memdir roles and database: run "
                              f"this as a superuser (e.g. sudo -u postgres), or have one run ALTER ROLE {me} "
                              f"{' '.join(missing)}")
        have = {r[0] for r in conn.execute("SELECT rolname FROM pg_roles WHERE rolname = ANY(%s)",
                                           ([owner, server, CLIENT_ROLE],))}
        for role, login in ((owner, True), (CLIENT_ROLE, False), (server, True)):
            if role in have:
                continue
            if login:
                pw[role] = secrets.token_urlsafe(18) if passwords else None
                q = sql.SQL("CREATE ROLE {} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOBYPASSRLS").format(sql.Identifier(role))
                if pw[role]:
                    # a SCRAM verifier, never the plain text: a server logging DDL (log_statement) keeps the statement
                    verifier = conn.pgconn.encrypt_password(pw[role].encode(), role.encode(), b"scram-sha-256").decode()
                    q = q + sql.SQL(" PASSWORD {}").format(sql.Literal(verifier))
            else:
                q = sql.SQL("CREATE ROLE {} NOLOGIN").format(sql.Identifier(role))
            conn.execute(q)
            created.append(role)
        conn.execute(sql.SQL("GRANT {} TO {}").format(sql.Identifier(CLIENT_ROLE), sql.Identifier(server)))
        if not su:  # a CREATEROLE login must be a member of the owner to give it a database (PostgreSQL 15)
            conn.execute(sql.SQL("GRANT {} TO {}").format(sql.Identifier(owner), sql.Identifier(me)))
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (database,)).fetchone():
            conn.execute(sql.SQL("CREATE DATABASE {} OWNER {}").format(sql.Identifier(database), sql.Identifier(owner)))
            created.append(f"database {database}")
        conn.execute(sql.SQL("REVOKE CONNECT, TEMPORARY ON DATABASE {} FROM PUBLIC").format(sql.Identifier(database)))
        conn.execute(sql.SQL("GRANT CONNECT ON DATABASE {} TO {}").format(sql.Identifier(database), sql.Identifier(CLIENT_ROLE)))
    except psycopg.Error as exc:
        raise MemdirError(f"{safe_url(admin_url)}: {scrub(_first(exc), admin_url)}") from None
    finally:
        conn.close()
    vector = False
    if su:  # pgvector needs a superuser once per database (optional: vectors are scored in memdir without it)
        try:
            with psycopg.connect(with_login(admin_url, urlsplit(admin_url).username or me, urlsplit(admin_url).password,
                                            database), autocommit=True, connect_timeout=10) as c:
                if c.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'").fetchone():
                    c.execute("CREATE EXTENSION IF NOT EXISTS vector")
                    vector = True
        except psycopg.Error:
            vector = False
    owner_url = with_login(admin_url, owner, pw[owner], database)
    schema_as_owner(with_login(admin_url, urlsplit(admin_url).username or me, urlsplit(admin_url).password, database),
                    owner)
    return {"database": database, "owner_url": owner_url, "server_url": with_login(admin_url, server, pw[server], database),
            "created": created, "schema_version": len(MIGRATIONS), "pgvector": vector,
            "owner_password": "new" if pw[owner] else ("unchanged" if owner not in created else "none")}


def schema_as_owner(admin_db_url: str, owner: str) -> None:
    """Create or upgrade the schema in ``admin_db_url``'s database *as* ``owner`` (``SET ROLE``: the admin is a
    superuser or a member of the owner), so the tables are the owner's and a second ``init`` needs no owner password
    (it was printed once, by the first). Raises ``MemdirError`` with the database's refusal, one line."""
    import psycopg
    from psycopg import sql
    from psycopg.rows import dict_row

    from memdir.store.postgres.migrations import migrate

    try:
        with psycopg.connect(admin_db_url, autocommit=True, row_factory=dict_row, connect_timeout=10) as c:
            c.execute(sql.SQL("SET ROLE {}").format(sql.Identifier(owner)))
            migrate(c)
    except psycopg.Error as exc:
        raise MemdirError(f"the schema could not be created or upgraded as {owner} in {safe_url(admin_db_url)}: "
                          f"{scrub(_first(exc), admin_db_url)}") from None
