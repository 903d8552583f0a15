"""C40 and its kind: counts read while another process writes can disagree (the document count read before a term's
count that a writer has since raised); recall never fails over it, and a prompt hook whose block cannot be built
still captures the prompt."""

import json

import memdir
from memdir.hosts import hooks
from memdir.recall import bm25


def test_a_term_counted_in_more_documents_than_the_store_holds_never_fails_recall(tmp_path, monkeypatch):
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    with memdir.open(proj, home=tmp_path / "g", config={"recall.memory_index": "off"}) as m:
        for i in range(5):
            m.remember(f"deploy step {i}: run the migration before the release", category="facts")
        real = bm25.total_docs
        monkeypatch.setattr(bm25, "total_docs", lambda db: max(1, real(db) - 4))  # a writer added 4 meanwhile
        assert m.recall("deploy migration")  # no "math domain error"
        assert m.context("how do we deploy the migration?")
    assert bm25.idf_fts5(1, 5) == 1e-6 and bm25.idf_fts5(10, 3) == bm25.idf_fts5(10, 3) > 0


def test_a_prompt_hook_captures_the_prompt_when_its_block_fails(tmp_path, monkeypatch):
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    home = tmp_path / "g"

    def broken(self, *a, **k):
        raise ValueError("math domain error")

    monkeypatch.setattr(memdir.Memdir, "context", broken)
    payload = {"hook_event_name": "UserPromptSubmit", "session_id": "s1", "cwd": str(proj),
               "prompt": "how do we roll back the payments service safely?"}
    out = hooks.run_hook("claude-code", "user-prompt", json.dumps(payload), home=str(home))
    assert out == ""
    monkeypatch.undo()
    with memdir.open(proj, home=home) as m:
        assert [e["text"] for e in m.session_events("s1")] == [payload["prompt"]]


def test_a_forget_whose_row_a_reader_s_sync_removed_first_still_writes_its_tombstone(tmp_path, monkeypatch):
    """A reader (another process's recall) syncs the index from the note files without the write lock: between the
    forget's unlink of the file and its transaction it removes the row. The forget still succeeds and writes the
    tombstone, so an export made before brings nothing back (before: "another person's memory", no tombstone)."""
    import pathlib

    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    home = tmp_path / "g"
    with memdir.open(proj, home=home) as m:
        nid = m.remember("the gadget fleet restarts at 04:00 UTC", category="facts").id
        m.export(tmp_path / "before.jsonl")
        real_unlink = pathlib.Path.unlink

        def unlink_then_a_reader_syncs(self, *a, **k):
            real_unlink(self, *a, **k)
            if self.suffix == ".md":
                with memdir.open(proj, home=home) as reader:
                    reader.recall("gadget fleet")  # its sync drops the row of the file that is gone

        monkeypatch.setattr(pathlib.Path, "unlink", unlink_then_a_reader_syncs)
        assert m.forget(nid)
        monkeypatch.undo()
        m.import_jsonl(tmp_path / "before.jsonl")
        assert not m.recall("gadget fleet")
