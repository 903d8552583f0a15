"""Commands that move memory in and out: export, import (files, host transcripts, drop files, a team store),
migrate, distill and the rule proposals, the viewer and the settings list."""

from __future__ import annotations

import contextlib
import json
import sys
from pathlib import Path

import click

from memdir.cli.output import clip, emit, json_opt, open_store, plural
from memdir.config import PERSONAL
from memdir.errors import MemdirError, UsageError, install_hint, session_arg
from memdir.roots import expand_user
from memdir.stopsignals import stop_signals

IMPORT_SOURCES = ("claude-code", "codex", "opencode", "jsonl", "claude-export", "specstory", "aider", "dsh")


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
    return (f"{verb} project {out['project']}: {plural(out['read'], 'event')} read, {out['stored']} stored, {out['duplicate']} "
            f"already there, {out['skipped']} tombstoned; {plural(out['tombstones'], 'tombstone')}")


@click.command()
@click.argument("path", type=click.Path(dir_okay=False), required=False)
@click.option("--force", is_flag=True, help="Replace PATH even when it is not an earlier export.")
@_with_store_opts
@json_opt
@click.pass_context
def export(ctx, path, force, store_url, store_project, as_json):
    """Write all notes, events and tombstones to PATH as JSONL (``-`` for stdout), or copy this project's events and tombstones
    into a team store (--store postgresql://…; notes stay in Git). An existing PATH is replaced only when it is an
    earlier export (or empty), unless --force."""
    with stop_signals():  # a SIGTERM or SIGHUP mid-export as Ctrl-C: the partial copy is removed, the old file kept
        _export(ctx, path, force, store_url, store_project, as_json)


def _export(ctx, path, force, store_url, store_project, as_json):
    m = open_store(ctx)
    if store_url:
        if path:
            raise UsageError("give PATH or --store, not both")
        out = m.export_store(store_url, project=store_project)
        emit(ctx, as_json, out, _store_summary(out, "exported to"))
        return
    if not path:
        raise UsageError("give a PATH (or - for stdout), or --store postgresql://…")
    target = expand_user(path)  # the file checked is the file written
    if path == "-" or (target.exists() and not target.is_file() and not target.is_dir()):
        # stdout, or a pipe or device (/dev/stdout, `>(gzip > x.gz)`, a FIFO): written into, never read nor replaced
        from memdir.fileio import write_into

        out = write_into(None if path == "-" else target, m.export)
        click.echo(f"exported {plural(out['notes'], 'note')}, {plural(out['events'], 'event')} and {plural(out['tombstones'], 'tombstone')}"
                   + ("" if path == "-" else f" to {path}") + _page_note(m) + _left_note(out), err=True)
        return
    if target.is_symlink() and target.is_file():  # a link to a backup kept elsewhere: its target is written
        target = target.resolve()
    from memdir.portability.jsonl import check_folder, is_export

    check_folder(target)  # the same refusal as the API's
    if not force and target.exists():

        if not is_export(target):  # a hand-written ROOT.md, a README: never replaced by mistake
            raise UsageError(f"{path} exists and is not a memdir export: choose another file, or pass --force to replace it")
    out = m.export(target)
    emit(ctx, as_json, out, f"exported {plural(out['notes'], 'note')}, {plural(out['events'], 'event')} and {plural(out['tombstones'], 'tombstone')} "
                            f"to {path}" + _page_note(m) + _left_note(out))


def _left_note(out) -> str:
    n = out.get("notes_not_exported", 0)
    return f"; {plural(n, 'note file')} could not be read and {'is' if n == 1 else 'are'} not in it (see the " \
           "warnings; memdir inspect)" if n else ""


def _page_note(m) -> str:
    """What an export leaves out and how it travels: ROOT.md's hand-written goals and hard rules (the file itself)."""
    n = len(m.goals()) + len([r for r in m.rules() if r.category == "ROOT.md"])
    what = "goal or hard rule is" if n == 1 else "goals and hard rules are"
    return f"; ROOT.md's {n} {what} not in it: copy each root's ROOT.md with it" if n else ""


@click.command(name="import")
@click.argument("source", required=False)
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--all-projects", is_flag=True,
              help="Import each session into its own project (by the directory it was recorded in).")
