"""Forget by text or by key prefix (issue 13 item 2): a preview, then a delete tied to it by a confirm token.

* ``query``: every note or event whose text, summary or highlight contains the query as a substring after
  NFKC + casefold + whitespace folding (seed 001's ``forget --query <子串>``), so ``Pnpm`` finds ``pnpm``
  and ``部署`` finds ``部署脚本``.
* ``prefix``: every event whose key starts with it (seed 004's "undo an import": ``import:<source>``).
* The token is 10 hex chars of SHA-256 over the request and the exact set of matching ids, so a delete
  removes what the preview showed and nothing that arrived since (a changed set needs a new preview).
  ``force=True`` computes and applies it in one step (scripts).

Deleting writes tombstones (re-import or backfill cannot bring the items back); notes go through
:meth:`Memdir.forget` (file removed, indexes recompiled, superseded notes restored); events are deleted in one
transaction per root.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from datetime import datetime
from typing import Any, Iterable

from memdir.capture import events as cevents
from memdir.config import team_wanted
from memdir.engine import curated
from memdir.engine import events as event_ops
from memdir.errors import MemdirError, UsageError, text_arg
from memdir.lazylog import getLogger
from memdir.notes.markdown import INVISIBLE
from memdir.notes.nearchars import LONG_DASHES, casefolded
from memdir.roots import ROOT_PAGE, split_id
from memdir.stores import Stores
from memdir.timeutil import iso, parse_ts

log = getLogger("memdir")


SAMPLES = 20


#: the quotes and dashes keyboards, phones and autocorrect type for ``'``, ``"`` and ``-`` (``don’t``, ``“pnpm”``,
#: ``—force``), each as the ASCII character a terminal types
_TYPED = str.maketrans({**dict.fromkeys("\u2018\u2019\u201a\u201b\u2032", "'"),
                        **dict.fromkeys("\u201c\u201d\u201e\u201f\u2033\u00ab\u00bb", '"'),
                        **dict.fromkeys(LONG_DASHES, "-")})


def fold(text: str) -> str:
    """NFKC, casefold (a Turkish ``İ`` is ``i``), invisible characters left out, curly quotes as ``'``/``"``, a run of
    dashes (``—``, ``–``, ``--``) as one ``-``, whitespace runs as one space: the form a ``query`` is matched in, so
    ``don't`` finds ``don’t`` and ``--force`` finds ``—force``."""
    t = INVISIBLE.sub("", casefolded(unicodedata.normalize("NFKC", text or ""))).translate(_TYPED)
    return re.sub(r"-{2,}", "-", re.sub(r"\s+", " ", t)).strip()


def matches(s: Stores, *, query: str | None = None, prefix: str | None = None,
            scope: str | None = None, rules: bool = True) -> list[dict[str, Any]]:
    """Every memory matching ``query`` (substring, folded) or ``prefix`` (event key), newest first:
    ``[{"id", "scope", "kind", "ts", "text" (first 100 chars)}]``. Exactly one of the two must be given
    (``UsageError`` otherwise, or for a query of less than 2 characters after folding). ``rules=False`` leaves
    the notes of ``rules/`` out."""
    if (query is None) == (prefix is None):
        raise UsageError("forget by text needs exactly one of --query TEXT or --prefix KEY")
    q = fold(query) if query is not None else None
    if q is not None and len(q) < 2:
        raise UsageError("forget --query needs at least 2 characters to match (it deletes every memory containing them)")
    if prefix is not None and not prefix.strip():
        raise UsageError("forget --prefix needs a non-empty key prefix, e.g. import:mysource")
    out: list[dict[str, Any]] = []
    for root in s.live(scope):
        if prefix is not None:
            found = list(root.store.scan_docs(prefix=prefix))
        else:
            found = []
            # a full pass in Python: SQLite's LIKE folds ASCII case only, not NFKC forms or whitespace runs
            for r in root.store.scan_docs():
                if any(q in fold(x) for x in (r["text"], r["summary"], r["highlight"]) if x):
                    found.append(r)
        for r in found:
            if r["ref"].startswith(ROOT_PAGE + "/"):  # a line of ROOT.md: edited by hand, never forgotten (it
                continue  # made the confirmed delete fail half-way, after the notes before it were gone)
            if not rules and r["kind"] == "note" and r["ref"].startswith("rules/"):
                continue
            out.append({"id": r["ref"], "scope": root.scope, "kind": r["note_kind"] if r["kind"] == "note" else r["role"],
                        "type": r["kind"], "ts": r["ts"], "text": cevents.head(r["text"]), "pinned": bool(r["pinned"]),
                        "_epoch": r["ts_epoch"]})
    out.sort(key=lambda x: -x["_epoch"])
    return out


