"""The time of a goal or hard rule of ``ROOT.md`` in the index: the first time it was indexed with its text.

ROOT.md's items are read with the page's file time, and every compile rewrites the page (its routing and registry
tables), so each remember or forget re-dated every goal and rule to that moment and ``memdir recent`` always listed
them first. An item whose text is unchanged keeps the time its row already has.
"""

from __future__ import annotations

from typing import Any

from memdir.roots import ROOT_PAGE


def kept(store: Any, row: dict[str, Any]) -> dict[str, Any]:
    """``row`` (a note row about to be written, :meth:`memdir.engine.root.Root.note_row`) with the ``ts``,
    ``ts_epoch`` and ``meta`` (created) of the row ``store`` holds for the same ROOT.md item when its text is the
    same; any other row as it is."""
    if not str(row.get("ref", "")).startswith(ROOT_PAGE + "/"):
        return row
    old = store.get_doc(row["ref"])
    if old is None or old.get("content_sha256") != row["content_sha256"] or old.get("ts_epoch") is None:
        return row
    return {**row, "ts": old["ts"], "ts_epoch": old["ts_epoch"], "meta": old.get("meta") or row["meta"]}
