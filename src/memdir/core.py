"""The facade: :class:`Memdir` is what the CLI, the MCP server, host hooks and benchmarks call.

See ``docs/API.md`` for the contract. Nothing outside this module talks to the files or SQLite directly.
"""

from __future__ import annotations

import json
import math
import os
from datetime import datetime
from pathlib import Path
from typing import Any, Callable, Iterable

from memdir.lazylog import DEBUG, getLogger
from memdir.recall import glossary, rank
from memdir.inject import block as inject
from memdir.store.sqlite import journal
from memdir.notes import markdown as notes
from memdir.config import Config
from memdir.errors import MemdirError, NotFound, PathError, UsageError
from memdir.engine.root import Root
from memdir.stores import Stores
from memdir.roots import check_segment, global_root, project_root, split_id, PROJECT_DIRNAME
from memdir.timeutil import iso, now_utc, parse_ts
from memdir.recall.tokenize import query_tokens, tokenize
from memdir.types import Event, Hit, Note, Report

log = getLogger("memdir")  # imports logging only when a record can go somewhere

SCOPES = ("project", "global")
ROLES = ("user", "assistant", "tool", "system")
SETTLE_AFTER = 1000  # an import storing this many events checkpoints and truncates the WAL afterwards
#: bad lines of one JSONL import that each get a warning line (the rest are counted)
BAD_LINES_SHOWN = 3
MAX_EVENT_CHARS = 20_000  # stored length bound per event (case C8): head + tail kept, middle elided
TOOL_EVIDENCE = 0.4  # a tool output is shown in full when it holds this share of the best entry's query weight
#: the block's order weighs a tool output's score by this (what was said and decided outranks what a command printed
#: at equal match; a tool that asks the user is not discounted); recall's own order is unchanged. Chosen on
#: bench/session_qa.py, per prompt, answer in block.
#: Lexical (BM25 scores): 1.0 0.635, 0.8 0.673, 0.7 0.692, 0.6 0.712, 0.5 0.712. Fused scores (hybrid RRF, much
#: closer together): 1.0 0.673, 0.95 0.692, 0.9 0.750, 0.85 0.731, 0.8 0.712. Moving tools down a fixed number of
#: places instead was worse in both channels.
BLOCK_TOOL_PRIOR = 0.6
BLOCK_TOOL_PRIOR_FUSED = 0.9  # RRF-fused hits only: convex fusion (recall.fusion, multilingual models) scores spread
# like BM25's and keep BLOCK_TOOL_PRIOR (session-QA per prompt, hybrid e5 convex: 0.6 0.750, 0.9 0.731)
#: tools whose output is the user's own answer (a question put to the user): shown and weighed as the user's words
#: (Claude Code's AskUserQuestion is the one seen in bench/session_qa.py's transcripts)
USER_ANSWER_TOOLS = ("askuserquestion", "request_user_input", "question")


def _redact(text: str) -> str:
    from memdir.capture.redact import redact

    return redact(_clean(text))


