"""An export edited by hand (or written by another tool) before `memdir import`: a field of another type than memdir
writes, an unknown line type, a newer memdir's extra fields. Each line is read as a person meant it or skipped as a bad
line named by its number; the rest of the file is always imported."""

from __future__ import annotations

import json

import memdir


def _write(path, rows):
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r, ensure_ascii=False)) + "\n" for r in rows),
                    encoding="utf-8")


def _note(nid, text, **kw):
    return {"type": "note", "id": nid, "text": text, **kw}


def test_note_fields_of_another_type_are_read_as_meant_and_never_stop_the_import(project, tmp_path, caplog):
    f = tmp_path / "edited.jsonl"
    _write(f, [
        _note("facts/tag-string", "a tag written as one string", tags="pnpm", load_when="deploy"),
        _note("facts/pin-false", "pinned written as the string false", pinned="false"),
        _note("facts/pin-yes", "pinned written as yes", pinned="yes"),
        _note("facts/when-number", "load_when written as a number", load_when=5),
        _note("facts/summary-list", "a summary that is a list", summary=["x"]),
        _note("facts/tags-map", "tags written as a mapping", tags={"a": 1}),
        _note("facts/kind-number", "a kind that is a number", kind=7, highlight={"x": 1}),
        _note("facts/scope-list", "a scope that is a list", scope=["global"]),
        _note("facts/created-list", "a created time that is a list", created=[1], updated={"a": 1}),
        _note("facts/no-text", 123),
        "this line is not JSON",
        {"type": "event", "key": "k1", "role": "user", "text": "the event after the edited notes", "session": "s",
         "ts": "2026-01-01T00:00:00Z"},
        _note("facts/last", "the last note of the file"),
    ])
    with memdir.open(project, home=tmp_path / "g") as m:
        got = m.import_jsonl(f)
        assert got["notes"] == 10 and got["bad_lines"] == 2 and got["stored"] == 1, got
        n = m.get("facts/tag-string")
        assert n.tags == ("pnpm",) and n.load_when == ("deploy",)
        assert m.get("facts/pin-false").pinned is False and m.get("facts/pin-yes").pinned is True
        assert m.get("facts/when-number").load_when == ("5",)
        assert m.get("facts/summary-list").summary == "a summary that is a list"
        assert m.get("facts/tags-map").tags == ()
        assert m.get("facts/kind-number").highlight is None
        assert m.get("facts/scope-list", scope="project") is not None
        assert m.get("facts/created-list") is not None and m.get("facts/last") is not None
        assert m.get("k1") is not None
    # what was ignored is said with the line's number
    assert "line 6" in caplog.text and "tags is not a list" in caplog.text, caplog.text
    assert "line 10 skipped" in caplog.text and "line 11 skipped" in caplog.text, caplog.text


def test_a_line_of_an_unknown_type_or_an_event_without_text_is_a_bad_line_named_by_its_number(project, tmp_path, caplog):
    """A line typed `proposal` (a newer memdir's export), an event line whose text was deleted or is not text, or whose
    role is unknown, was stored as a user prompt or counted as 'skipped' without a word; each is a bad line now."""
    ev = {"type": "event", "role": "user", "session": "s", "ts": "2026-01-01T00:00:00Z"}
    f = tmp_path / "edited.jsonl"
    _write(f, [
        {"type": "proposal", "id": "p1", "text": "always deploy on fridays"},
        {**ev, "key": "k1"},
        {**ev, "key": "k2", "text": ["a list of text"]},
        {**ev, "key": "k3", "text": "   "},
        {**ev, "key": "k4", "text": "a role nobody knows", "role": "narrator"},
        {**ev, "key": ["k5"], "text": "a key that is a list"},
        {**ev, "key": "k6", "text": "the good event after them"},
        {"text": "a record without a type is an event, as before"},
    ])
    with memdir.open(project, home=tmp_path / "g") as m:
        got = m.import_jsonl(f)
        assert got["bad_lines"] == 6 and got["stored"] == 2 and got["skipped"] == 0, got
        assert m.get("k6") is not None and not m.recall("fridays")
    for n in (1, 2, 3):
        assert f"line {n} skipped" in caplog.text, caplog.text
    assert "unknown line type 'proposal'" in caplog.text
