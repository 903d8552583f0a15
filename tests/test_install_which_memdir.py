"""Which memdir `memdir install` registers in a host's settings when several are on the machine: always the one
that runs this very install (its Python and its package), never an older one that happens to be first on PATH."""

import os
import sys
from pathlib import Path

from memdir.hosts.install import memdir_argv


def _script(path: Path, python: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!{python}\nimport sys\nfrom memdir.cli import main\nsys.exit(main())\n", encoding="utf-8")
    path.chmod(0o755)
    return path


def test_python_m_memdir_cli_does_not_register_an_older_memdir_on_path(tmp_path, monkeypatch):
    # `python -m memdir.cli install claude-code` (README's answer to "memdir: command not found") from a --user
    # install: no memdir script beside this Python, and an older venv's memdir first on PATH
    older = _script(tmp_path / "old-venv" / "bin" / "memdir", str(tmp_path / "old-venv" / "bin" / "python"))
    bare_python = tmp_path / "py" / "bin" / "python3"
    bare_python.parent.mkdir(parents=True)
    monkeypatch.setattr(sys, "executable", str(bare_python))
    monkeypatch.setattr(sys, "argv", [str(Path(__file__).parent / "memdir" / "cli" / "__main__.py"), "install"])
    monkeypatch.setenv("PATH", f"{older.parent}{os.pathsep}{os.environ.get('PATH', '')}")
    argv = memdir_argv()
    assert str(older) not in argv, argv
    assert argv == [str(bare_python), "-m", "memdir"] or Path(argv[0]).name == "memdir"


def test_the_memdir_script_that_was_run_is_registered(tmp_path, monkeypatch):
    # pipx / `uv tool install`: the memdir run is a link in a PATH folder to a tool venv, and this Python has no
    # memdir beside it (a base interpreter): the script run is what the host must start, not another on PATH
    bare_python = tmp_path / "py" / "bin" / "python3"
    bare_python.parent.mkdir(parents=True)
    ran = _script(tmp_path / "tools" / "bin" / "memdir", str(bare_python))
    other = _script(tmp_path / "other" / "bin" / "memdir", "/usr/bin/python3")
    monkeypatch.setattr(sys, "executable", str(bare_python))
    monkeypatch.setattr(sys, "argv", [str(ran), "install", "claude-code"])
    monkeypatch.setenv("PATH", f"{other.parent}{os.pathsep}{os.environ.get('PATH', '')}")
    assert memdir_argv() == [str(ran)]


def test_a_memdir_on_path_running_this_python_is_still_found(tmp_path, monkeypatch):
    python = tmp_path / "py" / "bin" / "python3"
    python.parent.mkdir(parents=True)
    found = _script(tmp_path / "scripts" / "memdir", str(python))
    monkeypatch.setattr(sys, "executable", str(python))
    monkeypatch.setattr(sys, "argv", ["-c"])
    monkeypatch.setenv("PATH", str(found.parent))
    assert memdir_argv() == [str(found)]