@click.option("--here", is_flag=True, help="Import every session into this project, whatever its directory.")
@click.option("--pending", is_flag=True, help="Import the JSONL files dropped in <global root>/import/ and rename them .done-<time>.")
@click.option("--no-progress", is_flag=True, help="Hide the progress bar (it is only drawn on a terminal).")
@_with_store_opts
@json_opt
@click.pass_context
def import_(ctx, source, paths, all_projects, here, pending, no_progress, store_url, store_project, as_json):
    """Import SOURCE: a JSONL file, claude-code | codex | opencode | dsh [PATH…] (default locations when PATH is
    omitted; each PATH a session file or a directory of them), claude-export PATH… (Claude Code /export text),
    specstory | aider [PATH…] (default: this project's
    .specstory/history/ and .aider.chat.history.md), claude-mem [DB] (its SQLite store), --pending (files dropped in
    <global root>/import/), or a team store's events and tombstones (--store postgresql://…). Without SOURCE:
    the SpecStory and Aider histories this project holds.

    Host sessions go to the project they were recorded in: without a flag only this project's sessions are
    imported; --all-projects imports each into its own project; --here imports all of them into this one."""
    many = source in IMPORT_SOURCES and source != "jsonl"  # host sessions: a shell glob names several files
    if source and source not in IMPORT_SOURCES and source != "claude-mem" and paths and Path(source).is_file():
        # a file as SOURCE (`memdir import a.jsonl b.jsonl`) takes no PATH: the second file was ignored
        raise UsageError(f"memdir import takes one JSONL file, {len(paths) + 1} were given: run one import per file")
    if len(paths) > 1 and not many:
        raise UsageError(f"import {source} takes one PATH, {len(paths)} were given: run one import per file")
    path = (tuple(paths) if len(paths) > 1 else paths[0]) if paths else None
    m = open_store(ctx)
    with stop_signals():
        _import_run(ctx, m, source, path, all_projects, here, pending, no_progress, store_url, store_project, as_json)
    team_push(m)


def team_push(m) -> None:
    """After a long command (an import): send what the team-server queue holds within ``remote.timeout_s`` (the
    writes' own pushes have the hooks' short budget), and say on stderr what still waits and why."""
    if not m.config.get("remote.url"):
        return
    res = m.push()
    if res["left"]:
        why = f" ({res['error']})" if res["error"] else ""
        click.echo(f"memdir: {res['left']} row(s) wait for the team server{why}: run `memdir push`"
                   + (f"; fix: {res['fix']}" if res.get("fix") else ""), err=True)


