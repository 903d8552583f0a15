"""memdir's MCP server: the memory tools for agents, over stdio (``memdir mcp``) or streamable HTTP
(``memdir serve``).

Tools (names avoid generic words such as ``write`` or ``read``, which were seen shadowing a host's own
tools — design seed 000):

* ``memory_recall`` — best memories for a query, with scores and reasons (read-only);
* ``memory_read`` — one memory's whole text by handle or id, a page at a time (``offset``, ``next_offset``), for a
  text ``memory_recall`` cut (read-only);
* ``memory_remember`` — store a curated note; the same text twice returns the existing note (idempotent); a
  ``rules`` note becomes a pending proposal a person accepts (``memdir proposals``): hard rules are written
  by people only (seed 000);
* ``memory_forget`` — delete a note or event by id, or by text/key prefix after a preview with a confirm
  token, leaving tombstones (destructive);
* ``memory_list`` — the newest memories by kind or category (read-only);
* ``memory_inspect`` — counts per root, consistency problems and pending rule proposals (read-only);
* ``memory_prune`` — cold-memory prune: a preview by default; deletes only with the ``confirm_token`` the
  preview returned, which changes every hour (design seed 001) (destructive).

Every tool is ``open_world_hint=False`` (it only touches the local memory roots) and returns structured
output (an ``outputSchema`` derived from its return annotation). Failures — a bad id, a path traversal,
an unknown category — come back as MCP tool errors with a one-line message; the server never crashes on
tool input. Strings are made valid UTF-8 on the way in and out (lone surrogates become U+FFFD; case C9).
Logs go to stderr only; in stdio mode the SDK also points fd 1 at stderr while serving, so a stray
``print`` cannot corrupt the protocol stream.

The :class:`~memdir.Memdir` is opened lazily on the first tool call (for ``--dir`` or the working
directory) and reused; calls are serialised by a lock because the SDK runs synchronous tools on worker
threads.

Importing this module is cheap (memdir's kernel and the standard library); the ``mcp`` SDK (0.6–1.9 s to import,
measured) is loaded only when a server is built. It is the ``mcp`` extra: ``pip install 'memdir[mcp]'``.

``memdir mcp`` does not wait for that import: :mod:`memdir.server.mcplight` answers ``initialize`` and ``tools/list``
from the SDK's recorded answers (``memdir/data/mcp_light.json``, written by :func:`memdir.server.mcptable.write_light_table` from this
module's server and checked equal to it by ``tests/test_mcp_fast_start.py``) and hands the session to this server
(:func:`serve_lines`) at the first message it does not answer itself. A new or changed tool is declared here only, in
``_build``; then ``make mcp-table`` writes the table again (docs/mcp-start.md).
"""

import dataclasses
import inspect
import logging
import re
import sys
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

import memdir.foreground as foreground
from memdir.errors import MemdirError, UsageError, damaged_index, disk_full, install_hint
from memdir.server.mcplight import repair_json_text
from memdir.server.mcpmodels import result_models
from memdir.server.mcpparams import clear_param_errors
from memdir.server.tools import (
    DEFAULT_K,
    MAX_K,
    MAX_READ_CHARS,
    clean,
    clean_text,
    do_forget,
    do_forget_matching,
    do_inspect,
    do_list,
    do_prune,
    do_read,
    do_recall,
    do_remember,
)

if TYPE_CHECKING:  # pragma: no cover
    from mcp.server import MCPServer

    from memdir.core import Memdir

log = logging.getLogger("memdir.mcp")

SERVER_NAME = "memdir"
DEFAULT_PORT = 8765
DEFAULT_PATH = "/mcp"
#: what is worth a note and what is not (seed 000's 该记 / 不该记 table; issue 13 item 12)
REMEMBER_GUIDANCE = (
    "Remember: the user's preferences, decisions with their reasons, non-obvious pitfalls with their root cause, "
    "and project conventions. Do not remember: what the code or git history already shows, the current task's "
    "state, branch names, local file paths, or one-off chatter; these go stale and a wrong memory is worse than "
    "none. Hard rules (category rules) are the user's to state."
)
INSTRUCTIONS = (
    "memdir holds this project's long-term memory (curated Markdown notes and past conversation events) "
    "plus the user's global memory. memory_recall searches it (a long text comes back cut: memory_read reads the rest "
    "by its handle); memory_list shows the newest entries by kind "
    "or category; memory_remember stores a durable fact, rule, preference, decision or pitfall; memory_forget "
    "deletes by id, or by text with a preview and confirm_token; memory_inspect reports counts and problems; "
    "memory_prune previews cold-memory cleanup and deletes only with the preview's confirm_token. "
    + REMEMBER_GUIDANCE
)


