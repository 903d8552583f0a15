"""memdir's MCP server: the memory tools for agents, over stdio (``memdir mcp``) or streamable HTTP
(``memdir serve``).

Tools (names avoid generic words such as ``write`` or ``read``, which were seen shadowing a host's own
tools — design seed 000):

* ``memory_recall`` — best memories for a query, with scores and reasons (read-only);
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

Importing this module is cheap (click and the standard library only); the ``mcp`` SDK (0.6–1.9 s to import,
measured) is loaded only when a server is built. It is the ``mcp`` extra: ``pip install 'memdir[mcp]'``.
"""

import hmac
import ipaddress
import json
import logging
import re
import socket
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

import click

from memdir import foreground
from memdir.errors import MemdirError, UsageError

if TYPE_CHECKING:  # pragma: no cover
    from mcp.server import MCPServer

    from memdir.core import Memdir

log = logging.getLogger("memdir.mcp")

SERVER_NAME = "memdir"
DEFAULT_PORT = 8765
DEFAULT_PATH = "/mcp"
MAX_K = 50                   # memory_recall hits per call
MAX_HIT_CHARS = 4_000        # text per hit; longer bodies are cut (``truncated: true``) ...
MAX_RECALL_CHARS = 20_000    # ... and all hits together stay under this, so a reply fits hosts' output caps
MIN_HIT_CHARS = 200          # (Claude Code: MAX_MCP_OUTPUT_TOKENS, 25k tokens); each hit keeps at least this
MAX_INSPECT_NOTES = 200      # notes listed by memory_inspect (counts are always complete)
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
#: what is worth a note and what is not (seed 000's 该记 / 不该记 table; issue 13 item 12)
REMEMBER_GUIDANCE = (
    "Remember: the user's preferences, decisions with their reasons, non-obvious pitfalls with their root cause, "
    "and project conventions. Do not remember: what the code or git history already shows, the current task's "
    "state, branch names, local file paths, or one-off chatter; these go stale and a wrong memory is worse than "
    "none. Hard rules (category rules) are the user's to state."
)
INSTRUCTIONS = (
    "memdir holds this project's long-term memory (curated Markdown notes and past conversation events) "
    "plus the user's global memory. memory_recall searches it; memory_list shows the newest entries by kind "
    "or category; memory_remember stores a durable fact, rule, preference, decision or pitfall; memory_forget "
    "deletes by id, or by text with a preview and confirm_token; memory_inspect reports counts and problems; "
    "memory_prune previews cold-memory cleanup and deletes only with the preview's confirm_token. "
    + REMEMBER_GUIDANCE
)


# ---- text hygiene -------------------------------------------------------------------------------------
def clean_text(value: str) -> str:
    """Return ``value`` as a string that encodes to UTF-8: lone surrogates (``"\\ud800"``) become U+FFFD,
    valid surrogate pairs are joined into their code point, NUL bytes are dropped. Never raises."""
    if not isinstance(value, str):
        return value
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        value = value.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return value.replace("\x00", "")


