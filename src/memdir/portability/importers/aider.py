"""Aider chat histories: ``<project>/.aider.chat.history.md`` (Aider appends to it at every launch; ``--chat-history-file``
names another file), and the same Markdown inside Aider's published example transcripts.

Read from the real files in ``shared/data/transcripts/aider`` (a project's history and the examples of Aider's site,
whose transcript sits in a ``<div class="chat-transcript">`` after a page introduction):

* ``# aider chat started at YYYY-MM-DD HH:MM:SS`` opens each launch: one session per launch (``aider-<YYYYMMDD-HHMMSS>``;
  a file without such a line is one session named after the file);
* ``#### `` lines are what the user typed (consecutive ones are one multi-line prompt); a typed answer to one of
  Aider's questions (``… (Y)es/(N)o …``) is ``skipped:confirm``;
* ``> `` lines are Aider's own output (tool messages, ``/run`` output, commits, errors). A run of them becomes one
  ``role="tool"`` event: ``aider: /run <command> → <output>`` after an in-chat command (the command as typed: ``/add
  a.py``, ``/run pytest``; after ``/run``/``/test``/``/lint``/``/git`` the shell gate judges the command, and an output
  holding a test failure or a traceback reads ``→ error: <why>``: Aider writes no exit status), else
  ``aider → <output>``; Aider's report of edit blocks it could not apply (``# 1 SEARCH/REPLACE block failed to
  match!`` and the unprefixed lines after it, through "The SEARCH section must exactly match …" and the lines on the
  blocks that were applied) is part of that output, a failed one (``→ error``), not the model's reply. The launch banner (what precedes a launch's first prompt: the
  command line, version, model, repository, files that could not be read) is such an event too, unless an earlier
  launch of the file printed the same one (``skipped:banner``); token/cost lines and ``Copied code context`` lines
  are left out (``skipped:noise``);
* every other line is the model's reply (``role="assistant"``), except ``<thinking-content-…>`` blocks
  (``skipped:thinking``). Each SEARCH/REPLACE edit block in it (``path`` then ``<<<<<<< SEARCH`` … ``=======`` …
  ``>>>>>>> REPLACE``, also ``ORIGINAL``/``UPDATED``) becomes a ``role="tool"`` ``Edit`` event ("file + what
  changed", :func:`memdir.capture.tools.tool_summary`); the reply keeps its prose.

Keys: ``import:aider:<session>:L<line>`` (``:e<n>`` for the n-th edit of a reply); Aider only appends, so a grown file
keeps its old keys. Times: the launch time (local time as written, stored as UTC), else the file's modification
time; events one millisecond apart. ``meta.cwd``: the directory holding a ``.aider.chat.history.md`` (Aider writes it
in the repository root); any other file name records no directory.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

from memdir.capture.tools import summarise_tool, tool_summary
from memdir.lazylog import getLogger
from memdir.portability.importers.jsonl import count, make_event, text_line_id
from memdir.portability.importers.textlog import RUN_FAILED, fence_of, file_time, read_text, stamp
from memdir.timeutil import from_local

SOURCE = "aider"
HISTORY_NAME = ".aider.chat.history.md"
log = getLogger("memdir.portability.importers")  # imports logging only when a record can go somewhere

_LAUNCH = re.compile(r"^# aider chat started at (\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2})\s*$")
_CONFIRM = re.compile(r"\(Y\)es/\(N\)o")
_NOISE = re.compile(r"^(?:Tokens: .*sent|Cost: |Copied code context|\^C|Cost estimates may be)")
_RUN = re.compile(r"^/(run|test|lint|git)\b\s*(.*)$", re.S)
_SLASH = re.compile(r"^/[a-z][\w-]*(\s|$)")  # an Aider in-chat command: /add, /drop, /run, /test, /undo, …
_EDIT = re.compile(r"^(?P<path>[^\n`<>=]+?)[ \t]*\n(?:`{3,}[^\n]*\n)?<<<<<<< (?:SEARCH|ORIGINAL)[ \t]*\n(?P<old>.*?)"
                   r"^=======[ \t]*\n(?P<new>.*?)^>>>>>>> (?:REPLACE|UPDATED)[ \t]*$", re.M | re.S)
#: the fence around an edit block once the block is cut out (the path stands inside the fence or just before it)
_EDIT_FENCE = re.compile(r"(?:^`{3,}[^\n]*\n)?\x00(?:\n[ \t]*`{3,}[ \t]*$)?", re.M)


#: Aider's report of edit blocks it could not apply: a ``> # 2 SEARCH/REPLACE blocks failed to match!`` line, then
#: unprefixed Markdown (each failed block under ``## SearchReplaceNoExactMatch: …``, "Did you mean …" lines) that
#: ends with the line :data:`_REPORT_END` starts, and, when other blocks of the reply were applied, three more lines
#: (``# The other 1 SEARCH/REPLACE block were applied successfully.`` … ``Just reply with fixed versions …``)
_REPORT = re.compile(r"^>\s*# \d+ SEARCH/REPLACE blocks? failed to match!")
_REPORT_END = "The SEARCH section must exactly match"


def _kind(line: str) -> str:
    if line.startswith("####"):
        return "user"
    if line.startswith(">"):
        return "tool"
    return "assistant"


def _groups(lines: list[tuple[int, str]], stats) -> Iterator[tuple[int, str, list[str]]]:
    """``(line, kind, lines)`` runs of one session; fenced blocks and thinking blocks stay whole."""
    kind, start, cur = None, 0, []
    fence = None
    thinking = None
    editing = False
    report = None  # in Aider's report of failed edit blocks: "body", "after" its last line, "other" (the tail)
    for no, line in lines:
        if report is not None:
            s = line.strip()
            said = line.startswith(("> ", "####")) or line.rstrip() == ">"  # not the report's ">>>>>>> REPLACE"
            if said or (report == "after" and s and not s.startswith("# The other ")):
                report = None  # Aider's next output, a prompt, or the model's reply: read as usual below
            else:  # Aider's words, not the model's, though not prefixed with "> "
                cur.append(line)
                if s.startswith(_REPORT_END):
                    report = "after"
                elif s.startswith("# The other "):
                    report = "other"
                elif report == "other" and s.startswith("Just reply with fixed versions"):
                    report = None
                continue
        if thinking:
            if line.strip().startswith(thinking):
                thinking = None
            continue
        m = re.match(r"^<(thinking-content-[\w-]+)>", line.strip())
        if m and fence is None:
            count(stats, "skipped:thinking")
            thinking = f"</{m.group(1)}>"
            continue
        # inside an edit block an (indented) fence is the file's text, not Markdown; the block ends at its marker, or
        # at the unindented closing fence when the reply was cut off (Ctrl-C) before the marker
        if (editing or line.startswith("<<<<<<< ")) and not (fence and line.rstrip() == fence):
            editing = not line.startswith(">>>>>>> ")
            cur.append(line)
            continue
        editing = False
        f = fence_of(line)
        if fence is not None:
            cur.append(line)
            if f == fence and line.strip() == f:
                fence = None
            continue
        k = _kind(line) if line.strip() else (kind if kind == "assistant" else None)
        if k is None:  # a blank line ends a prompt or an output run
            if cur:
                yield start, kind, cur
            kind, cur = None, []
            continue
        if k != kind:
            if cur:
                yield start, kind, cur
            kind, start, cur = k, no, []
        cur.append(line)
        if k == "tool" and _REPORT.match(line):
            report = "body"
        if f and k == "assistant":
            fence = f
    if cur:
        yield start, kind, cur


def _sessions(lines: list[str], path: Path) -> Iterator[tuple[str, datetime, list[tuple[int, str]]]]:
    numbered = list(enumerate(lines, 1))
    if any(ln.startswith('<div class="chat-transcript"') for ln in lines):  # a published example: only its divs
        inside, kept = False, []
        for no, ln in numbered:
            if ln.startswith('<div class="chat-transcript"'):
                inside = True
            elif inside and ln.strip() == "</div>":
                inside = False
                kept.append((no, ""))
            elif inside:
                kept.append((no, ln))
        numbered = kept
    heads = [(k, m.group(1)) for k, (_, ln) in enumerate(numbered) if (m := _LAUNCH.match(ln))]
    if not heads:
        yield path.stem, file_time(path), numbered
        return
    for j, (k, when) in enumerate(heads):
        end = heads[j + 1][0] if j + 1 < len(heads) else len(numbered)
        start = from_local(datetime.strptime(when, "%Y-%m-%d %H:%M:%S"))  # Aider writes local time
        yield f"aider-{start:%Y%m%d-%H%M%S}", start, numbered[k + 1:end]


def iter_aider(path: str | Path, *, stats: Counter | None = None) -> Iterator[dict]:
    """Yield the events of one Aider chat history Markdown file, in file order.

    path: a ``.aider.chat.history.md`` (or any file in that format). stats: optional Counter incremented with
    ``parts`` and ``skipped:<reason>`` (``banner``, ``confirm``, ``noise``, ``thinking``, ``empty``). Each event is
    ``{key, role, text, session, ts, source="aider", meta={line, cwd?, tool?}}`` (``ts`` ISO 8601 UTC, see the module
    docstring). Raises ``FileNotFoundError`` for a missing file; never raises for its content.
    """
    path = Path(path)
    lines = read_text(path).splitlines()
    if not any(_LAUNCH.match(ln) or ln.startswith("####") for ln in lines):  # no launch, no prompt: another file
        log.warning("%s: no '# aider chat started at' line and no '#### ' prompt: not an Aider chat history", path)
        return
    cwd = str(path.resolve().parent) if path.name == HISTORY_NAME else None
    base: dict = {"cwd": cwd} if cwd else {}
    banners: set[str] = set()
    for session, start, body in _sessions(lines, path):
        n = 0
        prompted = False
        last_prompt = ""
        for lineno, kind, group in _groups(body, stats):
            count(stats, "parts")
            meta = {**base, "line": lineno}
            if kind == "user":
                text = "\n".join(ln[4:].strip() for ln in group).strip()
                if _CONFIRM.search(text):
                    count(stats, "skipped:confirm")
                    continue
                prompted, last_prompt = True, text
                if not text:
                    count(stats, "skipped:empty")
                    continue
                yield make_event(SOURCE, session, text_line_id(f"L{lineno}", text), "user", text, stamp(start, n), meta)
                n += 1
            elif kind == "tool":
                # "> " lines, and the unprefixed lines of a failed-edit report (indentation kept: its code)
                kept = [x for x in (ln[1:].strip() if ln.startswith(">") else ln.rstrip() for ln in group) if x.strip()]
                out = [ln for ln in kept if not _NOISE.match(ln)]
                count(stats, "skipped:noise", len(kept) - len(out))
                if not out:
                    continue
                if not prompted:  # the launch banner: the command line, version, model, files and startup errors
                    banner = "\n".join(out)
                    if banner in banners:  # the same banner as an earlier launch's says nothing new
                        count(stats, "skipped:banner")
                        continue
                    banners.add(banner)
                run = _RUN.match(last_prompt)
                tool_input = {"command": run.group(2)} if run else None
                # after an in-chat command (``/run pytest …``, ``/add a.py``) the call line is that command as typed:
                # the gate drops the prompt itself (a slash command), and "which command did we run" asks for it
                typed = " ".join(last_prompt.split()) if _SLASH.match(last_prompt) else ""
                # Aider records no exit status: a /run or /test whose output holds a test runner's failure or a
                # traceback failed (its summary then leads with why, as a shell call's failure does)
                failed = bool(run) and bool(RUN_FAILED.search("\n".join(out))) or any(_REPORT.match(ln) for ln in group)
                text = summarise_tool("aider", typed, "\n".join(out), is_error=failed)
                last_prompt = ""  # the output of one /run is one event
                yield make_event(SOURCE, session, text_line_id(f"L{lineno}", text), "tool", text, stamp(start, n),
                                 {**meta, "tool": "Bash" if run else "aider"}, tool_input=tool_input)
                n += 1
            else:
                reply = "\n".join(group)
                edits = list(_EDIT.finditer(reply))
                prose = _EDIT_FENCE.sub("", _EDIT.sub("\x00", reply)).strip()
                if prose:
                    yield make_event(SOURCE, session, text_line_id(f"L{lineno}", prose), "assistant", prose, stamp(start, n), meta)
                    n += 1
                for e, m in enumerate(edits, 1):
                    tool_input = {"file_path": m.group("path").strip(), "old_string": m.group("old"),
                                  "new_string": m.group("new")}
                    text = tool_summary("Edit", tool_input, "", cwd=cwd)
                    yield make_event(SOURCE, session, text_line_id(f"L{lineno}:e{e}", text), "tool", text, stamp(start, n),
                                     {**meta, "tool": "Edit"}, tool_input=tool_input)
                    n += 1
                if not prose and not edits:
                    count(stats, "skipped:empty")
