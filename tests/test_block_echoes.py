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


#: prompts capture stores in another form than they are typed (a key or a private span redacted, a terminal colour
#: taken out, a host's tag cut): the stored turn is still the prompt, never its own memory (case C24's kind)
CHANGED_WHEN_STORED = [
    "How do we deploy the billing service with token ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5?",
    "deploy billing: password=hunter2 api_key=sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD",
    "how do we deploy the billing service to staging? <private>my pin 4412</private>",
    "\x1b[1mhow do we deploy\x1b[0m the billing service to staging?",
    "how do we deploy the billing service to staging?\n<system-reminder>the user opened deploy.sh</system-reminder>",
]


def test_the_prompt_stored_in_another_form_never_comes_back_as_its_own_memory(tmp_path):
    for n, prompt in enumerate(CHANGED_WHEN_STORED):
        for door in ("api", "opencode"):
            project, home = tmp_path / f"{door}{n}", str(tmp_path / f"g{door}{n}")
            (project / ".git").mkdir(parents=True)
            with memdir.open(project, home=home) as m:
                m.remember("the billing service deploys with make deploy-billing", category="decisions")
                if door == "api":
                    assert m.capture({"role": "user", "text": prompt, "session": "s1"}).stored
                    block = m.context(prompt, sections=("hits",))
            if door == "opencode":  # its prompt hook stores the prompt, then each request's context hook asks again
                payload = {"sessionID": "oc", "directory": str(project), "text": prompt, "messages": [prompt]}
                run_hook("opencode", "user-prompt", json.dumps(payload), home=home)
                block = run_hook("opencode", "context", json.dumps(payload), home=home)
                assert "1 captured turn" in block, block
            assert "deploy-billing" in block and " user" not in block, (door, prompt, block)
