"""Acknowledgements beyond the listed words (case C16's kind): the same thanks and go-ons in traditional Chinese
(謝謝, 繼續, 沒問題), with a Chinese sentence particle (继续吧, 好的呀, 收到啦), polite Japanese and Korean forms
(ありがとうございます, 了解しました, 고맙습니다) and English phrases (thanks a lot, thank you so much, many thanks,
let's go) were stored as the user's request, and a later block could bring "ありがとうございます" back as a memory.
A request around them is still kept."""

from __future__ import annotations

import pytest

import memdir
from memdir.capture.gates import is_acknowledgement, is_trivial

ACKS = ["謝謝", "好的，謝謝", "好的，繼續", "繼續吧", "沒問題", "確認", "開始吧", "继续吧", "行，继续吧", "好的吧",
        "好的呀", "对的呀", "收到啦", "好哒", "谢谢你", "辛苦了", "ありがとうございます", "ありがとうございました",
        "了解しました", "OKです", "よろしくお願いします", "고맙습니다", "감사해요", "네, 진행해주세요",
        "thanks a lot", "Thank you so much!", "thanks so much", "Many thanks.", "much appreciated", "yes, do it",
        "go for it", "ok let's go", "thank you very much"]


@pytest.mark.parametrize("text", ACKS)
def test_an_acknowledgement_in_another_form_is_trivial(text):
    assert is_trivial(text)


@pytest.mark.parametrize("text", ["謝謝", "好的，謝謝", "繼續", "thanks a lot", "ありがとうございます"])
def test_such_a_prompt_asks_for_no_memories(text):
    assert is_acknowledgement(text)


@pytest.mark.parametrize("text", ["繼續上次的遷移腳本", "謝謝，現在改用 pnpm", "thanks a lot, now switch the deploy to pnpm",
                                  "ありがとうございます、次はデプロイ手順を確認して", "吧台的灯坏了要换", "let's go with redis for the cache",
                                  "do it with a feature flag please", "no way"])
def test_a_request_around_them_is_not(text):
    assert not is_trivial(text)


def test_none_of_them_is_captured(project, tmp_path):
    with memdir.open(project, home=tmp_path / "g") as m:
        stored = [t for i, t in enumerate(ACKS) if m.capture({"role": "user", "text": t, "session": f"s{i}"}).stored]
    assert stored == []