# ---- text hygiene -------------------------------------------------------------------------------------


class _RepairedLines:
    """Async line iterator over an ``anyio`` text file that applies :func:`repair_json_text` to each line."""

    def __init__(self, source: Any):
        self._it = source.__aiter__()

    def __aiter__(self):
        return self

    async def __anext__(self) -> str:
        return repair_json_text(await self._it.__anext__())


def one_line(exc: BaseException) -> str:
    """A one-line, UTF-8-safe message for ``exc`` (first line of its text, at most 300 chars)."""
    text = clean_text(str(exc)).strip()
    first = text.splitlines()[0] if text else type(exc).__name__
    return first[:300]


#: pydantic's ``[type=…, input_value=…, input_type=…]`` (to the line's last ``]``: an input value may hold brackets)
_PYDANTIC_NOISE = re.compile(r"[ \t]*\[type=[^\n]*\]|\s*For further information visit \S+")


def flatten_error(text: str) -> str:
    """One line from a tool error text: pydantic's multi-line argument report (``N validation error(s) for
    …Arguments`` / ``loc`` / ``  message [type=…]``) becomes ``bad arguments: loc: message; …``; anything else
    has its lines joined with ``; ``. At most 400 chars, UTF-8 safe."""
    text = _PYDANTIC_NOISE.sub("", clean_text(text or ""))
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if not lines:
        return "error"
    head, parts, loc = lines[0].strip(), [], None
    if re.search(r"\d+ validation errors? for \S+$", head):
        head = re.sub(r"\d+ validation errors? for \S+$", "bad arguments", head)
        for ln in lines[1:]:
            if ln[:1].isspace():
                parts.append(f"{loc}: {ln.strip()}" if loc else ln.strip())
                loc = None
            else:
                loc = ln.strip()
        out = head + (": " + "; ".join(parts) if parts else "")
    else:
        out = "; ".join(ln.strip() for ln in lines)
    return out if len(out) <= 400 else out[:399] + "…"


async def _one_line_tool_errors(ctx: Any, call_next: Any) -> Any:
    """Server middleware: every ``tools/call`` error result carries a one-line, UTF-8-safe message."""
    result = await call_next(ctx)
    if getattr(ctx, "method", None) != "tools/call" or result is None:
        return result
    is_error = result.get("isError") if isinstance(result, dict) else getattr(result, "is_error", False)
    if not is_error:
        return result
    blocks = result.get("content", []) if isinstance(result, dict) else getattr(result, "content", [])
    for b in blocks:
        if isinstance(b, dict) and isinstance(b.get("text"), str):
            b["text"] = flatten_error(b["text"])
        elif isinstance(getattr(b, "text", None), str):
            b.text = flatten_error(b.text)
    return result


