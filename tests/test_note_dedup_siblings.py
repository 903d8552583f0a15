"""Siblings of C5: a text that differs from a note only by an invisible character is that note."""


def test_a_zero_width_character_does_not_make_a_second_note(m):
    # sibling of C5: the same text with an invisible character inside is the same memory
    first = m.remember("zerowidth word")
    for variant in ("zero\u200bwidth word", "zero\u00adwidth word", "\ufeffzerowidth word", "zero\u2060width word"):
        again = m.remember(variant)
        assert again.existed and again.id == first.id
