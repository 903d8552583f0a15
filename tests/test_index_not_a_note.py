"""A category's compiled index.md (``facts/index``) is no note: forget, pin and edit refuse it with one line, and
neither the file nor the tombstones change."""

from __future__ import annotations

import pytest

import memdir


@pytest.mark.parametrize("name", ["facts/index", "facts/INDEX"])
@pytest.mark.parametrize("op", ["forget", "pin", "edit"])
def test_the_compiled_index_is_refused_and_left_as_it_was(tmp_path, project, op, name):
    with memdir.open(project, home=tmp_path / "h") as m:
        m.remember("use uv for installs", category="facts")
        index = project / ".memory" / "facts" / "index.md"
        tomb = project / ".memory" / ".memdir" / "tombstones.jsonl"
        before, tombs = index.read_bytes(), tomb.read_bytes() if tomb.exists() else b""
        call = {"forget": lambda: m.forget(name), "pin": lambda: m.pin(name),
                "edit": lambda: m.edit(name, "---\\nsummary: x\\n---\\nbody\\n")}[op]
        with pytest.raises(memdir.UsageError, match="compiled index of facts/"):
            call()
        assert index.read_bytes() == before
        assert (tomb.read_bytes() if tomb.exists() else b"") == tombs
        assert [n.id for n in m.recall("uv installs", k=5)] == ["facts/use-uv-for-installs"]
