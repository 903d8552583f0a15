"""The viewer's pages (Starlette routes rendering Jinja2 templates; no JavaScript).

Every page is a plain URL that can be bookmarked (``/search?q=部署&scope=project``); every change is a POST
form that answers with a redirect (303) to the page it changed, or re-renders the form with the reason it was
refused. All memory access goes through the facade (:class:`memdir.Memdir`), one call at a time under a lock,
on a worker thread.
"""

from __future__ import annotations

import functools
import re
import threading
from datetime import date, datetime
from pathlib import Path
from dataclasses import dataclass
from typing import Any, Awaitable, Callable
from urllib.parse import quote, urlencode

from markupsafe import Markup, escape
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from memdir.errors import EditConflict, MemdirError, NotFound, ReadOnlyStore, UsageError
import memdir.ui.i18n as i18n
import memdir.ui.pager as pager
import memdir.ui.team as team
import memdir.ui.timeline as timeline
from memdir.ui.forms import TooLarge, read_form
from memdir.ui.guard import local_path

HERE = Path(__file__).parent
KINDS = ("note", "event", "rule", "preference", "decision", "pitfall", "fact", "user", "assistant", "tool")
SEARCH_POOL = 60  # recall's k for a search: 3 × 60 stays within recall.candidates (200), so page 1 is recall(k=10)
SEARCH_POOL_FILTERED = 200  # with category / session / date filters, a wider pool to filter
_REDACTED = re.compile(r"\[redacted:[a-z0-9_]{1,40}\]")
_NOTE_ID = re.compile(r"^[^/\s]+/[^/\s]+$")


class Backend:
    """How the pages reach memory: ``get()`` returns the open :class:`memdir.Memdir`; ``lock`` serialises calls
    (shared with the MCP tools under ``memdir serve``)."""

    def __init__(self, get: Callable[[], Any], lock: Any = None):
        self.get = get
        self.lock = lock or threading.RLock()

    async def call(self, fn: Callable[[Any], Any]) -> Any:
        def run():
            with self.lock:
                return fn(self.get())

        return await run_in_threadpool(run)


@dataclass
class Site:
    """What a page module (:mod:`memdir.ui.timeline`, :mod:`memdir.ui.team`) needs of the app: the URL prefix,
    ``render(request, template, code=200, **ctx)``, ``call(fn)`` (``fn(memdir)`` under the lock on a worker
    thread), ``scope(request)`` (the path's scope or ``NotFound``), ``t(request)`` (the request's translator),
    ``note_href`` and ``anchor(key)`` (a turn's id in its page)."""

    base: str
    render: Callable[..., HTMLResponse]
    call: Callable[[Callable[[Any], Any]], Awaitable[Any]]
    scope: Callable[[Request], str]
    t: Callable[[Request], Callable[..., str]]
    note_href: Callable[[str, str, str], str]
    anchor: Callable[[str], str]


def lang_of(request: Request) -> str:
    """The request's language: ``?lang=``, the cookie, then ``Accept-Language``."""
    return i18n.pick(request.query_params.get("lang"), request.cookies.get("memdir_lang"),
                     request.headers.get("accept-language"))


def by_handle(m: Any, q: str) -> list[tuple[str, Any]]:
    """The memories the query names by their short handle (``2vnb86``, or a block's ``[2vnb86 fact 11-01]`` header
    pasted whole): ``[(handle, note or event)]``, in the order typed."""
    from memdir.recall.handles import looks_like

    out, seen = [], set()
    for word in q.replace("[", " ").replace("]", " ").split():
        w = word.lower()
        if w in seen or not looks_like(w):
            continue
        seen.add(w)
        item = m.get(w)
        if item is not None:
            out.append((w, item))
    return out


# ---- template helpers ----------------------------------------------------------------------------------------
def _env():
    import jinja2

    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(HERE / "templates")), autoescape=True,
                             trim_blocks=True, lstrip_blocks=True, undefined=jinja2.ChainableUndefined,
                             finalize=shown)
    env.filters["digest"] = digest
    env.filters["redmark"] = redmark
    env.filters["redacted"] = redacted  # a form field's text: what saving it would store
    env.filters["day"] = lambda ts: (ts or "")[:10]
    env.filters["hm"] = lambda ts: (ts or "")[11:16]
    env.filters["q"] = lambda s: Markup(quote(str(s or ""), safe=""))  # URL-safe characters only: an id as it is
    return env


