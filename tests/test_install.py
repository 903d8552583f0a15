"""`memdir install <host>`: idempotent edits of a temp HOME, backups, --project, --uninstall, the OpenCode plugin."""

import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner

from memdir.hosts.adapters.opencode import PLUGIN_MARK, render_plugin
from memdir.cli.main import cli
from memdir.hosts.install import install_host
from memdir.hosts.install_codex import codex_hook_hash

ARGV = ["/opt/memdir/bin/memdir"]


@pytest.fixture
def home(tmp_path, monkeypatch):
    h = tmp_path / "home"
    h.mkdir()
    monkeypatch.setenv("HOME", str(h))
    monkeypatch.setenv("USERPROFILE", str(h))
    monkeypatch.delenv("CODEX_HOME", raising=False)
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    return h


def snapshot(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): p.read_text(encoding="utf-8") for p in sorted(root.rglob("*"))
            if p.is_file() and "memdir-backup" not in p.name}


def backups(root: Path) -> list[Path]:
    return sorted(root.rglob("*.memdir-backup-*"))


# ---- Claude Code ---------------------------------------------------------------------------------------------
def test_claude_install_idempotent_keeps_others_and_uninstalls(home):
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir()
    original = {"model": "opus", "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]}}
    settings.write_text(json.dumps(original), encoding="utf-8")
    (home / ".claude.json").write_text(json.dumps({"numStartups": 3, "mcpServers": {"gh": {"command": "gh-mcp"}}}))

    install_host("claude-code", argv=ARGV)
    s = json.loads(settings.read_text())
    assert s["model"] == "opus"
    cmds = {ev: [h["command"] for g in groups for h in g["hooks"]] for ev, groups in s["hooks"].items()}
    assert cmds["UserPromptSubmit"] == ["/opt/memdir/bin/memdir hook claude-code user-prompt"]
    assert cmds["SessionStart"] == ["/opt/memdir/bin/memdir hook claude-code session-start"]
    assert cmds["PostToolUse"] == ["/opt/memdir/bin/memdir hook claude-code post-tool-use"]
    assert cmds["Stop"] == ["notify-send done", "/opt/memdir/bin/memdir hook claude-code stop"]
    stop_entry = s["hooks"]["Stop"][1]["hooks"][0]
    # synchronous: Claude Code abandons "async" hooks when `claude -p` exits (issue 9)
    assert "async" not in stop_entry and stop_entry["timeout"] > 0
    mcp = json.loads((home / ".claude.json").read_text())
    assert mcp["numStartups"] == 3 and mcp["mcpServers"]["gh"] == {"command": "gh-mcp"}
    assert mcp["mcpServers"]["memdir"] == {"type": "stdio", "command": "/opt/memdir/bin/memdir", "args": ["mcp"]}
    assert len(backups(home)) == 2  # both files existed and changed

    before = snapshot(home)
    plan = install_host("claude-code", argv=ARGV)
    assert {c["action"] for c in plan.changes} == {"unchanged"}
    assert snapshot(home) == before and len(backups(home)) == 2

    install_host("claude-code", uninstall=True, argv=ARGV)
    assert json.loads(settings.read_text()) == original
    assert json.loads((home / ".claude.json").read_text()) == {"numStartups": 3, "mcpServers": {"gh": {"command": "gh-mcp"}}}


def test_claude_project_scope(home, tmp_path):
    proj = tmp_path / "proj"
    proj.mkdir()
    install_host("claude-code", project=proj, argv=ARGV)
    assert "UserPromptSubmit" in json.loads((proj / ".claude" / "settings.json").read_text())["hooks"]
    assert "memdir" in json.loads((proj / ".mcp.json").read_text())["mcpServers"]
    assert not (home / ".claude").exists()
    install_host("claude-code", project=proj, uninstall=True, argv=ARGV)
    assert not (proj / ".claude").exists() and not (proj / ".mcp.json").exists()  # nothing left of what install made


def test_project_install_names_memdir_on_path(home, tmp_path):
    proj = tmp_path / "proj"
    proj.mkdir()
    install_host("claude-code", project=proj)
    s = json.loads((proj / ".claude" / "settings.json").read_text())
    assert s["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"] == "memdir hook claude-code user-prompt"
    assert json.loads((proj / ".mcp.json").read_text())["mcpServers"]["memdir"] == {"type": "stdio", "command": "memdir", "args": ["mcp"]}
    install_host("opencode", project=proj)
    assert '["memdir"]' in (proj / ".opencode" / "plugins" / "memdir.js").read_text()
    assert json.loads((proj / "opencode.json").read_text())["mcp"]["memdir"]["command"] == ["memdir", "mcp"]
    install_host("opencode", project=proj, uninstall=True)
    assert not (proj / ".opencode").exists() and not (proj / "opencode.json").exists()


def test_broken_settings_never_rewritten(home):
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text("{ not json", encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "memdir.cli", "install", "claude-code"], capture_output=True, text=True,
                       env={**os.environ, "HOME": str(home)}, timeout=60)
    assert r.returncode == 2 and r.stderr.startswith("memdir: error: cannot parse") and "Traceback" not in r.stderr
    assert settings.read_text() == "{ not json" and not backups(home)