def clean(value: Any) -> Any:
    """:func:`clean_text` applied to every string in a JSON-like value (dict keys included)."""
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, dict):
        return {clean(k): clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [clean(v) for v in value]
    return value


_ESCAPES = re.compile(r"\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}"  # a valid surrogate pair
                      r"|\\u[dD][89a-fA-F][0-9a-fA-F]{2}"                               # a lone surrogate
                      r"|\\.", re.S)                                                    # any other escape
_SURROGATE_HINT = re.compile(r"\\u[dD][89a-fA-F]")


def repair_json_text(line: str) -> str:
    """Replace JSON escapes of lone UTF-16 surrogates (``\\ud800`` not followed by a low surrogate, or a lone
    low one) with ``\\ufffd``; valid pairs and escaped backslashes are kept. The SDK's JSON parser rejects a
    lone surrogate escape, and a request it cannot parse gets no answer at all, so the client would hang
    (case C9). Text without such an escape is returned unchanged (fast path)."""
    if not _SURROGATE_HINT.search(line):
        return line

    def fix(m: re.Match) -> str:
        tok = m.group(0)
        return "\\ufffd" if len(tok) == 6 and tok[1] == "u" else tok

    return _ESCAPES.sub(fix, line)


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


_PYDANTIC_NOISE = re.compile(r"\s*\[type=[^\]]*\]|\s*For further information visit \S+")


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
        self._lock = lock if lock is not None else threading.RLock()

    @property
    def memdir(self) -> "Memdir":
        """The Memdir, opened on first access (or the ``opener``'s, asked for each time)."""
        with self._lock:
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

        with self._lock, foreground.active():  # a background postings build steps aside meanwhile
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
                log.error("%s failed", what, exc_info=True)
                raise ToolError(f"internal error in {what}: {type(exc).__name__}: {one_line(exc)}") from None

    def close(self) -> None:
        """Close the Memdir if this store opened it (safe to call twice)."""
        with self._lock:
            if self._memdir is not None and self._owned:
                self._memdir.close()
                self._memdir = None


# ---- tool bodies (plain functions over a Memdir; the server wraps them) -------------------------------
def _hit_out(hit: Any, limit: int = MAX_HIT_CHARS) -> dict[str, Any]:
    text = hit.text or ""
    truncated = len(text) > limit
    if truncated:
        text = text[:limit].rstrip() + " …"
    reasons = json.loads(json.dumps(hit.reasons or {}, ensure_ascii=False, default=str))
    return {"id": hit.id, "kind": hit.kind, "scope": hit.scope, "score": round(float(hit.score), 6),
            "summary": hit.summary, "text": text, "truncated": truncated,
            "ts": hit.ts.isoformat() if getattr(hit, "ts", None) else None,
            "pinned": bool(hit.pinned), "category": hit.category, "reasons": reasons}


def do_recall(m: "Memdir", query: str, k: int = 8, scope: str | None = None,
              kinds: list[str] | None = None) -> dict[str, Any]:
    """``{"query", "count", "hits": [{id, kind, scope, score, summary, text, truncated, ts, pinned,
    category, reasons}]}``, best first; ``k`` is clamped to 1..50. Each text is cut at 4,000 chars and all
    texts together at about 20,000 (``truncated: true``; the full note is its Markdown file). Recall counts as
    a rehearsal."""
    k = max(1, min(int(k), MAX_K))
    hits = m.recall(clean_text(query), k=k, scope=scope, kinds=[clean_text(x) for x in kinds] if kinds else None,
                    rehearse=True)
    out, left = [], MAX_RECALL_CHARS
    for h in hits:  # best first: the best hits keep the most text
        out.append(_hit_out(h, max(MIN_HIT_CHARS, min(MAX_HIT_CHARS, left))))
        left -= len(out[-1]["text"])
    return {"query": query, "count": len(out), "hits": out}


def _note_out(note: Any) -> dict[str, Any]:
    return {"id": note.id, "category": note.category, "kind": note.kind, "scope": note.scope,
            "summary": note.summary, "text": note.text, "tags": list(note.tags), "load_when": list(note.load_when),
            "pinned": bool(note.pinned), "supersedes": note.supersedes, "superseded_by": note.superseded_by,
            "created": note.created.isoformat() if note.created else None,
            "updated": note.updated.isoformat() if note.updated else None,
            "path": str(note.path) if note.path else None}


def do_remember(m: "Memdir", text: str, category: str = "facts", summary: str | None = None,
                tags: list[str] | None = None, load_when: list[str] | None = None, pinned: bool = False,
                supersedes: str | None = None, scope: str = "project", highlight: str | None = None) -> dict[str, Any]:
    """``{"existed": bool, "note": {...}}``; raises what :meth:`Memdir.remember` raises. A ``rules`` note is
    not written: it becomes a pending proposal, ``{"existed": bool, "note": None, "proposal": {...}, "message"}``
    (a person accepts it with ``memdir proposals accept ID``); so does a note that would supersede a rule."""
    sup = clean_text(supersedes).strip() if supersedes else None
    replaces_rule = bool(sup) and sup.split("/", 1)[0] == "rules" and m.get(sup) is not None
    if clean_text(category).strip() == "rules" or replaces_rule:  # a model never writes or replaces a rule
        p = m.propose(clean_text(text), category=clean_text(category).strip(), summary=clean_text(summary) if summary else None,
                      tags=[clean_text(t) for t in tags or ()], load_when=[clean_text(t) for t in load_when or ()],
                      supersedes=clean_text(supersedes) if supersedes else None, scope=scope, source="mcp")
        brief = {k: p.get(k) for k in ("id", "status", "scope", "summary", "text", "proposed")}
        msg = (f"rules are written by people: proposal {p['id']} is pending; the user accepts it with "
               f"`memdir proposals accept {p['id']}`")
        return {"existed": not p["created"], "note": None, "proposal": brief, "message": msg}
    note = m.remember(clean_text(text), category=clean_text(category),
                      summary=clean_text(summary) if summary else None,
                      tags=[clean_text(t) for t in tags or ()], load_when=[clean_text(t) for t in load_when or ()],
                      pinned=bool(pinned), supersedes=clean_text(supersedes) if supersedes else None, scope=scope,
                      highlight=clean_text(highlight) if highlight else None)
    return {"existed": bool(note.existed), "note": _note_out(note)}


def do_forget_matching(m: "Memdir", query: str | None = None, prefix: str | None = None,
                       confirm_token: str | None = None) -> dict[str, Any]:
    """Forget by text or key prefix (:meth:`Memdir.forget_matching`): a preview with a ``confirm_token``, or
    the delete when the token is given. Returns ``{"id": None, "forgotten", "count", "confirm_token",
    "samples", "message"}``."""
    res = m.forget_matching(query=clean_text(query) if query is not None else None,
                            prefix=clean_text(prefix) if prefix is not None else None,
                            token=clean_text(confirm_token).strip() if confirm_token else None)
    what = f"query={query!r}" if query is not None else f"prefix={prefix!r}"
    if res["deleted"]:
        msg = f"forgot {res['count']} memories matching {what} ({res['notes']} notes, {res['events']} events)"
    else:
        msg = (f"preview only, nothing deleted: {res['count']} memories match {what}. To delete them call memory_forget "
               f"again with the same {what.split('=')[0]} and confirm_token={res['token']!r}.")
    return {"id": None, "forgotten": bool(res["deleted"]), "count": res["count"],
            "confirm_token": None if res["deleted"] else res["token"], "samples": res.get("samples", []), "message": msg}


def do_list(m: "Memdir", kinds: list[str] | None = None, category: str | None = None, scope: str | None = None,
            limit: int = 20) -> dict[str, Any]:
    """``{"count", "entries": [hit dicts as memory_recall, score 0]}``, newest first (:meth:`Memdir.recent`)."""
    hits = m.recent(kinds=[clean_text(k) for k in kinds] if kinds else None,
                    category=clean_text(category) if category else None, scope=scope, limit=max(1, min(int(limit), MAX_K)))
    out, left = [], MAX_RECALL_CHARS
    for h in hits:
        out.append(_hit_out(h, max(MIN_HIT_CHARS, min(MAX_HIT_CHARS, left))))
        left -= len(out[-1]["text"])
    return {"count": len(out), "entries": out}


def do_forget(m: "Memdir", id: str) -> dict[str, Any]:
    """``{"id", "forgotten": bool, "message"}``; ``PathError`` for ids leaving the root (case C14)."""
    id = clean_text(id)
    gone = m.forget(id)
    msg = f"forgot {id}" if gone else f"nothing has the id {id!r}; see memory_recall or memory_inspect for ids"
    return {"id": id, "forgotten": bool(gone), "message": msg}


def do_inspect(m: "Memdir") -> dict[str, Any]:
    """``{"ok", "counts", "problems", "notes": [{id, scope, kind, summary, pinned, superseded_by}],
    "notes_total", "notes_listed"}`` — at most 200 notes listed; counts are complete."""
    rep = m.inspect()
    notes = [{"id": n.id, "scope": n.scope, "kind": n.kind, "summary": n.summary, "pinned": bool(n.pinned),
              "superseded_by": n.superseded_by} for n in rep.notes]
    problems = [{str(k): ("" if v is None else str(v)) for k, v in p.items()} for p in rep.problems]
    counts = json.loads(json.dumps(rep.counts, ensure_ascii=False, default=str))
    pending = [{k: ("" if p.get(k) is None else str(p.get(k))) for k in ("id", "scope", "source", "summary", "proposed")}
               for p in m.proposals()]
    return {"ok": not rep.problems, "counts": counts, "problems": problems,
            "notes": notes[:MAX_INSPECT_NOTES], "notes_total": len(notes), "notes_listed": min(len(notes), MAX_INSPECT_NOTES),
            "proposals": pending[:MAX_INSPECT_NOTES]}


def _as_dict(value: Any) -> dict[str, Any]:
    if value is None:
        return {}
    if hasattr(value, "to_dict"):
        value = value.to_dict()
    elif hasattr(value, "__dataclass_fields__"):
        from dataclasses import asdict

        value = asdict(value)
    if not isinstance(value, dict):
        value = {"result": value}
    return json.loads(json.dumps(value, ensure_ascii=False, default=str))


def do_prune(m: "Memdir", days: float = 90, confirm_token: str | None = None) -> dict[str, Any]:
    """Preview (no token) or act (the token from a preview) via ``Memdir.prune(days, token=…)``, which
    previews ``{"deleted": False, "count", "bytes", "samples", "token", "cutoff"}`` and deletes
    ``{"deleted": True, "count", "bytes"}`` (cold, unpinned, low-importance items idle ``days`` days; the
    token is quantised to the hour — seed 001).

    Returns ``{"available", "acted", "days", "count", "deleted", "bytes", "confirm_token", "samples",
    "message", "detail"}`` (``detail`` = what ``Memdir.prune`` returned). A memdir without ``prune`` answers
    ``available: false`` with a message rather than an error. ``UsageError`` for days < 0, and — raised by
    ``Memdir.prune`` — for a wrong or expired token; nothing is deleted without the right token.
    """
    try:
        days = float(days)
    except (TypeError, ValueError):
        raise UsageError(f"days must be a number, not {days!r}") from None
    if not (days >= 0 and days != float("inf")):
        raise UsageError(f"days must be a number >= 0 (got {days:g})")
    token = clean_text(confirm_token).strip() if confirm_token else None
    base = {"available": False, "acted": False, "days": days, "count": None, "deleted": None, "bytes": None,
            "confirm_token": None, "samples": [], "detail": {}}
    prune = getattr(m, "prune", None)
    if not callable(prune):
        return base | {"message": "memory_prune is not available in this version of memdir (it needs the "
                                  "hot/warm/cold tiers); nothing was changed"}
    detail = _as_dict(prune(days, token=token))
    flag = detail.get("deleted")
    acted = flag if isinstance(flag, bool) else bool(token) and detail.get("mode") != "preview"
    count = detail.get("count")
    count = int(count) if isinstance(count, (int, float)) and not isinstance(count, bool) else None
    n_deleted = (count if isinstance(flag, bool) else flag if isinstance(flag, int) else count) if acted else 0
    size = detail.get("bytes")
    out_token = None if acted else (detail.get("confirm_token") or detail.get("token"))
    samples = [s if isinstance(s, dict) else {"text": str(s)} for s in (detail.get("samples") or [])][:20]
    if acted:
        msg = f"deleted {n_deleted} cold memories idle for more than {days:g} days (tombstoned)"
    elif out_token:
        msg = (f"preview only, nothing deleted: {count} cold memories idle for more than {days:g} days would go. "
               f"To delete them call memory_prune again with days={days:g} and confirm_token={out_token!r} "
               f"(the token changes every hour).")
    else:
        msg = f"preview only, nothing deleted: {count} cold memories idle for more than {days:g} days"
    return base | {"available": True, "acted": bool(acted), "count": count, "deleted": n_deleted,
                   "bytes": int(size) if isinstance(size, (int, float)) and not isinstance(size, bool) else None,
                   "confirm_token": str(out_token) if out_token else None, "samples": samples,
                   "message": msg, "detail": detail}


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
        raise UsageError("the MCP server needs the optional dependency `mcp`: pip install 'memdir[mcp]'") from exc
    return _build(MCPServer, ToolAnnotations, BaseModel, Field,
                  store or MemoryStore(project_dir, home=home, memdir=memdir, config=config, keep_warm=keep_warm),
                  log_level)


def _build(MCPServer, ToolAnnotations, BaseModel, Field, store: MemoryStore, log_level: str):  # noqa: N803
    # The SDK reads each tool's signature (inspect.signature) to build its input and output schemas. The
    # models are defined here, not at module level, so that importing this module does not import pydantic;
    # this works because the module does not postpone annotations (no `from __future__ import annotations`):
    # the tools' annotations are evaluated right here, where these local classes exist.
    from typing import Annotated, Literal, Optional

    Scope = Literal["project", "global"]

    class RecallHit(BaseModel):
        id: str = Field(description="note id (category/slug) or event key")
        kind: str = Field(description="note kind (rule, preference, decision, pitfall, fact) or event role")
        scope: str = Field(description="project or global")
        score: float = Field(description="final score: BM25 x scope prior x decay x rehearsal boost")
        summary: Optional[str] = None
        text: str
        truncated: bool = Field(False, description="text was cut to keep the reply small")
        ts: Optional[str] = Field(None, description="event time, ISO 8601 UTC")
        pinned: bool = False
        category: Optional[str] = None
        reasons: dict[str, Any] = Field(default_factory=dict, description="matched terms, fields and each factor")

    class RecallResult(BaseModel):
        query: str
        count: int
        hits: list[RecallHit]

    class NoteOut(BaseModel):
        id: str
        category: str
        kind: str
        scope: str
        summary: str
        text: str
        tags: list[str] = []
        load_when: list[str] = []
        pinned: bool = False
        supersedes: Optional[str] = None
        superseded_by: Optional[str] = None
        created: Optional[str] = None
        updated: Optional[str] = None
        path: Optional[str] = None

    class RememberResult(BaseModel):
        existed: bool = Field(description="true when the same text was already stored; nothing was written")
        note: Optional[NoteOut] = Field(None, description="the note; null when a rules note became a proposal")
        proposal: Optional[dict[str, Any]] = Field(None, description="a rules note waits for a person: {id, status, ...}")
        message: Optional[str] = None

    class ForgetResult(BaseModel):
        id: Optional[str] = None
        forgotten: bool = Field(description="false when nothing had that id, or for a preview")
        message: str
        count: Optional[int] = Field(None, description="query/prefix: memories matching")
        confirm_token: Optional[str] = Field(None, description="query/prefix preview: pass back to delete them")
        samples: list[dict[str, Any]] = []

    class ListResult(BaseModel):
        count: int
        entries: list[RecallHit]

    class NoteBrief(BaseModel):
        id: str
        scope: str
        kind: str
        summary: str
        pinned: bool = False
        superseded_by: Optional[str] = None

    class InspectResult(BaseModel):
        ok: bool = Field(description="true when no problem was found")
        counts: dict[str, Any] = Field(description="per scope: notes, events, events by role, superseded, tombstones, categories, path")
        problems: list[dict[str, str]] = Field(description="each {kind, path, detail, ...}")
        notes: list[NoteBrief]
        notes_total: int
        notes_listed: int
        proposals: list[dict[str, str]] = Field(default_factory=list,
                                                description="pending rule proposals a person has to accept or reject")

    class PruneResult(BaseModel):
        available: bool = Field(description="false when this memdir version has no prune")
        acted: bool = Field(description="true only when memories were deleted")
        days: float
        count: Optional[int] = Field(None, description="cold memories matching (preview)")
        deleted: Optional[int] = None
        bytes: Optional[int] = None
        confirm_token: Optional[str] = Field(None, description="pass back with the same days to delete; changes every hour")
        samples: list[dict[str, Any]] = []
        message: str
        detail: dict[str, Any] = {}

    server = MCPServer(SERVER_NAME, instructions=INSTRUCTIONS, log_level=log_level,
                       version=_version(), warn_on_duplicate_tools=False)
    server.memdir_store = store  # type: ignore[attr-defined]
    server.middleware.append(_one_line_tool_errors)

    def ann(title: str, *, read_only: bool, destructive: bool, idempotent: bool):
        return ToolAnnotations(title=title, read_only_hint=read_only, destructive_hint=destructive,
                               idempotent_hint=idempotent, open_world_hint=False)

    def memory_recall(
        query: Annotated[str, Field(description="words to search for (any language; CJK works)")],
        k: Annotated[int, Field(description=f"number of hits, 1..{MAX_K}")] = 8,
        scope: Annotated[Optional[Scope], Field(description="project, global, or both when omitted")] = None,
        kinds: Annotated[Optional[list[str]], Field(description="filter: note, event, rule, decision, user, tool, …")] = None,
    ) -> RecallResult:
        """Search long-term memory (curated notes and past conversation events) and return the best
        matches with their ids, scores and the reasons they matched. Read-only."""
        return RecallResult(**store.run("memory_recall", lambda m: do_recall(m, query, k, scope, kinds)))

    def memory_remember(
        text: Annotated[str, Field(description="the memory itself: context, decision, reason, root cause")],
        category: Annotated[str, Field(description="rules, preferences, decisions, pitfalls or facts")] = "facts",
        summary: Annotated[Optional[str], Field(description="one-line summary (default: the first line)")] = None,
        tags: Annotated[Optional[list[str]], Field(description="tags")] = None,
        load_when: Annotated[Optional[list[str]], Field(description="topics that should bring this memory up")] = None,
        pinned: Annotated[bool, Field(description="never decays")] = False,
        supersedes: Annotated[Optional[str], Field(description="id of an older note this one replaces")] = None,
        scope: Annotated[Scope, Field(description="project (default) or global")] = "project",
        highlight: Annotated[Optional[str], Field(description="one striking line shown beside the summary")] = None,
    ) -> RememberResult:
        return RememberResult(**store.run("memory_remember", lambda m: do_remember(
            m, text, category, summary, tags, load_when, pinned, supersedes, scope, highlight)))

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
        limit: Annotated[int, Field(description=f"entries, 1..{MAX_K}")] = 20,
    ) -> ListResult:
        """The newest memories, newest first, optionally by kind or category. Read-only."""
        return ListResult(**store.run("memory_list", lambda m: do_list(m, kinds, category, scope, limit)))

    def memory_inspect() -> InspectResult:
        """Counts per memory root and consistency problems (files missing from index.md, dangling
        supersedes, unreadable notes), the list of notes and the pending rule proposals. Read-only."""
        return InspectResult(**store.run("memory_inspect", do_inspect))

    def memory_prune(
        days: Annotated[float, Field(description="cold memories idle for more than this many days", ge=0)] = 90,
        confirm_token: Annotated[Optional[str], Field(description="token from a preview; omit to preview")] = None,
    ) -> PruneResult:
        """Clean up cold memories. Without confirm_token this only previews (count, samples and a
        confirm_token); with the token from a recent preview it deletes them."""
        return PruneResult(**store.run("memory_prune", lambda m: do_prune(m, days, confirm_token)))

    read = dict(read_only=True, destructive=False, idempotent=True)
    server.add_tool(memory_recall, annotations=ann("Recall memories", **read))
    server.add_tool(memory_remember, annotations=ann("Remember a note", read_only=False, destructive=False, idempotent=True))
    server.add_tool(memory_forget, annotations=ann("Forget a memory", read_only=False, destructive=True, idempotent=True))
    server.add_tool(memory_inspect, annotations=ann("Inspect memory", **read))
    server.add_tool(memory_list, annotations=ann("List recent memories", **read))
    server.add_tool(memory_prune, annotations=ann("Prune cold memories", read_only=False, destructive=True, idempotent=False))
    return server


