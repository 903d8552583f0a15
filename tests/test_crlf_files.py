"""Files a Windows checkout keeps with CRLF line ends (git's core.autocrlf) or a byte-order mark keep them when memdir
rewrites them: a pinned note, a compiled index.md; no file ends up with two styles."""

import memdir


def test_a_crlf_note_stays_crlf_after_a_pin_and_keeps_its_mark(m):
    root = m.stores.root("project").path
    (root / "facts").mkdir(parents=True, exist_ok=True)
    f = root / "facts" / "crlf.md"
    f.write_bytes("\ufeff---\r\nsummary: zebras\r\n---\r\nbody of zebras\r\nsecond line\r\n".encode("utf-8"))
    m.pin("facts/crlf")
    raw = f.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf") and b"pinned: true\r\n" in raw
    assert raw.count(b"\n") == raw.count(b"\r\n")
    assert "second line" in m.get("facts/crlf").text


def test_a_crlf_index_md_stays_crlf_and_is_not_rewritten_for_nothing(tmp_path, project):
    import os

    with memdir.open(project, home=tmp_path / "g") as m:
        m.remember("the first fact", category="facts")
        idx = m.stores.root("project").path / "facts" / "index.md"
    idx.write_bytes(idx.read_bytes().replace(b"\r\n", b"\n").replace(b"\n", b"\r\n"))
    with memdir.open(project, home=tmp_path / "g") as m:
        m.remember("the second fact", category="facts")
    raw = idx.read_bytes()
    assert b"second fact" in raw and raw.count(b"\n") == raw.count(b"\r\n")
    before = os.stat(idx).st_mtime_ns
    with memdir.open(project, home=tmp_path / "g") as m:
        m.reindex()
    assert os.stat(idx).st_mtime_ns == before


def test_a_note_with_lone_cr_line_ends_keeps_its_frontmatter_and_its_line_ends(m):
    """A note saved with classic Mac line ends (a lone CR each) was read as one line of body: its summary and tags were
    lost, ``--- summary: …`` showed in recall, a pin wrapped a second frontmatter around it in LF, and an edit of its
    body threw the summary away."""
    root = m.stores.root("project").path
    (root / "facts").mkdir(parents=True, exist_ok=True)
    f = root / "facts" / "oldmac.md"
    f.write_bytes(b"---\rsummary: zebra crossing\rtags: [roads]\r---\rbody of zebras\rsecond line\r")
    got = m.get("facts/oldmac")
    assert got.summary == "zebra crossing" and "roads" in got.tags and got.text.startswith("body of zebras")
    assert [h.id for h in m.recall("zebras")] == ["facts/oldmac"]
    m.pin("facts/oldmac")
    raw = f.read_bytes()
    assert b"\n" not in raw and raw.count(b"---\r") == 2 and b"pinned: true\r" in raw
    m.edit("facts/oldmac", "a new body\rof two lines\r")
    raw = f.read_bytes()
    assert b"\n" not in raw and b"summary: zebra crossing\r" in raw and raw.endswith(b"of two lines\r")
    assert m.get("facts/oldmac").summary == "zebra crossing"
