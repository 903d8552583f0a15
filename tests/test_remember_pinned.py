"""``remember.pinned``: seed 001 pins what a person saves by hand; memdir does not by default, and this setting
restores the seed's behaviour at both doors (the CLI and MCP ``memory_remember``), while an explicit choice wins."""

from __future__ import annotations

import json

from click.testing import CliRunner

import memdir
from memdir.cli.main import cli
from memdir.server.tools import do_remember


def run(project, home, *args):
    r = CliRunner().invoke(cli, ["--dir", str(project), "--home", str(home), "--json", *args])
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


def test_the_cli_follows_the_setting_and_an_explicit_flag_wins(project, tmp_path):
    home = tmp_path / "g"
    assert run(project, home, "remember", "plain save stays unpinned")["pinned"] is False
    (project / ".memory").mkdir(exist_ok=True)
    (project / ".memory" / "config.toml").write_text("[remember]\npinned = true\n", encoding="utf-8")
    assert run(project, home, "remember", "a save by hand is pinned now")["pinned"] is True
    assert run(project, home, "remember", "--unpinned", "unless the call says otherwise")["pinned"] is False


def test_mcp_remember_follows_the_setting(project, tmp_path):
    m = memdir.open(project, home=tmp_path / "g", config={"remember.pinned": True})
    assert do_remember(m, "the agent saved this at the user's word")["note"]["pinned"] is True
    assert do_remember(m, "and this one explicitly not", pinned=False)["note"]["pinned"] is False
    m2 = memdir.open(project, home=tmp_path / "g")
    assert do_remember(m2, "default door, default setting")["note"]["pinned"] is False