def _version() -> str:
    try:
        from memdir import __version__

        return __version__
    except Exception:  # pragma: no cover
        return ""


# ---- HTTP: bearer token, loopback check ---------------------------------------------------------------
def is_loopback(host: str) -> bool:
    """True for ``localhost`` and loopback addresses (``127.0.0.0/8``, ``::1``)."""
    h = host.strip().strip("[]").lower()
    if h in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(h).is_loopback
    except ValueError:
        return False


class BearerAuth:
    """ASGI middleware: every HTTP request needs ``Authorization: Bearer <token>`` (constant-time compare);
    otherwise 401 with a one-line JSON error. Lifespan and other scopes pass through."""

    def __init__(self, app: Any, token: str):
        self.app = app
        self._token = token.encode("utf-8")

    async def __call__(self, scope, receive, send):
        if scope.get("type") != "http":
            return await self.app(scope, receive, send)
        got = b""
        for name, value in scope.get("headers") or ():
            if name.lower() == b"authorization":
                got = value
                break
        scheme, _, cred = got.partition(b" ")
        if scheme.lower() == b"bearer" and hmac.compare_digest(cred.strip(), self._token):
            return await self.app(scope, receive, send)
        body = b'{"error": "unauthorized: send Authorization: Bearer <token> (memdir serve --token)"}'
        await send({"type": "http.response.start", "status": 401,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                                (b"www-authenticate", b"Bearer")]})
        await send({"type": "http.response.body", "body": body})


