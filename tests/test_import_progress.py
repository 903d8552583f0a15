"""The progress bar of a long ``memdir import FILE`` (events, rate, ETA on stderr): drawn on a terminal only, never
with ``--json`` or ``--no-progress``; what it shows does not change what is stored."""

from __future__ import annotations

import json
import sys

import pytest

from conftest import run_cli


def _export(path, n):
    with open(path, "w", encoding="utf-8") as f:
        for i in range(n):
            f.write(json.dumps({"type": "event", "key": f"k:{i}", "role": "user", "session": "s1",
                                "ts": f"2026-04-01T10:{i // 60 % 60:02d}:{i % 60:02d}Z",
                                "text": f"deploy step {i} runs the migration {i * 7} then restarts"}) + "\n")
    return path


def _args(project, tmp_path, *extra):
    return ("--dir", str(project), "--home", str(tmp_path / "g"), *extra)


@pytest.fixture
def tty_stderr(monkeypatch):
    """stderr (pytest's capture) answering isatty() like a terminal."""
    def on():
        monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    return on


def test_the_bar_is_drawn_on_a_terminal_with_the_events_and_rate(project, tmp_path, capsys, tty_stderr, monkeypatch):
    from memdir.engine import events as event_ops

    monkeypatch.setattr(event_ops, "BATCH_SECONDS", 1e9)
    path = _export(tmp_path / "export.jsonl", 1200)
    tty_stderr()
    code, out, err = run_cli(capsys, *_args(project, tmp_path, "import", str(path)))
    assert code == 0 and "1200 events stored" in out
    assert "import export.jsonl" in err and "0/1200" in err and "ev/s" in err  # total known, rate shown


@pytest.mark.parametrize("flag", [("--json",), ("--no-progress",)])
def test_the_bar_is_silent_with_json_or_no_progress(project, tmp_path, capsys, tty_stderr, flag):
    path = _export(tmp_path / "export.jsonl", 700)
    tty_stderr()
    code, out, err = run_cli(capsys, *_args(project, tmp_path, "import", str(path), *flag))
    assert code == 0 and err == ""
    if flag == ("--json",):
        assert json.loads(out)["stored"] == 700


def test_the_bar_is_silent_when_stderr_is_not_a_terminal(project, tmp_path, capsys):
    path = _export(tmp_path / "export.jsonl", 700)
    code, out, err = run_cli(capsys, *_args(project, tmp_path, "import", str(path)))
    assert code == 0 and err == "" and "700 events stored" in out


def test_progress_counts_each_committed_batch_once_and_not_the_spools_imports(project, tmp_path, monkeypatch):
    import memdir
    from memdir.engine import events as event_ops

    class Bar:
        total = None
        n = 0

        def update(self, k):
            self.n += k

        def refresh(self):
            pass

    monkeypatch.setattr(event_ops, "BATCH_SECONDS", 1e9)
    bar = Bar()
    token = event_ops.progress_bar.set(bar)
    try:
        with memdir.open(project, home=tmp_path / "g") as m:
            got = m.import_events([{"key": f"e:{i}", "role": "user", "text": f"turn {i} about caching", "session": "s"}
                                   for i in range(event_ops.BATCH_EVENTS * 2 + 3)])
            m.import_events([{"key": "one", "role": "user", "text": "one more turn about caching"}])
    finally:
        event_ops.progress_bar.reset(token)
    assert got["stored"] == event_ops.BATCH_EVENTS * 2 + 3
    assert (bar.total, bar.n) == (event_ops.BATCH_EVENTS * 2 + 4, event_ops.BATCH_EVENTS * 2 + 4)
    assert event_ops.progress_bar.get() is None
