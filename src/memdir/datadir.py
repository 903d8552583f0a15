"""The platform's user data folder for memdir's global root, by one rule that needs the standard library only: the
CLI (:func:`memdir.roots.global_root`) and the thin hook client (:mod:`memdir.hosts.hookclient`, which looks for a
warm server's socket there and must not import ``platformdirs``) read the same function, so they never disagree, and
the root does not move when another ``platformdirs`` release is installed.

* macOS: ``$XDG_DATA_HOME/memdir`` when that variable holds an absolute path, else
  ``~/Library/Application Support/memdir``.
* Linux and the BSDs: ``$XDG_DATA_HOME/memdir`` when absolute, else ``~/.local/share/memdir``.

A relative or blank ``XDG_DATA_HOME`` counts as unset (the XDG specification says so, and so does ``platformdirs``):
never a folder of whatever directory a command runs in. Elsewhere (Windows) :func:`user_data_dir` returns ``None``
and the caller asks ``platformdirs``.
"""

from __future__ import annotations

import os
import sys

APP = "memdir"


def user_data_dir() -> str | None:
    """The user data folder of memdir on this platform (not created), or ``None`` where this module has no rule."""
    xdg = os.environ.get("XDG_DATA_HOME", "")
    xdg = xdg if os.path.isabs(xdg) else ""
    if sys.platform == "darwin":
        base = xdg or os.path.join(os.path.expanduser("~"), "Library", "Application Support")
    elif sys.platform.startswith(("linux", "freebsd", "openbsd", "netbsd")):
        base = xdg or os.path.join(os.path.expanduser("~"), ".local", "share")
    else:
        return None
    return os.path.join(base, APP)
