"""A hook and the one-time upgrade of an index (the first open after a memdir update: migrations and re-tokenizing,
seconds, minutes on a large store).

A hook whose budget runs out while it upgrades hands the work to a detached process (:func:`hand_over_upgrade`),
which leaves a marker ``<index>.upgrading`` beside the index while it runs. A hook that finds a fresh marker
(:func:`under_way`) does not wait for that process's write lock (it would wait its whole budget and leave without
a block anyway): it queues its turns in the root's spool and answers at once.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any

from memdir.lazylog import getLogger

log = getLogger("memdir")

#: seconds during which no second detached upgrade of the same index is started, and a marker counts as fresh
UPGRADE_RESPAWN_S = 120
SUFFIX = ".upgrading"


def hand_over_upgrade() -> bool:
    """Called when a hook's budget runs out. If this process was migrating or re-tokenizing an index, exiting rolls
    that work back, and every later hook would start it again and be cut off again: nothing captured, nothing
    injected, until a CLI command ran. So the upgrade goes on in a detached process without a budget (one per
    :data:`UPGRADE_RESPAWN_S`, a marker ``<index>.upgrading`` beside it). Returns True when one was started; never
    raises."""
    try:
        opening = sys.modules.get("memdir.store.sqlite.opening")
        path = getattr(opening, "upgrading", None)
        if path is None:
            return False
        marker = str(path) + SUFFIX
        if _fresh(marker):
            return False
        with open(marker, "w", encoding="utf-8") as f:
            f.write(str(os.getpid()))
        import subprocess

        code = "import sys; from pathlib import Path; from memdir.store.sqlite.opening import upgrade; upgrade(Path(sys.argv[1]))"
        subprocess.Popen([sys.executable, "-P", "-c", code, str(path)], stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True, close_fds=True)
        log.debug("hook: the upgrade of %s goes on in a detached process", path)
        return True
    except Exception as exc:  # noqa: BLE001 — the hook is leaving anyway
        log.debug("hook: upgrade not handed over: %s", exc)
        return False


def under_way(m: Any) -> bool:
    """True when a detached process is upgrading the index of one of ``m``'s local roots (a marker younger than
    :data:`UPGRADE_RESPAWN_S`; an older one is left by a process that died, and the hook opens the index as usual).
    Nothing is opened; never raises."""
    try:
        for root in m.roots.values():
            path = getattr(root, "db_path", None)
            if path is not None and not getattr(root, "remote", False) and _fresh(str(path) + SUFFIX):
                return True
    except Exception as exc:  # noqa: BLE001 — the hook goes on as usual
        log.debug("hook: upgrade marker not read: %s", exc)
    return False


def _fresh(marker: str) -> bool:
    try:
        return time.time() - os.stat(marker).st_mtime < UPGRADE_RESPAWN_S
    except OSError:
        return False
