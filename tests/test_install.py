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

from memdir.adapters.opencode import PLUGIN_MARK, render_plugin
from memdir.cli import cli
from memdir.install import install_host

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
    assert stop_entry["async"] is True and stop_entry["timeout"] > 0
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
    assert json.loads((proj / ".claude" / "settings.json").read_text()) == {}


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
    cfg.write_text('model = "gpt-5-codex"\n\n[features]\nweb_search = true\n\n[mcp_servers.gh]\ncommand = "gh-mcp"\n')
    install_host("codex", argv=ARGV)
    data = tomllib.loads(cfg.read_text())
    assert data["model"] == "gpt-5-codex" and data["features"] == {"web_search": True, "codex_hooks": True}
    assert data["mcp_servers"]["memdir"] == {"command": "/opt/memdir/bin/memdir", "args": ["mcp"], "startup_timeout_sec": 20}
    assert data["mcp_servers"]["gh"] == {"command": "gh-mcp"}
    hooks = json.loads((home / ".codex" / "hooks.json").read_text())["hooks"]
    assert set(hooks) == {"SessionStart", "UserPromptSubmit", "PostToolUse", "Stop"}
    assert hooks["UserPromptSubmit"][0]["hooks"][0]["command"] == "/opt/memdir/bin/memdir hook codex user-prompt"

    before = snapshot(home)
    install_host("codex", argv=ARGV)
    assert snapshot(home) == before

    install_host("codex", uninstall=True, argv=ARGV)
    after = tomllib.loads(cfg.read_text())
    assert after == {"model": "gpt-5-codex", "features": {"web_search": True}, "mcp_servers": {"gh": {"command": "gh-mcp"}}}
    assert json.loads((home / ".codex" / "hooks.json").read_text()) == {}


def test_codex_respects_codex_home_and_user_tables(home, tmp_path, monkeypatch):
    ch = tmp_path / "ch"
    ch.mkdir()
    monkeypatch.setenv("CODEX_HOME", str(ch))
    (ch / "config.toml").write_text('[mcp_servers.memdir]\ncommand = "my-memdir"\nargs = ["mcp"]\n')
    plan = install_host("codex", argv=ARGV)
    data = tomllib.loads((ch / "config.toml").read_text())
    assert data["mcp_servers"]["memdir"]["command"] == "my-memdir"  # the user's own entry is kept
    assert data["features"]["codex_hooks"] is True
    assert any("already exists" in n for n in plan.notes)
    assert not (home / ".codex").exists()


def test_codex_broken_toml_refused(home):
    cfg = home / ".codex" / "config.toml"
    cfg.parent.mkdir()
    cfg.write_text("model = \n")
    with pytest.raises(Exception, match="cannot parse"):
        install_host("codex", argv=ARGV)
    assert cfg.read_text() == "model = \n"


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
    with memdir.open(proj) as m:
        assert m.get("t:s1:c1") is not None            # v1 tool hook
        assert m.get("t:s2:c2") is None                # read is noise
        assert m.recall("nightly backups", kinds=["user"])  # v2 context fallback captured the user text


def test_unknown_host_is_usage_error(home):
    r = CliRunner().invoke(cli, ["install", "vscode"])
    assert r.exit_code == 2  # click's own usage error
