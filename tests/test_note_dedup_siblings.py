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
