"""Gated capture of single host events (seeds 001 and 004): what a hook or plugin sees becomes an episodic event
only when it is worth keeping.

An event is a dict (or a plain string, read as a user prompt)::

    {"role": "user" | "assistant" | "tool", "text": str, "session": str | None, "ts": datetime | str | number | None,
     # tool events only (text is then built from these when absent):
     "tool": str, "input": dict | str, "output": str | None, "call_id": str, "is_error": bool,
     "source": "claude-code" | "codex" | "opencode" | "dsh" | …, "meta": dict}

Gates, in order (the first that fires decides; each decision is logged at debug level on logger ``memdir``).
Gates 1-6 are :func:`gate`, the one "should this be stored" function that the host hooks (through
:func:`memdir.engine.events.capture_event`) and the transcript importers (:mod:`memdir.portability.transcripts`) both call; 7 and ``capture.enabled``
limit live capture only:

1. ``invalid`` — not a dict/str, unknown role, no text.
2. tools: ``noisy_tool`` — the tool name matches a skip pattern (``DEFAULT_SKIP_TOOLS`` plus the config list
   ``capture.skip_tools``; case-insensitive shell-style patterns, ``*`` wildcards), a file tool under another name
   (``mcp__filesystem__read_file``, Codex's ``read_file``: :func:`memdir.capture.evidence.read_verb`), or a shell tool (Codex's
   ``exec_command``/``shell``, Claude Code's and Codex hooks' ``Bash`` …) ran only file reads, searches and
   listings (``cat``, ``sed -n``, ``nl``, ``head``, ``rg``, ``ls``, ``git show REV:path`` …, ``echo`` banners and
   ``for`` loops between them: :func:`memdir.capture.shellread.is_shell_read`) — the shell forms of
   the Read/Grep/Glob/LS tools skipped by name, whose file dumps would otherwise fill the block's slots. With
   ``capture.read_facts`` on, both are kept as one line instead (``read src/a.py``, ``searched "p" in src``:
   :func:`memdir.capture.evidence.read_fact`), never their output; a ``capture.skip_tools`` name is still dropped.
   Web content (``capture.web_content``, off by default): a web tool's event (:data:`WEB_TOOLS`: ``WebFetch``,
   ``WebSearch``, ``webfetch``, ``web_search``, fetch and browser MCP tools; ``capture.web_tools`` adds names; search
   engines' and scrapers' tools by their name's words, :mod:`memdir.capture.webnames`) or a shell download from
   another machine (``curl``/``wget``/``iwr`` … wherever the shell runs it: :func:`fetches_web`) keeps its call line alone,
   ``WebFetch: https://… → (web content not kept)``: a page may carry instructions, which a later block must not
   bring back (case C37). Our own ``<memory>`` block in a tool's text is cut out (``memory_block`` when nothing else
   came back).
3. user/assistant text is cleaned: our own ``<memory>…</memory>`` block and host-injected blocks
   (``<system-reminder>``, ``<available_skills>``, Codex ``<environment_context>`` / ``<user_instructions>`` /
   ``<turn_aborted>`` / ``<collaboration_mode>`` / ``<skills_instructions>`` / ``<plugins_instructions>`` /
   ``<permissions instructions>`` / ``<user_shell_command>``, ``<local-command-…>``, ``<task-notification>``, a
   ``!`` command's ``<bash-input>``/``<bash-stdout>``/``<bash-stderr>``, ``<bash-notification>``, the IDE's
   ``<ide_opened_file>``/``<ide_selection>``/``<ide_diagnostics>``, a hook's ``<…-hook>`` output) are cut out. A text that
   *starts* with host material (``Instructions from: …``, ``# Code Mode``, ``# AGENTS.md instructions``,
   Claude Code's ``[Request interrupted by user…]`` marker, ``<task-notification>`` messages and the text of a skill it
   loads (``Base directory for this skill:``), Codex
   ``<turn_aborted>``) is ``host_injected`` as a whole;
   one that is empty after cutting is ``host_injected`` (or ``memory_block`` when only our block was there), so is a
   user text of Claude Code's placeholders alone (``[Image #1]``, ``[Pasted text #2 +40 lines]``); gates 5-6 judge a
   user text without them.
4. user text: ``slash_command`` — ``/compact``, ``/model opus``, Claude Code's ``<command-name>`` echoes; one whose
   arguments hold a request (:data:`SLASH_ARG_WORDS` words or more) is kept as ``/name args``.
5. ``trivial`` — the whole text, lower-cased and without punctuation, spaces or emoji, is one of
   ``TRIVIAL`` (``ok``, ``thanks``, ``好的``, ``继续``, ``嗯`` …; a traditional form such as ``謝謝`` reads as the simplified
   one) or a concatenation of them (``ok thanks``, ``好的谢谢``, ``继续吧``, ``thanks a lot``).
6. ``too_short`` — weighted length below ``capture.min_chars`` (default 10; a wide CJK/kana/hangul character
   counts 2, anything else 1, whitespace 0), so ``继续执行`` (8) is dropped and ``部署用 pnpm`` (10) is kept.
7. ``daily_cap`` — ``capture.daily_cap`` captured events (keys ``u:``/``a:``/``t:``) already stored with a
   timestamp on today's local calendar day (0 = no cap).

Keys are deterministic (seed 004), so two copies of one hook, or a prompt seen by two paths, store once:
``u:<session>:<h>``, ``a:<session>:<h>`` (``h`` = first 16 hex digits of SHA-256 of the cleaned,
whitespace-collapsed text) and ``t:<session>:<call id>`` (``t:<session>:<h>`` without a call id). The store
also refuses the same text twice under other keys. Redaction and the length bound happen in
:meth:`memdir.Memdir.import_events`, which stores the row.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import re
import unicodedata
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections import Counter


from memdir.capture.evidence import read_fact, read_verb
from memdir.capture.shellread import READ_COMMANDS, is_shell_read  # noqa: F401 (gates' names)
from memdir.capture.webfetch import SHELL_WRAPPERS, WEB_COMMANDS, fetches_web  # noqa: F401 (gates' names)
from memdir.capture.webnames import mcp_parts, names_web_tool
from memdir.capture.failed_reads import failed_because
from memdir.capture.courtesy import is_courtesy
from memdir.capture.acks import LONGEST as _LONGEST_ACK, TRADITIONAL as _TRADITIONAL, TRIVIAL  # noqa: F401
from memdir.lazylog import getLogger

log = getLogger("memdir")  # imports logging only when a record can go somewhere

# settings: the capture.* keys of memdir.config.SETTINGS

ROLE_PREFIX = {"user": "u", "assistant": "a", "tool": "t"}
CAPTURE_PREFIXES = ("u:", "a:", "t:")

#: tools whose calls are noise for memory (seed 004 skips read/grep/glob/ls), plus memdir's own tools
DEFAULT_SKIP_TOOLS = ("read", "grep", "glob", "ls", "list", "todoread", "todowrite", "notebookread",
                      "memory_*", "mcp__memdir__*", "memdir_*")

#: tools whose output is third-party content (a web page, search results, a browser's view), case-insensitive
#: shell-style patterns, plus the config list ``capture.web_tools``: Claude Code ``WebFetch``/``WebSearch``, OpenCode
#: ``webfetch``/``websearch``/``codesearch``, Codex ``web_search`` (``web_search_call``), Gemini CLI ``web_fetch``/
#: ``google_web_search``, and the usual fetch, browser and search MCP servers (``mcp__fetch__fetch``, OpenCode's
#: ``fetch_fetch``, ``mcp__playwright__browser_*``, Claude in Chrome, puppeteer, firecrawl, tavily, brave search …)
WEB_TOOLS = ("webfetch", "websearch", "web_fetch", "web_search", "web_search_call", "google_web_search", "web.run",
             "codesearch", "fetch", "fetch_*", "mcp__fetch__*", "*webfetch*", "*websearch*", "*web_fetch*",
             "*web_search*", "*web-fetch*", "*web-search*", "*fetch_url*", "*url_fetch*", "*browser*", "*playwright*",
             "*puppeteer*", "*firecrawl*", "*tavily*", "*brave_search*", "*brave-search*", "*scrape*", "*crawl*",
             # a browser driven by a model reads pages too: Claude in Chrome (``mcp__claude-in-chrome__read_page``),
             # Chrome DevTools, Selenium, Stagehand
             "*chrome*", "*chromium*", "*firefox*", "*selenium*", "*stagehand*", "*read_page*", "*page_text*",
             "*webpage*", "*web_page*")
#: what a web tool's event keeps of its output while ``capture.web_content`` is off (the call line stays)
WEB_OMITTED = "(web content not kept)"

# a block opens at the start of a line, as hosts and memdir write them; a tag named inside a sentence ("they appear as
# `<memory>` tags") is prose, and an unclosed one there used to take the rest of the message with it
# (``<memory-context>`` is another tool's tag, not ours: taken for ours, it took the person's question with it)
_MEMORY_BLOCK = re.compile(r"(?m)^[ \t]*<memory(?=[\s/>])[^>\n]*>(?s:.*?)(?:</memory\s*>|\Z)", re.I)
#: in a tool's text our block also opens right after the call's arrow (``Bash: memdir context x → <memory>``); its
#: opening tag ends its line, as the block writes it: a file's or a command's own one-line element (libvirt's
#: ``<memory unit='KiB'>8388608</memory>``) is the tool's text, not our block
_TOOL_MEMORY_BLOCK = re.compile(r"(?m)(?:^[ \t]*|(?<= →) *)<memory(?=[\s/>])[^>\n]*>(?=[ \t]*(?:\r?\n|\Z))"
                                r"(?s:.*?)(?:</memory\s*>|\Z)", re.I)
#: the outer closing tag a nested block leaves on its own line once the inner block is cut
_STRAY_CLOSE = re.compile(r"(?m)^[ \t]*</memory\s*>[ \t]*(?:\n|\Z)", re.I)
_HOST_TAGS = ("system-reminder", "available_skills", "environment_context", "user_instructions",
              "local-command-stdout", "local-command-stderr", "local-command-caveat", "task-notification",
              "user-prompt-submit-hook", "turn_aborted", "collaboration_mode", "skills_instructions",
              "plugins_instructions", "permissions instructions")
#: tags a person could also type at a line's start ("<bash-input> is what …", a React ``<use-fetch-hook>``): cut only
#: with their closing tag. Claude Code: a ``!`` shell command and its output, a background shell's notice, the IDE's
#: open file, selection and diagnostics, a hook's output named after its event; Codex: a ``!`` shell command
_CLOSED_HOST_TAGS = ("bash-input", "bash-stdout", "bash-stderr", "bash-notification", "ide_opened_file",
                     "ide_selection", "ide_diagnostics", "user_shell_command",
                     *(f"{e}-hook" for e in ("session-start", "session-end", "pre-tool-use", "post-tool-use", "stop",
                                             "subagent-stop", "pre-compact", "notification")))
_HOST_BLOCK = re.compile(r"(?m)^[ \t]*<(%s)\b[^>\n]*>(?s:.*?)(?:</\1\s*>|\Z)" % "|".join(map(re.escape, _HOST_TAGS)), re.I)
_CLOSED_OPEN = re.compile(r"(?m)^[ \t]*<(%s)\b[^>\n]*>" % "|".join(map(re.escape, _CLOSED_HOST_TAGS)), re.I)


def _cut_closed_blocks(text: str) -> tuple[str, int]:
    """``text`` without each :data:`_CLOSED_HOST_TAGS` block that opens at a line's start and has its closing tag
    later on, and how many were cut. Each opening tag looks up the next closing tag of its name among positions found
    once (a text of thousands of unclosed tags is read in linear time, not once per tag)."""
    import bisect

    opens = list(_CLOSED_OPEN.finditer(text))
    if not opens:
        return text, 0
    low = text.lower()
    closes: dict[str, list[tuple[int, int]]] = {}
    for name in {m.group(1).lower() for m in opens}:
        closes[name] = [(c.start(), c.end()) for c in re.finditer(r"</%s\s*>" % re.escape(name), low)]
    out, last, n = [], 0, 0
    for m in opens:
        if m.start() < last:
            continue  # inside a block already cut
        found = closes[m.group(1).lower()]
        i = bisect.bisect_left(found, (m.end(), -1))
        if i == len(found):
            continue  # never closed: a tag a person typed, kept
        out.append(text[last:m.start()])
        last, n = found[i][1], n + 1
    return "".join(out) + text[last:], n
_HOST_PREFIXES = ("Instructions from:", "# Code Mode", "# AGENTS.md instructions", "<INSTRUCTIONS>",
                  "[Request interrupted by user", "<task-notification>", "<turn_aborted>",
                  # Claude Code's own words: the caveat before a local command's output, the summary it writes when
                  # it compacts a conversation
                  "Caveat: The messages below were generated by the user while running local commands",
                  "This session is being continued from a previous conversation that ran out of context",
                  "Base directory for this skill:")  # a skill Claude Code loads: its SKILL.md, as a user message
#: what Claude Code puts in a prompt in place of a pasted image or a long paste (``[Image #1]``, ``[Pasted text #2 +40
#: lines]``): a user text is judged without them (one of them alone, or beside ``why?``, is no request); kept as typed
_PLACEHOLDER = re.compile(r"\[(?:Image|Pasted text) #\d+(?: \+\d+ lines?)?\]")
_COMMAND_ECHO = re.compile(r"^\s*<command-(name|message|args)>", re.I)
_SLASH = re.compile(r"^/[A-Za-z][\w.-]*(?::[\w.-]+)?(?:\s|$)")
_WIDE = ("W", "F")


@dataclass(frozen=True)
class CaptureResult:
    """What :func:`capture` decided.

    ``stored``: True when a new event row was written, or queued for the next writer (``reason`` ``"spooled"``:
    the write lock was busy, :mod:`memdir.engine.spool`). ``reason``: ``"stored"``, ``"duplicate"`` (same key or
    text already stored), ``"tombstoned"``, or the gate that fired (``invalid``, ``disabled``, ``noisy_tool``,
    ``host_injected``, ``memory_block``, ``slash_command``, ``trivial``, ``too_short``, ``daily_cap``).
    ``key``: the deterministic key (None when a gate fired before one existed). ``text``: the cleaned, redacted
    text that was (or would have been) stored.
    """

    stored: bool
    reason: str
    key: str | None = None
    role: str | None = None
    text: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"stored": self.stored, "reason": self.reason, "key": self.key, "role": self.role, "text": self.text}


# ---- pure helpers (no store) -------------------------------------------------------------------------------
def strip_injected(text: str) -> tuple[str, set[str]]:
    """Cut our ``<memory>`` block(s) and host-injected blocks out of ``text``.

    Returns ``(cleaned text, what was removed)`` with ``what`` ⊆ ``{"memory", "host"}``. A block opens at the start
    of a line (a tag named inside a sentence is prose, kept); an unclosed block is removed to the end of the text.
    The cleaned text is stripped of surrounding whitespace.
    """
    removed: set[str] = set()
    out = text
    for _ in range(8):  # a block right after another one's close tag opens where that one began: a pass for each
        out, n_mem = _MEMORY_BLOCK.subn("", out)
        out, n_host = _HOST_BLOCK.subn("", out)
        out, n_closed = _cut_closed_blocks(out)
        n_host += n_closed
        removed |= {"memory"} if n_mem else set()
        removed |= {"host"} if n_host else set()
        if not (n_mem or n_host):
            break
    if "memory" in removed:
        out = _STRAY_CLOSE.sub("", out)
    return out.strip(), removed


def _tool_without_block(text: str) -> tuple[str, bool]:
    """A tool's ``text`` without our ``<memory>`` block(s) (``memdir context`` in a shell, a sub-agent printing what
    it was given: a second copy of memories the next block would show again), and whether nothing but the call was
    left."""
    out, n = _TOOL_MEMORY_BLOCK.subn("", text)
    if not n:
        return text, False
    out = _STRAY_CLOSE.sub("", out).strip()
    call, arrow, rest = out.partition(" →")
    return out, not (rest.strip() if arrow else out)


def is_host_injected(text: str) -> bool:
    """True when the whole message is host material (``Instructions from: …``, ``# Code Mode`` …)."""
    head = text.lstrip()
    return head.startswith(_HOST_PREFIXES)


#: words the arguments of a slash command need to be kept as the user's request (``/review the auth module for the
#: token leak``, a plugin command's task), where ``/model opus`` or ``/compact`` say nothing to recall
SLASH_ARG_WORDS = 4
_ECHO_PART = re.compile(r"<command-(name|args)>(.*?)</command-\1>", re.S | re.I)


def slash_request(text: str) -> str | None:
    """``/name args`` when the slash command ``text`` (typed, or Claude Code's ``<command-name>``/``<command-args>``
    echo) carries at least :data:`SLASH_ARG_WORDS` words of arguments: what the user asked for, kept; else ``None``."""
    head = text.strip()
    if _COMMAND_ECHO.match(head):
        parts = {k.lower(): v.strip() for k, v in _ECHO_PART.findall(head)}
        name, args = parts.get("name", ""), parts.get("args", "")
    else:
        name, _, args = head.partition(" ")
        args = args.strip()
    if len(args.split()) < SLASH_ARG_WORDS:
        return None
    return f"{name} {args}".strip()


def is_slash_command(text: str) -> bool:
    """``/compact``, ``/model opus``, ``/mcp:tool x`` or a Claude Code ``<command-name>`` echo; not a path such as
    ``/usr/bin/env is missing``."""
    head = text.lstrip()
    return bool(_COMMAND_ECHO.match(head) or _SLASH.match(head))


def _squash(text: str) -> str:
    """Lower-case, NFKC, and drop everything that is not a letter or digit (punctuation, spaces, emoji)."""
    t = unicodedata.normalize("NFKC", text).lower().translate(_TRADITIONAL)
    return "".join(ch for ch in t if unicodedata.category(ch)[0] in "LN")


def is_trivial(text: str) -> bool:
    """True when ``text`` is only acknowledgements from :data:`TRIVIAL` (``OK!``, ``thanks 🙏``, ``好的，继续``).

    Longest-match segmentation over the squashed text (dynamic programming, O(n·m) for n ≤ 40 chars)."""
    if len(text) > 400 and len(_squash(text[:400])) > 48:  # a long text is not squashed whole (megabytes took seconds)
        return False
    s = _squash(text)
    if not s:
        return True  # only punctuation / emoji
    if s in TRIVIAL:
        return True
    if len(s) > 40:
        return False
    ok = [True] + [False] * len(s)
    for i in range(1, len(s) + 1):
        for j in range(max(0, i - _LONGEST_ACK), i):
            if ok[j] and s[j:i] in TRIVIAL:
                ok[i] = True
                break
    return ok[len(s)]


def is_acknowledgement(text: str) -> bool:
    """True when ``text`` only acknowledges or says to go on, word by word: every word it has is one of
    :data:`TRIVIAL` (``ok``, ``thanks!``, ``好的，继续``, ``👍``) and it asks nothing (no ``?``). Narrower than
    :func:`is_trivial`, which also reads a word made of acknowledgements as one (``tyk`` as ``ty`` + ``k``): a
    one-word question about a tool is not an acknowledgement."""
    if re.search("[?？؟]", text):  # a question mark anywhere ("done?!", "ok؟"): it asks something
        return False
    words = re.findall(r"\w+", text.casefold().translate(_TRADITIONAL))
    ok = [True] + [False] * len(words)  # whole words, or a run of them written as one entry ("a lot": "alot")
    for i in range(1, len(words) + 1):
        ok[i] = any(ok[j] and "".join(words[j:i]) in TRIVIAL for j in range(max(0, i - 3), i))
    return ok[-1]


def weighted_len(text: str, stop: int | None = None) -> int:
    """Length for the ``min_chars`` gate: wide (East Asian W/F) characters count 2, whitespace 0, others 1. With
    ``stop``, counting ends once the length reaches it (the gate only asks whether a text is that long)."""
    n = 0
    for ch in text:
        if ch.isspace():
            continue
        n += 2 if unicodedata.east_asian_width(ch) in _WIDE else 1
        if stop is not None and n >= stop:
            break
    return n


def text_hash(text: str) -> str:
    """First 16 hex digits of SHA-256 of the whitespace-collapsed text (the ``<h>`` of capture keys)."""
    return hashlib.sha256(" ".join(text.split()).encode("utf-8", "surrogatepass")).hexdigest()[:16]


#: tool names that run a shell command (``input`` ``{"command" | "cmd": str | [argv]}``): Codex rollouts
#: (``exec_command``, ``shell``, ``local_shell``, ``container.exec``, ``shell_command``), Claude Code and Codex hooks
#: (``Bash``), OpenCode (``bash``; ``execute``, the v2 shell tool seed 004 names among its noisy tools)
SHELL_TOOLS = frozenset({"bash", "shell", "exec_command", "local_shell", "container.exec", "shell_command", "execute"})
def shell_command(name: str, tool_input: Any) -> str | None:
    """The command line a shell tool ran (``tool_input`` as the host gives it: ``{"command": …}`` or ``{"cmd": …}``,
    a string or an argv list such as ``["bash", "-lc", "cat x"]``; a JSON string of either), or ``None`` when
    ``name`` is not a shell tool or no command is found."""
    if name.strip().lower() not in SHELL_TOOLS:
        return None
    inp = tool_input
    if isinstance(inp, str):
        try:
            inp = json.loads(inp)
        except ValueError:
            return inp
    if isinstance(inp, dict):
        inp = inp.get("command", inp.get("cmd"))
    if isinstance(inp, list) and all(isinstance(x, str) for x in inp):
        if len(inp) >= 3 and inp[0] in SHELL_WRAPPERS and inp[1] in ("-c", "-lc", "-cl"):
            return inp[2]
        import shlex

        return shlex.join(inp)
    return inp if isinstance(inp, str) else None


def is_web_tool(name: str, extra: list[str] | tuple[str, ...] = ()) -> bool:
    """True when tool ``name`` returns third-party web content, case-insensitively: it, or an MCP tool's own part
    (``mcp__x__fetch`` → ``fetch``), matches :data:`WEB_TOOLS` + ``extra``, or its words say so
    (:func:`memdir.capture.webnames.names_web_tool`: ``mcp__kagi__kagi_search``, ``search_web``)."""
    n = name.strip().lower()
    names = {n, mcp_parts(n)[1]}
    return any(fnmatch.fnmatchcase(x, p.strip().lower()) for p in (*WEB_TOOLS, *extra) if p.strip() for x in names) \
        or names_web_tool(name)


def _listed(name: str, patterns: Any) -> bool:
    n = name.strip().lower()
    return any(fnmatch.fnmatchcase(n, p.strip().lower()) for p in (patterns or ()) if p.strip())


def _call_input(ev: dict[str, Any], name: str, text: Any) -> Any:
    """A tool event's arguments: its ``input``, else the argument of an importer's ``<tool>: <argument> → …`` text."""
    if ev.get("input") not in (None, "", {}):
        return ev.get("input")
    if isinstance(text, str) and text.startswith(name + ": "):
        return text.split("\n", 1)[0][len(name) + 2:].split(" → ", 1)[0].strip() or None
    return None


def skip_tool(name: str, extra: list[str] | tuple[str, ...] = ()) -> bool:
    """True when tool ``name`` matches a skip pattern (``DEFAULT_SKIP_TOOLS`` + ``extra``), case-insensitively."""
    n = name.strip().lower()
    return any(fnmatch.fnmatchcase(n, p.strip().lower()) for p in (*DEFAULT_SKIP_TOOLS, *extra) if p.strip())


def tool_text(name: str, tool_input: Any, output: Any, *, is_error: bool = False, cwd: str | None = None) -> str:
    """The tool summary a hook stores: :func:`memdir.capture.tools.tool_summary`, the same function the
    importers use (``<tool>: <main argument> → <first output lines>``; file edits as "file + what changed").
    ``output`` may be a string, a list of text blocks or a dict (``stdout``/``stderr``/``output``/``content`` are
    read; its ``exit_code``/``exitCode``/``returncode``/``exit`` is the exit status). ``cwd``: file paths under it are
    shown relative to it."""
    from memdir.capture.tools import output_exit_code, output_text, tool_summary

    return tool_summary(name, tool_input, output_text(output), is_error=is_error, cwd=cwd,
                        exit_code=output_exit_code(output))


def _setting(config: Any, key: str, default: Any) -> Any:
    """``config.get(key)``, or ``default`` for a config object that does not know the key (a test's stand-in)."""
    try:
        value = config.get(key)
    except (KeyError, AttributeError, TypeError):
        return default
    return default if value is None else value


def _clean_unicode(text: str) -> str:
    """Replace lone UTF-16 surrogates (a JSON payload may carry ``\\ud800``) with U+FFFD; keep valid pairs."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def local_day_bounds(now: datetime) -> tuple[datetime, datetime]:
    local = now.astimezone()
    start = local.replace(hour=0, minute=0, second=0, microsecond=0)
    return start, start + timedelta(days=1)


def skip_result(reason: str, detail: str, *, key: str | None = None, role: str | None = None, text: str | None = None) -> CaptureResult:
    log.debug("capture: skipped (%s) %s", reason, safe_text(detail))
    return CaptureResult(False, reason, key, role, safe_text(text))


def safe_text(text: str | None) -> str | None:
    """Redacted copy for results and logs (what is stored is redacted by ``import_events`` too); a text far longer
    than an event may be is bounded as it is stored (:func:`memdir.capture.events.redact_bounded`)."""
    if not text:
        return text
    from memdir.capture.events import MAX_EVENT_CHARS, redact_bounded

    if len(text) > 4 * MAX_EVENT_CHARS:
        return redact_bounded(text)
    from memdir.capture.redact import redact

    return redact(text)


# ---- the gate --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Decision:
    """What :func:`gate` decided for one event.

    ``reason``: ``None`` when the event is worth storing, else the gate that fired (``invalid``, ``noisy_tool``,
    ``host_injected``, ``memory_block``, ``slash_command``, ``trivial``, ``too_short``). ``role``: the normalised
    role. ``text``: the cleaned text to store (host and memory blocks cut out; for a tool event without text, the
    summary built by :func:`tool_text`), not yet redacted. ``key``: the live-capture key (``u:``/``a:``/``t:``;
    ``None`` when a gate fired before one existed); importers keep their own ``import:…`` keys.
    """

    reason: str | None
    role: str | None = None
    text: str | None = None
    key: str | None = None

    @property
    def keep(self) -> bool:
        return self.reason is None


def _no(reason: str, detail: str, **kw: Any) -> Decision:
    log.debug("capture: skipped (%s) %s", reason, safe_text(detail))
    return Decision(reason, **kw)


def gate(event: Any, config: Any) -> Decision:
    """Decide whether one event is worth storing: THE one "should this be stored" function, called by the host
    hooks (through :func:`capture`) and by every transcript importer (:mod:`memdir.portability.transcripts`).

    ``event``: a dict shaped as in the module docstring (a string is a user prompt); importer events carry the
    tool name in ``meta["tool"]``, which is read too. ``config``: anything with ``get(key)`` (``Memdir.config``);
    ``capture.skip_tools`` and ``capture.min_chars`` are read. Gates 1-6 of the module docstring, in order; the
    daily cap and ``capture.enabled`` are not content gates: they limit live hook capture only (:func:`capture`),
    an explicit import is not rate-limited. Pure: never writes, never raises for a bad event.
    """
    if isinstance(event, str):
        event = {"role": "user", "text": event}
    if not isinstance(event, dict):
        return _no("invalid", f"not an event object: {type(event).__name__}")
    ev = event
    role = str(ev.get("role") or "user").strip().lower()
    if role not in ROLE_PREFIX:
        return _no("invalid", f"unknown role {role!r}")
    session = str(ev.get("session") or "").strip() or "nosession"
    session = session.replace("\n", " ")[:200]
    text = ev.get("text")
    meta = ev.get("meta") if isinstance(ev.get("meta"), dict) else {}

    if isinstance(text, str):
        text = _clean_unicode(text)
        if "\x1b" in text:  # a coloured output: judged, keyed and stored as a terminal shows it
            from memdir.notes.markdown import without_escapes

            text = without_escapes(text)
    if role == "tool":
        name = str(ev.get("tool") or ev.get("tool_name") or meta.get("tool") or "").strip()
        cwd = ev.get("cwd") or meta.get("cwd")
        fact = None
        if name and (skip_tool(name, config.get("capture.skip_tools")) or read_verb(name)):
            # a read, search or listing leaves what it looked at (its dump is noise for memory); the config's own
            # skip list, and the other default skips (todos, memdir's tools), drop the call entirely
            # a read or search that failed is kept as its fact and why it failed whatever capture.read_facts says:
            # the error is the evidence ("why did that search fail"), and it is one line, not a dump
            listed = _listed(name, config.get("capture.skip_tools"))
            fact = None if listed else read_fact(name, _call_input(ev, name, text), cwd=cwd)
            why = failed_because(name, text, ev, meta, cwd, shell=False) if fact is not None else ""
            if fact is None or not (why or _setting(config, "capture.read_facts", False)):
                return _no("noisy_tool", name, role=role)
            fact += why
        cmd = shell_command(name, ev.get("input")) if name else None
        if cmd and is_shell_read(cmd):  # the shell form of Read/Grep/Glob/LS: only the one-line fact is kept
            fact = read_fact(name, None, command=cmd, cwd=cwd)
            why = failed_because(name, text, ev, meta, cwd, shell=True) if fact is not None else ""
            if fact is None or not (why or _setting(config, "capture.read_facts", False)):
                return _no("noisy_tool", f"{name} read: {cmd[:80]}", role=role)
            fact += why
        if fact is not None:
            text = _clean_unicode(fact)
            log.debug("capture: %s kept as a fact: %s", name, safe_text(fact))
        if not isinstance(text, str) or not text.strip():
            if not name:
                return _no("invalid", "tool event without a tool name or text", role=role)
            text = _clean_unicode(tool_text(name, ev.get("input"), ev.get("output"), is_error=bool(ev.get("is_error")),
                                            cwd=cwd))
        if not cmd and name.strip().lower() in SHELL_TOOLS and text.startswith(name + ": "):  # an importer's summary
            cmd = text.split("\n", 1)[0][len(name) + 2:].split(" → ", 1)[0]
        text, only_block = _tool_without_block(text)
        if only_block:
            return _no("memory_block", f"{name}: only our <memory> block", role=role)
        if (is_web_tool(name, _setting(config, "capture.web_tools", ())) or (cmd and fetches_web(cmd))) \
                and not _setting(config, "capture.web_content", False):
            # third-party text (a page, search results, a download) may carry instructions: only the call is kept
            call = text.split("\n", 1)[0].split(" → ", 1)[0].rstrip()
            log.debug("capture: web content of %s not kept (capture.web_content is off)", name or "a tool")
            text = f"{call} → {WEB_OMITTED}"
        call_id = str(ev.get("call_id") or "").strip()
        key = f"t:{session}:{call_id[:200]}" if call_id else f"t:{session}:{text_hash(text)}"
    else:
        if not isinstance(text, str) or not text.strip():
            return _no("invalid", "no text", role=role)
        if is_host_injected(text):
            return _no("host_injected", repr(text[:60]), role=role)
        cleaned, removed = strip_injected(text)
        if not cleaned:
            return _no("memory_block" if removed == {"memory"} else "host_injected",
                       f"nothing left after removing {sorted(removed)}", role=role)
        if is_host_injected(cleaned):
            return _no("host_injected", repr(cleaned[:60]), role=role)
        text = cleaned
        if role == "user" and is_slash_command(text):
            asked = slash_request(text)
            if asked is None:
                return _no("slash_command", repr(text[:60]), role=role)
            text = asked  # the command's arguments are the user's request
        words = _PLACEHOLDER.sub(" ", text).strip() if role == "user" else text  # judged without the host's markers
        if not words:
            return _no("host_injected", f"only placeholders: {text[:60]!r}", role=role)
        if is_trivial(words) or role == "assistant" and is_courtesy(text):  # "ok!", "Glad it worked, ask anytime."
            return _no("trivial", repr(text[:60]), role=role, text=text)
        min_chars = config.get("capture.min_chars")
        if weighted_len(words, stop=min_chars) < min_chars:
            return _no("too_short", f"{weighted_len(text)} < capture.min_chars={min_chars}: {text[:60]!r}", role=role,
                       text=text)
        key = f"{ROLE_PREFIX[role]}:{session}:{text_hash(text)}"

    if ev.get("ts") not in (None, ""):
        from memdir.errors import UsageError
        from memdir.timeutil import parse_ts

        try:
            parse_ts(ev.get("ts"))
        except (UsageError, ValueError, TypeError, OverflowError) as exc:
            return _no("invalid", f"bad ts {ev.get('ts')!r}: {exc}", key=key, role=role, text=text)
    return Decision(None, role, text, key)


def gate_all(events: list[dict[str, Any]], config: Any,
             dropped: list[dict[str, Any]] | None = None) -> tuple[list[dict[str, Any]], "Counter[str]"]:
    """The events :func:`gate` keeps (with its cleaned text), and the skips by reason: importers
    and hooks decide "should this be stored" with the same function. ``dropped``: a list that receives each skipped
    event with its ``reason`` (for :meth:`memdir.Memdir.log_skips`)."""
    from collections import Counter

    kept, gated = [], Counter()
    for ev in events:
        d = gate(ev, config)
        if d.keep:
            kept.append({**ev, "text": d.text})
        else:
            gated[d.reason] += 1
            if dropped is not None:
                dropped.append({**ev, "reason": d.reason, "role": d.role or ev.get("role"),
                                "text": d.text or ev.get("text")})
    return kept, gated
