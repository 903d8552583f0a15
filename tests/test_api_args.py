"""The Python API's calls given arguments of the wrong type or an unknown value: a one-line ``UsageError`` (or the
documented default for ``None``), nothing written; never a ``TypeError``/``AttributeError`` from deep inside, and
never a silently wrong result (a string of tags split into letters, a proposal no accept can file)."""

from __future__ import annotations

import subprocess

import pytest

import memdir


@pytest.fixture()
def m(tmp_path):
    proj = tmp_path / "proj"
    proj.mkdir()
    subprocess.run(["git", "init", "-q", str(proj)], check=True)
    with memdir.open(proj, home=tmp_path / "home") as mem:
        yield mem


def note_files(m) -> list[str]:
    root = m.status()["project"]["path"]
    from pathlib import Path

    return sorted(str(p) for p in Path(root).rglob("*.md") if p.name not in ("index.md", "ROOT.md"))


def test_remember_takes_none_and_one_string_for_tags_and_load_when(m):
    n = m.remember("deploy uses pnpm not npm", tags=None, load_when=None)
    assert n.tags == () and n.load_when == ()
    n = m.remember("the staging server is db-2", tags="infra", load_when="staging")
    assert n.tags == ("infra",) and n.load_when == ("staging",)  # one tag, not i, n, f, r, a
    assert m.get(n.id).tags == ("infra",)


@pytest.mark.parametrize("field, value", [
    ("summary", 5), ("highlight", 3), ("supersedes", 7), ("provenance", [1]), ("pinned", "no"),
    ("tags", 5), ("tags", [None]), ("load_when", {"a": 1}), ("tags", b"abc"), ("kind", ["decision"]),
])
def test_remember_with_a_field_of_the_wrong_type_is_a_usage_error_and_writes_nothing(m, field, value):
    m.remember("an earlier note so the root exists")
    before = note_files(m)
    with pytest.raises(memdir.UsageError) as err:
        m.remember("a note with one bad field", **{field: value})
    assert field in str(err.value) and "\n" not in str(err.value)
    assert note_files(m) == before


@pytest.mark.parametrize("field, value", [
    ("summary", 5), ("supersedes", 7), ("provenance", [1]), ("tags", 5), ("source", 3),
    ("category", "nope"), ("category", "../x"),
])
def test_propose_with_a_bad_field_is_a_usage_error_and_proposes_nothing(m, field, value):
    with pytest.raises(memdir.UsageError):
        m.propose("always run the tests before a push", **{field: value})
    assert m.proposals(status=None) == []


def test_a_proposal_takes_none_and_one_string_for_tags(m):
    p = m.propose("always run the tests before a push", tags=None, load_when="push")
    assert p["tags"] == [] and p["load_when"] == ["push"]
    assert m.accept_proposal(p["id"]).load_when == ("push",)


def test_explain_refuses_a_kind_no_memory_can_have_as_recall_does(m):
    m.remember("deploy uses pnpm not npm", category="decisions")
    with pytest.raises(memdir.UsageError, match="bogus"):
        m.recall("deploy", kinds=["bogus"])
    with pytest.raises(memdir.UsageError, match="bogus"):
        m.explain("deploy", kinds=["bogus"])  # was {"hits": []}: a typo read as "nothing found"


def test_one_kind_given_as_a_string_is_that_kind(m):
    m.remember("deploy uses pnpm not npm", category="decisions")
    assert [h.kind for h in m.recall("deploy", kinds="decision")] == ["decision"]  # was "unknown kind 'd'"
    assert [h.kind for h in m.recent(kinds="decision")] == ["decision"]
    assert [h["kind"] for h in m.explain("deploy", kinds="decision")["hits"]] == ["decision"]


def test_context_refuses_an_unknown_section_and_takes_one_as_a_string(m):
    m.remember("deploy uses pnpm not npm", category="decisions")
    assert "pnpm" in m.context("how do we deploy", sections="hits")  # was "" (the letters h, i, t, s)
    with pytest.raises(memdir.UsageError, match="bogus"):
        m.context("how do we deploy", sections=("hits", "bogus"))  # was "" or a block without it, unsaid


def test_proposals_refuses_an_unknown_status(m):
    m.propose("always run the tests before a push")
    assert len(m.proposals(status="pending")) == 1
    with pytest.raises(memdir.UsageError, match="bogus"):
        m.proposals(status="bogus")  # was [] as if none were there


def _session(m, n=3):
    m.import_events([{"key": f"k{i}", "role": "user" if i % 2 == 0 else "assistant", "session": "s1",
                      "text": f"how do we deploy the staging server step {i}", "ts": f"2026-12-01T10:00:0{i}Z"}
                     for i in range(n)])


@pytest.mark.parametrize("call", ["injections", "capture_skips", "sessions"])
def test_the_viewers_lists_check_their_limit_as_recent_does(m, call):
    _session(m)
    m.record_injection("<memory>\n- a block\n</memory>", prompt="how do we deploy")
    m.capture({"role": "user", "text": "ok", "session": "s2"})
    assert len(getattr(m, call)(limit=5)) == 1
    assert getattr(m, call)(limit=0) == []
    for bad in (-1, None, "x", True, float("nan")):
        with pytest.raises(memdir.UsageError, match="limit"):
            getattr(m, call)(limit=bad)  # -1 listed all but the last; None, "x" raised TypeError/ValueError


