"""`memdir export PATH` replaces only an earlier export: a hand-written ROOT.md, a README or any other file already at
PATH is refused with one line and left as it was (``--force`` replaces it on purpose)."""

from __future__ import annotations

import json

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
