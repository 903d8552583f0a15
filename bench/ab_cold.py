"""A/B of issue 12's cold-process and ingest-CPU work: this checkout against an earlier commit, in the same run.

Usage (from the repository root)::

    .venv/bin/python bench/ab_cold.py --base 781d6aa [--rounds 9] [--events 5000] [--stem h12cold-ab]

The base commit's ``src/`` is extracted to a temp dir (``git archive``) and both trees are compiled to bytecode (as
an installed package is). Then, alternating base / new processes round by round (so both see the same machine
load; the load average is reported beside the figures):

* **cold hook**: ``memdir hook claude-code user-prompt`` as a new process (the console script of this environment,
  ``PYTHONPATH`` selecting the tree, ``MEMDIR_HOOK_WARM=0``) on a 1,000-item synthetic store (``bench/synth.py``,
  as ``bench/speed.py`` builds it; one per tree, built by that tree's code), the prompt the first synthetic query; ``python -c pass`` each round is the
  floor. Wall time and the process's CPU time (user + sys: less sensitive to other processes than wall time).
* **ingest**: ``import_events`` of ``--events`` synthetic events (generated before the clock starts) into a new
  store: events/s by wall time and by the process's CPU time.
* **tokenize / redact**: µs per text of ``memdir.recall.tokenize.tokenize`` and ``memdir.capture.redact.redact`` over the
  synthetic events, 5,000 LongMemEval turns and 5,000 strings of the recorded transcripts (the last two when
  ``../shared/data`` is there), best of 5 passes after a warm-up pass.

Writes ``<stem>.md`` / ``<stem>.json`` to ``--out`` (``bench/results``) and prints the table.
"""

from __future__ import annotations

import argparse
import compileall
import gzip
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if __package__ in (None, ""):
    here = str(Path(__file__).resolve().parent)
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != here]
    sys.path.insert(0, str(ROOT))

from bench import speed, synth  # noqa: E402

SHARED = ROOT.parent / "shared" / "data"

_WORKER = r"""
import gzip, json, os, sys, tempfile, time
sys.path.insert(0, sys.argv[1])
from bench import synth
job, n = sys.argv[2], int(sys.argv[3])
if job == "ingest":
    import memdir
    evs = list(synth.events(n, 7))
    with tempfile.TemporaryDirectory() as d:
        proj = os.path.join(d, "p"); os.makedirs(proj + "/.git")
        with memdir.open(proj, home=os.path.join(d, "h"), clock=lambda: synth.NOW) as m:
            w, c = time.perf_counter(), time.process_time()
            counts = m.import_events(evs)
            w, c = time.perf_counter() - w, time.process_time() - c
    print(json.dumps({"wall_s": w, "cpu_s": c, "stored": counts["stored"]}))
else:
    from memdir.capture.redact import redact
    from memdir.recall.tokenize import tokenize
    texts = json.load(open(sys.argv[4], encoding="utf-8"))
    out = {}
    for name, items in texts.items():
        for label, f in (("tokenize", tokenize), ("redact", redact)):
            [f(t) for t in items]
            best = 9e9
            for _ in range(5):
                t0 = time.process_time()
                for t in items:
                    f(t)
                best = min(best, time.process_time() - t0)
            out[f"{label} {name}"] = best / len(items) * 1e6
    print(json.dumps(out))
"""


def _strings(obj, out: list[str]) -> None:
    if isinstance(obj, str):
        out.append(obj)
    elif isinstance(obj, dict):
        for v in obj.values():
            _strings(v, out)
    elif isinstance(obj, list):
        for v in obj:
            _strings(v, out)


def text_sets(n: int = 5000) -> dict[str, list[str]]:
    sets = {"synthetic events": [e["text"] for e in synth.events(n, 7)]}
    lme = SHARED / "longmemeval" / "longmemeval_s_dev.json.gz"
    if lme.exists():
        data = json.load(gzip.open(lme, "rt", encoding="utf-8"))
        sets["LongMemEval turns"] = [t["content"] for q in data for s in q["haystack_sessions"] for t in s][:n]
    tr = SHARED / "transcripts"
    if tr.is_dir():
        found: list[str] = []
        for f in sorted(tr.rglob("*.jsonl")):
            for line in f.read_text(encoding="utf-8", errors="replace").splitlines():
                try:
                    _strings(json.loads(line), found)
                except ValueError:
                    pass
        sets["transcript strings"] = [t for t in found if len(t) > 20][:n]
    return sets


