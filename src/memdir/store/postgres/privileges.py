"""Why a login may not create or upgrade the memdir schema (issue 25 item 4): :func:`refusal` names the missing
privilege (CREATEROLE, CREATE on schema public, the schema's owner) and the command that gets past it, instead of
one generic line."""

from __future__ import annotations

from memdir.urlmask import safe_url


def _first(exc: Exception) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


def refusal(conn, exc: Exception, url: str) -> str:
    """The line for a database refusal (``InsufficientPrivilege``) met while creating or upgrading the schema on
    ``conn``: which privilege is missing and how to get past it."""
    from memdir.store.postgres.migrations import CLIENT_ROLE, MIGRATIONS

    why = _first(exc)
    try:
        conn.rollback()
    except Exception:  # noqa: BLE001
        pass
    try:
        who = conn.execute("SELECT current_user AS u").fetchone()
        who = who["u"] if isinstance(who, dict) else who[0]
        row = conn.execute("SELECT (SELECT max(version) FROM memdir_schema) AS v, "
                           "pg_get_userbyid((SELECT relowner FROM pg_class WHERE relname = 'memdir_schema' "
                           "AND relkind = 'r' LIMIT 1)) AS owner").fetchone()
        have, owner = (row["v"], row["owner"]) if isinstance(row, dict) else row
    except Exception:  # noqa: BLE001
        who, have, owner = "this login", None, None
    if "create role" in why.lower():
        return (f"{safe_url(url)}: {who} lacks CREATEROLE, needed once to create the role {CLIENT_ROLE} ({why}): run "
                f"`memdir store init --admin <a superuser's URL>`, or have a superuser run CREATE ROLE {CLIENT_ROLE} NOLOGIN")
    if owner and owner != who:
        return (f"{safe_url(url)}: the memdir schema here is v{have or 0} and this memdir needs v{len(MIGRATIONS)}; only "
                f"its owner {owner} may upgrade it, not {who} ({why}): run `memdir doctor` once with store = {owner}'s "
                "URL (or `memdir store tokens --store <its URL>`)")
    if "schema public" in why.lower() or "permission denied for database" in why.lower() or not owner:
        return (f"{safe_url(url)}: {who} may not create the memdir schema in this database ({why}): it needs CREATE on "
                "schema public (the database's owner has it); create the database with `memdir store init --admin "
                "<a superuser's URL>` and use the owner URL it prints")
    return f"{safe_url(url)}: {who} may not prepare the memdir schema ({why})"
