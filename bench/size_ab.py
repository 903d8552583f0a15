"""Database size and ingest CPU of two memdir source trees, alternating in fresh processes (issue 12, size).

Usage (from the repository root, with ``../shared/data`` beside the checkout)::

    .venv/bin/python bench/size_ab.py --a /path/to/old/src --b src [--rounds 3]

Each round runs, for A then B, a child process that imports memdir from that tree and (1) imports the 10,000 real
LongMemEval turns of ``bench/speed.py`` into a fresh store in one ``import_events`` call, (2) imports 5,000 synthetic
events (``bench/synth.py``). It prints the CPU rate (``time.process_time``: the machine may be shared, wall rates then
mean little), the wall rate, the load average and the database bytes after close. Compare A and B within one run.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def child(kind: str, workdir: Path) -> dict:
    sys.path.insert(0, str(ROOT))
    from bench import speed, synth

    import memdir

    if kind == "real":
        got = speed._real_items(speed.REAL_TURNS)
        if got is None:
            return {}
        events, clock = got[0], None
    else:
        events, clock = list(synth.events(5000, 7)), (lambda: synth.NOW)
    proj, home = speed._dirs(workdir)
    with memdir.open(proj, home=home, **({"clock": clock} if clock else {})) as m:
        c, w = time.process_time(), time.perf_counter()
        m.import_events(events)
        cpu, wall = time.process_time() - c, time.perf_counter() - w
        root = Path(m.status()["project"]["path"])
    return {"kind": kind, "events": len(events), "cpu_per_s": len(events) / cpu, "wall_per_s": len(events) / wall,
            "load": os.getloadavg()[0], "db_bytes": speed._db_bytes(root)[0], "memdir": memdir.__file__}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--a", required=True, help="src directory of tree A")
    ap.add_argument("--b", required=True, help="src directory of tree B")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--child", choices=("real", "synthetic"), help=argparse.SUPPRESS)
    ap.add_argument("--workdir", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        print(json.dumps(child(a.child, Path(a.workdir))))
        return 0
    print("| round | kind | tree | events | CPU events/s | wall events/s | load | DB MB after close |")
    print("|---|---|---|---|---|---|---|---|")
    for r in range(a.rounds):
        for kind in ("real", "synthetic"):
            for name, src in (("A", a.a), ("B", a.b)):
                with tempfile.TemporaryDirectory(prefix="memdir-size-ab-") as tmp:
                    env = {**os.environ, "PYTHONPATH": str(Path(src).resolve())}
                    out = subprocess.run([sys.executable, __file__, "--a", a.a, "--b", a.b, "--child", kind, "--workdir", tmp],
                                         env=env, capture_output=True, text=True, check=True).stdout
                    res = json.loads(out.strip().splitlines()[-1])
                    shutil.rmtree(tmp, ignore_errors=True)
                if res:
                    print(f"| {r + 1} | {kind} | {name} | {res['events']:,} | {res['cpu_per_s']:,.0f} | {res['wall_per_s']:,.0f} "
                          f"| {res['load']:.1f} | {res['db_bytes'] / 1e6:.2f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
