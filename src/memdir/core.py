"""The facade: :class:`Memdir` is what the CLI, the MCP server, host hooks and benchmarks call.

See ``docs/API.md`` for the contract. Every public method keeps its signature and docstring here and is one call
into the package that does the work (``docs/ARCHITECTURE.md``): curated notes (:mod:`memdir.engine.curated`),
forgetting (:mod:`memdir.engine.forget`), events (:mod:`memdir.engine.events`), recall (:mod:`memdir.engine.recall`),
the block (:mod:`memdir.engine.context`), health (:mod:`memdir.engine.health`), vectors and tiers
(:mod:`memdir.engine.hybrid`, :mod:`memdir.engine.tiers`), the team client (:mod:`memdir.engine.remote`) and the
procedures written over this API (:mod:`memdir.portability`, :mod:`memdir.distill`).
"""

from __future__ import annotations

import os
from datetime import datetime
from typing import Any, Callable, Iterable

from memdir.config import Config
from memdir.engine import around as around_ops
from memdir.engine import context as context_ops
from memdir.engine import curated
from memdir.engine import events as event_ops
from memdir.engine import journal as journal_ops
from memdir.engine import recall as recall_ops
from memdir.engine.root import Root
from memdir.errors import UsageError
from memdir.roots import PROJECT_DIRNAME, global_root, project_root
from memdir.stores import Stores
from memdir.timeutil import now_utc
from memdir.turns import taking_turns
from memdir.types import Event, Hit, Note, Report


