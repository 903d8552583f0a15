"""A hook the host starts while `pip install` replaces memdir's files (an upgrade under way, a half-written module)
fails open like any other hook error: exit 0, nothing on stderr for the host to show. Before, a module missing or cut
short at that moment put a Python traceback into the host's window and exited 1."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import memdir

PKG = Path(memdir.__file__).parent


def _copy(tmp_path: Path) -> Path:
    lib = tmp_path / "lib"
    shutil.copytree(PKG, lib / "memdir", ignore=shutil.ignore_patterns("__pycache__"))
    return lib


def _break_missing(path: Path) -> None:
    path.unlink()


def _break_cut(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    path.write_text(text[: len(text) // 2], encoding="utf-8")  # a file pip had written half of


@pytest.mark.parametrize("module", ["hosts/hooks.py", "hosts/hookclient.py", "stdio.py", "cli/main.py"])
@pytest.mark.parametrize("damage", [_break_missing, _break_cut])
@pytest.mark.parametrize("entry", ["script", "python -m memdir.cli"])
def test_a_hook_during_an_upgrade_fails_open_without_a_traceback(tmp_path, module, damage, entry):
    lib = _copy(tmp_path)
    damage(lib / "memdir" / module)
    proj = tmp_path / "proj"
    proj.mkdir()
    payload = json.dumps({"session_id": "s1", "prompt": "how do we deploy?", "cwd": str(proj),
                          "hook_event_name": "UserPromptSubmit"})
    code = ("import sys; from memdir.__main__ import main; sys.argv[0] = 'memdir'; main()" if entry == "script" else
            "import runpy; runpy.run_module('memdir.cli', run_name='__main__')")
    env = {**os.environ, "PYTHONPATH": str(lib), "HOME": str(tmp_path / "home"), "MEMDIR_HOME": str(tmp_path / "g")}
    env.pop("MEMDIR_DEBUG", None)
    r = subprocess.run([sys.executable, "-c", code, "hook", "claude-code", "user-prompt"], input=payload,
                       capture_output=True, text=True, cwd=proj, env=env, timeout=60)
    assert r.returncode == 0 and r.stderr == "", (r.returncode, r.stderr[-2000:])


@pytest.mark.parametrize("entry", ["script", "python -m memdir.cli"])
def test_a_command_during_an_upgrade_is_one_error_line(tmp_path, entry):
    lib = _copy(tmp_path)
    _break_cut(lib / "memdir" / "cli" / "main.py")
    code = ("import sys; from memdir.__main__ import main; sys.argv[0] = 'memdir'; main()" if entry == "script" else
            "import runpy; runpy.run_module('memdir.cli', run_name='__main__')")
    env = {**os.environ, "PYTHONPATH": str(lib), "HOME": str(tmp_path / "home"), "MEMDIR_HOME": str(tmp_path / "g")}
    r = subprocess.run([sys.executable, "-c", code, "status"], capture_output=True, text=True, cwd=tmp_path, env=env,
                       timeout=60)
    assert r.returncode == 1 and "Traceback" not in r.stderr and len(r.stderr.splitlines()) == 1, r.stderr[-2000:]
    assert r.stderr.startswith("memdir: error: memdir's installed files are incomplete")
