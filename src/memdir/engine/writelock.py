"""The inter-process write lock of a root (``<root>/.memdir/write.lock``): ``flock(2)`` where the platform has it,
the ``filelock`` package elsewhere. :func:`new_lock` picks one; both offer ``acquire(timeout) -> bool`` and
``release()``."""

from __future__ import annotations

import os


class _FlockLock:
    """``flock(2)`` on a lock file: exclusive between processes and threads (each thread opens its own file
    description), re-entrant within a thread. The stdlib's ``fcntl`` costs nothing to import, where the
    ``filelock`` package costs a hook process ~10-40 ms (issue 12); ``filelock`` is used where fcntl is missing."""

    def __init__(self, path: str):
        import threading

        self.path = path
        self._local = threading.local()

    def acquire(self, timeout: float) -> bool:
        import fcntl
        import time

        st = self._local
        if getattr(st, "count", 0):
            st.count += 1
            return True
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        deadline = time.monotonic() + max(0.0, timeout)
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    os.close(fd)
                    return False
                time.sleep(0.01)
            except BaseException:
                os.close(fd)
                raise
        st.fd, st.count = fd, 1
        return True

    def release(self) -> None:
        st = self._local
        st.count -= 1
        if st.count == 0:
            import fcntl

            try:
                fcntl.flock(st.fd, fcntl.LOCK_UN)
            finally:
                os.close(st.fd)
                st.fd = None


class _PortableLock:
    """The ``filelock`` package behind :class:`_FlockLock`'s interface (platforms without ``fcntl``)."""

    def __init__(self, path: str):
        import filelock

        self._lock = filelock.FileLock(path)
        self._timeout = filelock.Timeout

    def acquire(self, timeout: float) -> bool:
        try:
            self._lock.acquire(timeout=timeout)
            return True
        except self._timeout:
            return False

    def release(self) -> None:
        self._lock.release()


def new_lock(path: str):
    """A re-entrant write lock on the file ``path`` (created when missing; ``OSError`` when it cannot be)."""
    return _FlockLock(path) if os.name == "posix" else _PortableLock(path)
