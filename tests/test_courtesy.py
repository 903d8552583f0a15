"""An assistant turn that is only a closing courtesy is not captured (a hook's Stop or an import alike): it answers
nothing, and one common word of it ("need", "changes") pulled it into the block."""

import pytest

import memdir
from memdir.capture.courtesy import is_courtesy


@pytest.mark.parametrize("text", [
    "I'm glad the changes worked for you! If you have any more requests or need further assistance, feel free to ask.",
    "You're welcome!", "Glad that helped. Let me know if you need anything else.", "Happy coding!",
    "Is there anything else you'd like me to change?", "很高兴能帮到你！如果还有其他问题，随时告诉我。", "不客气～",
    "很高兴能帮到你，如有其他问题随时告诉我", "Glad the fix worked, let me know if anything else comes up.",
])
def test_closing_courtesy(text):
    assert is_courtesy(text)


@pytest.mark.parametrize("text", [
    "I'm glad you asked: the deploy uses make deploy.", "Let me know which port: 5433 or 5432?",
    "The tests pass now. Let me know if you need anything else.", "Glad to report that all 16 tests pass.",
    "If you need the staging password, it is in vault at kv/staging.", "Feel free to run `make deploy` now.",
    "很高兴能帮到你，部署脚本在 scripts/deploy.sh。",
    # a clause that goes on says something: the turn is kept
    "Glad that worked — the culprit was the stale lock file left by the crashed daemon, so I removed it.",
    "很高兴能帮到你，问题出在 Redis 连接池大小设为 10 太小，我已改成 50。",
    "If you have any issues with the new retry logic, note that the breaker resets after 60 seconds!",
    "Glad that worked, the port was 5433 all along.",
])
def test_a_turn_that_says_something_is_kept(text):
    assert not is_courtesy(text)


def test_courtesy_is_not_captured_but_a_user_saying_it_is_not_the_gates_business(tmp_path):
    (tmp_path / "p" / ".git").mkdir(parents=True)
    with memdir.open(tmp_path / "p", home=tmp_path / "g") as m:
        r = m.capture({"role": "assistant", "session": "s", "text": "Glad that worked! Feel free to ask if you need more help."})
        assert not r.stored and r.reason == "trivial"
        r = m.capture({"role": "assistant", "session": "s", "text": "Deployed with make deploy; glad that worked!"})
        assert r.stored
