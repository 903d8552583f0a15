"""Host settings paths that are not plain files: a named pipe (FIFO) where a settings file belongs, a link that loops
or leads where no file can be made. `memdir install` (and `--uninstall`, `doctor`) answer with one line and change
nothing; before, a FIFO made install and doctor wait forever for a writer, and a looping link was an internal error
after the hooks had been written (half an install)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

CASES = [
    ("claude-code", ".claude/settings.json"),
    ("claude-code", ".claude.json"),
    ("codex", ".codex/hooks.json"),
    ("codex", ".codex/config.toml"),
    ("opencode", ".config/opencode/opencode.json"),
    ("opencode", ".config/opencode/plugins/memdir.js"),
    ("dsh", ".dsh/hooks.json"),
    ("dsh", ".dsh/cordis.patch.yml"),
]


@pytest.fixture
def home(tmp_path):
    h = tmp_path / "home"
    h.mkdir()
    (tmp_path / "proj").mkdir()
    return h


def _run(home, *args, timeout=15):
    env = {k: v for k, v in os.environ.items()
           if k not in ("CODEX_HOME", "DSH_HOME", "XDG_CONFIG_HOME", "MEMDIR_HOME")}
    env["HOME"] = str(home)
    try:
        p = subprocess.run([sys.executable, "-m", "memdir.cli", "--home", str(home / "g"), *args],
                           cwd=home.parent / "proj", env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        pytest.fail(f"memdir {' '.join(args)} waited on the settings path for {timeout} s")
    return p.returncode, p.stdout, p.stderr


def _tree(home):
    return sorted(str(p.relative_to(home)) for p in home.rglob("*") if "g" != p.relative_to(home).parts[0])


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
@pytest.mark.parametrize("host,rel", CASES)
@pytest.mark.parametrize("uninstall", [False, True])
def test_a_fifo_where_a_settings_file_belongs_is_a_one_line_error(home, host, rel, uninstall):
    path = home / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(path)
    before = _tree(home)
    code, _out, err = _run(home, "install", host, *(["--uninstall"] if uninstall else []))
    lines = err.strip().splitlines()
    assert code == 2, err
    assert len(lines) == 1 and lines[0].startswith("memdir: error:") and str(path) in err, err
    assert "internal error" not in err and "nothing was changed" in err
    assert _tree(home) == before


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
@pytest.mark.parametrize("rel", [".claude/settings.json", ".codex/config.toml", ".codex/hooks.json",
                                 ".config/opencode/plugins/memdir.js", ".dsh/hooks.json"])
def test_doctor_does_not_wait_on_a_fifo_in_a_host_config(home, rel):
    path = home / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(path)
    _code, out, err = _run(home, "--json", "doctor")
    assert "internal error" not in err, err
    json.loads(out)


def _loop(path):
    path.symlink_to(path.name)


def _under_a_file(path):
    (path.parent / "afile").write_text("x\n")
    path.symlink_to(path.parent / "afile" / "settings.json")


@pytest.mark.parametrize("host,rel", [(h, r) for h, r in CASES if not r.endswith(".js")])
@pytest.mark.parametrize("make", [_loop, _under_a_file])
def test_a_link_no_file_can_be_written_through_stops_install_before_anything_is_written(home, host, rel, make):
    """A settings file linked to itself (a loop) or to a place under a file: one line naming it, and the host's
    other settings files are not written either (before: hooks written, then `internal error: RuntimeError: Symlink
    loop` or `File exists`, half an install)."""
    path = home / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    make(path)
    before = _tree(home)
    code, _out, err = _run(home, "install", host)
    lines = err.strip().splitlines()
    assert code == 2, err
    assert len(lines) == 1 and lines[0].startswith("memdir: error:") and str(path) in err, err
    assert "internal error" not in err and "nothing was changed" in err
    assert _tree(home) == before
