"""What a person reads in a terminal: the CLI's human lines (recall, get, recent, inspect, previews, summaries).

A note typed by hand (or a text an older memdir stored) can hold a terminal's escape sequences; a line cut for a
person must not split a character a terminal draws as one (a ZWJ emoji, a flag, a letter with its accent); times a
person reads are local; counts read as English (``1 event``, not ``1 events``)."""

from __future__ import annotations

import json
import re

import click.utils
import pytest

from conftest import run_cli


@pytest.fixture
def base(project, tmp_path):
    return ("--dir", str(project), "--home", str(tmp_path / "g"))


#: C0 controls a terminal acts on (all but tab and line feed), ESC among them, and the C1 controls
_ACTING = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def test_a_hand_typed_note_holding_escape_sequences_never_drives_the_terminal(base, project, capsys, monkeypatch):
    """On a terminal click passes colour codes through: a note file holding ``ESC[2J`` (clear screen), an OSC title
    (``ESC]0;…BEL``), a bell or a carriage return that overwrites the line must reach the screen as text only."""
    monkeypatch.setattr(click.utils, "should_strip_ansi", lambda *a, **k: False)  # as on a TTY
    code, out, err = run_cli(capsys, *base, "remember", "placeholder so the project root exists")
    assert code == 0, err
    (project / ".memory" / "facts" / "esc.md").write_text(
        '---\nsummary: "red \\x1b[31mALERT\\x1b[0m title"\n---\n'
        "deploy body \x1b[2J cleared and \x1b]0;pwned\x07 titled, a bell\x07 and fake\rOVERWRITE \x9b31m c1\n",
        encoding="utf-8")
    for args in (("recall", "deploy body"), ("get", "facts/esc"), ("recent",), ("inspect",),
                 ("forget", "--query", "deploy body"), ("context", "deploy body cleared")):
        code, out, err = run_cli(capsys, *base, *args)
        assert code == 0, (args, err)
        assert not _ACTING.search(out + err), (args, out)
        if args[0] in ("recall", "get"):
            assert "deploy body" in out and "titled" in out, (args, out)
    code, out, err = run_cli(capsys, *base, "--json", "get", "facts/esc")
    assert code == 0 and "\x1b]0;pwned\x07" in json.loads(out)["text"]  # the machine-readable copy is as stored


FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466"  # one emoji of seven code points
FLAG = "\U0001f1e8\U0001f1f3"
ACCENT = "e\u0301"


def _whole(line: str) -> bool:
    """No emoji, flag or accented letter of the texts above was split by a cut."""
    from memdir.cli.cells import clusters

    for cl in clusters(line):
        if cl[0] in ("\u200d", "\u0301") or cl.endswith("\u200d"):
            return False
        if 0x1F1E6 <= ord(cl[0]) <= 0x1F1FF and len(cl) != 2:
            return False
        if "\U0001f468" in cl and cl != FAMILY:
            return False
    return True


@pytest.mark.parametrize("lead", ["", "a", "ab", "abc", "部", "部署"])
def test_a_long_title_cut_for_a_line_keeps_each_character_whole_and_fits_the_width(base, capsys, lead):
    """``recent``, ``inspect`` and the forget preview cut a title to a line: by the columns a terminal draws (a
    Chinese character or an emoji takes two), never inside a ZWJ emoji, a flag or a letter with its accent, and say
    the cut with an ellipsis counted in the width."""
    from memdir.cli.cells import cells

    title = lead + (FAMILY + FLAG + ACCENT + "标题") * 300
    code, out, err = run_cli(capsys, *base, "remember", "long titled note " + title, "--title", title)
    assert code == 0, err
    for args in (("recent",), ("inspect",), ("forget", "--query", "long titled")):
        code, out, err = run_cli(capsys, *base, *args)
        assert code == 0, (args, err)
        [line] = [ln for ln in out.splitlines() if FAMILY in ln or FLAG in ln]
        shown = line.split(": ", 1)[1]
        assert _whole(shown), (args, shown)
        assert cells(shown) <= 80, (args, cells(shown), shown)
        if args[0] != "forget":  # a preview shows the first 100 characters the facade gives it
            assert shown.endswith("…") and cells(shown) >= 70, (args, shown)  # the room used, not halved


def test_recall_cuts_a_long_cjk_text_by_columns_and_whole_characters(base, capsys):
    from memdir.cli.cells import cells

    text = "部署说明 " + ("长" * 3 + FAMILY) * 400
    code, out, err = run_cli(capsys, *base, "remember", text)
    assert code == 0, err
    code, out, err = run_cli(capsys, *base, "recall", "部署说明")
    assert code == 0, err
    snippet = out.splitlines()[1].strip()
    assert _whole(snippet) and snippet.endswith("…") and cells(snippet) <= 300, (cells(snippet), snippet)