def _import_run(ctx, m, source, path, all_projects, here, pending, no_progress, store_url, store_project, as_json):
    """The body of ``memdir import`` (its docstring is the contract)."""
    show_progress = not no_progress and not (as_json or ctx.find_root().obj.get("json"))
    if store_url:
        if source or pending:
            raise UsageError("--store takes no SOURCE or --pending: it imports the store's events of --project")
        with events_bar(show_progress, "import store"):
            out = m.import_store(store_url, project=store_project)
        emit(ctx, as_json, out, _store_summary(out, "imported from"))
        return
    if pending:
        if source:
            raise UsageError("--pending takes no SOURCE: it imports what waits in <global root>/import/")
        with events_bar(show_progress, "import pending"):
            out = m.import_pending()
        human = "\n".join(f"{f['file']}: " + (f"error: {f['error']}" if "error" in f else
                           f"{f['stored']} stored, {plural(f['duplicate'], 'duplicate')}, {f['skipped']} skipped, "
                           f"{f['skipped_over_max']} over import.max_items"
                           + (f", {plural(f['bad_lines'], 'bad line')} (not a JSON object, or no text / body / content)"
                              if f.get("bad_lines") else "") + " → "
                           + (f"left in place: {f['left_in_place']}" if "left_in_place" in f else f["done_as"]))
                           for f in out["files"])
        emit(ctx, as_json, out, "another import is running" if out["busy"] else (human or f"nothing waiting in {out.get('dir') or 'the import directory'}"))
        return
    projects = "all" if all_projects else "here" if here else "current"
    if all_projects and here and (not source or source in IMPORT_SOURCES):
        raise UsageError("--all-projects and --here exclude each other: choose one")
    if not source:
        _import_found(ctx, m, as_json, projects, show_progress)
        return
    if source == "claude-mem":
        from memdir.portability.importers.claude_mem import import_claude_mem

        if all_projects and here:
            raise UsageError("--all-projects and --here exclude each other: choose one")
        with events_bar(show_progress, "import claude-mem"):
            out = import_claude_mem(m, path, projects="all" if all_projects else "here" if here else "current")
        stats = out["tables"]
        human = (f"{out['stored']} stored, {plural(out['duplicate'], 'duplicate')}, {out['skipped']} skipped "
                 f"({', '.join(f'{k} {v}' for k, v in stats.items())}); undo: memdir forget --prefix import:claude-mem")
        if out["persona_notes"]:
            human += (f"\npersona: {plural(out['notes'], 'global note')} written, {out['notes_existing']} already there; "
                      "undo: memdir forget --source claude-mem")
        others = [n for n, why in out["other_projects"].items() if why == "other_project"]
        if others and not all_projects:
            human += (f"\nrows of other projects not imported ({', '.join(others[:3])}{' …' if len(others) > 3 else ''}): "
                      "run inside that project, or use --all-projects (or --here to import them into this one)")
        elif out["other_projects"]:
            human += f"\nrows whose project was not found not imported: {', '.join(list(out['other_projects'])[:3])}"
        if len(out["projects"]) > 1:
            human += "\nstored per project: " + ", ".join(f"{p} {n}" for p, n in out["projects"].items())
        emit(ctx, as_json, out, human)
        return
    if source not in IMPORT_SOURCES or source == "jsonl":
        if source == "jsonl" and not path:
            raise UsageError("give the JSONL file: memdir import jsonl FILE")
        file = Path(path if source == "jsonl" else source)
        sources = ", ".join(x for x in (*IMPORT_SOURCES, "claude-mem") if x != "jsonl")
        if file.is_dir():
            raise UsageError(f"{str(file)!r} is a directory: give a JSONL file, or a source ({sources}) with the "
                             "directory as PATH")
        if not file.exists():
            import difflib

            # a mistyped source (``clade-code``) more likely than a missing file when it has no path or extension
            names, typed = [x for x in (*IMPORT_SOURCES, "claude-mem") if x != "jsonl"], str(file).lower()
            guess = ([x for x in names if x.startswith(typed)] or difflib.get_close_matches(typed, names, 1, 0.75)) \
                if not any(c in str(file) for c in "/\\.") and len(typed) >= 3 else []
            if guess:  # `claude` could be either of two: both are named
                said = " or ".join(f"`memdir import {x}`" for x in guess)
                raise UsageError(f"no source or file named {str(file)!r}: did you mean {said}?")
            raise UsageError(f"no such file {str(file)!r}: give a JSONL file or a source ({sources})")
        with events_bar(show_progress, f"import {file.name}"):
            out = m.import_jsonl(file)
        forgot = f", {out['notes_forgotten']} forgotten earlier" if out.get("notes_forgotten") else ""
        human = (f"{plural(out['lines'], 'line')}: {plural(out['notes'], 'note')} added ({out['notes_existing']} already "
                 f"there{forgot}), {plural(out['stored'], 'event')} stored ({plural(out['duplicate'], 'duplicate')}, "
                 f"{out['skipped']} skipped), {plural(out['bad_lines'], 'bad line')}"
                 + (f", {plural(out['tombstones'], 'tombstone')}" if out["tombstones"] else ""))
        nothing = not (out["stored"] or out["duplicate"] or out["notes"])
        host = _host_transcript(file) if nothing and (out["skipped"] or out["bad_lines"]) else None
        if host:  # every line skipped because it is a host transcript, not memdir's JSONL: say what to run
            out["hint"] = f"{file} is a {host} transcript: memdir import {host} {file} [--here]"
            human += f"\nhint: {out['hint']}"
        emit(ctx, as_json, out, human)
        if not export_landed(out):  # nothing stored and nothing already there: exit 1 (a script must not read it as success)
            bad = out["bad_lines"]
            bad_said = (f"{plural(bad, 'line')} {'is not a memdir record' if bad == 1 else 'are not memdir records'} "
                        "(the warnings above say why)")
            why = ("the file is empty" if not out["lines"] else bad_said if bad == out["lines"] else
                   "no line is a memdir record it could store (forgotten earlier, or not memdir's JSONL)")
            raise MemdirError(f"nothing imported from {file}: {why}"
                              + (f"; {out['hint']}" if host else "; memdir export writes this format, host sessions "
                                 "import with memdir import claude-code FILE (or codex, …)"))
        return
    if source == "claude-export" and not path:
        raise UsageError("give the exported file or a directory of them: memdir import claude-export FILE")
    from memdir.portability.transcripts import import_host, summary

    several = isinstance(path, tuple)
    out = import_host(m, source, [Path(p) for p in path] if several else Path(path) if path else None,
                      projects=projects, progress=show_progress)
    human = summary(out)
    if several:
        path = " ".join(path)  # named in the lines below as the user gave them
    elif path and not out["read"] and Path(path).is_file():  # nothing read: perhaps another host's transcript
        host = _host_transcript(Path(path))
        if host and host != source:
            out["hint"] = f"{path} is a {host} transcript: memdir import {host} {path} [--here]"
    sessions = out["sessions"]
    elsewhere = sessions["other_project"] or sessions["cwd_missing"] or sessions["no_cwd"]
    if path and not out["read"] and not elsewhere:  # the hint goes with the error line below, said once
        human = human.split("\n")[0]
    emit(ctx, as_json, out, human)
    # a PATH named and nothing of it imported: exit 1 (a script must not read it as success), saying why
    if path and not (out["stored"] or out["duplicate"] or out["read"]) and elsewhere:
        raise MemdirError("nothing imported: its sessions were recorded in other projects or in no directory "
                          + ("(--here imports them into this project)" if all_projects
                             else "(see the import's summary: --here or --all-projects)"))
    if path and not out["read"]:
        raise MemdirError(f"nothing imported: no {source} events found in {path}"
                          + (f"; {out['hint']}" if out.get("hint") else f" (check that it holds {source} sessions)"))


