"""A prompt that only acknowledges or says to go on ("ok", "thanks!", "好的，继续") asks for nothing: its block shows
no memories (the capture gate already treats such a prompt as noise). It used to bring whatever held the word "ok":
an `{:ok, pid}` line of code, an ssh error."""

from __future__ import annotations

import pytest

import memdir


@pytest.fixture
def m(tmp_path):
    (tmp_path / "p" / ".git").mkdir(parents=True)
    with memdir.open(tmp_path / "p", home=tmp_path / "g") as mem:
        mem.import_events([
            {"key": "e1", "role": "tool", "text": "Bash: mix test → {:ok, project_id} = Projects.create(attrs)  # ok",
             "session": "s", "ts": 1_790_000_000},
            {"key": "e2", "role": "assistant", "text": "OK: the redis timeout comes from the pool size; thanks for "
             "the log. 继续 with the migration next.", "session": "s", "ts": 1_790_000_100},
        ])
        yield mem


@pytest.mark.parametrize("prompt", ["ok", "OK!", "thanks!", "继续", "好的，继续", "yes", "👍"])
def test_an_acknowledgement_gets_no_memories(m, prompt):
    assert "[" not in m.context(prompt, sections=("hits",))
    assert "## Relevant" not in m.context(prompt)


def test_a_prompt_that_asks_something_still_does(m):
    assert "redis timeout" in m.context("ok, why the redis timeout?", sections=("hits",))


@pytest.mark.parametrize("prompt", ["Go?", "tyk", "redis", "got redis?", "done?!", "ok؟ redis"])
def test_a_one_word_question_is_not_an_acknowledgement(tmp_path, prompt):
    (tmp_path / "p" / ".git").mkdir(parents=True)
    with memdir.open(tmp_path / "p", home=tmp_path / "g") as mem:
        mem.remember("The Go toolchain is pinned at go 1.22; the tyk gateway got redis 7; done after make check")
        assert "toolchain" in mem.context(prompt, sections=("hits",)), prompt
