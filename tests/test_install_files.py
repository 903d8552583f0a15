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


#: host files as a person's editor may have left them: (host, file under $HOME, bytes)
STYLED = [
    ("claude-code", ".claude.json", b'{\r\n  "numStartups": 3,\r\n  "mcpServers": {}\r\n}\r\n'),
    ("claude-code", ".claude/settings.json", b'{\r\n\t"model": "opus",\r\n\t"hooks": {}\r\n}\r\n'),
    ("claude-code", ".claude/settings.json", b'\xef\xbb\xbf{\r\n\t"model": "opus"\r\n}'),  # a BOM, no final newline
    ("codex", ".codex/config.toml", b'# mine\r\nmodel = "o3"\r\n\r\n[tui]\r\n# kept\r\nx = 1\r\n'),
    ("codex", ".codex/config.toml", b'# mine\nmodel = "o3"\n\n[tui]\nx = 1'),  # no final newline
    # a hook group the person left empty (and a matcher's) is theirs: install keeps it, uninstall gives it back
    ("claude-code", ".claude/settings.json", b'{\n  "hooks": {\n    "Stop": [\n      {\n        "hooks": []\n      }\n    ]\n  }\n}\n'),
    ("codex", ".codex/hooks.json", b'{"hooks": {"UserPromptSubmit": [{"matcher": "", "hooks": []}]}}'),
    ("codex", ".codex/config.toml", b'\xef\xbb\xbfmodel = "o3"\r\n\r\n[tui]\r\nx = 1\r\n'),  # a BOM (Notepad)
    ("dsh", ".dsh/cordis.patch.yml", b"# my patches\r\n- insert: []\r\n"),
    ("dsh", ".dsh/cordis.patch.yml", b"# my patches\n- insert: []"),
]


@pytest.mark.parametrize("linked", [False, True], ids=["file", "link"])
@pytest.mark.parametrize("host,rel,data", STYLED, ids=[f"{h}:{r}:{i}" for i, (h, r, _) in enumerate(STYLED)])
def test_install_then_uninstall_gives_the_file_back_byte_for_byte(home, tmp_path, monkeypatch, host, rel, data,
                                                                   linked):
    monkeypatch.setenv("DSH_HOME", str(home / ".dsh"))
    path = home / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    target = tmp_path / "dotfiles" / path.name if linked else path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)
    os.chmod(target, 0o640)
    if linked:
        path.symlink_to(target)
    install_host(host, argv=ARGV)
    between = target.read_bytes()
    assert between != data and b"memdir" in between
    if b"\r\n" in data:  # memdir's lines take the file's CRLF: none of its own line ends is a bare LF
        assert between.count(b"\n") == between.count(b"\r\n")
    assert between.startswith(b"\xef\xbb\xbf") == data.startswith(b"\xef\xbb\xbf")
    assert between.endswith(b"\n") == data.endswith(b"\n")
    install_host(host, argv=ARGV, uninstall=True)
    assert target.read_bytes() == data and _mode(target) == 0o640
    assert path.is_symlink() == linked


def test_doctor_reads_a_codex_config_with_a_byte_order_mark(home):
    from memdir.hosts.host_checks import host_checks

    cfg = home / ".codex" / "config.toml"
    cfg.parent.mkdir()
    cfg.write_bytes(b'\xef\xbb\xbfmodel = "o3"\n')
    install_host("codex", argv=ARGV)
    assert cfg.read_bytes().startswith(b'\xef\xbb\xbfmodel = "o3"\n')
    assert not [c for c in host_checks() if c["check"] == "codex config"]


def test_a_file_changed_between_install_and_uninstall_keeps_its_crlf(home):
    cfg = home / ".claude" / "settings.json"
    cfg.write_bytes(b'{\r\n  "model": "opus"\r\n}\r\n')
    install_host("claude-code", argv=ARGV)
    data = json.loads(cfg.read_text(encoding="utf-8"))
    data["theme"] = "dark"  # the person's own change: no backup holds this file
    cfg.write_bytes(json.dumps(data, indent=2).replace("\n", "\r\n").encode() + b"\r\n")
    install_host("claude-code", argv=ARGV, uninstall=True)
    after = cfg.read_bytes()
    assert json.loads(after) == {"model": "opus", "theme": "dark"}
    assert after.count(b"\n") == after.count(b"\r\n") == 4


