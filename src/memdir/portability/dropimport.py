"""Drop-file import (issue 13 item 5; seed 004's one-shot import): JSONL files placed in
``<global root>/import/`` are imported into the project memory, then renamed ``<name>.done-<yyyyMMdd-HHmmss>``.

* Triggers: ``memdir import --pending``; and the next hook run or MCP server start, which only *looks* (one
  directory listing) and, when a file is waiting, starts ``memdir import --pending`` as a detached process, so
  the host is never delayed (:func:`spawn_if_pending`).
* Records: one JSON object per line; text from ``text``/``body``/``content``; ``title``, ``tags`` and ``kind``
  are kept (in the event's ``meta``; the title also leads the text so it is searchable); ``ts`` any accepted
  time form; ``source`` (default: the file name) names the import. ``kind`` ``user|assistant|tool|system``
  gives the role, anything else (``note``, ``observation``…) is stored as a ``user`` event.
* At most ``import.max_items`` (default 1,500, seed 004's ``IMPORT_MAX``) newest records per file (by ``ts``);
  the older rest is logged and counted as ``skipped_over_max``. Records are written oldest first.
* Keys ``import:<source>:<id or hash>`` are deterministic, so a re-run stores nothing, and
  ``memdir forget --prefix import:<source>`` undoes an import.
* **Which project**: a record that names its project (``project``, ``project_dir``, ``cwd`` or ``directory``: a
  path, or a project directory's name; :mod:`memdir.portability.routing`) is stored in that project, whichever
  project's hook started the importer; a record naming none goes into the project the import runs for, as before.
  A record whose named directory is gone is skipped (``cwd_missing``). A record naming a project that cannot be
  found from here (a bare name that is neither this project's directory name nor a directory beside it) waits:
  the file stays in place (``left_in_place``, ``waiting_for``) with a marker ``.<name>.waiting`` listing those
  names, and the hooks of other projects start no importer for it until it changes; the hook of a project of that
  name imports the rest and renames the file.
* One importer at a time: a lock in the import directory; a second run while one works returns ``busy``.
* A file whose import fails (``error``) stays in place with a marker ``.<name>.failed`` (the failure time and
  error). The hooks do not start another importer for it until ``RETRY_FAILED_S`` (10 minutes) have passed or the
  file has changed; ``memdir import --pending`` by hand always tries it; a later success removes the marker.
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memdir.fileio import read_or_none
from memdir.lazylog import getLogger
from memdir.errors import UsageError
from memdir.roots import DROP_DIR
from memdir.timeutil import parse_ts

if TYPE_CHECKING:
    from memdir.core import Memdir

log = getLogger("memdir")  # imports logging only when a record can go somewhere

IMPORT_DIR = DROP_DIR  # memdir.roots: no category
ROLES = ("user", "assistant", "tool", "system")
#: how long the hooks leave a drop file whose import failed before they start an importer for it again
RETRY_FAILED_S = 600.0


def import_dir(home: Path) -> Path:
    return Path(home) / IMPORT_DIR


def pending_files(home: Path) -> list[Path]:
    """``*.jsonl`` files waiting in ``<home>/import/`` (oldest first); ``[]`` when the directory is absent."""
    d = import_dir(home)
    try:
        files = [Path(e.path) for e in os.scandir(d) if e.is_file() and e.name.endswith(".jsonl") and not e.name.startswith(".")]
    except OSError:
        return []
    return sorted(files, key=lambda p: (p.stat().st_mtime, p.name))


def _failed_marker(path: Path) -> Path:
    return path.with_name(f".{path.name}.failed")


def _backing_off(path: Path, now: float) -> bool:
    """True while ``path`` failed less than :data:`RETRY_FAILED_S` ago and has not changed since."""
    try:
        failed_at = _failed_marker(path).stat().st_mtime
        return path.stat().st_mtime <= failed_at and now - failed_at < RETRY_FAILED_S
    except OSError:
        return False


def _waiting_marker(path: Path) -> Path:
    return path.with_name(f".{path.name}.waiting")


def _waiting_elsewhere(path: Path, project_dir: str | os.PathLike | None) -> bool:
    """True when ``path`` is unchanged since an import left it for other projects (its ``.waiting`` marker:
    the file's size and mtime, then one awaited project name a line) and ``project_dir`` is none of them."""
    try:
        lines = (read_or_none(_waiting_marker(path)) or "").splitlines()
        st = path.stat()
    except OSError:
        return False
    if not lines or lines[0].strip() != f"{st.st_size} {st.st_mtime_ns}":
        return False
    if project_dir is None:
        return False
    here = Path(project_dir)
    return not any(n.strip() and (n.strip() == here.name or n.strip() == str(here)) for n in lines[1:])


def spawn_if_pending(home: str | os.PathLike | None, project_dir: str | os.PathLike | None = None) -> bool:
    """Start ``memdir import --pending`` detached (own session, no stdio) when a file waits (one whose import
    failed only after :data:`RETRY_FAILED_S` or once it changed; one left for other projects only from those
    projects, ``project_dir`` being the project root); never raises, never waits. Returns True when a process
    was started."""
    try:
        import time

        from memdir.roots import global_root

        h = global_root(home)
        now = time.time()
        if all(_backing_off(p, now) or _waiting_elsewhere(p, project_dir) for p in pending_files(h)):  # or none waits
            return False
        args = [sys.executable, "-m", "memdir.cli", "--home", str(h)]
        if project_dir:
            args += ["--dir", str(project_dir)]
        args += ["import", "--pending", "--json"]
        import subprocess  # only when a file waits: the hook path stays lean

        subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         start_new_session=True, close_fds=True)
        return True
    except Exception as exc:  # noqa: BLE001 — a hook or server start must never fail because of this
        log.debug("drop-file import not started: %s", exc)
        return False


