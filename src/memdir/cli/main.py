"""The ``memdir`` command: a thin layer over the Python API, same names, ``--json`` everywhere.

Exit codes: 0 ok, 1 not found (or an operational error), 2 usage error. Errors are one line on stderr;
a traceback is shown only with ``--debug``.
"""

from __future__ import annotations

import importlib
import json
import logging
import sqlite3
import sys
from pathlib import Path
from typing import Any

import click

from memdir import registry
from memdir.errors import MemdirError, NotFound, UsageError

log = logging.getLogger("memdir")

#: extra commands living in other modules, loaded only when used (keeps `memdir recall` start-up light)
LAZY_COMMANDS = registry.COMMANDS
IMPORT_SOURCES = ("claude-code", "codex", "opencode", "jsonl")


class LazyGroup(click.Group):
    def list_commands(self, ctx):
        names = set(super().list_commands(ctx))
        names.update(n for n, target in LAZY_COMMANDS.items() if _find_spec(target))
        return sorted(names)

    def get_command(self, ctx, name):
        cmd = super().get_command(ctx, name)
        if cmd is not None or name not in LAZY_COMMANDS:
            return _accept_global_options(cmd) if cmd is not None else None
        mod_name, attr = LAZY_COMMANDS[name].split(":")
        try:
            mod = importlib.import_module(mod_name)
        except ImportError as exc:
            missing = str(getattr(exc, "name", None) or exc)
            if missing == "memdir" or missing.startswith("memdir."):
                raise  # our own module or name is missing: a defect, never hidden as "no such command"
            return _unavailable(name, f"needs an optional dependency ({missing}); see README 'Install'")
        return _accept_global_options(getattr(mod, attr))


def _set_global(ctx: click.Context, param: click.Parameter, value: Any) -> None:
    """A group option given after the command (``memdir recall x --dir P``): the same as before it."""
    if value is None or value is False:
        return
    obj = ctx.find_root().obj
    if param.name == "debug":
        _debug_logging()
    obj[param.name] = value


def _accept_global_options(cmd: click.Command) -> click.Command:
    """Let ``cmd`` (and the commands of a sub-group) take ``--dir``, ``--home`` and ``--debug`` after its name too
    (hidden: the group's help lists them); a command with its own option of that name keeps it (``serve``, ``mcp``)."""
    if getattr(cmd, "_memdir_globals", False):
        return cmd
    cmd._memdir_globals = True  # type: ignore[attr-defined]
    taken = {o for p in cmd.params for o in getattr(p, "opts", ())}
    extra = [click.Option(["--dir", "dir"], type=click.Path(exists=True, file_okay=False), hidden=True,
                          expose_value=False, callback=_set_global),
             click.Option(["--home", "home"], type=click.Path(file_okay=False), hidden=True, expose_value=False,
                          callback=_set_global),
             click.Option(["--debug", "debug"], is_flag=True, hidden=True, expose_value=False, callback=_set_global)]
    cmd.params += [o for o in extra if o.opts[0] not in taken]
    if isinstance(cmd, click.Group):
        for sub in cmd.commands.values():
            _accept_global_options(sub)
    return cmd


def _find_spec(target: str) -> bool:
    import importlib.util

    try:
        return importlib.util.find_spec(target.split(":")[0]) is not None
    except (ImportError, ValueError):
        return False


def _unavailable(name: str, why: str) -> click.Command:
    @click.command(name, context_settings={"ignore_unknown_options": True, "allow_extra_args": True})
    def cmd():
        raise UsageError(f"`memdir {name}` {why}")

    return cmd


def open_store(ctx: click.Context):
    """The Memdir for the group's ``--dir`` / ``--home`` options (opened once per command)."""
    import memdir

    obj = ctx.find_root().obj
    if obj.get("store") is None:
        obj["store"] = memdir.open(obj.get("dir"), home=obj.get("home"))
        ctx.find_root().call_on_close(obj["store"].close)
        ctx.find_root().call_on_close(lambda: _warn_unreadable_notes(ctx))  # runs first (last registered)
    return obj["store"]


#: commands that list unreadable notes themselves
_LISTS_PROBLEMS = ("inspect", "doctor")


def _warn_unreadable_notes(ctx: click.Context) -> None:
    """One line on stderr when the command's look at the roots found note files it could not read as written
    (a hand edit that broke the frontmatter): such a note is recalled by its body alone, and said so here."""
    root = ctx.find_root()
    m = root.obj.get("store")
    failing = sys.exc_info()[1]  # the command is ending with an error: that one line is all it prints
    if m is None or root.invoked_subcommand in _LISTS_PROBLEMS or (failing is not None and not isinstance(failing, click.exceptions.Exit)):
        return
    try:
        bad = m.note_problems()
    except Exception:  # noqa: BLE001 - a warning must never turn a finished command into an error
        return
    if bad:
        first = bad[0]
        more = f" (and {len(bad) - 1} more: memdir inspect)" if len(bad) > 1 else ""
        click.echo(f"memdir: warning: {first['path']}: {first['detail']}{more}", err=True)


def emit(ctx: click.Context, as_json: bool, data: Any, human: str) -> None:
    if as_json or ctx.find_root().obj.get("json"):
        click.echo(json.dumps(data, ensure_ascii=False, indent=2, default=str))
    elif human:
        click.echo(human)


