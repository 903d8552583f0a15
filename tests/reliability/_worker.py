"""A writer process for the concurrency and crash suites (run as a script, never collected by pytest).

Usage: ``python _worker.py '<json spec>'``. Spec keys:

* ``project``, ``home``: the store to open; ``wid``: this worker's number; ``seed``: RNG seed.
* ``mode``: ``"mix"`` (remember / capture / import / forget, unique and shared texts), ``"c7"`` (case C7:
  ``events`` captured events and ``notes`` notes), ``"crash"`` (endless random writes until killed).
* ``n``: operations for ``mix``; ``events`` / ``notes`` for ``c7``.
* ``barrier``: when true, print ``READY`` and wait for one line on stdin before writing (all workers start
  at once). ``kill_at``: ``[point, n]`` — SIGKILL ourselves at the ``n``-th pass through ``point``
  (fault injection; see :func:`_install_kill_points`).

Every completed write prints ``ACK <json>`` (flushed) *after* the API call returned, so the parent knows what
was acknowledged. Any exception prints ``ERR <type>: <message>`` and exits 3.
"""

from __future__ import annotations

import json
import os
import random
import signal
import sys


def ack(**kw) -> None:
    sys.stdout.write("ACK " + json.dumps(kw, ensure_ascii=False) + "\n")
    sys.stdout.flush()


def begin(**kw) -> None:
    """Announce a destructive write before it starts (the parent then excuses its target if we are killed)."""
    sys.stdout.write("BEGIN " + json.dumps(kw, ensure_ascii=False) + "\n")
    sys.stdout.flush()


def _install_kill_points(point: str, n: int) -> None:
    """Wrap one dangerous step so the process SIGKILLs itself on its ``n``-th pass (1-based).

    Points: ``replace_before`` / ``replace_after`` (around the ``os.replace`` of an atomic Markdown write),
    ``insert_event`` (inside the SQLite transaction, after an event row is inserted), ``upsert_doc`` (inside
    the sync transaction), ``compile`` (after the note file and index row exist, before index.md/ROOT.md are
    recompiled), ``unlink`` (forget: after the file is deleted, before the tombstone transaction).
    """
    from memdir.store.sqlite import index
    from memdir.engine import root as rootmod

    counter = {"n": 0}

    def hit() -> None:
        counter["n"] += 1
        if counter["n"] >= n:
            os.kill(os.getpid(), signal.SIGKILL)

    def wrap(obj, name, before: bool):
        orig = getattr(obj, name)

        def f(*a, **k):
            if before:
                hit()
            r = orig(*a, **k)
            if not before:
                hit()
            return r

        setattr(obj, name, f)

    if point == "replace_before":
        wrap(os, "replace", True)
    elif point == "replace_after":
        wrap(os, "replace", False)
    elif point == "insert_event":
        wrap(index, "insert_event", False)
    elif point == "upsert_doc":
        wrap(index, "upsert_doc", False)
    elif point == "compile":
        wrap(rootmod.Root, "compile", True)
    elif point == "unlink":
        from pathlib import Path

        wrap(Path, "unlink", False)
    else:
        raise SystemExit(f"unknown kill point {point!r}")


def run(spec: dict) -> None:
    import memdir

    rng = random.Random(spec.get("seed", 0))
    wid = spec.get("wid", 0)
    if spec.get("kill_at"):
        _install_kill_points(*spec["kill_at"])
    if spec.get("barrier"):
        print("READY", flush=True)
        sys.stdin.readline()
    with memdir.open(spec["project"], home=spec["home"], config=spec.get("config")) as m:
        mode = spec.get("mode", "mix")
        if mode == "c7":
            for i in range(spec["events"]):
                r = m.capture({"role": "user", "session": f"c7-{wid}",
                               "text": f"worker {wid} captured event number {i}: deploy step {i * 7 + wid} finished"})
                ack(op="event", key=r.key, stored=r.stored, reason=r.reason)
            for i in range(spec["notes"]):
                note = m.remember(f"worker {wid} note {i}: the build cache lives in slot {i * 13 + wid}")
                ack(op="remember", id=note.id, text=note.text, existed=note.existed)
            return
        if mode == "mix":
            _mix(m, rng, wid, spec["n"])
            return
        if mode == "forget":
            ack(op="forget", id=spec["forget"], result=m.forget(spec["forget"]))
            return
        if mode == "crash":
            _crash(m, rng, wid)
            return
        raise SystemExit(f"unknown mode {mode!r}")