def token_for(query: str | None, prefix: str | None, scope: str | None, found: list[dict[str, Any]]) -> str:
    """The confirm token of a preview: SHA-256 over the request and the sorted ``scope:id`` of its matches."""
    ids = "\n".join(sorted(f"{x['scope']}:{x['id']}" for x in found))
    req = f"forget|{fold(query) if query is not None else ''}|{prefix or ''}|{scope or ''}"
    return hashlib.sha256(f"{req}\n{ids}".encode("utf-8", "replace")).hexdigest()[:10]


def forget_matching(s: Stores, *, query: str | None = None, prefix: str | None = None, scope: str | None = None,
                    token: str | None = None, force: bool = False, rules: bool = True) -> dict[str, Any]:
    """Preview (no ``token``) or delete (the preview's ``token``, or ``force``) what :func:`matches` finds.

    Preview: ``{"deleted": False, "count", "notes", "events", "pinned", "samples" (≤ 20, newest first; each says whether
    it is pinned), "token"}``.
    Delete: ``{"deleted": True, "count", "notes", "events"}``. Raises ``UsageError`` for a token that does not
    match the current set (run the preview again). ``rules=False``: the notes of ``rules/`` are neither matched nor
    deleted (an agent's forget: only people remove a rule)."""
    query, prefix, token = text_arg(query, "query"), text_arg(prefix, "prefix"), text_arg(token, "token")
    with s.looked():  # once: not again for each note forgotten below
        return _forget_matching(s, query=query, prefix=prefix, scope=scope, token=token, force=force, rules=rules)


def _forget_matching(s: Stores, *, query: str | None, prefix: str | None, scope: str | None, token: str | None,
                     force: bool, rules: bool) -> dict[str, Any]:
    found = matches(s, query=query, prefix=prefix, scope=scope, rules=rules)
    expected = token_for(query, prefix, scope, found)
    out: dict[str, Any] = {"deleted": False, "query": query, "prefix": prefix, "count": len(found),
                           "notes": sum(x["type"] == "note" for x in found),
                           "events": sum(x["type"] == "event" for x in found),
                           "pinned": sum(x["pinned"] for x in found)}
    if token is None and not force:
        out["samples"] = [{k: v for k, v in x.items() if not k.startswith("_")} for x in found[:SAMPLES]]
        out["token"] = expected
        return out
    if not found:  # nothing to delete (forgotten already, by this token's own run or another): the callers say so
        return out
    if not force and token.strip() != expected:
        raise UsageError("confirm token does not match what matches now (a mistyped token, or something was added or "
                         "removed since the preview): run the same forget again without a token (CLI --token, MCP confirm_token) "
                         "and pass the token that preview gives")
    stamp = iso(s.clock())
    for root in s.live(scope):
        refs = [x["id"] for x in found if x["scope"] == root.scope and x["type"] == "event"]
        if refs:
            with root.locked(), root.store.transaction() as st:
                sessions = set()
                olds = [row for row in map(st.get_doc, refs) if row is not None]
                st.delete_docs([row["ref"] for row in olds])  # each session read once, not once per event
                for row in olds:
                    ref = row["ref"]
                    if row["session"]:
                        sessions.add(row["session"])
                    st.drop_tiers(ref)
                    st.tombstone(ref, row["content_sha256"], row["kind"], stamp)  # the rehearsal count goes too
                    on_forget(s, st, ref)
                if sessions:
                    st.refresh_context(sorted(sessions))  # neighbours no longer carry the deleted words
            root.store.settle(freed=True, deleted=len(refs))  # the space comes back, the WAL is truncated
    for x in found:
        if x["type"] == "note":
            forget(s, x["id"], scope=x["scope"])
    if out["events"]:
        tell_team(s)
    out["deleted"] = True
    return out


