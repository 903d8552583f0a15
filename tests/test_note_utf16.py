"""A note file a Windows editor or PowerShell's `>` re-saved as UTF-16 was called "binary (contains NUL bytes)" by
inspect and left out of recall without saying what happened; it is named as UTF-16 text with what to do."""

import pytest

from memdir.errors import UsageError
from memdir.notes.markdown import read_text


@pytest.mark.parametrize("codec", ["utf-16", "utf-16-be"])
def test_a_utf16_note_is_named_as_such(tmp_path, codec):
    p = tmp_path / "n.md"
    body = "---\nsummary: hello\n---\nhello note\n"
    p.write_bytes(("\ufeff" + body).encode(codec) if codec.endswith("be") else body.encode(codec))
    with pytest.raises(UsageError, match="UTF-16 text .*save it as UTF-8"):
        read_text(p)


def test_a_binary_file_is_still_binary(tmp_path):
    p = tmp_path / "n.md"
    p.write_bytes(b"\x7fELF\x00\x00\x01")
    with pytest.raises(UsageError, match="binary"):
        read_text(p)
