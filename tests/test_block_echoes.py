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
