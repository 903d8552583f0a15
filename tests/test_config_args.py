"""`memdir config set inject.max_chars 2000` (the usual way other tools set a key) said only "Got unexpected extra
arguments"; `memdir config inject.max_chars` the same. Now `config KEY` (or a section, `config inject`) prints just
those keys, and `config set KEY VALUE` says in one line where the setting goes: the project's config.toml, or the
MEMDIR_* variable. An unknown key is a one-line error with the nearest known one."""

import pytest

from memdir.cli.main import main


def _run(tmp_path, monkeypatch, capsys, *args):
    proj = tmp_path / "p"
    proj.mkdir(exist_ok=True)
    monkeypatch.chdir(proj)
    code = 0
    try:
        main(["--home", str(tmp_path / "g"), "config", *args])
    except SystemExit as exc:
        code = exc.code or 0
    cap = capsys.readouterr()
    return code, cap.out, cap.err


def test_config_key_prints_that_key(tmp_path, monkeypatch, capsys):
    code, out, err = _run(tmp_path, monkeypatch, capsys, "inject.max_chars")
    assert code == 0, err
    lines = out.strip().splitlines()
    assert len(lines) == 1 and lines[0].split()[:2] == ["inject.max_chars", "1200"]


def test_config_section_prints_its_keys(tmp_path, monkeypatch, capsys):
    code, out, err = _run(tmp_path, monkeypatch, capsys, "inject")
    assert code == 0, err
    keys = [ln.split()[0] for ln in out.strip().splitlines()]
    assert "inject.max_chars" in keys and "inject.max_entries" in keys and all(k.startswith("inject.") for k in keys)


def test_config_set_says_where_the_setting_goes(tmp_path, monkeypatch, capsys):
    code, out, err = _run(tmp_path, monkeypatch, capsys, "set", "inject.max_chars", "2000")
    assert code == 2 and not out
    assert len(err.strip().splitlines()) == 1 and err.startswith("memdir: error:")
    assert "config.toml" in err and "[inject]" in err and "max_chars = 2000" in err and "MEMDIR_INJECT_MAX_CHARS=2000" in err


def test_config_unknown_key_names_the_nearest(tmp_path, monkeypatch, capsys):
    code, out, err = _run(tmp_path, monkeypatch, capsys, "inject.max_chrs")
    assert code == 2 and not out
    assert len(err.strip().splitlines()) == 1 and "inject.max_chars" in err


def test_config_set_quotes_a_string_value_as_toml_wants(tmp_path, monkeypatch, capsys):
    code, _out, err = _run(tmp_path, monkeypatch, capsys, "set", "recall.channel", "hybrid")
    assert code == 2 and 'channel = "hybrid"' in err and "MEMDIR_RECALL_CHANNEL=hybrid" in err


def test_config_get_is_config_key(tmp_path, monkeypatch, capsys):
    code, out, err = _run(tmp_path, monkeypatch, capsys, "get", "inject.max_chars")
    assert code == 0, err
    assert out.strip().split()[:2] == ["inject.max_chars", "1200"]


def test_config_unset_says_how_a_key_gets_its_default(tmp_path, monkeypatch, capsys):
    code, out, err = _run(tmp_path, monkeypatch, capsys, "unset", "inject.max_chars")
    assert code == 2 and not out and len(err.strip().splitlines()) == 1
    assert "remove the `max_chars` line" in err and "MEMDIR_INJECT_MAX_CHARS" in err and "= VALUE" not in err


def test_a_mistyped_section_names_the_section(tmp_path, monkeypatch, capsys):
    code, out, err = _run(tmp_path, monkeypatch, capsys, "recal")
    assert code == 2 and "did you mean 'recall'?" in err, err


@pytest.mark.parametrize("words", [["INJECT.MAX_CHARS"], ["MEMDIR_INJECT_MAX_CHARS"], ["inject_max_chars"],
                                   ["inject", "max_chars"], ["get", "Inject.Max_Chars"]])
def test_a_key_written_another_way_is_that_key(tmp_path, monkeypatch, capsys, words):
    """A key typed in upper case, as its MEMDIR_ variable (the README names both) or as section and leaf was
    "unknown config key" without a suggestion."""
    code, out, err = _run(tmp_path, monkeypatch, capsys, *words)
    assert code == 0, err
    lines = out.strip().splitlines()
    assert len(lines) == 1 and lines[0].split()[:2] == ["inject.max_chars", "1200"]


def test_a_typo_in_capitals_names_the_nearest_key(tmp_path, monkeypatch, capsys):
    """INJECT.MAX_CHARS names the key (the README spells settings both ways): a typo of it does too."""
    code, out, err = _run(tmp_path, monkeypatch, capsys, "INJECT.MAX_CHAR")
    assert code == 2 and not out and "did you mean 'inject.max_chars'" in err, err


def test_config_columns_line_up(tmp_path, monkeypatch, capsys):
    """A value longer than 28 characters (embed.url, categories) pushed its `default` out of the column, one space
    from the value; now the column fits the values (up to 40 characters) and a longer one keeps two spaces."""
    code, out, err = _run(tmp_path, monkeypatch, capsys)
    assert code == 0, err
    lines = out.strip().splitlines()  # the source is one word here: default (or env, the suite's settings)
    assert all(ln.rsplit(None, 1)[1] in ("default", "env") for ln in lines)
    starts = {ln: len(ln) - len(ln.rsplit(None, 1)[1]) for ln in lines}
    assert all(ln[at - 2:at] == "  " for ln, at in starts.items())
    assert len({at for ln, at in starts.items() if not ln.startswith("categories")}) == 1
    code, out, err = _run(tmp_path, monkeypatch, capsys, "recall.k")
    assert out.split() == ["recall.k", "8", "default"] and "  8  default" in out  # no 28-column pad for one key