@contextlib.contextmanager
def events_bar(show: bool, desc: str):
    """A tqdm bar (events, rate, ETA) on stderr that every ``import_events`` batch advances
    (:data:`memdir.engine.events.progress_bar`) while the block runs; nothing when ``show`` is false or stderr is
    not a terminal."""
    stream = sys.stderr
    if not show or not getattr(stream, "isatty", lambda: False)():
        yield None
        return
    from tqdm import tqdm

    from memdir.engine import events as event_ops

    bar = tqdm(total=None, unit="ev", desc=desc, leave=False, file=stream, dynamic_ncols=True, mininterval=0.2)
    token = event_ops.progress_bar.set(bar)
    try:
        yield bar
    finally:
        event_ops.progress_bar.reset(token)
        bar.close()


def _import_found(ctx, m, as_json: bool, projects: str, progress: bool) -> None:
    """``memdir import`` without SOURCE: import the SpecStory and Aider histories the project holds, saying what was
    found; a usage error naming where it looked when there are none."""
    from memdir.portability.importers.discover import default_locations, project_transcripts
    from memdir.portability.transcripts import import_host, summary

    root = Path(m.project_root)
    found = project_transcripts(root)
    if not found:
        where = ", ".join(str(p) for h in ("specstory", "aider") for p in default_locations(h, project=root))
        raise UsageError("give a SOURCE (a JSONL file, claude-code, codex, opencode, dsh, claude-export, specstory, aider, "
                         f"claude-mem) or --pending: this project holds no transcripts ({where} not found)")
    out: dict = {"found": {h: [str(f) for f in files] for h, files in found.items()}, "imports": {}}
    human = []
    for host, files in found.items():
        res = import_host(m, host, root, projects=projects, progress=progress)
        out["imports"][host] = res
        where = ".specstory/history/" if host == "specstory" else ".aider.chat.history.md"
        human.append(f"{host}: found {plural(len(files), 'file')} in {root / where}\n{summary(res)}")
    emit(ctx, as_json, out, "\n".join(human))


