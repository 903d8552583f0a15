"""Append-only JSON-lines files that survive a torn tail (case C30).

A file memdir only ever appends to (``.memdir/tombstones.jsonl``) can end in a torn line: a full disk, a power cut
or a process killed in the middle of ``write(2)`` leaves part of a record and no newline. Appending the next record
after it would glue both into one line that no JSON parser reads, and the new record would be lost with the torn one.
Both sides guard against that:

* :func:`append` looks at the file's last byte first; when it is not ``"\\n"`` the new data starts on a new line, so a
  torn fragment stays a line of its own;
* :func:`read` parses each line on its own; a line that does not parse is skipped and counted, and the records of a
  line that an older writer glued onto a torn fragment (``<fragment>{"ref": …}``) are still read. The skipped lines
  are reported in one warning per file and process (``memdir: warning: <path>: N unreadable lines skipped …``),
  never raised. The file itself is left as it is (nothing is deleted or rewritten).

Standard library only (the hook path may write a log).
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any, Iterable

from memdir.lazylog import getLogger

log = getLogger("memdir")

_reported: set[str] = set()  # files whose unreadable lines were reported by this process


def append(path: str | os.PathLike, records: Iterable[dict[str, Any]], *, mode: int = 0o600, sync: bool = True) -> int:
    """Append ``records`` (JSON-serialisable mappings) to ``path`` as one line each, created with ``mode`` when
    missing, fsynced when ``sync``. A file that does not end in ``"\\n"`` (a torn last line) gets one first.
    Returns the number of lines written. Raises ``OSError`` when the file cannot be written (callers that must
    never fail catch it)."""
    lines = [json.dumps(r, ensure_ascii=False) + "\n" for r in records]
    if not lines:
        return 0
    data = "".join(lines).encode("utf-8")
    # without blocking: a FIFO under this name waited for a reader forever (refused below, as any non-regular file)
    from memdir.fileio import open_own

    fd = open_own(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NONBLOCK", 0), mode)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(f"{os.fspath(path)} is not a regular file (a FIFO, a device or a directory)")
        if getattr(os, "O_NONBLOCK", 0):
            os.set_blocking(fd, True)
        size = st.st_size
        if size and not ends_with_newline(path, size):
            data = b"\n" + data
        view = memoryview(data)
        while view:  # a short write (a signal, a nearly full disk) goes on where it stopped
            n = os.write(fd, view)
            view = view[n:]
        if sync:
            os.fsync(fd)
    finally:
        os.close(fd)
    return len(lines)


def ends_with_newline(path: str | os.PathLike, size: int | None = None) -> bool:
    """True when the file ``path`` is empty or missing or its last byte is ``"\\n"``."""
    try:
        with open(path, "rb") as f:
            end = f.seek(0, os.SEEK_END) if size is None else size
            if end <= 0:
                return True
            f.seek(end - 1)
            return f.read(1) in (b"\n", b"")
    except FileNotFoundError:
        return True


def read(path: str | os.PathLike) -> tuple[list[dict[str, Any]], int]:
    """``(records, unreadable)``: each JSON object of the file ``path`` in file order, and the number of lines that
    held none (torn, not JSON, not an object). A line an older writer glued onto a torn fragment gives the objects
    found after the fragment. A missing or unreadable file is ``([], 0)``. Unreadable lines are reported in one
    warning per file and process; nothing is raised."""
    try:
        text = Path(path).read_bytes().decode("utf-8", errors="replace")
    except FileNotFoundError:
        return [], 0
    except OSError as exc:  # a directory or a file this user cannot read under its name: said, not taken for empty
        if str(path) not in _reported:
            _reported.add(str(path))
            log.warning("memdir: warning: %s cannot be read (%s); its records are not used", path, exc)
        return [], 0
    out: list[dict[str, Any]] = []
    bad: list[int] = []
    for n, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except ValueError:
            obj = None
        if isinstance(obj, dict):
            out.append(obj)
            continue
        found = salvage(line)
        out += found
        bad.append(n)
    if bad and str(path) not in _reported:
        _reported.add(str(path))
        log.warning("memdir: warning: %s: %d unreadable line%s skipped (torn or not JSON; first at line %d); the file "
                    "is left as it is", path, len(bad), "" if len(bad) == 1 else "s", bad[0])
    return out, len(bad)


def salvage(line: str) -> list[dict[str, Any]]:
    """The JSON objects that end ``line`` after a torn fragment (``{"ref": "a", "kin{"ref": "b", …}`` gives the
    second record): each ``{`` is tried as the start of a run of objects reaching the end of the line; ``[]`` when
    none does."""
    dec = json.JSONDecoder()
    start = line.find("{", 1)
    while start > 0:
        objs: list[dict[str, Any]] = []
        pos = start
        try:
            while pos < len(line):
                obj, pos = dec.raw_decode(line, pos)
                if not isinstance(obj, dict):
                    raise ValueError("not an object")
                objs.append(obj)
                while pos < len(line) and line[pos] in " \t\r":
                    pos += 1
            return objs
        except ValueError:
            start = line.find("{", start + 1)
    return []
