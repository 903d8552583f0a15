"""Episodic events: the bulk import (redaction, the length bound, dedup, tombstones, the team queue), gated capture
of one host event and its skip log, and the event counts the daily cap reads.
"""

from __future__ import annotations

import contextvars
import time
from datetime import datetime
from typing import Any, Iterable, Iterator

from memdir.capture import events as cevents
from memdir.capture import gates
from memdir.config import team_wanted
from memdir.engine import ahead, regrow, spool
from memdir.errors import LockBusy, UsageError, disk_full
from memdir.lazylog import getLogger
from memdir.stopsignals import STOPS, stopped
from memdir.store.sqlite import journal
from memdir.stores import Stores
from memdir.timeutil import iso, parse_ts

log = getLogger("memdir")  # imports logging only when a record can go somewhere


SETTLE_AFTER = 1000  # an import storing this many events checkpoints and truncates the WAL afterwards
#: an import commits every BATCH_EVENTS events or BATCH_SECONDS, whichever comes first, and lets go of the write lock
#: between batches, pausing BATCH_PAUSE_S (longer than a waiting writer's 10 ms poll) when a writer waits: hooks that
#: capture while a long import runs wait one batch at most, and Ctrl-C keeps every batch committed before it (C43)
BATCH_EVENTS = 500
BATCH_SECONDS = 0.25
BATCH_PAUSE_S = 0.02
SKIP_LOCK_S = 5.0  # an import's skip rows wait this long for the write lock, then are not logged (debug log)

#: a progress bar (tqdm's ``update(n)``, ``total``, ``refresh()``) that :func:`import_events` advances after each
#: committed batch, by the events read; set by the CLI around a long import (``memdir import FILE``), None otherwise.
#: The imports it runs for queued captures meanwhile do not move it.
progress_bar: contextvars.ContextVar[Any] = contextvars.ContextVar("memdir_import_progress", default=None)


def import_events(s: Stores, events: Iterable[dict[str, Any]], *, scope: str = "project",
                  lock_timeout: float | None = None) -> dict[str, int]:
    """Bulk-store episodic events ``{key, role, text, session, ts}`` (``meta`` optional), committed in batches of
    :data:`BATCH_EVENTS` events or :data:`BATCH_SECONDS` (the write lock is let go between batches).

    Dedup by key and by SHA-256 of the normalized text, and an assistant turn already inside a reply a hook captured
    in its session is a duplicate (:func:`captured_before`); tombstoned keys/texts are skipped; text is redacted
    and bounded (:func:`cevents.bound_text`). ``ts`` may be a datetime (naive = the machine's local time), ISO 8601 string or epoch s/ms;
    missing → now. Returns ``{"read", "stored", "duplicate", "skipped"}``; a malformed item is counted as
    skipped with a debug-log reason, never raised. Ctrl-C raises :class:`memdir.errors.Interrupted` (the counts of
    the batches committed before it; the batch under way is rolled back): a second run stores only the rest. ``lock_timeout``: seconds to wait for the
    root's write lock (default 60; raises ``LockBusy`` after). Afterwards the events other processes queued while the
    lock was busy are stored too (:mod:`memdir.engine.spool`).
    """
    if events is None or isinstance(events, (str, bytes, dict)) or not hasattr(events, "__iter__"):
        raise UsageError("import_events needs an iterable of event dicts ({key, role, text, session, ts})")
    root = s.root(scope)
    root.ensure()
    counts = {"read": 0, "stored": 0, "duplicate": 0, "skipped": 0}
    total = len(events) if hasattr(events, "__len__") else None
    it = iter(events)
    send = scope == "project" and team_wanted(s.config)  # a mistyped remote.url queues too: sent once it is fixed
    queued: list[dict[str, Any]] = []  # sent to remote.url once at the end (memdir.engine.remote); queued meanwhile
    bar = progress_bar.get()
    bar_token = progress_bar.set(None) if bar is not None else None  # the spool's imports below do not move it
    if bar is not None and total:
        bar.total = (bar.total or 0) + total
        bar.refresh()
    try:
        _import_all(s, root, it, counts, total, queued if send else None, lock_timeout, bar)
    finally:
        if bar_token is not None:
            progress_bar.reset(bar_token)
    return counts


