"""Stored text holding bidirectional controls (U+202A-U+202E, U+2066-U+2069; the marks U+200E, U+200F, U+061C) was
printed raw by the CLI's lines for people, where a terminal reorders the line around them (Trojan-source style: a
line shows other than it holds). The CLI's text output shows each as its escape (``\\u202e``); ``--json`` and the
stored text keep the characters as they are."""

from __future__ import annotations

import json

import pytest

from conftest import run_cli

BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"


@pytest.fixture
def base(project, tmp_path):
    return ("--dir", str(project), "--home", str(tmp_path / "g"))


def test_recall_get_recent_and_inspect_show_bidi_controls_escaped(base, project, capsys):
    text = "access check \u202eroot nimda\u202c happens in the gateway \u2067x\u2069 " + BIDI
    code, out, err = run_cli(capsys, *base, "remember", text, "-t", "gate\u202ekeeper")
    assert code == 0, err
    [path] = (project / ".memory" / "facts").glob("access-check*.md")
    assert "\u202eroot nimda\u202c" in path.read_text(encoding="utf-8")  # stored as given
    nid = f"facts/{path.stem}"
    for args in (("remember", text), ("recall", "gateway"), ("get", nid), ("recent",), ("inspect",),
                 ("context", "access check gateway"), ("forget", "--query", "gateway")):
        code, out, err = run_cli(capsys, *base, *args)
        assert code == 0, (args, err)
        assert not any(c in out + err for c in BIDI), (args, out)
        if args[0] in ("recall", "get"):
            assert "\\u202eroot nimda\\u202c" in out, (args, out)
    code, out, err = run_cli(capsys, *base, "--json", "get", nid)
    assert code == 0 and "\u202eroot nimda\u202c" in json.loads(out)["text"]


def test_an_error_line_quoting_such_text_escapes_it_too(base, capsys):
    code, out, err = run_cli(capsys, *base, "pin", "facts/x\u202egnp.exe")
    assert code in (1, 2) and err.count("\n") == 1 and not any(c in err for c in BIDI), err


def test_a_summary_cut_for_a_line_never_ends_inside_a_redaction_marker():
    from memdir.cli.output import clip

    text = "the staging deploy reads AWS " + "[redacted:aws_access_key]" + " from the vault each night"
    for n in range(len("the staging deploy reads AWS ") + 1, len(text)):
        out = clip(text, n)
        assert out.count("[redacted:") == out.count("]"), (n, out)
        assert len(out) <= n
    assert clip("short", 80) == "short"


def test_a_cut_falling_in_the_first_letters_of_a_redaction_marker_leaves_no_half_of_it():
    from memdir.cli.output import clip

    head = "key "  # the marker in the line's first half: no later space to cut at
    text = head + "[redacted:aws_access_key]" + " from the vault each night"
    for n in range(len(head) + 2, len(head) + 12):  # the cut inside "[redacted" (before its colon) too
        out = clip(text, n)
        assert "[red" not in out and out.endswith("…") and len(out) <= n, (n, out)
