"""The words of a whole-message acknowledgement (``ok``, ``好的``, ``はい``, ``merci beaucoup``): what
:func:`memdir.capture.gates.is_trivial` and :func:`memdir.capture.gates.is_acknowledgement` compare a message with."""

from __future__ import annotations

#: whole-message acknowledgements (compared after lower-casing and removing punctuation, spaces and emoji)
TRIVIAL = frozenset("""
ok okay okey k kk oki yes yep yeah yup y no nope n sure fine cool nice great good thanks thank thankyou thx ty
tks cheers please pls go goon goahead continue cont next done lgtm agreed right correct got gotit understood
alright allright roger hi hello hey yo bye retry again proceed 继续 好 好的 好滴 好吧 好啊 好嘞 行 行吧 可以 可
嗯 嗯嗯 恩 哦 噢 喔 对 对的 对呀 是 是的 谢谢 多谢 感谢 谢啦 收到 明白 了解 知道了 懂了 没问题 好了 完成 下一步
开始 确认 同意 ok了 はい うん ありがとう 네 감사합니다
soundsgood looksgood perfect awesome excellent keepgoing carryon makessense allgood noted sgtm
お願いします おねがいします 続けて 続けてください 進めて 進めてください どうぞ 了解です わかりました 分かりました
承知しました オッケー いいです ええ
알겠습니다 알겠어요 알겠어 좋아요 좋아 계속 계속해 계속해요 계속해주세요 계속해줘 고마워요 고마워 확인 네네 응 예
alot somuch verymuch manythanks appreciated appreciateit muchappreciated letsgo goforit doit thanku
吧 啊 呀 啦 哒 嘛 哈 谢谢你 谢谢您 辛苦 辛苦了 辛苦啦
ありがとうございます ありがとうございました どうも です よろしく 了解しました 承知です
고맙습니다 감사 감사해요 감사합니다 좋습니다 진행 진행해 진행해요 진행해주세요 넵 오케이 알았어
tome forme lets letsdoit soundsgreat looksgreat worksforme thatworks surething ofcourse noproblem exactly absolutely
shipit approved 的 就这样 就这么办 没错 いいね いいよ いいですね 大丈夫 なるほど 좋네요 맞아요 맞아 merci mercibeaucoup oui daccord vasy parfait danke
dankeschön vielendank weiter allesklar genau gracias muchasgracias vale perfecto adelante grazie graziemille vabene
avanti obrigado obrigada continuar podecontinuar спасибо спасибобольшое хорошо продолжай да давай ладно понятно tamam
devam devamet teşekkürler
""".split())
LONGEST = max(map(len, TRIVIAL))  # how far back the segmentation of a squashed text looks for a word
#: the traditional forms of the characters of :data:`TRIVIAL`'s Chinese words (謝謝, 繼續, 沒問題, 確認, 開始, 對),
#: read as the simplified ones by the acknowledgement tests
TRADITIONAL = str.maketrans("謝繼續沒問題開確認對", "谢继续没问题开确认对")
