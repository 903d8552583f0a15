"""Speed and scale of memdir against the seeds' way of doing the same work (issue 3, speed half).

Usage (from the repository root)::

    .venv/bin/python bench/speed.py [--sizes 1000,10000,100000] [--queries 100] [--out bench/results]
    .venv/bin/python bench/speed.py --notes-only [--out bench/results]     # issue 2's two closing figures
    .venv/bin/python bench/speed.py --hybrid-max 100000 --stem speed-full  # hybrid at 100k too (slow)

What is measured, per store size N (items = curated notes + episodic events, from ``bench/synth.py``,
fixed seed, mixed Chinese/English, 40-600 chars):

* **memdir** (one child process per size, so its peak RSS is its own): ``remember`` for
  ``min(300, N/10)`` notes, ``import_events`` for the rest (items/s of each), then ``recall`` latency
  p50/p95 in-process (k = 8, one warm-up query first) on the lexical channel, and on the hybrid channel
  with the fake fixed-cost embedder after ``Memdir.backfill()`` when ``memdir.embed.fake`` exists (else
  "n/a (pending issue 5)"), for sizes up to ``--hybrid-max`` (default 10,000);
  database size (``status()["project"]["index_bytes"]``, WAL included) and peak RSS (``ru_maxrss``).
* **reference** (another child process per size, same items, same tokenizer ``memdir.tokenize``):
  - *seed scan*: seed 000/004's full Python scan. Every document's tokens are held as sets (tokenizing
    them all is timed once as "tokenize all"; a seed that re-reads its files pays it on every recall);
    score = Σ over query tokens present of idf × field weight (tags 4, title 3, body 1; seed 004) ×
    decay (``max(0.3, 0.5 ** (age_days / 14))``, memdir's defaults); idf = ln(1 + (N − df + 0.5) / (df + 0.5)).
  - *bm25s*: ``bm25s.BM25`` indexed once on the same token lists (build time reported separately),
    ``retrieve(k=8)`` per query (query tokenizing included).
* **cold process** at the smallest size (1,000 by default): wall time of ``python -c pass`` (the floor),
  ``python -c "import memdir"``, ``memdir recall "<query>"`` and ``memdir hook claude-code user-prompt``
  (Claude Code's UserPromptSubmit JSON on stdin), median of ``--cold-repeat`` runs; "n/a" for a command
  the installed CLI does not have yet.

``--notes-only`` reports issue 2's two figures: the wall time of one ``memdir recall`` process on a
1,000-note store (notes via ``remember``) and the in-process recall p50 at 10,000 notes.

Ratios are memdir / reference measured in the same run, which is what holds on a noisy machine; absolute
times depend on the machine (the committed results come from a shared 2-core machine).
Writes ``speed.md`` + ``speed.json`` (or ``speed-notes.*``) to ``--out`` and prints the tables.
"""

from __future__ import annotations

import argparse
import heapq
import importlib.util
import json
import math
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if __package__ in (None, ""):
    here = str(Path(__file__).resolve().parent)
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != here]
    sys.path.insert(0, str(ROOT))

from bench import synth  # noqa: E402

K = 8
DEFAULT_SIZES = (1_000, 10_000, 100_000)
MAX_NOTES = 300  # remember() writes a file and recompiles the indexes per note; events carry the bulk
PENDING_HYBRID = "n/a (pending issue 5)"
SCAN_BUDGET_S = 60.0  # per size: the seed scan stops after this many seconds of queries (at least 5 run)
HYBRID_BUDGET_S = 40.0  # the same for memdir's hybrid channel

#: columns of each table (tests check that every one is printed)
RECALL_COLUMNS = ["items", "memdir lexical p50 ms", "memdir lexical p95 ms", "memdir hybrid p50 ms",
                  "memdir hybrid p95 ms", "seed scan p50 ms", "seed scan p95 ms", "bm25s p50 ms", "bm25s p95 ms",
                  "memdir / seed scan (p50)", "memdir / bm25s (p50)"]
INGEST_COLUMNS = ["items", "notes", "events", "remember notes/s", "import_events items/s", "memdir peak RSS MB",
                  "database MB", "fake-embed backfill s", "tokenize all s", "bm25s index build s", "reference peak RSS MB"]
