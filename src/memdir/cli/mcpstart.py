"""``memdir mcp`` over stdio, started light: the argument check ``python -m memdir`` makes before click, and the session
that answers from :mod:`memdir.server.mcplight` while the SDK server (:func:`memdir.server.mcp.build_server`) loads in
a background thread. Importing this module costs the standard library only; click, the SDK and the engine are loaded
by that thread."""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any


def mcp_argv(argv: list[str]) -> "tuple[str | None, str | None, bool] | None":
    """``(dir, home, debug)`` when ``argv`` is a plain ``memdir [--dir D] [--home H] [--debug] [--json] mcp [--dir D]
    [--home H] [--debug] [--json]`` call whose paths click would accept (the group's ``--dir`` or
    ``$MEMDIR_PROJECT_DIR`` an existing directory, no path an existing file), else ``None``: help, another command,
    an unknown option or a bad path go to the click CLI, which words its own errors."""
    group: dict[str, Any] = {"dir": os.environ.get("MEMDIR_PROJECT_DIR") or None, "home": None}
    own: dict[str, Any] = {"dir": None, "home": None}
    debug, seen, i = False, False, 0
    while i < len(argv):
        a = argv[i]
        name, eq, val = a.partition("=")
        if a == "mcp" and not seen:
            seen = True
        elif name in ("--dir", "--home"):
            if not eq:
                if i + 1 >= len(argv):
                    return None
                val, i = argv[i + 1], i + 1
            (own if seen else group)[name[2:]] = val
        elif a == "--debug":
            debug = True
        elif a != "--json":
            return None
        i += 1
    if not seen or (group["dir"] is not None and not os.path.isdir(group["dir"])):
        return None
    if any(p is not None and os.path.isfile(p) for p in (own["dir"], own["home"], group["home"])):
        return None
    return own["dir"] or group["dir"], own["home"] or group["home"], debug


def log_to_stderr(debug: bool) -> None:
    """Log to stderr only (a handler writing to stdout is moved to stderr), redacted; memdir's loggers at DEBUG with
    ``debug``, else WARNING."""
    import logging

    root = logging.getLogger()
    if not any(isinstance(h, logging.StreamHandler) and getattr(h, "stream", None) is sys.stderr for h in root.handlers):
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("memdir: %(levelname)s %(message)s"))
        root.addHandler(handler)
    # any handler writing to stdout would corrupt the stdio protocol: point it at stderr
    for h in root.handlers:
        if isinstance(h, logging.StreamHandler) and getattr(h, "stream", None) is sys.stdout:
            h.setStream(sys.stderr)
    from memdir.debuglog import RedactingFormatter

    for h in root.handlers:  # the host keeps the server's stderr in its logs: redacted as debug.log is
        if isinstance(h, logging.StreamHandler) and getattr(h, "stream", None) is sys.stderr \
                and not isinstance(h.formatter, RedactingFormatter):
            h.setFormatter(RedactingFormatter(inner=h.formatter or logging.Formatter()))
    logging.getLogger("memdir").setLevel(logging.DEBUG if debug else logging.WARNING)


def quiet_interrupts() -> None:
    """Ignore SIGINT from now on (the session is ending: what is left is closing the store). Only the main thread
    may set a handler; elsewhere nothing changes."""
    import signal
    import threading

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)


def leave_on_interrupt() -> None:
    """Ctrl-C (SIGINT) ends the stdio server at once with status 130: stdout and stderr flushed, then ``os._exit``.
    Raising ``KeyboardInterrupt`` instead left the process waiting: at exit the interpreter joins the thread still
    loading the SDK or reading stdin, and the SDK's asyncio runner only cancels its task on a first Ctrl-C (a CI run
    waited 120 s). The store is not closed here: another thread may hold it mid-call, and waiting for it is what must
    not happen; SQLite's journal and the notes' atomic renames make the abrupt end safe. Only the main thread may
    set a handler; elsewhere nothing changes."""
    import signal
    import threading

    def leave(signum, frame):  # noqa: ARG001 - the signal handler's signature
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C must not cut this short
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        os._exit(130)

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, leave)


