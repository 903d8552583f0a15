"""Which note a text or a handle names: an invisible character does not make a second note (C5 sibling); an unknown
handle given to supersede is said to name no note."""


def test_a_zero_width_character_does_not_make_a_second_note(m):
    # sibling of C5: the same text with an invisible character inside is the same memory
    first = m.remember("zerowidth word")
    for variant in ("zero\u200bwidth word", "zero\u00adwidth word", "\ufeffzerowidth word", "zero\u2060width word"):
        again = m.remember(variant)
        assert again.existed and again.id == first.id


def test_superseding_an_unknown_handle_says_no_note_has_it(m):
    import pytest

    from memdir.errors import UsageError

    with pytest.raises(UsageError, match="no note has that id or handle"):
        m.remember("new text", category="decisions", supersedes="zzzzzz")


def test_a_dotted_capital_i_is_a_case_difference(m):
    """C5 sibling: ``İzmir …`` then ``izmir …`` (the same words, one typed on a Turkish keyboard) made two notes:
    ``İ`` casefolds to ``i`` plus a combining dot above, which the duplicate key kept. ``IZMIR`` already matched."""
    first = m.remember("İzmir sunucusu her gece yedeklenir")
    for variant in ("izmir sunucusu her gece yedeklenir", "IZMIR SUNUCUSU HER GECE YEDEKLENIR",
                    "İZMİR SUNUCUSU HER GECE YEDEKLENİR", "Izmir sunucusu her gece yedeklenir."):
        again = m.remember(variant)
        assert again.existed and again.id == first.id, variant
    # a dotless ı is a letter of its own (ılık "lukewarm" is not ilik "marrow"): a second note, never merged away
    assert not m.remember("ılık su").existed and not m.remember("ilik su").existed
    assert not [p for p in m.inspect().problems if p.get("kind") == "duplicate"]