@pytest.mark.parametrize("kwargs", [
    {"query": 55}, {"prefix": 5}, {"query": "staging", "token": 5}, {"query": ["staging"]},
])
def test_forget_matching_with_an_argument_that_is_no_text_is_a_usage_error_and_deletes_nothing(m, kwargs):
    _session(m)
    with pytest.raises(memdir.UsageError):
        m.forget_matching(**kwargs)
    assert len(m.session_events("s1")) == 3


def test_prune_with_a_token_that_is_no_text_is_a_usage_error(m):
    _session(m)
    with pytest.raises(memdir.UsageError, match="token"):
        m.prune(90, 5)


def test_around_and_count_events_with_wrong_arguments_are_usage_errors(m):
    _session(m)
    hits = m.recall("deploy staging")
    assert m.around(hits, "deploy staging", chars=None)
    for bad in ({"hits": None}, {"hits": hits, "chars": "x"}, {"hits": hits, "chars": -5}):
        with pytest.raises(memdir.UsageError):
            m.around(bad.pop("hits"), "deploy staging", **bad)
    with pytest.raises(memdir.UsageError, match="since"):
        m.count_events(since="yesterday")


@pytest.mark.parametrize("call", ["export", "import_jsonl", "import_tombstones", "migrate"])
def test_paths_and_rows_of_the_wrong_type_are_usage_errors(m, tmp_path, call):
    m.remember("deploy uses pnpm not npm")
    args = {"export": [(None,), (5,), (tmp_path,)], "import_jsonl": [(None,), (5,)],
            "import_tombstones": [(None,), (5,)], "migrate": [()]}[call]
    for a in args:
        with pytest.raises(memdir.UsageError):
            if call == "migrate":
                m.migrate(from_path=5)
            else:
                getattr(m, call)(*a)  # export(a directory) was IsADirectoryError, the rest TypeError
    assert [h.id for h in m.recall("pnpm")]


@pytest.mark.parametrize("key", ["unknown.key", "recal.k", "", 5, None])
def test_config_get_of_an_unknown_key_is_a_one_line_usage_error_naming_it(m, key):
    with pytest.raises(memdir.UsageError) as info:
        m.config.get(key)
    msg = str(info.value)
    assert "\n" not in msg and repr(key) in msg and "memdir config" in msg
    with pytest.raises(KeyError):  # still a KeyError for code that caught one
        m.config[key]
    assert m.config.get("recall.k") == m.config["recall.k"]


def test_config_get_suggests_the_key_meant(m):
    with pytest.raises(memdir.UsageError, match="did you mean 'recall.k'"):
        m.config.get("recall.kk")


@pytest.mark.parametrize("expect", [5, 5.0, True, b"abcdef012345", ["x"], "", "  ", "not a version", "abc"])
def test_edit_with_an_expect_that_is_no_version_is_a_usage_error_and_writes_nothing(m, expect):
    n = m.remember("deploy uses pnpm not npm")
    before = m.note_source(n.id)
    with pytest.raises(memdir.UsageError) as info:
        m.edit(n.id, "deploy uses yarn now", expect=expect)
    assert not isinstance(info.value, memdir.EditConflict) and "\n" not in str(info.value)
    assert "expect" in str(info.value)
    assert m.note_source(n.id) == before


def test_edit_takes_a_version_with_spaces_or_capitals(m):
    from memdir.notes.markdown import version

    n = m.remember("deploy uses pnpm not npm")
    v = version(m.note_source(n.id))
    assert "yarn" in m.edit(n.id, "deploy uses yarn now", expect=f" {v.upper()} ").text


def test_export_into_a_folder_that_does_not_exist_is_refused_as_the_cli_does(m, tmp_path):
    m.remember("deploy uses pnpm not npm")
    target = tmp_path / "no" / "such" / "dump.jsonl"
    with pytest.raises(memdir.UsageError, match="does not exist: create it first") as info:
        m.export(target)
    assert "\n" not in str(info.value)
    assert not (tmp_path / "no").exists()  # no folder made
    afile = tmp_path / "afile"
    afile.write_text("x")
    with pytest.raises(memdir.UsageError):
        m.export(afile / "dump.jsonl")
    assert afile.read_text() == "x"
    (tmp_path / "there").mkdir()
    assert m.export(tmp_path / "there" / "dump.jsonl")["notes"] == 1


def test_injections_by_an_id_that_is_no_whole_number_is_a_usage_error(m):
    """`injections(id="x")` was a ValueError from int(), `id=2**70` an OverflowError from SQLite and `id=1.9` read
    row 1: an id is a logged block's whole number, anything else a one-line UsageError."""
    _session(m)
    m.record_injection("<memory>\n- a block\n</memory>", prompt="how do we deploy")
    row = m.injections()[0]
    assert [r["id"] for r in m.injections(id=row["id"])] == [row["id"]]
    for bad in ("x", "1", 1.9, True, [1]):
        with pytest.raises(memdir.UsageError, match="id"):
            m.injections(id=bad)
    assert m.injections(id=2**70) == [] and m.injections(id=-3) == []  # no row has it
