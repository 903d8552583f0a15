"""SIGTERM and SIGHUP (a ``kill``, a closed terminal, a logout or shutdown) turned into Ctrl-C for the length of a long
piece of work, so that it stops through the same ``KeyboardInterrupt`` path: what it committed stays, a child process
it waits for (a model CLI in a process group of its own) is ended with it, and one line says how far it got. With the
default handlers the process vanished mid-work and left such a child running. Standard library only.

Each of these signals, and Ctrl-C once :func:`watch_ctrl_c` ran, is recorded (:func:`received`): SQLite swallows a
``KeyboardInterrupt`` raised while it runs one of memdir's SQL functions and reports "user-defined function raised
exception" instead; the record tells the CLI that this error was an interrupt, not an internal error."""

from __future__ import annotations

import contextlib
import signal
import sqlite3
import threading
from typing import Iterator

_received: list[int] = []


def _stop(signum, frame):  # noqa: ARG001 - the signal handler's signature
    _received.append(signum)
    raise KeyboardInterrupt


def received() -> bool:
    """True once this process got Ctrl-C, SIGTERM or SIGHUP through these handlers."""
    return bool(_received)


#: what an interrupted piece of work may raise: Ctrl-C itself, or the error SQLite reports in its place (:func:`stopped`)
STOPS = (KeyboardInterrupt, sqlite3.DatabaseError)


def stopped(exc: BaseException) -> bool:
    """True when ``exc`` is how a stop signal surfaced: a ``KeyboardInterrupt``, or the "user-defined function raised
    exception" error SQLite reports when one landed inside memdir's SQL function, once this process got a signal."""
    return isinstance(exc, KeyboardInterrupt) or (
        isinstance(exc, sqlite3.DatabaseError) and "user-defined function" in str(exc) and received())


def watch_ctrl_c() -> None:
    """Ctrl-C raises ``KeyboardInterrupt`` as before, and is recorded; a handler someone else set is left alone."""
    if threading.current_thread() is threading.main_thread() and \
            signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, _stop)


@contextlib.contextmanager
def stop_signals() -> Iterator[None]:
    """Within the block, SIGTERM and SIGHUP raise ``KeyboardInterrupt`` in the main thread; the handlers found are
    put back after it. Outside the main thread (a test runner's worker) nothing changes."""
    kinds = [getattr(signal, n) for n in ("SIGTERM", "SIGHUP") if hasattr(signal, n)]
    try:
        old = [signal.signal(k, _stop) for k in kinds]
    except ValueError:  # not the main thread: left as they are
        yield
        return
    try:
        yield
    finally:
        for k, h in zip(kinds, old):
            signal.signal(k, h)
