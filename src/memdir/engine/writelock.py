"""The inter-process write lock of a root (``<root>/.memdir/write.lock``): ``flock(2)`` where the platform has it,
the ``filelock`` package elsewhere. :func:`new_lock` picks one; both offer ``acquire(timeout) -> bool``,
``release()`` and ``waiting() -> bool``."""

from __future__ import annotations

import os

#: a waiter's marker (``<lock>.wait-<pid>-<thread>``) counts while its mtime is this recent; the waiter touches it
#: every :data:`WAIT_TOUCH_S` while it polls, so an older one was left by a process that died waiting
WAIT_FRESH_S = 2.0
WAIT_TOUCH_S = 0.5
#: a marker this old is removed by the next :meth:`_FlockLock.waiting` (its waiter is gone)
WAIT_STALE_S = 60.0


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
        from memdir.fileio import open_own

        fd = open_own(self.path, os.O_RDWR | os.O_CREAT, 0o600)  # never through a link out of the root
        deadline = time.monotonic() + max(0.0, timeout)
        marker, touched = None, 0.0
        try:
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    now = time.monotonic()
                    if now >= deadline:
                        os.close(fd)
                        return False
                    if now - touched >= WAIT_TOUCH_S:  # tell the holder someone waits (see waiting())
                        marker = marker or self._marker()
                        touched = now
                        _touch(marker)
                    time.sleep(0.01)
                except BaseException:
                    os.close(fd)
                    raise
        finally:
            if marker is not None:
                _remove(marker)
        st.fd, st.count = fd, 1
        if marker is not None:  # it waited: markers of waiters that died (killed while polling) go now
            self.waiting()
        return True

    def _marker(self) -> str:
        import threading

        return f"{self.path}.wait-{os.getpid()}-{threading.get_ident()}"

    def waiting(self) -> bool:
        """True when another process or thread is polling for this lock now: a long writer (an import between
        its batches) pauses for it only then, instead of after every batch. A marker not touched for
        :data:`WAIT_STALE_S` is removed (its waiter died)."""
        import time

        folder, name = os.path.split(self.path)
        prefix = name + ".wait-"
        now = time.time()
        found = False
        try:
            entries = [e for e in os.scandir(folder or ".") if e.name.startswith(prefix)]
        except OSError:
            return True  # cannot tell: pause as if someone waited
        for e in entries:
            try:
                age = now - e.stat().st_mtime
            except OSError:
                continue
            if age <= WAIT_FRESH_S:
                found = True
            elif age > WAIT_STALE_S:
                _remove(e.path)
        return found

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

        self._lock = filelock.FileLock(path, mode=0o600)
        self._timeout = filelock.Timeout

    def acquire(self, timeout: float) -> bool:
        try:
            self._lock.acquire(timeout=timeout)
            return True
        except self._timeout:
            return False

    def release(self) -> None:
        self._lock.release()

    def waiting(self) -> bool:
        """Always True: ``filelock`` cannot tell, so a long writer pauses after every batch."""
        return True


def _touch(path: str) -> None:
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600))
        os.utime(path, follow_symlinks=False)
    except OSError:  # a marker is a courtesy: the lock works without it
        pass


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def new_lock(path: str):
    """A re-entrant write lock on the file ``path`` (created when missing; ``OSError`` when it cannot be)."""
    return _FlockLock(path) if os.name == "posix" else _PortableLock(path)
