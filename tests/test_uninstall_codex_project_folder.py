"""`memdir install codex --project` records the trust of the project's hooks in the user's ~/.codex/config.toml,
making ~/.codex when there was none; `--uninstall --project` removed that config.toml again but left ~/.codex behind
empty. The emptied folder goes too; a ~/.codex holding anything else (Codex's own files) stays."""

import subprocess

from memdir.hosts.install import install_host


def test_a_project_uninstall_removes_the_user_codex_folder_its_install_made(tmp_path, monkeypatch):
    home = tmp_path / "h"
    home.mkdir()
    proj = tmp_path / "p"
    proj.mkdir()
    subprocess.run(["git", "init", "-q", str(proj)], check=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CODEX_HOME", raising=False)
    argv = [str(tmp_path / "memdir")]
    install_host("codex", argv=argv, project=proj)
    assert (home / ".codex" / "config.toml").is_file()
    install_host("codex", argv=argv, project=proj, uninstall=True)
    assert not (home / ".codex").exists()
    assert not (proj / ".codex").exists()
    install_host("codex", argv=argv, project=proj)
    (home / ".codex" / "auth.json").write_text("{}\n", encoding="utf-8")
    install_host("codex", argv=argv, project=proj, uninstall=True)
    assert (home / ".codex" / "auth.json").is_file()
