"""`memdir doctor` reports a memdir MCP server a host cannot start: its command is gone (the venv an older install
registered was deleted, memdir moved). Before, doctor checked only the hooks, so after `memdir install` from a venv
that was later removed it said every host was fine while the host failed to start `memdir mcp`."""

from __future__ import annotations

import json

import pytest

from memdir.cli.main import main

GONE = "/nonexistent/old-venv/bin/memdir"


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


CASES = [
    (".claude.json", json.dumps({"mcpServers": {"memdir": {"type": "stdio", "command": GONE, "args": ["mcp"]}}})),
    (".codex/config.toml", f'model = "o3"\n\n[mcp_servers.memdir]\ncommand = "{GONE}"\nargs = ["mcp"]\n'),
    (".config/opencode/opencode.json",
     json.dumps({"mcp": {"memdir": {"type": "local", "command": [GONE, "mcp"], "enabled": True}}})),
    (".config/opencode/opencode.json",  # JSON with comments, as OpenCode allows
     '{\n  // memory\n  "mcp": {"memdir": {"type": "local", "command": ["' + GONE + '", "mcp"]},},\n}\n'),
]


@pytest.mark.parametrize("rel,text", CASES)
def test_doctor_fails_on_a_memdir_mcp_server_whose_command_is_gone(home, capsys, rel, text):
    path = home / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    failed = [c for c in _doctor(home, capsys) if c["ok"] == "fail" and str(path) in c["detail"]]
    assert failed and GONE in failed[0]["detail"] and "install" in failed[0]["remedy"], failed


def test_doctor_says_nothing_of_a_memdir_mcp_server_that_runs(home, capsys):
    import sys

    cfg = home / ".claude.json"
    cfg.write_text(json.dumps({"mcpServers": {"memdir": {"type": "stdio", "command": sys.executable,
                                                         "args": ["-m", "memdir.cli", "mcp"]},
                                              "other": {"command": GONE}}}), encoding="utf-8")
    assert not [c for c in _doctor(home, capsys) if c["ok"] == "fail" and str(cfg) in c["detail"]]


def test_doctor_fails_on_the_projects_mcp_server_whose_command_is_not_on_path(home, capsys, tmp_path, monkeypatch):
    (tmp_path / "proj" / ".git").mkdir()
    mcp = tmp_path / "proj" / ".mcp.json"
    mcp.write_text(json.dumps({"mcpServers": {"memdir": {"type": "stdio", "command": "memdir-not-here",
                                                         "args": ["mcp"]}}}), encoding="utf-8")
    failed = [c for c in _doctor(home, capsys) if c["ok"] == "fail" and str(mcp) in c["detail"]]
    assert failed and "PATH" in failed[0]["remedy"], failed