def _import_all(s: Stores, root: Any, it: Iterator[Any], counts: dict[str, int], total: int | None,
                queued: list[dict[str, Any]] | None, lock_timeout: float | None, bar: Any) -> None:
    """The batches of :func:`import_events` (whose docstring is the contract), the team push, the settle and the
    spool's drain; ``counts`` gets the counts, ``bar`` (or None) the events read after each batch. A long import
    into a local root makes its rows and tokens ahead in a second process (:mod:`memdir.engine.ahead`)."""
    pairs = ((ev, None) for ev in it) if root.remote else ahead.ahead(it, total, int(s.config.get("import.workers")))
    batch: dict[str, int] | None = None
    # captured_before's cache: per session, captured replies by line and tool keys; and the sessions each session was
    # found to copy (copied_from), kept by the store for this process: an importer's next call may hold the rest
    replies: dict[Any, Any] = {COPIES: s.state.setdefault((COPIES, id(root)), {})}
    try:
        more = True
        while more:
            batch = dict.fromkeys(counts, 0)
            more = _import_batch(s, root, pairs, batch, queued, lock_timeout, replies)
            for k, v in batch.items():
                counts[k] += v
            read, batch = batch["read"], None
            if bar is not None:
                bar.update(read)
            if more:
                if root.lock_waited():  # a hook waiting on the lock takes it now (no pause when none waits)
                    time.sleep(BATCH_PAUSE_S)
                spool.drain(root, lambda rows, sc: import_events(s, rows, scope=sc))  # what hooks queued meanwhile
    except STOPS as exc:  # the committed batches' rows wait in the queue for the next push
        if not stopped(exc):
            raise
        from memdir.errors import Interrupted

        for k, v in (batch or {}).items():  # a batch whose COMMIT went through just before the interrupt
            counts[k] += v

        raise Interrupted(counts["read"], total, counts) from None
    finally:
        pairs.close()  # stops the worker
    if queued:
        from memdir.engine import remote  # the team client, only when remote.url is set

        remote.send_rows(s, root, [])  # every batch queued its rows already: push what the queue holds
    if counts["stored"] >= SETTLE_AFTER:
        try:  # the WAL of a big import is written back and truncated, and, under the write lock when nobody else
            # holds it (never waited for), the pages FTS5's segment merges freed go back to the file system (0-6 % of
            # the file at 10k real turns, depending on where the batches fell)
            with root.locked(timeout=0):
                root.store.settle(freed=True)
        except LockBusy:
            root.store.settle()
    # a capture (one event: a hook) drains a part of the queue; an import of many drains it all
    spool.drain(root, lambda rows, sc: import_events(s, rows, scope=sc),
                budget_s=spool.HOOK_DRAIN_S if total is not None and total <= 1 else None)


def drain_pending(s: Stores) -> int:
    """Store what captures queued in each existing root's spool while its write lock was busy
    (:mod:`memdir.engine.spool`): recall, context, forget, inspect and status call it, so a queued event is visible
    to the next reader too, not only after the next write. Never waits for the lock, never raises; returns files
    drained (one directory listing per root when there is nothing)."""
    n = 0
    for root in s.live():
        if root.exists() and not root.remote:
            n += spool.drain(root, lambda rows, sc: import_events(s, rows, scope=sc), budget_s=spool.HOOK_DRAIN_S)
    return n


