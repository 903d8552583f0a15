"""What every command shares: the Memdir of the group's ``--dir``/``--home``, the JSON or human output, the delete
preview, the text argument read from stdin, and the one warning line about unreadable notes."""

from __future__ import annotations

import json
import re
import sys
from typing import Any

import click

from memdir.cli import cells
from memdir.errors import MemdirError, UsageError
from memdir.fileio import BINARY_NULS, BINARY_SNIFF, looks_binary
from memdir.notes.markdown import plain_text
from memdir.timeutil import local_text, parse_ts


def open_store(ctx: click.Context):
    """The Memdir for the group's ``--dir`` / ``--home`` options (opened once per command)."""
    import memdir

    obj = ctx.find_root().obj
    if obj.get("store") is None:
        obj["store"] = memdir.open(obj.get("dir"), home=obj.get("home"))
        ctx.find_root().call_on_close(obj["store"].close)
        ctx.find_root().call_on_close(lambda: warn_unreadable_notes(ctx))  # runs first (last registered)
    return obj["store"]


#: commands that list unreadable notes themselves
LISTS_PROBLEMS = ("inspect", "doctor")


def warn_unreadable_notes(ctx: click.Context) -> None:
    """One line on stderr when the command's look at the roots found note files it could not read as written
    (a hand edit that broke the frontmatter): such a note is recalled by its body alone, and said so here. Before
    it, one line per root whose index was rebuilt and lost episodic events (:meth:`memdir.Memdir.notices`)."""
    root = ctx.find_root()
    m = root.obj.get("store")
    failing = sys.exc_info()[1]  # the command is ending with an error: that one line is all it prints
    if m is None:
        return
    ok = failing is None or isinstance(failing, click.exceptions.Exit)
    try:
        # an index rebuilt from the notes lost its episodic events (case C42): said even before a "not found" (that
        # may be why), never beside a usage error's one line
        if ok or (isinstance(failing, MemdirError) and not isinstance(failing, UsageError)):
            for line in m.notices():
                click.echo(f"memdir: warning: {line}", err=True)
        if not ok or root.invoked_subcommand in LISTS_PROBLEMS:
            return
        bad = m.note_problems()
    except Exception:  # noqa: BLE001 - a warning must never turn a finished command into an error
        return
    if bad:
        first = bad[0]
        more = f" (and {len(bad) - 1} more: memdir inspect)" if len(bad) > 1 else ""
        click.echo(shown(f"memdir: warning: {first['path']}: {first['detail']}{more}"), err=True)


#: bidirectional controls (embeddings, overrides, isolates, the implicit marks): a terminal reorders a line around
#: them, so stored text holding one could show other than it holds; a person's output shows each as its escape, and
#: so each C1 control (U+0080-U+009F: ``\\x9b`` is a control sequence's start to some terminals)
_BIDI = {c: f"\\u{c:04x}" for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x200E, 0x200F, 0x061C,
                                    *range(0x80, 0xA0))}
#: what a terminal acts on rather than shows: ESC and the other C0 controls but tab and line feed, and DEL
_ACTING = re.compile("[\x00-\x08\x0b-\x1f\x7f]")


def shown(text: str) -> str:
    """``text`` as the CLI prints it for people: a terminal's escape sequences and control characters left out (a
    note typed by hand holding ``ESC[2J`` or a window title's ``ESC]0;…BEL`` must not clear or retitle the screen;
    a carriage return is a line break: :func:`memdir.notes.markdown.plain_text`), each bidirectional or C1 control
    written as ``\\u202e`` (JSON output and the stored text keep them)."""
    if not isinstance(text, str):
        return text
    if _ACTING.search(text):
        text = plain_text(text)
    return text.translate(_BIDI)


def clip(text: str, n: int) -> str:
    """``text`` in at most ``n`` terminal cells for a person's line, ending in ``…`` when cut (:func:`cells.cut`: never
    inside a wide or joined character), and never inside a ``[redacted:kind]`` marker (the cut moves before it)."""
    if not isinstance(text, str) or cells.cells(text) <= n:
        return text
    out = cells.cut(text, n)
    if "[redacted:" not in text:
        return out
    from memdir.capture.redact import MARKER_RE

    kept = len(out) - len(cells.MARKER)  # text[:kept] is what the cut line shows
    for m in MARKER_RE.finditer(text, 0, kept + 60):  # one the cut falls in, even before its colon ("[redact…")
        if m.start() < kept < m.end():
            return text[:m.start()].rstrip() + cells.MARKER
    return out


def emit(ctx: click.Context, as_json: bool, data: Any, human: str) -> None:
    if as_json or ctx.find_root().obj.get("json"):
        click.echo(json.dumps(data, ensure_ascii=False, indent=2, default=str))
    elif human:
        click.echo(shown(human))


def preview_text(head: str, samples: list[dict[str, Any]], count: int, confirm: str) -> str:
    """A delete preview for a person: ``head``, one line per sample (date, scope, id, first 80 chars), how many
    were not listed and, when anything matched, the ``confirm`` command that deletes (``forget --query/--prefix``
    and ``prune`` share it)."""
    lines = [head]
    lines += [f"  {local_text(parse_ts(s['ts']), minutes=False) if s.get('ts') else '':10} {s['scope']} {s['id']}"
              f"{' (pinned)' if s.get('pinned') else ''}: {clip(' '.join((s.get('text') or '').split()), 80)}" for s in samples]
    if count > len(samples):
        lines.append(f"  … and {count - len(samples)} more")
    if count:
        lines.append(confirm)
    return "\n".join(lines)


