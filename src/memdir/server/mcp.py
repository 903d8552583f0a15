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

import json
import logging
import re
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from memdir import foreground
from memdir.errors import MemdirError, UsageError
from memdir.server.http import repair_json_text

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
        self.lock = lock if lock is not None else threading.RLock()

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
        with self.lock:
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


