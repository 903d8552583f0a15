"""doctor's advice for recall by meaning names the install command the README uses for this installation (a clone's
folder, `pip install -e '<folder>[multilingual]'`), as status and backfill do: never a package-index name a clone's
user cannot install."""

from __future__ import annotations

from conftest import run_cli

from memdir.errors import install_hint


def test_doctor_names_this_installations_command_for_the_multilingual_extra(project, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("MEMDIR_HOME", str(tmp_path / "g"))
    code, out, err = run_cli(capsys, "--dir", str(project), "doctor")
    text = out + err
    assert "embed.provider is none" in text
    assert install_hint("multilingual") in text, text
