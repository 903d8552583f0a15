"""Claude Code ``/export`` text files: the conversation as the terminal showed it, saved with ``/export FILE``.

Read from the real exports in ``shared/data/transcripts/claude-code-export`` (Claude Code 2.0.5x); the layout is what
the terminal draws, wrapped at its width (80 columns there):

* a header: the boxed welcome panel (``╭─── Claude Code vX ───╮`` … ``╰───╯``) or the compact logo, one of whose cells
  is the working directory, often shortened (``/…/synology/Adela/TRAP-WD-2020-04``);
* ``> `` at column 0 starts a user prompt; its wrapped lines follow at column 0, each break keeping the space it broke
  at (``\\`` at a line's end is a newline the user typed);
* ``● `` (``⏺ `` on macOS) at column 0 starts an assistant message (continuation lines indented two spaces) or a tool call
  ``● Name(arguments)`` (arguments wrapped onto lines indented six or seven spaces), whose result follows as
  ``  ⎿  …`` lines; ``… +N lines (ctrl+o to expand)`` marks output the terminal folded (the export does not hold it);
* ``═══ Conversation compacted ═══`` lines separate a compaction (``skipped:compaction``).

What becomes an event (keys ``import:claude-export:<file stem>:L<line of the block>``; session = the file stem):

* a prompt -> ``role="user"``; what follows its ``⎿`` marker is a local command's output: after a slash command
  (``/export …``) a ``role="tool"`` event ``claude: /export … → <output>`` (``is_error`` when it reads ``Failed …``),
  else ``skipped:command_output``;
* an assistant message -> ``role="assistant"`` (its lines dedented, the terminal's wraps undone); an ``⎿`` status
  after it (``Interrupted · …``) is ``skipped:status``, except a plan the user rejected or approved (``⎿  User
  rejected Claude's plan:`` and the boxed plan), which is an ``ExitPlanMode`` tool event of its own;
* a tool call -> one ``role="tool"`` event, text ``<Tool>: <arguments> → <output>`` with the display name mapped to
  the tool's own (``Update`` -> ``Edit``, ``Search`` -> ``Grep``: :data:`memdir.portability.importers.textlog.CANONICAL_TOOLS`),
  so the capture gate drops ``Read``/``Grep`` and shell reads as it does live; an output starting ``Error`` sets
  ``meta.is_error``. ``● User answered Claude's questions:`` and ``● Updated plan`` blocks are tool events
  (``AskUserQuestion``, ``ExitPlanMode``) whose output is the answers or the plan.

Times: the export records none. The session starts at the date in the file name (``2025-11-23-n.txt``) or, without
one, at the file's modification time; events are one millisecond apart in file order
(:func:`memdir.portability.importers.textlog.stamp`). ``meta.cwd`` is the header's directory when it names one that
can be found: a full path as written, or a shortened ``/…/a/b`` matched against the export file's own ancestors
(exports are usually saved inside the project); otherwise the session records no directory.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from memdir.capture.tools import summarise_tool
from memdir.lazylog import getLogger
from memdir.portability.importers.jsonl import count, make_event, text_line_id
from memdir.portability.importers.textlog import canonical_tool, file_time, read_text, stamp, time_from_name
from memdir.portability.importers.wraps import NEAR, columns, text_width, unwrap

log = getLogger("memdir.portability.importers")  # imports logging only when a record can go somewhere
SOURCE = "claude-export"
#: what starts a reply or a tool call at column 0: ``●`` (Linux, Windows), ``⏺`` (macOS terminals)
REPLY_MARKS = ("●", "⏺")
_CALL = re.compile(r"^([A-Z][A-Za-z]*(?: [A-Z][A-Za-z]*)*)\((.*)$", re.S)
#: the time limit Claude Code shows after a call given one: ``Bash(git push) timeout: 1m 0s``
_CALL_TIMEOUT = re.compile(r"(?<=\))\s+timeout: \d+(?:\.\d+)?[hms](?: \d+(?:\.\d+)?[hms])*\s*$")
_FOLD = re.compile(r"^…\s*\+(\d+) lines?\b.*$")
_SLASH = re.compile(r"^/[A-Za-z][\w.:-]*(?:\s|$)")  # a Claude Code slash command typed as the prompt
_FAILED = re.compile(r"^(?:Failed|Error|error|Could not|Cannot|Unable)\b")
_STATUS_TOOLS = {"user answered claude's questions": "AskUserQuestion", "updated plan": "ExitPlanMode",
                 "user approved claude's plan": "ExitPlanMode"}
_WIDTH = 80


def header_cwd(lines: list[str]) -> str | None:
    """The working directory a header names (a cell that is one path, ``/…`` or ``~`` included), or ``None``."""
    for line in lines:
        m = re.search(r"\bcwd:\s*(\S+)", line)
        if m:
            return m.group(1)
        for cell in line.split("│"):
            for part in re.split(r"\s{2,}", cell.strip()):
                if part[:1] in ("/", "~") and " " not in part and len(part) > 1:
                    return part
    return None


def locate_cwd(named: str | None, export_file: Path) -> str | None:
    """The directory ``named`` stands for: itself when it is a full path (``~`` expanded); for ``/…/tail`` the
    ancestor of ``export_file`` whose path ends with ``tail``; ``None`` when neither is known (``~user`` of a user this
    machine does not have, too)."""
    if not named:
        return None
    if "…" not in named:
        try:
            return str(Path(named).expanduser())
        except RuntimeError:  # ``~olduser/…`` from another machine: no such user here, so no such directory
            return None
    tail = [p for p in named.split("…", 1)[1].split("/") if p]
    if not tail:
        return None
    for parent in Path(export_file).resolve().parents:
        if list(parent.parts[-len(tail):]) == tail:
            return str(parent)
    return None


def _unwrap_prompt(lines: list[str], width: int) -> str:
    """A prompt's wrapped lines joined back: breaks keep their space, so a line that was cut is joined as is; a line
    ending in ``\\`` or much shorter than the width ended where the user pressed return."""
    out = ""
    for i, line in enumerate(lines):
        if i == 0:
            out = line
            continue
        prev = lines[i - 1]
        if out.endswith("\\"):
            out = out[:-1] + "\n" + line
        elif not prev.strip() or not line.strip():
            out += "\n" + line
        elif prev.endswith(" ") or line.startswith(" ") or len(prev) >= width - 8:
            out += line
        else:
            out += "\n" + line
    return out.strip()


def _join_call(lines: list[str], width: int) -> str:
    """A tool call's wrapped lines (as in the file, ``● `` included) joined. The terminal wraps at word boundaries
    and cuts inside a word only one too long for a whole row: a break is inside a word when the line before it fills
    the width, the word it splits (the last word of that line and the first of the next) is longer than the next
    row's room, and the next row is not indented further than the call's other rows (a row that starts with the
    space it was broken at is); any other break was at a space (``… && git`` / ``status --short``)."""
    out = lines[0][2:]
    base = min((len(x) - len(x.lstrip()) for x in lines[1:]), default=0)
    for prev, line in zip(lines, lines[1:]):
        word = len(prev.rsplit(" ", 1)[-1]) + len(line.strip().split(" ", 1)[0])
        ind = len(line) - len(line.lstrip())
        inside = len(prev) >= width and word > width - ind and ind <= base
        out += ("" if inside else " ") + line.strip()
    return out


def _output(lines: list[str], width: int) -> str:
    """The ``⎿`` result lines without their marker and indentation, terminal wraps rejoined (:func:`unwrap`); folds
    read ``[… N more lines not exported]``."""
    out = []
    for i, line in enumerate(lines):
        s = line.strip()
        m = _FOLD.match(s)
        # continuation lines sit five columns in, a wrapped status line four: only the indentation goes (a trailing
        # space stays: the terminal keeps the one it broke a line at, which tells a break between words)
        first = line.lstrip().lstrip("⎿").lstrip()
        out.append(f"[… {m.group(1)} more lines not exported]" if m else line[min(5, len(line) - len(line.lstrip(" "))):] if i
                   else first)
    return "\n".join(unwrap(out, width, result=True)).strip()


_PLAN_VERDICT = re.compile(r"^User (?:rejected|approved) Claude's plan\b")
_BORDER = re.compile(r"^[╭╰├─┌└][─┬┴┼┐┘╮╯┤ ]*$")


def _plan(result: list[str]) -> str | None:
    """A ``⎿  User rejected/approved Claude's plan:`` result: its verdict line and the boxed plan under it, unboxed
    (the box's ``│`` sides and borders gone, its wraps undone at the box's inner width); ``None`` for any other."""
    if not result:
        return None
    verdict = result[0].strip().lstrip("⎿").strip()
    if not _PLAN_VERDICT.match(verdict):
        return None
    rows, inner = [], 0
    for line in result[1:]:
        s = line.strip()
        if _BORDER.match(s):
            inner = max(inner, columns(s) - 4)
            continue
        if s.startswith("│"):
            s = s[1:].rstrip()
            s = s[:-1] if s.endswith("│") else s
            s = s[1:] if s.startswith(" ") else s
        rows.append(s.rstrip())
    body = "\n".join(unwrap(rows, inner or _WIDTH - 10)).strip()
    return verdict + ("\n" + body if body else "")


def _blocks(lines: list[str]) -> Iterator[tuple[int, str, list[str]]]:
    """``(1-based line, kind, lines)`` per block: kind ``user`` (``>``), ``assistant`` (``●``) or ``rule`` (``═``)."""
    kind, start, cur = None, 0, []
    for no, line in enumerate(lines, 1):
        head = line[:1]
        new = "user" if head == ">" else "assistant" if head in REPLY_MARKS else "rule" if head == "═" else None
        if new:
            if kind:
                yield start, kind, cur
            kind, start, cur = new, no, [line]
        elif kind:
            cur.append(line)
    if kind:
        yield start, kind, cur


def iter_claude_export(path: str | Path, *, stats: Counter | None = None) -> Iterator[dict]:
    """Yield the events of one Claude Code ``/export`` text file, in file order.

    path: the exported ``.txt``. stats: optional Counter incremented with ``parts`` (blocks read) and
    ``skipped:<reason>`` (``compaction``, ``command_output``, ``status``, ``empty``). Each event is
    ``{key, role, text, session, ts, source="claude-export", meta={line, cwd?, tool?, host_tool?, is_error?}}``
    (``ts`` ISO 8601 UTC, see the module docstring). A file with no reply mark (``●``/``⏺``), result mark (``⎿``) or
    export header yields nothing (a warning): its ``> `` lines are Markdown quotes or another tool's output, not prompts.
    Raises ``FileNotFoundError`` for a missing file; never raises for its content.
    """
    path = Path(path)
    lines = read_text(path).splitlines()
    first = next((i for i, ln in enumerate(lines) if ln[:1] == ">" or ln[:1] in REPLY_MARKS), len(lines))
    box = next((ln for ln in lines[:first] if ln.startswith("╭")), "")
    width = len(box) if box else _WIDTH
    cwd = locate_cwd(header_cwd(lines[:first]), path)
    # a file with no reply mark, no result mark and no export header (Markdown, an Aider history) holds no prompts:
    # its "> " lines are quotes or another tool's output
    exported = box or any(ln[:1] in REPLY_MARKS or "⎿" in ln or "Claude Code" in ln for ln in lines)
    blocks = list(_blocks(lines)) if exported else []
    if not blocks and any(ln.strip() for ln in lines):
        log.warning("%s: no prompt ('> ') or reply ('● ') at the start of a line: not a Claude Code /export text", path)
    # the columns an assistant message's lines (after ``● ``/two spaces) and a result's lines (after five) wrap at
    said = [ln[2:] for _, kind, b in blocks if kind == "assistant" and not any(x.lstrip().startswith("⎿") for x in b)
            for ln in b if ln[:1] in REPLY_MARKS or (ln.startswith("  ") and ln[2:3] != " ")]  # messages, not tool calls
    shown = [ln[5:] for _, kind, b in blocks for ln in b if ln.startswith("     ")]
    said_w, shown_w = text_width(said, width - 6), text_width(shown, width - 12)
    session = path.stem
    start = time_from_name(path.name) or file_time(path)
    base: dict = {"cwd": cwd} if cwd else {}
    n = 0
    for lineno, kind, block in blocks:
        count(stats, "parts")
        if kind == "rule":
            count(stats, "skipped:compaction")
            continue
        cut = next((i for i, ln in enumerate(block) if ln.lstrip().startswith("⎿")), len(block))
        body, result = block[:cut], block[cut:]
        meta = {**base, "line": lineno}
        if kind == "user":
            text = _unwrap_prompt([body[0][2:]] + body[1:], width)
            if not text:
                count(stats, "skipped:empty")
                continue
            yield make_event(SOURCE, session, text_line_id(f"L{lineno}", text), "user", text, stamp(start, n), meta)
            n += 1
            if result and _SLASH.match(text) and not text.startswith("/compact"):
                # what a slash command printed (``/export`` failing with ENOENT): the gate drops the command typed
                # as a prompt, so the call line is the command as typed
                output = _output(result, shown_w)
                failed = bool(_FAILED.match(output))
                typed = " ".join(text.split("\n", 1)[0].split())[:200]
                said = summarise_tool("claude", typed, output or None, is_error=failed)
                yield make_event(SOURCE, session, text_line_id(f"L{lineno + cut}", said), "tool", said,
                                 stamp(start, n), {**base, "line": lineno + cut, "tool": "claude",
                                                   "host_tool": "slash command", "is_error": failed})
                n += 1
            elif result:
                count(stats, "skipped:command_output")
            continue
        head = [body[0][2:]] + [ln.strip() for ln in body[1:]]
        call = _CALL.match(_join_call([b for b in body if b.strip()], width)) if result else None
        status = _STATUS_TOOLS.get(head[0].strip().rstrip(":").lower()) if result else None
        if call or status:
            display = call.group(1) if call else head[0].strip().rstrip(":")
            arg = call.group(2).rstrip() if call else ""
            arg = _CALL_TIMEOUT.sub("", arg)  # ``Bash(git push) timeout: 1m 0s``: the call's time limit, not its argument
            arg = arg[:-1] if arg.endswith(")") else arg
            name = canonical_tool(display) if call else status
            output = _output(result, shown_w)
            is_error = output.startswith("Error")
            tool_input = {"command": arg} if name == "Bash" else {"file_path": arg} if name in ("Read", "Write", "Edit") \
                else {"pattern": arg} if name in ("Grep", "Glob") else ({"arg": arg} if arg else None)
            text = summarise_tool(name, arg, output or None, is_error=is_error)
            yield make_event(SOURCE, session, text_line_id(f"L{lineno}", text), "tool", text, stamp(start, n),
                             {**meta, "tool": name, "host_tool": display, "is_error": is_error}, tool_input=tool_input)
            n += 1
            continue
        plan = _plan(result)
        if result and plan is None:
            count(stats, "skipped:status")
        text = "\n".join(unwrap([body[0][2:]] + [ln[2:] if ln.startswith("  ") else ln for ln in body[1:]],
                                said_w, NEAR)).strip()
        if text:
            yield make_event(SOURCE, session, text_line_id(f"L{lineno}", text), "assistant", text, stamp(start, n), meta)
            n += 1
        elif plan is None:
            count(stats, "skipped:empty")
        if plan is not None:  # the plan the user approved or rejected: what was decided, often nowhere else
            said = summarise_tool("ExitPlanMode", "", plan)
            yield make_event(SOURCE, session, text_line_id(f"L{lineno + cut}", said), "tool", said,
                             stamp(start, n), {**base, "line": lineno + cut, "tool": "ExitPlanMode",
                                               "host_tool": "ExitPlanMode", "is_error": False})
            n += 1
