"""The viewer's forms given what no browser page of it sends, but a script, a proxy or another tool can: text that
is not UTF-8 (raw bytes or %-escaped), a file part in place of a text field, a body that is not a form. Each is
refused with its reason and nothing is written; a note's body never becomes U+FFFD, Latin-1 mojibake or a Python
repr."""

from __future__ import annotations

import pytest

from memdir.ui import missing_deps

pytestmark = pytest.mark.skipif(bool(missing_deps()), reason=f"the ui extra is not installed: {missing_deps()}")

LOOPBACK = "http://127.0.0.1:8766"
ORIGIN = {"origin": LOOPBACK}
FORM = {**ORIGIN, "content-type": "application/x-www-form-urlencoded"}


def client(m):
    from starlette.testclient import TestClient

    from memdir.ui import build

    return TestClient(build(get=lambda: m), base_url=LOOPBACK, raise_server_exceptions=True, follow_redirects=False)


def _state(m, note):
    return note.path.read_bytes(), sorted(n.id for n in m.inspect().notes)


JUNK = {
    "an escaped byte that is not UTF-8": b"%FF%FE%80 deploy with pnpm",
    "a raw byte that is not UTF-8": "deploy with pnpm \u00e9".encode("latin-1"),
    "a lone escaped continuation byte": b"deploy%80with pnpm",
}


@pytest.mark.parametrize("why", list(JUNK))
def test_supersede_with_text_that_is_not_utf8_is_refused_and_writes_nothing(m, why):
    note = m.remember("deploy uses npm", category="decisions")
    before = _state(m, note)
    r = client(m).post(f"/notes/project/{note.id}/supersede", content=b"text=" + JUNK[why], headers=FORM)
    assert r.status_code == 400 and "not UTF-8" in r.text, why
    assert _state(m, note) == before


@pytest.mark.parametrize("why", list(JUNK))
def test_edit_with_a_body_that_is_not_utf8_is_refused_and_writes_nothing(m, why):
    from urllib.parse import quote

    from memdir.notes.markdown import split, version

    note = m.remember("deploy uses npm", category="decisions")
    src = m.note_source(note.id)
    _, _, fm = split(src)
    before = _state(m, note)
    payload = (f"version={quote(version(src))}&frontmatter={quote(fm.strip())}&body=").encode() + JUNK[why]
    r = client(m).post(f"/notes/project/{note.id}/edit", content=payload, headers=FORM)
    assert r.status_code == 400 and "not UTF-8" in r.text, why
    assert _state(m, note) == before


def test_a_file_part_in_place_of_the_body_is_refused_not_saved_as_its_repr(m):
    from memdir.notes.markdown import split, version

    note = m.remember("deploy uses npm", category="decisions")
    src = m.note_source(note.id)
    _, _, fm = split(src)
    before = _state(m, note)
    r = client(m).post(f"/notes/project/{note.id}/edit", data={"version": version(src), "frontmatter": fm.strip()},
                       files={"body": ("body.bin", b"\x00\xff\xfe" * 10)}, headers=ORIGIN)
    assert r.status_code == 400
    assert _state(m, note) == before
    assert "UploadFile" not in note.path.read_text(encoding="utf-8")


def test_an_event_edit_with_text_that_is_not_utf8_is_refused(m):
    m.import_events([{"key": "u:s1:1", "role": "user", "text": "how do we deploy with pnpm?", "session": "s1",
                      "ts": "2026-10-01T10:00:00Z"}])
    r = client(m).post("/event/edit", content=b"key=u%3As1%3A1&scope=project&text=%C3%28 deploy", headers=FORM)
    assert r.status_code == 400 and "not UTF-8" in r.text
    assert m.get("u:s1:1").text == "how do we deploy with pnpm?"


def test_utf8_text_in_every_script_still_saves(m):
    note = m.remember("deploy uses npm", category="decisions")
    text = "部署用 pnpm，不用 npm — déploiement ✓ 🚀"
    r = client(m).post(f"/notes/project/{note.id}/supersede", data={"text": text}, headers=ORIGIN)
    assert r.status_code == 303
    assert [n.text for n in m.inspect().notes if n.superseded_by is None] == [text]
