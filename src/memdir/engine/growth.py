"""``memdir doctor``'s lines for the files of a root's ``.memdir/`` that only grow: the debug log, index files set
aside as unreadable, the tombstone log. A line only when one is large, each found with one ``stat`` or one directory
listing (doctor stays fast on a big store), saying what to do."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

MB = 1 << 20
#: debug.log and debug.log.1 together past this: the debug log was left on
DEBUG_LOG_MAX = 4 * MB
#: index files set aside as unreadable (``*.corrupt-*``, ``*.bad-*``) in one root past this
SET_ASIDE_MAX = 100 * MB
#: the tombstone log of one root past this
TOMBSTONES_MAX = 50 * MB


def _size(path: Path) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


def _mb(n: int) -> str:
    return f"{n / MB:,.0f} MB"


def checks(roots: dict[str, Any], home_derived: Path) -> list[dict[str, str]]:
    """The lines for ``roots`` (scope -> :class:`memdir.engine.root.Root`) and the global root's ``.memdir``
    directory ``home_derived`` (where the debug log is), ``[]`` when nothing is large."""
    out: list[dict[str, str]] = []
    logs = [home_derived / "debug.log", home_derived / "debug.log.1"]
    total = sum(_size(p) for p in logs)
    if total > DEBUG_LOG_MAX:
        out.append({"check": "debug log", "ok": "warn", "detail": f"{logs[0]} and {logs[1].name} hold {_mb(total)}",
                    "remedy": "both are safe to delete; turn the debug log off when done (unset MEMDIR_DEBUG, "
                              "debug = false in config.toml)"})
    for scope, root in roots.items():
        if getattr(root, "remote", False):
            continue
        derived = Path(root.derived)
        try:
            with os.scandir(derived) as it:
                aside = [(e.name, e.stat(follow_symlinks=False).st_size) for e in it
                         if (".corrupt-" in e.name or ".bad-" in e.name) and e.is_file(follow_symlinks=False)]
        except OSError:
            aside = []
        size = sum(n for _, n in aside)
        if size > SET_ASIDE_MAX:
            out.append({"check": f"{scope} set-aside files", "ok": "warn",
                        "detail": f"{len(aside)} file{'' if len(aside) == 1 else 's'} set aside as unreadable in "
                                  f"{derived} hold {_mb(size)} ({', '.join(sorted(n for n, _ in aside)[:3])}"
                                  f"{', …' if len(aside) > 3 else ''})",
                        "remedy": "once the set-aside index lines above say their events were recovered, delete "
                                  f"them (rm {derived}/*.corrupt-* {derived}/*.bad-*); never index.sqlite3 itself"})
        log = derived / "tombstones.jsonl"
        size = _size(log)
        if size > TOMBSTONES_MAX:
            out.append({"check": f"{scope} tombstone log", "ok": "warn", "detail": f"{log} holds {_mb(size)}",
                        "remedy": "it keeps forgotten memories forgotten if the index is rebuilt: never delete it "
                                  "alone; to shrink it, move it aside, run `memdir doctor` (which writes one line per "
                                  "tombstone of the index back) and delete the moved copy once doctor says ok"})
    return out
