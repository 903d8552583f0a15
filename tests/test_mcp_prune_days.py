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
