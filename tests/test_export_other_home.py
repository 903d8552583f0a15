"""A Claude Code ``/export`` made on another machine names its directory as ``~olduser/…``: a user this machine does
not have. ``~user`` could not be expanded and the import stopped with an internal error, taking every other file of a
directory import with it; such a directory is unknown here, and the session is imported like any other."""

from __future__ import annotations

import memdir
from memdir.portability import routing
from memdir.portability.importers.claude_export import locate_cwd

EXPORT = "│ ~olduser-not-here/work/app │\n\n> why does the build fail on CI\n\n● Because CI runs with a clean cache.\n"


def test_a_home_of_an_unknown_user_is_an_unknown_directory(tmp_path):
    assert locate_cwd("~olduser-not-here/work/app", tmp_path / "x.txt") is None
    assert routing.resolve("~olduser-not-here/work/app", tmp_path) == (None, "cwd_missing")


def test_the_export_is_imported(tmp_path):
    (tmp_path / "p" / ".git").mkdir(parents=True)
    d = tmp_path / "exports"
    d.mkdir()
    (d / "a.txt").write_text(EXPORT, encoding="utf-8")
    (d / "b.txt").write_text(EXPORT.replace("~olduser-not-here/work/app", "/srv/app").replace("CI", "staging"),
                             encoding="utf-8")
    from memdir.portability.transcripts import import_host

    with memdir.open(tmp_path / "p", home=tmp_path / "g") as m:
        out = import_host(m, "claude-export", d, projects="here", progress=False)
        assert out["stored"] >= 4, out
        assert m.recall("clean cache CI", k=3)


def test_a_home_of_an_unknown_user_typed_by_a_person_is_a_one_line_error(tmp_path):
    import pytest

    from memdir.errors import PathError
    from memdir.roots import global_root, project_root

    for call in (lambda: global_root("~olduser-not-here/mem"), lambda: project_root("~olduser-not-here/app")):
        with pytest.raises(PathError, match="no user's home on this machine"):
            call()
    import subprocess
    import sys

    (tmp_path / "p" / ".git").mkdir(parents=True)
    r = subprocess.run([sys.executable, "-m", "memdir", "--home", str(tmp_path / "g"), "import", "claude-code",
                        "~olduser-not-here/x"], capture_output=True, text=True, cwd=tmp_path / "p", timeout=60)
    assert r.returncode == 2 and "no user's home" in r.stderr and "internal error" not in r.stderr, r.stderr


def test_a_host_home_of_an_unknown_user_is_a_one_line_error(monkeypatch):
    import pytest

    from memdir.errors import PathError
    from memdir.hosts import install_codex, install_dsh, install_opencode
    from memdir.portability.importers import dsh

    for var, call in (("CODEX_HOME", install_codex.codex_home), ("DSH_HOME", install_dsh.dsh_home),
                      ("XDG_CONFIG_HOME", install_opencode.opencode_config_dir), ("DSH_HOME", dsh.sessions_root)):
        monkeypatch.setenv(var, "~olduser-not-here/x")
        with pytest.raises(PathError, match="no user's home"):
            call()
        monkeypatch.delenv(var)


def test_a_host_home_written_with_a_tilde_is_found(tmp_path, monkeypatch):
    """CODEX_HOME='~/alt' (as a shell profile may write it): install expanded it, the importer's default location
    did not, and found no sessions."""
    from memdir.portability.importers.discover import default_locations

    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("CODEX_HOME", "~/alt")
    assert default_locations("codex", env={"CODEX_HOME": "~/alt"}, home=tmp_path)[0] == tmp_path / "alt" / "sessions"
