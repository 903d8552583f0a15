"""A note whose summary has accented Latin letters (case C31's notes) gets an id with the letters unaccented
(``facts/la-reunion-de-deploiement-a-lieu-au-cafe``), not cut apart where each accent stood
(``facts/la-r-union-de-d-ploiement-a-lieu``); Chinese, Japanese and Korean runs are kept as they are."""

from __future__ import annotations

import pytest

import memdir
from memdir.notes.markdown import slugify


@pytest.mark.parametrize("summary,slug", [
    ("La réunion de déploiement a lieu au café", "la-reunion-de-deploiement-a-lieu-au-cafe"),
    ("Zeitüberschreitung der Datenbankverbindung", "zeituberschreitung-der-datenbankverbindung"),
    ("Ærø Straße in Łódź", "aero-strasse-in-lodz"),
    ("La re\u0301union (NFD)", "la-reunion-nfd"),
    ("部署 réunion", "部署-reunion"),
    ("がぎぐ テスト", "がぎぐ-テスト"),
    ("한국어 메모", "한국어-메모"),
    ("kube\u200brnetes and post\u00adgres", "kubernetes-and-postgres"),  # a ZWSP or soft hyphen copied from a web page
    ("デプ\u200bロイ", "デプロイ"),
])
def test_slugs(summary, slug):
    assert slugify(summary) == slug


def test_a_remembered_note_gets_the_unaccented_id(tmp_path):
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    with memdir.open(proj, home=tmp_path / "g") as m:
        note = m.remember("La réunion de déploiement a lieu au café")
        assert note.id == "facts/la-reunion-de-deploiement-a-lieu-au-cafe"
        assert m.get(note.id).text.startswith("La réunion")
