"""A global root that cannot be made (``--home`` / ``MEMDIR_HOME`` naming a place no folder can go) is named as the
global root in the one-line error, so the user knows which setting to change."""

import sys

import pytest

from conftest import run_cli


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc refuses new folders on Linux")
def test_an_unmakeable_global_root_is_named_as_such(project, capsys, monkeypatch):
    monkeypatch.chdir(project)
    monkeypatch.setenv("MEMDIR_HOME", "/proc/memdir-no-such-root")
    code, out, err = run_cli(capsys, "remember", "a global note about deploys", "--scope", "global")
    assert code == 1 and "global memory root" in err and "MEMDIR_HOME" in err and len(err.strip().splitlines()) == 1
    code, out, err = run_cli(capsys, "--home", "/proc/memdir-x/y", "remember", "a note", "--scope", "global")
    assert code == 1 and "global memory root" in err
    # a file the user named is not the global root
    code, out, err = run_cli(capsys, "import", str(project / "missing.jsonl"))
    assert code != 0 and "global memory root" not in err
