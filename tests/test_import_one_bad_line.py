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


def test_an_unreadable_timestamp_is_a_bad_line_said_with_its_number(tmp_path, monkeypatch, capsys, caplog):
    """An event line whose ts cannot be read (year 10000, NaN) was counted as 'skipped' with the reason in the debug
    log only; it is a bad line now, named with its number and why, and the good lines are stored."""
    proj = tmp_path / "p"
    proj.mkdir()
    monkeypatch.chdir(proj)
    f = tmp_path / "events.jsonl"
    f.write_text('{"text": "alpha event one", "ts": "10000-01-01T00:00:00Z"}\n'
                 '{"text": "beta event two", "ts": "NaN"}\n'
                 '{"text": "gamma event three", "ts": "2026-01-01T00:00:00Z"}\n', encoding="utf-8")
    main(["--home", str(tmp_path / "g"), "import", str(f)])  # exits 0: one event stored
    out, err = capsys.readouterr()
    err += caplog.text  # the warnings go to stderr through logging, which pytest captures here
    assert "1 event stored" in out and "2 bad lines" in out and "0 skipped" in out, out
    assert "line 1 skipped: unreadable timestamp '10000-01-01" in err and "line 2 skipped: unreadable timestamp 'NaN'" in err
