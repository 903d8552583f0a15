"""Tool-call summaries, one function for hooks and importers: :func:`tool_summary`.

Most calls read ``<tool>: <main argument> → <first output lines>`` (:func:`summarise_tool`).
Calls that change files keep **which file and what changed** instead of the host's "file updated" reply, because
what the agent wrote is what a later session asks about:

=======================================  ==========================================================================
call                                     summary
=======================================  ==========================================================================
``Edit`` (``file_path``/``filePath``,      ``Edit: <file> (-2 +3 lines)`` then the changed lines, ``- old`` / ``+ new``
``old_string``, ``new_string``)          hunk by hunk (lines both sides share are dropped)
``MultiEdit`` (``edits: [...]``)           one such block per edit
``Write`` (``content``)                    ``Write: <file> (<n> lines)`` then the first lines of the content
``apply_patch`` (Codex patch text, as     ``apply_patch: Update <file>, Add <file>`` then each file's ``+``/``-`` lines
a string or ``{"input"|"patch": …}``;
OpenCode ``patch`` ``{"patchText": …}``;
a shell call whose command carries a
``*** Begin Patch`` text)
=======================================  ==========================================================================

Other hosts' names for the same calls (``edit_file``, ``write_file``, ``create_file``, ``replace``, ``str_replace``,
``str_replace_based_edit_tool``) read the same arguments (``old_str``/``new_str``, ``file_text`` too).

Bounds: at most :data:`CHANGE_MAX_LINES` changed lines per file (when cut, two thirds go to the added lines
and a last line says how many were left out), each line cut to
:data:`CHANGE_LINE_MAX_CHARS`, the whole text to :data:`TOOL_SUMMARY_MAX_CHARS`. A failed
call ends with ``→ error: <the lines that say why>`` (:func:`memdir.capture.evidence.failure_lines`, else its
first lines). Texts are redacted by the store (:meth:`memdir.Memdir.import_events`); a call's argument, a changed
file's text and whatever a bound cuts are redacted here too, before they are collapsed onto one line, marked ``+ ``/
``- `` or cut (a key's line structure, or its whole length, is what some patterns find it by). File paths under ``cwd`` are shown relative to it.
"""

from __future__ import annotations

import json
import re
from typing import Any


TOOL_SUMMARY_MAX_CHARS = 20_000
"""Upper bound (chars) of one tool event's text: ``<tool>: <argument> → <output>``. Outputs are kept whole up to it
(the same bound as any stored event, ``memdir.core.MAX_EVENT_CHARS``) and indexed as passages
(:mod:`memdir.recall.passages`), so an answer deep in a long output is found; the block shows a one-line summary or the
matching passage."""

TOOL_ARG_MAX_CHARS = 500
#: characters of a call's argument redacted line by line before it is collapsed: ample for the TOOL_ARG_MAX_CHARS the
#: call line shows, however much white space the collapse takes out
ARG_REDACT_CHARS = 20 * TOOL_ARG_MAX_CHARS
"""Upper bound (chars) of the argument part (command, path, query …), whitespace collapsed."""

TOOL_OUTPUT_MAX_LINES = 2000
"""Number of non-blank output lines kept after the arrow (the character bound usually comes first)."""

FAILURE_INLINE_LINES = 3
"""A failed call's output of at most this many lines is shown as it is after ``error: ``; a longer one is led by the
lines that say why it failed."""


#: a run of base64 this long, wrapped at any width (``base64 logo.png``, a data: URL, an inlined key file): data, not
#: text; an output keeps ``[N characters of base64]`` in its place (a probe stored 20,000 characters of one)
BASE64_RUN = 400
#: characters of each end of a long run whose mix of capitals, small letters and digits is judged
BASE64_SAMPLE = 32_768
_BASE64 = re.compile(r"[A-Za-z0-9+/]{40,}={0,2}(?:\r?\n[A-Za-z0-9+/]+={0,2})*")