# ---- the store: lazily opened, reused, serialised ----------------------------------------------------
class MemoryStore:
    """Holds the one :class:`Memdir` a server uses.

    ``project_dir``/``home`` are passed to :func:`memdir.open` on first use; alternatively give an
    already-open ``memdir`` (tests). ``run(fn)`` calls ``fn(memdir)`` under a lock and maps errors:
    :class:`MemdirError` → ``ToolError`` with its one-line message; anything else is logged (stderr, with
    traceback) and reported as a one-line internal error.
    """

    def __init__(self, project_dir: str | Path | None = None, *, home: str | Path | None = None,
                 memdir: "Memdir | None" = None, config: dict[str, Any] | None = None, keep_warm: bool = False,
                 opener: "Callable[[], Memdir] | None" = None, lock: Any = None):
        self.project_dir = project_dir
        self.keep_warm = keep_warm
        self.home = home
        self.config = config
        self._memdir = memdir
        self._owned = memdir is None and opener is None
        self._opener = opener  # another holder's Memdir, asked for at each use (memdir serve: the hook listener's)
        self.lock = lock if lock is not None else threading.RLock()
        self._stopped = False  # stop(): the client is gone, calls still waiting for the lock are turned away

    @property
    def memdir(self) -> "Memdir":
        """The Memdir, opened on first access (or the ``opener``'s, asked for each time)."""
        with self.lock:
            if self._opener is not None:
                return self._opener()
            if self._memdir is None:
                import memdir

                self._memdir = memdir.open(self.project_dir, home=self.home, config=self.config)
                if self.keep_warm:  # one server per person (memdir serve): recall's postings held in memory
                    self._memdir.keep_warm()
                log.debug("mcp: opened memory for %s", self._memdir.project_root)
            return self._memdir

    def run(self, what: str, fn: Callable[["Memdir"], Any]) -> Any:
        """``fn(memdir)`` under the lock; errors become ``ToolError`` (one line). ``what`` names the tool."""
        from mcp.server.mcpserver.exceptions import ToolError

        with self.lock, foreground.active():  # a background postings build steps aside meanwhile
            if self._stopped:
                raise ToolError(f"{what} not run: the MCP client went away")
            try:
                return clean(fn(self.memdir))
            except ToolError:
                raise
            except MemdirError as exc:
                log.info("%s refused: %s", what, one_line(exc))
                raise ToolError(one_line(exc)) from None
            except (ValueError, TypeError, LookupError) as exc:
                log.info("%s refused: %s", what, one_line(exc))
                raise ToolError(f"bad input: {one_line(exc)}") from None
            except Exception as exc:  # noqa: BLE001 — a tool must answer, never crash the server
                advice = damaged_index(exc) or disk_full(exc)
                if advice:  # not a bug to report: the user's index file is damaged or the disk full, and what to do
                    log.error("%s failed: %s", what, one_line(exc))
                    raise ToolError(advice) from None
                log.error("%s failed", what, exc_info=True)
                raise ToolError(f"internal error in {what}: {type(exc).__name__}: {one_line(exc)}") from None

    def stop(self) -> None:
        """The client is gone (a reply could not be written): a call that has not started yet is turned away, so
        closing waits for the one running at most. Any thread; nothing waits here."""
        self._stopped = True

    def close(self) -> None:
        """Close the Memdir if this store opened it (safe to call twice)."""
        with self.lock:
            if self._memdir is not None and self._owned:
                self._memdir.close()
                self._memdir = None




# ---- the server -------------------------------------------------------------------------------------
def build_server(project_dir: str | Path | None = None, *, home: str | Path | None = None,
                 memdir: "Memdir | None" = None, config: dict[str, Any] | None = None,
                 log_level: str = "WARNING", keep_warm: bool = False,
                 store: "MemoryStore | None" = None) -> "MCPServer":
    """Build the MCP server with memdir's tools (nothing is opened until the first call).

    ``project_dir``/``home``/``config`` go to :func:`memdir.open`; or pass an open ``memdir`` (tests,
    embedding). The store is reachable as ``server.memdir_store`` (call ``.close()`` when done).
    ``keep_warm``: the opened Memdir holds recall's postings in memory (:meth:`Memdir.keep_warm`): what
    ``memdir serve`` (one per person) does; a stdio server (``memdir mcp``, one per agent session) does not, so
    several sessions do not each hold a copy (~65 MB of RSS at 10k items, ~280 MB at 100k).
    ``store``: the :class:`MemoryStore` to use instead (``memdir serve`` passes one over its hook listener's
    Memdir, so the tools and the hooks share one open store and one set of held postings).
    Raises ``UsageError`` when the ``mcp`` SDK is not installed.
    """
    try:
        from mcp.server import MCPServer
        from mcp.types import ToolAnnotations
        from pydantic import BaseModel, Field
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise UsageError(f"the MCP server needs the optional dependency `mcp`: {install_hint('mcp')}") from exc
    return _build(MCPServer, ToolAnnotations, BaseModel, Field,
                  store or MemoryStore(project_dir, home=home, memdir=memdir, config=config, keep_warm=keep_warm),
                  log_level)


