"""`memdir import FILE` of a file whose only line is not a memdir record said "1 lines are not memdir records"; the
count and its verb agree now ("1 line is", "2 lines are")."""

import pytest

from memdir.cli.main import main


@pytest.mark.parametrize("n,said", [(1, "1 line is not a memdir record"), (2, "2 lines are not memdir records")])
def test_the_error_counts_bad_lines_in_good_english(tmp_path, monkeypatch, capsys, n, said):
    proj = tmp_path / "p"
    proj.mkdir()
    monkeypatch.chdir(proj)
    f = tmp_path / "bad.jsonl"
    f.write_text('{"type": "note"}\n' * n, encoding="utf-8")
    with pytest.raises(SystemExit) as exc:
        main(["--home", str(tmp_path / "g"), "import", str(f)])
    assert exc.value.code == 1
    err = capsys.readouterr().err
    assert said in err, err
