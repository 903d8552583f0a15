"""Distillation: a cheap model turns finished sessions into curated notes (seed 000's auto-extract, seed 001's
LLM branch).

Flow for each session with captured turns not yet distilled (``memdir distill``, or a detached process the
host's Stop / SessionEnd / ``session.idle`` hook starts when ``distill.auto`` is on):

1. **Select.** Events of the project root whose key is not in ``distill_marks`` (migration ``m006``), grouped
   by session, in time order. A session waits until it has ``distill.min_turns`` (default 4, seed 000
   ``minTurns``) new turns — a turn is one user or assistant message; the count is the larger of the two.
2. **Prompt.** The turns, **redacted again** (:func:`memdir.capture.redact.redact`) and cut to
   ``distill.max_turn_chars`` each (tool summaries to 300), are packed into chunks of at most
   ``distill.max_input_chars``; each chunk is one model call, with the ids and summaries of the existing notes
   that match it (so the model can name one in ``supersedes``). The reply must be the JSON object of
   :data:`SCHEMA` (version 1), documented in docs/API.md.
3. **Check each item** (a failure rejects that item only, with a logged reason): an object; ``category`` in the
   configured categories; non-empty ``summary`` (≤ 200 chars) and ``body`` (≤ ``distill.max_body_chars``);
   ``tags``/``load_when`` lists of short strings; ``supersedes`` naming a live note; at most
   ``distill.max_items`` items per reply. Every string is **redacted again** before anything uses it.
4. **The three protections.** (a) A ``rules`` candidate, or one superseding a rule, never writes ``rules/``:
   it becomes a proposal (:mod:`memdir.notes.proposals`); so does one superseding a **pinned** note (seed 000:
   pinned notes are never superseded automatically), in its own category, ``reason`` saying so. (b) A candidate overlapping an existing note — token-set
   Jaccard ≥ ``distill.overlap_lexical`` (0.5) over content tokens of summary + body, or, when embeddings are on,
   cosine ≥ ``distill.overlap_vector`` (0.9) — is skipped, unless the model named that note in ``supersedes``,
   which then becomes an explicit supersede; never a near-duplicate. Earlier candidates of the same run count
   too. (c) Secrets are redacted before the model sees the text and again on what comes back.
5. **Write.** Notes get provenance in their frontmatter (``source: distill``, ``sessions``, ``model``,
   ``distill_run``), so ``memdir forget --source distill --session ID`` removes a batch. The chunk's events
   are then marked distilled, so a second run adds nothing. A reply that is not the JSON asked for (prose, JSON cut
   in half) and a failed call (timeout, HTTP error, missing CLI) are errors (``errors``; the CLI exits 1): the
   chunk's turns stay pending and are asked again next run (case C41), and the session's later chunks wait too.
   A model that cannot be reached at all (its program will not run, no connection, no answer within
   ``distill.timeout_s``: :class:`memdir.llm.LLMUnreachable`) ends the run there: the sessions after it are
   ``skipped`` ("not tried: …"), not each asked and waited for in turn.

Every model call is a row in ``distill_runs`` (session, day, provider, model, status, counts); at most
``distill.daily_cap`` calls per UTC day and project root. ``dry_run`` asks the model but writes nothing.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

from memdir.distill.overlap import Overlap
from memdir.distill.provenance import third_party
from memdir.distill.prompt import (
    build_prompt,
    check_item,
    chunk_turns,
    count_turns,
    parse_reply,
)
from memdir.errors import Interrupted, MemdirError, UsageError, session_arg
from memdir.stopsignals import STOPS, stopped
from memdir.timeutil import iso, parse_ts

log = logging.getLogger("memdir")

PROVIDER_NAMES = ("", "openai", "anthropic", "claude", "codex", "opencode")
# settings: the distill.* keys of memdir.config.SETTINGS

LOG_NAME = "distill.log"
MAX_LOG_BYTES = 1_000_000

# ---- selecting turns --------------------------------------------------------------------------------------
def pending_turns(root, *, session: str | None = None, since: float | None = None) -> dict[str, list[Any]]:
    """Events of ``root``'s store (SQLite or PostgreSQL: :meth:`memdir.store.protocol.Store.session_turns`) not yet
    distilled by this host (``distill_marks`` in the root's own SQLite file), ``{session: [rows (id, ref, role,
    text, session, ts, ts_epoch)]}`` in time order. Events without a session are never distilled (there is no
    conversation to read them in)."""
    marked = [r[0] for r in root.db.execute("SELECT ref FROM distill_marks")]
    out: dict[str, list[Any]] = {}
    for row in root.store.session_turns(session=session, since=since, exclude=marked):
        out.setdefault(row["session"], []).append(row)
    return out


# ---- reading the reply ------------------------------------------------------------------------------------


# ---- overlap ----------------------------------------------------------------------------------------------


# ---- the run ----------------------------------------------------------------------------------------------
def _note_ids(m: Any) -> dict[str, str]:
    """Live note ids → category, over both roots."""
    out: dict[str, str] = {}
    for root in m.stores.live():  # a global root this user cannot read is left out, as everywhere
        for r in root.store.live_notes():
            out.setdefault(r["ref"], r["category"])
    return out


def _calls_today(db, day: str) -> int:
    return int(db.execute("SELECT count(*) FROM distill_runs WHERE day = ?", (day,)).fetchone()[0])


def run(m: Any, *, session: str | None = None, since: Any = None, dry_run: bool = False,
        provider: Any = None) -> dict[str, Any]:
    """Distil the project root's sessions (all with new turns, one ``session``, or turns since ``since``).

    ``m`` is the open :class:`memdir.Memdir` (used through its public methods); ``provider`` overrides
    ``distill.provider`` (tests). Returns ``{"dry_run", "provider", "model", "calls", "sessions": [{session,
    turns, status, reason?}], "notes": [...], "proposals": [...], "superseded": [...], "skipped": [...],
    "rejected": [...], "errors": [...], "marked"}``. Raises ``UsageError`` when no provider is configured (and
    something is to be distilled), ``MemdirError`` when another distillation of this root is running."""
    from memdir.notes import proposals as props

    root, session = m.roots["project"], session_arg(session)
    if isinstance(since, str) and not since.strip():  # "" was read as no limit: every session's turns
        raise UsageError(f"since must be a time (ISO 8601 or epoch seconds; leave it out for no limit), not {since!r}")
    since_epoch = parse_ts(since).timestamp() if since is not None else None
    out: dict[str, Any] = {"dry_run": bool(dry_run), "provider": None, "model": None, "calls": 0, "sessions": [],
                           "notes": [], "proposals": [], "superseded": [], "skipped": [], "rejected": [], "errors": [],
                           "marked": 0}
    if not root.exists():
        return out
    lock = None
    if not dry_run:
        import filelock

        root.ensure()
        lock = filelock.FileLock(str(root.derived / "distill.lock"), timeout=0, mode=0o600)
        try:
            lock.acquire()
        except filelock.Timeout:
            raise MemdirError("another distillation of this project is running; try again when it ends") from None
    finished: list[str] = []  # sessions whose every chunk was asked and written
    try:
        _run_locked(m, root, props, out, session=session, since_epoch=since_epoch, dry_run=dry_run, provider=provider,
                    finished=finished)
    except STOPS as exc:  # Ctrl-C (or a SIGTERM the CLI turns into one): what was written stays
        if isinstance(exc, Interrupted) or not stopped(exc):
            raise
        n = len(finished)  # the session it was in is not among them: its chunk is asked again next run
        raise Interrupted(n, what=f"session{'' if n == 1 else 's'} distilled (notes written)", verb="distil") from None
    finally:
        if lock is not None:
            lock.release()
    return out


def _run_locked(m: Any, root: Any, props: Any, out: dict[str, Any], *, session: str | None, since_epoch: float | None,
                dry_run: bool, provider: Any, finished: list[str]) -> None:
    cfg = m.config
    min_turns, cap = int(cfg.get("distill.min_turns")), int(cfg.get("distill.daily_cap"))
    max_body = int(cfg.get("distill.max_body_chars"))
    max_items = int(cfg.get("distill.max_items"))
    categories = list(cfg.get("categories"))
    db = root.db  # host-local bookkeeping (distill_runs, distill_marks); the turns come from the store
    pending = pending_turns(root, session=session, since=since_epoch)
    if session is not None and not pending:
        out["sessions"].append({"session": session, "turns": 0, "status": "skipped", "reason": "no new turns"})
        return
    todo = []
    for sid, rows in pending.items():
        n = count_turns(rows)
        if n < min_turns:
            out["sessions"].append({"session": sid, "turns": n, "status": "skipped",
                                    "reason": f"{n} new turn{'' if n == 1 else 's'}, fewer than distill.min_turns ({min_turns})"})
        else:
            todo.append((sid, rows, n))
    if not todo:
        return
    if provider is None:
        from memdir.llm import get_provider

        provider = get_provider(cfg)
    out["provider"], out["model"] = provider.name, provider.model
    pending_props = []
    for r in m.stores.live():
        pending_props += props.list_all(r.path, status=None)
    overlap = Overlap(m, pending_props)
    unreachable = ""  # why the model could not be reached: the sessions after it are not tried (each would wait)
    for sid, rows, n in todo:
        if unreachable:
            out["sessions"].append({"session": sid, "turns": n, "status": "skipped",
                                    "reason": f"not tried: {unreachable}; its turns stay pending"})
            continue
        entry = {"session": sid, "turns": n, "status": "distilled", "calls": 0}
        out["sessions"].append(entry)
        for chunk_rows, transcript in chunk_turns(rows, int(cfg.get("distill.max_input_chars")),
                                                  int(cfg.get("distill.max_turn_chars"))):
            now = m.clock()
            day = now.strftime("%Y-%m-%d")
            if not dry_run and _calls_today(db, day) >= cap:
                entry.update(status="partial" if entry["calls"] else "skipped",
                             reason=f"daily cap reached (distill.daily_cap = {cap} calls)")
                log.info("distill: %s: daily cap of %d calls reached", sid, cap)
                break
            existing = [(h.id, h.summary or "") for h in m.recall(transcript[-4000:], k=20, kinds=["note"])]
            system, user = build_prompt(transcript, categories=categories, existing=existing, max_body=max_body, session=sid)
            out["calls"] += 1
            entry["calls"] += 1
            from memdir.llm import LLMError, LLMUnreachable

            try:
                reply = provider.complete(system, user)
            except LLMError as exc:
                from memdir.capture.redact import redact

                reason = redact(str(exc))  # an endpoint's error body can quote the key it was sent
                if isinstance(exc, LLMUnreachable):
                    unreachable = f"the model could not be reached for session {sid} ({reason})"
                out["errors"].append({"session": sid, "reason": reason})
                # info, not warning: the result carries it and the CLI says it in its one error line (the detached
                # worker's distill.log takes info)
                log.info("distill: %s: model call failed (turns stay pending): %s", sid, reason)
                if not dry_run:
                    _record(root, sid, day, now, provider, "error", reason, {}, [])
                entry.update(status="error", reason=reason)
                break
            items, why = parse_reply(reply)
            counts = {"notes": 0, "proposals": 0, "superseded": 0, "skipped": 0, "rejected": 0}
            if items is None:  # prose, JSON cut in half, another shape: nothing was read, so nothing is marked
                from memdir.capture.redact import redact

                reason = f"the model's reply is not the JSON asked for ({why}); its turns stay pending for the next run"
                out["errors"].append({"session": sid, "reason": reason})
                log.info("distill: %s: reply rejected (turns stay pending): %s: %.200r", sid, why, redact(reply or ""))
                if not dry_run:
                    _record(root, sid, day, now, provider, "invalid_reply", why, counts, [])
                entry.update(status="error", reason=reason)
                break
            run_id = None if dry_run else _record(root, sid, day, now, provider, "ok", "", counts, [])
            prov = {"source": "distill", "sessions": [sid], "model": provider.model, "distilled_at": iso(now)}
            if run_id is not None:
                prov["distill_run"] = run_id
            for i, item in enumerate(items):
                if i >= max_items:
                    _reject(out, counts, sid, i, f"more than distill.max_items ({max_items}) in one reply")
                    continue
                cand, why = check_item(item, categories=categories, max_body=max_body)
                if cand is None:
                    _reject(out, counts, sid, i, why)
                    continue
                if cand.pop("redacted"):
                    log.info("distill: %s item %d: a secret in the model's reply was redacted", sid, i)
                if third_party(cand, chunk_rows):  # an issue's or a page's instruction is not the developer's
                    _reject(out, counts, sid, i, third_party(cand, chunk_rows))
                    continue
                _decide(m, root, props, overlap, out, counts, sid, i, cand, prov, dry_run=dry_run)
            if not dry_run:
                _finish(root, run_id, sid, now, counts, chunk_rows)
                out["marked"] += len(chunk_rows)
        if entry["status"] == "distilled" and not entry["calls"]:
            entry["status"] = "skipped"
        if entry["status"] in ("distilled", "partial"):
            finished.append(sid)


def _reject(out: dict[str, Any], counts: dict[str, int], sid: str, i: int, why: str) -> None:
    out["rejected"].append({"session": sid, "item": i, "reason": why})
    counts["rejected"] += 1
    log.info("distill: %s item %d rejected: %s", sid, i, why)


def _decide(m: Any, root: Any, props: Any, overlap: Overlap, out: dict[str, Any], counts: dict[str, int], sid: str,
            i: int, cand: dict[str, Any], prov: dict[str, Any], *, dry_run: bool) -> None:
    live = _note_ids(m)
    sup = cand["supersedes"]
    if sup is not None and sup not in live:
        _reject(out, counts, sid, i, f"supersedes {sup[:80]!r}, which is not a live note")
        return
    if sup is not None:  # a line of ROOT.md: no one could accept a proposal replacing it (a person edits the page)
        from memdir.engine.curated import refuse_page_item

        if _refused(out, counts, sid, i, lambda: refuse_page_item(sup) or True) is None:
            return
    hit, sim, channel, vec = overlap.check(cand)
    brief = {"session": sid, "item": i, "category": cand["category"], "summary": cand["summary"]}
    if hit is not None and hit != sup:
        out["skipped"].append({**brief, "reason": f"overlaps {hit} ({channel} {sim})", "overlaps": hit,
                               "similarity": sim, "channel": channel})
        counts["skipped"] += 1
        log.info("distill: %s item %d skipped: overlaps %s (%s %.3f)", sid, i, hit, channel, sim)
        return
    to_rules = cand["category"] == "rules" or (sup is not None and live.get(sup) == "rules")
    # seed 000: a pinned note is never superseded automatically; the replacement waits for a person
    pinned_sup = sup is not None and bool(getattr(m.get(sup), "pinned", False))
    if to_rules or pinned_sup:
        why = {"reason": f"supersedes the pinned note {sup}"} if pinned_sup else {}
        category = "rules" if to_rules else cand["category"]
        if dry_run:  # nothing is written: only a proposal already on disk has an id anyone can accept
            got = _existing_proposal(root, props, cand["body"])
            if got is not None and got.get("status") != "pending":
                out["skipped"].append({**brief, "reason": f"already proposed as {got.get('id')} ({got.get('status')})",
                                       "overlaps": f"proposal {got.get('id')}", "similarity": 1.0, "channel": "exact"})
                counts["skipped"] += 1
                return
            out["proposals"].append({**brief, "id": got.get("id") if got else None, "supersedes": sup, "created": False,
                                     "exists": got is not None, **why})
        else:
            # the one locked, redacting path to a proposal (the same as MCP memory_propose)
            p = _refused(out, counts, sid, i, lambda: m.propose(cand["body"], category=category, summary=cand["summary"], tags=cand["tags"],
                          load_when=cand["load_when"], supersedes=sup, scope=root.scope, source="distill",
                          provenance={k: v for k, v in prov.items() if k != "source"}))
            if p is None:
                return
            if not p["created"]:
                out["skipped"].append({**brief, "reason": f"already proposed as {p.get('id')} ({p.get('status')})",
                                       "overlaps": f"proposal {p.get('id')}", "similarity": 1.0, "channel": "exact"})
                counts["skipped"] += 1
                return
            out["proposals"].append({**brief, "id": p["id"], "supersedes": sup, "created": True, "exists": True, **why})
        counts["proposals"] += 1
        overlap.add(f"proposal {out['proposals'][-1]['id'] or i}", cand, vec)
        log.info("distill: %s item %d: %s proposed (%s)", sid, i, "rule" if to_rules else f"replacement of pinned {sup}",
                 cand["summary"][:80])
        return
    if dry_run:
        out["notes"].append({**brief, "id": None, "supersedes": sup})
        counts["notes"] += 1
        overlap.add(f"candidate {i}", cand, vec)
        return
    note = _refused(out, counts, sid, i, lambda: m.remember(
        cand["body"], category=cand["category"], summary=cand["summary"], tags=cand["tags"],
        load_when=cand["load_when"], supersedes=sup, provenance=prov))
    if note is None:
        return
    if note.existed:
        out["skipped"].append({**brief, "reason": f"same text as {note.id}", "overlaps": note.id, "similarity": 1.0,
                               "channel": "exact"})
        counts["skipped"] += 1
        return
    rec = {**brief, "id": note.id, "supersedes": sup}
    out["notes"].append(rec)
    counts["notes"] += 1
    if sup:
        out["superseded"].append({"id": sup, "by": note.id})
        counts["superseded"] += 1
    overlap.add(note.id, cand, vec)
    log.info("distill: %s item %d: wrote %s%s", sid, i, note.id, f" (supersedes {sup})" if sup else "")


def _refused(out: dict[str, Any], counts: dict[str, int], sid: str, i: int, write: Any) -> Any:
    """``write()``'s result, or ``None`` when the store refused this one item (``UsageError``: a text it cannot
    keep, a supersede it does not allow): then the item is rejected with that reason and the run goes on. A
    refusal of one item never stops the others of the reply, nor the sessions after it."""
    try:
        return write()
    except UsageError as exc:
        _reject(out, counts, sid, i, f"refused by the store: {str(exc).splitlines()[0][:200] if str(exc) else 'refused'}")
        return None


def _existing_proposal(root: Any, props: Any, body: str) -> dict[str, Any] | None:
    """The proposal file :meth:`memdir.Memdir.propose` would find for ``body`` in ``root`` (same redaction, same
    id), or ``None`` when there is none yet."""
    from memdir.engine.curated import stored_text

    path = props.find(root.path, props.proposal_id(stored_text(body)))
    return props.read(path) if path is not None else None


def _record(root: Any, sid: str, day: str, now: datetime, provider: Any, status: str, detail: str,
            counts: dict[str, int], rows: list[Any]) -> int:
    """Insert one ``distill_runs`` row (and mark ``rows`` distilled); returns its id. ``detail`` (often a
    provider's error text, which can quote the key it was sent) is redacted before it is stored."""
    from memdir.capture.redact import redact

    detail = redact(detail or "")
    with root.locked(), root.tx() as db:
        cur = db.execute("INSERT INTO distill_runs(session, day, started_at, provider, model, status, detail, counts) "
                         "VALUES (?, ?, ?, ?, ?, ?, ?, ?)", (sid, day, iso(now), provider.name, provider.model, status,
                                                             detail[:500], json.dumps(counts)))
        run_id = int(cur.lastrowid)
        _mark(db, rows, sid, run_id, now)
    return run_id


def _finish(root: Any, run_id: int | None, sid: str, now: datetime, counts: dict[str, int], rows: list[Any]) -> None:
    with root.locked(), root.tx() as db:
        if run_id is not None:
            db.execute("UPDATE distill_runs SET counts = ? WHERE id = ?", (json.dumps(counts), run_id))
        _mark(db, rows, sid, run_id, now)


def _mark(db, rows: list[Any], sid: str, run_id: int | None, now: datetime) -> None:
    db.executemany("INSERT OR IGNORE INTO distill_marks(ref, session, run, at) VALUES (?, ?, ?, ?)",
                   [(r["ref"], sid, run_id, iso(now)) for r in rows])


# ---- forgetting a batch ----------------------------------------------------------------------------------
def batch_ids(m: Any, *, source: str = "distill", session: str | None = None) -> list[tuple[str, str]]:
    """``[(scope, note id)]`` of live or superseded notes whose frontmatter says ``source`` (and lists
    ``session`` in ``sessions`` when given)."""
    out = []
    for root in m.stores.live():
        for ref in sorted(root.store.note_refs()):
            try:
                _, meta = root.read_note(ref, root.path / (ref + ".md"))
            except (UsageError, OSError):
                continue
            if meta.get("source") != source:
                continue
            sessions = meta.get("sessions") or []
            sessions = [sessions] if isinstance(sessions, str) else sessions
            if session is None or session in [str(s) for s in sessions]:
                out.append((root.scope, ref))
    return out


# ---- the host trigger (detached) -------------------------------------------------------------------------
def log_path(home: Path) -> Path:
    return home / ".memdir" / LOG_NAME


def trigger(m: Any, session: str | None, *, home: str | os.PathLike | None = None) -> int | None:
    """Start ``python -m memdir.distill --session S`` in a new session (detached from the host: its own
    process group, stdin from /dev/null, stdout/stderr appended to ``<global root>/.memdir/distill.log``, which is
    rotated to ``distill.log.1`` past 1 MB) when
    ``distill.auto`` is on and a provider is set. Returns the child's pid, or ``None`` when nothing was
    started. Never waits for the child; raises nothing (a failure is logged at debug level)."""
    try:
        if not session or not m.config.get("distill.auto") or not m.config.get("distill.provider"):
            return None
        if os.environ.get("MEMDIR_DISTILLING") or m.roots["project"].read_only:  # C36: it could store nothing
            return None
        home_path = m.roots["global"].path
        logf = log_path(home_path)
        from memdir.roots import owner_only, private_derived  # 0700: what is in it is one person's
        private_derived(logf.parent)
        try:
            if logf.stat().st_size > MAX_LOG_BYTES:  # keep one previous log, never an unbounded one
                os.replace(logf, logf.with_name(LOG_NAME + ".1"))
        except OSError:
            pass
        argv = [sys.executable, "-m", "memdir.distill", "--session", str(session), "--dir", str(m.project_root),
                "--home", str(home_path), "--delay", str(float(m.config.get("distill.delay_s")))]
        env = {**os.environ, "MEMDIR_DISTILLING": "1"}
        kwargs: dict[str, Any] = {}
        if os.name == "nt":  # pragma: no cover
            kwargs["creationflags"] = getattr(subprocess, "DETACHED_PROCESS", 0) | getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0)
        else:
            kwargs["start_new_session"] = True
        owner_only(logf, create=True)  # the child's stderr names sessions and a model's error text
        with open(logf, "ab") as f:
            child = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=f, stderr=f, close_fds=True, env=env,
                                     cwd=str(m.project_root), **kwargs)
        log.debug("distill: started detached pid %d for session %s", child.pid, session)
        return child.pid
    except Exception as exc:  # noqa: BLE001 — the host must never notice
        log.debug("distill: could not start the detached distiller: %s", exc)
        return None


def forget_source(m: Any, source: str, *, session: str | None = None) -> dict[str, Any]:
    """Forget every note whose frontmatter says ``source`` (e.g. ``distill``), only those listing
    ``session`` in ``sessions`` when given, and reject the pending proposals of that batch (``m``: the facade).
    Returns ``{"forgotten": [ids], "proposals_rejected": [ids]}``. Raises ``UsageError`` for an empty source."""
    from memdir.notes import proposals

    if not isinstance(source, str) or not source.strip():
        raise UsageError("forget --source needs a source name, e.g. distill")
    gone, session = [], session_arg(session)
    for scope, ref in batch_ids(m, source=source.strip(), session=session):
        if m.forget(ref, scope=scope):
            gone.append(ref)
    rejected = []
    for p in m.proposals():
        sessions = p.get("sessions") or []
        sessions = [sessions] if isinstance(sessions, str) else sessions
        if p.get("source") == source and (session is None or session in [str(x) for x in sessions]):
            path = Path(p["path"])
            with m.stores.root(p["scope"]).locked():
                proposals.decide(path, "rejected", m.clock(), reason=f"forget --source {source}")
            rejected.append(p["id"])
    return {"forgotten": gone, "proposals_rejected": rejected}
