"""Where people wait (issue 26), in one run on 10,000 real turns from LongMemEval-S (../shared/data), memdir's figure
beside bm25s's: ingest through ``Memdir.import_events`` (redaction and tokenizing included), the store on disk after
close (with its bytes per event by part, from SQLite's ``dbstat``), recall p50 with nothing held (SQL) and with the
postings held, ``memdir mcp`` ready p50/p95, and the ``make test`` seconds given on the command line.

Each side runs in its own fresh process (``--worker``), alternating, ``--rounds`` times (median reported); with
``--before REF`` memdir's import of the commit ``REF`` (its ``src/`` exported with ``git archive``) runs in the same
rounds. The CPU seconds of the import's stages (redaction, tokenizing, the text hash, compression) are measured on the
same texts in a process of their own. Usage::

    .venv/bin/python bench/ingest.py [--rounds 3] [--before main] [--make-test-s 189 --make-test-note "..."]
                                     [--out bench/results/ingest.md]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from bench import speed  # noqa: E402  (the real-turn loader, latency(), the held postings)

N_QUERIES = 100

#: dbstat names grouped into the parts the size row reports
PARTS = {
    "FTS postings (fts_data, fts_idx)": ("fts_data", "fts_idx"),
    "FTS row sizes (fts_docsize)": ("fts_docsize",),
    "docs rows (text head + compressed tail, keys, hashes, times)": ("docs",),
    "docs indexes (ref, content hash, session order, kind/time, handle)": (
        "sqlite_autoindex_docs_1", "docs_event_sha", "docs_event_order", "docs_kind_ts", "docs_handle",
        "docs_note_sha", "docs_session"),
    "heat tiers (tiers + its indexes)": ("tiers", "sqlite_autoindex_tiers_1", "tiers_tier"),
    "passages (+ index)": ("passages", "passages_doc"),
}


def _db_file(proj: Path) -> Path:
    return next(proj.glob(".memory/.memdir/index.sqlite3"))


def size_parts(path: Path) -> dict[str, Any]:
    """Bytes of the index file by part (``dbstat``), the free pages, and the compression dictionary's bytes."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    by_name = dict(db.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name"))
    page = db.execute("PRAGMA page_size").fetchone()[0]
    free = db.execute("PRAGMA freelist_count").fetchone()[0] * page
    zdict = db.execute("SELECT length(value) FROM meta WHERE key = 'zdict'").fetchone()
    stored = {r[1] for r in db.execute("PRAGMA table_info(docs)")}  # m014: the hash's bytes, the ISO time only if kept
    sha, ts = ("sha", "ts_raw") if "sha" in stored else ("content_sha256", "ts")
    cols = db.execute(f"SELECT sum(length(text_head)), sum(length(CAST(text_tail AS BLOB))), sum(length({sha})), "
                      f"sum(length(ref)), coalesce(sum(length({ts})), 0), count(*) FROM docs").fetchone()
    db.close()
    out: dict[str, int] = {}
    seen = set()
    for part, names in PARTS.items():
        out[part] = sum(by_name.get(n, 0) for n in names)
        seen.update(names)
    out["everything else (schema, meta incl. the dictionary, empty tables)"] = sum(
        v for k, v in by_name.items() if k not in seen)
    out["free pages"] = free
    return {"parts": out, "file_bytes": path.stat().st_size, "zdict_bytes": zdict[0] if zdict else 0,
            "text_head_bytes": cols[0], "text_tail_bytes": cols[1], "sha_bytes": cols[2], "ref_bytes": cols[3],
            "ts_bytes": cols[4], "rows": cols[5]}


