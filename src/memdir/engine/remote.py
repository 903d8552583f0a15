"""The client side of a team server (issue 14 item 3): events stored locally are queued and sent to
``remote.url`` (a ``memdir serve --store`` server) later, exactly once.

The local SQLite index stays the store every hook and command uses; when ``remote.url`` is set, each event it stores
is also put in the ``remote_queue`` table of the same index file (migration m012), keyed by the event's key, *in the
same transaction* as the event itself (:func:`queue_rows` on the writer's connection): a process cut off at any point
(a hook's budget ends it with ``os._exit``) leaves either both the event and its queue row or neither, so no event
is ever stored locally without being queued. Forgetting an event (or note) queues the forget the same way, in the
transaction that deletes it locally (:func:`queue_forget`), and drops its queue row if it was not sent yet. :func:`push` sends queued rows in batches and deletes them only when the
server answered (stored, duplicate or tombstoned all count as delivered); a server that is down, slow or unreachable
costs at most the time budget given, and the rows wait for the next push (``memdir push``, or the next capture). The
server stores a row once whatever the number of sends (deterministic keys, ``ON CONFLICT DO NOTHING``), so a batch
whose answer was lost is simply sent again.

Before m012 the queue was a file of its own (``<root>/.memdir/remote-queue.sqlite3``, :data:`QUEUE_FILE`), written
after the event's commit; its rows are moved into the table at the first :func:`pending`/:func:`push` that finds it
(copied and committed, then the file removed: a cut in between copies them again, and the server dedups by key).

Reads too (:class:`Recall`): when ``remote.url`` is set, a recall asks the server for the project's hits in a
background thread while the local search runs, and waits for the answer at most ``remote.recall_budget_ms`` in all;
a server that is down, slow, silent or refusing costs that budget at most and the local hits are shown alone. The
answer is fused with the local hits by reciprocal rank (:func:`fuse`); hits only the server has (a teammate's events)
come back with scope ``team``.

HTTP with the standard library only (this runs on the hook path).
"""

from __future__ import annotations

import http.client
import json
import sqlite3
import threading
import time
import urllib.error
import urllib.request
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterable, Iterator, Union

from memdir.capture import events as cevents
from memdir.config import refused_url_line
from memdir.engine import delivery, teamhttp
from memdir.errors import UsageError
from memdir.lazylog import getLogger
from memdir.store.rows import EVENT_FIELDS
from memdir.store.sqlite import txn
from memdir.stores import Stores

TYPE_CHECKING = False
if TYPE_CHECKING:
    from memdir.engine.root import Root

log = getLogger(__name__)

#: the queue file of memdir before migration m012 (moved into the index's ``remote_queue`` table when found)
QUEUE_FILE = "remote-queue.sqlite3"
INDEX_FILE = "index.sqlite3"
BATCH = 200
BACKOFF_MAX_S = 300.0
REQUEST_TIMEOUT_S = 15.0  # the most one request to the team server waits for its answer

#: where the queue is: a root's ``.memdir`` directory (its index is opened) or an open index connection
Where = Union[Path, sqlite3.Connection]


@contextmanager
def _queue(where: Where) -> Iterator[sqlite3.Connection]:
    """The index connection holding ``remote_queue``: ``where`` itself, or the index in the directory ``where``
    (opened, created or migrated as any open does, and closed afterwards). A legacy queue file beside the index is
    moved into the table first."""
    if isinstance(where, sqlite3.Connection):
        yield where
        return
    from memdir.store.sqlite.opening import open_index

    db, _ = open_index(Path(where) / INDEX_FILE)
    try:
        adopt_legacy(db, Path(where))
        yield db
    finally:
        db.close()