class RepairJsonBody:
    """ASGI middleware: a POST body's lone-surrogate escapes are repaired (:func:`repair_json_text`) before
    the SDK parses it, so such a request is answered instead of rejected (case C9 over HTTP). The repair
    keeps the body's length, so ``Content-Length`` stays right; bodies over 8 MiB pass through untouched."""

    LIMIT = 8 * 1024 * 1024

    def __init__(self, app: Any):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope.get("type") != "http" or scope.get("method") != "POST":
            return await self.app(scope, receive, send)
        queue: list[dict] = []
        size, more = 0, True
        while more and size <= self.LIMIT:
            msg = await receive()
            queue.append(msg)
            if msg.get("type") != "http.request":
                break
            size += len(msg.get("body", b""))
            more = bool(msg.get("more_body"))
        if not more and queue and all(m.get("type") == "http.request" for m in queue):
            body = b"".join(m.get("body", b"") for m in queue)
            if b"\\u" in body:
                text = body.decode("utf-8", "surrogateescape")
                fixed = repair_json_text(text)
                if fixed != text:
                    body = fixed.encode("utf-8", "surrogateescape")
            queue = [{"type": "http.request", "body": body, "more_body": False}]

        async def replay():
            return queue.pop(0) if queue else await receive()

        await self.app(scope, replay, send)


