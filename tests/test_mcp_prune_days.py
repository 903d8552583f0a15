"""``memory_prune`` with a ``days`` past the longest idle time prune takes (a model's ``1e30``): one tool error in
the tool's own words (``days must be …``), not the CLI's ``prune --days must be …``."""

from __future__ import annotations

import pytest

import memdir
from memdir.errors import UsageError
from memdir.server.tools import do_prune


@pytest.mark.parametrize("days", [1e30, 10 ** 30, 365_001, float("inf"), -1, float("nan")])
def test_days_out_of_range_is_said_in_the_tools_words(tmp_path, days):
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    with memdir.open(proj, home=tmp_path / "g") as m:
        with pytest.raises(UsageError) as exc:
            do_prune(m, days)
        msg = str(exc.value)
        assert msg.startswith("days must be") and "--days" not in msg and "365,000" in msg, msg
        assert do_prune(m, 365_000)["confirm_token"]


def test_a_wrong_token_and_query_with_prefix_are_said_in_the_tools_words(tmp_path):
    """A wrong confirm_token told the model to run `memdir prune --days 90` (a shell command it may not have), and
    memory_forget with both query and prefix named the CLI's --query/--prefix: each now names the tool's arguments."""
    from memdir.server.tools import do_forget_matching

    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    with memdir.open(proj, home=tmp_path / "g") as m:
        with pytest.raises(UsageError) as exc:
            do_prune(m, 90, "abc")
        msg = str(exc.value)
        assert "memdir prune" not in msg and "--days" not in msg and "memory_prune" in msg and "days=90" in msg, msg
        with pytest.raises(UsageError) as exc:
            do_forget_matching(m, query="kestrel", prefix="u:")
        msg = str(exc.value)
        assert "--query" not in msg and "--prefix" not in msg and "query" in msg and "prefix" in msg, msg
