"""Speed and scale of memdir against the seeds' way of doing the same work (issue 3, speed half).

Usage (from the repository root)::

    .venv/bin/python bench/speed.py            # = make bench-speed: 1k, 10k, 100k, 1M items + real turns
    .venv/bin/python bench/speed.py [--sizes 1000,10000] [--queries 100] [--rounds 2] [--out bench/results]
    .venv/bin/python bench/speed.py --rebuild  # rebuild the cached 100k / 1M stores
    .venv/bin/python bench/speed.py --notes-only [--out bench/results]     # issue 2's two closing figures
    .venv/bin/python bench/speed.py --hybrid-max 100000 --stem speed-full  # hybrid at 100k too (slow)

What is measured, per store size N (items = curated notes + episodic events, from ``bench/synth.py``,
fixed seed, mixed Chinese/English, 40-600 chars):

* **memdir**: the store is built once per size by a child process — ``import_events`` in chunks of 50,000
  events generated *before* the clock starts, then ``remember`` for ``min(300, N/10)`` notes (items/s of each);
  database size while open (WAL included) and after close. Stores of 100,000 items and more are kept in
  ``--cache-dir`` (``bench/.cache/``, keyed by size, seed, schema and tokenizer version) and reused by later
  runs. Then ``--rounds`` times: a memdir process times ``recall`` p50/p95 in-process (k = 8, one warm-up query
  first) on the lexical channel, and on the hybrid channel with the fake fixed-cost embedder after
  ``Memdir.backfill()`` for sizes up to ``--hybrid-max`` (default 10,000); its peak RSS and RSS after the
  timings — alternating with the reference process below. Each latency is the median over the rounds (the
  smallest p50 is shown too).
* **reference** (another child process per size, same items, same tokenizer ``memdir.recall.tokenize``):
  - *seed scan*: seed 000/004's full Python scan. Every document's tokens are held as sets (tokenizing
    them all is timed once as "tokenize all"; a seed that re-reads its files pays it on every recall);
    score = Σ over query tokens present of idf × field weight (tags 4, title 3, body 1; seed 004) ×
    decay (``max(0.3, 0.5 ** (age_days / 14))``, memdir's defaults); idf = ln(1 + (N − df + 0.5) / (df + 0.5)).
  - *bm25s*: ``bm25s.BM25`` indexed once on the same token lists (build time reported separately),
    ``retrieve(k=8)`` per query (query tokenizing included).
  The reference runs up to ``--reference-max`` items (default 100,000: it holds every token in memory).
* **real turns** (when ``../shared/data`` is present): 10,000 distinct LongMemEval turns in one store, its
  questions as queries — memdir recall and database size, bm25s in another process (``--no-real`` skips).
* **cold process** at the smallest size (1,000 by default): wall time of ``python -c pass`` (the floor),
  ``python -c "import memdir"``, ``memdir recall "<query>"`` and ``memdir hook claude-code user-prompt``
  (Claude Code's UserPromptSubmit JSON on stdin), and the same hook while ``memdir serve`` runs on that store
  (the warm path), median of ``--cold-repeat`` runs; "n/a" for a command the installed CLI does not have.
* **issue 12 goals**: a table of each goal with this run's figure.

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
DEFAULT_SIZES = (1_000, 10_000, 100_000, 1_000_000)
MAX_NOTES = 300  # remember() writes a file and recompiles the indexes per note; events carry the bulk
PENDING_HYBRID = "n/a (pending issue 5)"
SCAN_BUDGET_S = 60.0  # per size: the seed scan stops after this many seconds of queries (at least 5 run)
HYBRID_BUDGET_S = 40.0  # the same for memdir's hybrid channel
INGEST_CHUNK = 50_000  # events per import_events call (and per generated chunk) when building a store
CACHE_MIN = 100_000  # stores of this many items or more are kept in --cache-dir and reused by later runs
REFERENCE_MAX = 100_000  # the reference worker (seed scan + bm25s hold every token in memory) up to this size

#: columns of each table (tests check that every one is printed)
RECALL_COLUMNS = ["items", "memdir lexical p50 ms", "memdir lexical p95 ms", "memdir held p50 ms", "memdir held p95 ms",
                  "memdir hybrid p50 ms",
                  "memdir hybrid p95 ms", "seed scan p50 ms", "seed scan p95 ms", "bm25s p50 ms", "bm25s p95 ms",
                  "memdir / seed scan (p50)", "memdir / bm25s (p50)", "memdir held / bm25s (p50)"]
INGEST_COLUMNS = ["items", "notes", "events", "remember notes/s", "import_events items/s", "memdir peak RSS MB",
                  "memdir RSS after recall MB", "held postings: build s / arrays MB / RSS after MB", "database MB", "database MB after close", "fake-embed backfill s",
                  "tokenize all s", "bm25s index build s", "reference peak RSS MB"]
GOAL_COLUMNS = ["figure", "goal", "measured", "met"]
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

def _rss_mb() -> float:
    """Current resident set size of this process in MiB (Linux ``/proc``; else the peak)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / (1024 * 1024)
    except (OSError, ValueError, IndexError):
        return peak_rss_mb()


