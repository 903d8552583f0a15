"""DSH (DeepSeek Harness) session logs: read them for the Stop hook's reply and for ``memdir import dsh``.

Format facts, from deepseek-harness ``dsh-0.1.1-rc.2``:

* Location (``packages/session/session-persistence-jsonl/src/format.ts``, ``packages/bundle/base/cordis.patch.yml``):
  ``<root>/<project key>/<encoded session id>/session.jsonl.zstd`` (``session.jsonl`` with ``compression:
  'none'``), root ``$DSH_HOME/sessions`` by default. The project key is ``--<cwd>--`` with each run of ``/``,
  ``\\`` or ``:`` as one ``-`` (leading ones dropped, ``root`` when nothing is left, 251 characters at most) and
  every code unit outside ``[A-Za-z0-9._-]`` (and ``~``) as ``~XXXX`` (UTF-16, upper-case hex); the session id is
  escaped the same way (``.``/``..`` as ``~002E``), with no separator folding; no cwd gives ``_no-cwd``.
* Encoding (the package README): a concatenation of independent zstd frames, the header line in the first and one
  frame per append batch; a last frame can be incomplete while DSH writes. Read here with the ``zstandard``
  package (a dependency of memdir) or, without it, the ``zstd`` command.
* Lines (``packages/core/session/src/types.ts``, ``docs/persistence-catalog.md``): the first is the header
  ``{"type": "session", "version": 0, "id", "cwd"?, "createdAt" (epoch ms), "delegationDepth", …}``; then one
  event ``{"type", "seq", "time" (epoch ms), "data", …}`` per line, or a packed chunk row (``text-chunks`` …,
  ignored here: the assembled message follows as its own event). Read here: ``user/message`` (data: a message
  ``{id, role, content: [block], source: {kind}}``; ``source.kind == "user"`` is a person's prompt, ``plugin``
  injected context), ``assistant/message`` (data ``{turn, step, message: {id, role, content, source}, usage?,
  interrupted?}``; older logs put ``content`` in ``data`` itself), ``tool/call`` (data ``{turn, step, callId,
  name, arguments}``) and ``tool/result`` (data ``{turn, step, message: {content: [{type: "tool-result",
  toolCallId, content: [block], isError?}]}}``); ``turn/start`` (data ``{turn}``) starts a turn. Blocks:
  ``text`` and ``reasoning`` (``{type, text}``), ``tool-call``, ``tool-result``, ``image``.

Import events: keys ``import:dsh:<session id>:<seq>`` (the line number when a line has no ``seq``), roles user
(prompts only), assistant (text blocks; reasoning is skipped) and tool (one event per ``tool/result``, its text
from :func:`memdir.capture.tools.tool_summary` with the call's name and arguments).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from memdir.errors import UsageError
from memdir.roots import expand_user

SOURCE = "dsh"
LOG_NAMES = ("session.jsonl.zstd", "session.jsonl")
#: the most of a log's end (compressed bytes for a ``.zstd`` log) the Stop hook reads (it answers within its budget)
HOOK_MAX_BYTES = 64 * 1024 * 1024
#: the end of a log the Stop hook reads first (×4 while the newest turn's prompt is not in it, up to HOOK_MAX_BYTES)
HOOK_TAIL_BYTES = 1024 * 1024
_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
ZSTD_HINT = ("DSH's session.jsonl.zstd needs the 'zstandard' package, a dependency of memdir that is missing "
             "here (pip install zstandard), or the zstd command")
_SAFE = re.compile(r"[A-Za-z0-9._-]")
_LINE_END = re.compile(r"\r\n|\r|\n")


class ZstdUnavailable(UsageError):
    """Neither the ``zstandard`` package nor the ``zstd`` command is there to read a ``.zstd`` log."""


def decompress(raw: bytes) -> bytes:
    """The bytes of the concatenated zstd frames in ``raw``; an incomplete last frame gives what it decoded so
    far (a frame DSH is still writing). Raises :class:`ZstdUnavailable` (with a one-line hint)."""
    try:
        import zstandard
    except ImportError:
        zstandard = None
    if zstandard is not None:
        out: list[bytes] = []
        dctx = zstandard.ZstdDecompressor()
        while raw:
            obj = dctx.decompressobj()
            try:
                out.append(obj.decompress(raw))
            except zstandard.ZstdError:
                break
            if not getattr(obj, "eof", True):
                break
            raw = obj.unused_data
        return b"".join(out)
    exe = shutil.which("zstd")
    if exe is None:
        raise ZstdUnavailable(ZSTD_HINT)
    # an incomplete last frame makes zstd exit non-zero after it wrote the frames before it
    done = subprocess.run([exe, "-d", "-c", "-q"], input=raw, capture_output=True, timeout=10, check=False)
    return done.stdout


def read_lines(path: str | Path, *, max_bytes: int | None = None) -> list[str]:
    """The logical lines of a DSH log (``.zstd`` decompressed). Raises ``OSError`` (missing, unreadable, no regular
    file: a FIFO or a device is never waited on), :class:`ZstdUnavailable`, ``ValueError`` for a file over
    ``max_bytes``."""
    from memdir.fileio import open_regular

    path = Path(path)
    with open_regular(path, "rb") as f:
        if max_bytes is not None and os.fstat(f.fileno()).st_size > max_bytes:
            raise ValueError(f"{path} is larger than {max_bytes} bytes")
        raw = f.read()
    return read_lines_of(path, raw)


def read_lines_of(path: Path, raw: bytes) -> list[str]:
    """The logical lines of the bytes ``raw`` of the whole DSH log at ``path``."""
    if path.name.endswith(".zstd") or raw[:4] == _ZSTD_MAGIC:
        raw = decompress(raw)
    return split_lines(raw)


def split_lines(raw: bytes) -> list[str]:
    """The logical lines of a DSH log's (decompressed) bytes."""
    from memdir.fileio import SNIFF_BYTES, sniff_encoding

    # a copy re-saved with a byte-order mark or as UTF-16; only CR/LF end a line (Node writes U+2028 and other
    # separators unescaped inside JSON strings, where str.splitlines would cut them)
    return _LINE_END.split(raw.decode(sniff_encoding(raw[:SNIFF_BYTES]), "replace").rstrip("\r\n"))


