"""An import's per-event CPU work done ahead, in worker processes: each event's docs row (repair, redaction, the
length bound, the content hash: :func:`memdir.capture.events.import_row`) and its passages' recall tokens
(:func:`memdir.recall.passages.tokens`) for the events to come, while this process writes the ones before them.

Those steps are about two thirds of an import's CPU time (bench/results/ingest.md); on a machine with a second core
the writing process keeps only the SQL, the compression and the neighbours' context. Only a long import uses it
(:data:`AHEAD_MIN` events, a list), only when the process may use two cores or more, with ``import.workers``
processes at most (``0``: none).

What is made ahead is exactly what this process would make: the same pure functions on the same event; an event
without a ``ts`` (its time is the batch's), one the worker could not handle, and every event while the worker starts
(~0.1 s), a chunk not back within :data:`WAIT_S`, and every event after a worker stopped are made here, so a missing
or stalled worker slows an import down and changes nothing else. The worker is ``python -P -m memdir.engine.ahead``
with length-prefixed pickles on its stdin/stdout, in a process group of its own (a Ctrl-C reaches only the importing
process, which stops it), at niceness :data:`NICE`; it exits when its stdin closes or its parent is gone.
"""

from __future__ import annotations

import os
import sys
from collections import deque
from datetime import datetime
from typing import Any, Iterable, Iterator

from memdir.lazylog import getLogger

# pickle, struct, subprocess and threading are imported where a long import starts a worker: a capture's one-event
# import (the hook path) reaches this module and must not pay for them (~8 ms)

log = getLogger("memdir")

#: an import of a list of at least this many events prepares ahead; starting a worker costs ~0.1-0.2 s of a core,
#: more than a smaller import saves
AHEAD_MIN = 2000
#: events per message to the worker
CHUNK = 100
#: chunks sent ahead to each worker
WINDOW = 3
#: the workers' niceness (POSIX): a hook that starts while a long import runs is not slowed by them
NICE = 10
#: seconds the chunk due next is waited for (the import holds its write lock meanwhile) before this process makes
#: it itself; a worker that misses :data:`MISSES` of those is given no more
WAIT_S = 0.2
MISSES = 3

#: ``(row, reason, pieces)``: :func:`memdir.capture.events.import_row`'s row (or None and why) and the passages' tokens
Prepared = tuple[dict[str, Any] | None, str, list[tuple[int, int, str]] | None]

_LEN_BYTES = 4  # a message's length, big-endian, before its pickle


def prepare(ev: Any, now: datetime) -> Prepared | None:
    """What the importing process would make of ``ev``, or None for an event it must make itself (no ``ts``: its
    time defaults to the batch's, so ``now`` is never used for a row)."""
    from memdir.capture.events import import_row
    from memdir.recall.passages import tokens

    if not isinstance(ev, dict) or ev.get("ts") in (None, ""):
        return None
    row, why = import_row(ev, now)
    if row is None:
        return None, why, None
    return row, "", tokens(row["text"], row["role"])


