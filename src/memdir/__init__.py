"""memdir — local-first long-term memory for AI coding agents.

Curated memory is Markdown with YAML frontmatter in two roots (global and per project); episodic memory is
captured into SQLite; recall is CJK-correct BM25 (plus optional embeddings); the ``<memory>`` block injects
rules, an outline and the best bodies within a character budget. See ``docs/API.md``.

>>> import memdir
>>> with memdir.open() as m:            # doctest: +SKIP
...     m.remember("部署脚本用 pnpm 而不是 npm", category="decisions")
...     m.recall("部署")
"""

from __future__ import annotations

from memdir.errors import EditConflict, MemdirError, NotFound, PathError, ReadOnlyStore, UsageError

# no `typing`/`datetime` at run time: a hook process that only hands its payload to a running `memdir serve`
# (memdir.hosts.hookclient) imports this package and nothing else
TYPE_CHECKING = False
if TYPE_CHECKING:
    import os
    from datetime import datetime
    from typing import Any, Callable

    from memdir.core import Memdir
    from memdir.types import Event, Hit, Note, Report

__version__ = "0.1.0"
__all__ = ["open", "Memdir", "Note", "Event", "Hit", "Report", "MemdirError", "UsageError", "PathError", "NotFound",
           "EditConflict", "ReadOnlyStore"]


def open(project_dir: str | os.PathLike | None = None, *, home: str | os.PathLike | None = None,
         config: dict[str, Any] | None = None, clock: Callable[[], datetime] | None = None) -> "Memdir":
    """Open memdir for the project containing ``project_dir`` (default: the working directory).

    ``home`` overrides the global root (else ``$MEMDIR_HOME`` or the platform's user data dir); ``config``
    overrides any setting (highest precedence); ``clock`` returns an aware UTC datetime (for tests).
    Nothing is created on disk until something is written.
    """
    from memdir.core import Memdir

    return Memdir(project_dir, home=home, config=config, clock=clock)


def __getattr__(name: str) -> Any:
    # the facade and the result types are imported on first use, so `import memdir.hosts.hooks` (a host hook, which may
    # only hand its payload to a running `memdir serve`) pays only for what it runs
    if name == "Memdir":
        from memdir.core import Memdir

        return Memdir
    if name in ("Event", "Hit", "Note", "Report"):
        from memdir import types

        return getattr(types, name)
    raise AttributeError(f"module 'memdir' has no attribute {name!r}")