def http_app(server: "MCPServer", *, host: str = "127.0.0.1", token: str | None = None, path: str = DEFAULT_PATH,
             ui: bool = True):
    """The ASGI app for ``memdir serve``: the SDK's streamable-HTTP app (DNS-rebinding protection on for
    loopback hosts) behind :class:`RepairJsonBody`, wrapped in :class:`BearerAuth` when ``token`` is set. With
    ``ui`` (and the ``ui`` extra installed) the viewer's pages answer under ``/ui`` (:mod:`memdir.ui`), behind
    the same Host / Origin / token checks."""
    app = RepairJsonBody(server.streamable_http_app(streamable_http_path=path, host=host))
    app = BearerAuth(app, token) if token else app
    if ui and path != "/ui" and not path.startswith("/ui/"):
        from memdir.ui import missing_deps, with_pages

        if not missing_deps():
            store = server.memdir_store  # type: ignore[attr-defined]
            app = with_pages(app, get=lambda: store.memdir, lock=store._lock, host=host, token=token)
    return app


def check_serve_options(host: str, token: str | None) -> None:
    """Raise ``UsageError`` when a non-loopback ``host`` has no ``token`` (or the token is too short)."""
    if token is not None and len(token.strip()) < 16:
        raise UsageError("--token must be at least 16 characters (try: python -c 'import secrets; print(secrets.token_urlsafe(24))')")
    if not is_loopback(host) and not token:
        raise UsageError(f"refusing to serve on {host}: a non-loopback host needs --token (or $MEMDIR_TOKEN)")