def _import_batch(s: Stores, root: Any, it: Iterator[tuple[Any, Any]], counts: dict[str, int],
                  queued: list[dict[str, Any]] | None, lock_timeout: float | None = None,
                  replies: dict[Any, Any] | None = None) -> bool:
    """Store events from ``it`` (``(event, prepared or None)``: :func:`memdir.engine.ahead.ahead`) in one transaction
    under the write lock until :data:`BATCH_EVENTS` were read or
    :data:`BATCH_SECONDS` passed; ``counts`` gets the batch's counts and ``queued`` (when the team server is set) its
    stored rows, both left as they were when it is rolled back. Returns True when ``it`` may hold more."""
    now = s.clock()
    history: list[str] = []  # stored events older than an hour: their heat starts now (issue 13 item 13)
    stored: list[dict[str, Any]] = []
    got = dict.fromkeys(counts, 0)
    more = False
    try:
        more = _batch_rows(s, root, it, got, now, history, stored, queued, lock_timeout, replies)
    except STOPS as exc:  # Ctrl-C, or SQLite's error for one raised inside memdir's SQL function
        if not stopped(exc):
            raise
        if getattr(root.store, "committed", False):  # interrupted once its COMMIT was through: it counts
            counts.update(got)
        if isinstance(exc, KeyboardInterrupt):
            raise
        raise KeyboardInterrupt from None
    counts.update(got)
    if queued is not None and stored:
        if root.remote:  # a PostgreSQL store: committed there, queued in the root's local file after each batch
            from memdir.engine import remote

            remote.enqueue(root.db, stored)
        queued += stored
    return more


#: an imported reply shorter than this (non-space characters) is never taken for part of a captured one
CAPTURED_MIN_CHARS = 16
#: ``captured_before``'s cache key of the sessions each session copies (:func:`copied_from`)
COPIES = ("copies",)
#: an imported prompt that is a duplicate of another session's event written within this many seconds of it is a copy
#: of that moment: a fork or a resumed session under a new id repeats the history with its times (a prompt asked again
#: later, on purpose, is not)
COPY_WINDOW_S = 120.0


def copied_from(st: Any, replies: dict[Any, Any], row: dict[str, Any]) -> None:
    """Called for an imported event found to be a duplicate: when ``row`` is a prompt whose text is stored as an event
    of another session written within :data:`COPY_WINDOW_S` of it, ``row``'s session is a copy of that session
    (Claude Code ``--fork-session``, a Codex fork: a new file and session id, earlier turns repeated with their times),
    and :func:`captured_before` also takes what the hooks captured in that session for it."""
    sess = row.get("session")
    if row.get("role") != "user" or not sess or str(row.get("ref", "")).startswith(gates.CAPTURE_PREFIXES):
        return  # a hook's own capture is never matched against captures (no lookup on the hook's path)
    found = st.event_with_text(row["content_sha256"])
    if found is None or not found[0] or found[0] == sess or abs(found[1] - row["ts_epoch"]) > COPY_WINDOW_S:
        return
    origins = replies[COPIES].setdefault(sess, [])
    if found[0] not in origins:
        origins.append(found[0])


def captured_before(st: Any, replies: dict[Any, Any], row: dict[str, Any]) -> bool:
    """True when ``row``, an imported tool call, is one a hook captured in its session (the same call id: the hook's
    summary and the importer's can differ in wording, an absolute or a relative path, an empty output's JSON), or an
    imported assistant turn is already stored inside a reply a hook captured in its session:
    a Stop hook stores the turn's whole text as one event, a host's transcript holds it as several messages (each
    of which would otherwise be stored again beside it). Whitespace is compared collapsed; texts shorter than
    :data:`CAPTURED_MIN_CHARS` are left alone. ``replies`` caches, for one import, each session's captured replies
    by their lines: only the replies holding the imported text's first line are searched (one lookup a row, however
    many replies the session has). A session found to copy another (:func:`copied_from`) has that one's captures
    too: a fork repeats turns the hooks captured under the session it was forked from."""
    sess = row.get("session")
    ref = str(row.get("ref", ""))
    if not sess or ref.startswith(gates.CAPTURE_PREFIXES):
        return False
    return any(_captured_in(st, replies, row, ref, s) for s in [sess, *replies.get(COPIES, {}).get(sess, ())])


