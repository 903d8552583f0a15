"""The memdir command line ``memdir install`` registers with a host: the one that runs this very install (its
Python, its package), whichever other memdir comes first on PATH (an older venv, a forgotten ``pip install --user``)."""

from __future__ import annotations

import os
import shutil
import sys
import sysconfig
from pathlib import Path

SCRIPT = "memdir.exe" if os.name == "nt" else "memdir"


def memdir_argv() -> list[str]:
    """argv prefix that runs this memdir, in this order: the ``memdir`` script beside this Python (a venv, pipx, ``uv
    tool``), the ``memdir`` script this process was started as (a link in a PATH folder), the script in the scripts
    folder of the install scheme holding this package (``pip install --user``: ``~/.local/bin``), a ``memdir`` on
    PATH whose first line names this Python; else ``<python> -m memdir`` (the script's own entry: a hook takes its
    fast path, without click). A ``memdir`` on PATH that runs another Python is another install and never registered."""
    beside = Path(sys.executable).with_name(SCRIPT)
    if beside.is_file():
        return [str(beside)]
    ran = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if ran is not None and ran.name == SCRIPT and ran.is_file() and _runs_this_python(ran):
        return [str(ran.absolute())]
    for script in _scheme_scripts():
        if script.is_file() and _runs_this_python(script):
            return [str(script)]
    found = shutil.which("memdir")
    if found and _runs_this_python(Path(found)):
        return [str(Path(found).absolute())]
    return [sys.executable, "-m", "memdir"]


def _scheme_scripts() -> list[Path]:
    """The ``memdir`` script of each install scheme whose library folder holds this memdir package."""
    here = Path(__file__).resolve().parents[1]  # …/site-packages/memdir
    out = []
    for scheme in dict.fromkeys((sysconfig.get_default_scheme(), sysconfig.get_preferred_scheme("user"))):
        try:
            paths = sysconfig.get_paths(scheme)
        except (KeyError, ValueError):
            continue
        libs = {Path(paths[k]).resolve() for k in ("purelib", "platlib") if paths.get(k)}
        if here.parent in libs and paths.get("scripts"):
            out.append(Path(paths["scripts"]) / SCRIPT)
    return out


def _runs_this_python(script: Path) -> bool:
    """True when ``script``'s ``#!`` line names this process's Python (the same path, or one linked to the same
    file from the same folder); Windows' ``memdir.exe`` launchers are taken as they are."""
    if os.name == "nt":
        return True
    try:
        with open(script, "rb") as f:
            first = f.readline(4096)
    except OSError:
        return False
    if not first.startswith(b"#!"):
        return False
    words = first[2:].decode("utf-8", "replace").split()
    if not words:
        return False
    named = words[1] if Path(words[0]).name == "env" and len(words) > 1 else words[0]
    if Path(named).name.startswith("python") and not os.path.isabs(named):
        named = shutil.which(named) or named
    exe = Path(sys.executable)
    if os.path.abspath(named) == os.path.abspath(exe):
        return True
    try:  # /venv/bin/python3 and /venv/bin/python are one Python; another venv's python links to the same base too,
        return Path(named).parent.absolute() == exe.parent.absolute() and os.path.samefile(named, exe)  # so: one folder
    except OSError:
        return False