def test_dry_run_writes_nothing(home):
    plan = install_host("claude-code", dry_run=True, argv=ARGV)
    assert {c["action"] for c in plan.changes} == {"created"}
    assert list(home.iterdir()) == []


def test_dry_run_shows_the_lines_it_would_add(home):
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"model": "opus"}, indent=2) + "\n", encoding="utf-8")
    before = snapshot(home)
    r = CliRunner().invoke(cli, ["install", "claude-code", "--dry-run", "--command", "/opt/memdir/bin/memdir"])
    assert r.exit_code == 0, r.output
    # the change itself, not only the file's name: the hook lines to be added, the user's own lines as context
    assert '+            "command": "/opt/memdir/bin/memdir hook claude-code user-prompt",' in r.output
    assert '   "model": "opus",' in r.output or '-  "model": "opus"' in r.output
    assert snapshot(home) == before and not backups(home)


def test_cli_json_output(home):
    r = CliRunner().invoke(cli, ["install", "claude-code", "--json", "--command", "/opt/memdir/bin/memdir"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    assert data["host"] == "claude-code" and len(data["changes"]) == 2


def test_command_with_spaces_is_quoted(home):
    install_host("claude-code", argv=["/Applications/My Tools/memdir"])
    s = json.loads((home / ".claude" / "settings.json").read_text())
    cmd = s["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"]
    assert cmd.startswith("'/Applications/My Tools/memdir' hook claude-code")


# ---- Codex ---------------------------------------------------------------------------------------------------
def test_codex_toml_and_hooks(home):
    cfg = home / ".codex" / "config.toml"
    cfg.parent.mkdir()
    original = ('# my settings\nmodel = "gpt-5-codex"\n\n[features]\nweb_search = true  # keep\n\n'
                '[mcp_servers.gh]\ncommand = "gh-mcp"\n')
    cfg.write_text(original)
    install_host("codex", argv=ARGV)
    text = cfg.read_text()
    data = tomllib.loads(text)
    assert text.startswith(original)  # comments and layout of the user's part kept verbatim
    assert data["model"] == "gpt-5-codex" and data["features"] == {"web_search": True}  # no (deprecated) feature flag
    assert data["mcp_servers"]["memdir"] == {"command": "/opt/memdir/bin/memdir", "args": ["mcp"], "startup_timeout_sec": 20}
    assert data["mcp_servers"]["gh"] == {"command": "gh-mcp"}
    hooks_path = home / ".codex" / "hooks.json"
    hooks = json.loads(hooks_path.read_text())["hooks"]
    assert set(hooks) == {"SessionStart", "UserPromptSubmit", "PostToolUse", "Stop"}
    assert hooks["UserPromptSubmit"][0]["hooks"][0]["command"] == "/opt/memdir/bin/memdir hook codex user-prompt"
    assert all("async" not in h for groups in hooks.values() for g in groups for h in g["hooks"])
    # the user's consent, recorded as Codex records a hook approval
    state = data["hooks"]["state"]
    assert set(state) == {f"{hooks_path}:{label}:0:0" for label in ("session_start", "user_prompt_submit", "post_tool_use", "stop")}
    assert all(v["trusted_hash"].startswith("sha256:") and len(v["trusted_hash"]) == 71 for v in state.values())

    before = snapshot(home)
    install_host("codex", argv=ARGV)
    assert snapshot(home) == before

    install_host("codex", uninstall=True, argv=ARGV)
    assert cfg.read_text() == original
    assert not hooks_path.exists()  # install created it; nothing else was in it


def test_codex_uninstall_keeps_a_line_the_user_appended_after_memdir_s_last_table(home):
    """``approval_policy = "never"`` appended at the end of config.toml after an install lies in memdir's last
    ``[hooks.state."…"]`` table (TOML tables run to the next header): uninstall deleted it with the table."""
    cfg = home / ".codex" / "config.toml"
    cfg.parent.mkdir()
    cfg.write_text('model = "gpt-5-codex"\n')
    install_host("codex", argv=ARGV)
    cfg.write_text(cfg.read_text() + 'approval_policy = "never"\n')
    plan = install_host("codex", uninstall=True, argv=ARGV)
    assert any("approval_policy below" in n and "top-level" in n for n in plan.notes), plan.notes
    text = cfg.read_text()
    assert 'approval_policy = "never"' in text and "trusted_hash" not in text and "mcp_servers" not in text, text
    assert tomllib.loads(text)["model"] == "gpt-5-codex"


def test_codex_trust_hash_is_the_one_codex_accepts():
    # recorded from a real `codex exec` (0.171.0) that ran this hook after `memdir install codex`
    handler = {"type": "command", "command": "/work/wt/h9hosts/.venv/bin/memdir hook codex session-start", "timeout": 10}
    assert codex_hook_hash("SessionStart", {"hooks": [handler]}, handler) == \
        "sha256:ff88345a82d2d827f20a92977a21176749b9d58301bc9cabc991fc1dc0a87db1"


def test_codex_legacy_marker_block_migrated_without_losing_host_data(home):
    cfg = home / ".codex" / "config.toml"
    cfg.parent.mkdir()
    cfg.write_text('model = "o3"\n\n'
                   "# >>> memdir (written by `memdir install codex`; remove with --uninstall) >>>\n"
                   '[features]\ncodex_hooks = true\n\n[mcp_servers.memdir]\ncommand = "/old/memdir"\nargs = ["mcp"]\n'
                   '[projects."/work/app"]\ntrust_level = "trusted"\n'  # what Codex wrote inside our old block
                   "# <<< memdir <<<\n")
    install_host("codex", argv=ARGV)
    text = cfg.read_text()
    data = tomllib.loads(text)
    assert ">>> memdir" not in text and "<<< memdir" not in text
    assert "features" not in data and data["projects"] == {"/work/app": {"trust_level": "trusted"}}
    install_host("codex", uninstall=True, argv=ARGV)
    assert tomllib.loads(cfg.read_text()) == {"model": "o3", "projects": {"/work/app": {"trust_level": "trusted"}}}


def test_codex_other_hooks_keep_their_trust(home):
    ch = home / ".codex"
    ch.mkdir()
    hooks_path = ch / "hooks.json"
    mine = {"type": "command", "command": "notify-send done", "timeout": 5}
    hooks_path.write_text(json.dumps({"hooks": {"Stop": [{"hooks": [mine]}]}}))
    cfg = ch / "config.toml"
    cfg.write_text(f'[hooks.state."{hooks_path}:stop:0:0"]\ntrusted_hash = "sha256:mine"\n')
    install_host("codex", argv=ARGV)
    state = tomllib.loads(cfg.read_text())["hooks"]["state"]
    assert state[f"{hooks_path}:stop:0:0"] == {"trusted_hash": "sha256:mine"}
    assert f"{hooks_path}:stop:1:0" in state  # ours, after the user's
    # a hook added after ours moves up when ours goes: its trust follows it
    h = json.loads(hooks_path.read_text())
    later = {"type": "command", "command": "say bye"}
    h["hooks"]["Stop"].append({"hooks": [later]})
    hooks_path.write_text(json.dumps(h))
    with cfg.open("a") as f:
        f.write(f'\n[hooks.state."{hooks_path}:stop:2:0"]\ntrusted_hash = "sha256:later"\n')
    install_host("codex", uninstall=True, argv=ARGV)
    state = tomllib.loads(cfg.read_text())["hooks"]["state"]
    assert state == {f"{hooks_path}:stop:0:0": {"trusted_hash": "sha256:mine"},
                     f"{hooks_path}:stop:1:0": {"trusted_hash": "sha256:later"}}
    assert json.loads(hooks_path.read_text()) == {"hooks": {"Stop": [{"hooks": [mine]}, {"hooks": [later]}]}}


def test_codex_project_install_names_memdir_and_uninstall_leaves_nothing(home, tmp_path):
    proj = tmp_path / "proj"
    proj.mkdir()
    install_host("codex", project=proj)
    hooks = json.loads((proj / ".codex" / "hooks.json").read_text())["hooks"]
    assert hooks["Stop"][0]["hooks"][0]["command"] == "memdir hook codex stop"  # no machine path in the repo
    assert tomllib.loads((proj / ".codex" / "config.toml").read_text())["mcp_servers"]["memdir"]["command"] == "memdir"
    user = tomllib.loads((home / ".codex" / "config.toml").read_text())
    assert len(user["hooks"]["state"]) == 4 and "mcp_servers" not in user
    install_host("codex", project=proj, uninstall=True)
    assert not (proj / ".codex").exists()
    assert not (home / ".codex" / "config.toml").exists()


def test_codex_respects_codex_home_and_user_tables(home, tmp_path, monkeypatch):
    ch = tmp_path / "ch"
    ch.mkdir()
    monkeypatch.setenv("CODEX_HOME", str(ch))
    (ch / "config.toml").write_text('[mcp_servers.memdir]\ncommand = "my-memdir"\nargs = ["mcp"]\n')
    plan = install_host("codex", argv=ARGV)
    data = tomllib.loads((ch / "config.toml").read_text())
    assert data["mcp_servers"]["memdir"]["command"] == "my-memdir"  # the user's own entry is kept
    assert "features" not in data
    assert any("was kept" in n for n in plan.notes)
    assert not (home / ".codex").exists()


def test_codex_broken_toml_refused(home):
    cfg = home / ".codex" / "config.toml"
    cfg.parent.mkdir()
    cfg.write_text("model = \n")
    with pytest.raises(Exception, match="cannot parse"):
        install_host("codex", argv=ARGV)
    assert cfg.read_text() == "model = \n"
    # "nothing was changed" holds for hooks.json too: not created, and an existing one neither merged nor backed up
    assert sorted(p.name for p in cfg.parent.iterdir()) == ["config.toml"]
    hooks = cfg.parent / "hooks.json"
    hooks.write_text('{"hooks": {}}')
    for uninstall in (False, True):
        with pytest.raises(Exception, match="cannot parse"):
            install_host("codex", argv=ARGV, uninstall=uninstall)
        assert hooks.read_text() == '{"hooks": {}}'
        assert sorted(p.name for p in cfg.parent.iterdir()) == ["config.toml", "hooks.json"]
    cfg.write_bytes(b"model = \"\xff\xfe\"\n")  # not UTF-8: one line too, not a traceback
    with pytest.raises(Exception, match="cannot read"):
        install_host("codex", argv=ARGV)
    # a config.toml that parses but that memdir cannot edit is refused before hooks.json is written too
    for text, what in (('mcp_servers = "x"\n', "not a table"), ("[hooks]\nstate = 3\n", "not a table"),
                       ("hooks = 1\n", "not a table")):
        cfg.write_text(text)
        with pytest.raises(Exception, match=what):
            install_host("codex", argv=ARGV)
        assert hooks.read_text() == '{"hooks": {}}' and cfg.read_text() == text
        assert sorted(p.name for p in cfg.parent.iterdir()) == ["config.toml", "hooks.json"]


# ---- OpenCode ------------------------------------------------------------------------------------------------
def test_opencode_plugin_and_mcp(home):
    cfg_dir = home / ".config" / "opencode"
    cfg_dir.mkdir(parents=True)
    (cfg_dir / "opencode.json").write_text(json.dumps({"theme": "dark", "mcp": {"gh": {"type": "remote", "url": "http://x"}}}))
    install_host("opencode", argv=ARGV)
    plugin = cfg_dir / "plugins" / "memdir.js"
    text = plugin.read_text()
    assert PLUGIN_MARK in text and '["/opt/memdir/bin/memdir"]' in text
    assert 'export default { id: "memdir", setup, server };' in text
    data = json.loads((cfg_dir / "opencode.json").read_text())
    assert data["theme"] == "dark" and data["mcp"]["gh"]["url"] == "http://x"
    assert data["mcp"]["memdir"]["command"] == ["/opt/memdir/bin/memdir", "mcp"]
    before = snapshot(home)
    install_host("opencode", argv=ARGV)
    assert snapshot(home) == before
    install_host("opencode", uninstall=True, argv=ARGV)
    assert not plugin.exists()
    assert json.loads((cfg_dir / "opencode.json").read_text()) == {"theme": "dark", "mcp": {"gh": {"type": "remote", "url": "http://x"}}}


def test_opencode_jsonc_is_not_rewritten(home):
    cfg_dir = home / ".config" / "opencode"
    cfg_dir.mkdir(parents=True)
    jsonc = '{\n  // my theme\n  "theme": "dark",\n}\n'
    (cfg_dir / "opencode.jsonc").write_text(jsonc)
    plan = install_host("opencode", argv=ARGV)
    assert (cfg_dir / "opencode.jsonc").read_text() == jsonc
    manual = [c for c in plan.changes if c["action"] == "manual"]
    assert manual and '"memdir"' in manual[0]["detail"]


def test_opencode_foreign_plugin_file_kept(home):
    p = home / ".config" / "opencode" / "plugins" / "memdir.js"
    p.parent.mkdir(parents=True)
    p.write_text("export const Mine = async () => ({})\n")
    with pytest.raises(Exception, match="not written by memdir"):
        install_host("opencode", argv=ARGV)
    assert p.read_text().startswith("export const Mine")


def test_opencode_project_scope_and_legacy(home, tmp_path):
    proj = tmp_path / "proj"
    proj.mkdir()
    install_host("opencode", project=proj, argv=ARGV, legacy=True)
    text = (proj / ".opencode" / "plugins" / "memdir.js").read_text()
    assert "export const MemdirPlugin = server;" in text and "export default" not in text
    assert "memdir" in json.loads((proj / "opencode.json").read_text())["mcp"]


NODE_HARNESS = r"""
import plugin from "./memdir.mjs";
const hooks = await plugin.server({ directory: process.argv[2] });
await hooks["chat.message"]({ sessionID: "s1", messageID: "m1" }, { parts: [{ type: "text", text: "Which port does the staging database listen on?" }] });
await hooks["tool.execute.after"]({ tool: "bash", sessionID: "s1", callID: "c1", args: { command: "pg_isready -p 5433" } }, { output: "accepting connections" });
const out = { system: [] };
await hooks["experimental.chat.system.transform"]({ sessionID: "s1" }, out);
const reg = {};
await plugin.setup({ directory: process.argv[2], session: { hook: (n, f) => (reg["session." + n] = f) }, tool: { hook: (n, f) => (reg["tool." + n] = f) } });
const messages = [{ info: { role: "user" }, parts: [{ type: "text", text: "Where do the nightly backups go?" }] }];
const frozen = JSON.stringify(messages);
const ev = { sessionID: "s2", kind: "primary", messages, system: [] };
await reg["session.context"](ev);
await reg["tool.execute.after"]({ sessionID: "s2", tool: "read", callID: "c2", status: "completed", args: {}, output: "x" });
console.log(JSON.stringify({ v1: out.system, v2: ev.system, untouched: JSON.stringify(messages) === frozen, hooks: Object.keys(reg).sort() }));
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node to run the OpenCode plugin harness")
def test_opencode_plugin_runs_under_node_with_real_memdir(tmp_path):
    import memdir

    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    with memdir.open(proj) as m:
        m.remember("The staging database listens on port 5433.", category="facts")
    d = tmp_path / "oc"
    d.mkdir()
    (d / "memdir.mjs").write_text(render_plugin([sys.executable, "-m", "memdir.cli"], timeout_ms=60000))
    (d / "h.mjs").write_text(NODE_HARNESS)
    r = subprocess.run(["node", "h.mjs", str(proj)], cwd=d, capture_output=True, text=True, timeout=180)
    assert r.returncode == 0, r.stderr
    res = json.loads(r.stdout.strip().splitlines()[-1])
    assert res["hooks"] == ["session.context", "session.prompt", "tool.execute.after"]
    assert len(res["v1"]) == 1 and "5433" in res["v1"][0]
    assert res["v2"] and res["v2"][0]["type"] == "text" and res["v2"][0]["text"].startswith("<memory>")
    assert res["untouched"] is True
    # the plugin hands tool captures to a detached process that may outlive node: wait for it (bounded)
    import time

    deadline = time.monotonic() + 60
    while True:
        with memdir.open(proj) as m:
            if m.get("t:s1:c1") is not None or time.monotonic() > deadline:
                break
        time.sleep(0.2)
    with memdir.open(proj) as m:
        assert m.get("t:s1:c1") is not None            # v1 tool hook
        assert m.get("t:s2:c2") is None                # read is noise
        assert m.recall("nightly backups", kinds=["user"])  # v2 context fallback captured the user text


def test_unknown_host_is_usage_error(home):
    r = CliRunner().invoke(cli, ["install", "vscode"])
    assert r.exit_code == 2  # click's own usage error


# ---- doctor: memdir hooks a host will not run ----------------------------------------------------------------
def test_doctor_names_hooks_a_host_will_not_run(home, tmp_path):
    from memdir.hosts.host_checks import host_checks

    exe = tmp_path / "bin" / "memdir"
    exe.parent.mkdir()
    exe.write_text("#!/bin/sh\n")
    exe.chmod(0o755)  # a host runs it: a file without the execute bit is reported as such
    install_host("codex", argv=[str(exe)])
    assert [c["ok"] for c in host_checks() if c["check"].startswith("codex")] == ["ok"]
    cfg = home / ".codex" / "config.toml"
    text = cfg.read_text()
    cfg.write_text(text.replace("sha256:", "sha256:0", 1) + "\n[features]\ncodex_hooks = true\n")
    bad = {c["check"]: c for c in host_checks()}
    assert bad["codex user SessionStart"]["ok"] == "fail" and "changed since it was trusted" in bad["codex user SessionStart"]["detail"]
    assert bad["codex features"]["ok"] == "warn"
    # an old-style async Claude Code hook
    s = home / ".claude" / "settings.json"
    s.parent.mkdir()
    s.write_text(json.dumps({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": f"{exe} hook claude-code stop", "async": True}]}]}}))
    c = {c["check"]: c for c in host_checks()}["claude-code user Stop"]
    assert c["ok"] == "warn" and "async" in c["detail"]


def test_a_global_root_given_at_install_is_the_one_every_host_call_uses(home, tmp_path):
    """`memdir --home DIR install HOST` registered `memdir hook …` and `memdir mcp` without it: the host's calls read
    the default global root, and the notes in DIR never reached a block."""
    groot = tmp_path / "notes-home"
    r = CliRunner().invoke(cli, ["--home", str(groot), "install", "claude-code", "--command", ARGV[0]])
    assert r.exit_code == 0, r.output
    settings = json.loads((home / ".claude" / "settings.json").read_text(encoding="utf-8"))
    commands = [h["command"] for groups in settings["hooks"].values() for g in groups for h in g["hooks"]]
    assert commands and all(c.startswith(f"{ARGV[0]} --home {groot} hook claude-code ") for c in commands)
    mcp = json.loads((home / ".claude.json").read_text(encoding="utf-8"))["mcpServers"]["memdir"]
    assert mcp["command"] == ARGV[0] and mcp["args"] == ["--home", str(groot), "mcp"]
    # installed again without it: the entries are replaced, not doubled
    r = CliRunner().invoke(cli, ["install", "claude-code", "--command", ARGV[0]])
    settings = json.loads((home / ".claude" / "settings.json").read_text(encoding="utf-8"))
    commands = [h["command"] for groups in settings["hooks"].values() for g in groups for h in g["hooks"]]
    assert len(commands) == len(set(commands)) and not any("--home" in c for c in commands)
    for host in ("codex", "opencode"):
        assert CliRunner().invoke(cli, ["--home", str(groot), "install", host, "--command", ARGV[0]]).exit_code == 0
    assert '"--home", "' + str(groot) in (home / ".codex" / "config.toml").read_text(encoding="utf-8")
    assert str(groot) in (home / ".config" / "opencode" / "plugins" / "memdir.js").read_text(encoding="utf-8")
    # a project's settings are committed and shared: a path of this machine is not written there, the user is told
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    r = CliRunner().invoke(cli, ["--home", str(groot), "--dir", str(proj), "install", "claude-code", "--project"])
    assert r.exit_code == 0 and "MEMDIR_HOME" in r.output, r.output
    assert str(groot) not in (proj / ".claude" / "settings.json").read_text(encoding="utf-8")


def test_doctor_s_fix_for_a_project_s_memdir_not_on_path_is_not_install_again(home, tmp_path, monkeypatch):
    """A project's settings run the bare `memdir`; when the host cannot find it, `memdir install HOST --project` again
    changes nothing ("unchanged"), which is what doctor used to advise: it now says to put memdir on the host's PATH
    or to register this memdir's path."""
    from memdir.hosts.host_checks import host_checks

    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))  # no memdir on it
    for host in ("claude-code", "codex", "opencode"):
        install_host(host, project=proj)
    fails = [c for c in host_checks(proj) if c["ok"] == "fail" and "project" in c["check"]]
    assert {c["check"].split()[0] for c in fails} == {"claude-code", "codex", "opencode"}
    for c in fails:
        assert "install" in c["remedy"] and "--command" in c["remedy"] and "PATH" in c["remedy"], c


