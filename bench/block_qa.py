"""Block-QA: does the ``<memory>`` block (or one ``memory_recall``) carry the answer to "why did it fail", "how did
we fix it", "which file" ... on real sessions of ten repositories, split by repository into a tuning and a validation
half?

Usage (from the repository root, with ``../shared/data`` beside the checkout)::

    .venv/bin/python bench/block_qa.py [--half tuning|validation|both] [--label NAME] [--max-chars N]
        [--explain] [--show-misses] [--compare LABEL] [--repo NAME ...] [--no-save] [--set KEY=VALUE ...]

What it does (the machinery is ``bench/session_qa.py``'s, imported):

1. Imports the transcripts of each repository of ``REPOS`` (Claude Code JSONL, Codex rollouts, Claude Code
   ``/export`` text, SpecStory markdown, Aider chat histories) with memdir's own importers
   (``memdir.portability.transcripts.import_host``, capture gates included) into one scratch store per repository,
   its clock three days after the repository's newest transcript line. Each store is built once per run and
   serves every question about that repository.
2. For each question of ``bench/data/block_qa/<repo>.jsonl`` (fields ``id, repo, lang, kind, q, a, session``; see
   ``tests/test_block_qa_set.py`` for the rules a question obeys) builds ``context(question)`` at the default budget
   (``--max-chars`` to change it) and one ``memory_recall`` reply through ``memdir.server.tools.do_recall`` (the MCP
   tool's own body, its default k and cuts; rehearsal is suppressed so that no question changes the store for the
   next one), and checks whether an answer string appears (case-insensitive, whitespace collapsed).

Figures, per half (``TUNING``, ``VALIDATION``: split by repository, fixed here), per kind and per language:

* ``in_block``: the answer is in the ``<memory>`` block.
* ``reachable``: the answer is in the block or in the texts of the one ``memory_recall`` reply (what a host's model
  gets when it calls the tool with the question).
* ``stored``: the answer is in some stored event text (the ceiling of both).
* ``recall@8``: the answer is in the full text of one of recall's top 8 hits.
* ``recall@4``: the same for recall's top 4, as many hits as the block shows entries (``inject.max_entries``): what
  a perfect window over recall's first four could carry, the ranking's share of the block's misses.
* ``markup``: the block's characters spent on tags, headings, entry headers, bullets and cut marks (session_qa's
  definition) over all block characters.

``--explain`` prints, per question, where the answer was lost (session_qa's ``explain``: ``not stored``, ``recall``,
``block`` or ``display`` window; ``tool reply cut it`` when a top-8 hit holds it but the tool's cut text does not).
``--compare LABEL`` lists the questions gained or lost against a saved run; ``--show-misses`` prints the blocks that
miss. ``--repo`` runs one repository and saves nothing. Results go to ``<out>/block-qa.md`` (a table per run label, newest first, both
halves side by side) and ``<out>/block-qa.json``.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.session_qa import build_store, explain, markup_chars, norm  # noqa: E402

DEFAULT_DATA = ROOT.parent / "shared" / "data"
QUESTIONS_DIR = ROOT / "bench" / "data" / "block_qa"
DEFAULT_OUT = ROOT / "bench" / "results"

KINDS = ("fix", "fail", "file", "command", "decision", "status")
LANGS = ("en", "zh")

_CC = "claude-code"
#: each repository's transcripts: ``(importer source, path under <data>/transcripts)``
REPOS: dict[str, list[tuple[str, str]]] = {
    "spotter": [(_CC, "claude-code/258c7280-ae70-4798-800f-63464d01a85d.jsonl"),
                (_CC, "claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl"),
                (_CC, "claude-code/short.jsonl"), (_CC, "claude-code/subagent.jsonl"),
                (_CC, "claude-code/tool_heavy.jsonl")],
    "codemie": [(_CC, "claude-code/session-9eda1058.jsonl"), ("codex", "codex/rollout-2026-05-11T11-26-55.jsonl")],
    "M-Thisness/M-Claude": [(_CC, f"claude-code/M-Thisness__M-Claude/{s}.jsonl") for s in (
        "21037e11-89de-484d-abba-8705254aa991", "343e3472-b9b6-4561-ade0-21d1a4730c11",
        "3cfce0ff-0725-47be-a572-f8af8122b71e", "43391f62-680a-4688-9dd8-3637467d6b23",
        "554b9fa6-f719-40e8-ba70-beee69bd60b5", "57bb5674-54b1-4ce6-9157-2d341cd9bfc1",
        "8d471a2e-e373-408e-aaf4-81e16e07898c", "d8126fa6-87d4-443d-ba41-0dbf2faecb65")],
    "tonyandrewmeyer/sungather-k8s-operator": [
        (_CC, f"claude-code/tonyandrewmeyer__sungather-k8s-operator/{s}.jsonl") for s in (
            "51bf92be-2338-469f-95d8-17b190a2bdca", "525d58e9-6c05-4060-b6aa-c90788a37ea0",
            "d318c4ce-343e-409a-8e6f-4e01f276b497")],
    "moredip/session-share": [(_CC, "claude-code/moredip__session-share/general-tool-calls.jsonl")],
    "saross/trap-extraction": [("claude-export", f"claude-code-export/saross__trap-extraction/{s}.txt")
                               for s in ("2025-11-23-n", "2025-11-24-a", "2025-11-25-a")],
    "BillWan-zzzyyy/alpamayo": [("specstory", f"specstory/BillWan-zzzyyy__alpamayo/{s}.md") for s in (
        "2026-02-21_05-56Z-移除alpamayo-github库", "2026-03-02_01-05Z-file-path-explanation",
        "2026-03-02_06-49Z-推理速度与论文不符")],
    "twardoch/twat-cache": [("specstory", f"specstory/twardoch__twat-cache/{s}.md") for s in (
        "2025-03-04_03-25-codebase-analysis-and-todo-md-update", "merging-files-from-wrong-location",
        "running-lint-fix-command")],
    "Aider-AI/aider": [("aider", f"aider/Aider-AI__aider/{s}.md")
                       for s in ("add-test", "census", "chat-transcript-css", "complex-change")],
    "Aquaticat/Monochromatic": [("aider", "aider/Aquaticat__Monochromatic/.aider.chat.history.md")],
}
#: the split, by repository: every change is chosen on TUNING; VALIDATION is only reported
TUNING = ("spotter", "codemie", "M-Thisness/M-Claude", "saross/trap-extraction", "Aider-AI/aider")
VALIDATION = ("tonyandrewmeyer/sungather-k8s-operator", "moredip/session-share", "BillWan-zzzyyy/alpamayo",
              "twardoch/twat-cache", "Aquaticat/Monochromatic")
HALVES = {"tuning": TUNING, "validation": VALIDATION}


def file_key(repo: str) -> str:
    """The question file's stem for ``repo``: ``owner/name`` -> ``owner__name``."""
    return repo.replace("/", "__")


