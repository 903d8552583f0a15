"""A note, ROOT.md or index.md that the person made private (0600) stays so when memdir rewrites it (a pin, an
edit, a compile); a new note gets the user's usual mode."""

import os
import stat


def _mode(p):
    return stat.S_IMODE(os.stat(p).st_mode)


def test_rewrites_keep_a_private_files_mode(m):
    note = m.remember("the vault lives on the second host", category="facts")
    os.chmod(note.path, 0o600)
    m.pin(note.id)
    assert _mode(note.path) == 0o600
    m.edit(note.id, "the vault lives on the third host")
    assert _mode(note.path) == 0o600
    root_md = m.stores.root("project").path / "ROOT.md"
    index_md = note.path.parent / "index.md"
    os.chmod(root_md, 0o600)
    os.chmod(index_md, 0o600)
    m.remember("another fact about hosts", category="facts")
    assert _mode(root_md) == 0o600 and _mode(index_md) == 0o600


def test_a_new_note_gets_the_usual_mode(m):
    old = os.umask(0o022)
    try:
        note = m.remember("a fresh fact", category="facts")
    finally:
        os.umask(old)
    assert _mode(note.path) == 0o644
