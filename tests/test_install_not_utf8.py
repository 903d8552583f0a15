"""A host settings file that is not UTF-8 text (saved in another encoding, or damaged) stops `memdir install` (and
`--uninstall`) with one line naming the file and exit 2, nothing changed, as a file that is not JSON or TOML does; it
was `memdir: internal error: UnicodeDecodeError: …` with exit 1, and `memdir doctor` stopped the same way instead of
reporting the file as a failed check."""

from __future__ import annotations

import json
import os

import pytest

from memdir.cli.main import main

BAD = b'{"theme": "caf\xe9"}\n'  # Latin-1, not UTF-8


@pytest.fixture
def home(tmp_path, monkeypatch):
    h = tmp_path / "home"
    h.mkdir()
    monkeypatch.setenv("HOME", str(h))
    for k in ("CODEX_HOME", "DSH_HOME", "XDG_CONFIG_HOME"):
        monkeypatch.delenv(k, raising=False)
    proj = tmp_path / "proj"
    proj.mkdir()
    monkeypatch.chdir(proj)
    return h


def _run(capsys, *args) -> tuple[int, str]:
    with pytest.raises(SystemExit) as exc:
        main(["--home", str(os.environ["HOME"]) + "/g", *args])
    return exc.value.code or 0, capsys.readouterr().err


CASES = [
    ("claude-code", ".claude/settings.json", BAD),
    ("claude-code", ".claude.json", BAD),
    ("codex", ".codex/hooks.json", BAD),
    ("codex", ".codex/config.toml", b'model = "caf\xe9"\n'),
    ("opencode", ".config/opencode/opencode.json", BAD),
    ("dsh", ".dsh/hooks.json", BAD),
    ("dsh", ".dsh/cordis.patch.yml", b"# caf\xe9\n"),
]


@pytest.mark.parametrize("host,rel,data", CASES)
@pytest.mark.parametrize("uninstall", [False, True])
def test_a_settings_file_not_utf8_is_a_one_line_usage_error(home, capsys, host, rel, data, uninstall):
    path = home / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    code, err = _run(capsys, "install", host, *(["--uninstall"] if uninstall else []))
    lines = err.strip().splitlines()
    assert code == 2, err
    assert len(lines) == 1 and lines[0].startswith("memdir: error:"), err
    assert "internal error" not in err and str(path) in err and "UTF-8" in err
    assert path.read_bytes() == data  # nothing changed
    assert not list(path.parent.glob(path.name + ".memdir-backup-*"))


@pytest.mark.parametrize("host,rel", [("claude-code", ".claude/settings.json"), ("codex", ".codex/hooks.json"),
                                      ("dsh", ".dsh/hooks.json")])
def test_doctor_reports_a_hooks_file_not_utf8_as_a_failed_check(home, capsys, host, rel):
    path = home / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(BAD)
    try:
        main(["--home", str(home / "g"), "--json", "doctor"])
    except SystemExit:
        pass
    cap = capsys.readouterr()
    assert "internal error" not in cap.err, cap.err
    checks = json.loads(cap.out)
    failed = [c for c in checks if c["ok"] == "fail" and str(path) in c["detail"]]
    assert failed, checks


@pytest.mark.parametrize("host,rel", [(h, r) for h, r, _ in CASES])
@pytest.mark.parametrize("uninstall", [False, True])
def test_a_settings_path_that_is_a_directory_is_a_one_line_usage_error(home, capsys, host, rel, uninstall):
    """A folder where the settings file belongs: `memdir: error: Is a directory: …`, exit 1, for Claude Code and
    OpenCode (Codex's config.toml already said `cannot read … nothing was changed`, exit 2)."""
    path = home / rel
    path.mkdir(parents=True)
    before = sorted(p.relative_to(home) for p in home.rglob("*"))
    code, err = _run(capsys, "install", host, *(["--uninstall"] if uninstall else []))
    lines = err.strip().splitlines()
    assert code == 2, err
    assert len(lines) == 1 and lines[0].startswith("memdir: error:") and str(path) in err, err
    assert "nothing was changed" in err
    assert sorted(p.relative_to(home) for p in home.rglob("*")) == before