@pytest.mark.skipif(os.name == "nt", reason="POSIX modes")
def test_files_install_creates_in_the_user_s_config_are_private_and_a_project_s_are_not(home, tmp_path):
    """`~/.claude.json` created by memdir was 0644; Claude Code later writes the user's login into it and keeps the
    mode. The project's files are committed and shared: the umask's mode."""
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    for host in ("claude-code", "codex", "opencode"):
        install_host(host, argv=ARGV)
        install_host(host, project=proj, argv=ARGV)
    mine = [p for p in home.rglob("*") if p.is_file() and "memdir-backup" not in p.name]
    assert {p.name for p in mine} >= {".claude.json", "settings.json", "config.toml", "hooks.json", "memdir.js"}
    assert all(p.stat().st_mode & 0o077 == 0 for p in mine), [(p, oct(p.stat().st_mode)) for p in mine]
    theirs = [p for p in proj.rglob("*") if p.is_file() and ".git" not in p.parts]
    umask = os.umask(0)
    os.umask(umask)
    assert theirs and all(p.stat().st_mode & 0o777 == 0o666 & ~umask for p in theirs)
    dotted = home / ".dotfiles" / "proj"  # a checkout kept in a dot-folder of home is still a project: shared
    (dotted / ".git").mkdir(parents=True)
    install_host("claude-code", project=dotted, argv=ARGV)
    assert (dotted / ".mcp.json").stat().st_mode & 0o777 == 0o666 & ~umask
    existing = home / ".claude" / "settings.json"
    existing.chmod(0o640)
    install_host("claude-code", argv=["/other/memdir"])  # an update keeps the user's own mode
    assert existing.stat().st_mode & 0o777 == 0o640