COLD_COLUMNS = ["command", "median ms", "min ms", "minus python floor ms"]
NOTES_COLUMNS = ["figure", "value", "detail"]


class BenchError(Exception):
    """A run failed (broken environment, a worker crashed); the message is one line."""


class BenchUsage(BenchError):
    """A bad command-line option (exit code 2)."""


# ----------------------------------------------------------------------------------------------- helpers

def percentile(xs: list[float], q: float) -> float:
    """Nearest-rank percentile of ``xs`` (``q`` in 0..100): the smallest value with at least q% of the
    values at or below it. Raises ``ValueError`` on an empty list."""
    if not xs:
        raise ValueError("percentile of no values")
    s = sorted(xs)
    return s[max(0, math.ceil(q / 100 * len(s)) - 1)]


def latency(fn, queries: list[str], budget_s: float | None = None, min_queries: int = 5) -> dict[str, Any]:
    """Time ``fn(q)`` for each query after one warm-up call; ``{"p50_ms", "p95_ms", "n"}``. With
    ``budget_s``, stops once that many seconds have been spent (but not before ``min_queries``)."""
    fn(queries[0])
    times: list[float] = []
    spent = 0.0
    for q in queries:
        t = time.perf_counter()
        fn(q)
        dt = time.perf_counter() - t
        times.append(dt * 1000)
        spent += dt
        if budget_s is not None and spent > budget_s and len(times) >= min_queries:
            break
    return {"p50_ms": percentile(times, 50), "p95_ms": percentile(times, 95), "n": len(times)}


def peak_rss_mb() -> float:
    """Peak resident set size of this process in MiB (``ru_maxrss`` is KiB on Linux, bytes on macOS)."""
    r = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return r / (1024 * 1024) if sys.platform == "darwin" else r / 1024


