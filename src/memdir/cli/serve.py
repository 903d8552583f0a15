"""``memdir mcp`` (the memory tools over stdio) and ``memdir serve`` (streamable HTTP with the warm hook listener and
the viewer's pages, or a team store's HTTP API with ``--store``): the click commands and the serve supervisor."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING

import click

from memdir.cli.mcpstart import log_to_stderr
from memdir.errors import UsageError
from memdir.server.http import BearerAuth, LoopbackOnly, RepairJsonBody, bind, check_serve_options, is_loopback
from memdir.server.mcp import (
    DEFAULT_PATH,
    DEFAULT_PORT,
    MemoryStore,
    build_server,
)

if TYPE_CHECKING:  # pragma: no cover
    from mcp.server import MCPServer


def http_app(server: "MCPServer", *, host: str = "127.0.0.1", token: str | None = None, path: str = DEFAULT_PATH,
             ui: bool = True):
    """The ASGI app for ``memdir serve``: the SDK's streamable-HTTP app behind :class:`RepairJsonBody` and, for a
    loopback ``host`` however spelled, :class:`LoopbackOnly` (no DNS rebinding, no other site's page), wrapped in
    :class:`BearerAuth` when ``token`` is set. With
    ``ui`` (and the ``ui`` extra installed) the viewer's pages answer under ``/ui`` (:mod:`memdir.ui`), behind
    the same Host / Origin / token checks."""
    app = RepairJsonBody(server.streamable_http_app(streamable_http_path=path, host=host))
    app = LoopbackOnly(app) if is_loopback(host) else app  # every loopback spelling, not only the SDK's three
    app = BearerAuth(app, token) if token else app
    if ui and path != "/ui" and not path.startswith("/ui/"):
        from memdir.ui import missing_deps, with_pages

        if not missing_deps():
            pages = viewer_store(server.memdir_store)  # type: ignore[attr-defined]
            app = with_pages(app, get=lambda: pages.memdir, lock=pages.lock, host=host, token=token)
    return app


def viewer_store(store: MemoryStore) -> MemoryStore:
    """The viewer's own store of ``store``'s project: its own open index and its own lock, so a page that takes
    seconds (Health's doctor on a large store) never holds the lock the hooks and MCP tools of ``memdir serve``
    wait for (their budget is 3 s); writes from the viewer are still serialised between processes by the root's
    write lock, as any other memdir process's are."""
    return MemoryStore(store.project_dir, home=store.home, config=store.config)


def _dirs(ctx: click.Context, dir_: str | None, home: str | None) -> tuple[str | None, str | None]:
    obj = (ctx.find_root().obj or {}) if ctx else {}
    return dir_ or obj.get("dir"), home or obj.get("home")


def _debug(ctx: click.Context) -> bool:
    return bool((ctx.find_root().obj or {}).get("debug"))


@click.command("mcp")
@click.option("--dir", "dir_", type=click.Path(file_okay=False), default=None,
              help="Project directory (default: the group's --dir, else the working directory).")
@click.option("--home", type=click.Path(file_okay=False), default=None, help="Global memory root.")
@click.option("--json", "as_json", is_flag=True, help="Accepted for symmetry; stdio output is always MCP JSON-RPC.")
@click.pass_context
def mcp_command(ctx: click.Context, dir_: str | None, home: str | None, as_json: bool) -> None:
    """Serve the memory tools over stdio (MCP). Register it with your host, e.g. in .mcp.json:
    {"mcpServers": {"memdir": {"type": "stdio", "command": "memdir", "args": ["mcp"]}}}"""
    from memdir.cli.mcpstart import run_plain, run_session

    dir_, home = _dirs(ctx, dir_, home)
    if not run_session(dir_, home, _debug(ctx)):
        run_plain(dir_, home, _debug(ctx))


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
    (each request's bearer token must grant its project; the database enforces it)."""
    import os

    as_json = as_json or bool(ctx.find_root().obj.get("json"))  # `memdir --json serve` too
    if store_url:
        return _serve_store(ctx, host, port, store_url, as_json)
    check_serve_options(host, token)
    if not path.startswith("/"):
        raise UsageError(f"--path must start with '/' (got {path!r})")
    debug = _debug(ctx)
    log_to_stderr(debug)
    dir_, home = _dirs(ctx, dir_, home)
    sock = bind(host, port)  # first: a port in use is the one line said, before anything starts or is announced
    warm = None
    try:
        # the hook listener, and the project's store opened and its postings built in threads from now on, while the
        # rest starts (a hook call meanwhile is answered from SQL; the build steps aside for it)
        warm = _start_warm_hooks(home)
        store = None
        if warm is not None:
            warm.prewarm(dir_)
            # the tools use the listener's Memdir of this project (one open store, one set of held postings, one lock)
            store = MemoryStore(dir_, home=home, keep_warm=True, opener=lambda: warm.store_for(dir_), lock=warm.lock)
        server = build_server(dir_, home=home, log_level="DEBUG" if debug else "WARNING", keep_warm=True, store=store)
        from memdir.portability.dropimport import spawn_if_pending

        spawn_if_pending(home, dir_)
        app = http_app(server, host=host, token=token, path=path)
    except BaseException:
        sock.close()
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
        keep_replies_on_exit()
        redact_server_logs()
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
    """SIGTERM (and SIGHUP) ends ``memdir serve`` as Ctrl-C does, through its ``finally`` (the hook socket removed, stores closed).
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

    # SIGHUP (the terminal closed, a logout) too: uvicorn leaves it alone, and its default ended the process at once
    for kind in (getattr(signal, n) for n in ("SIGTERM", "SIGHUP") if hasattr(signal, n)):
        if threading.current_thread() is threading.main_thread() and signal.getsignal(kind) is signal.SIG_DFL:
            signal.signal(kind, stop)
    return running


def keep_replies_on_exit() -> None:
    """A SIGTERM or Ctrl-C lets each running tool call send its answer: the SSE library the SDK answers through ends
    every open stream the moment uvicorn is asked to exit, so a call that had written its note replied with an empty
    body and its caller could not tell the write happened. Its automatic drain is turned off; uvicorn's graceful
    shutdown (``timeout_graceful_shutdown``, 3 s) waits for the replies, then cancels what still runs (a client's
    idle listening stream)."""
    try:
        from sse_starlette.sse import AppStatus
    except ImportError:  # pragma: no cover - the SDK's own dependency
        return
    AppStatus.disable_automatic_graceful_drain()


def _serve_store(ctx: click.Context, host: str, port: int, url: str, as_json: bool) -> None:
    """``memdir serve --store``: the team API of :mod:`memdir.server.team` on ``host:port``."""
    import os

    import memdir.store as storage
    from memdir.urlmask import masked
    from memdir.server import team as teamserver

    if not storage.is_remote(url):
        raise UsageError(f"--store needs a postgresql:// URL (got {masked(url)!r})")
    teamserver.check_login(url)
    debug = _debug(ctx)
    log_to_stderr(debug)
    from memdir.config import Config
    from memdir.roots import global_root

    server_cfg = Config(global_file=global_root(None) / "config.toml")  # recall settings: the server's own config/env
    app = teamserver.app(url, {k: server_cfg.get(k) for k in teamserver.defaults() if k.startswith("recall.")})
    sock = bind(host, port)
    real_port = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    info = {"url": f"http://{shown}:{real_port}/v1", "host": host, "port": real_port, "pid": os.getpid(), "auth": "token per person"}
    from memdir.server.http import is_loopback

    if not is_loopback(host):  # tokens and memories would cross the network in clear
        click.echo(f"memdir: warning: {host} is not a loopback address and this server speaks plain HTTP: bind "
                   "127.0.0.1 behind a TLS reverse proxy (docs/team-store.md, Operations)", err=True)
    running = _stop_on_sigterm()
    click.echo(json.dumps(info) if as_json else f"memdir: serving the team store at {info['url']} (Ctrl-C stops)")
    sys.stdout.flush()
    try:
        import anyio
        import uvicorn

        config = uvicorn.Config(app, log_level="debug" if debug else "warning", access_log=debug, timeout_graceful_shutdown=3)
        redact_server_logs()  # a token a member put in the URL stays out of the team server's log
        running["server"] = uvicorn.Server(config)
        anyio.run(lambda: running["server"].serve(sockets=[sock]))
    except KeyboardInterrupt:
        pass
    finally:
        sock.close()


def _start_warm_hooks(home: str | None):
    """The warm hook listener (:mod:`memdir.hosts.warm`) for ``home``, started; ``None`` when ``hook.warm`` is off
    or another server already answers hooks there."""
    from memdir.config import Config
    from memdir.hosts.warm import WarmServer
    from memdir.roots import global_root

    g = global_root(home)
    if not Config(global_file=g / "config.toml").get("hook.warm"):
        return None
    w = WarmServer(home)
    return w if w.start() else None


def redact_server_logs() -> None:
    """The handlers uvicorn set up (its error log and, with ``--debug``, its access log, which quotes each request's
    path and query: the viewer's search words, a token in a URL) format through :class:`RedactingFormatter`, as
    memdir's own stderr does. Call after ``uvicorn.Config`` (it configures logging)."""
    import logging

    from memdir.debuglog import RedactingFormatter

    for name in ("uvicorn", "uvicorn.error", "uvicorn.access", "uvicorn.asgi"):
        for h in logging.getLogger(name).handlers:
            if not isinstance(h.formatter, RedactingFormatter):
                h.setFormatter(RedactingFormatter(inner=h.formatter or logging.Formatter()))