def _slug(value: Any) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", str(value)).strip("-")[:60] or "jsonl"


def records(path: Path, *, max_items: int) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """The events of one drop file (newest ``max_items`` by ``ts``, written oldest first) and counts
    ``lines``, ``bad_lines``, ``skipped_over_max``."""
    counts = {"lines": 0, "bad_lines": 0, "skipped_over_max": 0}
    out: list[tuple[float, int, dict[str, Any]]] = []
    default_source = _slug(path.name[: -len(".jsonl")])
    from collections import Counter

    from memdir.portability.importers.jsonl import read_jsonl  # imported when a file is read, never on the hook path
    from memdir.portability.routing import named_project

    stats: Counter = Counter()
    for n, obj in read_jsonl(path, stats, label="drop-file", warn=False):
        body = next((obj[k] for k in ("text", "body", "content") if isinstance(obj.get(k), str) and obj[k].strip()), None)
        if body is None:
            counts["bad_lines"] += 1
            continue
        title = obj.get("title") if isinstance(obj.get("title"), str) and obj["title"].strip() else None
        tags = [str(t) for t in obj["tags"]] if isinstance(obj.get("tags"), list) else (
            [t.strip() for t in obj["tags"].split(",") if t.strip()] if isinstance(obj.get("tags"), str) else [])
        kind = str(obj.get("kind") or obj.get("role") or "note").strip().lower()
        source = _slug(obj.get("source") or default_source)
        try:
            ts = parse_ts(obj.get("ts") or obj.get("created_at") or obj.get("time")) if (
                obj.get("ts") or obj.get("created_at") or obj.get("time")) else None
        except UsageError:
            ts = None
        text = body.strip()
        if title and title.strip() not in text:
            text = f"{title.strip()}\n{text}"
        rid = obj.get("id") if isinstance(obj.get("id"), (str, int)) and str(obj.get("id")).strip() else None
        ident = _slug(rid) if rid is not None else hashlib.sha256(
            f"{kind}\0{title or ''}\0{body}\0{ts.isoformat() if ts else ''}".encode("utf-8", "replace")).hexdigest()[:16]
        meta = {"kind": kind, "source": source, "file": path.name}
        project = named_project(obj)
        if project:
            meta["project"] = project
        if title:
            meta["title"] = title
        if tags:
            meta["tags"] = tags
        ev = {"key": f"import:{source}:{ident}", "role": kind if kind in ROLES else "user", "text": text,
              "session": str(obj["session"]) if obj.get("session") not in (None, "") else f"import:{source}",
              "ts": ts, "meta": meta}
        out.append((ts.timestamp() if ts else float("-inf"), n, ev))
    counts["lines"] += stats["lines"] - stats["skipped:blank"]
    counts["bad_lines"] += stats["bad_json"]
    out.sort(key=lambda t: (t[0], t[1]))
    if len(out) > max_items:
        counts["skipped_over_max"] = len(out) - max_items
        log.warning("memdir: import %s: %d records over import.max_items=%d skipped (the oldest)",
                    path.name, counts["skipped_over_max"], max_items)
        out = out[-max_items:]
    return [ev for *_, ev in out], counts


def _signature(path: Path) -> tuple[int, int]:
    st = path.stat()
    return st.st_size, st.st_mtime_ns


