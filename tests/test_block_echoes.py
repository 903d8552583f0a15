"""A question asked again and again (each asking captured as a user turn, with no reply in between) filled recall's
hits for the block with those echoes, which the block drops: from the 13th asking on, the prompt hook showed nothing
and the note that answers it was gone. The block now asks recall for more when echoes are most of what it got."""

from __future__ import annotations

import json

import memdir
from memdir.hosts.hooks import run_hook


def test_a_note_stays_in_the_prompt_block_however_often_the_question_was_asked(project, tmp_path):
    home = str(tmp_path / "g")
    with memdir.open(project, home=home) as m:
        m.remember("The deploy script uses pnpm: run `pnpm deploy --prod` from the repository root.",
                   category="facts")
    for n in range(1, 21):
        payload = {"session_id": f"s{n}", "cwd": str(project), "hook_event_name": "UserPromptSubmit",
                   "prompt": f"how do we deploy with pnpm, attempt number {n}?"}
        out = run_hook("claude-code", "user-prompt", json.dumps(payload), home=home)
        assert out and "pnpm deploy --prod" in json.loads(out)["hookSpecificOutput"]["additionalContext"], n


def test_an_unanswered_earlier_question_comes_after_the_note_that_answers_it(project, tmp_path):
    """An earlier prompt that differs from today's in one word (no reply was captured) is no answer: it goes after
    the note that is one, and the outline does not list that note's summary again once the block shows it."""
    home = str(tmp_path / "g")
    with memdir.open(project, home=home) as m:
        m.remember("deploy uses pnpm because the lockfile differs", category="facts")
    for n in range(1, 7):
        payload = {"session_id": "s1", "cwd": str(project), "hook_event_name": "UserPromptSubmit",
                   "prompt": f"how do we deploy pnpm now {n:04d}"}
        out = run_hook("claude-code", "user-prompt", json.dumps(payload), home=home)
        block = json.loads(out)["hookSpecificOutput"]["additionalContext"]
        assert block.index("lockfile differs") < block.find("how do we deploy") or "how do we deploy" not in block, n
    with memdir.open(project, home=home) as m:
        block = m.context("how do we deploy pnpm now 0007", reinforce=False)
    body = block.split("## Relevant", 1)
    assert len(body) == 2 and "lockfile differs" in body[1] and "lockfile differs" not in body[0], block
    assert body[1].index("lockfile differs") < body[1].index("how do we deploy pnpm now")


def test_only_a_question_is_told_from_a_turn_that_also_says_something():
    from memdir.inject.entries import only_asks

    for t in ("how do we deploy pnpm now", "怎么部署？", "Can you check the logs? And what about the tests?"):
        assert only_asks(t), t
    for t in ("Wow, that painting is awesome! What inspired you?", "The build failed.", "部署失败了。为什么？", ""):
        assert not only_asks(t), t