def shown(value: Any) -> Any:
    """Every ``{{ … }}`` a page outputs (Jinja's ``finalize``): a plain string is redacted (:func:`redacted`), whatever
    it came from — a note field, a refusal quoting what was typed, the address's own text — so no page shows a key;
    markup made here (:func:`redmark`, :func:`markdown`, :func:`digest`) passes as it is."""
    if isinstance(value, Markup) or not isinstance(value, str) or not value:
        return value
    return _redact_short(value) if len(value) <= 512 else redacted(value)


@functools.lru_cache(maxsize=8192)
def _redact_short(value: str) -> str:  # a page repeats its labels, ids and links many times
    return redacted(value)


def digest(value: Any) -> Markup:
    """A hash, id, event key, session id or link shown or sent back as it is (a note's version, a prompt's SHA-256,
    an OpenCode ``ses_…`` session): never a secret, but a run of hex or a prefixed random tail that redaction would
    take for one, and a form or link carrying ``[redacted:…]`` names nothing."""
    return Markup(escape(str(value or "")))


def redacted(text: Any) -> str:
    """``text`` with its secrets replaced by ``[redacted:kind]`` markers, as a capture stores it today: a text stored
    before redaction knew a key's shape (an older memdir, a pattern added since) is shown redacted all the same."""
    from memdir.capture.redact import redact

    return redact(str(text or ""))


def redmark(text: Any, limit: int | None = None) -> Markup:
    """``text`` redacted (:func:`redacted`), then cut to ``limit`` characters (``…`` marks the cut; after redaction,
    so a cut never leaves half a key), escaped, each ``[redacted:kind]`` marker wrapped in ``<mark class="redacted">``."""
    s = redacted(text)
    if limit is not None and len(s) > limit:
        s = s[:limit] + "…"
    return Markup(_REDACTED.sub(lambda m: f'<mark class="redacted">{m.group(0)}</mark>', str(escape(s))))


_MD = None


def markdown(text: str) -> Markup:
    """CommonMark to HTML with raw HTML disabled (it is shown as text) and unsafe link schemes refused
    (markdown-it-py's defaults); secrets redacted first (:func:`redacted`), redaction markers highlighted."""
    global _MD
    if _MD is None:
        from markdown_it import MarkdownIt

        _MD = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table")
    html = _MD.render(redacted(text))
    return Markup(_REDACTED.sub(lambda m: f'<mark class="redacted">{m.group(0)}</mark>', html))


def note_href(base: str, scope: str, note_id: str) -> str:
    return f"{base}/notes/{scope}/{quote(note_id)}"


def hit_href(base: str, scope: str | None, hid: str) -> str:
    """A note id links to its page; an event key (or a block's short handle) to its turn in the timeline. With
    ``scope`` None the link is resolved when followed (project first), e.g. for a logged block's hits."""
    if scope and _NOTE_ID.match(hid) and ":" not in hid:
        return note_href(base, scope, hid)
    return f"{base}/event?{urlencode({'key': hid, **({'scope': scope} if scope else {})})}"