def test_an_uninstall_that_empties_a_linked_codex_config_keeps_the_link(home, tmp_path):
    target = tmp_path / "dotfiles" / "config.toml"
    target.parent.mkdir()
    target.write_text("", encoding="utf-8")
    link = home / ".codex" / "config.toml"
    link.parent.mkdir()
    link.symlink_to(target)
    install_host("codex", argv=ARGV)
    assert b"memdir" in target.read_bytes()
    install_host("codex", argv=ARGV, uninstall=True)
    assert link.is_symlink() and target.read_bytes() == b""


def test_install_and_uninstall_run_again_and_again_keep_two_backups_not_a_pile(tmp_path, monkeypatch):
    """Each run backed up the file it was about to write: three install / uninstall rounds left six copies of two
    texts. An existing backup with the same bytes stands for the new one; the file still comes back as it was."""
    from click.testing import CliRunner

    from memdir.cli.main import cli

    home = tmp_path / "h"
    (home / ".claude").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    (home / ".claude.json").write_text('{"numStartups": 3}\n', encoding="utf-8")
    (home / ".claude" / "settings.json").write_text('{"theme": "dark"}\n', encoding="utf-8")
    for _ in range(3):
        for args in (["install", "claude-code"], ["install", "claude-code", "--uninstall"]):
            r = CliRunner().invoke(cli, ["--home", str(tmp_path / "g"), *args])
            assert r.exit_code == 0, r.output
    assert len(list(home.glob(".claude.json.memdir-backup-*"))) == 2
    assert len(list((home / ".claude").glob("settings.json.memdir-backup-*"))) == 2
    assert (home / ".claude.json").read_text(encoding="utf-8") == '{"numStartups": 3}\n'
    assert (home / ".claude" / "settings.json").read_text(encoding="utf-8") == '{"theme": "dark"}\n'


