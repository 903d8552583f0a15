"""The viewer's pages over captured events: the timeline (sessions by day, the skipped captures), one session's
turns, a turn's forget and edit, and what the model saw (each injected block beside the prompt that received it).

Every list is paged by cursor (:mod:`memdir.ui.pager`) with its count; a session opens at its start with a jump to its
end, and a link to one turn (``/event?key=``) opens the page that holds it. All memory access is through the facade.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any
from urllib.parse import urlencode

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from memdir.errors import NotFound, ReadOnlyStore, UsageError
from memdir.ui.forms import read_form
import memdir.ui.pager as pager  # the module itself, not the package (whose start-up imports app)

#: more than any store holds in practice; a list that reaches it says so
SESSIONS_MAX = 100_000
TURNS_MAX = 100_000
SKIPS_MAX = 2_000  # the skip log keeps this many (memdir.store.sqlite.journal.SKIPS_KEEP)
INJECTIONS_MAX = 500  # the injection log keeps this many (journal.INJECTIONS_KEEP)
SQLITE_MAX_ID = 2**63 - 1  # the largest row id SQLite stores
PROMPT_WINDOW_S = (-5.0, 60.0)  # a hook captures the prompt just after it logs the block it injected


def epoch(ts: str | None) -> float:
    """Epoch seconds of a stored ISO time (``2026-11-30T03:25:11.123Z``), 0 for none."""
    if not ts:
        return 0.0
    try:
        return datetime.fromisoformat(ts.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return 0.0


def scope_of(value: str | None) -> str | None:
    return value if value in ("project", "global") else None


def find_prompt(m: Any, row: dict[str, Any], cache: dict | None = None) -> dict[str, Any] | None:
    """The captured user turn that received the injected block ``row``: ``{"key", "text", "ts", "scope", "near"}``
    (its text as stored, secrets redacted) or ``None`` when no such turn is stored. Found by its capture key first
    (``u:<session>:<text hash>``; the hash is the prompt's SHA-256 when the prompt has no run of spaces), else the
    session's user turn nearest in time after the block (``near`` True)."""
    sid, sha = row.get("session"), row.get("prompt_sha256") or ""
    if not sid or not sha:
        return None
    ev = m.get(f"u:{sid}:{sha[:16]}")
    if ev is not None and getattr(ev, "role", None) == "user":
        return {"key": ev.key, "text": ev.text, "ts": ev.ts, "scope": ev.scope, "near": False}
    cache = {} if cache is None else cache
    if sid not in cache:
        cache[sid] = [e for e in m.session_events(sid, limit=TURNS_MAX) if e["role"] == "user"]
    t0 = epoch(row.get("ts"))
    near = [(abs(epoch(e["ts"]) - t0), e) for e in cache[sid]
            if PROMPT_WINDOW_S[0] <= epoch(e["ts"]) - t0 <= PROMPT_WINDOW_S[1]]
    if not near:
        return None
    e = min(near, key=lambda x: x[0])[1]
    return {"key": e["key"], "text": e["text"], "ts": e["ts"], "scope": e["scope"], "near": True}


def replacement_key(key: str, text: str) -> str:
    """The key of an edited turn: the old key with its text hash replaced (``u:<session>:<hash of the new text>``, as
    capture keys it), so a forget by key prefix (``import:<source>``) still finds the edited turn."""
    from memdir.capture.gates import text_hash

    head = key.rsplit(":", 1)[0] if key.count(":") >= 2 else key
    return f"{head}:{text_hash(text)}"


def edit_event(m: Any, key: str, text: str, *, scope: str | None = None) -> dict[str, Any]:
    """Replace a captured turn's text: the corrected turn is stored (same role, session, time and metadata, redacted
    as any import) and the old one forgotten with a tombstone, in that order (a failure in between leaves both, never
    neither). ``{"status": "saved" | "same" | "duplicate" | "skipped", "key"}``. Raises ``NotFound`` (no such turn),
    ``UsageError`` (empty text), ``ReadOnlyStore``."""
    ev = m.get(key, scope=scope)
    if ev is None or not hasattr(ev, "role") or hasattr(ev, "category"):
        raise NotFound(f"no captured turn has the key {key!r}")
    new = text.replace("\r\n", "\n").strip()
    if not new:
        raise UsageError("the text is empty: to remove the turn, forget it")
    if new == ev.text.strip():
        return {"status": "same", "key": ev.key}
    meta = next((e.get("meta") for e in m.session_events(ev.session, scope=ev.scope, limit=TURNS_MAX)
                 if e["key"] == ev.key), None)
    row = {"key": replacement_key(ev.key, new), "role": ev.role, "text": new, "session": ev.session, "ts": ev.ts,
           **({"meta": meta} if meta else {})}
    got = m.import_events([row], scope=ev.scope)
    if not got.get("stored"):
        return {"status": "duplicate" if got.get("duplicate") else "skipped", "key": ev.key}
    m.forget(ev.key, scope=ev.scope)
    return {"status": "saved", "key": row["key"]}


def routes(site: Any) -> list[Route]:
    """The routes of these pages; ``site`` gives ``base``, ``render(request, template, code=, **ctx)`` and
    ``call(fn)`` (one facade call under the viewer's lock, on a worker thread)."""
    base, render, call = site.base, site.render, site.call

    async def timeline(request: Request) -> Response:
        def run(m):
            return m.sessions(limit=SESSIONS_MAX), m.capture_skips(limit=SKIPS_MAX), str(m.project_root)

        sessions, skips, project = await call(run)
        pg = pager.paginate(sessions, lambda s: (-(s.get("last_epoch") or 0), s["scope"], s["session"] or ""),
                            request.query_params,
                            cut=site.t(request)("page.cut.sessions", n=f"{SESSIONS_MAX:,}") if len(sessions) >= SESSIONS_MAX else None)
        days: dict[str, list] = {}
        for s in pg.items:
            days.setdefault((s["last"] or "")[:10], []).append(s)
        reasons: dict[str, int] = {}
        for r in skips:  # the counts and why, as `memdir import` printed them
            reasons[r["reason"]] = reasons.get(r["reason"], 0) + 1
        return render(request, "timeline.html", days=days, pg=pg, skips=skips[:20], skips_total=len(skips),
                      skip_reasons=sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0])), project=project,
                      nav="timeline")

    async def skips_page(request: Request) -> Response:
        rows = await call(lambda m: m.capture_skips(limit=SKIPS_MAX))
        pg = pager.paginate(rows, lambda s: (-epoch(s["ts"]), s["scope"], -s["id"]), request.query_params,
                            cut=site.t(request)("page.cut.log", n=f"{SKIPS_MAX:,}") if len(rows) >= SKIPS_MAX else None)
        return render(request, "skips.html", pg=pg, nav="timeline")

    async def session_page(request: Request) -> Response:
        qp = request.query_params
        sid, scope = qp.get("s") or None, scope_of(qp.get("scope"))

        def run(m):
            return (m.session_events(sid, scope=scope, limit=TURNS_MAX),
                    (m.capture_skips(limit=SKIPS_MAX, session=sid) if sid else []))

        events, skips = await call(run)
        if sid and not events and not skips and not qp.get("done"):  # a mistyped or stale link (a page just emptied
            raise NotFound(f"no captured turn has the session {sid!r}")  # by a forget says so on the page itself)
        rows = [{"type": "event", **e} for e in events] + [{"type": "skip", "key": f"skip-{s['scope']}-{s['id']}", **s}
                                                            for s in skips]

        def key(r):
            return (r["ts"] or "", r["key"])

        rows.sort(key=key)
        query: Any = qp
        want = qp.get("key")
        if want and not any(qp.get(x) for x in ("after", "before", "at", "end")):
            hit = next((r for r in rows if r["key"] == want), None)
            if hit is not None:
                query = {**dict(qp), "at": pager.encode(key(hit))}
        params = {"s": sid or "", "scope": scope or ""}
        pg = pager.paginate(rows, key, query, params=params,
                            cut=site.t(request)("page.cut.log", n=f"{TURNS_MAX:,}") if len(events) >= TURNS_MAX else None)
        return render(request, "session.html", session=sid, scope=scope, pg=pg, nav="timeline",
                      back=pg.href(f"{base}/timeline/session", **({"at": pager.encode(key(pg.items[0]))} if pg.items else {})))

    async def event_link(request: Request) -> Response:
        key = request.query_params.get("key", "")
        scope = scope_of(request.query_params.get("scope"))
        ev = await call(lambda m: m.get(key, scope=scope))
        if ev is None:
            raise NotFound(f"no memory has the id {key!r}")
        if hasattr(ev, "category"):
            return RedirectResponse(site.note_href(base, ev.scope, ev.id), status_code=302)
        params = urlencode({"s": ev.session or "", "scope": ev.scope, "key": ev.key})
        return RedirectResponse(f"{base}/timeline/session?{params}#{site.anchor(ev.key)}", status_code=302)

    def back_to(form: Any, fallback: str) -> str:
        """The page a change returns to: the session page it came from (only a path of ours), else ``fallback``."""
        back = str(form.get("back", ""))
        return back if back.startswith(f"{base}/timeline/session?") else fallback

    async def event_forget(request: Request) -> Response:
        form = await read_form(request)
        key, scope = str(form.get("key", "")), scope_of(str(form.get("scope", "")))
        back = back_to(form, f"{base}/timeline")
        if form.get("confirm") != "yes":
            return RedirectResponse(back, status_code=303)
        gone = await call(lambda m: m.forget(key, scope=scope))
        if not gone:
            raise NotFound(f"no memory has the id {key!r}")
        sep = "&" if "?" in back else "?"
        return RedirectResponse(f"{back}{sep}{urlencode({'done': 'event_forgotten', 'id': key})}", status_code=303)

    async def event_edit(request: Request) -> Response:
        if request.method == "POST":
            form = await read_form(request)
            key, scope = str(form.get("key", "")), scope_of(str(form.get("scope", "")))
            text = str(form.get("text", ""))
            back = back_to(form, "")
            try:
                res = await call(lambda m: edit_event(m, key, text, scope=scope))
            except NotFound as exc:  # forgotten meanwhile: the text typed stays in the form, said so
                return render(request, "event_edit.html", code=404, key=key, scope=scope, text=text, back=back,
                              refused=f"{exc}; {site.t(request)('event.edit.gone')}", nav="timeline")
            except (UsageError, ReadOnlyStore) as exc:
                return render(request, "event_edit.html", code=400 if isinstance(exc, UsageError) else 409, key=key,
                              scope=scope, text=text, back=back, refused=str(exc), nav="timeline")
            if res["status"] != "saved":
                return render(request, "event_edit.html", code=409, key=key, scope=scope, text=text, back=back,
                              refused=site.t(request)(f"event.edit.{res['status']}"), nav="timeline")
            ev = await call(lambda m: m.get(res["key"]))
            params = urlencode({"s": (ev.session if ev else "") or "", "scope": ev.scope if ev else "",
                                "key": res["key"], "done": "event_saved"})
            return RedirectResponse(f"{base}/timeline/session?{params}#{site.anchor(res['key'])}", status_code=303)
        key, scope = request.query_params.get("key", ""), scope_of(request.query_params.get("scope"))
        ev = await call(lambda m: m.get(key, scope=scope))
        if ev is None or hasattr(ev, "category"):
            raise NotFound(f"no captured turn has the key {key!r}")
        return render(request, "event_edit.html", key=ev.key, scope=ev.scope, text=ev.text, event=ev,
                      back=back_to(request.query_params, ""), refused=None, nav="timeline")

    # ---- what the model saw ----------------------------------------------------------------------------------
    async def injection_rows(request: Request, with_prompts: bool = True) -> pager.Page:
        rows = await call(lambda m: m.injections(limit=INJECTIONS_MAX))
        pg = pager.paginate(rows, lambda r: (-epoch(r["ts"]), r["scope"], -r["id"]), request.query_params,
                            params={k: request.query_params.get(k, "") for k in ("q", "id")},
                            cut=site.t(request)("page.cut.log", n=f"{INJECTIONS_MAX:,}") if len(rows) >= INJECTIONS_MAX else None)
        if with_prompts:
            def run(m):
                cache: dict = {}
                return [find_prompt(m, r, cache) for r in pg.items]

            for r, p in zip(pg.items, await call(run)):
                r["prompt"] = p
        return pg

    async def injections(request: Request) -> Response:
        return render(request, "injections.html", pg=await injection_rows(request), why=None, nav="injections")

    async def injection_page(request: Request) -> Response:
        scope = site.scope(request)
        try:
            iid = int(request.path_params["n"])
        except ValueError:
            raise NotFound("no such block") from None
        if not 0 < iid <= SQLITE_MAX_ID:  # a log row id: SQLite's integer range (a larger number overflowed: a 500)
            raise NotFound("no such block")

        def run(m):
            rows = m.injections(limit=1, id=iid, scope=scope)
            return (rows[0], find_prompt(m, rows[0])) if rows else (None, None)

        row, prompt = await call(run)
        if row is None:
            raise NotFound("no such block")
        return render(request, "injection.html", row=row, prompt=prompt, nav="injections")

    async def why(request: Request) -> Response:
        q = request.query_params.get("q", "").strip()
        want = request.query_params.get("id", "").strip()

        def run(m):
            from memdir.recall.tokenize import query_tokens, tokenize

            info = m.explain(q, k=50) if q else {"hits": []}
            out: dict[str, Any] = {"q": q, "id": want, "info": info, "rank": None, "exists": None}
            if want:
                ids = [h["id"] for h in info["hits"]]
                if want in ids:
                    out["rank"] = ids.index(want) + 1
                item = m.get(want)
                out["exists"] = item is not None
                if item is not None:
                    out["superseded_by"] = getattr(item, "superseded_by", None)
                    text = " ".join(str(x) for x in (getattr(item, "summary", "") or "", " ".join(getattr(item, "tags", ()) or ()),
                                                      " ".join(getattr(item, "load_when", ()) or ()), item.text))
                    qt = query_tokens(q) if q else []
                    out["shared"] = [t for t in qt if t in set(tokenize(text))]
                    out["qterms"] = qt
            return out

        result = await call(run)
        return render(request, "injections.html", pg=await injection_rows(request), why=result, nav="injections")

    return [
        Route(f"{base}/timeline", timeline),
        Route(f"{base}/timeline/skips", skips_page),
        Route(f"{base}/timeline/session", session_page),
        Route(f"{base}/event", event_link),
        Route(f"{base}/event/forget", event_forget, methods=["POST"]),
        Route(f"{base}/event/edit", event_edit, methods=["GET", "POST"]),
        Route(f"{base}/injections", injections),
        Route(f"{base}/injections/{{scope}}/{{n}}", injection_page),
        Route(f"{base}/why", why),
    ]
