"""Acknowledgements in more forms (case C16's kind): "sounds good to me", "works for me", "let's do it", "sure thing",
the same go-ons and thanks in Chinese with 的 ("没问题的", "行，就这样"), in Japanese and Korean, and in the
European languages people type to an agent ("merci beaucoup", "vielen Dank!", "muchas gracias", "спасибо большое")
were stored as the user's request once they passed the length gate, and came back in a later block as a memory."""

from __future__ import annotations

import pytest

import memdir
from memdir.capture.gates import is_acknowledgement, is_trivial

ACKS = ["sounds good to me", "Looks good to me!", "sounds great", "looks great, thanks", "works for me",
        "that works for me", "okay let's do it", "let's do it!", "sure thing", "of course, go ahead", "no problem",
        "yes exactly", "absolutely, go ahead", "ship it", "approved 👍",
        "没问题的", "可以的，继续", "行，就这样", "对，没错", "开始吧，没问题的", "好的，就这么办",
        "いいですね、続けてください", "大丈夫です、お願いします", "なるほど、ありがとう", "좋네요, 계속해주세요", "네 맞아요 진행해주세요",
        "merci beaucoup !", "d'accord, continue", "oui, vas-y", "vielen Dank!", "danke schön, weiter", "alles klar, danke",
        "muchas gracias", "vale, perfecto, adelante", "grazie mille", "va bene, avanti", "obrigado, pode continuar",
        "спасибо большое", "хорошо, продолжай", "да, давай", "tamam, devam et", "teşekkürler"]


@pytest.mark.parametrize("text", ACKS)
def test_an_acknowledgement_is_trivial_and_asks_for_no_memories(text):
    assert is_trivial(text)
    if " " in text:  # word by word (a run of Han or kana is one word to it)
        assert is_acknowledgement(text)


@pytest.mark.parametrize("text", ["sounds good, but use pnpm instead of npm", "it works for me on linux but not on macos",
                                  "merci, maintenant passe le déploiement à pnpm", "danke, jetzt die Tests für den Login",
                                  "没问题的话就把部署脚本改成 pnpm", "спасибо, теперь поправь деплой", "let's do it with redis"])
def test_a_request_beside_them_is_kept(text):
    assert not is_trivial(text)


def test_none_is_captured(project, tmp_path):
    with memdir.open(project, home=tmp_path / "g") as m:
        stored = [t for i, t in enumerate(ACKS) if m.capture({"role": "user", "text": t, "session": f"s{i}"}).stored]
    assert stored == []
