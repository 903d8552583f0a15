"""Every command that takes a note id accepts the forms ``get`` and the MCP tools accept: an id or handle copied with
what wrapped it where it was read (quotes, backticks, brackets, a leading ``#``). ``memdir pin "'facts/x'"`` and
``memdir edit`` with such an id said "no note has the id …" while ``memdir get`` of the same text found the note."""

from __future__ import annotations

import pytest

from conftest import run_cli
from memdir.errors import NotFound

WRAPS = ["'{}'", '"{}"', "`{}`", "[{}]", "#{}", "<{}>", " '{}' "]


def _handle(m, note):
    return {h.id: h.handle for h in m.recall(note.text, k=5)}[note.id]


@pytest.mark.parametrize("wrap", WRAPS)
def test_pin_edit_and_note_source_take_a_wrapped_id_or_handle(m, wrap):
    note = m.remember("the staging database is called kestrel", category="facts")
    for ref in (note.id, _handle(m, note)):
        assert m.note_source(wrap.format(ref)).startswith("---")
        assert m.pin(wrap.format(ref), True).id == note.id
        assert m.pin(wrap.format(ref), False).pinned is False
        assert m.edit(wrap.format(ref), f"the staging database is called kestrel ({ref})\n").id == note.id
    with pytest.raises(NotFound):  # nothing is guessed: an unknown id stays unknown
        m.pin(wrap.format("facts/nothing-here"))


@pytest.mark.parametrize("wrap", ["'{}'", "`{}`", "[{}]"])
def test_the_cli_pins_and_edits_a_wrapped_id(m, project, capsys, monkeypatch, wrap):
    note = m.remember("deploys go through the blue pipeline", category="decisions")
    code, out, err = run_cli(capsys, "--dir", str(project), "--home", str(m.roots["global"].path), "pin",
                             wrap.format(note.id))
    assert code == 0 and f"pinned {note.id}" in out and not err, (out, err)
    code, out, err = run_cli(capsys, "--dir", str(project), "--home", str(m.roots["global"].path), "edit",
                             wrap.format(note.id), "-", stdin="deploys go through the green pipeline\n",
                             monkeypatch=monkeypatch)
    assert code == 0 and f"saved {note.id}" in out, (out, err)
    assert "green pipeline" in m.get(note.id).text and m.get(note.id).pinned
    code, out, err = run_cli(capsys, "--dir", str(project), "--home", str(m.roots["global"].path), "pin",
                             wrap.format("decisions/none"))
    assert code == 1 and err.count("\n") == 1 and "no note has the id" in err, err


def _fullwidth(text):
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)


@pytest.mark.parametrize("wrap", ["{}", "「{}」", "『{}』", "【{}】", "［{}］", "＂{}＂", "«{}»", "＃{}"])
def test_an_id_or_handle_typed_in_full_width_or_japanese_quotes_is_found(m, wrap):
    """A Japanese or Chinese IME left in full-width mode types ``ＮＱＤＣＱＣ`` for the handle ``nqdcqc`` and
    ``ｆａｃｔｓ/ｘ`` for ``facts/x``; a Japanese text quotes it in 「」: ``memdir get`` said no memory had that id."""
    note = m.remember("the staging database is called kestrel", category="facts")
    for ref in (_fullwidth(note.id), _fullwidth(_handle(m, note).upper()), note.id):
        typed = wrap.format(ref)
        assert m.get(typed).id == note.id, typed
        assert m.pin(typed, True).id == note.id
    assert m.forget(wrap.format(_fullwidth(note.id))) and m.get(note.id) is None
