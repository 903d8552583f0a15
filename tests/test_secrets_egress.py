"""A secret stored before redaction knew its shape (an older memdir's store, a key pattern added since), typed into a
note file by hand, or typed into a prompt never leaves the machine in plain text through a network door: the texts an
embedding provider is asked to embed (backfill, the query of a hybrid recall, the prompt a hook turns into a block)."""

from __future__ import annotations

from datetime import datetime, timezone
from unittest import mock

import memdir
from memdir.embed.fake import FakeEmbedder
from memdir.engine import hybrid as vectors

T0 = datetime(2026, 12, 1, tzinfo=timezone.utc)
OPENAI = "sk-proj-" + "Zq4tW9" * 7
GITHUB = "ghp_" + "aB3dE5fG7h" * 3 + "Jk9Lm1"
AWS = "AKIAQ2WX7ZP4LM9RT3VB"
SECRETS = (OPENAI, GITHUB, AWS, OPENAI[:20], "S3cretPw9", "hunter2abc")


class _Recording(FakeEmbedder):
    """The fake embedder, recording every text it is asked to embed (passages and queries)."""

    def __init__(self):
        super().__init__(dim=64)
        self.texts: list[str] = []

    def embed(self, texts):
        self.texts.extend(texts)
        return super().embed(texts)


def _open(tmp_path):
    (tmp_path / "p" / ".git").mkdir(parents=True, exist_ok=True)
    cfg = {"embed.provider": "fake", "recall.channel": "hybrid", "recall.half_life_days": 0}
    return memdir.open(tmp_path / "p", home=tmp_path / "h", config=cfg, clock=lambda: T0)


def _plant_old_events(m) -> None:
    """Events stored with their texts as given, as an older memdir (one that did not know these shapes) stored them."""
    import memdir.capture.events as cevents

    rows = [{"key": "u:s1:a", "role": "user", "text": f"rotate the deploy key {OPENAI}; db postgres://u:S3cretPw9@h/db",
             "session": "s1", "ts": T0},
            {"key": "t:s1:b", "role": "tool", "text": f"Bash: env → AWS_ACCESS_KEY_ID={AWS} password=hunter2abc",
             "session": "s1", "ts": T0},
            {"key": "a:s1:c", "role": "assistant", "text": f"The deploy key is rotated; the old github token {GITHUB}",
             "session": "s1", "ts": T0}]
    with mock.patch.object(cevents, "redact_text", lambda t: t), mock.patch.object(cevents, "redact_obj", lambda o: o):
        assert m.import_events(rows)["stored"] == len(rows)


def _clean(texts: list[str], where: str) -> None:
    assert texts, where
    for t in texts:
        for s in SECRETS:
            assert s not in t, (where, s, t)


def test_backfill_sends_no_stored_secret_to_the_embedding_provider(tmp_path):
    rec = _Recording()
    with _open(tmp_path) as m:
        vectors.set_provider(m, rec)
        _plant_old_events(m)
        note = m.remember("the deploy key lives in the vault", category="facts")
        path = m.roots["project"].path / (note.id + ".md")
        path.write_text(path.read_text(encoding="utf-8") + f"\nold deploy key {OPENAI}\n", encoding="utf-8")
    with _open(tmp_path) as m:  # a fresh process: the note file as a person edited it
        vectors.set_provider(m, rec)
        assert m.backfill()["embedded"] >= 4
    _clean(rec.texts, "backfill")
    assert any("[redacted:" in t for t in rec.texts)


def test_a_query_holding_a_secret_is_embedded_redacted(tmp_path):
    rec = _Recording()
    with _open(tmp_path) as m:
        vectors.set_provider(m, rec)
        m.import_events([{"key": "e1", "role": "user", "text": "we deploy with blue green releases", "ts": T0}])
        m.backfill()
        rec.texts.clear()
        m.recall(f"which deploy key, {OPENAI} or {GITHUB}?")
        m.context(f"deploy with AWS_ACCESS_KEY_ID={AWS}\nand postgres://u:S3cretPw9@h/db please")
    _clean(rec.texts, "query")