def forget(s: Stores, id: str, *, scope: str | None = None) -> bool:
    """The body of :meth:`memdir.Memdir.forget`, whose docstring is the contract."""
    if not isinstance(id, str) or not id.strip():
        raise UsageError("forget needs an id: see `memdir recall` or `memdir inspect` for ids")
    s.look()  # a long-lived process: a note's file renamed or deleted since its last look is not forgotten by its old id
    event_ops.drain_pending(s)  # an event still queued in the spool is forgotten too, not stored after
    id = curated.resolve(s, cevents.clean(id).strip(), scope)
    is_event = any(r.store.has_ref(id, "event") for r in s.live())
    is_note_id = not is_event and ("/" in id or "\\" in id or id.startswith((".", "~")) or id.endswith(".md"))
    if is_note_id:
        category, slug = split_id(id)
        id = f"{category}/{slug}"
        curated.refuse_page_item(id)
    found = False
    now = iso(s.clock())
    for root in s.live(scope):
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
                # nothing deleted while the row is still there: a team store's shared row of another person. A row
                # already gone was removed by a reader's sync that saw the note file unlinked above: forgotten all
                # the same, and its tombstone is written below (without it, a re-import brought the note back)
                if not tx.delete_doc(id) and row is not None and tx.get_doc(id) is not None:
                    raise MemdirError(f"{id} is another person's memory, shared with the project: only they can "
                                      "forget it")
                if sess:
                    tx.refresh_context([sess])  # the neighbours no longer carry its words
                tx.tombstone(id, row["content_sha256"] if row else None, row["kind"] if row else "note", now)
                on_forget(s, tx, id, kind=row["kind"] if row else "note")
            if is_note_id:
                root.compile()
            store.settle(freed=True)  # the space comes back (incremental vacuum)
            found = True
    if found and is_note_id:
        unsupersede(s, id)
    elif found:
        tell_team(s)
    return found


def tell_team(s: Stores) -> None:
    """Send the forgets :func:`on_forget` queued for the team server now, within ``remote.push_budget_ms``, as a
    capture sends its rows (they waited for the next capture or `memdir push`, and teammates kept recalling the
    forgotten text meanwhile). A server that is down or slow leaves them queued; never raises."""
    project = s.roots.get("project")
    if not s.config.get("remote.url") or project is None or project.remote or not project.exists():
        return
    from memdir.engine import remote

    try:
        remote.send_rows(s, project, [])
    except Exception as exc:  # noqa: BLE001  (the forget is done and queued: the next push sends it)
        log.debug("remote: forget not sent now: %s", exc)


def on_forget(s: Stores, store, ref: str, *, kind: str = "event") -> None:
    """Extension point: other tables keyed by ref (e.g. vectors) delete their rows here (``store``: the root's
    :class:`memdir.store.protocol.Store`, inside its transaction). The team server is told to forget events only: the
    queue never sends notes (they are shared through Git, and a clone on a PostgreSQL store mirrors its own
    Markdown), so a note's forget would ask the server for a row it cannot have — and leave a tombstone there."""
    store.delete_vectors(ref)
    project = s.roots["project"]
    if kind == "event" and team_wanted(s.config) and not project.remote and store is project.opened:
        from memdir.engine import remote

        remote.queue_forget(project.db, ref, iso(s.clock()))  # the team server forgets it too (queued)


