"""The real hosts in situations users run them in beyond `test_hosts.py` (run with ``make e2e``, MEMDIR_E2E=1).

* ``installed twice`` — memdir installed for the host in the user's settings *and* the project's (a team commits
  ``--project``, a member also ran ``memdir install``): the host runs both copies of each hook; the model must get
  the seeded rule once per request, not twice, and each turn is stored once;
* ``resumed`` — a session resumed (Claude Code, Codex): the rules once per request, no turn stored twice.
"""

from __future__ import annotations

import json
import time

import pytest

import e2e_hosts as hosts
from test_hosts import HOSTS, _skip_unless, _wait_events

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("host", HOSTS)
def test_installed_for_the_user_and_the_project_the_model_gets_one_block(host, tmp_path):
    _skip_unless(host)
    s = hosts.Scratch(tmp_path, host, project=False)
    try:
        s.install()
        s.project_scope = True
        s.install()
        r = s.run(hosts.PROMPT)
        assert r.rc == 0 and not r.stderr_lines(), r.stderr_lines()
        agent = r.agent_requests()
        rule_line = "- " + hosts.RULE
        counts = [sum(b.splitlines().count(rule_line) for b in hosts.blocks_in(q["body"])) for q in agent]
        assert agent and counts == [1] * len(agent), counts
        facts = [sum(hosts.FACT in b for b in hosts.blocks_in(q["body"])) for q in agent]
        assert facts[0] >= 1 and max(facts) <= 2, facts  # the outline may name it beside the block's entry
        time.sleep(0)
        ev = _wait_events(s, 3)
        assert sorted(e["role"] for e in ev) == ["assistant", "tool", "user"], [e["text"][:60] for e in ev]
    finally:
        s.close()


@pytest.mark.parametrize("host", ["claude-code", "codex"])
def test_a_resumed_session_carries_the_rules_once(host, tmp_path):
    """`claude -p --resume ID` / `codex exec resume ID`: the host keeps the session's first block in its history and
    runs SessionStart again; the rules came twice in every request of the resumed session (three times after a
    second resume). No turn may be stored twice either."""
    _skip_unless(host)
    s = hosts.Scratch(tmp_path, host, project=False)
    try:
        s.install()
        r = s.run(hosts.PROMPT)
        exe = hosts.host_bin(host)
        if host == "claude-code":
            sid = json.loads(r.stdout)["session_id"]
            argv = [exe, "-p", "Now check the shell again please", "--resume", sid, "--output-format", "json",
                    "--allowedTools", "Bash"]
        else:
            lines = [json.loads(l) for l in r.stdout.splitlines() if l.startswith("{")]
            sid = next(x["thread_id"] for x in lines if x.get("type") == "thread.started")
            argv = [exe, "exec", "--skip-git-repo-check", "-s", "danger-full-access", "--json", "resume", sid,
                    "Now check the shell again please"]
        before = len(_wait_events(s, 3))
        s.argv = lambda prompt: argv
        r2 = s.run("")
        assert r2.rc == 0, r2.stderr[-800:]
        rule_line = "- " + hosts.RULE
        counts = [sum(b.splitlines().count(rule_line) for b in hosts.blocks_in(q["body"])) for q in r2.agent_requests()]
        assert counts and counts == [1] * len(counts), counts
        ev = _wait_events(s, before + 1)
        texts = [e["text"] for e in ev]
        assert len(texts) == len(set(texts)) and any("check the shell again" in t for t in texts), texts
    finally:
        s.close()