def _mix(m, rng: random.Random, wid: int, n: int) -> None:
    mine_notes: list[str] = []
    mine_events: list[str] = []
    for i in range(n):
        op = i % 6
        if op == 0:
            text = f"worker {wid} unique note {i}: keep the retry budget at {wid * 1000 + i} ms"
            note = m.remember(text, category=rng.choice(["facts", "decisions", "pitfalls"]), tags=[f"w{wid}"],
                              load_when=[f"editing module {i % 4}"])
            mine_notes.append(note.id)
            ack(op="remember", id=note.id, text=note.text, existed=note.existed)
        elif op == 1:  # identical text in every worker: one note in the end
            text = f"shared note {i}: every worker writes exactly this sentence"
            note = m.remember(text, category="facts")
            ack(op="remember", id=note.id, text=note.text, existed=note.existed, shared=True)
        elif op == 2:  # the same deterministic key and text in every worker
            c = m.import_events([{"key": f"shared:{i}", "role": "user", "text": f"shared event {i}: same key in all workers",
                                  "session": "shared"}])
            ack(op="event", key=f"shared:{i}", counts=c, shared=True)
        elif op == 3:  # captured, unique
            r = m.capture({"role": "assistant", "session": f"s{wid}",
                           "text": f"worker {wid} captured reply {i}: the migration ran in {i + wid} seconds"})
            assert r.stored, r
            mine_events.append(r.key)
            ack(op="event", key=r.key)
        elif op == 4:  # captured, identical in every worker (same session + text = same key)
            r = m.capture({"role": "user", "session": "shared-session", "text": f"shared prompt {i}: please rerun the suite"})
            assert r.reason in ("stored", "duplicate", "spooled"), r  # spooled: queued while the lock was busy
            ack(op="event", key=r.key, shared=True)
        else:  # forget one of my own notes or events
            if mine_notes and rng.random() < 0.5:
                nid = mine_notes.pop(rng.randrange(len(mine_notes)))
                ack(op="forget", id=nid, result=m.forget(nid))
            elif mine_events:
                key = mine_events.pop(rng.randrange(len(mine_events)))
                ack(op="forget", id=key, result=m.forget(key))


def _crash(m, rng: random.Random, wid: int) -> None:
    mine: list[str] = []
    i = 0
    while True:
        i += 1
        r = rng.random()
        tag = f"{wid}-{i}-{rng.randrange(10**9)}"
        if r < 0.4:
            note = m.remember(f"crash note {tag}: the queue drains in {i} seconds", category=rng.choice(["facts", "pitfalls"]),
                              load_when=[f"touching queue {i % 3}"])
            mine.append(note.id)
            ack(op="remember", id=note.id, text=note.text)
        elif r < 0.7:
            res = m.capture({"role": "user", "session": f"crash-{wid}", "text": f"crash event {tag}: rerun the failing job"})
            ack(op="event", key=res.key)
        elif r < 0.85:
            evs = [{"key": f"bulk:{tag}:{j}", "role": "tool", "text": f"bulk event {tag} part {j}"} for j in range(20)]
            m.import_events(evs)
            for e in evs:
                ack(op="event", key=e["key"])
        elif mine:
            nid = mine.pop(rng.randrange(len(mine)))
            begin(op="forget", id=nid)
            ack(op="forget", id=nid, result=m.forget(nid))


if __name__ == "__main__":
    try:
        run(json.loads(sys.argv[1]))
    except Exception as exc:  # reported to the parent, which fails the test with this line
        print(f"ERR {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}", flush=True)
        sys.exit(3)
