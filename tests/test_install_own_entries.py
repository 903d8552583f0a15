"""A host's configuration keeps what the person wrote (a probe of `memdir install`): a Codex [mcp_servers.memdir]
placed after a dotted `mcp_servers.x = …` line took every top-level key below it, and uninstall then deleted them; an
inline `mcp_servers` table was an internal error; an MCP entry named memdir that the person wrote was removed by
uninstall (Codex) or replaced by install (Claude Code); a reinstall from another venv left Codex's server on the old
one; a refused install had written part of its files while saying nothing was changed."""

from __future__ import annotations

import json
import tomllib

import pytest

from memdir.errors import UsageError
from memdir.hosts.install import install_host

ARGV = ["/opt/memdir/bin/memdir"]


@pytest.fixture
def home(tmp_path, monkeypatch):
    h = tmp_path / "home"
    h.mkdir()
    for var in ("HOME", "USERPROFILE"):
        monkeypatch.setenv(var, str(h))
    for var in ("CODEX_HOME", "XDG_CONFIG_HOME"):
        monkeypatch.delenv(var, raising=False)
    return h


def codex_cfg(home, text):
    cfg = home / ".codex" / "config.toml"
    cfg.parent.mkdir(exist_ok=True)
    cfg.write_text(text, encoding="utf-8")
    return cfg


def test_codex_keys_after_a_dotted_mcp_servers_line_stay_top_level(home):
    original = ('model = "o3"\nmcp_servers.context7 = { command = "npx", args = ["-y", "c7"] }\n'
                'notify = ["say", "done"]\n\n[tui]\nx = 1\n')
    cfg = codex_cfg(home, original)
    install_host("codex", argv=ARGV)
    data = tomllib.loads(cfg.read_text())
    assert data["notify"] == ["say", "done"] and data["model"] == "o3" and data["tui"] == {"x": 1}
    assert data["mcp_servers"]["memdir"] == {"command": ARGV[0], "args": ["mcp"], "startup_timeout_sec": 20}
    assert data["mcp_servers"]["context7"] == {"command": "npx", "args": ["-y", "c7"]}
    install_host("codex", uninstall=True, argv=ARGV)
    assert cfg.read_text() == original


def test_codex_inline_mcp_servers_is_refused_in_one_line_and_nothing_written(home):
    original = 'mcp_servers = { context7 = { command = "npx" } }\n'
    cfg = codex_cfg(home, original)
    with pytest.raises(UsageError, match="inline table"):
        install_host("codex", argv=ARGV)
    assert cfg.read_text() == original and not (home / ".codex" / "hooks.json").exists()


def test_codex_entry_the_person_wrote_survives_install_and_uninstall(home):
    mine = '# my own memdir server\n[mcp_servers.memdir]\ncommand = "/home/me/bin/memdir"\nargs = ["mcp", "--home", "/data/mem"]\n'
    cfg = codex_cfg(home, mine)
    plan = install_host("codex", argv=ARGV)
    assert tomllib.loads(cfg.read_text())["mcp_servers"]["memdir"]["args"] == ["mcp", "--home", "/data/mem"]
    assert any("not written by memdir" in n for n in plan.notes)
    install_host("codex", uninstall=True, argv=ARGV)
    assert cfg.read_text() == mine


def test_codex_reinstall_from_another_venv_moves_the_server_too(home):
    cfg = codex_cfg(home, 'model = "o3"\n')
    install_host("codex", argv=ARGV)
    install_host("codex", argv=["/new venv/bin/memdir", "--home", "/data/g"])
    entry = tomllib.loads(cfg.read_text())["mcp_servers"]["memdir"]
    assert entry["command"] == "/new venv/bin/memdir" and entry["args"] == ["--home", "/data/g", "mcp"]


def test_claude_entry_the_person_wrote_is_kept(home):
    mine = {"mcpServers": {"memdir": {"command": "/home/me/bin/memdir", "args": ["mcp", "--home", "/data/mem"],
                                      "env": {"X": "1"}}}, "theme": "dark"}
    (home / ".claude.json").write_text(json.dumps(mine), encoding="utf-8")
    install_host("claude-code", argv=ARGV)
    assert json.loads((home / ".claude.json").read_text())["mcpServers"]["memdir"] == mine["mcpServers"]["memdir"]
    install_host("claude-code", uninstall=True, argv=ARGV)
    assert json.loads((home / ".claude.json").read_text()) == mine


def test_a_refused_claude_install_writes_nothing(home):
    (home / ".claude.json").write_text('{"mcpServers": []}', encoding="utf-8")
    with pytest.raises(UsageError, match="nothing was changed"):
        install_host("claude-code", argv=ARGV)
    assert not (home / ".claude" / "settings.json").exists()


def test_a_refused_opencode_install_writes_nothing_and_its_own_server_is_kept(home):
    cfg = home / ".config" / "opencode" / "opencode.json"
    cfg.parent.mkdir(parents=True)
    cfg.write_text('{"mcp": []}', encoding="utf-8")
    with pytest.raises(UsageError, match="nothing was changed"):
        install_host("opencode", argv=ARGV)
    assert not list(cfg.parent.rglob("*.js")) and not list(cfg.parent.rglob("*.mjs"))
    mine = {"mcp": {"memdir": {"type": "local", "command": ["memdir", "mcp", "--home", "/data"], "enabled": True}}}
    cfg.write_text(json.dumps(mine), encoding="utf-8")
    install_host("opencode", argv=ARGV)
    assert json.loads(cfg.read_text())["mcp"] == mine["mcp"]
    install_host("opencode", uninstall=True, argv=ARGV)
    assert json.loads(cfg.read_text()) == mine