def _db_bytes(home_or_root: Path) -> tuple[int, int]:
    """(database bytes incl. WAL, WAL bytes) of the index under ``<root>/.memdir``."""
    db = home_or_root / ".memdir" / "index.sqlite3"  # layout documented in memdir.engine.root
    wal = Path(str(db) + "-wal")
    main = db.stat().st_size if db.exists() else 0
    w = wal.stat().st_size if wal.exists() else 0
    return main + w, w


def _dirs(workdir: Path) -> tuple[Path, Path]:
    """``(project, home)`` under ``workdir``, created; the project gets its own ``.git`` marker so that a store
    kept under this checkout (``bench/.cache``) is its own project, not this repository's ``.memory``."""
    proj, home = workdir / "project", workdir / "home"
    (proj / ".git").mkdir(parents=True, exist_ok=True)
    home.mkdir(parents=True, exist_ok=True)
    return proj, home


def store_key(size: int, seed: int) -> str:
    """Cache key of a built store: size, seed, schema version and tokenizer version (a layout or token change
    rebuilds it)."""
    from memdir.store.sqlite.migrations import MIGRATIONS
    from memdir.recall.tokenize import TOKENIZER_VERSION

    return f"s{size}-seed{seed}-schema{len(MIGRATIONS)}-tok{TOKENIZER_VERSION.replace('+', '_')}"


def build_store(size: int, workdir: Path, seed: int) -> dict[str, Any]:
    """Build a store of ``size`` items in ``workdir`` through the public API; returns the ingest figures and
    writes them to ``workdir/build.json`` (a later run finds the store there and reuses it).

    Items are generated before the clock starts (in chunks of ``INGEST_CHUNK`` events for large stores, one
    ``import_events`` call per chunk), so the rates are memdir's alone."""
    import itertools

    import memdir

    proj, home = _dirs(workdir)
    n_notes, n_events = split_counts(size)
    out: dict[str, Any] = {"items": size, "notes": n_notes, "events": n_events, "built": time.strftime("%Y-%m-%d %H:%M:%S %Z")}
    notes_kw = list(synth.notes(n_notes, seed))
    with memdir.open(proj, home=home, clock=lambda: synth.NOW) as m:
        gen = synth.events(n_events, seed)
        spent, stored = 0.0, 0
        while True:
            chunk = list(itertools.islice(gen, INGEST_CHUNK))
            if not chunk:
                break
            t = time.perf_counter()
            counts = m.import_events(chunk)
            spent += time.perf_counter() - t
            stored += counts["stored"]
        if stored != n_events:
            raise BenchError(f"import_events stored {stored} of {n_events} synthetic events")
        out["import_events_s"] = spent
        out["import_events_per_s"] = n_events / spent if spent else None
        t = time.perf_counter()
        for kw in notes_kw:
            m.remember(**kw)
        dt = time.perf_counter() - t
        out["remember_s"] = dt
        out["remember_per_s"] = n_notes / dt if n_notes and dt else None
        root = Path(m.status()["project"]["path"])
        out["database_bytes_open"], out["wal_bytes_open"] = _db_bytes(root)
    out["database_bytes"], out["wal_bytes"] = _db_bytes(root)  # after close
    out["build_peak_rss_mb"] = peak_rss_mb()
    (workdir / "build.json").write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    return out