def deleted_at(value: Any, now: datetime) -> str:
    """A tombstone's time as it is stored: ISO 8601 UTC whatever form it came in (a time without a zone is local
    time, an epoch number in seconds or milliseconds is read as one, as event times are: case C13); ``now`` when it
    has none. An unreadable text is kept as given: readers take it for "forgotten at an unknown time", which keeps the
    text forgotten."""
    if isinstance(value, bool) or value is None or value == "":
        return iso(now)
    try:
        return iso(parse_ts(value))
    except UsageError:
        return value if isinstance(value, str) else iso(now)


def import_tombstones(s: Stores, rows: Iterable[dict[str, Any]], *, scope: str = "project") -> int:
    """The body of :meth:`memdir.Memdir.import_tombstones`, whose docstring is the contract."""
    if rows is None or isinstance(rows, (str, bytes, dict)) or not hasattr(rows, "__iter__"):
        raise UsageError("import_tombstones needs an iterable of tombstone dicts ({ref, content_sha256, kind, deleted_at})")
    root = s.root(scope)
    root.ensure()
    new = 0
    sessions: set[str] = set()
    with root.locked():
        with root.store.transaction() as st:
            have, _ = st.tombstoned()
            doomed: list[str] = []  # events deleted together below: each session read once, not once per event
            for t in rows:
                ref = t.get("ref") if isinstance(t, dict) else None
                if not isinstance(ref, str) or not ref.strip() or ref in have:
                    continue
                sha = t.get("content_sha256") if isinstance(t.get("content_sha256"), str) else None
                kind = t.get("kind") if isinstance(t.get("kind"), str) else "event"
                when = deleted_at(t.get("deleted_at"), s.clock())
                row = st.get_doc(ref)
                if row is not None and row["kind"] == "event":
                    if row["session"]:
                        sessions.add(row["session"])
                    doomed.append(ref)
                    st.drop_tiers(ref)
                    on_forget(s, st, ref)
                st.tombstone(ref, sha, kind, when)
                have.add(ref)
                new += 1
            st.delete_docs(doomed)
            if sessions:
                st.refresh_context(sorted(sessions))  # the neighbours no longer carry the deleted words
        if sessions:
            root.store.settle(freed=True, deleted=new)
    return new


def unsupersede(s: Stores, gone_id: str) -> None:
    """Mend the supersede links of the forgotten note ``gone_id``: a note it had superseded becomes live again (its
    ``superseded_by`` is removed), and a note that superseded it loses its ``supersedes`` (else `memdir inspect`
    reported a dangling link that `reindex` could not mend). When both exist (the middle of a chain A→B→C), the
    newer note takes the older one over instead: A stays hidden, now behind C, and comes back only when C goes."""
    live = s.live()
    older = [(r, ref) for r in live for ref in r.store.notes_superseded_by(gone_id)]
    newer = []
    if not any(r.store.has_ref(gone_id, "note") for r in live):  # ids repeat across roots: only when none holds it
        newer = [(r, ref) for r in live for ref in r.store.notes_superseding(gone_id)]
    heir = len(older) == len(newer) == 1 and older[0][1] != newer[0][1]
    todo: dict[str, list[tuple[str, str, str | None]]] = {}
    for (r, ref), field, other in [(x, "superseded_by", newer) for x in older] + [(x, "supersedes", older) for x in newer]:
        todo.setdefault(r.scope, []).append((ref, field, other[0][1] if heir else None))
    for root in live:
        if root.scope not in todo:
            continue
        with root.locked():  # one root's lock at a time, as remember's cross-root link does
            for ref, field, value in todo[root.scope]:
                try:
                    curated.rewrite_note(root.path / (ref + ".md"), ref, {field: value}, "restore")
                except (MemdirError, OSError) as exc:
                    log.warning("memdir: could not unlink %s from %s after forgetting it: %s", ref, gone_id, exc)
                    continue
                root.refresh(ref)
                log.debug("forget: %s %s %s now, as %s was forgotten", ref, field, value, gone_id)
            root.compile()