def session_stem(rel: str) -> str:
    """A transcript's session name as questions give it: its file name without the extension."""
    return Path(rel).stem


def half_of(repo: str) -> str:
    return "tuning" if repo in TUNING else "validation"


def load_questions(qdir: Path = QUESTIONS_DIR, repos: tuple[str, ...] | None = None) -> list[dict]:
    """Every question of ``qdir/*.jsonl`` (of ``repos`` when given), in file then line order."""
    out = []
    for f in sorted(qdir.glob("*.jsonl")):
        for line in f.read_text(encoding="utf-8").splitlines():
            if line.strip():
                q = json.loads(line)
                q["a"] = [q["a"]] if isinstance(q["a"], str) else list(q["a"])
                if repos is None or q["repo"] in repos:
                    out.append(q)
    return out


def raw_text(data: Path, repo: str) -> str:
    """The raw text of ``repo``'s transcripts, JSON string escapes decoded (what an answer string must occur in)."""
    parts = []
    for _, rel in REPOS[repo]:
        text = (data / "transcripts" / rel).read_text(encoding="utf-8", errors="replace")
        if rel.endswith(".jsonl"):
            for line in text.splitlines():
                try:
                    parts.append(json.dumps(json.loads(line), ensure_ascii=False))
                    parts.append(_strings(json.loads(line)))
                except ValueError:
                    parts.append(line)
        else:
            parts.append(text)
    return "\n".join(parts)


def _strings(obj) -> str:
    """Every string inside a JSON value, one per line (so an answer spanning an escaped newline still matches)."""
    out: list[str] = []
    stack = [obj]
    while stack:
        x = stack.pop()
        if isinstance(x, str):
            out.append(x)
        elif isinstance(x, dict):
            stack.extend(x.values())
        elif isinstance(x, list):
            stack.extend(x)
    return "\n".join(out)


