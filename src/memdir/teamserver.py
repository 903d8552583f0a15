"""The team server's HTTP API over a PostgreSQL store (issue 14): ``memdir serve --store postgresql://…``.

Every request names its project in the path and carries a person's token (``Authorization: Bearer <token>``). The
server opens the store *as a client login* (a member of :data:`memdir.pgstore.CLIENT_ROLE`) with that project and
token, so the database's row-level security decides what is visible: a token that does not grant the project gets
``403`` and could read nothing even if the server asked. The server refuses to start with a login that bypasses
row-level security (a superuser or the tables' owner).

    POST /v1/{project}/events   {"events": [row, …]}      → {"stored", "duplicate", "skipped"}
    POST /v1/{project}/recall   {"query": str, "k": int}   → {"hits": [{ref, kind, role, session, ts, text, bm25, handle, span}]}
    POST /v1/{project}/forget   {"ref": str, "when": str}  → {"forgotten": bool}
    GET  /v1/health                                         → {"ok": true}

An event row is what :meth:`memdir.core.Memdir.import_events` stores (``ref``, ``content_sha256``, ``role``,
``session``, ``ts``, ``ts_epoch``, ``text``, ``meta``): the client gates, redacts and keys it, so a queued row sent
twice is stored once. Errors are one-line JSON ``{"error": …}``.
"""

from __future__ import annotations

from typing import Any

from .errors import MemdirError

EVENT_FIELDS = ("ref", "content_sha256", "role", "session", "ts", "ts_epoch", "text", "meta")
MAX_EVENTS = 1000
WEIGHTS = (4.0, 3.0, 1.0, 0.3)  # the default recall.weight_* (tags, title, body, context)


def check_login(url: str) -> None:
    """Raise ``MemdirError`` when ``url``'s login would bypass row-level security (superuser, BYPASSRLS, owner)."""
    from .pgstore import CLIENT_ROLE, PgStore

    s = PgStore.connect(url, project="-")
    try:
        me = s.conn.execute("SELECT rolsuper, rolbypassrls FROM pg_roles WHERE rolname = current_user").fetchone()
        own = s.conn.execute("SELECT pg_get_userbyid(relowner) = current_user AS own FROM pg_class WHERE relname = 'docs' "
                             "AND relkind = 'r'").fetchone()
    finally:
        s.close()
    if me["rolsuper"] or me["rolbypassrls"] or (own and own["own"]):
        raise MemdirError(f"the store login of --store sees every project (superuser or table owner): serve with a login "
                          f"that is a member of {CLIENT_ROLE} (GRANT {CLIENT_ROLE} TO <login>)")


def _row(ev: Any) -> dict[str, Any]:
    if not isinstance(ev, dict) or not all(isinstance(ev.get(k), str) and ev.get(k) for k in ("ref", "content_sha256", "text", "ts")):
        raise ValueError("each event needs ref, content_sha256, text and ts (strings)")
    row = {k: ev.get(k) for k in EVENT_FIELDS}
    row["kind"] = "event"
    row["ts_epoch"] = float(row["ts_epoch"] or 0.0)
    return row


def app(url: str):
    """The Starlette application serving ``url``'s store (see the module docstring)."""
    from starlette.applications import Starlette
    from starlette.concurrency import run_in_threadpool
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    from .pgstore import PgStore
    from .tokenize import query_tokens

    def err(status: int, msg: str) -> JSONResponse:
        return JSONResponse({"error": msg}, status_code=status)

    def open_for(request: Request) -> tuple[PgStore | None, JSONResponse | None]:
        auth = request.headers.get("authorization", "")
        if not auth.lower().startswith("bearer ") or not auth[7:].strip():
            return None, err(401, "send Authorization: Bearer <token>")
        project = request.path_params["project"]
        s = PgStore.connect(url, project=project, token=auth[7:].strip())
        if not s.conn.execute("SELECT memdir_project_ok() AS ok").fetchone()["ok"]:
            s.close()
            return None, err(403, f"this token does not grant project {project!r}")
        return s, None

    def run(request: Request, body: dict, what: str) -> JSONResponse:
        s, denied = open_for(request)
        if denied:
            return denied
        try:
            if what == "events":
                evs = body.get("events")
                if not isinstance(evs, list) or len(evs) > MAX_EVENTS:
                    return err(400, f"events must be a list of at most {MAX_EVENTS} rows")
                rows = [_row(e) for e in evs]

                def write(st):
                    refs, shas = st.tombstoned()
                    out = {"stored": 0, "duplicate": 0, "skipped": 0}
                    pending: dict[int, str] = {}
                    for r in rows:
                        if r["ref"] in refs or r["content_sha256"] in shas:
                            out["skipped"] += 1
                        elif st.insert_event(r, pending=pending):
                            out["stored"] += 1
                        else:
                            out["duplicate"] += 1
                    st.flush_events(pending)
                    return out

                return JSONResponse(s.write(write))
            if what == "recall":
                q, k = body.get("query"), body.get("k", 8)
                if not isinstance(q, str) or not isinstance(k, int) or not 0 < k <= 100:
                    return err(400, "recall needs query (a string) and k (1-100)")
                rows = s.search(query_tokens(q), weights=WEIGHTS, limit=k)
                keys = ("ref", "kind", "role", "session", "ts", "text", "bm25", "handle", "span", "summary")
                return JSONResponse({"hits": [{x: r.get(x) for x in keys} for r in rows]})
            ref, when = body.get("ref"), body.get("when")
            if not isinstance(ref, str) or not isinstance(when, str):
                return err(400, "forget needs ref and when (ISO time)")

            def forget(st):
                row = st.get_doc(ref)
                if row is None:
                    return False
                st.delete_doc(ref)
                if row.get("session"):
                    st.refresh_context([row["session"]])
                st.tombstone(ref, row["content_sha256"], row["kind"], when)
                return True

            return JSONResponse({"forgotten": s.write(forget)})
        except ValueError as exc:
            return err(400, str(exc))
        finally:
            s.close()

    def endpoint(what: str):
        async def handle(request: Request) -> JSONResponse:
            try:
                body = await request.json()
            except Exception:
                return err(400, "the body must be a JSON object")
            if not isinstance(body, dict):
                return err(400, "the body must be a JSON object")
            try:
                return await run_in_threadpool(run, request, body, what)
            except MemdirError as exc:
                return err(503, str(exc))
        return handle

    async def health(request: Request) -> JSONResponse:
        return JSONResponse({"ok": True})

    return Starlette(routes=[
        Route("/v1/health", health, methods=["GET"]),
        Route("/v1/{project}/events", endpoint("events"), methods=["POST"]),
        Route("/v1/{project}/recall", endpoint("recall"), methods=["POST"]),
        Route("/v1/{project}/forget", endpoint("forget"), methods=["POST"]),
    ])

