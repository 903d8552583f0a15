"""How far can a better ranking of today's candidates go? Upper bounds for LoCoMo turn recall@10 (issue 10's target
0.85 with a model).

For every question it collects, through memdir's own channels (bench/fusion_sweep.py ``collect``: the lexical list
and one vector list per provider, 200 candidates each, with each candidate's session neighbours), then prints:

* ``memdir now``: turn recall@10 of memdir's fusion for the first provider (blend / convex, then the session context
  ``recall.context_share``), as bench/quality.py measures it;
* ``union of top-N``: the share of gold turns found in the union of every channel's top N (no fusion of those
  channels that keeps 10 can do better than the top-10 union);
* ``perfect reranker of the top N``: turn recall@10 if a reranker put every gold turn of memdir's fused top N first
  (``min(gold found, 10) / gold``) — what a cross-encoder over N candidates could reach at best;
* the best convex mix of every channel (lexical + each provider's vectors), blended with RRF and the session context
  as recall does, over a small grid.

    .venv/bin/python bench/ceiling.py --providers e5,sentence-transformers,use [--rows-dir DIR] [--out FILE]

Collected lists are kept as ``<rows-dir>/ceiling-<provider>.pkl`` (a second run only re-scores). Embeddings are
cached like bench/quality.py's. Results: bench/results/locomo-ceiling.md.
"""

from __future__ import annotations

import argparse
import itertools
import os
import pickle
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if __package__ in (None, ""):
    here = str(Path(__file__).resolve().parent)
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != here]
    sys.path.insert(0, str(ROOT))

from bench import metrics as M  # noqa: E402
from bench.fusion_sweep import collect, context, default, rrf_scores  # noqa: E402
from bench.quality import DEFAULT_CACHE, DEFAULT_DATA, make_specs  # noqa: E402

DEPTHS = (10, 20, 50, 100)
RERANK = (10, 20, 30, 50, 100)


def _expand(r, ids) -> list[str]:
    out: list[str] = []
    for i in ids:
        out.extend(r["alias"].get(i, [i]))
    return M.dedupe(out)


def _recall(r, ids, k=10) -> float:
    return len(set(_expand(r, ids)[:k]) & r["q"].relevant) / len(r["q"].relevant)


def _found(r, ids) -> float:
    return len(set(_expand(r, ids)) & r["q"].relevant) / len(r["q"].relevant)


def _oracle(r, ids) -> float:
    return min(len(set(_expand(r, ids)) & r["q"].relevant), 10) / len(r["q"].relevant)


def _mix(r, shares: dict[str, float]) -> dict:
    """(1 - Σ shares) · BM25 / best + Σ share_p · min-max(cosine_p) over the first 100 of each list."""
    s: dict = {}
    lex = r["lex"][:100]
    top = lex[0][1] if lex else 1.0
    rest = 1.0 - sum(shares.values())
    for i, v in lex:
        s[i] = rest * v / (top or 1.0)
    for p, a in shares.items():
        lst = r["vecs"][p][:100]
        if not a or not lst:
            continue
        hi, lo = lst[0][1], lst[-1][1]
        for i, v in lst:
            s[i] = s.get(i, 0.0) + a * (v - lo) / ((hi - lo) or 1.0)
    return s


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--providers", default="e5,sentence-transformers,use")
    ap.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    ap.add_argument("--rows-dir", type=Path, default=None)
    ap.add_argument("--context-share", type=float, default=0.2)
    ap.add_argument("--out", type=Path, default=None)
    a = ap.parse_args(argv)
    log = lambda s: print(s, file=sys.stderr, flush=True)  # noqa: E731
    spec = make_specs()["locomo"]
    cases = spec.load(a.data)
    provs = [p for p in a.providers.split(",") if p]
    lists = {}
    for p in provs:
        f = a.rows_dir / f"ceiling-{p}.pkl" if a.rows_dir else None
        if f and f.is_file():
            lists[p] = pickle.loads(f.read_bytes())
        else:
            lists[p] = [{**r, "group_of": None} for r in collect(spec, cases, p, a.cache, {}, log)]
            if f:
                f.parent.mkdir(parents=True, exist_ok=True)
                f.write_bytes(pickle.dumps(lists[p]))
    first = provs[0]
    rows = []
    for n, r in enumerate(lists[first]):
        assert all(lists[p][n]["q"].qid == r["q"].qid for p in provs)
        rows.append({**r, "vecs": {p: lists[p][n]["vec"] for p in provs}})
    cats = sorted({r["q"].label for r in rows})
    lines = ["| bound | turn R@10 | " + " | ".join(cats) + " |", "|---|---|" + "---|" * len(cats)]

    def add(name, vals):
        by = [sum(v for v, r in zip(vals, rows) if r["q"].label == c) / sum(1 for r in rows if r["q"].label == c) for c in cats]
        lines.append(f"| {name} | {sum(vals) / len(vals):.3f} | " + " | ".join(f"{x:.3f}" for x in by) + " |")
        log(lines[-1])

    now = [context(default(r), r["nb"], a.context_share) for r in rows]
    add(f"memdir now ({first}: fusion + session context {a.context_share})", [_recall(r, ids) for r, ids in zip(rows, now)])
    ids = lambda lst, n: [i for i, _ in lst[:n]]  # noqa: E731
    for n in DEPTHS:
        add(f"union of top-{n}: lexical, " + ", ".join(provs),
            [_found(r, ids(r["lex"], n) + [i for p in provs for i in ids(r["vecs"][p], n)]) for r in rows])
    for n in RERANK:
        add(f"perfect reranker of memdir's top {n}", [_oracle(r, x[:n]) for r, x in zip(rows, now)])
    best = None
    grid = [(0.1, 0.2, 0.3, 0.35)] + [(0.0, 0.1, 0.2)] * (len(provs) - 1)
    for combo in itertools.product(*grid):
        shares = dict(zip(provs, combo))

        def rule(r):
            s = _mix(r, shares)
            f = rrf_scores(r["lex"][:100], r["vecs"][first][:100], 4.0, 1.0, 60)
            cm, fm = (max(s.values(), default=0) or 1.0), (max(f.values(), default=0) or 1.0)
            b = {i: 0.3 * s.get(i, 0) / cm + 0.7 * f.get(i, 0) / fm for i in set(s) | set(f)}
            return context(b, r["nb"], a.context_share)
        vals = [_recall(r, rule(r)) for r in rows]
        if best is None or sum(vals) > sum(best[1]):
            best = (shares, vals)
    add("best mix of every channel (" + ", ".join(f"{p} {v}" for p, v in best[0].items()) + ") + RRF + context", best[1])
    table = "\n".join(lines)
    print(table)
    if a.out:
        a.out.write_text(table + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
