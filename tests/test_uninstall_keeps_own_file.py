"""C38's kind: an uninstall gives back the file the user had, byte for byte, also when memdir's entries were all it
added to it. A ~/.claude/settings.json holding ``{}`` (or nothing), an opencode.json holding only its ``$schema`` and
an empty ``mcp``, an empty ~/.codex/config.toml were deleted by the uninstall, as if install had created them."""

from __future__ import annotations

import pytest

from memdir.hosts.install import install_host

ARGV = ["/opt/memdir/bin/memdir"]


@pytest.fixture
def home(tmp_path, monkeypatch):
    h = tmp_path / "home"
    h.mkdir()
    (h / "proj").mkdir()
    monkeypatch.setenv("HOME", str(h))
    monkeypatch.setenv("CODEX_HOME", str(h / ".codex"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(h / ".config"))
    monkeypatch.chdir(h / "proj")
    return h


@pytest.mark.parametrize("host, rel, raw", [
    ("claude-code", ".claude/settings.json", b"{}"),
    ("claude-code", ".claude/settings.json", b"{}\r\n"),
    ("claude-code", ".claude/settings.json", b""),
    ("claude-code", ".claude/settings.json", b'{\n  "hooks": {}\n}\n'),
    ("codex", ".codex/hooks.json", b"{}\n"),
    ("codex", ".codex/config.toml", b""),
    ("codex", ".codex/config.toml", b"\n\n"),
    ("opencode", ".config/opencode/opencode.json", b'{\n  "$schema": "https://opencode.ai/config.json",\n  "mcp": {}\n}\n'),
    ("opencode", ".config/opencode/opencode.json", b"{}"),
])
def test_the_users_own_file_comes_back_byte_for_byte(home, host, rel, raw):
    f = home / rel
    f.parent.mkdir(parents=True, exist_ok=True)
    f.write_bytes(raw)
    install_host(host, argv=ARGV)
    install_host(host, argv=ARGV, uninstall=True)
    assert f.exists() and f.read_bytes() == raw


@pytest.mark.parametrize("host, rel", [("claude-code", ".claude/settings.json"), ("codex", ".codex/config.toml"),
                                       ("opencode", ".config/opencode/opencode.json")])
def test_a_file_install_created_still_goes(home, host, rel):
    install_host(host, argv=ARGV)
    install_host(host, argv=ARGV)  # a reinstall backs up install's own file
    assert (home / rel).exists()
    install_host(host, argv=ARGV, uninstall=True)
    assert not (home / rel).exists()
