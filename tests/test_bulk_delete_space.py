"""A bulk delete (forget by text or prefix, prune, an export's tombstones) gives the full-text index's space back: FTS5
keeps a deleted row's postings until it merges, so after many deletions the index is merged into one segment
(``opening.OPTIMIZE_AFTER``); the file ends far smaller than the one a few single forgets leave."""

from __future__ import annotations

import os

import memdir
from memdir.store.sqlite import opening


def _events(n: int) -> list[dict]:
    words = "deploy staging kafka lag cache token rotate migration schema parser billing invoice nightly".split()
    return [{"key": f"import:t:e{i}", "role": "user", "session": f"s{i // 40}", "ts": 1_700_000_000 + i,
             "text": f"turn {i}: " + " ".join(words[(i * 7 + j) % len(words)] for j in range(30)) + f" w{i}"}
            for i in range(n)]


def test_forgetting_most_rows_by_prefix_gives_the_index_space_back(tmp_path, project):
    n = 3 * opening.OPTIMIZE_AFTER
    with memdir.open(project, home=tmp_path / "g") as m:
        m.import_events(_events(n) + [{"key": "keep:1", "role": "user", "session": "k", "text": "keep this one turn"}])
        path = m.roots["project"].db_path
        full = os.path.getsize(path)
        assert m.forget_matching(prefix="import:t:", force=True)["count"] == n
        after = os.path.getsize(path)
        assert after < full * 0.5, (full, after)  # without the merge: ~0.7 of it
        assert [h.id for h in m.recall("keep this turn", k=3)] == ["keep:1"]
        assert m.recall("kafka billing", k=3) == []