class _NoRehearsal:
    """``m`` whose ``recall`` never rehearses: the MCP tool's body runs unchanged, the store stays as it was."""

    def __init__(self, m):
        self._m = m

    def __getattr__(self, name):
        return getattr(self._m, name)

    def recall(self, *a, **kw):
        kw["rehearse"] = False
        return self._m.recall(*a, **kw)


def tool_reply_text(m, question: str) -> str:
    """The texts (summaries, texts, the turns before and after) of the hits of one ``memory_recall`` with ``question`` at
    the tool's defaults."""
    import inspect

    from memdir.server.tools import do_recall

    k = inspect.signature(do_recall).parameters["k"].default
    reply = do_recall(_NoRehearsal(m), question, k)
    # every text the host's model reads: each hit's summary and text, and the turns before and after it
    return "\n".join(f"{h.get('summary') or ''}\n{h.get('text') or ''}\n"
                     + "\n".join((h.get(side) or {}).get("text") or "" for side in ("before", "after"))
                     for h in reply["hits"])


def run(args) -> dict:
    data = Path(args.data)
    if not (data / "transcripts").is_dir():
        sys.exit(f"block_qa: no transcripts under {data}/transcripts (pass --data)")
    repos = tuple(r for r in REPOS if (args.half == "both" or r in HALVES[args.half])
                  and (not args.repo or r in args.repo))
    questions = load_questions(Path(args.questions), repos)
    repos = tuple(r for r in repos if any(q["repo"] == r for q in questions))
    overrides = dict(kv.split("=", 1) for kv in args.set)
    rows, counts, import_s, ctx_s = [], {}, {}, 0.0
    with tempfile.TemporaryDirectory(prefix="memdir-bqa-") as t:
        tmp = Path(t)
        for repo in repos:  # one store open at a time: ten repositories' stores need not share memory
            t0 = time.perf_counter()
            m, c, now = build_store(data, tmp, repo, overrides, files=REPOS[repo])
            import_s[repo] = round(time.perf_counter() - t0, 1)
            counts[repo] = c["stored"]
            try:
                texts = [norm(r[0]) for root in m.stores.live()
                         for r in root.db.execute("SELECT text FROM docs WHERE kind='event'")]
                t0 = time.perf_counter()
                for q in (q for q in questions if q["repo"] == repo):
                    rows.append(ask(m, q, texts, args))
                ctx_s += time.perf_counter() - t0
            finally:
                if getattr(m, "_bench_cache", None) is not None:
                    m._bench_cache.save()
                m.close()
    return {"rows": rows, "counts": counts, "import_s": import_s,
            "context_ms": 1000 * ctx_s / max(1, len(rows))}


def ask(m, q: dict, texts: list[str], args) -> dict:
    """One question's row: block, tool reply and stored texts checked for an answer string."""
    block = m.context(q["q"], max_chars=args.max_chars, reinforce=False)
    answers = [norm(a) for a in q["a"]]
    nb = norm(block)
    in_block = any(a in nb for a in answers)
    reply = norm(tool_reply_text(m, q["q"]))
    hits = m.recall(q["q"], k=8, rehearse=False)
    why = explain(m, q["q"], answers, block, texts) if args.explain else {}
    reachable = in_block or any(a in reply for a in answers)
    recall8 = any(a in norm(h.text) for a in answers for h in hits)
    recall4 = any(a in norm(h.text) for a in answers for h in hits[:4])
    if why and not reachable and recall8:
        why["cause"] += "; tool reply cut it"  # in a top-8 hit's full text, not in what the tool returned
    return {**why, "id": q["id"], "repo": q["repo"], "half": half_of(q["repo"]), "lang": q["lang"], "kind": q["kind"],
            "in_block": in_block, "reachable": reachable,
            "stored": any(a in x for a in answers for x in texts),
            "recall8": recall8, "recall4": recall4,
            "chars": len(block), "markup": markup_chars(block), "block": block}


METRICS = ("in_block", "reachable", "stored", "recall8", "recall4")


