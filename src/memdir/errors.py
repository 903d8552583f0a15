"""Exceptions raised by memdir's public API.

The CLI maps them to exit codes: ``UsageError`` → 2, ``NotFound`` → 1, any other ``MemdirError`` → 1.
Each message is one sentence that says what to do.
"""


class MemdirError(Exception):
    """Base class of every error memdir raises on purpose."""

    exit_code = 1


class UsageError(MemdirError, ValueError):
    """Bad input from the caller: empty text, unknown category, malformed id, bad option value."""

    exit_code = 2


class PathError(UsageError):
    """An id or path would leave its memory root (traversal, absolute path, symlink out, reserved name)."""


class NotFound(MemdirError, LookupError):
    """The named memory does not exist."""

    exit_code = 1


class ReadOnlyStore(MemdirError):
    """A write (remember, forget, edit, capture, import…) to a memory root this process cannot write: a read-only
    mount or a sandbox that forbids writes. Reads (recall, context, get, recent, status, doctor) still work."""

    exit_code = 1
