"""Secrets such as the embedding API key: the environment first, else a ``.env`` file in the global root
(seed 001 keeps its key in ``$DSH_HOME/.env`` rather than in a config file that might be shared or synced).

The file is parsed with python-dotenv (``NAME=value`` lines, quotes, ``export`` prefixes, comments); nothing
is written to ``os.environ``. Values are never logged or reported: :func:`describe` says only whether the key
is set and where it came from. A ``.env`` group or others could read is made the owner's alone (0600) when read.
"""

from __future__ import annotations

import os
from pathlib import Path

ENV_FILE = ".env"


def lookup(name: str, home: Path | None) -> tuple[str | None, str | None]:
    """``(value, source)`` for the variable ``name``: ``source`` is ``"environment"``, the ``.env`` path, or
    ``None`` (then ``value`` is ``None`` too). An unreadable ``.env`` counts as absent."""
    if not name:
        return None, None
    value = os.environ.get(name)
    if value:
        return value, "environment"
    if home is not None:
        path = Path(home) / ENV_FILE
        try:
            there = path.is_file()
        except OSError:  # a root this user cannot enter: no file to read here
            there = False
        if there:
            from dotenv import dotenv_values

            from memdir.roots import owner_only

            owner_only(path)  # API keys: a .env others could read (a root memdir does not close) is closed to them

            try:
                value = dotenv_values(path, encoding="utf-8").get(name)
            except (OSError, UnicodeDecodeError, ValueError):
                value = None
            if value:
                return value, str(path)
    return None, None


def describe(name: str, home: Path | None) -> dict[str, object]:
    """``{"env": name, "set": bool, "source": where or None}`` — never the value."""
    value, source = lookup(name, home)
    return {"env": name, "set": bool(value), "source": source}
