"""A note's file name stays unique where a clone of the store may land: macOS and Windows file systems do not tell
``Deploy.md`` from ``deploy.md``, and macOS does not tell a decomposed (NFD) name from its composed form. A note
written by hand as ``facts/Deploy.md`` (or a Korean name saved in NFD) made ``remember "deploy"`` write
``facts/deploy.md`` beside it: on such a clone one of the two files is lost."""

from __future__ import annotations

import unicodedata

import pytest

import memdir


def _hand_note(project, name: str, body: str) -> None:
    d = project / ".memory" / "facts"
    d.mkdir(parents=True, exist_ok=True)
    (d / name).write_text(f"---\nsummary: {body}\n---\n{body}\n", encoding="utf-8")


@pytest.mark.parametrize("hand, text, avoided", [
    ("Deploy.md", "deploy", "deploy"),
    ("DEPLOY-NOTES.md", "Deploy notes", "deploy-notes"),
    (unicodedata.normalize("NFD", "배포-순서.md"), "배포 순서", "배포-순서"),
])
def test_a_new_note_never_takes_a_name_a_case_insensitive_clone_would_merge(project, tmp_path, hand, text, avoided):
    _hand_note(project, hand, "written by hand, something else entirely")
    with memdir.open(project, home=tmp_path / "g") as m:
        note = m.remember(text)
    slug = note.id.split("/", 1)[1]
    assert slug != avoided
    names = [unicodedata.normalize("NFC", p.name).casefold() for p in (project / ".memory" / "facts").iterdir()]
    assert len(names) == len(set(names)), names
    assert (project / ".memory" / "facts" / hand).read_text(encoding="utf-8").endswith("entirely\n")


def test_an_imported_note_keeps_its_id_only_when_no_file_differs_from_it_by_case_alone(project, tmp_path):
    import json

    _hand_note(project, "deploy.md", "written by hand, something else entirely")
    export = tmp_path / "export.jsonl"
    export.write_text(json.dumps({"type": "note", "id": "facts/Deploy", "text": "the deploy runs at noon"}) + "\n",
                      encoding="utf-8")
    with memdir.open(project, home=tmp_path / "g") as m:
        m.import_jsonl(export)
        assert [h.text for h in m.recall("noon")] == ["the deploy runs at noon"]
    names = [p.name.casefold() for p in (project / ".memory" / "facts").iterdir()]
    assert len(names) == len(set(names)), names
    assert (project / ".memory" / "facts" / "deploy.md").read_text(encoding="utf-8").endswith("entirely\n")