def summarise(rows: list[dict]) -> dict:
    """``{half: {group: {n, in_block, reachable, stored, recall8, recall4, markup}}}``; groups ``all``, each kind, each
    language; halves ``tuning``, ``validation``, ``both``."""
    def cell(rs):
        chars = sum(r["chars"] for r in rs) or 1
        out = {"n": len(rs)}
        for k in METRICS:
            out[k] = round(sum(r[k] for r in rs) / len(rs), 3) if rs else None
        out["markup"] = round(sum(r["markup"] for r in rs) / chars, 3) if rs else None
        return out

    out = {}
    for half in ("tuning", "validation", "both"):
        rs = [r for r in rows if half == "both" or r["half"] == half]
        groups = {"all": rs}
        groups.update({k: [r for r in rs if r["kind"] == k] for k in KINDS})
        groups.update({lang: [r for r in rs if r["lang"] == lang] for lang in LANGS})
        out[half] = {g: cell(v) for g, v in groups.items()}
    return out


def _f(x) -> str:
    return "–" if x is None else f"{x:.2f}"


def table(summary: dict, label: str, max_chars) -> str:
    budget = "default budget" if max_chars is None else f"max_chars={max_chars}"
    lines = [f"### {label} ({budget})", "",
             "| questions | tuning n | block | reachable | stored | recall@8 | recall@4 | markup "
             "| validation n | block | reachable | stored | recall@8 | recall@4 | markup |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for g in ("all",) + KINDS + LANGS:
        cells = []
        for half in ("tuning", "validation"):
            s = summary[half][g]
            cells += [str(s["n"]), f"**{_f(s['in_block'])}**", f"**{_f(s['reachable'])}**", _f(s["stored"]),
                      _f(s["recall8"]), _f(s.get("recall4")), "–" if s["markup"] is None else f"{100 * s['markup']:.1f}%"]
        lines.append(f"| {g} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def per_repo(rows: list[dict]) -> str:
    lines = ["| repository | half | n | block | reachable | stored | recall@8 | recall@4 |",
             "|---|---|---|---|---|---|---|---|"]
    for repo in REPOS:
        rs = [r for r in rows if r["repo"] == repo]
        if rs:
            lines.append(f"| {repo} | {half_of(repo)} | {len(rs)} | " + " | ".join(
                f"{sum(r[k] for r in rs) / len(rs):.2f}" for k in METRICS) + " |")
    return "\n".join(lines)


def set_digest(qdir: Path) -> str:
    """A short digest of every question file's bytes: which version of the set a saved run was made on."""
    import hashlib

    h = hashlib.sha256()
    for f in sorted(qdir.glob("*.jsonl")):
        h.update(f.name.encode() + b"\0" + f.read_bytes())
    return h.hexdigest()[:12]


def set_shape(questions: list[dict]) -> str:
    """One line on the set against the issue's rules: size, repositories, Chinese share, each kind's share."""
    n = max(1, len(questions))
    kinds = {k: sum(q["kind"] == k for q in questions) / n for k in KINDS}
    zh = sum(q["lang"] == "zh" for q in questions) / n
    repos = len({q["repo"] for q in questions})
    ok = len(questions) >= 200 and repos >= 8 and zh >= 0.30 and min(kinds.values()) >= 0.12
    return (f"set: {len(questions)} questions (>= 200), {repos} repositories (>= 8), zh {zh:.0%} (>= 30%), kinds "
            + ", ".join(f"{k} {v:.0%}" for k, v in kinds.items()) + " (each >= 12%): "
            + ("meets the rules" if ok else "below the rules"))


def explain_table(rows: list[dict]) -> str:
    """Per question: kind, language, the two metrics and the first stage that lost the answer (``--explain``)."""
    lines = ["| id | half | kind | lang | block | reachable | cause | answer's rank (kind) | stored in | block entries |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        rank = f"{r['rank']} ({r['rank_kind']})" if r.get("rank") else "-"
        lines.append(f"| {r['id']} | {r['half']} | {r['kind']} | {r['lang']} | {'y' if r['in_block'] else '-'} "
                     f"| {'y' if r['reachable'] else '-'} | {r.get('cause', '')} | {rank} | {r.get('stored_in', '')} "
                     f"| {r.get('shown', '')} |")
    return "\n".join(lines)


def compare(rows: list[dict], runs: list[dict], label: str) -> str:
    """The questions whose ``in_block`` or ``reachable`` changed against the saved run ``label``."""
    old = next((r for r in runs if r["label"] == label), None)
    if old is None:
        return f"compare: no saved run labelled {label!r}"
    lines = [f"against {label!r}:"]
    for r in rows:
        o = old["per_question"].get(r["id"])
        for key in ("in_block", "reachable"):
            if o is not None and o[key] != r[key]:
                lines.append(f"  {r['id']} [{r['half']} {r['kind']}/{r['lang']}] {key}: "
                             f"{'lost' if o[key] else 'gained'}")
    return "\n".join(lines) if len(lines) > 1 else lines[0] + " no question changed"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=str(DEFAULT_DATA))
    ap.add_argument("--questions", default=str(QUESTIONS_DIR), help="directory of <repo>.jsonl question files")
    ap.add_argument("--half", choices=("tuning", "validation", "both"), default="both")
    ap.add_argument("--repo", action="append", default=[], help="only this repository (repeatable)")
    ap.add_argument("--max-chars", type=int, default=None, help="block budget (default: the configured default)")
    ap.add_argument("--label", default="current")
    ap.add_argument("--out", default=str(DEFAULT_OUT))
    ap.add_argument("--show-misses", action="store_true", help="print the block of every question it misses")
    ap.add_argument("--explain", action="store_true", help="per question: where the answer is stored, its recall "
                    "rank (top 30), the block's entry kinds, and the stage that lost it")
    ap.add_argument("--compare", metavar="LABEL", help="list the questions that changed against a saved run")
    ap.add_argument("--no-save", action="store_true")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="memdir config override")
    args = ap.parse_args(argv)
    res = run(args)
    rows = res["rows"]
    summary = summarise(rows)
    print(table(summary, args.label, args.max_chars))
    print("\n" + per_repo(rows))
    shape = set_shape(load_questions(Path(args.questions))) + f" (set digest {set_digest(Path(args.questions))})"
    print(shape)
    print(f"\nimport: {sum(res['import_s'].values()):.1f} s ({json.dumps(res['counts'])} events stored); "
          f"context + recall: {res['context_ms']:.1f} ms per question")
    if args.explain:
        print("\n" + explain_table(rows))
    jpath = Path(args.out) / "block-qa.json"
    if args.compare:
        print("\n" + compare(rows, json.loads(jpath.read_text()) if jpath.exists() else [], args.compare))
    if args.show_misses:
        qs = {q["id"]: q for q in load_questions(Path(args.questions))}
        for r in rows:
            if not r["in_block"]:
                q = qs[r["id"]]
                print(f"\n--- MISS {r['id']} [{r['kind']}/{r['lang']}] {q['q']} -> {q['a']} stored={r['stored']} "
                      f"recall8={r['recall8']} reachable={r['reachable']} {r.get('cause', '')}\n{r['block']}")
    if args.no_save or args.repo:
        return 0
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    runs = json.loads(jpath.read_text()) if jpath.exists() else []
    runs = [r for r in runs if not (r["label"] == args.label and r["max_chars"] == args.max_chars
                                    and r.get("half", "both") == args.half)]
    runs.insert(0, {"label": args.label, "max_chars": args.max_chars, "half": args.half, "summary": summary,
                    "set": shape, "per_repo": per_repo(rows),
                    "counts": res["counts"], "import_s": res["import_s"],
                    "per_question": {r["id"]: {k: r[k] for k in METRICS + ("chars", "markup")} for r in rows}})
    jpath.write_text(json.dumps(runs, indent=1, ensure_ascii=False) + "\n")
    md = ["# Block-QA: answers in the `<memory>` block and in one `memory_recall`, split by repository", "",
          "Produced by `bench/block_qa.py` (questions: `bench/data/block_qa/`, transcripts: "
          "`../shared/data/transcripts`). Newest run first; tuning and validation halves side by side; "
          "metric definitions in the script's docstring.", ""]
    for r in runs:
        md += [table(r["summary"], r["label"] + ("" if r.get("half", "both") == "both" else f" [{r['half']} only]"),
                     r["max_chars"]), "", r.get("per_repo", ""), "", r.get("set", ""), "",
               f"events stored: {json.dumps(r.get('counts', {}))}", ""]
    (out / "block-qa.md").write_text("\n".join(md))
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT / "src"))
    raise SystemExit(main())
