"""A config.toml that PowerShell 5's `>` or Out-File saved as UTF-16 was ignored with a warning: the settings a user
wrote there did not apply. It is read as what its byte-order mark says."""

import pytest

from memdir.config import read_toml


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
def test_a_utf16_config_is_read(tmp_path, codec):
    p = tmp_path / "config.toml"
    p.write_bytes(("\ufeff[inject]\nmax_chars = 2000\n").encode(codec))
    assert read_toml(p) == {"inject.max_chars": 2000}


def test_utf8_with_and_without_a_mark_still_read(tmp_path):
    p = tmp_path / "config.toml"
    for data in (b"[inject]\nmax_chars = 900\n", b"\xef\xbb\xbf[inject]\nmax_chars = 900\n"):
        p.write_bytes(data)
        assert read_toml(p) == {"inject.max_chars": 900}
