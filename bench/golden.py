"""A golden snapshot of recall and the ``<memory>`` block, for moves that must not change behaviour.

Builds fixed corpora through the public API only (``memdir.open``, ``remember``, ``import_events``), with a fixed
clock, then records for a fixed list of queries: ``recall`` top-k (id, score as ``repr`` of the float, reason keys),
``context`` blocks and ``recent``. Run it before and after a refactor and compare the two JSON files byte for byte:

    python bench/golden.py --out /tmp/before.json [--pg]
    python bench/golden.py --out /tmp/after.json [--pg]
    cmp /tmp/before.json /tmp/after.json

Corpora: ``tests/corpus/prose.txt`` (always), LoCoMo's first two conversations and MADial-Bench zh memories
(when ``../shared/data`` is present). Engines: SQLite with the FTS5 path (``recall.memory_index = "off"``), SQLite
with postings held in memory (``"on"``) and, with ``--pg``, PostgreSQL in a throwaway cluster
(``tests/pg_cluster.py``).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from datetime import datetime, timedelta, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
SHARED = REPO.parent / "shared" / "data"
START = datetime(2026, 11, 1, 12, 0, tzinfo=timezone.utc)
CATEGORIES = ("facts", "decisions", "pitfalls", "preferences")


class Clock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        return self.now


def prose() -> list[str]:
    lines = (REPO / "tests" / "corpus" / "prose.txt").read_text(encoding="utf-8").splitlines()
    return [s.strip() for s in lines if s.strip() and not s.startswith("#")]


def corpora() -> dict[str, dict]:
    """``{name: {"notes": [text], "events": [{key, role, text, session, ts}], "queries": [text]}}``."""
    lines = prose()
    out = {"prose": {"notes": lines[::3], "events": [
        {"key": f"p:{i}", "role": "user" if i % 2 else "assistant", "text": t, "session": f"s{i // 10}",
         "ts": (START - timedelta(days=40) + timedelta(hours=i)).isoformat()}
        for i, t in enumerate(lines) if i % 3], "queries": [" ".join(t.split()[1:4]) for t in lines[1::7]]}}
    locomo = SHARED / "locomo" / "locomo_dev.json"
    if locomo.exists():
        data = json.loads(locomo.read_text(encoding="utf-8"))
        events, queries = [], []
        for conv in data[:2]:
            c = conv["conversation"]
            for s in sorted(k for k in c if k.startswith("session_") and not k.endswith("date_time")):
                for j, turn in enumerate(c[s]):
                    events.append({"key": f"l:{conv['sample_id']}:{turn['dia_id']}", "role": "user",
                                   "text": f"{turn['speaker']}: {turn['text']}", "session": f"{conv['sample_id']}:{s}",
                                   "ts": (START - timedelta(days=300) + timedelta(minutes=len(events))).isoformat()})
            queries += [q["question"] for q in conv["qa"][:25]]
        out["locomo"] = {"notes": [], "events": events, "queries": queries}
    madial = SHARED / "cjk" / "madial" / "MADial-Bench-zh-memory.jsonl"
    if madial.exists():
        mem = [next(iter(json.loads(s).values())) for s in madial.read_text(encoding="utf-8").splitlines() if s.strip()]
        mem = mem[:300]
        out["madial-zh"] = {"notes": [m["event"] for m in mem[:60]],
                            "events": [{"key": f"z:{m['id']}", "role": "user", "text": m["event"], "session": "zh",
                                        "ts": f"{m['time']}T12:00:00+00:00"} for m in mem[60:]],
                            "queries": [m["event"][2:10] for m in mem[::13]]}
    return out


def snapshot(store: str, memory_index: str, tmp: Path) -> dict:
    import memdir

    result = {}
    for name, corpus in corpora().items():
        clock = Clock()
        project = tmp / f"{name}-{memory_index}-{'pg' if store else 'sqlite'}"
        project.mkdir(parents=True)
        cfg = {"recall.memory_index": memory_index, "embed.provider": "none"}
        if store:
            cfg["store"] = store
        with memdir.open(project, home=tmp / f"home-{project.name}", clock=clock, config=cfg) as m:
            ids = []
            for i, text in enumerate(corpus["notes"]):
                clock.now = START - timedelta(days=len(corpus["notes"]) - i)
                ids.append(m.remember(text, category=CATEGORIES[i % len(CATEGORIES)], pinned=(i % 17 == 0)).id)
            counts = m.import_events(corpus["events"])
            clock.now = START
            rows = {"counts": counts, "notes": ids, "queries": []}
            for q in corpus["queries"]:
                hits = m.recall(q, k=8)
                rows["queries"].append({"q": q, "hits": [[h.id, repr(h.score), sorted(h.reasons)] for h in hits],
                                        "block": m.context(q)})
            rows["recent"] = [h.id for h in m.recent(limit=10)]
        result[name] = rows
    return result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--pg", action="store_true", help="also snapshot PostgreSQL (needs the server binaries)")
    args = ap.parse_args(argv)
    out: dict = {}
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        out["sqlite-fts5"] = snapshot("", "off", tmp)
        out["sqlite-postings"] = snapshot("", "on", tmp)
        if args.pg:
            sys.path.insert(0, str(REPO / "tests"))
            import pg_cluster

            cluster = pg_cluster.start_cluster()
            try:
                out["postgresql"] = snapshot(cluster.new_database(), "off", tmp)
            finally:
                cluster.stop()
    Path(args.out).write_text(json.dumps(out, ensure_ascii=False, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    n = sum(len(c["queries"]) for e in out.values() for c in e.values())
    print(f"{args.out}: {len(out)} engine(s), {n} queries")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