#: bytes read from stdin at most (an endless pipe, ``yes | memdir remember -`` or ``< /dev/zero``, was read until memory
#: ran out): ten times a note file's bound, and far past a pasted log a query is cut to (its head and tail)
STDIN_MAX_BYTES = 10_000_000


def read_stdin_bytes(what: str, stream=None) -> bytes:
    """Piped stdin (``stream``: a binary file, default ``sys.stdin.buffer``), read to its end; ``UsageError`` (one
    line, nothing read further) when it holds more than :data:`STDIN_MAX_BYTES`."""
    stream = sys.stdin.buffer if stream is None else stream
    data = stream.read(STDIN_MAX_BYTES + 1)
    if len(data) > STDIN_MAX_BYTES:
        raise UsageError(f"the {what} on stdin is over {STDIN_MAX_BYTES / 1e6:g} MB (or never ends): nothing read "
                         "further; give a file or a shorter text")
    return data


def utf16_with_bom(data: bytes) -> bool:
    """True when ``data`` is UTF-16 text led by its byte-order mark (as Windows tools write it), not UTF-8 text after
    two stray bytes that look like one (:func:`_utf8_after_two_bytes`)."""
    return data[:2] in (b"\xff\xfe", b"\xfe\xff") and not _utf8_after_two_bytes(data)


def _utf8_after_two_bytes(data: bytes) -> bool:
    """True when what follows a UTF-16 byte-order mark is UTF-8 text without a NUL: UTF-16 of Latin text holds a NUL
    in every other byte (a line break is ``\\n\\x00``), and of CJK text is rarely valid UTF-8; two stray bytes
    before UTF-8 text are no UTF-16 file (``\\xff\\xfe bad bytes`` was stored as 戠摡甠…). The one UTF-16 text taken
    for this (CJK characters alone, no line break, every byte below 0x80) is refused as not UTF-8: converted, it is
    stored; nothing is stored as noise."""
    rest = data[2:]
    if not rest.strip() or b"\x00" in rest:
        return False
    try:
        rest.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def stored_arg(value, what: str):
    """``value`` (a string, a tuple of them or ``None``) unchanged when it is UTF-8 text as the shell passed it;
    ``UsageError`` when it holds bytes that are not (Python keeps them as lone surrogates): text that is stored
    keeps the user's letters or is refused, never given U+FFFD in their place."""
    for v in (value if isinstance(value, (tuple, list)) else (value,)):
        if isinstance(v, str) and any("\udc80" <= ch <= "\udcff" for ch in v):
            raise UsageError(f"the {what} holds bytes that are not UTF-8 text: convert it first "
                             "(e.g. iconv -f latin1 -t utf-8); nothing stored")
    return value


def read_text_arg(arg, what: str, *, strict: bool = False) -> str:
    """The text argument (several words are joined with spaces), or stdin when it is ``-`` or absent and stdin
    is piped. Stdin with a UTF-16 byte-order mark (Windows tools) is decoded as UTF-16. With ``strict`` (text that
    is stored: ``remember``) binary data or bytes that are not UTF-8 raise ``UsageError`` and nothing is stored;
    otherwise (a query, a prompt) they are replaced and NULs dropped: a pasted log still
    searches; piped data with :data:`BINARY_NULS` NULs in its first :data:`BINARY_SNIFF` bytes (a binary file piped
    in by mistake) is refused."""
    if isinstance(arg, tuple):
        arg = " ".join(arg) if arg else None
    if arg is not None and arg != "-":
        if strict:
            return stored_arg(arg, what)
        return "".join("\ufffd" if "\udc80" <= ch <= "\udcff" else ch for ch in arg)
    if arg == "-" or not sys.stdin.isatty():
        data = read_stdin_bytes(what)
        if utf16_with_bom(data):
            try:
                return data.decode("utf-16", errors="strict" if strict else "replace")
            except UnicodeDecodeError:
                raise UsageError(f"the {what} on stdin is not valid UTF-16 text: nothing stored") from None
        if not strict:
            if looks_binary(data):  # a program or an image piped in by mistake
                raise UsageError(f"the {what} on stdin is binary data (NUL bytes in its first {BINARY_SNIFF:,}), "
                                 "not text: nothing searched")
            return data.decode("utf-8-sig", errors="replace").replace("\x00", "")
        if b"\x00" in data:
            raise UsageError(f"the {what} on stdin is binary data (it holds NUL bytes), not text: nothing stored")
        try:
            return data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            at = exc.start + (3 if data.startswith(b"\xef\xbb\xbf") else 0)
            raise UsageError(f"the {what} on stdin is not UTF-8 text (byte {at}): convert it first "
                             "(e.g. iconv -f latin1 -t utf-8); nothing stored") from None
    raise UsageError(f"give the {what} as an argument or on stdin")


def plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def size_text(n: int) -> str:
    """A size in bytes as a person reads it: ``1 byte``, ``999 bytes``, ``2.0 KB``, ``5.1 MB`` (units of 1,024)."""
    if n < 1024:
        return plural(n, "byte")
    for unit in ("KB", "MB", "GB"):
        n /= 1024
        if n < 1024 or unit == "GB":
            return f"{n:.1f} {unit}"
    return f"{n:.1f} GB"  # pragma: no cover - the loop returns


json_opt = click.option("--json", "as_json", is_flag=True, help="Print machine-readable JSON.")
