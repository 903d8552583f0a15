"""The memdir modules one prompt hook imports: ``memdir hook claude-code user-prompt`` in a new process, on a
project with one note, no ``memdir serve`` running (the cold path). Prints the hook's output and one line
``MODS [...]``; a move that must not grow the hook path compares this list before and after.

    .venv/bin/python bench/hook_modules.py
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

CHILD = r'''
import json, os, sys
sys.argv = ["memdir", "hook", "claude-code", "user-prompt"]
import memdir.__main__ as entry

def leave(code):
    sys.stdout.flush()
    print("\nMODS " + json.dumps(sorted(m for m in sys.modules if m.startswith("memdir"))), file=sys.stderr)
    sys.stderr.flush()
    os._exit(code)

entry._leave = leave  # the console script ends with os._exit: list the modules just before it
entry.main()
'''


def main() -> int:
    with tempfile.TemporaryDirectory() as d:
        proj = Path(d) / "p"
        proj.mkdir()
        env = dict(os.environ, MEMDIR_HOME=str(Path(d) / "g"))
        subprocess.run([sys.executable, "-m", "memdir.cli", "remember", "deploy with pnpm to staging"], cwd=proj,
                       env=env, check=True, capture_output=True)
        payload = {"hook_event_name": "UserPromptSubmit", "prompt": "how do we deploy staging", "session_id": "s1",
                   "cwd": str(proj)}
        r = subprocess.run([sys.executable, "-c", CHILD], cwd=proj, env=env, capture_output=True, text=True,
                           input=json.dumps(payload))
    print(r.stdout.strip())
    mods = [s for s in r.stderr.splitlines() if s.startswith("MODS ")]
    if not mods:
        print(r.stderr, file=sys.stderr)
        return 1
    print(mods[0])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
