"""`memdir install HOST` again without `--home`, over hooks installed with `--home DIR`: the hooks then read the
default global root and the memories in DIR seem gone. The reinstall says so in one warning line naming DIR and the
command that keeps it, for each host's hook format."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from memdir.cli.main import cli
from memdir.hosts.install import install_host

ARGV = ["/opt/memdir/bin/memdir"]
HOSTS = ("claude-code", "codex", "opencode", "dsh")


@pytest.fixture
def home(tmp_path, monkeypatch):
    h = tmp_path / "home"
    h.mkdir()
    monkeypatch.setenv("HOME", str(h))
    monkeypatch.setenv("USERPROFILE", str(h))
    for k in ("CODEX_HOME", "DSH_HOME", "XDG_CONFIG_HOME", "MEMDIR_HOME"):
        monkeypatch.delenv(k, raising=False)
    return h


@pytest.mark.parametrize("host", HOSTS)
def test_reinstall_without_home_warns_naming_the_old_home(home, tmp_path, host):
    groot = tmp_path / "my notes"
    r = CliRunner().invoke(cli, ["--home", str(groot), "install", host, "--command", ARGV[0]])
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(cli, ["install", host, "--command", ARGV[0]])
    assert r.exit_code == 0, r.output
    lines = [ln for ln in r.output.splitlines() if str(groot) in ln]
    assert len(lines) == 1, r.output
    assert lines[0].startswith("warning:") and f"memdir --home '{groot}' install {host}" in lines[0], lines[0]
    # the same in --dry-run (nothing written) and in the plan's JSON
    CliRunner().invoke(cli, ["--home", str(groot), "install", host, "--command", ARGV[0]])
    plan = install_host(host, argv=ARGV, dry_run=True)
    assert any(str(groot) in w for w in plan.warnings), plan.warnings
    r = CliRunner().invoke(cli, ["--json", "install", host, "--command", ARGV[0]])
    assert any(str(groot) in w for w in json.loads(r.stdout)["warnings"]), r.output


@pytest.mark.parametrize("host", HOSTS)
def test_no_warning_when_the_home_is_kept_or_there_was_none(home, tmp_path, host):
    groot = tmp_path / "g"
    assert not install_host(host, argv=ARGV).warnings  # first install
    assert not install_host(host, argv=ARGV).warnings  # again, no --home either time
    assert not install_host(host, argv=ARGV, home=groot).warnings  # adding one drops nothing
    assert not install_host(host, argv=ARGV, home=groot).warnings  # the same one again
    assert not install_host(host, argv=ARGV, uninstall=True).warnings  # an uninstall removes it on purpose


def test_a_home_written_as_one_word_is_found_too(home, tmp_path):
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir()
    cmd = f"{ARGV[0]} --home={tmp_path / 'x'} hook claude-code stop"
    settings.write_text(json.dumps({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": cmd}]}]}}))
    plan = install_host("claude-code", argv=ARGV)
    assert len(plan.warnings) == 1 and str(tmp_path / "x") in plan.warnings[0]