def _children_cpu() -> float:
    import resource

    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def worker_memdir(workdir: Path, held: bool) -> dict[str, Any]:
    import memdir

    events, questions = speed._real_items(speed.REAL_TURNS)
    proj, home = workdir / "proj", workdir / "home"
    (proj / ".git").mkdir(parents=True)
    home.mkdir()
    out: dict[str, Any] = {"items": len(events), "raw_text_bytes": sum(len(e["text"].encode("utf-8")) for e in events)}
    with memdir.open(proj, home=home) as m:
        t, cpu, kids = time.perf_counter(), time.process_time(), _children_cpu()
        c = m.import_events(events)
        out["import_s"] = time.perf_counter() - t
        # steadier than the wall time on a shared machine; the import's worker process (memdir.engine.ahead) included
        out["import_cpu_s"] = time.process_time() - cpu + _children_cpu() - kids
        out["stored"] = c["stored"]
    out["events_per_s"] = len(events) / out["import_s"]
    out["size"] = size_parts(_db_file(proj))
    qs = questions[:N_QUERIES]
    with memdir.open(proj, home=home) as m:  # every round, as bm25s's recall is: the table gives the median
        out["sql"] = speed.latency(lambda q: m.recall(q, k=speed.K), qs)
        if held:
            out.update(speed._held(m, qs))
    return out


def worker_bm25s(workdir: Path) -> dict[str, Any]:
    import bm25s

    from memdir.recall.tokenize import query_tokens, tokenize

    events, questions = speed._real_items(speed.REAL_TURNS)
    texts = [e["text"] for e in events]
    t = time.perf_counter()
    toks = [tokenize(x) or ["\x00"] for x in texts]
    tok_s = time.perf_counter() - t
    retriever = bm25s.BM25()
    t = time.perf_counter()
    retriever.index(toks, show_progress=False)
    index_s = time.perf_counter() - t
    retriever.save(str(workdir / "bm25s"))
    saved = sum(f.stat().st_size for f in (workdir / "bm25s").rglob("*") if f.is_file())
    lat = speed.latency(lambda q: retriever.retrieve([query_tokens(q) or ["\x00"]], k=speed.K, show_progress=False),
                        questions[:N_QUERIES])
    return {"docs_per_s": len(texts) / (tok_s + index_s), "docs_per_s_index_only": len(texts) / index_s,
            "saved_bytes": saved, "recall": lat}


def worker_stages() -> dict[str, Any]:
    """CPU seconds of the import's per-text stages on the 10k texts, each on its own (fresh caches)."""
    import zlib

    from memdir.capture import events as cevents
    from memdir.notes import markdown as notes
    from memdir.recall.tokenize import tokenize

    events, _ = speed._real_items(speed.REAL_TURNS)
    texts = [e["text"] for e in events]
    out = {}
    try:  # the store's compression: Zstandard with a dictionary trained on the first tails (memdir.store.sqlite.codec)
        import zstandard

        from memdir.store.sqlite import codec

        tails = [x[codec.TEXT_HEAD:].encode() for x in texts if len(x) > codec.TEXT_HEAD + codec.COMPRESS_MIN]
        zc = zstandard.ZstdCompressor(level=codec.ZSTD_LEVEL, dict_data=zstandard.train_dictionary(
            codec.ZSTD_DICT_BYTES, tails[:300], level=codec.ZSTD_LEVEL))
        squeeze = ("compression (Zstandard, the store's dictionary)", lambda x: zc.compress(x[codec.TEXT_HEAD:].encode()))
    except (ImportError, AttributeError):  # a tree from before it (--before): zlib as it wrote
        squeeze = ("compression (zlib, level 6)", lambda x: zlib.compress(x.encode(), 6))
    for name, fn in (("redaction", cevents.redact_text), ("tokenizing", tokenize), ("text hash (SHA-256 of the "
                     "normalized text)", notes.content_hash), squeeze):
        t = time.process_time()
        for x in texts:
            fn(x)
        out[name] = time.process_time() - t
    return out


def _run(args: list[str], src: Path) -> dict[str, Any]:
    env = dict(os.environ, PYTHONPATH=f"{src}{os.pathsep}{ROOT}")
    p = subprocess.run([sys.executable, str(Path(__file__).resolve()), *args], env=env, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"worker {args} failed: {p.stderr[-800:]}")
    return json.loads(p.stdout.strip().splitlines()[-1])