@pytest.mark.parametrize("host,folder", [("codex", ".codex"), ("opencode", ".config/opencode"), ("dsh", ".dsh")])
def test_uninstall_removes_the_folder_install_made_when_nothing_else_is_in_it(tmp_path, monkeypatch, host, folder):
    """Install made the host's folder under the home directory; uninstall leaves nothing of memdir's behind, so the
    emptied folder goes too. A folder holding anything else (the host's own files) stays."""
    from memdir.hosts.install import install_host

    home = tmp_path / "h"
    home.mkdir()
    for var in ("CODEX_HOME", "XDG_CONFIG_HOME", "DSH_HOME"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HOME", str(home))
    argv = [str(tmp_path / "memdir")]
    install_host(host, argv=argv)
    assert (home / folder).is_dir()
    install_host(host, argv=argv, uninstall=True)
    assert not (home / folder).exists()
    install_host(host, argv=argv)
    (home / folder / "own.txt").write_text("the host's own file\n", encoding="utf-8")
    install_host(host, argv=argv, uninstall=True)
    assert (home / folder / "own.txt").is_file()


#: a settings file that exists but holds nothing (an editor's blank line, a `touch`): (host, file under $HOME, bytes)
BLANK = [
    ("claude-code", ".claude.json", b"  \n"),
    ("claude-code", ".claude.json", b""),
    ("claude-code", ".claude/settings.json", b"\r\n"),
    ("codex", ".codex/config.toml", b" \n\n"),
    ("codex", ".codex/hooks.json", b"\n"),
    ("opencode", ".config/opencode/opencode.json", b"\t\n"),
]


@pytest.mark.parametrize("host,rel,data", BLANK, ids=[f"{h}:{r}:{i}" for i, (h, r, _) in enumerate(BLANK)])
def test_a_blank_settings_file_comes_back_blank(home, monkeypatch, host, rel, data):
    """A ~/.claude.json of white space alone came back from an install and its uninstall as {"mcpServers": {}}."""
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    path = home / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    os.chmod(path, 0o600)
    install_host(host, argv=ARGV)
    assert b"memdir" in b"".join(p.read_bytes() for p in home.rglob("*") if p.is_file() and "backup" not in p.name)
    install_host(host, argv=ARGV, uninstall=True)
    assert path.read_bytes() == data and _mode(path) == 0o600


@pytest.mark.parametrize("host,rel", [("claude-code", ".claude.json"), ("claude-code", ".claude/settings.json"),
                                      ("codex", ".codex/config.toml"), ("codex", ".codex/hooks.json"),
                                      ("dsh", ".dsh/cordis.patch.yml")])
def test_a_dangling_link_is_left_dangling_by_install_and_uninstall(home, tmp_path, monkeypatch, host, rel):
    """A link into a dotfiles folder whose file is not there yet: install writes the target (the link stays); its
    uninstall left a target of `{}` / `{"mcpServers": {}}` behind that the person never had."""
    target = tmp_path / "dotfiles" / "claude" / "x.json"
    target.parent.mkdir(parents=True)
    monkeypatch.setenv("DSH_HOME", str(home / ".dsh"))
    link = home / rel
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(target)
    install_host(host, argv=ARGV)
    assert link.is_symlink() and b"memdir" in target.read_bytes()
    install_host(host, argv=ARGV, uninstall=True)
    assert link.is_symlink() and not target.exists()


@pytest.mark.parametrize("host", ["claude-code", "codex", "opencode", "dsh"])
def test_folders_install_makes_in_the_user_s_config_are_private_whatever_the_umask(tmp_path, monkeypatch, host):
    """Under a 000 umask the folders install made for a host (``~/.claude``, ``~/.codex``, ``~/.config/opencode/plugins``,
    ``~/.dsh``) were 0777: anyone on the machine could put their own hooks file there, run as the user on the next
    prompt. They are the owner's alone, as the 0600 files in them are; a folder that was there keeps its mode."""
    home = tmp_path / "h"
    home.mkdir()
    os.chmod(home, 0o755)
    for var in ("CODEX_HOME", "XDG_CONFIG_HOME", "DSH_HOME"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HOME", str(home))
    old = os.umask(0)
    try:
        install_host(host, argv=ARGV)
    finally:
        os.umask(old)
    made = [p for p in home.rglob("*") if p.is_dir()]
    assert made and all(_mode(p) & 0o077 == 0 for p in made), [(str(p), oct(_mode(p))) for p in made]
    assert _mode(home) == 0o755


def test_reinstalling_while_the_host_rewrites_its_file_keeps_a_bounded_number_of_backups(tmp_path, monkeypatch):
    """Claude Code rewrites ~/.claude.json at every start, so each install or uninstall (a reinstall after every
    upgrade, months of them) found new bytes and added one more full copy of it beside the file: 15 rounds left 30.
    The first backup (the file as it was before memdir ever wrote it) and the newest few are kept."""
    from memdir.hosts import install

    home = tmp_path / "h"
    (home / ".claude").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    cfg = home / ".claude.json"
    cfg.write_text('{"numStartups": 0, "mine": true}\n', encoding="utf-8")
    for i in range(1, 16):
        for uninstall in (False, True):
            install_host("claude-code", argv=ARGV, uninstall=uninstall)
            data = json.loads(cfg.read_text(encoding="utf-8"))
            data["numStartups"] = i * 10 + uninstall  # the host starts and writes its counters
            cfg.write_text(json.dumps(data), encoding="utf-8")
    backups = sorted(home.glob(".claude.json.memdir-backup-*"))
    assert len(backups) == install.KEEP_BACKUPS + 1
    assert backups[0].read_text(encoding="utf-8") == '{"numStartups": 0, "mine": true}\n'  # the user's own, kept
    install_host("claude-code", argv=ARGV)
    install_host("claude-code", argv=ARGV, uninstall=True)
    data = json.loads(cfg.read_text(encoding="utf-8"))
    assert (data["numStartups"], data["mine"], data.get("mcpServers", {})) == (151, True, {})
