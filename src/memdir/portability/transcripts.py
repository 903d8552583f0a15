"""`memdir import claude-code|codex|opencode|claude-export|specstory|aider [PATH]`: host transcripts → gated, deduplicated events, each session
in the project it was recorded in.

Parsing is in :mod:`memdir.portability.importers`. Every event goes through :func:`memdir.capture.gates.gate`, the same "should this
be stored" function the host hooks call (so ``Read``/``Grep``/``Glob`` dumps, ``continue`` prompts and host-injected
text are dropped on import exactly as they are live), and what passes is stored with :meth:`Memdir.import_events`
(keys are deterministic, so re-importing a grown file stores only the new turns).

**Which project a session belongs to** (case C23): the ``cwd`` the transcript recorded for it (Claude Code line
``cwd``, Codex ``session_meta``/``turn_context``, OpenCode ``session.directory``, the ``/export`` header's directory,
the project holding a ``.specstory/history/`` file or a ``.aider.chat.history.md``), mapped to a project root by
:func:`memdir.roots.project_root`, the rule :func:`memdir.open` uses. ``projects`` chooses what happens:

* ``"current"`` (the CLI default): only sessions of ``m``'s project are imported; others are skipped and counted
  (``other_project``), never mixed in;
* ``"all"`` (``--all-projects``): each session is imported into its own project's root (opened with ``m``'s
  home, config overrides and clock);
* ``"here"`` (``--here``): every session into ``m``'s project, whatever its directory (transcripts copied from
  another machine; the caller says so explicitly).

In ``"current"`` and ``"all"``, a session whose directory no longer exists (unless it lay in a project that still
does: :func:`memdir.roots.surviving_project`, as for a hook) or is no absolute path here (a relative or a Windows
path) is skipped (``cwd_missing``, its directory listed in ``missing_dirs``) and one that recorded no directory is
skipped (``no_cwd``). A Claude Code or
Codex file holds one session: its first lines say where it goes, and a skipped one is not read at all.

Ctrl-C: events go in batches of :data:`BATCH` (each committed by :meth:`Memdir.import_events`, itself in short
batches), so an interrupted import keeps what it committed and raises :class:`memdir.errors.Interrupted` (how far it
got); the same command again stores only the rest (keys are deterministic).

Progress: one bar that advances per record read (not per file), drawn only when ``progress`` is true and stderr
is a terminal (the CLI turns it off for ``--json``), on stderr, never on stdout.
"""

from __future__ import annotations

import os
import sys
from collections import Counter
from pathlib import Path
from typing import Any, TextIO

from memdir.capture.gates import gate
from memdir.errors import NotFound, UsageError
from memdir.portability.routing import close_all, open_like
from memdir.roots import project_root, surviving_project
from memdir.samedir import same_dir
from memdir.stopsignals import STOPS, stopped

BATCH = 500
PROJECT_MODES = ("current", "all", "here")
ROLES = ("user", "assistant", "tool")
_ONE_SESSION_PER_FILE = frozenset({"claude-code", "codex", "claude-export", "specstory"})


class _Router:
    """Per-session decision: the Memdir to store into, or the reason to skip (``other_project``, ``cwd_missing``,
    ``no_cwd``). Opens other projects' stores on demand (``"all"``) and closes them at the end."""

    def __init__(self, m, mode: str):
        self.m, self.mode = m, mode
        self.here = os.path.realpath(m.project_root)
        self.decided: dict[str, Any] = {}
        self.opened: dict[str, Any] = {}
        self.sessions: Counter = Counter()
        self.missing: set[str] = set()
        self.others: set[str] = set()

    def target(self, ev: dict) -> tuple[Any, str | None]:
        session = str(ev.get("session") or "")
        if session in self.decided:
            return self.decided[session]
        decision = self._decide(ev)
        self.decided[session] = decision
        self.sessions["imported" if decision[1] is None else decision[1]] += 1
        return decision

    def _decide(self, ev: dict) -> tuple[Any, str | None]:
        if self.mode == "here":
            return self.m, None
        meta = ev.get("meta") if isinstance(ev.get("meta"), dict) else {}
        cwd = meta.get("cwd") or ev.get("cwd")
        if not cwd or not isinstance(cwd, str):
            return None, "no_cwd"
        # a relative (or another system's) path names no directory here: never read from where the import runs
        where = cwd if os.path.isabs(cwd) and os.path.isdir(cwd) else None
        if where is None and os.path.isabs(cwd):  # removed since (`make clean`): its project takes it, as a hook's
            where = surviving_project(cwd, home=self.m.home)
        if where is None:
            self.missing.add(str(cwd))
            return None, "cwd_missing"
        root = project_root(where, home=self.m.home)
        if same_dir(root, self.here):  # one folder under two spellings on macOS (case, NFD) is this project
            return self.m, None
        if self.mode == "current":
            self.others.add(str(root))
            return None, "other_project"
        return open_like(self.m, root, self.opened), None

    def close(self) -> None:
        close_all(self.opened)


