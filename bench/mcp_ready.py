"""How long a host waits for ``memdir mcp`` to be READY: a new process, then ``initialize``,
``notifications/initialized`` and ``tools/list`` over stdio, timed from the spawn to the ``tools/list`` reply
(what Codex CLI waits for, 1,000 ms by default, before the first tool list of a session).

The variants are timed interleaved (one start of each in turn), so a change in the load of the shared machine falls
on all of them alike. Each run is a cold start of a new process (the OS file cache is warm after ``--warmup`` unmeasured runs, as it is for
a host that starts the server at every session) against an empty project and home in a temp dir. Reported: p50 / p95 /
mean / max in milliseconds over ``--runs`` starts, for

* ``python -c pass`` — interpreter start-up alone (the floor);
* ``memdir mcp`` of this tree (``src/`` next to this file);
* with ``--before REF``: ``memdir mcp`` of the commit ``REF`` (its ``src/`` exported with ``git archive`` into a temp
  dir), so before and after are measured on the same machine in the same run;
* ``first tools/call`` — this tree (and ``REF``), spawn to the reply of a ``memory_recall`` sent right after ``tools/list`` (the
  full server and the engine have to load for it).

Percentiles are nearest-rank on the sorted samples. Usage::

    .venv/bin/python bench/mcp_ready.py [--runs 30] [--before REF] [--out bench/results/mcp_ready.md] [--json]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
PROTOCOL = "2025-06-18"


def pct(samples: list[float], q: float) -> float:
    """Nearest-rank percentile (q in (0, 1])."""
    s = sorted(samples)
    return s[max(0, math.ceil(q * len(s)) - 1)]


def _send(proc: subprocess.Popen, msg: dict) -> None:
    proc.stdin.write((json.dumps(msg) + "\n").encode())
    proc.stdin.flush()


def _reply(proc: subprocess.Popen, want_id: int) -> dict:
    while True:
        line = proc.stdout.readline()
        if not line:
            raise RuntimeError(f"server closed stdout before the reply to id {want_id}: "
                               f"{proc.stderr.read().decode(errors='replace')[-500:]}")
        msg = json.loads(line)
        if msg.get("id") == want_id:
            return msg


def one_start(src: Path, work: Path, *, call: bool = False) -> float:
    """Milliseconds from spawning ``python -m memdir mcp`` (with ``src`` first on PYTHONPATH) to the reply to
    ``tools/list`` (``call``: to the reply to a ``memory_recall`` sent right after it). Raises ``RuntimeError`` when
    the server dies or answers with an error."""
    env = dict(os.environ, PYTHONPATH=str(src), MEMDIR_HOME=str(work / "home"))
    env.pop("MEMDIR_PROJECT_DIR", None)
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "memdir", "mcp", "--home", str(work / "home")], cwd=str(work / "proj"),
                            env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        _send(proc, {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                     "params": {"protocolVersion": PROTOCOL, "capabilities": {},
                                "clientInfo": {"name": "mcp_ready", "version": "0"}}})
        _send(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        _send(proc, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        if call:
            _send(proc, {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                         "params": {"name": "memory_recall", "arguments": {"query": "anything"}}})
        for i in (1, 2) + ((3,) if call else ()):
            r = _reply(proc, i)
            if "error" in r or (i == 2 and not r["result"]["tools"]):
                raise RuntimeError(f"bad reply {r}")
        dt = (time.perf_counter() - t0) * 1000
    finally:
        proc.stdin.close()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        proc.stdout.close()
        proc.stderr.close()
    return dt


def floor_start() -> float:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    return (time.perf_counter() - t0) * 1000


def export_src(ref: str, into: Path) -> Path:
    """``src/`` of the commit ``ref`` of this repository, written under ``into``; returns that ``src`` path."""
    blob = subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", ref, "src"], check=True,
                          capture_output=True).stdout
    with tarfile.open(fileobj=BytesIO(blob)) as tar:
        tar.extractall(into, filter="data")
    return into / "src"


def measure(fns: dict, runs: int, warmup: int) -> list[tuple[str, dict]]:
    """Time every function of ``fns`` (name → fn returning milliseconds) ``runs`` times, interleaved (one run of each
    in turn, so a change in the machine's load falls on all of them alike), after ``warmup`` unmeasured rounds."""
    for _ in range(warmup):
        for fn in fns.values():
            fn()
    samples: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(runs):
        for name, fn in fns.items():
            samples[name].append(fn())
    return [(name, {"runs": runs, "p50": pct(x, 0.5), "p95": pct(x, 0.95), "mean": statistics.fmean(x), "max": max(x)})
            for name, x in samples.items()]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--before", default=None, metavar="REF", help="also time memdir mcp of this git commit")
    ap.add_argument("--out", default=None, help="write the Markdown table here")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="mcp_ready-"))
    try:
        work = tmp / "w"
        (work / "proj" / ".git").mkdir(parents=True)
        (work / "home").mkdir()
        here = ROOT / "src"
        ready = {"python -c pass (floor)": floor_start}
        calls = {}
        if a.before:
            old = export_src(a.before, tmp / "before")
            rev = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", a.before], capture_output=True,
                                 text=True).stdout.strip()
            ready[f"before ({rev}): ready"] = lambda: one_start(old, work)
            calls[f"before ({rev}): first tools/call answered"] = lambda: one_start(old, work, call=True)
        ready["this tree: ready"] = lambda: one_start(here, work)
        calls["this tree: first tools/call answered"] = lambda: one_start(here, work, call=True)
        rows = measure(ready, a.runs, a.warmup) + measure(calls, max(5, a.runs // 2), 1)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    head = (f"# memdir mcp: time to ready (initialize + tools/list answered)\n\n"
            f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; Python {platform.python_version()}, "
            f"{os.cpu_count()} cores ({platform.machine()}), load average at the end "
            f"{' '.join(f'{x:.2f}' for x in os.getloadavg())} (the machine is shared). Cold process per run, "
            f"spawn to reply, milliseconds, nearest-rank percentiles (`bench/mcp_ready.py --runs {a.runs}`).\n\n"
            "| what | runs | p50 | p95 | mean | max |\n|---|---:|---:|---:|---:|---:|\n")
    table = head + "".join(f"| {name} | {r['runs']} | {r['p50']:.0f} | {r['p95']:.0f} | {r['mean']:.0f} | {r['max']:.0f} |\n"
                           for name, r in rows)
    if a.out:
        Path(a.out).write_text(table, encoding="utf-8")
    print(json.dumps(dict(rows), indent=1) if a.json else table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
