"""`memdir install claude-code` into a home without ~/.claude makes that folder for its settings.json; the uninstall
then left it behind empty, where the uninstall of codex, opencode and dsh removes the folder it made. A ~/.claude
holding anything else (Claude Code's own files) stays."""

from memdir.hosts.install import install_host


def test_uninstall_removes_the_claude_folder_install_made_when_nothing_else_is_in_it(tmp_path, monkeypatch):
    home = tmp_path / "h"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    argv = [str(tmp_path / "memdir")]
    install_host("claude-code", argv=argv)
    assert (home / ".claude" / "settings.json").is_file()
    install_host("claude-code", argv=argv, uninstall=True)
    assert not (home / ".claude").exists()
    assert not (home / ".claude.json").exists()
    install_host("claude-code", argv=argv)
    (home / ".claude" / "history.jsonl").write_text("{}\n", encoding="utf-8")
    install_host("claude-code", argv=argv, uninstall=True)
    assert (home / ".claude" / "history.jsonl").is_file()
    assert not (home / ".claude" / "settings.json").exists()
