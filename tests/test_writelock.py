"""The write lock tells its holder when someone waits (a long import pauses between batches only then)."""

import os
import threading
import time

from memdir.engine import writelock


def test_waiting_is_true_only_while_another_thread_polls(tmp_path):
    path = str(tmp_path / "write.lock")
    holder, other = writelock.new_lock(path), writelock.new_lock(path)
    assert holder.acquire(1)
    assert not holder.waiting()
    got = []

    def wait_then_release():
        got.append(other.acquire(10))
        other.release()

    t = threading.Thread(target=wait_then_release)
    t.start()
    deadline = time.monotonic() + 5
    while not holder.waiting() and time.monotonic() < deadline:
        time.sleep(0.005)
    assert holder.waiting()
    holder.release()
    t.join(5)
    assert got == [True]
    assert not holder.waiting()  # the waiter's marker is gone once it holds the lock
    assert not [n for n in os.listdir(tmp_path) if ".wait-" in n]


def test_a_waiter_that_gives_up_leaves_no_marker(tmp_path):
    path = str(tmp_path / "write.lock")
    holder = writelock.new_lock(path)
    assert holder.acquire(1)
    got = []
    t = threading.Thread(target=lambda: got.append(writelock.new_lock(path).acquire(0.05)))
    t.start()
    t.join(5)
    assert got == [False]
    assert not holder.waiting()
    assert not [n for n in os.listdir(tmp_path) if ".wait-" in n]
    holder.release()


def test_a_dead_waiter_s_marker_stops_counting_and_is_removed(tmp_path):
    path = str(tmp_path / "write.lock")
    lock = writelock.new_lock(path)
    fresh, old = path + ".wait-1-1", path + ".wait-2-2"
    for p in (fresh, old):
        open(p, "w").close()
    assert lock.waiting()
    gone = time.time() - writelock.WAIT_STALE_S - 5
    os.utime(old, (gone, gone))
    stale = time.time() - writelock.WAIT_FRESH_S - 1
    os.utime(fresh, (stale, stale))
    assert not lock.waiting()          # neither counts: one is not fresh, the other is stale
    assert os.path.exists(fresh) and not os.path.exists(old)