def _captured_in(st: Any, replies: dict[Any, Any], row: dict[str, Any], ref: str, sess: str) -> bool:
    """:func:`captured_before` for the hooks' captures of one session ``sess`` (``row``'s own, or one it copies)."""
    if row.get("role") == "tool":  # a tool call a hook captured under t:<session>:<call id>; an importer keys it
        mark = f":{row['session']}:"  # <source>:<session>:<call id>, and may word its summary otherwise
        if mark not in ref:
            return False
        if ("t", sess) not in replies:
            replies[("t", sess)] = st.captured_tool_keys(sess)
        return f"t:{sess}:{ref.split(mark, 1)[1][:200]}" in replies[("t", sess)]
    if row.get("role") != "assistant":
        return False
    raw = str(row.get("text") or "")
    text = " ".join(raw.split())
    if len(text.replace(" ", "")) < CAPTURED_MIN_CHARS:
        return False
    if sess not in replies:  # {line: [captured replies holding it]}: a message of the reply starts one of its lines
        index: dict[str, list[str]] = {}
        for t in st.captured_replies(sess):
            whole = " ".join(t.split())
            for ln in {" ".join(x.split()) for x in t.split("\n")}:
                if ln:
                    index.setdefault(ln, []).append(whole)
        replies[sess] = index
    first = next((" ".join(x.split()) for x in raw.split("\n") if x.strip()), "")
    return any(text in r for r in replies[sess].get(first, ()) if len(r) >= len(text))


def _batch_rows(s: Stores, root: Any, it: Iterator[tuple[Any, Any]], got: dict[str, int], now: datetime,
                history: list[str], stored: list[dict[str, Any]], queued: list[dict[str, Any]] | None,
                lock_timeout: float | None, replies: dict[Any, Any] | None = None) -> bool:
    """:func:`_import_batch`'s transaction: reads ``it`` into ``got`` / ``history`` / ``stored``; True when ``it``
    may hold more. ``replies``: :func:`captured_before`'s cache, kept across the batches of one import."""
    replies = {COPIES: {}} if replies is None else replies
    more = False
    with root.locked(lock_timeout), root.store.transaction() as st:
        deadline = time.monotonic() + BATCH_SECONDS
        tombstoned = st.tombstone_test()
        pending: dict[int, str] = {}
        for ev, prep in it:
            got["read"] += 1
            if prep is None:
                row, why = event_row(s, ev, now)
                pieces = None
            else:
                row, why, pieces = prep
            if row is None:
                got["skipped"] += 1
                log.debug("import_events: skipped (%s): key %.80r", why, ev.get("key") if isinstance(ev, dict) else type(ev).__name__)
            elif tombstoned(row["ref"], row["content_sha256"]):
                got["skipped"] += 1
                log.debug("import_events: skipped (tombstoned): %s", row["ref"])
            elif captured_before(st, replies, row):
                got["duplicate"] += 1
                log.debug("import_events: duplicate of a reply a hook captured: %s", row["ref"])
            elif regrow.cut_of_copy(st, row, copies := replies.get(COPIES, {}).get(row.get("session")) or ()):
                got["duplicate"] += 1  # a fork's cut turn, stored whole from the session it copies (or the reverse)
                log.debug("import_events: a cut copy of a turn stored whole: %s", row["ref"])
            else:
                cut = regrow.completed(st, row)
                whole = regrow.completes_copy(st, row, copies) if cut is None else None
                if whole is not None:  # completes the copied session's cut turn: stored in its place, never beside it
                    cut, row = whole["ref"], {**row, "ref": whole["ref"], "session": whole["session"]}
                if cut is not None:  # the same turn imported while its session was being written: this one replaces it
                    st.flush_events(pending)  # the cut one may be this batch's own, its full-text row not written yet
                    pending.clear()
                    st.delete_doc(cut)
                    log.debug("import_events: %s completes %s (imported while its session was written)", row["ref"], cut)
                if st.insert_event(row, pending=pending) if pieces is None else st.insert_event(row, pending=pending, pieces=pieces):
                    got["stored"] += 1
                    stored.append(row)
                    if row["ts_epoch"] < now.timestamp() - 3600:
                        history.append(row["ref"])
                else:
                    got["duplicate"] += 1
                    log.debug("import_events: duplicate key or text: %s", row["ref"])
                    copied_from(st, replies, row)
            if got["read"] >= BATCH_EVENTS or (got["read"] % 50 == 0 and time.monotonic() > deadline):
                more = True
                break
        st.flush_events(pending)  # FTS rows with each event's neighbouring turns
        if history:
            st.start_heat(history, now.timestamp())
        if queued is not None and stored and not root.remote:
            from memdir.engine import remote

            remote.queue_rows(root.db, stored)  # in the events' own transaction: both commit or neither
    return more


