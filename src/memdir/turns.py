"""Calls on one :class:`memdir.Memdir` from several threads take turns.

An instance holds one SQLite connection per root, and a write transaction on it spans many statements: a second
thread's statements ran inside the first one's transaction (a rollback there aborted the other's read:
``sqlite3.OperationalError: query aborted``), and a ``close()`` from one thread closed the connection under a
recall in another. Each public method of the facade now holds the instance's re-entrant lock
(:attr:`memdir.stores.Stores.turns`) while it runs; a thread that wants to work alongside a long call (an import)
opens its own instance, as a process does. Methods that open nothing stay outside it.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, TypeVar

T = TypeVar("T")

#: facade methods that touch no index (a hook whose budget is spent queues its turn without waiting for anyone)
FREE = frozenset({"queue_capture", "notices", "note_problems", "store_project"})


def _turn(fn: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(fn)
    def call(self: Any, *args: Any, **kwargs: Any) -> Any:
        with self.stores.turns:
            return fn(self, *args, **kwargs)

    return call


def taking_turns(cls: type[T]) -> type[T]:
    """Wrap every public method of ``cls`` (and ``__exit__``) but :data:`FREE` in its instance's lock."""
    for name, value in list(vars(cls).items()):
        if callable(value) and (name == "__exit__" or not name.startswith("_")) and name not in FREE:
            setattr(cls, name, _turn(value))
    return cls
