"""Hooks as hosts fire them, in sequences (siblings of C16, C22, C24, C33): what a host put in a prompt in place of
something else (a pasted image, a collapsed paste) is not the user's words."""

import json

import pytest

import memdir
from memdir.hosts.hooks import run_hook


def prompt(project, session, text, host="claude-code"):
    payload = {"session_id": session, "cwd": str(project), "hook_event_name": "UserPromptSubmit", "prompt": text}
    return run_hook(host, "user-prompt", json.dumps(payload))


def users(project):
    with memdir.open(project) as m:
        return [h.text for h in m.recent(kinds=["user"], limit=50)]


@pytest.mark.parametrize("text", ["[Image #12]", "[Image #1] [Image #2]", "[Pasted text #1 +40 lines]",
                                  "[Pasted text #3]  [Image #1]", "[Image #1] why?"])
def test_a_prompt_of_host_placeholders_alone_is_not_the_users_words(project, text):
    prompt(project, "s1", text)
    assert users(project) == []


def test_a_prompt_with_words_beside_a_placeholder_is_kept_as_typed(project):
    prompt(project, "s1", "[Image #1] why does the login page render blank like this?")
    assert users(project) == ["[Image #1] why does the login page render blank like this?"]