# ---- the app ---------------------------------------------------------------------------------------------------
def create_app(backend: Backend, *, prefix: str = "") -> Starlette:
    """The pages under ``prefix`` (``""`` for ``memdir ui``, ``"/ui"`` inside ``memdir serve``)."""
    env = _env()
    base = prefix.rstrip("/")

    def render(request: Request, name: str, code: int = 200, **ctx: Any) -> HTMLResponse:
        lang = lang_of(request)
        other = "en" if lang == "zh" else "zh"
        params = [(k, v) for k, v in request.query_params.multi_items() if k not in ("lang", "done")]
        here = local_path(request.url.path)  # never //other.host: it becomes this page's links
        switch = f"{here}?{urlencode(params + [('lang', other)])}"
        html = env.get_template(name).render(t=i18n.translator(lang), lang=lang, base=base, switch=switch,
                                             path=here, done=_done(request.query_params.get("done")),
                                             done_id=request.query_params.get("id"), note_href=note_href,
                                             hit_href=hit_href, markdown=markdown, **ctx)
        resp = HTMLResponse(html, status_code=code)
        if request.query_params.get("lang") in i18n.LANGS:
            resp.set_cookie("memdir_lang", lang, max_age=365 * 86400, samesite="strict", httponly=True, path="/")
        return resp

    def error(request: Request, status: int, message: str) -> HTMLResponse:
        return render(request, "error.html", code=status, message=message)

    async def call(request: Request, fn: Callable[[Any], Any]) -> Any:
        return await backend.call(fn)

    site = Site(base=base, render=render, call=backend.call, scope=lambda r: _scope(r),
                t=lambda r: i18n.translator(lang_of(r)), note_href=note_href, anchor=lambda k: quote(k, safe=""))

    # ---- search ------------------------------------------------------------------------------------------
    async def index(request: Request) -> Response:
        return RedirectResponse(f"{base}/search", status_code=302)

    async def search(request: Request) -> Response:
        qp = request.query_params
        q = qp.get("q", "").strip()
        scope = qp.get("scope") if qp.get("scope") in ("project", "global") else None
        kind = qp.get("kind") if qp.get("kind") in KINDS else None
        category = qp.get("category") or None
        session = (qp.get("session") or "").strip() or None
        raw = {"since": qp.get("since") or qp.get("from") or "", "until": qp.get("until") or qp.get("to") or ""}
        since, until = _date(raw["since"]), _date(raw["until"])
        bad_dates = [(f, v) for f, v in raw.items() if v.strip() and _date(v) is None]  # said on the page, then ignored
        k = pager.size_of(qp.get("k"), 10)  # the page size
        filtered = bool(category or session or since or until)
        pool = SEARCH_POOL_FILTERED if filtered else SEARCH_POOL

        def run(m):
            cats = list(m.config.get("categories"))
            if not q:
                return [], [], cats
            hits = m.recall(q, k=pool, scope=scope, kinds=[kind] if kind else None)
            out = []
            for h in hits:
                if category and h.category != category:
                    continue
                if session and (h.session or "") != session:
                    continue
                d = h.ts.astimezone().date() if h.ts else None  # the dates a person typed: local
                if (since and (d is None or d < since)) or (until and (d is None or d > until)):
                    continue
                out.append(h)
            return out, by_handle(m, q), cats

        hits, named, cats = await call(request, run)
        form = {"q": q, "scope": scope or "", "kind": kind or "", "category": category or "", "session": session or "",
                "since": raw["since"], "until": raw["until"], "k": k}
        ranks = list(enumerate(hits))
        cut = i18n.translator(lang_of(request))("page.cut.search", n=pool) if len(hits) >= pool else None
        pg = pager.paginate(ranks, lambda r: (r[0],), qp, size=k, cut=cut, size_key="k", default_size=10,
                            params={x: str(v) for x, v in form.items() if x != "k"})
        mixed = any(isinstance((h.reasons or {}).get("rrf"), dict) for h in hits)  # fused with the team's list
        return render(request, "search.html", pg=pg, hits=[h for _, h in pg.items], named=named, form=form,
                      kinds=KINDS, categories=cats, nav="search", bad_dates=bad_dates, mixed=mixed)

    # ---- notes -------------------------------------------------------------------------------------------
    async def notes_list(request: Request) -> Response:
        category = request.query_params.get("category") or None
        rep = await call(request, lambda m: m.inspect())

        def key(n):
            return (n.category, n.superseded_by is not None, -(n.updated.timestamp() if n.updated else 0), n.scope, n.id)

        rows = sorted((n for n in rep.notes if not category or n.category == category), key=key)
        pg = pager.paginate(rows, key, request.query_params, params={"category": category or ""})
        groups: dict[str, list] = {}
        for n in pg.items:
            groups.setdefault(n.category, []).append(n)
        counts: dict[str, int] = {}
        for n in rows:
            counts[n.category] = counts.get(n.category, 0) + 1
        cats = sorted({n.category for n in rep.notes})
        return render(request, "notes.html", groups=groups, counts=counts, pg=pg, categories=cats, category=category,
                      total=len(rep.notes), nav="notes")

    def _scope(request: Request) -> str:
        s = request.path_params["scope"]
        if s not in ("project", "global"):
            raise NotFound(f"unknown scope {s!r}")
        return s

    async def note_page(request: Request) -> Response:
        scope, nid = _scope(request), request.path_params["id"]

        def run(m):
            note = m.get(nid, scope=scope)
            if note is None or not hasattr(note, "category"):
                raise NotFound(f"no note has the id {nid!r}")
            return note

        note = await call(request, run)
        return render(request, "note.html", note=note, nav="notes")

    async def note_edit(request: Request) -> Response:
        scope, nid = _scope(request), request.path_params["id"]
        if request.method == "POST":
            form = await read_form(request)
            fm = str(form.get("frontmatter", "")).replace("\r\n", "\n").strip("\n")
            body = str(form.get("body", "")).replace("\r\n", "\n")
            text = f"---\n{fm}\n---\n{body}"
            expect = str(form.get("version", "")).strip() or None  # the version the form was made from (C35)
            try:
                await call(request, lambda m: m.edit(nid, text, scope=scope, expect=expect))
            except EditConflict as exc:  # changed on disk meanwhile: both texts shown, the form now on the new version
                fm2, body2 = _parts(exc.theirs or "")
                return render(request, "edit.html", code=409, id=nid, scope=scope, frontmatter=fm, body=body,
                              refused=str(exc), theirs=exc.theirs, version=exc.found or "", nav="notes",
                              theirs_frontmatter=fm2, theirs_body=body2)
            except NotFound as exc:  # its file is gone (deleted, forgotten): the text typed stays in the form, said so
                return render(request, "edit.html", code=404, id=nid, scope=scope, frontmatter=fm, body=body,
                              refused=str(exc), theirs=None, version="", nav="notes")
            except (UsageError, ReadOnlyStore) as exc:  # the form keeps the text typed in it
                return render(request, "edit.html", code=400 if isinstance(exc, UsageError) else 409, id=nid,
                              scope=scope, frontmatter=fm, body=body, refused=str(exc), version=expect or "", nav="notes")
            return RedirectResponse(f"{note_href(base, scope, nid)}?done=saved", status_code=303)
        raw = await call(request, lambda m: m.note_source(nid, scope=scope))
        from memdir.notes.markdown import version

        fm, body = _parts(raw)
        return render(request, "edit.html", id=nid, scope=scope, frontmatter=fm, body=body, version=version(raw),
                      refused=None, nav="notes")

    def _parts(raw: str) -> tuple[str, str]:
        """A note file's text as the form's two fields: (frontmatter without its fences, body)."""
        from memdir.notes.markdown import split

        try:
            _, body, fm = split(raw)
        except UsageError:
            fm, body = "", raw
        return (fm or "").strip("\n"), body

    async def note_pin(request: Request) -> Response:
        scope, nid = _scope(request), request.path_params["id"]
        form = await read_form(request)
        on = form.get("pinned") == "1"
        await call(request, lambda m: m.pin(nid, on, scope=scope))
        return RedirectResponse(f"{note_href(base, scope, nid)}?done={'pinned' if on else 'unpinned'}", status_code=303)

    async def note_forget(request: Request) -> Response:
        scope, nid = _scope(request), request.path_params["id"]
        form = await read_form(request)
        if form.get("confirm") != "yes":
            return RedirectResponse(note_href(base, scope, nid), status_code=303)
        gone = await call(request, lambda m: m.forget(nid, scope=scope))
        if not gone:
            raise NotFound(f"no note has the id {nid!r}")
        return RedirectResponse(f"{base}/notes?{urlencode({'done': 'forgotten', 'id': nid})}", status_code=303)

    async def note_supersede(request: Request) -> Response:
        scope, nid = _scope(request), request.path_params["id"]
        form = await read_form(request)
        text = str(form.get("text", "")).replace("\r\n", "\n")

        def run(m):
            old = m.get(nid, scope=scope)
            if old is None or not hasattr(old, "category"):
                raise NotFound(f"no note has the id {nid!r}")
            return m.remember(text, category=old.category, tags=old.tags, load_when=old.load_when, pinned=old.pinned,
                              supersedes=nid, scope=scope)

        try:
            new = await call(request, run)
        except NotFound as exc:  # forgotten meanwhile (another tab, the CLI): the form keeps the text typed, said so
            return render(request, "supersede_gone.html", code=404, id=nid, scope=scope, typed=text, nav="notes",
                          refused=f"{exc}; {i18n.translator(lang_of(request))('note.supersede.gone')}")
        except (UsageError, ReadOnlyStore) as exc:  # the page keeps the text typed (superseded meanwhile, empty …)
            note = await call(request, lambda m: m.get(nid, scope=scope))
            return render(request, "note.html", code=400 if isinstance(exc, UsageError) else 409, note=note,
                          refused=str(exc), typed=text, nav="notes")
        return RedirectResponse(f"{note_href(base, new.scope, new.id)}?done=superseded", status_code=303)

    # ---- health --------------------------------------------------------------------------------------------
    async def health(request: Request) -> Response:
        try:
            days = float(request.query_params.get("days") or 90)
        except ValueError:
            days = 90.0

        def run(m):
            status = m.status()
            # doctor reads the whole index (seconds at 10k events): run when asked, so the page itself stays fast
            checks = m.doctor(repair=False) if request.query_params.get("doctor") == "1" else None  # never writes
            rep = m.inspect()
            preview = m.prune(days) if request.query_params.get("days") else None
            proposals = _proposals(m)
            return status, checks, rep, preview, proposals

        status, checks, rep, preview, proposals = await call(request, run)
        return render(request, "health.html", status=status, checks=checks, problems=rep.problems, preview=preview,
                      days=days, proposals=proposals, nav="health", pruned=request.query_params.get("n"))

    async def prune(request: Request) -> Response:
        form = await read_form(request)
        try:
            days = float(str(form.get("days", "")))
        except ValueError:
            raise UsageError("prune needs a number of days") from None
        token = str(form.get("token", ""))
        res = await call(request, lambda m: m.prune(days, token))
        return RedirectResponse(f"{base}/health?{urlencode({'done': 'pruned', 'n': res.get('count', 0)})}", status_code=303)

    async def proposal_action(request: Request) -> Response:
        form = await read_form(request)
        pid, action = str(form.get("id", "")), str(form.get("action", ""))
        if action not in ("accept", "reject"):
            raise UsageError("action must be accept or reject")
        res = await call(request, lambda m: getattr(m, f"{action}_proposal")(pid))
        params = {"done": "accepted" if action == "accept" else "rejected", "id": getattr(res, "id", pid)}
        return RedirectResponse(f"{base}/health?{urlencode(params)}#proposals", status_code=303)

    # ---- errors -----------------------------------------------------------------------------------------------
    too_large = ("not saved: the text is larger than a form takes (1 MiB); a note holds at most 900,000 bytes: keep "
                 "long material in a file and remember a pointer to it")

    async def on_error(request: Request, exc: Exception) -> Response:
        if isinstance(exc, NotFound):
            return error(request, 404, str(exc))
        if isinstance(exc, UsageError):
            return error(request, 400, str(exc))
        if isinstance(exc, MemdirError):
            return error(request, 500, str(exc))
        return error(request, 500, f"{type(exc).__name__}: {str(exc).splitlines()[0][:300] if str(exc) else ''}")

    async def not_found(request: Request, exc: Exception) -> Response:
        return error(request, 404, "not found")

    async def on_http(request: Request, exc: Exception) -> Response:
        """Starlette's own refusals (a form field over its 1 MiB limit) as the viewer's page, not bare text."""
        code, detail = getattr(exc, "status_code", 400), str(getattr(exc, "detail", "") or exc)
        if code == 404:
            return error(request, 404, "not found")
        if isinstance(exc, TooLarge) or "maximum size" in detail:
            return error(request, 413, too_large)
        return error(request, code, detail)

    routes = [
        Route(f"{base}/", index) if base else Route("/", index),
        Route(f"{base}/search", search),
        Route(f"{base}/notes", notes_list),
        Route(f"{base}/notes/{{scope}}/{{id:path}}/edit", note_edit, methods=["GET", "POST"]),
        Route(f"{base}/notes/{{scope}}/{{id:path}}/pin", note_pin, methods=["POST"]),
        Route(f"{base}/notes/{{scope}}/{{id:path}}/forget", note_forget, methods=["POST"]),
        Route(f"{base}/notes/{{scope}}/{{id:path}}/supersede", note_supersede, methods=["POST"]),
        Route(f"{base}/notes/{{scope}}/{{id:path}}", note_page),
        *timeline.routes(site),
        *team.routes(site),
        Route(f"{base}/health", health),
        Route(f"{base}/prune", prune, methods=["POST"]),
        Route(f"{base}/proposals", proposal_action, methods=["POST"]),
        Mount(f"{base}/static", app=StaticFiles(directory=str(HERE / "static")), name="static"),
    ]
    if base:
        routes.append(Route(base, index))
    from starlette.exceptions import HTTPException

    return Starlette(routes=routes, exception_handlers={Exception: on_error, MemdirError: on_error, 404: not_found,
                                                        HTTPException: on_http})


def _done(value: str | None) -> str | None:
    """The ``?done=`` notice to show, only when it names one of ours (never echoes arbitrary text)."""
    return value if value and f"done.{value}" in i18n.EN else None


def _date(s: str | None) -> date | None:
    try:
        return datetime.strptime(s.strip(), "%Y-%m-%d").date() if s and s.strip() else None
    except ValueError:
        return None


def _proposals(m: Any) -> list[dict[str, Any]] | None:
    """Pending distillation proposals when this memdir has them (``Memdir.proposals``), else ``None``."""
    fn = getattr(m, "proposals", None)
    if fn is None:
        return None
    try:
        return list(fn())
    except Exception:  # noqa: BLE001 — the health page shows what it can
        return None
