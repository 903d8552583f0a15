"""Siblings of C11: the same project root wherever a command starts inside a project, one store per project, the
global root never mistaken for a project.

Before: a project reached through a link to one of its subdirectories opened a second store there; a ``.memory/``
a hook had made in the home directory, at ``/`` or in ``/tmp`` became the project of every directory below it
without a marker (another user's store, in ``/tmp``), and so did a global root named ``.memory``; a global root that
is the project's ``.memory/`` (``MEMDIR_HOME`` pointing there) listed every note twice."""

from __future__ import annotations

import os

import pytest

import memdir


@pytest.mark.parametrize("with_git", [True, False])
def test_a_project_reached_through_a_link_is_one_store(tmp_path, with_git):
    real = tmp_path / "real"
    (real / "sub" / "dir").mkdir(parents=True)
    if with_git:
        (real / ".git").mkdir()
    (tmp_path / "short").symlink_to(real / "sub" / "dir")
    (tmp_path / "whole").symlink_to(real)
    home = tmp_path / "g"
    with memdir.open(real, home=home) as a:
        a.remember("the staging database is called orca")
    for start in (tmp_path / "short", tmp_path / "whole" / "sub", real / "sub" / "dir"):
        with memdir.open(start, home=home) as b:
            assert b.project_root == real, start
            assert [h.text for h in b.recall("orca")] == ["the staging database is called orca"]
    assert not (real / "sub" / "dir" / ".memory").exists()


def test_a_start_inside_the_memory_folder_is_its_project_even_through_a_linked_folder(tmp_path):
    proj, kept = tmp_path / "proj", tmp_path / "dotfiles" / "proj-memory"
    (kept / "facts").mkdir(parents=True)
    (tmp_path / "dotfiles" / ".git").mkdir()  # the linked folder lies in another repository
    proj.mkdir()
    (proj / ".memory").symlink_to(kept)
    assert memdir.roots.project_root(proj / ".memory" / "facts") == proj
    assert memdir.roots.project_root(proj / ".memory") == proj


def test_a_memory_folder_in_the_home_directory_or_a_shared_one_is_no_project_of_the_folders_below(
        tmp_path, monkeypatch):
    user_home, shared = tmp_path / "home", tmp_path / "shared"
    for d in (user_home, shared):
        (d / "scratch" / "deep").mkdir(parents=True)
        (d / ".memory").mkdir()  # as a hook fired in that directory leaves it
    os.chmod(shared, 0o1777)  # like /tmp: anyone may make a .memory there
    monkeypatch.setenv("HOME", str(user_home))
    for d in (user_home, shared):
        assert memdir.roots.project_root(d / "scratch" / "deep") == d / "scratch" / "deep"
        assert memdir.roots.project_root(d) == d  # a command run there itself still has it
    ordinary = tmp_path / "code" / "proj"
    (ordinary / "sub").mkdir(parents=True)
    (ordinary / ".memory").mkdir()
    assert memdir.roots.project_root(ordinary / "sub") == ordinary  # a project's own .memory/ still marks it


def test_a_global_root_named_memory_is_no_project_of_the_folders_below_it(tmp_path, monkeypatch):
    base = tmp_path / "base"
    (base / "bare" / "dir").mkdir(parents=True)
    home = base / ".memory"
    monkeypatch.setenv("MEMDIR_HOME", str(home))
    with memdir.open(base / "bare" / "dir") as m:
        m.remember("a global preference for tabs", scope="global")
        assert m.project_root == base / "bare" / "dir"
        assert [n.scope for n in m.inspect().notes] == ["global"]
    with memdir.open(base / "bare" / "dir") as m:  # the global root exists now
        assert m.project_root == base / "bare" / "dir"
        assert [n.scope for n in m.inspect().notes] == ["global"]


def test_a_global_root_that_is_the_projects_memory_folder_is_one_store(tmp_path, monkeypatch):
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    monkeypatch.setenv("MEMDIR_HOME", str(proj / ".memory"))
    (proj / "sub").mkdir()
    with memdir.open(proj / "sub") as m:
        m.remember("alpha note about the proxy")
        m.remember("delta note about the proxy", scope="global")
        assert sorted(h.text for h in m.recall("proxy")) == ["alpha note about the proxy", "delta note about the proxy"]
        assert len(m.inspect().notes) == 2
        assert len(m.recent(limit=10)) == 2


def test_a_project_folder_made_world_writable_without_the_sticky_bit_still_marks_its_project(tmp_path):
    """A container or a shared mount may leave a project folder 0777: only a sticky shared folder like /tmp hides
    its .memory/ from the folders below it."""
    proj = tmp_path / "workspace"
    (proj / ".memory").mkdir(parents=True)
    (proj / "src" / "pkg").mkdir(parents=True)
    os.chmod(proj, 0o777)
    assert str(memdir.roots.project_root(proj / "src" / "pkg")) == os.path.realpath(proj)