# ---- click commands --------------------------------------------------------------------------------------
def _dirs(ctx: click.Context, dir_: str | None, home: str | None) -> tuple[str | None, str | None]:
    obj = (ctx.find_root().obj or {}) if ctx else {}
    return dir_ or obj.get("dir"), home or obj.get("home")


def _debug(ctx: click.Context) -> bool:
    return bool((ctx.find_root().obj or {}).get("debug"))


def _log_to_stderr(debug: bool) -> None:
    root = logging.getLogger()
    if not any(isinstance(h, logging.StreamHandler) and getattr(h, "stream", None) is sys.stderr for h in root.handlers):
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("memdir: %(levelname)s %(message)s"))
        root.addHandler(handler)
    # any handler writing to stdout would corrupt the stdio protocol: point it at stderr
    for h in root.handlers:
        if isinstance(h, logging.StreamHandler) and getattr(h, "stream", None) is sys.stdout:
            h.setStream(sys.stderr)
    logging.getLogger("memdir").setLevel(logging.DEBUG if debug else logging.WARNING)


@click.command("mcp")
@click.option("--dir", "dir_", type=click.Path(file_okay=False), default=None,
              help="Project directory (default: the group's --dir, else the working directory).")
@click.option("--home", type=click.Path(file_okay=False), default=None, help="Global memory root.")
@click.option("--json", "as_json", is_flag=True, help="Accepted for symmetry; stdio output is always MCP JSON-RPC.")
@click.pass_context
def mcp_command(ctx: click.Context, dir_: str | None, home: str | None, as_json: bool) -> None:
    """Serve the memory tools over stdio (MCP). Register it with your host, e.g. in .mcp.json:
    {"mcpServers": {"memdir": {"type": "stdio", "command": "memdir", "args": ["mcp"]}}}"""
    debug = _debug(ctx)
    _log_to_stderr(debug)
    dir_, home = _dirs(ctx, dir_, home)
    server = build_server(dir_, home=home, log_level="DEBUG" if debug else "WARNING")
    from memdir.portability.dropimport import spawn_if_pending

    spawn_if_pending(home, dir_)  # files dropped in <global root>/import/: imported by a detached process
    try:
        run_stdio(server)
    except KeyboardInterrupt:
        pass
    finally:
        server.memdir_store.close()


