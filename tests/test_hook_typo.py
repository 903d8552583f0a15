"""A mistyped hook event or host, run by hand with --debug, says so in one line (still exit 0: a host is never
blocked); run as a host runs it (no terminal, no --debug) it stays silent."""

import os
import subprocess
import sys


def _hook(args, project, tmp_path):
    env = {**os.environ, "MEMDIR_HOME": str(tmp_path / "g")}
    env.pop("MEMDIR_DEBUG", None)
    return subprocess.run([sys.executable, "-m", "memdir", *args], input="{}", capture_output=True, text=True,
                          cwd=project, env=env, timeout=60)


def test_a_mistyped_event_is_told_with_debug_and_silent_without(project, tmp_path):
    r = _hook(["--debug", "hook", "claude-code", "user-promt"], project, tmp_path)
    assert r.returncode == 0 and r.stdout == "" and "unknown event 'user-promt'" in r.stderr
    assert r.stderr.count("\n") == 1
    r = _hook(["hook", "claude-code", "user-promt"], project, tmp_path)
    assert r.returncode == 0 and r.stdout == "" and r.stderr == ""


def test_the_typo_is_told_with_no_payload_too_and_debug_0_is_off(project, tmp_path):
    env = {**os.environ, "MEMDIR_HOME": str(tmp_path / "g")}
    env.pop("MEMDIR_DEBUG", None)
    r = subprocess.run([sys.executable, "-m", "memdir", "--debug", "hook", "claude-code", "SesionStart"],
                       stdin=subprocess.DEVNULL, capture_output=True, text=True, cwd=project, env=env, timeout=60)
    assert r.returncode == 0 and "unknown event 'SesionStart'" in r.stderr
    r = subprocess.run([sys.executable, "-m", "memdir", "hook", "claude-code", "user-promt"], input="{}",
                       capture_output=True, text=True, cwd=project, env={**env, "MEMDIR_DEBUG": "0"}, timeout=60)
    assert r.returncode == 0 and r.stderr == ""
