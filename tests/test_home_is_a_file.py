"""MEMDIR_HOME (or --home) naming a file: every command warned about a config.toml under it, status said the global
root was "not created yet" and doctor found all well (a walkthrough); only a global remember said what was wrong."""

from __future__ import annotations

from conftest import run_cli


def test_doctor_and_status_say_the_global_root_is_a_file(project, tmp_path, capsys, monkeypatch):
    f = tmp_path / "f"
    f.write_text("", encoding="utf-8")
    monkeypatch.setenv("MEMDIR_HOME", str(f))
    code, out, err = run_cli(capsys, "--dir", str(project), "doctor")
    assert code == 1 and f"[fail] global root: {f} is a file" in out and "MEMDIR_HOME" in out
    assert "ignoring" not in err
    code, out, err = run_cli(capsys, "--dir", str(project), "status")
    assert code == 0 and f"global: {f} (a file, not a directory" in out and "ignoring" not in err