def worker_memdir(size: int, workdir: Path, n_queries: int, seed: int, hybrid_max: int = 10_000,
                  build_only: bool = False) -> dict[str, Any]:
    """Recall latency on the store of ``size`` items in ``workdir`` (built first unless ``build.json`` says it
    is there); returns the build figures plus ``lexical`` (p50/p95), RSS and the hybrid figures."""
    import memdir

    proj, home = workdir / "project", workdir / "home"
    info = workdir / "build.json"
    if info.exists():
        out = json.loads(info.read_text(encoding="utf-8"))
        out["cached"] = True
    else:
        out = build_store(size, workdir, seed)
        out["cached"] = False
    if build_only:
        return out
    queries = synth.queries(n_queries, seed)
    with memdir.open(proj, home=home, clock=lambda: synth.NOW) as m:
        out["lexical"] = latency(lambda q: m.recall(q, k=K), queries)
        out["rss_after_recall_mb"] = _rss_mb()
        out.update(_held(m, queries))
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


def _held(m, queries: list[str]) -> dict[str, Any]:
    """The same recall with its postings held in memory, as ``memdir serve`` / the MCP server run it
    (:meth:`memdir.Memdir.keep_warm`): the build (wall s, in this thread; a server builds in a thread and
    answers from SQL meanwhile), the arrays' MB, RSS after, the first recall after the build, then p50/p95."""
    out: dict[str, Any] = {}
    if not hasattr(m, "keep_warm"):
        return out
    t = time.perf_counter()
    stats = m.keep_warm(build=True).get("project") or {}
    out["held_build_s"] = time.perf_counter() - t
    out["held_stats"] = stats
    if not stats.get("ready"):
        out["held_note"] = f"not held: {stats.get('disabled')}"
        return out
    t = time.perf_counter()
    m.recall(queries[-1], k=K)
    out["held_first_ms"] = (time.perf_counter() - t) * 1000
    out["held"] = latency(lambda q: m.recall(q, k=K), queries)
    out["rss_after_held_mb"] = _rss_mb()
    m.keep_warm(False)
    return out


def _idf(n: int, df: int) -> float:
    return math.log(1 + (n - df + 0.5) / (df + 0.5))


def worker_reference(size: int, n_queries: int, seed: int) -> dict[str, Any]:
    """The same items and queries done the seeds' way (full scan) and with bm25s (see module doc)."""
    from memdir.recall.tokenize import query_tokens, tokenize

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
    """Cold process times on the store in ``workdir`` (``project`` + ``home``); see the module doc. memdir's
    modules are compiled to bytecode first, as an installed package has them (``pip install`` compiles; an editable
    checkout run with ``PYTHONDONTWRITEBYTECODE=1`` would recompile every module in every process)."""
    import compileall

    import memdir

    compileall.compile_dir(str(Path(memdir.__file__).parent), quiet=1)
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
    out[WARM_LABEL] = warm_hook_times(exe, proj, env, payload, repeat)
    return out


WARM_LABEL = "memdir hook claude-code user-prompt (memdir serve running)"


def warm_hook_times(exe: str | None, proj: Path, env: dict, payload: str, repeat: int) -> dict[str, Any] | None:
    """The hook's wall time while ``memdir serve`` runs on the same store (it answers over its Unix socket);
    ``None`` when this CLI has no warm path or the server does not come up."""
    if not exe or importlib.util.find_spec("memdir.hosts.warm") is None or importlib.util.find_spec("mcp") is None:
        return None
    srv = subprocess.Popen([exe, "serve", "--port", "0", "--json"], cwd=proj, env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, text=True)
    try:
        line = srv.stdout.readline() if srv.stdout else ""
        try:
            info = json.loads(line)
        except ValueError:
            return None
        if not info.get("hook_socket"):
            return None
        hook = [exe, "hook", "claude-code", "user-prompt"]
        time_process(hook, repeat=1, cwd=proj, env=env, stdin=payload)  # the server opens the store once
        return time_process(hook, repeat=repeat, cwd=proj, env=env, stdin=payload)
    finally:
        srv.terminate()
        try:
            srv.wait(timeout=10)
        except subprocess.TimeoutExpired:
            srv.kill()
            srv.wait()


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


