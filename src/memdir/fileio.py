"""Opening a file memdir finds under a root or beside it (a note, ROOT.md, an ``index.md``, ``config.toml``,
a queued capture): only a regular file is read. A FIFO or a device placed under such a name blocked every command
that opened it (a FIFO's ``open`` waits for a writer); it is refused as unreadable instead."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import IO, Any


class NotRegularFile(OSError):
    """The path names a FIFO, a device, a socket or a directory, not a file to read."""


def open_regular(path: str | os.PathLike, mode: str = "rb", *, encoding: str | None = None,
                 newline: str | None = None, errors: str | None = None) -> IO[Any]:
    """``open(path, mode)`` for reading (``"rb"`` or ``"r"``) when ``path`` is a regular file. Opened without blocking
    (``O_NONBLOCK`` where the platform has it), then checked with ``fstat``: no race between the check and the read.
    Raises ``FileNotFoundError`` and the other ``OSError`` of ``open``, and :class:`NotRegularFile` (an ``OSError``)."""
    nonblock = getattr(os, "O_NONBLOCK", 0)  # none on Windows (no FIFOs there to wait on)
    fd = os.open(path, os.O_RDONLY | nonblock | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotRegularFile("not a regular file (a FIFO, a device or a directory)")
        if nonblock:  # only where it was set: Windows' set_blocking (3.12+) refuses a regular file
            os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    # outside the try: once fdopen has it, the file object closes it (a second close hit another file's number)
    return os.fdopen(fd, mode, encoding=encoding, newline=newline, errors=errors)


def text_encoding(path: str | os.PathLike) -> str:
    """The encoding to read the text file at ``path`` with (:func:`sniff_encoding` of its first bytes). Raises
    ``OSError`` when the file cannot be read."""
    with open(path, "rb") as f:
        return sniff_encoding(f.read(SNIFF_BYTES))


#: bytes of a file's start :func:`sniff_encoding` needs to tell UTF-16 and UTF-32 without a mark
SNIFF_BYTES = 4096


def sniff_encoding(head: bytes) -> str:
    """The encoding of text whose first bytes (up to :data:`SNIFF_BYTES`) are ``head``: ``"utf-16"`` when it starts
    with a UTF-16 byte-order mark (what Windows PowerShell 5's ``>`` writes), ``"utf-32"`` for a UTF-32 one,
    ``"utf-16-le"``/``"utf-16-be"``/``"utf-32-le"``/``"utf-32-be"`` without a mark (told by where its zero bytes
    fall: at least a third of the characters below U+0100, as in any JSON or Markdown, and few zero bytes
    elsewhere), else ``"utf-8-sig"`` (a UTF-8 mark, if any, is not part of line 1)."""
    if head[:4] in (b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff"):  # UTF-32's marks (the first begins as UTF-16's does)
        return "utf-32"
    if head[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return "utf-16"
    head = head[:SNIFF_BYTES]
    quads, pairs = len(head) // 4, len(head) // 2
    if quads:
        z = [head[i:quads * 4:4].count(0) for i in range(4)]
        # a character's two low bytes are rarely both zero (U+0000 alone), a run of binary zeros makes them so
        if z[3] == quads and z[2] * 10 >= quads * 9 and z[0] + z[1] <= quads * 1.02:
            return "utf-32-le"
        if z[0] == quads and z[1] * 10 >= quads * 9 and z[2] + z[3] <= quads * 1.02:
            return "utf-32-be"
        even, odd = head[0:pairs * 2:2].count(0), head[1:pairs * 2:2].count(0)
        if odd * 3 >= pairs and odd >= even * 4:  # U+2500 and the like put the zero in the other byte
            return "utf-16-le"
        if even * 3 >= pairs and even >= odd * 4:
            return "utf-16-be"
    return "utf-8-sig"


def open_own(path: str | os.PathLike, flags: int, mode: int = 0o600) -> int:
    """``os.open(path, flags, mode)`` for a file memdir owns inside a root's ``.memdir/`` (the tombstone log, the
    event ledger): never through a symbolic link. A link found there (a file linked to one outside the root) is
    removed — the link alone, not what it points to — and the file made in its place. Raises ``OSError``."""
    nofollow = getattr(os, "O_NOFOLLOW", 0)
    try:
        return os.open(path, flags | nofollow, mode)
    except OSError:
        if not (nofollow and os.path.islink(path)):
            raise
        import logging

        logging.getLogger("memdir").warning("%s was a link to %s: removed (memdir writes its own files only inside "
                                            "the root)", os.fspath(path), os.readlink(path))
        os.unlink(path)
        return os.open(path, flags | nofollow, mode)


def part_beside(path: str | os.PathLike) -> tuple[int, str]:
    """Make the folders above the file ``path`` that are missing, then open a new ``.tmp-*.part`` file beside it
    (mode 0600) for an atomic write: ``(fd, name)``. A folder made here is never writable by group or others,
    whatever the umask (000, 002): another account could put a note or a ``config.toml`` in it, which the agent would
    be shown as the user's own. Raises ``OSError`` (``FileExistsError``: a file where a folder belongs)."""
    import tempfile

    make_folders(Path(path).parent)
    return tempfile.mkstemp(prefix=".tmp-", suffix=".part", dir=Path(path).parent)


