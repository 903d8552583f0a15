"""Claude Code session transcripts: ``~/.claude/projects/<project>/<session>.jsonl`` and subagent files
under ``<session>/subagents/*.jsonl``.

The line format is undocumented (HOSTS.md ⚠); this parser follows what the real files in
``shared/data/transcripts/claude-code`` (Claude Code 2.0-2.1) and a 2.1.197 session recorded by the issue-9
end-to-end run (``tests/fixtures/importers/claude_2_1_197.jsonl``) contain:

* ``type: user|assistant`` lines carry ``message.content`` (a string or a list of blocks ``text``,
  ``thinking``, ``tool_use{id,name,input}``, ``tool_result{tool_use_id,content,is_error}``), plus
  ``uuid``, ``sessionId``, ``timestamp``, ``cwd`` and, in subagent files, ``agentId``/``isSidechain``.
* ``file-history-snapshot``, ``progress``, ``summary``, ``system``, ``queue-operation`` and (2.1.19x)
  ``attachment`` (hook output such as our own ``<memory>`` block, skill and agent listings) and
  ``last-prompt`` lines are skipped (``skipped:<type>``), any other type too (``skipped:unknown``).

What becomes an event (keys ``import:claude-code:<sessionId>:<id>``):

* user text → ``role="user"``, id = the line's ``uuid``. Skipped here, by the line's structure: ``isMeta``
  lines (``skipped:meta``), compaction summaries (``isCompactSummary``, ``skipped:compact_summary``), user
  lines that only carry tool results (``skipped:tool_result_only``: they are folded into the tool event) and a
  sub-agent's user text (``isSidechain``, in a 1.0 session file or a ``subagents/`` file: the prompt the main agent
  wrote for it, which its ``Task`` call already holds; ``skipped:sidechain_prompt``); the sub-agent's replies and
  tool calls are kept, but for the reply that went back to the main agent as its ``Task``/``Agent`` call's result
  (``skipped:subagent_answer``: that call's event holds it).
  What the text says (slash-command echoes ``<command-name>``, ``<local-command-…>`` output, the host's
  ``[Request interrupted by user…]`` marker, ``<task-notification>``, ``continue`` …) is judged by the capture
  gate (:func:`memdir.capture.gates.gate`), the same function the hooks call, not here.
* assistant text blocks of one line, joined → ``role="assistant"``, id = ``uuid``; whitespace-only text
  is ``skipped:empty``; ``thinking`` blocks are never imported (``skipped:thinking``).
* each ``tool_use`` block + its ``tool_result`` (found anywhere in the file) → ONE ``role="tool"`` event,
  id = the ``tool_use`` id, text from :func:`~memdir.capture.tools.tool_summary` (the whole output, bounded
  to 20,000 chars; ``Edit``/``Write``/``MultiEdit`` as "file + what changed", paths relative to the line's ``cwd``);
  ``meta.is_error`` notes a failed call. A call without a result reads ``→ (no result)`` and counts
  ``info:tool_without_result``. ``Read``/``Grep``/``Glob`` calls are yielded too: the gate drops them.

Texts are kept as they are: gating and redaction happen later (:mod:`memdir.portability.transcripts`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from memdir.capture.tools import tool_summary
from memdir.capture.tools import TOOL_SUMMARY_MAX_CHARS
from memdir.portability.importers.jsonl import count, iso, make_event, read_jsonl

SOURCE = "claude-code"
SKIP_TYPES = frozenset({"file-history-snapshot", "progress", "summary", "system", "queue-operation",
                        "attachment", "last-prompt"})


def _result_text(content) -> str:
    """Text of a ``tool_result.content`` (a string or a list of ``text``/``image`` blocks)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, dict):
                if block.get("type") == "text" and isinstance(block.get("text"), str):
                    parts.append(block["text"])
                elif block.get("type") == "image":
                    parts.append("[image]")
            elif isinstance(block, str):
                parts.append(block)
        return "\n".join(parts)
    return "" if content is None else str(content)