def _build(MCPServer, ToolAnnotations, BaseModel, Field, store: MemoryStore, log_level: str):  # noqa: N803
    # The SDK reads each tool's signature (inspect.signature) to build its input and output schemas. The
    # models are built by result_models, not at module level, so that importing this module does not import
    # pydantic; this works because the module does not postpone annotations (no `from __future__ import
    # annotations`): the tools' annotations are evaluated right here, where these local names exist.
    from typing import Annotated, Literal, Optional

    Scope = Literal["project", "global"]
    # every argument not required is Optional: models send null for what they leave out, and null is its default

    models = result_models(BaseModel, Field)
    (NearTurn, RecallHit, RecallResult, NoteOut, ReadResult, RememberResult, ForgetResult, ListResult,  # noqa: F841
     NoteBrief, InspectResult, PruneResult) = (getattr(models, n) for n in (
        "NearTurn", "RecallHit", "RecallResult", "NoteOut", "ReadResult", "RememberResult",
        "ForgetResult", "ListResult", "NoteBrief", "InspectResult", "PruneResult"))

    server = MCPServer(SERVER_NAME, instructions=INSTRUCTIONS, log_level=log_level,
                       version=_version(), warn_on_duplicate_tools=False)
    server.memdir_store = store  # type: ignore[attr-defined]
    server.middleware.append(_one_line_tool_errors)
    server.middleware.append(clear_param_errors)

    def ann(title: str, *, read_only: bool, destructive: bool, idempotent: bool):
        return ToolAnnotations(title=title, read_only_hint=read_only, destructive_hint=destructive,
                               idempotent_hint=idempotent, open_world_hint=False)

    def memory_recall(
        query: Annotated[str, Field(description="words to search for (any language; CJK works)")],
        k: Annotated[Optional[int], Field(description=f"number of hits, 1..{MAX_K} (default {DEFAULT_K}, or the "
                                                        "user's recall.k)")] = None,
        scope: Annotated[Optional[Scope], Field(description="project, global, or both when omitted")] = None,
        kinds: Annotated[Optional[list[str]], Field(description="filter: note, event, rule, decision, user, tool, …")] = None,
    ) -> RecallResult:
        """Search long-term memory (curated notes and past conversation events) and return the best
        matches with their ids, scores and the reasons they matched. Read-only."""
        return RecallResult(**store.run("memory_recall", lambda m: do_recall(m, query, k, scope, kinds)))

    def memory_read(
        id: Annotated[str, Field(description="the handle a hit or the <memory> block shows, a note id or an event key")],
        offset: Annotated[Optional[int], Field(description="first character to return; next_offset of the previous page",
                                               ge=0)] = 0,
        max_chars: Annotated[Optional[int], Field(description=f"page size in characters, 1..{MAX_READ_CHARS}",
                                                  ge=1)] = MAX_READ_CHARS,
        scope: Annotated[Optional[Scope], Field(description="project or global; the first root holding it when omitted")] = None,
    ) -> ReadResult:
        """Read one memory's whole text (a memory_recall hit whose text was cut says its handle and offset), one
        page at a time: call again with offset=next_offset until next_offset is null. Read-only."""
        return ReadResult(**store.run("memory_read", lambda m: do_read(
            m, id, 0 if offset is None else offset, MAX_READ_CHARS if max_chars is None else max_chars, scope)))

    def memory_remember(
        text: Annotated[str, Field(description="the memory itself: context, decision, reason, root cause")],
        category: Annotated[Optional[str], Field(description="rules, preferences, decisions, pitfalls or facts")] = "facts",
        summary: Annotated[Optional[str], Field(description="one-line summary (default: the first line)")] = None,
        tags: Annotated[Optional[list[str]], Field(description="tags")] = None,
        load_when: Annotated[Optional[list[str]], Field(description="topics that should bring this memory up")] = None,
        pinned: Annotated[Optional[bool], Field(description="never decays (default: the user's remember.pinned "
                                                            "setting, off unless set)")] = None,
        supersedes: Annotated[Optional[str], Field(description="id of an older note this one replaces")] = None,
        scope: Annotated[Optional[Scope], Field(description="project (default) or global")] = "project",
        highlight: Annotated[Optional[str], Field(description="one striking line shown beside the summary")] = None,
    ) -> RememberResult:
        return RememberResult(**store.run("memory_remember", lambda m: do_remember(
            m, text, "facts" if category is None else category, summary, tags, load_when, pinned, supersedes,
            scope or "project", highlight)))

    memory_remember.__doc__ = (
        "Store a durable memory as a Markdown note. The same text twice (or differing only in case, spacing or "
        "punctuation) returns the existing note with existed=true. Secrets are redacted before anything is "
        "written. A note in category rules is not written: it becomes a proposal the user accepts (hard rules are "
        "written by people only). " + REMEMBER_GUIDANCE)

    def memory_forget(
        id: Annotated[Optional[str], Field(description="note id (category/slug) or event key, as memory_recall returns it")] = None,
        query: Annotated[Optional[str], Field(description="instead of id: forget every memory containing this text")] = None,
        prefix: Annotated[Optional[str], Field(description="instead of id: forget every event whose key starts with this")] = None,
        confirm_token: Annotated[Optional[str], Field(description="with query/prefix: the token from the preview")] = None,
    ) -> ForgetResult:
        """Delete one memory by id, or every memory matching a text (query) or key prefix: those first return
        a preview with a confirm_token and delete only when called again with it. Tombstones keep re-imports
        from bringing deleted memories back."""
        def run(m):
            if query is not None or prefix is not None:
                if id:
                    raise UsageError("give id, or query/prefix, not both")
                return do_forget_matching(m, query, prefix, confirm_token)
            if not id:
                raise UsageError("give the id to forget, or query/prefix to forget by text")
            return do_forget(m, id)
        return ForgetResult(**store.run("memory_forget", run))

    def memory_list(
        kinds: Annotated[Optional[list[str]], Field(description="filter: note, event, rule, decision, user, tool, …")] = None,
        category: Annotated[Optional[str], Field(description="only notes of this category")] = None,
        scope: Annotated[Optional[Scope], Field(description="project, global, or both when omitted")] = None,
        limit: Annotated[Optional[int], Field(description=f"entries, 1..{MAX_K}")] = 20,
    ) -> ListResult:
        """The newest memories, newest first, optionally by kind or category. Read-only."""
        return ListResult(**store.run("memory_list", lambda m: do_list(m, kinds, category, scope,
                                                                     20 if limit is None else limit)))

    def memory_inspect() -> InspectResult:
        """Counts per memory root and consistency problems (files missing from index.md, dangling
        supersedes, unreadable notes), the list of notes and the pending rule proposals. Read-only."""
        return InspectResult(**store.run("memory_inspect", do_inspect))

    def memory_prune(
        days: Annotated[Optional[float], Field(description="cold memories idle for more than this many days", ge=0,
                                               allow_inf_nan=False)] = 90,
        confirm_token: Annotated[Optional[str], Field(description="token from a preview; omit to preview")] = None,
        force: Annotated[Optional[bool], Field(description="delete without asking again; still needs the preview's "
                                                           "confirm_token (alone it previews)")] = False,
    ) -> PruneResult:
        """Clean up cold memories. Without confirm_token this only previews (count, samples and a
        confirm_token), with force too; with the token from a recent preview (and force) it deletes them."""
        return PruneResult(**store.run("memory_prune", lambda m: do_prune(m, 90 if days is None else days,
                                                                          confirm_token, bool(force))))

    tools = (memory_recall, memory_read, memory_remember, memory_forget, memory_inspect, memory_list, memory_prune)
    for f in tools:  # a description the same on every Python: 3.13 strips a docstring's indentation, 3.11/3.12 keep it
        f.__doc__ = inspect.cleandoc(f.__doc__ or "")
    read = dict(read_only=True, destructive=False, idempotent=True)
    server.add_tool(memory_recall, annotations=ann("Recall memories", **read))
    server.add_tool(memory_read, annotations=ann("Read a whole memory", **read))
    server.add_tool(memory_remember, annotations=ann("Remember a note", read_only=False, destructive=False, idempotent=True))
    server.add_tool(memory_forget, annotations=ann("Forget a memory", read_only=False, destructive=True, idempotent=True))
    server.add_tool(memory_inspect, annotations=ann("Inspect memory", **read))
    server.add_tool(memory_list, annotations=ann("List recent memories", **read))
    server.add_tool(memory_prune, annotations=ann("Prune cold memories", read_only=False, destructive=True, idempotent=False))
    takes = {f.__name__: frozenset(inspect.signature(f).parameters) for f in tools}
    server.middleware.append(lambda ctx, call_next: _known_arguments(takes, ctx, call_next))
    return server