def test_doctor_warns_when_the_user_s_and_the_project_s_settings_both_run_memdir(home, tmp_path):
    """Claude Code and Codex run the hooks of both scopes: with memdir in each, every prompt was captured and injected
    twice while doctor said both were ok."""
    from memdir.hosts.host_checks import host_checks

    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    install_host("claude-code", argv=ARGV)
    assert not [c for c in host_checks(proj) if c["check"] == "claude-code hooks"]
    install_host("claude-code", project=proj, argv=ARGV)
    [warn] = [c for c in host_checks(proj) if c["check"] == "claude-code hooks"]
    assert warn["ok"] == "warn" and "twice" in warn["detail"] and "--uninstall" in warn["remedy"]


def test_doctor_warns_when_opencode_has_memdirs_plugin_in_both_places(home, tmp_path):
    """OpenCode loads the plugins of the user's config folder and of the project: memdir's in both captures and
    injects every prompt twice, as for Claude Code and Codex, and doctor says so."""
    from memdir.hosts.host_checks import host_checks

    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    exe = tmp_path / "bin" / "memdir"
    exe.parent.mkdir()
    exe.write_text("#!/bin/sh\n")
    install_host("opencode", argv=[str(exe)])
    assert not [c for c in host_checks(proj) if c["check"] == "opencode hooks"]
    install_host("opencode", project=proj, argv=[str(exe)])
    twice = [c for c in host_checks(proj) if c["check"] == "opencode hooks"]
    assert twice and twice[0]["ok"] == "warn" and "twice" in twice[0]["detail"]


