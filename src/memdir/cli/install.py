"""``memdir install HOST``: the click command over :func:`memdir.hosts.install.install_host`."""

from __future__ import annotations

import json
import os
import shlex

import click

from memdir.errors import install_hint
from memdir.hosts.install import HOST_NAMES, install_host

DIFF_LINES = 60  # lines of a --dry-run's change shown per file


@click.command("install")
@click.argument("host", type=click.Choice(HOST_NAMES))
@click.option("--project", is_flag=True, help="Write the project's settings instead of the user's.")
@click.option("--uninstall", is_flag=True, help="Remove what install added.")
@click.option("--dry-run", is_flag=True, help="Show what would change; write nothing.")
@click.option("--command", "command", help="memdir command to register (default: this memdir's absolute path; "
              "`memdir` from PATH with --project).")
@click.option("--legacy", is_flag=True, help="OpenCode: v1-only plugin export, for old OpenCode versions.")
@click.option("--json", "as_json", is_flag=True, help="Print machine-readable JSON.")
@click.pass_context
def install(ctx, host, project, uninstall, dry_run, command, legacy, as_json):
    """Register memdir's hooks and MCP server with HOST (claude-code, codex, opencode, dsh)."""
    from memdir.roots import project_root

    if legacy and host != "opencode":  # a flag that changes nothing for this host must not pass for one that did
        from memdir.errors import UsageError

        raise UsageError(f"--legacy is for opencode (its v1-only plugin); {host} has no legacy form")
    obj = ctx.find_root().obj or {}
    proj = project_root(obj.get("dir")) if project else None
    try:
        argv = shlex.split(command, posix=os.name != "nt") if command else None
    except ValueError as exc:  # an unclosed quote
        from memdir.errors import UsageError

        raise UsageError(f"--command {command!r} does not split into words ({exc}); check its quotes — nothing "
                         "was changed") from None
    plan = install_host(host, project=proj, uninstall=uninstall, dry_run=dry_run, argv=argv, legacy=legacy,
                        home=obj.get("home"))
    if as_json or obj.get("json"):
        click.echo(json.dumps({"host": host, "uninstall": uninstall, "dry_run": dry_run, "changes": plan.changes,
                               "notes": plan.notes, "warnings": plan.warnings}, ensure_ascii=False, indent=2))
        return
    verb = "would be" if dry_run else "was"
    for c in plan.changes:
        extra = f" (backup {c['backup']})" if c.get("backup") else ""
        detail = f": {c['detail']}" if c.get("detail") else ""
        action = f"would be {c['action']}" if dry_run else c["action"]
        click.echo(f"{action:<9} {c['file']}{extra}{detail}")
        if c.get("diff"):  # --dry-run: the lines it would add (+) or remove (-), a few at most per file
            shown = c["diff"].splitlines()
            for line in shown[:DIFF_LINES]:
                click.echo(f"    {line}")
            if len(shown) > DIFF_LINES:
                click.echo(f"    … {len(shown) - DIFF_LINES} more lines")
    for n in plan.notes:
        click.echo(f"note: {n}")
    for w in plan.warnings:
        click.echo(f"warning: {w}", err=True)
    if dry_run:
        click.echo("dry run: nothing was written")
    import importlib.util

    if not uninstall and importlib.util.find_spec("mcp") is None:
        click.echo("warning: the MCP server needs the optional 'mcp' package, which is not installed: "
                   f"{install_hint('mcp')} (hooks work without it)", err=True)
    env_home = os.environ.get("MEMDIR_HOME", "").strip()
    if not uninstall and env_home and not obj.get("home"):  # the hooks run in the host's environment, not this shell's
        click.echo(f"warning: MEMDIR_HOME is set here ({env_home}) but not written into {host}'s hooks: a {host} "
                   "started without it uses the default global root; to fix it in the hooks run "
                   f"memdir --home {shlex.quote(env_home)} install {host}", err=True)
    if not dry_run and not uninstall:
        click.echo(f"memdir {verb} installed for {host}; restart {host} to load it.")
    elif not dry_run:
        click.echo(f"memdir {verb} removed from {host}.")