def _p50(x: dict[str, Any] | None) -> str:
    """``p50`` (median of the rounds) with the rounds' min when there were several."""
    if not x:
        return "n/a"
    extra = f" (min {_ms(x['p50_min_ms'])})" if x.get("rounds", 1) > 1 else ""
    return _ms(x["p50_ms"]) + extra


def _mb(b: int | None) -> str:
    return "n/a" if b is None else f"{b / 1e6:.1f}"


def _held_cell(md: dict[str, Any]) -> str:
    st = md.get("held_stats") or {}
    if not md.get("held"):
        return md.get("held_note", "n/a")
    return (f"{md['held_build_s']:.2f} / {st.get('array_mb', 0):.0f} / {_num(md.get('rss_after_held_mb'))}"
            f" ({st.get('postings', 0):,} postings; first recall after it {_ms(md.get('held_first_ms'))} ms)")


def goals(result: dict[str, Any]) -> list[list[str]]:
    """Issue 12's table: each goal with the figure measured in this run and whether it is met."""
    by = {s["items"]: s for s in result["sizes"]}
    rows: list[list[str]] = []

    def add(figure: str, goal: str, value: str, ok: bool | None) -> None:
        rows.append([figure, goal, value, "n/a" if ok is None else ("yes" if ok else "**no**")])

    for n, limit in ((10_000, 3.0), (100_000, 15.0), (1_000_000, 100.0)):
        s = by.get(n)
        if s is None:
            add(f"recall p50 at {n:,} items", f"≤ {limit:g} ms", "not run", None)
            continue
        bm = (s.get("reference") or {}).get("bm25s")
        for label, fig in (("one-shot process (SQL)", s["memdir"]["lexical"]),
                           ("postings held (memdir serve / MCP)", s["memdir"].get("held"))):
            if fig is None:
                continue
            p50 = fig["p50_ms"]
            value = f"{_ms(p50)} ms" + (f" (bm25s {_ms(bm['p50_ms'])} ms, {p50 / bm['p50_ms']:.1f}×)" if bm else "")
            ok = p50 <= limit and (n != 10_000 or not bm or p50 <= 25 * bm["p50_ms"])
            add(f"recall p50 at {n:,} items, {label}", f"≤ {limit:g} ms" + (", ≤ 25× bm25s" if n == 10_000 else ""), value, ok)
    real = result.get("real")
    if real:
        bm = real.get("bm25s")
        for label, fig in (("one-shot process (SQL)", real["lexical"]), ("postings held", real.get("held"))):
            if fig is None:
                continue
            p50 = fig["p50_ms"]
            add(f"recall p50 at {real['items']:,} real turns (LongMemEval), {label}", "≤ 3 ms, ≤ 25× bm25s",
                f"{_ms(p50)} ms" + (f" (bm25s {_ms(bm['p50_ms'])} ms, {p50 / bm['p50_ms']:.1f}×)" if bm else ""),
                p50 <= 3.0 and (not bm or p50 <= 25 * bm["p50_ms"]))
    s = by.get(100_000)
    if s:
        md = s["memdir"]
        add("database at 100,000 items (incl. WAL)", "≤ 150 MB",
            f"{_mb(md.get('database_bytes_open'))} MB open (WAL {_mb(md.get('wal_bytes_open'))}), "
            f"{_mb(md['database_bytes'])} MB after close", max(md.get("database_bytes_open") or 0, md["database_bytes"]) <= 150e6)
    if real:
        add(f"database at {real['items']:,} real turns, after close", "≤ 15 MB", f"{_mb(real['database_bytes'])} MB",
            real["database_bytes"] <= 15e6)
    cold = (result.get("cold") or {}).get("times") or {}
    h, w = cold.get("memdir hook claude-code user-prompt"), cold.get(WARM_LABEL)
    if h:
        add(f"new-process hook, {result['cold']['items']:,}-item store", "≤ 100 ms median",
            f"{_ms(h['median_ms'])} median / {_ms(h['min_ms'])} min ms", h["median_ms"] <= 100)
    add("the same with `memdir serve` running", "≤ 25 ms median",
        f"{_ms(w['median_ms'])} median / {_ms(w['min_ms'])} min ms" if w else "not measured", None if not w else w["median_ms"] <= 25)
    for s in result["sizes"]:
        add(f"ingest, {s['items']:,} items (lexical only)", "≥ 10,000 events/s",
            f"{_num(s['memdir']['import_events_per_s'])} events/s", (s["memdir"]["import_events_per_s"] or 0) >= 10_000)
    return rows


