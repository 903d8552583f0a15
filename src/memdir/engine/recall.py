"""``Memdir.recall``: the lexical or fused channel, the team server's hits, the optional rerank, rehearsal.
"""

from __future__ import annotations

from typing import Iterable

from memdir.engine import events as event_ops
from memdir.engine import lexical
from memdir.errors import count_arg, items_arg
from memdir.lazylog import getLogger
from memdir.recall.tokenize import bounded_query, query_tokens
from memdir.stores import Stores
from memdir.timeutil import iso
from memdir.types import Hit

log = getLogger("memdir")  # imports logging only when a record can go somewhere


def recall(s: Stores, query: str, *, k: int | None = None, scope: str | None = None, kinds: Iterable[str] | None = None,
           rehearse: bool = False) -> list[Hit]:
    """The body of :meth:`memdir.Memdir.recall`, whose docstring is the contract."""
    k = int(s.config.get("recall.k")) if k is None else count_arg(k, "k", zero="0 gives no hits")
    kinds = items_arg(kinds, "kinds")  # one kind given as a string is that kind, not its letters
    if k <= 0 or not isinstance(query, str):
        return []
    if kinds:  # imported here: the prompt hook's recall (no filter) does not load the notes' module
        from memdir.engine.curated import check_kinds

        check_kinds(s, kinds, scope)  # a typo would read as "nothing found"
    query = bounded_query(query)
    lexical.resync(s)
    event_ops.drain_pending(s)
    return ranked(s, query, k=k, scope=scope, kinds=kinds, rehearse=rehearse)


def ranked(s: Stores, query: str, *, k: int, scope: str | None, kinds: Iterable[str] | None, rehearse: bool,
           team_until: float | None = None) -> list[Hit]:
    """Recall's hits for ``query``; ``team_until``: the ``time.monotonic()`` the team server's answer is waited for
    until at most, shared by the asks of one answer (:func:`memdir.engine.remote.ask`)."""
    tokens = query_tokens(query, repeats=True)
    if not tokens:
        return []
    team = None
    if scope in (None, "project") and not kinds and s.config.get("remote.url"):
        from memdir.engine import (
            remote,  # the team server's hits, asked while the local search runs (memdir.engine.remote)
        )

        team = remote.ask(s.config, s.project_root, query, k, now=iso(s.clock()), until=team_until)
    want = k
    reranking = bool(s.config.get("recall.rerank"))
    if reranking:  # a wider first stage for the cross-encoder (memdir.engine.rerank)
        want = max(k, int(s.config.get("recall.rerank_top")))
    if s.config.get("recall.channel") != "lexical":  # vector / hybrid: RRF fusion (memdir.engine.hybrid)
        from memdir.engine import hybrid as vectors

        hits = vectors.recall_fused(s, query, tokens, k=want, scope=scope, kinds=tuple(kinds) if kinds else None)[0]
    else:
        hits = lexical.lexical(s, tokens, k=want, scope=scope, kinds=tuple(kinds) if kinds else None, query=query)
    if reranking:
        from memdir.engine.rerank import rerank

        hits = rerank(s, query, hits, k)
    if team is not None:
        from memdir.engine.remote import fuse, held_locally, note_recall

        rows = team.result()  # waits at most what is left of remote.recall_budget_ms
        root = s.roots.get("project")
        note_recall(root, team, rows)
        if rows:  # the asker's own events, held locally, are never counted twice
            hits = fuse(hits, rows, k, held=held_locally(root.store) if root is not None and root.exists() else None)
    if rehearse and hits:
        lexical.rehearse(s, hits)
    return hits