def _host_transcript(path: Path) -> str | None:
    """The transcript source whose shape the first lines of ``path`` have (``claude-code``, ``codex``, or the text
    formats ``claude-export``, ``specstory``, ``aider``), else None."""
    prompt = reply = False  # an export whose header was cut off: a "> " prompt and a "● " reply at column 0
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            for n, line in zip(range(200), f):
                prompt = prompt or line.startswith("> ")
                reply = reply or line.startswith(("● ", "⏺ "))
                if prompt and reply:
                    return "claude-export"
                if n >= 20:
                    continue
                if "Claude Code v" in line and line.lstrip()[:1] in ("╭", "▐", "*", "│"):
                    return "claude-export"
                if line.startswith(("<!-- Generated by SpecStory", "## SpecStory")):
                    return "specstory"
                if line.startswith("# aider chat started at "):
                    return "aider"
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


@click.command()
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
        raise UsageError(f"`memdir ui` needs the ui extra (missing: {', '.join(missing_deps())}): {install_hint('ui')}")
    m = open_store(ctx)

    def ready(info):
        emit(ctx, as_json, info, f"memdir: viewer at {info['url']} (Ctrl-C stops)")
        sys.stdout.flush()

    serve(get=lambda: m, host=host, port=port, token=token, open_browser=not no_browser, on_ready=ready,
          debug=bool(ctx.find_root().obj.get("debug")))


#: rejected items of a distillation listed one per line; the rest are counted
REJECTED_SHOWN = 10


@click.command()
@click.option("--session", help="Distil only this session (default: every session with new turns).")
@click.option("--since", help="Only turns at or after this time (ISO 8601, or epoch seconds).")
@click.option("--dry-run", is_flag=True, help="Ask the model and show what would be written; write nothing.")
@json_opt
@click.pass_context
def distill(ctx, session, since, dry_run, as_json):
    """Turn captured sessions into curated notes with a model (distill.provider); rules become proposals."""
    m = open_store(ctx)
    if session_arg(session, "--session") and not m.session_events(session, limit=1):  # a mistyped id read as "0 new turns, skipped"
        from memdir.errors import NotFound

        raise NotFound(f"no captured session {session!r}: the viewer's Timeline (memdir ui) lists the sessions")
    with stop_signals():  # a SIGTERM stops it as Ctrl-C does: what was written stays, one line says how far
        out = m.distill(session=session, since=since, dry_run=dry_run)
    lines = []
    for s in out["sessions"]:
        lines.append(f"session {s['session']}: {s['turns']} new turn{'' if s['turns'] == 1 else 's'}, {s['status']}"
                     + (f" ({s['reason']})" if s.get("reason") else "") + (f", {plural(s['calls'], 'model call')}" if s.get("calls") else ""))
    verb = "would write" if dry_run else "wrote"
    for n in out["notes"]:
        lines.append(f"  {verb} {n['id'] or n['category'] + '/…'}: {clip(n['summary'], 80)}" + (f" (supersedes {n['supersedes']})" if n.get("supersedes") else ""))
    for p in out["proposals"]:  # an accept command only for a proposal that is on disk (never a dry run's)
        if p.get("id") and p.get("exists", p.get("created")):
            lines.append(f"  {'proposed' if p.get('created') else 'already proposed'} {_proposal_kind(p)} {p['id']}: "
                         f"{clip(p['summary'], 80)}{_replaces(p)} (memdir proposals accept {p['id']})")
        else:
            lines.append(f"  would propose {_proposal_kind(p, True)}: {clip(p['summary'], 80)}{_replaces(p)} (run without --dry-run "
                         "to write the proposal)")
    for k in out["skipped"]:
        lines.append(f"  skipped: {clip(k['summary'], 60)}: {k['reason']}")
    for r in out["rejected"][:REJECTED_SHOWN]:  # a reply of 100,000 items: ten lines and a count, not 100,000
        lines.append(f"  rejected item {r['item'] if r['item'] is not None else '(reply)'}: {r['reason']}")
    if len(out["rejected"]) > REJECTED_SHOWN:
        lines.append(f"  … {len(out['rejected']) - REJECTED_SHOWN:,} more items rejected (--json lists them all)")
    for e in out["errors"]:
        lines.append(f"  error: {e['session']}: {e['reason']}")
    if not lines:
        lines.append("nothing to distill")
    emit(ctx, as_json, out, "\n".join(lines))
    if out["errors"]:  # a failed call or a reply that is not JSON: exit 1, one error line; its turns stay pending
        from memdir.errors import MemdirError

        first, more = out["errors"][0], len(out["errors"]) - 1
        raise MemdirError(f"distill: session {first['session']}: {first['reason']}"
                          + (f" (and {more} more)" if more else "") + "; run memdir distill again to retry")


