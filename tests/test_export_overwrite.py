"""`memdir export PATH` replaces only an earlier export: a hand-written ROOT.md, a README or any other file already at
PATH is refused with one line and left as it was (``--force`` replaces it on purpose)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

import memdir
from memdir.cli.main import cli


def run(home, proj, *args):
    return CliRunner().invoke(cli, ["--home", str(home), "--dir", str(proj), *args])


def test_export_refuses_to_replace_a_file_that_is_not_an_export(tmp_path, project):
    home = tmp_path / "h"
    with memdir.open(project, home=home) as m:
        m.remember("deploys go through the staging cluster first", category="facts")
    root_md = project / ".memory" / "ROOT.md"
    root_md.write_text(root_md.read_text(encoding="utf-8") + "\n## Hard rules\n- never push to main directly\n",
                       encoding="utf-8")
    readme = project / "README.md"
    readme.write_text("my precious notes\n", encoding="utf-8")
    for target in (root_md, readme):
        before = target.read_bytes()
        r = run(home, project, "export", str(target))
        assert isinstance(r.exception, memdir.UsageError)  # `memdir` prints it as one line, exit 2
        assert "is not a memdir export" in str(r.exception) and "--force" in str(r.exception)
        assert target.read_bytes() == before
    r = run(home, project, "export", str(readme), "--force")
    assert r.exit_code == 0, r.output
    assert json.loads(readme.read_text(encoding="utf-8").splitlines()[0])["type"] == "note"


def test_export_replaces_an_earlier_export_and_an_empty_file(tmp_path, project):
    home = tmp_path / "h"
    with memdir.open(project, home=home) as m:
        m.remember("the cache key is the lockfile's hash", category="facts")
    dump = tmp_path / "dump.jsonl"
    assert run(home, project, "export", str(dump)).exit_code == 0
    with memdir.open(project, home=home) as m:
        m.remember("builds run on two cores", category="facts")
    r = run(home, project, "export", str(dump))  # a nightly backup to the same file
    assert r.exit_code == 0, r.output
    assert sum(1 for x in dump.read_text(encoding="utf-8").splitlines() if json.loads(x)["type"] == "note") == 2
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    assert run(home, project, "export", str(empty)).exit_code == 0 and empty.read_text(encoding="utf-8")


def test_an_export_whose_first_line_is_over_a_megabyte_is_still_an_export(tmp_path, project):
    home = tmp_path / "h"
    with memdir.open(project, home=home) as m:
        m.remember("build log: " + '"\\' * 400_000, category="facts")  # JSON escaping doubles it past 1 MB
    dump = tmp_path / "big.jsonl"
    for _ in range(2):
        r = run(home, project, "export", str(dump))
        assert r.exit_code == 0, (r.output, r.exception)
    assert len(dump.read_text(encoding="utf-8").splitlines()[0]) > 1 << 20


def test_an_export_to_a_fifo_or_a_link_writes_into_it_and_never_replaces_it(tmp_path, project):
    """`memdir export /dev/stdout` or `memdir export >(gzip > x.gz)` (a pipe) hung reading the pipe to see whether it
    held an earlier export, and with --force the pipe or device was replaced by a regular file; a link to an earlier
    export (a backup folder elsewhere) was replaced by a file, leaving its target old. Such a PATH is written into."""
    import os
    import subprocess
    import sys
    import threading

    home = tmp_path / "h"
    with memdir.open(project, home=home) as m:
        m.remember("the nightly backup runs at two", category="facts")
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []

    def read():
        with open(fifo, "rb") as f:
            got.append(f.read())

    cmd = [sys.executable, "-m", "memdir", "--home", str(home), "--dir", str(project), "export"]
    for extra in ([], ["--force"]):
        t = threading.Thread(target=read, daemon=True)
        t.start()
        r = subprocess.run([*cmd, str(fifo), *extra], capture_output=True, text=True, timeout=30)
        t.join(10)
        assert r.returncode == 0, r.stderr
        assert b"the nightly backup runs at two" in got.pop()
        assert fifo.is_fifo()
    backup = tmp_path / "elsewhere" / "dump.jsonl"
    backup.parent.mkdir()
    backup.write_text("", encoding="utf-8")
    link = tmp_path / "dump.jsonl"
    link.symlink_to(backup)
    assert run(home, project, "export", str(link)).exit_code == 0
    assert link.is_symlink() and "the nightly backup" in backup.read_text(encoding="utf-8")
    if os.path.exists("/dev/full"):  # a device with no room: one line naming it, the device left as it is
        r = subprocess.run([*cmd, "/dev/full"], capture_output=True, text=True, timeout=30)
        assert r.returncode == 1 and r.stderr.count("\n") == 1 and "/dev/full is full" in r.stderr, r.stderr
        assert not Path("/dev/full").is_file()


def test_an_export_into_a_pipe_whose_reader_left_is_a_failure_not_done(tmp_path, project):
    """`memdir export >(gzip > x.gz)` whose reader died (a full disk, a killed gzip) exited 0 without a word, as if the
    backup were whole: the quiet exit meant for a reader of stdout leaving (`| head`) took every broken pipe."""
    import os
    import subprocess
    import sys
    import threading

    home = tmp_path / "h"
    with memdir.open(project, home=home) as m:
        for i in range(3):
            m.remember(f"note {i} " + " ".join(f"w{i}x{j}" for j in range(12_000)), category="facts")
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)

    def reader():
        with open(fifo, "rb") as f:
            f.read(10)  # then gone, the export far from written

    t = threading.Thread(target=reader)
    t.start()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    r = subprocess.run([sys.executable, "-m", "memdir", "--home", str(home), "--dir", str(project), "export", str(fifo)],
                       env=env, capture_output=True, timeout=120)
    t.join(10)
    err = r.stderr.decode("utf-8", "replace")
    assert r.returncode == 1, err
    assert len(err.strip().splitlines()) == 1 and str(fifo) in err and "Traceback" not in err, err


def test_the_api_s_export_to_a_fifo_or_a_link_writes_into_it_as_the_cli_does(tmp_path, project):
    """`Memdir.export(path)` replaced a named pipe, or a link to a backup kept elsewhere, by a regular file (the
    pipe's reader waited for ever; the link's target stayed old), where `memdir export` writes into them."""
    import os
    import threading

    home = tmp_path / "h"
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []

    def read():
        with open(fifo, "rb") as f:
            got.append(f.read())

    with memdir.open(project, home=home) as m:
        m.remember("the nightly backup runs at two", category="facts")
        t = threading.Thread(target=read, daemon=True)
        t.start()
        out = m.export(fifo)
        t.join(10)
        assert out["notes"] == 1 and fifo.is_fifo()
        assert b"the nightly backup runs at two" in got.pop()
        backup = tmp_path / "elsewhere" / "dump.jsonl"
        backup.parent.mkdir()
        backup.write_text("", encoding="utf-8")
        link = tmp_path / "dump.jsonl"
        link.symlink_to(backup)
        assert m.export(link)["notes"] == 1
        assert link.is_symlink() and "the nightly backup" in backup.read_text(encoding="utf-8")
        assert oct(backup.stat().st_mode & 0o777) == oct(0o600)  # every captured turn: owner-only, as a new file
        dangling = tmp_path / "later.jsonl"  # a link whose backup is not written yet: made where it leads
        dangling.symlink_to(backup.parent / "later.jsonl")
        m.export(dangling)
        assert dangling.is_symlink() and "the nightly backup" in dangling.read_text(encoding="utf-8")