@pytest.mark.parametrize("host", ["claude-code", "codex", "opencode"])
def test_a_project_install_says_when_the_user_s_install_would_run_too(home, tmp_path, host):
    """`memdir install claude-code --project` said that the user's own install would make each prompt captured and
    injected twice; codex and opencode said nothing (only doctor did, later)."""
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    assert not [n for n in install_host(host, project=proj, argv=ARGV).notes if "twice" in n]  # no user install
    install_host(host, project=proj, argv=ARGV, uninstall=True)
    install_host(host, argv=ARGV)
    plan = install_host(host, project=proj, argv=ARGV)
    assert [n for n in plan.notes if "twice" in n and "--uninstall" in n], plan.notes


def test_install_with_memdir_home_set_here_says_the_hooks_do_not_carry_it(home, tmp_path, monkeypatch):
    """A user who set MEMDIR_HOME in a shell and ran install got hooks without it: a host started elsewhere (a
    desktop launcher, another terminal) read the default global root, and nothing said so."""
    monkeypatch.setenv("MEMDIR_HOME", str(tmp_path / "my notes"))
    r = subprocess.run([sys.executable, "-m", "memdir.cli", "install", "claude-code", "--dry-run", "--command", ARGV[0]],
                       capture_output=True, text=True, env={**os.environ})
    assert r.returncode == 0 and "MEMDIR_HOME is set here" in r.stderr and "--home" in r.stderr, r.stderr
    assert len([ln for ln in r.stderr.splitlines() if "MEMDIR_HOME" in ln]) == 1
    r = subprocess.run([sys.executable, "-m", "memdir.cli", "--home", str(tmp_path / "my notes"), "install",
                        "claude-code", "--dry-run", "--command", ARGV[0]], capture_output=True, text=True)
    assert "MEMDIR_HOME is set here" not in r.stderr  # given to install: written into the hooks
