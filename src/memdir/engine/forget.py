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
from typing import TYPE_CHECKING, Any

from memdir.errors import UsageError
from memdir.timeutil import iso

if TYPE_CHECKING:
    from memdir.core import Memdir

SAMPLES = 20


def fold(text: str) -> str:
    """NFKC, casefold, whitespace runs as one space: the form a ``query`` is matched in."""
    return re.sub(r"\s+", " ", unicodedata.normalize("NFKC", text or "").casefold()).strip()


def matches(m: "Memdir", *, query: str | None = None, prefix: str | None = None,
            scope: str | None = None) -> list[dict[str, Any]]:
    """Every memory matching ``query`` (substring, folded) or ``prefix`` (event key), newest first:
    ``[{"id", "scope", "kind", "ts", "text" (first 100 chars)}]``. Exactly one of the two must be given
    (``UsageError`` otherwise, or for a query of less than 2 characters after folding)."""
    if (query is None) == (prefix is None):
        raise UsageError("forget by text needs exactly one of --query TEXT or --prefix KEY")
    q = fold(query) if query is not None else None
    if q is not None and len(q) < 2:
        raise UsageError("forget --query needs at least 2 characters to match (it deletes every memory containing them)")
    if prefix is not None and not prefix.strip():
        raise UsageError("forget --prefix needs a non-empty key prefix, e.g. import:mysource")
    out: list[dict[str, Any]] = []
    for root in m._live_roots(scope):
        if prefix is not None:
            found = list(root.store.scan_docs(prefix=prefix))
        else:
            found = []
            # a full pass in Python: SQLite's LIKE folds ASCII case only, not NFKC forms or whitespace runs
            for r in root.store.scan_docs():
                if any(q in fold(x) for x in (r["text"], r["summary"], r["highlight"]) if x):
                    found.append(r)
        for r in found:
            out.append({"id": r["ref"], "scope": root.scope, "kind": r["note_kind"] if r["kind"] == "note" else r["role"],
                        "type": r["kind"], "ts": r["ts"], "text": r["head"], "_epoch": r["ts_epoch"]})
    out.sort(key=lambda x: -x["_epoch"])
    return out


def token_for(query: str | None, prefix: str | None, scope: str | None, found: list[dict[str, Any]]) -> str:
    """The confirm token of a preview: SHA-256 over the request and the sorted ``scope:id`` of its matches."""
    ids = "\n".join(sorted(f"{x['scope']}:{x['id']}" for x in found))
    req = f"forget|{fold(query) if query is not None else ''}|{prefix or ''}|{scope or ''}"
    return hashlib.sha256(f"{req}\n{ids}".encode("utf-8", "replace")).hexdigest()[:10]


def forget_matching(m: "Memdir", *, query: str | None = None, prefix: str | None = None, scope: str | None = None,
                    token: str | None = None, force: bool = False) -> dict[str, Any]:
    """Preview (no ``token``) or delete (the preview's ``token``, or ``force``) what :func:`matches` finds.

    Preview: ``{"deleted": False, "count", "notes", "events", "samples" (≤ 20, newest first), "token"}``.
    Delete: ``{"deleted": True, "count", "notes", "events"}``. Raises ``UsageError`` for a token that does not
    match the current set (run the preview again)."""
    found = matches(m, query=query, prefix=prefix, scope=scope)
    expected = token_for(query, prefix, scope, found)
    out: dict[str, Any] = {"deleted": False, "query": query, "prefix": prefix, "count": len(found),
                           "notes": sum(x["type"] == "note" for x in found),
                           "events": sum(x["type"] == "event" for x in found)}
    if token is None and not force:
        out["samples"] = [{k: v for k, v in x.items() if not k.startswith("_")} for x in found[:SAMPLES]]
        out["token"] = expected
        return out
    if not force and token.strip() != expected:
        raise UsageError("confirm token does not match what matches now (a mistyped token, or something was added or "
                         "removed since the preview): run the same forget without --token again and pass the token it prints")
    stamp = iso(m.clock())
    for root in m._live_roots(scope):
        refs = [x["id"] for x in found if x["scope"] == root.scope and x["type"] == "event"]
        if refs:
            with root.locked(), root.store.transaction() as st:
                sessions = set()
                for ref in refs:
                    row = st.get_doc(ref)
                    if row is None:
                        continue
                    if row["session"]:
                        sessions.add(row["session"])
                    st.delete_doc(ref)
                    st.drop_tiers(ref)
                    st.tombstone(ref, row["content_sha256"], row["kind"], stamp)  # the rehearsal count goes too
                    m._on_forget(st, ref)
                if sessions:
                    st.refresh_context(sorted(sessions))  # neighbours no longer carry the deleted words
            root.store.settle(freed=True)  # the space comes back (incremental vacuum), the WAL is truncated
    for x in found:
        if x["type"] == "note":
            m.forget(x["id"], scope=x["scope"])
    out["deleted"] = True
    return out