def without_base64(output: str) -> str:
    """``output`` with each run of base64 of :data:`BASE64_RUN` characters or more replaced by ``[N characters of
    base64]``: one long line, or a block wrapped at one width (every line but the last as long as the first), whose
    characters are as mixed as encoded bytes are (capitals, small letters and digits each at least a tenth of them).
    Paths without dots (``/home/alice/Work/src/main/java``), hex hashes, a key id or a commit stay, and so does a
    short last line that reads as a word."""
    def cut(m: re.Match[str]) -> str:
        lines = m.group(0).splitlines()
        rest = ""
        if len(lines) > 1 and len(lines[-1]) < 40 and not re.search(r"[0-9+/=]", lines[-1]):
            rest = "\n" + lines.pop()  # "done" after the block: a word, not its last line
        run = "".join(lines)
        n = len(run)
        if n < BASE64_RUN or (len(lines) > 1 and any(len(x) != len(lines[0]) for x in lines[:-1])):
            return m.group(0)
        # judged on a sample: counting every character of a 10 MB run took seconds of a hook's budget
        seen = run if n <= 2 * BASE64_SAMPLE else run[:BASE64_SAMPLE] + run[-BASE64_SAMPLE:]
        upper, lower, digits = (sum(1 for ch in seen if f(ch)) for f in (str.isupper, str.islower, str.isdigit))
        if min(upper, lower, digits) < len(seen) / 10:
            return m.group(0)
        return f"[{n:,} characters of base64]{rest}"
    return _BASE64.sub(cut, output) if len(output) >= BASE64_RUN else output


#: characters past a cut redacted with the part kept (:func:`_redacted_head`): a key crossing the cut is seen whole,
#: or its piece falls in the margin, which is dropped
CUT_MARGIN = 2_000
#: a changed part (its window, :func:`_changed_window`) longer than this is redacted in its whole lines up to it
#: only: the few lines a hook's summary shows (``CHANGE_MAX_LINES``) come first, and the rest keeps its lines for the
#: counts (the store redacts what is stored whole); a 50,000-character bound made a hook's Write of a 50 KB file
#: 0.3-0.9 s slower
CHANGE_REDACT_CHARS = 16_000
#: the same for a history's every changed line (:func:`whole_change`: an import, not a hook's budget)
WHOLE_CHANGE_REDACT_CHARS = 50_000


def _marker_safe(text: str, n: int) -> int:
    """``n``, or the start of a redaction marker that ``n`` would cut in two."""
    from memdir.capture.redact import MARKER_RE

    i = text.rfind("[redacted:", max(0, n - 60), n)
    m = MARKER_RE.match(text, i) if i >= 0 else None
    return i if m is not None and m.end() > n else n


def _redacted_head(text: str, n: int) -> str:
    """At most the first ``n`` characters of ``text`` redacted: a cut made before redaction could halve a key
    into pieces no pattern knows (a JWT short of its signature)."""
    from memdir.capture.redact import redact

    h = redact(text[: n + CUT_MARGIN])
    keep = min(n, len(h) - CUT_MARGIN) if len(text) > n + CUT_MARGIN else min(n, len(h))
    return h[: _marker_safe(h, max(0, keep))]


def _redacted_tail(text: str, n: int) -> str:
    """At most the last ``n`` characters of ``text`` redacted (see :func:`_redacted_head`)."""
    from memdir.capture.redact import MARKER_RE, redact

    t = redact(text[-(n + CUT_MARGIN):]) if n else ""
    keep = min(n, len(t) - CUT_MARGIN) if len(text) > n + CUT_MARGIN else min(n, len(t))
    start = len(t) - max(0, keep)
    m = next((m for m in MARKER_RE.finditer(t, max(0, start - 60)) if m.start() < start < m.end()), None)
    return t[m.end() if m is not None else start:]


def _redacted_change(text: str, limit: int = CHANGE_REDACT_CHARS) -> str:
    """A file change's text redacted while its lines are whole and unmarked: the ``+ ``/``- `` marks and the cut at
    CHANGE_LINE_MAX_CHARS would hide a key found by its lines (a PuTTY key, a table's row) or halve a long one. Only
    its whole lines within the first ``limit`` characters when it is longer."""
    from memdir.capture.redact import redact

    if len(text) <= limit:
        return redact(text)
    cut = text.rfind("\n", 0, limit)
    cut = cut if cut > 0 else limit
    return redact(text[:cut]) + text[cut:]


def _one_line(value: str, limit: int) -> str:
    s = " ".join(str(value).split())
    return s if len(s) <= limit else s[: limit - 1] + "…"


