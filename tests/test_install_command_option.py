"""`memdir install HOST --command …`: the command to register, as the user types it."""

from __future__ import annotations

import json
import os

import pytest

from memdir.cli.main import main
from memdir.hosts.install import install_host


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


@pytest.mark.parametrize("command", ['memdir "unclosed', "memdir 'x"])
def test_a_command_with_an_unclosed_quote_is_a_one_line_usage_error(home, capsys, command):
    """It was `memdir: internal error: ValueError: No closing quotation`."""
    with pytest.raises(SystemExit) as exc:
        main(["--home", str(home / "g"), "install", "claude-code", "--command", command])
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert exc.value.code == 2, err
    assert len(lines) == 1 and lines[0].startswith("memdir: error:") and "--command" in err, err
    assert "internal error" not in err
    assert not os.listdir(home)


ODD = ["/opt/md/bin/md"]  # memdir under another name (a wrapper script, a renamed venv entry point)


def _commands(path):
    data = json.loads(path.read_text(encoding="utf-8"))
    return [h["command"] for groups in data.get("hooks", {}).values() for g in groups for h in g["hooks"]]


@pytest.mark.parametrize("host,rel", [("claude-code", ".claude/settings.json"), ("codex", ".codex/hooks.json"),
                                      ("dsh", ".dsh/hooks.json")])
def test_a_command_without_memdir_in_its_name_is_installed_once_and_uninstalled(home, host, rel):
    """Installed twice it was registered twice (each prompt captured and injected twice), and --uninstall left both
    copies and the MCP server in place."""
    path = home / rel
    install_host(host, argv=ODD)
    first = _commands(path)
    install_host(host, argv=ODD)
    assert _commands(path) == first and len(first) == 4
    install_host(host, argv=ODD, uninstall=True)
    assert not path.exists() or not _commands(path)
    assert not (home / ".claude.json").exists()
    cfg = home / ".codex" / "config.toml"
    assert not cfg.exists() or "mcp_servers" not in cfg.read_text()


def test_an_opencode_server_registered_with_such_a_command_is_updated_and_removed(home):
    cfg = home / ".config" / "opencode" / "opencode.json"
    install_host("opencode", argv=ODD)
    install_host("opencode", argv=ODD)
    assert json.loads(cfg.read_text())["mcp"]["memdir"]["command"] == [*ODD, "mcp"]
    install_host("opencode", argv=ODD, uninstall=True)
    assert not cfg.exists() or "memdir" not in json.loads(cfg.read_text()).get("mcp", {})
