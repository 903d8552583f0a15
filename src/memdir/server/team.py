"""The team server's HTTP API over a PostgreSQL store (issue 14): ``memdir serve --store postgresql://…``.

Every request names its project in the path and carries a person's token (``Authorization: Bearer <token>``). The
server opens the store *as a client login* (a member of :data:`memdir.store.postgres.migrations.CLIENT_ROLE`) with that project and
token, so the database's row-level security decides what is visible: a token that does not grant the project gets
``403`` and could read nothing even if the server asked. The server refuses to start with a login that bypasses
row-level security (a superuser or the tables' owner).

    POST /v1/{project}/events   {"events": [row, …]}      → {"stored", "duplicate", "skipped"}
    POST /v1/{project}/recall   {"query": str, "k": int, "now"?: ISO time}
                                                            → {"hits": [{ref, kind, role, session, ts, text, score, bm25,
                                                              prior, decay, rehearsal, subject, date, session_bonus,
                                                              handle, span, summary, content_sha256}]}
    POST /v1/{project}/forget   {"ref": str, "when": str}  → {"forgotten": bool}
    POST /v1/{project}/sharing  {"share": bool}            → {"project", "person", "share"}  (the token's person's own
                                                              events in the project: opened to the members, or not)
    GET  /v1/health                                         → {"ok": true, "store": "ok"}; 503 {"ok": false, "error"}
                                                              when PostgreSQL does not answer
    GET  /v1/whoami                                         → {"person", "projects"}: the token's person and the
                                                              projects it grants (read-only; memdir doctor)

A token the store does not know (wrong, revoked, expired) gets ``401``; a valid one that does not grant the project
``403``, naming the projects it grants.
    POST /v1/{project}/read     {"id": handle or key}        → {"hit": {ref, kind, role, session, ts, text, handle,
                                                              summary} or null}: one row the token may see
    POST /v1/{project}/holdings {"newest"?: int (0-20)}      → what the token may read, by person
                                                              (:meth:`memdir.store.postgres.reads.PgReads.holdings`)

An event row is what :meth:`memdir.core.Memdir.import_events` stores (``ref``, ``content_sha256``, ``role``,
``session``, ``ts``, ``ts_epoch``, ``text``, ``meta``): the client gates, redacts and keys it, so a queued row sent
twice is stored once; the server redacts its text and meta again (an older client's row), and the texts and summaries
it answers with. Errors are one-line JSON ``{"error": …}``.

Recall ranks with the local path's own function (:func:`rank_rows` → :func:`memdir.recall.rank.rank_candidates`): BM25 ×
scope prior × decay × rehearsal boost × subject and date boosts, plus the session bonus, with memdir's default
settings; the query's time is the server's clock unless the request gives ``now``. Connections come from a pool (``psycopg_pool``, :data:`POOL_MAX`); each request
binds its connection to the request's project and token (``app.project``, ``app.token``) and the pool clears both
when the connection comes back, so one person's rights never carry over to the next request. A person sees their own
events, the project's notes, and the events of the other members who share theirs (each person decides for their
own: ``POST /sharing``, :func:`memdir.store.postgres.admin.share_events`).
"""

from __future__ import annotations

import json
from typing import Any

from memdir.capture import events as cevents
from memdir.errors import MemdirError
from memdir.lazylog import getLogger
from memdir.store.rows import EVENT_FIELDS

log = getLogger(__name__)