def preview_text(head: str, samples: list[dict[str, Any]], count: int, confirm: str) -> str:
    """A delete preview for a person: ``head``, one line per sample (date, scope, id, first 80 chars), how many
    were not listed and, when anything matched, the ``confirm`` command that deletes (``forget --query/--prefix``
    and ``prune`` share it)."""
    lines = [head]
    lines += [f"  {(s.get('ts') or '')[:10]} {s['scope']} {s['id']}: {' '.join((s.get('text') or '').split())[:80]}"
              for s in samples]
    if count > len(samples):
        lines.append(f"  … and {count - len(samples)} more")
    if count:
        lines.append(confirm)
    return "\n".join(lines)


def _read_text(arg, what: str) -> str:
    """The text argument (several words are joined with spaces), or stdin when it is ``-`` or absent and stdin
    is piped."""
    if isinstance(arg, tuple):
        arg = " ".join(arg) if arg else None
    if arg is not None and arg != "-":
        return arg
    if arg == "-" or not sys.stdin.isatty():
        data = sys.stdin.buffer.read()
        return data.decode("utf-8", errors="replace")
    raise UsageError(f"give the {what} as an argument or on stdin")


def _n(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


json_opt = click.option("--json", "as_json", is_flag=True, help="Print machine-readable JSON.")


@click.group(cls=LazyGroup, invoke_without_command=True,
             context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.option("--dir", "dir_", type=click.Path(exists=True, file_okay=False), envvar="MEMDIR_PROJECT_DIR",
              help="Project directory to use (default: the working directory; its git top-level is the project root).")
@click.option("--home", type=click.Path(file_okay=False), help="Global memory root (default: $MEMDIR_HOME or the user data dir).")
@click.option("--json", "as_json", is_flag=True, help="Print machine-readable JSON (any command).")
@click.option("--debug", is_flag=True, help="Log ranking and skip decisions to stderr; show tracebacks.")
@click.version_option(package_name="memdir")
@click.pass_context
def cli(ctx: click.Context, dir_: str | None, home: str | None, as_json: bool, debug: bool) -> None:
    """memdir — long-term memory for AI coding agents: Markdown you can read, recall that finds it."""
    ctx.obj = {"dir": dir_, "home": home, "json": as_json, "debug": debug, "store": None}
    if ctx.invoked_subcommand is None:
        click.echo(ctx.get_help())
        ctx.exit(0)
    if debug:
        _debug_logging()


def _debug_logging() -> None:
    if log.propagate is False:
        return  # already on
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("memdir: %(levelname)s %(message)s"))
    log.addHandler(handler)
    log.setLevel(logging.DEBUG)
    log.propagate = False  # one line per message (not again through the root handler)


@cli.command()
@click.argument("text", nargs=-1)
@click.option("-c", "--category", default="facts", show_default=True, help="rules, preferences, decisions, pitfalls, facts, …")
@click.option("-s", "--summary", "--title", "summary", help="One-line summary (default: the first line); --title is the same.")
@click.option("--highlight", help="One striking line shown beside the summary (seed 000's `highlight`).")
@click.option("-t", "--tag", "tags", multiple=True, help="Tag (repeatable).")
@click.option("-w", "--load-when", "load_when", multiple=True, help="Routing trigger for ROOT.md (repeatable).")
@click.option("--pinned", is_flag=True, help="Never decays.")
@click.option("--supersedes", help="Id of the note this one replaces.")
@click.option("--scope", type=click.Choice(["project", "global"]), default="project", show_default=True)
@json_opt
@click.pass_context
def remember(ctx, text, category, summary, highlight, tags, load_when, pinned, supersedes, scope, as_json):
    """Store a curated note (TEXT, or stdin). A note file on stdin may start with YAML frontmatter: its summary
    (or title), tags, load_when, pinned, highlight, supersedes and kind/category fill what no flag gives."""
    m = open_store(ctx)
    raw = _read_text(text, "text")
    from memdir.notes.markdown import split

    meta, body, fm = split(raw) if raw.lstrip("\ufeff").startswith("---") else ({}, raw, None)
    if fm is not None:  # before: the frontmatter was stored as body text and the summary was '---'
        raw = body

        def one(key):
            v = meta.get(key)
            return str(v) if isinstance(v, (str, int, float)) and not isinstance(v, bool) and str(v).strip() else None

        def many(key):
            v = meta.get(key)
            return tuple(str(x) for x in (v if isinstance(v, list) else [v] if isinstance(v, str) else []) if str(x).strip())

        summary = summary or one("summary") or one("title")
        highlight = highlight or one("highlight")
        tags, load_when = tags or many("tags"), load_when or many("load_when")
        pinned = pinned or meta.get("pinned") is True
        supersedes = supersedes or one("supersedes")
        if ctx.get_parameter_source("category") == click.core.ParameterSource.DEFAULT:
            nid, kind = one("id") or "", one("kind") or ""
            cands = [c for c in (one("category"), nid.split("/")[0] if "/" in nid else None, kind + "s" if kind else None) if c]
            for cand in cands:
                if cand in m.config.get("categories"):
                    category = cand
                    break
            else:
                if cands:  # a typo must not file the note under facts/ without a word
                    said = one("category") and f"category {one('category')!r}" or kind and f"kind {kind!r}" or f"id {nid!r}"
                    raise UsageError(f"the frontmatter's {said} names no category: use one of "
                                     f"{', '.join(m.config.get('categories'))} (as category, or kind without the s), or -c")
        used = {"summary", "title", "highlight", "tags", "load_when", "pinned", "supersedes", "id", "kind", "category",
                "created", "updated"}
        extra = sorted(str(k) for k in meta if k not in used)
        if extra:
            click.echo(f"memdir: warning: frontmatter field(s) {', '.join(extra)} not kept by remember "
                       "(`memdir edit ID -` keeps every field)", err=True)
    note = m.remember(raw, category=category, summary=summary, tags=tags, load_when=load_when,
                      pinned=pinned, supersedes=supersedes, scope=scope, highlight=highlight)
    human = f"already remembered as {note.id} ({note.scope})" if note.existed else f"remembered {note.id} ({note.scope}) → {note.path}"
    emit(ctx, as_json, note.to_dict(), human)


@cli.command()
@click.argument("query", nargs=-1)
@click.option("-k", "--k", "k", type=click.IntRange(1, 1000), default=None, help="Number of hits (default 8).")
@click.option("--scope", type=click.Choice(["project", "global"]), default=None)
@click.option("--kind", "kinds", multiple=True, help="Filter: note, event, rule, decision, user, tool, … (repeatable).")
@click.option("--explain", is_flag=True, help="Show each hit's reasons (terms, fields, factors).")
@json_opt
@click.pass_context
def recall(ctx, query, k, scope, kinds, explain, as_json):
    """Search memories for QUERY (or stdin). Exit 1 when nothing matches."""
    q = _read_text(query, "query")
    if not q.strip():
        raise UsageError("empty query: give some words to search for")
    m = open_store(ctx)
    known = {"note", "event", "user", "assistant", "tool", "system"} | {k.rstrip("s") for k in m.config.get("categories")}
    for kd in kinds:
        if kd not in known:
            click.echo(f"memdir: warning: unknown --kind {kd!r}; known: {', '.join(sorted(known))}", err=True)
    info = None
    if explain:
        info = m.explain(q, k=k, scope=scope, kinds=kinds or None)
    hits = m.recall(q, k=k, scope=scope, kinds=kinds or None, rehearse=True)
    lines = []
    if info is not None:
        lat = ", ".join(f"{k_} {v:.1f}" for k_, v in info.get("latency_ms", {}).items())
        lines.append(f"channel {info.get('channel')} (provider {info.get('provider')}); latency ms: {lat}")
        ranks = {h["id"]: h.get("ranks", {}) for h in info.get("hits", [])}
    for i, h in enumerate(hits, 1):
        head = f"{i}. [{h.handle + ' ' if h.handle else ''}{h.scope} {h.kind}] {h.id}  score={h.score:.4g}"
        if h.ts:
            head += f"  {h.ts.date().isoformat()}"
        text = " ".join(h.text.split())
        lines.append(head + "\n   " + (text[:300] + ("…" if len(text) > 300 else "")))
        if explain:
            lines.append("   why: " + json.dumps(h.reasons, ensure_ascii=False))
            if info is not None and ranks.get(h.id):
                lines.append("   channel ranks: " + json.dumps(ranks[h.id]))
    data: Any = [h.to_dict() for h in hits]
    if info is not None:
        data = {"explain": {k_: v for k_, v in info.items() if k_ != "hits"}, "channel_hits": info.get("hits", []), "hits": data}
    emit(ctx, as_json, data, "\n".join(lines))
    if not hits:
        if not (as_json or ctx.find_root().obj.get("json")):
            click.echo("no memory matches", err=True)
        ctx.exit(1)


@cli.command()
@click.argument("id")
@click.option("--scope", type=click.Choice(["project", "global"]), default=None,
              help="Root to read from (default: project, then global).")
@json_opt
@click.pass_context
def get(ctx, id, scope, as_json):
    """Show one memory by note id, event key or the short handle the <memory> block shows. Exit 1 when absent."""
    m = open_store(ctx)
    item = m.get(id, scope=scope)
    if item is None:
        raise NotFound(f"no memory with id {id!r}: see `memdir recall` or `memdir inspect` for ids")
    data = item.to_dict()
    name = getattr(item, "id", None) or getattr(item, "key", "")
    what = getattr(item, "kind", None) or getattr(item, "role", "")
    emit(ctx, as_json, data, f"{name} ({item.scope} {what})\n{item.text}")


@cli.command()
@click.argument("id", required=False)
@click.option("--scope", type=click.Choice(["project", "global"]), default=None,
              help="Root to forget from (default: the first holding the id, project before global).")
@click.option("--source", help="Forget every note from this source instead of one id (e.g. distill).")
@click.option("--session", help="With --source: only the notes distilled from this session.")
@click.option("--query", "-q", default=None, help="Forget every memory whose text contains this (preview, then --token).")
@click.option("--prefix", default=None, help="Forget every event whose key starts with this, e.g. import:mysource.")
@click.option("--token", default=None, help="Confirm token from the --query/--prefix preview: deletes.")
@click.option("--force", is_flag=True, help="With --query/--prefix: delete at once without a preview (scripts).")
@json_opt
@click.pass_context
def forget(ctx, id, scope, source, session, query, prefix, token, force, as_json):
    """Delete a note (category/slug) or an event (key); a tombstone blocks re-import.
    `--source distill [--session ID]` removes a distilled batch (and rejects its pending proposals).
    `--query TEXT` / `--prefix KEY` preview the matches, then delete them with the printed token."""
    m = open_store(ctx)
    if source is not None or session is not None:
        if id is not None or source is None or query is not None or prefix is not None:
            raise UsageError("use either an ID, --source NAME [--session ID], or --query/--prefix")
        out = m.forget_source(source, session=session)
        emit(ctx, as_json, out, f"forgot {_n(len(out['forgotten']), 'note')}"
              + (f", rejected {_n(len(out['proposals_rejected']), 'proposal')}" if out["proposals_rejected"] else "")
              + "".join(f"\n  {i}" for i in out["forgotten"]))
        if not out["forgotten"] and not out["proposals_rejected"]:
            raise NotFound(f"no note from source {source!r}" + (f" and session {session!r}" if session else ""))
        return
    if query is not None or prefix is not None:
        if id:
            raise UsageError("give either an id or --query/--prefix, not both")
        res = m.forget_matching(query=query, prefix=prefix, scope=scope, token=token, force=force)
        what = f"--query {query!r}" if query is not None else f"--prefix {prefix!r}"
        if not res["deleted"] and not res["count"]:  # like a missing id: say so, exit 1 (scripts can tell)
            emit(ctx, as_json, res, "")
            raise NotFound(f"no memory matches {what}; nothing to forget (see `memdir recall`)")
        if res["deleted"]:
            human = f"forgot {res['count']} memories ({res['notes']} notes, {res['events']} events); tombstones keep them out"
        else:
            human = preview_text(
                f"{res['count']} memories match {what} ({res['notes']} notes, {res['events']} events); nothing deleted yet",
                res["samples"], res["count"], f"to delete them: memdir forget {what} --token {res['token']}")
        emit(ctx, as_json, res, human)
        return
    if token or force:
        raise UsageError("--token and --force go with --query or --prefix")
    if not id:
        raise UsageError("give the id to forget (see `memdir recall` or `memdir inspect`), or --query TEXT / --prefix KEY / --source NAME")
    try:
        target = m.get(id, scope=scope)  # a short handle: say which memory it was
    except MemdirError:
        target = None
    name = getattr(target, "id", None) or getattr(target, "key", None) or id
    ok = m.forget(id, scope=scope)
    emit(ctx, as_json, {"id": id, "forgotten": ok, **({"ref": name} if ok else {})},
          (f"forgot {name}" + (f" ({id})" if name != id else "")) if ok else "")
    if not ok:
        raise NotFound(f"no memory with id {id!r}: see `memdir recall` or `memdir inspect` for ids")


@cli.command()
@click.argument("id")
@click.argument("file", required=False)
@click.option("--scope", type=click.Choice(["project", "global"]), default=None)
@json_opt
@click.pass_context
def edit(ctx, id, file, scope, as_json):
    """Replace note ID with FILE (`-` = stdin): frontmatter + body, validated; a bad edit is refused with every
    reason and nothing is written. Without FILE on a terminal, opens $EDITOR on the note."""
    m = open_store(ctx)
    from_editor = file is None and sys.stdin.isatty()
    if from_editor:
        before = m.note_source(id, scope=scope)
        text = click.edit(before, extension=".md")
        if text is None or text == before:
            emit(ctx, as_json, {"id": id, "changed": False}, "no change")
            return
    else:
        text = _read_text(None if file in (None, "-") else Path(file).read_text(encoding="utf-8"), "note")
        if file is None and not text.strip():  # no FILE, no terminal (a script, an agent's shell): nothing came in
            raise UsageError(f"edit needs the new text: `memdir edit {id} FILE`, `memdir edit {id} -` with the text on "
                             "stdin, or run it on a terminal to open $EDITOR")
    try:
        note = m.edit(id, text, scope=scope)
    except MemdirError as exc:
        if not from_editor:
            raise
        # the text typed in $EDITOR is the user's work: keep it where the refusal says, never drop it
        import os
        import tempfile

        fd, kept = tempfile.mkstemp(prefix="memdir-edit-", suffix=".md")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        raise type(exc)(f"{str(exc).splitlines()[0]} — your text is kept in {kept} (fix it, then `memdir edit {id} {kept}`)") from None
    emit(ctx, as_json, {"changed": True, "note": note.to_dict()}, f"saved {note.id} ({note.scope}) → {note.path}")


@cli.command()
@click.argument("id")
@click.option("--unpin", is_flag=True, help="Clear the flag instead.")
@click.option("--scope", type=click.Choice(["project", "global"]), default=None)
@json_opt
@click.pass_context
def pin(ctx, id, unpin, scope, as_json):
    """Pin note ID (it never decays), or --unpin it."""
    note = open_store(ctx).pin(id, not unpin, scope=scope)
    emit(ctx, as_json, note.to_dict(), f"{'pinned' if note.pinned else 'unpinned'} {note.id} ({note.scope})")


@cli.command(name="log")
@click.argument("which", type=click.Choice(["skips", "injections"]))
@click.option("-n", "--limit", type=click.IntRange(1, 10_000), default=20, show_default=True)
@click.option("--session", default=None, help="skips: only this session.")
@json_opt
@click.pass_context
def log_cmd(ctx, which, limit, session, as_json):
    """Show the newest skipped captures (with the gate's reason) or injected <memory> blocks (with their hits)."""
    m = open_store(ctx)
    if which == "skips":
        rows = m.capture_skips(limit=limit, session=session)
        human = "\n".join(f"{r['ts']}  {r['reason']:<13} {r['role'] or '':<9} {r['session'] or '-'}  {r['preview']}" for r in rows)
    else:
        rows = m.injections(limit=limit)
        human = "\n".join(f"{r['ts']}  {r['host'] or '-'} {r['event'] or '-'} {r['session'] or '-'}  {len(r['block'])} chars  "
                          f"hits: {', '.join(r['hit_ids']) or '-'}" for r in rows)
    emit(ctx, as_json, rows, human or f"no {which} logged")


@cli.command()
@json_opt
@click.pass_context
def inspect(ctx, as_json):
    """List notes and check consistency (index.md, supersedes, unreadable files)."""
    rep = open_store(ctx).inspect()
    lines = []
    for scope, c in rep.counts.items():
        lines.append(f"{scope}: {c['notes']} notes ({c['superseded']} superseded), {c['events']} events, {c['tombstones']} tombstones — {c['path']}")
    for n in rep.notes:
        flag = f"  [superseded by {n.superseded_by}]" if n.superseded_by else ("  [pinned]" if n.pinned else "")
        lines.append(f"  {n.scope:7} {n.id}: {n.summary[:80]}{flag}")
    lines.append("problems: none" if rep.ok else f"problems ({len(rep.problems)}):")
    lines += [f"  {p['kind']}: {p['path']}: {p['detail']}" for p in rep.problems]
    emit(ctx, as_json, rep.to_dict(), "\n".join(lines))


@cli.command()
@click.option("--kind", "kinds", multiple=True, help="note, event, rule, decision, user, tool, … (repeatable).")
@click.option("-c", "--category", default=None, help="Only notes of this category.")
@click.option("--scope", type=click.Choice(["project", "global"]), default=None)
@click.option("-n", "--limit", type=click.IntRange(1, 500), default=20, show_default=True)
@json_opt
@click.pass_context
def recent(ctx, kinds, category, scope, limit, as_json):
    """List the newest memories (by kind or category), newest first."""
    hits = open_store(ctx).recent(kinds=kinds or None, category=category, scope=scope, limit=limit)
    lines = [f"{(h.ts.isoformat()[:16] if h.ts else ''):16} [{h.scope} {h.kind}] {h.id}: "
             f"{' '.join((h.summary or h.text or '').split())[:80]}" for h in hits]
    emit(ctx, as_json, [h.to_dict() for h in hits], "\n".join(lines) or "no memories yet")


@cli.command()
@json_opt
@click.pass_context
def status(ctx, as_json):
    """Counts, paths and index size per root."""
    st = open_store(ctx).status()
    lines = [f"project root: {st['project_root']}"]
    for scope in ("project", "global"):
        s = st[scope]
        if not s.get("exists"):
            lines.append(f"{scope}: {s['path']} (not created yet)")
        else:
            lines.append(f"{scope}: {s['path']}: {_n(s['notes'], 'note')}, {_n(s['events'], 'event')}, "
                         f"{_n(s.get('tombstones', 0), 'tombstone')}, index {s.get('index_bytes', 0) / 1e6:.1f} MB "
                         f"(schema v{s.get('schema_version')})")
            if s.get("unreadable_notes"):
                lines.append(f"  {_n(s['unreadable_notes'], 'note')} not readable as written (`memdir inspect` lists them)")
            if s.get("set_aside"):
                lines.append(f"  unreadable index set aside in .memdir/: {', '.join(s['set_aside'])} (its events are not "
                             "in the current index)")
            for key, val in s.items():
                if isinstance(val, dict):
                    lines.append(f"  {key}: " + ", ".join(f"{k}={v}" for k, v in val.items() if v is not None))
    def fmt(k, v):
        if isinstance(v, dict) and "set" in v and "env" in v:  # a secret: whether it is set and where, never its value
            return f"{k} {v['env']} " + (f"set ({v['source']})" if v["set"] else "not set")
        return f"{k}={v}"

    for key, val in st.items():
        if key not in ("project_root", "project", "global"):
            lines.append(f"{key}: " + (", ".join(fmt(k, v) for k, v in val.items() if v is not None) if isinstance(val, dict) else str(val)))
    emit(ctx, as_json, st, "\n".join(lines))


@cli.command()
@click.argument("prompt", nargs=-1)
@click.option("--max-chars", type=click.IntRange(0, 1_000_000), default=None,
              help="Block budget in characters (default 1200; 0 prints nothing).")
@click.option("--max-entries", type=click.IntRange(0, 100), default=None, help="Memories inlined (default 4; 0 prints nothing).")
@json_opt
@click.pass_context
def context(ctx, prompt, max_chars, max_entries, as_json):
    """Print the <memory> block for PROMPT (or stdin)."""
    p = _read_text(prompt, "prompt") if (prompt or not sys.stdin.isatty()) else ""
    block = open_store(ctx).context(p, max_chars=max_chars, max_entries=max_entries)
    emit(ctx, as_json, {"context": block, "chars": len(block)}, block)


@cli.command()
@json_opt
@click.pass_context
def reindex(ctx, as_json):
    """Rebuild the derived index from the Markdown and recompile index.md / ROOT.md."""
    out = open_store(ctx).reindex()
    emit(ctx, as_json, out, ", ".join(f"{k}: {v} notes indexed" for k, v in out.items()) or "nothing to index")


_to_store_opts = [
    click.option("--store", "store_url", metavar="URL", default=None,
                 help="A PostgreSQL team store (postgresql://…): move this project's events and tombstones instead of a file."),
    click.option("--project", "store_project", default=None, help="The project in --store (default: remote.project or the directory name)."),
]


def _with_store_opts(f):
    for opt in reversed(_to_store_opts):
        f = opt(f)
    return f


def _store_summary(out: dict, verb: str) -> str:
    return (f"{verb} project {out['project']}: {out['read']} events read, {out['stored']} stored, {out['duplicate']} already "
            f"there, {out['skipped']} tombstoned; {out['tombstones']} tombstones")


@cli.command()
@click.argument("path", type=click.Path(dir_okay=False), required=False)
@_with_store_opts
@json_opt
@click.pass_context
def export(ctx, path, store_url, store_project, as_json):
    """Write all notes, events and tombstones to PATH as JSONL (``-`` for stdout), or copy this project's events and tombstones
    into a team store (--store postgresql://…; notes stay in Git)."""
    m = open_store(ctx)
    if store_url:
        if path:
            raise UsageError("give PATH or --store, not both")
        out = m.export_store(store_url, project=store_project)
        emit(ctx, as_json, out, _store_summary(out, "exported to"))
        return
    if not path:
        raise UsageError("give a PATH (or - for stdout), or --store postgresql://…")
    if path == "-":
        import tempfile

        with tempfile.TemporaryDirectory() as tmp:
            out = m.export(Path(tmp) / "export.jsonl")
            sys.stdout.write((Path(tmp) / "export.jsonl").read_text(encoding="utf-8"))
        click.echo(f"exported {out['notes']} notes, {out['events']} events and {_n(out['tombstones'], 'tombstone')}", err=True)
        return
    parent = Path(path).expanduser().absolute().parent
    if not parent.is_dir():
        raise UsageError(f"directory {str(parent)!r} does not exist: create it first or export elsewhere")
    out = m.export(path)
    emit(ctx, as_json, out, f"exported {out['notes']} notes, {out['events']} events and {_n(out['tombstones'], 'tombstone')} to {path}")


@cli.command(name="import")
@click.argument("source", required=False)
@click.argument("path", required=False, type=click.Path())
@click.option("--all-projects", is_flag=True,
              help="Import each session into its own project (by the directory it was recorded in).")
@click.option("--here", is_flag=True, help="Import every session into this project, whatever its directory.")
@click.option("--pending", is_flag=True, help="Import the JSONL files dropped in <global root>/import/ and rename them .done-<time>.")
@click.option("--no-progress", is_flag=True, help="Hide the progress bar (it is only drawn on a terminal).")
@_with_store_opts
@json_opt
@click.pass_context
def import_(ctx, source, path, all_projects, here, pending, no_progress, store_url, store_project, as_json):
    """Import SOURCE: a JSONL file, claude-code | codex | opencode [PATH] (default locations when PATH is omitted),
    claude-mem [DB] (its SQLite store), --pending (files dropped in <global root>/import/), or a team store's
    events and tombstones (--store postgresql://…).

    Host sessions go to the project they were recorded in: without a flag only this project's sessions are
    imported; --all-projects imports each into its own project; --here imports all of them into this one."""
    m = open_store(ctx)
    if store_url:
        if source or pending:
            raise UsageError("--store takes no SOURCE or --pending: it imports the store's events of --project")
        out = m.import_store(store_url, project=store_project)
        emit(ctx, as_json, out, _store_summary(out, "imported from"))
        return
    if pending:
        if source:
            raise UsageError("--pending takes no SOURCE: it imports what waits in <global root>/import/")
        out = m.import_pending()
        human = "\n".join(f"{f['file']}: " + (f"error: {f['error']}" if "error" in f else
                           f"{f['stored']} stored, {f['duplicate']} duplicates, {f['skipped']} skipped, "
                           f"{f['skipped_over_max']} over import.max_items → "
                           + (f"left in place: {f['left_in_place']}" if "left_in_place" in f else f["done_as"]))
                           for f in out["files"])
        emit(ctx, as_json, out, "another import is running" if out["busy"] else (human or "nothing waiting in the import directory"))
        return
    if not source:
        raise UsageError("give a SOURCE (a JSONL file, claude-code, codex, opencode, claude-mem) or --pending")
    if source == "claude-mem":
        from memdir.portability.importers.claude_mem import import_claude_mem

        out = import_claude_mem(m, path)
        stats = out["tables"]
        emit(ctx, as_json, out, f"{out['stored']} stored, {out['duplicate']} duplicates, {out['skipped']} skipped "
                                 f"({', '.join(f'{k} {v}' for k, v in stats.items())}); undo: memdir forget --prefix import:claude-mem")
        return
    if source not in IMPORT_SOURCES or source == "jsonl":
        if source == "jsonl" and not path:
            raise UsageError("give the JSONL file: memdir import jsonl FILE")
        file = Path(path if source == "jsonl" else source)
        if not file.exists():
            raise UsageError(f"no such file {str(file)!r}: give a JSONL file or one of {', '.join(IMPORT_SOURCES[:3])}")
        out = m.import_jsonl(file)
        human = (f"{out['lines']} lines: {out['notes']} notes added ({out['notes_existing']} already there), "
                 f"{out['stored']} events stored ({out['duplicate']} duplicates, {out['skipped']} skipped), "
                 f"{out['bad_lines']} bad lines" + (f", {_n(out['tombstones'], 'tombstone')}" if out["tombstones"] else ""))
        host = _host_transcript(file) if out["skipped"] and not (out["stored"] or out["duplicate"] or out["notes"]) else None
        if host:  # every line skipped because it is a host transcript, not memdir's JSONL: say what to run
            out["hint"] = f"{file} is a {host} transcript: memdir import {host} {file} [--here]"
            human += f"\nhint: {out['hint']}"
        emit(ctx, as_json, out, human)
        return
    if all_projects and here:
        raise UsageError("--all-projects and --here exclude each other: choose one")
    from memdir.portability.transcripts import import_host, summary

    out = import_host(m, source, Path(path) if path else None,
                      projects="all" if all_projects else "here" if here else "current",
                      progress=not no_progress and not (as_json or ctx.find_root().obj.get("json")))
    human = summary(out)
    if path and not out["read"] and Path(path).is_file():  # nothing read: perhaps another host's transcript
        host = _host_transcript(Path(path))
        if host and host != source:
            out["hint"] = f"{path} is a {host} transcript: memdir import {host} {path} [--here]"
            human += f"\nhint: {out['hint']}"
    emit(ctx, as_json, out, human)


def _host_transcript(path: Path) -> str | None:
    """``claude-code`` or ``codex`` when the first lines of ``path`` have that host's transcript shape, else None."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            for _, line in zip(range(20), f):
                try:
                    obj = json.loads(line)
                except ValueError:
                    continue
                if not isinstance(obj, dict) or "text" in obj:
                    continue
                if "sessionId" in obj and obj.get("type") in ("user", "assistant", "system", "summary"):
                    return "claude-code"
                if obj.get("type") in ("session_meta", "response_item", "event_msg", "turn_context") and "payload" in obj:
                    return "codex"
    except OSError:
        return None
    return None


@cli.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind; non-loopback needs --token.")
@click.option("--port", type=click.IntRange(0, 65535), default=8766, show_default=True, help="0 = any free port.")
@click.option("--token", envvar="MEMDIR_TOKEN", default=None,
              help="Token the browser must present (required for a non-loopback host). Env: MEMDIR_TOKEN.")
@click.option("--no-browser", is_flag=True, help="Print the URL only; do not open a browser.")
@json_opt
@click.pass_context
def ui(ctx, host, port, token, no_browser, as_json):
    """Open the web viewer (search, notes, timeline, what the model saw, health) on 127.0.0.1."""
    from memdir.ui import missing_deps, serve

    if missing_deps():
        raise UsageError(f"`memdir ui` needs the ui extra (missing: {', '.join(missing_deps())}): pip install 'memdir[ui]'")
    m = open_store(ctx)

    def ready(info):
        emit(ctx, as_json, info, f"memdir: viewer at {info['url']} (Ctrl-C stops)")
        sys.stdout.flush()

    serve(get=lambda: m, host=host, port=port, token=token, open_browser=not no_browser, on_ready=ready,
          debug=bool(ctx.find_root().obj.get("debug")))


@cli.command()
@click.option("--session", help="Distil only this session (default: every session with new turns).")
@click.option("--since", help="Only turns at or after this time (ISO 8601, or epoch seconds).")
@click.option("--dry-run", is_flag=True, help="Ask the model and show what would be written; write nothing.")
@json_opt
@click.pass_context
def distill(ctx, session, since, dry_run, as_json):
    """Turn captured sessions into curated notes with a model (distill.provider); rules become proposals."""
    out = open_store(ctx).distill(session=session, since=since, dry_run=dry_run)
    lines = []
    for s in out["sessions"]:
        lines.append(f"session {s['session']}: {s['turns']} new turns, {s['status']}"
                     + (f" ({s['reason']})" if s.get("reason") else "") + (f", {_n(s['calls'], 'model call')}" if s.get("calls") else ""))
    verb = "would write" if dry_run else "wrote"
    for n in out["notes"]:
        lines.append(f"  {verb} {n['id'] or n['category'] + '/…'}: {n['summary'][:80]}" + (f" (supersedes {n['supersedes']})" if n.get("supersedes") else ""))
    for p in out["proposals"]:
        lines.append(f"  proposed rule {p['id']}: {p['summary'][:80]} (memdir proposals accept {p['id']})")
    for k in out["skipped"]:
        lines.append(f"  skipped: {k['summary'][:60]}: {k['reason']}")
    for r in out["rejected"]:
        lines.append(f"  rejected item {r['item'] if r['item'] is not None else '(reply)'}: {r['reason']}")
    for e in out["errors"]:
        lines.append(f"  error: {e['session']}: {e['reason']}")
    if not lines:
        lines.append("nothing to distill")
    emit(ctx, as_json, out, "\n".join(lines))
    if out["errors"]:  # a failed model call is an operational error (exit 1); its turns stay pending for the next run
        ctx.exit(1)


@cli.group(invoke_without_command=True)
@json_opt
@click.option("--all", "all_", is_flag=True, help="Include accepted and rejected proposals.")
@click.pass_context
def proposals(ctx, as_json, all_):
    """List rule proposals (rules a model suggested); `accept ID` writes the rule, `reject ID` drops it."""
    if ctx.invoked_subcommand is not None:
        return
    items = open_store(ctx).proposals(status=None if all_ else "pending")
    lines = [f"{p['id']} [{p['scope']} {p['status']}] {p.get('summary', '')[:90]}  (source {p.get('source')}"
             + (f", session {', '.join(map(str, p['sessions']))}" if p.get("sessions") else "") + ")" for p in items]
    emit(ctx, as_json, items, "\n".join(lines) or "no pending proposals")


@proposals.command("accept")
@click.argument("pid")
@json_opt
@click.pass_context
def proposals_accept(ctx, pid, as_json):
    """Write proposal PID as a rules note."""
    note = open_store(ctx).accept_proposal(pid)
    emit(ctx, as_json, note.to_dict(), f"accepted {pid} → {note.id} ({note.scope})")


@proposals.command("reject")
@click.argument("pid")
@json_opt
@click.pass_context
def proposals_reject(ctx, pid, as_json):
    """Reject proposal PID (kept as a record so it is not proposed again)."""
    p = open_store(ctx).reject_proposal(pid)
    emit(ctx, as_json, p, f"rejected {pid}")


@cli.command()
@click.option("--from", "from_path", type=click.Path(exists=True), default=None,
              help="A store to bring in: alice-memory data dir, memdir root / Markdown memory dir, or export .jsonl.")
@click.option("--scan", "scan_dir", type=click.Path(exists=True, file_okay=False), default=None,
              help="Find and migrate every store under this directory.")
@click.option("--dry-run", is_flag=True, help="Write nothing; say what would be done.")
@click.option("--purge", is_flag=True, help="Afterwards delete a migrated alice-memory directory holding only store files.")
@json_opt
@click.pass_context
def migrate(ctx, from_path, scan_dir, dry_run, purge, as_json):
    """Bring other memory stores into this project's memory (safe to re-run)."""
    out = open_store(ctx).migrate(from_path=from_path, scan=scan_dir, dry_run=dry_run, purge=purge)
    lines = []
    for s in out["sources"]:
        head = f"{s['path']} ({s['type']}{', ' + s['layout'] + ' layout' if s.get('layout') else ''})"
        if "error" in s:
            lines.append(f"{head}: error: {s['error']}")
            continue
        res = s.get("result") or s.get("found") or {}
        lines.append(f"{head}: " + (", ".join(f"{k} {v}" for k, v in res.items()) or "nothing to do"))
    lines += [f"purged {p}" for p in out["purged"]]
    lines += [f"not purged {r['path']}: {r['reason']}" for r in out["purge_refused"]]
    if not out["sources"]:
        lines.insert(0, f"no memory store found under {scan_dir}" if scan_dir else "no memory store found")
    if dry_run:
        lines.append("dry run: nothing was written")
    emit(ctx, as_json, out, "\n".join(lines))


@cli.command(name="config")
@json_opt
@click.pass_context
def config_cmd(ctx, as_json):
    """Print the effective settings and where each came from."""
    from memdir.config import safe_url

    cfg = open_store(ctx).config
    # a store or endpoint URL can carry a password (postgresql://u:pw@…, ?password=…): never print it
    items = [(k, safe_url(v) if isinstance(v, str) and "://" in v else v, s, d) for k, v, s, d in cfg.items()]
    data = {k: {"value": v, "source": s, "doc": d} for k, v, s, d in items}
    width = max(len(k) for k, *_ in items)
    lines = [f"{k:<{width}}  {json.dumps(v, ensure_ascii=False):<28} {s}" for k, v, s, _ in items]
    emit(ctx, as_json, data, "\n".join(lines))


def main(argv: list[str] | None = None) -> None:
    """Entry point: run the CLI, mapping errors to one line on stderr and exit codes 0/1/2."""
    args = list(argv if argv is not None else sys.argv[1:])
    opts = args[:args.index("--")] if "--" in args else args
    debug = "--debug" in opts
    as_json = "--json" in opts

    def fail(msg: str, code: int, prefix: str = "error") -> None:
        """One line on stderr (``--json``: one JSON object, ``{"error", "exit_code"}``), then exit ``code``."""
        if as_json:
            click.echo(json.dumps({"error": msg or prefix, "exit_code": code, **({"internal": True} if prefix == "internal error" else {})},
                                  ensure_ascii=False), err=True)
        else:
            click.echo(f"memdir: {prefix}: {msg}" if msg else f"memdir: {prefix}", err=True)
        sys.exit(code)

    logging.basicConfig(level=logging.WARNING, format="%(message)s", stream=sys.stderr)
    try:
        rv = cli.main(args=argv, prog_name="memdir", standalone_mode=False)
        if isinstance(rv, int) and rv:
            sys.exit(rv)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.ClickException as exc:  # click's own messages may span lines (a choice list): one line here
        fail(" ".join(x.strip() for x in exc.format_message().splitlines() if x.strip()), exc.exit_code)
    except click.exceptions.Abort:
        fail("", 130, "aborted")
    except MemdirError as exc:
        if debug:
            raise
        fail(str(exc).splitlines()[0] if str(exc) else type(exc).__name__, exc.exit_code)
    except KeyboardInterrupt:
        sys.exit(130)
    except OSError as exc:  # a file the user named cannot be read or written
        if debug:
            raise
        where = f": {exc.filename}" if getattr(exc, "filename", None) else ""
        fail(f"{exc.strerror or exc}{where}", 1)
    except BrokenPipeError:
        sys.exit(0)
    except sqlite3.DatabaseError as exc:
        if debug:
            raise
        msg = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        if isinstance(exc, sqlite3.OperationalError) or not any(w in msg for w in ("malformed", "not a database", "corrupt")):
            fail(f"{type(exc).__name__}: {msg[:200]} (rerun with --debug for details)", 1, "internal error")
        # found damaged after it opened (the open reads the schema only): say how to get a working index back
        # export reads the same damaged pages, so the advice keeps the file: its readable rows can be salvaged
        fail(f"the index is damaged ({msg}): stop memdir processes (memdir serve, hooks), then move "
             ".memory/.memdir/index.sqlite3 aside (rename it and its -wal/-shm; keep the copy: `sqlite3 COPY .recover` "
             "salvages its readable events): notes are rebuilt from the Markdown and forgotten items stay forgotten "
             "(.memdir/tombstones.jsonl); events come back from an earlier memdir export, the salvaged copy, or by "
             "importing the transcripts again", 1)
    except Exception as exc:  # noqa: BLE001 — the promise is "never a traceback"
        if debug:
            raise
        msg = str(exc).splitlines()[0] if str(exc) else ""
        fail(f"{type(exc).__name__}: {msg[:200]} (rerun with --debug for details)", 1, "internal error")


if __name__ == "__main__":
    main()
