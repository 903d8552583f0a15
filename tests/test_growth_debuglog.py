"""``debug = true`` left in config.toml for months: every hook appends its decisions to ``debug.log`` (about 1 KB a
call), so the log grew without bound. It is kept to the newest ``MAX_LOG_BYTES`` and one previous file, as
``distill.log`` is."""

import logging
import os
import stat

from memdir import debuglog


def _with_log(home, body):
    logger = logging.getLogger("memdir")
    before, level = list(logger.handlers), logger.level
    try:
        debuglog.enable_debug_log(home)
        body(logger)
        for h in logger.handlers:
            if h not in before:
                h.flush()
    finally:
        for h in [h for h in logger.handlers if h not in before]:
            logger.removeHandler(h)
            h.close()
        logger.setLevel(level)


def test_a_debug_log_past_its_size_is_rotated_when_opened(tmp_path, monkeypatch):
    monkeypatch.setattr(debuglog, "MAX_LOG_BYTES", 10_000)
    d = tmp_path / "g" / ".memdir"
    d.mkdir(parents=True)
    (d / "debug.log").write_text("old line\n" * 2000, encoding="utf-8")  # 18,000 bytes
    _with_log(tmp_path / "g", lambda lg: lg.debug("a fresh decision"))
    assert (d / "debug.log").read_text(encoding="utf-8").count("\n") == 1
    assert "a fresh decision" in (d / "debug.log").read_text(encoding="utf-8")
    assert (d / "debug.log.1").read_text(encoding="utf-8") == "old line\n" * 2000
    assert stat.S_IMODE(os.stat(d / "debug.log.1").st_mode) == 0o600


def test_a_long_running_process_keeps_its_debug_log_bounded(tmp_path, monkeypatch):
    monkeypatch.setattr(debuglog, "MAX_LOG_BYTES", 10_000)
    d = tmp_path / "g" / ".memdir"

    def many(lg):
        for i in range(2_000):  # ~80 bytes a record: 160 KB written by one process (memdir serve)
            lg.debug("hook claude-code user-prompt: stored u:s:%08d", i)
    _with_log(tmp_path / "g", many)
    sizes = [os.path.getsize(p) for p in d.glob("debug.log*")]
    assert sorted(p.name for p in d.glob("debug.log*")) == ["debug.log", "debug.log.1"]
    assert max(sizes) <= 10_000 + 200 and sum(sizes) <= 2 * (10_000 + 200)
    assert "u:s:00001999" in (d / "debug.log").read_text(encoding="utf-8")
    for p in d.glob("debug.log*"):
        assert stat.S_IMODE(os.stat(p).st_mode) == 0o600
