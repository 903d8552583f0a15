"""A write that waits for another process's write lock says why after a second (a person at a prompt saw nothing
for up to a minute), then goes on when the lock is free."""

import logging
import subprocess
import sys
import time

import memdir


def test_a_write_waiting_for_the_lock_says_so(tmp_path, project, caplog):
    with memdir.open(project, home=tmp_path / "g") as m:
        m.remember("a first note")
        lock = m.stores.root("project").derived / "write.lock"
    holder = subprocess.Popen([sys.executable, "-c", (
        "import fcntl, os, sys, time\n"
        f"fd = os.open({str(lock)!r}, os.O_RDWR | os.O_CREAT, 0o600)\n"
        "fcntl.flock(fd, fcntl.LOCK_EX)\nprint('held', flush=True)\ntime.sleep(2.5)\n")], stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "held"
    try:
        with caplog.at_level(logging.WARNING, logger="memdir"), memdir.open(project, home=tmp_path / "g") as m:
            t = time.monotonic()
            note = m.remember("a second note while the lock is held")
            assert time.monotonic() - t >= 1.0 and not note.existed
    finally:
        holder.wait(timeout=30)
    assert any("for the write lock" in r.getMessage() for r in caplog.records)
