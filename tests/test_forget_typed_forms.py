"""``forget --query`` with the text typed the other way: a phone or macOS writes ``don’t``, ``“pnpm”`` and ``—force``
where a terminal has ``don't``, ``"pnpm"`` and ``--force``, a Turkish keyboard ``İstanbul`` where another has
``Istanbul``. The query matched only the form it was typed in (NFKC leaves curly quotes and long dashes as they
are; ``İ`` casefolds to ``i`` + a combining dot), so ``memdir forget --query "don't use npm"`` said no memory
matched while recall found the note at once."""

import pytest


@pytest.mark.parametrize("stored,typed", [
    ("don’t use npm, use “pnpm” instead", "don't use npm"),
    ("don't use npm, use \"pnpm\" instead", "don’t use npm"),
    ("don’t use npm, use “pnpm” instead", 'use "pnpm"'),
    ("Run deploy with —force when the lock is stale", "with --force"),
    ("Run deploy with --force when the lock is stale", "with —force"),
    ("Run deploy with –force when the lock is stale", "with --force"),
    ("İstanbul sunucusunda yedekleme", "istanbul sunucu"),
    ("Istanbul sunucusunda yedekleme", "İstanbul sunucu"),
    ("Use Ｎｏｄｅ １８ for the ＡＰＩ", "node 18 for the api"),
    ("Keep the ﬁle cache small", "file cache"),
    ("kuber\u200bnetes\u00a0cluster", "kubernetes cluster"),
    ("デプロイ　前に　確認", "デプロイ 前に"),
])
def test_forget_by_query_finds_the_other_typed_form(m, stored, typed):
    note = m.remember(stored)
    preview = m.forget_matching(query=typed)
    assert preview["count"] == 1, (stored, typed, preview)
    done = m.forget_matching(query=typed, token=preview["token"])
    assert done["deleted"] and m.get(note.id) is None


def test_a_dotless_i_and_a_single_dash_are_not_folded_away(m):
    """What the folding leaves apart: a dotless ``ılık`` is not ``ilik``."""
    m.remember("ılık su içilir")
    assert m.forget_matching(query="ilik su")["count"] == 0
    assert m.forget_matching(query="ılık su")["count"] == 1