@click.group(invoke_without_command=True)
@json_opt
@click.option("--all", "all_", is_flag=True, help="Include accepted and rejected proposals.")
@click.pass_context
def proposals(ctx, as_json, all_):
    """List rule proposals (rules a model suggested); `accept ID` writes the rule, `reject ID` drops it."""
    if ctx.invoked_subcommand is not None:
        return
    items = open_store(ctx).proposals(status=None if all_ else "pending")
    lines = [f"{p['id']} [{p['scope']} {p['status']}] {_proposal_kind(p)}: {clip(p.get('summary') or '', 90)}{_replaces(p)}"
             f"  (source {p.get('source')}" + (f", session {', '.join(map(str, p['sessions']))}" if p.get("sessions") else "")
             + ")" for p in items]
    emit(ctx, as_json, items, "\n".join(lines) or "no pending proposals")


def _proposal_kind(p: dict, article: bool = False) -> str:
    """What a proposal would write: a rule, or a note of its category (a replacement of a pinned note)."""
    cat = p.get("category") or "rules"
    what = "rule" if cat == "rules" else f"{cat} note"
    return f"{'an' if what[0] in 'aeiou' else 'a'} {what}" if article else what


def _replaces(p: dict) -> str:
    """`` (replaces X)`` for a proposal that supersedes a rule or a pinned note: what accepting it takes out."""
    return f" (replaces {p['supersedes']})" if p.get("supersedes") else ""


@proposals.command("accept")
@click.argument("pid")
@json_opt
@click.pass_context
def proposals_accept(ctx, pid, as_json):
    """Write proposal PID as a rules note."""
    note = open_store(ctx).accept_proposal(pid)
    emit(ctx, as_json, note.to_dict(), f"accepted {pid} → {note.id} ({note.scope})"
         + (f"; {note.supersedes} is superseded by it" if note.supersedes else ""))


@proposals.command("reject")
@click.argument("pid")
@json_opt
@click.pass_context
def proposals_reject(ctx, pid, as_json):
    """Reject proposal PID (kept as a record so it is not proposed again)."""
    p = open_store(ctx).reject_proposal(pid)
    emit(ctx, as_json, p, f"rejected {pid}")


def export_landed(out: dict) -> bool:
    """True when importing an export (:meth:`memdir.Memdir.import_jsonl`'s counts ``out``) stored something or found
    it there already; a re-run after a forget counts: its notes were handled, as "already there"."""
    return bool(out["stored"] or out["duplicate"] or out["notes"] or out["notes_existing"] or out["tombstones"]
                or out.get("notes_forgotten"))


@click.command()
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
    # a store that could not be read, an export none of whose lines is a record, or memories left behind (`failed N`):
    # exit 1, so a script does not read it as done
    failed = [s for s in out["sources"] if "error" in s or (not dry_run and (r := s.get("result") or {}) and (
        r.get("failed") or s.get("type") == "export" and r.get("lines") and not export_landed(r)))]
    if failed:
        raise MemdirError(f"{len(failed)} of {plural(len(out['sources']), 'store')} not migrated whole (the lines above "
                          "say why: `failed N` memories did not come over; check an export's lines with memdir import FILE)")


