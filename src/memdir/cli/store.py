"""`memdir store …`: the admin side of a PostgreSQL team store (tokens per person, client logins); the server
itself is `memdir serve --store` (:mod:`memdir.server.team`)."""

from __future__ import annotations

from contextlib import contextmanager

import click

from memdir.cli.output import emit, json_opt

_store_opt = click.option("--store", "url", envvar="MEMDIR_STORE", required=True, metavar="URL",
                          help="postgresql://… as the schema owner (default: MEMDIR_STORE).")


@contextmanager
def _admin(url: str):
    """The admin's store connection for one command; a database refusal (no such login, a login that may not
    administer) becomes one line (``MemdirError``), never a traceback."""
    import psycopg

    import memdir.store as storage
    from memdir.config import safe_url
    from memdir.errors import MemdirError, UsageError
    from memdir.store.postgres.store import PgStore

    if not storage.is_remote(url):
        raise UsageError(f"--store needs a postgresql:// URL (got {url!r})")
    s = PgStore.connect(url, project="-")
    try:
        yield s
    except psycopg.errors.InsufficientPrivilege as exc:
        raise MemdirError(f"{safe_url(url)}: this login may not administer the store ({_first(exc)}): use the schema "
                          "owner's URL") from None
    except psycopg.Error as exc:
        raise MemdirError(f"{safe_url(url)}: {_first(exc)}") from None
    finally:
        s.close()


def _first(exc: Exception) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


@click.group("store")
def store_command() -> None:
    """Administer a PostgreSQL team store: tokens per person, client logins (`memdir serve --store`)."""


@store_command.command("token")
@click.argument("person")
@click.option("--project", "projects", multiple=True, required=True, help="A project the token grants (repeatable).")
@_store_opt
@json_opt
@click.pass_context
def store_token(ctx, person, projects, url, as_json):
    """Create a token for PERSON granting --project …; printed once (only its SHA-256 is kept)."""
    from memdir.store.postgres.admin import add_token

    with _admin(url) as s:
        tok = add_token(s.conn, person, projects)
    emit(ctx, as_json, {"person": person, "projects": sorted(set(projects)), "token": tok}, tok)


@store_command.command("revoke")
@click.argument("person")
@_store_opt
@json_opt
@click.pass_context
def store_revoke(ctx, person, url, as_json):
    """Delete every token of PERSON."""
    from memdir.store.postgres.admin import revoke_tokens

    with _admin(url) as s:
        n = revoke_tokens(s.conn, person)
    emit(ctx, as_json, {"person": person, "revoked": n}, f"{n} token(s) of {person} revoked")


@store_command.command("grant")
@click.argument("login")
@_store_opt
@json_opt
@click.pass_context
def store_grant(ctx, login, url, as_json):
    """Make the database login LOGIN a store client (member of memdir_client: row-level security applies)."""
    from memdir.store.postgres.admin import grant_client
    from memdir.store.postgres.migrations import CLIENT_ROLE

    with _admin(url) as s:
        grant_client(s.conn, login)
    emit(ctx, as_json, {"login": login, "role": CLIENT_ROLE}, f"{login} is a member of {CLIENT_ROLE}")


@store_command.command("share")
@click.argument("project")
@click.option("--off", is_flag=True, help="Make the project's events private to the person who wrote each again (the default).")
@_store_opt
@json_opt
@click.pass_context
def store_share(ctx, project, off, url, as_json):
    """Let every person a token grants PROJECT see all its events (by default each person sees only their own)."""
    from memdir.store.postgres.admin import share_events

    with _admin(url) as s:
        share_events(s.conn, project, not off)
    emit(ctx, as_json, {"project": project, "share_events": not off},
          f"{project}: events {'private to the person who wrote each' if off else 'shared with every member'}")


@click.command("push")
@click.option("--retry-failed", is_flag=True, help="Send again the rows the server refused (kept aside; `memdir status`).")
@json_opt
@click.pass_context
def push_command(ctx, retry_failed, as_json):
    """Send the events queued for the team server (remote.url) now; what cannot be sent stays queued, what the
    server refuses (a 4xx about the row) is kept aside until --retry-failed."""
    from memdir.cli.output import open_store

    res = open_store(ctx).push(retry_failed=retry_failed)  # --dir / --home apply (memdir.open() read the cwd only)
    line = f"{res['sent']} sent, {res['left']} queued"
    if res["failed"]:
        line += f", {res['failed']} refused by the server and kept aside (memdir push --retry-failed)"
    emit(ctx, as_json, res, line + (f" ({res['error']})" if res["error"] else ""))
    if res["error"] and (res["left"] or res["failed"]):
        ctx.exit(1)
