"""Heat and tiers (seed 001): hot / warm / cold / archive with hard caps and hysteresis; sweep; prune.

* Heat (seed 001's triple ``heat0 / reinforced_at / half_life_days``):
  ``heat(t) = heat0 · 0.5 ** ((t − reinforced_at) / half_life)``; a new memory starts at ``heat0 = 1`` at its
  own time (or the sweep's, when that is ahead of the clock); a pinned memory never decays. Reinforcement is read
  from the ``rehearsal`` counters, which the core bumps only for memories actually injected into a ``<memory>``
  block (or recalled explicitly by a person or a tool): ``n`` new rehearsals at time ``t`` give
  ``heat0 = heat(t) + n``, ``reinforced_at = t``.
* Tiers with hysteresis (seed 001: hot in 0.6 / out 0.4, warm in 0.3 / out 0.15): a memory enters a tier at
  the *enter* threshold and leaves it only below the *exit* threshold, so one at a boundary does not flip
  every turn. Hard caps (hot 3,000, warm 12,000): overflow is demoted by heat rank; a cap never promotes.
  ``archive`` = cold with no activity for ``tiers.archive_days`` (lexical recall still finds it; the vector
  channel does not scan it).
* :func:`sweep` recomputes and writes only the rows that changed (SQLite has one writer).
* :func:`prune`: previews / deletes cold and archived, unpinned, low-importance (< 1.5: episodic events;
  notes are 1.5 and pinned 2.0, so curated Markdown is never pruned) items idle for ``days``; a confirm token
  quantised to the hour (seed 001) ties the delete to the preview; deletes write tombstones.
"""

from __future__ import annotations

import hashlib
import logging
import math
from typing import TYPE_CHECKING, Any, Iterable

from memdir.capture import events as cevents
from memdir.errors import UsageError, text_arg
from memdir.store.rows import TIERS
from memdir.stores import Stores, stores_of
from memdir.timeutil import iso, parse_ts

if TYPE_CHECKING:
    from memdir.engine.root import Root

log = logging.getLogger("memdir")

# settings: the tiers.* keys of memdir.config.SETTINGS

PRUNE_SAMPLES = 20
PRUNE_MAX_IMPORTANCE = 1.5  # seed 001: prune touches importance < 1.5 only


def heat(heat0: float, reinforced_at: float, now: float, half_life_days: float, pinned: bool = False) -> float:
    """Decayed heat at ``now`` (epoch seconds); ``half_life_days`` in days, 0 = no decay; pinned never decays."""
    if pinned or half_life_days <= 0 or now <= reinforced_at:
        return heat0
    return heat0 * 0.5 ** ((now - reinforced_at) / 86400.0 / half_life_days)


def importance(kind: str, pinned: bool) -> float:
    """2.0 pinned, 1.5 curated note, 1.0 episodic event."""
    return 2.0 if pinned else 1.5 if kind == "note" else 1.0


def classify(h: float, prev: str | None, th: dict[str, float]) -> str:
    """The tier for heat ``h`` given the previous tier (hysteresis); ``th`` has hot/warm enter/exit."""
    if h >= th["hot_enter"] or (prev == "hot" and h >= th["hot_exit"]):
        return "hot"
    if h >= th["warm_enter"] or (prev in ("hot", "warm") and h >= th["warm_exit"]):
        return "warm"
    return "cold"


def _thresholds(cfg: Any) -> dict[str, float]:
    return {k: cfg.get(f"tiers.{k}") for k in ("hot_enter", "hot_exit", "warm_enter", "warm_exit")}


def sweep_root(root: "Root", cfg: Any, now: float) -> dict[str, int]:
    """Recompute heat and tier of every doc in ``root``; write only changed rows. Returns counts per tier plus
    ``changed`` (tier changes), ``written`` (rows written) and ``removed`` (rows of deleted docs)."""
    hl = cfg.get("tiers.half_life_days")
    th = _thresholds(cfg)
    archive_s = cfg.get("tiers.archive_days") * 86400.0
    rows = root.store.tier_rows()
    state = []
    for r in rows:
        pinned = bool(r["pinned"])
        if r["tref"] is None:
            h0, at, seen, prev = 1.0, float(r["ts_epoch"]), 0, None
        else:
            h0, at, seen, prev = r["heat0"], r["reinforced_at"], r["seen_count"], r["tier"]
        at = min(at, now)  # a time ahead of the clock starts its heat now: it would stay at heat0 until then
        if r["rcount"] > seen:
            try:
                when = parse_ts(r["rlast"]).timestamp() if r["rlast"] else now
            except UsageError:
                when = now
            when = max(when, at)
            h0, at, seen = heat(h0, at, when, hl, pinned) + (r["rcount"] - seen), when, r["rcount"]
        h = heat(h0, at, now, hl, pinned)
        want = classify(h, "cold" if prev == "archive" else prev, th)
        state.append([r, h0, at, seen, h, want, importance(r["kind"], pinned)])
    for tier, cap, down in (("hot", cfg.get("tiers.hot_max"), "warm"), ("warm", cfg.get("tiers.warm_max"), "cold")):
        # equal heat (history imported together starts equal): the newer memory stays in the higher tier
        members = sorted((s for s in state if s[5] == tier), key=lambda s: (-s[4], -s[2], -s[0]["ts_epoch"]))
        for s in members[cap:]:
            s[5] = down
    for s in state:
        r = s[0]
        # a time ahead of the clock is no activity yet: idle since first seen (``at``), as prune reads it
        ts = r["ts_epoch"] if r["ts_epoch"] <= now else s[2]
        if s[5] == "cold" and archive_s > 0 and not r["pinned"] and now - max(s[2], ts) > archive_s:
            s[5] = "archive"
    counts = dict.fromkeys(TIERS, 0)
    counts.update(changed=0, written=0, removed=0)
    stamp = iso(parse_ts(now))
    inserts: list[tuple] = []
    updates: list[tuple] = []
    for r, h0, at, seen, _h, tier, imp in state:
        counts[tier] += 1
        if r["tref"] is None:
            inserts.append((r["ref"], h0, at, seen, tier, imp, stamp))
            counts["written"] += 1
            counts["changed"] += tier != "hot"
        elif (tier, h0, at, seen, imp) != (r["tier"], r["heat0"], r["reinforced_at"], r["seen_count"], r["importance"]):
            updates.append((h0, at, seen, tier, imp, stamp, r["ref"]))
            counts["written"] += 1
            counts["changed"] += tier != r["tier"]
    with root.store.transaction() as st:
        counts["removed"] = st.write_tiers(inserts, updates)
        if counts["changed"] or counts["removed"]:
            st.bump_meta("tiers_gen")
    return counts


