"""A global root that cannot be made (``--home`` / ``MEMDIR_HOME`` naming a place no folder can go) is named as the
global root in the one-line error, so the user knows which setting to change."""

import errno
import os

from conftest import run_cli


def test_an_unmakeable_global_root_is_named_as_such(project, tmp_path, capsys, monkeypatch):
    from memdir import roots

    bad = tmp_path / "no-such-mount" / "root"

    def refuse(path, **kw):  # what a folder under a mount that refuses new folders (/proc, a gone drive) gives
        if os.fspath(path).startswith(os.fspath(tmp_path / "no-such-mount")):
            raise FileNotFoundError(errno.ENOENT, "No such file or directory", os.fspath(path))
        return real(path, **kw)

    real = roots.private_dir
    monkeypatch.setattr(roots, "private_dir", refuse)
    monkeypatch.setattr("memdir.engine.root.private_dir", refuse)
    monkeypatch.chdir(project)
    monkeypatch.setenv("MEMDIR_HOME", str(bad))
    code, out, err = run_cli(capsys, "remember", "a global note about deploys", "--scope", "global")
    assert code == 1 and "global memory root" in err and "MEMDIR_HOME" in err and len(err.strip().splitlines()) == 1
    monkeypatch.delenv("MEMDIR_HOME")
    code, out, err = run_cli(capsys, "--home", str(bad), "remember", "a note", "--scope", "global")
    assert code == 1 and "global memory root" in err
    # a file the user named is not the global root
    code, out, err = run_cli(capsys, "import", str(project / "missing.jsonl"))
    assert code != 0 and "global memory root" not in err