def output_text(output: Any, *, dump: bool = True) -> str | None:
    """A host's tool output as text: a string itself; a list of content blocks, their texts joined (:func:`block_text`:
    an embedded resource's text, a link's URI; an image left out); a dict's ``stdout``, ``output``, ``content`` (a
    string, or an MCP result's list of blocks), ``result``, ``stderr``, ``error`` (Claude Code's Bash shape and
    others), else — with ``dump`` — the dict as JSON (at most 4,000 chars), without it ``""``. ``None`` stays
    ``None``."""
    if output is None:
        return None
    if isinstance(output, str):
        return output
    if isinstance(output, list):
        return "\n".join(t for t in map(block_text, output) if t is not None)
    if isinstance(output, dict):
        parts = []
        for k in ("stdout", "output", "content", "result", "stderr", "error"):
            v = output.get(k)
            # an MCP result's content is a list of blocks: their text (a JSON dump of it is mostly image data)
            said = output_text(v) if k == "content" and isinstance(v, list) else str(v) if isinstance(v, (str, int, float)) else ""
            if said.strip():
                parts.append(said)
        if parts or not dump:
            return "\n".join(parts)
        return json.dumps(output, ensure_ascii=False, default=str)[:4000]
    return str(output)


def block_text(b: Any) -> str | None:
    """One content block's text (an MCP tool result's ``content`` item): a string itself, a ``text`` block's text, an
    embedded resource's text, a resource link's URI; ``None`` for one without text (an image, audio: its base64 data
    says nothing to recall)."""
    if isinstance(b, str):
        return b
    if not isinstance(b, dict):
        return None
    if isinstance(b.get("text"), str):
        return b["text"]
    res = b.get("resource")
    if isinstance(res, dict) and isinstance(res.get("text"), str):
        return res["text"]
    if b.get("type") == "resource_link" and isinstance(b.get("uri"), str):
        return b["uri"]
    return None


def output_exit_code(output: Any) -> int | None:
    """The exit status a dict output carries (``exit_code``/``exitCode``/``returncode``/``exit``), else ``None``."""
    if not isinstance(output, dict):
        return None
    return next((output[k] for k in ("exit_code", "exitCode", "returncode", "exit")
                 if isinstance(output.get(k), int) and not isinstance(output.get(k), bool)), None)


def summarise_tool(name: str, arg: str, output: str | None, *, is_error: bool = False,
                   exit_code: int | None = None) -> str:
    """One tool event text: ``<name>: <arg> → <first output lines>``, bounded.

    ``arg`` is whitespace-collapsed and cut to ``TOOL_ARG_MAX_CHARS``; the output keeps its non-blank
    lines (beyond ``TOOL_OUTPUT_MAX_LINES``, the first 70% and last 30% of them); ``output=None`` means no result was recorded
    (``→ (no result)``). A failed call (``is_error``, or an ``exit_code`` other than 0, given or written into the
    output as ``Exit code 1`` …: :func:`memdir.capture.evidence.exit_status`) reads ``→ error (exit 1): <why>``:
    ``<why>`` is the lines that say why it failed (:func:`memdir.capture.evidence.failure_lines`; else the output's
    last line), one per line, before the whole output. The whole text is cut to
    ``TOOL_SUMMARY_MAX_CHARS`` chars: when longer, its first 70% and last 30% are kept around a
    ``[… N chars elided …]`` line.
    """
    if arg:
        # redacted while its lines are lines: collapsed onto the call line, a table's row, a YAML value on the next
        # line, a name/value pair, a heredoc would no longer read as one (the store redacts the whole text again)
        from memdir.capture.redact import redact

        arg = str(arg)
        # only the part the call line can show (a 500 KB heredoc cost 40-95 ms of the hook redacted whole)
        cut = ARG_REDACT_CHARS if len(arg) > ARG_REDACT_CHARS else len(arg)
        arg = redact(arg[:cut])
    head = f"{name}: {_one_line(arg, TOOL_ARG_MAX_CHARS)}" if arg else f"{name}"
    if output is None:
        tail = "(no result)"
    else:
        from memdir.capture import evidence

        code = exit_code if exit_code is not None else evidence.exit_status(output)
        lines = [ln.rstrip() for ln in without_base64(str(output)).splitlines() if ln.strip()]
        failed = is_error or code not in (None, 0)
        if failed and lines and evidence.is_exit_line(lines[0]):
            lines = lines[1:]  # "Exit code 1": the status below says it
        if len(lines) > TOOL_OUTPUT_MAX_LINES:
            head_n = int(TOOL_OUTPUT_MAX_LINES * 0.7)
            tail_n = TOOL_OUTPUT_MAX_LINES - head_n
            why = evidence.failure_lines(lines) if failed else []
            lines = lines[:head_n] + [f"… ({len(lines) - TOOL_OUTPUT_MAX_LINES} lines elided)"] + lines[-tail_n:]
        else:
            why = evidence.failure_lines(lines) if failed else []
        body = "\n".join(lines)
        tail = body or "(no output)"
        if failed:
            status = f"error (exit {code})" if code not in (None, 0) else "error"
            if not why and lines:  # nothing reads as an error: a command's verdict is its last line
                why = [_one_line(lines[-1], evidence.FAILURE_LINE_MAX_CHARS)]
            top = {_one_line(x, evidence.FAILURE_LINE_MAX_CHARS) for x in lines[:FAILURE_INLINE_LINES]}
            if why and all(x in top for x in why[:1]):
                why = []  # the output opens with why it failed already: said once
            if why and len(lines) > FAILURE_INLINE_LINES:  # why it failed first: what a one-line view shows
                tail = status + ": " + "\n".join(why) + "\n" + body
            else:
                tail = status + ": " + tail
    text = f"{head} → {tail}"
    if len(text) > TOOL_SUMMARY_MAX_CHARS:  # keep the head and the tail (test summaries, exit codes live at the end)
        mark = f"\n[… {len(text) - TOOL_SUMMARY_MAX_CHARS + 40} chars elided …]\n"
        keep = TOOL_SUMMARY_MAX_CHARS - len(mark)
        head_n = int(keep * 0.7)
        text = _redacted_head(text, head_n) + mark + _redacted_tail(text, keep - head_n)
    return text