def _run(cmd: list[str], env: dict, cwd: Path | None = None, stdin: str | None = None) -> tuple[subprocess.CompletedProcess, float, float]:
    """Run ``cmd``; returns (result, wall ms, CPU ms of the child: user + sys)."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    r = subprocess.run(cmd, cwd=cwd, env=env, input=stdin, capture_output=True, text=True)
    wall = (time.perf_counter() - t) * 1000
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r, wall, ((r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)) * 1000


def _med(xs: list[float]) -> float:
    return statistics.median(xs) if xs else float("nan")


def run(base_ref: str, rounds: int, events: int, out_dir: Path | None, stem: str) -> dict:
    tmp = Path(tempfile.mkdtemp(prefix="memdir-ab-"))
    try:
        base = tmp / "base"
        base.mkdir()
        arch = subprocess.run(["git", "-C", str(ROOT), "archive", base_ref, "src"], capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(base)], input=arch, check=True)
        trees = {"base": base / "src", "new": ROOT / "src"}
        for src in trees.values():
            compileall.compile_dir(str(src / "memdir"), quiet=1)
        load0 = os.getloadavg()
        # one 1,000-item store per tree, each built by its own code (same items): a newer schema is never opened by
        # the older code, and no hook pays a migration
        stores = {}
        for k, src in trees.items():
            wd = tmp / f"s1000-{k}"
            print(f"[ab] building a 1,000-item store with the {k} tree ...", file=sys.stderr, flush=True)
            code = "import sys; from pathlib import Path; from bench import speed; speed.build_store(1000, Path(sys.argv[1]), 7)"
            subprocess.run([sys.executable, "-c", code, str(wd)], check=True, cwd=str(ROOT), capture_output=True,
                           env={**os.environ, "PYTHONPATH": os.pathsep.join([str(src), str(ROOT)])})
            stores[k] = (wd / "project", wd / "home")
        query = synth.queries(1, 7)[0]

        def payload(k: str) -> str:
            return json.dumps({"prompt": query, "cwd": str(stores[k][0]), "session_id": "s",
                               "hook_event_name": "UserPromptSubmit"}, ensure_ascii=False)
        exe = speed.memdir_exe()
        texts_file = tmp / "texts.json"
        texts_file.write_text(json.dumps(text_sets()), encoding="utf-8")
        worker = tmp / "worker.py"
        worker.write_text(_WORKER, encoding="utf-8")

        def env_for(src: Path, k: str) -> dict:
            e = {**os.environ, "PYTHONPATH": str(src), "MEMDIR_HOME": str(stores[k][1]), "MEMDIR_HOOK_WARM": "0"}
            e.pop("MEMDIR_DEBUG", None)
            return e

        hook = {k: {"wall": [], "cpu": []} for k in (*trees, "python -c pass")}
        ingest = {k: {"wall": [], "cpu": []} for k in trees}
        micro: dict[str, dict[str, list[float]]] = {k: {} for k in trees}
        for r in range(rounds):
            print(f"[ab] round {r + 1}/{rounds} (load {os.getloadavg()[0]:.1f}) ...", file=sys.stderr, flush=True)
            for k, src in trees.items():
                res, w, c = _run([exe, "hook", "claude-code", "user-prompt"], env_for(src, k), cwd=stores[k][0],
                                 stdin=payload(k))
                if res.returncode != 0 or "memory" not in res.stdout:
                    raise SystemExit(f"{k}: the hook gave no block: {res.stderr[-400:]}")
                hook[k]["wall"].append(w)
                hook[k]["cpu"].append(c)
            _, w, c = _run([sys.executable, "-c", "pass"], os.environ)
            hook["python -c pass"]["wall"].append(w)
            hook["python -c pass"]["cpu"].append(c)
            if r < max(3, rounds // 3):  # ingest and micro: fewer rounds (seconds each)
                for k, src in trees.items():
                    res, _, _ = _run([sys.executable, str(worker), str(ROOT), "ingest", str(events)], env_for(src, k))
                    d = json.loads(res.stdout.strip().splitlines()[-1])
                    assert d["stored"] == events, d
                    ingest[k]["wall"].append(events / d["wall_s"])
                    ingest[k]["cpu"].append(events / d["cpu_s"])
                    res, _, _ = _run([sys.executable, str(worker), str(ROOT), "micro", "0", str(texts_file)],
                                     env_for(src, k))
                    for name, us in json.loads(res.stdout.strip().splitlines()[-1]).items():
                        micro[k].setdefault(name, []).append(us)
        load1 = os.getloadavg()
        result = {"base": base_ref, "new": _head(), "rounds": rounds, "events": events, "query": query,
                  "load_start": load0, "load_end": load1, "machine": speed.machine(), "hook": hook, "ingest": ingest,
                  "micro": micro, "started": time.strftime("%Y-%m-%d %H:%M:%S %Z")}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    md = render(result)
    print(md)
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
        (out_dir / f"{stem}.md").write_text(md, encoding="utf-8")
        (out_dir / f"{stem}.json").write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return result


def _head() -> str:
    r = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "src"], capture_output=True, text=True).stdout
    return r.stdout.strip() + (" + uncommitted changes" if dirty.strip() else "")


def render(res: dict) -> str:
    l0, l1 = res["load_start"], res["load_end"]
    h = res["hook"]
    lines = [f"# Issue 12 A/B: cold hook and ingest CPU — base `{res['base']}` vs new `{res['new']}`\n",
             f"Run {res['started']}, {res['rounds']} alternating rounds, load average {l0[0]:.1f} / {l0[1]:.1f} / "
             f"{l0[2]:.1f} at the start and {l1[0]:.1f} / {l1[1]:.1f} / {l1[2]:.1f} at the end "
             f"({res['machine'].get('cores', '?')} cores): wall times are inflated by the other processes; CPU time "
             "(user + sys of the process) is the steadier figure. Command: `python bench/ab_cold.py --base "
             f"{res['base']}`.\n",
             "## New-process hook, 1,000-item store\n",
             f"`memdir hook claude-code user-prompt`, prompt `{res['query']}`, in-process path (no `memdir serve`).\n",
             "| process | wall median ms | wall min ms | CPU median ms | CPU min ms |", "|---|---|---|---|---|"]
    for k, v in h.items():
        lines.append(f"| {k} | {_med(v['wall']):.1f} | {min(v['wall']):.1f} | {_med(v['cpu']):.1f} | {min(v['cpu']):.1f} |")
    b, n = h["base"], h["new"]
    lines.append(f"\nnew / base: wall median {_med(n['wall']) / _med(b['wall']):.2f}, CPU median "
                 f"{_med(n['cpu']) / _med(b['cpu']):.2f}.\n")
    lines += [f"## Ingest, {res['events']:,} synthetic events (lexical only)\n",
              "| tree | events/s by wall time (median) | events/s by CPU time (median) | rounds |", "|---|---|---|---|"]
    for k, v in res["ingest"].items():
        lines.append(f"| {k} | {_med(v['wall']):,.0f} | {_med(v['cpu']):,.0f} | {len(v['cpu'])} |")
    lines += ["\n## Tokenizer and redaction, µs per text (best of 5 passes, median over rounds)\n",
              "| function, texts | base | new | base / new |", "|---|---|---|---|"]
    for name in res["micro"]["base"]:
        a, z = _med(res["micro"]["base"][name]), _med(res["micro"]["new"].get(name, []))
        lines.append(f"| {name} | {a:.1f} | {z:.1f} | {a / z:.2f}× |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", required=True, help="git ref of the base tree (its src/ is extracted)")
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--events", type=int, default=5000)
    ap.add_argument("--out", default=str(ROOT / "bench" / "results"))
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--stem", default="ab-cold")
    a = ap.parse_args(argv)
    run(a.base, a.rounds, a.events, None if a.no_write else Path(a.out), a.stem)
    return 0


if __name__ == "__main__":
    sys.exit(main())
