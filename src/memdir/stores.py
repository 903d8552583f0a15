"""What a feature module (vectors, tiers) is given instead of the facade: the two roots, the effective config,
the clock, a per-store state dict and the two recall steps it may compose with.

The facade (:class:`memdir.core.Memdir`) builds one :class:`Stores` and passes it to features; no feature module
imports ``core``, so the import graph runs one way (core → features → root/index/config).
"""

from __future__ import annotations

import os
import threading
import weakref
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator

from memdir.errors import UsageError

if TYPE_CHECKING:
    from memdir.config import Config
    from memdir.engine.root import Root

SCOPES = ("project", "global")


@dataclass
class Stores:
    """``roots``: ``{"project": Root, "global": Root}``; ``config``: the effective :class:`memdir.config.Config`;
    ``clock()``: an aware UTC datetime; ``home``: the global root's directory; ``project_root``: the project's
    directory; ``state``: per-store feature state (the vector provider and matrices, a reranker, whether this
    process keeps recall warm)."""

    roots: dict[str, "Root"]
    config: "Config"
    clock: Callable[[], datetime]
    home: Path | None = None
    project_root: Path | None = None
    state: dict[str, Any] = field(default_factory=dict)
    #: per thread: inside :meth:`looked`, where the look was taken already
    _looked: threading.local = field(default_factory=threading.local, init=False, repr=False, compare=False)
    _same: bool | None = field(default=None, init=False, repr=False, compare=False)
    #: held by each call on the facade (:mod:`memdir.turns`): threads sharing one instance take turns
    turns: Any = field(default_factory=threading.RLock, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        _ALL[id(self)] = self
        if len(_ALL) == 1 and hasattr(os, "register_at_fork") and not _ALL_HOOKED:
            os.register_at_fork(after_in_child=after_fork)
            _ALL_HOOKED.append(True)

    def root(self, scope: str) -> "Root":
        """The root of ``scope``. Raises ``UsageError`` for a scope other than ``project`` or ``global``."""
        if scope not in SCOPES:
            raise UsageError(f"unknown scope {scope!r}: use 'project' or 'global'")
        return self.roots[scope]

    def live(self, scope: str | None = None) -> list["Root"]:
        """The roots that exist on disk: ``scope``'s alone, or project then global (the project's alone when the
        global root is the project's ``.memory/`` folder: one store, read once). Raises ``UsageError`` for an
        unknown scope."""
        roots = [self.root(scope)] if scope else [self.roots["project"], self.roots["global"]]
        if scope is None and self._one_folder():
            roots = roots[:1]
        out = [r for r in roots if r.exists()]
        if scope is None:  # a global root this user cannot enter (made once under sudo): the project's still works
            out = [r for r in out if r.scope != "global" or _usable(r)]
        return out

    def _one_folder(self) -> bool:
        """True when both roots are one folder (``MEMDIR_HOME`` set to the project's ``.memory/``); asked once."""
        if self._same is None:
            from memdir.samedir import same_dir  # one folder under two spellings (macOS: case, NFD) too

            self._same = same_dir(self.roots["project"].path, self.roots["global"].path)
        return self._same

    def look(self) -> None:
        """Mirror notes edited, renamed, moved or deleted on disk since this process last looked (case C20: a
        long-lived process answers as a fresh one would); a busy store answers from the index as it is."""
        from memdir.errors import MemdirError

        if getattr(self._looked, "depth", 0):  # a bulk operation looked once: its own writes keep the index current
            return
        for root in self.live():
            try:
                root.resync()
            except MemdirError:
                pass

    @contextmanager
    def looked(self) -> Iterator[None]:
        """:meth:`look` once, then not again in this thread until the block ends: a bulk operation (forget_matching's
        notes, an import's notes) whose every note passes a door that looks would otherwise scan every note file once
        per note (its own writes leave the snapshot stale, so each look was a full scan)."""
        self.look()
        self._looked.depth = getattr(self._looked, "depth", 0) + 1
        try:
            yield
        finally:
            self._looked.depth -= 1

    def store_project(self) -> str:
        """The project's name in a shared store (``remote.project``, else the project directory's name)."""
        name = self.project_root.name if self.project_root is not None else ""
        return str(self.config.get("remote.project") or "").strip() or name


_ALL: "weakref.WeakValueDictionary[int, Stores]" = weakref.WeakValueDictionary()  # every open instance's
_ALL_HOOKED: list[bool] = []


def after_fork() -> None:
    """In a child just forked: each open instance lets its SQLite indexes go (:mod:`memdir.store.sqlite.forks` has
    closed the inherited connections) and reopens them at its next call, and its lock (:attr:`Stores.turns`, maybe
    held by a parent thread that does not exist here) is a new one."""
    for s in list(_ALL.values()):
        s.turns = threading.RLock()
        for root in s.roots.values():
            if not root.store_spec:  # a PostgreSQL store's socket is the parent's: never closed from here
                try:
                    root.close()
                except Exception:  # noqa: BLE001
                    pass


def stores_of(obj: Any) -> Stores:
    """``obj`` itself when it is a :class:`Stores`, else its ``stores`` attribute (a facade)."""
    return obj if isinstance(obj, Stores) else obj.stores


_SAID_UNUSABLE: set[str] = set()
_USABLE: dict[str, bool] = {}  # looked at once a process: live() is asked many times a recall


def _usable(root: "Root") -> bool:
    """True when this user can enter ``root`` and its ``.memdir/`` (the global root is left out of a two-root read
    when not, with one warning a process: chown it back)."""
    import os

    key = str(root.path)
    if key in _USABLE:
        return _USABLE[key]
    ok = _USABLE[key] = all(os.access(d, os.R_OK | os.X_OK) for d in (root.path, root.derived) if d.exists())
    if not ok and str(root.path) not in _SAID_UNUSABLE:
        _SAID_UNUSABLE.add(str(root.path))
        import logging

        logging.getLogger("memdir").warning(
            "memdir: warning: the global root %s cannot be read by this user (made under sudo? chown it back): left "
            "out; the project's memories still work", root.path)
    return ok
