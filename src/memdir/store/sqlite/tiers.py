"""The SQLite side of the tiers table: heat at import and the counts per tier (the sweep is
:mod:`memdir.engine.tiers`')."""

from __future__ import annotations

from memdir.store.rows import TIERS


def start_heat(db, refs: list[str], now: float) -> int:
    """Start the heat of just-imported history at the import time ``now`` (epoch s): ``heat0 = 1``,
    ``reinforced_at = now``, tier hot, so a ``prune`` right after an import never offers what was just brought
    in (issue 13 item 13; without it a turn from last year started cold). Rows that already have heat are
    kept. ``changed_at`` stays NULL: no tier has changed yet (the sweep stamps the first change; 24 bytes a row of
    a big import, issue 26). Caller holds the write transaction. Returns rows written."""
    before = db.total_changes
    db.executemany("INSERT OR IGNORE INTO tiers(ref, heat0, reinforced_at, seen_count, tier, importance) "
                   "VALUES (?, 1.0, ?, 0, 'hot', 1.0)", [(ref, now) for ref in refs])
    return db.total_changes - before


def tier_counts(db) -> dict[str, int]:
    """``{tier: n}`` from the tiers table, plus ``unswept`` (docs without a tier row yet; treated as hot)."""
    out = dict.fromkeys(TIERS, 0)
    for t, n in db.execute("SELECT tier, count(*) FROM tiers WHERE ref IN (SELECT ref FROM docs) GROUP BY tier"):
        out[t] = n
    out["unswept"] = db.execute("SELECT count(*) FROM docs WHERE ref NOT IN (SELECT ref FROM tiers)").fetchone()[0]
    return out