def _collect_results(path: Path) -> dict[str, tuple[str, bool]]:
    """First pass: ``tool_use_id -> (result text, is_error)``; a long result is held as its head and tail
    (:func:`_bounded`)."""
    results: dict[str, tuple[str, bool]] = {}
    for _, obj in read_jsonl(path, None, label=SOURCE, warn=False):
        if obj.get("type") != "user":
            continue
        content = (obj.get("message") or {}).get("content") if isinstance(obj.get("message"), dict) else None
        if not isinstance(content, list):
            continue
        for block in content:
            if isinstance(block, dict) and block.get("type") == "tool_result" and block.get("tool_use_id"):
                results[str(block["tool_use_id"])] = (_bounded(_result_text(block.get("content"))),
                                                      bool(block.get("is_error")))
    return results


def _bounded(text: str) -> str:
    """A tool result held between the two passes: its first and last ``TOOL_SUMMARY_MAX_CHARS`` characters when
    longer (the summary keeps a head and a tail, as a hook's capture does: a test run's verdict and an exit status
    live at the end; only the first part was kept, and a failure read as the middle of a line)."""
    if len(text) <= 2 * TOOL_SUMMARY_MAX_CHARS:
        return text
    head, tail = text[:TOOL_SUMMARY_MAX_CHARS], text[-TOOL_SUMMARY_MAX_CHARS:]
    return head[:head.rfind("\n") + 1 or len(head)] + "…\n" + tail[tail.find("\n") + 1:]


#: the tools whose result is a sub-agent's last reply
DELEGATING_TOOLS = frozenset({"Task", "Agent"})
#: the sub-agents' answers of the last session file read for them (a session's sub-agent files share it)
_ANSWERS: dict[tuple, list[str]] = {}


def _delegated_answers(session_file: Path) -> list[str]:
    """The results (whitespace collapsed) the main agent got back from its sub-agents' ``Task``/``Agent`` calls in
    ``session_file``; ``[]`` when it is missing or unreadable."""
    try:
        st = session_file.stat()
    except OSError:
        return []
    key = (str(session_file), st.st_size, st.st_mtime_ns)
    if key not in _ANSWERS:
        calls: set[str] = set()
        results: dict[str, str] = {}
        try:
            for _, obj in read_jsonl(session_file, None, label=SOURCE, warn=False):
                content = obj["message"].get("content") if isinstance(obj.get("message"), dict) else None
                for b in content if isinstance(content, list) else ():
                    if not isinstance(b, dict):
                        continue
                    if b.get("type") == "tool_use" and b.get("name") in DELEGATING_TOOLS and b.get("id"):
                        calls.add(str(b["id"]))
                    elif b.get("type") == "tool_result" and b.get("tool_use_id"):
                        results[str(b["tool_use_id"])] = " ".join(_result_text(b.get("content")).split())
        except OSError:
            pass
        _ANSWERS.clear()
        _ANSWERS[key] = [results[c] for c in calls if results.get(c)]
    return _ANSWERS[key]


def _answer_given(path: Path, obj: dict, text: str) -> bool:
    """Whether ``text``, a sub-agent's reply (``obj`` a sidechain line of ``path``), came back to the main agent as its
    ``Task``/``Agent`` result, which the tool's event holds (a ``subagents/`` file's session is the ``<session>.jsonl``
    beside its folder; Claude Code 1.0 wrote sidechains into the session file itself)."""
    if obj.get("isSidechain") is not True or len(text) < 16:
        return False
    session_file = path.parent.parent.with_suffix(".jsonl") if path.parent.name == "subagents" else path
    said = " ".join(text.split())
    return any(said in answer for answer in _delegated_answers(session_file))