def run_stdio(server: "MCPServer") -> None:
    """Serve ``server`` on this process's stdin/stdout until stdin closes.

    Like ``server.run("stdio")`` (the SDK still claims fd 1 and points it at stderr while serving), but
    stdin is read by us: invalid UTF-8 bytes become U+FFFD and lone-surrogate escapes are repaired
    (:func:`repair_json_text`) so that every request gets an answer (case C9).
    """
    import io

    import anyio
    from mcp.server.stdio import stdio_server

    low = getattr(server, "_lowlevel_server", None)
    if low is None:  # pragma: no cover - an SDK without the attribute: plain SDK loop
        server.run("stdio")
        return

    async def main() -> None:
        raw = io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace", newline=None)
        stdin = _RepairedLines(anyio.wrap_file(raw))
        async with stdio_server(stdin=stdin) as (read_stream, write_stream):  # type: ignore[arg-type]
            await low.run(read_stream, write_stream, low.create_initialization_options())

    anyio.run(main)


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind; non-loopback needs --token.")
@click.option("--port", type=click.IntRange(0, 65535), default=DEFAULT_PORT, show_default=True, help="0 = any free port.")
@click.option("--path", "path", default=DEFAULT_PATH, show_default=True, help="URL path of the MCP endpoint.")
@click.option("--token", envvar="MEMDIR_TOKEN", default=None,
              help="Bearer token clients must send (required for a non-loopback host). Env: MEMDIR_TOKEN.")
@click.option("--dir", "dir_", type=click.Path(file_okay=False), default=None, help="Project directory.")
@click.option("--home", type=click.Path(file_okay=False), default=None, help="Global memory root.")
@click.option("--json", "as_json", is_flag=True, help="Print the ready line as JSON ({url, host, port, pid}).")
@click.option("--store", "store_url", default=None, metavar="URL",
              help="postgresql://… : serve a team store's HTTP API (/v1/<project>/…, a token per person) instead of MCP.")
