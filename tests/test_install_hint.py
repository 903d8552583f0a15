"""Messages that name a missing extra say how to add it where this memdir came from: a clone's user told to
``pip install 'memdir[ui]'`` asked the package index for a project of that name (not found, or someone else's)."""

from __future__ import annotations

import json
from importlib import metadata

import pytest

from memdir.errors import install_hint


class Dist:
    def __init__(self, direct_url):
        self.direct_url = direct_url

    def read_text(self, name):
        return None if self.direct_url is None else json.dumps(self.direct_url)


@pytest.mark.parametrize("direct_url, extra, tool, want", [
    ({"url": "file:///home/ana/src/memdir", "dir_info": {"editable": True}}, "ui", "pip",
     "pip install -e '/home/ana/src/memdir[ui]'"),
    ({"url": "file:///opt/my%20tools/memdir", "dir_info": {}}, "mcp", "pip", "pip install '/opt/my tools/memdir[mcp]'"),
    ({"url": "file:///home/ana/src/memdir", "dir_info": {"editable": True}}, "", "pipx",
     "pipx install -e '/home/ana/src/memdir'"),
    (None, "ui", "pip", "pip install 'memdir[ui]'"),  # from the package index: its name
    ({"url": "https://files.example/memdir-1.0.tar.gz", "archive_info": {}}, "postgres", "pip",
     "pip install 'memdir[postgres]'"),
    (None, "", "pipx", "pipx install memdir"),
])
def test_the_hint_names_the_folder_memdir_was_installed_from(monkeypatch, direct_url, extra, tool, want):
    monkeypatch.setattr(metadata, "distribution", lambda name: Dist(direct_url))
    assert install_hint(extra, tool) == want


def test_a_missing_distribution_falls_back_to_the_package_name(monkeypatch):
    def gone(name):
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(metadata, "distribution", gone)
    assert install_hint("ui") == "pip install 'memdir[ui]'"
