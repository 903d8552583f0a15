"""How long the first ``memory_recall`` of a ``memdir mcp`` session keeps the agent waiting: a new process, then
``initialize``, ``notifications/initialized`` and ``tools/list`` over stdio (what a host sends at start), then,
right after the ``tools/list`` reply (or ``--delay`` seconds later, a model writing its first tool call), a
``tools/call`` of ``memory_recall``, timed from sending it to its reply; then a second ``memory_recall``, timed the same
way.

The store is built once per run in a temp dir from ``bench/synth.py`` (fixed seed, mixed Chinese/English):
``--notes`` curated notes through ``remember`` (300) and ``--events`` episodic events through ``import_events``
(3,000). Each start is a cold process (the OS file cache is warm after one unmeasured round). With ``--before REF``,
``memdir mcp`` of the commit ``REF`` (its ``src/`` exported with ``git archive``) is timed too, interleaved with this
tree's (one start of each in turn), so a change in the shared machine's load falls on both alike. Queries cycle
through ``synth.queries`` so no two calls of a run ask the same thing. Reported: median and p90 (nearest rank) in
milliseconds. Usage::

    .venv/bin/python bench/mcp_first_call.py [--runs 10] [--delay 0,0.5] [--before REF] [--out bench/results/mcp_first_call.md]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from mcp_ready import _reply, _send, export_src, pct  # noqa: E402

PROTOCOL = "2025-06-18"


def build_store(work: Path, notes: int, events: int) -> None:
    """A project (``work/proj``, a git top-level) and a home (``work/home``) holding the synthetic store, written by a
    child process of this tree's memdir."""
    (work / "proj" / ".git").mkdir(parents=True)
    (work / "home").mkdir()
    code = ("import sys; sys.path.insert(0, sys.argv[1]); import synth, memdir\n"
            "m = memdir.open(sys.argv[2], home=sys.argv[3])\n"
            "m.import_events(list(synth.events(int(sys.argv[5]))))\n"
            "for kw in synth.notes(int(sys.argv[4])): m.remember(**kw)\n"
            "m.close()\n")
    subprocess.run([sys.executable, "-c", code, str(HERE), str(work / "proj"), str(work / "home"), str(notes),
                    str(events)], check=True, env=dict(os.environ, PYTHONPATH=str(ROOT / "src")))


def one_session(src: Path, work: Path, queries: list[str], delay: float) -> tuple[float, float]:
    """(first, second): milliseconds from sending each ``memory_recall`` to its reply, in a new ``memdir mcp`` process
    whose ``tools/list`` was answered ``delay`` seconds before the first. Raises ``RuntimeError`` on an error reply."""
    env = dict(os.environ, PYTHONPATH=str(src), MEMDIR_HOME=str(work / "home"))
    env.pop("MEMDIR_PROJECT_DIR", None)
    proc = subprocess.Popen([sys.executable, "-m", "memdir", "mcp", "--home", str(work / "home")], cwd=str(work / "proj"),
                            env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        _send(proc, {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                     "params": {"protocolVersion": PROTOCOL, "capabilities": {},
                                "clientInfo": {"name": "mcp_first_call", "version": "0"}}})
        _reply(proc, 1)
        _send(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        _send(proc, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        _reply(proc, 2)
        if delay:
            time.sleep(delay)
        out = []
        for i, q in enumerate(queries[:2], start=3):
            t0 = time.perf_counter()
            _send(proc, {"jsonrpc": "2.0", "id": i, "method": "tools/call",
                         "params": {"name": "memory_recall", "arguments": {"query": q}}})
            r = _reply(proc, i)
            out.append((time.perf_counter() - t0) * 1000)
            if "error" in r or r["result"].get("isError") or not r["result"]["structuredContent"]["hits"]:
                raise RuntimeError(f"bad reply {json.dumps(r)[:500]}")
    finally:
        proc.stdin.close()
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        proc.stdout.close()
        proc.stderr.close()
    return out[0], out[1]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--delay", default="0,0.5", help="seconds between the tools/list reply and the first call, "
                                                      "comma-separated (each a row)")
    ap.add_argument("--notes", type=int, default=300)
    ap.add_argument("--events", type=int, default=3000)
    ap.add_argument("--before", default=None, metavar="REF", help="also time memdir mcp of this git commit")
    ap.add_argument("--out", default=None, help="write the Markdown table here")
    a = ap.parse_args(argv)
    import synth

    delays = [float(x) for x in a.delay.split(",") if x.strip()]
    queries = synth.queries(4 * (a.runs + 1) * len(delays) * 2)
    tmp = Path(tempfile.mkdtemp(prefix="mcp_first_call-"))
    rows = []
    try:
        work = tmp / "w"
        build_store(work, a.notes, a.events)
        trees = {}
        if a.before:
            rev = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", a.before], capture_output=True,
                                 text=True, check=True).stdout.strip()
            trees[f"before ({rev})"] = export_src(a.before, tmp / "before")
        trees["this tree"] = ROOT / "src"
        qi = 0
        for delay in delays:
            samples: dict[str, tuple[list[float], list[float]]] = {name: ([], []) for name in trees}
            for run in range(a.runs + 1):  # round 0: unmeasured (file cache)
                for name, src in trees.items():
                    first, second = one_session(src, work, queries[qi:qi + 2], delay)
                    qi += 2
                    if run:
                        samples[name][0].append(first)
                        samples[name][1].append(second)
            for name, (first, second) in samples.items():
                rows.append((name, delay, a.runs, statistics.median(first), pct(first, 0.9), statistics.median(second),
                             pct(second, 0.9)))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    head = (f"# memdir mcp: the first memory_recall of a session\n\n"
            f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; Python {platform.python_version()}, "
            f"{os.cpu_count()} cores ({platform.machine()}), load average at the end "
            f"{' '.join(f'{x:.2f}' for x in os.getloadavg())} (the machine is shared). A store of {a.notes} notes and "
            f"{a.events:,} events; a cold `memdir mcp` per run; milliseconds from sending the call to its reply, "
            f"median and nearest-rank p90 (`bench/mcp_first_call.py --runs {a.runs}`). *delay*: seconds between the "
            "`tools/list` reply and the first call.\n\n"
            "| what | delay s | runs | first call median | first call p90 | second call median | second call p90 |\n"
            "|---|---:|---:|---:|---:|---:|---:|\n")
    table = head + "".join(f"| {n} | {d:g} | {r} | {f50:.0f} | {f90:.0f} | {s50:.0f} | {s90:.0f} |\n"
                           for n, d, r, f50, f90, s50, s90 in rows)
    if a.out:
        Path(a.out).write_text(table, encoding="utf-8")
    print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