def run(rounds: int, before: str | None, mcp_runs: int) -> dict[str, Any]:
    from bench import mcp_ready

    tmp = Path(tempfile.mkdtemp(prefix="memdir-ingest-"))
    res: dict[str, Any] = {"memdir": [], "bm25s": [], "before": []}
    try:
        old = mcp_ready.export_src(before, tmp / "before") if before else None
        res["stages"] = _run(["--worker", "stages"], ROOT / "src")
        for r in range(rounds):
            print(f"[ingest] round {r + 1}/{rounds}", file=sys.stderr, flush=True)
            res["memdir"].append(_run(["--worker", "memdir", "--workdir", str(tmp / f"m{r}")] + (["--held"] if r == 0 else []),
                                      ROOT / "src"))
            res["bm25s"].append(_run(["--worker", "bm25s", "--workdir", str(tmp / f"b{r}")], ROOT / "src"))
            if old is not None:
                res["before"].append(_run(["--worker", "memdir", "--workdir", str(tmp / f"o{r}")], old))
            for d in ("m", "b", "o"):
                shutil.rmtree(tmp / f"{d}{r}", ignore_errors=True)
        work = tmp / "mcp"
        (work / "proj" / ".git").mkdir(parents=True)
        (work / "home").mkdir()
        print("[ingest] memdir mcp ready", file=sys.stderr, flush=True)
        res["mcp"] = dict(mcp_ready.measure({"ready": lambda: mcp_ready.one_start(ROOT / "src", work)}, mcp_runs, 3))["ready"]
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if before:
        res["before_ref"] = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", before], capture_output=True,
                                           text=True).stdout.strip()
    return res


def _med(xs: list[dict[str, Any]], key: str) -> float | None:
    vals = [x[key] for x in xs if key in x]
    return statistics.median(vals) if vals else None