_ARG_KEYS = ("command", "cmd", "file_path", "filePath", "pattern", "path", "query", "url", "description",
             "prompt", "task_id", "skill", "notebook_path", "plan", "shell_id", "bash_id")


def primary_arg(tool_input: Any) -> str:
    """The most telling argument of a tool call (command, path, pattern, query, url …) as a string.

    Dicts: the first present key of ``command, cmd, file_path, filePath, pattern, path, query, url,
    description, prompt, task_id, skill, notebook_path, plan, shell_id, bash_id`` (lists such as
    ``["bash","-lc","ls"]`` give their last element; ``pattern`` is followed by `` in <path>`` when both exist); the
    questions of an ``AskUserQuestion`` joined by `` / ``; otherwise the compact JSON of the input. Strings are
    returned as they are.
    """
    if tool_input is None:
        return ""
    if isinstance(tool_input, str):
        return tool_input
    if isinstance(tool_input, dict):
        for k in _ARG_KEYS:
            v = tool_input.get(k)
            if v in (None, "", [], {}):
                continue
            if isinstance(v, list) and all(isinstance(x, str) for x in v):
                v = v[-1] if len(v) >= 3 and v[0].endswith("sh") else " ".join(v)
            elif not isinstance(v, str):
                v = json.dumps(v, ensure_ascii=False, separators=(",", ":"))
            if k == "pattern" and isinstance(tool_input.get("path"), str) and tool_input["path"]:
                v = f"{v} in {tool_input['path']}"
            return v
        chars = tool_input.get("chars")
        if isinstance(chars, str):  # input typed into a running command (Codex's write_stdin); none is a poll
            return f"input {keys_text(chars)}" if chars else "poll"
        asked = tool_input.get("questions")  # AskUserQuestion: what was asked, not its JSON (the answer repeats it)
        if isinstance(asked, list) and asked and all(isinstance(q, dict) and isinstance(q.get("question"), str)
                                                     for q in asked):
            return " / ".join(q["question"] for q in asked)
    return json.dumps(tool_input, ensure_ascii=False, separators=(",", ":"), default=str)


#: keys a terminal reads as escape sequences or control characters, by the names people use for them
_KEY_SEQUENCES = {"\r\n": "Enter", "\x1b[A": "Up", "\x1b[B": "Down", "\x1b[C": "Right", "\x1b[D": "Left",
                  "\x1bOA": "Up", "\x1bOB": "Down", "\x1bOC": "Right", "\x1bOD": "Left", "\x1b[3~": "Delete",
                  "\r": "Enter", "\n": "Enter", "\t": "Tab", "\x1b": "Esc", "\x7f": "Backspace", "\x08": "Backspace"}


