"""`memdir store …`: the admin side of a PostgreSQL team store (tokens per person, client logins); the server
itself is `memdir serve --store` (:mod:`memdir.server.team`)."""

from __future__ import annotations

from contextlib import contextmanager

import click

from memdir.cli.output import emit, json_opt
from memdir.errors import install_hint

_store_opt = click.option("--store", "url", envvar="MEMDIR_STORE", required=True, metavar="URL",
                          help="postgresql://… as the schema owner (default: MEMDIR_STORE).")


def _need_psycopg() -> None:
    """Raise ``MemdirError`` with the install line when the PostgreSQL driver (the ``postgres`` extra) is missing."""
    from memdir.errors import MemdirError

    try:
        import psycopg  # noqa: F401
    except ImportError:
        raise MemdirError(f"the team store needs psycopg, which is not installed: {install_hint('postgres')}") from None


@contextmanager
def _admin(url: str):
    """The admin's store connection for one command; a database refusal (no such login, a login that may not
    administer) becomes one line (``MemdirError``), never a traceback."""
    _need_psycopg()
    import psycopg

    import memdir.store as storage
    from memdir.urlmask import masked, safe_url, scrub
    from memdir.errors import MemdirError, UsageError
    from memdir.store.postgres.store import PgStore

    if not storage.is_remote(url):
        raise UsageError(f"--store needs a postgresql:// URL (got {masked(url)!r})")
    s = PgStore.connect(url, project="-")
    try:
        yield s
    except psycopg.errors.InsufficientPrivilege as exc:
        raise MemdirError(f"{safe_url(url)}: this login may not administer the store ({scrub(_first(exc), url)}): use the schema "
                          "owner's URL") from None
    except psycopg.Error as exc:
        raise MemdirError(f"{safe_url(url)}: {scrub(_first(exc), url)}") from None
    finally:
        s.close()


def _first(exc: Exception) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


@click.group("store")
def store_command() -> None:
    """Administer a PostgreSQL team store: tokens per person, client logins (`memdir serve --store`)."""


def _expiry(value: str | None):
    """``--expires``: ``90d`` (days from now), ``12h``, or an ISO date/time (UTC when it names no zone)."""
    if not value:
        return None
    from datetime import datetime, timedelta, timezone

    from memdir.errors import UsageError

    v = value.strip().lower()
    try:
        if v[-1:] in ("d", "h") and v[:-1].isdigit():
            t = datetime.now(timezone.utc) + timedelta(**{"days" if v[-1] == "d" else "hours": int(v[:-1])})
        else:
            t = datetime.fromisoformat(value.strip())
    except (ValueError, OverflowError, IndexError):  # 99999999d is past the calendar's end
        raise UsageError(f"--expires: {value!r} is neither 90d / 12h nor an ISO date (2027-03-31)") from None
    t = t if t.tzinfo else t.replace(tzinfo=timezone.utc)
    if t <= datetime.now(timezone.utc):  # a token refused from its first use: a typo of the year, or 0d
        raise UsageError(f"--expires: {value!r} is not in the future; give a later date or a count of days (90d)")
    return t


@store_command.command("token")
@click.argument("person")
@click.option("--project", "projects", multiple=True, required=True, help="A project the token grants (repeatable).")
@click.option("--label", default=None, help="Name of this token among PERSON's (e.g. laptop, ci; default token-N).")
@click.option("--expires", default=None, metavar="WHEN", help="End of the token: 90d, 12h or an ISO date (default: never).")
@_store_opt
@json_opt
@click.pass_context
def store_token(ctx, person, projects, label, expires, url, as_json):
    """Create a token for PERSON granting --project …; printed once (only its SHA-256 is kept). A person may hold
    several (one per machine): `memdir store tokens` lists them, `memdir store revoke PERSON --label L` ends one."""
    from memdir.store.postgres.admin import add_token, list_tokens

    with _admin(url) as s:
        tok = add_token(s.conn, person, projects, label=label, expires=_expiry(expires))
        info = next(t for t in reversed(list_tokens(s.conn, person)) if label is None or t["label"] == label)
    emit(ctx, as_json, {"person": person, "projects": sorted(set(projects)), "token": tok, "label": info["label"],
                        "id": info["id"], "expires": info["expires"]}, tok)


@store_command.command("tokens")
@click.argument("person", required=False)
@click.option("--revoked", is_flag=True, help="List the revoked tokens (with when) instead of the live ones.")
@_store_opt
@json_opt
@click.pass_context
def store_tokens(ctx, person, revoked, url, as_json):
    """List the tokens (of PERSON, or everyone's): id, person, label, projects, created, last used, expiry; the
    revoked ones are counted (--revoked lists them)."""
    from memdir.store.postgres.admin import list_tokens

    with _admin(url) as s:
        rows = list_tokens(s.conn, person, revoked=revoked)
        gone = [] if revoked else list_tokens(s.conn, person, revoked=True)
    last = "revoked" if revoked else "expires"
    lines = [f"{'id':<10}  {'person':<12} {'label':<12} {'created':<25} {'last used':<25} {last:<25} projects"]
    for t in rows:
        end = t["revoked"] if revoked else (t["expires"] or "never") + (" (expired)" if t["expired"] else "")
        lines.append(f"{t['id']:<10}  {t['person']:<12} {t['label']:<12} {t['created'] or '-':<25} "
                     f"{t['last_used'] or 'never':<25} {end:<25} {', '.join(t['projects'])}")
    human = "\n".join(lines) if rows else f"no {'revoked' if revoked else 'live'} tokens" + (f" of {person}" if person else "")
    if gone:
        human += f"\n{len(gone)} revoked token(s) not shown (memdir store tokens{' ' + person if person else ''} --revoked)"
    emit(ctx, as_json, rows, human)


