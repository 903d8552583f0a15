"""The real hosts in situations users run them in beyond `test_hosts.py` (run with ``make e2e``, MEMDIR_E2E=1).

* ``installed twice`` — memdir installed for the host in the user's settings *and* the project's (a team commits
  ``--project``, a member also ran ``memdir install``): the host runs both copies of each hook; the model must get
  the seeded rule once per request, not twice, and each turn is stored once.
"""

from __future__ import annotations

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