def make_folders(folder: str | os.PathLike) -> None:
    """``mkdir -p folder``, each folder made never writable by group or others whatever the umask (a root's
    ``.memory/``, its categories). Raises ``OSError`` (``FileExistsError``: a file where a folder belongs)."""
    missing = []
    d = Path(folder)
    while not d.is_dir() and d != d.parent:
        missing.append(d)
        d = d.parent
    for d in reversed(missing):
        d.mkdir(mode=0o755, exist_ok=True)  # the umask may take more away, never add group or others' writing


def same_style(path: str | os.PathLike, text: str, *, line_ends: bool = True, final_newline: bool = False) -> str:
    """``text`` written in the style of the file at ``path`` it is to replace, so a rewrite does not change what the
    person's editor chose: its line ends (CRLF when most of its lines end so: a Windows editor, ``core.autocrlf``),
    its UTF-8 byte-order mark, and with ``final_newline`` a missing newline at its end (the text's last one is
    dropped). ``line_ends`` False leaves the text's own line ends (it carries them already: a backup's bytes).
    ``text`` as given when ``path`` is missing, empty or unreadable."""
    try:
        with open_regular(path) as f:
            head = f.read(65536)
            if not head:
                return text
            f.seek(-1, os.SEEK_END)
            last = f.read(1)
    except OSError:
        return text
    crlf = head.count(b"\r\n")
    if line_ends and crlf and crlf * 2 >= head.count(b"\n"):
        text = text.replace("\r\n", "\n").replace("\n", "\r\n")
    elif line_ends and b"\r" in head and b"\n" not in head:  # a lone CR each (classic Mac): read as LF, kept so
        text = text.replace("\r\n", "\n").replace("\n", "\r")
    if head.startswith(b"\xef\xbb\xbf") and not text.startswith("\ufeff"):
        text = "\ufeff" + text
    if final_newline and last != b"\n" and text.endswith("\n"):
        text = text[:-2] if text.endswith("\r\n") else text[:-1]
    return text


def lf_for_lone_cr(text: str) -> str:
    """``text`` with LF line ends when a lone CR ends each of its lines (a classic Mac editor saved it: no LF at all),
    so its lines, and a note's frontmatter, are found; :func:`same_style` gives such a file its CRs back on a rewrite.
    Any other text as it is."""
    return text.replace("\r", "\n") if "\r" in text and "\n" not in text else text


def read_or_none(path: str | os.PathLike) -> str | None:
    """A regular file's UTF-8 text (line endings as written), ``None`` when it does not exist. Raises ``OSError``
    naming the file when it cannot be read, is not UTF-8, holds NUL bytes (binary data is valid UTF-8 often enough:
    a compiled ``ROOT.md`` overwritten by one was rewritten as text around its bytes) or is not a regular file."""
    try:
        with open_regular(path, "r", encoding="utf-8", newline="") as f:
            text = f.read()
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise OSError(f"{os.fspath(path)} is unreadable ({exc}); fix or remove it") from None
    if "\x00" in text:
        raise OSError(f"{os.fspath(path)} is unreadable (binary: it holds NUL bytes); fix or remove it")
    return text


#: bytes of data looked at for NULs, the sign of binary data (git's ``buffer_is_binary`` looks at 8,000), and how many
#: make it binary: a program or an image holds hundreds there, a pasted log a stray one or two
BINARY_SNIFF = 8000
BINARY_NULS = 8


def looks_binary(data: bytes) -> bool:
    """True when ``data`` holds :data:`BINARY_NULS` NUL bytes or more in its first :data:`BINARY_SNIFF`: a program, an
    image or an archive, not text (piped into the CLI, or given to a transcript importer)."""
    return data[:BINARY_SNIFF].count(b"\x00") >= BINARY_NULS


def drop_stale_temp(entry: os.DirEntry) -> None:
    """Remove a temp file left by a writer killed between write and rename (never acknowledged, never a note) once it
    is over 10 minutes old, so a live writer's file is never touched."""
    import time

    try:
        if time.time() - entry.stat(follow_symlinks=False).st_mtime > 600:
            os.unlink(entry.path)
    except OSError:
        pass



def write_into(path: str | os.PathLike | None, make: Any) -> Any:
    """Call ``make(file)`` on a file in a temporary directory, then write that file's text (UTF-8) into ``path`` as it
    is — a pipe, a device, ``/dev/stdout`` — never replacing it by a file (``None``: stdout); returns what ``make``
    returned. A failed write names ``path`` (``/dev/full``'s ENOSPC names no file of its own); a pipe whose reader
    left is a failure unless the pipe is stdout."""
    import sys
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as tmp:
        out = make(Path(tmp) / "out")
        text = (Path(tmp) / "out").read_text(encoding="utf-8")
    if path is None:
        sys.stdout.write(text)
        return out
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    except BrokenPipeError:
        if _is_stdout(path):  # /dev/stdout: its reader leaving is the quiet end `memdir export - | head` has
            raise
        # a named pipe's reader gone (a killed `>(gzip > x.gz)`): the export is not whole, a failure (an OSError that
        # is no BrokenPipeError, which the CLI takes for a reader of its output leaving)
        raise OSError(f"{path}: its reader closed before the export was written whole (broken pipe)") from None
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror, str(path)) from None
    return out


def _is_stdout(path: str | os.PathLike) -> bool:
    """Whether ``path`` (``/dev/stdout``, ``/proc/self/fd/1``) is this process's stdout."""
    import sys

    try:
        return os.path.samestat(os.stat(path), os.fstat(sys.stdout.fileno()))
    except (OSError, ValueError, AttributeError):
        return False