MAX_EVENTS = 1000
#: the largest request body the server reads, in bytes: a client's batch (:data:`memdir.engine.remote.BATCH` rows of
#: at most 20,000 characters, each escaped to at most 6 bytes in JSON) is below it; a larger body is refused with 413
#: before it is read whole, and the client splits a refused batch (:func:`memdir.engine.remote.push`)
MAX_BODY = 32 * 1024 * 1024
WEIGHTS = (4.0, 3.0, 1.0, 0.3)  # the default recall.weight_* (tags, title, body, context)
POOL_MAX = 8  # connections the server keeps to the store
#: /v1/health waits at most this for the store: below the 1 s a member's viewer gives it to say whether PostgreSQL is
#: the part not answering (memdir.engine.teamview.HEALTH_TIMEOUT_S)
HEALTH_TIMEOUT_S = 0.8
#: once the store was found down, a request or /v1/health waits this for a connection (the pool retries on its own):
#: every answer of an outage comes well within the viewer's 2 s, with its cause, until PostgreSQL answers again
OUTAGE_WAIT_S = 0.5
#: a request waits at most this for a pool connection, then answers 503: well below the client's per-request timeout
#: (:data:`memdir.engine.remote.REQUEST_TIMEOUT_S`), so a member sees the ``server`` cause, not a timeout
POOL_WAIT_S = 3.0
DOWN = "the store (PostgreSQL) does not answer"
#: the pool's background reconnection gives up after this (its backoff would otherwise grow to minutes during an
#: outage); the next request then tries at once, so a restarted PostgreSQL is used again within a request or two
RECONNECT_S = 5.0


def defaults() -> dict[str, Any]:
    from memdir.config import SETTINGS

    return {k[0]: k[1] for k in SETTINGS}