def _count_lines(files: list[Path]) -> list[int] | None:
    """Newline count of each JSONL file (the progress bar's total), or ``None`` for a database/directory."""
    sizes = []
    for f in files:
        if not f.is_file() or f.suffix != ".jsonl":
            return None
        n = 0
        with open(f, "rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                n += chunk.count(b"\n")
        sizes.append(n)
    return sizes


def _bar(source: str, files: list[Path], stream: TextIO | None):
    """A tqdm bar over the records (lines) of ``files``; ``bar.sizes`` holds each file's line count or is None."""
    from tqdm import tqdm

    sizes = _count_lines(files)
    bar = tqdm(total=sum(sizes) if sizes is not None else None, unit="rec", desc=f"import {source}", leave=False,
               file=stream, dynamic_ncols=True, mininterval=0.2)
    bar.sizes = sizes
    return bar


def import_host(m, source: str, path: Path | str | list[Path | str] | None = None, *, projects: str = "current",
                progress: bool = True, stream: TextIO | None = None) -> dict[str, Any]:
    """Import every transcript of ``source`` (``claude-code``, ``codex``, ``opencode``, ``jsonl``, ``claude-export``,
    ``specstory``, ``aider``) under ``path`` (a file or directory, or a list of them; the host's default locations
    when ``None``; for ``specstory`` and
    ``aider`` those are in ``m``'s project) into the project each session belongs to (see the module
    docstring for ``projects``: ``"current"``, ``"all"`` or ``"here"``).

    ``progress``: draw a per-record bar on ``stream`` (default ``sys.stderr``) when that stream is a terminal.
    Returns ``{"files", "read", "stored", "duplicate", "skipped", "read_by_role": {user, assistant, tool},
    "kept_by_role": {…} (passed the gates; stored unless a duplicate), "skipped_by": {reason: events},
    "parser_skipped": {reason: n}, "sessions": {"imported", "other_project", "cwd_missing", "no_cwd"},
    "missing_dirs": [...], "other_projects": [...], "projects": {root: stored}, "lines", "bad_lines"}``.
    ``skipped_by`` counts the events the capture gate dropped, by gate (``noisy_tool``, ``trivial`` …;
    ``store_refused`` for forgotten texts); ``parser_skipped`` the transcript parts that never became events
    (``thinking``, ``progress`` lines, ``tool_result_only`` …). Sessions not imported are counted in
    ``sessions``; their events are not counted as read. Raises ``NotFound`` when there is nothing to import at
    that path, ``UsageError`` for an unknown source or mode.
    """
    from memdir.portability.importers import iter_events, peek_session, resolve_paths

    if projects not in PROJECT_MODES:
        raise UsageError(f"unknown projects mode {projects!r}: use one of {', '.join(PROJECT_MODES)}")
    if isinstance(path, (list, tuple)):  # several files or directories (a shell glob): each must hold some
        files, seen = [], set()
        for one in path:
            got = resolve_paths(source, one, project=Path(m.project_root))
            if not got:
                raise NotFound(f"no {source} transcripts found in {one}: it holds no {source} session files; "
                               "nothing was imported")
            for f in got:  # a file named twice (absolute and relative, or inside a directory also named) once
                key = Path(f).resolve()
                if key not in seen:
                    seen.add(key)
                    files.append(f)
    else:
        files = resolve_paths(source, path, project=Path(m.project_root))
    if not files:
        if path:
            where = str(path)
        else:
            from memdir.portability.importers.discover import default_locations

            where = " or ".join(str(p) for p in default_locations(source, project=Path(m.project_root))) \
                or "the default locations"
        raise NotFound(f"no {source} transcripts found in {where}: " + (
            f"it holds no {source} session files; pass a transcript file, or the directory that holds them" if path
            else "pass the path explicitly"))
    stream = sys.stderr if stream is None else stream
    bar = _bar(source, files, stream) if progress and getattr(stream, "isatty", lambda: False)() else None
    router = _Router(m, "here" if source == "jsonl" else projects)
    parsed: Counter = Counter()
    gated: Counter = Counter()
    totals: Counter = Counter()
    read_by_role: Counter = Counter()
    kept_by_role: Counter = Counter()
    per_project: Counter = Counter()
    pending: dict[int, tuple[Any, list[dict]]] = {}
    dropped: dict[int, tuple[Any, list[dict]]] = {}  # gated events, for the skip log (the timeline, `memdir log skips`)

    def flush(target) -> None:
        batch = pending.pop(id(target), (target, []))[1]
        if batch:
            c = target.import_events(batch)  # one batch in transcript order: neighbours are linked by (ts, id)
            totals.update(c)
            per_project[str(target.project_root)] += c.get("stored", 0)
        gone = dropped.pop(id(target), (target, []))[1]
        if gone:  # after the batch, which creates a new project's root
            target.log_skips(gone)

    done = 0  # records the bar has shown
    i = 0
    try:
        for i, file in enumerate(files):
            totals["files"] += 1
            seen = parsed["lines"] + parsed["parts"]
            if source in _ONE_SESSION_PER_FILE and router.mode != "here":
                session, cwd = peek_session(source, file)
                if session and cwd and router.target({"session": session, "meta": {"cwd": cwd}})[1]:
                    events = iter(())  # another project's (or a gone directory's) session: not read at all
                else:
                    events = iter_events(source, file, stats=parsed)
            else:
                events = iter_events(source, file, stats=parsed)
            try:
                for ev in events:
                    if bar is not None:
                        now = parsed["lines"] + parsed["parts"]
                        bar.update(now - seen)
                        done += now - seen
                        seen = now
                    target, why = router.target(ev)
                    if why:  # counted per session (router.sessions), not per event
                        if source in _ONE_SESSION_PER_FILE:
                            break  # one session per file: the rest of it belongs to the same place
                        continue
                    role = ev.get("role")
                    read_by_role[role] += 1
                    d = gate(ev, target.config)
                    if not d.keep:
                        gated[d.reason] += 1
                        dropped.setdefault(id(target), (target, []))[1].append(
                            {**ev, "reason": d.reason, "role": d.role or role, "text": d.text or ev.get("text"),
                             "source": f"import:{source}"})
                        continue
                    kept_by_role[role] += 1
                    row = {**ev, "text": d.text}
                    slot = pending.setdefault(id(target), (target, []))
                    slot[1].append(row)
                    if len(slot[1]) >= BATCH:
                        flush(target)
            finally:
                if hasattr(events, "close"):
                    events.close()
            for _, (target, _rows) in list({**dropped, **pending}.items()):
                flush(target)
            if bar is not None:  # the rest of the file (lines after the last event, or a skipped session's)
                sizes = getattr(bar, "sizes", None)
                upto = sum(sizes[: i + 1]) if sizes else done + parsed["lines"] + parsed["parts"] - seen
                bar.update(upto - done)
                done = upto
                bar.set_postfix_str(f"{totals['files']}/{len(files)} files", refresh=False)
    except STOPS as exc:  # Ctrl-C: every batch committed before it stays; a re-run stores the rest
        if not stopped(exc):
            raise
        from memdir.errors import Interrupted

        totals.update(exc.counts if isinstance(exc, Interrupted) else {})
        kept = sum(totals.get(k, 0) for k in ("stored", "duplicate", "skipped"))
        raise Interrupted(kept, None, dict(totals),
                          what=f"events (file {i + 1} of {len(files)}; {totals.get('stored', 0)} stored)") from None
    finally:
        if bar is not None:
            bar.close()
        router.close()

    from memdir.engine.events import restored

    for target in (m, *router.opened.values()):  # an index rebuilt earlier: its lost-events notice is answered
        restored(target.stores)
    parser_skipped = Counter({k.split(":", 1)[1]: v for k, v in parsed.items() if k.startswith("skipped:")})
    read = sum(read_by_role.values())
    stored = totals.get("stored", 0)
    if totals.get("skipped"):
        gated["store_refused"] += totals["skipped"]  # tombstoned (forgotten earlier) or malformed
    out: dict[str, Any] = {
        "files": totals.get("files", 0),
        "read": read,
        "stored": stored,
        "duplicate": totals.get("duplicate", 0),
        "skipped": read - stored - totals.get("duplicate", 0),
        "read_by_role": {r: read_by_role.get(r, 0) for r in ROLES},
        "kept_by_role": {r: kept_by_role.get(r, 0) for r in ROLES},
        "skipped_by": dict(sorted(gated.items(), key=lambda kv: (-kv[1], kv[0]))),
        "parser_skipped": dict(sorted(parser_skipped.items(), key=lambda kv: (-kv[1], kv[0]))),
        "sessions": {k: router.sessions.get(k, 0) for k in ("imported", "other_project", "cwd_missing", "no_cwd")},
        "missing_dirs": sorted(router.missing),
        "other_projects": sorted(router.others),
        "projects": dict(sorted(per_project.items())),
        "lines": parsed.get("lines", 0) + parsed.get("parts", 0),
        "bad_lines": parsed.get("bad_json", 0),
    }
    return out


#: how a skip reason reads in the human summary (the JSON keeps the key)
SKIP_LABELS = {"store_refused": "forgotten earlier or refused"}


def _count(n: int, word: str) -> str:
    """``"1 session"`` / ``"2 sessions"``."""
    return f"{n} {word}{'' if n == 1 else 's'}"


def summary(out: dict[str, Any]) -> str:
    """The human line(s) ``memdir import`` prints for :func:`import_host`'s result."""
    rb, kb, sb = out["read_by_role"], out["kept_by_role"], out["skipped_by"]
    s = out["sessions"]
    elsewhere = s["other_project"] + s["cwd_missing"] + s["no_cwd"]
    if not out["read"] and elsewhere:  # "0 events read" of a file full of them: every session belongs elsewhere
        # only sessions of other projects, or (--all-projects) only sessions whose directory is gone or unknown
        which = ("no session of this project in it" if s["other_project"] else
                 "no session in it names a directory that exists here")
        parts = [f"{_count(out['files'], 'file')}: {which}, nothing imported"]
    else:
        # read = kept + skipped by the gates; kept = stored + duplicates + refused by the store (a tombstone)
        refused = sb.get("store_refused", 0)
        parts = [f"{_count(out['files'], 'file')}, {_count(out['read'], 'event')} read (user {rb['user']}, assistant "
                 f"{rb['assistant']}, tool {rb['tool']}), {sum(kb.values())} kept (user {kb['user']}, assistant "
                 f"{kb['assistant']}, tool {kb['tool']}): {out['stored']} stored, {_count(out['duplicate'], 'duplicate')}"
                 + (f", {refused} {SKIP_LABELS['store_refused']}" if refused else "")
                 + f"; {out['skipped'] - refused} skipped"]
    gates = [f"{SKIP_LABELS.get(k, k)} {v}" for k, v in sb.items() if k != "store_refused"]
    if gates:
        parts[0] += " (" + ", ".join(gates) + ")"
    if out.get("bad_lines"):  # the warnings name the first few; the count is here, not only in --json
        parts[0] += f"; {out['bad_lines']} unreadable line{'' if out['bad_lines'] == 1 else 's'} skipped"
    if s["other_project"]:
        parts.append(f"{_count(s['other_project'], 'session')} of other projects not imported "
                     f"({', '.join(out['other_projects'][:3])}{' …' if len(out['other_projects']) > 3 else ''}): "
                     "run inside that project, or use --all-projects to import each into its own project")
    if s["cwd_missing"]:
        dirs = out["missing_dirs"]
        parts.append(f"{_count(s['cwd_missing'], 'session')} skipped because "
                     f"{'its directory no longer exists' if s['cwd_missing'] == 1 else 'their directories no longer exist'} "
                     f"({', '.join(dirs[:3])}{' …' if len(dirs) > 3 else ''}): use --here to import "
                     f"{'it' if s['cwd_missing'] == 1 else 'them'} into this project")
    if s["no_cwd"]:
        parts.append(f"{_count(s['no_cwd'], 'session')} skipped because {'it records' if s['no_cwd'] == 1 else 'they record'} "
                     f"no directory: use --here to import {'it' if s['no_cwd'] == 1 else 'them'} into this project")
    if len(out["projects"]) > 1:
        parts.append("stored per project: " + ", ".join(f"{p} {n}" for p, n in out["projects"].items()))
    return "\n".join(parts)

