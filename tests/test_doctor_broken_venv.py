"""`memdir doctor` when the memdir a host runs is still there but cannot start: the Python its venv was made from
was removed or upgraded away (its `#!` line names a link that leads nowhere), or the file lost its execute bit.
The host then fails every hook at every prompt ("required file not found"); doctor used to call those hooks fine
because the script file itself existed."""

from __future__ import annotations

import json

import pytest

from memdir.cli.main import main


@pytest.fixture
def home(tmp_path, monkeypatch):
    h = tmp_path / "home"
    h.mkdir()
    monkeypatch.setenv("HOME", str(h))
    for k in ("CODEX_HOME", "DSH_HOME", "XDG_CONFIG_HOME", "MEMDIR_HOME"):
        monkeypatch.delenv(k, raising=False)
    proj = tmp_path / "proj"
    proj.mkdir()
    monkeypatch.chdir(proj)
    return h


def _doctor(home, capsys):
    try:
        main(["--home", str(home / "g"), "--json", "doctor"])
    except SystemExit:
        pass
    cap = capsys.readouterr()
    assert "internal error" not in cap.err, cap.err
    return json.loads(cap.out)


def _venv_without_its_python(tmp_path):
    bin_ = tmp_path / "venv" / "bin"
    bin_.mkdir(parents=True)
    (bin_ / "python3").symlink_to("/nonexistent/python3.11/bin/python3.11")  # the base Python was removed
    script = bin_ / "memdir"
    script.write_text(f"#!{bin_ / 'python3'}\nfrom memdir.cli import main\nmain()\n", encoding="utf-8")
    script.chmod(0o755)
    return script


def _not_executable(tmp_path):
    script = tmp_path / "venv" / "bin" / "memdir"
    script.parent.mkdir(parents=True)
    script.write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
    script.chmod(0o644)
    return script


@pytest.mark.parametrize("make", [_venv_without_its_python, _not_executable])
def test_doctor_fails_on_hooks_and_mcp_whose_memdir_cannot_start(home, capsys, tmp_path, make):
    script = make(tmp_path)
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"hooks": {"UserPromptSubmit": [{"hooks": [
        {"type": "command", "command": f"{script} hook claude-code user-prompt", "timeout": 10}]}]}}), encoding="utf-8")
    cfg = home / ".claude.json"
    cfg.write_text(json.dumps({"mcpServers": {"memdir": {"type": "stdio", "command": str(script), "args": ["mcp"]}}}),
                   encoding="utf-8")
    checks = _doctor(home, capsys)
    hooks = [c for c in checks if c["check"].startswith("claude-code user") and "MCP" not in c["check"]]
    mcp = [c for c in checks if c["check"] == "claude-code user MCP"]
    assert hooks and all(c["ok"] == "fail" for c in hooks), hooks
    assert mcp and mcp[0]["ok"] == "fail", checks
    assert "install" in hooks[0]["remedy"] and "install" in mcp[0]["remedy"]
