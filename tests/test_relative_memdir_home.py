"""A relative MEMDIR_HOME is one place (under the home directory), not a folder of whatever directory a command
runs in: personal notes never land inside a checkout."""

from memdir.roots import global_root


def test_a_relative_memdir_home_is_under_the_home_directory(tmp_path, monkeypatch):
    home = tmp_path / "h"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("MEMDIR_HOME", "relhome")
    for cwd in (tmp_path, home):
        monkeypatch.chdir(cwd)
        assert global_root() == home / "relhome"
    monkeypatch.setenv("MEMDIR_HOME", str(tmp_path / "abs"))
    assert global_root() == tmp_path / "abs"
    assert global_root("given") == cwd / "given"  # --home as typed: relative to where it is typed


def test_the_hook_client_finds_the_same_root(tmp_path, monkeypatch):
    from memdir.hosts import hookclient, warm

    monkeypatch.setenv("HOME", str(tmp_path / "h"))
    monkeypatch.setenv("MEMDIR_HOME", "mem")
    monkeypatch.chdir(tmp_path)
    assert hookclient.global_root(None) == str(global_root())
    assert hookclient.socket_path() == str(warm.socket_path(global_root()))


def test_a_blank_memdir_home_or_home_option_is_unset(tmp_path, monkeypatch):
    """MEMDIR_HOME=" " (a blank line in an env file, a quoted empty expansion) made a folder named " " under the home
    directory, and --home " " one in the working directory: personal notes in a folder no one sees. Blank is unset,
    as an empty value already was; the hook client agrees."""
    from memdir.hosts import hookclient

    home = tmp_path / "h"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MEMDIR_HOME", str(tmp_path / "abs"))
    assert global_root(" ") == global_root("\t") == tmp_path / "abs"
    assert hookclient.global_root(" ") == str(tmp_path / "abs")
    for blank in (" ", "\n", ""):
        monkeypatch.setenv("MEMDIR_HOME", blank)
        assert global_root() == global_root(None)
        assert blank.strip() == "" and global_root().name == "memdir" and global_root().parent != home
        assert hookclient.global_root(None) == str(global_root())
