"""Work a long-lived process must answer at once (a hook call, a tool call) and background work that steps aside
for it (the build of recall's in-memory postings, :mod:`memdir.store.sqlite.postings`).

Python runs one thread at a time: a build thread that tokenizes for a second holds the interpreter, and a hook
call arriving meanwhile waits for it at every hand-over (each SQLite statement gives the interpreter away and
waits up to the switch interval, 5 ms, to get it back) — the first hooks after ``memdir serve`` started took
60-250 ms instead of ~20. So a caller wraps what must not wait in :func:`active`, and background work calls
:func:`pause` between small steps: while any call is active it sleeps until none is. While a background job runs
(:func:`background`) the switch interval is shortened, so the call's first hand-over (before it is marked
active) is short too.

Standard library only (the warm hook listener imports it; numpy stays in :mod:`memdir.store.sqlite.postings`).
"""

from __future__ import annotations

import sys
import threading
import time
from contextlib import contextmanager
from typing import Iterator

#: the switch interval while a background job runs (Python's default is 5 ms)
SWITCH_INTERVAL_S = 0.0005
#: longest one pause lasts: a server never idle still gets its build done, a step at a time
MAX_PAUSE_S = 2.0

_cond = threading.Condition()
_active = 0
_jobs = 0
_saved_interval: float | None = None
_local = threading.local()  # .job: this thread runs background work (pause() applies to it only)
#: seconds background work spent paused (for tests and the debug log)
paused_s = 0.0


@contextmanager
def active() -> Iterator[None]:
    """Mark a call that must not wait for background work (nestable, any thread)."""
    global _active
    with _cond:
        _active += 1
    try:
        yield
    finally:
        with _cond:
            _active -= 1
            if not _active:
                _cond.notify_all()


def busy() -> bool:
    """True while a call marked :func:`active` runs."""
    return _active > 0


def pause() -> None:
    """From background work, between steps: wait while a foreground call runs (at most :data:`MAX_PAUSE_S`).
    Costs an attribute read when none does; does nothing outside :func:`background` (the same code run by a
    foreground call, a catch-up inside a recall, must never wait for itself)."""
    global paused_s
    if not _active or not getattr(_local, "job", False):
        return
    t0 = time.perf_counter()
    with _cond:
        _cond.wait_for(lambda: not _active, timeout=MAX_PAUSE_S)
    paused_s += time.perf_counter() - t0


@contextmanager
def background() -> Iterator[None]:
    """Around a background job: the interpreter switches threads every :data:`SWITCH_INTERVAL_S` while any runs
    (a foreground call waiting for the interpreter gets it sooner), the previous interval afterwards."""
    global _jobs, _saved_interval
    _local.job = True
    with _cond:
        if not _jobs:
            _saved_interval = sys.getswitchinterval()
            sys.setswitchinterval(min(_saved_interval, SWITCH_INTERVAL_S))
        _jobs += 1
    try:
        yield
    finally:
        _local.job = False
        with _cond:
            _jobs -= 1
            if not _jobs and _saved_interval is not None:
                sys.setswitchinterval(_saved_interval)
                _saved_interval = None
