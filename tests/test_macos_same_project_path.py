"""macOS: one project reached by two spellings of its path. Its file system is case-insensitive and ignores Unicode
normalisation, and ``realpath`` keeps the spelling it was given, so ``/Users/ann/Proj`` and ``/users/ann/proj`` (or a
composed and a decomposed ``café``) are one folder under two strings. An import whose transcripts recorded the other
spelling skipped every session of the current project as ``other_project``. Simulated here with an alias that
``realpath`` does not resolve but ``stat`` follows, as macOS does for a differently-cased path."""

import os
import unicodedata

import pytest

from memdir.portability.routing import ProjectRouter
from memdir.portability.transcripts import _Router
from memdir.samedir import same_dir


@pytest.fixture
def alias(monkeypatch):
    """``make(target, spelling)``: an alias of the folder ``target`` beside it, named ``spelling``, that realpath
    leaves as typed while stat follows it (a second spelling of one folder, as macOS has)."""
    real_realpath = os.path.realpath
    made = {}

    def make(target, name):
        p = target.parent / name
        p.symlink_to(target.name)
        made[str(p)] = real_realpath(target.parent)
        return p

    def realpath(path, *a, **k):
        s = os.fspath(path)
        for al, parent in made.items():
            if s == al or s.startswith(al + os.sep):
                return parent + s[len(os.path.dirname(al)):]
        return real_realpath(path, *a, **k)

    monkeypatch.setattr(os.path, "realpath", realpath)
    return make


def test_transcripts_of_the_project_under_another_case_are_imported(m, project, alias):
    other = alias(project, project.name.upper())
    decision = _Router(m, "current").target({"session": "s1", "meta": {"cwd": str(other)}})
    assert decision == (m, None)
    assert ProjectRouter(m, "current").target(str(other)) == (m, None)


def test_a_record_naming_the_project_in_nfd_goes_to_it(tmp_path, alias):
    import memdir

    proj = tmp_path / unicodedata.normalize("NFC", "café")
    (proj / ".git").mkdir(parents=True)
    other = alias(proj, unicodedata.normalize("NFD", "café"))
    with memdir.open(proj, home=tmp_path / "g") as m:
        assert ProjectRouter(m, "current").target(str(other)) == (m, None)
        assert _Router(m, "current").target({"session": "s1", "meta": {"cwd": str(other)}}) == (m, None)


def test_same_dir_is_exact_elsewhere(tmp_path):
    a, b = tmp_path / "a", tmp_path / "A"
    a.mkdir()
    b.mkdir()
    assert same_dir(a, a) and not same_dir(a, b)  # two folders on a case-sensitive disk stay two
    assert not same_dir(a, tmp_path / "missing")


def test_a_global_root_that_is_the_projects_memory_under_another_case_is_one_root(project, tmp_path, alias):
    import memdir

    (project / ".memory").mkdir()
    other = alias(project / ".memory", ".MEMORY")
    with memdir.open(project, home=other) as m:
        assert m.stores._one_folder()
