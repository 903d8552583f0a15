"""Inspection and repair: inspect (Markdown vs index), status, doctor (with the team store's and the queue's
checks), reindex, and the postings a long-lived process holds.
"""

from __future__ import annotations

import os
from typing import Any

from memdir.engine import remote
from memdir.errors import UsageError
from memdir.lazylog import getLogger
from memdir.notes import markdown as notes
from memdir.stores import Stores
from memdir.types import Note, Report

log = getLogger("memdir")  # imports logging only when a record can go somewhere


def keep_warm(s: Stores, on: bool = True, *, build: bool = False, start: bool = False) -> dict[str, Any]:
    """Say this process will answer many recalls (``memdir serve``, the MCP server and the warm hook listener
    do): with ``recall.memory_index = "auto"`` (the default) recall then holds its BM25 postings in memory —
    the same ranking, without FTS5 scoring each posting — built in a thread at the next recall (the SQL path
    answers until it is ready; ~0.1 ms per indexed row) and kept current with every write, this process's or
    another's (:mod:`memdir.store.sqlite.postings`). ``build=True`` builds them now, in this thread; ``on=False`` lets
    them go. ``start=True`` starts the build now in a thread (``memdir serve`` does at start, so its first
    hooks are not the ones that wait for it) and returns at once; recall answers from SQL until it is done, and
    the build steps aside while a call marked :func:`memdir.foreground.active` runs. Returns each root's
    figures (``rows``, ``postings``, ``array_mb``, ``build_s``…; ``{}`` for a root not held yet)."""
    s.state["warm"] = bool(on)
    out: dict[str, Any] = {}
    mode = s.config.get("recall.memory_index")
    for root in s.live():
        if not on and mode != "on":  # lets them go (the memory comes back)
            root.store.hold_postings(0)
            continue
        # start: "auto" only ("on" builds in the first recall's own thread, as recall asks)
        begin = on and (mode != "off" if build else mode == "auto" and start)
        if begin:
            root.store.hold_postings(int(s.config.get("recall.memory_index_max_rows")), background=not build)
        mem = getattr(root.store, "mem", None)
        if mem is None:
            continue
        if begin:
            with mem.lock:
                mem.refresh(background=not build)
        out[root.scope] = mem.stats()
    return out


def inspect(s: Stores) -> Report:
    """Counts and consistency problems: unreadable files, notes missing from ``index.md``, dangling
    ``supersedes``/``superseded_by``, broken auto markers, files symlinked out of the root."""
    problems: list[dict[str, str]] = []
    all_notes: list[Note] = []
    counts: dict[str, Any] = {}
    for root in s.live():
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
                    problems.append(root.problem("fields", note.path, f"{nid}: " + "; ".join(odd)))
            except (UsageError, OSError) as exc:
                if str(root.path / (nid + ".md")) not in reported:
                    problems.append(root.problem("unreadable", root.path / (nid + ".md"), str(exc)))
                whole = root.read_broken_note(nid, root.path / (nid + ".md"))
                if whole is not None:
                    all_notes.append(whole)
                continue
            all_notes.append(note)
            for field, target in (("supersedes", note.supersedes), ("superseded_by", note.superseded_by)):
                if target and target not in ids and not any(r.store.has_ref(target, "note") for r in s.live() if r is not root):
                    problems.append(root.problem("dangling_" + field, note.path, f"{nid} {field} {target!r}, which does not exist"))
        from memdir.notes.compile import find_blocks

        for cat in sorted({n.split("/")[0] for n in ids}):
            idx = root.path / cat / "index.md"
            text = idx.read_text(encoding="utf-8", errors="replace") if idx.exists() else ""
            _, marker_problems = find_blocks(text)
            if marker_problems:  # the compiler leaves such a file alone: reindex cannot repair it, the markers can
                problems += [root.problem("markers", idx, p) for p in marker_problems]
                continue
            for nid in sorted(n for n in ids if n.startswith(cat + "/")):
                if f"({nid.split('/', 1)[1]}.md)" not in text:
                    problems.append(root.problem("index_missing_file", idx, f"index.md does not list {nid}; run `memdir reindex`"))
        root_md = root.path / "ROOT.md"
        if root_md.exists():
            _, marker_problems = find_blocks(root_md.read_text(encoding="utf-8", errors="replace"))
            problems += [root.problem("markers", root_md, p) for p in marker_problems]
    return Report(counts=counts, problems=problems, notes=all_notes)


def status(s: Stores) -> dict[str, Any]:
    """Counts and paths per root, plus the index size in bytes."""
    out: dict[str, Any] = {"project_root": str(s.project_root)}
    for scope, root in s.roots.items():
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
            q = remote.queue_state(s, root)
            if q["queued"] or q["failed"] or s.config.get("remote.url"):
                out[scope]["remote_queue"] = q
    from memdir.engine import hybrid as vectors

    vectors.status_extra(s, out)  # embedding provider, tiers and vector counts per root
    return out


def doctor(s: Stores, *, repair: bool = True) -> list[dict[str, str]]:
    """Health checks with remedies (provider call, index integrity, Markdown/index consistency, pending
    vectors); see :func:`memdir.engine.hybrid.doctor`. ``repair=False`` reports what ``repair=True`` (the default,
    as the CLI runs it) would fix and writes nothing."""
    from memdir.engine import hybrid as vectors

    checks = vectors.doctor(s, inspect=lambda: inspect(s), repair=repair)
    spec = s.config.get("store")
    if spec:  # a team store (issue 14): connection, schema, row-level security, token, pgvector
        from memdir.store.postgres.doctor import doctor as store_doctor

        checks += store_doctor(spec, project=s.store_project(), token=os.environ.get("MEMDIR_STORE_TOKEN"),
                               hnsw_threshold=int(s.config.get("recall.pg_hnsw_threshold")))
    root = s.roots["project"]
    if root.exists() and root.db_path.exists():
        q = remote.queue_state(s, root)
        if q["failed"]:
            checks.append({"check": "remote queue", "ok": "warn",
                           "detail": f"{q['failed']} queued row(s) refused by the team server, kept aside "
                                     f"({q['queued']} waiting); last: {q['reason']}",
                           "remedy": "fix what the server says, then `memdir push --retry-failed`"})
        elif q["queued"] or s.config.get("remote.url"):
            checks.append({"check": "remote queue", "ok": "ok", "detail": f"{q['queued']} row(s) waiting, none refused",
                           "remedy": ""})
    return checks


def reindex(s: Stores) -> dict[str, int]:
    """Rebuild every full-text row (notes, events, passages, neighbour context) from the stored texts, then
    the note mirror from the Markdown, and recompile the indexes: the repair ``memdir doctor``
    names for an index that disagrees with its documents. Events, tombstones and rehearsal counters are
    kept. Returns ``{scope: notes indexed}``."""
    out = {}
    for root in s.live():
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