def iter_claude_code(path: str | Path, *, stats: Counter | None = None) -> Iterator[dict]:
    """Yield the events of one Claude Code session JSONL file, in file order.

    path: a ``<session>.jsonl`` or ``subagents/<agent>.jsonl`` file. stats: optional Counter,
    incremented with ``lines``, ``bad_json``, ``bad_ts``, ``skipped:<reason>`` (see the module
    docstring) and ``info:tool_without_result``. Each event is
    ``{key, role, text, session, ts, source="claude-code", meta={line, cwd?, agent?, tool?, tool_use_id?,
    is_error?}}``; ``ts`` is ISO 8601 UTC or ``None``. The file is read twice (tool results first), so
    memory stays bounded by the number of tool calls. Raises ``FileNotFoundError`` for a missing file;
    bad or truncated lines are counted and skipped, never raised.
    """
    path = Path(path)
    results = _collect_results(path)
    for lineno, obj in read_jsonl(path, stats, label=SOURCE):
        typ = obj.get("type") if isinstance(obj.get("type"), str) else None
        if typ in SKIP_TYPES:
            count(stats, f"skipped:{typ}")
            continue
        if typ not in ("user", "assistant"):
            count(stats, "skipped:unknown")
            continue
        msg = obj.get("message")
        if not isinstance(msg, dict):
            count(stats, "skipped:malformed")
            continue
        session = str(obj.get("sessionId") or path.stem)
        ts = iso(obj.get("timestamp"), stats)
        meta: dict = {"line": lineno}
        if obj.get("cwd") and isinstance(obj["cwd"], str):  # a list or a number is no directory (routed as none)
            meta["cwd"] = obj["cwd"]
        if obj.get("agentId"):
            meta["agent"] = obj["agentId"]
        line_id = str(obj.get("uuid") or f"L{lineno}")
        if typ == "user":
            ev = _user_event(obj, msg.get("content"), session, line_id, ts, meta, stats)
            if ev is not None:
                yield ev
        else:
            yield from _assistant_events(obj, msg.get("content"), session, line_id, ts, meta, results, stats, path)


def _user_event(obj: dict, content, session: str, line_id: str, ts, meta: dict, stats) -> dict | None:
    if obj.get("isMeta"):
        count(stats, "skipped:meta")
        return None
    if obj.get("isCompactSummary"):
        count(stats, "skipped:compact_summary")
        return None
    texts: list[str] = []
    n_results = 0
    if isinstance(content, str):
        texts.append(content)
    elif isinstance(content, list):
        for block in content:
            if isinstance(block, str):
                texts.append(block)
            elif not isinstance(block, dict):
                count(stats, "skipped:unknown_block")
            elif block.get("type") == "text" and isinstance(block.get("text"), str):
                texts.append(block["text"])
            elif block.get("type") == "tool_result":
                n_results += 1
            else:
                count(stats, f"skipped:{block.get('type') or 'unknown'}_block")
    text = "\n".join(t for t in texts if t.strip())
    if not text.strip():
        count(stats, "skipped:tool_result_only" if n_results else "skipped:empty")
        return None
    if obj.get("isSidechain") is True:  # the prompt the main agent wrote for its sub-agent: not the user's words
        count(stats, "skipped:sidechain_prompt")
        return None
    return make_event(SOURCE, session, line_id, "user", text, ts, meta)


def _assistant_events(obj: dict, content, session: str, line_id: str, ts, meta: dict,
                      results: dict[str, tuple[str, bool]], stats, path: Path) -> Iterator[dict]:
    if obj.get("isApiErrorMessage") or (obj.get("message") or {}).get("model") == "<synthetic>":
        count(stats, "skipped:synthetic")
        return
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
    if not isinstance(blocks, list):
        count(stats, "skipped:malformed")
        return
    texts: list[str] = []
    tools: list[dict] = []
    for block in blocks:
        btype = block.get("type") if isinstance(block, dict) else None
        if btype == "text" and isinstance(block.get("text"), str):
            texts.append(block["text"])
        elif btype in ("thinking", "redacted_thinking"):
            count(stats, "skipped:thinking")
        elif btype == "tool_use":
            tools.append(block)
        else:
            count(stats, f"skipped:{btype or 'unknown'}_block")
    text = "\n\n".join(t.strip("\n") for t in texts if t.strip())
    if text and _answer_given(path, obj, text):
        count(stats, "skipped:subagent_answer")  # its Task/Agent call's event holds it
    elif text:
        yield make_event(SOURCE, session, line_id, "assistant", text, ts, dict(meta))
    elif texts and not tools:
        count(stats, "skipped:empty")
    for block in tools:
        tool_id = str(block.get("id") or f"{line_id}:{len(tools)}")
        name = str(block.get("name") or "tool")
        found = results.get(tool_id)
        if found is None:
            count(stats, "info:tool_without_result")
            output, is_error = None, False
        else:
            output, is_error = found
        text_t = tool_summary(name, block.get("input"), output, is_error=is_error, cwd=meta.get("cwd"))
        yield make_event(SOURCE, session, tool_id, "tool", text_t, ts,
                         {**meta, "tool": name, "tool_use_id": tool_id, "is_error": is_error}, tool_input=block.get("input"))