async def _known_arguments(takes: dict[str, frozenset[str]], ctx: Any, call_next: Any) -> Any:
    """Server middleware: a ``tools/call`` naming an argument its tool does not take is an error result naming it
    and the arguments the tool takes (the SDK drops unknown arguments, so ``{"kind": "tool"}`` for ``kinds``
    listed everything, unfiltered); other calls go on."""
    params = getattr(ctx, "params", None) if getattr(ctx, "method", None) == "tools/call" else None
    name = params.get("name") if isinstance(params, Mapping) else None
    args = params.get("arguments") if isinstance(params, Mapping) else None
    if isinstance(name, str) and name in takes and isinstance(args, Mapping):
        extra = sorted(str(a) for a in args if a not in takes[name] and a != "_meta")  # _meta: the protocol's
        if extra:
            allowed = ", ".join(sorted(takes[name])) or "none"
            text = flatten_error(f"Error executing tool {name}: unknown argument{'s' if len(extra) > 1 else ''} "
                                 f"{', '.join(repr(a) for a in extra)}; {name} takes: {allowed}")
            # the SDK's own "unknown tool" error result, in the envelope of the session's protocol version, its text
            # replaced: the tool does not run
            result = await call_next(dataclasses.replace(ctx, params={**params, "name": f"{name} (unknown argument)"}))
            blocks = result.get("content", []) if isinstance(result, dict) else getattr(result, "content", [])
            for b in blocks[:1]:
                if isinstance(b, dict):
                    b["text"] = text
                else:
                    b.text = text
            return result
    return await call_next(ctx)