#: ``Stores.state`` key of a hook's deadline (``time.monotonic()`` seconds): its process is ended then, so a capture
#: waits for the write lock only until :data:`SPOOL_MARGIN_S` before it and queues the event in the spool instead
CAPTURE_DEADLINE = "capture_deadline"
#: seconds a capture keeps, before a hook's deadline, for storing or queueing its event once the lock wait ends (on a
#: busy machine, 8 writers on 2 cores, a hook reached its capture 2.3 s into a 3 s budget)
SPOOL_MARGIN_S = 1.0


def capture(s: Stores, event: dict[str, Any], **kwargs: Any):
    """The body of :meth:`memdir.Memdir.capture`, whose docstring is the contract."""
    result = capture_event(s, event, **kwargs)
    if not result.stored and result.reason != "duplicate":
        log_skip(s, result, event, kwargs)
    return result


def log_skip(s: Stores, result: Any, event: Any, fields: dict[str, Any]) -> None:
    """Record a capture that stored nothing in the bounded skip log (:mod:`memdir.store.sqlite.journal`), in a root that
    already exists; never raises (a hook must not fail over its own bookkeeping)."""
    try:
        ev = dict(event) if isinstance(event, dict) else {"text": event}
        ev.update({k: v for k, v in fields.items() if k != "scope"})
        root = s.root(fields.get("scope") or "project")
        if not root.exists():
            return
        try:
            when = parse_ts(ev["ts"]) if ev.get("ts") not in (None, "") else s.clock()
        except (UsageError, ValueError, TypeError, OverflowError):
            when = s.clock()
        text = result.text or (ev.get("tool") or ev.get("tool_name") if result.reason == "noisy_tool" else ev.get("text"))
        session = str(ev.get("session") or "").strip() or None
        with root.locked(timeout=0):  # never waits: a long writer (an import) holding the lock skips this row
            journal.log_skip(root.db, when=when, reason=result.reason, role=result.role or ev.get("role"),
                             session=session, source=ev.get("source"), text=text)
    except Exception as exc:  # noqa: BLE001
        log.debug("capture skip not logged: %s", exc)


def log_skips(s: Stores, skips: Iterable[dict[str, Any]], *, scope: str = "project") -> int:
    """The body of :meth:`memdir.Memdir.log_skips`, whose docstring is the contract."""
    try:
        root = s.root(scope)
        if not root.exists():
            return 0
        rows = []
        for ev in skips:
            try:
                when = parse_ts(ev["ts"]) if ev.get("ts") not in (None, "") else s.clock()
            except (UsageError, ValueError, TypeError, OverflowError):
                when = s.clock()
            meta = ev.get("meta") if isinstance(ev.get("meta"), dict) else {}
            tool = ev.get("tool") or ev.get("tool_name") or meta.get("tool")
            # a skipped tool's output is what the gate refused to keep: its preview is the tool's name only
            text = (tool or ev.get("text")) if ev.get("reason") == "noisy_tool" else ev.get("text")
            rows.append({"when": when, "reason": str(ev.get("reason") or "skipped"), "role": ev.get("role"),
                         "session": str(ev.get("session") or "").strip() or None, "source": ev.get("source"),
                         "text": text})
        with root.locked(timeout=SKIP_LOCK_S):
            return journal.log_skips(root.db, rows)
    except Exception as exc:  # noqa: BLE001
        log.debug("import skips not logged: %s", exc)
        return 0