def cores() -> int:
    """CPUs this process may run on (its affinity where the platform says, else the machine's count)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def wanted(total: int | None, workers: int) -> int | None:
    """Events to read before starting ``workers`` workers for an import of ``total`` events (None: never). Only a
    sized input (a list) is read ahead: a generator may hand out one object again and again, changed in place, and a
    chunk read before it is written would hold the last state only."""
    if workers < 1 or cores() < 2 or total is None or total < AHEAD_MIN:
        return None
    if not sys.executable or getattr(sys, "frozen", False):  # an embedded or frozen Python: no interpreter to start
        return None
    return 0


def _frame(obj: Any) -> bytes:
    import pickle

    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    return len(data).to_bytes(_LEN_BYTES, "big") + data


def _write(f: Any, obj: Any) -> None:
    f.write(_frame(obj))
    f.flush()


def _read(f: Any) -> Any:
    import pickle

    head = f.read(_LEN_BYTES)
    if len(head) < _LEN_BYTES:
        return None
    n = int.from_bytes(head, "big")
    data = f.read(n)
    if len(data) < n:
        return None
    return pickle.loads(data)  # noqa: S301  (our own child process, over its own pipe)


class _Worker:
    """The worker process, a thread sending it chunks and one reading its results."""

    def __init__(self) -> None:
        import subprocess
        import threading

        env = dict(os.environ)
        # the worker imports this very memdir, wherever it was imported from (a checkout, PYTHONPATH, a venv)
        here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        env["PYTHONPATH"] = os.pathsep.join(p for p in (here, env.get("PYTHONPATH")) if p)
        # -P: the working directory is not put on sys.path (a struct.py there would run in the worker). Its own
        # process group: a Ctrl-C at the terminal reaches only the importing process, which stops the worker; the
        # same session, so its niceness counts against the agent's processes (a session of its own is its own
        # autogroup on Linux, where niceness would only order it against itself)
        extra: dict[str, Any] = {"process_group": 0}
        if os.name == "nt":
            extra = {"creationflags": subprocess.BELOW_NORMAL_PRIORITY_CLASS | subprocess.CREATE_NEW_PROCESS_GROUP}
        self.proc = subprocess.Popen([sys.executable, "-P", "-m", "memdir.engine.ahead"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, **extra)
        self.asked = 0  # chunks sent
        self.answered = 0  # chunks back
        self.ready = False
        self.dead = False
        self.misses = 0
        self.abandoned: set[int] = set()
        self.results: dict[int, Any] = {}
        self.cond = threading.Condition()
        self.outbox: deque[tuple[int, list[Any]] | None] = deque()
        self.sent = threading.Condition()
        threading.Thread(target=self._reader, name="memdir-ahead-read", daemon=True).start()
        threading.Thread(target=self._writer, name="memdir-ahead-write", daemon=True).start()

    def _reader(self) -> None:
        from memdir.recall.tokenize import tokenizer_id

        try:
            while True:
                msg = _read(self.proc.stdout)
                if msg is None:
                    break
                seq, body = msg
                with self.cond:
                    if seq < 0:  # ready, tokenizing as this process does (or it is not used)
                        self.ready = body == tokenizer_id()
                        if not self.ready:
                            break
                    else:
                        self.answered += 1
                        if seq in self.abandoned:  # made in the importing process meanwhile
                            self.abandoned.discard(seq)
                        else:
                            self.results[seq] = body
                    self.cond.notify_all()
        except Exception as exc:  # noqa: BLE001  (a broken worker only slows the import down)
            log.debug("import worker: %s", exc)
        with self.cond:
            self.dead = True
            self.cond.notify_all()

    def _writer(self) -> None:
        try:
            while True:
                with self.sent:
                    while not self.outbox:
                        self.sent.wait()
                    item = self.outbox.popleft()
                if item is None:
                    break
                try:
                    data = _frame(item)
                except Exception:  # noqa: BLE001  (an event that does not pickle: that chunk is made here)
                    with self.cond:
                        self.results[item[0]] = [None] * len(item[1])
                        self.cond.notify_all()
                    continue
                self.proc.stdin.write(data)
                self.proc.stdin.flush()
        except Exception as exc:  # noqa: BLE001
            log.debug("import worker: %s", exc)
            with self.cond:
                self.dead = True
                self.cond.notify_all()

    def send(self, seq: int, chunk: list[Any]) -> None:
        with self.sent:
            self.outbox.append((seq, chunk))
            self.asked += 1
            self.sent.notify()

    def take(self, seq: int, timeout: float) -> list[Any] | None:
        """The prepared chunk ``seq``, or None when the worker died or it is not back within ``timeout`` seconds
        (then the caller makes it; after :data:`MISSES` of those the worker is given no more)."""
        with self.cond:
            self.cond.wait_for(lambda: seq in self.results or self.dead, timeout)
            got = self.results.pop(seq, None)
            if got is None:
                self.abandoned.add(seq)
                self.misses += 1
                if self.misses >= MISSES:
                    self.dead = True
        return got

    def close(self) -> None:
        """Stop the worker: at once when it owes chunks or died (a write to a stopped worker's full pipe would
        block the closing of its stdin, with the import's lock held), else by closing its stdin; no process and no
        pipe is left behind."""
        with self.sent:
            self.outbox.clear()
            self.outbox.append(None)
            self.sent.notify()
        if self.dead or self.answered < self.asked:
            self.proc.kill()
        for f in (self.proc.stdin, self.proc.stdout):
            try:
                f.close()
            except Exception:  # noqa: BLE001  (a broken pipe: nothing left to say to it)
                pass
        try:
            self.proc.wait(timeout=2)
        except Exception:  # noqa: BLE001
            self.proc.kill()
            self.proc.wait()


def _chunks(it: Iterator[Any], n: int) -> Iterator[list[Any]]:
    while True:
        chunk = [x for _, x in zip(range(n), it)]
        if not chunk:
            return
        yield chunk


def ahead(events: Iterable[Any], total: int | None, workers: int = 2) -> Iterator[tuple[Any, Prepared | None]]:
    """``(event, prepared or None)`` for each of ``events`` in order; ``prepared`` was made ahead, by one of up to
    ``workers`` worker processes taking chunks in turn (None: make it when writing). Close the generator when
    done with it (it stops the workers). (Making a later chunk here while a worker is behind was tried: the writes
    wait for it, and the import was slower, docs/ingest-and-size.md.)"""
    start_at = wanted(total, workers)
    it = iter(events)
    if start_at is None:
        for ev in it:
            yield ev, None
        return
    procs: list[_Worker] = []
    read = 0
    pending: deque[tuple[int, list[Any], _Worker]] = deque()  # chunks sent to a worker, in order
    seq = 0
    chunks = _chunks(it, CHUNK)
    try:
        while True:
            if not procs and read >= start_at:
                for _ in range(max(1, min(workers, cores()))):
                    try:
                        procs.append(_Worker())
                    except Exception as exc:  # noqa: BLE001  (no worker: every event is made here)
                        log.debug("import worker not started: %s", exc)
                        break
                start_at = sys.maxsize
            ready = [w for w in procs if w.ready and not w.dead]
            while ready and len(pending) < WINDOW * len(ready):
                c = next(chunks, None)
                if c is None:
                    break
                w = ready[seq % len(ready)]
                pending.append((seq, c, w))
                w.send(seq, c)
                seq += 1
            if not pending:
                c = next(chunks, None)
                if c is None:
                    return
                read += len(c)
                for ev in c:
                    yield ev, None
                continue
            sq, c, w = pending.popleft()
            got = w.take(sq, WAIT_S) if not w.dead else None
            if got is None or len(got) != len(c):  # made here: a stalled worker does not stall the import
                got = [None] * len(c)
            read += len(c)
            for ev, prep in zip(c, got):
                yield ev, prep
    finally:
        for w in procs:
            w.close()


def _safe_prepare(ev: Any, now: datetime) -> Prepared | None:
    try:
        return prepare(ev, now)
    except Exception:  # noqa: BLE001  (made again when writing, whose errors are the contract)
        return None


def _serve() -> None:
    """The worker's loop: ``(seq, events)`` in, ``(seq, [prepare(ev) …])`` out, until stdin closes."""
    import signal

    from memdir.recall.tokenize import tokenizer_id

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(os, "nice"):  # background work: the writing process and the agent's hooks go first
        try:
            os.nice(NICE)
        except OSError:
            pass
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # anything printed goes to stderr, not into the results
    inp = sys.stdin.buffer
    now = datetime.now().astimezone()
    _write(out, (-1, tokenizer_id()))
    while True:
        msg = _read(inp)
        if msg is None:
            return
        seq, evs = msg
        _write(out, (seq, [_safe_prepare(ev, now) for ev in evs]))


if __name__ == "__main__":
    _serve()