@click.command(name="config")
@click.argument("words", nargs=-1, metavar="[KEY]")
@json_opt
@click.pass_context
def config_cmd(ctx, words, as_json):
    """Print the effective settings and where each came from (KEY, or a section such as `inject`: only those).
    Settings are written in config.toml or MEMDIR_* variables, not by this command."""
    import difflib
    import re

    from memdir.capture.events import redact_obj
    from memdir.urlmask import safe_url

    key, rest = (words[0], words[1:]) if words else (None, ())
    if key in ("get", "show") and rest:  # `config get KEY`, as other tools spell it: the same as `config KEY`
        key, rest = rest[0], rest[1:]
    m = open_store(ctx)
    cfg = m.config
    names = [k for k, *_ in cfg.items()]
    if key == "unset":  # other tools unset a key this way: a key left out of config.toml has its default
        name = rest[0] if rest else "KEY"
        raise UsageError(f"memdir config does not write settings: remove the `{name.rpartition('.')[2]}` line from "
                         f"config.toml (in {m.roots['project'].path} or the global root) and unset "
                         f"{'MEMDIR_' + name.upper().replace('.', '_')}: the key then has its default")
    if key == "set":  # other tools set a key this way: say where memdir's settings go
        name, value = (rest[0] if rest else "KEY"), (" ".join(rest[1:]) or "VALUE")
        section, _, leaf = name.rpartition(".")
        # a setting a project's config.toml may not set (config.PERSONAL) goes into the user's own, the global one
        where = (m.config.home if name in PERSONAL and m.config.home else m.roots["project"].path) / "config.toml"
        plain = re.fullmatch(r'-?\d+(\.\d+)?|true|false|\[.*\]|".*"|VALUE', value)  # else a TOML string, quoted
        raise UsageError(f"memdir config does not write settings: put `{leaf} = {value if plain else json.dumps(value)}` "
                         + (f"under `[{section}]` " if section else "") + f"in {where}"
                         + ("" if name in PERSONAL else " (or the global root's config.toml)")
                         + f", or set {'MEMDIR_' + name.upper().replace('.', '_')}={value} in the environment")
    if key is not None and key not in names:
        key, rest = _known_spelling(key, tuple(rest), names)
    if rest:
        raise UsageError(f"memdir config takes one KEY or section, not {len(rest) + 1} words: memdir config {key}")
    if key is not None:
        picked = [k for k in names if k == key or k.startswith(key + ".")]
        if not picked:
            sections = sorted({k.split(".", 1)[0] for k in names})  # `recal` means the section, not recall.k
            close = difflib.get_close_matches(key.lower(), sections if "." not in key else names, 1, 0.6) or \
                difflib.get_close_matches(key.lower(), names, 1, 0.6)  # INJECT.MAX_CHAR: a typo in capitals too
            raise UsageError(f"unknown config key {key!r}" + (f": did you mean {close[0]!r}?" if close else "")
                             + " (`memdir config` lists every key)")
    # a store or endpoint URL can carry a password (postgresql://u:pw@…, ?password=…): never print it; nor a key
    # written where a setting's value goes (embed.api_key_env = "sk-…" instead of the variable's name)
    items = [(k, redact_obj(safe_url(v) if isinstance(v, str) and "://" in v else v), s, d) for k, v, s, d in cfg.items()
             if key is None or k in picked]
    data = {k: {"value": v, "source": s, "doc": d} for k, v, s, d in items}
    width = max(len(k) for k, *_ in items)
    shown = [json.dumps(v, ensure_ascii=False) for _, v, _, _ in items]
    vwidth = max((len(t) for t in shown if len(t) <= 40), default=0)  # a longer value (categories) keeps 2 spaces
    lines = [f"{k:<{width}}  {t:<{vwidth}}  {s}" for (k, _, s, _), t in zip(items, shown)]
    emit(ctx, as_json, data, "\n".join(lines))


def _known_spelling(key: str, rest: tuple[str, ...], names: list[str]) -> tuple[str, tuple[str, ...]]:
    """``(key, rest)`` with a setting written another way taken as its name: in upper case (``INJECT.MAX_CHARS``),
    as its environment variable (``MEMDIR_INJECT_MAX_CHARS``) or as section and leaf in two words (``inject
    max_chars``); anything else is given back as it came (the caller says it is unknown, with the nearest key)."""
    by_var = {"MEMDIR_" + n.replace(".", "_").upper(): n for n in names}
    sections = {n.split(".", 1)[0] for n in names}
    for cand, left in ((".".join((key, *rest[:1])), rest[1:]), (key, rest)):
        low = cand.strip().lower()
        if low in names or low in sections:
            return low, left
        var = cand.strip().upper()
        var = var if var.startswith("MEMDIR_") else "MEMDIR_" + var
        if var in by_var:
            return by_var[var], left
    return key, rest
