"""`memdir import claude-code|codex|opencode [PATH]`: host transcripts → gated, deduplicated events.

Parsing is in :mod:`memdir.importers`; this module walks the files with a progress bar (tqdm), passes each
event through the capture gates when :mod:`memdir.capture` provides ``gate_reason(m, event)``, and stores the
rest with :meth:`Memdir.import_events` (keys are deterministic, so re-importing a grown file stores only the
new turns). Returns counts: files, read, stored, duplicate, skipped, and ``skipped_by`` reason.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from .errors import NotFound

BATCH = 500


def import_host(m, source: str, path: Path | None = None, *, progress: bool = True) -> dict[str, Any]:
    """Import every transcript of ``source`` under ``path`` (default locations when ``None``).

    Raises ``NotFound`` when there is nothing to import at that path.
    """
    from .importers import iter_events, resolve_paths

    files = resolve_paths(source, path)
    if not files:
        where = str(path) if path else "the default locations"
        raise NotFound(f"no {source} transcripts found in {where}: pass the path explicitly")
    try:
        from .capture import gate_reason  # type: ignore[attr-defined]
    except ImportError:
        gate_reason = None
    stats: Counter = Counter()
    totals: Counter = Counter()
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(files, unit="file", desc=f"import {source}", leave=False)
    for file in bar if bar is not None else files:
        totals["files"] += 1
        batch: list[dict] = []
        for ev in iter_events(source, file, stats=stats):
            reason = gate_reason(m, ev) if gate_reason else None
            if reason:
                stats[f"skipped:{reason}"] += 1
                totals["read"] += 1
                totals["skipped"] += 1
                continue
            batch.append(ev)
            if len(batch) >= BATCH:
                totals.update(m.import_events(batch))
                batch = []
        if batch:
            totals.update(m.import_events(batch))
    out: dict[str, Any] = {k: totals.get(k, 0) for k in ("files", "read", "stored", "duplicate", "skipped")}
    out["skipped_by"] = {k.split(":", 1)[1] if k.startswith("skipped:") else k: v for k, v in sorted(stats.items())}
    return out
