"""macOS: the global root is one place for the CLI, the in-process hook and the thin hook client that looks for a
warm server's socket, whatever platformdirs release is installed. With ``XDG_DATA_HOME`` set (common on a Mac with
shared dotfiles) platformdirs put the root at ``$XDG_DATA_HOME/memdir`` while the hook client looked under
``~/Library/Application Support/memdir``: every hook missed ``memdir serve`` and paid a cold start."""

import sys

import pytest

from memdir.hosts import hookclient
from memdir.roots import global_root


@pytest.fixture
def darwin(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "platform", "darwin")
    monkeypatch.setenv("HOME", str(tmp_path / "Users" / "ann"))
    monkeypatch.delenv("MEMDIR_HOME", raising=False)
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    return tmp_path / "Users" / "ann"


def test_on_macos_the_root_is_under_library_application_support(darwin):
    want = darwin / "Library" / "Application Support" / "memdir"
    assert global_root() == want
    assert hookclient.global_root(None) == str(want)


def test_on_macos_an_absolute_xdg_data_home_is_one_place_for_cli_and_hook_client(darwin, tmp_path, monkeypatch):
    from platformdirs.macos import MacOS  # what platformdirs itself says on a Mac

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert global_root() == tmp_path / "xdg" / "memdir" == __import__("pathlib").Path(MacOS("memdir", appauthor=False).user_data_dir)
    assert hookclient.global_root(None) == str(global_root())
    assert hookclient.socket_path() == str(tmp_path / "xdg" / "memdir" / ".memdir" / "hook.sock")


@pytest.mark.parametrize("platform", ["darwin", "linux"])
def test_a_relative_or_blank_xdg_data_home_is_unset_for_both(darwin, tmp_path, monkeypatch, platform):
    monkeypatch.setattr(sys, "platform", platform)
    monkeypatch.chdir(tmp_path)
    default = global_root()
    for value in ("rel/data", " ", ""):
        monkeypatch.setenv("XDG_DATA_HOME", value)
        assert global_root() == default
        assert hookclient.global_root(None) == str(default)


def test_linux_keeps_its_xdg_rule(darwin, tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "platform", "linux")
    assert global_root() == darwin / ".local" / "share" / "memdir"
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert global_root() == tmp_path / "xdg" / "memdir"
    assert hookclient.global_root(None) == str(global_root())
