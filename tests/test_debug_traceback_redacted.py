"""`--debug` shows a traceback for a failure: the traceback (its exception's message, the arguments it quotes) goes
through the same redaction as the one-line error, and the exit code is the one the error has without `--debug`."""

from __future__ import annotations

import os
import subprocess
import sys

KEY = "ghp_" + "abcdefghijklmnopqrstuvwxyz0123456789"


def memdir_cli(tmp_path, *args):
    env = {**os.environ, "HOME": str(tmp_path), "MEMDIR_HOME": str(tmp_path / "g")}
    return subprocess.run([sys.executable, "-m", "memdir", *args], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=60)


def test_a_debug_traceback_holds_no_secret(tmp_path):
    plain = memdir_cli(tmp_path, "forget", KEY)
    debug = memdir_cli(tmp_path, "--debug", "forget", KEY)
    assert plain.returncode != 0 and KEY not in plain.stderr
    assert "Traceback" in debug.stderr and "NotFound" in debug.stderr  # still the whole traceback
    assert KEY not in debug.stderr and "[redacted:github_token]" in debug.stderr, debug.stderr
    assert debug.returncode == plain.returncode
