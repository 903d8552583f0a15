"""A reply's Markdown emphasis and heading marks are left out of the block (characters that carry no words), code
fences keep theirs, and the matched passage stays in view."""

from memdir.inject.plain import plain


def test_bold_and_heading_marks_go_and_the_span_follows_its_words():
    text = "## Summary\nThe fix was **pin the lockfile** in CI.\n**Files:** `a.py` and ``b.py``"
    out, span = plain(text, (text.index("pin"), text.index("lockfile") + 8))
    assert out == "Summary\nThe fix was pin the lockfile in CI.\nFiles: a.py and ``b.py``"
    assert out[span[0]:span[1]] == "pin the lockfile"


def test_code_fences_lone_stars_and_identifiers_are_kept():
    text = ("run this:\n```sh\n# build **all** targets\nmake **\n```\nglob **/*.py and a ** b, __init__.py, a ` b\n"
            "    # an indented code block's comment\n\t# and a tab's")
    assert plain(text) == (text, None)


def test_a_reply_in_the_block_shows_its_words_without_the_marks(m):
    reply = ("### What changed\n" + "Context line about the session and other things. " * 6
             + "\n**Root cause:** the **zstd** frame was read before its header arrived.\n")
    m.import_events([{"key": "t:s:1", "role": "user", "text": "why did reading the session log fail?", "session": "s"},
                     {"key": "t:s:2", "role": "assistant", "text": reply, "session": "s"}])
    block = m.context("what was the root cause of the zstd frame error?")
    assert "Root cause: the zstd frame was read before its header arrived." in block, block
    assert "**" not in block and "\\###" not in block


def test_inline_code_holding_markup_keeps_its_backticks(m):
    """`<private>` in a note's prose is text about the tag: bare, the block's redaction took it for a private span's
    start and hid the rest of the line (bench/golden.py found it)."""
    out, _ = plain("Wrap text in `<private>` tags; `</memory>`, `a[0]`, `x|y` and `make test`")
    assert out == "Wrap text in `<private>` tags; `</memory>`, `a[0]`, `x|y` and make test"
    m.remember("Wrap sensitive text in `<private>` tags to keep it out of memory.", category="preferences")
    block = m.context("how do I keep sensitive text out of memory?")
    assert "tags to keep it out of memory" in block, block
