"""Passages and handles (issue 10, item 2): long turns and tool outputs are stored whole and indexed as passages; every
memory has a short, stable handle that get/forget (API and CLI) accept."""

import json

from click.testing import CliRunner

import memdir
from memdir.recall import handles, passages
from memdir.cli.main import cli
from memdir.capture.tools import TOOL_SUMMARY_MAX_CHARS, summarise_tool


def _long_output(needle_line: str, n: int = 200) -> str:
    lines = [f"line {i}: compiling module Spotter.Generated{i} with the usual warnings about unused aliases" for i in range(n)]
    lines[n - 20] = needle_line
    return "\n".join(lines)


def test_passage_split_covers_the_text_in_order():
    text = _long_output("the needle")
    spans = passages.split(text)
    assert len(spans) > 5
    assert spans[0][0] == 0 and spans[-1][1] == len(text)
    assert all(a[1] == b[0] for a, b in zip(spans, spans[1:]))
    assert all(b - a <= passages.TARGET * 1.5 + 1 for a, b in spans)
    assert passages.split("short") == [(0, 5)]


def test_tool_output_is_stored_whole_up_to_the_documented_cap():
    out = _long_output("Finished in 3.0 seconds: 14 doctests, 76 tests, 0 failures")
    text = summarise_tool("Bash", "mix test", out)
    assert "76 tests, 0 failures" in text and len(text) > 2000
    assert TOOL_SUMMARY_MAX_CHARS >= 20_000
    big = summarise_tool("Bash", "mix test", "x" * 50_000 + "\n14 doctests, 76 tests, 0 failures")
    assert len(big) <= TOOL_SUMMARY_MAX_CHARS and big.endswith("76 tests, 0 failures") and "chars elided" in big


def test_recall_finds_the_passage_deep_in_a_long_tool_output(m):
    needle = "Finished in 3.0 seconds: 14 doctests, 76 tests, 0 failures"
    text = summarise_tool("Bash", "mix test 2>&1", _long_output(needle))
    m.import_events([{"key": "t:s1:1", "role": "tool", "text": text, "session": "s1"}])
    m.import_events([{"key": f"u:s1:{i}", "role": "user", "text": f"please compile module number {i} again", "session": "s1"}
                     for i in range(5)])
    hits = m.recall("how many doctests failures")
    assert hits and hits[0].id == "t:s1:1"
    a, b = hits[0].span
    assert needle in hits[0].text[a:b]
    assert len(m.get("t:s1:1").text) == len(text)  # stored whole


def test_handles_are_short_stable_and_accepted_by_get_and_forget(m, project, tmp_path):
    note = m.remember("Deploys use pnpm, never npm", category="decisions")
    m.import_events([{"key": "import:claude-code:258c7280-ae70-4798-800f-63464d01a85d:toolu_01UeW27qA9GbyT6uKQgp2VCT",
                      "role": "tool", "text": "Bash: git push → everything up to date", "session": "s"}])
    hits = {h.id: h for h in m.recall("pnpm push")}
    hn = hits[note.id].handle
    he = hits["import:claude-code:258c7280-ae70-4798-800f-63464d01a85d:toolu_01UeW27qA9GbyT6uKQgp2VCT"].handle
    assert len(hn) == handles.LENGTH and len(he) == handles.LENGTH and hn != he
    assert hn == handles.digest(note.id)[:handles.LENGTH]  # derived from the id: survives reindex, export/import
    assert m.get(hn).id == note.id and m.get(he).text.startswith("Bash: git push")
    m.reindex()
    assert {h.id: h.handle for h in m.recall("pnpm")}[note.id] == hn
    r = CliRunner().invoke(cli, ["--dir", str(project), "--home", str(tmp_path / "g"), "get", he, "--json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["text"].startswith("Bash: git push")
    r = CliRunner().invoke(cli, ["--dir", str(project), "--home", str(tmp_path / "g"), "forget", hn])
    assert r.exit_code == 0, r.output
    assert m.get(note.id) is None and m.get(hn) is None
    assert m.forget(he) is True and m.get(he) is None
    r = CliRunner().invoke(cli, ["--dir", str(project), "--home", str(tmp_path / "g"), "get", he])
    assert r.exit_code == 1


def test_handle_collisions_take_a_longer_handle(m):
    m.import_events([{"key": "a", "text": "first event text here", "session": "s"}])
    db = m.roots["project"].db
    first = db.execute("SELECT handle FROM docs WHERE ref = 'a'").fetchone()[0]
    # force a collision: another ref whose digest we pretend starts the same way
    with m.roots["project"].tx() as tx:
        tx.execute("UPDATE docs SET handle = ? WHERE ref = 'a'", (handles.digest("b")[:handles.LENGTH],))
    m.import_events([{"key": "b", "text": "second event text here", "session": "s"}])
    second = db.execute("SELECT handle FROM docs WHERE ref = 'b'").fetchone()[0]
    assert len(second) == handles.LENGTH + 1 and second.startswith(handles.digest("b")[:handles.LENGTH])
    assert first != second


def test_forget_and_reindex_remove_passage_rows(m):
    text = summarise_tool("Bash", "make", _long_output("the rare zebracorn token"))
    m.import_events([{"key": "t:s:1", "role": "tool", "text": text, "session": "s"}])
    db = m.roots["project"].db
    n = db.execute("SELECT count(*) FROM passages").fetchone()[0]
    assert n > 3
    assert db.execute("SELECT count(*) FROM fts").fetchone()[0] == 1 + n
    assert m.recall("zebracorn")[0].id == "t:s:1"
    assert m.forget("t:s:1")
    assert db.execute("SELECT count(*) FROM passages").fetchone()[0] == 0
    assert db.execute("SELECT count(*) FROM fts").fetchone()[0] == 0
    assert m.recall("zebracorn") == []


def test_an_index_from_before_m008_gains_handles_and_passages(tmp_path, project):
    from old_layout import build_old_index

    with memdir.open(project, home=tmp_path / "g") as m:
        path = m.roots["project"].db_path
    # an index of schema 7 as an older memdir left it: no handles, no passages
    build_old_index(path, 7, [{"key": "t:s:1", "role": "tool", "text": summarise_tool("Bash", "make", _long_output("zebracorn")),
                               "session": "s", "ts": 1_790_000_000}])
    with memdir.open(project, home=tmp_path / "g") as m:
        hit = m.recall("zebracorn")[0]
        assert hit.id == "t:s:1" and hit.handle and "zebracorn" in hit.text[hit.span[0]:hit.span[1]]
        assert m.roots["project"].db.execute("SELECT count(*) FROM passages").fetchone()[0] > 3