def count_events(s: Stores, *, since: datetime, until: datetime | None = None, key_prefixes: Iterable[str] = (),
                 scope: str = "project") -> int:
    """The body of :meth:`memdir.Memdir.count_events`, whose docstring is the contract."""
    if not isinstance(since, datetime) or not isinstance(until, (datetime, type(None))):
        raise UsageError(f"count_events needs datetimes for since and until, not {since!r:.40} and {until!r:.40}")
    root = s.root(scope)
    if not root.exists():
        return 0
    return root.store.count_events(since.timestamp(), until.timestamp() if until is not None else None,
                                   [p for p in key_prefixes if p])


def event_row(s: Stores, ev: Any, now: datetime) -> tuple[dict[str, Any] | None, str]:
    """An imported event's docs row, or ``(None, reason)``: :func:`memdir.capture.events.import_row`."""
    return cevents.import_row(ev, now)


def capture_event(s: Stores, event: Any, *, scope: str = "project", **fields: Any) -> "gates.CaptureResult":
    """Gate one host event and store it when it passes (see the module docstring for gates and keys).

    ``event``: a dict (shape in the module docstring) or a string
    (a user prompt). ``fields``: overrides merged into the event (``session=…``, ``role=…``). ``scope``:
    ``"project"`` (default) or ``"global"``. The content gates are :func:`memdir.capture.gates.gate` (the same function the importers
    call); then ``capture.enabled`` and the daily cap. Never raises for a bad event (it is ``invalid``); raises
    ``UsageError`` for an unknown scope and ``MemdirError`` if the store cannot be written. A busy write lock, or an
    index with no room to grow (a full disk), queues the event in the spool (``spooled``) when a small file fits.
    """
    if isinstance(event, str):
        event = {"role": "user", "text": event}
    if not isinstance(event, dict):
        return gates.skip_result("invalid", f"not an event object: {type(event).__name__}")
    ev = {**event, **fields}
    cfg = s.config
    if not cfg.get("capture.enabled"):
        return gates.skip_result("disabled", "capture.enabled is false")
    d = gates.gate(ev, cfg)
    if not d.keep:
        return gates.CaptureResult(False, d.reason or "invalid", d.key, d.role, gates.safe_text(d.text))
    role, text, key = d.role, d.text, d.key
    cap = cfg.get("capture.daily_cap")
    if cap:
        start, end = gates.local_day_bounds(s.clock())
        n = count_events(s, since=start, until=end, key_prefixes=gates.CAPTURE_PREFIXES, scope=scope)
        if n >= cap:
            return gates.skip_result("daily_cap", f"{n} events captured today >= capture.daily_cap={cap}", key=key, role=role, text=text)

    row = capture_row(ev, d)
    wait = float(cfg.get("capture.lock_wait_ms")) / 1000
    deadline = s.state.get(CAPTURE_DEADLINE)
    if deadline is not None:  # a hook: the wait ends early enough to queue the event before the hook's budget does
        wait = max(0.0, min(wait, deadline - time.monotonic() - SPOOL_MARGIN_S))
    try:
        counts = import_events(s, [row], scope=scope, lock_timeout=wait)
    except LockBusy:  # a long writer holds the lock: queue the event for it (never lost, never waited for)
        path = spool_row(s, row, scope)
        log.debug("capture: write lock busy; %s queued in %s", key, path)
        return gates.CaptureResult(True, "spooled", key, role, gates.safe_text(text))
    except Exception as exc:
        if not (disk_full(exc) or s.root(scope).disk_full):
            raise
        try:  # the index cannot grow, a small file may still fit: queued, stored by a writer once there is room
            path = spool_row(s, row, scope)
        except OSError:
            raise exc from None
        log.debug("capture: no room in the index; %s queued in %s", key, path)
        return gates.CaptureResult(True, "spooled", key, role, gates.safe_text(text))
    if counts.get("stored"):
        log.debug("capture: stored %s (%d chars)", key, len(text))
        return gates.CaptureResult(True, "stored", key, role, gates.safe_text(text))
    if counts.get("duplicate"):
        return gates.skip_result("duplicate", key, key=key, role=role, text=text)
    return gates.skip_result("tombstoned", f"{key} (forgotten earlier)", key=key, role=role, text=text)


