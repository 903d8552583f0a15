"""A long CLI command stopped by Ctrl-C, a ``kill`` (SIGTERM) or a closed terminal (SIGHUP): it leaves as Ctrl-C
does (status 130, no "internal error", no traceback) and leaves no temporary copy of the store behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import memdir
from memdir.store.sqlite import codec
from tests.conftest import run_cli


def test_ctrl_c_landing_in_sqls_text_function_is_an_interrupt_not_an_internal_error(project, tmp_path, capsys,
                                                                                     monkeypatch):
    """Ctrl-C while `memdir export` read the events said 'memdir: internal error: OperationalError: user-defined
    function raised exception' and exited 1: SQLite had swallowed the KeyboardInterrupt raised in the function that
    decompresses a text."""
    home = tmp_path / "g"
    with memdir.open(project, home=home) as m:
        m.import_events([{"key": f"k{i}", "role": "user", "session": "s", "ts": f"2026-10-01T10:{i:02d}:00Z",
                          "text": f"we deploy with pnpm, lockfile number {i} " * 40} for i in range(40)])
    real, calls = codec.unz, []

    def ctrl_c_on_the_tenth(db, blob):
        calls.append(1)
        if len(calls) == 10:
            signal.raise_signal(signal.SIGINT)  # its handler runs here, inside the SQL function
        return real(db, blob)

    monkeypatch.setattr(codec, "unz", ctrl_c_on_the_tenth)
    monkeypatch.chdir(project)
    target = tmp_path / "out" / "x.jsonl"
    target.parent.mkdir()
    old = signal.signal(signal.SIGINT, signal.default_int_handler)  # as in a terminal
    try:
        code, _, err = run_cli(capsys, "--home", str(home), "export", str(target))
    finally:
        signal.signal(signal.SIGINT, old)
    assert len(calls) >= 10, "the export read no compressed text: the test proves nothing"
    assert code == 130 and "internal error" not in err, (code, err)
    assert os.listdir(target.parent) == []


@pytest.mark.parametrize("nth", [1, 5, 40])
def test_ctrl_c_landing_in_sqls_text_function_mid_import_says_how_far_it_got(project, tmp_path, capsys, monkeypatch,
                                                                            nth):
    """Ctrl-C while `memdir import FILE` stored a compressed text (SQLite running memdir's function) exited 130 with
    no line: the other interrupt paths say `interrupted after N of M …; run the same command again …`. It says so
    now too, and a re-run stores the rest."""
    import json

    home = tmp_path / "g"
    src = tmp_path / "in.jsonl"
    with open(src, "w", encoding="utf-8") as fh:
        for i in range(300):
            fh.write(json.dumps({"key": f"b{i}", "role": "assistant", "session": "s",
                                 "ts": f"2026-10-02T10:{i % 60:02d}:00Z",
                                 "text": f"another reply {i} about deploying " * 30}) + "\n")
    real, calls = codec.unz, []

    def ctrl_c_on_the_nth(db, blob):
        calls.append(1)
        if len(calls) == nth:
            signal.raise_signal(signal.SIGINT)  # its handler runs here, inside the SQL function
        return real(db, blob)

    monkeypatch.setattr(codec, "unz", ctrl_c_on_the_nth)
    monkeypatch.chdir(project)
    old = signal.signal(signal.SIGINT, signal.default_int_handler)  # as in a terminal
    try:
        code, _, err = run_cli(capsys, "--home", str(home), "import", str(src))
    finally:
        signal.signal(signal.SIGINT, old)
    assert len(calls) >= nth, "the import ran no SQL function: the test proves nothing"
    lines = err.strip().splitlines()
    assert code == 130 and len(lines) == 1 and "interrupted after" in lines[0] and "of 300" in lines[0], (code, err)
    assert "run the same command again" in lines[0] and "internal error" not in err
    monkeypatch.setattr(codec, "unz", real)
    code, out, err = run_cli(capsys, "--home", str(home), "import", str(src))
    assert code == 0, err
    with memdir.open(project, home=home) as m:
        assert m.status()["project"]["events"] == 300


def _big_store(project, home, n=12000):
    with memdir.open(project, home=home) as m:
        m.import_events([{"key": f"k{i}", "role": "user", "session": "s", "ts": f"2026-10-01T10:{i % 60:02d}:00Z",
                          "text": f"event {i}: we deploy the service with pnpm, lockfile {i} " * 20} for i in range(n)])


@pytest.mark.slow
@pytest.mark.skipif(os.name == "nt", reason="POSIX signals")
@pytest.mark.parametrize("sig", ["SIGINT", "SIGTERM", "SIGHUP"])
def test_a_signal_mid_export_leaves_the_old_export_and_no_partial_copy(project, tmp_path, sig):
    """SIGTERM or SIGHUP mid-export ended the process at once and left `.tmp-….part`, a partial copy of every
    captured turn, next to the export for good (outside any memory root nothing removes it)."""
    home = tmp_path / "g"
    _big_store(project, home)
    out = tmp_path / "out"
    out.mkdir()
    target = out / "x.jsonl"
    target.write_text("", encoding="utf-8")  # an earlier (empty) export, which export may replace
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1] / "src"))
    p = subprocess.Popen([sys.executable, "-m", "memdir", "--home", str(home), "export", str(target)], cwd=project,
                         env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         # Ctrl-C as at a terminal: a job started in the background of a script inherits SIGINT ignored
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        deadline = time.monotonic() + 60
        while not any(n.startswith(".tmp-") for n in os.listdir(out)) and time.monotonic() < deadline:
            assert p.poll() is None, p.stderr.read()
            time.sleep(0.01)
        time.sleep(0.3)  # well inside the events
        assert p.poll() is None, "the export ended before the signal: the test proves nothing"
        p.send_signal(getattr(signal, sig))
        code = p.wait(timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
    err = p.stderr.read().decode("utf-8", "replace")
    assert code == 130 and "internal error" not in err and "Traceback" not in err, (code, err)
    assert os.listdir(out) == ["x.jsonl"] and target.read_text(encoding="utf-8") == ""