def render(result: dict[str, Any]) -> str:
    """The Markdown report of a full run (goals, recall, ingest/footprint, real turns, cold processes)."""
    rec_rows, ing_rows = [], []
    for s in result["sizes"]:
        md, ref = s["memdir"], s.get("reference") or {}
        lex, hyb, scan, bm = md["lexical"], md.get("hybrid"), ref.get("scan"), ref.get("bm25s")
        hyb_p50 = (_p50(hyb) if hyb else
                   f"n/a (> --hybrid-max)" if "hybrid-max" in md.get("hybrid_note", "") else PENDING_HYBRID)
        hyb_p95 = _ms(hyb["p95_ms"]) if hyb else "n/a"
        held = md.get("held")
        rec_rows.append([f"{s['items']:,}", _p50(lex), _ms(lex["p95_ms"]), _p50(held) if held else md.get("held_note", "n/a"),
                         _ms(held["p95_ms"]) if held else "n/a", hyb_p50, hyb_p95,
                         (_p50(scan) + (f" (n={scan['n']})" if scan["n"] < lex["n"] else "")) if scan else "n/a (> --reference-max)",
                         _ms(scan["p95_ms"]) if scan else "n/a", _p50(bm) if bm else "n/a", _ms(bm["p95_ms"]) if bm else "n/a",
                         _ratio(lex["p50_ms"], scan["p50_ms"] if scan else None), _ratio(lex["p50_ms"], bm["p50_ms"] if bm else None),
                         _ratio(held["p50_ms"] if held else None, bm["p50_ms"] if bm else None)])
        ing_rows.append([f"{s['items']:,}" + (" (cached store)" if md.get("cached") else ""), f"{md['notes']:,}",
                         f"{md['events']:,}", _num(md["remember_per_s"], "{:,.1f}"),
                         _num(md["import_events_per_s"]), f"{md['peak_rss_mb']:.0f}", _num(md.get("rss_after_recall_mb")),
                         _held_cell(md),
                         f"{_mb(md.get('database_bytes_open'))} (WAL {_mb(md.get('wal_bytes_open'))})", _mb(md["database_bytes"]),
                         _num(md.get("hybrid_prepare_s") if md.get("hybrid") else None, "{:.1f}"),
                         _num(ref.get("tokenize_all_s"), "{:.2f}"),
                         _num(ref.get("bm25s_build_s"), "{:.2f}"), _num(ref.get("peak_rss_mb"))])
    parts = [
        f"# memdir speed and scale\n\n{_header(result['machine'])}\n",
        f"Run: `{result['command']}` ({result['started']}, {result['elapsed_s']:.0f} s). Items from `bench/synth.py` "
        f"(seed {result['seed']}): mixed Chinese/English texts of {synth.MIN_CHARS}-{synth.MAX_CHARS} characters; "
        f"{result['queries']} queries (Chinese, English, mixed); k = {K}. Each size: the store is built once "
        f"(from {CACHE_MIN:,} items on it is kept in `bench/.cache/` and reused while the schema and tokenizer "
        f"versions stay the same), then {result.get('rounds', 1)} rounds of a memdir recall process alternating "
        "with a reference process; latencies are the median of the rounds' p50/p95, `(min …)` the smallest p50.\n",
        "## Issue 12 goals\n",
        _table(GOAL_COLUMNS, goals(result)), "",
        "## Recall latency, in-process\n",
        "memdir: `Memdir.recall` (lexical = FTS5 BM25 × priors, as a one-shot process runs it; held = the same "
        "recall with its BM25 postings held in memory, as `memdir serve` and the MCP server run it after "
        "`Memdir.keep_warm()` — identical rankings, `memdir.store.sqlite.postings`; its build time, arrays and RSS are in the "
        "next table; hybrid = with the fake fixed-cost embedder). "
        "seed scan: seed 000/004's full Python scan over pre-tokenized documents (idf-weighted term overlap × "
        "field weight × decay). bm25s: `BM25.retrieve` on an index built once. All three use memdir's tokenizer. "
        "`(n=…)`: that column stopped after its time budget, with that many queries.\n",
        _table(RECALL_COLUMNS, rec_rows), "",
        "## Ingest and footprint\n",
        "memdir: events through `import_events` (chunks of 50,000, the synthetic items generated before the clock "
        "starts), then notes through `remember` (one Markdown file + index recompile each); peak RSS of the "
        "process doing recall (and the build when not cached), RSS after the recall timings; database = SQLite "
        "index incl. WAL while the store is open, and after it is closed; fake-embed backfill = `Memdir.backfill()` "
        "with the fake embedder before the hybrid timings. Reference (another child process): tokenizing every "
        "document once (a seed that re-reads its files pays this on every recall), and building the bm25s index "
        "(tokenizing included).\n",
        _table(INGEST_COLUMNS, ing_rows), "",
    ]
    real = result.get("real")
    if real:
        parts += [f"## Real turns: {real['items']:,} distinct LongMemEval turns\n",
                  "User and assistant turns of `longmemeval_s_dev` haystacks in order (one store), its questions as "
                  "queries; bm25s on the same tokens in another process.\n",
                  _table(["memdir p50 ms", "memdir p95 ms", "memdir held p50 ms", "held: build s / arrays MB / RSS after MB",
                          "bm25s p50 ms", "memdir / bm25s", "held / bm25s", "import_events items/s",
                          "database MB open (WAL)", "database MB after close", "peak RSS MB"],
                         [[_p50(real["lexical"]), _ms(real["lexical"]["p95_ms"]), _p50(real.get("held")), _held_cell(real),
                           _p50(real.get("bm25s")),
                           _ratio(real["lexical"]["p50_ms"], (real.get("bm25s") or {}).get("p50_ms")),
                           _ratio((real.get("held") or {}).get("p50_ms"), (real.get("bm25s") or {}).get("p50_ms")),
                           _num(real["import_events_per_s"]),
                           f"{_mb(real['database_bytes_open'])} ({_mb(real['wal_bytes_open'])})", _mb(real["database_bytes"]),
                           _num(real["peak_rss_mb"])]]), ""]
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
                  "project directory with `MEMDIR_HOME` pointing at its global root, memdir's modules compiled to "
                  "bytecode first (as `pip install` does; an editable checkout under `PYTHONDONTWRITEBYTECODE=1` "
                  "would otherwise compile every module in every process).\n",
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