def adopt_legacy(db: sqlite3.Connection, derived: Path) -> int:
    """Move the pending rows of a pre-m012 queue file (``derived/remote-queue.sqlite3``) into ``db``'s
    ``remote_queue`` (a key already there is kept once), then remove the file. Returns the rows moved. The copy is
    committed before the file goes, so a process cut off in between copies them again next time (sent twice at most,
    stored once by the server)."""
    old = derived / QUEUE_FILE
    if not old.exists():
        return 0
    try:
        src = sqlite3.connect(str(old), timeout=10)
        try:
            rows = src.execute("SELECT ref, row, tries, next_at, seq FROM queue ORDER BY seq").fetchall()
        finally:
            src.close()
    except sqlite3.OperationalError as exc:
        if "no such table" not in str(exc):  # locked or busy (an older memdir still writing it): next time
            log.debug("remote: %s not moved in yet: %s", old, exc)
            return 0
        rows = []  # no queue table: nothing was ever queued there
    except sqlite3.DatabaseError as exc:  # not a database, damaged: kept aside for a human, never fatal to a write
        aside = old.with_name(f"{old.name}.unreadable-{int(time.time())}")
        log.warning("memdir: the old team-server queue %s is unreadable (%s); moved aside to %s", old, exc, aside.name)
        for suffix in ("", "-wal", "-shm"):
            try:
                Path(str(old) + suffix).rename(str(aside) + suffix)
            except FileNotFoundError:
                pass
        return 0
    n = 0
    if rows:
        try:
            db.execute("BEGIN IMMEDIATE")
            base = db.execute("SELECT coalesce(max(seq), 0) FROM remote_queue").fetchone()[0]
            for i, (ref, row, tries, next_at, _) in enumerate(rows, start=1):
                n += db.execute("INSERT OR IGNORE INTO remote_queue(op, ref, row, tries, next_at, seq) "
                                "VALUES ('event', ?, ?, ?, ?, ?)",
                                (ref, row, tries, next_at, base + i)).rowcount
            db.execute("COMMIT")
        except BaseException:
            txn.rollback(db)
            raise
    for suffix in ("", "-wal", "-shm"):
        try:
            Path(str(old) + suffix).unlink()
        except FileNotFoundError:
            pass
    return n


def queue_rows(db: sqlite3.Connection, rows: Iterable[dict[str, Any]]) -> int:
    """Queue event rows (as stored locally) on ``db`` *inside the caller's transaction* (the one that stores the
    events, so both commit or neither does); a key already queued is kept once. Returns rows added."""
    rows = [{k: r.get(k) for k in EVENT_FIELDS} for r in rows]
    if not rows:
        return 0
    seq = db.execute("SELECT coalesce(max(seq), 0) FROM remote_queue").fetchone()[0]
    n = 0
    for i, r in enumerate(rows, start=1):
        n += db.execute("INSERT OR IGNORE INTO remote_queue(op, ref, row, seq) VALUES ('event', ?, ?, ?)",
                        (r["ref"], json.dumps(r, ensure_ascii=False), seq + i)).rowcount
    return n


def queue_forget(db: sqlite3.Connection, ref: str, when: str) -> None:
    """Queue the forgetting of ``ref`` for the server on ``db`` *inside the caller's transaction* (the one that
    deletes and tombstones it locally). The event's own queue row, if still there, is dropped (the server then never
    gets it); the forget is queued anyway, after everything queued before it, since a send whose answer was lost may
    have delivered the event already."""
    db.execute("DELETE FROM remote_queue WHERE op = 'event' AND ref = ?", (ref,))
    seq = db.execute("SELECT coalesce(max(seq), 0) FROM remote_queue").fetchone()[0]
    db.execute("INSERT OR REPLACE INTO remote_queue(op, ref, row, seq) VALUES ('forget', ?, ?, ?)",
               (ref, json.dumps({"ref": ref, "when": when}), seq + 1))


def enqueue(where: Where, rows: Iterable[dict[str, Any]]) -> int:
    """Queue event rows for the server in a transaction of their own (a write that stores events queues them with
    :func:`queue_rows` in its own transaction instead); a key already queued is kept once. Returns rows added."""
    rows = list(rows)
    if not rows:
        return 0
    with _queue(where) as db:
        try:
            db.execute("BEGIN IMMEDIATE")
            n = queue_rows(db, rows)
            db.execute("COMMIT")
        except BaseException:
            txn.rollback(db)
            raise
        return n


def pending(where: Where) -> int:
    """Rows waiting to be sent (not those the server refused: :func:`failed`)."""
    if isinstance(where, Path) and not (where / INDEX_FILE).exists() and not (where / QUEUE_FILE).exists():
        return 0
    with _queue(where) as db:
        return db.execute("SELECT count(*) FROM remote_queue WHERE failed IS NULL").fetchone()[0]