def test_a_hook_for_a_directory_that_is_gone_does_not_make_it_again(tmp_path):
    from memdir.hosts.hooks import run_hook

    gone = tmp_path / "gone" / "deep"
    payload = {"session_id": "s", "cwd": str(gone), "hook_event_name": "UserPromptSubmit", "prompt": "how do we deploy?"}
    assert run_hook("claude-code", "user-prompt", payload, home=str(tmp_path / "g")) == ""
    assert not (tmp_path / "gone").exists()


def test_uninstall_gives_a_json_settings_file_back_byte_for_byte(home):
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir()
    original = '{\n    "theme": "caf\\u00e9",\n    "permissions": {"allow": ["Bash(ls)"]},\n    "hooks": {}\n}'
    settings.write_text(original, encoding="utf-8")
    install_host("claude-code", argv=ARGV)
    assert '\n    "hooks"' in settings.read_text()  # written with the file's own indentation
    install_host("claude-code", uninstall=True, argv=ARGV)
    assert settings.read_text(encoding="utf-8") == original


def test_a_project_install_beside_a_user_install_says_prompts_would_go_twice(home, tmp_path):
    install_host("claude-code", argv=ARGV)
    proj = tmp_path / "proj"
    proj.mkdir()
    plan = install_host("claude-code", project=proj, argv=ARGV)
    assert any("twice" in n and "settings.json" in n for n in plan.notes)
    alone = tmp_path / "alone"
    alone.mkdir()
    install_host("claude-code", uninstall=True, argv=ARGV)
    assert not any("twice" in n for n in install_host("claude-code", project=alone, argv=ARGV).notes)


def test_install_without_a_home_directory_is_refused(home, monkeypatch):
    monkeypatch.setenv("HOME", "")
    monkeypatch.delenv("USERPROFILE", raising=False)
    with pytest.raises(UsageError, match="HOME is not set"):
        install_host("claude-code", argv=ARGV, dry_run=True)


def test_opencode_jsonc_uninstall_asks_for_a_hand_edit_only_when_memdir_is_there(home):
    cfg = home / ".config" / "opencode" / "opencode.jsonc"
    cfg.parent.mkdir(parents=True)
    cfg.write_text('{\n  "theme": "dark",\n}\n', encoding="utf-8")  # a trailing comma: JSONC
    plan = install_host("opencode", uninstall=True, argv=ARGV)
    assert not [c for c in plan.changes if c.get("action") == "manual"]
    cfg.write_text('{\n  // mine\n  "mcp": {"memdir": {"type": "local", "command": ["memdir", "mcp"]}},\n}\n', encoding="utf-8")
    plan = install_host("opencode", uninstall=True, argv=ARGV)
    assert [c for c in plan.changes if c.get("action") == "manual" and "JSONC" in c.get("detail", "")]


def test_a_hook_for_a_removed_subdirectory_of_a_project_stores_the_prompt_in_the_project(tmp_path):
    import memdir
    from memdir.hosts.hooks import run_hook

    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    payload = {"session_id": "s", "cwd": str(proj / "build" / "tmp"), "hook_event_name": "UserPromptSubmit",
               "prompt": "why does the release build drop the icons?"}
    run_hook("claude-code", "user-prompt", payload, home=str(tmp_path / "g"))
    assert not (proj / "build").exists()
    with memdir.open(proj, home=tmp_path / "g") as m:
        assert [h.text for h in m.recent(kinds=["user"])] == ["why does the release build drop the icons?"]


def test_a_null_mcp_servers_is_refused_in_one_line_before_anything_is_written(home):
    (home / ".claude.json").write_text('{"mcpServers": null}', encoding="utf-8")
    with pytest.raises(UsageError, match="not an object"):
        install_host("claude-code", argv=ARGV)
    assert not (home / ".claude" / "settings.json").exists()


@pytest.mark.parametrize("text,name", [('model = "o3"\nhooks = { my = "keep" }\n', r"`hooks` is an inline table.*\[hooks\]"),
                                       ('[hooks]\nstate = { a = 1 }\n', r"`hooks\.state` is an inline table.*\[hooks\.state\]")])
def test_codex_inline_hooks_tables_are_refused_in_one_line(home, text, name):
    cfg = codex_cfg(home, text)
    with pytest.raises(UsageError, match=name):
        install_host("codex", argv=ARGV)
    assert cfg.read_text() == text


def test_a_project_install_keeps_its_backups_out_of_the_checkout(home, tmp_path):
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    (proj / ".claude").mkdir()
    original = '{\n    "permissions": {"allow": ["Bash(ls)"]}\n}'
    (proj / ".claude" / "settings.json").write_text(original, encoding="utf-8")
    install_host("claude-code", project=proj, argv=ARGV)
    in_tree = [p for p in proj.rglob("*.memdir-backup-*") if ".git" not in p.parts]
    assert not in_tree and list((proj / ".git" / "memdir-backups").rglob("settings.json.memdir-backup-*"))
    install_host("claude-code", project=proj, uninstall=True, argv=ARGV)
    assert (proj / ".claude" / "settings.json").read_text(encoding="utf-8") == original  # restored from there


def test_a_read_only_settings_file_is_left_alone_and_nothing_is_written(home):
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{"theme": "dark"}', encoding="utf-8")
    settings.chmod(0o444)
    with pytest.raises(UsageError, match="read-only"):
        install_host("claude-code", argv=ARGV)
    assert settings.read_text(encoding="utf-8") == '{"theme": "dark"}' and not (home / ".claude.json").exists()
    assert install_host("claude-code", argv=ARGV, dry_run=True).changes  # a dry run still shows what would change