def keys_text(chars: str) -> str:
    """``chars`` sent to a terminal as a person would say them: runs of printable text quoted, each key by its name
    (``"q\\n"`` is ``'q' Enter``, ``"\\x03"`` is ``Ctrl-C``, ``"\\x1b[A"`` is ``Up``), space-separated; ``''`` for none.
    A question about it says "Ctrl-C", which ``'\\x03'`` never matches."""
    out: list[str] = []
    run: list[str] = []
    i = 0
    while i < len(chars):
        seq = next((k for k in _KEY_SEQUENCES if chars.startswith(k, i)), None)
        c = chars[i]
        if seq is None and ord(c) >= 32:
            run.append(c)
            i += 1
            continue
        if run:
            out.append(repr("".join(run)))
            run = []
        if seq is not None:
            out.append(_KEY_SEQUENCES[seq])
            i += len(seq)
        else:  # Ctrl-A .. Ctrl-Z, Ctrl-@ and the rest of C0
            out.append(f"Ctrl-{chr(ord(c) + 64)}")
            i += 1
    if run:
        out.append(repr("".join(run)))
    return " ".join(out) or "''"



CHANGE_MAX_LINES = 12
"""Changed lines kept per file (``-`` and ``+`` lines together)."""
CHANGE_LINE_MAX_CHARS = 140
"""Each changed line is cut to this many characters."""

EDIT_TOOLS = frozenset({"edit", "multiedit", "write", "apply_patch", "patch", "str_replace_based_edit_tool",
                        "edit_file", "write_file", "create_file", "replace", "str_replace"})
_PATCH_FILE = re.compile(r"^\*\*\* (Add|Update|Delete) File: (.+)$")
_PATCH_MOVE = re.compile(r"^\*\*\* Move to: (.+)$")


def _get(d: dict, *keys: str) -> Any:
    for k in keys:
        v = d.get(k)
        if v not in (None, ""):
            return v
    return None


def _rel(path: str, cwd: str | None) -> str:
    p = str(path).strip()
    if cwd:
        base = str(cwd).rstrip("/\\")
        if base and p.startswith(base + "/"):
            return p[len(base) + 1:]
    return p


def _line(s: str) -> str:
    s = s.rstrip()
    return s if len(s) <= CHANGE_LINE_MAX_CHARS else s[: CHANGE_LINE_MAX_CHARS - 1] + "…"


def _bounded(lines: list[str]) -> list[str]:
    if len(lines) <= CHANGE_MAX_LINES:
        return lines
    return lines[:CHANGE_MAX_LINES] + [f"… (+{len(lines) - CHANGE_MAX_LINES} lines)"]