def render(res: dict[str, Any], rounds: int, make_test_s: float | None, make_test_note: str) -> str:
    md, bm = res["memdir"], res["bm25s"]
    first = md[0]
    n = first["items"]
    size = first["size"]
    mb = size["file_bytes"] / 1e6
    rate = _med(md, "events_per_s")
    bm_rate = statistics.median(x["docs_per_s"] for x in bm)
    bm_recall = statistics.median(x["recall"]["p50_ms"] for x in bm)
    sqls = [x["sql"]["p50_ms"] for x in md if x.get("sql")]
    sql = statistics.median(sqls) if sqls else None  # the median of the rounds, as bm25s's
    held = first.get("held", {}).get("p50_ms")
    cpu = n / _med(md, "import_cpu_s")
    before = (f" (before, {res['before_ref']}: {_med(res['before'], 'events_per_s'):,.0f}/s, "
              f"{n / _med(res['before'], 'import_cpu_s'):,.0f} per CPU s)" if res.get("before") else "")
    sizes = lambda xs: sorted(x["size"]["file_bytes"] / 1e6 for x in xs)  # noqa: E731
    span = lambda v: f"{v[0]:.2f}" if v[-1] - v[0] < 0.005 else f"{v[0]:.2f}-{v[-1]:.2f}"  # noqa: E731
    bsize = f" (before: {span(sizes(res['before']))} MB over the rounds)" if res.get("before") else ""
    mcp = res["mcp"]
    ok = lambda c: "yes" if c else "**no**"  # noqa: E731
    rows = [
        ("ingest through `import_events`, real turns (redaction, tokenizing, compression, FTS5 writes)",
         f"{rate:,.0f} events/s, {cpu:,.0f} per CPU s{before}", f"bm25s indexes the same {n:,} at {bm_rate:,.0f} docs/s (memdir's tokenizer "
         f"included; {statistics.median(x['docs_per_s_index_only'] for x in bm):,.0f}/s without it)", "≥ 5,000/s",
         ok(rate >= 5000)),
        ("store on disk after close", f"{span(sizes(md))} MB{bsize}", f"raw texts {first['raw_text_bytes'] / 1e6:.2f} MB; bm25s "
         f"saved index {statistics.median(x['saved_bytes'] for x in bm) / 1e6:.2f} MB (no texts)", "≤ 15 MB", ok(mb <= 15)),
        ("recall p50, nothing held (SQL) / postings held", f"{sql:.2f} / {held:.2f} ms" if sql and held else "n/a",
         f"bm25s {bm_recall:.2f} ms ({sql / bm_recall:.1f}× / {held / bm_recall:.1f}×)" if sql and held else "",
         "≤ 25× / ≤ 10×", ok(bool(sql and held and sql / bm_recall <= 25 and held / bm_recall <= 10))),
        ("`memdir mcp` ready (initialize + tools/list answered), p50 / p95", f"{mcp['p50']:.0f} / {mcp['p95']:.0f} ms "
         f"({mcp['runs']} cold starts)", "Codex waits 1,000 ms for an optional MCP server", "≤ 300 ms p50",
         ok(mcp["p50"] <= 300)),
        ("`make test`", f"{make_test_s:.0f} s" if make_test_s else "not measured", make_test_note or "", "≤ 300 s",
         ok(bool(make_test_s and make_test_s <= 300))),
    ]
    out = [f"# Where people wait: ingest, store size, recall, MCP start, make test (issue 26)\n",
           f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; Python {platform.python_version()}, {os.cpu_count()} "
           f"cores, load average at the end {' '.join(f'{x:.2f}' for x in os.getloadavg())} (the machine is shared). "
           f"{n:,} distinct real turns of LongMemEval-S, in-process, each side in fresh processes, median of {rounds} "
           f"rounds (recall: the {first.get('sql', {}).get('n', 0)} questions of those haystacks, k={speed.K}, each "
           f"round's p50 after one warm-up query, the median of the rounds, postings held: the first round; bm25s: the "
           f"same questions, memdir's tokenizer, the same way). "
           f"`bench/ingest.py --rounds {rounds}{' --before ' + res['before_ref'] if res.get('before_ref') else ''}`.\n",
           "| figure | memdir | reference in the same run | goal | met |", "|---|---|---|---|---|"]
    out += [f"| {' | '.join(r)} |" for r in rows]
    out += ["", f"## Store bytes by part ({size['rows']:,} rows; {mb:.2f} MB file)", "",
            "| part | bytes | bytes per event | share |", "|---|---:|---:|---:|"]
    for part, b in size["parts"].items():
        out.append(f"| {part} | {b:,} | {b / n:,.0f} | {100 * b / size['file_bytes']:.1f} % |")
    out += ["", f"Inside the docs rows: text heads {size['text_head_bytes']:,} B, text tails (compressed with the store's "
            f"{size['zdict_bytes']:,} B dictionary) {size['text_tail_bytes']:,} B, content hashes {size['sha_bytes']:,} B, "
            f"keys {size['ref_bytes']:,} B, ISO times kept (not derivable from the epoch) {size['ts_bytes']:,} B.", "",
            "## CPU seconds of the import's per-text stages on the same texts (each alone, fresh process)", "",
            "| stage | CPU s for all | µs per event | share of the import's CPU s (both processes) |", "|---|---:|---:|---:|"]
    wall, cpu_s = _med(md, "import_s"), _med(md, "import_cpu_s")
    for stage, s in res["stages"].items():
        out.append(f"| {stage} | {s:.2f} | {1e6 * s / n:,.0f} | {100 * s / cpu_s:.0f} % |")
    out.append(f"| the whole import: CPU s of the importing process and its worker (memdir.engine.ahead) | {cpu_s:.2f} "
               f"| {1e6 * cpu_s / n:,.0f} | 100 % |")
    out.append(f"| the whole import (wall) | {wall:.2f} | {1e6 * wall / n:,.0f} | |")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--before", default=None, metavar="REF")
    ap.add_argument("--mcp-runs", type=int, default=20)
    ap.add_argument("--make-test-s", type=float, default=None, help="seconds `make test` took (measured separately)")
    ap.add_argument("--make-test-note", default="")
    ap.add_argument("--out", default=None)
    ap.add_argument("--worker", choices=("memdir", "bm25s", "stages"), help=argparse.SUPPRESS)
    ap.add_argument("--workdir", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--held", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.worker:
        wd = Path(a.workdir) if a.workdir else None
        got = (worker_memdir(wd, a.held) if a.worker == "memdir" else worker_bm25s(wd) if a.worker == "bm25s"
               else worker_stages())
        print(json.dumps(got))
        return 0
    if speed._real_items(1) is None:
        print("bench/ingest.py needs ../shared/data (LongMemEval-S)", file=sys.stderr)
        return 1
    res = run(a.rounds, a.before, a.mcp_runs)
    md = render(res, a.rounds, a.make_test_s, a.make_test_note)
    if a.out:
        Path(a.out).write_text(md, encoding="utf-8")
        Path(a.out).with_suffix(".json").write_text(json.dumps(res, indent=1), encoding="utf-8")
    print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
