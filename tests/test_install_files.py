"""C38 and C32, and their kind: the host settings memdir install writes keep what they were: their permissions (a
0600 ~/.claude.json may hold an API key; its backups stay 0600) and their symlinks into a dotfiles folder (the
target gains and loses memdir's entries, the link stays a link)."""

import json
import os
import stat

import pytest

from memdir.hosts.install import install_host

ARGV = ["/opt/memdir/bin/memdir"]


def _mode(p):
    return stat.S_IMODE(os.stat(p).st_mode)


@pytest.fixture
def home(tmp_path, monkeypatch):
    h = tmp_path / "home"
    (h / ".claude").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(h))
    monkeypatch.setenv("CODEX_HOME", str(h / ".codex"))
    return h


def test_install_and_uninstall_keep_a_0600_config_0600(home):
    cfg = home / ".claude.json"
    cfg.write_text(json.dumps({"oauthAccount": {"emailAddress": "me@example.com"}, "mcpServers": {}}), encoding="utf-8")
    os.chmod(cfg, 0o600)
    install_host("claude-code", argv=ARGV)
    assert _mode(cfg) == 0o600 and "memdir" in json.loads(cfg.read_text())["mcpServers"]
    backups = list(home.glob(".claude.json.memdir-backup-*"))
    assert backups and all(_mode(b) == 0o600 for b in backups)
    install_host("claude-code", argv=ARGV, uninstall=True)
    assert _mode(cfg) == 0o600 and "memdir" not in json.loads(cfg.read_text()).get("mcpServers", {})


def test_a_settings_file_linked_from_dotfiles_stays_a_link(home, tmp_path):
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    target = dotfiles / "claude-settings.json"
    target.write_text(json.dumps({"theme": "dark"}), encoding="utf-8")
    link = home / ".claude" / "settings.json"
    link.symlink_to(target)
    install_host("claude-code", argv=ARGV)
    assert link.is_symlink() and link.resolve() == target.resolve()
    data = json.loads(target.read_text())
    assert data["theme"] == "dark" and "UserPromptSubmit" in data["hooks"]
    assert list(dotfiles.glob("claude-settings.json.memdir-backup-*"))  # the backup is beside the target
    install_host("claude-code", argv=ARGV, uninstall=True)
    assert link.is_symlink() and "hooks" not in json.loads(target.read_text())


def test_an_uninstall_that_empties_a_linked_settings_file_keeps_the_link(home, tmp_path):
    target = tmp_path / "dotfiles" / "settings.json"
    target.parent.mkdir()
    target.write_text("{}", encoding="utf-8")
    link = home / ".claude" / "settings.json"
    link.symlink_to(target)
    install_host("claude-code", argv=ARGV)
    install_host("claude-code", argv=ARGV, uninstall=True)
    assert link.is_symlink() and json.loads(target.read_text()) == {}


def test_uninstall_removes_the_claude_json_that_install_created(home):
    cfg = home / ".claude.json"
    install_host("claude-code", argv=ARGV)
    install_host("claude-code", argv=ARGV + ["--home", "/x"])  # a reinstall backs up memdir's own file
    assert cfg.exists()
    install_host("claude-code", argv=ARGV, uninstall=True)
    assert not cfg.exists()


def test_uninstall_keeps_a_claude_json_the_user_had_or_a_host_wrote_to(home):
    cfg = home / ".claude.json"
    cfg.write_text('{"mcpServers": {}}\n', encoding="utf-8")
    install_host("claude-code", argv=ARGV)
    install_host("claude-code", argv=ARGV, uninstall=True)
    assert cfg.read_text(encoding="utf-8") == '{"mcpServers": {}}\n'
    cfg.unlink()
    for b in home.glob(".claude.json.memdir-backup-*"):
        b.unlink()
    install_host("claude-code", argv=ARGV)
    data = json.loads(cfg.read_text())
    data["numStartups"] = 3  # the host wrote its own state since
    cfg.write_text(json.dumps(data), encoding="utf-8")
    install_host("claude-code", argv=ARGV, uninstall=True)
    assert json.loads(cfg.read_text()) == {"mcpServers": {}, "numStartups": 3}


def test_a_dangling_link_to_claude_json_gets_a_private_target(home, tmp_path):
    dot = tmp_path / "dotfiles"
    dot.mkdir()
    link = home / ".claude.json"
    link.symlink_to(dot / "claude.json")
    old = os.umask(0o022)
    try:
        install_host("claude-code", argv=ARGV)
    finally:
        os.umask(old)
    assert link.is_symlink() and _mode(dot / "claude.json") == 0o600