def failed(where: Where) -> list[dict[str, Any]]:
    """The rows the server refused (kept aside, never sent again on their own), in queue order: ``[{"op", "ref",
    "reason", "at"}]`` (``reason``: the server's one line, e.g. ``HTTP 400: …``; ``at``: epoch seconds)."""
    if isinstance(where, Path) and not (where / INDEX_FILE).exists():
        return []
    with _queue(where) as db:
        return [{"op": r[0], "ref": r[1], "reason": r[2], "at": r[3]} for r in db.execute(
            "SELECT op, ref, failed, failed_at FROM remote_queue WHERE failed IS NOT NULL ORDER BY seq")]


def retry_failed(where: Where) -> int:
    """Put the rows the server refused back in the queue (sent by the next push, in their old place); returns how
    many."""
    with _queue(where) as db:
        with txn.immediate(db):
            n = db.execute("UPDATE remote_queue SET failed = NULL, failed_at = NULL, tries = 0, next_at = 0 "
                           "WHERE failed IS NOT NULL").rowcount
        return n


refuses_rows = teamhttp.refuses_rows


def http_reason(exc: urllib.error.HTTPError) -> str:
    """``HTTP <code>: <the server's error line>`` (its JSON ``error``, else the body's first line), one line."""
    try:
        raw = exc.read()[:2000].decode("utf-8", "replace")
    except OSError:
        raw = ""
    try:
        msg = json.loads(raw).get("error") or raw
    except (ValueError, AttributeError):
        msg = raw
    msg = " ".join(str(msg).split())[:300]
    return f"HTTP {exc.code}: {msg}" if msg else f"HTTP {exc.code}"


class _Stop(Exception):
    """A send failed for a reason that is not about the rows (network, 5xx, token): stop this push. ``args``:
    ``(error line or None, delivery state or None)``."""