def _summary(runs: list[dict[str, Any] | None]) -> dict[str, Any] | None:
    """Several latency dicts of one figure (alternating rounds) folded into one: p50/p95 are the median of the
    rounds' values, ``p50_min_ms`` the smallest p50, ``rounds`` how many."""
    runs = [r for r in runs if r]
    if not runs:
        return None
    return {"p50_ms": statistics.median(r["p50_ms"] for r in runs), "p95_ms": statistics.median(r["p95_ms"] for r in runs),
            "p50_min_ms": min(r["p50_ms"] for r in runs), "n": min(r["n"] for r in runs), "rounds": len(runs)}


def run(sizes: list[int], n_queries: int, out_dir: Path | None, seed: int, cold_repeat: int,
        command: str, hybrid_max: int = 10_000, stem: str = "speed", rounds: int = 2,
        cache_dir: Path | None = None, reference_max: int = REFERENCE_MAX, rebuild: bool = False,
        real: bool = True) -> dict[str, Any]:
    """The full benchmark; writes ``speed.md``/``speed.json`` to ``out_dir`` (when given) and returns the
    result dict. Per size: the store is built once (kept in ``cache_dir`` from :data:`CACHE_MIN` items on),
    then ``rounds`` × (memdir recall process, reference process) alternate and each figure is the median of
    the rounds (the min p50 is kept too). Raises ``BenchError`` when a worker fails."""
    started = time.strftime("%Y-%m-%d %H:%M:%S %Z")
    t0 = time.perf_counter()
    result: dict[str, Any] = {"machine": machine(), "command": command, "started": started, "seed": seed,
                              "queries": n_queries, "k": K, "sizes": [], "hybrid_available": hybrid_available(),
                              "rounds": rounds}
    with tempfile.TemporaryDirectory(prefix="memdir-speed-") as tmp:
        cold_dir = None
        for size in sizes:
            if cache_dir is not None and size >= CACHE_MIN:
                wd = cache_dir / store_key(size, seed)
                if rebuild and wd.exists():
                    shutil.rmtree(wd)
            else:
                wd = Path(tmp) / f"s{size}"
            base = ["--size", str(size), "--workdir", str(wd), "--queries", str(n_queries), "--seed", str(seed),
                    "--hybrid-max", str(hybrid_max)]
            built_now = not (wd / "build.json").exists()
            if built_now:
                print(f"[speed] {size:,} items: building the store in {wd} ...", file=sys.stderr, flush=True)
                _run_worker(["--worker", "memdir", "--build-only", *base])
            mds, refs = [], []
            for r in range(rounds):
                print(f"[speed] {size:,} items: memdir recall (round {r + 1}/{rounds}) ...", file=sys.stderr, flush=True)
                mds.append(_run_worker(["--worker", "memdir", *base]))
                if size <= reference_max:
                    print(f"[speed] {size:,} items: reference (round {r + 1}/{rounds}) ...", file=sys.stderr, flush=True)
                    refs.append(_run_worker(["--worker", "reference", "--size", str(size), "--queries", str(n_queries),
                                             "--seed", str(seed)]))
            md = dict(mds[-1])
            md["cached"] = not built_now  # built by an earlier run (its ingest figures are from then)
            md["lexical"] = _summary([x["lexical"] for x in mds])
            md["held"] = _summary([x.get("held") for x in mds])
            md["hybrid"] = _summary([x.get("hybrid") for x in mds])
            ref = None
            if refs:
                ref = dict(refs[-1])
                ref["scan"] = _summary([x["scan"] for x in refs])
                ref["bm25s"] = _summary([x.get("bm25s") for x in refs])
            result["sizes"].append({"items": size, "memdir": md, "reference": ref})
            if cold_dir is None:
                cold_dir = wd
                print(f"[speed] cold processes on {size:,} items ...", file=sys.stderr, flush=True)
                q = synth.queries(1, seed)[0]
                result["cold"] = {"items": size, "repeat": cold_repeat, "query": q, "times": cold_times(wd, q, cold_repeat)}
        result["real"] = real_turns(n_queries, rounds) if real else None
    result["elapsed_s"] = time.perf_counter() - t0
    _write(out_dir, stem, result, render(result))
    return result