def _bounded_diff(lines: list[str]) -> list[str]:
    """At most ``CHANGE_MAX_LINES`` of ``- ``/``+ `` lines, in order; when cut, the added lines (what the agent
    wrote) get two thirds of the room, and a last line says how many of each were left out."""
    if len(lines) <= CHANGE_MAX_LINES:
        return lines
    plus = [i for i, x in enumerate(lines) if x.startswith("+")]
    minus = [i for i, x in enumerate(lines) if not x.startswith("+")]
    n_plus = min(len(plus), max(CHANGE_MAX_LINES * 2 // 3, CHANGE_MAX_LINES - len(minus)))
    n_minus = CHANGE_MAX_LINES - n_plus
    keep = set(plus[:n_plus]) | set(minus[:n_minus])
    out = [x for i, x in enumerate(lines) if i in keep]
    return out + [f"… (-{len(minus) - min(n_minus, len(minus))} +{len(plus) - n_plus} more lines)"]


def _hunks(a: list[str], b: list[str]) -> list[tuple[list[str], list[str]]]:
    """``[(removed lines, added lines), …]`` between line lists ``a`` and ``b``: :class:`difflib.SequenceMatcher`
    opcodes (lines both sides share are dropped), or one hunk after trimming the common head and tail when the
    texts are too large for it (more than 250,000 line pairs)."""
    if len(a) * len(b) <= 250_000:
        import difflib  # only when a file edit is summarised (the hook path stays light)

        sm = difflib.SequenceMatcher(None, a, b, autojunk=False)
        return [(a[i1:i2], b[j1:j2]) for op, i1, i2, j1, j2 in sm.get_opcodes() if op != "equal"]
    i, j = _common_ends(a, b)
    return [(a[i: len(a) - j], b[i: len(b) - j])]


def _common_ends(a: list[str], b: list[str]) -> tuple[int, int]:
    """``(head, tail)``: how many lines ``a`` and ``b`` share at their start, then at their end (not overlapping)."""
    i = 0
    while i < len(a) and i < len(b) and a[i] == b[i]:
        i += 1
    j = 0
    while j < len(a) - i and j < len(b) - i and a[len(a) - 1 - j] == b[len(b) - 1 - j]:
        j += 1
    return i, j


#: unchanged lines around a change redacted with it: a key found by its lines (a PEM or PuTTY block, a table) may
#: start this far above the changed line (a 4096-bit RSA key is about 50 lines)
CHANGE_CONTEXT_LINES = 64


def _changed_window(a: list[str], b: list[str]) -> tuple[int, int, int]:
    """``(lo, hi_a, hi_b)``: the lines ``a[lo:hi_a]`` / ``b[lo:hi_b]`` holding every difference between ``a`` and
    ``b`` (their common head and tail trimmed) and up to :data:`CHANGE_CONTEXT_LINES` unchanged lines on each side."""
    i, j = _common_ends(a, b)
    tail = max(0, j - CHANGE_CONTEXT_LINES)
    return max(0, i - CHANGE_CONTEXT_LINES), len(a) - tail, len(b) - tail


def diff_lines(old: str, new: str, redact_chars: int = CHANGE_REDACT_CHARS) -> tuple[list[str], int, int]:
    """``(["- old line", "+ new line", …], removed, added)``: what ``new`` changed in ``old``, line by line, hunk by
    hunk (an insertion shows only ``+`` lines; blank lines are counted but not shown). The lines shown are those of
    the changed part redacted with the unchanged lines around it (:func:`_changed_window`: a whole file's text is
    not redacted for a one-line change; at most ``redact_chars`` of it, :func:`_redacted_change`); the counts are
    the texts' own."""
    a, b = str(old or "").splitlines(), str(new or "").splitlines()
    lo, hi_a, hi_b = _changed_window(a, b)
    a, b = a[lo:hi_a], b[lo:hi_b]
    shown_old, shown_new = _redacted_change("\n".join(a), redact_chars), _redacted_change("\n".join(b), redact_chars)
    out: list[str] = []
    removed = added = 0
    for gone, came in _hunks(shown_old.splitlines(), shown_new.splitlines()):
        removed += len(gone)
        added += len(came)
        out += [_line("- " + x) for x in gone if x.strip()] + [_line("+ " + x) for x in came if x.strip()]
    if (shown_old, shown_new) != ("\n".join(a), "\n".join(b)):  # a redacted key spanning lines is one line less:
        removed = added = 0  # count the texts' own
        for gone, came in _hunks(a, b):
            removed += len(gone)
            added += len(came)
    return out, removed, added


def _edit_block(path: str, old: Any, new: Any, cwd: str | None, replace_all: bool = False) -> list[str]:
    lines, removed, added = diff_lines(str(old or ""), str(new or ""))
    head = f"{_rel(path, cwd)} (-{removed} +{added} lines{', every occurrence' if replace_all else ''})"
    return [head, *_bounded_diff(lines)]


def whole_change(name: str, path: str, old: str, new: str) -> str:
    """A file change's stored text with every changed line: ``<name>: <path> (-r +a lines)`` then its ``- old`` /
    ``+ new`` lines, cut at ``TOOL_SUMMARY_MAX_CHARS`` (``…``). For a history whose only record of the change is the
    diff it shows (a capture bounds the lines at ``CHANGE_MAX_LINES``: the file itself is in the project then)."""
    lines, removed, added = diff_lines(old, new, WHOLE_CHANGE_REDACT_CHARS)
    text = "\n".join([f"{name}: {path} (-{removed} +{added} lines)", *lines])
    return text if len(text) <= TOOL_SUMMARY_MAX_CHARS else _redacted_head(text, TOOL_SUMMARY_MAX_CHARS - 1) + "…"


def _patch_blocks(patch: str, cwd: str | None) -> tuple[list[str], list[str]]:
    """``(["Update a.py", …], body lines)`` of a Codex ``*** Begin Patch`` text."""
    files: list[str] = []
    body: list[str] = []
    current: list[str] = []
    header = -1  # index in body of the current file's header line

    def flush() -> None:
        if current:
            body.extend(_bounded(current))
            current.clear()

    for raw in patch.splitlines():
        m = _PATCH_FILE.match(raw)
        if m:
            flush()
            name = f"{m.group(1)} {_rel(m.group(2), cwd)}"
            files.append(name)
            header = len(body)
            body.append(name)
            continue
        mv = _PATCH_MOVE.match(raw)
        if mv and files:
            files[-1] += f" → {_rel(mv.group(1), cwd)}"
            body[header] = files[-1]
            continue
        if raw.startswith(("+", "-")) and not raw.startswith(("+++", "---")) and raw[1:].strip():
            current.append(_line(f"{raw[0]} {raw[1:]}"))
    flush()
    return files, body


def describe_change(name: str, tool_input: Any, *, cwd: str | None = None) -> str | None:
    """``<file> (-r +a lines)`` + changed lines for a file-changing call (table in the module docstring), or
    ``None`` when ``name``/``tool_input`` is not one (the caller then uses the generic summary). Unbounded in
    total; each file's lines are bounded."""
    n = name.strip().lower()
    if n not in EDIT_TOOLS:
        return None
    args = tool_input
    if isinstance(args, str) and "*** Begin Patch" not in args:
        try:
            args = json.loads(args)
        except json.JSONDecodeError:
            return None
    patch = _get(args, "input", "patch", "patchText") if isinstance(args, dict) else None
    if isinstance(patch, str) and "*** Begin Patch" in patch:  # Codex {"input": …}, OpenCode patch {"patchText": …}
        args = patch
    if isinstance(args, str):
        files, body = _patch_blocks(args, cwd)
        return ", ".join(files) + "\n" + "\n".join(body[1:] if len(files) == 1 else body) if files else None
    if not isinstance(args, dict):
        return None
    path = _get(args, "file_path", "filePath", "path", "notebook_path")
    if not isinstance(path, str):
        return None
    edits = args.get("edits")
    if isinstance(edits, list) and edits:
        out = [f"{_rel(path, cwd)} ({len(edits)} edits)"]
        for e in edits:
            if isinstance(e, dict):
                out += _edit_block(path, _get(e, "old_string", "oldString"), _get(e, "new_string", "newString"),
                                   cwd, bool(e.get("replace_all") or e.get("replaceAll")))[1:]
        return "\n".join(out)
    old, new = _get(args, "old_string", "oldString", "old_str"), _get(args, "new_string", "newString", "new_str")
    if old is not None or new is not None:
        return "\n".join(_edit_block(path, old, new, cwd, bool(args.get("replace_all") or args.get("replaceAll"))))
    content = _get(args, "content", "file_text")
    if isinstance(content, str):
        lines = [_line(x) for x in _redacted_change(content).splitlines() if x.strip()]
        return "\n".join([f"{_rel(path, cwd)} ({len(content.splitlines())} lines)", *_bounded(lines)])
    return None


def tool_summary(name: str, tool_input: Any, output: str | None, *, is_error: bool = False,
                 cwd: str | None = None, exit_code: int | None = None) -> str:
    """The stored text of one tool call, for hooks and importers alike (see the module docstring).

    ``tool_input``: the call's arguments (dict, JSON string, or Codex patch text). ``output``: the result text
    (``None`` = no result recorded). ``exit_code``: a command's exit status when the host records it apart from the
    output (Codex, OpenCode). Returns at most ``TOOL_SUMMARY_MAX_CHARS`` characters."""
    change = describe_change(name, tool_input, cwd=cwd)
    arg = primary_arg(tool_input) if change is None else ""
    if change is None and "*** Begin Patch" in arg and "*** End Patch" in arg:
        # a patch applied through a shell tool (`apply_patch <<'EOF'` from Codex's shell, a hook's Bash call)
        name, change = "apply_patch", describe_change("apply_patch", arg[arg.index("*** Begin Patch"):], cwd=cwd)
    if change is None:
        return summarise_tool(name, arg, output, is_error=is_error, exit_code=exit_code)
    text = f"{name}: {change}"
    if is_error and output:
        from memdir.capture.evidence import failure_lines

        lines = [ln.strip() for ln in str(output).splitlines() if ln.strip()]
        text += "\n→ error: " + " ".join((failure_lines(lines) or lines)[:2])
    elif output is None:
        text += "\n→ (no result)"
    if len(text) > TOOL_SUMMARY_MAX_CHARS:
        text = _redacted_head(text, TOOL_SUMMARY_MAX_CHARS - 1) + "…"
    return text
