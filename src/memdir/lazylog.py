"""Loggers for the hook path that import :mod:`logging` only when a record can go somewhere (issue 12).

``logging`` and what it imports (``traceback``, ``linecache``, the stdlib ``tokenize``, ``string``, ``weakref`` …)
cost a hook process ~5 ms, and a hook without ``MEMDIR_DEBUG`` never writes a log record. While ``logging`` is not
imported in the process, no handler, filter or level can have been set on any logger, so the standard library would
drop a DEBUG or INFO record of ``memdir`` anyway (its effective level is the root's WARNING): :class:`LazyLogger` drops
it without importing ``logging``. WARNING and above always go to the real logger (with no handler they reach
``logging.lastResort``, stderr, as before). Once ``logging`` is imported (the debug log, the CLI, an application, a
test), every call goes to ``logging.getLogger(name)``: the same logger, handlers and levels as before.
"""

from __future__ import annotations

import sys

#: ``logging.DEBUG`` and ``logging.INFO`` (for :meth:`LazyLogger.isEnabledFor` without importing logging)
DEBUG, INFO = 10, 20


class LazyLogger:
    """Stands for ``logging.getLogger(name)``; see the module doc."""

    __slots__ = ("name", "_logger")

    def __init__(self, name: str) -> None:
        self.name = name
        self._logger = None

    def _real(self):
        lg = self._logger
        if lg is None:
            import logging

            lg = self._logger = logging.getLogger(self.name)
        return lg

    def _live(self) -> bool:
        return self._logger is not None or "logging" in sys.modules

    def debug(self, msg, *args, **kwargs) -> None:
        if self._live():
            self._real().debug(msg, *args, **kwargs)

    def info(self, msg, *args, **kwargs) -> None:
        if self._live():
            self._real().info(msg, *args, **kwargs)

    def isEnabledFor(self, level: int) -> bool:  # noqa: N802 — logging.Logger's name
        return self._live() and self._real().isEnabledFor(level) if level < 30 else self._real().isEnabledFor(level)

    def warning(self, msg, *args, **kwargs) -> None:
        self._real().warning(msg, *args, **kwargs)

    def error(self, msg, *args, **kwargs) -> None:
        self._real().error(msg, *args, **kwargs)

    def exception(self, msg, *args, **kwargs) -> None:
        self._real().exception(msg, *args, **kwargs)

    def critical(self, msg, *args, **kwargs) -> None:
        self._real().critical(msg, *args, **kwargs)

    def __getattr__(self, name: str):  # handlers, addHandler, setLevel, log, …: the real logger's
        return getattr(self._real(), name)


def getLogger(name: str) -> LazyLogger:  # noqa: N802 — logging.getLogger's name
    return LazyLogger(name)