# ----------------------------------------------------------------------------------------------- real turns

REAL_TURNS = 10_000


def _real_items(limit: int) -> tuple[list[dict[str, Any]], list[str]] | None:
    """Up to ``limit`` distinct LongMemEval turns (user and assistant, in haystack order) as events, and the
    questions whose haystacks they come from; ``None`` when ../shared/data is absent."""
    data = ROOT.parent / "shared" / "data"
    if not (data / "longmemeval").is_dir():
        return None
    from bench import datasets

    events, seen, questions = [], set(), []
    for case in datasets.load_longmemeval(data):
        for it in case.items:
            if it.text.strip() and it.text not in seen:
                seen.add(it.text)
                events.append({"key": it.key, "role": it.role, "text": it.text, "session": it.group, "ts": it.ts})
        questions += [q.text for q in case.queries]
        if len(events) >= limit:
            break
    return events[:limit], questions


def worker_real(workdir: Path, n_queries: int) -> dict[str, Any]:
    """memdir on :data:`REAL_TURNS` real turns: ingest rate, recall p50/p95, database size open and after close."""
    import memdir

    got = _real_items(REAL_TURNS)
    if got is None:
        return {}
    events, questions = got
    proj, home = _dirs(workdir)
    out: dict[str, Any] = {"items": len(events)}
    with memdir.open(proj, home=home) as m:
        t = time.perf_counter()
        m.import_events(events)
        out["import_events_per_s"] = len(events) / (time.perf_counter() - t)
        out["lexical"] = latency(lambda q: m.recall(q, k=K), questions[:n_queries])
        out.update(_held(m, questions[:n_queries]))
        root = Path(m.status()["project"]["path"])
        out["database_bytes_open"], out["wal_bytes_open"] = _db_bytes(root)
    out["database_bytes"], out["wal_bytes"] = _db_bytes(root)
    out["peak_rss_mb"] = peak_rss_mb()
    return out


