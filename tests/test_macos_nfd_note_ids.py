"""macOS: a note file whose name came back decomposed (NFD: an HFS+ volume, a clone made with
``core.precomposeunicode=false``, a file a tool saved so) is indexed under that spelling, and the id a person types
(composed, NFC, as a keyboard gives it) found nothing: ``memdir get/forget/pin decisions/café-menu`` said "no memory
with id". Either Unicode spelling of an id now names the note a root holds; an exact id is still taken as is."""

import unicodedata

from memdir.notes import markdown as notes

NFC = unicodedata.normalize("NFC", "decisions/café-menü")
NFD = unicodedata.normalize("NFD", NFC)


def _decomposed_note(m):
    n = m.remember("The café menu service keeps its orders in Postgres.", category="decisions")
    root = m.roots["project"].path
    (root / (n.id + ".md")).rename(root / (NFD + ".md"))  # what an NFD listdir hands back
    assert NFD != NFC and (root / (NFD + ".md")).is_file()
    return n


def test_a_decomposed_note_name_is_found_by_its_composed_id(m):
    _decomposed_note(m)
    got = m.get(NFC)
    assert got is not None and "Postgres" in got.text
    assert m.get(NFD) is not None  # the spelling on disk, as before


def test_pin_and_forget_take_the_composed_id(m):
    _decomposed_note(m)
    assert m.pin(NFC).pinned
    m.forget(NFC)
    assert m.get(NFD) is None and m.get(NFC) is None


def test_a_composed_note_is_found_by_a_decomposed_id(m):
    n = m.remember("The café menu service keeps its orders in Postgres.", category="decisions")
    root = m.roots["project"].path
    (root / (n.id + ".md")).rename(root / (NFC + ".md"))
    assert m.get(NFD) is not None


def test_ascii_and_unknown_ids_are_unchanged(m):
    n = m.remember("Deploys go through the staging cluster first.", category="decisions")
    assert m.get(n.id) is not None
    assert m.get(unicodedata.normalize("NFD", "decisions/naïve-nothing")) is None
