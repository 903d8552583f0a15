"""``memdir ui``: a local web viewer to see, search and fix what the agent remembers.

Server-rendered pages (Starlette + Jinja2, no JavaScript): search (the same ranking as ``recall``, with each
hit's reasons), notes (Markdown rendered; edit, pin, supersede, forget), timeline (sessions, turns, tool
summaries and the captures the gates skipped, with their reasons), what the model saw (each injected
``<memory>`` block and a "why did it not find X?" explainer) and health (status, doctor, tiers, pending
vectors, prune preview and confirm). English and Chinese (``?lang=zh``).

The UI is the only layer here that talks to the facade; nothing in memdir imports it except the CLI
(``memdir ui``) and ``memdir serve`` (which mounts the same pages under ``/ui``). Needs the ``ui`` extra
(``pip install 'memdir[ui]'``: starlette, uvicorn, jinja2, markdown-it-py, python-multipart).

Protection (:mod:`memdir.ui.guard`) is the same as ``serve``: 127.0.0.1 by default with a Host check, no
request from another origin, and a token required for any non-loopback bind.
"""

from __future__ import annotations

from typing import Any

DEFAULT_PORT = 8766
PREFIX_IN_SERVE = "/ui"
DEPS = ("starlette", "uvicorn", "jinja2", "markdown_it", "multipart")


def missing_deps() -> list[str]:
    """Third-party modules the viewer needs that are not installed (empty when it can run)."""
    import importlib.util

    return [d for d in DEPS if importlib.util.find_spec(d) is None]


def build(*, get: Any, lock: Any = None, host: str = "127.0.0.1", token: str | None = None, prefix: str = ""):
    """The guarded ASGI app: pages under ``prefix``; ``get()`` returns the open :class:`memdir.Memdir`."""
    from memdir.ui.app import Backend, create_app
    from memdir.ui.guard import Guard

    return Guard(create_app(Backend(get, lock), prefix=prefix), bound_host=host, token=token)


def with_pages(app: Any, *, get: Any, lock: Any = None, host: str = "127.0.0.1", token: str | None = None,
               prefix: str = PREFIX_IN_SERVE):
    """``app`` (e.g. the MCP endpoint of ``memdir serve``) with the viewer mounted at ``prefix``: requests whose
    path is ``prefix`` or starts with ``prefix/`` go to the guarded pages, all others to ``app`` unchanged."""
    pages = build(get=get, lock=lock, host=host, token=token, prefix=prefix)

    async def dispatch(scope, receive, send):
        path = scope.get("path", "") if scope.get("type") == "http" else ""
        if path == prefix or path.startswith(prefix + "/"):
            return await pages(scope, receive, send)
        return await app(scope, receive, send)

    return dispatch


def serve(*, get: Any, host: str = "127.0.0.1", port: int = DEFAULT_PORT, token: str | None = None,
          open_browser: bool = True, on_ready: Any = None, debug: bool = False) -> None:
    """Run the viewer until Ctrl-C. ``on_ready(info)`` gets ``{"url", "host", "port", "pid", "auth"}`` once the
    socket listens (the URL carries ``?token=`` when a token is set, so opening it logs the browser in).
    Raises ``UsageError`` for a non-loopback host without a token, or a port it cannot bind."""
    import os

    import anyio
    import uvicorn

    from memdir.server.http import bind as _bind

    app = build(get=get, host=host, token=token)  # checks host/token first
    sock = _bind(host, port)
    real_port = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{real_port}/search" + (f"?token={token}" if token else "")
    info = {"url": url, "host": host, "port": real_port, "pid": os.getpid(), "auth": "token" if token else "none"}
    if on_ready:
        on_ready(info)
    if open_browser:
        import webbrowser

        # with a token, the browser gets a one-time code: its command line (ps shows it to every user) never
        # holds the token
        opened = f"http://{shown}:{real_port}/search?code={app.login_code()}" if token else url
        try:
            webbrowser.open(opened)
        except Exception:  # noqa: BLE001 — no browser: the printed URL is enough
            pass
    try:
        config = uvicorn.Config(app, log_level="debug" if debug else "warning", access_log=debug, lifespan="off",
                                timeout_graceful_shutdown=3)
        anyio.run(lambda: uvicorn.Server(config).serve(sockets=[sock]))
    except KeyboardInterrupt:
        pass
    finally:
        sock.close()