@click.pass_context
def serve_command(ctx: click.Context, host: str, port: int, path: str, token: str | None, dir_: str | None,
                  home: str | None, as_json: bool, store_url: str | None) -> None:
    """Serve the memory tools over streamable HTTP (MCP), bound to 127.0.0.1 by default. Prints one
    ready line with the URL once the socket is listening. With --store, serve a PostgreSQL team store instead
    (memdir.server.team: each request's bearer token must grant its project; the database enforces it)."""
    import os

    if store_url:
        return _serve_store(ctx, host, port, store_url, as_json)
    check_serve_options(host, token)
    if not path.startswith("/"):
        raise UsageError(f"--path must start with '/' (got {path!r})")
    debug = _debug(ctx)
    _log_to_stderr(debug)
    dir_, home = _dirs(ctx, dir_, home)
    # the hook listener first, and the project's store opened and its postings built in threads from now on,
    # while the rest starts (a hook call meanwhile is answered from SQL; the build steps aside for it)
    warm = _start_warm_hooks(home)
    store = None
    if warm is not None:
        warm.prewarm(dir_)
        # the tools use the listener's Memdir of this project (one open store, one set of held postings, one lock)
        store = MemoryStore(dir_, home=home, keep_warm=True, opener=lambda: warm.store_for(dir_), lock=warm.lock)
    try:
        server = build_server(dir_, home=home, log_level="DEBUG" if debug else "WARNING", keep_warm=True, store=store)
        from memdir.portability.dropimport import spawn_if_pending

        spawn_if_pending(home, dir_)
        app = http_app(server, host=host, token=token, path=path)
        sock = _bind(host, port)
    except BaseException:
        if warm is not None:
            warm.close()
        raise
    real_port = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{real_port}{path}"
    info = {"url": url, "host": host, "port": real_port, "pid": os.getpid(), "auth": "bearer" if token else "none"}
    from memdir.ui import missing_deps

    if not missing_deps() and not path.startswith("/ui"):
        info["ui"] = f"http://{shown}:{real_port}/ui/search"  # the viewer's pages (memdir ui), same door
    running = _stop_on_sigterm()  # before the ready line: a SIGTERM right after it still cleans up
    info["hook_socket"] = str(warm.path) if warm else None
    try:
        click.echo(json.dumps(info) if as_json else f"memdir: serving MCP at {url} (Ctrl-C stops)"
                   + (f"; hooks answered on {warm.path}" if warm else "")
                   + (f"; viewer at {info['ui']}" if info.get("ui") else ""))
        sys.stdout.flush()
        import anyio
        import uvicorn

        config = uvicorn.Config(app, log_level="debug" if debug else "warning", access_log=debug,
                                lifespan="on", timeout_graceful_shutdown=3)
        running["server"] = uvicorn.Server(config)
        anyio.run(lambda: running["server"].serve(sockets=[sock]))
    except KeyboardInterrupt:
        pass
    finally:
        sock.close()
        if warm is not None:
            warm.close()
        server.memdir_store.close()


def _stop_on_sigterm() -> dict:
    """SIGTERM ends ``memdir serve`` as Ctrl-C does, through its ``finally`` (the hook socket removed, stores closed).
    uvicorn shuts down on SIGTERM and then raises it again with the handler it found — the default one ended the
    process before any clean-up and left ``hook.sock`` behind. This handler raises ``KeyboardInterrupt`` until the
    returned dict holds the uvicorn server (``["server"]``), then asks that server to stop (``should_exit``) and
    returns, so an exception never lands inside the event loop."""
    import signal
    import threading

    running: dict = {}

    def stop(signum, frame):  # noqa: ARG001
        srv = running.get("server")
        if srv is None:
            raise KeyboardInterrupt
        srv.should_exit = True

    if threading.current_thread() is threading.main_thread() and signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
        signal.signal(signal.SIGTERM, stop)
    return running


def _serve_store(ctx: click.Context, host: str, port: int, url: str, as_json: bool) -> None:
    """``memdir serve --store``: the team API of :mod:`memdir.server.team` on ``host:port``."""
    import os

    from memdir import store as storage
    from memdir.server import team as teamserver

    if not storage.is_remote(url):
        raise UsageError(f"--store needs a postgresql:// URL (got {url!r})")
    teamserver.check_login(url)
    debug = _debug(ctx)
    _log_to_stderr(debug)
    from memdir.config import Config
    from memdir.roots import global_root

    server_cfg = Config(global_file=global_root(None) / "config.toml")  # recall settings: the server's own config/env
    app = teamserver.app(url, {k: server_cfg.get(k) for k in teamserver.defaults() if k.startswith("recall.")})
    sock = _bind(host, port)
    real_port = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    info = {"url": f"http://{shown}:{real_port}/v1", "host": host, "port": real_port, "pid": os.getpid(), "auth": "token per person"}
    click.echo(json.dumps(info) if as_json else f"memdir: serving the team store at {info['url']} (Ctrl-C stops)")
    sys.stdout.flush()
    try:
        import anyio
        import uvicorn

        config = uvicorn.Config(app, log_level="debug" if debug else "warning", access_log=debug, timeout_graceful_shutdown=3)
        anyio.run(lambda: uvicorn.Server(config).serve(sockets=[sock]))
    except KeyboardInterrupt:
        pass
    finally:
        sock.close()


def _start_warm_hooks(home: str | None):
    """The warm hook listener (:mod:`memdir.hosts.warm`) for ``home``, started; ``None`` when ``hook.warm`` is off
    or another server already answers hooks there."""
    from memdir.config import Config
    from memdir.roots import global_root
    from memdir.hosts.warm import WarmServer

    g = global_root(home)
    if not Config(global_file=g / "config.toml").get("hook.warm"):
        return None
    w = WarmServer(home)
    return w if w.start() else None


def _bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host:port`` (``port`` 0 = any free port); ``UsageError`` if it cannot bind."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise UsageError(f"cannot resolve --host {host!r}: {exc.strerror}") from None
    family, stype, proto, _, addr = infos[0]
    sock = socket.socket(family, stype, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(addr)
        sock.listen(128)
    except OSError as exc:
        sock.close()
        raise UsageError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    sock.set_inheritable(True)
    return sock
