"""What the distillation trigger adds to the host's Stop hook (issue 11: target 0 ms blocking, all work detached).

Usage (from the repository root)::

    .venv/bin/python bench/distill_hook.py [--runs 20] [--out bench/results]

A throwaway project holds one captured session of 8 turns. The Claude Code Stop hook
(``python -m memdir.hosts.hooks claude-code stop`` with a Stop payload on stdin, a new process each time, as the host
runs it) is timed with ``distill.auto`` off and on, alternating, ``--runs`` times each. With it on, the hook
starts the detached distiller (``memdir.distill.flow.trigger``); the model behind it is a stub on 127.0.0.1 that
holds every request for 2 s, so a hook that waited for the distiller would show it. Also measured: the
in-process cost of ``trigger`` alone (the ``Popen`` of the detached child), and that every detached child
finished (their summary lines in ``distill.log``).

Writes ``distill-hook.md`` + ``distill-hook.json`` to ``--out`` and prints the table. Absolute times depend on
the machine (the committed results come from a shared 2-core machine).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

import memdir  # noqa: E402
from memdir.distill import flow as distill  # noqa: E402
from stub_model import Stall, StubModel  # noqa: E402


def _pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def _config(home: Path, url: str, auto: bool) -> None:
    # the global root's config.toml: distill.url is one of the settings a project's config.toml may not set
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(
        f'[distill]\nauto = {"true" if auto else "false"}\nprovider = "openai"\nurl = "{url}"\nmodel = "stub"\n'
        'timeout_s = 5\n', encoding="utf-8")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--out", default=str(ROOT / "bench" / "results"))
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="memdir-distill-bench-") as tmp, StubModel() as stub:
        tmp_p = Path(tmp)
        project, home = tmp_p / "proj", tmp_p / "home"
        (project / ".git").mkdir(parents=True)
        (project / ".memory").mkdir()
        with memdir.open(project, home=home) as m:
            m.import_events([{"key": f"{r[0]}:s1:{i}", "role": r, "text": f"{r} turn {i}: we moved the deploy to pnpm ({i})",
                              "session": "s1", "ts": f"2026-11-01T10:{i:02d}:00Z"} for i in range(8) for r in ("user", "assistant")])
        env = {**os.environ, "MEMDIR_HOME": str(home), "MEMDIR_HOOK_BUDGET_MS": "60000"}
        env.pop("MEMDIR_DISTILLING", None)
        payload = json.dumps({"session_id": "s1", "cwd": str(project), "hook_event_name": "Stop",
                              "last_assistant_message": "Done: the deploy uses pnpm now."})
        times: dict[str, list[float]] = {"off": [], "on": []}
        for i in range(args.runs * 2):
            mode = "on" if i % 2 else "off"
            _config(home, stub.url, mode == "on")
            if mode == "on":
                stub.replies.append(Stall(2.0))
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-m", "memdir.hosts.hooks", "claude-code", "stop"], input=payload, text=True,
                           capture_output=True, env=env, check=True)
            times[mode].append((time.perf_counter() - t0) * 1000)
        # trigger alone, in process
        _config(home, stub.url, True)
        trig = []
        with memdir.open(project, home=home) as m:
            for _ in range(args.runs):
                stub.replies.append(Stall(2.0))
                t0 = time.perf_counter()
                pid = distill.trigger(m, "s1")
                trig.append((time.perf_counter() - t0) * 1000)
                assert pid
        logf = distill.log_path(home)
        expected = args.runs * 2
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            done = logf.read_text().count("distill: session s1") if logf.exists() else 0
            if done >= expected:
                break
            time.sleep(0.2)
        finished = logf.read_text().count("distill: session s1") if logf.exists() else 0
        requests = len(stub.requests)
    off, on = times["off"], times["on"]
    row = {
        "runs": args.runs,
        "stop_hook_off_ms": {"p50": statistics.median(off), "p95": _pct(off, 95), "mean": statistics.mean(off)},
        "stop_hook_on_ms": {"p50": statistics.median(on), "p95": _pct(on, 95), "mean": statistics.mean(on)},
        "added_p50_ms": statistics.median(on) - statistics.median(off),
        "trigger_inprocess_ms": {"p50": statistics.median(trig), "p95": _pct(trig, 95)},
        "detached_children": expected, "children_finished": finished, "model_requests": requests,
        "stub_hold_ms": 2000,
    }
    md = [
        "# Distillation trigger: wall time added to the Stop hook",
        "",
        f"`python -m memdir.hosts.hooks claude-code stop` as a new process (what the host runs), {args.runs} runs each, "
        "alternating; the model stub holds each request 2,000 ms, so a blocking hook would take > 2,000 ms.",
        "",
        "| Stop hook | p50 ms | p95 ms | mean ms |",
        "|---|---|---|---|",
        f"| distill.auto off | {row['stop_hook_off_ms']['p50']:.0f} | {row['stop_hook_off_ms']['p95']:.0f} | {row['stop_hook_off_ms']['mean']:.0f} |",
        f"| distill.auto on (detached distiller started) | {row['stop_hook_on_ms']['p50']:.0f} | {row['stop_hook_on_ms']['p95']:.0f} | {row['stop_hook_on_ms']['mean']:.0f} |",
        "",
        f"Added at p50: **{row['added_p50_ms']:.0f} ms** (the `Popen` of the detached child; `trigger` alone in process: "
        f"p50 {row['trigger_inprocess_ms']['p50']:.1f} ms, p95 {row['trigger_inprocess_ms']['p95']:.1f} ms). "
        f"Detached distillers started: {expected}, finished and logged: {finished}; model requests: {requests}.",
        "",
    ]
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "distill-hook.md").write_text("\n".join(md), encoding="utf-8")
    (out / "distill-hook.json").write_text(json.dumps(row, indent=2), encoding="utf-8")
    print("\n".join(md))
    return 0


if __name__ == "__main__":
    sys.exit(main())