def run_session(dir_: str | None, home: str | None, debug: bool) -> bool:
    """Serve the memory tools on stdin/stdout until stdin closes, with the light loop and the SDK server loading behind
    it; returns True when done. Returns False at once, having read nothing, when the light table does not fit the
    installed SDK or the SDK is missing (:func:`memdir.server.mcplight.load_table`): then :func:`run_plain` serves."""
    from memdir.server.mcplight import load_table, run

    table = load_table()
    if table is None:
        return False
    held: dict[str, Any] = {}
    leave_on_interrupt()

    def logging_once() -> None:  # the loading thread's first step, whichever of early() and load() runs it
        if held.get("logging"):
            return
        import logging

        logging.basicConfig(level=logging.WARNING, format="%(message)s", stream=sys.stderr)  # as the click CLI does
        log_to_stderr(debug)
        held["logging"] = True

    def early():
        # first in the loading thread: memdir's engine, the store opened and warmed, and the answers a tools/call
        # gets before the SDK has loaded (memdir.server.mcpearly); the SDK server will use the same store
        logging_once()
        from memdir.server.mcp import MemoryStore
        from memdir.server.mcpearly import early_tools

        held["store"] = MemoryStore(dir_, home=home)
        return early_tools(held["store"])

    def load():
        import memdir.foreground as foreground

        logging_once()
        # a background job: the interpreter switches threads every 0.5 ms meanwhile, so an early tool call (the main
        # thread) waits that long, not 5 ms, for the interpreter after each SQLite statement while the SDK imports
        with foreground.background():
            from memdir.capture.redact import compile_all
            from memdir.server.mcp import build_server, serve_lines

            compile_all()  # the secret detectors' patterns, before the SDK: a first recall's redaction does not pay
            server = build_server(dir_, home=home, log_level="DEBUG" if debug else "WARNING", store=held.get("store"))
            held["server"] = server
            import memdir.core  # noqa: F401 — the engine's modules, so the first tool call only opens the store
            from memdir.portability.dropimport import spawn_if_pending

            spawn_if_pending(home, dir_)  # files dropped in <global root>/import/: imported by a detached process
        return lambda next_line, write_line: serve_lines(server, next_line, write_line)

    def gone() -> None:  # the host died: calls queued behind the running one are turned away, not worked through
        store = held["server"].memdir_store if "server" in held else held.get("store")
        if store is not None:
            store.stop()

    light = None
    interrupted = False
    try:
        light = run(load, table, early, on_gone=gone)
    except KeyboardInterrupt:
        interrupted = True
    finally:
        quiet_interrupts()  # Ctrl-C again (or one delivered late) must not cut the close short with a traceback
        if "server" in held:
            held["server"].memdir_store.close()
    if interrupted or (light is not None and not light.loaded):
        # stdin closed before the full server finished loading, or Ctrl-C: leave now, with 130 after Ctrl-C as every
        # command stopped by it does, rather than wait for the loading thread's imports or a thread still reading
        # stdin (the interpreter joins them at exit: a Ctrl-C that came while the SDK loaded hung the process)
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        os._exit(130 if interrupted else 0)
    return True


def run_plain(dir_: str | None, home: str | None, debug: bool) -> None:
    """Serve the memory tools with the SDK's own stdio start (no light loop) until stdin closes. Raises
    ``UsageError`` when the ``mcp`` SDK is not installed."""
    from memdir.portability.dropimport import spawn_if_pending
    from memdir.server.mcp import build_server, run_stdio

    log_to_stderr(debug)
    server = build_server(dir_, home=home, log_level="DEBUG" if debug else "WARNING")
    spawn_if_pending(home, dir_)
    leave_on_interrupt()
    try:
        run_stdio(server)
    finally:  # Ctrl-C goes on to the CLI's handler (status 130) once the store is closed
        quiet_interrupts()
        server.memdir_store.close()
