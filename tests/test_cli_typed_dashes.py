"""An option typed with a long dash: macOS and iOS autocorrect turn ``--`` into ``—`` (or ``–``), and a Japanese IME in
full-width mode types ``－－``. ``memdir remember "…" —category pitfalls`` stored the words ``—category pitfalls``
in the note's text, under ``facts/``; ``memdir recall deploy —k 1`` searched for ``k`` and ``1``. Such a word naming
one of the command's options is now one usage line (exit 2) saying what to type, and nothing is written."""

import json

import pytest

from memdir.cli.main import main


def _run(tmp_path, monkeypatch, capsys, *args):
    proj = tmp_path / "p"
    proj.mkdir(exist_ok=True)
    monkeypatch.chdir(proj)
    code = 0
    try:
        main(["--home", str(tmp_path / "g"), *args])
    except SystemExit as exc:
        code = exc.code or 0
    cap = capsys.readouterr()
    return code, cap.out, cap.err


@pytest.mark.parametrize("word,option", [("—category", "--category"), ("–category", "--category"),
                                         ("—-category", "--category"), ("－－ｃａｔｅｇｏｒｙ", "--category"),
                                         ("−−category", "--category"), ("—category=pitfalls", "--category"),
                                         ("—c", "-c"), ("—json", "--json"), ("―tag", "--tag")])
def test_a_long_dash_option_to_remember_is_refused_and_nothing_is_stored(tmp_path, monkeypatch, capsys, word, option):
    args = ["remember", "Always run migrations in a transaction", word]
    if "=" not in word and word not in ("—json",):
        args.append("pitfalls")
    code, out, err = _run(tmp_path, monkeypatch, capsys, *args)
    assert code == 2 and not out, (out, err)
    assert len(err.strip().splitlines()) == 1, err
    assert option in err and word.split("=")[0] in err, err
    assert not list((tmp_path / "p").rglob("*.md")) or not any(
        "transaction" in f.read_text(encoding="utf-8") for f in (tmp_path / "p").rglob("*.md"))


def test_recall_and_forget_refuse_a_long_dash_option(tmp_path, monkeypatch, capsys):
    code, out, err = _run(tmp_path, monkeypatch, capsys, "recall", "deploy", "—k", "1")
    assert code == 2 and "-k" in err and len(err.strip().splitlines()) == 1, err
    code, out, err = _run(tmp_path, monkeypatch, capsys, "forget", "—id", "facts/x")
    assert code == 2 and "--id" in err and len(err.strip().splitlines()) == 1, err
    code, out, err = _run(tmp_path, monkeypatch, capsys, "--json", "recall", "deploy", "—scope", "global")
    assert code == 2 and "--scope" in json.loads(err)["error"], err


def test_a_dash_in_text_is_still_text(tmp_path, monkeypatch, capsys):
    """A dash that names no option, a lone dash, and anything after ``--`` stay the note's words."""
    for args in (["remember", "use", "pnpm", "—", "not", "npm"], ["remember", "deploy", "—quickly", "on", "Fridays"],
                 ["remember", "--", "the", "flag", "—category", "is", "documented"],
                 ["remember", "Run deploy with —force when stale"]):
        code, out, err = _run(tmp_path, monkeypatch, capsys, *args)
        assert code == 0 and "remembered" in out, (args, out, err)
    texts = " ".join(f.read_text(encoding="utf-8") for f in (tmp_path / "p" / ".memory" / "facts").glob("*.md"))
    assert "pnpm — not npm" in texts and "—quickly" in texts and "flag —category is" in texts


def test_an_options_value_that_looks_like_an_option_is_that_value(tmp_path, monkeypatch, capsys):
    """forget --query '—force' matches notes saying —force (forget folds dashes), and the confirm line forget prints
    repeats that value: a word that follows an option taking a value is the value, never refused as an option."""
    code, out, err = _run(tmp_path, monkeypatch, capsys, "remember", "Never push with —force to main", "--category",
                          "pitfalls")
    assert code == 0, err
    code, out, err = _run(tmp_path, monkeypatch, capsys, "forget", "--query", "—force")
    assert code != 2 and "looks like the option" not in err, (code, out, err)
    assert "force" in out + err
    code, out, err = _run(tmp_path, monkeypatch, capsys, "recall", "deploy", "—k", "1")
    assert code == 2 and "--k" not in err and "-k" in err, err  # a typed option itself is still refused