def rank_rows(rows: list[dict[str, Any]], query: str, *, k: int, now: float, cfg: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """The local path's ranking over :meth:`PgStore.search` rows, best first, at most ``k``: the same function
    :meth:`memdir.core.Memdir.recall` ranks with (:func:`memdir.recall.rank.rank_candidates`: BM25 × scope prior (project) ×
    decay × rehearsal boost × subject boost × date boost, plus the session bonus). Each row gets ``score`` and its
    factors: ``prior``, ``decay``, ``rehearsal``, and ``subject``/``date``/``session_bonus`` when they applied. ``now``
    (epoch seconds) is the query's time; ``cfg`` holds ``recall.*`` settings (default: memdir's defaults)."""
    from datetime import datetime, timezone

    from memdir.recall import rank

    cfg = cfg or defaults()
    prior = float(cfg["recall.scope_prior_project"])
    scored = rank.rank_candidates([(prior, rows, set())], query=query, cfg=cfg,
                                  now=datetime.fromtimestamp(now, tz=timezone.utc))
    out = []
    for s, _, _, (r, p, d, b, _, f) in scored[:k]:
        out.append({**r, "score": s, "prior": p, "decay": round(d, 4), "rehearsal": round(b, 4),
                    **{("session_bonus" if x == "session" else x): v for x, v in f.items()}})
    return out


def check_login(url: str) -> None:
    """Raise ``MemdirError`` when ``url``'s login would bypass row-level security (superuser, BYPASSRLS, owner)."""
    from memdir.store.postgres.migrations import CLIENT_ROLE
    from memdir.store.postgres.store import PgStore

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


def _pool(url: str):
    """A connection pool to ``url`` (migrated once, here); a connection coming back has ``app.project`` and
    ``app.token`` cleared, and one that failed is replaced by the pool."""
    import logging

    from psycopg.rows import dict_row
    from psycopg_pool import ConnectionPool

    from memdir.store.postgres.store import PgStore

    # the pool logs two warnings per retry while PostgreSQL is down (51 lines in two minutes); the server logs one
    # line when the outage starts and one when it ends (run(), below)
    logging.getLogger("psycopg.pool").setLevel(logging.ERROR)

    PgStore.connect(url, project="-").close()  # migrate (or refuse a newer schema) before serving

    def reset(conn) -> None:
        conn.execute("SELECT set_config('app.project', '', false), set_config('app.token', '', false)")

    p = ConnectionPool(url, min_size=1, max_size=POOL_MAX, kwargs={"autocommit": True, "row_factory": dict_row,
                                                                   "connect_timeout": 10}, reset=reset, open=False,
                       check=ConnectionPool.check_connection, reconnect_timeout=RECONNECT_S)
    p.open(wait=True, timeout=30)
    return p


def _row(ev: Any) -> dict[str, Any]:
    """The docs row of one sent event; ``ValueError`` (a 400 the client keeps the row aside for) for a malformed one:
    it must never reach the database as a 500, which the client would send again before every row behind it."""
    import math

    from memdir.timeutil import parse_ts

    if not isinstance(ev, dict) or not all(isinstance(ev.get(k), str) and ev.get(k) for k in ("ref", "content_sha256", "text", "ts")):
        raise ValueError("each event needs ref, content_sha256, text and ts (strings)")
    if not all(ev.get(k) is None or isinstance(ev[k], str) for k in ("role", "session")):
        raise ValueError("an event's role and session must be strings")
    if isinstance(ev.get("meta"), dict):  # as Memdir.import_events takes it; the store keeps JSON text
        ev = {**ev, "meta": json.dumps(ev["meta"], ensure_ascii=False)}
    elif ev.get("meta") is not None and not isinstance(ev["meta"], str):
        raise ValueError("an event's meta must be a JSON object or its text")
    if isinstance(ev.get("ts_epoch"), bool):
        raise ValueError("an event's ts_epoch must be a number (epoch seconds)")
    try:  # no ts_epoch sent (a hand-written client): the time ts says, never 1970 for recall's decay
        when = parse_ts(ev["ts"]).timestamp()
        epoch = when if ev.get("ts_epoch") is None else float(ev["ts_epoch"])
    except (MemdirError, TypeError, ValueError):
        raise ValueError("an event's ts must be an ISO 8601 time and ts_epoch a number") from None
    if not math.isfinite(epoch):
        raise ValueError("an event's ts_epoch must be a finite number")
    # redacted here too: a client older than today's redaction patterns sends what it stored
    row = cevents.outbound({k: ev.get(k) for k in EVENT_FIELDS})
    row["kind"] = "event"
    row["ts_epoch"] = epoch
    return row


def _whole(value: Any) -> bool:
    """True for a whole number sent as one: ``true``/``false`` are no counts (Python reads them as 1 and 0)."""
    return isinstance(value, int) and not isinstance(value, bool)


def shown(hit: dict[str, Any]) -> dict[str, Any]:
    """A hit as the server answers it: its text and summary redacted whole (rows an older memdir sent, or keys whose
    shape was added since, reach no teammate in plain text)."""
    for k in ("text", "summary"):
        if isinstance(hit.get(k), str):
            hit[k] = cevents.redact_text(hit[k])
    return hit


def app(url: str, cfg: dict[str, Any] | None = None):
    """The Starlette application serving ``url``'s store (see the module docstring). ``cfg``: the ``recall.*``
    settings recall ranks with (default: memdir's defaults; ``memdir serve --store`` passes the server's own
    configuration, so ``MEMDIR_RECALL_…`` in its environment applies)."""
    from starlette.applications import Starlette
    from starlette.concurrency import run_in_threadpool
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    import threading
    import time

    import psycopg

    from memdir.store.postgres.store import PgStore
    from memdir.recall import glossary, handles
    from memdir.timeutil import parse_ts
    from memdir.recall.tokenize import bounded_query, query_tokens

    cfg = {**defaults(), **(cfg or {})}
    weights = tuple(float(cfg[f"recall.weight_{f}"]) for f in ("tags", "title", "body", "context"))
    state: dict[str, Any] = {}
    lock = threading.Lock()

    def pool():
        with lock:
            if "pool" not in state:
                state["pool"] = _pool(url)
            return state["pool"]

    def err(status: int, msg: str) -> JSONResponse:
        return JSONResponse({"error": msg}, status_code=status)

    def run(request: Request, body: dict, what: str) -> JSONResponse:
        auth = request.headers.get("authorization", "")
        if not auth.lower().startswith("bearer ") or not auth[7:].strip():
            return err(401, "send Authorization: Bearer <token>")
        project = request.path_params.get("project", "")
        try:
            cm = pool().connection(timeout=OUTAGE_WAIT_S if "down" in state else POOL_WAIT_S)
            conn = cm.__enter__()
        except Exception as exc:  # noqa: BLE001  (pool timeout, server down)
            why = f"{DOWN}: {(str(exc).strip().splitlines() or [type(exc).__name__])[0]}"
            with lock:  # one line per outage in the server's log (psycopg's pool logs its own retries)
                first, state["down"] = "down" not in state, why
            if first:
                log.warning("memdir: %s; requests get 503 until it answers", why)
            raise MemdirError(DOWN) from None  # the detail is in the log: the token is not checked yet
        if state.pop("down", None) is not None:
            log.warning("memdir: the store (PostgreSQL) answers again")
        try:
            conn.execute("SELECT set_config('app.project', %s, false), set_config('app.token', %s, false)",
                         (project, auth[7:].strip()))
            got = conn.execute("SELECT memdir_project_ok() AS ok, memdir_person() AS who").fetchone()
            if got["who"] is None:  # unknown, revoked or expired: nobody (the client's fix: a new token)
                return err(401, "this token is unknown, revoked or expired")
            if what == "whoami":  # read-only, no project: whom the token names and what it grants (memdir doctor)
                grants = conn.execute("SELECT memdir_token_projects() AS p").fetchone()["p"] or []
                return JSONResponse({"person": got["who"], "projects": sorted(grants)})
            if not got["ok"]:  # a person, another project: the answer names what the token grants (remote.project)
                grants = conn.execute("SELECT memdir_token_projects() AS p").fetchone()["p"] or []
                return err(403, f"this token does not grant project {project!r} (grants: {', '.join(grants)})")
            conn.execute("SELECT memdir_token_used()")  # last used, at most once a minute (m012)
            if what == "sharing":
                share = body.get("share")
                if not isinstance(share, bool):
                    return err(400, "sharing needs share (true or false)")
                who = conn.execute("SELECT memdir_set_sharing(%s) AS who", (share,)).fetchone()["who"]
                return JSONResponse({"project": project, "person": who, "share": share})
            return _serve(PgStore(conn, project), body, what)
        finally:
            cm.__exit__(None, None, None)

    def _serve(s: PgStore, body: dict, what: str) -> JSONResponse:
        try:
            if what == "events":
                evs = body.get("events")
                if not isinstance(evs, list) or len(evs) > MAX_EVENTS:
                    return err(400, f"events must be a list of at most {MAX_EVENTS} rows")
                return JSONResponse(s.write_rows([_row(e) for e in evs]))
            if what == "recall":
                q, k, when = body.get("query"), body.get("k", 8), body.get("now")
                if not isinstance(q, str) or not _whole(k) or not 0 < k <= 100:  # true is no count (nor 1)
                    return err(400, "recall needs query (a string) and k (1-100)")
                try:  # the asker's time (dates in the query are resolved against it), else the server's clock
                    if isinstance(when, bool):
                        raise TypeError("a boolean is no time")
                    now = time.time() if when in (None, "") else parse_ts(when).timestamp()
                except (TypeError, ValueError):
                    return err(400, "now must be an ISO 8601 time or epoch seconds")
                q = bounded_query(q)  # a pasted log: its head and tail, as the local path reads it
                toks = query_tokens(q, repeats=True)
                toks, bridged = glossary.query_terms(q, toks, bridge_weight=float(cfg["recall.bridge_weight"]),
                                                     unigram_weight=float(cfg["recall.cjk_unigram_weight"]),
                                                     function_weight=float(cfg["recall.cjk_function_bigram_weight"]),
                                                     stop_words=True)
                # as the local path
                # the local path's candidates (ties in id order) ranked by the local path's function
                rows = rank_rows(s.candidates(toks, weights=weights, term_weights=bridged or None,
                                              limit=max(int(cfg["recall.candidates"]), k * 3)), q, k=k, now=now, cfg=cfg)
                keys = ("ref", "kind", "role", "session", "ts", "text", "score", "bm25", "prior", "decay", "rehearsal",
                        "subject", "date", "session_bonus", "handle", "span", "summary", "content_sha256")
                return JSONResponse({"hits": [shown({x: r.get(x) for x in keys}) for r in rows]})
            if what == "read":  # read-only: one memory the token may see, by handle or key (memdir get, memory_read)
                ref = body.get("id")
                if not isinstance(ref, str) or not ref.strip():
                    return err(400, "read needs id (a handle or a key)")
                row = s.get_doc(ref)
                if row is None and handles.looks_like(ref):
                    found = s.resolve_handle(ref)
                    row = s.get_doc(found) if found else None
                keys = ("ref", "kind", "role", "session", "ts", "text", "handle", "summary")
                return JSONResponse({"hit": shown({x: row.get(x) for x in keys}) if row else None})
            if what == "holdings":  # read-only: the viewer's team page
                newest = body.get("newest", 5)
                if not _whole(newest) or not 0 <= newest <= 20:
                    return err(400, "newest must be an integer 0-20")
                return JSONResponse(s.holdings(newest))
            ref, when = body.get("ref"), body.get("when")
            if not isinstance(ref, str) or not isinstance(when, str):
                return err(400, "forget needs ref and when (ISO time)")

            def forget(st):
                row = st.get_doc(ref)
                if row is None:
                    # not here (yet): another of the person's processes may still be sending it; the tombstone
                    # (this person's) makes that later write a no-op, as a forget that came first must
                    st.tombstone(ref, None, "event", when)
                    return False
                if not st.delete_doc(ref):  # another person's shared row: theirs to forget
                    return False
                if row.get("session"):
                    st.refresh_context([row["session"]])
                st.tombstone(ref, row["content_sha256"], row["kind"], when)
                return True

            return JSONResponse({"forgotten": s.write(forget)})
        except ValueError as exc:
            return err(400, str(exc))

    async def read_body(request: Request) -> bytes | None:
        """The request's body, or ``None`` when it is over :data:`MAX_BODY` bytes (said by its Content-Length, or
        found while reading a body sent without one): at most that much is held."""
        size = request.headers.get("content-length", "")
        if size.strip().isdigit() and int(size) > MAX_BODY:
            return None
        got, n = [], 0
        async for chunk in request.stream():
            n += len(chunk)
            if n > MAX_BODY:
                return None
            got.append(chunk)
        return b"".join(got)

    def one_segment(request: Request) -> bool:
        """Whether the project came as one segment of the path as sent (a client percent-encodes it, ``team%2Fweb``):
        ``/v1/v1/webapp/events`` is a remote.url with ``/v1`` twice (404, the route cause), not project ``v1/webapp``."""
        raw = request.scope.get("raw_path")
        if not isinstance(raw, bytes):
            return True
        head = raw.split(b"?", 1)[0].rsplit(b"/", 1)[0]  # without the operation
        return head.count(b"/") == 2  # b"/v1/<project>"

    def endpoint(what: str):
        async def handle(request: Request) -> JSONResponse:
            if not one_segment(request):
                return err(404, "no such route: send POST <remote.url>/<project, percent-encoded>/" + what)
            auth = request.headers.get("authorization", "")
            if not auth.lower().startswith("bearer ") or not auth[7:].strip():  # before reading what it sends
                return err(401, "send Authorization: Bearer <token>")
            raw = await read_body(request)
            if raw is None:
                return err(413, f"the body is over {MAX_BODY // (1024 * 1024)} MiB: send fewer rows at a time")
            try:
                body = json.loads(raw)
            except Exception:
                return err(400, "the body must be a JSON object")
            if not isinstance(body, dict):
                return err(400, "the body must be a JSON object")
            try:
                return await run_in_threadpool(run, request, body, what)
            except MemdirError as exc:
                return err(503, str(exc))
            except psycopg.OperationalError as exc:  # the store went away during the request
                return err(503, down(exc))
            except psycopg.DataError as exc:  # a NUL or a malformed value in the body or the path
                return err(400, f"bad input: {(str(exc).strip().splitlines() or [type(exc).__name__])[0]}")
        return handle

    def busy() -> bool:
        """True when the pool holds all :data:`POOL_MAX` connections (so PostgreSQL answered them) and none is free."""
        try:
            got = pool().get_stats()
        except Exception:  # noqa: BLE001
            return False
        return got.get("pool_size", 0) >= POOL_MAX and got.get("pool_available", 0) == 0

    def db_ok() -> str | None:
        """``None`` when the store answers a query within :data:`HEALTH_TIMEOUT_S`, else why not (one line)."""
        from psycopg_pool import PoolTimeout

        try:
            with pool().connection(timeout=OUTAGE_WAIT_S if "down" in state else HEALTH_TIMEOUT_S) as conn:
                conn.execute("SELECT 1")
            return None
        except Exception as exc:  # noqa: BLE001  (pool timeout, server down, a broken connection)
            if isinstance(exc, PoolTimeout) and "down" not in state and busy():
                return None  # every connection is at work on a request: a busy server, not PostgreSQL down
            why = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
            with lock:  # the requests after it answer the outage quickly too; one log line per outage
                first, state["down"] = "down" not in state, f"{DOWN}: {why}"
            if first:
                log.warning("memdir: /v1/health: %s: %s; requests get 503 until it answers", DOWN, why)
            return why

    async def whoami(request: Request) -> JSONResponse:
        try:
            return await run_in_threadpool(run, request, {}, "whoami")
        except MemdirError as exc:
            return err(503, str(exc))
        except psycopg.OperationalError as exc:
            return err(503, down(exc))
        except psycopg.DataError as exc:
            return err(400, f"bad input: {(str(exc).strip().splitlines() or [type(exc).__name__])[0]}")

    def down(exc: BaseException) -> str:
        """What a client is told when the store fails: :data:`DOWN` only (the driver's text can name the database's host,
        port and login, and is said before the token is checked); the detail goes to the server's log."""
        log.warning("memdir: %s: %s", DOWN, (str(exc).strip().splitlines() or [type(exc).__name__])[0])
        return DOWN

    async def health(request: Request) -> JSONResponse:
        why = await run_in_threadpool(db_ok)
        if why:  # no driver text to an unauthenticated caller (it can name host, port, login): the log has it
            return JSONResponse({"ok": False, "error": DOWN}, status_code=503)
        if state.pop("down", None) is not None:
            log.warning("memdir: the store (PostgreSQL) answers again")
        return JSONResponse({"ok": True, "store": "ok"})

    async def not_here(request: Request, exc: Exception) -> JSONResponse:
        """A path or method the API does not have: one JSON line as every other error (the client's route cause)."""
        code = getattr(exc, "status_code", 404)
        what = "no such route" if code == 404 else f"method {request.method} not allowed here"
        return err(code, f"{what}: the API is GET /v1/health, GET /v1/whoami and POST /v1/<project>/<operation>")

    from contextlib import asynccontextmanager

    @asynccontextmanager
    async def lifespan(_app):
        try:  # the pool opened before the first request, so a hook's short push is not spent opening it
            await run_in_threadpool(pool)
        except Exception as exc:  # noqa: BLE001  (the store down at start: the first request tries again)
            log.warning("memdir: %s: %s", DOWN, (str(exc).strip().splitlines() or [type(exc).__name__])[0])
        yield
        with lock:  # the pool's connections close with the server (its worker threads stop)
            p = state.pop("pool", None)
        if p is not None:
            p.close()

    # {project:path}: a project named "team/web" is sent percent-encoded and arrives decoded, one segment longer
    return Starlette(routes=[
        Route("/v1/health", health, methods=["GET"]),
        Route("/v1/whoami", whoami, methods=["GET"]),
        Route("/v1/{project:path}/events", endpoint("events"), methods=["POST"]),
        Route("/v1/{project:path}/recall", endpoint("recall"), methods=["POST"]),
        Route("/v1/{project:path}/forget", endpoint("forget"), methods=["POST"]),
        Route("/v1/{project:path}/sharing", endpoint("sharing"), methods=["POST"]),
        Route("/v1/{project:path}/holdings", endpoint("holdings"), methods=["POST"]),
        Route("/v1/{project:path}/read", endpoint("read"), methods=["POST"]),
    ], lifespan=lifespan, exception_handlers={404: not_here, 405: not_here})