def test_cells_and_cut():
    from memdir.cli.cells import cells, cut, pad

    assert cells("abc") == 3 and cells("部署") == 4 and cells(FAMILY) == 2 and cells(FLAG) == 2 and cells(ACCENT) == 1
    assert cut("short", 10) == "short" and cut("部署脚本", 8) == "部署脚本" and cut("部署脚本", 7) == "部署脚…"
    assert cut("hello world again", 12) == "hello world…"
    assert pad("部署", 6) == "部署  " and pad("abcdefg", 3) == "abcdefg"
    for w in range(0, 12):
        assert cells(cut(FAMILY * 10, w)) <= w and _whole(cut(FAMILY * 10, w))


def test_a_preview_head_never_ends_inside_an_emoji_or_a_flag():
    from memdir.capture.events import head

    for lead in range(0, 8):
        for body in (FAMILY * 40, FLAG * 80, ACCENT * 120, "👍🏽" * 60):
            out = head("x" * lead + body)
            assert len(out) <= 100 and _whole(out) and len(out) >= 90, (lead, body[:4], out)
            assert not out.endswith("\U0001f44d") and not out.endswith("e")  # the tone and accent stay with theirs


@pytest.fixture
def shanghai(monkeypatch):
    import time

    if not hasattr(time, "tzset"):
        pytest.skip("needs time.tzset")
    monkeypatch.setenv("TZ", "Asia/Shanghai")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def test_the_prune_preview_says_its_cutoff_in_local_time_and_counts_in_english(base, capsys, shanghai):
    """The preview printed ``idle since before 2026-09-07T11:00:00.000Z`` (UTC, milliseconds) beside lines in local
    time, ``1 cold memories`` and a raw byte count."""
    from datetime import datetime, timedelta, timezone

    from memdir.timeutil import local_text

    code, out, err = run_cli(capsys, *base, "prune", "--days", "90")
    assert code == 0, err
    head = out.splitlines()[0]
    assert "T" not in head.split("before ")[1].split(" (")[0] and "Z" not in head, head
    cutoff = datetime.now(timezone.utc) - timedelta(days=90)
    assert local_text(cutoff)[:10] in head, head  # the local day, as the sample lines show
    assert head.startswith("0 cold memories") and "(0 bytes)" in head, head
    from memdir.cli.output import size_text

    assert size_text(1) == "1 byte" and size_text(999) == "999 bytes" and size_text(2048) == "2.0 KB"
    assert size_text(5_300_000) == "5.1 MB"


def test_import_summaries_count_in_english():
    from memdir.portability.transcripts import summary

    out = {"read_by_role": {"user": 1, "assistant": 0, "tool": 0}, "kept_by_role": {"user": 1, "assistant": 0, "tool": 0},
           "skipped_by": {}, "sessions": {"other_project": 0, "cwd_missing": 0, "no_cwd": 0}, "files": 1, "read": 1,
           "stored": 0, "duplicate": 1, "skipped": 0, "other_projects": [], "projects": {}}
    line = summary(out).splitlines()[0]
    assert "1 event read" in line and "1 duplicate;" in line and "1 duplicates" not in line, line


@pytest.mark.parametrize("zone", ["Etc/GMT-14", "Etc/GMT+12"])  # one of the two is always on another day than UTC
def test_forgetting_twice_names_the_local_day_it_was_forgotten(base, capsys, monkeypatch, zone):
    import time
    from datetime import datetime, timezone

    from memdir.timeutil import local_text

    if not hasattr(time, "tzset"):
        pytest.skip("needs time.tzset")
    monkeypatch.setenv("TZ", zone)
    time.tzset()
    try:
        code, out, err = run_cli(capsys, *base, "remember", "the staging box reboots every night at two")
        assert code == 0, err
        nid = out.split()[1]
        assert run_cli(capsys, *base, "forget", nid)[0] == 0
        code, out, err = run_cli(capsys, *base, "forget", nid)
        assert code == 1 and f"on {local_text(datetime.now(timezone.utc), minutes=False)}" in err, err
    finally:
        monkeypatch.undo()
        time.tzset()


def test_the_proposal_list_cuts_a_summary_between_whole_characters(base, project, tmp_path, capsys):
    import memdir
    from memdir.cli.cells import cells

    with memdir.open(project, home=tmp_path / "g") as m:
        m.propose("always review " + FAMILY * 200, summary="review " + (FAMILY + "审查") * 100)
    code, out, err = run_cli(capsys, *base, "proposals")
    assert code == 0, err
    [line] = out.splitlines()
    summary = line.split(": ", 1)[1].split("  (source")[0]
    assert _whole(summary) and summary.endswith("…") and cells(summary) <= 90, summary


def test_a_summary_taken_from_a_long_first_line_keeps_its_last_emoji_whole(project, tmp_path):
    """The default summary (the first line, cut to 100 characters with ``…``) is what index.md, inspect and recent
    show: it ended in half a family emoji and a stray joiner."""
    import memdir

    with memdir.open(project, home=tmp_path / "g") as m:
        for lead in range(0, 7):
            note = m.remember("x" * lead + " " + FAMILY * 200)
            assert note.summary.endswith("…") and _whole(note.summary[:-1]) and len(note.summary) <= 100, note.summary
            m.forget(note.id)