def sweep(m: "Stores | Any") -> dict[str, dict[str, int]]:
    """Sweep every existing root; returns ``{scope: counts}`` (see :func:`sweep_root`)."""
    m = stores_of(m)
    now = m.clock().timestamp()
    out = {}
    for root in m.live():
        with root.locked():
            out[root.scope] = sweep_root(root, m.config, now)
    return out


# ---- prune -----------------------------------------------------------------------------------------------
def _cutoff(now: float, days: float) -> float:
    """``now − days``, floored to the hour (seed 001), so a preview and its delete a few seconds apart agree."""
    return math.floor((now - days * 86400.0) / 3600.0) * 3600.0


def confirm_token(m: "Stores | Any", days: float, now: float, refs: Iterable[str] = ()) -> str:
    """10 hex chars of SHA-256 over (days, hour-quantised cutoff, both root paths, the refs the preview lists, in
    order). Changes every hour, and when what matches changes: a token deletes only what its preview showed."""
    m = stores_of(m)
    paths = "|".join(str(r.path) for r in m.roots.values())
    listed = "\n".join(sorted(refs))
    return hashlib.sha256(f"prune|{days:g}|{_cutoff(now, days):.0f}|{paths}|{listed}".encode()).hexdigest()[:10]


#: the longest idle time ``prune`` takes, in days (~1,000 years: a larger one overflows the calendar)
MAX_PRUNE_DAYS = 365_000


def prune(m: "Stores | Any", days: float, token: str | None = None, *, force: bool = False) -> dict[str, Any]:
    """Preview (``token`` None) or delete (matching ``token``) cold/archived, unpinned, low-importance memories
    idle for more than ``days`` days (one dated ahead of the clock: since memdir first saw it). Tiers are swept first.

    Preview: ``{"deleted": False, "count", "bytes", "samples" (≤ 20, newest first), "token", "cutoff"}``.
    Delete: ``{"deleted": True, "count", "bytes"}``; each item gets a tombstone (no resurrection by import or
    backfill). ``force`` applies the current token at once (scripts). Raises ``UsageError`` for ``days`` < 0
    or a wrong/expired token (tokens change every hour).
    """
    m, token = stores_of(m), text_arg(token, "token")
    try:
        days = float(days)
    except (TypeError, ValueError):
        raise UsageError(f"prune --days needs a number of days, not {days!r}") from None
    if not math.isfinite(days) or days < 0 or days > MAX_PRUNE_DAYS:  # 1e308 days: no date is that old
        raise UsageError(f"prune --days must be a number from 0 to {MAX_PRUNE_DAYS:,}")
    if token is None and not force:  # a preview changes nothing: on a read-only root it reads the tiers as they are
        for root in m.live():
            if not root.read_only:
                with root.locked():
                    sweep_root(root, m.config, m.clock().timestamp())
    else:
        sweep(m)
    now = m.clock().timestamp()
    cutoff = _cutoff(now, days)
    found: list[tuple[Any, Any]] = []
    for root in m.live():
        found += [(root, r) for r in root.store.prune_candidates(PRUNE_MAX_IMPORTANCE, cutoff, now)]
    expected = confirm_token(m, days, now, (f"{root.scope}:{r['ref']}" for root, r in found))
    if force:  # seed 001's "token or force": the same selection, token computed and applied in one step
        token = expected
    if token is not None and token.strip() != expected:
        raise UsageError("confirm token is wrong, expired (tokens change every hour) or for other memories than "
                         f"match now: run `memdir prune --days {days:g}` again and pass the new token")
    out: dict[str, Any] = {"deleted": False, "days": days, "cutoff": iso(parse_ts(cutoff)), "count": len(found),
                           "bytes": sum(r["bytes"] or 0 for _, r in found)}
    if token is None:
        found.sort(key=lambda x: x[1]["ts"], reverse=True)
        out["samples"] = [{"id": r["ref"], "scope": root.scope, "kind": r["kind"], "ts": r["ts"], "bytes": r["bytes"],
                           "text": cevents.head(r["head"])} for root, r in found[:PRUNE_SAMPLES]]
        out["token"] = expected
        return out
    stamp = iso(m.clock())
    for root in m.live():
        refs = [r["ref"] for rt, r in found if rt is root]
        if not refs:
            continue
        with root.locked(), root.store.transaction() as st:
            olds = [row for row in map(st.get_doc, refs) if row is not None]
            st.delete_docs([row["ref"] for row in olds])  # each session read once, not once per event
            for row in olds:
                ref = row["ref"]
                st.drop_tiers(ref)
                st.tombstone(ref, row["content_sha256"], row["kind"], stamp)  # the rehearsal count goes too
                st.delete_vectors(ref)
        root.store.settle(freed=True, deleted=len(refs))  # give the space back and truncate the WAL
    out["deleted"] = True
    return out
