"""One answer per hook call when memdir's hooks are registered twice.

With memdir's hooks in both the user's and the project's settings (or OpenCode's plugin in both folders) the host
runs both copies on the same payload; each printed its block, so the model got the session's rules, and each
prompt's matches, twice. A copy claims its call by creating a marker file named after it (host, event, session,
directory, prompt, session-start's source) in ``hook-once/`` of the first root's private ``.memdir/`` folder that
exists (the project's, else the global root's; none: no claim), atomically; the copy that finds
a marker younger than :data:`WINDOW_S` prints nothing (its turns are stored once anyway: capture keys are
deterministic). The same prompt typed again later in the session gets its block again. A resumed session
(``claude --resume``/``--continue``, ``codex exec resume``: SessionStart again, source ``resume``) kept the block its
start was given in its history, so it gets no second one (a compacted one does), also when resumed from another
directory of the same project (another project's start is its own). Any error: answer.
"""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path
from typing import Any

#: seconds a claimed call stays claimed (both copies start within a second or two of each other)
WINDOW_S = 10.0
#: seconds a session's start stays claimed for its resumes (a session resumed later gets its block again)
SESSION_KEEP_S = 30 * 86400.0
EVENTS = ("session-start", "user-prompt")


def first_copy(derived: list[Path], call: Any, payload: Any) -> bool:
    """True unless another copy of this very hook call claimed it less than :data:`WINDOW_S` seconds ago, or this is
    a resumed session's start (source ``resume``) whose start was claimed in the last :data:`SESSION_KEEP_S` seconds:
    the host kept that block in the session's history."""
    if call.event not in EVENTS or not call.session:
        return True
    source = str((payload.get("source") if isinstance(payload, dict) else None) or "")
    resumed = call.event == "session-start" and source == "resume"
    opening = call.event == "session-start" and source in ("", "startup", "resume")
    # a session's opening is the project's (its root, not the directory the host was started or resumed in)
    where = str(Path(derived[0]).parent) if opening and derived else call.cwd or ""
    parts = (call.host, call.event, call.session, where, call.prompt or "", "" if opening else source)
    name = hashlib.sha256("\0".join(parts).encode("utf-8", "surrogatepass")).hexdigest()[:32]
    base = next((Path(d) for d in derived if Path(d).is_dir()), None)
    if base is None:  # a store not written yet: nothing to claim in (a root's folders are made by the store alone)
        return True
    from memdir.errors import PathError
    from memdir.roots import not_linked_out

    try:
        not_linked_out(base.parent, base)  # a .memdir/ linked out of its root: nothing made there
    except PathError:
        return True
    folder = base / "hook-once" / ("sessions" if opening else "")
    window = SESSION_KEEP_S if resumed else WINDOW_S
    try:
        for d in (base / "hook-once", folder):
            if not d.is_dir():
                d.mkdir(mode=0o700)
        if _claim(folder / name, window):
            _sweep(folder, SESSION_KEEP_S if opening else 5 * WINDOW_S)
            return True
        return False
    except OSError:
        return True  # a read-only or missing folder: answer, as before


def _claim(path: Path, window: float) -> bool:
    """Create the marker ``path``, or replace one older than ``window`` (the prompt typed again later): True for the
    one copy that did. Both copies may find the old marker stale; the old one is moved aside by a rename, which one
    copy alone can do, and a copy that moved the other's new claim instead puts it back and leaves the call to it."""
    for _ in range(4):
        try:
            os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
            return True
        except FileExistsError:
            pass
        aside = path.with_name(f"{path.name}.{os.getpid()}-{os.urandom(4).hex()}.old")
        try:
            if time.time() - os.stat(path).st_mtime < window:
                return False
            os.rename(path, aside)
        except FileNotFoundError:
            continue  # the other copy is replacing it: the next create decides
        try:
            took_fresh = time.time() - os.stat(aside).st_mtime < window
            if took_fresh:  # the other copy's claim, made since the look above: it stays theirs
                try:
                    os.link(aside, path)
                except OSError:
                    pass
        finally:
            os.unlink(aside)
        if took_fresh:
            return False
    return False


def _sweep(folder: Path, keep_s: float) -> None:
    """Remove claims older than ``keep_s`` (a few minutes' prompts; the sessions begun in the last weeks)."""
    cutoff = time.time() - keep_s
    with os.scandir(folder) as it:
        for e in it:
            try:
                if e.stat().st_mtime < cutoff:
                    os.unlink(e.path)
            except OSError:
                pass