def worker_real_reference(n_queries: int) -> dict[str, Any]:
    """bm25s on the same real turns and questions (same tokenizer)."""
    got = _real_items(REAL_TURNS)
    if got is None:
        return {}
    events, questions = got
    try:
        import bm25s
    except ImportError:
        return {}
    from memdir.recall.tokenize import query_tokens, tokenize

    retriever = bm25s.BM25()
    retriever.index([tokenize(e["text"]) or ["\x00"] for e in events], show_progress=False)
    return {"bm25s": latency(lambda q: retriever.retrieve([query_tokens(q) or ["\x00"]], k=K, show_progress=False),
                             questions[:n_queries])}


def real_turns(n_queries: int, rounds: int) -> dict[str, Any] | None:
    """The real-turn figures (alternating memdir and bm25s processes), or ``None`` without ../shared/data."""
    if _real_items(1) is None:
        return None
    mds, refs = [], []
    with tempfile.TemporaryDirectory(prefix="memdir-real-") as tmp:
        for r in range(rounds):
            print(f"[speed] {REAL_TURNS:,} real turns (round {r + 1}/{rounds}) ...", file=sys.stderr, flush=True)
            wd = Path(tmp) / f"r{r}"
            mds.append(_run_worker(["--worker", "real", "--workdir", str(wd), "--queries", str(n_queries)]))
            refs.append(_run_worker(["--worker", "real-reference", "--queries", str(n_queries)]))
            shutil.rmtree(wd, ignore_errors=True)
    out = dict(mds[-1])
    out["lexical"] = _summary([x.get("lexical") for x in mds])
    out["held"] = _summary([x.get("held") for x in mds])
    out["import_events_per_s"] = statistics.median(x["import_events_per_s"] for x in mds)
    out["bm25s"] = _summary([x.get("bm25s") for x in refs])
    return out


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
    ap.add_argument("--rounds", type=int, default=2, help="alternating memdir/reference rounds per size (median reported)")
    ap.add_argument("--cache-dir", default=str(ROOT / "bench" / ".cache"),
                    help=f"where stores of {CACHE_MIN:,}+ items are kept between runs ('' = never cache)")
    ap.add_argument("--rebuild", action="store_true", help="rebuild cached stores")
    ap.add_argument("--no-real", action="store_true", help="skip the real-turn (LongMemEval) figures")
    ap.add_argument("--reference-max", type=int, default=REFERENCE_MAX,
                    help=f"largest size the seed scan and bm25s run at (default {REFERENCE_MAX:,}; they hold every token in memory)")
    ap.add_argument("--worker", choices=("memdir", "reference", "real", "real-reference"), help=argparse.SUPPRESS)
    ap.add_argument("--build-only", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--size", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--workdir", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    try:
        if args.queries < 1 or args.cold_repeat < 1:
            raise BenchUsage("--queries and --cold-repeat must be >= 1")
        if args.worker == "memdir":
            print(json.dumps(worker_memdir(args.size, Path(args.workdir), args.queries, args.seed, args.hybrid_max,
                                           build_only=args.build_only)))
            return 0
        if args.worker == "real":
            print(json.dumps(worker_real(Path(args.workdir), args.queries)))
            return 0
        if args.worker == "real-reference":
            print(json.dumps(worker_real_reference(args.queries)))
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
            if args.rounds < 1:
                raise BenchUsage("--rounds must be >= 1")
            run(_sizes(args.sizes), args.queries, out, args.seed, args.cold_repeat, command.strip(),
                hybrid_max=args.hybrid_max, stem=args.stem, rounds=args.rounds,
                cache_dir=Path(args.cache_dir) if args.cache_dir else None, reference_max=args.reference_max,
                rebuild=args.rebuild, real=not args.no_real)
    except BenchError as exc:
        print(f"speed: {exc}", file=sys.stderr)
        return 2 if isinstance(exc, BenchUsage) else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