def _version() -> str:
    try:
        from memdir import __version__

        return __version__
    except Exception:  # pragma: no cover
        return ""






def serve_lines(server: "MCPServer", next_line: Callable[[], "str | None"], write_line: Callable[[str], None]) -> None:
    """Run ``server`` (the SDK's loop) over two callables until ``next_line()`` returns ``None``.

    ``next_line()`` blocks until the next JSON-RPC message (one line of text, already repaired by
    :func:`repair_json_text`) and is called from a worker thread; ``write_line(text)`` receives each message the
    server sends (JSON text ending with a newline), also from a worker thread. This is how the light loop of
    :mod:`memdir.server.mcplight` hands a session over to the full server; stdin and stdout are not touched here.
    """
    import anyio
    from mcp.server.stdio import stdio_server

    class Lines:  # the async line iterator stdio_server reads
        def __aiter__(self):
            return self

        async def __anext__(self) -> str:
            line = await anyio.to_thread.run_sync(next_line)
            if line is None:
                raise StopAsyncIteration
            return line

    class Out:  # the async text file stdio_server writes
        async def write(self, text: str) -> None:
            await anyio.to_thread.run_sync(write_line, text)

        async def flush(self) -> None:
            return None

    low = server._lowlevel_server  # noqa: SLF001 — the SDK's documented low-level server behind MCPServer

    async def main() -> None:
        async with stdio_server(stdin=Lines(), stdout=Out()) as (read_stream, write_stream):  # type: ignore[arg-type]
            await low.run(read_stream, write_stream, low.create_initialization_options())

    anyio.run(main)


def run_stdio(server: "MCPServer") -> None:
    """Serve ``server`` on this process's stdin/stdout until stdin closes, without the light loop (used when the
    light table does not match the installed SDK).

    Like ``server.run("stdio")`` (the SDK claims fd 1 and points it at stderr while serving), but stdin is read by
    us: invalid UTF-8 bytes become U+FFFD and lone-surrogate escapes are repaired (:func:`repair_json_text`) so
    that every request gets an answer (case C9).
    """
    import io

    import anyio
    from mcp.server.stdio import stdio_server

    low = server._lowlevel_server  # noqa: SLF001

    async def main() -> None:
        raw = io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace", newline=None)
        stdin = _RepairedLines(anyio.wrap_file(raw))
        async with stdio_server(stdin=stdin) as (read_stream, write_stream):  # type: ignore[arg-type]
            await low.run(read_stream, write_stream, low.create_initialization_options())

    anyio.run(main)
