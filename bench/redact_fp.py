"""Redaction findings on text that holds no planted secret: the project's prose corpus (tests/corpus/prose.txt)
and the shared agent transcripts (../shared/data/transcripts, every string of every JSONL line).

Usage: python bench/redact_fp.py [--show N]   (prints a table per kind and up to N samples of each kind)

Every finding here is a candidate false positive; the samples are read by a person to tell real secrets
(CSRF tokens, session cookies that were pasted into a transcript) from false alarms (hashes, ids, data).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))

from memdir.capture.redact import find_secrets  # noqa: E402

SHARED = HERE.parent.parent / "shared"


def strings(obj):
    if isinstance(obj, str):
        yield obj
    elif isinstance(obj, dict):
        for v in obj.values():
            yield from strings(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from strings(v)


def texts() -> dict[str, list[str]]:
    out: dict[str, list[str]] = {"corpus": (HERE.parent / "tests" / "corpus" / "prose.txt").read_text(encoding="utf-8").splitlines()}
    tdir = Path(sys.argv[0]).resolve().parent.parent.parent / "shared" / "data" / "transcripts"
    tdir = tdir if tdir.is_dir() else SHARED / "data" / "transcripts"
    items: list[str] = []
    for f in sorted(tdir.rglob("*.jsonl")):
        for line in f.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                items += list(strings(json.loads(line)))
            except ValueError:
                items.append(line)
    out["transcripts"] = items
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--show", type=int, default=5)
    args = ap.parse_args()
    rows = []
    samples: dict[tuple[str, str], list[str]] = defaultdict(list)
    for name, items in texts().items():
        kinds: Counter = Counter()
        chars = 0
        for t in items:
            chars += len(t)
            for kind, s, e in find_secrets(t):
                kinds[kind] += 1
                if len(samples[(name, kind)]) < args.show:
                    samples[(name, kind)].append(" ".join(t[max(0, s - 40):e + 10].split())[:160])
        rows.append((name, len(items), chars, kinds))
    print("| text | strings | chars | findings by kind |")
    print("|---|---|---|---|")
    for name, n, chars, kinds in rows:
        print(f"| {name} | {n:,} | {chars:,} | {', '.join(f'{k} {v}' for k, v in kinds.most_common()) or 'none'} |")
    for (name, kind), ss in sorted(samples.items()):
        print(f"\n{name} / {kind}:")
        for x in ss:
            print("   ", x)


if __name__ == "__main__":
    main()
