"""The throwaway PostgreSQL clusters of the tests never outlive their run (issue 14): SIGTERM stops the cluster
(before, a terminated pytest left its postmaster running), and a cluster left by a SIGKILLed run is swept by the
next one. Needs the server binaries (skips without them, fails under MEMDIR_REQUIRE_POSTGRES=1)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import pg_cluster

TESTS = Path(__file__).resolve().parent


@pytest.fixture
def tmp(tmp_path):
    """A temp dir the ``postgres`` user can traverse (pytest's own are 0700 when the tests run as root)."""
    import shutil
    import tempfile

    d = Path(tempfile.mkdtemp(prefix="memdir-pgtest-"))
    d.chmod(0o755)
    yield d
    pg_cluster.sweep_stale(str(d))
    shutil.rmtree(d, ignore_errors=True)


def _started(tmp_path: Path):
    if pg_cluster._bindir() is None:
        pg_cluster._unavailable("the PostgreSQL server binaries are not installed")
    pytest.importorskip("psycopg")
    env = {**os.environ, "TMPDIR": str(tmp_path), "PYTHONPATH": str(TESTS)}
    p = subprocess.Popen([sys.executable, "-c", "import pg_cluster, time; c = pg_cluster.Cluster(); "
                          "print(c.dir, flush=True); time.sleep(600)"], env=env, stdout=subprocess.PIPE, text=True)
    line = p.stdout.readline().strip()
    assert line, "the cluster did not start"
    d = Path(line)
    pid = int((d / "data" / "postmaster.pid").read_text().split()[0])
    return p, d, pid


def _gone(pid: int, wait_s: float = 30.0) -> bool:
    deadline = time.monotonic() + wait_s  # polling a process's exit, not timing anything
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        except PermissionError:
            pass
        time.sleep(0.1)
    return False


def test_sigterm_stops_the_cluster_and_deletes_it(tmp):
    p, d, postmaster = _started(tmp)
    p.send_signal(signal.SIGTERM)
    assert p.wait(timeout=60) == -signal.SIGTERM  # the signal still ends the run as it did
    assert _gone(postmaster)
    assert not d.exists()


def test_a_cluster_left_by_a_killed_run_is_swept_by_the_next(tmp):
    p, d, postmaster = _started(tmp)
    p.kill()  # SIGKILL: no handler runs
    p.wait(timeout=60)
    assert d.exists() and not _gone(postmaster, 0.5)
    owner = json.loads((d / "owner.json").read_text())
    assert owner["pid"] == p.pid
    # another run's live cluster is left alone
    live = tmp / "memdir-pg-live"
    live.mkdir()
    (live / "owner.json").write_text(json.dumps({"pid": os.getpid(), "started": pg_cluster._start_time(os.getpid())}))
    assert pg_cluster.sweep_stale(str(tmp)) == [str(d)]
    assert _gone(postmaster)
    assert not d.exists() and live.exists()