def push(where: Where, url: str, project: str, token: str, *, budget_s: float, batch: int = BATCH,
         now=time.time, due_only: bool = True, request_timeout_s: float = REQUEST_TIMEOUT_S,
         progress=None) -> dict[str, Any]:
    """Send queued rows to ``url`` (``http://host:port/v1``) for ``project`` until the queue is empty or ``budget_s``
    is spent (seconds); returns ``{"sent", "left", "failed", "error"}``: ``left`` rows wait for a later push,
    ``failed`` rows were refused by the server and are kept aside (:func:`failed`, :func:`retry_failed`), ``error`` is
    the last failure, one line, or ``None``. ``where``: the index connection or a root's ``.memdir`` directory.
    ``due_only`` (the pushes after a write) skips the rows still backed off after a failed send; ``False`` (``memdir
    push``, the user's "now") sends them too.

    A server that answers a batch with a 4xx about its rows (:func:`refuses_rows`: a malformed row, say) has the batch
    split in halves and sent again, down to single rows, so the rows it takes are delivered and each one it refuses is
    kept aside with the server's reason (was: the whole batch sent again forever). Network errors, timeouts, 5xx and
    4xx about the token or the route leave the rows queued, backed off 1, 2, 4 … 300 s. Never raises for network or
    server errors; no transaction is held while a request is under way.

    Each request waits at most ``request_timeout_s`` (and never past the budget). A push that cannot deliver says why
    (``kind``: auth, project, route, server or unreachable, and ``fix``, one line: :mod:`memdir.engine.delivery`), and
    the cause is kept in the index (``meta``) until a send succeeds, for ``memdir status`` and ``memdir doctor``; no
    token at all sends nothing. ``progress(sent, total)`` is called after each delivered request."""
    out: dict[str, Any] = {"sent": 0, "left": 0, "failed": 0, "error": None}
    if isinstance(where, Path) and not (where / INDEX_FILE).exists() and not (where / QUEUE_FILE).exists():
        return out
    deadline = time.monotonic() + budget_s

    def send(db: sqlite3.Connection, rows) -> None:
        """Deliver ``rows`` (one op) or raise: ``urllib.error.HTTPError`` for an answer about the rows, ``_Stop``."""
        left = deadline - time.monotonic()
        if left <= 0.01:
            raise _Stop(None, None)
        if rows[0][0] == "forget":
            what, body = "forget", rows[0][2].encode()
        else:
            # redacted again: a row queued by an older memdir may hold a key whose shape it did not know
            what, body = "events", json.dumps({"events": [cevents.outbound(json.loads(r[2])) for r in rows]}).encode()
        try:
            req = urllib.request.Request(teamhttp.endpoint(url, project, what), data=body, method="POST",
                                         headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}"})
            json.loads(teamhttp.read(req, max(0.05, min(left, request_timeout_s))) or b"{}")  # name lookup bounded too
        except urllib.error.HTTPError as exc:
            if refuses_rows(exc.code):
                raise
            _later(db, rows, now())
            why = http_reason(exc)
            raise _Stop(why, delivery.classify(exc.code, why, project=project)) from None
        except (OSError, ValueError, http.client.HTTPException) as exc:  # a malformed URL; refused, reset, timed
            # out; an answer that is not HTTP (BadStatusLine) or cut short (IncompleteRead); unreadable JSON
            if left < request_timeout_s and delivery.timed_out(exc):  # the budget ran out, not the server: no cause
                raise _Stop(delivery.budget_line(budget_s), None) from None
            _later(db, rows, now())
            why = f"{type(exc).__name__}: {exc}"
            raise _Stop(why, delivery.classify(None, why, project=project)) from None
        with txn.immediate(db):
            db.executemany("DELETE FROM remote_queue WHERE op = ? AND ref = ?", [(r[0], r[1]) for r in rows])
        out["sent"] += len(rows)
        delivery.record(db, None)
        if progress is not None:
            progress(out["sent"], total)

    def deliver(db: sqlite3.Connection, rows) -> None:
        """``send``, splitting a batch the server refuses until each refused row stands alone (then kept aside)."""
        todo = [rows]
        while todo:
            part = todo.pop()
            try:
                send(db, part)
            except urllib.error.HTTPError as exc:
                why = http_reason(exc)
                out["error"] = why
                if len(part) > 1:
                    todo += [part[len(part) // 2:], part[:len(part) // 2]]  # first half first
                    continue
                with txn.immediate(db):
                    db.execute("UPDATE remote_queue SET failed = ?, failed_at = ? WHERE op = ? AND ref = ?",
                               (why, now(), part[0][0], part[0][1]))
                log.warning("memdir: the team server refused %s %s (%s); kept aside: memdir push --retry-failed",
                            part[0][0], part[0][1], why)

    with _queue(where) as db:
        total = db.execute("SELECT count(*) FROM remote_queue WHERE failed IS NULL").fetchone()[0]
        state = delivery.token_state(token, project=project)
        if total and state:  # nothing could be delivered: said, not sent
            if delivery.record(db, state):
                log.warning("memdir: queued rows cannot be delivered to the team server: %s", delivery.line(state))
            else:
                log.debug("remote: not delivered: %s", delivery.line(state))
            out.update(error=state["reason"], kind=state["kind"], fix=state["fix"])
            total = 0
        while total:
            if deadline - time.monotonic() <= 0.01:
                break
            rows = db.execute("SELECT op, ref, row, tries FROM remote_queue WHERE failed IS NULL AND next_at <= ? "
                              "ORDER BY seq LIMIT ?", (now() if due_only else float("inf"), batch)).fetchall()
            if not rows:
                break
            # in queue order: a run of events goes in one request, a forget in one of its own
            op = rows[0][0]
            rows = rows[:1] if op == "forget" else rows[:next((i for i, r in enumerate(rows) if r[0] != op), len(rows))]
            try:
                deliver(db, rows)
            except _Stop as stop:
                if stop.args[0]:
                    out["error"] = stop.args[0]
                if stop.args[1]:
                    state = stop.args[1]
                    out.update(kind=state["kind"], fix=state["fix"])
                    if delivery.record(db, state):  # a new cause: said once, not at every write
                        log.warning("memdir: queued rows cannot be delivered to the team server: %s", delivery.line(state))
                    else:
                        log.debug("remote: not delivered: %s", delivery.line(state))
                break
        out["left"], out["failed"] = db.execute("SELECT coalesce(sum(failed IS NULL), 0), coalesce(sum(failed IS NOT NULL), 0) "
                                                "FROM remote_queue").fetchone()
        return out


def _later(db: sqlite3.Connection, rows, t: float) -> None:
    """Back off the rows of a failed send: 1, 2, 4 … s, at most :data:`BACKOFF_MAX_S`."""
    with txn.immediate(db):
        db.executemany("UPDATE remote_queue SET tries = tries + 1, next_at = ? WHERE op = ? AND ref = ?",
                       [(t + min(BACKOFF_MAX_S, 2.0 ** min(r[3], 16)), r[0], r[1]) for r in rows])


def settings(config, root_path: Path) -> tuple[str, str, str] | None:
    """``(url, project, token)`` from the ``remote.*`` settings, or ``None`` when ``remote.url`` is empty.
    The project defaults to the project directory's name; the token is read from the variable ``remote.token_env``,
    without the spaces and line ends around it (a token file's newline, a CRLF ``.env``)."""
    import os

    url = config.get("remote.url")
    if not url:
        return None
    return url, config.get("remote.project") or root_path.name, os.environ.get(config.get("remote.token_env") or "", "").strip()


class Recall:
    """A recall asked of the team server in a daemon thread (started at once); :meth:`result` waits for it until a
    deadline and returns the server's hits, or ``None`` when it did not answer in time or failed (``error`` says
    why). An abandoned request ends with its thread; it never holds up the process's exit."""

    def __init__(self, url: str, project: str, token: str, query: str, k: int, *, budget_s: float,
                 now: str | None = None) -> None:
        self.now = now  # the asker's time, sent so the server resolves dates in the query as the local path does
        self.deadline = time.monotonic() + budget_s
        self.hits: list[dict[str, Any]] | None = None
        self.error: str | None = None
        self.code: int | None = None  # the HTTP status of a failed answer
        self.project, self.has_token = project, bool(token)
        self.token_state = delivery.token_state(token, project=project)  # none, or one that cannot be sent: why
        self._thread = threading.Thread(target=self._ask, args=(url, project, token, query, k, budget_s), daemon=True,
                                        name="memdir-remote-recall")
        self._thread.start()

    def _ask(self, url: str, project: str, token: str, query: str, k: int, budget_s: float) -> None:
        # the query may be a prompt holding a key: the server is another machine (redacted here, off the caller's thread)
        if self.token_state:  # not sent: a broken header's error would quote the token (note_recall says why)
            self.error = self.token_state["reason"]
            return
        body = json.dumps({"query": cevents.redact_text(query), "k": k, **({"now": self.now} if self.now else {})}).encode()
        try:
            req = urllib.request.Request(teamhttp.endpoint(url, project, "recall"), data=body, method="POST",
                                         headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}"})
            got = json.loads(teamhttp.read(req, max(0.05, budget_s)) or b"{}")  # the proxy of the environment too
            hits = got.get("hits") if isinstance(got, dict) else None
            if not isinstance(hits, list):
                raise ValueError("the answer has no hits list")
            self.hits = [h for h in hits if isinstance(h, dict) and isinstance(h.get("ref"), str) and isinstance(h.get("text"), str)]
        except urllib.error.HTTPError as exc:
            self.error, self.code = http_reason(exc), exc.code
        except (OSError, ValueError, http.client.HTTPException) as exc:  # as push: never a traceback from the thread
            self.error = f"{type(exc).__name__}: {exc}"

    def result(self) -> list[dict[str, Any]] | None:
        self._thread.join(max(0.0, self.deadline - time.monotonic()))
        if self._thread.is_alive():
            self.error = self.error or "no answer within remote.recall_budget_ms"
            return None
        return self.hits


def note_recall(root, team: Recall, rows: list[dict[str, Any]] | None) -> None:
    """After a team recall: an answer clears the kept cause of failed contacts; a refusal of the token or the project
    (or a route that is not the API) is kept (:mod:`memdir.engine.delivery`) and said as a warning every time — a
    wrong token must never look like a team with nothing to say; a slow or absent server is logged at debug level
    (its budget is the documented cost)."""
    db = root.db if root is not None and root.exists() and root.db_path.exists() else None
    if rows is not None:
        if db is not None:
            delivery.record(db, None)
        return
    if team.token_state:
        state = team.token_state
    elif team.code in (401, 403, 404, 405):
        state = delivery.classify(team.code, team.error or "", project=team.project)
    else:
        log.debug("remote recall: %s (local hits only)", team.error)
        return
    if db is not None:
        delivery.record(db, state, via="recall")
    log.warning("memdir: the team server's hits are missing (local hits only): %s", delivery.line(state))


def ask(config, root_path: Path, query: str, k: int, *, now: str | None = None,
        until: float | None = None) -> Recall | None:
    """Start asking the team server for ``query``'s hits when ``remote.url`` is set and ``remote.recall_budget_ms``
    is positive; ``None`` otherwise. ``now`` (ISO time, the caller's clock) is sent with the query. ``until``
    (``time.monotonic()``): the end of a budget several asks share (the block's second, wider look waits only for
    what the first left), ``None`` when none is already under way."""
    got = settings(config, root_path)
    budget = float(config.get("remote.recall_budget_ms") or 0) / 1000
    if until is not None:
        budget = min(budget, until - time.monotonic())
    if got is None or budget <= 0 or not query.strip():
        return None
    url, project, token = got
    return Recall(url, project, token, query, k, budget_s=budget, now=now)


def fuse(local: list, remote_rows: list[dict[str, Any]], k: int, *, held=None) -> list:
    """The local :class:`memdir.types.Hit` list fused with the server's hits by reciprocal rank (:mod:`memdir.recall.rrf`,
    equal weights), each event counted once: the server's copies of events the local store holds (the asker's own,
    sent from this clone) are dropped *before* fusion, by their deterministic key (a hit of the local list, or one
    ``held(row) -> bool`` says the local store has: its key or its text), so they are ranked by the local list alone
    and never score in both lists; what is left (a teammate's events, the asker's from another machine) becomes hits of
    scope ``team``. Each hit's ``score`` is its fused score, ``reasons["rrf"]`` its ranks ``{"local"|"team": rank}``."""
    from dataclasses import replace

    from memdir.recall.rrf import fuse as rrf_fuse
    from memdir.timeutil import parse_ts
    from memdir.types import Hit

    by_ref: dict[str, Any] = {}
    for h in local:
        by_ref.setdefault(h.id, h)
        if h.key:
            by_ref.setdefault(h.key, h)
    team: dict[str, Any] = {}
    for r in remote_rows:
        if r["ref"] in by_ref or r["ref"] in team or (held is not None and held(r)):
            continue
        try:
            ts = parse_ts(r.get("ts")) if r.get("ts") else None
        except Exception:  # noqa: BLE001  (a malformed time: shown without one)
            ts = None
        span = r.get("span")
        team[r["ref"]] = Hit(id=r["ref"], key=r["ref"], kind=str(r.get("role") or r.get("kind") or "event"), scope="team",
                             score=float(r.get("score") or r.get("bm25") or 0.0), text=r["text"],
                             reasons={"team": {k: r[k] for k in ("bm25", "prior", "decay", "rehearsal", "subject", "date",
                                                                 "session_bonus") if r.get(k) is not None}},
                             summary=r.get("summary"), ts=ts, session=r.get("session"), handle=r.get("handle"),
                             span=tuple(span) if isinstance(span, list) and len(span) == 2 else None)
    if not team:
        return local
    fused = rrf_fuse({"local": [h.id for h in local], "team": list(team)})
    out = []
    for ref, score, ranks in fused[:k]:
        h = by_ref.get(ref) or team[ref]
        out.append(replace(h, score=score, reasons={**h.reasons, "rrf": ranks}))
    return out


def held_locally(store):
    """``held(row)`` for :func:`fuse`: whether ``store`` (the project's local index) holds the server row's event, by
    key or, when the server sent it, by text hash (any error: not held, the row is kept)."""
    def held(row: dict[str, Any]) -> bool:
        try:
            if store.has_ref(row["ref"]):
                return True
            sha = row.get("content_sha256")
            return bool(isinstance(sha, str) and sha and store.has_text(sha, "event"))
        except Exception:  # noqa: BLE001  (a store error never costs the recall its hits)
            return False
    return held


def send_rows(s: Stores, root: Root, rows: list[dict[str, Any]]) -> None:
    """Queue ``rows`` for the team server and send what the queue holds within ``remote.push_budget_ms``
    (memdir.engine.remote); a server that is down or slow leaves them queued, never fails the write."""
    got = settings(s.config, s.project_root)
    if root.remote:  # a PostgreSQL store: the events committed there, the queue is in the root's local file
        enqueue(root.db, rows)
    if got is None:  # a remote.url the settings refused (config.team_wanted): queued, sent once it is fixed
        return
    url, project, token = got
    adopt_legacy(root.db, root.derived)
    res = push(root.db, url, project, token, budget_s=s.config.get("remote.push_budget_ms") / 1000)
    if res["error"]:
        log.debug("remote: %d sent, %d queued (%s)", res["sent"], res["left"], res["error"])


_requeue_failed = retry_failed  # push_queue's flag of the same name shadows it there


def push_queue(s: Stores, *, retry_failed: bool = False, progress=None) -> dict[str, Any]:
    """Send the events queued for ``remote.url`` now, those still backed off after a failed send
    included: ``{"sent", "left", "failed", "error"}``; ``left`` rows wait for the next push, ``failed`` rows were
    refused by the server (a 4xx about the rows) and are kept aside with its reason (:func:`refused_rows`).
    ``retry_failed`` puts those back in the queue first (``retried``: how many). When rows cannot be delivered,
    ``kind`` and ``fix`` say why (:func:`push`). ``progress(sent, total)`` is called after each delivered request.
    Raises ``UsageError`` when ``remote.url`` is not set."""
    got = settings(s.config, s.project_root)
    if got is None:
        raise UsageError(refused_url_line(s.config) or
                         "remote.url is not set: set it to a team server (memdir serve --store …), e.g. http://host:8765/v1")
    url, project, token = got
    root = s.root("project")
    if not root.db_path.exists() and not (root.derived / QUEUE_FILE).exists():
        return {"sent": 0, "left": 0, "failed": 0, "error": None, **({"retried": 0} if retry_failed else {})}
    adopt_legacy(root.db, root.derived)
    retried = _requeue_failed(root.db) if retry_failed else None
    out = push(root.db, url, project, token, budget_s=s.config.get("remote.timeout_s"), due_only=False,
               progress=progress)
    return {**out, "retried": retried} if retry_failed else out


def set_sharing(s: Stores, share: bool) -> dict[str, Any]:
    """``POST /v1/{project}/sharing``: the token's person opens (or closes) their own events in the project to its
    members. Returns the server's ``{"project", "person", "share"}``; raises ``UsageError`` without ``remote.url``,
    ``MemdirError`` with the cause and fix (:mod:`memdir.engine.delivery`) when it fails."""
    from memdir.errors import MemdirError

    got = settings(s.config, s.project_root)
    if got is None:
        raise UsageError(refused_url_line(s.config) or
                         "remote.url is not set: set it to a team server (memdir serve --store …), e.g. http://host:8765/v1")
    url, project, token = got
    state = delivery.token_state(token, project=project)
    if state:
        raise MemdirError(delivery.line(state))
    req = urllib.request.Request(teamhttp.endpoint(url, project, "sharing"), data=json.dumps({"share": bool(share)}).encode(),
                                 method="POST", headers={"Content-Type": "application/json",
                                                         "Authorization": f"Bearer {token}"})
    try:
        return json.loads(teamhttp.read(req, REQUEST_TIMEOUT_S) or b"{}")
    except urllib.error.HTTPError as exc:
        raise MemdirError(delivery.line(delivery.classify(exc.code, http_reason(exc), project=project))) from None
    except (OSError, ValueError, http.client.HTTPException) as exc:
        raise MemdirError(delivery.line(delivery.classify(None, f"{type(exc).__name__}: {exc}", project=project))) from None


def refused_rows(s: Stores) -> list[dict[str, Any]]:
    """The queued rows the team server refused, kept aside: ``[{"op", "ref", "reason", "at"}]`` (see
    :func:`failed`); ``memdir push --retry-failed`` sends them again."""
    root = s.root("project")
    return failed(root.db) if root.db_path.exists() else []


def queue_state(s: Stores, root: Root) -> dict[str, Any]:
    """``{"queued", "failed", "reason", "undelivered", "fix"}`` of the project root's team-server queue (``reason``:
    the server's last refusal, one line, when rows were refused; ``undelivered``: why the last contact with the
    server failed and ``fix``, one line each, until one succeeds: :mod:`memdir.engine.delivery`)."""
    db = root.db
    queued, failed = db.execute("SELECT coalesce(sum(failed IS NULL), 0), coalesce(sum(failed IS NOT NULL), 0) "
                                "FROM remote_queue").fetchone()
    out: dict[str, Any] = {"queued": queued, "failed": failed}
    if failed:
        out["reason"] = db.execute("SELECT failed FROM remote_queue WHERE failed IS NOT NULL "
                                   "ORDER BY failed_at DESC, seq DESC LIMIT 1").fetchone()[0]
    state = delivery.read(db)
    if state:
        out.update(undelivered=state["reason"], cause=state["kind"], fix=state["fix"])
    return out
