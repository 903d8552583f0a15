"""Wall time of one hook call as a host sees it: a NEW PROCESS ``memdir hook claude-code user-prompt`` reading a
recorded-format payload on stdin, on a store of 1,000 notes (built through the API in a temp dir).

Reported: p50 / p95 / mean in milliseconds over ``--runs`` calls (after ``--warmup`` unmeasured ones, so the OS
file cache is warm, as it is for a host firing a hook on every prompt), for

* ``python -c pass`` — interpreter start-up alone (the floor any Python hook pays);
* ``python -c "import memdir.hosts.hooks"`` — start-up + the hook path's imports;
* ``memdir hook claude-code user-prompt`` — the console script, as installed in a host's settings;
* ``python -m memdir.hosts.hooks claude-code user-prompt`` — the same hook without click.

Percentiles are nearest-rank on the sorted samples (p = the ceil(q·n)-th smallest). Usage::

    .venv/bin/python bench/hook_latency.py [--notes 1000] [--runs 40] [--json]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def pct(samples: list[float], q: float) -> float:
    """Nearest-rank percentile (q in (0, 1])."""
    s = sorted(samples)
    return s[max(0, math.ceil(q * len(s)) - 1)]


def build_store(project: Path, n: int) -> None:
    import memdir
    import synth

    categories = ["facts", "decisions", "pitfalls", "preferences"]
    with memdir.open(project, clock=lambda: synth.NOW) as m:
        for i, note in enumerate(synth.notes(n, seed=11)):
            cat = note.get("category") if note.get("category") in categories else categories[i % 4]
            m.remember(note["text"], category=cat, summary=note.get("summary"), tags=note.get("tags") or ())
        m.remember("Always run pnpm, never npm, in this repository.", category="rules")
        m.remember("部署前先跑 make check，失败就不要发版。", category="rules")


def time_cmd(argv: list[str], stdin: bytes, runs: int, warmup: int, env: dict, cwd: Path) -> tuple[list[float], bytes]:
    out = b""
    samples = []
    for i in range(warmup + runs):
        t0 = time.perf_counter()
        r = subprocess.run(argv, input=stdin, capture_output=True, env=env, cwd=str(cwd))
        dt = (time.perf_counter() - t0) * 1000
        if r.returncode != 0:
            raise SystemExit(f"{argv[:3]} exited {r.returncode}: {r.stderr.decode(errors='replace')[:300]}")
        if i >= warmup:
            samples.append(dt)
        out = r.stdout
    return samples, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--notes", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=40)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="memdir-hook-bench-"))
    try:
        project = tmp / "proj"
        (project / ".git").mkdir(parents=True)
        env = {**os.environ, "MEMDIR_HOME": str(tmp / "home")}
        os.environ["MEMDIR_HOME"] = env["MEMDIR_HOME"]
        t0 = time.perf_counter()
        build_store(project, args.notes)
        build_s = time.perf_counter() - t0
        prompt = {"session_id": "bench-session", "transcript_path": None, "cwd": str(project),
                  "hook_event_name": "UserPromptSubmit", "permission_mode": "default",
                  "prompt": "部署脚本 用 pnpm 还是 npm？ the deploy script config and cache settings"}
        payload = json.dumps(prompt, ensure_ascii=False).encode()
        exe = Path(sys.executable)
        script = exe.with_name("memdir")
        cases = [
            ("python -c pass", [str(exe), "-c", "pass"], b""),
            ("python -c 'import memdir.hosts.hooks'", [str(exe), "-c", "import memdir.hosts.hooks"], b""),
            ("memdir hook claude-code user-prompt", [str(script) if script.exists() else shutil.which("memdir") or "memdir",
                                                     "hook", "claude-code", "user-prompt"], payload),
            ("python -m memdir.hosts.hooks claude-code user-prompt", [str(exe), "-m", "memdir.hosts.hooks", "claude-code", "user-prompt"], payload),
        ]
        results = []
        block_len = None
        for name, argv, stdin in cases:
            samples, out = time_cmd(argv, stdin, args.runs, args.warmup, env, project)
            if stdin and out:
                block_len = len(json.loads(out)["hookSpecificOutput"]["additionalContext"])
            results.append({"case": name, "p50_ms": round(pct(samples, 0.5), 1), "p95_ms": round(pct(samples, 0.95), 1),
                            "mean_ms": round(statistics.fmean(samples), 1), "runs": len(samples)})
        with __import__("memdir").open(project) as m:
            events = m.status()["project"]["events"]
        report = {"notes": args.notes, "store_build_s": round(build_s, 1), "block_chars": block_len,
                  "events_after": events, "python": sys.version.split()[0], "results": results}
        if args.json:
            print(json.dumps(report, indent=2, ensure_ascii=False))
        else:
            print(f"store: {args.notes} notes (+2 rules) built in {build_s:.1f}s; block {block_len} chars; "
                  f"python {report['python']}")
            for r in results:
                print(f"  {r['case']:<48} p50 {r['p50_ms']:>7.1f} ms   p95 {r['p95_ms']:>7.1f} ms   mean {r['mean_ms']:>7.1f} ms")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