@store_command.command("revoke")
@click.argument("person")
@click.option("--label", default=None, help="The token's label (memdir store tokens).")
@click.option("--id", "token_id", default=None, help="The token's id (memdir store tokens).")
@click.option("--all", "every", is_flag=True, help="Every token of PERSON (they lose access at once).")
@_store_opt
@json_opt
@click.pass_context
def store_revoke(ctx, person, label, token_id, every, url, as_json):
    """Delete one token of PERSON (--label or --id; the others keep working), or all of them (--all)."""
    from memdir.errors import UsageError
    from memdir.store.postgres.admin import revoke_token, revoke_tokens

    if every and (label or token_id):
        raise UsageError("--all revokes every token of the person: give it alone, or --label / --id for one")
    with _admin(url) as s:
        n = revoke_tokens(s.conn, person) if every else revoke_token(s.conn, person, label=label, token_id=token_id)
    if not n and not every:
        from memdir.errors import MemdirError

        raise MemdirError(f"{person} has no token {label or token_id or ''!r} (memdir store tokens {person} lists them)")
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
@click.option("--person", required=True, help="Whose events (one person: each member decides for their own history).")
@click.option("--off", is_flag=True, help="Make the person's events private to them again (the default).")
@_store_opt
@json_opt
@click.pass_context
def store_share(ctx, project, person, off, url, as_json):
    """Open PERSON's events in PROJECT to every member (each person's are private by default). Members set their
    own from their machine with `memdir share`."""
    from memdir.store.postgres.admin import share_events

    with _admin(url) as s:
        share_events(s.conn, project, not off, person=person)
        known = s.conn.execute("SELECT EXISTS (SELECT 1 FROM memdir_tokens WHERE person = %s AND %s = ANY(projects)) AS ok",
                               (person, project)).fetchone()["ok"]
    if not known:  # set all the same (a switch may be set before the token), but a typo must not pass for success
        click.echo(f"memdir: warning: no token of {person!r} grants {project!r} (yet): check both names with "
                   "`memdir store tokens`", err=True)
    emit(ctx, as_json, {"project": project, "person": person, "share_events": not off},
         f"{project}: {person}'s events {'private to them' if off else 'shared with every member'}")


@store_command.command("init")
@click.option("--admin", "admin_url", envvar="MEMDIR_STORE_ADMIN", required=True, metavar="URL",
              help="A login with CREATEROLE and CREATEDB, or a superuser (e.g. postgresql://postgres@db/postgres; default: MEMDIR_STORE_ADMIN).")
@click.option("--database", default="memdir", show_default=True)
@click.option("--owner", default="memdir_owner", show_default=True, help="The schema owner's login (made).")
@click.option("--server-login", "server", default="memdir_srv", show_default=True, help="The team server's login (made).")
@click.option("--no-passwords", is_flag=True, help="Make the logins without passwords (peer or certificate auth).")
@json_opt
@click.pass_context
def store_init(ctx, admin_url, database, owner, server, no_passwords, as_json):
    """Create the team store: the owner and server logins, the client role, the database and its schema, with the
    least privileges. Prints the two URLs (with the passwords it made: store them now)."""
    _need_psycopg()
    from memdir.store.postgres.setup import init

    out = init(admin_url, database=database, owner=owner, server=server, passwords=not no_passwords)
    kept = " (password unchanged: the one the first init printed)"
    emit(ctx, as_json, out, "\n".join([
        f"created: {', '.join(out['created']) or 'nothing (all there already)'}; team store schema v{out['schema_version']}"
        + ("; pgvector on" if out["pgvector"] else ""),
        f"owner (memdir store … --store):  {out['owner_url']}" + (kept if out["owner_password"] == "unchanged" else ""),
        f"server (memdir serve --store):   {out['server_url']}" + (kept if server not in out["created"] else "")]))


@click.command("share")
@click.option("--off", is_flag=True, help="Make your events in this project private to you again.")
@json_opt
@click.pass_context
def share_command(ctx, off, as_json):
    """Open your own events in this project, past and future, to its other members on the team server
    (remote.url), or close them again (--off). Nobody else's events are touched."""
    from memdir.cli.output import open_store

    res = open_store(ctx).share_history(not off)
    emit(ctx, as_json, res, f"{res['project']}: {res['person']}'s events "
                            f"{'shared with every member' if res['share'] else 'private to you'}")


@click.command("push")
@click.option("--retry-failed", is_flag=True, help="Send again the rows the server refused (kept aside; `memdir status`).")
@json_opt
@click.pass_context
def push_command(ctx, retry_failed, as_json):
    """Send the events queued for the team server (remote.url) now; what cannot be sent stays queued, what the
    server refuses (a 4xx about the row) is kept aside until --retry-failed."""
    from memdir.cli.output import open_store

    import sys

    def progress(sent: int, total: int) -> None:
        if sys.stderr.isatty():
            click.echo(f"\r{sent}/{total} sent", nl=False, err=True)

    res = open_store(ctx).push(retry_failed=retry_failed, progress=progress)  # --dir / --home apply
    if res["sent"] and sys.stderr.isatty():
        click.echo("", err=True)
    line = f"{res['sent']} sent, {res['left']} queued"
    if res["failed"]:
        line += f", {res['failed']} refused by the server and kept aside (memdir push --retry-failed)"
    emit(ctx, as_json, res, line + (f" ({res['error']})" if res["error"] else "")
         + (f"\nfix: {res['fix']}" if res.get("fix") else ""))
    if res["error"] and (res["left"] or res["failed"]):
        ctx.exit(1)
