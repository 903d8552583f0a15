"""A config.toml that is not a plain file: a link into a dotfiles folder is read through; a link to nothing (the
dotfiles checkout moved or not yet cloned) is said in one warning line, not ignored without a word."""

import logging

import memdir
from memdir import config as config_mod


def _open(project, tmp_path, caplog):
    config_mod._SAID.clear()  # warnings are said once per process
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="memdir"):
        with memdir.open(project, home=tmp_path / "g") as m:
            value = m.config.get("inject.max_chars")
    return value, [r.getMessage() for r in caplog.records]


def test_a_config_linked_from_dotfiles_is_read(project, tmp_path, caplog):
    target = tmp_path / "dotfiles" / "memdir.toml"
    target.parent.mkdir()
    target.write_text("[inject]\nmax_chars = 900\n", encoding="utf-8")
    (project / ".memory").mkdir(exist_ok=True)
    (project / ".memory" / "config.toml").symlink_to(target)
    value, said = _open(project, tmp_path, caplog)
    assert value == 900 and not [s for s in said if "config.toml" in s]


def test_a_config_linked_to_nothing_is_said(project, tmp_path, caplog):
    (project / ".memory").mkdir(exist_ok=True)
    link = project / ".memory" / "config.toml"
    link.symlink_to(tmp_path / "dotfiles" / "memdir.toml")
    value, said = _open(project, tmp_path, caplog)
    assert value == 1200
    lines = [s for s in said if "config.toml" in s]
    assert len(lines) == 1 and "memdir.toml" in lines[0] and "does not exist" in lines[0], said
    assert link.is_symlink()  # left as it is
    (tmp_path / "g").mkdir(exist_ok=True)
    (tmp_path / "g" / "config.toml").symlink_to(tmp_path / "nowhere.toml")
    value, said = _open(project, tmp_path, caplog)
    assert any(str(tmp_path / "g" / "config.toml") in s and "does not exist" in s for s in said), said


def test_a_table_declared_twice_says_every_setting_is_ignored_and_how_to_fix_it(project, tmp_path, caplog):
    """Two README snippets pasted one after the other declare [recall] twice: TOML refuses the whole file. The one
    line says that all of it is ignored and how to mend it."""
    (project / ".memory").mkdir(exist_ok=True)
    (project / ".memory" / "config.toml").write_text(
        "[inject]\nmax_chars = 900\n[recall]\nk = 3\n[recall]\nchannel = \"lexical\"\n", encoding="utf-8")
    value, said = _open(project, tmp_path, caplog)
    assert value == 1200
    lines = [s for s in said if "config.toml" in s]
    assert len(lines) == 1 and "every setting in it" in lines[0] and "one [table] heading" in lines[0], said
