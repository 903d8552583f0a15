"""Session-QA: does the ``<memory>`` block carry the answer to what a developer asks days after a coding session?

Usage (from the repository root, with ``../shared/data`` beside the checkout)::

    .venv/bin/python bench/session_qa.py [--data ../shared/data] [--questions bench/data/session_qa.jsonl]
        [--max-chars 1200] [--label NAME] [--out bench/results] [--show-misses] [--explain] [--sections hits]
        [--set recall.channel=hybrid --set embed.provider=e5]

What it does:

1. Imports every real transcript under ``<data>/transcripts/claude-code`` and ``<data>/transcripts/codex`` with
   memdir's own importer (``memdir.portability.transcripts.import_host``, the path ``memdir import`` takes, capture gates
   included) into one scratch store per project they were recorded in (``PROJECTS``: spotter, codemie). Each
   store's clock is set to three days after its newest transcript line.
2. For each question of ``bench/data/session_qa.jsonl`` (written for memdir: paraphrased questions in English and
   Chinese about those sessions, each with one or more short answer strings), builds ``context(question)`` at
   ``--max-chars`` (default 1,200, the shipped default) and checks whether an answer string appears in the block
   (case-insensitive, whitespace collapsed).

Figures:

* ``in_block``: share of questions whose answer is in the block (the target: >= 0.80).
* ``stored``: share whose answer is in some stored event text at all (the ceiling for ``in_block``).
* ``recall@8``: share whose answer is in the text of one of the top 8 recall hits (what recall found).
* ``markup``: characters of the blocks spent on headers and markup, over all block characters (target <= 10%).
  Markup = the ``<memory>`` tags, section headings (``## …``), entry headers (``### …`` lines, or the compact
  ``[handle kind date]`` prefix), list bullets, truncation marks, and the newline ending each of these.
* ``layers``: share of block characters in the rules and outline sections (headings included).

``--explain`` prints, per question, where the answer is stored (event roles), its rank in recall's top 30, the kinds of
the block's entries, and the first stage that lost it: ``recall`` (not in the top 30, or below the 12 hits ``context``
looks at), ``block`` (in those 12 but not shown) or ``display`` (shown, but the window cut the answer out). Hybrid runs
keep the vectors of the texts they embed in ``~/.cache/memdir-bench/session-qa`` (same model, same text).

Results go to ``<out>/session-qa.md`` (a table per run label, newest first) and ``<out>/session-qa.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT.parent / "shared" / "data"
DEFAULT_QUESTIONS = ROOT / "bench" / "data" / "session_qa.jsonl"
DEFAULT_OUT = ROOT / "bench" / "results"

_OLD_HEADER = re.compile(r"(?m)^### [^\n]*\n?")
_NEW_HEADER = re.compile(r"(?m)^\[[^\]\n]{1,60}\] ?")
_SECTION = re.compile(r"(?m)^## [^\n]*\n?")
_TAGS = re.compile(r"</?memory>\n?")
_BULLET = re.compile(r"(?m)^- ")
_MARKS = re.compile(r"…|\[… \d+ chars elided by memdir …\]")


def norm(s: str) -> str:
    return " ".join(s.casefold().split())


def markup_chars(block: str) -> int:
    """Characters of ``block`` that are headers or markup (see the module docstring)."""
    if not block:
        return 0
    n = 0
    for rx in (_TAGS, _SECTION, _OLD_HEADER, _NEW_HEADER, _BULLET, _MARKS):
        n += sum(len(m.group(0)) for m in rx.finditer(block))
    return n


def layer_chars(block: str) -> int:
    """Characters of the rules and outline sections (from their heading to the next section)."""
    n = 0
    for m in re.finditer(r"(?ms)^## (Rules|Outline)[^\n]*\n.*?(?=^## |^</memory>|\Z)", block):
        n += len(m.group(0))
    top = re.match(r"<memory>\n((?:- [^\n]*\n)+)", block)  # an outline at the top has no heading of its own
    if top:
        n += len(top.group(1))
    return n


def load_questions(path: Path) -> list[dict]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            q = json.loads(line)
            q["a"] = [q["a"]] if isinstance(q["a"], str) else list(q["a"])
            out.append(q)
    return out


#: which project each transcript was recorded in (by its ``cwd``): one scratch store per project, as ``memdir import``
#: would route them (case C23); a question is asked in the store of the project its session belongs to
PROJECTS = {
    "spotter": [("claude-code", "258c7280-ae70-4798-800f-63464d01a85d.jsonl"), ("claude-code", "4d5611e5-241a-462a-8d15-5122611a9569.jsonl"),
                ("claude-code", "short.jsonl"), ("claude-code", "subagent.jsonl"), ("claude-code", "tool_heavy.jsonl")],
    "codemie": [("claude-code", "session-9eda1058.jsonl"), ("codex", "rollout-2026-05-11T11-26-55.jsonl")],
}
SESSION_PROJECT = {"258c7280": "spotter", "4d5611e5": "spotter", "short": "spotter", "subagent": "spotter",
                   "tool_heavy": "spotter", "9eda1058": "codemie", "codex": "codemie"}


def build_store(data: Path, tmp: Path, project: str, overrides: dict | None = None,
                files: list[tuple[str, str]] | None = None):
    """A scratch store holding the transcripts of ``project`` (``files``: ``(source, path under <data>/transcripts)``
    pairs, default ``PROJECTS[project]``); returns ``(Memdir, import counts, clock)``."""
    import memdir
    from memdir.portability.importers import iter_events
    from memdir.timeutil import parse_ts
    from memdir.portability.transcripts import import_host

    if files is None:
        files = [(source, f"{source}/{name}") for source, name in PROJECTS[project]]
    files = [(source, data / "transcripts" / rel) for source, rel in files]
    newest = None
    for source, f in files:
        for ev in iter_events(source, f):
            if ev.get("ts"):
                t = parse_ts(ev["ts"])
                newest = t if newest is None or t > newest else newest
    now = newest + timedelta(days=3)
    proj = tmp / project.replace("/", "__")
    proj.mkdir()
    m = memdir.open(proj, home=tmp / "home", clock=lambda: now, config=overrides or None)
    counts = {"stored": 0}
    import inspect

    extra = {"projects": "here"} if "projects" in inspect.signature(import_host).parameters else {}  # this store is the project
    for source, f in files:
        counts["stored"] += import_host(m, source, f, progress=False, **extra)["stored"]
    if m.config.get("recall.channel") != "lexical":
        from memdir.engine import hybrid as vectors

        sys.path.insert(0, str(ROOT))
        from bench.quality import DEFAULT_CACHE, CachedProvider

        # the vectors of texts embedded by an earlier run come from a disk cache (same model, same text)
        cached = CachedProvider(vectors.provider_for(m, strict=True), DEFAULT_CACHE / "session-qa")
        vectors.set_provider(m, cached)
        m.backfill()  # embed every imported event before asking
        cached.save()
        m._bench_cache = cached
    return m, counts, now


def run(args) -> dict:
    data = Path(args.data)
    if not (data / "transcripts").is_dir():
        sys.exit(f"session_qa: no transcripts under {data}/transcripts (pass --data)")
    questions = load_questions(Path(args.questions))
    with tempfile.TemporaryDirectory(prefix="memdir-sqa-") as t:
        tmp = Path(t)
        t0 = time.perf_counter()
        overrides = dict(kv.split("=", 1) for kv in args.set)
        stores = {p: build_store(data, tmp, p, overrides) for p in PROJECTS}
        import_s = time.perf_counter() - t0
        counts = {p: s[1] for p, s in stores.items()}
        now = max(s[2] for s in stores.values())
        texts = {p: [norm(r[0]) for root in s[0].stores.live() for r in root.db.execute("SELECT text FROM docs WHERE kind='event'")]
                 for p, s in stores.items()}
        rows = []
        t0 = time.perf_counter()
        for q in questions:
            project = SESSION_PROJECT[q["session"]]
            m = stores[project][0]
            kw = {"sections": tuple(args.sections.split(","))} if args.sections else {}
            block = m.context(q["q"], max_chars=args.max_chars, reinforce=False, **kw)
            hits = m.recall(q["q"], k=8)
            answers = [norm(a) for a in q["a"]]
            nb = norm(block)
            why = explain(m, q["q"], answers, block, texts[project]) if args.explain else {}
            rows.append({**why,
                "id": q["id"], "lang": q["lang"],
                "in_block": any(a in nb for a in answers),
                "stored": any(a in x for a in answers for x in texts[project]),
                "recall8": any(a in norm(h.text) for a in answers for h in hits),
                "chars": len(block), "markup": markup_chars(block), "layers": layer_chars(block),
                "block": block,
            })
        ctx_s = time.perf_counter() - t0
        for st in stores.values():
            if getattr(st[0], "_bench_cache", None) is not None:
                st[0]._bench_cache.save()
            st[0].close()
    return {"rows": rows, "counts": counts, "import_s": import_s, "context_ms": 1000 * ctx_s / max(1, len(questions)),
            "now": now.isoformat()}


def explain(m, question: str, answers: list[str], block: str, texts: list[str]) -> dict:
    """Why a question's answer is (not) in the block: where it is stored, where recall ranks it (top 30), which
    entries the block showed (kinds) and which of them hold it; ``cause`` names the first stage that lost it."""
    holders = [h for h in m.recall(question, k=30)]
    has = lambda t: any(a in norm(t) for a in answers)  # noqa: E731
    rank = next((i + 1 for i, h in enumerate(holders) if has(h.text)), None)
    stored_kinds = sorted({r[0] for root in m.stores.live() for r in root.db.execute(
        "SELECT role, text FROM docs WHERE kind='event'") if has(r[1])})
    shown = re.findall(r"(?m)^\[([0-9a-z]{4,8})(?: ([a-z]+))?", block)
    entry_kinds = [k or "tool" for _, k in shown]  # a tool entry's header has no kind: its call line names the tool
    rank_kind = holders[rank - 1].kind if rank else ""
    if any(a in norm(block) for a in answers):
        cause = "in block"
    elif not stored_kinds:
        cause = "not stored"
    elif rank is None:
        cause = "recall: not in top 30"
    elif rank > 12:
        cause = f"recall: rank {rank} (context looks at 12)"
    else:
        hh = holders[rank - 1].handle
        if hh and any(h == hh for h, _ in shown):
            cause = f"display: rank {rank} shown, answer cut"
        else:
            cause = f"block: rank {rank} not shown"
    return {"cause": cause, "rank": rank, "rank_kind": rank_kind, "stored_in": ",".join(stored_kinds),
            "shown": " ".join(entry_kinds)}


def explain_table(rows: list[dict], questions: dict) -> str:
    lines = ["| id | lang | cause | answer's rank (kind) | stored in | block entries (kinds) |", "|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['id']} | {r['lang']} | {r['cause']} | {r['rank'] or '-'} {('(' + r['rank_kind'] + ')') if r['rank'] else ''} "
                     f"| {r['stored_in']} | {r['shown']} |")
    return "\n".join(lines)


def summarise(rows: list[dict]) -> dict:
    def rate(rs, key):
        return round(sum(r[key] for r in rs) / len(rs), 3) if rs else 0.0

    out = {}
    for name, rs in (("all", rows), ("en", [r for r in rows if r["lang"] == "en"]), ("zh", [r for r in rows if r["lang"] == "zh"])):
        chars = sum(r["chars"] for r in rs) or 1
        out[name] = {"n": len(rs), "in_block": rate(rs, "in_block"), "stored": rate(rs, "stored"),
                     "recall@8": rate(rs, "recall8"), "markup": round(sum(r["markup"] for r in rs) / chars, 3),
                     "layers": round(sum(r["layers"] for r in rs) / chars, 3),
                     "avg_chars": round(chars / max(1, len(rs)))}
    return out


def table(summary: dict, label: str, max_chars: int) -> str:
    lines = [f"### {label} (max_chars={max_chars})", "",
             "| questions | n | answer in block | answer stored | answer in recall top 8 | headers+markup | rules+outline | avg block chars |",
             "|---|---|---|---|---|---|---|---|"]
    for name in ("all", "en", "zh"):
        s = summary[name]
        lines.append(f"| {name} | {s['n']} | **{s['in_block']:.3f}** | {s['stored']:.3f} | {s['recall@8']:.3f} | "
                     f"**{100 * s['markup']:.1f}%** | {100 * s['layers']:.1f}% | {s['avg_chars']} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=str(DEFAULT_DATA))
    ap.add_argument("--questions", default=str(DEFAULT_QUESTIONS))
    ap.add_argument("--max-chars", type=int, default=1200)
    ap.add_argument("--label", default="current")
    ap.add_argument("--out", default=str(DEFAULT_OUT))
    ap.add_argument("--show-misses", action="store_true")
    ap.add_argument("--sections", default="", help="context sections, e.g. 'hits' (what a hook sends per prompt since "
                    "issue 9: rules and outline come once per session); default: all")
    ap.add_argument("--no-save", action="store_true")
    ap.add_argument("--explain", action="store_true", help="per question: where the answer is stored, its recall rank "
                    "(top 30), the block's entry kinds, and the stage that lost it")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="memdir config override, e.g. --set recall.channel=hybrid --set embed.provider=e5")
    args = ap.parse_args(argv)
    res = run(args)
    summary = summarise(res["rows"])
    print(table(summary, args.label, args.max_chars))
    print(f"\nimport: {res['import_s']:.1f} s ({json.dumps({k: v.get('stored') for k, v in res['counts'].items()})} events stored); "
          f"context: {res['context_ms']:.1f} ms per question")
    if args.explain:
        print("\n" + explain_table(res["rows"], {}))
    if args.show_misses:
        for r in res["rows"]:
            if not r["in_block"]:
                print(f"\n--- MISS {r['id']} stored={r['stored']} recall8={r['recall8']}\n{r['block']}")
    if args.no_save:
        return 0
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    jpath = out / "session-qa.json"
    runs = json.loads(jpath.read_text()) if jpath.exists() else []
    label = args.label + (f" [sections={args.sections}]" if args.sections else "")
    runs = [r for r in runs if not (r["label"] == label and r["max_chars"] == args.max_chars)]
    runs.insert(0, {"label": label, "max_chars": args.max_chars, "summary": summary, "now": res["now"],
                    "per_question": {r["id"]: {k: r[k] for k in ("in_block", "stored", "recall8", "chars", "markup")} for r in res["rows"]}})
    jpath.write_text(json.dumps(runs, indent=1, ensure_ascii=False) + "\n")
    md = ["# Session-QA: answers in the `<memory>` block", "",
          "Produced by `bench/session_qa.py` (questions: `bench/data/session_qa.jsonl`, transcripts: `../shared/data/transcripts`). "
          "Newest run first; metric definitions in the script's docstring.", ""]
    for r in runs:
        md += [table(r["summary"], r["label"], r["max_chars"]), ""]
    (out / "session-qa.md").write_text("\n".join(md))
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT / "src"))
    raise SystemExit(main())