def split_counts(n: int) -> tuple[int, int]:
    """(notes, events) for a store of ``n`` items: ``min(300, n // 10)`` notes, the rest events."""
    notes = min(MAX_NOTES, n // 10)
    return notes, n - notes


def hybrid_available() -> bool:
    """True when the fake embedder of the embeddings sub-package is importable."""
    try:
        return importlib.util.find_spec("memdir.embed.fake") is not None
    except ModuleNotFoundError:
        return False


LEXICAL_REASONS = {"terms", "fields", "scope", "bm25", "prior", "decay", "rehearsal"}


def hybrid_config() -> dict[str, str]:
    """Config overrides selecting the fake embedder and the hybrid channel, under whichever provider key
    the embeddings sub-package registered (``embed.provider``; the brief's draft name was ``embedding.provider``)."""
    from memdir import config

    try:
        import memdir.embed  # noqa: F401  (registers its keys)
    except ImportError:
        pass
    key = "embed.provider" if "embed.provider" in config.REGISTRY else "embedding.provider"
    return {key: "fake", "recall.channel": "hybrid"}


def hybrid_engaged(hits) -> bool:
    """True when some hit's ``reasons`` carry more than the lexical channel's keys (i.e. a vector channel
    or a fusion step took part), so a "hybrid" figure is not lexical recall under another name."""
    return any(set(h.reasons) - LEXICAL_REASONS for h in hits)


def _prepare_hybrid(m) -> float:
    """Compute pending vectors if the embeddings API needs an explicit pass; returns seconds spent."""
    t = time.perf_counter()
    for name in ("backfill", "embed_pending"):
        fn = getattr(m, name, None)
        if callable(fn):
            fn()
            break
    return time.perf_counter() - t


# ----------------------------------------------------------------------------------------------- workers

def worker_memdir(size: int, workdir: Path, n_queries: int, seed: int, hybrid_max: int = 10_000) -> dict[str, Any]:
    """Build a store of ``size`` items in ``workdir`` through the public API and time recall."""
    import memdir

    proj, home = workdir / "project", workdir / "home"
    proj.mkdir(parents=True, exist_ok=True)
    home.mkdir(parents=True, exist_ok=True)
    n_notes, n_events = split_counts(size)
    queries = synth.queries(n_queries, seed)
    out: dict[str, Any] = {"items": size, "notes": n_notes, "events": n_events}
    with memdir.open(proj, home=home, clock=lambda: synth.NOW) as m:
        t = time.perf_counter()
        counts = m.import_events(synth.events(n_events, seed))
        dt = time.perf_counter() - t
        if counts["stored"] != n_events:
            raise BenchError(f"import_events stored {counts['stored']} of {n_events} synthetic events: {counts}")
        out["import_events_s"] = dt
        out["import_events_per_s"] = n_events / dt if dt else None
        t = time.perf_counter()
        for kw in synth.notes(n_notes, seed):
            m.remember(**kw)
        dt = time.perf_counter() - t
        out["remember_s"] = dt
        out["remember_per_s"] = n_notes / dt if n_notes and dt else None
        out["lexical"] = latency(lambda q: m.recall(q, k=K), queries)
        st = m.status()["project"]
        out["database_bytes"] = st["index_bytes"]
        wal = Path(st["path"]) / ".memdir" / "index.sqlite3-wal"  # layout documented in memdir.root
        out["wal_bytes"] = wal.stat().st_size if wal.exists() else 0
    out["hybrid"] = None
    if size > hybrid_max:
        out["hybrid_note"] = f"skipped: above --hybrid-max {hybrid_max} (the fake-embed backfill dominates the run)"
    elif hybrid_available():
        with memdir.open(proj, home=home, clock=lambda: synth.NOW, config=hybrid_config()) as mh:
            out["hybrid_prepare_s"] = _prepare_hybrid(mh)
            if hybrid_engaged(mh.recall(queries[0], k=K)):
                out["hybrid"] = latency(lambda q: mh.recall(q, k=K), queries, budget_s=HYBRID_BUDGET_S)
            else:
                out["hybrid_note"] = "recall returned lexical-only reasons: hybrid channel not wired into recall yet"
    out["peak_rss_mb"] = peak_rss_mb()
    return out


def _idf(n: int, df: int) -> float:
    return math.log(1 + (n - df + 0.5) / (df + 0.5))


def worker_reference(size: int, n_queries: int, seed: int) -> dict[str, Any]:
    """The same items and queries done the seeds' way (full scan) and with bm25s (see module doc)."""
    from memdir.tokenize import query_tokens, tokenize

    n_notes, n_events = split_counts(size)
    now = synth.NOW.timestamp()
    docs: list[tuple[str, str, str, float]] = []  # (tags, title, body, ts_epoch)
    from datetime import datetime

    for e in synth.events(n_events, seed):
        docs.append(("", "", e["text"], datetime.fromisoformat(e["ts"]).timestamp()))
    for kw in synth.notes(n_notes, seed):
        docs.append((" ".join(kw["tags"]), kw["summary"], kw["text"], now))
    queries = synth.queries(n_queries, seed)
    out: dict[str, Any] = {"items": size}

    t = time.perf_counter()
    toks = [(tokenize(a), tokenize(b), tokenize(c)) for a, b, c, _ in docs]
    sets = [(frozenset(a), frozenset(b), frozenset(c), ts) for (a, b, c), (_, _, _, ts) in zip(toks, docs)]
    df: dict[str, int] = {}
    for a, b, c, _ in sets:
        for tok in a | b | c:
            df[tok] = df.get(tok, 0) + 1
    out["tokenize_all_s"] = time.perf_counter() - t
    n = len(sets)
    hl, floor = 14.0, 0.3

    def scan(q: str) -> list[int]:
        qt = [(tok, _idf(n, df[tok])) for tok in query_tokens(q) if tok in df]
        heap: list[tuple[float, int]] = []
        for i, (tags, title, body, ts) in enumerate(sets):
            s = 0.0
            for tok, w in qt:
                if tok in tags:
                    s += 4 * w
                elif tok in title:
                    s += 3 * w
                elif tok in body:
                    s += w
            if s:
                age = (now - ts) / 86400.0
                s *= max(floor, 0.5 ** (age / hl)) if age > 0 else 1.0
                if len(heap) < K:
                    heapq.heappush(heap, (s, i))
                elif s > heap[0][0]:
                    heapq.heapreplace(heap, (s, i))
        return [i for _, i in sorted(heap, reverse=True)]

    out["scan"] = latency(scan, queries, budget_s=SCAN_BUDGET_S)

    try:
        import bm25s
    except ImportError:
        out["bm25s"] = None
        out["bm25s_build_s"] = None
    else:
        t = time.perf_counter()
        corpus = [a + b + c or ["\x00"] for a, b, c in toks]  # bm25s needs a token per doc
        retriever = bm25s.BM25()
        retriever.index(corpus, show_progress=False)
        out["bm25s_build_s"] = time.perf_counter() - t
        kk = min(K, n)
        out["bm25s"] = latency(lambda q: retriever.retrieve([query_tokens(q)], k=kk, show_progress=False), queries)
    del toks
    out["peak_rss_mb"] = peak_rss_mb()
    return out


def _run_worker(args: list[str]) -> dict[str, Any]:
    cmd = [sys.executable, str(Path(__file__).resolve()), *args]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        tail = (p.stderr.strip().splitlines() or ["(no output)"])[-1]
        raise BenchError(f"worker {' '.join(args[:4])} failed: {tail}")
    return json.loads(p.stdout.strip().splitlines()[-1])


# ----------------------------------------------------------------------------------------------- cold

def memdir_exe() -> str | None:
    """The ``memdir`` console script of this interpreter's environment, else the one on PATH."""
    cand = Path(sys.executable).parent / "memdir"
    if cand.is_file():
        return str(cand)
    return shutil.which("memdir")


def _cli_has(exe: str | None, args: list[str]) -> bool:
    if not exe:
        return False
    p = subprocess.run([exe, *args, "--help"], capture_output=True, text=True)
    return p.returncode == 0


def time_process(cmd: list[str], *, repeat: int, cwd: Path | None = None, env: dict | None = None,
                 stdin: str | None = None) -> dict[str, Any]:
    """Wall time of ``cmd`` as a fresh process, ``repeat`` times: ``{"median_ms", "min_ms", "n", "rc"}``.
    A non-zero exit code is reported (``rc``) together with the first stderr line."""
    times = []
    rc, err = 0, ""
    for _ in range(repeat):
        t = time.perf_counter()
        p = subprocess.run(cmd, cwd=cwd, env=env, input=stdin, capture_output=True, text=True)
        times.append((time.perf_counter() - t) * 1000)
        if p.returncode:
            rc, err = p.returncode, (p.stderr.strip().splitlines() or [""])[0][:200]
    return {"median_ms": statistics.median(times), "min_ms": min(times), "n": repeat, "rc": rc, "stderr": err}


def cold_times(workdir: Path, query: str, repeat: int) -> dict[str, Any]:
    """Cold process times on the store in ``workdir`` (``project`` + ``home``); see the module doc."""
    proj, home = workdir / "project", workdir / "home"
    env = {**os.environ, "MEMDIR_HOME": str(home)}
    env.pop("MEMDIR_DEBUG", None)
    exe = memdir_exe()
    out: dict[str, Any] = {"python -c pass": time_process([sys.executable, "-c", "pass"], repeat=repeat, env=env),
                           "python -c 'import memdir'": time_process([sys.executable, "-c", "import memdir"],
                                                                     repeat=repeat, env=env)}
    label = f'memdir recall "{query}"'
    out[label] = (time_process([exe, "recall", query], repeat=repeat, cwd=proj, env=env)
                  if _cli_has(exe, ["recall"]) else None)
    payload = json.dumps({"prompt": query, "cwd": str(proj), "session_id": "s", "hook_event_name": "UserPromptSubmit"},
                         ensure_ascii=False)
    out["memdir hook claude-code user-prompt"] = (
        time_process([exe, "hook", "claude-code", "user-prompt"], repeat=repeat, cwd=proj, env=env, stdin=payload)
        if _cli_has(exe, ["hook", "claude-code", "user-prompt"]) else None)
    return out


# ----------------------------------------------------------------------------------------------- report

def _ms(x: float | None) -> str:
    if x is None:
        return "n/a"
    return f"{x:.2f}" if x < 10 else f"{x:.1f}" if x < 100 else f"{x:.0f}"


def _ratio(a: float | None, b: float | None) -> str:
    return "n/a" if a is None or not b else f"{a / b:.2f}×"


def _num(x: float | None, fmt: str = "{:,.0f}") -> str:
    return "n/a" if x is None else fmt.format(x)


def _table(columns: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(columns) + " |", "|" + "|".join("---" for _ in columns) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def machine() -> dict[str, Any]:
    """Core count, platform and versions of the machine running the benchmark."""
    import sqlite3

    return {"cores": os.cpu_count(), "platform": platform.platform(), "python": platform.python_version(),
            "sqlite": sqlite3.sqlite_version}


def _header(m: dict[str, Any], ratios: bool = True) -> str:
    return (f"Machine: {m['cores']} cores, {m['platform']}, Python {m['python']}, SQLite {m['sqlite']}. "
            "Absolute times are from a shared 2-core machine and move with its load"
            + ("; the memdir / reference ratios, measured side by side in the same run, are the figures to "
               "compare." if ratios else "."))


def render(result: dict[str, Any]) -> str:
    """The Markdown report of a full run (three tables)."""
    rec_rows, ing_rows = [], []
    for s in result["sizes"]:
        md, ref = s["memdir"], s["reference"]
        lex, hyb, scan, bm = md["lexical"], md.get("hybrid"), ref["scan"], ref.get("bm25s")
        hyb_p50 = ((_ms(hyb["p50_ms"]) + (f" (n={hyb['n']})" if hyb["n"] < lex["n"] else "")) if hyb else
                   f"n/a (> --hybrid-max)" if "hybrid-max" in md.get("hybrid_note", "") else PENDING_HYBRID)
        hyb_p95 = _ms(hyb["p95_ms"]) if hyb else "n/a"
        rec_rows.append([f"{s['items']:,}", _ms(lex["p50_ms"]), _ms(lex["p95_ms"]), hyb_p50, hyb_p95,
                         _ms(scan["p50_ms"]) + (f" (n={scan['n']})" if scan["n"] < lex["n"] else ""),
                         _ms(scan["p95_ms"]), _ms(bm["p50_ms"]) if bm else "n/a", _ms(bm["p95_ms"]) if bm else "n/a",
                         _ratio(lex["p50_ms"], scan["p50_ms"]), _ratio(lex["p50_ms"], bm["p50_ms"] if bm else None)])
        ing_rows.append([f"{s['items']:,}", f"{md['notes']:,}", f"{md['events']:,}", _num(md["remember_per_s"], "{:,.1f}"),
                         _num(md["import_events_per_s"]), f"{md['peak_rss_mb']:.0f}",
                         f"{md['database_bytes'] / 1e6:.1f} (WAL {md.get('wal_bytes', 0) / 1e6:.1f})",
                         _num(md.get("hybrid_prepare_s") if md.get("hybrid") else None, "{:.1f}"),
                         f"{ref['tokenize_all_s']:.2f}",
                         _num(ref.get("bm25s_build_s"), "{:.2f}"), f"{ref['peak_rss_mb']:.0f}"])
    parts = [
        f"# memdir speed and scale\n\n{_header(result['machine'])}\n",
        f"Run: `{result['command']}` ({result['started']}, {result['elapsed_s']:.0f} s). Items from `bench/synth.py` "
        f"(seed {result['seed']}): mixed Chinese/English texts of {synth.MIN_CHARS}-{synth.MAX_CHARS} characters; "
        f"{result['queries']} queries (Chinese, English, mixed); k = {K}.\n",
        "## Recall latency, in-process\n",
        "memdir: `Memdir.recall` (lexical = FTS5 BM25 × priors; hybrid = with the fake fixed-cost embedder). "
        "seed scan: seed 000/004's full Python scan over pre-tokenized documents (idf-weighted term overlap × "
        "field weight × decay). bm25s: `BM25.retrieve` on an index built once. All three use memdir's tokenizer. "
        "`(n=…)`: that column stopped after its time budget, with that many queries.\n",
        _table(RECALL_COLUMNS, rec_rows), "",
        "## Ingest and footprint\n",
        "memdir: notes through `remember` (one Markdown file + index recompile each), events through "
        "`import_events` (one transaction); peak RSS of the child process doing ingest + recall; database = "
        "SQLite index incl. WAL (measured before the hybrid pass adds vectors); fake-embed backfill = `Memdir.backfill()` with the fake embedder before the hybrid timings. Reference (another child process): tokenizing every document once (a seed "
        "that re-reads its files pays this on every recall), and building the bm25s index (tokenizing included).\n",
        _table(INGEST_COLUMNS, ing_rows), "",
    ]
    cold = result.get("cold")
    if cold:
        floor = cold["times"]["python -c pass"]["median_ms"]
        rows = []
        for label, r in cold["times"].items():
            if r is None:
                rows.append([f"`{label}`", "n/a (command not in this CLI yet)", "n/a", "n/a"])
                continue
            bad = f" (exit {r['rc']}: {r['stderr']})" if r["rc"] else ""
            rows.append([f"`{label}`", _ms(r["median_ms"]) + bad, _ms(r["min_ms"]),
                         _ms(r["median_ms"] - floor) if label != "python -c pass" else "—"])
        parts += [f"## Cold process, {cold['items']:,}-item store\n",
                  f"Wall time of a fresh process (median and min of {cold['repeat']} runs), run in the store's "
                  "project directory with `MEMDIR_HOME` pointing at its global root.\n",
                  _table(COLD_COLUMNS, rows), ""]
    return "\n".join(parts)


def render_notes(result: dict[str, Any]) -> str:
    """The Markdown report of ``--notes-only`` (issue 2's two figures)."""
    c = result["cold_recall"]
    cold = "n/a (command not in this CLI yet)" if c is None else f"{_ms(c['median_ms'])} ms"
    cold_detail = ("" if c is None else
                   f"median of {c['n']} runs, min {_ms(c['min_ms'])} ms; `python -c pass` "
                   f"{_ms(result['python_floor']['median_ms'])} ms" + (f"; exit {c['rc']}: {c['stderr']}" if c["rc"] else ""))
    r10 = result["recall_10k"]
    cl = result.get("cold_recall_large")
    rows = [
        [f"wall time of one `memdir recall` process, {result['small']:,} notes", cold, cold_detail],
        [f"recall p50 in-process, {result['large']:,} notes", f"{_ms(r10['p50_ms'])} ms",
         f"p95 {_ms(r10['p95_ms'])} ms over {r10['n']} queries, k = {K}, lexical"],
        [f"remember, first {result['small']:,} notes", f"{result['remember_per_s']:.1f} notes/s",
         "one Markdown file + index.md/ROOT.md recompile per note"],
        [f"wall time of one `memdir recall` process, {result['large']:,} notes",
         "n/a" if cl is None else f"{_ms(cl['median_ms'])} ms",
         "" if cl is None else f"median of {cl['n']} runs, min {_ms(cl['min_ms'])} ms"],
        [f"first open after {result['large'] - result['small']:,} hand-written note files",
         f"{result['first_open_s']:.1f} s", "notes {:,}→{:,} written as Markdown files ({:.1f} s); the next "
         "open indexes them and recompiles index.md/ROOT.md".format(result['small'], result['large'], result['files_s'])],
    ]
    return "\n".join([f"# memdir notes-only figures (issue 2)\n\n{_header(result['machine'], ratios=False)}\n",
                      f"Run: `{result['command']}` ({result['started']}).\n", _table(NOTES_COLUMNS, rows), ""])


# ----------------------------------------------------------------------------------------------- runs

def run(sizes: list[int], n_queries: int, out_dir: Path | None, seed: int, cold_repeat: int,
        command: str, hybrid_max: int = 10_000, stem: str = "speed") -> dict[str, Any]:
    """The full benchmark; writes ``speed.md``/``speed.json`` to ``out_dir`` (when given) and returns the
    result dict. Raises ``BenchError`` when a worker fails."""
    started = time.strftime("%Y-%m-%d %H:%M:%S %Z")
    t0 = time.perf_counter()
    result: dict[str, Any] = {"machine": machine(), "command": command, "started": started, "seed": seed,
                              "queries": n_queries, "k": K, "sizes": [], "hybrid_available": hybrid_available()}
    with tempfile.TemporaryDirectory(prefix="memdir-speed-") as tmp:
        cold_dir = None
        for size in sizes:
            wd = Path(tmp) / f"s{size}"
            print(f"[speed] {size:,} items: memdir ...", file=sys.stderr, flush=True)
            md = _run_worker(["--worker", "memdir", "--size", str(size), "--workdir", str(wd),
                              "--queries", str(n_queries), "--seed", str(seed), "--hybrid-max", str(hybrid_max)])
            print(f"[speed] {size:,} items: reference ...", file=sys.stderr, flush=True)
            ref = _run_worker(["--worker", "reference", "--size", str(size), "--queries", str(n_queries),
                               "--seed", str(seed)])
            result["sizes"].append({"items": size, "memdir": md, "reference": ref})
            if cold_dir is None:
                cold_dir, cold_size = wd, size
                print(f"[speed] cold processes on {size:,} items ...", file=sys.stderr, flush=True)
                result["cold"] = {"items": cold_size, "repeat": cold_repeat, "query": synth.queries(1, seed)[0],
                                  "times": cold_times(wd, synth.queries(1, seed)[0], cold_repeat)}
            else:
                shutil.rmtree(wd, ignore_errors=True)
    result["elapsed_s"] = time.perf_counter() - t0
    _write(out_dir, stem, result, render(result))
    return result


def run_notes(out_dir: Path | None, seed: int, cold_repeat: int, n_queries: int, command: str,
              small: int = 1_000, large: int = 10_000) -> dict[str, Any]:
    """Issue 2's figures: ``small`` notes via ``remember``, cold ``memdir recall``; then grow the store to
    ``large`` notes and time recall in-process."""
    import memdir

    started = time.strftime("%Y-%m-%d %H:%M:%S %Z")
    queries = synth.queries(n_queries, seed)
    result: dict[str, Any] = {"machine": machine(), "command": command, "started": started, "seed": seed,
                              "small": small, "large": large}
    with tempfile.TemporaryDirectory(prefix="memdir-notes-") as tmp:
        wd = Path(tmp)
        proj, home = wd / "project", wd / "home"
        proj.mkdir()
        home.mkdir()
        items = list(synth.notes(large, seed))
        with memdir.open(proj, home=home, clock=lambda: synth.NOW) as m:
            t = time.perf_counter()
            for kw in items[:small]:
                m.remember(**kw)
            result["remember_per_s"] = small / (time.perf_counter() - t)
        env = {**os.environ, "MEMDIR_HOME": str(home)}
        env.pop("MEMDIR_DEBUG", None)
        exe = memdir_exe()
        result["python_floor"] = time_process([sys.executable, "-c", "pass"], repeat=cold_repeat, env=env)
        result["cold_recall"] = (time_process([exe, "recall", queries[0]], repeat=cold_repeat, cwd=proj, env=env)
                                 if _cli_has(exe, ["recall"]) else None)
        # Growing to `large` notes: remember() rescans the root and recompiles index.md/ROOT.md per note,
        # so its cost grows with the store (quadratic overall). The rest are written as Markdown files in
        # the note format (frontmatter + body), as a person or `git pull` would, and the next open indexes
        # them (seed 000: hand edits are picked up on open). That first open is timed and reported.
        t = time.perf_counter()
        for i, kw in enumerate(items[small:], start=small):
            write_note_file(proj / ".memory", f"bulk-{i}", kw)
        result["files_s"] = time.perf_counter() - t
        t = time.perf_counter()
        with memdir.open(proj, home=home, clock=lambda: synth.NOW) as m:
            n = m.status()["project"]["notes"]
            result["first_open_s"] = time.perf_counter() - t
            if n != large:
                raise BenchError(f"expected {large} notes in the store, found {n}")
            result["recall_10k"] = latency(lambda q: m.recall(q, k=K), queries)
        result["cold_recall_large"] = (time_process([exe, "recall", queries[0]], repeat=cold_repeat, cwd=proj, env=env)
                                       if _cli_has(exe, ["recall"]) else None)
    _write(out_dir, "speed-notes", result, render_notes(result))
    return result


def write_note_file(root: Path, slug: str, kw: dict[str, Any]) -> Path:
    """Write one note of :func:`synth.notes` as ``<root>/<category>/<slug>.md`` in memdir's note format
    (YAML frontmatter: id, kind, summary, created, updated, load_when, tags, pinned; then the body).
    Strings are JSON-quoted, which YAML reads as the same strings."""
    cat = kw["category"]
    kind = {"rules": "rule", "preferences": "preference", "decisions": "decision", "pitfalls": "pitfall"}.get(cat, "fact")
    when = json.dumps(synth.NOW.strftime("%Y-%m-%dT%H:%M:%S.000Z"))
    tags = "".join(f"\n- {json.dumps(t, ensure_ascii=False)}" for t in kw["tags"])
    text = (f"---\nid: {cat}/{slug}\nkind: {kind}\nsummary: {json.dumps(kw['summary'], ensure_ascii=False)}\n"
            f"created: {when}\nupdated: {when}\nload_when: []\ntags:{tags}\npinned: false\n---\n{kw['text']}\n")
    path = root / cat / f"{slug}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _write(out_dir: Path | None, stem: str, result: dict[str, Any], md: str) -> None:
    print(md)
    if out_dir is None:
        return
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / f"{stem}.md").write_text(md, encoding="utf-8")
    (out_dir / f"{stem}.json").write_text(json.dumps(result, indent=2, ensure_ascii=False, default=str) + "\n",
                                          encoding="utf-8")


def _sizes(text: str) -> list[int]:
    try:
        sizes = [int(x.replace("_", "")) for x in text.split(",") if x.strip()]
    except ValueError:
        raise BenchUsage(f"--sizes must be comma-separated integers, got {text!r}") from None
    if not sizes or any(s < 10 for s in sizes):
        raise BenchUsage(f"--sizes needs integers >= 10, got {text!r}")
    return sizes


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point; returns the exit code (2 for bad options, 1 for a failed run)."""
    ap = argparse.ArgumentParser(description="memdir speed/scale benchmark against the seeds' way (issue 3).")
    ap.add_argument("--sizes", default=",".join(str(s) for s in DEFAULT_SIZES), help="store sizes in items")
    ap.add_argument("--queries", type=int, default=100, help="queries per size (default 100)")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results"), help="directory for the .md/.json results")
    ap.add_argument("--no-write", action="store_true", help="print only")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--cold-repeat", type=int, default=7, help="runs per cold-process command (median reported)")
    ap.add_argument("--hybrid-max", type=int, default=10_000,
                    help="largest size timed on the hybrid channel (default 10000; the fake-embed backfill of "
                         "100k items takes minutes)")
    ap.add_argument("--stem", default="speed", help="result file name stem (default speed)")
    ap.add_argument("--notes-only", action="store_true", help="issue 2's figures: 1k-note cold recall, 10k-note p50")
    ap.add_argument("--notes-sizes", default="1000,10000", help=argparse.SUPPRESS)
    ap.add_argument("--worker", choices=("memdir", "reference"), help=argparse.SUPPRESS)
    ap.add_argument("--size", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--workdir", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    try:
        if args.queries < 1 or args.cold_repeat < 1:
            raise BenchUsage("--queries and --cold-repeat must be >= 1")
        if args.worker == "memdir":
            print(json.dumps(worker_memdir(args.size, Path(args.workdir), args.queries, args.seed, args.hybrid_max)))
            return 0
        if args.worker == "reference":
            print(json.dumps(worker_reference(args.size, args.queries, args.seed)))
            return 0
        out = None if args.no_write else Path(args.out)
        command = "python bench/speed.py " + " ".join(argv if argv is not None else sys.argv[1:])
        if args.notes_only:
            small, large = _sizes(args.notes_sizes)
            run_notes(out, args.seed, args.cold_repeat, args.queries, command.strip(), small=small, large=large)
        else:
            run(_sizes(args.sizes), args.queries, out, args.seed, args.cold_repeat, command.strip(),
                hybrid_max=args.hybrid_max, stem=args.stem)
    except BenchError as exc:
        print(f"speed: {exc}", file=sys.stderr)
        return 2 if isinstance(exc, BenchUsage) else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
