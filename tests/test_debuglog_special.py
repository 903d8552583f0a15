"""The opt-in debug log when ``debug.log`` is not a regular file: a named pipe nobody reads made every command (and
every hook, so the agent) hang on opening it. Such a file is left alone and nothing is logged."""

import logging
import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes need os.mkfifo (POSIX)")


def _handlers_added(before):
    return [h for h in logging.getLogger("memdir").handlers if h not in before]


def test_a_named_pipe_as_the_debug_log_is_not_opened(tmp_path):
    from memdir.debuglog import enable_debug_log

    d = tmp_path / "g" / ".memdir"
    d.mkdir(parents=True)
    os.mkfifo(d / "debug.log")
    code = ("import sys; from pathlib import Path; from memdir.debuglog import enable_debug_log; "
            f"enable_debug_log(Path({str(tmp_path / 'g')!r})); print('done')")
    # in a child process: the old open blocked for good, a test must not
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=20)
    assert r.returncode == 0 and r.stdout.strip() == "done", r.stderr
    logger = logging.getLogger("memdir")
    before, level = list(logger.handlers), logger.level
    try:
        enable_debug_log(tmp_path / "g")
        assert not _handlers_added(before)
    finally:
        for h in _handlers_added(before):
            logger.removeHandler(h)
            h.close()
        logger.setLevel(level)
    assert os.path.exists(d / "debug.log") and not os.path.isfile(d / "debug.log")  # left as it was


def test_the_debug_log_still_records_into_a_regular_file(tmp_path):
    from memdir.debuglog import enable_debug_log

    logger = logging.getLogger("memdir")
    before, level = list(logger.handlers), logger.level
    try:
        enable_debug_log(tmp_path / "g")
        added = _handlers_added(before)
        assert len(added) == 1
        logger.debug("recall %s", "hello debug")
        for h in added:
            h.flush()
        assert "hello debug" in (tmp_path / "g" / ".memdir" / "debug.log").read_text(encoding="utf-8")
    finally:
        for h in _handlers_added(before):
            logger.removeHandler(h)
            h.close()
        logger.setLevel(level)