def read_tail_lines(path: str | Path, tail_bytes: int) -> tuple[list[str], bool]:
    """The whole lines in the last ``tail_bytes`` of a DSH log, and whether they are the whole log. A ``.zstd`` log's
    frames are independent (one per append batch): it is decompressed from the first frame starting in its last
    ``tail_bytes // 8``, and of what that gives only the last ``4 * tail_bytes`` are read. A log in UTF-16/32 is read
    whole. Raises as :func:`read_lines`."""
    from memdir.fileio import SNIFF_BYTES, open_regular, sniff_encoding

    path = Path(path)
    with open_regular(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        head = f.read(SNIFF_BYTES)
        packed = path.name.endswith(".zstd") or head[:4] == _ZSTD_MAGIC
        start = max(0, size - (tail_bytes // 8 if packed else tail_bytes))  # text compresses 5-10 times
        if start and (packed or sniff_encoding(head) == "utf-8-sig"):
            f.seek(start)
            raw = f.read()
        else:
            start, raw = 0, head + f.read()
    if not packed and not start:
        return read_lines_of(path, raw), True
    cut = bool(start) and not packed  # a plain log's window begins inside a line; a frame begins with a whole one
    if packed and start:
        pos, out = raw.find(_ZSTD_MAGIC), b""
        while pos != -1 and not out:  # the magic number inside a compressed frame decodes to nothing: the next one
            out = decompress(raw[pos:])
            pos = raw.find(_ZSTD_MAGIC, pos + 1)
        raw = out
    elif packed:
        raw = decompress(raw)
    if packed and len(raw) > 4 * tail_bytes:  # frames of highly compressible text
        raw, cut = raw[-4 * tail_bytes:], True
    elif packed and not start:
        return split_lines(raw), True
    lines = _LINE_END.split(raw.decode("utf-8", "replace").rstrip("\r\n"))
    return (lines[1:] if cut else lines), False


def records(lines: list[str], stats: Counter | None = None) -> Iterator[tuple[int, dict]]:
    """``(line number, object)`` for each JSON-object line (a half-written last line is ``bad_json``)."""
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line.lstrip("\ufeff"))  # a mark left mid-file by joined copies
        except ValueError:
            if stats is not None:
                stats["bad_json"] += 1
            continue
        if isinstance(obj, dict):
            yield n, obj


def message_of(data: Any) -> dict:
    """The message of a ``user/message`` / ``assistant/message`` / ``tool/result`` event's data."""
    if not isinstance(data, dict):
        return {}
    msg = data.get("message")
    return msg if isinstance(msg, dict) else data


def text_blocks(content: Any) -> str:
    """The ``text`` blocks of a content list joined by blank lines (reasoning, tool calls and images left out)."""
    if not isinstance(content, list):
        return ""
    return "\n\n".join(b["text"] for b in content
                       if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)
                       and b["text"].strip())


#: the only lines the reply lookup parses (a long log is mostly chunk rows and tool output)
_MESSAGE_LINE = re.compile(r'"type"\s*:\s*"(?:user|assistant)/message"')


def turn_replies(lines: list[str], *, limit: int | None = None) -> list[tuple[int, str | None]]:
    """``(n, reply)`` per prompted turn, oldest first (``n`` counts them from 1): the text of the assistant
    messages after the turn's prompt, joined by blank lines (``None`` while the turn has no text yet). ``limit``:
    only the newest turns, found from the end of the log (only message lines are parsed)."""
    out: list[list[str]] = []
    texts: list[str] = []
    for line in reversed(lines):
        if '/message"' not in line or not _MESSAGE_LINE.search(line):
            continue
        try:
            rec = json.loads(line)
        except ValueError:
            continue  # a half-written last line
        if not isinstance(rec, dict):
            continue
        kind, data = rec.get("type"), rec.get("data")
        msg = message_of(data)
        if kind == "assistant/message":
            text = text_blocks(msg.get("content"))
            if text:
                texts.append(text)
        elif kind == "user/message":
            src = msg.get("source")
            if isinstance(src, dict) and src.get("kind") == "user" and text_blocks(msg.get("content")):
                out.append(texts[::-1])
                texts = []
                if limit is not None and len(out) >= limit:
                    break
    out.reverse()
    return [(i, "\n\n".join(x) or None) for i, x in enumerate(out, 1)]


def recent_replies(path: str | Path, *, turns: int = 2, wait_s: float = 0.3) -> list[str]:
    """The replies of the newest ``turns`` prompted turns of the DSH log at ``path``, oldest first — what the
    Stop hook captures (a reply already stored is a duplicate by its key, so each is stored once; one the log did
    not hold yet at this Stop is taken at the next). DSH writes its log in batches (200 ms by default): when the
    newest turn has no reply yet, the log is read once more after ``wait_s`` seconds. Never raises: a missing,
    unreadable, corrupt or too large log, or no zstd reader, gives ``[]`` (the last logged at debug level with
    :data:`ZSTD_HINT`)."""
    import logging

    log = logging.getLogger("memdir.hosts")
    tail = HOOK_TAIL_BYTES
    for attempt in (0, 1):
        try:
            lines, whole = read_tail_lines(path, tail)
            found = turn_replies(lines, limit=turns)
            while not found and not whole and tail < HOOK_MAX_BYTES:  # a long turn: its prompt lies further back
                tail *= 4
                lines, whole = read_tail_lines(path, tail)
                found = turn_replies(lines, limit=turns)
        except ZstdUnavailable:
            log.debug("dsh stop: %s", ZSTD_HINT)
            return []
        except Exception as exc:  # noqa: BLE001 — the hook fails open
            log.debug("dsh stop: no session log at %s (%s)", path, type(exc).__name__)
            return []
        if attempt == 0 and found and found[-1][1] is None and wait_s > 0:
            time.sleep(wait_s)
            continue
        break
    return [text for _, text in found[-turns:] if text]


def segment(raw: str) -> str:
    """DSH's escape of a session id as one path segment (``encodeSegment``)."""
    if raw == ".":
        return "~002E"
    if raw == "..":
        return "~002E~002E"
    return "".join(_escape(raw))


def _escape(raw: str) -> Iterator[str]:
    units = raw.encode("utf-16-le")
    for i in range(0, len(units), 2):
        code = int.from_bytes(units[i:i + 2], "little")
        ch = chr(code)
        if ch != "~" and _SAFE.fullmatch(ch):
            yield ch
        else:
            yield f"~{code:04X}"


def project_key(cwd: str) -> str:
    """DSH's project directory name for ``cwd`` (``projectKey``)."""
    out: list[str] = []
    run = False
    for piece in _escape(cwd):
        if piece in ("~002F", "~005C", "~003A"):
            if not run:
                out.append("-")
            run = True
        else:
            out.append(piece)
            run = False
    slug = "".join(out).lstrip("-") or "root"
    return f"--{slug[:251]}--"


def sessions_root(env: dict[str, str] | None = None) -> Path:
    """DSH's default session root, ``$DSH_HOME/sessions`` (``~/.dsh/sessions``)."""
    env = os.environ if env is None else env
    home = env.get("DSH_HOME", "")
    return (expand_user(home) if home.strip() else Path.home() / ".dsh") / "sessions"


def log_path(session: str, cwd: str | None, *, root: Path | None = None) -> Path | None:
    """The log of ``session`` under the default root (the existing one of ``.jsonl.zstd``/``.jsonl``), or None."""
    if not session:
        return None
    base = (root or sessions_root()) / (project_key(cwd) if cwd else "_no-cwd") / segment(session)
    return next((base / n for n in LOG_NAMES if (base / n).is_file()), None)


def peek_header(path: str | Path) -> dict:
    """The header line of a log (``{}`` when unreadable)."""
    try:
        for _, rec in records(read_lines(path)[:1]):
            return rec if rec.get("type") == "session" else {}
    except (OSError, ValueError):
        pass
    return {}


def iter_dsh(path: str | Path, *, stats: Counter | None = None) -> Iterator[dict]:
    """Yield the events of one DSH session log (``session.jsonl.zstd`` or ``session.jsonl``).

    stats: optional Counter incremented with ``lines``, ``bad_json``, ``bad_ts``, ``skipped:<reason>``. Events:
    ``{key, role, text, session, ts, source="dsh", meta={cwd?, turn?, tool?, call_id?, is_error?}}`` in log order.
    Raises ``FileNotFoundError`` for a missing path and :class:`ZstdUnavailable` without a zstd reader; a file whose
    first record is not a DSH session header yields nothing (one warning names it, ``skipped:not_dsh``), so a
    directory holding one still imports the others.
    """
    from memdir.capture.tools import tool_summary
    from memdir.portability.importers.jsonl import count, iso, make_event

    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"no DSH session log at {path}")
    lines = read_lines(path)
    count(stats, "lines", len(lines))
    header: dict = {}
    calls: dict[str, dict] = {}
    for n, rec in records(lines, stats):
        kind, data = rec.get("type"), rec.get("data")
        if not header:
            if kind != "session" or not isinstance(rec.get("id"), str):
                from memdir.lazylog import getLogger

                getLogger("memdir.portability.importers").warning(
                    "%s is not a DSH session log (no session header on its first line): skipped", path)
                count(stats, "skipped:not_dsh")
                return
            header = rec
            continue
        session = header["id"]
        ts = iso(rec.get("time") or header.get("createdAt"), stats)
        line_id = str(rec["seq"]) if isinstance(rec.get("seq"), int) else f"l{n}"
        meta: dict[str, Any] = {"cwd": header["cwd"]} if isinstance(header.get("cwd"), str) else {}
        if isinstance(data, dict) and isinstance(data.get("turn"), int):
            meta["turn"] = data["turn"]
        msg = message_of(data)
        if kind == "user/message":
            src = msg.get("source")
            text = text_blocks(msg.get("content"))
            if not (isinstance(src, dict) and src.get("kind") == "user"):
                count(stats, "skipped:injected")
            elif not text:
                count(stats, "skipped:empty")
            else:
                yield make_event(SOURCE, session, line_id, "user", text, ts, meta)
        elif kind == "assistant/message":
            text = text_blocks(msg.get("content"))
            if text:
                yield make_event(SOURCE, session, line_id, "assistant", text, ts, meta)
            else:
                count(stats, "skipped:no_text")
        elif kind == "tool/call" and isinstance(data, dict) and isinstance(data.get("callId"), str):
            calls[data["callId"]] = data
        elif kind == "tool/result":
            content = msg.get("content") if isinstance(msg.get("content"), list) else []
            blocks = [b for b in content if isinstance(b, dict) and b.get("type") == "tool-result"]
            for b in blocks:
                call = calls.get(b["toolCallId"], {}) if isinstance(b.get("toolCallId"), str) else {}
                name = call.get("name") if isinstance(call.get("name"), str) else "tool"
                try:
                    args = json.loads(call["arguments"]) if isinstance(call.get("arguments"), str) else None
                except ValueError:
                    args = call.get("arguments")
                is_error = bool(b.get("isError"))
                output = text_blocks(b.get("content"))
                text = tool_summary(name, args, output, is_error=is_error, cwd=meta.get("cwd"))
                yield make_event(SOURCE, session, line_id, "tool", text, ts,
                                 {**meta, "tool": name, "call_id": b.get("toolCallId"), "is_error": is_error},
                                 tool_input=args)
        else:
            count(stats, f"skipped:{kind}")
