"""SIGTERM and SIGHUP (a ``kill``, a closed terminal, a logout or shutdown) turned into Ctrl-C for the length of a long
piece of work, so that it stops through the same ``KeyboardInterrupt`` path: what it committed stays, a child process
it waits for (a model CLI in a process group of its own) is ended with it, and one line says how far it got. With the
default handlers the process vanished mid-work and left such a child running. Standard library only."""

from __future__ import annotations

import contextlib
import signal
from typing import Iterator


@contextlib.contextmanager
def stop_signals() -> Iterator[None]:
    """Within the block, SIGTERM and SIGHUP raise ``KeyboardInterrupt`` in the main thread; the handlers found are
    put back after it. Outside the main thread (a test runner's worker) nothing changes."""

    def stop(signum, frame):  # noqa: ARG001 - the signal handler's signature
        raise KeyboardInterrupt

    kinds = [getattr(signal, n) for n in ("SIGTERM", "SIGHUP") if hasattr(signal, n)]
    try:
        old = [signal.signal(k, stop) for k in kinds]
    except ValueError:  # not the main thread: left as they are
        yield
        return
    try:
        yield
    finally:
        for k, h in zip(kinds, old):
            signal.signal(k, h)