@taking_turns
class Memdir:
    """Both memory roots (project and global) behind one API. Create with :func:`memdir.open`."""

    def __init__(self, project_dir: str | os.PathLike | None = None, *, home: str | os.PathLike | None = None,
                 config: dict[str, Any] | None = None, clock: Callable[[], datetime] | None = None):
        self.home = global_root(home)
        self.project_root = project_root(project_dir, home=self.home)
        self.clock = clock or now_utc
        proj = self.project_root / PROJECT_DIRNAME
        self.config = Config(global_file=self.home / "config.toml", project_file=proj / "config.toml", overrides=config)
        cats = self.config.get("categories")
        if "store" in self.config.rejected:
            # falling back to the local index would put the team's writes where nobody else reads them
            from memdir.urlmask import safe_url

            raw = self.config.rejected["store"]
            raise UsageError(f"store must be empty (the local index) or a postgresql:// URL, got "
                             f"{safe_url(raw) if isinstance(raw, str) else raw!r}; fix config.toml or MEMDIR_STORE")
        spec = self.config.get("store") or None
        #: what the engine is given instead of this facade (:class:`memdir.stores.Stores`)
        self.stores = Stores({}, self.config, self.clock, home=self.home, project_root=self.project_root)
        self.roots = self.stores.roots
        self.roots.update({
            # a postgresql:// store holds the project's index (shared by a team); the global root stays local
            "project": Root(proj, "project", categories=cats, clock=self.clock, store=spec,
                            project=self.stores.store_project(), token=os.environ.get("MEMDIR_STORE_TOKEN") or None),
            "global": Root(self.home, "global", categories=cats, clock=self.clock),
        })
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
        from memdir.engine import health

        return health.keep_warm(self.stores, on, build=build, start=start)

    def store_project(self) -> str:
        """The project's name in a shared store (``remote.project``, else the project directory's name)."""
        return self.stores.store_project()

    def close(self) -> None:
        """Close both indexes (safe to call twice)."""
        for r in self.roots.values():
            r.close()

    def __enter__(self) -> "Memdir":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

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

        ``kind``: one word naming a category's kind (``decision``; default the category's own).

        Raises ``UsageError`` (empty text, unknown category, scope or kind, unknown ``supersedes`` id) and
        ``PathError`` (a category or id that would leave the root).
        """
        from memdir.engine.notekind import checked_kind  # a newline or a tag as a kind: refused, nothing written

        return curated.remember(
            self.stores, text, category=category, summary=summary, tags=tags, load_when=load_when, pinned=pinned,
            supersedes=supersedes, scope=scope, kind=checked_kind(self.stores, kind), highlight=highlight,
            provenance=provenance)

    def get(self, id: str, *, scope: str | None = None, remote: bool = False) -> Note | Event | None:
        """The note (by id, project first) or event (by key) named ``id`` — or by its short handle — or ``None``.
        With ``remote=True`` and ``remote.url`` set, an id no local root holds is asked of the team server (a team
        hit: scope ``team``; one request of at most 3 s, ``None`` when it fails)."""
        return curated.get(self.stores, id, scope=scope, remote=remote)

    def note_problems(self) -> list[dict[str, str]]:
        """Note files the last look at each open root could not read as they are (``{"kind": "unreadable", "scope",
        "path", "detail"}``): broken frontmatter (the note is indexed by its body alone until repaired with
        :meth:`edit`) or a file that is not UTF-8 text (left out). Opens nothing; the CLI prints them as one line."""
        return curated.note_problems(self.stores)

    def forget(self, id: str, *, scope: str | None = None) -> bool:
        """Delete a note (its file) or an event by id/key (or its short handle) and write a tombstone so re-import or backfill cannot
        bring it back. Only the first root holding the id is touched (project before global; ``scope`` picks one),
        matching what recall shows. Returns ``False`` when nothing has that id. Raises ``PathError`` for ids that would
        leave the root (``../x``, ``/etc/passwd``; case C14)."""
        from memdir.engine import forget as forgetting

        return forgetting.forget(self.stores, id, scope=scope)

    def forget_matching(self, *, query: str | None = None, prefix: str | None = None, scope: str | None = None,
                        token: str | None = None, force: bool = False, rules: bool = True) -> dict[str, Any]:
        """Forget by text (``query``: substring, case/width/space-folded, notes and events) or by event-key
        ``prefix`` (``import:<source>`` undoes an import). Without ``token`` a preview ``{"count", "notes",
        "events", "samples", "token"}``; with the preview's token (or ``force``) deletes with tombstones. See
        :mod:`memdir.engine.forget`. ``rules=False`` leaves the notes of ``rules/`` out of both (an agent's
        forget). Raises ``UsageError`` (neither or both given, a query under 2 chars, a token that no longer
        matches)."""
        from memdir.engine.forget import forget_matching

        return forget_matching(self.stores, query=query, prefix=prefix, scope=scope, token=token, force=force,
                               rules=rules)

    def recent(self, *, kinds: Iterable[str] | None = None, category: str | None = None, scope: str | None = None,
               limit: int = 20) -> list[Hit]:
        """The newest memories, newest first (seed 004's ``list``): ``kinds`` as in :meth:`recall` (``note``,
        ``event``, a note kind or an event role), ``category`` a note category; at most ``limit`` (at most 500; 0
        lists none, a negative one raises ``UsageError``).
        Superseded notes are left out. Hits carry ``score`` 0 and empty reasons."""
        return curated.recent(self.stores, kinds=kinds, category=category, scope=scope, limit=limit)

    def import_events(self, events: Iterable[dict[str, Any]], *, scope: str = "project") -> dict[str, int]:
        """Bulk-store events ``{key, role, text, session, ts, meta?}`` in short batches: dedup by key and text SHA-256
        (and replies a hook captured), tombstoned skipped, text redacted and bounded; ``ts``: datetime (naive = local time), ISO 8601, epoch s/ms, or now.
        ``{"read", "stored", "duplicate", "skipped"}``, never raises for an item; Ctrl-C: ``errors.Interrupted``."""
        return event_ops.import_events(self.stores, events, scope=scope)

    def notices(self) -> list[str]:
        """One line per root whose index was rebuilt (events lost, how to restore them) or left out of a checkout."""
        return event_ops.notices(self.stores)

    def capture(self, event: dict[str, Any], **kwargs: Any):
        """Gated capture of one host event (user prompt, assistant reply, tool-call summary); see
        :mod:`memdir.capture.gates` for the gates, keys and the returned ``CaptureResult``."""
        return event_ops.capture(self.stores, event, **kwargs)

    def queue_capture(self, event: dict[str, Any], *, scope: str = "project") -> bool:
        """Gate ``event`` as :meth:`capture` does and queue it in the root's spool without the write lock or the index
        (redacted first): what a hook whose time budget is spent does with a turn it has not stored yet; the next
        writer of the root stores it, once (keys are deterministic). The daily cap is not counted. True when queued;
        never raises."""
        return event_ops.queue_event(self.stores, event, scope=scope)

    def count_events(self, *, since: datetime, until: datetime | None = None, key_prefixes: Iterable[str] = (),
                     scope: str = "project") -> int:
        """Number of stored events with ``since <= ts < until`` (aware datetimes; ``until`` open when None) whose
        key starts with one of ``key_prefixes`` (any key when empty). Used by capture's daily cap."""
        return event_ops.count_events(self.stores, since=since, until=until, key_prefixes=key_prefixes, scope=scope)

    def push(self, *, retry_failed: bool = False, progress: Any = None) -> dict[str, Any]:
        """Send the events queued for ``remote.url`` (issue 14) now, those still backed off after a failed send
        included: ``{"sent", "left", "failed", "error"}``; ``left`` rows wait for the next push, ``failed`` rows were
        refused by the server (a 4xx about the rows) and are kept aside with its reason (:meth:`remote_failed`).
        ``retry_failed`` puts those back in the queue first (``retried``: how many). When rows cannot be delivered,
        ``kind`` (auth, project, route, server, unreachable) and ``fix`` (one line) say why. ``progress(sent, total)``
        is called after each delivered request. Raises ``UsageError`` when ``remote.url`` is not set."""
        from memdir.engine import remote

        return remote.push_queue(self.stores, retry_failed=retry_failed, progress=progress)

    def share_history(self, share: bool = True) -> dict[str, Any]:
        """Open your own events in this project to its other members on the team server (``remote.url``, your
        token), past and future, or make them private again (``share=False``): ``{"project", "person", "share"}``.
        Raises ``UsageError`` when ``remote.url`` is not set, ``MemdirError`` (one line, with the fix) when the server
        refuses or cannot be reached."""
        from memdir.engine import remote

        return remote.set_sharing(self.stores, share)

    def remote_failed(self) -> list[dict[str, Any]]:
        """The queued rows the team server refused, kept aside: ``[{"op", "ref", "reason", "at"}]`` (see
        :func:`memdir.engine.remote.failed`); ``memdir push --retry-failed`` sends them again."""
        from memdir.engine import remote

        return remote.refused_rows(self.stores)

    def recall(self, query: str, *, k: int | None = None, scope: str | None = None, kinds: Iterable[str] | None = None,
               rehearse: bool = False) -> list[Hit]:
        """The ``k`` best memories for ``query``, best first.

        BM25 (FTS5) over the OR of the query's tokens — a document matching any term is a candidate, so a query
        never comes back empty because one term is missing — × scope prior × decay × rehearsal boost (see
        :mod:`memdir.recall.rank`). Superseded notes and forgotten items never appear. Project wins over global for
        the same note id. ``kinds`` filters by ``"note"``, ``"event"``, a note kind or an event role (another value
        raises ``UsageError`` naming it). ``rehearse=True`` counts the hits as rehearsed (tools/CLI do; benchmarks do not).
        Never raises on query text; an empty or punctuation-only query returns ``[]``.
        """
        return recall_ops.recall(self.stores, query, k=k, scope=scope, kinds=kinds, rehearse=rehearse)

    def around(self, hits: list[Hit], query: str, *, chars: int | None = None) -> list[dict[str, Any]]:
        """For each of ``hits`` (recall's), the turns next to it in its session: ``{"before"?: {handle, role, text},
        "after"?: {...}}`` (``{}`` for a note, a team hit or an event without a session), each ``text`` the window of
        at most ``chars`` characters (default 400, :data:`memdir.engine.around.AROUND_CHARS`) holding most of
        ``query``'s weight. Read-only; never raises on query text."""
        return around_ops.around(self.stores, hits, query, **({} if chars is None else {"chars": chars}))

    def rules(self) -> list[Note]:
        """The hard rules: each item of ROOT.md's hard-rules section (``ROOT.md/rule-NN``, kind ``rule``, pinned),
        then the live notes of the ``rules`` category; global first, then project (seed 000: global rules are always
        resident and cannot be overridden; project rules are appended)."""
        return context_ops.rule_notes(self.stores)

    def goals(self) -> list[Note]:
        """ROOT.md's current goals, one note per item (``ROOT.md/goal-NN``, kind ``goal``, pinned), global first,
        in page order; shown below the rules in every block."""
        return context_ops.goal_notes(self.stores)

    def outline(self) -> list[str]:
        """The registry in one line per category and scope: ``project decisions/ (3): newest summary; …``."""
        return context_ops.outline(self.stores)

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
        return context_ops.context(
            self.stores, prompt, max_chars=max_chars, max_entries=max_entries, reinforce=reinforce, sections=sections)

    def inspect(self) -> Report:
        """Counts and consistency problems: unreadable files, notes missing from ``index.md``, dangling
        ``supersedes``/``superseded_by``, broken auto markers, files symlinked out of the root, a note file copied by
        hand (``duplicate``: another live note's text or ``id:``)."""
        from memdir.engine import health

        return health.inspect(self.stores)

    def status(self) -> dict[str, Any]:
        """Counts and paths per root, the index size in bytes, ``read_only`` (why) on a root this process cannot write."""
        from memdir.engine import health

        return health.status(self.stores)

    def explain(self, query: str, *, k: int | None = None, scope: str | None = None, kinds: Iterable[str] | None = None) -> dict[str, Any]:
        """Recall with the latency split (embed, lexical, vector, fuse; ms) and each hit's channel ranks; see
        :func:`memdir.engine.hybrid.explain`. Does not rehearse."""
        from memdir.engine import hybrid

        return hybrid.explain(self.stores, query, k=k, scope=scope, kinds=kinds)

    def backfill(self, *, limit: int | None = None, progress: Callable[[int], None] | None = None) -> dict[str, Any]:
        """Embed every pending memory (new, failed, edited, or from another model); see :func:`memdir.engine.hybrid.backfill`.
        Raises ``memdir.embed.EmbedError`` when no provider is configured or it fails to load."""
        from memdir.engine import hybrid

        return hybrid.backfill(self.stores, limit=limit, progress=progress)

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

    def doctor(self, *, repair: bool = True) -> list[dict[str, str]]:
        """Health checks with remedies (provider call, index integrity, Markdown/index consistency, pending
        vectors); see :func:`memdir.engine.hybrid.doctor`. ``repair=False`` reports what ``repair=True`` (the default,
        as the CLI runs it) would fix and writes nothing."""
        from memdir.engine import health

        return health.doctor(self.stores, repair=repair)

    def reindex(self) -> dict[str, int]:
        """Rebuild every full-text row (notes, events, passages, neighbour context) from the stored texts, then
        the note mirror from the Markdown, and recompile the indexes: the repair ``memdir doctor``
        names for an index that disagrees with its documents. Events, tombstones and rehearsal counters are
        kept. Returns ``{scope: notes indexed}``."""
        from memdir.engine import health

        return health.reindex(self.stores)

    def note_source(self, id: str, *, scope: str | None = None) -> str:
        """The note file's text (frontmatter + body) as it is on disk. Raises ``NotFound``, ``PathError``."""
        return curated.note_source(self.stores, id, scope=scope)

    def edit(self, id: str, text: str, *, scope: str | None = None, expect: str | None = None) -> Note:
        """Replace a note's file with ``text`` (frontmatter + body) after validating it
        (:func:`memdir.notes.markdown.check_edit`; a text still holding a git merge conflict's markers is refused too):
        a bad edit raises ``UsageError`` with every reason and writes nothing.
        ``supersedes``/``superseded_by`` cannot be changed here (use ``remember(..., supersedes=)``). Secrets are
        redacted, ``updated`` is set to now, the index and ``index.md``/``ROOT.md`` are updated. A ``text`` without
        frontmatter replaces the body alone: the note keeps its frontmatter (pinned, tags, kind, times). ``expect``: the
        version the editor read (``memdir.notes.markdown.version(note_source(id))``); a file changed on disk since
        raises ``EditConflict`` (both texts on it) and nothing is written."""
        return curated.edit(self.stores, id, text, scope=scope, expect=expect)

    def pin(self, id: str, pinned: bool = True, *, scope: str | None = None) -> Note:
        """Set (or clear) a note's ``pinned`` flag: a pinned note never decays. Raises ``NotFound``, ``PathError``."""
        return curated.pin(self.stores, id, pinned, scope=scope)

    def record_injection(self, block: str, *, prompt: str = "", host: str | None = None, event: str | None = None,
                         session: str | None = None) -> int | None:
        """Log a ``<memory>`` block handed to a host (time, host, hook event, session, prompt SHA-256, the block,
        its hit ids) in the project root, else the global root, when one exists. Returns the log row id, or
        ``None`` when nothing was logged; never raises (hooks call it)."""
        return journal_ops.record_injection(self.stores, block, prompt=prompt, host=host, event=event, session=session)

    def injections(self, *, limit: int = 50, id: int | None = None, scope: str | None = None) -> list[dict[str, Any]]:
        """Logged ``<memory>`` blocks, newest first: ``[{"id", "scope", "ts", "prompt_sha256", "host", "event",
        "session", "block", "hit_ids"}]``; ``id`` (with ``scope``) picks one."""
        return journal_ops.injections(self.stores, limit=limit, id=id, scope=scope)

    def log_skips(self, skips: Iterable[dict[str, Any]], *, scope: str = "project") -> int:
        """Record events an importer's capture gate dropped in the skip log (:meth:`capture_skips`), in one write:
        ``{"reason", "role", "text", "session", "ts", "source", "meta"?}`` each (a ``noisy_tool`` row keeps only its
        tool name; a row already logged is not added again). Returns the rows added (0 when the root does not
        exist); never raises."""
        return event_ops.log_skips(self.stores, skips, scope=scope)

    def capture_skips(self, *, limit: int = 200, session: str | None = None) -> list[dict[str, Any]]:
        """Captures that stored nothing, newest first: ``[{"id", "scope", "ts", "reason", "role", "session",
        "source", "preview"}]`` (bounded log; duplicates are not logged)."""
        return journal_ops.capture_skips(self.stores, limit=limit, session=session)

    def sessions(self, *, limit: int = 200) -> list[dict[str, Any]]:
        """Captured sessions of both roots, newest first: ``[{"scope", "session", "first", "last", "turns", "roles",
        "source", "cwd"}]`` (``source`` and ``cwd`` redacted)."""
        return journal_ops.sessions(self.stores, limit=limit)

    def session_events(self, session: str | None, *, scope: str | None = None, limit: int = 1000) -> list[dict[str, Any]]:
        """One session's events in time order: ``[{"key", "scope", "role", "text", "ts", "meta", "handle"}]`` (text as
        stored, its secrets ``[redacted:kind]`` as redaction knew them then: redact it again before showing it; ``meta``
        redacted; ``handle`` as a ``<memory>`` block shows it)."""
        return journal_ops.session_events(self.stores, session, scope=scope, limit=limit)

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
        return curated.propose(
            self.stores, text, category=category, summary=summary, tags=tags, load_when=load_when, supersedes=supersedes, scope=scope, source=source, provenance=provenance)

    def proposals(self, *, status: str | None = "pending") -> list[dict[str, Any]]:
        """Rule proposals of both roots (project first), oldest first: ``[{id, status, category, summary, text,
        tags, load_when, supersedes?, source, sessions?, model?, proposed, scope, path}]``; ``status=None``
        includes accepted and rejected ones."""
        return curated.proposals(self.stores, status=status)

    def accept_proposal(self, pid: str) -> Note:
        """Write a pending proposal as a ``rules`` note (a person decided) and mark it accepted. Raises
        ``NotFound`` (no such proposal), ``UsageError`` (already decided, malformed id)."""
        return curated.accept_proposal(self.stores, pid)

    def reject_proposal(self, pid: str) -> dict[str, Any]:
        """Mark a pending proposal rejected (its record stays, so the same rule is not proposed again).
        Raises ``NotFound`` / ``UsageError`` like :meth:`accept_proposal`."""
        return curated.reject_proposal(self.stores, pid)

    def forget_source(self, source: str, *, session: str | None = None) -> dict[str, Any]:
        """Forget every note whose frontmatter says ``source`` (e.g. ``distill``), only those listing
        ``session`` in ``sessions`` when given, and reject the pending proposals of that batch. Returns
        ``{"forgotten": [ids], "proposals_rejected": [ids]}``."""
        from memdir.distill import flow as distill

        return distill.forget_source(self, source, session=session)

    def export(self, path: str | os.PathLike) -> dict[str, int]:
        """Write every note, event and tombstone of both roots to ``path`` as JSONL (``{"type": "note"|"event"|
        "tombstone", …}``; a tombstone line is ``ref, content_sha256, kind, deleted_at, scope``: no text), atomically,
        so a restore keeps what was forgotten forgotten. Returns ``{"notes", "events", "tombstones"}``
        (and ``"notes_not_exported"`` when note files could not be read, each named in a warning)."""
        from memdir.portability import jsonl as jsonl_io

        return jsonl_io.export(self.stores, path)

    def import_tombstones(self, rows: Iterable[dict[str, Any]], *, scope: str = "project") -> int:
        """Record tombstones ``{ref, content_sha256, kind, deleted_at}`` (an export's ``tombstone`` lines, another
        store's table) in the ``scope`` root: an event already stored under a tombstoned ref is forgotten now, and
        no later import or capture brings the ref or its text back. A note's file is never deleted by an import (its
        tombstone is recorded). Returns the tombstones that were new here."""
        from memdir.engine import forget as forgetting

        return forgetting.import_tombstones(self.stores, rows, scope=scope)

    def export_store(self, url: str, *, project: str | None = None, token: str | None = None) -> dict[str, Any]:
        """Copy this project's events and tombstones into a PostgreSQL store (``url``, project ``project``, default
        ``remote.project`` or the directory's name; ``token`` default from ``remote.token_env``); see
        :mod:`memdir.portability.transfer`. Safe to re-run: what is there already counts as ``duplicate``."""
        from memdir.portability.transfer import to_store

        return to_store(self, url, project=project, token=token)

    def import_store(self, url: str, *, project: str | None = None, token: str | None = None) -> dict[str, Any]:
        """Copy a PostgreSQL store's events and tombstones of ``project`` into this project (the reverse of
        :meth:`export_store`); safe to re-run."""
        from memdir.portability.transfer import from_store

        return from_store(self, url, project=project, token=token)

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
        ``type: event`` lines and lines without a ``type`` are events (sorted by ts; dedup by key and text). Bad
        lines (not JSON, an unknown ``type``, an event without text or with an unknown role or time) are counted as
        ``bad_lines``, each of the first few named by its number in a warning, and skipped. Returns counts;
        Ctrl-C: :class:`memdir.errors.Interrupted` (``done`` of ``total`` events)."""
        from memdir.portability import jsonl as jsonl_io

        return jsonl_io.import_jsonl(self.stores, path)