def import_pending(m: "Memdir") -> dict[str, Any]:
    """Import every waiting drop file, each record into the project it names (else ``m``'s project; see the module
    docstring), and rename the file ``<name>.done-<yyyyMMdd-HHmmss>``.

    Records pass the capture gate first (:func:`memdir.capture.gates.gate_all`). Returns ``{"files": [{"file", "done_as", "lines",
    "bad_lines", "skipped_over_max", "read", "stored", "duplicate", "skipped", "skipped_by", "projects"}], "busy": bool,
    "dir": the folder looked in}``
    (``projects``: ``{project root: stored}``; ``skipped_by`` also counts ``cwd_missing`` and ``other_project``). A file that cannot be read stays in place (``error``); so does one that changed while it was read
    (``left_in_place``, no ``done_as``: a writer still appending), whose new records the next run imports (keys are
    deterministic, so what was stored is not stored twice), and one with records for projects not found from here
    (``left_in_place`` and ``waiting_for``: their names)."""
    from memdir.portability.routing import ProjectRouter

    import filelock

    home = m.home
    d = import_dir(home)
    out: dict[str, Any] = {"files": [], "busy": False, "dir": str(d)}
    if not d.is_dir():
        return out
    lock = filelock.FileLock(str(d / ".import.lock"), timeout=0, mode=0o600)
    try:
        lock.acquire()
    except filelock.Timeout:
        out["busy"] = True
        return out
    router = ProjectRouter(m, "all")
    try:
        max_items = int(m.config.get("import.max_items"))
        for path in pending_files(home):
            rec: dict[str, Any] = {"file": path.name}
            try:
                seen = _signature(path)
                events, counts = records(path, max_items=max_items)
                rec.update(counts)
                waiting = _import_routed(router, events, rec)
            except (OSError, UsageError) as exc:
                rec["error"] = str(exc).splitlines()[0][:200]
                out["files"].append(rec)
                try:  # the hooks back off from this file (spawn_if_pending)
                    from memdir.capture.redact import redact

                    _failed_marker(path).write_text(f"{m.clock().isoformat()} {redact(rec['error'])}\n", encoding="utf-8")
                except OSError:
                    pass
                continue
            try:
                _failed_marker(path).unlink(missing_ok=True)
            except OSError:
                pass
            if _signature(path) != seen:  # still being written: renaming it now would lose what comes next
                rec["left_in_place"] = "it changed while it was read; the next run imports the rest"
                out["files"].append(rec)
                continue
            if waiting:  # records for a project not found from here: that project's hook imports them
                rec["waiting_for"] = waiting
                rec["left_in_place"] = (f"records for {', '.join(waiting[:3])}, not found from {m.project_root}: "
                                        "that project's next run imports them")
                try:
                    _waiting_marker(path).write_text(f"{seen[0]} {seen[1]}\n" + "".join(f"{n}\n" for n in waiting),
                                                     encoding="utf-8")
                except OSError:
                    pass
                out["files"].append(rec)
                continue
            _waiting_marker(path).unlink(missing_ok=True)
            stamp = m.clock().strftime("%Y%m%d-%H%M%S")
            target = path.with_name(f"{path.name}.done-{stamp}")
            n = 2
            while target.exists():
                target = path.with_name(f"{path.name}.done-{stamp}-{n}")
                n += 1
            os.replace(path, target)
            rec["done_as"] = target.name
            out["files"].append(rec)
    finally:
        router.close()
        lock.release()
    return out


def _import_routed(router: Any, events: list[dict[str, Any]], rec: dict[str, Any]) -> list[str]:
    """Store ``events`` in the projects they name (``router``: a :class:`memdir.portability.routing.ProjectRouter`),
    each through its project's gate and ``import_events``; adds the counts to ``rec``. Returns the names of the
    projects not found from here (their records wait)."""
    from collections import Counter

    from memdir.capture.gates import gate_all

    groups: dict[int, tuple[Any, list[dict[str, Any]]]] = {}
    skipped: Counter = Counter()
    waiting: list[str] = []
    for ev in events:
        name = ev["meta"].get("project")
        target, why = router.target(name)
        if why:
            skipped[why] += 1
            if why == "other_project" and name not in waiting:
                waiting.append(name)
            continue
        groups.setdefault(id(target), (target, []))[1].append(ev)
    if not groups:
        groups[id(router.m)] = (router.m, [])
    totals: Counter = Counter({k: 0 for k in ("read", "stored", "duplicate", "skipped")})
    projects: dict[str, int] = {}
    for target, evs in groups.values():
        gone: list[dict] = []
        kept, gated = gate_all(evs, target.config, gone)
        c = target.import_events(kept)
        target.log_skips([{**g, "source": g.get("source") or "import:drop"} for g in gone])  # the timeline shows them
        totals.update({k: c.get(k, 0) for k in ("read", "stored", "duplicate", "skipped")})
        totals["skipped"] += sum(gated.values())
        skipped.update(gated)
        projects[str(target.project_root)] = projects.get(str(target.project_root), 0) + c.get("stored", 0)
    totals["skipped"] += sum(v for k, v in skipped.items() if k in ("cwd_missing", "other_project"))
    rec.update(totals)
    rec["skipped_by"] = dict(skipped)
    rec["projects"] = projects
    return waiting
