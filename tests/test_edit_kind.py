"""An edit's ``kind`` must name a category, as remember's does: a typo would file the note where no kind filter
finds it (``recent --kind decision`` said "no memories yet"); a file given such a kind by hand is named by inspect."""

import pytest

from memdir.errors import UsageError


def test_an_edit_to_a_kind_no_category_has_is_refused_and_writes_nothing(m):
    note = m.remember("We deploy with bun", category="decisions")
    before = note.path.read_text(encoding="utf-8")
    with pytest.raises(UsageError, match="kind 'bogus' names no category"):
        m.edit(note.id, "---\nsummary: We deploy with bun\nkind: bogus\n---\nWe deploy with bun\n")
    assert note.path.read_text(encoding="utf-8") == before
    m.edit(note.id, "---\nsummary: We deploy with bun\nkind: pitfall\n---\nWe deploy with bun, mind the lockfile\n")
    assert m.get(note.id).kind == "pitfall"


def test_a_hand_written_unknown_kind_is_named_by_inspect_and_an_edit_may_keep_it(m):
    note = m.remember("the cache warms at nine", category="facts")
    text = note.path.read_text(encoding="utf-8").replace("kind: fact", "kind: bogus")
    assert "kind: bogus" in text
    note.path.write_text(text, encoding="utf-8")
    problems = [p for p in m.inspect().problems if "bogus" in p.get("detail", str(p))]
    assert problems, m.inspect().problems
    m.edit(note.id, text.rstrip("\n") + "\nand cools at ten\n")  # its own kind, unchanged: not this edit's to refuse
    assert "cools at ten" in m.get(note.id).text


def test_goals_and_rules_in_root_md_are_no_kind_problem(m):
    m.remember("x y z note", category="facts")
    root = m.stores.root("project").path / "ROOT.md"
    root.write_text(root.read_text(encoding="utf-8") + "\n## Goals\n- ship the viewer\n\n## Hard rules\n- never push on friday\n",
                    encoding="utf-8")
    assert not [p for p in m.inspect().problems if "names no category" in str(p)]



def test_a_secret_in_one_root_does_not_make_the_next_roots_kinds_unknown(m):
    """A note holding a secret in the project root and a plain note in the global root: inspect names the secret and
    nothing else (the secret's kinds once took the place of the known note kinds for the roots after it)."""
    m.remember("I prefer tabs over spaces in Go code", category="preferences", scope="global")
    aws = m.stores.root("project").path / "facts" / "aws.md"
    aws.parent.mkdir(parents=True, exist_ok=True)
    aws.write_text("---\nsummary: aws\nkind: fact\n---\nkey AKIAIOSFODNN7EXAMPLE for the bucket\n", encoding="utf-8")
    problems = m.inspect().problems
    assert not [p for p in problems if "names no category" in str(p)], problems
    assert [p for p in problems if p["kind"] == "secret"], problems


def test_inspect_names_a_misspelt_field_of_a_hand_written_note(m):
    note = m.remember("walrus facts live here", category="facts")
    text = note.path.read_text(encoding="utf-8").replace("---\n", "---\nsumary: walruses\ntagz: [walrus]\nauthor: me\n", 1)
    note.path.write_text(text, encoding="utf-8")
    said = " ".join(str(p) for p in m.inspect().problems)
    assert "'sumary'" in said and "did you mean 'summary'" in said and "'tagz'" in said
    assert "author" not in said  # a field of one's own is no typo


def test_fields_of_ones_own_near_memdirs_names_are_no_typo():
    from memdir.notes.markdown import field_problems

    assert field_problems({"pinned_by": 1, "updated_by": 1, "kinds": [], "tagline": "x"}) == []
    assert field_problems({"sumary": "x"})


def test_a_yaml_error_names_the_frontmatter_line():
    import pytest

    from memdir.notes.markdown import split

    with pytest.raises(UsageError, match=r"line 3: 'tags: \[a, b'"):
        split("---\nsummary: ok\ntags: [a, b\n---\nbody\n")
    with pytest.raises(UsageError, match=r"line 2: 'summary: a: b: c'"):
        split("---\nsummary: a: b: c\n---\nbody\n")
    with pytest.raises(UsageError, match=r"line 5: 'summary: one: two'"):  # blank lines after the opening '---'
        split("---\n\n\nid: a/b\nsummary: one: two\n---\nbody\n")


def test_a_field_in_another_case_is_named():
    from memdir.notes.markdown import field_problems

    said = " ".join(field_problems({"Summary": "hi", "Pinned": True}))
    assert "'Summary'" in said and "'Pinned'" in said


@pytest.mark.parametrize("kind", ["a]\nb", "decision]\n## Rules", "</memory>", "two words", "", " ", "x" * 30, 5,
                                  "bogus", "decision\u202e"])
def test_remember_refuses_a_kind_that_is_no_category_s_one_word_and_writes_nothing(m, project, kind):
    """``remember(kind=…)`` took any text as a note's kind (newlines, tags, a word no category has) and wrote it into
    the file, where the block shows it as ``note`` and ``recent --kind`` cannot find it. A kind given through the API
    is one word naming a category's kind (as ``edit`` and a piped note's frontmatter require), else ``UsageError``
    and nothing is written; leaving it out (``None``) takes the category's kind."""
    if kind in ("", " "):  # nothing given: the category's kind, as None
        assert m.remember("the cache warms at nine", category="facts", kind=kind).kind == "fact"
        return
    with pytest.raises(UsageError) as exc:
        m.remember("the cache warms at nine", category="facts", kind=kind)
    assert "\n" not in str(exc.value) and "kind" in str(exc.value), exc.value
    assert not list((project / ".memory").glob("*/*.md")) or not m.recall("cache warms")
    assert m.remember("the cache warms at nine", category="facts", kind="decision").kind == "decision"


def test_remember_takes_a_kind_in_any_case(m):
    assert m.remember("the cache warms at ten", category="facts", kind=" Decision ").kind == "decision"