def capture_row(ev: dict[str, Any], d: Any) -> dict[str, Any]:
    """The row :func:`import_events` stores for the event ``ev`` the gates kept (``d``: their decision)."""
    session = str(ev.get("session") or "").strip().replace("\n", " ")[:200] or None
    meta = dict(ev.get("meta") or {}) if isinstance(ev.get("meta"), dict) else {}
    for k in ("source", "tool", "call_id", "cwd"):
        if ev.get(k) not in (None, ""):
            meta.setdefault(k, ev[k])
    if ev.get("is_error"):
        meta["is_error"] = True
    return {"key": d.key, "role": d.role, "text": d.text, "session": session, "ts": ev.get("ts"), "meta": meta or None}


def spool_row(s: Stores, row: dict[str, Any], scope: str) -> Any:
    """Queue one capture ``row`` in ``scope``'s spool (:func:`memdir.engine.spool.put`), its time set and its text
    and metadata redacted before they touch the disk, as the store would (redaction is idempotent: the same row, the
    same content hash when the queue is drained). Returns the file; raises ``OSError``."""
    row["ts"] = row["ts"] if row["ts"] not in (None, "") else iso(s.clock())
    row["text"] = cevents.redact_bounded(row["text"])  # bounded as stored: a hook's last words have 1.5 s
    row["meta"] = cevents.redact_obj(row["meta"]) if row["meta"] else None
    return spool.put(s.root(scope), [row], scope=scope)


def queue_event(s: Stores, event: Any, *, scope: str = "project") -> bool:
    """The body of :meth:`memdir.Memdir.queue_capture`, whose docstring is the contract."""
    try:
        if isinstance(event, str):
            event = {"role": "user", "text": event}
        if not isinstance(event, dict) or not s.config.get("capture.enabled"):
            return False
        d = gates.gate(event, s.config)
        if not d.keep:
            return False
        spool_row(s, capture_row(event, d), scope)
        return True
    except Exception as exc:  # noqa: BLE001 - a hook on its way out: nothing may raise here
        log.debug("capture not queued: %s", exc)
        return False


def notices(s: Stores) -> list[str]:
    """The body of :meth:`memdir.Memdir.notices`, whose docstring is the contract: for each local root whose index
    was rebuilt while it held episodic events, the line of :func:`memdir.store.sqlite.ledger.notice` (read from the
    small counter file beside the index; nothing is opened), after the line of a project root a sparse checkout left out
    (:mod:`memdir.engine.sparse`)."""
    from memdir.engine import sparse
    from memdir.store.sqlite import ledger

    proj = s.roots["project"]
    out = [] if proj.remote or not sparse.left_out(proj.path) else [f"project root: {sparse.said(proj.path)}"]
    for scope in ("project", "global"):
        root = s.roots[scope]
        line = ledger.notice(root.db_path) if not root.remote and root.exists() else None
        if line:
            from memdir.store.sqlite import salvage

            if salvage.unsalvaged(root.derived):  # the old file was set aside, not deleted: doctor reads back what it can
                line += "; `memdir doctor` recovers what can still be read of the set-aside index"
            out.append(f"{scope} root: {line}")
    return out


def restored(s: Stores, scopes: Iterable[str] = ("project",)) -> None:
    """A ``memdir import`` into ``scopes`` completed: the lost-events notice of those roots is dropped
    (:func:`memdir.store.sqlite.ledger.acknowledge`). Never raises."""
    from memdir.store.sqlite import ledger

    for scope in scopes:
        root = s.roots.get(scope)
        if root is not None and not root.remote:
            ledger.acknowledge(root.db_path)
