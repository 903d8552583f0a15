"""What the three plain-text transcript readers share (Claude Code ``/export`` text, SpecStory Markdown, Aider chat
history): a deterministic time for formats that record none or only a session start, the tool-name mapping that lets
the capture gate judge their tool calls as it judges a hook's, and fenced-block tracking.

Times: a session's start comes from the file (a header, a heading, the file name); when the file says nothing, the
file's modification time is used — never the clock at import, so two imports of one file give the same rows. Each
event of a session gets ``start + n`` milliseconds (``n`` = its place in the file), so the store's (ts, id) order is
the file's order.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from pathlib import Path

from memdir.fileio import SNIFF_BYTES, looks_binary, sniff_encoding
from memdir.timeutil import from_local

_NAME_TIME = re.compile(r"(\d{4})-(\d{2})-(\d{2})(?:[_T ](\d{2})[-:](\d{2})(?:[-:](\d{2}))?(Z)?)?")

#: tool names of these formats -> the name the capture gate knows (its noisy-tool and shell-read rules are keyed by
#: Claude Code's names); the host's own name is kept in ``meta.host_tool``
CANONICAL_TOOLS = {
    # Claude Code's export shows display names
    "read": "Read", "write": "Write", "update": "Edit", "edit": "Edit", "search": "Grep", "bash": "Bash",
    "fetch": "WebFetch", "web search": "WebSearch", "list": "LS", "task": "Task",
    # SpecStory (Cursor) tool names
    "run_terminal_command_v2": "Bash", "run_terminal_cmd": "Bash", "read_file_v2": "Read", "read_file": "Read",
    "ripgrep_raw_search": "Grep", "grep_search": "Grep", "codebase_search": "Grep", "glob_file_search": "Glob",
    "file_search": "Glob", "list_dir": "LS", "todo_write": "TodoWrite", "edit_file_v2": "Edit", "edit_file": "Edit",
    "web_search": "WebSearch", "web_fetch": "WebFetch",
}


#: a command's output that says it failed, for a history that records no exit status (Aider's ``/run``, SpecStory's
#: terminal blocks): a test runner's count of failures (``3 failed``; not ``0 failed``, nor a log's ``0000:f1:00.0 failed``), a
#: traceback, pytest's ``E   …`` lines, an ``…Error: `` line
RUN_FAILED = re.compile(r"(?<![\w.:])[1-9]\d* failed\b|^FAILED\b|^Traceback \(most recent call last\)|^E {2,}\S|^\w*Error: ", re.M)


def canonical_tool(name: str) -> str:
    """The gate's name for a tool shown as ``name`` (``Update`` -> ``Edit``, ``read_file_v2`` -> ``Read``); an
    unknown name is returned unchanged."""
    return CANONICAL_TOOLS.get(name.strip().lower(), name.strip())


def time_from_name(name: str) -> datetime | None:
    """The first ``YYYY-MM-DD[_HH-MM[-SS][Z]]`` in a file name as an aware UTC datetime: with ``Z`` (SpecStory's
    names) UTC, without it the machine's local time; ``None`` when absent (also for an impossible date)."""
    m = _NAME_TIME.search(name)
    if not m:
        return None
    try:
        when = datetime(*(int(g or 0) for g in m.groups()[:6]))
        return when.replace(tzinfo=timezone.utc) if m.group(7) else from_local(when)
    except (ValueError, OverflowError, OSError):
        return None


def file_time(path: Path) -> datetime:
    """The modification time of ``path`` (UTC): the start of a session whose file records no time."""
    return datetime.fromtimestamp(Path(path).stat().st_mtime, tz=timezone.utc).replace(microsecond=0)


def stamp(start: datetime, n: int) -> str:
    """ISO 8601 UTC of the ``n``-th event of a session that started at ``start`` (one millisecond apart)."""
    return (start + timedelta(milliseconds=n)).isoformat()


def fence_of(line: str) -> str | None:
    """The backtick run opening or closing a fenced block on ``line`` (```` ``` ````, ````` ```` `````), or ``None``."""
    s = line.lstrip()
    if not s.startswith("```"):
        return None
    return s[: len(s) - len(s.lstrip("`"))]


#: a well-formed UTF-8 sequence of two to four bytes: a file holding none, and bytes that are not UTF-8, was written
#: in an 8-bit code page
_UTF8_MULTI = re.compile(rb"[\xc2-\xdf][\x80-\xbf]|[\xe0-\xef][\x80-\xbf]{2}|[\xf0-\xf4][\x80-\xbf]{3}")


_ZEROS = re.compile(rb"\x00+")
#: control characters other than tab and line ends: text holds almost none, binary data that decodes as UTF-8 many
_CONTROL = re.compile(r"[\x01-\x08\x0b\x0c\x0e-\x1f\x7f]")


def _with_holes(raw: bytes) -> str | None:
    """``raw`` read as UTF-8 text whose runs of NUL bytes (a block zero-filled by a crash) become line breaks, or
    ``None`` when the rest is not text too (not strict UTF-8, or control characters in more than 1 of 1,000)."""
    try:
        text = _ZEROS.sub(b"\n", raw).decode("utf-8-sig")
    except UnicodeDecodeError:
        return None
    return text if len(_CONTROL.findall(text)) * 1000 <= len(text) else None


def read_text(path: Path) -> str:
    """The file as text (``""`` for binary data, :func:`memdir.fileio.looks_binary`, with a warning): UTF-8 (a
    byte-order mark dropped); UTF-16 or UTF-32, with a byte-order mark (what Windows PowerShell's ``>`` writes) or
    without one (:func:`memdir.fileio.sniff_encoding`); a file that is not UTF-8 and holds no UTF-8 sequence at all
    as Windows-1252 (an 8-bit code page: ``é`` stays ``é``); otherwise the bytes that are not UTF-8 replaced with
    U+FFFD. Either fallback logs one warning naming the file; a bad byte never aborts an import. Raises
    ``FileNotFoundError``/``IsADirectoryError`` for the file itself."""
    raw = Path(path).read_bytes()
    wide = sniff_encoding(raw[:SNIFF_BYTES])
    if wide != "utf-8-sig":  # UTF-16/32, with or without a mark: its zero bytes are not a sign of binary data
        return raw.decode(wide, errors="replace")
    if looks_binary(raw):  # an image, an archive: its lines were imported as noise
        from memdir.lazylog import getLogger

        text = _with_holes(raw)
        if text is None:
            getLogger("memdir.portability.importers").warning("%s is binary data, not a text transcript: skipped", path)
            return ""
        getLogger("memdir.portability.importers").warning(
            "%s holds %d zero bytes (a part zero-filled by a crash or a full disk): read around them", path,
            raw.count(b"\x00"))
        return text
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        pass
    from memdir.lazylog import getLogger

    log = getLogger("memdir.portability.importers")
    if not _UTF8_MULTI.search(raw):
        log.warning("%s is not UTF-8: read as Windows-1252 (Latin-1); save it as UTF-8 if its accents look wrong", path)
        return raw.decode("cp1252", errors="replace")
    text = raw.decode("utf-8-sig", errors="replace")
    n = text.count("\ufffd")
    log.warning("%s is not valid UTF-8: %d undecodable byte%s read as U+FFFD", path, n, "" if n == 1 else "s")
    return text