def _clean(text: str) -> str:
    """``text`` with lone UTF-16 surrogates (JSON ``\\ud800`` escapes, broken decoders) turned into U+FFFD and
    valid surrogate pairs joined, so it can be written as UTF-8 (SQLite, Markdown) without raising."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def _redact_obj(obj: Any, depth: int = 0) -> Any:
    """``obj`` (event metadata: dicts, lists, scalars) with every string redacted; nesting beyond 20 levels is
    replaced by its redacted ``str``."""
    if isinstance(obj, str):
        return _redact(obj)
    if depth > 20:
        return _redact(str(obj))
    if isinstance(obj, dict):
        return {_redact(str(k)): _redact_obj(v, depth + 1) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_redact_obj(v, depth + 1) for v in obj]
    return obj if obj is None or isinstance(obj, (bool, int, float)) else _redact(str(obj))


def bound_text(text: str, limit: int = MAX_EVENT_CHARS) -> str:
    """Bound a stored text to ``limit`` chars: keep the first 70% and the last 30%, joined by a marker that
    says how many characters were elided (case C8's documented policy)."""
    if len(text) <= limit:
        return text
    head = int(limit * 0.7)
    tail = limit - head - 40
    return f"{text[:head]}\n[… {len(text) - head - tail} chars elided by memdir …]\n{text[-tail:]}"


class Memdir:
    """Both memory roots (project and global) behind one API. Create with :func:`memdir.open`."""

    def __init__(self, project_dir: str | os.PathLike | None = None, *, home: str | os.PathLike | None = None,
                 config: dict[str, Any] | None = None, clock: Callable[[], datetime] | None = None):
        self.project_root = project_root(project_dir)
        self.home = global_root(home)
        self.clock = clock or now_utc
        proj = self.project_root / PROJECT_DIRNAME
        self.config = Config(global_file=self.home / "config.toml", project_file=proj / "config.toml", overrides=config)
        cats = self.config.get("categories")
        if "store" in self.config.rejected:
            # falling back to the local index would put the team's writes where nobody else reads them
            from memdir.config import safe_url

            raw = self.config.rejected["store"]
            raise UsageError(f"store must be empty (the local index) or a postgresql:// URL, got "
                             f"{safe_url(raw) if isinstance(raw, str) else raw!r}; fix config.toml or MEMDIR_STORE")
        spec = self.config.get("store") or None
        self.roots = {
            # a postgresql:// store holds the project's index (shared by a team); the global root stays local
            "project": Root(proj, "project", categories=cats, clock=self.clock, store=spec, project=self.store_project(),
                            token=os.environ.get("MEMDIR_STORE_TOKEN") or None),
            "global": Root(self.home, "global", categories=cats, clock=self.clock),
        }
        #: what feature modules (memdir.engine.hybrid, memdir.engine.tiers) are given instead of this facade
        self.stores = Stores(self.roots, self.config, self.clock, lexical=self._lexical, hit=self._hit)
        self._warm = False
        if self.config.get("debug"):
            from memdir.debuglog import enable_debug_log  # imports logging: only when the debug log is on

            enable_debug_log(self.home)

    def keep_warm(self, on: bool = True, *, build: bool = False, start: bool = False) -> dict[str, Any]:
        """Say this process will answer many recalls (``memdir serve``, the MCP server and the warm hook listener
        do): with ``recall.memory_index = "auto"`` (the default) recall then holds its BM25 postings in memory —
        the same ranking, without FTS5 scoring each posting — built in a thread at the next recall (the SQL path
        answers until it is ready; ~0.1 ms per indexed row) and kept current with every write, this process's or
        another's (:mod:`memdir.store.sqlite.postings`). ``build=True`` builds them now, in this thread; ``on=False`` lets
        them go. ``start=True`` starts the build now in a thread (``memdir serve`` does at start, so its first
        hooks are not the ones that wait for it) and returns at once; recall answers from SQL until it is done, and
        the build steps aside while a call marked :func:`memdir.foreground.active` runs. Returns each root's
        figures (``rows``, ``postings``, ``array_mb``, ``build_s``…; ``{}`` for a root not held yet)."""
        self._warm = bool(on)
        out: dict[str, Any] = {}
        mode = self.config.get("recall.memory_index")
        for root in self._live_roots():
            if not on and mode != "on":  # lets them go (the memory comes back)
                root.store.hold_postings(0)
                continue
            # start: "auto" only ("on" builds in the first recall's own thread, as recall asks)
            begin = on and (mode != "off" if build else mode == "auto" and start)
            if begin:
                root.store.hold_postings(int(self.config.get("recall.memory_index_max_rows")), background=not build)
            mem = getattr(root.store, "mem", None)
            if mem is None:
                continue
            if begin:
                with mem.lock:
                    mem.refresh(background=not build)
            out[root.scope] = mem.stats()
        return out

    def store_project(self) -> str:
        """The project's name in a shared store (``remote.project``, else the project directory's name)."""
        return str(self.config.get("remote.project") or "").strip() or self.project_root.name

    # ---- lifecycle -------------------------------------------------------------------------------------
    def close(self) -> None:
        """Close both indexes (safe to call twice)."""
        for r in self.roots.values():
            r.close()

    def __enter__(self) -> "Memdir":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _root(self, scope: str) -> Root:
        if scope not in SCOPES:
            raise UsageError(f"unknown scope {scope!r}: use 'project' or 'global'")
        return self.roots[scope]

    def _live_roots(self, scope: str | None = None) -> list[Root]:
        if scope:
            self._root(scope)  # UsageError for an unknown scope
        return self.stores.live(scope)

    # ---- curated notes ---------------------------------------------------------------------------------
    def remember(self, text: str, *, category: str = "facts", summary: str | None = None, tags: Iterable[str] = (),
                 load_when: Iterable[str] = (), pinned: bool = False, supersedes: str | None = None,
                 scope: str = "project", kind: str | None = None, highlight: str | None = None,
                 provenance: dict[str, Any] | None = None) -> Note:
        """Store a curated note as ``<root>/<category>/<slug>.md`` and recompile the indexes.

        Secrets are redacted first. The same normalized text already in that root returns the existing note
        with ``existed=True`` and changes nothing (case C5). ``supersedes`` marks an older note (by id) as
        replaced: it keeps its file, gains ``superseded_by`` and drops out of recall (case C6).
        ``provenance``: extra frontmatter fields written as given after the standard ones (distillation writes
        ``source``, ``sessions``, ``model``, ``distilled_at``, ``distill_run``); standard fields cannot be
        overridden this way.

        Raises ``UsageError`` (empty text, unknown category or scope, unknown ``supersedes`` id) and
        ``PathError`` (a category or id that would leave the root).
        """
        if not isinstance(text, str) or not text.strip():
            raise UsageError("nothing to remember: the text is empty")
        root = self._root(scope)
        check_segment(category, "category")
        known = list(self.config.get("categories"))
        if category not in known and not (root.path / category).is_dir():
            raise UsageError(f"unknown category {category!r}: use one of {', '.join(known)} (or set `categories` in config.toml)")
        text = _redact(text.replace("\x00", "")).strip()
        if len(text.encode("utf-8")) > notes.MAX_NOTE_BYTES - 100_000:  # refused before any file is written
            raise UsageError(f"note too long ({len(text):,} characters): notes are read back up to {notes.MAX_NOTE_BYTES:,} "
                             "bytes; keep long material in a file and remember a pointer to it")
        summary = _redact(" ".join((summary or "").split())) or _summary_of(text)
        tags = tuple(dict.fromkeys(_redact(str(t)).strip() for t in tags if str(t).strip()))
        load_when = tuple(dict.fromkeys(_redact(str(t)).strip() for t in load_when if str(t).strip()))
        highlight = _redact(highlight).strip() if highlight else None
        sha = notes.content_hash(text)
        root.ensure()
        with root.locked():
            store = root.store  # opening syncs hand edits once; later writes by memdir keep the mirror current
            clean = root.gens()[0] == root.gens()[1]
            ref = store.live_note_with_sha(sha)  # a superseded copy does not count: re-stating it revives the text
            if ref is None:  # a near-duplicate: same words, other case/spacing/punctuation (issue 13 item 10)
                ref = _near_duplicate(store, text)
            if ref is not None:
                existing = self.get(ref, scope=scope)
                if isinstance(existing, Note):
                    log.debug("remember: same text as %s; nothing written", existing.id)
                    return _replace(existing, existed=True)
            old_root = None
            if supersedes:
                split_id(supersedes)
                old_root = next((r for r in (root, *self._live_roots()) if r.exists() and r.store.has_ref(supersedes, "note")),
                                None)
                if old_root is None:
                    raise UsageError(f"cannot supersede {supersedes!r}: no such note (see `memdir inspect`)")
            cat_dir = root.path / category
            from memdir.roots import safe_join

            safe_join(root.path, category)
            slug = notes.slugify(summary, exists=lambda s: s == "index" or (cat_dir / f"{s}.md").exists())
            note_id = f"{category}/{slug}"
            now = self.clock()
            meta: dict[str, Any] = {"id": note_id, "kind": kind or notes.kind_for(category), "summary": summary}
            if highlight:
                meta["highlight"] = highlight
            meta.update({"created": now, "updated": now, "load_when": list(load_when), "tags": list(tags), "pinned": bool(pinned)})
            if supersedes:
                meta["supersedes"] = supersedes
            for key, val in (provenance or {}).items():
                if isinstance(key, str) and key not in meta and key not in ("superseded_by", "id"):
                    meta[key] = _redact_obj(val)
            path = safe_join(root.path, category, slug + ".md")
            notes.atomic_write(path, notes.render(meta, text + "\n"))
            if supersedes and old_root is root:
                self._mark_superseded(root, supersedes, note_id, now)
            root.refresh(note_id)
            root.compile(categories=sorted({category, (supersedes or category).split("/")[0]}), was_clean=clean)
        if supersedes and old_root is not None and old_root is not root:
            # the other root's lock is taken only after this one is released: two writers superseding across the
            # roots in opposite directions can never wait on each other
            with old_root.locked():
                self._mark_superseded(old_root, supersedes, note_id, now, compile_=True)
        note = self.get(note_id, scope=scope)
        assert isinstance(note, Note)
        return note

    @staticmethod
    def _mark_superseded(root: Root, old_id: str, new_id: str, now: datetime, *, compile_: bool = False) -> None:
        """Write ``superseded_by`` into the old note's file and refresh it (caller holds ``root``'s lock)."""
        old_path = root.path / (old_id + ".md")
        old_clean = root.gens()[0] == root.gens()[1]
        notes.atomic_write(old_path, notes.update_fields(notes.read_text(old_path), {"superseded_by": new_id, "updated": now}))
        root.refresh(old_id)
        if compile_:
            root.compile(categories=[old_id.split("/")[0]], was_clean=old_clean)

    def _resolve(self, id: str, scope: str | None = None) -> str:
        """``id`` itself when some root holds that note id or event key; else the id/key whose short handle (the
        ``[handle kind date]`` of the ``<memory>`` block, :mod:`memdir.recall.handles`) is ``id``, project first."""
        from memdir.recall import handles

        if not handles.looks_like(id):
            return id
        roots = self._live_roots(scope)
        if any(r.store.has_ref(id) for r in roots):
            return id
        for r in roots:
            ref = r.store.resolve_handle(id)
            if ref is not None:
                return ref
        return id

    def get(self, id: str, *, scope: str | None = None) -> Note | Event | None:
        """The note (by id, project first) or event (by key) named ``id`` — or by its short handle — or ``None``."""
        if not isinstance(id, str):
            return None
        id = self._resolve(_clean(id).strip(), scope)
        for root in self._live_roots(scope):
            row = root.store.get_doc(id)
            if row is None:
                continue
            if row["kind"] == "event":
                return Event(key=row["ref"], role=row["role"], text=row["text"], session=row["session"],
                             ts=parse_ts(row["ts"]), scope=root.scope)
            try:
                note, _ = root.read_note(row["ref"], root.path / (row["ref"] + ".md"))
                return note
            except (UsageError, OSError):
                whole = root.read_broken_note(row["ref"], root.path / (row["ref"] + ".md"))  # broken frontmatter
                if whole is not None:
                    return whole
                continue
        return None

    def note_problems(self) -> list[dict[str, str]]:
        """Note files the last look at each open root could not read as they are (``{"kind": "unreadable", "scope",
        "path", "detail"}``): broken frontmatter (the note is indexed by its body alone until repaired with
        :meth:`edit`) or a file that is not UTF-8 text (left out). Opens nothing; the CLI prints them as one line."""
        return [p for r in self.roots.values() if r._store is not None for p in r.problems if p["kind"] == "unreadable"]

    def forget(self, id: str, *, scope: str | None = None) -> bool:
        """Delete a note (its file) or an event by id/key (or its short handle) and write a tombstone so re-import or backfill cannot
        bring it back. Only the first root holding the id is touched (project before global; ``scope`` picks one),
        matching what recall shows. Returns ``False`` when nothing has that id. Raises ``PathError`` for ids that would
        leave the root (``../x``, ``/etc/passwd``; case C14)."""
        if not isinstance(id, str) or not id.strip():
            raise UsageError("forget needs an id: see `memdir recall` or `memdir inspect` for ids")
        id = self._resolve(_clean(id).strip(), scope)
        is_event = any(r.store.has_ref(id, "event") for r in self._live_roots())
        is_note_id = not is_event and ("/" in id or "\\" in id or id.startswith((".", "~")) or id.endswith(".md"))
        if is_note_id:
            category, slug = split_id(id)
            id = f"{category}/{slug}"
        found = False
        now = iso(self.clock())
        for root in self._live_roots(scope):
            if found:
                break  # the same id in the other root is a different memory (project shadows global): keep it
            with root.locked():
                store = root.store
                row = store.get_doc(id)
                if is_note_id:
                    from memdir.roots import safe_join

                    path = safe_join(root.path, category, slug + ".md")
                    if row is None and not path.is_file():
                        continue
                    if path.is_file():
                        path.unlink()
                elif row is None:
                    continue
                with store.transaction() as tx:
                    sess = row["session"] if row is not None and row["kind"] == "event" else None
                    if not tx.delete_doc(id) and row is not None:  # a team store: another person's shared row
                        raise MemdirError(f"{id} is another person's memory, shared with the project: only they can "
                                          "forget it")
                    if sess:
                        tx.refresh_context([sess])  # the neighbours no longer carry its words
                    tx.tombstone(id, row["content_sha256"] if row else None, row["kind"] if row else "note", now)
                    self._on_forget(tx, id, kind=row["kind"] if row else "note")
                if is_note_id:
                    root.compile()
                store.settle(freed=True)  # the space comes back (incremental vacuum)
                found = True
        if found and is_note_id:
            self._unsupersede(id)
        return found

    def forget_matching(self, *, query: str | None = None, prefix: str | None = None, scope: str | None = None,
                        token: str | None = None, force: bool = False) -> dict[str, Any]:
        """Forget by text (``query``: substring, case/width/space-folded, notes and events) or by event-key
        ``prefix`` (``import:<source>`` undoes an import). Without ``token`` a preview ``{"count", "notes",
        "events", "samples", "token"}``; with the preview's token (or ``force``) deletes with tombstones. See
        :mod:`memdir.engine.forget`. Raises ``UsageError`` (neither or both given, a query under 2 chars, a token
        that no longer matches)."""
        from memdir.engine.forget import forget_matching

        return forget_matching(self, query=query, prefix=prefix, scope=scope, token=token, force=force)

    def recent(self, *, kinds: Iterable[str] | None = None, category: str | None = None, scope: str | None = None,
               limit: int = 20) -> list[Hit]:
        """The newest memories, newest first (seed 004's ``list``): ``kinds`` as in :meth:`recall` (``note``,
        ``event``, a note kind or an event role), ``category`` a note category; at most ``limit`` (1..500).
        Superseded notes are left out. Hits carry ``score`` 0 and empty reasons."""
        limit = max(1, min(int(limit), 500))
        kinds = tuple(kinds or ())
        cats = sorted({*self.config.get("categories"), *(p.name for r in self._live_roots(scope) if r.path.is_dir()
                                                        for p in r.path.iterdir() if p.is_dir() and not p.name.startswith("."))})
        known = ("note", "event", *ROLES, *sorted({notes.kind_for(c) for c in cats}))
        bad = [x for x in kinds if x not in known]
        if bad:  # a typo would read as "no memories yet"
            raise UsageError(f"unknown kind {bad[0]!r}: use one of {', '.join(known)}")
        if category is not None and category not in cats:
            raise UsageError(f"unknown category {category!r}: use one of {', '.join(cats)}")
        doc_kinds = tuple(x for x in kinds if x in ("note", "event"))
        sub = tuple(x for x in kinds if x not in ("note", "event"))
        rows = []
        for root in self._live_roots(scope):
            rows += [(r["ts_epoch"], root, r) for r in root.store.recent(doc_kinds=doc_kinds, sub_kinds=sub, category=category,
                                                                          limit=limit)]
        rows.sort(key=lambda x: -x[0])
        return [self._hit(root, r, 0.0, [], {}, r["note_kind"] if r["kind"] == "note" else r["role"])
                for _, root, r in rows[:limit]]

    def _unsupersede(self, gone_id: str) -> None:
        """Notes that ``gone_id`` had superseded become live again (their ``superseded_by`` is removed), so
        forgetting a replacement never leaves the older note hidden behind a dangling link."""
        for root in self._live_roots():
            with root.locked():
                refs = root.store.notes_superseded_by(gone_id)
                for ref in refs:
                    path = root.path / (ref + ".md")
                    try:
                        notes.atomic_write(path, notes.update_fields(notes.read_text(path), {"superseded_by": None}))
                    except (UsageError, OSError) as exc:
                        log.warning("memdir: could not restore %s after forgetting %s: %s", ref, gone_id, exc)
                        continue
                    root.refresh(ref)
                    log.debug("forget: %s is live again (its replacement %s was forgotten)", ref, gone_id)
                if refs:
                    root.compile()

    def _on_forget(self, store, ref: str, *, kind: str = "event") -> None:
        """Extension point: other tables keyed by ref (e.g. vectors) delete their rows here (``store``: the root's
        :class:`memdir.store.protocol.Store`, inside its transaction). The team server is told to forget events only: the
        queue never sends notes (they are shared through Git, and a clone on a PostgreSQL store mirrors its own
        Markdown), so a note's forget would ask the server for a row it cannot have — and leave a tombstone there."""
        store.delete_vectors(ref)
        project = self.roots["project"]
        if kind == "event" and self.config.get("remote.url") and not project.remote and store is project._store:
            from memdir.engine import remote

            remote.queue_forget(project.db, ref, iso(self.clock()))  # the team server forgets it too (queued)

    # ---- episodic events -------------------------------------------------------------------------------
    def import_events(self, events: Iterable[dict[str, Any]], *, scope: str = "project") -> dict[str, int]:
        """Bulk-store episodic events ``{key, role, text, session, ts}`` (``meta`` optional) in one transaction.

        Dedup by key and by SHA-256 of the normalized text; tombstoned keys/texts are skipped; text is redacted
        and bounded (:func:`bound_text`). ``ts`` may be a datetime (naive = UTC), ISO 8601 string or epoch s/ms;
        missing → now. Returns ``{"read", "stored", "duplicate", "skipped"}``; a malformed item is counted as
        skipped with a debug-log reason, never raised.
        """
        if events is None or isinstance(events, (str, bytes, dict)) or not hasattr(events, "__iter__"):
            raise UsageError("import_events needs an iterable of event dicts ({key, role, text, session, ts})")
        root = self._root(scope)
        root.ensure()
        counts = {"read": 0, "stored": 0, "duplicate": 0, "skipped": 0}
        now = self.clock()
        history: list[str] = []  # stored events older than an hour: their heat starts now (issue 13 item 13)
        with root.locked(), root.store.transaction() as st:
            queued: list[dict[str, Any]] = []  # sent to remote.url afterwards (memdir.engine.remote)
            tomb_refs, tomb_shas = st.tombstoned()
            pending: dict[int, str] = {}
            for ev in events:
                counts["read"] += 1
                row, why = self._event_row(ev, now)
                if row is None:
                    counts["skipped"] += 1
                    log.debug("import_events: skipped (%s): key %.80r", why, ev.get("key") if isinstance(ev, dict) else type(ev).__name__)
                    continue
                if row["ref"] in tomb_refs or row["content_sha256"] in tomb_shas:
                    counts["skipped"] += 1
                    log.debug("import_events: skipped (tombstoned): %s", row["ref"])
                    continue
                new_id = st.insert_event(row, pending=pending)
                if new_id:
                    counts["stored"] += 1
                    self._on_event_stored(st, row)
                    queued.append(row)
                    if row["ts_epoch"] < now.timestamp() - 3600:
                        history.append(row["ref"])
                else:
                    counts["duplicate"] += 1
                    log.debug("import_events: duplicate key or text: %s", row["ref"])
            st.flush_events(pending)  # FTS rows with each event's neighbouring turns
            if history:
                st.start_heat(history, now.timestamp())
            send = bool(queued) and scope == "project" and bool(self.config.get("remote.url"))
            if send and not root.remote:
                from memdir.engine import remote

                remote.queue_rows(root.db, queued)  # in the events' own transaction: both commit or neither
        if send:
            self._send_remote(root, queued)
        if counts["stored"] >= SETTLE_AFTER:
            root.store.settle()  # the WAL of a big import is written back and truncated
        return counts

    def capture(self, event: dict[str, Any], **kwargs: Any):
        """Gated capture of one host event (user prompt, assistant reply, tool-call summary); see
        :mod:`memdir.capture.gates` for the gates, keys and the returned ``CaptureResult``."""
        from memdir.capture.gates import capture

        result = capture(self, event, **kwargs)
        if not result.stored and result.reason != "duplicate":
            self._log_skip(result, event, kwargs)
        return result

    def _log_skip(self, result: Any, event: Any, fields: dict[str, Any]) -> None:
        """Record a capture that stored nothing in the bounded skip log (:mod:`memdir.store.sqlite.journal`), in a root that
        already exists; never raises (a hook must not fail over its own bookkeeping)."""
        try:
            ev = dict(event) if isinstance(event, dict) else {"text": event}
            ev.update({k: v for k, v in fields.items() if k != "scope"})
            root = self._root(fields.get("scope") or "project")
            if not root.exists():
                return
            try:
                when = parse_ts(ev["ts"]) if ev.get("ts") not in (None, "") else self.clock()
            except (UsageError, ValueError, TypeError, OverflowError):
                when = self.clock()
            text = result.text or (ev.get("tool") or ev.get("tool_name") if result.reason == "noisy_tool" else ev.get("text"))
            session = str(ev.get("session") or "").strip() or None
            journal.log_skip(root.db, when=when, reason=result.reason, role=result.role or ev.get("role"),
                             session=session, source=ev.get("source"), text=text)
        except Exception as exc:  # noqa: BLE001
            log.debug("capture skip not logged: %s", exc)

    def count_events(self, *, since: datetime, until: datetime | None = None, key_prefixes: Iterable[str] = (),
                     scope: str = "project") -> int:
        """Number of stored events with ``since <= ts < until`` (aware datetimes; ``until`` open when None) whose
        key starts with one of ``key_prefixes`` (any key when empty). Used by capture's daily cap."""
        root = self._root(scope)
        if not root.exists():
            return 0
        return root.store.count_events(since.timestamp(), until.timestamp() if until is not None else None,
                                       [p for p in key_prefixes if p])

    def _send_remote(self, root: Root, rows: list[dict[str, Any]]) -> None:
        """Queue ``rows`` for the team server and send what the queue holds within ``remote.push_budget_ms``
        (memdir.engine.remote); a server that is down or slow leaves them queued, never fails the write."""
        from memdir.engine import remote

        url, project, token = remote.settings(self.config, self.project_root)
        if root.remote:  # a PostgreSQL store: the events committed there, the queue is in the root's local file
            remote.enqueue(root.db, rows)
        remote.adopt_legacy(root.db, root.derived)
        res = remote.push(root.db, url, project, token, budget_s=self.config.get("remote.push_budget_ms") / 1000)
        if res["error"]:
            log.debug("remote: %d sent, %d queued (%s)", res["sent"], res["left"], res["error"])

    def push(self, *, retry_failed: bool = False) -> dict[str, Any]:
        """Send the events queued for ``remote.url`` (issue 14) now, those still backed off after a failed send
        included: ``{"sent", "left", "failed", "error"}``; ``left`` rows wait for the next push, ``failed`` rows were
        refused by the server (a 4xx about the rows) and are kept aside with its reason (:meth:`remote_failed`).
        ``retry_failed`` puts those back in the queue first (``retried``: how many). Raises ``UsageError`` when
        ``remote.url`` is not set."""
        from memdir.engine import remote

        got = remote.settings(self.config, self.project_root)
        if got is None:
            raise UsageError("remote.url is not set: set it to a team server (memdir serve --store …), e.g. http://host:8765/v1")
        url, project, token = got
        root = self._root("project")
        if not root.db_path.exists() and not (root.derived / remote.QUEUE_FILE).exists():
            return {"sent": 0, "left": 0, "failed": 0, "error": None, **({"retried": 0} if retry_failed else {})}
        remote.adopt_legacy(root.db, root.derived)
        retried = remote.retry_failed(root.db) if retry_failed else None
        out = remote.push(root.db, url, project, token, budget_s=self.config.get("remote.timeout_s"), due_only=False)
        return {**out, "retried": retried} if retry_failed else out

    def remote_failed(self) -> list[dict[str, Any]]:
        """The queued rows the team server refused, kept aside: ``[{"op", "ref", "reason", "at"}]`` (see
        :func:`memdir.engine.remote.failed`); ``memdir push --retry-failed`` sends them again."""
        from memdir.engine import remote

        root = self._root("project")
        return remote.failed(root.db) if root.db_path.exists() else []

    def _on_event_stored(self, store, row: dict[str, Any]) -> None:
        """Extension point (e.g. embeddings mark the new row pending); ``store`` is the root's Store, in its transaction."""

    def _event_row(self, ev: Any, now: datetime) -> tuple[dict[str, Any] | None, str]:
        if not isinstance(ev, dict):
            return None, "not an object"
        text = ev.get("text")
        if not isinstance(text, str) or not text.strip():
            return None, "empty text"
        role = str(ev.get("role") or "user").strip().lower()
        if role not in ROLES:
            return None, f"unknown role {role!r}"
        try:
            ts = parse_ts(ev.get("ts")) if ev.get("ts") not in (None, "") else now
        except UsageError as exc:
            return None, str(exc)
        text = bound_text(_redact(text.replace("\x00", "")).strip())
        sha = notes.content_hash(text)
        key = ev.get("key")
        key = _clean(str(key)).strip() if key not in (None, "") else f"import:{ev.get('source') or 'jsonl'}:{sha[:16]}"
        session = _clean(str(ev.get("session"))) if ev.get("session") not in (None, "") else None
        meta = ev.get("meta")
        return {
            "kind": "event", "ref": key[:500], "content_sha256": sha, "role": role,
            "session": _clean(str(session)) if session not in (None, "") else None, "ts": iso(ts), "ts_epoch": ts.timestamp(),
            "text": text, "meta": json.dumps(_redact_obj(meta), ensure_ascii=False, default=str) if meta else None,
        }, ""

    # ---- recall ----------------------------------------------------------------------------------------
    def recall(self, query: str, *, k: int | None = None, scope: str | None = None, kinds: Iterable[str] | None = None,
               rehearse: bool = False) -> list[Hit]:
        """The ``k`` best memories for ``query``, best first.

        BM25 (FTS5) over the OR of the query's tokens — a document matching any term is a candidate, so a query
        never comes back empty because one term is missing — × scope prior × decay × rehearsal boost (see
        :mod:`memdir.recall.rank`). Superseded notes and forgotten items never appear. Project wins over global for
        the same note id. ``kinds`` filters by ``"note"``, ``"event"``, a note kind or an event role.
        ``rehearse=True`` counts the hits as rehearsed (tools/CLI do; benchmarks do not).
        Never raises on query text; an empty or punctuation-only query returns ``[]``.
        """
        k = int(k or self.config.get("recall.k"))
        if k <= 0 or not isinstance(query, str):
            return []
        self._resync()
        return self._recall(query, k=k, scope=scope, kinds=kinds, rehearse=rehearse)

    def _resync(self) -> None:
        """Mirror notes edited or deleted on disk since this process last looked (case C20)."""
        for root in self._live_roots():
            try:
                root.resync()
            except MemdirError as exc:  # a busy store: answer from the index as it is
                log.debug("resync skipped: %s", exc)

    def _recall(self, query: str, *, k: int, scope: str | None, kinds: Iterable[str] | None, rehearse: bool) -> list[Hit]:
        tokens = query_tokens(query, repeats=True)
        if not tokens:
            return []
        team = None
        if scope in (None, "project") and not kinds and self.config.get("remote.url"):
            from memdir.engine import remote  # the team server's hits, asked while the local search runs (memdir.engine.remote)

            team = remote.ask(self.config, self.project_root, query, k, now=iso(self.clock()))
        want = k
        reranking = bool(self.config.get("recall.rerank"))
        if reranking:  # a wider first stage for the cross-encoder (memdir.engine.rerank)
            want = max(k, int(self.config.get("recall.rerank_top")))
        if self.config.get("recall.channel") != "lexical":  # vector / hybrid: RRF fusion (memdir.engine.hybrid)
            from memdir.engine import hybrid as vectors

            hits = vectors.recall_fused(self.stores, query, tokens, k=want, scope=scope, kinds=tuple(kinds) if kinds else None)[0]
        else:
            hits = self._lexical(tokens, k=want, scope=scope, kinds=tuple(kinds) if kinds else None, query=query)
        if reranking:
            from memdir.engine.rerank import rerank

            hits = rerank(self, query, hits, k)
        if team is not None:
            rows = team.result()  # waits at most what is left of remote.recall_budget_ms
            if rows:
                from memdir.engine.remote import fuse

                hits = fuse(hits, rows, k)
            elif team.error:
                log.debug("remote recall: %s (local hits only)", team.error)
        if rehearse and hits:
            self._rehearse(hits)
        return hits

    def _lexical(self, tokens: list[str], *, k: int, scope: str | None, kinds: tuple[str, ...] | None,
                 query: str = "", unigrams: bool = True) -> list[Hit]:
        cfg = self.config
        weights = (cfg.get("recall.weight_tags"), cfg.get("recall.weight_title"), cfg.get("recall.weight_body"),
                   cfg.get("recall.weight_context"))
        limit = max(cfg.get("recall.candidates"), k * 3)
        doc_kinds = tuple(x for x in (kinds or ()) if x in ("note", "event")) or None
        sub_kinds = set(x for x in (kinds or ()) if x not in ("note", "event"))
        # added at reduced weights (memdir.recall.glossary.query_terms): the characters of the query's Han runs (赛跑 meets
        # 跑步) and the other language's words for its glossary words; Chinese closed-class words left out and
        # half-function bigrams weighed down. The Han changes apply to lexical recall alone: beside a fused vector
        # channel (``unigrams=False``) the model does that matching (MADial zh hybrid e5 R@3 0.551 -> 0.507 with the
        # unigrams, 0.551 -> 0.531 with the closed-class words and half-function bigrams)
        tokens, bridged = glossary.query_terms(
            query, tokens, bridge_weight=float(cfg.get("recall.bridge_weight")),
            unigram_weight=float(cfg.get("recall.cjk_unigram_weight")) if unigrams else 0.0,
            function_weight=float(cfg.get("recall.cjk_function_bigram_weight")) if unigrams else 1.0,
            stop_words=unigrams)
        mem = cfg.get("recall.memory_index")
        hold = mem == "on" or (mem == "auto" and self._warm)
        roots = self._live_roots(scope)
        groups = []
        for root in roots:
            if hold:  # a server builds them in a thread (the SQL path answers meanwhile); "on" builds them now
                root.store.hold_postings(int(cfg.get("recall.memory_index_max_rows")), background=mem != "on")
            groups.append((cfg.get(f"recall.scope_prior_{root.scope}"),
                           root.store.candidates(tokens, weights=weights, limit=limit, kinds=doc_kinds,
                                                 term_weights=bridged or None), sub_kinds))
        # the one ranking code (memdir.recall.rank.rank_candidates): the team server ranks its rows with it too
        scored = [(s, ts, roots[g], info) for s, ts, g, info in rank.rank_candidates(groups, query=query, cfg=cfg,
                                                                                      now=self.clock())]
        top: list[tuple[float, Root, Any]] = []
        seen: set[str] = set()
        for s, _, root, info in scored:
            if info[0]["ref"] in seen:  # project wins: it is scored with prior 1.0 and so comes first on a tie
                continue
            seen.add(info[0]["ref"])
            top.append((s, root, info))
            if len(top) >= k:
                break
        full: dict[tuple[str, int], Any] = {}
        for root in {id(r): r for _, r, _ in top}.values():  # whole rows for the hits only
            for i, r in root.store.hit_rows({info[0]["id"]: info[0]["span"] for _, rt, info in top if rt is root},
                                            terms=tokens).items():
                full[(root.scope, i)] = r
        hits: list[Hit] = []
        for s, root, (row, prior, d, b, kind, f) in top:
            whole = full.get((root.scope, row["id"]))
            if whole is None:  # deleted between the two reads
                continue
            hits.append(self._hit(root, whole, s, tokens, {"bm25": round(row["bm25"], 4), "prior": prior,
                                                           "decay": round(d, 4), "rehearsal": round(b, 4), **f}, kind,
                                  mask=row.get("mask")))
        if log.isEnabledFor(DEBUG):
            for h in hits:
                log.debug("recall %r -> %s %.4f %s", _redact(" ".join(tokens)[:200]), h.id, h.score,
                          {k: v for k, v in h.reasons.items() if k not in ("terms", "fields")})
        return hits

    def _hit(self, root: Root, row, score: float, tokens: list[str], factors: dict[str, float], kind: str,
             mask: int | None = None) -> Hit:
        # ``mask``: the query terms this row matched in the index (bit i = tokens[i]); only those are looked for
        qset = set(tokens) if mask is None else {t for i, t in enumerate(tokens) if i >= 62 or mask >> i & 1}
        fields: dict[str, list[str]] = {}
        held = _row_get(row, "fields")  # from the postings held in memory: which terms each column holds
        if qset and held is not None:
            fields = {f: sorted(qset & held[f]) for f in ("tags", "title", "body")}
            fields = {f: v for f, v in fields.items() if v}
        elif qset:
            tags = json.loads(row["tags"] or "[]") + json.loads(row["load_when"] or "[]")
            fields = {
                "tags": sorted(qset & set(tokenize(" ".join(tags)))) if tags else [],
                "title": sorted(qset & set(tokenize(" ".join(x for x in (row["summary"], row["highlight"]) if x)))),
                "body": sorted(qset & set(tokenize(_matched_text(row)))),
            }
            fields = {f: v for f, v in fields.items() if v}
        terms = [t for t in dict.fromkeys(tokens) if any(t in v for v in fields.values())]
        reasons = {"terms": terms, "fields": fields, "scope": root.scope, **factors}
        ts = parse_ts(row["ts"])
        return Hit(id=row["ref"], key=row["ref"], kind=kind, scope=root.scope, score=score, text=row["text"],
                   reasons=reasons, summary=row["summary"], ts=ts, pinned=bool(row["pinned"]), category=row["category"],
                   session=row["session"], handle=_row_get(row, "handle"), span=_row_get(row, "span"))

    def _rehearse(self, hits: list[Hit]) -> None:
        when = iso(self.clock())
        for root in self._live_roots():
            refs = [h.id for h in hits if h.scope == root.scope]
            if refs:
                try:
                    with root.store.transaction() as st:
                        st.bump_rehearsal(refs, when)
                except Exception as exc:  # a busy store must not fail a recall
                    log.debug("rehearsal not recorded: %s", exc)

    # ---- the <memory> block ----------------------------------------------------------------------------
    def rules(self) -> list[Note]:
        """Live notes of the ``rules`` category: global first, then project (seed 000: global rules are always
        resident and cannot be overridden; project rules are appended)."""
        out: list[Note] = []
        for root in (self.roots["global"], self.roots["project"]):
            if not root.exists():
                continue
            for r in sorted(root.store.live_notes("rules"), key=lambda r: r["ref"]):
                out.append(Note(id=r["ref"], category="rules", kind=r["note_kind"], summary=r["summary"] or "",
                                text=r["text"], scope=root.scope, pinned=bool(r["pinned"])))
        return out

    def outline(self) -> list[str]:
        """The registry in one line per category and scope: ``project decisions/ (3): newest summary; …``."""
        return self._outline()

    def _outline(self, skip: tuple[str, ...] = ()) -> list[str]:
        lines = []
        for root in (self.roots["project"], self.roots["global"]):
            if not root.exists():
                continue
            rows = root.store.outline()
            for r in rows:
                if r["category"] in skip:
                    continue
                lines.append(inject.truncate(f"- {root.scope} {r['category']}/ ({r['n']}): {r['s'] or ''}", 160))
            n_events = root.store.count("event")
            if n_events:
                lines.append(f"- {root.scope} episodic: {n_events} captured turns (use memory_recall to search)")
        return lines

    def context(self, prompt: str = "", *, max_chars: int | None = None, max_entries: int | None = None,
                reinforce: bool = True, sections: Iterable[str] = ("rules", "outline", "hits")) -> str:
        """The ``<memory>`` block for ``prompt`` (see :mod:`memdir.inject.block`): rules always, the outline always,
        the best memories up to ``max_entries`` (default 4) within ``max_chars`` (default 1,200) characters, tags
        included, each under a compact ``[handle kind date]`` header. A matched past question brings the reply that
        answered it; the prompt itself (a stored copy of it) never comes back as a memory. ``None`` means the
        configured default; ``0`` gives ``""``; a negative value raises ``UsageError`` (case C19). Entries actually
        injected have their rehearsal counter bumped when ``reinforce``. ``sections`` limits the block to some of
        ``"rules"``, ``"outline"``, ``"hits"`` (hooks send rules and outline once per session, hits per prompt).
        Returns ``""`` when there is nothing at all to show."""
        max_chars = self._limit(max_chars, "max_chars")
        max_entries = self._limit(max_entries, "max_entries")
        if max_chars == 0 or max_entries == 0:
            return ""
        sections = set(sections)
        self._resync()
        # the rules' texts only when the block shows them (a prompt's hook asks for hits alone: reading every rule
        # note's text per prompt only to leave rules out of the hits cost ~1 ms at 300 notes); a hit is a rule when
        # it is a live note of the rules category, which is what rules() lists
        rules = self.rules() if "rules" in sections else []
        prompt = prompt if isinstance(prompt, str) else ""
        hits = [h for h in self._recall(prompt, k=max(8, max_entries * 3), scope=None, kinds=None, rehearse=False)
                if not (h.category == "rules" and h.scope in ("project", "global"))] if prompt.strip() and "hits" in sections else []
        weights = self._block_weights(prompt) if hits else {}
        entries = self._entries(prompt, _block_order(hits), weights)
        block = inject.build(
            rules=[(r.id, r.summary if len(r.text) > 200 else r.text) for r in rules] if "rules" in sections else [],
            # the rules section already shows every rule: the outline does not repeat them
            outline=self._outline(skip=("rules",) if rules and "rules" in sections else ()) if "outline" in sections
            else [], entries=[e for e, _ in entries], weights=weights,
            max_chars=max_chars, max_entries=max_entries,
        )
        if reinforce and entries and block:
            shown = [scope_ref for e, scope_ref in entries if f"[{e.handle}" in block]
            if shown:
                from types import SimpleNamespace

                self._rehearse([SimpleNamespace(scope=sc, id=ref) for sc, ref in shown])
        return block

    def _limit(self, value: Any, name: str) -> int:
        if value is None:
            return int(self.config.get(f"inject.{name}"))
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
            raise UsageError(f"{name} must be a whole number of 0 or more, not {value!r}")
        if value < 0:
            raise UsageError(f"{name} must be 0 or more (0 gives an empty block), not {value}")
        return int(value)

    def _block_weights(self, prompt: str) -> dict[str, float]:
        """What the block looks for in its entries: the idf of each query token, and of each token the glossary
        bridges to (:func:`memdir.recall.glossary.bridge`) times its weight, so the shown window of an English memory for
        a Chinese question reaches the bridged words."""
        tokens = query_tokens(prompt)
        bridged = glossary.bridge(prompt, tokens, float(self.config.get("recall.bridge_weight")))
        idf = self._idf(tokens + list(bridged))
        return {t: w * bridged.get(t, 1.0) for t, w in idf.items()}

    def _idf(self, tokens: list[str]) -> dict[str, float]:
        """Lucene idf of each query token in the project root (else the global root); 0 for unknown tokens."""
        from memdir.recall.bm25 import idf_lucene

        for root in self._live_roots():
            n, df = root.store.doc_freqs(tokens)
            if n:
                return {t: idf_lucene(n, c) for t, c in df.items()}
        return {}

    def _entries(self, prompt: str, hits: list[Hit], weights: dict[str, float]) -> list[tuple[inject.Entry, tuple[str, str]]]:
        """Block entries for ``hits`` (best first), with the ``(scope, ref)`` each shows. A user turn is replaced by the
        reply that answered it (led by the question, unless it is the prompt itself); a user turn that is the prompt
        and has no reply is dropped (case C24)."""
        now = self.clock()
        ptoks = set(tokenize(prompt))
        out: list[tuple[inject.Entry, tuple[str, str]]] = []
        for h in hits:
            if h.kind == "user":
                same = _near_same(ptoks, prompt, h.text)
                reply = self._reply(h, weights)
                if reply is None:
                    if not same:
                        out.append((self._entry(h, now), (h.scope, h.id)))
                    continue
                lead = "" if same else 're: "' + inject.one_line(h.text, 90) + '"'
                out.append((self._entry(reply, now, lead=lead), (h.scope, reply.key)))
                continue
            out.append((self._entry(h, now), (h.scope, h.id)))
        # a tool call is shown in full only when it is the evidence: its matched text holds nearly as much of the
        # query's weight as the best entry's; otherwise one line (what was run and the first output line)
        cover = [self._cover(e, weights) for e, _ in out]
        top = max(cover, default=0.0)
        for (e, _), c in zip(out, cover):
            if e.kind == "tool" and not e.dump and c < TOOL_EVIDENCE * top and _tool_name(e.lead) not in USER_ANSWER_TOOLS:
                e.brief = True
                if e.lead:
                    e.text, e.lead, e.span = e.lead + " " + e.text.lstrip(), "", None
        return out

    @staticmethod
    def _cover(e: inject.Entry, weights: dict[str, float]) -> float:
        text = e.text[e.span[0]:e.span[1]] if e.span else e.text[:3000]
        return sum(weights.get(t, 0.0) for t in set(tokenize(e.lead + " " + text)))

    @staticmethod
    def _entry(h: Any, now: datetime, *, lead: str = "") -> inject.Entry:
        ts = h.ts
        date = "" if ts is None else (ts.strftime("%m-%d") if ts.year == now.year else ts.strftime("%Y-%m-%d"))
        kind = h.kind
        text = h.text
        span = getattr(h, "span", None)
        dump = False
        if kind == "tool" and " → " in text and not lead:
            # "<tool>: <argument> → <output>": the call as a one-line lead, the output as the text to focus in
            call, _, output = text.partition(" → ")
            dump = call.split(":", 1)[0].strip().casefold() in inject.FILE_DUMP_TOOLS
            # an output that says nothing ("completed", "(no output)", "Plan updated"): the call is the content
            if output.strip() and not dump and not inject.trivial_output(output):
                cut = len(call) + 3
                lead = inject.one_line(call, 80) + " →"
                text = output
                span = (max(0, span[0] - cut), max(0, span[1] - cut)) if span else None
        elif kind == "tool" and not lead and _tool_name(text) in _edit_tools() and "\n" in text.strip():
            # "Edit: <file> (-2 +3 lines)" then the changed lines: which file stays in view however the lines are cut
            call, _, rest = text.strip().partition("\n")
            lead, text = inject.one_line(call, 100), rest
            span = (max(0, span[0] - len(call) - 1), max(0, span[1] - len(call) - 1)) if span else None
        return inject.Entry(id=h.key, handle=h.handle or h.key, kind=kind, date=date, text=text,
                            span=span, lead=lead, brief=dump, dump=dump)

    def _reply(self, h: Hit, weights: dict[str, float]) -> Event | None:
        """The assistant turn that answered the user turn ``h``: among the assistant turns after it in its session,
        up to the next user turn (at most 80 events), the one holding most of the query's weight (the last on a tie)."""
        if not h.session:
            return None
        root = self.roots.get(h.scope)
        if root is None or not root.exists():
            return None
        rows = root.store.events_after(h.id, h.session, 80, until_role="user")
        best, best_s = None, -1.0
        for r in rows:
            if r["role"] == "user":
                break
            if r["role"] != "assistant":
                continue
            sc = sum(weights.get(t, 0.0) for t in set(tokenize(r["text"][:3000])))
            if sc >= best_s:
                best, best_s = r, sc
        if best is None:
            return None
        from types import SimpleNamespace

        return SimpleNamespace(key=best["ref"], kind="assistant", text=best["text"], ts=parse_ts(best["ts"]),
                               handle=best["handle"], span=None, scope=h.scope)

    # ---- inspection --------------------------------------------------------------------------------------
    def inspect(self) -> Report:
        """Counts and consistency problems: unreadable files, notes missing from ``index.md``, dangling
        ``supersedes``/``superseded_by``, broken auto markers, files symlinked out of the root."""
        problems: list[dict[str, str]] = []
        all_notes: list[Note] = []
        counts: dict[str, Any] = {}
        for root in self._live_roots():
            store = root.store
            root.sync()
            problems += root.problems
            ids = store.note_refs()
            got = store.counts()
            c: dict[str, Any] = {"notes": len(ids), **{k: got[k] for k in ("events", "superseded", "tombstones", "categories", "roles")},
                                 "path": str(root.path)}
            counts[root.scope] = c
            reported = {p["path"] for p in root.problems}
            for nid in sorted(ids):
                try:
                    note, meta = root.read_note(nid, root.path / (nid + ".md"))
                    odd = notes.field_problems(meta)
                    if odd:  # read, but part of what the file says was not taken
                        problems.append(root._problem("fields", note.path, f"{nid}: " + "; ".join(odd)))
                except (UsageError, OSError) as exc:
                    if str(root.path / (nid + ".md")) not in reported:
                        problems.append(root._problem("unreadable", root.path / (nid + ".md"), str(exc)))
                    whole = root.read_broken_note(nid, root.path / (nid + ".md"))
                    if whole is not None:
                        all_notes.append(whole)
                    continue
                all_notes.append(note)
                for field, target in (("supersedes", note.supersedes), ("superseded_by", note.superseded_by)):
                    if target and target not in ids and not any(r.store.has_ref(target, "note") for r in self._live_roots() if r is not root):
                        problems.append(root._problem("dangling_" + field, note.path, f"{nid} {field} {target!r}, which does not exist"))
            from memdir.notes.compile import find_blocks

            for cat in sorted({n.split("/")[0] for n in ids}):
                idx = root.path / cat / "index.md"
                text = idx.read_text(encoding="utf-8", errors="replace") if idx.exists() else ""
                _, marker_problems = find_blocks(text)
                if marker_problems:  # the compiler leaves such a file alone: reindex cannot repair it, the markers can
                    problems += [root._problem("markers", idx, p) for p in marker_problems]
                    continue
                for nid in sorted(n for n in ids if n.startswith(cat + "/")):
                    if f"({nid.split('/', 1)[1]}.md)" not in text:
                        problems.append(root._problem("index_missing_file", idx, f"index.md does not list {nid}; run `memdir reindex`"))
            root_md = root.path / "ROOT.md"
            if root_md.exists():
                _, marker_problems = find_blocks(root_md.read_text(encoding="utf-8", errors="replace"))
                problems += [root._problem("markers", root_md, p) for p in marker_problems]
        return Report(counts=counts, problems=problems, notes=all_notes)

    def status(self) -> dict[str, Any]:
        """Counts and paths per root, plus the index size in bytes."""
        out: dict[str, Any] = {"project_root": str(self.project_root)}
        for scope, root in self.roots.items():
            if not root.exists():
                out[scope] = {"path": str(root.path), "exists": False}
                continue
            got, info = root.store.counts(), root.store.describe()
            out[scope] = {
                "path": str(root.path), "exists": True,
                "notes": got["notes"], "events": got["events"], "tombstones": got["tombstones"],
                "index_bytes": info["bytes"], "schema_version": info["schema_version"],
                "unreadable_notes": sum(p["kind"] == "unreadable" for p in root.problems),
            }
            aside = sorted(p.name for p in root.derived.glob("index.sqlite3.corrupt-*") if not p.name.endswith(("-wal", "-shm")))
            if aside:  # an index SQLite could not read was set aside: its events are not in this one
                out[scope]["set_aside"] = aside
            if info["engine"] != "sqlite":
                out[scope]["store"] = {"engine": info["engine"], "project": info.get("project")}
            if scope == "project" and root.db_path.exists():
                q = self._remote_queue(root)
                if q["queued"] or q["failed"] or self.config.get("remote.url"):
                    out[scope]["remote_queue"] = q
        from memdir.engine import hybrid as vectors

        vectors.status_extra(self.stores, out)  # embedding provider, tiers and vector counts per root
        return out

    # ---- embeddings and tiers (memdir.engine.hybrid, memdir.engine.tiers) -------------------------------------------
    def explain(self, query: str, *, k: int | None = None, scope: str | None = None, kinds: Iterable[str] | None = None) -> dict[str, Any]:
        """Recall with the latency split (embed, lexical, vector, fuse; ms) and each hit's channel ranks; see
        :func:`memdir.engine.hybrid.explain`. Does not rehearse."""
        from memdir.engine import hybrid as vectors

        return vectors.explain(self.stores, query, k=k, scope=scope, kinds=kinds)

    def backfill(self, *, limit: int | None = None, progress: Callable[[int], None] | None = None) -> dict[str, Any]:
        """Embed every pending memory (new, failed, edited, or from another model); see :func:`memdir.engine.hybrid.backfill`.
        Raises ``memdir.embed.EmbedError`` when no provider is configured or it fails to load."""
        from memdir.engine import hybrid as vectors

        return vectors.backfill(self.stores, limit=limit, progress=progress)

    def sweep(self) -> dict[str, dict[str, int]]:
        """Recompute heat tiers (hot/warm/cold/archive), writing only changed rows; see :mod:`memdir.engine.tiers`."""
        from memdir.engine import tiers

        return tiers.sweep(self.stores)

    def prune(self, days: float, token: str | None = None, *, force: bool = False) -> dict[str, Any]:
        """Preview (no token) or delete (with the preview's token) cold, unpinned, low-importance memories idle
        for ``days`` days; see :func:`memdir.engine.tiers.prune`. ``force=True`` computes and applies the token in one
        step (scripts; still only cold unpinned events). Raises ``UsageError`` for a wrong or expired token."""
        from memdir.engine import tiers

        return tiers.prune(self.stores, days, token, force=force)

    def _remote_queue(self, root: Root) -> dict[str, Any]:
        """``{"queued", "failed", "reason"}`` of the project root's team-server queue (``reason``: the server's last
        refusal, one line, when rows were refused)."""
        db = root.db
        queued, failed = db.execute("SELECT coalesce(sum(failed IS NULL), 0), coalesce(sum(failed IS NOT NULL), 0) "
                                    "FROM remote_queue").fetchone()
        out: dict[str, Any] = {"queued": queued, "failed": failed}
        if failed:
            out["reason"] = db.execute("SELECT failed FROM remote_queue WHERE failed IS NOT NULL "
                                       "ORDER BY failed_at DESC, seq DESC LIMIT 1").fetchone()[0]
        return out

    def doctor(self, *, repair: bool = True) -> list[dict[str, str]]:
        """Health checks with remedies (provider call, index integrity, Markdown/index consistency, pending
        vectors); see :func:`memdir.engine.hybrid.doctor`. ``repair=False`` reports what ``repair=True`` (the default,
        as the CLI runs it) would fix and writes nothing."""
        from memdir.engine import hybrid as vectors

        checks = vectors.doctor(self.stores, inspect=self.inspect, repair=repair)
        spec = self.config.get("store")
        if spec:  # a team store (issue 14): connection, schema, row-level security, token, pgvector
            from memdir.store.postgres.store import doctor as store_doctor

            checks += store_doctor(spec, project=self.store_project(), token=os.environ.get("MEMDIR_STORE_TOKEN"),
                                   hnsw_threshold=int(self.config.get("recall.pg_hnsw_threshold")))
        root = self.roots["project"]
        if root.exists() and root.db_path.exists():
            q = self._remote_queue(root)
            if q["failed"]:
                checks.append({"check": "remote queue", "ok": "warn",
                               "detail": f"{q['failed']} queued row(s) refused by the team server, kept aside "
                                         f"({q['queued']} waiting); last: {q['reason']}",
                               "remedy": "fix what the server says, then `memdir push --retry-failed`"})
            elif q["queued"] or self.config.get("remote.url"):
                checks.append({"check": "remote queue", "ok": "ok", "detail": f"{q['queued']} row(s) waiting, none refused",
                               "remedy": ""})
        return checks

    def reindex(self) -> dict[str, int]:
        """Rebuild every full-text row (notes, events, passages, neighbour context) from the stored texts, then
        the note mirror from the Markdown, and recompile the indexes: the repair ``memdir doctor``
        names for an index that disagrees with its documents. Events, tombstones and rehearsal counters are
        kept. Returns ``{scope: notes indexed}``."""
        out = {}
        for root in self._live_roots():
            with root.locked():
                store = root.store
                with store.transaction() as tx:
                    tx.rebuild_fts()  # first: a damaged contentless index refuses the exact deletes below
                    tx.delete_notes()
                root.sync()
                root.compile()
                store.settle(freed=True)
                out[root.scope] = store.count("note")
        return out

    # ---- viewer: edit, pin, the skip and injection logs (memdir.store.sqlite.journal) -----------------------------------
    def _note_root(self, id: str, scope: str | None) -> tuple[Root, str]:
        if isinstance(id, str) and "/" not in id:
            id = self._resolve(id.strip(), scope)  # a short handle names the note as its id does
        category, slug = split_id(id)
        nid = f"{category}/{slug}"
        for root in self._live_roots(scope):
            if (root.path / category / f"{slug}.md").is_file():
                return root, nid
        raise NotFound(f"no note has the id {nid!r}; see `memdir inspect` for ids")

    def note_source(self, id: str, *, scope: str | None = None) -> str:
        """The note file's text (frontmatter + body) as it is on disk. Raises ``NotFound``, ``PathError``."""
        root, nid = self._note_root(id, scope)
        return notes.read_text(root.path / (nid + ".md"))

    def edit(self, id: str, text: str, *, scope: str | None = None) -> Note:
        """Replace a note's file with ``text`` (frontmatter + body) after validating it
        (:func:`memdir.notes.markdown.check_edit`): a bad edit raises ``UsageError`` with every reason and writes nothing.
        ``supersedes``/``superseded_by`` cannot be changed here (use ``remember(..., supersedes=)``). Secrets are
        redacted, ``updated`` is set to now, the index and ``index.md``/``ROOT.md`` are updated."""
        root, nid = self._note_root(id, scope)
        path = root.path / (nid + ".md")
        meta, body = notes.check_edit(text, note_id=nid)
        try:
            old_meta, _, _ = notes.split(notes.read_text(path))
        except UsageError:
            # the file's own frontmatter is broken (a hand edit): an edit is how it gets repaired, so it is not
            # compared; the supersede links it may have held are what the new text says
            old_meta = meta
        for k in ("supersedes", "superseded_by"):
            if (meta.get(k) or None) != (old_meta.get(k) or None):
                raise UsageError(f"edit refused: {k} cannot be changed by an edit (it was {old_meta.get(k)!r}); "
                                 "use supersede, or forget the newer note")
        meta = {k: (_redact(v) if isinstance(v, str) else
                    [_redact(str(x)) for x in v] if isinstance(v, list) else v) for k, v in meta.items()}
        meta = {"id": nid, **{k: v for k, v in meta.items() if k != "id"}}
        meta["updated"] = self.clock()
        body = _redact(body.replace("\x00", "")).strip() + "\n"
        with root.locked():
            clean = root.gens()[0] == root.gens()[1]
            notes.atomic_write(path, notes.render(meta, body))
            root.refresh(nid)
            root.compile(categories=[nid.split("/")[0]], was_clean=clean)
        note = self.get(nid, scope=root.scope)
        assert isinstance(note, Note)
        return note

    def pin(self, id: str, pinned: bool = True, *, scope: str | None = None) -> Note:
        """Set (or clear) a note's ``pinned`` flag: a pinned note never decays. Raises ``NotFound``, ``PathError``."""
        root, nid = self._note_root(id, scope)
        path = root.path / (nid + ".md")
        with root.locked():
            clean = root.gens()[0] == root.gens()[1]
            try:
                raw = notes.update_fields(notes.read_text(path), {"pinned": bool(pinned), "updated": self.clock()})
            except UsageError as exc:
                raise UsageError(f"cannot pin {nid}: {path} is unreadable ({exc}); repair it first with "
                                 f"`memdir edit {nid}`") from None
            notes.atomic_write(path, raw)
            root.refresh(nid)
            root.compile(categories=[nid.split("/")[0]], was_clean=clean)
        note = self.get(nid, scope=root.scope)
        assert isinstance(note, Note)
        return note

    def record_injection(self, block: str, *, prompt: str = "", host: str | None = None, event: str | None = None,
                         session: str | None = None) -> int | None:
        """Log a ``<memory>`` block handed to a host (time, host, hook event, session, prompt SHA-256, the block,
        its hit ids) in the project root, else the global root, when one exists. Returns the log row id, or
        ``None`` when nothing was logged; never raises (hooks call it)."""
        try:
            if not block:
                return None
            root = next((r for r in (self.roots["project"], self.roots["global"]) if r.exists()), None)
            if root is None:
                return None
            others = tuple(r.store for r in self._live_roots() if r is not root)
            return journal.log_injection(root.db, index=root.store, when=self.clock(), block=block, prompt=prompt or "", host=host,
                                         event=event, session=session, others=others)
        except Exception as exc:  # noqa: BLE001
            log.debug("injection not logged: %s", exc)
            return None

    def injections(self, *, limit: int = 50, id: int | None = None, scope: str | None = None) -> list[dict[str, Any]]:
        """Logged ``<memory>`` blocks, newest first: ``[{"id", "scope", "ts", "prompt_sha256", "host", "event",
        "session", "block", "hit_ids"}]``; ``id`` (with ``scope``) picks one."""
        out = []
        for root in self._live_roots(scope):
            out += [{**r, "scope": root.scope} for r in journal.injections(root.db, limit=limit, id=id)]
        return sorted(out, key=lambda r: (r["ts"], r["id"]), reverse=True)[:limit]

    def capture_skips(self, *, limit: int = 200, session: str | None = None) -> list[dict[str, Any]]:
        """Captures that stored nothing, newest first: ``[{"id", "scope", "ts", "reason", "role", "session",
        "source", "preview"}]`` (bounded log; duplicates are not logged)."""
        out = []
        for root in self._live_roots():
            out += [{**r, "scope": root.scope} for r in journal.skips(root.db, limit=limit, session=session)]
        return sorted(out, key=lambda r: (r["ts"], r["id"]), reverse=True)[:limit]

    def sessions(self, *, limit: int = 200) -> list[dict[str, Any]]:
        """Captured sessions of both roots, newest first: ``[{"scope", "session", "first", "last", "turns", "roles",
        "source", "cwd"}]``."""
        out = []
        for root in self._live_roots():
            out += [{**r, "scope": root.scope} for r in root.store.sessions(limit=limit)]
        return sorted(out, key=lambda r: r["last_epoch"], reverse=True)[:limit]

    def session_events(self, session: str | None, *, scope: str | None = None, limit: int = 1000) -> list[dict[str, Any]]:
        """One session's events in time order: ``[{"key", "scope", "role", "text", "ts", "meta"}]`` (text as stored,
        secrets already ``[redacted:kind]``)."""
        out = []
        for root in self._live_roots(scope):
            out += [{**r, "scope": root.scope} for r in root.store.session_events(session, limit=limit)]
        return sorted(out, key=lambda r: r["ts"])[:limit]

    # ---- distillation and rule proposals (memdir.distill.flow, memdir.notes.proposals) -------------------------------
    def distill(self, *, session: str | None = None, since: Any = None, dry_run: bool = False,
                provider: Any = None) -> dict[str, Any]:
        """Turn captured sessions into curated notes with a model; see :func:`memdir.distill.flow.run` for the flow,
        the returned dict and the three protections. ``session``: one session id; ``since``: only turns at or
        after this time (any :func:`memdir.timeutil.parse_ts` form); neither: every session with new turns.
        ``dry_run``: ask the model, write nothing. Raises ``UsageError`` (no ``distill.provider``),
        ``MemdirError`` (another distillation of this project is running)."""
        from memdir.distill import flow as distill

        return distill.run(self, session=session, since=since, dry_run=dry_run, provider=provider)

    def propose(self, text: str, *, category: str = "rules", summary: str | None = None, tags: Iterable[str] = (),
                load_when: Iterable[str] = (), supersedes: str | None = None, scope: str = "project",
                source: str = "mcp", provenance: dict[str, Any] | None = None) -> dict[str, Any]:
        """Record a rule a model suggested as a pending proposal instead of writing ``rules/`` (seed 000: iron
        rules are written by people). Text, summary and tags are redacted. Returns the proposal dict with
        ``created`` (False when the same text was proposed before). Raises ``UsageError`` for empty text."""
        from memdir.notes import proposals

        if not isinstance(text, str) or not text.strip():
            raise UsageError("nothing to propose: the text is empty")
        text = _redact(text.replace("\x00", "")).strip()
        root = self._root(scope)
        root.ensure()
        with root.locked():
            p, created = proposals.create(
                root.path, text=text, summary=_redact(" ".join((summary or "").split())) or _summary_of(text),
                category=category, tags=[_redact(str(t)).strip() for t in tags if str(t).strip()],
                load_when=[_redact(str(t)).strip() for t in load_when if str(t).strip()], supersedes=supersedes,
                source=source, now=self.clock(), provenance=_redact_obj(provenance or {}))
        return {**p, "scope": scope, "created": created}

    def proposals(self, *, status: str | None = "pending") -> list[dict[str, Any]]:
        """Rule proposals of both roots (project first), oldest first: ``[{id, status, category, summary, text,
        tags, load_when, supersedes?, source, sessions?, model?, proposed, scope, path}]``; ``status=None``
        includes accepted and rejected ones."""
        from memdir.notes import proposals

        return [{**p, "scope": r.scope} for r in self._live_roots() for p in proposals.list_all(r.path, status=status)]

    def _proposal_path(self, pid: str) -> tuple[Root, Path]:
        from memdir.notes import proposals

        for r in self._live_roots():
            path = proposals.find(r.path, pid)
            if path is not None:
                return r, path
        raise NotFound(f"no proposal {pid!r}: see `memdir proposals`")

    def accept_proposal(self, pid: str) -> Note:
        """Write a pending proposal as a ``rules`` note (a person decided) and mark it accepted. Raises
        ``NotFound`` (no such proposal), ``UsageError`` (already decided, malformed id)."""
        from memdir.notes import proposals

        root, path = self._proposal_path(pid)
        p = proposals.read(path) or {}
        if p.get("status") != "pending":
            raise UsageError(f"proposal {pid} is already {p.get('status')}")
        prov = {"source": p.get("source") or "proposal", "proposal": p.get("id")}
        for key in ("sessions", "model"):
            if p.get(key):
                prov[key] = p[key]
        sup = p.get("supersedes") if isinstance(p.get("supersedes"), str) else None
        if sup and self.get(sup) is None:
            sup = None
        note = self.remember(p.get("text") or "", category=p.get("category") or "rules", summary=p.get("summary"),
                             tags=p.get("tags") or (), load_when=p.get("load_when") or (), supersedes=sup,
                             scope=root.scope, provenance=prov)
        with root.locked():
            proposals.decide(path, "accepted", self.clock(), note=note.id)
        return note

    def reject_proposal(self, pid: str) -> dict[str, Any]:
        """Mark a pending proposal rejected (its record stays, so the same rule is not proposed again).
        Raises ``NotFound`` / ``UsageError`` like :meth:`accept_proposal`."""
        from memdir.notes import proposals

        root, path = self._proposal_path(pid)
        p = proposals.read(path) or {}
        if p.get("status") != "pending":
            raise UsageError(f"proposal {pid} is already {p.get('status')}")
        with root.locked():
            return {**proposals.decide(path, "rejected", self.clock()), "scope": root.scope}

    def forget_source(self, source: str, *, session: str | None = None) -> dict[str, Any]:
        """Forget every note whose frontmatter says ``source`` (e.g. ``distill``), only those listing
        ``session`` in ``sessions`` when given, and reject the pending proposals of that batch. Returns
        ``{"forgotten": [ids], "proposals_rejected": [ids]}``."""
        from memdir.distill import flow as distill
        from memdir.notes import proposals

        if not isinstance(source, str) or not source.strip():
            raise UsageError("forget --source needs a source name, e.g. distill")
        gone = []
        for scope, ref in distill.batch_ids(self, source=source.strip(), session=session):
            if self.forget(ref, scope=scope):
                gone.append(ref)
        rejected = []
        for p in self.proposals():
            sessions = p.get("sessions") or []
            sessions = [sessions] if isinstance(sessions, str) else sessions
            if p.get("source") == source and (session is None or session in [str(s) for s in sessions]):
                path = Path(p["path"])
                with self._root(p["scope"]).locked():
                    proposals.decide(path, "rejected", self.clock(), reason=f"forget --source {source}")
                rejected.append(p["id"])
        return {"forgotten": gone, "proposals_rejected": rejected}

    # ---- export / import -------------------------------------------------------------------------------
    def export(self, path: str | os.PathLike) -> dict[str, int]:
        """Write every note, event and tombstone of both roots to ``path`` as JSONL (``{"type": "note"|"event"|
        "tombstone", …}``; a tombstone line is ``ref, content_sha256, kind, deleted_at, scope``: no text), atomically,
        so a restore keeps what was forgotten forgotten. Returns ``{"notes", "events", "tombstones"}``."""
        counts = {"notes": 0, "events": 0, "tombstones": 0}
        lines = []
        for root in self._live_roots():
            for nid in sorted(root.store.note_refs()):
                try:
                    note, _ = root.read_note(nid, root.path / (nid + ".md"))
                except (UsageError, OSError) as exc:
                    whole = root.read_broken_note(nid, root.path / (nid + ".md"))
                    if whole is None:
                        log.warning("memdir: %s not exported: %s", root.path / (nid + ".md"), exc)
                        continue
                    log.warning("memdir: %s exported by its body alone: its frontmatter is unreadable (%s)",
                                root.path / (nid + ".md"), exc)
                    note = whole
                d = note.to_dict()
                d.pop("path", None)
                d.pop("existed", None)
                d["text"] = _redact(d["text"])
                lines.append(json.dumps(d, ensure_ascii=False))
                counts["notes"] += 1
            for r in root.store.events():
                d = {"type": "event", "key": r["ref"], "role": r["role"], "text": _redact(r["text"]), "session": r["session"],
                     "ts": r["ts"], "scope": root.scope}
                if r["meta"]:
                    d["meta"] = json.loads(r["meta"])
                lines.append(json.dumps(d, ensure_ascii=False))
                counts["events"] += 1
            for t in root.store.tombstone_rows():
                lines.append(json.dumps({"type": "tombstone", **{k: t[k] for k in ("ref", "content_sha256", "kind", "deleted_at")},
                                         "scope": root.scope}, ensure_ascii=False))
                counts["tombstones"] += 1
        notes.atomic_write(Path(path), "".join(x + "\n" for x in lines))
        return counts

    def import_tombstones(self, rows: Iterable[dict[str, Any]], *, scope: str = "project") -> int:
        """Record tombstones ``{ref, content_sha256, kind, deleted_at}`` (an export's ``tombstone`` lines, another
        store's table) in the ``scope`` root: an event already stored under a tombstoned ref is forgotten now, and
        no later import or capture brings the ref or its text back. A note's file is never deleted by an import (its
        tombstone is recorded). Returns the tombstones that were new here."""
        root = self._root(scope)
        root.ensure()
        new = 0
        sessions: set[str] = set()
        with root.locked():
            with root.store.transaction() as st:
                have, _ = st.tombstoned()
                for t in rows:
                    ref = t.get("ref") if isinstance(t, dict) else None
                    if not isinstance(ref, str) or not ref.strip() or ref in have:
                        continue
                    sha = t.get("content_sha256") if isinstance(t.get("content_sha256"), str) else None
                    kind = t.get("kind") if isinstance(t.get("kind"), str) else "event"
                    when = t.get("deleted_at") if isinstance(t.get("deleted_at"), str) else iso(self.clock())
                    row = st.get_doc(ref)
                    if row is not None and row["kind"] == "event":
                        if row["session"]:
                            sessions.add(row["session"])
                        st.delete_doc(ref)
                        st.drop_tiers(ref)
                        self._on_forget(st, ref)
                    st.tombstone(ref, sha, kind, when)
                    have.add(ref)
                    new += 1
                if sessions:
                    st.refresh_context(sorted(sessions))  # the neighbours no longer carry the deleted words
            if sessions:
                root.store.settle(freed=True)
        return new

    def _store_target(self, project: str | None, token: str | None) -> tuple[str, str | None]:
        project = project or self.config.get("remote.project") or self.project_root.name
        if token is None:
            token = os.environ.get(self.config.get("remote.token_env") or "", "") or None
        return project, token

    def export_store(self, url: str, *, project: str | None = None, token: str | None = None) -> dict[str, Any]:
        """Copy this project's events and tombstones into a PostgreSQL store (``url``, project ``project``, default
        ``remote.project`` or the directory's name; ``token`` default from ``remote.token_env``); see
        :mod:`memdir.portability.transfer`. Safe to re-run: what is there already counts as ``duplicate``."""
        from memdir.portability.transfer import to_store

        project, token = self._store_target(project, token)
        return to_store(self, url, project=project, token=token)

    def import_store(self, url: str, *, project: str | None = None, token: str | None = None) -> dict[str, Any]:
        """Copy a PostgreSQL store's events and tombstones of ``project`` into this project (the reverse of
        :meth:`export_store`); safe to re-run."""
        from memdir.portability.transfer import from_store

        project, token = self._store_target(project, token)
        return from_store(self, url, project=project, token=token)

    def _restore_note(self, obj: dict[str, Any]) -> Note:
        """Bring back an exported note as it was: same id when free, times, kind, highlight, pinned and the
        supersede links. Same text already in that root → the existing note (``existed``). Raises like
        :meth:`remember`."""
        scope = obj.get("scope") if obj.get("scope") in SCOPES else "project"
        text = obj.get("text")
        if not isinstance(text, str) or not text.strip():
            raise UsageError("a note line needs a non-empty text")
        nid = obj.get("id")
        try:
            category, slug = split_id(nid) if isinstance(nid, str) else (None, None)
        except PathError:
            category, slug = None, None
        category = category or obj.get("category") or "facts"
        check_segment(category, "category")
        root = self._root(scope)
        if category not in self.config.get("categories"):  # a custom category the export came from: recreate it
            root.ensure()
            from memdir.roots import safe_join

            safe_join(root.path, category).mkdir(exist_ok=True)
        note = self.remember(text, category=category, summary=obj.get("summary"), tags=obj.get("tags") or (),
                             load_when=obj.get("load_when") or (), pinned=bool(obj.get("pinned")), scope=scope,
                             kind=obj.get("kind"), highlight=obj.get("highlight"))
        if note.existed:
            return note
        root = self._root(scope)
        changes: dict[str, Any] = {}
        for key in ("created", "updated"):
            try:
                changes[key] = parse_ts(obj[key])
            except (KeyError, UsageError):
                pass
        for key in ("supersedes", "superseded_by"):
            if isinstance(obj.get(key), str) and obj[key].strip():
                changes[key] = _clean(obj[key]).strip()
        target = note.id
        with root.locked():
            path = note.path
            raw = notes.update_fields(notes.read_text(path), changes) if changes else notes.read_text(path)
            if slug and f"{category}/{slug}" != note.id and not (root.path / category / f"{slug}.md").exists():
                target = f"{category}/{slug}"
                raw = notes.update_fields(raw, {"id": target})
                notes.atomic_write(root.path / category / f"{slug}.md", raw)
                path.unlink()
                root.refresh(note.id)
            else:
                notes.atomic_write(path, raw)
            root.refresh(target)
            root.compile(categories=[category])
        got = self.get(target, scope=scope)
        return got if isinstance(got, Note) else note

    def migrate(self, *, from_path: str | os.PathLike | None = None, scan: str | os.PathLike | None = None,
                dry_run: bool = False, purge: bool = False) -> dict[str, Any]:
        """Bring other stores into the project root: an alice-memory data directory (one-file or two-file
        layout), a memdir root or seed 000 Markdown memory directory, or a memdir export; ``scan`` finds every
        store under a directory. Safe to re-run; ``dry_run`` writes nothing; ``purge`` deletes a migrated
        alice-memory directory that holds nothing but store files. See :mod:`memdir.portability.migrate`."""
        from memdir.portability.migrate import migrate

        return migrate(self, from_path=from_path, scan_dir=scan, dry_run=dry_run, purge=purge)

    def import_pending(self) -> dict[str, Any]:
        """Import the JSONL files dropped in ``<global root>/import/`` and rename each to
        ``<name>.done-<yyyyMMdd-HHmmss>``; see :mod:`memdir.portability.dropimport`."""
        from memdir.portability.dropimport import import_pending

        return import_pending(self)

    def import_jsonl(self, path: str | os.PathLike) -> dict[str, int]:
        """Import a JSONL file: ``type: note`` lines are remembered (same scope/category; duplicates reported),
        others are events (sorted by ts; dedup by key and text). Bad lines are counted as ``bad_lines`` and
        skipped. Returns counts."""
        p = Path(path)
        if not p.is_file():
            raise NotFound(f"no such file: {p}")
        counts = {"lines": 0, "notes": 0, "notes_existing": 0, "read": 0, "stored": 0, "duplicate": 0, "skipped": 0, "bad_lines": 0,
                  "tombstones": 0}
        events: list[dict[str, Any]] = []
        tombs: dict[str, list[dict[str, Any]]] = {}

        def bad(n: int, why: Any) -> None:  # the first few each say why; the count is in the result
            counts["bad_lines"] += 1
            if counts["bad_lines"] <= BAD_LINES_SHOWN:
                log.warning("memdir: %s line %d skipped: %s", p.name, n, str(why)[:120])
            elif counts["bad_lines"] == BAD_LINES_SHOWN + 1:
                log.warning("memdir: %s: more bad lines skipped (counted in the result, not listed)", p.name)

        with open(p, encoding="utf-8", errors="replace") as f:
            for n, line in enumerate(f, 1):
                if not line.strip():
                    continue
                counts["lines"] += 1
                try:
                    obj = json.loads(line)
                    if not isinstance(obj, dict):
                        raise ValueError("not an object")
                except ValueError as exc:
                    bad(n, str(exc)[:80])
                    continue
                if obj.get("type") == "tombstone":
                    if not isinstance(obj.get("ref"), str) or not obj["ref"].strip():
                        bad(n, "a tombstone line needs a ref")
                        continue
                    tombs.setdefault(obj.get("scope") if obj.get("scope") in SCOPES else "project", []).append(obj)
                elif obj.get("type") == "note":
                    try:
                        note = self._restore_note(obj)
                        counts["notes_existing" if note.existed else "notes"] += 1
                    except MemdirError as exc:
                        bad(n, exc)
                else:
                    obj.setdefault("source", p.stem)
                    events.append(obj)
        for scope, rows in tombs.items():  # first: a forgotten event in the same file is not stored again
            counts["tombstones"] += self.import_tombstones(rows, scope=scope)
        events.sort(key=lambda e: _sort_ts(e.get("ts")))
        by_scope: dict[str, list] = {}
        for e in events:
            by_scope.setdefault(e.get("scope") if e.get("scope") in SCOPES else "project", []).append(e)
        for scope, evs in by_scope.items():
            c = self.import_events(evs, scope=scope)
            for key, v in c.items():
                counts[key] += v
        return counts


def _tool_name(text: str) -> str:
    """The tool of a ``<tool>: <argument> …`` summary, case-folded."""
    head = text.split(":", 1)[0].strip()
    return head.casefold() if head and " " not in head else ""


def _edit_tools() -> frozenset[str]:
    from memdir.capture.tools import EDIT_TOOLS

    return EDIT_TOOLS


def _block_order(hits: list[Hit]) -> list[Hit]:
    """``hits`` in the order the block considers them: a tool output's score weighed by ``BLOCK_TOOL_PRIOR`` (not
    one that carries the user's answer); stable otherwise."""
    def weight(h: Hit) -> float:
        if h.kind != "tool" or _tool_name(h.text) in USER_ANSWER_TOOLS:
            return 1.0
        return BLOCK_TOOL_PRIOR_FUSED if "rrf" in h.reasons else BLOCK_TOOL_PRIOR

    return sorted(hits, key=lambda h: -h.score * weight(h))


def _near_same(ptoks: set[str], prompt: str, text: str) -> bool:
    """True when ``text`` is the prompt again: the same words, or token sets overlapping by 80% (Jaccard)."""
    if " ".join(prompt.casefold().split()) == " ".join(text.casefold().split()):
        return True
    t = set(tokenize(text))
    return bool(ptoks and t) and len(ptoks & t) / len(ptoks | t) >= 0.8


def _matched_text(row: Any) -> str:
    """The part of a hit's text that recall matched: its passage when it has one (long events), else the text."""
    span = _row_get(row, "span")
    text = row["text"]
    return text[span[0]:span[1]] if span else text


def _row_get(row: Any, key: str) -> Any:
    try:
        return row[key]
    except (KeyError, IndexError):
        return None


def _near_duplicate(store, text: str) -> str | None:
    """The ref of the first live note whose text differs from ``text`` only by case, spacing or punctuation
    (:func:`memdir.notes.markdown.near_key`), or ``None``. Notes are curated and few: one pass over their texts."""
    key = notes.near_key(text)
    for row in store.live_notes():
        if notes.near_key(row["text"]) == key:
            return row["ref"]
    return None


def _sort_ts(ts: Any) -> float:
    try:
        return parse_ts(ts).timestamp()
    except UsageError:
        return math.inf


def _summary_of(text: str) -> str:
    for line in text.splitlines():
        line = line.strip().lstrip("#").strip()
        if line:
            return line if len(line) <= 100 else line[:99].rstrip() + "…"
    return text[:100]


def _replace(note: Note, **changes: Any) -> Note:
    from dataclasses import replace

    return replace(note, **changes)
